// A scenario is checked before it runs: the plan's nodes against the sale's own topology, and
// its faults against the horizon. The topology the check uses is the one a sale builds.
#include <gtest/gtest.h>

#include "properties/checker.h"

namespace oversim {
namespace {
using protocols::Scenario;

TEST(Scenario, TheNodeNamesACheckUsesAreTheNodesASaleBuilds) {
  for (const protocols::Design* design : protocols::designs()) {
    for (int apps : {1, 3, 12}) {
      Scenario s;
      s.design = design->name;
      s.workload.app_nodes = apps;
      s.workload.skus = 11;
      protocols::Simulation sale(s, *design);
      std::vector<std::string> built;
      for (const auto& n : sale.world().nodes()) built.push_back(n->name());
      EXPECT_EQ(protocols::Simulation::node_names(s, *design), built) << design->name << " with " << apps << " apps";
      // SKUs in numeric order: buyer b wants sku (b mod skus) + 1.
      EXPECT_EQ(sale.skus()[1], "sku2");
      EXPECT_EQ(sale.skus()[10], "sku11");
    }
  }
}

std::string problem_of(const std::string& plan, sim::Duration horizon = sim::Duration::s(600)) {
  Scenario s;
  s.design = "article_recipe";
  s.faults = sim::FaultPlan::parse(plan);
  s.horizon = horizon;
  auto p = protocols::scenario_problem(s, *protocols::find_design(s.design));
  return p ? *p : "none";
}

TEST(Scenario, AFaultThatWouldNeverHappenIsRejected) {
  EXPECT_EQ(problem_of("at 700s crash db"), "fault 'at 700s crash db' comes at or after the run's horizon of 10m: it would never happen");
  EXPECT_EQ(problem_of("at 10m crash db"), "fault 'at 10m crash db' comes at or after the run's horizon of 10m: it would never happen");
  EXPECT_EQ(problem_of("at 1s pause app-1 for 597s"),
            "the plan settles at 598s; with the 5s quiet time before the 'eventually' checks, the horizon must be above 603s (it is 10m)");
  EXPECT_EQ(problem_of("at 1s pause app-1 for 597s", sim::Duration::s(604)), "none");
  EXPECT_EQ(problem_of("at 700s crash db; at 701s restart db", sim::Duration::s(1200)), "none");
}

TEST(Scenario, AFaultNamingANodeTheSaleLacksIsRejectedWithTheList) {
  EXPECT_EQ(problem_of("at 1s crash app-3"), "fault 'at 1s crash app-3' names unknown node 'app-3' (nodes: app-1, app-2, redis-1, redis-2, sentinel, db)");
  EXPECT_EQ(problem_of("at 1s partition app-1 | zk-1"), "fault 'at 1s partition app-1 | zk-1' names unknown node 'zk-1' (nodes: app-1, app-2, redis-1, redis-2, sentinel, db)");
  EXPECT_EQ(problem_of("at 1s hold app-1 -> redis-9 for 1s"),
            "fault 'at 1s hold app-1 -> redis-9 for 1s' names unknown node 'redis-9' (nodes: app-1, app-2, redis-1, redis-2, sentinel, db)");
  EXPECT_EQ(problem_of("at 1s partition app-1,redis-1 | redis-2,sentinel,db"), "none");
}

// A buyer killed with its node stops believing it holds its lock at the crash, even in a design
// that never releases it (the BuyContext closes open beliefs as the fiber unwinds): otherwise a
// dead buyer would "overlap" with every later holder.
protocols::BuyResult take_the_lock_and_never_release(protocols::BuyContext& ctx) {
  ctx.lock_acquired(ctx.lock_key(), ctx.new_token(), sim::Duration::s(10));
  sim::sleep_for(sim::Duration::s(100));
  return protocols::BuyResult::failed;
}

TEST(Scenario, ABuyerKilledWithItsNodeStopsBelievingItHoldsItsLockAtTheCrash) {
  const protocols::Design design{"never_releases", "test design", "test", take_the_lock_and_never_release, {}, {}};
  Scenario s;
  s.design = design.name;
  s.workload.buyers = 1;
  s.workload.app_nodes = 1;
  s.faults = sim::FaultPlan::parse("at 50ms crash app-1; at 1s restart app-1");
  protocols::Simulation sale(s, design);
  sale.run();
  ASSERT_EQ(sale.history().locks.size(), 1u);
  EXPECT_EQ(sale.history().locks[0].released, sim::Instant::zero() + sim::Duration::ms(50));
}

}  // namespace
}  // namespace oversim
