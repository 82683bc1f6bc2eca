// The exhaustive explorer: every execution within stated bounds.
#include <cstdlib>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "properties/explore.h"

namespace oversim {
namespace {

properties::ExploreOptions bounds(const std::string& design, int buyers, int faults) {
  properties::ExploreOptions o;
  o.base.design = design;
  o.base.workload.buyers = buyers;
  o.base.workload.stock = 1;
  o.base.workload.burst_window = sim::Duration::zero();
  o.base.workload.latency_min = sim::Duration::us(200);
  o.base.workload.latency_max = sim::Duration::us(200);
  o.base.workload.latency_tail = false;
  o.faults = sim::FaultPlan::parse("on after_acquire pause here for 1.5x lock-ttl").faults;
  o.max_faults = faults;
  return o;
}

TEST(Explore, Measure) {
  const int lo = std::getenv("LO") ? std::atoi(std::getenv("LO")) : 2;
  const int hi = std::getenv("HI") ? std::atoi(std::getenv("HI")) : 3;
  for (const char* d : {"redis_lock_conditional", "redis_lock_read_modify_write"}) {
    for (int b = lo; b <= hi; ++b) {
      for (int f = 1; f <= 1; ++f) {
        properties::ExploreOptions o = bounds(d, b, f);
        o.max_executions = std::getenv("MAX") ? std::strtoull(std::getenv("MAX"), nullptr, 10) : 20000;
        const properties::ExploreResult r = properties::explore(o);
        fmt::print("{} buyers={} faults={}: executions {} violating {} complete {} longest {} fixed {} wall {:.2f}s\n", d, b, f, r.executions, r.violating,
                   r.complete, r.longest, r.fixed_draws, static_cast<double>(r.wall_ns) / 1e9);
      }
    }
  }
}

}  // namespace
}  // namespace oversim
namespace oversim {
TEST(Explore, Dump) {
  properties::ExploreOptions o = bounds("redis_lock_conditional", std::getenv("B") ? std::atoi(std::getenv("B")) : 2, 1);
  protocols::Scenario s = o.base;
  s.fault_choices = protocols::FaultChoices{{}, {}, 1};
  sim::FaultPlan one;
  one.faults.push_back(o.faults.front());
  s.fault_choices->faults.push_back(one.resolved(protocols::quantities(s.workload)).faults.front());
  std::vector<uint64_t> prefix;
  {
    auto* raw = new sim::ExploreStrategy({}, 16);
    const properties::RunResult r = properties::run_checked(s, std::unique_ptr<sim::Strategy>(raw));
    const int want = std::getenv("K") ? std::atoi(std::getenv("K")) : 1;
    int seen = 0;
    for (size_t i = 0; i < r.choices.size(); ++i) {
      if (r.choices[i].kind == sim::ChoiceKind::fault && ++seen == want) {
        for (size_t k = 0; k < i; ++k) prefix.push_back(r.choices[k].value);
        prefix.push_back(1);
        break;
      }
    }
  }
  fmt::print("PREFIX {}\n", prefix.size());
  auto* raw = new sim::ExploreStrategy(prefix, 16);
  const properties::RunResult r = properties::run_checked(s, std::unique_ptr<sim::Strategy>(raw));
  std::string line;
  for (size_t i = 0; i < r.choices.size(); ++i) {
    const auto& c = r.choices[i];
    if (raw->walked()[i].size() > 1) line += fmt::format("#{}:{}{}/{}w{} ", i, sim::to_string(c.kind)[0], c.value, c.bound, raw->walked()[i].size());
  }
  fmt::print("{}\n", line);
}
}
