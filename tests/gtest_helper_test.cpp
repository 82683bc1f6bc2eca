// The GoogleTest helper a user's own tests call (properties/gtest.h): a sweep as one assertion.
// It passes where check holds, fails with the shrunk counterexample's witness and a reproduce
// command that replays it, and fails a sweep that tested nothing.
#include <gtest/gtest.h>

#include "properties/gtest.h"

namespace oversim {
namespace {

TEST(GtestHelper, TheConditionalDecrementHoldsUnderGcPause) {
  EXPECT_DESIGN_HOLDS("redis_lock_conditional", {"no_oversell"}, testing::Sweep().under("gc-pause").seeds(20).require({"lease_expired_while_held"}));
}

TEST(GtestHelper, ReadThenWriteFailsWithItsShrunkWitnessAndAReproduceCommand) {
  const ::testing::AssertionResult r = testing::design_holds("redis_lock_read_modify_write", {"no_oversell"}, testing::Sweep().under("gc-pause").seeds(20));
  ASSERT_FALSE(r);
  const std::string message = r.message();
  EXPECT_NE(message.find("redis_lock_read_modify_write under gc-pause, seeds 1..20: VIOLATED at seed "), std::string::npos) << message;
  EXPECT_NE(message.find("\n  no_oversell: sku1: "), std::string::npos) << message;
  const size_t at = message.find("\n  reproduce: oversim run --variant redis_lock_read_modify_write --seed ");
  ASSERT_NE(at, std::string::npos) << message;
  EXPECT_EQ(message.find("--properties no_oversell", at) != std::string::npos, true) << message;
}

TEST(GtestHelper, ASweepThatTestedNothingFails) {
  const ::testing::AssertionResult vacuous =
      testing::design_holds("redis_lock_conditional", {"no_oversell"}, testing::Sweep().seeds(5).require({"lease_expired_while_held"}));
  ASSERT_FALSE(vacuous);
  EXPECT_NE(std::string(vacuous.message()).find("vacuous (never reached: lease_expired_while_held)"), std::string::npos) << vacuous.message();
  const ::testing::AssertionResult unfired =
      testing::design_holds("db_conditional_update", {}, testing::Sweep().under("on 99th before_commit pause here for 1s").seeds(3));
  ASSERT_FALSE(unfired);
  EXPECT_NE(std::string(unfired.message()).find("unfired"), std::string::npos) << unfired.message();
  EXPECT_FALSE(testing::design_holds("no_such_design", {}, testing::Sweep()));
  EXPECT_FALSE(testing::design_holds("db_conditional_update", {}, testing::Sweep().under("at soon crash db")));
}

}  // namespace
}  // namespace oversim
