#include "sim/time.h"

#include <fmt/format.h>
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
  EXPECT_FALSE(parse_duration("3d"));
  EXPECT_FALSE(parse_duration("99999999999999999s"));
  EXPECT_FALSE(parse_duration("-"));
  EXPECT_FALSE(parse_duration("+"));
  EXPECT_FALSE(parse_duration(" 5s"));
  EXPECT_FALSE(parse_duration("5 s"));
}

// from_chars accepts a sign of its own: "+-5s" used to mean -5s and "--5s" +5s, and
// "+-200002208m" overflowed while scaling (a fuzzer found all three).
TEST(Time, ParseTakesOneSignAtMost) {
  EXPECT_FALSE(parse_duration("+-5s"));
  EXPECT_FALSE(parse_duration("--5s"));
  EXPECT_FALSE(parse_duration("-+5s"));
  EXPECT_FALSE(parse_duration("+-200002208m"));
  EXPECT_FALSE(parse_duration("+-9999999999s"));
  EXPECT_EQ(parse_duration("-5s"), -5_s);
  EXPECT_EQ(parse_duration("+5s"), 5_s);
  EXPECT_EQ(parse_duration("3h"), 10800_s);
}

// Found by the fault-plan fuzzer: "-000ms" parsed as zero, a zero clock jump printed as "+0",
// and "+0" did not parse back.
TEST(Time, ASignedZeroParses) {
  EXPECT_EQ(parse_duration("+0"), Duration::zero());
  EXPECT_EQ(parse_duration("-0"), Duration::zero());
  EXPECT_EQ(parse_duration("-000ms"), Duration::zero());
  EXPECT_FALSE(parse_duration("+"));
  EXPECT_FALSE(parse_duration("+-0"));
}

TEST(Time, ParseRejectsMagnitudesPastTheLargestDuration) {
  const int64_t max_s = Duration::max().count_ns() / 1'000'000'000;
  EXPECT_EQ(parse_duration(fmt::format("{}s", max_s)), Duration::s(max_s));
  EXPECT_FALSE(parse_duration(fmt::format("{}s", max_s + 1)));
  EXPECT_FALSE(parse_duration(fmt::format("-{}s", max_s + 1)));
  EXPECT_FALSE(parse_duration("18446744073709551616ns"));
  EXPECT_FALSE(parse_duration("9223372036854775807ns"));
}

TEST(Time, RangedParseNamesTheProblemAndTheLimits) {
  const DurationParse bad = parse_duration_in("soon", Duration::zero(), 1_s);
  EXPECT_FALSE(bad.value);
  EXPECT_EQ(bad.error, "'soon' is not a duration (an integer with ns, us, ms, s, m or h, e.g. 500ms)");
  const DurationParse high = parse_duration_in("2s", Duration::zero(), 1_s);
  EXPECT_FALSE(high.value);
  EXPECT_EQ(high.error, "'2s' is out of range (0..1s)");
  EXPECT_EQ(parse_duration_in("-1ms", Duration::zero(), 1_s).error, "'-1ms' is out of range (0..1s)");
  EXPECT_EQ(parse_duration_in("99999999999999999999s", Duration::zero(), 1_s).error, "'99999999999999999999s' is out of range (0..1s)");
  EXPECT_EQ(parse_duration_in("1s", Duration::zero(), 1_s).value, 1_s);
}

// Arithmetic past int64 nanoseconds throws instead of wrapping: a run that gets there has a bug,
// and a wrapped clock would silently mean something else.
TEST(Time, ArithmeticOverflowThrowsInsteadOfWrapping) {
  EXPECT_THROW(Duration::s(INT64_MAX / 1'000'000), TimeOverflow);
  EXPECT_THROW(Duration::ns(INT64_MAX) + Duration::ns(1), TimeOverflow);
  EXPECT_THROW(Duration::ns(INT64_MIN) - Duration::ns(1), TimeOverflow);
  EXPECT_THROW(-Duration::ns(INT64_MIN), TimeOverflow);
  EXPECT_THROW(Duration::max() * 5, TimeOverflow);
  EXPECT_THROW(Duration::ns(INT64_MIN) / -1, TimeOverflow);
  EXPECT_THROW(Instant::from_ns(INT64_MAX) + Duration::ns(1), TimeOverflow);
  EXPECT_THROW(Instant::from_ns(INT64_MIN) - Instant::from_ns(1), TimeOverflow);
  EXPECT_EQ(Instant::max() + Duration::max(), Instant::from_ns(INT64_MAX / 2 + INT64_MAX / 4));
  EXPECT_EQ(format_span(Duration::ns(INT64_MIN)), "-9223372036.85s");
  EXPECT_EQ(format_instant(Instant::from_ns(INT64_MIN)), "-9223372036.854775s");
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
