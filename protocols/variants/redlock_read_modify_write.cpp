// redlock_read_modify_write: RedLock on five independent Redis masters guarding an unconditional
// write.
//
// Design: RedLock as the Redis distributed-lock page and redlock-rb publish it (SET NX PX on
// every master in turn, a quorum of 3 of 5, validity = ttl - elapsed - drift checked); in a
// transaction SELECT the stock, make the remote call, write `available = <literal>`, insert the
// order, commit; release on every master with a token compare.
// Expected verdict: HOLDS no_oversell without faults, under partition and app-crash. VIOLATES it
// under gc-pause, slow-rpc and acquire-pause (a process pause stops the holder too): a lease is a
// lease, and a holder that stops (or whose write is late) past its validity writes a stale
// value, whatever the number of masters (Kleppmann, "How to do distributed locking"). And,
// rarely, when one master fails (clock-jump, lock-restart: 1 seed in 1,000; clock-drift: 2 in
// 40): buyers racing for the lock split the masters between them, so the winner holds exactly
// a quorum, 3 of 5; when one of its three drops the key (a jump, a restart without persistence,
// a fast clock), the next buyer takes it plus the two others: Kleppmann's scenario, arising from
// contention alone, with no partition. RedLock
// has no fencing token to stop that write: its values are random, and a counter INCRed on N
// independent masters is not monotonic across failures, so there is no redlock_fenced; pair it
// with a conditional write instead (redlock_conditional). Violates no_duplicate_order under
// retries and chaos (no idempotency).
#include "protocols/steps.h"

namespace oversim::protocols {
namespace {

BuyResult buy(BuyContext& ctx) {
  std::optional<HeldLock> lock = redlock_acquire(ctx, ctx.lock_key(), ctx.workload().lock_ttl);
  if (!lock) return ctx.outcome(BuyResult::busy);
  Finally release([&] { redlock_release(ctx, *lock); });

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

extern const Design redlock_read_modify_write_design;
const Design redlock_read_modify_write_design{
    "redlock_read_modify_write", "RedLock (quorum of N masters, validity checked), SELECT, UPDATE available = <literal>, release on every master",
    "violates no_oversell when the holder outlives its lease (gc-pause, slow-rpc, acquire-pause) and, rarely, when a master of a bare quorum fails", buy, {}, {"redlock"}, {}, Steps{.decrement = Steps::Decrement::literal}};

}  // namespace oversim::protocols
