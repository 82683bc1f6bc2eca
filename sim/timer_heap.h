// The kernel's pending timers: a 4-ary min-heap of 16-byte entries ordered by (instant, key),
// where the key is the timer's sequence number above its slot. Sequence numbers are unique, so
// the order is total and any correct heap pops the same sequence: this one halves the depth of
// a binary heap and keeps a node's four children in one or two cache lines, which is what a
// run of 10,000 fibers spends its time on.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/time.h"

namespace oversim::sim {

struct TimerEntry {
  static constexpr uint64_t kSlotBits = 24;
  static constexpr uint64_t kSlotMask = (uint64_t{1} << kSlotBits) - 1;
  static constexpr uint64_t kMaxSeq = (uint64_t{1} << (64 - kSlotBits)) - 1;

  Instant at;
  uint64_t key = 0;  // seq << kSlotBits | slot

  TimerEntry() = default;
  TimerEntry(Instant when, uint64_t seq, uint32_t slot) : at(when), key(seq << kSlotBits | slot) {}
  uint64_t seq() const { return key >> kSlotBits; }
  uint32_t slot() const { return static_cast<uint32_t>(key & kSlotMask); }
  bool before(const TimerEntry& o) const { return at != o.at ? at < o.at : key < o.key; }
};

class TimerHeap {
 public:
  bool empty() const { return v_.empty(); }
  size_t size() const { return v_.size(); }
  const TimerEntry& top() const { return v_.front(); }

  void push(const TimerEntry& e) {
    size_t i = v_.size();
    v_.push_back(e);
    while (i > 0) {
      const size_t parent = (i - 1) / 4;
      if (!e.before(v_[parent])) break;
      v_[i] = v_[parent];
      i = parent;
    }
    v_[i] = e;
  }

  TimerEntry pop() {
    const TimerEntry out = v_.front();
    const TimerEntry last = v_.back();
    v_.pop_back();
    const size_t n = v_.size();
    if (n == 0) return out;
    size_t i = 0;
    for (;;) {
      const size_t first = 4 * i + 1;
      if (first >= n) break;
      size_t best = first;
      const size_t end = first + 4 < n ? first + 4 : n;
      for (size_t c = first + 1; c < end; ++c) {
        if (v_[c].before(v_[best])) best = c;
      }
      if (!v_[best].before(last)) break;
      v_[i] = v_[best];
      i = best;
    }
    v_[i] = last;
    return out;
  }

  // Whether another entry is due at the top's instant (the second-smallest entry of a heap is
  // one of the root's children).
  bool top_is_tied() const {
    const size_t end = v_.size() < 5 ? v_.size() : 5;
    for (size_t c = 1; c < end; ++c) {
      if (v_[c].at == v_.front().at) return true;
    }
    return false;
  }

 private:
  std::vector<TimerEntry> v_;
};

}  // namespace oversim::sim
