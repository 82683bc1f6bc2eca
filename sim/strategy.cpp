#include "sim/strategy.h"

#include <algorithm>

#include <fmt/format.h>

namespace oversim::sim {

const char* to_string(ChoiceKind kind) {
  switch (kind) {
    case ChoiceKind::schedule: return "schedule";
    case ChoiceKind::timer: return "timer";
    case ChoiceKind::data: return "data";
    case ChoiceKind::fault: return "fault";
  }
  return "?";
}

bool dependent(const Footprint& a, const Footprint& b) {
  if (a.global || b.global) return true;
  if (a.mailbox != 0 && a.mailbox == b.mailbox) return true;
  if (a.shared != 0 && a.shared == b.shared) return true;
  if (a.group != 0 && a.group == b.group) return true;
  if ((a.nodes & b.nodes) == 0) return false;
  return a.actor == 0 || b.actor == 0 || a.actor == b.actor;
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
    case ChoiceKind::data:
    case ChoiceKind::fault: return data_.bounded(bound);
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
    case ChoiceKind::data:
    case ChoiceKind::fault: return data_.bounded(bound);
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

ChoicesStrategy::ChoicesStrategy(std::vector<uint64_t> values) : values_(std::move(values)) {}

uint64_t ChoicesStrategy::choose(ChoiceKind, uint64_t bound) {
  if (next_ >= values_.size()) {
    ++next_;
    return 0;
  }
  const uint64_t v = values_[next_++];
  if (v < bound) return v;
  ++clamped_;
  return bound - 1;
}

std::string ChoicesStrategy::describe() const { return fmt::format("choices({} values)", values_.size()); }

ExploreStrategy::ExploreStrategy(std::vector<uint64_t> prefix, uint64_t data_options, uint64_t max_deviations)
    : prefix_(std::move(prefix)), data_options_(data_options), max_deviations_(max_deviations) {}

uint64_t ExploreStrategy::take(ChoiceKind kind, std::vector<uint32_t> walk) {
  const size_t i = walked_.size();
  const bool ordering = kind == ChoiceKind::schedule || kind == ChoiceKind::timer;
  if (ordering && walk.size() > 1 && deviations_ >= max_deviations_) {
    reduced_ += walk.size() - 1;
    walk = std::vector<uint32_t>{walk.front()};
  }
  uint64_t value = walk.front();
  if (i < prefix_.size()) {
    value = prefix_[i];
    if (std::find(walk.begin(), walk.end(), value) == walk.end()) {
      throw ReplayDivergence(fmt::format("explore: the prefix takes option {} at {} choice #{}, outside the options walked there", value, to_string(kind), i));
    }
  }
  if (ordering && value != walk.front()) ++deviations_;
  walked_.push_back(std::move(walk));
  return value;
}

uint64_t ExploreStrategy::choose(ChoiceKind kind, uint64_t bound) {
  const uint64_t n = quiet_ || (kind == ChoiceKind::data && bound > data_options_) ? 1 : bound;
  std::vector<uint32_t> walk(static_cast<size_t>(n));
  for (uint32_t k = 0; k < walk.size(); ++k) walk[k] = k;
  return take(kind, std::move(walk));
}

uint64_t ExploreStrategy::choose_option(ChoiceKind kind, const std::vector<Footprint>& options) {
  const size_t n = options.size();
  if (quiet_) {
    reduced_ += n - 1;
    return take(kind, {0});
  }
  for (size_t k = 0; k < n; ++k) {
    if (options[k].boot) {
      reduced_ += n - 1;
      return take(kind, {static_cast<uint32_t>(k)});
    }
  }
  // Connected components of "depends on"; walk the smallest (the lowest-numbered on a tie).
  std::vector<uint32_t> component(n, UINT32_MAX);
  std::vector<uint32_t> best;
  for (size_t start = 0; start < n; ++start) {
    if (component[start] != UINT32_MAX) continue;
    std::vector<uint32_t> members{static_cast<uint32_t>(start)};
    component[start] = static_cast<uint32_t>(start);
    for (size_t k = 0; k < members.size(); ++k) {
      for (size_t j = 0; j < n; ++j) {
        if (component[j] == UINT32_MAX && dependent(options[members[k]], options[j])) {
          component[j] = static_cast<uint32_t>(start);
          members.push_back(static_cast<uint32_t>(j));
        }
      }
    }
    std::sort(members.begin(), members.end());
    if (best.empty() || members.size() < best.size()) best = std::move(members);
  }
  reduced_ += n - best.size();
  return take(kind, std::move(best));
}

std::string ExploreStrategy::describe() const { return fmt::format("explore({} prefix values)", prefix_.size()); }

std::optional<std::vector<uint64_t>> next_prefix(const std::vector<uint64_t>& values, const std::vector<std::vector<uint32_t>>& walked) {
  for (size_t i = std::min(values.size(), walked.size()); i > 0; --i) {
    const std::vector<uint32_t>& w = walked[i - 1];
    auto it = std::upper_bound(w.begin(), w.end(), values[i - 1]);
    if (it == w.end()) continue;
    std::vector<uint64_t> out(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(i - 1));
    out.push_back(*it);
    return out;
  }
  return std::nullopt;
}

std::string format_choice_values(const std::vector<uint64_t>& values) {
  std::string out;
  for (size_t i = 0; i < values.size();) {
    size_t j = i;
    while (j < values.size() && values[j] == values[i]) ++j;
    if (!out.empty()) out += '.';
    out += j - i > 2 ? fmt::format("{}*{}", values[i], j - i) : fmt::format("{}", values[i]);
    if (j - i == 2) out += fmt::format(".{}", values[i]);
    i = j;
  }
  return out;
}

std::vector<uint64_t> parse_choice_values(const std::string& text) {
  std::vector<uint64_t> out;
  if (text.empty()) return out;
  auto number = [&](const std::string& token, const std::string& part) {
    if (part.empty() || part.size() > 19 || part.find_first_not_of("0123456789") != std::string::npos) {
      throw std::invalid_argument(fmt::format("choice list: '{}' is not a value or value*count", token));
    }
    return std::stoull(part);
  };
  size_t start = 0;
  while (start <= text.size()) {
    const size_t dot = std::min(text.find('.', start), text.size());
    const std::string token = text.substr(start, dot - start);
    const size_t star = token.find('*');
    const uint64_t value = number(token, token.substr(0, star));
    uint64_t count = 1;
    if (star != std::string::npos) count = number(token, token.substr(star + 1));
    if (count == 0 || count > 1'000'000 || out.size() + count > 1'000'000) {
      throw std::invalid_argument(fmt::format("choice list: '{}' repeats a value 0 or too many times", token));
    }
    out.insert(out.end(), count, value);
    start = dot + 1;
  }
  return out;
}

std::vector<uint64_t> values_of(const std::vector<Choice>& choices) {
  std::vector<uint64_t> out;
  out.reserve(choices.size());
  for (const Choice& c : choices) out.push_back(c.value);
  return out;
}

}  // namespace oversim::sim
