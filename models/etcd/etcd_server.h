// A simulated etcd member, one of a cluster (etcd_cluster.h): a thin shell of fibers around the
// pure EtcdState and Lessor (etcd_state.h), with enough of Raft that what etcd is chosen for
// holds, and fails, where the real one does. docs/models.md, "etcd", gives the sources.
//
// - Raft (etcd-io/raft as etcd configures it: CheckQuorum on, PreVote off as in 3.4): terms, one
//   vote per term, a candidate needs a log at least as up to date as the voter's, a leader
//   appends to its log, replicates with AppendEntries (log matching on the previous entry's
//   index and term; a refused append backs the leader's next index off), and commits an entry of
//   its own term once a quorum has it (earlier entries commit with it). The log, the term and
//   the vote survive a crash (etcd's WAL); the applied state does too (its backend), so a
//   restarted member is a follower that knows no leader.
// - Timing on the member's own clock, in ticks of the heartbeat interval (100ms): the leader
//   sends an append to every follower each tick; a follower or candidate that hears no leader for
//   its election timeout starts an election. etcd randomises that timeout in [10, 20) ticks; here
//   it is 10 ticks plus the member's index (member 1 waits 10, member 3 waits 12), so a run draws
//   no choice for it. With CheckQuorum a leader that has not heard a quorum within an election
//   timeout steps down, and a member that heard its leader within one ignores vote requests.
// - A new leader appends an empty entry of its term; when it applies it, the Lessor promotes:
//   every lease's expiry becomes now + the election timeout + its full TTL (etcd #9888: the
//   remaining TTL is not checkpointed for leases under 5 minutes).
// - Clients (port "etcd"): a member that knows no leader answers `no_leader` (nothing applied).
//   A follower relays every request to its leader and the leader's answer back; the leader
//   serves each: writes (a Txn with a write, LeaseGrant, LeaseRevoke) through the log, answered
//   once applied; reads (a Txn that only reads) after a ReadIndex round (a heartbeat a quorum
//   acknowledges after the read arrived: linearizable); LeaseKeepAlive by the Lessor alone, not
//   through Raft (TTL 0 for a lease that is gone or expired). A leader that steps down answers
//   what it has not applied `leader_changed`: it may still commit (ambiguous, as etcd's "leader
//   changed" error is).
// - Only the leader expires leases, by its own monotonic clock (Go's time.Now() compares by it:
//   drift applies, a step of the wall clock does not), looking every 500ms (lessor runLoop); it
//   proposes a revoke, and the lease's keys go when the revoke is applied.
// - Watches (port "etcd", WatchCreate) stream from the member the client asked: every event on
//   the key at or after the start revision, as this member applies it (a follower's stream lags
//   its leader's commit). They live as long as the member serves; a crash or a lost leader drops
//   them (the client's watcher resumes from its last revision, etcd_client.h).
//
// Client operations are traced as kind "etcd", role changes as "etcd-role", lease expiries as
// "etcd-lease".
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "models/etcd/etcd_state.h"
#include "sim/network.h"
#include "sim/node.h"
#include "sim/time.h"
#include "sim/world.h"

namespace oversim::etcd {

using sim::Duration;
using sim::Instant;

struct ClusterOptions {
  Duration heartbeat = Duration::ms(100);  // --heartbeat-interval
  int32_t election_ticks = 10;             // --election-timeout 1000ms, in heartbeats
  Duration lease_tick = Duration::ms(500); // the lessor's expiry loop
  Duration service_time = Duration::us(20);
  Duration election_timeout() const { return heartbeat * election_ticks; }
  // etcd raises a granted TTL to minTTL = ceil(1.5 * election timeout) in whole seconds (2s).
  Duration min_lease_ttl() const;
};

enum class Role : uint8_t { follower, candidate, leader };
const char* to_string(Role r);

// ---- the client protocol (port "etcd") ---------------------------------------------------------

struct TxnRequest {
  Txn txn;
};
struct LeaseGrantRequest {
  Duration ttl = Duration::zero();
};
struct LeaseRevokeRequest {
  int64_t id = 0;
};
struct LeaseKeepAliveRequest {
  int64_t id = 0;
};
// Events of `key` (every key under it with `prefix`) at or after `start_revision` go to the
// client's node, port "etcd-watch", as WatchEvents with `watch_id` (the client's), until cancelled.
struct WatchCreateRequest {
  uint64_t watch_id = 0;
  std::string key;
  bool prefix = false;
  int64_t start_revision = 0;
};
struct WatchCancelRequest {
  uint64_t watch_id = 0;
};
using ClientRequest = std::variant<TxnRequest, LeaseGrantRequest, LeaseRevokeRequest, LeaseKeepAliveRequest, WatchCreateRequest, WatchCancelRequest>;
std::string to_string(const ClientRequest& r);

enum class Code : uint8_t {
  ok,
  no_leader,       // the member knows no leader: not applied
  leader_changed,  // the leader stepped down before applying it: may still commit
  lease_not_found, // a Put named a lease that does not exist, a revoke or a keepalive found none
};
const char* to_string(Code c);

struct ClientReply {
  Code code = Code::ok;
  TxnResult txn;                     // a Txn's result (its revision is the response header's)
  int64_t revision = 0;              // the header revision
  int64_t lease = 0;                 // LeaseGrant: the new lease's id
  Duration ttl = Duration::zero();   // LeaseGrant, LeaseKeepAlive: the TTL (0: the lease is gone)
};

struct WatchEvent {
  uint64_t watch_id = 0;
  Event event;
};
// On "etcd-watch" too: the member dropped the client's watches (it lost its leader).
struct WatchesDropped {};

// ---- the replicated log ---------------------------------------------------------------------------

struct Noop {};
struct GrantOp {
  int64_t id = 0;
  Duration ttl = Duration::zero();
};
struct RevokeOp {
  int64_t id = 0;
  bool expired = false;  // proposed by the lessor, not by a client
};
using LogOp = std::variant<Noop, Txn, GrantOp, RevokeOp>;

struct LogEntry {
  int64_t term = 0;
  LogOp op;
  uint32_t origin = 0;      // the member that answers the client (the leader that appended it)
  uint64_t origin_key = 0;  // its pending request
};

class EtcdServer {
 public:
  struct Start {
    Role role = Role::follower;
    uint32_t leader = 0;
    int64_t term = 1;
  };
  // `peers` are every member's node name, id i+1 at index i (this one included).
  EtcdServer(sim::World& world, sim::Node& node, uint32_t id, std::vector<std::string> peers, ClusterOptions options, Start start);
  EtcdServer(const EtcdServer&) = delete;
  EtcdServer& operator=(const EtcdServer&) = delete;

  sim::Node& node() const { return node_; }
  const std::string& name() const { return node_.name(); }
  uint32_t id() const { return id_; }
  Role role() const { return role_; }
  uint32_t leader() const { return leader_; }
  int64_t term() const { return term_; }
  const EtcdState& state() const { return state_; }
  int64_t applied() const { return applied_; }
  int64_t last_index() const { return static_cast<int64_t>(log_.size()); }
  const ClusterOptions& options() const { return options_; }
  // The leader's expiry of a lease now (nullopt: not leading, or no such lease).
  std::optional<Instant> lease_expiry(int64_t id) const { return lessor_.expiry(id); }
  sim::MailboxLoad load() const;
  // Before the run: a key the cluster holds when the sale starts (every member puts it alike).
  void preload(const std::string& key, const std::string& value) { state_.put(key, value); }

  // Every key a client's Txn deleted here while leading (kept across crashes), for the
  // properties: the key, its create revision, the client's node.
  struct Removal {
    KeyValue kv;
    std::string from;
    Instant at;
    uint64_t step = 0;
  };
  const std::vector<Removal>& removals() const { return removals_; }
  // Leaders this member saw itself become (its own wins): "etcd-2 leads term 3".
  const std::vector<std::string>& elections() const { return elections_; }
  // Lease revokes the lessor proposed here for expired leases, in order: "lease 1f revoked at ...".
  const std::vector<std::string>& expiries() const { return expiries_; }

 private:
  // Who asked: a client of this member (an RPC to answer), or a follower that relayed its
  // client's request (answered with a RelayReply).
  struct Requester {
    std::optional<sim::Message> request;
    uint32_t relay_from = 0;
    uint64_t relay_key = 0;
    std::string client;  // the client's node
  };
  struct Pending {
    Requester who;
    ClientRequest request;
    int64_t read_index = 0;   // reads: the commit index when it arrived
    uint64_t heartbeat = 0;   // reads: the heartbeat round that confirms leadership
  };
  struct Progress {
    int64_t next = 1;
    int64_t match = 0;
    uint64_t acked_round = 0;  // the latest heartbeat round it answered
    bool heard = false;        // since the last CheckQuorum
  };
  struct Watcher {
    sim::NodeId client = 0;
    WatchCreateRequest request;
  };

  void boot();
  void on_crash();
  void serve();
  void peer_loop();
  void tick_loop();

  void handle_client(const sim::Message& m);
  void lead_request(Requester who, const ClientRequest& r);
  void answer(const Requester& who, const ClientRequest& r, const ClientReply& reply);
  void handle_peer(const sim::Message& m);

  void become_follower(int64_t term, uint32_t leader, const std::string& why);
  void become_leader();
  void start_election();
  void step_down_cleanup(const std::string& why);
  uint64_t append(LogOp op, uint64_t origin_key);
  void send_append(uint32_t to);
  void broadcast_append();
  void maybe_commit();
  void apply_committed();
  void apply(const LogEntry& e, int64_t index);
  void release_reads();
  void notify_watches(int64_t from_revision);
  int64_t term_at(int64_t index) const { return index <= 0 ? 0 : log_.at(static_cast<size_t>(index - 1)).term; }
  int64_t last_term() const { return term_at(last_index()); }
  uint32_t quorum() const { return static_cast<uint32_t>(peers_.size() / 2 + 1); }
  int32_t my_election_ticks() const { return options_.election_ticks + static_cast<int32_t>(id_) - 1; }
  sim::Node& peer(uint32_t id) const;
  void send_peer(uint32_t to, std::any body, std::string summary);

  sim::World& world_;
  sim::Node& node_;
  uint32_t id_;
  std::vector<std::string> peers_;
  ClusterOptions options_;
  Start start_;
  bool booted_once_ = false;

  // persistent (the WAL: term, vote, log; the backend: the applied state)
  int64_t term_ = 0;
  uint32_t voted_for_ = 0;
  std::vector<LogEntry> log_;
  EtcdState state_;
  int64_t applied_ = 0;
  int64_t next_lease_ = 1;
  std::vector<Removal> removals_;
  std::vector<std::string> elections_;
  std::vector<std::string> expiries_;

  // volatile
  Role role_ = Role::follower;
  uint32_t leader_ = 0;
  int64_t commit_ = 0;
  int64_t tick_ = 0;
  int64_t heard_leader_tick_ = 0;  // follower: the tick it last heard its leader (or granted a vote)
  int64_t quorum_check_tick_ = 0;
  std::set<uint32_t> votes_;
  std::map<uint32_t, Progress> progress_;
  uint64_t heartbeat_round_ = 0;
  Lessor lessor_;
  std::map<uint64_t, Pending> pending_;   // leader: writes waiting to apply, reads waiting for ReadIndex
  std::map<uint64_t, std::pair<sim::Message, ClientRequest>> relayed_;  // follower: requests relayed to the leader
  uint64_t next_key_ = 1;
  std::map<std::pair<sim::NodeId, uint64_t>, Watcher> watches_;
};

}  // namespace oversim::etcd
