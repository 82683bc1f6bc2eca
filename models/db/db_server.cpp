#include "models/db/db_server.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace oversim::db {
namespace {

template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

Result tag(Outcome kind, Command command) {
  Result r;
  r.kind = kind;
  r.command = command;
  return r;
}

// Statements that change or lock a row cost a write and make the COMMIT flush WAL.
bool is_write(const Statement& statement) {
  if (const auto* s = std::get_if<SelectStock>(&statement)) return s->for_update;
  return !std::holds_alternative<SelectOrderByRequestId>(statement) &&
         !std::holds_alternative<SelectOrderByUserSkuActivity>(statement) &&
         !std::holds_alternative<SelectLedger>(statement) &&
         !std::holds_alternative<CountOrders>(statement) &&
         !std::holds_alternative<SelectOrderById>(statement) &&
         !std::holds_alternative<SelectOrdersByStatus>(statement);
}

std::string begin_sql(IsolationLevel isolation) {
  return isolation == IsolationLevel::RepeatableRead ? "BEGIN ISOLATION LEVEL REPEATABLE READ"
                                                     : "BEGIN ISOLATION LEVEL READ COMMITTED";
}

}  // namespace

std::string to_string(const SessionId& session) {
  return fmt::format("n{}.{}/{}#{}", session.client, session.client_incarnation, session.pool,
                     session.connection);
}

DbServer::DbServer(sim::World& world, DbServerConfig config)
    : world_(world),
      config_(std::move(config)),
      node_(world.add_node(config_.node)),
      state_([this] {
        DbConfig schema = config_.schema;
        schema.defer_deadlock_detection = true;  // the server models deadlock_timeout
        return schema;
      }()) {
  for (const auto& [sku, available] : config_.stock) state_.add_stock(sku, available);
  node_.set_on_crash([this](sim::Node&) {
    // The postmaster dies with every backend: in-flight transactions vanish (their writes were
    // never committed), committed rows are on disk.
    for (TxnId txn : state_.in_flight()) {
      world_.trace_at(&node_, "sql", {{"txn", db::to_string(txn)}, {"sql", "(server crashed)"},
                                      {"result", "transaction aborted"}});
    }
    state_.crash();
    sessions_.clear();
  });
  node_.set_boot([this](sim::Node& node) { boot(node); });
}

void DbServer::boot(sim::Node& node) {
  world_.spawn(&node, "db-accept", [this] { accept_loop(); }, /*daemon=*/true);
  world_.spawn(&node, "db-reaper", [this] { reap_loop(); }, /*daemon=*/true);
}

void DbServer::accept_loop() {
  for (;;) {
    std::optional<sim::Message> message = node_.mailbox("db").receive(std::nullopt, "db accept");
    world_.spawn(&node_, "db-backend", [this, m = std::move(*message)] { serve(m); },
                 /*daemon=*/true);
  }
}

void DbServer::serve(const sim::Message& message) {
  const auto& request = std::any_cast<const DbRequest&>(message.body);
  Session* session = find(request.session);
  if (session == nullptr) {
    if (std::holds_alternative<CloseOp>(request.op)) return;
    if (sessions_.size() >= config_.max_connections) reap_dead_clients();
    if (sessions_.size() >= config_.max_connections) {
      world_.trace("db-refused", {{"session", to_string(request.session)},
                                  {"error", "FATAL: sorry, too many clients already"}});
      DbReply refused;
      refused.refused = true;
      if (message.rpc_id != 0) world_.network().reply(node_, message, refused, "refused");
      return;
    }
    session = &sessions_[request.session];
  }
  // A TCP stream delivers each request once and in order: a duplicated or overtaken message
  // (a network fault the kernel models for datagrams) is not a new request.
  if (request.seq <= session->last_seq) return;
  session->last_seq = request.seq;

  DbReply reply = handle(request.session, request.op);
  if (message.rpc_id == 0) return;
  const std::string summary =
      std::holds_alternative<BeginOp>(request.op) && reply.result.ok() ? "BEGIN" : to_string(reply.result);
  world_.network().reply(node_, message, std::move(reply), summary);
}

DbReply DbServer::handle(const SessionId& id, const DbOp& op) {
  const DbServiceTimes& cost = config_.service;
  DbReply reply;
  // Every branch re-finds the session after sleeping: a Close, the reaper or a crash may have
  // ended it meanwhile (a crash also cancels this fiber).
  reply.result = std::visit(
      Overloaded{
          [&](const BeginOp& begin) {
            sim::sleep_for(cost.begin);
            Session* s = find(id);
            if (s == nullptr) return tag(Outcome::NoTransaction, Command::Select);
            if (!s->txn) {  // else PostgreSQL warns "there is already a transaction in progress"
              const IsolationLevel isolation = begin.isolation.value_or(config_.default_isolation);
              s->txn = state_.begin(isolation);
              s->wrote = false;
              trace_sql(*s->txn, begin_sql(isolation), "BEGIN");
              reaper_idle_.notify_all();
            }
            return tag(Outcome::Ok, Command::Select);
          },
          [&](const ExecuteOp& execute) {
            sim::sleep_for(is_write(execute.statement) ? cost.write : cost.select);
            Session* s = find(id);
            // Statements outside a transaction block are AutocommitOp in this protocol.
            if (s == nullptr || !s->txn) return tag(Outcome::NoTransaction, Command::Select);
            const TxnId txn = *s->txn;
            Result r = run(txn, execute.statement);
            s = find(id);
            if (s != nullptr && s->txn == txn && r.ok() && is_write(execute.statement)) {
              s->wrote = true;
            }
            return r;
          },
          [&](const CommitOp&) { return commit(id); },
          [&](const RollbackOp&) {
            sim::sleep_for(cost.rollback);
            Session* s = find(id);
            if (s != nullptr && s->txn) {
              trace_sql(*s->txn, "ROLLBACK", "ROLLBACK");
              abort_session_txn(*s, nullptr);
            }
            return tag(Outcome::Ok, Command::Rollback);
          },
          [&](const AutocommitOp& autocommit) {
            sim::sleep_for(is_write(autocommit.statement) ? cost.write : cost.select);
            Session* s = find(id);
            if (s == nullptr) return tag(Outcome::NoTransaction, Command::Select);
            if (s->txn) {  // inside a transaction block: part of that transaction
              const TxnId txn = *s->txn;
              Result r = run(txn, autocommit.statement);
              s = find(id);
              if (s != nullptr && s->txn == txn && r.ok() && is_write(autocommit.statement)) {
                s->wrote = true;
              }
              return r;
            }
            s->txn = state_.begin(IsolationLevel::ReadCommitted);
            s->wrote = is_write(autocommit.statement);
            reaper_idle_.notify_all();
            Result r = run(*s->txn, autocommit.statement);
            if (!r.ok()) {
              if (Session* again = find(id); again != nullptr) abort_session_txn(*again, nullptr);
              return r;
            }
            Result committed = commit(id);
            return committed.ok() ? r : committed;
          },
          [&](const CloseOp&) {
            if (Session* s = find(id); s != nullptr) {
              abort_session_txn(*s, "client closed the connection");
              sessions_.erase(id);
            }
            return tag(Outcome::Ok, Command::Rollback);
          },
      },
      op);
  if (Session* s = find(id); s != nullptr) reply.open_txn = s->txn;
  return reply;
}

Result DbServer::commit(const SessionId& id) {
  Session* s = find(id);
  if (s == nullptr || !s->txn) return tag(Outcome::NoTransaction, Command::Commit);
  const TxnId txn = *s->txn;
  // The backend holds its locks through the WAL flush: PostgreSQL releases them only after the
  // commit record is durable. A read-only transaction has no commit record to flush.
  sim::sleep_for(s->wrote ? config_.service.commit : config_.service.rollback);
  s = find(id);
  if (s == nullptr || s->txn != txn) return tag(Outcome::NoTransaction, Command::Commit);
  Result r = state_.commit(txn);
  s->txn.reset();
  s->wrote = false;
  after_change();
  trace_sql(txn, "COMMIT", to_string(r));
  return r;
}

Result DbServer::run(TxnId txn, const Statement& statement) {
  const std::string sql = to_sql(statement);
  for (;;) {
    Result r = state_.execute(txn, statement);
    after_change();  // an error aborts the txn and releases its locks
    trace_sql(txn, sql, to_string(r));
    if (r.kind != Outcome::Blocked) return r;

    // One lock wait: PostgreSQL arms lock_timeout and deadlock_timeout when it starts waiting.
    const sim::Instant start = world_.now();
    std::optional<sim::Instant> lock_deadline;
    if (config_.lock_timeout > sim::Duration::zero()) lock_deadline = start + config_.lock_timeout;
    std::optional<sim::Instant> deadlock_check = start + config_.deadlock_timeout;
    while (state_.waiting_for(txn)) {
      std::optional<sim::Instant> deadline = lock_deadline;
      if (deadlock_check && (!deadline || *deadlock_check < *deadline)) deadline = deadlock_check;
      if (txn_ended_.wait(deadline, "db lock wait") != sim::WakeReason::timed_out) continue;
      if (!state_.waiting_for(txn)) break;
      if (deadlock_check && world_.now() >= *deadlock_check) {
        deadlock_check.reset();  // checked once per wait, as PostgreSQL does
        if (state_.detect_deadlock(txn)) {
          after_change();
          trace_sql(txn, sql, "ERROR: deadlock detected");
          return tag(Outcome::DeadlockDetected, r.command);
        }
      }
      if (lock_deadline && world_.now() >= *lock_deadline) {
        Result timeout = state_.lock_timeout(txn);
        after_change();
        trace_sql(txn, sql, to_string(timeout));
        return timeout;
      }
    }
  }
}

void DbServer::abort_session_txn(Session& session, const char* why) {
  if (!session.txn) return;
  if (why != nullptr) trace_sql(*session.txn, "(session closed)", fmt::format("ROLLBACK: {}", why));
  state_.rollback(*session.txn);
  session.txn.reset();
  session.wrote = false;
  after_change();
}

DbServer::Session* DbServer::find(const SessionId& id) {
  auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : &it->second;
}

bool DbServer::reap_dead_clients() {
  bool any = false;
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    const sim::Node& client = *world_.nodes().at(it->first.client);
    if (client.up() && client.incarnation() == it->first.client_incarnation) {
      ++it;
      continue;
    }
    abort_session_txn(it->second, "client process died");
    it = sessions_.erase(it);
    any = true;
  }
  return any;
}

void DbServer::reap_loop() {
  // Polls only while some session holds a transaction open: that is when a dead client costs
  // something (locks). Idle dead sessions are reaped when max_connections is reached.
  for (;;) {
    const bool open = std::any_of(sessions_.begin(), sessions_.end(),
                                  [](const auto& entry) { return entry.second.txn.has_value(); });
    if (!open) {
      reaper_idle_.wait(std::nullopt, "db reaper idle");
      continue;
    }
    sim::sleep_for(config_.client_check_interval);
    reap_dead_clients();
  }
}

void DbServer::after_change() {
  if (!state_.take_woken().empty()) txn_ended_.notify_all();
  if (state_.commit_count() != commits_seen_) {
    commits_seen_ = state_.commit_count();
    if (commit_hook_) commit_hook_();
  }
}

void DbServer::trace_sql(TxnId txn, const std::string& sql, const std::string& result) {
  world_.trace_at(&node_, "sql", {{"txn", db::to_string(txn)}, {"sql", sql}, {"result", result}});
}

}  // namespace oversim::db
