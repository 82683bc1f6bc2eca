// Two designs defined outside oversim's tree, registered from here: the whole toolchain of a
// binary built with oversim_main() knows them by name.
#include "protocols/registry.h"
#include "protocols/steps.h"

namespace my_sale {
using namespace oversim::protocols;
namespace db = oversim::db;

// The article's conditional decrement: the database decides.
BuyResult buy_conditional(BuyContext& ctx) {
  std::optional<db::DbConnection> conn = ctx.db().acquire();
  if (!conn) return ctx.outcome(BuyResult::busy);
  conn->begin();
  ctx.remote_call();
  db::DbCall take = conn->execute(db::UpdateStock::on(ctx.sku).decrement(1).where_available_at_least(1));
  if (!take.ok()) return ctx.outcome(failure_of(take));
  if (take.rows() == 0) return ctx.outcome(BuyResult::sold_out);
  return insert_order_and_commit(ctx, *conn);
}

// Deliberately broken: read, call out, write back what was read minus one.
BuyResult buy_read_then_write(BuyContext& ctx) {
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

const Design my_conditional{"my_conditional", "ours: UPDATE ... WHERE available >= 1", "holds no_oversell", buy_conditional, {}, {}, {},
                            Steps{.decrement = Steps::Decrement::conditional}};
const Design my_broken{"my_broken", "ours, deliberately broken: SELECT, call, UPDATE available = <literal>", "violates no_oversell",
                       buy_read_then_write, {}, {}, {}, Steps{.decrement = Steps::Decrement::literal}};
OVERSIM_REGISTER_DESIGN(my_conditional);
OVERSIM_REGISTER_DESIGN(my_broken);

}  // namespace my_sale
