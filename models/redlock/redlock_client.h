// The RedLock client algorithm, as the Redis distributed-lock page publishes it and its reference
// implementation redlock-rb (lib/redlock/client.rb) codes it:
//   1. read the client's clock (ms);
//   2. SET resource value NX PX ttl on every master in turn, each call bounded by a short
//      per-node timeout (redlock-rb: the Redis client's timeout, 0.1s), so a dead master costs
//      little;
//   3. elapsed = clock now - start; validity = ttl - elapsed - drift, drift = ttl * 0.01 + 2ms
//      ("2 milliseconds ... for Redis expires precision ... plus 1 millisecond min drift");
//   4. the lock is acquired only with a quorum (N/2 + 1 OKs) and validity >= 0 (redlock-rb's
//      test; the page says the validity must be positive, which differs only at exactly 0ms);
//   5. otherwise unlock on every master (best effort, the token-compare script) and, after
//      retry_delay + a random jitter in [0, retry_jitter), try again, at most retry_count times
//      more, each try with a fresh random value (redlock-rb draws a new UUID per try).
// Time is the app node's local clock in whole milliseconds, so a client pause or a drifting
// client clock enters exactly where it does in the library. That clock also takes the plan's
// jumps, as a wall-clock time source does (redlock-rb's fallback without CLOCK_MONOTONIC); a
// monotonic source would not step, and a backward jump here makes the elapsed time negative
// and the validity longer than the TTL, which is what such a client would compute.
//
// `check_validity = false` is the hand-rolled client that counts OKs and ignores the time it
// took (step 4 without the validity test): designs use it to show what that test buys.
//
// Fault point: `during_acquire`, on the client's node, after each master's SET answered (or
// timed out) and before the next one is sent or the elapsed time is read: a pause there is a
// pause while the acquisition is under way.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/node.h"
#include "sim/time.h"

namespace oversim::redlock {

using sim::Duration;

struct RedLockOptions {
  uint32_t retry_count = 3;                     // redlock-rb DEFAULT_RETRY_COUNT
  Duration retry_delay = Duration::ms(200);     // DEFAULT_RETRY_DELAY
  Duration retry_jitter = Duration::ms(50);     // DEFAULT_RETRY_JITTER: plus a world draw in [0, 50) ms
  int64_t drift_factor_permille = 10;           // CLOCK_DRIFT_FACTOR 0.01
  Duration drift_extra = Duration::ms(2);
  Duration node_timeout = Duration::ms(100);    // DEFAULT_REDIS_TIMEOUT 0.1s
  bool check_validity = true;
};

// One try of step 1-4, as the client saw it.
struct RedLockTry {
  uint32_t locked = 0;       // masters that answered OK
  int64_t elapsed_ms = 0;    // by the client's clock
  int64_t validity_ms = 0;   // ttl - elapsed - drift
  bool acquired = false;
};

struct RedLockHold {
  std::string resource;
  std::string value;
  int64_t validity_ms = 0;  // what the client may assume is left when its round ends (ttl - elapsed - drift)
  uint32_t locked = 0;
};

class RedLockClient {
 public:
  // `masters` in the order the client tries them (redlock-1 first). `new_value` gives each try
  // its random value.
  RedLockClient(sim::Node& app, std::vector<sim::Node*> masters, RedLockOptions options, std::function<std::string()> new_value);

  uint32_t quorum() const { return static_cast<uint32_t>(masters_.size() / 2 + 1); }
  const RedLockOptions& options() const { return options_; }
  // drift = ttl * factor + extra, in whole ms as redlock-rb truncates it.
  int64_t drift_ms(Duration ttl) const;

  // Up to 1 + retry_count tries. nullopt: no try got a valid quorum.
  std::optional<RedLockHold> lock(const std::string& resource, Duration ttl);
  // One try; unlocks every master when it fails.
  std::optional<RedLockHold> lock_once(const std::string& resource, Duration ttl);
  // The token-compare DEL on every master, errors and timeouts ignored. Returns how many masters
  // deleted the key (still held it with this value).
  uint32_t unlock(const std::string& resource, const std::string& value);
  const std::vector<RedLockTry>& tries() const { return tries_; }

 private:
  sim::Node& app_;
  std::vector<sim::Node*> masters_;
  RedLockOptions options_;
  std::function<std::string()> new_value_;
  std::vector<RedLockTry> tries_;
};

}  // namespace oversim::redlock
