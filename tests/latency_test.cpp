// Latency distributions: the log-normal has the p50 and p99 it was given, the uniform stays in
// its range, a constant draws nothing, and exp/log from basic operations agree with the C
// library to the last bits that matter.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "sim/distribution.h"
#include "sim/world.h"

namespace oversim {
namespace {
using namespace sim::literals;
using sim::Distribution;
using sim::Spread;

TEST(Latency, ExactExpAndLogAgreeWithTheCLibrary) {
  for (double x : {-20.0, -3.3, -0.5, 0.0, 1e-9, 0.7, 1.0, 2.5, 10.0, 40.0}) {
    EXPECT_NEAR(sim::exact_exp(x) / std::exp(x), 1.0, 1e-14) << x;
  }
  for (double x : {1e-6, 0.1, 0.5, 1.0, 2.0, 4.0, 1000.0, 1e9}) {
    EXPECT_NEAR(sim::exact_log(x), std::log(x), 1e-12) << x;
  }
}

std::vector<sim::Duration> draws(const Distribution& d, int n) {
  sim::WorldConfig config;
  config.seed = 7;
  sim::World world(config);
  std::vector<sim::Duration> out;
  for (int i = 0; i < n; ++i) out.push_back(sim::draw(world, d));
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Latency, ALogNormalHasTheGivenP50AndP99) {
  const Distribution d{Spread::lognormal, 200_ms, 800_ms};
  const std::vector<sim::Duration> v = draws(d, 100'000);
  const double p50 = static_cast<double>(v[v.size() / 2].count_ns()) / 1e6;
  const double p99 = static_cast<double>(v[v.size() * 99 / 100].count_ns()) / 1e6;
  EXPECT_NEAR(p50, 200, 200 * 0.03);
  EXPECT_NEAR(p99, 800, 800 * 0.05);
  EXPECT_GT(v.front(), sim::Duration::zero());
}

TEST(Latency, AUniformRangeStaysInsideAndAConstantIsConstant) {
  const std::vector<sim::Duration> v = draws(Distribution{Spread::uniform, 10_ms, 30_ms}, 10'000);
  EXPECT_GE(v.front(), 10_ms);
  EXPECT_LE(v.back(), 30_ms);
  EXPECT_LT(v[v.size() / 10], 13_ms);
  EXPECT_GT(v[v.size() * 9 / 10], 27_ms);
  const std::vector<sim::Duration> c = draws(Distribution{Spread::constant, 20_ms, 20_ms}, 10);
  EXPECT_EQ(c.front(), 20_ms);
  EXPECT_EQ(c.back(), 20_ms);
}

TEST(Latency, ParsesAndFormatsTheThreeForms) {
  for (const char* text : {"20ms", "10ms..30ms", "p50=200ms,p99=800ms"}) {
    const auto d = sim::parse_distribution(text, 3600_s);
    ASSERT_TRUE(d.value) << text << ": " << d.error;
    EXPECT_EQ(sim::format_distribution(*d.value), text);
  }
  EXPECT_FALSE(sim::parse_distribution("p50=800ms,p99=200ms", 3600_s).value);
  EXPECT_FALSE(sim::parse_distribution("30ms..10ms", 3600_s).value);
  EXPECT_FALSE(sim::parse_distribution("p50=200ms", 3600_s).value);
  EXPECT_EQ(sim::parse_distribution("p50=200ms,p99=200ms", 3600_s).value->spread, Spread::constant);
}

}  // namespace
}  // namespace oversim
