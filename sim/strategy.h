// Every nondeterministic choice of a run goes through one Strategy: which ready fiber runs next,
// which of several simultaneous timers fires first, and every data draw (latency, loss, workload
// randomness). The world records each choice that had more than one option, so any run can be
// replayed from its choice list alone; a replay that is asked a different question than the one
// recorded fails loudly at the first divergence (Coyote's design).
#pragma once

#include <cstdint>
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
