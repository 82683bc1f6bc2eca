#include "protocols/services/redis_service.h"

#include <algorithm>

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
  // redis-1 primary, redis-2.. replicas, plus a Sentinel when there is a replica. workload_problem
  // refuses a count outside 0..kMaxRedisReplicas; the clamp keeps node_names (asked first) sane.
  rc.servers = static_cast<uint32_t>(1 + std::clamp(w.redis_replicas, 0, kMaxRedisReplicas));
  rc.replication_lag = replication_distribution(w);
  rc.persistence = to_redis(w.redis_persistence);
  rc.min_replicas_to_write = static_cast<uint32_t>(std::max(0, w.redis_min_replicas));
  rc.min_replicas_max_lag = w.redis_min_replicas_max_lag;
  rc.client_timeout = w.redis_client_timeout;
  rc.down_after = w.sentinel_down_after;
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
      "redis", "a Redis primary (redis-1) with a replica (redis-2; --redis-replicas) and a Sentinel (sentinel)",
      [](const Workload& w) { return redis::RedisDeployment::node_names(config(w)); },
      [](const Workload& w) {
        Roles r;
        r.service = "redis";
        r.lock_nodes = redis::RedisDeployment::node_names(config(w));
        r.lock_node = "redis-1";
        // The replicas and the Sentinel; a standalone Redis has no far side and no failover.
        r.far_side.assign(r.lock_nodes.begin() + 1, r.lock_nodes.end());
        r.holder_side = {"redis-1"};
        r.replicated = r.lock_nodes.size() > 1;
        if (r.replicated) {
          // down-after-milliseconds, then the next of Sentinel's 100ms checks promotes.
          r.takeover_time = w.sentinel_down_after + Duration::ms(100);
          r.takeover = fmt::format("Sentinel's failover (about {:g}s)", static_cast<double>(r.takeover_time.count_ns()) / 1e9);
        }
        return r;
      },
      [](sim::World& world, const Workload& w) -> std::unique_ptr<Service> { return std::make_unique<RedisService>(world, w); }};
}

}  // namespace oversim::protocols
