// zk_herd_lock: the naive ZooKeeper lock where every waiter watches the parent (the herd).
//
// Design: create an ephemeral-sequential node under /locks/lock:stock:{sku}, then list the
// children with a watch on the parent; the lowest holds the lock, every other waiter waits for
// any change of the children and lists them again. Under it, the conditional decrement
// (`UPDATE ... WHERE available >= 1`). Release deletes the node.
// Expected verdict: HOLDS no_oversell everywhere, like zk_lock_conditional: the herd is a cost,
// not a safety bug. Its cost is the metric: every release (and every new waiter's create) wakes
// every waiter, and each one lists the children again, so N waiters cost O(N^2) getChildren
// calls where the recipe (watch only the next lower node) costs O(N): compare's msgs/buy and
// wake/rel columns, and tests/zookeeper_test.cpp. The ZooKeeper recipes page: "each node is
// watched by exactly one client. In this way, you avoid the herd effect." Violates
// no_duplicate_order under retries and chaos (no idempotency).
#include "protocols/steps.h"

namespace oversim::protocols {
namespace {

BuyResult buy(BuyContext& ctx) {
  std::optional<HeldLock> lock = zk_acquire(ctx, ctx.lock_key(), ZkLockOptions{.herd = true, .stop_on_lost = false});
  if (!lock) return ctx.outcome(BuyResult::busy);
  Finally release([&] { zk_release(ctx, *lock); });

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

extern const Design zk_herd_lock_design;
const Design zk_herd_lock_design{
    "zk_herd_lock", "ZooKeeper lock where every waiter watches the parent (the herd effect) + the conditional decrement",
    "holds no_oversell everywhere; N waiters cost O(N^2) getChildren calls where the recipe costs O(N)", buy, {}, {"zookeeper"}, {}, Steps{.decrement = Steps::Decrement::conditional, .release = Steps::Release::own_node}};

}  // namespace oversim::protocols
