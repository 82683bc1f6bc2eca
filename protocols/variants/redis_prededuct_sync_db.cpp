// redis_prededuct_sync_db: Redis holds the stock and decides; the database mirrors it.
//
// Design: the stock is loaded into Redis before the sale (`stock:{sku}`). A purchase runs the
// Lua check-and-decrement `if GET(stock) - 1 >= 0 then DECRBY(stock, 1)` (-1: sold out); only a
// buyer Redis let through reaches the database, where one transaction mirrors the decrement
// (`UPDATE stock SET available = available - 1`, no stock condition: Redis already decided),
// inserts the order and commits. A purchase that certainly failed after the decrement gives
// the unit back (`INCRBY stock 1`); one whose outcome is unknown keeps it taken. No lock, no
// CHECK (the design names Redis the only arbiter), no reconciliation.
// Expected verdict: VIOLATES no_oversell under failover: the primary acknowledges a decrement
// and crashes before its replica has it, Sentinel promotes the replica, and the unit is sold
// again from a stock Redis no longer remembers taking; nothing in the database stops it.
// HOLDS no_oversell under the faults that leave Redis's data alone (gc-pause, slow-rpc,
// app-crash, lost-replies, retries): the Lua script is atomic, one decrement per unit.
// VIOLATES progress where a decrement's outcome is lost (the unit is taken in Redis and never
// sold: undersell), and with it no_vanished_stock and compensation_converges (Redis holds a unit
// fewer than the database; nothing reconciles them), and no_duplicate_order under retries
// (nothing makes a repeat idempotent).
#include "protocols/steps.h"

namespace oversim::protocols {
namespace {

BuyResult buy(BuyContext& ctx) {
  const StockTake take = take_service_stock(ctx);
  // Redis did not answer: "busy, try again" (the buyer clicks again); the unit it may have taken
  // stays taken.
  if (take == StockTake::unknown) return ctx.outcome(BuyResult::busy);
  if (take == StockTake::sold_out) return ctx.outcome(BuyResult::sold_out);

  std::optional<db::DbConnection> conn = ctx.db().acquire();
  if (!conn) {
    give_service_stock_back(ctx);
    return ctx.outcome(BuyResult::busy);
  }
  ctx.remote_call();
  conn->begin();
  db::DbCall mirror = conn->execute(db::UpdateStock::on(ctx.sku).decrement(1));
  if (!mirror.ok()) {
    if (!mirror.ambiguous()) give_service_stock_back(ctx);
    return ctx.outcome(failure_of(mirror));
  }
  const BuyResult r = insert_order_and_commit(ctx, *conn);
  if (r == BuyResult::failed) give_service_stock_back(ctx);
  return r;
}

}  // namespace

extern const Design redis_prededuct_sync_db_design;
const Design redis_prededuct_sync_db_design{
    "redis_prededuct_sync_db", "stock in Redis: Lua check-and-decrement decides, then UPDATE available = available - 1 + INSERT order in the database",
    "violates no_oversell under failover (an unreplicated decrement is lost); holds it where Redis keeps its data", buy, {}, {"redis"},
    {redis_is_the_arbiter()},
    Steps{.decrement = Steps::Decrement::relative, .takes_lock = false, .service_stock = true}};

}  // namespace oversim::protocols
