// The client stub an application fiber uses: one blocking call per command, with a timeout.
//
// Two modes. Fixed: always the same server (a standalone Redis, or one RedLock instance).
// Sentinel: asks the sentinels, in order, for the primary when it has none cached (the first that
// answers wins and moves to the front, as redis-py's Sentinel client does), and forgets the cached
// primary after a timeout or a READONLY error so that the next call rediscovers it. The command
// itself is never retried: the caller sees every outcome, because a retried SET NX or DECRBY
// after an ambiguous timeout is exactly the kind of duplicate the designs must survive.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "models/redis/redis_state.h"
#include "sim/detached.h"
#include "sim/network.h"
#include "sim/node.h"
#include "sim/time.h"

namespace oversim::redis {

class RedisClient {
 public:
  static RedisClient fixed(sim::Node& app, sim::Node& server, Duration timeout = Duration::ms(50));
  static RedisClient via_sentinel(sim::Node& app, sim::Node& sentinel, Duration timeout = Duration::ms(50));
  static RedisClient via_sentinels(sim::Node& app, std::vector<sim::Node*> sentinels, Duration timeout = Duration::ms(50));

  // Blocks the calling fiber (which must run on `app`) for at most `timeout` in total,
  // discovery included. timed_out is ambiguous: the command may have been applied. When no
  // sentinel can be reached the command was never sent, but the result is timed_out too.
  sim::RpcResult<Reply> call(const Command& command);
  // The same call made by a parked fiber's continuations (sim::Detached): discovery, the command
  // and the client's bookkeeping happen at the instants call() would make them, and `done` gets
  // what call() would have returned. The client must outlive `detached`.
  void call_detached(sim::Detached& detached, const Command& command, std::function<void(sim::RpcResult<Reply>)> done);

  // The server the next call goes to; "" when a sentinel client has no primary cached.
  const std::string& server() const { return server_; }
  Duration timeout() const { return timeout_; }

 private:
  RedisClient(sim::Node& app, std::vector<sim::Node*> sentinels, std::string server, Duration timeout)
      : app_(&app), sentinels_(std::move(sentinels)), server_(std::move(server)), timeout_(timeout) {}
  bool discover(Instant deadline);
  void discover_detached(sim::Detached& detached, size_t i, Instant deadline, std::function<void(bool)> then);
  void send_detached(sim::Detached& detached, const Command& command, Instant deadline, std::function<void(sim::RpcResult<Reply>)> done);
  void after_reply(const sim::RpcResult<Reply>& r);

  sim::Node* app_;
  std::vector<sim::Node*> sentinels_;  // empty: fixed mode
  std::string server_;
  Duration timeout_;
};

}  // namespace oversim::redis
