#include "sim/prng.h"

#include <cassert>

#include <fmt/format.h>

namespace oversim::sim {
namespace {
__extension__ typedef unsigned __int128 U128;
uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

uint64_t SplitMix64::next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::string format_ratio(Ratio r) { return fmt::format("{}/{}", r.numerator, r.denominator); }

Prng::Prng(uint64_t seed) {
  SplitMix64 sm(seed);
  for (uint64_t& word : s_) word = sm.next();
}

uint64_t Prng::next() {
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

uint64_t Prng::bounded(uint64_t bound) {
  assert(bound > 0);
  U128 m = static_cast<U128>(next()) * bound;
  auto low = static_cast<uint64_t>(m);
  if (low < bound) {
    const uint64_t threshold = (0 - bound) % bound;
    while (low < threshold) {
      m = static_cast<U128>(next()) * bound;
      low = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

int64_t Prng::between(int64_t low, int64_t high) {
  assert(low <= high);
  const uint64_t span = static_cast<uint64_t>(high) - static_cast<uint64_t>(low) + 1;
  if (span == 0) return static_cast<int64_t>(next());  // the whole int64 range
  return static_cast<int64_t>(static_cast<uint64_t>(low) + bounded(span));
}

bool Prng::chance(Ratio r) {
  assert(r.denominator > 0);
  assert(r.numerator <= r.denominator);
  if (r.numerator == 0) return false;
  if (r.numerator >= r.denominator) return true;
  return bounded(r.denominator) < r.numerator;
}

Prng Prng::fork() { return Prng(next()); }

}  // namespace oversim::sim
