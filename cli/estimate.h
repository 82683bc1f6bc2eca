// What a command will cost, estimated before it runs from quantities known up front (the runs
// it asks for, each run's buyers and lock service, the virtual time its faults make it simulate),
// with per-run costs measured on the development machine (docs/guide.md#limits). A large
// estimate is printed on stderr; one past the limits is refused with exit 2 unless --force, so a
// typo (`--seeds 100000` for compare, `--buyers 100000` with a lock service, a fault at 700h
// while a lock service polls) costs a line, not hours or the machine's memory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace oversim::cli {

// The limits past which a command is refused without --force.
inline constexpr double kMaxCpuSeconds = 2.0 * 3600;                      // CPU time, all jobs together
inline constexpr double kMaxMemoryBytes = 4.0 * 1024 * 1024 * 1024;        // resident, all jobs together
// The estimate is printed from these on.
inline constexpr double kShowCpuSeconds = 60;
inline constexpr double kShowMemoryBytes = 1.0 * 1024 * 1024 * 1024;

// One kind of run a command makes `runs` times.
struct RunShape {
  std::string design;
  std::string profile;               // "" for a plan or no faults
  sim::Duration span;                // virtual time its faults keep the run going, beyond the sale
  int buyers = 0;
  bool keep_trace = false;
  uint64_t runs = 0;
  uint64_t probes = 0;               // faultless runs of the same sale (a profile's, a plan's point check)
};

struct Estimate {
  uint64_t runs = 0;
  double cpu_s = 0;
  double peak_bytes = 0;
  unsigned jobs = 1;
  std::string costliest;  // the costliest run, in words
};

Estimate estimate(const std::vector<RunShape>& shapes, unsigned jobs);
// The estimated CPU seconds of a compare cell: `seeds` runs of `design` under `faults` with the
// sweep's flags (compare starts the costliest cells first).
double cell_cpu_seconds(const std::string& design, const FaultsChoice& faults, const SweepFlags& f, uint64_t seeds);
// Prints the estimate when it is large; throws UsageError past a limit unless `force`.
void guard(const Estimate& e, bool force);

// The shapes each command would run, from its flags as typed (no scenario is built: a profile's
// probe alone could be the expensive part). Bad flags throw the command's own UsageError.
void guard_run(const RunFlags& f);
void guard_check(const CheckFlags& f);
void guard_compare(const CompareFlags& f);
void guard_hash(const HashFlags& f);
void guard_lint(const LintFlags& f);

}  // namespace oversim::cli
