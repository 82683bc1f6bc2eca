// The HTML report: one self-contained file (no script, style or font from the network) rendered
// from a result's JSON (report/json.h), so `oversim report RESULT.json` draws any saved result
// and `--html FILE` draws the one just computed. For compare, the design x fault matrix coloured
// by the worst business property's per-run violation rate with its 95% Wilson interval and the
// sale's numbers; for check and explore, the property counts; for every counterexample, its
// swimlane timeline (report/timeline.h) as SVG with each event's trace line on hover, and its
// reproduce command with a copy button.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace oversim::report {

// Throws std::invalid_argument when `result` is not an oversim result (schema, command).
std::string render_html(const nlohmann::json& result);

// One counterexample's timeline as an <svg> element (for tests and other pages).
std::string timeline_svg(const nlohmann::json& timeline);

}  // namespace oversim::report
