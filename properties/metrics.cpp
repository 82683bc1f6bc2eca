#include "properties/metrics.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>

namespace oversim::properties {

using protocols::BuyResult;
using sim::Duration;
using sim::Instant;

std::vector<ToldWrong> told_wrong(const protocols::Simulation& s) { return told_wrong(s, s.db().committed_orders()); }

std::vector<ToldWrong> told_wrong(const protocols::Simulation& s, const std::map<std::string, db::OrderRow>& orders) {
  std::vector<ToldWrong> out;
  std::map<std::tuple<std::string, std::string, std::string>, std::string> by_buyer;  // the first order id of each
  for (const auto& [id, o] : orders) by_buyer.emplace(std::tuple{o.user, o.sku, o.activity}, id);
  const std::string& activity = s.scenario().workload.activity;
  for (const protocols::BuyerAnswer& a : s.history().answers) {
    if (!a.heard || *a.heard == BuyResult::sold) continue;
    auto it = by_buyer.find(std::tuple{a.user, a.sku, activity});
    if (it != by_buyer.end()) out.push_back(ToldWrong{&a, it->second});
  }
  return out;
}

bool counts_as_sold(const db::OrderRow& o) { return o.status != "cancelled" && o.status != "compensated" && o.status != "void"; }
bool was_cancelled(const db::OrderRow& o) { return o.status == "cancelled" || o.status == "compensated"; }

std::optional<int64_t> service_stock(const protocols::Simulation& s, const std::string& sku) { return s.service_stock(sku); }

SaleMetrics metrics_of(const protocols::Simulation& s) {
  const protocols::History& h = s.history();
  const protocols::Workload& w = s.scenario().workload;
  SaleMetrics m;
  m.runs = 1;
  m.units = w.stock * static_cast<int64_t>(s.skus().size());
  const db::DbState& db = s.db().state();
  m.sold = db.committed_order_count();
  if (s.lifecycle()) {
    for (const db::OrderRow* o : db.committed_order_rows()) {
      if (was_cancelled(*o)) ++m.cancelled;
      if (o->status == "void") ++m.voided;
      if (o->status == "pending") ++m.pending_at_end;
    }
    m.sold -= m.cancelled + m.voided;
  }
  std::vector<std::string> acked;
  for (const protocols::OrderAck& a : h.acks) acked.push_back(a.order_id);
  std::sort(acked.begin(), acked.end());
  m.told_bought = static_cast<int64_t>(std::unique(acked.begin(), acked.end()) - acked.begin());
  if (h.first_sale_at != Instant::max()) m.first_unit.push_back(h.first_sale_at - Instant::zero());
  if (h.last_sale_at != Instant::max()) m.last_unit.push_back(h.last_sale_at - Instant::zero());
  const Instant sold_out = h.all_sold_out_at(s.skus().size());
  if (sold_out != Instant::max()) m.sell_out.push_back(sold_out - Instant::zero());
  // The window ends at the sell-out, or when the last buyer had its answer (the run's end when
  // it stopped before that).
  const Instant ended = sold_out != Instant::max()           ? sold_out
                        : h.sale_ended_at != Instant::max() ? h.sale_ended_at
                                                             : s.world().now();
  m.window_us = (ended - Instant::zero()).count_ns() / 1000;

  m.buyers = w.buyers;
  int64_t heard_nothing = 0;
  for (const protocols::BuyerAnswer& a : h.answers) {
    if (!a.heard) {
      ++heard_nothing;
      m.answer_times.push_back(Duration::max());
      continue;
    }
    m.answer_times.push_back(a.answered - a.arrived);
    switch (*a.heard) {
      case BuyResult::sold: ++m.bought; break;
      case BuyResult::sold_out: ++m.told_sold_out; break;
      default: ++m.turned_away; break;
    }
  }
  // A buyer with no recorded end was still waiting when the run stopped: it heard nothing.
  m.unanswered = heard_nothing + std::max<int64_t>(0, m.buyers - static_cast<int64_t>(h.answers.size()));
  m.answer_times.resize(static_cast<size_t>(std::max<int64_t>(m.buyers, static_cast<int64_t>(m.answer_times.size()))), Duration::max());
  const std::map<std::string, db::OrderRow> orders = s.db().committed_orders();
  m.told_wrong = static_cast<int64_t>(told_wrong(s, orders).size());

  m.lock_acquires = h.counter("lock.acquires");
  m.lock_gave_up = h.counter("lock.gave-up");
  m.lock_waits = h.lock_waits;
  m.deductions = db.deductions_applied() + db.deductions_refused();
  m.deductions_refused = db.deductions_refused();
  std::map<std::string, int64_t> sold_by_sku;
  for (const auto& [id, o] : orders) {
    if (counts_as_sold(o)) ++sold_by_sku[o.sku];
  }
  for (const std::string& sku : s.skus()) {
    const auto row = s.db().committed_stock(sku);
    const int64_t available = row ? row->available : 0;
    m.ledger_difference += std::llabs(s.initial_stock(sku) - available - sold_by_sku[sku]);
    if (const std::optional<int64_t> in_service = service_stock(s, sku)) m.stock_gap += std::llabs(*in_service - available);
  }
  m.stock_gap_max = std::max(h.stock_gap_max, m.stock_gap);
  m.layers = s.design().steps.service_stock || s.lifecycle() || s.design().steps.writes_later ? 1 : 0;
  m.compensations = h.counter("compensation.db");
  m.compensation_retries = h.counter("compensation.redis-retried");
  m.traffic = s.scenario().workload.rate_limit > 0 || s.design().steps.degrade != protocols::Steps::Degrade::none ? 1 : 0;
  m.shed_rate_limit = h.counter("shed.rate-limit");
  m.shed_degrade = h.counter("shed.degrade");
  m.breaker_opened = h.counter("breaker.opened");
  m.lock_unanswered = h.counter("lock.unanswered");
  m.queued = h.counter("degrade.queued");
  m.let_through = h.counter("degrade.let-through");
  std::set<std::pair<std::string, uint64_t>> records;
  for (const protocols::Processing& p : h.processing) {
    if (!records.emplace(p.sku, p.offset).second) ++m.redelivered;
  }
  return m;
}

void SaleMetrics::merge(const SaleMetrics& o) {
  auto append = [](std::vector<Duration>& to, const std::vector<Duration>& from) { to.insert(to.end(), from.begin(), from.end()); };
  runs += o.runs;
  units += o.units;
  sold += o.sold;
  told_bought += o.told_bought;
  append(first_unit, o.first_unit);
  append(last_unit, o.last_unit);
  append(sell_out, o.sell_out);
  window_us += o.window_us;
  buyers += o.buyers;
  bought += o.bought;
  told_sold_out += o.told_sold_out;
  turned_away += o.turned_away;
  unanswered += o.unanswered;
  told_wrong += o.told_wrong;
  append(answer_times, o.answer_times);
  lock_acquires += o.lock_acquires;
  lock_gave_up += o.lock_gave_up;
  append(lock_waits, o.lock_waits);
  deductions += o.deductions;
  deductions_refused += o.deductions_refused;
  ledger_difference += o.ledger_difference;
  layers += o.layers;
  cancelled += o.cancelled;
  compensations += o.compensations;
  compensation_retries += o.compensation_retries;
  voided += o.voided;
  pending_at_end += o.pending_at_end;
  stock_gap += o.stock_gap;
  stock_gap_max = std::max(stock_gap_max, o.stock_gap_max);
  redelivered += o.redelivered;
  traffic += o.traffic;
  shed_rate_limit += o.shed_rate_limit;
  shed_degrade += o.shed_degrade;
  breaker_opened += o.breaker_opened;
  lock_unanswered += o.lock_unanswered;
  queued += o.queued;
  let_through += o.let_through;
}

double SaleMetrics::orders_per_s() const {
  if (window_us <= 0) return 0;
  return static_cast<double>(sold) * 1e6 / static_cast<double>(window_us);
}

double SaleMetrics::sold_percent() const {
  if (units <= 0) return 0;
  return 100.0 * static_cast<double>(sold) / static_cast<double>(units);
}

std::optional<Duration> quantile(std::vector<Duration> values, int per_mille) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const size_t rank = (values.size() * static_cast<size_t>(per_mille) + 999) / 1000;
  return values[std::min(values.size() - 1, rank == 0 ? 0 : rank - 1)];
}

}  // namespace oversim::properties
