// read_modify_write: no lock at all, the baseline.
//
// Design: in one transaction, SELECT the stock, compute the new value in the application, write
// it back as a literal (`SET available = <n>`), insert the order, commit.
// Expected verdict: VIOLATES no_oversell under every profile, faults or not. Under READ
// COMMITTED two buyers read the same value and both write "one less": a lost update (PostgreSQL
// manual 13.2.1). Also violates no_duplicate_order under retries (no idempotency, no unique key).
// no_told_wrong: VIOLATED under chaos: a gateway retry (or a second click) after a lost reply finds
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
  const int64_t available = read.result.stock_rows.at(0).available;
  if (available < 1) return ctx.outcome(BuyResult::sold_out);
  ctx.remote_call();
  db::DbCall write = conn->execute(db::UpdateStock::on(ctx.sku).set_available_to(available - 1));
  if (!write.ok()) return ctx.outcome(failure_of(write));
  return insert_order_and_commit(ctx, *conn);
}

}  // namespace

extern const Design read_modify_write_design;
const Design read_modify_write_design{
    "read_modify_write", "no lock: SELECT, compute, UPDATE available = <literal>, INSERT order",
    "violates no_oversell everywhere (lost update under READ COMMITTED); violates no_told_wrong under chaos", buy, {}, {}, {}, Steps{.decrement = Steps::Decrement::literal}};  // the database alone

}  // namespace oversim::protocols
