// redis_prededuct_async_db: the design most flash sales run. Redis decides, a queue carries
// the order, the database is written later.
//
// Design: the stock is loaded into Redis before the sale (`stock:{sku}`). A purchase runs the
// Lua check-and-decrement (-1: sold out), sends the order to the queue keyed by SKU, and tells
// the buyer "sold" once the broker acknowledged it. An order-writer job on every app node
// consumes the queue (one consumer group, Kafka's at-least-once delivery) and writes each order
// in one transaction: the mirror decrement `UPDATE stock SET available = available - 1`, the
// order insert, the commit; the order id is the orders table's primary key, so a redelivered
// record finds its order already there and is done. A purchase whose send to the queue failed
// gives the unit back to Redis (`INCRBY`); one Redis did not answer tells the buyer "busy".
// No lock, no CHECK (Redis is the arbiter), no reconciliation, no compensation.
// Expected verdict: VIOLATES no_oversell under failover, as redis_prededuct_sync_db: a decrement
// the primary acknowledged and never shipped is lost when Sentinel promotes the replica, and the
// unit sells again. VIOLATES progress under app-crash: a process that dies between the
// decrement and the send takes the unit with it (taken in Redis, never ordered: undersell;
// no_vanished_stock and compensation_converges too, Redis holding a unit fewer than the database).
// HOLDS no_lost_order and no_duplicate_order under a consumer stalled past max.poll.interval
// (gc-pause): the record goes to another member and is written once, the primary key turning
// the late writer away.
#include "protocols/steps.h"

namespace oversim::protocols {
namespace {

constexpr const char* kGroup = "order-writers";

BuyResult buy(BuyContext& ctx) { return take_stock_and_queue_order(ctx); }

// One order record, written in one transaction. Done (true) once it committed or the order is
// already there; false to try again.
bool write_order(JobContext& ctx, const mq::Record& r) {
  const std::optional<db::OrderRow> row = decode_order(r.value);
  if (!row) return true;  // not an order: nothing to do
  switch (write_queued_order(ctx, *row)) {
    case OrderWrite::written: ctx.count("order.written"); return true;
    case OrderWrite::already_there: ctx.count("order.already-written"); return true;
    case OrderWrite::failed: return false;
  }
  return false;
}

void order_writer(JobContext& ctx) { consume(ctx, kGroup, write_order); }

}  // namespace

extern const Design redis_prededuct_async_db_design;
const Design redis_prededuct_async_db_design{
    "redis_prededuct_async_db",
    "stock in Redis: Lua check-and-decrement decides, the order goes to a queue keyed by SKU, a consumer writes it to the database later",
    "violates no_oversell under failover and progress under app-crash; a stalled consumer's redelivery is written once", buy, {}, {"redis", "mq"},
    {redis_is_the_arbiter()},
    Steps{.decrement = Steps::Decrement::relative, .takes_lock = false, .service_stock = true, .writes_later = true},
    {Job{"order-writer", order_writer}}};

}  // namespace oversim::protocols
