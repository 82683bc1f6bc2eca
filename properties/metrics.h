// The sale's numbers, each meaning what its name says (docs/guide.md#metrics defines every one).
// A run's numbers come from its history and the database's committed state, once, at the end;
// a sweep merges its runs' numbers with sums and by appending samples, so the merge order (which
// thread finished first) never changes a figure. Commands render them; nothing here prints.
//
// Speed is measured over the selling window: from the sale's start to the moment the last SKU
// sold out, or, when stock remained, to the moment the last buyer had its answer. A fault that
// kills buyers or leaves units unsold therefore lengthens the window instead of shortening it:
// no figure improves because a fault made the sale worse.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "protocols/simulation.h"

namespace oversim::properties {

struct SaleMetrics {
  uint64_t runs = 0;
  // Units: stock x SKUs of each run as it ran (a profile's widened stock counts), orders
  // committed (not counting those cancelled unpaid or voided), and distinct orders buyers were
  // told they bought.
  int64_t units = 0;
  int64_t sold = 0;
  int64_t told_bought = 0;
  // Time, from the sale's start (the first arrival window opens at 0): per run that sold, when
  // the first order committed and when the last one did; per run in which every SKU sold out,
  // when the last unit sold (the sell-out).
  std::vector<sim::Duration> first_unit;
  std::vector<sim::Duration> last_unit;
  std::vector<sim::Duration> sell_out;
  // The selling windows summed, in microseconds (an integer sum is the same in any merge order).
  int64_t window_us = 0;
  // Buyers, each counted once by how it ended: bought, told sold out, turned away (told busy or
  // an error when its patience ran out), heard nothing (every attempt outlasted the gateway or
  // ended unknown, or the run stopped first); and, of all of them, told wrongly (told no while
  // an order is committed for it: no_told_wrong's witnesses).
  int64_t buyers = 0;
  int64_t bought = 0;
  int64_t told_sold_out = 0;
  int64_t turned_away = 0;
  int64_t unanswered = 0;
  int64_t told_wrong = 0;
  // Per buyer, arrival to the last answer it heard; Duration::max() for a buyer that heard nothing,
  // so a quantile that falls on one reads "never" (quantiles over answered buyers alone would
  // improve when a fault leaves the slowest buyers unanswered).
  std::vector<sim::Duration> answer_times;
  // The article's monitoring list: lock acquisitions and those that gave up, the wait from asking
  // for a lock to holding it or giving up, stock deductions that ended and those refused (their
  // WHERE matched no row or CHECK turned them down), and the ledger difference at the end: per
  // SKU |initial - available - sold|, summed.
  int64_t lock_acquires = 0;
  int64_t lock_gave_up = 0;
  std::vector<sim::Duration> lock_waits;
  int64_t deductions = 0;
  int64_t deductions_refused = 0;
  int64_t ledger_difference = 0;
  // The fallback layers (designs that keep their stock in a service, have an order lifecycle or
  // consume a queue; `layers` counts the runs of such designs): orders cancelled unpaid; units
  // given back in the database (committed compensations: more than cancelled orders is a double
  // compensation); give-backs to the service sent again after no answer; orders a reconciler
  // voided (never written, their unit given back); orders still pending at the end (the
  // compensation backlog); per SKU |service stock - database available| at the end, summed (the
  // Redis-database gap); queue records processed more than once (redeliveries).
  int64_t layers = 0;
  int64_t cancelled = 0;
  int64_t compensations = 0;
  int64_t compensation_retries = 0;
  int64_t voided = 0;
  int64_t pending_at_end = 0;
  int64_t stock_gap = 0;
  // The same gap over time: the largest seen at any database commit during a run (History::
  // stock_gap_max), the largest over the runs.
  int64_t stock_gap_max = 0;
  int64_t redelivered = 0;

  // The traffic layer (runs with a rate limit at the gateway or a design with a degrade path,
  // Steps::degrade; `traffic` counts them): requests the token bucket answered busy at once,
  // purchases a circuit breaker rejected while open (shed), times a breaker opened, requests to
  // the lock service that got no answer (the load a service that is down still gets), and
  // purchases sent to a queue because the lock service was down (degrade to queueing), and
  // purchases that went on without the lock because it was down (fail open).
  // lock_unanswered counts in every run of a Redis lock (rendered when above 0): a design with
  // no breaker keeps polling a service that is down.
  int64_t traffic = 0;
  int64_t shed_rate_limit = 0;
  int64_t shed_degrade = 0;
  int64_t breaker_opened = 0;
  int64_t lock_unanswered = 0;
  int64_t queued = 0;
  int64_t let_through = 0;

  void merge(const SaleMetrics& other);
  // Units sold per second of selling window, over every run (0 when nothing was timed).
  double orders_per_s() const;
  // A share of the units, in percent (0 with no units).
  double sold_percent() const;
};

SaleMetrics metrics_of(const protocols::Simulation& s);

// Orders that count as sold: every committed order but a cancelled one (its unit was given back;
// 'compensated' once the design confirmed the give-back) and a reconciler's 'void' claim on an
// order id (never sold). A pending order holds its unit.
bool counts_as_sold(const db::OrderRow& o);
bool was_cancelled(const db::OrderRow& o);  // 'cancelled' or 'compensated'
// The stock the design keeps in its service (Steps::service_stock) for `sku` at the end, as a
// client would read it; nullopt for a design that keeps it in the database only. A key the
// service lost (a restart without persistence) holds nothing.
std::optional<int64_t> service_stock(const protocols::Simulation& s, const std::string& sku);

// The buyers that were told no (sold out, busy, an error) while an order is committed for them,
// in the order they ended, each with that order: no_told_wrong's witnesses.
struct ToldWrong {
  const protocols::BuyerAnswer* answer = nullptr;
  std::string order_id;
};
std::vector<ToldWrong> told_wrong(const protocols::Simulation& s);
// The same over committed orders the caller already has (by order id), so a caller that needs them
// for more builds them once.
std::vector<ToldWrong> told_wrong(const protocols::Simulation& s, const std::map<std::string, db::OrderRow>& orders);

// The value at `per_mille` (500: the median, 990: p99, 999: p999, 1000: the largest) of `values`,
// nearest rank; nullopt when empty.
std::optional<sim::Duration> quantile(std::vector<sim::Duration> values, int per_mille);

}  // namespace oversim::properties
