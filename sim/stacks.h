// Fiber stacks for the kernel: fixed-size stacks carved from large anonymous mappings, reused
// most-recently-freed first. A stack costs resident memory only for the pages its fiber touches:
// nothing is written into a stack that is handed out or returned (Boost's pooled stack writes a
// free-list link into every chunk of a block it adds, a page per stack, twice as many stacks as
// are live). No guard pages (one mapping per stack would cap a run near 32k fibers): a fiber
// that overflows its stack corrupts its neighbour, as with Boost's fixedsize_stack.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include <boost/context/stack_context.hpp>

namespace oversim::sim {

class StackPool {
 public:
  explicit StackPool(size_t stack_bytes);
  ~StackPool();
  StackPool(const StackPool&) = delete;
  StackPool& operator=(const StackPool&) = delete;

  void* take();           // the lowest address of a stack of stack_bytes()
  void give(void* base);  // back to the pool
  size_t stack_bytes() const { return bytes_; }
  size_t mapped_stacks() const { return mapped_; }  // every stack ever carved, live or free

 private:
  struct Region {
    void* base = nullptr;
    size_t bytes = 0;
  };
  size_t bytes_;
  std::vector<void*> free_;
  std::vector<Region> regions_;
  char* next_ = nullptr;  // the next uncarved stack in the newest region
  char* end_ = nullptr;
  size_t mapped_ = 0;
};

// A Boost.Context StackAllocator over a shared pool: copies share it, so a fiber that Boost
// releases after its world is gone still returns its stack to a live pool.
class PooledStacks {
 public:
  explicit PooledStacks(size_t stack_bytes) : pool_(std::make_shared<StackPool>(stack_bytes)) {}
  boost::context::stack_context allocate();
  void deallocate(boost::context::stack_context& sc) noexcept;
  const StackPool& pool() const { return *pool_; }

 private:
  std::shared_ptr<StackPool> pool_;
};

}  // namespace oversim::sim
