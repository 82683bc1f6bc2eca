// The client stub an application fiber uses to reach the broker: one blocking call per request,
// with a timeout, never retried (a timed-out produce may have appended: sending it again is the
// duplicate a consumer must survive).
#pragma once

#include <string>

#include "models/mq/mq_broker.h"
#include "sim/network.h"
#include "sim/node.h"

namespace oversim::mq {

class MqClient {
 public:
  MqClient(sim::Node& app, sim::Node& broker, Duration timeout = Duration::ms(100)) : app_(&app), broker_(&broker), timeout_(timeout) {}

  sim::RpcResult<Record> produce(const std::string& key, const std::string& value);
  sim::RpcResult<Assignment> join(const std::string& group, const std::string& member);
  sim::RpcResult<PollResult> poll(const std::string& group, const std::string& member, uint64_t generation, uint32_t max_records);
  sim::RpcResult<CommitStatus> commit(const std::string& group, const std::string& member, uint64_t generation, uint32_t partition,
                                      uint64_t next_offset);

 private:
  sim::Node* app_;
  sim::Node* broker_;
  Duration timeout_;
};

}  // namespace oversim::mq
