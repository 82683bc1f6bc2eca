#include "cli/commands.h"
#include "cli/estimate.h"
#include "cli/notes.h"
#include "cli/progress.h"
#include "cli/result_file.h"
#include "cli/scenario_file.h"
#include "cli/shard.h"
#include "report/html.h"
#include "report/json.h"
#include "report/junit.h"
#include "report/sweep_state.h"
#include "report/text.h"
#include "report/timeline.h"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include <fmt/format.h>

#include "properties/checker.h"
#include "properties/explore.h"
#include "properties/lint.h"
#include "properties/verdict.h"

#include <chrono>
#include <fstream>
#include <functional>
#include <map>

#include <nlohmann/json.hpp>
#include "sim/determinism.h"

namespace oversim::cli {

using properties::RunResult;
using protocols::Scenario;

namespace {
// The command a hint names: `oversim`, or a user's own binary built with oversim_main().
const std::string& program() { return properties::reproduce_program(); }
}  // namespace

namespace {

using report::describe_workload;
using report::span_or;

unsigned jobs_flag(const std::string& text) { return static_cast<unsigned>(unsigned_flag("--jobs", text, 1, 256)); }

std::string join(const std::vector<std::string>& names, const char* sep = ",") {
  std::string out;
  for (const std::string& n : names) out += fmt::format("{}{}", out.empty() ? "" : sep, n);
  return out;
}

std::vector<std::string> design_names() {
  std::vector<std::string> out;
  for (const auto* d : protocols::designs()) out.push_back(d->name);
  return out;
}

// What a profile changed in the workload, or kept as typed, once per command, on stderr (the
// reproduce line carries every value that differs from the defaults).
void print_notes(const Scenario& s) {
  for (const std::string& n : s.notes) fmt::print(stderr, "oversim: {}\n", n);
}

// The exit status of a verdict (README.md's table): 0 holds, 1 violated, 4 incomplete (a limit
// ran out), 5 vacuous (nothing tested), 6 unfired (a planned fault never happened); 2 and 3 are
// bad input and internal errors. One status per kind, so a CI script can tell "found a bug" from
// "tested nothing" without reading the text.
int exit_status(properties::VerdictKind kind) {
  switch (kind) {
    case properties::VerdictKind::exhaustive:
    case properties::VerdictKind::random: return 0;
    case properties::VerdictKind::violated: return 1;
    case properties::VerdictKind::incomplete: return 4;
    case properties::VerdictKind::vacuous: return 5;
    case properties::VerdictKind::unfired: return 6;
  }
  return 3;
}

// The JSON verdict every result carries (report/json.h), with this command line's exit status.
nlohmann::json verdict_json(properties::VerdictKind kind, const char* search) { return report::verdict_json(kind, search, exit_status(kind)); }

// The checklist's warnings for a design (run, check): what `oversim lint` would fail or warn
// about, on stderr, before the run. The answers that depend on the sale's numbers in full, one
// line per reason; the design's own in one line.
void warn_lint(const protocols::Design& design, const protocols::Workload& w, const std::vector<std::string>& typed) {
  std::vector<std::string> own;
  for (const properties::LintItem& it : properties::lint(design, w, typed)) {
    if (it.level != properties::LintLevel::fail && it.level != properties::LintLevel::warn) continue;
    if (!it.from_workload) {
      own.push_back(fmt::format("{} {}", it.id, properties::to_string(it.level)));
      continue;
    }
    for (const std::string& reason : it.answers) fmt::print(stderr, "oversim: lint {} {}: {}\n", it.id, properties::to_string(it.level), reason);
  }
  if (!own.empty()) fmt::print(stderr, "oversim: lint: {} by design ({}; `{} lint --variant {}` says why)\n", design.name, join(own, ", "), program(), design.name);
}

// The same for compare, many designs: only the answers that depend on the sale's numbers (a
// design's own mistakes are what compare is there to show), once per reason with its designs.
void warn_lint(const std::vector<std::string>& variants, const protocols::Workload& w, const std::vector<std::string>& typed) {
  std::vector<std::pair<std::string, std::vector<std::string>>> lines;  // line, designs
  for (const std::string& v : variants) {
    for (const properties::LintItem& it : properties::lint(design_flag(v), w, typed)) {
      if (!it.from_workload || (it.level != properties::LintLevel::fail && it.level != properties::LintLevel::warn)) continue;
      for (const std::string& reason : it.answers) {
        const std::string line = fmt::format("{} {}: {}", it.id, properties::to_string(it.level), reason);
        auto at = std::find_if(lines.begin(), lines.end(), [&](const auto& l) { return l.first == line; });
        if (at == lines.end()) lines.push_back({line, {v}});
        else at->second.push_back(v);
      }
    }
  }
  for (const auto& [line, designs] : lines) {
    const std::string which = designs.size() == variants.size() ? std::string() : fmt::format(" ({})", join(designs, ", "));
    // compare's profiles widen the sale each their own way: the checklist is of the sale as typed.
    fmt::print(stderr, "oversim: lint {}{} (the sale as typed){}\n", line.substr(0, line.find(':')), which, line.substr(line.find(':')));
  }
}

// compare runs many profiles: one line each, the values set (without their reasons, which
// `check --faults P` gives) and, in full, any kept as typed.
struct BriefNotes {
  std::vector<std::string> in_full;  // kept as typed, and anything else a profile says
  std::string sets;                  // "--remote-call 1500ms, --lock-ttl 5s", or empty
  bool operator==(const BriefNotes&) const = default;
};
BriefNotes brief_notes(const std::string& profile, const std::vector<std::string>& notes) {
  BriefNotes brief;
  const std::string prefix = profile + " sets ";
  for (const std::string& n : notes) {
    if (n.rfind(prefix, 0) != 0) {
      brief.in_full.push_back(n);
      continue;
    }
    const size_t paren = n.find(" (", prefix.size());
    brief.sets += fmt::format("{}{}", brief.sets.empty() ? "" : ", ", n.substr(prefix.size(), paren - prefix.size()));
  }
  return brief;
}
void print_notes_briefly(const std::string& profile, const BriefNotes& brief, const std::string& for_designs) {
  for (const std::string& n : brief.in_full) fmt::print(stderr, "oversim: {}\n", n);
  if (!brief.sets.empty()) {
    fmt::print(stderr, "oversim: {} sets {}{} (flags you did not type; `{} check --faults {}` says why)\n", profile, brief.sets, for_designs, program(), profile);
  }
}

// The scenario a sweep starts from: for a profile, the workload as typed and no plan (the
// profile draws each seed's plan and widening from it).
Scenario sweep_base(Scenario checked, const FaultsChoice& faults, const WorkloadFlags& flags) {
  if (faults.profile.empty()) return checked;
  checked.workload = to_workload(flags);
  checked.faults = {};
  checked.notes.clear();
  checked.unplaced.clear();
  checked.schedule = "random";
  return checked;
}

// The strategy a command reports. With a plan, swarm has nothing to vary: the plan runs as
// written and is scheduled uniformly; a --strategy swarm the user typed is told so.
std::string effective_strategy(const Scenario& s, const FaultsChoice& faults, bool typed) {
  if (!faults.profile.empty() || s.search.kind != protocols::Search::Kind::swarm) return protocols::to_string(s.search);
  if (typed) fmt::print(stderr, "oversim: --strategy swarm varies where a profile's faults go; this plan runs as written, scheduled uniformly\n");
  return "random";
}

// --json FILE: the machine-readable result. Every verdict says its kind there as in the text:
// "exhaustive" (every execution within the stated bounds) or "random" (N executions of a
// search strategy, not a proof).
// Fails before any work when the file cannot be written, without touching it; the result
// replaces it whole at the end (cli/result_file.h), so bad input or an interrupt keeps the last.
void check_json_path(const std::string& path) { check_result_path("--json", path); }

void write_json(const std::string& path, const nlohmann::json& j) { write_result_file("--json", path, j.dump(2) + "\n"); }

// --json FILE and --html FILE: the result as data, and drawn from that data (report/html.h).
void write_results(const std::string& json, const std::string& html, const nlohmann::json& j, const std::string& junit = "") {
  if (!json.empty()) write_json(json, j);
  if (!html.empty()) write_result_file("--html", html, report::render_html(j));
  if (!junit.empty()) write_result_file("--junit", junit, report::render_junit(j));
}

using report::counterexample_json;
using report::properties_json;

// A sweep probes each seed for its own PCT estimate, so an exact `pct:D:K` (a single run's
// schedule, as reproduce lines print it) would be replaced seed by seed: refuse it instead.
void sweep_strategy_flag(const SweepFlags& f) { search_flag(f.strategy); }

// A shard's sweep as its file holds it; a file oversim did not write is bad input.
properties::SweepResult sweep_state_of(const nlohmann::json& result) {
  try {
    return report::sweep_state(result);
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("merge: a shard file is not complete: {}", e.what()));
  }
}

// A sweep's seeds that could not run as asked are bad input.
void reject_invalid(const properties::SweepResult& sw, const std::string& label) {
  if (!sw.invalid.empty()) throw UsageError(fmt::format("--faults: {} {}", label, sw.invalid.front()));
}

std::vector<std::string> variants_flag(const std::string& text) {
  std::vector<std::string> names = list_flag("--variants", text, design_names());
  for (const std::string& v : names) design_flag(v);
  return names;
}


// Designs among `variants` whose requirement contradicts a flag the user typed (db_decrement_mysql57
// requires --check-constraint off; the user typed on), each with the words a row prints. Beside
// other designs such a design becomes a row that says why it did not run; when every design is
// one of them, the contradiction is the command's error (exit 2), as for a single design.
std::map<std::string, std::string> refused_designs(const std::vector<std::string>& variants, const WorkloadFlags& flags) {
  std::map<std::string, std::string> refused;
  std::string first_problem;
  const protocols::Workload w = to_workload(flags);
  for (const std::string& v : variants) {
    const protocols::Design& d = design_flag(v);
    const protocols::Required r = protocols::apply_requirements(w, d.requirements, flags.typed, d.name);
    if (!r.problem) continue;
    if (first_problem.empty()) first_problem = *r.problem;
    const std::optional<protocols::Requirement>& q = r.contradicted;
    refused[v] = q ? fmt::format("requires {} {} ({}); {} {} was typed", q->flag, q->value, q->why, q->flag, protocols::find_setting(q->flag)->get(w))
                   : *r.problem;
  }
  if (!refused.empty() && refused.size() == variants.size()) throw UsageError(first_problem);
  return refused;
}

std::vector<std::string> runnable(const std::vector<std::string>& variants, const std::map<std::string, std::string>& refused) {
  std::vector<std::string> out;
  for (const std::string& v : variants) {
    if (refused.count(v) == 0) out.push_back(v);
  }
  return out;
}

// The workload a sale of `s` runs: with the settings its design requires (Design::requirements).
protocols::Workload sale_workload(const Scenario& s) {
  const protocols::Design& d = design_flag(s.design);
  return protocols::apply_requirements(s.workload, d.requirements, s.typed, d.name).workload;
}

// Every setting of the sale that differs from the default, each with where it came from: typed,
// set by the fault profile (its reason is on stderr), or required by the design. One line, so
// the header, the stderr notes and the reproduce line tell one story.
std::string settings_line(const Scenario& s) {
  Scenario sale = s;
  if (!s.design.empty()) sale.workload = sale_workload(s);  // compare (no one design): as typed
  sale.schedule = "random";
  const std::string flags = properties::scenario_flags(sale);
  if (flags.empty()) return "every setting at its default";
  const std::vector<protocols::Requirement> none;
  const std::vector<protocols::Requirement>& requirements = s.design.empty() ? none : design_flag(s.design).requirements;
  std::string out;
  size_t at = flags.find(" --");
  while (at != std::string::npos) {
    const size_t next = flags.find(" --", at + 3);
    const std::string item = flags.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1);
    at = next;
    const std::string flag = item.substr(0, item.find(' '));
    std::string origin;
    if (std::find(s.typed.begin(), s.typed.end(), flag) != s.typed.end()) origin = "typed";
    for (const std::string& n : s.notes) {
      const size_t sets = n.find(" sets " + flag + " ");
      if (origin.empty() && sets != std::string::npos) origin = "set by " + n.substr(0, sets);
    }
    for (const protocols::Requirement& r : requirements) {
      if (origin.empty() && r.flag == flag) origin = (r.user_may_change ? "the default of " : "required by ") + s.design;
    }
    if (flag == "--horizon" && origin.empty()) origin = "typed";
    out += fmt::format("{}{}{}", out.empty() ? "" : ", ", item, origin.empty() ? "" : " (" + origin + ")");
  }
  return out;
}

}  // namespace

int list_command(const std::string& what) {
  if (what == "variants") {
    for (const auto* d : protocols::designs()) {
      std::string services;
      for (const std::string& sv : d->services) services += (services.empty() ? "" : ", ") + sv;
      fmt::print("{:<30} {}\n{:<30} services: {}\n{:<30} expected: {}\n", d->name, d->summary, "", services.empty() ? "the database only" : services + ", the database", "",
                 d->expected);
      for (const protocols::Requirement& r : d->requirements) {
        fmt::print("{:<30} {}: {} {} ({})\n", "", r.user_may_change ? "defaults to" : "requires", r.flag, r.value, r.why);
      }
    }
    return 0;
  }
  if (what == "faults") {
    for (const auto& p : protocols::profiles()) fmt::print("{:<13} {}\n", p.name, p.summary);
    for (const auto& ps : protocols::profile_sets()) {
      std::string names;
      for (const std::string& n : ps.profiles) names += (names.empty() ? "" : ",") + n;
      fmt::print("\nSet '{}' (compare/hash --faults {}): {}: {}\n", ps.name, ps.name, names, ps.summary);
    }
    fmt::print("\nOr a fault plan: 'at 10ms pause app-1 for 2s; at 20ms crash redis-1; at 1s restart redis-1; at 0 partition redis-1,app-1 | "
               "redis-2,sentinel,app-2;\n  at 3s heal; at 5ms isolate db; at 5ms cut db -> app-1; at 5ms clock-jump redis-1 +1s; "
               "at 0 clock-drift redis-1 +200ppm;\n  at 5ms delay-next app-1 -> db by 1s; at 5ms hold app-1 -> db for 1s'\n");
    fmt::print("A fault can come on a fault point instead: 'on [Nth] <point> [in <node>] [after <delay>] <fault>', naming 'here' for the node\n"
               "that reached it, with lengths as multiples of a workload quantity: 'on after_read pause here for 2x lock-ttl;\n"
               "  on 3rd before_commit in app-2 crash here; on write_unreplicated in redis-1 crash redis-1'\n");
    fmt::print("Points (a plan waiting on one the design never reaches is refused):\n");
    for (const protocols::FaultPoint& p : protocols::fault_point_table()) {
      const std::string designs = p.service.empty() ? "any design" : p.service == "lock" ? "designs that take a lock" : p.service == "stock" ? "designs that keep their stock in a service" : p.service == "lifecycle" ? "designs with an order lifecycle" : p.service + " designs";
      fmt::print("  {:<19} {}, {}: {}\n", p.name, p.marked_by, designs, p.moment);
    }
    fmt::print("Quantities: lock-ttl, lock-wait, lock-retry, remote-call, gateway-timeout, replication-lag, burst-window, max-poll-interval\n");
    fmt::print("Nodes: app-1..app-N (--apps), then the services the design declares, then db:\n");
    for (const protocols::ServiceKind& k : protocols::service_kinds()) fmt::print("  {:<8} {}\n", k.name, k.summary);
    return 0;
  }
  if (what == "properties") {
    for (const auto& p : properties::catalogue()) {
      fmt::print("{:<26} {:<11} {:<10} {}\n", p.name, properties::to_string(p.kind), properties::to_string(p.category), p.description);
    }
    fmt::print("\n`check` asserts the business properties unless --properties names others.\n");
    return 0;
  }
  throw UsageError(fmt::format("list: unknown list '{}' (expected variants, faults or properties)", what));
}

// A profile that cannot strike the design (failover without a replica) is refused: a verdict
// under a fault that cannot happen would read as a pass.
void refuse_inapplicable(const FaultsChoice& faults, const Scenario& s) {
  if (faults.profile.empty()) return;
  if (auto why = protocols::profile_inapplicable(faults.profile, s)) {
    throw UsageError(fmt::format("--faults: {} does not apply to {}: {}", faults.profile, s.design, *why));
  }
}

Scenario run_scenario(const RunFlags& f) {
  const FaultsChoice faults = faults_flag(f.faults);
  Scenario s = scenario_of(f.variant, faults, seed_flag("--seed", f.seed), f.workload, f.horizon, f.strategy);
  refuse_inapplicable(faults, s);
  return s;
}


int run_command(const RunFlags& f) {
  if (f.trace != "text" && f.trace != "json" && f.trace != "cut" && f.trace != "none") {
    throw UsageError(fmt::format("--trace: unknown format '{}' (expected text, json, cut or none)", f.trace));
  }
  const std::vector<std::string> asserted = properties_flag(f.properties);
  check_result_path("--emit-scenario", f.emit_scenario);
  check_json_path(f.json);
  check_result_path("--html", f.html);
  guard_run(f);  // before the scenario: a profile's probe may be the costly part
  Scenario s = run_scenario(f);
  print_notes(s);
  note_unreached_points(s);
  // The sale the run uses, as its `settings:` line shows it (a profile's widening included), so
  // the header, the stderr notes and the checklist tell one story.
  warn_lint(design_flag(s.design), s.workload, s.typed);
  const FaultsChoice typed_faults = faults_flag(f.faults);
  note_unused_flags({s.design}, f.workload, {typed_faults});
  effective_strategy(s, typed_faults, f.strategy_typed);
  if (!s.unplaced.empty()) fmt::print(stderr, "oversim: {}: {}\n", f.faults, s.unplaced);
  if (f.check_determinism) {
    sim::DeterminismReport rep = sim::check_determinism([&] {
      RunResult r = properties::run_checked(s);
      return sim::RunRecord{r.outcome, r.events, {}};
    });
    fmt::print("determinism check ({} seed {}): first run {}, second run {}: {}\n", s.design, s.seed, sim::format_hash(rep.first_hash),
               sim::format_hash(rep.second_hash), rep.identical ? "identical" : "DIFFERENT");
    if (!rep.identical) fmt::print("{}\n", rep.divergence);
    return rep.identical ? 0 : 1;
  }
  // Nothing below reads the events when none are shown, and at a sale's scale they are most of
  // the memory (about 400 bytes a step); the hash is computed either way.
  if (f.trace == "none") s.keep_trace = false;
  s.record_choices = false;  // nothing here replays by choice list; a polling sale draws millions
  RunResult r = properties::run_checked(s);
  const properties::VerdictKind verdict = properties::judge(r, asserted);
  if (!f.emit_scenario.empty()) {
    std::vector<std::string> violated;
    for (const std::string& a : asserted) {
      if (r.result(a).violated) violated.push_back(a);
    }
    write_result_file("--emit-scenario", f.emit_scenario,
                      scenario_toml(s, asserted, fmt::format("The scenario of `oversim run` (variant {}, seed {}, trace hash {})", s.design, s.seed,
                                                             sim::format_hash(r.outcome.hash())),
                                    exit_status(verdict), violated));
  }
  if (!f.json.empty() || !f.html.empty()) {
    nlohmann::json j = {{"schema", report::kSchema}, {"command", "run"}, {"verdict", verdict_json(verdict, "one run")}};
    j.update(report::run_json(r, asserted));
    if (r.scenario.keep_trace) j["timeline"] = report::timeline_json(r);
    write_results(f.json, f.html, j);
  }
  if (f.trace == "json") {
    std::fputs(sim::render_jsonl(r.events).c_str(), stdout);
    return exit_status(verdict);
  }
  fmt::print("oversim run: variant {}, seed {}, faults: {}\nworkload: {}\nsettings: {}\n", s.design, s.seed, s.faults.empty() ? "none" : s.faults.to_string(),
             describe_workload(sale_workload(s)), settings_line(s));
  std::fputs(f.source.header_line().c_str(), stdout);
  if (f.trace == "text") fmt::print("\n{}", sim::render_text(r.events));
  if (f.trace == "cut") {
    // The events that matter (faults, lock beliefs, stock writes, orders, acks, and every
    // violation's step), at most 200 lines; the whole trace is one flag away.
    const std::vector<sim::TraceEvent> cut = properties::cut_trace(r.events, 200, properties::violation_steps(r));
    fmt::print("\n{}({} of {} events: the faults, locks, stock writes, orders and violations; --trace text shows all)\n", sim::render_text(cut), cut.size(),
               r.events.size());
  }
  fmt::print("\nrun: {} at {} after {} steps; trace hash {}\n", sim::to_string(r.outcome.status), sim::format_instant(r.outcome.end_time),
             r.outcome.steps, sim::format_hash(r.outcome.hash()));
  if (r.faults_planned > 0) {
    fmt::print("faults: {} of {} planned fault{} happened{}\n", r.faults_fired, r.faults_planned, r.faults_planned == 1 ? "" : "s",
               r.faults_fired < r.faults_planned ? " (a fault whose trigger point the run never reached never fires)" : "");
  }
  if (!s.unplaced.empty()) fmt::print("faults: {} placed no fault{}: {}\n", f.faults, s.faults.empty() ? "" : " of some kinds", s.unplaced);
  std::fputs(report::results_text(r).c_str(), stdout);
  fmt::print("\n");
  std::fputs(report::verdicts_text(r, asserted).c_str(), stdout);
  fmt::print("\nverdict: {}\n", report::run_verdict_text(r, verdict, asserted, f.faults));
  fmt::print("reproduce: {}\n", properties::reproduce_command(s, asserted));
  return exit_status(verdict);
}

// --require: sometimes properties, by name.
std::vector<std::string> require_flag(const std::string& text) {
  if (text.empty()) return {};
  std::vector<std::string> all;
  for (const auto& p : properties::catalogue()) {
    if (p.kind == properties::Kind::sometimes) all.push_back(p.name);
  }
  std::vector<std::string> names = list_flag("--require", text, all);
  for (const std::string& n : names) {
    const properties::Property* p = properties::find_property(n);
    if (p == nullptr) throw UsageError(fmt::format("--require: unknown property '{}' (see oversim list properties)", n));
    if (p->kind != properties::Kind::sometimes) throw UsageError(fmt::format("--require: '{}' is asserted with --properties; --require takes 'sometimes' properties", n));
  }
  return names;
}

// The coverage a faulted sweep must reach for its verdict to mean anything: the fault struck while
// units remained, and, for a profile aimed at the lock of a design that takes one, while a lock
// was held. None for a plan or no faults.
// Each with the words that say where the fault had to strike.
struct Target {
  std::string property;
  const char* where;
};
std::vector<Target> profile_targets(const FaultsChoice& faults, const Scenario& s) {
  if (faults.profile.empty() || faults.profile == "none") return {};
  std::vector<Target> out = {{"fault_struck_during_sale", "while units remained"}};
  const protocols::Roles roles = protocols::Simulation::roles(s, design_flag(s.design));
  if (protocols::profile_aims_at_lock(faults.profile) && roles.has_lock_service() && roles.takes_lock) {
    out.push_back({"fault_hit_held_lock", "while a lock was held"});
  }
  return out;
}

std::string unreached_why(const std::vector<std::string>& unreached, const std::vector<std::string>& typed) {
  bool all_typed = true;
  for (const std::string& u : unreached) all_typed = all_typed && std::find(typed.begin(), typed.end(), u) != typed.end();
  return all_typed ? "required with --require" : "the profile's faults must strike there for the runs to test it";
}

using report::metrics_json;

int check_command(const CheckFlags& f, const Merged* merged) {
  const std::vector<std::string> asserted = properties_flag(f.properties);
  const std::vector<std::string> required = require_flag(f.require);
  const ShardSpec shard = shard_flag(f.sweep.shard);
  check_shard_flags(shard, f.sweep, f.json, {{"--html", &f.html}, {"--junit", &f.junit}, {"--emit-scenario", &f.emit_scenario}});
  check_json_path(f.json);
  check_result_path("--html", f.html);
  check_result_path("--junit", f.junit);
  check_result_path("--emit-scenario", f.emit_scenario);
  // --emit-scenario writes a counterexample; a sweep that found none says so and leaves the file.
  struct EmitNote {
    const std::string& path;
    bool written = false;
    ~EmitNote() {
      if (!path.empty() && !written && std::uncaught_exceptions() == 0) fmt::print(stderr, "oversim: --emit-scenario: no counterexample to write; {} left as it was\n", path);
    }
  } emit_note{f.emit_scenario};
  const SeedRange seeds = seeds_flag(f.sweep.seeds, f.sweep.first_seed, f.sweep.first_seed_given);
  const unsigned jobs = jobs_flag(f.sweep.jobs);
  const FaultsChoice faults = faults_flag(f.faults);
  sweep_strategy_flag(f.sweep);
  guard_check(f);
  properties::SweepOptions opt;
  const Scenario first = scenario_of(f.variant, faults, seeds.first, f.sweep.workload, f.sweep.horizon, f.sweep.strategy);
  refuse_inapplicable(faults, first);
  print_notes(first);
  note_unreached_points(first);
  warn_lint(design_flag(first.design), first.workload, first.typed);  // the sale the runs use (every seed widens alike)
  note_unused_flags({first.design}, f.sweep.workload, {faults});
  opt.base = sweep_base(first, faults, f.sweep.workload);
  opt.profile = faults.profile;
  opt.asserted = asserted;
  opt.stop_at_first = f.stop_at_first;
  // The sweep as the shards and the merge must agree on it: the sale each seed starts from, the
  // faults, the properties and the seeds.
  const nlohmann::json identity = {{"scenario", report::scenario_json(opt.base)},
                                   {"profile", opt.profile},
                                   {"asserted", asserted},
                                   {"seeds", {seeds.first, seeds.last()}},
                                   {"stop_at_first", f.stop_at_first}};
  if (merged != nullptr && merged->identity != identity) {
    throw UsageError("merge: the shards swept another sale than this oversim builds from their flags (a changed scenario file or design?)");
  }
  const properties::SeedBlock block = shard.given() ? properties::shard_block(seeds.first, seeds.count, shard.index, shard.count)
                                                    : properties::SeedBlock{seeds.first, seeds.count};
  opt.first_seed = block.first;
  opt.seeds = block.count;
  opt.jobs = jobs;
  opt.replay_failure = !shard.given();  // the merge replays the first failing seed of all shards
  const std::string strategy = effective_strategy(first, faults, f.sweep.strategy_typed);
  const std::string shard_seeds = !shard.given()     ? std::string()
                                  : block.count == 0 ? fmt::format("no seeds (shard {}/{} of seeds {}..{}: more shards than seeds)", shard.index, shard.count, seeds.first, seeds.last())
                                                     : fmt::format("{}..{} (shard {}/{} of seeds {}..{})", block.first, block.first + (block.count - 1), shard.index,
                                                                   shard.count, seeds.first, seeds.last());
  fmt::print("oversim check: variant {}, faults {}, strategy {}, seeds {}{}, {} jobs\nworkload: {}\nsettings: {}\nasserting: {}\n", f.variant,
             faults.profile.empty() ? fmt::format("'{}'", faults.plan.to_string()) : fmt::format("{} (a plan per seed)", faults.profile), strategy,
             shard.given() ? shard_seeds : fmt::format("{}..{}", seeds.first, seeds.last()), f.stop_at_first ? " (stop at the first violation)" : "",
             jobs, describe_workload(sale_workload(first)), settings_line(first), join(asserted));
  fmt::print("{}\n", f.source.header_line());
  if (merged != nullptr) fmt::print("merged: the {} shards' results, as one sweep of seeds {}..{}\n", merged->shards, seeds.first, seeds.last());
  std::fflush(stdout);  // the header before the sweep: a pipe killed mid-sweep still shows what ran
  properties::SweepResult sw;
  if (merged != nullptr) {
    for (const nlohmann::json& r : merged->results) properties::merge_sweeps(sw, sweep_state_of(r));
    properties::replay_first_failure(sw, opt);
  } else {
    Progress progress("check", block.count);
    opt.progress = [&progress](uint64_t runs, uint64_t violating) { progress.update(runs, violating); };
    sw = properties::sweep(opt);
    progress.finish();
  }
  reject_invalid(sw, faults.label());
  fmt::print("{:<26} {:<11} {:<10} {}\n", "property", "kind", "asserted", "runs");
  for (const auto& p : properties::catalogue()) {
    const properties::PropertyCount& c = sw.counts[p.name];
    const bool is_asserted = std::find(asserted.begin(), asserted.end(), p.name) != asserted.end();
    // For an asserted property, what the count says of one run's chance to break it: the 95%
    // Wilson interval (report/json.h); a sweep that held bounds it from above.
    const report::Interval ci = report::wilson95(c.violated, static_cast<int64_t>(sw.runs));
    const bool interval = is_asserted && p.kind != properties::Kind::sometimes && sw.runs > 0;
    std::string runs = p.kind == properties::Kind::sometimes ? fmt::format("reached in {}/{}", c.reached, sw.runs)
                       : c.violated == 0 ? fmt::format("held in {}/{}{}", sw.runs, sw.runs, interval ? fmt::format(" (P per run 0-{:.3g}, 95% CI)", ci.high) : "")
                                         : fmt::format("VIOLATED in {}/{} (first seed {}{})", c.violated, sw.runs, *c.first_seed,
                                                       interval ? fmt::format("; P per run {:.3g}, 95% CI {:.3g}-{:.3g}", static_cast<double>(c.violated) / static_cast<double>(sw.runs), ci.low, ci.high) : "");
    fmt::print("{:<26} {:<11} {:<10} {}\n", p.name, properties::to_string(p.kind), p.kind == properties::Kind::sometimes ? "-" : (is_asserted ? "yes" : "no"), runs);
  }
  std::string status;
  for (const auto& [name, n] : sw.run_status) status += fmt::format("{}{} {}", status.empty() ? "" : ", ", n, name);
  fmt::print("\n{} runs: {}\n", sw.runs, status);
  if (sw.horizon_runs() > 0) {
    fmt::print("{} of {} runs stopped at their horizon ({}) before the sale ended (first seed {}): their end-of-run checks saw an unfinished sale\n",
               sw.horizon_runs(), sw.runs, sim::format_duration(first.horizon), *sw.horizon_seed);
  }
  if (sw.unplaced > 0) {
    fmt::print("{} of {} runs had no fault ({}: {}; first seed {})\n", sw.unplaced, sw.runs, faults.label(), sw.unplaced_why, *sw.unplaced_seed);
  }
  if (sw.unfired > 0) {
    fmt::print("{} of {} runs did not reach a planned fault's trigger point: that fault never happened (first seed {}; {} of {} planned faults happened)\n",
               sw.unfired, sw.runs, *sw.unfired_seed, sw.faults_fired, sw.faults_planned);
  }
  // What the faults tested: a fault that struck only after the sell-out, or never while a lock
  // was held, tested nothing of the sale or of the lock.
  const std::vector<Target> targets = profile_targets(faults, first);
  if (!targets.empty()) {
    std::string struck;
    for (const Target& t : targets) {
      struck += fmt::format("{}{} struck {} in {}/{} runs", struck.empty() ? "" : "; ", struck.empty() ? "the fault" : "it", t.where,
                            sw.counts[t.property].reached, sw.runs);
    }
    fmt::print("faults: {}\n", struck);
  }
  std::fputs(report::metrics_text(sw.metrics).c_str(), stdout);
  fmt::print("searched: {} executions, strategy {}, {:.2f}s wall{}\n", sw.runs, strategy, static_cast<double>(sw.wall_ns) / 1e9,
             merged != nullptr ? fmt::format(" (the {} shards' sweeps, summed)", merged->shards) : "");
  for (const std::string& e : sw.errors) fmt::print(stderr, "oversim: internal error in a run: {}\n", e);
  if (shard.given()) {
    // A shard's part of the sweep, for `oversim merge`: the verdict, the shrink and the reports
    // come from all the shards' runs together.
    nlohmann::json j = shard_file("check", shard, block.first, block.count, flags_json(f), identity);
    j["result"] = report::sweep_state_json(sw);
    write_json(f.json, j);
    fmt::print("shard {}/{}: {} of {} runs violated an asserted property{}; written to {}: `{} merge` the {} shards' files for the verdict\n",
               shard.index, shard.count, sw.violating_runs, sw.runs, sw.first_failing_seed ? fmt::format(" (first seed {})", *sw.first_failing_seed) : "",
               f.json, program(), shard.count);
    return !sw.errors.empty() ? 3 : sw.violating_runs > 0 ? 1 : 0;
  }
  if (!sw.errors.empty()) return 3;
  // Required: what --require names, and what the profile targets (a faulted sweep whose faults
  // never struck while units remained, or never while a lock was held, tested nothing).
  std::vector<std::string> required_all = required;
  for (const Target& t : targets) {
    if (std::find(required_all.begin(), required_all.end(), t.property) == required_all.end()) required_all.push_back(t.property);
  }
  // A typed plan is the claim, fault by fault; a profile's draws are judged by what they struck.
  const bool typed_plan = faults.profile.empty();
  const properties::VerdictKind verdict = properties::judge(sw, required_all, typed_plan);
  const std::vector<std::string> unreached = properties::unreached(sw, required_all);
  nlohmann::json j = {{"schema", report::kSchema},
                      {"command", "check"},
                      {"variant", f.variant},
                      {"faults", faults.label()},
                      {"workload", describe_workload(sale_workload(first))},
                      {"verdict", verdict_json(verdict, "random")},
                      {"properties", properties_json(asserted, [&](const properties::Property& p) {
                         const properties::PropertyCount& c = sw.counts[p.name];
                         return p.kind == properties::Kind::sometimes ? nlohmann::json{{"reached", c.reached}} : nlohmann::json{{"violated", c.violated}};
                       })}};
  j["verdict"].update({{"strategy", strategy}, {"executions", sw.runs}, {"seeds", {seeds.first, seeds.last()}}, {"stopped_at_first", sw.stopped}});
  auto seed_or_null = [](const std::optional<uint64_t>& seed) { return seed ? nlohmann::json(*seed) : nlohmann::json(nullptr); };
  j["runs"] = {{"status", sw.run_status}, {"horizon", sw.horizon_runs()}, {"first_horizon_seed", seed_or_null(sw.horizon_seed)}};
  j["fault_plan"] = {{"typed", typed_plan},
                     {"planned", sw.faults_planned},
                     {"fired", sw.faults_fired},
                     {"runs_unfired", sw.unfired},
                     {"first_unfired_seed", seed_or_null(sw.unfired_seed)},
                     {"runs_unplaced", sw.unplaced}};
  j["required"] = required_all;
  j["unreached"] = unreached;
  j["metrics"] = metrics_json(sw.metrics);
  j["scenario"] = report::scenario_json(opt.base);
  switch (verdict) {
    case properties::VerdictKind::incomplete:
      fmt::print("verdict: INCOMPLETE: {} of {} runs stopped at their horizon before the sale ended (first seed {}): what they checked at the end was "
                 "an unfinished sale, so this is not a pass; raise --horizon (or assert progress to call a sale that never ends a bug)\n",
                 sw.horizon_runs(), sw.runs, *sw.horizon_seed);
      write_results(f.json, f.html, j, f.junit);
      return exit_status(verdict);
    case properties::VerdictKind::unfired:
      if (typed_plan) {
        fmt::print("verdict: UNFIRED: in {} of {} runs a fault of the plan never happened (first seed {}; {} of {} planned faults happened): the plan "
                   "as written was not tested, so the properties' holding says nothing about it\n",
                   sw.unfired, sw.runs, *sw.unfired_seed, sw.faults_fired, sw.faults_planned);
      } else {
        fmt::print("verdict: UNFIRED: none of the {} faults {} planned in {} runs happened: the runs tested no fault, so the properties' holding says "
                   "nothing about it\n",
                   sw.faults_planned, faults.label(), sw.runs);
      }
      write_results(f.json, f.html, j, f.junit);
      return exit_status(verdict);
    case properties::VerdictKind::vacuous:
      fmt::print("verdict: VACUOUS: {} never reached in {} runs ({}): the runs never got where the properties matter, so "
                 "their holding says nothing\n",
                 join(unreached, ", "), sw.runs, unreached_why(unreached, required));
      write_results(f.json, f.html, j, f.junit);
      return exit_status(verdict);
    case properties::VerdictKind::random:
      fmt::print("verdict: every asserted property held in all {} runs: {} random executions with the {} strategy, not a proof for every execution{}\n",
                 sw.runs, sw.runs, strategy, required_all.empty() ? "" : fmt::format("; {} reached", join(required_all, ", ")));
      write_results(f.json, f.html, j, f.junit);
      return exit_status(verdict);
    case properties::VerdictKind::violated:
    case properties::VerdictKind::exhaustive: break;
  }
  if (!unreached.empty()) fmt::print("required but never reached: {}\n", join(unreached, ", "));
  const RunResult& failure = *sw.first_failure;
  std::vector<std::string> failed;
  for (const auto& name : asserted) {
    if (failure.result(name).violated) failed.push_back(name);
  }
  fmt::print("\nverdict: VIOLATED. First failing seed: {} (execution {} of the search)\n", *sw.first_failing_seed, *sw.first_failing_seed - seeds.first + 1);
  Scenario shown = failure.scenario;
  RunResult shown_run = failure;
  if (!f.no_shrink) {
    const auto started = std::chrono::steady_clock::now();
    properties::ShrinkOptions shrink_options;
    shrink_options.budget_runs = kShrinkBudget;
    shrink_options.profile = faults.profile;
    shrink_options.faults = f.keep_faults ? properties::ShrinkFaults::keep : f.drop_faults ? properties::ShrinkFaults::drop : properties::ShrinkFaults::story;
    Scenario small = properties::shrink(failure.scenario, failed, shrink_options);
    const double seconds = static_cast<double>(std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count()) / 1e3;
    if (!(small.workload == failure.scenario.workload) || !(small.faults == failure.scenario.faults) || small.schedule != failure.scenario.schedule) {
      small.keep_trace = true;
      shown = small;
      shown_run = properties::run_checked(small);
      fmt::print("shrunk in {:.2f}s to: {}; faults: {}; {} protocol events\n", seconds, describe_workload(small.workload),
                 small.faults.empty() ? "none" : small.faults.to_string(), properties::protocol_events(shown_run.events));
    }
  }
  // Every property the shown run violates, asserted or not: a shrunk run may break more than
  // the sweep asserted, and its reproduce line will say so.
  for (const properties::PropertyResult& pr : shown_run.properties) {
    if (!pr.violated) continue;
    const bool is_asserted = std::find(asserted.begin(), asserted.end(), pr.property->name) != asserted.end();
    fmt::print("{} violated{} at {} step {}: {}\n", pr.property->name, is_asserted ? "" : " (not asserted)", sim::format_instant(pr.violation->at),
               pr.violation->step, pr.violation->witness);
  }
  fmt::print("\nthe events that matter:\n{}", sim::render_text(properties::cut_trace(shown_run.events, 80, properties::violation_steps(shown_run))));
  fmt::print("\nreproduce: {}\n", properties::reproduce_command(shown, asserted));
  if (!f.emit_scenario.empty()) {
    std::vector<std::string> violated;
    for (const std::string& a : asserted) {
      if (shown_run.result(a).violated) violated.push_back(a);
    }
    write_result_file("--emit-scenario", f.emit_scenario,
                      scenario_toml(shown, asserted, fmt::format("The {}counterexample of `oversim check` (variant {}, faults {}, seed {})", f.no_shrink ? "" : "shrunk ",
                                                                 f.variant, faults.profile.empty() ? std::string("as planned") : faults.profile, *sw.first_failing_seed),
                                    exit_status(properties::judge(shown_run, asserted)), violated));
    emit_note.written = true;
    fmt::print("scenario written to {}: oversim run {}\n", f.emit_scenario, f.emit_scenario);
  }
  j["verdict"]["first_failing_seed"] = *sw.first_failing_seed;
  j["counterexample"] = counterexample_json(shown, shown_run, asserted);
  write_results(f.json, f.html, j, f.junit);
  return exit_status(verdict);
}

namespace {
// "12.3", or "-" when there is nothing to divide by (no lock service, no release).
std::string ratio_cell(int64_t n, int64_t d) {
  if (d <= 0) return "-";
  return fmt::format("{:.1f}", static_cast<double>(n) / static_cast<double>(d));
}
}  // namespace

namespace {
// A column of compare's table: a property, its short label, and whether it is about a lock
// service (a design without one shows '-').
struct Column {
  const properties::Property* property;
  std::string label;
  bool about_lock = false;
  // Counts where the faults struck (insale, hit): a '.' there would read as "the faults missed",
  // so a cell whose planned faults never happened says 'unfired' instead.
  bool about_faults = false;
  int width() const { return std::max<int>(8, static_cast<int>(label.size())); }
};

Column column_of(const properties::Property& p) {
  static const std::map<std::string, std::pair<std::string, bool>, std::less<>> labels = {
      {"no_oversell", {"oversell", false}},
      {"no_duplicate_order", {"duplicate", false}},
      {"no_lost_order", {"lost", false}},
      {"no_told_wrong", {"toldwrong", false}},
      {"fault_struck_during_sale", {"insale", false}},
      {"ledger_conservation", {"ledger", false}},
      {"lock_mutual_exclusion", {"mutex", false}},
      {"no_foreign_unlock", {"foreign", false}},
      {"no_lost_update", {"lostupd", false}},
      {"progress", {"progress", false}},
      {"compensation_converges", {"converge", false}},
      {"no_vanished_stock", {"vanished", false}},
      {"lease_expired_while_held", {"expired", true}},
      {"lock_contended", {"contend", true}},
      {"fault_hit_held_lock", {"hit", true}},
      {"sold_out", {"soldout", false}},
      {"check_constraint_fired", {"check", false}},
      {"where_rechecked_after_wait", {"recheck", false}},
      {"failover_happened", {"failover", false}},
      {"ambiguous_outcome", {"unknown", false}},
      {"request_sent_twice", {"twice", false}},
  };
  const bool about_faults = p.name == "fault_struck_during_sale" || p.name == "fault_hit_held_lock";
  auto it = labels.find(p.name);
  if (it == labels.end()) return Column{&p, p.name, false, about_faults};
  return Column{&p, it->second.first, it->second.second, about_faults};
}

// compare --properties: any property, 'sometimes' ones too (their cells count the runs that
// reached them); "" gives the business and mechanism columns and the lock's coverage.
std::vector<Column> columns_flag(const std::string& text) {
  std::vector<std::string> names;
  if (text.empty()) {
    names = {"no_oversell", "no_duplicate_order", "no_lost_order", "no_told_wrong", "ledger_conservation", "compensation_converges", "no_vanished_stock",
             "lock_mutual_exclusion", "progress", "lease_expired_while_held", "lock_contended", "fault_struck_during_sale", "fault_hit_held_lock"};
  } else {
    std::vector<std::string> all;
    for (const auto& p : properties::catalogue()) all.push_back(p.name);
    names = list_flag("--properties", text, all);
  }
  std::vector<Column> out;
  for (const std::string& n : names) {
    const properties::Property* p = properties::find_property(n);
    if (p == nullptr) throw UsageError(fmt::format("--properties: unknown property '{}' (see oversim list properties)", n));
    out.push_back(column_of(*p));
  }
  return out;
}

// What the 'sometimes' columns count, for the legend.
std::string coverage_legend(const std::vector<Column>& columns) {
  std::string out;
  bool about_lock = false;
  for (const Column& c : columns) {
    if (c.property->kind != properties::Kind::sometimes) continue;
    about_lock |= c.about_lock;
    out += fmt::format("\n  {}: {}", c.label, c.property->description);
  }
  if (out.empty()) return out;
  return fmt::format("\ncoverage, the runs that reached it{}:{}", about_lock ? " ('-': the design has no lock service)" : "", out);
}
}  // namespace

int compare_command(const CompareFlags& f, const Merged* merged) {
  const ShardSpec shard = shard_flag(f.sweep.shard);
  check_shard_flags(shard, f.sweep, f.json, {{"--html", &f.html}});
  const SeedRange seeds = seeds_flag(f.sweep.seeds, f.sweep.first_seed, f.sweep.first_seed_given, 100'000);
  const unsigned jobs = jobs_flag(f.sweep.jobs);
  const std::vector<std::string> listed = variants_flag(f.variants);
  const std::map<std::string, std::string> refused = refused_designs(listed, f.sweep.workload);
  const std::vector<std::string> variants = runnable(listed, refused);
  const std::vector<FaultsChoice> faults = faults_list_flag(f.faults);
  const std::vector<Column> columns = columns_flag(f.properties);
  sweep_strategy_flag(f.sweep);
  check_json_path(f.json);
  check_result_path("--html", f.html);
  guard_compare(f);
  // Check every cell's inputs before the first row is printed.
  std::vector<Scenario> bases;
  warn_lint(variants, to_workload(f.sweep.workload), f.sweep.workload.typed);
  note_unused_flags(variants, f.sweep.workload, faults);
  // Each cell's first scenario, built across the jobs (a profile probes the sale: a run, minutes
  // at 10,000 buyers); a bad one is reported below in table order.
  std::vector<std::optional<Scenario>> built(faults.size() * variants.size());
  std::vector<std::exception_ptr> build_errors(built.size());
  properties::for_each_index(built.size(), jobs, [&](uint64_t k) {
    const FaultsChoice& fc = faults[k / variants.size()];
    Scenario probe_design;
    probe_design.design = variants[k % variants.size()];
    probe_design.workload = to_workload(f.sweep.workload);
    if (!fc.profile.empty() && protocols::profile_inapplicable(fc.profile, probe_design)) return;
    try {
      built[k] = scenario_of(probe_design.design, fc, seeds.first, f.sweep.workload, f.sweep.horizon, f.sweep.strategy);
    } catch (...) {
      build_errors[k] = std::current_exception();
    }
  });
  for (size_t fi = 0; fi < faults.size(); ++fi) {
    const FaultsChoice& fc = faults[fi];
    // What a profile widens depends on the workload and on the roles of the design's lock
    // service (failover and partition widen for a replicated one only), so the notes are
    // gathered per design it applies to and printed once per distinct line, naming the designs
    // when they differ. A profile that applies to none has nothing to say.
    std::vector<std::pair<BriefNotes, std::vector<std::string>>> groups;  // notes, designs
    std::optional<Scenario> checked;
    for (size_t vi = 0; vi < variants.size(); ++vi) {
      const std::string& v = variants[vi];
      const size_t k = fi * variants.size() + vi;
      if (build_errors[k]) std::rethrow_exception(build_errors[k]);
      if (!built[k]) continue;
      Scenario s = std::move(*built[k]);
      const BriefNotes brief = brief_notes(fc.label(), s.notes);
      auto at = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == brief; });
      if (at == groups.end()) groups.push_back({brief, {v}});
      else at->second.push_back(v);
      if (!checked) checked = std::move(s);
    }
    if (!checked) checked = scenario_of(variants.front(), fc, seeds.first, f.sweep.workload, f.sweep.horizon, f.sweep.strategy);
    for (const auto& [brief, designs] : groups) {
      print_notes_briefly(fc.label(), brief, groups.size() > 1 ? fmt::format(" for {}", join(designs)) : std::string());
    }
    bases.push_back(sweep_base(*checked, fc, f.sweep.workload));
  }
  // The table as the shards and the merge must agree on it: each column's first sale, the
  // designs and the seeds. A shard runs a contiguous block of every cell's seeds.
  nlohmann::json identity = {{"variants", listed}, {"seeds", {seeds.first, seeds.last()}}, {"bases", nlohmann::json::array()}};
  for (size_t i = 0; i < bases.size(); ++i) identity["bases"].push_back({{"profile", faults[i].profile}, {"scenario", report::scenario_json(bases[i])}});
  if (merged != nullptr && merged->identity != identity) {
    throw UsageError("merge: the shards swept another table than this oversim builds from their flags (a changed scenario file or design?)");
  }
  const properties::SeedBlock block = shard.given() ? properties::shard_block(seeds.first, seeds.count, shard.index, shard.count)
                                                    : properties::SeedBlock{seeds.first, seeds.count};
  const protocols::Workload w = to_workload(f.sweep.workload);
  fmt::print("oversim compare: {} seeds per cell (seeds {}..{}{}), strategy {}, {} jobs\nworkload: {}\n", block.count, block.first,
             block.first + block.count - (block.count > 0 ? 1 : 0),
             shard.given() ? fmt::format("; shard {}/{} of seeds {}..{}", shard.index, shard.count, seeds.first, seeds.last()) : std::string(),
             effective_strategy(bases.front(), faults.front(), f.sweep.strategy_typed), jobs, describe_workload(w));
  if (merged != nullptr) fmt::print("merged: the {} shards' results, as one sweep of seeds {}..{} per cell\n", merged->shards, seeds.first, seeds.last());
  std::fputs(f.source.header_line().c_str(), stdout);
  {
    Scenario typed;
    typed.workload = w;
    typed.typed = f.sweep.workload.typed;
    typed.horizon = bases.front().horizon;
    fmt::print("settings: {}{}\n", settings_line(typed), typed.typed.empty() ? "" : fmt::format("; a profile's own settings are on stderr, a design's requirements in `{} list variants`", program()));
  }
  for (const FaultsChoice& fc : faults) {
    if (fc.profile.empty()) fmt::print("plan: {}\n", fc.plan.to_string());
  }
  fmt::print("cells: runs that violated each property (out of {}); '.' = none.{}\n"
             "sold: orders committed, of the units the cell's runs had (above 100% only with an oversell); sellout: the median run's\n"
             "sell-out time (never: most runs left stock unsold); orders/s: units sold per second of selling window (the sale's start to\n"
             "its sell-out, or to its last answer when stock remained), over all runs; p99: buyers' time to their last answer (never: over\n"
             "1% heard nothing); msgs/buy: requests to the lock service per purchase attempt; wake/rel: times a waiter woke to look again\n"
             "(a poll, a watch, a retry round) per lock release. docs/guide.md#the-sales-numbers defines every column.\n\n",
             seeds.count, coverage_legend(columns));
  size_t faults_width = 13;  // a combination (gc-pause+failover) may be longer
  for (const FaultsChoice& fc : faults) faults_width = std::max(faults_width, fc.label().size());
  size_t name_width = 30;  // a design's name may be longer
  for (const std::string& v : listed) name_width = std::max(name_width, v.size());
  fmt::print("{:<{}} {:<{}}", "variant", name_width, "faults", faults_width);
  for (const Column& c : columns) fmt::print(" {:>{}}", c.label, c.width());
  fmt::print(" {:>6} {:>8} {:>9} {:>9} {:>8} {:>8}\n", "sold", "sellout", "orders/s", "p99", "msgs/buy", "wake/rel");
  std::fflush(stdout);  // the header before the first row's sweep
  bool internal_error = false;
  int partly_unfired = 0;  // cells in which some run missed a later fault of its profile's plan
  nlohmann::json cells = nlohmann::json::array();
  Progress progress("compare", merged != nullptr ? 0 : static_cast<uint64_t>(listed.size()) * faults.size() * block.count);
  nlohmann::json shard_cells = nlohmann::json::array();  // with --shard: each cell's sweep, for the merge
  auto skipped_cell = [&cells](const std::string& v, const FaultsChoice& fc, const std::string& why) {
    cells.push_back({{"variant", v}, {"faults", fc.label()}, {"applies", false}, {"why", why}});
  };
  // Every cell's runs share one pool of jobs, the costliest cells first; rows print in order as
  // soon as they and the rows above them are done.
  std::vector<properties::SweepOptions> grid;
  std::vector<double> costs;
  for (const std::string& v : listed) {
    for (size_t i = 0; i < faults.size(); ++i) {
      properties::SweepOptions& opt = grid.emplace_back();
      opt.base = bases[i];
      opt.base.design = v;
      opt.profile = faults[i].profile;
      opt.first_seed = block.first;
      opt.seeds = refused.count(v) > 0 ? 0 : block.count;
      opt.keep_failure_trace = false;
      opt.replay_failure = !shard.given();
      const bool runs = opt.seeds > 0 && (opt.profile.empty() || !protocols::profile_inapplicable(opt.profile, opt.base));
      if (!runs && merged == nullptr) progress.skip(block.count);
      costs.push_back(runs ? cell_cpu_seconds(v, faults[i], f.sweep, block.count) : 0.0);
    }
  }
  auto row = [&](size_t cell, properties::SweepResult&& sw) {
    if (shard.given()) shard_cells.push_back(report::sweep_state_json(sw));
    const std::string& v = grid[cell].base.design;
    const size_t i = cell % faults.size();
    if (auto why = refused.find(v); why != refused.end()) {
      fmt::print("{:<{}} {:<{}} does not apply: {}\n", v, name_width, faults[i].label(), faults_width, why->second);
      skipped_cell(v, faults[i], why->second);
      return;
    }
    reject_invalid(sw, faults[i].label());
    fmt::print("{:<{}} {:<{}}", v, name_width, faults[i].label(), faults_width);
    if (sw.inapplicable) {
      // Not an empty row that reads as "holds": the design has nothing this profile strikes.
      fmt::print(" does not apply: {}\n", *sw.inapplicable);
      skipped_cell(v, faults[i], *sw.inapplicable);
      return;
    }
    if (sw.runs > 0 && sw.unplaced == sw.runs) {
      // Not an empty row that reads as "holds": the profile has nothing to strike in this design.
      fmt::print(" does not apply: {}\n", sw.unplaced_why);
      skipped_cell(v, faults[i], sw.unplaced_why);
      return;
    }
    const properties::SweepOptions& opt = grid[cell];
    const protocols::Roles roles = protocols::Simulation::roles(opt.base, design_flag(v));
    const bool has_lock = roles.has_lock_service() && roles.takes_lock;
    const bool untested = properties::faults_untested(sw, faults[i].profile.empty());
    for (const Column& c : columns) {
      const properties::PropertyCount& count = sw.counts[c.property->name];
      const int64_t n = c.property->kind == properties::Kind::sometimes ? count.reached : count.violated;
      // A lock's coverage means nothing for a design that takes no lock: '-', not a '.'
      // that reads as "never reached".
      const bool not_applicable = c.about_lock && !has_lock;
      const std::string zero = c.about_faults && untested ? "unfired" : ".";
      fmt::print(" {:>{}}", not_applicable ? std::string("-") : n == 0 ? zero : std::to_string(n), c.width());
    }
    const properties::SaleMetrics& m = sw.metrics;
    // The median run's sell-out: a run that left stock unsold counts as never selling out.
    std::vector<sim::Duration> sell_outs = m.sell_out;
    sell_outs.resize(m.runs, sim::Duration::max());
    const std::optional<sim::Duration> median_sell_out = properties::quantile(sell_outs, 500);
    fmt::print(" {:>5.0f}% {:>8} {:>9.1f} {:>9} {:>8} {:>8}\n", m.sold_percent(),
               !median_sell_out ? std::string("-") : *median_sell_out == sim::Duration::max() ? std::string("never") : sim::format_span(*median_sell_out),
               m.orders_per_s(), span_or(properties::quantile(m.answer_times, 990)),
               ratio_cell(sw.counter("lock.requests"), sw.counter("lock.requests") > 0 ? sw.purchases : 0), ratio_cell(sw.counter("lock.wakeups"), sw.counter("lock.releases")));
    if (sw.unplaced > 0) fmt::print("{:<44} ({} of {} runs had no fault: {}: {})\n", "", sw.unplaced, sw.runs, faults[i].label(), sw.unplaced_why);
    // A typed plan that missed a fault, or a profile none of whose faults happened, tested
    // less than the row says; a profile's later faults that found their trigger gone after an
    // earlier one are counted for the footer (`check` names them cell by cell).
    if (untested) {
      fmt::print("{:<44} (unfired: in {} of {} runs a planned fault never happened, first seed {}; {} of {} planned faults happened)\n", "", sw.unfired,
                 sw.runs, *sw.unfired_seed, sw.faults_fired, sw.faults_planned);
    } else if (sw.unfired > 0) {
      ++partly_unfired;
    }
    if (sw.horizon_runs() > 0) {
      fmt::print("{:<44} (horizon: {} of {} runs stopped at their horizon before the sale ended, first seed {}: their cells are not a pass)\n", "",
                 sw.horizon_runs(), sw.runs, *sw.horizon_seed);
    }
    // A faulted cell whose faults never struck while units remained tested nothing of the sale.
    for (const Target& t : profile_targets(faults[i], opt.base)) {
      if (sw.runs > sw.unplaced && sw.counts[t.property].reached == 0) {
        fmt::print("{:<44} (vacuous: in no run did the fault strike {}; the row tested nothing of it)\n", "", t.where);
      }
    }
    {
      std::vector<std::string> vacuous;
      for (const Target& t : profile_targets(faults[i], opt.base)) {
        if (sw.runs > sw.unplaced && sw.counts[t.property].reached == 0) vacuous.push_back(t.property);
      }
      cells.push_back(report::cell_json(v, faults[i].label(), sw, has_lock, untested, vacuous));
      // With --html, each cell that broke a business property shows its counterexample,
      // shrunk on a smaller budget than check's (a table has many cells).
      if (!f.html.empty() && sw.first_failure) {
        std::vector<std::string> failed;
        for (const std::string& a : properties::default_asserted()) {
          if (sw.first_failure->result(a).violated) failed.push_back(a);
        }
        properties::ShrinkOptions so;
        so.budget_runs = 150;
        so.search_runs = 2000;
        so.explore_executions = 1000;
        so.profile = faults[i].profile;
        Scenario small = properties::shrink(sw.first_failure->scenario, failed, so);
        small.keep_trace = true;
        cells.back()["counterexample"] = counterexample_json(small, properties::run_checked(small), properties::default_asserted());
      }
    }
    for (const std::string& e : sw.errors) fmt::print(stderr, "oversim: internal error in {} / {}: {}\n", v, faults[i].label(), e);
    internal_error |= !sw.errors.empty();
  };
  if (merged != nullptr) {
    // Each cell merged from the shards' parts of it, in seed order; its first failing seed
    // replayed as the sweep would (the --html counterexample is shrunk from it).
    for (size_t cell = 0; cell < grid.size(); ++cell) {
      properties::SweepResult sw;
      for (const nlohmann::json& r : merged->results) {
        if (!r.is_array() || r.size() != grid.size()) throw UsageError("merge: a shard file of compare does not hold every cell of the table");
        properties::merge_sweeps(sw, sweep_state_of(r[cell]));
      }
      if (grid[cell].seeds > 0 && (grid[cell].profile.empty() || !protocols::profile_inapplicable(grid[cell].profile, grid[cell].base))) {
        properties::replay_first_failure(sw, grid[cell]);
      } else if (!grid[cell].profile.empty()) {
        sw.inapplicable = protocols::profile_inapplicable(grid[cell].profile, grid[cell].base);
      }
      row(cell, std::move(sw));
    }
  } else {
    properties::sweep_cells(grid, costs, jobs, [&progress](uint64_t runs, uint64_t bad) { progress.update(runs, bad); },
                            [&](size_t cell, properties::SweepResult&& sw) { progress.above([&] { row(cell, std::move(sw)); }); });
    progress.finish();
  }
  if (shard.given()) {
    nlohmann::json j = shard_file("compare", shard, block.first, block.count, flags_json(f), identity);
    j["result"] = shard_cells;
    write_json(f.json, j);
    fmt::print("\nshard {}/{}: written to {}: `{} merge` the {} shards' files for the table of seeds {}..{}\n", shard.index, shard.count, f.json, program(),
               shard.count, seeds.first, seeds.last());
    return internal_error ? 3 : 0;
  }
  const std::string strategy = protocols::to_string(bases.front().search);
  const bool default_strategy = f.sweep.strategy == kDefaultStrategy;
  if (partly_unfired > 0) {
    fmt::print("\n{} cell{} had runs in which a later fault of the profile's plan never happened (an earlier fault changed the run); `check` counts "
               "them per cell",
               partly_unfired, partly_unfired == 1 ? "" : "s");
  }
  fmt::print("\nInspect a cell: {} check --variant <variant> --faults {} --seeds {}..{}{}{}\n", program(),
             faults.size() == 1 && faults[0].profile.empty() ? fmt::format("'{}'", faults[0].plan.to_string()) : "<profile>", seeds.first, seeds.last(),
             default_strategy ? "" : fmt::format(" --strategy {}", strategy), properties::scenario_flags(sweep_base(bases.front(), faults.front(), f.sweep.workload)));
  if (!f.json.empty() || !f.html.empty()) {
    Scenario shown = bases.front();
    shown.design = variants.empty() ? std::string() : variants.front();
    write_results(f.json, f.html, {{"schema", report::kSchema},
                        {"command", "compare"},
                        {"seeds", {seeds.first, seeds.last()}},
                        {"strategy", protocols::to_string(bases.front().search)},
                        {"jobs", jobs},
                        {"workload", report::scenario_json(shown)["flags"]},
                        {"variants", listed},
                        {"faults", [&] {
                           nlohmann::json out = nlohmann::json::array();
                           for (const FaultsChoice& fc : faults) out.push_back(fc.profile.empty() ? fc.plan.to_string() : fc.profile);
                           return out;
                         }()},
                        {"cells", cells}});
  }
  // compare is a report on many designs, most of them unsafe on purpose: violations are its
  // content, not a failure. Use `check` to assert.
  return internal_error ? 3 : 0;
}

int hash_command(const HashFlags& f, const Merged* merged) {
  const ShardSpec shard = shard_flag(f.sweep.shard);
  check_shard_flags(shard, f.sweep, f.json, {});
  const SeedRange seeds = seeds_flag(f.sweep.seeds, f.sweep.first_seed, f.sweep.first_seed_given);
  const unsigned jobs = jobs_flag(f.sweep.jobs);
  // A design that cannot run with a typed setting has nothing to pin (compare says why).
  const std::vector<std::string> listed = variants_flag(f.variants);
  const std::vector<std::string> variants = runnable(listed, refused_designs(listed, f.sweep.workload));
  const std::vector<FaultsChoice> faults = faults_list_flag(f.faults);
  if (static_cast<double>(variants.size()) * static_cast<double>(faults.size()) * static_cast<double>(seeds.count) > static_cast<double>(kMaxSeedsPerCommand)) {
    throw UsageError(fmt::format("--seeds: more than {} runs in one hash command", kMaxSeedsPerCommand));
  }
  sweep_strategy_flag(f.sweep);
  check_json_path(f.json);
  guard_hash(f);
  std::vector<properties::LabelledScenario> runs;
  for (const std::string& v : variants) {
    for (const FaultsChoice& fc : faults) {
      const Scenario base = sweep_base(scenario_of(v, fc, seeds.first, f.sweep.workload, f.sweep.horizon, f.sweep.strategy), fc, f.sweep.workload);
      // A profile that cannot strike this design has nothing to pin (compare says so).
      if (!fc.profile.empty() && protocols::profile_inapplicable(fc.profile, base)) continue;
      for (uint64_t i = 0; i < seeds.count; ++i) {
        Scenario s = base;
        s.seed = seeds.first + i;
        s.keep_trace = false;
        // The profile (and its probe) is applied in the worker threads.
        runs.push_back(properties::LabelledScenario{fc.label(), std::move(s), fc.profile});
      }
    }
  }
  // A shard runs a contiguous block of the runs in the order the lines print (design, faults,
  // seed), so the shards' lines one after another are the whole command's.
  const nlohmann::json identity = {{"runs", runs.size()}, {"seeds", {seeds.first, seeds.last()}}, {"first", runs.empty() ? "" : runs.front().label},
                                   {"last", runs.empty() ? "" : runs.back().scenario.design + "/" + runs.back().label}};
  if (merged != nullptr && merged->identity != identity) throw UsageError("merge: the shards ran other runs than this oversim builds from their flags");
  const properties::SeedBlock block = shard.given() ? properties::shard_block(0, runs.size(), shard.index, shard.count) : properties::SeedBlock{0, runs.size()};
  std::vector<std::string> lines;
  if (merged != nullptr) {
    for (const nlohmann::json& r : merged->results) {
      if (!r.is_array()) throw UsageError("merge: a shard file of hash holds no lines");
      for (const nlohmann::json& line : r) {
        if (!line.is_string()) throw UsageError("merge: a shard file of hash holds a line that is not text");
        lines.push_back(line.get<std::string>());
      }
    }
    if (lines.size() != runs.size()) throw UsageError(fmt::format("merge: the shards hold {} lines of the {} runs", lines.size(), runs.size()));
  } else {
    runs.erase(runs.begin() + static_cast<std::ptrdiff_t>(block.first + block.count), runs.end());
    runs.erase(runs.begin(), runs.begin() + static_cast<std::ptrdiff_t>(block.first));
    lines = properties::fingerprints(runs, jobs);
    for (size_t i = 0; i < lines.size(); ++i) {
      const size_t at = lines[i].find("\tinvalid: ");
      if (at != std::string::npos) {
        throw UsageError(fmt::format("--faults: {} for seed {}: {}", runs[i].label, runs[i].scenario.seed, lines[i].substr(at + 10)));
      }
    }
  }
  bool internal_error = false;
  nlohmann::json out = nlohmann::json::array();
  for (const std::string& line : lines) {
    fmt::print("{}\n", line);
    internal_error |= line.find("\terror: ") != std::string::npos;
    if (!f.json.empty()) out.push_back(report::fingerprint_json(line));
  }
  if (shard.given()) {
    nlohmann::json j = shard_file("hash", shard, block.first, block.count, flags_json(f), identity);
    j["result"] = lines;
    write_json(f.json, j);
    fmt::print(stderr, "oversim: shard {}/{} of hash: runs {}..{} of {}, written to {}\n", shard.index, shard.count, block.first + 1, block.first + block.count,
               identity["runs"].get<size_t>(), f.json);
  } else if (!f.json.empty()) {
    write_json(f.json, {{"schema", report::kSchema}, {"command", "hash"}, {"seeds", {seeds.first, seeds.last()}}, {"runs", out}});
  }
  return internal_error ? 3 : 0;
}

int demo_command(const DemoFlags& f) {
  if (f.trace != "text" && f.trace != "json" && f.trace != "none") throw UsageError(fmt::format("--trace: unknown format '{}' (expected text, json or none)", f.trace));
  DemoOptions options;
  options.seed = seed_flag("--seed", f.seed);
  options.buyers = static_cast<int>(integer_flag("--buyers", f.buyers, 1, 1000));
  options.stock = integer_flag("--stock", f.stock, 0, 1'000'000);
  if (f.faults == "none") {
    options.faults = {};
  } else if (protocols::is_profile(f.faults)) {
    throw UsageError(fmt::format("--faults: the demo takes a plan or 'none', not a profile ('{}')", f.faults));
  } else {
    options.faults = faults_flag(f.faults).plan;
  }
  if (auto problem = demo_problem(options)) throw UsageError(fmt::format("--faults: {}", *problem));
  if (f.check_determinism) {
    sim::DeterminismReport r = sim::check_determinism([&] { return run_demo(options).record; });
    fmt::print("determinism check (kernel demo, seed {}): first run {}, second run {}: {}\n", options.seed, sim::format_hash(r.first_hash),
               sim::format_hash(r.second_hash), r.identical ? "identical" : "DIFFERENT");
    if (!r.identical) fmt::print("{}\n", r.divergence);
    return r.identical ? 0 : 1;
  }
  const DemoResult result = run_demo(options);
  if (f.trace == "json") {
    std::fputs(sim::render_jsonl(result.record.events).c_str(), stdout);
    return 0;
  }
  fmt::print("oversim kernel demo: {} buyers read-then-write a stock of {} over RPC; faults: {}\n\n", options.buyers, options.stock,
             options.faults.empty() ? "none" : options.faults.to_string());
  if (f.trace == "text") std::fputs(sim::render_text(result.record.events).c_str(), stdout);
  const sim::RunOutcome& o = result.record.outcome;
  fmt::print("\n{} at {} after {} steps, {} trace events, {} choices\n", sim::to_string(o.status), sim::format_instant(o.end_time), o.steps,
             result.record.events.size(), result.record.choices.size());
  fmt::print("stock {} -> {}, buyers told they bought: {}{}\n", options.stock, result.stock_left, result.sold,
             result.sold > options.stock - result.stock_left ? "  (lost update: more sold than the stock went down)" : "");
  fmt::print("trace hash: {}\n", sim::format_hash(o.hash()));
  return 0;
}

int determinism_command() {
  DemoOptions demo;
  sim::DeterminismReport a = sim::check_determinism([&] { return run_demo(demo).record; });
  fmt::print("kernel demo (seed {}):                       {} vs {}: {}\n", demo.seed, sim::format_hash(a.first_hash), sim::format_hash(a.second_hash),
             a.identical ? "identical" : "DIFFERENT");
  Scenario s;
  s.design = "redis_lock_conditional";
  s.seed = 1;
  s = protocols::apply_profile("chaos", s);
  sim::DeterminismReport b = sim::check_determinism([&] {
    RunResult r = properties::run_checked(s);
    return sim::RunRecord{r.outcome, r.events, {}};
  });
  fmt::print("redis_lock_conditional under chaos (seed 1): {} vs {}: {}\n", sim::format_hash(b.first_hash), sim::format_hash(b.second_hash),
             b.identical ? "identical" : "DIFFERENT");
  if (!a.identical) fmt::print("{}\n", a.divergence);
  if (!b.identical) fmt::print("{}\n", b.divergence);
  return a.identical && b.identical ? 0 : 1;
}

}  // namespace oversim::cli

namespace oversim::cli {

ExploreFlags::ExploreFlags() {
  workload.buyers = "2";
  workload.stock = "1";
  workload.burst_window = "0s";
  workload.latency = "200us";
}

int explore_command(const ExploreFlags& f, const Merged* merged) {
  const ShardSpec shard = shard_flag(f.shard);
  if (shard.given()) {
    if (f.json.empty()) throw UsageError("--shard: give --json FILE for the shard's result (oversim merge reads the shards' files)");
    for (const auto& [flag, value] : {std::pair{"--html", &f.html}, std::pair{"--junit", &f.junit}}) {
      if (!value->empty()) throw UsageError(fmt::format("--shard: {} is drawn from all the shards: give it to `{} merge`", flag, program()));
    }
  }
  const protocols::Design& design = design_flag(f.variant);
  properties::ExploreOptions o;
  o.asserted = properties_flag(f.properties);
  o.base.design = design.name;
  o.base.workload = to_workload(f.workload);
  o.base.typed = f.workload.typed;
  o.base.horizon = duration_flag("--horizon", f.horizon, sim::Duration::s(1), kMaxHorizon);
  o.max_faults = static_cast<int>(unsigned_flag("--max-faults", f.max_faults, 0, 3));
  o.max_executions = unsigned_flag("--max-executions", f.max_executions, 1, 100'000'000);
  o.stop_at_first = f.first;
  if (f.max_deviations != "all") o.max_deviations = unsigned_flag("--max-deviations", f.max_deviations, 0, 1000);
  if (o.base.workload.buyers > 8) throw UsageError(fmt::format("--buyers: {} is more than explore covers (1..8): use check for a sale this big", o.base.workload.buyers));
  if (f.faults != "none") {
    size_t start = 0;
    while (start <= f.faults.size()) {
      const size_t semi = std::min(f.faults.find(';', start), f.faults.size());
      std::string text = f.faults.substr(start, semi - start);
      start = semi + 1;
      while (!text.empty() && text.front() == ' ') text.erase(text.begin());
      while (!text.empty() && text.back() == ' ') text.pop_back();
      if (text.empty()) throw UsageError(fmt::format("--faults: '{}' has an empty fault", f.faults));
      try {
        // A fault alternative is written without its trigger: the explorer puts it on every point.
        const sim::FaultPlan plan = sim::FaultPlan::parse("on explore_any " + text);
        o.faults.push_back(plan.faults.front());
        sim::FaultPlan one;
        one.faults.push_back(plan.faults.front());
        one.resolved(protocols::quantities(o.base.workload));
      } catch (const sim::FaultPlanError& e) {
        throw UsageError(fmt::format("--faults: '{}': {}", text, e.what()));
      }
    }
  }
  o.points = points_flag(f.points, design, o.base.workload);
  note_unused_flags({design.name}, f.workload, {FaultsChoice{"", sim::FaultPlan{o.faults}}});  // its faults may scale by a flag's quantity
  if (o.max_faults > 0 && o.faults.empty()) o.max_faults = 0;
  if (auto problem = properties::explore_problem(o)) throw UsageError(*problem);
  check_json_path(f.json);
  check_result_path("--html", f.html);
  check_result_path("--junit", f.junit);
  // The walk as the shards and the merge must agree on it.
  const nlohmann::json identity = {{"design", design.name},   {"bounds", properties::describe_bounds(o)}, {"asserted", o.asserted},
                                   {"points", o.points},      {"max_executions", o.max_executions},     {"first", o.stop_at_first},
                                   {"scenario", report::scenario_json(o.base)}};
  if (merged != nullptr && merged->identity != identity) {
    throw UsageError("merge: the shards explored another tree than this oversim builds from their flags (a changed design?)");
  }
  o.shard_index = shard.index;
  o.shard_count = shard.count;
  fmt::print("oversim explore: variant {}\nbounds: {}\nasserting: {}\n", design.name, properties::describe_bounds(o), join(o.asserted));
  if (merged != nullptr) fmt::print("merged: the {} shards' walks, as one walk of the tree\n", merged->shards);
  fmt::print("\n");
  std::fflush(stdout);
  properties::ExploreResult r;
  if (merged != nullptr) {
    bool first = true;
    for (const nlohmann::json& part : merged->results) {
      properties::ExploreResult one;
      try {
        one = report::explore_state(part);
      } catch (const std::invalid_argument& e) {
        throw UsageError(fmt::format("merge: a shard file is not complete: {}", e.what()));
      }
      properties::merge_explores(r, std::move(one), first);
      first = false;
    }
    if (!r.best_values.empty()) r.counterexample = properties::explore_counterexample(o, r.best_values);
  } else {
    r = properties::explore(o);
  }
  const properties::VerdictKind verdict = properties::judge(r);
  fmt::print("{:<26} {:<11} {:<10} {}\n", "property", "kind", "asserted", "executions");
  for (const auto& p : properties::catalogue()) {
    if (p.kind == properties::Kind::sometimes) continue;
    const bool is_asserted = std::find(o.asserted.begin(), o.asserted.end(), p.name) != o.asserted.end();
    const auto it = r.counts.find(p.name);
    const uint64_t n = it == r.counts.end() ? 0 : it->second;
    // Only an asserted property is judged; the others are what the executions showed of them.
    const std::string executions = !is_asserted ? fmt::format("observed broken in {}/{} (not asserted)", n, r.executions)
                                   : n == 0     ? fmt::format("held in {}/{}", r.executions, r.executions)
                                                : fmt::format("VIOLATED in {}/{}", n, r.executions);
    fmt::print("{:<26} {:<11} {:<10} {}\n", p.name, properties::to_string(p.kind), is_asserted ? "yes" : "no", executions);
  }
  fmt::print("\nexplored: {} executions{}, {} options left out by the reduction, {} data draws fixed, longest {} choices, {:.2f}s wall\n", r.executions,
             r.complete ? " (every execution within the bounds)" : r.stopped ? " (stopped at the first violation)" : " (budget reached)", r.pruned,
             r.fixed_draws, r.longest, static_cast<double>(r.wall_ns) / 1e9);
  if (r.horizon_runs() > 0) {
    fmt::print("{} of {} executions stopped at their horizon ({}) before the sale ended: their end-of-run checks saw an unfinished sale\n", r.horizon_runs(),
               r.executions, sim::format_duration(o.base.horizon));
  }
  if (shard.given()) {
    nlohmann::json j = shard_file("explore", shard, 0, 0, flags_json(f), identity);
    j["shard"]["subtrees"] = {r.subtrees, r.split_subtrees};
    j["result"] = report::explore_state_json(r);
    write_json(f.json, j);
    fmt::print("shard {}/{}: {} of the tree's {} subtrees, {} executions ({}), {} violating; written to {}: `{} merge` the {} shards' files for the verdict\n",
               shard.index, shard.count, r.subtrees, r.split_subtrees, r.executions,
               r.complete ? "every one of them" : r.stopped ? "stopped at the first violation" : "budget reached", r.violating, f.json, program(), shard.count);
    return r.violating > 0 ? 1 : 0;
  }
  nlohmann::json j = {{"schema", report::kSchema},
                      {"command", "explore"},
                      {"variant", design.name},
                      {"verdict", verdict_json(verdict, "exhaustive")},
                      {"properties", properties_json(o.asserted, [&](const properties::Property& p) {
                         if (p.kind == properties::Kind::sometimes) return nlohmann::json::object();  // explore counts no coverage
                         const auto it = r.counts.find(p.name);
                         return nlohmann::json{{"violated", it == r.counts.end() ? 0 : it->second}};
                       })}};
  j["verdict"].update({{"bounds", properties::describe_bounds(o)}, {"executions", r.executions}, {"complete", r.complete}, {"stopped_at_first", r.stopped},
                       {"violating", r.violating}, {"reduced_options", r.pruned}});
  j["runs"] = {{"status", r.run_status}, {"horizon", r.horizon_runs()}};
  if (verdict == properties::VerdictKind::incomplete) {
    write_results(f.json, f.html, j, f.junit);
    if (!r.complete) {
      fmt::print("verdict: INCOMPLETE: no violation in the {} executions explored, but the bounds have more (raise --max-executions or narrow the bounds); not a proof\n",
                 r.executions);
    } else {
      fmt::print("verdict: INCOMPLETE: {} of the {} executions stopped at their horizon before the sale ended (raise --horizon); not a proof\n",
                 r.horizon_runs(), r.executions);
    }
    return exit_status(verdict);
  }
  if (verdict == properties::VerdictKind::exhaustive) {
    write_results(f.json, f.html, j, f.junit);
    fmt::print("verdict: every asserted property holds for all {} executions within these bounds (exhaustive within the bounds above, not beyond them)\n", r.executions);
    return exit_status(verdict);
  }
  const protocols::Scenario& cx = *r.counterexample;
  const RunResult shown = properties::run_checked(cx);
  fmt::print("verdict: VIOLATED in {} of {} executions{}; the shortest counterexample ({} steps):\n", r.violating, r.executions,
             r.complete ? "" : " explored", shown.outcome.steps);
  fmt::print("faults: {}\n", cx.faults.empty() ? "none" : cx.faults.to_string());
  for (const properties::PropertyResult& pr : shown.properties) {
    if (pr.violated) fmt::print("{} violated at {} step {}: {}\n", pr.property->name, sim::format_instant(pr.violation->at), pr.violation->step, pr.violation->witness);
  }
  fmt::print("\nthe events that matter:\n{}", sim::render_text(properties::cut_trace(shown.events, 80, properties::violation_steps(shown))));
  fmt::print("\nreproduce: {}\n", properties::reproduce_command(cx, o.asserted));
  j["counterexample"] = counterexample_json(cx, shown, o.asserted);
  write_results(f.json, f.html, j, f.junit);
  return exit_status(verdict);
}

namespace {

// --prove for one answer: the sale under the item's profile, asserting its property.
std::string prove_item(const properties::LintItem& it, const std::string& variant, const LintFlags& f, const SeedRange& seeds, unsigned jobs) {
  const FaultsChoice fc{it.profile, {}};
  Scenario probe;
  probe.design = variant;
  probe.workload = to_workload(f.sweep.workload);
  if (auto why = protocols::profile_inapplicable(it.profile, probe)) return fmt::format("{} does not apply: {}", it.profile, *why);
  properties::SweepOptions opt;
  opt.base = sweep_base(scenario_of(variant, fc, seeds.first, f.sweep.workload, f.sweep.horizon, f.sweep.strategy), fc, f.sweep.workload);
  opt.profile = it.profile;
  opt.first_seed = seeds.first;
  opt.seeds = seeds.count;
  opt.jobs = jobs;
  opt.keep_failure_trace = false;
  opt.asserted = {it.property};
  const properties::SweepResult sw = properties::sweep(opt);
  reject_invalid(sw, it.profile);
  const int64_t violated = sw.counts.at(it.property).violated;
  const bool expected = it.level == properties::LintLevel::fail || it.level == properties::LintLevel::warn;
  if (violated == 0) {
    return fmt::format("{} held under {} in {} of {} runs (random executions, not a proof){}", it.property, it.profile, sw.runs, sw.runs,
                       expected ? "; the risk is real but these seeds did not show it" : "");
  }
  return fmt::format("{} {} under {} in {} of {} runs (first seed {}){}\n{:<16}reproduce: {}", it.property, "VIOLATED", it.profile, violated, sw.runs,
                     *sw.first_failing_seed, expected ? "" : "; the checklist missed it", "", properties::reproduce_command(sw.first_failure->scenario, {it.property}));
}

}  // namespace

int lint_command(const LintFlags& f) {
  const std::vector<std::string> listed = variants_flag(f.variants);
  const std::map<std::string, std::string> refused = refused_designs(listed, f.sweep.workload);
  const std::vector<std::string> variants = runnable(listed, refused);
  const protocols::Workload w = to_workload(f.sweep.workload);
  const SeedRange seeds = seeds_flag(f.sweep.seeds, f.sweep.first_seed, f.sweep.first_seed_given, 100'000);
  const unsigned jobs = jobs_flag(f.sweep.jobs);
  sweep_strategy_flag(f.sweep);
  for (const std::string& v : variants) {
    Scenario s;
    s.design = v;
    s.workload = w;
    s.typed = f.sweep.workload.typed;
    if (auto problem = protocols::workload_problem(s, design_flag(v))) throw UsageError(*problem);
  }
  note_unused_flags(variants, f.sweep.workload, f.prove ? faults_list_flag("all") : std::vector<FaultsChoice>{});  // --prove runs profiles
  guard_lint(f);
  int failing = 0, warnings = 0;
  if (variants.size() > 1 && !f.prove) {
    // Many designs: one row each, one column per item.
    const std::vector<properties::LintItem> header = properties::lint(design_flag(variants.front()), w, f.sweep.workload.typed);
    fmt::print("oversim lint: the article's checklist, from what each design declares, for this workload\nworkload: {}\n\n{:<30}", describe_workload(w), "variant");
    for (const auto& it : header) fmt::print(" {:>9}", it.id);
    fmt::print("\n");
    for (const std::string& v : listed) {
      fmt::print("{:<30}", v);
      if (auto why = refused.find(v); why != refused.end()) {
        fmt::print(" does not apply: {}\n", why->second);
        continue;
      }
      for (const auto& it : properties::lint(design_flag(v), w, f.sweep.workload.typed)) {
        fmt::print(" {:>9}", properties::to_string(it.level));
        failing += it.level == properties::LintLevel::fail;
        warnings += it.level == properties::LintLevel::warn;
      }
      fmt::print("\n");
    }
    Scenario as_typed;
    as_typed.workload = w;
    fmt::print("\n{} FAIL, {} WARN. Why, for one design: {} lint --variant <variant>{}; --prove runs the sale to back each answer\n", failing, warnings, program(),
               properties::scenario_flags(as_typed));
    return failing > 0 ? 1 : 0;
  }
  for (const std::string& v : listed) {
    const protocols::Design& d = design_flag(v);
    fmt::print("oversim lint: {}: {}\nworkload: {}\n\n", d.name, d.summary,
               describe_workload(protocols::apply_requirements(w, d.requirements, f.sweep.workload.typed, d.name).workload));
    if (auto why = refused.find(v); why != refused.end()) {
      fmt::print("does not apply: {}\n\n", why->second);
      continue;
    }
    for (const properties::LintItem& it : properties::lint(d, w, f.sweep.workload.typed)) {
      failing += it.level == properties::LintLevel::fail;
      warnings += it.level == properties::LintLevel::warn;
      fmt::print("{:<10} {:<4}  {}?\n", it.id, properties::to_string(it.level), it.question);
      for (const std::string& reason : it.answers) fmt::print("{:<16}{}\n", "", reason);
      if (f.prove && !it.property.empty() && !it.profile.empty()) fmt::print("{:<16}{}\n", "", prove_item(it, v, f, seeds, jobs));
      std::fflush(stdout);  // with --prove each answer took a sweep
    }
    fmt::print("\n");
  }
  fmt::print("{} FAIL, {} WARN{}\n", failing, warnings,
             f.prove ? fmt::format(" (each answer backed by {} seeds of its profile)", seeds.count) : std::string(" (--prove runs the sale to back each answer)"));
  return failing > 0 ? 1 : 0;
}

int report_command(const std::string& result, const std::string& html) {
  check_result_path("--html", html);
  std::ifstream in(result);
  if (!in) throw UsageError(fmt::format("report: cannot read '{}'", result));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw UsageError(fmt::format("report: '{}' is not JSON: {}", result, e.what()));
  }
  if (j.is_object() && j.value("command", "") == "shard") {
    throw UsageError(fmt::format("report: '{}' is one shard of a sweep: `oversim merge` the shards' files (with --html FILE)", result));
  }
  try {
    write_result_file("--html", html, report::render_html(j));
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("report: '{}': {}", result, e.what()));
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("report: '{}' is not a complete oversim result: {}", result, e.what()));
  }
  fmt::print("report: {} drawn from {}\n", html, result);
  return 0;
}

}  // namespace oversim::cli
