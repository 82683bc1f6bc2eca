// JUnit XML, rendered from a check or explore result's JSON (report/json.h): one test case per
// asserted property, failed with the first failing seed, the violation's witness and the reproduce
// command when violated; a verdict that is not a pass (vacuous, unfired, incomplete) fails every
// asserted case with its kind, so a CI dashboard never shows green for a run that tested nothing.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace oversim::report {

// Throws std::invalid_argument for a result that is not a check or explore result.
std::string render_junit(const nlohmann::json& result);

}  // namespace oversim::report
