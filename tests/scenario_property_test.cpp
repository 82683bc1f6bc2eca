// Property-based checks: rapidcheck generates whole scenarios — buyers, stock, SKUs, app nodes,
// lease and remote-call lengths, a fault plan over the sale's topology, and the seed — and the
// safe designs must survive every one. When a property fails, rapidcheck shrinks the scenario
// and prints it as an `oversim run` command. The companion test shows that the same generator
// does produce scenarios that break the unsafe designs, so the passes are not vacuous.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <fmt/format.h>

#include "properties/checker.h"

namespace oversim {

using protocols::Scenario;

struct GeneratedScenario {
  Scenario scenario;
};

void showValue(const GeneratedScenario& g, std::ostream& os) { os << properties::reproduce_command(g.scenario); }

namespace {

rc::Gen<sim::Fault> fault_gen(int apps) {
  return rc::gen::exec([apps] {
    std::vector<std::string> apps_names;
    for (int i = 1; i <= apps; ++i) apps_names.push_back(fmt::format("app-{}", i));
    const std::string app = *rc::gen::elementOf(apps_names);
    const std::string redis = *rc::gen::element<std::string>("redis-1", "redis-2");
    sim::Fault f;
    f.at = sim::Duration::ms(*rc::gen::inRange<int64_t>(0, 400));
    switch (*rc::gen::inRange(0, 7)) {
      case 0:
        f.kind = sim::FaultKind::pause;
        f.node = *rc::gen::elementOf(std::vector<std::string>{app, redis, "db"});
        f.length = sim::Duration::ms(*rc::gen::inRange<int64_t>(1, 3000));
        break;
      case 1:
        f.kind = sim::FaultKind::crash;
        f.node = *rc::gen::elementOf(std::vector<std::string>{app, redis});
        break;
      case 2:
        f.kind = sim::FaultKind::clock_jump;
        f.node = redis;
        f.length = sim::Duration::ms(*rc::gen::inRange<int64_t>(-2000, 3000));
        break;
      case 3:
        f.kind = sim::FaultKind::isolate;
        f.node = *rc::gen::elementOf(std::vector<std::string>{app, redis, "sentinel"});
        break;
      case 4:
        f.kind = sim::FaultKind::delay_next;
        f.node = app;
        f.to = "db";
        f.length = sim::Duration::ms(*rc::gen::inRange<int64_t>(1, 3000));
        break;
      case 5:
        f.kind = sim::FaultKind::cut;
        f.node = "db";
        f.to = app;
        break;
      default:
        f.kind = sim::FaultKind::heal;
        break;
    }
    return f;
  });
}

rc::Gen<GeneratedScenario> scenario_gen(std::string design) {
  return rc::gen::exec([design] {
    GeneratedScenario g;
    Scenario& s = g.scenario;
    s.design = design;
    s.keep_trace = false;
    s.seed = *rc::gen::inRange<uint64_t>(1, 1'000'000);
    s.workload.buyers = *rc::gen::inRange(1, 9);
    s.workload.stock = *rc::gen::inRange<int64_t>(1, 5);
    s.workload.skus = *rc::gen::inRange(1, 3);
    s.workload.app_nodes = *rc::gen::inRange(1, 3);
    s.workload.lock_ttl = sim::Duration::ms(*rc::gen::inRange<int64_t>(50, 2000));
    s.workload.remote_call = sim::Duration::ms(*rc::gen::inRange<int64_t>(0, 300));
    s.workload.max_retries = *rc::gen::inRange(0, 2);
    s.faults.faults = *rc::gen::container<std::vector<sim::Fault>>(*rc::gen::inRange<size_t>(0, 4), fault_gen(s.workload.app_nodes));
    return g;
  });
}

const std::vector<std::string> kBusiness = {"no_oversell", "no_duplicate_order", "no_lost_order", "ledger_conservation"};

void assert_holds(const GeneratedScenario& g, const std::vector<std::string>& properties) {
  const properties::RunResult r = properties::run_checked(g.scenario);
  for (const std::string& p : properties) {
    const auto& pr = r.result(p);
    RC_ASSERT_FALSE(pr.violated);
  }
}

}  // namespace

RC_GTEST_PROP(GeneratedScenarios, TheArticleRecipeHoldsEveryBusinessProperty, ()) {
  assert_holds(*scenario_gen("article_recipe"), kBusiness);
}

RC_GTEST_PROP(GeneratedScenarios, TheLockedConditionalDecrementNeverOversells, ()) {
  assert_holds(*scenario_gen("redis_lock_conditional"), {"no_oversell", "no_lost_order"});
}

RC_GTEST_PROP(GeneratedScenarios, TheConditionalDecrementAloneNeverOversells, ()) {
  assert_holds(*scenario_gen("db_conditional_update"), {"no_oversell", "no_lost_order", "ledger_conservation"});
}

RC_GTEST_PROP(GeneratedScenarios, TheFencedDesignNeverOversells, ()) {
  assert_holds(*scenario_gen("redis_fenced"), {"no_oversell", "no_lost_order"});
}

// Not vacuous: sampling the same generator with a fixed seed, the unsafe designs fail often.
TEST(GeneratedScenarios, TheSameGeneratorBreaksTheUnsafeDesigns) {
  // A random fault plan rarely lands inside a critical section, so the lock design needs more
  // samples: that rarity is why `check` sweeps profiles aimed at the sale window.
  for (const auto& [design, samples, at_least] : {std::tuple{"read_modify_write", 60, 10}, std::tuple{"redis_lock_read_modify_write", 300, 2}}) {
    int violations = 0;
    const auto gen = scenario_gen(design);
    for (int i = 0; i < samples; ++i) {
      const GeneratedScenario g = gen(rc::Random(static_cast<uint64_t>(1000 + i)), 30).value();
      if (properties::run_checked(g.scenario).result("no_oversell").violated) ++violations;
    }
    EXPECT_GE(violations, at_least) << design << ": " << violations << " of " << samples;
  }
}

}  // namespace oversim
