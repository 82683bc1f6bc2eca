// Minimal counterexamples: the cases the issue found shrinking badly now end at two or three
// buyers, one unit and one fault, keep their mechanism, replay from their choice list, and print
// their violating events.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "properties/checker.h"

namespace oversim {
namespace {

struct Shrunk {
  protocols::Scenario scenario;
  properties::RunResult run;
  std::vector<std::string> failed;
};

// What `oversim check --variant <design> --faults <profile> --strategy random` does: the first
// failing seed, shrunk against the asserted properties it broke.
Shrunk first_failure_shrunk(const std::string& design, const std::string& profile, std::vector<std::string> asserted = properties::default_asserted()) {
  properties::SweepOptions o;
  o.base.design = design;
  o.profile = profile;
  o.seeds = 200;
  o.jobs = 2;
  o.asserted = asserted;
  o.stop_at_first = true;
  const properties::SweepResult sw = properties::sweep(o);
  EXPECT_TRUE(sw.first_failure.has_value()) << design << " under " << profile;
  if (!sw.first_failure) return {};
  Shrunk out;
  for (const std::string& a : asserted) {
    if (sw.first_failure->result(a).violated) out.failed.push_back(a);
  }
  out.scenario = properties::shrink(sw.first_failure->scenario, out.failed, 600);
  out.run = properties::run_checked(out.scenario);
  return out;
}

TEST(Shrink, TheGcPauseOversellEndsAtTwoBuyersOneUnitOnePause) {
  const Shrunk s = first_failure_shrunk("redis_lock_read_modify_write", "gc-pause");
  EXPECT_EQ(s.scenario.workload.buyers, 2);
  EXPECT_EQ(s.scenario.workload.stock, 1);
  ASSERT_EQ(s.scenario.faults.faults.size(), 1u);
  EXPECT_EQ(s.scenario.faults.faults.front().kind, sim::FaultKind::pause);
  EXPECT_TRUE(s.scenario.faults.faults.front().triggered()) << "moved from a seed's time to a fault point";
  EXPECT_TRUE(s.run.result("no_oversell").violated);
  // Each buyer's five statements, its SET and its release, and the pause: 15 is the floor.
  EXPECT_LE(properties::protocol_events(s.run.events), 20u) << properties::reproduce_command(s.scenario);
}

TEST(Shrink, ClockJumpStaleReadAndRetriesEndAtThreeBuyersOrFewer) {
  for (const auto& [design, profile] : std::vector<std::pair<std::string, std::string>>{
           {"redis_lock_plain_del", "clock-jump"}, {"redis_fenced_stale_read", "gc-pause"}, {"redis_lock_read_modify_write", "clock-jump"}}) {
    const Shrunk s = first_failure_shrunk(design, profile);
    EXPECT_LE(s.scenario.workload.buyers, 3) << design << " " << profile << ": " << properties::reproduce_command(s.scenario);
    for (const std::string& p : s.failed) EXPECT_TRUE(s.run.result(p).violated) << design << " " << p;
  }
  // The retries case keeps its mechanism: the duplicate order still comes with the same request
  // sent twice, by a gateway retry or a double click. (It was article_recipe's progress failure,
  // until progress stopped counting buyers who heard nothing while a fault had struck: under
  // retries the recipe no longer undersells.)
  const Shrunk r = first_failure_shrunk("db_conditional_update", "retries", {"no_duplicate_order"});
  EXPECT_LE(r.scenario.workload.buyers, 3) << properties::reproduce_command(r.scenario, {"no_duplicate_order"});
  EXPECT_TRUE(r.run.result("no_duplicate_order").violated);
  EXPECT_TRUE(r.run.result("request_sent_twice").reached);
  EXPECT_TRUE(r.scenario.workload.max_retries >= 1 || r.scenario.workload.double_click.numerator > 0) << properties::reproduce_command(r.scenario, {"no_duplicate_order"});
}

TEST(Shrink, AShrunkChoiceListReplaysTheSameRunAndItsCutTraceShowsTheViolations) {
  const Shrunk s = first_failure_shrunk("redis_lock_read_modify_write", "gc-pause");
  ASSERT_EQ(s.scenario.schedule.rfind("choices:", 0), 0u);
  const properties::RunResult again = properties::run_checked(s.scenario);
  EXPECT_EQ(again.outcome.hash(), s.run.outcome.hash());
  const std::vector<uint64_t> steps = properties::violation_steps(s.run);
  ASSERT_FALSE(steps.empty());
  // Cut to a handful of lines, the violations' own events and the fault are still there.
  const std::vector<sim::TraceEvent> cut = properties::cut_trace(s.run.events, 4, steps);
  for (uint64_t step : steps) {
    EXPECT_TRUE(std::any_of(cut.begin(), cut.end(), [&](const sim::TraceEvent& e) { return e.step == step; })) << "step " << step;
  }
  EXPECT_TRUE(std::any_of(cut.begin(), cut.end(), [](const sim::TraceEvent& e) { return e.kind == "fault"; }));
}

}  // namespace
}  // namespace oversim
