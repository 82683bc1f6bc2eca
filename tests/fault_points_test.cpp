// Fault points find the bug on purpose: a fault aimed at a moment of the protocol happens there,
// on the first execution, instead of when a seed happens to land on it; and profiles that need a
// wider workload never change what the user typed without saying so.
#include <memory>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "properties/checker.h"
#include "protocols/profiles.h"
#include "protocols/registry.h"
#include "protocols/steps.h"

namespace oversim {
namespace {

using protocols::Scenario;

Scenario with_plan(const std::string& design, const std::string& plan, uint64_t seed = 1) {
  Scenario s;
  s.design = design;
  s.seed = seed;
  s.faults = sim::FaultPlan::parse(plan);
  return s;
}

// The GC pause inside the critical section, after the stock was read: the lease expires, the next
// holder reads the same stock, and the paused holder writes its stale value when it resumes.
TEST(FaultPoints, APauseAfterTheReadOversellsOnTheFirstExecution) {
  const properties::RunResult r = properties::run_checked(with_plan("redis_lock_read_modify_write", "on after_read pause here for 2x lock-ttl"));
  EXPECT_TRUE(r.result("no_oversell").violated);
  EXPECT_TRUE(r.result("lease_expired_while_held").reached);
  EXPECT_EQ(r.faults_fired, 1u);
  // The same pause just before the write, against the conditional decrement (it reads nothing
  // first): the lock fails the same way, the stock holds.
  const properties::RunResult safe = properties::run_checked(with_plan("redis_lock_conditional", "on before_write pause here for 2x lock-ttl"));
  EXPECT_EQ(safe.faults_fired, 1u);
  EXPECT_TRUE(safe.result("lock_mutual_exclusion").violated);
  EXPECT_FALSE(safe.result("no_oversell").violated);
  EXPECT_GT(safe.orders, 0);
}

// Right after the lock is acquired: the holder resumes, no longer holding the lease, into the
// next holder's read-then-write (a 100ms call keeps that window open) and both write one value.
TEST(FaultPoints, APauseRightAfterAcquireOversellsOnTheFirstExecution) {
  Scenario s = with_plan("redis_lock_read_modify_write", "on after_acquire pause here for 1.5x lock-ttl");
  s.workload.remote_call = sim::Duration::ms(100);
  const properties::RunResult r = properties::run_checked(s);
  EXPECT_TRUE(r.result("no_oversell").violated);
  EXPECT_TRUE(r.result("lock_mutual_exclusion").violated);
  bool paused_here = false;
  for (const auto& e : r.events) paused_here |= e.kind == "fault" && e.fields.at(0).value.find("(here: app-") != std::string::npos;
  EXPECT_TRUE(paused_here) << "the fault's trace line names the node that reached the point";
}

// The buyer hears "sold" only through the gateway, while it still waits: a purchase that ends
// after the gateway gave up is traced as unheard and is no acknowledgement.
TEST(FaultPoints, AnAnswerTheGatewayNoLongerWaitsForIsNoAcknowledgement) {
  Scenario s = with_plan("redis_lock_read_modify_write", "on after_read pause here for 2x lock-ttl");
  s.workload.buyers = 3;
  s.workload.stock = 1;
  const properties::RunResult r = properties::run_checked(s);
  int64_t unheard = 0, acks = 0;
  for (const auto& e : r.events) {
    unheard += e.kind == "unheard" ? 1 : 0;
    acks += e.kind == "ack" ? 1 : 0;
  }
  // Both sold purchases outlasted the gateway's 300ms (one paused for 1s, one waited for its lock).
  EXPECT_EQ(r.results.at(protocols::BuyResult::sold), 2);
  EXPECT_EQ(unheard, 2);
  EXPECT_EQ(acks, 0);
  EXPECT_EQ(r.acks, 0);
  EXPECT_TRUE(r.latencies.empty());
}

// A design that tells the buyer "sold" and leaves the COMMIT to a background fiber (a realistic
// mistake: acknowledging before the commit). Test-only: it is in no registry.
protocols::BuyResult acknowledge_before_commit(protocols::BuyContext& ctx) {
  std::optional<db::DbConnection> conn = ctx.db().acquire();
  if (!conn) return ctx.outcome(protocols::BuyResult::busy);
  conn->begin();
  db::DbCall take = conn->execute(db::UpdateStock::on(ctx.sku).decrement(1).where_available_at_least(1));
  if (!take.ok()) return ctx.outcome(protocols::failure_of(take));
  if (take.rows() == 0) return ctx.outcome(protocols::BuyResult::sold_out);
  const std::string order = ctx.new_order_id();
  db::DbCall insert = conn->execute(db::InsertOrder{ctx.order_row(order)});
  if (!insert.ok()) return ctx.outcome(protocols::failure_of(insert));
  auto late = std::make_shared<db::DbConnection>(std::move(*conn));
  ctx.world().spawn(&ctx.app(), "late-commit", [late] { late->commit(); });
  return ctx.sold(order);
}

std::optional<std::string> lost_order_after(const protocols::Design& design, const std::string& plan) {
  Scenario s = with_plan(design.name, plan);
  protocols::Simulation sim(s, design);
  sim.run();
  return properties::find_property("no_lost_order")->check(sim);
}

TEST(FaultPoints, ACrashBeforeCommitCatchesAnAcknowledgementBeforeCommitOnTheFirstExecution) {
  const protocols::Design early{"ack_before_commit", "test only", "violates no_lost_order under a crash before COMMIT", acknowledge_before_commit, {}, {}};
  const std::string plan = "on before_commit crash here; on before_commit after 2s restart here";
  const std::optional<std::string> lost = lost_order_after(early, plan);
  ASSERT_TRUE(lost.has_value()) << "the buyer heard 'sold' for an order that was never committed";
  EXPECT_NE(lost->find("o-r"), std::string::npos) << *lost;
  // The same crash against a design that acknowledges only after its COMMIT answered.
  const protocols::Design* honest = protocols::find_design("db_conditional_update");
  ASSERT_NE(honest, nullptr);
  EXPECT_EQ(lost_order_after(*honest, plan), std::nullopt);
}

// A design that retries its whole purchase in-app when COMMIT times out (a realistic mistake:
// the COMMIT may have applied). Test-only.
protocols::BuyResult retry_commit_in_app(protocols::BuyContext& ctx) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::optional<db::DbConnection> conn = ctx.db().acquire();
    if (!conn) return ctx.outcome(protocols::BuyResult::busy);
    conn->begin();
    db::DbCall take = conn->execute(db::UpdateStock::on(ctx.sku).decrement(1).where_available_at_least(1));
    if (!take.ok()) return ctx.outcome(protocols::failure_of(take));
    if (take.rows() == 0) return ctx.outcome(protocols::BuyResult::sold_out);
    const std::string order = ctx.new_order_id();
    db::DbCall insert = conn->execute(db::InsertOrder{ctx.order_row(order)});
    if (!insert.ok()) return ctx.outcome(protocols::failure_of(insert));
    db::DbCall commit = conn->commit();
    if (commit.ok()) return ctx.sold(order);
    if (!commit.ambiguous()) return ctx.outcome(protocols::BuyResult::failed);
    // "The commit timed out, try again": the first one may have committed.
  }
  return ctx.outcome(protocols::BuyResult::unknown);
}

// The lost-replies profile loses database replies without any gateway retry, so the duplicate it
// finds is the design's own: no profile that also retried at the gateway could tell them apart.
TEST(FaultPoints, LostRepliesAloneCatchAnInAppRetryOfATimedOutCommit) {
  const protocols::Design retrying{"retry_commit_in_app", "test only", "violates no_duplicate_order under lost-replies", retry_commit_in_app, {}, {}};
  const protocols::Design* honest = protocols::find_design("db_conditional_update");
  ASSERT_NE(honest, nullptr);
  int duplicated = 0, honest_duplicated = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    Scenario s;
    s.design = "db_conditional_update";  // the probe runs a registered design with the same client calls
    s.seed = seed;
    s = protocols::apply_profile("lost-replies", s);
    EXPECT_EQ(s.workload.max_retries, 0);
    for (const protocols::Design* d : {&retrying, honest}) {
      protocols::Simulation sim(s, *d);
      sim.run();
      const bool dup = properties::find_property("no_duplicate_order")->check(sim).has_value();
      (d == honest ? honest_duplicated : duplicated) += dup ? 1 : 0;
    }
  }
  EXPECT_GT(duplicated, 0) << "the in-app retry of a timed-out COMMIT duplicated no order in 20 seeds";
  EXPECT_EQ(honest_duplicated, 0);
}

// A profile widens a workload value only when the user did not type it, and says so either way.
TEST(FaultPoints, AProfileNeverChangesATypedFlagWithoutSayingSo) {
  Scenario s;
  s.design = "redis_lock_read_modify_write";
  s.workload.buyers = 200;
  s.workload.stock = 100;
  s.workload.remote_call = sim::Duration::ms(800);
  s.workload.lock_ttl = sim::Duration::s(3);
  s.typed = {"--buyers", "--stock", "--remote-call", "--lock-ttl"};
  const Scenario typed = protocols::apply_profile("failover", s);
  EXPECT_EQ(typed.workload.remote_call, sim::Duration::ms(800));
  EXPECT_EQ(typed.workload.lock_ttl, sim::Duration::s(3));
  EXPECT_EQ(typed.workload.buyers, 200);
  auto said = [](const Scenario& r, const std::string& text) {
    for (const std::string& n : r.notes) {
      if (n.find(text) != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_TRUE(said(typed, "failover keeps --remote-call 800ms as typed"));
  EXPECT_FALSE(said(typed, "--lock-ttl")) << "a 3s lease outlasts the 800ms call: nothing to say";
  // Not typed: widened, and said.
  EXPECT_EQ(typed.workload.lock_wait, sim::Duration::s(10));
  EXPECT_TRUE(said(typed, "failover sets --lock-wait 10s (not typed; the default is 2s)"));
  Scenario untyped = s;
  untyped.typed.clear();
  const Scenario widened = protocols::apply_profile("failover", untyped);
  EXPECT_EQ(widened.workload.remote_call, sim::Duration::ms(1500));
  EXPECT_TRUE(said(widened, "failover sets --remote-call 1500ms"));
  // Every change shows in the reproduce line, which then needs no profile.
  EXPECT_NE(properties::reproduce_command(widened).find("--remote-call 1500ms"), std::string::npos);
  // retries keeps a typed stock.
  Scenario one = s;
  one.workload.stock = 1;
  const Scenario retried = protocols::apply_profile("retries", one);
  EXPECT_EQ(retried.workload.stock, 1);
  EXPECT_TRUE(said(retried, "retries keeps --stock 1 as typed"));
}

// The probe makes the plan's trigger one the run reaches: the fault always happens.
TEST(FaultPoints, EveryProfilePlacedFaultHappens) {
  for (const char* profile : {"gc-pause", "failover", "clock-jump", "slow-rpc", "app-crash", "lost-replies"}) {
    for (uint64_t seed = 1; seed <= 5; ++seed) {
      Scenario s;
      s.design = "redis_lock_read_modify_write";
      s.seed = seed;
      s = protocols::apply_profile(profile, s);
      ASSERT_TRUE(s.unplaced.empty()) << profile << ": " << s.unplaced;
      const properties::RunResult r = properties::run_checked(s);
      EXPECT_EQ(r.faults_fired, r.faults_planned) << profile << " seed " << seed << ": " << s.faults.to_string();
    }
  }
  // The same on RedLock's masters, its own profiles included; chaos mixes only the kinds that
  // apply (no failover without a replica), so it places a fault in every seed.
  for (const char* profile : {"gc-pause", "partition", "clock-jump", "clock-drift", "lock-restart", "acquire-pause", "slow-rpc"}) {
    for (uint64_t seed = 1; seed <= 5; ++seed) {
      Scenario s;
      s.design = "redlock_read_modify_write";
      s.seed = seed;
      s = protocols::apply_profile(profile, s);
      ASSERT_TRUE(s.unplaced.empty()) << profile << ": " << s.unplaced;
      const properties::RunResult r = properties::run_checked(s);
      EXPECT_EQ(r.faults_fired, r.faults_planned) << profile << " seed " << seed << ": " << s.faults.to_string();
    }
  }
  // And on a ZooKeeper ensemble: every profile that applies places a fault that happens.
  for (const char* profile : {"gc-pause", "failover", "partition", "clock-jump", "clock-drift", "lock-restart", "slow-rpc", "app-crash", "lost-replies"}) {
    for (uint64_t seed = 1; seed <= 5; ++seed) {
      Scenario s;
      s.design = "zk_lock_read_modify_write";
      s.seed = seed;
      s = protocols::apply_profile(profile, s);
      ASSERT_TRUE(s.unplaced.empty()) << profile << ": " << s.unplaced;
      const properties::RunResult r = properties::run_checked(s);
      EXPECT_EQ(r.faults_fired, r.faults_planned) << profile << " seed " << seed << ": " << s.faults.to_string();
    }
  }
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    Scenario s;
    s.design = "redlock_conditional";
    s.seed = seed;
    s = protocols::apply_profile("chaos", s);
    EXPECT_FALSE(s.faults.empty()) << "chaos seed " << seed << ": " << s.unplaced;
    EXPECT_EQ(s.faults.to_string().find("redis-"), std::string::npos) << s.faults.to_string();
  }
  // A profile that needs a role the design's services lack places nothing, and says why: no
  // lock service at all, or one without a replica.
  Scenario db;
  db.design = "db_conditional_update";
  db = protocols::apply_profile("failover", db);
  EXPECT_TRUE(db.faults.empty());
  EXPECT_EQ(db.unplaced, "the design uses no lock service");
  EXPECT_TRUE(db.notes.empty()) << "nothing widened for a fault that cannot happen";
  Scenario redlock;
  redlock.design = "redlock_conditional";
  redlock = protocols::apply_profile("failover", redlock);
  EXPECT_TRUE(redlock.faults.empty());
  EXPECT_EQ(redlock.unplaced, "its lock service (redlock) has no replica to take over");
  Scenario redis;
  redis.design = "redis_lock_conditional";
  EXPECT_EQ(protocols::apply_profile("acquire-pause", redis).unplaced, "its lock service (redis) takes a lock in one request");
}

// Profiles aim at roles, not names: the same profile strikes each service's own nodes.
TEST(FaultPoints, ProfilesNameTheLockServicesOwnNodes) {
  for (const auto& [design, node] : {std::pair{"redis_lock_read_modify_write", "redis-1"}, std::pair{"redlock_read_modify_write", "redlock-1"}}) {
    for (const char* profile : {"clock-jump", "clock-drift", "lock-restart", "partition"}) {
      Scenario s;
      s.design = design;
      s = protocols::apply_profile(profile, s);
      ASSERT_FALSE(s.faults.empty()) << design << " / " << profile << ": " << s.unplaced;
      EXPECT_NE(s.faults.to_string().find(node), std::string::npos) << design << " / " << profile << ": " << s.faults.to_string();
      const properties::RunResult r = properties::run_checked(s);
      EXPECT_EQ(r.faults_fired, r.faults_planned) << design << " / " << profile << ": " << s.faults.to_string();
    }
  }
  Scenario rl;
  rl.design = "redlock_read_modify_write";
  EXPECT_EQ(protocols::apply_profile("partition", rl).faults.faults.at(0).side_b,
            (std::vector<std::string>{"redlock-2", "redlock-3", "redlock-4", "redlock-5"}));
  // ZooKeeper: the lock node is the leader (zk-3, the highest id); a partition cuts the holder
  // off from the whole ensemble (its session expires on the leader), and widens the critical
  // section to 1.25 session timeouts, not to Sentinel's failover.
  Scenario zk;
  zk.design = "zk_lock_read_modify_write";
  const Scenario cut = protocols::apply_profile("partition", zk);
  EXPECT_EQ(cut.faults.faults.at(0).side_a, (std::vector<std::string>{"here"}));
  EXPECT_EQ(cut.faults.faults.at(0).side_b, (std::vector<std::string>{"zk-1", "zk-2", "zk-3"}));
  EXPECT_EQ(cut.workload.remote_call, sim::Duration::ms(625));
  const Scenario crash = protocols::apply_profile("failover", zk);
  EXPECT_NE(crash.faults.to_string().find("crash zk-3"), std::string::npos) << crash.faults.to_string();
  EXPECT_EQ(crash.workload.lock_ttl, sim::Duration::s(5));  // the session outlasts the election
  EXPECT_EQ(protocols::apply_profile("acquire-pause", zk).unplaced, "its lock service (zookeeper) takes a lock in one request");
}

// Coverage that can fail: a fault counts as hitting a held lock only when it strikes the holder's
// node or the lock service while the holder believes it holds the lock.
TEST(FaultPoints, AFaultHitsAHeldLockOnlyWhileItIsHeld) {
  const properties::RunResult hit = properties::run_checked(with_plan("redis_lock_conditional", "on after_acquire pause here for 2x lock-ttl"));
  EXPECT_TRUE(hit.result("fault_hit_held_lock").reached);
  // The same pause before the buyer asked for the lock: nothing held, nothing hit.
  const properties::RunResult before = properties::run_checked(with_plan("redis_lock_conditional", "at 0ms pause app-1 for 1ms"));
  EXPECT_EQ(before.faults_fired, 1u);
  EXPECT_FALSE(before.result("fault_hit_held_lock").reached);
  // No faults, and a design without a lock: never.
  EXPECT_FALSE(properties::run_checked(with_plan("redis_lock_conditional", "at 0ms pause db for 1ms")).result("fault_hit_held_lock").reached);
  EXPECT_FALSE(properties::run_checked(with_plan("db_conditional_update", "on before_write pause here for 2s")).result("fault_hit_held_lock").reached);
  // A partition lasts until it heals: one that struck before the first lock and lasted through
  // the holdings hits them; the same cut healed before any lock could be acquired (a SET NX takes
  // at least two 100us hops) hits nothing.
  const properties::RunResult lasting = properties::run_checked(with_plan("redis_lock_conditional", "at 0ms partition redis-1 | redis-2,sentinel; at 1s heal"));
  EXPECT_TRUE(lasting.result("fault_hit_held_lock").reached);
  const properties::RunResult healed = properties::run_checked(with_plan("redis_lock_conditional", "at 0ms partition redis-1 | redis-2,sentinel; at 50us heal"));
  EXPECT_EQ(healed.faults_fired, 2u);
  EXPECT_FALSE(healed.result("fault_hit_held_lock").reached);
  // The Redis primary crashing while a lock is held hits it (failover).
  Scenario failover;
  failover.design = "redis_lock_conditional";
  failover = protocols::apply_profile("failover", failover);
  EXPECT_TRUE(properties::run_checked(failover).result("fault_hit_held_lock").reached) << failover.faults.to_string();
}

// A combination places a fault of each of its profiles in every run, on one probe; a part that
// cannot apply makes the whole combination inapplicable, and it is no single profile's plan.
TEST(FaultPoints, ACombinationSuffersEachOfItsFaults) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    Scenario s;
    s.design = "redis_lock_conditional";
    s.seed = seed;
    s = protocols::apply_profile("gc-pause+failover", s);
    ASSERT_TRUE(s.unplaced.empty()) << s.unplaced;
    const std::string plan = s.faults.to_string();
    EXPECT_NE(plan.find("pause here"), std::string::npos) << plan;
    EXPECT_NE(plan.find("crash redis-1"), std::string::npos) << plan;
    const properties::RunResult r = properties::run_checked(s);
    EXPECT_EQ(r.faults_fired, r.faults_planned) << plan;
    EXPECT_TRUE(r.result("failover_happened").reached) << plan;
  }
  Scenario db;
  db.design = "db_conditional_update";
  EXPECT_EQ(protocols::profile_inapplicable("gc-pause+failover", db), std::optional<std::string>("failover: the design uses no lock service"));
  EXPECT_FALSE(protocols::is_profile("gc-pause+gc-pause"));
  EXPECT_FALSE(protocols::is_profile("gc-pause+none"));
  EXPECT_FALSE(protocols::is_profile("gc-pause+chaos"));
  EXPECT_FALSE(protocols::is_profile("gc-pause+"));
  EXPECT_TRUE(protocols::is_profile("retries+clock-jump"));
}

// The points a design is refused for are exactly the service and lock points its faultless sale
// never reaches: the declarations (ServiceKind::points, the lock steps) say what the models do.
// The database client's points are not declared per design and are never refused.
TEST(FaultPoints, AServiceOrLockPointIsRefusedExactlyWhenNoSaleOfTheDesignReachesIt) {
  for (const protocols::Design* d : protocols::designs()) {
    for (int replicas : {0, 1}) {
      Scenario s;
      s.design = d->name;
      s.workload.redis_replicas = replicas;
      s.workload.unpaid = sim::Ratio::always();  // a sale of a lifecycle design that cancels (before_compensate)
      const protocols::Probe probe = protocols::probe(s);
      for (const protocols::FaultPoint& p : protocols::fault_point_table()) {
        const auto it = probe.open_points.find(p.name);
        const bool reached = it != probe.open_points.end() && it->second > 0;
        const std::optional<std::string> refused = protocols::point_unreachable(p.name, "", *d, s.workload);
        if (p.service.empty()) {
          EXPECT_FALSE(refused) << d->name << " " << p.name << ": " << *refused;
          continue;
        }
        EXPECT_EQ(reached, !refused) << d->name << " with " << replicas << " replica(s), " << p.name << ": " << refused.value_or("not refused");
      }
    }
  }
  // Refused before the run, naming what marks the point and what the design builds.
  Scenario db = with_plan("db_conditional_update", "on during_acquire pause here for 1s");
  EXPECT_EQ(protocols::scenario_problem(db, *protocols::find_design("db_conditional_update")),
            std::optional<std::string>("fault 'on during_acquire pause here for 1s' waits on during_acquire, which only the RedLock client marks (the "
                                       "redlock service); db_conditional_update builds no redlock service (it uses the database only): the fault would "
                                       "never happen"));
  Scenario typo = with_plan("redis_lock_conditional", "on befor_commit crash here");
  EXPECT_NE(protocols::scenario_problem(typo, *protocols::find_design("redis_lock_conditional")).value_or("").find("unknown fault point 'befor_commit' (did you mean before_commit? "),
            std::string::npos);
  EXPECT_EQ(protocols::closest_fault_point("lunch"), std::nullopt);
}

}  // namespace
}  // namespace oversim
