// redlock_no_validity_check: RedLock without the validity test, guarding an unconditional write.
//
// Design: a hand-rolled RedLock client that sets the key on every master and takes a quorum of
// OKs as the lock, however long the round took (it skips step 4's `validity >= 0`); then the
// same read-then-write as redlock_read_modify_write.
// Expected verdict: VIOLATES no_oversell (and lock_mutual_exclusion) under acquire-pause: the
// client pauses between two masters for longer than the TTL, the keys it set first expire, a
// second buyer takes a quorum of them, and the first resumes, collects its OKs and writes
// (counter redlock.took-late-quorum). The library's validity test refuses exactly that lock
// (redlock.refused-late-quorum in redlock_read_modify_write, which still violates under the
// profile for another reason: the pause stops a buyer holding the lock on the same node;
// tests/redlock_test.cpp separates the two with one buyer per node). Otherwise as
// redlock_read_modify_write.
#include "protocols/steps.h"

namespace oversim::protocols {
namespace {

BuyResult buy(BuyContext& ctx) {
  std::optional<HeldLock> lock = redlock_acquire(ctx, ctx.lock_key(), ctx.workload().lock_ttl, /*check_validity=*/false);
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

extern const Design redlock_no_validity_check_design;
const Design redlock_no_validity_check_design{
    "redlock_no_validity_check", "RedLock that takes a quorum of OKs as the lock without the validity test, then read-then-write",
    "violates no_oversell under acquire-pause (a quorum of expired keys); otherwise as redlock_read_modify_write", buy, {}, {"redlock"}, {}, Steps{.decrement = Steps::Decrement::literal}};

}  // namespace oversim::protocols
