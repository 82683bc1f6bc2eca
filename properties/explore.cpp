#include "properties/explore.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include <fmt/format.h>

#include <stdexcept>

#include "protocols/settings.h"
#include "sim/strategy.h"

namespace oversim::properties {

using protocols::Scenario;

Scenario replay_scenario(const RunResult& run) {
  Scenario s = run.scenario;
  s.fault_choices.reset();
  for (const sim::Fault& f : run.chosen_faults) s.faults.faults.push_back(f);
  std::vector<uint64_t> values;
  for (const sim::Choice& c : run.choices) {
    if (c.kind != sim::ChoiceKind::fault) values.push_back(c.value);
  }
  s.schedule = protocols::choices_schedule(std::move(values));
  return s;
}

namespace {
// Every setting the line above does not already state that differs from its default, as the
// flags that set it: the same source as a reproduce line (scenario_flags), so a setting that
// changes the verdict (--lock-ttl, --masters, --isolation, ...) can never be left out of the
// claim. A design's requirements count: the sale runs with them.
std::string other_settings(const Scenario& base) {
  Scenario rest = base;
  if (const protocols::Design* d = protocols::find_design(base.design)) {
    rest.workload = protocols::apply_requirements(base.workload, d->requirements, base.typed, d->name).workload;
  }
  const protocols::Workload defaults;
  rest.workload.buyers = defaults.buyers;
  rest.workload.stock = defaults.stock;
  rest.workload.app_nodes = defaults.app_nodes;
  rest.workload.arrival = defaults.arrival;
  rest.workload.burst_window = defaults.burst_window;
  rest.workload.latency_min = defaults.latency_min;
  rest.workload.latency_max = defaults.latency_max;
  rest.workload.latency_tail = defaults.latency_tail;
  rest.schedule = Scenario{}.schedule;  // the explorer walks every schedule
  const std::string flags = scenario_flags(rest);
  return flags.empty() ? std::string("every other setting at its default") : "other settings" + flags;
}
}  // namespace

std::string describe_bounds(const ExploreOptions& o) {
  const protocols::Workload& w = o.base.workload;
  std::string faults;
  for (const sim::Fault& f : o.faults) {
    sim::Fault untriggered = f;
    untriggered.trigger = sim::Trigger{};
    std::string text = sim::to_string(untriggered);
    if (text.rfind("at 0 ", 0) == 0) text = text.substr(5);  // it has no time of its own: it strikes at a point
    faults += fmt::format("{}{}", faults.empty() ? "" : "; ", text);
  }
  std::string points = "any point";
  if (!o.points.empty()) {
    points.clear();
    for (const std::string& p : o.points) points += fmt::format("{}{}", points.empty() ? "" : ",", p);
  }
  const std::string latency = w.latency_min == w.latency_max ? fmt::format("{} constant", sim::format_duration(w.latency_min))
                                                             : fmt::format("{}..{}{}", sim::format_duration(w.latency_min),
                                                                           sim::format_duration(w.latency_max), w.latency_tail ? " with a tail" : "");
  const std::string fault_text = o.max_faults == 0 || o.faults.empty()
                                     ? "no faults"
                                     : fmt::format("at most {} fault{} of {{{}}} at {}", o.max_faults, o.max_faults == 1 ? "" : "s", faults, points);
  const std::string arrivals = w.arrival == protocols::Arrival::burst && w.burst_window == sim::Duration::zero()
                                   ? std::string("all arriving at 0")
                                   : w.arrival == protocols::Arrival::slots
                                   ? fmt::format("each arriving at one of {} instants over {}", w.buyers, sim::format_duration(w.burst_window))
                                   : fmt::format("{} arrivals", protocols::to_string(w.arrival));
  const std::string deviations = o.max_deviations ? fmt::format("at most {} schedule deviation{} from the first order", *o.max_deviations,
                                                                *o.max_deviations == 1 ? "" : "s")
                                                  : std::string("any schedule");
  return fmt::format("{} buyer{}, stock {}, {} app node{}, {}, latency {}, {}, {}; {}; data draws with more than {} options take their first",
                     w.buyers, w.buyers == 1 ? "" : "s", w.stock, w.app_nodes, w.app_nodes == 1 ? "" : "s", arrivals, latency, fault_text,
                     deviations, other_settings(o.base), o.data_options);
}

std::optional<std::string> explore_problem(const ExploreOptions& o) {
  const protocols::Workload& w = o.base.workload;
  if (!o.base.faults.empty()) return std::string("the sale has a fault plan; give the faults as alternatives (--faults) instead");
  if (w.latency_min != w.latency_max || w.latency_tail) {
    return fmt::format("--latency {} is a range: the explorer would run only its lower end; give one latency (for example 200us)", protocols::format_latency(w));
  }
  if (w.arrival != protocols::Arrival::burst && w.arrival != protocols::Arrival::slots) {
    return fmt::format("--arrival {} draws its arrival times: the explorer would run only one; use burst arrivals, or slots",
                       protocols::to_string(w.arrival));
  }
  if (w.arrival == protocols::Arrival::slots && static_cast<uint64_t>(w.buyers) > o.data_options) {
    return fmt::format("--arrival slots with {} buyers draws among {} instants, more than the explorer walks ({}); use at most {} buyers", w.buyers, w.buyers,
                       o.data_options, o.data_options);
  }
  if (w.remote_call_spread != protocols::Spread::constant) {
    return fmt::format("--remote-call {} is a distribution: the explorer would run only its first draw; give one duration (for example 20ms)",
                       protocols::format_distribution(protocols::remote_call_distribution(w)));
  }
  if (w.replication_spread != protocols::Spread::constant) {
    return fmt::format("--replication-lag {} is a distribution: the explorer would run only its first draws; give one duration (for example 20ms)",
                       protocols::format_distribution(protocols::replication_distribution(w)));
  }
  for (const auto& [flag, link] : {std::pair{"--db-latency", &w.db_latency}, std::pair{"--lock-latency", &w.lock_latency}}) {
    if (*link && (*link)->spread != protocols::Spread::constant) {
      return fmt::format("{} {} is a distribution: the explorer would run only its first draws; give one latency (for example 200us)", flag,
                         protocols::format_distribution(**link));
    }
  }
  if (w.sku_skew_centi != 0 && w.skus > 1) return std::string("--sku-skew draws each buyer's SKU: the explorer would send every buyer to sku1; use --sku-skew 0");
  if (w.arrival == protocols::Arrival::burst && w.burst_window != sim::Duration::zero()) {
    return fmt::format("--burst-window {} draws each arrival in a window: the explorer would run only its start; use --burst-window 0, or --arrival slots",
                       sim::format_duration(w.burst_window));
  }
  if (w.double_click.numerator != 0 && w.double_click.numerator < w.double_click.denominator && w.double_click.denominator > o.data_options) {
    return fmt::format("--double-click {} has more outcomes than the explorer walks ({}); give a share like 1/2 or 1/4", sim::format_ratio(w.double_click),
                       o.data_options);
  }
  return std::nullopt;
}

namespace {

// The scenario every execution of the walk starts from: the base with the fault alternatives as
// fault choices, each resolved against the sale that runs.
Scenario explore_scenario(const ExploreOptions& options) {
  Scenario s = options.base;
  s.keep_trace = false;
  s.record_choices = true;  // every execution's choices are the tree it walks
  s.fault_choices = protocols::FaultChoices{options.points, {}, options.max_faults};
  // A multiple of a quantity ("1.5x lock-ttl") is of the sale that runs: with the design's
  // requirements and defaults (etcd's 2s session lease), as check and run resolve it.
  protocols::Workload sized = s.workload;
  if (const protocols::Design* d = protocols::find_design(s.design)) {
    sized = protocols::apply_requirements(s.workload, d->requirements, s.typed, d->name).workload;
  }
  const sim::Quantities q = protocols::quantities(sized);
  for (const sim::Fault& f : options.faults) {
    // A fault on "here" (the node that reaches the point) resolves as a triggered one, which it
    // becomes when chosen.
    sim::FaultPlan one;
    one.faults.push_back(f);
    if (f.node == sim::kHere && !f.triggered()) one.faults.front().trigger = sim::Trigger{options.points.empty() ? std::string("after_acquire") : options.points.front(), "", 1};
    sim::Fault resolved = one.resolved(q).faults.front();
    resolved.trigger = f.trigger;
    s.fault_choices->faults.push_back(std::move(resolved));
  }
  return s;
}

struct Walked {
  RunResult run;
  std::vector<std::vector<uint32_t>> walked;
  uint64_t reduced = 0;
};

// One execution: the prefix's choices, then every later choice's first option walked.
Walked execute(const Scenario& s, const ExploreOptions& options, const std::vector<uint64_t>& prefix) {
  sim::ExploreStrategy strategy(prefix, options.data_options, options.max_deviations.value_or(UINT64_MAX));
  Walked out{run_checked(s, std::make_unique<sim::LentStrategy>(strategy)), {}, 0};
  out.walked = strategy.walked();
  out.reduced = strategy.reduced();
  if (out.walked.size() != out.run.choices.size()) throw std::logic_error("explore: the strategy and the world disagree about the choices made");
  return out;
}

// The subtrees a sharded walk deals out, in the order the whole walk visits them: from the root,
// level by level, each subtree is cut at its first choice with more than one option walked into
// one subtree per option, until there are `target` of them or none branches (a subtree that is
// one execution stays whole). The options walked at a choice depend only on the choices before
// it, so the subtrees are the same in every shard and together are the whole tree.
std::vector<std::vector<uint64_t>> split_tree(const Scenario& s, const ExploreOptions& options, size_t target) {
  std::vector<std::vector<uint64_t>> roots{{}};
  std::vector<bool> leaf{false};
  for (int level = 0; level < 64 && roots.size() < target; ++level) {
    std::vector<std::vector<uint64_t>> next;
    std::vector<bool> next_leaf;
    bool split = false;
    for (size_t r = 0; r < roots.size(); ++r) {
      if (leaf[r] || next.size() + (roots.size() - r) >= target * 4) {
        next.push_back(roots[r]);
        next_leaf.push_back(leaf[r]);
        continue;
      }
      const Walked w = execute(s, options, roots[r]);
      const std::vector<uint64_t> values = sim::values_of(w.run.choices);
      size_t j = roots[r].size();
      while (j < w.walked.size() && w.walked[j].size() < 2) ++j;
      if (j == w.walked.size()) {
        next.push_back(roots[r]);
        next_leaf.push_back(true);
        continue;
      }
      for (uint32_t option : w.walked[j]) {
        std::vector<uint64_t> child(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(j));
        child.push_back(option);
        next.push_back(std::move(child));
        next_leaf.push_back(false);
      }
      split = true;
    }
    roots = std::move(next);
    leaf = std::move(next_leaf);
    if (!split) break;
  }
  return roots;
}

}  // namespace

ExploreResult explore(const ExploreOptions& options) {
  if (auto problem = explore_problem(options)) throw std::invalid_argument(fmt::format("explore: {}", *problem));
  if (options.shard_count > 0 && (options.shard_index == 0 || options.shard_index > options.shard_count)) {
    throw std::invalid_argument(fmt::format("explore: shard {}/{} does not exist", options.shard_index, options.shard_count));
  }
  const auto started = std::chrono::steady_clock::now();  // wall time, reported only
  ExploreResult out;
  const Scenario s = explore_scenario(options);
  // The whole tree, or this shard's contiguous block of its subtrees.
  std::vector<std::vector<uint64_t>> roots{{}};
  size_t first_root = 0;
  size_t end_root = 1;
  if (options.shard_count > 0) {
    roots = split_tree(s, options, static_cast<size_t>(4 * options.shard_count));
    const SeedBlock block = shard_block(0, roots.size(), options.shard_index, options.shard_count);
    first_root = static_cast<size_t>(block.first);
    end_root = static_cast<size_t>(block.first + block.count);
    out.split_subtrees = roots.size();
    out.subtrees = block.count;
  }
  std::optional<RunResult> best;
  out.complete = true;
  for (size_t r = first_root; r < end_root && out.complete && !out.stopped; ++r) {
    const std::vector<uint64_t>& root = roots[r];
    // Choices new in an execution (fixed draws are counted there, once per choice of the tree):
    // past its prefix, and for a subtree's first execution past where the whole walk would have
    // backtracked to reach it (where it parts from the subtree before it).
    size_t new_from = 0;
    if (r > 0) {
      const std::vector<uint64_t>& before = roots[r - 1];
      while (new_from < root.size() && new_from < before.size() && root[new_from] == before[new_from]) ++new_from;
      ++new_from;
    }
    std::vector<uint64_t> prefix = root;
    while (true) {
      if (out.executions >= options.max_executions) {
        out.complete = false;
        break;
      }
      Walked w = execute(s, options, prefix);
      RunResult& run = w.run;
      ++out.executions;
      out.longest = std::max(out.longest, run.choices.size());
      out.pruned += w.reduced;
      for (size_t i = std::min(new_from, w.walked.size()); i < w.walked.size(); ++i) {
        if (w.walked[i].size() == 1 && run.choices[i].bound > 1 && run.choices[i].kind == sim::ChoiceKind::data) ++out.fixed_draws;
      }
      const std::vector<uint64_t> values = sim::values_of(run.choices);
      ++out.run_status[sim::to_string(run.outcome.status)];
      for (const PropertyResult& pr : run.properties) {
        if (pr.violated) ++out.counts[pr.property->name];
      }
      if (run.violates(options.asserted) && (!options.keep || options.keep(run))) {
        ++out.violating;
        const bool shorter = !best || run.outcome.steps < best->outcome.steps ||
                             (run.outcome.steps == best->outcome.steps && run.choices.size() < best->choices.size());
        if (shorter) best = std::move(run);
        if (options.stop_at_first) {
          out.stopped = true;
          out.complete = false;
          break;
        }
      }
      // Backtrack within the subtree: the choices of its root are fixed.
      for (size_t i = 0; i < root.size() && i < w.walked.size(); ++i) w.walked[i] = {static_cast<uint32_t>(values[i])};
      auto next = sim::next_prefix(values, w.walked);
      if (!next) break;
      prefix = std::move(*next);
      new_from = prefix.size();
    }
  }
  if (best) {
    out.best_values = sim::values_of(best->choices);
    out.best_steps = best->outcome.steps;
    out.best_choices = best->choices.size();
    out.counterexample = checked_replay(*best);
  }
  out.wall_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - started).count();
  return out;
}

Scenario checked_replay(const RunResult& best) {
  // The counterexample must replay as the same run without the explorer: same trace, same
  // violations. Anything else is a bug in oversim, not in the design.
  Scenario replay = replay_scenario(best);
  const RunResult again = run_checked(replay);
  bool same = again.outcome.trace_hash == best.outcome.trace_hash;
  for (size_t k = 0; same && k < again.properties.size(); ++k) same = again.properties[k].violated == best.properties[k].violated;
  if (!same) throw std::logic_error("explore: the counterexample does not replay as the same run from its plan and choice list");
  replay.keep_trace = true;
  return replay;
}

Scenario explore_counterexample(const ExploreOptions& options, const std::vector<uint64_t>& values) {
  return checked_replay(execute(explore_scenario(options), options, values).run);
}

void merge_explores(ExploreResult& into, ExploreResult&& later, bool first) {
  if (!first && (into.stopped || !into.complete)) return;  // one walk would have ended there
  into.executions += later.executions;
  into.violating += later.violating;
  into.pruned += later.pruned;
  into.fixed_draws += later.fixed_draws;
  into.longest = std::max(into.longest, later.longest);
  into.complete = later.complete;
  into.stopped = later.stopped;
  for (const auto& [name, n] : later.counts) into.counts[name] += n;
  for (const auto& [status, n] : later.run_status) into.run_status[status] += n;
  into.subtrees += later.subtrees;
  into.split_subtrees = later.split_subtrees;
  into.wall_ns += later.wall_ns;
  const bool shorter = !later.best_values.empty() &&
                       (into.best_values.empty() || later.best_steps < into.best_steps ||
                        (later.best_steps == into.best_steps && later.best_choices < into.best_choices));
  if (shorter) {
    into.best_values = std::move(later.best_values);
    into.best_steps = later.best_steps;
    into.best_choices = later.best_choices;
  }
  into.counterexample.reset();
}

}  // namespace oversim::properties
