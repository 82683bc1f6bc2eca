// Every nondeterministic choice of a run goes through one Strategy: which ready fiber runs next,
// which of several simultaneous timers fires first, and every data draw (latency, loss, workload
// randomness). The world records each choice that had more than one option, so any run can be
// replayed from its choice list alone; a replay that is asked a different question than the one
// recorded fails loudly at the first divergence (Coyote's design).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/prng.h"

namespace oversim::sim {

enum class ChoiceKind : uint8_t { schedule, timer, data };
const char* to_string(ChoiceKind kind);

struct Choice {
  ChoiceKind kind = ChoiceKind::data;
  uint64_t bound = 0;  // the number of options; always >= 2 in a record
  uint64_t value = 0;  // in [0, bound)
  friend bool operator==(const Choice&, const Choice&) = default;
};

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

}  // namespace oversim::sim
