#include "sim/node.h"

#include "sim/network.h"
#include "sim/world.h"

namespace oversim::sim {
namespace {
__extension__ typedef __int128 I128;
constexpr int64_t kMillion = 1'000'000;
}  // namespace

Instant LocalClock::local_at(Instant true_now) const {
  const I128 elapsed = (true_now - base_true_).count_ns();
  const I128 scaled = elapsed * (kMillion + drift_ppm_) / kMillion;
  if (scaled > INT64_MAX || scaled < INT64_MIN) throw_time_overflow("local clock");
  return base_local_ + Duration::ns(static_cast<int64_t>(scaled));
}

Duration LocalClock::true_span_for(Duration local) const {
  const I128 rate = kMillion + drift_ppm_;
  if (rate <= 0) return Duration::max();  // a clock that does not advance never gets there
  const I128 span = (static_cast<I128>(local.count_ns()) * kMillion + rate - 1) / rate;
  // A very slow clock (drift near -1e6 ppm) takes longer than any run: never gets there.
  if (span > Duration::max().count_ns()) return Duration::max();
  return Duration::ns(static_cast<int64_t>(span));
}

void LocalClock::rebase(Instant true_now) {
  base_local_ = local_at(true_now);
  base_true_ = true_now;
}

void LocalClock::set_offset(Instant true_now, Duration offset) {
  rebase(true_now);
  stepped_ += (true_now + offset) - base_local_;
  base_local_ = true_now + offset;
}

void LocalClock::set_drift_ppm(Instant true_now, int64_t drift_ppm) {
  rebase(true_now);
  drift_ppm_ = drift_ppm;
}

void LocalClock::jump(Instant true_now, Duration delta) {
  rebase(true_now);
  base_local_ += delta;
  stepped_ += delta;
}

Node::Node(World& world, NodeId id, std::string name) : world_(world), id_(id), name_(std::move(name)) {}
Node::~Node() = default;

Instant Node::local_now() const { return clock_.local_at(world_.now()); }
Instant Node::monotonic_now() const { return clock_.monotonic_at(world_.now()); }

void Node::set_boot(Boot boot) {
  boot_ = std::move(boot);
  if (up_ && boot_) boot_(*this);
}

void Node::add_boot(Boot boot) {
  more_boots_.push_back(std::move(boot));
  if (up_ && more_boots_.back()) more_boots_.back()(*this);
}

size_t Node::live_fibers() const {
  size_t n = 0;
  for (const FiberRecord* rec = fibers_head_; rec != nullptr; rec = rec->next) ++n;
  return n;
}

}  // namespace oversim::sim
