// A map from nonzero 64-bit ids to pointers: open addressing with linear probing and
// backward-shift deletion, no allocation per entry. Lookups and changes only (no iteration), so
// its layout can never change what a run does. The network's table of calls awaiting a reply
// uses it: at 10,000 buyers a red-black tree's lookups were cache misses on every reply.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace oversim::sim {

template <class T>
class IdTable {
 public:
  IdTable() : slots_(16), shift_(60) {}

  T* find(uint64_t id) const {
    for (size_t i = index(id);; i = (i + 1) & mask()) {
      if (slots_[i].id == id) return slots_[i].value;
      if (slots_[i].id == 0) return nullptr;
    }
  }

  void put(uint64_t id, T* value) {  // id must be nonzero and absent
    if ((count_ + 1) * 2 > slots_.size()) grow();
    size_t i = index(id);
    while (slots_[i].id != 0) i = (i + 1) & mask();
    slots_[i] = Slot{id, value};
    ++count_;
  }

  void erase(uint64_t id) { take(id); }

  // Removes the entry and returns its value (nullptr when absent): one probe for find + erase.
  T* take(uint64_t id) {
    size_t i = index(id);
    for (;; i = (i + 1) & mask()) {
      if (slots_[i].id == 0) return nullptr;
      if (slots_[i].id == id) break;
    }
    T* const value = slots_[i].value;
    // Backward shift: move later entries of the probe run into the hole when they may live there.
    size_t hole = i;
    for (size_t j = (i + 1) & mask(); slots_[j].id != 0; j = (j + 1) & mask()) {
      const size_t home = index(slots_[j].id);
      const bool movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
      if (movable) {
        slots_[hole] = slots_[j];
        hole = j;
      }
    }
    slots_[hole] = Slot{};
    --count_;
    return value;
  }

  size_t size() const { return count_; }

 private:
  struct Slot {
    uint64_t id = 0;
    T* value = nullptr;
  };
  size_t mask() const { return slots_.size() - 1; }
  // Fibonacci hashing: the top bits of the product spread consecutive ids over the table.
  size_t index(uint64_t id) const { return static_cast<size_t>((id * 0x9e3779b97f4a7c15ULL) >> shift_); }
  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(old.size() * 2, Slot{});
    --shift_;
    count_ = 0;
    for (const Slot& s : old) {
      if (s.id != 0) put(s.id, s.value);
    }
  }

  std::vector<Slot> slots_;
  size_t count_ = 0;
  unsigned shift_;  // 64 - log2(slots_.size())
};

}  // namespace oversim::sim
