// etcd_lock_fenced: the etcd lock recipe with the lock key's create revision as a fencing token.
//
// Design: clientv3/concurrency's Mutex; the key's create revision t (myRev) is a store-wide
// revision, so it grows from one holder to the next (a waiter's key is created after the
// holder's; etcd's own contrib/lock example fences with it). In one transaction, first claim the
// row with it — `UPDATE stock SET fence = t WHERE sku_id = ? AND fence < t` (0 rows: a later
// holder has been here, abort) — which also takes the row lock; then SELECT the stock, make the
// remote call, write `available = <literal>`, insert the order, commit; Unlock.
// Expected verdict: HOLDS no_oversell under every profile: a holder whose lease expired claims
// the row with an older revision than the next holder's, and the storage rejects it (or, if it
// claimed first, the next holder's claim waits for its row lock and re-checks the fence), while
// lock_mutual_exclusion fails under gc-pause, partition and chaos. Violates no_duplicate_order
// under retries and chaos (no idempotency; chaos: seed 47 of the sweep).
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
  conn->begin();
  const auto token = static_cast<int64_t>(lock->fence);
  db::DbCall claim = conn->execute(db::UpdateStock::on(ctx.sku).decrement(0).set_fence_to(token).where_fence_below(token));
  if (!claim.ok()) return ctx.outcome(failure_of(claim));
  if (claim.rows() == 0) {
    ctx.count("fence.rejected");
    return ctx.outcome(BuyResult::failed);
  }
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

extern const Design etcd_lock_fenced_design;
const Design etcd_lock_fenced_design{
    "etcd_lock_fenced", "etcd concurrency.Mutex + the key's create revision as a fencing token: claim the row WHERE fence < t, then read-then-write",
    "holds no_oversell everywhere; a stale holder's claim is rejected by the storage", buy, {}, {"etcd"}, {etcd_session_lease(), etcd_lock_wait()},
    Steps{.decrement = Steps::Decrement::fenced, .release = Steps::Release::own_node}};

}  // namespace oversim::protocols
