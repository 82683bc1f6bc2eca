// The scheduler's inline timer fast path (sim/world.cpp, pick_next) must not change a run: with
// it on (the default) and off (every timer through Boost's dispatcher), the same scenario gives
// the same events in the same order, the same strategy choices and the same hash. Each test also
// checks that the fast path really fired, so the comparison is never between two identical
// configurations.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "protocols/profiles.h"
#include "protocols/registry.h"
#include "protocols/simulation.h"
#include "sim/sync.h"
#include "sim/world.h"

namespace oversim {
namespace {
using namespace sim::literals;

struct PathRun {
  std::vector<sim::TraceEvent> events;
  std::vector<sim::Choice> choices;
  uint64_t hash = 0;
  uint64_t inline_fires = 0;
};

PathRun run_sale(protocols::Scenario s, bool inline_timers) {
  s.inline_timers = inline_timers;
  s.keep_trace = true;
  protocols::Simulation sale(s, *protocols::find_design(s.design));
  const sim::RunOutcome out = sale.run();
  return PathRun{sale.world().trace_log().events(), sale.world().choices(), out.hash(), sale.world().inline_timer_fires()};
}

// The first event where the two paths differ, or "" when they agree.
std::string first_difference(const PathRun& fast, const PathRun& slow) {
  const size_t n = std::min(fast.events.size(), slow.events.size());
  for (size_t i = 0; i < n; ++i) {
    if (sim::render_text(fast.events[i]) != sim::render_text(slow.events[i])) {
      return fmt::format("event {}: fast path '{}', dispatcher '{}'", i, sim::render_text(fast.events[i]), sim::render_text(slow.events[i]));
    }
  }
  if (fast.events.size() != slow.events.size()) return fmt::format("{} events on the fast path, {} on the dispatcher", fast.events.size(), slow.events.size());
  if (fast.choices != slow.choices) return fmt::format("{} choices on the fast path, {} on the dispatcher, not the same", fast.choices.size(), slow.choices.size());
  return fast.hash == slow.hash ? "" : "same events, different hash";
}

TEST(FastPath, EveryDesignUnderEveryProfileOrdersEventsAsTheDispatcherDoes) {
  uint64_t fires = 0;
  for (const protocols::Design* d : protocols::designs()) {
    for (const protocols::Profile& p : protocols::profiles()) {
      for (uint64_t seed = 1; seed <= 2; ++seed) {
        protocols::Scenario s;
        s.design = d->name;
        s.seed = seed;
        s = protocols::apply_profile(p.name, s);
        const PathRun fast = run_sale(s, true);
        const PathRun slow = run_sale(s, false);
        EXPECT_EQ(slow.inline_fires, 0u);
        fires += fast.inline_fires;
        EXPECT_EQ(first_difference(fast, slow), "") << d->name << " under " << p.name << ", seed " << seed;
      }
    }
  }
  EXPECT_GT(fires, 1000u) << "the fast path hardly fired: the comparison says little";
}

// Tied timers are where the two paths could part: the fast path must leave a tie to the
// strategy, exactly as the dispatcher path does. Four fibers sleep to the same instants, with
// a pause and a fifth fiber on its own cadence so that some instants are tied and some are not.
PathRun tied_sleepers(uint64_t seed, bool inline_timers) {
  sim::World w(sim::WorldConfig{.seed = seed, .inline_timers = inline_timers});
  sim::Node& n = w.add_node("n");
  for (int f = 0; f < 4; ++f) {
    w.spawn(&n, fmt::format("tick-{}", f), [&w, f] {
      for (int k = 0; k < 20; ++k) {
        sim::sleep_for(1_ms);
        w.trace("tick", {{"fiber", std::to_string(f)}, {"k", std::to_string(k)}});
      }
    });
  }
  w.spawn(&n, "odd", [&w] {
    for (int k = 0; k < 30; ++k) {
      sim::sleep_for(sim::Duration::us(700));
      w.trace("odd", {{"k", std::to_string(k)}});
    }
  });
  const sim::RunOutcome out = w.run();
  return PathRun{w.trace_log().events(), w.choices(), out.hash(), w.inline_timer_fires()};
}

TEST(FastPath, TiedTimersAreLeftToTheStrategyOnBothPaths) {
  uint64_t fires = 0;
  size_t timer_choices = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const PathRun fast = tied_sleepers(seed, true);
    const PathRun slow = tied_sleepers(seed, false);
    fires += fast.inline_fires;
    for (const sim::Choice& c : fast.choices) timer_choices += c.kind == sim::ChoiceKind::timer ? 1 : 0;
    EXPECT_EQ(first_difference(fast, slow), "") << "seed " << seed;
  }
  EXPECT_GT(fires, 0u);
  EXPECT_GT(timer_choices, 0u) << "no tie was ever decided by the strategy";
}

}  // namespace
}  // namespace oversim
