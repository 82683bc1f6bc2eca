// A sweep's result as data that can be merged: every count, sum, lowest seed and sample of a
// properties::SweepResult (first_failure aside: a merge replays the merged first failing seed).
// `check --shard` and `compare --shard` write it; `oversim merge` reads it back and merges the
// shards (properties::merge_sweeps) into what one sweep of all their seeds gives.
//
// Samples (answer times, lock waits, ...) are kept exactly, in nanoseconds, sorted and
// delta-encoded: no figure drawn from them (a quantile, a median) depends on their order, and a
// merged figure is the one the whole sweep gives, not an estimate.
#pragma once

#include <nlohmann/json.hpp>

#include "properties/checker.h"
#include "properties/explore.h"

namespace oversim::report {

nlohmann::json sweep_state_json(const properties::SweepResult& sw);
// Throws std::invalid_argument naming the field that is missing or of the wrong type.
properties::SweepResult sweep_state(const nlohmann::json& j);

// An exploration's shard (explore --shard) the same way: its counts, and the shortest
// counterexample's choice values, steps and choice count (properties::merge_explores).
nlohmann::json explore_state_json(const properties::ExploreResult& r);
properties::ExploreResult explore_state(const nlohmann::json& j);

}  // namespace oversim::report
