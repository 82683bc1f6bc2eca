// Scale and speed (issue 31): one sale of 10^3..10^5 buyers per iteration, the canonical seed
// sweeps (checked runs per CPU-second), and what splitting a sweep into jobs costs.
//
// Peak memory is a whole-process figure: docs/performance.md measures it with /usr/bin/time on
// the equivalent `oversim run` commands, which the table there lists beside these times.
#include <benchmark/benchmark.h>

#include "properties/checker.h"

namespace oversim {
namespace {

// Every sweep below starts at fresh seeds: a profile's probe of a seed is cached for the process
// (protocols::probe), and a repeated seed would skip it.
uint64_t fresh_seeds(uint64_t count) {
  static uint64_t next = 1;
  const uint64_t first = next;
  next += count;
  return first;
}

protocols::Scenario sale(const char* design, int64_t buyers) {
  protocols::Scenario s;
  s.design = design;
  s.keep_trace = false;
  s.record_choices = false;
  protocols::Workload& w = s.workload;
  w.buyers = static_cast<int>(buyers);
  w.stock = 1000;
  w.app_nodes = 16;
  return s;
}

// The 100,000-buyer sale of the issue: stock 1,000 on 16 app nodes, the default latencies.
void BM_LargeSaleAtScale(benchmark::State& state, const char* design) {
  uint64_t steps = 0;
  for (auto _ : state) {
    protocols::Scenario s = sale(design, state.range(0));
    const properties::RunResult r = properties::run_checked(s);
    steps += r.outcome.steps;
    benchmark::DoNotOptimize(r.outcome.trace_hash);
  }
  state.counters["steps_per_s"] = benchmark::Counter(static_cast<double>(steps), benchmark::Counter::kIsRate);
  state.counters["steps"] = benchmark::Counter(static_cast<double>(steps) / static_cast<double>(state.iterations()));
}
BENCHMARK_CAPTURE(BM_LargeSaleAtScale, db_conditional_update, "db_conditional_update")
    ->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_LargeSaleAtScale, article_recipe, "article_recipe")
    ->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond)->Iterations(1);

// The polling sale the issue starts from, as `lint` sizes it: stock 100, a remote call of p50
// 200 ms / p99 800 ms, pool 20, lock TTL 2 s, gateway 5 s, patience 2 min, and the default 2 s
// tryLock wait polled every 10 ms (every poll is simulated: the load is the finding; an etcd
// design waits its own default 5 s, watching, not polling).
void BM_PollingSale(benchmark::State& state, const char* design) {
  uint64_t steps = 0;
  for (auto _ : state) {
    protocols::Scenario s = sale(design, state.range(0));
    protocols::Workload& w = s.workload;
    w.stock = 100;
    w.app_nodes = 2;  // the default sale's two app nodes
    w.remote_call_spread = sim::Spread::lognormal;
    w.remote_call = sim::Duration::ms(200);
    w.remote_call_high = sim::Duration::ms(800);
    w.db_pool_size = 20;
    w.lock_ttl = sim::Duration::s(2);
    w.gateway_timeout = sim::Duration::s(5);
    w.patience = sim::Duration::s(120);
    const properties::RunResult r = properties::run_checked(s);
    steps += r.outcome.steps;
    benchmark::DoNotOptimize(r.outcome.trace_hash);
  }
  state.counters["steps_per_s"] = benchmark::Counter(static_cast<double>(steps), benchmark::Counter::kIsRate);
  state.counters["steps"] = benchmark::Counter(static_cast<double>(steps) / static_cast<double>(state.iterations()));
}
BENCHMARK_CAPTURE(BM_PollingSale, redis_lock_conditional, "redis_lock_conditional")
    ->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_PollingSale, zk_lock_conditional, "zk_lock_conditional")
    ->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_PollingSale, etcd_lock_conditional, "etcd_lock_conditional")
    ->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond)->Iterations(1);

// The canonical sale of a sweep: 8 buyers for 5 units under a profile, from fresh seeds.
properties::SweepOptions canonical_sweep(const char* profile, uint64_t seeds) {
  properties::SweepOptions o;
  o.base.design = "redis_lock_conditional";
  o.base.workload.buyers = 8;
  o.base.workload.stock = 5;
  o.profile = profile;
  o.seeds = seeds;
  o.first_seed = fresh_seeds(seeds);
  return o;
}

// The canonical sweep: `check --variant redis_lock_conditional --faults PROFILE --buyers 8
// --stock 5 --jobs 1 --no-shrink`, 500 seeds per iteration (fresh seeds each iteration, so no
// probe is reused). checked_runs_per_s is per CPU-second: one job.
void BM_CanonicalSweep(benchmark::State& state, const char* profile) {
  uint64_t runs = 0;
  for (auto _ : state) {
    const properties::SweepResult r = properties::sweep(canonical_sweep(profile, 500));
    runs += r.runs;
    benchmark::DoNotOptimize(r.violating_runs);
  }
  state.counters["checked_runs_per_s"] = benchmark::Counter(static_cast<double>(runs), benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(BM_CanonicalSweep, gc_pause, "gc-pause")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_CanonicalSweep, failover, "failover")->Unit(benchmark::kMillisecond)->UseRealTime();

// What a job costs beyond its runs: the same 400 seeds run as one sweep and as state.range(0)
// sweeps of consecutive seed ranges, one after another on this thread (a split into that many
// jobs, without the parallelism). The difference per job is its overhead; the seeds' runs are
// identical either way.
void BM_SweepSplit(benchmark::State& state) {
  const auto parts = static_cast<uint64_t>(state.range(0));
  constexpr uint64_t kSeeds = 400;
  uint64_t runs = 0;
  for (auto _ : state) {
    const properties::SweepOptions whole = canonical_sweep("gc-pause", kSeeds);
    for (uint64_t p = 0; p < parts; ++p) {
      properties::SweepOptions o = whole;
      o.first_seed = whole.first_seed + p * kSeeds / parts;
      o.seeds = (p + 1) * kSeeds / parts - p * kSeeds / parts;
      runs += properties::sweep(o).runs;
    }
  }
  state.counters["checked_runs_per_s"] = benchmark::Counter(static_cast<double>(runs), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SweepSplit)->Arg(1)->Arg(2)->Arg(8)->Arg(40)->Unit(benchmark::kMillisecond)->UseRealTime();

// --jobs N on this machine: the canonical sweep, 1,000 seeds, 1 and 2 jobs (wall time).
void BM_SweepJobs(benchmark::State& state) {
  uint64_t runs = 0;
  for (auto _ : state) {
    properties::SweepOptions o = canonical_sweep("gc-pause", 1000);
    o.jobs = static_cast<unsigned>(state.range(0));
    runs += properties::sweep(o).runs;
  }
  state.counters["checked_runs_per_s"] = benchmark::Counter(static_cast<double>(runs), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SweepJobs)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace oversim

BENCHMARK_MAIN();
