// The application side of the database: a HikariCP-like connection pool per app node and the
// connection a fiber borrows from it. Every call is a blocking RPC with a timeout, and every
// outcome is explicit data (DbCall): the server's answer, or one of the client-side failures
// that a real driver reports as an exception.
//
//   * acquire() waits at most acquire_timeout for a free connection (HikariCP's
//     connectionTimeout) and returns nullopt on pool exhaustion.
//   * A call that times out is ambiguous: the statement or COMMIT may have applied. As a JDBC
//     driver does after a socket timeout, the connection is then broken: it sends a close to
//     the server (which rolls back whatever is still open, if the close arrives) and answers
//     every later call with CallStatus::closed. The pool replaces it when it is returned.
//   * Returning a connection with an open transaction rolls it back (HikariCP does on close).
//     The ROLLBACK is sent without waiting for its answer, so a fiber being unwound by a crash
//     never blocks in a destructor; the server handles a session's requests in order.
//   * A crash of the app node loses every connection: the pool notices the new incarnation on
//     the next acquire() and starts afresh; the server reaps the dead sessions on its side.
//
// Fault points (sim::World::reach) the connection marks on the app node, so a fault plan can
// strike a purchase at a moment of its transaction whatever design runs it: after_read (a
// SELECT of stock answered), before_write (an UPDATE of stock about to be sent), before_insert
// (an order INSERT), before_commit (a COMMIT, or an autocommit statement, about to be sent) and
// after_commit (it answered OK).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/db/db_server.h"
#include "sim/sync.h"
#include "sim/time.h"
#include "sim/world.h"

namespace oversim::db {

enum class CallStatus {
  ok,         // the server answered: see DbCall::result
  timed_out,  // no answer within rpc_timeout: AMBIGUOUS, it may have applied
  refused,    // max_connections reached on the server (53300); nothing applied
  closed,     // the connection broke earlier (after a timeout); nothing was sent
};
std::string to_string(CallStatus status);

struct DbCall {
  CallStatus status = CallStatus::ok;
  Result result;                  // meaningful when status == ok
  std::optional<TxnId> open_txn;  // the session's transaction after the call (status ok)

  // The server answered and the statement succeeded.
  bool ok() const { return status == CallStatus::ok && result.ok(); }
  // The client cannot know whether the request took effect.
  bool ambiguous() const { return status == CallStatus::timed_out; }
  int64_t rows() const { return result.rows_affected; }
};
// "UPDATE 1", "ERROR: ...", "timed out (ambiguous)", ...
std::string to_string(const DbCall& call);

struct DbPoolConfig {
  std::string name = "pool";  // distinguishes several pools on one node
  std::string server = "db";  // the DB node's name
  size_t size = 10;                                       // HikariCP maximumPoolSize default
  sim::Duration acquire_timeout = sim::Duration::s(30);   // HikariCP connectionTimeout default
  // Per call (pgJDBC socketTimeout). Longer than the server's lock_timeout, so that a lock wait
  // ends as a clear LockTimeout error rather than an ambiguous client timeout.
  sim::Duration rpc_timeout = sim::Duration::s(5);
};

class DbPool;

// A borrowed connection; returns itself to the pool when destroyed (rolling back any open
// transaction). Movable, not copyable. Use only from fibers of the pool's node.
class DbConnection {
 public:
  DbConnection(DbConnection&& other) noexcept;
  DbConnection& operator=(DbConnection&& other) noexcept;
  DbConnection(const DbConnection&) = delete;
  DbConnection& operator=(const DbConnection&) = delete;
  ~DbConnection();

  DbCall begin(std::optional<IsolationLevel> isolation = std::nullopt);
  DbCall execute(const Statement& statement);
  DbCall commit();
  DbCall rollback();
  DbCall autocommit(const Statement& statement);

  bool in_transaction() const;
  bool broken() const;
  int64_t number() const;  // the connection number in the server's SessionId

 private:
  friend class DbPool;
  DbConnection(DbPool& pool, size_t slot, uint64_t incarnation)
      : pool_(&pool), slot_(slot), incarnation_(incarnation) {}
  void give_back();

  DbPool* pool_ = nullptr;
  size_t slot_ = 0;
  uint64_t incarnation_ = 0;  // the app node's incarnation when it was borrowed
};

class DbPool {
 public:
  DbPool(sim::World& world, sim::Node& app, DbPoolConfig config = {});
  DbPool(const DbPool&) = delete;
  DbPool& operator=(const DbPool&) = delete;

  // Waits at most acquire_timeout for a free connection; nullopt on pool exhaustion.
  std::optional<DbConnection> acquire();

  const DbPoolConfig& config() const { return config_; }
  size_t in_use() const;
  size_t waiting() const { return waiters_.size(); }
  uint64_t acquire_timeouts() const { return acquire_timeouts_; }

 private:
  friend class DbConnection;
  struct Slot {
    int64_t connection = 0;  // 0: no session yet
    int64_t seq = 0;
    bool in_use = false;
    bool broken = false;
    std::optional<TxnId> open_txn;
  };

  DbCall call(size_t slot, DbOp op, std::string summary);
  // Sends a request without waiting for an answer (ROLLBACK on return, close after a timeout).
  void send(Slot& slot, DbOp op, std::string summary);
  SessionId session(const Slot& slot) const;
  void give_back(size_t slot, uint64_t incarnation);
  void reset_if_restarted();

  sim::World& world_;
  sim::Node& app_;
  DbPoolConfig config_;
  std::vector<Slot> slots_;
  sim::WaitQueue waiters_;
  uint64_t incarnation_ = 0;
  int64_t next_connection_ = 1;
  uint64_t acquire_timeouts_ = 0;
};

}  // namespace oversim::db
