// No silent pass: a run, a sweep or an exploration that did not test what it was asked to is
// judged as such (unfired, incomplete, vacuous), never as holding. Each story runs the real
// sale and pins the mechanism (the fault count, the horizon reached) beside the verdict.
#include <gtest/gtest.h>

#include "properties/verdict.h"

namespace oversim {
namespace {

using properties::VerdictKind;
using protocols::Scenario;

Scenario sale(const std::string& design, const std::string& plan, int buyers, int64_t stock) {
  Scenario s;
  s.design = design;
  s.workload.buyers = buyers;
  s.workload.stock = stock;
  if (!plan.empty()) s.faults = sim::FaultPlan::parse(plan);
  s.keep_trace = false;
  return s;
}

// Two buyers make two commits: a crash planned for the 9th never comes, so the run is the
// fault-free sale, and it says so instead of holding. The same crash on the 1st commit happens.
TEST(Verdict, APlannedFaultWhoseTriggerNeverComesLeavesTheRunUnfired) {
  const std::vector<std::string> asserted = properties::default_asserted();
  const properties::RunResult never = properties::run_checked(sale("db_conditional_update", "on 9th before_commit crash here", 2, 2));
  EXPECT_EQ(never.faults_planned, 1u);
  EXPECT_EQ(never.faults_fired, 0u);
  EXPECT_FALSE(never.violates(asserted));
  EXPECT_EQ(never.outcome.status, sim::RunStatus::completed);
  EXPECT_EQ(properties::judge(never, asserted), VerdictKind::unfired);
  EXPECT_FALSE(properties::holds(properties::judge(never, asserted)));
  const properties::RunResult fired = properties::run_checked(sale("db_conditional_update", "on 1st before_commit crash here", 2, 2));
  EXPECT_EQ(fired.faults_fired, 1u);
  EXPECT_EQ(properties::judge(fired, asserted), VerdictKind::random);
}

// 200 buyers, one lock holder at a time for a 100ms call: the sale needs 20s, the horizon is 6s.
// The run stops there with buyers still waiting; its end-of-run checks saw an unfinished sale.
TEST(Verdict, ARunStoppedAtItsHorizonIsIncompleteNotAPass) {
  Scenario s = sale("redis_lock_conditional", "", 200, 200);
  s.workload.remote_call = sim::Duration::ms(100);
  s.workload.remote_call_high = sim::Duration::ms(100);
  s.horizon = sim::Duration::s(6);
  const properties::RunResult r = properties::run_checked(s);
  EXPECT_EQ(r.outcome.status, sim::RunStatus::horizon);
  EXPECT_LT(r.orders, 200);
  EXPECT_FALSE(r.violates(properties::default_asserted()));
  EXPECT_EQ(properties::judge(r, properties::default_asserted()), VerdictKind::incomplete);
  // A sweep of it counts the runs, with the first seed, and is incomplete too.
  properties::SweepOptions o;
  o.base = s;
  o.seeds = 2;
  const properties::SweepResult sw = properties::sweep(o);
  EXPECT_EQ(sw.horizon_runs(), 2);
  EXPECT_EQ(sw.horizon_seed, 1u);
  EXPECT_EQ(properties::judge(sw, {}, false), VerdictKind::incomplete);
}

// A typed plan is the claim: a sweep in which it never fired is unfired, counted fault by fault.
TEST(Verdict, ASweepOfAPlanThatNeverFiresIsUnfired) {
  properties::SweepOptions o;
  o.base = sale("db_conditional_update", "on 9th before_commit crash here", 2, 2);
  o.seeds = 3;
  const properties::SweepResult sw = properties::sweep(o);
  EXPECT_EQ(sw.runs, 3u);
  EXPECT_EQ(sw.unfired, 3u);
  EXPECT_EQ(sw.unfired_seed, 1u);
  EXPECT_EQ(sw.faults_planned, 3u);
  EXPECT_EQ(sw.faults_fired, 0u);
  EXPECT_FALSE(sw.first_failure);
  EXPECT_TRUE(properties::faults_untested(sw, true));
  EXPECT_TRUE(properties::faults_untested(sw, false));  // no fault at all: unfired whoever drew it
  EXPECT_EQ(properties::judge(sw, {}, true), VerdictKind::unfired);
}

// A profile's later fault may find its trigger gone once an earlier one changed the run: counted,
// not a failure of the sweep, unless no fault happened at all. A typed plan's missing fault is.
TEST(Verdict, APartlyFiredPlanFailsOnlyWhenTheUserWroteIt) {
  properties::SweepResult sw;
  sw.runs = 10;
  sw.run_status["completed"] = 10;
  sw.unfired = 1;
  sw.faults_planned = 20;
  sw.faults_fired = 19;
  EXPECT_EQ(properties::judge(sw, {}, false), VerdictKind::random);
  EXPECT_EQ(properties::judge(sw, {}, true), VerdictKind::unfired);
  sw.faults_fired = 0;
  sw.unfired = 10;
  EXPECT_EQ(properties::judge(sw, {}, false), VerdictKind::unfired);
}

// Which reason decides when several apply: a counterexample, then a limit, then faults, then
// coverage.
TEST(Verdict, AViolationOutranksALimitWhichOutranksUnfiredWhichOutranksVacuous) {
  properties::SweepResult sw;
  sw.runs = 4;
  sw.run_status["completed"] = 4;
  sw.counts["fault_struck_during_sale"].reached = 0;
  EXPECT_EQ(properties::judge(sw, {"fault_struck_during_sale"}, false), VerdictKind::vacuous);
  EXPECT_EQ(properties::unreached(sw, {"fault_struck_during_sale", "sold_out"}), (std::vector<std::string>{"fault_struck_during_sale", "sold_out"}));
  sw.unfired = 4;
  sw.faults_planned = 4;
  EXPECT_EQ(properties::judge(sw, {"fault_struck_during_sale"}, true), VerdictKind::unfired);
  sw.run_status["horizon"] = 1;
  EXPECT_EQ(properties::judge(sw, {"fault_struck_during_sale"}, true), VerdictKind::incomplete);
  sw.first_failure.emplace();
  EXPECT_EQ(properties::judge(sw, {"fault_struck_during_sale"}, true), VerdictKind::violated);
  for (VerdictKind k : {VerdictKind::violated, VerdictKind::incomplete, VerdictKind::unfired, VerdictKind::vacuous}) EXPECT_FALSE(properties::holds(k));
  EXPECT_TRUE(properties::holds(VerdictKind::exhaustive));
  EXPECT_TRUE(properties::holds(VerdictKind::random));
}

properties::ExploreOptions two_buyers(const std::string& design) {
  properties::ExploreOptions o;
  o.base.design = design;
  o.base.workload.buyers = 2;
  o.base.workload.stock = 1;
  o.base.workload.burst_window = sim::Duration::zero();
  o.base.workload.latency_min = sim::Duration::us(200);
  o.base.workload.latency_max = sim::Duration::us(200);
  o.base.workload.latency_tail = false;
  o.faults = sim::FaultPlan::parse("on explore_any pause here for 1.5x lock-ttl").faults;
  return o;
}

// An exploration that ran out of executions proves nothing; the whole tree is exhaustive. Both
// count what they saw of a property they do not assert: the pause breaks the lock in some
// executions although the conditional decrement keeps the stock.
TEST(Verdict, AnExplorationCutShortIsIncompleteAndUnassertedBreakagesAreCounted) {
  properties::ExploreOptions o = two_buyers("redis_lock_conditional");
  o.max_executions = 5;
  const properties::ExploreResult cut = properties::explore(o);
  EXPECT_FALSE(cut.complete);
  EXPECT_EQ(cut.executions, 5u);
  EXPECT_FALSE(cut.counterexample);
  EXPECT_EQ(properties::judge(cut), VerdictKind::incomplete);
  o.max_executions = 1'000'000;
  const properties::ExploreResult whole = properties::explore(o);
  EXPECT_TRUE(whole.complete);
  EXPECT_EQ(whole.violating, 0u);
  EXPECT_EQ(whole.run_status.at("completed"), whole.executions);
  EXPECT_EQ(properties::judge(whole), VerdictKind::exhaustive);
  ASSERT_EQ(whole.counts.count("lock_mutual_exclusion"), 1u);
  EXPECT_GT(whole.counts.at("lock_mutual_exclusion"), 0u);
  EXPECT_LT(whole.counts.at("lock_mutual_exclusion"), whole.executions);
  EXPECT_EQ(whole.counts.count("no_oversell"), 0u);
}

}  // namespace
}  // namespace oversim
