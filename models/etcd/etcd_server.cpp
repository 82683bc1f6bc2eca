#include "models/etcd/etcd_server.h"

#include <fmt/format.h>

#include <algorithm>
#include <any>
#include <utility>

namespace oversim::etcd {
namespace {

constexpr const char* kClientPort = "etcd";
constexpr const char* kWatchPort = "etcd-watch";
constexpr const char* kPeerPort = "etcd-peer";
constexpr size_t kMaxBatch = 64;  // entries per append (etcd's MaxSizePerMsg, in entries)

// ---- Raft messages (one-way on "etcd-peer", in order per link)
struct Append {
  int64_t term = 0;
  uint32_t from = 0;
  int64_t prev_index = 0;
  int64_t prev_term = 0;
  std::vector<LogEntry> entries;
  int64_t commit = 0;
  uint64_t round = 0;  // the leader's heartbeat round (ReadIndex)
};
struct AppendReply {
  int64_t term = 0;
  uint32_t from = 0;
  bool ok = false;
  int64_t match = 0;  // ok: the last index it has from this leader
  int64_t hint = 0;   // refused: the index to back off to
  uint64_t round = 0;
};
struct RequestVote {
  int64_t term = 0;
  uint32_t from = 0;
  int64_t last_index = 0;
  int64_t last_term = 0;
};
struct VoteReply {
  int64_t term = 0;
  uint32_t from = 0;
  bool granted = false;
};
// A follower relays a client's request to its leader, which answers with RelayReply.
struct Relay {
  int64_t term = 0;
  uint32_t from = 0;
  uint64_t key = 0;
  ClientRequest request;
  std::string client;
};
struct RelayReply {
  uint64_t key = 0;
  ClientReply reply;
};

bool is_read_only(const Txn& t) {
  auto reads = [](const std::vector<Request>& branch) {
    return std::all_of(branch.begin(), branch.end(), [](const Request& r) { return std::holds_alternative<Range>(r); });
  };
  return reads(t.success) && reads(t.failure);
}

std::string describe(const Request& r) {
  if (const auto* p = std::get_if<Put>(&r)) return p->lease != 0 ? fmt::format("put {} lease={:x}", p->key, p->lease) : fmt::format("put {}", p->key);
  if (const auto* q = std::get_if<Range>(&r)) {
    std::string s = fmt::format("range {}{}", q->key, q->prefix ? "*" : "");
    if (q->max_create_revision > 0) s += fmt::format(" maxCreateRev={}", q->max_create_revision);
    if (q->limit > 0) s += fmt::format(" limit={}", q->limit);
    return s;
  }
  const auto& d = std::get<DeleteRange>(r);
  return fmt::format("delete {}{}", d.key, d.prefix ? "*" : "");
}

std::string describe(const Txn& t) {
  if (t.compare.empty() && t.failure.empty() && t.success.size() == 1) return describe(t.success.front());
  std::string s = "txn if";
  for (const Compare& c : t.compare) {
    static const char* targets[] = {"version", "create", "mod", "value", "lease"};
    static const char* results[] = {"=", "!=", ">", "<"};
    s += fmt::format(" {}({}){}{}", targets[static_cast<int>(c.target)], c.key, results[static_cast<int>(c.result)],
                     c.target == Compare::Target::value ? c.value : std::to_string(c.number));
  }
  s += " then";
  for (const Request& r : t.success) s += fmt::format(" {}", describe(r));
  if (!t.failure.empty()) {
    s += " else";
    for (const Request& r : t.failure) s += fmt::format(" {}", describe(r));
  }
  return s;
}

}  // namespace

Duration ClusterOptions::min_lease_ttl() const {
  const int64_t ns = election_timeout().count_ns() * 3 / 2;
  const int64_t s = (ns + 999'999'999) / 1'000'000'000;
  return Duration::s(s);
}

const char* to_string(Role r) {
  switch (r) {
    case Role::follower: return "follower";
    case Role::candidate: return "candidate";
    case Role::leader: return "leader";
  }
  return "?";
}

const char* to_string(Code c) {
  switch (c) {
    case Code::ok: return "OK";
    case Code::no_leader: return "etcdserver: no leader";
    case Code::leader_changed: return "etcdserver: leader changed";
    case Code::lease_not_found: return "etcdserver: requested lease not found";
  }
  return "?";
}

std::string to_string(const ClientRequest& r) {
  if (const auto* t = std::get_if<TxnRequest>(&r)) return describe(t->txn);
  if (const auto* g = std::get_if<LeaseGrantRequest>(&r)) return fmt::format("lease grant ttl={}", sim::format_duration(g->ttl));
  if (const auto* v = std::get_if<LeaseRevokeRequest>(&r)) return fmt::format("lease revoke {:x}", v->id);
  if (const auto* k = std::get_if<LeaseKeepAliveRequest>(&r)) return fmt::format("lease keepalive {:x}", k->id);
  if (const auto* w = std::get_if<WatchCreateRequest>(&r)) return fmt::format("watch {}{} from {}", w->key, w->prefix ? "*" : "", w->start_revision);
  return fmt::format("watch cancel {}", std::get<WatchCancelRequest>(r).watch_id);
}

EtcdServer::EtcdServer(sim::World& world, sim::Node& node, uint32_t id, std::vector<std::string> peers, ClusterOptions options, Start start)
    : world_(world), node_(node), id_(id), peers_(std::move(peers)), options_(options), start_(start) {
  term_ = start.term;
  node_.set_on_crash([this](sim::Node&) { on_crash(); });
  node_.set_boot([this](sim::Node&) { boot(); });
}

sim::Node& EtcdServer::peer(uint32_t id) const { return world_.node(peers_.at(id - 1)); }

void EtcdServer::send_peer(uint32_t to, std::any body, std::string summary) { world_.network().send(node_, peer(to), kPeerPort, std::move(body), std::move(summary)); }

sim::MailboxLoad EtcdServer::load() const {
  const sim::Mailbox* box = node_.find_mailbox(kClientPort);
  return box == nullptr ? sim::MailboxLoad{} : box->load();
}

// ---- lifecycle ----------------------------------------------------------------------------------

void EtcdServer::boot() {
  tick_ = 0;
  heard_leader_tick_ = 0;
  quorum_check_tick_ = 0;
  commit_ = applied_;
  if (!booted_once_) {
    // The cluster was up before the sale: the configured leader leads term 1 with every member
    // following it, and the log is empty.
    booted_once_ = true;
    role_ = start_.role;
    leader_ = start_.leader;
    if (role_ == Role::leader) {
      for (uint32_t p = 1; p <= peers_.size(); ++p) {
        if (p != id_) progress_[p] = Progress{1, 0, 0, true};
      }
      lessor_.promote(node_.monotonic_now(), Duration::zero());
      elections_.push_back(fmt::format("{} leads term {}", name(), term_));
    }
  } else {
    role_ = Role::follower;
    leader_ = 0;
    // The lessor is rebuilt from the backend, every lease waiting for a leader to promote it.
    lessor_ = Lessor{};
    for (int64_t id : state_.lease_ids()) lessor_.grant(id, *state_.lease_ttl(id), node_.monotonic_now());
    world_.trace_at(&node_, "etcd-role", {{"role", "follower"}, {"why", "restarted"}, {"term", std::to_string(term_)}});
  }
  world_.spawn(&node_, name() + "/serve", [this] { serve(); }, true);
  world_.spawn(&node_, name() + "/peer", [this] { peer_loop(); }, true);
  world_.spawn(&node_, name() + "/tick", [this] { tick_loop(); }, true);
}

void EtcdServer::on_crash() {
  role_ = Role::follower;
  leader_ = 0;
  votes_.clear();
  progress_.clear();
  pending_.clear();
  relayed_.clear();
  watches_.clear();
  lessor_.demote();
}

void EtcdServer::step_down_cleanup(const std::string& why) {
  lessor_.demote();
  progress_.clear();
  std::map<uint64_t, Pending> pending;
  pending.swap(pending_);
  for (const auto& [key, p] : pending) answer(p.who, p.request, ClientReply{Code::leader_changed, {}, state_.revision(), 0, Duration::zero()});
  world_.trace_at(&node_, "etcd-role", {{"role", "follower"}, {"was", "leader"}, {"why", why}, {"term", std::to_string(term_)}});
}

void EtcdServer::become_follower(int64_t term, uint32_t leader, const std::string& why) {
  if (term > term_) {
    term_ = term;
    voted_for_ = 0;
  }
  if (role_ == Role::leader) step_down_cleanup(why);
  const bool changed = leader_ != leader || role_ != Role::follower;
  role_ = Role::follower;
  votes_.clear();
  if (leader_ != leader) {
    // What was relayed to the old leader has no answer coming: it may or may not commit.
    std::map<uint64_t, std::pair<sim::Message, ClientRequest>> relayed;
    relayed.swap(relayed_);
    for (const auto& [key, m] : relayed) answer(Requester{m.first, 0, 0, world_.nodes().at(m.first.from)->name()}, m.second, ClientReply{Code::leader_changed, {}, state_.revision(), 0, Duration::zero()});
  }
  leader_ = leader;
  if (changed && leader != 0) {
    world_.trace_at(&node_, "etcd-role", {{"role", "follower"}, {"leader", peers_.at(leader - 1)}, {"term", std::to_string(term_)}});
  }
}

void EtcdServer::start_election() {
  if (role_ == Role::leader) return;
  become_follower(term_ + 1, 0, "election");
  role_ = Role::candidate;
  voted_for_ = id_;
  votes_ = {id_};
  heard_leader_tick_ = tick_;
  world_.trace_at(&node_, "etcd-role", {{"role", "candidate"}, {"term", std::to_string(term_)}, {"last", fmt::format("{}/{}", last_term(), last_index())}});
  for (uint32_t p = 1; p <= peers_.size(); ++p) {
    if (p != id_) send_peer(p, RequestVote{term_, id_, last_index(), last_term()}, fmt::format("MsgVote term {}", term_));
  }
  if (votes_.size() >= quorum()) become_leader();
}

void EtcdServer::become_leader() {
  role_ = Role::leader;
  leader_ = id_;
  votes_.clear();
  progress_.clear();
  for (uint32_t p = 1; p <= peers_.size(); ++p) {
    if (p != id_) progress_[p] = Progress{last_index() + 1, 0, 0, true};
  }
  quorum_check_tick_ = tick_;
  elections_.push_back(fmt::format("{} leads term {}", name(), term_));
  world_.trace_at(&node_, "etcd-role", {{"role", "leader"}, {"term", std::to_string(term_)}, {"last", std::to_string(last_index())}});
  // The empty entry of the new term: once it commits, so has everything before it, and the
  // lessor promotes when it is applied.
  append(Noop{}, 0);
}

// ---- loops ----------------------------------------------------------------------------------------

void EtcdServer::tick_loop() {
  const int64_t lease_ticks = std::max<int64_t>(1, options_.lease_tick.count_ns() / options_.heartbeat.count_ns());
  for (;;) {
    sim::sleep_local(options_.heartbeat);
    ++tick_;
    if (role_ == Role::leader) {
      ++heartbeat_round_;
      broadcast_append();
      if (tick_ - quorum_check_tick_ >= options_.election_ticks) {
        quorum_check_tick_ = tick_;
        uint32_t active = 1;
        for (auto& [p, pr] : progress_) {
          active += pr.heard ? 1 : 0;
          pr.heard = false;
        }
        if (active < quorum()) {
          become_follower(term_, 0, fmt::format("CheckQuorum: heard {} of {} members in an election timeout", active, peers_.size()));
          heard_leader_tick_ = tick_;
          continue;
        }
      }
      if (tick_ % lease_ticks == 0) {
        for (int64_t id : lessor_.expired(node_.monotonic_now())) {
          const std::string line = fmt::format("lease {:x} expired on {} (term {}): revoke proposed", id, name(), term_);
          expiries_.push_back(line);
          world_.trace_at(&node_, "etcd-lease", {{"lease", fmt::format("{:x}", id)}, {"expired", "revoke proposed"}});
          append(RevokeOp{id, true}, 0);
        }
      }
    } else if (tick_ - heard_leader_tick_ >= my_election_ticks()) {
      start_election();
    }
  }
}

void EtcdServer::peer_loop() {
  for (;;) {
    std::optional<sim::Message> m = node_.mailbox(kPeerPort).receive(std::nullopt, "etcd peer");
    handle_peer(*m);
  }
}

void EtcdServer::serve() {
  for (;;) {
    std::optional<sim::Message> m = node_.mailbox(kClientPort).receive(std::nullopt, "etcd request");
    sim::sleep_for(options_.service_time);
    handle_client(*m);
  }
}

// ---- client side ----------------------------------------------------------------------------------

void EtcdServer::answer(const Requester& who, const ClientRequest& r, const ClientReply& reply) {
  if (who.relay_from != 0) {
    send_peer(who.relay_from, RelayReply{who.relay_key, reply}, fmt::format("relayed answer: {}", to_string(reply.code)));
    return;
  }
  std::string text = to_string(reply.code);
  if (reply.code == Code::ok && std::holds_alternative<TxnRequest>(r)) text = fmt::format("{} rev={}", reply.txn.succeeded ? "OK" : "OK (else)", reply.revision);
  if (reply.code == Code::ok && std::holds_alternative<LeaseGrantRequest>(r)) text = fmt::format("lease {:x} ttl={}", reply.lease, sim::format_duration(reply.ttl));
  // Keepalives and watch requests are not traced (a ZooKeeper ping is not either).
  const bool quiet = std::holds_alternative<LeaseKeepAliveRequest>(r) || std::holds_alternative<WatchCreateRequest>(r) || std::holds_alternative<WatchCancelRequest>(r);
  if (!quiet) world_.trace_at(&node_, "etcd", {{"cmd", to_string(r)}, {"reply", text}, {"from", who.client}});
  if (who.request->rpc_id == 0) return;  // sent one way (a watch cancel): nobody waits
  world_.network().reply(node_, *who.request, reply, text);
}

void EtcdServer::handle_client(const sim::Message& m) {
  const auto& r = std::any_cast<const ClientRequest&>(m.body);
  const Requester who{m, 0, 0, world_.nodes().at(m.from)->name()};
  const ClientReply none{Code::ok, {}, state_.revision(), 0, Duration::zero()};
  if (const auto* w = std::get_if<WatchCreateRequest>(&r)) {
    // Served by this member from its own store, leader or not (clientv3 asks for no leader).
    watches_[{m.from, w->watch_id}] = Watcher{m.from, *w};
    answer(who, r, none);
    for (const Event& e : state_.events_since(w->start_revision, w->key, w->prefix)) {
      world_.network().send(node_, *world_.nodes().at(m.from), kWatchPort, WatchEvent{w->watch_id, e}, fmt::format("{} {}", e.type == Event::Type::put ? "PUT" : "DELETE", e.kv.key));
    }
    return;
  }
  if (const auto* c = std::get_if<WatchCancelRequest>(&r)) {
    watches_.erase({m.from, c->watch_id});
    return answer(who, r, none);
  }
  if (leader_ == 0) return answer(who, r, ClientReply{Code::no_leader, {}, state_.revision(), 0, Duration::zero()});
  if (role_ == Role::leader) return lead_request(who, r);
  const uint64_t key = next_key_++;
  relayed_.emplace(key, std::pair{m, r});
  send_peer(leader_, Relay{term_, id_, key, r, who.client}, "relay " + to_string(r));
}

void EtcdServer::lead_request(Requester who, const ClientRequest& r) {
  if (const auto* k = std::get_if<LeaseKeepAliveRequest>(&r)) {
    ClientReply reply{Code::ok, {}, state_.revision(), 0, Duration::zero()};
    if (auto ttl = lessor_.renew(k->id, node_.monotonic_now())) reply.ttl = *ttl;
    return answer(who, r, reply);
  }
  const uint64_t key = next_key_++;
  if (const auto* t = std::get_if<TxnRequest>(&r); t != nullptr && is_read_only(t->txn)) {
    ++heartbeat_round_;
    pending_.emplace(key, Pending{std::move(who), r, commit_, heartbeat_round_});
    broadcast_append();
    release_reads();
    return;
  }
  pending_.emplace(key, Pending{std::move(who), r, 0, 0});
  if (const auto* t = std::get_if<TxnRequest>(&r)) {
    append(t->txn, key);
  } else if (const auto* g = std::get_if<LeaseGrantRequest>(&r)) {
    const int64_t id = static_cast<int64_t>(id_) << 32 | next_lease_++;
    append(GrantOp{id, std::max(g->ttl, options_.min_lease_ttl())}, key);
  } else {
    append(RevokeOp{std::get<LeaseRevokeRequest>(r).id, false}, key);
  }
}

// Reads whose heartbeat round a quorum answered, once the leader has committed an entry of its
// term (before that it does not know the commit index): answered from its store.
void EtcdServer::release_reads() {
  if (role_ != Role::leader || term_at(commit_) != term_) return;
  for (auto it = pending_.begin(); it != pending_.end();) {
    const Pending& p = it->second;
    if (p.heartbeat == 0) {
      ++it;
      continue;
    }
    uint32_t acked = 1;
    for (const auto& [id, pr] : progress_) acked += pr.acked_round >= p.heartbeat ? 1 : 0;
    if (acked < quorum() || applied_ < p.read_index) {
      ++it;
      continue;
    }
    ClientReply reply;
    reply.txn = state_.txn(std::get<TxnRequest>(p.request).txn);
    reply.revision = reply.txn.revision;
    const Pending done = std::move(it->second);
    it = pending_.erase(it);
    answer(done.who, done.request, reply);
  }
}

// ---- Raft -----------------------------------------------------------------------------------------

uint64_t EtcdServer::append(LogOp op, uint64_t origin_key) {
  log_.push_back(LogEntry{term_, std::move(op), id_, origin_key});
  broadcast_append();
  maybe_commit();
  return static_cast<uint64_t>(last_index());
}

void EtcdServer::broadcast_append() {
  for (const auto& [p, pr] : progress_) send_append(p);
}

void EtcdServer::send_append(uint32_t to) {
  Progress& pr = progress_.at(to);
  const int64_t prev = std::min(pr.next - 1, last_index());
  Append a{term_, id_, prev, term_at(prev), {}, commit_, heartbeat_round_};
  const size_t first = static_cast<size_t>(prev);
  const size_t end = std::min(log_.size(), first + kMaxBatch);
  a.entries.assign(log_.begin() + static_cast<std::ptrdiff_t>(first), log_.begin() + static_cast<std::ptrdiff_t>(end));
  pr.next = prev + static_cast<int64_t>(a.entries.size()) + 1;
  const std::string summary = a.entries.empty() ? "MsgHeartbeat" : fmt::format("MsgApp {}..{}", prev + 1, pr.next - 1);
  send_peer(to, std::move(a), summary);
}

void EtcdServer::maybe_commit() {
  if (role_ != Role::leader) return;
  // The highest index a quorum has (this member has all of its log).
  std::vector<int64_t> matched{last_index()};
  for (const auto& [p, pr] : progress_) matched.push_back(pr.match);
  std::sort(matched.begin(), matched.end(), std::greater<>());
  const int64_t n = matched.at(quorum() - 1);
  // Raft commits by counting replicas only for an entry of the leader's own term.
  if (n > commit_ && term_at(n) == term_) {
    commit_ = n;
    apply_committed();
  }
  release_reads();
}

void EtcdServer::apply_committed() {
  while (applied_ < commit_) {
    ++applied_;
    apply(log_.at(static_cast<size_t>(applied_ - 1)), applied_);
  }
}

void EtcdServer::apply(const LogEntry& e, int64_t index) {
  const int64_t before = state_.revision();
  ClientReply reply{Code::ok, {}, before, 0, Duration::zero()};
  if (std::holds_alternative<Noop>(e.op)) {
    if (role_ == Role::leader && e.term == term_) {
      lessor_.promote(node_.monotonic_now(), options_.election_timeout());
      world_.trace_at(&node_, "etcd-lease", {{"promote", fmt::format("every lease: now + {} + its TTL", sim::format_duration(options_.election_timeout()))}});
    }
  } else if (const auto* t = std::get_if<Txn>(&e.op)) {
    reply.txn = state_.txn(*t);
    if (reply.txn.error == TxnResult::Error::lease_not_found) reply.code = Code::lease_not_found;
    reply.revision = reply.txn.revision;
    if (role_ == Role::leader && reply.txn.revision > before) {
      for (const Event& ev : state_.events_since(reply.txn.revision, "", true)) {
        if (ev.type != Event::Type::remove) continue;
        auto it = pending_.find(e.origin_key);
        const std::string from = e.origin == id_ && it != pending_.end() ? it->second.who.client : std::string{};
        removals_.push_back(Removal{ev.kv, from, world_.now(), world_.steps()});
      }
    }
  } else if (const auto* g = std::get_if<GrantOp>(&e.op)) {
    if (state_.grant(g->id, g->ttl)) {
      lessor_.grant(g->id, g->ttl, node_.monotonic_now());
      reply.lease = g->id;
      reply.ttl = g->ttl;
    } else {
      reply.code = Code::lease_not_found;
    }
  } else if (const auto* v = std::get_if<RevokeOp>(&e.op)) {
    if (!state_.revoke(v->id)) reply.code = Code::lease_not_found;
    lessor_.forget(v->id);
    reply.revision = state_.revision();
    if (v->expired && role_ == Role::leader) world_.trace_at(&node_, "etcd-lease", {{"lease", fmt::format("{:x}", v->id)}, {"revoked", fmt::format("rev {}", state_.revision())}});
  }
  (void)index;
  if (state_.revision() > before) notify_watches(before + 1);
  if (e.origin != id_ || e.origin_key == 0) return;
  auto it = pending_.find(e.origin_key);
  if (it == pending_.end()) return;
  const Pending done = std::move(it->second);
  pending_.erase(it);
  answer(done.who, done.request, reply);
}

void EtcdServer::notify_watches(int64_t from_revision) {
  if (watches_.empty()) return;
  for (const Event& ev : state_.events_since(from_revision, "", true)) {
    for (const auto& [id, w] : watches_) {
      const WatchCreateRequest& r = w.request;
      if (ev.kv.mod_revision < r.start_revision) continue;
      if (r.prefix ? ev.kv.key.compare(0, r.key.size(), r.key) != 0 : ev.kv.key != r.key) continue;
      world_.network().send(node_, *world_.nodes().at(w.client), kWatchPort, WatchEvent{r.watch_id, ev},
                            fmt::format("{} {}", ev.type == Event::Type::put ? "PUT" : "DELETE", ev.kv.key));
    }
  }
}

void EtcdServer::handle_peer(const sim::Message& m) {
  if (const auto* a = std::any_cast<Append>(&m.body)) {
    if (a->term < term_) {
      send_peer(a->from, AppendReply{term_, id_, false, 0, last_index(), a->round}, "MsgAppResp (stale term)");
      return;
    }
    if (a->term > term_ || role_ != Role::follower || leader_ != a->from) become_follower(a->term, a->from, "append from the leader");
    heard_leader_tick_ = tick_;
    if (a->prev_index > last_index() || term_at(a->prev_index) != a->prev_term) {
      const int64_t hint = std::min(last_index(), a->prev_index - 1);
      send_peer(a->from, AppendReply{term_, id_, false, 0, std::max<int64_t>(hint, 0), a->round}, "MsgAppResp (reject)");
      return;
    }
    int64_t index = a->prev_index;
    for (const LogEntry& e : a->entries) {
      ++index;
      if (index <= last_index()) {
        if (term_at(index) == e.term) continue;
        log_.resize(static_cast<size_t>(index - 1));  // a conflicting suffix (never committed)
      }
      log_.push_back(e);
    }
    const int64_t match = a->prev_index + static_cast<int64_t>(a->entries.size());
    if (a->commit > commit_) {
      commit_ = std::min(a->commit, match);
      apply_committed();
    }
    send_peer(a->from, AppendReply{term_, id_, true, match, 0, a->round}, a->entries.empty() ? "MsgHeartbeatResp" : fmt::format("MsgAppResp {}", match));
  } else if (const auto* r = std::any_cast<AppendReply>(&m.body)) {
    if (r->term > term_) {
      become_follower(r->term, 0, fmt::format("{} has a later term {}", peers_.at(r->from - 1), r->term));
      heard_leader_tick_ = tick_;
      return;
    }
    if (role_ != Role::leader || r->term != term_) return;
    auto it = progress_.find(r->from);
    if (it == progress_.end()) return;
    Progress& pr = it->second;
    pr.heard = true;
    pr.acked_round = std::max(pr.acked_round, r->round);
    if (r->ok) {
      pr.match = std::max(pr.match, r->match);
      pr.next = std::max(pr.next, r->match + 1);
      maybe_commit();
    } else {
      pr.next = std::max<int64_t>(1, std::min(pr.next, r->hint + 1));
      send_append(r->from);
      release_reads();
    }
  } else if (const auto* v = std::any_cast<RequestVote>(&m.body)) {
    // CheckQuorum's leader lease: a member that heard its leader within an election timeout
    // ignores a vote request of a later term (a partitioned member coming back cannot depose it).
    const bool in_lease = leader_ != 0 && (role_ == Role::leader || tick_ - heard_leader_tick_ < options_.election_ticks);
    if (v->term > term_ && in_lease) return;
    if (v->term > term_) become_follower(v->term, 0, fmt::format("{} asks for votes in term {}", peers_.at(v->from - 1), v->term));
    const bool up_to_date = v->last_term > last_term() || (v->last_term == last_term() && v->last_index >= last_index());
    const bool granted = v->term == term_ && (voted_for_ == 0 || voted_for_ == v->from) && up_to_date;
    if (granted) {
      voted_for_ = v->from;
      heard_leader_tick_ = tick_;
    }
    send_peer(v->from, VoteReply{term_, id_, granted}, granted ? "MsgVoteResp granted" : "MsgVoteResp rejected");
  } else if (const auto* vr = std::any_cast<VoteReply>(&m.body)) {
    if (vr->term > term_) {
      become_follower(vr->term, 0, "a later term");
      heard_leader_tick_ = tick_;
      return;
    }
    if (role_ != Role::candidate || vr->term != term_ || !vr->granted) return;
    votes_.insert(vr->from);
    if (votes_.size() >= quorum()) become_leader();
  } else if (const auto* rl = std::any_cast<Relay>(&m.body)) {
    if (role_ != Role::leader || rl->term != term_) return;  // no answer: the follower's client times out
    // The leader serves it as its own client's, answering the follower, which answers the client.
    lead_request(Requester{std::nullopt, rl->from, rl->key, rl->client}, rl->request);
  } else if (const auto* rr = std::any_cast<RelayReply>(&m.body)) {
    auto it = relayed_.find(rr->key);
    if (it == relayed_.end()) return;
    const auto [request, asked] = std::move(it->second);
    relayed_.erase(it);
    answer(Requester{request, 0, 0, world_.nodes().at(request.from)->name()}, asked, rr->reply);
  }
}

}  // namespace oversim::etcd
