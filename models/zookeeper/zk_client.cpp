#include "models/zookeeper/zk_client.h"

#include <fmt/format.h>

#include <algorithm>

namespace oversim::zookeeper {

const char* to_string(ConnState s) {
  switch (s) {
    case ConnState::connected: return "CONNECTED";
    case ConnState::suspended: return "SUSPENDED";
    case ConnState::reconnected: return "RECONNECTED";
    case ConnState::lost: return "LOST";
  }
  return "?";
}

ZkClient::ZkClient(sim::World& world, sim::Node& app, std::vector<sim::Node*> servers, size_t first, uint64_t session, int64_t session_timeout_ms)
    : world_(world), app_(app), servers_(std::move(servers)), server_(first), initial_session_(session), timeout_ms_(session_timeout_ms) {
  if (servers_.empty()) throw sim::SimError("a ZooKeeper client needs at least one server");
  app_.set_on_crash([this](sim::Node&) { on_crash(); });
  app_.set_boot([this](sim::Node&) { boot(); });
}

const std::string& ZkClient::server() const { return servers_.at(server_)->name(); }

void ZkClient::boot() {
  last_heard_ = world_.now();
  fresh_ = false;
  if (!booted_once_ && initial_session_ != 0) {
    session_ = initial_session_;
    state_ = ConnState::connected;
    connected_.set();
  } else {
    fresh_ = true;  // its first connection is CONNECTED, later ones RECONNECTED
    // A new process: no session yet.
    session_ = 0;
    state_ = ConnState::lost;
    connected_.reset();
  }
  booted_once_ = true;
  world_.spawn(&app_, app_.name() + "/zk-connection", [this] { connection_loop(); }, true);
  world_.spawn(&app_, app_.name() + "/zk-watches", [this] { watch_loop(); }, true);
}

void ZkClient::on_crash() {
  session_ = 0;
  last_zxid_ = 0;  // a new process has seen nothing
  state_ = ConnState::lost;
  connected_.reset();
  wake_connection_.reset();
  watches_.clear();
  listeners_.clear();
}

uint64_t ZkClient::add_listener(Listener l) {
  const uint64_t id = next_listener_++;
  listeners_.emplace(id, std::move(l));
  return id;
}

void ZkClient::remove_listener(uint64_t id) { listeners_.erase(id); }

void ZkClient::set_state(ConnState s, const std::string& why) {
  state_ = s;
  world_.trace_at(&app_, "zk-client", {{"state", to_string(s)}, {"session", fmt::format("0x{:x}", session_)}, {"server", server()}, {"why", why}});
  std::vector<Listener> listeners;
  for (const auto& [id, l] : listeners_) listeners.push_back(l);
  for (const Listener& l : listeners) l(s);
}

void ZkClient::heard(uint64_t zxid) {
  last_heard_ = world_.now();
  last_zxid_ = std::max(last_zxid_, zxid);
}

void ZkClient::disconnected(const std::string& why) {
  if (!connected()) return;
  suspended_since_ = app_.local_now();
  connected_.reset();
  set_state(ConnState::suspended, why);
  wake_connection_.set();
}

void ZkClient::lose(const std::string& why) {
  if (state_ == ConnState::lost && session_ == 0) return;
  connected_.reset();
  // Every watch of the session is gone: wake their waiters.
  std::map<uint64_t, Registered> watches;
  watches.swap(watches_);
  for (auto& [id, r] : watches) {
    r.watch->lost = true;
    r.watch->fired.set();
  }
  set_state(ConnState::lost, why);
  session_ = 0;
  wake_connection_.set();
}

bool ZkClient::wait_connected(Instant deadline) {
  while (!connected()) {
    if (!connected_.wait_until(deadline, "zk client waits for a connection")) return connected();
  }
  return true;
}

void ZkClient::connection_loop() {
  for (;;) {
    if (connected()) {
      wake_connection_.reset();
      wake_connection_.wait_until(world_.now() + app_.clock().true_span_for(Duration::ms(timeout_ms_ / 3)), "zk client heartbeat");
      if (!connected()) continue;
      const Duration left = read_timeout() - (world_.now() - last_heard_);
      if (left <= Duration::zero()) {
        disconnected("no answer within the read timeout");
        continue;
      }
      const uint64_t session = session_;
      auto r = world_.network().call_as<ClientReply>(app_, *servers_[server_], "zk", PingRequest{session}, "ping", left);
      if (!connected() || session_ != session) continue;
      if (!r.ok()) {
        if (world_.now() - last_heard_ >= read_timeout()) disconnected("no answer within the read timeout");
      } else if (r.value->result.code == Code::session_expired) {
        lose("the server says the session expired");
      } else if (!r.value->result.ok()) {
        disconnected(fmt::format("{} refused the connection", server()));
      } else {
        heard(r.value->zxid);
      }
      continue;
    }
    // Curator: SUSPENDED for the whole session timeout is LOST (the session must have expired).
    if (state_ == ConnState::suspended && app_.local_now() - suspended_since_ >= Duration::ms(timeout_ms_)) {
      lose("SUSPENDED for the session timeout");
      continue;
    }
    // ClientCnxn waits a random while before each reconnect (below 1s), then tries the next
    // server; the wait is kept below the connect timeout too, for sessions scaled down here.
    const int64_t wait_bound = std::max<int64_t>(2, std::min<int64_t>(1000, connect_timeout().count_ms()));
    const auto wait_ms = static_cast<int64_t>(world_.random(static_cast<uint64_t>(wait_bound)));
    sim::sleep_for(Duration::ms(wait_ms));
    server_ = (server_ + 1) % servers_.size();
    Duration timeout = connect_timeout();
    if (state_ == ConnState::suspended) {
      const Duration left = Duration::ms(timeout_ms_) - (app_.local_now() - suspended_since_);
      if (left <= Duration::zero()) continue;
      timeout = std::min(timeout, left);
    }
    ConnectRequest c{session_, timeout_ms_, last_zxid_, {}};
    if (session_ != 0) {
      for (const auto& [id, r] : watches_) c.watches.push_back(WatchRegistration{id, r.path, r.kind});
    }
    const uint64_t session = session_;
    const ConnState before = state_;
    auto r = world_.network().call_as<ClientReply>(app_, *servers_[server_], "zk", c, session == 0 ? "connect (new session)" : fmt::format("connect session 0x{:x}", session), timeout);
    if (!r.ok() || state_ != before || session_ != session) continue;
    if (r.value->result.code == Code::session_expired) {
      lose(fmt::format("{} says the session expired", server()));
      continue;
    }
    if (!r.value->result.ok()) continue;
    if (session == 0) {
      session_ = r.value->result.session;
      timeout_ms_ = r.value->timeout_ms;
    }
    heard(r.value->zxid);
    connected_.set();
    set_state(fresh_ ? ConnState::connected : ConnState::reconnected, session == 0 ? "new session" : "session taken back");
    fresh_ = false;
  }
}

void ZkClient::watch_loop() {
  for (;;) {
    std::optional<sim::Message> m = app_.mailbox("zk-watch").receive(std::nullopt, "zk client watches");
    if (const auto* closed = std::any_cast<ConnectionClosed>(&m->body)) {
      if (session_ == closed->session && m->from == servers_[server_]->id()) disconnected(fmt::format("{} closed the connection", server()));
      continue;
    }
    const auto& e = std::any_cast<const WatchEvent&>(m->body);
    auto it = watches_.find(e.watch_id);
    if (it == watches_.end()) continue;  // already fired (a second server's copy), or its session is gone
    std::shared_ptr<Watch> w = it->second.watch;
    watches_.erase(it);
    w->event = e.event;
    w->fired.set();
  }
}

Result ZkClient::call(const Op& op, Instant deadline, std::shared_ptr<Watch>* watch) {
  if (watch != nullptr) watch->reset();
  if (!wait_connected(deadline)) return Result{Code::not_serving};
  ++requests_;
  const uint64_t session = session_;
  uint64_t watch_id = 0;
  std::shared_ptr<Watch> slot;
  if (op.watch) {
    // Registered before the request leaves, so an event that follows the reply at once finds it.
    watch_id = next_watch_++;
    slot = std::make_shared<Watch>();
    watches_[watch_id] = Registered{op.path, op.type == OpType::get_children ? WatchKind::child : WatchKind::data, slot};
  }
  // The deadline bounds the wait for a connection only (Curator's blockUntilConnectedOrTimedOut):
  // ClientCnxn has no per-request timeout, so a request once sent waits for its answer whatever
  // is left of the deadline. Here it waits the read timeout from the send (ClientCnxn counts it
  // from the last packet heard on the connection).
  const Duration timeout = read_timeout();
  auto r = world_.network().call_as<ClientReply>(app_, *servers_[server_], "zk", ClientRequest{session, op, watch_id}, to_string(op), timeout);
  auto drop_watch = [&] {
    if (watch_id != 0) watches_.erase(watch_id);
  };
  if (!r.ok()) {
    drop_watch();
    if (session_ == session && world_.now() - last_heard_ >= read_timeout()) disconnected("no answer within the read timeout");
    return Result{Code::connection_loss};
  }
  Result res = r.value->result;
  if (res.code == Code::not_serving) {
    drop_watch();
    if (session_ == session) disconnected(fmt::format("{} refused the connection", server()));
    return res;
  }
  if (res.code == Code::connection_loss) {
    drop_watch();
    if (session_ == session) disconnected(fmt::format("{} closed the connection", server()));
    return res;
  }
  if (res.code == Code::session_expired) {
    drop_watch();
    if (session_ == session) lose("the server says the session expired");
    return res;
  }
  if (session_ == session) heard(r.value->zxid);
  if (watch_id != 0) {
    if (op.type == OpType::exists || res.ok()) {
      if (watch != nullptr) *watch = slot;
    } else {
      drop_watch();
    }
  }
  return res;
}

}  // namespace oversim::zookeeper
