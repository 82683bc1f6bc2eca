#include "protocols/services/etcd_service.h"

#include <algorithm>

#include <fmt/format.h>

namespace oversim::protocols {

std::string etcd_lock_prefix(const std::string& key) { return "/locks/" + key; }
std::string etcd_lock_token(const std::string& etcd_key, int64_t create_revision) { return fmt::format("{}@{}", etcd_key, create_revision); }

sim::Mutex& EtcdProcess::local_lock(const std::string& key) {
  auto& m = local[key];
  if (m == nullptr) m = std::make_unique<sim::Mutex>();
  return *m;
}

etcd::ClusterConfig EtcdService::config(const Workload& w) {
  etcd::ClusterConfig c;
  // The setting's parser refuses a count outside 1..kMaxEtcdMembers; the clamp keeps node_names
  // and roles (asked before that) from an empty cluster.
  c.members = static_cast<uint32_t>(std::clamp(w.etcd_members, 1, kMaxEtcdMembers));
  for (int i = 1; i <= w.app_nodes; ++i) c.clients.push_back(fmt::format("app-{}", i));
  return c;
}

EtcdService::EtcdService(sim::World& world, const Workload& w) : cluster_(world, config(w)), session_ttl_(w.lock_ttl) {}

const std::string& EtcdService::kind() const {
  static const std::string k = "etcd";
  return k;
}

std::shared_ptr<EtcdProcess> EtcdService::process(const std::string& app) {
  etcd::EtcdClient* client = cluster_.client(app);
  if (client == nullptr) throw std::logic_error("no etcd client on " + app);
  auto& p = processes_[app];
  if (p == nullptr || p->generation != client->generation()) {
    p = std::make_shared<EtcdProcess>();
    p->generation = client->generation();
  }
  return p;
}

void EtcdService::removals(std::vector<LockRemoval>& out) const {
  // A client's delete of a lock key: the lock is the prefix's, the value the key with its
  // create revision (the token a belief carries).
  for (size_t i = 0; i < cluster_.size(); ++i) {
    const auto& member = cluster_.member(i);
    for (const auto& r : member.removals()) {
      if (r.from.empty() || r.kv.key.rfind("/locks/", 0) != 0) continue;
      const size_t slash = r.kv.key.rfind('/');
      if (slash <= 7) continue;
      out.push_back(LockRemoval{r.kv.key.substr(7, slash - 7), etcd_lock_token(r.kv.key, r.kv.create_revision), member.name(), r.from, r.at, r.step});
    }
  }
}

std::optional<std::string> EtcdService::takeover() const {
  const std::vector<std::string> elections = cluster_.elections();
  if (elections.empty()) return std::nullopt;
  return fmt::format("{} leader election(s); {}", elections.size(), elections.back());
}

void EtcdService::loads(std::vector<NodeLoad>& out) const {
  for (size_t i = 0; i < cluster_.size(); ++i) {
    const etcd::EtcdServer& m = cluster_.member(i);
    out.push_back(node_load(m.name(), m.options().service_time, m.load()));
  }
}

bool EtcdService::preload(const std::string& key, const std::string& value) {
  for (size_t i = 0; i < cluster_.size(); ++i) cluster_.member(i).preload(key, value);
  return true;
}

std::optional<std::string> EtcdService::read(const std::string& key) const {
  auto kv = cluster_.most_applied().state().get(key);
  if (!kv) return std::nullopt;
  return kv->value;
}

ServiceKind EtcdService::kind_entry() {
  ServiceKind k{
      "etcd", "an etcd cluster (etcd-1..etcd-N, --etcd-members) with etcd-1 leading, one client and session per app node",
      [](const Workload& w) { return etcd::EtcdCluster::node_names(config(w)); },
      [](const Workload& w) {
        Roles r;
        r.service = "etcd";
        r.lock_nodes = etcd::EtcdCluster::node_names(config(w));
        r.lock_node = etcd::EtcdCluster::initial_leader(config(w));
        // A partition cuts the holder off from the whole cluster: its lease expires on the
        // leader while its client still waits for a keepalive answer.
        r.far_side = r.lock_nodes;
        r.holder_side = {};
        r.replicated = true;
        r.takeover_time = Duration::ms(1300);
        r.takeover = "a leader election (the followers wait out their election timeout, 1.1s and more, then vote)";
        r.session_expiry = true;
        return r;
      },
      [](sim::World& world, const Workload& w) -> std::unique_ptr<Service> { return std::make_unique<EtcdService>(world, w); }};
  k.problem = [](const Workload& w) -> std::optional<std::string> {
    // Below etcd's minimum the server would grant the minimum: refused here, so the lease the
    // sale runs with is the one asked for (rounded up to whole seconds, as WithTTL takes them).
    const etcd::ClusterOptions o;
    if (w.lock_ttl < o.min_lease_ttl() || w.lock_ttl > Duration::s(3600)) {
      return fmt::format("--lock-ttl {}: an etcd design asks for it (rounded up to whole seconds) as its session's lease TTL, and etcd grants {} (1.5 election timeouts) to 1h",
                         sim::format_duration(w.lock_ttl), sim::format_duration(o.min_lease_ttl()));
    }
    return std::nullopt;
  };
  k.shortest_lock_ttl = etcd::ClusterOptions{}.min_lease_ttl();
  return k;
}

}  // namespace oversim::protocols
