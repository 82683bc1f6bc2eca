// What a command says on stderr before it runs, one line each, about input that is valid but may
// not mean what it says: planned faults a faultless run of the sale never reaches, and flags or
// faults that change nothing for the chosen designs and command. Notes never change a run.
#pragma once

#include <string>
#include <vector>

#include "cli/flags.h"
#include "protocols/simulation.h"

namespace oversim::cli {

// For each triggered fault of `s`'s plan: when a faultless probe of the same sale and seed
// (protocols::probe) never reaches its point, or reaches it fewer times than its occurrence, one
// line saying so. Not a refusal: a retry, a second click or another fault may lead there. (A point
// no sale of the design can reach is refused before this: protocols/points.h.)
void note_unreached_points(const protocols::Scenario& s);

}  // namespace oversim::cli
