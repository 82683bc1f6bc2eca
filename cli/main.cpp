// The `oversim` command. Exit status: 0 everything asserted holds, 1 a property was violated
// (or a determinism check failed), 2 bad usage or bad input (one line on stderr naming the
// problem), 3 an internal error (a bug in oversim: please report it with the command line).
#include <cstdio>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/demo.h"

#ifndef OVERSIM_VERSION
#define OVERSIM_VERSION "unknown"
#endif

namespace oversim::cli {
namespace {

void add_workload_options(CLI::App* cmd, WorkloadFlags& w) {
  cmd->add_option("--buyers", w.buyers, "Number of buyers (users)")->capture_default_str();
  cmd->add_option("--stock", w.stock, "Initial units per SKU")->capture_default_str();
  cmd->add_option("--skus", w.skus, "Number of SKUs")->capture_default_str();
  cmd->add_option("--apps", w.apps, "Number of app nodes (app-1..app-N)")->capture_default_str();
  cmd->add_option("--arrival", w.arrival, "Arrivals: burst or poisson")->capture_default_str();
  cmd->add_option("--burst-window", w.burst_window, "Burst arrivals spread over this duration")->capture_default_str();
  cmd->add_option("--poisson-mean", w.poisson_mean, "Poisson arrivals: mean gap")->capture_default_str();
  cmd->add_option("--retries", w.retries, "Gateway retries (same request id) when an attempt ends unknown or takes longer than --gateway-timeout")->capture_default_str();
  cmd->add_option("--double-click", w.double_click, "Share of buyers who click twice, as a ratio like 1/4")->capture_default_str();
  cmd->add_option("--remote-call", w.remote_call, "The slow call inside the critical section")->capture_default_str();
  cmd->add_option("--lock-ttl", w.lock_ttl, "Lock lease (SET NX PX)")->capture_default_str();
  cmd->add_option("--lock-wait", w.lock_wait, "tryLock gives up after this long")->capture_default_str();
  cmd->add_option("--gateway-timeout", w.gateway_timeout, "The gateway retries an attempt that takes longer")->capture_default_str();
  cmd->add_option("--replication-lag", w.replication_lag, "Redis replica lag behind the primary")->capture_default_str();
}

int run_cli(int argc, char** argv) {
  CLI::App app{"oversim: a deterministic simulation testbed for anti-oversell (flash sale) designs.\n"
               "With no command it runs `compare`: every design against every fault profile.",
               "oversim"};
  app.set_version_flag("--version", std::string("oversim ") + OVERSIM_VERSION);
  app.require_subcommand(0, 1);
  bool check_determinism = false;
  app.add_flag("--check-determinism", check_determinism,
               "Run the kernel demo and a full faulted sale twice each with the same seed and compare trace hashes");

  // list
  std::string list_what;
  CLI::App* list_cmd = app.add_subcommand("list", "List variants, faults (profiles) or properties");
  list_cmd->add_option("what", list_what, "variants | faults | properties")->required();

  // run
  RunFlags run;
  CLI::App* run_cmd = app.add_subcommand("run", "One run of a design: the trace and a verdict per property");
  run_cmd->add_option("--variant", run.variant, "Design to run (see `oversim list variants`)")->required();
  run_cmd->add_option("--faults", run.faults, "A fault profile name or a fault plan, e.g. 'at 10ms pause app-1 for 2s'")->capture_default_str();
  run_cmd->add_option("--seed", run.seed, "Simulation seed")->capture_default_str();
  run_cmd->add_option("--trace", run.trace, "Trace output: text, json, cut (the events that matter) or none")->capture_default_str();
  run_cmd->add_option("--properties", run.properties, "Properties to assert, comma separated (default: the business ones)");
  run_cmd->add_flag("--check-determinism", run.check_determinism, "Run twice and compare trace hashes instead");
  add_workload_options(run_cmd, run.workload);

  // check
  CheckFlags check;
  CLI::App* check_cmd = app.add_subcommand("check", "A seed sweep: counts per property, the first failing seed, a shrunk counterexample");
  check_cmd->add_option("--variant", check.variant, "Design to check")->required();
  check_cmd->add_option("--faults", check.faults, "A fault profile name (a plan per seed) or a fault plan")->capture_default_str();
  check_cmd->add_option("--seeds", check.seeds, "Number of seeds")->capture_default_str();
  check_cmd->add_option("--first-seed", check.first_seed, "First seed")->capture_default_str();
  check_cmd->add_option("--jobs", check.jobs, "Parallel OS threads, each its own world")->capture_default_str();
  check_cmd->add_option("--properties", check.properties, "Properties to assert, comma separated (default: the business ones)");
  check_cmd->add_flag("--no-shrink", check.no_shrink, "Report the failing seed as found, without shrinking it");
  add_workload_options(check_cmd, check.workload);

  // compare
  CompareFlags compare;
  CLI::App* compare_cmd = app.add_subcommand("compare", "Every design against every fault profile, as a table");
  compare_cmd->add_option("--seeds", compare.seeds, "Seeds per cell")->capture_default_str();
  compare_cmd->add_option("--first-seed", compare.first_seed, "First seed")->capture_default_str();
  compare_cmd->add_option("--jobs", compare.jobs, "Parallel OS threads")->capture_default_str();
  compare_cmd->add_option("--variants", compare.variants, "Designs to include, comma separated (default: all)");
  compare_cmd->add_option("--faults", compare.profiles, "Profiles to include, comma separated (default: all)");
  add_workload_options(compare_cmd, compare.workload);

  // demo
  DemoOptions demo;
  std::string demo_faults = demo.faults.to_string();
  std::string demo_trace = "text";
  bool demo_determinism = false;
  CLI::App* demo_cmd = app.add_subcommand("demo", "The kernel demo: buyers read-then-write a stock counter over RPC, with a GC pause");
  demo_cmd->add_option("--seed", demo.seed, "Simulation seed")->capture_default_str();
  demo_cmd->add_option("--buyers", demo.buyers, "Number of buyers")->check(CLI::Range(1, 1000))->capture_default_str();
  demo_cmd->add_option("--stock", demo.stock, "Initial stock")->check(CLI::Range(int64_t{0}, int64_t{1000000}))->capture_default_str();
  demo_cmd->add_option("--faults", demo_faults, "Fault plan text ('' for none)")->capture_default_str();
  demo_cmd->add_option("--trace", demo_trace, "Trace output: text, json or none")->capture_default_str();
  demo_cmd->add_flag("--check-determinism", demo_determinism, "Run twice with the same seed and compare trace hashes");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    fmt::print(stderr, "oversim: {} (see oversim --help)\n", e.what());
    return 2;
  }

  try {
    if (check_determinism) {
      if (app.get_subcommands().size() > 0) throw UsageError("--check-determinism before a command is its own job; use `run --check-determinism` or `demo --check-determinism`");
      return determinism_command();
    }
    if (*list_cmd) return list_command(list_what);
    if (*run_cmd) return run_command(run);
    if (*check_cmd) return check_command(check);
    if (*demo_cmd) return demo_command(demo, demo_faults, demo_trace, demo_determinism);
    return compare_command(compare);  // the main job, also with `compare`
  } catch (const UsageError& e) {
    fmt::print(stderr, "oversim: {}\n", e.what());
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
