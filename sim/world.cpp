#include "sim/world.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>

#include <boost/fiber/algo/algorithm.hpp>
#include <boost/fiber/algo/round_robin.hpp>
#include <boost/fiber/all.hpp>
#include <fmt/format.h>

#include "sim/asan_fibers.h"
#include "sim/network.h"
#include "sim/stacks.h"
#include "sim/sync.h"

namespace oversim::sim {

namespace {
thread_local World* t_current_world = nullptr;

constexpr uint64_t kSlotBits = TimerEntry::kSlotBits;
constexpr uint64_t kSlotMask = TimerEntry::kSlotMask;

size_t default_stack_bytes() {
#if defined(OVERSIM_SANITIZE) || !defined(NDEBUG)
  return 256 * 1024;
#else
  return 64 * 1024;
#endif
}
}  // namespace

using boost::fibers::context;

// Fiber stacks come from a pool owned by the world: thousands of buyers per run would otherwise
// cost a malloc and fresh page faults each. Copies of the allocator share the pool, so stacks
// of fibers Boost has not yet released stay valid after the world is gone.
struct World::Stacks {
  explicit Stacks(size_t bytes) : pool(bytes) {}
  PooledStacks pool;
};

// ---------------------------------------------------------------------------------------------
// The Boost.Fiber scheduling algorithm. Boost's dispatcher context and the thread's main context
// are kept out of the strategy's draw, each in its own slot; worker fibers sit in `ready_` and
// the strategy picks which runs. When nothing is ready, Boost's dispatcher calls suspend_until():
// that is where virtual time advances (World::advance), never by blocking the OS thread.
struct FiberProps : boost::fibers::fiber_properties {
  explicit FiberProps(context* ctx) : fiber_properties(ctx) {}
  FiberRecord* record = nullptr;
};

class SimAlgorithm final : public boost::fibers::algo::algorithm_with_properties<FiberProps> {
 public:
  explicit SimAlgorithm(World& world) : world_(world) { world_.algorithm_ = this; }
  ~SimAlgorithm() override {
    if (world_.algorithm_ == this) world_.algorithm_ = nullptr;
  }

  boost::fibers::fiber_properties* new_properties(context* ctx) override {
    auto* props = new FiberProps(ctx);
    if (!ctx->is_context(boost::fibers::type::pinned_context)) {
      props->record = world_.pending_spawn_;
      if (props->record != nullptr) props->record->ctx = ctx;
      world_.pending_spawn_ = nullptr;
    }
    return props;
  }

  void awakened(context* ctx, FiberProps& props) noexcept override {
    if (ctx->is_context(boost::fibers::type::dispatcher_context)) {
      dispatcher_ = ctx;
      return;
    }
    if (ctx->is_context(boost::fibers::type::main_context)) {
      main_ = ctx;
      return;
    }
    FiberRecord* rec = props.record;
    if (rec != nullptr && rec->node != nullptr && rec->node->paused_ && !world_.stopping_) {
      rec->node->held_.push_back(ctx);
      return;
    }
    ready_.push_back(ctx);
  }

  context* pick_next() noexcept override {
    // The suspending fiber is current_ (null for main and the dispatcher, which never sleep).
    if (world_.current_ != nullptr && world_.current_->ctx->sleep_is_linked()) {
      world_.fatal(fmt::format(
          "fiber '{}' used a Boost.Fiber timed wait (this_fiber::sleep_for or a *_for/*_until wait): those read the "
          "steady clock and break determinism; use oversim::sim::sleep_for or a sim wait primitive instead",
          world_.current_ != nullptr ? world_.current_->name : std::string("main")));
    }
    if (main_ != nullptr && (world_.stop_requested_ || ready_.empty())) return take_main();
    // Fast path: nothing is ready and the next timer simply wakes another fiber. Fire it here
    // and switch to that fiber directly, skipping a round trip through Boost's dispatcher. The
    // order of events and strategy choices is exactly what the dispatcher path would produce.
    // Not on yield(): the yielding fiber is re-queued only after this call returns, so it is
    // still runnable and time must not move.
    // A delivery callback that wakes nobody (a message into a mailbox nobody waits on) leaves
    // nothing ready: the next timer is fired the same way, as the dispatcher would.
    if (world_.config_.inline_timers && ready_.empty() && main_ == nullptr &&
        (world_.current_ == nullptr || world_.current_->parked)) {
      const FiberRecord* suspending = world_.current_;
      while (ready_.empty() && world_.fire_next_timer_inline(suspending)) {
      }
    }
    while (!ready_.empty()) {
      if (!world_.stopping_ && world_.steps_ >= world_.config_.max_steps) {
        world_.request_stop(RunStatus::horizon, fmt::format("step limit of {} reached", world_.config_.max_steps));
        if (main_ != nullptr) return take_main();
      }
      size_t index = 0;
      if (ready_.size() > 1 && !world_.stopping_) {
        if (world_.strategy_wants_footprints_) {
          world_.footprints_.clear();
          for (context* c : ready_) {
            const FiberRecord* r = properties(c).record;
            world_.footprints_.push_back(r != nullptr ? r->footprint : Footprint::everything());
          }
          index = static_cast<size_t>(world_.choose_from(ChoiceKind::schedule, ready_.size(), nullptr, &world_.footprints_));
        } else if (world_.strategy_wants_ids_) {
          // A strategy that schedules by fiber (PCT) sees who is ready; the choice is recorded
          // as the same index either way.
          ids_.clear();
          for (context* c : ready_) ids_.push_back(properties(c).record != nullptr ? properties(c).record->id : 0);
          index = static_cast<size_t>(world_.choose_from(ChoiceKind::schedule, ready_.size(), &ids_));
        } else {
          index = static_cast<size_t>(world_.choose(ChoiceKind::schedule, ready_.size()));
        }
      }
      context* ctx = ready_[index];
      ready_[index] = ready_.back();
      ready_.pop_back();
      FiberRecord* rec = properties(ctx).record;
      if (rec != nullptr && rec->node != nullptr && rec->node->paused_ && !world_.stopping_) {
        rec->node->held_.push_back(ctx);
        continue;
      }
      ++world_.steps_;
      world_.current_ = rec;
      if (rec != nullptr) rec->footprint.boot = false;
      return ctx;
    }
    if (main_ != nullptr) return take_main();
    world_.current_ = nullptr;
    return std::exchange(dispatcher_, nullptr);
  }

  bool has_ready_fibers() const noexcept override { return !ready_.empty() || main_ != nullptr || dispatcher_ != nullptr; }

  void suspend_until(std::chrono::steady_clock::time_point const&) noexcept override {
    world_.current_ = nullptr;
    world_.advance();
  }

  void notify() noexcept override {}

  // Used when a node resumes or crashes: its held fibers become ready again.
  void release_held(Node& node) {
    for (context* ctx : node.held_) ready_.push_back(ctx);
    node.held_.clear();
  }

 private:
  context* take_main() {
    world_.current_ = nullptr;
    return std::exchange(main_, nullptr);
  }

  World& world_;
  std::vector<context*> ready_;
  std::vector<uint64_t> ids_;  // scratch: the ready fibers' ids, for a strategy that asks
  context* dispatcher_ = nullptr;
  context* main_ = nullptr;
};

// ---------------------------------------------------------------------------------------------

const char* to_string(RunStatus s) {
  switch (s) {
    case RunStatus::completed: return "completed";
    case RunStatus::deadlock: return "deadlock";
    case RunStatus::horizon: return "horizon";
  }
  return "?";
}

uint64_t RunOutcome::hash() const {
  StableHash h;
  h.add(trace_hash);
  h.add(choice_hash);
  return h.value();
}

World::World(WorldConfig config, std::unique_ptr<Strategy> strategy)
    : config_(config),
      strategy_(strategy ? std::move(strategy) : std::make_unique<RandomStrategy>(config.seed)),
      strategy_wants_ids_(strategy_->wants_fiber_ids()),
      strategy_wants_footprints_(strategy_->wants_footprints()),
      trace_(config.keep_trace) {
  if (t_current_world != nullptr) {
    fatal("a second World was created on an OS thread that already has one; run one world per thread at a time");
  }
  if (config_.stack_bytes == 0) config_.stack_bytes = default_stack_bytes();
  t_current_world = this;
  stacks_ = std::make_unique<Stacks>(config_.stack_bytes);
  thread_ctx_ = context::active();
  network_ = std::make_unique<Network>(*this);
  boost::fibers::use_scheduling_algorithm<SimAlgorithm>(*this);
}

World::~World() {
  if (live_total_ > 0) {
    // Never ran, or ran and something is left: unwind everything before Boost's scheduler sees
    // fibers blocked forever (its destructor would wait for them).
    stop_requested_ = true;
    try {
      run();
    } catch (...) {
    }
  }
  boost::fibers::use_scheduling_algorithm<boost::fibers::algo::round_robin>();
  network_.reset();
  node_index_.clear();
  nodes_.clear();
  t_current_world = nullptr;
}

World& World::current() {
  if (t_current_world == nullptr) {
    std::fputs("oversim: no simulation world on this thread (sim primitives used outside a World)\n", stderr);
    std::abort();
  }
  return *t_current_world;
}

World* World::current_or_null() { return t_current_world; }

void World::fatal(const std::string& message) const {
  std::fprintf(stderr, "oversim: fatal: %s\n", message.c_str());
  std::fflush(stderr);
  std::abort();
}

Network& World::network() { return *network_; }

// ---- nodes ---------------------------------------------------------------------------------

Node& World::add_node(const std::string& name) {
  if (find_node(name) != nullptr) throw SimError(fmt::format("node '{}' already exists", name));
  nodes_.push_back(std::make_unique<Node>(*this, static_cast<NodeId>(nodes_.size()), name));
  node_index_.emplace(name, nodes_.back().get());
  return *nodes_.back();
}

Node* World::find_node(const std::string& name) {
  // Looked up by name on every request a client sends (its server's name): an index, not a scan.
  auto it = node_index_.find(name);
  return it == node_index_.end() ? nullptr : it->second;
}

Node& World::node(const std::string& name) {
  Node* n = find_node(name);
  if (n == nullptr) throw SimError(fmt::format("unknown node '{}'", name));
  return *n;
}

void World::crash(Node& n) {
  if (!n.up_) return;
  trace_at(&n, "crash");
  n.up_ = false;
  n.paused_ = false;
  n.paused_until_ = Instant::zero();
  ++n.incarnation_;
  for (FiberRecord* rec = n.fibers_head_; rec != nullptr; rec = rec->next) cancel_fiber(rec);
  algorithm_->release_held(n);
  for (auto& [port, box] : n.mailboxes_) box->clear();
  network_->on_crash(n);
  if (n.on_crash_) n.on_crash_(n);
}

void World::restart(Node& n) {
  if (n.up_) return;
  trace_at(&n, "restart");
  n.up_ = true;
  if (n.boot_) n.boot_(n);
  for (const Node::Boot& b : n.more_boots_) {
    if (b) b(n);
  }
}

void World::pause(Node& n) {
  if (!n.up_ || n.paused_) return;
  trace_at(&n, "pause");
  n.paused_ = true;
}

void World::resume(Node& n) {
  if (!n.paused_) return;
  trace_at(&n, "resume");
  n.paused_ = false;
  algorithm_->release_held(n);
}

// ---- fibers --------------------------------------------------------------------------------

void World::link_fiber(FiberRecord* rec) {
  FiberRecord*& head = rec->node != nullptr ? rec->node->fibers_head_ : world_fibers_head_;
  // Append at the tail so iteration is in spawn order (deterministic, address-free).
  if (head == nullptr) {
    head = rec;
    rec->prev = rec;  // head->prev is the tail
    rec->next = nullptr;
    return;
  }
  FiberRecord* tail = head->prev;
  tail->next = rec;
  rec->prev = tail;
  rec->next = nullptr;
  head->prev = rec;
}

void World::unlink_fiber(FiberRecord* rec) {
  FiberRecord*& head = rec->node != nullptr ? rec->node->fibers_head_ : world_fibers_head_;
  if (rec == head) {
    head = rec->next;
    if (head != nullptr) head->prev = rec->prev;
  } else {
    rec->prev->next = rec->next;
    if (rec->next != nullptr) rec->next->prev = rec->prev;
    else head->prev = rec->prev;
  }
  rec->prev = rec->next = nullptr;
}

uint64_t World::spawn(Node* node, std::string name, std::function<void()> body, bool daemon) {
  return spawn_fiber(node, std::move(name), std::move(body), daemon, 0, 0);
}

void World::declare_actor(uint32_t actor) {
  if (current_ != nullptr && !current_->footprint.global) current_->footprint.actor = actor;
}

uint64_t World::spawn_in_group(Node* node, std::string name, std::function<void()> body, uint32_t group, uint64_t touches) {
  return spawn_fiber(node, std::move(name), std::move(body), false, group, touches);
}

uint64_t World::spawn_fiber(Node* node, std::string name, std::function<void()> body, bool daemon, uint32_t group, uint64_t touches) {
  if (node != nullptr && !node->up_) return 0;
  if (stopping_) return 0;
  auto* rec = new FiberRecord();
  rec->id = next_fiber_id_++;
  rec->name = std::move(name);
  rec->node = node;
  rec->daemon = daemon;
  if (node != nullptr) {
    rec->footprint = Footprint::node(node->id(), group);
  } else if (group != 0) {
    rec->footprint = Footprint{0, group, 0, 0, false, false, 0};
  }
  if (!rec->footprint.global) rec->footprint.nodes |= touches;
  rec->footprint.boot = !running_;
  // A fiber spawned by a grouped fiber joins its group (an attempt's helper fibers).
  if (group == 0 && current_ != nullptr && !current_->footprint.global && current_->footprint.group != 0 && node != nullptr) {
    rec->footprint.group = current_->footprint.group;
  }
  link_fiber(rec);
  ++live_total_;
  if (!daemon) ++live_workers_;
  pending_spawn_ = rec;
  boost::fibers::fiber fiber(boost::fibers::launch::post, std::allocator_arg, stacks_->pool,
                             [this, rec, body = std::move(body)] { fiber_main(rec, body); });
  fiber.detach();
  pending_spawn_ = nullptr;
  return rec->id;
}

void World::fiber_main(FiberRecord* rec, const std::function<void()>& body) {
  asan_note_fiber_stack(rec, __builtin_frame_address(0), config_.stack_bytes);
  if (!rec->cancelled) {
    try {
      body();
    } catch (const FiberCancelled&) {
    } catch (const std::exception& e) {
      if (!failure_) failure_ = fmt::format("fiber '{}' (#{}) threw: {}", rec->name, rec->id, e.what());
      request_stop(RunStatus::completed, "");
    } catch (...) {
      if (!failure_) failure_ = fmt::format("fiber '{}' (#{}) threw a non-standard exception", rec->name, rec->id);
      request_stop(RunStatus::completed, "");
    }
  }
  clear_fiber_timer(rec);
  if (rec->wq != nullptr) rec->wq->remove(rec);
  unlink_fiber(rec);
  --live_total_;
  if (!rec->daemon) --live_workers_;
  if (current_ == rec) current_ = nullptr;
  delete rec;
  if (!stop_requested_ && live_workers_ == 0) request_stop(RunStatus::completed, "");
  if (stopping_ && live_total_ == 0) wake_main();
}

void World::cancel_fiber(FiberRecord* rec) {
  rec->cancelled = true;
  if (rec->parked) wake(rec, WakeReason::cancelled);
}

WakeReason World::park(std::optional<Instant> deadline, const char* where) {
  FiberRecord* rec = current_;
  if (rec == nullptr) fatal(fmt::format("park('{}') called outside a simulated fiber (main context or timer callback)", where));
  if (rec->cancelled) {
    // Already cancelled: unwind now, unless we are unwinding already (a destructor that waits).
    // Then every wait returns at once; a destructor that loops on waits would spin forever with
    // time standing still, so that is reported instead of hanging.
    if (std::uncaught_exceptions() > 0) {
      if (++rec->waits_while_cancelled > 10'000) {
        fatal(fmt::format("fiber '{}' keeps waiting ('{}') while it is being cancelled: a destructor blocks in a loop", rec->name, where));
      }
      return WakeReason::cancelled;
    }
    throw FiberCancelled{};
  }
  rec->parked = true;
  rec->where = where;
  rec->reason = WakeReason::none;
  if (deadline) rec->timer_slot = add_timer(*deadline, rec, nullptr, rec->timer_seq);
  rec->ctx->suspend();  // rec->ctx is the active context; context::active() costs a TLS lookup
  if (rec->cancelled) {
    if (std::uncaught_exceptions() > 0) return WakeReason::cancelled;
    throw FiberCancelled{};
  }
  return rec->reason;
}

void World::wake(FiberRecord* rec, WakeReason reason) {
  if (rec == nullptr || !rec->parked) return;
  rec->parked = false;
  rec->reason = reason;
  clear_fiber_timer(rec);
  // Any context of this thread can schedule; the thread's main context avoids a TLS lookup.
  thread_ctx_->schedule(rec->ctx);
}

// ---- timers --------------------------------------------------------------------------------

uint32_t World::add_timer(Instant when, FiberRecord* fiber, std::function<void()> callback, uint64_t& seq_out) {
  if (when < now_) when = now_;
  uint32_t slot = 0;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    if (timer_slots_.size() >= kSlotMask) fatal("more than 16M timers pending at once");
    slot = static_cast<uint32_t>(timer_slots_.size());
    timer_slots_.emplace_back();
  }
  if (next_timer_seq_ > TimerEntry::kMaxSeq) fatal("more than 2^40 timers in one run");
  const uint64_t seq = next_timer_seq_++;
  TimerSlot& s = timer_slots_[slot];
  s.seq = seq;
  s.fiber = fiber;
  s.callback = std::move(callback);
  s.footprint = fiber != nullptr ? fiber->footprint : Footprint::everything();
  s.dynamic = nullptr;
  s.dynamic_arg = nullptr;
  s.wake_target = nullptr;
  timer_heap_.push(TimerEntry(when, seq, slot));
  ++timer_heap_pushes_;
  ++live_timers_;
  seq_out = seq;
  return slot;
}

void World::release_timer_slot(uint32_t slot) {
  TimerSlot& s = timer_slots_[slot];
  if (s.tie_index != UINT32_MAX) remove_tie(s.tie_index);
  s.seq = 0;
  s.fiber = nullptr;
  s.callback = nullptr;
  free_slots_.push_back(slot);
  --live_timers_;
}

void World::remove_tie(uint32_t index) {
  timer_slots_[ties_[index].slot()].tie_index = UINT32_MAX;
  if (index + 1 != ties_.size()) {
    ties_[index] = ties_.back();
    timer_slots_[ties_[index].slot()].tie_index = index;
  }
  ties_.pop_back();
}

void World::clear_fiber_timer(FiberRecord* rec) {
  if (rec->timer_slot == UINT32_MAX) return;
  if (timer_slots_[rec->timer_slot].seq == rec->timer_seq) release_timer_slot(rec->timer_slot);
  rec->timer_slot = UINT32_MAX;
}

TimerId World::at(Instant when, std::function<void()> callback) { return at(when, std::move(callback), Footprint::everything()); }

TimerId World::at(Instant when, std::function<void()> callback, Footprint footprint, DynamicFootprint dynamic, const void* dynamic_arg) {
  uint64_t seq = 0;
  const uint32_t slot = add_timer(when, nullptr, std::move(callback), seq);
  timer_slots_[slot].footprint = footprint;
  timer_slots_[slot].dynamic = dynamic;
  timer_slots_[slot].dynamic_arg = dynamic_arg;
  return (seq << kSlotBits) | slot;
}

std::optional<uint32_t> World::pending_slot(TimerId id) const {
  const auto slot = static_cast<uint32_t>(id & kSlotMask);
  const uint64_t seq = id >> kSlotBits;
  if (slot < timer_slots_.size() && timer_slots_[slot].seq == seq && seq != 0) return slot;
  return std::nullopt;
}

void World::allow_inline(TimerId id, WakeTarget target, const void* owner, uint64_t key) {
  const std::optional<uint32_t> slot = pending_slot(id);
  if (!slot) return;
  TimerSlot& t = timer_slots_[*slot];
  t.wake_target = target;
  t.wake_owner = owner;
  t.wake_key = key;
}

void World::cancel_timer(TimerId id) {
  if (const std::optional<uint32_t> slot = pending_slot(id)) release_timer_slot(*slot);
}

TimerEntry World::pop_timer() {
  const TimerEntry e = timer_heap_.pop();
  // The next timer's slot is read when it comes up (is it cancelled? whom does it wake?): with
  // tens of thousands pending that read is a cache miss on every event, so start it now, while
  // this timer's work runs. A hint only: it changes no value.
  if (!timer_heap_.empty()) __builtin_prefetch(&timer_slots_[timer_heap_.top().slot()]);
  return e;
}

void World::drop_cancelled_timers() {
  // A cancelled timer stays in the heap until it comes to the top.
  while (!timer_heap_.empty() && timer_slots_[timer_heap_.top().slot()].seq != timer_heap_.top().seq()) pop_timer();
}

void World::run_callback(const std::function<void()>& callback) {
  try {
    callback();
  } catch (const std::exception& e) {
    if (!failure_) failure_ = fmt::format("timer callback at {} threw: {}", format_instant(now_), e.what());
    request_stop(RunStatus::completed, "");
  }
}

bool World::fire_next_timer_inline(const FiberRecord* suspending) {
  if (stop_requested_ || stopping_) return false;
  drop_cancelled_timers();
  if (timer_heap_.empty() || !ties_.empty()) return false;
  const TimerEntry top = timer_heap_.top();
  if (top.at > Instant::zero() + config_.horizon) return false;
  // A tie needs a strategy choice: leave it to advance().
  if (timer_heap_.top_is_tied()) return false;
  TimerSlot& slot = timer_slots_[top.slot()];
  FiberRecord* fiber = slot.fiber;
  if (fiber == nullptr) {
    // A callback: only one that says whom it wakes, and not the suspending fiber (resuming the
    // running context is impossible; the dispatcher handles that case). Other callbacks may
    // crash nodes or spawn: they go through the dispatcher.
    if (slot.wake_target == nullptr) return false;
    if (suspending != nullptr && slot.wake_target(slot.wake_owner, slot.wake_key) == suspending) return false;
    pop_timer();
    now_ = top.at;
    std::function<void()> callback = std::move(slot.callback);
    release_timer_slot(top.slot());
    ++inline_timer_fires_;
    current_ = nullptr;  // as in the dispatcher: a callback runs on no fiber's behalf
    run_callback(callback);
    return true;
  }
  // Waking the suspending fiber itself would resume the running context: the dispatcher.
  if (fiber == suspending) return false;
  pop_timer();
  now_ = top.at;
  release_timer_slot(top.slot());
  fiber->timer_slot = UINT32_MAX;
  ++inline_timer_fires_;
  wake(fiber, WakeReason::timed_out);
  return true;
}

void World::advance() {
  if (stopping_) {
    // Nothing is ready while fibers remain: they are blocked outside the kernel's primitives
    // (a Boost mutex, say) and can never unwind. Say so instead of hanging.
    if (live_total_ > 0 && !main_parked_) return;
    if (live_total_ > 0) fatal(fmt::format("{} fiber(s) could not be unwound at the end of the run:\n{}", live_total_, deadlock_report()));
    wake_main();
    return;
  }
  if (stop_requested_) {
    wake_main();
    return;
  }
  drop_cancelled_timers();
  if (timer_heap_.empty() && ties_.empty()) {
    request_stop(RunStatus::deadlock, deadlock_report());
    return;
  }
  const Instant at = !ties_.empty() ? now_ : timer_heap_.top().at;
  if (at > Instant::zero() + config_.horizon) {
    now_ = Instant::zero() + config_.horizon;
    request_stop(RunStatus::horizon, fmt::format("virtual-time horizon of {} reached\n{}", format_duration(config_.horizon), deadlock_report()));
    return;
  }
  TimerEntry chosen{};
  if (ties_.empty() && !timer_heap_.top_is_tied()) {
    chosen = pop_timer();
  } else {
    // Simultaneous timers: the strategy decides which fires first; the rest stay tied. Timers
    // due now that are not yet among the ties (the first advance at this instant, or timers a
    // callback added for now_) join them first.
    while (!timer_heap_.empty() && timer_heap_.top().at == at) {
      const TimerEntry e = pop_timer();
      if (timer_slots_[e.slot()].seq != e.seq()) continue;  // cancelled
      timer_slots_[e.slot()].tie_index = static_cast<uint32_t>(ties_.size());
      ties_.push_back(e);
    }
    size_t index = 0;
    if (ties_.size() > 1 && strategy_wants_footprints_) {
      footprints_.clear();
      for (const TimerEntry& e : ties_) {
        const TimerSlot& t = timer_slots_[e.slot()];
        footprints_.push_back(t.dynamic != nullptr ? t.dynamic(t.dynamic_arg, t.footprint) : t.footprint);
      }
      index = static_cast<size_t>(choose_from(ChoiceKind::timer, ties_.size(), nullptr, &footprints_));
    } else if (ties_.size() > 1) {
      index = static_cast<size_t>(choose(ChoiceKind::timer, ties_.size()));
    }
    chosen = ties_[index];
    remove_tie(static_cast<uint32_t>(index));
  }
  now_ = at;
  TimerSlot& slot = timer_slots_[chosen.slot()];
  FiberRecord* fiber = slot.fiber;
  std::function<void()> callback = std::move(slot.callback);
  release_timer_slot(chosen.slot());
  if (fiber != nullptr) {
    fiber->timer_slot = UINT32_MAX;
    wake(fiber, WakeReason::timed_out);
    return;
  }
  run_callback(callback);
}

// ---- choices -------------------------------------------------------------------------------

uint64_t World::choose(ChoiceKind kind, uint64_t bound) { return choose_from(kind, bound, nullptr); }

uint64_t World::choose_from(ChoiceKind kind, uint64_t bound, const std::vector<uint64_t>* fiber_ids, const std::vector<Footprint>* footprints) {
  if (bound <= 1) return 0;
  if (failure_ || stopping_) return 0;  // the run is over; unwinding draws nothing, records nothing
  uint64_t value = 0;
  try {
    value = footprints != nullptr ? strategy_->choose_option(kind, *footprints)
            : fiber_ids != nullptr ? strategy_->choose_fiber(*fiber_ids)
                                   : strategy_->choose(kind, bound);
  } catch (const ReplayDivergence& e) {
    // Loud, but through the normal exit: run() rethrows it once every fiber is unwound.
    failure_ = e.what();
    request_stop(RunStatus::completed, "");
    return 0;
  }
  if (value >= bound) fatal(fmt::format("strategy {} returned {} for a choice of {}", strategy_->describe(), value, bound));
  choice_hash_.add(static_cast<uint64_t>(kind));
  choice_hash_.add(bound);
  choice_hash_.add(value);
  if (kind == ChoiceKind::schedule) ++schedule_choices_;
  if (config_.record_choices) choices_.push_back(Choice{kind, bound, value});
  return value;
}

int64_t World::random_between(int64_t low, int64_t high) {
  if (low >= high) return low;
  return low + static_cast<int64_t>(random(static_cast<uint64_t>(high - low) + 1));
}

bool World::chance(Ratio r) {
  if (r.numerator == 0) return false;
  if (r.numerator >= r.denominator) return true;
  return random(r.denominator) < r.numerator;
}

// ---- trace ---------------------------------------------------------------------------------

void World::trace(std::string kind, std::vector<TraceField> fields) { trace_at(current_node(), std::move(kind), std::move(fields)); }

bool World::TraceObserver::watches(std::string_view kind) const {
  return kinds.empty() || std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

void World::trace_at(const Node* n, std::string kind, std::vector<TraceField> fields) {
  TraceEvent event{now_, steps_, n != nullptr ? n->name() : std::string(), std::move(kind), std::move(fields)};
  for (const TraceObserver& o : trace_observers_) {
    if (o.watches(event.kind)) o.observe(event);
  }
  trace_.record(std::move(event));
}

void World::trace_view(const Node* n, std::string_view kind, std::initializer_list<TraceFieldView> fields) {
  for (const TraceObserver& o : trace_observers_) {
    if (!o.watches(kind)) continue;
    // Someone reads this kind: the event as trace_at builds it.
    std::vector<TraceField> copied;
    copied.reserve(fields.size());
    for (const TraceFieldView& f : fields) copied.push_back({std::string(f.key), std::string(f.value)});
    trace_at(n, std::string(kind), std::move(copied));
    return;
  }
  static const std::string kWorld;
  trace_.record(now_, steps_, n != nullptr ? std::string_view(n->name()) : std::string_view(kWorld), kind, fields);
}

// ---- fault points --------------------------------------------------------------------------

void World::reach(std::string_view point) {
  auto it = point_counts_.find(point);
  if (it == point_counts_.end()) it = point_counts_.emplace(std::string(point), 0).first;
  ++it->second;
  if (!points_open_ || stopping_ || point_observers_.empty()) return;
  Node* here = current_node();
  for (const auto& observer : point_observers_) observer(point, here);
  if (current_ == nullptr || std::uncaught_exceptions() > 0) return;
  if (current_->cancelled) throw FiberCancelled{};
  if (here != nullptr && here->paused_) sim::yield();  // held here until the node resumes
}

// ---- running -------------------------------------------------------------------------------

void World::request_stop(RunStatus status, std::string detail) {
  if (!stop_requested_) {
    stop_requested_ = true;
    stop_status_ = status;
    stop_detail_ = std::move(detail);
  }
  wake_main();
}

void World::wake_main() {
  if (!main_parked_) return;
  main_parked_ = false;
  context::active()->schedule(main_ctx_);
}

std::string World::deadlock_report() const {
  std::string out;
  size_t daemons = 0;
  auto describe = [&](const FiberRecord* rec) {
    if (rec->daemon) {
      ++daemons;
      return;
    }
    const char* state = rec->parked ? rec->where : (rec->node != nullptr && rec->node->paused_ ? "held: its node is paused" : "ready");
    out += fmt::format("  fiber #{} '{}' on {} waits at: {}\n", rec->id, rec->name, rec->node != nullptr ? rec->node->name() : "world", state);
  };
  for (const FiberRecord* rec = world_fibers_head_; rec != nullptr; rec = rec->next) describe(rec);
  for (const auto& n : nodes_) {
    for (const FiberRecord* rec = n->fibers_head_; rec != nullptr; rec = rec->next) describe(rec);
  }
  return fmt::format("{} fiber(s) blocked with no timer pending ({} daemon fiber(s) not listed)\n{}", live_workers_, daemons, out);
}

RunOutcome World::run() {
  if (ran_ && !stop_requested_) throw SimError("World::run() called twice");
  ran_ = true;
  running_ = true;
  main_ctx_ = context::active();
  current_ = nullptr;
  if (live_workers_ == 0) stop_requested_ = true;
  if (!stop_requested_) {
    main_parked_ = true;
    main_ctx_->suspend();
  }
  const Instant end_time = now_;
  const uint64_t end_steps = steps_;
  // Unwind everything that is left: cancel, then let each fiber run its cancellation.
  stopping_ = true;
  for (FiberRecord* rec = world_fibers_head_; rec != nullptr; rec = rec->next) cancel_fiber(rec);
  for (auto& n : nodes_) {
    for (FiberRecord* rec = n->fibers_head_; rec != nullptr; rec = rec->next) cancel_fiber(rec);
    algorithm_->release_held(*n);
  }
  while (live_total_ > 0) {
    main_parked_ = true;
    main_ctx_->suspend();
  }
  running_ = false;
  if (failure_) throw SimError(*failure_);
  RunOutcome outcome;
  outcome.status = stop_status_;
  outcome.end_time = end_time;
  outcome.steps = end_steps;
  outcome.trace_hash = trace_.hash();
  outcome.choice_hash = choice_hash_.value();
  outcome.detail = stop_detail_;
  return outcome;
}

}  // namespace oversim::sim
