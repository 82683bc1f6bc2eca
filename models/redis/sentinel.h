// A Sentinel-like failover detector on its own node. One sentinel, so its own opinion is the
// quorum (real deployments run three or more and need a majority to authorize a failover).
//
// Every `period` it sends INFO to each server. When the primary has not answered for
// `down_after` it promotes the replica that answered recently with the highest replication
// offset (ties: the lower name, standing in for Redis's run id), then tells every other server
// it reaches, including an old primary that comes back, to replicate from the new one. Until an
// old primary hears that, it is still a primary to whoever reaches it: that is split brain.
//
// Clients ask it for the primary on port "sentinel" (SENTINEL get-master-addr-by-name):
// request GetPrimary, reply PrimaryAddress. Failovers are traced as kind "failover".
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/redis/redis_server.h"
#include "sim/node.h"
#include "sim/time.h"
#include "sim/world.h"

namespace oversim::redis {

struct SentinelOptions {
  Duration period = Duration::ms(100);     // INFO/PING period (real Sentinel: 1s)
  Duration down_after = Duration::s(1);    // down-after-milliseconds (real default: 30s)
};

struct GetPrimary {};
struct PrimaryAddress {
  std::string primary;
  uint64_t epoch = 0;  // bumped by every failover, like Sentinel's config epoch
};

class Sentinel {
 public:
  Sentinel(sim::World& world, sim::Node& node, std::vector<std::string> servers, std::string primary,
           SentinelOptions options = {});
  Sentinel(const Sentinel&) = delete;
  Sentinel& operator=(const Sentinel&) = delete;

  sim::Node& node() const { return node_; }
  const std::string& current_primary() const { return primary_; }
  uint64_t epoch() const { return epoch_; }
  const SentinelOptions& options() const { return options_; }

 private:
  struct Observation {
    Instant last_reply_local;  // sentinel's clock at the last INFO reply
    ServerInfo info;
    bool answered = false;     // at least one reply since the sentinel booted
  };

  void boot();
  void monitor(const std::string& server);
  void decide_loop();
  void serve_clients();
  bool fresh(const Observation& o) const;
  void failover();
  void reconfigure();

  sim::World& world_;
  sim::Node& node_;
  std::vector<std::string> servers_;
  SentinelOptions options_;
  // Persistent, like sentinel.conf: the sentinel rewrites it at every change.
  std::string primary_;
  uint64_t epoch_ = 0;
  // Volatile.
  std::map<std::string, Observation> seen_;
  bool primary_down_ = false;
};

}  // namespace oversim::redis
