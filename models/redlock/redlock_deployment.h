// RedLock's servers: N independent Redis masters, redlock-1..redlock-N, with no replication and
// no Sentinel between them (the Redis distributed-lock page: "N Redis masters. Those nodes are
// totally independent, so we don't use replication or any other implicit coordination system").
// Each master is a RedisServer of its own: its own local clock (offset, drift, jumps come from
// the kernel's node clock), its own persistence, and it restarts as a plan says. The algorithm
// is the client's (redlock_client.h). docs/models.md, "RedLock", gives the sources.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/redis/redis_server.h"
#include "sim/world.h"

namespace oversim::redlock {

using sim::Duration;

struct RedLockConfig {
  uint32_t masters = 5;  // the page's N = 5; quorum N/2 + 1
  redis::ServerOptions options;  // every master's, persistence included ...
  // ... unless this names one per master (redlock-1 first): a deployment where some masters
  // fsync every write and others never do.
  std::vector<redis::Persistence> persistence;
};

class RedLockDeployment {
 public:
  // Adds the masters' nodes and boots them. Throws sim::SimError for 0 masters or a persistence
  // list whose length is not the number of masters.
  RedLockDeployment(sim::World& world, RedLockConfig config);
  static std::vector<std::string> node_names(const RedLockConfig& config);

  const RedLockConfig& config() const { return config_; }
  size_t size() const { return masters_.size(); }
  redis::RedisServer& master(size_t index) { return *masters_.at(index); }  // 0 is redlock-1
  const redis::RedisServer& master(size_t index) const { return *masters_.at(index); }
  std::vector<sim::Node*> nodes() const;

 private:
  RedLockConfig config_;
  std::vector<std::unique_ptr<redis::RedisServer>> masters_;
};

}  // namespace oversim::redlock
