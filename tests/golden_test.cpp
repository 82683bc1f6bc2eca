// Golden fingerprints: the exact fault plan and run hash of every design under every profile
// for seeds 1..3, checked in (tests/golden/fingerprints.tsv). Every build runs this test — g++,
// clang++ and ASan+UBSan in CI — so a run that depends on the compiler (two random draws in one
// expression, whose order C++ leaves open), on the optimiser or on undefined behaviour fails
// here, naming the run. A change meant to change runs regenerates the file with
// scripts/update-golden.sh and explains the diff in its commit.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli/demo.h"
#include "properties/checker.h"
#include "protocols/profiles.h"

#ifndef OVERSIM_SOURCE_DIR
#error "OVERSIM_SOURCE_DIR must be defined"
#endif

namespace oversim {
namespace {

struct GoldenLine {
  std::string text;
  std::string design, label;
  uint64_t seed = 0;
  std::string plan;
};

std::vector<GoldenLine> golden_lines() {
  std::ifstream in(std::string(OVERSIM_SOURCE_DIR) + "/tests/golden/fingerprints.tsv");
  std::vector<GoldenLine> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::stringstream ss(line);
    std::string field;
    while (std::getline(ss, field, '\t')) fields.push_back(field);
    if (fields.size() != 6) continue;  // counted below: a malformed line fails the test
    out.push_back(GoldenLine{line, fields[0], fields[1], std::stoull(fields[2]), fields[5]});
  }
  return out;
}

TEST(Golden, EveryDesignUnderEveryProfileRunsExactlyAsRecorded) {
  const std::vector<GoldenLine> lines = golden_lines();
  // Every design under every profile that applies to it, 3 seeds each: the file is complete.
  size_t pairs = 0;
  for (const protocols::Design* d : protocols::designs()) {
    for (const protocols::Profile& p : protocols::profiles()) {
      protocols::Scenario s;
      s.design = d->name;
      if (!protocols::profile_inapplicable(p.name, s)) ++pairs;
    }
  }
  ASSERT_EQ(lines.size(), pairs * 3);
  std::vector<properties::LabelledScenario> runs;
  for (const GoldenLine& g : lines) {
    protocols::Scenario s;
    s.design = g.design;
    s.seed = g.seed;
    s.keep_trace = false;
    if (g.label == "plan") s.faults = sim::FaultPlan::parse(g.plan == "none" ? "" : g.plan);
    // A profile is applied (and its sale probed) in the worker threads.
    runs.push_back(properties::LabelledScenario{g.label, s, g.label == "plan" ? "" : g.label});
  }
  const std::vector<std::string> got = properties::fingerprints(runs, 2);
  size_t differ = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (got[i] == lines[i].text) continue;
    if (++differ <= 10) ADD_FAILURE() << "golden run differs:\n  recorded: " << lines[i].text << "\n  this build: " << got[i];
  }
  EXPECT_EQ(differ, 0u) << "runs differ from tests/golden/fingerprints.tsv; if the change is meant to change runs, "
                           "regenerate it with scripts/update-golden.sh and explain the diff";
}

// The kernel demo (no models): its hash depends only on the scheduler, timers, network and the
// fault plan, so a difference here points at the kernel.
TEST(Golden, TheKernelDemoRunsExactlyAsRecorded) {
  const cli::DemoResult r = cli::run_demo(cli::DemoOptions{});
  EXPECT_EQ(sim::format_hash(r.record.outcome.hash()), "28b60c239f738b76");
  EXPECT_EQ(r.sold, 3);
  EXPECT_EQ(r.stock_left, 1);
}

}  // namespace
}  // namespace oversim
