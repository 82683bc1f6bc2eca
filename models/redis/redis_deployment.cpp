#include "models/redis/redis_deployment.h"

#include <fmt/format.h>

namespace oversim::redis {

ServerOptions RedisConfig::server_options() const {
  ServerOptions o;
  o.service_time = service_time;
  o.replication_lag = replication_lag;
  o.acks_required = acks_required;
  o.acks_timeout = acks_timeout;
  o.min_replicas_to_write = min_replicas_to_write;
  o.min_replicas_max_lag = min_replicas_max_lag;
  o.persistence = persistence;
  return o;
}

std::vector<std::string> RedisDeployment::node_names(const RedisConfig& config) {
  std::vector<std::string> names;
  for (uint32_t i = 1; i <= config.servers; ++i) names.push_back(fmt::format("redis-{}", i));
  if (config.servers > 1) {
    if (config.sentinels <= 1) {
      names.push_back("sentinel");
    } else {
      for (uint32_t i = 1; i <= config.sentinels; ++i) names.push_back(fmt::format("sentinel-{}", i));
    }
  }
  return names;
}

RedisDeployment::RedisDeployment(sim::World& world, RedisConfig config) : world_(world), config_(config) {
  if (config_.servers == 0) throw sim::SimError("a Redis deployment needs at least one server");
  const std::vector<std::string> all = node_names(config_);
  const std::vector<std::string> names(all.begin(), all.begin() + config_.servers);
  for (uint32_t i = 1; i <= config_.servers; ++i) {
    sim::Node& node = world_.add_node(names[i - 1]);
    servers_.push_back(std::make_unique<RedisServer>(world_, node, config_.server_options(), i == 1 ? "" : names.front()));
  }
  if (config_.servers > 1) {
    const std::vector<std::string> group(all.begin() + config_.servers, all.end());
    SentinelOptions options;
    options.period = config_.sentinel_period;
    options.down_after = config_.down_after;
    options.sentinels = static_cast<uint32_t>(group.size());
    options.quorum = config_.quorum == 0 ? options.sentinels / 2 + 1 : config_.quorum;
    for (const std::string& name : group) {
      std::vector<std::string> peers;
      for (const std::string& other : group) {
        if (other != name) peers.push_back(other);
      }
      sentinels_.push_back(std::make_unique<Sentinel>(world_, world_.add_node(name), names, names.front(), std::move(peers), options));
    }
  }
}

const Sentinel* RedisDeployment::newest_sentinel() const {
  const Sentinel* newest = nullptr;
  for (const auto& s : sentinels_) {
    if (newest == nullptr || s->epoch() > newest->epoch()) newest = s.get();
  }
  return newest;
}

RedisServer& RedisDeployment::server(const std::string& name) {
  for (auto& s : servers_) {
    if (s->name() == name) return *s;
  }
  throw sim::SimError(fmt::format("no Redis server '{}'", name));
}

std::string RedisDeployment::primary_name() const {
  const Sentinel* s = newest_sentinel();
  return s != nullptr ? s->current_primary() : servers_.front()->name();
}

std::vector<std::string> RedisDeployment::acting_primaries() const {
  std::vector<std::string> out;
  for (const auto& s : servers_) {
    if (s->node().up() && s->role() == Role::primary) out.push_back(s->name());
  }
  return out;
}

RedisClient RedisDeployment::client(sim::Node& app) const {
  if (!sentinels_.empty()) {
    std::vector<sim::Node*> nodes;
    for (const auto& s : sentinels_) nodes.push_back(&s->node());
    return RedisClient::via_sentinels(app, std::move(nodes), config_.client_timeout);
  }
  return RedisClient::fixed(app, servers_.front()->node(), config_.client_timeout);
}

}  // namespace oversim::redis
