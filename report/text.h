// Results as text: the lines `run`, `check` and `lint` print, rendered from result values (the
// command line prints them; nothing here writes).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "properties/checker.h"
#include "properties/metrics.h"
#include "properties/verdict.h"

namespace oversim::report {

// "20 buyers, 1 sku x 5 units, 2 app nodes, burst arrivals, remote call 20ms, ..."
std::string describe_workload(const protocols::Workload& w);
// A quantile or a time: `none` when there is none; "never" for a buyer that never heard an answer.
std::string span_or(const std::optional<sim::Duration>& d, const char* none = "-");
// The property table of one run: each property's kind, whether asserted, and its verdict.
std::string verdicts_text(const properties::RunResult& r, const std::vector<std::string>& asserted);
// The sale's numbers (properties/metrics.h; docs/guide.md#metrics defines each), for one run or
// merged over a sweep's runs: the sale:, buyers: and monitoring: lines.
std::string metrics_text(const properties::SaleMetrics& m);
// The run's verdict in one line: what it supports, and when it is not a pass, why (`faults`: the
// --faults text, for a profile that placed too little).
std::string run_verdict_text(const properties::RunResult& r, properties::VerdictKind kind, const std::vector<std::string>& asserted, const std::string& faults);
// How a run's attempts ended, its numbers, and every lock-service node it overloaded.
std::string results_text(const properties::RunResult& r);

}  // namespace oversim::report
