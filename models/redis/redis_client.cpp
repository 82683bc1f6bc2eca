#include "models/redis/redis_client.h"

#include <algorithm>
#include <cstddef>
#include <string_view>

#include "models/redis/sentinel.h"
#include "sim/world.h"

namespace oversim::redis {

RedisClient RedisClient::fixed(sim::Node& app, sim::Node& server, Duration timeout) {
  return RedisClient(app, {}, server.name(), timeout);
}

RedisClient RedisClient::via_sentinel(sim::Node& app, sim::Node& sentinel, Duration timeout) {
  return RedisClient(app, {&sentinel}, "", timeout);
}

RedisClient RedisClient::via_sentinels(sim::Node& app, std::vector<sim::Node*> sentinels, Duration timeout) {
  if (sentinels.empty()) throw sim::SimError("a Sentinel client needs at least one sentinel");
  return RedisClient(app, std::move(sentinels), "", timeout);
}

bool RedisClient::discover(Instant deadline) {
  sim::World& world = app_->world();
  for (size_t i = 0; i < sentinels_.size(); ++i) {
    const Duration left = deadline - world.now();
    if (left <= Duration::zero()) return false;
    // Each sentinel still to ask gets an equal share of what is left (all of it when one is left).
    const Duration share = left / static_cast<int64_t>(sentinels_.size() - i);
    sim::RpcResult<PrimaryAddress> r = world.network().call_as<PrimaryAddress>(
        *app_, *sentinels_[i], "sentinel", GetPrimary{}, "SENTINEL get-master-addr-by-name", share);
    if (!r.ok()) continue;
    // In a group, a sentinel that sees its primary down is skipped, as redis-py's
    // check_master_state does: another sentinel may know of a failover.
    if (sentinels_.size() > 1 && r.value->down) continue;
    server_ = r.value->primary;
    std::rotate(sentinels_.begin(), sentinels_.begin() + static_cast<std::ptrdiff_t>(i), sentinels_.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    return true;
  }
  return false;
}

sim::RpcResult<Reply> RedisClient::call(const Command& command) {
  sim::World& world = app_->world();
  const Instant deadline = world.now() + timeout_;
  if (server_.empty() && !discover(deadline)) return {};
  const Duration left = deadline - world.now();
  if (left <= Duration::zero()) return {};
  sim::RpcResult<Reply> r =
      world.network().call_as<Reply>(*app_, world.node(server_), "redis", command, to_string(command), left);
  if (!sentinels_.empty()) {
    const bool readonly = r.ok() && r.value->is_error() && std::string_view(r.value->error_message()).starts_with("READONLY");
    if (!r.ok() || readonly) server_.clear();  // ask the sentinel again next time
  }
  return r;
}

}  // namespace oversim::redis
