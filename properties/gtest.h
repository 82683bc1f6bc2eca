// GoogleTest helpers for a design's property tests (docs/writing-your-design.md): a seed sweep of
// a design under a profile or a fault plan as one assertion, failing with the shrunk
// counterexample's witness and the reproduce command. Header only; link oversim::gtest (the
// properties layer and GTest::gtest).
//
//   EXPECT_DESIGN_HOLDS("my_recipe", {"no_oversell"}, oversim::testing::Sweep().under("gc-pause").seeds(200));
//
// The sweep is check's own (properties::sweep) and its verdict is judged as check judges it: a
// sweep that never reached a `require`d situation (vacuous), whose faults never happened
// (unfired) or whose runs stopped at their horizon (incomplete) fails too, saying so: a sweep
// that tested nothing is never a pass.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "properties/checker.h"
#include "properties/verdict.h"
#include "protocols/profiles.h"
#include "protocols/registry.h"

namespace oversim::testing {

// What to sweep, built by chaining: Sweep().under("gc-pause").seeds(200).require({"lease_expired_while_held"}).
// By default: no faults, seeds 1..100, the swarm strategy (check's default), the default sale,
// one thread, the counterexample shrunk.
class Sweep {
 public:
  Sweep& under(std::string faults) {  // a profile (gc-pause, failover, ...), "none", or a fault plan
    faults_ = std::move(faults);
    return *this;
  }
  Sweep& seeds(uint64_t count) {
    seeds_ = count;
    return *this;
  }
  Sweep& first_seed(uint64_t seed) {
    first_seed_ = seed;
    return *this;
  }
  Sweep& strategy(protocols::Search::Kind kind) {
    strategy_ = kind;
    return *this;
  }
  Sweep& sale(protocols::Workload workload) {  // buyers, stock, latencies, settings
    workload_ = std::move(workload);
    return *this;
  }
  Sweep& require(std::vector<std::string> sometimes) {  // situations some run must reach (check --require)
    require_ = std::move(sometimes);
    return *this;
  }
  Sweep& jobs(unsigned threads) {
    jobs_ = threads;
    return *this;
  }
  Sweep& unshrunk() {  // hand back the failing seed's run as found
    shrink_ = false;
    return *this;
  }

  const std::string& faults() const { return faults_; }
  uint64_t count() const { return seeds_; }
  uint64_t first() const { return first_seed_; }
  protocols::Search::Kind search() const { return strategy_; }
  const protocols::Workload& workload() const { return workload_; }
  const std::vector<std::string>& required() const { return require_; }
  unsigned threads() const { return jobs_; }
  bool shrinks() const { return shrink_; }

 private:
  std::string faults_ = "none";
  uint64_t first_seed_ = 1;
  uint64_t seeds_ = 100;
  protocols::Search::Kind strategy_ = protocols::Search::Kind::swarm;
  protocols::Workload workload_;
  std::vector<std::string> require_;
  unsigned jobs_ = 1;
  bool shrink_ = true;
};

// Every property in `asserted` (empty: check's default, the business ones) held in every run of
// the sweep, which tested what it was asked to.
inline ::testing::AssertionResult design_holds(const std::string& design, const std::vector<std::string>& asserted, const Sweep& sweep) {
  if (protocols::find_design(design) == nullptr) return ::testing::AssertionFailure() << "no design named '" << design << "' (registered: see protocols::designs())";
  properties::SweepOptions o;
  o.base.design = design;
  o.base.workload = sweep.workload();
  o.base.search.kind = sweep.search();
  o.base.keep_trace = false;
  const bool profile = protocols::is_profile(sweep.faults());
  try {
    if (profile) {
      o.profile = sweep.faults();
    } else if (sweep.faults() != "none") {
      o.base.faults = sim::FaultPlan::parse(sweep.faults());
    }
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "faults '" << sweep.faults() << "': " << e.what();
  }
  o.first_seed = sweep.first();
  o.seeds = sweep.count();
  o.jobs = sweep.threads();
  o.asserted = asserted.empty() ? properties::default_asserted() : asserted;
  o.stop_at_first = true;
  const std::string where = fmt::format("{} under {}, seeds {}..{}", design, sweep.faults(), sweep.first(), sweep.first() + sweep.count() - 1);
  properties::SweepResult r;
  try {
    r = properties::sweep(o);
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << where << ": " << e.what();
  }
  if (!r.invalid.empty()) return ::testing::AssertionFailure() << where << ": cannot run as asked: " << r.invalid.front();
  if (!r.errors.empty()) return ::testing::AssertionFailure() << where << ": internal error: " << r.errors.front();
  const properties::VerdictKind kind = properties::judge(r, sweep.required(), !profile && sweep.faults() != "none");
  if (properties::holds(kind)) {
    return ::testing::AssertionSuccess() << where << ": every asserted property held in " << r.runs << " runs";
  }
  if (kind != properties::VerdictKind::violated || !r.first_failure) {
    std::string why;
    if (kind == properties::VerdictKind::vacuous) why = fmt::format(" (never reached: {})", fmt::join(properties::unreached(r, sweep.required()), ", "));
    if (kind == properties::VerdictKind::unfired) why = " (a planned fault never happened)";
    if (kind == properties::VerdictKind::incomplete) why = fmt::format(" (seed {} stopped at its horizon)", r.horizon_seed.value_or(0));
    return ::testing::AssertionFailure() << where << ": " << properties::to_string(kind) << why << ": the sweep did not test what it was asked to";
  }
  protocols::Scenario shown = r.first_failure->scenario;
  if (sweep.shrinks()) shown = properties::shrink(shown, o.asserted);
  const properties::RunResult replay = properties::run_checked(shown);
  ::testing::AssertionResult failure = ::testing::AssertionFailure();
  failure << where << ": VIOLATED at seed " << *r.first_failing_seed << ", the first that failed (the sweep stops there)";
  for (const std::string& name : o.asserted) {
    const properties::PropertyResult& p = replay.result(name);
    if (p.violated && p.violation) failure << "\n  " << name << ": " << p.violation->witness;
  }
  // A line of its own: gtest closes the message with ")" after it.
  failure << "\n  reproduce: " << properties::reproduce_command(shown, o.asserted) << "\n";
  return failure;
}

}  // namespace oversim::testing

#define EXPECT_DESIGN_HOLDS(design, asserted, sweep) EXPECT_TRUE(::oversim::testing::design_holds((design), asserted, (sweep)))
#define ASSERT_DESIGN_HOLDS(design, asserted, sweep) ASSERT_TRUE(::oversim::testing::design_holds((design), asserted, (sweep)))
