// db_decrement_mysql57: db_decrement_checked on a database that does not enforce CHECK.
//
// Design: the same code as db_decrement_checked (SELECT, check in the app, the remote call,
// `UPDATE stock SET available = available - 1`, insert the order, commit), written against
// CHECK (available >= 0) on a server that parses the constraint and ignores it: MySQL before
// 8.0.16 (MySQL 8.0 manual, 13.1.20.6, "Prior to MySQL 8.0.16, CREATE TABLE permits only the
// following limited version of table CHECK constraint syntax, which is parsed and ignored").
// It requires --check-constraint off, and READ COMMITTED: the model's REPEATABLE READ is
// PostgreSQL's (a concurrent update fails with 40001), where MySQL's REPEATABLE READ lets the
// UPDATE read the latest row and would still oversell.
// Expected verdict: VIOLATES no_oversell everywhere, faults or not: two buyers read the last
// unit, both decrement, and the stock goes to -1. Not a lost update (the decrement is
// relative), so no_lost_update holds; no_duplicate_order is violated under retries and chaos.
// progress holds (buyers killed or unanswered during a fault are not the design's undersell).
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

extern const Design db_decrement_mysql57_design;
const Design db_decrement_mysql57_design{
    "db_decrement_mysql57", "db_decrement_checked where CHECK is parsed and ignored (MySQL before 8.0.16)",
    "violates no_oversell everywhere (both buyers of the last unit decrement, to -1); violates no_told_wrong under retries and chaos", buy, {}, {},
    {{"--check-constraint", "off", "MySQL before 8.0.16 parsed CHECK constraints and ignored them"},
     {"--isolation", "read-committed", "the model's REPEATABLE READ is PostgreSQL's, which MySQL's is not"}}, Steps{.decrement = Steps::Decrement::relative}};

}  // namespace oversim::protocols
