// db_conditional_update: the database is the only guard.
//
// Design: in one transaction, `UPDATE stock SET available = available - 1 WHERE sku_id = ? AND
// available >= 1`; 0 rows means sold out; otherwise insert the order and commit.
// Expected verdict: HOLDS no_oversell under every profile: a waiting UPDATE re-evaluates its
// WHERE against the newly committed row (PostgreSQL manual 13.2.1), so the last unit is sold
// once. VIOLATES no_duplicate_order under retries and chaos: a gateway retry after a lost COMMIT
// reply buys again (no idempotency key, no unique index); chaos finds it only when it draws
// lost replies, so late (40 seeds of chaos may miss it; a 1000-seed sweep does not). Under
// lost-replies alone (no retry) the buyer hears nothing: not a duplicate, and not the design's
// undersell either (progress holds: the lost reply, a fault, left the unit unsold).
// no_told_wrong: VIOLATED under retries and chaos: a gateway retry (or a second click) after a lost reply finds
// the stock its own first attempt took, or its key taken, and the buyer who bought is told no.
#include "protocols/steps.h"

namespace oversim::protocols {
namespace {

BuyResult buy(BuyContext& ctx) {
  std::optional<db::DbConnection> conn = ctx.db().acquire();
  if (!conn) return ctx.outcome(BuyResult::busy);
  conn->begin();
  ctx.remote_call();
  db::DbCall take = conn->execute(db::UpdateStock::on(ctx.sku).decrement(1).where_available_at_least(1));
  if (!take.ok()) return ctx.outcome(failure_of(take));
  if (take.rows() == 0) return ctx.outcome(BuyResult::sold_out);
  return insert_order_and_commit(ctx, *conn);
}

}  // namespace

extern const Design db_conditional_update_design;
const Design db_conditional_update_design{
    "db_conditional_update", "no lock: UPDATE ... WHERE available >= 1, check affected rows, INSERT order",
    "holds no_oversell everywhere; violates no_duplicate_order under retries and chaos (a retry after a lost COMMIT reply); violates no_told_wrong under retries and chaos", buy, {}, {}, {}, Steps{.decrement = Steps::Decrement::conditional}};  // the database alone

}  // namespace oversim::protocols
