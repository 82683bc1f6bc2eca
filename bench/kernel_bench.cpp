// Kernel benchmarks: virtual-time timer events per second and fiber switches per second at 10,
// 1,000 and 10,000 fibers, resident bytes per parked fiber, and network messages per second
// with 100 to 100,000 in flight at once. Trace events and choice
// recording are off, as in a seed sweep; the strategy is the seeded random one.
#include <cstdio>
#include <fstream>

#include <benchmark/benchmark.h>
#include <unistd.h>

#include "sim/network.h"
#include "sim/sync.h"
#include "sim/world.h"

namespace oversim::sim {
namespace {

WorldConfig bench_config() {
  WorldConfig c;
  c.seed = 1;
  c.keep_trace = false;
  c.record_choices = false;
  c.horizon = Duration::s(1'000'000);
  c.max_steps = UINT64_MAX;
  return c;
}

// Reports `per_iteration` items of each iteration as a rate, under `counter` too.
void report_rate(benchmark::State& state, int64_t per_iteration, const char* counter) {
  const int64_t items = static_cast<int64_t>(state.iterations()) * per_iteration;
  state.SetItemsProcessed(items);
  state.counters[counter] = benchmark::Counter(static_cast<double>(items), benchmark::Counter::kIsRate);
}

// Each fiber sleeps `rounds` times for a fiber-specific period: almost every wake-up is a
// distinct timer event, so this measures timer heap + park/wake + two switches per event.
void BM_TimerEvents(benchmark::State& state) {
  const auto fibers = static_cast<int64_t>(state.range(0));
  const int64_t total_events = 1'000'000;
  const int64_t rounds = total_events / fibers;
  for (auto _ : state) {
    World w(bench_config());
    for (int64_t f = 0; f < fibers; ++f) {
      const Duration period = Duration::ns(1000 + (f * 7919) % 100'000);
      w.spawn(nullptr, "sleeper", [rounds, period] {
        for (int64_t r = 0; r < rounds; ++r) sleep_for(period);
      });
    }
    benchmark::DoNotOptimize(w.run());
  }
  report_rate(state, rounds * fibers, "timer_events_per_s");
}
BENCHMARK(BM_TimerEvents)->Arg(10)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

// Every fiber yields in a loop: each step is a strategy draw over the ready fibers plus a switch.
void BM_FiberSwitches(benchmark::State& state) {
  const auto fibers = static_cast<int64_t>(state.range(0));
  const int64_t total_switches = 1'000'000;
  const int64_t rounds = total_switches / fibers;
  for (auto _ : state) {
    World w(bench_config());
    for (int64_t f = 0; f < fibers; ++f) {
      w.spawn(nullptr, "yielder", [rounds] {
        for (int64_t r = 0; r < rounds; ++r) yield();
      });
    }
    benchmark::DoNotOptimize(w.run());
  }
  report_rate(state, rounds * fibers, "switches_per_s");
}
BENCHMARK(BM_FiberSwitches)->Arg(10)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

// A client sends `in_flight` messages at once (each a 40-byte summary and a std::any body, as a
// model's command is), a server takes them off its mailbox, for 1,000,000 messages in all: the
// per-message cost of the network (latency draw, delivery timer, the message's slot, the
// mailbox) when a crowd of messages is pending, as at an overloaded Redis.
void BM_MessagesInFlight(benchmark::State& state) {
  const auto in_flight = static_cast<int64_t>(state.range(0));
  const int64_t total = 1'000'000;
  const int64_t rounds = total / in_flight;
  for (auto _ : state) {
    World w(bench_config());
    Node& client = w.add_node("client");
    Node& server = w.add_node("server");
    w.spawn(&server, "server", [&server, total] {
      for (int64_t i = 0; i < total; ++i) benchmark::DoNotOptimize(server.mailbox("sink").receive());
    });
    w.spawn(&client, "client", [&w, &client, &server, rounds, in_flight] {
      for (int64_t r = 0; r < rounds; ++r) {
        for (int64_t i = 0; i < in_flight; ++i) {
          w.network().send(client, server, "sink", std::any(std::string("SET lock:stock:sku1 tok-1-0000 NX PX 2000")),
                           "SET lock:stock:sku1 tok-1-0000 NX PX 2000");
        }
        sleep_for(Duration::ms(10));  // every message of this round arrives (at most 5 ms)
      }
    });
    benchmark::DoNotOptimize(w.run());
  }
  report_rate(state, rounds * in_flight, "messages_per_s");
}
BENCHMARK(BM_MessagesInFlight)->Arg(100)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

long resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  long size = 0, resident = 0;
  statm >> size >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}

// Resident memory added by 10,000 fibers parked on an event (each has run and touched its stack).
void BM_ResidentBytesPerParkedFiber(benchmark::State& state) {
  const int64_t fibers = 10'000;
  double per_fiber = 0;
  for (auto _ : state) {
    World w(bench_config());
    Event release;
    long before = 0, during = 0;
    w.spawn(nullptr, "measure", [&] {
      before = resident_bytes();
      for (int64_t f = 0; f < fibers; ++f) w.spawn(nullptr, "parked", [&release] { release.wait(); });
      yield();  // let every parked fiber start and park
      during = resident_bytes();
      release.set();
    });
    w.run();
    per_fiber = static_cast<double>(during - before) / static_cast<double>(fibers);
  }
  state.counters["resident_bytes_per_fiber"] = per_fiber;
}
BENCHMARK(BM_ResidentBytesPerParkedFiber)->Iterations(3)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace oversim::sim

BENCHMARK_MAIN();
