// db_conditional_lookup: the conditional decrement, and no "no" the orders table contradicts.
//
// Design: UNIQUE (user_id, sku_id, activity_id) on orders. In one transaction, `UPDATE stock SET
// available = available - 1 WHERE sku_id = ? AND available >= 1` and the order insert, as
// db_conditional_update. Before a buyer is told anything but "sold" (sold out, its unique key
// already taken, an error), the app looks up the buyer's order by (user, sku, activity), in a
// statement of its own after the purchase's transaction has ended: found, the buyer is told
// "sold" with that order (a gateway retry or a second click answers with the first purchase);
// not found, the "no" stands. When it cannot look (no connection, the lookup failed), it tells
// the buyer nothing definite (unknown): a "no" it cannot back may be false.
// Why the lookup is enough: the buyer's earlier attempt that is still in flight holds the stock
// row or the unique key, so this attempt's UPDATE or INSERT waits for it to end and then sees
// its order committed (or rolled back); a lookup after that wait finds what it committed.
// Expected verdict: HOLDS no_oversell, no_duplicate_order and no_told_wrong under every
// profile (no_told_wrong: a buyer told "sold out" or "busy" has no order). It pays in answers:
// where db_conditional_update says "busy", this design may say nothing.
#include "protocols/steps.h"

namespace oversim::protocols {
namespace {

// The buyer's committed order, if any: "sold" with it; otherwise `no`. Asked only for a definite
// "no", after the purchase's transaction has ended (its connection went back with a ROLLBACK);
// an ambiguous one (a call timed out: it may still commit) stays unknown, as does a "no" the
// app cannot check.
BuyResult answer_from_orders(BuyContext& ctx, BuyResult no) {
  if (no == BuyResult::unknown) return ctx.outcome(no);
  std::optional<db::DbConnection> conn = ctx.db().acquire();
  if (!conn) return ctx.outcome(BuyResult::unknown);
  db::DbCall found = conn->autocommit(db::SelectOrderByUserSkuActivity{ctx.user, ctx.sku, ctx.activity()});
  if (!found.ok()) return ctx.outcome(BuyResult::unknown);
  if (!found.result.order_rows.empty()) {
    ctx.count("lookup.found-order");
    return ctx.sold(found.result.order_rows.front().order_id);
  }
  return ctx.outcome(no);
}

BuyResult buy(BuyContext& ctx) {
  std::optional<db::DbConnection> conn = ctx.db().acquire();
  if (!conn) return ctx.outcome(BuyResult::unknown);  // it cannot look either
  conn->begin();
  ctx.remote_call();
  db::DbCall take = conn->execute(db::UpdateStock::on(ctx.sku).decrement(1).where_available_at_least(1));
  if (!take.ok() || take.rows() == 0) {
    conn.reset();
    return answer_from_orders(ctx, take.ok() ? BuyResult::sold_out : failure_of(take));
  }
  const std::string order = ctx.new_order_id();
  db::DbCall insert = conn->execute(db::InsertOrder{ctx.order_row(order)});  // UNIQUE (user, sku, activity)
  if (!insert.ok()) {
    conn.reset();
    return answer_from_orders(ctx, failure_of(insert));
  }
  db::DbCall commit = conn->commit();
  if (!commit.ok()) {
    conn.reset();
    return answer_from_orders(ctx, failure_of(commit));
  }
  return ctx.sold(order);
}

}  // namespace

extern const Design db_conditional_lookup_design;
const Design db_conditional_lookup_design{
    "db_conditional_lookup", "no lock: UPDATE ... WHERE available >= 1 + UNIQUE (user, sku, activity); every 'no' checked against the buyer's orders",
    "holds no_oversell, no_duplicate_order and no_told_wrong under every profile", buy,
    SchemaNeeds{.unique_user_sku_activity = true}, {}, {}, Steps{.decrement = Steps::Decrement::conditional}};  // the database alone

}  // namespace oversim::protocols
