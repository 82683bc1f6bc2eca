// The verdict table: every design under every fault profile, within a fixed seed budget
// (seeds 1..40, the profile drawing one fault plan per seed). V means at least one run violated
// the property, H that none did. The unsafe rows are what make the safe rows mean something:
// the same harness, the same faults and seeds, catches read-then-write under a lock that fails
// (redis_lock_read_modify_write / gc-pause) while the conditional decrement under the same lock
// holds (redis_lock_conditional / gc-pause), with its lock visibly failing (mutex V).
//
// Columns: no_oversell, no_duplicate_order, no_lost_order, ledger_conservation,
// lock_mutual_exclusion. Each design file's opening comment states the same expectations.
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "properties/checker.h"

namespace oversim {
namespace {

enum Verdict : bool { H = false, V = true };

struct Row {
  const char* variant;
  const char* profile;
  Verdict oversell, duplicate, lost, ledger, mutex;
};

const Row kTable[] = {
    {"read_modify_write", "none", V, H, H, V, H},
    {"read_modify_write", "gc-pause", V, H, H, V, H},
    {"read_modify_write", "failover", V, H, H, V, H},
    {"read_modify_write", "partition", V, H, H, V, H},
    {"read_modify_write", "clock-jump", V, H, H, V, H},
    {"read_modify_write", "slow-rpc", V, H, H, V, H},
    {"read_modify_write", "app-crash", V, H, H, V, H},
    {"read_modify_write", "retries", V, V, H, V, H},
    {"read_modify_write", "chaos", V, V, H, V, H},
    {"db_conditional_update", "none", H, H, H, H, H},
    {"db_conditional_update", "gc-pause", H, H, H, H, H},
    {"db_conditional_update", "failover", H, H, H, H, H},
    {"db_conditional_update", "partition", H, H, H, H, H},
    {"db_conditional_update", "clock-jump", H, H, H, H, H},
    {"db_conditional_update", "slow-rpc", H, H, H, H, H},
    {"db_conditional_update", "app-crash", H, H, H, H, H},
    {"db_conditional_update", "retries", H, V, H, H, H},
    {"db_conditional_update", "chaos", H, H, H, H, H},
    {"db_for_update", "none", H, H, H, H, H},
    {"db_for_update", "gc-pause", H, H, H, H, H},
    {"db_for_update", "failover", H, H, H, H, H},
    {"db_for_update", "partition", H, H, H, H, H},
    {"db_for_update", "clock-jump", H, H, H, H, H},
    {"db_for_update", "slow-rpc", H, H, H, H, H},
    {"db_for_update", "app-crash", H, H, H, H, H},
    {"db_for_update", "retries", H, V, H, H, H},
    {"db_for_update", "chaos", H, H, H, H, H},
    {"db_optimistic_version", "none", H, H, H, H, H},
    {"db_optimistic_version", "gc-pause", H, H, H, H, H},
    {"db_optimistic_version", "failover", H, H, H, H, H},
    {"db_optimistic_version", "partition", H, H, H, H, H},
    {"db_optimistic_version", "clock-jump", H, H, H, H, H},
    {"db_optimistic_version", "slow-rpc", H, H, H, H, H},
    {"db_optimistic_version", "app-crash", H, H, H, H, H},
    {"db_optimistic_version", "retries", H, V, H, H, H},
    {"db_optimistic_version", "chaos", H, H, H, H, H},
    {"redis_lock_read_modify_write", "none", H, H, H, H, H},
    {"redis_lock_read_modify_write", "gc-pause", V, H, H, V, V},
    {"redis_lock_read_modify_write", "failover", V, H, H, V, V},
    {"redis_lock_read_modify_write", "partition", V, H, H, V, V},
    {"redis_lock_read_modify_write", "clock-jump", V, H, H, V, V},
    {"redis_lock_read_modify_write", "slow-rpc", V, H, H, V, V},
    {"redis_lock_read_modify_write", "app-crash", H, H, H, H, H},
    {"redis_lock_read_modify_write", "retries", H, V, H, H, V},
    {"redis_lock_read_modify_write", "chaos", V, V, H, V, V},
    {"redis_lock_plain_del", "none", H, H, H, H, H},
    {"redis_lock_plain_del", "gc-pause", V, H, H, V, V},
    {"redis_lock_plain_del", "failover", V, H, H, V, V},
    {"redis_lock_plain_del", "partition", V, H, H, V, V},
    {"redis_lock_plain_del", "clock-jump", V, H, H, V, V},
    {"redis_lock_plain_del", "slow-rpc", V, H, H, V, V},
    {"redis_lock_plain_del", "app-crash", H, H, H, H, H},
    {"redis_lock_plain_del", "retries", H, V, H, H, V},
    {"redis_lock_plain_del", "chaos", V, V, H, V, V},
    {"redis_lock_conditional", "none", H, H, H, H, H},
    {"redis_lock_conditional", "gc-pause", H, H, H, H, V},
    {"redis_lock_conditional", "failover", H, H, H, H, V},
    {"redis_lock_conditional", "partition", H, H, H, H, V},
    {"redis_lock_conditional", "clock-jump", H, H, H, H, V},
    {"redis_lock_conditional", "slow-rpc", H, H, H, H, V},
    {"redis_lock_conditional", "app-crash", H, H, H, H, H},
    {"redis_lock_conditional", "retries", H, V, H, H, V},
    {"redis_lock_conditional", "chaos", H, V, H, H, V},
    {"redis_lock_watchdog", "none", H, H, H, H, H},
    {"redis_lock_watchdog", "gc-pause", V, H, H, V, V},
    {"redis_lock_watchdog", "failover", V, H, H, V, V},
    {"redis_lock_watchdog", "partition", V, H, H, V, V},
    {"redis_lock_watchdog", "clock-jump", V, H, H, V, V},
    {"redis_lock_watchdog", "slow-rpc", H, H, H, H, H},
    {"redis_lock_watchdog", "app-crash", H, H, H, H, H},
    {"redis_lock_watchdog", "retries", H, V, H, H, H},
    {"redis_lock_watchdog", "chaos", V, V, H, V, V},
    {"redis_fenced", "none", H, H, H, H, H},
    {"redis_fenced", "gc-pause", H, H, H, H, V},
    {"redis_fenced", "failover", H, H, H, H, V},
    {"redis_fenced", "partition", H, H, H, H, V},
    {"redis_fenced", "clock-jump", H, H, H, H, V},
    {"redis_fenced", "slow-rpc", H, H, H, H, V},
    {"redis_fenced", "app-crash", H, H, H, H, H},
    {"redis_fenced", "retries", H, V, H, H, V},
    {"redis_fenced", "chaos", H, V, H, H, V},
    {"redis_fenced_stale_read", "none", H, H, H, H, H},
    {"redis_fenced_stale_read", "gc-pause", V, H, H, V, V},
    {"redis_fenced_stale_read", "failover", H, H, H, H, V},
    {"redis_fenced_stale_read", "partition", H, H, H, H, V},
    {"redis_fenced_stale_read", "clock-jump", V, H, H, V, V},
    {"redis_fenced_stale_read", "slow-rpc", V, H, H, V, V},
    {"redis_fenced_stale_read", "app-crash", H, H, H, H, H},
    {"redis_fenced_stale_read", "retries", H, V, H, H, V},
    {"redis_fenced_stale_read", "chaos", V, V, H, V, V},
    {"async_order_write", "none", H, H, H, H, H},
    {"async_order_write", "gc-pause", H, H, H, H, H},
    {"async_order_write", "failover", H, H, H, H, H},
    {"async_order_write", "partition", H, H, H, H, H},
    {"async_order_write", "clock-jump", H, H, H, H, H},
    {"async_order_write", "slow-rpc", H, H, H, H, H},
    {"async_order_write", "app-crash", H, H, V, V, H},
    {"async_order_write", "retries", H, V, V, V, H},
    {"async_order_write", "chaos", H, H, V, V, H},
    {"article_recipe", "none", H, H, H, H, H},
    {"article_recipe", "gc-pause", H, H, H, H, V},
    {"article_recipe", "failover", H, H, H, H, V},
    {"article_recipe", "partition", H, H, H, H, V},
    {"article_recipe", "clock-jump", H, H, H, H, V},
    {"article_recipe", "slow-rpc", H, H, H, H, V},
    {"article_recipe", "app-crash", H, H, H, H, H},
    {"article_recipe", "retries", H, H, H, H, V},
    {"article_recipe", "chaos", H, H, H, H, V},
};

constexpr uint64_t kSeeds = 40;

class VerdictTable : public ::testing::TestWithParam<Row> {};

TEST_P(VerdictTable, MatchesTheDesignsStatedVerdict) {
  const Row& row = GetParam();
  properties::SweepOptions opt;
  opt.base.design = row.variant;
  opt.profile = row.profile;
  opt.first_seed = 1;
  opt.seeds = kSeeds;
  opt.jobs = 1;
  const properties::SweepResult sw = properties::sweep(opt);
  ASSERT_TRUE(sw.errors.empty()) << sw.errors.front();
  ASSERT_EQ(sw.runs, kSeeds);
  const std::pair<const char*, Verdict> expected[] = {{"no_oversell", row.oversell},
                                                      {"no_duplicate_order", row.duplicate},
                                                      {"no_lost_order", row.lost},
                                                      {"ledger_conservation", row.ledger},
                                                      {"lock_mutual_exclusion", row.mutex}};
  for (const auto& [property, verdict] : expected) {
    const properties::PropertyCount c = sw.counts.count(property) ? sw.counts.at(property) : properties::PropertyCount{};
    if (verdict == V) {
      EXPECT_GT(c.violated, 0) << property << " was expected to be violated in some run of " << row.variant << " under " << row.profile;
    } else {
      EXPECT_EQ(c.violated, 0) << property << " was expected to hold; first failing seed " << (c.first_seed ? *c.first_seed : 0)
                               << ": oversim check --variant " << row.variant << " --faults " << row.profile << " --seeds " << kSeeds;
    }
  }
}

std::string row_name(const ::testing::TestParamInfo<Row>& info) {
  std::string name = fmt::format("{}__{}", info.param.variant, info.param.profile);
  for (char& c : name) {
    if (c == '-') c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(EveryDesignUnderEveryProfile, VerdictTable, ::testing::ValuesIn(kTable), row_name);

TEST(VerdictTableShape, CoversEveryDesignAndEveryProfile) {
  size_t rows = 0;
  for (const auto* d : protocols::designs()) {
    for (const auto& p : protocols::profiles()) {
      bool found = false;
      for (const Row& r : kTable) found |= d->name == r.variant && p.name == r.profile;
      EXPECT_TRUE(found) << d->name << " / " << p.name << " has no row";
      ++rows;
    }
  }
  EXPECT_EQ(rows, std::size(kTable));
}

}  // namespace
}  // namespace oversim
