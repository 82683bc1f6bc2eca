// A node is a named simulated process: it owns fibers, a local clock and mailboxes, and it can
// crash, restart, pause and resume. A pause is a stop-the-world GC pause: the node's fibers make
// no progress, its timers fire late (their fibers are held until resume), and messages to it
// queue in its mailboxes. A crash cancels every fiber of the node and empties its mailboxes; a
// restart runs the node's boot function again (models decide what state survives).
//
// The local clock is what the node's software reads (Redis expiry, lease deadlines); it differs
// from true simulated time by an offset, a drift in parts per million, and jumps.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/time.h"

namespace boost::fibers { class context; }

namespace oversim::sim {

class World;
struct FiberRecord;
class Mailbox;
class SimAlgorithm;

using NodeId = uint32_t;

// local(t) = base_local + (t - base_true) * (1e6 + drift_ppm) / 1e6, rebased at every change so
// drift changes and jumps compose exactly. Integer arithmetic with 128-bit intermediates.
class LocalClock {
 public:
  Instant local_at(Instant true_now) const;
  // The same clock without its steps (jumps and offsets set during the run): what a monotonic
  // clock reads (Go's time.Now() compares by it, Java's System.nanoTime()). Drift applies.
  Instant monotonic_at(Instant true_now) const { return local_at(true_now) - stepped_; }
  // The true-time span after which this clock will have advanced by `local` (rounded up), at the
  // current drift. Used to turn "sleep 3s by my clock" into a virtual-time timer.
  Duration true_span_for(Duration local) const;
  void set_offset(Instant true_now, Duration offset);
  void set_drift_ppm(Instant true_now, int64_t drift_ppm);
  void jump(Instant true_now, Duration delta);
  int64_t drift_ppm() const { return drift_ppm_; }

 private:
  void rebase(Instant true_now);
  Instant base_true_ = Instant::zero();
  Instant base_local_ = Instant::zero();
  int64_t drift_ppm_ = 0;
  Duration stepped_ = Duration::zero();  // every step of the clock so far
};

class Node {
 public:
  using Boot = std::function<void(Node&)>;

  Node(World& world, NodeId id, std::string name);
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  NodeId id() const { return id_; }
  const std::string& name() const { return name_; }
  World& world() const { return world_; }
  bool up() const { return up_; }
  bool paused() const { return paused_; }
  // A pause fault's end: overlapping pauses extend it; only the last one's resume resumes.
  Instant paused_until() const { return paused_until_; }
  void extend_pause_until(Instant t) {
    if (t > paused_until_) paused_until_ = t;
  }
  // Bumped by every crash; lets a model tell a fresh process from the one that sent a request.
  uint64_t incarnation() const { return incarnation_; }
  Instant local_now() const;
  Instant monotonic_now() const;  // LocalClock::monotonic_at
  LocalClock& clock() { return clock_; }
  const LocalClock& clock() const { return clock_; }

  // Runs now (if the node is up) and again after every restart.
  void set_boot(Boot boot);
  // Another boot hook besides set_boot's (an app node's background jobs): runs now (if the node
  // is up) and after every restart, after set_boot's, in the order added.
  void add_boot(Boot boot);
  // Called at a crash, after the node's fibers are cancelled: drop volatile state here.
  void set_on_crash(std::function<void(Node&)> hook) { on_crash_ = std::move(hook); }

  Mailbox& mailbox(const std::string& port);  // created on first use
  const Mailbox* find_mailbox(const std::string& port) const;  // nullptr until then
  size_t live_fibers() const;

 private:
  friend class World;
  friend class SimAlgorithm;
  World& world_;
  NodeId id_;
  std::string name_;
  bool up_ = true;
  bool paused_ = false;
  Instant paused_until_ = Instant::zero();
  uint64_t incarnation_ = 0;
  LocalClock clock_;
  Boot boot_;
  std::vector<Boot> more_boots_;
  std::function<void(Node&)> on_crash_;
  std::map<std::string, std::unique_ptr<Mailbox>> mailboxes_;
  FiberRecord* fibers_head_ = nullptr;                  // intrusive list of live fibers
  std::vector<boost::fibers::context*> held_;            // ready while paused
};

}  // namespace oversim::sim
