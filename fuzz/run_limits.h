// What the run-command fuzz targets skip: a profile (or PCT) probes the sale by running it once,
// a whole simulation, outside a parser fuzzer's per-input budget when the sale is large.
#pragma once

#include "cli/commands.h"
#include "protocols/profiles.h"

namespace oversim::fuzz {

inline bool probe_too_costly(const cli::RunFlags& flags) {
  const protocols::Workload w = cli::to_workload(flags.workload);
  const bool probes = protocols::is_profile(flags.faults) || flags.strategy.rfind("pct", 0) == 0;
  return probes && (w.buyers > 64 || w.skus > 8 || w.app_nodes > 8 || w.max_retries > 3 || w.lock_wait > sim::Duration::s(5) ||
                    w.remote_call > sim::Duration::s(10));
}

}  // namespace oversim::fuzz
