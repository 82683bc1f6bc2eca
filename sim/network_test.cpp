// Network stories: RPCs and their ambiguous timeouts, partitions that drop, holds that delay,
// a delayed message, loss, duplication, and messages queueing at a paused node.
#include "sim/network.h"

#include <gtest/gtest.h>

#include "sim/detached.h"
#include "sim/fault_plan.h"
#include "sim/world.h"

namespace oversim::sim {
namespace {
using namespace literals;

// An echo server that counts what it handled: the ground truth for "did the request apply?".
struct Echo {
  int handled = 0;
  void boot(World& w, Node& n) {
    w.spawn(&n, "echo", [this, &w, &n] {
      for (;;) {
        std::optional<Message> m = n.mailbox("echo").receive();
        ++handled;
        w.network().reply(n, *m, std::any_cast<int>(m->body) + 1, "pong");
      }
    }, true);
  }
};

struct Fixture {
  World w{WorldConfig{.seed = 11}};
  Node& client = w.add_node("client");
  Node& server = w.add_node("server");
  Echo echo;
  Fixture() {
    w.network().config().latency = LatencyModel{1_ms, 1_ms, Ratio::never(), 1_ms, std::nullopt};
    server.set_boot([this](Node& n) { echo.boot(w, n); });
  }
  RpcResult<int> call(int v, Duration timeout = 10_ms) { return w.network().call_as<int>(client, server, "echo", v, "ping", timeout); }
};

TEST(Network, AnRpcTakesTheRoundTripLatency) {
  Fixture f;
  RpcResult<int> r;
  Instant done;
  f.w.spawn(&f.client, "caller", [&] { r = f.call(41); done = now(); });
  ASSERT_EQ(f.w.run().status, RunStatus::completed);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r.value, 42);
  EXPECT_EQ(done, Instant::zero() + 2_ms);
}

TEST(Network, ATimeoutIsAmbiguousTheRequestMayHaveApplied) {
  Fixture f;
  RpcResult<int> r;
  f.w.spawn(&f.client, "caller", [&] {
    f.w.network().cut(f.server.id(), f.client.id());  // replies are lost, requests arrive
    r = f.call(1, 5_ms);
  });
  ASSERT_EQ(f.w.run().status, RunStatus::completed);
  EXPECT_TRUE(r.ambiguous());
  EXPECT_EQ(f.echo.handled, 1);  // it did apply
}

TEST(Network, AFullPartitionDropsBothWaysAndHealRestoresIt) {
  Fixture f;
  std::vector<bool> ok;
  f.w.spawn(&f.client, "caller", [&] {
    f.w.network().partition({f.client.id()}, {f.server.id()});
    ok.push_back(f.call(1, 5_ms).ok());
    f.w.network().heal();
    ok.push_back(f.call(1, 5_ms).ok());
  });
  ASSERT_EQ(f.w.run().status, RunStatus::completed);
  EXPECT_EQ(ok, (std::vector<bool>{false, true}));
  EXPECT_EQ(f.echo.handled, 1);
  EXPECT_EQ(f.w.network().dropped(), 1u);
}

TEST(Network, APartitionStartingWhileAMessageIsInFlightDropsIt) {
  Fixture f;
  RpcResult<int> r;
  f.w.spawn(&f.client, "caller", [&] { r = f.call(1, 5_ms); });
  f.w.at(Instant::zero() + Duration::us(500), [&] { f.w.network().isolate(f.server.id()); });
  ASSERT_EQ(f.w.run().status, RunStatus::completed);
  EXPECT_TRUE(r.ambiguous());
  EXPECT_EQ(f.echo.handled, 0);
}

TEST(Network, HoldQueuesALinkAndReleaseDeliversInOrder) {
  Fixture f;
  std::vector<std::pair<int, int64_t>> got;
  f.w.spawn(&f.server, "sink", [&] {
    for (;;) {
      std::optional<Message> m = f.server.mailbox("sink").receive();
      got.emplace_back(std::any_cast<int>(m->body), now().ns());
    }
  }, true);
  f.w.spawn(&f.client, "sender", [&] {
    f.w.network().hold(f.client.id(), f.server.id());
    for (int i = 0; i < 3; ++i) f.w.network().send(f.client, f.server, "sink", i, "n");
    sleep_for(10_ms);
    f.w.network().release(f.client.id(), f.server.id());
    sleep_for(10_ms);
  });
  ASSERT_EQ(f.w.run().status, RunStatus::completed);
  ASSERT_EQ(got.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(got[static_cast<size_t>(i)].first, i);
    EXPECT_EQ(got[static_cast<size_t>(i)].second, (11_ms).count_ns() + i);  // FIFO: 1ns apart
  }
}

TEST(Network, DelayNextDelaysExactlyOneMessage) {
  Fixture f;
  std::vector<int64_t> arrivals;
  f.w.spawn(&f.server, "sink", [&] {
    for (;;) {
      f.server.mailbox("sink").receive();
      arrivals.push_back(now().ns());
    }
  }, true);
  f.w.spawn(&f.client, "sender", [&] {
    f.w.network().delay_next(f.client.id(), f.server.id(), 5_s);
    f.w.network().send(f.client, f.server, "sink", 0, "late");
    f.w.network().send(f.client, f.server, "sink", 1, "on time");
    sleep_for(6_s);
  });
  ASSERT_EQ(f.w.run().status, RunStatus::completed);
  EXPECT_EQ(arrivals, (std::vector<int64_t>{(1_ms).count_ns(), (5_s + 1_ms).count_ns()}));
}

TEST(Network, LossAndDuplicationFollowTheirRatios) {
  World w(WorldConfig{.seed = 5});
  Node& a = w.add_node("a");
  Node& b = w.add_node("b");
  w.network().config().loss = Ratio{1, 4};
  w.network().config().duplicate = Ratio{1, 10};
  int received = 0;
  w.spawn(&b, "sink", [&] {
    for (;;) {
      b.mailbox("sink").receive();
      ++received;
    }
  }, true);
  w.spawn(&a, "sender", [&] {
    for (int i = 0; i < 4000; ++i) w.network().send(a, b, "sink", i, "m");
    sleep_for(1_s);
  });
  ASSERT_EQ(w.run().status, RunStatus::completed);
  // ~3000 survive loss, ~10% of those are doubled: ~3300
  EXPECT_GT(received, 3150);
  EXPECT_LT(received, 3450);
  EXPECT_GT(w.network().dropped(), 900u);
  EXPECT_LT(w.network().dropped(), 1100u);
}

TEST(Network, MessagesToAPausedNodeQueueAndAreHandledAtResume) {
  Fixture f;
  RpcResult<int> r;
  Instant done;
  f.w.at(Instant::zero(), [&] { f.w.pause(f.server); });
  f.w.at(Instant::zero() + 50_ms, [&] { f.w.resume(f.server); });
  f.w.spawn(&f.client, "caller", [&] { r = f.call(1, 100_ms); done = now(); });
  ASSERT_EQ(f.w.run().status, RunStatus::completed);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(done, Instant::zero() + 51_ms);
}

TEST(Network, AMessageSentBeforeACrashIsNotDeliveredToTheRestartedProcess) {
  Fixture f;
  std::vector<bool> ok;
  f.w.spawn(&f.client, "caller", [&] { ok.push_back(f.call(1, 5_ms).ok()); });
  // The request is in flight (1ms latency) when the server crashes and comes back.
  f.w.at(Instant::zero() + Duration::us(300), [&] { f.w.crash(f.server); });
  f.w.at(Instant::zero() + Duration::us(600), [&] { f.w.restart(f.server); });
  ASSERT_EQ(f.w.run().status, RunStatus::completed);
  EXPECT_EQ(ok, (std::vector<bool>{false}));
  EXPECT_EQ(f.echo.handled, 0);
}

TEST(Network, ACrashedServerNeverAnswersAndARestartedOneDoes) {
  Fixture f;
  std::vector<bool> ok;
  f.w.spawn(&f.client, "caller", [&] {
    f.w.crash(f.server);
    ok.push_back(f.call(1, 5_ms).ok());
    f.w.restart(f.server);
    ok.push_back(f.call(1, 5_ms).ok());
  });
  ASSERT_EQ(f.w.run().status, RunStatus::completed);
  EXPECT_EQ(ok, (std::vector<bool>{false, true}));
}

// ---- Defects found in review, each pinned by the story that showed it.

// A sink on the server recording (value, arrival ns) for every message on port "sink".
struct Sink {
  std::vector<std::pair<int, int64_t>> got;
  void start(Fixture& f) {
    f.w.spawn(&f.server, "sink", [this, &f] {
      for (;;) {
        std::optional<Message> m = f.server.mailbox("sink").receive();
        got.emplace_back(std::any_cast<int>(m->body), now().ns());
      }
    }, true);
  }
};

// Two overlapping holds on one link: the link stays held until the later one ends. (The first
// hold's release used to release the second hold's messages early.)
TEST(Network, ASecondHoldKeepsTheLinkHeldPastTheFirstRelease) {
  Fixture f;
  Sink sink;
  sink.start(f);
  FaultPlan::parse("at 0 hold client -> server for 10ms; at 5ms hold client -> server for 20ms").apply(f.w);
  f.w.spawn(&f.client, "sender", [&] {
    sleep_for(7_ms);
    f.w.network().send(f.client, f.server, "sink", 1, "n");
    sleep_for(30_ms);
  });
  ASSERT_EQ(f.w.run().status, RunStatus::completed);
  // Released when the second hold ends at 25ms, plus the 1ms latency.
  EXPECT_EQ(sink.got, (std::vector<std::pair<int, int64_t>>{{1, (26_ms).count_ns()}}));
}

// A held message is one message: sent() counts it once, not again at release.
TEST(Network, AHeldMessageIsCountedAsSentOnce) {
  Fixture f;
  Sink sink;
  sink.start(f);
  f.w.spawn(&f.client, "sender", [&] {
    f.w.network().hold(f.client.id(), f.server.id());
    f.w.network().send(f.client, f.server, "sink", 1, "n");
    f.w.network().send(f.client, f.server, "sink", 2, "n");
    sleep_for(5_ms);
    f.w.network().release(f.client.id(), f.server.id());
    sleep_for(5_ms);
  });
  ASSERT_EQ(f.w.run().status, RunStatus::completed);
  EXPECT_EQ(sink.got.size(), 2u);
  EXPECT_EQ(f.w.network().sent(), 2u);
}

// A message held while its receiver restarts travelled on the old process's connection: it is
// dropped at release like any message sent before a restart.
TEST(Network, AHeldMessageIsNotDeliveredToARestartedReceiver) {
  Fixture f;
  Sink sink;
  f.server.set_boot([&](Node&) { sink.start(f); });
  f.w.spawn(&f.client, "sender", [&] {
    f.w.network().hold(f.client.id(), f.server.id());
    f.w.network().send(f.client, f.server, "sink", 1, "n");
    f.w.crash(f.server);
    f.w.restart(f.server);
    f.w.network().release(f.client.id(), f.server.id());
    sleep_for(5_ms);
  });
  ASSERT_EQ(f.w.run().status, RunStatus::completed);
  EXPECT_TRUE(sink.got.empty());
  EXPECT_EQ(f.w.network().dropped(), 1u);
}

// A duplicated message keeps its link's order: on a FIFO link neither copy overtakes a message
// sent earlier, and the copy of a delayed message is delayed too. (The copy used to take an
// independent latency and ignore both.)
TEST(Network, ADuplicateKeepsFifoOrderAndTheDelayOfItsOriginal) {
  Fixture f;
  f.w.network().config().duplicate = Ratio::always();
  f.w.network().config().latency = LatencyModel{1_ms, 3_ms, Ratio::never(), 3_ms, std::nullopt};
  Sink sink;
  sink.start(f);
  f.w.spawn(&f.client, "sender", [&] {
    for (int i = 0; i < 20; ++i) f.w.network().send(f.client, f.server, "sink", i, "n");
    f.w.network().delay_next(f.client.id(), f.server.id(), 1_s);
    f.w.network().send(f.client, f.server, "sink", 99, "late");
    sleep_for(2_s);
  });
  ASSERT_EQ(f.w.run().status, RunStatus::completed);
  ASSERT_EQ(sink.got.size(), 42u);
  for (size_t i = 0; i < 40; ++i) {
    EXPECT_EQ(sink.got[i].first, static_cast<int>(i / 2)) << "message " << i;
    if (i > 0) {
      EXPECT_GT(sink.got[i].second, sink.got[i - 1].second);
    }
  }
  EXPECT_EQ(sink.got[40].first, 99);
  EXPECT_EQ(sink.got[41].first, 99);
  EXPECT_GE(sink.got[40].second, (1_s).count_ns());
  EXPECT_GE(sink.got[41].second, (1_s).count_ns());
}

// The copy of a delayed message arrives after the original, never at the same instant or
// before it: the delay takes the message off the link's FIFO order, not its copy's order.
TEST(Network, TheCopyOfADelayedMessageArrivesAfterIt) {
  Fixture f;  // constant 1ms latency: without the rule both copies would tie at 1s + 1ms
  f.w.network().config().duplicate = Ratio::always();
  Sink sink;
  sink.start(f);
  f.w.spawn(&f.client, "sender", [&] {
    f.w.network().delay_next(f.client.id(), f.server.id(), 1_s);
    f.w.network().send(f.client, f.server, "sink", 7, "late");
    sleep_for(2_s);
  });
  ASSERT_EQ(f.w.run().status, RunStatus::completed);
  EXPECT_EQ(sink.got, (std::vector<std::pair<int, int64_t>>{{7, (1_s + 1_ms).count_ns()}, {7, (1_s + 1_ms).count_ns() + 1}}));
}

// delay-next is spent on the next message even when that message is dropped; it does not stay
// armed for a later one. (A dropped message used to leave it armed.)
TEST(Network, DelayNextIsSpentOnADroppedMessage) {
  Fixture f;
  Sink sink;
  sink.start(f);
  f.w.spawn(&f.client, "sender", [&] {
    f.w.network().cut(f.client.id(), f.server.id());
    f.w.network().delay_next(f.client.id(), f.server.id(), 5_s);
    f.w.network().send(f.client, f.server, "sink", 1, "dropped");
    f.w.network().heal();
    f.w.network().send(f.client, f.server, "sink", 2, "on time");
    sleep_for(6_s);
  });
  ASSERT_EQ(f.w.run().status, RunStatus::completed);
  EXPECT_EQ(sink.got, (std::vector<std::pair<int, int64_t>>{{2, (1_ms).count_ns()}}));
}

}  // namespace
}  // namespace oversim::sim

// ---- sim::Detached: a parked fiber's RPCs and timers as continuations

namespace oversim::sim {
namespace {

// Three polls 5 ms apart, as continuations; returns when each reply came.
struct DetachedPoller {
  Fixture& f;
  std::vector<Instant> replies;
  std::vector<int> values;
  void poll(Detached& d, int v) {
    d.call(f.server, "echo", v, "ping", 10_ms, [this, &d, v](RpcResult<std::any> r) {
      replies.push_back(now());
      values.push_back(r.ok() ? std::any_cast<int>(*r.value) : -1);
      if (replies.size() == 3) return d.finish();
      d.after(5_ms, [this, &d, v] { poll(d, v + 1); });
    });
  }
  void run() {
    Detached d(f.w);
    poll(d, 1);
    d.wait("poll");
  }
};

TEST(Detached, ContinuationsRunAtTheInstantsTheBlockingLoopWould) {
  // The blocking loop: call, sleep 5 ms, call... Each round trip is 2 ms.
  std::vector<Instant> expected;
  {
    Fixture blocking;
    blocking.w.spawn(&blocking.client, "loop", [&] {
      for (int i = 0; i < 3; ++i) {
        if (i > 0) sleep_for(5_ms);
        blocking.call(i + 1);
        expected.push_back(now());
      }
    });
    ASSERT_EQ(blocking.w.run().status, RunStatus::completed);
  }
  ASSERT_EQ(expected.size(), 3u);
  Fixture f;
  DetachedPoller p{f, {}, {}};
  f.w.spawn(&f.client, "poller", [&] { p.run(); });
  ASSERT_EQ(f.w.run().status, RunStatus::completed);
  EXPECT_EQ(p.replies, expected);
  EXPECT_EQ(p.values, (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(f.echo.handled, 3);
}

TEST(Detached, AReplyToAPausedNodeWaitsForTheResumeAsTheFiberWould) {
  Fixture f;
  DetachedPoller p{f, {}, {}};
  f.w.spawn(&f.client, "poller", [&] { p.run(); });
  // The first reply arrives at 2 ms, inside a pause from 1 ms to 30 ms: it is handled at the
  // resume, and the next poll leaves 5 ms after that.
  f.w.at(Instant::zero() + 1_ms, [&] { f.w.pause(f.client); });
  f.w.at(Instant::zero() + 30_ms, [&] { f.w.resume(f.client); });
  ASSERT_EQ(f.w.run().status, RunStatus::completed);
  ASSERT_EQ(p.replies.size(), 3u);
  EXPECT_EQ(p.replies[0], Instant::zero() + 30_ms);
  EXPECT_EQ(p.replies[1], Instant::zero() + 37_ms);
}

TEST(Detached, ACrashLeavesNoContinuationBehind) {
  Fixture f;
  DetachedPoller p{f, {}, {}};
  bool unwound = false;
  f.w.spawn(&f.client, "poller", [&] {
    struct Mark {
      bool& flag;
      ~Mark() { flag = true; }
    } mark{unwound};
    p.run();
  });
  f.w.at(Instant::zero() + 4_ms, [&] { f.w.crash(f.client); });  // between the first two polls
  ASSERT_EQ(f.w.run().status, RunStatus::completed);
  EXPECT_TRUE(unwound);
  EXPECT_EQ(p.replies.size(), 1u);
  EXPECT_EQ(f.echo.handled, 1);
}

}  // namespace
}  // namespace oversim::sim
