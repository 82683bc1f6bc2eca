#include "protocols/settings.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include <fmt/format.h>

namespace oversim::protocols {

const char* to_string(Isolation i) { return i == Isolation::read_committed ? "read-committed" : "repeatable-read"; }

namespace {

std::optional<std::string> parse_int(const std::string& text, int lo, int hi, int& out) {
  int v = 0;
  const bool digits = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (!digits) return fmt::format("'{}' is not a number (an integer {}..{})", text, lo, hi);
  if (ec != std::errc() || ptr != text.data() + text.size() || v < lo || v > hi) return fmt::format("{} is out of range ({}..{})", text, lo, hi);
  out = v;
  return std::nullopt;
}

std::optional<std::string> parse_span(const std::string& text, Duration lo, Duration hi, Duration& out) {
  const sim::DurationParse d = sim::parse_duration_in(text, lo, hi);
  if (!d.value) return d.error;
  out = *d.value;
  return std::nullopt;
}

std::optional<std::string> parse_on_off(const std::string& text, bool& out) {
  if (text == "on" || text == "off") {
    out = text == "on";
    return std::nullopt;
  }
  return fmt::format("'{}' is not on or off", text);
}

std::string on_off(bool b) { return b ? "on" : "off"; }
std::string span(Duration d) { return sim::format_duration(d); }

// One row per setting. Integers and durations carry their range in the help and the parser.
#define OVERSIM_INT_SETTING(flag, help, describe, field, lo, hi)                                                            \
  Setting {                                                                                                                  \
    flag, help, describe, [](const Workload& w) { return std::to_string(w.field); },                                         \
        [](Workload& w, const std::string& t) { return parse_int(t, lo, hi, w.field); }                                       \
  }
#define OVERSIM_SPAN_SETTING(flag, help, describe, field, lo, hi)                                                           \
  Setting {                                                                                                                  \
    flag, help, describe, [](const Workload& w) { return span(w.field); },                                                   \
        [](Workload& w, const std::string& t) { return parse_span(t, lo, hi, w.field); }                                      \
  }

const Duration kHour = Duration::s(3600);

// "1/4": numerator <= denominator, 0 < denominator <= 10^9.
std::optional<Ratio> parse_ratio(const std::string& text) {
  const size_t slash = text.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == text.size() || text.size() > 21) return std::nullopt;
  uint64_t v[2] = {0, 0};
  for (int part = 0; part < 2; ++part) {
    const size_t from = part == 0 ? 0 : slash + 1, to = part == 0 ? slash : text.size();
    for (size_t i = from; i < to; ++i) {
      if (text[i] < '0' || text[i] > '9') return std::nullopt;
      v[part] = v[part] * 10 + static_cast<uint64_t>(text[i] - '0');
      if (v[part] > 1'000'000'000) return std::nullopt;
    }
  }
  if (v[1] == 0 || v[0] > v[1]) return std::nullopt;
  return Ratio{v[0], v[1]};
}

std::optional<std::string> parse_link(const std::string& text, std::optional<Distribution>& out) {
  if (text == "same") {
    out.reset();
    return std::nullopt;
  }
  const DistributionParse d = parse_distribution(text, kHour);
  if (!d.value) return fmt::format("{}, or same", d.error);
  out = *d.value;
  return std::nullopt;
}
#define OVERSIM_LINK_SETTING(flag, help, describe, field)                                                                    \
  Setting {                                                                                                                  \
    flag, help, describe, [](const Workload& w) { return w.field ? format_distribution(*w.field) : std::string("same"); },   \
        [](Workload& w, const std::string& t) { return parse_link(t, w.field); }                                              \
  }

// A row of a setting that configures one service (Setting::service).
Setting in_service(const char* service, Setting s) {
  s.service = service;
  return s;
}

}  // namespace

const std::vector<Setting>& settings() {
  static const std::vector<Setting> rows = {
      // Buyers.
      OVERSIM_SPAN_SETTING("--patience", "A buyer told busy or an error clicks again (a new request) until this long after arriving; 0: one click (0..1h)",
                           "patience", patience, Duration::zero(), kHour),
      OVERSIM_SPAN_SETTING("--backoff", "A buyer waits about this long before clicking again (doubling up to 8x, each wait drawn in [1/2, 3/2) of that), 1ms..1h", "backoff",
                           backoff, Duration::ms(1), kHour),
      Setting{"--sku-skew", "SKU popularity: a Zipf exponent s (0..5, two decimals): sku k is wanted in proportion to 1/k^s; 0 spreads buyers evenly",
              "sku skew", [](const Workload& w) { return fmt::format("{}.{:02}", w.sku_skew_centi / 100, w.sku_skew_centi % 100); },
              [](Workload& w, const std::string& t) -> std::optional<std::string> {
                const size_t dot = t.find('.');
                const std::string whole = t.substr(0, dot), frac = dot == std::string::npos ? "" : t.substr(dot + 1);
                auto digits = [](const std::string& x) { return std::all_of(x.begin(), x.end(), [](char c) { return c >= '0' && c <= '9'; }); };
                if (whole.empty() || !digits(whole) || !digits(frac) || frac.size() > 2 || (dot != std::string::npos && frac.empty()) || whole.size() > 1) {
                  return fmt::format("'{}' is not an exponent like 1.1 (0..5, at most two decimals)", t);
                }
                const int v = (whole[0] - '0') * 100 + (frac.empty() ? 0 : (frac[0] - '0') * 10 + (frac.size() > 1 ? frac[1] - '0' : 0));
                if (v > 500) return fmt::format("{} is out of range (0..5)", t);
                w.sku_skew_centi = v;
                return std::nullopt;
              }},
      // The database (PostgreSQL behind a HikariCP pool on every app node).
      OVERSIM_INT_SETTING("--pool-size", "DB connections per app node, 1..1000 (HikariCP maximumPoolSize, default 10)", "pool", db_pool_size, 1, 1000),
      OVERSIM_SPAN_SETTING("--pool-timeout", "How long a purchase waits for a DB connection before it is busy, 1ms..1h (HikariCP connectionTimeout)",
                           "pool timeout", db_pool_timeout, Duration::ms(1), kHour),
      OVERSIM_SPAN_SETTING("--db-lock-timeout", "PostgreSQL lock_timeout: a row-lock wait fails after this long, 0 waits forever (0..1h)",
                           "db lock_timeout", db_lock_timeout, Duration::zero(), kHour),
      OVERSIM_INT_SETTING("--db-max-connections", "PostgreSQL max_connections, 1..10000 (default 100)", "db max_connections", db_max_connections, 1,
                          10000),
      Setting{"--isolation", "The isolation a BEGIN gets: read-committed (PostgreSQL's default) or repeatable-read (a concurrent update fails with 40001)",
              "isolation", [](const Workload& w) { return std::string(to_string(w.db_isolation)); },
              [](Workload& w, const std::string& t) -> std::optional<std::string> {
                for (Isolation i : {Isolation::read_committed, Isolation::repeatable_read}) {
                  if (t == to_string(i)) {
                    w.db_isolation = i;
                    return std::nullopt;
                  }
                }
                if (t == "serializable") return std::string("serializable is not modeled (expected read-committed or repeatable-read)");
                return fmt::format("unknown isolation '{}' (expected read-committed or repeatable-read)", t);
              }},
      Setting{"--check-constraint", "CHECK (available >= 0) on stock: on, or off (MySQL before 8.0.16 parsed CHECK and ignored it)", "CHECK",
              [](const Workload& w) { return on_off(w.db_check); }, [](Workload& w, const std::string& t) { return parse_on_off(t, w.db_check); }},
      // Redis (the "redis" service: a primary, its replicas, a Sentinel).
      in_service("redis", OVERSIM_INT_SETTING("--redis-replicas", "Replicas of the Redis primary, 0..4 (0: a standalone Redis, no Sentinel, no failover)",
                          "redis replicas", redis_replicas, 0, kMaxRedisReplicas)),
      in_service("redis", OVERSIM_INT_SETTING("--min-replicas", "Redis min-replicas-to-write: the primary refuses writes with fewer good replicas, 0..4 (default 0)",
                          "min-replicas", redis_min_replicas, 0, kMaxRedisReplicas)),
      in_service("redis", OVERSIM_SPAN_SETTING("--min-replicas-max-lag", "Redis min-replicas-max-lag: a replica is good if it acked within this, 1ms..1h (default 10s)",
                           "min-replicas-max-lag", redis_min_replicas_max_lag, Duration::ms(1), kHour)),
      in_service("redis", OVERSIM_SPAN_SETTING("--redis-timeout", "The Redis client's per-command timeout, 1ms..1h (the reply is then unknown)", "redis timeout",
                           redis_client_timeout, Duration::ms(1), kHour)),
      in_service("mq", OVERSIM_SPAN_SETTING("--max-poll-interval", "The queue's max.poll.interval.ms: a consumer that has not polled for this long leaves its group "
                         "and its partitions go to the others, 1ms..1h (Kafka: 5 minutes, for batch consumers)",
                         "max poll interval", mq_max_poll_interval, Duration::ms(1), kHour)),
      in_service("redis", OVERSIM_SPAN_SETTING("--sentinel-down-after", "Sentinel down-after-milliseconds: the primary is failed over after this long unheard, 1ms..1h",
                           "sentinel down-after", sentinel_down_after, Duration::ms(1), kHour)),
      in_service("redis", OVERSIM_INT_SETTING("--sentinels", "Sentinels watching the Redis primary, 1..7 (one per box: sentinel-1 shares the primary's side of a partition); "
                          "a failover needs the votes of a majority of them",
                          "sentinels", sentinels, 1, kMaxSentinels)),
      in_service("redis", Setting{"--sentinel-quorum", "Sentinel's quorum: how many sentinels must see the primary down before a failover starts, 1..7, or majority "
              "(the default)", "sentinel quorum",
              [](const Workload& w) { return w.sentinel_quorum == 0 ? std::string("majority") : std::to_string(w.sentinel_quorum); },
              [](Workload& w, const std::string& t) -> std::optional<std::string> {
                if (t == "majority") {
                  w.sentinel_quorum = 0;
                  return std::nullopt;
                }
                if (auto error = parse_int(t, 1, kMaxSentinels, w.sentinel_quorum)) return *error + ", or majority";
                return std::nullopt;
              }}),
      // The order lifecycle (designs with one: Design::cancel).
      Setting{"--unpaid", "Designs with an order lifecycle: the share of buyers told sold who never pay, as a ratio like 1/4 (0/1..1/1); their "
              "page cancels the order when the payment window closes, and the design's timeout job cancels what is left pending",
              "unpaid", [](const Workload& w) { return sim::format_ratio(w.unpaid); },
              [](Workload& w, const std::string& t) -> std::optional<std::string> {
                auto parsed = parse_ratio(t);
                if (!parsed) return fmt::format("'{}' is not a ratio like 1/4 (numerator <= denominator, 0 < denominator <= 10^9)", t);
                w.unpaid = *parsed;
                return std::nullopt;
              }},
      OVERSIM_SPAN_SETTING("--pay-window", "Designs with an order lifecycle: how long an order waits for payment before it is cancelled, 1ms..1h "
                           "(a paying buyer pays halfway through it)", "pay window", pay_window, Duration::ms(1), kHour),
      // The gateway's token bucket (every design).
      OVERSIM_INT_SETTING("--rate-limit", "The gateway's token bucket: requests admitted per second, 0..1000000; a request over it is answered busy at once "
                          "(429) and its buyer clicks again; 0 (the default): no limit", "rate limit", rate_limit, 0, 1'000'000),
      OVERSIM_INT_SETTING("--rate-burst", "The token bucket's size: how many requests it admits at once after a quiet spell, 1..1000000 (default 10)",
                          "rate burst", rate_burst, 1, 1'000'000),
      // Clients of the lock and of the database.
      in_service("redis", OVERSIM_SPAN_SETTING("--lock-retry", "tryLock polls the lock this often while it waits, 1us..1h", "lock poll", lock_retry, Duration::us(1), kHour)),
      // Link classes (the --latency model everywhere else).
      OVERSIM_LINK_SETTING("--db-latency",
                           "One-way latency of each message between an app node and the database: 2ms, 1ms..3ms or p50=1ms,p99=10ms (each 0..1h); "
                           "same (the default): the --latency model",
                           "app-db link", db_latency),
      in_service("lock", OVERSIM_LINK_SETTING("--lock-latency",
                           "One-way latency of each message between an app node and the lock service's nodes (Redis and Sentinel, the RedLock "
                           "masters, the ZooKeeper ensemble), as --db-latency; same (the default): the --latency model",
                           "app-lock link", lock_latency)),
      in_service("redlock", OVERSIM_SPAN_SETTING("--redlock-timeout", "RedLock: how long the client waits for each master's answer, 1ms..1h (redlock-rb's Redis client timeout, 0.1s)",
                           "redlock timeout", redlock_node_timeout, Duration::ms(1), kHour)),
      in_service("etcd", OVERSIM_INT_SETTING("--etcd-members", "etcd: members etcd-1..N of the cluster, quorum N/2+1, 1..9 (default 3; its designs take --lock-ttl as the session's lease TTL)",
                                             "etcd members", etcd_members, 1, kMaxEtcdMembers)),
      OVERSIM_INT_SETTING("--optimistic-retries", "db_optimistic_version: tries again this many times after a version conflict, 0..100",
                          "optimistic retries", optimistic_retries, 0, 100),
  };
  if (rows.size() != kSettingCount) throw std::logic_error("protocols/settings.h: kSettingCount is not the number of rows");
  return rows;
}

const Setting* find_setting(const std::string& flag) {
  for (const Setting& s : settings()) {
    if (flag == s.flag) return &s;
  }
  // Workload flags older than the rows (cli/flags.h) that a design may still default: the lease
  // an etcd design's session asks for...
  static const Setting lock_ttl = in_service(
      "lock", OVERSIM_SPAN_SETTING("--lock-ttl", "Lock lease, SET NX PX (1ms..720h)", "lock ttl", lock_ttl, Duration::ms(1), Duration::s(720 * 3600)));
  if (flag == lock_ttl.flag) return &lock_ttl;
  // ... and how long its waiters wait for the lock.
  static const Setting lock_wait = in_service(
      "lock", OVERSIM_SPAN_SETTING("--lock-wait", "tryLock gives up after this long (0..720h)", "lock wait", lock_wait, Duration::zero(), Duration::s(720 * 3600)));
  if (flag == lock_wait.flag) return &lock_wait;
  return nullptr;
}

#undef OVERSIM_INT_SETTING
#undef OVERSIM_SPAN_SETTING

std::string setting_flags(const Workload& w) {
  static const Workload d;
  std::string out;
  for (const Setting& s : settings()) {
    const std::string v = s.get(w);
    if (v != s.get(d)) out += fmt::format(" {} {}", s.flag, v);
  }
  return out;
}

std::string describe_settings(const Workload& w) {
  static const Workload d;
  std::string out;
  for (const Setting& s : settings()) {
    const std::string v = s.get(w);
    if (v != s.get(d)) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", s.describe, v);
  }
  return out;
}

std::string settings_key(const Workload& w) {
  std::string out;
  for (const Setting& s : settings()) out += s.get(w) + "|";
  return out;
}

Required apply_requirements(const Workload& w, const std::vector<Requirement>& requires_, const std::vector<std::string>& typed,
                            const std::string& design) {
  Required r{w, std::nullopt, std::nullopt};
  for (const Requirement& q : requires_) {
    const Setting* s = find_setting(q.flag);
    if (s == nullptr) {
      r.problem = fmt::format("design '{}' requires an unknown setting {}", design, q.flag);
      return r;
    }
    const bool was_typed = std::find(typed.begin(), typed.end(), q.flag) != typed.end();
    // A design's default replaces the tool's default only: a typed value stands, and so does
    // one a fault profile already set (it widened the sale for its fault).
    if (q.user_may_change && (was_typed || s->get(w) != s->get(Workload{}))) continue;
    if (was_typed && s->get(w) != q.value) {
      r.problem = fmt::format("{} {}: design '{}' requires {} {} ({})", q.flag, s->get(w), design, q.flag, q.value, q.why);
      r.contradicted = q;
      return r;
    }
    if (auto error = s->set(r.workload, q.value)) {
      r.problem = fmt::format("design '{}' requires {} {}: {}", design, q.flag, q.value, *error);
      return r;
    }
  }
  return r;
}

}  // namespace oversim::protocols
