// The project's property tests of its own designs, with oversim's GoogleTest helper. One holds;
// `MyDesigns.TheBrokenVariantFails` is meant to fail (tests/installed_test.sh runs it alone,
// expects the failure, and runs the reproduce command its message carries).
#include <gtest/gtest.h>

#include "properties/gtest.h"

namespace {

// Reproduce lines name this project's oversim command and how to rebuild it.
const bool kNamed = [] {
  oversim::properties::set_reproduce_program(MY_OVERSIM_PATH, "cmake --build " MY_BUILD_DIR " --target my_oversim");
  return true;
}();

TEST(MyDesigns, TheConditionalDecrementHoldsUnderEveryLockFault) {
  for (const char* profile : {"gc-pause", "slow-rpc", "app-crash", "lost-replies"}) {
    EXPECT_DESIGN_HOLDS("my_conditional", {"no_oversell"}, oversim::testing::Sweep().under(profile).seeds(30));
  }
}

TEST(MyDesigns, TheBrokenVariantFails) {
  EXPECT_DESIGN_HOLDS("my_broken", {"no_oversell"}, oversim::testing::Sweep().under("gc-pause").seeds(30));
}

}  // namespace
