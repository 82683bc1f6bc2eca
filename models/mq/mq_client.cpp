#include "models/mq/mq_client.h"

#include <fmt/format.h>

namespace oversim::mq {

sim::RpcResult<Record> MqClient::produce(const std::string& key, const std::string& value) {
  return app_->world().network().call_as<Record>(*app_, *broker_, kPort, ProduceRequest{key, value}, fmt::format("PRODUCE {}", key), timeout_);
}

sim::RpcResult<Assignment> MqClient::join(const std::string& group, const std::string& member) {
  return app_->world().network().call_as<Assignment>(*app_, *broker_, kPort, JoinRequest{group, member}, fmt::format("JOIN {} {}", group, member), timeout_);
}

sim::RpcResult<PollResult> MqClient::poll(const std::string& group, const std::string& member, uint64_t generation, uint32_t max_records) {
  return app_->world().network().call_as<PollResult>(*app_, *broker_, kPort, PollRequest{group, member, generation, max_records},
                                                     fmt::format("POLL {} {}", group, member), timeout_);
}

sim::RpcResult<CommitStatus> MqClient::commit(const std::string& group, const std::string& member, uint64_t generation, uint32_t partition,
                                              uint64_t next_offset) {
  return app_->world().network().call_as<CommitStatus>(*app_, *broker_, kPort, CommitRequest{group, member, generation, partition, next_offset},
                                                       fmt::format("COMMIT {} {}@{}", member, partition, next_offset), timeout_);
}

}  // namespace oversim::mq
