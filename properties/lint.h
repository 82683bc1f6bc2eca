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
//   compensate is a cancelled order's unit given back once (a guarded state step, an
//              idempotent give-back)
//   reconcile  does a unit taken from a service's stock for an order never written come back
//   degrade    what happens when the lock service fails
//   capacity   can the stock sell while buyers still wait: one holder at a time (a lock, or a
//              row lock held through the call), the connection pool, a polled lock service
//   gateway    does the gateway wait long enough to hear the answer
//
// An item lists every reason for its level at once (LintItem::answers), not the first found, so
// a user fixes them in one pass.
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
  // One line per reason, every one of them, each at `level`; an answer with nothing wrong is one
  // line that says why.
  std::vector<std::string> answers;
  // What would show it: a property and the profile to run it under ("" when nothing runs).
  std::string property;
  std::string profile;
  bool from_workload = false;  // the answer depends on the sale's numbers, not only the design's code
};

// `typed`: the flags the user typed (a design's default, Requirement::user_may_change, yields to
// a typed value, as in the sale itself).
std::vector<LintItem> lint(const protocols::Design& design, const protocols::Workload& workload, const std::vector<std::string>& typed = {});

}  // namespace oversim::properties
