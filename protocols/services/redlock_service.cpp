#include "protocols/services/redlock_service.h"

#include <algorithm>

#include "protocols/services/redis_service.h"

namespace oversim::protocols {

redlock::RedLockConfig RedLockService::config(const Workload& w) {
  redlock::RedLockConfig c;
  // scenario_problem refuses a count outside 1..kMaxRedLockMasters before anything is built;
  // the clamp keeps node_names and roles (asked before that check) from indexing an empty list.
  c.masters = static_cast<uint32_t>(std::clamp(w.redlock_masters, 1, kMaxRedLockMasters));
  c.options.persistence = to_redis(w.redis_persistence);
  return c;
}

RedLockService::RedLockService(sim::World& world, const Workload& w) : deployment_(world, config(w)) {}

const std::string& RedLockService::kind() const {
  static const std::string k = "redlock";
  return k;
}

void RedLockService::removals(std::vector<LockRemoval>& out) const {
  for (size_t i = 0; i < deployment_.size(); ++i) add_removals(deployment_.master(i), out);
}

void RedLockService::loads(std::vector<NodeLoad>& out) const {
  for (size_t i = 0; i < deployment_.size(); ++i) out.push_back(load_of(deployment_.master(i)));
}

ServiceKind RedLockService::kind_entry() {
  ServiceKind k{
      "redlock", "N independent Redis masters (redlock-1..redlock-N, --masters) for the RedLock algorithm",
      [](const Workload& w) { return redlock::RedLockDeployment::node_names(config(w)); },
      [](const Workload& w) {
        Roles r;
        r.service = "redlock";
        r.lock_nodes = redlock::RedLockDeployment::node_names(config(w));
        r.lock_node = r.lock_nodes.front();
        r.far_side.assign(r.lock_nodes.begin() + 1, r.lock_nodes.end());
        r.holder_side = {r.lock_node};
        r.replicated = false;
        r.acquire_points = {"during_acquire"};
        return r;
      },
      [](sim::World& world, const Workload& w) -> std::unique_ptr<Service> { return std::make_unique<RedLockService>(world, w); }};
  k.points = {ServicePoint{"during_acquire", "the client acquiring the lock has heard from one master (between masters)", "the RedLock client"}};
  return k;
}

}  // namespace oversim::protocols
