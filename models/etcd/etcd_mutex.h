// clientv3/concurrency's Session and Mutex, as etcd's client v3.5 codes them (session.go,
// mutex.go, key.go), on one EtcdClient. docs/models.md, "etcd", walks through them with sources.
//
// Session: a lease (the TTL asked, raised by the server to its minimum) kept alive by the client;
// `done()` once the client stops believing in it (a keepalive answered TTL 0, or none answered
// within the TTL). Close revokes it.
//
// Mutex on a prefix: its key is `<prefix>/<lease id in hex>`, so two Mutexes of one session on
// one prefix share a key (both "hold" it: a process serialises its own buyers first).
//   Lock: 1. one Txn: If CreateRevision(key) == 0 Then Put(key, "", lease) and get the owner,
//            Else Get(key) and get the owner (the owner: the prefix's key with the lowest
//            create_revision). myRev is the header revision when the Put ran, else the existing
//            key's create_revision. A Put on a lease that is gone fails the Txn.
//         2. the owner is us (or nobody): held, with that Txn's header.
//         3. else waitDeletes: Get the newest key under the prefix created before myRev; none:
//            done; else watch it from that Get's header revision until a DELETE event, and look
//            again. Past the deadline: Unlock (delete our key) and fail.
//         4. v3.5+: Get our key once more; gone: ErrSessionExpired (no Unlock). (v3.4 clients
//            skip this: `check_key_after_wait = false`, etcd #11456.)
//   Unlock: a plain Delete(key), no revision compare (etcd #22082); on an error the Mutex keeps
//           its key, so a retried Unlock deletes whatever key of that name exists then.
//   IsOwner: the compare CreateRevision(key) == myRev, for a guarded Txn.
// Waiters are ordered by create_revision: each waits only for the key created just before its
// own, so a release wakes one waiter.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "models/etcd/etcd_client.h"

namespace oversim::etcd {

class Session {
 public:
  // Grants the lease and keeps it alive; nullopt when the grant failed by `deadline`.
  static std::optional<Session> open(EtcdClient& client, Duration ttl, Instant deadline);
  int64_t lease() const { return lease_->id; }
  Duration ttl() const { return lease_->ttl; }
  bool done() const { return lease_->done.is_set(); }
  const std::string& why_done() const { return lease_->why_done; }
  uint64_t renewals() const { return lease_->renewals; }
  // The kept lease itself, which outlives this Session object (a process replaces its ended
  // session in place).
  std::shared_ptr<const KeptLease> kept() const { return lease_; }
  void close(Instant deadline);  // revoke (best effort, as Session.Close)
  EtcdClient& client() const { return *client_; }

 private:
  Session(EtcdClient& client, std::shared_ptr<KeptLease> lease) : client_(&client), lease_(std::move(lease)) {}
  EtcdClient* client_;
  std::shared_ptr<KeptLease> lease_;
};

struct MutexStats {
  uint64_t requests = 0;   // unary requests the recipe sent (watches included)
  uint64_t waits = 0;      // deletes it waited for
  uint64_t unknown = 0;    // requests whose outcome it could not know
};

class Mutex {
 public:
  enum class LockResult : uint8_t {
    held,             // key() is ours and the owner
    timed_out,        // the deadline passed (our key deleted, if the Delete got through)
    failed,           // a request failed or went unanswered (the key may exist: a retry finds it)
    session_expired,  // our key was gone after the wait (ErrSessionExpired), or the lease was
  };
  Mutex(Session& session, std::string prefix, bool check_key_after_wait = true);

  LockResult lock(Instant deadline);
  // Unlock: Delete(key). True when it answered (the Mutex forgets its key); false keeps the key,
  // as Mutex.Unlock does on an error, and a second call deletes that key again.
  bool unlock(Instant deadline);
  // The compare IsOwner() gives a Txn.
  Compare is_owner() const;

  const std::string& key() const { return key_; }
  int64_t revision() const { return rev_; }          // myRev: the key's create_revision
  int64_t header_revision() const { return hdr_; }   // Header().Revision of the lock
  const MutexStats& stats() const { return stats_; }
  Session& session() const { return *session_; }

 private:
  CallResult send(const Txn& t, Instant deadline);
  LockResult wait_deletes(Instant deadline);

  Session* session_;
  std::string prefix_;  // with the trailing "/"
  bool check_key_after_wait_;
  std::string key_;
  int64_t rev_ = 0;
  int64_t hdr_ = 0;
  MutexStats stats_;
};

const char* to_string(Mutex::LockResult r);

}  // namespace oversim::etcd
