#include "properties/property.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "properties/metrics.h"

namespace oversim::properties {

using protocols::Simulation;
using sim::Instant;

const char* to_string(Kind k) {
  switch (k) {
    case Kind::always: return "always";
    case Kind::eventually: return "eventually";
    case Kind::sometimes: return "sometimes";
  }
  return "?";
}

const char* to_string(Category c) {
  switch (c) {
    case Category::business: return "business";
    case Category::mechanism: return "mechanism";
    case Category::liveness: return "liveness";
    case Category::coverage: return "coverage";
  }
  return "?";
}

namespace {

// An instant for a witness: "1.220963s", without the column padding of format_instant.
std::string instant_text(Instant t) {
  std::string at = sim::format_instant(t);
  at.erase(0, at.find_first_not_of(' '));
  return at;
}

// Orders that count as sold (properties/metrics.h, counts_as_sold), by SKU.
std::map<std::string, std::vector<const db::OrderRow*>> orders_by_sku(const std::map<std::string, db::OrderRow>& orders) {
  std::map<std::string, std::vector<const db::OrderRow*>> by;
  for (const auto& [id, o] : orders) {
    if (counts_as_sold(o)) by[o.sku].push_back(&o);
  }
  return by;
}

std::string list_ids(const std::vector<const db::OrderRow*>& orders, size_t limit = 8) {
  std::string out;
  for (size_t i = 0; i < orders.size() && i < limit; ++i) out += fmt::format("{}{}", i == 0 ? "" : ",", orders[i]->order_id);
  if (orders.size() > limit) out += ",...";
  return out;
}

std::optional<std::string> no_oversell(const Simulation& s) {
  // Re-checked after every commit: count without copying or grouping the orders, and name them
  // only when a SKU is oversold.
  std::vector<const db::OrderRow*> orders = s.db().committed_order_rows();
  // Cancelled and void orders sold nothing; their buyers may have been told "sold" before.
  std::set<std::string_view> unsold;
  if (s.lifecycle()) {
    for (const db::OrderRow* o : orders) {
      if (!counts_as_sold(*o)) unsold.insert(o->order_id);
    }
    std::erase_if(orders, [](const db::OrderRow* o) { return !counts_as_sold(*o); });
  }
  std::map<std::string_view, int64_t> sold_by_sku;
  for (const db::OrderRow* o : orders) ++sold_by_sku[o->sku];
  for (const std::string& sku : s.skus()) {
    const int64_t initial = s.initial_stock(sku);
    const auto row = s.db().committed_stock(sku);
    const int64_t available = row ? row->available : 0;
    auto it = sold_by_sku.find(sku);
    const int64_t sold = it == sold_by_sku.end() ? 0 : it->second;
    if (sold > initial) {
      std::vector<const db::OrderRow*> of_sku;
      for (const db::OrderRow* o : orders) {
        if (o->sku == sku) of_sku.push_back(o);
      }
      return fmt::format("{}: {} orders committed for an initial stock of {} (available={}; orders {})", sku, sold, initial, available,
                         list_ids(of_sku));
    }
    if (available < 0) return fmt::format("{}: available={} below zero", sku, available);
    int64_t acked = 0;
    std::set<std::string_view> acked_orders;
    for (const auto& ack : s.history().acks) {
      if (ack.sku == sku && !unsold.contains(ack.order_id) && acked_orders.insert(ack.order_id).second) ++acked;
    }
    if (acked > initial) return fmt::format("{}: {} buyers were told they bought{}, for an initial stock of {}", sku, acked, unsold.empty() ? "" : " (orders not cancelled)", initial);
  }
  return std::nullopt;
}

// The first group (by its text, as a map of the formatted keys would list it) of orders sharing
// a key, found by a stable sort of pointers: no key is formatted unless it is shared.
template <class Key, class Text>
std::optional<std::pair<std::string, std::vector<const db::OrderRow*>>> first_shared(std::vector<const db::OrderRow*> orders, Key key, Text text) {
  std::stable_sort(orders.begin(), orders.end(), [&](const db::OrderRow* a, const db::OrderRow* b) { return key(*a) < key(*b); });
  std::optional<std::pair<std::string, std::vector<const db::OrderRow*>>> best;
  for (size_t i = 0; i < orders.size();) {
    size_t j = i + 1;
    while (j < orders.size() && key(*orders[j]) == key(*orders[i])) ++j;
    if (j - i > 1) {
      std::string t = text(*orders[i]);
      if (!best || t < best->first) best.emplace(std::move(t), std::vector<const db::OrderRow*>(orders.begin() + static_cast<std::ptrdiff_t>(i), orders.begin() + static_cast<std::ptrdiff_t>(j)));
    }
    i = j;
  }
  return best;
}

std::optional<std::string> no_duplicate_order(const Simulation& s) {
  const std::vector<const db::OrderRow*> orders = s.db().committed_order_rows();
  auto by_buyer = first_shared(
      orders, [](const db::OrderRow& o) { return std::tie(o.user, o.sku, o.activity); },
      [](const db::OrderRow& o) { return fmt::format("user={} sku={} activity={}", o.user, o.sku, o.activity); });
  if (by_buyer) return fmt::format("{} has {} orders ({})", by_buyer->first, by_buyer->second.size(), list_ids(by_buyer->second));
  auto by_request = first_shared(
      orders, [](const db::OrderRow& o) { return std::tie(o.request_id); }, [](const db::OrderRow& o) { return o.request_id; });
  if (by_request) return fmt::format("request {} made {} orders ({})", by_request->first, by_request->second.size(), list_ids(by_request->second));
  return std::nullopt;
}

}  // namespace

namespace {
// The earliest overlap, by its start, of two spans with the same key and different owners: the
// indexes of the two spans, or nullopt. Spans are few; a quadratic scan is fine.
template <class Span, class Same, class Start, class End>
std::optional<std::pair<size_t, size_t>> earliest_overlap(const std::vector<Span>& spans, Same same, Start start, End end) {
  std::optional<std::pair<size_t, size_t>> first;
  Instant first_at = Instant::max();
  for (size_t i = 0; i < spans.size(); ++i) {
    for (size_t j = i + 1; j < spans.size(); ++j) {
      if (!same(spans[i], spans[j])) continue;
      const Instant from = std::max(start(spans[i]), start(spans[j]));
      if (from >= std::min(end(spans[i]), end(spans[j]))) continue;
      if (!first || from < first_at) {
        first = std::pair{i, j};
        first_at = from;
      }
    }
  }
  return first;
}
std::string until(Instant t) { return t == Instant::max() ? std::string("the end") : sim::format_instant(t); }
}  // namespace

std::optional<LockOverlap> first_lock_overlap(const Simulation& s) {
  const auto& locks = s.history().locks;
  const auto found = earliest_overlap(
      locks, [](const protocols::LockBelief& a, const protocols::LockBelief& b) { return a.key == b.key && a.holder != b.holder; },
      [](const protocols::LockBelief& b) { return b.acquired; }, [](const protocols::LockBelief& b) { return b.released; });
  if (!found) return std::nullopt;
  const auto& a = locks[found->first];
  const auto& b = locks[found->second];
  const Instant start = std::max(a.acquired, b.acquired);
  return LockOverlap{start, std::max(a.acquired_step, b.acquired_step), fmt::format("{}: {} (token {}) held it {}..{} and {} (token {}) held it {}..{}; overlap from {}", a.key, a.holder,
                                a.token, sim::format_instant(a.acquired), until(a.released), b.holder, b.token,
                                sim::format_instant(b.acquired), until(b.released), sim::format_instant(start))};
}

// Two consumers working on records of one SKU at the same true time: the serialization a
// per-SKU partition promises is broken (a member that stalled past max.poll.interval and the
// member its partition went to). The earliest overlap, by its start.
std::optional<Offence> first_serialization_break(const Simulation& s) {
  const auto& spans = s.history().processing;
  const auto found = earliest_overlap(
      spans, [](const protocols::Processing& a, const protocols::Processing& b) { return a.sku == b.sku && a.member != b.member; },
      [](const protocols::Processing& p) { return p.started; }, [](const protocols::Processing& p) { return p.ended; });
  if (!found) return std::nullopt;
  const auto& a = spans[found->first];
  const auto& b = spans[found->second];
  return Offence{std::max(a.started, b.started), std::max(a.started_step, b.started_step),
                 fmt::format("{}: {} processed offset {} {}..{} while {} processed offset {} {}..{}", a.sku, a.member, a.offset, sim::format_instant(a.started),
                             until(a.ended), b.member, b.offset, sim::format_instant(b.started), until(b.ended))};
}

// A client's DEL removed a lock key whose token belonged to a client that still believed it held
// the lock: only a release that does not compare the token (or a stale holder's) can do that.
std::optional<Offence> first_foreign_unlock(const Simulation& s) {
  // Several beliefs may carry one token: an etcd Mutex adopts its session's existing key,
  // create revision and all, so two acquisitions of one process can hold the same key.
  std::multimap<std::pair<std::string, std::string>, const protocols::LockBelief*> by_key_token;
  for (const auto& b : s.history().locks) by_key_token.emplace(std::pair{b.key, b.token}, &b);
  std::optional<Offence> first;
  std::vector<protocols::LockRemoval> removals;
  for (const auto& service : s.services()) service->removals(removals);
  for (const auto& r : removals) {
    if (first && !(r.at < first->at)) continue;
    const auto [from, to] = by_key_token.equal_range({r.key, r.value});
    for (auto it = from; it != to; ++it) {
      const protocols::LockBelief& b = *it->second;
      if (b.acquired <= r.at && r.at < b.released) {
        first = Offence{r.at, r.step, fmt::format("a DEL from {} at {} removed {} on {} while {} (token {}) still believed it held it", r.from,
                                                  sim::format_instant(r.at), r.key, r.server, b.holder, b.token)};
        break;
      }
    }
  }
  return first;
}

namespace {

// The database's record of lost updates: a read-then-write that overwrote a committed change.
std::optional<std::string> no_lost_update(const Simulation& s) {
  const auto& lost = s.db().state().lost_updates();
  if (lost.empty()) return std::nullopt;
  return lost.size() == 1 ? lost.front() : fmt::format("{} (and {} more)", lost.front(), lost.size() - 1);
}

std::optional<std::string> check_constraint_fired(const Simulation& s) {
  const int64_t n = s.db().state().check_violations();
  if (n > 0) return fmt::format("CHECK (available >= 0) turned down {} statement(s)", n);
  return std::nullopt;
}

std::optional<std::string> where_rechecked_after_wait(const Simulation& s) {
  const int64_t n = s.db().state().where_refusals_after_wait();
  if (n > 0) return fmt::format("{} conditional UPDATE(s) waited for the row lock and then matched no row", n);
  return std::nullopt;
}

std::optional<std::string> failover_happened(const Simulation& s) {
  for (const auto& service : s.services()) {
    if (auto t = service->takeover()) return t;
  }
  return std::nullopt;
}

std::optional<std::string> ledger_conservation(const Simulation& s) {
  const auto orders = s.db().committed_orders();
  const auto by_sku = orders_by_sku(orders);
  const auto ledger = s.db().committed_ledger();
  for (const std::string& sku : s.skus()) {
    const int64_t initial = s.initial_stock(sku);
    const auto row = s.db().committed_stock(sku);
    const int64_t available = row ? row->available : 0;
    auto it = by_sku.find(sku);
    const auto sold = it == by_sku.end() ? 0 : static_cast<int64_t>(it->second.size());
    if (available + sold != initial) {
      return fmt::format("{}: available {} + sold {} = {}, initial stock {}", sku, available, sold, available + sold, initial);
    }
    int64_t delta = 0;
    bool any = false;
    for (const auto& l : ledger) {
      if (l.sku != sku) continue;
      any = true;
      delta += l.delta;
    }
    if (any && initial + delta != available) {
      return fmt::format("{}: ledger deltas sum to {} but stock moved {} -> {}", sku, delta, initial, available);
    }
  }
  return std::nullopt;
}

struct StockCount {
  int64_t initial = 0;
  int64_t available = 0;              // the database's committed row
  int64_t sold = 0;                   // orders that count as sold (pending ones hold their unit)
  std::optional<int64_t> in_service;  // the service's stock key
};
std::map<std::string, StockCount> stock_counts(const Simulation& s) {
  std::map<std::string, StockCount> out;
  const auto by_sku = orders_by_sku(s.db().committed_orders());
  for (const std::string& sku : s.skus()) {
    StockCount& c = out[sku];
    c.initial = s.initial_stock(sku);
    const auto row = s.db().committed_stock(sku);
    c.available = row ? row->available : 0;
    auto it = by_sku.find(sku);
    c.sold = it == by_sku.end() ? 0 : static_cast<int64_t>(it->second.size());
    c.in_service = service_stock(s, sku);
  }
  return out;
}

// After quiescence, per SKU: no unit was given back twice (for a design with an order lifecycle:
// available + sold <= initial in the database, and in the service that keeps the stock), and
// the service's stock equals the database's (the Redis-database gap is 0). A design with
// neither gives nothing back and keeps one store: nothing to judge.
std::optional<std::string> compensation_converges(const Simulation& s) {
  const int64_t compensations = s.history().counter("compensation.db");
  const std::vector<const db::OrderRow*> rows = s.db().committed_order_rows();
  const auto cancelled_orders = static_cast<int64_t>(std::count_if(rows.begin(), rows.end(), [](const db::OrderRow* o) { return was_cancelled(*o); }));
  // An order still pending once the run has quiesced (past its payment window and the 30 s the
  // conductor waits for pending orders): the cancel that should give its unit back never came.
  if (s.lifecycle() && s.history().quiesced()) {
    std::vector<const db::OrderRow*> stuck;
    for (const db::OrderRow* o : rows) {
      if (o->status == "pending") stuck.push_back(o);
    }
    if (!stuck.empty()) {
      return fmt::format("{}: {} order(s) still pending after quiescence, their units held with nobody left to cancel them ({})", stuck.front()->sku,
                         stuck.size(), list_ids(stuck));
    }
  }
  const std::string twice =
      compensations > cancelled_orders ? fmt::format(" ({} compensations committed for {} cancelled orders)", compensations, cancelled_orders) : "";
  for (const auto& [sku, c] : stock_counts(s)) {
    // A design that gives nothing back can hold a unit too many only by overselling (no_oversell's
    // finding); only its service's stock is compared with the database's.
    if (s.lifecycle() && c.available + c.sold > c.initial) {
      return fmt::format("{}: the database holds a unit more than the sale has: available {} + sold {} = {}, initial stock {}{}", sku, c.available, c.sold,
                         c.available + c.sold, c.initial, twice);
    }
    if (!c.in_service) continue;
    if (s.lifecycle() && *c.in_service + c.sold > c.initial) {
      return fmt::format("{}: {} holds a unit more than the sale has: stock {} + sold {} = {}, initial stock {}{}", sku, s.stock_store(), *c.in_service, c.sold,
                         *c.in_service + c.sold, c.initial, twice);
    }
    if (*c.in_service != c.available) {
      return fmt::format("{}: {} holds {} unit(s), the database {}: a gap of {} after quiescence", sku, s.stock_store(), *c.in_service, c.available,
                         *c.in_service - c.available);
    }
  }
  return std::nullopt;
}

// After quiescence, per SKU and per store (the database; the service, where the design keeps its
// stock there too): initial stock <= available + sold, a pending order holding its unit. A unit
// taken and neither sold nor given back has vanished (undersell).
std::optional<std::string> no_vanished_stock(const Simulation& s) {
  for (const auto& [sku, c] : stock_counts(s)) {
    if (c.available + c.sold < c.initial) {
      return fmt::format("{}: {} unit(s) vanished from the database: available {} + sold {} of an initial stock of {}", sku, c.initial - c.available - c.sold,
                         c.available, c.sold, c.initial);
    }
    if (c.in_service && *c.in_service + c.sold < c.initial) {
      return fmt::format("{}: {} unit(s) vanished from {}: stock {} + sold {} of an initial stock of {} (the database has {} available)", sku,
                         c.initial - *c.in_service - c.sold, s.stock_store(), *c.in_service, c.sold, c.initial, c.available);
    }
  }
  return std::nullopt;
}

// After quiescence: every write a Redis primary acknowledged to a client is in the history of
// the data clients reach now. The earliest one that is not, with how many more.
std::optional<std::string> no_lost_ack_write(const Simulation& s) {
  std::vector<protocols::LostWrite> lost;
  for (const auto& service : s.services()) service->lost_writes(lost);
  if (lost.empty()) return std::nullopt;
  const auto first = std::min_element(lost.begin(), lost.end(), [](const protocols::LostWrite& a, const protocols::LostWrite& b) {
    return std::tie(a.at, a.step) < std::tie(b.at, b.step);
  });
  return fmt::format("a write of {} that {} acknowledged to {} at {} is gone: {}{}", first->key, first->server, first->from, instant_text(first->at), first->why,
                     lost.size() > 1 ? fmt::format(" (and {} more acknowledged writes)", lost.size() - 1) : "");
}

std::optional<std::string> no_lost_order(const Simulation& s) {
  const auto orders = s.db().committed_orders();
  for (const auto& ack : s.history().acks) {
    if (orders.count(ack.order_id) == 0) {
      return fmt::format("buyer {} was told order {} succeeded at {}, but it is not in the database", ack.user, ack.order_id,
                         sim::format_instant(ack.at));
    }
  }
  return std::nullopt;
}

// When the design turned this buyer away: its last answer was sold out, busy or an error from
// the design (not the gateway's own failed, with no app node up); or it heard nothing, no fault
// struck while its request was open, and every attempt of its last click ended in such a refusal
// anyway (the design, slower than the gateway, said no after the gateway had stopped waiting).
// nullopt when it was not turned away by the design: it bought; an attempt of its last click
// died with its node, ended unknown or sold; or it heard nothing while a fault had struck.
struct Refusal {
  protocols::BuyResult said;
  Instant at;
};
std::optional<Refusal> refused_by_design(const Simulation& s, const protocols::BuyerAnswer& a,
                                         const std::multimap<std::string, const protocols::AttemptEnd*>& attempts) {
  using protocols::BuyResult;
  if (a.heard) {
    if (*a.heard == BuyResult::sold || a.no_app) return std::nullopt;
    return Refusal{*a.heard, a.answered};
  }
  std::optional<Refusal> last;
  auto [from, to] = attempts.equal_range(a.request_id);
  for (auto it = from; it != to; ++it) {
    const protocols::AttemptEnd& e = *it->second;
    if (!e.result || *e.result == BuyResult::sold || *e.result == BuyResult::unknown) return std::nullopt;
    if (!last || e.at > last->at) last = Refusal{*e.result, e.at};
  }
  if (!last) return std::nullopt;
  for (const sim::World::StruckFault& f : s.world().struck_faults()) {
    if (f.at <= last->at && f.until >= a.arrived) return std::nullopt;  // its silence may be the fault's
  }
  return last;
}

// Undersell, judged at the end once faults have healed and the run has quiesced, per SKU:
//  - a unit vanished: initial stock > available + committed orders (a unit taken from stock
//    and never sold: its order lost, its decrement kept);
//  - or units remain unsold (committed orders < initial stock) while the design turned away a
//    buyer of that SKU who never bought (refused_by_design), at a moment the SKU's committed
//    stock had not run out.
// A buyer who heard nothing because its attempt died with its app node, ended unknown, or while
// a fault had struck, is not the design's undersell, and neither is a buyer the gateway turned
// away with no app node up; nor is stock left over when nobody who wanted it was refused (demand
// below stock).
std::optional<std::string> progress(const Simulation& s) {
  if (!s.history().quiesced()) return std::string("the run did not quiesce (stopped at its horizon or deadlocked)");
  const auto orders = s.db().committed_orders();
  const auto by_sku = orders_by_sku(orders);
  std::set<std::pair<std::string, std::string>> bought;  // (user, sku) with a committed order
  for (const auto& [id, o] : orders) bought.insert({o.user, o.sku});
  std::multimap<std::string, const protocols::AttemptEnd*> attempts;
  for (const auto& e : s.history().attempt_ends) attempts.emplace(e.request_id, &e);
  for (const std::string& sku : s.skus()) {
    const int64_t initial = s.initial_stock(sku);
    const auto row = s.db().committed_stock(sku);
    const int64_t available = row ? row->available : 0;
    auto it = by_sku.find(sku);
    const auto sold = it == by_sku.end() ? 0 : static_cast<int64_t>(it->second.size());
    if (available + sold < initial) {
      return fmt::format("{}: {} unit(s) vanished, neither available nor sold: available {} + sold {} of an initial stock of {} (undersell)", sku,
                         initial - available - sold, available, sold, initial);
    }
    // A unit whose order was cancelled (never paid) or voided (never written, a reconciler gave
    // it back) was taken and came back; a buyer turned away while it was taken was told the truth. One lost on its way back has vanished (above, and
    // no_vanished_stock).
    int64_t returned = 0;
    if (s.lifecycle()) {
      for (const auto& [id, o] : orders) returned += o.sku == sku && !counts_as_sold(o) ? 1 : 0;
    }
    if (sold + returned >= initial) continue;
    for (const protocols::BuyerAnswer& a : s.history().answers) {
      if (a.sku != sku || bought.count({a.user, a.sku}) > 0) continue;
      const std::optional<Refusal> refusal = refused_by_design(s, a, attempts);
      if (!refusal || !s.history().stock_remained(sku, refusal->at)) continue;
      const std::string said = a.heard ? fmt::format("buyer {} was told {} at {}", a.user, protocols::to_string(refusal->said), instant_text(refusal->at))
                                       : fmt::format("the design answered buyer {} {} at {}, after the gateway had stopped waiting,", a.user,
                                                     protocols::to_string(refusal->said), instant_text(refusal->at));
      return fmt::format("{}: {} of {} units left unsold while {} with units left (undersell)", sku, initial - sold, initial, said);
    }
  }
  return std::nullopt;
}

// The lease a client reckoned it had runs out while it still believes it holds the lock. The
// lease runs from the acquisition (or RedLock's validity) and each renewal that succeeded
// extends it to when that renewal was sent + ttl (a watchdog): it is judged against the last
// renewal before the release, and a renewal sent after the lease had already run out came too
// late (the lease lapsed in between, whatever the server still had).
std::optional<std::string> lease_expired_while_held(const Simulation& s) {
  for (const auto& l : s.history().locks) {
    if (l.lease_ends == Instant::max()) continue;
    Instant ends = l.lease_ends;
    std::optional<Instant> last_renewal;
    bool late = false;
    for (const Instant renewal : l.renewed) {
      if (renewal > ends) {
        late = true;
        break;
      }
      ends = std::max(ends, renewal + l.ttl);
      last_renewal = renewal;
    }
    if (!late && l.released <= ends) continue;
    std::string why;
    if (l.lease_ends <= l.acquired) {
      why = fmt::format(" (the lease had run out {} before it took the lock)", sim::format_duration(l.acquired - l.lease_ends));
    } else if (last_renewal) {
      why = fmt::format(" (its last renewal, sent at {}, ran to {}{})", instant_text(*last_renewal), instant_text(ends), late ? "; the next was sent after that" : "");
    } else if (late) {
      why = fmt::format(" (it ran to {}; the first renewal was sent after that)", instant_text(ends));
    } else if (l.lease_ends != l.acquired + l.ttl) {
      why = fmt::format(" (it ended {} after the lock was taken)", sim::format_duration(l.lease_ends - l.acquired));
    }
    return fmt::format("{} believed it held {} for longer than its {} lease{}", l.holder, l.key, sim::format_duration(l.ttl), why);
  }
  return std::nullopt;
}

// A fault struck the holder's node or a node of the lock service while a client believed it held
// a lock: the moment the locks' failure modes are about. A fault elsewhere, or between holdings,
// tests nothing of the lock.
std::optional<std::string> fault_hit_held_lock(const Simulation& s) {
  const auto& struck = s.world().struck_faults();
  if (struck.empty()) return std::nullopt;
  const std::vector<std::string> lock_nodes = Simulation::roles(s.scenario(), s.design()).lock_nodes;
  for (const sim::World::StruckFault& f : struck) {
    for (const auto& l : s.history().locks) {
      // The fault's span [at, until] meets the holding [acquired, released], while units of the
      // holder's SKU remained: a lock that guards a sold-out SKU has nothing left to protect.
      if (f.until < l.acquired || f.at > l.released) continue;  // a crash ends the holding at its own instant
      if (!s.history().stock_remained(l.sku, std::max(f.at, l.acquired))) continue;
      for (const std::string& n : f.nodes) {
        if (n == l.node || std::find(lock_nodes.begin(), lock_nodes.end(), n) != lock_nodes.end()) {
          const std::string at = instant_text(f.at);
          return fmt::format("a fault on {} struck at {} {} {} held {}", n, at, f.at < l.acquired ? "and lasted while" : "while", l.holder, l.key);
        }
      }
    }
  }
  return std::nullopt;
}

// A fault struck (or, a pause or a cut, lasted) while units remained: the sale still had stock to
// oversell or to leave unsold. A fault that first strikes after the last SKU ran out tests
// nothing of the sale.
std::optional<std::string> fault_struck_during_sale(const Simulation& s) {
  const auto& struck = s.world().struck_faults();
  if (struck.empty()) return std::nullopt;
  const Instant sold_out_at = s.history().all_sold_out_at(s.skus().size());
  for (const sim::World::StruckFault& f : struck) {
    if (f.at < sold_out_at) {
      const std::string at = instant_text(f.at);
      const std::string node = f.nodes.empty() ? std::string("the network") : f.nodes.front();
      if (sold_out_at == Instant::max()) return fmt::format("a fault on {} struck at {}; units remained to the end", node, at);
      return fmt::format("a fault on {} struck at {}, {} before the sell-out", node, at, sim::format_span(sold_out_at - f.at));
    }
  }
  return std::nullopt;
}

// A buyer whose purchase committed was told no: its last answer was sold out, busy or an error
// while an order for it (its user, SKU and activity) is in the database. A customer charged and
// told the purchase failed; it clicks elsewhere, calls support, or buys twice.
std::optional<std::string> no_told_wrong(const Simulation& s) {
  const std::vector<ToldWrong> wrong = told_wrong(s);
  if (wrong.empty()) return std::nullopt;
  const protocols::BuyerAnswer& a = *wrong.front().answer;
  const std::string at = instant_text(a.answered);
  return fmt::format("buyer {} was told {} at {}, but order {} is committed for it{}", a.user, protocols::to_string(*a.heard), at, wrong.front().order_id,
                     wrong.size() > 1 ? fmt::format(" (and {} more buyers told wrongly)", wrong.size() - 1) : "");
}

std::optional<std::string> sold_out(const Simulation& s) {
  for (const std::string& sku : s.skus()) {
    const auto row = s.db().committed_stock(sku);
    if (row && row->available == 0) return fmt::format("{} sold out", sku);
  }
  return std::nullopt;
}

std::optional<std::string> lock_contended(const Simulation& s) {
  const int64_t n = s.history().counter("lock.contended");
  if (n > 0) return fmt::format("{} lock acquisitions had to wait", n);
  return std::nullopt;
}

std::optional<std::string> ambiguous_outcome(const Simulation& s) {
  auto it = s.history().results.find(protocols::BuyResult::unknown);
  if (it != s.history().results.end() && it->second > 0) return fmt::format("{} purchases ended with an unknown outcome", it->second);
  return std::nullopt;
}

std::optional<std::string> request_sent_twice(const Simulation& s) {
  const int64_t retries = s.history().counter("retry.gateway");
  const int64_t clicks = s.history().counter("click.double");
  if (retries + clicks == 0) return std::nullopt;
  return fmt::format("the gateway sent a request again {} time(s) and buyers clicked twice {} time(s)", retries, clicks);
}

std::optional<std::string> late_quorum_taken(const Simulation& s) {
  const int64_t late = s.history().counter("redlock.took-late-quorum");
  if (late == 0) return std::nullopt;
  return fmt::format("a RedLock client took a quorum whose validity had run out {} time(s)", late);
}

}  // namespace

const std::vector<Property>& catalogue() {
  static const std::vector<Property> all = {
      {"no_oversell", Kind::always, Category::business,
       "per SKU: committed orders <= initial stock, available >= 0, buyers told 'sold' <= initial stock", no_oversell},
      {"no_duplicate_order", Kind::always, Category::business, "at most one order per (user, SKU, activity) and per request id",
       no_duplicate_order},
      {"no_lost_order", Kind::eventually, Category::business, "every order acknowledged to a buyer exists in the database", no_lost_order},
      {"no_told_wrong", Kind::eventually, Category::business,
       "no buyer is told sold out, busy or an error while an order is committed for it (charged and told no)", no_told_wrong},
      {"ledger_conservation", Kind::eventually, Category::business,
       "per SKU: available + sold = initial, and the ledger (when written) sums to the stock's movement", ledger_conservation},
      {"compensation_converges", Kind::eventually, Category::business,
       "per SKU after quiescence: no unit given back twice and no order left pending (designs with an order lifecycle: available + sold <= "
       "initial in the database and in Redis) and the Redis-database stock gap is 0 (designs that keep their stock in Redis)",
       compensation_converges},
      {"no_vanished_stock", Kind::eventually, Category::business,
       "per SKU after quiescence, in the database and in Redis separately: initial stock <= available + sold (pending orders hold their unit); "
       "a unit taken and neither sold nor given back vanished",
       no_vanished_stock},
      {"lock_mutual_exclusion", Kind::always, Category::mechanism,
       "no two clients believe they hold the same lock at the same true time (the overlap is the witness)", nullptr,
       first_lock_overlap},
      {"no_foreign_unlock", Kind::always, Category::mechanism,
       "no client's DEL removes a lock key another client still believes it holds (release without a token compare)",
       nullptr, first_foreign_unlock},
      {"no_lost_update", Kind::always, Category::mechanism,
       "no committed read-then-write overwrote a stock change made after its read (a lost update)", no_lost_update},
      {"no_lost_ack_write", Kind::eventually, Category::mechanism,
       "every write a Redis primary acknowledged to a client is in the history of the primary at the end (a failover to a replica that lacked it, "
       "a split brain's old primary resynced, or a restart without persistence loses it)",
       no_lost_ack_write},
      {"per_sku_serialization", Kind::always, Category::mechanism,
       "at most one consumer works on a SKU's queue records at a time (a consumer stalled past max.poll.interval and the member its partition went "
       "to overlap)",
       nullptr, first_serialization_break},
      {"progress", Kind::eventually, Category::liveness,
       "no undersell once faults heal: no unit vanishes (initial = available + sold), and none stays unsold while the design turned away a buyer "
       "of it who never bought (not one killed with its node or left unanswered by a fault)",
       progress},
      {"lease_expired_while_held", Kind::sometimes, Category::coverage,
       "a client held a lock past its lease, counted from the acquisition or from the last renewal that succeeded before the lease ran out (a watchdog's)",
       lease_expired_while_held, nullptr,
       true},
      {"late_quorum_taken", Kind::sometimes, Category::coverage,
       "a RedLock client took a quorum of keys as its lock after the lock's validity had run out (it skipped the validity check): the keys may "
       "already have expired",
       late_quorum_taken, nullptr, true},
      {"fault_hit_held_lock", Kind::sometimes, Category::coverage,
       "a fault struck the holder's node or the lock service while a client believed it held a lock and units of its SKU remained",
       fault_hit_held_lock},
      {"fault_struck_during_sale", Kind::sometimes, Category::coverage,
       "a fault struck while units remained (before the last SKU sold out): the run tested the sale, not its aftermath",
       fault_struck_during_sale},
      {"sold_out", Kind::sometimes, Category::coverage, "some SKU sold out", sold_out},
      {"lock_contended", Kind::sometimes, Category::coverage, "some buyer waited for the lock", lock_contended},
      {"check_constraint_fired", Kind::sometimes, Category::coverage,
       "CHECK (available >= 0) turned a statement down: the design's own guard let an oversell through to it",
       check_constraint_fired},
      {"where_rechecked_after_wait", Kind::sometimes, Category::coverage,
       "a conditional UPDATE waited for the row lock, re-read the committed row and its WHERE turned the buyer away",
       where_rechecked_after_wait},
      {"failover_happened", Kind::sometimes, Category::coverage, "Sentinel promoted a replica to primary during the run",
       failover_happened, nullptr, true},
      {"ambiguous_outcome", Kind::sometimes, Category::coverage, "some purchase ended with an unknown (timed-out) outcome", ambiguous_outcome,
       nullptr, true},
      {"request_sent_twice", Kind::sometimes, Category::coverage, "the same purchase request reached the app twice (a gateway retry or a double click)",
       request_sent_twice, nullptr, true},
  };
  return all;
}

const Property* find_property(const std::string& name) {
  for (const Property& p : catalogue()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

}  // namespace oversim::properties
