// The "redlock" service: N independent Redis masters redlock-1..redlock-N (--masters, default 5)
// for the RedLock algorithm (models/redlock/). Designs reach it through the RedLock recipe steps
// (protocols/steps.h).
#pragma once

#include <string>

#include "models/redlock/redlock_client.h"
#include "models/redlock/redlock_deployment.h"
#include "protocols/services.h"

namespace oversim::protocols {

class RedLockService : public Service {
 public:
  RedLockService(sim::World& world, const Workload& w);
  static redlock::RedLockConfig config(const Workload& w);
  static ServiceKind kind_entry();

  const std::string& kind() const override;
  void removals(std::vector<LockRemoval>& out) const override;
  void loads(std::vector<NodeLoad>& out) const override;
  redlock::RedLockDeployment& deployment() { return deployment_; }
  const redlock::RedLockDeployment& deployment() const { return deployment_; }

 private:
  redlock::RedLockDeployment deployment_;
};

}  // namespace oversim::protocols
