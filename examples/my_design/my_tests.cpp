// Property tests of this project's designs, on every commit.
//
// MyRecipe.*: the recipe holds no_oversell and no_duplicate_order under the lock's failures
// (seed sweeps, judged as `oversim check` judges: a sweep whose faults never struck is not a
// pass), and in every sale rapidcheck generates (shrunk by rapidcheck when one fails).
// MyRecipeTrustingLock.TheHarnessCatchesIt: the same harness finds the broken variant, so the
// recipe's pass means something.
// MyRecipeTrustingLock.DISABLED_Oversells: the failure a broken design gives, as a CI log shows
// it; disabled, run it with --gtest_also_run_disabled_tests to see the message and its reproduce
// line (the example's CI does, and runs that line).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "properties/gtest.h"
#include "properties/rapidcheck.h"

namespace {

using oversim::testing::Sweep;

// Reproduce lines name this project's oversim command and how to rebuild it.
const bool kNamed = [] {
  oversim::properties::set_reproduce_program(MY_OVERSIM_PATH, "cmake --build " MY_BUILD_DIR " --target my_oversim");
  return true;
}();

const std::vector<std::string> kBusiness = {"no_oversell", "no_duplicate_order"};

TEST(MyRecipe, HoldsWhenALeaseExpiresUnderItsHolder) {
  // A holder paused past its lease, a slow remote call, a crashed node: the lock fails, and
  // each sweep must see it fail while a lock was held (the profile's coverage).
  for (const char* profile : {"gc-pause", "slow-rpc", "app-crash"}) {
    EXPECT_DESIGN_HOLDS("my_recipe", kBusiness, Sweep().under(profile).seeds(40));
  }
}

TEST(MyRecipe, HoldsWhenRedisFailsOver) {
  EXPECT_DESIGN_HOLDS("my_recipe", kBusiness, Sweep().under("failover").seeds(20).require({"failover_happened"}));
}

TEST(MyRecipe, HoldsWhenRepliesAreLostAndRequestsRetried) {
  EXPECT_DESIGN_HOLDS("my_recipe", kBusiness, Sweep().under("retries").seeds(40).require({"request_sent_twice"}));
}

// rapidcheck draws whole sales (buyers, stock, leases, latencies, a fault plan over this
// design's topology) and shrinks a failing one; a failure prints as the command that replays it.
RC_GTEST_PROP(MyRecipe, NeverOversellsInAnyGeneratedSale, ()) {
  const oversim::protocols::Scenario s = *oversim::gen::scenario("my_recipe");
  const oversim::properties::RunResult r = oversim::properties::run_checked(s);
  RC_ASSERT_FALSE(r.result("no_oversell").violated);
  RC_ASSERT_FALSE(r.result("no_duplicate_order").violated);
}

TEST(MyRecipeTrustingLock, TheHarnessCatchesIt) {
  const ::testing::AssertionResult verdict = oversim::testing::design_holds("my_recipe_trusting_lock", {"no_oversell"}, Sweep().under("gc-pause").seeds(40));
  EXPECT_FALSE(verdict) << "the broken variant held: the sweep that passes my_recipe would not catch it";
}

TEST(MyRecipeTrustingLock, DISABLED_Oversells) {
  EXPECT_DESIGN_HOLDS("my_recipe_trusting_lock", {"no_oversell"}, Sweep().under("gc-pause").seeds(40));
}

}  // namespace
