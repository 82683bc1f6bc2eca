#include "cli/estimate.h"

#include <algorithm>
#include <cmath>
#include <thread>

#include <fmt/format.h>

#include "properties/lint.h"
#include "protocols/profiles.h"
#include "protocols/registry.h"

namespace oversim::cli {

namespace {

// What one run costs on the development machine (2-core AMD EPYC, g++ 12 -O3; /usr/bin/time over
// `oversim run --trace none|cut` and `check --jobs 1`, the larger of the figures at 2,000, 5,000 and
// 20,000 buyers): by the sale's lock service, or none. A lock service keeps polling and
// heartbeating while faults keep a run going, so its cost grows with that virtual time too.
// Resident bytes per buyer re-measured 2026-12-05 (issue 31: fiber stacks from sim/stacks, no
// choice list kept by run and sweeps) at 20,000 buyers with the default sale and at 100,000
// buyers on 16 app nodes (db_conditional_update 18 KiB, article_recipe 28 KiB), with headroom.
struct ServiceCost {
  const char* service;
  double small_run_s;           // a run of the default sale (20 buyers): the floor
  double per_buyer_s;           // a large sale, per buyer
  double bytes_per_buyer;       // resident, per buyer
  double trace_bytes_per_buyer; // the kept trace (run --trace text|cut|json), per buyer
  double per_hour_s;            // each hour of virtual time past the sale
  double bytes_per_hour;
};
constexpr double kKiB = 1024;
constexpr double kMiB = 1024 * 1024;
constexpr ServiceCost kCosts[] = {
    {"", 0.0007, 130e-6, 20 * kKiB, 2 * kKiB, 0, 0},
    {"redis", 0.003, 830e-6, 30 * kKiB, 28 * kKiB, 0.23, 18 * kMiB},
    {"redlock", 0.005, 1100e-6, 24 * kKiB, 90 * kKiB, 0.07, 8 * kMiB},
    {"zookeeper", 0.0027, 220e-6, 26 * kKiB, 4 * kKiB, 0.41, 44 * kMiB},
    // etcd, measured 2026-12-07 on the Intel Xeon VM beside ZooKeeper and scaled by the same
    // headroom: half ZooKeeper's CPU per buyer at 20,000 buyers (0.67 s against 1.35 s), 19 KiB
    // resident per buyer (ZooKeeper 22), half its CPU per hour of a paused sale (0.07 s against 0.15 s).
    {"etcd", 0.0027, 110e-6, 24 * kKiB, 4 * kKiB, 0.21, 44 * kMiB},
};
constexpr double kDefaultBuyers = 20;        // the sale small_run_s was measured with
constexpr double kProcessBytes = 8 * kMiB;  // the process before any run
constexpr double kRunBytes = 2 * kMiB;      // a run of a small sale
// A profile's faulted run lasts longer than the faultless one and comes after its probe: about
// 2.5 faultless runs in all (check --faults gc-pause against --faults none, 200 seeds).
constexpr double kProfileRuns = 2.5;

const ServiceCost& cost_of(const std::string& design) {
  const protocols::Design& d = design_flag(design);
  const std::string service = d.services.empty() ? "" : d.services.front();
  for (const ServiceCost& c : kCosts) {
    if (service == c.service) return c;
  }
  return kCosts[2];  // a service not measured yet: the costliest measured
}

double hours(sim::Duration d) { return static_cast<double>(d.count_ns()) / 3.6e12; }

// One run's CPU seconds and resident bytes.
std::pair<double, double> run_cost(const RunShape& s) {
  const ServiceCost& c = cost_of(s.design);
  const double buyers = static_cast<double>(s.buyers);
  // The default sale's cost, and each buyer past its 20 at the large sale's rate (a lock's
  // contention makes a buyer dearer in a larger sale).
  const double seconds = c.small_run_s + std::max(0.0, buyers - kDefaultBuyers) * c.per_buyer_s;
  const double faulted = (s.profile.empty() ? 1.0 : kProfileRuns) * seconds + hours(s.span) * c.per_hour_s;
  const double cpu = faulted + static_cast<double>(s.probes) / std::max<double>(1, static_cast<double>(s.runs)) * seconds;
  const double bytes = kRunBytes + buyers * (c.bytes_per_buyer + (s.keep_trace ? c.trace_bytes_per_buyer : 0)) + hours(s.span) * c.bytes_per_hour;
  return {cpu, bytes};
}

std::string span_words(double seconds) {
  if (seconds < 1) return "under a second";
  if (seconds < 120) return fmt::format("{:.0f}s", seconds);
  if (seconds < 7200) return fmt::format("{:.0f}m", seconds / 60);
  return fmt::format("{:.1f}h", seconds / 3600);
}

std::string bytes_words(double bytes) {
  if (bytes < kMiB * 1024) return fmt::format("{:.0f} MiB", bytes / kMiB);
  return fmt::format("{:.1f} GiB", bytes / (kMiB * 1024));
}

// The virtual time a plan's faults keep a run going past the sale: its latest fault played out
// (a pause's, hold's or delay's length included; a triggered fault's delay counts from its
// point, which comes during the sale). A plan that does not resolve is left to the command's own
// checks.
sim::Duration plan_span(const sim::FaultPlan& plan, const protocols::Workload& w) {
  sim::Duration span = sim::Duration::zero();
  try {
    for (const sim::Fault& f : plan.resolved(protocols::quantities(w)).faults) {
      const bool lasts = f.kind == sim::FaultKind::pause || f.kind == sim::FaultKind::hold || f.kind == sim::FaultKind::delay_next;
      span = std::max(span, f.at + (lasts ? f.length : sim::Duration::zero()));
    }
  } catch (const sim::FaultPlanError&) {
  }
  return span;
}

// A profile's faults last at most twice the lock TTL (a pause, a delay, a jump of 1.1-2x it) or
// 3 s (a restart, a heal), from a point during the sale.
sim::Duration profile_span(const protocols::Workload& w) { return std::max(w.lock_ttl * 2, sim::Duration::s(3)); }

RunShape shape_of(const std::string& design, const FaultsChoice& faults, const protocols::Workload& w, sim::Duration horizon, uint64_t runs,
                  bool keep_trace) {
  RunShape s;
  s.design = design;
  s.profile = faults.profile == "none" ? "" : faults.profile;
  s.span = std::min(s.profile.empty() ? plan_span(faults.plan, w) : profile_span(w), horizon);
  s.buyers = w.buyers;
  s.keep_trace = keep_trace;
  s.runs = runs;
  // A plan with triggered faults: run and check probe the sale once for the points it waits on.
  s.probes = faults.profile.empty() && faults.plan.triggered() ? 1 : 0;
  return s;
}

bool applies(const std::string& design, const FaultsChoice& faults, const protocols::Workload& w) {
  if (faults.profile.empty()) return true;
  protocols::Scenario s;
  s.design = design;
  s.workload = w;
  return !protocols::profile_inapplicable(faults.profile, s);
}

sim::Duration horizon_flag(const std::string& text) { return duration_flag("--horizon", text, sim::Duration::s(1), kMaxHorizon); }

std::vector<std::string> variants_of(const std::string& text) {
  std::vector<std::string> all;
  for (const auto* d : protocols::designs()) all.push_back(d->name);
  std::vector<std::string> names = list_flag("--variants", text, all);
  for (const std::string& v : names) design_flag(v);
  return names;
}

void guard_sweep(const std::vector<std::string>& variants, const std::vector<FaultsChoice>& faults, const SweepFlags& f, uint64_t max_seeds) {
  const SeedRange seeds = seeds_flag(f.seeds, f.first_seed, f.first_seed_given, max_seeds);
  const unsigned jobs = static_cast<unsigned>(unsigned_flag("--jobs", f.jobs, 1, 256));
  const protocols::Workload w = to_workload(f.workload);
  const sim::Duration horizon = horizon_flag(f.horizon);
  std::vector<RunShape> shapes;
  for (const std::string& v : variants) {
    for (const FaultsChoice& fc : faults) {
      if (!applies(v, fc, w)) continue;
      RunShape s = shape_of(v, fc, w, horizon, seeds.count, false);
      s.probes = 0;  // a sweep of many designs checks no plan's points by a probe
      shapes.push_back(s);
    }
  }
  guard(estimate(shapes, jobs), f.force);
}

}  // namespace

Estimate estimate(const std::vector<RunShape>& shapes, unsigned jobs) {
  Estimate e;
  e.jobs = jobs;
  double costliest_cpu = -1;
  double largest_bytes = 0;
  for (const RunShape& s : shapes) {
    const auto [cpu, bytes] = run_cost(s);
    e.runs += s.runs;
    e.cpu_s += cpu * static_cast<double>(s.runs);
    largest_bytes = std::max(largest_bytes, bytes);
    if (cpu > costliest_cpu) {
      costliest_cpu = cpu;
      e.costliest = fmt::format("{} buyers on {}{}{}", s.buyers, s.design, s.profile.empty() ? "" : " under " + s.profile,
                                s.span >= sim::Duration::s(60) ? fmt::format(", {} of virtual time after the sale", span_words(hours(s.span) * 3600)) : "");
    }
  }
  const double at_once = static_cast<double>(std::min<uint64_t>(jobs, std::max<uint64_t>(1, e.runs)));
  e.peak_bytes = kProcessBytes + at_once * largest_bytes;
  return e;
}

double cell_cpu_seconds(const std::string& design, const FaultsChoice& faults, const SweepFlags& f, uint64_t seeds) {
  RunShape s = shape_of(design, faults, to_workload(f.workload), horizon_flag(f.horizon), seeds, false);
  s.probes = 0;
  return run_cost(s).first * static_cast<double>(seeds);
}

void guard(const Estimate& e, bool force) {
  const bool large = e.cpu_s >= kShowCpuSeconds || e.peak_bytes >= kShowMemoryBytes;
  if (!large) return;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const double wall = e.cpu_s / static_cast<double>(std::min(e.jobs, cores));
  const std::string what = fmt::format("about {} of CPU ({} wall with {} job{}) and up to {} of memory for {} run{} (the costliest: {})", span_words(e.cpu_s),
                                       span_words(wall), e.jobs, e.jobs == 1 ? "" : "s", bytes_words(e.peak_bytes), e.runs, e.runs == 1 ? "" : "s", e.costliest);
  std::string past;
  if (e.cpu_s > kMaxCpuSeconds) past = fmt::format("past the limit of {} of CPU", span_words(kMaxCpuSeconds));
  if (e.peak_bytes > kMaxMemoryBytes) past += fmt::format("{}past the limit of {} of memory", past.empty() ? "" : " and ", bytes_words(kMaxMemoryBytes));
  if (past.empty() || force) {
    fmt::print(stderr, "oversim: estimate: {}{}\n", what, past.empty() ? "" : "; " + past + ", run anyway (--force)");
    return;
  }
  throw UsageError(fmt::format("estimate: {}: {} (docs/guide.md#limits); ask for less, or add --force to run it anyway", what, past));
}

void guard_run(const RunFlags& f) {
  const FaultsChoice faults = faults_flag(f.faults);
  const protocols::Workload w = to_workload(f.workload);
  RunShape s = shape_of(design_flag(f.variant).name, faults, w, horizon_flag(f.horizon), f.check_determinism ? 2 : 1, f.trace != "none");
  guard(estimate({s}, 1), f.force);
}

void guard_check(const CheckFlags& f) {
  const SeedRange seeds = seeds_flag(f.sweep.seeds, f.sweep.first_seed, f.sweep.first_seed_given);
  const unsigned jobs = static_cast<unsigned>(unsigned_flag("--jobs", f.sweep.jobs, 1, 256));
  const FaultsChoice faults = faults_flag(f.faults);
  const protocols::Workload w = to_workload(f.sweep.workload);
  const RunShape s = shape_of(design_flag(f.variant).name, faults, w, horizon_flag(f.sweep.horizon), seeds.count, false);
  guard(estimate({s}, jobs), f.sweep.force);
}

void guard_compare(const CompareFlags& f) { guard_sweep(variants_of(f.variants), faults_list_flag(f.faults), f.sweep, 100'000); }

void guard_hash(const HashFlags& f) { guard_sweep(variants_of(f.variants), faults_list_flag(f.faults), f.sweep, kMaxSeedsPerCommand); }

void guard_lint(const LintFlags& f) {
  if (!f.prove) return;
  const std::vector<std::string> variants = variants_of(f.variants);
  const protocols::Workload w = to_workload(f.sweep.workload);
  const SeedRange seeds = seeds_flag(f.sweep.seeds, f.sweep.first_seed, f.sweep.first_seed_given, 100'000);
  const unsigned jobs = static_cast<unsigned>(unsigned_flag("--jobs", f.sweep.jobs, 1, 256));
  const sim::Duration horizon = horizon_flag(f.sweep.horizon);
  std::vector<RunShape> shapes;
  for (const std::string& v : variants) {
    for (const properties::LintItem& it : properties::lint(design_flag(v), w)) {
      if (it.property.empty() || it.profile.empty()) continue;
      const FaultsChoice fc{it.profile, {}};
      if (applies(v, fc, w)) shapes.push_back(shape_of(v, fc, w, horizon, seeds.count, false));
    }
  }
  guard(estimate(shapes, jobs), f.sweep.force);
}

}  // namespace oversim::cli
