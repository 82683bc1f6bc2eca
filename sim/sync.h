// Wait primitives on the kernel's own park/wake, with virtual-time deadlines and cancellation.
// Boost.Fiber's timed waits read the steady clock and are forbidden in simulation code (the
// scheduler aborts when one is used). Everything here must be called from a simulated fiber.
#pragma once

#include <cstddef>
#include <optional>

#include "sim/time.h"
#include "sim/world.h"

namespace oversim::sim {

void sleep_for(Duration d);
void sleep_until(Instant t);
// Sleep by the current node's local clock (drift applies; jumps during the sleep do not, like a
// monotonic clock). Outside a node, same as sleep_for.
void sleep_local(Duration local);
// Let every other ready fiber have a chance to run first (a scheduling point, no time passes).
void yield();

// A FIFO of parked fibers. wait() returns woken or timed_out; a cancelled waiter unwinds and
// leaves the queue on its way out.
class WaitQueue {
 public:
  WaitQueue() = default;
  WaitQueue(const WaitQueue&) = delete;
  WaitQueue& operator=(const WaitQueue&) = delete;
  ~WaitQueue();

  WakeReason wait(std::optional<Instant> deadline, const char* where);
  bool notify_one();
  size_t notify_all();
  bool empty() const { return head_ == nullptr; }
  size_t size() const { return size_; }
  void remove(FiberRecord* rec);  // kernel use: a fiber leaving early
  FiberRecord* front() const { return head_; }

 private:
  void push(FiberRecord* rec);
  FiberRecord* head_ = nullptr;
  FiberRecord* tail_ = nullptr;
  size_t size_ = 0;
};

// A mutex with FIFO hand-off, so that who gets it next is the scheduler's choice of who asked
// first, not an accident of wake-up order.
class Mutex {
 public:
  void lock(const char* where = "mutex lock");
  // false when the deadline passed first
  bool lock_until(Instant deadline, const char* where = "mutex lock");
  bool try_lock();
  void unlock();
  bool locked() const { return owner_ != 0; }

 private:
  uint64_t owner_ = 0;  // fiber id
  WaitQueue waiters_;
};

class LockGuard {
 public:
  explicit LockGuard(Mutex& m) : m_(m) { m_.lock(); }
  ~LockGuard() { m_.unlock(); }
  LockGuard(const LockGuard&) = delete;
  LockGuard& operator=(const LockGuard&) = delete;

 private:
  Mutex& m_;
};

// A level-triggered event: wait() returns at once while set.
class Event {
 public:
  void set();
  void reset() { set_ = false; }
  bool is_set() const { return set_; }
  void wait(const char* where = "event wait");
  bool wait_until(Instant deadline, const char* where = "event wait");

 private:
  bool set_ = false;
  WaitQueue waiters_;
};

class CondVar {
 public:
  void wait(Mutex& m, const char* where = "condvar wait");
  // true when notified; false on timeout or when the fiber is being cancelled. The mutex is held
  // again either way.
  bool wait_until(Mutex& m, Instant deadline, const char* where = "condvar wait");
  void notify_one() { waiters_.notify_one(); }
  void notify_all() { waiters_.notify_all(); }

 private:
  WaitQueue waiters_;
};

}  // namespace oversim::sim
