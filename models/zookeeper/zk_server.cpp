#include "models/zookeeper/zk_server.h"

#include <fmt/format.h>

#include <algorithm>
#include <any>
#include <utility>

namespace oversim::zookeeper {
namespace {

constexpr const char* kClientPort = "zk";
constexpr const char* kWatchPort = "zk-watch";
constexpr const char* kPeerPort = "zk-peer";
constexpr const char* kElectPort = "zk-elect";

// ---- peer messages (one-way on "zk-peer", in order per link)
struct PeerProposal {
  uint32_t epoch = 0;
  ZkServer::Proposal proposal;
};
struct PeerAck {
  uint32_t epoch = 0;
  uint32_t from = 0;
  uint64_t zxid = 0;
};
struct PeerCommit {
  uint32_t epoch = 0;
  uint64_t zxid = 0;
};
struct PeerPing {
  uint32_t epoch = 0;
  uint32_t from = 0;
};
struct PeerPingReply {
  uint32_t epoch = 0;
  uint32_t from = 0;
  std::vector<uint64_t> touched;
};
struct PeerForward {
  uint32_t epoch = 0;
  uint32_t from = 0;
  uint64_t key = 0;
  uint64_t session = 0;
  Op op;
  std::string client;
};
// A follower revalidates a reconnecting session with the leader at once (not with its next ping
// reply), so a client that reconnects just in time keeps its session.
struct PeerTouch {
  uint32_t epoch = 0;
  uint64_t session = 0;
};
struct PeerJoin {
  uint32_t from = 0;
};
struct PeerNewLeader {
  uint32_t epoch = 0;
  uint32_t from = 0;
  ZkState snapshot;
  std::deque<ZkServer::Proposal> log;  // logged by the leader, not yet committed
};
struct PeerNewLeaderAck {
  uint32_t epoch = 0;
  uint32_t from = 0;
};
// The leader has a quorum synced with its epoch: the follower may serve clients now (Zab's
// UPTODATE). Until then what it holds could still be lost with a candidate that never wins.
struct PeerUpToDate {
  uint32_t epoch = 0;
};

// ---- election RPCs on "zk-elect"
struct VoteQuery {};
struct VoteInfo {
  Role role = Role::looking;
  uint32_t leader = 0;
  bool established = false;
  uint32_t accepted_epoch = 0;
  uint32_t current_epoch = 0;
  uint64_t last_zxid = 0;
};
struct NewEpoch {
  uint32_t epoch = 0;
  uint32_t candidate = 0;
};
struct EpochAck {
  bool ok = false;
  uint64_t last_zxid = 0;
};

}  // namespace

const char* to_string(Role r) {
  switch (r) {
    case Role::looking: return "LOOKING";
    case Role::following: return "FOLLOWING";
    case Role::leading: return "LEADING";
  }
  return "?";
}

ZkServer::ZkServer(sim::World& world, sim::Node& node, uint32_t id, std::vector<std::string> peers, EnsembleOptions options, ZkState initial, Start start)
    : world_(world), node_(node), id_(id), peers_(std::move(peers)), options_(options), start_(start), state_(std::move(initial)) {
  accepted_epoch_ = current_epoch_ = start.epoch;
  node_.set_on_crash([this](sim::Node&) { on_crash(); });
  node_.set_boot([this](sim::Node&) { boot(); });
}

bool ZkServer::serving() const { return (role_ == Role::leading && established_) || (role_ == Role::following && established_); }

uint64_t ZkServer::last_logged() const { return log_.empty() ? state_.last_zxid() : log_.back().txn.zxid; }

sim::Node& ZkServer::peer(uint32_t id) const { return world_.node(peers_.at(id - 1)); }

void ZkServer::send_peer(uint32_t to, std::any body, std::string summary) { world_.network().send(node_, peer(to), kPeerPort, std::move(body), std::move(summary)); }

int64_t ZkServer::session_ticks(int64_t timeout_ms) const {
  // ZooKeeper's ExpiryQueue rounds a session's deadline up to the next tick boundary.
  return timeout_ms / options_.tick.count_ms() + 1;
}

// ---- lifecycle ----------------------------------------------------------------------------------

void ZkServer::boot() {
  tick_ = 0;
  last_leader_tick_ = 0;
  if (!booted_once_) {
    // The ensemble was up before the sale: the configured leader is established with every
    // server following it, and every session in the initial state is fresh.
    booted_once_ = true;
    role_ = start_.role;
    leader_ = start_.role == Role::leading ? id_ : start_.leader;
    established_ = start_.role != Role::looking;
    if (role_ == Role::leading) {
      for (uint32_t p = 1; p <= peers_.size(); ++p) {
        if (p != id_) followers_[p] = Follower{0, true};
      }
      for (const auto& [session, timeout] : state_.sessions()) expires_at_[session] = session_ticks(timeout);
      elections_.push_back(fmt::format("{} leads epoch {}", name(), current_epoch_));
    }
  } else {
    role_ = Role::looking;
    world_.trace_at(&node_, "zk-role", {{"role", "LOOKING"}, {"why", "restarted"}, {"zxid", format_zxid(last_logged())}});
  }
  world_.spawn(&node_, name() + "/serve", [this] { serve(); }, true);
  world_.spawn(&node_, name() + "/peer", [this] { peer_loop(); }, true);
  world_.spawn(&node_, name() + "/elect", [this] { elect_server(); }, true);
  world_.spawn(&node_, name() + "/role", [this] { role_loop(); }, true);
  world_.spawn(&node_, name() + "/tick", [this] { tick_loop(); }, true);
}

void ZkServer::on_crash() { forget_volatile(); }

// Roles, the leader's tracker, pending requests, watches and connections: what neither a crash
// nor a server that stops serving keeps.
void ZkServer::forget_volatile() {
  role_ = Role::looking;
  leader_ = 0;
  established_ = false;
  followers_.clear();
  acks_.clear();
  expires_at_.clear();
  closing_.clear();
  touched_.clear();
  pending_.clear();
  order_.clear();
  data_watches_.clear();
  child_watches_.clear();
  connections_.clear();
}

void ZkServer::become_looking(const std::string& why) {
  if (role_ == Role::looking) return;
  world_.trace_at(&node_, "zk-role", {{"role", "LOOKING"}, {"was", to_string(role_)}, {"why", why}});
  // The server closes its client connections: what they asked has no answer from here (a write
  // may still commit elsewhere, so it is a connection loss, not a refusal), and their watches go
  // with the connections (clients register them again where they reconnect).
  std::map<uint64_t, Pending> pending;
  pending.swap(pending_);
  std::map<uint64_t, SessionOrder> order;
  order.swap(order_);
  std::map<uint64_t, sim::NodeId> connections;
  connections.swap(connections_);
  forget_volatile();
  for (const auto& [key, p] : pending) answer(p.request, ClientReply{Result{Code::connection_loss}, state_.last_zxid(), 0}, "");
  for (const auto& [session, o] : order) {
    for (const auto& [writes, read] : o.held) answer(read, ClientReply{Result{Code::connection_loss}, state_.last_zxid(), 0}, "");
  }
  for (const auto& [session, client] : connections) {
    world_.network().send(node_, *world_.nodes().at(client), kWatchPort, ConnectionClosed{session}, "connection closed");
  }
}

void ZkServer::become_leader(uint32_t epoch, const std::vector<uint32_t>& followers) {
  role_ = Role::leading;
  leader_ = id_;
  established_ = false;
  current_epoch_ = epoch;
  counter_ = 0;
  // Everything this server logged is committed as of the new epoch (it serves no client until a
  // quorum has synced, and become_looking or a crash answered every pending request before).
  while (!log_.empty()) {
    Proposal p = std::move(log_.front());
    log_.pop_front();
    apply_proposal(p);
  }
  followers_.clear();
  for (uint32_t f : followers) {
    followers_[f] = Follower{tick_, false};
    send_peer(f, PeerNewLeader{epoch, id_, state_, {}}, fmt::format("NEWLEADER epoch {} (snapshot to {})", epoch, format_zxid(state_.last_zxid())));
  }
  world_.trace_at(&node_, "zk-role", {{"role", "LEADING"}, {"epoch", std::to_string(epoch)}, {"zxid", format_zxid(state_.last_zxid())}});
  if (1 >= quorum()) set_established();
}

void ZkServer::set_established() {
  established_ = true;
  // A new leader gives every session a full timeout from now.
  expires_at_.clear();
  closing_.clear();
  for (const auto& [session, timeout] : state_.sessions()) expires_at_[session] = tick_ + session_ticks(timeout);
  elections_.push_back(fmt::format("{} leads epoch {}", name(), current_epoch_));
  world_.trace_at(&node_, "zk-role", {{"role", "LEADING"}, {"epoch", std::to_string(current_epoch_)}, {"established", "quorum synced"}});
  for (const auto& [f, st] : followers_) {
    if (st.synced) send_peer(f, PeerUpToDate{current_epoch_}, "UPTODATE");
  }
}

// ---- loops ----------------------------------------------------------------------------------------

void ZkServer::tick_loop() {
  for (;;) {
    sim::sleep_local(options_.tick);
    ++tick_;
    if (role_ != Role::leading || !established_) continue;
    std::vector<uint64_t> expired;
    for (const auto& [session, at] : expires_at_) {
      if (at <= tick_ && closing_.count(session) == 0) expired.push_back(session);
    }
    for (uint64_t session : expired) {
      closing_.insert(session);
      world_.trace_at(&node_, "zk-session", {{"session", fmt::format("0x{:x}", session)}, {"expired", "closeSession proposed"}});
      Op close;
      close.type = OpType::close_session;
      propose(session, close, 0, 0, "");
    }
  }
}

void ZkServer::role_loop() {
  int64_t lead_start = 0;
  for (;;) {
    switch (role_) {
      case Role::looking: election_round(); lead_start = tick_; break;
      case Role::following:
        sim::sleep_local(options_.tick);
        if (role_ == Role::following && tick_ - last_leader_tick_ > options_.sync_limit) {
          become_looking(fmt::format("no word from {} for {} ticks", peers_.at(leader_ - 1), tick_ - last_leader_tick_));
        }
        break;
      case Role::leading: {
        sim::sleep_local(options_.tick / 2);
        if (role_ != Role::leading) break;
        for (const auto& [f, st] : followers_) send_peer(f, PeerPing{current_epoch_, id_}, "PING");
        if (!established_) {
          if (tick_ - lead_start > options_.sync_limit) become_looking("no quorum synced with the new epoch");
          break;
        }
        uint32_t live = 1;
        for (const auto& [f, st] : followers_) live += st.synced && tick_ - st.last_heard_tick <= options_.sync_limit ? 1 : 0;
        if (live < quorum()) become_looking(fmt::format("not sufficient followers synced, only {} of {}", live, peers_.size()));
        break;
      }
    }
  }
}

void ZkServer::election_round() {
  sim::sleep_local(options_.finalize_wait);
  if (role_ != Role::looking) return;
  const uint64_t mine = last_logged();
  std::vector<std::pair<uint32_t, VoteInfo>> seen;
  for (uint32_t p = 1; p <= peers_.size(); ++p) {
    if (p == id_) continue;
    auto r = world_.network().call_as<VoteInfo>(node_, peer(p), kElectPort, VoteQuery{}, "vote?", options_.tick);
    if (role_ != Role::looking) return;
    if (r.ok()) seen.emplace_back(p, *r.value);
  }
  // A working leader: join it, unless this server promised a later epoch to a candidate.
  for (const auto& [p, info] : seen) {
    const uint32_t l = info.role == Role::leading && info.established ? p : info.role == Role::following && info.established ? info.leader : 0;
    if (l == 0 || l == id_ || info.current_epoch < accepted_epoch_) continue;
    send_peer(l, PeerJoin{id_}, "FOLLOWERINFO");
    for (int32_t i = 0; i < options_.sync_limit && role_ == Role::looking; ++i) sim::sleep_local(options_.tick);
    return;
  }
  uint32_t max_epoch = accepted_epoch_;
  std::vector<uint32_t> looking;
  for (const auto& [p, info] : seen) {
    max_epoch = std::max(max_epoch, info.accepted_epoch);
    if (info.role != Role::looking) continue;
    if (info.last_zxid > mine || (info.last_zxid == mine && p > id_)) return;  // a better candidate is looking
    looking.push_back(p);
  }
  if (looking.size() + 1 < quorum()) return;
  const uint32_t epoch = max_epoch + 1;
  accepted_epoch_ = epoch;
  acked_candidate_ = id_;
  std::vector<uint32_t> ackers;
  for (uint32_t p : looking) {
    auto r = world_.network().call_as<EpochAck>(node_, peer(p), kElectPort, NewEpoch{epoch, id_}, fmt::format("NEWEPOCH {}", epoch), options_.tick);
    if (role_ != Role::looking) return;
    if (r.ok() && r.value->ok && r.value->last_zxid <= mine) ackers.push_back(p);
  }
  if (ackers.size() + 1 < quorum()) return;
  become_leader(epoch, ackers);
}

void ZkServer::elect_server() {
  for (;;) {
    std::optional<sim::Message> m = node_.mailbox(kElectPort).receive(std::nullopt, "zk election");
    if (std::any_cast<VoteQuery>(&m->body) != nullptr) {
      VoteInfo v{role_, leader_, established_, accepted_epoch_, current_epoch_, last_logged()};
      world_.network().reply(node_, *m, v, fmt::format("{} {} zxid={}", to_string(role_), v.leader, format_zxid(v.last_zxid)));
    } else if (const auto* ne = std::any_cast<NewEpoch>(&m->body)) {
      EpochAck ack;
      if (role_ == Role::looking && ne->epoch > accepted_epoch_) {
        accepted_epoch_ = ne->epoch;
        acked_candidate_ = ne->candidate;
        ack.ok = true;
      }
      ack.last_zxid = last_logged();
      world_.network().reply(node_, *m, ack, ack.ok ? "ACKEPOCH" : "refused");
    }
  }
}

// ---- client side ----------------------------------------------------------------------------------

void ZkServer::serve() {
  for (;;) {
    std::optional<sim::Message> m = node_.mailbox(kClientPort).receive(std::nullopt, "zk request");
    sim::sleep_for(options_.service_time);
    handle_client(*m);
  }
}

sim::MailboxLoad ZkServer::load() const {
  const sim::Mailbox* box = node_.find_mailbox(kClientPort);
  return box == nullptr ? sim::MailboxLoad{} : box->load();
}

void ZkServer::answer(const sim::Message& request, const ClientReply& reply, const std::string& what) {
  const std::string text = to_string(reply.result);
  if (!what.empty()) world_.trace_at(&node_, "zk", {{"cmd", what}, {"reply", text}, {"from", world_.nodes().at(request.from)->name()}});
  world_.network().reply(node_, request, reply, text);
}

void ZkServer::touch(uint64_t session) {
  if (role_ == Role::leading) {
    auto it = expires_at_.find(session);
    if (it != expires_at_.end() && closing_.count(session) == 0) it->second = tick_ + session_ticks(state_.sessions().at(session));
  } else {
    touched_.insert(session);
  }
}

void ZkServer::add_watch(uint64_t session, sim::NodeId client, const WatchRegistration& w) {
  auto& table = w.kind == WatchKind::data ? data_watches_ : child_watches_;
  table[w.path].push_back(Watcher{session, client, w.id});
}

void ZkServer::handle_client(const sim::Message& m) {
  const std::string from = world_.nodes().at(m.from)->name();
  const uint64_t zxid = state_.last_zxid();
  if (const auto* c = std::any_cast<ConnectRequest>(&m.body)) {
    const std::string what = c->session == 0 ? "connect (new session)" : fmt::format("connect session 0x{:x}", c->session);
    if (!serving()) return answer(m, ClientReply{Result{Code::not_serving}, zxid, 0}, what);
    // A server behind what the client has seen would show it the past: it refuses.
    if (c->last_zxid > zxid) return answer(m, ClientReply{Result{Code::not_serving}, zxid, 0}, what + " (server behind the client)");
    if (c->session == 0) {
      const int64_t timeout = std::clamp(c->timeout_ms, options_.min_session(), options_.max_session_ms);
      const uint64_t key = next_key_++;
      pending_[key] = Pending{m, true};
      Op create;
      create.type = OpType::create_session;
      create.timeout_ms = timeout;
      submit(0, create, key, from);
      return;
    }
    if (!state_.has_session(c->session) || closing_.count(c->session) != 0) return answer(m, ClientReply{Result{Code::session_expired}, zxid, 0}, what);
    touch(c->session);
    if (role_ == Role::following) send_peer(leader_, PeerTouch{current_epoch_, c->session}, "REVALIDATE");
    connections_[c->session] = m.from;
    for (const WatchRegistration& w : c->watches) {
      // SetWatches: a watch whose node changed since the client's last zxid fires at once.
      const Znode* n = state_.find(w.path);
      std::optional<EventType> fired;
      if (n == nullptr) {
        fired = EventType::deleted;
      } else if (w.kind == WatchKind::data && n->stat.mzxid > c->last_zxid) {
        fired = EventType::data_changed;
      } else if (w.kind == WatchKind::child && n->stat.pzxid > c->last_zxid) {
        fired = EventType::children_changed;
      }
      if (fired) {
        world_.network().send(node_, *world_.nodes().at(m.from), kWatchPort, WatchEvent{w.id, w.path, *fired}, fmt::format("{} {}", to_string(*fired), w.path));
      } else {
        add_watch(c->session, m.from, w);
      }
    }
    Result ok;
    ok.session = c->session;
    return answer(m, ClientReply{ok, zxid, state_.sessions().at(c->session)}, what);
  }
  if (const auto* p = std::any_cast<PingRequest>(&m.body)) {
    if (!serving()) return answer(m, ClientReply{Result{Code::not_serving}, zxid, 0}, "");
    if (!state_.has_session(p->session)) return answer(m, ClientReply{Result{Code::session_expired}, zxid, 0}, "ping");
    touch(p->session);
    connections_[p->session] = m.from;
    return answer(m, ClientReply{Result{}, zxid, 0}, "");
  }
  const auto& r = std::any_cast<const ClientRequest&>(m.body);
  const std::string what = to_string(r.op);
  if (!serving()) return answer(m, ClientReply{Result{Code::not_serving}, zxid, 0}, what);
  if (!state_.has_session(r.session)) return answer(m, ClientReply{Result{Code::session_expired}, zxid, 0}, what);
  touch(r.session);
  connections_[r.session] = m.from;
  if (r.op.is_write()) {
    const uint64_t key = next_key_++;
    pending_[key] = Pending{m, false, r.session};
    ++order_[r.session].writes_sent;
    submit(r.session, r.op, key, from);
    return;
  }
  auto order = order_.find(r.session);
  if (order != order_.end() && order->second.writes_answered < order->second.writes_sent) {
    order->second.held.emplace_back(order->second.writes_sent, m);
    return;
  }
  answer_read(m);
}

void ZkServer::answer_read(const sim::Message& m) {
  const auto& r = std::any_cast<const ClientRequest&>(m.body);
  const std::string what = to_string(r.op);
  const uint64_t zxid = state_.last_zxid();
  if (!state_.has_session(r.session)) return answer(m, ClientReply{Result{Code::session_expired}, zxid, 0}, what);
  Result result = state_.read(r.op);
  if (r.op.watch) {
    // exists() leaves a watch whether or not the node exists; getData and getChildren only on a node.
    if (r.op.type == OpType::exists || result.ok()) {
      add_watch(r.session, m.from, WatchRegistration{r.watch_id, r.op.path, r.op.type == OpType::get_children ? WatchKind::child : WatchKind::data});
    }
  }
  answer(m, ClientReply{result, zxid, 0}, what);
}

// A write of `session` was answered: the reads it held back are answered now, in the order they came.
void ZkServer::write_answered(uint64_t session) {
  auto it = order_.find(session);
  if (it == order_.end()) return;
  SessionOrder& o = it->second;
  ++o.writes_answered;
  while (!o.held.empty() && o.held.front().first <= o.writes_answered) {
    const sim::Message read = std::move(o.held.front().second);
    o.held.pop_front();
    answer_read(read);
  }
  if (o.writes_answered == o.writes_sent && o.held.empty()) order_.erase(it);
}

void ZkServer::submit(uint64_t session, Op op, uint64_t origin_key, const std::string& from) {
  if (role_ == Role::leading && established_) {
    propose(session, std::move(op), id_, origin_key, from);
  } else if (role_ == Role::following) {
    send_peer(leader_, PeerForward{current_epoch_, id_, origin_key, session, std::move(op), from}, "REQUEST");
  }
}

// ---- Zab ------------------------------------------------------------------------------------------

void ZkServer::propose(uint64_t session, Op op, uint32_t origin, uint64_t origin_key, const std::string& from) {
  Proposal p;
  p.txn.zxid = make_zxid(current_epoch_, ++counter_);
  p.txn.session = session;
  p.txn.op = std::move(op);
  p.origin = origin;
  p.origin_key = origin_key;
  p.from = from;
  log_.push_back(p);
  acks_[p.txn.zxid] = {id_};
  for (const auto& [f, st] : followers_) send_peer(f, PeerProposal{current_epoch_, p}, fmt::format("PROPOSAL {} {}", format_zxid(p.txn.zxid), to_string(p.txn.op)));
  maybe_commit();
}

void ZkServer::maybe_commit() {
  while (!log_.empty()) {
    auto it = acks_.find(log_.front().txn.zxid);
    if (it == acks_.end() || it->second.size() < quorum()) return;
    Proposal p = std::move(log_.front());
    log_.pop_front();
    acks_.erase(it);
    apply_proposal(p);
    for (const auto& [f, st] : followers_) send_peer(f, PeerCommit{current_epoch_, p.txn.zxid}, fmt::format("COMMIT {}", format_zxid(p.txn.zxid)));
  }
}

void ZkServer::apply_proposal(const Proposal& p) {
  Applied a = state_.apply(p.txn);
  fire(a.triggers);
  const Op& op = p.txn.op;
  if (op.type == OpType::close_session) {
    for (auto* table : {&data_watches_, &child_watches_}) {
      for (auto& [path, list] : *table) list.erase(std::remove_if(list.begin(), list.end(), [&](const Watcher& w) { return w.session == p.txn.session; }), list.end());
    }
    expires_at_.erase(p.txn.session);
    closing_.erase(p.txn.session);
    // The server closes the expired session's connection at once; the client reconnects and
    // hears that its session expired.
    auto conn = connections_.find(p.txn.session);
    if (conn != connections_.end()) {
      world_.network().send(node_, *world_.nodes().at(conn->second), kWatchPort, ConnectionClosed{p.txn.session}, "connection closed (session expired)");
      connections_.erase(conn);
    }
  }
  if (op.type == OpType::create_session && role_ == Role::leading) expires_at_[a.result.session] = tick_ + session_ticks(op.timeout_ms);
  // The ensemble's record of client deletes, kept once: by the server that leads when it commits.
  if (op.type == OpType::remove && a.result.ok() && p.txn.session != 0 && role_ == Role::leading) {
    removals_.push_back(Removal{op.path, p.txn.session, p.from, world_.now(), world_.steps()});
  }
  if (p.origin != id_) return;
  auto it = pending_.find(p.origin_key);
  if (it == pending_.end()) return;
  const Pending pending = std::move(it->second);
  pending_.erase(it);
  if (pending.connect) {
    if (a.result.ok()) connections_[a.result.session] = pending.request.from;
    answer(pending.request, ClientReply{a.result, state_.last_zxid(), op.timeout_ms}, "connect (new session)");
  } else {
    answer(pending.request, ClientReply{a.result, state_.last_zxid(), 0}, to_string(op));
    write_answered(pending.session);
  }
}

void ZkServer::fire(const std::vector<Trigger>& triggers) {
  for (const Trigger& t : triggers) {
    auto& table = t.kind == WatchKind::data ? data_watches_ : child_watches_;
    auto it = table.find(t.path);
    if (it == table.end()) continue;
    std::vector<Watcher> list = std::move(it->second);
    table.erase(it);
    for (const Watcher& w : list) {
      world_.network().send(node_, *world_.nodes().at(w.client), kWatchPort, WatchEvent{w.watch_id, t.path, t.event}, fmt::format("{} {}", to_string(t.event), t.path));
    }
  }
}

void ZkServer::peer_loop() {
  for (;;) {
    std::optional<sim::Message> m = node_.mailbox(kPeerPort).receive(std::nullopt, "zk peer");
    handle_peer(*m);
  }
}

void ZkServer::handle_peer(const sim::Message& m) {
  const bool leading = role_ == Role::leading;
  const bool following = role_ == Role::following;
  if (const auto* p = std::any_cast<PeerProposal>(&m.body)) {
    if (!following || p->epoch != current_epoch_ || p->proposal.txn.zxid <= last_logged()) return;
    last_leader_tick_ = tick_;
    log_.push_back(p->proposal);
    send_peer(leader_, PeerAck{current_epoch_, id_, p->proposal.txn.zxid}, fmt::format("ACK {}", format_zxid(p->proposal.txn.zxid)));
  } else if (const auto* c = std::any_cast<PeerCommit>(&m.body)) {
    if (!following || c->epoch != current_epoch_) return;
    last_leader_tick_ = tick_;
    while (!log_.empty() && log_.front().txn.zxid <= c->zxid) {
      Proposal next = std::move(log_.front());
      log_.pop_front();
      apply_proposal(next);
    }
  } else if (const auto* ping = std::any_cast<PeerPing>(&m.body)) {
    if (!following || ping->epoch != current_epoch_ || ping->from != leader_) return;
    last_leader_tick_ = tick_;
    std::vector<uint64_t> touched(touched_.begin(), touched_.end());
    touched_.clear();
    send_peer(leader_, PeerPingReply{current_epoch_, id_, std::move(touched)}, "PING reply");
  } else if (const auto* pr = std::any_cast<PeerPingReply>(&m.body)) {
    if (!leading || pr->epoch != current_epoch_) return;
    auto f = followers_.find(pr->from);
    if (f == followers_.end()) return;
    f->second.last_heard_tick = tick_;
    for (uint64_t s : pr->touched) touch(s);
  } else if (const auto* ack = std::any_cast<PeerAck>(&m.body)) {
    if (!leading || ack->epoch != current_epoch_) return;
    auto f = followers_.find(ack->from);
    if (f == followers_.end()) return;
    f->second.last_heard_tick = tick_;
    auto it = acks_.find(ack->zxid);
    if (it == acks_.end()) return;
    it->second.insert(ack->from);
    maybe_commit();
  } else if (const auto* u = std::any_cast<PeerUpToDate>(&m.body)) {
    if (!following || u->epoch != current_epoch_) return;
    last_leader_tick_ = tick_;
    established_ = true;
  } else if (const auto* t = std::any_cast<PeerTouch>(&m.body)) {
    if (leading && t->epoch == current_epoch_) touch(t->session);
  } else if (const auto* fw = std::any_cast<PeerForward>(&m.body)) {
    if (!leading || !established_ || fw->epoch != current_epoch_) return;
    propose(fw->session, fw->op, fw->from, fw->key, fw->client);
  } else if (const auto* join = std::any_cast<PeerJoin>(&m.body)) {
    if (!leading || !established_) return;
    followers_[join->from] = Follower{tick_, false};
    send_peer(join->from, PeerNewLeader{current_epoch_, id_, state_, log_}, fmt::format("NEWLEADER epoch {} (snapshot to {})", current_epoch_, format_zxid(state_.last_zxid())));
  } else if (const auto* nl = std::any_cast<PeerNewLeader>(&m.body)) {
    const bool promised = nl->epoch == accepted_epoch_ && (acked_candidate_ == nl->from || acked_candidate_ == 0);
    if (!(nl->epoch > accepted_epoch_ || promised)) return;
    if (!(role_ == Role::looking || nl->epoch > current_epoch_)) return;
    if (role_ != Role::looking) become_looking(fmt::format("{} leads a later epoch {}", peers_.at(nl->from - 1), nl->epoch));
    state_ = nl->snapshot;
    log_ = nl->log;
    accepted_epoch_ = current_epoch_ = nl->epoch;
    acked_candidate_ = nl->from;
    role_ = Role::following;
    leader_ = nl->from;
    established_ = false;  // serving waits for UPTODATE
    last_leader_tick_ = tick_;
    world_.trace_at(&node_, "zk-role", {{"role", "FOLLOWING"}, {"leader", peers_.at(nl->from - 1)}, {"epoch", std::to_string(nl->epoch)},
                                        {"zxid", format_zxid(state_.last_zxid())}});
    send_peer(nl->from, PeerNewLeaderAck{nl->epoch, id_}, "ACK NEWLEADER");
  } else if (const auto* nla = std::any_cast<PeerNewLeaderAck>(&m.body)) {
    if (!leading || nla->epoch != current_epoch_) return;
    auto f = followers_.find(nla->from);
    if (f == followers_.end()) return;
    f->second.synced = true;
    f->second.last_heard_tick = tick_;
    if (established_) {
      send_peer(nla->from, PeerUpToDate{current_epoch_}, "UPTODATE");  // a follower that joined late
      return;
    }
    uint32_t synced = 1;
    for (const auto& [id, st] : followers_) synced += st.synced ? 1 : 0;
    if (synced >= quorum()) set_established();
  }
}

}  // namespace oversim::zookeeper
