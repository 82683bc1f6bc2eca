// The broker over the network: a consumer that stalls past max.poll.interval loses its
// partition, the other member is given the record again, and the stalled one's commit is
// refused when it wakes (Kafka's CommitFailedException). Fixed 1ms links, so times are exact.
#include "models/mq/mq_client.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/fault_plan.h"
#include "sim/sync.h"
#include "sim/world.h"

namespace oversim::mq {
namespace {
using namespace sim::literals;

struct Processed {
  std::string member;
  uint64_t offset;
  bool committed;
};

// A member's poll loop: poll every 20ms, process a record for 30ms, commit it; join again when
// the broker says it is no longer a member.
void consume(sim::World& w, sim::Node& app, std::vector<Processed>& out) {
  w.spawn(&app, app.name() + "/consumer", [&w, &app, &out] {
    MqClient client(app, w.node("mq"));
    for (;;) {
      auto joined = client.join("orders", app.name());
      if (!joined.ok()) {
        sim::sleep_for(20_ms);
        continue;
      }
      uint64_t generation = joined.value->generation;
      for (;;) {
        auto polled = client.poll("orders", app.name(), generation, 1);
        if (!polled.ok()) {
          sim::sleep_for(20_ms);
          continue;
        }
        if (!polled.value->member) break;
        generation = polled.value->assignment.generation;
        for (const Record& r : polled.value->records) {
          sim::sleep_for(30_ms);
          auto c = client.commit("orders", app.name(), generation, r.partition, r.offset + 1);
          out.push_back({app.name(), r.offset, c.ok() && *c.value == CommitStatus::ok});
        }
        if (polled.value->records.empty()) sim::sleep_for(20_ms);
      }
    }
  }, /*daemon=*/true);
}

// A broker with `partitions`, two consuming app nodes, and a producer that sends `keys` (one
// record each) 100ms in, then stays alive for `linger` so the run lasts.
struct Bench {
  sim::World w{sim::WorldConfig{.seed = 3}};
  MqBroker broker;
  std::vector<Processed> processed;
  Bench(uint32_t partitions, std::vector<std::string> keys, Duration linger) : broker(w, w.add_node("mq"), MqConfig{.partitions = partitions}) {
    w.network().config().latency = sim::LatencyModel{1_ms, 1_ms, sim::Ratio::never(), 1_ms, std::nullopt};
    consume(w, w.add_node("app-1"), processed);
    consume(w, w.add_node("app-2"), processed);
    sim::Node& producer = w.add_node("producer");
    w.spawn(&producer, "producer", [this, &producer, keys, linger] {
      sim::sleep_for(100_ms);
      MqClient client(producer, w.node("mq"));
      for (const std::string& k : keys) ASSERT_TRUE(client.produce(k, "order").ok());
      sim::sleep_for(linger);
    });
  }
};

TEST(MqBroker, AStalledConsumerLosesItsPartitionAndTheRecordIsProcessedTwice) {
  Bench b(1, {"sku1"}, 5_s);
  // Round robin in name order gives app-1 the only partition. Pause it while it processes the
  // record (delivered at 113.35ms, 30ms of work).
  sim::FaultPlan::parse("at 120ms pause app-1 for 2s").apply(b.w);
  ASSERT_EQ(b.w.run().status, sim::RunStatus::completed);
  const std::vector<Processed>& processed = b.processed;
  ASSERT_EQ(processed.size(), 2u);
  // app-2 was given the record again once app-1 had not polled for a second, and committed it;
  // app-1 finished it after its pause, and its commit was refused.
  EXPECT_EQ(processed[0].member, "app-2");
  EXPECT_EQ(processed[0].offset, 0u);
  EXPECT_TRUE(processed[0].committed);
  EXPECT_EQ(processed[1].member, "app-1");
  EXPECT_EQ(processed[1].offset, 0u);
  EXPECT_FALSE(processed[1].committed);
  EXPECT_EQ(b.broker.state().committed("orders", 0), 1u);
}

TEST(MqBroker, WithoutAStallEachRecordIsProcessedOnce) {
  std::vector<std::string> keys;
  for (int i = 0; i < 10; ++i) keys.push_back("sku" + std::to_string(i % 3));
  Bench b(2, keys, 3_s);
  ASSERT_EQ(b.w.run().status, sim::RunStatus::completed);
  ASSERT_EQ(b.processed.size(), 10u);
  for (const Processed& p : b.processed) EXPECT_TRUE(p.committed) << p.member << " " << p.offset;
}

}  // namespace
}  // namespace oversim::mq
