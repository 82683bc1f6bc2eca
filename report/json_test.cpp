// The result values: Wilson intervals against published values, and a scenario that states
// every flag with its value and the changed ones apart.
#include <gtest/gtest.h>

#include "report/json.h"

namespace oversim {
namespace {

TEST(Report, WilsonIntervalMatchesPublishedValues) {
  // Newcombe (1998), Statistics in Medicine 17, table I: 81/263 -> 0.2553-0.3662; 15/148 ->
  // 0.0624-0.1605; 0/20 -> 0-0.1611.
  report::Interval a = report::wilson95(81, 263);
  EXPECT_NEAR(a.low, 0.2553, 5e-4);
  EXPECT_NEAR(a.high, 0.3662, 5e-4);
  report::Interval b = report::wilson95(15, 148);
  EXPECT_NEAR(b.low, 0.0624, 5e-4);
  EXPECT_NEAR(b.high, 0.1605, 5e-4);
  report::Interval c = report::wilson95(0, 20);
  EXPECT_EQ(c.low, 0.0);
  EXPECT_NEAR(c.high, 0.1611, 5e-4);
  report::Interval d = report::wilson95(20, 20);
  EXPECT_EQ(d.high, 1.0);
  EXPECT_NEAR(d.low, 1 - 0.1611, 5e-4);
  report::Interval none = report::wilson95(0, 0);
  EXPECT_EQ(none.low, 0.0);
  EXPECT_EQ(none.high, 1.0);
}

TEST(Report, ScenarioStatesEveryFlagAndTheChangedOnesApart) {
  protocols::Scenario s;
  s.design = "redis_lock_conditional";
  s.workload.buyers = 7;
  s.faults = sim::FaultPlan::parse("at 1s crash redis-1; at 2s restart redis-1");
  const nlohmann::json j = report::scenario_json(s);
  EXPECT_EQ(j["buyers"], 7);
  EXPECT_EQ(j["flags"]["buyers"], "7");
  EXPECT_EQ(j["flags"]["stock"], std::to_string(protocols::Workload{}.stock));
  EXPECT_TRUE(j["flags"].contains("isolation"));
  EXPECT_TRUE(j["flags"].contains("lock-ttl"));
  EXPECT_EQ(j["changed"], nlohmann::json::array({"buyers"}));
  EXPECT_EQ(j["faults"], nlohmann::json::array({"at 1s crash redis-1", "at 2s restart redis-1"}));
  EXPECT_EQ(j["horizon_ns"], s.horizon.count_ns());
}

}  // namespace
}  // namespace oversim
