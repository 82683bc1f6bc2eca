#include "models/etcd/etcd_client.h"

#include <fmt/format.h>

#include <algorithm>

namespace oversim::etcd {

namespace {
constexpr const char* kPort = "etcd";
constexpr const char* kWatchPort = "etcd-watch";
}  // namespace

EtcdClient::EtcdClient(sim::World& world, sim::Node& app, std::vector<sim::Node*> members, size_t first, ClientOptions options)
    : world_(world), app_(app), members_(std::move(members)), endpoint_(first), options_(options) {
  if (members_.empty()) throw sim::SimError("an etcd client needs at least one endpoint");
  app_.set_on_crash([this](sim::Node&) { on_crash(); });
  app_.set_boot([this](sim::Node&) { boot(); });
}

const std::string& EtcdClient::endpoint() const { return members_.at(endpoint_)->name(); }

void EtcdClient::boot() { world_.spawn(&app_, app_.name() + "/etcd-watches", [this] { watch_loop(); }, true); }

void EtcdClient::on_crash() {
  ++generation_;
  watches_.clear();
}

bool EtcdClient::repeatable(const ClientRequest& r) {
  // clientv3's retry interceptor retries LeaseGrant and LeaseRevoke as it retries a Range (a
  // grant whose answer was lost leaves a lease nobody keeps alive: it expires; a revoke repeats
  // harmlessly).
  if (std::holds_alternative<LeaseGrantRequest>(r) || std::holds_alternative<LeaseRevokeRequest>(r)) return true;
  const auto* t = std::get_if<TxnRequest>(&r);
  if (t == nullptr) return false;
  auto reads = [](const std::vector<Request>& branch) {
    return std::all_of(branch.begin(), branch.end(), [](const Request& q) { return std::holds_alternative<Range>(q); });
  };
  return reads(t->txn.success) && reads(t->txn.failure);
}

CallResult EtcdClient::call(const ClientRequest& r, Instant deadline) {
  const bool safe = repeatable(r);
  for (;;) {
    const Duration left = deadline - world_.now();
    if (left <= Duration::zero()) return CallResult{CallResult::Status::not_applied, {}};
    ++requests_;
    auto res = world_.network().call_as<ClientReply>(app_, *members_[endpoint_], kPort, r, to_string(r), std::min(left, options_.request_timeout));
    if (!res.ok()) {
      next_endpoint();
      if (safe) continue;
      return CallResult{CallResult::Status::unknown, {}};
    }
    if (res.value->code == Code::no_leader) {
      if (!safe) return CallResult{CallResult::Status::not_applied, *res.value};
      next_endpoint();
      sim::sleep_for(options_.retry_backoff);
      continue;
    }
    if (res.value->code == Code::leader_changed) {
      if (safe) continue;
      return CallResult{CallResult::Status::unknown, *res.value};
    }
    return CallResult{CallResult::Status::answered, *res.value};
  }
}

// ---- leases ---------------------------------------------------------------------------------------

std::shared_ptr<KeptLease> EtcdClient::grant_and_keep_alive(Duration ttl, Instant deadline) {
  const Instant sent = world_.now();
  CallResult g = call(LeaseGrantRequest{ttl}, deadline);
  if (!g.ok()) return nullptr;
  auto lease = std::make_shared<KeptLease>();
  lease->answered_sends.push_back(sent);
  lease->id = g.reply.lease;
  lease->ttl = g.reply.ttl;
  lease->deadline = app_.monotonic_now() + g.reply.ttl;
  const uint64_t generation = generation_;
  world_.spawn(&app_, fmt::format("{}/keepalive-{:x}", app_.name(), lease->id), [this, lease, generation] { keepalive_loop(lease, generation); }, true);
  return lease;
}

void EtcdClient::keepalive_loop(std::shared_ptr<KeptLease> lease, uint64_t generation) {
  auto end = [&](const std::string& why) {
    if (lease->done.is_set()) return;
    lease->why_done = why;
    lease->done.set();
    world_.trace_at(&app_, "etcd-client", {{"lease", fmt::format("{:x}", lease->id)}, {"done", why}});
  };
  for (;;) {
    if (lease->done.is_set() || generation != generation_) return;
    const Instant sent = world_.now();
    auto r = world_.network().call_as<ClientReply>(app_, *members_[endpoint_], kPort, ClientRequest{LeaseKeepAliveRequest{lease->id}},
                                                   fmt::format("keepalive {:x}", lease->id), options_.request_timeout);
    if (lease->done.is_set() || generation != generation_) return;
    Instant next_send = app_.monotonic_now() + options_.keepalive_poll;
    if (!r.ok()) {
      next_endpoint();
    } else if (r.value->code == Code::ok && r.value->ttl > Duration::zero()) {
      lease->deadline = app_.monotonic_now() + r.value->ttl;
      ++lease->renewals;
      lease->answered_sends.push_back(sent);
      next_send = app_.monotonic_now() + r.value->ttl / 3;
    } else if (r.value->code == Code::ok) {
      return end("the lease is gone (keepalive TTL 0)");
    } else {
      next_endpoint();  // no leader there: try another member
    }
    while (app_.monotonic_now() < next_send) {
      if (app_.monotonic_now() >= lease->deadline) return end("no keepalive answer within the TTL");
      sim::sleep_local(std::min(options_.keepalive_poll, next_send - app_.monotonic_now()));
      if (lease->done.is_set() || generation != generation_) return;
    }
    if (app_.monotonic_now() >= lease->deadline) return end("no keepalive answer within the TTL");
  }
}

void EtcdClient::revoke(const std::shared_ptr<KeptLease>& lease, Instant deadline) {
  if (!lease->done.is_set()) {
    lease->why_done = "revoked";
    lease->done.set();
  }
  call(LeaseRevokeRequest{lease->id}, deadline);
}

// ---- watches --------------------------------------------------------------------------------------

bool EtcdClient::create_watch(const std::shared_ptr<WatchStream>& w, Instant deadline) {
  for (size_t tries = 0; tries < members_.size(); ++tries) {
    const Duration left = deadline - world_.now();
    if (left <= Duration::zero()) return false;
    ++requests_;
    const WatchCreateRequest req{w->id, w->key, false, w->next_revision};
    auto r = world_.network().call_as<ClientReply>(app_, *members_[endpoint_], kPort, ClientRequest{req}, to_string(ClientRequest{req}),
                                                   std::min(left, options_.request_timeout));
    if (r.ok()) return true;
    next_endpoint();
  }
  return false;
}

std::shared_ptr<WatchStream> EtcdClient::watch(const std::string& key, int64_t start_revision, Instant deadline) {
  auto w = std::make_shared<WatchStream>();
  w->id = next_watch_++;
  w->key = key;
  w->next_revision = start_revision;
  watches_[w->id] = w;
  if (!create_watch(w, deadline)) {
    watches_.erase(w->id);
    return nullptr;
  }
  return w;
}

std::optional<Event> EtcdClient::next_event(const std::shared_ptr<WatchStream>& w, Instant deadline) {
  for (;;) {
    if (!w->events.empty()) {
      Event e = std::move(w->events.front());
      w->events.pop_front();
      return e;
    }
    if (world_.now() >= deadline) return std::nullopt;
    w->arrived.reset();
    const Instant check = std::min(deadline, world_.now() + app_.clock().true_span_for(options_.watch_check));
    if (w->arrived.wait_until(check, "etcd watch")) continue;
    if (world_.now() >= deadline) return std::nullopt;
    // Silence for watch_check: resume the stream from where it stands, on this endpoint or the next.
    world_.network().send(app_, *members_[endpoint_], kPort, ClientRequest{WatchCancelRequest{w->id}}, "watch cancel");
    watches_.erase(w->id);
    w->id = next_watch_++;
    watches_[w->id] = w;
    create_watch(w, deadline);
  }
}

void EtcdClient::cancel(const std::shared_ptr<WatchStream>& w) {
  if (watches_.erase(w->id) == 0) return;
  world_.network().send(app_, *members_[endpoint_], kPort, ClientRequest{WatchCancelRequest{w->id}}, "watch cancel");
}

void EtcdClient::watch_loop() {
  for (;;) {
    std::optional<sim::Message> m = app_.mailbox(kWatchPort).receive(std::nullopt, "etcd client watches");
    const auto* e = std::any_cast<WatchEvent>(&m->body);
    if (e == nullptr) continue;
    auto it = watches_.find(e->watch_id);
    if (it == watches_.end()) continue;
    WatchStream& w = *it->second;
    if (e->event.kv.mod_revision < w.next_revision) continue;  // already seen (a resumed stream's replay)
    w.next_revision = e->event.kv.mod_revision + 1;
    w.events.push_back(e->event);
    w.arrived.set();
  }
}

}  // namespace oversim::etcd
