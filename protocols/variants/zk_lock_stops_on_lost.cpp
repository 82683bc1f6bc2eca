// zk_lock_stops_on_lost: the ZooKeeper lock recipe whose holder stops when its client says LOST.
//
// Design: zk_lock_read_modify_write, plus a connection-state listener: when Curator reports LOST
// the holder stops believing it holds the lock and does not write. It ignores SUSPENDED (a
// disconnect it hopes to survive), as a holder that wants to ride out a short network blip does.
// Expected verdict: VIOLATES no_oversell under gc-pause and partition, like the design without
// the listener: LOST comes too late. The leader expires the session one session timeout after it
// last heard the holder; the holder's client goes SUSPENDED at two thirds of the timeout and says
// LOST only after a whole timeout more (Curator's simulated expiry; a 3.9.3+ ZooKeeper client
// says it at 4/3 of the timeout, still after the 1.25 timeouts partition gives the holder). In
// between, a waiter holds the lock and the old holder writes. A paused process hears nothing at all until it runs again.
// Holds elsewhere as zk_lock_read_modify_write does; it stops where LOST does come first, and the
// buyer it stops is told an error and clicks again (progress holds: the unit is not lost). Curator's own advice is to treat SUSPENDED as lost; only fencing or a conditional
// write make the lock's failure harmless (zk_lock_fenced, zk_lock_conditional).
#include "protocols/steps.h"

namespace oversim::protocols {
namespace {

BuyResult buy(BuyContext& ctx) {
  std::optional<HeldLock> lock = zk_acquire(ctx, ctx.lock_key(), ZkLockOptions{.herd = false, .stop_on_lost = true});
  if (!lock) return ctx.outcome(BuyResult::busy);
  Finally release([&] { zk_release(ctx, *lock); });

  std::optional<db::DbConnection> conn = ctx.db().acquire();
  if (!conn) return ctx.outcome(BuyResult::busy);
  conn->begin();
  db::DbCall read = conn->execute(db::SelectStock{ctx.sku});
  if (!read.ok()) return ctx.outcome(failure_of(read));
  const int64_t available = read.result.stock_rows.at(0).available;
  if (available < 1) return ctx.outcome(BuyResult::sold_out);
  ctx.remote_call();
  if (!zk_still_held(*lock)) return ctx.outcome(BuyResult::failed);  // LOST: give up before writing
  db::DbCall write = conn->execute(db::UpdateStock::on(ctx.sku).set_available_to(available - 1));
  if (!write.ok()) return ctx.outcome(failure_of(write));
  if (!zk_still_held(*lock)) return ctx.outcome(BuyResult::failed);  // LOST: roll back
  return insert_order_and_commit(ctx, *conn);
}

}  // namespace

extern const Design zk_lock_stops_on_lost_design;
const Design zk_lock_stops_on_lost_design{
    "zk_lock_stops_on_lost", "ZooKeeper lock recipe; the holder checks for LOST (not SUSPENDED) before it writes",
    "violates no_oversell under gc-pause and partition: the leader expires the session before the client says LOST", buy, {}, {"zookeeper"}, {}, Steps{.decrement = Steps::Decrement::literal, .release = Steps::Release::own_node}};

}  // namespace oversim::protocols
