#include "report/html.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "report/json.h"
#include "report/markup.h"

namespace oversim::report {
namespace {

std::string esc(const std::string& s) { return escape_markup(s); }

std::string str(const nlohmann::json& j) { return j.is_string() ? j.get<std::string>() : j.dump(); }

// 1234567 ns -> "1.23ms"; null -> "-".
std::string span(const nlohmann::json& ns) {
  if (!ns.is_number()) return "never";
  const double v = ns.get<double>();
  if (v >= 1e9) return fmt::format("{:.2f}s", v / 1e9);
  if (v >= 1e6) return fmt::format("{:.1f}ms", v / 1e6);
  if (v >= 1e3) return fmt::format("{:.0f}us", v / 1e3);
  return fmt::format("{:.0f}ns", v);
}

// The buyers' answer-time distribution as a small CDF plot (x: time up to the slowest answered
// buyer; y: share of buyers answered), with the share never answered left as a gap at the top.
std::string cdf_svg(const nlohmann::json& cdf) {
  if (!cdf.is_array() || cdf.empty()) return "";
  double max_ns = 0;
  for (const auto& p : cdf) {
    if (p[1].is_number()) max_ns = std::max(max_ns, p[1].get<double>());
  }
  if (max_ns <= 0) return "";
  const double w = 96, h = 30;
  std::string points;
  std::string tip = "buyers' time to their last answer:";
  for (const auto& p : cdf) {
    const double q = p[0].get<double>() / 1000.0;
    if (!p[1].is_number()) {
      tip += fmt::format(" p{:g} never;", q * 100);
      break;
    }
    const double t = p[1].get<double>();
    points += fmt::format("{:.1f},{:.1f} ", 2 + t / max_ns * (w - 4), h - 2 - q * (h - 4));
    tip += fmt::format(" p{:g} {};", q * 100, span(p[1]));
  }
  return fmt::format("<br><svg class=\"cdf\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\"><title>{}</title><rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" "
                     "fill=\"#fff\" opacity=\".5\"/><polyline fill=\"none\" stroke=\"#1d2330\" stroke-width=\"1.2\" points=\"{}\"/></svg>",
                     w, h, w, h, esc(tip), w, h, points);
}

std::string pct(double x) { return x == 0 ? "0" : x < 0.001 ? fmt::format("{:.4f}", x) : fmt::format("{:.3f}", x); }

const char* const kStyle = R"(
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1d2330;background:#fbfbfd}
h1{font-size:22px;margin:0 0 4px} h2{font-size:18px;margin:28px 0 8px} h3{font-size:15px;margin:18px 0 6px}
.muted{color:#667} code,pre{font:12px/1.4 ui-monospace,"DejaVu Sans Mono",monospace}
pre.cmd{background:#f0f1f5;border:1px solid #d8dae3;padding:8px 10px;white-space:pre-wrap;word-break:break-all;margin:0}
.cmdrow{display:flex;gap:8px;align-items:flex-start} button{font:12px system-ui;padding:6px 10px;cursor:pointer}
table{border-collapse:collapse;margin:8px 0} th,td{border:1px solid #d8dae3;padding:4px 6px;vertical-align:top;text-align:left}
th{background:#eef0f5;font-weight:600} .scroll{overflow-x:auto;max-width:100%} table.matrix td{min-width:104px;font-size:11px;line-height:1.3}
table.matrix th{font-size:12px;position:sticky;top:0} table.matrix tr th:first-child{position:sticky;left:0;z-index:1}
td.na{background:#f3f3f3;color:#889} .rate{font-weight:600} .ci{color:#445}
.verdict{display:inline-block;padding:3px 8px;border-radius:4px;font-weight:600}
.v-violated{background:#fdd;color:#900} .v-holds{background:#dfd;color:#060} .v-other{background:#ffe9c7;color:#7a4b00}
svg.timeline{background:#fff;border:1px solid #d8dae3;display:block;margin:8px 0}
svg .lane-bg{fill:#f7f8fb} svg .lane-bg.odd{fill:#eef0f5} svg .lane-name{font:11px system-ui;fill:#333}
svg .bar.belief{fill:#3b6fd8;opacity:.85} svg .bar.lease{fill:#f0a13a;opacity:.8}
svg .span.pause{fill:#7a7f8f;opacity:.28} svg .span.crash{fill:#b3261e;opacity:.22} svg .span.partition{fill:#8e44ad;opacity:.22}
svg .event{fill:#222;opacity:.75} svg .event:hover{opacity:1;stroke:#000;stroke-width:2}
svg .event.violation{fill:#d11;opacity:1} svg .vline{stroke:#d11;stroke-width:1.2;stroke-dasharray:3 2}
svg .fault-line{stroke:#7a7f8f;stroke-width:1;stroke-dasharray:2 3} svg .axis{font:10px system-ui;fill:#556} svg .tick{stroke:#ccd}
.legend span{display:inline-block;margin-right:14px} .sw{display:inline-block;width:14px;height:10px;margin-right:4px;vertical-align:middle}
)";

const char* const kScript = R"(
window.__oversimErrors = [];
window.addEventListener('error', function (e) { window.__oversimErrors.push(String(e.message)); document.body.setAttribute('data-errors', window.__oversimErrors.join(' | ')); });
function oversimCopy(id, button) {
  var text = document.getElementById(id).textContent;
  var done = function () { button.textContent = 'copied'; setTimeout(function () { button.textContent = 'copy'; }, 1500); };
  if (navigator.clipboard && window.isSecureContext) { navigator.clipboard.writeText(text).then(done, function () {}); return; }
  var range = document.createRange(); range.selectNodeContents(document.getElementById(id));
  var sel = window.getSelection(); sel.removeAllRanges(); sel.addRange(range);
  try { document.execCommand('copy'); done(); } catch (err) {}
}
document.addEventListener('DOMContentLoaded', function () { document.body.setAttribute('data-ready', '1'); });
)";

// A colour for a per-run violation rate: green at 0, then yellow to red.
std::string rate_colour(double rate, bool any) {
  if (!any) return "#d9f2d9";
  const double t = std::clamp(std::sqrt(rate), 0.0, 1.0);  // small rates still show
  const int g = static_cast<int>(std::lround(230 - 170 * t));
  return fmt::format("rgb(250,{},{})", g, static_cast<int>(std::lround(120 - 80 * t)));
}

// `id`: unique within the page (the counterexample's anchor, or "run").
std::string reproduce_block(const std::string& cmd, const std::string& anchor) {
  const std::string id = "cmd-" + anchor;
  return fmt::format("<div class=\"cmdrow\"><pre class=\"cmd\" id=\"{}\">{}</pre><button type=\"button\" onclick=\"oversimCopy('{}', this)\">copy</button></div>\n", id, esc(cmd), id);
}

std::string verdict_badge(const nlohmann::json& v) {
  const std::string kind = str(v.value("kind", nlohmann::json("?")));
  const char* cls = kind == "violated" ? "v-violated" : v.value("holds", false) ? "v-holds" : "v-other";
  return fmt::format("<span class=\"verdict {}\">{}</span>", cls, esc(kind == "violated" ? "VIOLATED" : v.value("holds", false) ? "HOLDS (" + kind + ")" : kind));
}

std::string counterexample_html(const nlohmann::json& cx, const std::string& title, const std::string& anchor) {
  std::string out = fmt::format("<section class=\"counterexample\" id=\"{}\"><h3>{}</h3>\n", esc(anchor), esc(title));
  out += fmt::format("<p>{} buyers, stock {}, seed {}; faults: <code>{}</code>; {} protocol events; trace hash <code>{}</code></p>\n",
                     str(cx.value("buyers", nlohmann::json(0))), str(cx.value("stock", nlohmann::json(0))), str(cx.value("seed", nlohmann::json(0))),
                     esc(str(cx.value("faults", nlohmann::json("none"))).empty() ? "none" : str(cx.value("faults", nlohmann::json("none")))),
                     str(cx.value("protocol_events", nlohmann::json(0))), esc(str(cx.value("trace_hash", nlohmann::json("")))));
  out += "<ul>\n";
  for (const auto& v : cx.value("violated", nlohmann::json::array())) {
    out += fmt::format("<li><b>{}</b> at {} (step {}): {}</li>\n", esc(str(v["property"])), span(v["at_ns"]), str(v["step"]), esc(str(v["witness"])));
  }
  out += "</ul>\n";
  if (cx.contains("timeline")) out += timeline_svg(cx["timeline"]);
  out += reproduce_block(str(cx.value("reproduce", nlohmann::json(""))), anchor);
  return out + "</section>\n";
}

std::string metrics_line(const nlohmann::json& m) {
  if (!m.is_object()) return "";
  const nlohmann::json& at = m.value("answer_time_ns", nlohmann::json::object());
  return fmt::format("sold {} of {} units; sell-out median {}; {:.1f} orders/s; answer p50 {}, p99 {}, p999 {}", str(m.value("sold", nlohmann::json(0))),
                     str(m.value("units", nlohmann::json(0))), span(m.value("sell_out_median_ns", nlohmann::json(nullptr))), m.value("orders_per_s", 0.0),
                     span(at.value("p50", nlohmann::json(nullptr))), span(at.value("p99", nlohmann::json(nullptr))), span(at.value("p999", nlohmann::json(nullptr))));
}

const char* const kBusiness[] = {"no_oversell", "no_duplicate_order", "no_lost_order", "no_told_wrong", "ledger_conservation"};

std::string compare_html(const nlohmann::json& r) {
  std::vector<std::string> variants, faults;
  for (const auto& c : r["cells"]) {
    const std::string v = str(c["variant"]), f = str(c["faults"]);
    if (std::find(variants.begin(), variants.end(), v) == variants.end()) variants.push_back(v);
    if (std::find(faults.begin(), faults.end(), f) == faults.end()) faults.push_back(f);
  }
  std::string out = fmt::format("<p>seeds {}..{} per cell, strategy {}. Each cell: the per-run rate of the worst business property ({}), "
                                "with its 95% Wilson interval (P: the per-run probability); then the median sell-out, orders per second and the buyers' p99 answer time. Colour: green when no run violated one; yellow to red "
                                "with the rate. The small plot is the buyers' answer-time distribution (CDF; it stops below the top by the share "
                                "that never heard an answer). Hover a cell for every property, the plot for its quantiles.</p>\n",
                                str(r["seeds"][0]), str(r["seeds"][1]), esc(str(r.value("strategy", nlohmann::json("")))),
                                "no_oversell, no_duplicate_order, no_lost_order, no_told_wrong, ledger_conservation");
  out += "<div class=\"scroll\"><table class=\"matrix\"><tr><th>design \\ faults</th>";
  for (const auto& f : faults) out += fmt::format("<th>{}</th>", esc(f));
  out += "</tr>\n";
  std::string examples;
  int n = 0;
  for (const auto& v : variants) {
    out += fmt::format("<tr><th>{}</th>", esc(v));
    for (const auto& f : faults) {
      const auto it = std::find_if(r["cells"].begin(), r["cells"].end(), [&](const nlohmann::json& c) { return str(c["variant"]) == v && str(c["faults"]) == f; });
      if (it == r["cells"].end()) {
        out += "<td class=\"na\">-</td>";
        continue;
      }
      const nlohmann::json& c = *it;
      if (!c.value("applies", false)) {
        out += fmt::format("<td class=\"na\" title=\"{}\">does not apply</td>", esc(str(c.value("why", nlohmann::json("")))));
        continue;
      }
      std::string worst = "no_oversell";
      double worst_rate = -1;
      std::string tip;
      for (const auto& [name, p] : c["properties"].items()) {
        tip += fmt::format("{} ({}): {}/{} runs, rate {}, 95% CI {}-{}\n", name, str(p["kind"]), str(p["count"]), str(p["runs"]),
                           p["rate"].is_number() ? pct(p["rate"].get<double>()) : "-", pct(p["ci95"][0].get<double>()), pct(p["ci95"][1].get<double>()));
      }
      for (const char* b : kBusiness) {
        if (!c["properties"].contains(b)) continue;
        const nlohmann::json& p = c["properties"][b];
        const double rate = p["rate"].is_number() ? p["rate"].get<double>() : 0;
        if (rate > worst_rate) {
          worst_rate = rate;
          worst = b;
        }
      }
      const nlohmann::json& p = c["properties"][worst];
      const bool any = p["count"].get<int64_t>() > 0;
      std::string link;
      if (c.contains("counterexample")) {
        const std::string anchor = fmt::format("cx-{}", ++n);
        link = fmt::format("<br><a href=\"#{}\">counterexample</a>", anchor);
        examples += counterexample_html(c["counterexample"], fmt::format("{} under {}", v, f), anchor);
      }
      const nlohmann::json& m = c["metrics"];
      out += fmt::format("<td class=\"cell\" data-rate=\"{}\" style=\"background:{}\" title=\"{}\"><span class=\"rate\">{}{}</span><br>"
                         "<span class=\"ci\">P &asymp; {} (95% CI {}&ndash;{})</span><br>sell-out {}<br>{:.1f}/s &middot; p99 {}{}</td>",
                         any ? pct(worst_rate) : "0", rate_colour(worst_rate, any), esc(tip), any ? esc(worst) + " " : "no violation",
                         any ? fmt::format("{}/{}", str(p["count"]), str(p["runs"])) : "", pct(std::max(worst_rate, 0.0)), pct(p["ci95"][0].get<double>()),
                         pct(p["ci95"][1].get<double>()), span(m.value("sell_out_median_ns", nlohmann::json(nullptr))), m.value("orders_per_s", 0.0),
                         span(m["answer_time_ns"].value("p99", nlohmann::json(nullptr))), cdf_svg(m.value("answer_time_cdf", nlohmann::json())) + link);
    }
    out += "</tr>\n";
  }
  out += "</table></div>\n";
  if (!examples.empty()) out += "<h2>Counterexamples</h2>\n" + examples;
  return out;
}

std::string properties_table(const nlohmann::json& r) {
  const std::string of = r["verdict"].contains("executions") ? "/" + str(r["verdict"]["executions"]) : std::string();
  std::string out = "<table><tr><th>property</th><th>kind</th><th>asserted</th><th>runs</th></tr>\n";
  for (const auto& p : r.value("properties", nlohmann::json::array())) {
    std::string count;
    if (p.contains("violated")) count = p["violated"].is_boolean() ? (p["violated"].get<bool>() ? "VIOLATED" : "held") : "violated in " + str(p["violated"]) + of;
    if (p.contains("reached")) count = p["reached"].is_boolean() ? (p["reached"].get<bool>() ? "reached" : "not reached") : "reached in " + str(p["reached"]) + of;
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", esc(str(p["name"])), esc(str(p["kind"])), p.value("asserted", false) ? "yes" : "",
                       esc(count));
  }
  return out + "</table>\n";
}

}  // namespace

std::string timeline_svg(const nlohmann::json& t) {
  const double label_w = 120, lane_h = 26, top = 22, width = 1200;
  const auto& lanes = t["lanes"];
  double end = std::max<double>(1, t.value("end_ns", 1.0));
  for (const auto& b : t["bars"]) end = std::max(end, b["to_ns"].get<double>());
  for (const auto& s : t["spans"]) end = std::max(end, s["to_ns"].get<double>());
  end *= 1.02;
  const double plot_w = width - label_w - 12;
  auto x = [&](double ns) { return label_w + ns / end * plot_w; };
  const double height = top + lane_h * static_cast<double>(lanes.size()) + 8;
  std::string out = fmt::format("<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\">\n", width,
                                height, width, height);
  // Time axis: about ten ticks at a round step.
  const double raw = end / 10;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double step = raw / mag < 2 ? 2 * mag : raw / mag < 5 ? 5 * mag : 10 * mag;
  for (double tick = 0; tick <= end; tick += step) {
    out += fmt::format("<line class=\"tick\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2:.1f}\"/><text class=\"axis\" x=\"{0:.1f}\" y=\"12\">{3}</text>\n", x(tick), top - 4,
                       height - 6, esc(span(nlohmann::json(static_cast<int64_t>(tick)))));
  }
  for (size_t i = 0; i < lanes.size(); ++i) {
    const double y = top + lane_h * static_cast<double>(i);
    out += fmt::format("<g class=\"lane\" data-lane=\"{}\" data-kind=\"{}\"><rect class=\"lane-bg{}\" x=\"0\" y=\"{:.1f}\" width=\"{}\" height=\"{}\"/>"
                       "<text class=\"lane-name\" x=\"6\" y=\"{:.1f}\">{}</text></g>\n",
                       esc(str(lanes[i]["name"])), esc(str(lanes[i]["kind"])), i % 2 ? " odd" : "", y, width, lane_h, y + lane_h / 2 + 4, esc(str(lanes[i]["name"])));
  }
  auto lane_y = [&](const nlohmann::json& lane) { return top + lane_h * lane.get<double>(); };
  for (const auto& s : t["spans"]) {
    const double x0 = x(s["from_ns"].get<double>()), x1 = std::max(x(s["to_ns"].get<double>()), x0 + 2);
    out += fmt::format("<rect class=\"span {}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{}\"><title>{} ({} to {})</title></rect>\n", esc(str(s["kind"])), x0,
                       lane_y(s["lane"]), x1 - x0, lane_h, esc(str(s["label"])), span(s["from_ns"]), span(s["to_ns"]));
  }
  for (const auto& b : t["bars"]) {
    const bool lease = str(b["kind"]) == "lease";
    const double x0 = x(b["from_ns"].get<double>()), x1 = std::max(x(b["to_ns"].get<double>()), x0 + 2);
    const double y = lane_y(b["lane"]) + (lease ? lane_h - 8 : 5);
    out += fmt::format("<rect class=\"bar {}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{}\" rx=\"2\"><title>{} ({} to {})</title></rect>\n", esc(str(b["kind"])), x0, y,
                       x1 - x0, lease ? 4 : 10, esc(str(b["label"])), span(b["from_ns"]), span(b["to_ns"]));
  }
  for (const auto& e : t["events"]) {
    const double cx = x(e["at_ns"].get<double>());
    const double cy = lane_y(e["lane"]) + lane_h / 2;
    const bool bad = !e["violates"].empty();
    std::string title = str(e["text"]);
    if (bad) {
      std::string names;
      for (const auto& p : e["violates"]) names += (names.empty() ? "" : ", ") + str(p);
      title = "violates " + names + ": " + title;
      out += fmt::format("<line class=\"vline\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2:.1f}\"/>\n", cx, top, height - 6);
    }
    if (str(e["kind"]) == "fault") out += fmt::format("<line class=\"fault-line\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2:.1f}\"/>\n", cx, top, height - 6);
    out += fmt::format("<circle class=\"event{}\" data-step=\"{}\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\"><title>{}</title></circle>\n", bad ? " violation" : "", str(e["step"]), cx,
                       cy, bad ? 5 : 3, esc(title));
  }
  return out + "</svg>\n<p class=\"legend muted\"><span><i class=\"sw\" style=\"background:#3b6fd8\"></i>a buyer believes it holds the lock</span>"
               "<span><i class=\"sw\" style=\"background:#f0a13a\"></i>the lease it was granted (the lock TTL)</span>"
               "<span><i class=\"sw\" style=\"background:#7a7f8f;opacity:.4\"></i>paused</span><span><i class=\"sw\" style=\"background:#b3261e;opacity:.3\"></i>crashed</span>"
               "<span><i class=\"sw\" style=\"background:#8e44ad;opacity:.3\"></i>partitioned</span><span><i class=\"sw\" style=\"background:#d11\"></i>the violating event</span>"
               " Hover any mark for its trace line.</p>\n";
}

std::string render_html(const nlohmann::json& r) {
  if (!r.is_object() || r.value("schema", "") != kSchema) throw std::invalid_argument(fmt::format("not an oversim result of schema {}", kSchema));
  const std::string command = r.value("command", "");
  std::string body;
  std::string title = "oversim " + command;
  if (command == "compare") {
    body = compare_html(r);
  } else if (command == "check" || command == "explore" || command == "run") {
    title += " " + str(r.value("variant", r.contains("scenario") ? r["scenario"].value("design", nlohmann::json("")) : nlohmann::json("")));
    const nlohmann::json& v = r["verdict"];
    body += fmt::format("<p>{} &nbsp; {} {}</p>\n", verdict_badge(v), esc(str(v.value("search", nlohmann::json("")))),
                        v.contains("executions") ? fmt::format("&middot; {} executions", str(v["executions"])) : std::string());
    if (v.contains("bounds")) body += fmt::format("<p class=\"muted\">bounds: {}</p>\n", esc(str(v["bounds"])));
    if (r.contains("workload") && r["workload"].is_string()) body += fmt::format("<p class=\"muted\">workload: {}; faults: {}</p>\n", esc(str(r["workload"])), esc(str(r.value("faults", nlohmann::json("")))));
    if (r.contains("metrics")) body += fmt::format("<p>{}</p>\n", esc(metrics_line(r["metrics"])));
    if (r.contains("counterexample")) body += "<h2>Counterexample</h2>\n" + counterexample_html(r["counterexample"], "the shortest failing run shown", "cx-1");
    body += "<h2>Properties</h2>\n" + properties_table(r);
    if (command == "run" && r.contains("timeline")) body += "<h2>Timeline</h2>\n" + timeline_svg(r["timeline"]) + reproduce_block(str(r.value("reproduce", nlohmann::json(""))), "run");
  } else {
    throw std::invalid_argument(fmt::format("no HTML report for the command '{}'", command));
  }
  return fmt::format("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title>\n<style>{}</style>\n<script>{}</script></head>\n"
                     "<body><h1>{}</h1>\n<p class=\"muted\">{}; every mark of a timeline shows its trace line on hover; this file needs no network.</p>\n{}</body></html>\n",
                     esc(title), kStyle, kScript, esc(title), esc(kSchema), body);
}

}  // namespace oversim::report
