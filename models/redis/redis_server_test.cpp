// Redis deployment stories: asynchronous replication losing a lock at failover, WAIT and
// min-replicas-to-write as the documented mitigations, a clock jump expiring a key early, split
// brain, persistence across a restart, and a client following Sentinel to the new primary.
// The network has a fixed 1ms one-way latency unless a test says otherwise, so times are exact:
// a client's first call spends 2ms asking the sentinel, then 1ms + 10us service + 1ms.
#include "models/redis/redis_deployment.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/fault_plan.h"
#include "sim/network.h"
#include "sim/sync.h"

namespace oversim::redis {

void PrintTo(const Reply& reply, std::ostream* os) { *os << to_string(reply); }

namespace {
using namespace sim::literals;

struct Cluster {
  sim::World w;
  RedisDeployment redis;
  sim::Node& app;
  explicit Cluster(RedisConfig config, uint64_t seed = 7, bool exact_latency = true)
      : w(sim::WorldConfig{.seed = seed}), redis(w, config), app(w.add_node("app")) {
    if (exact_latency) w.network().config().latency = sim::LatencyModel{1_ms, 1_ms, sim::Ratio::never(), 1_ms, std::nullopt};
  }
  void run() { ASSERT_EQ(w.run().status, sim::RunStatus::completed); }
  sim::Instant at(Duration d) const { return sim::Instant::zero() + d; }
  std::vector<sim::NodeId> ids(const std::vector<std::string>& names) {
    std::vector<sim::NodeId> out;
    for (const auto& n : names) out.push_back(w.node(n).id());
    return out;
  }
  std::vector<std::string> failovers() const {
    std::vector<std::string> out;
    for (const auto& e : w.trace_log().events()) {
      if (e.kind != "failover") continue;
      std::string line;
      for (const auto& f : e.fields) line += f.key + "=" + f.value + " ";
      out.push_back(line);
    }
    return out;
  }
  std::optional<std::string> stored(const std::string& server, const std::string& key) {
    const auto& entries = redis.state(server).entries();
    auto it = entries.find(key);
    if (it == entries.end()) return std::nullopt;
    return it->second.value;
  }
};

RedisConfig replicated(uint32_t servers = 3) {
  RedisConfig c;
  c.servers = servers;
  return c;
}

// The value of a successful call; fails the test on a timeout.
Reply value(const sim::RpcResult<Reply>& r) {
  EXPECT_TRUE(r.ok()) << "the call timed out";
  return r.ok() ? *r.value : Reply::error("TIMEOUT");
}

// What a result variable holds until its call ran: never equal to a real reply.
const Reply kUnset = Reply::error("UNSET the call never ran");
const Command kLock = Command::set_nx_px("lock:stock:sku1", "tok-1", 3000);

TEST(RedisFailover, ALockAcknowledgedByThePrimaryVanishesWhenItCrashesBeforeReplicating) {
  RedisConfig c = replicated();
  c.replication_lag = sim::Distribution::constant(100_ms);  // longer than the time to the crash
  Cluster f(c);
  Reply set = kUnset, get_after = kUnset;
  f.w.spawn(&f.app, "buyer", [&] {
    RedisClient client = f.redis.client(f.app);
    set = value(client.call(kLock));
    f.w.crash(f.w.node("redis-1"));  // 4.01ms: the entry would ship at 103.01ms
    sim::sleep_until(f.at(2_s));
    RedisClient fresh = f.redis.client(f.app);
    get_after = value(fresh.call(Command::get("lock:stock:sku1")));
  });
  f.run();
  EXPECT_EQ(set, Reply::ok());
  EXPECT_EQ(f.redis.primary_name(), "redis-2");  // equal offsets (0): the lower name wins
  EXPECT_EQ(f.failovers(), std::vector<std::string>{"old=redis-1 new=redis-2 offset=0 epoch=1 "});
  EXPECT_EQ(get_after, Reply::nil());
  EXPECT_EQ(f.stored("redis-2", "lock:stock:sku1"), std::nullopt);
  EXPECT_EQ(f.stored("redis-3", "lock:stock:sku1"), std::nullopt);
}

TEST(RedisFailover, TheSameLockSurvivesWhenTheCrashComesAfterTheReplicationLag) {
  RedisConfig c = replicated();
  c.replication_lag = sim::Distribution::constant(100_ms);
  Cluster f(c);
  Reply set = kUnset, get_after = kUnset;
  f.w.spawn(&f.app, "buyer", [&] {
    RedisClient client = f.redis.client(f.app);
    set = value(client.call(kLock));
    sim::sleep_until(f.at(300_ms));  // shipped at 103.01ms, applied by both replicas at 104.01ms
    f.w.crash(f.w.node("redis-1"));
    sim::sleep_until(f.at(2_s));
    RedisClient fresh = f.redis.client(f.app);
    get_after = value(fresh.call(Command::get("lock:stock:sku1")));
  });
  f.run();
  EXPECT_EQ(set, Reply::ok());
  EXPECT_EQ(f.redis.primary_name(), "redis-2");
  EXPECT_EQ(f.failovers(), std::vector<std::string>{"old=redis-1 new=redis-2 offset=1 epoch=1 "});
  EXPECT_EQ(get_after, Reply::bulk("tok-1"));
  // PX 3000 became PXAT on the primary's clock: applied at 3.01ms, so 3003ms.
  EXPECT_EQ(f.redis.state("redis-2").entries().at("lock:stock:sku1").expires_at, f.at(3003_ms));
}

TEST(RedisFailover, AcksRequiredOneMakesTheAcknowledgedLockSurviveTheFailover) {
  RedisConfig c = replicated();
  c.replication_lag = sim::Distribution::constant(20_ms);
  c.acks_required = 1;
  c.acks_timeout = 50_ms;
  c.client_timeout = 100_ms;
  Cluster f(c);
  Reply set = kUnset, get_after = kUnset;
  sim::Instant acknowledged_at;
  f.w.spawn(&f.app, "buyer", [&] {
    RedisClient client = f.redis.client(f.app);
    set = value(client.call(kLock));
    acknowledged_at = sim::now();
    f.w.crash(f.w.node("redis-1"));  // at once: the only copies are on the replicas
    sim::sleep_until(f.at(2_s));
    RedisClient fresh = f.redis.client(f.app);
    get_after = value(fresh.call(Command::get("lock:stock:sku1")));
  });
  f.run();
  EXPECT_EQ(set, Reply::ok());
  // applied 3.01ms, shipped 23.01ms, replica ACK back at 25.01ms, reply at the app 26.01ms
  EXPECT_EQ(acknowledged_at, f.at(26'010_us));
  EXPECT_EQ(f.redis.primary_name(), "redis-2");
  EXPECT_EQ(get_after, Reply::bulk("tok-1"));
}

TEST(RedisFailover, WaitTimingOutAnswersNoAckButTheWriteStaysOnThePrimary) {
  RedisConfig c = replicated();
  c.replication_lag = sim::Distribution::constant(100_ms);  // longer than WAIT's 20ms
  c.acks_required = 1;
  Cluster f(c);
  Reply set = kUnset;
  f.w.spawn(&f.app, "buyer", [&] { set = value(f.redis.client(f.app).call(kLock)); });
  f.run();
  ASSERT_TRUE(set.is_error());
  EXPECT_EQ(set.error_message(),
            "NOACK WAIT 1 20ms: 0 replicas acknowledged offset 1 (the write stays applied on redis-1)");
  EXPECT_EQ(f.stored("redis-1", "lock:stock:sku1"), "tok-1");
}

TEST(RedisReplication, MinReplicasToWriteRejectsWritesWhileReplicasArePartitionedAway) {
  RedisConfig c = replicated();
  c.min_replicas_to_write = 1;
  c.min_replicas_max_lag = 1_s;
  Cluster f(c);
  Reply before = kUnset, during = kUnset, read_during = kUnset, after = kUnset;
  f.w.spawn(&f.app, "buyer", [&] {
    RedisClient client = f.redis.client(f.app);
    before = value(client.call(Command::set("stock:sku1", "10")));
    f.w.network().partition(f.ids({"redis-1", "app", "sentinel"}), f.ids({"redis-2", "redis-3"}));
    sim::sleep_until(f.at(3_s));  // the last ACK arrived at 5.01ms: over a second ago
    during = value(client.call(Command::decrby("stock:sku1", 1)));
    read_during = value(client.call(Command::get("stock:sku1")));
    f.w.network().heal();
    sim::sleep_until(f.at(5_s));  // the replicas' once-a-second ACK resumed at 4s
    after = value(client.call(Command::decrby("stock:sku1", 1)));
  });
  f.run();
  EXPECT_EQ(before, Reply::ok());
  EXPECT_EQ(during, Reply::error("NOREPLICAS Not enough good replicas to write."));
  EXPECT_EQ(read_during, Reply::bulk("10"));  // reads still work, and nothing was written
  EXPECT_EQ(after, Reply::integer(9));
  EXPECT_EQ(f.redis.primary_name(), "redis-1");
  EXPECT_TRUE(f.failovers().empty());
}

TEST(RedisSplitBrain, AnOldPrimaryCutOffWithItsClientAcceptsAWriteThatIsDiscardedWhenItRejoins) {
  Cluster f(replicated());
  Reply stock = kUnset, order = kUnset, readonly = kUnset, retried = kUnset;
  std::vector<std::string> primaries_during;
  std::string server_after_readonly;
  f.w.spawn(&f.app, "buyer", [&] {
    RedisClient client = f.redis.client(f.app);
    stock = value(client.call(Command::set("stock:sku1", "10")));
    sim::sleep_until(f.at(100_ms));
    f.w.network().partition(f.ids({"redis-1", "app"}), f.ids({"redis-2", "redis-3", "sentinel"}));
    sim::sleep_until(f.at(1500_ms));  // the sentinel promoted redis-2 at ~1.1s
    primaries_during = f.redis.acting_primaries();
    order = value(client.call(Command::set_nx("order:1", "alice")));  // still redis-1
    f.w.network().heal();
    sim::sleep_until(f.at(3_s));
    readonly = value(client.call(Command::set_nx("order:2", "bob")));
    server_after_readonly = client.server();
    retried = value(client.call(Command::set_nx("order:2", "bob")));
    sim::sleep_for(10_ms);  // let it replicate
  });
  f.run();
  EXPECT_EQ(stock, Reply::ok());
  EXPECT_EQ(primaries_during, (std::vector<std::string>{"redis-1", "redis-2"}));
  EXPECT_EQ(order, Reply::ok());  // acknowledged by a primary that had already been replaced
  EXPECT_EQ(readonly, Reply::error(kReadonlyError));
  EXPECT_EQ(server_after_readonly, "");
  EXPECT_EQ(retried, Reply::ok());
  // redis-1 rejoined as a replica of redis-2 and its full resync discarded order:1.
  EXPECT_EQ(f.redis.server("redis-1").role(), Role::replica);
  EXPECT_EQ(f.redis.server("redis-1").replica_of(), "redis-2");
  EXPECT_EQ(f.redis.acting_primaries(), std::vector<std::string>{"redis-2"});
  for (const char* server : {"redis-1", "redis-2", "redis-3"}) {
    EXPECT_EQ(f.stored(server, "order:1"), std::nullopt) << server;
    EXPECT_EQ(f.stored(server, "order:2"), "bob") << server;
    EXPECT_EQ(f.stored(server, "stock:sku1"), "10") << server;
  }
}

TEST(RedisReplication, AReplicaCutOffDuringWritesCatchesUpByAFullResyncAfterTheHeal) {
  Cluster f(replicated());
  f.w.spawn(&f.app, "buyer", [&] {
    RedisClient client = f.redis.client(f.app);
    value(client.call(Command::set("stock:sku1", "10")));
    sim::sleep_until(f.at(100_ms));
    f.w.network().partition(f.ids({"redis-3"}), f.ids({"redis-1"}));
    value(client.call(Command::decrby("stock:sku1", 1)));  // shipped to redis-3 and dropped
    value(client.call(Command::decrby("stock:sku1", 1)));
    f.w.network().heal();
    value(client.call(Command::decrby("stock:sku1", 1)));  // arrives after a gap
    sim::sleep_for(10_ms);
  });
  f.run();
  for (const char* server : {"redis-1", "redis-2", "redis-3"}) {
    EXPECT_EQ(f.stored(server, "stock:sku1"), "7") << server;
    EXPECT_EQ(f.redis.state(server).replication_offset(), 4u) << server;
  }
  int resyncs_of_redis_3 = 0;
  for (const auto& e : f.w.trace_log().events()) {
    if (e.kind == "redis-full-resync" && e.node == "redis-3") ++resyncs_of_redis_3;
  }
  EXPECT_EQ(resyncs_of_redis_3, 2);  // the initial one, and the one after the gap
}

// Sentinel promotes the replica with the most of the primary's stream (the highest replication
// offset), not the one with the lowest name: redis-2 is cut off from the stream, so redis-3 wins.
TEST(RedisSentinel, PromotesTheReplicaWithTheHighestReplicationOffset) {
  Cluster f(replicated());
  f.w.spawn(&f.app, "buyer", [&] {
    RedisClient client = f.redis.client(f.app);
    value(client.call(Command::set("stock:sku1", "10")));
    sim::sleep_until(f.at(100_ms));
    f.w.network().partition(f.ids({"redis-2"}), f.ids({"redis-1"}));
    value(client.call(Command::decrby("stock:sku1", 1)));  // reaches redis-3 only
    value(client.call(Command::decrby("stock:sku1", 1)));
    sim::sleep_for(10_ms);
    f.w.crash(f.w.node("redis-1"));
    f.w.network().heal();
    sim::sleep_until(f.at(3_s));
  });
  f.run();
  ASSERT_EQ(f.failovers().size(), 1u);
  EXPECT_EQ(f.failovers().front(), "old=redis-1 new=redis-3 offset=3 epoch=1 ");
  EXPECT_EQ(f.redis.primary_name(), "redis-3");
  EXPECT_EQ(f.stored("redis-3", "stock:sku1"), "8");
}

TEST(RedisPersistence, APrimaryRestartingEmptyBeforeAFailoverEmptiesItsReplicas) {
  Cluster f(replicated());
  sim::FaultPlan::parse("at 100ms crash redis-1; at 300ms restart redis-1").apply(f.w);
  std::optional<std::string> replica_before;
  f.w.spawn(&f.app, "buyer", [&] {
    value(f.redis.client(f.app).call(Command::set("stock:sku1", "10")));
    sim::sleep_until(f.at(500_ms));
    replica_before = f.stored("redis-2", "stock:sku1");
    sim::sleep_until(f.at(1500_ms));  // redis-2's once-a-second ACK reached the new process
  });
  f.run();
  EXPECT_EQ(replica_before, "10");
  EXPECT_TRUE(f.failovers().empty());  // back within down_after: the sentinel never noticed
  EXPECT_EQ(f.stored("redis-2", "stock:sku1"), std::nullopt);
  EXPECT_EQ(f.stored("redis-3", "stock:sku1"), std::nullopt);
}

TEST(RedisSentinel, AClientFollowsTheNewPrimaryAfterATimeoutAndRediscovery) {
  Cluster f(replicated());
  sim::FaultPlan::parse("at 100ms crash redis-1").apply(f.w);
  Reply first = kUnset, after = kUnset;
  sim::RpcResult<Reply> lost;
  std::vector<std::string> servers;
  f.w.spawn(&f.app, "buyer", [&] {
    RedisClient client = f.redis.client(f.app);
    first = value(client.call(Command::set("stock:sku1", "10")));
    servers.push_back(client.server());
    sim::sleep_until(f.at(1500_ms));
    lost = client.call(Command::decrby("stock:sku1", 1));  // to the crashed redis-1
    servers.push_back(client.server());
    after = value(client.call(Command::decrby("stock:sku1", 1)));
    servers.push_back(client.server());
  });
  f.run();
  EXPECT_EQ(first, Reply::ok());
  EXPECT_TRUE(lost.ambiguous());
  EXPECT_EQ(after, Reply::integer(9));  // the SET had replicated before the crash
  EXPECT_EQ(servers, (std::vector<std::string>{"redis-1", "", "redis-2"}));
}

TEST(RedisExpiry, AForwardClockJumpOnTheServerExpiresAKeyEarly) {
  Cluster f(RedisConfig{});
  Reply ttl_before = kUnset, get_after = kUnset, ttl_after = kUnset;
  f.w.spawn(&f.app, "buyer", [&] {
    RedisClient client = f.redis.client(f.app);
    value(client.call(Command::set_px("lock:stock:sku1", "tok-1", 3000)));  // applied at 1.01ms
    sim::sleep_until(f.at(100_ms));
    ttl_before = value(client.call(Command::pttl("lock:stock:sku1")));  // applied at 101.01ms
    f.w.node("redis-1").clock().jump(f.w.now(), 5_s);
    get_after = value(client.call(Command::get("lock:stock:sku1")));
    ttl_after = value(client.call(Command::pttl("lock:stock:sku1")));
  });
  f.run();
  EXPECT_EQ(ttl_before, Reply::integer(2900));
  EXPECT_EQ(get_after, Reply::nil());  // 0.1s of true time into a 3s lock
  EXPECT_EQ(ttl_after, Reply::integer(-2));
  EXPECT_LT(f.w.now(), f.at(1_s));
  EXPECT_EQ(f.redis.state("redis-1").size(), 0u);  // the primary deleted it on access
}

TEST(RedisExpiry, AReplicaHidesAnExpiredKeyButKeepsItUntilThePrimarysDel) {
  Cluster f(replicated());
  Reply on_replica = kUnset;
  f.w.spawn(&f.app, "buyer", [&] {
    RedisClient client = f.redis.client(f.app);
    value(client.call(Command::set_px("idem:req-7", "1", 200)));
    sim::sleep_until(f.at(50_ms));  // replicated
    f.w.network().partition(f.ids({"redis-1"}), f.ids({"redis-2", "redis-3"}));  // no DEL will arrive
    sim::sleep_until(f.at(500_ms));
    on_replica = value(RedisClient::fixed(f.app, f.w.node("redis-2")).call(Command::get("idem:req-7")));
  });
  f.run();
  EXPECT_EQ(on_replica, Reply::nil());
  EXPECT_EQ(f.stored("redis-2", "idem:req-7"), "1");  // still stored, only hidden
  EXPECT_EQ(f.stored("redis-1", "idem:req-7"), std::nullopt);  // active expiry on the primary
}

// A standalone server: SET a at ~0.2s, SET b at ~1.5s, crash at 1.7s, restart at 2s, read both.
std::vector<Reply> after_restart(Persistence persistence) {
  RedisConfig c;
  c.persistence = persistence;
  Cluster f(c);
  sim::FaultPlan::parse("at 1700ms crash redis-1; at 2s restart redis-1").apply(f.w);
  std::vector<Reply> out;
  f.w.spawn(&f.app, "buyer", [&] {
    RedisClient client = f.redis.client(f.app);
    sim::sleep_until(f.at(200_ms));
    value(client.call(Command::set("a", "1")));
    sim::sleep_until(f.at(1500_ms));
    value(client.call(Command::set("b", "2")));
    sim::sleep_until(f.at(2100_ms));
    out.push_back(value(client.call(Command::get("a"))));
    out.push_back(value(client.call(Command::get("b"))));
  });
  f.run();
  return out;
}

TEST(RedisPersistence, WithoutPersistenceARestartedServerIsEmpty) {
  EXPECT_EQ(after_restart(Persistence::none), (std::vector<Reply>{Reply::nil(), Reply::nil()}));
}

TEST(RedisPersistence, AofEverysecLosesTheWritesOfTheLastSecond) {
  EXPECT_EQ(after_restart(Persistence::aof_everysec), (std::vector<Reply>{Reply::bulk("1"), Reply::nil()}));
}

TEST(RedisPersistence, AofAlwaysKeepsEveryAcknowledgedWrite) {
  EXPECT_EQ(after_restart(Persistence::aof_always), (std::vector<Reply>{Reply::bulk("1"), Reply::bulk("2")}));
}

TEST(RedisServer, EveryCommandIsTracedWithItsReply) {
  Cluster f(RedisConfig{});
  f.w.spawn(&f.app, "buyer", [&] { value(f.redis.client(f.app).call(kLock)); });
  f.run();
  std::vector<sim::TraceEvent> redis_events;
  for (const auto& e : f.w.trace_log().events()) {
    if (e.kind == "redis") redis_events.push_back(e);
  }
  ASSERT_EQ(redis_events.size(), 1u);
  EXPECT_EQ(redis_events[0].node, "redis-1");
  EXPECT_EQ(redis_events[0].fields, (std::vector<sim::TraceField>{
                                        {"cmd", "SET lock:stock:sku1 tok-1 NX PX 3000"}, {"reply", "OK"}, {"from", "app"}}));
}

// ---- A group of sentinels (SentinelOptions: quorum, majority votes, hellos)

RedisConfig grouped(uint32_t sentinels, uint32_t quorum = 0) {
  RedisConfig c = replicated();
  c.sentinels = sentinels;
  c.quorum = quorum;
  return c;
}

std::vector<std::string> events_of(const sim::World& w, const std::string& kind) {
  std::vector<std::string> out;
  for (const auto& e : w.trace_log().events()) {
    if (e.kind == kind) out.push_back(e.node);
  }
  return out;
}

// The primary crashes: the three sentinels agree it is down, elect one leader in epoch 1, which
// promotes a replica; the other two learn the new primary from its hellos.
TEST(RedisSentinelGroup, ThreeSentinelsElectOneLeaderAndAllNameTheNewPrimary) {
  Cluster f(grouped(3));
  sim::FaultPlan::parse("at 100ms crash redis-1").apply(f.w);
  f.w.spawn(&f.app, "buyer", [&] { sim::sleep_until(f.at(4_s)); });
  f.run();
  ASSERT_EQ(f.failovers().size(), 1u);
  ASSERT_EQ(events_of(f.w, "elected-leader").size(), 1u);
  EXPECT_EQ(events_of(f.w, "elected-leader"), events_of(f.w, "failover"));  // the leader promoted
  EXPECT_EQ(events_of(f.w, "odown").size(), 3u);  // each saw the quorum of 2
  EXPECT_EQ(events_of(f.w, "sentinel-config-update").size(), 2u);
  const std::string promoted = f.redis.primary_name();
  EXPECT_NE(promoted, "redis-1");
  ASSERT_EQ(f.redis.sentinels().size(), 3u);
  for (const auto& s : f.redis.sentinels()) {
    EXPECT_EQ(s->current_primary(), promoted) << s->node().name();
    EXPECT_EQ(s->epoch(), 1u) << s->node().name();
  }
  EXPECT_EQ(f.redis.acting_primaries(), std::vector<std::string>{promoted});
}

// Quorum 1 lets a lone sentinel call the primary down, but not fail it over: cut off with one
// replica, sentinel-3 sees the primary down (ODOWN with quorum 1), asks for votes, gets only its
// own (2 of 3 needed) and gives up. Sentinel's documentation: "the failover requires authorization
// by a majority of Sentinels". The same cut with quorum 1 and a single sentinel fails over.
TEST(RedisSentinelGroup, ASentinelInTheMinorityCannotFailOverEvenWithQuorumOne) {
  {
    Cluster f(grouped(3, 1));
    sim::FaultPlan::parse("at 100ms partition redis-1,redis-2,sentinel-1,sentinel-2,app | redis-3,sentinel-3; at 3s heal").apply(f.w);
    f.w.spawn(&f.app, "buyer", [&] { sim::sleep_until(f.at(4_s)); });
    f.run();
    EXPECT_TRUE(f.failovers().empty());
    EXPECT_EQ(events_of(f.w, "odown"), std::vector<std::string>{"sentinel-3"});
    EXPECT_FALSE(events_of(f.w, "failover-abort").empty());
    EXPECT_EQ(f.redis.acting_primaries(), std::vector<std::string>{"redis-1"});
  }
  Cluster lone(replicated());
  sim::FaultPlan::parse("at 100ms partition redis-1,redis-2,app | redis-3,sentinel; at 3s heal").apply(lone.w);
  lone.w.spawn(&lone.app, "buyer", [&] { sim::sleep_until(lone.at(4_s)); });
  lone.run();
  EXPECT_EQ(lone.failovers().size(), 1u);
}

// A client asks the sentinels in order: with sentinel-1 down it spends its share of the timeout
// there and finds the primary through sentinel-2.
TEST(RedisSentinelGroup, AClientAsksTheNextSentinelWhenTheFirstIsDown) {
  RedisConfig c = grouped(3);
  c.client_timeout = 30_ms;
  Cluster f(c);
  sim::FaultPlan::parse("at 0 crash sentinel-1").apply(f.w);
  Reply set = kUnset;
  std::string server;
  f.w.spawn(&f.app, "buyer", [&] {
    sim::sleep_until(f.at(1_ms));
    RedisClient client = f.redis.client(f.app);
    set = value(client.call(Command::set("stock:sku1", "10")));
    server = client.server();
  });
  f.run();
  EXPECT_EQ(set, Reply::ok());
  EXPECT_EQ(server, "redis-1");
}

// After a partition heals, the old primary's sentinel still names it (epoch 0) while the others
// promoted redis-2 in epoch 1. It does not turn redis-2 back into a replica: it waits for hellos
// first (Sentinel waits four hello periods before forcing its view), learns epoch 1, and the old
// primary is converted instead.
TEST(RedisSentinelGroup, AStaleSentinelLearnsTheNewerConfigurationInsteadOfUndoingAFailover) {
  Cluster f(grouped(3));
  sim::FaultPlan::parse("at 100ms partition redis-1,sentinel-1 | redis-2,redis-3,sentinel-2,sentinel-3,app; at 2500ms heal").apply(f.w);
  f.w.spawn(&f.app, "buyer", [&] { sim::sleep_until(f.at(5_s)); });
  f.run();
  ASSERT_EQ(f.failovers().size(), 1u);
  const std::string promoted = f.redis.primary_name();
  EXPECT_NE(promoted, "redis-1");
  for (const auto& s : f.redis.sentinels()) EXPECT_EQ(s->current_primary(), promoted) << s->node().name();
  for (const auto& e : f.w.trace_log().events()) {
    if (e.kind == "sentinel-reconfigure") {
      EXPECT_NE(e.fields.back().value, "redis-1") << "a sentinel pointed a server back at redis-1";
    }
  }
  EXPECT_EQ(f.redis.acting_primaries(), std::vector<std::string>{promoted});
  EXPECT_EQ(f.redis.server("redis-1").role(), Role::replica);
}

// sentinel-1 cannot reach the other sentinels, only the servers. The others promote a replica
// while redis-1 is down; sentinel-1 still learns the new configuration from the hellos published
// on the servers, so when redis-1 comes back every sentinel turns it into a replica of the new
// primary, and no sentinel turns the new primary back (they would end up replicas of each other).
TEST(RedisSentinelGroup, ASentinelCutOffFromItsPeersLearnsTheFailoverThroughTheServers) {
  Cluster f(grouped(3));
  sim::FaultPlan::parse("at 0 partition sentinel-1 | sentinel-2,sentinel-3; at 100ms crash redis-1; at 2s restart redis-1").apply(f.w);
  f.w.spawn(&f.app, "buyer", [&] { sim::sleep_until(f.at(6_s)); });
  f.run();
  ASSERT_EQ(f.failovers().size(), 1u);
  const std::string promoted = f.redis.primary_name();
  EXPECT_NE(promoted, "redis-1");
  EXPECT_EQ(events_of(f.w, "sentinel-config-update").size(), 2u);
  for (const auto& s : f.redis.sentinels()) EXPECT_EQ(s->current_primary(), promoted) << s->node().name();
  EXPECT_EQ(f.redis.acting_primaries(), std::vector<std::string>{promoted});
  EXPECT_EQ(f.redis.server("redis-1").role(), Role::replica);
}

// sentinel-1 cannot reach redis-2 (nor its peers) for the first 2s; the others promote redis-2
// and sentinel-1 learns it from a hello on redis-3. It has never heard redis-2 answer, yet it
// does not call it down at once: adopting a configuration starts the new primary's timers afresh
// (sentinelResetMaster), and the cut heals before down-after has passed.
TEST(RedisSentinelGroup, AdoptingANewerConfigurationStartsItsTimersAfresh) {
  Cluster f(grouped(3, 1));
  sim::FaultPlan::parse("at 0 cut sentinel-1 -> redis-2; at 0 partition sentinel-1 | sentinel-2,sentinel-3; at 100ms crash redis-1; at 2s heal").apply(f.w);
  f.w.spawn(&f.app, "buyer", [&] { sim::sleep_until(f.at(5_s)); });
  f.run();
  ASSERT_EQ(f.failovers().size(), 1u);
  ASSERT_EQ(f.redis.primary_name(), "redis-2");
  int adopted = 0, called_down = 0;
  for (const auto& e : f.w.trace_log().events()) {
    if (e.node != "sentinel-1") continue;
    adopted += e.kind == "sentinel-config-update";
    called_down += e.kind == "sdown" && e.fields.front().value == "redis-2";
  }
  EXPECT_EQ(adopted, 1);
  EXPECT_EQ(called_down, 0) << "sentinel-1 called the new primary down the moment it adopted it";
  for (const auto& s : f.redis.sentinels()) EXPECT_EQ(s->current_primary(), "redis-2") << s->node().name();
}

// One vote per epoch: over many seeds (random LAN latency, so the sentinels' clocks of events
// differ), no epoch ever elects two leaders, and every crash ends in exactly one failover.
TEST(RedisSentinelGroup, NoEpochElectsTwoLeaders) {
  int contested = 0;  // runs where more than one sentinel tried in the same epoch
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    SCOPED_TRACE(seed);
    Cluster f(grouped(3), seed, /*exact_latency=*/false);
    sim::FaultPlan::parse("at 100ms crash redis-1").apply(f.w);
    f.w.spawn(&f.app, "buyer", [&] { sim::sleep_until(f.at(5_s)); });
    f.run();
    std::map<std::string, int> leaders, tries;
    for (const auto& e : f.w.trace_log().events()) {
      if (e.kind == "elected-leader") ++leaders[e.fields.front().value];
      if (e.kind == "try-failover") ++tries[e.fields.back().value];
    }
    for (const auto& [epoch, n] : leaders) EXPECT_EQ(n, 1) << "epoch " << epoch;
    for (const auto& [epoch, n] : tries) contested += n > 1;
    EXPECT_EQ(f.failovers().size(), 1u);
  }
  EXPECT_GT(contested, 0) << "no two sentinels ever ran in the same epoch: the test tested nothing";
}

// A quorum above the majority: with two of five sentinels down only three can see the primary
// down, fewer than the quorum of 4, so nobody fails over although three could have voted.
TEST(RedisSentinelGroup, AQuorumAboveTheLiveSentinelsMeansNoFailover) {
  Cluster f(grouped(5, 4));
  sim::FaultPlan::parse("at 0 crash sentinel-4; at 0 crash sentinel-5; at 100ms crash redis-1").apply(f.w);
  f.w.spawn(&f.app, "buyer", [&] { sim::sleep_until(f.at(4_s)); });
  f.run();
  EXPECT_TRUE(f.failovers().empty());
  EXPECT_EQ(events_of(f.w, "sdown").size(), 3u);
  EXPECT_TRUE(events_of(f.w, "odown").empty());
}

// The split-brain story on the kernel's random LAN latency: the same seed gives the same run.
uint64_t split_brain_hash(uint64_t seed) {
  Cluster f(replicated(), seed, /*exact_latency=*/false);
  sim::FaultPlan::parse("at 100ms partition redis-1,app | redis-2,redis-3,sentinel; at 2s heal").apply(f.w);
  f.w.spawn(&f.app, "buyer", [&] {
    RedisClient client = f.redis.client(f.app);
    for (int i = 0; i < 30; ++i) {
      client.call(Command::set_nx(fmt::format("order:{}", i), "alice"));
      sim::sleep_for(100_ms);
    }
  });
  sim::RunOutcome outcome = f.w.run();
  EXPECT_EQ(outcome.status, sim::RunStatus::completed);
  EXPECT_EQ(f.redis.acting_primaries(), std::vector<std::string>{"redis-2"});
  return outcome.hash();
}

TEST(RedisDeterminism, TheSameSeedReplaysTheSameSplitBrainRun) {
  EXPECT_EQ(split_brain_hash(3), split_brain_hash(3));
  EXPECT_NE(split_brain_hash(3), split_brain_hash(4));
}

// ---- load --------------------------------------------------------------------------------

// Clients that poll GET, each waiting for its answer and then `think` before the next, for 2s.
sim::MailboxLoad polled(Cluster& f, int clients, Duration think) {
  for (int c = 0; c < clients; ++c) {
    f.w.spawn(&f.app, fmt::format("poller-{}", c), [&f, think] {
      RedisClient client = f.redis.client(f.app);
      while (sim::now() < f.at(2_s)) {
        value(client.call(Command::get("lock:stock:sku1")));
        sim::sleep_for(think);
      }
    });
  }
  f.run();
  return f.redis.server("redis-1").load();
}

// Fifty pollers every 10ms against a server that serves one command per 1ms (1,000 a second):
// it falls behind. A poller's round is its 2ms round trip, 10ms of thought and its wait in the
// queue, so the queue settles where fifty rounds take fifty services: each command waits about
// 50 - 12 - 1 = 37ms once it settles, and every second brings what the server serves. Its load
// says both.
TEST(RedisLoad, AServerThatFallsBehindCountsItsBusiestSecondAndItsQueueWait) {
  RedisConfig c;
  c.service_time = 1_ms;
  c.client_timeout = 1_s;  // no poll gives up: every command is an answered one
  Cluster f(c);
  const sim::MailboxLoad load = polled(f, 50, 10_ms);
  EXPECT_EQ(f.redis.server("redis-1").options().service_time, 1_ms);
  // It served one a millisecond for 2s, and each served command brought the next: the busiest
  // second is the first (the fifty first polls on top), at what the server serves.
  EXPECT_EQ(load.busiest_second, f.at(0_s));
  EXPECT_GE(load.busiest_second_messages, 1'000u);
  EXPECT_LE(load.busiest_second_messages, 1'050u);
  EXPECT_GE(load.messages, 2'000u);
  EXPECT_LE(load.messages, 2'050u);
  // The first polls wait longest: all fifty arrive at 1ms (each a nanosecond after the one before
  // it on the link), and the last is taken up after the forty-nine before it, at 50ms.
  EXPECT_EQ(load.longest_wait, 49_ms - 49_ns);
  EXPECT_EQ(load.longest_wait_at, f.at(50_ms));
}

// One poller every 100ms: ten commands a second against 100,000 the server serves, each taken
// up the instant it arrives.
TEST(RedisLoad, AQuietServerCountsItsRequestsAndNoWait) {
  Cluster f(RedisConfig{});
  const sim::MailboxLoad load = polled(f, 1, 100_ms);
  EXPECT_EQ(f.redis.server("redis-1").options().service_time, 10_us);
  EXPECT_EQ(load.busiest_second_messages, 10u);
  EXPECT_EQ(load.messages, 20u);
  EXPECT_EQ(load.longest_wait, Duration::zero());
}

}  // namespace
}  // namespace oversim::redis
