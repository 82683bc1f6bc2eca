// RedLock client stories against N independent masters. The network has a fixed 1ms one-way
// latency and Redis serves a command in 10us, so one SET costs the client 2.01ms and times are
// exact.
#include "models/redlock/redlock_client.h"
#include "models/redlock/redlock_deployment.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "models/redis/redis_client.h"
#include "sim/fault_plan.h"
#include "sim/network.h"
#include "sim/sync.h"

namespace oversim::redlock {
namespace {
using namespace sim::literals;

struct Masters {
  sim::World w;
  RedLockDeployment masters;
  sim::Node& app;
  int values = 0;
  explicit Masters(uint32_t n = 5) : w(sim::WorldConfig{.seed = 3}), masters(w, RedLockConfig{n, {}, {}}), app(w.add_node("app")) {
    w.network().config().latency = sim::LatencyModel{1_ms, 1_ms, sim::Ratio::never(), 1_ms, std::nullopt};
  }
  RedLockClient client(RedLockOptions o = {}) {
    return RedLockClient(app, masters.nodes(), o, [this] { return fmt::format("v{}", ++values); });
  }
  std::optional<std::string> stored(size_t master, const std::string& key) const {
    const auto& entries = masters.master(master).state().entries();
    auto it = entries.find(key);
    if (it == entries.end()) return std::nullopt;
    return it->second.value;
  }
  void run() { ASSERT_EQ(w.run().status, sim::RunStatus::completed); }
};

TEST(RedLock, NodeNamesSayWhatTheyAre) {
  EXPECT_EQ(RedLockDeployment::node_names(RedLockConfig{3, {}, {}}), (std::vector<std::string>{"redlock-1", "redlock-2", "redlock-3"}));
}

// Five masters, all up: the lock is taken on each in turn; validity = ttl - elapsed - drift with
// drift = 10s * 0.01 + 2ms = 102ms and elapsed 5 x 2.01ms = 10ms (whole ms, truncated).
TEST(RedLock, AQuorumWithTimeLeftIsALock) {
  Masters f;
  std::optional<RedLockHold> hold;
  f.w.spawn(&f.app, "client", [&] { hold = f.client().lock("lock:sku1", 10_s); });
  f.run();
  ASSERT_TRUE(hold.has_value());
  EXPECT_EQ(hold->locked, 5u);
  EXPECT_EQ(hold->validity_ms, 10'000 - 10 - 102);
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(f.stored(i, "lock:sku1"), hold->value);
}

// Two masters down: three OKs are still a quorum of five, and each dead master costs its 100ms
// per-node timeout, which the validity pays for.
TEST(RedLock, DeadMastersCostTheirTimeoutNotTheLock) {
  Masters f;
  sim::FaultPlan::parse("at 0 crash redlock-2; at 0 crash redlock-4").apply(f.w);
  std::optional<RedLockHold> hold;
  f.w.spawn(&f.app, "client", [&] {
    sim::sleep_for(1_ms);
    hold = f.client().lock("lock:sku1", 10_s);
  });
  f.run();
  ASSERT_TRUE(hold.has_value());
  EXPECT_EQ(hold->locked, 3u);
  EXPECT_EQ(hold->validity_ms, 10'000 - (3 * 2 + 200) - 102);
}

// Another client holds three of five masters: no quorum; the loser's unlock (token compare)
// removes only its own two keys, and after 1 + 3 tries it gives up.
TEST(RedLock, WithoutAQuorumTheClientUnlocksOnlyItsOwnKeys) {
  Masters f;
  std::optional<RedLockHold> hold;
  RedLockClient loser = f.client();
  f.w.spawn(&f.app, "client", [&] {
    for (size_t i : {size_t{0}, size_t{2}, size_t{4}}) {
      redis::RedisClient::fixed(f.app, f.masters.master(i).node()).call(redis::Command::set_px("lock:sku1", "other", 60'000));
    }
    hold = loser.lock("lock:sku1", 10_s);
  });
  f.run();
  EXPECT_FALSE(hold.has_value());
  ASSERT_EQ(loser.tries().size(), 4u);
  for (const RedLockTry& t : loser.tries()) EXPECT_EQ(t.locked, 2u);
  for (size_t i : {size_t{0}, size_t{2}, size_t{4}}) EXPECT_EQ(f.stored(i, "lock:sku1"), "other");
  for (size_t i : {size_t{1}, size_t{3}}) EXPECT_EQ(f.stored(i, "lock:sku1"), std::nullopt);
}

// A 12s pause after the second master answered, with a 10s TTL: every master says OK (the first
// two keys expired during the pause, the rest are fresh), but the clock says the try took 12s.
// The validity test refuses the lock and unlocks; a client without it believes it holds a lock
// whose first two keys are gone.
TEST(RedLock, TheValidityTestTurnsAPauseDuringAcquireIntoARefusal) {
  for (const bool check : {true, false}) {
    SCOPED_TRACE(check ? "validity checked" : "validity ignored");
    Masters f;
    sim::FaultPlan::parse("on 2nd during_acquire pause here for 12s").apply(f.w);
    std::optional<RedLockHold> hold;
    RedLockClient client = f.client(RedLockOptions{.retry_count = 0, .check_validity = check});
    f.w.spawn(&f.app, "client", [&] { hold = client.lock("lock:sku1", 10_s); });
    f.run();
    ASSERT_EQ(client.tries().size(), 1u);
    EXPECT_EQ(client.tries()[0].locked, 5u);
    EXPECT_LT(client.tries()[0].validity_ms, 0);
    EXPECT_EQ(hold.has_value(), !check);
    EXPECT_EQ(f.stored(0, "lock:sku1"), std::nullopt);  // expired during the pause either way
    EXPECT_EQ(f.stored(4, "lock:sku1").has_value(), !check);
  }
}

// A master whose clock runs 2% fast expires a 10s key after 10s / 1.02 = 9.804s of true time,
// earlier than the 102ms the drift term covers: the key is gone before the client's validity
// (10s - 2ms - 102ms from the end of its round, at 2ms) runs out.
TEST(RedLock, AMasterRunningTwoPercentFastExpiresTheKeyBeforeTheValidityEnds) {
  Masters f(1);
  sim::FaultPlan::parse("at 0 clock-drift redlock-1 +20000ppm").apply(f.w);
  std::optional<RedLockHold> hold;
  std::optional<std::string> at_9790ms, at_9820ms;
  f.w.spawn(&f.app, "client", [&] {
    hold = f.client().lock("lock:sku1", 10_s);
    sim::sleep_until(sim::Instant::zero() + 9790_ms);
    at_9790ms = f.stored(0, "lock:sku1");
    sim::sleep_until(sim::Instant::zero() + 9820_ms);
    redis::RedisClient::fixed(f.app, f.masters.master(0).node()).call(redis::Command::get("lock:sku1"));  // lazy expiry
    at_9820ms = f.stored(0, "lock:sku1");
  });
  f.run();
  ASSERT_TRUE(hold.has_value());
  EXPECT_EQ(hold->validity_ms, 10'000 - 2 - 102);
  EXPECT_TRUE(at_9790ms.has_value());
  EXPECT_FALSE(at_9820ms.has_value());
}

}  // namespace
}  // namespace oversim::redlock
