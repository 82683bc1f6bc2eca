// Virtual time: int64 nanoseconds, as two distinct types so that an instant and a span cannot be
// confused. No floating point anywhere: a seed must mean the same thing on every build.
// `Instant` is true simulated time unless a name says otherwise (a node's local clock reading is
// also an Instant, see sim/node.h, and is named `local_*`).
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace oversim::sim {

// Time arithmetic never wraps. Inputs are range-checked where they enter (parsing, fault plans,
// flags), so an overflow here is a bug in oversim: it throws instead of producing a wrong run.
struct TimeOverflow : std::overflow_error {
  using std::overflow_error::overflow_error;
};
[[noreturn]] void throw_time_overflow(const char* operation);

namespace checked {
constexpr int64_t add(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) throw_time_overflow("+");
  return r;
}
constexpr int64_t sub(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) throw_time_overflow("-");
  return r;
}
constexpr int64_t mul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) throw_time_overflow("*");
  return r;
}
}  // namespace checked

class Duration {
 public:
  constexpr Duration() = default;
  static constexpr Duration ns(int64_t v) { return Duration(v); }
  static constexpr Duration us(int64_t v) { return Duration(checked::mul(v, 1'000)); }
  static constexpr Duration ms(int64_t v) { return Duration(checked::mul(v, 1'000'000)); }
  static constexpr Duration s(int64_t v) { return Duration(checked::mul(v, 1'000'000'000)); }
  static constexpr Duration zero() { return Duration(0); }
  static constexpr Duration max() { return Duration(INT64_MAX / 4); }

  constexpr int64_t count_ns() const { return ns_; }
  constexpr int64_t count_ms() const { return ns_ / 1'000'000; }

  constexpr Duration operator+(Duration o) const { return Duration(checked::add(ns_, o.ns_)); }
  constexpr Duration operator-(Duration o) const { return Duration(checked::sub(ns_, o.ns_)); }
  constexpr Duration operator-() const { return Duration(checked::sub(0, ns_)); }
  constexpr Duration operator*(int64_t k) const { return Duration(checked::mul(ns_, k)); }
  constexpr Duration operator/(int64_t k) const {
    if (k == 0 || (k == -1 && ns_ == INT64_MIN)) throw_time_overflow("/");
    return Duration(ns_ / k);
  }
  constexpr Duration& operator+=(Duration o) { return *this = *this + o; }
  constexpr Duration& operator-=(Duration o) { return *this = *this - o; }
  constexpr auto operator<=>(const Duration&) const = default;

 private:
  constexpr explicit Duration(int64_t v) : ns_(v) {}
  int64_t ns_ = 0;
};

class Instant {
 public:
  constexpr Instant() = default;
  static constexpr Instant from_ns(int64_t v) { return Instant(v); }
  static constexpr Instant zero() { return Instant(0); }
  static constexpr Instant max() { return Instant(INT64_MAX / 2); }

  constexpr int64_t ns() const { return ns_; }

  constexpr Instant operator+(Duration d) const { return Instant(checked::add(ns_, d.count_ns())); }
  constexpr Instant operator-(Duration d) const { return Instant(checked::sub(ns_, d.count_ns())); }
  constexpr Duration operator-(Instant o) const { return Duration::ns(checked::sub(ns_, o.ns_)); }
  constexpr Instant& operator+=(Duration d) { return *this = *this + d; }
  constexpr auto operator<=>(const Instant&) const = default;

 private:
  constexpr explicit Instant(int64_t v) : ns_(v) {}
  int64_t ns_ = 0;
};

// "1500ms", "2s", "250us", "7ns", "0": the largest unit that divides exactly; negatives keep "-".
std::string format_duration(Duration d);
// A human reading of a span: "850us", "66.35ms", "1.55s" (rounded, for tables; not parseable).
std::string format_span(Duration d);
// Seconds with microsecond precision and a fixed width, for aligned timelines: "   1.502000s".
std::string format_instant(Instant t);
// Parses "[+|-]<digits><unit>" with unit ns|us|ms|s|m|h; a bare "0" (or "+0", "-0") is zero. One sign at most,
// then digits only. nullopt on anything else, and on magnitudes above Duration::max().
std::optional<Duration> parse_duration(std::string_view text);
// The same, with a range: nullopt when the text does not parse; otherwise `error` says why the
// value is outside [min, max] (empty when it is inside).
struct DurationParse {
  std::optional<Duration> value;  // set when it parsed and is in range
  std::string error;              // "'+-5s' is not a duration ..." or "... is out of range (0..30d)"
};
DurationParse parse_duration_in(std::string_view text, Duration min, Duration max);

namespace literals {
constexpr Duration operator""_ns(unsigned long long v) { return Duration::ns(static_cast<int64_t>(v)); }
constexpr Duration operator""_us(unsigned long long v) { return Duration::us(static_cast<int64_t>(v)); }
constexpr Duration operator""_ms(unsigned long long v) { return Duration::ms(static_cast<int64_t>(v)); }
constexpr Duration operator""_s(unsigned long long v) { return Duration::s(static_cast<int64_t>(v)); }
}  // namespace literals

}  // namespace oversim::sim
