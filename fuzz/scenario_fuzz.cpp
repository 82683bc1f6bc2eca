// libFuzzer target: the command line of `oversim run`, as a user types it. The input is split
// into arguments at newlines. Whatever is typed is either rejected with a UsageError (exit 2
// with one line), or gives a scenario whose reproduce command parses back to the same scenario:
// a run can always be replayed from the line it prints. Nothing may crash, overflow (UBSan) or
// throw anything else. Built only with clang (fuzz/CMakeLists.txt); see docs/fuzzing.md.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/app.h"
#include "fuzz/run_limits.h"
#include "properties/checker.h"

namespace {
using oversim::cli::CommandLine;
using oversim::cli::UsageError;
using oversim::protocols::Scenario;

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "scenario_fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}

// The reproduce line's words: spaces separate, single quotes group (the plan).
std::vector<std::string> shell_words(const std::string& line) {
  std::vector<std::string> out;
  std::string word;
  bool quoted = false, any = false;
  for (char c : line) {
    if (c == '\'') {
      quoted = !quoted;
      any = true;
    } else if (c == ' ' && !quoted) {
      if (any) out.push_back(word);
      word.clear();
      any = false;
    } else {
      word += c;
      any = true;
    }
  }
  if (any) out.push_back(word);
  return out;
}

bool same(const Scenario& a, const Scenario& b) {
  return a.design == b.design && a.workload == b.workload && a.faults == b.faults && a.seed == b.seed && a.horizon == b.horizon &&
         a.settle == b.settle && a.schedule == b.schedule;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args = {"run"};
  std::string arg;
  for (size_t i = 0; i < size; ++i) {
    const char c = static_cast<char>(data[i]);
    if (c == '\n') {
      args.push_back(arg);
      arg.clear();
    } else {
      arg += c;
    }
  }
  args.push_back(arg);
  // Built once: CLI11's setup costs more than a parse, and parse_or_throw resets every flag.
  static CommandLine cl;
  static CommandLine again;
  Scenario s;
  try {
    cl.parse_or_throw(args);
    if (!cl.is_run()) return 0;
    const auto& flags = cl.run_flags();
    if (oversim::fuzz::probe_too_costly(flags)) return 0;  // fuzz/run_limits.h
    s = oversim::cli::run_scenario(flags);
  } catch (const UsageError&) {
    return 0;  // rejected with a message: fine
  }
  const std::string line = oversim::properties::reproduce_command(s);
  std::vector<std::string> words = shell_words(line);
  if (words.size() < 2 || words[0] != "oversim") fail("a reproduce line does not start with oversim", line);
  words.erase(words.begin());
  try {
    again.parse_or_throw(words);
    const Scenario replayed = oversim::cli::run_scenario(again.run_flags());
    if (!same(replayed, s)) fail("the reproduce line gives another scenario", line);
  } catch (const UsageError& e) {
    fail("the reproduce line is rejected", line + " -> " + e.what());
  }
  return 0;
}
