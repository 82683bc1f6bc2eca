// The "mq" service: one message-queue broker node, `mq` (models/mq/): a topic split into
// partitions by key (a design keys its records by SKU), consumer groups, at-least-once delivery.
// A design reaches it through BuyContext::mq() and JobContext::mq(); it is never a lock service.
#pragma once

#include <memory>
#include <string>

#include "models/mq/mq_broker.h"
#include "protocols/services.h"

namespace oversim::protocols {

class MqService : public Service {
 public:
  MqService(sim::World& world, const Workload& w);
  static mq::MqConfig config(const Workload& w);
  static ServiceKind kind_entry();

  const std::string& kind() const override;
  void removals(std::vector<LockRemoval>&) const override {}
  void loads(std::vector<NodeLoad>& out) const override;
  bool pending_work() const override;
  mq::MqBroker& broker() { return broker_; }
  const mq::MqBroker& broker() const { return broker_; }

 private:
  mq::MqBroker broker_;
};

}  // namespace oversim::protocols
