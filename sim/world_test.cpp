// Kernel stories: time, timeouts, cancellation, deadlock, horizon, exceptions, pauses, crashes.
#include "sim/world.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "sim/fault_plan.h"
#include "sim/network.h"
#include "sim/sync.h"

namespace oversim::sim {
namespace {
using namespace literals;

TEST(World, SleepingFibersWakeAtTheirVirtualTimesInOrder) {
  World w(WorldConfig{.seed = 7});
  std::vector<std::pair<int64_t, std::string>> log;
  for (int i : {3, 1, 2}) {
    w.spawn(nullptr, fmt::format("f{}", i), [&, i] {
      sleep_for(Duration::ms(i * 10));
      log.emplace_back(now().ns(), fmt::format("f{}", i));
    });
  }
  RunOutcome out = w.run();
  EXPECT_EQ(out.status, RunStatus::completed);
  ASSERT_EQ(log.size(), 3u);
  EXPECT_EQ(log[0], std::make_pair(int64_t{10'000'000}, std::string("f1")));
  EXPECT_EQ(log[1], std::make_pair(int64_t{20'000'000}, std::string("f2")));
  EXPECT_EQ(log[2], std::make_pair(int64_t{30'000'000}, std::string("f3")));
  EXPECT_EQ(out.end_time, Instant::zero() + 30_ms);
}

TEST(World, AnEventWaitTimesOutAtItsDeadlineAndAWakeBeforeItWins) {
  World w(WorldConfig{.seed = 1});
  Event never_set, set_later;
  bool first = true, second = false;
  Instant first_at, second_at;
  w.spawn(nullptr, "waits-forever", [&] { first = never_set.wait_until(now() + 5_ms); first_at = now(); });
  w.spawn(nullptr, "waits-a-bit", [&] { second = set_later.wait_until(now() + 5_ms); second_at = now(); });
  w.spawn(nullptr, "setter", [&] { sleep_for(2_ms); set_later.set(); });
  EXPECT_EQ(w.run().status, RunStatus::completed);
  EXPECT_FALSE(first);
  EXPECT_EQ(first_at, Instant::zero() + 5_ms);
  EXPECT_TRUE(second);
  EXPECT_EQ(second_at, Instant::zero() + 2_ms);
}

TEST(World, ADeadlockIsReportedWithEveryWaitingFiberAndWhereItWaits) {
  World w(WorldConfig{.seed = 1});
  Mutex a, b;
  w.spawn(nullptr, "left", [&] { a.lock("lock a"); sleep_for(1_ms); b.lock("lock b"); });
  w.spawn(nullptr, "right", [&] { b.lock("lock b"); sleep_for(1_ms); a.lock("lock a"); });
  RunOutcome out = w.run();
  EXPECT_EQ(out.status, RunStatus::deadlock);
  EXPECT_NE(out.detail.find("'left' on world waits at: lock b"), std::string::npos) << out.detail;
  EXPECT_NE(out.detail.find("'right' on world waits at: lock a"), std::string::npos) << out.detail;
  EXPECT_EQ(out.end_time, Instant::zero() + 1_ms);
}

TEST(World, TheVirtualTimeHorizonStopsARunThatWouldNeverEnd) {
  World w(WorldConfig{.seed = 1, .horizon = 10_s});
  int ticks = 0;
  w.spawn(nullptr, "ticker", [&] {
    for (;;) {
      sleep_for(1_s);
      ++ticks;
    }
  });
  RunOutcome out = w.run();
  EXPECT_EQ(out.status, RunStatus::horizon);
  EXPECT_EQ(ticks, 10);
  EXPECT_NE(out.detail.find("virtual-time horizon of 10s"), std::string::npos) << out.detail;
}

TEST(World, TheStepLimitStopsABusyLoop) {
  World w(WorldConfig{.seed = 1, .max_steps = 1000});
  w.spawn(nullptr, "spinner", [] {
    for (;;) yield();
  });
  RunOutcome out = w.run();
  EXPECT_EQ(out.status, RunStatus::horizon);
  EXPECT_EQ(out.steps, 1000u);
}

TEST(World, AnExceptionInAFiberStopsTheRunAndIsRethrownNamingTheFiber) {
  World w(WorldConfig{.seed = 1});
  bool other_unwound = false;
  w.spawn(nullptr, "bystander", [&] {
    struct Flag {
      bool& f;
      ~Flag() { f = true; }
    } flag{other_unwound};
    sleep_for(1_s);
  });
  w.spawn(nullptr, "thrower", [] {
    sleep_for(1_ms);
    throw std::runtime_error("boom");
  });
  try {
    w.run();
    FAIL() << "run() should have thrown";
  } catch (const SimError& e) {
    EXPECT_STREQ(e.what(), "fiber 'thrower' (#2) threw: boom");
  }
  EXPECT_TRUE(other_unwound);
}

TEST(World, DaemonsDoNotKeepARunAliveAndAreUnwoundAtTheEnd) {
  World w(WorldConfig{.seed = 1});
  int daemon_ticks = 0;
  bool daemon_unwound = false;
  w.spawn(nullptr, "daemon", [&] {
    struct Flag {
      bool& f;
      ~Flag() { f = true; }
    } flag{daemon_unwound};
    for (;;) {
      sleep_for(1_ms);
      ++daemon_ticks;
    }
  }, /*daemon=*/true);
  w.spawn(nullptr, "worker", [] { sleep_for(Duration::us(3500)); });
  RunOutcome out = w.run();
  EXPECT_EQ(out.status, RunStatus::completed);
  EXPECT_EQ(daemon_ticks, 3);
  EXPECT_TRUE(daemon_unwound);
}

TEST(World, APauseDelaysANodesProgressByExactlyItsLength) {
  World w(WorldConfig{.seed = 1});
  Node& app = w.add_node("app");
  Instant woke;
  w.spawn(&app, "buyer", [&] {
    sleep_for(10_ms);
    woke = now();
  });
  w.at(Instant::zero() + 5_ms, [&] { w.pause(app); });
  w.at(Instant::zero() + 5_ms + 40_ms, [&] { w.resume(app); });
  EXPECT_EQ(w.run().status, RunStatus::completed);
  // The timer fired at 10ms while paused; the fiber ran at resume, 45ms.
  EXPECT_EQ(woke, Instant::zero() + 45_ms);
}

TEST(World, ACrashCancelsTheNodesFibersAndARestartBootsItAgain) {
  World w(WorldConfig{.seed = 1});
  Node& server = w.add_node("server");
  int boots = 0;
  int unwound = 0;
  server.set_boot([&](Node& n) {
    ++boots;
    w.spawn(&n, "loop", [&] {
      struct Count {
        int& c;
        ~Count() { ++c; }
      } count{unwound};
      for (;;) sleep_for(1_ms);
    }, true);
  });
  w.spawn(nullptr, "driver", [&] {
    sleep_for(Duration::us(2500));
    w.crash(server);
    EXPECT_FALSE(server.up());
    sleep_for(1_ms);
    w.restart(server);
    sleep_for(1_ms);
  });
  EXPECT_EQ(w.run().status, RunStatus::completed);
  EXPECT_EQ(boots, 2);
  EXPECT_EQ(unwound, 2);  // once at the crash, once at the end of the run
  EXPECT_EQ(server.incarnation(), 1u);
}

TEST(World, AYieldDoesNotLetTimePassWhileTheYielderIsRunnable) {
  World w(WorldConfig{.seed = 3});
  Instant seen;
  w.spawn(nullptr, "yielder", [&] {
    yield();
    seen = now();
  });
  w.spawn(nullptr, "sleeper", [] { sleep_for(1_ms); });
  EXPECT_EQ(w.run().status, RunStatus::completed);
  EXPECT_EQ(seen, Instant::zero());
}

TEST(World, OverlappingPausesResumeWhenTheLongestEnds) {
  World w(WorldConfig{.seed = 1});
  Node& app = w.add_node("app");
  Instant woke;
  w.spawn(&app, "buyer", [&] {
    sleep_for(Duration::us(1500));
    woke = now();
  });
  FaultPlan::parse("at 1ms pause app for 5ms; at 2ms pause app for 1ms").apply(w);
  EXPECT_EQ(w.run().status, RunStatus::completed);
  EXPECT_EQ(woke, Instant::zero() + 6_ms);
}

TEST(World, AWakeUpSkipsAWaiterThatAlreadyTimedOut) {
  // W1 times out while its node is paused (it cannot run to leave the queue); the notify must
  // go to W2, not be lost on W1.
  World w(WorldConfig{.seed = 1});
  Node& a = w.add_node("a");
  WaitQueue q;
  std::vector<std::string> got;
  w.spawn(&a, "w1", [&] { got.push_back(q.wait(now() + 1_ms, "w1") == WakeReason::timed_out ? "w1 timed out" : "w1 woken"); });
  w.spawn(&a, "w2", [&] { got.push_back(q.wait(std::nullopt, "w2") == WakeReason::woken ? "w2 woken" : "w2 ?"); });
  w.spawn(nullptr, "notifier", [&] {
    sleep_for(2_ms);
    q.notify_one();
  });
  FaultPlan::parse("at 500us pause a for 5ms").apply(w);
  EXPECT_EQ(w.run().status, RunStatus::completed);
  EXPECT_EQ(got.size(), 2u);
  EXPECT_NE(std::find(got.begin(), got.end(), "w2 woken"), got.end());
}

TEST(World, SameSeedSameHashDifferentSeedsDifferentRuns) {
  auto run_once = [](uint64_t seed) {
    World w(WorldConfig{.seed = seed});
    Mutex m;
    int counter = 0;
    for (int i = 0; i < 5; ++i) {
      w.spawn(nullptr, fmt::format("f{}", i), [&, i] {
        for (int k = 0; k < 3; ++k) {
          sleep_for(Duration::us(w.random_between(1, 100)));
          LockGuard g(m);
          w.trace("inc", {{"who", std::to_string(i)}, {"value", std::to_string(++counter)}});
        }
      });
    }
    return w.run().hash();
  };
  EXPECT_EQ(run_once(42), run_once(42));
  EXPECT_NE(run_once(42), run_once(43));
}

// PCT: a fiber's priority is fixed until a change point, so with depth 1 (no change point) the
// fibers woken together run in the same order every time; with change points the order moves.
// Every PCT run is deterministic and replays from its recorded choices.
TEST(World, PctRunsFibersByPriorityAndReplaysFromItsChoices) {
  constexpr int kRounds = 6;
  auto run_once = [](std::unique_ptr<Strategy> strategy, std::vector<Choice>* choices = nullptr) {
    World w(WorldConfig{.seed = 7}, std::move(strategy));
    Event tick[kRounds];
    std::vector<std::string> rounds(kRounds);
    for (int i = 0; i < 4; ++i) {
      w.spawn(nullptr, fmt::format("f{}", i), [&, i] {
        for (int k = 0; k < kRounds; ++k) {
          tick[k].wait();  // the four wake together: one scheduling decision among them
          rounds[static_cast<size_t>(k)] += static_cast<char>('a' + i);
        }
      });
    }
    w.spawn(nullptr, "ticker", [&] {
      for (int k = 0; k < kRounds; ++k) {
        sleep_for(Duration::ms(1));
        tick[k].set();
      }
    });
    const uint64_t hash = w.run().hash();
    if (choices != nullptr) *choices = w.choices();
    return std::make_pair(rounds, hash);
  };
  auto all_same = [](const std::vector<std::string>& rounds) {
    return std::all_of(rounds.begin(), rounds.end(), [&](const std::string& r) { return r == rounds.front(); });
  };
  size_t moved = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    EXPECT_TRUE(all_same(run_once(std::make_unique<PctStrategy>(seed, 1, 20)).first)) << "seed " << seed;
    moved += all_same(run_once(std::make_unique<PctStrategy>(seed, 3, 20)).first) ? 0u : 1u;
  }
  EXPECT_GT(moved, 10u);
  std::vector<Choice> recorded;
  const auto first = run_once(std::make_unique<PctStrategy>(5, 3, 20), &recorded);
  EXPECT_EQ(run_once(std::make_unique<PctStrategy>(5, 3, 20)), first);
  EXPECT_EQ(run_once(std::make_unique<ReplayStrategy>(recorded)), first);
  // The change points are distinct decision numbers in [1, steps].
  PctStrategy pct(9, 4, 3);
  EXPECT_EQ(pct.change_points(), (std::vector<uint64_t>{1, 2, 3}));
}

// A condition-variable wait made while the fiber is being cancelled (in a destructor during
// unwinding) returns at once, and reports that it was not notified. (It used to report true,
// which a caller reads as "notified".)
// wait_until is true only when notified: a timeout is false, at the deadline, with the mutex held.
TEST(World, ACondVarWaitUntilIsTrueWhenNotifiedAndFalseAtItsDeadline) {
  World w(WorldConfig{.seed = 1});
  Node& n = w.add_node("n");
  Mutex m;
  CondVar cv;
  std::vector<std::string> seen;
  w.spawn(&n, "waits-in-vain", [&] {
    m.lock();
    const bool notified = cv.wait_until(m, Instant::zero() + 5_ms);
    seen.push_back(fmt::format("timeout: {} at {} held {}", notified, format_instant(now()), !m.try_lock()));
    m.unlock();
  });
  w.spawn(&n, "notified", [&] {
    sleep_for(10_ms);
    m.lock();
    const bool notified = cv.wait_until(m, Instant::zero() + 50_ms);
    seen.push_back(fmt::format("notify: {} at {}", notified, format_instant(now())));
    m.unlock();
  });
  w.spawn(&n, "notifier", [&] {
    sleep_for(20_ms);
    cv.notify_all();
  });
  ASSERT_EQ(w.run().status, RunStatus::completed);
  EXPECT_EQ(seen, (std::vector<std::string>{"timeout: false at    0.005000s held true", "notify: true at    0.020000s"}));
}

TEST(World, ACondVarWaitDuringCancellationReportsNotNotified) {
  World w(WorldConfig{.seed = 1});
  Mutex m;
  CondVar cv;
  std::optional<bool> notified;
  struct WaitOnExit {
    Mutex& m;
    CondVar& cv;
    std::optional<bool>& notified;
    ~WaitOnExit() {
      m.lock();
      notified = cv.wait_until(m, now() + 1_s);
      m.unlock();
    }
  };
  w.spawn(nullptr, "daemon", [&] {
    WaitOnExit on_exit{m, cv, notified};
    Event never;
    never.wait("forever");
  }, true);
  w.spawn(nullptr, "worker", [] { sleep_for(1_ms); });
  EXPECT_EQ(w.run().status, RunStatus::completed);
  ASSERT_TRUE(notified.has_value());
  EXPECT_FALSE(*notified);
}

// Timers tied at one instant can be cancelled, or have their fiber woken, by another tied timer
// that fires first: the cancelled one never fires and the woken fiber runs once. Across seeds
// the strategy orders the ties every way, so both the "before" and "after" cases happen.
TEST(World, ATiedTimerCancelledOrWokenByAnotherTiedTimerDoesNotFireAgain) {
  int cancelled_before_firing = 0;
  int woken_before_its_deadline = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    World w(WorldConfig{.seed = seed});
    std::vector<std::string> fired;
    TimerId victim = 0;
    FiberRecord* sleeper = nullptr;
    const Instant t = Instant::zero() + 1_ms;
    w.at(t, [&] {
      fired.push_back("canceller");
      w.cancel_timer(victim);
    });
    victim = w.at(t, [&] { fired.push_back("victim"); });
    w.at(t, [&] {
      fired.push_back("waker");
      if (sleeper != nullptr) w.wake(sleeper);
    });
    w.at(t, [&] { fired.push_back("bystander"); });
    WakeReason reason = WakeReason::none;
    int sleeper_runs = 0;
    w.spawn(nullptr, "sleeper", [&] {
      sleeper = w.current_fiber();
      reason = w.park(t, "tied sleep");
      ++sleeper_runs;
      sleeper = nullptr;  // it ends here; time cannot move before it has run, so no callback sees it gone
    });
    w.spawn(nullptr, "keeps the run alive", [] { sleep_for(2_ms); });
    ASSERT_NO_THROW(w.run()) << "seed " << seed;
    const auto pos = [&](const char* name) { return std::find(fired.begin(), fired.end(), name) - fired.begin(); };
    EXPECT_EQ(std::count(fired.begin(), fired.end(), "canceller"), 1);
    EXPECT_EQ(std::count(fired.begin(), fired.end(), "waker"), 1);
    EXPECT_EQ(std::count(fired.begin(), fired.end(), "bystander"), 1);
    const bool victim_fired = std::count(fired.begin(), fired.end(), "victim") == 1;
    EXPECT_EQ(victim_fired, pos("victim") < pos("canceller")) << "seed " << seed;
    if (!victim_fired) ++cancelled_before_firing;
    EXPECT_EQ(sleeper_runs, 1);
    if (reason == WakeReason::woken) ++woken_before_its_deadline;
  }
  EXPECT_GT(cancelled_before_firing, 0);
  EXPECT_GT(woken_before_its_deadline, 0);
}

// Many timers at one instant: the strategy picks among them one per step without re-sorting the
// rest each time (it was quadratic: 9,000 faults at one instant, a timer each, took 7 s).
TEST(World, ManyTimersAtOneInstantAllFireOnceAtLinearCost) {
  World w(WorldConfig{.seed = 3});
  size_t fired = 0;
  for (int i = 0; i < 20'000; ++i) w.at(Instant::zero() + 1_s, [&fired] { ++fired; });
  w.spawn(nullptr, "idle", [] { sleep_for(2_s); });
  EXPECT_EQ(w.run().status, RunStatus::completed);
  EXPECT_EQ(fired, 20'000u);
  // One strategy choice per timer but the last: n, n-1, ..., 2 options.
  size_t timer_choices = 0;
  for (const Choice& c : w.choices()) timer_choices += c.kind == ChoiceKind::timer ? 1u : 0u;
  EXPECT_EQ(timer_choices, 19'999u);
  // Each timer entered the heap once: the ties were not re-pushed after every pick (that was
  // the quadratic part: about n²/2 pushes).
  EXPECT_LE(w.timer_heap_pushes(), 20'000u + 100u);
}

// A fiber woken while its node is paused is held at once: it never joins the ready set, so it
// takes part in no scheduling choice and runs only after the resume.
TEST(World, AFiberWokenOnAPausedNodeIsHeldAtOnceAndTakesPartInNoChoice) {
  World w(WorldConfig{.seed = 3});
  Node& a = w.add_node("a");
  Node& b = w.add_node("b");
  Node& c = w.add_node("c");
  Event go;
  std::vector<std::string> order;
  size_t choices_at_set = 0;
  w.spawn(&a, "on-a", [&] { go.wait("go"); order.push_back("a"); });
  w.spawn(&b, "on-b", [&] { go.wait("go"); order.push_back("b"); });
  w.spawn(&c, "setter", [&] {
    sleep_for(1_ms);
    w.pause(a);
    choices_at_set = w.choices().size();
    go.set();  // wakes on-a (held: a is paused) and on-b
    sleep_for(1_ms);
    order.push_back("c");
    w.resume(a);
  });
  ASSERT_EQ(w.run().status, RunStatus::completed);
  EXPECT_EQ(order, (std::vector<std::string>{"b", "c", "a"}));
  EXPECT_EQ(w.choices().size(), choices_at_set) << "only on-b was ready after the set: nothing to choose";
}

// A node paused while one of its fibers is already ready (here by a fiber on another node, in
// the same instant): the scheduler holds that fiber when it would pick it.
TEST(World, AFiberAlreadyReadyWhenItsNodeIsPausedIsHeldUntilTheResume) {
  World w(WorldConfig{.seed = 5});
  Node& a = w.add_node("a");
  Node& c = w.add_node("c");
  Event go;
  std::vector<std::string> order;
  w.spawn(&a, "on-a", [&] { go.wait("go"); order.push_back("a"); });
  w.spawn(&c, "pauser", [&] {
    sleep_for(1_ms);
    go.set();    // on-a is ready now
    w.pause(a);  // and its node stops before it runs
    sleep_for(1_ms);
    order.push_back("c");
    w.resume(a);
  });
  ASSERT_EQ(w.run().status, RunStatus::completed);
  EXPECT_EQ(order, (std::vector<std::string>{"c", "a"}));
}

}  // namespace
}  // namespace oversim::sim

namespace oversim::sim {
namespace {

// The explorer's tree over a tiny world, counted by hand. Every fiber waits for the same tick
// `rounds` times; the fibers a tick wakes are ready together, one scheduling decision among them.
// Fibers on one node depend on each other, so every order is walked each round: (n!)^rounds
// executions for n fibers. Fibers on different nodes commute: one execution. Two on one node and
// one on another: only the pair has an order, 2 per round.
uint64_t count_executions(const std::vector<int>& node_of, int rounds, std::set<std::string>* orders = nullptr, uint64_t max_deviations = UINT64_MAX) {
  std::vector<uint64_t> prefix;
  uint64_t executions = 0;
  for (;;) {
    ExploreStrategy strategy(prefix, 16, max_deviations);
    World w(WorldConfig{.seed = 1}, std::make_unique<LentStrategy>(strategy));
    std::vector<Node*> nodes;
    for (int n = 0; n < 3; ++n) nodes.push_back(&w.add_node(fmt::format("n{}", n)));
    std::string order;
    std::vector<std::unique_ptr<Event>> tick;
    for (int k = 0; k < rounds; ++k) tick.push_back(std::make_unique<Event>());
    for (size_t f = 0; f < node_of.size(); ++f) {
      w.spawn(nodes[static_cast<size_t>(node_of[f])], fmt::format("f{}", f), [&, f] {
        for (int k = 0; k < rounds; ++k) {
          tick[static_cast<size_t>(k)]->wait();
          order += static_cast<char>('a' + f);
        }
      });
    }
    w.spawn(nullptr, "ticker", [&] {
      for (int k = 0; k < rounds; ++k) {
        sleep_for(Duration::ms(1));
        tick[static_cast<size_t>(k)]->set();
      }
    });
    w.run();
    ++executions;
    if (orders != nullptr) orders->insert(order);
    auto next = next_prefix(values_of(w.choices()), strategy.walked());
    if (!next) return executions;
    prefix = std::move(*next);
  }
}

TEST(Explore, CountsEveryOrderOfDependentFibersAndOneOfIndependentOnes) {
  std::set<std::string> orders;
  EXPECT_EQ(count_executions({0, 0}, 2, &orders), 4u);  // (2!)^2
  EXPECT_EQ(orders, (std::set<std::string>{"abab", "abba", "baab", "baba"}));
  EXPECT_EQ(count_executions({0, 0, 0}, 1), 6u);        // 3!
  EXPECT_EQ(count_executions({0, 0, 0}, 2), 36u);       // (3!)^2
  EXPECT_EQ(count_executions({0, 1, 2}, 3), 1u);
  EXPECT_EQ(count_executions({0, 0, 1}, 2), 4u);        // the pair's 2, twice
  // Context bounding: no deviation walks the first order only; one deviation, the first order
  // plus each single change of it: 1 + 3 for three fibers in one round (the first choice has
  // two other options, the second one).
  EXPECT_EQ(count_executions({0, 0, 0}, 1, nullptr, 0), 1u);
  EXPECT_EQ(count_executions({0, 0, 0}, 1, nullptr, 1), 4u);
}

// Two messages from different nodes reach one mailbox at the same instant while its consumer is
// busy: the order they queue in is walked both ways (2 executions). The consumer's own step at
// that instant commutes with the deliveries and adds nothing.
TEST(Explore, DeliveriesIntoOneMailboxAreOrderedBothWays) {
  std::vector<uint64_t> prefix;
  std::set<std::string> orders;
  uint64_t executions = 0;
  for (;;) {
    ExploreStrategy strategy(prefix, 16);
    World w(WorldConfig{.seed = 1}, std::make_unique<LentStrategy>(strategy));
    w.network().config().latency = LatencyModel{Duration::ms(1), Duration::ms(1), Ratio::never(), Duration::ms(1), std::nullopt};
    Node& a = w.add_node("a");
    Node& b = w.add_node("b");
    Node& c = w.add_node("c");
    std::string order;
    w.spawn(&a, "send-a", [&] { w.network().send(a, c, "p", std::string("a"), "a"); });
    w.spawn(&b, "send-b", [&] { w.network().send(b, c, "p", std::string("b"), "b"); });
    w.spawn(&c, "consumer", [&] {
      sleep_for(Duration::ms(1));  // busy when both arrive
      for (int k = 0; k < 2; ++k) order += std::any_cast<std::string>(c.mailbox("p").receive()->body);
    });
    w.run();
    ++executions;
    orders.insert(order);
    auto next = next_prefix(values_of(w.choices()), strategy.walked());
    if (!next) break;
    prefix = std::move(*next);
  }
  EXPECT_EQ(orders, (std::set<std::string>{"ab", "ba"}));
  EXPECT_EQ(executions, 2u);
}

TEST(Explore, ChoiceListsRoundTripAndReplayLeniently) {
  const std::vector<uint64_t> values = {0, 0, 0, 1, 2, 2, 7, 0};
  EXPECT_EQ(format_choice_values(values), "0*3.1.2.2.7.0");
  EXPECT_EQ(parse_choice_values(format_choice_values(values)), values);
  EXPECT_EQ(parse_choice_values(""), std::vector<uint64_t>{});
  EXPECT_THROW(parse_choice_values("1..2"), std::invalid_argument);
  EXPECT_THROW(parse_choice_values("1*0"), std::invalid_argument);
  EXPECT_THROW(parse_choice_values("x"), std::invalid_argument);
  ChoicesStrategy lenient({5, 1});
  EXPECT_EQ(lenient.choose(ChoiceKind::schedule, 3), 2u);  // clamped to the last option
  EXPECT_EQ(lenient.choose(ChoiceKind::timer, 2), 1u);
  EXPECT_EQ(lenient.choose(ChoiceKind::data, 9), 0u);      // past the list: the first option
  EXPECT_EQ(lenient.clamped(), 1u);
}

}  // namespace
}  // namespace oversim::sim
