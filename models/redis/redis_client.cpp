#include "models/redis/redis_client.h"

#include <string_view>

#include "models/redis/sentinel.h"
#include "sim/world.h"

namespace oversim::redis {

RedisClient RedisClient::fixed(sim::Node& app, sim::Node& server, Duration timeout) {
  return RedisClient(app, nullptr, server.name(), timeout);
}

RedisClient RedisClient::via_sentinel(sim::Node& app, sim::Node& sentinel, Duration timeout) {
  return RedisClient(app, &sentinel, "", timeout);
}

bool RedisClient::discover(Instant deadline) {
  sim::World& world = app_->world();
  const Duration left = deadline - world.now();
  if (left <= Duration::zero()) return false;
  sim::RpcResult<PrimaryAddress> r = world.network().call_as<PrimaryAddress>(
      *app_, *sentinel_, "sentinel", GetPrimary{}, "SENTINEL get-master-addr-by-name", left);
  if (!r.ok()) return false;
  server_ = r.value->primary;
  return true;
}

sim::RpcResult<Reply> RedisClient::call(const Command& command) {
  sim::World& world = app_->world();
  const Instant deadline = world.now() + timeout_;
  if (server_.empty() && !discover(deadline)) return {};
  const Duration left = deadline - world.now();
  if (left <= Duration::zero()) return {};
  sim::RpcResult<Reply> r =
      world.network().call_as<Reply>(*app_, world.node(server_), "redis", command, to_string(command), left);
  if (sentinel_ != nullptr) {
    const bool readonly = r.ok() && r.value->is_error() && std::string_view(r.value->error_message()).starts_with("READONLY");
    if (!r.ok() || readonly) server_.clear();  // ask the sentinel again next time
  }
  return r;
}

}  // namespace oversim::redis
