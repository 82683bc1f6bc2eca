// A small sale for story tests: a design, a seed, a fault plan as text, and the sale's size.
#pragma once

#include <cstdint>

#include "protocols/simulation.h"
#include "sim/fault_plan.h"

namespace oversim::testing {

inline protocols::Scenario small_sale(const char* design, uint64_t seed, const char* faults, int buyers, int64_t stock, int apps) {
  protocols::Scenario s;
  s.design = design;
  s.seed = seed;
  s.faults = sim::FaultPlan::parse(faults);
  s.workload.buyers = buyers;
  s.workload.stock = stock;
  s.workload.app_nodes = apps;
  return s;
}

}  // namespace oversim::testing
