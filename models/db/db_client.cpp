#include "models/db/db_client.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "sim/network.h"

namespace oversim::db {

std::string to_string(CallStatus status) {
  switch (status) {
    case CallStatus::ok: return "ok";
    case CallStatus::timed_out: return "timed out (ambiguous)";
    case CallStatus::refused: return "FATAL: sorry, too many clients already";
    case CallStatus::closed: return "connection closed";
  }
  return "?";
}

std::string to_string(const DbCall& call) {
  return call.status == CallStatus::ok ? to_string(call.result) : to_string(call.status);
}

// ---- DbConnection

DbConnection::DbConnection(DbConnection&& other) noexcept
    : pool_(std::exchange(other.pool_, nullptr)),
      slot_(other.slot_),
      incarnation_(other.incarnation_) {}

DbConnection& DbConnection::operator=(DbConnection&& other) noexcept {
  if (this != &other) {
    give_back();
    pool_ = std::exchange(other.pool_, nullptr);
    slot_ = other.slot_;
    incarnation_ = other.incarnation_;
  }
  return *this;
}

DbConnection::~DbConnection() { give_back(); }

void DbConnection::give_back() {
  if (pool_ != nullptr) std::exchange(pool_, nullptr)->give_back(slot_, incarnation_);
}

DbCall DbConnection::begin(std::optional<IsolationLevel> isolation) {
  return pool_->call(slot_, BeginOp{isolation}, "BEGIN");
}
namespace {
void before(sim::World& world, const Statement& statement) {
  if (std::holds_alternative<UpdateStock>(statement)) world.reach("before_write");
  if (std::holds_alternative<InsertOrder>(statement)) world.reach("before_insert");
}
}  // namespace

DbCall DbConnection::execute(const Statement& statement) {
  before(pool_->world_, statement);
  DbCall call = pool_->call(slot_, ExecuteOp{statement}, to_sql(statement));
  if (call.ok() && std::holds_alternative<SelectStock>(statement)) pool_->world_.reach("after_read");
  return call;
}
DbCall DbConnection::commit() {
  pool_->world_.reach("before_commit");
  DbCall call = pool_->call(slot_, CommitOp{}, "COMMIT");
  if (call.ok()) pool_->world_.reach("after_commit");
  return call;
}
DbCall DbConnection::rollback() { return pool_->call(slot_, RollbackOp{}, "ROLLBACK"); }
DbCall DbConnection::autocommit(const Statement& statement) {
  before(pool_->world_, statement);
  pool_->world_.reach("before_commit");
  DbCall call = pool_->call(slot_, AutocommitOp{statement}, to_sql(statement));
  if (call.ok()) pool_->world_.reach("after_commit");
  return call;
}
bool DbConnection::in_transaction() const { return pool_->slots_.at(slot_).open_txn.has_value(); }
bool DbConnection::broken() const { return pool_->slots_.at(slot_).broken; }
int64_t DbConnection::number() const { return pool_->slots_.at(slot_).connection; }

// ---- DbPool

DbPool::DbPool(sim::World& world, sim::Node& app, DbPoolConfig config)
    : world_(world), app_(app), config_(std::move(config)), incarnation_(app.incarnation()) {
  if (config_.size == 0) throw sim::SimError("DbPool: size must be at least 1");
  slots_.resize(config_.size);
}

size_t DbPool::in_use() const {
  return static_cast<size_t>(
      std::count_if(slots_.begin(), slots_.end(), [](const Slot& s) { return s.in_use; }));
}

void DbPool::reset_if_restarted() {
  if (app_.incarnation() == incarnation_) return;
  // The process restarted: its sockets were closed by the kernel and the pool is new.
  incarnation_ = app_.incarnation();
  for (Slot& slot : slots_) slot = Slot{};
}

std::optional<DbConnection> DbPool::acquire() {
  reset_if_restarted();
  const sim::Instant deadline = world_.now() + config_.acquire_timeout;
  for (;;) {
    for (size_t i = 0; i < slots_.size(); ++i) {
      if (slots_[i].in_use) continue;
      slots_[i].in_use = true;
      return DbConnection(*this, i, incarnation_);
    }
    if (waiters_.wait(deadline, "db pool acquire") == sim::WakeReason::timed_out) {
      ++acquire_timeouts_;
      world_.trace("db-pool-timeout",
                   {{"pool", config_.name},
                    {"waited", sim::format_duration(config_.acquire_timeout)},
                    {"in_use", fmt::format("{}/{}", in_use(), slots_.size())}});
      return std::nullopt;
    }
  }
}

void DbPool::give_back(size_t index, uint64_t incarnation) {
  // A connection of a crashed incarnation unwinds after the crash: that pool is gone.
  if (incarnation != incarnation_ || !app_.up() || app_.incarnation() != incarnation_) return;
  Slot& slot = slots_.at(index);
  if (slot.broken) {
    slot = Slot{};  // a fresh connection (a new session) next time
  } else if (slot.open_txn) {
    send(slot, RollbackOp{}, "ROLLBACK");
    slot.open_txn.reset();
  }
  slot.in_use = false;
  waiters_.notify_one();
}

SessionId DbPool::session(const Slot& slot) const {
  return SessionId{app_.id(), incarnation_, config_.name, slot.connection};
}

void DbPool::send(Slot& slot, DbOp op, std::string summary) {
  if (slot.connection == 0) return;  // never opened: nothing on the server to tell
  sim::Node& server = world_.node(config_.server);
  DbRequest request{session(slot), ++slot.seq, std::move(op)};
  world_.network().send(app_, server, "db", std::move(request), std::move(summary));
}

DbCall DbPool::call(size_t index, DbOp op, std::string summary) {
  Slot& slot = slots_.at(index);
  DbCall out;
  if (slot.broken) {
    out.status = CallStatus::closed;
    return out;
  }
  if (slot.connection == 0) slot.connection = next_connection_++;
  sim::Node& server = world_.node(config_.server);
  DbRequest request{session(slot), ++slot.seq, std::move(op)};
  sim::RpcResult<DbReply> reply = world_.network().call_as<DbReply>(
      app_, server, "db", std::move(request), summary, config_.rpc_timeout);
  // The slot may have been reset meanwhile if this node crashed; the fiber is then cancelled
  // before it gets here, so `slot` is still ours.
  if (!reply.ok()) {
    out.status = CallStatus::timed_out;
    world_.trace("db-call", {{"pool", config_.name},
                             {"connection", std::to_string(slot.connection)},
                             {"sql", summary},
                             {"result", to_string(out.status)}});
    send(slot, CloseOp{}, "close");
    slot.broken = true;
    slot.open_txn.reset();
    return out;
  }
  if (reply.value->refused) {
    out.status = CallStatus::refused;
    slot.connection = 0;  // no session was created; try a new one next time
    slot.seq = 0;
    return out;
  }
  out.result = std::move(reply.value->result);
  out.open_txn = reply.value->open_txn;
  slot.open_txn = out.open_txn;
  return out;
}

}  // namespace oversim::db
