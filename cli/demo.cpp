#include "cli/demo.h"

#include <fmt/format.h>

#include "sim/network.h"
#include "sim/sync.h"
#include "sim/world.h"

namespace oversim::cli {
using namespace sim::literals;

namespace {
struct StockRequest {
  bool write = false;
  int64_t value = 0;
};
}  // namespace

std::optional<std::string> demo_problem(const DemoOptions& options) {
  if (auto problem = options.faults.problem()) return problem;
  for (const sim::Fault& f : options.faults.faults) {
    if (f.at >= sim::WorldConfig{}.horizon) {
      return fmt::format("fault '{}' comes after the demo's horizon of {}", sim::to_string(f), sim::format_duration(sim::WorldConfig{}.horizon));
    }
  }
  std::vector<std::string> nodes = {"stock"};
  for (int b = 1; b <= options.buyers; ++b) nodes.push_back(fmt::format("app-{}", b));
  return options.faults.unknown_node(nodes);
}

DemoResult run_demo(const DemoOptions& options) {
  sim::World w(sim::WorldConfig{.seed = options.seed});
  sim::Node& server = w.add_node("stock");
  int64_t stock = options.stock;
  int64_t sold = 0;
  server.set_boot([&](sim::Node& n) {
    w.spawn(&n, "stock-server", [&] {
      for (;;) {
        std::optional<sim::Message> m = n.mailbox("stock").receive();
        const auto req = std::any_cast<StockRequest>(m->body);
        sim::sleep_for(50_us);  // service time
        if (req.write) stock = req.value;
        w.trace(req.write ? "write" : "read", {{"stock", std::to_string(stock)}});
        w.network().reply(n, *m, stock, fmt::format("stock={}", stock));
      }
    }, /*daemon=*/true);
  });
  for (int b = 1; b <= options.buyers; ++b) {
    sim::Node& app = w.add_node(fmt::format("app-{}", b));
    w.spawn(&app, fmt::format("buyer-{}", b), [&w, &app, &server, &sold] {
      auto read = w.network().call_as<int64_t>(app, server, "stock", StockRequest{}, "GET stock", 20_ms);
      if (!read.ok() || *read.value < 1) {
        w.trace("sold-out");
        return;
      }
      const int64_t next = *read.value - 1;
      auto write = w.network().call_as<int64_t>(app, server, "stock", StockRequest{true, next}, fmt::format("SET stock {}", next), 20_ms);
      if (write.ok()) {
        ++sold;
        w.trace("bought", {{"stock_after", std::to_string(next)}});
      }
    });
  }
  options.faults.apply(w);
  // A fault planned after the buyers are done still happens (and shows in the trace).
  w.spawn(nullptr, "until-settled", [&] { sim::sleep_until(sim::Instant::zero() + options.faults.settled_at()); });
  sim::RunOutcome outcome = w.run();
  return DemoResult{sim::record_of(w, outcome), stock, sold};
}

}  // namespace oversim::cli
