// A simulated ZooKeeper server, one of an ensemble (zk_ensemble.h): a thin shell of fibers around
// the pure ZkState, with enough of Zab that the properties ZooKeeper is chosen for hold and fail
// where the real ones do.
//
// - Roles: LOOKING, FOLLOWING, LEADING. Only a leader established on a quorum, or a follower
//   synced with one, serves clients; a LOOKING server refuses connections (Code::not_serving),
//   so a client on a minority side finds no server to talk to.
// - Writes (create, delete, setData, sync, session creation and expiry) go to the leader, which
//   gives each a zxid (epoch << 32 | counter), logs it, proposes it to its followers (each logs
//   and ACKs), and commits it once a quorum (itself included) has it; followers apply on COMMIT.
//   The server the client wrote to answers once it has applied the write itself. Reads are
//   answered from the server's own copy: a follower may lag the leader. FIFO client order: a
//   read waits for every write its session sent to this server before it (CommitProcessor).
// - The leader pings its followers every half tick; a leader that has not heard a quorum within
//   syncLimit ticks steps down, and a follower that has not heard its leader for syncLimit ticks
//   goes LOOKING. LOOKING servers elect the one with the highest (last zxid, id) among a quorum of
//   LOOKING servers, after FLE's finalize wait; the candidate takes a new epoch above every epoch
//   it saw, a quorum must accept it (each server accepts one candidate per epoch: two leaders of
//   one epoch cannot both win; an acker with a later zxid does not count), and it syncs its
//   followers with a snapshot of everything it logged, committed as of the new epoch; followers
//   serve only once the leader has a quorum synced (UPTODATE). A server that finds a working
//   leader joins it.
// - Sessions: created by a transaction (its id is that zxid), with the timeout negotiated into
//   [minSessionTimeout, maxSessionTimeout]. The leader alone decides expiry, in ticks of its own
//   clock (sleep_local: drift applies; a wall-clock jump does not, as ZooKeeper has used a
//   monotonic clock since 3.5, ZOOKEEPER-1366). Followers pass the sessions their clients touched
//   in their ping replies. A new leader gives every session a fresh timeout. An expired session
//   is closed by a transaction that deletes its ephemeral nodes.
// - Watches are one-shot and kept by the server the client registered them on; a client that
//   reconnects elsewhere registers them again (SetWatches), and those whose node changed since
//   the client's last zxid fire at once. (An exists() watch on a missing node is kept as a data
//   watch, so on such a reconnect it fires NodeDeleted where ZooKeeper would keep it; the recipe
//   watches with getData.) An expired session's connection is closed at once.
// - Persistence: the transaction log, the tree and the epochs survive a crash (ZooKeeper fsyncs
//   its log before it ACKs); roles, watches and the session tracker do not.
//
// Client requests arrive on port "zk" (ClientRequest, ConnectRequest, PingRequest), watch events
// leave for the client's node on port "zk-watch", peers talk on "zk-peer" (one-way, FIFO) and
// "zk-elect" (election RPCs). Client operations are traced as kind "zk", role changes as
// "zk-role", expiries as "zk-session".
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "models/zookeeper/zk_state.h"
#include "sim/network.h"
#include "sim/node.h"
#include "sim/sync.h"
#include "sim/time.h"
#include "sim/world.h"

namespace oversim::zookeeper {

using sim::Duration;
using sim::Instant;

struct EnsembleOptions {
  Duration tick = Duration::ms(100);             // tickTime (real default 2000ms, scaled with the sessions)
  int32_t sync_limit = 5;                        // syncLimit, in ticks
  Duration finalize_wait = Duration::ms(200);    // FastLeaderElection's finalizeWait
  Duration service_time = Duration::us(20);      // per client request
  int64_t min_session_ms = 0;                    // 0: 2 ticks (ZooKeeper's default)
  int64_t max_session_ms = 60'000;               // configured (the default would be 20 ticks)
  int64_t min_session() const { return min_session_ms > 0 ? min_session_ms : 2 * tick.count_ms(); }
};

enum class Role : uint8_t { looking, following, leading };
const char* to_string(Role r);

// ---- the client protocol (port "zk") ------------------------------------------------------------

struct WatchRegistration {
  uint64_t id = 0;  // the client's
  std::string path;
  WatchKind kind = WatchKind::data;
};
struct ClientRequest {
  uint64_t session = 0;
  Op op;
  uint64_t watch_id = 0;  // with op.watch: the client's id for the watch
};
struct ConnectRequest {
  uint64_t session = 0;  // 0: a new session
  int64_t timeout_ms = 0;
  uint64_t last_zxid = 0;  // the last zxid the client has seen: a server behind it refuses
  std::vector<WatchRegistration> watches;  // SetWatches: to register again here
};
struct PingRequest {
  uint64_t session = 0;
};
struct ClientReply {
  Result result;
  uint64_t zxid = 0;        // the server's last applied zxid
  int64_t timeout_ms = 0;   // connect: the negotiated session timeout
};
// Sent on port "zk-watch" to the client's node.
struct WatchEvent {
  uint64_t watch_id = 0;
  std::string path;
  EventType event = EventType::created;
};
// Also on "zk-watch": the server closed the session's connection (it stopped serving); the
// client takes it as a disconnect at once, as it would a closed socket.
struct ConnectionClosed {
  uint64_t session = 0;
};

class ZkServer {
 public:
  struct Start {
    Role role = Role::looking;
    uint32_t leader = 0;  // following: the leader's id
    uint32_t epoch = 0;
  };
  // `peers` are every server's node name, id i+1 at index i (this one included).
  ZkServer(sim::World& world, sim::Node& node, uint32_t id, std::vector<std::string> peers, EnsembleOptions options, ZkState initial, Start start);
  ZkServer(const ZkServer&) = delete;
  ZkServer& operator=(const ZkServer&) = delete;

  sim::Node& node() const { return node_; }
  const std::string& name() const { return node_.name(); }
  uint32_t id() const { return id_; }
  Role role() const { return role_; }
  bool serving() const;
  uint32_t leader() const { return leader_; }
  uint32_t epoch() const { return current_epoch_; }
  const ZkState& state() const { return state_; }
  uint64_t last_logged() const;
  const EnsembleOptions& options() const { return options_; }
  // How loaded its client port was (requests served one at a time, `service_time` each): the
  // busiest second's arrivals and the longest a request queued. Kept across crashes.
  sim::MailboxLoad load() const;

  // Every node a client's delete removed here, for the properties (kept across crashes).
  struct Removal {
    std::string path;
    uint64_t session = 0;
    std::string from;  // the client's node
    Instant at;
    uint64_t step = 0;
  };
  const std::vector<Removal>& removals() const { return removals_; }
  // Leaders this server saw elected (its own wins), in order: "zk-2 leads epoch 2".
  const std::vector<std::string>& elections() const { return elections_; }

  // Peer messages (internal, public for the .cpp's helpers).
  struct Proposal {
    Txn txn;
    uint32_t origin = 0;      // the server the client wrote to
    uint64_t origin_key = 0;  // its pending request
    std::string from;         // the client's node
  };

 private:
  struct Pending {
    sim::Message request;
    bool connect = false;
    uint64_t session = 0;  // a write's session (FIFO client order)
  };
  // FIFO client order: a read waits for every write its session sent here before it, as
  // ZooKeeper's CommitProcessor holds a session's read behind its pending writes.
  struct SessionOrder {
    uint64_t writes_sent = 0;
    uint64_t writes_answered = 0;
    std::deque<std::pair<uint64_t, sim::Message>> held;  // (writes it waits for, the read)
  };
  struct Watcher {
    uint64_t session = 0;
    sim::NodeId client = 0;
    uint64_t watch_id = 0;
  };
  struct Follower {
    int64_t last_heard_tick = 0;
    bool synced = false;
  };

  void boot();
  void on_crash();
  void forget_volatile();
  void serve();
  void peer_loop();
  void elect_server();
  void role_loop();
  void tick_loop();
  void election_round();
  void lead_loop();

  void handle_client(const sim::Message& m);
  void handle_peer(const sim::Message& m);
  void answer(const sim::Message& request, const ClientReply& reply, const std::string& what);
  void answer_read(const sim::Message& m);
  void write_answered(uint64_t session);
  void submit(uint64_t session, Op op, uint64_t origin_key, const std::string& from);
  void propose(uint64_t session, Op op, uint32_t origin, uint64_t origin_key, const std::string& from);
  void maybe_commit();
  void apply_proposal(const Proposal& p);
  void fire(const std::vector<Trigger>& triggers);
  void add_watch(uint64_t session, sim::NodeId client, const WatchRegistration& w);
  void touch(uint64_t session);
  void become_looking(const std::string& why);
  void become_leader(uint32_t epoch, const std::vector<uint32_t>& followers);
  void set_established();
  uint32_t quorum() const { return static_cast<uint32_t>(peers_.size() / 2 + 1); }
  sim::Node& peer(uint32_t id) const;
  void send_peer(uint32_t to, std::any body, std::string summary);
  int64_t session_ticks(int64_t timeout_ms) const;

  sim::World& world_;
  sim::Node& node_;
  uint32_t id_;
  std::vector<std::string> peers_;
  EnsembleOptions options_;
  Start start_;
  bool booted_once_ = false;

  // persistent (the snapshot, the transaction log, the epochs)
  ZkState state_;
  std::deque<Proposal> log_;  // logged, not yet applied here
  uint32_t accepted_epoch_ = 0;
  uint32_t current_epoch_ = 0;
  uint32_t acked_candidate_ = 0;  // whose NEWEPOCH accepted_epoch_ is
  std::vector<Removal> removals_;
  std::vector<std::string> elections_;

  // volatile
  Role role_ = Role::looking;
  uint32_t leader_ = 0;
  bool established_ = false;
  int64_t tick_ = 0;
  int64_t last_leader_tick_ = 0;
  uint32_t counter_ = 0;
  std::map<uint32_t, Follower> followers_;
  std::map<uint64_t, std::set<uint32_t>> acks_;  // leader: proposal -> servers that logged it
  std::map<uint64_t, int64_t> expires_at_;       // leader: session -> tick
  std::set<uint64_t> closing_;
  std::set<uint64_t> touched_;                   // follower: sessions to report
  std::map<uint64_t, Pending> pending_;
  std::map<uint64_t, SessionOrder> order_;       // sessions with a write pending here
  uint64_t next_key_ = 1;
  std::map<std::string, std::vector<Watcher>> data_watches_, child_watches_;
  std::map<uint64_t, sim::NodeId> connections_;  // sessions connected here, and their client's node
  sim::Event role_changed_;
};

}  // namespace oversim::zookeeper
