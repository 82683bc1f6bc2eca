// An etcd cluster for a sale: members etcd-1..etcd-N (--etcd-members, default 3), already running
// with etcd-1 leading term 1, and one client per application process (clientv3.New with every
// member's endpoint, pinned to etcd-1 for app-1, etcd-2 for app-2, ...). docs/models.md, "etcd",
// gives what each part models and the sources.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "models/etcd/etcd_client.h"
#include "models/etcd/etcd_server.h"

namespace oversim::etcd {

struct ClusterConfig {
  uint32_t members = 3;
  ClusterOptions options;
  ClientOptions client;
  std::vector<std::string> clients;  // app node names: one client each
};

class EtcdCluster {
 public:
  // Adds the members' nodes and boots them, and a client on each named app node (which must
  // exist). Throws sim::SimError for 0 members.
  EtcdCluster(sim::World& world, ClusterConfig config);
  static std::vector<std::string> node_names(const ClusterConfig& config);
  static std::string initial_leader(const ClusterConfig& config);

  const ClusterConfig& config() const { return config_; }
  size_t size() const { return members_.size(); }
  EtcdServer& member(size_t index) { return *members_.at(index); }  // 0 is etcd-1
  const EtcdServer& member(size_t index) const { return *members_.at(index); }
  // The client of an app node; nullptr for a node without one.
  EtcdClient* client(const std::string& app);
  // The member that leads the latest term now ("" when none does).
  std::string leader() const;
  // Leaders elected during the run (the one at the start excluded), in term order.
  std::vector<std::string> elections() const;
  // The member with the most applied entries (ties: the lowest id): the store as it stands.
  const EtcdServer& most_applied() const;

 private:
  ClusterConfig config_;
  std::vector<std::unique_ptr<EtcdServer>> members_;
  std::vector<std::pair<std::string, std::unique_ptr<EtcdClient>>> clients_;
};

}  // namespace oversim::etcd
