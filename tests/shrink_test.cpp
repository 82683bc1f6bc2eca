// Minimal counterexamples: the cases the issue found shrinking badly now end at two or three
// buyers, one unit and one fault, keep their mechanism, replay from their choice list, and print
// their violating events.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "properties/checker.h"

namespace oversim {
namespace {

struct Shrunk {
  properties::RunResult original;
  protocols::Scenario scenario;
  properties::RunResult run;
  std::vector<std::string> failed;
};

// What `oversim check --variant <design> --faults <profile> --strategy <strategy>` does (swarm is
// check's default with a profile): the first failing seed, shrunk against the asserted
// properties it broke.
Shrunk first_failure_shrunk(const std::string& design, const std::string& profile, std::vector<std::string> asserted = properties::default_asserted(),
                            const std::string& strategy = "random", properties::ShrinkFaults faults = properties::ShrinkFaults::story) {
  properties::SweepOptions o;
  o.base.design = design;
  if (strategy == "swarm") o.base.search.kind = protocols::Search::Kind::swarm;
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
  properties::ShrinkOptions options;
  options.budget_runs = 600;
  options.faults = faults;
  options.profile = profile;
  out.original = *sw.first_failure;
  out.scenario = properties::shrink(sw.first_failure->scenario, out.failed, options);
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
  const Shrunk r = first_failure_shrunk("db_conditional_update", "retries", {"no_duplicate_order"});  // 1 buyer, 2 units, its retry
  EXPECT_LE(r.scenario.workload.buyers, 2) << properties::reproduce_command(r.scenario, {"no_duplicate_order"});
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

// The cases that shrank badly: a clock jump tied to the 5th acquisition under
// redis_lock_conditional (was 6 buyers, 5 units), and the RedLock profiles (were 20 buyers).
// Each shrink takes under 8 s (bench/search_bench.cpp, Shrink/*; docs/performance.md).
TEST(Shrink, AClockJumpTiedToAnOccurrenceEndsAtTwoBuyersOneUnit) {
  const Shrunk s = first_failure_shrunk("redis_lock_conditional", "clock-jump", {"lock_mutual_exclusion"}, "swarm");
  EXPECT_EQ(s.scenario.workload.buyers, 2) << properties::reproduce_command(s.scenario, {"lock_mutual_exclusion"});
  EXPECT_EQ(s.scenario.workload.stock, 1);
  EXPECT_TRUE(s.run.result("lock_mutual_exclusion").violated);
  EXPECT_EQ(s.run.story, s.original.story);
}

TEST(Shrink, EveryRedLockProfileCaseEndsAtThreeBuyersOrFewerWithItsStory) {
  // A RedLock overlap needs a split (one buyer holds three masters, another two and lets go)
  // and a buyer trying while a key is gone; the explorer's lockstep sales never split, so these
  // come from the random step: the profile drawn afresh at 2 and 3 buyers, slots arrivals.
  for (const char* design : {"redlock_read_modify_write", "redlock_no_validity_check"}) {
    for (const char* profile : {"clock-jump", "clock-drift", "lock-restart", "acquire-pause"}) {
      const Shrunk s = first_failure_shrunk(design, profile, properties::default_asserted(), "swarm");
      EXPECT_LE(s.scenario.workload.buyers, 3) << design << " " << profile << ": " << properties::reproduce_command(s.scenario);
      EXPECT_FALSE(s.failed.empty()) << design << " " << profile;
      for (const std::string& p : s.failed) EXPECT_TRUE(s.run.result(p).violated) << design << " " << profile << " " << p;
      EXPECT_EQ(s.run.story, s.original.story) << design << " " << profile;
    }
  }
}

// The mechanism stays: a no-validity-check failure shrinks to a run where the client took a late
// quorum, which the validity-checking client refuses, so the same run passes with it.
TEST(Shrink, ANoValidityCheckCaseShrinksToARunTheValidityCheckingClientSurvives) {
  const Shrunk s = first_failure_shrunk("redlock_no_validity_check", "acquire-pause", properties::default_asserted(), "swarm");
  EXPECT_TRUE(s.run.result("late_quorum_taken").reached) << properties::reproduce_command(s.scenario);
  protocols::Scenario checked = s.scenario;
  checked.design = "redlock_read_modify_write";
  const properties::RunResult r = properties::run_checked(checked);
  EXPECT_FALSE(r.result("no_oversell").violated) << properties::reproduce_command(checked);
}

// Two mechanisms in one run, the same story (a pause, then its end): the late quorum (which only
// the no-validity-check client takes) and a holder paused past its lease (which breaks the
// validity-checking client too). Dropping the acquire pause keeps the story and the oversell;
// the late quorum, kept as the case's situation, keeps the mechanism.
TEST(Shrink, ALateQuorumBesideAnOutlivedLeaseKeepsTheLateQuorum) {
  protocols::Scenario s;
  s.design = "redlock_no_validity_check";
  s.faults = sim::FaultPlan::parse("on 3rd during_acquire pause here for 499ms; on after_acquire pause here for 700ms");
  std::optional<properties::RunResult> both;
  for (std::uint64_t seed = 1; seed <= 100 && !both; ++seed) {
    s.seed = seed;
    properties::RunResult r = properties::run_checked(s);
    if (r.result("no_oversell").violated && r.result("late_quorum_taken").reached) both = std::move(r);
  }
  ASSERT_TRUE(both) << "no seed of 100 took a late quorum and oversold";
  properties::ShrinkOptions options;
  options.budget_runs = 600;
  const protocols::Scenario shrunk = properties::shrink(both->scenario, {"no_oversell"}, options);
  const properties::RunResult run = properties::run_checked(shrunk);
  EXPECT_TRUE(run.result("no_oversell").violated);
  EXPECT_TRUE(run.result("late_quorum_taken").reached) << properties::reproduce_command(shrunk);
  protocols::Scenario checked = shrunk;
  checked.design = "redlock_read_modify_write";
  EXPECT_FALSE(properties::run_checked(checked).result("no_oversell").violated) << properties::reproduce_command(checked);
}

// The story of faults: kinds in the order they first struck, with the first resume and failover
// among them. A pause that outlasts a failover keeps doing so when shrunk.
TEST(Shrink, TheStoryIsTheFaultsFirstStrikesInOrderWithResumeAndFailover) {
  protocols::Scenario s;
  s.design = "redis_lock_read_modify_write";
  s.workload.remote_call = sim::Duration::ms(1500);
  s.workload.lock_ttl = sim::Duration::s(5);
  s.workload.lock_wait = sim::Duration::s(10);
  s.workload.gateway_timeout = sim::Duration::s(15);
  s.faults = sim::FaultPlan::parse("on after_acquire pause here for 4s; on after_acquire after 10ms crash redis-1");
  const properties::RunResult outlasts = properties::run_checked(s);
  EXPECT_EQ(outlasts.story, (std::vector<std::string>{"pause", "crash", "failover", "resume"}));
  // A pause that ends before the failover tells another story.
  s.faults = sim::FaultPlan::parse("on after_acquire pause here for 500ms; on after_acquire after 10ms crash redis-1");
  EXPECT_EQ(properties::run_checked(s).story, (std::vector<std::string>{"pause", "crash", "resume", "failover"}));
  // Each word once: a second crash (another node's) adds nothing.
  s.faults = sim::FaultPlan::parse("on after_acquire pause here for 4s; on after_acquire after 10ms crash redis-1; on after_acquire after 20ms crash app-2");
  EXPECT_EQ(properties::run_checked(s).story, outlasts.story);
}

// The incident: a pause that outlasts a failover. A shorter pause still oversells (it is
// longer than the lock's TTL), so a shrink free to change the story cuts it to end before the
// failover; the default keeps the pause running past it.
TEST(Shrink, AFailoverDuringAPauseStaysDuringThePause) {
  properties::SweepOptions o;
  o.base.design = "redis_lock_read_modify_write";
  o.base.faults = sim::FaultPlan::parse("on after_read pause here for 3s; on after_read after 10ms crash redis-1");
  o.seeds = 3;
  o.jobs = 1;
  o.stop_at_first = true;
  const properties::SweepResult sw = properties::sweep(o);
  ASSERT_TRUE(sw.first_failure);
  const std::vector<std::string> incident{"pause", "crash", "failover", "resume"};
  ASSERT_EQ(sw.first_failure->story, incident);
  properties::ShrinkOptions options;
  options.budget_runs = 600;
  const protocols::Scenario kept = properties::shrink(sw.first_failure->scenario, {"no_oversell"}, options);
  const properties::RunResult k = properties::run_checked(kept);
  EXPECT_TRUE(k.result("no_oversell").violated);
  EXPECT_EQ(k.story, incident) << properties::reproduce_command(kept);
  EXPECT_LE(kept.workload.buyers, 2);
  options.faults = properties::ShrinkFaults::drop;
  const protocols::Scenario dropped = properties::shrink(sw.first_failure->scenario, {"no_oversell"}, options);
  const properties::RunResult d = properties::run_checked(dropped);
  EXPECT_TRUE(d.result("no_oversell").violated);
  EXPECT_NE(d.story, incident) << "free to change the story, the shrink ends the pause before the failover: " << properties::reproduce_command(dropped);
}

// keep: the plan stays exactly as written (an incident's write-up); only the sale and the
// schedule shrink. drop: faults may go as long as the properties and mechanism stay.
TEST(Shrink, KeepLeavesThePlanAsWrittenAndDropMayRemoveFaults) {
  const Shrunk kept = first_failure_shrunk("redis_lock_read_modify_write", "gc-pause", properties::default_asserted(), "random",
                                           properties::ShrinkFaults::keep);
  EXPECT_EQ(kept.scenario.faults, kept.original.scenario.faults);
  EXPECT_LE(kept.scenario.workload.buyers, kept.original.scenario.workload.buyers);
  EXPECT_TRUE(kept.run.result("no_oversell").violated);
  const Shrunk dropped = first_failure_shrunk("redis_lock_read_modify_write", "gc-pause", properties::default_asserted(), "random",
                                              properties::ShrinkFaults::drop);
  EXPECT_TRUE(dropped.run.result("no_oversell").violated);
  EXPECT_LE(dropped.scenario.faults.faults.size(), 1u);
}

}  // namespace
}  // namespace oversim
