// The world: one object per simulation run, owning the seed's strategy, virtual time, the
// scheduler, nodes, network, timers and trace. There are no globals: the only per-thread state
// is "which world is current on this OS thread", set while a world exists. Many worlds can run
// one after another in a process, and one per OS thread in parallel.
//
// How a run flows (madsim/turmoil's loop on Boost.Fiber):
//   1. run everything that is ready, one fiber at a time, in an order chosen by the Strategy;
//   2. when nothing is ready, advance virtual time to the next timer (ties ordered by the
//      Strategy) and fire it: wake a fiber, deliver a message, apply a fault;
//   3. when nothing is ready and no timer exists while fibers still wait, report a deadlock
//      naming every waiting fiber and where it waits;
//   4. stop at the horizon (virtual time or step limit), when every non-daemon fiber has ended,
//      or when a fiber throws; then cancel and unwind every remaining fiber.
// Virtual time never advances while a fiber is runnable: computation is instantaneous, and a
// model spends time only by sleeping (service times, latencies).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sim/node.h"
#include "sim/prng.h"
#include "sim/strategy.h"
#include "sim/time.h"
#include "sim/timer_heap.h"
#include "sim/trace.h"

namespace boost::fibers { class context; }

namespace oversim::sim {

class Network;
class WaitQueue;
class SimAlgorithm;

// Thrown inside a fiber to unwind it when the run ends or its node crashes. Deliberately not a
// std::exception so that `catch (const std::exception&)` in models cannot swallow it.
struct FiberCancelled {};

// A kernel misuse or a fiber's exception, rethrown from World::run().
struct SimError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class WakeReason : uint8_t { none, woken, timed_out, cancelled };

struct FiberRecord {
  uint64_t id = 0;  // our own counter: never Boost's id or an address
  std::string name;
  Node* node = nullptr;
  bool daemon = false;
  boost::fibers::context* ctx = nullptr;
  bool parked = false;
  bool cancelled = false;
  WakeReason reason = WakeReason::none;
  const char* where = "";
  uint32_t timer_slot = UINT32_MAX;
  uint64_t timer_seq = 0;
  // intrusive links: the owner's live-fiber list, and at most one wait queue
  FiberRecord* prev = nullptr;
  FiberRecord* next = nullptr;
  FiberRecord* wq_prev = nullptr;
  FiberRecord* wq_next = nullptr;
  WaitQueue* wq = nullptr;
  const char* stack_low = nullptr;      // sanitizer builds: the fiber's stack range, for unpoisoning
  const char* stack_high = nullptr;
  uint32_t waits_while_cancelled = 0;  // waits that returned at once while the fiber unwound
  Footprint footprint;                 // what its steps act on (sim/strategy.h)
};

enum class RunStatus : uint8_t { completed, deadlock, horizon };
const char* to_string(RunStatus s);

struct RunOutcome {
  RunStatus status = RunStatus::completed;
  Instant end_time;
  uint64_t steps = 0;
  uint64_t trace_hash = 0;   // hash of the trace events
  uint64_t choice_hash = 0;  // hash of every strategy choice (kind, bound, value)
  uint64_t hash() const;     // both combined: "same seed, same run"
  std::string detail;        // the deadlock report or the horizon reached
};

struct WorldConfig {
  uint64_t seed = 1;
  Duration horizon = Duration::s(3600);  // virtual-time limit
  uint64_t max_steps = 50'000'000;       // scheduling-step limit
  size_t stack_bytes = 0;                // 0: 64 KiB, or 256 KiB in sanitizer builds
  bool keep_trace = true;                // keep events (the hash is always computed)
  bool record_choices = true;
  // The inline timer fast path in the scheduler (see pick_next). It must never change a run:
  // off, every timer goes through Boost's dispatcher, and tests compare the two event orders.
  bool inline_timers = true;
};

using TimerId = uint64_t;  // 0 is never a valid id

class World {
 public:
  // Uses a RandomStrategy seeded from config.seed unless a strategy is given.
  explicit World(WorldConfig config, std::unique_ptr<Strategy> strategy = nullptr);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  // The world of this OS thread; aborts with a clear message when there is none.
  static World& current();
  static World* current_or_null();

  const WorldConfig& config() const { return config_; }
  Instant now() const { return now_; }
  uint64_t steps() const { return steps_; }

  // ---- nodes
  Node& add_node(const std::string& name);
  Node* find_node(const std::string& name);
  Node& node(const std::string& name);  // throws SimError naming the unknown node
  const std::vector<std::unique_ptr<Node>>& nodes() const { return nodes_; }
  void crash(Node& node);
  void restart(Node& node);
  void pause(Node& node);
  void resume(Node& node);
  Network& network();

  // ---- fibers
  // Spawns a fiber on `node` (nullptr: a fiber of the world itself, e.g. the workload driver).
  // Daemons (servers, watchdogs) do not keep a run alive: it completes when every non-daemon
  // fiber has ended. The fiber starts at a later scheduling point, never inside this call.
  uint64_t spawn(Node* node, std::string name, std::function<void()> body, bool daemon = false);
  // The same, for a fiber that shares memory with the other fibers of `group` (1..) and may spawn
  // fibers onto the nodes in `touches` (bit i: node id i): what the explorer's reduction must
  // know (sim::Footprint). A fiber with no node and no group may touch anything.
  uint64_t spawn_in_group(Node* node, std::string name, std::function<void()> body, uint32_t group, uint64_t touches = 0);
  // True when the strategy reads footprints (the explorer): models skip computing them otherwise.
  bool wants_footprints() const { return strategy_wants_footprints_; }
  // The current fiber touches only its own part (actor, 1..) of its node's state: for the
  // explorer's reduction (sim::Footprint). Call before its first wait.
  void declare_actor(uint32_t actor);
  // The fiber that is running now, or nullptr on the main context or in a timer callback.
  FiberRecord* current_fiber() const { return current_; }
  // True while the current fiber is being cancelled (its node crashed or the run is ending):
  // a dead process sends nothing, so cleanup code skips its network calls.
  bool current_fiber_cancelled() const { return current_ != nullptr && current_->cancelled; }
  Node* current_node() const { return current_ ? current_->node : nullptr; }

  // Parks the current fiber until wake() or the deadline. Throws FiberCancelled when the fiber
  // is cancelled (its node crashed or the run ended); if it is already unwinding (a destructor
  // that waits), returns WakeReason::cancelled at once instead, and every kernel primitive
  // treats that as "give up". `where` must outlive the wait (a literal).
  WakeReason park(std::optional<Instant> deadline, const char* where);
  // Makes a parked fiber runnable; no effect if it is not parked.
  void wake(FiberRecord* fiber, WakeReason reason = WakeReason::woken);

  // ---- timers (callbacks run on the scheduler, must not park; they may spawn and wake)
  TimerId at(Instant when, std::function<void()> callback);
  // A callback that acts only on what `footprint` names (a message delivery: its destination);
  // when `dynamic` is set, the explorer asks it at each choice for the footprint then (a
  // delivery into a mailbox also touches the receiver it would wake).
  using DynamicFootprint = Footprint (*)(const void* arg, const Footprint& fixed);
  TimerId at(Instant when, std::function<void()> callback, Footprint footprint, DynamicFootprint dynamic = nullptr, const void* dynamic_arg = nullptr);
  TimerId after(Duration delay, std::function<void()> callback) { return at(now_ + delay, std::move(callback)); }
  // Lets the scheduler's fast path run this pending callback from inside a switch (see
  // pick_next) instead of through Boost's dispatcher. Only for a callback that wakes at most
  // the one fiber `target(owner, key)` names at the moment it fires (or nobody), and does
  // nothing else a fiber could observe before that: no spawn, no crash, no point reached. The
  // network's deliveries qualify. Same run either way: tests/fast_path_test compares.
  using WakeTarget = const FiberRecord* (*)(const void* owner, uint64_t key);
  void allow_inline(TimerId id, WakeTarget target, const void* owner, uint64_t key);
  void cancel_timer(TimerId id);
  // Timers pushed onto the heap so far: once per timer (ties are not re-pushed). For tests and
  // benchmarks of the timer queue's cost.
  uint64_t timer_heap_pushes() const { return timer_heap_pushes_; }
  // Timers the scheduler fired on its inline fast path (0 with WorldConfig::inline_timers off).
  uint64_t inline_timer_fires() const { return inline_timer_fires_; }

  // ---- choices (all randomness goes through here, see sim/strategy.h)
  uint64_t choose(ChoiceKind kind, uint64_t bound);
  uint64_t random(uint64_t bound) { return choose(ChoiceKind::data, bound); }
  int64_t random_between(int64_t low, int64_t high);
  bool chance(Ratio r);
  const std::vector<Choice>& choices() const { return choices_; }  // empty unless record_choices
  // Scheduling choices made so far (kind schedule), counted whether or not they are recorded.
  uint64_t schedule_choices() const { return schedule_choices_; }

  // ---- fault points (sim/fault_plan.h arms triggered faults on them)
  // The current fiber reached a named point in a protocol, or a model's server fiber an event.
  // Counts it and tells the point observers. If an observer crashed or paused this fiber's own
  // node, the fault happens right here: a crashed node's fiber unwinds at once, a paused one is
  // held until its node resumes. Draws no choice unless a fault fires.
  void reach(std::string_view point);
  void add_point_observer(std::function<void(std::string_view point, Node* node)> observer) { point_observers_.push_back(std::move(observer)); }
  // From now on points are still counted but no observer hears them (the sale is over).
  void close_points() {
    points_open_ = false;
    strategy_->points_closed();
  }
  // How many times each point was reached, by name.
  const std::map<std::string, uint64_t, std::less<>>& point_counts() const { return point_counts_; }
  // Faults applied so far, and when the last fault applied or armed so far will have played out.
  // A fault that strikes (anything but a heal or a restart) is also kept with the time it struck,
  // how long it lasts and the nodes it names, for coverage: did a fault hit a lock while it was held.
  // A pause lasts its length, a clock drift the rest of the run, a partition, isolation or cut
  // until the next heal; any other fault is its instant.
  struct StruckFault {
    Instant at;
    Instant until;
    std::vector<std::string> nodes;
    bool until_heal = false;  // a partition, isolation or cut: it lasts until the next heal
  };
  // `kind` names the fault's kind (a static string: sim::to_string(FaultKind)).
  void note_fault_applied(const char* kind) { applied_kinds_.push_back(kind); }
  void note_fault_struck(std::vector<std::string> nodes, Duration lasts) {
    struck_.push_back(StruckFault{now(), lasts == Duration::max() ? Instant::max() : now() + lasts, std::move(nodes)});
  }
  // A network fault: it lasts until heal_struck_faults() (the run's end if nothing heals it).
  void note_fault_struck_until_heal(std::vector<std::string> nodes) {
    struck_.push_back(StruckFault{now(), Instant::max(), std::move(nodes), true});
  }
  void heal_struck_faults() {
    for (StruckFault& f : struck_) {
      if (f.until_heal && f.until == Instant::max()) f.until = now();
    }
  }
  uint64_t faults_applied() const { return applied_kinds_.size(); }
  // The kinds of the faults applied so far, in the order they struck.
  const std::vector<const char*>& applied_fault_kinds() const { return applied_kinds_; }
  const std::vector<StruckFault>& struck_faults() const { return struck_; }
  void fault_settles_at(Instant t) {
    if (t > faults_settle_at_) faults_settle_at_ = t;
  }
  Instant faults_settle_at() const { return faults_settle_at_; }

  // ---- trace
  void trace(std::string kind, std::vector<TraceField> fields = {});
  void trace_at(const Node* node, std::string kind, std::vector<TraceField> fields = {});
  // The same event from borrowed text, for events recorded on every request (a Redis command):
  // nothing is copied unless the trace is kept or an observer watches this kind.
  void trace_view(const Node* node, std::string_view kind, std::initializer_list<TraceFieldView> fields);
  const Trace& trace_log() const { return trace_; }
  // Called with every event as it is recorded (kept or not), or only with events of the given
  // kinds. Observers read state to check invariants; they must not change it, draw choices or
  // park.
  void add_trace_observer(std::function<void(const TraceEvent&)> observer) { trace_observers_.push_back({{}, std::move(observer)}); }
  void add_trace_observer(std::vector<std::string> kinds, std::function<void(const TraceEvent&)> observer) {
    trace_observers_.push_back({std::move(kinds), std::move(observer)});
  }

  // ---- running
  // Runs until completion, deadlock or horizon. Rethrows (as SimError) the first exception that
  // escaped a fiber, after every fiber has been unwound. Call once per world.
  RunOutcome run();

 private:
  friend class SimAlgorithm;
  struct Stacks;
  struct TimerSlot {
    uint64_t seq = 0;  // 0: free
    FiberRecord* fiber = nullptr;
    std::function<void()> callback;
    Footprint footprint;              // a callback's (a fiber's timer uses the fiber's)
    DynamicFootprint dynamic = nullptr;
    const void* dynamic_arg = nullptr;
    uint32_t tie_index = UINT32_MAX;  // its place in ties_, while it is one of them
    WakeTarget wake_target = nullptr;  // set by allow_inline
    const void* wake_owner = nullptr;
    uint64_t wake_key = 0;
  };
  uint64_t spawn_fiber(Node* node, std::string name, std::function<void()> body, bool daemon, uint32_t group, uint64_t touches);
  void fiber_main(FiberRecord* rec, const std::function<void()>& body);
  void link_fiber(FiberRecord* rec);
  void unlink_fiber(FiberRecord* rec);
  void cancel_fiber(FiberRecord* rec);
  uint32_t add_timer(Instant when, FiberRecord* fiber, std::function<void()> callback, uint64_t& seq_out);
  void release_timer_slot(uint32_t slot);
  void clear_fiber_timer(FiberRecord* rec);
  void remove_tie(uint32_t index);
  // Called by the scheduler when nothing is ready. Fires one timer or ends the run.
  void advance();
  bool fire_next_timer_inline(const FiberRecord* suspending);
  std::optional<uint32_t> pending_slot(TimerId id) const;  // the slot of a timer not yet fired or cancelled
  void drop_cancelled_timers();
  TimerEntry pop_timer();  // the heap's top, taken off
  void run_callback(const std::function<void()>& callback);  // a throw stops the run with the failure
  void on_pick(FiberRecord* rec);
  uint64_t choose_from(ChoiceKind kind, uint64_t bound, const std::vector<uint64_t>* fiber_ids, const std::vector<Footprint>* footprints = nullptr);
  void request_stop(RunStatus status, std::string detail);
  void wake_main();
  std::string deadlock_report() const;
  [[noreturn]] void fatal(const std::string& message) const;

  WorldConfig config_;
  std::unique_ptr<Strategy> strategy_;
  bool strategy_wants_ids_ = false;
  bool strategy_wants_footprints_ = false;
  std::vector<Footprint> footprints_;  // scratch: the options of the current choice
  Instant now_ = Instant::zero();
  uint64_t steps_ = 0;
  Trace trace_;
  struct TraceObserver {
    std::vector<std::string> kinds;  // empty: every kind
    std::function<void(const TraceEvent&)> observe;
    bool watches(std::string_view kind) const;
  };
  std::vector<TraceObserver> trace_observers_;
  std::vector<Choice> choices_;
  uint64_t schedule_choices_ = 0;
  StableHash choice_hash_;
  std::vector<std::function<void(std::string_view, Node*)>> point_observers_;
  std::map<std::string, uint64_t, std::less<>> point_counts_;
  bool points_open_ = true;
  std::vector<const char*> applied_kinds_;
  std::vector<StruckFault> struck_;
  Instant faults_settle_at_ = Instant::zero();

  std::vector<std::unique_ptr<Node>> nodes_;
  std::unordered_map<std::string, Node*> node_index_;  // by name; looked up, never iterated
  std::unique_ptr<Network> network_;
  std::unique_ptr<Stacks> stacks_;

  SimAlgorithm* algorithm_ = nullptr;  // owned by Boost's scheduler while installed
  FiberRecord* current_ = nullptr;
  FiberRecord* pending_spawn_ = nullptr;
  FiberRecord* world_fibers_head_ = nullptr;  // fibers with no node
  uint64_t next_fiber_id_ = 1;
  uint64_t live_total_ = 0;
  uint64_t live_workers_ = 0;

  std::vector<TimerSlot> timer_slots_;
  std::vector<uint32_t> free_slots_;
  TimerHeap timer_heap_;
  // The live timers due at now_ that the strategy picks among, one per advance(): taken out of
  // the heap once, so n simultaneous timers (n faults at one instant) cost O(n log n), not n².
  // A timer released while waiting here leaves at once, so every entry is live.
  std::vector<TimerEntry> ties_;
  uint64_t next_timer_seq_ = 1;
  uint64_t timer_heap_pushes_ = 0;
  uint64_t inline_timer_fires_ = 0;
  uint64_t live_timers_ = 0;

  boost::fibers::context* main_ctx_ = nullptr;
  boost::fibers::context* thread_ctx_ = nullptr;  // the context that created the world
  bool main_parked_ = false;
  bool running_ = false;
  bool ran_ = false;
  bool stop_requested_ = false;
  bool stopping_ = false;  // unwinding: no pause holding, no strategy draws
  RunStatus stop_status_ = RunStatus::completed;
  std::string stop_detail_;
  std::optional<std::string> failure_;
};

// Convenience for code running inside a fiber.
inline Instant now() { return World::current().now(); }

}  // namespace oversim::sim
