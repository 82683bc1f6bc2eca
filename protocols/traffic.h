// The article's traffic layer, as two pure state machines on simulated time: the gateway's token
// bucket (Workload::rate_limit) and an app node's circuit breaker, the degrade switch a design
// declares (Steps::degrade). Neither draws a random number or touches the world: the caller
// passes the time, so each is tested alone (tests/traffic_test.cpp) and replays exactly.
#pragma once

#include <cstdint>

#include "sim/time.h"

namespace oversim::protocols {

using sim::Duration;
using sim::Instant;

// A token bucket as the generic cell rate algorithm (GCRA, ITU-T I.371; nginx's limit_req and
// Sentinel's flow rules shape traffic the same way): `rate` requests a second, each costing one
// emission interval (1s / rate, rounded up to whole nanoseconds), and up to `burst` admitted at one instant
// after a quiet spell. Integer arithmetic only: the same requests at the same instants are
// admitted the same way on every build.
class TokenBucket {
 public:
  TokenBucket() = default;
  // rate 0: no limit (every request is admitted). burst >= 1.
  TokenBucket(int64_t rate, int64_t burst);
  // Admits a request at `now` (and spends its token) or refuses it. `now` never goes back.
  bool admit(Instant now);
  bool limited() const { return interval_ > Duration::zero(); }
  uint64_t admitted() const { return admitted_; }
  uint64_t refused() const { return refused_; }

 private:
  Duration interval_ = Duration::zero();   // one request's cost
  Duration tolerance_ = Duration::zero();  // (burst - 1) intervals: how far ahead of now the bucket may run
  Instant tat_ = Instant::zero();          // the theoretical arrival time of the next request
  uint64_t admitted_ = 0;
  uint64_t refused_ = 0;
};

// A circuit breaker in front of one app node's calls to its lock service (Resilience4j's and
// Hystrix's three states):
//   closed     calls go through; `failures_to_open` calls in a row that found the service
//              unreachable open it;
//   open       no call goes through (the caller degrades: it rejects, or lets the purchase
//              through, as its design says) until `open_for` has passed;
//   half-open  one call goes through as a probe: an answer closes the breaker, no answer opens
//              it again for `open_for`. A probe that never reports (its process died) is
//              replaced after another `open_for`.
// In-process state: a restarted node starts closed (reset()).
class CircuitBreaker {
 public:
  struct Options {
    int failures_to_open = 3;
    Duration open_for = Duration::s(1);
  };
  enum class State : uint8_t { closed, open, half_open };

  CircuitBreaker() = default;
  explicit CircuitBreaker(Options options) : options_(options) {}
  // May a call go to the service at `now`? In half-open, true for the one probe.
  bool allow(Instant now);
  // The call got an answer (any answer: the service is reachable): closes a half-open breaker
  // and resets the count of a closed one; ignored while open (a late answer to a call sent
  // before it opened).
  void answered();
  // The call got none (timed out, refused): the service looks unreachable.
  void unanswered(Instant now);
  void reset();
  State state() const { return state_; }
  const Options& options() const { return options_; }
  uint64_t times_opened() const { return opened_; }

 private:
  void open(Instant now);

  Options options_;
  State state_ = State::closed;
  int failures_ = 0;                     // in a row, while closed
  Instant open_until_ = Instant::zero();
  Instant probe_sent_ = Instant::zero();  // half-open: when the probe went out
  bool probe_out_ = false;
  uint64_t opened_ = 0;
};

const char* to_string(CircuitBreaker::State s);

}  // namespace oversim::protocols
