// libFuzzer target: a scenario file (TOML) given to `oversim run FILE`. Whatever the file holds
// is either rejected with a UsageError (exit 2, one line naming the file and the line), or gives
// a scenario that `run --emit-scenario` writes back to a file giving the same scenario: a file
// always round-trips. Nothing may crash, overflow (UBSan) or throw anything else. Built only
// with clang (fuzz/CMakeLists.txt); see docs/fuzzing.md.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "cli/app.h"
#include "fuzz/run_limits.h"
#include "cli/scenario_file.h"
#include "properties/checker.h"

namespace {
using oversim::cli::CommandLine;
using oversim::cli::UsageError;
using oversim::protocols::Scenario;

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "scenario_file_fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}

bool same(const Scenario& a, const Scenario& b) {
  return a.design == b.design && a.workload == b.workload && a.faults == b.faults && a.seed == b.seed && a.horizon == b.horizon &&
         a.settle == b.settle && a.schedule == b.schedule;
}

const std::string& work_dir() {
  static const std::string dir = [] {
    std::string d = "/tmp/oversim-scenario-fuzz-XXXXXX";
    if (mkdtemp(d.data()) == nullptr) fail("mkdtemp", d);
    return d;
  }();
  return dir;
}

void write(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string in = work_dir() + "/in.toml";
  const std::string out = work_dir() + "/out.toml";
  write(in, std::string(reinterpret_cast<const char*>(data), size));
  static CommandLine cl;
  static CommandLine again;
  Scenario s;
  try {
    cl.parse_or_throw({"run", in});
    if (!cl.is_run()) return 0;
    const auto& flags = cl.run_flags();
    if (oversim::fuzz::probe_too_costly(flags)) return 0;  // fuzz/run_limits.h
    s = oversim::cli::run_scenario(flags);
  } catch (const UsageError&) {
    return 0;  // rejected with a message: fine
  }
  const std::string emitted = oversim::cli::scenario_toml(s, oversim::properties::default_asserted(), "scenario_file_fuzz", 0, {});
  write(out, emitted);
  try {
    again.parse_or_throw({"run", out});
    const Scenario replayed = oversim::cli::run_scenario(again.run_flags());
    if (!same(replayed, s)) fail("the emitted file gives another scenario", emitted);
  } catch (const UsageError& e) {
    fail("the emitted file is rejected", emitted + " -> " + e.what());
  }
  return 0;
}
