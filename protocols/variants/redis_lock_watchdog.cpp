// redis_lock_watchdog: lease renewal while working (Redisson's watchdog), unconditional write.
//
// Design: take the lock, start a watchdog fiber on the same app node that extends the lease
// (`EVAL pexpire_if_equals key token ttl`) every ttl/3, do the read-then-write, stop the
// watchdog, release with a token compare.
// Expected verdict: survives a slow remote call, but VIOLATES no_oversell under gc-pause: a
// stop-the-world pause stops the watchdog too, the lease expires, and the holder resumes to
// write a stale value. Also violates under failover, partition and clock-jump, like any lone
// lock, and no_duplicate_order under retries and chaos.
// no_told_wrong: VIOLATED under chaos: a gateway retry (or a second click) after a lost reply finds
// the stock its own first attempt took, or its key taken, and the buyer who bought is told no.
#include <memory>

#include "protocols/steps.h"
#include "sim/sync.h"

namespace oversim::protocols {
namespace {

void watchdog(BuyContext& ctx, const HeldLock& lock, const std::shared_ptr<bool>& stop) {
  const Duration period = ctx.workload().lock_ttl / 3;
  redis::RedisClient redis = ctx.redis();
  const int64_t ttl_ms = ctx.workload().lock_ttl.count_ms();
  // `ctx` lives as long as the purchase, and the purchase sets `stop` before it ends: check
  // `stop` after every wait before touching ctx.
  ctx.world().spawn(&ctx.app(), "watchdog", [&ctx, redis, lock, stop, period, ttl_ms]() mutable {
    while (!*stop) {
      sim::sleep_for(period);
      if (*stop) return;
      const sim::Instant sent = ctx.world().now();
      auto renew = redis.call(redis::Command::pexpire_if_equals(lock.key, lock.token, ttl_ms));
      if (*stop) return;
      if (!renew.ok() || renew.value->kind() != redis::Reply::Kind::integer) continue;  // unknown: the lease may not have moved
      if (renew.value->as_integer() == 0) {
        ctx.count("watchdog.lost");  // the lease was gone: nobody tells the holder (as in Redisson)
        return;
      }
      ctx.lease_renewed(lock.belief, sent);
    }
  }, /*daemon=*/true);
}

BuyResult buy(BuyContext& ctx) {
  std::optional<HeldLock> lock = try_lock(ctx, ctx.lock_key(), ctx.workload().lock_ttl);
  if (!lock) return ctx.outcome(BuyResult::busy);
  auto stop = std::make_shared<bool>(false);
  watchdog(ctx, *lock, stop);
  Finally release([&] {
    *stop = true;
    unlock_compare(ctx, *lock);
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

extern const Design redis_lock_watchdog_design;
const Design redis_lock_watchdog_design{"redis_lock_watchdog", "SET NX PX lock renewed every ttl/3 by a watchdog fiber, read-then-write stock",
                                        "survives slow work; violates no_oversell under gc-pause (the watchdog pauses too); violates no_told_wrong under chaos", buy, {}, {"redis"}, {}, Steps{.decrement = Steps::Decrement::literal, .renews_lease = true}};

}  // namespace oversim::protocols
