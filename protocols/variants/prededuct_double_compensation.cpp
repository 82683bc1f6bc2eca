// prededuct_double_compensation: an unpaid order is cancelled by its page and by the
// timeout job, and both give its unit back.
//
// Design: stock in Redis (`stock:{sku}`), the Lua check-and-decrement decides; the purchase then
// writes the order as 'pending' (mirror decrement, INSERT, COMMIT) and tells the buyer "sold".
// An order not paid within the payment window is cancelled twice over, as many shops do it: the
// payment page's countdown sends a cancel when it reaches zero, and an order-timeout job on every
// app node scans for pending orders past the window. Both run the same cancel: read the order;
// if it is still 'pending', `UPDATE orders SET status = 'cancelled' WHERE order_id = ...` and
// `available = available + 1` in one transaction, then `INCRBY stock:{sku} 1` in Redis. The
// read and the update are two statements with no status condition on the update: check, then
// act.
// Expected verdict: VIOLATES compensation_converges (and ledger_conservation) under gc-pause and
// slow-rpc: a canceller paused or slowed between its read and its update lets the other one
// cancel and give the unit back, then does both again (the second UPDATE waits for the first's
// row lock, then overwrites 'cancelled' with 'cancelled'). Redis and the database then both
// hold one unit more than the sale has; with buyers still arriving after the payment window
// (--arrival poisson --poisson-mean 20ms --buyers 100 --stock 20) the page and the timeout job
// race without any fault, and it VIOLATES no_oversell: one order more than the stock. A large
// sale does the same (10,000 buyers and 100 units: the orders spread over 250ms, and the job's
// ticks meet the pages' cancels without a fault). Only the default burst of 20 buyers, whose
// orders all expire between two of the job's ticks, lets the page's cancel come first: HOLDS
// without faults there. As every Redis-stock design without a reconciler, VIOLATES no_oversell under
// failover, and no_vanished_stock where a purchase dies between the decrement and the order.
#include "protocols/steps.h"

namespace oversim::protocols {
namespace {

BuyResult buy(BuyContext& ctx) { return take_stock_and_write_pending_order(ctx, GiveBack::plain); }

void cancel(JobContext& ctx, const db::OrderRow& order) {
  std::optional<db::DbConnection> conn = ctx.db().acquire();
  if (!conn) return;
  db::DbCall read = conn->autocommit(db::SelectOrderById{order.order_id});
  if (!read.ok() || read.result.order_rows.empty() || read.result.order_rows.front().status != "pending") return;
  ctx.world().reach("before_compensate");
  conn->begin();
  if (!conn->execute(db::UpdateOrderStatus{order.order_id, "cancelled", std::nullopt}).ok()) return;
  if (!conn->execute(db::IncrementStock{order.sku, 1}).ok()) return;
  if (!conn->commit().ok()) return;
  ctx.count("compensation.db");
  give_back_to_redis(ctx, order.sku, order.order_id, GiveBack::plain);
}

}  // namespace

extern const Design prededuct_double_compensation_design;
const Design prededuct_double_compensation_design{
    "prededuct_double_compensation",
    "stock in Redis, orders pending payment; the page's cancel and a timeout job on every node both check-then-cancel and give the unit back",
    "violates compensation_converges under gc-pause and slow-rpc (a unit given back twice), no_oversell once buyers come back; violates no_oversell under failover",
    buy, {}, {"redis"},
    {redis_is_the_arbiter()},
    Steps{.decrement = Steps::Decrement::relative, .takes_lock = false, .service_stock = true, .compensation = Steps::Compensation::check_then_act},
    {Job{"order-timeout", cancel_expired_orders}},
    cancel};

}  // namespace oversim::protocols
