// A result's verdict as data: which claim a run, a sweep or an exploration supports. Only
// `exhaustive` and `random` hold; every other kind says why nothing may be concluded, so no
// renderer can print a pass the result does not support ("no silent pass"). The command line
// maps each kind to its own exit status and renders it as text and JSON (cli/commands.cpp).
//
// When several apply, the first in this order decides: violated (a counterexample is a fact
// whatever else happened), incomplete (a limit cut the work short, which may also be why a
// fault never came or a situation was never reached), unfired, vacuous.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "properties/checker.h"
#include "properties/explore.h"

namespace oversim::properties {

enum class VerdictKind : uint8_t {
  exhaustive,  // every execution within the stated bounds held: a proof within them
  random,      // every one of N sampled executions held: evidence, not a proof
  violated,    // an asserted property was violated: a counterexample
  incomplete,  // a limit ran out before the work was done: explore's --max-executions, or a run
               // stopped at its horizon (virtual time or steps) before the sale ended
  unfired,     // a planned fault never happened: the plan as written was not tested
  vacuous,     // the runs never reached where the properties matter (a profile's target, --require)
};
const char* to_string(VerdictKind kind);
// Only exhaustive and random hold.
bool holds(VerdictKind kind);

// One run: violated, incomplete (it stopped at its horizon), unfired (a planned fault did not
// happen, or the profile placed none of the faults asked for), or random (one execution held).
VerdictKind judge(const RunResult& run, const std::vector<std::string>& asserted);

// A sweep's planned faults that never happened count against it when the plan is the user's
// (`typed_plan`: the same plan every run, each fault written on purpose): any run that missed
// one did not test the plan. A profile draws its plan per seed, and a later fault may find its
// trigger point gone after an earlier one changed the run, so there only a sweep in which no
// planned fault happened at all is unfired; the rest are counted (SweepResult::unfired).
bool faults_untested(const SweepResult& sweep, bool typed_plan);
// The `required` sometimes-properties no run reached.
std::vector<std::string> unreached(const SweepResult& sweep, const std::vector<std::string>& required);
// A sweep: violated (first_failure), incomplete (a run stopped at its horizon), unfired
// (faults_untested), vacuous (a `required` property never reached) or random.
VerdictKind judge(const SweepResult& sweep, const std::vector<std::string>& required, bool typed_plan);

// An exploration: violated, incomplete (the budget ran out, or an execution stopped at its
// horizon) or exhaustive.
VerdictKind judge(const ExploreResult& result);

}  // namespace oversim::properties
