#include "sim/asan_fibers.h"

#include "sim/world.h"

#if defined(OVERSIM_SANITIZE)
#include <dlfcn.h>
#include <sanitizer/asan_interface.h>
#endif

namespace oversim::sim {

#if defined(OVERSIM_SANITIZE)
// Boost places the context record and the fiber's function object at the top of the stack,
// above fiber_main's frame; 8 KiB is far more than they take, so [frame - size + 8 KiB, frame)
// stays inside the fiber's own stack.
void asan_note_fiber_stack(FiberRecord* rec, const void* frame, unsigned long stack_bytes) {
  rec->stack_low = static_cast<const char*>(frame) - stack_bytes + 8192;
}
#else
void asan_note_fiber_stack(FiberRecord*, const void*, unsigned long) {}
#endif

}  // namespace oversim::sim

#if defined(OVERSIM_SANITIZE)
extern "C" void __asan_handle_no_return() {
  using oversim::sim::World;
  World* world = World::current_or_null();
  oversim::sim::FiberRecord* fiber = world != nullptr ? world->current_fiber() : nullptr;
  if (fiber != nullptr && fiber->stack_low != nullptr) {
    const char* sp = static_cast<const char*>(__builtin_frame_address(0));
    if (sp > fiber->stack_low) __asan_unpoison_memory_region(fiber->stack_low, static_cast<size_t>(sp - fiber->stack_low));
    return;
  }
  using Hook = void (*)();
  static Hook real = reinterpret_cast<Hook>(dlsym(RTLD_NEXT, "__asan_handle_no_return"));
  if (real != nullptr) real();
}
#endif
