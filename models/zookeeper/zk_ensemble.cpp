#include "models/zookeeper/zk_ensemble.h"

#include <fmt/format.h>

#include <algorithm>

namespace oversim::zookeeper {

std::vector<std::string> ZkEnsemble::node_names(const EnsembleConfig& config) {
  std::vector<std::string> names;
  for (uint32_t i = 1; i <= config.servers; ++i) names.push_back(fmt::format("zk-{}", i));
  return names;
}

std::string ZkEnsemble::initial_leader(const EnsembleConfig& config) { return fmt::format("zk-{}", config.servers); }

ZkEnsemble::ZkEnsemble(sim::World& world, EnsembleConfig config) : config_(std::move(config)) {
  if (config_.servers == 0) throw sim::SimError("a ZooKeeper ensemble needs at least one server");
  const std::vector<std::string> names = node_names(config_);
  // The state every server starts from: /locks, and the apps' sessions (ids below every zxid
  // of epoch 1, so no later session can take one).
  ZkState initial;
  Txn locks;
  locks.zxid = make_zxid(0, 1);
  locks.op = Op::create("/locks", "", false, false);
  initial.apply(locks);
  const int64_t timeout = std::clamp(config_.session_timeout_ms, config_.options.min_session(), config_.options.max_session_ms);
  std::vector<uint64_t> sessions;
  for (size_t i = 0; i < config_.clients.size(); ++i) {
    sessions.push_back(make_zxid(0, static_cast<uint32_t>(1000 + i)));
    initial.add_session(sessions.back(), timeout);
  }
  const auto leader = config_.servers;
  for (uint32_t id = 1; id <= config_.servers; ++id) {
    ZkServer::Start start;
    start.epoch = 1;
    start.role = id == leader ? Role::leading : Role::following;
    start.leader = leader;
    servers_.push_back(std::make_unique<ZkServer>(world, world.add_node(names[id - 1]), id, names, config_.options, initial, start));
  }
  std::vector<sim::Node*> nodes;
  for (const auto& s : servers_) nodes.push_back(&s->node());
  for (size_t i = 0; i < config_.clients.size(); ++i) {
    sim::Node& app = world.node(config_.clients[i]);
    clients_.emplace_back(config_.clients[i], std::make_unique<ZkClient>(world, app, nodes, i % nodes.size(), sessions[i], timeout));
  }
}

ZkClient* ZkEnsemble::client(const std::string& app) {
  for (auto& [name, c] : clients_) {
    if (name == app) return c.get();
  }
  return nullptr;
}

std::string ZkEnsemble::leader() const {
  for (const auto& s : servers_) {
    if (s->node().up() && s->role() == Role::leading && s->serving()) return s->name();
  }
  return "";
}

std::vector<std::string> ZkEnsemble::elections() const {
  // Every server records its own wins; the first entry of the initial leader is the start.
  std::vector<std::pair<uint32_t, std::string>> all;
  for (const auto& s : servers_) {
    for (const std::string& e : s->elections()) {
      const uint32_t epoch = static_cast<uint32_t>(std::stoul(e.substr(e.rfind(' ') + 1)));
      if (epoch > 1) all.emplace_back(epoch, e);
    }
  }
  std::sort(all.begin(), all.end());
  std::vector<std::string> out;
  for (auto& [epoch, e] : all) out.push_back(std::move(e));
  return out;
}

}  // namespace oversim::zookeeper
