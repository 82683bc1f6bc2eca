#include "cli/notes.h"

#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "protocols/profiles.h"

namespace oversim::cli {

void note_unreached_points(const protocols::Scenario& s) {
  if (!s.faults.triggered()) return;
  protocols::Scenario faultless = s;
  faultless.faults = {};
  faultless.fault_choices.reset();
  protocols::Probe probe;
  try {
    probe = protocols::probe(faultless);
  } catch (const std::exception&) {
    return;  // the run itself will say what is wrong
  }
  std::set<std::string> said;
  for (const sim::Fault& f : s.faults.faults) {
    if (!f.triggered()) continue;
    const auto it = probe.open_points.find(f.trigger.point);
    const uint64_t reached = it == probe.open_points.end() ? 0 : it->second;
    if (reached >= f.trigger.nth) continue;
    const std::string fault = sim::to_string(f);
    if (!said.insert(fault).second) continue;
    const std::string how = reached == 0 ? fmt::format("never reaches {} while faults can strike", f.trigger.point)
                                         : fmt::format("reaches {} only {} time{} while faults can strike, never a {}", f.trigger.point, reached,
                                                       reached == 1 ? "" : "s", sim::format_ordinal(f.trigger.nth));
    fmt::print(stderr,
               "oversim: --faults: '{}': a faultless run of {} (seed {}) {}: the fault happens only if another fault, a retry or a second click "
               "leads there\n",
               fault, s.design, s.seed, how);
  }
}

}  // namespace oversim::cli
