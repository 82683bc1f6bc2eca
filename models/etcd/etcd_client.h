// The etcd client of one application process (clientv3.Client), shared by every buyer on it: the
// members' endpoints, one pinned at a time; unary calls with the caller's deadline; lease
// keepalives; watches. docs/models.md, "etcd", gives the sources.
//
// - A call goes to the pinned endpoint and waits for its answer up to the caller's deadline and
//   at most `request_timeout` (the context the application passes). No answer: a read, a lease
//   grant or a revoke is sent again to the next endpoint (clientv3's retry interceptor retries
//   them: the "repeatable" policy); a write's outcome is unknown (it may have committed), and the
//   next call goes to the next endpoint. A member that knows no leader answers at once; a
//   repeatable call is retried elsewhere after `retry_backoff`, a write is not (clientv3 retries
//   a mutation only when it was never sent).
// - Keepalive (clientv3 lease.go): for each lease kept alive, a request at once, then one a third
//   of the TTL after each answer; the lease is alive for the client until TTL after the last
//   answer, by its own monotonic clock. An answer with TTL 0 (the lease is gone), or that deadline passing,
//   ends it: `done` is set (concurrency.Session's Done channel closes). Done can come after the
//   server revoked the lease, never before; it is not a fence.
// - A watch streams from the member the client is pinned to when it is made: every event of the
//   key at or after a start revision, in revision order. If nothing arrives for `watch_check`,
//   the client makes it again from the revision after the last event it saw (on the next
//   endpoint when the member does not answer): the stream of a crashed member is resumed
//   elsewhere, as clientv3's watcher resumes a broken stream.
// A restarted process starts with no leases and no watches.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/etcd/etcd_server.h"
#include "sim/network.h"
#include "sim/node.h"
#include "sim/sync.h"
#include "sim/world.h"

namespace oversim::etcd {

struct ClientOptions {
  Duration request_timeout = Duration::ms(500);
  Duration retry_backoff = Duration::ms(25);   // clientv3's retry interceptor's backoff
  Duration keepalive_poll = Duration::ms(500); // sendKeepAliveLoop wakes this often
  Duration watch_check = Duration::s(1);
};

// What a call came to: answered (the reply says what the member did), not applied (no leader
// anywhere before the deadline, or the deadline passed before it was sent), or unknown (sent,
// no answer: a write may have committed).
struct CallResult {
  enum class Status : uint8_t { answered, not_applied, unknown };
  Status status = Status::unknown;
  ClientReply reply;
  bool ok() const { return status == Status::answered && reply.code == Code::ok; }
};

// A lease the client keeps alive; `done` is set once the client stops believing in it.
struct KeptLease {
  int64_t id = 0;
  Duration ttl = Duration::zero();
  sim::Event done;
  Instant deadline;         // the client's clock: TTL after the last answer
  uint64_t renewals = 0;    // keepalive answers with TTL > 0
  // When the grant and each keepalive answered with TTL > 0 were sent (the world's time): the
  // server set expiry = its now + TTL in between, so the lease the client got runs at least to
  // each send + TTL. For the lease_expired_while_held coverage property.
  std::vector<Instant> answered_sends;
  std::string why_done;
};

// One watch's events as they arrive.
struct WatchStream {
  uint64_t id = 0;
  std::string key;
  int64_t next_revision = 0;  // the revision to resume from
  std::deque<Event> events;
  sim::Event arrived;
};

class EtcdClient {
 public:
  EtcdClient(sim::World& world, sim::Node& app, std::vector<sim::Node*> members, size_t first, ClientOptions options);
  EtcdClient(const EtcdClient&) = delete;
  EtcdClient& operator=(const EtcdClient&) = delete;

  sim::Node& app() const { return app_; }
  const std::string& endpoint() const;
  const ClientOptions& options() const { return options_; }
  Instant now() const { return world_.now(); }

  CallResult call(const ClientRequest& r, Instant deadline);
  CallResult txn(const Txn& t, Instant deadline) { return call(TxnRequest{t}, deadline); }

  // Grants a lease of `ttl` and keeps it alive until revoked or lost; nullptr when the grant did
  // not answer OK by `deadline` (a grant with no answer may still have made a lease, which then
  // expires on the servers, unkept).
  std::shared_ptr<KeptLease> grant_and_keep_alive(Duration ttl, Instant deadline);
  // Stops keeping it alive and revokes it (concurrency.Session.Close), without waiting past
  // `deadline`.
  void revoke(const std::shared_ptr<KeptLease>& lease, Instant deadline);

  // Starts a watch of `key` from `start_revision`; nullptr when no member took it by `deadline`.
  std::shared_ptr<WatchStream> watch(const std::string& key, int64_t start_revision, Instant deadline);
  // The next event of the stream, waiting up to `deadline` (resuming the stream as it goes).
  std::optional<Event> next_event(const std::shared_ptr<WatchStream>& w, Instant deadline);
  void cancel(const std::shared_ptr<WatchStream>& w);

  uint64_t requests() const { return requests_; }  // unary requests sent by callers (not keepalives)
  uint64_t generation() const { return generation_; }  // +1 each time the process crashed

 private:
  void boot();
  void on_crash();
  void watch_loop();
  void keepalive_loop(std::shared_ptr<KeptLease> lease, uint64_t generation);
  bool create_watch(const std::shared_ptr<WatchStream>& w, Instant deadline);
  void next_endpoint() { endpoint_ = (endpoint_ + 1) % members_.size(); }
  // Retried by clientv3 when unanswered or refused for want of a leader: reads, LeaseGrant, LeaseRevoke.
  static bool repeatable(const ClientRequest& r);

  sim::World& world_;
  sim::Node& app_;
  std::vector<sim::Node*> members_;
  size_t endpoint_;
  ClientOptions options_;
  uint64_t generation_ = 0;  // +1 per crash: a dead process's fibers stop
  uint64_t next_watch_ = 1;
  std::map<uint64_t, std::shared_ptr<WatchStream>> watches_;
  uint64_t requests_ = 0;
};

}  // namespace oversim::etcd
