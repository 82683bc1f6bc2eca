// etcd_unlock_retry_guarded: the retried Unlock of etcd_unlock_retry, guarded by the key's create
// revision (etcd PR #22115: Unlock only while IsOwner).
//
// Design: as etcd_unlock_retry, but every Unlock, the first and each retry, is the Txn If
// CreateRevision(key) == myRev Then Delete(key): a retry that finds the key made again by the
// process's next buyer (a new create revision) deletes nothing.
// Expected verdict: HOLDS no_foreign_unlock everywhere; the read-then-write still oversells where
// a lease expires under its holder (gc-pause, partition), as etcd_lock_read_modify_write does.
// Violates no_duplicate_order under retries and chaos.
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
    "holds no_foreign_unlock everywhere; the read-then-write still oversells when a lease expires under its holder (gc-pause, partition)", buy, {}, {"etcd"},
    {etcd_session_lease()}, Steps{.decrement = Steps::Decrement::literal, .release = Steps::Release::own_node}};

}  // namespace oversim::protocols
