#include "protocols/services.h"

#include "protocols/services/etcd_service.h"
#include "protocols/services/mq_service.h"
#include "protocols/services/redis_service.h"
#include "protocols/services/redlock_service.h"
#include "protocols/services/zookeeper_service.h"

namespace oversim::protocols {

uint64_t NodeLoad::serves_per_second() const {
  if (service_time <= Duration::zero()) return 0;
  return static_cast<uint64_t>(Duration::s(1).count_ns() / service_time.count_ns());
}

bool NodeLoad::overloaded() const {
  const uint64_t serves = serves_per_second();
  // At least 4/5 of it, rounded up: serves - serves / 5.
  return serves > 0 && busiest_second_requests >= serves - serves / 5;
}

NodeLoad node_load(const std::string& node, Duration service_time, const sim::MailboxLoad& load) {
  return NodeLoad{node, service_time, load.messages, load.busiest_second_messages, load.busiest_second, load.longest_wait, load.longest_wait_at};
}

// One line per service kind.
const std::vector<ServiceKind>& service_kinds() {
  static const std::vector<ServiceKind> all = {
      RedisService::kind_entry(),
      RedLockService::kind_entry(),
      ZooKeeperService::kind_entry(),
      EtcdService::kind_entry(),
      MqService::kind_entry(),
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
