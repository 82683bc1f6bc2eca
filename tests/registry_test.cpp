// Designs registered from outside the tree (protocols/registry.h): a well-formed one joins the
// built-in ones and runs as they do; a bad or taken name, or no purchase function, is refused
// and listed for oversim_main() to report. Its own binary: a registration is for the process.
#include <gtest/gtest.h>

#include "properties/checker.h"
#include "protocols/registry.h"
#include "protocols/steps.h"

namespace oversim {
namespace {

protocols::BuyResult buy(protocols::BuyContext& ctx) {
  std::optional<db::DbConnection> conn = ctx.db().acquire();
  if (!conn) return ctx.outcome(protocols::BuyResult::busy);
  conn->begin();
  db::DbCall take = conn->execute(db::UpdateStock::on(ctx.sku).decrement(1).where_available_at_least(1));
  if (!take.ok()) return ctx.outcome(protocols::failure_of(take));
  if (take.rows() == 0) return ctx.outcome(protocols::BuyResult::sold_out);
  return protocols::insert_order_and_commit(ctx, *conn);
}

const protocols::Design kOurs{"registry_test_design", "a test's own design", "holds no_oversell", buy, {}, {}, {},
                              protocols::Steps{.decrement = protocols::Steps::Decrement::conditional}};
const protocols::Design kTaken{"db_conditional_update", "a second design of a built-in name", "-", buy, {}, {}};
const protocols::Design kBadName{"Not-A-Name", "a name no flag could carry", "-", buy, {}, {}};
const protocols::Design kNoBuy{"registry_test_no_buy", "nothing to run", "-", nullptr, {}, {}};
OVERSIM_REGISTER_DESIGN(kOurs);

TEST(Registry, ARegisteredDesignRunsAsABuiltInOne) {
  const size_t built_in = protocols::designs().size() - 1;
  ASSERT_EQ(protocols::find_design("registry_test_design"), &kOurs);
  EXPECT_EQ(protocols::designs().back(), &kOurs);
  EXPECT_GT(built_in, 30u);
  protocols::Scenario s;
  s.design = "registry_test_design";
  s.seed = 3;
  const properties::RunResult r = properties::run_checked(s);
  EXPECT_FALSE(r.result("no_oversell").violated);
  EXPECT_GT(r.orders, 0);
  EXPECT_EQ(properties::reproduce_command(s).rfind("oversim run --variant registry_test_design --seed 3", 0), 0u) << properties::reproduce_command(s);
  EXPECT_TRUE(protocols::registration_problems().empty());
}

TEST(Registry, ABadOrTakenNameOrNoPurchaseIsRefusedAndListed) {
  const size_t before = protocols::designs().size();
  protocols::register_design(kTaken);
  protocols::register_design(kBadName);
  protocols::register_design(kNoBuy);
  protocols::register_design(kOurs);
  EXPECT_EQ(protocols::designs().size(), before);
  EXPECT_NE(protocols::find_design("db_conditional_update"), &kTaken);
  const std::vector<std::string>& p = protocols::registration_problems();
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0], "a second design named 'db_conditional_update' was registered: design names are unique");
  EXPECT_EQ(p[1], "a design registered as 'Not-A-Name': a design's name is lower-case letters, digits and '_'");
  EXPECT_EQ(p[2], "design 'registry_test_no_buy' was registered without a purchase function (Design::buy)");
  EXPECT_EQ(p[3], "a second design named 'registry_test_design' was registered: design names are unique");
}

TEST(Registry, AUserProgramsReproduceLineRebuildsItFirst) {
  protocols::Scenario s;
  s.design = "registry_test_design";
  s.seed = 9;
  properties::set_reproduce_program("build/my_checks", "cmake --build build --target my_checks");
  const std::string line = properties::reproduce_command(s);
  properties::set_reproduce_program("oversim");
  EXPECT_EQ(line.rfind("cmake --build build --target my_checks && build/my_checks run --variant registry_test_design --seed 9", 0), 0u) << line;
  EXPECT_EQ(properties::reproduce_command(s).rfind("oversim run --variant", 0), 0u);
}

}  // namespace
}  // namespace oversim
