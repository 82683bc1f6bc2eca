// Virtual time: int64 nanoseconds, as two distinct types so that an instant and a span cannot be
// confused. No floating point anywhere: a seed must mean the same thing on every build.
// `Instant` is true simulated time unless a name says otherwise (a node's local clock reading is
// also an Instant, see sim/node.h, and is named `local_*`).
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace oversim::sim {

class Duration {
 public:
  constexpr Duration() = default;
  static constexpr Duration ns(int64_t v) { return Duration(v); }
  static constexpr Duration us(int64_t v) { return Duration(v * 1'000); }
  static constexpr Duration ms(int64_t v) { return Duration(v * 1'000'000); }
  static constexpr Duration s(int64_t v) { return Duration(v * 1'000'000'000); }
  static constexpr Duration zero() { return Duration(0); }
  static constexpr Duration max() { return Duration(INT64_MAX / 4); }

  constexpr int64_t count_ns() const { return ns_; }
  constexpr int64_t count_ms() const { return ns_ / 1'000'000; }

  constexpr Duration operator+(Duration o) const { return Duration(ns_ + o.ns_); }
  constexpr Duration operator-(Duration o) const { return Duration(ns_ - o.ns_); }
  constexpr Duration operator-() const { return Duration(-ns_); }
  constexpr Duration operator*(int64_t k) const { return Duration(ns_ * k); }
  constexpr Duration operator/(int64_t k) const { return Duration(ns_ / k); }
  constexpr Duration& operator+=(Duration o) { ns_ += o.ns_; return *this; }
  constexpr Duration& operator-=(Duration o) { ns_ -= o.ns_; return *this; }
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

  constexpr Instant operator+(Duration d) const { return Instant(ns_ + d.count_ns()); }
  constexpr Instant operator-(Duration d) const { return Instant(ns_ - d.count_ns()); }
  constexpr Duration operator-(Instant o) const { return Duration::ns(ns_ - o.ns_); }
  constexpr Instant& operator+=(Duration d) { ns_ += d.count_ns(); return *this; }
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
// Parses "<integer><unit>" with unit ns|us|ms|s|m; a bare "0" is zero. nullopt on anything else.
std::optional<Duration> parse_duration(std::string_view text);

namespace literals {
constexpr Duration operator""_ns(unsigned long long v) { return Duration::ns(static_cast<int64_t>(v)); }
constexpr Duration operator""_us(unsigned long long v) { return Duration::us(static_cast<int64_t>(v)); }
constexpr Duration operator""_ms(unsigned long long v) { return Duration::ms(static_cast<int64_t>(v)); }
constexpr Duration operator""_s(unsigned long long v) { return Duration::s(static_cast<int64_t>(v)); }
}  // namespace literals

}  // namespace oversim::sim
