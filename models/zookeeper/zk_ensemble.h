// A ZooKeeper ensemble for a sale: servers zk-1..zk-N (--zk-servers, default 3), already running
// with a leader established (the highest id, as FastLeaderElection picks among equal zxids) and
// one session per application process, opened before the sale, each on its own server in turn
// (zk-1 for app-1, zk-2 for app-2, ...). The `/locks` parent exists. docs/models.md,
// "ZooKeeper", gives what each part models and the sources.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "models/zookeeper/zk_client.h"
#include "models/zookeeper/zk_server.h"

namespace oversim::zookeeper {

struct EnsembleConfig {
  uint32_t servers = 3;
  EnsembleOptions options;
  std::vector<std::string> clients;  // app node names: one client and session each
  int64_t session_timeout_ms = 500;  // what each client asks for (negotiated into the server's bounds)
};

class ZkEnsemble {
 public:
  // Adds the servers' nodes and boots them, and a client on each named app node (which must
  // exist). Throws sim::SimError for 0 servers.
  ZkEnsemble(sim::World& world, EnsembleConfig config);
  static std::vector<std::string> node_names(const EnsembleConfig& config);
  static std::string initial_leader(const EnsembleConfig& config);

  const EnsembleConfig& config() const { return config_; }
  size_t size() const { return servers_.size(); }
  ZkServer& server(size_t index) { return *servers_.at(index); }  // 0 is zk-1
  const ZkServer& server(size_t index) const { return *servers_.at(index); }
  // The client of an app node; nullptr for a node without one.
  ZkClient* client(const std::string& app);
  // The established leader now, or "" during an election.
  std::string leader() const;
  // Leaders elected during the run (the one at the start excluded), in order.
  std::vector<std::string> elections() const;

 private:
  EnsembleConfig config_;
  std::vector<std::unique_ptr<ZkServer>> servers_;
  std::vector<std::pair<std::string, std::unique_ptr<ZkClient>>> clients_;
};

}  // namespace oversim::zookeeper
