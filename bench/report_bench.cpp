// What a result costs to keep and show: a counterexample's timeline as data, the result as JSON
// text, and the HTML page drawn from it (report/). The counterexample is the failover oversell at
// 2 buyers (the guide's example), run once outside the timed loop.
#include <benchmark/benchmark.h>

#include "report/html.h"
#include "report/json.h"
#include "report/sweep_state.h"
#include "report/timeline.h"

namespace oversim {
namespace {

const properties::RunResult& failover_run() {
  static const properties::RunResult r = [] {
    protocols::Scenario s;
    s.design = "redis_lock_read_modify_write";
    s.workload.buyers = 2;
    s.workload.stock = 1;
    s.workload.app_nodes = 1;
    s.workload.remote_call = sim::Duration::ms(1500);
    s.workload.lock_ttl = sim::Duration::s(5);
    s.workload.lock_wait = sim::Duration::s(10);
    s.workload.gateway_timeout = sim::Duration::s(15);
    s.faults = sim::FaultPlan::parse("on after_acquire crash redis-1; on after_acquire after 3s restart redis-1");
    return properties::run_checked(s);
  }();
  return r;
}

nlohmann::json check_result() {
  const properties::RunResult& r = failover_run();
  nlohmann::json j = {{"schema", report::kSchema}, {"command", "check"}, {"variant", r.scenario.design}, {"verdict", report::verdict_json(properties::VerdictKind::violated, "random", 1)}};
  j["properties"] = report::properties_json(properties::default_asserted(), [](const properties::Property&) { return nlohmann::json{{"violated", 1}}; });
  j["counterexample"] = report::counterexample_json(r.scenario, r, properties::default_asserted());
  return j;
}

void BM_TimelineJson(benchmark::State& state) {
  const properties::RunResult& r = failover_run();
  for (auto _ : state) benchmark::DoNotOptimize(report::timeline_json(r));
  state.counters["events"] = static_cast<double>(r.events.size());
}
BENCHMARK(BM_TimelineJson)->Unit(benchmark::kMicrosecond);

void BM_ResultJsonText(benchmark::State& state) {
  const nlohmann::json j = check_result();
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string text = j.dump(2);
    bytes = text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_ResultJsonText)->Unit(benchmark::kMicrosecond);

void BM_RenderHtml(benchmark::State& state) {
  const nlohmann::json j = check_result();
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string page = report::render_html(j);
    bytes = page.size();
    benchmark::DoNotOptimize(page.data());
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_RenderHtml)->Unit(benchmark::kMicrosecond);

// A shard file's part (report/sweep_state.h) at the scale the samples make it large: a sweep of
// `state.range(0)` runs of a 10,000-buyer sale's numbers (an answer time per buyer, a lock wait
// per acquisition), written as text, read back and merged into a second shard's: what `oversim
// merge` costs per shard beyond reading the file.
properties::SweepResult big_sweep(int64_t runs) {
  properties::SweepResult sw;
  sw.runs = static_cast<uint64_t>(runs);
  sw.metrics.runs = sw.runs;
  for (int64_t r = 0; r < runs; ++r) {
    for (int64_t b = 0; b < 10'000; ++b) {
      sw.metrics.answer_times.push_back(sim::Duration::us(1'000 + (b * 7'919 + r * 104'729) % 5'000'000));
      sw.metrics.lock_waits.push_back(sim::Duration::us((b * 31 + r) % 200'000));
    }
  }
  return sw;
}

void BM_ShardStateRoundTrip(benchmark::State& state) {
  const properties::SweepResult sw = big_sweep(state.range(0));
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string text = report::sweep_state_json(sw).dump();
    bytes = text.size();
    properties::SweepResult merged = big_sweep(0);
    properties::merge_sweeps(merged, report::sweep_state(nlohmann::json::parse(text)));
    benchmark::DoNotOptimize(merged);
  }
  state.counters["file_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_ShardStateRoundTrip)->Arg(1)->Arg(10)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace oversim

BENCHMARK_MAIN();
