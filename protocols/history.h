// What the clients believed and were told, recorded as the run goes: lock holdings as each
// client believed them (in true time), orders acknowledged to buyers, and counters. Properties
// compare this with the databases' committed state.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/time.h"

namespace oversim::protocols {

// A consumer processing one queue record of a SKU, from the moment it took it up to the moment
// it was done with it (or its process died, or its fiber unwound): what per_sku_serialization
// compares.
struct Processing {
  std::string sku;
  std::string member;  // the consumer, "app-1#0"
  uint64_t offset = 0;
  sim::Instant started;
  uint64_t started_step = 0;
  sim::Instant ended = sim::Instant::max();
};

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
  std::string sku;   // the SKU the holder buys
  // Renewals that succeeded (a watchdog's PEXPIRE that found the holder's token), by when each
  // was sent: each extends the lease to then + ttl. Counted from the send, not the answer: the
  // server applied it in between, so the lease it set cannot end earlier.
  std::vector<sim::Instant> renewed;
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

// How one buyer's purchase ended, as the buyer saw it: the last answer it heard (nothing, when
// every attempt outlasted the gateway or ended unknown), and when. A double click's second copy
// is not a buyer of its own.
struct BuyerAnswer {
  std::string user;
  std::string sku;
  std::optional<BuyResult> heard;  // sold, sold_out, busy or failed; nullopt: heard nothing
  sim::Instant arrived;
  sim::Instant answered;           // when it heard its last answer, or stopped waiting
  std::string request_id;          // its last click's request ("r3", "r3-c2")
  bool no_app = false;             // `heard` is the gateway's own failed: no app node was up
};

// How one attempt (one copy of a request sent to an app node) ended, heard or not: the design's
// result, or nullopt when it died with its node.
struct AttemptEnd {
  std::string request_id;
  std::optional<BuyResult> result;
  sim::Instant at;
};

struct History {
  std::vector<LockBelief> locks;
  std::vector<Processing> processing;  // queue records taken up by consumers (Design::jobs)
  std::vector<OrderAck> acks;
  std::map<std::string, int64_t> counters;  // "lock.contended", "retry.gateway", ...
  std::map<BuyResult, int64_t> results;
  std::vector<sim::Duration> order_latencies;  // request arrival to acknowledgement
  std::vector<BuyerAnswer> answers;            // one per buyer, in the order they ended
  std::vector<AttemptEnd> attempt_ends;        // every attempt, in the order they ended
  std::vector<sim::Duration> lock_waits;       // asking for a lock to holding it or giving up
  // The sale in committed state, true time: the first and the last order committed, and per SKU
  // the spans [from, until) during which its committed stock stood at 0 (until is Instant::max()
  // while it still does; a SKU with no stock is out from the start). A unit given back (a
  // cancelled order's compensation) ends a span: the SKU is back in stock.
  sim::Instant first_sale_at = sim::Instant::max();
  sim::Instant last_sale_at = sim::Instant::max();
  std::map<std::string, std::vector<std::pair<sim::Instant, sim::Instant>>> sold_out;
  // Designs that keep their stock in a service too (Steps::service_stock): the largest
  // Redis-database stock gap seen at any database commit (per SKU |service stock - committed
  // available|, summed: units taken in Redis whose orders were not yet written, or given back in
  // one store only).
  int64_t stock_gap_max = 0;
  // Whether units of `sku` remained at `t`: its stock was not at 0 then.
  bool stock_remained(const std::string& sku, sim::Instant t) const {
    auto it = sold_out.find(sku);
    if (it == sold_out.end()) return true;
    for (const auto& [from, until] : it->second) {
      if (from <= t && t < until) return false;
    }
    return true;
  }
  // When `sku` first ran out, or Instant::max() when it never did.
  sim::Instant sold_out_at(const std::string& sku) const {
    auto it = sold_out.find(sku);
    return it == sold_out.end() || it->second.empty() ? sim::Instant::max() : it->second.front().first;
  }
  bool out_now(const std::string& sku) const {
    auto it = sold_out.find(sku);
    return it != sold_out.end() && !it->second.empty() && it->second.back().second == sim::Instant::max();
  }
  // When the last SKU ran out for good (every SKU out from then to the end), or Instant::max()
  // when some stock remained at the end.
  sim::Instant all_sold_out_at(size_t skus) const {
    if (sold_out.size() < skus) return sim::Instant::max();
    sim::Instant last = sim::Instant::zero();
    for (const auto& [sku, spans] : sold_out) {
      if (spans.empty() || spans.back().second != sim::Instant::max()) return sim::Instant::max();
      last = std::max(last, spans.back().first);
    }
    return last;
  }
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
