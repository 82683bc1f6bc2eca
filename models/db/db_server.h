// The simulated PostgreSQL server: a thin asynchronous shell around the pure DbState. It runs on
// its own node ("db", port "db"); every request gets its own fiber, like a backend serving one
// statement of one connection. A fiber spends the statement's service time, runs it against
// DbState, and when the statement is Blocked on a row lock or an in-flight unique key it parks
// until a transaction ends and runs it again (PostgreSQL's EvalPlanQual re-check, see
// db_state.h), giving up after lock_timeout (55P03). After deadlock_timeout of waiting it looks
// for a wait-for cycle once and, if it is in one, becomes the victim (40P01), as a PostgreSQL
// backend does (manual 13.3.4, runtime-config-locks).
//
// Constructing a DbServer is the deployment: it adds the node to the World, seeds the stock
// rows (committed before the run) and installs the boot and crash hooks. A crash aborts every
// in-flight transaction; committed rows survive the restart (synchronous commit). The DbServer
// must outlive the World's run (its hooks and fibers point at it), like every model object.
//
// Sessions. A client connection is a session keyed by (client node, its incarnation, pool,
// connection number). A session dies when the client closes it (CloseOp), when its client node
// crashes or restarts (the client's kernel closes the socket; the server notices within
// client_check_interval, see docs/models-db.md), or when the DB node crashes. Its open
// transaction is rolled back. A lost CloseOp (partition) leaves the transaction open, holding
// its locks, as an unreachable client does to a real server until TCP keepalive gives up.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "models/db/db_state.h"
#include "sim/network.h"
#include "sim/sync.h"
#include "sim/time.h"
#include "sim/world.h"

namespace oversim::db {

// Service times: virtual time a backend spends per request, before it acts on DbState. Sources
// and reasoning in docs/models-db.md.
struct DbServiceTimes {
  sim::Duration begin = sim::Duration::us(20);
  sim::Duration select = sim::Duration::us(100);  // primary-key or unique-index lookup
  sim::Duration write = sim::Duration::us(300);   // UPDATE / INSERT / SELECT ... FOR UPDATE
  sim::Duration commit = sim::Duration::ms(1);    // WAL flush (fdatasync) of a writing txn
  sim::Duration rollback = sim::Duration::us(50);  // also COMMIT of a read-only txn: no flush
};

struct DbServerConfig {
  std::string node = "db";
  DbConfig schema;
  std::map<std::string, int64_t> stock;  // sku -> available, committed before the run
  DbServiceTimes service;
  // PostgreSQL's default is 0 (wait forever). A finite default keeps every wait bounded (house
  // rule "put a limit on everything") and matches what flash-sale services configure; it is
  // longer than deadlock_timeout so that a deadlock is reported as one. Zero: wait forever.
  sim::Duration lock_timeout = sim::Duration::s(2);
  sim::Duration deadlock_timeout = sim::Duration::s(1);  // PostgreSQL's default
  IsolationLevel default_isolation = IsolationLevel::ReadCommitted;
  size_t max_connections = 100;  // PostgreSQL's default
  // How soon the server notices that a client process died (its socket was closed).
  sim::Duration client_check_interval = sim::Duration::ms(1);
};

// ---- Wire protocol.

struct SessionId {
  sim::NodeId client = 0;
  uint64_t client_incarnation = 0;
  std::string pool;
  int64_t connection = 0;
  auto operator<=>(const SessionId&) const = default;
};
std::string to_string(const SessionId& session);  // "app-1/pool#3" style, using node ids

struct BeginOp {
  std::optional<IsolationLevel> isolation;  // nullopt: the server's default_isolation
};
struct ExecuteOp {
  Statement statement;
};
struct CommitOp {};
struct RollbackOp {};
// One statement in its own READ COMMITTED transaction; inside an open transaction block it runs
// as part of that transaction, as PostgreSQL does.
struct AutocommitOp {
  Statement statement;
};
// The client closed the connection: roll back its open transaction and forget the session.
struct CloseOp {};
using DbOp = std::variant<BeginOp, ExecuteOp, CommitOp, RollbackOp, AutocommitOp, CloseOp>;

struct DbRequest {
  SessionId session;
  int64_t seq = 0;  // per session, increasing: a stream never delivers a request twice
  DbOp op;
};

struct DbReply {
  Result result;
  std::optional<TxnId> open_txn;  // the session's transaction after the request
  bool refused = false;           // max_connections reached (53300): no session was created
};

// ---- The server.

class DbServer {
 public:
  DbServer(sim::World& world, DbServerConfig config = {});
  DbServer(const DbServer&) = delete;
  DbServer& operator=(const DbServer&) = delete;

  sim::Node& node() const { return node_; }
  const DbServerConfig& config() const { return config_; }
  // The pure state, for properties and assertions (committed_stock, committed_orders, ...).
  const DbState& state() const { return state_; }
  std::optional<StockRow> committed_stock(const std::string& sku) const {
    return state_.committed_stock(sku);
  }
  std::map<std::string, OrderRow> committed_orders() const { return state_.committed_orders(); }
  std::vector<const OrderRow*> committed_order_rows() const { return state_.committed_order_rows(); }
  std::vector<LedgerRow> committed_ledger() const { return state_.committed_ledger(); }
  size_t sessions() const { return sessions_.size(); }
  // Called after every commit that made writes visible (one hook; the sale uses it to note when
  // each unit sold and when the stock ran out). It must not block or act on the database.
  // Commits made before the hook is set (the seeded stock) are not news to it.
  void on_commit(std::function<void()> hook) {
    commit_hook_ = std::move(hook);
    commits_seen_ = state_.commit_count();
  }

 private:
  struct Session {
    std::optional<TxnId> txn;
    bool wrote = false;  // the open txn changed or locked a row: its COMMIT flushes WAL
    int64_t last_seq = 0;
  };

  void boot(sim::Node& node);
  void accept_loop();
  void reap_loop();
  void serve(const sim::Message& message);
  DbReply handle(const SessionId& id, const DbOp& op);
  // Runs a statement, waiting out row locks; never returns Blocked.
  Result run(TxnId txn, const Statement& statement);
  Result commit(const SessionId& id);
  void abort_session_txn(Session& session, const char* why);
  Session* find(const SessionId& id);
  // Closes the sessions whose client process is gone; true if any.
  bool reap_dead_clients();
  // Wakes lock waiters when a transaction ended (DbState::take_woken).
  void after_change();
  void trace_sql(TxnId txn, const std::string& sql, const std::string& result);

  sim::World& world_;
  DbServerConfig config_;
  sim::Node& node_;
  DbState state_;
  std::map<SessionId, Session> sessions_;
  sim::WaitQueue txn_ended_;    // lock waiters
  sim::WaitQueue reaper_idle_;  // the reaper, while no session has an open transaction
  std::function<void()> commit_hook_;
  int64_t commits_seen_ = 0;
};

}  // namespace oversim::db
