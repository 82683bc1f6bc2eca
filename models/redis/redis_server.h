// A simulated Redis server: one node running a RedisState behind the network, as a thin shell of
// fibers around the pure state machine.
//
// - Commands arrive on port "redis" and are served one at a time by a single fiber (Redis runs
//   commands on one thread), each costing `service_time` of virtual time. Every command and its
//   reply is traced as kind "redis": cmd="SET lock:stock:sku1 tok-3 NX PX 3000" reply="OK".
// - Expiry is judged by this node's local clock (drift and jumps apply), like Redis's mstime().
// - Replication is asynchronous by default: the primary replies first and ships the write's
//   effect to its replicas later (after `replication_lag`, plus the network) on port
//   "replication". Replicas apply the stream in order and acknowledge their offset.
//   `acks_required` = N makes the primary answer a write only once N replicas acknowledged it
//   (SET + WAIT N as one step); `min_replicas_to_write` refuses writes while too few replicas
//   acknowledged within `min_replicas_max_lag`.
// - A replica (re)attaching to a primary always gets a full resync (the primary's snapshot), so a
//   demoted primary loses the writes it accepted on its own: that is how split brain ends.
// - Persistence decides what survives a crash: nothing, the AOF fsynced every second of the
//   node's clock, or every acknowledged write.
// Sentinel and tests steer roles with REPLICAOF over the same port, like the real thing.
// - Fault point: `write_unreplicated` on the primary's node, right after it answered a write that
//   its attached replicas have not received yet while every earlier write has left for them (a
//   failover now loses exactly this write: a lock key, not also the release before it).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/redis/redis_state.h"
#include "sim/network.h"
#include "sim/node.h"
#include "sim/sync.h"
#include "sim/time.h"
#include "sim/world.h"

namespace oversim::redis {

enum class Persistence { none, aof_everysec, aof_always };
const char* to_string(Persistence persistence);

struct ServerOptions {
  Duration service_time = Duration::us(10);     // per command: redis-benchmark ~100k ops/s
  sim::Distribution replication_lag = sim::Distribution::constant(Duration::zero());  // extra delay before a write is shipped, drawn per write
  uint32_t acks_required = 0;                   // WAIT N after every write; 0: asynchronous
  Duration acks_timeout = Duration::ms(20);     // WAIT's timeout
  uint32_t min_replicas_to_write = 0;           // 0: check disabled (Redis default)
  Duration min_replicas_max_lag = Duration::s(10);
  Persistence persistence = Persistence::none;
  Duration active_expire_period = Duration::ms(100);  // serverCron at hz 10
  Duration replication_cron_period = Duration::s(1);  // replica ACKs, resync retries, pings
};

// ---- Administrative commands (Sentinel, tests) on port "redis" --------------------------------

// INFO replication: who the server thinks it is.
struct InfoCommand {};
// REPLICAOF <primary> or, with an empty name, REPLICAOF NO ONE.
struct ReplicaOfCommand {
  std::string primary;
};
// A sentinel's hello (PUBLISH __sentinel__:hello): the configuration it knows. Sent one way; the
// server keeps the newest (highest configuration epoch) and shows it to every sentinel that asks
// INFO, standing in for the channel the other sentinels subscribe to.
struct SentinelHelloPublish {
  std::string sentinel;
  std::string primary;
  uint64_t config_epoch = 0;
  uint64_t current_epoch = 0;
};
// Keyspace notifications (`notify-keyspace-events Ex`): SUBSCRIBE __keyevent@0__:expired from a
// client, whose events go to `port` on its node. Sent one way, and again whenever the client
// likes (the same node and port subscribe once). Pub/Sub is fire and forget: an event goes to the
// subscribers connected when it fires; one that is down or cut off then misses it, and a
// subscription ends with the subscriber's process or this server's (their connection).
inline constexpr const char* kCommandPort = "redis";
struct SubscribeExpired {
  std::string port;
};
// The event a subscriber gets: the key Redis deleted because it expired, by the active expire
// cycle or on access (not when its TTL ran out, Redis's keyspace notification docs).
struct ExpiredEvent {
  std::string key;
  std::string server;
};
struct ServerInfo {
  Role role = Role::primary;
  std::string primary;  // the node it replicates from; "" for a primary
  uint64_t offset = 0;  // replication offset
  bool synced = false;  // a replica that finished its full resync (primaries: true)
  SentinelHelloPublish hello;  // the newest hello published on it since it booted (epoch 0: none)
};

class RedisServer {
 public:
  // Boots at once; `replica_of` empty: a primary. The role survives restarts (like the config
  // file Sentinel rewrites), the data survives according to `options.persistence`.
  RedisServer(sim::World& world, sim::Node& node, ServerOptions options, std::string replica_of = "");
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  sim::Node& node() const { return node_; }
  const std::string& name() const { return node_.name(); }
  // The key space. For a crashed node: what it will load when it restarts.
  const RedisState& state() const { return state_; }
  Role role() const { return state_.role(); }
  const std::string& replica_of() const { return replica_of_; }
  const ServerOptions& options() const { return options_; }
  ServerInfo info() const;
  // How loaded its command port was (commands served one at a time, `service_time` each, with
  // Sentinel's INFO and hellos in the same queue): the busiest second's arrivals and the longest
  // a command queued. Kept across crashes.
  sim::MailboxLoad load() const;

  // Before the run: `key` holds `value` here, on disk too when the server persists (a snapshot
  // loaded before the sale). Without persistence a restart loses it, as it loses every key.
  void preload(const std::string& key, const std::string& value);
  // Direct role changes for tests; Sentinel sends ReplicaOfCommand instead.
  void replica_of(const std::string& primary);

  // Every key a client's DEL (plain or token-compare) removed here, with the value it held: an
  // observation log for properties (who removed whose lock), kept across crashes. Expiry and
  // replicated deletes are not client removals and are not listed.
  struct Removal {
    std::string key;
    std::string value;
    std::string from;  // the client's node
    Instant at;        // true time
    uint64_t step = 0;
  };
  const std::vector<Removal>& removals() const { return removals_; }

  // Every client write this server acknowledged as a primary (answered without an error), with
  // where it sits in the data's history (RedisState::lineage) and whom it told: an observation
  // log for no_lost_ack_write, kept across crashes. One per write a client made, so it stays
  // small: the lineage is an index into lineages(), the client a node id (name_of).
  struct AckedWrite {
    std::string key;
    uint32_t lineage = 0;  // lineages()[lineage]
    uint64_t offset = 0;
    sim::NodeId from;      // the client's node
    Instant at;            // true time
    uint64_t step = 0;
  };
  const std::vector<AckedWrite>& acked_writes() const { return acked_; }
  const std::vector<std::string>& lineages() const { return lineages_; }
  const std::string& name_of(sim::NodeId id) const { return node_by_id(id).name(); }

 private:
  struct ReplicaLink {
    uint64_t sent_offset = 0;   // the last entry shipped
    uint64_t acked_offset = 0;  // the last entry the replica confirmed
    Instant last_ack_local;     // this node's clock at the last ACK
  };
  struct Pending {
    Instant due;  // true time at which it may be shipped
    ReplicationEntry entry;
  };
  void boot();
  void on_crash();
  void serve();
  void handle_command(const sim::Message& request, const Command& command);
  void handle_admin(const sim::Message& request);
  void reply(const sim::Message& request, const Command& command, const Reply& reply);
  void replication_loop();
  void feeder_loop();
  void cron_loop();
  void expire_loop();
  void publish(std::vector<ReplicationEntry> entries);
  // Sends an expired event for each key to every subscriber still connected.
  void notify_expired(const std::vector<std::string>& keys);
  void persist(const ReplicationEntry& entry);
  void reset_persistence();
  void request_sync();
  void send_ack();
  uint32_t good_replicas() const;
  uint32_t replicas_acked(uint64_t offset) const;
  void wait_for_acks(sim::Message request, Command command, Reply reply, uint64_t offset);
  sim::Node& node_by_id(sim::NodeId id) const;

  sim::World& world_;
  sim::Node& node_;
  ServerOptions options_;
  std::string replica_of_;  // persistent configuration
  SentinelHelloPublish hello_;  // volatile, like a pub/sub channel

  RedisState state_;
  std::vector<Removal> removals_;
  struct Subscriber {
    sim::NodeId node;
    uint64_t incarnation = 0;  // the subscriber process's (its connection dies with it)
    std::string port;
  };
  std::vector<Subscriber> subscribers_;
  std::vector<AckedWrite> acked_;
  std::vector<std::string> lineages_;  // the lineages acked_ refers to, in the order first used
  void record_ack(const std::string& key, uint64_t offset, sim::NodeId from);
  uint64_t lineages_started_ = 0;  // names this server's lineages: "redis-2:1", "redis-2:2", ...
  // A primary whose data has no lineage yet (the first boot, a restart without persistence), or
  // a promoted replica, starts one of its own (and so does its append-only file).
  void start_lineage();
  // volatile replication state
  bool synced_ = false;
  std::map<sim::NodeId, ReplicaLink> links_;
  std::vector<Pending> backlog_;  // entries not yet shipped to every replica
  Instant last_due_ = Instant::zero();  // a drawn lag never lets a later write ship first
  sim::Event backlog_grew_;
  sim::WaitQueue acks_changed_;

  // persistence: `durable_` is what the disk holds once fsynced; `unsynced_` waits for the next
  // whole second of the node's clock (aof_everysec), with the local ms it was written at.
  RedisState durable_;
  std::vector<std::pair<int64_t, ReplicationEntry>> unsynced_;
  void fsync_before(int64_t local_ms);
};

}  // namespace oversim::redis
