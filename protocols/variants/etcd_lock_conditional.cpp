// etcd_lock_conditional: the etcd lock recipe narrowing concurrency, the conditional decrement
// deciding.
//
// Design: clientv3/concurrency's Mutex on /locks/lock:stock:{sku} with the process's session;
// under it `UPDATE ... SET available = available - 1 WHERE sku_id = ? AND available >= 1`, 0
// rows means sold out; Unlock.
// Expected verdict: HOLDS no_oversell under every profile, even where the lock visibly fails
// (lock_mutual_exclusion violated under gc-pause, partition and chaos, when the holder's lease
// expires while it works): the database, not the lock, is the single source of truth. Violates
// no_duplicate_order under retries and chaos (no idempotency; chaos: seed 59 of the sweep).
// Violates progress under lock-restart: a Lock or Unlock whose answer the leader's crash lost
// leaves a key under its process's session (as etcd_lock_read_modify_write).
#include "protocols/steps.h"

namespace oversim::protocols {
namespace {

BuyResult buy(BuyContext& ctx) {
  std::optional<HeldLock> lock = etcd_acquire(ctx, ctx.lock_key());
  if (!lock) return ctx.outcome(BuyResult::busy);
  Finally release([&] { etcd_release(ctx, *lock); });

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

extern const Design etcd_lock_conditional_design;
const Design etcd_lock_conditional_design{
    "etcd_lock_conditional", "etcd concurrency.Mutex + UPDATE ... WHERE available >= 1 as the arbiter",
    "holds no_oversell everywhere while lock_mutual_exclusion fails when a lease expires under its holder (gc-pause, partition)", buy, {}, {"etcd"},
    {etcd_session_lease(), etcd_lock_wait()}, Steps{.decrement = Steps::Decrement::conditional, .release = Steps::Release::own_node}};

}  // namespace oversim::protocols
