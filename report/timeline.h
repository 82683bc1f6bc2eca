// A run's timeline as data, for the HTML report's swimlane picture (report/html.h) and for any
// other renderer: one lane per buyer and per node, what each buyer believed about the lock and
// the lease it was granted as bars, faults as spans, and the events that matter as points, each
// with its trace line. Built from the run's trace; a run without its trace has an empty timeline.
#pragma once

#include <nlohmann/json.hpp>

#include "properties/checker.h"

namespace oversim::report {

// {"end_ns", "lanes": [{"name", "kind": "faults|buyer|app|server"}],
//  "bars": [{"lane", "kind": "belief|lease", "from_ns", "to_ns", "label"}],
//  "spans": [{"lane", "kind": "pause|crash|partition", "from_ns", "to_ns", "label"}],
//  "events": [{"lane", "at_ns", "step", "kind", "text", "violates": [property names]}]}
// Lanes are referred to by index. A lease bar runs from the acquisition for the lock's TTL (the
// scenario's --lock-ttl): what the holder was granted, not what the server did with it.
nlohmann::json timeline_json(const properties::RunResult& run);

}  // namespace oversim::report
