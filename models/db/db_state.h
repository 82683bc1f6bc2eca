// The pure PostgreSQL state machine: the parts of a relational database that decide whether a
// flash sale oversells. Synchronous and deterministic (ordered containers, no clock, no
// randomness); a simulated server node wraps it and gives each connection a fiber.
//
// What it models, following the PostgreSQL manual (13.2 Transaction Isolation, 13.3 Explicit
// Locking):
//   * MVCC: a transaction's writes stay private until commit; READ COMMITTED reads the latest
//     committed data with a new snapshot per statement, REPEATABLE READ reads the snapshot taken
//     at its first statement. A transaction always sees its own writes.
//   * Row locks: UPDATE and SELECT ... FOR UPDATE lock the row until the transaction ends. A
//     statement that needs a row locked by another transaction does not wait here: it returns
//     Outcome::Blocked naming the holder, and the server re-executes the same statement once
//     `waiting_for(txn)` is empty again (see `take_woken`). Re-executing under READ COMMITTED
//     takes a fresh snapshot, which for our single-row statements is exactly PostgreSQL's
//     EvalPlanQual: the WHERE is re-evaluated against the newly committed row version. That is
//     why `UPDATE ... WHERE available >= 1` stays safe while read-then-write loses updates.
//   * Deadlock detection on the wait-for graph: by default the statement that would close a
//     cycle fails with DeadlockDetected (the requester is the victim); with
//     DbConfig::defer_deadlock_detection (what the server and every sale use) the wait is
//     recorded and the server runs detect_deadlock() after deadlock_timeout, as PostgreSQL does.
//   * Constraints: CHECK (available >= 0) on stock, UNIQUE keys on orders; an insert whose key
//     is held by another in-flight insert blocks on that transaction, as PostgreSQL does.
//   * Errors abort the transaction the way PostgreSQL does: the writes are discarded and the
//     locks released at once, and every later statement gets "current transaction is aborted"
//     until the client sends ROLLBACK (COMMIT then answers ROLLBACK).
//   * crash(): the DB node dies; in-flight transactions vanish, committed data survives.
//
// Every statement touches at most one stock or order row, so statements are atomic here: a
// Blocked or failed statement changes nothing but the wait-for graph and the txn's state.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

namespace oversim::db {

// ---------------------------------------------------------------------------------------------
// Rows. C++ names are the domain words; the SQL columns are `sku_id`, `user_id`, ... because
// `user` is a reserved word in PostgreSQL.

// stock(sku_id text PRIMARY KEY, available bigint CHECK (available >= 0), version bigint,
//       fence bigint DEFAULT 0)
struct StockRow {
  std::string sku;
  int64_t available = 0;
  int64_t version = 0;
  // The highest fencing token this row has accepted; fencing designs update with
  // `SET fence = t WHERE fence < t` so a stale lock holder's write matches no row.
  int64_t fence = 0;
  bool operator==(const StockRow&) const = default;
};

// orders(order_id text PRIMARY KEY, user_id, sku_id, activity_id, request_id, status),
// UNIQUE (user_id, sku_id, activity_id), UNIQUE (request_id).
struct OrderRow {
  std::string order_id;
  std::string user;
  std::string sku;
  std::string activity;
  std::string request_id;
  std::string status;
  // created_at, as the application stamped it (its node's clock, ns); 0: not recorded. The order
  // lifecycle's timeout job (protocols/steps.h, cancel_expired_orders) reads it.
  int64_t created_ns = 0;
  bool operator==(const OrderRow&) const = default;
};

// inventory_ledger(order_id, sku_id, before, after, delta, at_ns): append-only, one row per
// stock movement, written by the application in the same transaction as the movement. By
// default it has no unique key (a ledger records what happened, duplicates included, so
// reconciliation can see a double compensation). DbConfig::ledger_unique_order_sign adds
// UNIQUE (order_id, sign(delta)), which makes "compensate once per order" a database guarantee.
struct LedgerRow {
  std::string order_id;
  std::string sku;
  int64_t before = 0;
  int64_t after = 0;
  int64_t delta = 0;
  int64_t at_ns = 0;  // virtual time the application stamped the movement with
  bool operator==(const LedgerRow&) const = default;
};

// ---------------------------------------------------------------------------------------------
// Statements as data, so a trace prints them as SQL and a test can build them without a parser.

// SELECT sku_id, available, version, fence FROM stock WHERE sku_id = ... [FOR UPDATE]
struct SelectStock {
  std::string sku;
  bool for_update = false;
};

// `available = available - n`: the conditional-decrement designs.
struct Decrement {
  int64_t n = 1;
};
// `available = <literal>`: the read-then-write designs, which compute the value in the client.
struct SetAvailable {
  int64_t value = 0;
};

// UPDATE stock SET <change>[, version = version + 1][, fence = t] WHERE sku_id = ...
//   [AND available >= k] [AND version = v] [AND fence < t] [RETURNING ...]
struct UpdateStock {
  std::string sku;
  std::variant<Decrement, SetAvailable> change = Decrement{1};
  bool bump_version = false;
  std::optional<int64_t> set_fence;           // SET fence = t
  std::optional<int64_t> available_at_least;  // WHERE available >= k
  std::optional<int64_t> version_equals;      // WHERE version = v
  std::optional<int64_t> fence_below;         // WHERE fence < t
  bool returning = false;                     // RETURNING the new row into Result::stock_rows

  // A builder that reads like the SQL it renders, for design code:
  //   UpdateStock::on(sku).decrement(1).bump().where_available_at_least(1)
  static UpdateStock on(std::string sku_id) {
    UpdateStock u;
    u.sku = std::move(sku_id);
    return u;
  }
  UpdateStock& decrement(int64_t n) { change = Decrement{n}; return *this; }
  UpdateStock& set_available_to(int64_t value) { change = SetAvailable{value}; return *this; }
  UpdateStock& bump() { bump_version = true; return *this; }
  UpdateStock& set_fence_to(int64_t t) { set_fence = t; return *this; }
  UpdateStock& where_available_at_least(int64_t k) { available_at_least = k; return *this; }
  UpdateStock& where_version(int64_t v) { version_equals = v; return *this; }
  UpdateStock& where_fence_below(int64_t t) { fence_below = t; return *this; }
  UpdateStock& returning_row() { returning = true; return *this; }
};

// UPDATE stock SET available = available + n [, version = version + 1] WHERE sku_id = ...
// Compensation: gives units back after a failed or cancelled order.
struct IncrementStock {
  std::string sku;
  int64_t n = 1;
  bool bump_version = false;
};

// INSERT INTO orders (...) VALUES (...)
struct InsertOrder {
  OrderRow row;
};

// SELECT ... FROM orders WHERE request_id = ...
struct SelectOrderByRequestId {
  std::string request_id;
};

// SELECT ... FROM orders WHERE order_id = ... (the primary key)
struct SelectOrderById {
  std::string order_id;
};

// SELECT ... FROM orders WHERE status = <status> AND created_at < t ORDER BY created_at,
// order_id LIMIT n: the order lifecycle's scans (the timeout job's pending orders, a
// reconciler's cancelled ones; no index: a scan of the table).
struct SelectOrdersByStatus {
  int64_t created_before_ns = 0;
  int64_t limit = 10;
  std::string status = "pending";
};

// SELECT ... FROM orders WHERE user_id = ... AND sku_id = ... AND activity_id = ...
struct SelectOrderByUserSkuActivity {
  std::string user;
  std::string sku;
  std::string activity;
};

// UPDATE orders SET status = ... WHERE order_id = ... [AND status = <expected>]
// The expected status makes a state-machine step (pending -> processing -> done) idempotent.
struct UpdateOrderStatus {
  std::string order_id;
  std::string status;
  std::optional<std::string> expected_status;
};

// INSERT INTO inventory_ledger (...) VALUES (...)
struct InsertLedger {
  LedgerRow row;
};

// SELECT ... FROM inventory_ledger WHERE sku_id = ... ORDER BY ledger_id (for reconciliation)
struct SelectLedger {
  std::string sku;
};

// SELECT count(*) FROM orders WHERE sku_id = ... [AND status = ...]
struct CountOrders {
  std::string sku;
  std::optional<std::string> status;
};

using Statement = std::variant<SelectStock, UpdateStock, IncrementStock, InsertOrder,
                               SelectOrderByRequestId, SelectOrderByUserSkuActivity,
                               UpdateOrderStatus, InsertLedger, SelectLedger, CountOrders,
                               SelectOrderById, SelectOrdersByStatus>;

// Real-looking SQL with literals inlined, e.g.
// "UPDATE stock SET available = available - 1, version = version + 1 WHERE sku_id = 'sku1'
//  AND available >= 1 AND version = 7".
std::string to_sql(const Statement& statement);
// The DDL the model implements, for docs and trace headers.
std::string schema_sql(bool ledger_unique_order_sign = false);

// ---------------------------------------------------------------------------------------------
// Transactions and results.

struct TxnId {
  int64_t value = 0;
  auto operator<=>(const TxnId&) const = default;
};
std::string to_string(TxnId txn);

enum class IsolationLevel { ReadCommitted, RepeatableRead };

enum class TxnState {
  Active,
  // An error aborted it: writes discarded, locks released; only ROLLBACK (or COMMIT, which
  // answers ROLLBACK) ends it.
  Failed,
};

enum class Outcome {
  Ok,
  Rollback,              // COMMIT of a failed transaction: it was rolled back instead
  Blocked,               // not an error: retry the same statement when the holder ends
  CheckViolation,        // 23514
  UniqueViolation,       // 23505
  LockTimeout,           // 55P03, produced by the server through DbState::lock_timeout
  DeadlockDetected,      // 40P01
  SerializationFailure,  // 40001
  InFailedTransaction,   // 25P02 "current transaction is aborted"
  NoTransaction,         // 25P01 unknown or ended txn id (for instance after crash())
};
std::string to_string(Outcome outcome);
// The SQLSTATE code of an error outcome; "00000" for Ok, Rollback and Blocked.
std::string sqlstate(Outcome outcome);
// True for outcomes that are errors (the statement failed), false for Ok, Rollback, Blocked.
bool is_error(Outcome outcome);

// The command tag PostgreSQL would answer with.
enum class Command { Select, Update, Insert, Commit, Rollback };

struct Result {
  Outcome kind = Outcome::Ok;
  Command command = Command::Select;
  int64_t rows_affected = 0;  // rows returned (SELECT), changed (UPDATE) or inserted (INSERT)
  std::optional<TxnId> blocked_on;  // set iff kind == Blocked
  std::string constraint;           // the violated constraint's name, for the two violations
  std::vector<StockRow> stock_rows;
  std::vector<OrderRow> order_rows;
  std::vector<LedgerRow> ledger_rows;
  std::optional<int64_t> count;  // CountOrders

  bool ok() const { return kind == Outcome::Ok; }
};
// What psql would print: "UPDATE 1", "SELECT 0", "INSERT 0 1", "COMMIT", "ROLLBACK",
// "ERROR: duplicate key value violates unique constraint \"orders_user_sku_activity_key\"",
// and for Blocked, which psql shows as a hang: "(waiting for transaction 3)".
std::string to_string(const Result& result);

struct DbConfig {
  bool unique_user_sku_activity = true;   // UNIQUE (user_id, sku_id, activity_id) on orders
  bool unique_request_id = true;          // UNIQUE (request_id) on orders
  bool ledger_unique_order_sign = false;  // UNIQUE (order_id, sign(delta)) on the ledger
  // CHECK (available >= 0) on stock. false: declared but not enforced, as MySQL before 8.0.16
  // parsed CHECK clauses and ignored them (MySQL 8.0 manual, 13.1.20.6).
  bool check_available = true;
  // false: the statement that would close a wait-for cycle fails at once (handy for unit tests).
  // true: it is recorded as Blocked like any other wait, and the server calls detect_deadlock()
  // once the waiter has waited deadlock_timeout, as PostgreSQL does (manual 13.3.4).
  bool defer_deadlock_detection = false;
};

// ---------------------------------------------------------------------------------------------

class DbState {
 public:
  explicit DbState(DbConfig config = {});

  // Setup only: inserts a committed stock row (version 0, fence 0). The sku must be new.
  void add_stock(const std::string& sku, int64_t available);

  // BEGIN [ISOLATION LEVEL ...]. Ids increase from 1 and are never reused, even across crash().
  TxnId begin(IsolationLevel isolation = IsolationLevel::ReadCommitted);
  // Runs one statement. Clears the txn's own wait-for edge first: a retry is a new attempt.
  Result execute(TxnId txn, const Statement& statement);
  // Active: applies the private writes atomically, releases locks, answers COMMIT (Ok).
  // Failed: acts as ROLLBACK (Outcome::Rollback). Unknown: NoTransaction.
  Result commit(TxnId txn);
  // Discards the writes and releases the locks; unknown ids are ignored (PostgreSQL warns).
  void rollback(TxnId txn);
  // One statement in its own READ COMMITTED transaction, committed when it succeeds. When it
  // is Blocked, the transaction is rolled back (it had done nothing) and the caller retries
  // the whole call once the holder ends.
  Result autocommit(const Statement& statement);

  // The server's lock_timeout fired while `txn` waited: the statement fails with LockTimeout
  // and the transaction is aborted. NoTransaction if the txn is unknown.
  Result lock_timeout(TxnId txn);

  // With DbConfig::defer_deadlock_detection: if `txn` waits in a wait-for cycle, it becomes the
  // victim (DeadlockDetected, aborted, its locks released) and this returns true. PostgreSQL's
  // victim is likewise the backend whose deadlock_timeout fired and found the cycle.
  bool detect_deadlock(TxnId txn);

  // The DB node crashes: every in-flight transaction is gone (its writes discarded, its locks
  // released); committed data survives.
  void crash();

  // --- Observers for properties and the server.
  std::optional<StockRow> committed_stock(const std::string& sku) const;
  std::map<std::string, StockRow> committed_stock() const;
  std::map<std::string, OrderRow> committed_orders() const;  // by order_id
  // The same rows without copying them (valid until the state next changes), by order_id: the
  // always-properties read them after every commit.
  std::vector<const OrderRow*> committed_order_rows() const;
  std::vector<LedgerRow> committed_ledger() const;           // in commit order
  std::vector<TxnId> in_flight() const;                      // Active and Failed, by id
  std::optional<TxnState> state(TxnId txn) const;            // nullopt once ended
  std::optional<IsolationLevel> isolation(TxnId txn) const;
  // The transaction `txn` is blocked on, while that one still holds its locks.
  std::optional<TxnId> waiting_for(TxnId txn) const;
  // Transactions whose wait ended (the holder committed, rolled back or failed) since the last
  // call, in the order it happened: the server retries their statements.
  std::vector<TxnId> take_woken();
  // The number of commits so far (each add_stock counts as one).
  int64_t commit_count() const { return commit_seq_; }
  // Orders committed so far (each order id once): what a sale has sold, without building
  // committed_orders().
  int64_t committed_order_count() const { return committed_order_count_; }
  // Committed orders of `sku` whose status is 'pending' (awaiting payment: they hold a unit that
  // may come back), kept as commits happen.
  int64_t committed_pending_orders(const std::string& sku) const;

  // --- What happened, for mechanism and coverage properties (observations, not data).
  // Committed lost updates: a txn wrote `available = <literal>` over a stock row that another
  // transaction had committed a change to after this txn read it (READ COMMITTED's classic
  // anomaly, manual 13.2.1). One line each, in commit order.
  const std::vector<std::string>& lost_updates() const { return lost_updates_; }
  // Statements CHECK (available >= 0) turned down.
  int64_t check_violations() const { return check_violations_; }
  // Conditional UPDATEs (WHERE available >= k, version = v or fence < t) that waited for the
  // row lock and then matched no row: the WHERE, re-evaluated against the newly committed row
  // (EvalPlanQual), turned the buyer away.
  int64_t where_refusals_after_wait() const { return where_refusals_after_wait_; }
  // Stock deductions (UPDATE stock statements that are not a compensating increment) that
  // ended: applied to a row, or refused (their WHERE matched no row: sold out, a version
  // conflict, a newer fence; or CHECK turned them down). A statement that waited for a row
  // lock counts once, when it ended; one whose transaction later rolled back still counts.
  int64_t deductions_applied() const { return deductions_applied_; }
  int64_t deductions_refused() const { return deductions_refused_; }

 private:
  using CommitSeq = int64_t;

  enum class Table { Stock, Orders };
  struct RowRef {
    Table table;
    std::string key;
    auto operator<=>(const RowRef&) const = default;
  };
  struct UniqueKey {
    std::string constraint;
    std::vector<std::string> values;
    auto operator<=>(const UniqueKey&) const = default;
  };
  // Committed versions of one row, oldest first; a snapshot sees the last one at or before it.
  template <typename Row>
  struct Versions {
    std::vector<std::pair<CommitSeq, Row>> list;
  };
  struct Txn {
    IsolationLevel isolation = IsolationLevel::ReadCommitted;
    TxnState state = TxnState::Active;
    std::optional<CommitSeq> snapshot;  // REPEATABLE READ: taken at the first statement
    std::map<std::string, StockRow> stock_writes;
    std::map<std::string, OrderRow> order_writes;  // inserted or updated
    std::vector<LedgerRow> ledger_writes;
    std::set<RowRef> locks;
    std::map<UniqueKey, std::string> pending_keys;  // key -> the order_id that owns it
    // Observations for properties, not state PostgreSQL keeps. The commit whose version of each
    // stock row this txn last read with a plain SELECT; the lost updates it made (committed
    // with it); whether its last statement was Blocked, so the next one is a retry after a wait.
    std::map<std::string, CommitSeq> stock_read_at;
    std::vector<std::string> lost_updates;
    bool waited = false;
    bool retry_after_wait = false;
  };

  Result select_stock(TxnId id, Txn& txn, const SelectStock& s);
  Result update_stock(TxnId id, Txn& txn, const UpdateStock& s);
  Result increment_stock(TxnId id, Txn& txn, const IncrementStock& s);
  Result insert_order(TxnId id, Txn& txn, const InsertOrder& s);
  Result select_order_by_request_id(TxnId id, Txn& txn, const SelectOrderByRequestId& s);
  Result select_order_by_user_sku_activity(TxnId id, Txn& txn,
                                           const SelectOrderByUserSkuActivity& s);
  Result update_order_status(TxnId id, Txn& txn, const UpdateOrderStatus& s);
  Result insert_ledger(TxnId id, Txn& txn, const InsertLedger& s);
  Result select_ledger(TxnId id, Txn& txn, const SelectLedger& s);
  Result count_orders(TxnId id, Txn& txn, const CountOrders& s);
  Result select_order_by_id(TxnId id, Txn& txn, const SelectOrderById& s);
  Result select_orders_by_status(TxnId id, Txn& txn, const SelectOrdersByStatus& s);

  // The snapshot a statement reads: the txn's (REPEATABLE READ) or the latest commit.
  CommitSeq statement_snapshot(const Txn& txn) const;
  std::optional<StockRow> read_stock(const Txn& txn, const std::string& sku) const;
  std::optional<OrderRow> read_order(const Txn& txn, const std::string& order_id) const;
  // The first committed order visible to `txn` (in order_id order) that `match` accepts: a
  // lookup without a unique index to go through is a scan of the table.
  std::optional<OrderRow> scan_orders(const Txn& txn, const std::function<bool(const OrderRow&)>& match) const;

  // Takes the row lock for a write or FOR UPDATE of a row the statement found visible.
  // nullopt when granted; otherwise the failing or Blocked result (with `command` set).
  std::optional<Result> lock_row(TxnId id, Txn& txn, const RowRef& row,
                                 CommitSeq latest_change, Command command);
  // A unique key conflict: nullopt if free, else the UniqueViolation or Blocked result.
  std::optional<Result> check_unique(TxnId id, Txn& txn, const UniqueKey& key,
                                     Command command);
  Result blocked_or_deadlock(TxnId id, TxnId holder, Command command);
  // Aborts the transaction after an error: discard writes, release locks, state Failed.
  Result fail(TxnId id, Txn& txn, Outcome kind, Command command, std::string constraint = {});
  // Releases the locks and pending keys of `id`, waking whoever waited for it.
  void release(TxnId id, Txn& txn);
  void end(TxnId id);
  // Appends a committed version and drops those no live snapshot can reach.
  template <typename Row>
  void push_version(Versions<Row>& versions, CommitSeq seq, Row row);
  CommitSeq oldest_snapshot() const;

  DbConfig config_;
  CommitSeq commit_seq_ = 0;
  int64_t committed_order_count_ = 0;
  std::map<std::string, int64_t> committed_pending_;
  int64_t next_txn_ = 1;
  std::map<std::string, Versions<StockRow>> stock_;
  std::map<std::string, Versions<OrderRow>> orders_;
  std::vector<std::pair<CommitSeq, LedgerRow>> ledger_;
  // Unique keys of committed rows, with the order_id that owns them (lookups by request id
  // and by (user, sku, activity) go through it).
  std::map<UniqueKey, std::string> committed_keys_;
  // Unique keys inserted by in-flight transactions: a conflicting insert blocks on the owner.
  std::map<UniqueKey, TxnId> pending_keys_;
  std::map<RowRef, TxnId> row_locks_;
  std::map<TxnId, Txn> txns_;
  std::map<TxnId, TxnId> waiting_for_;  // waiter -> holder; each waiter waits for one holder
  std::vector<TxnId> woken_;
  std::vector<std::string> lost_updates_;
  int64_t check_violations_ = 0;
  int64_t where_refusals_after_wait_ = 0;
  int64_t deductions_applied_ = 0;
  int64_t deductions_refused_ = 0;
};

}  // namespace oversim::db
