// Local clock arithmetic: offset, drift in parts per million, jumps forward and back.
#include "sim/node.h"

#include <gtest/gtest.h>

namespace oversim::sim {
namespace {
using namespace literals;

Instant at(Duration d) { return Instant::zero() + d; }

TEST(LocalClock, WithoutFaultsItReadsTrueTime) {
  LocalClock c;
  EXPECT_EQ(c.local_at(at(1234_ms)), at(1234_ms));
  EXPECT_EQ(c.true_span_for(3_s), 3_s);
}

TEST(LocalClock, DriftScalesElapsedTimeFromTheMomentItIsSet) {
  LocalClock c;
  c.set_drift_ppm(at(10_s), 1000);  // 0.1% fast from t=10s
  EXPECT_EQ(c.local_at(at(10_s)), at(10_s));
  EXPECT_EQ(c.local_at(at(20_s)), at(20_s) + 10_ms);
  c.set_drift_ppm(at(20_s), -500);  // then 0.05% slow
  EXPECT_EQ(c.local_at(at(30_s)), at(30_s) + 10_ms - 5_ms);
}

TEST(LocalClock, AFastClockReachesALocalSpanSooner) {
  LocalClock c;
  c.set_drift_ppm(at(0_s), 250'000);  // 25% fast
  EXPECT_EQ(c.true_span_for(10_s), 8_s);
  c.set_drift_ppm(at(0_s), -500'000);  // half speed
  EXPECT_EQ(c.true_span_for(1_s), 2_s);
  // rounding up: the clock must have advanced at least `local` after the span
  c.set_drift_ppm(at(0_s), 333'333);
  const Duration span = c.true_span_for(Duration::ns(1000));
  EXPECT_GE(c.local_at(at(span)) - at(0_s), Duration::ns(1000));
  EXPECT_LT(c.local_at(at(span - Duration::ns(1))) - at(0_s), Duration::ns(1000));
}

TEST(LocalClock, JumpsStepTheReadingForwardAndBack) {
  LocalClock c;
  c.jump(at(5_s), 2_s);
  EXPECT_EQ(c.local_at(at(5_s)), at(7_s));
  EXPECT_EQ(c.local_at(at(6_s)), at(8_s));
  c.jump(at(6_s), -3_s);
  EXPECT_EQ(c.local_at(at(6_s)), at(5_s));
  c.set_offset(at(10_s), 100_ms);
  EXPECT_EQ(c.local_at(at(11_s)), at(11_s) + 100_ms);
}

TEST(LocalClock, JumpAndDriftCompose) {
  LocalClock c;
  c.set_drift_ppm(at(0_s), 100'000);  // +10%
  c.jump(at(10_s), 1_s);              // local 11s + 1s = 12s
  EXPECT_EQ(c.local_at(at(10_s)), at(12_s));
  EXPECT_EQ(c.local_at(at(20_s)), at(23_s));
}

}  // namespace
}  // namespace oversim::sim
