// Named fault profiles. A profile turns a seed into a concrete fault plan (and, for `retries`,
// client misbehaviour), drawn from its own stream so the plan can be printed and replayed as
// text. Times are chosen inside the sale window, where locks are held.
#pragma once

#include <string>
#include <vector>

#include "protocols/simulation.h"

namespace oversim::protocols {

struct Profile {
  std::string name;
  std::string summary;
};

const std::vector<Profile>& profiles();
bool is_profile(const std::string& name);
// Returns `base` with the profile's fault plan (replacing base.faults) and workload changes.
Scenario apply_profile(const std::string& profile, Scenario base);

}  // namespace oversim::protocols
