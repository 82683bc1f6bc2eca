// rapidcheck generators of sales for a design's property tests (docs/writing-your-design.md):
// workloads, fault plans over the design's own topology, and whole scenarios, so a user writes
// RC_GTEST_PROP over their design with rapidcheck's own shrinking. A failing case prints as the
// `oversim run` command that replays it. Header only; link oversim::rapidcheck.
//
//   RC_GTEST_PROP(MyDesigns, NeverOversells, ()) {
//     const oversim::protocols::Scenario s = *oversim::gen::scenario("my_recipe");
//     RC_ASSERT_FALSE(oversim::properties::run_checked(s).result("no_oversell").violated);
//   }
#pragma once

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <rapidcheck.h>

#include "properties/checker.h"
#include "protocols/registry.h"
#include "protocols/services.h"

namespace oversim::protocols {
// How rapidcheck shows a scenario it found: the command that replays it.
inline void showValue(const Scenario& s, std::ostream& os) { os << properties::reproduce_command(s); }
}  // namespace oversim::protocols

namespace oversim::gen {

// The nodes a generated fault may name, from the design's declared topology
// (Simulation::node_names and roles): "servers" are the lock service's servers (a Redis server,
// a RedLock master, a ZooKeeper or etcd member; the database for a design without a lock
// service), "third" its Sentinel or last master or member.
struct Topology {
  std::vector<std::string> nodes;    // every node
  std::vector<std::string> servers;  // lock servers a fault hits
  std::string third;                 // sentinel, the last master, or "" (then: the fault's app)
  std::string lock_node;             // the lock node, or db
};

inline Topology topology(const std::string& design_name, int apps) {
  protocols::Scenario s;
  s.design = design_name;
  s.workload.app_nodes = apps;
  const protocols::Design& design = *protocols::find_design(design_name);
  Topology t;
  t.nodes = protocols::Simulation::node_names(s, design);
  const protocols::Roles roles = protocols::Simulation::roles(s, design);
  for (const std::string& n : roles.lock_nodes) {
    if (n != "sentinel") t.servers.push_back(n);
  }
  if (t.servers.empty()) t.servers.push_back("db");
  if (roles.lock_nodes.size() > 1) t.third = roles.lock_nodes.back();
  t.lock_node = roles.has_lock_service() ? roles.lock_node : "db";
  return t;
}

// One fault of any kind at any time in the first 3 s (half of them in the first 400 ms, where
// small sales happen) on the topology's nodes.
inline rc::Gen<sim::Fault> fault(int apps, const Topology& topo) {
  return rc::gen::exec([apps, topo] {
    std::vector<std::string> app_names;
    for (int i = 1; i <= apps; ++i) app_names.push_back(fmt::format("app-{}", i));
    const std::string app = *rc::gen::elementOf(app_names);
    const std::vector<std::string>& nodes = topo.nodes;
    const std::string redis = *rc::gen::elementOf(topo.servers);
    const std::string third = topo.third.empty() ? app : topo.third;
    const std::string lock_node = topo.lock_node;
    sim::Fault f;
    const bool early = *rc::gen::arbitrary<bool>();
    f.at = sim::Duration::ms(*rc::gen::inRange<int64_t>(0, early ? 400 : 3000));
    switch (*rc::gen::inRange(0, 11)) {
      case 0:
        f.kind = sim::FaultKind::pause;
        f.node = *rc::gen::elementOf(std::vector<std::string>{app, redis, "db"});
        f.length = sim::Duration::ms(*rc::gen::inRange<int64_t>(1, 3000));
        break;
      case 1:
        f.kind = sim::FaultKind::crash;
        f.node = *rc::gen::elementOf(std::vector<std::string>{app, redis, third});
        break;
      case 2:
        f.kind = sim::FaultKind::restart;
        f.node = *rc::gen::elementOf(std::vector<std::string>{app, redis, third});
        break;
      case 3:
        f.kind = sim::FaultKind::clock_jump;
        f.node = *rc::gen::elementOf(std::vector<std::string>{app, redis});
        f.length = sim::Duration::ms(*rc::gen::inRange<int64_t>(-2000, 3000));
        break;
      case 4:
        f.kind = sim::FaultKind::clock_drift;
        f.node = *rc::gen::elementOf(std::vector<std::string>{app, redis});
        f.drift_ppm = *rc::gen::inRange<int64_t>(-500'000, 500'000);
        break;
      case 5: {
        f.kind = sim::FaultKind::partition;
        // A random split of the nodes into two non-empty sides.
        const auto mask = *rc::gen::inRange<uint32_t>(1, (1u << nodes.size()) - 1);
        for (size_t i = 0; i < nodes.size(); ++i) ((mask >> i) & 1u ? f.side_a : f.side_b).push_back(nodes[i]);
        break;
      }
      case 6:
        f.kind = sim::FaultKind::isolate;
        f.node = *rc::gen::elementOf(std::vector<std::string>{app, redis, third, "db"});
        break;
      case 7:
        f.kind = sim::FaultKind::delay_next;
        f.node = app;
        f.to = *rc::gen::elementOf(std::vector<std::string>{"db", lock_node});
        f.length = sim::Duration::ms(*rc::gen::inRange<int64_t>(1, 3000));
        break;
      case 8:
        f.kind = sim::FaultKind::hold;
        f.node = *rc::gen::elementOf(std::vector<std::string>{app, "db", redis});
        f.to = f.node == app ? *rc::gen::elementOf(std::vector<std::string>{"db", lock_node}) : app;
        f.length = sim::Duration::ms(*rc::gen::inRange<int64_t>(1, 3000));
        break;
      case 9:
        f.kind = sim::FaultKind::cut;
        f.node = *rc::gen::elementOf(std::vector<std::string>{"db", lock_node});
        f.to = app;
        break;
      default:
        f.kind = sim::FaultKind::heal;
        break;
    }
    return f;
  });
}

// 0..5 faults on the design's topology with `apps` app nodes, in time order.
inline rc::Gen<sim::FaultPlan> fault_plan(const std::string& design, int apps) {
  return rc::gen::exec([design, apps] {
    sim::FaultPlan plan;
    plan.faults = *rc::gen::container<std::vector<sim::Fault>>(*rc::gen::inRange<size_t>(0, 5), fault(apps, topology(design, apps)));
    // Time order, as a plan reads; the kernel orders faults at one instant by the strategy.
    std::stable_sort(plan.faults.begin(), plan.faults.end(), [](const sim::Fault& a, const sim::Fault& b) { return a.at < b.at; });
    return plan;
  });
}

// The shortest --lock-ttl the design's services accept (at least 50 ms).
inline int64_t shortest_lock_ttl_ms(const std::string& design) {
  int64_t ms = 50;
  for (const std::string& service : protocols::find_design(design)->services) {
    if (const protocols::ServiceKind* k = protocols::find_service_kind(service)) ms = std::max(ms, k->shortest_lock_ttl.count_ms());
  }
  return ms;
}

// A small sale: 1..9 buyers of 1..3 SKUs with 1..5 units each, on 1..3 app nodes, a lease the
// design's services accept (up to 2 s, or their shortest), a remote call of 0..300 ms, 0..2
// gateway retries.
inline rc::Gen<protocols::Workload> workload(const std::string& design) {
  return rc::gen::exec([design] {
    protocols::Workload w;
    w.buyers = *rc::gen::inRange(1, 9);
    w.stock = *rc::gen::inRange<int64_t>(1, 5);
    w.skus = *rc::gen::inRange(1, 3);
    w.app_nodes = *rc::gen::inRange(1, 3);
    const int64_t shortest = shortest_lock_ttl_ms(design);
    w.lock_ttl = sim::Duration::ms(*rc::gen::inRange<int64_t>(shortest, std::max<int64_t>(2000, shortest + 1)));
    w.remote_call = sim::Duration::ms(*rc::gen::inRange<int64_t>(0, 300));
    w.max_retries = *rc::gen::inRange(0, 2);
    return w;
  });
}

// A whole scenario of `design`: a seed, a workload and a fault plan over its topology.
inline rc::Gen<protocols::Scenario> scenario(const std::string& design) {
  return rc::gen::exec([design] {
    protocols::Scenario s;
    s.design = design;
    s.keep_trace = false;
    s.seed = *rc::gen::inRange<uint64_t>(1, 1'000'000);
    s.workload = *workload(design);
    s.faults = *fault_plan(design, s.workload.app_nodes);
    return s;
  });
}

}  // namespace oversim::gen
