#include "sim/fault_plan.h"

#include <algorithm>
#include <charconv>
#include <map>

#include <fmt/format.h>

#include "sim/network.h"
#include "sim/world.h"

namespace oversim::sim {

__extension__ typedef __int128 I128;

const char* to_string(FaultKind kind) {
  switch (kind) {
    case FaultKind::pause: return "pause";
    case FaultKind::crash: return "crash";
    case FaultKind::restart: return "restart";
    case FaultKind::partition: return "partition";
    case FaultKind::isolate: return "isolate";
    case FaultKind::cut: return "cut";
    case FaultKind::heal: return "heal";
    case FaultKind::clock_jump: return "clock-jump";
    case FaultKind::clock_drift: return "clock-drift";
    case FaultKind::delay_next: return "delay-next";
    case FaultKind::hold: return "hold";
  }
  return "?";
}

namespace {

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) {
    if (!out.empty()) out += ',';
    out += n;
  }
  return out;
}

std::string signed_duration(Duration d) { return d < Duration::zero() ? format_duration(d) : fmt::format("+{}", format_duration(d)); }

std::vector<std::string_view> split_words(std::string_view text) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r')) ++i;
    size_t j = i;
    while (j < text.size() && text[j] != ' ' && text[j] != '\t' && text[j] != '\r') ++j;
    if (j > i) words.push_back(text.substr(i, j - i));
    i = j;
  }
  return words;
}

// Every item, empty ones included ("a,,b" has three), so that an empty name can be reported.
std::vector<std::string> split_names(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    out.emplace_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

bool valid_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

bool valid_point(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}

std::string_view ordinal_suffix(uint64_t n) {
  if (n % 100 >= 11 && n % 100 <= 13) return "th";
  switch (n % 10) {
    case 1: return "st";
    case 2: return "nd";
    case 3: return "rd";
    default: return "th";
  }
}

// "1.5x lock-ttl", "+2x lock-ttl" (signed: a clock jump).
std::string format_scale(const Scale& s, bool sign) {
  const int64_t m = s.milli < 0 ? -s.milli : s.milli;
  return fmt::format("{}{} {}", sign ? (s.milli < 0 ? "-" : "+") : "", format_multiple(m), s.quantity);
}

bool has_length(FaultKind k) { return k == FaultKind::pause || k == FaultKind::hold || k == FaultKind::delay_next; }

class FaultParser {
 public:
  FaultParser(std::string_view source, std::vector<std::string_view> words) : source_(source), words_(std::move(words)) {}

  Fault parse() {
    Fault f;
    const std::string_view when = next("'at' or 'on'");
    if (when == "at") {
      const std::string_view at = next("a time");
      if (!at.empty() && at.front() == '-') fail(fmt::format("the time '{}' must not be negative", at));
      f.at = duration(at, Duration::zero(), kMaxFaultTime);
    } else if (when == "on") {
      trigger(f);
    } else {
      fail(fmt::format("expected 'at' or 'on', got '{}'", when));
    }
    const std::string_view verb = next("a fault verb");
    if (verb == "pause") {
      f.kind = FaultKind::pause;
      f.node = name();
      expect("for");
      length(f);
    } else if (verb == "crash" || verb == "restart" || verb == "isolate") {
      f.kind = verb == "crash" ? FaultKind::crash : verb == "restart" ? FaultKind::restart : FaultKind::isolate;
      f.node = name();
    } else if (verb == "heal") {
      f.kind = FaultKind::heal;
    } else if (verb == "partition") {
      f.kind = FaultKind::partition;
      f.side_a = names();
      expect("|");
      f.side_b = names();
    } else if (verb == "cut" || verb == "delay-next" || verb == "hold") {
      f.kind = verb == "cut" ? FaultKind::cut : verb == "hold" ? FaultKind::hold : FaultKind::delay_next;
      f.node = name();
      expect("->");
      f.to = name();
      if (f.kind == FaultKind::delay_next) {
        expect("by");
        length(f);
      } else if (f.kind == FaultKind::hold) {
        expect("for");
        length(f);
      }
    } else if (verb == "clock-jump") {
      f.kind = FaultKind::clock_jump;
      f.node = name();
      const std::string_view jump = next("a signed duration such as +2s");
      if (!scaled(jump, true, f)) f.length = duration(jump);
    } else if (verb == "clock-drift") {
      f.kind = FaultKind::clock_drift;
      f.node = name();
      f.drift_ppm = ppm(next("a drift such as +200ppm"));
    } else {
      fail(fmt::format("unknown fault '{}' (expected pause, crash, restart, partition, isolate, cut, heal, clock-jump, clock-drift, delay-next or hold)", verb));
    }
    if (pos_ < words_.size()) fail(fmt::format("unexpected '{}'", words_[pos_]));
    if (auto problem = fault_problem(f)) fail(*problem);
    return f;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const { throw FaultPlanError(fmt::format("bad fault '{}': {}", source_, why)); }

  std::string_view next(const char* what) {
    if (pos_ >= words_.size()) fail(fmt::format("expected {} at the end", what));
    return words_[pos_++];
  }
  void expect(std::string_view word) {
    const std::string_view got = next(fmt::format("'{}'", word).c_str());
    if (got != word) fail(fmt::format("expected '{}', got '{}'", word, got));
  }
  Duration duration(std::string_view text, Duration min = -kMaxFaultLength, Duration max = kMaxFaultLength) {
    const DurationParse d = parse_duration_in(text, min, max);
    if (!d.value) fail(d.error);
    return *d.value;
  }
  // `on [Nth] point [in node] [after delay]`
  void trigger(Fault& f) {
    std::string_view word = next("a fault point");
    if (!word.empty() && word.front() >= '0' && word.front() <= '9') {
      f.trigger.nth = ordinal(word);
      word = next("a fault point");
    }
    if (!valid_point(word)) fail(fmt::format("'{}' is not a fault point name (lower case letters, digits and '_')", word));
    f.trigger.point = std::string(word);
    if (peek() == "in") {
      ++pos_;
      f.trigger.node = name();
      if (f.trigger.node == kHere) fail("'in here' names no node: leave 'in' out to count every node");
    }
    if (peek() == "after") {
      ++pos_;
      const std::string_view delay = next("a delay");
      if (!delay.empty() && delay.front() == '-') fail(fmt::format("the delay '{}' must not be negative", delay));
      f.at = duration(delay, Duration::zero(), kMaxFaultTime);
    }
  }
  uint32_t ordinal(std::string_view text) {
    size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
    uint64_t n = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + digits, n);
    const bool parsed = ec == std::errc() && ptr == text.data() + digits && n >= 1 && n <= kMaxTriggerNth;
    if (!parsed || text.substr(digits) != ordinal_suffix(n)) {
      fail(fmt::format("'{}' is not an ordinal such as 1st, 2nd, 3rd or 4th (at most {})", text, kMaxTriggerNth));
    }
    return static_cast<uint32_t>(n);
  }
  std::string_view peek() const { return pos_ < words_.size() ? words_[pos_] : std::string_view(); }
  // A fixed positive duration, or a positive multiple of a quantity ("1.5x lock-ttl").
  void length(Fault& f) {
    const std::string_view text = next("a duration");
    if (scaled(text, false, f)) return;
    f.length = duration(text);
    if (f.length <= Duration::zero()) fail(fmt::format("'{}' must be a positive duration", text));
  }
  // "1.5x" followed by a quantity name; `sign`: a leading + or - is required (a clock jump).
  bool scaled(std::string_view text, bool sign, Fault& f) {
    if (text.size() < 2 || text.back() != 'x') return false;
    std::string_view number = text.substr(0, text.size() - 1);
    bool negative = false;
    if (sign) {
      if (number.empty() || (number.front() != '+' && number.front() != '-')) return false;
      negative = number.front() == '-';
      number.remove_prefix(1);
    }
    const size_t dot = number.find('.');
    const std::string_view whole = number.substr(0, dot);
    const std::string_view frac = dot == std::string_view::npos ? std::string_view() : number.substr(dot + 1);
    auto digits_only = [](std::string_view d) { return !d.empty() && std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; }); };
    if (!digits_only(whole) || (dot != std::string_view::npos && (!digits_only(frac) || frac.size() > 3))) return false;
    uint64_t w = 0;
    const auto [ptr, ec] = std::from_chars(whole.data(), whole.data() + whole.size(), w);
    int64_t milli = 0;
    if (ec == std::errc() && ptr == whole.data() + whole.size() && w <= static_cast<uint64_t>(kMaxScaleMilli / 1000)) {
      milli = static_cast<int64_t>(w) * 1000;
      int64_t place = 100;
      for (char c : frac) {
        milli += (c - '0') * place;
        place /= 10;
      }
    } else {
      milli = kMaxScaleMilli + 1;
    }
    if (milli <= 0 || milli > kMaxScaleMilli) fail(fmt::format("'{}' must be a multiple above 0 and at most {}x", text, kMaxScaleMilli / 1000));
    const std::string_view quantity = next("a quantity such as lock-ttl");
    if (!valid_name(quantity) || quantity == kHere) fail(fmt::format("'{}' is not a quantity name", quantity));
    f.scale = Scale{negative ? -milli : milli, std::string(quantity)};
    return true;
  }
  std::string name() {
    const std::string_view n = next("a node name");
    if (!valid_name(n)) fail(fmt::format("'{}' is not a node name", n));
    return std::string(n);
  }
  std::vector<std::string> names() {
    const std::string_view text = next("node names separated by commas");
    std::vector<std::string> out = split_names(text);
    for (const std::string& n : out) {
      if (n.empty()) fail(fmt::format("'{}' has an empty node name", text));
      if (!valid_name(n)) fail(fmt::format("'{}' is not a node name", n));
    }
    return out;
  }
  int64_t ppm(std::string_view text) {
    std::string_view digits = text;
    if (digits.size() < 4 || digits.substr(digits.size() - 3) != "ppm") fail(fmt::format("'{}' is not a drift (e.g. +200ppm)", text));
    digits.remove_suffix(3);
    bool negative = false;
    if (digits.front() == '+' || digits.front() == '-') {
      negative = digits.front() == '-';
      digits.remove_prefix(1);
    }
    // One sign at most, then digits: from_chars would take "+-5ppm" as -5.
    if (digits.empty() || digits.front() < '0' || digits.front() > '9') fail(fmt::format("'{}' is not a drift (e.g. +200ppm)", text));
    uint64_t magnitude = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude);
    if (ec != std::errc() && ec != std::errc::result_out_of_range) fail(fmt::format("'{}' is not a drift (e.g. +200ppm)", text));
    if (ptr != digits.data() + digits.size()) fail(fmt::format("'{}' is not a drift (e.g. +200ppm)", text));
    const uint64_t limit = negative ? static_cast<uint64_t>(-kMinDriftPpm) : static_cast<uint64_t>(kMaxDriftPpm);
    if (ec == std::errc::result_out_of_range || magnitude > limit) {
      fail(fmt::format("drift '{}' is out of range ({}ppm..+{}ppm)", text, kMinDriftPpm, kMaxDriftPpm));
    }
    const auto v = static_cast<int64_t>(magnitude);
    return negative ? -v : v;
  }

  std::string_view source_;
  std::vector<std::string_view> words_;
  size_t pos_ = 0;
};

}  // namespace

std::vector<std::string> named_nodes(const Fault& f) {
  std::vector<std::string> out;
  if (!f.node.empty()) out.push_back(f.node);
  if (!f.to.empty()) out.push_back(f.to);
  out.insert(out.end(), f.side_a.begin(), f.side_a.end());
  out.insert(out.end(), f.side_b.begin(), f.side_b.end());
  return out;
}

std::optional<std::string> fault_problem(const Fault& f) {
  auto span = [](Duration d) { return format_duration(d); };
  if (f.at < Duration::zero()) return std::string("the time must not be negative");
  if (f.at > kMaxFaultTime) return fmt::format("the time {} is past the limit of {}", span(f.at), span(kMaxFaultTime));
  const bool timed = has_length(f.kind);
  if (f.triggered()) {
    if (!valid_point(f.trigger.point)) return fmt::format("'{}' is not a fault point name", f.trigger.point);
    if (f.trigger.nth < 1 || f.trigger.nth > kMaxTriggerNth) return fmt::format("the occurrence {} is out of range (1..{})", f.trigger.nth, kMaxTriggerNth);
    if (!f.trigger.node.empty() && (!valid_name(f.trigger.node) || f.trigger.node == kHere)) return fmt::format("'{}' is not a node name", f.trigger.node);
  } else if (!f.trigger.node.empty() || f.trigger.nth != 1) {
    return std::string("an 'at' fault has no trigger");
  } else {
    for (const std::string& n : named_nodes(f)) {
      if (n == kHere) return std::string("'here' is the node that reached a fault point: only an 'on' fault has one");
    }
  }
  const bool scaled = !f.scale.quantity.empty();
  if (scaled) {
    if (!timed && f.kind != FaultKind::clock_jump) return fmt::format("a {} fault has no length to scale", to_string(f.kind));
    if (!valid_name(f.scale.quantity)) return fmt::format("'{}' is not a quantity name", f.scale.quantity);
    const int64_t m = f.scale.milli < 0 ? -f.scale.milli : f.scale.milli;
    if (m == 0 || m > kMaxScaleMilli || (timed && f.scale.milli < 0)) return fmt::format("the multiple {} is out of range", format_scale(f.scale, !timed));
  } else if (f.scale.milli != 0) {
    return std::string("a multiple names no quantity");
  }
  if (timed && !scaled && f.length <= Duration::zero()) return fmt::format("'{}' must be a positive duration", span(f.length));
  if ((timed || f.kind == FaultKind::clock_jump) && (f.length > kMaxFaultLength || f.length < -kMaxFaultLength)) {
    return fmt::format("{} is out of range (at most {})", span(f.length), span(kMaxFaultLength));
  }
  if (f.kind == FaultKind::clock_drift && (f.drift_ppm < kMinDriftPpm || f.drift_ppm > kMaxDriftPpm)) {
    return fmt::format("drift {}ppm is out of range ({}ppm..+{}ppm)", f.drift_ppm, kMinDriftPpm, kMaxDriftPpm);
  }
  const bool has_node = f.kind != FaultKind::heal && f.kind != FaultKind::partition;
  const bool has_link = f.kind == FaultKind::cut || f.kind == FaultKind::hold || f.kind == FaultKind::delay_next;
  if (has_node && !valid_name(f.node)) return fmt::format("'{}' is not a node name", f.node);
  if (has_link && !valid_name(f.to)) return fmt::format("'{}' is not a node name", f.to);
  if (has_link && f.node == f.to) return fmt::format("a link from '{}' to itself carries no messages", f.node);
  if (f.kind == FaultKind::partition) {
    if (f.side_a.empty() || f.side_b.empty()) return std::string("a partition needs a node on each side");
    for (const auto* side : {&f.side_a, &f.side_b}) {
      for (size_t i = 0; i < side->size(); ++i) {
        const std::string& n = (*side)[i];
        if (!valid_name(n)) return fmt::format("'{}' is not a node name", n);
        if (std::find(side->begin(), side->begin() + static_cast<std::ptrdiff_t>(i), n) != side->begin() + static_cast<std::ptrdiff_t>(i)) {
          return fmt::format("'{}' is named twice on one side", n);
        }
      }
    }
    for (const std::string& n : f.side_a) {
      if (std::find(f.side_b.begin(), f.side_b.end(), n) != f.side_b.end()) return fmt::format("'{}' is on both sides: a node cannot be partitioned from itself", n);
    }
  }
  return std::nullopt;
}

std::optional<std::string> FaultPlan::problem() const {
  if (faults.size() > kMaxFaults) return fmt::format("a plan has at most {} faults, this one {}", kMaxFaults, faults.size());
  std::map<std::string, Duration> jumps;  // |jumps| summed per node
  for (const Fault& f : faults) {
    if (auto p = fault_problem(f)) return fmt::format("bad fault '{}': {}", sim::to_string(f), *p);
    if (f.kind != FaultKind::clock_jump) continue;
    Duration& sum = jumps[f.node];
    sum += f.length < Duration::zero() ? -f.length : f.length;
    if (sum > kMaxClockJumpsPerNode) {
      return fmt::format("bad fault '{}': the clock jumps on '{}' add up to more than {}", sim::to_string(f), f.node, format_duration(kMaxClockJumpsPerNode));
    }
  }
  return std::nullopt;
}

std::string format_ordinal(uint64_t n) { return fmt::format("{}{}", n, ordinal_suffix(n)); }

std::string format_multiple(int64_t milli) {
  std::string number = std::to_string(milli / 1000);
  if (milli % 1000 != 0) {
    std::string frac = fmt::format("{:03}", milli % 1000);
    while (frac.back() == '0') frac.pop_back();
    number += "." + frac;
  }
  return number + "x";
}

std::string to_string(const Fault& f) {
  std::string at;
  if (f.triggered()) {
    at = "on ";
    if (f.trigger.nth != 1) at += format_ordinal(f.trigger.nth) + " ";
    at += f.trigger.point;
    if (!f.trigger.node.empty()) at += fmt::format(" in {}", f.trigger.node);
    if (f.at != Duration::zero()) at += fmt::format(" after {}", format_duration(f.at));
    at += fmt::format(" {}", to_string(f.kind));
  } else {
    at = fmt::format("at {} {}", format_duration(f.at), to_string(f.kind));
  }
  const std::string length = f.scale.quantity.empty() ? format_duration(f.length) : format_scale(f.scale, false);
  switch (f.kind) {
    case FaultKind::pause: return fmt::format("{} {} for {}", at, f.node, length);
    case FaultKind::crash:
    case FaultKind::restart:
    case FaultKind::isolate: return fmt::format("{} {}", at, f.node);
    case FaultKind::heal: return at;
    case FaultKind::partition: return fmt::format("{} {} | {}", at, join(f.side_a), join(f.side_b));
    case FaultKind::cut: return fmt::format("{} {} -> {}", at, f.node, f.to);
    case FaultKind::delay_next: return fmt::format("{} {} -> {} by {}", at, f.node, f.to, length);
    case FaultKind::hold: return fmt::format("{} {} -> {} for {}", at, f.node, f.to, length);
    case FaultKind::clock_jump:
      return fmt::format("{} {} {}", at, f.node, f.scale.quantity.empty() ? signed_duration(f.length) : format_scale(f.scale, true));
    case FaultKind::clock_drift: return fmt::format("{} {} {}{}ppm", at, f.node, f.drift_ppm < 0 ? "" : "+", f.drift_ppm);
  }
  return at;
}

FaultPlan FaultPlan::parse(std::string_view text) {
  FaultPlan plan;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find_first_of(";\n#", start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view item = text.substr(start, end - start);
    // A comment runs to the end of its line, ';' included: it never splits into a fault.
    if (end < text.size() && text[end] == '#') {
      end = text.find('\n', end);
      if (end == std::string_view::npos) end = text.size();
    }
    std::vector<std::string_view> words = split_words(item);
    if (!words.empty()) {
      // trim for the error message
      const size_t first = item.find_first_not_of(" \t\r");
      const size_t last = item.find_last_not_of(" \t\r");
      plan.faults.push_back(FaultParser(item.substr(first, last - first + 1), std::move(words)).parse());
    }
    start = end + 1;
    if (plan.faults.size() > kMaxFaults) throw FaultPlanError(fmt::format("a plan has at most {} faults", kMaxFaults));
  }
  if (auto problem = plan.problem()) throw FaultPlanError(*problem);
  return plan;
}

std::string FaultPlan::to_string() const {
  std::string out;
  for (const Fault& f : faults) {
    if (!out.empty()) out += "; ";
    out += sim::to_string(f);
  }
  return out;
}

bool FaultPlan::triggered() const {
  return std::any_of(faults.begin(), faults.end(), [](const Fault& f) { return f.triggered(); });
}

FaultPlan FaultPlan::resolved(const Quantities& quantities) const {
  FaultPlan out = *this;
  for (Fault& f : out.faults) {
    if (f.scale.quantity.empty()) continue;
    const Quantity* q = nullptr;
    for (const Quantity& candidate : quantities) {
      if (candidate.name == f.scale.quantity) q = &candidate;
    }
    if (q == nullptr) {
      std::string known;
      for (const Quantity& k : quantities) known += fmt::format("{}{}", known.empty() ? "" : ", ", k.name);
      throw FaultPlanError(fmt::format("bad fault '{}': unknown quantity '{}' (known: {})", sim::to_string(f), f.scale.quantity, known));
    }
    // value * milli / 1000 in 128 bits: a quantity is at most a lease (hours), milli at most 10^6.
    const I128 ns = static_cast<I128>(q->value.count_ns()) * f.scale.milli / 1000;
    if (ns > kMaxFaultLength.count_ns() || ns < -kMaxFaultLength.count_ns()) {
      throw FaultPlanError(fmt::format("bad fault '{}': {} is past the limit of {}", sim::to_string(f), format_scale(f.scale, false), format_duration(kMaxFaultLength)));
    }
    f.length = Duration::ns(static_cast<int64_t>(ns));
    if (has_length(f.kind) && f.length <= Duration::zero()) {
      throw FaultPlanError(fmt::format("bad fault '{}': {} is {} here, not a positive duration", sim::to_string(f), f.scale.quantity, format_duration(q->value)));
    }
  }
  if (auto problem = out.problem()) throw FaultPlanError(*problem);
  return out;
}

Duration FaultPlan::settled_at() const {
  Duration end = Duration::zero();
  for (const Fault& f : faults) {
    if (f.triggered()) continue;
    Duration e = f.at;
    if (f.kind == FaultKind::pause || f.kind == FaultKind::hold || f.kind == FaultKind::delay_next) e += f.length;
    if (e > end) end = e;
  }
  return end;
}

std::optional<std::string> FaultPlan::unknown_node(const std::vector<std::string>& nodes) const {
  for (const Fault& f : faults) {
    std::vector<std::string> named = named_nodes(f);
    if (!f.trigger.node.empty()) named.insert(named.begin(), f.trigger.node);
    for (const std::string& n : named) {
      if (n == kHere && f.triggered()) continue;
      if (std::find(nodes.begin(), nodes.end(), n) != nodes.end()) continue;
      std::string known;
      for (const std::string& k : nodes) known += fmt::format("{}{}", known.empty() ? "" : ", ", k);
      return fmt::format("fault '{}' names unknown node '{}' (nodes: {})", sim::to_string(f), n, known);
    }
  }
  return std::nullopt;
}

namespace {

// Applies one concrete fault (every name resolved) now.
void fire(World& world, const Fault& f, const std::string& text) {
  world.trace_at(nullptr, "fault", {{"fault", text}});
  world.note_fault_applied(to_string(f.kind));
  if (f.kind == FaultKind::heal) {
    world.heal_struck_faults();
  } else if (f.kind == FaultKind::partition || f.kind == FaultKind::isolate || f.kind == FaultKind::cut) {
    world.note_fault_struck_until_heal(named_nodes(f));
  } else if (f.kind != FaultKind::restart) {
    const Duration lasts = f.kind == FaultKind::pause ? f.length : f.kind == FaultKind::clock_drift ? Duration::max() : Duration::zero();
    world.note_fault_struck(named_nodes(f), lasts);
  }
  Network& net = world.network();
  auto node_of = [&world](const std::string& name) -> Node& { return world.node(name); };
  switch (f.kind) {
    case FaultKind::pause: {
      Node& n = node_of(f.node);
      world.pause(n);
      n.extend_pause_until(world.now() + f.length);
      // Overlapping pauses: only the resume of the pause that ends last resumes.
      world.after(f.length, [&world, &n] {
        if (world.now() >= n.paused_until()) world.resume(n);
      });
      break;
    }
    case FaultKind::crash: world.crash(node_of(f.node)); break;
    case FaultKind::restart: world.restart(node_of(f.node)); break;
    case FaultKind::isolate: net.isolate(node_of(f.node).id()); break;
    case FaultKind::heal: net.heal(); break;
    case FaultKind::partition: {
      std::vector<NodeId> a, b;
      for (const std::string& n : f.side_a) a.push_back(node_of(n).id());
      for (const std::string& n : f.side_b) b.push_back(node_of(n).id());
      net.partition(a, b);
      break;
    }
    case FaultKind::cut: net.cut(node_of(f.node).id(), node_of(f.to).id()); break;
    case FaultKind::delay_next: net.delay_next(node_of(f.node).id(), node_of(f.to).id(), f.length); break;
    case FaultKind::hold: {
      const NodeId from = node_of(f.node).id();
      const NodeId to = node_of(f.to).id();
      net.hold(from, to);
      world.after(f.length, [&net, from, to] { net.release(from, to); });
      break;
    }
    case FaultKind::clock_jump: node_of(f.node).clock().jump(world.now(), f.length); break;
    case FaultKind::clock_drift: node_of(f.node).clock().set_drift_ppm(world.now(), f.drift_ppm); break;
  }
}

Duration played_out(const Fault& f) { return has_length(f.kind) ? f.at + f.length : f.at; }

// A triggered fault waiting for its occurrence.
struct Armed {
  Fault fault;
  std::string text;
  uint32_t seen = 0;
  bool fired = false;
};

// A fault ready to fire, with the text its trace line shows.
struct Bound {
  Fault fault;
  std::string shown;
};

// Faults that come at one instant, in the plan's order.
struct Group {
  Duration at;
  std::vector<Bound> faults;
};

void add_to_group(std::vector<Group>& groups, Duration at, Fault f, std::string shown) {
  auto it = std::find_if(groups.begin(), groups.end(), [at](const Group& g) { return g.at == at; });
  if (it == groups.end()) it = groups.insert(groups.end(), Group{at, {}});
  it->faults.push_back(Bound{std::move(f), std::move(shown)});
}

// One timer for the group: its faults fire one after another, in order, at that instant.
void schedule_group(World& world, Instant when, std::vector<Bound> faults) {
  world.at(when, [&world, faults = std::move(faults)] {
    for (const Bound& b : faults) fire(world, b.fault, b.shown);
  });
}

// `here` bound to the node that reached the point; nullopt (traced as fault-skipped) when the
// fault names `here` and no node reached it.
std::optional<Bound> bind_here(World& world, Fault f, const std::string& text, Node* at);

}  // namespace

void FaultPlan::apply(World& world) const {
  if (auto problem = this->problem()) throw FaultPlanError(*problem);
  for (const Fault& f : faults) {
    if (!f.scale.quantity.empty() && (f.length == Duration::zero())) {
      throw FaultPlanError(fmt::format("bad fault '{}': the plan was not resolved against the run's quantities", sim::to_string(f)));
    }
  }
  // Resolve every name first so a bad plan schedules nothing.
  std::vector<std::string> names;
  for (const auto& n : world.nodes()) names.push_back(n->name());
  if (auto unknown = unknown_node(names)) throw FaultPlanError(*unknown);
  auto armed = std::make_shared<std::vector<Armed>>();
  // Timed faults: one timer per instant, firing its faults in the order the plan writes them.
  // A timer each would tie at that instant and the strategy would order them by the seed: `at 1s
  // crash db; at 1s restart db` must leave db up, in every run.
  std::vector<Group> timed;
  for (const Fault& f : faults) {
    if (f.triggered()) {
      armed->push_back(Armed{f, sim::to_string(f)});
      continue;
    }
    world.fault_settles_at(Instant::zero() + played_out(f));
    add_to_group(timed, f.at, f, sim::to_string(f));
  }
  for (Group& g : timed) schedule_group(world, Instant::zero() + g.at, std::move(g.faults));
  if (armed->empty()) return;
  world.add_point_observer([&world, armed](std::string_view point, Node* at) {
    // Every fault this occurrence triggers, in plan order; those with the same delay share a
    // timer, as timed faults at one instant do.
    std::vector<Group> delayed;
    for (Armed& a : *armed) {
      const Trigger& t = a.fault.trigger;
      if (a.fired || t.point != point) continue;
      if (!t.node.empty() && (at == nullptr || at->name() != t.node)) continue;
      if (++a.seen != t.nth) continue;
      a.fired = true;
      std::optional<Bound> b = bind_here(world, a.fault, a.text, at);
      if (!b) continue;
      world.fault_settles_at(world.now() + played_out(b->fault));
      if (b->fault.at == Duration::zero()) {
        fire(world, b->fault, b->shown);
      } else {
        add_to_group(delayed, b->fault.at, b->fault, b->shown);
      }
    }
    for (Group& g : delayed) schedule_group(world, world.now() + g.at, std::move(g.faults));
  });
}

bool fire_triggered(World& world, Fault f, const std::string& text, Node* at) {
  std::optional<Bound> b = bind_here(world, std::move(f), text, at);
  if (!b) return false;
  world.fault_settles_at(world.now() + played_out(b->fault));
  if (b->fault.at == Duration::zero()) {
    fire(world, b->fault, b->shown);
  } else {
    world.after(b->fault.at, [&world, bound = std::move(*b)] { fire(world, bound.fault, bound.shown); });
  }
  return true;
}

namespace {

std::optional<Bound> bind_here(World& world, Fault f, const std::string& text, Node* at) {
  bool resolved = true;
  bool uses_here = false;
  auto here = [&](std::string& n) {
    if (n != kHere) return;
    uses_here = true;
    if (at == nullptr) resolved = false;
    else n = at->name();
  };
  here(f.node);
  here(f.to);
  for (std::string& n : f.side_a) here(n);
  for (std::string& n : f.side_b) here(n);
  if (!resolved) {
    world.trace_at(nullptr, "fault-skipped", {{"fault", text}, {"why", "no node reached the point"}});
    return std::nullopt;
  }
  std::string shown = uses_here ? fmt::format("{} (here: {})", text, at->name()) : text;
  return Bound{std::move(f), std::move(shown)};
}

}  // namespace

void heal_everything(World& world) {
  world.network().heal();
  world.heal_struck_faults();
  for (const auto& n : world.nodes()) {
    if (n->paused()) world.resume(*n);
    if (!n->up()) world.restart(*n);
    if (n->clock().drift_ppm() != 0) n->clock().set_drift_ppm(world.now(), 0);
  }
}

}  // namespace oversim::sim
