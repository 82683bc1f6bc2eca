#include "models/redlock/redlock_deployment.h"

#include <fmt/format.h>

namespace oversim::redlock {

std::vector<std::string> RedLockDeployment::node_names(const RedLockConfig& config) {
  std::vector<std::string> names;
  for (uint32_t i = 1; i <= config.masters; ++i) names.push_back(fmt::format("redlock-{}", i));
  return names;
}

RedLockDeployment::RedLockDeployment(sim::World& world, RedLockConfig config) : config_(std::move(config)) {
  if (config_.masters == 0) throw sim::SimError("a RedLock deployment needs at least one master");
  if (!config_.persistence.empty() && config_.persistence.size() != config_.masters) {
    throw sim::SimError(fmt::format("RedLock: {} persistence settings for {} masters", config_.persistence.size(), config_.masters));
  }
  const std::vector<std::string> names = node_names(config_);
  for (size_t i = 0; i < names.size(); ++i) {
    redis::ServerOptions o = config_.options;
    if (!config_.persistence.empty()) o.persistence = config_.persistence[i];
    masters_.push_back(std::make_unique<redis::RedisServer>(world, world.add_node(names[i]), o));
  }
}

std::vector<sim::Node*> RedLockDeployment::nodes() const {
  std::vector<sim::Node*> out;
  for (const auto& m : masters_) out.push_back(&m->node());
  return out;
}

}  // namespace oversim::redlock
