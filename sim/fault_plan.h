// A fault plan is data: a list of faults with a text form that prints and parses back, so a
// plan can be typed on the command line, stored next to a seed, generated and shrunk by
// rapidcheck, and printed in a reproduce command. A fault comes at a time (an offset from the
// start of the run) or on a fault point: the nth time a fiber reaches a named point in the
// protocol (`after_acquire`, `before_commit`) or a model reports an event (`write_unreplicated`),
// optionally only on one node and after a delay. A triggered fault may name `here`, the node that
// reached the point, and a length may be a multiple of a named workload quantity (`2x lock-ttl`),
// resolved when the run starts (FaultPlan::resolved).
//
//   at 1s pause app-1 for 4s            stop-the-world pause (GC), resumes by itself
//   at 2s crash redis-1                 kill the process (volatile state is lost)
//   at 3s restart redis-1               boot it again
//   at 2s partition a,b | c,d           drop messages between the two sides, both ways
//   at 2s isolate redis-1               partition one node from everyone
//   at 2s cut app-1 -> db               drop messages one way only
//   at 5s heal                          remove every partition and cut
//   at 1s clock-jump redis-2 +2s        step the node's local clock (negative: backwards)
//   at 1s clock-drift redis-2 +200ppm   set the node's clock rate error
//   at 1s delay-next app-1 -> db by 5s  the next message on that link arrives 5s later
//   at 1s hold app-1 -> db for 2s       queue the link's messages, deliver them after 2s
//   on after_acquire pause here for 1.5x lock-ttl        the first lock holder's process pauses
//   on 3rd before_commit in app-2 crash here             app-2 dies before its buyer's COMMIT
//   on write_unreplicated in redis-1 after 3s restart redis-1
//
// Faults are separated by newlines or ';'; '#' starts a comment that runs to the end of its line.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sim/time.h"

namespace oversim::sim {

class World;
class Node;

enum class FaultKind : uint8_t { pause, crash, restart, partition, isolate, cut, heal, clock_jump, clock_drift, delay_next, hold };
const char* to_string(FaultKind kind);

// When a triggered fault comes: the nth time `point` is reached (on `node`, or on any node).
struct Trigger {
  std::string point;  // empty: the fault comes at an absolute time
  std::string node;   // "" : occurrences on every node count
  uint32_t nth = 1;
  friend bool operator==(const Trigger&, const Trigger&) = default;
};

// A length written as a multiple of a named quantity ("1.5x lock-ttl"): milli = 1500.
struct Scale {
  int64_t milli = 0;
  std::string quantity;  // empty: the length is written as a fixed duration
  friend bool operator==(const Scale&, const Scale&) = default;
};

// The named quantities a run resolves scaled lengths against (the workload's lock TTL, ...).
struct Quantity {
  std::string name;
  Duration value;
};
using Quantities = std::vector<Quantity>;

// The node a triggered fault means by `here`: the one whose fiber reached the point.
inline constexpr const char* kHere = "here";

struct Fault {
  Duration at;                      // absolute time, or the delay after the trigger
  Trigger trigger;
  FaultKind kind = FaultKind::heal;
  std::string node;                 // the subject, or the sending side of a link
  std::string to;                   // the receiving side of a link
  std::vector<std::string> side_a;  // partition
  std::vector<std::string> side_b;
  Duration length;                  // pause for, hold for, delay by, jump by (resolved, when scaled)
  Scale scale;
  int64_t drift_ppm = 0;
  bool triggered() const { return !trigger.point.empty(); }
  friend bool operator==(const Fault&, const Fault&) = default;
};

struct FaultPlanError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What a plan may say. Every limit keeps virtual time and every node's local clock far inside
// int64 nanoseconds, so no fault can overflow a clock; a plan past a limit is rejected, never
// wrapped or clamped.
inline constexpr Duration kMaxFaultTime = Duration::s(30LL * 24 * 3600);       // `at` at most 720h
inline constexpr Duration kMaxFaultLength = Duration::s(30LL * 24 * 3600);     // a pause, hold, delay or jump
inline constexpr Duration kMaxClockJumpsPerNode = Duration::s(3650LL * 24 * 3600);  // |jumps| summed per node
inline constexpr size_t kMaxFaults = 100'000;
inline constexpr int64_t kMinDriftPpm = -999'999;  // the clock still advances
inline constexpr int64_t kMaxDriftPpm = 1'000'000;  // twice as fast
inline constexpr uint32_t kMaxTriggerNth = 1'000'000'000;
inline constexpr int64_t kMaxScaleMilli = 1'000'000;  // at most 1000x a quantity

struct FaultPlan {
  std::vector<Fault> faults;

  // Throws FaultPlanError naming the offending fault. A plan that parses is valid().
  static FaultPlan parse(std::string_view text);
  // The first thing wrong with a plan built in code (out-of-range times, a node partitioned
  // from itself, a link from a node to itself, empty names, too many jumps), or nullopt.
  std::optional<std::string> problem() const;
  // The first fault naming a node outside `nodes`, as a message listing them, or nullopt.
  std::optional<std::string> unknown_node(const std::vector<std::string>& nodes) const;
  std::string to_string() const;  // canonical: "at 1s pause app-1 for 4s; at 2s heal"
  bool empty() const { return faults.empty(); }
  bool triggered() const;  // some fault comes on a fault point
  // The plan with every scaled length computed from `quantities` (the text form is kept).
  // Throws FaultPlanError naming an unknown quantity or a length past the limits.
  FaultPlan resolved(const Quantities& quantities) const;
  // When the last timed fault has played out (a pause's resume, a hold's release included).
  // Triggered faults are not known in advance: World::faults_settle_at() adds them as they fire.
  Duration settled_at() const;
  // Schedules every timed fault as a timer in `world` and arms every triggered one on the
  // world's fault points. Throws FaultPlanError for an unknown node, an unresolved scaled length
  // or an invalid plan, before anything is scheduled.
  void apply(World& world) const;
  friend bool operator==(const FaultPlan&, const FaultPlan&) = default;
};

std::string to_string(const Fault& fault);
// "3rd", "11th", "22nd": the ordinal of a trigger, as plans print it.
std::string format_ordinal(uint64_t n);
// "1.5x" for 1500 thousandths: a multiple, as plans print it (up to three decimals).
std::string format_multiple(int64_t milli);
// Every node the fault names, in the order the text names them.
std::vector<std::string> named_nodes(const Fault& fault);
// What is wrong with one fault on its own, or nullopt.
std::optional<std::string> fault_problem(const Fault& fault);

// Fire a triggered fault now, for the occurrence node `at` just reached (nullptr: the world):
// `here` becomes that node, the fault's delay counts from now, and the world learns when it
// settles. Plans' armed triggers and the exhaustive explorer both come through here. Returns
// false (and traces fault-skipped) when the fault names `here` and no node reached the point.
bool fire_triggered(World& world, Fault fault, const std::string& text, Node* at);

// Undo every lasting fault: heal the network, resume paused nodes, restart crashed ones, clear
// clock drift (jumps stay: a clock that jumped does not jump back by itself). Used before
// checking "eventually" properties.
void heal_everything(World& world);

}  // namespace oversim::sim
