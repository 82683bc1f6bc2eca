// Named fault profiles. A profile turns a seed into a concrete fault plan (and, for `retries`,
// client misbehaviour) that prints and replays as text. Profiles are protocol-aware: they place
// faults on fault points (a pause right after a buyer acquired its lock, a crash of the Redis
// primary while a write is unreplicated, a lost reply to a COMMIT), never at guessed times.
// Which occurrence of which point is read from the run itself: a probe run of the same sale and
// seed without the profile's faults counts every point, and the run with the fault is identical
// to the probe up to the moment the fault fires, so the fault always happens. How the point and
// occurrence are chosen is the search strategy (Scenario::search).
//
// A profile may widen workload values the fault needs (a failover matters only while the lock
// holder still works when Sentinel promotes the replica) but never one the user typed
// (Scenario::typed): each change, or each value kept as typed, is a line in Scenario::notes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocols/points.h"  // fault_points()
#include "protocols/simulation.h"

namespace oversim::protocols {

struct Profile {
  std::string name;
  std::string summary;
};

const std::vector<Profile>& profiles();
// A profile's name, or a combination of two or more distinct ones joined by '+'
// (gc-pause+failover: every run suffers a fault of each), 'none' and 'chaos' excepted.
bool is_profile(const std::string& name);
std::vector<std::string> combination_parts(const std::string& name);  // "a+b" -> {a, b}; "a" -> {a}
// Why `name` (with a '+') is not a combination, or nullopt.
std::optional<std::string> combination_problem(const std::string& name);

// Named sets of profiles a list flag expands (`--faults redlock`): the faults a lock service's
// own nodes suffer, as the RedLock debate names them.
struct ProfileSet {
  std::string name;
  std::vector<std::string> profiles;
  std::string summary;
};
const std::vector<ProfileSet>& profile_sets();

// What a sale reaches without faults: how often each fault point is reached, and how many
// scheduling decisions it makes (PCT's step estimate).
struct Probe {
  // Every point reached, open or not: a faultless sale's points all come before the heal, so a
  // probe until the heal counts the same.
  std::map<std::string, uint64_t, std::less<>> points;
  // The occurrences while points were open (before the conductor closes them once the sale and
  // its faults are over): the ones a triggered fault can strike.
  std::map<std::string, uint64_t, std::less<>> open_points;
  uint64_t decisions = 0;  // ProbeLength::whole_run only (0 until the heal)
  // The selling window: the occurrences of each point that came while stock remained, as spans
  // of occurrence numbers [first, last] (Simulation::track_window). A fault placed on one of
  // them strikes while there is still something to oversell or undersell; one placed after
  // the sell-out tests nothing of the sale.
  std::map<std::string, std::vector<std::pair<uint64_t, uint64_t>>, std::less<>> window;
  uint64_t in_window(std::string_view point) const;
};
// How far a probe runs. Every count a fault plan is placed by (points, open_points, window)
// is complete at the heal, when the conductor closes the fault points; only `decisions`, the
// schedule choices PCT spreads its change points over, needs the settle time after it.
enum class ProbeLength : uint8_t { until_heal, whole_run };
// Runs `scenario` (its own fault plan included, if any) and counts. Throws std::invalid_argument
// for a scenario that cannot run.
Probe probe(const Scenario& scenario, ProbeLength length = ProbeLength::until_heal);

// Returns `base` with the profile's fault plan (replacing base.faults), its workload changes and
// notes, and its schedule (PCT gets its decision estimate from the probe). Throws
// sim::FaultPlanError when the plan cannot be built, std::invalid_argument for an unknown profile.
Scenario apply_profile(const std::string& profile, Scenario base);

// For a scenario with its own plan: the schedule its search needs (PCT probes the run for its
// decision estimate). Swarm has nothing to vary in a plan: the plan runs as written, uniformly.
Scenario apply_search(Scenario s);

// Why `profile` cannot apply to the scenario's design at all (it needs a role the design's
// services lack: a replica, a lock service), or nullopt. apply_profile then places nothing and
// says this in Scenario::unplaced; sweeps skip the runs.
std::optional<std::string> profile_inapplicable(const std::string& profile, const Scenario& s);

// Whether the profile (or a part of a combination) aims at the lock: its faults strike the lock
// service or a buyer inside its critical section, so on a design with a lock service a run
// that never struck while a lock was held tested nothing of what the profile is about. The
// database-message profiles (slow-rpc, lost-replies, retries) and chaos's mix do not.
bool profile_aims_at_lock(const std::string& profile);


}  // namespace oversim::protocols
