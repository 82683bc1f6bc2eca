// etcd v3's replicated state as pure state machines (issue 33, first part): the MVCC key space
// every member applies in log order (EtcdState), and the leader's lease clock (Lessor). Neither
// sends a message or reads a clock: a server wraps them, and the caller passes the time.
//
// EtcdState follows server/storage/mvcc and the v3 API (api/mvccpb/kv.proto, rpc.proto):
//  - one store-wide revision, +1 per transaction that changes something; a read, a delete of
//    nothing, a failed branch that only reads, and a lease grant leave it where it is;
//  - a key keeps create_revision (its last creation), mod_revision (its last change) and version
//    (changes since its creation: 1 when created, reset when deleted, so a re-created key starts
//    at 1 with a new create_revision); a compare on a missing key sees all three as 0;
//  - a Txn is If (every compare true) Then else Else, applied atomically; a Put naming a lease
//    that does not exist fails the whole Txn ("requested lease not found") and changes nothing;
//  - revoking a lease deletes its keys in one revision;
//  - every change is an event (PUT or DELETE) with its revision, kept in order, so a watch from a
//    revision gets every event at or after it (no compaction here).
//
// The Lessor is the leader's view of lease expiry (server/lease/lessor.go): Grant and Renew set
// expiry = now + TTL on the leader; a follower never expires a lease; a member that loses
// leadership stops expiring them (Demote); a new leader, when it applies its term's first entry,
// gives every lease expiry = now + extend + its granted TTL (Promote without checkpoints: etcd
// 3.x's default, and any lease of 5 minutes or less even with checkpointing on). Expiry only
// names the leases to revoke; their keys go when the revoke is applied (EtcdState::revoke).
// Sources and what is left out: docs/models.md, "etcd".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "sim/time.h"

namespace oversim::etcd {

struct KeyValue {
  std::string key;
  std::string value;
  int64_t create_revision = 0;
  int64_t mod_revision = 0;
  int64_t version = 0;
  int64_t lease = 0;  // 0: none
  friend bool operator==(const KeyValue&, const KeyValue&) = default;
};

// One compare of a Txn's If, on one key.
struct Compare {
  enum class Target : uint8_t { version, create_revision, mod_revision, value, lease };
  enum class Result : uint8_t { equal, not_equal, greater, less };
  std::string key;
  Target target = Target::version;
  Result result = Result::equal;
  int64_t number = 0;  // version, revisions, lease
  std::string value;   // Target::value
};

struct Put {
  std::string key;
  std::string value;
  int64_t lease = 0;
};
// A read of one key, or of every key with the prefix `key` (`prefix`), in key order or by
// create_revision, keeping at most `limit` (0: all); `max_create_revision` (0: none) keeps only
// keys created at or before it (clientv3.WithMaxCreateRev).
struct Range {
  enum class Sort : uint8_t { key, create_ascending, create_descending };
  std::string key;
  bool prefix = false;
  Sort sort = Sort::key;
  int64_t limit = 0;
  int64_t max_create_revision = 0;
};
struct DeleteRange {
  std::string key;
  bool prefix = false;
};
using Request = std::variant<Put, Range, DeleteRange>;

struct Txn {
  std::vector<Compare> compare;
  std::vector<Request> success;
  std::vector<Request> failure;
};

struct Event {
  enum class Type : uint8_t { put, remove };
  Type type = Type::put;
  KeyValue kv;  // for a remove: the key, and mod_revision = the delete's revision
  friend bool operator==(const Event&, const Event&) = default;
};

// What one request of a branch returned: the keys a Range found (and how many matched before
// the limit), the number a DeleteRange deleted, or nothing for a Put.
struct Response {
  std::vector<KeyValue> kvs;
  int64_t count = 0;
  int64_t deleted = 0;
};

struct TxnResult {
  enum class Error : uint8_t { none, lease_not_found };
  Error error = Error::none;
  bool succeeded = false;          // the If held (the Then branch ran)
  int64_t revision = 0;            // the store's revision after it (the response header)
  std::vector<Response> responses; // one per request of the branch that ran
};

class EtcdState {
 public:
  int64_t revision() const { return revision_; }
  TxnResult txn(const Txn& t);
  // The single requests, as one-request Txns with no compare.
  TxnResult put(const std::string& key, const std::string& value, int64_t lease = 0);
  TxnResult range(const Range& r);
  TxnResult remove(const std::string& key);

  // Leases (the replicated part: which exist, their granted TTL and their keys). Grant does not
  // change the revision; false when the id is taken. Revoke deletes the lease's keys in one
  // revision; false when it does not exist.
  bool grant(int64_t id, sim::Duration ttl);
  bool revoke(int64_t id);
  bool lease_exists(int64_t id) const { return leases_.count(id) > 0; }
  std::optional<sim::Duration> lease_ttl(int64_t id) const;
  std::vector<int64_t> lease_ids() const;  // ascending
  std::vector<std::string> keys_of(int64_t lease) const;

  std::optional<KeyValue> get(const std::string& key) const;
  // Every change at or after `revision`, in order (a watch from `revision`).
  std::vector<Event> events_since(int64_t revision, const std::string& key, bool prefix = false) const;

 private:
  bool holds(const Compare& c) const;
  bool leases_exist(const std::vector<Request>& branch) const;
  Response apply(const Request& r, int64_t rev, bool& changed);

  int64_t revision_ = 1;  // etcd starts at 1 with an empty store
  std::map<std::string, KeyValue> kvs_;
  struct Lease {
    sim::Duration ttl = sim::Duration::zero();
    std::vector<std::string> keys;  // in the order attached
  };
  std::map<int64_t, Lease> leases_;
  std::vector<Event> events_;
};

// The leader's lease clock. Times are the leader's own (its local clock).
class Lessor {
 public:
  // Leader: expiry = now + ttl. Follower: none (forever).
  void grant(int64_t id, sim::Duration ttl, sim::Instant now);
  // A keepalive the leader serves: nullopt when the lease is unknown or already expired (the
  // server answers TTL 0 / not found once the revoke lands); otherwise expiry = now + ttl and
  // the TTL to report.
  std::optional<sim::Duration> renew(int64_t id, sim::Instant now);
  void forget(int64_t id);
  // The leases whose expiry is at or before `now` (ascending ids), only while leader; each is
  // named once (the revoke is then proposed).
  std::vector<int64_t> expired(sim::Instant now);
  // Leadership lost: nothing expires here until this member leads again.
  void demote();
  // This member leads from its term's first entry at `now`: every lease gets now + extend + its
  // granted TTL (no checkpoints).
  void promote(sim::Instant now, sim::Duration extend);
  bool leader() const { return leader_; }
  std::optional<sim::Instant> expiry(int64_t id) const;  // nullopt: unknown, or not leading

 private:
  struct Entry {
    sim::Duration ttl = sim::Duration::zero();
    sim::Instant expiry = sim::Instant::max();
    bool revoking = false;
  };
  std::map<int64_t, Entry> leases_;
  bool leader_ = false;
};

}  // namespace oversim::etcd
