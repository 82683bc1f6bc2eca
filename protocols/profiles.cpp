#include "protocols/profiles.h"

#include <fmt/format.h>

namespace oversim::protocols {
namespace {

using sim::Prng;

// Milliseconds in [lo, hi].
int64_t ms_between(Prng& p, int64_t lo, int64_t hi) { return p.between(lo, hi); }

std::string app(Prng& p, const Workload& w) { return fmt::format("app-{}", p.between(1, std::max(1, w.app_nodes))); }

// The window in which buyers hold the lock and sell: burst arrivals plus a few critical sections.
int64_t sale_ms(const Workload& w) {
  const int64_t arrivals = w.arrival == Arrival::burst ? w.burst_window.count_ms() : w.poisson_mean.count_ms() * std::min(w.buyers, 10);
  return std::max<int64_t>(20, arrivals + w.remote_call.count_ms() * std::max<int64_t>(1, w.stock));
}

std::string gc_pause(Prng& p, const Workload& w) {
  // Every draw into its own named local, in this order: C++ leaves the order in which a call's
  // arguments are evaluated open, and g++ and clang++ differ (docs/architecture.md).
  const int64_t pause = w.lock_ttl.count_ms() + ms_between(p, 100, 1000);
  const int64_t at = ms_between(p, 0, sale_ms(w));
  const std::string node = app(p, w);
  return fmt::format("at {}ms pause {} for {}ms", at, node, pause);
}

std::string failover(Prng& p, const Workload& w) {
  const int64_t at = ms_between(p, 0, sale_ms(w));
  return fmt::format("at {}ms crash redis-1; at {}ms restart redis-1", at, at + 3000);
}

std::string partition(Prng& p, const Workload& w) {
  const int64_t at = ms_between(p, 0, sale_ms(w));
  // The old primary keeps the clients of one app node; the sentinel and the rest see the
  // replica. Both sides still reach the database.
  std::string minority = "redis-1,app-1";
  std::string majority = "redis-2,sentinel";
  for (int i = 2; i <= w.app_nodes; ++i) majority += fmt::format(",app-{}", i);
  return fmt::format("at {}ms partition {} | {}; at {}ms heal", at, minority, majority, at + 3000);
}

std::string clock_jump(Prng& p, const Workload& w) {
  const int64_t jump = w.lock_ttl.count_ms() + ms_between(p, 1, 1000);
  const int64_t at = ms_between(p, 0, sale_ms(w));
  return fmt::format("at {}ms clock-jump redis-1 +{}ms", at, jump);
}

std::string slow_rpc(Prng& p, const Workload& w) {
  const int64_t delay = w.lock_ttl.count_ms() + ms_between(p, 100, 1000);
  const int64_t at = ms_between(p, 0, sale_ms(w));
  const std::string node = app(p, w);
  return fmt::format("at {}ms delay-next {} -> db by {}ms", at, node, delay);
}

std::string app_crash(Prng& p, const Workload& w) {
  const int64_t at = ms_between(p, 0, sale_ms(w));
  const std::string node = app(p, w);
  return fmt::format("at {}ms crash {}; at {}ms restart {}", at, node, at + 2000, node);
}

std::string lost_replies(Prng& p, const Workload& w) {
  // Replies from the database to one app node are lost for a while: calls time out (ambiguous)
  // though they applied, and the gateway retries with the same request id.
  const int64_t at = ms_between(p, 0, sale_ms(w));
  const std::string node = app(p, w);
  const int64_t heal = at + ms_between(p, 50, 300);
  return fmt::format("at {}ms cut db -> {}; at {}ms heal", at, node, heal);
}

}  // namespace

const std::vector<Profile>& profiles() {
  static const std::vector<Profile> all = {
      {"none", "no faults: concurrency alone"},
      {"gc-pause", "a stop-the-world pause on one app node, longer than the lock TTL, during the sale"},
      {"failover", "the Redis primary crashes during the sale; Sentinel promotes the lagging replica"},
      {"partition", "the Redis primary and one app node are cut off from the rest (split brain), then heal"},
      {"clock-jump", "the Redis primary's clock jumps forward by more than the lock TTL"},
      {"slow-rpc", "one app node's next message to the database is delayed past the lock TTL"},
      {"app-crash", "one app node's process is killed during the sale and restarted 2s later"},
      {"retries", "lost database replies, gateway retries (same request id) and double clicks"},
      {"chaos", "a random mix of the faults above"},
  };
  return all;
}

bool is_profile(const std::string& name) {
  for (const Profile& p : profiles()) {
    if (p.name == name) return true;
  }
  return false;
}

Scenario apply_profile(const std::string& profile, Scenario s) {
  // The plan comes from its own stream (seeded by the run's seed) so that it can be printed
  // and replayed as text with the same seed.
  Prng p(s.seed ^ 0xfa017ULL);
  const Workload& w = s.workload;
  std::string plan;
  if (profile == "none") {
  } else if (profile == "gc-pause") {
    plan = gc_pause(p, w);
  } else if (profile == "failover" || profile == "partition") {
    // A lock is lost only if its holder is still working when the replica takes over, and the
    // replica lacks it: long critical sections (a 1.5s remote call under a 5s lease, so the lease
    // itself does not expire) and a replica lagging by 1s, as under a heavy write load.
    s.workload.remote_call = std::max(s.workload.remote_call, Duration::ms(1500));
    s.workload.lock_ttl = std::max(s.workload.lock_ttl, Duration::s(5));
    s.workload.lock_wait = std::max(s.workload.lock_wait, Duration::s(10));
    s.workload.gateway_timeout = std::max(s.workload.gateway_timeout, Duration::s(15));
    s.workload.replication_lag = std::max(s.workload.replication_lag, Duration::s(1));
    if (profile == "failover") {
      plan = failover(p, s.workload);
    } else {
      plan = partition(p, s.workload);
    }
  } else if (profile == "clock-jump") {
    plan = clock_jump(p, w);
  } else if (profile == "slow-rpc") {
    plan = slow_rpc(p, w);
  } else if (profile == "app-crash") {
    plan = app_crash(p, w);
  } else if (profile == "retries") {
    // A repeated purchase only turns into a duplicate order while there is stock to buy: give
    // every buyer a unit so the retries, not the sell-out, decide.
    s.workload.stock = std::max<int64_t>(s.workload.stock, s.workload.buyers);
    plan = lost_replies(p, s.workload);
    s.workload.max_retries = std::max(s.workload.max_retries, 2);
    if (s.workload.double_click.numerator == 0) s.workload.double_click = Ratio{1, 4};
  } else if (profile == "chaos") {
    using Gen = std::string (*)(Prng&, const Workload&);
    static constexpr Gen gens[] = {gc_pause, failover, partition, clock_jump, slow_rpc, app_crash, lost_replies};
    const int64_t n = p.between(1, 3);
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t which = p.bounded(std::size(gens));
      const std::string one = gens[which](p, w);
      plan += plan.empty() ? one : fmt::format("; {}", one);
    }
    s.workload.max_retries = std::max(s.workload.max_retries, 1);
  } else {
    throw std::invalid_argument(fmt::format("unknown fault profile '{}'", profile));
  }
  s.faults = sim::FaultPlan::parse(plan);
  return s;
}

}  // namespace oversim::protocols
