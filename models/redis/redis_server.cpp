#include "models/redis/redis_server.h"

#include <fmt/format.h>

#include <algorithm>
#include <any>
#include <utility>

#include "sim/network.h"

namespace oversim::redis {
namespace {

constexpr const char* kPort = "redis";
constexpr const char* kReplicationPort = "replication";

// The replication link's messages (PSYNC, the RDB transfer, the command stream, REPLCONF ACK).
struct SyncRequest {};
struct FullSync {
  RedisState snapshot;
};
struct EntryBatch {
  std::vector<ReplicationEntry> entries;  // empty: a heartbeat
  uint64_t sent_offset = 0;               // the last offset the primary shipped on this link
};
struct Ack {
  uint64_t offset = 0;
};

std::string summary_of(const EntryBatch& batch) {
  if (batch.entries.empty()) return fmt::format("PING (shipped up to #{})", batch.sent_offset);
  std::string out;
  for (const ReplicationEntry& entry : batch.entries) {
    if (!out.empty()) out += "; ";
    out += to_string(entry);
  }
  return out;
}

int64_t whole_second_ms(int64_t local_ms) {
  int64_t s = local_ms / 1000;
  if (local_ms % 1000 < 0) --s;  // floor
  return s * 1000;
}

}  // namespace

const char* to_string(Persistence persistence) {
  switch (persistence) {
    case Persistence::none: return "none";
    case Persistence::aof_everysec: return "aof_everysec";
    case Persistence::aof_always: return "aof_always";
  }
  return "?";
}

RedisServer::RedisServer(sim::World& world, sim::Node& node, ServerOptions options, std::string replica_of)
    : world_(world), node_(node), options_(options), replica_of_(std::move(replica_of)) {
  if (!replica_of_.empty()) state_.set_role(Role::replica);
  node_.set_on_crash([this](sim::Node&) { on_crash(); });
  node_.set_boot([this](sim::Node&) { boot(); });
}

ServerInfo RedisServer::info() const {
  return ServerInfo{state_.role(), replica_of_, state_.replication_offset(), state_.role() == Role::primary || synced_, hello_};
}

sim::MailboxLoad RedisServer::load() const {
  const sim::Mailbox* box = node_.find_mailbox(kPort);
  return box == nullptr ? sim::MailboxLoad{} : box->load();
}

sim::Node& RedisServer::node_by_id(sim::NodeId id) const { return *world_.nodes().at(id); }

// ---- lifecycle ---------------------------------------------------------------------------------

void RedisServer::start_lineage() {
  const std::string id = fmt::format("{}:{}", name(), ++lineages_started_);
  state_.start_lineage(id);
  if (options_.persistence != Persistence::none) durable_.start_lineage(id);
}

void RedisServer::record_ack(const std::string& key, uint64_t offset, sim::NodeId from) {
  if (lineages_.empty() || lineages_.back() != state_.lineage()) lineages_.push_back(state_.lineage());
  acked_.push_back(AckedWrite{key, static_cast<uint32_t>(lineages_.size() - 1), offset, from, world_.now(), world_.steps()});
}

void RedisServer::boot() {
  state_.set_role(replica_of_.empty() ? Role::primary : Role::replica);
  if (replica_of_.empty() && state_.lineage().empty()) start_lineage();
  synced_ = false;
  world_.spawn(&node_, name() + "/serve", [this] { serve(); }, true);
  world_.spawn(&node_, name() + "/replication", [this] { replication_loop(); }, true);
  world_.spawn(&node_, name() + "/feeder", [this] { feeder_loop(); }, true);
  world_.spawn(&node_, name() + "/cron", [this] { cron_loop(); }, true);
  world_.spawn(&node_, name() + "/expire", [this] { expire_loop(); }, true);
}

void RedisServer::on_crash() {
  hello_ = {};
  subscribers_.clear();  // their connections die with the process
  links_.clear();
  backlog_.clear();
  backlog_grew_.reset();
  synced_ = false;
  // What the process would load from disk at its next start.
  switch (options_.persistence) {
    case Persistence::none: state_ = RedisState{}; break;
    case Persistence::aof_always: state_ = durable_; break;
    case Persistence::aof_everysec:
      fsync_before(whole_second_ms(to_ms(node_.local_now())));
      unsynced_.clear();
      state_ = durable_;
      break;
  }
  state_.set_role(replica_of_.empty() ? Role::primary : Role::replica);
  world_.trace_at(&node_, "redis-recover", {{"persistence", to_string(options_.persistence)},
                                            {"keys", std::to_string(state_.size())},
                                            {"offset", std::to_string(state_.replication_offset())}});
}

void RedisServer::replica_of(const std::string& primary) {
  if (primary.empty()) {
    if (replica_of_.empty()) return;
    replica_of_.clear();
    state_.set_role(Role::primary);
    start_lineage();
  } else {
    if (replica_of_ == primary && synced_) return;  // "OK Already connected to specified master"
    replica_of_ = primary;
    state_.set_role(Role::replica);
  }
  // Either way the old links end: a new primary starts with no replicas, a new replica drops its
  // own replicas and waits for the full resync.
  links_.clear();
  backlog_.clear();
  synced_ = false;
  acks_changed_.notify_all();
  world_.trace_at(&node_, "redis-role", {{"role", replica_of_.empty() ? "primary" : "replica"},
                                         {"of", replica_of_},
                                         {"offset", std::to_string(state_.replication_offset())}});
  if (!replica_of_.empty()) request_sync();
}

// ---- commands ----------------------------------------------------------------------------------

void RedisServer::serve() {
  for (;;) {
    std::optional<sim::Message> m = node_.mailbox(kPort).receive(std::nullopt, "redis command");
    sim::sleep_for(options_.service_time);
    if (const Command* command = std::any_cast<Command>(&m->body)) {
      handle_command(*m, *command);
    } else {
      handle_admin(*m);
    }
  }
}

void RedisServer::reply(const sim::Message& request, const Command& command, const Reply& r) {
  std::string text = to_string(r);
  // The request's summary is the command as the client wrote it (RedisClient sends
  // to_string(command)): not formatted a second time.
  const std::string formatted = request.summary.empty() ? to_string(command) : std::string();
  world_.trace_view(&node_, "redis", {{"cmd", request.summary.empty() ? formatted : request.summary}, {"reply", text}, {"from", node_by_id(request.from).name()}});
  world_.network().reply(node_, request, r, std::move(text));
}

void RedisServer::handle_command(const sim::Message& request, const Command& command) {
  const bool primary = state_.role() == Role::primary;
  if (primary && command.is_write() && options_.min_replicas_to_write > 0 &&
      good_replicas() < options_.min_replicas_to_write) {
    reply(request, command, Reply::error("NOREPLICAS Not enough good replicas to write."));
    return;
  }
  // A client delete's key and the value it holds now: if the DEL answers 1, that value is what
  // it removed (an expired key is not removed: DEL answers 0).
  const std::string* deleted_key = nullptr;
  if (const auto* del = std::get_if<Del>(&command.op)) deleted_key = &del->key;
  if (const auto* del = std::get_if<DelIfEquals>(&command.op)) deleted_key = &del->key;
  const auto held = deleted_key == nullptr ? state_.entries().end() : state_.entries().find(*deleted_key);
  std::optional<std::string> held_value;
  if (held != state_.entries().end()) held_value = held->second.value;
  ApplyResult result = state_.apply(command, node_.local_now());
  if (!result.expired.empty()) notify_expired(result.expired);
  if (held_value && result.reply.kind() == Reply::Kind::integer && result.reply.as_integer() == 1) {
    removals_.push_back(Removal{*deleted_key, *held_value, node_by_id(request.from).name(), world_.now(), world_.steps()});
  }
  uint64_t offset = state_.replication_offset();
  const bool wrote = !result.replicated.empty();
  const bool only_unreplicated = backlog_.empty();  // every earlier write has left for the replicas
  if (wrote) publish(std::move(result.replicated));
  if (primary && wrote && command.is_write() && options_.acks_required > 0) {
    world_.spawn(&node_, name() + "/wait", [this, request, command, r = result.reply, offset] {
      wait_for_acks(request, command, r, offset);
    }, true);
    return;
  }
  if (primary && wrote && command.is_write() && !result.reply.is_error()) record_ack(command.key(), offset, request.from);
  reply(request, command, result.reply);
  // The fault point a failover profile aims at: the client has its answer, the replicas have
  // every earlier write but not this one (it reaches them after the replication lag). A crash
  // now loses exactly this write.
  if (primary && wrote && only_unreplicated && !links_.empty()) world_.reach("write_unreplicated");
}

void RedisServer::wait_for_acks(sim::Message request, Command command, Reply r, uint64_t offset) {
  const Instant deadline = world_.now() + options_.acks_timeout;
  while (replicas_acked(offset) < options_.acks_required) {
    if (acks_changed_.wait(deadline, "WAIT replicas") == sim::WakeReason::timed_out) break;
  }
  const uint32_t acked = replicas_acked(offset);
  if (acked >= options_.acks_required && !r.is_error()) record_ack(command.key(), offset, request.from);
  if (acked < options_.acks_required) {
    r = Reply::error(fmt::format("NOACK WAIT {} {}: {} replicas acknowledged offset {} (the write stays applied on {})",
                                 options_.acks_required, sim::format_duration(options_.acks_timeout), acked,
                                 offset, name()));
  }
  reply(request, command, r);
}

void RedisServer::handle_admin(const sim::Message& request) {
  if (const auto* hello = std::any_cast<SentinelHelloPublish>(&request.body)) {
    if (hello->config_epoch > hello_.config_epoch || (hello->config_epoch == hello_.config_epoch && hello->current_epoch > hello_.current_epoch)) {
      hello_ = *hello;
    }
    return;  // PUBLISH: one way
  }
  if (const auto* subscribe = std::any_cast<SubscribeExpired>(&request.body)) {
    // SUBSCRIBE: one way; a subscriber already connected with this port is not added twice.
    const uint64_t incarnation = node_by_id(request.from).incarnation();
    bool known = false;
    for (Subscriber& sub : subscribers_) {
      if (sub.node != request.from || sub.port != subscribe->port) continue;
      known = true;
      sub.incarnation = incarnation;
    }
    if (!known) {
      subscribers_.push_back(Subscriber{request.from, incarnation, subscribe->port});
      world_.trace_at(&node_, "redis", {{"cmd", "SUBSCRIBE __keyevent@0__:expired"}, {"from", node_by_id(request.from).name()}});
    }
    return;
  }
  std::string cmd = "INFO replication";
  if (const auto* replica_of_command = std::any_cast<ReplicaOfCommand>(&request.body)) {
    cmd = replica_of_command->primary.empty() ? "REPLICAOF NO ONE" : "REPLICAOF " + replica_of_command->primary;
    replica_of(replica_of_command->primary);
  } else if (std::any_cast<InfoCommand>(&request.body) == nullptr) {
    throw sim::SimError(fmt::format("{}: unknown request '{}'", name(), request.summary));
  }
  ServerInfo i = info();
  std::string text = fmt::format("role={} of={} offset={}", i.role == Role::primary ? "primary" : "replica",
                                 i.primary, i.offset);
  if (cmd != "INFO replication") world_.trace_at(&node_, "redis", {{"cmd", cmd}, {"reply", text}});
  world_.network().reply(node_, request, i, std::move(text));
}

uint32_t RedisServer::good_replicas() const {
  const Instant now = node_.local_now();
  uint32_t good = 0;
  for (const auto& [id, link] : links_) {
    if (now - link.last_ack_local <= options_.min_replicas_max_lag) ++good;
  }
  return good;
}

uint32_t RedisServer::replicas_acked(uint64_t offset) const {
  uint32_t acked = 0;
  for (const auto& [id, link] : links_) {
    if (link.acked_offset >= offset) ++acked;
  }
  return acked;
}

// ---- replication and persistence --------------------------------------------------------------

void RedisServer::publish(std::vector<ReplicationEntry> entries) {
  for (ReplicationEntry& entry : entries) {
    persist(entry);
    // The stream stays in order: a write whose drawn lag is shorter ships with the one before it.
    last_due_ = std::max(last_due_, world_.now() + draw(world_, options_.replication_lag));
    backlog_.push_back(Pending{last_due_, std::move(entry)});
  }
  backlog_grew_.set();
}

void RedisServer::notify_expired(const std::vector<std::string>& keys) {
  // A subscriber whose process died since it subscribed has lost its connection: it is gone.
  std::erase_if(subscribers_, [this](const Subscriber& sub) {
    const sim::Node& n = node_by_id(sub.node);
    return !n.up() || n.incarnation() != sub.incarnation;
  });
  for (const std::string& key : keys) {
    for (const Subscriber& sub : subscribers_) {
      world_.network().send(node_, node_by_id(sub.node), sub.port, ExpiredEvent{key, name()}, "expired " + key);
    }
  }
}

void RedisServer::feeder_loop() {
  for (;;) {
    const Instant now = world_.now();
    std::optional<Instant> next_due;
    for (auto& [id, link] : links_) {
      EntryBatch batch;
      for (const Pending& pending : backlog_) {
        if (pending.entry.offset <= link.sent_offset) continue;
        if (pending.due > now) {
          if (!next_due || pending.due < *next_due) next_due = pending.due;
          break;
        }
        batch.entries.push_back(pending.entry);
      }
      if (batch.entries.empty()) continue;
      link.sent_offset = batch.entries.back().offset;
      batch.sent_offset = link.sent_offset;
      std::string summary = summary_of(batch);
      world_.network().send(node_, node_by_id(id), kReplicationPort, std::move(batch), std::move(summary));
    }
    // Keep only what some replica still needs; a replica attaching later gets a full resync.
    uint64_t shipped = state_.replication_offset();
    for (const auto& [id, link] : links_) shipped = std::min(shipped, link.sent_offset);
    std::erase_if(backlog_, [&](const Pending& p) { return p.entry.offset <= shipped; });
    backlog_grew_.reset();
    if (next_due) {
      sim::sleep_until(*next_due);
    } else {
      backlog_grew_.wait("replication backlog");
    }
  }
}

void RedisServer::replication_loop() {
  for (;;) {
    std::optional<sim::Message> m = node_.mailbox(kReplicationPort).receive(std::nullopt, "replication");
    const bool from_my_primary = state_.role() == Role::replica && node_by_id(m->from).name() == replica_of_;
    if (std::any_cast<SyncRequest>(&m->body) != nullptr) {
      if (state_.role() != Role::primary) continue;  // it will retry and be reconfigured
      links_[m->from] = ReplicaLink{state_.replication_offset(), 0, node_.local_now()};
      std::string summary = fmt::format("FULLRESYNC offset={} keys={}", state_.replication_offset(), state_.size());
      world_.network().send(node_, node_by_id(m->from), kReplicationPort, FullSync{state_.snapshot()}, std::move(summary));
    } else if (const auto* full = std::any_cast<FullSync>(&m->body)) {
      if (!from_my_primary) continue;
      state_.replace_with(full->snapshot);
      reset_persistence();
      synced_ = true;
      world_.trace_at(&node_, "redis-full-resync", {{"from", replica_of_},
                                                    {"offset", std::to_string(state_.replication_offset())},
                                                    {"keys", std::to_string(state_.size())}});
      send_ack();
    } else if (const auto* batch = std::any_cast<EntryBatch>(&m->body)) {
      if (!from_my_primary || !synced_) continue;
      for (const ReplicationEntry& entry : batch->entries) {
        if (entry.offset <= state_.replication_offset()) continue;  // already applied
        if (entry.offset != state_.replication_offset() + 1) break;  // a gap: resync below
        state_.apply_replicated(entry);
        persist(entry);
      }
      if (batch->sent_offset > state_.replication_offset()) {
        // Something on the link was lost (a partition): the real replica reconnects and resyncs.
        request_sync();
      } else {
        send_ack();
      }
    } else if (const auto* ack = std::any_cast<Ack>(&m->body)) {
      if (state_.role() != Role::primary) continue;
      auto link = links_.find(m->from);
      if (link == links_.end()) {
        // A replica that still follows this node, which lost its links (a restart): like a
        // reconnecting replica's PSYNC that cannot continue, it gets a full resync.
        links_[m->from] = ReplicaLink{state_.replication_offset(), 0, node_.local_now()};
        std::string summary = fmt::format("FULLRESYNC offset={} keys={}", state_.replication_offset(), state_.size());
        world_.network().send(node_, node_by_id(m->from), kReplicationPort, FullSync{state_.snapshot()}, std::move(summary));
        continue;
      }
      link->second.acked_offset = std::max(link->second.acked_offset, ack->offset);
      link->second.last_ack_local = node_.local_now();
      acks_changed_.notify_all();
    }
  }
}

void RedisServer::cron_loop() {
  for (;;) {
    if (state_.role() == Role::replica) {
      if (synced_) {
        send_ack();
      } else {
        request_sync();
      }
    } else {
      for (const auto& [id, link] : links_) {
        EntryBatch ping{{}, link.sent_offset};
        std::string summary = summary_of(ping);
        world_.network().send(node_, node_by_id(id), kReplicationPort, std::move(ping), std::move(summary));
      }
    }
    sim::sleep_local(options_.replication_cron_period);
  }
}

void RedisServer::expire_loop() {
  for (;;) {
    sim::sleep_local(options_.active_expire_period);
    if (state_.role() != Role::primary) continue;
    std::vector<ReplicationEntry> expired = state_.active_expire(node_.local_now());
    if (expired.empty()) continue;
    std::vector<std::string> keys;
    for (const ReplicationEntry& entry : expired) {
      world_.trace_at(&node_, "redis-expire", {{"key", entry.effect.key()}, {"entry", to_string(entry)}});
      keys.push_back(entry.effect.key());
    }
    notify_expired(keys);
    publish(std::move(expired));
  }
}

void RedisServer::request_sync() {
  synced_ = false;
  world_.network().send(node_, world_.node(replica_of_), kReplicationPort, SyncRequest{}, "PSYNC ? -1");
}

void RedisServer::send_ack() {
  const uint64_t offset = state_.replication_offset();
  world_.network().send(node_, world_.node(replica_of_), kReplicationPort, Ack{offset},
                        fmt::format("REPLCONF ACK {}", offset));
}

void RedisServer::persist(const ReplicationEntry& entry) {
  switch (options_.persistence) {
    case Persistence::none: return;
    case Persistence::aof_always: durable_.apply_replicated(entry); return;
    case Persistence::aof_everysec: {
      const int64_t now_ms = to_ms(node_.local_now());
      fsync_before(whole_second_ms(now_ms));
      unsynced_.emplace_back(now_ms, entry);
      return;
    }
  }
}

void RedisServer::fsync_before(int64_t local_ms) {
  // The background fsync of every whole second has made everything written before it durable.
  size_t synced = 0;
  while (synced < unsynced_.size() && unsynced_[synced].first < local_ms) {
    durable_.apply_replicated(unsynced_[synced].second);
    ++synced;
  }
  unsynced_.erase(unsynced_.begin(), unsynced_.begin() + static_cast<std::ptrdiff_t>(synced));
}

void RedisServer::reset_persistence() {
  // After a full resync the replica rewrites its AOF from the loaded snapshot.
  unsynced_.clear();
  if (options_.persistence != Persistence::none) durable_ = state_.snapshot();
}

void RedisServer::preload(const std::string& key, const std::string& value) {
  state_.preload(key, value);
  if (options_.persistence != Persistence::none) durable_.preload(key, value);
}

}  // namespace oversim::redis
