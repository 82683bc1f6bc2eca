// Time to the first violation: for each known-unsafe design under the profile that targets its
// flaw, at the default workload and at a large one (200 buyers, 100 units, an 800ms call under a
// 3s lease, a 5s gateway timeout), how many executions and how much wall time each search strategy needs before a run
// violates the design's broken property. One iteration is one search from seed 1 (the sweep's
// stop-at-first, one job); counters report the executions it took.
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "properties/checker.h"

namespace oversim {
namespace {

struct Target {
  const char* design;
  const char* profile;
  std::vector<std::string> properties;  // what the flaw breaks (any of them counts)
};

void BM_FirstViolation(benchmark::State& state, Target t, protocols::Search::Kind kind, bool large) {
  properties::SweepOptions opt;
  opt.base.design = t.design;
  opt.base.search.kind = kind;
  if (large) {
    opt.base.workload.buyers = 200;
    opt.base.workload.stock = 100;
    opt.base.workload.remote_call = sim::Duration::ms(800);
    opt.base.workload.lock_ttl = sim::Duration::s(3);
    // A gateway that waits longer than the call: with the 300ms default no buyer could hear
    // "sold" for an 800ms purchase (the CLI says so), and no acknowledged order could be lost.
    opt.base.workload.gateway_timeout = sim::Duration::s(5);
    opt.base.typed = {"--buyers", "--stock", "--remote-call", "--lock-ttl", "--gateway-timeout"};
  }
  opt.profile = t.profile;
  opt.seeds = 100;
  opt.jobs = 1;
  opt.asserted = t.properties;
  opt.stop_at_first = true;
  uint64_t executions = 0;
  bool found = false;
  for (auto _ : state) {
    const properties::SweepResult sw = properties::sweep(opt);
    executions = sw.runs;
    found = sw.first_failing_seed.has_value();
    benchmark::DoNotOptimize(sw.runs);
  }
  state.counters["executions"] = static_cast<double>(executions);
  state.counters["found"] = found ? 1 : 0;
}

// A lost update oversells only once the stock runs out; in a sale that does not sell out (busy
// buyers give up: 200 buyers, 2s lock waits, 800ms calls) it shows as stock + sold != initial.
const std::vector<std::string> kStock = {"no_oversell", "ledger_conservation"};
const Target kTargets[] = {
    {"read_modify_write", "none", kStock},
    {"redis_lock_read_modify_write", "gc-pause", kStock},
    {"redis_lock_plain_del", "gc-pause", {"no_foreign_unlock"}},
    {"redis_lock_watchdog", "gc-pause", kStock},
    {"redis_fenced_stale_read", "gc-pause", kStock},
    {"redis_lock_read_modify_write", "failover", kStock},
    {"redis_lock_read_modify_write", "clock-jump", kStock},
    {"async_order_write", "app-crash", {"no_lost_order"}},
    {"db_conditional_update", "retries", {"no_duplicate_order"}},
};

std::string fmt_name(const Target& t, const char* strategy, bool large) {
  return std::string("FirstViolation/") + t.design + "/" + t.profile + "/" + strategy + (large ? "/large" : "/default");
}

// The shrink alone, for the cases issue 29 names: the first failing seed of check (swarm, as
// check runs a profile), found once outside the timed loop, then shrunk with check's settings;
// counters report the shrunk sale's buyers and protocol events.
struct ShrinkCase {
  const char* design;
  const char* profile;
  std::vector<std::string> asserted;
};

void BM_Shrink(benchmark::State& state, ShrinkCase c) {
  properties::SweepOptions opt;
  opt.base.design = c.design;
  opt.base.search.kind = protocols::Search::Kind::swarm;
  opt.profile = c.profile;
  opt.seeds = 200;
  opt.jobs = 1;
  opt.asserted = c.asserted;
  opt.stop_at_first = true;
  const properties::SweepResult sw = properties::sweep(opt);
  if (!sw.first_failure) {
    state.SkipWithError("no failing seed");
    return;
  }
  const properties::RunResult& first = *sw.first_failure;
  std::vector<std::string> failed;
  for (const std::string& p : c.asserted) {
    const bool broken = first.result(p).violated;
    if (broken) failed.push_back(p);
  }
  properties::ShrinkOptions options;
  options.budget_runs = 600;
  options.profile = c.profile;
  protocols::Scenario small;
  for (auto _ : state) {
    small = properties::shrink(first.scenario, failed, options);
    benchmark::DoNotOptimize(small.seed);
  }
  small.keep_trace = true;
  state.counters["buyers"] = small.workload.buyers;
  state.counters["events"] = static_cast<double>(properties::protocol_events(properties::run_checked(small).events));
}

bool register_all() {
  const std::vector<std::string> business = properties::default_asserted();
  for (const ShrinkCase& c : std::vector<ShrinkCase>{{"redis_lock_conditional", "clock-jump", {"lock_mutual_exclusion"}},
                                                      {"db_conditional_update", "retries", {"no_duplicate_order"}},
                                                      {"redlock_read_modify_write", "clock-jump", business},
                                                      {"redlock_read_modify_write", "clock-drift", business},
                                                      {"redlock_read_modify_write", "lock-restart", business},
                                                      {"redlock_read_modify_write", "acquire-pause", business},
                                                      {"redlock_no_validity_check", "clock-jump", business},
                                                      {"redlock_no_validity_check", "clock-drift", business},
                                                      {"redlock_no_validity_check", "lock-restart", business},
                                                      {"redlock_no_validity_check", "acquire-pause", business}}) {
    benchmark::RegisterBenchmark((std::string("Shrink/") + c.design + "/" + c.profile).c_str(), BM_Shrink, c)->Unit(benchmark::kMillisecond)->Iterations(1);
  }
  const std::pair<const char*, protocols::Search::Kind> kinds[] = {
      {"random", protocols::Search::Kind::random}, {"pct", protocols::Search::Kind::pct}, {"swarm", protocols::Search::Kind::swarm}};
  for (bool large : {false, true}) {
    for (const Target& t : kTargets) {
      for (const auto& [name, kind] : kinds) {
        benchmark::RegisterBenchmark(fmt_name(t, name, large).c_str(), BM_FirstViolation, t, kind, large)->Unit(benchmark::kMillisecond)->Iterations(1);
      }
    }
  }
  return true;
}
const bool registered = register_all();

}  // namespace
}  // namespace oversim

BENCHMARK_MAIN();
