// token_bucket_degrade: the article's traffic layer in front of a lock and the conditional
// decrement.
//
// Design: the gateway's token bucket admits --rate-limit requests a second (this design's
// default: 100, in bursts of --rate-burst, 10) and answers the rest busy at once, before an app
// node sees them. Each app node keeps a circuit breaker on its Redis (protocols/traffic.h): three
// acquisitions in a row that Redis did not answer open it for 1s; while it is open a purchase is
// rejected at once (busy: the sale pauses and nothing reaches the database without the lock),
// then one probe tries Redis again and an answer closes it. Under the lock, `UPDATE ... WHERE
// available >= 1` is the arbiter, as in redis_lock_conditional; token-compare release.
// Expected verdict: HOLDS no_oversell under every profile, the lock service down included: the
// degrade path rejects, it never lets a purchase through unguarded (degrade_fail_open does, and
// oversells). lock_mutual_exclusion is violated where redis_lock_conditional's is (gc-pause,
// failover, partition, clock-jump, clock-drift, lock-restart, slow-rpc, lost-replies, retries,
// chaos), no_duplicate_order under retries and chaos (nothing makes a repeat idempotent), and
// no_told_wrong under retries and chaos (a retry finds the stock its own first attempt took).
#include "protocols/steps.h"

namespace oversim::protocols {
namespace {

BuyResult buy(BuyContext& ctx) {
  LockAttempt attempt = try_lock_with_breaker(ctx, ctx.lock_key(), ctx.workload().lock_ttl);
  if (attempt.lock_service_down()) {
    ctx.count("shed.degrade");  // rejected while Redis is down: the sale pauses
    return ctx.outcome(BuyResult::busy);
  }
  if (!attempt.lock) return ctx.outcome(BuyResult::busy);
  Finally release([&] { unlock_compare(ctx, *attempt.lock); });

  std::optional<db::DbConnection> conn = ctx.db().acquire();
  if (!conn) return ctx.outcome(BuyResult::busy);
  ctx.remote_call();
  conn->begin();
  db::DbCall take = conn->execute(db::UpdateStock::on(ctx.sku).decrement(1).bump().where_available_at_least(1));
  if (!take.ok()) return ctx.outcome(failure_of(take));
  if (take.rows() == 0) return ctx.outcome(BuyResult::sold_out);
  return insert_order_and_commit(ctx, *conn);
}

}  // namespace

extern const Design token_bucket_degrade_design;
const Design token_bucket_degrade_design{
    "token_bucket_degrade",
    "gateway token bucket + a circuit breaker on Redis that rejects while open, SET NX PX lock, UPDATE ... WHERE available >= 1, token-compare release",
    "holds no_oversell under every profile, the lock service down included (it sheds, never lets a purchase through unguarded)",
    buy,
    {},
    {"redis"},
    {{"--rate-limit", "100", "the design's token bucket at the gateway; type --rate-limit to size it for your sale", true}},
    Steps{.decrement = Steps::Decrement::conditional, .degrade = Steps::Degrade::reject}};

}  // namespace oversim::protocols
