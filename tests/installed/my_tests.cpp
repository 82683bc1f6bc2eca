// The project's property tests of its own designs, with oversim's GoogleTest helper and its
// rapidcheck generators. Two hold;
// `MyDesigns.TheBrokenVariantFails` is meant to fail (tests/installed_test.sh runs it alone,
// expects the failure, and runs the reproduce command its message carries).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "properties/gtest.h"
#include "properties/rapidcheck.h"

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

// rapidcheck draws whole sales (buyers, stock, leases, a fault plan over this design's topology)
// and shrinks a failing one; a failure prints as the command that replays it.
RC_GTEST_PROP(MyDesigns, TheConditionalDecrementNeverOversellsInAnyGeneratedSale, ()) {
  const oversim::protocols::Scenario s = *oversim::gen::scenario("my_conditional");
  RC_ASSERT_FALSE(oversim::properties::run_checked(s).result("no_oversell").violated);
}

TEST(MyDesigns, TheBrokenVariantFails) {
  EXPECT_DESIGN_HOLDS("my_broken", {"no_oversell"}, oversim::testing::Sweep().under("gc-pause").seeds(30));
}

}  // namespace
