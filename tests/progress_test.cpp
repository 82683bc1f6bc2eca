// The progress property's stories: what is the design's undersell and what is not. Undersell is
// a unit that vanished (neither available nor sold), or units left unsold while the design turned
// away a buyer of them (sold out, busy, an error) who never bought. A buyer killed with its app
// node, one whose outcome a fault made unknown, or one the gateway turned away with no app node
// up, is not the design's undersell. Each story replays from the command in its comment.
#include <gtest/gtest.h>

#include <string>

#include "properties/checker.h"
#include "tests/small_sale.h"

namespace oversim {
namespace {
using namespace sim::literals;
using properties::RunResult;
using protocols::Scenario;

Scenario sale(const char* design, uint64_t seed, const char* faults, int buyers, int64_t stock, int apps) {
  return testing::small_sale(design, seed, faults, buyers, stock, apps);
}

int64_t counter(const RunResult& r, const std::string& name) {
  auto it = r.counters.find(name);
  return it == r.counters.end() ? 0 : it->second;
}

// The lone buyer's app node is killed just before COMMIT: the transaction rolls back, the unit is
// back in stock, and the buyer heard nothing. Nobody was turned away and nothing vanished: the
// unit is unsold because of the fault, not the design. The property once counted every unit
// left over against the buyers who wanted it, and called this an undersell.
// oversim run --variant db_conditional_update --seed 1 --buyers 1 --stock 1 --faults 'on before_commit crash here'
TEST(ProgressStories, ABuyerKilledWithItsNodeBeforeCommitIsNotTheDesignsUndersell) {
  const RunResult r = properties::run_checked(sale("db_conditional_update", 1, "on before_commit crash here", 1, 1, 2));
  EXPECT_EQ(counter(r, "attempt.died-with-node"), 1) << "the buyer was not killed: the story tested nothing";
  EXPECT_EQ(r.orders, 0);
  EXPECT_EQ(r.metrics.unanswered, 1);
  EXPECT_FALSE(r.result("ledger_conservation").violated);  // the unit is back: available 1
  EXPECT_FALSE(r.result("progress").violated) << r.result("progress").violation->witness;
}

// With every app node down, the gateway answers failed itself: the design never saw the request.
// oversim run --variant redis_lock_conditional --seed 1 --buyers 1 --stock 1 --apps 1 --patience 0
//   --faults 'at 0 crash app-1; at 2s restart app-1'
TEST(ProgressStories, ABuyerTheGatewayTurnedAwayWithNoAppNodeUpIsNotTheDesignsUndersell) {
  Scenario s = sale("redis_lock_conditional", 1, "at 0 crash app-1; at 2s restart app-1", 1, 1, 1);
  s.workload.patience = 0_s;
  const RunResult r = properties::run_checked(s);
  EXPECT_EQ(counter(r, "gateway.no-app"), 1);
  EXPECT_EQ(r.orders, 0);
  EXPECT_FALSE(r.result("progress").violated) << r.result("progress").violation->witness;
}

// The in-memory order queue dies with its process after the decrement committed: the unit is gone
// from stock and no order has it. A unit neither available nor sold is an undersell, whoever was
// or was not turned away (the property once read "sold" as initial - available and held).
// oversim run --variant async_order_write --seed 11 --faults 'at 60ms crash app-1' --buyers 1 --stock 1 --apps 1
TEST(ProgressStories, AUnitTakenFromStockWhoseOrderWasLostHasVanishedAndIsAnUndersell) {
  const RunResult r = properties::run_checked(sale("async_order_write", 11, "at 60ms crash app-1", 1, 1, 1));
  EXPECT_EQ(r.orders, 0);
  EXPECT_EQ(r.acks, 1);  // the buyer was told it bought: nobody was turned away
  ASSERT_TRUE(r.result("progress").violated);
  EXPECT_EQ(r.result("progress").violation->witness,
            "sku1: 1 unit(s) vanished, neither available nor sold: available 0 + sold 0 of an initial stock of 1 (undersell)");
  EXPECT_TRUE(r.result("ledger_conservation").violated);
}

// Two buyers, two units, no wait for the lock and one click each: the second buyer is told busy
// while the first holds the lock, and one unit is left: the design's undersell.
// oversim run --variant redis_lock_conditional --seed 1 --buyers 2 --stock 2 --remote-call 100ms --lock-wait 0 --patience 0
TEST(ProgressStories, ABuyerToldBusyWhileStockRemainedLeavesTheDesignsUndersell) {
  Scenario s = sale("redis_lock_conditional", 1, "", 2, 2, 2);
  s.workload.remote_call = 100_ms;
  s.workload.remote_call_high = 100_ms;
  s.workload.lock_wait = sim::Duration::zero();
  s.workload.patience = 0_s;
  const RunResult r = properties::run_checked(s);
  EXPECT_EQ(r.orders, 1);
  ASSERT_TRUE(r.result("progress").violated);
  EXPECT_EQ(r.result("progress").violation->witness, "sku1: 1 of 2 units left unsold while buyer u2 was told busy at 0.002541s with units left (undersell)");

  // One buyer for two units: one is left, but nobody who wanted it was turned away.
  s.workload.buyers = 1;
  const RunResult alone = properties::run_checked(s);
  EXPECT_EQ(alone.orders, 1);
  EXPECT_FALSE(alone.result("progress").violated);
}

// The holder's 2.5s call outlasts the second buyer's 2s lock wait, which outlasts the gateway's
// 300ms: the second buyer hears nothing, but the design still answers its attempt busy with a
// unit left. Hearing nothing does not excuse a refusal the design made anyway.
// oversim run --variant redis_lock_conditional --seed 1 --buyers 2 --stock 2 --remote-call 2500ms --lock-ttl 5s --lock-wait 2s --patience 0
TEST(ProgressStories, ARefusalTheBuyerNoLongerHeardIsStillTheDesignsUndersell) {
  Scenario s = sale("redis_lock_conditional", 1, "", 2, 2, 2);
  s.workload.remote_call = 2500_ms;
  s.workload.remote_call_high = 2500_ms;
  s.workload.lock_ttl = 5_s;
  s.workload.lock_wait = 2_s;
  s.workload.patience = 0_s;
  const RunResult r = properties::run_checked(s);
  EXPECT_EQ(r.orders, 1);
  EXPECT_EQ(r.metrics.unanswered, 2);
  ASSERT_TRUE(r.result("progress").violated);
  EXPECT_EQ(r.result("progress").violation->witness,
            "sku1: 1 of 2 units left unsold while the design answered buyer u2 busy at 1.995182s, after the gateway had stopped waiting, with units left (undersell)");
}

}  // namespace
}  // namespace oversim
