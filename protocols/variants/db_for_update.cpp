// db_for_update: a pessimistic row lock.
//
// Design: BEGIN; `SELECT ... FOR UPDATE` the stock row; if a unit is left, make the slow remote
// call while holding the row lock, decrement, insert the order, COMMIT.
// Expected verdict: HOLDS no_oversell under every profile (the row lock serializes buyers and
// the second reads the committed value, manual 13.3.2). The price is liveness: buyers queue on
// the row lock across the remote call, so waits hit lock_timeout and the pool runs dry.
// VIOLATES no_duplicate_order under retries and chaos: nothing makes a repeated purchase
// idempotent, so a gateway retry after a lost COMMIT reply buys twice.
// no_told_wrong: VIOLATED under retries and chaos: a gateway retry (or a second click) after a lost reply finds
// the stock its own first attempt took, or its key taken, and the buyer who bought is told no.
#include "protocols/steps.h"

namespace oversim::protocols {
namespace {

BuyResult buy(BuyContext& ctx) {
  std::optional<db::DbConnection> conn = ctx.db().acquire();
  if (!conn) return ctx.outcome(BuyResult::busy);
  conn->begin();
  db::DbCall row = conn->execute(db::SelectStock{ctx.sku, /*for_update=*/true});
  if (!row.ok()) return ctx.outcome(failure_of(row));
  if (row.result.stock_rows.at(0).available < 1) return ctx.outcome(BuyResult::sold_out);
  ctx.remote_call();
  db::DbCall take = conn->execute(db::UpdateStock::on(ctx.sku).decrement(1));
  if (!take.ok()) return ctx.outcome(failure_of(take));
  return insert_order_and_commit(ctx, *conn);
}

}  // namespace

extern const Design db_for_update_design;
const Design db_for_update_design{"db_for_update", "pessimistic: SELECT ... FOR UPDATE, remote call, decrement, INSERT order",
                                  "holds no_oversell everywhere; pays in lock waits and pool exhaustion; violates no_duplicate_order under retries and chaos; violates no_told_wrong under retries and chaos", buy, {}, {}, {}, Steps{.decrement = Steps::Decrement::row_locked}};  // the database alone

}  // namespace oversim::protocols
