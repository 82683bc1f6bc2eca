#include "protocols/services.h"

#include "protocols/services/redis_service.h"
#include "protocols/services/redlock_service.h"
#include "protocols/services/zookeeper_service.h"

namespace oversim::protocols {

// One line per service kind.
const std::vector<ServiceKind>& service_kinds() {
  static const std::vector<ServiceKind> all = {
      RedisService::kind_entry(),
      RedLockService::kind_entry(),
      ZooKeeperService::kind_entry(),
  };
  return all;
}

const ServiceKind* find_service_kind(const std::string& name) {
  for (const ServiceKind& k : service_kinds()) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

}  // namespace oversim::protocols
