#include "protocols/traffic.h"

#include <algorithm>
#include <stdexcept>

namespace oversim::protocols {

TokenBucket::TokenBucket(int64_t rate, int64_t burst) {
  if (rate < 0 || burst < 1) throw std::invalid_argument("TokenBucket: rate >= 0 and burst >= 1");
  if (rate == 0) return;
  // At most 10^9 a second: one nanosecond each.
  // Rounded up, so the bucket never admits more than `rate` a second.
  interval_ = Duration::ns(std::max<int64_t>(1, (1'000'000'000 + rate - 1) / rate));
  tolerance_ = Duration::ns(interval_.count_ns() * std::min<int64_t>(burst - 1, 1'000'000'000));
}

bool TokenBucket::admit(Instant now) {
  if (!limited()) {
    ++admitted_;
    return true;
  }
  // Conforming while the next theoretical arrival is at most `tolerance` ahead of now.
  if (tat_ - tolerance_ > now) {
    ++refused_;
    return false;
  }
  tat_ = std::max(tat_, now) + interval_;
  ++admitted_;
  return true;
}

bool CircuitBreaker::allow(Instant now) {
  switch (state_) {
    case State::closed: return true;
    case State::open:
      if (now < open_until_) return false;
      state_ = State::half_open;
      probe_out_ = false;
      [[fallthrough]];
    case State::half_open:
      // One probe at a time; one that never reported (its process died) is replaced after
      // another open_for.
      if (probe_out_ && now < probe_sent_ + options_.open_for) return false;
      probe_out_ = true;
      probe_sent_ = now;
      return true;
  }
  return false;
}

void CircuitBreaker::answered() {
  // A call let through before the breaker opened, answered late, does not close it: only a
  // probe (half-open) or a call while closed does.
  if (state_ == State::open) return;
  state_ = State::closed;
  failures_ = 0;
  probe_out_ = false;
}

void CircuitBreaker::unanswered(Instant now) {
  switch (state_) {
    case State::closed:
      if (++failures_ >= options_.failures_to_open) open(now);
      return;
    case State::half_open: open(now); return;
    case State::open: return;  // a call let through before it opened came back late
  }
}

void CircuitBreaker::open(Instant now) {
  state_ = State::open;
  open_until_ = now + options_.open_for;
  failures_ = 0;
  probe_out_ = false;
  ++opened_;
}

void CircuitBreaker::reset() {
  const uint64_t opened = opened_;
  *this = CircuitBreaker(options_);
  opened_ = opened;
}

const char* to_string(CircuitBreaker::State s) {
  switch (s) {
    case CircuitBreaker::State::closed: return "closed";
    case CircuitBreaker::State::open: return "open";
    case CircuitBreaker::State::half_open: return "half-open";
  }
  return "?";
}

}  // namespace oversim::protocols
