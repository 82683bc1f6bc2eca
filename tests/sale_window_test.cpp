// The sale at the user's scale: a profile's fault strikes while stock remains, however many
// buyers come after the sell-out; a fault that strikes a sold-out sale tests nothing and the
// coverage says so; and the sale's numbers mean what their names say (no figure improves
// because a fault made the sale worse).
#include <gtest/gtest.h>

#include "properties/checker.h"

namespace oversim {
namespace {

using protocols::Scenario;

Scenario sale(const std::string& design, int buyers, int64_t stock, uint64_t seed) {
  Scenario s;
  s.design = design;
  s.seed = seed;
  s.keep_trace = false;
  s.workload.buyers = buyers;
  s.workload.stock = stock;
  return s;
}

// 100 buyers for 2 units, failing fast when the lock is taken (--lock-wait 0, as typed) and
// clicking again: nearly every lock acquisition and purchase step comes after the sell-out, when
// buyers take the lock only to read an empty stock. A uniform draw over the probe's occurrences
// lands there almost always; the window keeps every fault inside the sale.
Scenario crowded(uint64_t seed) {
  Scenario s = sale("redis_lock_conditional", 100, 2, seed);
  s.workload.lock_wait = sim::Duration::zero();
  s.typed = {"--lock-wait"};
  return s;
}

TEST(SaleWindow, AtAHundredBuyersForTwoUnitsEveryProfilesFaultStrikesWhileStockRemains) {
  for (const char* profile : {"gc-pause", "failover", "partition", "clock-jump", "lock-restart", "app-crash", "slow-rpc", "lost-replies"}) {
    int struck = 0, hit = 0;
    for (uint64_t seed = 1; seed <= 10; ++seed) {
      const Scenario s = protocols::apply_profile(profile, crowded(seed));
      ASSERT_FALSE(s.faults.empty()) << profile << " seed " << seed << ": " << s.unplaced;
      // The plan is aimed at an occurrence inside the window the probe saw.
      const protocols::Probe probe = protocols::probe(s);
      for (const sim::Fault& f : s.faults.faults) {
        if (!f.triggered()) continue;
        EXPECT_LE(f.trigger.nth, probe.points.at(f.trigger.point)) << profile << " seed " << seed;
        EXPECT_GT(probe.in_window(f.trigger.point), 0u) << profile << " seed " << seed;
      }
      const properties::RunResult r = properties::run_checked(s);
      struck += r.result("fault_struck_during_sale").reached ? 1 : 0;
      hit += r.result("fault_hit_held_lock").reached ? 1 : 0;
      EXPECT_EQ(r.faults_fired, r.faults_planned) << profile << " seed " << seed;
    }
    EXPECT_EQ(struck, 10) << profile << ": every fault strikes before the sell-out";
    if (protocols::profile_aims_at_lock(profile)) {
      EXPECT_GT(hit, 5) << profile << ": most strike a held lock";
    }
  }
}

// The window itself: the probe counts each point's occurrences while stock remained, a prefix of
// the sale here (one SKU), and far fewer than all of them.
TEST(SaleWindow, TheProbeSeesTheWindowCloseAtTheSellOut) {
  const protocols::Probe probe = protocols::probe(crowded(1));
  const uint64_t all = probe.points.at("after_acquire");
  const uint64_t inside = probe.in_window("after_acquire");
  EXPECT_GE(inside, 2u);   // the two buyers who bought held the lock inside it
  EXPECT_LT(inside * 10, all);  // and most acquisitions came after the sell-out
  ASSERT_EQ(probe.window.at("after_acquire").size(), 1u);
  EXPECT_EQ(probe.window.at("after_acquire").front().first, 1u);
}

// A pause that strikes a holder of a sold-out SKU's lock: the lock fails (two buyers believe
// they hold it) but there is nothing left to protect, and the coverage says the fault tested
// nothing of the sale.
TEST(SaleWindow, APauseAfterTheSellOutIsNeitherDuringTheSaleNorAHitOnTheLock) {
  Scenario late = sale("redis_lock_conditional", 20, 1, 1);
  late.faults = sim::FaultPlan::parse("on 10th after_acquire pause here for 1.5x lock-ttl");
  const properties::RunResult r = properties::run_checked(late);
  ASSERT_EQ(r.faults_fired, 1u);
  ASSERT_EQ(r.metrics.sell_out.size(), 1u);
  EXPECT_FALSE(r.result("fault_struck_during_sale").reached);
  EXPECT_FALSE(r.result("fault_hit_held_lock").reached);
  // The same pause on the first acquisition strikes the one buyer who can still buy.
  Scenario early = late;
  early.faults = sim::FaultPlan::parse("on after_acquire pause here for 1.5x lock-ttl");
  const properties::RunResult e = properties::run_checked(early);
  EXPECT_TRUE(e.result("fault_struck_during_sale").reached);
  EXPECT_TRUE(e.result("fault_hit_held_lock").reached);
}

// The sell-out and the selling window: a faultless sale of the database alone sells out in tens
// of milliseconds; every figure is consistent with every other.
TEST(SaleWindow, TheSaleNumbersAddUp) {
  const properties::RunResult r = properties::run_checked(sale("db_conditional_update", 20, 5, 1));
  const properties::SaleMetrics& m = r.metrics;
  EXPECT_EQ(m.units, 5);
  EXPECT_EQ(m.sold, 5);
  EXPECT_EQ(m.told_bought, 5);
  EXPECT_EQ(m.buyers, 20);
  EXPECT_EQ(m.bought + m.told_sold_out + m.turned_away + m.unanswered, m.buyers);
  EXPECT_EQ(m.answer_times.size(), 20u);
  ASSERT_EQ(m.sell_out.size(), 1u);
  ASSERT_EQ(m.first_unit.size(), 1u);
  EXPECT_LE(m.first_unit.front(), m.sell_out.front());
  EXPECT_EQ(m.last_unit.front(), m.sell_out.front());  // the last unit sold is the sell-out
  EXPECT_EQ(m.window_us, m.sell_out.front().count_ns() / 1000);
  EXPECT_DOUBLE_EQ(m.orders_per_s(), 5e6 / static_cast<double>(m.window_us));
  EXPECT_EQ(m.deductions, 20);  // every buyer's conditional UPDATE
  EXPECT_EQ(m.deductions_refused, 15);
  EXPECT_EQ(m.ledger_difference, 0);
  EXPECT_EQ(m.lock_acquires, 0);  // no lock service
}

// No figure improves because a fault made the sale worse: a crash that kills a buyer, a pause,
// a lost reply each leave the sale no faster and no more sold than the faultless one, over the
// same seeds.
TEST(SaleWindow, NoFaultMakesTheSaleLookFasterThanNone) {
  for (const char* design : {"db_conditional_update", "redis_lock_conditional", "zk_lock_conditional"}) {
    properties::SaleMetrics none;
    for (uint64_t seed = 1; seed <= 5; ++seed) none.merge(properties::run_checked(sale(design, 40, 5, seed)).metrics);
    for (const char* profile : {"gc-pause", "app-crash", "lost-replies", "slow-rpc"}) {
      properties::SaleMetrics faulted;
      for (uint64_t seed = 1; seed <= 5; ++seed) {
        faulted.merge(properties::run_checked(protocols::apply_profile(profile, sale(design, 40, 5, seed))).metrics);
      }
      EXPECT_LE(faulted.orders_per_s(), none.orders_per_s() * 1.001) << design << " under " << profile;
      EXPECT_LE(faulted.sold, none.sold) << design << " under " << profile;
      EXPECT_GE(faulted.window_us, none.window_us) << design << " under " << profile;
    }
  }
}

}  // namespace
}  // namespace oversim
