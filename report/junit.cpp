#include "report/junit.h"

#include "report/markup.h"

#include <stdexcept>

#include <fmt/format.h>

namespace oversim::report {
namespace {
std::string xml(const std::string& s) { return escape_markup(s); }
}  // namespace

std::string render_junit(const nlohmann::json& r) {
  const std::string command = r.value("command", "");
  if (command != "check" && command != "explore") throw std::invalid_argument(fmt::format("no JUnit report for the command '{}'", command));
  const nlohmann::json& verdict = r.at("verdict");
  const std::string kind = verdict.at("kind").get<std::string>();
  const std::string suite = fmt::format("oversim {} {}", command, r.value("variant", ""));
  std::string cases;
  int tests = 0, failures = 0;
  for (const nlohmann::json& p : r.at("properties")) {
    if (!p.value("asserted", false)) continue;
    ++tests;
    const std::string name = p.at("name").get<std::string>();
    const int64_t violated = p.value("violated", int64_t{0});
    std::string body;
    if (violated > 0) {
      std::string detail = fmt::format("{} violated in {} of {} runs", name, violated, verdict.value("executions", int64_t{0}));
      if (verdict.contains("first_failing_seed")) detail += fmt::format("; first failing seed {}", verdict["first_failing_seed"].dump());
      if (r.contains("counterexample")) {
        for (const nlohmann::json& v : r["counterexample"].at("violated")) {
          if (v.at("property") == name) detail += fmt::format("\n{} at step {}: {}", name, v.at("step").dump(), v.at("witness").get<std::string>());
        }
        detail += "\nreproduce: " + r["counterexample"].at("reproduce").get<std::string>();
      }
      body = fmt::format("<failure type=\"violated\" message=\"{}\">{}</failure>", xml(fmt::format("{} violated", name)), xml(detail));
    } else if (!verdict.value("holds", false) && kind != "violated") {
      body = fmt::format("<failure type=\"{}\" message=\"{}\">{}</failure>", xml(kind), xml(fmt::format("the {} verdict is not a pass", kind)),
                         xml(fmt::format("{}: the runs did not test {} (exit status {})", kind, name, verdict.value("exit_status", 0))));
    }
    if (!body.empty()) ++failures;
    cases += fmt::format("  <testcase classname=\"{}\" name=\"{}\">{}</testcase>\n", xml(suite), xml(name), body);
  }
  return fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites tests=\"{}\" failures=\"{}\">\n<testsuite name=\"{}\" tests=\"{}\" failures=\"{}\">\n{}</testsuite>\n</testsuites>\n",
                     tests, failures, xml(suite), tests, failures, cases);
}

}  // namespace oversim::report
