#include "sim/time.h"

#include <charconv>

#include <fmt/format.h>

namespace oversim::sim {

namespace {
// |v| without overflow, INT64_MIN included.
uint64_t magnitude(int64_t v) { return v < 0 ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v); }
}  // namespace

void throw_time_overflow(const char* operation) {
  throw TimeOverflow(fmt::format("time arithmetic overflow in '{}' (a value out of range got past the input checks: please report it)", operation));
}

std::string format_duration(Duration d) {
  const int64_t v = d.count_ns();
  if (v == 0) return "0";
  struct Unit { int64_t ns; const char* name; };
  static constexpr Unit units[] = {{3'600'000'000'000, "h"}, {60'000'000'000, "m"}, {1'000'000'000, "s"}, {1'000'000, "ms"}, {1'000, "us"}};
  for (const Unit& u : units) {
    if (v % u.ns == 0) return fmt::format("{}{}", v / u.ns, u.name);
  }
  return fmt::format("{}ns", v);
}

std::string format_span(Duration d) {
  const int64_t v = d.count_ns();
  const uint64_t a = magnitude(v);
  const char* sign = v < 0 ? "-" : "";
  if (a < 1'000'000) return fmt::format("{}{}us", sign, (a + 500) / 1'000);
  if (a < 1'000'000'000) {
    const uint64_t centi = (a + 5'000) / 10'000;  // hundredths of a millisecond
    return fmt::format("{}{}.{:02}ms", sign, centi / 100, centi % 100);
  }
  const uint64_t centi = a / 10'000'000 + (a % 10'000'000 >= 5'000'000 ? 1 : 0);
  return fmt::format("{}{}.{:02}s", sign, centi / 100, centi % 100);
}

std::string format_instant(Instant t) {
  const int64_t v = t.ns();
  const uint64_t abs_v = magnitude(v);
  return fmt::format("{}{:>4}.{:06}s", v < 0 ? "-" : "", abs_v / 1'000'000'000, (abs_v % 1'000'000'000) / 1'000);
}

namespace {
enum class ParseStatus : uint8_t { ok, syntax, too_large };

ParseStatus parse_duration_status(std::string_view text, Duration& out) {
  bool negative = false;
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  // A bare zero needs no unit, signed or not: a clock jump of zero prints as "+0".
  if (text == "0") {
    out = Duration::zero();
    return ParseStatus::ok;
  }
  // Digits must follow: from_chars would accept a second sign ("+-5s", "--5s").
  if (text.empty() || text.front() < '0' || text.front() > '9') return ParseStatus::syntax;
  uint64_t value = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec == std::errc::result_out_of_range) return ParseStatus::too_large;
  if (ec != std::errc() || ptr == begin) return ParseStatus::syntax;
  const std::string_view unit(ptr, static_cast<size_t>(end - ptr));
  uint64_t scale = 0;
  if (unit == "ns") scale = 1;
  else if (unit == "us") scale = 1'000;
  else if (unit == "ms") scale = 1'000'000;
  else if (unit == "s") scale = 1'000'000'000;
  else if (unit == "m") scale = 60'000'000'000;
  else if (unit == "h") scale = 3'600'000'000'000;
  else return ParseStatus::syntax;
  const auto limit = static_cast<uint64_t>(Duration::max().count_ns());
  if (value > limit / scale) return ParseStatus::too_large;
  const auto magnitude = static_cast<int64_t>(value * scale);
  out = Duration::ns(negative ? -magnitude : magnitude);
  return ParseStatus::ok;
}
}  // namespace

std::optional<Duration> parse_duration(std::string_view text) {
  Duration d;
  if (parse_duration_status(text, d) != ParseStatus::ok) return std::nullopt;
  return d;
}

DurationParse parse_duration_in(std::string_view text, Duration min, Duration max) {
  DurationParse out;
  Duration d;
  const ParseStatus status = parse_duration_status(text, d);
  if (status == ParseStatus::syntax) {
    out.error = fmt::format("'{}' is not a duration (an integer with ns, us, ms, s, m or h, e.g. 500ms)", text);
  } else if (status == ParseStatus::too_large || d < min || d > max) {
    out.error = fmt::format("'{}' is out of range ({}..{})", text, format_duration(min), format_duration(max));
  } else {
    out.value = d;
  }
  return out;
}

}  // namespace oversim::sim
