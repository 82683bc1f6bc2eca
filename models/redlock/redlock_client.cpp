#include "models/redlock/redlock_client.h"

#include <fmt/format.h>

#include "models/redis/redis_client.h"
#include "sim/sync.h"
#include "sim/world.h"

namespace oversim::redlock {

RedLockClient::RedLockClient(sim::Node& app, std::vector<sim::Node*> masters, RedLockOptions options, std::function<std::string()> new_value)
    : app_(app), masters_(std::move(masters)), options_(options), new_value_(std::move(new_value)) {
  if (masters_.empty()) throw sim::SimError("a RedLock client needs at least one master");
}

int64_t RedLockClient::drift_ms(Duration ttl) const {
  return ttl.count_ms() * options_.drift_factor_permille / 1000 + options_.drift_extra.count_ms();
}

std::optional<RedLockHold> RedLockClient::lock_once(const std::string& resource, Duration ttl) {
  sim::World& world = app_.world();
  const std::string value = new_value_();
  const int64_t start_ms = redis::to_ms(app_.local_now());
  RedLockTry t;
  for (sim::Node* master : masters_) {
    redis::RedisClient client = redis::RedisClient::fixed(app_, *master, options_.node_timeout);
    auto r = client.call(redis::Command::set_nx_px(resource, value, ttl.count_ms()));
    if (r.ok() && r.value->kind() == redis::Reply::Kind::ok) ++t.locked;
    world.reach("during_acquire");
  }
  t.elapsed_ms = redis::to_ms(app_.local_now()) - start_ms;
  t.validity_ms = ttl.count_ms() - t.elapsed_ms - drift_ms(ttl);
  t.acquired = t.locked >= quorum() && (!options_.check_validity || t.validity_ms >= 0);
  tries_.push_back(t);
  world.trace("redlock", {{"resource", resource},
                          {"value", value},
                          {"locked", fmt::format("{}/{}", t.locked, masters_.size())},
                          {"elapsed", fmt::format("{}ms", t.elapsed_ms)},
                          {"validity", fmt::format("{}ms", t.validity_ms)},
                          {"result", t.acquired ? "acquired" : t.locked >= quorum() ? "refused (validity)" : "no quorum"}});
  if (t.acquired) return RedLockHold{resource, value, t.validity_ms, t.locked};
  unlock(resource, value);
  return std::nullopt;
}

std::optional<RedLockHold> RedLockClient::lock(const std::string& resource, Duration ttl) {
  sim::World& world = app_.world();
  for (uint32_t attempt = 0; attempt <= options_.retry_count; ++attempt) {
    if (attempt > 0) {
      const int64_t jitter_ms = options_.retry_jitter.count_ms() > 0 ? static_cast<int64_t>(world.random(static_cast<uint64_t>(options_.retry_jitter.count_ms()))) : 0;
      sim::sleep_for(options_.retry_delay + Duration::ms(jitter_ms));
    }
    if (auto hold = lock_once(resource, ttl)) return hold;
  }
  return std::nullopt;
}

uint32_t RedLockClient::unlock(const std::string& resource, const std::string& value) {
  uint32_t deleted = 0;
  for (sim::Node* master : masters_) {
    redis::RedisClient client = redis::RedisClient::fixed(app_, *master, options_.node_timeout);
    auto r = client.call(redis::Command::del_if_equals(resource, value));
    if (r.ok() && r.value->kind() == redis::Reply::Kind::integer && r.value->as_integer() == 1) ++deleted;
  }
  return deleted;
}

}  // namespace oversim::redlock
