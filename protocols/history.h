// What the clients believed and were told, recorded as the run goes: lock holdings as each
// client believed them (in true time), orders acknowledged to buyers, and counters. Properties
// compare this with the databases' committed state.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/time.h"

namespace oversim::protocols {

struct LockBelief {
  std::string key;
  std::string holder;  // the buyer's request id and attempt, e.g. "r3#1"
  std::string token;
  sim::Instant acquired;
  uint64_t acquired_step = 0;
  sim::Instant released = sim::Instant::max();  // when the client stopped believing it held it
  sim::Duration ttl;                            // the lease it asked for (0: none)
  // When the client's lease runs out by its own reckoning: acquired + ttl for a lock whose
  // lease starts when it is granted; RedLock's validity, from the end of its round, which may
  // already be past (a late quorum taken without the validity test). Instant::max(): no lease.
  sim::Instant lease_ends = sim::Instant::max();
  std::string node;  // the holder's app node
};

struct OrderAck {
  std::string order_id;
  std::string user;
  std::string sku;
  std::string request_id;
  sim::Instant at;
};

enum class BuyResult : uint8_t { sold, sold_out, busy, unknown, failed };
const char* to_string(BuyResult r);

struct History {
  std::vector<LockBelief> locks;
  std::vector<OrderAck> acks;
  std::map<std::string, int64_t> counters;  // "lock.contended", "retry.gateway", ...
  std::map<BuyResult, int64_t> results;
  std::vector<sim::Duration> order_latencies;  // request arrival to acknowledgement
  sim::Instant sale_ended_at = sim::Instant::max();  // when the last buyer got an answer
  sim::Instant quiesced_at = sim::Instant::max();
  bool quiesced() const { return quiesced_at != sim::Instant::max(); }
  void count(const std::string& name, int64_t n = 1) { counters[name] += n; }
  int64_t counter(const std::string& name) const {
    auto it = counters.find(name);
    return it == counters.end() ? 0 : it->second;
  }
};

}  // namespace oversim::protocols
