#include "sim/stacks.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <new>
#include <utility>

namespace oversim::sim {

namespace {
// Regions grow from 16 stacks to 1024 (64 MiB of address space at 64 KiB), doubling: a small
// run maps little, a 100,000-buyer run maps about a hundred regions.
constexpr size_t kFirstRegionStacks = 16;
constexpr size_t kLargestRegionStacks = 1024;

// Regions a finished world's pool left on this thread, for the next world's pool: a sweep runs
// thousands of worlds one after another on a thread, and a reused region's stacks are already
// resident (no mmap, no page faults). Bounded; unmapped when the thread ends.
constexpr size_t kSpareBytes = size_t{1} << 30;
thread_local bool t_spares_gone = false;
struct Spares {
  std::vector<std::pair<void*, size_t>> regions;  // base, bytes
  size_t bytes = 0;
  ~Spares() {
    t_spares_gone = true;
    for (const auto& [base, size] : regions) ::munmap(base, size);
  }
};
Spares& spares() {
  thread_local Spares s;
  return s;
}

size_t page_rounded(size_t bytes) {
  const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}
}  // namespace

StackPool::StackPool(size_t stack_bytes) : bytes_(page_rounded(stack_bytes)) {}

StackPool::~StackPool() {
  // The first region last: the next pool takes it first (its stacks are the most used).
  for (auto it = regions_.rbegin(); it != regions_.rend(); ++it) {
    const Region& r = *it;
    if (!t_spares_gone && spares().bytes + r.bytes <= kSpareBytes) {
      spares().regions.emplace_back(r.base, r.bytes);
      spares().bytes += r.bytes;
    } else {
      ::munmap(r.base, r.bytes);
    }
  }
}

void* StackPool::take() {
  if (!free_.empty()) {
    void* base = free_.back();
    free_.pop_back();
    return base;
  }
  if (next_ == end_) {
    const size_t stacks = std::min(kLargestRegionStacks, kFirstRegionStacks << std::min<size_t>(regions_.size(), 16));
    size_t bytes = stacks * bytes_;
    void* base = nullptr;
    if (!t_spares_gone && !spares().regions.empty()) {
      // A spare region of any size holds whole stacks of this size at its start.
      auto [spare, size] = spares().regions.back();
      spares().regions.pop_back();
      spares().bytes -= size;
      if (size >= bytes_) {
        base = spare;
        bytes = size / bytes_ * bytes_;
        regions_.push_back(Region{base, size});
      } else {
        ::munmap(spare, size);
      }
    }
    if (base == nullptr) {
      base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (base == MAP_FAILED) throw std::bad_alloc();
      regions_.push_back(Region{base, bytes});
    }
    next_ = static_cast<char*>(base);
    end_ = next_ + bytes;
  }
  void* base = next_;
  next_ += bytes_;
  ++mapped_;
  return base;
}

void StackPool::give(void* base) { free_.push_back(base); }

boost::context::stack_context PooledStacks::allocate() {
  void* base = pool_->take();
  boost::context::stack_context sc;
  sc.size = pool_->stack_bytes();
  sc.sp = static_cast<char*>(base) + sc.size;  // stacks grow down from the top
  return sc;
}

void PooledStacks::deallocate(boost::context::stack_context& sc) noexcept {
  pool_->give(static_cast<char*>(sc.sp) - sc.size);
}

}  // namespace oversim::sim
