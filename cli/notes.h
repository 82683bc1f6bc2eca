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

// For each workload flag the user typed (WorkloadFlags::typed) that changes nothing for any of
// `variants` with this workload, one line saying why: it configures a service none of them
// builds (--masters on a Redis design, --zk-servers on a database-only one, --lock-ttl without a
// lock), a part of the design they lack (--optimistic-retries without a version check), or a
// part of the sale other flags switched off (--poisson-mean with burst arrivals, --backoff with
// --patience 0, --replication-lag with --redis-replicas 0). A flag whose quantity `faults` scale
// a length by (`pause here for 2x lock-ttl`; every profile scales by lock-ttl) is used by them
// and never noted. Then, for each plan among `faults`, each fault that changes nothing (a clock
// jump of 0, a drift of 0 on a clock nothing drifts).
void note_unused_flags(const std::vector<std::string>& variants, const WorkloadFlags& flags, const std::vector<FaultsChoice>& faults = {});

// The service(s) a workload flag configures, as Setting::service spells them ("redis", "lock",
// "redis,redlock"), or "" for a flag that applies to every sale: every setting row's, and the
// older workload flags' (--masters, --zk-servers, --lock-ttl, --persistence ...).
std::string flag_services(const std::string& flag);

}  // namespace oversim::cli
