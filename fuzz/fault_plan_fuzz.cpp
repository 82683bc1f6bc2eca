// libFuzzer target: the fault-plan parser, then the plan run on a small world. Any text either
// fails to parse with FaultPlanError, or gives a valid plan that prints back to itself, and that
// (resolved against a few quantities, with every node reaching every trigger point) runs to
// completion on a world with the nodes it names without overflowing a clock, tripping UBSan or
// throwing. Built only with clang (fuzz/CMakeLists.txt); see docs/fuzzing.md.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

#include "sim/fault_plan.h"
#include "sim/sync.h"
#include "sim/world.h"

namespace {
[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fault_plan_fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace oversim::sim;
  const std::string text(reinterpret_cast<const char*>(data), size);
  FaultPlan plan;
  try {
    plan = FaultPlan::parse(text);
  } catch (const FaultPlanError&) {
    return 0;  // rejected with a message: fine
  }
  if (auto problem = plan.problem()) fail("a parsed plan is invalid", *problem);
  const std::string printed = plan.to_string();
  FaultPlan again;
  try {
    again = FaultPlan::parse(printed);
  } catch (const FaultPlanError& e) {
    fail("a printed plan does not parse", printed + " -> " + e.what());
  }
  if (!(again == plan)) fail("print then parse changed the plan", printed);

  std::set<std::string> names;
  std::set<std::string> points;
  for (const Fault& f : plan.faults) {
    for (const std::string& n : named_nodes(f)) {
      if (n != kHere) names.insert(n);
    }
    if (!f.trigger.node.empty()) names.insert(f.trigger.node);
    if (f.triggered()) points.insert(f.trigger.point);
  }
  if (names.size() > 32 || plan.faults.size() > 256) return 0;  // keep executions fast
  names.insert("worker");  // reaches the points when no node is named
  // Scaled lengths resolve against a few quantities; an unknown one is refused with a message.
  try {
    plan = plan.resolved({{"lock-ttl", Duration::ms(500)}, {"remote-call", Duration::ms(20)}, {"lease", Duration::s(3600)}});
  } catch (const FaultPlanError&) {
    return 0;
  }
  WorldConfig config;
  config.seed = size;
  config.horizon = kMaxFaultTime * 3 + kMaxFaultLength * 3 + Duration::s(1);
  World world(config);
  for (const std::string& n : names) world.add_node(n);
  plan.apply(world);
  // Every node reaches every point a few times, so triggered faults fire ('here' included).
  for (const auto& node : world.nodes()) {
    world.spawn(node.get(), "reacher", [&world, &points] {
      for (int round = 0; round < 3; ++round) {
        for (const std::string& p : points) world.reach(p);
        sleep_for(Duration::ms(1));
      }
    });
  }
  world.spawn(nullptr, "until-settled", [&world, &plan] {
    sleep_until(Instant::zero() + plan.settled_at());
    while (world.now() < world.faults_settle_at()) sleep_until(world.faults_settle_at());
    world.close_points();
    // Read every local clock at the end: jumps and drift must stay representable.
    for (const auto& node : world.nodes()) (void)node->local_now();
  });
  const RunOutcome outcome = world.run();
  if (outcome.status != RunStatus::completed) fail("the plan's run did not complete", printed + ": " + outcome.detail);
  return 0;
}
