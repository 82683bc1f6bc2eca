#include "properties/verdict.h"

#include <stdexcept>

namespace oversim::properties {

const char* to_string(VerdictKind kind) {
  switch (kind) {
    case VerdictKind::exhaustive: return "exhaustive";
    case VerdictKind::random: return "random";
    case VerdictKind::violated: return "violated";
    case VerdictKind::incomplete: return "incomplete";
    case VerdictKind::unfired: return "unfired";
    case VerdictKind::vacuous: return "vacuous";
  }
  throw std::logic_error("to_string: unknown verdict kind");
}

bool holds(VerdictKind kind) { return kind == VerdictKind::exhaustive || kind == VerdictKind::random; }

VerdictKind judge(const RunResult& run, const std::vector<std::string>& asserted) {
  if (run.violates(asserted)) return VerdictKind::violated;
  if (run.outcome.status == sim::RunStatus::horizon) return VerdictKind::incomplete;
  if (run.faults_fired < run.faults_planned) return VerdictKind::unfired;
  if (!run.scenario.unplaced.empty()) return VerdictKind::unfired;  // the profile placed less than asked
  return VerdictKind::random;
}

bool faults_untested(const SweepResult& sweep, bool typed_plan) {
  if (typed_plan) return sweep.unfired > 0;
  return sweep.faults_planned > 0 && sweep.faults_fired == 0;
}

std::vector<std::string> unreached(const SweepResult& sweep, const std::vector<std::string>& required) {
  std::vector<std::string> out;
  for (const std::string& name : required) {
    auto it = sweep.counts.find(name);
    if (it == sweep.counts.end() || it->second.reached == 0) out.push_back(name);
  }
  return out;
}

VerdictKind judge(const SweepResult& sweep, const std::vector<std::string>& required, bool typed_plan) {
  if (sweep.first_failure) return VerdictKind::violated;
  if (sweep.horizon_runs() > 0) return VerdictKind::incomplete;
  if (faults_untested(sweep, typed_plan)) return VerdictKind::unfired;
  if (!unreached(sweep, required).empty()) return VerdictKind::vacuous;
  return VerdictKind::random;
}

VerdictKind judge(const ExploreResult& result) {
  if (result.counterexample) return VerdictKind::violated;
  if (!result.complete || result.horizon_runs() > 0) return VerdictKind::incomplete;
  return VerdictKind::exhaustive;
}

}  // namespace oversim::properties
