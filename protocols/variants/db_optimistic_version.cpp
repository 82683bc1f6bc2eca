// db_optimistic_version: optimistic concurrency with a version column and bounded retries.
//
// Design: read (available, version); if a unit is left, make the remote call, then
// `UPDATE ... SET available = available - 1, version = version + 1 WHERE sku_id = ? AND
// available >= 1 AND version = v`; 0 rows means someone else won: retry up to
// optimistic_retries times, then give up.
// Expected verdict: HOLDS no_oversell under every profile. Under contention a burst of buyers
// keeps bumping the version and the losers run out of retries ("busy"); buyers who click again
// (--patience) buy the rest, with or without faults. With --patience 0 (one click each) the
// losers are turned away with stock left: VIOLATES progress (undersell), the liveness cost the
// article's checklist warns about. (Under the profiles, with patience, progress holds: buyers
// left without an answer heard nothing during a fault, which is not the design's.) VIOLATES
// no_duplicate_order under retries and chaos: a gateway retry after a lost COMMIT reply buys
// again (no idempotency).
// no_told_wrong: VIOLATED under retries and chaos: a gateway retry (or a second click) after a lost reply finds
// the stock its own first attempt took, or its key taken, and the buyer who bought is told no.
#include "protocols/steps.h"

namespace oversim::protocols {
namespace {

BuyResult buy(BuyContext& ctx) {
  for (int round = 0; round <= ctx.workload().optimistic_retries; ++round) {
    if (round > 0) ctx.count("optimistic.retry");
    std::optional<db::DbConnection> conn = ctx.db().acquire();
    if (!conn) return ctx.outcome(BuyResult::busy);
    db::DbCall read = conn->autocommit(db::SelectStock{ctx.sku});
    if (!read.ok()) return ctx.outcome(failure_of(read));
    const db::StockRow seen = read.result.stock_rows.at(0);
    if (seen.available < 1) return ctx.outcome(BuyResult::sold_out);
    ctx.remote_call();
    conn->begin();
    db::DbCall take = conn->execute(db::UpdateStock::on(ctx.sku).decrement(1).bump().where_available_at_least(1).where_version(seen.version));
    if (!take.ok()) return ctx.outcome(failure_of(take));
    if (take.rows() == 0) continue;  // lost the race; the connection rolls back on return
    return insert_order_and_commit(ctx, *conn);
  }
  ctx.count("optimistic.gave-up");
  return ctx.outcome(BuyResult::busy);
}

}  // namespace

extern const Design db_optimistic_version_design;
const Design db_optimistic_version_design{
    "db_optimistic_version", "optimistic: read version, UPDATE ... WHERE version = v AND available >= 1, bounded retries",
    "holds no_oversell everywhere; violates progress when losers of the version race do not click again (--patience 0) and no_duplicate_order under retries and chaos; violates no_told_wrong under retries and chaos", buy, {}, {}, {}, Steps{.decrement = Steps::Decrement::versioned}};  // the database alone

}  // namespace oversim::protocols
