// async_order_write: decrement now, write the order later from an in-memory queue.
//
// Design: the conditional decrement `UPDATE ... WHERE available >= 1` commits, the buyer is told
// "sold" at once, and the order row is written afterwards by a queue consumer on the app node
// (here: a fiber per queued order, after a queue delay) — a common way to shave latency off
// the purchase path.
// Expected verdict: HOLDS no_oversell everywhere (the database still arbitrates the stock).
// VIOLATES no_lost_order and ledger_conservation under app-crash: the queue lived in the
// process's memory, so the acknowledged orders in it die with it, and the stock they took never
// comes back (undersell, and customers holding receipts for orders that do not exist). The
// same under retries and chaos, where a writer that finds the pool exhausted drops its order.
// VIOLATES progress and no_vanished_stock wherever an order is dropped (app-crash, lost-replies,
// retries, chaos): the unit it took is neither available nor sold, a vanished unit.
#include "protocols/steps.h"
#include "sim/sync.h"

namespace oversim::protocols {
namespace {

constexpr Duration kQueueDelay = Duration::ms(50);

void enqueue_order_write(BuyContext& ctx, const db::OrderRow& row) {
  db::DbPool* pool = &ctx.db();
  ctx.world().spawn(&ctx.app(), "order-writer", [pool, row] {
    sim::sleep_for(kQueueDelay);
    std::optional<db::DbConnection> conn = pool->acquire();
    if (!conn) return;  // dropped: nobody retries (that is the design's weakness, not the point)
    conn->autocommit(db::InsertOrder{row});
  }, /*daemon=*/true);
}

BuyResult buy(BuyContext& ctx) {
  std::optional<db::DbConnection> conn = ctx.db().acquire();
  if (!conn) return ctx.outcome(BuyResult::busy);
  ctx.remote_call();
  db::DbCall take = conn->autocommit(db::UpdateStock::on(ctx.sku).decrement(1).where_available_at_least(1));
  if (!take.ok()) return ctx.outcome(failure_of(take));
  if (take.rows() == 0) return ctx.outcome(BuyResult::sold_out);
  const std::string order = ctx.new_order_id();
  enqueue_order_write(ctx, ctx.order_row(order));
  return ctx.sold(order);
}

}  // namespace

extern const Design async_order_write_design;
const Design async_order_write_design{"async_order_write", "UPDATE ... WHERE available >= 1, ack, then INSERT the order from an in-memory queue",
                                      "holds no_oversell; violates no_lost_order and ledger_conservation under app-crash", buy, {}, {}, {}, Steps{.decrement = Steps::Decrement::conditional}};  // the database alone

}  // namespace oversim::protocols
