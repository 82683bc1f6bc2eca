// etcd_unlock_retry_guarded: the retried Unlock of etcd_unlock_retry, guarded by the key's create
// revision (etcd PR #22115: Unlock only while IsOwner).
//
// Design: as etcd_unlock_retry, but every Unlock, the first and each retry, is the Txn If
// CreateRevision(key) == myRev Then Delete(key): a retry that finds the key made again by the
// process's next buyer (a new create revision) deletes nothing.
// Expected verdict: the guard stops etcd #22082's stale retry (a Delete that committed, its answer
// lost, the key made again with a new create revision: etcd_cluster_test pins it), but not a
// retry racing a Mutex that adopted the key. When the first Unlock did not commit (the leader
// crashed: failover, lock-restart), the key is still there when the process's next buyer locks,
// and concurrency.Mutex takes an existing key of its session as its own, create revision and
// all; the guarded retry then deletes that buyer's key. VIOLATES no_foreign_unlock and
// lock_mutual_exclusion, and so no_oversell, under failover (seed 1 shrinks to one process,
// two buyers) and lock-restart (seeds 88 and 226 of the sweeps), and chaos (seed 150), besides
// gc-pause and partition (a lease expiring under its holder, as etcd_lock_read_modify_write).
// Violates no_duplicate_order under retries and chaos.
// Violates progress under lock-restart: a Lock or Unlock whose answer the leader's crash lost
// leaves a key under its process's session (as etcd_lock_read_modify_write).
#include "protocols/steps.h"

namespace oversim::protocols {
namespace {

BuyResult buy(BuyContext& ctx) {
  std::optional<HeldLock> lock = etcd_acquire(ctx, ctx.lock_key());
  if (!lock) return ctx.outcome(BuyResult::busy);
  Finally release([&] { etcd_release(ctx, *lock, EtcdUnlock::retry_guarded); });

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

extern const Design etcd_unlock_retry_guarded_design;
const Design etcd_unlock_retry_guarded_design{
    "etcd_unlock_retry_guarded", "etcd_unlock_retry with each Unlock guarded: If CreateRevision(key) == myRev Then Delete",
    "violates no_foreign_unlock under failover and lock-restart: a Mutex adopts its session's key, create revision and all, so the guard passes; the read-then-write oversells when a lease expires (gc-pause, partition)", buy, {}, {"etcd"},
    {etcd_session_lease(), etcd_lock_wait()}, Steps{.decrement = Steps::Decrement::literal, .release = Steps::Release::plain_del}};

}  // namespace oversim::protocols
