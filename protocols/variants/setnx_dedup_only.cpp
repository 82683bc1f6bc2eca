// setnx_dedup_only: one purchase per buyer, remembered only in Redis.
//
// Design: `SET dedup:{activity}:{user}:{sku} {request} NX PX 600000` first (the usual "one per
// customer" gate of a flash sale); when the key exists this buyer already bought or is buying,
// so answer with the order it made, if there is one yet. Then, in one transaction, the
// conditional decrement `UPDATE ... WHERE available >= 1`, the order insert and the commit. A
// purchase that certainly made no order (sold out, refused, no connection) deletes its key so
// the buyer can try again; an ambiguous one keeps it. No lock (the database arbitrates the
// stock) and no unique index on orders: Redis is the only thing that knows a buyer was seen.
// When Redis does not answer, the purchase goes on (failing open keeps the sale selling while
// the cache is down, the usual choice).
// Expected verdict: HOLDS no_oversell under every profile (the conditional decrement).
// HOLDS no_duplicate_order under retries and chaos, where Redis keeps its keys: a gateway retry
// or a click again finds the key. VIOLATES no_duplicate_order when the key is lost or out of
// reach while a repeat comes: under failover+retries the crashed primary takes a key written
// but not yet replicated with it, or the repeat's SET times out during the failover and goes
// on, and the second attempt makes a second order; nothing in the database stops it.
#include "protocols/steps.h"

namespace oversim::protocols {
namespace {

std::string dedup_key(BuyContext& ctx) { return "dedup:" + ctx.activity() + ":" + ctx.user + ":" + ctx.sku; }

// This buyer was seen: answer with the order it made, if it exists yet.
BuyResult answer_repeat(BuyContext& ctx) {
  ctx.count("idempotency.repeat");
  std::optional<db::DbConnection> conn = ctx.db().acquire();
  if (!conn) return ctx.outcome(BuyResult::busy);
  db::DbCall found = conn->autocommit(db::SelectOrderByUserSkuActivity{ctx.user, ctx.sku, ctx.activity()});
  if (!found.ok()) return ctx.outcome(failure_of(found));
  if (found.result.order_rows.empty()) return ctx.outcome(BuyResult::busy);  // still in flight
  return ctx.sold(found.result.order_rows.front().order_id);
}

BuyResult purchase(BuyContext& ctx) {
  std::optional<db::DbConnection> conn = ctx.db().acquire();
  if (!conn) return ctx.outcome(BuyResult::busy);
  ctx.remote_call();
  conn->begin();
  db::DbCall take = conn->execute(db::UpdateStock::on(ctx.sku).decrement(1).where_available_at_least(1));
  if (!take.ok()) return ctx.outcome(failure_of(take));
  if (take.rows() == 0) return ctx.outcome(BuyResult::sold_out);
  return insert_order_and_commit(ctx, *conn);
}

BuyResult buy(BuyContext& ctx) {
  const std::string key = dedup_key(ctx);
  auto first = ctx.redis().call(redis::Command::set_nx_px(key, ctx.request_id, 600'000));
  if (first.ok() && first.value->kind() == redis::Reply::Kind::nil) return answer_repeat(ctx);
  if (!first.ok()) ctx.count("idempotency.unchecked");  // Redis did not answer: fail open
  const BuyResult r = purchase(ctx);
  // No order for certain: let the buyer try again (best effort: a lost DEL keeps the key).
  if (r == BuyResult::sold_out || r == BuyResult::busy || r == BuyResult::failed) ctx.redis().call(redis::Command::del(key));
  return r;
}

}  // namespace

extern const Design setnx_dedup_only_design;
const Design setnx_dedup_only_design{"setnx_dedup_only", "SET NX PX per buyer in Redis as the only duplicate check, UPDATE ... WHERE available >= 1",
                                     "holds no_oversell; violates no_duplicate_order when a failover loses the key before a repeat", buy, {}, {"redis"}, {},
                                     Steps{.decrement = Steps::Decrement::conditional, .idempotency_key = true, .takes_lock = false}};

}  // namespace oversim::protocols
