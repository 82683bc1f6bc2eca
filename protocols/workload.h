// The workload of a flash sale: who buys what, when, and how clients misbehave. Plain data so
// the command line, the fault profiles and rapidcheck generators can all build one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sim/distribution.h"
#include "sim/prng.h"
#include "sim/time.h"

namespace oversim::protocols {

using sim::Duration;
using sim::Instant;
using sim::Ratio;
// The distributions live in sim/ (the network and the models draw from them too).
using sim::Distribution;
using sim::DistributionParse;
using sim::Spread;
using sim::format_distribution;
using sim::mean_ns;
using sim::parse_distribution;

// burst: uniform over the burst window; poisson: exponential gaps; ramp: over the burst window
// with a density rising linearly from nothing to its peak at the window's end (a sale's
// opening minute, as the announcement spreads); slots: each buyer at one of as many evenly
// spaced instants over the burst window as there are buyers (0, window/n, ...), a draw of few
// options the exhaustive explorer walks (arrivals apart, and some together).
enum class Arrival : uint8_t { burst, poisson, ramp, slots };
const char* to_string(Arrival a);

// What a Redis server (the primary and replica, every RedLock master) keeps across a crash:
// nothing, the AOF fsynced once a second, or every acknowledged write (appendfsync always).
enum class RedisPersistence : uint8_t { none, everysec, always };
const char* to_string(RedisPersistence p);
std::optional<RedisPersistence> parse_persistence(std::string_view text);

// The database's transaction isolation level (PostgreSQL's names): what a design's BEGIN gets when
// it does not ask for one. SERIALIZABLE is not modeled.
enum class Isolation : uint8_t { read_committed, repeatable_read };
const char* to_string(Isolation i);

inline constexpr int kMaxRedLockMasters = 9;
inline constexpr int kMaxZkServers = 9;
inline constexpr int kMaxEtcdMembers = 9;
inline constexpr int kMaxRedisReplicas = 4;
inline constexpr int kMaxSentinels = 7;

struct Workload {
  int buyers = 20;             // distinct users, one purchase attempt each (plus clicks/retries)
  int skus = 1;                // buyer b wants sku (b mod skus) + 1, or a Zipf draw with sku_skew
  int sku_skew_centi = 0;      // Zipf exponent x 100: sku k is wanted in proportion to 1/k^s (0: round robin)
  int64_t stock = 5;           // initial available units per sku
  std::string activity = "flash-1";
  int app_nodes = 2;           // buyers are spread round-robin over app-1..app-N
  Arrival arrival = Arrival::burst;
  Duration burst_window = Duration::ms(5);   // burst: arrivals uniform in [0, window)
  Duration poisson_mean = Duration::ms(10);  // poisson: mean gap between arrivals
  Ratio double_click = Ratio::never();       // a buyer sends the same request twice
  int max_retries = 0;                       // gateway retries (same request id)
  Duration gateway_timeout = Duration::ms(300);  // the gateway retries when an attempt takes longer
                                                 // (the first attempt keeps running) or ends unknown
  // A buyer told busy or an error clicks again (a new request) after a backoff (jittered, doubling,
  // at most 8x), until `patience` after arrival; 0: one click. Told sold or sold out, or nothing
  // at all (it cannot know whether it bought), it stops.
  Duration patience = Duration::s(30);
  Duration backoff = Duration::ms(500);
  Duration remote_call = Duration::ms(20);   // the slow call inside the critical section (its p50, or low end)
  // --remote-call 10ms..30ms (uniform) or p50=200ms,p99=800ms (log-normal): then the high end or
  // the p99 (remote_call_distribution() puts the three together); with a constant it keeps its
  // default and means nothing.
  Spread remote_call_spread = Spread::constant;
  Duration remote_call_high = Duration::ms(20);
  Duration lock_ttl = Duration::ms(500);     // SET NX PX ttl
  Duration lock_wait = Duration::s(2);       // tryLock: give up after this long
  Duration lock_retry = Duration::ms(10);    // tryLock: poll interval (--lock-retry)
  int optimistic_retries = 3;                // db_optimistic_version: bounded retries (--optimistic-retries)
  Duration replication_lag = Duration::ms(20);  // Redis primary -> replica, on top of the network (p50, or low end)
  // --replication-lag 5ms..50ms or p50=20ms,p99=200ms: drawn per write (replication_distribution()),
  // the stream kept in order.
  Spread replication_spread = Spread::constant;
  Duration replication_high = Duration::ms(20);
  // none: a crashed Redis comes back empty (no AOF, and no RDB snapshot taken during the sale)
  RedisPersistence redis_persistence = RedisPersistence::none;
  int redlock_masters = 5;                   // RedLock: independent masters, quorum N/2 + 1 (1..kMaxRedLockMasters)
  int zk_servers = 3;                        // ZooKeeper: the ensemble's servers zk-1..zk-N (1..kMaxZkServers); its
                                             // designs ask for lock_ttl as their session timeout
  // One-way network latency of every link: uniform in [min, max], and with the tail on, 1 message
  // in 100 takes max..5ms instead. `--latency 200us` makes it constant (the exhaustive explorer's
  // default: then only the order of simultaneous events varies).
  Duration latency_min = Duration::us(100);
  Duration latency_max = Duration::us(400);
  bool latency_tail = true;

  // Model settings (protocols/settings.h: one row each, with its flag and its source).
  int db_pool_size = 10;                          // connections per app node (HikariCP maximumPoolSize)
  Duration db_pool_timeout = Duration::s(2);      // waiting for a connection (HikariCP connectionTimeout)
  Duration db_lock_timeout = Duration::s(2);      // PostgreSQL lock_timeout; 0 waits forever
  int db_max_connections = 100;                   // PostgreSQL max_connections
  Isolation db_isolation = Isolation::read_committed;
  bool db_check = true;                           // CHECK (available >= 0) on stock enforced
  int redis_replicas = 1;                         // Redis replicas of redis-1 (0: standalone, no Sentinel)
  int redis_min_replicas = 0;                     // min-replicas-to-write
  Duration redis_min_replicas_max_lag = Duration::s(10);  // min-replicas-max-lag
  Duration redis_client_timeout = Duration::ms(50);       // the Redis client's per-command timeout
  Duration sentinel_down_after = Duration::s(1);          // Sentinel down-after-milliseconds
  int sentinels = 1;                              // Sentinels watching them (1..kMaxSentinels)
  int sentinel_quorum = 0;                        // Sentinel's quorum; 0: a majority of them
  Duration redlock_node_timeout = Duration::ms(100);      // RedLock: the client's wait for each master
  Duration mq_max_poll_interval = Duration::s(1);         // the queue's max.poll.interval.ms
  // The order lifecycle (designs that declare one, Design::cancel): of the buyers told "sold",
  // `unpaid` never pay (their page cancels the order when the payment window closes); the
  // others pay halfway through it. The design's timeout job cancels orders still pending past
  // the window. Designs without a lifecycle take payment with the order and draw nothing.
  Ratio unpaid = Ratio{1, 4};
  Duration pay_window = Duration::s(1);
  // The gateway's token bucket (protocols/traffic.h): it admits `rate_limit` requests a second,
  // up to `rate_burst` at once after a quiet spell, and answers the rest busy at once (HTTP
  // 429), before any app node sees them; their buyers click again. 0: no limit (the default).
  int rate_limit = 0;
  int rate_burst = 10;
  // etcd: the cluster's members etcd-1..etcd-N (quorum N/2 + 1); its designs take lock_ttl as
  // their session's lease TTL.
  int etcd_members = 3;
  // One-way latency of each message between an app node and the database, and between an app
  // node and the lock service's nodes (Redis and its Sentinel, the RedLock masters, the
  // ZooKeeper ensemble), in place of the --latency model on those links; nullopt: --latency.
  std::optional<Distribution> db_latency;
  std::optional<Distribution> lock_latency;

  friend bool operator==(const Workload&, const Workload&) = default;
};

inline Distribution replication_distribution(const Workload& w) {
  return Distribution{w.replication_spread, w.replication_lag, w.replication_spread == Spread::constant ? w.replication_lag : w.replication_high};
}

inline Distribution remote_call_distribution(const Workload& w) {
  return Distribution{w.remote_call_spread, w.remote_call, w.remote_call_spread == Spread::constant ? w.remote_call : w.remote_call_high};
}

// "200us" (constant), "100us..400us" (uniform), with " with a 1/100 tail to 5ms" when the tail
// is on; `--latency` takes the first two forms (and turns the tail off).
std::string format_latency(const Workload& w);

}  // namespace oversim::protocols
