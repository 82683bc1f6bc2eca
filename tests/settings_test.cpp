// The incidents that need a model setting, one story each: the setting the incident turned on
// (isolation, CHECK, the pool, optimistic retries, min-replicas), the same sale with it one way
// and the other, and what changed. Redis persistence has its story in redlock_test.cpp. Each
// story runs from the command line as `oversim run` with the flags in its comment.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "properties/checker.h"
#include "protocols/registry.h"
#include "protocols/settings.h"

namespace oversim {
namespace {
using namespace sim::literals;
using properties::RunResult;
using protocols::BuyResult;
using protocols::Scenario;

Scenario sale(const std::string& design, int buyers, int64_t stock, const char* faults = "") {
  Scenario s;
  s.design = design;
  s.seed = 1;
  s.faults = sim::FaultPlan::parse(faults);
  s.workload.buyers = buyers;
  s.workload.stock = stock;
  return s;
}

int64_t results(const RunResult& r, BuyResult b) {
  auto it = r.results.find(b);
  return it == r.results.end() ? 0 : it->second;
}

// oversim run --variant read_modify_write --buyers 2 --stock 1 [--isolation repeatable-read]
// Two buyers read the last unit. Under READ COMMITTED both write "0" and both orders commit (a
// lost update). Under REPEATABLE READ the second UPDATE finds the row changed since its snapshot
// and fails with 40001 ("could not serialize access due to concurrent update", PostgreSQL manual
// 13.2.2): one order, and a buyer told "failed" who would have to retry.
TEST(SettingStories, RepeatableReadTurnsTheLostUpdateIntoASerializationFailure) {
  Scenario s = sale("read_modify_write", 2, 1);
  const RunResult committed = properties::run_checked(s);
  EXPECT_TRUE(committed.result("no_oversell").violated);
  EXPECT_EQ(committed.orders, 2);
  s.workload.db_isolation = protocols::Isolation::repeatable_read;
  const RunResult repeatable = properties::run_checked(s);
  EXPECT_FALSE(repeatable.result("no_oversell").violated);
  EXPECT_EQ(repeatable.orders, 1);
  EXPECT_EQ(results(repeatable, BuyResult::failed), 1);
}

// oversim run --variant db_decrement_checked --buyers 2 --stock 1 [--check-constraint off]
// oversim run --variant db_decrement_mysql57 --buyers 2 --stock 1
// The application checks the stock, then `available = available - 1`. With CHECK (available >=
// 0) enforced the second decrement is turned down (23514); where it is parsed and ignored
// (MySQL before 8.0.16, which db_decrement_mysql57 requires) the stock goes to -1.
TEST(SettingStories, ACheckConstraintThatIsNotEnforcedLetsTheStockGoNegative) {
  Scenario s = sale("db_decrement_checked", 2, 1);
  const RunResult checked = properties::run_checked(s);
  EXPECT_FALSE(checked.result("no_oversell").violated);
  EXPECT_TRUE(checked.result("check_constraint_fired").reached);
  s.workload.db_check = false;
  const RunResult ignored = properties::run_checked(s);
  EXPECT_TRUE(ignored.result("no_oversell").violated);
  EXPECT_FALSE(ignored.result("check_constraint_fired").reached);

  // The design that requires it gets it without a flag; a typed --check-constraint on is refused.
  Scenario mysql = sale("db_decrement_mysql57", 2, 1);
  EXPECT_TRUE(properties::run_checked(mysql).result("no_oversell").violated);
  mysql.typed = {"--check-constraint"};
  const auto problem = protocols::workload_problem(mysql, *protocols::find_design("db_decrement_mysql57"));
  ASSERT_TRUE(problem.has_value());
  EXPECT_NE(problem->find("--check-constraint on: design 'db_decrement_mysql57' requires --check-constraint off"), std::string::npos) << *problem;
}

// oversim run --variant db_for_update --buyers 20 --stock 20 --apps 1 --remote-call 50ms --patience 0 --pool-size 2 --pool-timeout 200ms
// SELECT ... FOR UPDATE holds a connection through the remote call. With two connections and a
// 200ms connection timeout most of the 20 buyers on the node never get one: "busy", and stock is
// left although every buyer wanted a unit (each clicks once here; buyers who click again, the
// default, come back for it). With the default ten connections and two seconds, the same sale
// sells out.
TEST(SettingStories, ASmallPoolTurnsBuyersAwayWhileTheRowLockIsHeld) {
  Scenario s = sale("db_for_update", 20, 20);
  s.workload.app_nodes = 1;
  s.workload.patience = 0_s;
  s.workload.remote_call = 50_ms;
  const RunResult roomy = properties::run_checked(s);
  EXPECT_EQ(roomy.orders, 20);
  EXPECT_EQ(results(roomy, BuyResult::busy), 0);
  s.workload.db_pool_size = 2;
  s.workload.db_pool_timeout = 200_ms;
  const RunResult small = properties::run_checked(s);
  EXPECT_GT(results(small, BuyResult::busy), 10);
  EXPECT_LT(small.orders, 10);
  EXPECT_TRUE(small.result("progress").violated);
}

// oversim run --variant db_optimistic_version --buyers 10 --stock 10 --apps 1 --patience 0 [--optimistic-retries 0]
// Ten buyers read version 0; one compare-and-set wins each round. Without a retry the other nine
// give up ("busy") with stock left; with enough retries every buyer gets a unit in one click.
TEST(SettingStories, OptimisticRetriesDecideWhetherTheLosersOfAVersionRaceBuy) {
  Scenario s = sale("db_optimistic_version", 10, 10);
  s.workload.app_nodes = 1;
  s.workload.patience = 0_s;
  s.workload.optimistic_retries = 0;
  const RunResult none = properties::run_checked(s);
  EXPECT_LT(none.orders, 10);
  EXPECT_TRUE(none.result("progress").violated);
  s.workload.optimistic_retries = 20;
  const RunResult many = properties::run_checked(s);
  EXPECT_EQ(many.orders, 10);
  EXPECT_FALSE(many.result("progress").violated);
  EXPECT_GT(many.counters.at("optimistic.retry"), 0);
}

// oversim run --variant redis_lock_conditional --faults 'at 1ms crash redis-2' --buyers 10 --stock 10 --remote-call 200ms
//   --lock-wait 5s --gateway-timeout 10s --min-replicas 1 --min-replicas-max-lag 500ms
// min-replicas-to-write 1: the primary refuses writes (NOREPLICAS) once no replica has acked for
// min-replicas-max-lag. With the replica crashed at the start, the lock is available only for
// the first 500ms; the buyers after that cannot take it. Without the setting the same sale sells
// out on a primary that replicates to nobody.
TEST(SettingStories, MinReplicasStopsTheLockWhenTheReplicaIsGone) {
  Scenario s = sale("redis_lock_conditional", 10, 10, "at 1ms crash redis-2");
  s.workload.remote_call = 200_ms;
  s.workload.lock_wait = 5_s;
  s.workload.gateway_timeout = 10_s;
  const RunResult plain = properties::run_checked(s);
  EXPECT_EQ(plain.orders, 10);
  s.workload.redis_min_replicas = 1;
  s.workload.redis_min_replicas_max_lag = 500_ms;
  const RunResult guarded = properties::run_checked(s);
  EXPECT_GT(guarded.orders, 0);
  EXPECT_LT(guarded.orders, 10);
  EXPECT_FALSE(guarded.result("no_oversell").violated);
}

// oversim run --variant redis_lock_read_modify_write --seed 1 --faults 'on after_acquire partition
//   redis-1,sentinel-1,here | redis-2,sentinel-2,sentinel-3; on after_acquire after 3s heal'
//   --remote-call 1900ms --lock-ttl 6200ms --lock-wait 10400ms --gateway-timeout 15400ms --sentinels 3
// and the same cut with --sentinels 2 --sentinel-quorum 1 (far side redis-2,sentinel-2).
// Sentinel's documentation warns against two sentinels: a failover needs the votes of a majority
// of them, so the one cut off with the replica sees the primary down (quorum 1), asks for votes,
// gets its own and gives up: no failover, no second lock. Three sentinels, one per box, have a
// majority behind the cut: they promote the replica while the holder still works on the old
// primary, and after the heal the old primary keeps taking writes until it is converted.
TEST(SettingStories, ThreeSentinelsFailOverBehindAPartitionAndTwoCannot) {
  auto cut = [](int sentinels, int quorum, const char* far) {
    Scenario s = sale("redis_lock_read_modify_write", 20, 5);
    s.faults = sim::FaultPlan::parse(fmt::format("on after_acquire partition redis-1,sentinel-1,here | redis-2,{}; on after_acquire after 3s heal", far));
    s.workload.remote_call = 1900_ms;
    s.workload.lock_ttl = 6200_ms;
    s.workload.lock_wait = 10400_ms;
    s.workload.gateway_timeout = 15400_ms;
    s.workload.sentinels = sentinels;
    s.workload.sentinel_quorum = quorum;
    return properties::run_checked(s);
  };
  const RunResult three = cut(3, 0, "sentinel-2,sentinel-3");
  EXPECT_TRUE(three.result("failover_happened").reached);
  EXPECT_TRUE(three.result("lock_mutual_exclusion").violated);
  EXPECT_TRUE(three.result("no_oversell").violated);

  const RunResult two = cut(2, 1, "sentinel-2");
  EXPECT_FALSE(two.result("failover_happened").reached);
  EXPECT_FALSE(two.result("lock_mutual_exclusion").violated);
  EXPECT_FALSE(two.result("no_oversell").violated);
  EXPECT_EQ(two.orders, 5);  // sold out: the cut did not just stop the sale
  bool tried = false, gave_up = false;
  for (const sim::TraceEvent& e : two.events) {
    tried |= e.kind == "try-failover" && e.node == "sentinel-2";
    gave_up |= e.kind == "failover-abort" && e.node == "sentinel-2";
  }
  EXPECT_TRUE(tried) << "sentinel-2 never saw the primary down: the story tested nothing";
  EXPECT_TRUE(gave_up);
}

// oversim run --variant redlock_conditional --faults 'at 0 crash redlock-1' --buyers 5 [--redlock-timeout 600ms]
// The RedLock page: the client's per-instance timeout must be small next to the lock's validity, so
// that a dead master costs little. With redlock-rb's 0.1s, one master down still leaves a quorum
// acquired well inside the 500ms TTL and every unit sells; wait 600ms for the dead master and each
// round's elapsed time eats the whole TTL: the quorum comes back with no validity left, every try
// is refused, and nothing sells.
TEST(SettingStories, ARedLockTimeoutLongerThanTheTtlLeavesNoValidityWhenAMasterIsDown) {
  Scenario s = sale("redlock_conditional", 5, 5, "at 0 crash redlock-1");
  const RunResult quick = properties::run_checked(s);
  EXPECT_EQ(quick.orders, 5);
  s.workload.redlock_node_timeout = 600_ms;
  const RunResult slow = properties::run_checked(s);
  EXPECT_EQ(slow.orders, 0);
  EXPECT_GT(slow.counters.at("redlock.refused-late-quorum"), 0) << "the quorum was reached, but too late";
  EXPECT_TRUE(slow.result("progress").violated);
}

// A Redis configuration that could never work is refused before the run, naming both values.
TEST(SettingStories, ImpossibleRedisSettingsAreRefused) {
  auto problem = [](auto set) {
    Scenario s = sale("redis_lock_conditional", 2, 1);
    set(s.workload);
    return protocols::scenario_problem(s, *protocols::find_design("redis_lock_conditional")).value_or("none");
  };
  EXPECT_EQ(problem([](protocols::Workload&) {}), "none");
  EXPECT_EQ(problem([](protocols::Workload& w) { w.redis_min_replicas = 2; }),
            "--min-replicas 2 with 1 Redis replica(s): the primary would refuse every write (min-replicas-to-write counts connected replicas)");
  EXPECT_EQ(problem([](protocols::Workload& w) {
              w.redis_replicas = 0;
              w.sentinels = 3;
            }),
            "--sentinels 3 with --redis-replicas 0: a standalone Redis has no Sentinel");
  EXPECT_EQ(problem([](protocols::Workload& w) {
              w.sentinels = 2;
              w.sentinel_quorum = 3;
            }),
            "--sentinel-quorum 3 with 2 sentinel(s): no failover could ever start");
}

// Every setting reads back what it was given, and the reproduce line carries it.
// oversim run --variant db_for_update --buyers 20 --stock 20 --apps 1 --remote-call 50ms --gateway-timeout 5s --pool-size 2 --pool-timeout 200ms
// The small pool again, with buyers who click again after "busy" (the default --patience 30s):
// they come back with a backoff and buy every unit.
TEST(SettingStories, BuyersWhoClickAgainBuyWhatASmallPoolTurnedAway) {
  Scenario s = sale("db_for_update", 20, 20);
  s.workload.app_nodes = 1;
  s.workload.remote_call = 50_ms;
  s.workload.db_pool_size = 2;
  s.workload.db_pool_timeout = 200_ms;
  s.workload.gateway_timeout = 5_s;
  const RunResult r = properties::run_checked(s);
  EXPECT_EQ(r.orders, 20);
  EXPECT_GT(results(r, BuyResult::busy), 0);
  EXPECT_GT(r.counters.at("buyer.click-again"), 0);
  EXPECT_EQ(r.counters.at("buyer.bought"), 20);
  EXPECT_FALSE(r.result("progress").violated);
}

TEST(SettingStories, EverySettingRoundTripsThroughItsFlag) {
  for (const protocols::Setting& setting : protocols::settings()) {
    protocols::Workload w;
    const std::string value = setting.get(w);
    EXPECT_FALSE(setting.set(w, value).has_value()) << setting.flag << " " << value;
    EXPECT_EQ(setting.get(w), value) << setting.flag;
    EXPECT_TRUE(setting.set(w, "nonsense").has_value()) << setting.flag << " took 'nonsense'";
    EXPECT_TRUE(protocols::setting_flags(w).empty()) << setting.flag;
  }
  protocols::Workload w;
  ASSERT_FALSE(protocols::find_setting("--pool-size")->set(w, "20").has_value());
  EXPECT_EQ(protocols::setting_flags(w), " --pool-size 20");
  EXPECT_EQ(protocols::describe_settings(w), "pool 20");
}

// oversim run --variant db_conditional_update [--db-latency 10ms] [--lock-latency 10ms]
// A link class's latency applies to its links alone: the database's 10ms one way puts at least a
// round trip per statement on every order; a lock-service latency changes nothing in a design
// that has no lock service (the same run, to the hash), and slows a design that has one.
TEST(SettingStories, ALinkClassLatencyAppliesToItsLinksAlone) {
  const Scenario base = sale("db_conditional_update", 10, 5);
  const RunResult plain = properties::run_checked(base);
  Scenario slow_db = base;
  slow_db.workload.db_latency = sim::Distribution::constant(10_ms);
  const RunResult db = properties::run_checked(slow_db);
  ASSERT_EQ(db.acks, 5);
  ASSERT_EQ(plain.acks, 5);
  const sim::Duration slowest_plain = *std::max_element(plain.latencies.begin(), plain.latencies.end());
  for (sim::Duration d : db.latencies) {
    EXPECT_GE(d, slowest_plain + 55_ms) << "BEGIN, UPDATE, INSERT, COMMIT: 20ms more a round trip, at least three of them";
  }
  Scenario lock_only = base;
  lock_only.workload.lock_latency = sim::Distribution::constant(10_ms);
  EXPECT_EQ(properties::run_checked(lock_only).outcome.hash(), plain.outcome.hash());

  const Scenario redis = sale("redis_lock_conditional", 1, 1);
  Scenario slow_lock = redis;
  slow_lock.workload.lock_latency = sim::Distribution::constant(10_ms);
  const RunResult fast = properties::run_checked(redis);
  const RunResult slow = properties::run_checked(slow_lock);
  ASSERT_EQ(fast.latencies.size(), 1u);
  ASSERT_EQ(slow.latencies.size(), 1u);
  EXPECT_GE(slow.latencies[0] - fast.latencies[0], 35_ms) << "SET NX and the release's compare-and-delete: two round trips of 20ms";
}

// oversim run --variant redis_lock_conditional --replication-lag p50=20ms,p99=400ms
// A drawn replication lag is a run of its own (not the constant's), the same on every replay, and
// round-trips through its flag.
TEST(SettingStories, ADrawnReplicationLagReplaysAndRoundTrips) {
  Scenario s = sale("redis_lock_conditional", 10, 5);
  const RunResult constant = properties::run_checked(s);
  s.workload.replication_spread = sim::Spread::lognormal;
  s.workload.replication_high = 400_ms;
  const RunResult drawn = properties::run_checked(s);
  EXPECT_NE(drawn.outcome.hash(), constant.outcome.hash());
  EXPECT_EQ(properties::run_checked(s).outcome.hash(), drawn.outcome.hash());
  EXPECT_NE(properties::reproduce_command(s, {}).find("--replication-lag p50=20ms,p99=400ms"), std::string::npos) << properties::reproduce_command(s, {});
}

}  // namespace
}  // namespace oversim
