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
  sim::RunOutcome outcome = w.run();
  return DemoResult{sim::record_of(w, outcome), stock, sold};
}

}  // namespace oversim::cli
