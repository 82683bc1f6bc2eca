#include "cli/commands.h"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include <fmt/format.h>

#include "properties/checker.h"
#include "sim/determinism.h"

namespace oversim::cli {

using properties::RunResult;
using protocols::Scenario;

namespace {

sim::Duration duration_flag(const char* flag, const std::string& text) {
  auto d = sim::parse_duration(text);
  if (!d || *d < sim::Duration::zero()) throw UsageError(fmt::format("{}: '{}' is not a duration (an integer with ns, us, ms, s or m, e.g. 500ms)", flag, text));
  return *d;
}

sim::Ratio ratio_flag(const char* flag, const std::string& text) {
  const size_t slash = text.find('/');
  uint64_t num = 0, den = 0;
  bool ok = slash != std::string::npos;
  if (ok) {
    auto a = std::from_chars(text.data(), text.data() + slash, num);
    auto b = std::from_chars(text.data() + slash + 1, text.data() + text.size(), den);
    ok = a.ec == std::errc() && a.ptr == text.data() + slash && b.ec == std::errc() && b.ptr == text.data() + text.size() && den > 0 && num <= den;
  }
  if (!ok) throw UsageError(fmt::format("{}: '{}' is not a ratio like 1/4 (numerator <= denominator, denominator > 0)", flag, text));
  return sim::Ratio{num, den};
}

template <class T>
void range_flag(const char* flag, T value, T lo, T hi) {
  if (value < lo || value > hi) throw UsageError(fmt::format("{}: {} is out of range ({}..{})", flag, value, lo, hi));
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    if (comma > start) out.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

const protocols::Design& design_flag(const std::string& name) {
  const protocols::Design* d = protocols::find_design(name);
  if (d == nullptr) {
    std::string known;
    for (const auto* k : protocols::designs()) known += fmt::format("{}{}", known.empty() ? "" : ", ", k->name);
    throw UsageError(fmt::format("--variant: unknown variant '{}' (known: {})", name, known));
  }
  return *d;
}

std::vector<std::string> properties_flag(const std::string& text) {
  if (text.empty()) return properties::default_asserted();
  std::vector<std::string> names = split_list(text);
  if (names.empty()) throw UsageError("--properties: no property named");
  for (const std::string& n : names) {
    const properties::Property* p = properties::find_property(n);
    if (p == nullptr) throw UsageError(fmt::format("--properties: unknown property '{}' (see oversim list properties)", n));
    if (p->kind == properties::Kind::sometimes) throw UsageError(fmt::format("--properties: '{}' is a 'sometimes' property: it is counted, not asserted", n));
  }
  return names;
}

// A profile name, or a fault plan (anything else must parse as one).
struct FaultsChoice {
  std::string profile;
  sim::FaultPlan plan;
};

FaultsChoice faults_flag(const std::string& text) {
  if (protocols::is_profile(text)) return FaultsChoice{text, {}};
  if (text.find("at ") == std::string::npos && text.find(' ') == std::string::npos && !text.empty()) {
    std::string known;
    for (const auto& p : protocols::profiles()) known += fmt::format("{}{}", known.empty() ? "" : ", ", p.name);
    throw UsageError(fmt::format("--faults: unknown profile '{}' (profiles: {}; or a plan like 'at 10ms pause app-1 for 2s')", text, known));
  }
  try {
    return FaultsChoice{"", sim::FaultPlan::parse(text)};
  } catch (const sim::FaultPlanError& e) {
    throw UsageError(fmt::format("--faults: {}", e.what()));
  }
}

void check_plan_nodes(const sim::FaultPlan& plan, const protocols::Workload& w) {
  std::vector<std::string> nodes = {"redis-1", "redis-2", "sentinel", "db"};
  for (int i = 1; i <= w.app_nodes; ++i) nodes.push_back(fmt::format("app-{}", i));
  auto known = [&](const std::string& n) { return n.empty() || std::find(nodes.begin(), nodes.end(), n) != nodes.end(); };
  for (const sim::Fault& f : plan.faults) {
    std::vector<std::string> named = f.side_a;
    named.insert(named.end(), f.side_b.begin(), f.side_b.end());
    named.push_back(f.node);
    named.push_back(f.to);
    for (const std::string& n : named) {
      if (!known(n)) {
        std::string all;
        for (const std::string& k : nodes) all += fmt::format("{}{}", all.empty() ? "" : ", ", k);
        throw UsageError(fmt::format("--faults: fault '{}' names unknown node '{}' (nodes: {})", sim::to_string(f), n, all));
      }
    }
  }
}

Scenario scenario_of(const std::string& variant, const FaultsChoice& faults, uint64_t seed, const WorkloadFlags& flags) {
  Scenario s;
  s.design = design_flag(variant).name;
  s.workload = to_workload(flags);
  s.seed = seed;
  if (!faults.profile.empty()) {
    s = protocols::apply_profile(faults.profile, s);
  } else {
    s.faults = faults.plan;
  }
  check_plan_nodes(s.faults, s.workload);
  return s;
}

std::string describe_workload(const protocols::Workload& w) {
  return fmt::format("{} buyers, {} sku x {} units, {} app nodes, {} arrivals, remote call {}, lock ttl {}, replica lag {}{}{}", w.buyers, w.skus, w.stock,
                     w.app_nodes, protocols::to_string(w.arrival), sim::format_duration(w.remote_call), sim::format_duration(w.lock_ttl),
                     sim::format_duration(w.replication_lag),
                     w.max_retries > 0 ? fmt::format(", {} gateway retries", w.max_retries) : "",
                     w.double_click.numerator > 0 ? fmt::format(", double clicks {}", sim::format_ratio(w.double_click)) : "");
}

void print_verdicts(const RunResult& r, const std::vector<std::string>& asserted) {
  fmt::print("{:<26} {:<11} {:<10} {}\n", "property", "kind", "asserted", "verdict");
  for (const properties::PropertyResult& pr : r.properties) {
    const properties::Property& p = *pr.property;
    const bool is_asserted = std::find(asserted.begin(), asserted.end(), p.name) != asserted.end();
    std::string verdict;
    if (p.kind == properties::Kind::sometimes) {
      verdict = pr.reached ? fmt::format("reached: {}", pr.note) : "not reached";
    } else if (pr.violated) {
      verdict = fmt::format("VIOLATED at {} step {}: {}", sim::format_instant(pr.violation->at), pr.violation->step, pr.violation->witness);
    } else {
      verdict = "holds";
    }
    fmt::print("{:<26} {:<11} {:<10} {}\n", p.name, properties::to_string(p.kind), p.kind == properties::Kind::sometimes ? "-" : (is_asserted ? "yes" : "no"), verdict);
  }
}

void print_results(const RunResult& r) {
  std::string results;
  for (auto br : {protocols::BuyResult::sold, protocols::BuyResult::sold_out, protocols::BuyResult::busy, protocols::BuyResult::unknown,
                  protocols::BuyResult::failed}) {
    auto it = r.results.find(br);
    results += fmt::format("{}{} {}", results.empty() ? "" : ", ", protocols::to_string(br), it == r.results.end() ? 0 : it->second);
  }
  fmt::print("buyers: {}; orders committed {}; p99 order latency {}\n", results, r.orders,
             sim::format_span(properties::percentile(r.latencies, 99)));
}

}  // namespace

protocols::Workload to_workload(const WorkloadFlags& f) {
  protocols::Workload w;
  range_flag("--buyers", f.buyers, 0, 100000);
  range_flag("--stock", f.stock, int64_t{0}, int64_t{1000000});
  range_flag("--skus", f.skus, 1, 1000);
  range_flag("--apps", f.apps, 1, 64);
  range_flag("--retries", f.retries, 0, 10);
  w.buyers = f.buyers;
  w.stock = f.stock;
  w.skus = f.skus;
  w.app_nodes = f.apps;
  if (f.arrival == "burst") w.arrival = protocols::Arrival::burst;
  else if (f.arrival == "poisson") w.arrival = protocols::Arrival::poisson;
  else throw UsageError(fmt::format("--arrival: unknown arrival '{}' (expected burst or poisson)", f.arrival));
  w.burst_window = duration_flag("--burst-window", f.burst_window);
  w.poisson_mean = duration_flag("--poisson-mean", f.poisson_mean);
  if (w.poisson_mean <= sim::Duration::zero()) throw UsageError("--poisson-mean: must be positive");
  w.max_retries = f.retries;
  w.double_click = ratio_flag("--double-click", f.double_click);
  w.remote_call = duration_flag("--remote-call", f.remote_call);
  w.lock_ttl = duration_flag("--lock-ttl", f.lock_ttl);
  if (w.lock_ttl < sim::Duration::ms(1)) throw UsageError(fmt::format("--lock-ttl: '{}' is below Redis' 1ms resolution", f.lock_ttl));
  w.lock_wait = duration_flag("--lock-wait", f.lock_wait);
  w.gateway_timeout = duration_flag("--gateway-timeout", f.gateway_timeout);
  if (w.gateway_timeout <= sim::Duration::zero()) throw UsageError("--gateway-timeout: must be positive");
  w.replication_lag = duration_flag("--replication-lag", f.replication_lag);
  return w;
}

int list_command(const std::string& what) {
  if (what == "variants") {
    for (const auto* d : protocols::designs()) fmt::print("{:<30} {}\n{:<30} expected: {}\n", d->name, d->summary, "", d->expected);
    return 0;
  }
  if (what == "faults") {
    for (const auto& p : protocols::profiles()) fmt::print("{:<12} {}\n", p.name, p.summary);
    fmt::print("\nOr a fault plan: 'at 10ms pause app-1 for 2s; at 20ms crash redis-1; at 1s restart redis-1; at 0 partition redis-1,app-1 | "
               "redis-2,sentinel,app-2;\n  at 3s heal; at 5ms isolate db; at 5ms cut db -> app-1; at 5ms clock-jump redis-1 +1s; "
               "at 0 clock-drift redis-1 +200ppm;\n  at 5ms delay-next app-1 -> db by 1s; at 5ms hold app-1 -> db for 1s'\n");
    fmt::print("Nodes: app-1..app-N (--apps), redis-1 (primary), redis-2 (replica), sentinel, db\n");
    return 0;
  }
  if (what == "properties") {
    for (const auto& p : properties::catalogue()) {
      fmt::print("{:<26} {:<11} {:<10} {}\n", p.name, properties::to_string(p.kind), properties::to_string(p.category), p.description);
    }
    fmt::print("\n`check` asserts the business properties unless --properties names others.\n");
    return 0;
  }
  throw UsageError(fmt::format("list: unknown list '{}' (expected variants, faults or properties)", what));
}

int run_command(const RunFlags& f) {
  if (f.trace != "text" && f.trace != "json" && f.trace != "cut" && f.trace != "none") {
    throw UsageError(fmt::format("--trace: unknown format '{}' (expected text, json, cut or none)", f.trace));
  }
  const std::vector<std::string> asserted = properties_flag(f.properties);
  Scenario s = scenario_of(f.variant, faults_flag(f.faults), f.seed, f.workload);
  if (f.check_determinism) {
    sim::DeterminismReport rep = sim::check_determinism([&] {
      RunResult r = properties::run_checked(s);
      return sim::RunRecord{r.outcome, r.events, {}};
    });
    fmt::print("determinism check ({} seed {}): first run {}, second run {}: {}\n", s.design, s.seed, sim::format_hash(rep.first_hash),
               sim::format_hash(rep.second_hash), rep.identical ? "identical" : "DIFFERENT");
    if (!rep.identical) fmt::print("{}\n", rep.divergence);
    return rep.identical ? 0 : 1;
  }
  RunResult r = properties::run_checked(s);
  if (f.trace == "json") {
    std::fputs(sim::render_jsonl(r.events).c_str(), stdout);
    return r.violates(asserted) ? 1 : 0;
  }
  fmt::print("oversim run: variant {}, seed {}, faults: {}\nworkload: {}\n", s.design, s.seed, s.faults.empty() ? "none" : s.faults.to_string(),
             describe_workload(s.workload));
  if (f.trace == "text") fmt::print("\n{}", sim::render_text(r.events));
  if (f.trace == "cut") fmt::print("\n{}", sim::render_text(properties::cut_trace(r.events, 200)));
  fmt::print("\nrun: {} at {} after {} steps; trace hash {}\n", sim::to_string(r.outcome.status), sim::format_instant(r.outcome.end_time),
             r.outcome.steps, sim::format_hash(r.outcome.hash()));
  print_results(r);
  fmt::print("\n");
  print_verdicts(r, asserted);
  fmt::print("\nreproduce: {}\n", properties::reproduce_command(s));
  return r.violates(asserted) ? 1 : 0;
}

int check_command(const CheckFlags& f) {
  const std::vector<std::string> asserted = properties_flag(f.properties);
  range_flag("--seeds", f.seeds, uint64_t{1}, uint64_t{1000000});
  range_flag("--jobs", f.jobs, 1u, 256u);
  const FaultsChoice faults = faults_flag(f.faults);
  properties::SweepOptions opt;
  opt.base = scenario_of(f.variant, faults, f.first_seed, f.workload);
  opt.profile = faults.profile;
  opt.first_seed = f.first_seed;
  opt.seeds = f.seeds;
  opt.jobs = f.jobs;
  opt.asserted = asserted;
  std::string asserted_list;
  for (const auto& a : asserted) asserted_list += fmt::format("{}{}", asserted_list.empty() ? "" : ",", a);
  fmt::print("oversim check: variant {}, faults {}, seeds {}..{}, {} jobs\nworkload: {}\nasserting: {}\n\n", f.variant,
             faults.profile.empty() ? fmt::format("'{}'", faults.plan.to_string()) : fmt::format("{} (a plan per seed)", faults.profile), f.first_seed,
             f.first_seed + f.seeds - 1, f.jobs, describe_workload(opt.base.workload), asserted_list);
  properties::SweepResult sw = properties::sweep(opt);
  fmt::print("{:<26} {:<11} {:<10} {}\n", "property", "kind", "asserted", "runs");
  for (const auto& p : properties::catalogue()) {
    const properties::PropertyCount& c = sw.counts[p.name];
    const bool is_asserted = std::find(asserted.begin(), asserted.end(), p.name) != asserted.end();
    std::string runs = p.kind == properties::Kind::sometimes ? fmt::format("reached in {}/{}", c.reached, sw.runs)
                       : c.violated == 0                      ? fmt::format("held in {}/{}", sw.runs, sw.runs)
                                                              : fmt::format("VIOLATED in {}/{} (first seed {})", c.violated, sw.runs, *c.first_seed);
    fmt::print("{:<26} {:<11} {:<10} {}\n", p.name, properties::to_string(p.kind), p.kind == properties::Kind::sometimes ? "-" : (is_asserted ? "yes" : "no"), runs);
  }
  std::string status;
  for (const auto& [name, n] : sw.run_status) status += fmt::format("{}{} {}", status.empty() ? "" : ", ", n, name);
  fmt::print("\n{} runs: {}\n", sw.runs, status);
  for (const std::string& e : sw.errors) fmt::print(stderr, "oversim: internal error in a run: {}\n", e);
  if (!sw.errors.empty()) return 3;
  if (!sw.first_failure) {
    fmt::print("verdict: every asserted property held in all {} runs\n", sw.runs);
    return 0;
  }
  const RunResult& failure = *sw.first_failure;
  std::vector<std::string> failed;
  for (const auto& name : asserted) {
    if (failure.result(name).violated) failed.push_back(name);
  }
  fmt::print("\nverdict: VIOLATED. First failing seed: {}\n", *sw.first_failing_seed);
  Scenario shown = failure.scenario;
  RunResult shown_run = failure;
  if (!f.no_shrink) {
    Scenario small = properties::shrink(failure.scenario, failed);
    if (!(small.workload == failure.scenario.workload) || small.faults.faults.size() != failure.scenario.faults.faults.size()) {
      small.keep_trace = true;
      shown = small;
      shown_run = properties::run_checked(small);
      fmt::print("shrunk to: {}; faults: {}\n", describe_workload(small.workload), small.faults.empty() ? "none" : small.faults.to_string());
    }
  }
  for (const auto& name : failed) {
    const auto& pr = shown_run.result(name);
    if (pr.violated) fmt::print("{} violated at {} step {}: {}\n", name, sim::format_instant(pr.violation->at), pr.violation->step, pr.violation->witness);
  }
  fmt::print("\nthe events that matter:\n{}", sim::render_text(properties::cut_trace(shown_run.events)));
  fmt::print("\nreproduce: {}\n", properties::reproduce_command(shown));
  return 1;
}

int compare_command(const CompareFlags& f) {
  range_flag("--seeds", f.seeds, uint64_t{1}, uint64_t{100000});
  range_flag("--jobs", f.jobs, 1u, 256u);
  std::vector<std::string> variants, profs;
  for (const auto* d : protocols::designs()) variants.push_back(d->name);
  for (const auto& p : protocols::profiles()) profs.push_back(p.name);
  if (!f.variants.empty()) {
    variants = split_list(f.variants);
    for (const auto& v : variants) design_flag(v);
  }
  if (!f.profiles.empty()) {
    profs = split_list(f.profiles);
    for (const auto& p : profs) {
      if (!protocols::is_profile(p)) throw UsageError(fmt::format("--faults: unknown profile '{}' (see oversim list faults)", p));
    }
  }
  const protocols::Workload w = to_workload(f.workload);
  fmt::print("oversim compare: {} seeds per cell (seeds {}..{}), {} jobs\nworkload: {}\n", f.seeds, f.first_seed, f.first_seed + f.seeds - 1, f.jobs,
             describe_workload(w));
  fmt::print("cells: runs that violated each property (out of {}); '.' = none. orders/s and p99 are over all runs of the cell.\n\n", f.seeds);
  const std::vector<std::string> columns = {"no_oversell", "no_duplicate_order", "no_lost_order", "ledger_conservation", "lock_mutual_exclusion", "progress"};
  const std::vector<std::string> short_names = {"oversell", "duplicate", "lost", "ledger", "mutex", "progress"};
  fmt::print("{:<30} {:<11}", "variant", "faults");
  for (const auto& c : short_names) fmt::print(" {:>9}", c);
  fmt::print(" {:>9} {:>9}\n", "orders/s", "p99");
  bool internal_error = false;
  for (const std::string& v : variants) {
    for (const std::string& p : profs) {
      properties::SweepOptions opt;
      opt.base.design = v;
      opt.base.workload = w;
      opt.profile = p;
      opt.first_seed = f.first_seed;
      opt.seeds = f.seeds;
      opt.jobs = f.jobs;
      properties::SweepResult sw = properties::sweep(opt);
      fmt::print("{:<30} {:<11}", v, p);
      for (const auto& c : columns) {
        const int64_t n = sw.counts[c].violated;
        fmt::print(" {:>9}", n == 0 ? std::string(".") : std::to_string(n));
      }
      const double seconds = static_cast<double>(sw.sale_time.count_ns()) / 1e9;
      fmt::print(" {:>9.1f} {:>9}\n", seconds > 0 ? static_cast<double>(sw.acks) / seconds : 0.0, sim::format_span(properties::percentile(sw.latencies, 99)));
      for (const std::string& e : sw.errors) fmt::print(stderr, "oversim: internal error in {} / {}: {}\n", v, p, e);
      internal_error |= !sw.errors.empty();
      std::fflush(stdout);
    }
  }
  fmt::print("\nInspect a cell: oversim check --variant <variant> --faults <profile> --seeds {}\n", f.seeds);
  // compare is a report on many designs, most of them unsafe on purpose: violations are its
  // content, not a failure. Use `check` to assert.
  return internal_error ? 3 : 0;
}

int demo_command(DemoOptions options, const std::string& faults, const std::string& trace, bool check_determinism) {
  if (trace != "text" && trace != "json" && trace != "none") throw UsageError(fmt::format("--trace: unknown format '{}' (expected text, json or none)", trace));
  try {
    options.faults = sim::FaultPlan::parse(faults);
  } catch (const sim::FaultPlanError& e) {
    throw UsageError(fmt::format("--faults: {}", e.what()));
  }
  if (check_determinism) {
    sim::DeterminismReport r = sim::check_determinism([&] { return run_demo(options).record; });
    fmt::print("determinism check (kernel demo, seed {}): first run {}, second run {}: {}\n", options.seed, sim::format_hash(r.first_hash),
               sim::format_hash(r.second_hash), r.identical ? "identical" : "DIFFERENT");
    if (!r.identical) fmt::print("{}\n", r.divergence);
    return r.identical ? 0 : 1;
  }
  DemoResult result;
  try {
    result = run_demo(options);
  } catch (const sim::FaultPlanError& e) {
    throw UsageError(fmt::format("--faults: {}", e.what()));
  }
  if (trace == "json") {
    std::fputs(sim::render_jsonl(result.record.events).c_str(), stdout);
    return 0;
  }
  fmt::print("oversim kernel demo: {} buyers read-then-write a stock of {} over RPC; faults: {}\n\n", options.buyers, options.stock,
             options.faults.empty() ? "none" : options.faults.to_string());
  if (trace == "text") std::fputs(sim::render_text(result.record.events).c_str(), stdout);
  const sim::RunOutcome& o = result.record.outcome;
  fmt::print("\n{} at {} after {} steps, {} trace events, {} choices\n", sim::to_string(o.status), sim::format_instant(o.end_time), o.steps,
             result.record.events.size(), result.record.choices.size());
  fmt::print("stock {} -> {}, buyers told they bought: {}{}\n", options.stock, result.stock_left, result.sold,
             result.sold > options.stock - result.stock_left ? "  (lost update: more sold than the stock went down)" : "");
  fmt::print("trace hash: {}\n", sim::format_hash(o.hash()));
  return 0;
}

int determinism_command() {
  DemoOptions demo;
  sim::DeterminismReport a = sim::check_determinism([&] { return run_demo(demo).record; });
  fmt::print("kernel demo (seed {}):                       {} vs {}: {}\n", demo.seed, sim::format_hash(a.first_hash), sim::format_hash(a.second_hash),
             a.identical ? "identical" : "DIFFERENT");
  Scenario s;
  s.design = "redis_lock_conditional";
  s.seed = 1;
  s = protocols::apply_profile("chaos", s);
  sim::DeterminismReport b = sim::check_determinism([&] {
    RunResult r = properties::run_checked(s);
    return sim::RunRecord{r.outcome, r.events, {}};
  });
  fmt::print("redis_lock_conditional under chaos (seed 1): {} vs {}: {}\n", sim::format_hash(b.first_hash), sim::format_hash(b.second_hash),
             b.identical ? "identical" : "DIFFERENT");
  if (!a.identical) fmt::print("{}\n", a.divergence);
  if (!b.identical) fmt::print("{}\n", b.divergence);
  return a.identical && b.identical ? 0 : 1;
}

}  // namespace oversim::cli
