// The "zookeeper" service: an ensemble zk-1..zk-N (--zk-servers, default 3) with a leader
// established before the sale (zk-N), and one client per app node, each with the session it
// opened before the sale; a design's --lock-ttl is the session timeout its clients ask for (the
// lease a ZooKeeper lock has). Designs reach it through the ZooKeeper recipe steps
// (protocols/steps.h); models/zookeeper/ has the model.
#pragma once

#include <string>

#include "models/zookeeper/zk_ensemble.h"
#include "protocols/services.h"

namespace oversim::protocols {

class ZooKeeperService : public Service {
 public:
  ZooKeeperService(sim::World& world, const Workload& w);
  static zookeeper::EnsembleConfig config(const Workload& w);
  static ServiceKind kind_entry();

  const std::string& kind() const override;
  void removals(std::vector<LockRemoval>& out) const override;
  std::optional<std::string> takeover() const override;
  void loads(std::vector<NodeLoad>& out) const override;
  zookeeper::ZkEnsemble& ensemble() { return ensemble_; }
  const zookeeper::ZkEnsemble& ensemble() const { return ensemble_; }

 private:
  zookeeper::ZkEnsemble ensemble_;
};

// The lock key a recipe node's parent stands for: "/locks/lock:stock:sku1" -> "lock:stock:sku1".
std::string zk_lock_path(const std::string& key);

}  // namespace oversim::protocols
