#include "protocols/profiles.h"

#include <algorithm>
#include <deque>
#include <mutex>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "protocols/registry.h"

namespace oversim::protocols {
namespace {

using sim::Prng;

// Points a buyer's purchase reaches (sim/fault_plan.h; models/db/db_client.h, protocols/steps.h).
const std::vector<std::string> kBuyerPoints = {"after_acquire", "after_read", "before_write", "before_insert",
                                               "before_commit", "after_commit", "before_release", "after_stock_taken",
                                               "before_compensate"};
// Points at which a message to the database is about to leave.
const std::vector<std::string> kDbSendPoints = {"before_write", "before_insert", "before_commit"};

// Chooses where a profile's faults go: which point, which occurrence of it.
class Placer {
 public:
  Placer(Prng& prng, const Probe& probe, bool swarm) : prng_(prng), probe_(probe) {
    if (!swarm) return;
    // Swarm: this seed enables each point with probability 1/2.
    for (const auto& [point, count] : probe.points) {
      if (prng_.bounded(2) == 1) enabled_.push_back(point);
    }
    swarm_ = true;
  }

  // "on 3rd after_read", or "" when the sale never reaches any of `candidates`.
  std::string trigger(const std::vector<std::string>& candidates) {
    std::vector<std::pair<std::string, uint64_t>> reached;
    for (const std::string& c : candidates) {
      auto it = probe_.points.find(c);
      if (it != probe_.points.end() && it->second > 0 && enabled(c)) reached.emplace_back(c, it->second);
    }
    if (reached.empty() && swarm_) {
      // None of this fault's points is enabled in this seed: fall back to all of them, so swarm
      // never places less than the plain search would.
      for (const std::string& c : candidates) {
        auto it = probe_.points.find(c);
        if (it != probe_.points.end() && it->second > 0) reached.emplace_back(c, it->second);
      }
    }
    if (reached.empty()) return "";
    const auto& [drawn_point, count] = reached[prng_.bounded(reached.size())];
    std::string point = drawn_point;
    uint64_t nth = 1 + prng_.bounded(count);
    // Inside the selling window: an occurrence drawn after the sell-out is drawn again among
    // those that came while stock remained (of this point, or when it has none, of the reached
    // points that have some). An occurrence drawn inside stays, so the choice is uniform over
    // the window either way. When no point was reached while stock remained (a sale without
    // stock), the fault goes where it was drawn, and coverage says it struck after the sell-out.
    if (!in_window(point, nth)) {
      std::vector<std::string> windowed;
      if (probe_.in_window(point) > 0) {
        windowed.push_back(point);
      } else {
        for (const auto& r : reached) {
          if (probe_.in_window(r.first) > 0) windowed.push_back(r.first);
        }
      }
      if (!windowed.empty()) {
        point = windowed.size() == 1 ? windowed.front() : windowed[prng_.bounded(windowed.size())];
        nth = kth_in_window(point, prng_.bounded(probe_.in_window(point)));
      }
    }
    return nth == 1 ? fmt::format("on {}", point) : fmt::format("on {} {}", sim::format_ordinal(nth), point);
  }

  Prng& prng() { return prng_; }

 private:
  bool in_window(const std::string& point, uint64_t nth) const {
    auto it = probe_.window.find(point);
    if (it == probe_.window.end()) return false;
    for (const auto& [first, last] : it->second) {
      if (first <= nth && nth <= last) return true;
    }
    return false;
  }
  // The occurrence number of the k-th (from 0) occurrence of `point` inside the window.
  uint64_t kth_in_window(const std::string& point, uint64_t k) const {
    for (const auto& [first, last] : probe_.window.find(point)->second) {
      if (k <= last - first) return first + k;
      k -= last - first + 1;
    }
    throw std::logic_error("kth_in_window: k beyond the window");
  }
  bool enabled(const std::string& point) const { return !swarm_ || std::find(enabled_.begin(), enabled_.end(), point) != enabled_.end(); }
  Prng& prng_;
  const Probe& probe_;
  bool swarm_ = false;
  std::vector<std::string> enabled_;
};

using Faults = std::vector<std::string>;  // the lines of one fault (a crash and its restart)

// Every draw into its own named local, in this order: C++ leaves the order in which a call's
// arguments are evaluated open, and g++ and clang++ differ (docs/architecture.md).
//
// Faults name roles (protocols/services.h), never a service's node names: `r.lock_node` is the
// Redis primary for "redis" and the first master for "redlock".

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += out.empty() ? n : "," + n;
  return out;
}

Faults gc_pause(Placer& pl, const Roles& r) {
  const std::string on = pl.trigger(kBuyerPoints);
  if (on.empty()) return {};
  const int64_t milli = pl.prng().between(1100, 2000);
  // The pause outlasts the lease the node's work holds: a lock's TTL, or, where the node's jobs
  // consume a queue, the consumer's max.poll.interval (its lease on its partitions).
  return {fmt::format("{} pause here for {} {}", on, sim::format_multiple(milli), r.consumes_queue ? "max-poll-interval" : "lock-ttl")};
}

Faults failover(Placer& pl, const Roles& r) {
  // Right after the primary answered a write its replica lacks alone (nothing else is lost), or
  // right after a buyer acquired its lock (the key, and maybe the release before it, is lost: the
  // replica then holds a stale lock, a liveness fault), or right after a design's stock
  // decrement in Redis answered OK (the decrement is lost unless it was replicated already).
  const std::string on = pl.trigger({"write_unreplicated", "after_acquire", "after_stock_taken"});
  if (on.empty()) return {};
  const std::string where = on.find("write_unreplicated") != std::string::npos ? " in " + r.lock_node : "";
  return {fmt::format("{}{} crash {}", on, where, r.lock_node), fmt::format("{}{} after 3s restart {}", on, where, r.lock_node)};
}

Faults partition(Placer& pl, const Roles& r) {
  // The lock holder's app node stays with the holder-side lock nodes (the Redis primary, the
  // first RedLock master; none for ZooKeeper: the holder is cut off from the whole ensemble);
  // the rest of the lock service is on the other side (other app nodes reach both): for Redis,
  // split brain.
  const std::string on = pl.trigger({"after_acquire"});
  if (on.empty()) return {};
  const std::string with_holder = r.holder_side.empty() ? "here" : join(r.holder_side) + ",here";
  return {fmt::format("{} partition {} | {}", on, with_holder, join(r.far_side)), fmt::format("{} after 3s heal", on)};
}

Faults clock_jump(Placer& pl, const Roles& r) {
  const std::string on = pl.trigger({"after_acquire"});
  if (on.empty()) return {};
  const int64_t milli = pl.prng().between(1100, 2000);
  return {fmt::format("{} clock-jump {} +{} lock-ttl", on, r.lock_node, sim::format_multiple(milli))};
}

Faults clock_drift(Placer& pl, const Roles& r) {
  // From the start, the lock node's clock runs 2-5% fast: more than the 1% RedLock's drift term
  // allows for, so its keys expire that much early in true time.
  const int64_t ppm = pl.prng().between(20'000, 50'000);
  return {fmt::format("at 0 clock-drift {} +{}ppm", r.lock_node, ppm)};
}

Faults lock_restart(Placer& pl, const Roles& r) {
  // Right after a buyer acquired its lock, the lock node crashes and is back 1-10ms later (a
  // supervisor restarting it), long before Sentinel would call it down (1s) and while the holder
  // is still in its critical section: with no persistence it comes back without the key, and
  // nobody else takes over.
  const std::string on = pl.trigger({"after_acquire"});
  if (on.empty()) return {};
  const int64_t back_ms = pl.prng().between(1, 10);
  return {fmt::format("{} crash {}", on, r.lock_node), fmt::format("{} after {}ms restart {}", on, back_ms, r.lock_node)};
}

Faults acquire_pause(Placer& pl, const Roles& r) {
  // The client pauses between two of its acquire requests (a GC while the replies come in), for
  // 1.1-2x the lock TTL: the keys it set first expire meanwhile.
  const std::string on = pl.trigger(r.acquire_points);
  if (on.empty()) return {};
  const int64_t milli = pl.prng().between(1100, 2000);
  return {fmt::format("{} pause here for {} lock-ttl", on, sim::format_multiple(milli))};
}

Faults slow_rpc(Placer& pl, const Roles& r) {
  const std::string on = pl.trigger(kDbSendPoints);
  if (on.empty()) return {};
  const int64_t milli = pl.prng().between(1100, 2000);
  // Slower than the lease the caller holds, as gc-pause (a consumer's is max.poll.interval).
  return {fmt::format("{} delay-next here -> db by {} {}", on, sim::format_multiple(milli), r.consumes_queue ? "max-poll-interval" : "lock-ttl")};
}

Faults app_crash(Placer& pl, const Roles&) {
  const std::string on = pl.trigger(kBuyerPoints);
  if (on.empty()) return {};
  return {fmt::format("{} crash here", on), fmt::format("{} after 2s restart here", on)};
}

Faults lost_replies(Placer& pl, const Roles&) {
  // The database's replies to the buyer's app node are lost for a while, from the moment a
  // statement is sent: the call times out (ambiguous) though it applied.
  const std::string on = pl.trigger(kDbSendPoints);
  if (on.empty()) return {};
  const int64_t heal_ms = pl.prng().between(50, 300);
  return {fmt::format("{} cut db -> here", on), fmt::format("{} after {}ms heal", on, heal_ms)};
}

// What a kind needs of the sale's lock service; nullopt when it applies.
using Applies = std::optional<std::string> (*)(const Roles&);
std::optional<std::string> anywhere(const Roles&) { return std::nullopt; }
std::optional<std::string> needs_lock_service(const Roles& r) {
  if (r.has_lock_service()) return std::nullopt;
  return std::string("the design uses no lock service");
}
// A fault that strikes a held lock (at after_acquire): a design that keeps only data on its
// lock service (dedup keys, stock) never reaches it.
std::optional<std::string> needs_lock_taken(const Roles& r) {
  if (!r.has_lock_service()) return std::string("the design uses no lock service");
  if (r.takes_lock) return std::nullopt;
  return fmt::format("the design takes no lock on its {} service, only keeps data there", r.service);
}
std::optional<std::string> needs_replica(const Roles& r) {
  if (r.replicated) return std::nullopt;
  return r.has_lock_service() ? fmt::format("its lock service ({}) has no replica to take over", r.service) : std::string("the design uses no lock service");
}
std::optional<std::string> needs_far_side(const Roles& r) {
  if (!r.far_side.empty()) return std::nullopt;
  return r.has_lock_service() ? fmt::format("its lock service ({}) is one node", r.service) : std::string("the design uses no lock service");
}
std::optional<std::string> needs_far_side_and_lock(const Roles& r) {
  if (auto why = needs_far_side(r)) return why;
  return needs_lock_taken(r);
}
std::optional<std::string> needs_acquire_points(const Roles& r) {
  if (!r.acquire_points.empty()) return std::nullopt;
  if (r.has_lock_service() && !r.takes_lock) return needs_lock_taken(r);
  return r.has_lock_service() ? fmt::format("its lock service ({}) takes a lock in one request", r.service) : std::string("the design uses no lock service");
}

using Gen = Faults (*)(Placer&, const Roles&);
struct Kind {
  const char* name;
  Gen gen;
  const char* needs;  // what the design must reach for this fault to be placed
  Applies applies;
};
const Kind kKinds[] = {
    {"gc-pause", gc_pause, "a buyer's purchase step", anywhere},
    {"failover", failover, "write_unreplicated or after_acquire (a write to a Redis primary with a replica)", needs_replica},
    {"partition", partition, "after_acquire (a lock acquired)", needs_far_side_and_lock},
    {"clock-jump", clock_jump, "after_acquire (a lock acquired)", needs_lock_taken},
    {"clock-drift", clock_drift, "a lock service", needs_lock_service},
    {"lock-restart", lock_restart, "after_acquire (a lock acquired)", needs_lock_taken},
    {"acquire-pause", acquire_pause, "a point between a client's acquire requests (during_acquire)", needs_acquire_points},
    {"slow-rpc", slow_rpc, "a statement sent to the database", anywhere},
    {"app-crash", app_crash, "a buyer's purchase step", anywhere},
    {"lost-replies", lost_replies, "a statement sent to the database", anywhere},
};
const Kind* kind_of(const std::string& name) {
  for (const Kind& k : kKinds) {
    if (name == k.name) return &k;
  }
  return nullptr;
}

// The kinds chaos mixes: the original seven (so its plans for the Redis designs, to which all
// seven apply, stay what they were), of which a design gets those that apply to it.
const char* const kChaosKinds[] = {"gc-pause", "failover", "partition", "clock-jump", "slow-rpc", "app-crash", "lost-replies"};

bool typed(const Scenario& s, const char* flag) { return std::find(s.typed.begin(), s.typed.end(), flag) != s.typed.end(); }

// Raises a workload value the profile needs, unless the user typed it; says which, either way.
template <class T, class Show>
void widen(Scenario& s, const std::string& profile, const char* flag, T& field, T needed, const char* why, Show show) {
  if (!(field < needed)) return;
  if (typed(s, flag)) {
    s.notes.push_back(fmt::format("{} keeps {} {} as typed, below the {} it needs: {}", profile, flag, show(field), show(needed), why));
    return;
  }
  s.notes.push_back(fmt::format("{} sets {} {} (not typed; the default is {}): {}", profile, flag, show(needed), show(field), why));
  field = needed;
}
std::string show_duration(Duration d) { return sim::format_duration(d); }
std::string show_int(int64_t v) { return std::to_string(v); }

void widen_for_failover(Scenario& s, const std::string& profile, const Roles& roles) {
  // A lock lost in a failover matters only while its holder still works when Sentinel has
  // promoted the replica (down-after 1s, plus its 100ms period; --sentinel-down-after): a
  // critical section 0.4s longer than the takeover, 1.5s by default, under
  // a 5s lease, so the lease itself does not expire, and waiters that outlast the failover. A
  // ZooKeeper election takes about as long (syncLimit, then the vote), and the 5s lease is then
  // the session timeout, so no session expires while the ensemble elects.
  Workload& w = s.workload;
  const std::string why = fmt::format("a lost lock overlaps its holder only if the critical section outlasts {}", roles.takeover);
  widen(s, profile, "--remote-call", w.remote_call, std::max(Duration::ms(1500), roles.takeover_time + Duration::ms(400)), why.c_str(), show_duration);
  widen(s, profile, "--lock-ttl", w.lock_ttl, w.remote_call * 3 + Duration::ms(500), "the lease must outlast the critical section, or it expires without any failover",
        show_duration);
  widen(s, profile, "--lock-wait", w.lock_wait, std::max(Duration::s(10), roles.takeover_time + Duration::ms(8900)), "waiting buyers must still be trying once the lock service has failed over", show_duration);
  widen(s, profile, "--gateway-timeout", w.gateway_timeout, std::max(Duration::s(15), roles.takeover_time + Duration::ms(13900)), "the gateway must wait out the failover", show_duration);
}

void widen_for_expiry(Scenario& s, const std::string& profile) {
  // A holder cut off from the ensemble loses its lock when its session expires on the leader,
  // one session timeout (--lock-ttl) after it was last heard, rounded up to the leader's next
  // tick; its own client says LOST only later: once it has been SUSPENDED (from two thirds of
  // the timeout) for a whole timeout more (Curator over a ZooKeeper client before 3.9.3), or
  // after 4/3 of the timeout without a word (3.9.3+, ZOOKEEPER-4508). A critical section of 1.25
  // timeouts ends inside that window for both: after a waiter took the lock, before the
  // holder's client gives up.
  Workload& w = s.workload;
  widen(s, profile, "--remote-call", w.remote_call, w.lock_ttl * 5 / 4,
        "the holder must still be working when its session expires on the leader (one session timeout, --lock-ttl) and a waiter takes the lock", show_duration);
  widen(s, profile, "--lock-wait", w.lock_wait, Duration::s(10), "waiting buyers must still be waiting when the session expires", show_duration);
  widen(s, profile, "--gateway-timeout", w.gateway_timeout, Duration::s(15), "the gateway must wait for the slow sale", show_duration);
}

void widen_for_drift(Scenario& s, const std::string& profile) {
  // A clock running a few percent fast expires a key a few percent early: that matters only to
  // a holder that uses nearly all its lease. A 97% call ends just under the TTL without drift
  // (the lock holds); the key expires first when the clock runs more than about 3% fast, so of
  // the 2-5% the profile draws, the lower third rarely matters (only with the network's slow
  // tail) and the rest does. Waiters must outlast the slow sale.
  Workload& w = s.workload;
  widen(s, profile, "--remote-call", w.remote_call, w.lock_ttl * 97 / 100, "drift shortens a lease only by a few percent: the holder must use nearly all of it",
        show_duration);
  widen(s, profile, "--lock-wait", w.lock_wait, Duration::s(10), "waiting buyers must outlast holders that keep the lock for most of its TTL", show_duration);
  widen(s, profile, "--gateway-timeout", w.gateway_timeout, Duration::s(15), "the gateway must wait for the slow sale", show_duration);
}

}  // namespace

const std::vector<Profile>& profiles() {
  static const std::vector<Profile> all = {
      {"none", "no faults: concurrency alone"},
      {"gc-pause", "a buyer's process pauses at a purchase step (after acquire, after read, before commit, ...) for 1.1-2x the lock TTL"},
      {"failover", "the lock node (the Redis primary) crashes right after a lock is acquired, or a write its replica lacks; Sentinel promotes the replica"},
      {"partition", "right after a buyer acquires its lock, its app node and the lock node are cut off from the rest of the lock service (Redis: split brain); heals 3s later"},
      {"clock-jump", "right after a buyer acquires its lock, the lock node's clock jumps forward by 1.1-2x the lock TTL"},
      {"clock-drift", "the lock node's clock runs 2-5% fast from the start (RedLock's drift term allows 1%); the critical section takes 97% of the TTL"},
      {"lock-restart", "right after a buyer acquires its lock, the lock node crashes and is back 1-10ms later, with what its persistence kept"},
      {"acquire-pause", "a buyer's process pauses while it acquires (RedLock: after one of the masters answered, before the next or before it reads its clock) for 1.1-2x the lock TTL"},
      {"slow-rpc", "a statement one buyer sends to the database arrives 1.1-2x the lock TTL late"},
      {"app-crash", "a buyer's app node is killed at a purchase step (before COMMIT, after COMMIT, ...) and restarted 2s later"},
      {"lost-replies", "the database's replies to a buyer's app node are lost for 50-300ms from a statement on (ambiguous timeouts), no retries"},
      {"retries", "lost-replies, plus gateway retries (same request id) and double clicks"},
      {"chaos", "a random mix of 1-3 of the faults above, with a gateway retry"},
  };
  return all;
}

const std::vector<ProfileSet>& profile_sets() {
  static const std::vector<ProfileSet> all = {
      {"redlock", {"clock-jump", "clock-drift", "lock-restart", "acquire-pause"},
       "what the RedLock debate is about: a master's clock jumps or drifts, a master restarts without the key, a client pauses while acquiring"},
  };
  return all;
}

namespace {
bool is_single_profile(const std::string& name) {
  for (const Profile& p : profiles()) {
    if (p.name == name) return true;
  }
  return false;
}
}  // namespace

std::vector<std::string> combination_parts(const std::string& name) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t plus = name.find('+', start);
    parts.push_back(name.substr(start, plus == std::string::npos ? std::string::npos : plus - start));
    if (plus == std::string::npos) break;
    start = plus + 1;
  }
  return parts;
}

std::optional<std::string> combination_problem(const std::string& name) {
  const std::vector<std::string> parts = combination_parts(name);
  if (parts.size() < 2) return fmt::format("'{}' is not a combination (a+b)", name);
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string& p = parts[i];
    if (p.empty()) return fmt::format("'{}' has an empty part", name);
    if (!is_single_profile(p)) return fmt::format("'{}' is not a profile", p);
    if (p == "none" || p == "chaos") return fmt::format("'{}' does not combine ({} is {})", p, p, p == "none" ? "no faults" : "already a mix");
    for (size_t j = 0; j < i; ++j) {
      if (parts[j] == p) return fmt::format("'{}' names {} twice", name, p);
    }
  }
  return std::nullopt;
}

bool is_profile(const std::string& name) {
  if (name.find('+') != std::string::npos) return !combination_problem(name);
  return is_single_profile(name);
}

namespace {

// Everything a probe's run depends on, as text: two scenarios with the same key run the same
// sale. Every Workload field is listed; the static_assert below fails when a field is added
// (add it here too).
std::string probe_key(const Scenario& s) {
  const Workload& w = s.workload;
  return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}/{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", s.design, s.seed, s.horizon.count_ns(), s.settle.count_ns(),
                     s.inline_timers, s.schedule, s.faults.to_string(), w.buyers, w.skus, w.stock, w.activity, w.double_click.numerator,
                     w.double_click.denominator, w.app_nodes, static_cast<int>(w.arrival), w.burst_window.count_ns(), w.poisson_mean.count_ns(),
                     w.max_retries, w.gateway_timeout.count_ns(), w.remote_call.count_ns(), w.lock_ttl.count_ns(), w.lock_wait.count_ns(),
                     w.lock_retry.count_ns(), w.optimistic_retries, w.replication_lag.count_ns(), w.latency_min.count_ns(),
                     w.latency_max.count_ns(), w.latency_tail, static_cast<int>(w.redis_persistence), w.redlock_masters, w.zk_servers) +
         "|" + settings_key(w) + format_distribution(remote_call_distribution(w)) + "|" + format_distribution(replication_distribution(w));
}
#if defined(__x86_64__) && defined(__GLIBCXX__)
static_assert(sizeof(Workload) == 432, "Workload changed: add the new field to probe_key or to protocols/settings.cpp (then update this size)");
#endif

// Probes are shared between the profiles of one seed (compare, hash and the verdict table run
// the same sale under every profile): a bounded cache, first in first out, for every thread.
class ProbeCache {
 public:
  std::optional<Probe> find(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(key);
    if (it == entries_.end()) return std::nullopt;
    return it->second;
  }
  void add(const std::string& key, const Probe& p) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!entries_.emplace(key, p).second) return;
    order_.push_back(key);
    if (order_.size() > kCapacity) {
      entries_.erase(order_.front());
      order_.pop_front();
    }
  }

 private:
  static constexpr size_t kCapacity = 20'000;
  std::mutex mu_;
  std::map<std::string, Probe> entries_;
  std::deque<std::string> order_;
};
ProbeCache& probe_cache() {
  static ProbeCache cache;
  return cache;
}

}  // namespace

Probe probe(const Scenario& scenario, ProbeLength length) {
  const Design* design = find_design(scenario.design);
  if (design == nullptr) throw std::invalid_argument(fmt::format("unknown variant '{}'", scenario.design));
  Scenario s = scenario;
  s.keep_trace = false;
  s.record_choices = false;
  if (auto problem = scenario_problem(s, *design)) throw std::invalid_argument(*problem);
  const std::string key = probe_key(s) + (length == ProbeLength::whole_run ? "|whole" : "|heal");
  if (auto cached = probe_cache().find(key)) return *cached;
  Simulation sim(s, *design);
  sim.track_window();
  if (length == ProbeLength::until_heal) sim.end_at_heal();
  Probe out;
  // Observers hear a point only while points are open (World::close_points): what a fault can
  // strike. The run already has one (track_window), so this one changes nothing in it.
  sim.world().add_point_observer([&out](std::string_view point, sim::Node*) {
    auto it = out.open_points.find(point);
    if (it == out.open_points.end()) it = out.open_points.emplace(std::string(point), 0).first;
    ++it->second;
  });
  sim.run();
  for (const auto& [point, n] : sim.world().point_counts()) out.points.emplace(point, n);
  out.window = sim.window();
  if (length == ProbeLength::whole_run) out.decisions = sim.world().schedule_choices();
  probe_cache().add(key, out);
  return out;
}

uint64_t Probe::in_window(std::string_view point) const {
  auto it = window.find(point);
  if (it == window.end()) return 0;
  uint64_t n = 0;
  for (const auto& [first, last] : it->second) n += last - first + 1;
  return n;
}

Scenario apply_search(Scenario s) {
  // swarm varies where a profile's faults go; a plan is run as written, scheduled uniformly.
  if (s.search.kind == Search::Kind::pct) {
    Scenario uniform = s;
    uniform.schedule = "random";
    s.schedule = fmt::format("pct:{}:{}", s.search.depth, std::max<uint64_t>(1, probe(uniform, ProbeLength::whole_run).decisions));
  } else {
    s.schedule = "random";
  }
  return s;
}

Scenario apply_profile(const std::string& profile, Scenario s) {
  if (!is_profile(profile)) throw std::invalid_argument(fmt::format("unknown fault profile '{}'", profile));
  s.notes.clear();
  s.unplaced.clear();
  s.faults = {};
  s.schedule = "random";
  const Design* design = find_design(s.design);
  // The design's own defaults first (an etcd session's 2s lease): the profile sizes its fault
  // for the sale that runs.
  if (design != nullptr) {
    std::vector<Requirement> defaults;
    for (const Requirement& r : design->requirements) {
      if (r.user_may_change) defaults.push_back(r);
    }
    if (!defaults.empty()) s.workload = apply_requirements(s.workload, defaults, s.typed, design->name).workload;
  }
  Workload& w = s.workload;
  if (auto why = profile_inapplicable(profile, s)) {
    s.unplaced = *why;
    return s;
  }
  const Roles roles = design == nullptr ? Roles{} : Simulation::roles(s, *design);
  // A combination (gc-pause+failover) widens for each of its profiles, in order, and places one
  // fault (swarm: 1-3) of each on the same probe: every run suffers all of them.
  const std::vector<std::string> parts = combination_parts(profile);
  for (const std::string& part : parts) {
    if (part == "partition" && roles.session_expiry) {
      widen_for_expiry(s, part);
    } else if ((part == "failover" || part == "partition") && roles.replicated) {
      widen_for_failover(s, part, roles);
    }
    if (part == "clock-drift") widen_for_drift(s, part);
    if ((part == "gc-pause" || part == "slow-rpc" || part == "app-crash" || part == "chaos") && roles.takes_lock) {
      // These faults (and chaos, which mixes them) last 1.1-2x the lock TTL, or leave a dead
      // holder's lock to expire: waiters must outlast them, or the sale turns buyers away for
      // the fault's length and the run judges their impatience, not the design. Twice the TTL and a second: the default 2s for
      // a 500ms lease (every Redis, RedLock and ZooKeeper default); 5s for etcd's 2s lease,
      // whose expiry the lessor also checks only every 500ms.
      widen(s, part, "--lock-wait", w.lock_wait, w.lock_ttl * 2 + Duration::s(1), "waiting buyers must outlast a fault as long as the lock's lease", show_duration);
    }
    if (part == "retries") {
      // A repeated purchase only turns into a duplicate order while there is stock to buy: give
      // every buyer a unit so the retries, not the sell-out, decide.
      widen(s, part, "--stock", w.stock, static_cast<int64_t>(w.buyers), "a retry duplicates an order only while stock remains", show_int);
      widen(s, part, "--retries", w.max_retries, 2, "the gateway must retry an ambiguous purchase", show_int);
      if (w.double_click.numerator == 0) {
        if (typed(s, "--double-click")) {
          s.notes.push_back("retries keeps --double-click 0/1 as typed: no buyer clicks twice");
        } else {
          s.notes.push_back("retries sets --double-click 1/4 (not typed; the default is 0/1): a buyer sends the same request twice");
          w.double_click = Ratio{1, 4};
        }
      }
    }
    if (part == "chaos") widen(s, part, "--retries", w.max_retries, 1, "the gateway retries an ambiguous purchase once", show_int);
  }
  if (profile == "none") return s.search.kind == Search::Kind::pct ? apply_search(s) : s;

  // The probe: this sale, this seed, no faults. Everything the plan needs to know about timing
  // comes from it.
  // PCT's probe runs whole (apply_search needs its decisions): one probe serves both.
  const Probe pr = probe(s, s.search.kind == Search::Kind::pct ? ProbeLength::whole_run : ProbeLength::until_heal);
  // The plan's own stream (seeded by the run's seed), apart from the run's choices.
  Prng prng(s.seed ^ 0xfa017ULL);
  const bool swarm = s.search.kind == Search::Kind::swarm;
  Placer placer(prng, pr, swarm);
  std::string plan;
  std::string missing;
  for (const std::string& part : parts) {
    std::vector<const Kind*> kinds;
    if (part == "chaos") {
      // Swarm draws for every kind, applicable or not, so the draws after it do not depend on the
      // design's services.
      std::vector<const Kind*> applicable;
      for (const char* name : kChaosKinds) {
        const Kind* k = kind_of(name);
        const bool enabled = !swarm || prng.bounded(2) == 1;
        if (k->applies(roles)) continue;
        applicable.push_back(k);
        if (enabled) kinds.push_back(k);
      }
      if (kinds.empty()) kinds.push_back(applicable[prng.bounded(applicable.size())]);
    } else {
      kinds.push_back(kind_of(part == "retries" ? "lost-replies" : part));
    }
    // How many faults: chaos 1-3; swarm 1-3 of the profile's kind; otherwise one.
    // (One clock drift: a second would only overwrite the first.)
    const int64_t count = part == "clock-drift" ? 1 : part == "chaos" || swarm ? prng.between(1, 3) : 1;
    bool placed = false;
    for (int64_t i = 0; i < count; ++i) {
      const Kind* k = kinds.size() == 1 ? kinds.front() : kinds[prng.bounded(kinds.size())];
      const Faults lines = k->gen(placer, roles);
      if (lines.empty()) missing = fmt::format("the design never reached {} in this sale", k->needs);
      placed |= !lines.empty();
      for (const std::string& line : lines) plan += plan.empty() ? line : fmt::format("; {}", line);
    }
    // A combination whose part found no place is not that combination: no run claims it.
    if (!placed && parts.size() > 1) {
      s.faults = {};
      s.unplaced = fmt::format("{}: {}", part, missing);
      return s;
    }
  }
  s.faults = sim::FaultPlan::parse(plan);
  if (s.faults.empty()) s.unplaced = missing;
  if (s.search.kind == Search::Kind::pct) s.schedule = fmt::format("pct:{}:{}", s.search.depth, std::max<uint64_t>(1, pr.decisions));
  return s;
}

std::optional<std::string> profile_inapplicable(const std::string& profile, const Scenario& s) {
  if (profile.find('+') != std::string::npos) {
    for (const std::string& part : combination_parts(profile)) {
      if (auto why = profile_inapplicable(part, s)) return fmt::format("{}: {}", part, *why);
    }
    return std::nullopt;
  }
  const Kind* k = kind_of(profile);
  if (k == nullptr) return std::nullopt;  // none, retries, chaos: apply to every design
  const Design* design = find_design(s.design);
  if (design == nullptr) return std::nullopt;
  return k->applies(Simulation::roles(s, *design));
}

bool profile_aims_at_lock(const std::string& profile) {
  for (const std::string& part : combination_parts(profile)) {
    for (const char* name : {"gc-pause", "failover", "partition", "clock-jump", "clock-drift", "lock-restart", "acquire-pause", "app-crash"}) {
      if (part == name) return true;
    }
  }
  return false;
}

}  // namespace oversim::protocols
