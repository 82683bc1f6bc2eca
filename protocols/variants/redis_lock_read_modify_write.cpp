// redis_lock_read_modify_write: a Redis lock guarding an unconditional write.
//
// Design: `SET lock:stock:{sku} token NX PX ttl` (tryLock with a timeout); in a transaction
// SELECT the stock, make the remote call, write `available = <literal>`, insert the order,
// commit; release with a token compare.
// Expected verdict: HOLDS no_oversell without faults (the lock serializes buyers). VIOLATES it
// under gc-pause (the lease expires during the pause; the holder resumes and writes a stale
// value), failover (the replica never saw the lock; only while the critical section outlasts
// Sentinel's failover, about 1.1s: the profile widens an untyped --remote-call to 1.5s, and with
// a shorter call you type, failover cannot hand the lock to a second buyer in time), partition
// (split brain, the same condition), clock-jump (the server's clock expires the lease early) and
// slow-rpc (the write arrives after the lease).
// The lock is the single line of defence, and locks fail (Kleppmann, "How to do distributed
// locking"). Also violates no_duplicate_order under retries and chaos (no idempotency).
// no_told_wrong: VIOLATED under chaos: a gateway retry (or a second click) after a lost reply finds
// the stock its own first attempt took, or its key taken, and the buyer who bought is told no.
#include "protocols/steps.h"

namespace oversim::protocols {
namespace {

BuyResult buy(BuyContext& ctx) {
  std::optional<HeldLock> lock = try_lock(ctx, ctx.lock_key(), ctx.workload().lock_ttl);
  if (!lock) return ctx.outcome(BuyResult::busy);
  Finally release([&] { unlock_compare(ctx, *lock); });

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

extern const Design redis_lock_read_modify_write_design;
const Design redis_lock_read_modify_write_design{
    "redis_lock_read_modify_write", "SET NX PX lock, SELECT, UPDATE available = <literal>, token-compare release",
    "holds no_oversell without faults; violates it when the lock fails (gc-pause, failover, partition, clock-jump, slow-rpc); violates no_told_wrong under chaos", buy, {}, {"redis"}, {}, Steps{.decrement = Steps::Decrement::literal}};

}  // namespace oversim::protocols
