// A Redis deployment in one line: nodes redis-1..redis-N, redis-1 the initial primary and the
// others its replicas, plus, when N > 1, one Sentinel on node "sentinel" or a group of them on
// "sentinel-1".."sentinel-S". Defaults describe a LAN deployment;
// docs/models-redis.md justifies each one. Build it after the World and destroy it after run().
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/redis/redis_client.h"
#include "models/redis/redis_server.h"
#include "models/redis/sentinel.h"
#include "sim/world.h"

namespace oversim::redis {

struct RedisConfig {
  uint32_t servers = 1;                          // 1: standalone; N: a primary, N-1 replicas, a sentinel
  Duration service_time = Duration::us(10);
  sim::Distribution replication_lag = sim::Distribution::constant(Duration::zero());  // drawn per write
  uint32_t acks_required = 0;
  Duration acks_timeout = Duration::ms(20);
  uint32_t min_replicas_to_write = 0;
  Duration min_replicas_max_lag = Duration::s(10);
  Persistence persistence = Persistence::none;
  Duration down_after = Duration::s(1);
  Duration sentinel_period = Duration::ms(100);
  Duration client_timeout = Duration::ms(50);
  uint32_t sentinels = 1;                        // when servers > 1
  uint32_t quorum = 0;                           // 0: a majority of the sentinels

  ServerOptions server_options() const;
};

class RedisDeployment {
 public:
  RedisDeployment(sim::World& world, RedisConfig config);
  // The nodes a deployment with `config` adds, in the order it adds them.
  static std::vector<std::string> node_names(const RedisConfig& config);

  const RedisConfig& config() const { return config_; }
  size_t size() const { return servers_.size(); }
  RedisServer& server(const std::string& name);
  // Before the run: `key` holds `value` on every server (RedisServer::preload).
  void preload(const std::string& key, const std::string& value) {
    for (auto& s : servers_) s->preload(key, value);
  }
  RedisServer& server(size_t index) { return *servers_.at(index); }  // 0 is redis-1
  const RedisServer& server(size_t index) const { return *servers_.at(index); }
  const RedisState& state(const std::string& name) { return server(name).state(); }
  const std::vector<std::unique_ptr<Sentinel>>& sentinels() const { return sentinels_; }
  // The sentinel whose configuration is the newest (the highest epoch; ties: the first), or
  // nullptr when standalone.
  const Sentinel* newest_sentinel() const;
  // That sentinel's view (redis-1 when standalone).
  std::string primary_name() const;
  // Every server that is up and believes it is a primary: more than one is split brain.
  std::vector<std::string> acting_primaries() const;
  // A client for a fiber on `app`: via the sentinels when there are any, else fixed to redis-1.
  RedisClient client(sim::Node& app) const;

 private:
  sim::World& world_;
  RedisConfig config_;
  std::vector<std::unique_ptr<RedisServer>> servers_;
  std::vector<std::unique_ptr<Sentinel>> sentinels_;
};

}  // namespace oversim::redis
