#include "models/redis/redis_state.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <system_error>
#include <utility>

namespace oversim::redis {
namespace {

constexpr int64_t kNsPerMs = 1'000'000;
// The largest absolute expiry an Instant can hold; Redis rejects expiries that overflow its own
// clock with the same "invalid expire time" error, so the shape of the failure is the same.
constexpr int64_t kMaxAtMs = Instant::max().ns() / kNsPerMs;

Instant from_ms(int64_t at_ms) { return Instant::from_ns(at_ms * kNsPerMs); }

[[noreturn]] void fail(const std::string& what) { throw std::logic_error("redis_state: " + what); }

// Redis's string2ll: only the canonical decimal form of an int64 is an integer ("007", "+1",
// " 1", "-0" and "" are not), which is exactly "parses and prints back identically".
std::optional<int64_t> parse_integer(const std::string& text) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  if (std::to_string(value) != text) return std::nullopt;
  return value;
}

// when = now + ttl_ms, or nullopt when that leaves the representable range.
std::optional<int64_t> absolute_ms(int64_t now_ms, int64_t ttl_ms) {
  int64_t at_ms = 0;
  if (__builtin_add_overflow(now_ms, ttl_ms, &at_ms)) return std::nullopt;
  if (at_ms > kMaxAtMs) return std::nullopt;
  return at_ms;
}

bool is_expired(const Entry& entry, int64_t now_ms) {
  // db.c keyIsExpired: `now > when`; the expiry instant itself is still live.
  return entry.expires_at.has_value() && now_ms > to_ms(*entry.expires_at);
}

Reply invalid_expire(const char* command) {
  return Reply::error(fmt::format("ERR invalid expire time in '{}' command", command));
}

// redis-cli / sdscatrepr quoting: printable text without spaces or quotes goes bare.
bool needs_quotes(const std::string& arg) {
  if (arg.empty()) return true;
  for (char c : arg) {
    auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7f || c == '"' || c == '\'' || c == '\\') return true;
  }
  return false;
}

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      default: {
        auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u >= 0x7f) {
          out += fmt::format("\\x{:02x}", static_cast<unsigned>(u));
        } else {
          out += c;
        }
      }
    }
  }
  out += '"';
  return out;
}

std::string arg(const std::string& text) { return needs_quotes(text) ? quoted(text) : text; }

// `out += arg(text)` without the copy: a poll's SET is formatted once per request.
void append_arg(std::string& out, const std::string& text) {
  if (needs_quotes(text)) {
    out += quoted(text);
  } else {
    out += text;
  }
}

void append_int(std::string& out, int64_t value) {
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
  out.append(digits, end);
}

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

}  // namespace

int64_t to_ms(Instant local_now) {
  int64_t ns = local_now.ns();
  int64_t ms = ns / kNsPerMs;
  if (ns % kNsPerMs < 0) --ms;  // floor, not truncation toward zero
  return ms;
}

// ---- Command ----------------------------------------------------------------------------------

Command Command::get(std::string key) { return {Get{std::move(key)}}; }
Command Command::set(std::string key, std::string value) {
  return {Set{std::move(key), std::move(value)}};
}
Command Command::set_px(std::string key, std::string value, int64_t ttl_ms) {
  return {Set{std::move(key), std::move(value), SetCondition::always, SetExpiry::px, ttl_ms}};
}
Command Command::set_ex(std::string key, std::string value, int64_t ttl_s) {
  return {Set{std::move(key), std::move(value), SetCondition::always, SetExpiry::ex, ttl_s}};
}
Command Command::set_nx(std::string key, std::string value) {
  return {Set{std::move(key), std::move(value), SetCondition::if_absent}};
}
Command Command::set_nx_px(std::string key, std::string value, int64_t ttl_ms) {
  return {Set{std::move(key), std::move(value), SetCondition::if_absent, SetExpiry::px, ttl_ms}};
}
Command Command::set_xx(std::string key, std::string value) {
  return {Set{std::move(key), std::move(value), SetCondition::if_present}};
}
Command Command::set_keepttl(std::string key, std::string value) {
  return {Set{std::move(key), std::move(value), SetCondition::always, SetExpiry::keepttl}};
}
Command Command::set_pxat(std::string key, std::string value, int64_t at_ms) {
  return {Set{std::move(key), std::move(value), SetCondition::always, SetExpiry::pxat, at_ms}};
}
Command Command::del(std::string key) { return {Del{std::move(key)}}; }
Command Command::pexpire(std::string key, int64_t ttl_ms) {
  return {PExpire{std::move(key), ttl_ms}};
}
Command Command::pexpireat(std::string key, int64_t at_ms) {
  return {PExpireAt{std::move(key), at_ms}};
}
Command Command::pttl(std::string key) { return {PTtl{std::move(key)}}; }
Command Command::incr(std::string key) { return {Incr{std::move(key)}}; }
Command Command::incrby(std::string key, int64_t increment) {
  return {IncrBy{std::move(key), increment}};
}
Command Command::decrby(std::string key, int64_t decrement) {
  return {DecrBy{std::move(key), decrement}};
}
Command Command::del_if_equals(std::string key, std::string token) {
  return {DelIfEquals{std::move(key), std::move(token)}};
}
Command Command::pexpire_if_equals(std::string key, std::string token, int64_t ttl_ms) {
  return {PExpireIfEquals{std::move(key), std::move(token), ttl_ms}};
}
Command Command::decr_if_at_least(std::string key, int64_t amount, int64_t floor) {
  return {DecrIfAtLeast{std::move(key), amount, floor}};
}
Command Command::incr_once(std::string key, std::string marker, int64_t increment) {
  return {IncrOnce{std::move(key), std::move(marker), increment}};
}
Command Command::decr_and_reserve(std::string key, std::string seq_key, std::string value) {
  return {DecrAndReserve{std::move(key), std::move(seq_key), std::move(value)}};
}

const std::string& Command::key() const {
  return std::visit([](const auto& c) -> const std::string& { return c.key; }, op);
}

bool Command::is_write() const {
  return !std::holds_alternative<Get>(op) && !std::holds_alternative<PTtl>(op);
}

std::string to_string(const Command& command) {
  return std::visit(
      Overloaded{
          [](const Get& c) {
            std::string out = "GET ";
            append_arg(out, c.key);
            return out;
          },
          [](const Set& c) {
            std::string out;
            out.reserve(32 + c.key.size() + c.value.size());
            out += "SET ";
            append_arg(out, c.key);
            out += ' ';
            append_arg(out, c.value);
            switch (c.condition) {
              case SetCondition::always: break;
              case SetCondition::if_absent: out += " NX"; break;
              case SetCondition::if_present: out += " XX"; break;
            }
            switch (c.expiry) {
              case SetExpiry::none: break;
              case SetExpiry::ex: out += " EX "; break;
              case SetExpiry::px: out += " PX "; break;
              case SetExpiry::pxat: out += " PXAT "; break;
              case SetExpiry::keepttl: out += " KEEPTTL"; break;
            }
            if (c.expiry == SetExpiry::ex || c.expiry == SetExpiry::px || c.expiry == SetExpiry::pxat) append_int(out, c.expiry_arg);
            return out;
          },
          [](const Del& c) { return "DEL " + arg(c.key); },
          [](const PExpire& c) { return fmt::format("PEXPIRE {} {}", arg(c.key), c.ttl_ms); },
          [](const PExpireAt& c) { return fmt::format("PEXPIREAT {} {}", arg(c.key), c.at_ms); },
          [](const PTtl& c) { return "PTTL " + arg(c.key); },
          [](const Incr& c) { return "INCR " + arg(c.key); },
          [](const IncrBy& c) { return fmt::format("INCRBY {} {}", arg(c.key), c.increment); },
          [](const DecrBy& c) { return fmt::format("DECRBY {} {}", arg(c.key), c.decrement); },
          [](const DelIfEquals& c) {
            return fmt::format("EVAL del_if_equals {} {}", arg(c.key), arg(c.token));
          },
          [](const PExpireIfEquals& c) {
            return fmt::format("EVAL pexpire_if_equals {} {} {}", arg(c.key), arg(c.token),
                               c.ttl_ms);
          },
          [](const DecrIfAtLeast& c) {
            return fmt::format("EVAL decr_if_at_least {} {} {}", arg(c.key), c.amount, c.floor);
          },
          [](const IncrOnce& c) {
            return fmt::format("EVAL incr_once {} {} {}", arg(c.key), arg(c.marker), c.increment);
          },
          [](const DecrAndReserve& c) {
            return fmt::format("EVAL decr_and_reserve {} {} {}", arg(c.key), arg(c.seq_key), arg(c.value));
          },
      },
      command.op);
}

// ---- Reply ------------------------------------------------------------------------------------

int64_t Reply::as_integer() const {
  if (kind_ != Kind::integer) fail("as_integer on " + to_string(*this));
  return integer_;
}

const std::string& Reply::as_bulk() const {
  if (kind_ != Kind::bulk) fail("as_bulk on " + to_string(*this));
  return text_;
}

const std::string& Reply::error_message() const {
  if (kind_ != Kind::error) fail("error_message on " + to_string(*this));
  return text_;
}

std::string to_string(const Reply& reply) {
  switch (reply.kind()) {
    case Reply::Kind::nil: return "(nil)";
    case Reply::Kind::ok: return "OK";
    case Reply::Kind::integer: return fmt::format("(integer) {}", reply.as_integer());
    case Reply::Kind::bulk: return quoted(reply.as_bulk());
    case Reply::Kind::error: return "(error) " + reply.error_message();
  }
  fail("unknown reply kind");
}

std::string to_string(const ReplicationEntry& entry) {
  return fmt::format("#{} {}", entry.offset, to_string(entry.effect));
}

// ---- RedisState -------------------------------------------------------------------------------

ApplyResult RedisState::apply(const Command& command, Instant local_now) {
  std::vector<ReplicationEntry> log;
  if (role_ == Role::replica && command.is_write()) {
    return {Reply::error(kReadonlyError), {}, {}};
  }
  expired_on_access_.clear();
  Reply reply = execute(command, to_ms(local_now), log);
  if (role_ == Role::replica && !log.empty()) fail("a replica produced replication entries");
  return {std::move(reply), std::move(log), std::move(expired_on_access_)};
}

std::vector<ReplicationEntry> RedisState::active_expire(Instant local_now) {
  std::vector<ReplicationEntry> log;
  if (role_ == Role::replica) return log;
  int64_t now_ms = to_ms(local_now);
  // The expired keys are a prefix of `deadlines_` (is_expired: now > when); they are deleted in
  // key order, as the scan of the whole key space this replaces did.
  std::vector<std::string> expired;
  for (auto it = deadlines_.begin(); it != deadlines_.end() && now_ms > it->first; ++it) {
    expired.push_back(it->second);
  }
  std::sort(expired.begin(), expired.end());
  for (std::string& key : expired) {
    erase_key(key);
    append(Command::del(std::move(key)), log);
  }
  return log;
}

void RedisState::put(const std::string& key, Entry entry) {
  auto [it, inserted] = keys_.try_emplace(key);
  if (!inserted && it->second.expires_at) deadlines_.erase({to_ms(*it->second.expires_at), key});
  if (entry.expires_at) deadlines_.emplace(to_ms(*entry.expires_at), key);
  it->second = std::move(entry);
}

void RedisState::erase_key(const std::string& key) {
  auto it = keys_.find(key);
  if (it != keys_.end()) erase_entry(it);
}

void RedisState::erase_entry(std::map<std::string, Entry>::iterator it) {
  if (it->second.expires_at) deadlines_.erase({to_ms(*it->second.expires_at), it->first});
  keys_.erase(it);
}

void RedisState::set_expiry(const std::string& key, Entry& entry, Instant at) {
  if (entry.expires_at) deadlines_.erase({to_ms(*entry.expires_at), key});
  entry.expires_at = at;
  deadlines_.emplace(to_ms(at), key);
}

void RedisState::append(Command effect, std::vector<ReplicationEntry>& log) {
  if (role_ != Role::primary) fail("only a primary appends replication entries");
  ++offset_;
  log.push_back(ReplicationEntry{offset_, std::move(effect)});
}

Entry* RedisState::lookup_for_write(const std::string& key, int64_t now_ms,
                                    std::vector<ReplicationEntry>& log) {
  if (role_ != Role::primary) fail("write lookup on a replica");
  auto it = keys_.find(key);
  if (it == keys_.end()) return nullptr;
  if (is_expired(it->second, now_ms)) {
    // Like the primary's expireIfNeeded: delete, and tell replicas and the AOF with a DEL so they
    // drop the key at the same point in the stream.
    erase_entry(it);
    append(Command::del(key), log);
    expired_on_access_.push_back(key);
    return nullptr;
  }
  return &it->second;
}

const Entry* RedisState::lookup_for_read(const std::string& key, int64_t now_ms,
                                         std::vector<ReplicationEntry>& log) {
  if (role_ == Role::primary) return lookup_for_write(key, now_ms, log);
  // A replica hides logically expired keys by its own clock but never deletes them: only the
  // primary's DEL may, or the replica would diverge from the stream.
  auto it = keys_.find(key);
  if (it == keys_.end() || is_expired(it->second, now_ms)) return nullptr;
  return &it->second;
}

Reply RedisState::execute(const Command& command, int64_t now_ms,
                          std::vector<ReplicationEntry>& log) {
  const std::string& key = command.key();

  // Shared by INCR, INCRBY, DECRBY and the stock script: parse, check overflow, store, keep TTL.
  auto add = [&](int64_t delta, Command effect) -> Reply {
    Entry* entry = lookup_for_write(key, now_ms, log);
    int64_t current = 0;
    if (entry != nullptr) {
      std::optional<int64_t> parsed = parse_integer(entry->value);
      if (!parsed) return Reply::error(kNotIntegerError);
      current = *parsed;
    }
    int64_t next = 0;
    if (__builtin_add_overflow(current, delta, &next)) {
      return Reply::error("ERR increment or decrement would overflow");
    }
    if (entry == nullptr) {
      put(key, Entry{std::to_string(next), std::nullopt});
    } else {
      entry->value = std::to_string(next);  // INCR keeps the TTL
    }
    append(std::move(effect), log);
    return Reply::integer(next);
  };

  // PEXPIRE semantics shared with the renewal script; the key is known live here.
  auto expire_live_key = [&](Entry& entry, int64_t at_ms) {
    if (at_ms <= now_ms) {
      // expire.c checkAlreadyExpired: an expiry not in the future deletes the key at once and is
      // propagated as a DEL, not as a PEXPIREAT the replica would have to judge.
      erase_key(key);
      append(Command::del(key), log);
    } else {
      set_expiry(key, entry, from_ms(at_ms));
      append(Command::pexpireat(key, at_ms), log);
    }
  };

  return std::visit(
      Overloaded{
          [&](const Get&) -> Reply {
            const Entry* entry = lookup_for_read(key, now_ms, log);
            return entry == nullptr ? Reply::nil() : Reply::bulk(entry->value);
          },
          [&](const PTtl&) -> Reply {
            const Entry* entry = lookup_for_read(key, now_ms, log);
            if (entry == nullptr) return Reply::integer(-2);
            if (!entry->expires_at) return Reply::integer(-1);
            int64_t remaining_ms = to_ms(*entry->expires_at) - now_ms;
            return Reply::integer(remaining_ms < 0 ? 0 : remaining_ms);
          },
          [&](const Set& c) -> Reply {
            // Arguments are validated before the key is looked up, as in setGenericCommand, so a
            // bad expiry neither writes nor expires anything.
            std::optional<int64_t> at_ms;
            switch (c.expiry) {
              case SetExpiry::none:
              case SetExpiry::keepttl: break;
              case SetExpiry::ex: {
                int64_t ttl_ms = 0;
                if (c.expiry_arg <= 0 || __builtin_mul_overflow(c.expiry_arg, 1000, &ttl_ms)) {
                  return invalid_expire("set");
                }
                at_ms = absolute_ms(now_ms, ttl_ms);
                if (!at_ms) return invalid_expire("set");
                break;
              }
              case SetExpiry::px:
                if (c.expiry_arg <= 0) return invalid_expire("set");
                at_ms = absolute_ms(now_ms, c.expiry_arg);
                if (!at_ms) return invalid_expire("set");
                break;
              case SetExpiry::pxat:
                if (c.expiry_arg <= 0 || c.expiry_arg > kMaxAtMs) return invalid_expire("set");
                at_ms = c.expiry_arg;
                break;
            }
            Entry* existing = lookup_for_write(key, now_ms, log);
            if (c.condition == SetCondition::if_absent && existing != nullptr) return Reply::nil();
            if (c.condition == SetCondition::if_present && existing == nullptr) return Reply::nil();

            std::optional<Instant> expires_at;
            if (at_ms) expires_at = from_ms(*at_ms);
            if (c.expiry == SetExpiry::keepttl && existing != nullptr) {
              expires_at = existing->expires_at;
            }
            put(key, Entry{c.value, expires_at});

            // Redis 7 propagates `SET key value PXAT when` without NX/XX: the condition was
            // decided here, and a replica must not judge it again against its own key space.
            Set effect{key, c.value, SetCondition::always, SetExpiry::none, 0};
            if (at_ms) {
              effect.expiry = SetExpiry::pxat;
              effect.expiry_arg = *at_ms;
            } else if (c.expiry == SetExpiry::keepttl) {
              effect.expiry = SetExpiry::keepttl;
            }
            append(Command{std::move(effect)}, log);
            return Reply::ok();
          },
          [&](const Del&) -> Reply {
            if (lookup_for_write(key, now_ms, log) == nullptr) return Reply::integer(0);
            erase_key(key);
            append(Command::del(key), log);
            return Reply::integer(1);
          },
          [&](const PExpire& c) -> Reply {
            std::optional<int64_t> at_ms = absolute_ms(now_ms, c.ttl_ms);
            if (!at_ms) return invalid_expire("pexpire");
            Entry* entry = lookup_for_write(key, now_ms, log);
            if (entry == nullptr) return Reply::integer(0);
            expire_live_key(*entry, *at_ms);
            return Reply::integer(1);
          },
          [&](const PExpireAt& c) -> Reply {
            if (c.at_ms > kMaxAtMs) return invalid_expire("pexpireat");
            Entry* entry = lookup_for_write(key, now_ms, log);
            if (entry == nullptr) return Reply::integer(0);
            expire_live_key(*entry, c.at_ms);
            return Reply::integer(1);
          },
          [&](const Incr&) -> Reply { return add(1, command); },
          [&](const IncrBy& c) -> Reply { return add(c.increment, command); },
          [&](const DecrBy& c) -> Reply {
            if (c.decrement == INT64_MIN) return Reply::error("ERR decrement would overflow");
            return add(-c.decrement, command);
          },
          [&](const DelIfEquals& c) -> Reply {
            const Entry* entry = lookup_for_write(key, now_ms, log);
            if (entry == nullptr || entry->value != c.token) return Reply::integer(0);
            erase_key(key);
            append(Command::del(key), log);
            return Reply::integer(1);
          },
          [&](const PExpireIfEquals& c) -> Reply {
            std::optional<int64_t> at_ms = absolute_ms(now_ms, c.ttl_ms);
            if (!at_ms) return invalid_expire("pexpire");
            Entry* entry = lookup_for_write(key, now_ms, log);
            if (entry == nullptr || entry->value != c.token) return Reply::integer(0);
            expire_live_key(*entry, *at_ms);
            return Reply::integer(1);
          },
          [&](const DecrIfAtLeast& c) -> Reply {
            if (c.amount < 1 || c.floor < 0) {
              return Reply::error("ERR decr_if_at_least needs amount >= 1 and floor >= 0");
            }
            const Entry* entry = lookup_for_write(key, now_ms, log);
            if (entry == nullptr) return Reply::integer(-1);
            std::optional<int64_t> current = parse_integer(entry->value);
            if (!current) return Reply::error(kNotIntegerError);
            int64_t next = 0;
            // An underflowing subtraction is certainly below a floor >= 0.
            if (__builtin_sub_overflow(*current, c.amount, &next) || next < c.floor) {
              return Reply::integer(-1);
            }
            // The script's redis.call('DECRBY') is what replicates (effect replication).
            return add(-c.amount, Command::decrby(key, c.amount));
          },
          [&](const IncrOnce& c) -> Reply {
            if (c.marker == key) return Reply::error("ERR incr_once needs a marker other than the key");
            if (lookup_for_write(c.marker, now_ms, log) != nullptr) return Reply::nil();
            // Checked before the marker is written, so a refused increment leaves no marker.
            if (const Entry* entry = lookup_for_write(key, now_ms, log); entry != nullptr) {
              std::optional<int64_t> current = parse_integer(entry->value);
              int64_t next = 0;
              if (!current) return Reply::error(kNotIntegerError);
              if (__builtin_add_overflow(*current, c.increment, &next)) return Reply::error("ERR increment or decrement would overflow");
            }
            put(c.marker, Entry{"1", std::nullopt});
            append(Command::set(c.marker, "1"), log);
            return add(c.increment, Command::incrby(key, c.increment));
          },
          [&](const DecrAndReserve& c) -> Reply {
            if (c.seq_key == key) return Reply::error("ERR decr_and_reserve needs a sequence key other than the key");
            const Entry* entry = lookup_for_write(key, now_ms, log);
            if (entry == nullptr) return Reply::integer(-1);
            std::optional<int64_t> current = parse_integer(entry->value);
            if (!current) return Reply::error(kNotIntegerError);
            if (*current < 1) return Reply::integer(-1);
            int64_t n = 1;
            if (const Entry* seq = lookup_for_write(c.seq_key, now_ms, log); seq != nullptr) {
              std::optional<int64_t> last = parse_integer(seq->value);
              if (!last) return Reply::error(kNotIntegerError);
              if (__builtin_add_overflow(*last, 1, &n)) return Reply::error("ERR increment or decrement would overflow");
            }
            add(-1, Command::decrby(key, 1));
            put(c.seq_key, Entry{std::to_string(n), std::nullopt});
            append(Command::incr(c.seq_key), log);
            const std::string record = fmt::format("{}:{}", c.seq_key, n);
            put(record, Entry{c.value, std::nullopt});
            append(Command::set(record, c.value), log);
            return Reply::integer(n);
          },
      },
      command.op);
}

void RedisState::apply_replicated(const ReplicationEntry& entry) {
  if (entry.offset != offset_ + 1) {
    fail(fmt::format("replication offset gap: at {}, received {}", offset_, to_string(entry)));
  }
  apply_effect(entry.effect);
  offset_ = entry.offset;
}

void RedisState::apply_effect(const Command& effect) {
  const std::string& key = effect.key();
  auto add = [&](int64_t delta) {
    auto it = keys_.find(key);
    int64_t current = 0;
    if (it != keys_.end()) {
      std::optional<int64_t> parsed = parse_integer(it->second.value);
      if (!parsed) fail("replicated increment of a non-integer: " + to_string(effect));
      current = *parsed;
    }
    int64_t next = 0;
    if (__builtin_add_overflow(current, delta, &next))
      fail("replicated overflow: " + to_string(effect));
    if (it == keys_.end()) {
      put(key, Entry{std::to_string(next), std::nullopt});
    } else {
      it->second.value = std::to_string(next);
    }
  };
  std::visit(Overloaded{
                 [&](const Set& c) {
                   if (c.condition != SetCondition::always)
                     fail("conditional SET replicated: " + to_string(effect));
                   std::optional<Instant> expires_at;
                   switch (c.expiry) {
                     case SetExpiry::none: break;
                     case SetExpiry::pxat: expires_at = from_ms(c.expiry_arg); break;
                     case SetExpiry::keepttl: {
                       auto it = keys_.find(key);
                       if (it != keys_.end()) expires_at = it->second.expires_at;
                       break;
                     }
                     case SetExpiry::ex:
                     case SetExpiry::px: fail("relative expiry replicated: " + to_string(effect));
                   }
                   put(key, Entry{c.value, expires_at});
                 },
                 [&](const Del&) { erase_key(key); },
                 [&](const PExpireAt& c) {
                   auto it = keys_.find(key);
                   if (it != keys_.end()) set_expiry(key, it->second, from_ms(c.at_ms));
                 },
                 [&](const Incr&) { add(1); },
                 [&](const IncrBy& c) { add(c.increment); },
                 [&](const DecrBy& c) {
                   if (c.decrement == INT64_MIN) fail("replicated overflow: " + to_string(effect));
                   add(-c.decrement);
                 },
                 [&](const auto&) { fail("not a replication effect: " + to_string(effect)); },
             },
             effect.op);
}

void RedisState::start_lineage(std::string id) {
  if (!lineage_.empty()) earlier_lineages_.emplace_back(lineage_, offset_);
  lineage_ = std::move(id);
}

uint64_t RedisState::lineage_end(const std::string& lineage) const {
  if (lineage.empty()) return 0;
  if (lineage == lineage_) return offset_;
  uint64_t end = 0;
  for (const auto& [id, last] : earlier_lineages_) {
    if (id == lineage) end = std::max(end, last);
  }
  return end;
}

bool RedisState::includes(const std::string& lineage, uint64_t offset) const { return offset <= lineage_end(lineage) && offset > 0; }

void RedisState::replace_with(RedisState other) {
  Role role = role_;
  *this = std::move(other);
  role_ = role;
}

std::string RedisState::dump() const {
  std::string out;
  for (const auto& [key, entry] : keys_) {
    out += arg(key) + " = " + quoted(entry.value);
    if (entry.expires_at) out += fmt::format(" expires_at={}ms", to_ms(*entry.expires_at));
    out += '\n';
  }
  out +=
      fmt::format("role={} offset={}\n", role_ == Role::primary ? "primary" : "replica", offset_);
  return out;
}

}  // namespace oversim::redis
