// prededuct_expiry_compensation: an unpaid order is cancelled when its hold key expires in
// Redis, and the expiry reaches the application as a keyspace notification.
//
// Design: stock in Redis; the purchase takes a unit (the Lua check-and-decrement), writes the
// order as 'pending' (mirror decrement, INSERT, COMMIT), then sets `hold:{order}` with the
// payment window as its TTL (`SET hold:o-r3-1 1 PX 1000`) and tells the buyer "sold". A buyer
// who pays marks the order paid; its hold still expires, and is ignored then. Every app node
// runs a listener subscribed to expired events (`notify-keyspace-events Ex`, SUBSCRIBE
// __keyevent@0__:expired). On `hold:{order}` it cancels the order with a guarded step (`UPDATE
// orders SET status = 'cancelled' WHERE order_id = ... AND status = 'pending'`, `available =
// available + 1`, COMMIT) and then gives the unit back in Redis (`INCRBY`), once, since only
// one listener gets past the guard. The payment page's countdown only shows the time left; it
// sends nothing. No timeout job, no reconciliation: the expiry event is the only trigger.
// Expected verdict: HOLDS while a listener is connected when each hold expires (without faults,
// and under gc-pause, slow-rpc, clock-drift: a paused listener's events wait in its connection).
// VIOLATES compensation_converges where an expiry is never heard: under failover Pub/Sub's
// fire and forget loses the events of a promoted replica nobody has subscribed to yet, and hold
// keys are lost with the unreplicated writes (and, as every Redis-stock design, no_oversell);
// under app-crash and lost-replies, a purchase that dies (or loses its SET's reply) after the
// order's commit leaves an order no hold will ever cancel, and one that dies between the
// decrement and the commit takes the unit with it (no_vanished_stock). With one app node
// (--apps 1), a crash while a hold expires loses its event (the classics test).
#include "protocols/steps.h"

namespace oversim::protocols {
namespace {

BuyResult buy(BuyContext& ctx) {
  const BuyResult r = take_stock_and_write_pending_order(ctx, GiveBack::plain);
  if (r != BuyResult::sold) return r;
  const int64_t ttl_ms = ctx.workload().pay_window.count_ns() / 1'000'000;
  auto hold = ctx.redis().call(redis::Command::set_px("hold:" + ctx.sold_order(), "1", std::max<int64_t>(1, ttl_ms)));
  if (!hold.ok() || hold.value->is_error()) ctx.count("hold.not-set");  // nothing will cancel this order
  return r;
}

// The page's countdown reaching zero: nothing to send, the hold's expiry cancels the order.
void page_countdown(JobContext& ctx, const db::OrderRow&) { ctx.count("cancel.left-to-expiry"); }

void on_hold_expired(JobContext& ctx, const std::string& key) {
  const std::string order = key.substr(std::string("hold:").size());
  std::optional<db::DbConnection> conn = ctx.db().acquire();
  if (!conn) return;
  db::DbCall found = conn->autocommit(db::SelectOrderById{order});
  if (!found.ok() || found.result.order_rows.empty()) return;
  const std::string sku = found.result.order_rows.front().sku;
  if (cancel_pending_order(ctx, *conn, order, sku) != Cancel::cancelled) return;
  give_back_to_redis(ctx, sku, order, GiveBack::plain);
}

void listener(JobContext& ctx) { listen_for_expired(ctx, "hold:", on_hold_expired); }

}  // namespace

extern const Design prededuct_expiry_compensation_design;
const Design prededuct_expiry_compensation_design{
    "prededuct_expiry_compensation",
    "stock in Redis, orders pending payment with a hold key whose TTL is the window; a keyspace-notification listener cancels and gives back",
    "holds while a listener hears each expiry; violates compensation_converges when an expiry goes unheard (failover, app-crash: fire and forget, a hold never set)",
    buy, {}, {"redis"},
    {redis_is_the_arbiter()},
    Steps{.decrement = Steps::Decrement::relative, .takes_lock = false, .service_stock = true, .compensation = Steps::Compensation::guarded},
    {Job{"expiry-listener", listener}},
    page_countdown};

}  // namespace oversim::protocols
