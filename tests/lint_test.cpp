// `oversim lint`: the checklist flags the configuration that cannot work, passes the article's
// recipe at its own defaults, and answers only from declarations that are true: every design's
// declared steps are checked here against the statements and commands one run of it sends.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <string>

#include "properties/checker.h"
#include "properties/lint.h"
#include "protocols/registry.h"

namespace oversim {
namespace {
using namespace sim::literals;
using properties::LintItem;
using properties::LintLevel;
using protocols::Steps;

LintItem item(const std::vector<LintItem>& items, const std::string& id) {
  for (const LintItem& it : items) {
    if (it.id == id) return it;
  }
  throw std::logic_error("no lint item " + id);
}

// The article's first checklist item: a 500ms lease under an 800ms call expires in every
// purchase. And the same harness backs it: every run of that sale breaks mutual exclusion.
TEST(Lint, FlagsALeaseShorterThanTheCallInsideIt) {
  protocols::Workload w;
  w.remote_call = 800_ms;
  w.gateway_timeout = 5_s;
  for (const char* design : {"redis_lock_conditional", "redlock_conditional", "article_recipe"}) {
    const LintItem lease = item(properties::lint(*protocols::find_design(design), w), "lease");
    EXPECT_EQ(lease.level, LintLevel::fail) << design;
    EXPECT_NE(lease.answer.find("--lock-ttl 500ms is not above the critical section's p99 (800ms"), std::string::npos) << lease.answer;
    EXPECT_EQ(lease.property, "lock_mutual_exclusion");
  }
  protocols::Scenario s;
  s.design = "redis_lock_conditional";
  s.workload = w;
  const properties::RunResult r = properties::run_checked(s);
  EXPECT_TRUE(r.result("lock_mutual_exclusion").violated);
  EXPECT_FALSE(r.result("no_oversell").violated);  // the conditional decrement still holds

  // Under twice the call it warns; at twice or more it passes; a watchdog renews the lease.
  w.lock_ttl = 1200_ms;
  EXPECT_EQ(item(properties::lint(*protocols::find_design("redis_lock_conditional"), w), "lease").level, LintLevel::warn);
  w.lock_ttl = 1600_ms;
  EXPECT_EQ(item(properties::lint(*protocols::find_design("redis_lock_conditional"), w), "lease").level, LintLevel::ok);
  w.lock_ttl = 500_ms;
  EXPECT_EQ(item(properties::lint(*protocols::find_design("redis_lock_watchdog"), w), "lease").level, LintLevel::ok);
  // A ZooKeeper lock has no lease to outlast.
  EXPECT_EQ(item(properties::lint(*protocols::find_design("zk_lock_conditional"), w), "lease").level, LintLevel::na);
}

TEST(Lint, PassesTheArticlesRecipeAtItsOwnDefaults) {
  for (const LintItem& it : properties::lint(*protocols::find_design("article_recipe"), protocols::Workload{})) {
    EXPECT_NE(it.level, LintLevel::fail) << it.id << ": " << it.answer;
    EXPECT_NE(it.level, LintLevel::warn) << it.id << ": " << it.answer;
  }
}

TEST(Lint, AnswersFollowTheSettings) {
  const protocols::Design& relative = *protocols::find_design("db_decrement_checked");
  protocols::Workload w;
  EXPECT_EQ(item(properties::lint(relative, w), "decrement").level, LintLevel::warn);
  w.db_check = false;
  EXPECT_EQ(item(properties::lint(relative, w), "decrement").level, LintLevel::fail);
  // A design's required settings are part of its sale.
  EXPECT_EQ(item(properties::lint(*protocols::find_design("db_decrement_mysql57"), protocols::Workload{}), "decrement").level, LintLevel::fail);
  // RedLock keeps its locks across a restart only with appendfsync always.
  const protocols::Design& redlock = *protocols::find_design("redlock_read_modify_write");
  protocols::Workload durable;
  EXPECT_EQ(item(properties::lint(redlock, durable), "failover").level, LintLevel::fail);
  durable.redis_persistence = protocols::RedisPersistence::always;
  EXPECT_EQ(item(properties::lint(redlock, durable), "failover").level, LintLevel::ok);
  protocols::Workload deaf;
  deaf.remote_call = 400_ms;
  EXPECT_EQ(item(properties::lint(redlock, deaf), "gateway").level, LintLevel::fail);
}

// What one run of a design sends, against what it declares.
struct Sent {
  std::vector<std::string> sql, redis, zk;
  bool sql_has(const std::string& re) const {
    return std::any_of(sql.begin(), sql.end(), [&](const std::string& s) { return std::regex_search(s, std::regex(re)); });
  }
  bool redis_has(const std::string& re) const {
    return std::any_of(redis.begin(), redis.end(), [&](const std::string& s) { return std::regex_search(s, std::regex(re)); });
  }
};

Sent sent(const std::string& design) {
  protocols::Scenario s;
  s.design = design;
  s.workload.buyers = 1;
  s.workload.stock = 1;
  s.workload.remote_call = 400_ms;  // long enough for a watchdog to renew
  s.workload.lock_ttl = 1_s;
  s.workload.gateway_timeout = 5_s;
  const properties::RunResult r = properties::run_checked(s);
  Sent out;
  for (const auto& e : r.events) {
    for (const auto& f : e.fields) {
      if (e.kind == "sql" && f.key == "sql") out.sql.push_back(f.value);
      if (e.kind == "redis" && f.key == "cmd") out.redis.push_back(f.value);
      if (e.kind == "zk" && f.key == "cmd") out.zk.push_back(f.value);
    }
  }
  return out;
}

TEST(Lint, EveryDesignDeclaresTheStepsItTakes) {
  for (const protocols::Design* d : protocols::designs()) {
    SCOPED_TRACE(d->name);
    const Sent s = sent(d->name);
    ASSERT_TRUE(s.sql_has("^UPDATE stock")) << "no stock write";
    const bool claim = s.sql_has("^UPDATE stock SET available = available - 0, fence = [0-9]+ WHERE .* AND fence < ");
    const bool literal = s.sql_has("^UPDATE stock SET available = [0-9]+");
    const bool relative = s.sql_has("^UPDATE stock SET available = available - 1");
    const bool conditional = s.sql_has("^UPDATE stock .* AND available >= 1");
    const bool versioned = s.sql_has("^UPDATE stock .* AND version = [0-9]+");
    const bool for_update = s.sql_has("FOR UPDATE$");
    switch (d->steps.decrement) {
      case Steps::Decrement::fenced: EXPECT_TRUE(claim); break;
      case Steps::Decrement::literal: EXPECT_TRUE(literal && !claim); break;
      case Steps::Decrement::versioned: EXPECT_TRUE(versioned); break;
      case Steps::Decrement::conditional: EXPECT_TRUE(conditional && !versioned); break;
      case Steps::Decrement::row_locked: EXPECT_TRUE(relative && !conditional && for_update); break;
      case Steps::Decrement::relative: EXPECT_TRUE(relative && !conditional && !for_update); break;
    }
    const bool zookeeper = !s.zk.empty();
    if (!d->services.empty()) {
      switch (d->steps.release) {
        case Steps::Release::token_compare: EXPECT_TRUE(s.redis_has("^EVAL del_if_equals lock:") && !s.redis_has("^DEL lock:")); break;
        case Steps::Release::plain_del: EXPECT_TRUE(s.redis_has("^DEL lock:")); break;
        case Steps::Release::own_node: EXPECT_TRUE(zookeeper); break;
      }
    }
    EXPECT_EQ(d->steps.renews_lease, s.redis_has("^EVAL pexpire_if_equals lock:"));
    EXPECT_EQ(d->steps.idempotency_key, s.redis_has("^SET idem:"));
    EXPECT_EQ(d->steps.ledger, s.sql_has("^INSERT INTO inventory_ledger"));
  }
}

}  // namespace
}  // namespace oversim
