#include "sim/distribution.h"

#include <cmath>

#include <fmt/format.h>

#include "sim/world.h"

namespace oversim::sim {

namespace {

// The standard normal's quantiles at the midpoints of 256 equal-probability buckets, in
// millionths: z_i = Phi^-1((i + 0.5) / 256). Bucket 253 (z = 2.334) is the draw's p99.
constexpr int64_t kNormalMicros[256] = {
    -2885635, -2520502, -2335233, -2206575, -2106554, -2024014, -1953324, -1891229, -1835672, -1785262, -1739020, -1696223,
    -1656324, -1618900, -1583615, -1550199, -1518429, -1488122, -1459123, -1431302, -1404546, -1378760, -1353859, -1329771,
    -1306430, -1283781, -1261771, -1240356, -1219495, -1199152, -1179294, -1159890, -1140913, -1122338, -1104143, -1086306,
    -1068808, -1051631, -1034759, -1018177, -1001870, -985826, -970031, -954474, -939145, -924034, -909130, -894426,
    -879913, -865583, -851429, -837443, -823619, -809950, -796432, -783057, -769821, -756718, -743744, -730894,
    -718164, -705549, -693045, -680649, -668356, -656164, -644068, -632066, -620154, -608330, -596590, -584932,
    -573352, -561849, -550420, -539062, -527774, -516552, -505395, -494301, -483267, -472291, -461373, -450509,
    -439697, -428937, -418227, -407564, -396947, -386375, -375846, -365359, -354911, -344502, -334130, -323794,
    -313493, -303225, -292988, -282782, -272606, -262457, -252336, -242241, -232170, -222122, -212097, -202093,
    -192110, -182145, -172199, -162269, -152356, -142457, -132573, -122701, -112841, -102993, -93154, -83324,
    -73503, -63688, -53879, -44076, -34277, -24481, -14688, -4896, 4896, 14688, 24481, 34277,
    44076, 53879, 63688, 73503, 83324, 93154, 102993, 112841, 122701, 132573, 142457, 152356,
    162269, 172199, 182145, 192110, 202093, 212097, 222122, 232170, 242241, 252336, 262457, 272606,
    282782, 292988, 303225, 313493, 323794, 334130, 344502, 354911, 365359, 375846, 386375, 396947,
    407564, 418227, 428937, 439697, 450509, 461373, 472291, 483267, 494301, 505395, 516552, 527774,
    539062, 550420, 561849, 573352, 584932, 596590, 608330, 620154, 632066, 644068, 656164, 668356,
    680649, 693045, 705549, 718164, 730894, 743744, 756718, 769821, 783057, 796432, 809950, 823619,
    837443, 851429, 865583, 879913, 894426, 909130, 924034, 939145, 954474, 970031, 985826, 1001870,
    1018177, 1034759, 1051631, 1068808, 1086306, 1104143, 1122338, 1140913, 1159890, 1179294, 1199152, 1219495,
    1240356, 1261771, 1283781, 1306430, 1329771, 1353859, 1378760, 1404546, 1431302, 1459123, 1488122, 1518429,
    1550199, 1583615, 1618900, 1656324, 1696223, 1739020, 1785262, 1835672, 1891229, 1953324, 2024014, 2106554,
    2206575, 2335233, 2520502, 2885635,
};

// z_0.99 of the standard normal: a log-normal with p50 m and p99 q has sigma = ln(q/m) / z.
constexpr double kZ99 = 2.3263478740408408;
constexpr double kLn2 = 0.6931471805599453;

// A log-normal with p50 m and p99 q: sigma = ln(q/m) / z_0.99.
double lognormal_sigma(const Distribution& d) {
  return exact_log(static_cast<double>(d.high.count_ns()) / static_cast<double>(d.low.count_ns())) / kZ99;
}

}  // namespace

double exact_exp(double x) {
  // x = k ln2 + r with |r| <= ln2 / 2; e^r by its Taylor series; 2^k exactly.
  const double kd = x / kLn2;
  const int k = static_cast<int>(kd >= 0 ? kd + 0.5 : kd - 0.5);
  const double r = x - k * kLn2;
  double term = 1, sum = 1;
  for (int i = 1; i < 25; ++i) {
    term = term * r / i;
    sum = sum + term;
  }
  return std::ldexp(sum, k);
}

double exact_log(double x) {
  // x = m 2^e with m in [0.5, 1); ln m = 2 atanh((m - 1) / (m + 1)) by its series.
  int e = 0;
  const double m = std::frexp(x, &e);
  const double t = (m - 1) / (m + 1);
  const double t2 = t * t;
  double power = t, sum = 0;
  for (int i = 1; i < 60; i += 2) {
    sum = sum + power / i;
    power = power * t2;
  }
  return e * kLn2 + 2 * sum;
}

DistributionParse parse_distribution(const std::string& text, sim::Duration max) {
  auto one = [&](const std::string& part, sim::Duration lo) -> std::optional<sim::Duration> {
    const sim::DurationParse d = sim::parse_duration_in(part, lo, max);
    return d.value;
  };
  const std::string limits = fmt::format("a duration like 20ms, a range like 10ms..30ms, or p50=200ms,p99=800ms (each 0..{})", sim::format_duration(max));
  if (text.rfind("p50=", 0) == 0) {
    const size_t comma = text.find(",p99=");
    if (comma == std::string::npos) return {std::nullopt, fmt::format("'{}' is not {}", text, limits)};
    const auto p50 = one(text.substr(4, comma - 4), sim::Duration::ns(1));
    const auto p99 = one(text.substr(comma + 5), sim::Duration::ns(1));
    if (!p50 || !p99) return {std::nullopt, fmt::format("'{}' is not {}", text, limits)};
    if (*p99 < *p50) return {std::nullopt, fmt::format("'{}': the p99 is below the p50", text)};
    if (*p99 > *p50 * 1000) return {std::nullopt, fmt::format("'{}': a p99 more than 1000 times the p50 is not a log-normal anyone measured", text)};
    if (*p99 == *p50) return {Distribution{Spread::constant, *p50, *p50}, ""};
    return {Distribution{Spread::lognormal, *p50, *p99}, ""};
  }
  const size_t dots = text.find("..");
  if (dots != std::string::npos) {
    const auto lo = one(text.substr(0, dots), sim::Duration::zero());
    const auto hi = one(text.substr(dots + 2), sim::Duration::zero());
    if (!lo || !hi) return {std::nullopt, fmt::format("'{}' is not {}", text, limits)};
    if (*hi < *lo) return {std::nullopt, fmt::format("'{}' ends below where it starts", text)};
    if (*hi == *lo) return {Distribution{Spread::constant, *lo, *lo}, ""};
    return {Distribution{Spread::uniform, *lo, *hi}, ""};
  }
  const sim::DurationParse d = sim::parse_duration_in(text, sim::Duration::zero(), max);
  if (!d.value) return {std::nullopt, d.error};
  return {Distribution{Spread::constant, *d.value, *d.value}, ""};
}

std::string format_distribution(const Distribution& d) {
  switch (d.spread) {
    case Spread::constant: return sim::format_duration(d.low);
    case Spread::uniform: return fmt::format("{}..{}", sim::format_duration(d.low), sim::format_duration(d.high));
    case Spread::lognormal: return fmt::format("p50={},p99={}", sim::format_duration(d.low), sim::format_duration(d.high));
  }
  return "?";
}

double mean_ns(const Distribution& d) {
  switch (d.spread) {
    case Spread::constant: return static_cast<double>(d.low.count_ns());
    case Spread::uniform: return static_cast<double>(d.low.count_ns() + d.high.count_ns()) / 2;
    case Spread::lognormal: {
      const double sigma = lognormal_sigma(d);
      return static_cast<double>(d.low.count_ns()) * exact_exp(sigma * sigma / 2);
    }
  }
  return 0;
}

sim::Duration draw(sim::World& world, const Distribution& d) {
  switch (d.spread) {
    case Spread::constant: return d.low;
    case Spread::uniform: return sim::Duration::ns(world.random_between(d.low.count_ns(), d.high.count_ns()));
    case Spread::lognormal: {
      const double sigma = lognormal_sigma(d);
      const double z = static_cast<double>(kNormalMicros[world.random(256)]) / 1e6;
      const double ns = static_cast<double>(d.low.count_ns()) * exact_exp(sigma * z);
      return sim::Duration::ns(static_cast<int64_t>(ns + 0.5));
    }
  }
  return d.low;
}

}  // namespace oversim::sim
