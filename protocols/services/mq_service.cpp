#include "protocols/services/mq_service.h"

namespace oversim::protocols {

mq::MqConfig MqService::config(const Workload& w) {
  mq::MqConfig c;
  c.max_poll_interval = w.mq_max_poll_interval;
  return c;
}

MqService::MqService(sim::World& world, const Workload& w) : broker_(world, world.add_node(config(w).node), config(w)) {}

const std::string& MqService::kind() const {
  static const std::string k = "mq";
  return k;
}

void MqService::loads(std::vector<NodeLoad>& out) const { out.push_back(node_load(broker_.node().name(), broker_.config().service_time, broker_.load())); }

bool MqService::pending_work() const {
  for (const std::string& g : broker_.state().groups()) {
    if (broker_.state().lag(g) > 0) return true;
  }
  return false;
}

ServiceKind MqService::kind_entry() {
  return ServiceKind{
      "mq", "a message-queue broker (mq): one topic split into partitions by key, consumer groups, at-least-once delivery (Kafka's contract)",
      [](const Workload& w) { return std::vector<std::string>{config(w).node}; },
      [](const Workload&) { return Roles{}; },  // not a lock service: no profile aims at it by role
      [](sim::World& world, const Workload& w) -> std::unique_ptr<Service> { return std::make_unique<MqService>(world, w); },
      nullptr,
      {}};
}

}  // namespace oversim::protocols
