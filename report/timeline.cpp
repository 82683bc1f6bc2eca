#include "report/timeline.h"

#include <algorithm>
#include <map>

namespace oversim::report {
namespace {

int64_t ns_of(sim::Instant at) { return (at - sim::Instant::zero()).count_ns(); }

std::string field(const sim::TraceEvent& e, const char* key) {
  for (const sim::TraceField& f : e.fields) {
    if (f.key == key) return f.value;
  }
  return "";
}

// "r3#1" -> "r3", "r3-c2#1" -> "r3": a buyer's attempts and its clicks again share its lane.
std::string buyer_lane(std::string b) {
  b = b.substr(0, b.find('#'));
  const size_t click = b.rfind("-c");
  const bool digits = click != std::string::npos && click + 2 < b.size() && b.find_first_not_of("0123456789", click + 2) == std::string::npos;
  return digits ? b.substr(0, click) : b;
}
std::string buyer_of(const sim::TraceEvent& e) { return buyer_lane(field(e, "buyer")); }

class Lanes {
 public:
  // Buyers first (in order of first appearance), then app nodes, then the servers; the faults
  // lane on top.
  void see(const sim::TraceEvent& e) {
    const std::string buyer = buyer_of(e);
    if (!buyer.empty()) add(buyers_, buyer);
    if (!e.node.empty()) add(e.node.rfind("app-", 0) == 0 ? apps_ : servers_, e.node);
  }
  void finish() {
    order_.push_back({"faults", "faults"});
    for (const auto& b : buyers_) order_.push_back({b, "buyer"});
    for (const auto& a : apps_) order_.push_back({a, "app"});
    for (const auto& s : servers_) order_.push_back({s, "server"});
    for (size_t i = 0; i < order_.size(); ++i) index_[order_[i].first + "\x01" + order_[i].second] = static_cast<int>(i);
  }
  int buyer(const std::string& name) const { return find(name, "buyer"); }
  int node(const std::string& name) const {
    if (name.empty()) return 0;
    return find(name, name.rfind("app-", 0) == 0 ? "app" : "server");
  }
  // An event's lane: its buyer's when it names one, else its node's, else the faults lane.
  int of(const sim::TraceEvent& e) const {
    const std::string b = buyer_of(e);
    return b.empty() ? node(e.node) : buyer(b);
  }
  nlohmann::json json() const {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& [name, kind] : order_) out.push_back({{"name", name}, {"kind", kind}});
    return out;
  }

 private:
  static void add(std::vector<std::string>& v, const std::string& name) {
    if (std::find(v.begin(), v.end(), name) == v.end()) v.push_back(name);
  }
  int find(const std::string& name, const char* kind) const {
    const auto it = index_.find(name + "\x01" + kind);
    return it == index_.end() ? 0 : it->second;
  }
  std::vector<std::string> buyers_, apps_, servers_;
  std::vector<std::pair<std::string, std::string>> order_;
  std::map<std::string, int> index_;
};

}  // namespace

nlohmann::json timeline_json(const properties::RunResult& run) {
  const std::vector<sim::TraceEvent>& events = run.events;
  Lanes lanes;
  for (const sim::TraceEvent& e : events) lanes.see(e);
  lanes.finish();
  std::map<uint64_t, std::vector<std::string>> violations;  // step -> properties
  for (const properties::PropertyResult& pr : run.properties) {
    if (pr.violated && pr.violation) violations[pr.violation->step].push_back(pr.property->name);
  }
  const std::vector<sim::TraceEvent> shown = properties::cut_trace(events, 400, properties::violation_steps(run));
  int64_t end = 0;
  nlohmann::json points = nlohmann::json::array();
  for (const sim::TraceEvent& e : shown) {
    if (e.kind == "quiesced") continue;  // the settle time after the sale, not part of it
    end = std::max(end, ns_of(e.at));
    const auto v = violations.find(e.step);
    points.push_back({{"lane", lanes.of(e)},
                      {"at_ns", ns_of(e.at)},
                      {"step", e.step},
                      {"kind", e.kind},
                      {"text", sim::render_text(e)},
                      {"violates", v == violations.end() ? std::vector<std::string>{} : v->second}});
  }
  const int64_t ttl = run.scenario.workload.lock_ttl.count_ns();
  nlohmann::json bars = nlohmann::json::array();
  nlohmann::json spans = nlohmann::json::array();
  std::map<std::string, std::pair<int64_t, std::string>> held;   // buyer#attempt + token -> from, key
  std::map<std::string, std::pair<int64_t, std::string>> open;   // node + kind -> from, label
  for (const sim::TraceEvent& e : events) {
    const int64_t at = ns_of(e.at);
    if (e.kind == "lock-held" || e.kind == "lock-released") {
      const std::string id = field(e, "buyer") + " " + field(e, "token");
      if (e.kind == "lock-held") {
        held[id] = {at, field(e, "key")};
        bars.push_back({{"lane", lanes.buyer(buyer_of(e))}, {"kind", "lease"}, {"from_ns", at}, {"to_ns", at + ttl},
                        {"label", field(e, "buyer") + " granted " + field(e, "key") + " for the lock TTL"}});
      } else if (const auto it = held.find(id); it != held.end()) {
        bars.push_back({{"lane", lanes.buyer(buyer_of(e))}, {"kind", "belief"}, {"from_ns", it->second.first}, {"to_ns", at},
                        {"label", field(e, "buyer") + " believes it holds " + it->second.second + " (token " + field(e, "token") + ")"}});
        held.erase(it);
      }
    } else if (e.kind == "pause" || e.kind == "crash") {
      open[e.node + " " + e.kind] = {at, e.node + (e.kind == "pause" ? " paused" : " crashed")};
    } else if (e.kind == "resume" || e.kind == "restart") {
      const std::string kind = e.kind == "resume" ? "pause" : "crash";
      if (const auto it = open.find(e.node + " " + kind); it != open.end()) {
        spans.push_back({{"lane", lanes.node(e.node)}, {"kind", kind}, {"from_ns", it->second.first}, {"to_ns", at}, {"label", it->second.second}});
        open.erase(it);
      }
    } else if (e.kind == "partition") {
      open[" partition"] = {at, sim::render_text(e)};
    } else if (e.kind == "heal") {
      if (const auto it = open.find(" partition"); it != open.end()) {
        spans.push_back({{"lane", 0}, {"kind", "partition"}, {"from_ns", it->second.first}, {"to_ns", at}, {"label", it->second.second}});
        open.erase(it);
      }
      // The conductor's heal ends every pause and crash still open.
      for (auto it = open.begin(); it != open.end();) {
        const std::string node = it->first.substr(0, it->first.find(' '));
        const std::string kind = it->first.substr(it->first.find(' ') + 1);
        spans.push_back({{"lane", lanes.node(node)}, {"kind", kind}, {"from_ns", it->second.first}, {"to_ns", at}, {"label", it->second.second + " (until the heal)"}});
        it = open.erase(it);
      }
    }
  }
  // A belief never released lasts to the end of the picture.
  for (const auto& [id, h] : held) {
    const std::string buyer = id.substr(0, id.find(' '));
    bars.push_back({{"lane", lanes.buyer(buyer_lane(buyer))}, {"kind", "belief"}, {"from_ns", h.first}, {"to_ns", std::max(end, h.first)},
                    {"label", buyer + " believes it holds " + h.second + " (never released)"}});
  }
  for (const auto& [key, o] : open) {
    const std::string node = key.substr(0, key.find(' '));
    const std::string kind = key.substr(key.find(' ') + 1);
    spans.push_back({{"lane", node.empty() ? 0 : lanes.node(node)}, {"kind", kind}, {"from_ns", o.first}, {"to_ns", std::max(end, o.first)}, {"label", o.second}});
  }
  return {{"end_ns", end}, {"lanes", lanes.json()}, {"bars", bars}, {"spans", spans}, {"events", points}};
}

}  // namespace oversim::report
