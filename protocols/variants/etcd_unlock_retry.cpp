// etcd_unlock_retry: Unlock retried in the background after a lost answer (etcd #22082).
//
// Design: clientv3/concurrency's Mutex with the process's session, the read-then-write of
// etcd_lock_read_modify_write, and an Unlock that must not be lost: when its answer does not
// come, the purchase goes on and the Unlock is sent again every 100ms until one is answered.
// Unlock is a plain Delete of our key's name, `/locks/<lock>/<lease>`, the same name for every
// Mutex of the session. If the first Delete committed and only its answer was lost, the
// process's next buyer of the lock has made the key again by the time a retry arrives: the retry
// deletes that buyer's key, and a buyer of another process takes the lock while it works.
// Expected verdict: VIOLATES no_foreign_unlock where an Unlock goes unanswered: under failover
// and lock-restart (the leader dies with the Delete in flight; seed 50 of the sweep) and chaos;
// with the key adopted by the process's next buyer (a Mutex takes its session's existing key as
// its own) the retry breaks lock_mutual_exclusion and the read-then-write oversells (failover).
// Violates no_oversell under gc-pause and partition too (a lease expiring under its holder, as
// etcd_lock_read_modify_write). Violates no_duplicate_order under retries and chaos.
// Violates progress under lock-restart: a Lock or Unlock whose answer the leader's crash lost
// leaves a key under its process's session (as etcd_lock_read_modify_write).
#include "protocols/steps.h"

namespace oversim::protocols {
namespace {

BuyResult buy(BuyContext& ctx) {
  std::optional<HeldLock> lock = etcd_acquire(ctx, ctx.lock_key());
  if (!lock) return ctx.outcome(BuyResult::busy);
  Finally release([&] { etcd_release(ctx, *lock, EtcdUnlock::retry); });

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

extern const Design etcd_unlock_retry_design;
const Design etcd_unlock_retry_design{
    "etcd_unlock_retry", "etcd concurrency.Mutex, read-then-write, Unlock (a plain Delete) retried in the background until answered",
    "violates no_foreign_unlock and mutual exclusion where an Unlock goes unanswered (failover, lock-restart): the retry deletes the key the session made or adopted again", buy, {}, {"etcd"},
    {etcd_session_lease(), etcd_lock_wait()}, Steps{.decrement = Steps::Decrement::literal, .release = Steps::Release::plain_del}};

}  // namespace oversim::protocols
