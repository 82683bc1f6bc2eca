// Work a parked fiber hands to the scheduler: timers and RPCs whose continuations run as timer
// callbacks on the fiber's behalf, so the fiber is not resumed for each of them. A buyer polling
// a lock every 10 ms then costs a timer entry and a message per poll, not two context switches
// into its own stack (at 10,000 pollers those were cache misses on every poll).
//
// The continuations are the fiber's steps, run at the instants the fiber would have run them:
// - the explorer sees them as the fiber's steps (its footprint), and the scheduler may run them
//   on its fast path (World::allow_inline), which never changes a run;
// - while the fiber's node is paused, a continuation waits, as the fiber would be held: it runs
//   on the fiber itself once the node resumes (the fiber is woken, held, then runs it);
// - once the fiber is cancelled (its node crashed, the run ended) nothing more runs, and the
//   destructor cancels every timer and call still pending, so a continuation may refer to the
//   fiber's stack.
// A continuation must not park; it may arm timers, make calls and finish().
#pragma once

#include <any>
#include <boost/container/small_vector.hpp>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "sim/network.h"
#include "sim/time.h"

namespace oversim::sim {

class World;
struct FiberRecord;
class Node;

class Detached {
 public:
  // For the fiber running now.
  explicit Detached(World& world);
  ~Detached();
  Detached(const Detached&) = delete;
  Detached& operator=(const Detached&) = delete;

  // Parks the fiber until a continuation calls finish(), running continuations that waited for
  // the node to resume. Throws FiberCancelled like any wait.
  void wait(const char* where);
  void finish();

  // `step` after `delay`, as the fiber's sleep_for(delay) followed by `step` would run.
  void after(Duration delay, std::function<void()> step);
  // Network::call from the fiber's node; `done` gets what call() would have returned.
  void call(Node& to, const std::string& port, std::any request, std::string summary, Duration timeout,
            std::function<void(RpcResult<std::any>)> done);

 private:
  // Runs a continuation that is due now, unless the fiber is gone. While the node is paused (or
  // others wait before it) it is kept, type-erased only then, and the fiber is woken: held until
  // the node resumes, it runs what waited in wait().
  template <class Step>
  void run(Step&& step) {
    if (gone()) return;
    if (node_->paused() || !deferred_.empty()) {
      defer(std::function<void()>(std::forward<Step>(step)));
      return;
    }
    step();
  }
  void defer(std::function<void()> step);
  // Reads the node only (not the fiber's record): a crash bumps the incarnation, and at the end
  // of a run no timer fires. Each poll touches as little memory as it can: at 10,000 pollers every
  // distinct line is a cache miss.
  bool gone() const { return !node_->up() || node_->incarnation() != incarnation_; }
  static const FiberRecord* fiber_itself(const void* fiber, uint64_t /*key*/) { return static_cast<const FiberRecord*>(fiber); }
  Footprint footprint() const;

  World& world_;
  FiberRecord& fiber_;
  Node* node_;
  uint64_t incarnation_;
  bool finished_ = false;
  // Pending, by a key of ours: a timer's id (a call's) is known only once it is armed, after its
  // continuation was made.
  uint64_t next_key_ = 1;
  using Pending = boost::container::small_vector<std::pair<uint64_t, uint64_t>, 2>;
  Pending timers_;
  Pending calls_;  // Network::forget_detached
  std::deque<std::function<void()>> deferred_;  // came while the node was paused
};

}  // namespace oversim::sim
