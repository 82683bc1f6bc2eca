// The `oversim` command. Exit status: 0 all good, 1 a property was violated (or a determinism
// check failed), 2 bad usage or bad input (one line on stderr naming the problem), 3 an internal
// error (a bug in oversim: please report it with the command line).
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/demo.h"
#include "sim/fault_plan.h"
#include "sim/trace.h"

#ifndef OVERSIM_VERSION
#define OVERSIM_VERSION "unknown"
#endif

namespace oversim::cli {
namespace {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class TraceFormat { text, json, none };

TraceFormat parse_trace_format(const std::string& s) {
  if (s == "text") return TraceFormat::text;
  if (s == "json") return TraceFormat::json;
  if (s == "none") return TraceFormat::none;
  throw UsageError(fmt::format("--trace: unknown format '{}' (expected text, json or none)", s));
}

void print_trace(const std::vector<sim::TraceEvent>& events, TraceFormat format) {
  if (format == TraceFormat::text) std::fputs(sim::render_text(events).c_str(), stdout);
  if (format == TraceFormat::json) std::fputs(sim::render_jsonl(events).c_str(), stdout);
}

int demo_command(const DemoOptions& options, TraceFormat format, bool check_determinism) {
  if (check_determinism) {
    sim::DeterminismReport r = sim::check_determinism([&] { return run_demo(options).record; });
    fmt::print("determinism check (kernel demo, seed {}): first run {}, second run {}: {}\n", options.seed, sim::format_hash(r.first_hash),
               sim::format_hash(r.second_hash), r.identical ? "identical" : "DIFFERENT");
    if (!r.identical) {
      fmt::print("{}\n", r.divergence);
      return 1;
    }
    return 0;
  }
  DemoResult result = run_demo(options);
  if (format == TraceFormat::text) {
    fmt::print("oversim kernel demo: {} buyers read-then-write a stock of {} over RPC; faults: {}\n\n", options.buyers, options.stock,
               options.faults.empty() ? "none" : options.faults.to_string());
  }
  print_trace(result.record.events, format);
  if (format == TraceFormat::json) return 0;
  const sim::RunOutcome& o = result.record.outcome;
  fmt::print("\n{} at {} after {} steps, {} trace events, {} choices\n", sim::to_string(o.status), sim::format_instant(o.end_time), o.steps,
             result.record.events.size(), result.record.choices.size());
  fmt::print("stock {} -> {}, buyers told they bought: {}{}\n", options.stock, result.stock_left, result.sold,
             result.sold > options.stock - result.stock_left ? "  (lost update: more sold than the stock went down)" : "");
  fmt::print("trace hash: {}\n", sim::format_hash(o.hash()));
  return 0;
}

int run_cli(int argc, char** argv) {
  CLI::App app{"oversim: a deterministic simulation testbed for anti-oversell (flash sale) designs", "oversim"};
  app.set_version_flag("--version", std::string("oversim ") + OVERSIM_VERSION);
  app.require_subcommand(0, 1);

  bool check_determinism = false;
  app.add_flag("--check-determinism", check_determinism, "Run the default job twice with the same seed and compare trace hashes");

  DemoOptions demo;
  std::string demo_faults = demo.faults.to_string();
  std::string trace_format = "text";
  CLI::App* demo_cmd = app.add_subcommand("demo", "The kernel demo: buyers read-then-write a stock counter over RPC, with a GC pause");
  demo_cmd->add_option("--seed", demo.seed, "Simulation seed")->capture_default_str();
  demo_cmd->add_option("--buyers", demo.buyers, "Number of buyers")->check(CLI::Range(1, 1000))->capture_default_str();
  demo_cmd->add_option("--stock", demo.stock, "Initial stock")->check(CLI::Range(int64_t{0}, int64_t{1000000}))->capture_default_str();
  demo_cmd->add_option("--faults", demo_faults, "Fault plan text, e.g. 'at 1ms pause app-1 for 3ms' ('' for none)")->capture_default_str();
  demo_cmd->add_option("--trace", trace_format, "Trace output: text, json or none")->capture_default_str();
  demo_cmd->add_flag("--check-determinism", check_determinism, "Run twice with the same seed and compare trace hashes");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::string what = e.what();
    fmt::print(stderr, "oversim: {} (see oversim --help)\n", what);
    return 2;
  }

  try {
    demo.faults = sim::FaultPlan::parse(demo_faults);
    const TraceFormat format = parse_trace_format(trace_format);
    // No subcommand: the main job on its built-in default.
    return demo_command(demo, format, check_determinism);
  } catch (const UsageError& e) {
    fmt::print(stderr, "oversim: {}\n", e.what());
    return 2;
  } catch (const sim::FaultPlanError& e) {
    fmt::print(stderr, "oversim: --faults: {}\n", e.what());
    return 2;
  }
}

}  // namespace
}  // namespace oversim::cli

int main(int argc, char** argv) {
  try {
    return oversim::cli::run_cli(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "oversim: internal error: {}\n", e.what());
    return 3;
  }
}
