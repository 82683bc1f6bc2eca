// This project's designs: a team's variant of the article's recipe, and the same recipe with the
// one shortcut the team was tempted by. Each registers itself, so every command of a binary
// built with oversim_main() (my_oversim) and every test helper knows it by name.
#include "protocols/registry.h"
#include "protocols/steps.h"

namespace my_sale {
using namespace oversim::protocols;
namespace db = oversim::db;
namespace redis = oversim::redis;

// A request seen before answers with the order it made (or busy while that is still in flight).
BuyResult answer_repeat(BuyContext& ctx) {
  std::optional<db::DbConnection> conn = ctx.db().acquire();
  if (!conn) return ctx.outcome(BuyResult::busy);
  db::DbCall found = conn->autocommit(db::SelectOrderByRequestId{ctx.request_id});
  if (!found.ok()) return ctx.outcome(failure_of(found));
  if (found.result.order_rows.empty()) return ctx.outcome(BuyResult::busy);
  return ctx.sold(found.result.order_rows.front().order_id);
}

// The recipe as this team runs it: an idempotency key in Redis, a per-SKU lock taken with
// tryLock, and under it the conditional decrement (the database has the last word), the order
// insert (UNIQUE request id and UNIQUE (user, sku, activity) back the key up: a double click is a
// new request) and the commit; the lock released by token.
// No ledger row: the team reconciles from the orders table.
BuyResult buy_recipe(BuyContext& ctx) {
  auto first = ctx.redis().call(redis::Command::set_nx_px(ctx.idempotency_key(), "1", 600'000));
  if (first.ok() && first.value->kind() == redis::Reply::Kind::nil) return answer_repeat(ctx);
  std::optional<HeldLock> lock = try_lock(ctx, ctx.lock_key(), ctx.workload().lock_ttl);
  if (!lock) return ctx.outcome(BuyResult::busy);
  Finally release([&] { unlock_compare(ctx, *lock); });
  std::optional<db::DbConnection> conn = ctx.db().acquire();
  if (!conn) return ctx.outcome(BuyResult::busy);
  ctx.remote_call();
  conn->begin();
  db::DbCall take = conn->execute(db::UpdateStock::on(ctx.sku).decrement(1).where_available_at_least(1));
  if (!take.ok()) return ctx.outcome(failure_of(take));
  if (take.rows() == 0) return ctx.outcome(BuyResult::sold_out);
  const std::string order = ctx.new_order_id();
  db::DbCall insert = conn->execute(db::InsertOrder{ctx.order_row(order)});
  if (insert.status == db::CallStatus::ok && insert.result.kind == db::Outcome::UniqueViolation) {
    conn->rollback();
    return answer_repeat(ctx);
  }
  if (!insert.ok()) return ctx.outcome(failure_of(insert));
  db::DbCall commit = conn->commit();
  if (!commit.ok()) return ctx.outcome(failure_of(commit));
  return ctx.sold(order);
}

// The shortcut: "we hold the lock, so read the stock and write it back minus one". Correct while
// the lock is; a holder paused past its lease writes back a count another holder already
// changed. Deliberately broken: the tests show the harness catches it.
BuyResult buy_trusting_the_lock(BuyContext& ctx) {
  auto first = ctx.redis().call(redis::Command::set_nx_px(ctx.idempotency_key(), "1", 600'000));
  if (first.ok() && first.value->kind() == redis::Reply::Kind::nil) return answer_repeat(ctx);
  std::optional<HeldLock> lock = try_lock(ctx, ctx.lock_key(), ctx.workload().lock_ttl);
  if (!lock) return ctx.outcome(BuyResult::busy);
  Finally release([&] { unlock_compare(ctx, *lock); });
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

// Name, summary, the verdict it is expected to get, the purchase, the schema it needs, the lock
// service it declares, and the recipe steps it takes (what `oversim lint` reads).
const Design my_recipe{"my_recipe",
                       "ours: idempotency key, per-SKU tryLock, conditional decrement, unique indexes, token-compare release",
                       "holds no_oversell and no_duplicate_order under every profile",
                       buy_recipe,
                       SchemaNeeds{.unique_user_sku_activity = true, .unique_request_id = true},
                       {"redis"},
                       {},
                       Steps{.decrement = Steps::Decrement::conditional, .idempotency_key = true}};
const Design my_recipe_trusting_lock{"my_recipe_trusting_lock",
                                     "ours, deliberately broken: the recipe with read-then-write under the lock instead of the conditional decrement",
                                     "violates no_oversell when a lease expires early (gc-pause)",
                                     buy_trusting_the_lock,
                                     SchemaNeeds{.unique_user_sku_activity = true, .unique_request_id = true},
                                     {"redis"},
                                     {},
                                     Steps{.decrement = Steps::Decrement::literal, .idempotency_key = true}};
OVERSIM_REGISTER_DESIGN(my_recipe);
OVERSIM_REGISTER_DESIGN(my_recipe_trusting_lock);

}  // namespace my_sale
