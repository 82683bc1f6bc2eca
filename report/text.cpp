#include "report/text.h"

#include <fmt/format.h>

#include "protocols/settings.h"

namespace oversim::report {

std::string describe_workload(const protocols::Workload& w) {
  return fmt::format("{} buyers, {} sku x {} units, {} app nodes, {} arrivals, remote call {}, lock ttl {}, replica lag {}{}{}{}{}{}", w.buyers, w.skus, w.stock,
                     w.app_nodes, protocols::to_string(w.arrival), protocols::format_distribution(protocols::remote_call_distribution(w)), sim::format_duration(w.lock_ttl),
                     protocols::format_distribution(protocols::replication_distribution(w)),
                     w.max_retries > 0 ? fmt::format(", {} gateway retries", w.max_retries) : "",
                     w.double_click.numerator > 0 ? fmt::format(", double clicks {}", sim::format_ratio(w.double_click)) : "",
                     w.redis_persistence != protocols::RedisPersistence::none ? fmt::format(", redis persistence {}", protocols::to_string(w.redis_persistence)) : "",
                     w.redlock_masters != protocols::Workload{}.redlock_masters ? fmt::format(", {} RedLock masters", w.redlock_masters) : "",
                     w.zk_servers != protocols::Workload{}.zk_servers ? fmt::format(", {} ZooKeeper servers", w.zk_servers) : "") +
         (protocols::describe_settings(w).empty() ? "" : ", " + protocols::describe_settings(w));
}

std::string verdicts_text(const properties::RunResult& r, const std::vector<std::string>& asserted) {
  std::string out;
  out += fmt::format("{:<26} {:<11} {:<10} {}\n", "property", "kind", "asserted", "verdict");
  for (const properties::PropertyResult& pr : r.properties) {
    const properties::Property& p = *pr.property;
    const bool is_asserted = std::find(asserted.begin(), asserted.end(), p.name) != asserted.end();
    std::string verdict;
    if (p.kind == properties::Kind::sometimes) {
      verdict = pr.reached ? fmt::format("reached: {}", pr.note) : "not reached";
    } else if (pr.violated) {
      verdict = fmt::format("VIOLATED at {} step {}: {}", sim::format_instant(pr.violation->at), pr.violation->step, pr.violation->witness);
    } else {
      verdict = "holds";
    }
    out += fmt::format("{:<26} {:<11} {:<10} {}\n", p.name, properties::to_string(p.kind), p.kind == properties::Kind::sometimes ? "-" : (is_asserted ? "yes" : "no"), verdict);
  }
  return out;
}

// A quantile or a time: "-" when there is none; "never" for a buyer that never heard an answer.
std::string span_or(const std::optional<sim::Duration>& d, const char* none) {
  if (!d) return none;
  return *d == sim::Duration::max() ? std::string("never") : sim::format_span(*d);
}

namespace {
std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& i : items) {
    if (!out.empty()) out += ", ";
    out += i;
  }
  return out;
}

std::string rate(int64_t n, int64_t d) {
  if (d <= 0) return "-";
  return fmt::format("{}/{} ({:.1f}%)", n, d, 100.0 * static_cast<double>(n) / static_cast<double>(d));
}
}  // namespace

// The sale's numbers (properties/metrics.h; docs/guide.md#metrics defines each), for one run or
// merged over a sweep's runs.
std::string metrics_text(const properties::SaleMetrics& m) {
  std::string out;
  const bool one = m.runs == 1;
  std::string timing;
  if (one) {
    timing = m.first_unit.empty() ? std::string("nothing sold")
                                  : fmt::format("first unit at {}, last unit at {}", sim::format_span(m.first_unit.front()), sim::format_span(m.last_unit.front()));
    timing += m.sell_out.empty() ? ", stock remained" : fmt::format(", sold out at {}", sim::format_span(m.sell_out.front()));
  } else {
    timing = fmt::format("sold out in {}/{} runs (sell-out median {}, max {}); first unit median {}", m.sell_out.size(), m.runs,
                         span_or(properties::quantile(m.sell_out, 500)), span_or(properties::quantile(m.sell_out, 1000)),
                         span_or(properties::quantile(m.first_unit, 500)));
  }
  out += fmt::format("sale: sold {} of {} units ({:.0f}%), {} told they bought; {}; {:.1f} orders/s over the selling window{}\n", m.sold, m.units, m.sold_percent(),
             m.told_bought, timing, m.orders_per_s(),
             one ? fmt::format(" ({})", sim::format_span(sim::Duration::us(m.window_us))) : std::string());
  out += fmt::format("buyers: {} bought, {} told sold out, {} turned away, {} heard nothing; {} told wrongly; time to the last answer p50 {}, p99 {}, p999 {} "
             "(a buyer that heard nothing: never)\n",
             m.bought, m.told_sold_out, m.turned_away, m.unanswered, m.told_wrong, span_or(properties::quantile(m.answer_times, 500)),
             span_or(properties::quantile(m.answer_times, 990)), span_or(properties::quantile(m.answer_times, 999)));
  out += fmt::format("monitoring: lock acquisitions that gave up {}, lock wait p99 {}; deductions refused {}; ledger difference at the end {}\n",
             rate(m.lock_gave_up, m.lock_acquires), span_or(properties::quantile(m.lock_waits, 990)), rate(m.deductions_refused, m.deductions),
             m.ledger_difference);
  if (m.layers > 0) {
    out += fmt::format("layers: Redis-database stock gap at the end {} (largest at a commit{} {}); cancelled unpaid {}, units given back {} (give-backs "
                       "sent again {}), voided by the reconciler {}, pending at the end {}; queue records redelivered {}\n",
                       m.stock_gap, one ? "" : ", in any one run", m.stock_gap_max, m.cancelled, m.compensations, m.compensation_retries, m.voided, m.pending_at_end, m.redelivered);
  }
  if (m.traffic > 0) {
    out += fmt::format("traffic: requests shed by the rate limit {}, by the degrade switch {} (circuit breakers opened {} times); lock requests "
                       "unanswered {}; purchases queued while the lock service was down {}, let through without the lock {}\n",
                       m.shed_rate_limit, m.shed_degrade, m.breaker_opened, m.lock_unanswered, m.queued, m.let_through);
  } else if (m.lock_unanswered > 0) {
    out += fmt::format("traffic: lock requests unanswered {} (no rate limit, no degrade path)\n", m.lock_unanswered);
  }
  return out;
}

std::string results_text(const properties::RunResult& r) {
  std::string out;
  std::string results;
  for (auto br : {protocols::BuyResult::sold, protocols::BuyResult::sold_out, protocols::BuyResult::busy, protocols::BuyResult::unknown,
                  protocols::BuyResult::failed}) {
    auto it = r.results.find(br);
    results += fmt::format("{}{} {}", results.empty() ? "" : ", ", protocols::to_string(br), it == r.results.end() ? 0 : it->second);
  }
  auto counter = [&r](const char* name) {
    auto it = r.counters.find(name);
    return it == r.counters.end() ? int64_t{0} : it->second;
  };
  // Every attempt ends with a result, or dies with its node (a crash unwinds it mid-purchase).
  out += fmt::format("attempts: {}, died with their node {}; orders committed {}; {} clicks again\n", results, counter("attempt.died-with-node"), r.orders,
             counter("buyer.click-again"));
  out += metrics_text(r.metrics);
  // A lock-service node that some whole second brought 80% or more of what it serves: how hard
  // it was pushed and how long its queue made requests wait. A quiet node prints nothing.
  for (const protocols::NodeLoad& l : r.lock_loads) {
    if (!l.overloaded()) continue;
    out += fmt::format("lock service overloaded: {} received {} requests in its busiest second (from {}s), {}% of the {} a second it serves (one at a time, {} each); "
               "a request waited up to {} in its queue (at {})\n",
               l.node, l.busiest_second_requests, l.busiest_second.ns() / 1'000'000'000, l.busiest_second_requests * 100 / l.serves_per_second(),
               l.serves_per_second(), sim::format_duration(l.service_time), sim::format_span(l.longest_wait), sim::format_span(l.longest_wait_at - sim::Instant::zero()));
  }
  return out;
}


// The run's verdict in one line: what it supports, and when it is not a pass, why.
std::string run_verdict_text(const properties::RunResult& r, properties::VerdictKind kind, const std::vector<std::string>& asserted, const std::string& faults) {
  switch (kind) {
    case properties::VerdictKind::violated: {
      std::vector<std::string> broken;
      for (const std::string& name : asserted) {
        if (r.result(name).violated) broken.push_back(name);
      }
      return fmt::format("VIOLATED: {}", join(broken));
    }
    case properties::VerdictKind::incomplete:
      return fmt::format("INCOMPLETE: the run stopped at its limit ({}) before the sale ended: its end-of-run checks saw an unfinished sale, so "
                         "this is not a pass; raise --horizon (or assert progress to call a sale that never ends a bug)",
                         r.outcome.detail.substr(0, r.outcome.detail.find('\n')));
    case properties::VerdictKind::unfired:
      if (r.faults_fired < r.faults_planned) {
        return fmt::format("UNFIRED: {} of {} planned fault{} never happened: the run did not test the plan as written, so the properties' holding "
                           "says nothing about it",
                           r.faults_planned - r.faults_fired, r.faults_planned, r.faults_planned == 1 ? "" : "s");
      }
      return fmt::format("UNFIRED: {} placed {} of the faults asked for ({}): the run did not test them", faults, r.faults_planned == 0 ? "none" : "not all",
                         r.scenario.unplaced);
    case properties::VerdictKind::vacuous:
    case properties::VerdictKind::exhaustive:
    case properties::VerdictKind::random: break;
  }
  return "every asserted property held in this run: one execution, not a proof";
}

}  // namespace oversim::report
