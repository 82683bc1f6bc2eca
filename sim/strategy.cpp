#include "sim/strategy.h"

#include <algorithm>

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

PctStrategy::PctStrategy(uint64_t seed, uint32_t depth, uint64_t steps)
    : seed_(seed), depth_(depth < 1 ? 1 : depth), steps_(steps < 1 ? 1 : steps), priorities_(stream(seed, 3)), timer_(stream(seed, 1)), data_(stream(seed, 2)) {
  // depth-1 distinct change points in [1, steps] (fewer when there are fewer steps).
  const uint64_t wanted = std::min<uint64_t>(depth_ - 1, steps_);
  while (change_points_.size() < wanted) {
    const uint64_t point = 1 + priorities_.bounded(steps_);
    if (std::find(change_points_.begin(), change_points_.end(), point) == change_points_.end()) change_points_.push_back(point);
  }
  std::sort(change_points_.begin(), change_points_.end());
}

uint64_t PctStrategy::choose(ChoiceKind kind, uint64_t bound) {
  switch (kind) {
    case ChoiceKind::schedule: return priorities_.bounded(bound);  // no ids: only a world that does not ask for them
    case ChoiceKind::timer: return timer_.bounded(bound);
    case ChoiceKind::data: return data_.bounded(bound);
  }
  return 0;
}

uint64_t PctStrategy::choose_fiber(const std::vector<uint64_t>& ready) {
  ++decisions_;
  // Initial priorities are at least `depth_`, above every change point's; the low bits hold no
  // id, so two fibers can tie only by a 2^-40 chance, broken by the lower id.
  auto priority_of = [&](uint64_t id) {
    auto it = priority_.find(id);
    if (it == priority_.end()) {
      const uint64_t draw = priorities_.bounded(uint64_t{1} << 40);
      it = priority_.emplace(id, depth_ + draw).first;
    }
    return it->second;
  };
  auto highest = [&] {
    size_t best = 0;
    for (size_t i = 1; i < ready.size(); ++i) {
      const uint64_t a = priority_of(ready[i]);
      const uint64_t b = priority_of(ready[best]);
      if (a > b || (a == b && ready[i] < ready[best])) best = i;
    }
    return best;
  };
  size_t pick = highest();
  if (next_change_ < change_points_.size() && decisions_ == change_points_[next_change_]) {
    ++next_change_;
    priority_[ready[pick]] = next_change_;  // the j-th change point: priority j
    pick = highest();
  }
  return pick;
}

std::string PctStrategy::describe() const { return fmt::format("pct(seed={}, depth={}, steps={})", seed_, depth_, steps_); }

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
