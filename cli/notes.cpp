#include "cli/notes.h"

#include <algorithm>
#include <optional>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "protocols/profiles.h"
#include "protocols/settings.h"

namespace oversim::cli {

void note_unreached_points(const protocols::Scenario& s) {
  if (!s.faults.triggered()) return;
  protocols::Scenario faultless = s;
  faultless.faults = {};
  faultless.fault_choices.reset();
  protocols::Probe probe;
  try {
    probe = protocols::probe(faultless);
  } catch (const std::exception&) {
    return;  // the run itself will say what is wrong
  }
  std::set<std::string> said;
  for (const sim::Fault& f : s.faults.faults) {
    if (!f.triggered()) continue;
    const auto it = probe.open_points.find(f.trigger.point);
    const uint64_t reached = it == probe.open_points.end() ? 0 : it->second;
    if (reached >= f.trigger.nth) continue;
    const std::string fault = sim::to_string(f);
    if (!said.insert(fault).second) continue;
    const std::string how = reached == 0 ? fmt::format("never reaches {} while faults can strike", f.trigger.point)
                                         : fmt::format("reaches {} only {} time{} while faults can strike, never a {}", f.trigger.point, reached,
                                                       reached == 1 ? "" : "s", sim::format_ordinal(f.trigger.nth));
    fmt::print(stderr,
               "oversim: --faults: '{}': a faultless run of {} (seed {}) {}: the fault happens only if another fault, a retry or a second click "
               "leads there\n",
               fault, s.design, s.seed, how);
  }
}

namespace {

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += fmt::format("{}{}", out.empty() ? "" : ", ", n);
  return out;
}

std::vector<std::string> split_services(const std::string& services) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < services.size()) {
    const size_t comma = std::min(services.find(',', start), services.size());
    out.push_back(services.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

bool builds(const protocols::Design& d, const std::string& service) {
  if (service == "lock") return !d.services.empty();
  return std::find(d.services.begin(), d.services.end(), service) != d.services.end();
}

// A flag whose effect depends on other parts of the sale: why it changes nothing for `d` with
// `w`, or nullopt when it does something.
struct Condition {
  const char* flag;
  std::optional<std::string> (*idle)(const protocols::Design& d, const protocols::Workload& w);
};

std::optional<std::string> when(bool idle, std::string why) { return idle ? std::optional<std::string>(std::move(why)) : std::nullopt; }

const std::vector<Condition>& conditions() {
  using protocols::Arrival;
  using protocols::Design;
  using protocols::Workload;
  static const std::vector<Condition> rows = {
      {"--burst-window", [](const Design&, const Workload& w) {
         return when(w.arrival == Arrival::poisson, "spreads burst, ramp and slots arrivals; with --arrival poisson the gaps come from --poisson-mean");
       }},
      {"--poisson-mean", [](const Design&, const Workload& w) {
         return when(w.arrival != Arrival::poisson, fmt::format("sets the gaps of poisson arrivals; with --arrival {} the arrivals spread over --burst-window",
                                                              protocols::to_string(w.arrival)));
       }},
      {"--backoff", [](const Design&, const Workload& w) {
         return when(w.patience == sim::Duration::zero(), "spaces a buyer's clicks again; with --patience 0 each buyer clicks once");
       }},
      {"--sku-skew", [](const Design&, const Workload& w) { return when(w.skus == 1, "spreads buyers over the SKUs; with --skus 1 there is one"); }},
      {"--unpaid", [](const Design& d, const Workload&) {
         return when(d.cancel == nullptr, fmt::format("is the share of buyers who never pay; {} has no order lifecycle (its orders are paid as they are written)", d.name));
       }},
      {"--pay-window", [](const Design& d, const Workload&) {
         return when(d.cancel == nullptr, fmt::format("is how long an order waits for payment; {} has no order lifecycle (its orders are paid as they are written)", d.name));
       }},
      {"--optimistic-retries", [](const Design& d, const Workload&) {
         return when(d.steps.decrement != protocols::Steps::Decrement::versioned,
                     fmt::format("is how often a version check tries again after a conflict; {} writes the stock with no version check", d.name));
       }},
      {"--lock-retry", [](const Design& d, const Workload& w) {
         return when(builds(d, "redis") && w.lock_wait == sim::Duration::zero(), "is how often tryLock polls while it waits; with --lock-wait 0 it never waits");
       }},
      {"--min-replicas-max-lag", [](const Design& d, const Workload& w) {
         return when(builds(d, "redis") && w.redis_min_replicas == 0, "is read only with --min-replicas above 0 (min-replicas-to-write 0 turns the check off)");
       }},
      {"--replication-lag", [](const Design& d, const Workload& w) {
         return when(builds(d, "redis") && w.redis_replicas == 0, "delays the Redis replica's copy; with --redis-replicas 0 there is no replica");
       }},
      {"--sentinel-down-after", [](const Design& d, const Workload& w) {
         return when(builds(d, "redis") && w.redis_replicas == 0, "configures Sentinel; with --redis-replicas 0 there is no Sentinel");
       }},
      {"--sentinel-quorum", [](const Design& d, const Workload& w) {
         return when(builds(d, "redis") && w.redis_replicas == 0, "configures Sentinel; with --redis-replicas 0 there is no Sentinel");
       }},
      {"--sentinels", [](const Design& d, const Workload& w) {
         return when(builds(d, "redis") && w.redis_replicas == 0, "configures Sentinel; with --redis-replicas 0 there is no Sentinel");
       }},
  };
  return rows;
}

void note_idle_faults(const sim::FaultPlan& plan) {
  std::set<std::string> drifted;  // nodes some fault of the plan gives a non-zero drift
  for (const sim::Fault& f : plan.faults) {
    if (f.kind == sim::FaultKind::clock_drift && f.drift_ppm != 0) drifted.insert(f.node);
  }
  for (const sim::Fault& f : plan.faults) {
    if (f.kind == sim::FaultKind::clock_jump && f.scale.quantity.empty() && f.length == sim::Duration::zero()) {
      fmt::print(stderr, "oversim: --faults: '{}' jumps the clock by 0: it changes nothing here\n", sim::to_string(f));
    }
    if (f.kind == sim::FaultKind::clock_drift && f.drift_ppm == 0 && f.node != sim::kHere && drifted.count(f.node) == 0) {
      fmt::print(stderr, "oversim: --faults: '{}' sets a drift of 0 on {}, whose clock no fault of the plan drifts: it changes nothing here\n",
                 sim::to_string(f), f.node);
    }
  }
}

}  // namespace

std::string flag_services(const std::string& flag) {
  if (const protocols::Setting* s = protocols::find_setting(flag)) return s->service;
  // The workload flags older than the setting rows (cli/flags.h, WorkloadFlags).
  static const std::vector<std::pair<std::string, std::string>> older = {
      {"--masters", "redlock"},         {"--zk-servers", "zookeeper"}, {"--lock-ttl", "lock"},
      {"--lock-wait", "lock"},          {"--replication-lag", "redis"}, {"--persistence", "redis,redlock"},
  };
  for (const auto& [f, services] : older) {
    if (f == flag) return services;
  }
  return "";
}

void note_unused_flags(const std::vector<std::string>& variants, const WorkloadFlags& flags, const std::vector<FaultsChoice>& faults) {
  // The workload quantities the faults scale lengths by: a flag that sets one is used by them.
  std::set<std::string> scaled_by;
  for (const FaultsChoice& fc : faults) {
    if (!fc.profile.empty() && fc.profile != "none") scaled_by.insert("lock-ttl");  // a profile's pauses, delays and jumps
    for (const sim::Fault& f : fc.plan.faults) {
      if (!f.scale.quantity.empty()) scaled_by.insert(f.scale.quantity);
    }
  }
  std::vector<const protocols::Design*> designs;
  std::vector<std::string> uses;  // every service the designs build
  for (const std::string& v : variants) {
    designs.push_back(&design_flag(v));
    for (const std::string& own : designs.back()->services) {
      if (std::find(uses.begin(), uses.end(), own) == uses.end()) uses.push_back(own);
    }
  }
  const protocols::Workload w = to_workload(flags);
  const std::string which = variants.size() == 1 ? variants.front() : "these designs";
  for (const std::string& flag : flags.typed) {
    if (scaled_by.count(flag.substr(2)) > 0) continue;  // "--lock-ttl" sets the quantity "lock-ttl"
    const std::string services = flag_services(flag);
    if (!services.empty()) {
      bool used = false;
      for (const protocols::Design* d : designs) {
        for (const std::string& service : split_services(services)) used = used || builds(*d, service);
      }
      if (!used) {
        const std::vector<std::string> named = split_services(services);
        std::string sets = named.front() == "lock" ? "a lock service" : "the " + named.front();
        for (size_t i = 1; i < named.size(); ++i) sets += (i + 1 == named.size() ? " or " : ", ") + named[i];
        if (named.front() != "lock") sets += " service";
        fmt::print(stderr, "oversim: {} sets {}, which {} {} not use ({}): it changes nothing here\n", flag, sets, which, variants.size() == 1 ? "does" : "do",
                   uses.empty() ? std::string("the database only") : "services: " + join(uses));
        continue;
      }
    }
    for (const Condition& c : conditions()) {
      if (flag != c.flag) continue;
      std::optional<std::string> why;
      bool idle_everywhere = true;
      for (const protocols::Design* d : designs) {
        std::optional<std::string> idle = c.idle(*d, w);
        if (!idle) idle_everywhere = false;
        else if (!why) why = idle;
      }
      if (idle_everywhere && why) fmt::print(stderr, "oversim: {} {}: it changes nothing here\n", flag, *why);
    }
  }
  for (const FaultsChoice& fc : faults) note_idle_faults(fc.plan);
}

}  // namespace oversim::cli
