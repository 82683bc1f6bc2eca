#include "sim/network.h"

#include <fmt/format.h>

#include "sim/world.h"

namespace oversim::sim {

// ---- Mailbox

std::optional<Message> Mailbox::receive(std::optional<Instant> deadline, const char* where) {
  while (queue_.empty()) {
    const WakeReason r = waiters_.wait(deadline, where);
    if ((r == WakeReason::timed_out || r == WakeReason::cancelled) && queue_.empty()) return std::nullopt;
  }
  Message m = std::move(queue_.front());
  queue_.pop_front();
  const Duration waited = now() - m.delivered;
  if (waited > load_.longest_wait) {
    load_.longest_wait = waited;
    load_.longest_wait_at = now();
  }
  return m;
}

void Mailbox::push(Message m) {
  // Arrivals come in time order (the network delivers from the timer queue), so one running
  // count per second finds the busiest.
  const int64_t second = m.delivered.ns() / 1'000'000'000;
  if (second != second_) {
    second_ = second;
    second_messages_ = 0;
  }
  ++second_messages_;
  ++load_.messages;
  if (second_messages_ > load_.busiest_second_messages) {
    load_.busiest_second_messages = second_messages_;
    load_.busiest_second = Instant::zero() + Duration::s(second);
  }
  queue_.push_back(std::move(m));
  waiters_.notify_one();
}

const Mailbox* Node::find_mailbox(const std::string& port) const {
  auto it = mailboxes_.find(port);
  return it == mailboxes_.end() ? nullptr : it->second.get();
}

Mailbox& Node::mailbox(const std::string& port) {
  auto it = mailboxes_.find(port);
  if (it == mailboxes_.end()) {
    it = mailboxes_.emplace(port, std::make_unique<Mailbox>()).first;
    it->second->set_id((uint64_t{id_} << 20) | mailboxes_.size());
  }
  return *it->second;
}

// ---- faults

void Network::partition(const std::vector<NodeId>& side_a, const std::vector<NodeId>& side_b) {
  for (NodeId a : side_a) {
    for (NodeId b : side_b) {
      if (a == b) continue;
      blocked_.insert({a, b});
      blocked_.insert({b, a});
    }
  }
}

void Network::isolate(NodeId node) {
  for (const auto& other : world_.nodes()) {
    if (other->id() == node) continue;
    blocked_.insert({node, other->id()});
    blocked_.insert({other->id(), node});
  }
}

void Network::cut(NodeId from, NodeId to) { blocked_.insert({from, to}); }

void Network::heal() { blocked_.clear(); }

void Network::delay_next(NodeId from, NodeId to, Duration extra) { delay_next_[{from, to}] = extra; }

void Network::hold(NodeId from, NodeId to) { ++held_[{from, to}].holds; }

void Network::release(NodeId from, NodeId to) {
  auto it = held_.find({from, to});
  if (it == held_.end()) return;
  if (--it->second.holds > 0) return;  // another hold on the link has not ended yet
  std::vector<Message> messages = std::move(it->second.messages);
  held_.erase(it);
  for (Message& m : messages) transmit(std::move(m), Duration::zero());
}

// ---- messages

Duration Network::draw_latency(NodeId from, NodeId to) {
  auto it = link_latency_.find({from, to});
  const LatencyModel& model = it != link_latency_.end() ? it->second : config_.latency;
  if (model.distribution) return draw(world_, *model.distribution);
  if (model.tail.numerator > 0 && world_.chance(model.tail)) {
    return Duration::ns(world_.random_between(model.max.count_ns(), model.tail_max.count_ns()));
  }
  return Duration::ns(world_.random_between(model.min.count_ns(), model.max.count_ns()));
}

void Network::send(Node& from, Node& to, const std::string& port, std::any body, std::string summary) {
  Message m;
  m.from = from.id();
  m.to = to.id();
  m.port = port;
  m.body = std::move(body);
  m.summary = std::move(summary);
  transmit(std::move(m), Duration::zero());
}

void Network::transmit(Message m, Duration extra) {
  Node& from = *world_.nodes()[m.from];
  Node& to = *world_.nodes()[m.to];
  if (!from.up()) return;  // a crashed process sends nothing (a destructor during unwinding)
  if (m.id == 0) {
    // First time on the wire (a held message comes back here when its link is released: it is
    // the same message, sent once, on the connection to the same receiving process).
    m.id = next_message_id_++;
    m.to_incarnation = to.incarnation();
    ++sent_;
  }
  auto held = held_.find({m.from, m.to});
  if (held != held_.end()) {
    world_.trace_at(&from, "hold", {{"to", to.name()}, {"msg", m.summary}});
    held->second.messages.push_back(std::move(m));
    return;
  }
  // The delay belongs to the next message that leaves on the link, whatever becomes of it.
  Duration delay = Duration::zero();
  auto delayed = delay_next_.find({m.from, m.to});
  if (delayed != delay_next_.end()) {
    delay = delayed->second;
    world_.trace_at(&from, "delay", {{"to", to.name()}, {"extra", format_duration(delay)}, {"msg", m.summary}});
    delay_next_.erase(delayed);
  }
  if (blocked(m.from, m.to)) {
    ++dropped_;
    world_.trace_at(&from, "drop", {{"to", to.name()}, {"reason", "partition"}, {"msg", m.summary}});
    return;
  }
  if (config_.loss.numerator > 0 && world_.chance(config_.loss)) {
    ++dropped_;
    world_.trace_at(&from, "drop", {{"to", to.name()}, {"reason", "loss"}, {"msg", m.summary}});
    return;
  }
  const Duration latency = draw_latency(m.from, m.to) + extra;
  const bool duplicate = config_.duplicate.numerator > 0 && world_.chance(config_.duplicate);
  const Duration copy_latency = duplicate ? draw_latency(m.from, m.to) + extra : Duration::zero();
  // Arrival of one copy: a singled-out slow message (a stalled connection) may be overtaken by
  // later ones; otherwise a FIFO link delivers strictly after its previous message, so equal
  // latencies cannot tie and a copy never overtakes what was sent before it.
  auto arrival_after = [&](Duration lat) {
    Instant arrival = world_.now() + lat + delay;
    if (delay == Duration::zero() && config_.fifo_links) {
      Instant& last = last_arrival_[{m.from, m.to}];
      if (arrival <= last) arrival = last + Duration::ns(1);
      last = arrival;
    }
    return arrival;
  };
  const Instant arrival = arrival_after(latency);
  if (duplicate) {
    // The copy travels like the original: delayed with it, and in order behind it (also when
    // the delay took it off the link's FIFO order).
    Instant copy_arrival = arrival_after(copy_latency);
    if (copy_arrival <= arrival) copy_arrival = arrival + Duration::ns(1);
    world_.trace_at(&from, "duplicate", {{"to", to.name()}, {"msg", m.summary}});
    const uint32_t copy = keep_in_flight(Message(m));
    world_.at(copy_arrival, [this, copy] { deliver(take_in_flight(copy)); }, Footprint::everything());
  }
  // A reply touches only the fiber waiting for it (and the network's table of calls, whose
  // entries are independent); a request, the destination's mailbox and whoever waits on it then.
  // A delivery wakes at most the caller waiting for the reply, or the mailbox's first waiter:
  // the scheduler may run it without a trip through the dispatcher (World::allow_inline).
  const bool is_reply = m.is_reply;
  const uint64_t rpc_id = m.rpc_id;
  const Mailbox* box = is_reply ? nullptr : &world_.nodes()[m.to]->mailbox(m.port);
  const NodeId receiver = m.to;
  // The message waits in the network's pool; the timer's callback names its slot, small enough
  // for std::function to hold without allocating.
  const uint32_t slot = keep_in_flight(std::move(m));
  auto delivery = [this, slot] { deliver(take_in_flight(slot)); };
  TimerId timer = 0;
  if (!world_.wants_footprints()) {
    timer = world_.at(arrival, delivery);
  } else if (is_reply) {
    Footprint to_waiter = Footprint::node(receiver);
    const PendingCall* pending = pending_.find(rpc_id);
    if (pending != nullptr && pending->waiter != nullptr) to_waiter = pending->waiter->footprint;
    if (pending != nullptr && pending->behalf != nullptr) to_waiter = pending->behalf->footprint;
    timer = world_.at(arrival, delivery, to_waiter);
  } else {
    timer = world_.at(arrival, delivery, into_mailbox(*box), &mailbox_footprint, box);
  }
  if (is_reply) world_.allow_inline(timer, &reply_waiter, this, rpc_id);
  else world_.allow_inline(timer, &mailbox_waiter, box, 0);
}

uint32_t Network::keep_in_flight(Message m) {
  if (in_flight_free_.empty()) {
    in_flight_.push_back(std::move(m));
    return static_cast<uint32_t>(in_flight_.size() - 1);
  }
  const uint32_t slot = in_flight_free_.back();
  in_flight_free_.pop_back();
  in_flight_[slot] = std::move(m);
  return slot;
}

Message Network::take_in_flight(uint32_t slot) {
  Message m = std::move(in_flight_[slot]);
  in_flight_free_.push_back(slot);
  return m;
}

const FiberRecord* Network::reply_waiter(const void* network, uint64_t rpc_id) {
  const PendingCall* call = static_cast<const Network*>(network)->pending_.find(rpc_id);
  if (call == nullptr) return nullptr;
  return call->on_done ? call->behalf : call->waiter;
}

const FiberRecord* Network::mailbox_waiter(const void* box, uint64_t) { return static_cast<const Mailbox*>(box)->waiter(); }

Footprint Network::into_mailbox(const Mailbox& box) {
  Footprint f;
  f.global = false;
  f.nodes = 0;
  f.mailbox = box.id();
  return f;
}

Footprint Network::mailbox_footprint(const void* arg, const Footprint& fixed) {
  const auto* box = static_cast<const Mailbox*>(arg);
  const FiberRecord* w = box->waiter();
  if (w == nullptr) return fixed;
  Footprint f = w->footprint;
  f.mailbox = fixed.mailbox;
  return f;
}

void Network::deliver(Message m) {
  Node& to = *world_.nodes()[m.to];
  if (!to.up() || to.incarnation() != m.to_incarnation) {
    // Down, or restarted since the message was sent: the connection it travelled on died with
    // the old process.
    ++dropped_;
    world_.trace_at(&to, "drop", {{"from", world_.nodes()[m.from]->name()}, {"reason", to.up() ? "restarted" : "down"}, {"msg", m.summary}});
    return;
  }
  if (blocked(m.from, m.to)) {
    ++dropped_;
    world_.trace_at(&to, "drop", {{"from", world_.nodes()[m.from]->name()}, {"reason", "partition"}, {"msg", m.summary}});
    return;
  }
  if (m.is_reply) {
    PendingCall* call = pending_.take(m.rpc_id);
    if (call == nullptr) return;  // the caller gave up (timeout) or died: a late reply
    if (call->on_done) {
      world_.cancel_timer(call->timeout);
      finish_detached(call, RpcResult<std::any>{RpcStatus::ok, std::move(m.body)});
      return;
    }
    call->done = true;
    call->body = std::move(m.body);
    world_.wake(call->waiter, WakeReason::woken);
    return;
  }
  m.delivered = world_.now();
  to.mailbox(m.port).push(std::move(m));
}

Message Network::request_message(const Node& from, const Node& to, const std::string& port, uint64_t rpc_id, std::any body, std::string summary) {
  Message m;
  m.from = from.id();
  m.to = to.id();
  m.port = port;
  m.rpc_id = rpc_id;
  m.body = std::move(body);
  m.summary = std::move(summary);
  return m;
}

RpcResult<std::any> Network::call(Node& from, Node& to, const std::string& port, std::any request, std::string summary, Duration timeout) {
  FiberRecord* me = world_.current_fiber();
  if (me == nullptr || me->node != &from) throw SimError(fmt::format("rpc '{}' must be called from a fiber of node '{}'", summary, from.name()));
  PendingCall call;
  call.waiter = me;
  const uint64_t rpc_id = next_rpc_id_++;
  pending_.put(rpc_id, &call);
  struct Forget {
    Network& net;
    uint64_t id;
    ~Forget() { net.pending_.erase(id); }
  } forget{*this, rpc_id};
  transmit(request_message(from, to, port, rpc_id, std::move(request), std::move(summary)), Duration::zero());
  const Instant deadline = world_.now() + timeout;
  while (!call.done) {
    const WakeReason r = world_.park(deadline, "rpc reply");
    if ((r == WakeReason::timed_out || r == WakeReason::cancelled) && !call.done) return RpcResult<std::any>{RpcStatus::timed_out, std::nullopt};
  }
  return RpcResult<std::any>{RpcStatus::ok, std::move(call.body)};
}

Network::PendingCall* Network::new_detached() {
  if (detached_free_.empty()) {
    detached_.push_back(std::make_unique<PendingCall>());
    return detached_.back().get();
  }
  PendingCall* call = detached_free_.back();
  detached_free_.pop_back();
  return call;
}

void Network::release_detached(PendingCall* call) {
  *call = PendingCall{};
  detached_free_.push_back(call);
}

void Network::finish_detached(PendingCall* call, RpcResult<std::any> result) {
  Done done = std::move(call->on_done);
  release_detached(call);
  done(std::move(result));
}

void Network::detached_timeout(uint64_t rpc_id) {
  PendingCall* call = pending_.take(rpc_id);
  if (call == nullptr) return;
  finish_detached(call, RpcResult<std::any>{RpcStatus::timed_out, std::nullopt});
}

uint64_t Network::call_detached(Node& from, const FiberRecord& behalf, Node& to, const std::string& port, std::any request, std::string summary,
                                Duration timeout, Done done) {
  const uint64_t rpc_id = next_rpc_id_++;
  PendingCall* call = new_detached();
  call->behalf = &behalf;
  call->on_done = std::move(done);
  pending_.put(rpc_id, call);
  const Instant deadline = world_.now() + timeout;
  transmit(request_message(from, to, port, rpc_id, std::move(request), std::move(summary)), Duration::zero());
  // Armed after sending, as call() parks after sending. A reply comes through a later timer, so
  // the call is still pending here.
  call->timeout = world_.at(deadline, [this, rpc_id] { detached_timeout(rpc_id); },
                            world_.wants_footprints() ? behalf.footprint : Footprint::everything());
  world_.allow_inline(call->timeout, &reply_waiter, this, rpc_id);
  return rpc_id;
}

void Network::forget_detached(uint64_t rpc_id) {
  if (rpc_id == 0) return;
  PendingCall* call = pending_.find(rpc_id);
  if (call == nullptr || !call->on_done) return;
  pending_.erase(rpc_id);
  world_.cancel_timer(call->timeout);
  release_detached(call);
}

void Network::reply(Node& server, const Message& request, std::any body, std::string summary) {
  Message m;
  m.from = server.id();
  m.to = request.from;
  m.port = request.port;
  m.rpc_id = request.rpc_id;
  m.is_reply = true;
  m.body = std::move(body);
  m.summary = std::move(summary);
  transmit(std::move(m), Duration::zero());
}

void Network::on_crash(Node& node) {
  // Held messages from a crashed process were in its socket buffers: gone.
  for (auto& [link, held] : held_) {
    if (link.first == node.id()) held.messages.clear();
  }
}

}  // namespace oversim::sim
