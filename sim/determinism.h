// The determinism self-check: run the same seed twice and compare. When the hashes differ, the
// report names the first divergent trace event (or choice), which is where to start looking for
// an unordered container, an address, a wall clock or an uninitialised read.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/strategy.h"
#include "sim/trace.h"
#include "sim/world.h"

namespace oversim::sim {

struct RunRecord {
  RunOutcome outcome;
  std::vector<TraceEvent> events;
  std::vector<Choice> choices;
};

// Captures what a finished world recorded.
RunRecord record_of(const World& world, RunOutcome outcome);

struct DeterminismReport {
  bool identical = false;
  uint64_t first_hash = 0;
  uint64_t second_hash = 0;
  std::string divergence;  // empty when identical
};

DeterminismReport compare_runs(const RunRecord& first, const RunRecord& second);
// Runs `run` twice (each call must build its own World from the same inputs) and compares.
DeterminismReport check_determinism(const std::function<RunRecord()>& run);

}  // namespace oversim::sim
