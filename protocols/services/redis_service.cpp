#include "protocols/services/redis_service.h"

#include <fmt/format.h>

namespace oversim::protocols {

redis::Persistence to_redis(RedisPersistence p) {
  switch (p) {
    case RedisPersistence::none: return redis::Persistence::none;
    case RedisPersistence::everysec: return redis::Persistence::aof_everysec;
    case RedisPersistence::always: return redis::Persistence::aof_always;
  }
  return redis::Persistence::none;
}

redis::RedisConfig RedisService::config(const Workload& w) {
  redis::RedisConfig rc;
  rc.servers = 2;  // redis-1 primary, redis-2 replica, plus a sentinel
  rc.replication_lag = w.replication_lag;
  rc.persistence = to_redis(w.redis_persistence);
  return rc;
}

RedisService::RedisService(sim::World& world, const Workload& w) : deployment_(world, config(w)) {}

const std::string& RedisService::kind() const {
  static const std::string k = "redis";
  return k;
}

void add_removals(const redis::RedisServer& server, std::vector<LockRemoval>& out) {
  for (const auto& r : server.removals()) out.push_back(LockRemoval{r.key, r.value, server.name(), r.from, r.at, r.step});
}

void RedisService::removals(std::vector<LockRemoval>& out) const {
  for (size_t i = 0; i < deployment_.size(); ++i) add_removals(deployment_.server(i), out);
}

std::optional<std::string> RedisService::takeover() const {
  const redis::Sentinel* sentinel = deployment_.sentinel();
  if (sentinel == nullptr || sentinel->epoch() == 0) return std::nullopt;
  return fmt::format("Sentinel promoted a replica {} time(s); {} is the primary", sentinel->epoch(), sentinel->current_primary());
}

ServiceKind RedisService::kind_entry() {
  return ServiceKind{
      "redis", "a Redis primary (redis-1) with a replica (redis-2) and a Sentinel (sentinel)",
      [](const Workload& w) { return redis::RedisDeployment::node_names(config(w)); },
      [](const Workload& w) {
        Roles r;
        r.service = "redis";
        r.lock_nodes = redis::RedisDeployment::node_names(config(w));
        r.lock_node = "redis-1";
        r.far_side = {"redis-2", "sentinel"};
        r.holder_side = {"redis-1"};
        r.replicated = true;
        r.takeover = "Sentinel's failover (about 1.1s)";
        return r;
      },
      [](sim::World& world, const Workload& w) -> std::unique_ptr<Service> { return std::make_unique<RedisService>(world, w); }};
}

}  // namespace oversim::protocols
