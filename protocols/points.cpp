#include "protocols/points.h"

#include <algorithm>

#include <fmt/format.h>

#include "protocols/services.h"

namespace oversim::protocols {

namespace {

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += fmt::format("{}{}", out.empty() ? "" : ", ", n);
  return out;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

const ServicePoint* service_point(const ServiceKind& kind, std::string_view name) {
  for (const ServicePoint& p : kind.points) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::string services_of(const Design& design) {
  return design.services.empty() ? std::string("it uses the database only") : fmt::format("its services: {}", join(design.services));
}

std::vector<std::string> app_nodes(const Workload& w) {
  std::vector<std::string> out;
  for (int i = 1; i <= w.app_nodes; ++i) out.push_back(fmt::format("app-{}", i));
  return out;
}

}  // namespace

const std::vector<FaultPoint>& fault_point_table() {
  static const std::vector<FaultPoint> table = [] {
    std::vector<FaultPoint> t = {
        {"after_acquire", "the buyer holds the lock (SET NX answered OK, the quorum or the lowest znode)", "the lock steps", "lock"},
        {"after_read", "a SELECT of the stock answered", "the database client", ""},
        {"before_write", "an UPDATE of the stock is about to be sent", "the database client", ""},
        {"before_insert", "an order INSERT is about to be sent", "the database client", ""},
        {"before_commit", "a COMMIT (or an autocommit statement) is about to be sent", "the database client", ""},
        {"after_commit", "the COMMIT answered OK", "the database client", ""},
        {"before_release", "the release (DEL, token compare, znode delete) is about to be sent", "the lock steps", "lock"},
        {"after_stock_taken", "the design's stock decrement in its service answered OK (stock held in Redis or etcd)", "the stock steps", "stock"},
        {"before_compensate", "a cancel of an unpaid order is about to give its unit back (its first write)", "the design's cancel", "lifecycle"},
    };
    std::vector<FaultPoint> own;
    for (const ServiceKind& k : service_kinds()) {
      for (const ServicePoint& p : k.points) own.push_back({p.name, p.moment, p.marked_by, k.name});
    }
    std::sort(own.begin(), own.end(), [](const FaultPoint& a, const FaultPoint& b) { return a.name < b.name; });
    t.insert(t.end(), own.begin(), own.end());
    return t;
  }();
  return table;
}

std::vector<std::string> fault_points() {
  std::vector<std::string> out;
  for (const FaultPoint& p : fault_point_table()) out.push_back(p.name);
  return out;
}

const FaultPoint* find_fault_point(std::string_view name) {
  for (const FaultPoint& p : fault_point_table()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::optional<std::string> closest_fault_point(std::string_view name) {
  std::optional<std::string> best;
  size_t best_distance = 0;
  for (const FaultPoint& p : fault_point_table()) {
    const size_t d = edit_distance(name, p.name);
    if (!best || d < best_distance) {
      best = p.name;
      best_distance = d;
    }
  }
  // A typo: a few letters off (after_raed, befor_commit), not another word.
  if (!best || best_distance > std::max<size_t>(2, name.size() / 4)) return std::nullopt;
  return best;
}

std::optional<std::string> point_unreachable(std::string_view name, const std::string& node, const Design& design, const Workload& w) {
  const FaultPoint* point = find_fault_point(name);
  if (point == nullptr) {
    const std::optional<std::string> near = closest_fault_point(name);
    return fmt::format("an unknown fault point '{}' ({}points: {})", name, near ? fmt::format("did you mean {}? ", *near) : "", join(fault_points()));
  }
  std::vector<std::string> nodes = app_nodes(w);
  bool app = true;
  if (point->service == "lock" && design.services.empty()) {
    return fmt::format("{}, which {} mark while a buyer holds a lock; {} has no lock service ({})", name, point->marked_by, design.name, services_of(design));
  }
  if (point->service == "stock" && !design.steps.service_stock) {
    return fmt::format("{}, which {} mark when a stock kept in a service is taken; {} keeps its stock in the database only", name, point->marked_by,
                       design.name);
  }
  if (point->service == "lifecycle" && design.cancel == nullptr) {
    return fmt::format("{}, which {} marks when an unpaid order is cancelled; {} has no order lifecycle (its orders are paid as they are written)", name,
                       point->marked_by, design.name);
  }
  if (point->service == "lock" && !design.steps.takes_lock) {
    return fmt::format("{}, which {} mark while a buyer holds a lock; {} takes no lock (it keeps only data on {})", name, point->marked_by, design.name,
                       services_of(design));
  }
  if (!point->service.empty() && point->service != "lock" && point->service != "stock" && point->service != "lifecycle") {
    const bool built = std::find(design.services.begin(), design.services.end(), point->service) != design.services.end();
    const ServiceKind* kind = find_service_kind(point->service);
    const ServicePoint* own = kind == nullptr ? nullptr : service_point(*kind, name);
    if (!built || own == nullptr) {
      return fmt::format("{}, which only {} marks (the {} service); {} builds no {} service ({})", name, point->marked_by, point->service, design.name,
                         point->service, services_of(design));
    }
    if (own->absent != nullptr) {
      if (auto why = own->absent(w)) return fmt::format("{}, which {} marks, never in this deployment ({})", name, point->marked_by, *why);
    }
    if (own->nodes != nullptr) {
      nodes = own->nodes(w);
      app = false;
    }
  }
  if (!node.empty() && std::find(nodes.begin(), nodes.end(), node) == nodes.end()) {
    return fmt::format("{} in {}, but only {} reach {}", name, node, app ? fmt::format("the app nodes ({})", join(nodes)) : join(nodes), name);
  }
  return std::nullopt;
}

std::optional<std::string> unreachable_point(const sim::Fault& f, const Design& design, const Workload& w) {
  if (!f.triggered()) return std::nullopt;
  const std::optional<std::string> why = point_unreachable(f.trigger.point, f.trigger.node, design, w);
  if (!why) return std::nullopt;
  return fmt::format("fault '{}' waits on {}: the fault would never happen", sim::to_string(f), *why);
}

std::optional<std::string> plan_point_problem(const sim::FaultPlan& plan, const Design& design, const Workload& w) {
  for (const sim::Fault& f : plan.faults) {
    if (auto problem = unreachable_point(f, design, w)) return problem;
  }
  return std::nullopt;
}

}  // namespace oversim::protocols
