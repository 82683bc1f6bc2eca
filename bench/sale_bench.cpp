// Whole-sale benchmarks: one simulated flash sale (the default workload: 20 buyers, 5 units,
// Redis primary + replica + sentinel, a database, two app nodes) per iteration, checked against
// every property, as a seed sweep runs it. Reports sales per second and simulated orders per
// wall-clock second.
#include <benchmark/benchmark.h>

#include "properties/checker.h"

namespace oversim {
namespace {

void BM_CheckedSale(benchmark::State& state, const char* design, const char* profile) {
  uint64_t seed = 1;
  int64_t acks = 0;
  uint64_t steps = 0;
  for (auto _ : state) {
    protocols::Scenario s;
    s.design = design;
    s.seed = seed++;
    s.keep_trace = false;
    s = protocols::apply_profile(profile, s);
    const properties::RunResult r = properties::run_checked(s);
    acks += r.acks;
    steps += r.outcome.steps;
    benchmark::DoNotOptimize(r.outcome.trace_hash);
  }
  state.counters["sales_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["steps_per_s"] = benchmark::Counter(static_cast<double>(steps), benchmark::Counter::kIsRate);
  state.counters["orders_per_s"] = benchmark::Counter(static_cast<double>(acks), benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(BM_CheckedSale, db_conditional_update_none, "db_conditional_update", "none")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CheckedSale, redis_lock_conditional_gc_pause, "redis_lock_conditional", "gc-pause")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CheckedSale, article_recipe_chaos, "article_recipe", "chaos")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CheckedSale, redlock_conditional_gc_pause, "redlock_conditional", "gc-pause")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CheckedSale, zk_lock_conditional_none, "zk_lock_conditional", "none")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CheckedSale, zk_lock_conditional_gc_pause, "zk_lock_conditional", "gc-pause")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CheckedSale, zk_lock_conditional_failover, "zk_lock_conditional", "failover")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CheckedSale, zk_herd_lock_none, "zk_herd_lock", "none")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CheckedSale, etcd_lock_conditional_none, "etcd_lock_conditional", "none")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CheckedSale, etcd_lock_conditional_gc_pause, "etcd_lock_conditional", "gc-pause")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CheckedSale, etcd_lock_conditional_failover, "etcd_lock_conditional", "failover")->Unit(benchmark::kMillisecond);

// What a group of Sentinels costs: the Redis lock under the failover profile with 1, 3 and 5
// sentinels (each pings every server, asks its peers while the primary is down, and sends hellos).
void BM_SentinelGroup(benchmark::State& state) {
  uint64_t seed = 1;
  uint64_t steps = 0;
  for (auto _ : state) {
    protocols::Scenario s;
    s.design = "redis_lock_conditional";
    s.seed = seed++;
    s.keep_trace = false;
    s.workload.sentinels = static_cast<int>(state.range(0));
    s = protocols::apply_profile("failover", s);
    const properties::RunResult r = properties::run_checked(s);
    steps += r.outcome.steps;
    benchmark::DoNotOptimize(r.outcome.trace_hash);
  }
  state.counters["sales_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["steps_per_sale"] = benchmark::Counter(static_cast<double>(steps) / static_cast<double>(state.iterations()));
}
BENCHMARK(BM_SentinelGroup)->Arg(1)->Arg(3)->Arg(5)->Unit(benchmark::kMillisecond);

// A bigger sale: 1,000 buyers for 100 units on 8 app nodes.
void BM_LargeSale(benchmark::State& state) {
  uint64_t seed = 1;
  for (auto _ : state) {
    protocols::Scenario s;
    s.design = "article_recipe";
    s.seed = seed++;
    s.keep_trace = false;
    s.workload.buyers = 1000;
    s.workload.stock = 100;
    s.workload.app_nodes = 8;
    s.workload.lock_wait = sim::Duration::s(30);
    s.workload.gateway_timeout = sim::Duration::s(60);
    benchmark::DoNotOptimize(properties::run_checked(s).outcome.trace_hash);
  }
  state.counters["sales_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_LargeSale)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace oversim

BENCHMARK_MAIN();
