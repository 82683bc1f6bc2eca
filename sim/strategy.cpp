#include "sim/strategy.h"

#include <fmt/format.h>

namespace oversim::sim {

const char* to_string(ChoiceKind kind) {
  switch (kind) {
    case ChoiceKind::schedule: return "schedule";
    case ChoiceKind::timer: return "timer";
    case ChoiceKind::data: return "data";
  }
  return "?";
}

namespace {
Prng stream(uint64_t seed, uint64_t salt) { return Prng(seed ^ (0x6a09e667f3bcc909ULL * (salt + 1))); }
}  // namespace

RandomStrategy::RandomStrategy(uint64_t seed)
    : seed_(seed), schedule_(stream(seed, 0)), timer_(stream(seed, 1)), data_(stream(seed, 2)) {}

uint64_t RandomStrategy::choose(ChoiceKind kind, uint64_t bound) {
  switch (kind) {
    case ChoiceKind::schedule: return schedule_.bounded(bound);
    case ChoiceKind::timer: return timer_.bounded(bound);
    case ChoiceKind::data: return data_.bounded(bound);
  }
  return 0;
}

std::string RandomStrategy::describe() const { return fmt::format("random(seed={})", seed_); }

ReplayStrategy::ReplayStrategy(std::vector<Choice> choices) : choices_(std::move(choices)) {}

uint64_t ReplayStrategy::choose(ChoiceKind kind, uint64_t bound) {
  if (next_ >= choices_.size()) {
    throw ReplayDivergence(fmt::format("replay diverged at choice #{}: the record has only {} choices, run asked for a {} choice of {}",
                                       next_, choices_.size(), to_string(kind), bound));
  }
  const Choice& c = choices_[next_];
  if (c.kind != kind || c.bound != bound) {
    throw ReplayDivergence(fmt::format("replay diverged at choice #{}: recorded a {} choice of {}, run asked for a {} choice of {}",
                                       next_, to_string(c.kind), c.bound, to_string(kind), bound));
  }
  ++next_;
  return c.value;
}

std::string ReplayStrategy::describe() const { return fmt::format("replay({} choices)", choices_.size()); }

}  // namespace oversim::sim
