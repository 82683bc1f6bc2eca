// The trace: structured events (virtual time, step, node, kind, fields) with a stable 64-bit
// hash. The hash is always computed; keeping the events is optional (sweeps of thousands of runs
// keep only hashes). Tracing never changes behaviour: nothing in a run reads the trace.
// Rendered as an aligned text timeline or as JSON Lines.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/time.h"

namespace oversim::sim {

struct TraceField {
  std::string key;
  std::string value;
  friend bool operator==(const TraceField&, const TraceField&) = default;
};

// A field to hash without copying it (World::trace_view): what TraceField holds, borrowed.
struct TraceFieldView {
  std::string_view key;
  std::string_view value;
};

struct TraceEvent {
  Instant at;
  uint64_t step = 0;
  std::string node;  // "" for the world itself (faults, run control)
  std::string kind;
  std::vector<TraceField> fields;
  friend bool operator==(const TraceEvent&, const TraceEvent&) = default;
};

// FNV-1a over length-prefixed strings and integers: defined bit for bit, portable.
class StableHash {
 public:
  void add(uint64_t v);
  void add(std::string_view s);
  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 0xcbf29ce484222325ULL;
};

std::string format_hash(uint64_t h);  // 16 lowercase hex digits

class Trace {
 public:
  explicit Trace(bool keep_events = true) : keep_events_(keep_events) {}

  void record(TraceEvent event);
  // The same event from borrowed text: hashed exactly as record() hashes it, and built as a
  // TraceEvent only when events are kept.
  void record(Instant at, uint64_t step, std::string_view node, std::string_view kind, std::initializer_list<TraceFieldView> fields);
  uint64_t hash() const { return hash_.value(); }
  size_t count() const { return count_; }
  bool keeps_events() const { return keep_events_; }
  const std::vector<TraceEvent>& events() const { return events_; }

 private:
  bool keep_events_;
  size_t count_ = 0;
  StableHash hash_;
  std::vector<TraceEvent> events_;
};

std::string render_text(const TraceEvent& e);
std::string render_text(const std::vector<TraceEvent>& events);
std::string render_json(const TraceEvent& e);  // one JSON object, no newline
std::string render_jsonl(const std::vector<TraceEvent>& events);

}  // namespace oversim::sim
