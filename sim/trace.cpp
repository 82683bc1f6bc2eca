#include "sim/trace.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace oversim::sim {

void StableHash::add(uint64_t v) {
  // One multiply per word (FNV-style with a 64-bit odd multiplier and a fold), not per byte:
  // this runs for every scheduling choice.
  h_ = (h_ ^ v) * 0x9e3779b97f4a7c15ULL;
  h_ ^= h_ >> 29;
}

void StableHash::add(std::string_view s) {
  add(static_cast<uint64_t>(s.size()));
  for (char c : s) {
    h_ ^= static_cast<unsigned char>(c);
    h_ *= 0x100000001b3ULL;
  }
}

std::string format_hash(uint64_t h) { return fmt::format("{:016x}", h); }

void Trace::record(TraceEvent event) {
  hash_.add(static_cast<uint64_t>(event.at.ns()));
  hash_.add(event.step);
  hash_.add(event.node);
  hash_.add(event.kind);
  hash_.add(static_cast<uint64_t>(event.fields.size()));
  for (const TraceField& f : event.fields) {
    hash_.add(f.key);
    hash_.add(f.value);
  }
  ++count_;
  if (keep_events_) events_.push_back(std::move(event));
}

void Trace::record(Instant at, uint64_t step, std::string_view node, std::string_view kind, std::initializer_list<TraceFieldView> fields) {
  if (keep_events_) {
    TraceEvent event{at, step, std::string(node), std::string(kind), {}};
    event.fields.reserve(fields.size());
    for (const TraceFieldView& f : fields) event.fields.push_back({std::string(f.key), std::string(f.value)});
    record(std::move(event));
    return;
  }
  hash_.add(static_cast<uint64_t>(at.ns()));
  hash_.add(step);
  hash_.add(node);
  hash_.add(kind);
  hash_.add(static_cast<uint64_t>(fields.size()));
  for (const TraceFieldView& f : fields) {
    hash_.add(f.key);
    hash_.add(f.value);
  }
  ++count_;
}

std::string render_text(const TraceEvent& e) {
  std::string line = fmt::format("{} #{:<6} {:<10} {:<14}", format_instant(e.at), e.step, e.node.empty() ? "-" : e.node, e.kind);
  for (const TraceField& f : e.fields) {
    const bool quote = f.value.find(' ') != std::string::npos;
    line += quote ? fmt::format(" {}=\"{}\"", f.key, f.value) : fmt::format(" {}={}", f.key, f.value);
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

std::string render_text(const std::vector<TraceEvent>& events) {
  std::string out;
  for (const TraceEvent& e : events) {
    out += render_text(e);
    out += '\n';
  }
  return out;
}

std::string render_json(const TraceEvent& e) {
  nlohmann::ordered_json j;
  j["at_ns"] = e.at.ns();
  j["step"] = e.step;
  j["node"] = e.node;
  j["kind"] = e.kind;
  nlohmann::ordered_json fields = nlohmann::ordered_json::object();
  for (const TraceField& f : e.fields) fields[f.key] = f.value;
  j["fields"] = std::move(fields);
  return j.dump();
}

std::string render_jsonl(const std::vector<TraceEvent>& events) {
  std::string out;
  for (const TraceEvent& e : events) {
    out += render_json(e);
    out += '\n';
  }
  return out;
}

}  // namespace oversim::sim
