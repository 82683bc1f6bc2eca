// The ZooKeeper client of one application process, as ZooKeeper's ClientCnxn connects and
// Curator's ConnectionStateManager reports it. One per app node, shared by every buyer on it (a
// JVM runs one CuratorFramework): one session, so when it expires, every lock node of that
// process goes with it.
//
// - Heartbeats: a ping every third of the session timeout; no answer within the read timeout
//   (two thirds of it), or a refusal, is a disconnect. The client then tries the servers in turn
//   (after a random wait below 1s and below the connect timeout, sessionTimeout / servers, as
//   ClientCnxn sleeps before a reconnect), each with its session id and the last zxid it has seen (a server
//   behind it refuses), and registers its watches again where it lands.
// - Connection states (Curator): CONNECTED; SUSPENDED at the disconnect; RECONNECTED when a
//   server takes the session back; LOST when a server says the session expired, or (Curator 3+,
//   sessionExpirationPercent 100) once SUSPENDED has lasted the negotiated session timeout
//   without a reconnect: the client cannot know whether the servers expired it, and assumes so.
//   After LOST it opens a new session (RECONNECTED again). Listeners hear every change at once,
//   on the fiber that noticed it.
// - The session's expiry is decided by the leader alone: a client cut off from the ensemble
//   keeps believing in its session (SUSPENDED) until the timeout passes on its own clock, while
//   the leader may have expired it already. That window is what the designs must survive.
// - Operations block while the client is not connected (Curator's RetryLoop waits for the
//   connection), up to the caller's deadline; a request with no answer within the read timeout
//   is a connection loss (ambiguous for a write). A watch is one-shot; a lost session fires
//   every watch of the client with `lost` set, so its waiters wake and look.
// A restarted app process starts with no session and opens a new one; its old session expires
// on the servers after its timeout.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/zookeeper/zk_server.h"
#include "sim/network.h"
#include "sim/node.h"
#include "sim/sync.h"
#include "sim/world.h"

namespace oversim::zookeeper {

enum class ConnState : uint8_t { connected, suspended, reconnected, lost };
const char* to_string(ConnState s);

// A watch's slot, which the waiter holds: `fired` is set by the event or by a lost session.
struct Watch {
  sim::Event fired;
  EventType event = EventType::created;
  bool lost = false;
};

class ZkClient {
 public:
  // `session` is the session this process opened before the sale (0: it opens one first), with
  // `servers[first]` the server it is connected to.
  ZkClient(sim::World& world, sim::Node& app, std::vector<sim::Node*> servers, size_t first, uint64_t session, int64_t session_timeout_ms);
  ZkClient(const ZkClient&) = delete;
  ZkClient& operator=(const ZkClient&) = delete;

  sim::Node& app() const { return app_; }
  ConnState state() const { return state_; }
  bool connected() const { return state_ == ConnState::connected || state_ == ConnState::reconnected; }
  uint64_t session() const { return session_; }
  int64_t session_timeout_ms() const { return timeout_ms_; }
  const std::string& server() const;

  // Blocks the calling fiber (on the app node) until the client is connected, up to `deadline`
  // (not_serving past it), then sends the request and waits for its answer up to the read
  // timeout, whatever is left of `deadline` (ClientCnxn has no per-request timeout). A read with
  // op.watch set leaves a watch, returned in `watch` (nullptr when the server did not leave one).
  // connection_loss: no answer (a write may have applied); not_serving: no server took the
  // request (it did not apply); session_expired: the session is gone (the client is LOST).
  Result call(const Op& op, Instant deadline, std::shared_ptr<Watch>* watch = nullptr);
  // Blocks until the client is connected or `deadline`; false on the deadline.
  bool wait_connected(Instant deadline);

  using Listener = std::function<void(ConnState)>;
  uint64_t add_listener(Listener l);
  void remove_listener(uint64_t id);
  uint64_t requests() const { return requests_; }  // requests sent by callers (not pings)

 private:
  struct Registered {
    std::string path;
    WatchKind kind;
    std::shared_ptr<Watch> watch;
  };
  void boot();
  void on_crash();
  void connection_loop();
  void watch_loop();
  void disconnected(const std::string& why);
  void lose(const std::string& why);
  void set_state(ConnState s, const std::string& why);
  void heard(uint64_t zxid);
  Duration read_timeout() const { return Duration::ms(timeout_ms_ * 2 / 3); }
  Duration connect_timeout() const { return Duration::ms(std::max<int64_t>(1, timeout_ms_ / static_cast<int64_t>(servers_.size()))); }

  sim::World& world_;
  sim::Node& app_;
  std::vector<sim::Node*> servers_;
  size_t server_;
  uint64_t initial_session_;
  int64_t timeout_ms_;
  bool booted_once_ = false;
  bool fresh_ = false;  // a restarted process that has not connected yet

  uint64_t session_ = 0;
  ConnState state_ = ConnState::lost;
  uint64_t last_zxid_ = 0;
  Instant last_heard_;        // true time of the last answer from the server
  Instant suspended_since_;   // the app's local clock at SUSPENDED
  sim::Event connected_;
  sim::Event wake_connection_;  // an operation saw the connection drop
  uint64_t next_watch_ = 1;
  std::map<uint64_t, Registered> watches_;
  uint64_t next_listener_ = 1;
  std::map<uint64_t, Listener> listeners_;
  uint64_t requests_ = 0;
};

}  // namespace oversim::zookeeper
