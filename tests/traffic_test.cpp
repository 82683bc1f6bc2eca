// The traffic layer's two state machines alone (protocols/traffic.h), on instants the test picks.
#include <gtest/gtest.h>

#include "protocols/traffic.h"

namespace oversim::protocols {
namespace {
using namespace sim::literals;

Instant at(sim::Duration d) { return Instant::zero() + d; }

// 100 a second in bursts of 10: ten at one instant, then one per 10ms, and a quiet spell refills
// the bucket to ten, never more.
TEST(TokenBucket, AdmitsItsBurstAtOnceThenOnePerIntervalAndRefillsOnlyToItsSize) {
  TokenBucket b(100, 10);
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(b.admit(at(0_ms))) << i;
  EXPECT_FALSE(b.admit(at(0_ms)));
  EXPECT_FALSE(b.admit(at(9_ms)));
  EXPECT_TRUE(b.admit(at(10_ms)));
  EXPECT_FALSE(b.admit(at(10_ms)));
  EXPECT_TRUE(b.admit(at(20_ms)));
  // A second of quiet: ten again, and the eleventh waits for its interval.
  int admitted = 0;
  for (int i = 0; i < 20; ++i) admitted += b.admit(at(2_s)) ? 1 : 0;
  EXPECT_EQ(admitted, 10);
  EXPECT_EQ(b.admitted(), 22u);
  EXPECT_EQ(b.refused(), 13u);
}

// Over any long stretch it admits rate x time + burst, whatever the arrivals.
TEST(TokenBucket, NeverAdmitsMoreThanRateTimesTimePlusBurst) {
  TokenBucket b(250, 5);
  uint64_t admitted = 0;
  for (int64_t us = 0; us < 4'000'000; us += 700) admitted += b.admit(at(sim::Duration::us(us))) ? 1u : 0u;
  EXPECT_LE(admitted, 250u * 4 + 5);
  EXPECT_GE(admitted, 250u * 4 - 1);
}

// A rate that does not divide a second: the interval rounds up (1,000.001ns -> 1,001ns), so the
// bucket never admits more than the rate.
TEST(TokenBucket, ARateThatDoesNotDivideASecondRoundsItsIntervalUp) {
  TokenBucket b(999'999, 1);
  EXPECT_TRUE(b.admit(at(0_ns)));
  EXPECT_FALSE(b.admit(at(1000_ns)));
  EXPECT_TRUE(b.admit(at(1001_ns)));
}

TEST(TokenBucket, RateZeroAdmitsEverything) {
  TokenBucket b(0, 1);
  EXPECT_FALSE(b.limited());
  for (int i = 0; i < 1000; ++i) EXPECT_TRUE(b.admit(at(0_ms)));
  EXPECT_THROW(TokenBucket(10, 0), std::invalid_argument);
  EXPECT_THROW(TokenBucket(-1, 1), std::invalid_argument);
}

// closed -> open after three failures in a row -> half-open after open_for, one probe at a time
// -> closed on an answer, open again on none.
TEST(CircuitBreaker, OpensAfterThreeFailuresInARowAndProbesOnceItsTimeIsUp) {
  CircuitBreaker b;
  b.unanswered(at(0_ms));
  b.unanswered(at(1_ms));
  b.answered();  // not in a row
  b.unanswered(at(2_ms));
  b.unanswered(at(3_ms));
  EXPECT_EQ(b.state(), CircuitBreaker::State::closed);
  EXPECT_TRUE(b.allow(at(3_ms)));
  b.unanswered(at(4_ms));
  EXPECT_EQ(b.state(), CircuitBreaker::State::open);
  EXPECT_EQ(b.times_opened(), 1u);
  EXPECT_FALSE(b.allow(at(500_ms)));
  EXPECT_FALSE(b.allow(at(1003_ms)));
  // Half-open: one probe, the others wait for it.
  EXPECT_TRUE(b.allow(at(1004_ms)));
  EXPECT_EQ(b.state(), CircuitBreaker::State::half_open);
  EXPECT_FALSE(b.allow(at(1005_ms)));
  b.unanswered(at(1100_ms));  // the probe failed: open for another second
  EXPECT_EQ(b.state(), CircuitBreaker::State::open);
  EXPECT_FALSE(b.allow(at(2099_ms)));
  EXPECT_TRUE(b.allow(at(2100_ms)));
  b.answered();
  EXPECT_EQ(b.state(), CircuitBreaker::State::closed);
  EXPECT_TRUE(b.allow(at(2101_ms)));
  EXPECT_EQ(b.times_opened(), 2u);
}

// A probe whose process died never reports: another goes out after open_for, so the breaker
// cannot stay half-open for good. A restart closes it (in-process state).
// A call sent before the breaker opened and answered after does not close it; a probe's answer
// does, at once.
TEST(CircuitBreaker, ALateAnswerWhileOpenDoesNotCloseItAProbesAnswerDoes) {
  CircuitBreaker b({.failures_to_open = 1, .open_for = 1_s});
  b.unanswered(at(0_ms));
  b.answered();
  EXPECT_EQ(b.state(), CircuitBreaker::State::open);
  EXPECT_TRUE(b.allow(at(1_s)));
  b.answered();
  EXPECT_EQ(b.state(), CircuitBreaker::State::closed);
}

TEST(CircuitBreaker, ALostProbeIsReplacedAndARestartClosesIt) {
  CircuitBreaker b({.failures_to_open = 1, .open_for = 200_ms});
  b.unanswered(at(0_ms));
  EXPECT_TRUE(b.allow(at(200_ms)));
  EXPECT_FALSE(b.allow(at(399_ms)));
  EXPECT_TRUE(b.allow(at(400_ms)));
  b.reset();
  EXPECT_EQ(b.state(), CircuitBreaker::State::closed);
  EXPECT_EQ(b.times_opened(), 1u);
  EXPECT_STREQ(to_string(CircuitBreaker::State::half_open), "half-open");
}

}  // namespace
}  // namespace oversim::protocols
