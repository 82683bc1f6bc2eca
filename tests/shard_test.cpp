// Sharded sweeps, below the command line: shard_block splits a sweep's seeds into contiguous
// blocks that cover it exactly, and shards swept apart, written as sweep state, read back and
// merged (properties::merge_sweeps) are the one sweep: every count, lowest seed and sample, and
// the first failing seed's replay. tests/shard_test.sh does the same through `oversim merge`.
#include <gtest/gtest.h>

#include "properties/checker.h"
#include "properties/explore.h"
#include "report/sweep_state.h"

namespace oversim {
namespace {

using properties::SeedBlock;
using properties::SweepOptions;
using properties::SweepResult;

TEST(ShardBlock, ContiguousBlocksCoverEverySeedOnceInOrder) {
  for (uint64_t count : {0u, 1u, 7u, 100u, 101u}) {
    for (uint64_t shards : {1u, 2u, 3u, 7u, 150u}) {
      uint64_t next = 5;
      uint64_t smallest = UINT64_MAX;
      uint64_t largest = 0;
      for (uint64_t i = 1; i <= shards; ++i) {
        const SeedBlock b = properties::shard_block(5, count, i, shards);
        EXPECT_EQ(b.first, next) << count << " seeds, shard " << i << "/" << shards;
        next = b.first + b.count;
        smallest = std::min(smallest, b.count);
        largest = std::max(largest, b.count);
      }
      EXPECT_EQ(next, 5 + count);
      EXPECT_LE(largest - smallest, 1u) << count << " seeds in " << shards << " shards";
    }
  }
  EXPECT_THROW(properties::shard_block(1, 10, 0, 3), std::invalid_argument);
  EXPECT_THROW(properties::shard_block(1, 10, 4, 3), std::invalid_argument);
  const SeedBlock top = properties::shard_block(UINT64_MAX - 9, 10, 3, 3);
  EXPECT_EQ(top.first + (top.count - 1), UINT64_MAX);
}

TEST(SweepState, KeepsEverySampleExactly) {
  SweepResult sw;
  sw.runs = 3;
  sw.metrics.runs = 3;
  sw.metrics.answer_times = {sim::Duration::ms(7), sim::Duration::max(), sim::Duration::zero(), sim::Duration::ns(1), sim::Duration::ms(7)};
  sw.metrics.lock_waits = {sim::Duration::ns(-3), sim::Duration::s(2)};
  sw.counts["no_oversell"].violated = 2;
  sw.counts["no_oversell"].first_seed = 18446744073709551615u;
  sw.first_failing_seed = 18446744073709551615u;
  sw.inapplicable = "why";
  const SweepResult back = report::sweep_state(nlohmann::json::parse(report::sweep_state_json(sw).dump()));
  std::vector<sim::Duration> want = sw.metrics.answer_times;
  std::sort(want.begin(), want.end());
  EXPECT_EQ(back.metrics.answer_times, want);
  EXPECT_EQ(back.metrics.lock_waits, sw.metrics.lock_waits);
  EXPECT_EQ(back.counts.at("no_oversell").first_seed, sw.counts.at("no_oversell").first_seed);
  EXPECT_EQ(back.first_failing_seed, sw.first_failing_seed);
  EXPECT_EQ(back.inapplicable, sw.inapplicable);
  EXPECT_EQ(report::sweep_state_json(back), report::sweep_state_json(sw));
  nlohmann::json cut = report::sweep_state_json(sw);
  cut["metrics"].erase("lock_waits");
  EXPECT_THROW(report::sweep_state(cut), std::invalid_argument);
}

// Shards 1..n of `options`, each through its file's JSON, merged in order.
SweepResult merged_shards(const SweepOptions& options, uint64_t n) {
  SweepResult merged;
  for (uint64_t i = 1; i <= n; ++i) {
    SweepOptions shard = options;
    const SeedBlock b = properties::shard_block(options.first_seed, options.seeds, i, n);
    shard.first_seed = b.first;
    shard.seeds = b.count;
    shard.replay_failure = false;
    const std::string file = report::sweep_state_json(properties::sweep(shard)).dump();
    properties::merge_sweeps(merged, report::sweep_state(nlohmann::json::parse(file)));
  }
  properties::replay_first_failure(merged, options);
  return merged;
}

nlohmann::json without_wall(SweepResult sw) {
  sw.wall_ns = 0;
  return report::sweep_state_json(sw);
}

struct Case {
  const char* design;
  const char* profile;
  uint64_t first_seed;
  uint64_t seeds;
  bool stop_at_first;
};

class MergedShards : public ::testing::TestWithParam<Case> {};

TEST_P(MergedShards, AreTheOneSweep) {
  const Case& c = GetParam();
  SweepOptions options;
  options.base.design = c.design;
  options.base.workload.buyers = 8;
  options.base.workload.stock = 3;
  options.profile = c.profile;
  options.first_seed = c.first_seed;
  options.seeds = c.seeds;
  options.jobs = 2;
  options.stop_at_first = c.stop_at_first;
  const SweepResult whole = properties::sweep(options);
  ASSERT_GT(whole.runs, 0u);
  for (uint64_t n : {2u, 3u, 5u}) {
    const SweepResult merged = merged_shards(options, n);
    EXPECT_EQ(without_wall(merged), without_wall(whole)) << n << " shards";
    EXPECT_EQ(merged.first_failing_seed, whole.first_failing_seed) << n << " shards";
    ASSERT_EQ(merged.first_failure.has_value(), whole.first_failure.has_value());
    if (whole.first_failure) {
      EXPECT_EQ(properties::fingerprint("x", *merged.first_failure), properties::fingerprint("x", *whole.first_failure));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sweeps, MergedShards,
                         ::testing::Values(Case{"redis_lock_read_modify_write", "gc-pause", 1, 23, false},  // fails from the first shard
                                           Case{"redlock_read_modify_write", "clock-jump", 1, 30, true},   // stops in a later shard
                                           Case{"db_conditional_update", "gc-pause", 40, 17, false},        // holds
                                           Case{"prededuct_reconciled", "failover", 1, 12, false}),          // the layers' numbers
                         [](const ::testing::TestParamInfo<Case>& p) { return std::string(p.param.design) + (p.param.stop_at_first ? "_stop" : ""); });

}  // namespace
}  // namespace oversim

namespace oversim {
namespace {

// The explorer's shards: the tree cut into subtrees dealt in contiguous blocks; merged in order,
// the whole walk (every count, and the shortest counterexample with the whole walk's tie-break).
struct ExploreCase {
  const char* design;
  int buyers;
  std::optional<uint64_t> max_deviations;
  bool first;
};

class MergedExploreShards : public ::testing::TestWithParam<ExploreCase> {};

TEST_P(MergedExploreShards, AreTheWholeWalk) {
  const ExploreCase& c = GetParam();
  properties::ExploreOptions o;
  o.base.design = c.design;
  o.base.workload.buyers = c.buyers;
  o.base.workload.stock = 1;
  o.base.workload.arrival = protocols::Arrival::burst;
  o.base.workload.burst_window = sim::Duration::zero();
  o.base.workload.latency_min = sim::Duration::us(200);
  o.base.workload.latency_max = sim::Duration::us(200);
  o.base.workload.latency_tail = false;
  o.faults = {sim::FaultPlan::parse("on explore_any pause here for 1.5x lock-ttl").faults.front()};
  o.max_deviations = c.max_deviations;
  o.stop_at_first = c.first;
  const properties::ExploreResult whole = properties::explore(o);
  ASSERT_GT(whole.executions, 1u);
  for (uint64_t n : {2u, 3u, 11u}) {
    properties::ExploreResult merged;
    uint64_t subtrees = 0;
    for (uint64_t i = 1; i <= n; ++i) {
      properties::ExploreOptions shard = o;
      shard.shard_index = i;
      shard.shard_count = n;
      properties::ExploreResult part = properties::explore(shard);
      subtrees += part.subtrees;
      const std::string file = report::explore_state_json(part).dump();
      properties::merge_explores(merged, report::explore_state(nlohmann::json::parse(file)), i == 1);
    }
    EXPECT_EQ(merged.executions, whole.executions) << n << " shards";
    EXPECT_EQ(merged.violating, whole.violating) << n << " shards";
    EXPECT_EQ(merged.pruned, whole.pruned) << n << " shards";
    EXPECT_EQ(merged.fixed_draws, whole.fixed_draws) << n << " shards";
    EXPECT_EQ(merged.longest, whole.longest) << n << " shards";
    EXPECT_EQ(merged.complete, whole.complete) << n << " shards";
    EXPECT_EQ(merged.stopped, whole.stopped) << n << " shards";
    EXPECT_EQ(merged.counts, whole.counts) << n << " shards";
    EXPECT_EQ(merged.run_status, whole.run_status) << n << " shards";
    EXPECT_EQ(merged.best_values, whole.best_values) << n << " shards";
    if (!c.first) {
      EXPECT_GE(subtrees, std::min<uint64_t>(n, 2)) << "the tree was not split";
    }
    if (!whole.best_values.empty()) {
      const protocols::Scenario cx = properties::explore_counterexample(o, merged.best_values);
      EXPECT_EQ(cx.schedule, whole.counterexample->schedule);
      EXPECT_EQ(cx.faults, whole.counterexample->faults);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Walks, MergedExploreShards,
                         ::testing::Values(ExploreCase{"redis_lock_read_modify_write", 2, std::nullopt, false},  // breaks: the shortest kept
                                           ExploreCase{"redis_lock_conditional", 2, std::nullopt, false},        // holds: every execution
                                           ExploreCase{"redis_lock_read_modify_write", 2, std::nullopt, true},   // stops at the first
                                           ExploreCase{"redis_lock_plain_del", 3, uint64_t{1}, false}),          // a context bound
                         [](const ::testing::TestParamInfo<ExploreCase>& p) {
                           return std::string(p.param.design) + "_" + std::to_string(p.param.buyers) + (p.param.first ? "_first" : "");
                         });

}  // namespace
}  // namespace oversim
