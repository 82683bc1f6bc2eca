// Fault points: the named moments a triggered fault waits for (`on after_read pause here for
// 2x lock-ttl`), who marks each, and whether a design's sale can reach it at all. The buyer's
// points are marked by the lock steps (protocols/steps.cpp) and the database client
// (models/db/db_client.cpp); a service's own points by its model (ServiceKind::points).
//
// A plan that waits on an unknown point, or on one no sale of its design can reach (a RedLock
// point on a design without RedLock, a lock point on a design without a lock service, a point
// of a node that never marks it), is refused before the run: its fault would never happen and
// the verdict would read as a pass under a fault. Whether a design's own code reaches a
// database point (a design that never SELECTs the stock never reaches after_read) is not
// declared: the command line probes that (cli/flags.h, note_unreached_points) and says so.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocols/simulation.h"
#include "sim/fault_plan.h"

namespace oversim::protocols {

struct FaultPoint {
  std::string name;
  std::string moment;     // the moment it names
  std::string marked_by;  // "the database client", "the lock steps", "the RedLock client"
  // "" : every sale (the database client); "lock": any lock service; else the service kind.
  std::string service;
};

// Every point: the buyer's (lock steps and database client) in purchase order, then the
// services' own, by name.
const std::vector<FaultPoint>& fault_point_table();
std::vector<std::string> fault_points();
const FaultPoint* find_fault_point(std::string_view name);
// The known point nearest `name` by edit distance, if one is near enough to be a typo.
std::optional<std::string> closest_fault_point(std::string_view name);

// Why no sale of `design` with `w` reaches `point` (on `node`, unless empty), as the words that
// follow "waits on" ("during_acquire, which only the RedLock client marks ..."), or nullopt: the
// point is unknown, belongs to a service the design does not build, is absent from this
// deployment, or is not marked on that node.
std::optional<std::string> point_unreachable(std::string_view point, const std::string& node, const Design& design, const Workload& w);
// Why the triggered fault `f` can never fire in a sale of `design` with `w`: its point is unknown,
// belongs to a service the design does not build, is absent from this deployment, or is not
// marked on the node its `in` names. nullopt for a timed fault or a reachable point.
std::optional<std::string> unreachable_point(const sim::Fault& f, const Design& design, const Workload& w);
// The first such fault of the plan, or nullopt.
std::optional<std::string> plan_point_problem(const sim::FaultPlan& plan, const Design& design, const Workload& w);

}  // namespace oversim::protocols
