#include "models/etcd/etcd_state.h"

#include <algorithm>

namespace oversim::etcd {

namespace {
bool in_range(const std::string& k, const std::string& key, bool prefix) { return prefix ? k.compare(0, key.size(), key) == 0 : k == key; }

template <class T>
bool compare_with(const T& have, const T& want, Compare::Result r) {
  switch (r) {
    case Compare::Result::equal: return have == want;
    case Compare::Result::not_equal: return have != want;
    case Compare::Result::greater: return have > want;
    case Compare::Result::less: return have < want;
  }
  return false;
}
}  // namespace

bool EtcdState::holds(const Compare& c) const {
  auto it = kvs_.find(c.key);
  const KeyValue none;
  const KeyValue& kv = it == kvs_.end() ? none : it->second;
  switch (c.target) {
    case Compare::Target::version: return compare_with(kv.version, c.number, c.result);
    case Compare::Target::create_revision: return compare_with(kv.create_revision, c.number, c.result);
    case Compare::Target::mod_revision: return compare_with(kv.mod_revision, c.number, c.result);
    case Compare::Target::lease: return compare_with(kv.lease, c.number, c.result);
    case Compare::Target::value:
      // etcd: a value compare on a missing key is false whatever the result asked.
      if (it == kvs_.end()) return false;
      return compare_with(kv.value, c.value, c.result);
  }
  return false;
}

bool EtcdState::leases_exist(const std::vector<Request>& branch) const {
  for (const Request& r : branch) {
    if (const Put* p = std::get_if<Put>(&r); p != nullptr && p->lease != 0 && leases_.count(p->lease) == 0) return false;
  }
  return true;
}

Response EtcdState::apply(const Request& r, int64_t rev, bool& changed) {
  Response out;
  if (const Put* p = std::get_if<Put>(&r)) {
    KeyValue& kv = kvs_[p->key];
    if (kv.version == 0) {
      kv.key = p->key;
      kv.create_revision = rev;
    }
    if (kv.lease != 0 && kv.lease != p->lease) {
      auto& keys = leases_[kv.lease].keys;
      keys.erase(std::remove(keys.begin(), keys.end(), p->key), keys.end());
    }
    if (p->lease != 0 && kv.lease != p->lease) leases_[p->lease].keys.push_back(p->key);
    kv.value = p->value;
    kv.mod_revision = rev;
    ++kv.version;
    kv.lease = p->lease;
    events_.push_back(Event{Event::Type::put, kv});
    changed = true;
    return out;
  }
  if (const Range* q = std::get_if<Range>(&r)) {
    for (auto it = kvs_.lower_bound(q->key); it != kvs_.end() && in_range(it->first, q->key, q->prefix); ++it) {
      if (q->max_create_revision > 0 && it->second.create_revision > q->max_create_revision) continue;
      out.kvs.push_back(it->second);
      if (!q->prefix) break;
    }
    if (q->sort == Range::Sort::create_ascending) {
      std::sort(out.kvs.begin(), out.kvs.end(), [](const KeyValue& a, const KeyValue& b) { return a.create_revision < b.create_revision; });
    } else if (q->sort == Range::Sort::create_descending) {
      std::sort(out.kvs.begin(), out.kvs.end(), [](const KeyValue& a, const KeyValue& b) { return a.create_revision > b.create_revision; });
    }
    out.count = static_cast<int64_t>(out.kvs.size());
    if (q->limit > 0 && out.count > q->limit) out.kvs.resize(static_cast<size_t>(q->limit));
    return out;
  }
  const DeleteRange& d = std::get<DeleteRange>(r);
  for (auto it = kvs_.lower_bound(d.key); it != kvs_.end() && in_range(it->first, d.key, d.prefix);) {
    KeyValue gone = it->second;
    if (gone.lease != 0) {
      auto& keys = leases_[gone.lease].keys;
      keys.erase(std::remove(keys.begin(), keys.end(), gone.key), keys.end());
    }
    it = kvs_.erase(it);
    gone.mod_revision = rev;
    events_.push_back(Event{Event::Type::remove, gone});
    ++out.deleted;
    changed = true;
    if (!d.prefix) break;
  }
  return out;
}

TxnResult EtcdState::txn(const Txn& t) {
  TxnResult result;
  result.succeeded = std::all_of(t.compare.begin(), t.compare.end(), [this](const Compare& c) { return holds(c); });
  const std::vector<Request>& branch = result.succeeded ? t.success : t.failure;
  if (!leases_exist(branch)) {
    result.error = TxnResult::Error::lease_not_found;
    result.revision = revision_;
    return result;
  }
  // Every change of one Txn has the same revision, the next one, taken only if something changed.
  const int64_t rev = revision_ + 1;
  bool changed = false;
  for (const Request& r : branch) result.responses.push_back(apply(r, rev, changed));
  if (changed) revision_ = rev;
  result.revision = revision_;
  return result;
}

TxnResult EtcdState::put(const std::string& key, const std::string& value, int64_t lease) { return txn(Txn{{}, {Put{key, value, lease}}, {}}); }
TxnResult EtcdState::range(const Range& r) { return txn(Txn{{}, {r}, {}}); }
TxnResult EtcdState::remove(const std::string& key) { return txn(Txn{{}, {DeleteRange{key, false}}, {}}); }

bool EtcdState::grant(int64_t id, sim::Duration ttl) {
  if (id == 0 || leases_.count(id) > 0) return false;
  leases_[id].ttl = ttl;
  return true;
}

bool EtcdState::revoke(int64_t id) {
  auto it = leases_.find(id);
  if (it == leases_.end()) return false;
  Txn t;
  for (const std::string& key : it->second.keys) t.success.push_back(DeleteRange{key, false});
  txn(t);
  leases_.erase(id);
  return true;
}

std::optional<sim::Duration> EtcdState::lease_ttl(int64_t id) const {
  auto it = leases_.find(id);
  if (it == leases_.end()) return std::nullopt;
  return it->second.ttl;
}

std::vector<int64_t> EtcdState::lease_ids() const {
  std::vector<int64_t> ids;
  for (const auto& [id, lease] : leases_) ids.push_back(id);
  return ids;
}

std::vector<std::string> EtcdState::keys_of(int64_t lease) const {
  auto it = leases_.find(lease);
  return it == leases_.end() ? std::vector<std::string>{} : it->second.keys;
}

std::optional<KeyValue> EtcdState::get(const std::string& key) const {
  auto it = kvs_.find(key);
  if (it == kvs_.end()) return std::nullopt;
  return it->second;
}

std::vector<Event> EtcdState::events_since(int64_t revision, const std::string& key, bool prefix) const {
  std::vector<Event> out;
  auto first = std::lower_bound(events_.begin(), events_.end(), revision, [](const Event& e, int64_t r) { return e.kv.mod_revision < r; });
  for (auto it = first; it != events_.end(); ++it) {
    if (in_range(it->kv.key, key, prefix)) out.push_back(*it);
  }
  return out;
}

void Lessor::grant(int64_t id, sim::Duration ttl, sim::Instant now) {
  Entry& e = leases_[id];
  e.ttl = ttl;
  e.expiry = leader_ ? now + ttl : sim::Instant::max();
  e.revoking = false;
}

std::optional<sim::Duration> Lessor::renew(int64_t id, sim::Instant now) {
  auto it = leases_.find(id);
  if (it == leases_.end() || !leader_ || it->second.revoking || it->second.expiry <= now) return std::nullopt;
  it->second.expiry = now + it->second.ttl;
  return it->second.ttl;
}

void Lessor::forget(int64_t id) { leases_.erase(id); }

std::vector<int64_t> Lessor::expired(sim::Instant now) {
  std::vector<int64_t> out;
  if (!leader_) return out;
  for (auto& [id, e] : leases_) {
    if (e.revoking || e.expiry > now) continue;
    e.revoking = true;
    out.push_back(id);
  }
  return out;
}

void Lessor::demote() {
  leader_ = false;
  for (auto& [id, e] : leases_) {
    e.expiry = sim::Instant::max();
    e.revoking = false;
  }
}

void Lessor::promote(sim::Instant now, sim::Duration extend) {
  leader_ = true;
  for (auto& [id, e] : leases_) {
    e.expiry = now + extend + e.ttl;
    e.revoking = false;
  }
}

std::optional<sim::Instant> Lessor::expiry(int64_t id) const {
  auto it = leases_.find(id);
  if (it == leases_.end() || !leader_) return std::nullopt;
  return it->second.expiry;
}

}  // namespace oversim::etcd
