#include "sim/detached.h"

#include <algorithm>
#include <utility>

#include "sim/world.h"

namespace oversim::sim {
namespace {
// Drops the entry of `key` (the continuation runs now); returns nothing.
template <class Pending>
void forget(Pending& pending, uint64_t key) {
  auto it = std::find_if(pending.begin(), pending.end(), [key](const auto& p) { return p.first == key; });
  if (it != pending.end()) pending.erase(it);
}
}  // namespace

Detached::Detached(World& world) : world_(world), fiber_(*world.current_fiber()), node_(fiber_.node), incarnation_(0) {
  if (node_ == nullptr) throw SimError("detached work needs a fiber of a node");
  incarnation_ = node_->incarnation();
}

Footprint Detached::footprint() const { return world_.wants_footprints() ? fiber_.footprint : Footprint::everything(); }

Detached::~Detached() {
  for (const auto& [key, t] : timers_) world_.cancel_timer(t);
  for (const auto& [key, c] : calls_) world_.network().forget_detached(c);
}

void Detached::wait(const char* where) {
  while (!finished_) {
    if (!deferred_.empty()) {
      std::function<void()> step = std::move(deferred_.front());
      deferred_.pop_front();
      step();
      continue;
    }
    world_.park(std::nullopt, where);
  }
}

void Detached::finish() {
  finished_ = true;
  world_.wake(&fiber_);
}

void Detached::defer(std::function<void()> step) {
  deferred_.push_back(std::move(step));
  world_.wake(&fiber_);  // held until the node resumes
}

void Detached::after(Duration delay, std::function<void()> step) {
  const uint64_t key = next_key_++;
  const TimerId t = world_.at(world_.now() + delay, [this, key, step = std::move(step)]() mutable {
    forget(timers_, key);
    run(std::move(step));
  }, footprint());
  timers_.emplace_back(key, t);
  world_.allow_inline(t, &fiber_itself, &fiber_, 0);
}

void Detached::call(Node& to, const std::string& port, std::any request, std::string summary, Duration timeout,
                    std::function<void(RpcResult<std::any>)> done) {
  const uint64_t key = next_key_++;
  const uint64_t c = world_.network().call_detached(*node_, fiber_, to, port, std::move(request), std::move(summary), timeout,
                                                    [this, key, done = std::move(done)](RpcResult<std::any> r) mutable {
                                                      forget(calls_, key);
                                                      run([done = std::move(done), r = std::move(r)]() mutable { done(std::move(r)); });
                                                    });
  calls_.emplace_back(key, c);
}

}  // namespace oversim::sim
