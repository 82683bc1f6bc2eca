// Flag values as the user typed them, turned into checked values. Every number, duration, seed
// and list is parsed here with explicit limits, so a bad value is rejected with one line naming
// the flag, the value and the limit, never wrapped, clamped or read as zero. CLI11 only splits
// the command line; every option reaches this file as text.
#pragma once

#include <cstdint>
#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "protocols/simulation.h"
#include "sim/fault_plan.h"

namespace oversim::cli {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Limits on what a flag may say (a design declares nothing larger; docs/guide.md lists them).
inline constexpr uint64_t kMaxSeedsPerCommand = 1'000'000;
inline constexpr sim::Duration kMaxHorizon = sim::Duration::s(720LL * 3600);  // 30 days
inline constexpr sim::Duration kMaxWorkloadSpan = sim::Duration::s(3600);    // a latency, a call, a window
inline constexpr sim::Duration kMaxLease = sim::Duration::s(720LL * 3600);   // a lock TTL or wait

// The workload flags exactly as typed; defaults are the Workload defaults.
struct WorkloadFlags {
  WorkloadFlags();
  std::string buyers, stock, skus, apps, arrival, burst_window, poisson_mean, retries, double_click, remote_call, lock_ttl, lock_wait,
      gateway_timeout, replication_lag, persistence, masters, zk_servers;
  std::string latency;  // "" : the default model (100us..400us with a tail)
  // The model settings (protocols/settings.h), row by row, as typed; defaults are the Workload's.
  // An array, so that assigning a fresh WorkloadFlags keeps the strings CLI11 points at.
  std::array<std::string, protocols::kSettingCount> settings;
  std::vector<std::string> typed;  // the flags the user typed ("--stock"), in the order typed
};

// A decimal integer in [lo, hi]: digits only (no sign, no spaces, not empty).
uint64_t unsigned_flag(const char* flag, const std::string& text, uint64_t lo, uint64_t hi);
int64_t integer_flag(const char* flag, const std::string& text, int64_t lo, int64_t hi);
sim::Duration duration_flag(const char* flag, const std::string& text, sim::Duration lo, sim::Duration hi);
sim::Ratio ratio_flag(const char* flag, const std::string& text);

// A seed: 0..2^64-1.
uint64_t seed_flag(const char* flag, const std::string& text);

// `--seeds N` (with --first-seed) or `--seeds a..b`; both ends inclusive, never past 2^64-1.
struct SeedRange {
  uint64_t first = 1;
  uint64_t count = 1;
  uint64_t last() const { return first + (count - 1); }
};
SeedRange seeds_flag(const std::string& seeds, const std::string& first_seed, bool first_seed_given, uint64_t max_count = kMaxSeedsPerCommand);
// --first-seed as given, or for 'random' a seed drawn from the operating system's entropy (never
// from a run's PRNG), printed on stderr with the seeds the sweep will run (`seeds`: --seeds as
// given), so a CI job explores new seeds each time and its log says how to run them again. The
// draw is below 2^40, so any count of seeds fits after it.
std::string resolve_first_seed(const std::string& first_seed, const std::string& seeds);

// A comma-separated list with no empty items; `all` expands to `everything`.
std::vector<std::string> list_flag(const char* flag, const std::string& text, const std::vector<std::string>& everything);

// --faults: a profile name, or a fault plan. Decided by parsing: a single word is a profile
// name (no plan is one word), anything else must parse as a plan.
struct FaultsChoice {
  std::string profile;  // empty for a plan
  sim::FaultPlan plan;
  std::string label() const { return profile.empty() ? "plan" : profile; }
};
FaultsChoice faults_flag(const std::string& text);
// --faults for commands that take several: `all`, a comma list of profiles, or one plan.
std::vector<FaultsChoice> faults_list_flag(const std::string& text);
// `--faults @FILE`: the plan (or profile name) in FILE, comments removed and one fault per line
// or ';', as the flag's text ("a; b"). Any other text is returned as it is. Throws UsageError
// when FILE cannot be read or holds no fault.
std::string plan_file_flag(const std::string& text);

std::vector<std::string> properties_flag(const std::string& text);
// explore --points: `all`, or known fault points that a sale of `design` can reach.
std::vector<std::string> points_flag(const std::string& text, const protocols::Design& design, const protocols::Workload& w);
const protocols::Design& design_flag(const std::string& name);

protocols::Workload to_workload(const WorkloadFlags& flags);
// --strategy: random, pct, pct:D (depth 1..20), swarm; `run` also takes the exact schedules a
// reproduce line prints, returned in `schedule`: pct:D:K (K: the decision estimate) and
// choices:<values> (a choice list from the explorer or the shrinker).
protocols::Search search_flag(const std::string& text, std::string* schedule = nullptr);
// apply_profile, with a plan the profile cannot build for this workload (a lock TTL or a sale
// window so long that its faults pass the plan limits) reported as a UsageError.
protocols::Scenario profile_scenario(const std::string& profile, const protocols::Scenario& base);
// The scenario a command runs for one seed, checked: the profile (if any) applied with the
// search, the plan validated against this sale's nodes and the horizon.
protocols::Scenario scenario_of(const std::string& variant, const FaultsChoice& faults, uint64_t seed, const WorkloadFlags& flags,
                                const std::string& horizon, const std::string& strategy);

}  // namespace oversim::cli
