#include "models/redis/sentinel.h"

#include <fmt/format.h>

#include <algorithm>
#include <any>
#include <optional>
#include <utility>

#include "sim/network.h"
#include "sim/sync.h"

namespace oversim::redis {

Sentinel::Sentinel(sim::World& world, sim::Node& node, std::vector<std::string> servers, std::string primary,
                   SentinelOptions options)
    : world_(world), node_(node), servers_(std::move(servers)), options_(options), primary_(std::move(primary)) {
  node_.set_boot([this](sim::Node&) { boot(); });
}

void Sentinel::boot() {
  // Every server starts as "last heard now", so a fresh sentinel gives each down_after to answer.
  seen_.clear();
  for (const std::string& server : servers_) seen_[server] = Observation{node_.local_now(), {}, false};
  primary_down_ = false;
  for (const std::string& server : servers_) {
    world_.spawn(&node_, "sentinel/monitor-" + server, [this, server] { monitor(server); }, true);
  }
  world_.spawn(&node_, "sentinel/decide", [this] { decide_loop(); }, true);
  world_.spawn(&node_, "sentinel/clients", [this] { serve_clients(); }, true);
}

void Sentinel::monitor(const std::string& server) {
  // Each monitor writes only its own server's observation (decide reads them all).
  const auto index = static_cast<uint32_t>(std::find(servers_.begin(), servers_.end(), server) - servers_.begin());
  world_.declare_actor(index + 1);
  sim::Node& target = world_.node(server);
  for (;;) {
    sim::RpcResult<ServerInfo> r =
        world_.network().call_as<ServerInfo>(node_, target, "redis", InfoCommand{}, "INFO replication", options_.period);
    if (r.ok()) seen_[server] = Observation{node_.local_now(), *r.value, true};
    sim::sleep_local(options_.period);
  }
}

bool Sentinel::fresh(const Observation& o) const {
  // sentinelSelectSlave skips replicas whose last PING reply is older than 5 ping periods.
  return o.answered && node_.local_now() - o.last_reply_local <= options_.period * 5;
}

void Sentinel::decide_loop() {
  for (;;) {
    sim::sleep_local(options_.period);
    const Observation& primary = seen_.at(primary_);
    if (node_.local_now() - primary.last_reply_local > options_.down_after) {
      if (!primary_down_) {
        primary_down_ = true;
        world_.trace_at(&node_, "sdown", {{"primary", primary_},
                                          {"silent_for", sim::format_duration(node_.local_now() - primary.last_reply_local)}});
      }
      failover();
    } else {
      primary_down_ = false;
      reconfigure();
    }
  }
}

void Sentinel::failover() {
  std::string best;
  uint64_t best_offset = 0;
  for (const auto& [name, o] : seen_) {  // name order: ties go to the lower name
    // A replica still waiting for its first full resync holds nothing worth promoting.
    if (name == primary_ || !fresh(o) || o.info.role != Role::replica || !o.info.synced) continue;
    if (best.empty() || o.info.offset > best_offset) {
      best = name;
      best_offset = o.info.offset;
    }
  }
  if (best.empty()) return;  // nobody to promote yet; try again next period
  sim::RpcResult<ServerInfo> r = world_.network().call_as<ServerInfo>(
      node_, world_.node(best), "redis", ReplicaOfCommand{""}, "REPLICAOF NO ONE", options_.period);
  if (!r.ok() || r.value->role != Role::primary) return;
  const std::string old = primary_;
  primary_ = best;
  ++epoch_;
  primary_down_ = false;
  seen_[best] = Observation{node_.local_now(), *r.value, true};
  world_.trace_at(&node_, "failover", {{"old", old}, {"new", best}, {"offset", std::to_string(r.value->offset)},
                                       {"epoch", std::to_string(epoch_)}});
  reconfigure();
}

void Sentinel::reconfigure() {
  for (const auto& [name, o] : seen_) {
    if (name == primary_ || !fresh(o)) continue;
    if (o.info.role == Role::replica && o.info.primary == primary_) continue;
    // An old primary that came back, or a replica still following it.
    world_.trace_at(&node_, "sentinel-reconfigure", {{"server", name}, {"primary", primary_}});
    sim::RpcResult<ServerInfo> r = world_.network().call_as<ServerInfo>(
        node_, world_.node(name), "redis", ReplicaOfCommand{primary_}, "REPLICAOF " + primary_, options_.period);
    if (r.ok()) seen_[name] = Observation{node_.local_now(), *r.value, true};
  }
}

void Sentinel::serve_clients() {
  for (;;) {
    std::optional<sim::Message> m = node_.mailbox("sentinel").receive(std::nullopt, "sentinel clients");
    world_.network().reply(node_, *m, PrimaryAddress{primary_, epoch_}, fmt::format("primary={} epoch={}", primary_, epoch_));
  }
}

}  // namespace oversim::redis
