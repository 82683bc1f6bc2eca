#include "sim/time.h"

#include <gtest/gtest.h>

namespace oversim::sim {
namespace {
using namespace literals;

TEST(Time, DurationFormatsWithTheLargestExactUnit) {
  EXPECT_EQ(format_duration(1500_ms), "1500ms");
  EXPECT_EQ(format_duration(2_s), "2s");
  EXPECT_EQ(format_duration(120_s), "2m");
  EXPECT_EQ(format_duration(Duration::ns(7)), "7ns");
  EXPECT_EQ(format_duration(-3_ms), "-3ms");
  EXPECT_EQ(format_duration(Duration::zero()), "0");
}

TEST(Time, ParseIsTheInverseOfFormat) {
  for (Duration d : {1500_ms, 2_s, 120_s, Duration::ns(7), -3_ms, 250_us, Duration::zero()}) {
    auto parsed = parse_duration(format_duration(d));
    ASSERT_TRUE(parsed.has_value()) << format_duration(d);
    EXPECT_EQ(*parsed, d);
  }
}

TEST(Time, ParseRejectsGarbage) {
  EXPECT_FALSE(parse_duration(""));
  EXPECT_FALSE(parse_duration("5"));
  EXPECT_FALSE(parse_duration("1.5s"));
  EXPECT_FALSE(parse_duration("s"));
  EXPECT_FALSE(parse_duration("3h"));
  EXPECT_FALSE(parse_duration("99999999999999999s"));
}

TEST(Time, InstantFormatIsFixedWidthMicroseconds) {
  EXPECT_EQ(format_instant(Instant::zero() + 1502_ms), "   1.502000s");
  EXPECT_EQ(format_instant(Instant::zero() + Duration::us(3)), "   0.000003s");
}

TEST(Time, InstantArithmetic) {
  Instant t = Instant::zero() + 3_s;
  EXPECT_EQ(t - Instant::zero(), 3_s);
  EXPECT_LT(t, t + 1_ns);
  EXPECT_EQ((t - 1_s).ns(), 2'000'000'000);
}

}  // namespace
}  // namespace oversim::sim
