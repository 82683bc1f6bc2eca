#include "models/mq/mq_state.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace oversim::mq {
namespace {

const Instant t0 = Instant::zero();
Instant at_ms(int64_t ms) { return t0 + Duration::ms(ms); }

TEST(MqState, OneKeyStaysInOnePartitionInOrder) {
  MqState q(4);
  const uint32_t p = q.partition_of("sku1");
  EXPECT_EQ(q.append("sku1", "a").partition, p);
  EXPECT_EQ(q.append("sku1", "b").offset, 1u);
  ASSERT_EQ(q.log(p).size(), 2u);
  EXPECT_EQ(q.log(p)[0].value, "a");
  EXPECT_EQ(q.log(p)[1].value, "b");
  // FNV-1a: the same partition on every platform (the golden runs depend on it).
  EXPECT_EQ(MqState(16).partition_of("sku1"), MqState(16).partition_of(std::string("sku") + "1"));
}

TEST(MqState, MembersSharePartitionsAndReadFromTheCommittedOffset) {
  MqState q(2);
  const Assignment a = q.join("g", "app-1", t0);
  EXPECT_EQ(a.partitions, (std::vector<uint32_t>{0, 1}));
  const Assignment b = q.join("g", "app-2", t0);
  EXPECT_EQ(b.generation, a.generation + 1);
  EXPECT_EQ(b.partitions, (std::vector<uint32_t>{1}));
  EXPECT_EQ(q.owner("g", 0), "app-1");
  EXPECT_EQ(q.owner("g", 1), "app-2");

  // app-1 hears of the second generation at its next poll; until then nobody reads.
  EXPECT_EQ(q.poll("g", "app-1", a.generation, at_ms(1), 10).assignment.generation, b.generation);
  q.append("k", "x");
  const uint32_t p = q.partition_of("k");
  const std::string owner = q.owner("g", p);
  const PollResult r = q.poll("g", owner, b.generation, at_ms(1), 10);
  ASSERT_EQ(r.records.size(), 1u);
  EXPECT_EQ(r.records[0].value, "x");
  // Read, not committed: the next poll does not read it again, but a rebalance does.
  EXPECT_TRUE(q.poll("g", owner, b.generation, at_ms(2), 10).records.empty());
  const Assignment c = q.join("g", "app-3", at_ms(3));
  q.poll("g", "app-1", b.generation, at_ms(3), 10);
  q.poll("g", "app-2", b.generation, at_ms(3), 10);
  const std::string next = q.owner("g", p);
  EXPECT_EQ(q.generation("g"), c.generation);
  const PollResult again = q.poll("g", next, q.generation("g"), at_ms(4), 10);
  ASSERT_EQ(again.records.size(), 1u);
  EXPECT_EQ(again.records[0].offset, 0u);
  EXPECT_EQ(q.commit("g", next, q.generation("g"), p, 1), CommitStatus::ok);
  EXPECT_EQ(q.committed("g", p), 1u);
}

// max.poll.interval.ms: a member that stops polling leaves; the new owner is given the record
// the stalled one read and never committed, and the stalled one's commit is refused.
TEST(MqState, AStalledMemberLosesItsPartitionAndItsRecordIsDeliveredAgain) {
  MqState q(1);
  q.join("g", "app-1", t0);
  const Assignment two = q.join("g", "app-2", t0);
  ASSERT_EQ(q.owner("g", 0), "app-1");
  q.append("sku1", "order-1");
  const PollResult first = q.poll("g", "app-1", two.generation, at_ms(10), 1);
  ASSERT_EQ(first.records.size(), 1u);
  q.poll("g", "app-2", two.generation, at_ms(900), 1);  // app-2 keeps polling; app-1 is busy
  EXPECT_EQ(q.expire(at_ms(1100), Duration::s(1)), std::vector<std::string>{"app-1"});
  EXPECT_EQ(q.owner("g", 0), "app-2");
  const PollResult second = q.poll("g", "app-2", q.generation("g"), at_ms(1101), 1);
  ASSERT_EQ(second.records.size(), 1u);
  EXPECT_EQ(second.records[0], first.records[0]);
  EXPECT_EQ(q.commit("g", "app-1", two.generation, 0, 1), CommitStatus::unknown_member);
  EXPECT_FALSE(q.poll("g", "app-1", two.generation, at_ms(1200), 1).member);
  // A member on an old generation gets its new assignment before any record.
  const Assignment back = q.join("g", "app-1", at_ms(1300));
  const PollResult stale = q.poll("g", "app-2", second.assignment.generation, at_ms(1301), 1);
  EXPECT_TRUE(stale.member);
  EXPECT_TRUE(stale.records.empty());
  EXPECT_EQ(stale.assignment.generation, back.generation);
  EXPECT_EQ(q.commit("g", "app-2", second.assignment.generation, 0, 1), CommitStatus::stale_generation);
}

// Kafka's eager rebalance: a member that joins while another works on a record waits until
// that member has polled again (finished its record), so the record is never in two hands.
TEST(MqState, AJoinWaitsForTheMembersAtWorkBeforeAnyoneReads) {
  MqState q(1);
  const Assignment a = q.join("g", "app-1", t0);
  q.append("k", "r0");
  q.append("k", "r1");
  ASSERT_EQ(q.poll("g", "app-1", a.generation, at_ms(1), 1).records.size(), 1u);  // app-1 works on r0
  const Assignment b = q.join("g", "app-2", at_ms(2));
  // Round robin in name order keeps the partition with app-1, but nobody reads until app-1 polls.
  EXPECT_TRUE(q.poll("g", "app-2", b.generation, at_ms(3), 1).records.empty());
  EXPECT_EQ(q.commit("g", "app-1", a.generation, 0, 1), CommitStatus::stale_generation);
  const PollResult back = q.poll("g", "app-1", a.generation, at_ms(4), 1);
  EXPECT_TRUE(back.records.empty());
  EXPECT_EQ(back.assignment.generation, b.generation);
  // Its commit was refused, so the new generation reads r0 again, one member at a time.
  const PollResult again = q.poll("g", "app-1", b.generation, at_ms(5), 1);
  ASSERT_EQ(again.records.size(), 1u);
  EXPECT_EQ(again.records[0].value, "r0");
}

TEST(MqState, ARestartedBrokerKeepsItsLogAndCommitsButNotItsMembers) {
  MqState q(1);
  const Assignment a = q.join("g", "app-1", t0);
  q.append("k", "v");
  q.poll("g", "app-1", a.generation, at_ms(1), 10);
  ASSERT_EQ(q.commit("g", "app-1", a.generation, 0, 1), CommitStatus::ok);
  q.forget_members();
  EXPECT_TRUE(q.members("g").empty());
  EXPECT_EQ(q.log(0).size(), 1u);
  EXPECT_EQ(q.committed("g", 0), 1u);
  const Assignment b = q.join("g", "app-1", at_ms(2));
  EXPECT_TRUE(q.poll("g", "app-1", b.generation, at_ms(3), 10).records.empty());
}

// Whatever members join, poll, commit and stall: in every generation each partition has at most
// one owner, every partition has one while the group has members, and a committed offset never
// passes the log's end.
RC_GTEST_PROP(MqState, EachPartitionHasOneOwnerAndCommitsStayInsideTheLog, ()) {
  const uint32_t partitions = *rc::gen::inRange<uint32_t>(1, 5);
  MqState q(partitions);
  const std::vector<std::string> names = {"app-1", "app-2", "app-3"};
  std::map<std::string, uint64_t> gen;
  int64_t now_ms = 0;
  const int steps = *rc::gen::inRange(1, 60);
  for (int i = 0; i < steps; ++i) {
    now_ms += *rc::gen::inRange(0, 400);
    const std::string& m = names[*rc::gen::inRange<size_t>(0, names.size())];
    switch (*rc::gen::inRange(0, 5)) {
      case 0: gen[m] = q.join("g", m, at_ms(now_ms)).generation; break;
      case 1: q.append("sku" + std::to_string(*rc::gen::inRange(1, 4)), "v"); break;
      case 2: {
        const PollResult r = q.poll("g", m, gen[m], at_ms(now_ms), 3);
        if (r.member) gen[m] = r.assignment.generation;
        for (const Record& rec : r.records) q.commit("g", m, gen[m], rec.partition, rec.offset + 1);
        break;
      }
      case 3: q.expire(at_ms(now_ms), Duration::s(1)); break;
      default: q.leave("g", m); break;
    }
    std::set<uint32_t> owned;
    for (const std::string& member : q.members("g")) {
      for (uint32_t p : q.assigned("g", member)) RC_ASSERT(owned.insert(p).second);
    }
    if (!q.members("g").empty()) RC_ASSERT(owned.size() == partitions);
    for (uint32_t p = 0; p < partitions; ++p) RC_ASSERT(q.committed("g", p) <= q.log(p).size());
  }
}

}  // namespace
}  // namespace oversim::mq
