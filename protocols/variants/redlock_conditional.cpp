// redlock_conditional: RedLock narrowing concurrency, the conditional decrement deciding.
//
// Design: RedLock on five masters (validity checked); under it
// `UPDATE ... SET available = available - 1 WHERE sku_id = ? AND available >= 1`, 0 rows means
// sold out; release on every master with a token compare.
// Expected verdict: HOLDS no_oversell under every profile, even where the lock visibly fails
// (lock_mutual_exclusion violated under gc-pause, slow-rpc, acquire-pause, clock-drift, and
// rarely clock-jump and lock-restart): the database, not the lock, is
// the single source of truth. This is the answer to "RedLock has no fencing token": make the
// write itself conditional. Violates no_duplicate_order under retries and chaos.
#include "protocols/steps.h"

namespace oversim::protocols {
namespace {

BuyResult buy(BuyContext& ctx) {
  std::optional<HeldLock> lock = redlock_acquire(ctx, ctx.lock_key(), ctx.workload().lock_ttl);
  if (!lock) return ctx.outcome(BuyResult::busy);
  Finally release([&] { redlock_release(ctx, *lock); });

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

extern const Design redlock_conditional_design;
const Design redlock_conditional_design{
    "redlock_conditional", "RedLock + UPDATE ... WHERE available >= 1 as the arbiter, release on every master",
    "holds no_oversell everywhere while lock_mutual_exclusion visibly fails under faults", buy, {}, {"redlock"}, {}, Steps{.decrement = Steps::Decrement::conditional}};

}  // namespace oversim::protocols
