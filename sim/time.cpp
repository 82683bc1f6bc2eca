#include "sim/time.h"

#include <charconv>

#include <fmt/format.h>

namespace oversim::sim {

std::string format_duration(Duration d) {
  const int64_t v = d.count_ns();
  if (v == 0) return "0";
  struct Unit { int64_t ns; const char* name; };
  static constexpr Unit units[] = {{60'000'000'000, "m"}, {1'000'000'000, "s"}, {1'000'000, "ms"}, {1'000, "us"}};
  for (const Unit& u : units) {
    if (v % u.ns == 0) return fmt::format("{}{}", v / u.ns, u.name);
  }
  return fmt::format("{}ns", v);
}

std::string format_span(Duration d) {
  const int64_t v = d.count_ns();
  const int64_t a = v < 0 ? -v : v;
  const char* sign = v < 0 ? "-" : "";
  if (a < 1'000'000) return fmt::format("{}{}us", sign, (a + 500) / 1'000);
  if (a < 1'000'000'000) {
    const int64_t centi = (a + 5'000) / 10'000;  // hundredths of a millisecond
    return fmt::format("{}{}.{:02}ms", sign, centi / 100, centi % 100);
  }
  const int64_t centi = (a + 5'000'000) / 10'000'000;
  return fmt::format("{}{}.{:02}s", sign, centi / 100, centi % 100);
}

std::string format_instant(Instant t) {
  const int64_t v = t.ns();
  const int64_t abs_v = v < 0 ? -v : v;
  return fmt::format("{}{:>4}.{:06}s", v < 0 ? "-" : "", abs_v / 1'000'000'000, (abs_v % 1'000'000'000) / 1'000);
}

std::optional<Duration> parse_duration(std::string_view text) {
  if (text == "0") return Duration::zero();
  bool negative = false;
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  int64_t value = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr == begin) return std::nullopt;
  const std::string_view unit(ptr, static_cast<size_t>(end - ptr));
  int64_t scale = 0;
  if (unit == "ns") scale = 1;
  else if (unit == "us") scale = 1'000;
  else if (unit == "ms") scale = 1'000'000;
  else if (unit == "s") scale = 1'000'000'000;
  else if (unit == "m") scale = 60'000'000'000;
  else return std::nullopt;
  if (value > INT64_MAX / 4 / scale) return std::nullopt;
  return Duration::ns(negative ? -value * scale : value * scale);
}

}  // namespace oversim::sim
