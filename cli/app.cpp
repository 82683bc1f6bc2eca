#include "cli/app.h"

#include <algorithm>
#include <sstream>
#include <fstream>
#include <cstdlib>
#include <cstdio>
#include <unistd.h>
#include <fcntl.h>

#include <CLI/CLI.hpp>
#include "cli/scenario_file.h"
#include "protocols/settings.h"
#include <fmt/format.h>

#ifndef OVERSIM_VERSION
#define OVERSIM_VERSION "unknown"
#endif

namespace oversim::cli {
namespace {

const char* const kStrategyHelp =
    "How a profile's faults are placed and runs scheduled: random, pct (PCT, depth 3), pct:D (depth D), or swarm (a random subset "
    "of fault points per seed)";

// What a script branches on (README.md's table); run, check and explore print them too.
const char* const kExitStatuses =
    "Exit status: 0 every asserted property held; 1 one was violated; 2 bad input; 3 an internal error; 4 incomplete: a limit ran out\n"
    "(explore's --max-executions, a run's --horizon before the sale ended); 5 vacuous: the runs never reached where the faults aim or a\n"
    "--require; 6 unfired: a planned fault never happened. compare, hash and list exit 0 unless 2 or 3; lint 1 on a FAIL;\n"
    "--check-determinism 1 on a difference.";
const char* const kForceHelp =
    "Run even when the estimated cost passes the limits (2h of CPU, 4 GiB of memory; docs/guide.md#limits) instead of refusing";

void add_workload_options(CLI::App* cmd, WorkloadFlags& w) {
  // Every workload flag records that it was typed: a fault profile never changes those.
  auto typed = [&w](CLI::Option* o, const char* name) {
    o->each([&w, name](const std::string&) {
      if (std::find(w.typed.begin(), w.typed.end(), name) == w.typed.end()) w.typed.push_back(name);
    });
  };
  typed(cmd->add_option("--buyers", w.buyers, "Number of buyers (users), 0..100000")->capture_default_str(), "--buyers");
  typed(cmd->add_option("--stock", w.stock, "Initial units per SKU, 0..1000000")->capture_default_str(), "--stock");
  typed(cmd->add_option("--skus", w.skus, "Number of SKUs, 1..1000")->capture_default_str(), "--skus");
  typed(cmd->add_option("--apps", w.apps, "Number of app nodes (app-1..app-N), 1..64")->capture_default_str(), "--apps");
  typed(cmd->add_option("--arrival", w.arrival, "Arrivals: burst (uniform over --burst-window), poisson (--poisson-mean gaps), ramp (rising linearly over --burst-window) or slots (each at one of as many evenly spaced instants over --burst-window as there are buyers)")->capture_default_str(), "--arrival");
  typed(cmd->add_option("--burst-window", w.burst_window, "Burst arrivals spread over this duration (0..1h)")->capture_default_str(), "--burst-window");
  typed(cmd->add_option("--poisson-mean", w.poisson_mean, "Poisson arrivals: mean gap (1us..1h)")->capture_default_str(), "--poisson-mean");
  typed(cmd->add_option("--retries", w.retries, "Gateway retries (same request id) when an attempt ends unknown or takes longer than --gateway-timeout, 0..10")
      ->capture_default_str(), "--retries");
  typed(cmd->add_option("--double-click", w.double_click, "Share of buyers who click twice, as a ratio like 1/4")->capture_default_str(), "--double-click");
  typed(cmd->add_option("--remote-call", w.remote_call, "The slow call inside the critical section: 20ms, a uniform range 10ms..30ms, or a log-normal p50=200ms,p99=800ms (0..1h)")->capture_default_str(), "--remote-call");
  typed(cmd->add_option("--lock-ttl", w.lock_ttl, "Lock lease, SET NX PX (1ms..720h)")->capture_default_str(), "--lock-ttl");
  typed(cmd->add_option("--lock-wait", w.lock_wait, "tryLock gives up after this long (0..720h)")->capture_default_str(), "--lock-wait");
  typed(cmd->add_option("--gateway-timeout", w.gateway_timeout, "The gateway retries an attempt that takes longer (1ms..720h)")->capture_default_str(), "--gateway-timeout");
  typed(cmd->add_option("--replication-lag", w.replication_lag, "Redis replica lag behind the primary, drawn per write: 20ms, 5ms..50ms or p50=20ms,p99=200ms (each 0..1h; the stream stays in order)")->capture_default_str(), "--replication-lag");
  typed(cmd->add_option("--persistence", w.persistence,
                        "What a crashed Redis server (primary, replica, RedLock master) keeps: none, everysec (AOF fsync every second) or always")
            ->capture_default_str(), "--persistence");
  typed(cmd->add_option("--masters", w.masters, "RedLock: independent Redis masters redlock-1..N, quorum N/2+1, 1..9")->capture_default_str(), "--masters");
  typed(cmd->add_option("--zk-servers", w.zk_servers, "ZooKeeper: servers zk-1..N of the ensemble, quorum N/2+1, 1..9 (its designs take --lock-ttl as the session timeout)")
            ->capture_default_str(), "--zk-servers");
  for (size_t i = 0; i < protocols::kSettingCount; ++i) {
    const protocols::Setting& s = protocols::settings()[i];
    typed(cmd->add_option(s.flag, w.settings[i], s.help)->capture_default_str(), s.flag);
  }
  typed(cmd->add_option("--latency", w.latency,
                        "One-way network latency: 200us (constant) or 100us..400us (uniform); default 100us..400us with 1 message in 100 taking up to 5ms"),
        "--latency");
}

void add_sweep_options(CLI::App* cmd, SweepFlags& s, const char* seeds_help) {
  // OVERSIM_SEEDS and OVERSIM_SEED (madsim's MADSIM_TEST_NUM and MADSIM_TEST_SEED): a CI job sets
  // them once for every command; a flag typed on the command line wins.
  cmd->add_option("--seeds", s.seeds, std::string(seeds_help) + " (or from OVERSIM_SEEDS)")->capture_default_str()->envname("OVERSIM_SEEDS");
  CLI::Option* first = cmd->add_option("--first-seed", s.first_seed,
                                       "First seed, with a count in --seeds (or from OVERSIM_SEED); 'random' draws one and prints the seeds it chose, "
                                       "so each CI run explores new seeds and still reproduces")
                           ->capture_default_str()
                           ->envname("OVERSIM_SEED");
  // A range in --seeds conflicts with a --first-seed the user typed, not with its default.
  cmd->callback([&s, first] {
    s.first_seed_given = first->count() > 0;
    s.first_seed_drawn = s.first_seed == "random";
    // A shard refuses 'random' (cli/shard.h): every shard would draw its own.
    if (s.shard.empty()) s.first_seed = resolve_first_seed(s.first_seed, s.seeds);
  });
  cmd->add_option("--jobs", s.jobs, "Parallel OS threads, each its own world (1..256)")->capture_default_str();
  cmd->add_option("--horizon", s.horizon, "Virtual-time limit of each run (1s..720h)")->capture_default_str();
  cmd->add_option("--strategy", s.strategy, kStrategyHelp)->capture_default_str()->each([&s](const std::string&) { s.strategy_typed = true; });
  cmd->add_flag("--force", s.force, kForceHelp);
  add_workload_options(cmd, s.workload);
}

// --shard i/n: one contiguous block of the seeds, written with --json FILE for `oversim merge`.
void add_shard_option(CLI::App* cmd, SweepFlags& s) {
  cmd->add_option("--shard", s.shard,
                  "Run shard i of n (i/n, from 1) of the seeds, a contiguous block, and write its part with --json FILE; `oversim merge` "
                  "combines the n files into exactly the result of one run (docs/ci.md)");
}

// An empty value ('--properties ""', 'list ""') is bad input, never "not given": a script that
// expands an unset variable must not run the default it did not ask for. Flags (no value) are
// skipped; every option that takes a value, positionals included, is checked.
void reject_empty_values(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands()) {
    for (const CLI::Option* opt : sub->get_options()) {
      if (opt->count() == 0 || opt->get_items_expected_max() == 0) continue;
      for (const std::string& value : opt->results()) {
        if (!value.empty()) continue;
        const bool positional = opt->get_name().empty() || opt->get_name().rfind("--", 0) != 0;
        const std::string name = positional ? fmt::format("{} {}", sub->get_name(), opt->get_name(true)) : opt->get_name();
        // --variant is required unless a scenario file names the design.
        const bool needed = opt->get_required() || opt->get_name() == "--variant";
        const std::string instead = needed                           ? std::string("it needs one")
                                    : opt->get_default_str().empty() ? std::string("leave it out instead")
                                                                     : fmt::format("leave it out for its default, {}", opt->get_default_str());
        throw UsageError(fmt::format("{}: an empty value ({})", name, instead));
      }
    }
    reject_empty_values(*sub);
  }
}

// Options of `cmd` the user typed that the command ignores as asked (lint's sweep flags without
// --prove, --trace with --check-determinism): one line each on stderr.
void note_ignored(const CLI::App* cmd, const std::vector<const char*>& names, const char* why) {
  for (const char* name : names) {
    const CLI::Option* opt = cmd->get_option_no_throw(name);
    if (opt != nullptr && opt->count() > 0) fmt::print(stderr, "oversim: {} {}: it changes nothing here\n", name, why);
  }
}


}  // namespace

CommandLine::CommandLine() : app_(std::make_unique<CLI::App>(
                                 "oversim: a deterministic simulation testbed for anti-oversell (flash sale) designs.\n"
                                 "With no command it runs `compare`: every design against every fault profile.",
                                 "oversim")) {
  set_defaults();
  CLI::App& app = *app_;
  app.set_version_flag("--version", std::string("oversim ") + OVERSIM_VERSION);
  app.footer(kExitStatuses);
  app.require_subcommand(0, 1);
  app.add_flag("--check-determinism", check_determinism_,
               "Run the kernel demo and a full faulted sale twice each with the same seed and compare trace hashes");

  list_cmd_ = app.add_subcommand("list", "List variants, faults (profiles) or properties");
  list_cmd_->add_option("what", list_what_, "variants | faults | properties (all three when omitted)");
  help_cmd_ = app.add_subcommand("help", "Show this help, or a command's: oversim help check");
  help_cmd_->add_option("command", help_what_, "A command");

  run_cmd_ = app.add_subcommand("run", "One run of a design: the trace and a verdict per property");
  run_cmd_->footer(kExitStatuses);
  run_cmd_->add_option("scenario", scenario_path_, "A scenario file (TOML; docs/guide.md#scenario-files): flags typed here override it");
  run_cmd_->add_option("--variant", run_.variant, "Design to run (see `oversim list variants`); required unless a scenario file names it");
  run_cmd_->add_option("--format", format_, "text (the default) or json: the result as JSON on stdout instead of the text (docs/json-schema.md)")->capture_default_str();
  run_cmd_->add_option("--json", run_.json, "Also write the run's result as JSON to this file (scenario, outcome, every property, faults, metrics; docs/json-schema.md)");
  run_cmd_->add_option("--html", run_.html, "Also write an HTML report of the run to this file: its swimlane timeline, one self-contained page");
  run_cmd_->add_option("--emit-scenario", run_.emit_scenario, "Also write this run's whole scenario to this file (TOML), which `oversim run FILE` replays");
  run_cmd_->add_option("--faults", run_.faults, "A fault profile name, 'none', or a fault plan, e.g. 'at 10ms pause app-1 for 2s'")->capture_default_str();
  run_cmd_->add_option("--seed", run_.seed, "Simulation seed (0..18446744073709551615; or from OVERSIM_SEED)")->capture_default_str()->envname("OVERSIM_SEED");
  run_cmd_->add_option("--trace", run_.trace, "Trace output: cut (the events that matter, at most 200 lines; the default), text (every event), json or none")->capture_default_str();
  run_cmd_->add_option("--properties", run_.properties, "Properties to assert, comma separated, or all (default: the business ones)");
  run_cmd_->add_option("--horizon", run_.horizon, "Virtual-time limit of the run (1s..720h)")->capture_default_str();
  run_cmd_->add_flag("--check-determinism", run_.check_determinism, "Run twice and compare trace hashes instead");
  run_cmd_->add_option("--strategy", run_.strategy, kStrategyHelp)->capture_default_str()->each([this](const std::string&) { run_.strategy_typed = true; });
  run_cmd_->add_flag("--force", run_.force, kForceHelp);
  add_workload_options(run_cmd_, run_.workload);

  check_cmd_ = app.add_subcommand("check", "A seed sweep: counts per property, the first failing seed, a shrunk counterexample");
  check_cmd_->footer(kExitStatuses);
  check_cmd_->add_option("scenario", scenario_path_, "A scenario file (TOML; docs/guide.md#scenario-files): flags typed here override it");
  check_cmd_->add_option("--variant", check_.variant, "Design to check; required unless a scenario file names it");
  check_cmd_->add_option("--faults", check_.faults, "A fault profile name (a plan per seed), 'none', or a fault plan")->capture_default_str();
  check_cmd_->add_option("--properties", check_.properties, "Properties to assert, comma separated, or all (default: the business ones)");
  check_cmd_->add_option("--require", check_.require,
                         "Sometimes properties (oversim list properties) that at least one run must reach, comma separated, e.g. "
                         "lease_expired_while_held,lock_contended; a sweep that never reaches one tested nothing and exits 5 (VACUOUS)");
  CLI::Option* no_shrink = check_cmd_->add_flag("--no-shrink", check_.no_shrink, "Report the failing seed as found, without shrinking it");
  CLI::Option* keep_faults = check_cmd_->add_flag(
      "--keep-faults", check_.keep_faults,
      "Shrink only the sale and the schedule: the fault plan stays exactly as written (an incident's write-up)");
  CLI::Option* drop_faults = check_cmd_->add_flag(
      "--drop-faults", check_.drop_faults,
      "Let the shrink drop faults and change their story (by default it keeps their kinds, their order and where pauses end and failovers come)");
  keep_faults->excludes(drop_faults);
  keep_faults->excludes(no_shrink);
  drop_faults->excludes(no_shrink);
  check_cmd_->add_flag("--stop-at-first", check_.stop_at_first, "Stop at the first seed that violates an asserted property; report executions and wall time");
  check_cmd_->add_option("--format", format_, "text (the default) or json: the result as JSON on stdout instead of the text (docs/json-schema.md)")->capture_default_str();
  check_cmd_->add_option("--json", check_.json, "Also write the result as JSON to this file (the verdict's kind, counts, the counterexample)");
  check_cmd_->add_option("--html", check_.html, "Also write an HTML report to this file: the counts and the counterexample's swimlane timeline, one self-contained page");
  check_cmd_->add_option("--junit", check_.junit, "Also write JUnit XML to this file: a test case per asserted property, failed with the witness and the reproduce command");
  check_cmd_->add_option("--emit-scenario", check_.emit_scenario,
                         "Also write the shrunk counterexample's scenario to this file (TOML), which `oversim run FILE` replays");
  add_sweep_options(check_cmd_, check_.sweep, "Number of seeds (1..1000000), or a range a..b");
  add_shard_option(check_cmd_, check_.sweep);

  compare_cmd_ = app.add_subcommand("compare", "Every design against every fault profile, as a table");
  compare_cmd_->add_option("scenario", scenario_path_, "A scenario file (TOML; docs/guide.md#scenario-files): its design and faults as the table's one cell unless flags say otherwise");
  compare_cmd_->add_option("--variants", compare_.variants, "Designs to include, comma separated, or all")->capture_default_str();
  compare_cmd_->add_option("--faults", compare_.faults, "Profiles to include, comma separated, or all; or one fault plan")->capture_default_str();
  compare_cmd_->add_option("--properties", compare_.properties,
                           "The table's property columns, comma separated, or all; 'sometimes' ones count the runs that reached them "
                           "(default: the business ones, mutex, progress, and the lock's coverage: expired, contend, hit)");
  compare_cmd_->add_option("--format", format_, "text (the default) or json: the result as JSON on stdout instead of the text (docs/json-schema.md)")->capture_default_str();
  compare_cmd_->add_option("--json", compare_.json,
                           "Also write the table as JSON to this file: every cell's property counts with 95% Wilson intervals, its unfired and "
                           "horizon runs, lock costs and metrics (docs/json-schema.md)");
  compare_cmd_->add_option("--html", compare_.html,
                           "Also write an HTML report to this file: the matrix coloured by violation rate with 95% intervals, and each violating "
                           "cell's shrunk counterexample as a swimlane timeline (shrinking takes a while)");
  add_sweep_options(compare_cmd_, compare_.sweep, "Seeds per cell (1..100000), or a range a..b");
  add_shard_option(compare_cmd_, compare_.sweep);

  lint_cmd_ = app.add_subcommand("lint", "The article's checklist for each design and this workload, before any run (--prove backs each answer with a sweep)");
  lint_cmd_->add_option("--variants,--variant", lint_.variants, "Designs, comma separated, or all")->capture_default_str();
  lint_cmd_->add_flag("--prove", lint_.prove, "Run the sale under the profile behind each answer, asserting its property");
  add_sweep_options(lint_cmd_, lint_.sweep, "Seeds per answer with --prove (1..100000), or a range a..b");

  hash_cmd_ = app.add_subcommand("hash", "One line per run (design, profile, seed, run hash, violated properties, plan): diff two builds");
  hash_cmd_->add_option("--variant,--variants", hash_.variants, "Designs, comma separated, or all")->capture_default_str();
  hash_cmd_->add_option("--faults", hash_.faults, "Profiles, comma separated, or all; or one fault plan")->capture_default_str();
  hash_cmd_->add_option("--format", format_, "text (the default) or json: the result as JSON on stdout instead of the text (docs/json-schema.md)")->capture_default_str();
  hash_cmd_->add_option("--json", hash_.json, "Also write the lines as JSON to this file (docs/json-schema.md)");
  add_sweep_options(hash_cmd_, hash_.sweep, "Number of seeds (with --first-seed), or a range a..b");
  add_shard_option(hash_cmd_, hash_.sweep);

  merge_cmd_ = app.add_subcommand("merge", "The shards of a check, compare, hash or explore (--shard i/n --json FILE) as the one run over all of them");
  merge_cmd_->footer(kExitStatuses);
  merge_cmd_->add_option("shards", merge_.files, "The shard files, in any order (each of 1..n once)")->required();
  merge_cmd_->add_option("--json", merge_.json, "Also write the merged result as JSON to this file, as the command itself would");
  merge_cmd_->add_option("--html", merge_.html, "Also write the HTML report (check, compare, explore)");
  merge_cmd_->add_option("--junit", merge_.junit, "Also write JUnit XML (check, explore)");
  merge_cmd_->add_option("--emit-scenario", merge_.emit_scenario, "Also write the shrunk counterexample's scenario (check)");

  explore_cmd_ = app.add_subcommand("explore", "Every execution of a small sale within stated bounds: a proof within them, or the shortest counterexample");
  explore_cmd_->footer(kExitStatuses);
  explore_cmd_->add_option("--variant", explore_.variant, "Design to explore")->required();
  explore_cmd_->add_option("--faults", explore_.faults,
                           "The faults that may strike at a fault point, ';' separated, each naming 'here' (the node that reached the point), or 'none'")
      ->capture_default_str();
  explore_cmd_->add_option("--max-faults", explore_.max_faults, "At most this many faults per execution (0..3)")->capture_default_str();
  explore_cmd_->add_option("--points", explore_.points, "Fault points where a fault may strike, comma separated, or all")->capture_default_str();
  explore_cmd_->add_option("--properties", explore_.properties, "Properties to assert, comma separated, or all (default: the business ones)");
  explore_cmd_->add_option("--max-executions", explore_.max_executions, "Give up after this many executions (1..100000000)")->capture_default_str();
  explore_cmd_->add_option("--max-deviations", explore_.max_deviations,
                           "At most this many scheduling choices differ from the first order (context bounding, 0..1000), or all")
      ->capture_default_str();
  explore_cmd_->add_option("--horizon", explore_.horizon, "Virtual-time limit of each execution (1s..720h)")->capture_default_str();
  explore_cmd_->add_option("--format", format_, "text (the default) or json: the result as JSON on stdout instead of the text (docs/json-schema.md)")->capture_default_str();
  explore_cmd_->add_option("--json", explore_.json, "Also write the result as JSON to this file (the verdict's kind, bounds, counts, the counterexample)");
  explore_cmd_->add_option("--html", explore_.html, "Also write an HTML report to this file (the counterexample's swimlane timeline)");
  explore_cmd_->add_option("--junit", explore_.junit, "Also write JUnit XML to this file: a test case per asserted property");
  explore_cmd_->add_flag("--first", explore_.first, "Stop at the first violating execution instead of looking for the shortest");
  explore_cmd_->add_option("--shard", explore_.shard,
                           "Walk shard i of n (i/n, from 1) of the tree's subtrees and write its part with --json FILE; `oversim merge` combines "
                           "the n files into the whole walk's result (docs/ci.md)");
  add_workload_options(explore_cmd_, explore_.workload);

  report_cmd_ = app.add_subcommand("report", "Draw a saved result (any command's --json FILE) as the HTML report");
  report_cmd_->add_option("result", report_result_, "A result file written with --json")->required();
  report_cmd_->add_option("--html", report_html_, "The HTML file to write")->required();

  demo_cmd_ = app.add_subcommand("demo", "The kernel demo: buyers read-then-write a stock counter over RPC, with a GC pause");
  demo_cmd_->add_option("--seed", demo_.seed, "Simulation seed")->capture_default_str();
  demo_cmd_->add_option("--buyers", demo_.buyers, "Number of buyers (1..1000)")->capture_default_str();
  demo_cmd_->add_option("--stock", demo_.stock, "Initial stock (0..1000000)")->capture_default_str();
  demo_cmd_->add_option("--faults", demo_.faults, "Fault plan text, or 'none'")->capture_default_str();
  demo_cmd_->add_option("--trace", demo_.trace, "Trace output: text, json or none")->capture_default_str();
  demo_cmd_->add_flag("--check-determinism", demo_.check_determinism, "Run twice with the same seed and compare trace hashes");
}

CommandLine::~CommandLine() = default;

void CommandLine::set_defaults() {
  // Assigned in place: CLI11 holds references to these members.
  check_determinism_ = false;
  scenario_path_.clear();
  flag_origin_.clear();
  list_what_.clear();
  help_what_.clear();
  format_ = "text";
  report_result_.clear();
  report_html_.clear();
  run_ = RunFlags{};
  check_ = CheckFlags{};
  compare_ = CompareFlags{};
  compare_.sweep.seeds = "20";
  hash_ = HashFlags{};
  lint_ = LintFlags{};
  lint_.sweep.seeds = "20";
  hash_.sweep.seeds = "20";
  demo_ = DemoFlags{};
  explore_ = ExploreFlags{};
  merge_ = MergeFlags{};
}

std::optional<int> CommandLine::parse(int argc, const char* const* argv) {
  try {
    app_->parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app_->exit(e);  // --help, --version
    fmt::print(stderr, "oversim: {} (see oversim --help)\n", e.what());
    return 2;
  }
  try {
    reject_empty_values(*app_);
    if (!scenario_path_.empty()) apply_scenario_file(std::vector<std::string>(argv + 1, argv + argc));
    expand_plan_files();
  } catch (const UsageError& e) {
    fmt::print(stderr, "oversim: {}\n", with_origin(e.what()));
    return 2;
  }
  return std::nullopt;
}

void CommandLine::parse_or_throw(std::vector<std::string> args) {
  const std::vector<std::string> typed = args;
  // CLI11 takes a reversed vector and consumes it.
  std::reverse(args.begin(), args.end());
  set_defaults();
  try {
    app_->parse(args);
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
  reject_empty_values(*app_);
  if (!scenario_path_.empty()) apply_scenario_file(typed);
  expand_plan_files();
}

void CommandLine::expand_plan_files() {
  for (std::string* faults : {&run_.faults, &check_.faults, &compare_.faults, &hash_.faults, &explore_.faults, &demo_.faults}) *faults = plan_file_flag(*faults);
}

void CommandLine::apply_scenario_file(const std::vector<std::string>& args) {
  const std::string path = scenario_path_;
  const ScenarioFile file = read_scenario_file(path);
  const std::vector<std::pair<std::string, CLI::App*>> commands = {{"run", run_cmd_}, {"check", check_cmd_}, {"compare", compare_cmd_}};
  CLI::App* cmd = run_cmd_->parsed() ? run_cmd_ : check_cmd_->parsed() ? check_cmd_ : compare_cmd_;
  const std::string name = cmd->get_name();
  auto flag_of = [](const std::string& command, const std::string& key) {
    if (key == "design") return std::string(command == "compare" ? "--variants" : "--variant");
    return "--" + key;
  };
  // Every key names a flag of the command its table is for (top level and [workload]: each of
  // them), so a misspelled key is an error whichever command reads the file.
  for (const ScenarioEntry& e : file.entries) {
    for (const auto& [command, app] : commands) {
      const bool applies = e.table == command || e.table.empty() || e.table == "workload";
      if (!applies) continue;
      const CLI::Option* opt = app->get_option_no_throw(flag_of(command, e.key));
      const bool positional = e.key == "scenario" || e.key == "help";
      if (opt == nullptr || positional) {
        const std::string table = e.table.empty() ? "the file's top level" : fmt::format("[{}]", e.table);
        throw UsageError(fmt::format("{}: '{}' at {} is not a flag of `oversim {}` (see oversim help {})", file.where(e), e.key, table, command, command));
      }
      if (e.is_bool != (opt->get_items_expected_max() == 0)) {
        throw UsageError(fmt::format("{}: '{}' {}", file.where(e), e.key, e.is_bool ? "takes a value, not true/false" : "is a switch: true or false"));
      }
    }
  }
  // The file's flags for this command, its own table after the common ones; the command line wins.
  std::vector<std::string> overridden;
  std::map<std::string, std::string> chosen;  // flag -> token
  std::vector<std::string> order;
  for (const std::string& table : {std::string(), std::string("workload"), name}) {
    for (const ScenarioEntry& e : file.entries) {
      if (e.table != table) continue;
      const std::string flag = flag_of(name, e.key);
      if (cmd->get_option(flag)->count() > 0) {
        if (std::find(overridden.begin(), overridden.end(), flag) == overridden.end()) overridden.push_back(flag);
        continue;
      }
      if (e.is_bool && e.value == "false") {
        chosen.erase(flag);
        continue;
      }
      if (chosen.count(flag) == 0) order.push_back(flag);
      chosen[flag] = e.is_bool ? flag : fmt::format("{}={}", flag, e.value);
      flag_origin_[flag] = file.where(e);
    }
  }
  std::vector<std::string> full = args;
  for (const std::string& flag : order) {
    if (chosen.count(flag) > 0) full.push_back(chosen[flag]);
  }
  std::map<std::string, std::string> origin = flag_origin_;
  std::reverse(full.begin(), full.end());
  set_defaults();
  try {
    app_->parse(full);
  } catch (const CLI::ParseError& e) {
    throw UsageError(fmt::format("{} (with the flags of {})", e.what(), path));
  }
  reject_empty_values(*app_);
  flag_origin_ = origin;
  ScenarioSource source{path, overridden, file.expect, file.expect_violated};
  if (name == "run") {
    run_.source = source;
    if (run_.variant.empty()) throw UsageError(fmt::format("{}: no design: write design = \"...\" in the file, or give --variant", path));
  } else if (name == "check") {
    check_.source = source;
    if (check_.variant.empty()) throw UsageError(fmt::format("{}: no design: write design = \"...\" in the file, or give --variant", path));
  } else {
    compare_.source = source;
  }
}

// --format json: the command writes its result file (--json, or a temporary one) while its text
// goes nowhere; then the JSON alone is printed on stdout. Notes and errors stay on stderr.
int CommandLine::json_on_stdout() {
  if (run_cmd_->parsed() && run_.trace != "cut") throw UsageError("--format json prints the result; --trace prints the events: pick one");
  std::string* json = run_cmd_->parsed() ? &run_.json : check_cmd_->parsed() ? &check_.json : hash_cmd_->parsed() ? &hash_.json
                      : explore_cmd_->parsed() ? &explore_.json : &compare_.json;
  const bool temporary = json->empty();
  if (temporary) {
    const char* dir = std::getenv("TMPDIR");
    std::string path = fmt::format("{}/oversim-result-XXXXXX", dir != nullptr && *dir != '\0' ? dir : "/tmp");
    const int fd = mkstemp(path.data());
    if (fd < 0) throw UsageError(fmt::format("--format json: cannot create a temporary file in {}", path.substr(0, path.rfind('/'))));
    close(fd);
    *json = path;
  }
  std::fflush(stdout);
  const int saved = dup(STDOUT_FILENO);
  const int null = open("/dev/null", O_WRONLY);
  if (saved < 0 || null < 0) throw UsageError("--format json: cannot redirect the text");
  dup2(null, STDOUT_FILENO);
  close(null);
  int status = 3;
  try {
    status = run_cmd_->parsed()       ? run_command(run_)
             : check_cmd_->parsed()   ? check_command(check_)
             : hash_cmd_->parsed()    ? hash_command(hash_)
             : explore_cmd_->parsed() ? explore_command(explore_)
                                      : compare_command(compare_);
  } catch (...) {
    std::fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    if (temporary) std::remove(json->c_str());
    throw;
  }
  std::fflush(stdout);
  dup2(saved, STDOUT_FILENO);
  close(saved);
  std::ifstream in(*json);
  std::stringstream text;
  text << in.rdbuf();
  if (temporary) std::remove(json->c_str());
  std::fputs(text.str().c_str(), stdout);
  return status;
}

std::string CommandLine::with_origin(const std::string& message) const {
  for (const auto& [flag, where] : flag_origin_) {
    if (message.rfind(flag + ":", 0) == 0 || message.rfind(flag + " ", 0) == 0) return fmt::format("{} (set in {})", message, where);
  }
  return message;
}

bool CommandLine::is_run() const { return run_cmd_->parsed(); }

int CommandLine::execute() {
  try {
    if (check_determinism_) {
      if (!app_->get_subcommands().empty()) {
        throw UsageError("--check-determinism before a command is its own job; use `run --check-determinism` or `demo --check-determinism`");
      }
      return determinism_command();
    }
    if (list_cmd_->parsed()) {
      if (!list_what_.empty()) return list_command(list_what_);
      for (const char* what : {"variants", "faults", "properties"}) {
        fmt::print("== {}\n", what);
        list_command(what);
        fmt::print("\n");
      }
      return 0;
    }
    if (help_cmd_->parsed()) {
      if (help_what_.empty()) {
        fmt::print("{}", app_->help());
        return 0;
      }
      for (CLI::App* sub : app_->get_subcommands({})) {
        if (sub->get_name() == help_what_) {
          fmt::print("{}", sub->help());
          return 0;
        }
      }
      throw UsageError(fmt::format("help: unknown command '{}' (see oversim help)", help_what_));
    }
    if (run_cmd_->parsed() && run_.check_determinism) note_ignored(run_cmd_, {"--trace"}, "shapes the trace; --check-determinism prints only the hashes");
    if (demo_cmd_->parsed() && demo_.check_determinism) note_ignored(demo_cmd_, {"--trace"}, "shapes the trace; --check-determinism prints only the hashes");
    if (lint_cmd_->parsed() && !lint_.prove) {
      note_ignored(lint_cmd_, {"--seeds", "--first-seed", "--jobs", "--horizon", "--strategy"}, "is for the sweeps of --prove; lint without it runs nothing");
    }
    if (run_cmd_->parsed() && run_.variant.empty()) throw UsageError("run: --variant is required (or a scenario file that names the design)");
    if (check_cmd_->parsed() && check_.variant.empty()) throw UsageError("check: --variant is required (or a scenario file that names the design)");
    if (format_ != "text" && format_ != "json") throw UsageError(fmt::format("--format: unknown format '{}' (expected text or json)", format_));
    if (format_ == "json") return json_on_stdout();
    if (run_cmd_->parsed()) return expectation(run_.source, "run", run_command(run_), run_.trace == "json");
    // A shard's verdict is not the sweep's: the merge states the expectation.
    if (check_cmd_->parsed()) return check_.sweep.shard.empty() ? expectation(check_.source, "check", check_command(check_), false) : check_command(check_);
    if (hash_cmd_->parsed()) return hash_command(hash_);
    if (lint_cmd_->parsed()) return lint_command(lint_);
    if (demo_cmd_->parsed()) return demo_command(demo_);
    if (explore_cmd_->parsed()) return explore_command(explore_);
    if (report_cmd_->parsed()) return report_command(report_result_, report_html_);
    if (merge_cmd_->parsed()) return merge_command(merge_);
    return compare_command(compare_);  // the main job, also with `compare`
  } catch (const UsageError& e) {
    fmt::print(stderr, "oversim: {}\n", with_origin(e.what()));
    return 2;
  }
}

}  // namespace oversim::cli
