// The message-queue broker: one node ("mq") serving MqState over the network, one request at a
// time, and expiring members that stopped polling (max.poll.interval.ms) on its own clock.
//
// A crash makes it unreachable; on restart it keeps its log and the committed offsets (what a
// replicated Kafka cluster keeps when one broker dies) and forgets every group's members, who
// then join again. The broker traces every append, delivery, commit and rebalance.
#pragma once

#include <cstdint>
#include <string>

#include "models/mq/mq_state.h"
#include "sim/network.h"
#include "sim/node.h"
#include "sim/world.h"

namespace oversim::mq {

struct MqConfig {
  std::string node = "mq";
  uint32_t partitions = 4;
  // Kafka's default is 5 minutes for batch consumers; a flash sale's order consumer is tuned to
  // notice a stalled member within about a second.
  Duration max_poll_interval = Duration::s(1);
  Duration expiry_period = Duration::ms(100);  // how often the coordinator looks for them
  Duration service_time = Duration::us(50);    // per request
};

// Requests and replies, as message bodies.
struct ProduceRequest {
  std::string key;
  std::string value;
};
struct JoinRequest {
  std::string group;
  std::string member;
};
struct PollRequest {
  std::string group;
  std::string member;
  uint64_t generation = 0;
  uint32_t max_records = 1;
};
struct CommitRequest {
  std::string group;
  std::string member;
  uint64_t generation = 0;
  uint32_t partition = 0;
  uint64_t next_offset = 0;
};

inline constexpr const char* kPort = "mq";

class MqBroker {
 public:
  MqBroker(sim::World& world, sim::Node& node, MqConfig config);
  MqBroker(const MqBroker&) = delete;
  MqBroker& operator=(const MqBroker&) = delete;

  sim::Node& node() const { return node_; }
  const MqState& state() const { return state_; }
  const MqConfig& config() const { return config_; }
  sim::MailboxLoad load() const;

 private:
  void boot();
  void serve();
  void expiry_loop();

  sim::World& world_;
  sim::Node& node_;
  MqConfig config_;
  MqState state_;
};

}  // namespace oversim::mq
