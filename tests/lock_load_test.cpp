// A run says when its lock service was overloaded: every lock-service node's load (the requests
// in its busiest whole second against the most it serves, and the longest a request queued)
// travels from the model through Service::loads into RunResult::lock_loads, and `run` prints
// the nodes that some second brought 80% or more of what they serve.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "properties/checker.h"

namespace oversim {
namespace {
using namespace sim::literals;

std::vector<std::string> nodes(const properties::RunResult& r) {
  std::vector<std::string> out;
  for (const protocols::NodeLoad& l : r.lock_loads) out.push_back(l.node);
  return out;
}

// A thousand buyers poll tryLock every millisecond for up to a second: about a million requests
// a second offered to a primary that serves one per 10us. Each poller waits for its answer, so
// what reaches the primary is what it serves, and its queue holds a command per poller.
TEST(LockServiceLoad, APollingCrowdOverloadsTheRedisPrimaryAndTheRunSaysSo) {
  protocols::Scenario s;
  s.design = "redis_lock_conditional";
  s.workload.buyers = 1'000;
  s.workload.lock_retry = 1_ms;
  s.workload.lock_wait = 1_s;
  s.workload.patience = sim::Duration::zero();
  s.workload.gateway_timeout = 5_s;
  const properties::RunResult r = properties::run_checked(s);
  ASSERT_EQ(nodes(r), (std::vector<std::string>{"redis-1", "redis-2"}));
  const protocols::NodeLoad& primary = r.lock_loads[0];
  EXPECT_EQ(primary.service_time, 10_us);
  EXPECT_EQ(primary.serves_per_second(), 100'000u);
  EXPECT_TRUE(primary.overloaded());
  EXPECT_GE(primary.busiest_second_requests, 80'000u);
  EXPECT_EQ(primary.busiest_second, sim::Instant::zero());
  EXPECT_GT(primary.longest_wait, 1_ms);  // dozens of commands ahead of it in the queue
  EXPECT_GE(primary.requests, primary.busiest_second_requests);
  // The replica hears only the replication stream and Sentinel.
  EXPECT_FALSE(r.lock_loads[1].overloaded());

  // The mechanism is the polling: the same crowd failing fast (--lock-wait 0) asks once a click.
  s.workload.lock_wait = sim::Duration::zero();
  const properties::RunResult fast = properties::run_checked(s);
  ASSERT_EQ(nodes(fast), (std::vector<std::string>{"redis-1", "redis-2"}));
  EXPECT_FALSE(fast.lock_loads[0].overloaded());
  EXPECT_LT(fast.lock_loads[0].busiest_second_requests, 10'000u);
}

// The default sale (20 buyers, 5 units) on every kind of lock service: each node is listed, the
// primary (or every master, or the ensemble) did real work, and none comes near its capacity.
TEST(LockServiceLoad, AQuietSaleOverloadsNoNode) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> sales = {
      {"redis_lock_conditional", {"redis-1", "redis-2"}},
      {"redlock_conditional", {"redlock-1", "redlock-2", "redlock-3", "redlock-4", "redlock-5"}},
      {"zk_lock_conditional", {"zk-1", "zk-2", "zk-3"}},
  };
  for (const auto& [design, names] : sales) {
    SCOPED_TRACE(design);
    protocols::Scenario s;
    s.design = design;
    const properties::RunResult r = properties::run_checked(s);
    EXPECT_TRUE(r.result("sold_out").reached);
    ASSERT_EQ(nodes(r), names);
    uint64_t requests = 0;
    for (const protocols::NodeLoad& l : r.lock_loads) {
      EXPECT_FALSE(l.overloaded()) << l.node << ": " << l.busiest_second_requests << " in a second";
      EXPECT_GT(l.serves_per_second(), 0u);
      requests += l.requests;
    }
    EXPECT_GT(requests, 20u);
  }
  // A design without a lock service has no load to report.
  protocols::Scenario db;
  db.design = "db_conditional_update";
  EXPECT_TRUE(properties::run_checked(db).lock_loads.empty());
}

// The threshold: 80% of what the node serves in a second, rounded up.
TEST(LockServiceLoad, OverloadedMeansFourFifthsOfWhatTheNodeServes) {
  protocols::NodeLoad l;
  l.service_time = 10_us;
  l.busiest_second_requests = 79'999;
  EXPECT_FALSE(l.overloaded());
  l.busiest_second_requests = 80'000;
  EXPECT_TRUE(l.overloaded());
  l.service_time = sim::Duration::zero();  // a node the model gives no service time never falls behind
  EXPECT_FALSE(l.overloaded());
}

}  // namespace
}  // namespace oversim
