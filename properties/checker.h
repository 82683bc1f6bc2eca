// Runs scenarios and judges them: one run with every property checked (always-properties after
// every state-changing event, eventually-properties at quiescence, sometimes-properties at the
// end), seed sweeps across OS threads (one World per thread), greedy shrinking of a failing
// scenario, a trace cut down to what matters, and the one command that reproduces a run.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "properties/metrics.h"
#include "properties/property.h"
#include "protocols/profiles.h"
#include "protocols/registry.h"
#include "protocols/services.h"

namespace oversim::properties {

struct Violation {
  sim::Instant at;
  uint64_t step = 0;
  std::string witness;
};

struct PropertyResult {
  const Property* property = nullptr;
  bool violated = false;  // always/eventually
  bool reached = false;   // sometimes
  std::optional<Violation> violation;
  std::string note;       // sometimes: what was reached
};

struct RunResult {
  protocols::Scenario scenario;
  sim::RunOutcome outcome;
  std::vector<PropertyResult> properties;  // catalogue order
  std::vector<sim::TraceEvent> events;     // when the scenario keeps its trace
  int64_t acks = 0;
  int64_t orders = 0;
  sim::Duration sale_duration;             // first arrival to the last buyer's answer
  std::vector<sim::Duration> latencies;    // arrival to acknowledgement, per sold order
  std::map<protocols::BuyResult, int64_t> results;
  std::map<std::string, int64_t> counters;
  uint64_t faults_planned = 0;             // faults in the plan
  uint64_t faults_fired = 0;               // faults that happened (a trigger not reached never fires)
  std::vector<sim::Choice> choices;        // every choice of the run, in order (replays it)
  std::vector<sim::Fault> chosen_faults;   // faults struck by the scenario's fault choices
  // The story of the faults: their kinds in the order they first struck, with "resume" where a
  // pause first ended and "failover" where Sentinel first promoted a replica (each word once:
  // a crash and restart done three times tells the story of one). A shrink keeps it.
  std::vector<std::string> story;
  SaleMetrics metrics;                     // the sale's numbers (properties/metrics.h)
  std::vector<protocols::NodeLoad> lock_loads;  // every lock-service node's load, in build order

  const PropertyResult& result(const std::string& property) const;
  // Violated any of `asserted` (names).
  bool violates(const std::vector<std::string>& asserted) const;
};

// The property names `check` asserts by default (the business ones).
std::vector<std::string> default_asserted();

// Runs one scenario with every property checked. Throws std::invalid_argument for a scenario
// that cannot run as asked (protocols::scenario_problem): a run never reports verdicts under a
// fault that could not happen.
RunResult run_checked(const protocols::Scenario& scenario);
// The same with a strategy of the caller's in place of the scenario's schedule (the explorer).
RunResult run_checked(const protocols::Scenario& scenario, std::unique_ptr<sim::Strategy> strategy);

struct SweepOptions {
  protocols::Scenario base;          // design, workload; faults replaced per seed when profile set
  std::string profile;               // "" : use base.faults as given for every seed
  uint64_t first_seed = 1;
  uint64_t seeds = 100;
  unsigned jobs = 1;
  std::vector<std::string> asserted = default_asserted();
  // Stop at the first (lowest) seed that violates an asserted property: seeds run in batches of
  // 4 per job, in order, and nothing past that seed is counted, so the result does not depend
  // on the number of jobs.
  bool stop_at_first = false;
  // The first failing seed is replayed into first_failure; with its trace kept only when the
  // caller shows it (check's timeline). A kept trace of a 10,000-buyer polling sale is gigabytes:
  // compare and lint --prove use only the replay's scenario and verdicts.
  bool keep_failure_trace = true;
  // Whether the sweep replays its first failing seed into first_failure at all: a shard of a
  // sharded sweep (check --shard) leaves it to `oversim merge`, which replays the first failing
  // seed of all shards once (replay_first_failure).
  bool replay_failure = true;
  // Called after each run is counted (one thread at a time, in no fixed order): runs counted so
  // far and how many violated an asserted property. For a progress display; it must not change
  // the sweep.
  std::function<void(uint64_t runs, uint64_t violating)> progress;
};

struct PropertyCount {
  int64_t violated = 0;   // runs that violated it (always/eventually)
  int64_t reached = 0;    // runs that reached it (sometimes)
  std::optional<uint64_t> first_seed;
};

struct SweepResult {
  uint64_t runs = 0;
  std::map<std::string, PropertyCount> counts;  // by property name
  std::optional<uint64_t> first_failing_seed;   // first (lowest) seed violating an asserted property
  uint64_t violating_runs = 0;                  // runs that violated an asserted property
  std::optional<RunResult> first_failure;       // that run, replayed with its trace kept
  int64_t purchases = 0;                        // purchase attempts the designs ran, all runs
  std::map<std::string, int64_t> counters;      // History counters summed over runs
  int64_t counter(const std::string& name) const {
    auto it = counters.find(name);
    return it == counters.end() ? 0 : it->second;
  }
  SaleMetrics metrics;                          // the sale's numbers, merged over the runs
  std::map<std::string, int64_t> run_status;    // completed / deadlock / horizon
  std::optional<uint64_t> horizon_seed;         // the lowest seed stopped at its horizon
  int64_t horizon_runs() const {
    auto it = run_status.find("horizon");
    return it == run_status.end() ? 0 : it->second;
  }
  std::vector<std::string> errors;              // internal errors (bugs), one line each
  std::vector<std::string> invalid;             // seeds whose scenario cannot run as asked (bad input)
  uint64_t unplaced = 0;                        // runs in which the profile placed no fault
  std::string unplaced_why;                     // the lowest such seed's reason
  std::optional<uint64_t> unplaced_seed;
  uint64_t unfired = 0;                         // runs in which a planned fault never happened
  std::optional<uint64_t> unfired_seed;         // the lowest such seed
  uint64_t faults_planned = 0;                  // faults in the runs' plans, all runs
  uint64_t faults_fired = 0;                    // of those, the faults that happened
  // Set when the profile cannot apply to the design at all (protocols::profile_inapplicable):
  // then nothing ran.
  std::optional<std::string> inapplicable;
  bool stopped = false;                         // stop_at_first found a violation
  int64_t wall_ns = 0;                          // wall time of the sweep (not of the replay)
};

// The scenario a sweep runs for `seed`: the profile's plan for that seed, or the base plan with
// the search's schedule. Throws (sim::FaultPlanError, std::invalid_argument) when it cannot be
// built.
protocols::Scenario scenario_for(const SweepOptions& options, uint64_t seed);
SweepResult sweep(const SweepOptions& options);

// The seeds of shard `index` (1-based) of `shards` over `count` seeds from `first`: contiguous
// blocks in seed order, the first `count % shards` one seed longer, so every seed is in exactly
// one shard and the shards in index order are the sweep's seeds in order. A shard may be empty
// (more shards than seeds).
struct SeedBlock {
  uint64_t first = 1;
  uint64_t count = 0;
};
SeedBlock shard_block(uint64_t first, uint64_t count, uint64_t index, uint64_t shards);
// Adds a later shard's result (its seeds all after `into`'s) to `into`, giving what one sweep of
// both shards' seeds gives: counts and sums added, lowest seeds kept, samples appended (every
// figure is order-free), errors and invalid seeds in sorted order. With stop_at_first, a shard
// after one that stopped counts nothing: the single sweep stopped there too. first_failure is
// not merged: replay_first_failure replays the merged first failing seed.
void merge_sweeps(SweepResult& into, SweepResult&& later);
// Replays the first failing seed into first_failure (with its trace when options say so), as a
// sweep does when it ends; nothing when no seed failed.
void replay_first_failure(SweepResult& result, const SweepOptions& options);

// Runs body(i) for every i in [0, count) on up to `jobs` OS threads, each taking the next index
// when it is free: for callers that build scenarios in parallel (a profile's probe is a run).
// Each thread may hold one World at a time; an exception in body stops nothing and is rethrown
// after all threads end (the lowest index's).
void for_each_index(uint64_t count, unsigned jobs, const std::function<void(uint64_t)>& body);

// Many sweeps on one pool of `jobs` threads (compare's cells): every (cell, seed) run is one
// task. Cells whose `cost` is small next to the total run first in index order (their rows show
// at once); the long ones follow, the costliest first, so a long cell does not finish last alone. Each cell's result is what sweep() returns for it: the same
// counts whatever the number of jobs (a cell's `jobs` and `progress` are not used, and
// stop_at_first is not supported). `done(i, result)` is called on the calling thread for every
// cell in index order, as soon as that cell and every cell before it are complete; `progress`
// (may be empty) as in SweepOptions, counting over all cells.
void sweep_cells(const std::vector<SweepOptions>& cells, const std::vector<double>& cost, unsigned jobs,
                 const std::function<void(uint64_t runs, uint64_t violating)>& progress,
                 const std::function<void(size_t cell, SweepResult&& result)>& done);

// What a shrink may do to the faults. story (the default): keep each fault's kind and the order
// they strike in, with the same pauses' ends and failovers between them (RunResult::story); their
// times, lengths and occurrences shrink. keep: the plan exactly as written (an incident's
// write-up); only the sale and the schedule shrink. drop: faults may also be dropped, and the
// story may change, as long as the properties and the mechanism stay.
enum class ShrinkFaults : uint8_t { story, keep, drop };
struct ShrinkOptions {
  int budget_runs = 150;                  // runs of the greedy steps
  ShrinkFaults faults = ShrinkFaults::story;
  uint64_t explore_executions = 4000;     // the explorer step's executions, over its sales
  int search_runs = 15000;                // the random step's runs at the smallest sales
  // The fault profile the failing run's plan was drawn from (check's --faults), so the random
  // step draws a plan per seed at the small sales as check would; empty: the plan as found.
  std::string profile;
};

// Shrinking, jointly over the workload, the fault plan and the schedule. First the exhaustive
// explorer at the smallest sales (2 then 3 buyers, one unit, constant latencies) with the plan's
// faults as its alternatives; then, when it finds nothing (a failure that needs arrivals or
// latencies apart), random seeds at those sales with the sale's own latencies and the plan as
// found; then greedy steps: a smaller sale (with each trigger's occurrence as
// it was, scaled with the buyers, or the first), no client misbehaviour, faults moved from a
// time to a fault point, at an earlier occurrence, lengths and times cut to the shortest that
// still fails; then the run's own choice list, cut short and with blocks deleted or set to the
// first option (a lenient replay, sim::ChoicesStrategy). A step is kept only while the run still
// violates every one of `properties` the failing run violated, still reaches every shrink_keeps
// situation it reached (the mechanism) and, unless options.faults says drop, tells the same
// story of faults.
protocols::Scenario shrink(const protocols::Scenario& failing, const std::vector<std::string>& properties, const ShrinkOptions& options);
protocols::Scenario shrink(const protocols::Scenario& failing, const std::vector<std::string>& properties, int budget_runs = 150);

// The events worth reading for a violation: faults, failovers, lock beliefs, stock writes,
// order inserts, acknowledgements.
// Faults and the events at `keep_steps` (the violations' steps) are always kept, also when the
// rest is cut to `limit` lines.
std::vector<sim::TraceEvent> cut_trace(const std::vector<sim::TraceEvent>& events, size_t limit = 80, const std::vector<uint64_t>& keep_steps = {});
// Redis commands, SQL statements and faults in a trace: how long a counterexample is to read
// (notes such as lock beliefs are not counted).
size_t protocol_events(const std::vector<sim::TraceEvent>& events);
// The steps of every violation of a run, for cut_trace.
std::vector<uint64_t> violation_steps(const RunResult& run);

// One line that pins a run: design, label (its profile, or "plan"), seed, run hash (trace and
// choices), the properties it violated ("-" for none), and the fault plan it ran, separated by
// tabs. Two builds that print different lines for the same scenario disagree about that run.
std::string fingerprint(const std::string& label, const RunResult& run);
struct LabelledScenario {
  std::string label;
  protocols::Scenario scenario;
  std::string profile;  // when set, applied to `scenario` in the worker thread (it probes the sale)
};
// Runs every scenario (in `jobs` OS threads, one World each) and returns their fingerprints in
// input order. A run that fails inside oversim gives "<design>\t<label>\t<seed>\terror: ...";
// a scenario that cannot run as asked, "<design>\t<label>\t<seed>\tinvalid: ...".
std::vector<std::string> fingerprints(const std::vector<LabelledScenario>& runs, unsigned jobs);

// `oversim run --variant ... --seed ... --faults '...' [flags that differ from the defaults]`,
// with `--properties` when `asserted` differs from the default set, so the line replays the
// same verdict and exit status.
std::string reproduce_command(const protocols::Scenario& scenario, const std::vector<std::string>& asserted = default_asserted());
// The program a reproduce line runs: `oversim` unless a user's binary, built with oversim_main()
// (cli/oversim_main.h), says otherwise; and the command that rebuilds it, put first in every
// reproduce line as `<rebuild> && <program> run ...` (empty: none). Set before anything runs.
void set_reproduce_program(std::string program, std::string rebuild = {});
const std::string& reproduce_program();
// One flag of a command line, with its value as `run` reads it back ("--stock", "1").
struct FlagValue {
  std::string flag;
  std::string value;
};
// The horizon, schedule, workload and setting flags of `scenario` that differ from the defaults,
// in the order a reproduce line prints them: the one list behind reproduce lines and scenario
// files, so the two never disagree. With `every`, each of them whatever its value (the schedule
// included), for a result that states the whole scenario.
std::vector<FlagValue> scenario_settings(const protocols::Scenario& scenario, bool every = false);
// scenario_settings as command-line text (" --stock 1 ..."), quoted where a shell would split.
std::string scenario_flags(const protocols::Scenario& scenario);


}  // namespace oversim::properties
