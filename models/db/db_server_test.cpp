// Stories of the simulated PostgreSQL server and its client pool: concurrent buyers on the last
// unit, the guards that hold (conditional UPDATE, FOR UPDATE, UNIQUE, CHECK) and the one that
// does not (read-then-write), lock timeouts, deadlocks, pool exhaustion, crashes and the
// ambiguous commit. The network is a fixed 100us each way so times are exact.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "models/db/db_client.h"
#include "models/db/db_server.h"
#include "sim/network.h"
#include "sim/sync.h"
#include "sim/world.h"

namespace oversim::db {
namespace {
using namespace sim::literals;
using sim::Instant;

constexpr Instant at(sim::Duration d) { return Instant::zero() + d; }

// `UPDATE stock SET available = available - 1, version = version + 1 WHERE sku_id = ?
//  AND available >= 1`: the article's conditional decrement.
UpdateStock conditional_decrement(const std::string& sku) {
  UpdateStock u;
  u.sku = sku;
  u.bump_version = true;
  u.available_at_least = 1;
  return u;
}
UpdateStock set_available(const std::string& sku, int64_t value) {
  UpdateStock u;
  u.sku = sku;
  u.change = SetAvailable{value};
  return u;
}
UpdateStock unconditional_decrement(const std::string& sku, int64_t n) {
  UpdateStock u;
  u.sku = sku;
  u.change = Decrement{n};
  return u;
}
InsertOrder order(const std::string& order_id, const std::string& user) {
  return InsertOrder{OrderRow{order_id, user, "sku1", "act1", fmt::format("req-{}", order_id), "pending"}};
}

DbServerConfig stock(std::map<std::string, int64_t> rows) {
  DbServerConfig config;
  config.stock = std::move(rows);
  return config;
}

// One DB node and two app nodes with a pool each.
struct Fixture {
  sim::World w;
  DbServer db;
  sim::Node& app1;
  sim::Node& app2;
  DbPool pool1;
  DbPool pool2;

  explicit Fixture(DbServerConfig config = stock({{"sku1", 1}}), DbPoolConfig pool = {},
                   uint64_t seed = 7)
      : w(sim::WorldConfig{.seed = seed}),
        db(w, std::move(config)),
        app1(w.add_node("app-1")),
        app2(w.add_node("app-2")),
        pool1(w, app1, pool),
        pool2(w, app2, pool) {
    w.network().config().latency = sim::LatencyModel{100_us, 100_us, sim::Ratio::never(), 100_us, std::nullopt};
  }
  int64_t available(const std::string& sku = "sku1") const {
    return db.state().committed_stock(sku).value().available;
  }
  size_t orders() const { return db.state().committed_orders().size(); }
  // The "sql" trace events, as "txnN: <sql> -> <result>".
  std::vector<std::string> sql() const {
    std::vector<std::string> lines;
    for (const sim::TraceEvent& e : w.trace_log().events()) {
      if (e.kind != "sql") continue;
      lines.push_back(fmt::format("{}: {} -> {}", e.fields.at(0).value, e.fields.at(1).value,
                                  e.fields.at(2).value));
    }
    return lines;
  }
  bool traced(const std::string& needle) const {
    const auto lines = sql();
    return std::any_of(lines.begin(), lines.end(),
                       [&](const std::string& l) { return l.find(needle) != std::string::npos; });
  }
};

TEST(DbServer, TwoConcurrentConditionalDecrementsOnTheLastUnitSellItOnce) {
  // Two app nodes run the article's step 3 at the same instant. The second UPDATE waits for the
  // first one's row lock; after the COMMIT, PostgreSQL re-checks its WHERE against the new row
  // version (available 0) and it updates nothing.
  Fixture f;
  std::vector<int64_t> rows;
  for (auto [node, pool, user] : {std::tuple{&f.app1, &f.pool1, "u1"}, {&f.app2, &f.pool2, "u2"}}) {
    f.w.spawn(node, user, [&rows, pool = pool, user = std::string(user)] {
      auto c = pool->acquire().value();
      ASSERT_TRUE(c.begin().ok());
      DbCall update = c.execute(conditional_decrement("sku1"));
      ASSERT_TRUE(update.ok()) << to_string(update);
      rows.push_back(update.rows());
      if (update.rows() == 1) {
        ASSERT_TRUE(c.execute(order(fmt::format("o-{}", user), user)).ok());
      }
      ASSERT_TRUE(c.commit().ok());
    });
  }
  ASSERT_EQ(f.w.run().status, sim::RunStatus::completed);
  std::sort(rows.begin(), rows.end());
  EXPECT_EQ(rows, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(f.available(), 0);
  EXPECT_EQ(f.db.state().committed_stock("sku1")->version, 1);
  EXPECT_EQ(f.orders(), 1u);
  EXPECT_TRUE(f.traced("(waiting for transaction"));  // the second one really waited
  EXPECT_TRUE(f.traced("UPDATE stock SET available = available - 1, version = version + 1 "
                       "WHERE sku_id = 'sku1' AND available >= 1 -> UPDATE 0"));
}

TEST(DbServer, ReadThenWriteUnderReadCommittedLosesAnUpdateAndOversells) {
  // Both buyers SELECT available = 1, compute 0 in the application and write it back. The
  // second UPDATE waits for the first, then overwrites it: nothing in its WHERE re-checks stock.
  Fixture f;
  for (auto [node, pool, user] : {std::tuple{&f.app1, &f.pool1, "u1"}, {&f.app2, &f.pool2, "u2"}}) {
    f.w.spawn(node, user, [pool = pool, user = std::string(user)] {
      auto c = pool->acquire().value();
      ASSERT_TRUE(c.begin().ok());
      DbCall read = c.execute(SelectStock{"sku1"});
      ASSERT_EQ(read.result.stock_rows.size(), 1u);
      const int64_t seen = read.result.stock_rows[0].available;
      ASSERT_EQ(seen, 1);
      ASSERT_EQ(c.execute(set_available("sku1", seen - 1)).rows(), 1);
      ASSERT_TRUE(c.execute(order(fmt::format("o-{}", user), user)).ok());
      ASSERT_TRUE(c.commit().ok());
    });
  }
  ASSERT_EQ(f.w.run().status, sim::RunStatus::completed);
  EXPECT_EQ(f.available(), 0);
  EXPECT_EQ(f.orders(), 2u);  // two units sold out of one: oversell
}

TEST(DbServer, SelectForUpdateSerializesTheBuyersAndTheSecondSellsNothing) {
  Fixture f;
  std::vector<int64_t> seen;
  for (auto [node, pool, user] : {std::tuple{&f.app1, &f.pool1, "u1"}, {&f.app2, &f.pool2, "u2"}}) {
    f.w.spawn(node, user, [&seen, pool = pool, user = std::string(user)] {
      auto c = pool->acquire().value();
      ASSERT_TRUE(c.begin().ok());
      DbCall read = c.execute(SelectStock{"sku1", /*for_update=*/true});
      ASSERT_TRUE(read.ok()) << to_string(read);
      const int64_t available = read.result.stock_rows.at(0).available;
      seen.push_back(available);
      if (available >= 1) {
        ASSERT_EQ(c.execute(set_available("sku1", available - 1)).rows(), 1);
        ASSERT_TRUE(c.execute(order(fmt::format("o-{}", user), user)).ok());
      }
      ASSERT_TRUE(c.commit().ok());
    });
  }
  ASSERT_EQ(f.w.run().status, sim::RunStatus::completed);
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(f.available(), 0);
  EXPECT_EQ(f.orders(), 1u);
}

TEST(DbServer, TheUniqueIndexRejectsASecondOrderOfTheSameUserSkuAndActivity) {
  // A double click: two requests of user u1 insert concurrently. The second INSERT waits on the
  // first one's in-progress key, then fails when it commits.
  Fixture f(stock({{"sku1", 5}}));
  std::vector<std::string> results;
  for (auto [node, pool, id] : {std::tuple{&f.app1, &f.pool1, "o1"}, {&f.app2, &f.pool2, "o2"}}) {
    f.w.spawn(node, id, [&results, pool = pool, id = std::string(id)] {
      auto c = pool->acquire().value();
      ASSERT_TRUE(c.begin().ok());
      DbCall insert = c.execute(order(id, "u1"));
      results.push_back(to_string(insert));
      DbCall commit = c.commit();
      EXPECT_EQ(to_string(commit), insert.ok() ? "COMMIT" : "ROLLBACK");
    });
  }
  ASSERT_EQ(f.w.run().status, sim::RunStatus::completed);
  std::sort(results.begin(), results.end());
  EXPECT_EQ(results, (std::vector<std::string>{
                         "ERROR: duplicate key value violates unique constraint "
                         "\"orders_user_sku_activity_key\"",
                         "INSERT 0 1"}));
  EXPECT_EQ(f.orders(), 1u);
}

TEST(DbServer, TheCheckConstraintRejectsANegativeStock) {
  Fixture f;
  DbCall call;
  f.w.spawn(&f.app1, "buyer", [&] {
    auto c = f.pool1.acquire().value();
    call = c.autocommit(unconditional_decrement("sku1", 2));
  });
  ASSERT_EQ(f.w.run().status, sim::RunStatus::completed);
  EXPECT_EQ(call.status, CallStatus::ok);
  EXPECT_EQ(call.result.kind, Outcome::CheckViolation);
  EXPECT_EQ(call.result.constraint, "stock_available_check");
  EXPECT_EQ(f.available(), 1);
}

TEST(DbServer, ALockWaitLongerThanLockTimeoutFailsWithLockTimeout) {
  // The holder keeps the row locked across a 3s remote call; the waiter gives up after the
  // server's lock_timeout (2s) and its transaction is aborted.
  Fixture f;
  DbCall waited;
  DbCall after;
  Instant sent;
  Instant answered;
  f.w.spawn(&f.app1, "holder", [&] {
    auto c = f.pool1.acquire().value();
    ASSERT_TRUE(c.begin().ok());
    ASSERT_EQ(c.execute(conditional_decrement("sku1")).rows(), 1);
    sim::sleep_for(3_s);
    ASSERT_TRUE(c.commit().ok());
  });
  f.w.spawn(&f.app2, "waiter", [&] {
    sim::sleep_for(10_ms);
    auto c = f.pool2.acquire().value();
    ASSERT_TRUE(c.begin().ok());
    sent = sim::now();
    waited = c.execute(conditional_decrement("sku1"));
    answered = sim::now();
    after = c.commit();
  });
  ASSERT_EQ(f.w.run().status, sim::RunStatus::completed);
  EXPECT_EQ(waited.result.kind, Outcome::LockTimeout);
  // 100us there, 300us of UPDATE, 2s of waiting, 100us back.
  EXPECT_EQ(answered - sent, 2_s + 500_us);
  EXPECT_EQ(to_string(after), "ROLLBACK");
  EXPECT_EQ(f.available(), 0);
}

TEST(DbServer, ADeadlockIsDetectedAfterDeadlockTimeoutAndTheFirstWaiterIsTheVictim) {
  // T1 locks sku1 then wants sku2; T2 locks sku2 then wants sku1, 1ms later. Nobody notices for
  // deadlock_timeout; then T1, whose timer fires first, finds the cycle and is aborted, and T2
  // gets its row at once.
  Fixture f(stock({{"sku1", 5}, {"sku2", 5}}));
  DbCall t1;
  DbCall t2;
  Instant t1_sent, t1_done, t2_done;
  auto run = [](DbPool& pool, const char* first, const char* second, sim::Duration delay,
                  DbCall& out, Instant& sent, Instant& done) {
    auto c = pool.acquire().value();
    ASSERT_TRUE(c.begin().ok());
    ASSERT_EQ(c.execute(conditional_decrement(first)).rows(), 1);
    sim::sleep_for(delay);
    sent = sim::now();
    out = c.execute(conditional_decrement(second));
    done = sim::now();
    if (out.ok()) {
      ASSERT_TRUE(c.commit().ok());
    } else {
      ASSERT_TRUE(c.rollback().ok());
    }
  };
  Instant t2_sent;
  f.w.spawn(&f.app1, "t1", [&] { run(f.pool1, "sku1", "sku2", 5_ms, t1, t1_sent, t1_done); });
  f.w.spawn(&f.app2, "t2", [&] { run(f.pool2, "sku2", "sku1", 6_ms, t2, t2_sent, t2_done); });
  ASSERT_EQ(f.w.run().status, sim::RunStatus::completed);
  EXPECT_EQ(t1.result.kind, Outcome::DeadlockDetected);
  EXPECT_EQ(t2.rows(), 1);
  EXPECT_EQ(t1_done - t1_sent, 1_s + 500_us);  // detected only after deadlock_timeout
  EXPECT_EQ(t2_done, t1_done);                 // the victim's abort released sku1 at once
  EXPECT_EQ(f.available("sku1"), 4);
  EXPECT_EQ(f.available("sku2"), 4);
}

TEST(DbServer, AnExhaustedPoolTimesOutAcquireWhileConnectionsAreHeldAcrossASlowCall) {
  // Pool of 2. Two requests lock their SKU's row with FOR UPDATE and then make a 2s remote call
  // inside the transaction: a third request cannot even get a connection within 500ms.
  DbPoolConfig pool;
  pool.size = 2;
  pool.acquire_timeout = 500_ms;
  Fixture f(stock({{"sku1", 10}, {"sku2", 10}}), pool);
  for (const char* sku : {"sku1", "sku2"}) {
    f.w.spawn(&f.app1, fmt::format("slow-{}", sku), [&f, sku = std::string(sku)] {
      auto c = f.pool1.acquire().value();
      ASSERT_TRUE(c.begin().ok());
      ASSERT_TRUE(c.execute(SelectStock{sku, true}).ok());
      sim::sleep_for(2_s);  // the remote call, inside the transaction
      ASSERT_TRUE(c.commit().ok());
    });
  }
  bool third_got_one = true;
  Instant third_gave_up;
  f.w.spawn(&f.app1, "third", [&] {
    sim::sleep_for(10_ms);
    third_got_one = f.pool1.acquire().has_value();
    third_gave_up = sim::now();
  });
  ASSERT_EQ(f.w.run().status, sim::RunStatus::completed);
  EXPECT_FALSE(third_got_one);
  EXPECT_EQ(third_gave_up, at(510_ms));
  EXPECT_EQ(f.pool1.acquire_timeouts(), 1u);
  EXPECT_EQ(f.pool1.in_use(), 0u);
}

TEST(DbServer, ADbCrashAbortsAnInFlightTransactionWhileCommittedRowsSurviveTheRestart) {
  Fixture f(stock({{"sku1", 5}}));
  DbCall late_commit;
  f.w.spawn(&f.app1, "committed", [&] {
    auto c = f.pool1.acquire().value();
    ASSERT_EQ(c.autocommit(conditional_decrement("sku1")).rows(), 1);
  });
  f.w.spawn(&f.app2, "in-flight", [&] {
    sim::sleep_for(10_ms);
    auto c = f.pool2.acquire().value();
    ASSERT_TRUE(c.begin().ok());
    ASSERT_EQ(c.execute(conditional_decrement("sku1")).rows(), 1);
    sim::sleep_for(100_ms);  // the DB crashes and restarts meanwhile
    late_commit = c.commit();
  });
  f.w.at(at(50_ms), [&] { f.w.crash(f.db.node()); });
  f.w.at(at(60_ms), [&] { f.w.restart(f.db.node()); });
  ASSERT_EQ(f.w.run().status, sim::RunStatus::completed);
  // The server answers (it is back up) but the transaction is gone: a clear failure.
  EXPECT_EQ(late_commit.status, CallStatus::ok);
  EXPECT_EQ(late_commit.result.kind, Outcome::NoTransaction);
  EXPECT_EQ(f.available(), 4);
  EXPECT_EQ(f.db.state().committed_stock("sku1")->version, 1);
  EXPECT_TRUE(f.db.state().in_flight().empty());
}

TEST(DbServer, ACommitWhoseReplyIsLostIsAmbiguousAlthoughItApplied) {
  // The db->app link is cut just before COMMIT: the commit applies, the answer never arrives.
  Fixture f;
  DbCall commit;
  DbCall next;
  f.w.spawn(&f.app1, "buyer", [&] {
    auto c = f.pool1.acquire().value();
    ASSERT_TRUE(c.begin().ok());
    ASSERT_EQ(c.execute(conditional_decrement("sku1")).rows(), 1);
    ASSERT_TRUE(c.execute(order("o1", "u1")).ok());
    f.w.network().cut(f.db.node().id(), f.app1.id());
    commit = c.commit();
    next = c.execute(SelectStock{"sku1"});  // the driver closed the connection
    sim::sleep_for(1_ms);                   // let the close arrive
  });
  ASSERT_EQ(f.w.run().status, sim::RunStatus::completed);
  EXPECT_TRUE(commit.ambiguous());
  EXPECT_EQ(next.status, CallStatus::closed);
  EXPECT_EQ(f.available(), 0);  // it did apply
  EXPECT_EQ(f.orders(), 1u);
  EXPECT_EQ(f.db.sessions(), 0u);  // the close reached the server over the intact app->db link
}

TEST(DbServer, AClientCrashReleasesItsLocksOnceTheServerNoticesTheClosedSocket) {
  Fixture f;
  DbCall waiter;
  Instant done;
  f.w.spawn(&f.app1, "holder", [&] {
    auto c = f.pool1.acquire().value();
    ASSERT_TRUE(c.begin().ok());
    ASSERT_EQ(c.execute(conditional_decrement("sku1")).rows(), 1);
    sim::sleep_for(10_s);  // never reached: the node crashes at 5ms
  });
  f.w.spawn(&f.app2, "waiter", [&] {
    sim::sleep_for(2_ms);
    auto c = f.pool2.acquire().value();
    waiter = c.autocommit(conditional_decrement("sku1"));
    done = sim::now();
  });
  f.w.at(at(5_ms), [&] { f.w.crash(f.app1); });
  ASSERT_EQ(f.w.run().status, sim::RunStatus::completed);
  EXPECT_EQ(waiter.rows(), 1);  // the dead buyer's decrement was rolled back
  EXPECT_EQ(f.available(), 0);
  EXPECT_LE(done, at(8_ms));  // noticed within client_check_interval (1ms), plus the commit
  EXPECT_TRUE(f.traced("ROLLBACK: client process died"));
}

TEST(DbServer, RepeatableReadTurnsTheSecondConcurrentUpdateIntoASerializationFailure) {
  Fixture f;
  std::vector<std::string> results;
  for (auto [node, pool] : {std::pair{&f.app1, &f.pool1}, {&f.app2, &f.pool2}}) {
    f.w.spawn(node, "buyer", [&results, pool = pool] {
      auto c = pool->acquire().value();
      ASSERT_TRUE(c.begin(IsolationLevel::RepeatableRead).ok());
      results.push_back(to_string(c.execute(conditional_decrement("sku1"))));
      c.commit();
    });
  }
  ASSERT_EQ(f.w.run().status, sim::RunStatus::completed);
  std::sort(results.begin(), results.end());
  EXPECT_EQ(results, (std::vector<std::string>{
                         "ERROR: could not serialize access due to concurrent update",
                         "UPDATE 1"}));
  EXPECT_EQ(f.available(), 0);
}

TEST(DbServer, MaxConnectionsRefusesASessionBeyondTheLimit) {
  DbServerConfig config = stock({{"sku1", 5}});
  config.max_connections = 1;
  Fixture f(config);
  std::vector<CallStatus> statuses;
  for (auto [node, pool] : {std::pair{&f.app1, &f.pool1}, {&f.app2, &f.pool2}}) {
    f.w.spawn(node, "buyer", [&statuses, pool = pool] {
      auto c = pool->acquire().value();
      statuses.push_back(c.begin().status);
      sim::sleep_for(10_ms);
    });
  }
  ASSERT_EQ(f.w.run().status, sim::RunStatus::completed);
  std::sort(statuses.begin(), statuses.end());
  EXPECT_EQ(statuses, (std::vector<CallStatus>{CallStatus::ok, CallStatus::refused}));
}

TEST(DbServer, TheSameSeedReplaysTheSameRun) {
  auto once = [](uint64_t seed) {
    Fixture f(stock({{"sku1", 1}}), {}, seed);
    for (auto [node, pool] : {std::pair{&f.app1, &f.pool1}, {&f.app2, &f.pool2}}) {
      f.w.spawn(node, "buyer", [pool = pool] {
        auto c = pool->acquire().value();
        c.begin();
        c.execute(conditional_decrement("sku1"));
        c.commit();
      });
    }
    return f.w.run().hash();
  };
  EXPECT_EQ(once(3), once(3));
}

}  // namespace
}  // namespace oversim::db
