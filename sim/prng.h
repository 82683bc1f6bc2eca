// Portable, seeded randomness. splitmix64 turns one seed into stream seeds; xoshiro256** is the
// stream; bounded integers use Lemire's multiply-shift with rejection (no modulo bias); chances
// are integer ratios. Everything here is specified bit for bit, unlike std::*_distribution, so a
// seed means the same run on every compiler and standard library.
#pragma once

#include <cstdint>
#include <string>

namespace oversim::sim {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next();

 private:
  uint64_t state_;
};

// A probability as an integer fraction: chance(Ratio{1, 20}) is true one time in twenty.
struct Ratio {
  uint64_t numerator = 0;
  uint64_t denominator = 1;
  static constexpr Ratio never() { return Ratio{0, 1}; }
  static constexpr Ratio always() { return Ratio{1, 1}; }
  static constexpr Ratio percent(uint64_t p) { return Ratio{p, 100}; }
  friend bool operator==(const Ratio&, const Ratio&) = default;
};
std::string format_ratio(Ratio r);  // "1/20"

class Prng {
 public:
  explicit Prng(uint64_t seed);
  uint64_t next();
  // Uniform in [0, bound); bound must be > 0.
  uint64_t bounded(uint64_t bound);
  // Uniform in [low, high], inclusive.
  int64_t between(int64_t low, int64_t high);
  bool chance(Ratio r);
  // An independent stream: seeded from this stream's next output through splitmix64.
  Prng fork();

 private:
  uint64_t s_[4];
};

}  // namespace oversim::sim
