// Fault plans are data: they print, parse back, reject bad text with a message naming the
// problem, and schedule exactly what they say.
#include "sim/fault_plan.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "sim/network.h"
#include "sim/sync.h"
#include "sim/world.h"

namespace oversim::sim {
namespace {
using namespace literals;

TEST(FaultPlan, EveryVerbRoundTrips) {
  const std::string text =
      "at 1s pause app-1 for 4s; at 2s crash redis-1; at 3s restart redis-1; at 2s partition a,b | c,d; "
      "at 2s isolate redis-1; at 2s cut app-1 -> db; at 5s heal; at 1s clock-jump redis-2 +2s; at 1s clock-jump redis-2 -500ms; "
      "at 1s clock-drift redis-2 +200ppm; at 1s clock-drift redis-2 -50ppm; at 1s delay-next app-1 -> db by 5s; at 0 hold app-1 -> db for 2s";
  FaultPlan plan = FaultPlan::parse(text);
  ASSERT_EQ(plan.faults.size(), 13u);
  EXPECT_EQ(plan.to_string(), text);
  EXPECT_EQ(FaultPlan::parse(plan.to_string()), plan);
  EXPECT_EQ(plan.faults[0].kind, FaultKind::pause);
  EXPECT_EQ(plan.faults[0].length, 4_s);
  EXPECT_EQ(plan.faults[3].side_b, (std::vector<std::string>{"c", "d"}));
  EXPECT_EQ(plan.faults[8].length, -500_ms);
  EXPECT_EQ(plan.faults[10].drift_ppm, -50);
}

TEST(FaultPlan, NewlinesAndCommentsAreAccepted) {
  FaultPlan plan = FaultPlan::parse("# a GC pause\nat 100ms pause app-1 for 5s   # long one\n\nat 6s heal\n");
  EXPECT_EQ(plan.to_string(), "at 100ms pause app-1 for 5s; at 6s heal");
  EXPECT_EQ(plan.settled_at(), 6_s);
}

TEST(FaultPlan, BadTextIsRejectedNamingTheProblem) {
  auto error_of = [](const std::string& text) {
    try {
      FaultPlan::parse(text);
    } catch (const FaultPlanError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("at 1s explode db"),
            "bad fault 'at 1s explode db': unknown fault 'explode' (expected pause, crash, restart, partition, isolate, cut, heal, "
            "clock-jump, clock-drift, delay-next or hold)");
  EXPECT_EQ(error_of("at 1.5s crash db"), "bad fault 'at 1.5s crash db': '1.5s' is not a duration (an integer with ns, us, ms, s or m, e.g. 1500ms)");
  EXPECT_EQ(error_of("at 1s pause db"), "bad fault 'at 1s pause db': expected 'for' at the end");
  EXPECT_EQ(error_of("at 1s pause db for 0"), "bad fault 'at 1s pause db for 0': '0' must be a positive duration");
  EXPECT_EQ(error_of("at 1s crash db now"), "bad fault 'at 1s crash db now': unexpected 'now'");
  EXPECT_EQ(error_of("crash db"), "bad fault 'crash db': expected 'at', got 'crash'");
  EXPECT_EQ(error_of("at 1s clock-drift db 5"), "bad fault 'at 1s clock-drift db 5': '5' is not a drift (e.g. +200ppm)");
}

TEST(FaultPlan, ApplyRejectsUnknownNodesBeforeSchedulingAnything) {
  World w(WorldConfig{.seed = 1});
  w.add_node("db");
  try {
    FaultPlan::parse("at 1s crash db; at 2s crash redis-9").apply(w);
    FAIL();
  } catch (const FaultPlanError& e) {
    EXPECT_STREQ(e.what(), "fault 'at 2s crash redis-9' names unknown node 'redis-9' (nodes: db)");
  }
  EXPECT_EQ(w.run().status, RunStatus::completed);
  EXPECT_TRUE(w.node("db").up());
}

TEST(FaultPlan, AppliedFaultsHappenAtTheirTimes) {
  World w(WorldConfig{.seed = 1});
  Node& app = w.add_node("app");
  Node& db = w.add_node("db");
  FaultPlan::parse("at 10ms pause app for 20ms; at 5ms crash db; at 40ms restart db; at 1ms clock-jump db +1s; at 0 clock-drift app +1000ppm")
      .apply(w);
  std::vector<std::string> seen;
  w.spawn(nullptr, "observer", [&] {
    sleep_for(Duration::ms(2));
    seen.push_back(fmt::format("db clock {}", format_duration(db.local_now() - Instant::zero())));
    sleep_for(Duration::ms(4));
    seen.push_back(fmt::format("db up {}", db.up()));
    sleep_for(Duration::ms(9));
    seen.push_back(fmt::format("app paused {}", app.paused()));
    sleep_for(Duration::ms(20));
    seen.push_back(fmt::format("app paused {} db up {}", app.paused(), db.up()));
    sleep_for(Duration::ms(10));
    seen.push_back(fmt::format("db up {} app clock {}", db.up(), format_duration(app.local_now() - Instant::zero())));
  });
  EXPECT_EQ(w.run().status, RunStatus::completed);
  EXPECT_EQ(seen, (std::vector<std::string>{"db clock 1002ms", "db up false", "app paused true", "app paused false db up false",
                                            "db up true app clock 45045us"}));
}

// Any generated plan prints to text that parses back to the same plan.
RC_GTEST_PROP(FaultPlanProperty, PrintThenParseIsIdentity, ()) {
  const auto name = rc::gen::element<std::string>("app-1", "db", "redis-1", "redis-2", "zk");
  const auto duration = rc::gen::map(rc::gen::inRange<int64_t>(1, 100000), [](int64_t ms) { return Duration::ms(ms); });
  const auto fault = rc::gen::exec([&] {
    Fault f;
    f.at = Duration::ms(*rc::gen::inRange<int64_t>(0, 60000));
    f.kind = static_cast<FaultKind>(*rc::gen::inRange(0, 11));
    switch (f.kind) {
      case FaultKind::pause:
      case FaultKind::hold:
      case FaultKind::delay_next: f.length = *duration; break;
      case FaultKind::clock_jump: f.length = *duration * (*rc::gen::arbitrary<bool>() ? 1 : -1); break;
      case FaultKind::clock_drift: f.drift_ppm = *rc::gen::inRange<int64_t>(-999999, 1000000); break;
      default: break;
    }
    if (f.kind != FaultKind::heal && f.kind != FaultKind::partition) f.node = *name;
    if (f.kind == FaultKind::cut || f.kind == FaultKind::hold || f.kind == FaultKind::delay_next) f.to = *name;
    if (f.kind == FaultKind::partition) {
      f.side_a = *rc::gen::nonEmpty(rc::gen::container<std::vector<std::string>>(name));
      f.side_b = *rc::gen::nonEmpty(rc::gen::container<std::vector<std::string>>(name));
    }
    return f;
  });
  FaultPlan plan;
  plan.faults = *rc::gen::container<std::vector<Fault>>(fault);
  RC_ASSERT(FaultPlan::parse(plan.to_string()) == plan);
}

}  // namespace
}  // namespace oversim::sim
