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
  // Just above fiber_main's frame: what lies higher is Boost's (uninstrumented) frames and the
  // context record, inside the same stack block.
  rec->stack_high = static_cast<const char*>(frame) + 512;
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
    // What ASan's own hook does for a thread stack: the frames between here and the catch are
    // about to be unwound without their epilogues, so clear the shadow from just below the
    // current frame up to the top of the fiber's stack (live frames above lose their redzones
    // until they return; that is the price ASan pays on threads too).
    const char* sp = static_cast<const char*>(__builtin_frame_address(0)) - 4096;
    if (sp < fiber->stack_low) sp = fiber->stack_low;
    if (fiber->stack_high > sp) __asan_unpoison_memory_region(sp, static_cast<size_t>(fiber->stack_high - sp));
    return;
  }
  using Hook = void (*)();
  static Hook real = reinterpret_cast<Hook>(dlsym(RTLD_NEXT, "__asan_handle_no_return"));
  if (real != nullptr) real();
}
#endif
