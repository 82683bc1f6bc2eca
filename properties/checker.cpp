#include "properties/checker.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <tuple>

#include <fmt/format.h>

#include "properties/explore.h"
#include "sim/world.h"

namespace oversim::properties {

using protocols::Scenario;
using protocols::Simulation;

const PropertyResult& RunResult::result(const std::string& property) const {
  for (const PropertyResult& r : properties) {
    if (r.property->name == property) return r;
  }
  throw std::invalid_argument(fmt::format("unknown property '{}'", property));
}

bool RunResult::violates(const std::vector<std::string>& asserted) const {
  for (const std::string& name : asserted) {
    if (result(name).violated) return true;
  }
  return false;
}

std::vector<std::string> default_asserted() {
  std::vector<std::string> names;
  for (const Property& p : catalogue()) {
    if (p.asserted_by_default()) names.push_back(p.name);
  }
  return names;
}

RunResult run_checked(const Scenario& scenario) { return run_checked(scenario, nullptr); }

RunResult run_checked(const Scenario& scenario, std::unique_ptr<sim::Strategy> strategy) {
  const protocols::Design* design = protocols::find_design(scenario.design);
  if (design == nullptr) throw std::invalid_argument(fmt::format("unknown variant '{}'", scenario.design));
  if (auto problem = protocols::scenario_problem(scenario, *design)) throw std::invalid_argument(fmt::format("invalid scenario: {}", *problem));
  Simulation simulation(scenario, *design, std::move(strategy));
  RunResult r;
  r.scenario = scenario;
  for (const Property& p : catalogue()) r.properties.push_back(PropertyResult{&p, false, false, std::nullopt, ""});

  // Always-properties: re-checked after every event that can change what they read — a
  // database statement after which the committed state moved (every commit bumps the commit
  // count), or an acknowledgement; the first violation is kept with its time and step.
  sim::World& world = simulation.world();
  int64_t checked_at_commit = -1;
  world.add_trace_observer({"sql", "ack"}, [&](const sim::TraceEvent& e) {
    if (e.kind == "sql") {
      const int64_t commits = simulation.db().state().commit_count();
      if (commits == checked_at_commit) return;
      checked_at_commit = commits;
    } else if (e.kind != "ack") {
      return;
    }
    for (PropertyResult& pr : r.properties) {
      if (pr.property->kind != Kind::always || pr.violated || pr.property->over_history) continue;
      if (auto witness = pr.property->check(simulation)) {
        pr.violated = true;
        pr.violation = Violation{e.at, e.step, *witness};
      }
    }
  });
  // The run's story, for the shrinker: the kinds of faults in the order they first struck, with
  // where the first pause ended and the first failover came among them (a crash and restart
  // done three times tells the story of one). A fault's "fault" event comes just before
  // the world counts it, so the count then is its index among the applied kinds.
  constexpr size_t kNotAFault = SIZE_MAX;
  std::vector<std::pair<size_t, const char*>> story;
  world.add_trace_observer({"fault", "resume", "failover"}, [&](const sim::TraceEvent& e) {
    if (e.kind == "fault") story.emplace_back(world.faults_applied(), nullptr);
    else if (e.kind == "resume") story.emplace_back(kNotAFault, "resume");
    else if (e.kind == "failover") story.emplace_back(kNotAFault, "failover");
  });
  r.outcome = simulation.run();
  for (const auto& [index, word] : story) {
    const std::vector<const char*>& kinds = world.applied_fault_kinds();
    std::string token = index == kNotAFault ? std::string(word) : index < kinds.size() ? std::string(kinds[index]) : std::string("fault");
    if (std::find(r.story.begin(), r.story.end(), token) == r.story.end()) r.story.push_back(std::move(token));
  }

  const protocols::History& h = simulation.history();
  for (PropertyResult& pr : r.properties) {
    const Property& p = *pr.property;
    if (p.kind == Kind::sometimes) {
      if (auto what = p.check(simulation)) {
        pr.reached = true;
        pr.note = *what;
      }
      continue;
    }
    if (pr.violated) continue;
    if (p.over_history) {
      // Judged over the whole history; the violation carries the first offence's time and step.
      if (auto offence = p.over_history(simulation)) {
        pr.violated = true;
        pr.violation = Violation{offence->at, offence->step, offence->witness};
      }
      continue;
    }
    if (p.kind == Kind::always || p.kind == Kind::eventually) {
      if (auto witness = p.check(simulation)) {
        pr.violated = true;
        pr.violation = Violation{r.outcome.end_time, r.outcome.steps, *witness};
      }
    }
  }
  r.events = world.trace_log().events();
  r.acks = static_cast<int64_t>(h.acks.size());
  r.orders = static_cast<int64_t>(simulation.db().committed_orders().size());
  r.latencies = h.order_latencies;
  r.results = h.results;
  r.counters = h.counters;
  r.faults_planned = scenario.faults.faults.size();
  r.faults_fired = world.faults_applied();
  r.choices = world.choices();
  r.chosen_faults = simulation.chosen_faults();
  r.metrics = metrics_of(simulation);
  for (const auto& service : simulation.services()) service->loads(r.lock_loads);
  r.sale_duration = h.sale_ended_at == sim::Instant::max() ? r.outcome.end_time - sim::Instant::zero() : h.sale_ended_at - sim::Instant::zero();
  return r;
}


void for_each_index(uint64_t count, unsigned jobs, const std::function<void(uint64_t)>& body) {
  std::vector<std::exception_ptr> failures(count);
  std::atomic<uint64_t> next{0};
  const auto threads = static_cast<unsigned>(std::max<uint64_t>(1, std::min<uint64_t>({jobs, count, 256})));
  std::vector<std::thread> workers;
  for (unsigned j = 0; j < threads; ++j) {
    workers.emplace_back([&] {
      for (uint64_t i = next++; i < count; i = next++) {
        try {
          body(i);
        } catch (...) {
          failures[i] = std::current_exception();
        }
      }
    });
  }
  for (std::thread& t : workers) t.join();
  for (const std::exception_ptr& e : failures) {
    if (e) std::rethrow_exception(e);
  }
}

Scenario scenario_for(const SweepOptions& options, uint64_t seed) {
  Scenario s = options.base;
  s.seed = seed;
  if (!options.profile.empty()) return protocols::apply_profile(options.profile, s);
  return protocols::apply_search(s);
}

namespace {
// One seed's run, as the sweep keeps it until it is merged.
struct SeedOutcome {
  enum class Kind : uint8_t { ran, invalid, error } kind = Kind::ran;
  std::string message;
  RunResult run;
  std::string unplaced;
};

// Builds a run's scenario and runs it: `build` may throw (a profile that cannot place a plan for
// this sale) and the scenario may not run as asked (scenario_problem); both are bad input
// (invalid), while an exception inside the run is an internal error. Shared by sweeps and
// fingerprints, so both judge a scenario the same way.
template <class Build>
SeedOutcome build_and_run(Build build) {
  SeedOutcome out;
  Scenario s;
  try {
    s = build();
    const protocols::Design* design = protocols::find_design(s.design);
    if (design != nullptr) {
      if (auto problem = protocols::scenario_problem(s, *design)) throw std::invalid_argument(*problem);
    }
  } catch (const std::exception& e) {
    out.kind = SeedOutcome::Kind::invalid;
    out.message = e.what();
    return out;
  }
  s.keep_trace = false;
  s.record_choices = false;  // a failure found is shrunk from a run of its own
  out.unplaced = s.unplaced;
  try {
    out.run = run_checked(s);
  } catch (const std::exception& e) {
    out.kind = SeedOutcome::Kind::error;
    out.message = e.what();
  }
  return out;
}

SeedOutcome run_seed(const SweepOptions& options, uint64_t seed) {
  SeedOutcome out = build_and_run([&] { return scenario_for(options, seed); });
  if (out.kind != SeedOutcome::Kind::ran) out.message = fmt::format("seed {}: {}", seed, out.message);
  return out;
}

void merge(SweepResult& out, const SweepOptions& options, uint64_t seed, SeedOutcome&& o) {
  if (o.kind == SeedOutcome::Kind::invalid) {
    out.invalid.push_back(std::move(o.message));
    return;
  }
  if (o.kind == SeedOutcome::Kind::error) {
    out.errors.push_back(std::move(o.message));
    return;
  }
  const RunResult& r = o.run;
  ++out.runs;
  ++out.run_status[sim::to_string(r.outcome.status)];
  if (r.outcome.status == sim::RunStatus::horizon && (!out.horizon_seed || seed < *out.horizon_seed)) out.horizon_seed = seed;
  for (const PropertyResult& pr : r.properties) {
    PropertyCount& c = out.counts[pr.property->name];
    if (pr.violated) {
      ++c.violated;
      if (!c.first_seed || seed < *c.first_seed) c.first_seed = seed;
    }
    if (pr.reached) ++c.reached;
  }
  if (!o.unplaced.empty()) {
    ++out.unplaced;
    if (!out.unplaced_seed || seed < *out.unplaced_seed) {
      out.unplaced_seed = seed;
      out.unplaced_why = o.unplaced;
    }
  }
  if (r.faults_fired < r.faults_planned) {
    ++out.unfired;
    if (!out.unfired_seed || seed < *out.unfired_seed) out.unfired_seed = seed;
  }
  out.faults_planned += r.faults_planned;
  out.faults_fired += r.faults_fired;
  for (const auto& [result, n] : r.results) out.purchases += n;
  for (const auto& [name, n] : r.counters) out.counters[name] += n;
  out.metrics.merge(r.metrics);
  if (r.violates(options.asserted)) {
    ++out.violating_runs;
    if (!out.first_failing_seed || seed < *out.first_failing_seed) out.first_failing_seed = seed;
  }
}
}  // namespace

namespace {
// What a sweep does after its last run: errors in a stable order, and the first failing seed
// replayed with its trace kept.
void finish_sweep(SweepResult& out, const SweepOptions& options) {
  std::sort(out.errors.begin(), out.errors.end());
  std::sort(out.invalid.begin(), out.invalid.end());
  if (options.replay_failure) replay_first_failure(out, options);
}
}  // namespace

void replay_first_failure(SweepResult& out, const SweepOptions& options) {
  if (!out.first_failing_seed) return;
  Scenario s = scenario_for(options, *out.first_failing_seed);
  s.keep_trace = options.keep_failure_trace;
  s.record_choices = false;  // a shrink replays by choices from a run of its own
  out.first_failure = run_checked(s);
}

SeedBlock shard_block(uint64_t first, uint64_t count, uint64_t index, uint64_t shards) {
  if (shards == 0 || index == 0 || index > shards) throw std::invalid_argument(fmt::format("shard {}/{} does not exist", index, shards));
  const uint64_t base = count / shards;
  const uint64_t extra = count % shards;
  const uint64_t i = index - 1;
  // Shards before i: i * base seeds, plus one each for the first min(i, extra).
  const uint64_t offset = i * base + std::min(i, extra);
  return SeedBlock{first + offset, base + (i < extra ? 1 : 0)};
}

void merge_sweeps(SweepResult& into, SweepResult&& later) {
  if (into.stopped) return;  // one sweep stopped at into's first failure: nothing later counts
  auto lowest = [](std::optional<uint64_t>& a, const std::optional<uint64_t>& b) {
    if (b && (!a || *b < *a)) a = b;
  };
  into.runs += later.runs;
  for (auto& [name, c] : later.counts) {
    PropertyCount& to = into.counts[name];
    to.violated += c.violated;
    to.reached += c.reached;
    lowest(to.first_seed, c.first_seed);
  }
  lowest(into.first_failing_seed, later.first_failing_seed);
  into.violating_runs += later.violating_runs;
  into.purchases += later.purchases;
  for (const auto& [name, n] : later.counters) into.counters[name] += n;
  into.metrics.merge(later.metrics);
  for (const auto& [status, n] : later.run_status) into.run_status[status] += n;
  lowest(into.horizon_seed, later.horizon_seed);
  into.errors.insert(into.errors.end(), later.errors.begin(), later.errors.end());
  std::sort(into.errors.begin(), into.errors.end());
  into.invalid.insert(into.invalid.end(), later.invalid.begin(), later.invalid.end());
  std::sort(into.invalid.begin(), into.invalid.end());
  into.unplaced += later.unplaced;
  if (later.unplaced_seed && (!into.unplaced_seed || *later.unplaced_seed < *into.unplaced_seed)) {
    into.unplaced_seed = later.unplaced_seed;
    into.unplaced_why = later.unplaced_why;
  }
  into.unfired += later.unfired;
  lowest(into.unfired_seed, later.unfired_seed);
  into.faults_planned += later.faults_planned;
  into.faults_fired += later.faults_fired;
  if (!into.inapplicable) into.inapplicable = later.inapplicable;
  into.stopped = later.stopped;
  into.wall_ns += later.wall_ns;
  into.first_failure.reset();
}

SweepResult sweep(const SweepOptions& options) {
  if (!options.stop_at_first) {
    SweepResult out;
    sweep_cells({options}, {1.0}, options.jobs, options.progress, [&out](size_t, SweepResult&& r) { out = std::move(r); });
    return out;
  }
  SweepResult out;
  if (!options.profile.empty()) {
    out.inapplicable = protocols::profile_inapplicable(options.profile, options.base);
    if (out.inapplicable) return out;
  }
  const auto started = std::chrono::steady_clock::now();  // wall time, reported only
  // In order, a batch at a time; merged in seed order up to the first failing seed.
  const uint64_t batch = std::max<uint64_t>(1, uint64_t{options.jobs} * 4);
  for (uint64_t done = 0; done < options.seeds && !out.stopped;) {
    const uint64_t n = std::min(batch, options.seeds - done);
    std::vector<SeedOutcome> slots(n);
    for_each_index(n, options.jobs, [&](uint64_t i) { slots[i] = run_seed(options, options.first_seed + done + i); });
    for (uint64_t i = 0; i < n && !out.stopped; ++i) {
      merge(out, options, options.first_seed + done + i, std::move(slots[i]));
      out.stopped = out.first_failing_seed.has_value();
    }
    done += n;
    if (options.progress) options.progress(out.runs, out.violating_runs);
  }
  out.wall_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - started).count();
  finish_sweep(out, options);
  return out;
}

void sweep_cells(const std::vector<SweepOptions>& cells, const std::vector<double>& cost, unsigned jobs,
                 const std::function<void(uint64_t runs, uint64_t violating)>& progress,
                 const std::function<void(size_t cell, SweepResult&& result)>& done) {
  struct Cell {
    SweepResult result;
    uint64_t left = 0;  // runs not yet merged
    std::chrono::steady_clock::time_point started;
    bool started_yet = false;
    bool complete = false;
  };
  std::vector<Cell> state(cells.size());
  // The tasks, each cell's seeds in order: first the short cells in table order (they cost the
  // schedule nothing and their rows appear at once), then the long ones costliest first, so the
  // last to finish is a short one. Long: above an eighth of one job's share of the total.
  auto cost_of = [&cost](size_t i) { return i < cost.size() ? cost[i] : 0.0; };
  double total = 0;
  for (size_t i = 0; i < cells.size(); ++i) total += cost_of(i);
  const double long_cell = total / (8.0 * std::max(1u, jobs));
  std::vector<size_t> order(cells.size());
  for (size_t i = 0; i < cells.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const bool a_long = cost_of(a) > long_cell;
    const bool b_long = cost_of(b) > long_cell;
    if (a_long != b_long) return b_long;
    return a_long && cost_of(a) > cost_of(b);
  });
  std::vector<std::pair<size_t, uint64_t>> tasks;  // cell, seed
  for (size_t i : order) {
    const SweepOptions& o = cells[i];
    if (!o.profile.empty()) state[i].result.inapplicable = protocols::profile_inapplicable(o.profile, o.base);
    if (state[i].result.inapplicable || o.seeds == 0) {
      state[i].complete = true;
      continue;
    }
    state[i].left = o.seeds;
    for (uint64_t k = 0; k < o.seeds; ++k) tasks.emplace_back(i, o.first_seed + k);
  }
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<size_t> next{0};
  uint64_t runs = 0;
  uint64_t violating = 0;
  std::exception_ptr failure;
  auto work = [&] {
    for (size_t t = next++; t < tasks.size(); t = next++) {
      const auto [i, seed] = tasks[t];
      {
        std::lock_guard<std::mutex> lock(mu);
        if (!state[i].started_yet) state[i].started = std::chrono::steady_clock::now();  // wall time, reported only
        state[i].started_yet = true;
      }
      SeedOutcome o = run_seed(cells[i], seed);
      std::unique_lock<std::mutex> lock(mu);
      Cell& c = state[i];
      const uint64_t before = c.result.violating_runs;
      merge(c.result, cells[i], seed, std::move(o));
      ++runs;
      violating += c.result.violating_runs - before;
      if (progress) progress(runs, violating);
      if (--c.left > 0) continue;
      c.result.wall_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - c.started).count();
      lock.unlock();
      // The replay of the first failure runs here, off the lock, on this job's thread.
      try {
        finish_sweep(c.result, cells[i]);
      } catch (...) {
        lock.lock();
        if (!failure) failure = std::current_exception();
        lock.unlock();
      }
      lock.lock();
      c.complete = true;
      cv.notify_all();
    }
  };
  const auto threads = static_cast<unsigned>(std::max<uint64_t>(1, std::min<uint64_t>({jobs, tasks.size(), 256})));
  std::vector<std::thread> workers;
  for (unsigned j = 0; j < threads; ++j) workers.emplace_back(work);
  // Each cell in order, on this thread, as soon as it and every cell before it are complete. A
  // throw (from a cell's replay or from `done`) stops the tasks not yet started.
  try {
    for (size_t i = 0; i < cells.size(); ++i) {
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return state[i].complete || failure != nullptr; });
        if (failure) break;
      }
      done(i, std::move(state[i].result));
    }
  } catch (...) {
    std::lock_guard<std::mutex> lock(mu);
    if (!failure) failure = std::current_exception();
  }
  if (failure) next = tasks.size();
  for (std::thread& t : workers) t.join();
  if (failure) std::rethrow_exception(failure);
}

namespace {

// What a shrink step must keep: every property of `properties` the failing run violated, every
// situation marked shrink_keeps (how it failed: a lease lost while held, a retry) that it
// reached, and unless faults may be dropped, the story of its faults (RunResult::story): the
// same kinds striking in the same order, with the same pauses' ends and failovers between them.
struct ShrinkTarget {
  std::vector<std::string> violated;
  std::vector<std::string> reached;
  std::optional<std::vector<std::string>> story;
  bool kept_by(const RunResult& r) const {
    for (const std::string& p : violated) {
      if (!r.result(p).violated) return false;
    }
    for (const std::string& p : reached) {
      if (!r.result(p).reached) return false;
    }
    return !story || r.story == *story;
  }
};

bool is_exact(const std::string& schedule) { return protocols::choice_schedule(schedule).has_value(); }

Scenario with_values(Scenario s, std::vector<uint64_t> values) {
  s.schedule = protocols::choices_schedule(std::move(values));
  return s;
}

// A distribution cut to one value (its low end, or p50), so the explorer has nothing to draw.
sim::Distribution constant_of(const sim::Distribution& d) { return sim::Distribution::constant(d.low); }

// The smallest sales the explorer step tries, smallest first, each smaller than `w`.
std::vector<protocols::Workload> smallest_sales(const protocols::Workload& w) {
  std::vector<protocols::Workload> out;
  for (const auto& [buyers, apps] : {std::pair{2, 1}, std::pair{2, 2}, std::pair{3, 1}, std::pair{3, 2}}) {
    if (buyers >= w.buyers || apps > w.app_nodes) continue;
    protocols::Workload s = w;
    s.buyers = buyers;
    s.app_nodes = apps;
    s.stock = 1;
    s.skus = 1;
    s.sku_skew_centi = 0;
    s.arrival = protocols::Arrival::burst;
    s.burst_window = sim::Duration::zero();
    s.latency_max = s.latency_min;
    s.latency_tail = false;
    s.remote_call_spread = sim::Spread::constant;
    s.remote_call_high = s.remote_call;
    s.replication_spread = sim::Spread::constant;
    s.replication_high = s.replication_lag;
    if (s.db_latency) s.db_latency = constant_of(*s.db_latency);
    if (s.lock_latency) s.lock_latency = constant_of(*s.lock_latency);
    if (s.double_click.numerator != 0 && s.double_click.numerator < s.double_click.denominator) s.double_click = sim::Ratio{1, 2};
    out.push_back(s);
  }
  return out;
}

// The exhaustive explorer as a shrinking step: the smallest sales (2 or 3 buyers, one unit,
// constant latencies) with the failing plan's faults as the alternatives, striking at the points
// the plan's faults struck (any point for a fault at a time), as many faults as the plan has.
// The first execution that keeps the target, as a scenario that replays it; nullopt when none
// does within `budget` executions.
std::optional<Scenario> explore_smallest(const Scenario& failing, const ShrinkTarget& target, uint64_t budget) {
  const std::vector<sim::Fault>& plan = failing.faults.faults;
  if (plan.size() > 3 || budget == 0) return std::nullopt;
  std::vector<sim::Fault> alternatives;
  std::vector<std::string> points;
  bool any_point = plan.empty();
  for (const sim::Fault& f : plan) {
    sim::Fault g = f;
    if (f.triggered()) {
      if (std::find(points.begin(), points.end(), f.trigger.point) == points.end()) points.push_back(f.trigger.point);
    } else {
      any_point = true;
      g.at = sim::Duration::zero();
    }
    g.trigger = sim::Trigger{};
    if (std::find(alternatives.begin(), alternatives.end(), g) == alternatives.end()) alternatives.push_back(g);
  }
  if (any_point) points.clear();
  const std::vector<protocols::Workload> sales = smallest_sales(failing.workload);
  if (sales.empty()) return std::nullopt;
  const uint64_t each = std::max<uint64_t>(1, budget / sales.size());
  for (const protocols::Workload& w : sales) {
    ExploreOptions o;
    o.base = failing;
    o.base.workload = w;
    o.base.faults = sim::FaultPlan{};
    o.base.fault_choices.reset();
    o.base.schedule = "random";
    o.faults = alternatives;
    o.points = points;
    o.max_faults = static_cast<int>(plan.size());
    o.max_executions = each;
    o.asserted = target.violated;
    o.stop_at_first = true;
    o.keep = [&target](const RunResult& r) { return target.kept_by(r); };
    if (explore_problem(o)) continue;
    try {
      ExploreResult r = explore(o);
      if (r.counterexample) return r.counterexample;
    } catch (const std::exception&) {
      // A plan naming a node this smaller sale lacks (app-2 with one app node): the next sale.
    }
  }
  return std::nullopt;
}

// Random seeds at small sales, as a shrinking step for what the explorer cannot reach (its sales
// run at constant latencies, where RedLock's clients move in lockstep and the first to a master
// wins them all): each shape's buyers, app nodes and units (those smaller than the failing
// sale's), the failing sale's own latencies, its arrivals and slots arrivals (a few instants, so
// some buyers come together and some apart). The faults: with `profile`, a plan drawn from it
// per seed at the small sale, as check draws one; and the plan as found, with every trigger at
// its first occurrence, and with no delay after a trigger. Seed after seed round the
// sales; the first run that keeps the target, or nullopt within `budget` runs.
// A sale of the random step: its plan drawn from the profile per seed, or as it stands.
struct SearchSale {
  Scenario scenario;
  bool draw = false;
};

std::optional<Scenario> search_sales(const Scenario& failing, const ShrinkTarget& target, const std::string& profile,
                                     const std::vector<std::tuple<int, int, int64_t>>& shapes, int budget) {
  std::vector<SearchSale> sales;
  const protocols::Workload& w = failing.workload;
  for (const auto& [buyers, apps, stock] : shapes) {
    if (buyers >= w.buyers || apps > w.app_nodes || stock > w.stock) continue;
    Scenario sale = failing;
    sale.workload.buyers = buyers;
    sale.workload.app_nodes = apps;
    sale.workload.stock = stock;
    sale.workload.skus = 1;
    sale.workload.sku_skew_centi = 0;
    if (is_exact(sale.schedule)) sale.schedule = "random";
    std::vector<SearchSale> plans;
    if (!profile.empty()) {
      Scenario drawn = sale;
      drawn.faults = {};
      plans.push_back({drawn, true});
    }
    {
      plans.push_back({sale, false});
      Scenario first = sale;
      bool later = false;
      for (sim::Fault& f : first.faults.faults) {
        if (f.triggered() && f.trigger.nth > 1) {
          f.trigger.nth = 1;
          later = true;
        }
      }
      if (later) plans.push_back({first, false});
      // And with no delay after a trigger (a restart right after the crash): a small sale's
      // window may be shorter than the delay the large one had.
      bool delayed = false;
      for (sim::Fault& f : first.faults.faults) {
        if (f.triggered() && f.at > sim::Duration::zero()) {
          f.at = sim::Duration::zero();
          delayed = true;
        }
      }
      if (delayed) plans.push_back({first, false});
    }
    for (const SearchSale& plan : plans) {
      sales.push_back(plan);
      const protocols::Workload& pw = plan.scenario.workload;
      if (pw.arrival != protocols::Arrival::burst || pw.burst_window == sim::Duration::zero()) continue;
      SearchSale slots = plan;
      slots.scenario.workload.arrival = protocols::Arrival::slots;
      sales.push_back(slots);
    }
  }
  int runs = 0;
  for (uint64_t seed = 1; !sales.empty() && runs < budget; ++seed) {
    for (size_t i = 0; i < sales.size() && runs < budget; ++i) {
      Scenario c = sales[i].scenario;
      c.seed = seed;
      c.keep_trace = false;
      c.record_choices = false;
      ++runs;
      try {
        if (sales[i].draw) c = protocols::apply_profile(profile, c);
      } catch (const std::exception&) {
        continue;  // no plan for this seed at this sale: the next seed
      }
      try {
        if (target.kept_by(run_checked(c))) {
          c.record_choices = true;  // the shrinker replays it by choice list from here on
          return c;
        }
      } catch (const std::exception&) {
        // A plan naming a node this smaller sale lacks: drop the sale.
        sales.erase(sales.begin() + static_cast<std::ptrdiff_t>(i));
        --i;
      }
    }
  }
  return std::nullopt;
}

// Smallest first: a twentieth of the budget at 1 buyer (one unit, two), three tenths at 2 buyers
// and one unit, a tenth at 2 buyers and two units (what a duplicate order needs), seven
// twentieths at 3 buyers and one unit, the rest at 4, 6 and 8 (so a failure that needs more
// buyers than three still starts the greedy steps small).
std::optional<Scenario> search_smallest(const Scenario& failing, const ShrinkTarget& target, const std::string& profile, int budget) {
  const int one = budget / 20;
  const int two = budget * 3 / 10;
  const int two_units = budget / 10;
  const int three = budget * 7 / 20;
  if (auto found = search_sales(failing, target, profile, {{1, 1, 1}, {1, 1, 2}}, one)) return found;
  if (auto found = search_sales(failing, target, profile, {{2, 1, 1}, {2, 2, 1}}, two)) return found;
  if (auto found = search_sales(failing, target, profile, {{2, 1, 2}, {2, 2, 2}}, two_units)) return found;
  if (auto found = search_sales(failing, target, profile, {{3, 1, 1}, {3, 2, 1}}, three)) return found;
  return search_sales(failing, target, profile, {{4, 2, 1}, {6, 2, 1}, {8, 2, 1}}, budget - one - two - two_units - three);
}

}  // namespace

Scenario shrink(const Scenario& failing, const std::vector<std::string>& properties, int budget_runs) {
  ShrinkOptions options;
  options.budget_runs = budget_runs;
  return shrink(failing, properties, options);
}

// Fresh random schedules a greedy step with fewer buyers tries before it gives up.
constexpr uint64_t kFreshSchedules = 8;

Scenario shrink(const Scenario& failing, const std::vector<std::string>& properties, const ShrinkOptions& options) {
  const int budget_runs = options.budget_runs;
  const bool edit_faults = options.faults != ShrinkFaults::keep;
  int runs = 0;
  auto run = [&](const Scenario& candidate) -> std::optional<RunResult> {
    if (runs >= budget_runs) return std::nullopt;
    ++runs;
    Scenario s = candidate;
    s.keep_trace = false;
    s.record_choices = true;  // an accepted run's choice list is what shrinks next
    try {
      return run_checked(s);
    } catch (const std::exception&) {
      return std::nullopt;  // e.g. a fault naming an app node that no longer exists
    }
  };
  const std::optional<RunResult> original = run(failing);
  if (!original) return failing;
  ShrinkTarget target;
  // The business and liveness properties it broke are what failed; mechanism properties (two
  // lock holders) are how, and are kept only when nothing else was asserted and broken.
  std::vector<std::string> broken;
  for (const std::string& p : properties) {
    if (!original->result(p).violated) continue;
    broken.push_back(p);
    const Property* prop = find_property(p);
    if (prop != nullptr && prop->category != Category::mechanism) target.violated.push_back(p);
  }
  if (broken.empty()) return failing;
  if (target.violated.empty()) target.violated = broken;
  for (const PropertyResult& pr : original->properties) {
    if (pr.property->shrink_keeps && pr.reached) target.reached.push_back(pr.property->name);
  }
  if (options.faults != ShrinkFaults::drop) target.story = original->story;
  Scenario best = failing;
  std::vector<uint64_t> values;  // best's choice list, once it runs from one
  auto accept = [&](const Scenario& c) {
    std::optional<RunResult> r = run(c);
    if (!r || !target.kept_by(*r)) return false;
    best = c;
    if (is_exact(best.schedule)) {
      values = sim::values_of(r->choices);
      while (!values.empty() && values.back() == 0) values.pop_back();
    }
    return true;
  };
  // First the smallest sales, every execution of them: a counterexample found there is as small
  // as a sale gets, and it is searched for, not hoped for from the failing run's schedule.
  if (edit_faults) {
    std::optional<Scenario> small = explore_smallest(failing, target, options.explore_executions);
    if (!small) small = search_smallest(failing, target, options.profile, options.search_runs);
    if (small) accept(*small);
  }
  // The run as its own choice list: from here on the schedule shrinks too (Hypothesis' idea:
  // shrink the choices, and let a replay that no longer fits take the first option).
  if (!is_exact(best.schedule)) accept(with_values(best, sim::values_of(original->choices)));
  else values = *protocols::choice_schedule(best.schedule);

  const sim::Quantities q = protocols::quantities(best.workload);
  bool changed = true;
  while (changed && runs < budget_runs) {
    changed = false;
    // Fewer faults (the story, unless it may change, is kept by the target).
    for (size_t i = 0; edit_faults && i < best.faults.faults.size(); ++i) {
      Scenario c = best;
      c.faults.faults.erase(c.faults.faults.begin() + static_cast<std::ptrdiff_t>(i));
      if (accept(c)) {
        changed = true;
        break;
      }
    }
    // A smaller sale, no client misbehaviour. A smaller sale reaches a point fewer times, and its
    // choice list no longer lines up with the old one: each edit is tried with the occurrences
    // as they were, scaled down with the buyers, and all first, each with the choice list and
    // with every choice at its first option.
    auto try_workload = [&](auto edit) {
      Scenario c = best;
      if (!edit(c.workload)) return;
      std::vector<Scenario> candidates{c};
      const bool triggered = std::any_of(c.faults.faults.begin(), c.faults.faults.end(), [](const sim::Fault& f) { return f.triggered() && f.trigger.nth > 1; });
      if (edit_faults && triggered) {
        if (c.workload.buyers < best.workload.buyers) {
          Scenario scaled = c;
          for (sim::Fault& f : scaled.faults.faults) {
            if (!f.triggered() || f.trigger.nth <= 1) continue;
            const auto nth = static_cast<uint64_t>(f.trigger.nth) * static_cast<uint64_t>(c.workload.buyers) / static_cast<uint64_t>(best.workload.buyers);
            f.trigger.nth = static_cast<uint32_t>(std::max<uint64_t>(1, nth));
          }
          candidates.push_back(scaled);
        }
        Scenario first = c;
        for (sim::Fault& f : first.faults.faults) {
          if (f.triggered()) f.trigger.nth = 1;
        }
        candidates.push_back(first);
      }
      for (const Scenario& candidate : candidates) {
        if (accept(candidate)) {
          changed = true;
          return;
        }
      }
      if (is_exact(best.schedule) && !values.empty()) {
        for (const Scenario& candidate : candidates) {
          if (accept(with_values(candidate, {}))) {
            changed = true;
            return;
          }
        }
      }
      // One buyer fewer changes every later draw: a few fresh random schedules of the smaller
      // sale, before giving the step up.
      if (c.workload.buyers >= best.workload.buyers) return;
      for (uint64_t seed = 1; seed <= kFreshSchedules && runs < budget_runs; ++seed) {
        for (const Scenario& candidate : candidates) {
          Scenario fresh = candidate;
          fresh.schedule = "random";
          fresh.seed = seed;
          if (accept(fresh)) {
            changed = true;
            return;
          }
        }
      }
    };
    try_workload([](protocols::Workload& w) { return w.double_click.numerator != 0 && ((w.double_click = sim::Ratio::never()), true); });
    try_workload([](protocols::Workload& w) { return w.max_retries > 1 && ((w.max_retries = 1), true); });
    try_workload([](protocols::Workload& w) { return w.max_retries > 0 && ((w.max_retries = 0), true); });
    try_workload([](protocols::Workload& w) { return w.buyers > 2 && ((w.buyers = w.buyers / 2), true); });
    try_workload([](protocols::Workload& w) { return w.buyers > 1 && ((w.buyers -= 1), true); });
    try_workload([](protocols::Workload& w) { return w.stock > 1 && ((w.stock = w.stock / 2), true); });
    try_workload([](protocols::Workload& w) { return w.stock > 1 && ((w.stock -= 1), true); });
    try_workload([](protocols::Workload& w) { return w.skus > 1 && ((w.skus -= 1), true); });
    try_workload([](protocols::Workload& w) { return w.app_nodes > 1 && ((w.app_nodes -= 1), true); });
    // Faults at a moment of the protocol instead of a seed's time, at an earlier occurrence.
    for (size_t i = 0; edit_faults && i < best.faults.faults.size() && runs < budget_runs; ++i) {
      const sim::Fault f = best.faults.faults[i];
      if (!f.triggered() && !f.node.empty() && f.node != sim::kHere) {
        bool moved = false;
        for (const std::string& point : protocols::fault_points()) {
          for (uint32_t nth = 1; nth <= 2 && !moved; ++nth) {
            Scenario c = best;
            sim::Fault& g = c.faults.faults[i];
            g.trigger = sim::Trigger{point, f.node, nth};
            g.at = sim::Duration::zero();
            moved = accept(c);
          }
          if (moved) break;
        }
        changed = changed || moved;
      }
      // An earlier occurrence of its point.
      for (uint32_t nth : {1u, best.faults.faults[i].trigger.nth / 2, best.faults.faults[i].trigger.nth - 1}) {
        if (!best.faults.faults[i].triggered() || nth < 1 || nth >= best.faults.faults[i].trigger.nth) continue;
        Scenario c = best;
        c.faults.faults[i].trigger.nth = nth;
        if (accept(c)) {
          changed = true;
          break;
        }
      }
    }
    // Lengths and times only once the sale and the plan stop getting smaller: a fault cut to the
    // shortest that breaks a large sale may no longer break a smaller one.
    if (changed) continue;
    for (size_t i = 0; edit_faults && i < best.faults.faults.size() && runs < budget_runs; ++i) {
      sim::FaultPlan one;
      one.faults.push_back(best.faults.faults[i]);
      const sim::Fault resolved = one.resolved(q).faults.front();
      if (resolved.length > sim::Duration::ms(1)) {
        // Binary search in whole milliseconds for the shortest length that still fails.
        int64_t lo = 0, hi = resolved.length.count_ns() / 1'000'000;
        while (hi - lo > 1 && runs < budget_runs) {
          const int64_t mid = lo + (hi - lo) / 2;
          Scenario c = best;
          sim::Fault& g = c.faults.faults[i];
          g.scale = sim::Scale{};
          g.length = sim::Duration::ms(mid);
          if (accept(c)) {
            hi = mid;
            changed = true;
          } else {
            lo = mid;
          }
        }
      }
      if (!best.faults.faults[i].triggered() && best.faults.faults[i].at > sim::Duration::ms(1)) {
        int64_t lo = 0, hi = best.faults.faults[i].at.count_ns() / 1'000'000;
        while (hi - lo > 1 && runs < budget_runs) {
          const int64_t mid = lo + (hi - lo) / 2;
          Scenario c = best;
          c.faults.faults[i].at = sim::Duration::ms(mid);
          if (accept(c)) {
            hi = mid;
            changed = true;
          } else {
            lo = mid;
          }
        }
      }
    }
    if (changed || !is_exact(best.schedule)) continue;
    // The choice list: a shorter list first (every later choice takes its first option), then
    // blocks deleted and values set to the first option, largest blocks first.
    {
      size_t lo = 0, hi = values.size();
      while (hi - lo > 1 && runs < budget_runs) {
        const size_t mid = lo + (hi - lo) / 2;
        if (accept(with_values(best, std::vector<uint64_t>(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid))))) {
          hi = std::min(mid, values.size());
          changed = true;
        } else {
          lo = mid;
        }
      }
    }
    for (size_t block = 16; block >= 1 && runs < budget_runs; block /= 2) {
      for (size_t start = 0; start + block <= values.size() && runs < budget_runs;) {
        bool any = false;
        for (size_t k = start; k < start + block; ++k) any = any || values[k] != 0;
        if (!any) {
          start += block;
          continue;
        }
        std::vector<uint64_t> zeroed = values;
        std::fill(zeroed.begin() + static_cast<std::ptrdiff_t>(start), zeroed.begin() + static_cast<std::ptrdiff_t>(start + block), 0);
        if (accept(with_values(best, zeroed))) {
          changed = true;
          continue;
        }
        std::vector<uint64_t> deleted = values;
        deleted.erase(deleted.begin() + static_cast<std::ptrdiff_t>(start), deleted.begin() + static_cast<std::ptrdiff_t>(start + block));
        if (accept(with_values(best, deleted))) {
          changed = true;
          continue;
        }
        start += block;
      }
    }
  }
  return best;
}

std::vector<sim::TraceEvent> cut_trace(const std::vector<sim::TraceEvent>& events, size_t limit, const std::vector<uint64_t>& keep_steps) {
  auto field = [](const sim::TraceEvent& e, const char* key) -> std::string {
    for (const auto& f : e.fields) {
      if (f.key == key) return f.value;
    }
    return "";
  };
  std::vector<sim::TraceEvent> out;
  std::vector<bool> must;  // faults and the violations' own events: never cut
  std::set<std::string> writing;  // transactions with a statement kept: their COMMIT matters
  for (const sim::TraceEvent& e : events) {
    bool keep = false;
    const bool pinned = std::find(keep_steps.begin(), keep_steps.end(), e.step) != keep_steps.end() ||
                        e.kind == "fault" || e.kind == "fault-skipped";
    if (e.kind == "fault" || e.kind == "pause" || e.kind == "resume" || e.kind == "crash" || e.kind == "restart" || e.kind == "failover" ||
        e.kind == "lock-held" || e.kind == "lock-released" || e.kind == "ack" || e.kind == "unheard" || e.kind == "heal" || e.kind == "redlock" ||
        e.kind == "fault-skipped" || e.kind == "redis-expire") {
      keep = true;
    } else if (e.kind == "sql") {
      const std::string sql = field(e, "sql");
      // An order's status changing (paid, cancelled) is part of the story; a COMMIT only when its
      // transaction wrote something kept (not the timeout job's empty scans).
      keep = sql.rfind("UPDATE stock", 0) == 0 || sql.rfind("INSERT INTO orders", 0) == 0 || sql.find("FROM stock") != std::string::npos ||
             sql.rfind("UPDATE orders", 0) == 0;
      if (keep) writing.insert(field(e, "txn"));
      if (sql == "COMMIT") keep = writing.count(field(e, "txn")) > 0;
    } else if (e.kind == "redis") {
      const std::string cmd = field(e, "cmd");
      // Lock traffic that changed something: successful acquisitions, releases, renewals. The
      // failed polls of a waiting tryLock are noise.
      keep = cmd.find("lock:") != std::string::npos && cmd.rfind("GET", 0) != 0 && field(e, "reply") != "(nil)";
      // Stock kept in Redis: every change of it (a take, a give-back).
      keep = keep || (cmd.find(" stock:") != std::string::npos && cmd.rfind("GET", 0) != 0 && field(e, "reply") != "(integer) -1" && field(e, "reply") != "(nil)");
      // An order's hold key, and a keyspace-notification subscription (the order lifecycle).
      keep = keep || cmd.find(" hold:") != std::string::npos || cmd.rfind("SUBSCRIBE", 0) == 0;
    }
    if (keep || pinned) {
      out.push_back(e);
      must.push_back(pinned);
    }
  }
  if (out.size() > limit) {
    // Keep the beginning (how it started), the end (where it broke) and every pinned event; each
    // run of events left out becomes one "..." line saying how many.
    const size_t head = limit / 4;
    const size_t tail_from = out.size() - (limit - head);
    std::vector<sim::TraceEvent> cut;
    size_t omitted = 0;
    for (size_t i = 0; i < out.size(); ++i) {
      if (i < head || i >= tail_from || must[i]) {
        if (omitted > 0) cut.push_back(sim::TraceEvent{out[i].at, out[i].step, "", "...", {{"omitted", std::to_string(omitted)}}});
        omitted = 0;
        cut.push_back(out[i]);
      } else {
        ++omitted;
      }
    }
    out = std::move(cut);
  }
  return out;
}

size_t protocol_events(const std::vector<sim::TraceEvent>& events) {
  return static_cast<size_t>(std::count_if(events.begin(), events.end(), [](const sim::TraceEvent& e) {
    return e.kind == "redis" || e.kind == "sql" || e.kind == "fault";
  }));
}

std::vector<uint64_t> violation_steps(const RunResult& run) {
  std::vector<uint64_t> out;
  for (const PropertyResult& pr : run.properties) {
    if (pr.violated && pr.violation) out.push_back(pr.violation->step);
  }
  return out;
}

std::string fingerprint(const std::string& label, const RunResult& run) {
  std::string violated;
  for (const PropertyResult& pr : run.properties) {
    if (pr.violated) violated += fmt::format("{}{}", violated.empty() ? "" : ",", pr.property->name);
  }
  const Scenario& s = run.scenario;
  return fmt::format("{}\t{}\t{}\t{}\t{}\t{}", s.design, label, s.seed, sim::format_hash(run.outcome.hash()), violated.empty() ? "-" : violated,
                     s.faults.empty() ? "none" : s.faults.to_string());
}

std::vector<std::string> fingerprints(const std::vector<LabelledScenario>& runs, unsigned jobs) {
  std::vector<std::string> lines(runs.size());
  for_each_index(runs.size(), jobs, [&](uint64_t i) {
    const LabelledScenario& r = runs[i];
    const SeedOutcome o = build_and_run([&] { return r.profile.empty() ? r.scenario : protocols::apply_profile(r.profile, r.scenario); });
    switch (o.kind) {
      case SeedOutcome::Kind::ran: lines[i] = fingerprint(r.label, o.run); break;
      case SeedOutcome::Kind::invalid: lines[i] = fmt::format("{}\t{}\t{}\tinvalid: {}", r.scenario.design, r.label, r.scenario.seed, o.message); break;
      case SeedOutcome::Kind::error: lines[i] = fmt::format("{}\t{}\t{}\terror: {}", r.scenario.design, r.label, r.scenario.seed, o.message); break;
    }
  });
  return lines;
}

std::vector<FlagValue> scenario_settings(const Scenario& s, bool every) {
  // A design's own default for a setting (Requirement::user_may_change) is the baseline its
  // sale is told against: a value equal to it needs no flag, and any other value, the global
  // default included, does (the replay would otherwise take the design's default).
  protocols::Workload d;
  protocols::Workload w = s.workload;
  if (const protocols::Design* design = protocols::find_design(s.design)) {
    for (const protocols::Requirement& r : design->requirements) {
      if (!r.user_may_change) continue;
      const protocols::Setting* setting = protocols::find_setting(r.flag);
      if (setting == nullptr) continue;
      (void)setting->set(d, r.value);
      // As apply_requirements: the design's default stands in for the tool's, not for a typed
      // value or one a profile set.
      const bool typed = std::find(s.typed.begin(), s.typed.end(), r.flag) != s.typed.end();
      if (!typed && setting->get(w) == setting->get(protocols::Workload{})) (void)setting->set(w, r.value);
    }
  }
  std::vector<FlagValue> out;
  auto add = [&out](const char* flag, std::string value) { out.push_back({flag, std::move(value)}); };
  static const sim::Duration default_horizon = Scenario{}.horizon;
  if (every || s.horizon != default_horizon) add("--horizon", sim::format_duration(s.horizon));
  if (every || s.schedule != "random") add("--strategy", s.schedule);
  if (every || w.buyers != d.buyers) add("--buyers", std::to_string(w.buyers));
  if (every || w.stock != d.stock) add("--stock", std::to_string(w.stock));
  if (every || w.skus != d.skus) add("--skus", std::to_string(w.skus));
  if (every || w.app_nodes != d.app_nodes) add("--apps", std::to_string(w.app_nodes));
  if (every || w.arrival != d.arrival) add("--arrival", protocols::to_string(w.arrival));
  if (every || w.max_retries != d.max_retries) add("--retries", std::to_string(w.max_retries));
  if (every || !(w.double_click == d.double_click)) add("--double-click", sim::format_ratio(w.double_click));
  if (every || !(protocols::remote_call_distribution(w) == protocols::remote_call_distribution(d))) {
    add("--remote-call", protocols::format_distribution(protocols::remote_call_distribution(w)));
  }
  if (every || w.lock_ttl != d.lock_ttl) add("--lock-ttl", sim::format_duration(w.lock_ttl));
  if (every || w.lock_wait != d.lock_wait) add("--lock-wait", sim::format_duration(w.lock_wait));
  if (every || w.gateway_timeout != d.gateway_timeout) add("--gateway-timeout", sim::format_duration(w.gateway_timeout));
  if (every || !(protocols::replication_distribution(w) == protocols::replication_distribution(d))) {
    add("--replication-lag", protocols::format_distribution(protocols::replication_distribution(w)));
  }
  if (every || w.redis_persistence != d.redis_persistence) add("--persistence", protocols::to_string(w.redis_persistence));
  if (every || w.redlock_masters != d.redlock_masters) add("--masters", std::to_string(w.redlock_masters));
  if (every || w.zk_servers != d.zk_servers) add("--zk-servers", std::to_string(w.zk_servers));
  if (every || w.burst_window != d.burst_window) add("--burst-window", sim::format_duration(w.burst_window));
  if (every || w.poisson_mean != d.poisson_mean) add("--poisson-mean", sim::format_duration(w.poisson_mean));
  if (every || w.latency_min != d.latency_min || w.latency_max != d.latency_max || w.latency_tail != d.latency_tail) add("--latency", protocols::format_latency(w));
  for (const protocols::Setting& setting : protocols::settings()) {
    std::string v = setting.get(w);
    if (every || v != setting.get(d)) add(setting.flag, std::move(v));
  }
  return out;
}

std::string scenario_flags(const Scenario& s) {
  std::string cmd;
  for (const FlagValue& f : scenario_settings(s)) {
    // A choice list may hold '*' (a run of equal values): quoted, so no shell globs it.
    const bool quote = f.value.find_first_of("*; '") != std::string::npos;
    cmd += quote ? fmt::format(" {} '{}'", f.flag, f.value) : fmt::format(" {} {}", f.flag, f.value);
  }
  return cmd;
}

namespace {
std::string& program_name() {
  static std::string p = "oversim";
  return p;
}
std::string& rebuild_command() {
  static std::string r;
  return r;
}
}  // namespace

void set_reproduce_program(std::string program, std::string rebuild) {
  program_name() = std::move(program);
  rebuild_command() = std::move(rebuild);
}

const std::string& reproduce_program() { return program_name(); }

std::string reproduce_command(const Scenario& s, const std::vector<std::string>& asserted) {
  std::string cmd = fmt::format("{}{} run --variant {} --seed {}", rebuild_command().empty() ? "" : rebuild_command() + " && ", program_name(), s.design, s.seed);
  cmd += s.faults.empty() ? std::string(" --faults none") : fmt::format(" --faults '{}'", s.faults.to_string());
  cmd += scenario_flags(s);
  if (asserted != default_asserted()) {
    std::string names;
    for (const std::string& a : asserted) names += fmt::format("{}{}", names.empty() ? "" : ",", a);
    cmd += fmt::format(" --properties {}", names);
  }
  return cmd;
}

}  // namespace oversim::properties
