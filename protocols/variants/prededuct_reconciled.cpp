// prededuct_reconciled: the article's ledger layer done right: idempotent compensation
// driven by the order's state, and a reconciler that finds units taken for orders never written.
//
// Design: stock in Redis; the purchase takes a unit with `decr_and_reserve`, which also leaves a
// numbered record `resv:{sku}:<n>` = "order|user|request|created_at" in the same script, then
// writes the order as 'pending' (mirror decrement, INSERT, COMMIT) and tells the buyer "sold".
// Every give-back of an order's unit, wherever it comes from, is `EVAL incr_once stock:{sku}
// comp:{order} 1`: the marker and the increment in one script, so it applies once per order.
// Cancel (the page's, when the payment window closes, and the order-timeout job's on every
// node) is the article's state machine, pending -> cancelled -> compensated, each step guarded
// by the status it leaves: one transaction `UPDATE orders SET status = 'cancelled' WHERE
// order_id = ... AND status = 'pending'` (0 rows: someone else cancelled it or it was paid,
// nothing more to do) and `available = available + 1`, COMMIT; then the give-back, and once
// Redis answered it, `... SET status = 'compensated' WHERE ... AND status = 'cancelled'`.
// The reconciler (every 500ms on every node) drives what a canceller left half done: an order
// 'cancelled' for more than 2s gets its give-back (a no-op if it had applied) and becomes
// 'compensated'. It also walks the reservation records in order. A record older than 2s whose
// order is in the database is dropped (pending: it waits; void: given back first). A record
// with no order: the reconciler claims the order id with a 'void' row (the primary key fences
// the purchase, should it still be running: its INSERT then fails and its give-back is the
// same no-op), then gives the unit back.
// Expected verdict: HOLDS no_oversell, compensation_converges and no_vanished_stock under every
// profile that leaves Redis its data (none, gc-pause, slow-rpc, clock-drift, app-crash,
// lost-replies): a process that dies between the decrement and the order write leaves a record,
// and the unit comes back within the grace time; a give-back Redis did not answer is driven to
// completion from the database. VIOLATES no_oversell, compensation_converges and
// no_vanished_stock under failover: an unreplicated decrement and its record are lost together
// (the unit sells again), and so is a give-back Redis acknowledged before the crash (the order
// is 'compensated', the unit gone). VIOLATES no_duplicate_order under retries (no idempotency
// key on the purchase).
#include <charconv>

#include <fmt/format.h>

#include "protocols/steps.h"

namespace oversim::protocols {
namespace {

constexpr Duration kGrace = Duration::s(2);

BuyResult buy(BuyContext& ctx) { return take_stock_and_write_pending_order(ctx, GiveBack::once); }

void cancel(JobContext& ctx, const db::OrderRow& order) {
  std::optional<db::DbConnection> conn = ctx.db().acquire();
  if (!conn) return;
  // Failed with the commit unanswered: the reconciler finds the order cancelled and gives back.
  if (cancel_pending_order(ctx, *conn, order.order_id, order.sku) != Cancel::cancelled) return;
  if (give_back_to_redis(ctx, order.sku, order.order_id, GiveBack::once)) {
    conn->autocommit(db::UpdateOrderStatus{order.order_id, "compensated", "cancelled"});
  }
}

int64_t number(const std::string& text) {
  int64_t v = 0;
  std::from_chars(text.data(), text.data() + text.size(), v);
  return v;
}

// One reservation record, settled: true to move on to the next one.
bool settle(JobContext& ctx, const std::string& sku, const std::string& record) {
  const size_t a = record.find('|'), b = record.find('|', a + 1), c = record.find('|', b + 1);
  if (c == std::string::npos) return true;  // not a record
  const std::string order = record.substr(0, a);
  if (ctx.app().local_now().ns() - number(record.substr(c + 1)) < kGrace.count_ns()) return false;  // its purchase may be running
  std::optional<db::DbConnection> conn = ctx.db().acquire();
  if (!conn) return false;
  db::DbCall found = conn->autocommit(db::SelectOrderById{order});
  if (!found.ok()) return false;
  if (!found.result.order_rows.empty()) {
    const std::string& status = found.result.order_rows.front().status;
    if (status == "pending") return false;
    if (status == "void") return give_back_to_redis(ctx, sku, order, GiveBack::once);
    return true;  // paid; or cancelled, which the scan below finishes
  }
  const db::OrderRow tombstone{order, "void:" + order, sku, ctx.simulation().scenario().workload.activity, "void:" + order, "void"};
  db::DbCall claim = conn->autocommit(db::InsertOrder{tombstone});
  if (!claim.ok()) return false;  // written meanwhile (the primary key), or no answer: look again
  ctx.count("reconcile.voided");
  return give_back_to_redis(ctx, sku, order, GiveBack::once);
}

// The compensation state machine's last step, driven from the database: an order cancelled
// more than the grace time ago whose give-back was never confirmed (the canceller died, or Redis
// did not answer it three times) is given back, once, and marked compensated.
void finish_compensations(JobContext& ctx) {
  std::optional<db::DbConnection> conn = ctx.db().acquire();
  if (!conn) return;
  const int64_t before = (ctx.app().local_now() - kGrace).ns();
  db::DbCall cancelled = conn->autocommit(db::SelectOrdersByStatus{before, 10, "cancelled"});
  if (!cancelled.ok()) return;
  for (const db::OrderRow& row : cancelled.result.order_rows) {
    if (!give_back_to_redis(ctx, row.sku, row.order_id, GiveBack::once)) return;
    ctx.count("reconcile.compensated");
    conn->autocommit(db::UpdateOrderStatus{row.order_id, "compensated", "cancelled"});
  }
}

void reconcile(JobContext& ctx) {
  std::map<std::string, int64_t> next;  // per SKU, the first record not settled yet
  for (;;) {
    sim::sleep_for(Duration::ms(500));
    finish_compensations(ctx);
    for (const std::string& sku : ctx.simulation().skus()) {
      auto last = ctx.redis().call(redis::Command::get("resv:" + sku));
      if (!last.ok() || last.value->kind() != redis::Reply::Kind::bulk) continue;
      int64_t& n = next.try_emplace(sku, 1).first->second;
      for (const int64_t end = number(last.value->as_bulk()); n <= end; ++n) {
        const std::string key = fmt::format("resv:{}:{}", sku, n);
        auto record = ctx.redis().call(redis::Command::get(key));
        if (!record.ok()) break;
        if (record.value->kind() == redis::Reply::Kind::bulk && !settle(ctx, sku, record.value->as_bulk())) break;
        ctx.redis().call(redis::Command::del(key));
      }
    }
  }
}

}  // namespace

extern const Design prededuct_reconciled_design;
const Design prededuct_reconciled_design{
    "prededuct_reconciled",
    "stock in Redis with a reservation record per unit; cancels guarded by status, every give-back once per order, a reconciler voids orders never written",
    "holds no_oversell, compensation_converges and no_vanished_stock where Redis keeps its data, app-crash included; violates them under failover",
    buy, {}, {"redis"},
    {redis_is_the_arbiter()},
    Steps{.decrement = Steps::Decrement::relative, .takes_lock = false, .service_stock = true, .compensation = Steps::Compensation::guarded, .give_back_once = true, .reconciles = true},
    {Job{"order-timeout", cancel_expired_orders}, Job{"reconciler", reconcile}},
    cancel};

}  // namespace oversim::protocols
