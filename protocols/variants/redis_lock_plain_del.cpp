// redis_lock_plain_del: the incident pattern — release by plain DEL, read-then-write stock.
//
// Design: as redis_lock_read_modify_write, but the lock is released with `DEL key`, without
// checking the token. When A's lease expires and B takes the lock, A's DEL removes B's lock and
// lets C in while B still works: one expiry turns into a chain of overlapping holders.
// Expected verdict: VIOLATES no_oversell and lock_mutual_exclusion under gc-pause, slow-rpc and
// every other profile where a lease can expire before its holder finishes (failover, partition,
// clock-jump); no_duplicate_order under retries and chaos (no idempotency). What sets it apart
// from redis_lock_read_modify_write is no_foreign_unlock: a DEL removes the lock of a client
// still holding it (under gc-pause, clock-jump, slow-rpc, retries and chaos within 40 seeds).
// no_told_wrong: VIOLATED under chaos: a gateway retry (or a second click) after a lost reply finds
// the stock its own first attempt took, or its key taken, and the buyer who bought is told no.
#include "protocols/steps.h"

namespace oversim::protocols {
namespace {

BuyResult buy(BuyContext& ctx) {
  std::optional<HeldLock> lock = try_lock(ctx, ctx.lock_key(), ctx.workload().lock_ttl);
  if (!lock) return ctx.outcome(BuyResult::busy);
  Finally release([&] { unlock_plain_del(ctx, *lock); });

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

extern const Design redis_lock_plain_del_design;
const Design redis_lock_plain_del_design{"redis_lock_plain_del", "SET NX PX lock, read-then-write stock, release by plain DEL (mis-release)",
                                         "violates no_oversell and lock_mutual_exclusion whenever a lease expires early; violates no_told_wrong under chaos", buy, {}, {"redis"}, {}, Steps{.decrement = Steps::Decrement::literal, .release = Steps::Release::plain_del}};

}  // namespace oversim::protocols
