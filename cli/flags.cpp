#include "cli/flags.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <charconv>

#include <fmt/format.h>

#include <random>

#include "properties/checker.h"
#include "protocols/profiles.h"
#include "protocols/registry.h"
#include "protocols/settings.h"

namespace oversim::cli {

namespace {

bool all_digits(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += fmt::format("{}{}", out.empty() ? "" : ", ", n);
  return out;
}

std::vector<std::string> profile_names() {
  std::vector<std::string> out;
  for (const auto& p : protocols::profiles()) out.push_back(p.name);
  return out;
}

bool is_single_word(const std::string& text) { return text.find_first_of(" \t\r\n;") == std::string::npos; }

}  // namespace

WorkloadFlags::WorkloadFlags() {
  const protocols::Workload w;
  buyers = std::to_string(w.buyers);
  stock = std::to_string(w.stock);
  skus = std::to_string(w.skus);
  apps = std::to_string(w.app_nodes);
  arrival = protocols::to_string(w.arrival);
  burst_window = sim::format_duration(w.burst_window);
  poisson_mean = sim::format_duration(w.poisson_mean);
  retries = std::to_string(w.max_retries);
  double_click = sim::format_ratio(w.double_click);
  remote_call = sim::format_duration(w.remote_call);
  lock_ttl = sim::format_duration(w.lock_ttl);
  lock_wait = sim::format_duration(w.lock_wait);
  gateway_timeout = sim::format_duration(w.gateway_timeout);
  replication_lag = sim::format_duration(w.replication_lag);
  persistence = protocols::to_string(w.redis_persistence);
  masters = std::to_string(w.redlock_masters);
  zk_servers = std::to_string(w.zk_servers);
  for (size_t i = 0; i < protocols::kSettingCount; ++i) settings[i] = protocols::settings()[i].get(w);
}

uint64_t unsigned_flag(const char* flag, const std::string& text, uint64_t lo, uint64_t hi) {
  uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  const bool parsed = all_digits(text) && ec == std::errc() && ptr == text.data() + text.size();
  if (!parsed && all_digits(text)) throw UsageError(fmt::format("{}: {} is out of range ({}..{})", flag, text, lo, hi));
  if (!parsed) throw UsageError(fmt::format("{}: '{}' is not a number (an integer {}..{})", flag, text, lo, hi));
  if (v < lo || v > hi) throw UsageError(fmt::format("{}: {} is out of range ({}..{})", flag, text, lo, hi));
  return v;
}

int64_t integer_flag(const char* flag, const std::string& text, int64_t lo, int64_t hi) {
  const bool negative = !text.empty() && text.front() == '-';
  const std::string digits = negative ? text.substr(1) : text;
  if (!all_digits(digits)) throw UsageError(fmt::format("{}: '{}' is not a number (an integer {}..{})", flag, text, lo, hi));
  int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || v < lo || v > hi) {
    throw UsageError(fmt::format("{}: {} is out of range ({}..{})", flag, text, lo, hi));
  }
  return v;
}

sim::Duration duration_flag(const char* flag, const std::string& text, sim::Duration lo, sim::Duration hi) {
  const sim::DurationParse d = sim::parse_duration_in(text, lo, hi);
  if (!d.value) throw UsageError(fmt::format("{}: {}", flag, d.error));
  return *d.value;
}

sim::Ratio ratio_flag(const char* flag, const std::string& text) {
  const size_t slash = text.find('/');
  const std::string num_text = slash == std::string::npos ? text : text.substr(0, slash);
  const std::string den_text = slash == std::string::npos ? "" : text.substr(slash + 1);
  uint64_t num = 0, den = 0;
  bool ok = slash != std::string::npos && all_digits(num_text) && all_digits(den_text);
  if (ok) {
    auto a = std::from_chars(num_text.data(), num_text.data() + num_text.size(), num);
    auto b = std::from_chars(den_text.data(), den_text.data() + den_text.size(), den);
    ok = a.ec == std::errc() && b.ec == std::errc() && den > 0 && den <= 1'000'000'000 && num <= den;
  }
  if (!ok) throw UsageError(fmt::format("{}: '{}' is not a ratio like 1/4 (numerator <= denominator, 0 < denominator <= 10^9)", flag, text));
  return sim::Ratio{num, den};
}

uint64_t seed_flag(const char* flag, const std::string& text) {
  if (!all_digits(text)) throw UsageError(fmt::format("{}: '{}' is not a seed (an integer 0..{})", flag, text, UINT64_MAX));
  return unsigned_flag(flag, text, 0, UINT64_MAX);
}

SeedRange seeds_flag(const std::string& seeds, const std::string& first_seed, bool first_seed_given, uint64_t max_count) {
  SeedRange r;
  const size_t dots = seeds.find("..");
  if (dots != std::string::npos) {
    if (first_seed_given) throw UsageError(fmt::format("--seeds: '{}' is a range; it cannot be combined with --first-seed", seeds));
    r.first = seed_flag("--seeds", seeds.substr(0, dots));
    const uint64_t last = seed_flag("--seeds", seeds.substr(dots + 2));
    if (last < r.first) throw UsageError(fmt::format("--seeds: '{}' ends before it starts", seeds));
    if (last - r.first >= max_count) throw UsageError(fmt::format("--seeds: '{}' has more than {} seeds", seeds, max_count));
    r.count = last - r.first + 1;
    return r;
  }
  r.count = unsigned_flag("--seeds", seeds, 1, max_count);
  r.first = seed_flag("--first-seed", first_seed);
  if (r.first > UINT64_MAX - (r.count - 1)) {
    throw UsageError(fmt::format("--first-seed {} with --seeds {} runs past the last seed, {}", r.first, r.count, UINT64_MAX));
  }
  return r;
}

std::string resolve_first_seed(const std::string& first_seed, const std::string& seeds) {
  // A range in --seeds names its own first seed: left for seeds_flag to refuse the pair.
  if (first_seed != "random" || seeds.find("..") != std::string::npos) return first_seed;
  std::random_device entropy;
  const uint64_t high = entropy();
  const uint64_t low = entropy();
  const uint64_t drawn = 1 + (((high << 32) | low) % ((uint64_t{1} << 40) - 1));
  std::string range = fmt::format("--first-seed {} --seeds {}", drawn, seeds);
  if (all_digits(seeds) && !seeds.empty() && seeds.size() < 8) {
    range = fmt::format("--seeds {}..{}", drawn, drawn + std::stoull(seeds) - 1);
  }
  fmt::print(stderr, "oversim: --first-seed random drew {}: run these seeds again with {}\n", drawn, range);
  return std::to_string(drawn);
}

std::vector<std::string> list_flag(const char* flag, const std::string& text, const std::vector<std::string>& everything) {
  if (text == "all") return everything;
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string item = text.substr(start, comma - start);
    if (item.empty()) throw UsageError(fmt::format("{}: '{}' has an empty name (a comma-separated list, or all)", flag, text));
    if (std::find(out.begin(), out.end(), item) != out.end()) throw UsageError(fmt::format("{}: '{}' names '{}' twice", flag, text, item));
    out.push_back(std::move(item));
    start = comma + 1;
  }
  return out;
}

namespace {
// A name with a '+' that is not a combination of profiles.
[[noreturn]] void bad_combination(const std::string& text) {
  throw UsageError(fmt::format("--faults: combination '{}': {} (profiles: {})", text, *protocols::combination_problem(text), join(profile_names())));
}
}  // namespace

std::string plan_file_flag(const std::string& text) {
  if (text.size() < 2 || text[0] != '@') return text;
  const std::string path = text.substr(1);
  std::error_code ec;
  // A regular file of reasonable size: '@/dev/zero' or a fifo must not read forever.
  if (!std::filesystem::is_regular_file(path, ec)) throw UsageError(fmt::format("--faults: cannot read the plan file '{}' (not a regular file)", path));
  const auto bytes = std::filesystem::file_size(path, ec);
  if (ec || bytes > (1u << 20)) throw UsageError(fmt::format("--faults: the plan file '{}' is larger than 1 MiB", path));
  std::ifstream in(path);
  if (!in) throw UsageError(fmt::format("--faults: cannot read the plan file '{}'", path));
  std::string out, line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    size_t start = 0;
    while (start <= line.size()) {
      const size_t semi = std::min(line.find(';', start), line.size());
      const std::string item = line.substr(start, semi - start);
      const size_t first = item.find_first_not_of(" \t\r");
      if (first != std::string::npos) {
        if (!out.empty()) out += "; ";
        out += item.substr(first, item.find_last_not_of(" \t\r") - first + 1);
      }
      start = semi + 1;
    }
  }
  if (in.bad()) throw UsageError(fmt::format("--faults: cannot read the plan file '{}'", path));
  if (out.empty()) throw UsageError(fmt::format("--faults: the plan file '{}' holds no fault (write 'none' in it for no faults)", path));
  return out;
}

FaultsChoice faults_flag(const std::string& text) {
  if (text.empty()) throw UsageError("--faults: empty (a profile name, 'none' for no faults, or a plan like 'at 10ms pause app-1 for 2s')");
  if (protocols::is_profile(text)) return FaultsChoice{text, {}};
  if (is_single_word(text)) {
    if (text.find('+') != std::string::npos) bad_combination(text);
    if (text == "all" || text.find(',') != std::string::npos) {
      std::string both = text == "all" ? "gc-pause+failover" : text;
      std::replace(both.begin(), both.end(), ',', '+');
      throw UsageError(fmt::format("--faults: '{}' is a list of profiles: compare and hash take lists (a row each); this command takes one profile, or a "
                                   "combination such as {} (every run suffers a fault of each)",
                                   text, both));
    }
    for (const protocols::ProfileSet& ps : protocols::profile_sets()) {
      if (ps.name == text) {
        throw UsageError(fmt::format("--faults: '{}' is a set of profiles ({}): compare and hash take it; this command takes one of them", text, join(ps.profiles)));
      }
    }
    throw UsageError(fmt::format("--faults: unknown profile '{}' (profiles: {}; or a plan like 'at 10ms pause app-1 for 2s')", text, join(profile_names())));
  }
  try {
    FaultsChoice c{"", sim::FaultPlan::parse(text)};
    if (c.plan.empty()) throw UsageError("--faults: the plan has no faults (use 'none' for no faults)");
    return c;
  } catch (const sim::FaultPlanError& e) {
    throw UsageError(fmt::format("--faults: {}", e.what()));
  }
}

std::vector<FaultsChoice> faults_list_flag(const std::string& text) {
  if (text.empty()) throw UsageError("--faults: empty (all, profile names separated by commas, or a plan)");
  // A plan has spaces ("at 1s crash db"); a list of profiles has none.
  if (!is_single_word(text)) return {faults_flag(text)};
  std::vector<FaultsChoice> out;
  for (const std::string& name : list_flag("--faults", text, profile_names())) {
    const protocols::ProfileSet* set = nullptr;
    for (const protocols::ProfileSet& ps : protocols::profile_sets()) {
      if (ps.name == name) set = &ps;
    }
    if (set != nullptr) {
      for (const std::string& p : set->profiles) out.push_back(FaultsChoice{p, {}});
      continue;
    }
    if (name.find('+') != std::string::npos && !protocols::is_profile(name)) bad_combination(name);
    if (!protocols::is_profile(name)) {
      throw UsageError(fmt::format("--faults: unknown profile '{}' (profiles: {}; sets: redlock; a combination a+b; or all)", name, join(profile_names())));
    }
    out.push_back(FaultsChoice{name, {}});
  }
  return out;
}

std::vector<std::string> properties_flag(const std::string& text) {
  if (text.empty()) return properties::default_asserted();
  std::vector<std::string> all;
  for (const auto& p : properties::catalogue()) {
    if (p.kind != properties::Kind::sometimes) all.push_back(p.name);
  }
  std::vector<std::string> names = list_flag("--properties", text, all);
  for (const std::string& n : names) {
    const properties::Property* p = properties::find_property(n);
    if (p == nullptr) throw UsageError(fmt::format("--properties: unknown property '{}' (see oversim list properties)", n));
    if (p->kind == properties::Kind::sometimes) throw UsageError(fmt::format("--properties: '{}' is a 'sometimes' property: it is counted, not asserted", n));
  }
  return names;
}

std::vector<std::string> points_flag(const std::string& text, const protocols::Design& design, const protocols::Workload& w) {
  if (text == "all") return {};
  std::vector<std::string> points = list_flag("--points", text, protocols::fault_points());
  for (const std::string& p : points) {
    if (auto why = protocols::point_unreachable(p, "", design, w)) throw UsageError(fmt::format("--points: {}: no fault could strike there", *why));
  }
  return points;
}

const protocols::Design& design_flag(const std::string& name) {
  const protocols::Design* d = protocols::find_design(name);
  if (d == nullptr) {
    std::vector<std::string> known;
    for (const auto* k : protocols::designs()) known.push_back(k->name);
    throw UsageError(fmt::format("--variant: unknown variant '{}' (known: {})", name, join(known)));
  }
  return *d;
}

protocols::Workload to_workload(const WorkloadFlags& f) {
  using sim::Duration;
  protocols::Workload w;
  w.buyers = static_cast<int>(integer_flag("--buyers", f.buyers, 0, 100'000));
  w.stock = integer_flag("--stock", f.stock, 0, 1'000'000);
  w.skus = static_cast<int>(integer_flag("--skus", f.skus, 1, 1000));
  w.app_nodes = static_cast<int>(integer_flag("--apps", f.apps, 1, 64));
  if (f.arrival == "burst") w.arrival = protocols::Arrival::burst;
  else if (f.arrival == "poisson") w.arrival = protocols::Arrival::poisson;
  else if (f.arrival == "ramp") w.arrival = protocols::Arrival::ramp;
  else if (f.arrival == "slots") w.arrival = protocols::Arrival::slots;
  else throw UsageError(fmt::format("--arrival: unknown arrival '{}' (expected burst, poisson, ramp or slots)", f.arrival));
  w.burst_window = duration_flag("--burst-window", f.burst_window, Duration::zero(), kMaxWorkloadSpan);
  w.poisson_mean = duration_flag("--poisson-mean", f.poisson_mean, Duration::us(1), kMaxWorkloadSpan);
  w.max_retries = static_cast<int>(integer_flag("--retries", f.retries, 0, 10));
  w.double_click = ratio_flag("--double-click", f.double_click);
  const protocols::DistributionParse call = protocols::parse_distribution(f.remote_call, kMaxWorkloadSpan);
  if (!call.value) throw UsageError(fmt::format("--remote-call: {}", call.error));
  w.remote_call = call.value->low;
  w.remote_call_spread = call.value->spread;
  // A constant leaves the high end at its default: it means nothing then, and a profile that
  // widens --remote-call sets remote_call alone, so the two stay equal Workloads.
  w.remote_call_high = call.value->spread == protocols::Spread::constant ? protocols::Workload{}.remote_call_high : call.value->high;
  // Redis PX takes whole milliseconds: 1500us would silently become PX 1.
  w.lock_ttl = duration_flag("--lock-ttl", f.lock_ttl, Duration::ms(1), kMaxLease);
  if (w.lock_ttl.count_ns() % 1'000'000 != 0) throw UsageError(fmt::format("--lock-ttl: '{}' is not a whole number of milliseconds (Redis PX)", f.lock_ttl));
  w.lock_wait = duration_flag("--lock-wait", f.lock_wait, Duration::zero(), kMaxLease);
  w.gateway_timeout = duration_flag("--gateway-timeout", f.gateway_timeout, Duration::ms(1), kMaxLease);
  const protocols::DistributionParse lag = protocols::parse_distribution(f.replication_lag, kMaxWorkloadSpan);
  if (!lag.value) throw UsageError(fmt::format("--replication-lag: {}", lag.error));
  w.replication_lag = lag.value->low;
  w.replication_spread = lag.value->spread;
  // As --remote-call: a constant leaves the high end at its default.
  w.replication_high = lag.value->spread == protocols::Spread::constant ? protocols::Workload{}.replication_high : lag.value->high;
  const auto persistence = protocols::parse_persistence(f.persistence);
  if (!persistence) throw UsageError(fmt::format("--persistence: unknown setting '{}' (expected none, everysec or always)", f.persistence));
  w.redis_persistence = *persistence;
  // Up to 9 masters: more is no deployment anyone runs, and each costs the client a round trip.
  w.redlock_masters = static_cast<int>(integer_flag("--masters", f.masters, 1, protocols::kMaxRedLockMasters));
  w.zk_servers = static_cast<int>(integer_flag("--zk-servers", f.zk_servers, 1, protocols::kMaxZkServers));
  for (size_t i = 0; i < protocols::kSettingCount; ++i) {
    const protocols::Setting& s = protocols::settings()[i];
    if (auto error = s.set(w, f.settings[i])) throw UsageError(fmt::format("{}: {}", s.flag, *error));
  }
  if (!f.latency.empty()) {
    // One latency (constant) or a range; either way without the default's slow tail.
    const size_t dots = f.latency.find("..");
    w.latency_min = duration_flag("--latency", dots == std::string::npos ? f.latency : f.latency.substr(0, dots), Duration::ns(1), kMaxWorkloadSpan);
    w.latency_max = dots == std::string::npos ? w.latency_min : duration_flag("--latency", f.latency.substr(dots + 2), Duration::ns(1), kMaxWorkloadSpan);
    if (w.latency_max < w.latency_min) throw UsageError(fmt::format("--latency: '{}' ends below where it starts", f.latency));
    w.latency_tail = false;
  }
  return w;
}

protocols::Search search_flag(const std::string& text, std::string* schedule) {
  protocols::Search s;
  const std::string usage = "random, pct, pct:D with a depth D of 1..20, or swarm";
  if (text == "random") return s;
  if (text.rfind(protocols::kChoicesPrefix, 0) == 0) {
    if (schedule == nullptr) throw UsageError(fmt::format("--strategy: a choice list is a run's exact schedule; here give {}", usage));
    try {
      protocols::choice_schedule(text);
    } catch (const std::invalid_argument& e) {
      throw UsageError(fmt::format("--strategy: {}", e.what()));
    }
    *schedule = text;
    return s;
  }
  if (text == "swarm") {
    s.kind = protocols::Search::Kind::swarm;
    return s;
  }
  if (text.rfind("pct", 0) != 0) throw UsageError(fmt::format("--strategy: unknown strategy '{}' (expected {})", text, usage));
  s.kind = protocols::Search::Kind::pct;
  if (text == "pct") return s;
  const std::string rest = text.substr(3);
  const size_t second = rest.find(':', 1);
  if (rest.empty() || rest[0] != ':') throw UsageError(fmt::format("--strategy: unknown strategy '{}' (expected {})", text, usage));
  s.depth = static_cast<uint32_t>(unsigned_flag("--strategy", rest.substr(1, second == std::string::npos ? std::string::npos : second - 1), 1, 20));
  if (second != std::string::npos) {
    if (schedule == nullptr) throw UsageError(fmt::format("--strategy: '{}' is a run's exact schedule; here give pct or pct:D", text));
    unsigned_flag("--strategy", rest.substr(second + 1), 1, UINT64_MAX);
    *schedule = text;
  }
  return s;
}

protocols::Scenario profile_scenario(const std::string& profile, const protocols::Scenario& base) {
  try {
    return protocols::apply_profile(profile, base);
  } catch (const sim::FaultPlanError& e) {
    throw UsageError(fmt::format("--faults: the {} profile cannot build a plan for this workload (seed {}): {}; shorten --lock-ttl or --remote-call, "
                                 "or write a plan",
                                 profile, base.seed, e.what()));
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("--faults: {} for seed {}: {}", profile, base.seed, e.what()));
  }
}

protocols::Scenario scenario_of(const std::string& variant, const FaultsChoice& faults, uint64_t seed, const WorkloadFlags& flags,
                                const std::string& horizon, const std::string& strategy) {
  const protocols::Design& design = design_flag(variant);
  protocols::Scenario s;
  s.design = design.name;
  s.workload = to_workload(flags);
  s.typed = flags.typed;
  s.seed = seed;
  if (auto problem = protocols::workload_problem(s, design)) throw UsageError(*problem);
  s.horizon = duration_flag("--horizon", horizon, sim::Duration::s(1), kMaxHorizon);
  std::string exact;
  s.search = search_flag(strategy, &exact);
  if (faults.profile == "none" && !exact.empty()) {
    // No faults and an exact schedule: the reproduce line of a faultless counterexample.
    s.schedule = exact;
  } else if (!faults.profile.empty()) {
    if (!exact.empty()) throw UsageError(fmt::format("--strategy: '{}' is a run's exact schedule, for a plan; with a profile give pct or pct:D", exact));
    s = profile_scenario(faults.profile, s);
  } else {
    s.faults = faults.plan;
    if (auto problem = protocols::scenario_problem(s, design)) throw UsageError(fmt::format("--faults: {}", *problem));
    if (!exact.empty()) {
      s.schedule = exact;
    } else {
      try {
        s = protocols::apply_search(s);
      } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
      }
    }
  }
  if (auto problem = protocols::scenario_problem(s, design)) throw UsageError(fmt::format("--faults: {}", *problem));
  return s;
}

}  // namespace oversim::cli
