// redis_fenced_stale_read: a fencing token checked only on the write — a subtle mistake.
//
// Design: take the lock, `INCR fence:stock:{sku}` for token t, SELECT the stock (no row lock),
// make the remote call, then `UPDATE stock SET available = <literal>, fence = t WHERE sku_id = ?
// AND fence < t`; 0 rows means a newer holder wrote: abort.
// Expected verdict: VIOLATES no_oversell under gc-pause, clock-jump and slow-rpc, and under
// lock-restart (a primary back without the key; swarm seed 754). The fence stops
// an older holder from writing after a newer one, but not a newer holder that read before the
// older one wrote: A (t=5) and B (t=6) both read 3; A writes 2 (fence 0 < 5), B writes 2
// (fence 5 < 6). Both sell one unit; the stock went down by one. Fencing must cover the read.
// no_told_wrong: VIOLATED under chaos: a gateway retry (or a second click) after a lost reply finds
// the stock its own first attempt took, or its key taken, and the buyer who bought is told no.
#include "protocols/steps.h"

namespace oversim::protocols {
namespace {

BuyResult buy(BuyContext& ctx) {
  std::optional<HeldLock> lock = try_lock(ctx, ctx.lock_key(), ctx.workload().lock_ttl);
  if (!lock) return ctx.outcome(BuyResult::busy);
  Finally release([&] { unlock_compare(ctx, *lock); });

  auto fence = ctx.redis().call(redis::Command::incr("fence:stock:" + ctx.sku));
  if (!fence.ok() || fence.value->kind() != redis::Reply::Kind::integer) return ctx.outcome(fence.ambiguous() ? BuyResult::unknown : BuyResult::failed);
  const int64_t token = fence.value->as_integer();

  std::optional<db::DbConnection> conn = ctx.db().acquire();
  if (!conn) return ctx.outcome(BuyResult::busy);
  conn->begin();
  db::DbCall read = conn->execute(db::SelectStock{ctx.sku});
  if (!read.ok()) return ctx.outcome(failure_of(read));
  const int64_t available = read.result.stock_rows.at(0).available;
  if (available < 1) return ctx.outcome(BuyResult::sold_out);
  ctx.remote_call();
  db::DbCall write = conn->execute(db::UpdateStock::on(ctx.sku).set_available_to(available - 1).set_fence_to(token).where_fence_below(token));
  if (!write.ok()) return ctx.outcome(failure_of(write));
  if (write.rows() == 0) {
    ctx.count("fence.rejected");
    return ctx.outcome(BuyResult::failed);
  }
  return insert_order_and_commit(ctx, *conn);
}

}  // namespace

extern const Design redis_fenced_stale_read_design;
const Design redis_fenced_stale_read_design{"redis_fenced_stale_read", "SET NX PX lock + INCR fencing token checked only on the write (read unfenced)",
                                            "violates no_oversell when a lease expires: a newer holder's stale read wins; violates no_told_wrong under chaos", buy, {}, {"redis"}, {}, Steps{.decrement = Steps::Decrement::literal}};

}  // namespace oversim::protocols
