// marker_before_effect: an idempotent consumer that marks a record processed before it is.
//
// Design: as redis_prededuct_async_db (stock in Redis, the order sent to the queue, a job writes
// it), but the order writer makes itself idempotent with a processed-marker in Redis: `SET
// done:{order} 1 NX PX 600000` first, skip the record when the marker is already there, then
// write the order (mirror decrement, insert, commit). The marker is written before the effect,
// so a write that fails after it is never tried again: the retry, or the member a redelivery
// goes to, finds the marker and skips.
// Expected verdict: VIOLATES no_lost_order where an order's write fails after its marker (a
// lost reply, a crash of the writer's node in the middle): the buyer was told "sold" and the
// order never reaches the database; progress, no_vanished_stock and compensation_converges too
// (the unit left Redis and is in no order).
// Without faults every acknowledged order is written. Under gc-pause and slow-rpc the paused or
// slowed writer usually finishes its own write when it wakes; a second stall that makes the
// write fail loses the order too (the verdict table's swarm seeds). Under failover, as every
// Redis-stock design, the unit sells again.
#include "protocols/steps.h"

namespace oversim::protocols {
namespace {

constexpr const char* kGroup = "order-writers";

BuyResult buy(BuyContext& ctx) { return take_stock_and_queue_order(ctx); }

bool write_order(JobContext& ctx, const mq::Record& r) {
  const std::optional<db::OrderRow> row = decode_order(r.value);
  if (!row) return true;
  auto marked = ctx.redis().call(redis::Command::set_nx_px("done:" + row->order_id, "1", 600'000));
  if (marked.ok() && marked.value->kind() == redis::Reply::Kind::nil) {
    ctx.count("marker.skipped");
    return true;  // "already processed"
  }
  switch (write_queued_order(ctx, *row)) {
    case OrderWrite::written: ctx.count("order.written"); return true;
    case OrderWrite::already_there: return true;
    case OrderWrite::failed: return false;
  }
  return false;
}

void order_writer(JobContext& ctx) { consume(ctx, kGroup, write_order); }

}  // namespace

extern const Design marker_before_effect_design;
const Design marker_before_effect_design{
    "marker_before_effect", "redis_prededuct_async_db whose order writer sets a processed-marker in Redis before it writes the order",
    "violates no_lost_order when an order's write fails after its marker (the retry skips it); violates no_oversell under failover", buy, {},
    {"redis", "mq"},
    {redis_is_the_arbiter()},
    Steps{.decrement = Steps::Decrement::relative, .takes_lock = false, .service_stock = true, .writes_later = true},
    {Job{"order-writer", order_writer}}};

}  // namespace oversim::protocols
