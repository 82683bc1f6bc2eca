// db_decrement_checked: no lock; the application checks the stock, and CHECK (available >= 0)
// is what stops the last unit selling twice.
//
// Design: in one transaction, SELECT the stock; none left means sold out; the remote call;
// `UPDATE stock SET available = available - 1` (no stock condition in the WHERE); insert the
// order; commit.
// Expected verdict: HOLDS no_oversell everywhere, on the constraint alone: two buyers read the
// last unit, the second's UPDATE waits for the first's row lock, re-reads the committed row
// (PostgreSQL manual 13.2.1) and would write -1, and CHECK (available >= 0) turns it down
// (SQLSTATE 23514): the buyer is told "failed", not "sold out". check_constraint_fired is
// reached, which in any other design means its own guard failed. Violates no_duplicate_order
// under retries and chaos (no idempotency key). progress holds: the buyers left without a unit
// were killed with their node or heard nothing during a fault, which is not the design's
// undersell. db_decrement_mysql57 is the same code where the CHECK is not enforced.
// no_told_wrong: VIOLATED under retries and chaos: a gateway retry (or a second click) after a lost reply finds
// the stock its own first attempt took, or its key taken, and the buyer who bought is told no.
#include "protocols/steps.h"

namespace oversim::protocols {
namespace {

BuyResult buy(BuyContext& ctx) {
  std::optional<db::DbConnection> conn = ctx.db().acquire();
  if (!conn) return ctx.outcome(BuyResult::busy);
  conn->begin();
  db::DbCall read = conn->execute(db::SelectStock{ctx.sku});
  if (!read.ok()) return ctx.outcome(failure_of(read));
  if (read.result.stock_rows.at(0).available < 1) return ctx.outcome(BuyResult::sold_out);
  ctx.remote_call();
  db::DbCall take = conn->execute(db::UpdateStock::on(ctx.sku).decrement(1));
  if (!take.ok()) return ctx.outcome(failure_of(take));
  return insert_order_and_commit(ctx, *conn);
}

}  // namespace

extern const Design db_decrement_checked_design;
const Design db_decrement_checked_design{
    "db_decrement_checked", "no lock: SELECT, check in the app, UPDATE available = available - 1 guarded only by CHECK (available >= 0)",
    "holds no_oversell everywhere, on CHECK alone (it turns the second buyer of the last unit down); violates no_duplicate_order under retries and chaos; violates no_told_wrong under retries and chaos",
    buy, {}, {}, {}, Steps{.decrement = Steps::Decrement::relative}};  // the database alone

}  // namespace oversim::protocols
