// Scenario files: a whole scenario as a TOML file (docs/guide.md, "Scenario files"), read into the
// flags `run`, `check` and `compare` take, and written back from any run (`--emit-scenario`).
//
// A file holds what a command line would: the keys are the flags' names without "--", so every
// value is checked by the same code as a typed flag and a file never says what a flag cannot.
//
//   design = "redis_lock_read_modify_write"       # --variant (compare: --variants)
//   faults = "gc-pause"                           # a profile, "none", or a plan: one fault per entry
//   [workload]                                    # --buyers, --stock, --lock-ttl, --isolation, ...
//   [run] / [check] / [compare]                   # flags of that command only (seed, seeds, require)
//   [expect]                                      # run = "violated", check = "holds", violated = [...]
//
// Flags typed on the command line override the file's.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "properties/checker.h"

namespace oversim::cli {

// One key of a scenario file, as the flag it stands for.
struct ScenarioEntry {
  std::string table;  // "" (top level), "workload", "run", "check" or "compare"
  std::string key;    // the flag's name without "--" ("buyers", "lock-ttl"); "design" for the design
  std::string value;  // as a flag's value: lists joined by ',' (a plan's faults by "; ")
  bool is_bool = false;  // a switch (`no-shrink = true`): the flag is given when true, left out when false
  long line = 0;
};

struct ScenarioFile {
  std::string path;
  std::vector<ScenarioEntry> entries;               // in file order
  std::map<std::string, std::string> expect;         // command ("run", "check") -> verdict word
  std::vector<std::string> expect_violated;          // properties the file says the runs violate
  std::string where(const ScenarioEntry& e) const;   // "FILE:LINE"
};

// Reads and checks the file's shape (tables, value types, the [expect] words and property names);
// the values themselves are checked as flags when a command reads them. Throws UsageError naming
// the file, the line and the problem.
ScenarioFile read_scenario_file(const std::string& path);

// The verdict words of [expect] and `--emit-scenario`, by exit status (README's table).
const char* verdict_word(int exit_status);

// What a command reads from a scenario file, for its header and the expectation check.
struct ScenarioSource {
  std::string path;                        // "" : no file
  std::vector<std::string> overridden;     // flags typed on the command line that the file also sets
  std::map<std::string, std::string> expect;
  std::vector<std::string> expect_violated;
  bool given() const { return !path.empty(); }
  // "scenario: FILE" with what the command line overrode, for a command's header ("" with no file).
  std::string header_line() const;
};

// A scenario file's [expect] for this command, against how it ended: one line after the verdict
// (stderr when stdout carries JSON). The exit status stays the verdict's.
int expectation(const ScenarioSource& source, const char* command, int status, bool quiet_stdout);

// The scenario of a run as a file `oversim run FILE` replays: the design, the faults (a plan, one
// fault per entry), the asserted properties when not the default, the workload flags that differ
// from the defaults, the seed and schedule under [run], and what the run ended as under [expect].
std::string scenario_toml(const protocols::Scenario& s, const std::vector<std::string>& asserted, const std::string& written_by, int exit_status,
                          const std::vector<std::string>& violated);

}  // namespace oversim::cli
