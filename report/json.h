// Results as data: the JSON values every command's result is built from, one schema for all
// (docs/json-schema.md, docs/oversim-result.schema.json). The command line renders text itself
// and writes these with --json FILE; a user's tooling reads them.
//
// Values are typed: counts and seeds are numbers, durations are integers in nanoseconds (keys
// ending in _ns), booleans are booleans; "no value" is null.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "properties/checker.h"
#include "properties/metrics.h"
#include "properties/verdict.h"

namespace oversim::report {

// The schema every result names in its "schema" field; bumped when a field changes meaning or
// goes away (adding a field keeps it).
inline constexpr const char* kSchema = "oversim-result/1";

// The verdict every result carries: its kind (the one field a script needs), whether it holds
// (only exhaustive and random do), the exit status it gives and the search behind it.
nlohmann::json verdict_json(properties::VerdictKind kind, const char* search, int exit_status);

// The whole scenario: design, seed, schedule, horizon, the fault plan (one fault per entry) and
// every workload and setting flag with its value, defaults included, as `run` reads them back
// (`flags`), with the ones that differ from the defaults listed apart (`changed`).
nlohmann::json scenario_json(const protocols::Scenario& s);

// One entry per property of the catalogue: name, kind, asserted, and the counts `counts` gives.
nlohmann::json properties_json(const std::vector<std::string>& asserted, const std::function<nlohmann::json(const properties::Property&)>& counts);

// A counterexample: its scenario, every property it violates with time, step and witness, the
// protocol events, the reproduce command and its timeline (report/timeline.h; empty lanes when
// the run kept no trace).
nlohmann::json counterexample_json(const protocols::Scenario& s, const properties::RunResult& r, const std::vector<std::string>& asserted);

// One run: its scenario, how it ended (status, end time, steps, trace hash), every property
// (violated with its violation, or reached), the faults planned and fired, the story of its
// faults, and the sale's numbers.
nlohmann::json run_json(const properties::RunResult& r, const std::vector<std::string>& asserted);

// A `hash` line ("design\tlabel\tseed\thash\tviolated\tplan") as an object.
nlohmann::json fingerprint_json(const std::string& line);

// A compare cell as data: every property's count over the sweep's runs with its rate's 95% Wilson
// interval, the unfired, unplaced and horizon runs, the coverage a profile had to reach and no
// run did (`never_reached`), the lock's cost counters and the sale's numbers.
nlohmann::json cell_json(const std::string& variant, const std::string& faults, const properties::SweepResult& sw, bool has_lock_service, bool untested,
                         const std::vector<std::string>& never_reached);

// The sale's numbers over a sweep's runs (docs/guide.md#the-sales-numbers).
nlohmann::json metrics_json(const properties::SaleMetrics& m);

// The 95% Wilson score interval of k successes in n trials ({0, 1} for n = 0): what a sweep's
// count says about the per-run probability. Good at small n and at k = 0, unlike k/n +- 2 SE.
struct Interval {
  double low = 0;
  double high = 1;
};
Interval wilson95(int64_t k, int64_t n);
// {"runs": n, "count": k, "rate": k/n, "ci95": [low, high]}
nlohmann::json rate_json(int64_t k, int64_t n);

}  // namespace oversim::report
