#include "properties/lint.h"

#include <algorithm>

#include <fmt/format.h>

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
bool has_lock(const Design& d) { return !d.services.empty(); }
std::string span(sim::Duration d) { return sim::format_duration(d); }

// The stock write holds without the lock: the database turns a second buyer of the last unit
// away whatever the lock did.
bool guarded(Steps::Decrement d) { return d != Steps::Decrement::literal && d != Steps::Decrement::relative; }

LintItem lease(const Design& d, const Workload& w) {
  LintItem it{"lease", "lock TTL > the critical section's p99 (the article: P99 x 2 plus margin)", LintLevel::ok, "", "lock_mutual_exclusion", "none", true};
  if (!has_lock(d)) return {it.id, it.question, LintLevel::na, "no lock", "", "", false};
  if (!leased(d)) {
    it.level = LintLevel::na;
    it.answer = "a ZooKeeper lock lasts as long as its session, not a lease: a holder loses it only when its session expires (a pause or a cut longer than the session timeout)";
    it.property.clear();
    it.profile.clear();
    return it;
  }
  // The critical section is at least the remote call: its p99 is at least the call's.
  const sim::Duration p99 = protocols::remote_call_distribution(w).p99();
  const sim::Duration advised = p99 * 2;
  if (d.steps.renews_lease) {
    it.answer = fmt::format("a watchdog renews the {} lease while the work runs; a pause of the whole process (GC) still outlasts it", span(w.lock_ttl));
    it.profile = "gc-pause";
    return it;
  }
  if (w.lock_ttl <= p99) {
    it.level = LintLevel::fail;
    it.answer = fmt::format("--lock-ttl {} is not above the critical section's p99 ({}, --remote-call): the lease expires during the purchase and a second buyer takes the lock; give it {} or more",
                            span(w.lock_ttl), span(p99), span(advised));
  } else if (w.lock_ttl < advised) {
    it.level = LintLevel::warn;
    it.answer = fmt::format("--lock-ttl {} is under twice the critical section's p99 ({}): a slow call or a short pause outlasts it; the article's rule gives {} or more",
                            span(w.lock_ttl), span(p99), span(advised));
    it.profile = "slow-rpc";
  } else {
    it.answer = fmt::format("--lock-ttl {} is at least twice the critical section's p99 ({}); a pause longer than the lease still outlasts it", span(w.lock_ttl), span(p99));
    it.profile = "gc-pause";
  }
  return it;
}

LintItem failover(const Design& d, const Workload& w) {
  LintItem it{"failover", "can a failover lose the lock", LintLevel::ok, "", "lock_mutual_exclusion", "failover", false};
  if (!has_lock(d)) return {it.id, it.question, LintLevel::na, "no lock service", "", "", false};
  const bool safe_write = guarded(d.steps.decrement);
  const LintLevel if_lost = safe_write ? LintLevel::info : (d.steps.decrement == Steps::Decrement::literal ? LintLevel::fail : LintLevel::warn);
  const std::string then = safe_write ? fmt::format("; the {} stock write holds the line when it does", protocols::to_string(d.steps.decrement))
                                      : fmt::format("; the {} stock write then sells the unit twice", protocols::to_string(d.steps.decrement));
  if (uses(d, "zookeeper")) {
    it.answer = "no: a lock node is committed by a quorum before the create returns; a leader election delays the lock, and only a session expiry loses it";
    return it;
  }
  if (uses(d, "redlock")) {
    if (w.redis_persistence == protocols::RedisPersistence::always) {
      it.answer = "a master restarts with every acknowledged lock (appendfsync always); a quorum survives one master's loss";
      it.profile = "lock-restart";
      return it;
    }
    it.level = if_lost;
    it.answer = fmt::format("yes: a master that restarts with --persistence {} forgets its locks, and a new quorum can form without the holder (delay restarts by a TTL, or appendfsync always){}",
                            protocols::to_string(w.redis_persistence), then);
    it.profile = "lock-restart";
    return it;
  }
  if (w.redis_replicas == 0) {
    it.level = w.redis_persistence == protocols::RedisPersistence::always ? LintLevel::ok : if_lost;
    it.answer = w.redis_persistence == protocols::RedisPersistence::always
                    ? "no replica, no failover; a restart keeps every acknowledged lock (appendfsync always)"
                    : fmt::format("no replica, so no failover, but a restart with --persistence {} forgets every lock{}", protocols::to_string(w.redis_persistence), then);
    it.profile = "lock-restart";
    return it;
  }
  it.level = if_lost;
  it.answer = fmt::format("yes: replication is asynchronous, so a lock the primary acknowledged can be missing on the replica Sentinel promotes{}{}",
                          w.redis_min_replicas > 0 ? " (min-replicas limits writes to a primary that lost its replicas; it does not make a write synchronous)" : "", then);
  return it;
}

LintItem release(const Design& d) {
  LintItem it{"release", "does release compare the token", LintLevel::ok, "", "no_foreign_unlock", "clock-jump", false};
  if (!has_lock(d)) return {it.id, it.question, LintLevel::na, "no lock", "", "", false};
  switch (d.steps.release) {
    case Steps::Release::token_compare: it.answer = "yes: DEL only while the key still holds this buyer's token (a compare-and-delete script)"; break;
    case Steps::Release::own_node:
      it.answer = "yes: the holder deletes its own sequential node, which no other holder shares";
      it.profile = "gc-pause";
      break;
    case Steps::Release::plain_del:
      it.level = LintLevel::fail;
      it.answer = "no: a plain DEL; a holder whose lease expired deletes the next holder's lock";
      break;
  }
  return it;
}

LintItem decrement(const Design& d, const Workload& w) {
  LintItem it{"decrement", "does the decrement carry the stock condition", LintLevel::ok, "", "no_oversell", has_lock(d) ? "gc-pause" : "none", false};
  switch (d.steps.decrement) {
    case Steps::Decrement::conditional: it.answer = "yes: UPDATE ... WHERE available >= 1, checking the affected rows"; break;
    case Steps::Decrement::versioned: it.answer = "yes: a compare-and-set on the version, with available >= 1"; break;
    case Steps::Decrement::fenced: it.answer = "yes, by fencing: the storage rejects a claim whose token is older than one it has seen"; break;
    case Steps::Decrement::row_locked: it.answer = "yes: SELECT ... FOR UPDATE holds the row while the application checks it"; break;
    case Steps::Decrement::relative:
      if (w.db_check) {
        it.level = LintLevel::warn;
        it.answer = "no: available = available - 1 with the check in the application; only CHECK (available >= 0) stops the stock at zero, and the buyer gets an error, not 'sold out'";
      } else {
        it.level = LintLevel::fail;
        it.answer = "no: available = available - 1 with the check in the application, and CHECK is not enforced (--check-constraint off): the stock goes below zero";
      }
      break;
    case Steps::Decrement::literal:
      it.level = LintLevel::fail;
      it.answer = has_lock(d) ? "no: the application writes a value it computed (SET available = <n>); when the lock fails two holders write the same value"
                              : "no: the application writes a value it computed (SET available = <n>) with no lock: two buyers write the same value (a lost update)";
      break;
  }
  return it;
}

LintItem unique(const Design& d) {
  LintItem it{"unique", "are orders unique-indexed", LintLevel::ok, "", "no_duplicate_order", "retries", false};
  std::vector<std::string> keys;
  if (d.schema.unique_user_sku_activity) keys.push_back("UNIQUE (user_id, sku_id, activity_id)");
  if (d.schema.unique_request_id) keys.push_back("UNIQUE (request_id)");
  if (keys.empty()) {
    it.level = d.steps.idempotency_key ? LintLevel::warn : LintLevel::fail;
    it.answer = d.steps.idempotency_key ? "no: only the idempotency key stops a repeated request, and a lock-service failover can forget it"
                                        : "no: a gateway retry or a double click after a lost reply makes a second order";
    return it;
  }
  it.answer = fmt::format("yes: {}{}", fmt::join(keys, " and "), d.steps.idempotency_key ? ", behind an idempotency key" : "");
  return it;
}

LintItem ledger(const Design& d) {
  LintItem it{"ledger", "can the ledger be reconciled", LintLevel::ok, "", "ledger_conservation", "chaos", false};
  if (d.steps.ledger) {
    it.answer = "yes: every decrement writes a ledger row (before, after, delta) in its transaction";
    return it;
  }
  it.level = LintLevel::warn;
  it.answer = "no ledger: a difference between the stock and the orders cannot be traced to an order or compensated";
  return it;
}

LintItem degrade(const Design& d) {
  LintItem it{"degrade", "is there a degrade path when the lock service fails", LintLevel::info, "", "", "", false};
  if (!has_lock(d)) return {it.id, it.question, LintLevel::na, "no lock service; the database is the only dependency", "", "", false};
  if (d.steps.degrade) {
    it.level = LintLevel::ok;
    it.answer = "yes";
    return it;
  }
  it.answer = "none declared: with the lock service down every purchase fails fast as busy (closed, so safe, but the sale stops)";
  return it;
}

LintItem capacity(const Design& d, const Workload& w) {
  LintItem it{"capacity", "can the lock sell the stock while buyers wait", LintLevel::ok, "", "progress", "none", true};
  if (!has_lock(d)) return {it.id, it.question, LintLevel::na, "no lock: purchases of one SKU run side by side", "", "", false};
  // One holder at a time per SKU, each for at least the remote call.
  const double serial_ns = protocols::mean_ns(protocols::remote_call_distribution(w)) * static_cast<double>(w.stock);
  const sim::Duration serial = sim::Duration::ms(static_cast<int64_t>(serial_ns / 1e6));
  const sim::Duration waits = w.patience > sim::Duration::zero() ? w.patience : w.lock_wait;
  // tryLock polls (Redis): every waiting buyer asks every --lock-retry.
  const double polls_per_s = uses(d, "redis") && w.lock_wait > sim::Duration::zero() ? 1e9 / static_cast<double>(w.lock_retry.count_ns()) * w.buyers / w.skus : 0;
  // Half the wait is the margin for everything else in the purchase (the database, the lock's
  // own round trips, the gaps between a release and the next poll).
  if (w.buyers >= w.stock * w.skus && serial * 2 >= waits) {
    it.level = LintLevel::warn;
    it.answer = fmt::format("no: {} units one holder at a time take at least {} (the call's mean each), more than half of what buyers wait ({}, --patience or --lock-wait): "
                            "stock is left unsold; more patience, a shorter critical section, or no lock around the call",
                            w.stock, span(serial), span(waits));
    return it;
  }
  if (polls_per_s > 100'000) {
    it.level = LintLevel::warn;
    it.answer = fmt::format("{} buyers polling tryLock every {} ask the lock service about {:.0f} times a second; fail fast (--lock-wait 0) or poll less often (--lock-retry)",
                            w.buyers / w.skus, span(w.lock_retry), polls_per_s);
    return it;
  }
  it.answer = fmt::format("yes: {} units one holder at a time take about {}, inside the buyers' {}", w.stock, span(serial), span(waits));
  it.property.clear();
  it.profile.clear();
  return it;
}

LintItem gateway(const Workload& w) {
  LintItem it{"gateway", "does the gateway wait for the purchase", LintLevel::ok, "", "progress", "none", true};
  if (protocols::remote_call_distribution(w).p99() >= w.gateway_timeout) {
    it.level = LintLevel::fail;
    it.answer = fmt::format("no: --remote-call {} is not shorter than --gateway-timeout {} at its p99: buyers stop listening before a purchase can answer{}",
                            protocols::format_distribution(protocols::remote_call_distribution(w)), span(w.gateway_timeout), w.max_retries > 0 ? ", and every purchase is retried" : "");
    return it;
  }
  it.answer = fmt::format("yes: --gateway-timeout {} is above the remote call's p99 ({})", span(w.gateway_timeout), span(protocols::remote_call_distribution(w).p99()));
  it.property.clear();
  it.profile.clear();
  return it;
}

}  // namespace

std::vector<LintItem> lint(const Design& design, const Workload& given) {
  // The sale the design runs: with the settings it requires.
  const Workload workload = protocols::apply_requirements(given, design.requirements, {}, design.name).workload;
  return {lease(design, workload), failover(design, workload), release(design), decrement(design, workload),
          unique(design),          ledger(design),             degrade(design), capacity(design, workload), gateway(workload)};
}

}  // namespace oversim::properties
