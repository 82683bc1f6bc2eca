#include "models/etcd/etcd_mutex.h"

#include <fmt/format.h>

namespace oversim::etcd {

std::optional<Session> Session::open(EtcdClient& client, Duration ttl, Instant deadline) {
  std::shared_ptr<KeptLease> lease = client.grant_and_keep_alive(ttl, deadline);
  if (lease == nullptr) return std::nullopt;
  return Session(client, std::move(lease));
}

void Session::close(Instant deadline) { client_->revoke(lease_, deadline); }

const char* to_string(Mutex::LockResult r) {
  switch (r) {
    case Mutex::LockResult::held: return "held";
    case Mutex::LockResult::timed_out: return "timed out";
    case Mutex::LockResult::failed: return "failed";
    case Mutex::LockResult::session_expired: return "session expired";
  }
  return "?";
}

Mutex::Mutex(Session& session, std::string prefix, bool check_key_after_wait)
    : session_(&session), prefix_(std::move(prefix) + "/"), check_key_after_wait_(check_key_after_wait) {}

CallResult Mutex::send(const Txn& t, Instant deadline) {
  ++stats_.requests;
  CallResult r = session_->client().txn(t, deadline);
  if (r.status == CallResult::Status::unknown) ++stats_.unknown;
  return r;
}

Compare Mutex::is_owner() const { return Compare{key_, Compare::Target::create_revision, Compare::Result::equal, rev_, ""}; }

Mutex::LockResult Mutex::lock(Instant deadline) {
  key_ = fmt::format("{}{:x}", prefix_, session_->lease());
  // tryAcquire: one Txn.
  const Range owner{prefix_, true, Range::Sort::create_ascending, 1, 0};
  Txn t;
  t.compare = {Compare{key_, Compare::Target::create_revision, Compare::Result::equal, 0, ""}};
  t.success = {Put{key_, "", session_->lease()}, owner};
  t.failure = {Range{key_, false, Range::Sort::key, 0, 0}, owner};
  CallResult r = send(t, deadline);
  if (r.status == CallResult::Status::answered && r.reply.code == Code::lease_not_found) return LockResult::session_expired;
  if (!r.ok()) return session_->client().now() >= deadline ? LockResult::timed_out : LockResult::failed;
  const TxnResult& res = r.reply.txn;
  rev_ = res.succeeded ? res.revision : res.responses.at(0).kvs.at(0).create_revision;
  const std::vector<KeyValue>& first = res.responses.at(1).kvs;
  hdr_ = res.revision;
  if (first.empty() || first.front().create_revision == rev_) return LockResult::held;
  const LockResult waited = wait_deletes(deadline);
  if (waited != LockResult::held) {
    // Mutex.Lock: a wait that failed unlocks (deletes our key) before it returns the error.
    unlock(deadline + session_->client().options().request_timeout);
    return waited;
  }
  if (!check_key_after_wait_) return LockResult::held;
  CallResult mine = send(Txn{{}, {Range{key_, false, Range::Sort::key, 0, 0}}, {}}, deadline + session_->client().options().request_timeout);
  if (!mine.ok()) {
    unlock(deadline + session_->client().options().request_timeout);
    return LockResult::failed;
  }
  if (mine.reply.txn.responses.at(0).kvs.empty()) return LockResult::session_expired;
  hdr_ = mine.reply.txn.revision;
  return LockResult::held;
}

Mutex::LockResult Mutex::wait_deletes(Instant deadline) {
  EtcdClient& client = session_->client();
  for (;;) {
    const Range newest_before{prefix_, true, Range::Sort::create_descending, 1, rev_ - 1};
    CallResult r = send(Txn{{}, {newest_before}, {}}, deadline);
    if (!r.ok()) return client.now() >= deadline ? LockResult::timed_out : LockResult::failed;
    const std::vector<KeyValue>& kvs = r.reply.txn.responses.at(0).kvs;
    if (kvs.empty()) return LockResult::held;
    ++stats_.waits;
    ++stats_.requests;
    std::shared_ptr<WatchStream> w = client.watch(kvs.front().key, r.reply.txn.revision, deadline);
    if (w == nullptr) return LockResult::timed_out;
    bool deleted = false;
    while (!deleted) {
      std::optional<Event> e = client.next_event(w, deadline);
      if (!e) {
        client.cancel(w);
        return LockResult::timed_out;
      }
      deleted = e->type == Event::Type::remove;
    }
    client.cancel(w);
  }
}

bool Mutex::unlock(Instant deadline) {
  if (key_.empty()) return true;
  CallResult r = send(Txn{{}, {DeleteRange{key_, false}}, {}}, deadline);
  if (!r.ok()) return false;
  key_.clear();
  rev_ = 0;
  return true;
}

}  // namespace oversim::etcd
