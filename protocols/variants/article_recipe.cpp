// article_recipe: the article's five steps, all of them.
//
// Design:
//   1. idempotency before the lock: `SET idem:{request} 1 NX PX 600000`; a repeat request
//      answers with the order it already made; UNIQUE (user, sku, activity) and UNIQUE
//      (request_id) on orders back it up when Redis forgets;
//   2. per-SKU lock `lock:stock:{sku}` with tryLock and a timeout (fail fast when busy);
//   3. under the lock, the conditional decrement `... WHERE available >= 1` checking affected
//      rows, the order insert, and a ledger row (before, after, delta) in one transaction;
//   4. release in `finally` with a token compare;
//   5. (monitoring is oversim itself.)
// Expected verdict: HOLDS no_oversell and no_duplicate_order under every profile: the lock
// narrows concurrency, the fallbacks hold the line when it fails.
// no_told_wrong: VIOLATED under retries and chaos: a gateway retry (or a second click) after a lost reply finds
// the stock its own first attempt took, or its key taken, and the buyer who bought is told no.
#include "protocols/steps.h"

namespace oversim::protocols {
namespace {

// A repeated request: answer with the order the first one made, if it exists yet.
BuyResult answer_repeat(BuyContext& ctx) {
  ctx.count("idempotency.repeat");
  std::optional<db::DbConnection> conn = ctx.db().acquire();
  if (!conn) return ctx.outcome(BuyResult::busy);
  db::DbCall found = conn->autocommit(db::SelectOrderByRequestId{ctx.request_id});
  if (!found.ok()) return ctx.outcome(failure_of(found));
  if (found.result.order_rows.empty()) return ctx.outcome(BuyResult::busy);  // still in flight
  return ctx.sold(found.result.order_rows.front().order_id);
}

BuyResult buy(BuyContext& ctx) {
  auto first = ctx.redis().call(redis::Command::set_nx_px(ctx.idempotency_key(), "1", 600'000));
  if (first.ok() && first.value->kind() == redis::Reply::Kind::nil) return answer_repeat(ctx);
  // ok, or unknown (Redis timed out): go on; the unique indexes are the backstop.

  std::optional<HeldLock> lock = try_lock(ctx, ctx.lock_key(), ctx.workload().lock_ttl);
  if (!lock) return ctx.outcome(BuyResult::busy);
  Finally release([&] { unlock_compare(ctx, *lock); });

  std::optional<db::DbConnection> conn = ctx.db().acquire();
  if (!conn) return ctx.outcome(BuyResult::busy);
  ctx.remote_call();
  conn->begin();
  db::DbCall take = conn->execute(db::UpdateStock::on(ctx.sku).decrement(1).bump().where_available_at_least(1).returning_row());
  if (!take.ok()) return ctx.outcome(failure_of(take));
  if (take.rows() == 0) return ctx.outcome(BuyResult::sold_out);
  const int64_t after = take.result.stock_rows.at(0).available;
  const std::string order = ctx.new_order_id();
  db::DbCall insert = conn->execute(db::InsertOrder{ctx.order_row(order)});
  if (insert.status == db::CallStatus::ok && insert.result.kind == db::Outcome::UniqueViolation) {
    conn->rollback();
    return answer_repeat(ctx);
  }
  if (!insert.ok()) return ctx.outcome(failure_of(insert));
  db::DbCall ledger = conn->execute(db::InsertLedger{db::LedgerRow{order, ctx.sku, after + 1, after, -1, ctx.world().now().ns()}});
  if (!ledger.ok()) return ctx.outcome(failure_of(ledger));
  db::DbCall commit = conn->commit();
  if (!commit.ok()) return ctx.outcome(failure_of(commit));
  return ctx.sold(order);
}

}  // namespace

extern const Design article_recipe_design;
const Design article_recipe_design{"article_recipe",
                                   "idempotency key + unique indexes, per-SKU tryLock, conditional decrement + ledger, token-compare release",
                                   "holds no_oversell and no_duplicate_order under every profile; violates no_told_wrong under retries and chaos", buy,
                                   SchemaNeeds{.unique_user_sku_activity = true, .unique_request_id = true}, {"redis"}, {}, Steps{.decrement = Steps::Decrement::conditional, .idempotency_key = true, .ledger = true}};

}  // namespace oversim::protocols
