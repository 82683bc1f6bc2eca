// Latency distributions drawn from the run's seed: the remote call inside the critical section,
// a link class's one-way latency, Redis replication's lag, as a constant, a uniform range, or a
// log-normal given its p50 and p99. Draws use integer choices and basic floating-point operations only (+ - * /, no libm), so
// the same seed gives the same draw on every compiler and C library.
#pragma once

#include <optional>
#include <string>

#include "sim/time.h"

namespace oversim::sim {

class World;

enum class Spread : uint8_t { constant, uniform, lognormal };

struct Distribution {
  Spread spread = Spread::constant;
  sim::Duration low;   // constant: the value; uniform: the low end; lognormal: the p50
  sim::Duration high;  // uniform: the high end; lognormal: the p99; constant: = low
  sim::Duration p99() const { return spread == Spread::constant ? low : high; }
  static Distribution constant(sim::Duration d) { return Distribution{Spread::constant, d, d}; }
  friend bool operator==(const Distribution&, const Distribution&) = default;
};

// "20ms", "10ms..30ms", "p50=200ms,p99=800ms". The error names the value and the limits.
struct DistributionParse {
  std::optional<Distribution> value;
  std::string error;
};
DistributionParse parse_distribution(const std::string& text, sim::Duration max);
std::string format_distribution(const Distribution& d);

// The mean (a log-normal's is p50 * e^(sigma^2 / 2)), in nanoseconds.
double mean_ns(const Distribution& d);

// One draw (none for a constant, so a constant costs the run no choice).
sim::Duration draw(sim::World& world, const Distribution& d);

// exp and the natural log from basic operations only (for the log-normal's spread).
double exact_exp(double x);
double exact_log(double x);

}  // namespace oversim::sim
