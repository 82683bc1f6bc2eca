// etcd model stories: the cluster's Raft (commit on a quorum, a leader crash and its election),
// the lessor across a leader change, the client's keepalive, and concurrency.Mutex with its known
// failures (a holder paused past its lease, a retried Unlock deleting a newer key). The network
// has a fixed 1ms one-way latency, so times are exact up to the members' ticks.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/etcd/etcd_cluster.h"
#include "models/etcd/etcd_mutex.h"
#include "sim/network.h"
#include "sim/sync.h"

namespace oversim::etcd {
namespace {
using namespace sim::literals;

struct Sale {
  sim::World w;
  std::vector<sim::Node*> apps;
  std::unique_ptr<EtcdCluster> etcd;
  explicit Sale(uint32_t members = 3, int app_count = 2) : w(sim::WorldConfig{.seed = 7}) {
    w.network().config().latency = sim::LatencyModel{1_ms, 1_ms, sim::Ratio::never(), 1_ms, std::nullopt};
    ClusterConfig c;
    c.members = members;
    for (int i = 1; i <= app_count; ++i) {
      apps.push_back(&w.add_node(fmt::format("app-{}", i)));
      c.clients.push_back(apps.back()->name());
    }
    etcd = std::make_unique<EtcdCluster>(w, c);
  }
  EtcdClient& client(size_t i) { return *etcd->client(apps.at(i)->name()); }
  sim::Node& node(const std::string& n) { return w.node(n); }
  bool has(size_t member, const std::string& key) const { return etcd->member(member).state().get(key).has_value(); }
};

Txn put(const std::string& key, const std::string& value, int64_t lease = 0) { return Txn{{}, {Put{key, value, lease}}, {}}; }
Txn get(const std::string& key) { return Txn{{}, {Range{key, false, Range::Sort::key, 0, 0}}, {}}; }

TEST(EtcdCluster, TheFirstMemberLeadsAndWritesCommitOnAQuorumThroughAFollower) {
  Sale s;
  CallResult direct, relayed, read;
  s.w.spawn(s.apps[0], "client", [&] { direct = s.client(0).txn(put("a", "1"), s.w.now() + 1_s); });
  s.w.spawn(s.apps[1], "client", [&] {
    sim::sleep_for(50_ms);
    relayed = s.client(1).txn(put("b", "2"), s.w.now() + 1_s);  // app-2 is pinned to etcd-2, a follower
    read = s.client(1).txn(get("a"), s.w.now() + 1_s);
  });
  s.w.spawn(nullptr, "stop", [&] { sim::sleep_for(1_s); }, false);
  s.w.run();
  EXPECT_EQ(s.etcd->leader(), "etcd-1");
  ASSERT_TRUE(direct.ok());
  ASSERT_TRUE(relayed.ok());
  EXPECT_EQ(direct.reply.revision, 2);
  EXPECT_EQ(relayed.reply.revision, 3);
  ASSERT_TRUE(read.ok());
  ASSERT_EQ(read.reply.txn.responses.at(0).kvs.size(), 1u);
  EXPECT_EQ(read.reply.txn.responses.at(0).kvs[0].value, "1");
  for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(s.has(i, "a") && s.has(i, "b")) << i;
}

// The leader dies: the followers hear nothing for their election timeout (10 ticks plus the
// member's index: etcd-2 waits 11, etcd-3 12), etcd-2 asks first and wins term 2, with
// everything committed before.
TEST(EtcdCluster, ALeaderCrashElectsTheFollowerWhoseTimeoutEndsFirst) {
  Sale s;
  CallResult before, after;
  s.w.spawn(s.apps[1], "client", [&] {
    before = s.client(1).txn(put("a", "1"), s.w.now() + 1_s);
    s.w.crash(s.node("etcd-1"));
    sim::sleep_for(2_s);
    after = s.client(1).txn(put("b", "2"), s.w.now() + 1_s);
    sim::sleep_for(300_ms);  // the followers learn the commit with the next heartbeat
  });
  s.w.run();
  ASSERT_TRUE(before.ok());
  ASSERT_TRUE(after.ok()) << to_string(after.reply.code);
  EXPECT_EQ(s.etcd->leader(), "etcd-2");
  EXPECT_EQ(s.etcd->elections(), (std::vector<std::string>{"etcd-2 leads term 2"}));
  EXPECT_TRUE(s.has(2, "a") && s.has(2, "b"));
}

// A member cut off from the others steps down (CheckQuorum) and answers "no leader"; the
// majority elects a leader of its own and goes on. A write to the cut-off member is not applied.
TEST(EtcdCluster, ALeaderCutOffFromTheMajorityStepsDownAndTheMajorityGoesOn) {
  Sale s;
  CallResult cut_write, majority_write;
  s.w.spawn(s.apps[0], "client", [&] {
    s.w.network().partition({s.node("etcd-1").id(), s.apps[0]->id()}, {s.node("etcd-2").id(), s.node("etcd-3").id(), s.apps[1]->id()});
    sim::sleep_for(2500_ms);
    cut_write = s.client(0).txn(put("x", "cut"), s.w.now() + 300_ms);
  });
  s.w.spawn(s.apps[1], "client", [&] {
    sim::sleep_for(2500_ms);
    majority_write = s.client(1).txn(put("y", "ok"), s.w.now() + 1_s);
  });
  s.w.run();
  EXPECT_EQ(cut_write.status, CallResult::Status::not_applied);
  ASSERT_TRUE(majority_write.ok()) << to_string(majority_write.reply.code);
  EXPECT_FALSE(s.has(0, "x"));
  EXPECT_FALSE(s.has(1, "x"));
  EXPECT_NE(s.etcd->member(0).role(), Role::leader);
}

// A session's lease outlives a crashed holder by a leader change: the new leader, when it applies
// its term's first entry, gives every lease the election timeout plus its full TTL (etcd #9888).
// The holder's process dies at 0.1s, the leader at 1s. Without the change the key would go at the
// leader's first lessor tick at or after 0.1s + 2s; with it, at the new leader's first tick at or
// after (its election) + 1s + 2s. The test predicts that time from the election it observes.
TEST(EtcdLease, ALeaderChangeKeepsACrashedHoldersKeyPastItsExpiry) {
  Sale s;
  std::optional<Session> session;
  Instant granted, gone;
  std::string key;
  s.w.spawn(s.apps[0], "holder", [&] {
    session = Session::open(s.client(0), 2_s, s.w.now() + 1_s);
    ASSERT_TRUE(session);
    granted = s.w.now();
    Mutex m(*session, "/locks/sku1");
    ASSERT_EQ(m.lock(s.w.now() + 1_s), Mutex::LockResult::held);
    key = m.key();
  });
  s.w.spawn(nullptr, "faults", [&] {
    sim::sleep_for(100_ms);
    s.w.crash(*s.apps[0]);
    sim::sleep_for(900_ms);
    s.w.crash(s.node("etcd-1"));
  }, false);
  s.w.spawn(s.apps[1], "observer", [&] {
    sim::sleep_for(200_ms);
    for (;;) {
      CallResult r = s.client(1).txn(get(key), s.w.now() + 1_s);
      if (r.ok() && r.reply.txn.responses.at(0).kvs.empty()) break;
      sim::sleep_for(20_ms);
    }
    gone = s.w.now();
  });
  s.w.run();
  ASSERT_EQ(s.etcd->elections().size(), 1u);
  const std::string& why = s.etcd->member(1).expiries().at(0);
  SCOPED_TRACE(why);
  const Duration lived = gone - granted;
  // etcd-2 hears nothing after 1s and stands after 11 ticks: its term begins about 2.1s. Its
  // lessor then looks every 500ms: the key goes between 2.1 + 1 + 2 and 0.5s later.
  EXPECT_GE(lived, 5_s);
  EXPECT_LE(lived, 5700_ms);
  EXPECT_GT(lived, 2500_ms + 2_s);  // well past the lease the holder was granted
}

// Mutual exclusion fails for a holder paused past its lease: the process stops (a GC pause), its
// keepalives stop, the leader expires the lease and deletes the key, the next waiter holds the
// lock, and the paused holder resumes believing it holds it (concurrency.Mutex has no fence).
TEST(EtcdMutex, AHolderPausedPastItsLeaseOverlapsWithTheNextHolder) {
  Sale s;
  Instant a_held, b_held, a_resumed;
  s.w.spawn(s.apps[0], "a", [&] {
    std::optional<Session> session = Session::open(s.client(0), 2_s, s.w.now() + 1_s);
    ASSERT_TRUE(session);
    Mutex m(*session, "/locks/sku1");
    ASSERT_EQ(m.lock(s.w.now() + 1_s), Mutex::LockResult::held);
    a_held = s.w.now();
    sim::sleep_for(200_ms);  // the pause lands at 100ms and holds this fiber until 4s
    a_resumed = s.w.now();
    // Its key is gone from the store; the process does not know (nothing checks before a write).
    EXPECT_FALSE(s.etcd->member(0).state().get(m.key()).has_value());
  });
  s.w.spawn(s.apps[1], "b", [&] {
    sim::sleep_for(50_ms);
    std::optional<Session> session = Session::open(s.client(1), 2_s, s.w.now() + 1_s);
    ASSERT_TRUE(session);
    Mutex m(*session, "/locks/sku1");
    ASSERT_EQ(m.lock(s.w.now() + 10_s), Mutex::LockResult::held);
    b_held = s.w.now();
  });
  s.w.spawn(nullptr, "gc-pause", [&] {
    sim::sleep_for(100_ms);
    s.w.pause(*s.apps[0]);
    sim::sleep_for(3900_ms);
    s.w.resume(*s.apps[0]);
  }, false);
  s.w.run();
  ASSERT_GT(b_held, a_held);
  EXPECT_LT(b_held, a_resumed);  // the overlap
  EXPECT_GE(b_held - a_held, 2_s);
  EXPECT_LE(b_held - a_held, 2700_ms);
}

// etcd #22082: Unlock's Delete commits but its answer is lost; the process's next buyer locks with
// the same session (the same key name, a new create_revision); the first buyer's retried Unlock,
// a plain Delete, removes the second buyer's key, and a buyer of another process takes the lock
// while the second still holds it. Guarded by create_revision (PR #22115's IsOwner), the retry
// deletes nothing.
struct RetryStory {
  bool second_key_survived = false;
  bool other_process_got_it_while_held = false;
};
RetryStory retried_unlock(bool guarded) {
  Sale s;
  RetryStory story;
  bool second_holds = false;
  s.w.spawn(s.apps[0], "process-1", [&] {
    std::optional<Session> session = Session::open(s.client(0), 5_s, s.w.now() + 1_s);
    ASSERT_TRUE(session);
    Mutex first(*session, "/locks/sku1");
    ASSERT_EQ(first.lock(s.w.now() + 1_s), Mutex::LockResult::held);
    const int64_t first_rev = first.revision();
    const std::string key = first.key();
    // The Delete reaches etcd-1 and commits; its answer does not come back.
    s.w.network().cut(s.node("etcd-1").id(), s.apps[0]->id());
    EXPECT_FALSE(first.unlock(s.w.now() + 100_ms));
    s.w.network().heal();
    Mutex second(*session, "/locks/sku1");
    ASSERT_EQ(second.lock(s.w.now() + 1_s), Mutex::LockResult::held);
    second_holds = true;
    if (guarded) {
      // Delete only the key this holder made: If CreateRevision(key) == myRev Then Delete.
      Txn t;
      t.compare = {Compare{key, Compare::Target::create_revision, Compare::Result::equal, first_rev, ""}};
      t.success = {DeleteRange{key, false}};
      ASSERT_TRUE(s.client(0).txn(t, s.w.now() + 1_s).ok());
    } else {
      EXPECT_TRUE(first.unlock(s.w.now() + 1_s));  // the retry
    }
    sim::sleep_for(500_ms);
    story.second_key_survived = s.etcd->member(0).state().get(key).has_value();
    second_holds = false;
  });
  s.w.spawn(s.apps[1], "process-2", [&] {
    sim::sleep_for(300_ms);
    std::optional<Session> session = Session::open(s.client(1), 5_s, s.w.now() + 1_s);
    ASSERT_TRUE(session);
    Mutex m(*session, "/locks/sku1");
    if (m.lock(s.w.now() + 350_ms) == Mutex::LockResult::held) story.other_process_got_it_while_held = second_holds;
  });
  s.w.spawn(nullptr, "stop", [&] { sim::sleep_for(3_s); }, false);
  s.w.run();
  return story;
}

TEST(EtcdMutex, ARetriedUnlockDeletesTheSameSessionsNewerKeyAndTheCreateRevisionGuardDoesNot) {
  const RetryStory plain = retried_unlock(false);
  EXPECT_FALSE(plain.second_key_survived);
  EXPECT_TRUE(plain.other_process_got_it_while_held);
  const RetryStory guarded = retried_unlock(true);
  EXPECT_TRUE(guarded.second_key_survived);
  EXPECT_FALSE(guarded.other_process_got_it_while_held);
}

}  // namespace
}  // namespace oversim::etcd
