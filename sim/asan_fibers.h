// AddressSanitizer support for fiber stacks (sanitizer builds only; no-ops otherwise).
//
// Why: Debian's Boost.Context switches stacks with fcontext, which has no ASan annotations.
// When an exception is thrown on a fiber stack, ASan's __asan_handle_no_return cannot tell the
// stack's bounds, skips clearing the poisoned redzones of unwound frames, and later reports
// false stack-buffer-overflows there. We remember each fiber's stack range and, on a fiber,
// replace that hook with one that does what ASan does on a thread stack: clear the shadow from
// the throwing frame up to the top of the fiber's stack.
#pragma once

namespace oversim::sim {

struct FiberRecord;

// Called first thing on a fiber's own stack: records the range the fiber may unpoison.
void asan_note_fiber_stack(FiberRecord* rec, const void* frame, unsigned long stack_bytes);

}  // namespace oversim::sim
