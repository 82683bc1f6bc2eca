// etcd_lock_txn_guard: the stock lives in etcd, and its write is a transaction guarded by the lock.
//
// Design: clientv3/concurrency's Mutex on /locks/lock:stock:{sku}; read `stock:{sku}` from etcd
// (a linearizable Get), make the remote call, then one etcd Txn: If CreateRevision(our key) ==
// myRev (Mutex.IsOwner) Then Put(stock, n - 1). The compare fails once our key is gone (the lease
// expired and was revoked) or was made again (a new create revision), so a holder that lost the
// lock writes nothing. Then the database: `available = available - 1` as a mirror, the order,
// commit. Unlock. (Jepsen's etcd lock-etcd-set workload guards its write the same way, with the
// lock key's version.)
// Expected verdict: HOLDS no_oversell under every profile: etcd checks the lock and writes the
// stock in one linearizable step (lock_mutual_exclusion still fails under gc-pause and chaos, and
// under partition: swarm seed 88). Violates no_duplicate_order under retries and chaos (no
// idempotency). A purchase that dies or fails after the etcd write and before the commit keeps
// its unit taken in etcd: the two stores disagree (compensation_converges, no_vanished_stock)
// under app-crash, lost-replies, retries, chaos and gc-pause (swarm seed 54: a paused holder
// keeps the row lock, the next holder's UPDATE times out after its etcd write).
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
  std::optional<int64_t> available = etcd_read_stock(ctx);
  if (!available) return ctx.outcome(BuyResult::busy);
  if (*available < 1) return ctx.outcome(BuyResult::sold_out);
  ctx.remote_call();
  const GuardedWrite taken = etcd_write_stock_if_owner(ctx, *lock, *available - 1);
  if (taken == GuardedWrite::unknown) return ctx.outcome(BuyResult::unknown);
  if (taken == GuardedWrite::not_owner) {
    ctx.count("etcd.guard-rejected");
    return ctx.outcome(BuyResult::failed);
  }
  conn->begin();
  db::DbCall mirror = conn->execute(db::UpdateStock::on(ctx.sku).decrement(1));
  if (!mirror.ok()) return ctx.outcome(failure_of(mirror));
  return insert_order_and_commit(ctx, *conn);
}

}  // namespace

extern const Design etcd_lock_txn_guard_design;
const Design etcd_lock_txn_guard_design{
    "etcd_lock_txn_guard", "stock in etcd: concurrency.Mutex, Get, then Txn If CreateRevision(lock key) == myRev Then Put(stock, n - 1); the database mirrors it",
    "holds no_oversell everywhere: the stock write is refused once the lock key is gone", buy, {}, {"etcd"}, {etcd_is_the_arbiter(), etcd_session_lease(), etcd_lock_wait()},
    Steps{.decrement = Steps::Decrement::relative, .release = Steps::Release::own_node, .service_stock = true}};

}  // namespace oversim::protocols
