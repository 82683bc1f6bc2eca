#include "models/redis/redis_state.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <rapidcheck/state.h>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace oversim::redis {

// GoogleTest prints values through these, so a failed comparison reads like redis-cli.
void PrintTo(const Reply& reply, std::ostream* os) { *os << to_string(reply); }
void PrintTo(const Command& command, std::ostream* os) { *os << to_string(command); }
void PrintTo(const ReplicationEntry& entry, std::ostream* os) { *os << to_string(entry); }

namespace {
using namespace sim::literals;

Instant at(Duration d) { return Instant::zero() + d; }
const Instant t0 = Instant::zero();

std::vector<std::string> render(const std::vector<ReplicationEntry>& log) {
  std::vector<std::string> out;
  for (const auto& entry : log) out.push_back(to_string(entry));
  return out;
}

// ---- Rendering --------------------------------------------------------------------------------

TEST(RedisCommand, RendersLikeRedisCli) {
  EXPECT_EQ(to_string(Command::set_nx_px("lock:stock:sku1", "tok-3", 3000)),
            "SET lock:stock:sku1 tok-3 NX PX 3000");
  EXPECT_EQ(to_string(Command::set("k", "v")), "SET k v");
  EXPECT_EQ(to_string(Command::set_xx("k", "v")), "SET k v XX");
  EXPECT_EQ(to_string(Command::set_ex("k", "v", 5)), "SET k v EX 5");
  EXPECT_EQ(to_string(Command::set_pxat("k", "v", 3000)), "SET k v PXAT 3000");
  EXPECT_EQ(to_string(Command::set_keepttl("k", "v")), "SET k v KEEPTTL");
  EXPECT_EQ(to_string(Command::get("k")), "GET k");
  EXPECT_EQ(to_string(Command::del("k")), "DEL k");
  EXPECT_EQ(to_string(Command::pexpire("k", 1500)), "PEXPIRE k 1500");
  EXPECT_EQ(to_string(Command::pexpireat("k", 4500)), "PEXPIREAT k 4500");
  EXPECT_EQ(to_string(Command::pttl("k")), "PTTL k");
  EXPECT_EQ(to_string(Command::incr("stock:sku1")), "INCR stock:sku1");
  EXPECT_EQ(to_string(Command::incrby("stock:sku1", 5)), "INCRBY stock:sku1 5");
  EXPECT_EQ(to_string(Command::decrby("stock:sku1", 2)), "DECRBY stock:sku1 2");
  EXPECT_EQ(to_string(Command::del_if_equals("lock:stock:sku1", "tok-3")),
            "EVAL del_if_equals lock:stock:sku1 tok-3");
  EXPECT_EQ(to_string(Command::pexpire_if_equals("lock:stock:sku1", "tok-3", 3000)),
            "EVAL pexpire_if_equals lock:stock:sku1 tok-3 3000");
  EXPECT_EQ(to_string(Command::decr_if_at_least("stock:sku1", 1, 0)),
            "EVAL decr_if_at_least stock:sku1 1 0");
}

TEST(RedisCommand, QuotesArgumentsThatNeedIt) {
  EXPECT_EQ(to_string(Command::set("k", "two words")), "SET k \"two words\"");
  EXPECT_EQ(to_string(Command::set("k", "")), "SET k \"\"");
  EXPECT_EQ(to_string(Command::set("k", "say \"hi\"\n")), "SET k \"say \\\"hi\\\"\\n\"");
  EXPECT_EQ(to_string(Command::get(std::string("a\x01", 2))), "GET \"a\\x01\"");
}

TEST(RedisCommand, KeyAndWriteClassification) {
  EXPECT_EQ(Command::decr_if_at_least("stock:sku1", 1, 0).key(), "stock:sku1");
  EXPECT_FALSE(Command::get("k").is_write());
  EXPECT_FALSE(Command::pttl("k").is_write());
  EXPECT_TRUE(Command::set("k", "v").is_write());
  EXPECT_TRUE(Command::del_if_equals("k", "t").is_write());
}

TEST(RedisReply, RendersLikeRedisCli) {
  EXPECT_EQ(to_string(Reply::ok()), "OK");
  EXPECT_EQ(to_string(Reply::nil()), "(nil)");
  EXPECT_EQ(to_string(Reply::integer(1)), "(integer) 1");
  EXPECT_EQ(to_string(Reply::integer(-2)), "(integer) -2");
  EXPECT_EQ(to_string(Reply::bulk("tok-3")), "\"tok-3\"");
  EXPECT_EQ(to_string(Reply::error(kNotIntegerError)),
            "(error) ERR value is not an integer or out of range");
  EXPECT_THROW((void)Reply::ok().as_integer(), std::logic_error);
  EXPECT_NE(Reply::integer(0), Reply::nil());
}

// ---- GET / SET --------------------------------------------------------------------------------

TEST(RedisSet, SetThenGetReturnsTheValueAndReplicatesTheSet) {
  RedisState redis;
  EXPECT_EQ(redis.apply(Command::get("k"), t0).reply, Reply::nil());
  ApplyResult set = redis.apply(Command::set("k", "v1"), t0);
  EXPECT_EQ(set.reply, Reply::ok());
  EXPECT_EQ(render(set.replicated), std::vector<std::string>{"#1 SET k v1"});
  EXPECT_EQ(redis.apply(Command::get("k"), t0).reply, Reply::bulk("v1"));
  EXPECT_EQ(redis.replication_offset(), 1u);
}

TEST(RedisSet, NxOnAnExistingKeyFailsAndLeavesTheHolder) {
  RedisState redis;
  EXPECT_EQ(redis.apply(Command::set_nx_px("lock:stock:sku1", "tok-1", 3000), t0).reply,
            Reply::ok());
  ApplyResult second = redis.apply(Command::set_nx_px("lock:stock:sku1", "tok-2", 3000), at(1_ms));
  EXPECT_EQ(second.reply, Reply::nil());
  EXPECT_TRUE(second.replicated.empty());  // a failed NX is not a write
  EXPECT_EQ(redis.apply(Command::get("lock:stock:sku1"), at(2_ms)).reply, Reply::bulk("tok-1"));
  EXPECT_EQ(redis.apply(Command::pttl("lock:stock:sku1"), at(2_ms)).reply, Reply::integer(2998));
}

TEST(RedisSet, NxSucceedsOnceTheHolderExpired) {
  RedisState redis;
  redis.apply(Command::set_nx_px("lock", "tok-1", 3000), t0);
  ApplyResult second = redis.apply(Command::set_nx_px("lock", "tok-2", 3000), at(3001_ms));
  EXPECT_EQ(second.reply, Reply::ok());
  // The primary first drops the expired key (DEL), then writes: replicas see both, in order.
  EXPECT_EQ(render(second.replicated),
            (std::vector<std::string>{"#2 DEL lock", "#3 SET lock tok-2 PXAT 6001"}));
}

TEST(RedisSet, XxOnAnAbsentKeyFails) {
  RedisState redis;
  ApplyResult xx = redis.apply(Command::set_xx("k", "v"), t0);
  EXPECT_EQ(xx.reply, Reply::nil());
  EXPECT_TRUE(xx.replicated.empty());
  EXPECT_EQ(redis.size(), 0u);
  redis.apply(Command::set("k", "old"), t0);
  EXPECT_EQ(redis.apply(Command::set_xx("k", "new"), t0).reply, Reply::ok());
  EXPECT_EQ(redis.apply(Command::get("k"), t0).reply, Reply::bulk("new"));
}

// Redis judges expiry as `now_ms > when_ms` (db.c keyIsExpired), on a millisecond clock. So a key
// set with PX 3000 at 0 is still there during the whole of millisecond 3000 (PTTL 0) and gone from
// 3001ms on: one millisecond later than a naive `now >= when`.
TEST(RedisExpiry, PxBoundaryFollowsRedisNowGreaterThanWhen) {
  RedisState redis;
  redis.apply(Command::set_px("lock", "tok-1", 3000), t0);
  EXPECT_EQ(redis.apply(Command::get("lock"), at(2999_ms)).reply, Reply::bulk("tok-1"));
  EXPECT_EQ(redis.apply(Command::pttl("lock"), at(2999_ms)).reply, Reply::integer(1));
  EXPECT_EQ(redis.apply(Command::get("lock"), at(3000_ms)).reply, Reply::bulk("tok-1"));
  EXPECT_EQ(redis.apply(Command::pttl("lock"), at(3000_ms)).reply, Reply::integer(0));
  // The clock is floored to whole ms: 3000.999999ms is still millisecond 3000.
  EXPECT_EQ(redis.apply(Command::get("lock"), at(3001_ms - 1_ns)).reply, Reply::bulk("tok-1"));
  EXPECT_EQ(redis.apply(Command::get("lock"), at(3001_ms)).reply, Reply::nil());
  EXPECT_EQ(redis.apply(Command::pttl("lock"), at(3001_ms)).reply, Reply::integer(-2));
}

TEST(RedisExpiry, SubMillisecondSetTimeIsFlooredLikeRedisMstime) {
  RedisState redis;
  redis.apply(Command::set_px("k", "v", 10), at(5_ms + 700_us));  // now_ms = 5, expires at 15
  EXPECT_EQ(redis.entries().at("k").expires_at, at(15_ms));
  EXPECT_EQ(redis.apply(Command::get("k"), at(15_ms + 999_us)).reply, Reply::bulk("v"));
  EXPECT_EQ(redis.apply(Command::get("k"), at(16_ms)).reply, Reply::nil());
}

TEST(RedisSet, ExIsInSeconds) {
  RedisState redis;
  ApplyResult set = redis.apply(Command::set_ex("k", "v", 2), at(100_ms));
  EXPECT_EQ(render(set.replicated), std::vector<std::string>{"#1 SET k v PXAT 2100"});
  EXPECT_EQ(redis.apply(Command::pttl("k"), at(100_ms)).reply, Reply::integer(2000));
}

TEST(RedisSet, WithoutKeepTtlClearsTheExpiryAndWithItKeepsIt) {
  RedisState redis;
  redis.apply(Command::set_px("k", "v1", 1000), t0);
  redis.apply(Command::set_keepttl("k", "v2"), at(10_ms));
  EXPECT_EQ(redis.apply(Command::pttl("k"), at(10_ms)).reply, Reply::integer(990));
  EXPECT_EQ(redis.apply(Command::get("k"), at(10_ms)).reply, Reply::bulk("v2"));
  ApplyResult plain = redis.apply(Command::set("k", "v3"), at(20_ms));
  EXPECT_EQ(render(plain.replicated), std::vector<std::string>{"#3 SET k v3"});
  EXPECT_EQ(redis.apply(Command::pttl("k"), at(20_ms)).reply, Reply::integer(-1));
  EXPECT_EQ(redis.apply(Command::get("k"), at(1_s + 1_ms)).reply, Reply::bulk("v3"));
}

TEST(RedisSet, KeepTtlOnAnAbsentKeySetsNoExpiry) {
  RedisState redis;
  ApplyResult set = redis.apply(Command::set_keepttl("k", "v"), t0);
  EXPECT_EQ(render(set.replicated), std::vector<std::string>{"#1 SET k v KEEPTTL"});
  EXPECT_EQ(redis.apply(Command::pttl("k"), t0).reply, Reply::integer(-1));
}

TEST(RedisSet, NonPositiveExpiryIsAnErrorThatWritesNothing) {
  RedisState redis;
  redis.apply(Command::set("k", "old"), t0);
  Reply invalid = Reply::error("ERR invalid expire time in 'set' command");
  for (const Command& bad :
       {Command::set_px("k", "v", 0), Command::set_px("k", "v", -5), Command::set_ex("k", "v", 0),
        Command::set_pxat("k", "v", 0), Command::set_ex("k", "v", INT64_MAX / 10)}) {
    ApplyResult result = redis.apply(bad, t0);
    EXPECT_EQ(result.reply, invalid) << to_string(bad);
    EXPECT_TRUE(result.replicated.empty()) << to_string(bad);
  }
  EXPECT_EQ(redis.apply(Command::get("k"), t0).reply, Reply::bulk("old"));
  EXPECT_EQ(redis.replication_offset(), 1u);
}

// ---- DEL / PEXPIRE / PTTL ---------------------------------------------------------------------

TEST(RedisDel, DeletesOnceAndCountsWhatItDeleted) {
  RedisState redis;
  redis.apply(Command::set("k", "v"), t0);
  ApplyResult first = redis.apply(Command::del("k"), t0);
  EXPECT_EQ(first.reply, Reply::integer(1));
  EXPECT_EQ(render(first.replicated), std::vector<std::string>{"#2 DEL k"});
  ApplyResult second = redis.apply(Command::del("k"), t0);
  EXPECT_EQ(second.reply, Reply::integer(0));
  EXPECT_TRUE(second.replicated.empty());
  EXPECT_EQ(redis.size(), 0u);
}

TEST(RedisPttl, AbsentIsMinusTwoNoExpiryIsMinusOneElseRemainingMs) {
  RedisState redis;
  EXPECT_EQ(redis.apply(Command::pttl("k"), t0).reply, Reply::integer(-2));
  redis.apply(Command::set("k", "v"), t0);
  EXPECT_EQ(redis.apply(Command::pttl("k"), t0).reply, Reply::integer(-1));
  redis.apply(Command::pexpire("k", 1500), at(100_ms));
  EXPECT_EQ(redis.apply(Command::pttl("k"), at(600_ms + 300_us)).reply, Reply::integer(1000));
}

TEST(RedisPExpire, SetsAnAbsoluteExpiryAndReplicatesPExpireAt) {
  RedisState redis;
  EXPECT_EQ(redis.apply(Command::pexpire("k", 1000), t0).reply, Reply::integer(0));
  redis.apply(Command::set("k", "v"), t0);
  ApplyResult expire = redis.apply(Command::pexpire("k", 1000), at(250_ms));
  EXPECT_EQ(expire.reply, Reply::integer(1));
  EXPECT_EQ(render(expire.replicated), std::vector<std::string>{"#2 PEXPIREAT k 1250"});
  EXPECT_EQ(redis.apply(Command::get("k"), at(1250_ms)).reply, Reply::bulk("v"));
  EXPECT_EQ(redis.apply(Command::get("k"), at(1251_ms)).reply, Reply::nil());
}

// expire.c: a timeout that is not in the future deletes the key now and replicates a DEL.
TEST(RedisPExpire, NonPositiveTimeoutDeletesAndReplicatesDel) {
  RedisState redis;
  redis.apply(Command::set("a", "v"), t0);
  redis.apply(Command::set("b", "v"), t0);
  ApplyResult zero = redis.apply(Command::pexpire("a", 0), at(5_ms));
  EXPECT_EQ(zero.reply, Reply::integer(1));
  EXPECT_EQ(render(zero.replicated), std::vector<std::string>{"#3 DEL a"});
  ApplyResult past = redis.apply(Command::pexpireat("b", 5), at(5_ms));
  EXPECT_EQ(past.reply, Reply::integer(1));
  EXPECT_EQ(render(past.replicated), std::vector<std::string>{"#4 DEL b"});
  EXPECT_EQ(redis.size(), 0u);
}

TEST(RedisPExpire, OverflowingTimeoutIsAnError) {
  RedisState redis;
  redis.apply(Command::set("k", "v"), at(1_s));
  EXPECT_EQ(redis.apply(Command::pexpire("k", INT64_MAX), at(1_s)).reply,
            Reply::error("ERR invalid expire time in 'pexpire' command"));
  EXPECT_EQ(redis.apply(Command::pttl("k"), at(1_s)).reply, Reply::integer(-1));
}

// ---- INCR / INCRBY / DECRBY -------------------------------------------------------------------

TEST(RedisIncr, CountsFromZeroOnAnAbsentKey) {
  RedisState redis;
  EXPECT_EQ(redis.apply(Command::incr("n"), t0).reply, Reply::integer(1));
  EXPECT_EQ(redis.apply(Command::incrby("n", 10), t0).reply, Reply::integer(11));
  EXPECT_EQ(redis.apply(Command::decrby("n", 13), t0).reply, Reply::integer(-2));
  EXPECT_EQ(redis.apply(Command::get("n"), t0).reply, Reply::bulk("-2"));
  EXPECT_EQ(redis.replication_offset(), 3u);
}

TEST(RedisIncr, NonIntegerValueIsAnErrorAndUnchanged) {
  RedisState redis;
  for (const char* value : {"tok-3", "007", "+1", " 1", "1.5", "", "-0", "99999999999999999999"}) {
    redis.apply(Command::set("n", value), t0);
    uint64_t offset = redis.replication_offset();
    ApplyResult result = redis.apply(Command::incr("n"), t0);
    EXPECT_EQ(result.reply, Reply::error("ERR value is not an integer or out of range")) << value;
    EXPECT_TRUE(result.replicated.empty()) << value;
    EXPECT_EQ(redis.replication_offset(), offset);
    EXPECT_EQ(redis.apply(Command::get("n"), t0).reply, Reply::bulk(value)) << value;
  }
}

TEST(RedisIncr, OverflowIsAnError) {
  RedisState redis;
  redis.apply(Command::set("n", std::to_string(INT64_MAX)), t0);
  EXPECT_EQ(redis.apply(Command::incr("n"), t0).reply,
            Reply::error("ERR increment or decrement would overflow"));
  EXPECT_EQ(redis.apply(Command::decrby("m", INT64_MIN), t0).reply,
            Reply::error("ERR decrement would overflow"));
  EXPECT_EQ(redis.apply(Command::get("n"), t0).reply, Reply::bulk(std::to_string(INT64_MAX)));
}

TEST(RedisIncr, KeepsTheTtl) {
  RedisState redis;
  redis.apply(Command::set_px("n", "5", 1000), t0);
  ApplyResult incr = redis.apply(Command::incr("n"), at(400_ms));
  EXPECT_EQ(incr.reply, Reply::integer(6));
  EXPECT_EQ(render(incr.replicated), std::vector<std::string>{"#2 INCR n"});
  EXPECT_EQ(redis.apply(Command::pttl("n"), at(400_ms)).reply, Reply::integer(600));
}

TEST(RedisIncr, OnAnExpiredKeyStartsFromZeroAfterReplicatingTheDel) {
  RedisState redis;
  redis.apply(Command::set_px("n", "5", 10), t0);
  ApplyResult incr = redis.apply(Command::incrby("n", 2), at(11_ms));
  EXPECT_EQ(incr.reply, Reply::integer(2));
  EXPECT_EQ(render(incr.replicated), (std::vector<std::string>{"#2 DEL n", "#3 INCRBY n 2"}));
  EXPECT_EQ(redis.apply(Command::pttl("n"), at(11_ms)).reply, Reply::integer(-1));
}

// ---- Scripts ----------------------------------------------------------------------------------

TEST(RedisScript, DelIfEqualsWithAWrongTokenLeavesTheKey) {
  RedisState redis;
  redis.apply(Command::set_nx_px("lock:stock:sku1", "tok-B", 3000), t0);
  ApplyResult wrong = redis.apply(Command::del_if_equals("lock:stock:sku1", "tok-A"), at(1_ms));
  EXPECT_EQ(wrong.reply, Reply::integer(0));
  EXPECT_TRUE(wrong.replicated.empty());
  EXPECT_EQ(redis.apply(Command::get("lock:stock:sku1"), at(1_ms)).reply, Reply::bulk("tok-B"));
  ApplyResult right = redis.apply(Command::del_if_equals("lock:stock:sku1", "tok-B"), at(2_ms));
  EXPECT_EQ(right.reply, Reply::integer(1));
  EXPECT_EQ(render(right.replicated), std::vector<std::string>{"#2 DEL lock:stock:sku1"});
  EXPECT_EQ(redis.size(), 0u);
  EXPECT_EQ(redis.apply(Command::del_if_equals("lock:stock:sku1", "tok-B"), at(3_ms)).reply,
            Reply::integer(0));
}

TEST(RedisScript, DelIfEqualsOnAnExpiredLockDeletesNothingButReplicatesTheExpiry) {
  RedisState redis;
  redis.apply(Command::set_px("lock", "tok-A", 100), t0);
  ApplyResult late = redis.apply(Command::del_if_equals("lock", "tok-A"), at(101_ms));
  EXPECT_EQ(late.reply, Reply::integer(0));
  EXPECT_EQ(render(late.replicated), std::vector<std::string>{"#2 DEL lock"});
}

TEST(RedisScript, PExpireIfEqualsRenewsOnlyTheHoldersLock) {
  RedisState redis;
  redis.apply(Command::set_nx_px("lock", "tok-A", 3000), t0);
  ApplyResult renew = redis.apply(Command::pexpire_if_equals("lock", "tok-A", 3000), at(1_s));
  EXPECT_EQ(renew.reply, Reply::integer(1));
  EXPECT_EQ(render(renew.replicated), std::vector<std::string>{"#2 PEXPIREAT lock 4000"});
  EXPECT_EQ(redis.apply(Command::pttl("lock"), at(1_s)).reply, Reply::integer(3000));

  ApplyResult stranger = redis.apply(Command::pexpire_if_equals("lock", "tok-B", 9000), at(2_s));
  EXPECT_EQ(stranger.reply, Reply::integer(0));
  EXPECT_TRUE(stranger.replicated.empty());
  EXPECT_EQ(redis.apply(Command::pttl("lock"), at(2_s)).reply, Reply::integer(2000));

  // A watchdog that fires after the lease expired cannot resurrect it.
  EXPECT_EQ(redis.apply(Command::pexpire_if_equals("lock", "tok-A", 3000), at(4001_ms)).reply,
            Reply::integer(0));
  EXPECT_EQ(redis.apply(Command::get("lock"), at(4001_ms)).reply, Reply::nil());
}

TEST(RedisScript, DecrIfAtLeastNeverGoesBelowTheFloor) {
  RedisState redis;
  redis.apply(Command::set("stock:sku1", "3"), t0);
  std::vector<Reply> replies;
  for (int i = 0; i < 5; ++i) {
    replies.push_back(redis.apply(Command::decr_if_at_least("stock:sku1", 1, 0), t0).reply);
  }
  EXPECT_EQ(replies, (std::vector<Reply>{Reply::integer(2), Reply::integer(1), Reply::integer(0),
                                         Reply::integer(-1), Reply::integer(-1)}));
  EXPECT_EQ(redis.apply(Command::get("stock:sku1"), t0).reply, Reply::bulk("0"));
  // Three successful deductions replicate as plain DECRBY effects; the refusals write nothing.
  EXPECT_EQ(redis.replication_offset(), 4u);
}

TEST(RedisScript, DecrIfAtLeastHonoursAmountAndFloorAndReplicatesDecrBy) {
  RedisState redis;
  redis.apply(Command::set("stock", "10"), t0);
  ApplyResult ok = redis.apply(Command::decr_if_at_least("stock", 3, 5), t0);
  EXPECT_EQ(ok.reply, Reply::integer(7));
  EXPECT_EQ(render(ok.replicated), std::vector<std::string>{"#2 DECRBY stock 3"});
  EXPECT_EQ(redis.apply(Command::decr_if_at_least("stock", 3, 5), t0).reply, Reply::integer(-1));
  EXPECT_EQ(redis.apply(Command::decr_if_at_least("stock", 2, 5), t0).reply, Reply::integer(5));
  EXPECT_EQ(redis.apply(Command::decr_if_at_least("stock", INT64_MAX, 0), t0).reply,
            Reply::integer(-1));
}

// incr_once: the marker and the increment in one script; a repeat changes nothing, and a
// replica applying the effects ends with both.
TEST(RedisScript, IncrOnceAppliesOncePerMarkerAndReplicatesBothWrites) {
  RedisState redis;
  redis.apply(Command::set("stock", "0"), t0);
  ApplyResult first = redis.apply(Command::incr_once("stock", "comp:o1", 1), t0);
  EXPECT_EQ(first.reply, Reply::integer(1));
  EXPECT_EQ(render(first.replicated), (std::vector<std::string>{"#2 SET comp:o1 1", "#3 INCRBY stock 1"}));
  EXPECT_EQ(redis.apply(Command::incr_once("stock", "comp:o1", 1), t0).reply, Reply::nil());
  EXPECT_EQ(redis.apply(Command::incr_once("stock", "comp:o2", 1), t0).reply, Reply::integer(2));
  EXPECT_EQ(redis.apply(Command::incr_once("stock", "stock", 1), t0).reply.kind(), Reply::Kind::error);
  redis.apply(Command::set("bad", "x"), t0);
  EXPECT_EQ(redis.apply(Command::incr_once("bad", "comp:o3", 1), t0).reply, Reply::error(kNotIntegerError));
  EXPECT_EQ(redis.apply(Command::get("comp:o3"), t0).reply, Reply::nil());  // a refused increment leaves no marker
}

// decr_and_reserve: one unit taken, a numbered record left beside it; -1 at 0, nothing written.
TEST(RedisScript, DecrAndReserveNumbersEveryUnitItTakes) {
  RedisState redis;
  redis.apply(Command::set("stock", "2"), t0);
  ApplyResult a = redis.apply(Command::decr_and_reserve("stock", "resv", "o1|u1"), t0);
  EXPECT_EQ(a.reply, Reply::integer(1));
  EXPECT_EQ(render(a.replicated), (std::vector<std::string>{"#2 DECRBY stock 1", "#3 INCR resv", "#4 SET resv:1 o1|u1"}));
  EXPECT_EQ(redis.apply(Command::decr_and_reserve("stock", "resv", "o2|u2"), t0).reply, Reply::integer(2));
  EXPECT_EQ(redis.apply(Command::decr_and_reserve("stock", "resv", "o3|u3"), t0).reply, Reply::integer(-1));
  EXPECT_EQ(redis.apply(Command::get("resv:2"), t0).reply, Reply::bulk("o2|u2"));
  EXPECT_EQ(redis.apply(Command::get("resv:3"), t0).reply, Reply::nil());
  EXPECT_EQ(redis.apply(Command::get("stock"), t0).reply, Reply::bulk("0"));
  EXPECT_EQ(to_string(Command::decr_and_reserve("stock:sku1", "resv:sku1", "o1")), "EVAL decr_and_reserve stock:sku1 resv:sku1 o1");
  EXPECT_EQ(to_string(Command::incr_once("stock:sku1", "comp:o1", 1)), "EVAL incr_once stock:sku1 comp:o1 1");
}

// The data's history (PSYNC2's replication ids): a replica's full resync adopts its primary's
// lineage; a promotion starts a new one that continues the offsets; a write past the offset the
// promoted replica had of the old lineage is not in the new primary's history.
TEST(RedisState, ALineageTellsWhichAcknowledgedWritesAPromotedReplicaHas) {
  RedisState primary;
  primary.start_lineage("redis-1:1");
  ApplyResult first = primary.apply(Command::set("a", "1"), t0);
  RedisState replica;
  replica.set_role(Role::replica);
  replica.replace_with(primary.snapshot());  // full resync at offset 1
  ApplyResult second = primary.apply(Command::set("b", "2"), t0);  // never shipped
  EXPECT_TRUE(replica.includes("redis-1:1", first.replicated.at(0).offset));
  EXPECT_FALSE(replica.includes("redis-1:1", second.replicated.at(0).offset));
  replica.set_role(Role::primary);
  replica.start_lineage("redis-2:1");
  ApplyResult third = replica.apply(Command::set("c", "3"), t0);
  EXPECT_EQ(third.replicated.at(0).offset, 2u);  // offsets continue
  EXPECT_TRUE(replica.includes("redis-2:1", 2));
  EXPECT_FALSE(replica.includes("redis-1:1", 2));  // the same number, another history
  EXPECT_EQ(replica.lineage_end("redis-1:1"), 1u);
  EXPECT_EQ(replica.lineage_end("redis-9:1"), 0u);
  // The old primary, resynced as a replica of the new one, adopts its history.
  primary.set_role(Role::replica);
  primary.replace_with(replica.snapshot());
  EXPECT_FALSE(primary.includes("redis-1:1", second.replicated.at(0).offset));
  EXPECT_EQ(primary.lineage(), "redis-2:1");
}

TEST(RedisScript, DecrIfAtLeastOnAbsentOrNonIntegerOrBadArguments) {
  RedisState redis;
  ApplyResult absent = redis.apply(Command::decr_if_at_least("stock", 1, 0), t0);
  EXPECT_EQ(absent.reply, Reply::integer(-1));
  EXPECT_EQ(redis.size(), 0u);  // no key is created from nothing
  redis.apply(Command::set("stock", "many"), t0);
  EXPECT_EQ(redis.apply(Command::decr_if_at_least("stock", 1, 0), t0).reply,
            Reply::error(kNotIntegerError));
  Reply bad = Reply::error("ERR decr_if_at_least needs amount >= 1 and floor >= 0");
  EXPECT_EQ(redis.apply(Command::decr_if_at_least("stock", 0, 0), t0).reply, bad);
  EXPECT_EQ(redis.apply(Command::decr_if_at_least("stock", 1, -1), t0).reply, bad);
}

// ---- Clocks -----------------------------------------------------------------------------------

// The node's clock jumps forward 10s one second after the lock was taken (an NTP step): by its own
// clock the 3s lease is over, so the key is gone and a second buyer gets the lock early.
TEST(RedisExpiry, ForwardLocalClockJumpExpiresALockEarly) {
  RedisState redis;
  Duration clock_offset = Duration::zero();
  auto local = [&](Duration true_time) { return at(true_time) + clock_offset; };
  redis.apply(Command::set_nx_px("lock:stock:sku1", "tok-A", 3000), local(0_ms));
  clock_offset = 10_s;
  EXPECT_EQ(redis.apply(Command::get("lock:stock:sku1"), local(1_s)).reply, Reply::nil());
  EXPECT_EQ(redis.apply(Command::set_nx_px("lock:stock:sku1", "tok-B", 3000), local(1_s)).reply,
            Reply::ok());
  // Without the jump the same true instant finds the lock held.
  RedisState steady;
  steady.apply(Command::set_nx_px("lock:stock:sku1", "tok-A", 3000), t0);
  EXPECT_EQ(steady.apply(Command::set_nx_px("lock:stock:sku1", "tok-B", 3000), at(1_s)).reply,
            Reply::nil());
}

TEST(RedisExpiry, BackwardLocalClockJumpKeepsALockAlive) {
  RedisState redis;
  redis.apply(Command::set_px("lock", "tok-A", 3000), at(10_s));
  // True time 14s, but the clock was stepped back 5s: it reads 9s, before the lock was even set.
  EXPECT_EQ(redis.apply(Command::pttl("lock"), at(9_s)).reply, Reply::integer(4000));
}

// A clock stepped back revives a key that is only logically expired, but not one the primary has
// already deleted: deletion is final. Two nodes with the same writes can differ here.
TEST(RedisExpiry, BackwardStepRevivesOnlyKeysNotYetDeleted) {
  RedisState redis;
  redis.apply(Command::set_px("touched", "v", 100), t0);
  redis.apply(Command::set_px("untouched", "v", 100), t0);
  EXPECT_EQ(redis.apply(Command::get("touched"), at(200_ms)).reply, Reply::nil());
  EXPECT_EQ(redis.apply(Command::get("touched"), at(50_ms)).reply, Reply::nil());
  EXPECT_EQ(redis.apply(Command::get("untouched"), at(50_ms)).reply, Reply::bulk("v"));
}

TEST(RedisExpiry, LazyExpiryOnAReadDeletesAndReplicatesDel) {
  RedisState redis;
  redis.apply(Command::set_px("k", "v", 100), t0);
  EXPECT_EQ(redis.size(), 1u);  // expired but untouched keys still count, like DBSIZE
  ApplyResult get = redis.apply(Command::get("k"), at(200_ms));
  EXPECT_EQ(get.reply, Reply::nil());
  EXPECT_EQ(render(get.replicated), std::vector<std::string>{"#2 DEL k"});
  EXPECT_EQ(redis.size(), 0u);
}

TEST(RedisExpiry, ActiveExpireDeletesEveryExpiredKeyInKeyOrder) {
  RedisState redis;
  redis.apply(Command::set_px("c", "v", 100), t0);
  redis.apply(Command::set_px("a", "v", 100), t0);
  redis.apply(Command::set_px("b", "v", 500), t0);
  redis.apply(Command::set("d", "v"), t0);
  EXPECT_EQ(render(redis.active_expire(at(101_ms))),
            (std::vector<std::string>{"#5 DEL a", "#6 DEL c"}));
  EXPECT_EQ(redis.size(), 2u);
  EXPECT_TRUE(redis.active_expire(at(101_ms)).empty());
}

// ---- Replication ------------------------------------------------------------------------------

TEST(RedisReplication, ReplicaAppliesTheLogAndConverges) {
  RedisState primary;
  RedisState replica;
  replica.set_role(Role::replica);
  std::vector<Command> commands = {
      Command::set_nx_px("lock:stock:sku1", "tok-1", 3000),
      Command::set("stock:sku1", "5"),
      Command::decr_if_at_least("stock:sku1", 2, 0),
      Command::pexpire_if_equals("lock:stock:sku1", "tok-1", 3000),
      Command::set_ex("idem:req-9", "1", 60),
      Command::incr("orders"),
      Command::del_if_equals("lock:stock:sku1", "tok-1"),
      Command::set_px("tmp", "x", 10),
  };
  Instant now = t0;
  for (const Command& command : commands) {
    for (const ReplicationEntry& entry : primary.apply(command, now).replicated) {
      replica.apply_replicated(entry);
    }
    now += 7_ms;
  }
  for (const ReplicationEntry& entry : primary.apply(Command::get("tmp"), at(1_s)).replicated) {
    replica.apply_replicated(entry);
  }
  EXPECT_EQ(replica.entries(), primary.entries());
  EXPECT_EQ(replica.replication_offset(), primary.replication_offset());
  EXPECT_EQ(primary.replication_offset(), 9u);  // 8 writes + the DEL for the expired tmp
  EXPECT_EQ(replica.dump(),
            "idem:req-9 = \"1\" expires_at=60028ms\n"
            "orders = \"1\"\n"
            "stock:sku1 = \"3\"\n"
            "role=replica offset=9\n");
}

TEST(RedisReplication, RelativeExpiryTravelsAsAbsoluteSoAReplicaAppliedLateAgrees) {
  RedisState primary;
  RedisState replica;
  replica.set_role(Role::replica);
  ApplyResult set = primary.apply(Command::set_nx_px("lock", "tok-1", 3000), at(1_s));
  ASSERT_EQ(set.replicated.size(), 1u);
  EXPECT_EQ(set.replicated[0].effect, Command::set_pxat("lock", "tok-1", 4000));
  // The entry arrives 2.5s late; the lease still ends at 4000ms, not at 2.5s + 3s.
  replica.apply_replicated(set.replicated[0]);
  EXPECT_EQ(replica.apply(Command::pttl("lock"), at(3500_ms)).reply, Reply::integer(500));
  EXPECT_EQ(replica.apply(Command::get("lock"), at(4001_ms)).reply, Reply::nil());
}

TEST(RedisReplication, ReplicaRejectsEveryWrite) {
  RedisState replica;
  replica.set_role(Role::replica);
  Reply readonly = Reply::error("READONLY You can't write against a read only replica.");
  for (const Command& write :
       {Command::set("k", "v"), Command::set_nx_px("k", "v", 10), Command::del("k"),
        Command::pexpire("k", 10), Command::pexpireat("k", 10), Command::incr("k"),
        Command::incrby("k", 2), Command::decrby("k", 2), Command::del_if_equals("k", "t"),
        Command::pexpire_if_equals("k", "t", 10), Command::decr_if_at_least("k", 1, 0)}) {
    ApplyResult result = replica.apply(write, t0);
    EXPECT_EQ(result.reply, readonly) << to_string(write);
    EXPECT_TRUE(result.replicated.empty());
  }
  EXPECT_EQ(replica.size(), 0u);
  EXPECT_EQ(replica.replication_offset(), 0u);
  EXPECT_EQ(replica.apply(Command::get("k"), t0).reply, Reply::nil());
}

TEST(RedisReplication, ReplicaHidesExpiredKeysByItsOwnClockButKeepsThem) {
  RedisState replica;
  replica.set_role(Role::replica);
  replica.apply_replicated({1, Command::set_pxat("lock", "tok-1", 3000)});
  ApplyResult get = replica.apply(Command::get("lock"), at(3001_ms));
  EXPECT_EQ(get.reply, Reply::nil());
  EXPECT_TRUE(get.replicated.empty());
  EXPECT_EQ(replica.apply(Command::pttl("lock"), at(3001_ms)).reply, Reply::integer(-2));
  EXPECT_EQ(replica.size(), 1u);  // only the primary's DEL removes it
  EXPECT_TRUE(replica.active_expire(at(5_s)).empty());
  EXPECT_EQ(replica.size(), 1u);
  // A replica whose clock lags still serves it.
  EXPECT_EQ(replica.apply(Command::get("lock"), at(2_s)).reply, Reply::bulk("tok-1"));
  replica.apply_replicated({2, Command::del("lock")});
  EXPECT_EQ(replica.size(), 0u);
}

TEST(RedisReplication, ApplyReplicatedRejectsGapsAndRelativeEffects) {
  RedisState replica;
  replica.set_role(Role::replica);
  EXPECT_THROW(replica.apply_replicated({2, Command::set("k", "v")}), std::logic_error);
  EXPECT_THROW(replica.apply_replicated({0, Command::set("k", "v")}), std::logic_error);
  EXPECT_EQ(replica.replication_offset(), 0u);
  replica.apply_replicated({1, Command::set("k", "v")});
  EXPECT_THROW(replica.apply_replicated({1, Command::set("k", "w")}), std::logic_error);
  EXPECT_THROW(replica.apply_replicated({2, Command::set_px("k", "v", 10)}), std::logic_error);
  EXPECT_THROW(replica.apply_replicated({2, Command::set_nx("k", "v")}), std::logic_error);
  EXPECT_THROW(replica.apply_replicated({2, Command::del_if_equals("k", "v")}), std::logic_error);
  EXPECT_EQ(replica.replication_offset(), 1u);
  EXPECT_EQ(replica.apply(Command::get("k"), t0).reply, Reply::bulk("v"));
}

// Failover with asynchronous replication: the primary acknowledged the lock, but the entry never
// reached the replica, so after promotion a second buyer takes the same lock.
TEST(RedisReplication, PromotedReplicaThatMissedTheLockGrantsItAgain) {
  RedisState primary;
  RedisState replica;
  replica.set_role(Role::replica);
  replica.apply_replicated(primary.apply(Command::set("stock:sku1", "1"), t0).replicated.at(0));
  EXPECT_EQ(primary.apply(Command::set_nx_px("lock:stock:sku1", "tok-A", 3000), t0).reply,
            Reply::ok());  // acknowledged, entry #2 lost with the primary
  replica.set_role(Role::primary);
  ApplyResult b = replica.apply(Command::set_nx_px("lock:stock:sku1", "tok-B", 3000), at(1_ms));
  EXPECT_EQ(b.reply, Reply::ok());
  // The promoted node continues from its own offset: #2 now means something else.
  EXPECT_EQ(render(b.replicated),
            std::vector<std::string>{"#2 SET lock:stock:sku1 tok-B PXAT 3001"});
}

// ---- Persistence ------------------------------------------------------------------------------

TEST(RedisPersistence, SnapshotIsAnIndependentCopy) {
  RedisState redis;
  redis.apply(Command::set("k", "v1"), t0);
  RedisState rdb = redis.snapshot();
  redis.apply(Command::set("k", "v2"), t0);
  EXPECT_EQ(rdb.apply(Command::get("k"), t0).reply, Reply::bulk("v1"));
  EXPECT_EQ(rdb.replication_offset(), 1u);
  RedisState restored(rdb);
  EXPECT_EQ(restored.entries(), rdb.entries());
}

TEST(RedisPersistence, ReplaceWithInstallsASnapshotButKeepsTheRole) {
  RedisState primary;
  primary.apply(Command::set_px("lock", "tok-1", 3000), t0);
  primary.apply(Command::set("stock", "4"), t0);
  RedisState replica;
  replica.set_role(Role::replica);
  replica.apply_replicated({1, Command::set("stale", "x")});
  replica.replace_with(primary.snapshot());  // full resync
  EXPECT_EQ(replica.role(), Role::replica);
  EXPECT_EQ(replica.entries(), primary.entries());
  EXPECT_EQ(replica.replication_offset(), 2u);
  replica.apply_replicated(primary.apply(Command::incr("stock"), t0).replicated.at(0));
  EXPECT_EQ(replica.apply(Command::get("stock"), t0).reply, Reply::bulk("5"));
}

// A restart replays a prefix of the append-only file (the fsync'd part); what came after is lost.
TEST(RedisPersistence, RestartReplaysAnAofPrefix) {
  RedisState primary;
  std::vector<ReplicationEntry> aof;
  std::vector<RedisState> states_by_offset = {primary.snapshot()};
  for (const Command& command :
       {Command::set("stock", "2"), Command::set_nx_px("lock", "A", 3000),
        Command::decr_if_at_least("stock", 1, 0), Command::del_if_equals("lock", "A")}) {
    for (auto& entry : primary.apply(command, at(10_ms)).replicated) {
      aof.push_back(entry);
      states_by_offset.push_back(primary.snapshot());
    }
  }
  ASSERT_EQ(aof.size(), 4u);
  for (std::size_t prefix = 0; prefix <= aof.size(); ++prefix) {
    RedisState restarted;
    for (std::size_t i = 0; i < prefix; ++i) restarted.apply_replicated(aof[i]);
    EXPECT_EQ(restarted.entries(), states_by_offset[prefix].entries()) << prefix;
    EXPECT_EQ(restarted.replication_offset(), prefix);
  }
}

TEST(RedisPersistence, DumpListsKeysInOrderWithExpiries) {
  RedisState redis;
  redis.apply(Command::set_px("lock:stock:sku1", "tok-3", 3000), at(2_ms));
  redis.apply(Command::set("a key", "5"), t0);
  EXPECT_EQ(redis.dump(),
            "\"a key\" = \"5\"\n"
            "lock:stock:sku1 = \"tok-3\" expires_at=3002ms\n"
            "role=primary offset=2\n");
}

// ---- Stateful property: RedisState against a deliberately naive reference -----------------------

// The reference keeps absolute expiry milliseconds and re-derives liveness on every access,
// with none of the real implementation's lazy deletion or replication machinery.
struct Reference {
  struct Value {
    std::string text;
    std::optional<int64_t> expires_ms;
  };
  std::map<std::string, Value> keys;
  int64_t now_ns = 0;

  int64_t now_ms() const {
    return now_ns >= 0 ? now_ns / 1'000'000 : -((-now_ns + 999'999) / 1'000'000);
  }
  bool alive(const std::string& key) const {
    auto it = keys.find(key);
    return it != keys.end() && (!it->second.expires_ms || now_ms() <= *it->second.expires_ms);
  }
  static std::optional<int64_t> integer(const std::string& text) {
    if (text.empty() || text.size() > 4) return std::nullopt;  // generated values are small
    std::size_t i = text[0] == '-' ? 1 : 0;
    if (i == text.size() || text[i] == '0')
      return text == "0" ? std::optional<int64_t>(0) : std::nullopt;
    for (std::size_t j = i; j < text.size(); ++j) {
      if (text[j] < '0' || text[j] > '9') return std::nullopt;
    }
    return std::stoll(text);
  }
  Reply add(const std::string& key, int64_t delta) {
    int64_t current = 0;
    if (alive(key)) {
      auto parsed = integer(keys[key].text);
      if (!parsed) return Reply::error(kNotIntegerError);
      current = *parsed;
    } else {
      keys.erase(key);
    }
    keys[key].text = std::to_string(current + delta);
    return Reply::integer(current + delta);
  }
  Reply expire(const std::string& key, int64_t ttl_ms) {
    if (ttl_ms <= 0) {
      keys.erase(key);
    } else {
      keys[key].expires_ms = now_ms() + ttl_ms;
    }
    return Reply::integer(1);
  }

  Reply step(const Command& command) {
    const std::string& key = command.key();
    if (auto* c = std::get_if<Get>(&command.op)) {
      (void)c;
      return alive(key) ? Reply::bulk(keys[key].text) : Reply::nil();
    }
    if (auto* c = std::get_if<Set>(&command.op)) {
      if ((c->expiry == SetExpiry::px || c->expiry == SetExpiry::ex) && c->expiry_arg <= 0) {
        return Reply::error("ERR invalid expire time in 'set' command");
      }
      if (c->condition == SetCondition::if_absent && alive(key)) return Reply::nil();
      if (c->condition == SetCondition::if_present && !alive(key)) return Reply::nil();
      std::optional<int64_t> expires_ms;
      if (c->expiry == SetExpiry::px) expires_ms = now_ms() + c->expiry_arg;
      if (c->expiry == SetExpiry::ex) expires_ms = now_ms() + c->expiry_arg * 1000;
      if (c->expiry == SetExpiry::keepttl && alive(key)) expires_ms = keys[key].expires_ms;
      keys[key] = Value{c->value, expires_ms};
      return Reply::ok();
    }
    if (std::holds_alternative<Del>(command.op)) {
      bool was = alive(key);
      keys.erase(key);
      return Reply::integer(was ? 1 : 0);
    }
    if (auto* c = std::get_if<PExpire>(&command.op)) {
      return alive(key) ? expire(key, c->ttl_ms) : Reply::integer(0);
    }
    if (std::holds_alternative<PTtl>(command.op)) {
      if (!alive(key)) return Reply::integer(-2);
      if (!keys[key].expires_ms) return Reply::integer(-1);
      return Reply::integer(*keys[key].expires_ms - now_ms());
    }
    if (std::holds_alternative<Incr>(command.op)) return add(key, 1);
    if (auto* c = std::get_if<IncrBy>(&command.op)) return add(key, c->increment);
    if (auto* c = std::get_if<DecrBy>(&command.op)) return add(key, -c->decrement);
    if (auto* c = std::get_if<DelIfEquals>(&command.op)) {
      if (!alive(key) || keys[key].text != c->token) return Reply::integer(0);
      keys.erase(key);
      return Reply::integer(1);
    }
    if (auto* c = std::get_if<PExpireIfEquals>(&command.op)) {
      if (!alive(key) || keys[key].text != c->token) return Reply::integer(0);
      return expire(key, c->ttl_ms);
    }
    if (auto* c = std::get_if<DecrIfAtLeast>(&command.op)) {
      if (!alive(key)) return Reply::integer(-1);
      auto current = integer(keys[key].text);
      if (!current) return Reply::error(kNotIntegerError);
      if (*current - c->amount < c->floor) return Reply::integer(-1);
      return add(key, -c->amount);
    }
    throw std::logic_error("reference: unsupported command " + to_string(command));
  }

  // What a client could observe for every key: the live (value, expiry) pairs.
  std::map<std::string, std::pair<std::string, std::optional<int64_t>>> visible() const {
    std::map<std::string, std::pair<std::string, std::optional<int64_t>>> out;
    for (const auto& [key, value] : keys) {
      if (alive(key)) out[key] = {value.text, value.expires_ms};
    }
    return out;
  }
};

// The system under test: a primary plus a replica fed every entry, at one local clock.
struct Cluster {
  RedisState primary;
  RedisState replica;
  Instant now = Instant::zero();
  Cluster() { replica.set_role(Role::replica); }
};

std::map<std::string, std::pair<std::string, std::optional<int64_t>>> visible(
    const RedisState& redis, Instant now) {
  std::map<std::string, std::pair<std::string, std::optional<int64_t>>> out;
  for (const auto& [key, entry] : redis.entries()) {
    bool expired = entry.expires_at && to_ms(now) > to_ms(*entry.expires_at);
    if (expired) continue;
    std::optional<int64_t> expires_ms;
    if (entry.expires_at) expires_ms = to_ms(*entry.expires_at);
    out[key] = {entry.value, expires_ms};
  }
  return out;
}

rc::Gen<Command> gen_command() {
  auto key = rc::gen::element<std::string>("a", "b", "c");
  auto value = rc::gen::element<std::string>("1", "7", "-3", "0", "tok-1", "tok-2", "007");
  auto token = rc::gen::element<std::string>("tok-1", "tok-2", "1");
  auto small = rc::gen::inRange<int64_t>(-3, 6);
  // Boundary values (the delete-instead-of-expire edge) often enough to be hit in 100 runs.
  auto ttl_ms = rc::gen::weightedOneOf<int64_t>({{2, rc::gen::inRange<int64_t>(1, 4000)},
                                                 {2, rc::gen::inRange<int64_t>(1, 20)},
                                                 {1, rc::gen::element<int64_t>(-1, 0, 1)}});
  return rc::gen::oneOf(
      rc::gen::map(key, [](std::string k) { return Command::get(std::move(k)); }),
      rc::gen::apply(
          [](std::string k, std::string v, int condition, int expiry, int64_t ttl) {
            Set set{std::move(k), std::move(v)};
            set.condition = static_cast<SetCondition>(condition);
            set.expiry = std::array{SetExpiry::none, SetExpiry::px, SetExpiry::ex,
                                    SetExpiry::keepttl}[static_cast<std::size_t>(expiry)];
            set.expiry_arg = set.expiry == SetExpiry::ex ? ttl / 1000 : ttl;
            return Command{std::move(set)};
          },
          key, value, rc::gen::inRange(0, 3), rc::gen::inRange(0, 4), ttl_ms),
      rc::gen::map(key, [](std::string k) { return Command::del(std::move(k)); }),
      rc::gen::apply([](std::string k, int64_t t) { return Command::pexpire(std::move(k), t); },
                     key, ttl_ms),
      rc::gen::map(key, [](std::string k) { return Command::pttl(std::move(k)); }),
      rc::gen::map(key, [](std::string k) { return Command::incr(std::move(k)); }),
      rc::gen::apply([](std::string k, int64_t n) { return Command::incrby(std::move(k), n); }, key,
                     small),
      rc::gen::apply([](std::string k, int64_t n) { return Command::decrby(std::move(k), n); }, key,
                     small),
      rc::gen::apply(
          [](std::string k, std::string t) {
            return Command::del_if_equals(std::move(k), std::move(t));
          },
          key, token),
      rc::gen::apply(
          [](std::string k, std::string t, int64_t ttl) {
            return Command::pexpire_if_equals(std::move(k), std::move(t), ttl);
          },
          key, token, ttl_ms),
      rc::gen::apply(
          [](std::string k, int64_t amount, int64_t floor) {
            return Command::decr_if_at_least(std::move(k), amount, floor);
          },
          key, rc::gen::inRange<int64_t>(1, 4), rc::gen::inRange<int64_t>(0, 3)));
}

using ModelCommand = rc::state::Command<Reference, Cluster>;

void check_agreement(const Reference& model, const Cluster& sut) {
  RC_ASSERT(visible(sut.primary, sut.now) == model.visible());
  // The replica saw every entry, so it stores exactly what the primary stores.
  RC_ASSERT(sut.replica.entries() == sut.primary.entries());
  RC_ASSERT(sut.replica.replication_offset() == sut.primary.replication_offset());
}

struct Execute : ModelCommand {
  redis::Command command = *gen_command();

  void apply(Reference& model) const override { model.step(command); }
  void run(const Reference& model, Cluster& sut) const override {
    Reference expected = model;
    Reply expected_reply = expected.step(command);
    ApplyResult result = sut.primary.apply(command, sut.now);
    RC_ASSERT(to_string(result.reply) == to_string(expected_reply));
    for (const ReplicationEntry& entry : result.replicated) sut.replica.apply_replicated(entry);
    // The replica answers reads like the primary (same entries, same clock).
    if (!command.is_write()) {
      RC_ASSERT(to_string(sut.replica.apply(command, sut.now).reply) == to_string(expected_reply));
    }
    check_agreement(expected, sut);
  }
  void show(std::ostream& os) const override { os << to_string(command); }
};

// Forward only, in ns so the millisecond flooring matters. A backward step is left to the unit
// tests: after it, visibility depends on whether a deletion already happened (deletion is final,
// logical expiry is not), which the naive reference deliberately does not model.
struct AdvanceClock : ModelCommand {
  // Whole milliseconds most of the time so expiry instants are hit exactly, not just passed.
  int64_t step_ns = *rc::gen::weightedOneOf<int64_t>(
      {{3,
        rc::gen::map(rc::gen::inRange<int64_t>(0, 20), [](int64_t ms) { return ms * 1'000'000; })},
       {3, rc::gen::map(rc::gen::inRange<int64_t>(0, 3000),
                        [](int64_t ms) { return ms * 1'000'000; })},
       {2, rc::gen::element<int64_t>(999'999, 1)},
       {1, rc::gen::inRange<int64_t>(0, 3'000'000'000)}});

  void apply(Reference& model) const override { model.now_ns += step_ns; }
  void run(const Reference& model, Cluster& sut) const override {
    sut.now += Duration::ns(step_ns);
    Reference expected = model;
    apply(expected);
    RC_ASSERT(sut.now.ns() == expected.now_ns);
    check_agreement(expected, sut);
  }
  void show(std::ostream& os) const override {
    os << "advance " << sim::format_duration(Duration::ns(step_ns));
  }
};

// Jumps to exactly a key's expiry millisecond (or the one after), where off-by-one bugs live.
struct AdvanceToExpiry : ModelCommand {
  std::string key = *rc::gen::element<std::string>("a", "b", "c");
  int64_t extra_ms = *rc::gen::inRange<int64_t>(0, 2);

  int64_t target_ns(const Reference& model) const {
    auto it = model.keys.find(key);
    if (!model.alive(key) || !it->second.expires_ms) return model.now_ns;
    return (*it->second.expires_ms + extra_ms) * 1'000'000;
  }
  void apply(Reference& model) const override { model.now_ns = target_ns(model); }
  void run(const Reference& model, Cluster& sut) const override {
    sut.now = Instant::from_ns(target_ns(model));
    Reference expected = model;
    apply(expected);
    check_agreement(expected, sut);
  }
  void show(std::ostream& os) const override {
    os << "advance to expiry of " << key << " + " << extra_ms << "ms";
  }
};

struct ActiveExpire : ModelCommand {
  void apply(Reference&) const override {}
  void run(const Reference& model, Cluster& sut) const override {
    // Exactly the keys expired now, in key order, one DEL each.
    std::vector<std::string> expired;
    for (const auto& [key, entry] : sut.primary.entries()) {
      if (entry.expires_at && to_ms(sut.now) > to_ms(*entry.expires_at)) expired.push_back(key);
    }
    std::vector<std::string> deleted;
    for (const ReplicationEntry& entry : sut.primary.active_expire(sut.now)) {
      RC_ASSERT(std::holds_alternative<Del>(entry.effect.op));
      deleted.push_back(entry.effect.key());
      sut.replica.apply_replicated(entry);
    }
    RC_ASSERT(deleted == expired);
    check_agreement(model, sut);
    for (const auto& [key, entry] : sut.primary.entries()) {
      RC_ASSERT(!(entry.expires_at && to_ms(sut.now) > to_ms(*entry.expires_at)));
    }
  }
  void show(std::ostream& os) const override { os << "active_expire"; }
};

RC_GTEST_PROP(RedisStateProperty, AgreesWithAReferenceModelAndTheReplicaConverges, ()) {
  Reference model;
  Cluster sut;
  rc::state::check(model, sut,
                   rc::state::gen::execOneOfWithArgs<Execute, Execute, Execute, AdvanceClock,
                                                     AdvanceToExpiry, ActiveExpire>());
}

}  // namespace
}  // namespace oversim::redis
