#include "properties/lint.h"

#include <algorithm>

#include <fmt/format.h>

#include "models/redis/redis_server.h"
#include "protocols/traffic.h"

namespace oversim::properties {

using protocols::Design;
using protocols::Steps;
using protocols::Workload;

const char* to_string(LintLevel l) {
  switch (l) {
    case LintLevel::ok: return "ok";
    case LintLevel::info: return "info";
    case LintLevel::warn: return "WARN";
    case LintLevel::fail: return "FAIL";
    case LintLevel::na: return "n/a";
  }
  return "?";
}

namespace {

bool uses(const Design& d, const char* service) { return std::find(d.services.begin(), d.services.end(), service) != d.services.end(); }
bool leased(const Design& d) { return uses(d, "redis") || uses(d, "redlock"); }
// The roles of the design's lock service, as the profiles see them (protocols/services.h): a
// service kind says whether it is a lock service, not a list of names here.
protocols::Roles roles_of(const Design& d) {
  protocols::Scenario s;
  s.design = d.name;
  return protocols::Simulation::roles(s, d);
}
bool has_lock(const Design& d) {
  const protocols::Roles r = roles_of(d);
  return r.has_lock_service() && r.takes_lock;
}
// A design that takes no lock but keeps data on its lock service (its stock, dedup keys).
bool keeps_data(const Design& d) {
  const protocols::Roles r = roles_of(d);
  return r.has_lock_service() && !r.takes_lock;
}
bool unique_orders(const Design& d) { return d.schema.unique_request_id || d.schema.unique_user_sku_activity; }
std::string span(sim::Duration d) { return sim::format_duration(d); }

// The stock write holds without the lock: the database turns a second buyer of the last unit
// away whatever the lock did.
bool guarded(Steps::Decrement d) { return d != Steps::Decrement::literal && d != Steps::Decrement::relative; }

LintItem lease(const Design& d, const Workload& w) {
  LintItem it{"lease", "lock TTL > the critical section's p99 (the article: P99 x 2 plus margin)", LintLevel::ok, {}, "lock_mutual_exclusion", "none", true};
  if (!has_lock(d)) return {it.id, it.question, LintLevel::na, {"no lock"}, "", "", false};
  if (!leased(d)) {
    it.level = LintLevel::na;
    it.answers = {uses(d, "etcd") ? "an etcd lock lasts as long as its session's lease, which the client keeps alive: a holder loses it only when the lease expires on the leader (a pause or a cut longer than the TTL)"
                                  : "a ZooKeeper lock lasts as long as its session, not a lease: a holder loses it only when its session expires (a pause or a cut longer than the session timeout)"};
    it.property.clear();
    it.profile.clear();
    return it;
  }
  // The critical section is at least the remote call: its p99 is at least the call's.
  const sim::Duration p99 = protocols::remote_call_distribution(w).p99();
  const sim::Duration advised = p99 * 2;
  if (d.steps.renews_lease) {
    it.answers = {fmt::format("a watchdog renews the {} lease while the work runs; a pause of the whole process (GC) still outlasts it", span(w.lock_ttl))};
    it.profile = "gc-pause";
    return it;
  }
  if (w.lock_ttl <= p99) {
    it.level = LintLevel::fail;
    it.answers = {fmt::format("--lock-ttl {} is not above the critical section's p99 ({}, --remote-call): the lease expires during the purchase and a second buyer takes the lock; give it {} or more",
                            span(w.lock_ttl), span(p99), span(advised))};
  } else if (w.lock_ttl < advised) {
    it.level = LintLevel::warn;
    it.answers = {fmt::format("--lock-ttl {} is under twice the critical section's p99 ({}): a slow call or a short pause outlasts it; the article's rule gives {} or more",
                            span(w.lock_ttl), span(p99), span(advised))};
    it.profile = "slow-rpc";
  } else {
    it.answers = {fmt::format("--lock-ttl {} is at least twice the critical section's p99 ({}); a pause longer than the lease still outlasts it", span(w.lock_ttl), span(p99))};
    it.profile = "gc-pause";
  }
  return it;
}

// No lock, but data on a replicated Redis: what a failover (or a restart) loses is that data.
LintItem failover_of_data(const Design& d, const Workload& w) {
  const bool stock = d.steps.service_stock;
  LintItem it{"failover", stock ? "can a failover lose a stock decrement" : "can a failover lose a dedup key", LintLevel::ok, {},
              stock ? "no_oversell" : "no_duplicate_order", stock ? "failover" : "failover+retries", false};
  const std::string what = stock ? "a stock decrement" : "a dedup key";
  std::string then;
  if (stock) {
    const bool safe_write = guarded(d.steps.decrement);
    it.level = safe_write ? LintLevel::info : LintLevel::fail;
    then = safe_write ? fmt::format("; the {} stock write in the database holds the line when it does", protocols::to_string(d.steps.decrement))
                      : fmt::format("; Redis then sells the unit again, and the {} stock write in the database does not stop it", protocols::to_string(d.steps.decrement));
  } else {
    it.level = unique_orders(d) ? LintLevel::info : LintLevel::warn;
    then = unique_orders(d) ? "; the unique index on orders turns the repeat away when it is"
                            : "; a repeat of that purchase then finds no key and orders again (no unique index on orders)";
  }
  if (w.redis_replicas == 0) {
    if (w.redis_persistence == protocols::RedisPersistence::always) {
      it.level = LintLevel::ok;
      it.answers = {fmt::format("no replica, no failover; a restart keeps every acknowledged write (appendfsync always)")};
    } else {
      it.answers = {fmt::format("no replica, so no failover, but a restart with --persistence {} forgets {} and every other key{}",
                                protocols::to_string(w.redis_persistence), what, then)};
    }
    it.profile.clear();  // lock-restart strikes a lock, which this design never takes
    return it;
  }
  it.answers = {fmt::format("yes: replication is asynchronous, so {} the primary acknowledged can be missing on the replica Sentinel promotes{}", what, then)};
  return it;
}

LintItem failover(const Design& d, const Workload& w) {
  LintItem it{"failover", "can a failover lose the lock", LintLevel::ok, {}, "lock_mutual_exclusion", "failover", false};
  if (keeps_data(d)) return failover_of_data(d, w);
  if (!has_lock(d)) return {it.id, it.question, LintLevel::na, {"no lock service"}, "", "", false};
  const bool safe_write = guarded(d.steps.decrement);
  const LintLevel if_lost = safe_write ? LintLevel::info : (d.steps.decrement == Steps::Decrement::literal ? LintLevel::fail : LintLevel::warn);
  const std::string then = safe_write ? fmt::format("; the {} stock write holds the line when it does", protocols::to_string(d.steps.decrement))
                                      : fmt::format("; the {} stock write then sells the unit twice", protocols::to_string(d.steps.decrement));
  if (uses(d, "zookeeper")) {
    it.answers = {"no: a lock node is committed by a quorum before the create returns; a leader election delays the lock, and only a session expiry loses it"};
    return it;
  }
  if (uses(d, "etcd")) {
    it.answers = {"no: a lock key is committed by a quorum before the Txn returns; a new leader gives every lease its full TTL again (a dead holder's lock outlives its lease), and only a lease expiry loses it"};
    return it;
  }
  if (uses(d, "redlock")) {
    if (w.redis_persistence == protocols::RedisPersistence::always) {
      it.answers = {"a master restarts with every acknowledged lock (appendfsync always); a quorum survives one master's loss"};
      it.profile = "lock-restart";
      return it;
    }
    it.level = if_lost;
    it.answers = {fmt::format("yes: a master that restarts with --persistence {} forgets its locks, and a new quorum can form without the holder (delay restarts by a TTL, or appendfsync always){}",
                            protocols::to_string(w.redis_persistence), then)};
    it.profile = "lock-restart";
    return it;
  }
  if (w.redis_replicas == 0) {
    it.level = w.redis_persistence == protocols::RedisPersistence::always ? LintLevel::ok : if_lost;
    it.answers = {w.redis_persistence == protocols::RedisPersistence::always
                    ? "no replica, no failover; a restart keeps every acknowledged lock (appendfsync always)"
                    : fmt::format("no replica, so no failover, but a restart with --persistence {} forgets every lock{}", protocols::to_string(w.redis_persistence), then)};
    it.profile = "lock-restart";
    return it;
  }
  it.level = if_lost;
  it.answers = {fmt::format("yes: replication is asynchronous, so a lock the primary acknowledged can be missing on the replica Sentinel promotes{}{}",
                          w.redis_min_replicas > 0 ? " (min-replicas limits writes to a primary that lost its replicas; it does not make a write synchronous)" : "", then)};
  return it;
}

LintItem release(const Design& d) {
  LintItem it{"release", "does release compare the token", LintLevel::ok, {}, "no_foreign_unlock", "clock-jump", false};
  if (!has_lock(d)) return {it.id, it.question, LintLevel::na, {"no lock"}, "", "", false};
  switch (d.steps.release) {
    case Steps::Release::token_compare: it.answers = {"yes: DEL only while the key still holds this buyer's token (a compare-and-delete script)"}; break;
    case Steps::Release::own_node:
      it.answers = {uses(d, "etcd") ? "yes: Unlock deletes the key of its own session's lease, and the process's buyers of the lock take turns, so no other holder shares it"
                                    : "yes: the holder deletes its own sequential node, which no other holder shares"};
      it.profile = "gc-pause";
      break;
    case Steps::Release::plain_del:
      it.level = LintLevel::fail;
      if (uses(d, "etcd")) {
        it.answers = {"no: an Unlock sent again after a lost answer deletes whatever key of the session's name exists then, the process's next holder's (etcd #22082); a "
                      "create_revision guard does not stop it once that holder's Mutex adopted the same key"};
        it.profile = "failover";
        break;
      }
      it.answers = {"no: a plain DEL; a holder whose lease expired deletes the next holder's lock"};
      break;
  }
  return it;
}

LintItem decrement(const Design& d, const Workload& w) {
  LintItem it{"decrement", "does the decrement carry the stock condition", LintLevel::ok, {}, "no_oversell", has_lock(d) ? "gc-pause" : "none", false};
  switch (d.steps.decrement) {
    case Steps::Decrement::conditional: it.answers = {"yes: UPDATE ... WHERE available >= 1, checking the affected rows"}; break;
    case Steps::Decrement::versioned: it.answers = {"yes: a compare-and-set on the version, with available >= 1"}; break;
    case Steps::Decrement::fenced: it.answers = {"yes, by fencing: the storage rejects a claim whose token is older than one it has seen"}; break;
    case Steps::Decrement::row_locked: it.answers = {"yes: SELECT ... FOR UPDATE holds the row while the application checks it"}; break;
    case Steps::Decrement::relative:
      if (w.db_check) {
        it.level = LintLevel::warn;
        it.answers = {"no: available = available - 1 with the check in the application; only CHECK (available >= 0) stops the stock at zero, and the buyer gets an error, not 'sold out'"};
      } else {
        it.level = LintLevel::fail;
        it.answers = {"no: available = available - 1 with the check in the application, and CHECK is not enforced (--check-constraint off): the stock goes below zero"};
      }
      break;
    case Steps::Decrement::literal:
      it.level = LintLevel::fail;
      it.answers = {has_lock(d) ? "no: the application writes a value it computed (SET available = <n>); when the lock fails two holders write the same value"
                              : "no: the application writes a value it computed (SET available = <n>) with no lock: two buyers write the same value (a lost update)"};
      break;
  }
  return it;
}

LintItem unique(const Design& d) {
  LintItem it{"unique", "are orders unique-indexed", LintLevel::ok, {}, "no_duplicate_order", "retries", false};
  std::vector<std::string> keys;
  if (d.schema.unique_user_sku_activity) keys.push_back("UNIQUE (user_id, sku_id, activity_id)");
  if (d.schema.unique_request_id) keys.push_back("UNIQUE (request_id)");
  if (keys.empty()) {
    it.level = d.steps.idempotency_key ? LintLevel::warn : LintLevel::fail;
    it.answers = {d.steps.idempotency_key ? "no: only the idempotency key stops a repeated request, and a lock-service failover can forget it"
                                        : "no: a gateway retry or a double click after a lost reply makes a second order"};
    return it;
  }
  it.answers = {fmt::format("yes: {}{}", fmt::join(keys, " and "), d.steps.idempotency_key ? ", behind an idempotency key" : "")};
  return it;
}

LintItem ledger(const Design& d) {
  LintItem it{"ledger", "can the ledger be reconciled", LintLevel::ok, {}, "ledger_conservation", "chaos", false};
  if (d.steps.ledger) {
    it.answers = {"yes: every decrement writes a ledger row (before, after, delta) in its transaction"};
    return it;
  }
  it.level = LintLevel::warn;
  it.answers = {"no ledger: a difference between the stock and the orders cannot be traced to an order or compensated"};
  return it;
}

// The article's ledger layer: "the compensation queue's actions are idempotent, driven by a
// state machine pending -> processing -> done".
LintItem compensate(const Design& d) {
  LintItem it{"compensate", "is a cancelled order's unit given back once", LintLevel::ok, {}, "compensation_converges", "gc-pause", false};
  switch (d.steps.compensation) {
    case Steps::Compensation::none:
      return {it.id, it.question, LintLevel::na, {"no order lifecycle: an order is paid as it is written, and nothing gives a unit back"}, "", "", false};
    case Steps::Compensation::check_then_act:
      it.level = LintLevel::fail;
      it.answers = {"no: the cancel reads the order and then updates it with no status condition; two cancellers that both read 'pending' (the page and the "
                    "timeout job, or the job on two nodes) both give the unit back, and the unit sells twice (guard the step: UPDATE ... WHERE status = "
                    "'pending', and give back once per order)"};
      return it;
    case Steps::Compensation::guarded:
      if (d.steps.service_stock && !d.steps.give_back_once) {
        it.level = LintLevel::warn;
        it.answers = {"UPDATE ... WHERE status = 'pending' lets one canceller through, but its INCRBY in Redis is sent again after a lost reply, and a "
                      "repeat that had applied gives the unit back twice (give back with a once-per-order marker in the same script)"};
        it.profile = "lost-replies";
        return it;
      }
      it.answers = {fmt::format("yes: UPDATE ... WHERE status = 'pending' lets one canceller through{}",
                                d.steps.service_stock ? ", and every give-back to Redis is applied once per order (a marker in the same script)" : "")};
      return it;
  }
  return it;
}

// The article's "periodic reconciliation": stock kept in a service and orders in the database
// drift apart when a process dies between the two writes.
LintItem reconcile(const Design& d) {
  LintItem it{"reconcile", "does a unit taken for an order never written come back", LintLevel::ok, {}, "no_vanished_stock", "app-crash", false};
  if (!d.steps.service_stock) {
    return {it.id, it.question, LintLevel::na, {"the stock and the orders are in the database, written in one transaction"}, "", "", false};
  }
  if (d.steps.reconciles) {
    it.answers = {"yes: every unit taken leaves a reservation record, and a reconciler voids an order never written (its id claimed in the database, "
                  "so a late writer is fenced off) and gives the unit back"};
    return it;
  }
  it.level = LintLevel::fail;
  it.answers = {"no: a process that dies between the Redis decrement and the order write takes the unit with it (undersell); nothing compares Redis "
                "with the database"};
  return it;
}

LintItem degrade(const Design& d, const Workload& w) {
  LintItem it{"degrade", "is there a degrade path when the lock service fails", LintLevel::info, {}, "", "", false};
  if (keeps_data(d)) {
    it.answers = {"no lock, and no degrade path declared: with Redis down, what a purchase does is the design's own choice (this one's file says whether it fails open or closed)"};
    return it;
  }
  if (!has_lock(d)) return {it.id, it.question, LintLevel::na, {"no lock service; the database is the only dependency"}, "", "", false};
  const protocols::CircuitBreaker::Options breaker;
  const std::string opens = fmt::format("a circuit breaker on each app node opens after {} acquisitions in a row the lock service did not answer, for {}, "
                                        "then lets one probe through",
                                        breaker.failures_to_open, span(breaker.open_for));
  if (d.steps.degrade != Steps::Degrade::none) {
    // Each answer is backed by the failover profile: the primary is down until Sentinel promotes.
    it.property = "no_oversell";
    it.profile = "failover";
    const std::string bucket = w.rate_limit > 0 ? fmt::format(", and the gateway's token bucket admits {} requests a second", w.rate_limit) : "";
    switch (d.steps.degrade) {
      case Steps::Degrade::reject:
        it.level = LintLevel::ok;
        it.answers = {fmt::format("yes: {}; while it is open a purchase is rejected at once (busy), so nothing reaches the database without the lock{}", opens,
                                  bucket)};
        return it;
      case Steps::Degrade::queue:
        it.level = LintLevel::ok;
        it.answers = {fmt::format("yes: {}; while it is open a purchase goes to a queue keyed by SKU, whose consumers take the unit with the stock "
                                  "condition, so nothing reaches the database unguarded{}",
                                  opens, bucket)};
        return it;
      case Steps::Degrade::let_through:
        it.level = LintLevel::fail;
        it.answers = {fmt::format("no: it fails open: {}; while Redis does not answer, a purchase goes on without the lock, and its stock write is right "
                                  "only under the lock (the article: degrade to queueing or rate limiting, never let traffic through)",
                                  opens)};
        return it;
      case Steps::Degrade::none: break;
    }
  }
  const std::string waits = w.lock_wait > sim::Duration::zero()
                                ? fmt::format("until its acquire gives up (--lock-wait {}), asking again all the while", span(w.lock_wait))
                                : std::string("for its one request to time out (--lock-wait 0)");
  it.answers = {fmt::format("none declared: with the lock service down each purchase waits {}, then is busy: safe, but the sale stalls while it is "
                            "down (for Redis, the `traffic:` line counts the requests left unanswered)",
                            waits)};
  it.from_workload = true;
  return it;
}

// A time the lint worked out from averages, to the hundredth.
std::string approx(double ns) { return sim::format_span(sim::Duration::ns(static_cast<int64_t>(ns))); }

// How long after time zero the buyers arrive: the burst window, or the poisson gaps (their mean
// times the buyers).
double arrivals_ns(const Workload& w) {
  switch (w.arrival) {
    case protocols::Arrival::burst:
    case protocols::Arrival::ramp:
    case protocols::Arrival::slots: return static_cast<double>(w.burst_window.count_ns());
    case protocols::Arrival::poisson: return static_cast<double>(w.poisson_mean.count_ns()) * w.buyers;
  }
  return 0;
}

// How long purchases can go on starting. A buyer kept waiting (at the lock; for a connection,
// and then at the row lock) and turned away as busy clicks again until its patience runs out,
// but only if it hears "busy": when the gateway stops listening first, it hears nothing and
// stops (Simulation's buyer), as does a buyer with one click. Then the sale has its arrivals
// and that one wait.
struct Window {
  std::optional<double> ns;  // nullopt: a wait without a timeout, no bound
  std::string why;           // "buyers arrive over 5ms and click again for 2m, --patience"
  std::string fix;           // what lengthens it
};

Window selling_window(const Design& d, const Workload& w) {
  sim::Duration wait = w.db_pool_timeout;
  std::string where = "--pool-timeout for a connection";
  if (has_lock(d)) {
    wait = w.lock_wait;
    where = "--lock-wait";
  } else if (d.steps.decrement == Steps::Decrement::row_locked) {
    wait = w.db_lock_timeout == sim::Duration::zero() ? sim::Duration::max() : w.db_pool_timeout + w.db_lock_timeout;  // 0: the row lock waits forever
    where = "--pool-timeout for a connection, then --db-lock-timeout for the row";
  }
  const double arrivals = arrivals_ns(w);
  const std::string over = fmt::format("buyers arrive over {}", w.arrival == protocols::Arrival::poisson ? "about " + approx(arrivals) : span(w.burst_window));
  if (w.patience > sim::Duration::zero() && w.gateway_timeout > wait) {
    return {arrivals + static_cast<double>(w.patience.count_ns()), fmt::format("{} and click again for {}, --patience", over, span(w.patience)), "more patience"};
  }
  if (wait == sim::Duration::max()) return {std::nullopt, "", ""};
  if (w.patience == sim::Duration::zero()) {
    return {arrivals + static_cast<double>(wait.count_ns()), fmt::format("{} and click once, --patience 0, waiting at most {}: {}", over, span(wait), where), "more patience"};
  }
  return {arrivals + static_cast<double>(wait.count_ns()),
          fmt::format("{}; one kept waiting hears nothing after --gateway-timeout {} and does not click again, so it waits once, at most {}: {}", over, span(w.gateway_timeout),
                      span(wait), where),
          fmt::format("a --gateway-timeout above {} (buyers then hear 'busy' and click again)", span(wait))};
}

// Every reason the sale may run out of buyers before it runs out of stock, all at once:
//   - one holder at a time per SKU (the lock, or SELECT ... FOR UPDATE holding the row through
//     the remote call), each for at least the call: stock x the call's mean;
//   - the connection pool: every design holds its connection through the remote call
//     (tests/lint_test.cpp checks it), so --pool-size x --apps connections sell at most one unit
//     each per call;
//   - a lock service that waiting buyers poll (Redis tryLock) faster than it serves commands.
// A time warns at half the selling window or more: the other half is the margin for everything
// else in the purchase (the database, the lock's round trips, the gaps between a release and the
// next poll). At or past the whole window the buyers are gone before the stock is, at the call's
// average pace.
LintItem capacity(const Design& d, const Workload& w) {
  LintItem it{"capacity", "can the stock sell while buyers still wait", LintLevel::ok, {}, "progress", "none", true};
  const double call_ns = protocols::mean_ns(protocols::remote_call_distribution(w));
  const std::string call = approx(call_ns);
  const int64_t units = w.stock * w.skus;
  const Window window = selling_window(d, w);
  const bool enough_buyers = w.buyers >= units;  // fewer buyers than units never sell out
  auto pace = [&](double needed_ns) {
    return needed_ns >= *window.ns ? fmt::format("longer than the {} the sale has ({}): at the call's average pace the buyers are gone before the stock is", approx(*window.ns), window.why)
                                   : fmt::format("more than half of the {} the sale has ({}): stock can be left unsold", approx(*window.ns), window.why);
  };
  std::vector<std::string> fine;
  bool timed = false;  // a "yes" that timed something says in what window

  // One holder at a time.
  const bool row_locked = d.steps.decrement == Steps::Decrement::row_locked;
  const double serial_ns = call_ns * static_cast<double>(w.stock);
  if (has_lock(d) || row_locked) {
    const std::string holder = has_lock(d) ? "one lock holder at a time" : "one buyer at a time (SELECT ... FOR UPDATE holds the row through the remote call)";
    const char* instead = has_lock(d) ? "no lock around the call" : "a decrement that does not hold the row across the call";
    if (enough_buyers && window.ns && serial_ns * 2 >= *window.ns) {
      it.answers.push_back(fmt::format("no: {} units of a SKU sell {}, each for at least the call ({} on average): at least {}, {}; {}, a shorter critical section, or {}",
                                       w.stock, holder, call, approx(serial_ns), pace(serial_ns), window.fix, instead));
    } else {
      fine.push_back(fmt::format("{} units of a SKU sell {} in about {}", w.stock, holder, approx(serial_ns)));
      timed = true;
    }
  } else {
    fine.push_back("purchases of one SKU run side by side");
  }

  // The pool. With a lock, only the holders (one per SKU) want a connection at once; a purchase
  // that only sends its order on wants none.
  const int64_t connections = int64_t{w.db_pool_size} * w.app_nodes;
  if (d.steps.writes_later) {
    fine.push_back("purchases hold no database connection (a job writes the orders later, at the queue's pace)");
  } else {
  const int64_t at_once = has_lock(d) ? std::min<int64_t>(w.buyers, w.skus) : w.buyers;
  const double pool_ns = call_ns * static_cast<double>(units) / static_cast<double>(connections);
  if (at_once > connections && enough_buyers && window.ns && pool_ns * 2 >= *window.ns) {
    it.answers.push_back(fmt::format("no: the pool's {} connection{} (--pool-size {} x --apps {}), each held through the remote call ({} on average), sell {} units in at least {}, {}; "
                                     "a larger pool, {}, or a shorter call inside the connection",
                                     connections, connections == 1 ? "" : "s", w.db_pool_size, w.app_nodes, call, units, approx(pool_ns), pace(pool_ns), window.fix));
  } else if (at_once > connections) {
    fine.push_back(fmt::format("the pool's {} connections sell {} units in about {}", connections, units, approx(pool_ns)));
    timed = true;
  } else {
    fine.push_back(fmt::format("the pool's {} connections cover the {} purchase(s) that can want one at once", connections, at_once));
  }
  }

  // tryLock polls (Redis): every waiting buyer asks every --lock-retry, and one primary holds
  // every SKU's lock.
  if (has_lock(d) && uses(d, "redis") && w.lock_wait > sim::Duration::zero()) {
    const sim::Duration service = redis::ServerOptions{}.service_time;
    const double polls_per_s = 1e9 / static_cast<double>(w.lock_retry.count_ns()) * w.buyers;
    const double serves_per_s = 1e9 / static_cast<double>(service.count_ns());
    if (polls_per_s > serves_per_s) {
      it.answers.push_back(fmt::format("{} buyers polling tryLock every {} can ask the Redis primary up to {:.0f} times a second, more than the {:.0f} it serves (one command per {}): "
                                       "requests queue and wait (`run` says how long); fail fast (--lock-wait 0) or poll less often (--lock-retry)",
                                       w.buyers, span(w.lock_retry), polls_per_s, serves_per_s, span(service)));
    }
  }

  if (!it.answers.empty()) {
    it.level = LintLevel::warn;
    return it;
  }
  it.answers = {fmt::format("yes: {}{}", fmt::join(fine, "; "), timed && window.ns ? fmt::format(", inside the {} the sale has ({})", approx(*window.ns), window.why) : "")};
  it.property.clear();
  it.profile.clear();
  return it;
}

LintItem gateway(const Workload& w) {
  LintItem it{"gateway", "does the gateway wait for the purchase", LintLevel::ok, {}, "progress", "none", true};
  if (protocols::remote_call_distribution(w).p99() >= w.gateway_timeout) {
    it.level = LintLevel::fail;
    it.answers = {fmt::format("no: --remote-call {} is not shorter than --gateway-timeout {} at its p99: buyers stop listening before a purchase can answer{}",
                            protocols::format_distribution(protocols::remote_call_distribution(w)), span(w.gateway_timeout), w.max_retries > 0 ? ", and every purchase is retried" : "")};
    return it;
  }
  it.answers = {fmt::format("yes: --gateway-timeout {} is above the remote call's p99 ({})", span(w.gateway_timeout), span(protocols::remote_call_distribution(w).p99()))};
  it.property.clear();
  it.profile.clear();
  return it;
}

}  // namespace

std::vector<LintItem> lint(const Design& design, const Workload& given, const std::vector<std::string>& typed) {
  // The sale the design runs: with the settings it requires, and its defaults where not typed.
  const Workload workload = protocols::apply_requirements(given, design.requirements, typed, design.name).workload;
  return {lease(design, workload), failover(design, workload), release(design), decrement(design, workload),
          unique(design),          ledger(design),             compensate(design),          reconcile(design),
          degrade(design, workload), capacity(design, workload), gateway(workload)};
}

}  // namespace oversim::properties
