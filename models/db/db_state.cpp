#include "models/db/db_state.h"

#include <algorithm>
#include <stdexcept>
#include <tuple>
#include <utility>

#include <fmt/format.h>

namespace oversim::db {
namespace {

// Constraint names as the DDL in schema_sql() declares them; error messages quote them.
constexpr const char* kStockPkey = "stock_pkey";
constexpr const char* kStockAvailableCheck = "stock_available_check";
constexpr const char* kOrdersPkey = "orders_pkey";
constexpr const char* kOrdersUserSkuActivityKey = "orders_user_sku_activity_key";
constexpr const char* kOrdersRequestIdKey = "orders_request_id_key";
constexpr const char* kLedgerOrderSignKey = "inventory_ledger_order_id_sign_key";

constexpr const char* kStockColumns = "sku_id, available, version, fence";
constexpr const char* kOrderColumns = "order_id, user_id, sku_id, activity_id, request_id, status";
constexpr const char* kPending = "pending";
constexpr const char* kLedgerColumns = "order_id, sku_id, before, after, delta, at_ns";

template <typename... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <typename... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

// A SQL string literal: single quotes doubled, as standard_conforming_strings does it.
std::string quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += '\'';
    out += c;
  }
  out += '\'';
  return out;
}

std::string delta_sign(int64_t delta) {
  if (delta < 0) return "-";
  if (delta > 0) return "+";
  return "0";
}

bool stock_where_matches(const UpdateStock& s, const StockRow& row) {
  if (s.available_at_least && !(row.available >= *s.available_at_least)) return false;
  if (s.version_equals && !(row.version == *s.version_equals)) return false;
  if (s.fence_below && !(row.fence < *s.fence_below)) return false;
  return true;
}

Result make(Outcome kind, Command command, int64_t rows_affected = 0) {
  Result r;
  r.kind = kind;
  r.command = command;
  r.rows_affected = rows_affected;
  return r;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// SQL rendering.

std::string to_sql(const Statement& statement) {
  return std::visit(
      Overloaded{
          [](const SelectStock& s) {
            return fmt::format("SELECT {} FROM stock WHERE sku_id = {}{}", kStockColumns,
                               quote(s.sku), s.for_update ? " FOR UPDATE" : "");
          },
          [](const UpdateStock& s) {
            std::string set = std::visit(
                Overloaded{[](const Decrement& d) {
                             return d.n >= 0 ? fmt::format("available = available - {}", d.n)
                                             : fmt::format("available = available + {}", -d.n);
                           },
                           [](const SetAvailable& a) {
                             return fmt::format("available = {}", a.value);
                           }},
                s.change);
            if (s.bump_version) set += ", version = version + 1";
            if (s.set_fence) set += fmt::format(", fence = {}", *s.set_fence);
            std::string where = fmt::format("sku_id = {}", quote(s.sku));
            if (s.available_at_least) where += fmt::format(" AND available >= {}", *s.available_at_least);
            if (s.version_equals) where += fmt::format(" AND version = {}", *s.version_equals);
            if (s.fence_below) where += fmt::format(" AND fence < {}", *s.fence_below);
            return fmt::format("UPDATE stock SET {} WHERE {}{}", set, where,
                               s.returning ? fmt::format(" RETURNING {}", kStockColumns) : "");
          },
          [](const IncrementStock& s) {
            return fmt::format("UPDATE stock SET available = available + {}{} WHERE sku_id = {}",
                               s.n, s.bump_version ? ", version = version + 1" : "",
                               quote(s.sku));
          },
          [](const InsertOrder& s) {
            const OrderRow& o = s.row;
            // created_at is named only for an order the lifecycle will judge by it (pending) or
            // one the application stamped anyway.
            const bool stamped = o.created_ns != 0 || o.status == kPending;
            return fmt::format("INSERT INTO orders ({}{}) VALUES ({}, {}, {}, {}, {}, {}{})",
                               kOrderColumns, stamped ? ", created_at" : "",
                               quote(o.order_id), quote(o.user), quote(o.sku),
                               quote(o.activity), quote(o.request_id), quote(o.status),
                               stamped ? fmt::format(", {}", o.created_ns) : "");
          },
          [](const SelectOrderByRequestId& s) {
            return fmt::format("SELECT {} FROM orders WHERE request_id = {}", kOrderColumns,
                               quote(s.request_id));
          },
          [](const SelectOrderByUserSkuActivity& s) {
            return fmt::format(
                "SELECT {} FROM orders WHERE user_id = {} AND sku_id = {} AND activity_id = {}",
                kOrderColumns, quote(s.user), quote(s.sku), quote(s.activity));
          },
          [](const UpdateOrderStatus& s) {
            return fmt::format("UPDATE orders SET status = {} WHERE order_id = {}{}",
                               quote(s.status), quote(s.order_id),
                               s.expected_status
                                   ? fmt::format(" AND status = {}", quote(*s.expected_status))
                                   : "");
          },
          [](const InsertLedger& s) {
            const LedgerRow& l = s.row;
            return fmt::format("INSERT INTO inventory_ledger ({}) VALUES ({}, {}, {}, {}, {}, {})",
                               kLedgerColumns, quote(l.order_id), quote(l.sku), l.before, l.after,
                               l.delta, l.at_ns);
          },
          [](const SelectLedger& s) {
            return fmt::format(
                "SELECT {} FROM inventory_ledger WHERE sku_id = {} ORDER BY ledger_id",
                kLedgerColumns, quote(s.sku));
          },
          [](const CountOrders& s) {
            return fmt::format("SELECT count(*) FROM orders WHERE sku_id = {}{}", quote(s.sku),
                               s.status ? fmt::format(" AND status = {}", quote(*s.status)) : "");
          },
          [](const SelectOrderById& s) {
            return fmt::format("SELECT {} FROM orders WHERE order_id = {}", kOrderColumns, quote(s.order_id));
          },
          [](const SelectOrdersByStatus& s) {
            return fmt::format("SELECT {}, created_at FROM orders WHERE status = {} AND created_at < {} ORDER BY created_at, order_id LIMIT {}",
                               kOrderColumns, quote(s.status), s.created_before_ns, s.limit);
          },
      },
      statement);
}

std::string schema_sql(bool ledger_unique_order_sign) {
  std::string ddl = fmt::format(
      "CREATE TABLE stock (\n"
      "  sku_id text CONSTRAINT {} PRIMARY KEY,\n"
      "  available bigint NOT NULL CONSTRAINT {} CHECK (available >= 0),\n"
      "  version bigint NOT NULL DEFAULT 0,\n"
      "  fence bigint NOT NULL DEFAULT 0\n"
      ");\n"
      "CREATE TABLE orders (\n"
      "  order_id text CONSTRAINT {} PRIMARY KEY,\n"
      "  user_id text NOT NULL,\n"
      "  sku_id text NOT NULL,\n"
      "  activity_id text NOT NULL,\n"
      "  request_id text NOT NULL,\n"
      "  status text NOT NULL,  -- paid, or pending -> paid | cancelled (the order lifecycle)\n"
      "  created_at bigint NOT NULL DEFAULT 0,  -- stamped by the application (ns)\n"
      "  CONSTRAINT {} UNIQUE (user_id, sku_id, activity_id),\n"
      "  CONSTRAINT {} UNIQUE (request_id)\n"
      ");\n"
      "CREATE TABLE inventory_ledger (\n"
      "  ledger_id bigserial PRIMARY KEY,\n"
      "  order_id text NOT NULL,\n"
      "  sku_id text NOT NULL,\n"
      "  before bigint NOT NULL,\n"
      "  after bigint NOT NULL,\n"
      "  delta bigint NOT NULL,\n"
      "  at_ns bigint NOT NULL\n"
      ");\n",
      kStockPkey, kStockAvailableCheck, kOrdersPkey, kOrdersUserSkuActivityKey,
      kOrdersRequestIdKey);
  if (ledger_unique_order_sign) {
    ddl += fmt::format("CREATE UNIQUE INDEX {} ON inventory_ledger (order_id, sign(delta));\n",
                       kLedgerOrderSignKey);
  }
  return ddl;
}

// ---------------------------------------------------------------------------------------------
// Results.

std::string to_string(TxnId txn) { return fmt::format("txn{}", txn.value); }

std::string to_string(Outcome outcome) {
  switch (outcome) {
    case Outcome::Ok: return "Ok";
    case Outcome::Rollback: return "Rollback";
    case Outcome::Blocked: return "Blocked";
    case Outcome::CheckViolation: return "CheckViolation";
    case Outcome::UniqueViolation: return "UniqueViolation";
    case Outcome::LockTimeout: return "LockTimeout";
    case Outcome::DeadlockDetected: return "DeadlockDetected";
    case Outcome::SerializationFailure: return "SerializationFailure";
    case Outcome::InFailedTransaction: return "InFailedTransaction";
    case Outcome::NoTransaction: return "NoTransaction";
  }
  return "?";
}

std::string sqlstate(Outcome outcome) {
  switch (outcome) {
    case Outcome::Ok:
    case Outcome::Rollback:
    case Outcome::Blocked: return "00000";
    case Outcome::CheckViolation: return "23514";
    case Outcome::UniqueViolation: return "23505";
    case Outcome::LockTimeout: return "55P03";
    case Outcome::DeadlockDetected: return "40P01";
    case Outcome::SerializationFailure: return "40001";
    case Outcome::InFailedTransaction: return "25P02";
    case Outcome::NoTransaction: return "25P01";
  }
  return "XX000";
}

bool is_error(Outcome outcome) {
  return outcome != Outcome::Ok && outcome != Outcome::Rollback && outcome != Outcome::Blocked;
}

std::string to_string(const Result& result) {
  switch (result.kind) {
    case Outcome::Ok:
      switch (result.command) {
        case Command::Select: return fmt::format("SELECT {}", result.rows_affected);
        case Command::Update: return fmt::format("UPDATE {}", result.rows_affected);
        case Command::Insert: return fmt::format("INSERT 0 {}", result.rows_affected);
        case Command::Commit: return "COMMIT";
        case Command::Rollback: return "ROLLBACK";
      }
      return "?";
    case Outcome::Rollback: return "ROLLBACK";
    case Outcome::Blocked:
      return fmt::format("(waiting for transaction {})",
                         result.blocked_on ? result.blocked_on->value : 0);
    case Outcome::CheckViolation:
      return fmt::format("ERROR: new row for relation \"stock\" violates check constraint \"{}\"",
                         result.constraint);
    case Outcome::UniqueViolation:
      return fmt::format("ERROR: duplicate key value violates unique constraint \"{}\"",
                         result.constraint);
    case Outcome::LockTimeout: return "ERROR: canceling statement due to lock timeout";
    case Outcome::DeadlockDetected: return "ERROR: deadlock detected";
    case Outcome::SerializationFailure:
      return "ERROR: could not serialize access due to concurrent update";
    case Outcome::InFailedTransaction:
      return "ERROR: current transaction is aborted, commands ignored until end of transaction "
             "block";
    case Outcome::NoTransaction: return "ERROR: there is no transaction in progress";
  }
  return "?";
}

// ---------------------------------------------------------------------------------------------
// DbState: transactions.

DbState::DbState(DbConfig config) : config_(config) {}

void DbState::add_stock(const std::string& sku, int64_t available) {
  if (stock_.contains(sku)) {
    throw std::logic_error(fmt::format("add_stock: duplicate key violates {}: {}", kStockPkey, sku));
  }
  if (available < 0) {
    throw std::logic_error(fmt::format("add_stock: violates {}: {}", kStockAvailableCheck, sku));
  }
  ++commit_seq_;
  push_version(stock_[sku], commit_seq_, StockRow{sku, available, 0, 0});
}

TxnId DbState::begin(IsolationLevel isolation) {
  TxnId id{next_txn_++};
  Txn txn;
  txn.isolation = isolation;
  txns_.emplace(id, std::move(txn));
  return id;
}

Result DbState::execute(TxnId id, const Statement& statement) {
  auto it = txns_.find(id);
  if (it == txns_.end()) return make(Outcome::NoTransaction, Command::Select);
  // A retry is a new attempt: the old edge is stale whether or not it blocks again.
  waiting_for_.erase(id);
  Txn& txn = it->second;
  txn.retry_after_wait = std::exchange(txn.waited, false);
  if (txn.state == TxnState::Failed) return make(Outcome::InFailedTransaction, Command::Select);
  // REPEATABLE READ takes its snapshot at the first statement, not at BEGIN (manual 13.2.2). A
  // first statement that blocks keeps the snapshot for its retries, as a waiting backend would.
  if (txn.isolation == IsolationLevel::RepeatableRead && !txn.snapshot) {
    txn.snapshot = commit_seq_;
  }
  return std::visit(
      Overloaded{
          [&](const SelectStock& s) { return select_stock(id, txn, s); },
          [&](const UpdateStock& s) { return update_stock(id, txn, s); },
          [&](const IncrementStock& s) { return increment_stock(id, txn, s); },
          [&](const InsertOrder& s) { return insert_order(id, txn, s); },
          [&](const SelectOrderByRequestId& s) { return select_order_by_request_id(id, txn, s); },
          [&](const SelectOrderByUserSkuActivity& s) {
            return select_order_by_user_sku_activity(id, txn, s);
          },
          [&](const UpdateOrderStatus& s) { return update_order_status(id, txn, s); },
          [&](const InsertLedger& s) { return insert_ledger(id, txn, s); },
          [&](const SelectLedger& s) { return select_ledger(id, txn, s); },
          [&](const CountOrders& s) { return count_orders(id, txn, s); },
          [&](const SelectOrderById& s) { return select_order_by_id(id, txn, s); },
          [&](const SelectOrdersByStatus& s) { return select_orders_by_status(id, txn, s); },
      },
      statement);
}

Result DbState::commit(TxnId id) {
  auto it = txns_.find(id);
  if (it == txns_.end()) return make(Outcome::NoTransaction, Command::Commit);
  if (it->second.state == TxnState::Failed) {
    end(id);
    return make(Outcome::Rollback, Command::Rollback);
  }
  Txn txn = std::move(it->second);
  txns_.erase(it);
  waiting_for_.erase(id);

  // One commit sequence number for all the writes: they become visible atomically.
  const CommitSeq seq = ++commit_seq_;
  for (auto& [sku, row] : txn.stock_writes) push_version(stock_[sku], seq, std::move(row));
  for (auto& [order_id, row] : txn.order_writes) {
    Versions<OrderRow>& versions = orders_[order_id];
    if (versions.list.empty()) ++committed_order_count_;
    if (!versions.list.empty() && versions.list.back().second.status == kPending) --committed_pending_[row.sku];
    if (row.status == kPending) ++committed_pending_[row.sku];
    push_version(versions, seq, std::move(row));
  }
  for (LedgerRow& row : txn.ledger_writes) ledger_.emplace_back(seq, std::move(row));
  for (const auto& [key, owner] : txn.pending_keys) committed_keys_.emplace(key, owner);
  for (std::string& line : txn.lost_updates) lost_updates_.push_back(std::move(line));
  release(id, txn);
  return make(Outcome::Ok, Command::Commit);
}

void DbState::rollback(TxnId id) {
  if (!txns_.contains(id)) return;
  end(id);
}

Result DbState::autocommit(const Statement& statement) {
  TxnId id = begin(IsolationLevel::ReadCommitted);
  Result result = execute(id, statement);
  if (result.kind == Outcome::Ok) {
    Result committed = commit(id);
    if (committed.kind != Outcome::Ok) {
      throw std::logic_error("autocommit: commit of a successful statement failed");
    }
  } else {
    rollback(id);
  }
  return result;
}

Result DbState::lock_timeout(TxnId id) {
  auto it = txns_.find(id);
  if (it == txns_.end()) return make(Outcome::NoTransaction, Command::Select);
  if (it->second.state == TxnState::Failed) {
    return make(Outcome::InFailedTransaction, Command::Select);
  }
  return fail(id, it->second, Outcome::LockTimeout, Command::Update);
}

bool DbState::detect_deadlock(TxnId id) {
  // Each waiter waits for one holder: follow the chain from `id`. A cycle through `id` returns
  // to it within waiting_for_.size() steps; a chain that ends, or that runs into a cycle not
  // containing `id`, does not.
  auto it = waiting_for_.find(id);
  if (it == waiting_for_.end()) return false;
  TxnId at = it->second;
  for (size_t steps = 0; steps <= waiting_for_.size(); ++steps) {
    if (at == id) {
      fail(id, txns_.at(id), Outcome::DeadlockDetected, Command::Select);
      return true;
    }
    auto next = waiting_for_.find(at);
    if (next == waiting_for_.end()) return false;
    at = next->second;
  }
  return false;
}

void DbState::crash() {
  // Committed data is durable (synchronous commit); everything else was in the dead process.
  txns_.clear();
  row_locks_.clear();
  pending_keys_.clear();
  waiting_for_.clear();
  woken_.clear();
}

void DbState::end(TxnId id) {
  auto it = txns_.find(id);
  if (it == txns_.end()) return;
  waiting_for_.erase(id);
  release(id, it->second);
  txns_.erase(it);
}

void DbState::release(TxnId id, Txn& txn) {
  for (const RowRef& row : txn.locks) {
    auto lock = row_locks_.find(row);
    if (lock == row_locks_.end() || lock->second != id) {
      throw std::logic_error(fmt::format("release: {} does not hold a lock it recorded",
                                         to_string(id)));
    }
    row_locks_.erase(lock);
  }
  for (const auto& [key, owner] : txn.pending_keys) pending_keys_.erase(key);
  txn.locks.clear();
  txn.pending_keys.clear();
  // Everyone waiting for `id` may now proceed: their retry re-evaluates against what is now
  // committed. std::map iteration keeps the wake order deterministic (by waiter id).
  for (auto it = waiting_for_.begin(); it != waiting_for_.end();) {
    if (it->second == id) {
      woken_.push_back(it->first);
      it = waiting_for_.erase(it);
    } else {
      ++it;
    }
  }
}

Result DbState::fail(TxnId id, Txn& txn, Outcome kind, Command command, std::string constraint) {
  // PostgreSQL's AbortTransaction runs at the error, not at ROLLBACK: locks go now, and the
  // session only remembers that it must be told ROLLBACK.
  txn.stock_writes.clear();
  txn.order_writes.clear();
  txn.ledger_writes.clear();
  waiting_for_.erase(id);
  release(id, txn);
  txn.state = TxnState::Failed;
  Result r = make(kind, command);
  r.constraint = std::move(constraint);
  return r;
}

Result DbState::blocked_or_deadlock(TxnId id, TxnId holder, Command command) {
  // Every waiter waits for exactly one holder, so the wait-for graph is a set of chains: walk
  // the chain from the holder; reaching the requester means this wait would close a cycle.
  txns_.at(id).waited = true;
  if (config_.defer_deadlock_detection) {
    waiting_for_[id] = holder;
    Result r = make(Outcome::Blocked, command);
    r.blocked_on = holder;
    return r;
  }
  TxnId at = holder;
  for (size_t steps = 0; steps <= txns_.size(); ++steps) {
    if (at == id) return fail(id, txns_.at(id), Outcome::DeadlockDetected, command);
    auto next = waiting_for_.find(at);
    if (next == waiting_for_.end()) {
      waiting_for_[id] = holder;
      Result r = make(Outcome::Blocked, command);
      r.blocked_on = holder;
      return r;
    }
    at = next->second;
  }
  throw std::logic_error("blocked_or_deadlock: wait-for chain longer than the txn count");
}

std::optional<Result> DbState::lock_row(TxnId id, Txn& txn, const RowRef& row,
                                        CommitSeq latest_change, Command command) {
  if (txn.locks.contains(row)) return std::nullopt;
  auto holder = row_locks_.find(row);
  if (holder != row_locks_.end()) {
    if (holder->second == id) {
      throw std::logic_error("lock_row: lock table and txn lock set disagree");
    }
    return blocked_or_deadlock(id, holder->second, command);
  }
  // The row has a committed version newer than what this statement read. READ COMMITTED never
  // gets here (its statement snapshot is the latest commit); REPEATABLE READ cannot apply its
  // change to a version it cannot see, so it fails (manual 13.2.2).
  if (latest_change > statement_snapshot(txn)) {
    return fail(id, txn, Outcome::SerializationFailure, command);
  }
  row_locks_.emplace(row, id);
  txn.locks.insert(row);
  return std::nullopt;
}

std::optional<Result> DbState::check_unique(TxnId id, Txn& txn, const UniqueKey& key,
                                            Command command) {
  // PostgreSQL checks uniqueness against every committed row, visible to the snapshot or not,
  // so a REPEATABLE READ insert also gets a unique violation (not a serialization failure).
  if (txn.pending_keys.contains(key) || committed_keys_.contains(key)) {
    return fail(id, txn, Outcome::UniqueViolation, command, key.constraint);
  }
  auto owner = pending_keys_.find(key);
  if (owner != pending_keys_.end()) return blocked_or_deadlock(id, owner->second, command);
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// DbState: reads.

DbState::CommitSeq DbState::statement_snapshot(const Txn& txn) const {
  if (txn.isolation == IsolationLevel::RepeatableRead && txn.snapshot) return *txn.snapshot;
  return commit_seq_;
}

namespace {
// The committed version a snapshot sees, with the commit that made it.
template <typename Row>
const std::pair<int64_t, Row>* entry_at(const std::vector<std::pair<int64_t, Row>>& list, int64_t snapshot) {
  for (auto it = list.rbegin(); it != list.rend(); ++it) {
    if (it->first <= snapshot) return &*it;
  }
  return nullptr;
}
template <typename Row>
const Row* version_at(const std::vector<std::pair<int64_t, Row>>& list, int64_t snapshot) {
  const auto* entry = entry_at(list, snapshot);
  return entry == nullptr ? nullptr : &entry->second;
}
}  // namespace

std::optional<StockRow> DbState::read_stock(const Txn& txn, const std::string& sku) const {
  if (auto own = txn.stock_writes.find(sku); own != txn.stock_writes.end()) return own->second;
  auto it = stock_.find(sku);
  if (it == stock_.end()) return std::nullopt;
  const StockRow* row = version_at(it->second.list, statement_snapshot(txn));
  if (row == nullptr) return std::nullopt;
  return *row;
}

std::optional<OrderRow> DbState::read_order(const Txn& txn, const std::string& order_id) const {
  if (auto own = txn.order_writes.find(order_id); own != txn.order_writes.end()) {
    return own->second;
  }
  auto it = orders_.find(order_id);
  if (it == orders_.end()) return std::nullopt;
  const OrderRow* row = version_at(it->second.list, statement_snapshot(txn));
  if (row == nullptr) return std::nullopt;
  return *row;
}

std::optional<OrderRow> DbState::scan_orders(const Txn& txn, const std::function<bool(const OrderRow&)>& match) const {
  for (const auto& [order_id, versions] : orders_) {
    const OrderRow* row = version_at(versions.list, statement_snapshot(txn));
    if (row != nullptr && match(*row)) return *row;
  }
  return std::nullopt;
}

template <typename Row>
void DbState::push_version(Versions<Row>& versions, CommitSeq seq, Row row) {
  auto& list = versions.list;
  if (!list.empty() && !(list.back().first < seq)) {
    throw std::logic_error("push_version: commit sequence must increase");
  }
  list.emplace_back(seq, std::move(row));
  // Drop versions no snapshot can reach any more: keep the newest one at or before the oldest
  // live snapshot, and everything after it. Bounds memory on a hot row (every sale bumps it).
  const CommitSeq oldest = oldest_snapshot();
  size_t keep_from = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i].first <= oldest) keep_from = i;
  }
  if (keep_from > 0) {
    list.erase(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(keep_from));
  }
}

DbState::CommitSeq DbState::oldest_snapshot() const {
  CommitSeq oldest = commit_seq_;
  for (const auto& [id, txn] : txns_) {
    if (txn.snapshot && *txn.snapshot < oldest) oldest = *txn.snapshot;
  }
  return oldest;
}

Result DbState::select_stock(TxnId id, Txn& txn, const SelectStock& s) {
  std::optional<StockRow> row = read_stock(txn, s.sku);
  if (!row) return make(Outcome::Ok, Command::Select, 0);
  if (!txn.stock_writes.contains(s.sku)) {
    // The commit that made the version this statement sees (for lost-update detection).
    if (const auto* entry = entry_at(stock_.at(s.sku).list, statement_snapshot(txn))) txn.stock_read_at[s.sku] = entry->first;
  }
  if (s.for_update) {
    const CommitSeq latest = stock_.at(s.sku).list.back().first;
    if (auto r = lock_row(id, txn, RowRef{Table::Stock, s.sku}, latest, Command::Select)) {
      return *r;
    }
    // Locked, so the latest committed version is what we read (READ COMMITTED: the retry's
    // fresh snapshot; REPEATABLE READ: lock_row failed otherwise) unless we wrote it ourselves.
    row = read_stock(txn, s.sku);
  }
  Result r = make(Outcome::Ok, Command::Select, 1);
  r.stock_rows.push_back(*row);
  return r;
}

Result DbState::update_stock(TxnId id, Txn& txn, const UpdateStock& s) {
  // Target rows are found in the statement's snapshot: a row whose visible version fails the
  // WHERE is skipped without waiting, even if a concurrent txn holds it (manual 13.2.1).
  std::optional<StockRow> row = read_stock(txn, s.sku);
  // A deduction (not a compensating increment), for the article's monitoring list.
  const auto* dec = std::get_if<Decrement>(&s.change);
  const bool deduction = dec == nullptr || dec->n > 0;
  if (!row || !stock_where_matches(s, *row)) {
    const bool conditional = s.available_at_least || s.version_equals || s.fence_below;
    if (row && conditional && txn.retry_after_wait) ++where_refusals_after_wait_;
    if (deduction) ++deductions_refused_;
    return make(Outcome::Ok, Command::Update, 0);
  }
  const CommitSeq latest = stock_.at(s.sku).list.back().first;
  if (auto r = lock_row(id, txn, RowRef{Table::Stock, s.sku}, latest, Command::Update)) {
    return *r;
  }
  if (const auto* set = std::get_if<SetAvailable>(&s.change); set != nullptr && !txn.stock_writes.contains(s.sku)) {
    auto read = txn.stock_read_at.find(s.sku);
    if (read != txn.stock_read_at.end() && latest > read->second) {
      txn.lost_updates.push_back(fmt::format("{} wrote available = {} on {} from its read of commit {}, but commit {} had changed the row since",
                                             to_string(id), set->value, s.sku, read->second, latest));
    }
  }
  StockRow next = *row;
  std::visit(Overloaded{[&](const Decrement& d) { next.available = row->available - d.n; },
                        [&](const SetAvailable& a) { next.available = a.value; }},
             s.change);
  if (s.bump_version) ++next.version;
  if (s.set_fence) next.fence = *s.set_fence;
  if (next.available < 0 && config_.check_available) {
    ++check_violations_;
    if (deduction) ++deductions_refused_;
    return fail(id, txn, Outcome::CheckViolation, Command::Update, kStockAvailableCheck);
  }
  if (deduction) ++deductions_applied_;
  txn.stock_writes[s.sku] = next;
  Result r = make(Outcome::Ok, Command::Update, 1);
  if (s.returning) r.stock_rows.push_back(next);
  return r;
}

Result DbState::increment_stock(TxnId id, Txn& txn, const IncrementStock& s) {
  UpdateStock update;
  update.sku = s.sku;
  update.change = Decrement{-s.n};
  update.bump_version = s.bump_version;
  return update_stock(id, txn, update);
}

Result DbState::insert_order(TxnId id, Txn& txn, const InsertOrder& s) {
  const OrderRow& o = s.row;
  // Index order as declared: the primary key first, then the two UNIQUE constraints. The
  // first key in use decides, as PostgreSQL inserts into (and checks) the indexes in order.
  // The two UNIQUE constraints are part of the design under test: a schema without them is how
  // duplicate orders get in.
  std::vector<UniqueKey> keys = {UniqueKey{kOrdersPkey, {o.order_id}}};
  if (config_.unique_user_sku_activity) keys.push_back(UniqueKey{kOrdersUserSkuActivityKey, {o.user, o.sku, o.activity}});
  if (config_.unique_request_id) keys.push_back(UniqueKey{kOrdersRequestIdKey, {o.request_id}});
  for (const UniqueKey& key : keys) {
    if (auto r = check_unique(id, txn, key, Command::Insert)) return *r;
  }
  for (const UniqueKey& key : keys) {
    pending_keys_.emplace(key, id);
    txn.pending_keys.emplace(key, o.order_id);
  }
  txn.order_writes[o.order_id] = o;
  return make(Outcome::Ok, Command::Insert, 1);
}

Result DbState::select_order_by_request_id(TxnId /*id*/, Txn& txn,
                                           const SelectOrderByRequestId& s) {
  Result r = make(Outcome::Ok, Command::Select, 0);
  std::optional<OrderRow> found;
  for (const auto& [order_id, row] : txn.order_writes) {
    if (row.request_id == s.request_id) found = row;
  }
  if (!found && config_.unique_request_id) {
    auto key = committed_keys_.find(UniqueKey{kOrdersRequestIdKey, {s.request_id}});
    if (key != committed_keys_.end()) found = read_order(txn, key->second);
  } else if (!found) {
    found = scan_orders(txn, [&](const OrderRow& o) { return o.request_id == s.request_id; });
  }
  if (found) {
    r.order_rows.push_back(*found);
    r.rows_affected = 1;
  }
  return r;
}

Result DbState::select_order_by_user_sku_activity(TxnId /*id*/, Txn& txn,
                                                  const SelectOrderByUserSkuActivity& s) {
  Result r = make(Outcome::Ok, Command::Select, 0);
  std::optional<OrderRow> found;
  for (const auto& [order_id, row] : txn.order_writes) {
    if (row.user == s.user && row.sku == s.sku && row.activity == s.activity) found = row;
  }
  if (!found && config_.unique_user_sku_activity) {
    auto key = committed_keys_.find(
        UniqueKey{kOrdersUserSkuActivityKey, {s.user, s.sku, s.activity}});
    if (key != committed_keys_.end()) found = read_order(txn, key->second);
  } else if (!found) {
    found = scan_orders(txn, [&](const OrderRow& o) { return o.user == s.user && o.sku == s.sku && o.activity == s.activity; });
  }
  if (found) {
    r.order_rows.push_back(*found);
    r.rows_affected = 1;
  }
  return r;
}

Result DbState::update_order_status(TxnId id, Txn& txn, const UpdateOrderStatus& s) {
  std::optional<OrderRow> row = read_order(txn, s.order_id);
  if (!row) return make(Outcome::Ok, Command::Update, 0);
  if (s.expected_status && row->status != *s.expected_status) {
    return make(Outcome::Ok, Command::Update, 0);
  }
  // A row this txn inserted is invisible to everyone else: nothing to lock.
  if (auto committed = orders_.find(s.order_id); committed != orders_.end()) {
    const CommitSeq latest = committed->second.list.back().first;
    if (auto r = lock_row(id, txn, RowRef{Table::Orders, s.order_id}, latest, Command::Update)) {
      return *r;
    }
  }
  row->status = s.status;
  txn.order_writes[s.order_id] = *row;
  return make(Outcome::Ok, Command::Update, 1);
}

Result DbState::insert_ledger(TxnId id, Txn& txn, const InsertLedger& s) {
  if (config_.ledger_unique_order_sign) {
    UniqueKey key{kLedgerOrderSignKey, {s.row.order_id, delta_sign(s.row.delta)}};
    if (auto r = check_unique(id, txn, key, Command::Insert)) return *r;
    pending_keys_.emplace(key, id);
    txn.pending_keys.emplace(key, s.row.order_id);
  }
  txn.ledger_writes.push_back(s.row);
  return make(Outcome::Ok, Command::Insert, 1);
}

Result DbState::select_ledger(TxnId /*id*/, Txn& txn, const SelectLedger& s) {
  Result r = make(Outcome::Ok, Command::Select, 0);
  const CommitSeq snapshot = statement_snapshot(txn);
  for (const auto& [seq, row] : ledger_) {
    if (seq <= snapshot && row.sku == s.sku) r.ledger_rows.push_back(row);
  }
  for (const LedgerRow& row : txn.ledger_writes) {
    if (row.sku == s.sku) r.ledger_rows.push_back(row);
  }
  r.rows_affected = static_cast<int64_t>(r.ledger_rows.size());
  return r;
}

Result DbState::count_orders(TxnId /*id*/, Txn& txn, const CountOrders& s) {
  const CommitSeq snapshot = statement_snapshot(txn);
  auto counts = [&](const OrderRow& row) {
    return row.sku == s.sku && (!s.status || row.status == *s.status);
  };
  int64_t count = 0;
  for (const auto& [order_id, versions] : orders_) {
    if (txn.order_writes.contains(order_id)) continue;  // counted below, as this txn sees it
    const OrderRow* row = version_at(versions.list, snapshot);
    if (row != nullptr && counts(*row)) ++count;
  }
  for (const auto& [order_id, row] : txn.order_writes) {
    if (counts(row)) ++count;
  }
  Result r = make(Outcome::Ok, Command::Select, 1);
  r.count = count;
  return r;
}

Result DbState::select_order_by_id(TxnId /*id*/, Txn& txn, const SelectOrderById& s) {
  Result r = make(Outcome::Ok, Command::Select, 0);
  if (std::optional<OrderRow> found = read_order(txn, s.order_id)) {
    r.order_rows.push_back(*found);
    r.rows_affected = 1;
  }
  return r;
}

Result DbState::select_orders_by_status(TxnId /*id*/, Txn& txn, const SelectOrdersByStatus& s) {
  const CommitSeq snapshot = statement_snapshot(txn);
  std::vector<OrderRow> found;
  auto matches = [&](const OrderRow& row) { return row.status == s.status && row.created_ns < s.created_before_ns; };
  for (const auto& [order_id, versions] : orders_) {
    if (txn.order_writes.contains(order_id)) continue;  // as this txn sees it, below
    const OrderRow* row = version_at(versions.list, snapshot);
    if (row != nullptr && matches(*row)) found.push_back(*row);
  }
  for (const auto& [order_id, row] : txn.order_writes) {
    if (matches(row)) found.push_back(row);
  }
  std::sort(found.begin(), found.end(), [](const OrderRow& a, const OrderRow& b) { return std::tie(a.created_ns, a.order_id) < std::tie(b.created_ns, b.order_id); });
  if (s.limit >= 0 && found.size() > static_cast<size_t>(s.limit)) found.resize(static_cast<size_t>(s.limit));
  Result r = make(Outcome::Ok, Command::Select, static_cast<int64_t>(found.size()));
  r.order_rows = std::move(found);
  return r;
}

// ---------------------------------------------------------------------------------------------
// Observers.

int64_t DbState::committed_pending_orders(const std::string& sku) const {
  auto it = committed_pending_.find(sku);
  return it == committed_pending_.end() ? 0 : it->second;
}

std::optional<StockRow> DbState::committed_stock(const std::string& sku) const {
  auto it = stock_.find(sku);
  if (it == stock_.end()) return std::nullopt;
  return it->second.list.back().second;
}

std::map<std::string, StockRow> DbState::committed_stock() const {
  std::map<std::string, StockRow> out;
  for (const auto& [sku, versions] : stock_) out.emplace(sku, versions.list.back().second);
  return out;
}

std::map<std::string, OrderRow> DbState::committed_orders() const {
  std::map<std::string, OrderRow> out;
  for (const auto& [order_id, versions] : orders_) {
    out.emplace(order_id, versions.list.back().second);
  }
  return out;
}

std::vector<const OrderRow*> DbState::committed_order_rows() const {
  std::vector<const OrderRow*> out;
  out.reserve(orders_.size());
  for (const auto& [order_id, versions] : orders_) out.push_back(&versions.list.back().second);
  return out;
}

std::vector<LedgerRow> DbState::committed_ledger() const {
  std::vector<LedgerRow> out;
  out.reserve(ledger_.size());
  for (const auto& [seq, row] : ledger_) out.push_back(row);
  return out;
}

std::vector<TxnId> DbState::in_flight() const {
  std::vector<TxnId> out;
  for (const auto& [id, txn] : txns_) out.push_back(id);
  return out;
}

std::optional<TxnState> DbState::state(TxnId txn) const {
  auto it = txns_.find(txn);
  if (it == txns_.end()) return std::nullopt;
  return it->second.state;
}

std::optional<IsolationLevel> DbState::isolation(TxnId txn) const {
  auto it = txns_.find(txn);
  if (it == txns_.end()) return std::nullopt;
  return it->second.isolation;
}

std::optional<TxnId> DbState::waiting_for(TxnId txn) const {
  auto it = waiting_for_.find(txn);
  if (it == waiting_for_.end()) return std::nullopt;
  return it->second;
}

std::vector<TxnId> DbState::take_woken() { return std::exchange(woken_, {}); }

}  // namespace oversim::db
