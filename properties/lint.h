// `oversim lint`: the article's checklist, answered for one design and one workload before any
// run, from what the design declares (Design::steps, its schema, its services) and the sale's
// settings. Each answer names the property and the fault profile that would show it, so
// `--prove` can back it with a sweep of the same sale.
//
//   lease      lock TTL above the critical section's p99 (the article: P99 x 2 plus margin)
//   failover   can a failover (or a restart) lose the lock
//   release    does release compare the token
//   decrement  does the stock write carry the stock condition
//   unique     are orders unique-indexed
//   ledger     can the ledger be reconciled
//   degrade    what happens when the lock service fails
//   capacity   can one lock holder at a time sell the stock while buyers still wait
//   gateway    does the gateway wait long enough to hear the answer
#pragma once

#include <string>
#include <vector>

#include "protocols/simulation.h"

namespace oversim::properties {

enum class LintLevel : uint8_t { ok, info, warn, fail, na };
const char* to_string(LintLevel l);  // "ok", "info", "WARN", "FAIL", "n/a"

struct LintItem {
  std::string id;        // "lease"
  std::string question;  // "lock TTL > the critical section's p99"
  LintLevel level = LintLevel::ok;
  std::string answer;    // one line
  // What would show it: a property and the profile to run it under ("" when nothing runs).
  std::string property;
  std::string profile;
  bool from_workload = false;  // the answer depends on the sale's numbers, not only the design's code
};

std::vector<LintItem> lint(const protocols::Design& design, const protocols::Workload& workload);

}  // namespace oversim::properties
