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
  rc.sentinels = static_cast<uint32_t>(std::clamp(w.sentinels, 1, kMaxSentinels));
  rc.quorum = static_cast<uint32_t>(std::clamp(w.sentinel_quorum, 0, kMaxSentinels));
  return rc;
}

RedisService::RedisService(sim::World& world, const Workload& w) : deployment_(world, config(w)) {}

const std::string& RedisService::kind() const {
  static const std::string k = "redis";
  return k;
}

const std::string& RedisService::product() const {
  static const std::string p = "Redis";
  return p;
}

void add_removals(const redis::RedisServer& server, std::vector<LockRemoval>& out) {
  for (const auto& r : server.removals()) out.push_back(LockRemoval{r.key, r.value, server.name(), r.from, r.at, r.step});
}

void RedisService::removals(std::vector<LockRemoval>& out) const {
  for (size_t i = 0; i < deployment_.size(); ++i) add_removals(deployment_.server(i), out);
}

NodeLoad load_of(const redis::RedisServer& server) { return node_load(server.name(), server.options().service_time, server.load()); }

void RedisService::loads(std::vector<NodeLoad>& out) const {
  for (size_t i = 0; i < deployment_.size(); ++i) out.push_back(load_of(deployment_.server(i)));
}

std::optional<std::string> RedisService::takeover() const {
  uint64_t promotions = 0;
  for (const auto& s : deployment_.sentinels()) promotions += s->promotions();
  if (promotions == 0) return std::nullopt;
  return fmt::format("Sentinel promoted a replica {} time(s); {} is the primary", promotions, deployment_.primary_name());
}

ServiceKind RedisService::kind_entry() {
  ServiceKind k{
      "redis", "a Redis primary (redis-1) with a replica (redis-2; --redis-replicas) and a Sentinel (sentinel; sentinel-1..N with --sentinels N)",
      [](const Workload& w) { return redis::RedisDeployment::node_names(config(w)); },
      [](const Workload& w) {
        Roles r;
        r.service = "redis";
        r.lock_nodes = redis::RedisDeployment::node_names(config(w));
        r.lock_node = "redis-1";
        // The replicas and the Sentinels; a standalone Redis has no far side and no failover. A
        // group of sentinels runs one per box, as Sentinel's documented setups do: sentinel-1
        // stays on the primary's side, so a failover needs a majority among the others.
        r.holder_side = {"redis-1"};
        if (w.sentinels > 1 && r.lock_nodes.size() > 1) r.holder_side.push_back("sentinel-1");
        for (const std::string& n : r.lock_nodes) {
          if (std::find(r.holder_side.begin(), r.holder_side.end(), n) == r.holder_side.end()) r.far_side.push_back(n);
        }
        r.replicated = r.lock_nodes.size() > 1;
        if (r.replicated) {
          // down-after-milliseconds, then the next of Sentinel's 100ms checks promotes.
          r.takeover_time = w.sentinel_down_after + Duration::ms(100);
          // A group first agrees: a period to see the others' "down" (ODOWN), up to 100ms of
          // desync, a period for their votes, the next decision.
          if (w.sentinels > 1) r.takeover_time += Duration::ms(400);
          r.takeover = fmt::format("Sentinel's failover (about {:g}s)", static_cast<double>(r.takeover_time.count_ns()) / 1e9);
        }
        return r;
      },
      [](sim::World& world, const Workload& w) -> std::unique_ptr<Service> { return std::make_unique<RedisService>(world, w); },
      [](const Workload& w) -> std::optional<std::string> {
        if (w.redis_min_replicas > w.redis_replicas) {
          return fmt::format("--min-replicas {} with {} Redis replica(s): the primary would refuse every write (min-replicas-to-write counts "
                             "connected replicas)",
                             w.redis_min_replicas, w.redis_replicas);
        }
        if (w.sentinels > 1 && w.redis_replicas == 0) {
          return fmt::format("--sentinels {} with --redis-replicas 0: a standalone Redis has no Sentinel", w.sentinels);
        }
        if (w.sentinel_quorum > w.sentinels) {
          return fmt::format("--sentinel-quorum {} with {} sentinel(s): no failover could ever start", w.sentinel_quorum, w.sentinels);
        }
        return std::nullopt;
      }};
  k.points = {ServicePoint{"write_unreplicated", "the primary answered a write its replica lacks, and only that one", "the Redis primary",
                           [](const Workload& w) -> std::optional<std::string> {
                             if (w.redis_replicas > 0) return std::nullopt;
                             return std::string("--redis-replicas 0: a standalone Redis has no replica for a write to be missing from");
                           },
                           [](const Workload& w) {
                             std::vector<std::string> servers;  // the primary and its replicas (one may be promoted), not the sentinels
                             for (const std::string& n : redis::RedisDeployment::node_names(config(w))) {
                               if (n.rfind("redis-", 0) == 0) servers.push_back(n);
                             }
                             return servers;
                           }}};
  return k;
}

std::optional<std::string> RedisService::read(const std::string& key) const {
  const std::string primary = deployment_.primary_name();
  for (size_t i = 0; i < deployment_.size(); ++i) {
    const redis::RedisServer& server = deployment_.server(i);
    if (server.node().name() != primary) continue;
    const auto& entries = server.state().entries();
    auto it = entries.find(key);
    if (it == entries.end()) return std::nullopt;
    return it->second.value;
  }
  return std::nullopt;
}

void RedisService::lost_writes(std::vector<LostWrite>& out) const {
  // The history that counts: the data of the primary the newest Sentinel names (what clients
  // reach now, and what every replica resyncs to).
  const std::string primary = deployment_.primary_name();
  const redis::RedisServer* now = nullptr;
  for (size_t i = 0; i < deployment_.size(); ++i) {
    if (deployment_.server(i).name() == primary) now = &deployment_.server(i);
  }
  if (now == nullptr) return;
  const redis::RedisState& data = now->state();
  for (size_t i = 0; i < deployment_.size(); ++i) {
    const redis::RedisServer& s = deployment_.server(i);
    // How far the data has each lineage this server wrote in, looked up once per lineage.
    std::vector<uint64_t> ends;
    for (const std::string& lineage : s.lineages()) ends.push_back(data.lineage_end(lineage));
    for (const redis::RedisServer::AckedWrite& w : s.acked_writes()) {
      const uint64_t end = ends[w.lineage];
      if (w.offset > 0 && w.offset <= end) continue;  // RedisState::includes
      const std::string& lineage = s.lineages()[w.lineage];
      std::string why = end == 0 ? fmt::format("{}, the primary now, has no write of {} (this was offset {})", primary, lineage, w.offset)
                                 : fmt::format("{}, the primary now, has {} only to offset {} (this was {})", primary, lineage, end, w.offset);
      out.push_back(LostWrite{w.key, s.name(), s.name_of(w.from), w.at, w.step, std::move(why)});
    }
  }
}

}  // namespace oversim::protocols
