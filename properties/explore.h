// Bounded exhaustive exploration: every execution of a small sale, not a sample of them.
//
// A run's nondeterminism is its list of strategy choices (sim/strategy.h): which ready fiber
// runs, which of several simultaneous timers fires, every data draw, and here also whether a
// fault strikes at a fault point. The explorer walks that tree depth first (stateless model
// checking, as in VeriSoft and CHESS): it replays a prefix of choices with the choices strategy,
// lets every later choice take its first option, and then backtracks to the deepest choice with
// an option left. Within the bounds it reports either "holds for all K executions" or the
// violating executions, keeping the shortest one as the counterexample.
//
// The bounds are the scenario (buyers, stock, latency: constant by default, so only the order of
// simultaneous events varies), the fault alternatives and where they may strike, the number of
// faults, and data draws: a draw with more than `data_options` options (a lock token's random
// suffix) always takes its first option. Everything else is enumerated.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "properties/checker.h"

namespace oversim::properties {

struct ExploreOptions {
  protocols::Scenario base;              // design, workload, horizon; its plan must be empty
  std::vector<std::string> points;       // where a fault may strike (empty: every point)
  std::vector<sim::Fault> faults;        // the alternatives, triggered faults naming `here`
  int max_faults = 1;
  uint64_t data_options = 16;
  // Schedule and timer choices that may differ from the first option walked (sim::ExploreStrategy);
  // nullopt: no bound.
  std::optional<uint64_t> max_deviations;
  uint64_t max_executions = 1'000'000;   // a budget: past it the result says "incomplete"
  std::vector<std::string> asserted = default_asserted();
  bool stop_at_first = false;            // stop at the first violating execution
  // When set, a violating execution counts only when keep(run) (the shrinker's target: the
  // mechanism and the story of faults as well as the properties).
  std::function<bool(const RunResult&)> keep;
  // Walk only shard `shard_index` (1-based) of `shard_count` (0: the whole tree). The options
  // walked at a choice depend only on the choices before it, so the tree is the same whatever
  // order it is walked in: it is cut into subtrees at its first branching choices, level by level,
  // until there are 4 per shard (or none branches), and each shard walks a contiguous block of
  // them in the whole walk's order. The shards merged (merge_explores) are the whole walk when
  // every shard completes; the budget is per shard.
  uint64_t shard_index = 0;
  uint64_t shard_count = 0;
};

struct ExploreResult {
  uint64_t executions = 0;        // runs made
  uint64_t violating = 0;         // runs that violated an asserted property
  uint64_t pruned = 0;            // subtrees skipped by the reduction
  uint64_t fixed_draws = 0;       // data choices held at their first option (over all runs)
  size_t longest = 0;             // the most choices one run made
  bool complete = false;          // every execution within the bounds was run
  bool stopped = false;           // stop_at_first ended it
  // property -> executions that violated it, whether asserted or not (an unasserted one is
  // observed, not judged)
  std::map<std::string, uint64_t> counts;
  std::map<std::string, uint64_t> run_status;  // completed / deadlock / horizon, per execution
  uint64_t horizon_runs() const {
    auto it = run_status.find("horizon");
    return it == run_status.end() ? 0 : it->second;
  }
  // The shortest violating execution (fewest trace events, then fewest choices), as a scenario
  // that replays it without the explorer: its faults as a plan, its choices as a schedule.
  std::optional<protocols::Scenario> counterexample;
  // That execution's choice values, trace steps and choice count: what a merge of shards keeps
  // to pick the shortest and replay it (explore_counterexample).
  std::vector<uint64_t> best_values;
  uint64_t best_steps = 0;
  size_t best_choices = 0;
  uint64_t subtrees = 0;        // a shard's: the subtrees it walked
  uint64_t split_subtrees = 0;  // a shard's: the subtrees the tree was cut into
  int64_t wall_ns = 0;
};

// Why the explorer cannot cover `options` as asked, or nullopt: a workload whose draws it would
// hold at their first option and so silently change (a latency range, arrivals spread over a
// window or Poisson, a double-click share with more than `data_options` outcomes), or a plan.
std::optional<std::string> explore_problem(const ExploreOptions& options);

// Throws std::invalid_argument with explore_problem's reason.
ExploreResult explore(const ExploreOptions& options);

// Adds a later shard's walk (its subtrees all after `into`'s) to `into` (`first`: into is empty):
// what one walk of both gives, when the shards before it completed (a walk cut short by its
// budget or stopped at its first violation ends there: nothing later counts). The shortest
// counterexample is kept by trace steps, then choices, the earlier on a tie, as one walk keeps
// it; `counterexample` is left empty for explore_counterexample to replay.
void merge_explores(ExploreResult& into, ExploreResult&& later, bool first);
// The counterexample of the execution with these choice values of `options`'s tree, replayed and
// checked as explore() checks its own.
protocols::Scenario explore_counterexample(const ExploreOptions& options, const std::vector<uint64_t>& values);
// The scenario that replays `best` without the explorer, checked to replay as the same run (same
// trace hash and violations: anything else is a bug in oversim), with its trace kept.
protocols::Scenario checked_replay(const RunResult& best);

// The scenario that replays `run` (made with fault choices) without them.
protocols::Scenario replay_scenario(const RunResult& run);

// "2 buyers, stock 1, 2 app nodes, latency 200us constant, at most 1 fault of {pause here for
// 1.5x lock-ttl} at any point, any schedule; other settings --lock-ttl 1s; data draws with more
// than 16 options take their first": the bounds in one line, with every setting that differs
// from its default (or "every other setting at its default").
std::string describe_bounds(const ExploreOptions& options);

}  // namespace oversim::properties
