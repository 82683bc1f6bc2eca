// The services a sale builds besides its app nodes and the database: a design names the ones it
// needs (Design::services, "redis" or "redlock"; later "zookeeper", "etcd", a queue), and the
// sale builds exactly those, in that order, after the app nodes. Each kind is one entry in
// service_kinds() (services.cpp) over one folder in models/: its node names, its roles, and a
// factory. Adding a lock service adds a folder, an adapter in protocols/services/ and a line
// here; the kernel and Simulation stay as they are.
//
// Roles are what fault profiles aim at, so a profile is written once for every service: "the
// lock node" (the Redis primary, one RedLock master), "the lock service's nodes", "the far side"
// of a split (the replica and Sentinel; the other masters), whether a replica can take over.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "protocols/workload.h"
#include "sim/network.h"
#include "sim/world.h"

namespace oversim::protocols {

struct Roles {
  std::string service;                      // the lock service's kind, "" when the design has none
  std::vector<std::string> lock_nodes;      // every node of the lock service, in the order built
  std::string lock_node;                    // the node single-node faults hit
  std::vector<std::string> far_side;        // a partition puts holder_side and the holder's app apart from these
  std::vector<std::string> holder_side;     // the lock nodes that stay with the holder in a partition
  bool replicated = false;                  // a replica can take over lock_node's keys (failover)
  std::string takeover;                     // what takes over, and how long it takes (for the notes)
  Duration takeover_time = Duration::zero(); // about how long that takes (the failover profile outlasts it)
  bool session_expiry = false;              // a holder cut off loses its lock when its session expires
  std::vector<std::string> acquire_points;  // points a client reaches while acquiring, between its requests
  bool takes_lock = false;                  // the design takes a lock there (Steps::takes_lock), not only keeps data
  bool consumes_queue = false;              // the design's jobs consume a queue ("mq"): a consumer's lease is max.poll.interval
  bool has_lock_service() const { return !lock_nodes.empty(); }
};

// A client's delete of a lock key on some server, with the value the key held: what
// no_foreign_unlock compares with the clients' beliefs.
struct LockRemoval {
  std::string key;
  std::string value;
  std::string server;
  std::string from;  // the client's node
  Instant at;        // true time
  uint64_t step = 0;
};

// A write a server acknowledged to a client that the service's data no longer has in its history
// (no_lost_ack_write): a failover promoted a replica that never got it, a split brain's old
// primary took it and was then resynced, or a restart without persistence dropped it.
struct LostWrite {
  std::string key;
  std::string server;  // the server that acknowledged it
  std::string from;    // the client's node
  Instant at;          // when it was acknowledged (true time)
  uint64_t step = 0;
  std::string why;     // "redis-2, the primary now, has redis-1:1 only to offset 11 (this was 12)"
};

// How hard one node of a lock service was pushed over a run, from the model's own count: the
// requests that reached it in its busiest whole second, against the most it serves in a second
// (one at a time, `service_time` each), and the longest a request waited in its queue before it
// was served. What makes a server fall behind (pollers, a pause) and nothing else says so.
struct NodeLoad {
  std::string node;
  Duration service_time = Duration::zero();      // per request
  uint64_t requests = 0;                         // every request that reached it
  uint64_t busiest_second_requests = 0;          // in its busiest whole second
  Instant busiest_second = Instant::zero();      // that second's start
  Duration longest_wait = Duration::zero();      // in its queue, arrival to service
  Instant longest_wait_at = Instant::zero();     // when that request was taken up

  // 1s / service_time, rounded down; 0 for a node with no service time (it never falls behind).
  uint64_t serves_per_second() const;
  // Its busiest second brought at least 80% of what it serves in one: its queue was close to
  // growing without end, or grew.
  bool overloaded() const;
};
NodeLoad node_load(const std::string& node, Duration service_time, const sim::MailboxLoad& load);

// One built service of a sale.
class Service {
 public:
  virtual ~Service() = default;
  virtual const std::string& kind() const = 0;
  // The product's name as its users write it, for findings that name the store (Redis, etcd).
  virtual const std::string& product() const { return kind(); }
  // Every client removal of a key the service ever served, server by server in build order and
  // in time order within a server (no_foreign_unlock breaks ties at one instant by this order).
  virtual void removals(std::vector<LockRemoval>& out) const = 0;
  // A takeover by another node (a Sentinel failover, a new leader), for the failover_happened
  // coverage property; nullopt when none happened or the service has no such thing.
  virtual std::optional<std::string> takeover() const { return std::nullopt; }
  // Every node's load, in build order (nothing for a service whose model does not count it).
  virtual void loads(std::vector<NodeLoad>& /*out*/) const {}
  // Before the run: the data a design keeps on the service (its stock), as if loaded before the
  // sale. False when the service keeps no data of a design's.
  virtual bool preload(const std::string& /*key*/, const std::string& /*value*/) { return false; }
  // The value a client would read for a key of the design's data now (Redis: on the primary its
  // newest Sentinel names), for the eventually-properties; nullopt when absent, or when the
  // service keeps no data.
  virtual std::optional<std::string> read(const std::string& /*key*/) const { return std::nullopt; }
  // Every acknowledged write the service's data no longer has, in the order the servers
  // acknowledged them (build order, then time); nothing for a service that does not track it.
  virtual void lost_writes(std::vector<LostWrite>& /*out*/) const {}
  // Work the service still holds for the design's jobs (a queue's records no consumer group has
  // committed): the run is not quiet while there is some (Simulation::conductor).
  virtual bool pending_work() const { return false; }
};

// A fault point the service's own model marks (protocols/points.h lists every point): a plan that
// waits on it is refused for a design without the service, or with a deployment that never
// marks it.
struct ServicePoint {
  std::string name;       // "write_unreplicated"
  std::string moment;     // "the Redis primary answered a write its replica lacks"
  std::string marked_by;  // "the Redis primary"
  // Why this workload's deployment never marks it (a standalone Redis has no replica), or nullopt.
  std::optional<std::string> (*absent)(const Workload&) = nullptr;
  // The nodes that reach it; nullptr: the app nodes (a point of the service's client).
  std::vector<std::string> (*nodes)(const Workload&) = nullptr;
};

struct ServiceKind {
  std::string name;
  std::string summary;
  std::vector<std::string> (*node_names)(const Workload&);
  Roles (*roles)(const Workload&);
  std::unique_ptr<Service> (*build)(sim::World&, const Workload&);
  // Why the workload cannot run on this service (a setting outside what it accepts), or nullopt.
  std::optional<std::string> (*problem)(const Workload&) = nullptr;
  std::vector<ServicePoint> points = {};
  // The shortest --lock-ttl it accepts (ZooKeeper: two ticks; etcd: its minimum lease), for
  // generators of sales (properties/rapidcheck.h); problem() says why a shorter one is refused.
  sim::Duration shortest_lock_ttl = sim::Duration::ms(1);
};

const std::vector<ServiceKind>& service_kinds();
const ServiceKind* find_service_kind(const std::string& name);

}  // namespace oversim::protocols
