// The commands behind `oversim list|run|check|compare|hash|demo`: flag structs as CLI11 fills
// them (every value as typed), validated through cli/flags.h into scenarios.
#pragma once

#include <cstdint>
#include <string>

#include "cli/demo.h"
#include "cli/flags.h"
#include "cli/scenario_file.h"

namespace oversim::cli {

inline const std::string kDefaultHorizon = "600s";
// Runs a shrink may make (docs/performance.md has what it costs).
inline constexpr int kShrinkBudget = 600;
// The search that finds the known bugs in the fewest executions (bench/search_bench.cpp,
// docs/performance.md).
inline const std::string kDefaultStrategy = "swarm";

struct RunFlags {
  std::string variant;
  std::string faults = "none";
  std::string seed = "1";
  std::string trace = "cut";
  std::string properties;
  std::string horizon = kDefaultHorizon;
  bool check_determinism = false;
  std::string strategy = kDefaultStrategy;
  bool strategy_typed = false;
  bool force = false;  // run past the cost limits (cli/estimate.h)
  std::string emit_scenario;  // a file for the run's scenario ("" : none)
  std::string json;           // a file for the run's result as data ("" : none)
  std::string html;           // a file for the run's HTML report ("" : none)
  ScenarioSource source;      // the scenario file the flags came from, if any
  WorkloadFlags workload;
};

struct SweepFlags {
  std::string seeds = "100";
  std::string first_seed = "1";
  bool first_seed_given = false;
  bool first_seed_drawn = false;  // --first-seed random: first_seed holds the seed drawn
  std::string shard;              // --shard i/n ("" : the whole sweep; cli/shard.h)
  std::string jobs = "2";
  std::string horizon = kDefaultHorizon;
  std::string strategy = kDefaultStrategy;
  bool strategy_typed = false;
  bool force = false;  // run past the cost limits (cli/estimate.h)
  WorkloadFlags workload;
};

struct CheckFlags {
  std::string variant;
  std::string faults = "none";
  std::string properties;
  bool no_shrink = false;
  bool keep_faults = false;  // the shrink leaves the plan as written
  bool drop_faults = false;  // the shrink may drop faults and change their story
  bool stop_at_first = false;
  std::string require;  // sometimes properties that must be reached in some run ("" : none)
  std::string json;  // a file for the machine-readable result ("" : none)
  std::string emit_scenario;  // a file for the shrunk counterexample's scenario ("" : none)
  std::string html;           // a file for the HTML report ("" : none)
  std::string junit;          // a file for JUnit XML, a test case per asserted property ("" : none)
  ScenarioSource source;
  SweepFlags sweep;
};

struct CompareFlags {
  std::string variants = "all";
  std::string faults = "all";
  std::string properties;  // the table's property columns ("" : the default ones)
  std::string json;        // a file for the result as data ("" : none)
  std::string html;        // a file for the HTML report, with each violating cell's counterexample ("" : none)
  ScenarioSource source;
  SweepFlags sweep;
};

// `oversim lint`: the article's checklist for each design against this workload, before any run;
// --prove backs each answer with a sweep of the sale under the profile that would show it.
struct LintFlags {
  std::string variants = "all";
  bool prove = false;
  SweepFlags sweep;
};
struct HashFlags {
  std::string variants = "all";
  std::string faults = "all";
  std::string json;  // a file for the lines as data ("" : none)
  SweepFlags sweep;
};

// `oversim explore`: every execution of a small sale. Its workload defaults differ from the
// other commands' (2 buyers, stock 1, arrivals at once, constant 200us latency): the bounds a
// model checker can cover in seconds.
struct ExploreFlags {
  ExploreFlags();
  std::string variant;
  std::string faults = "pause here for 1.5x lock-ttl";  // the alternatives, ';' separated
  std::string max_faults = "1";
  std::string points = "all";
  std::string properties;
  std::string max_executions = "1000000";
  std::string max_deviations = "all";
  std::string horizon = kDefaultHorizon;
  bool first = false;
  std::string json;
  std::string html;
  std::string junit;
  std::string shard;  // --shard i/n ("" : the whole tree; cli/shard.h)
  WorkloadFlags workload;
};

struct DemoFlags {
  std::string seed = "1";
  std::string buyers = "3";
  std::string stock = "2";
  std::string faults = DemoOptions{}.faults.to_string();
  std::string trace = "text";
  bool check_determinism = false;
};

// The scenario `oversim run` would run for these flags (the fuzz target and tests use it).
protocols::Scenario run_scenario(const RunFlags& flags);

struct Merged;  // cli/shard.h: the shards of a sweep, for `oversim merge`

int list_command(const std::string& what);
int run_command(const RunFlags& flags);
// With `merged` (oversim merge), the command renders the merged shards instead of sweeping.
int check_command(const CheckFlags& flags, const Merged* merged = nullptr);
int compare_command(const CompareFlags& flags, const Merged* merged = nullptr);
int hash_command(const HashFlags& flags, const Merged* merged = nullptr);
int lint_command(const LintFlags& flags);
int demo_command(const DemoFlags& flags);
int explore_command(const ExploreFlags& flags, const Merged* merged = nullptr);
// `oversim report RESULT.json --html OUT.html`: a saved result drawn as the HTML report.
int report_command(const std::string& result, const std::string& html);
int determinism_command();

}  // namespace oversim::cli
