// Runs oversim's own harness from outside its tree, through the installed headers and
// libraries: the same gc-pause profile that breaks read-then-write under a Redis lock leaves the
// conditional decrement under the same lock holding. Exit 0 when both come out as the verdict
// table says, 1 otherwise.
#include <cstdio>
#include <string>

#include "properties/checker.h"
#include "protocols/profiles.h"

namespace {
// The seeds (of 1..20) in which `design` oversold under gc-pause.
int oversold(const std::string& design) {
  int n = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    oversim::protocols::Scenario s;
    s.design = design;
    s.seed = seed;
    s.keep_trace = false;
    s = oversim::protocols::apply_profile("gc-pause", s);
    const oversim::properties::RunResult r = oversim::properties::run_checked(s);
    n += r.result("no_oversell").violated ? 1 : 0;
  }
  return n;
}
}  // namespace

int main() {
  const int unsafe = oversold("redis_lock_read_modify_write");
  const int safe = oversold("redis_lock_conditional");
  std::printf("gc-pause, seeds 1..20: redis_lock_read_modify_write oversold in %d, redis_lock_conditional in %d\n", unsafe, safe);
  return unsafe > 0 && safe == 0 ? 0 : 1;
}
