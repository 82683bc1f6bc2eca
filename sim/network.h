// The simulated network: one-way messages and request/response between nodes, with latency from
// a configurable distribution, loss, duplication, reordering (independent latencies), full and
// one-way partitions, holding a link's messages until release, and delaying a chosen message.
//
// Payloads are std::any so models keep their own typed requests; every message also carries a
// readable summary for the trace. An RPC waits with a virtual-time timeout and returns an
// explicit ambiguous outcome on timeout: the request may or may not have taken effect.
#pragma once

#include <any>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/distribution.h"
#include "sim/id_table.h"
#include "sim/node.h"
#include "sim/prng.h"
#include "sim/sync.h"
#include "sim/time.h"

namespace oversim::sim {

struct Message {
  uint64_t id = 0;
  NodeId from = 0;
  NodeId to = 0;
  std::string port;
  uint64_t rpc_id = 0;  // nonzero for RPC requests and replies
  uint64_t to_incarnation = 0;  // the receiving process when sent; a restarted one drops it
  bool is_reply = false;
  std::any body;
  std::string summary;
  Instant delivered = Instant::zero();  // when the network put it in the receiver's mailbox
};

// What a mailbox's consumer faced, for a model to report how loaded it was (a server that takes
// its requests off one mailbox). Observation only: integers, constant memory, and nothing in it
// changes what the run does.
struct MailboxLoad {
  uint64_t messages = 0;                       // every message that arrived, over the whole run
  uint64_t busiest_second_messages = 0;        // the most that arrived in one whole second [k s, (k+1) s)
  Instant busiest_second = Instant::zero();    // that second's start (the first such second)
  Duration longest_wait = Duration::zero();    // arrival to being received, the longest of any message
  Instant longest_wait_at = Instant::zero();   // when that message was received
};

// Uniform in [min, max], except that one message in `tail` takes up to `tail_max`: a LAN with
// an occasional slow packet. Integers only.
// With `distribution` set, every message's latency is drawn from it instead (a link class the
// user gave its own latency, e.g. app <-> database as a log-normal).
struct LatencyModel {
  Duration min = Duration::us(100);
  Duration max = Duration::us(400);
  Ratio tail = Ratio{1, 100};
  Duration tail_max = Duration::ms(5);
  std::optional<Distribution> distribution;
};

struct NetworkConfig {
  LatencyModel latency;
  Ratio loss = Ratio::never();
  Ratio duplicate = Ratio::never();
  // Like a TCP connection, a link delivers in send order by default (a later message never
  // overtakes an earlier one). Off: independent latencies reorder messages.
  bool fifo_links = true;
};

// A node's inbox for one port. Messages queue while nobody receives (and while the node is
// paused); a crash empties it.
class Mailbox {
 public:
  std::optional<Message> receive(std::optional<Instant> deadline = std::nullopt, const char* where = "mailbox receive");
  void push(Message m);
  void clear() { queue_.clear(); }
  size_t size() const { return queue_.size(); }
  const MailboxLoad& load() const { return load_; }
  uint64_t id() const { return id_; }                     // unique in the world, for sim::Footprint
  const FiberRecord* waiter() const { return waiters_.front(); }  // who a push would wake
  void set_id(uint64_t id) { id_ = id; }

 private:
  std::deque<Message> queue_;
  WaitQueue waiters_;
  uint64_t id_ = 0;
  MailboxLoad load_;
  int64_t second_ = -1;         // the whole second the last arrival fell in
  uint64_t second_messages_ = 0;  // arrivals in it so far
};

enum class RpcStatus : uint8_t { ok, timed_out };

template <class T>
struct RpcResult {
  RpcStatus status = RpcStatus::timed_out;
  std::optional<T> value;  // set when ok
  bool ok() const { return status == RpcStatus::ok; }
  // A timeout is ambiguous: the request may have been applied and only the reply lost.
  bool ambiguous() const { return status == RpcStatus::timed_out; }
};

class Network {
 public:
  explicit Network(World& world) : world_(world) {}

  NetworkConfig& config() { return config_; }
  void set_link_latency(NodeId from, NodeId to, LatencyModel model) { link_latency_[{from, to}] = model; }

  // ---- faults
  void partition(const std::vector<NodeId>& side_a, const std::vector<NodeId>& side_b);  // both ways
  void isolate(NodeId node);                       // from every other node, both ways
  void cut(NodeId from, NodeId to);                // one way
  void heal();                                     // every partition and cut
  bool blocked(NodeId from, NodeId to) const { return blocked_.count({from, to}) != 0; }
  // The next message sent on the link takes `extra` longer; it is spent on that message even
  // when the message is then dropped (a partition, loss).
  void delay_next(NodeId from, NodeId to, Duration extra);
  // Queue the link's messages until every hold on it is released, then send them in order.
  // Holds nest: a second hold keeps the link held past the first one's release.
  void hold(NodeId from, NodeId to);
  void release(NodeId from, NodeId to);

  // ---- messages
  void send(Node& from, Node& to, const std::string& port, std::any body, std::string summary);
  // Blocks the calling fiber (which must run on `from`) until the reply or the timeout.
  RpcResult<std::any> call(Node& from, Node& to, const std::string& port, std::any request, std::string summary, Duration timeout);
  template <class Resp>
  RpcResult<Resp> call_as(Node& from, Node& to, const std::string& port, std::any request, std::string summary, Duration timeout) {
    return as<Resp>(call(from, to, port, std::move(request), std::move(summary), timeout));
  }
  // An RPC's result with its reply taken out of the std::any.
  template <class Resp>
  static RpcResult<Resp> as(RpcResult<std::any> r) {
    RpcResult<Resp> out;
    out.status = r.status;
    if (r.ok()) out.value = std::any_cast<Resp>(std::move(*r.value));
    return out;
  }
  // The same RPC made on behalf of `behalf`, a parked fiber of `from` that stays parked: `done`
  // runs as a timer callback when the reply arrives or at the timeout, the instants at which
  // call() would have returned, with what it would have returned. A poll loop built on it costs
  // a timer entry per poll, not two context switches into a buyer's stack (at 10,000 pollers
  // the switches were cache misses). `done` must not park; it may wake `behalf`, send and call
  // again. The explorer sees the callbacks as steps of `behalf` (its footprint), and the
  // scheduler may run them on its fast path (World::allow_inline), which never changes a run.
  // The caller handles what call() would not see: a paused or crashed `from` (a dead process's
  // reply is dropped as ever, but the timeout still runs `done`).
  using Done = std::function<void(RpcResult<std::any>)>;
  // `behalf` must be a fiber of `from` (sim::Detached makes sure). Returns the call's id for
  // forget_detached().
  uint64_t call_detached(Node& from, const FiberRecord& behalf, Node& to, const std::string& port, std::any request, std::string summary,
                         Duration timeout, Done done);
  // The caller leaves (its fiber unwinds): `done` will not run. A finished or unknown id is ignored.
  void forget_detached(uint64_t rpc_id);
  // Sends the reply to an RPC request (from the node that received it).
  void reply(Node& server, const Message& request, std::any body, std::string summary);

  uint64_t sent() const { return sent_; }  // messages sent, each counted once (held or not)
  uint64_t dropped() const { return dropped_; }
  void on_crash(Node& node);

 private:
  struct PendingCall {
    FiberRecord* waiter = nullptr;
    bool done = false;
    std::any body;
    // A detached call (call_detached): no waiter; its callback, timeout timer and on whose behalf.
    const FiberRecord* behalf = nullptr;
    Done on_done;
    TimerId timeout = 0;
  };
  static Message request_message(const Node& from, const Node& to, const std::string& port, uint64_t rpc_id, std::any body, std::string summary);
  PendingCall* new_detached();
  void release_detached(PendingCall* call);
  void finish_detached(PendingCall* call, RpcResult<std::any> result);
  void detached_timeout(uint64_t rpc_id);
  void transmit(Message m, Duration extra);
  // Messages on the wire, by slot: a delivery's timer names its slot instead of holding the
  // message (one allocation less per message). A slot is reused once its message is delivered.
  uint32_t keep_in_flight(Message m);
  Message take_in_flight(uint32_t slot);
  void deliver(Message m);
  Duration draw_latency(NodeId from, NodeId to);
  static Footprint into_mailbox(const Mailbox& box);
  static Footprint mailbox_footprint(const void* arg, const Footprint& fixed);
  static const FiberRecord* reply_waiter(const void* network, uint64_t rpc_id);
  static const FiberRecord* mailbox_waiter(const void* box, uint64_t unused);

  World& world_;
  NetworkConfig config_;
  std::map<std::pair<NodeId, NodeId>, LatencyModel> link_latency_;
  std::set<std::pair<NodeId, NodeId>> blocked_;
  std::map<std::pair<NodeId, NodeId>, Duration> delay_next_;
  struct HeldLink {
    int holds = 0;
    std::vector<Message> messages;
  };
  std::map<std::pair<NodeId, NodeId>, HeldLink> held_;
  std::map<std::pair<NodeId, NodeId>, Instant> last_arrival_;
  std::vector<Message> in_flight_;
  std::vector<uint32_t> in_flight_free_;
  IdTable<PendingCall> pending_;
  std::vector<std::unique_ptr<PendingCall>> detached_;  // every detached call's record, reused
  std::vector<PendingCall*> detached_free_;
  uint64_t next_message_id_ = 1;
  uint64_t next_rpc_id_ = 1;
  uint64_t sent_ = 0;
  uint64_t dropped_ = 0;
};

}  // namespace oversim::sim
