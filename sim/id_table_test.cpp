#include "sim/id_table.h"

#include <map>

#include <gtest/gtest.h>

#include "sim/prng.h"

namespace oversim::sim {
namespace {

// Random puts, finds and erases against std::map, with ids clustered the way the network's are
// (a sliding window of sequential ids) and scattered (to force long probe runs and wraparound).
TEST(IdTable, AgreesWithAMapUnderRandomOperations) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    Prng prng(seed);
    IdTable<int> table;
    std::map<uint64_t, int*> model;
    std::vector<int> values(64);
    uint64_t next = 1;
    for (int step = 0; step < 20000; ++step) {
      const uint64_t op = prng.bounded(3);
      if (op == 0 || model.empty()) {
        const bool scattered = seed % 2 == 0 && prng.bounded(4) == 0;
        uint64_t id = next++;
        if (scattered) id = 1 + prng.bounded(1'000'000'000);
        if (model.count(id) != 0) continue;
        int* v = &values[prng.bounded(values.size())];
        table.put(id, v);
        model[id] = v;
      } else if (op == 1) {
        auto it = model.begin();
        std::advance(it, static_cast<long>(prng.bounded(model.size())));
        if (step % 2 == 0) {
          table.erase(it->first);
        } else {
          EXPECT_EQ(table.take(it->first), it->second);
        }
        model.erase(it);
      } else {
        const uint64_t id = 1 + prng.bounded(next + 5);
        auto it = model.find(id);
        EXPECT_EQ(table.find(id), it == model.end() ? nullptr : it->second) << "seed " << seed << " step " << step << " id " << id;
      }
      ASSERT_EQ(table.size(), model.size());
    }
    for (const auto& [id, v] : model) ASSERT_EQ(table.find(id), v);
  }
}

TEST(IdTable, EraseOfAnAbsentIdChangesNothing) {
  IdTable<int> table;
  int a = 1;
  table.put(7, &a);
  table.erase(8);
  EXPECT_EQ(table.find(7), &a);
  EXPECT_EQ(table.size(), 1u);
}

}  // namespace
}  // namespace oversim::sim
