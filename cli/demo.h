// The kernel demo: a stock counter on a server node and a few buyers on their own app nodes
// doing read-then-write decrements over RPC, with a GC pause on one buyer. It exercises the
// scheduler, timers, the network, a fault and the trace, and shows the classic lost update
// without any model. Used by `oversim demo` and by the cross-process determinism test.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sim/determinism.h"
#include "sim/fault_plan.h"

namespace oversim::cli {

struct DemoOptions {
  uint64_t seed = 1;
  int buyers = 3;
  int64_t stock = 2;
  sim::FaultPlan faults = sim::FaultPlan::parse("at 1ms pause app-1 for 3ms");
};

struct DemoResult {
  sim::RunRecord record;
  int64_t stock_left = 0;
  int64_t sold = 0;  // decrements the buyers believe succeeded
};

// The demo runs until every buyer is done and every fault has played out.
DemoResult run_demo(const DemoOptions& options);
// Why the demo cannot run these options, or nullopt: an invalid plan, a node the demo does not
// have (stock, app-1..app-N), or a fault past the demo's horizon.
std::optional<std::string> demo_problem(const DemoOptions& options);

}  // namespace oversim::cli
