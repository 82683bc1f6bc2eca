#include "report/json.h"

#include <algorithm>
#include <cmath>

#include "properties/property.h"
#include "report/timeline.h"
#include "sim/time.h"
#include "sim/world.h"

namespace oversim::report {

nlohmann::json verdict_json(properties::VerdictKind kind, const char* search, int exit_status) {
  return {{"kind", properties::to_string(kind)}, {"search", search}, {"holds", properties::holds(kind)}, {"exit_status", exit_status}};
}

nlohmann::json scenario_json(const protocols::Scenario& s) {
  nlohmann::json faults = nlohmann::json::array();
  for (const sim::Fault& f : s.faults.faults) faults.push_back(sim::FaultPlan{{f}}.to_string());
  nlohmann::json flags = nlohmann::json::object();
  for (const properties::FlagValue& f : properties::scenario_settings(s, true)) flags[f.flag.substr(2)] = f.value;
  nlohmann::json changed = nlohmann::json::array();
  for (const properties::FlagValue& f : properties::scenario_settings(s)) changed.push_back(f.flag.substr(2));
  const protocols::Workload& w = s.workload;
  return {{"design", s.design},
          {"seed", s.seed},
          {"schedule", s.schedule},
          {"horizon_ns", s.horizon.count_ns()},
          {"faults", faults},
          {"buyers", w.buyers},
          {"stock", w.stock},
          {"skus", w.skus},
          {"apps", w.app_nodes},
          {"lock_ttl_ns", w.lock_ttl.count_ns()},
          {"lock_wait_ns", w.lock_wait.count_ns()},
          {"gateway_timeout_ns", w.gateway_timeout.count_ns()},
          {"flags", flags},
          {"changed", changed}};
}

nlohmann::json properties_json(const std::vector<std::string>& asserted, const std::function<nlohmann::json(const properties::Property&)>& counts) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : properties::catalogue()) {
    nlohmann::json j = counts(p);
    j["name"] = p.name;
    j["kind"] = properties::to_string(p.kind);
    j["asserted"] = std::find(asserted.begin(), asserted.end(), p.name) != asserted.end();
    out.push_back(j);
  }
  return out;
}

nlohmann::json counterexample_json(const protocols::Scenario& s, const properties::RunResult& r, const std::vector<std::string>& asserted) {
  nlohmann::json violated = nlohmann::json::array();
  for (const properties::PropertyResult& pr : r.properties) {
    if (pr.violated) {
      violated.push_back({{"property", pr.property->name},
                          {"at_ns", (pr.violation->at - sim::Instant::zero()).count_ns()},
                          {"step", pr.violation->step},
                          {"witness", pr.violation->witness}});
    }
  }
  return {{"design", s.design},
          {"seed", s.seed},
          {"faults", s.faults.to_string()},
          {"schedule", s.schedule},
          {"buyers", s.workload.buyers},
          {"stock", s.workload.stock},
          {"scenario", scenario_json(s)},
          {"trace_hash", sim::format_hash(r.outcome.hash())},
          {"protocol_events", properties::protocol_events(r.events)},
          {"violated", violated},
          {"reproduce", properties::reproduce_command(s, asserted)},
          {"timeline", timeline_json(r)}};
}

nlohmann::json run_json(const properties::RunResult& r, const std::vector<std::string>& asserted) {
  nlohmann::json props = properties_json(asserted, [&](const properties::Property& p) {
    const properties::PropertyResult& pr = r.result(p.name);
    if (p.kind == properties::Kind::sometimes) return nlohmann::json{{"reached", pr.reached}, {"note", pr.note}};
    nlohmann::json j = {{"violated", pr.violated}};
    if (pr.violation) {
      j["at_ns"] = (pr.violation->at - sim::Instant::zero()).count_ns();
      j["step"] = pr.violation->step;
      j["witness"] = pr.violation->witness;
    }
    return j;
  });
  return {{"scenario", scenario_json(r.scenario)},
          {"outcome", {{"status", sim::to_string(r.outcome.status)},
                       {"end_ns", (r.outcome.end_time - sim::Instant::zero()).count_ns()},
                       {"steps", r.outcome.steps},
                       {"trace_hash", sim::format_hash(r.outcome.hash())}}},
          {"properties", props},
          {"faults", {{"planned", r.faults_planned}, {"fired", r.faults_fired}, {"story", r.story}}},
          {"metrics", metrics_json(r.metrics)},
          {"reproduce", properties::reproduce_command(r.scenario, asserted)}};
}

nlohmann::json fingerprint_json(const std::string& line) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (true) {
    const size_t tab = line.find('\t', start);
    fields.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) break;
    start = tab + 1;
  }
  fields.resize(6);
  nlohmann::json violated = nlohmann::json::array();
  if (fields[4] != "-" && !fields[4].empty()) {
    size_t at = 0;
    while (at <= fields[4].size()) {
      const size_t comma = std::min(fields[4].find(',', at), fields[4].size());
      violated.push_back(fields[4].substr(at, comma - at));
      at = comma + 1;
    }
  }
  return {{"variant", fields[0]}, {"faults", fields[1]}, {"seed", std::stoull(fields[2])}, {"hash", fields[3]}, {"violated", violated}, {"plan", fields[5]}};
}

nlohmann::json cell_json(const std::string& variant, const std::string& faults, const properties::SweepResult& sw, bool has_lock_service, bool untested,
                         const std::vector<std::string>& never_reached) {
  nlohmann::json props = nlohmann::json::object();
  for (const auto& p : properties::catalogue()) {
    const auto it = sw.counts.find(p.name);
    const properties::PropertyCount count = it == sw.counts.end() ? properties::PropertyCount{} : it->second;
    const bool sometimes = p.kind == properties::Kind::sometimes;
    nlohmann::json rate = rate_json(sometimes ? count.reached : count.violated, static_cast<int64_t>(sw.runs));
    rate["kind"] = properties::to_string(p.kind);
    props[p.name] = rate;
  }
  return {{"variant", variant},
          {"faults", faults},
          {"applies", true},
          {"runs", sw.runs},
          {"has_lock_service", has_lock_service},
          {"properties", props},
          {"unfired", {{"runs", sw.unfired}, {"untested", untested}, {"planned", sw.faults_planned}, {"fired", sw.faults_fired}}},
          {"runs_unplaced", sw.unplaced},
          {"runs_at_horizon", sw.horizon_runs()},
          {"never_reached", never_reached},
          {"lock_requests", sw.counter("lock.requests")},
          {"purchases", sw.purchases},
          {"lock_wakeups", sw.counter("lock.wakeups")},
          {"lock_releases", sw.counter("lock.releases")},
          {"metrics", metrics_json(sw.metrics)}};
}

nlohmann::json metrics_json(const properties::SaleMetrics& m) {
  // null: no value, or (answer times) a buyer that never heard an answer.
  auto ns = [](const std::optional<sim::Duration>& d) { return d && *d != sim::Duration::max() ? nlohmann::json(d->count_ns()) : nlohmann::json(nullptr); };
  return {{"runs", m.runs},
          {"units", m.units},
          {"sold", m.sold},
          {"told_bought", m.told_bought},
          {"sold_out_runs", m.sell_out.size()},
          {"sell_out_median_ns", ns(properties::quantile(m.sell_out, 500))},
          {"first_unit_median_ns", ns(properties::quantile(m.first_unit, 500))},
          {"selling_window_ns", m.window_us * 1000},
          {"orders_per_s", m.orders_per_s()},
          {"buyers", {{"total", m.buyers}, {"bought", m.bought}, {"told_sold_out", m.told_sold_out}, {"turned_away", m.turned_away},
                      {"unanswered", m.unanswered}, {"told_wrong", m.told_wrong}}},
          {"answer_time_ns", {{"p50", ns(properties::quantile(m.answer_times, 500))}, {"p99", ns(properties::quantile(m.answer_times, 990))},
                              {"p999", ns(properties::quantile(m.answer_times, 999))}}},
          {"answer_time_cdf", [&] {
             // The buyers' time to their last answer as a distribution: [permille, ns] at every 5%
             // and at 99% and 99.9%; ns is null from where buyers never heard an answer.
             nlohmann::json cdf = nlohmann::json::array();
             if (m.answer_times.empty()) return cdf;
             for (int q = 0; q <= 1000; q += 50) {
               cdf.push_back({q, ns(properties::quantile(m.answer_times, q))});
               if (q == 950) {
                 cdf.push_back({990, ns(properties::quantile(m.answer_times, 990))});
                 cdf.push_back({999, ns(properties::quantile(m.answer_times, 999))});
               }
             }
             return cdf;
           }()},
          {"monitoring", {{"lock_acquires", m.lock_acquires}, {"lock_gave_up", m.lock_gave_up}, {"lock_wait_p99_ns", ns(properties::quantile(m.lock_waits, 990))},
                          {"deductions", m.deductions}, {"deductions_refused", m.deductions_refused}, {"ledger_difference", m.ledger_difference}}},
          {"layers", {{"runs", m.layers}, {"stock_gap", m.stock_gap}, {"stock_gap_max", m.stock_gap_max}, {"cancelled", m.cancelled}, {"compensations", m.compensations},
                      {"compensation_retries", m.compensation_retries}, {"voided", m.voided}, {"pending_at_end", m.pending_at_end},
                      {"redelivered", m.redelivered}}},
          {"traffic", {{"runs", m.traffic}, {"shed_rate_limit", m.shed_rate_limit}, {"shed_degrade", m.shed_degrade}, {"breaker_opened", m.breaker_opened},
                       {"lock_unanswered", m.lock_unanswered}, {"queued", m.queued}, {"let_through", m.let_through}}}};
}

Interval wilson95(int64_t k, int64_t n) {
  if (n <= 0) return {};
  const double z = 1.959963984540054;
  const double nn = static_cast<double>(n);
  const double p = static_cast<double>(k) / nn;
  const double denom = 1 + z * z / nn;
  const double centre = (p + z * z / (2 * nn)) / denom;
  const double half = z * std::sqrt(p * (1 - p) / nn + z * z / (4 * nn * nn)) / denom;
  // At k = 0 or k = n the bound is exactly 0 or 1; rounding must not make it -1e-17.
  return {k == 0 ? 0.0 : std::max(0.0, centre - half), k == n ? 1.0 : std::min(1.0, centre + half)};
}

nlohmann::json rate_json(int64_t k, int64_t n) {
  const Interval ci = wilson95(k, n);
  return {{"runs", n}, {"count", k}, {"rate", n > 0 ? nlohmann::json(static_cast<double>(k) / static_cast<double>(n)) : nlohmann::json(nullptr)}, {"ci95", {ci.low, ci.high}}};
}

}  // namespace oversim::report
