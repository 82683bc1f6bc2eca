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

// The parser's message for `text`, or "no error".
std::string error_of(const std::string& text) {
  try {
    FaultPlan::parse(text);
  } catch (const FaultPlanError& e) {
    return std::string(e.what());
  }
  return std::string("no error");
}

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
  // A ';' inside a comment is part of the comment, not a separator.
  EXPECT_EQ(FaultPlan::parse("at 1s crash db  # the primary; it restarts below\nat 2s restart db").to_string(), "at 1s crash db; at 2s restart db");
  EXPECT_EQ(FaultPlan::parse("at 1s crash db; # a; b; c\nat 2s restart db # end").to_string(), "at 1s crash db; at 2s restart db");
}

TEST(FaultPlan, BadTextIsRejectedNamingTheProblem) {
  EXPECT_EQ(error_of("at 1s explode db"),
            "bad fault 'at 1s explode db': unknown fault 'explode' (expected pause, crash, restart, partition, isolate, cut, heal, "
            "clock-jump, clock-drift, delay-next or hold)");
  EXPECT_EQ(error_of("at 1.5s crash db"), "bad fault 'at 1.5s crash db': '1.5s' is not a duration (an integer with ns, us, ms, s, m or h, e.g. 500ms)");
  EXPECT_EQ(error_of("at 1s pause db"), "bad fault 'at 1s pause db': expected 'for' at the end");
  EXPECT_EQ(error_of("at 1s pause db for 0"), "bad fault 'at 1s pause db for 0': '0' must be a positive duration");
  EXPECT_EQ(error_of("at 1s crash db now"), "bad fault 'at 1s crash db now': unexpected 'now'");
  EXPECT_EQ(error_of("crash db"), "bad fault 'crash db': expected 'at' or 'on', got 'crash'");
  EXPECT_EQ(error_of("at 1s clock-drift db 5"), "bad fault 'at 1s clock-drift db 5': '5' is not a drift (e.g. +200ppm)");
}

// Plans that parse but mean nothing, or more than a clock can hold, are rejected by name.
TEST(FaultPlan, MeaninglessAndOutOfRangePlansAreRejected) {
  EXPECT_EQ(error_of("at 1s partition a | a"), "bad fault 'at 1s partition a | a': 'a' is on both sides: a node cannot be partitioned from itself");
  EXPECT_EQ(error_of("at 1s partition a,b | c,b"), "bad fault 'at 1s partition a,b | c,b': 'b' is on both sides: a node cannot be partitioned from itself");
  EXPECT_EQ(error_of("at 1s partition a,a | b"), "bad fault 'at 1s partition a,a | b': 'a' is named twice on one side");
  EXPECT_EQ(error_of("at 1s partition a,,b | c"), "bad fault 'at 1s partition a,,b | c': 'a,,b' has an empty node name");
  EXPECT_EQ(error_of("at 1s partition , | c"), "bad fault 'at 1s partition , | c': ',' has an empty node name");
  EXPECT_EQ(error_of("at 1s cut db -> db"), "bad fault 'at 1s cut db -> db': a link from 'db' to itself carries no messages");
  EXPECT_EQ(error_of("at 1s hold db -> db for 1s"), "bad fault 'at 1s hold db -> db for 1s': a link from 'db' to itself carries no messages");
  EXPECT_EQ(error_of("at 1s delay-next a -> a by 1s"), "bad fault 'at 1s delay-next a -> a by 1s': a link from 'a' to itself carries no messages");
  EXPECT_EQ(error_of("at +-200002208m crash db"), "bad fault 'at +-200002208m crash db': '+-200002208m' is not a duration (an integer with ns, us, ms, s, m or h, e.g. 500ms)");
  EXPECT_EQ(error_of("at -5s crash db"), "bad fault 'at -5s crash db': the time '-5s' must not be negative");
  EXPECT_EQ(error_of("at 721h crash db"), "bad fault 'at 721h crash db': '721h' is out of range (0..720h)");
  EXPECT_EQ(error_of("at 1s pause db for 721h"), "bad fault 'at 1s pause db for 721h': '721h' is out of range (-720h..720h)");
  EXPECT_EQ(error_of("at 1s clock-jump db +99999999999s"), "bad fault 'at 1s clock-jump db +99999999999s': '+99999999999s' is out of range (-720h..720h)");
  EXPECT_EQ(error_of("at 1s clock-drift db +-5ppm"), "bad fault 'at 1s clock-drift db +-5ppm': '+-5ppm' is not a drift (e.g. +200ppm)");
  EXPECT_EQ(error_of("at 1s clock-drift db -1000000ppm"), "bad fault 'at 1s clock-drift db -1000000ppm': drift '-1000000ppm' is out of range (-999999ppm..+1000000ppm)");
  EXPECT_EQ(error_of("at 1s clock-drift db +99999999999999999999ppm"),
            "bad fault 'at 1s clock-drift db +99999999999999999999ppm': drift '+99999999999999999999ppm' is out of range (-999999ppm..+1000000ppm)");
  // Each jump is in range, but together they would carry the clock past what int64 holds.
  std::string jumps;
  for (int i = 0; i < 200; ++i) jumps += "at 1s clock-jump db +720h; ";
  EXPECT_EQ(error_of(jumps), "bad fault 'at 1s clock-jump db +720h': the clock jumps on 'db' add up to more than 87600h");
}

// A plan built in code is checked the same way before it is applied.
TEST(FaultPlan, ApplyRejectsAnInvalidPlanBuiltInCode) {
  World w(WorldConfig{.seed = 1});
  w.add_node("db");
  FaultPlan plan;
  Fault f;
  f.kind = FaultKind::cut;
  f.node = "db";
  f.to = "db";
  plan.faults.push_back(f);
  EXPECT_EQ(plan.problem(), "bad fault 'at 0 cut db -> db': a link from 'db' to itself carries no messages");
  EXPECT_THROW(plan.apply(w), FaultPlanError);
}

// Many faults at one instant all happen, in the order written, from one timer: no strategy
// choice orders them (it once took 7 s for 9,000 of them, when each was its own tied timer).
TEST(FaultPlan, ManyFaultsAtOneInstantAllHappenOnceInOrder) {
  World w(WorldConfig{.seed = 3});
  w.add_node("a");
  w.add_node("b");
  std::string text;
  for (int i = 0; i < 20'000; ++i) text += i % 2 == 0 ? "at 1s cut a -> b; " : "at 1s heal; ";
  FaultPlan::parse(text).apply(w);
  std::vector<std::string> faults;
  w.add_trace_observer([&](const TraceEvent& e) { if (e.kind == "fault") faults.push_back(e.fields.at(0).value); });
  w.spawn(nullptr, "idle", [] { sleep_for(Duration::s(2)); });
  EXPECT_EQ(w.run().status, RunStatus::completed);
  ASSERT_EQ(faults.size(), 20'000u);
  for (size_t i = 0; i < faults.size(); i += 2) {
    EXPECT_EQ(faults[i], "at 1s cut a -> b");
    EXPECT_EQ(faults[i + 1], "at 1s heal");
  }
  size_t timer_choices = 0;
  for (const Choice& c : w.choices()) timer_choices += c.kind == ChoiceKind::timer ? 1u : 0u;
  EXPECT_EQ(timer_choices, 0u);
  EXPECT_LE(w.timer_heap_pushes(), 100u);
}

// Faults written for the same instant apply in the written order whatever the seed: crash then
// restart leaves the node up, restart then crash leaves it down. The same for triggered faults
// with the same delay after one occurrence. A timer each would let the seed order them.
TEST(FaultPlan, FaultsAtOneInstantApplyInTheWrittenOrderForEverySeed) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    for (const auto& [text, up] : std::vector<std::pair<std::string, bool>>{
             {"at 1s crash db; at 1s restart db", true},
             {"at 1s restart db; at 1s crash db", false},
             {"on step after 1s crash db; on step after 1s restart db", true},
             {"on step after 1s restart db; on step after 1s crash db", false}}) {
      World w(WorldConfig{.seed = seed});
      Node& app = w.add_node("app");
      Node& db = w.add_node("db");
      FaultPlan::parse(text).apply(w);
      std::vector<std::string> order;
      w.add_trace_observer([&](const TraceEvent& e) {
        if (e.kind == "crash" || e.kind == "restart") order.push_back(e.kind);
      });
      // Other timers due at the same instant still tie with the faults' and are ordered by the seed.
      for (int i = 0; i < 3; ++i) w.at(Instant::zero() + 1_s, [] {});
      w.spawn(&app, "worker", [] {
        World::current().reach("step");
        sleep_for(2_s);
      });
      EXPECT_EQ(w.run().status, RunStatus::completed) << text;
      EXPECT_EQ(db.up(), up) << text << " with seed " << seed;
      // A restart of a node that is up does nothing (and traces nothing).
      EXPECT_EQ(order, up ? (std::vector<std::string>{"crash", "restart"}) : (std::vector<std::string>{"crash"})) << text << " with seed " << seed;
    }
  }
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

TEST(FaultPlan, TriggeredAndScaledFaultsRoundTrip) {
  const std::string text =
      "on after_acquire pause here for 1.5x lock-ttl; on 3rd before_commit in app-2 crash here; "
      "on write_unreplicated in redis-1 after 3s restart redis-1; on 22nd after_read delay-next here -> db by 2x lock-ttl; "
      "on 11th before_release clock-jump redis-1 +1.25x lock-ttl; at 1s hold app-1 -> db for 0.5x gateway-timeout";
  FaultPlan plan = FaultPlan::parse(text);
  ASSERT_EQ(plan.faults.size(), 6u);
  EXPECT_EQ(plan.to_string(), text);
  EXPECT_EQ(FaultPlan::parse(plan.to_string()), plan);
  EXPECT_EQ(plan.faults[1].trigger, (Trigger{"before_commit", "app-2", 3}));
  EXPECT_EQ(plan.faults[2].at, 3_s);
  EXPECT_EQ(plan.faults[0].scale, (Scale{1500, "lock-ttl"}));
  EXPECT_EQ(plan.faults[4].scale, (Scale{1250, "lock-ttl"}));
  EXPECT_TRUE(plan.triggered());
  // The ordinal 1st is the default and is not printed.
  EXPECT_EQ(FaultPlan::parse("on 1st after_acquire pause here for 1s").to_string(), "on after_acquire pause here for 1s");
  // Only the timed fault counts towards settled_at: a triggered one is not known in advance.
  EXPECT_EQ(FaultPlan::parse("on after_acquire pause here for 9s; at 1s pause app-1 for 2s").settled_at(), 3_s);
}

TEST(FaultPlan, ScaledLengthsResolveAgainstTheRunsQuantities) {
  const Quantities q = {{"lock-ttl", 500_ms}, {"remote-call", 20_ms}};
  FaultPlan plan = FaultPlan::parse("on after_acquire pause here for 1.5x lock-ttl; at 0 clock-jump db -2x remote-call").resolved(q);
  EXPECT_EQ(plan.faults[0].length, 750_ms);
  EXPECT_EQ(plan.faults[1].length, -40_ms);
  EXPECT_EQ(plan.to_string(), "on after_acquire pause here for 1.5x lock-ttl; at 0 clock-jump db -2x remote-call");
  try {
    FaultPlan::parse("at 0 pause db for 2x lock-tll").resolved(q);
    FAIL();
  } catch (const FaultPlanError& e) {
    EXPECT_STREQ(e.what(), "bad fault 'at 0 pause db for 2x lock-tll': unknown quantity 'lock-tll' (known: lock-ttl, remote-call)");
  }
  // An unresolved plan is not applied: its lengths are unknown.
  World w(WorldConfig{.seed = 1});
  w.add_node("db");
  EXPECT_THROW(FaultPlan::parse("at 0 pause db for 2x lock-ttl").apply(w), FaultPlanError);
}

TEST(FaultPlan, BadTriggersAreRejectedNamingTheProblem) {
  EXPECT_EQ(error_of("on after-acquire crash db"), "bad fault 'on after-acquire crash db': 'after-acquire' is not a fault point name (lower case letters, digits and '_')");
  EXPECT_EQ(error_of("on 2th after_acquire crash db"), "bad fault 'on 2th after_acquire crash db': '2th' is not an ordinal such as 1st, 2nd, 3rd or 4th (at most 1000000000)");
  EXPECT_EQ(error_of("on 0th after_acquire crash db"), "bad fault 'on 0th after_acquire crash db': '0th' is not an ordinal such as 1st, 2nd, 3rd or 4th (at most 1000000000)");
  EXPECT_EQ(error_of("on after_acquire in here crash db"), "bad fault 'on after_acquire in here crash db': 'in here' names no node: leave 'in' out to count every node");
  EXPECT_EQ(error_of("on after_acquire after -1s crash db"), "bad fault 'on after_acquire after -1s crash db': the delay '-1s' must not be negative");
  EXPECT_EQ(error_of("at 1s crash here"), "bad fault 'at 1s crash here': 'here' is the node that reached a fault point: only an 'on' fault has one");
  EXPECT_EQ(error_of("on after_acquire pause here for 0x lock-ttl"), "bad fault 'on after_acquire pause here for 0x lock-ttl': '0x' must be a multiple above 0 and at most 1000x");
  EXPECT_EQ(error_of("on after_acquire pause here for 1001x lock-ttl"), "bad fault 'on after_acquire pause here for 1001x lock-ttl': '1001x' must be a multiple above 0 and at most 1000x");
  EXPECT_EQ(error_of("on after_acquire pause here for 1.5x"), "bad fault 'on after_acquire pause here for 1.5x': expected a quantity such as lock-ttl at the end");
  EXPECT_EQ(error_of("on after_acquire"), "bad fault 'on after_acquire': expected a fault verb at the end");
  EXPECT_EQ(error_of("at 0 crash here"), "bad fault 'at 0 crash here': 'here' is the node that reached a fault point: only an 'on' fault has one");
}

// A triggered fault happens exactly at its point: the fiber that reached it is the one paused
// (it does not run one more step), only the nth occurrence on the named node counts, a delay
// waits, and points reached after close_points() trigger nothing.
TEST(FaultPlan, TriggeredFaultsHappenAtTheirPoint) {
  World w(WorldConfig{.seed = 1});
  Node& a = w.add_node("a");
  Node& b = w.add_node("b");
  FaultPlan::parse("on 2nd step in a pause here for 10ms; on 1st step in b after 5ms crash b; on 3rd step crash a").apply(w);
  std::vector<std::string> seen;
  w.spawn(&a, "a-worker", [&] {
    for (int i = 0; i < 2; ++i) {
      World::current().reach("step");
      seen.push_back(fmt::format("a passed step {} at {}", i + 1, format_duration(now() - Instant::zero())));
    }
  });
  w.spawn(&b, "b-worker", [&] {
    sleep_for(Duration::ms(1));
    World::current().reach("step");  // the 3rd step overall: crashes a, which is paused; b goes on
    seen.push_back(fmt::format("b passed step at {}", format_duration(now() - Instant::zero())));
    sleep_for(Duration::ms(10));
    seen.push_back("b never gets here");
  });
  EXPECT_EQ(w.run().status, RunStatus::completed);
  EXPECT_EQ(seen, (std::vector<std::string>{"a passed step 1 at 0", "b passed step at 1ms"}));
  EXPECT_FALSE(a.up());
  EXPECT_FALSE(b.up());
  EXPECT_EQ(w.faults_applied(), 3u);
  EXPECT_EQ(w.point_counts().at("step"), 3u);
  // Pause 10ms from 0 and the delayed crash at 6ms: the last fault plays out at 10ms.
  EXPECT_EQ(w.faults_settle_at(), Instant::zero() + 10_ms);
}

TEST(FaultPlan, ClosedPointsTriggerNothing) {
  World w(WorldConfig{.seed = 1});
  Node& a = w.add_node("a");
  FaultPlan::parse("on step crash here").apply(w);
  w.spawn(&a, "worker", [&] {
    World::current().close_points();
    World::current().reach("step");
  });
  EXPECT_EQ(w.run().status, RunStatus::completed);
  EXPECT_TRUE(a.up());
  EXPECT_EQ(w.faults_applied(), 0u);
  EXPECT_EQ(w.point_counts().at("step"), 1u);
}

// Any generated plan prints to text that parses back to the same plan.
RC_GTEST_PROP(FaultPlanProperty, PrintThenParseIsIdentity, ()) {
  const auto name = rc::gen::element<std::string>("app-1", "db", "redis-1", "redis-2", "zk");
  const auto duration = rc::gen::map(rc::gen::inRange<int64_t>(1, 100000), [](int64_t ms) { return Duration::ms(ms); });
  const auto fault = rc::gen::exec([&] {
    Fault f;
    f.at = Duration::ms(*rc::gen::inRange<int64_t>(0, 60000));
    if (*rc::gen::inRange(0, 3) == 0) {
      f.trigger.point = *rc::gen::element<std::string>("after_acquire", "before_commit", "write_unreplicated");
      f.trigger.nth = static_cast<uint32_t>(*rc::gen::inRange(1, 30));
      if (*rc::gen::arbitrary<bool>()) f.trigger.node = *name;
    }
    f.kind = static_cast<FaultKind>(*rc::gen::inRange(0, 11));
    const bool scaled = *rc::gen::inRange(0, 3) == 0;
    const int64_t milli = *rc::gen::inRange<int64_t>(1, 5000);
    switch (f.kind) {
      case FaultKind::pause:
      case FaultKind::hold:
      case FaultKind::delay_next:
        if (scaled) f.scale = Scale{milli, "lock-ttl"};
        else f.length = *duration;
        break;
      case FaultKind::clock_jump: {
        const bool zero = *rc::gen::inRange(0, 8) == 0;  // a zero jump prints as "+0"
        const bool backwards = *rc::gen::arbitrary<bool>();
        const Duration length = *duration;
        f.length = zero ? Duration::zero() : backwards ? -length : length;
        if (scaled) {
          f.length = Duration::zero();
          f.scale = Scale{backwards ? -milli : milli, "remote-call"};
        }
        break;
      }
      case FaultKind::clock_drift: f.drift_ppm = *rc::gen::inRange<int64_t>(-999999, 1000000); break;
      default: break;
    }
    // `here` only in triggered faults: absolute ones are refused (the property checks both).
    const auto subject = f.triggered() ? rc::gen::element<std::string>("app-1", "db", "here") : name;
    if (f.kind != FaultKind::heal && f.kind != FaultKind::partition) f.node = *subject;
    if (f.kind == FaultKind::cut || f.kind == FaultKind::hold || f.kind == FaultKind::delay_next) f.to = *subject;
    if (f.kind == FaultKind::partition) {
      f.side_a = *rc::gen::nonEmpty(rc::gen::container<std::vector<std::string>>(name));
      f.side_b = *rc::gen::nonEmpty(rc::gen::container<std::vector<std::string>>(name));
    }
    return f;
  });
  FaultPlan plan;
  plan.faults = *rc::gen::container<std::vector<Fault>>(fault);
  // A valid plan round-trips; an invalid one (a self-link, a node on both sides) is refused by
  // the parser with the same message problem() gives.
  const std::optional<std::string> problem = plan.problem();
  RC_CLASSIFY(problem.has_value(), "invalid");
  if (problem) {
    try {
      FaultPlan::parse(plan.to_string());
      RC_FAIL("an invalid plan parsed: " + plan.to_string());
    } catch (const FaultPlanError& e) {
      RC_ASSERT(std::string(e.what()) == *problem);
    }
  } else {
    RC_ASSERT(FaultPlan::parse(plan.to_string()) == plan);
  }
}

}  // namespace
}  // namespace oversim::sim
