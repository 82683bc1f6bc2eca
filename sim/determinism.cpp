#include "sim/determinism.h"

#include <algorithm>

#include <fmt/format.h>

namespace oversim::sim {

RunRecord record_of(const World& world, RunOutcome outcome) {
  return RunRecord{std::move(outcome), world.trace_log().events(), world.choices()};
}

DeterminismReport compare_runs(const RunRecord& first, const RunRecord& second) {
  DeterminismReport report;
  report.first_hash = first.outcome.hash();
  report.second_hash = second.outcome.hash();
  report.identical = report.first_hash == second.outcome.hash();
  if (report.identical) return report;
  const size_t events = std::min(first.events.size(), second.events.size());
  for (size_t i = 0; i < events; ++i) {
    if (!(first.events[i] == second.events[i])) {
      report.divergence = fmt::format("first divergent event #{}:\n  first:  {}\n  second: {}", i, render_text(first.events[i]),
                                      render_text(second.events[i]));
      return report;
    }
  }
  if (first.events.size() != second.events.size()) {
    report.divergence = fmt::format("the traces agree for {} events, then one run has {} events and the other {}", events,
                                    first.events.size(), second.events.size());
    return report;
  }
  const size_t choices = std::min(first.choices.size(), second.choices.size());
  for (size_t i = 0; i < choices; ++i) {
    if (!(first.choices[i] == second.choices[i])) {
      const Choice& a = first.choices[i];
      const Choice& b = second.choices[i];
      report.divergence = fmt::format("traces agree; first divergent choice #{}: {} {}/{} vs {} {}/{}", i, to_string(a.kind), a.value,
                                      a.bound, to_string(b.kind), b.value, b.bound);
      return report;
    }
  }
  report.divergence = fmt::format("traces and recorded choices agree, but the hashes differ (status {} vs {}, {} vs {} steps)",
                                  to_string(first.outcome.status), to_string(second.outcome.status), first.outcome.steps, second.outcome.steps);
  return report;
}

DeterminismReport check_determinism(const std::function<RunRecord()>& run) {
  RunRecord first = run();
  RunRecord second = run();
  return compare_runs(first, second);
}

}  // namespace oversim::sim
