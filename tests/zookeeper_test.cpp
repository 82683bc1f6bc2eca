// ZooKeeper stories at the scale of a sale: a holder cut off from the ensemble, a leader
// election in the middle of a critical section, and the herd. Each story replays from the
// command in its comment (printed by `oversim run`).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "properties/checker.h"
#include "protocols/registry.h"

namespace oversim {
namespace {
using namespace sim::literals;
using properties::RunResult;
using protocols::Scenario;

Scenario sale(const std::string& design, const char* faults) {
  Scenario s;
  s.design = design;
  s.seed = 1;
  s.faults = sim::FaultPlan::parse(faults);
  s.workload.buyers = 2;
  s.workload.stock = 1;
  s.workload.app_nodes = 2;
  s.workload.lock_wait = 10_s;
  s.workload.gateway_timeout = 15_s;
  return s;
}

// The first event of `kind` on `node` ("" for any) with a field `key` that starts with `value`.
std::optional<sim::Instant> first(const RunResult& r, const std::string& kind, const std::string& node, const std::string& key, const std::string& value) {
  for (const auto& e : r.events) {
    if (e.kind != kind || (!node.empty() && e.node != node)) continue;
    for (const auto& f : e.fields) {
      if (f.key == key && f.value.rfind(value, 0) == 0) return e.at;
    }
  }
  return std::nullopt;
}
std::string holder_app(const RunResult& r) {
  for (const auto& e : r.events) {
    if (e.kind == "lock-held") return e.node;
  }
  return "";
}
int64_t counter(const RunResult& r, const std::string& name) {
  auto it = r.counters.find(name);
  return it == r.counters.end() ? 0 : it->second;
}

constexpr const char* kCutOff = "on after_acquire partition here | zk-1,zk-2,zk-3; on after_acquire after 3s heal";

// The first buyer to take the lock is cut off from every server right after it took it. The
// leader expires its session one session timeout (--lock-ttl 500ms, rounded up to its next
// 100ms tick) after it last heard it, deletes its lock node, and the waiter takes the lock. The
// holder's client went SUSPENDED at two thirds of the timeout and says LOST only once SUSPENDED
// has lasted a whole timeout. Between expiry and LOST two buyers hold the lock; a 750ms critical
// section ends in that window, so read-then-write oversells (with or without a listener for
// LOST), and the conditional and fenced writes do not.
// oversim run --variant zk_lock_read_modify_write --seed 1 --buyers 2 --stock 1 --remote-call 750ms --lock-wait 10s
//   --gateway-timeout 15s --faults 'on after_acquire partition here | zk-1,zk-2,zk-3; on after_acquire after 3s heal'
TEST(ZooKeeperStories, ACutOffHolderOverlapsItsSuccessorBetweenExpiryOnTheLeaderAndLostOnItsClient) {
  for (const char* design : {"zk_lock_read_modify_write", "zk_lock_stops_on_lost", "zk_lock_conditional", "zk_lock_fenced"}) {
    SCOPED_TRACE(design);
    Scenario s = sale(design, kCutOff);
    s.workload.remote_call = 750_ms;
    const RunResult r = properties::run_checked(s);
    const std::string app = holder_app(r);
    const auto cut = first(r, "fault", "", "fault", "on after_acquire partition here | zk-1,zk-2,zk-3");
    const auto suspended = first(r, "zk-client", app, "state", "SUSPENDED");
    const auto expired = first(r, "zk-session", "zk-3", "expired", "closeSession proposed");
    const auto lost = first(r, "zk-client", app, "state", "LOST");
    ASSERT_TRUE(cut && suspended && expired && lost);
    EXPECT_GE(*suspended - *cut, 330_ms);
    EXPECT_GE(*expired - *cut, 500_ms);
    EXPECT_LE(*expired - *cut, 620_ms);
    EXPECT_GE(*lost - *suspended, 500_ms);
    ASSERT_TRUE(r.result("lock_mutual_exclusion").violated);
    const sim::Instant overlap = r.result("lock_mutual_exclusion").violation->at;
    EXPECT_GT(overlap, *expired);
    EXPECT_LT(overlap, *lost);
    EXPECT_GT(counter(r, "zk.session-expired-while-held"), 0);
    const bool unsafe = std::string(design) == "zk_lock_read_modify_write" || std::string(design) == "zk_lock_stops_on_lost";
    EXPECT_EQ(r.result("no_oversell").violated, unsafe);
    EXPECT_EQ(r.orders, unsafe ? 2 : 1);
  }
}

// The same cut with a critical section longer than the window: the holder that listens for LOST
// stops before it writes (and undersells), the one that does not still oversells.
TEST(ZooKeeperStories, AHolderThatStopsOnLostIsSafeOnlyWhenLostComesBeforeItsWrite) {
  for (const char* design : {"zk_lock_read_modify_write", "zk_lock_stops_on_lost"}) {
    SCOPED_TRACE(design);
    Scenario s = sale(design, kCutOff);
    s.workload.remote_call = 2_s;
    const RunResult r = properties::run_checked(s);
    const bool stops = std::string(design) == "zk_lock_stops_on_lost";
    EXPECT_EQ(r.result("no_oversell").violated, !stops);
    EXPECT_EQ(counter(r, "zk.stopped-on-lost") > 0, stops);
    EXPECT_TRUE(r.result("lock_mutual_exclusion").violated);  // the overlap until LOST remains
  }
}

// The leader crashes right after the first buyer took the lock, in the middle of a 1.5s critical
// section. The followers stop hearing it, go LOOKING after syncLimit (5 ticks), and elect zk-2
// in epoch 2; clients reconnect and the new leader gives every session a fresh 5s timeout. No
// session expires, so the lock node survives the election: the second buyer waits the election
// out and takes the lock only after the first released it. Even read-then-write is safe.
// oversim run --variant zk_lock_read_modify_write --seed 1 --buyers 2 --stock 2 --remote-call 1500ms --lock-ttl 5s --lock-wait 10s
//   --gateway-timeout 15s --faults 'on after_acquire crash zk-3; on after_acquire after 3s restart zk-3'
TEST(ZooKeeperStories, ALeaderElectionDelaysButDoesNotBreakTheLockWhileNoSessionExpires) {
  for (const char* design : {"zk_lock_read_modify_write", "zk_lock_stops_on_lost", "zk_lock_conditional", "zk_lock_fenced", "zk_herd_lock"}) {
    SCOPED_TRACE(design);
    Scenario s = sale(design, "on after_acquire crash zk-3; on after_acquire after 3s restart zk-3");
    s.workload.stock = 2;
    s.workload.remote_call = 1500_ms;
    s.workload.lock_ttl = 5_s;
    const RunResult r = properties::run_checked(s);
    const auto crash = first(r, "fault", "", "fault", "on after_acquire crash zk-3");
    const auto elected = first(r, "zk-role", "zk-2", "established", "quorum synced");
    ASSERT_TRUE(crash && elected);
    EXPECT_LT(*elected - *crash, 1500_ms);  // inside the holder's critical section
    EXPECT_TRUE(r.result("failover_happened").reached);
    EXPECT_FALSE(first(r, "zk-session", "", "expired", "closeSession proposed").has_value());
    EXPECT_FALSE(r.result("lock_mutual_exclusion").violated);
    EXPECT_FALSE(r.result("no_oversell").violated);
    EXPECT_EQ(r.orders, 2);  // delayed, not lost
    EXPECT_FALSE(r.result("progress").violated);
  }
}

// N buyers queue for the lock. The recipe watches only the next lower node: each release wakes
// one waiter, and getChildren is called about twice per buyer. The herd watches the parent: each
// change of the children wakes every waiter, and each lists them again.
struct LockCost {
  int64_t get_children = 0, wakeups = 0, releases = 0, requests = 0;
};
LockCost cost(const char* design, int buyers) {
  Scenario s = sale(design, "");
  s.workload.buyers = buyers;
  s.workload.stock = buyers;
  s.workload.app_nodes = 2;
  s.keep_trace = false;
  const RunResult r = properties::run_checked(s);
  EXPECT_FALSE(r.result("lock_mutual_exclusion").violated) << design;
  EXPECT_EQ(r.orders, buyers) << design;
  return {counter(r, "zk.getChildren"), counter(r, "lock.wakeups"), counter(r, "lock.releases"), counter(r, "lock.requests")};
}

TEST(ZooKeeperStories, TheHerdListsTheChildrenQuadraticallyOftenAndTheRecipeLinearly) {
  for (int n : {10, 20, 40}) {
    SCOPED_TRACE(n);
    const LockCost recipe = cost("zk_lock_conditional", n), herd = cost("zk_herd_lock", n);
    EXPECT_LE(recipe.get_children, 2 * n + 2);
    EXPECT_LE(recipe.wakeups, recipe.releases);  // at most one waiter woken per release
    EXPECT_GE(herd.get_children, int64_t{n} * (n - 1) / 2);
    EXPECT_GE(herd.wakeups, int64_t{n} * (n - 1) / 4);
    fmt::print("{} buyers: recipe {} getChildren, {} requests, {} wake-ups for {} releases; herd {} getChildren, {} requests, {} wake-ups\n", n,
               recipe.get_children, recipe.requests, recipe.wakeups, recipe.releases, herd.get_children, herd.requests, herd.wakeups);
  }
  // Doubling the buyers doubles the recipe's calls and quadruples the herd's.
  const LockCost r20 = cost("zk_lock_conditional", 20), r40 = cost("zk_lock_conditional", 40);
  const LockCost h20 = cost("zk_herd_lock", 20), h40 = cost("zk_herd_lock", 40);
  EXPECT_LT(r40.get_children, 3 * r20.get_children);
  EXPECT_GT(h40.get_children, 3 * h20.get_children);
}

// Curator's acquire(0) still creates its node and lists the children: a free lock is taken, and
// only a buyer who would have to wait gives up (its node deleted at once, so it blocks nobody).
// The model once gave up before creating the node, and a lone buyer never bought.
// oversim run --variant zk_lock_conditional --seed 1 --buyers 1 --stock 1 --lock-wait 0
TEST(ZooKeeperStories, NoWaitTakesAFreeLockAndGivesUpOnlyWhenItWouldWait) {
  for (const char* design : {"zk_lock_conditional", "zk_lock_fenced", "zk_herd_lock"}) {
    SCOPED_TRACE(design);
    Scenario alone = sale(design, "");
    alone.workload.buyers = 1;
    alone.workload.lock_wait = sim::Duration::zero();
    const RunResult one = properties::run_checked(alone);
    EXPECT_EQ(one.orders, 1);
    EXPECT_EQ(counter(one, "lock.gave-up"), 0);

    // Two buyers at once, a 300ms call, one click each: one buys, the other is told busy.
    Scenario both = alone;
    both.workload.buyers = 2;
    both.workload.patience = sim::Duration::zero();
    both.workload.remote_call = 300_ms;
    both.workload.remote_call_high = 300_ms;
    const RunResult two = properties::run_checked(both);
    EXPECT_EQ(two.orders, 1);
    EXPECT_EQ(counter(two, "lock.gave-up"), 1);
    EXPECT_FALSE(two.result("lock_mutual_exclusion").violated);
  }
}

// A buyer that gives up at once (--lock-wait 0) just as the leader crashes loses the answer to its
// create, and the create commits under the new leader: an ephemeral node of a live session, below
// every later waiter, forever. Curator's protected mode finds that node by its guid and deletes it
// in the background (FindAndDeleteProtectedNodeInBackground). The model once returned without it:
// 1 of 5 units sold in this run, every later buyer told busy for the whole sale.
// oversim run --variant zk_lock_conditional --seed 1 --buyers 20 --stock 5 --lock-wait 0 --faults
//   'on 4th after_acquire crash zk-3; on 4th after_acquire after 3s restart zk-3; on after_acquire
//   crash zk-3; on after_acquire after 3s restart zk-3' --remote-call 1500ms --lock-ttl 5s --gateway-timeout 15s
TEST(ZooKeeperStories, ABuyerThatGivesUpAfterALostCreateLeavesNoNodeBehind) {
  Scenario s = sale("zk_lock_conditional",
                    "on 4th after_acquire crash zk-3; on 4th after_acquire after 3s restart zk-3; on after_acquire crash zk-3; "
                    "on after_acquire after 3s restart zk-3");
  s.workload.buyers = 20;
  s.workload.stock = 5;
  s.workload.lock_wait = sim::Duration::zero();
  s.workload.remote_call = 1500_ms;
  s.workload.remote_call_high = 1500_ms;
  s.workload.lock_ttl = 5_s;
  s.workload.gateway_timeout = 15_s;
  const RunResult r = properties::run_checked(s);
  EXPECT_GT(counter(r, "zk.lost-create-cleaned"), 0) << "no create lost its answer: the story tested nothing";
  EXPECT_EQ(r.orders, 5);
  EXPECT_FALSE(r.result("progress").violated);
  EXPECT_FALSE(r.result("lock_mutual_exclusion").violated);
}


// The leader crashes as the lone buyer makes the lock's parent: the create of the parent and the
// create of its node that follows both lose their answers. Protected mode then lists the
// children to find the node the lost create may have made, and the parent is not there (NoNode).
// Curator takes NoNode for "nothing of ours" (findProtectedNodeInForeground) and creates again,
// parent first, once the new leader serves. The model once took it for a failed look and listed
// the missing parent again and again until the lock's wait ran out: 1,662 requests, no create,
// the unit unsold.
// oversim run --variant zk_lock_conditional --seed 1 --buyers 1 --stock 1 --lock-wait 10s --gateway-timeout 15s
//   --faults 'at 2500us crash zk-3'
TEST(ZooKeeperStories, ALeaderCrashThatLosesTheFirstCreateStillLetsALoneBuyerBuy) {
  for (const char* design : {"zk_lock_conditional", "zk_lock_fenced", "zk_herd_lock"}) {
    SCOPED_TRACE(design);
    Scenario s = sale(design, "at 2500us crash zk-3");
    s.workload.buyers = 1;
    const RunResult r = properties::run_checked(s);
    EXPECT_GT(counter(r, "zk.lost-create"), 0) << "no create lost its answer: the story tested nothing";
    const auto elected = first(r, "zk-role", "", "established", "quorum synced");
    const auto held = first(r, "lock-held", "", "buyer", "r1#1");
    ASSERT_TRUE(elected && held);
    EXPECT_GT(*held, *elected);  // the node was made under the new leader
    EXPECT_EQ(r.orders, 1);
    EXPECT_EQ(counter(r, "lock.gave-up"), 0);
    EXPECT_LE(counter(r, "lock.requests"), 12);  // a handful, not a spin
    EXPECT_FALSE(r.result("progress").violated);
  }
}

// A waiter's process pauses for twice its session timeout while another buyer holds the lock
// for 1.5s: the leader expires the waiter's session and deletes its node. When it resumes, its
// client learns the session is gone (LOST) and opens a new one; Curator's next look finds the
// node missing from the children (NoNode from validateOurIndex), and attemptLock creates a new
// node and waits again. The model once gave up at once (told busy) with 8.5s of its wait left.
// oversim run --variant zk_lock_conditional --seed 1 --buyers 2 --stock 2 --remote-call 1500ms --lock-wait 10s
//   --gateway-timeout 15s --faults 'at 100ms pause app-2 for 1s'
TEST(ZooKeeperStories, AWaiterWhoseNodeWentWithItsSessionCreatesANewNodeAndWaitsAgain) {
  for (const char* design : {"zk_lock_conditional", "zk_lock_fenced", "zk_herd_lock"}) {
    SCOPED_TRACE(design);
    Scenario s = sale(design, "at 100ms pause app-2 for 1s");
    s.workload.stock = 2;
    s.workload.remote_call = 1500_ms;
    s.workload.remote_call_high = 1500_ms;
    const RunResult r = properties::run_checked(s);
    const auto expired = first(r, "zk-session", "", "expired", "closeSession proposed");
    const auto lost = first(r, "zk-client", "app-2", "state", "LOST");
    ASSERT_TRUE(expired && lost) << "the waiter's session did not expire: the story tested nothing";
    EXPECT_EQ(counter(r, "zk.lock-node-gone"), 1);
    EXPECT_EQ(counter(r, "lock.gave-up"), 0);
    EXPECT_EQ(r.orders, 2);
    EXPECT_FALSE(r.result("lock_mutual_exclusion").violated);
  }
}

}  // namespace
}  // namespace oversim
