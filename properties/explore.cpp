#include "properties/explore.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include <fmt/format.h>

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

ExploreResult explore(const ExploreOptions& options) {
  if (auto problem = explore_problem(options)) throw std::invalid_argument(fmt::format("explore: {}", *problem));
  const auto started = std::chrono::steady_clock::now();  // wall time, reported only
  ExploreResult out;
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
  std::optional<RunResult> best;
  std::vector<uint64_t> prefix;
  while (true) {
    if (out.executions >= options.max_executions) break;
    sim::ExploreStrategy strategy(prefix, options.data_options, options.max_deviations.value_or(UINT64_MAX));
    RunResult r = run_checked(s, std::make_unique<sim::LentStrategy>(strategy));
    ++out.executions;
    out.longest = std::max(out.longest, r.choices.size());
    out.pruned += strategy.reduced();
    const std::vector<std::vector<uint32_t>>& walked = strategy.walked();
    if (walked.size() != r.choices.size()) throw std::logic_error("explore: the strategy and the world disagree about the choices made");
    for (size_t i = prefix.size(); i < walked.size(); ++i) {
      if (walked[i].size() == 1 && r.choices[i].bound > 1 && r.choices[i].kind == sim::ChoiceKind::data) ++out.fixed_draws;
    }
    std::vector<sim::Choice> record = r.choices;
    ++out.run_status[sim::to_string(r.outcome.status)];
    for (const PropertyResult& pr : r.properties) {
      if (pr.violated) ++out.counts[pr.property->name];
    }
    if (r.violates(options.asserted) && (!options.keep || options.keep(r))) {
      ++out.violating;
      const bool shorter = !best || r.outcome.steps < best->outcome.steps ||
                           (r.outcome.steps == best->outcome.steps && r.choices.size() < best->choices.size());
      if (shorter) best = std::move(r);
      if (options.stop_at_first) {
        out.stopped = true;
        break;
      }
    }
    auto next = sim::next_prefix(sim::values_of(record), walked);
    if (!next) {
      out.complete = true;
      break;
    }
    prefix = std::move(*next);
  }
  if (best) {
    // The counterexample must replay as the same run without the explorer: same trace, same
    // violations. Anything else is a bug in oversim, not in the design.
    Scenario replay = replay_scenario(*best);
    const RunResult again = run_checked(replay);
    bool same = again.outcome.trace_hash == best->outcome.trace_hash;
    for (size_t k = 0; same && k < again.properties.size(); ++k) same = again.properties[k].violated == best->properties[k].violated;
    if (!same) throw std::logic_error("explore: the counterexample does not replay as the same run from its plan and choice list");
    replay.keep_trace = true;
    out.counterexample = replay;
  }
  out.wall_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - started).count();
  return out;
}

}  // namespace oversim::properties
