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
  if (config.servers > 1) names.push_back("sentinel");
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
    sim::Node& node = world_.add_node(all.back());
    sentinel_ = std::make_unique<Sentinel>(world_, node, names, names.front(),
                                           SentinelOptions{config_.sentinel_period, config_.down_after});
  }
}

RedisServer& RedisDeployment::server(const std::string& name) {
  for (auto& s : servers_) {
    if (s->name() == name) return *s;
  }
  throw sim::SimError(fmt::format("no Redis server '{}'", name));
}

std::string RedisDeployment::primary_name() const {
  return sentinel_ ? sentinel_->current_primary() : servers_.front()->name();
}

std::vector<std::string> RedisDeployment::acting_primaries() const {
  std::vector<std::string> out;
  for (const auto& s : servers_) {
    if (s->node().up() && s->role() == Role::primary) out.push_back(s->name());
  }
  return out;
}

RedisClient RedisDeployment::client(sim::Node& app) const {
  if (sentinel_) return RedisClient::via_sentinel(app, sentinel_->node(), config_.client_timeout);
  return RedisClient::fixed(app, servers_.front()->node(), config_.client_timeout);
}

}  // namespace oversim::redis
