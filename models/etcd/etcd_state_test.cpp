// EtcdState and Lessor alone: the revision and version rules of etcd's MVCC store, the Txn the
// concurrency package's Mutex sends, leases and their keys, and the leader's lease clock.
#include <gtest/gtest.h>

#include "models/etcd/etcd_state.h"

namespace oversim::etcd {
namespace {
using namespace sim::literals;

sim::Instant at(sim::Duration d) { return sim::Instant::zero() + d; }

// One revision per change: a put, a second put, a delete; reads and deletes of nothing leave it.
// A re-created key starts again at version 1 with a new create_revision.
TEST(EtcdState, RevisionsAndVersionsFollowTheMvccRules) {
  EtcdState s;
  EXPECT_EQ(s.revision(), 1);
  EXPECT_EQ(s.put("a", "1").revision, 2);
  EXPECT_EQ(s.put("a", "2").revision, 3);
  KeyValue a = *s.get("a");
  EXPECT_EQ(a.create_revision, 2);
  EXPECT_EQ(a.mod_revision, 3);
  EXPECT_EQ(a.version, 2);
  EXPECT_EQ(s.range(Range{"a"}).revision, 3);
  EXPECT_EQ(s.remove("zz").revision, 3);  // nothing deleted
  EXPECT_EQ(s.remove("a").revision, 4);
  EXPECT_FALSE(s.get("a"));
  s.put("a", "3");
  a = *s.get("a");
  EXPECT_EQ(a.create_revision, 5);
  EXPECT_EQ(a.version, 1);
  // Events in order, a watch from a revision gets it and every later one.
  const std::vector<Event> from3 = s.events_since(3, "a");
  ASSERT_EQ(from3.size(), 3u);
  EXPECT_EQ(from3[0].kv.mod_revision, 3);
  EXPECT_EQ(from3[1].type, Event::Type::remove);
  EXPECT_EQ(from3[1].kv.mod_revision, 4);
  EXPECT_EQ(from3[2].kv.create_revision, 5);
}

// The Mutex's Txn: If CreateRevision(myKey) == 0 Then Put(myKey, lease) Else Get(myKey), and
// both branches read the owner (the prefix's oldest key). A second session's key is newer; it
// waits for the newest key created before its own (WithMaxCreateRev(myRev - 1)).
TEST(EtcdState, TheMutexTxnMakesOneKeyPerSessionOrderedByCreateRevision) {
  EtcdState s;
  ASSERT_TRUE(s.grant(0x10, 2_s));
  ASSERT_TRUE(s.grant(0x20, 2_s));
  const Range owner{"lock/", true, Range::Sort::create_ascending, 1, 0};
  auto lock = [&](int64_t lease, const std::string& key) {
    return s.txn(Txn{{Compare{key, Compare::Target::create_revision, Compare::Result::equal, 0, ""}}, {Put{key, "", lease}, owner}, {Range{key}, owner}});
  };
  const TxnResult a = lock(0x10, "lock/10");
  ASSERT_TRUE(a.succeeded);
  EXPECT_EQ(a.revision, 2);
  EXPECT_EQ(a.responses.at(1).kvs.at(0).key, "lock/10");  // the owner: itself
  const TxnResult b = lock(0x20, "lock/20");
  EXPECT_EQ(b.revision, 3);
  EXPECT_EQ(b.responses.at(1).kvs.at(0).key, "lock/10");  // not the owner: wait
  const TxnResult before = s.range(Range{"lock/", true, Range::Sort::create_descending, 1, 3 - 1});
  EXPECT_EQ(before.responses.at(0).kvs.at(0).key, "lock/10");
  // The same session again: the Else branch, its own key, no new revision.
  const TxnResult again = lock(0x10, "lock/10");
  EXPECT_FALSE(again.succeeded);
  EXPECT_EQ(again.revision, 3);
  EXPECT_EQ(again.responses.at(0).kvs.at(0).create_revision, 2);
  // IsOwner as a guard: CreateRevision(lock/10) == 2 holds while it exists.
  const Compare owns{"lock/10", Compare::Target::create_revision, Compare::Result::equal, 2, ""};
  EXPECT_TRUE(s.txn(Txn{{owns}, {Put{"stock", "4"}}, {}}).succeeded);
  // The holder's lease is revoked: its key goes in one revision, and the guard fails.
  ASSERT_TRUE(s.revoke(0x10));
  EXPECT_EQ(s.revision(), 5);
  EXPECT_FALSE(s.get("lock/10"));
  EXPECT_FALSE(s.txn(Txn{{owns}, {Put{"stock", "3"}}, {}}).succeeded);
  EXPECT_EQ(s.get("stock")->value, "4");
  // A DELETE event for the waiter's watch.
  const std::vector<Event> seen = s.events_since(3, "lock/10");
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].type, Event::Type::remove);
}

// A Put on a lease that is gone fails the whole Txn, changing nothing (a session whose lease
// expired cannot make its lock key).
TEST(EtcdState, APutOnALeaseThatIsGoneFailsTheWholeTxn) {
  EtcdState s;
  const TxnResult r = s.txn(Txn{{}, {Put{"x", "1"}, Put{"lock/1", "", 0x1}}, {}});
  EXPECT_EQ(r.error, TxnResult::Error::lease_not_found);
  EXPECT_FALSE(s.get("x"));
  EXPECT_EQ(s.revision(), 1);
  // A value compare on a missing key is false whatever it asks.
  EXPECT_FALSE(s.txn(Txn{{Compare{"nope", Compare::Target::value, Compare::Result::not_equal, 0, "v"}}, {}, {}}).succeeded);
  EXPECT_FALSE(s.grant(0, 1_s));
  ASSERT_TRUE(s.grant(7, 1_s));
  EXPECT_FALSE(s.grant(7, 1_s));
  EXPECT_FALSE(s.revoke(8));
}

// A key moved to another lease leaves the first: revoking the first does not delete it.
TEST(EtcdState, AKeyBelongsToTheLeaseItWasLastPutWith) {
  EtcdState s;
  s.grant(1, 5_s);
  s.grant(2, 5_s);
  s.put("k", "a", 1);
  s.put("k", "b", 2);
  EXPECT_TRUE(s.keys_of(1).empty());
  EXPECT_EQ(s.keys_of(2), std::vector<std::string>{"k"});
  s.revoke(1);
  EXPECT_TRUE(s.get("k"));
  s.revoke(2);
  EXPECT_FALSE(s.get("k"));
}

// The leader expires a lease TTL after its grant or last renewal; a follower never does; a new
// leader gives every lease its full TTL again, plus the election timeout, from its first entry.
TEST(Lessor, OnlyTheLeaderExpiresAndANewLeaderRestartsEveryLeasesFullTtl) {
  Lessor leader;
  leader.promote(at(0_s), 1_s);
  leader.grant(1, 2_s, at(0_s));
  EXPECT_TRUE(leader.expired(at(1999_ms)).empty());
  ASSERT_TRUE(leader.renew(1, at(1500_ms)));
  EXPECT_TRUE(leader.expired(at(3499_ms)).empty());
  EXPECT_EQ(leader.expired(at(3500_ms)), std::vector<int64_t>{1});
  EXPECT_TRUE(leader.expired(at(4_s)).empty());  // named once; the revoke is on its way
  EXPECT_FALSE(leader.renew(1, at(3600_ms)));    // too late

  Lessor follower;
  follower.grant(2, 2_s, at(0_s));
  EXPECT_TRUE(follower.expired(at(100_s)).empty());
  EXPECT_FALSE(follower.renew(2, at(1_s)));

  // The holder's last keepalive was at 1s (expiry 3s). Leadership moves at 2.5s: the new leader
  // applies its first entry at 2.8s and the lease now ends at 2.8 + 1 + 2 = 5.8s, not 3s.
  Lessor next;
  next.grant(3, 2_s, at(0_s));
  next.promote(at(2800_ms), 1_s);
  EXPECT_EQ(next.expiry(3), at(5800_ms));
  EXPECT_TRUE(next.expired(at(5799_ms)).empty());
  EXPECT_EQ(next.expired(at(5800_ms)), std::vector<int64_t>{3});
  next.demote();
  EXPECT_FALSE(next.expiry(3));
}

}  // namespace
}  // namespace oversim::etcd
