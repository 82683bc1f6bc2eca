// The pure Redis state machine: a key space of strings with millisecond expiries, the handful of
// commands the lock and stock designs use, and replication expressed as data. No fibers, no
// network, no clock of its own: the caller passes the node's local clock reading with every
// command, so clock drift and jumps on one node change what that node sees, exactly as they would
// for a real server. A simulated server node wraps this class; keeping the state pure lets the unit
// tests pin every reply and lets a checker replay a log without a simulation.
//
// Semantics follow Redis 7 where the designs can observe them:
// - Time is Redis's millisecond clock: the local reading floored to whole ms.
// - A key with expiry `when_ms` is expired once `now_ms > when_ms` (db.c keyIsExpired), so a
//   key set with PX 3000 at 0ms is still visible at 3000ms and gone at 3001ms (PTTL 0 at 3000ms).
// - Expiry is lazy: an expired key is invisible to every command; a primary deletes it on access
//   and propagates a DEL, a replica only hides it (Redis >= 3.2) and waits for the primary's DEL.
// - Writes propagate their effect, not their text: relative expiries become absolute
//   (SET .. PX n -> SET .. PXAT abs, PEXPIRE -> PEXPIREAT) and scripts propagate the writes they
//   made (Redis 7 effect replication). The same entries double as the append-only file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "sim/time.h"

namespace oversim::redis {

using sim::Duration;
using sim::Instant;

// ---- Commands as data -------------------------------------------------------------------------

enum class SetCondition { always, if_absent /* NX */, if_present /* XX */ };

// SET's expiry argument; EX and PX are relative to the primary's clock, PXAT is absolute (the only
// form that travels in replication entries, next to `none` and `keepttl`).
enum class SetExpiry { none, ex, px, pxat, keepttl };

struct Get {
  std::string key;
  friend bool operator==(const Get&, const Get&) = default;
};
struct Set {
  std::string key;
  std::string value;
  SetCondition condition = SetCondition::always;
  SetExpiry expiry = SetExpiry::none;
  // EX: seconds; PX: milliseconds; PXAT: absolute local ms; ignored for none and keepttl.
  int64_t expiry_arg = 0;
  friend bool operator==(const Set&, const Set&) = default;
};
struct Del {
  std::string key;
  friend bool operator==(const Del&, const Del&) = default;
};
struct PExpire {
  std::string key;
  int64_t ttl_ms = 0;
  friend bool operator==(const PExpire&, const PExpire&) = default;
};
struct PExpireAt {
  std::string key;
  int64_t at_ms = 0;  // absolute, on the executing node's local millisecond clock
  friend bool operator==(const PExpireAt&, const PExpireAt&) = default;
};
struct PTtl {
  std::string key;
  friend bool operator==(const PTtl&, const PTtl&) = default;
};
struct Incr {
  std::string key;
  friend bool operator==(const Incr&, const Incr&) = default;
};
struct IncrBy {
  std::string key;
  int64_t increment = 0;
  friend bool operator==(const IncrBy&, const IncrBy&) = default;
};
struct DecrBy {
  std::string key;
  int64_t decrement = 0;
  friend bool operator==(const DecrBy&, const DecrBy&) = default;
};

// The three Lua scripts the lock designs run, as named atomic commands. Each runs against one
// clock reading (Redis freezes time for a script) and replicates only the writes it made.

// Token-compare release: `if GET(key) == token then DEL(key)`. Replies 1 if deleted, else 0.
struct DelIfEquals {
  std::string key;
  std::string token;
  friend bool operator==(const DelIfEquals&, const DelIfEquals&) = default;
};
// Watchdog renewal: `if GET(key) == token then PEXPIRE(key, ttl_ms)`. Replies 1 if renewed, else 0.
struct PExpireIfEquals {
  std::string key;
  std::string token;
  int64_t ttl_ms = 0;
  friend bool operator==(const PExpireIfEquals&, const PExpireIfEquals&) = default;
};
// Stock pre-deduction: `if value - amount >= floor then DECRBY(key, amount)`. Replies the new
// value, or -1 when the key is absent or the stock would fall below floor. amount >= 1 and floor >=
// 0 are required (an error otherwise) so that -1 can never be a real new value.
struct DecrIfAtLeast {
  std::string key;
  int64_t amount = 1;
  int64_t floor = 0;
  friend bool operator==(const DecrIfAtLeast&, const DecrIfAtLeast&) = default;
};

// Idempotent compensation: `if SET(marker, 1, NX) then INCRBY(key, increment)`: the marker and
// the increment in one atomic script, so a repeat (a retried call, a second compensator) finds
// the marker and changes nothing. Replies the new value, or nil when the marker was there.
struct IncrOnce {
  std::string key;
  std::string marker;
  int64_t increment = 1;
  friend bool operator==(const IncrOnce&, const IncrOnce&) = default;
};

// Pre-deduction with a reservation record: `if GET(key) >= 1 then DECRBY(key, 1); n =
// INCR(seq_key); SET(seq_key .. ":" .. n, value)`, so every unit taken leaves a numbered record
// a reconciler can walk (1..GET(seq_key)). Replies n, or -1 when the key is absent or at 0.
struct DecrAndReserve {
  std::string key;
  std::string seq_key;
  std::string value;
  friend bool operator==(const DecrAndReserve&, const DecrAndReserve&) = default;
};

struct Command {
  using Op = std::variant<Get, Set, Del, PExpire, PExpireAt, PTtl, Incr, IncrBy, DecrBy,
                          DelIfEquals, PExpireIfEquals, DecrIfAtLeast, IncrOnce, DecrAndReserve>;
  Op op;

  static Command get(std::string key);
  static Command set(std::string key, std::string value);
  static Command set_px(std::string key, std::string value, int64_t ttl_ms);
  static Command set_ex(std::string key, std::string value, int64_t ttl_s);
  static Command set_nx(std::string key, std::string value);
  static Command set_nx_px(std::string key, std::string value, int64_t ttl_ms);
  static Command set_xx(std::string key, std::string value);
  static Command set_keepttl(std::string key, std::string value);
  static Command set_pxat(std::string key, std::string value, int64_t at_ms);
  static Command del(std::string key);
  static Command pexpire(std::string key, int64_t ttl_ms);
  static Command pexpireat(std::string key, int64_t at_ms);
  static Command pttl(std::string key);
  static Command incr(std::string key);
  static Command incrby(std::string key, int64_t increment);
  static Command decrby(std::string key, int64_t decrement);
  static Command del_if_equals(std::string key, std::string token);
  static Command pexpire_if_equals(std::string key, std::string token, int64_t ttl_ms);
  static Command decr_if_at_least(std::string key, int64_t amount, int64_t floor);
  static Command incr_once(std::string key, std::string marker, int64_t increment);
  static Command decr_and_reserve(std::string key, std::string seq_key, std::string value);

  const std::string& key() const;
  // True for every command a read-only replica refuses (the scripts count: they may write).
  bool is_write() const;

  friend bool operator==(const Command&, const Command&) = default;
};

// Renders like redis-cli input: `SET lock:stock:sku1 tok-3 NX PX 3000`; scripts as
// `EVAL del_if_equals lock:stock:sku1 tok-3`. Arguments that need it are quoted and escaped.
std::string to_string(const Command& command);

// ---- Replies ----------------------------------------------------------------------------------

class Reply {
 public:
  enum class Kind { nil, ok, integer, bulk, error };

  static Reply nil() { return Reply(Kind::nil, 0, {}); }
  static Reply ok() { return Reply(Kind::ok, 0, {}); }
  static Reply integer(int64_t value) { return Reply(Kind::integer, value, {}); }
  static Reply bulk(std::string value) { return Reply(Kind::bulk, 0, std::move(value)); }
  // `message` starts with the Redis error code: "ERR ...", "READONLY ...".
  static Reply error(std::string message) { return Reply(Kind::error, 0, std::move(message)); }

  Kind kind() const { return kind_; }
  bool is_error() const { return kind_ == Kind::error; }
  // Checked accessors: asking an OK reply for its integer is a caller bug, not a value.
  int64_t as_integer() const;
  const std::string& as_bulk() const;
  const std::string& error_message() const;

  friend bool operator==(const Reply&, const Reply&) = default;

 private:
  Reply(Kind kind, int64_t integer, std::string text)
      : kind_(kind), integer_(integer), text_(std::move(text)) {}
  Kind kind_;
  int64_t integer_;
  std::string text_;
};

// Renders like redis-cli output: `OK`, `(nil)`, `(integer) 1`, `"tok-3"`, `(error) ERR ...`.
std::string to_string(const Reply& reply);

inline constexpr const char* kReadonlyError =
    "READONLY You can't write against a read only replica.";
inline constexpr const char* kNotIntegerError = "ERR value is not an integer or out of range";

// ---- Replication as data ----------------------------------------------------------------------

// One write's effect. Offsets count entries (1, 2, 3, ...), not bytes as in Redis: the simulation
// needs order and gaps, not byte positions.
struct ReplicationEntry {
  uint64_t offset = 0;
  Command effect;
  friend bool operator==(const ReplicationEntry&, const ReplicationEntry&) = default;
};

// `#7 SET lock:stock:sku1 tok-3 PXAT 3000`
std::string to_string(const ReplicationEntry& entry);

// A command's reply plus the entries it appended, in order. Usually zero or one entry; two when a
// write lands on a key that had just expired (the DEL for the expired key, then the write itself),
// so this is a vector rather than an optional.
struct ApplyResult {
  Reply reply;
  std::vector<ReplicationEntry> replicated;
  std::vector<std::string> expired;  // keys the command found expired and deleted (on access)
};

enum class Role { primary, replica };

// ---- The state machine ------------------------------------------------------------------------

struct Entry {
  std::string value;
  std::optional<Instant> expires_at;  // local clock, whole milliseconds
  friend bool operator==(const Entry&, const Entry&) = default;
};

class RedisState {
 public:
  // An empty primary at replication offset 0.
  RedisState() = default;

  // Runs one client command against the node's local clock reading. A primary deletes expired
  // keys it touches and replicates every write; a replica answers reads (hiding keys expired by
  // its own clock) and refuses writes with READONLY.
  ApplyResult apply(const Command& command, Instant local_now);

  // Active expiry (Redis's expire cycle, made exhaustive and ordered so it is deterministic):
  // a primary deletes every key expired at local_now and replicates one DEL per key, in key order.
  // A replica does nothing and returns nothing.
  std::vector<ReplicationEntry> active_expire(Instant local_now);

  // Applies one entry from the primary's stream or from an append-only file being loaded. Offsets
  // must follow replication_offset() with no gap (throws std::logic_error otherwise). Effects apply
  // unconditionally, without judging expiry, like Redis applying its master's stream or loading an
  // AOF: the primary already decided, and sent a DEL for every key it saw expire.
  void apply_replicated(const ReplicationEntry& entry);

  Role role() const { return role_; }
  // Promotion keeps the key space and continues the offset; demotion stops writes at once.
  void set_role(Role role) { role_ = role; }
  // The last offset produced (primary) or applied (replica); 0 before any write.
  uint64_t replication_offset() const { return offset_; }

  // The data set's history, as Redis's replication IDs (PSYNC2: master_replid and
  // master_replid2 with second_repl_offset): the lineage the current offsets belong to, and the
  // earlier lineages with the last offset of each that this data includes. A snapshot carries it,
  // so a replica's full resync adopts its primary's history. "" before any primary named one.
  const std::string& lineage() const { return lineage_; }
  // A node that becomes a primary starts a lineage of its own: the current one ends at offset_.
  void start_lineage(std::string id);
  // Whether the write at `offset` of `lineage` is part of this data's history.
  bool includes(const std::string& lineage, uint64_t offset) const;
  // The last offset of `lineage` this data includes (0 when none).
  uint64_t lineage_end(const std::string& lineage) const;

  // Persistence hooks. A snapshot is a full copy (an RDB); `replace_with` installs one, e.g. a
  // replica's full resync or a restart loading its RDB. The node keeps its own role.
  RedisState snapshot() const { return *this; }
  void replace_with(RedisState other);
  // A key present before the run starts (loaded from a snapshot on every server before the
  // sale: the data a design keeps in Redis, such as the stock). No expiry, no replication entry,
  // no change to the offset.
  void preload(const std::string& key, std::string value) { keys_[key] = Entry{std::move(value), std::nullopt}; }

  // Stored keys, counting expired ones nobody has touched yet (like DBSIZE).
  std::size_t size() const { return keys_.size(); }
  const std::map<std::string, Entry>& entries() const { return keys_; }
  // One line per key in key order, `lock:stock:sku1 = "tok-3" expires_at=3000ms`, then a last
  // line `role=primary offset=N`.
  std::string dump() const;

 private:
  // Primary only: returns the live entry or nullptr, deleting an expired one and logging its DEL.
  Entry* lookup_for_write(const std::string& key, int64_t now_ms,
                          std::vector<ReplicationEntry>& log);
  // Read path for both roles: hides expired keys; a primary also deletes them and logs the DEL.
  const Entry* lookup_for_read(const std::string& key, int64_t now_ms,
                               std::vector<ReplicationEntry>& log);
  Reply execute(const Command& command, int64_t now_ms, std::vector<ReplicationEntry>& log);
  void append(Command effect, std::vector<ReplicationEntry>& log);
  void apply_effect(const Command& effect);

  // Every change to the key space goes through these, which keep `deadlines_` in step.
  void put(const std::string& key, Entry entry);
  void erase_key(const std::string& key);
  void erase_entry(std::map<std::string, Entry>::iterator it);
  void set_expiry(const std::string& key, Entry& entry, Instant at);

  std::map<std::string, Entry> keys_;
  std::vector<std::string> expired_on_access_;  // filled during one apply(), then handed out
  // The keys with an expiry, by (expiry in ms, key): active expiry visits only the expired ones
  // instead of the whole key space (a sale's idempotency keys and orders are most of it).
  std::set<std::pair<int64_t, std::string>> deadlines_;
  Role role_ = Role::primary;
  uint64_t offset_ = 0;
  std::string lineage_;
  std::vector<std::pair<std::string, uint64_t>> earlier_lineages_;  // (lineage, its last offset here)
};

// Redis's clock: a local reading floored to whole milliseconds (floored, not truncated toward
// zero, so a clock stepped before zero still orders correctly).
int64_t to_ms(Instant local_now);

}  // namespace oversim::redis
