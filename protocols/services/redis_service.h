// The "redis" service: one Redis primary (redis-1) with a replica (redis-2) and a Sentinel
// (models/redis/). Designs reach it through BuyContext::redis().
#pragma once

#include <memory>
#include <string>

#include "models/redis/redis_deployment.h"
#include "protocols/services.h"

namespace oversim::protocols {

// Appends every client removal `server` logged, as the properties read them (shared by every
// service built of Redis servers).
void add_removals(const redis::RedisServer& server, std::vector<LockRemoval>& out);
// `server`'s load (its command queue), for Service::loads.
NodeLoad load_of(const redis::RedisServer& server);

// The workload's --persistence as the Redis model's setting.
redis::Persistence to_redis(RedisPersistence p);

class RedisService : public Service {
 public:
  RedisService(sim::World& world, const Workload& w);
  static redis::RedisConfig config(const Workload& w);
  static ServiceKind kind_entry();

  const std::string& kind() const override;
  const std::string& product() const override;
  void removals(std::vector<LockRemoval>& out) const override;
  std::optional<std::string> takeover() const override;
  void loads(std::vector<NodeLoad>& out) const override;
  bool preload(const std::string& key, const std::string& value) override {
    deployment_.preload(key, value);
    return true;
  }
  std::optional<std::string> read(const std::string& key) const override;
  void lost_writes(std::vector<LostWrite>& out) const override;
  redis::RedisDeployment& deployment() { return deployment_; }
  const redis::RedisDeployment& deployment() const { return deployment_; }

 private:
  redis::RedisDeployment deployment_;
};

}  // namespace oversim::protocols
