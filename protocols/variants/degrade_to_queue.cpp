// degrade_to_queue: the article's other degrade path: queue the purchase while the lock service
// is down, never let it through unguarded.
//
// Design: token_bucket_degrade's (the gateway's token bucket, this design's default 100 a second;
// a circuit breaker on each app node's Redis; the lock; `UPDATE ... WHERE available >= 1`;
// token-compare release), except that a purchase Redis does not answer, or one that finds the
// breaker open, goes to the queue keyed by SKU and waits (at most --lock-wait) for its answer on
// its own port. An order-taker job on every app node consumes the queue: a request already
// made answers with its order (a redelivery); otherwise the remote call, then one transaction:
// the conditional decrement (0 rows: sold out) and the order insert, COMMIT, and the answer.
// Expected verdict: HOLDS no_oversell under every profile: both paths take the unit with the
// conditional decrement, so neither an expired lock nor a consumer whose partition was
// reassigned (two consumers at once) can sell it twice. A buyer whose queued answer comes after
// the gateway stopped waiting hears nothing and may have bought. lock_mutual_exclusion is
// violated where the lock fails; no_duplicate_order and no_told_wrong under retries and chaos (a
// retry that finds the lock free takes its own path again, or finds the unit its first attempt
// took).
#include "protocols/steps.h"

namespace oversim::protocols {
namespace {

constexpr const char* kGroup = "degraded-orders";

BuyResult queue_purchase(BuyContext& ctx) {
  ctx.count("degrade.queued");
  return queue_and_wait(ctx, ctx.new_order_id());
}

BuyResult buy(BuyContext& ctx) {
  LockAttempt attempt = try_lock_with_breaker(ctx, ctx.lock_key(), ctx.workload().lock_ttl);
  if (attempt.lock_service_down()) return queue_purchase(ctx);
  if (!attempt.lock) return ctx.outcome(BuyResult::busy);
  Finally release([&] { unlock_compare(ctx, *attempt.lock); });

  std::optional<db::DbConnection> conn = ctx.db().acquire();
  if (!conn) return ctx.outcome(BuyResult::busy);
  ctx.remote_call();
  conn->begin();
  db::DbCall take = conn->execute(db::UpdateStock::on(ctx.sku).decrement(1).bump().where_available_at_least(1));
  if (!take.ok()) return ctx.outcome(failure_of(take));
  if (take.rows() == 0) return ctx.outcome(BuyResult::sold_out);
  return insert_order_and_commit(ctx, *conn);
}

bool take_order(JobContext& ctx, const mq::Record& r) {
  const std::optional<QueuedRequest> request = decode_queued_request(r.value);
  if (!request) return true;  // not a request: nothing to do
  const db::OrderRow& row = request->row;
  const JobContext::Processing working = ctx.processing(row.sku, r.offset);
  std::optional<db::DbConnection> conn = ctx.db().acquire();
  if (!conn) return false;
  const EarlierOrder earlier = answer_earlier_order(ctx, *conn, *request);
  if (earlier != EarlierOrder::none) return earlier == EarlierOrder::answered;
  ctx.remote_call();
  conn->begin();
  db::DbCall take = conn->execute(db::UpdateStock::on(row.sku).decrement(1).bump().where_available_at_least(1));
  if (!take.ok()) return false;
  if (take.rows() == 0) {
    conn->rollback();
    answer_sold_out(ctx, *request);
    return true;
  }
  db::DbCall insert = conn->execute(db::InsertOrder{row});
  if (insert.status == db::CallStatus::ok && insert.result.kind == db::Outcome::UniqueViolation) {
    conn->rollback();  // a redelivery whose first delivery committed meanwhile
    answer_sold(ctx, *request, row.order_id);
    return true;
  }
  if (!insert.ok()) return false;
  db::DbCall commit = conn->commit();
  if (!commit.ok()) return false;
  answer_sold(ctx, *request, row.order_id);
  return true;
}

void order_taker(JobContext& ctx) { consume(ctx, kGroup, take_order); }

}  // namespace

extern const Design degrade_to_queue_design;
const Design degrade_to_queue_design{
    "degrade_to_queue",
    "token_bucket_degrade, but a purchase that finds Redis down goes to a queue keyed by SKU, whose consumers take the unit with the conditional decrement",
    "holds no_oversell under every profile: both paths take the unit with UPDATE ... WHERE available >= 1",
    buy,
    {},
    {"redis", "mq"},
    {{"--rate-limit", "100", "the design's token bucket at the gateway; type --rate-limit to size it for your sale", true}},
    Steps{.decrement = Steps::Decrement::conditional, .degrade = Steps::Degrade::queue},
    {Job{"degraded-order-taker", order_taker}}};

}  // namespace oversim::protocols
