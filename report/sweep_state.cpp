#include "report/sweep_state.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace oversim::report {
namespace {

using nlohmann::json;
using properties::SaleMetrics;
using properties::SweepResult;

// Sorted, then the first value and each difference from the one before, as unsigned 64-bit
// words (wrapping arithmetic: exact for any int64 values).
json samples_json(const std::vector<sim::Duration>& v) {
  std::vector<int64_t> sorted;
  sorted.reserve(v.size());
  for (sim::Duration d : v) sorted.push_back(d.count_ns());
  std::sort(sorted.begin(), sorted.end());
  json out = json::array();
  uint64_t previous = 0;
  for (int64_t x : sorted) {
    const auto u = static_cast<uint64_t>(x);
    out.push_back(u - previous);
    previous = u;
  }
  return out;
}

json seed_json(const std::optional<uint64_t>& seed) { return seed ? json(*seed) : json(nullptr); }

// The reader: every field required, each of its type, or an error naming it.
struct Reader {
  const json& j;
  std::string where;
  const json& at(const char* key) const {
    auto it = j.find(key);
    if (it == j.end()) throw std::invalid_argument(fmt_missing(key));
    return *it;
  }
  std::string fmt_missing(const char* key) const { return "the sweep state has no '" + where + key + "'"; }
  std::invalid_argument wrong(const char* key, const char* type) const {
    return std::invalid_argument("the sweep state's '" + where + key + "' is not " + type);
  }
  int64_t integer(const char* key) const {
    const json& v = at(key);
    if (!v.is_number_integer()) throw wrong(key, "an integer");
    return v.get<int64_t>();
  }
  uint64_t unsigned_integer(const char* key) const {
    const json& v = at(key);
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0)) throw wrong(key, "a count");
    return v.get<uint64_t>();
  }
  std::optional<uint64_t> seed(const char* key) const {
    const json& v = at(key);
    if (v.is_null()) return std::nullopt;
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0)) throw wrong(key, "a seed or null");
    return v.get<uint64_t>();
  }
  std::string text(const char* key) const {
    const json& v = at(key);
    if (!v.is_string()) throw wrong(key, "a string");
    return v.get<std::string>();
  }
  bool boolean(const char* key) const {
    const json& v = at(key);
    if (!v.is_boolean()) throw wrong(key, "a boolean");
    return v.get<bool>();
  }
  std::vector<std::string> texts(const char* key) const {
    const json& v = at(key);
    if (!v.is_array()) throw wrong(key, "an array");
    std::vector<std::string> out;
    for (const json& x : v) {
      if (!x.is_string()) throw wrong(key, "an array of strings");
      out.push_back(x.get<std::string>());
    }
    return out;
  }
  std::map<std::string, int64_t> counts(const char* key) const {
    const json& v = at(key);
    if (!v.is_object()) throw wrong(key, "an object");
    std::map<std::string, int64_t> out;
    for (const auto& [name, n] : v.items()) {
      if (!n.is_number_integer()) throw wrong(key, "an object of integers");
      out[name] = n.get<int64_t>();
    }
    return out;
  }
  std::vector<sim::Duration> samples(const char* key) const {
    const json& v = at(key);
    if (!v.is_array()) throw wrong(key, "an array");
    std::vector<sim::Duration> out;
    out.reserve(v.size());
    uint64_t value = 0;
    for (const json& d : v) {
      if (!d.is_number_unsigned() && !(d.is_number_integer() && d.get<int64_t>() >= 0)) throw wrong(key, "an array of sample differences");
      value += d.get<uint64_t>();
      out.push_back(sim::Duration::ns(static_cast<int64_t>(value)));
    }
    return out;
  }
  Reader in(const char* key) const {
    const json& v = at(key);
    if (!v.is_object()) throw wrong(key, "an object");
    return Reader{v, where + key + "."};
  }
};

// Every field of SaleMetrics, in its declaration order: a field added there is added here, or a
// merged sweep loses it (tests/shard_test.cpp compares merged and single sweeps' figures).
#define OVERSIM_METRIC_COUNTS(X)                                                                                                         \
  X(units) X(sold) X(told_bought) X(window_us) X(buyers) X(bought) X(told_sold_out) X(turned_away) X(unanswered) X(told_wrong)         \
      X(lock_acquires) X(lock_gave_up) X(deductions) X(deductions_refused) X(ledger_difference) X(layers) X(cancelled) X(compensations) \
          X(compensation_retries) X(voided) X(pending_at_end) X(stock_gap) X(stock_gap_max) X(redelivered) X(traffic) X(shed_rate_limit)  \
              X(shed_degrade) X(breaker_opened) X(lock_unanswered) X(queued) X(let_through)
#define OVERSIM_METRIC_SAMPLES(X) X(first_unit) X(last_unit) X(sell_out) X(answer_times) X(lock_waits)

json metrics_state_json(const SaleMetrics& m) {
  json j = {{"runs", m.runs}};
#define OVERSIM_WRITE_COUNT(field) j[#field] = m.field;
#define OVERSIM_WRITE_SAMPLES(field) j[#field] = samples_json(m.field);
  OVERSIM_METRIC_COUNTS(OVERSIM_WRITE_COUNT)
  OVERSIM_METRIC_SAMPLES(OVERSIM_WRITE_SAMPLES)
#undef OVERSIM_WRITE_COUNT
#undef OVERSIM_WRITE_SAMPLES
  return j;
}

SaleMetrics metrics_state(const Reader& r) {
  SaleMetrics m;
  m.runs = r.unsigned_integer("runs");
#define OVERSIM_READ_COUNT(field) m.field = r.integer(#field);
#define OVERSIM_READ_SAMPLES(field) m.field = r.samples(#field);
  OVERSIM_METRIC_COUNTS(OVERSIM_READ_COUNT)
  OVERSIM_METRIC_SAMPLES(OVERSIM_READ_SAMPLES)
#undef OVERSIM_READ_COUNT
#undef OVERSIM_READ_SAMPLES
  return m;
}

}  // namespace

nlohmann::json sweep_state_json(const SweepResult& sw) {
  json counts = json::object();
  for (const auto& [name, c] : sw.counts) counts[name] = {{"violated", c.violated}, {"reached", c.reached}, {"first_seed", seed_json(c.first_seed)}};
  return {{"runs", sw.runs},
          {"counts", counts},
          {"first_failing_seed", seed_json(sw.first_failing_seed)},
          {"violating_runs", sw.violating_runs},
          {"purchases", sw.purchases},
          {"counters", sw.counters},
          {"metrics", metrics_state_json(sw.metrics)},
          {"run_status", sw.run_status},
          {"horizon_seed", seed_json(sw.horizon_seed)},
          {"errors", sw.errors},
          {"invalid", sw.invalid},
          {"unplaced", sw.unplaced},
          {"unplaced_why", sw.unplaced_why},
          {"unplaced_seed", seed_json(sw.unplaced_seed)},
          {"unfired", sw.unfired},
          {"unfired_seed", seed_json(sw.unfired_seed)},
          {"faults_planned", sw.faults_planned},
          {"faults_fired", sw.faults_fired},
          {"inapplicable", sw.inapplicable ? json(*sw.inapplicable) : json(nullptr)},
          {"stopped", sw.stopped},
          {"wall_ns", sw.wall_ns}};
}

properties::SweepResult sweep_state(const nlohmann::json& j) {
  if (!j.is_object()) throw std::invalid_argument("the sweep state is not an object");
  const Reader r{j, ""};
  SweepResult sw;
  sw.runs = r.unsigned_integer("runs");
  const Reader counts = r.in("counts");
  for (const auto& [name, c] : counts.j.items()) {
    if (!c.is_object()) throw std::invalid_argument("the sweep state's 'counts." + name + "' is not an object");
    const Reader one{c, "counts." + name + "."};
    properties::PropertyCount& to = sw.counts[name];
    to.violated = one.integer("violated");
    to.reached = one.integer("reached");
    to.first_seed = one.seed("first_seed");
  }
  sw.first_failing_seed = r.seed("first_failing_seed");
  sw.violating_runs = r.unsigned_integer("violating_runs");
  sw.purchases = r.integer("purchases");
  sw.counters = r.counts("counters");
  sw.metrics = metrics_state(r.in("metrics"));
  sw.run_status = r.counts("run_status");
  sw.horizon_seed = r.seed("horizon_seed");
  sw.errors = r.texts("errors");
  sw.invalid = r.texts("invalid");
  sw.unplaced = r.unsigned_integer("unplaced");
  sw.unplaced_why = r.text("unplaced_why");
  sw.unplaced_seed = r.seed("unplaced_seed");
  sw.unfired = r.unsigned_integer("unfired");
  sw.unfired_seed = r.seed("unfired_seed");
  sw.faults_planned = r.unsigned_integer("faults_planned");
  sw.faults_fired = r.unsigned_integer("faults_fired");
  if (!r.at("inapplicable").is_null()) sw.inapplicable = r.text("inapplicable");
  sw.stopped = r.boolean("stopped");
  sw.wall_ns = r.integer("wall_ns");
  return sw;
}

nlohmann::json explore_state_json(const properties::ExploreResult& r) {
  return {{"executions", r.executions},
          {"violating", r.violating},
          {"pruned", r.pruned},
          {"fixed_draws", r.fixed_draws},
          {"longest", r.longest},
          {"complete", r.complete},
          {"stopped", r.stopped},
          {"counts", r.counts},
          {"run_status", r.run_status},
          {"best_values", r.best_values},
          {"best_steps", r.best_steps},
          {"best_choices", r.best_choices},
          {"subtrees", r.subtrees},
          {"split_subtrees", r.split_subtrees},
          {"wall_ns", r.wall_ns}};
}

properties::ExploreResult explore_state(const nlohmann::json& j) {
  if (!j.is_object()) throw std::invalid_argument("the exploration state is not an object");
  const Reader r{j, ""};
  properties::ExploreResult out;
  out.executions = r.unsigned_integer("executions");
  out.violating = r.unsigned_integer("violating");
  out.pruned = r.unsigned_integer("pruned");
  out.fixed_draws = r.unsigned_integer("fixed_draws");
  out.longest = static_cast<size_t>(r.unsigned_integer("longest"));
  out.complete = r.boolean("complete");
  out.stopped = r.boolean("stopped");
  for (const auto& [name, n] : r.counts("counts")) out.counts[name] = static_cast<uint64_t>(n);
  for (const auto& [name, n] : r.counts("run_status")) out.run_status[name] = static_cast<uint64_t>(n);
  const json& values = r.at("best_values");
  if (!values.is_array()) throw std::invalid_argument("the exploration state's 'best_values' is not an array");
  for (const json& v : values) {
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0)) throw std::invalid_argument("the exploration state's 'best_values' holds a value that is not a choice");
    out.best_values.push_back(v.get<uint64_t>());
  }
  out.best_steps = r.unsigned_integer("best_steps");
  out.best_choices = static_cast<size_t>(r.unsigned_integer("best_choices"));
  out.subtrees = r.unsigned_integer("subtrees");
  out.split_subtrees = r.unsigned_integer("split_subtrees");
  out.wall_ns = r.integer("wall_ns");
  return out;
}

}  // namespace oversim::report
