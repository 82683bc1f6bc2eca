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

void RedisClient::after_reply(const sim::RpcResult<Reply>& r) {
  if (sentinels_.empty()) return;
  const bool readonly = r.ok() && r.value->is_error() && std::string_view(r.value->error_message()).starts_with("READONLY");
  if (!r.ok() || readonly) server_.clear();  // ask the sentinel again next time
}

void RedisClient::discover_detached(sim::Detached& detached, size_t i, Instant deadline, std::function<void(bool)> then) {
  // discover(), one sentinel per continuation.
  sim::World& world = app_->world();
  if (i == sentinels_.size()) return then(false);
  const Duration left = deadline - world.now();
  if (left <= Duration::zero()) return then(false);
  const Duration share = left / static_cast<int64_t>(sentinels_.size() - i);
  detached.call(*sentinels_[i], "sentinel", GetPrimary{}, "SENTINEL get-master-addr-by-name", share,
                [this, &detached, i, deadline, then = std::move(then)](sim::RpcResult<std::any> r) mutable {
                  if (!r.ok()) return discover_detached(detached, i + 1, deadline, std::move(then));
                  const auto& primary = std::any_cast<const PrimaryAddress&>(*r.value);
                  if (sentinels_.size() > 1 && primary.down) return discover_detached(detached, i + 1, deadline, std::move(then));
                  server_ = primary.primary;
                  std::rotate(sentinels_.begin(), sentinels_.begin() + static_cast<std::ptrdiff_t>(i),
                              sentinels_.begin() + static_cast<std::ptrdiff_t>(i) + 1);
                  then(true);
                });
}

void RedisClient::send_detached(sim::Detached& detached, const Command& command, Instant deadline, std::function<void(sim::RpcResult<Reply>)> done) {
  sim::World& world = app_->world();
  const Duration left = deadline - world.now();
  if (left <= Duration::zero()) return done({});
  detached.call(world.node(server_), "redis", command, to_string(command), left,
                [this, done = std::move(done)](sim::RpcResult<std::any> r) {
                  sim::RpcResult<Reply> reply = sim::Network::as<Reply>(std::move(r));
                  after_reply(reply);
                  done(std::move(reply));
                });
}

void RedisClient::call_detached(sim::Detached& detached, const Command& command, std::function<void(sim::RpcResult<Reply>)> done) {
  const Instant deadline = app_->world().now() + timeout_;
  if (!server_.empty()) return send_detached(detached, command, deadline, std::move(done));
  discover_detached(detached, 0, deadline, [this, &detached, command, deadline, done = std::move(done)](bool found) mutable {
    if (!found) return done({});
    send_detached(detached, command, deadline, std::move(done));
  });
}

sim::RpcResult<Reply> RedisClient::call(const Command& command) {
  sim::World& world = app_->world();
  const Instant deadline = world.now() + timeout_;
  if (server_.empty() && !discover(deadline)) return {};
  const Duration left = deadline - world.now();
  if (left <= Duration::zero()) return {};
  sim::RpcResult<Reply> r =
      world.network().call_as<Reply>(*app_, world.node(server_), "redis", command, to_string(command), left);
  after_reply(r);
  return r;
}

}  // namespace oversim::redis
