// The `oversim` command line: CLI11 splits the arguments into the flag structs of
// cli/commands.h (every value as text), and execute() runs the chosen command. Split from
// main() so tests and the fuzz target parse exactly what the command parses.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/shard.h"

namespace CLI { class App; }

namespace oversim::cli {

class CommandLine {
 public:
  CommandLine();
  ~CommandLine();
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  // Parses argv[1..]. Returns an exit status when parsing alone finishes the job (0 after
  // --help or --version, 2 after a usage error, printed as one line on stderr); nullopt when a
  // command is ready to run.
  std::optional<int> parse(int argc, const char* const* argv);
  // Parses `args` (no program name); throws UsageError on anything CLI11 rejects. May be called
  // again: every flag returns to its default first, so one parse never leaks into the next.
  void parse_or_throw(std::vector<std::string> args);
  // Runs the parsed command: 0 holds, 1 violated, 2 bad input (UsageError is printed here), 3 internal error,
  // 4 incomplete, 5 vacuous, 6 unfired (cli/commands.cpp exit_status; README.md's table).
  int execute();

  // What was parsed (for tests and the fuzz target).
  bool is_run() const;
  const RunFlags& run_flags() const { return run_; }

 private:
  void set_defaults();
  // With a scenario file named: parses again with the file's flags after `args`, leaving out the
  // ones typed on the command line (they override the file).
  void apply_scenario_file(const std::vector<std::string>& args);
  // `--faults @FILE` of every command, read into the plan text it holds.
  void expand_plan_files();
  // --format json: runs the command with its text discarded and prints its result JSON.
  int json_on_stdout();
  std::string format_ = "text";  // run|check|explore|compare|hash --format
  // A usage error about a flag the scenario file set names the file's line too.
  std::string with_origin(const std::string& message) const;
  std::unique_ptr<CLI::App> app_;
  std::string scenario_path_;  // run|check|compare FILE
  std::map<std::string, std::string> flag_origin_;  // "--buyers" -> "FILE:LINE" for flags the file set
  CLI::App* list_cmd_ = nullptr;
  CLI::App* run_cmd_ = nullptr;
  CLI::App* check_cmd_ = nullptr;
  CLI::App* compare_cmd_ = nullptr;
  CLI::App* hash_cmd_ = nullptr;
  CLI::App* lint_cmd_ = nullptr;
  CLI::App* help_cmd_ = nullptr;
  std::string help_what_;
  CLI::App* demo_cmd_ = nullptr;
  CLI::App* explore_cmd_ = nullptr;
  CLI::App* report_cmd_ = nullptr;
  CLI::App* merge_cmd_ = nullptr;
  MergeFlags merge_;
  std::string report_result_;
  std::string report_html_;
  bool check_determinism_ = false;
  std::string list_what_;
  RunFlags run_;
  CheckFlags check_;
  CompareFlags compare_;
  HashFlags hash_;
  LintFlags lint_;
  DemoFlags demo_;
  ExploreFlags explore_;
};

}  // namespace oversim::cli
