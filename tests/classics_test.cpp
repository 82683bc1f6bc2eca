// The classic failures, each pinned as a minimal reproduction that replays from its seed, next
// to the design that survives the same scenario. Each scenario was found by `oversim check` and
// shrunk by it; the reproduce line in each comment runs it from the command line.
#include <gtest/gtest.h>

#include "properties/checker.h"
#include "protocols/profiles.h"
#include "tests/small_sale.h"

namespace oversim {
namespace {
using namespace sim::literals;
using properties::RunResult;
using protocols::Scenario;

Scenario scenario(const char* design, uint64_t seed, const char* faults, int buyers, int64_t stock, int apps) {
  return testing::small_sale(design, seed, faults, buyers, stock, apps);
}

bool has_event(const RunResult& r, const std::string& kind) {
  for (const auto& e : r.events) {
    if (e.kind == kind) return true;
  }
  return false;
}

// oversim run --variant redis_lock_read_modify_write --seed 2 --faults 'at 23ms pause app-1 for 1493ms' --buyers 2 --stock 1 --apps 1
TEST(Classics, AGcPauseLongerThanTheLockTtlLetsASecondBuyerSellTheLastUnitAgain) {
  const Scenario s = scenario("redis_lock_read_modify_write", 2, "at 23ms pause app-1 for 1493ms", 2, 1, 1);
  const RunResult r = properties::run_checked(s);
  const auto& oversell = r.result("no_oversell");
  ASSERT_TRUE(oversell.violated);
  EXPECT_EQ(oversell.violation->witness, "sku1: 2 orders committed for an initial stock of 1 (available=0; orders o-r1-1,o-r2-1)");
  EXPECT_TRUE(r.result("lock_mutual_exclusion").violated);
  EXPECT_TRUE(r.result("lease_expired_while_held").reached);
  // The mechanism: the paused holder's write, computed from its stale read, overwrote the
  // second buyer's committed decrement.
  ASSERT_TRUE(r.result("no_lost_update").violated);
  EXPECT_EQ(r.result("no_lost_update").violation->witness,
            "txn2 wrote available = 0 on sku1 from its read of commit 1, but commit 2 had changed the row since");
  EXPECT_FALSE(r.result("no_foreign_unlock").violated);  // a token-compare release
  EXPECT_EQ(r.orders, 2);
}

TEST(Classics, TheSamePauseUnderTheConditionalDecrementSellsOnceWhileTheLockVisiblyFails) {
  Scenario s = scenario("redis_lock_conditional", 2, "at 23ms pause app-1 for 1493ms", 2, 1, 1);
  const RunResult r = properties::run_checked(s);
  EXPECT_FALSE(r.result("no_oversell").violated);
  EXPECT_FALSE(r.result("ledger_conservation").violated);
  ASSERT_TRUE(r.result("lock_mutual_exclusion").violated);
  // The overlap starts when the second buyer gets the lock, right after the pause ends.
  EXPECT_EQ(sim::format_instant(r.result("lock_mutual_exclusion").violation->at), "   1.516463s");
  EXPECT_TRUE(r.result("lease_expired_while_held").reached);
  EXPECT_FALSE(r.result("no_lost_update").violated);  // a relative decrement loses nothing
  EXPECT_FALSE(r.result("check_constraint_fired").reached);
  EXPECT_TRUE(r.result("sold_out").reached);
  EXPECT_EQ(r.orders, 1);
}

// Successful renewals of the lock's lease (the watchdog's PEXPIRE that found its token).
int renewals(const RunResult& r) {
  int n = 0;
  for (const auto& e : r.events) {
    bool renew = false, ok = false;
    for (const auto& f : e.fields) {
      renew = renew || (f.key == "cmd" && f.value.rfind("EVAL pexpire_if_equals", 0) == 0);
      ok = ok || (f.key == "reply" && f.value == "(integer) 1");
    }
    n += renew && ok ? 1 : 0;
  }
  return n;
}

// The watchdog renews the 500ms lease every third of it while a 1.5s call runs: the holder works
// three times its TTL and its lease never runs out, so nobody else gets the lock. The property
// once judged expiry against the acquisition alone and said the lease had expired while held.
// oversim run --variant redis_lock_watchdog --seed 1 --buyers 2 --stock 1 --remote-call 1500ms --gateway-timeout 15s
TEST(Classics, AWatchdogKeepsTheLeaseAliveThroughACallLongerThanTheTtl) {
  Scenario s = scenario("redis_lock_watchdog", 1, "", 2, 1, 2);
  s.workload.remote_call = 1500_ms;
  s.workload.remote_call_high = 1500_ms;
  s.workload.gateway_timeout = 15_s;
  const RunResult r = properties::run_checked(s);
  EXPECT_GE(renewals(r), 8);  // the holder's lease was renewed all along its call
  EXPECT_FALSE(r.result("lease_expired_while_held").reached) << r.result("lease_expired_while_held").note;
  EXPECT_FALSE(r.result("lock_mutual_exclusion").violated);
  EXPECT_FALSE(r.result("no_oversell").violated);
  EXPECT_EQ(r.orders, 1);
}

// The same call, then a GC pause of twice the TTL before the write: the watchdog pauses with its
// process, the lease runs out 500ms after its last renewal, the second buyer takes the lock, and
// the holder resumes to write its stale read.
// oversim run --variant redis_lock_watchdog --seed 1 --buyers 2 --stock 1 --remote-call 1500ms --gateway-timeout 15s
//   --faults 'on before_write pause here for 2x lock-ttl'
TEST(Classics, AWatchdogPausedWithItsProcessLetsTheLeaseRunOutAfterItsLastRenewal) {
  Scenario s = scenario("redis_lock_watchdog", 1, "on before_write pause here for 2x lock-ttl", 2, 1, 2);
  s.workload.remote_call = 1500_ms;
  s.workload.remote_call_high = 1500_ms;
  s.workload.gateway_timeout = 15_s;
  const RunResult r = properties::run_checked(s);
  EXPECT_GE(renewals(r), 8);
  ASSERT_TRUE(r.result("lease_expired_while_held").reached);
  EXPECT_EQ(r.result("lease_expired_while_held").note,
            "r1#1 believed it held lock:stock:sku1 for longer than its 500ms lease (its last renewal, sent at 1.338731s, ran to 1.838731s)");
  ASSERT_TRUE(r.result("lock_mutual_exclusion").violated);
  EXPECT_GT(r.result("lock_mutual_exclusion").violation->at, sim::Instant::zero() + 1838731_us);  // after the lease ran out
  EXPECT_TRUE(r.result("no_oversell").violated);
}

Scenario failover_scenario(sim::Duration replication_lag) {
  // Long critical sections (1.5s under a 5s lease) so the holder is still working when the
  // replica takes over; the crash comes 350ms after the lock was set.
  Scenario s = scenario("redis_lock_read_modify_write", 4, "at 352ms crash redis-1", 2, 1, 1);
  s.workload.remote_call = 1500_ms;
  s.workload.lock_ttl = 5_s;
  s.workload.lock_wait = 10_s;
  s.workload.gateway_timeout = 15_s;
  s.workload.replication_lag = replication_lag;
  return s;
}

// oversim run --variant redis_lock_read_modify_write --seed 4 --faults 'at 352ms crash redis-1' --buyers 2 --stock 1 --apps 1
//   --remote-call 1500ms --lock-ttl 5s --lock-wait 10s --gateway-timeout 15s --replication-lag 1s
TEST(Classics, AFailoverBeforeTheLockReplicatesHandsTheSameLockToASecondBuyer) {
  const RunResult r = properties::run_checked(failover_scenario(1_s));
  EXPECT_TRUE(has_event(r, "failover"));
  ASSERT_TRUE(r.result("no_oversell").violated);
  EXPECT_EQ(r.result("no_oversell").violation->witness, "sku1: 2 orders committed for an initial stock of 1 (available=0; orders o-r1-1,o-r2-1)");
  EXPECT_TRUE(r.result("lock_mutual_exclusion").violated);
  EXPECT_TRUE(r.result("no_lost_update").violated);
  EXPECT_FALSE(r.result("lease_expired_while_held").reached);  // the lock was lost, not outlived
}

TEST(Classics, TheSameFailoverAfterTheLockReplicatedKeepsItHeld) {
  const RunResult r = properties::run_checked(failover_scenario(20_ms));
  EXPECT_TRUE(has_event(r, "failover"));
  EXPECT_FALSE(r.result("no_oversell").violated);
  EXPECT_FALSE(r.result("lock_mutual_exclusion").violated);
  EXPECT_EQ(r.orders, 1);
}

// oversim run --variant redis_lock_plain_del --faults 'at 75ms clock-jump redis-1 +1039ms' --seed 14
TEST(Classics, ReleasingByPlainDelDeletesTheNextHoldersLockAndOversells) {
  // The jump expires one holder's lease; the next buyer takes the lock; the first finishes and
  // its DEL removes the second's lock; a third buyer gets in while the second still works.
  const Scenario s = scenario("redis_lock_plain_del", 14, "at 75ms clock-jump redis-1 +1039ms", 20, 5, 2);
  const RunResult plain = properties::run_checked(s);
  EXPECT_TRUE(plain.result("no_oversell").violated);
  // The mechanism: a finishing holder's DEL removed the lock of the holder after it.
  ASSERT_TRUE(plain.result("no_foreign_unlock").violated);
  EXPECT_EQ(plain.result("no_foreign_unlock").violation->witness,
            "a DEL from app-2 at    0.076006s removed lock:stock:sku1 on redis-1 while r10#1 (token tok-8-5b5a) still believed it held it");
  EXPECT_TRUE(plain.result("lock_mutual_exclusion").violated);
  Scenario compare = s;
  compare.design = "redis_lock_read_modify_write";  // the same, releasing with a token compare
  const RunResult token = properties::run_checked(compare);
  EXPECT_FALSE(token.result("no_oversell").violated);
  EXPECT_FALSE(token.result("no_foreign_unlock").violated);
  EXPECT_GT(token.counters.at("lock.expired-before-release"), 0);  // its compare found another token
  EXPECT_EQ(token.orders, 5);
}

// oversim run --variant read_modify_write --seed 1 --faults none --buyers 2 --stock 1 --apps 1
TEST(Classics, WithoutALockTwoBuyersReadTheLastUnitAndBothWriteOneLess) {
  const RunResult r = properties::run_checked(scenario("read_modify_write", 1, "", 2, 1, 1));
  ASSERT_TRUE(r.result("no_oversell").violated);
  EXPECT_EQ(r.result("no_oversell").violation->witness, "sku1: 2 orders committed for an initial stock of 1 (available=0; orders o-r1-1,o-r2-1)");
  EXPECT_TRUE(r.result("no_lost_update").violated);
  const RunResult safe = properties::run_checked(scenario("db_conditional_update", 1, "", 2, 1, 1));
  EXPECT_FALSE(safe.result("no_oversell").violated);
  // The mechanism: the second UPDATE waited for the first's row lock, re-read the committed
  // row and its WHERE available >= 1 turned the buyer away (the CHECK never had to).
  EXPECT_TRUE(safe.result("where_rechecked_after_wait").reached);
  EXPECT_FALSE(safe.result("check_constraint_fired").reached);
  EXPECT_EQ(safe.results.at(protocols::BuyResult::sold_out), 1);
  EXPECT_EQ(safe.orders, 1);
}

// oversim run --variant db_conditional_update --seed 1 --faults 'at 24ms cut db -> app-1; at 100ms heal' --buyers 1 --stock 2 --apps 1 --retries 1
TEST(Classics, AGatewayRetryAfterALostCommitReplyBuysTwiceWithoutIdempotency) {
  Scenario s = scenario("db_conditional_update", 1, "at 24ms cut db -> app-1; at 100ms heal", 1, 2, 1);
  s.workload.max_retries = 1;
  const RunResult r = properties::run_checked(s);
  ASSERT_TRUE(r.result("no_duplicate_order").violated);
  EXPECT_EQ(r.result("no_duplicate_order").violation->witness, "user=u1 sku=sku1 activity=flash-1 has 2 orders (o-r1-1,o-r1-2)");
  EXPECT_EQ(r.counters.at("retry.gateway"), 1);
  // The recipe (idempotency key + unique indexes) commits later: its COMMIT reply is lost by a
  // cut at 26ms. The retry finds the key taken, looks the order up and returns it.
  // oversim run --variant article_recipe --seed 1 --faults 'at 26ms cut db -> app-1; at 100ms heal' --buyers 1 --stock 2 --apps 1 --retries 1
  Scenario recipe = scenario("article_recipe", 1, "at 26ms cut db -> app-1; at 100ms heal", 1, 2, 1);
  recipe.workload.max_retries = 1;
  const RunResult safe = properties::run_checked(recipe);
  EXPECT_FALSE(safe.result("no_duplicate_order").violated);
  EXPECT_EQ(safe.counters.at("retry.gateway"), 1);
  EXPECT_EQ(safe.counters.at("idempotency.repeat"), 1);
  EXPECT_EQ(safe.results.at(protocols::BuyResult::sold), 1);
  EXPECT_EQ(safe.orders, 1);
}

// A customer charged and told no: the buyer's first attempt commits the last unit but its COMMIT
// reply is lost (a cut at 24ms); the gateway retries, the retry's conditional decrement finds no
// stock left, and the buyer is told "sold out" while its own order is in the database.
// oversim run --variant db_conditional_update --seed 1 --faults 'at 24ms cut db -> app-1; at 100ms heal' --buyers 1 --stock 1 --apps 1 --retries 1
TEST(Classics, ARetryThatFindsTheLastUnitGoneTellsTheBuyerWhoBoughtItSoldOut) {
  Scenario s = scenario("db_conditional_update", 1, "at 24ms cut db -> app-1; at 100ms heal", 1, 1, 1);
  s.workload.max_retries = 1;
  const RunResult r = properties::run_checked(s);
  ASSERT_TRUE(r.result("no_told_wrong").violated);
  EXPECT_EQ(r.result("no_told_wrong").violation->witness, "buyer u1 was told sold-out at 0.322502s, but order o-r1-1 is committed for it");
  EXPECT_FALSE(r.result("no_duplicate_order").violated);  // one order: the retry sold nothing
  EXPECT_EQ(r.orders, 1);
  EXPECT_EQ(r.results.at(protocols::BuyResult::unknown), 1);   // the attempt whose reply was lost
  EXPECT_EQ(r.results.at(protocols::BuyResult::sold_out), 1);  // the retry
  EXPECT_EQ(r.metrics.told_wrong, 1);
  EXPECT_EQ(r.metrics.told_sold_out, 1);
  EXPECT_EQ(r.metrics.bought, 0);

  // The same scenario, a design that checks every "no" against the buyer's orders: the retry's
  // decrement finds no stock, the lookup finds the first attempt's order, the buyer is told it
  // bought it.
  // oversim run --variant db_conditional_lookup --seed 1 --faults 'at 24ms cut db -> app-1; at 100ms heal' --buyers 1 --stock 1 --apps 1 --retries 1
  Scenario lookup = scenario("db_conditional_lookup", 1, "at 24ms cut db -> app-1; at 100ms heal", 1, 1, 1);
  lookup.workload.max_retries = 1;
  const RunResult safe = properties::run_checked(lookup);
  EXPECT_FALSE(safe.result("no_told_wrong").violated);
  EXPECT_EQ(safe.counters.at("lookup.found-order"), 1);  // the mechanism: the retry answered from the order
  EXPECT_EQ(safe.orders, 1);
  EXPECT_EQ(safe.metrics.bought, 1);
  EXPECT_EQ(safe.metrics.told_wrong, 0);
  ASSERT_EQ(safe.acks, 1);
}

// The issue-28 sale: under retries the article's recipe commits an order for every one of its 20
// buyers, and tells 14 of them "sold out" (each retried click's conditional decrement finds the
// stock its own earlier attempt took). no_told_wrong counts all 14.
// oversim run --variant article_recipe --seed 1 --faults 'on 7th before_write cut db -> here; on 7th before_write after 57ms heal' --stock 20 --retries 2 --double-click 1/4
TEST(Classics, UnderRetriesTheRecipeCommitsEveryOrderAndTellsMostBuyersSoldOut) {
  Scenario s;
  s.design = "article_recipe";
  s.seed = 1;
  s.search.kind = protocols::Search::Kind::swarm;  // the command line's default
  s = protocols::apply_profile("retries", s);
  EXPECT_EQ(s.faults.to_string(), "on 7th before_write cut db -> here; on 7th before_write after 57ms heal");
  const RunResult r = properties::run_checked(s);
  EXPECT_EQ(r.orders, 20);
  EXPECT_EQ(r.metrics.sold, 20);
  EXPECT_EQ(r.metrics.units, 20);  // the profile's widened stock, not the default 5
  EXPECT_EQ(r.metrics.bought, 6);
  EXPECT_EQ(r.metrics.told_sold_out, 14);
  EXPECT_EQ(r.metrics.told_wrong, 14);
  ASSERT_TRUE(r.result("no_told_wrong").violated);
  EXPECT_FALSE(r.result("no_oversell").violated);
  EXPECT_FALSE(r.result("no_duplicate_order").violated);
}

// oversim run --variant async_order_write --seed 11 --faults 'at 60ms crash app-1' --buyers 1 --stock 1 --apps 1
TEST(Classics, AnInMemoryOrderQueueDiesWithItsProcessAndLosesAcknowledgedOrders) {
  const RunResult r = properties::run_checked(scenario("async_order_write", 11, "at 60ms crash app-1", 1, 1, 1));
  ASSERT_TRUE(r.result("no_lost_order").violated);
  EXPECT_EQ(r.result("no_lost_order").violation->witness,
            "buyer u1 was told order o-r1-1 succeeded at    0.025346s, but it is not in the database");
  EXPECT_TRUE(r.result("ledger_conservation").violated);
  EXPECT_FALSE(r.result("no_oversell").violated);
  EXPECT_EQ(r.acks, 1);
  EXPECT_EQ(r.orders, 0);
}

// oversim run --variant setnx_dedup_only --seed 4 --faults 'on write_unreplicated in redis-1 crash redis-1;
//   on write_unreplicated in redis-1 after 3s restart redis-1; on before_commit cut db -> here;
//   on before_commit after 275ms heal' --buyers 1 --stock 2 --apps 1 --retries 1 --remote-call 1500ms
//   --lock-ttl 5s --lock-wait 10s --gateway-timeout 15s
// (what `check --variant setnx_dedup_only --faults failover+retries` shrinks its first failure to)
TEST(Classics, ADedupKeyOnlyInRedisIsLostInAFailoverAndTheRetryOrdersAgain) {
  Scenario s = scenario("setnx_dedup_only", 4,
                        "on write_unreplicated in redis-1 crash redis-1; on write_unreplicated in redis-1 after 3s restart redis-1; "
                        "on before_commit cut db -> here; on before_commit after 275ms heal",
                        1, 2, 1);
  s.workload.max_retries = 1;
  s.workload.remote_call = sim::Duration::ms(1500);
  s.workload.lock_ttl = sim::Duration::s(5);
  s.workload.lock_wait = sim::Duration::s(10);
  s.workload.gateway_timeout = sim::Duration::s(15);
  const RunResult r = properties::run_checked(s);
  // The key was written on the primary, which crashed before replicating it; the replica that
  // Sentinel promoted never had it, so the gateway's retry of the purchase whose commit reply was
  // cut finds no key, and orders again. One buyer, two orders.
  ASSERT_TRUE(r.result("no_duplicate_order").violated);
  EXPECT_EQ(r.result("no_duplicate_order").violation->witness, "user=u1 sku=sku1 activity=flash-1 has 2 orders (o-r1-1,o-r1-2)");
  EXPECT_TRUE(r.result("failover_happened").reached);
  EXPECT_FALSE(r.result("no_oversell").violated);
  EXPECT_EQ(r.orders, 2);

  // The same run without the crash: the retry finds the key and answers with the first order.
  Scenario kept = s;
  kept.faults = sim::FaultPlan::parse("on before_commit cut db -> here; on before_commit after 275ms heal");
  const RunResult k = properties::run_checked(kept);
  EXPECT_FALSE(k.result("no_duplicate_order").violated);
  EXPECT_EQ(k.orders, 1);
}

// oversim run --variant redis_prededuct_sync_db --seed 1 --faults 'on after_stock_taken crash redis-1;
//   on after_stock_taken after 3s restart redis-1' --buyers 2 --stock 1 --apps 1 --remote-call 1500ms
//   --gateway-timeout 15s
// (the shape `check --variant redis_prededuct_sync_db --faults failover` shrinks to)
TEST(Classics, AStockDecrementAcknowledgedByRedisIsLostInAFailoverAndTheUnitSellsTwice) {
  Scenario s = scenario("redis_prededuct_sync_db", 1, "on after_stock_taken crash redis-1; on after_stock_taken after 3s restart redis-1", 2, 1, 1);
  s.workload.remote_call = sim::Duration::ms(1500);
  s.workload.gateway_timeout = sim::Duration::s(15);
  const RunResult r = properties::run_checked(s);
  // r1's decrement answered OK and the primary crashed before shipping it; Sentinel promoted the
  // replica, which still counts one unit, and r2's click again (its first try found no Redis:
  // "busy") takes it. Both orders commit: the database mirrors what Redis decided.
  ASSERT_TRUE(r.result("no_oversell").violated);
  EXPECT_EQ(r.result("no_oversell").violation->witness, "sku1: 2 orders committed for an initial stock of 1 (available=-1; orders o-r1-1,o-r2-c3-1)");
  EXPECT_TRUE(r.result("failover_happened").reached);
  EXPECT_EQ(r.orders, 2);

  // Without the crash Redis remembers the decrement: one order, the other buyer told sold out.
  Scenario kept = s;
  kept.faults = {};
  const RunResult k = properties::run_checked(kept);
  EXPECT_FALSE(k.result("no_oversell").violated);
  EXPECT_EQ(k.orders, 1);
}

// oversim run --variant redis_prededuct_async_db --seed 1 --faults 'on before_write pause here for 2s'
//   --buyers 1 --stock 1 --apps 2
TEST(Classics, AConsumerStalledPastMaxPollIntervalLosesItsRecordWhichIsWrittenOnce) {
  const RunResult r = properties::run_checked(scenario("redis_prededuct_async_db", 1, "on before_write pause here for 2s", 1, 1, 2));
  // The order writer on app-2 paused in the middle of the order's transaction; after a second
  // without a poll the broker gave its partition to app-1, which wrote the order. app-2 woke,
  // found the order there (the primary key), rolled back, and its commit was refused.
  auto counter = [&](const std::string& name) {
    auto it = r.counters.find(name);
    return it == r.counters.end() ? int64_t{0} : it->second;
  };
  EXPECT_EQ(counter("order.written"), 1);
  EXPECT_EQ(counter("order.already-written"), 1);
  EXPECT_EQ(counter("mq.commit-refused"), 1);
  EXPECT_TRUE(has_event(r, "mq-rebalance"));
  EXPECT_EQ(r.orders, 1);
  EXPECT_FALSE(r.result("no_duplicate_order").violated);
  EXPECT_FALSE(r.result("no_lost_order").violated);
  EXPECT_FALSE(r.result("no_oversell").violated);
}

// oversim run --variant mq_serialized_per_sku --seed 1 --faults 'on before_write pause here for 1159ms'
//   --buyers 4 --stock 2
// (what `check --variant mq_serialized_per_sku --faults gc-pause` shrinks seed 69 to)
TEST(Classics, AStalledConsumerWakesAndWritesAStaleStockAfterItsPartitionMoved) {
  const RunResult r = properties::run_checked(scenario("mq_serialized_per_sku", 1, "on before_write pause here for 1159ms", 4, 2, 2));
  // app-2 read 2 units for r3's request and paused; a second later the broker gave its
  // partition to app-1, which sold r3 and r1 (stock 1, then 0). app-2 woke and wrote the stock it
  // had computed, 1, before its insert of r3's order failed on the primary key: the unit came
  // back, and app-1 sold it to r2. Three orders for two units.
  ASSERT_TRUE(r.result("per_sku_serialization").violated);
  EXPECT_EQ(r.result("per_sku_serialization").violation->witness.rfind("sku1: app-2#0 processed offset 0", 0), 0u)
      << r.result("per_sku_serialization").violation->witness;
  ASSERT_TRUE(r.result("no_oversell").violated);
  EXPECT_EQ(r.result("no_oversell").violation->witness, "sku1: 3 orders committed for an initial stock of 2 (available=0; orders o-r1-1,o-r2-1,o-r3-1)");
  EXPECT_EQ(r.orders, 3);

  // A pause shorter than max.poll.interval keeps the partition where it is: two orders.
  const RunResult short_pause = properties::run_checked(scenario("mq_serialized_per_sku", 1, "on before_write pause here for 500ms", 4, 2, 2));
  EXPECT_FALSE(short_pause.result("per_sku_serialization").violated);
  EXPECT_FALSE(short_pause.result("no_oversell").violated);
  EXPECT_EQ(short_pause.orders, 2);
}

// oversim run --variant marker_before_effect --seed 1 --faults 'on before_write cut db -> here;
//   on before_write after 225ms heal' --buyers 1 --stock 1 --apps 1
TEST(Classics, AProcessedMarkerWrittenBeforeTheEffectLosesTheOrderWhoseWriteFailed) {
  const char* plan = "on before_write cut db -> here; on before_write after 225ms heal";
  const RunResult r = properties::run_checked(scenario("marker_before_effect", 1, plan, 1, 1, 1));
  // The writer set done:o-r1-1, then lost the reply of its stock write; its retry found the
  // marker and skipped the record. The buyer was told "sold"; no order exists.
  ASSERT_TRUE(r.result("no_lost_order").violated);
  EXPECT_EQ(r.result("no_lost_order").violation->witness.rfind("buyer u1 was told order o-r1-1 succeeded at", 0), 0u)
      << r.result("no_lost_order").violation->witness;
  EXPECT_GE(r.counters.at("marker.skipped"), 1);  // the retry, and the redelivery after its 5 s wait cost it the partition
  EXPECT_EQ(r.orders, 0);

  // The same fault on the writer that relies on the order's primary key instead: written once.
  const RunResult keyed = properties::run_checked(scenario("redis_prededuct_async_db", 1, plan, 1, 1, 1));
  EXPECT_FALSE(keyed.result("no_lost_order").violated);
  EXPECT_EQ(keyed.orders, 1);
}

// oversim run --variant prededuct_double_compensation --seed 7 --buyers 3 --stock 1 --apps 2
//   --unpaid 1/1 --arrival poisson --poisson-mean 1s --faults 'on before_compensate pause here for 500ms'
TEST(Classics, ATimeoutJobAndTheCancelBothGiveTheUnitBackAndItSellsTwice) {
  Scenario s = scenario("prededuct_double_compensation", 7, "on before_compensate pause here for 500ms", 3, 1, 2);
  s.workload.unpaid = sim::Ratio::always();
  s.workload.arrival = protocols::Arrival::poisson;
  s.workload.poisson_mean = sim::Duration::s(1);
  const RunResult r = properties::run_checked(s);
  // u1's page read o-r1-1 'pending' and paused before its update; the timeout job on app-2
  // cancelled it and gave the unit back; the page woke, cancelled it again and gave it back
  // again: Redis held 2 units of a stock of 1, and u2 and u3, arriving later, both bought.
  ASSERT_TRUE(r.result("no_oversell").violated);
  EXPECT_EQ(r.result("no_oversell").violation->witness, "sku1: 2 orders committed for an initial stock of 1 (available=0; orders o-r2-1,o-r3-1)");
  EXPECT_TRUE(r.result("compensation_converges").violated);
  EXPECT_NE(r.result("compensation_converges").violation->witness.find("compensations committed for 3 cancelled orders"), std::string::npos)
      << r.result("compensation_converges").violation->witness;
  EXPECT_GE(r.counters.at("cancel.by-timeout"), 1);
  EXPECT_GE(r.counters.at("cancel.by-page"), 1);

  // The same pause on the design whose cancel is guarded by the status and whose give-back is
  // once per order: the second canceller's UPDATE matches nothing; one unit comes back.
  Scenario guarded = s;
  guarded.design = "prededuct_reconciled";
  const RunResult g = properties::run_checked(guarded);
  EXPECT_FALSE(g.result("no_oversell").violated);
  EXPECT_FALSE(g.result("compensation_converges").violated);
  EXPECT_GE(g.counters.at("compensation.not-pending"), 1);
}

// oversim run --variant prededuct_reconciled --seed 1 --buyers 2 --stock 1 --apps 2
//   --faults 'on after_stock_taken crash here; on after_stock_taken after 1s restart here'
TEST(Classics, AReconcilerGivesBackTheUnitOfAPurchaseThatDiedBetweenRedisAndTheDatabase) {
  const char* plan = "on after_stock_taken crash here; on after_stock_taken after 1s restart here";
  const RunResult r = properties::run_checked(scenario("prededuct_reconciled", 1, plan, 2, 1, 2));
  // app-1 took the unit in Redis (decr_and_reserve left resv:sku1:1) and died before writing the
  // order. Two seconds on, a reconciler found the record with no order, claimed o-r1-1 with a
  // 'void' row (the other node's claim hit the primary key) and gave the unit back once.
  EXPECT_FALSE(r.result("compensation_converges").violated);
  EXPECT_FALSE(r.result("no_vanished_stock").violated);
  EXPECT_EQ(r.counters.at("reconcile.voided"), 1);
  EXPECT_EQ(r.metrics.stock_gap, 0);
  EXPECT_EQ(r.metrics.voided, 1);

  // The same crash without a reconciler: the unit stays taken in Redis, the database still has
  // it, and it is never sold.
  const RunResult plain = properties::run_checked(scenario("redis_prededuct_sync_db", 1, plan, 2, 1, 2));
  ASSERT_TRUE(plain.result("no_vanished_stock").violated);
  EXPECT_EQ(plain.result("no_vanished_stock").violation->witness,
            "sku1: 1 unit(s) vanished from Redis: stock 0 + sold 0 of an initial stock of 1 (the database has 1 available)");
  EXPECT_EQ(plain.result("compensation_converges").violation->witness, "sku1: Redis holds 0 unit(s), the database 1: a gap of -1 after quiescence");
}

// oversim run --variant prededuct_expiry_compensation --seed 1 --buyers 1 --stock 1 --apps 1
//   --unpaid 1/1 --faults 'at 1s crash app-1; at 1500ms restart app-1'
TEST(Classics, AnExpiryEventPublishedWhileTheListenerIsDownIsLostForGood) {
  Scenario s = scenario("prededuct_expiry_compensation", 1, "at 1s crash app-1; at 1500ms restart app-1", 1, 1, 1);
  s.workload.unpaid = sim::Ratio::always();
  const RunResult r = properties::run_checked(s);
  // hold:o-r1-1 expired at 1.1s (the active expire cycle), while the only listener's process was
  // down; the listener subscribed again at 1.5s, and Pub/Sub keeps nothing for it: the order
  // stays pending and its unit taken.
  bool expired_while_down = false;
  for (const auto& e : r.events) {
    if (e.kind == "redis-expire" && e.at > sim::Instant::from_ns(1'000'000'000) && e.at < sim::Instant::from_ns(1'500'000'000)) expired_while_down = true;
  }
  EXPECT_TRUE(expired_while_down);
  ASSERT_TRUE(r.result("compensation_converges").violated);
  EXPECT_EQ(r.result("compensation_converges").violation->witness,
            "sku1: 1 order(s) still pending after quiescence, their units held with nobody left to cancel them (o-r1-1)");
  EXPECT_EQ(r.counters.count("expired.heard"), 0u);

  // Without the crash the listener hears it and the unit comes back.
  Scenario calm = s;
  calm.faults = sim::FaultPlan{};
  const RunResult c = properties::run_checked(calm);
  EXPECT_FALSE(c.result("compensation_converges").violated);
  EXPECT_EQ(c.counters.at("expired.heard"), 1);
  EXPECT_EQ(c.metrics.cancelled, 1);
}

// The article's traffic layer: "when the lock service is down, degrade to queueing or rate
// limiting, never let traffic through". Redis is only down here (standalone, crashed 1ms into the
// default sale of 20 buyers for 5 units, back at 3s): no lock is lost and no replica takes over.
// oversim run --variant <design> --seed 1 --redis-replicas 0 --faults 'at 1ms crash redis-1; at 3s restart redis-1'
TEST(Classics, WithRedisDownTheBreakerShedsOrQueuesFailingOpenOversellsAndNoDegradeStallsTheSale) {
  auto outage = [](const char* design) {
    Scenario s;
    s.design = design;
    s.seed = 1;
    s.workload.redis_replicas = 0;
    s.typed = {"--redis-replicas"};
    s.faults = sim::FaultPlan::parse("at 1ms crash redis-1; at 3s restart redis-1");
    return properties::run_checked(s);
  };
  auto counter = [](const RunResult& r, const char* name) {
    auto at = r.counters.find(name);
    return at == r.counters.end() ? int64_t{0} : at->second;
  };
  // Rejects while its breaker is open: buyers hear busy at once and click again; once Redis is
  // back a probe closes the breaker and the stock sells out, exactly.
  const RunResult sheds = outage("token_bucket_degrade");
  EXPECT_FALSE(sheds.result("no_oversell").violated);
  EXPECT_FALSE(sheds.result("progress").violated);
  EXPECT_EQ(sheds.metrics.sold, 5);
  ASSERT_EQ(sheds.metrics.sell_out.size(), 1u);
  EXPECT_GT(sheds.metrics.sell_out.front(), sim::Duration::s(3));
  EXPECT_GT(counter(sheds, "shed.degrade"), 0);
  EXPECT_GE(counter(sheds, "breaker.opened"), 2);  // each app node's own breaker
  EXPECT_EQ(counter(sheds, "degrade.let-through"), 0);
  EXPECT_GT(counter(sheds, "shed.rate-limit"), 0);  // 20 buyers at once, a bucket of 10

  // Queues them: a consumer takes each unit with the conditional decrement, and the sale goes on
  // while Redis is down.
  const RunResult queues = outage("degrade_to_queue");
  EXPECT_FALSE(queues.result("no_oversell").violated);
  EXPECT_FALSE(queues.result("progress").violated);
  EXPECT_EQ(queues.metrics.sold, 5);
  ASSERT_EQ(queues.metrics.sell_out.size(), 1u);
  EXPECT_LT(queues.metrics.sell_out.front(), sim::Duration::s(3));  // before Redis is back
  EXPECT_GT(counter(queues, "degrade.queued"), 0);
  EXPECT_EQ(counter(queues, "shed.degrade") + counter(queues, "degrade.let-through"), 0);

  // Lets purchases through without the lock: every buyer's read-then-write runs at once.
  const RunResult open = outage("degrade_fail_open");
  ASSERT_TRUE(open.result("no_oversell").violated);
  EXPECT_FALSE(open.result("lock_mutual_exclusion").violated);  // no lock failed: the degrade path did it
  EXPECT_GT(counter(open, "degrade.let-through"), 0);
  EXPECT_EQ(open.metrics.sold, 20);

  // No degrade path: every purchase polls the dead primary until --lock-wait (2s) runs out,
  // while the gateway stops waiting at 300ms; the buyers hear nothing and leave, units unsold.
  const RunResult stalls = outage("redis_lock_conditional");
  EXPECT_FALSE(stalls.result("no_oversell").violated);
  ASSERT_TRUE(stalls.result("progress").violated);
  EXPECT_NE(stalls.result("progress").violation->witness.find("units left unsold"), std::string::npos);
  EXPECT_EQ(stalls.metrics.unanswered, 19);
  // Bounded load: the breaker leaves a fraction of the requests unanswered that polling does.
  EXPECT_LT(counter(sheds, "lock.unanswered") * 10, counter(stalls, "lock.unanswered"))
      << counter(sheds, "lock.unanswered") << " vs " << counter(stalls, "lock.unanswered");
}

// no_lost_ack_write: a write Redis acknowledged survives only if the primary clients reach at the
// end has it in its history (its lineage, as PSYNC2's replication ids).
TEST(Classics, AWriteRedisAcknowledgedIsLostToAFailoverBeforeItsReplicaHadIt) {
  // The failover profile crashes the primary right after it acknowledged a write its replica
  // lacks: Sentinel promotes the replica, and the write is not in the new primary's history.
  Scenario s;
  s.design = "redis_prededuct_sync_db";
  s.seed = 1;
  s = protocols::apply_profile("failover", s);
  const RunResult lost = properties::run_checked(s);
  ASSERT_TRUE(lost.result("failover_happened").reached);
  ASSERT_TRUE(lost.result("no_lost_ack_write").violated);
  const std::string& witness = lost.result("no_lost_ack_write").violation->witness;
  EXPECT_EQ(witness.rfind("a write of stock:sku1 that redis-1 acknowledged to app-", 0), 0u) << witness;
  EXPECT_NE(witness.find("redis-2, the primary now, has"), std::string::npos) << witness;

  // A failover after the replica caught up loses nothing: the promoted replica's history goes on
  // from redis-1's.
  const RunResult caught_up = properties::run_checked(scenario("redis_prededuct_sync_db", 1, "at 1s crash redis-1; at 4s restart redis-1", 20, 5, 2));
  ASSERT_TRUE(caught_up.result("failover_happened").reached);
  EXPECT_FALSE(caught_up.result("no_lost_ack_write").violated);

  // Without a replica, a restart without persistence starts a new history; with appendfsync
  // always it keeps every acknowledged write.
  Scenario bare = scenario("redis_prededuct_sync_db", 1, "at 10ms crash redis-1; at 500ms restart redis-1", 20, 5, 2);
  bare.workload.redis_replicas = 0;
  const RunResult forgot = properties::run_checked(bare);
  ASSERT_TRUE(forgot.result("no_lost_ack_write").violated);
  EXPECT_NE(forgot.result("no_lost_ack_write").violation->witness.find("redis-1, the primary now, has no write of redis-1:1"), std::string::npos)
      << forgot.result("no_lost_ack_write").violation->witness;
  bare.workload.redis_persistence = protocols::RedisPersistence::always;
  EXPECT_FALSE(properties::run_checked(bare).result("no_lost_ack_write").violated);
}

TEST(Classics, TheFirstFailureOfASweepReplaysBitForBitFromItsScenario) {
  properties::SweepOptions opt;
  opt.base.design = "redis_lock_read_modify_write";
  opt.profile = "gc-pause";
  opt.seeds = 20;
  opt.jobs = 2;
  const properties::SweepResult sw = properties::sweep(opt);
  ASSERT_TRUE(sw.first_failure.has_value());
  // The sweep, merged from two threads, agrees with the seeds run one by one: the lowest
  // failing seed is the first failure, and each count is the number of runs.
  uint64_t lowest = 0;
  int64_t oversold = 0;
  for (uint64_t seed = opt.first_seed; seed < opt.first_seed + opt.seeds; ++seed) {
    const RunResult r = properties::run_checked(properties::scenario_for(opt, seed));
    if (lowest == 0 && r.violates(opt.asserted)) lowest = seed;
    oversold += r.result("no_oversell").violated ? 1 : 0;
  }
  ASSERT_NE(lowest, 0u);
  EXPECT_EQ(sw.first_failing_seed, lowest);
  EXPECT_EQ(sw.first_failure->scenario.seed, lowest);
  EXPECT_EQ(sw.counts.at("no_oversell").violated, oversold);
  EXPECT_EQ(sw.counts.at("no_oversell").first_seed, lowest);
  EXPECT_EQ(sw.runs, opt.seeds);
  const RunResult again = properties::run_checked(sw.first_failure->scenario);
  EXPECT_EQ(again.outcome.hash(), sw.first_failure->outcome.hash());
  EXPECT_TRUE(again.result("no_oversell").violated);
}

// compare's grid: cells on one pool of jobs, costliest first, each counted as sweep() counts it
// alone, handed back in cell order; a cell that does not apply runs nothing.
TEST(Classics, CellsOnOnePoolCountAsTheirOwnSweepsAndArriveInOrder) {
  std::vector<properties::SweepOptions> cells;
  for (const char* design : {"redis_lock_read_modify_write", "db_conditional_update", "redis_lock_conditional"}) {
    for (const char* profile : {"gc-pause", "failover"}) {
      properties::SweepOptions& o = cells.emplace_back();
      o.base.design = design;
      o.profile = profile;
      o.seeds = 6;
    }
  }
  const std::vector<double> cost = {1, 5, 0, 2, 9, 3};  // the last cells first
  for (unsigned jobs : {1u, 3u}) {
    std::vector<size_t> arrived;
    uint64_t progress_runs = 0;
    properties::sweep_cells(
        cells, cost, jobs, [&](uint64_t runs, uint64_t) { progress_runs = std::max(progress_runs, runs); },
        [&](size_t i, properties::SweepResult&& got) {
          arrived.push_back(i);
          const properties::SweepResult alone = properties::sweep(cells[i]);
          EXPECT_EQ(got.inapplicable, alone.inapplicable) << i;
          EXPECT_EQ(got.runs, alone.runs) << i;
          EXPECT_EQ(got.violating_runs, alone.violating_runs) << i;
          EXPECT_EQ(got.first_failing_seed, alone.first_failing_seed) << i;
          EXPECT_EQ(got.first_failure.has_value(), alone.first_failure.has_value()) << i;
          if (got.first_failure) {
            EXPECT_EQ(got.first_failure->outcome.hash(), alone.first_failure->outcome.hash()) << i;
          }
          for (const auto& [name, count] : alone.counts) {
            EXPECT_EQ(got.counts[name].violated, count.violated) << i << " " << name;
            EXPECT_EQ(got.counts[name].reached, count.reached) << i << " " << name;
          }
          EXPECT_EQ(got.counters, alone.counters) << i;
        });
    EXPECT_EQ(arrived, (std::vector<size_t>{0, 1, 2, 3, 4, 5})) << jobs << " jobs";
    EXPECT_EQ(progress_runs, 5u * 6u) << "db_conditional_update under failover does not apply";
  }
  // A throw while a row is handed back stops the grid and reaches the caller.
  EXPECT_THROW(properties::sweep_cells(cells, cost, 2, {}, [](size_t i, properties::SweepResult&&) {
                 if (i == 1) throw std::runtime_error("stop");
               }),
               std::runtime_error);
}

TEST(Classics, ShrinkingKeepsTheViolationAndMakesTheScenarioSmaller) {
  Scenario big = scenario("redis_lock_read_modify_write", 11, "at 23ms pause app-1 for 1493ms", 20, 5, 2);
  big = protocols::apply_profile("gc-pause", big);
  ASSERT_TRUE(properties::run_checked(big).result("no_oversell").violated);
  const Scenario small = properties::shrink(big, {"no_oversell"});
  EXPECT_TRUE(properties::run_checked(small).result("no_oversell").violated);
  // As small as this shrinker gets: one pause, one app node, and one more buyer than units.
  EXPECT_EQ(small.faults.faults.size(), 1u);
  EXPECT_EQ(small.workload.app_nodes, 1);
  EXPECT_LE(small.workload.buyers, 3) << properties::reproduce_command(small);
  EXPECT_EQ(small.workload.buyers, small.workload.stock + 1) << properties::reproduce_command(small);
}

}  // namespace
}  // namespace oversim
