// etcd_lock_read_modify_write: the etcd lock recipe guarding an unconditional write.
//
// Design: clientv3/concurrency's Mutex on /locks/lock:stock:{sku} with the process's session (a
// lease of --lock-ttl, 2s by default, kept alive by the client every third of it); in a
// transaction SELECT the stock, make the remote call, write `available = <literal>`, insert the
// order, commit; Unlock (a plain Delete of our key). The holder never looks at the session's
// Done channel, and nothing fences its write.
// Expected verdict: HOLDS no_oversell where the holder keeps its lease: no faults, a leader crash
// (failover, lock-restart: the new leader gives every lease its full TTL again), clock jumps and
// drift, a slow statement (the keepalive goes on while the holder waits). VIOLATES it when the
// lease expires under a holder that still works: gc-pause (the process stops, its keepalives too;
// the leader revokes the lease and the next waiter's key is the oldest), partition (the holder is
// cut off from the cluster) and chaos. Violates no_duplicate_order under retries and chaos (no
// idempotency).
// Violates progress under lock-restart (seed 99 of the 1,000-seed sweep): a Lock or Unlock whose
// answer the leader's crash lost leaves a key under its process's session, which nothing deletes
// while the session lives, so other processes' buyers wait out their lock wait with units left.
#include "protocols/steps.h"

namespace oversim::protocols {
namespace {

BuyResult buy(BuyContext& ctx) {
  std::optional<HeldLock> lock = etcd_acquire(ctx, ctx.lock_key());
  if (!lock) return ctx.outcome(BuyResult::busy);
  Finally release([&] { etcd_release(ctx, *lock); });

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

extern const Design etcd_lock_read_modify_write_design;
const Design etcd_lock_read_modify_write_design{
    "etcd_lock_read_modify_write", "etcd concurrency.Mutex (session lease, wait for the key created before ours), SELECT, UPDATE available = <literal>",
    "holds no_oversell while the holder keeps its lease (leader changes, jumps, slow calls); violates it under gc-pause and partition", buy, {}, {"etcd"},
    {etcd_session_lease(), etcd_lock_wait()}, Steps{.decrement = Steps::Decrement::literal, .release = Steps::Release::own_node}};

}  // namespace oversim::protocols
