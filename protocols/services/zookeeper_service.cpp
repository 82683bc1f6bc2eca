#include "protocols/services/zookeeper_service.h"

#include <algorithm>

#include <fmt/format.h>

namespace oversim::protocols {

std::string zk_lock_path(const std::string& key) { return "/locks/" + key; }

zookeeper::EnsembleConfig ZooKeeperService::config(const Workload& w) {
  zookeeper::EnsembleConfig c;
  // scenario_problem refuses a count outside 1..kMaxZkServers before anything is built; the
  // clamp keeps node_names and roles (asked before that check) from an empty ensemble.
  c.servers = static_cast<uint32_t>(std::clamp(w.zk_servers, 1, kMaxZkServers));
  c.session_timeout_ms = w.lock_ttl.count_ms();
  for (int i = 1; i <= w.app_nodes; ++i) c.clients.push_back(fmt::format("app-{}", i));
  return c;
}

ZooKeeperService::ZooKeeperService(sim::World& world, const Workload& w) : ensemble_(world, config(w)) {}

const std::string& ZooKeeperService::kind() const {
  static const std::string k = "zookeeper";
  return k;
}

void ZooKeeperService::removals(std::vector<LockRemoval>& out) const {
  // A client's delete of a recipe node: the key is its parent's, the value the node's path (the
  // token a ZooKeeper lock belief carries).
  for (size_t i = 0; i < ensemble_.size(); ++i) {
    const auto& server = ensemble_.server(i);
    for (const auto& r : server.removals()) {
      const std::string parent = zookeeper::parent_of(r.path);
      if (parent.rfind("/locks/", 0) != 0) continue;
      out.push_back(LockRemoval{parent.substr(7), r.path, server.name(), r.from, r.at, r.step});
    }
  }
}

std::optional<std::string> ZooKeeperService::takeover() const {
  const std::vector<std::string> elections = ensemble_.elections();
  if (elections.empty()) return std::nullopt;
  return fmt::format("{} leader election(s); {}", elections.size(), elections.back());
}

void ZooKeeperService::loads(std::vector<NodeLoad>& out) const {
  for (size_t i = 0; i < ensemble_.size(); ++i) {
    const zookeeper::ZkServer& server = ensemble_.server(i);
    out.push_back(node_load(server.name(), server.options().service_time, server.load()));
  }
}

ServiceKind ZooKeeperService::kind_entry() {
  ServiceKind k{
      "zookeeper", "a ZooKeeper ensemble (zk-1..zk-N, --zk-servers) with zk-N leading, one session per app node",
      [](const Workload& w) { return zookeeper::ZkEnsemble::node_names(config(w)); },
      [](const Workload& w) {
        Roles r;
        r.service = "zookeeper";
        r.lock_nodes = zookeeper::ZkEnsemble::node_names(config(w));
        r.lock_node = zookeeper::ZkEnsemble::initial_leader(config(w));
        // A partition cuts the holder off from the whole ensemble: its session expires on the
        // leader while the holder's client still hopes to reconnect.
        r.far_side = r.lock_nodes;
        r.holder_side = {};
        r.replicated = true;
        r.takeover_time = Duration::ms(1100);
        r.takeover = "a leader election (the followers wait out syncLimit, about 0.6s, then elect)";
        r.session_expiry = true;
        return r;
      },
      [](sim::World& world, const Workload& w) -> std::unique_ptr<Service> { return std::make_unique<ZooKeeperService>(world, w); }};
  k.problem = [](const Workload& w) -> std::optional<std::string> {
    const zookeeper::EnsembleOptions o;
    if (w.lock_ttl.count_ms() < o.min_session() || w.lock_ttl.count_ms() > o.max_session_ms) {
      return fmt::format("--lock-ttl {}: a ZooKeeper design takes it as its session timeout, and the ensemble negotiates {}ms..{}ms (2 ticks of {} to its maxSessionTimeout)",
                         sim::format_duration(w.lock_ttl), o.min_session(), o.max_session_ms, sim::format_duration(o.tick));
    }
    return std::nullopt;
  };
  k.shortest_lock_ttl = sim::Duration::ms(zookeeper::EnsembleOptions{}.min_session());
  return k;
}

}  // namespace oversim::protocols
