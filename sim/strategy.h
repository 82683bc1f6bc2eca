// Every nondeterministic choice of a run goes through one Strategy: which ready fiber runs next,
// which of several simultaneous timers fires first, and every data draw (latency, loss, workload
// randomness). The world records each choice that had more than one option, so any run can be
// replayed from its choice list alone; a replay that is asked a different question than the one
// recorded fails loudly at the first divergence (Coyote's design).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/prng.h"

namespace oversim::sim {

// fault: whether (and which) fault strikes at a fault point; only the exhaustive explorer asks it.
enum class ChoiceKind : uint8_t { schedule, timer, data, fault };
const char* to_string(ChoiceKind kind);

struct Choice {
  ChoiceKind kind = ChoiceKind::data;
  uint64_t bound = 0;  // the number of options; always >= 2 in a record
  uint64_t value = 0;  // in [0, bound)
  friend bool operator==(const Choice&, const Choice&) = default;
};

// What one option of a schedule or timer choice acts on, for the explorer's reduction (partial
// order reduction by persistent sets, Godefroid 1996): the nodes whose state it may read or
// write (bit i: node id i) and a group of fibers that share memory outside any node (a buyer's
// gateway and its attempts). `global` marks an option that may touch anything (a fault
// callback, the conductor, a fiber with no node and no group). Two options at the same instant
// are independent when neither is global and they share no node and no group: nodes talk only
// by messages, which take at least the minimum latency, so the order of such options changes
// nothing either can see at that instant.
// Within a node, `actor` (when not 0) narrows it further: the option touches only that actor's
// part of the node's state (a Sentinel's monitor of one server), so two different actors of a
// node are independent; actor 0 touches the whole node.
struct Footprint {
  uint64_t nodes = 0;
  uint32_t group = 0;
  uint32_t actor = 0;
  // A message delivery into a mailbox (its id, 0 for none): deliveries into one mailbox depend on
  // each other (their order is the queue's order), but not on what its consumer does meanwhile:
  // a push and a receive commute (the receiver gets the same message at the same instant either
  // way). A delivery that wakes a waiting receiver also carries that receiver's footprint.
  uint64_t mailbox = 0;
  bool global = true;
  // A fiber spawned before the run started that has not yet run: its first step only sets up
  // its waits (a server's loops park on their mailbox or timer, a buyer's gateway until its
  // arrival), so the explorer takes boot steps in spawn order.
  bool boot = false;
  // An object (1..) that fibers of different groups share outside any node: options that name
  // the same one depend on each other. Kept apart from `mailbox`, which a delivery overwrites.
  uint64_t shared = 0;
  static Footprint everything() { return {}; }
  static Footprint node(uint32_t id, uint32_t group = 0) {
    if (id >= 64) return everything();
    return Footprint{uint64_t{1} << id, group, 0, 0, false, false, 0};
  }
};
bool dependent(const Footprint& a, const Footprint& b);

class Strategy {
 public:
  virtual ~Strategy() = default;
  // Returns a value in [0, bound), bound >= 2.
  virtual uint64_t choose(ChoiceKind kind, uint64_t bound) = 0;
  // Which of the ready fibers runs next, given their ids (the world's own counter) in the
  // scheduler's ready order; returns an index into `ready` (size >= 2). Called instead of
  // choose(schedule, n) when wants_fiber_ids(); recorded as that same choice, so any strategy's
  // run replays with ReplayStrategy.
  virtual uint64_t choose_fiber(const std::vector<uint64_t>& ready) { return choose(ChoiceKind::schedule, ready.size()); }
  virtual bool wants_fiber_ids() const { return false; }
  // A schedule or timer choice with what each option acts on; called instead of choose() when
  // wants_footprints() (the exhaustive explorer), recorded as the same choice.
  virtual uint64_t choose_option(ChoiceKind kind, const std::vector<Footprint>& options) { return choose(kind, options.size()); }
  virtual bool wants_footprints() const { return false; }
  // The sale is over and every fault has played out (World::close_points): what is left is the
  // heal and the quiet time before the "eventually" checks.
  virtual void points_closed() {}
  virtual std::string describe() const = 0;
};

// Seeded uniform choices. Each kind draws from its own stream (the seed mixed with a per-kind
// salt) so that, for example, one
// more scheduling decision does not shift every later network latency: small changes to a
// scenario keep the rest of the run recognisable, which helps shrinking and reading diffs.
class RandomStrategy final : public Strategy {
 public:
  explicit RandomStrategy(uint64_t seed);
  uint64_t choose(ChoiceKind kind, uint64_t bound) override;
  std::string describe() const override;

 private:
  uint64_t seed_;
  Prng schedule_;
  Prng timer_;
  Prng data_;
};

// PCT, probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi, Nagarakatte, ASPLOS
// 2010): every fiber gets a random priority when first seen and the highest-priority ready fiber
// always runs; at depth-1 change points, drawn uniformly among the first `steps` scheduling
// decisions, the fiber about to run drops to a priority below every initial one (the j-th change
// point gives priority j). A bug that needs d ordering constraints is found with probability at
// least 1/(n * steps^(d-1)) per run for n fibers. `steps` is an estimate of the run's scheduling
// decisions (a probe run without faults gives it). Timer ties and data draws are uniform, from
// the same streams RandomStrategy uses for the same seed.
class PctStrategy final : public Strategy {
 public:
  PctStrategy(uint64_t seed, uint32_t depth, uint64_t steps);
  uint64_t choose(ChoiceKind kind, uint64_t bound) override;
  uint64_t choose_fiber(const std::vector<uint64_t>& ready) override;
  bool wants_fiber_ids() const override { return true; }
  std::string describe() const override;
  const std::vector<uint64_t>& change_points() const { return change_points_; }

 private:
  uint64_t seed_;
  uint32_t depth_;
  uint64_t steps_;
  Prng priorities_;
  Prng timer_;
  Prng data_;
  std::map<uint64_t, uint64_t> priority_;  // fiber id -> priority; higher runs first
  std::vector<uint64_t> change_points_;    // ascending decision numbers (1-based)
  size_t next_change_ = 0;
  uint64_t decisions_ = 0;
};

struct ReplayDivergence : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Replays a recorded choice list. Throws ReplayDivergence when asked for a choice whose kind or
// bound differs from the record, or when the record is exhausted.
class ReplayStrategy final : public Strategy {
 public:
  explicit ReplayStrategy(std::vector<Choice> choices);
  uint64_t choose(ChoiceKind kind, uint64_t bound) override;
  std::string describe() const override;
  size_t consumed() const { return next_; }
  size_t size() const { return choices_.size(); }

 private:
  std::vector<Choice> choices_;
  size_t next_ = 0;
};

// Replays a list of choice values leniently, the way shrinking and the exhaustive explorer need:
// value i answers the run's i-th choice whatever its kind (clamped to bound - 1 when the run now
// offers fewer options), and every choice past the list takes 0, the first option. So any list
// is a valid run: deleting or lowering values gives a neighbouring run, never an error. Counts
// the choices it had to clamp or invent.
class ChoicesStrategy final : public Strategy {
 public:
  explicit ChoicesStrategy(std::vector<uint64_t> values);
  uint64_t choose(ChoiceKind kind, uint64_t bound) override;
  std::string describe() const override;
  size_t consumed() const { return next_; }
  size_t clamped() const { return clamped_; }

 private:
  std::vector<uint64_t> values_;
  size_t next_ = 0;
  size_t clamped_ = 0;
};

// The exhaustive explorer's strategy (properties/explore.h): replays a prefix of values exactly,
// then takes the first option it walks at every later choice. At each choice it records which
// options the explorer must walk there: for a schedule or timer choice, a persistent set (the
// smallest group of options that depend on each other, by sim::Footprint; any other option
// commutes with all of them); for a data draw with more than `data_options` options, only the
// first; otherwise every option.
class ExploreStrategy final : public Strategy {
 public:
  // `max_deviations`: at most this many schedule or timer choices may take an option other than
  // the first walked (iterative context bounding, Musuvathi and Qadeer, PLDI 2007); past it,
  // every such choice walks only its first option. UINT64_MAX: no bound.
  ExploreStrategy(std::vector<uint64_t> prefix, uint64_t data_options, uint64_t max_deviations = UINT64_MAX);
  uint64_t choose(ChoiceKind kind, uint64_t bound) override;
  uint64_t choose_option(ChoiceKind kind, const std::vector<Footprint>& options) override;
  bool wants_footprints() const override { return true; }
  // From here on the explorer walks one order only (the quiet time after the sale).
  void points_closed() override { quiet_ = true; }
  std::string describe() const override;
  // Per choice made, the options to walk (ascending; the value taken is one of them).
  const std::vector<std::vector<uint32_t>>& walked() const { return walked_; }
  uint64_t reduced() const { return reduced_; }  // options left out by persistent sets

 private:
  uint64_t take(ChoiceKind kind, std::vector<uint32_t> walk);
  std::vector<uint64_t> prefix_;
  uint64_t data_options_;
  uint64_t max_deviations_;
  uint64_t deviations_ = 0;
  std::vector<std::vector<uint32_t>> walked_;
  uint64_t reduced_ = 0;
  bool quiet_ = false;
};

// A strategy the caller keeps (to read what it recorded after the run) lent to a World, which
// owns the strategy it is given: every call is forwarded.
class LentStrategy final : public Strategy {
 public:
  explicit LentStrategy(Strategy& s) : s_(s) {}
  uint64_t choose(ChoiceKind kind, uint64_t bound) override { return s_.choose(kind, bound); }
  uint64_t choose_fiber(const std::vector<uint64_t>& ready) override { return s_.choose_fiber(ready); }
  bool wants_fiber_ids() const override { return s_.wants_fiber_ids(); }
  uint64_t choose_option(ChoiceKind kind, const std::vector<Footprint>& options) override { return s_.choose_option(kind, options); }
  bool wants_footprints() const override { return s_.wants_footprints(); }
  void points_closed() override { s_.points_closed(); }
  std::string describe() const override { return s_.describe(); }

 private:
  Strategy& s_;
};

// Depth-first backtracking over a run's choices: the values of the run, cut after the deepest
// choice that has an option left to walk, with that choice moved to its next option; nullopt
// when every choice took its last option (the tree is done).
std::optional<std::vector<uint64_t>> next_prefix(const std::vector<uint64_t>& values, const std::vector<std::vector<uint32_t>>& walked);

// "1.0*14.2": values separated by dots, a run of equal values as value*count. Parsing throws
// std::invalid_argument naming the bad token.
std::string format_choice_values(const std::vector<uint64_t>& values);
std::vector<uint64_t> parse_choice_values(const std::string& text);
std::vector<uint64_t> values_of(const std::vector<Choice>& choices);

}  // namespace oversim::sim
