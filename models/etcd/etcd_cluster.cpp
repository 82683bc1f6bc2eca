#include "models/etcd/etcd_cluster.h"

#include <fmt/format.h>

#include <algorithm>

namespace oversim::etcd {

std::vector<std::string> EtcdCluster::node_names(const ClusterConfig& config) {
  std::vector<std::string> names;
  for (uint32_t i = 1; i <= config.members; ++i) names.push_back(fmt::format("etcd-{}", i));
  return names;
}

std::string EtcdCluster::initial_leader(const ClusterConfig& /*config*/) { return "etcd-1"; }

EtcdCluster::EtcdCluster(sim::World& world, ClusterConfig config) : config_(std::move(config)) {
  if (config_.members == 0) throw sim::SimError("an etcd cluster needs at least one member");
  const std::vector<std::string> names = node_names(config_);
  for (uint32_t id = 1; id <= config_.members; ++id) {
    EtcdServer::Start start;
    start.term = 1;
    start.role = id == 1 ? Role::leader : Role::follower;
    start.leader = 1;
    members_.push_back(std::make_unique<EtcdServer>(world, world.add_node(names[id - 1]), id, names, config_.options, start));
  }
  std::vector<sim::Node*> nodes;
  for (const auto& m : members_) nodes.push_back(&m->node());
  for (size_t i = 0; i < config_.clients.size(); ++i) {
    sim::Node& app = world.node(config_.clients[i]);
    clients_.emplace_back(config_.clients[i], std::make_unique<EtcdClient>(world, app, nodes, i % nodes.size(), config_.client));
  }
}

EtcdClient* EtcdCluster::client(const std::string& app) {
  for (auto& [name, c] : clients_) {
    if (name == app) return c.get();
  }
  return nullptr;
}

std::string EtcdCluster::leader() const {
  const EtcdServer* best = nullptr;
  for (const auto& m : members_) {
    if (m->node().up() && m->role() == Role::leader && (best == nullptr || m->term() > best->term())) best = m.get();
  }
  return best == nullptr ? "" : best->name();
}

std::vector<std::string> EtcdCluster::elections() const {
  std::vector<std::pair<int64_t, std::string>> all;
  for (const auto& m : members_) {
    for (const std::string& e : m->elections()) {
      const int64_t term = std::stoll(e.substr(e.rfind(' ') + 1));
      if (term > 1) all.emplace_back(term, e);
    }
  }
  std::sort(all.begin(), all.end());
  std::vector<std::string> out;
  for (auto& [term, e] : all) out.push_back(std::move(e));
  return out;
}

const EtcdServer& EtcdCluster::most_applied() const {
  const EtcdServer* best = members_.front().get();
  for (const auto& m : members_) {
    if (m->applied() > best->applied()) best = m.get();
  }
  return *best;
}

}  // namespace oversim::etcd
