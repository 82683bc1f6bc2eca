#include "sim/sync.h"

#include <boost/fiber/operations.hpp>

namespace oversim::sim {

void sleep_for(Duration d) { sleep_until(World::current().now() + d); }

void sleep_until(Instant t) {
  World& w = World::current();
  if (t <= w.now()) {
    yield();
    return;
  }
  for (;;) {
    const WakeReason r = w.park(t, "sleep");
    if (r == WakeReason::timed_out || r == WakeReason::cancelled) return;
  }
}

void sleep_local(Duration local) {
  World& w = World::current();
  Node* n = w.current_node();
  sleep_for(n != nullptr ? n->clock().true_span_for(local) : local);
}

void yield() {
  World& w = World::current();
  FiberRecord* rec = w.current_fiber();
  if (rec != nullptr && rec->cancelled && std::uncaught_exceptions() == 0) throw FiberCancelled{};
  boost::this_fiber::yield();
  if (rec != nullptr && rec->cancelled && std::uncaught_exceptions() == 0) throw FiberCancelled{};
}

// ---- WaitQueue

WaitQueue::~WaitQueue() {
  // A queue dying with waiters is a model bug (they would be stranded); unlink so no dangling
  // pointers survive, and let the run's deadlock detection report the stranded fibers.
  while (head_ != nullptr) remove(head_);
}

void WaitQueue::push(FiberRecord* rec) {
  rec->wq = this;
  rec->wq_next = nullptr;
  rec->wq_prev = tail_;
  if (tail_ != nullptr) tail_->wq_next = rec;
  else head_ = rec;
  tail_ = rec;
  ++size_;
}

void WaitQueue::remove(FiberRecord* rec) {
  if (rec->wq != this) return;
  if (rec->wq_prev != nullptr) rec->wq_prev->wq_next = rec->wq_next;
  else head_ = rec->wq_next;
  if (rec->wq_next != nullptr) rec->wq_next->wq_prev = rec->wq_prev;
  else tail_ = rec->wq_prev;
  rec->wq = nullptr;
  rec->wq_prev = rec->wq_next = nullptr;
  --size_;
}

WakeReason WaitQueue::wait(std::optional<Instant> deadline, const char* where) {
  World& w = World::current();
  FiberRecord* rec = w.current_fiber();
  if (rec == nullptr) w.park(deadline, where);  // aborts with a clear message
  push(rec);
  struct Leave {
    WaitQueue& q;
    FiberRecord* r;
    ~Leave() { q.remove(r); }
  } leave{*this, rec};
  return w.park(deadline, where);
}

bool WaitQueue::notify_one() {
  // Skip waiters that already stopped waiting (timed out, or cancelled) but have not run yet to
  // leave the queue: a wake-up given to them would be lost for the next real waiter.
  while (head_ != nullptr) {
    FiberRecord* rec = head_;
    remove(rec);
    if (!rec->parked || rec->cancelled) continue;
    World::current().wake(rec, WakeReason::woken);
    return true;
  }
  return false;
}

size_t WaitQueue::notify_all() {
  size_t n = 0;
  while (notify_one()) ++n;
  return n;
}

// ---- Mutex

bool Mutex::try_lock() {
  if (owner_ != 0) return false;
  owner_ = World::current().current_fiber()->id;
  return true;
}

void Mutex::lock(const char* where) {
  if (try_lock()) return;
  World& w = World::current();
  const uint64_t me = w.current_fiber()->id;
  // Hand-off: unlock() sets owner_ to the woken fiber, so no one can barge in between. If this
  // fiber is cancelled after the hand-off but before it ran, pass the mutex on.
  try {
    while (owner_ != me) {
      if (waiters_.wait(std::nullopt, where) == WakeReason::cancelled) break;  // unwinding: not taken
    }
  } catch (const FiberCancelled&) {
    if (owner_ == me) unlock();
    throw;
  }
}

bool Mutex::lock_until(Instant deadline, const char* where) {
  if (try_lock()) return true;
  World& w = World::current();
  const uint64_t me = w.current_fiber()->id;
  struct PassOn {
    Mutex& m;
    uint64_t me;
    ~PassOn() {
      if (std::uncaught_exceptions() > 0 && m.owner_ == me) m.unlock();
    }
  } pass_on{*this, me};
  while (owner_ != me) {
    const WakeReason r = waiters_.wait(deadline, where);
    if ((r == WakeReason::timed_out || r == WakeReason::cancelled) && owner_ != me) return false;
  }
  return true;
}

void Mutex::unlock() {
  // Only the owner unlocks: a lock() cut short by cancellation did not take it.
  FiberRecord* me = World::current().current_fiber();
  if (me == nullptr || owner_ != me->id) return;
  owner_ = 0;
  // Hand the lock to the first waiter that can still take it: a cancelled waiter is unwinding
  // and would never unlock.
  while (FiberRecord* next = waiters_.front()) {
    waiters_.remove(next);
    if (next->cancelled) continue;
    owner_ = next->id;
    World::current().wake(next, WakeReason::woken);
    return;
  }
}

// ---- Event

void Event::set() {
  set_ = true;
  waiters_.notify_all();
}

void Event::wait(const char* where) {
  while (!set_) {
    if (waiters_.wait(std::nullopt, where) == WakeReason::cancelled) return;
  }
}

bool Event::wait_until(Instant deadline, const char* where) {
  while (!set_) {
    const WakeReason r = waiters_.wait(deadline, where);
    if (r == WakeReason::timed_out || r == WakeReason::cancelled) return set_;
  }
  return true;
}

// ---- CondVar

void CondVar::wait(Mutex& m, const char* where) {
  m.unlock();
  waiters_.wait(std::nullopt, where);
  m.lock(where);
}

bool CondVar::wait_until(Mutex& m, Instant deadline, const char* where) {
  m.unlock();
  const WakeReason r = waiters_.wait(deadline, where);
  m.lock(where);
  return r == WakeReason::woken;
}

}  // namespace oversim::sim
