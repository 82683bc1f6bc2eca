// mq_serialized_per_sku: the queue is the lock.
//
// Design: a purchase sends its request to the queue keyed by SKU and waits (at most
// --lock-wait) for the answer on its own port. An order-taker job on every app node consumes the
// queue. A SKU's requests sit in one partition and a partition has one consumer, so the design
// treats each SKU as serialized and takes no lock and no transaction: look the order up (a
// redelivered request answers with the order it made), read the stock (SELECT), make the slow
// call, write the stock it computed (`UPDATE stock SET available = <read - 1>`), insert the order,
// answer the buyer, each statement on its own. 0 read: sold out.
// Expected verdict: HOLDS no_oversell without faults: one consumer per partition at a time.
// VIOLATES per_sku_serialization under gc-pause and slow-rpc (both last 1.1-2x
// max.poll.interval for a queue design): the stalled consumer loses its partition; the member
// it goes to takes up the same SKU's requests; the stalled one wakes and writes the stock it
// computed before, putting back units the other sold (ledger_conservation), or taking away
// units still unsold when its stale value is the lower one (no_vanished_stock). They sell again
// when buyers still come (no_oversell, the verdict table's seed 69).
// A buyer whose answer comes after --lock-wait is told busy and may have bought.
#include "protocols/steps.h"
#include "sim/sync.h"

namespace oversim::protocols {
namespace {

constexpr const char* kGroup = "order-takers";

BuyResult buy(BuyContext& ctx) { return queue_and_wait(ctx, ctx.new_order_id()); }

bool take_order(JobContext& ctx, const mq::Record& r) {
  const std::optional<QueuedRequest> request = decode_queued_request(r.value);
  if (!request) return true;  // not a request: nothing to do
  const db::OrderRow& row = request->row;
  const JobContext::Processing working = ctx.processing(row.sku, r.offset);
  std::optional<db::DbConnection> conn = ctx.db().acquire();
  if (!conn) return false;
  const EarlierOrder earlier = answer_earlier_order(ctx, *conn, *request);
  if (earlier != EarlierOrder::none) return earlier == EarlierOrder::answered;
  db::DbCall read = conn->autocommit(db::SelectStock{row.sku});
  if (!read.ok()) return false;
  const int64_t available = read.result.stock_rows.at(0).available;
  if (available < 1) {
    answer_sold_out(ctx, *request);
    return true;
  }
  ctx.remote_call();
  db::DbCall write = conn->autocommit(db::UpdateStock::on(row.sku).set_available_to(available - 1));
  if (!write.ok()) return false;
  db::DbCall insert = conn->autocommit(db::InsertOrder{row});
  if (!insert.ok() && !(insert.status == db::CallStatus::ok && insert.result.kind == db::Outcome::UniqueViolation)) return false;
  answer_sold(ctx, *request, row.order_id);
  return true;
}

void order_taker(JobContext& ctx) { consume(ctx, kGroup, take_order); }

}  // namespace

extern const Design mq_serialized_per_sku_design;
const Design mq_serialized_per_sku_design{
    "mq_serialized_per_sku", "purchases queued by SKU; one consumer per partition reads, computes and writes the stock without a lock",
    "holds no_oversell while each partition has one consumer; violates per_sku_serialization and no_oversell when a stalled consumer's partition is reassigned",
    buy, {}, {"mq"}, {}, Steps{.decrement = Steps::Decrement::literal, .takes_lock = false, .writes_later = true}, {Job{"order-taker", order_taker}}};

}  // namespace oversim::protocols
