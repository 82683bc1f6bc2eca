// degrade_fail_open: the degrade path the article warns against ("never let traffic through").
//
// Design: a Redis lock behind each app node's circuit breaker (as token_bucket_degrade's), and
// under it a read-then-write of the stock (SELECT, the remote call, `UPDATE available =
// <literal>`), which is right only while the lock holds. When Redis does not answer, or the
// breaker is open, the purchase goes on without the lock ("availability first": the sale must
// not stop); token-compare release when it has a lock.
// Expected verdict: VIOLATES no_oversell whenever the lock service is unreachable while stock
// remains: failover (the primary is down until Sentinel promotes its replica), partition (the
// buyer's app node is cut off from Redis) and lock-restart; tests/classics_test.cpp pins a Redis
// that is only down, with no lock lost, where this design oversells and token_bucket_degrade and
// redis_lock_conditional (no degrade path) do not. Also violates it where any read-then-write under a lease does (gc-pause,
// clock-jump, slow-rpc), no_duplicate_order under retries and chaos, and no_told_wrong under
// chaos (a gateway retry after a lost reply finds the stock its own first attempt took).
#include "protocols/steps.h"

namespace oversim::protocols {
namespace {

BuyResult buy(BuyContext& ctx) {
  LockAttempt attempt = try_lock_with_breaker(ctx, ctx.lock_key(), ctx.workload().lock_ttl);
  if (attempt.outcome == LockAttempt::Outcome::busy) return ctx.outcome(BuyResult::busy);
  if (attempt.lock_service_down()) ctx.count("degrade.let-through");
  Finally release([&] {
    if (attempt.lock) unlock_compare(ctx, *attempt.lock);
  });

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

extern const Design degrade_fail_open_design;
const Design degrade_fail_open_design{
    "degrade_fail_open",
    "SET NX PX lock behind a circuit breaker that lets purchases through without the lock while Redis is down, SELECT, UPDATE available = <literal>",
    "violates no_oversell whenever Redis is unreachable while stock remains (failover, partition, lock-restart), and where a lease fails",
    buy,
    {},
    {"redis"},
    {},
    Steps{.decrement = Steps::Decrement::literal, .degrade = Steps::Degrade::let_through}};

}  // namespace oversim::protocols
