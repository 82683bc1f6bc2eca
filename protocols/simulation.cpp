#include "protocols/simulation.h"
#include "protocols/steps.h"
#include "protocols/points.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "protocols/services/redis_service.h"
#include "protocols/services/mq_service.h"
#include "sim/network.h"
#include "sim/strategy.h"

namespace oversim::protocols {

const char* to_string(Arrival a) {
  switch (a) {
    case Arrival::burst: return "burst";
    case Arrival::poisson: return "poisson";
    case Arrival::ramp: return "ramp";
    case Arrival::slots: return "slots";
  }
  return "?";
}

const char* to_string(RedisPersistence p) {
  switch (p) {
    case RedisPersistence::none: return "none";
    case RedisPersistence::everysec: return "everysec";
    case RedisPersistence::always: return "always";
  }
  return "?";
}

std::optional<RedisPersistence> parse_persistence(std::string_view text) {
  for (RedisPersistence p : {RedisPersistence::none, RedisPersistence::everysec, RedisPersistence::always}) {
    if (text == to_string(p)) return p;
  }
  return std::nullopt;
}

std::string format_latency(const Workload& w) {
  std::string out = w.latency_min == w.latency_max ? sim::format_duration(w.latency_min)
                                                   : fmt::format("{}..{}", sim::format_duration(w.latency_min), sim::format_duration(w.latency_max));
  // The tail cannot be typed: a line that names one is for reading, not for pasting.
  if (w.latency_tail) out += fmt::format(" (1/100 of messages take up to {})", sim::format_duration(sim::LatencyModel{}.tail_max));
  return out;
}

const char* to_string(Steps::Decrement d) {
  switch (d) {
    case Steps::Decrement::literal: return "literal";
    case Steps::Decrement::relative: return "relative";
    case Steps::Decrement::row_locked: return "row-locked";
    case Steps::Decrement::conditional: return "conditional";
    case Steps::Decrement::versioned: return "versioned";
    case Steps::Decrement::fenced: return "fenced";
  }
  return "?";
}

const char* to_string(BuyResult r) {
  switch (r) {
    case BuyResult::sold: return "sold";
    case BuyResult::sold_out: return "sold-out";
    case BuyResult::busy: return "busy";
    case BuyResult::unknown: return "unknown";
    case BuyResult::failed: return "failed";
  }
  return "?";
}

const char* to_string(Search::Kind k) {
  switch (k) {
    case Search::Kind::random: return "random";
    case Search::Kind::pct: return "pct";
    case Search::Kind::swarm: return "swarm";
  }
  return "?";
}

std::string to_string(const Search& s) { return s.kind == Search::Kind::pct ? fmt::format("pct:{}", s.depth) : std::string(to_string(s.kind)); }

std::optional<std::vector<uint64_t>> choice_schedule(const std::string& schedule) {
  if (schedule.rfind(kChoicesPrefix, 0) != 0) return std::nullopt;
  return sim::parse_choice_values(schedule.substr(std::string_view(kChoicesPrefix).size()));
}

std::string choices_schedule(std::vector<uint64_t> values) {
  while (!values.empty() && values.back() == 0) values.pop_back();
  return std::string(kChoicesPrefix) + sim::format_choice_values(values);
}

std::optional<PctSchedule> parse_schedule(const std::string& schedule) {
  if (schedule == "random") return std::nullopt;
  if (choice_schedule(schedule)) return std::nullopt;
  unsigned long long depth = 0, decisions = 0;
  char tail = 0;
  if (std::sscanf(schedule.c_str(), "pct:%llu:%llu%c", &depth, &decisions, &tail) != 2 || depth < 1 || depth > 100 || decisions < 1 ||
      schedule.find_first_not_of("pct:0123456789") != std::string::npos) {
    throw std::invalid_argument(fmt::format("schedule '{}' is not random or pct:<depth 1..100>:<decisions>", schedule));
  }
  return PctSchedule{static_cast<uint32_t>(depth), static_cast<uint64_t>(decisions)};
}

Duration exponential_gap(sim::World& world, Duration mean) {
  // round(-ln((i + 0.5) / 64) * 1000): the bucket midpoints of the exponential's inverse CDF.
  static constexpr int64_t kTable[64] = {4852, 3753, 3243, 2906, 2655, 2454, 2287, 2144, 2019, 1908, 1808, 1717, 1633, 1556, 1485, 1418,
                                         1356, 1297, 1241, 1188, 1138, 1091, 1045, 1002, 960,  920,  882,  845,  809,  774,  741,  709,
                                         678,  647,  618,  589,  562,  535,  508,  483,  458,  433,  409,  386,  363,  341,  319,  298,
                                         277,  257,  237,  217,  198,  179,  161,  143,  125,  107,  90,   73,   56,   40,   24,   8};
  const int64_t milli = kTable[world.random(64)];
  // mean * milli / 1000, exact for any mean (a mean of 1999ns is not 1us); means are at most 1h,
  // so the product stays far inside int64.
  return Duration::ns(mean.count_ns()) * milli / 1000;
}

// ---- BuyContext

BuyContext::BuyContext(Simulation& sim, sim::Node& app, db::DbPool& db, std::string user_name, std::string sku_name, std::string request,
                       int attempt_number, Instant arrived)
    : user(std::move(user_name)),
      sku(std::move(sku_name)),
      request_id(std::move(request)),
      attempt(attempt_number),
      sim_(sim),
      app_(app),
      db_(db),
      arrived_(arrived) {}

redis::RedisClient& ServiceClients::redis(Simulation& sim, sim::Node& app) {
  if (!redis_) redis_ = sim.service<RedisService>().deployment().client(app);
  return *redis_;
}
mq::MqClient& ServiceClients::mq(Simulation& sim, sim::Node& app) {
  if (!mq_) mq_.emplace(app, sim.service<MqService>().broker().node());
  return *mq_;
}

redis::RedisClient& BuyContext::redis() { return clients_.redis(sim_, app_); }
CircuitBreaker& BuyContext::breaker() { return sim_.breaker(app_); }

namespace {
// The gateway's token bucket as a shared object of the explorer's footprints (sim::Footprint).
constexpr uint64_t kGatewayBucket = 1;
}  // namespace

std::optional<int64_t> Simulation::service_stock(const std::string& sku) const {
  if (!design_.steps.service_stock || services_.empty()) return std::nullopt;
  const std::optional<std::string> text = services_.front()->read("stock:" + sku);
  if (!text) return 0;
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc() || end != text->data() + text->size()) return 0;
  return v;
}

std::string Simulation::stock_store() const {
  if (!design_.steps.service_stock || services_.empty()) return {};
  return services_.front()->product();
}

CircuitBreaker& Simulation::breaker(const sim::Node& app) {
  for (size_t i = 0; i < apps_.size(); ++i) {
    if (apps_[i] == &app) return breakers_.at(i);
  }
  throw std::logic_error("Simulation::breaker: " + app.name() + " is not an app node");
}
mq::MqClient& BuyContext::mq() { return clients_.mq(sim_, app_); }

sim::World& JobContext::world() { return sim_.world(); }
redis::RedisClient& JobContext::redis() { return clients_.redis(sim_, app_); }
mq::MqClient& JobContext::mq() { return clients_.mq(sim_, app_); }
const Workload& JobContext::workload() const { return sim_.scenario().workload; }
std::string JobContext::member() const { return fmt::format("{}#{}", app_.name(), app_.incarnation()); }
void JobContext::count(const std::string& counter, int64_t n) { sim_.history().count(counter, n); }
void JobContext::remote_call() {
  const Duration d = draw(world(), remote_call_distribution(workload()));
  note("remote-call", {{"for", sim::format_duration(d)}});
  sim::sleep_for(d);
}
JobContext::Processing JobContext::processing(const std::string& sku, uint64_t offset) {
  std::vector<protocols::Processing>& all = sim_.history().processing;
  all.push_back(protocols::Processing{sku, member(), offset, world().now(), world().steps(), Instant::max()});
  return Processing(*this, all.size() - 1);
}
JobContext::Processing::~Processing() { ctx_->sim_.history().processing[index_].ended = ctx_->world().now(); }
void JobContext::note(const std::string& kind, std::vector<sim::TraceField> fields) {
  fields.insert(fields.begin(), sim::TraceField{"job", member()});
  sim_.world().trace_at(&app_, kind, std::move(fields));
}

BuyContext::~BuyContext() {
  for (size_t belief : open_beliefs_) sim_.history().locks[belief].released = sim_.world().now();
}

const std::string& BuyContext::activity() const { return sim_.scenario().workload.activity; }
const Workload& BuyContext::workload() const { return sim_.scenario().workload; }
sim::World& BuyContext::world() { return sim_.world(); }

std::string BuyContext::holder() const { return fmt::format("{}#{}", request_id, attempt); }

std::string BuyContext::new_order_id() { return fmt::format("o-{}-{}{}", request_id, attempt, orders_made_++ == 0 ? "" : fmt::format(".{}", orders_made_)); }

std::string BuyContext::new_token() {
  // A random value as the article (and Redis' docs) recommend, plus a run-unique counter so two
  // holders never share one. A random value is not a fencing token: it is not ordered.
  return fmt::format("tok-{}-{:04x}", sim_.next_token(), world().random(0x10000));
}

db::OrderRow BuyContext::order_row(const std::string& order_id) const {
  return db::OrderRow{order_id, user, sku, activity(), request_id, "paid"};
}

void BuyContext::remote_call() {
  const Duration d = draw(world(), remote_call_distribution(workload()));
  note("remote-call", {{"for", sim::format_duration(d)}});
  sim::sleep_for(d);
}

size_t BuyContext::lock_acquired(const std::string& key, const std::string& token, Duration ttl) {
  return lock_acquired(key, token, ttl, ttl > Duration::zero() ? world().now() + ttl : Instant::max());
}

size_t BuyContext::lock_acquired(const std::string& key, const std::string& token, Duration ttl, Instant lease_ends) {
  History& h = sim_.history();
  h.locks.push_back(LockBelief{key, holder(), token, world().now(), world().steps(), Instant::max(), ttl, lease_ends, app_.name(), sku, {}});
  open_beliefs_.push_back(h.locks.size() - 1);
  note("lock-held", {{"key", key}, {"token", token}});
  return h.locks.size() - 1;
}

void BuyContext::lock_released(size_t belief) {
  for (auto it = open_beliefs_.begin(); it != open_beliefs_.end(); ++it) {
    if (*it == belief) {
      open_beliefs_.erase(it);
      LockBelief& b = sim_.history().locks[belief];
      b.released = world().now();
      note("lock-released", {{"key", b.key}, {"token", b.token}});
      return;
    }
  }
}

void BuyContext::lease_renewed(size_t belief, Instant sent) {
  for (size_t open : open_beliefs_) {
    if (open == belief) {
      sim_.history().locks[belief].renewed.push_back(sent);
      return;
    }
  }
}

void BuyContext::count(const std::string& counter, int64_t n) { sim_.history().count(counter, n); }

void BuyContext::note(const std::string& kind, std::vector<sim::TraceField> fields) {
  fields.insert(fields.begin(), sim::TraceField{"buyer", holder()});
  world().trace(kind, std::move(fields));
}

BuyResult BuyContext::sold(const std::string& order_id) {
  sold_order_ = order_id;
  return BuyResult::sold;
}

void BuyContext::acknowledge() {
  History& h = sim_.history();
  h.acks.push_back(OrderAck{sold_order_, user, sku, request_id, world().now()});
  h.order_latencies.push_back(world().now() - arrived_);
  note("ack", {{"order", sold_order_}, {"sku", sku}, {"user", user}});
}

void BuyContext::unheard() { note("unheard", {{"order", sold_order_}, {"why", "the gateway no longer waits for this attempt"}}); }

BuyResult BuyContext::outcome(BuyResult r) {
  note("outcome", {{"result", to_string(r)}});
  return r;
}

// ---- Simulation

namespace {
// The deployments a sale builds, shared by the constructor and node_names() so the two cannot
// disagree.
std::string app_name(int i) { return fmt::format("app-{}", i); }
std::string sku_name(int i) { return fmt::format("sku{}", i); }

const ServiceKind& kind_of_service(const Design& design, const std::string& name) {
  const ServiceKind* k = find_service_kind(name);
  if (k == nullptr) throw std::logic_error(fmt::format("design '{}' declares an unknown service '{}'", design.name, name));
  return *k;
}

db::DbServerConfig db_config(const Design& design, const Workload& w) {
  db::DbServerConfig dc;
  dc.schema.unique_user_sku_activity = design.schema.unique_user_sku_activity;
  dc.schema.unique_request_id = design.schema.unique_request_id;
  dc.schema.defer_deadlock_detection = true;
  dc.schema.check_available = w.db_check;
  dc.lock_timeout = w.db_lock_timeout;
  dc.max_connections = static_cast<size_t>(w.db_max_connections);
  dc.default_isolation = w.db_isolation == Isolation::repeatable_read ? db::IsolationLevel::RepeatableRead : db::IsolationLevel::ReadCommitted;
  for (int s = 1; s <= w.skus; ++s) dc.stock[sku_name(s)] = w.stock;
  return dc;
}
}  // namespace

Simulation::Simulation(const Scenario& scenario, const Design& design) : Simulation(scenario, design, nullptr) {}

Simulation::Simulation(const Scenario& scenario, const Design& design, std::unique_ptr<sim::Strategy> given)
    : scenario_(scenario), design_(design) {
  if (!design_.requirements.empty()) {
    Required r = apply_requirements(scenario_.workload, design_.requirements, scenario_.typed, design_.name);
    if (r.problem) throw std::invalid_argument(*r.problem);
    scenario_.workload = r.workload;
  }
  const Workload& w = scenario_.workload;
  sim::WorldConfig config;
  config.seed = scenario_.seed;
  config.horizon = scenario_.horizon;
  config.keep_trace = scenario_.keep_trace;
  config.record_choices = scenario_.record_choices;
  config.inline_timers = scenario_.inline_timers;
  std::unique_ptr<sim::Strategy> strategy;
  if (auto pct = parse_schedule(scenario_.schedule)) strategy = std::make_unique<sim::PctStrategy>(scenario_.seed, pct->depth, pct->decisions);
  if (auto values = choice_schedule(scenario_.schedule)) {
    strategy = std::make_unique<sim::ChoicesStrategy>(std::move(*values));
    explorer_run_ = true;
  }
  if (scenario_.fault_choices) explorer_run_ = true;
  if (given) strategy = std::move(given);
  world_ = std::make_unique<sim::World>(config, std::move(strategy));
  sim::LatencyModel& latency = world_->network().config().latency;
  latency.min = w.latency_min;
  latency.max = w.latency_max;
  if (!w.latency_tail) latency.tail = Ratio::never();
  for (int i = 1; i <= w.app_nodes; ++i) apps_.push_back(&world_->add_node(app_name(i)));
  for (const std::string& name : design_.services) services_.push_back(kind_of_service(design_, name).build(*world_, w));
  const db::DbServerConfig dc = db_config(design_, w);
  for (int s = 1; s <= w.skus; ++s) skus_.push_back(sku_name(s));  // numeric order: sku2 before sku10
  db_ = std::make_unique<db::DbServer>(*world_, dc);
  if (design_.steps.service_stock) {
    // Before any buyer: every SKU's initial stock in the first service (no message, no draw).
    if (services_.empty() || !services_.front()->preload("stock:" + skus_.front(), std::to_string(w.stock))) {
      throw std::invalid_argument(fmt::format("{} keeps its stock in a service, but {} keeps no data", design_.name,
                                              services_.empty() ? std::string("it declares none") : services_.front()->kind()));
    }
    for (const std::string& sku : skus_) services_.front()->preload("stock:" + sku, std::to_string(w.stock));
  }
  // The sale in committed state: when units sold, when each SKU ran out (a SKU with no stock ran
  // out before the sale began).
  for (const std::string& sku : skus_) {
    if (w.stock > 0) continue;
    history_.sold_out[sku].emplace_back(Instant::zero(), Instant::max());
    ++out_count_;
  }
  db_->on_commit([this] { note_commit(); });
  // Link classes with a latency of their own: both directions between every app node and the
  // database, and between every app node and each node of the lock services.
  auto link_class = [this](const std::optional<Distribution>& d, const std::vector<std::string>& far) {
    if (!d) return;
    sim::LatencyModel model;
    model.distribution = *d;
    for (sim::Node* app : apps_) {
      for (const std::string& name : far) {
        const sim::NodeId other = world_->node(name).id();
        world_->network().set_link_latency(app->id(), other, model);
        world_->network().set_link_latency(other, app->id(), model);
      }
    }
  };
  link_class(w.db_latency, {dc.node});
  std::vector<std::string> service_nodes;
  for (const std::string& name : design_.services) {
    for (std::string& n : kind_of_service(design_, name).node_names(w)) service_nodes.push_back(std::move(n));
  }
  link_class(w.lock_latency, service_nodes);
  may_crash_ = false;
  auto crashes = [](const sim::Fault& f) { return f.kind != sim::FaultKind::pause; };
  for (const sim::Fault& f : scenario_.faults.faults) may_crash_ = may_crash_ || crashes(f);
  if (scenario_.fault_choices) {
    for (const sim::Fault& f : scenario_.fault_choices->faults) may_crash_ = may_crash_ || crashes(f);
  }
  for (sim::Node* app : apps_) {
    db::DbPoolConfig pc;
    pc.size = static_cast<size_t>(w.db_pool_size);
    pc.acquire_timeout = w.db_pool_timeout;
    // The client's per-call timeout outlasts the server's lock_timeout, so a lock wait ends as a
    // clear lock timeout (with 0, waiting forever, the client still gives up after 5s: unknown).
    pc.rpc_timeout = std::max(Duration::s(5), w.db_lock_timeout + Duration::s(3));
    pools_.push_back(std::make_unique<db::DbPool>(*world_, *app, pc));
  }
  // Each app node's circuit breaker, closed when it boots (in-process state), and the gateway's
  // token bucket.
  breakers_.assign(apps_.size(), CircuitBreaker{});
  if (design_.steps.degrade != Steps::Degrade::none) {
    for (size_t i = 0; i < apps_.size(); ++i) {
      apps_[i]->add_boot([this, i](sim::Node&) { breakers_[i].reset(); });
    }
  }
  gateway_bucket_ = TokenBucket(w.rate_limit, w.rate_burst);
  // The design's background jobs: on every app node, started again when the node restarts.
  for (const Job& job : design_.jobs) {
    for (size_t i = 0; i < apps_.size(); ++i) {
      sim::Node* app = apps_[i];
      db::DbPool* pool = pools_[i].get();
      app->add_boot([this, &job, app, pool](sim::Node&) {
        world_->spawn(app, "job/" + job.name, [this, &job, app, pool] {
          JobContext ctx(*this, *app, *pool);
          job.run(ctx);
        }, /*daemon=*/true);
      });
    }
  }
}

std::vector<std::string> Simulation::node_names(const Scenario& scenario, const Design& design) {
  std::vector<std::string> names;
  for (int i = 1; i <= scenario.workload.app_nodes; ++i) names.push_back(app_name(i));
  for (const std::string& service : design.services) {
    for (std::string& n : kind_of_service(design, service).node_names(scenario.workload)) names.push_back(std::move(n));
  }
  names.push_back(db_config(design, scenario.workload).node);
  return names;
}

Roles Simulation::roles(const Scenario& scenario, const Design& design) {
  if (design.services.empty()) return {};
  Roles r = kind_of_service(design, design.services.front()).roles(scenario.workload);
  r.consumes_queue = std::find(design.services.begin(), design.services.end(), "mq") != design.services.end();
  r.takes_lock = design.steps.takes_lock;
  if (!r.takes_lock) r.acquire_points.clear();  // nobody acquires
  return r;
}

Simulation::~Simulation() = default;

sim::Quantities quantities(const Workload& w) {
  return {{"lock-ttl", w.lock_ttl},         {"lock-wait", w.lock_wait},
          {"lock-retry", w.lock_retry},     {"remote-call", w.remote_call},
          {"gateway-timeout", w.gateway_timeout}, {"replication-lag", w.replication_lag},
          {"burst-window", w.burst_window},   {"max-poll-interval", w.mq_max_poll_interval}};
}

std::optional<std::string> workload_problem(const Scenario& scenario, const Design& design) {
  if (scenario.workload.redlock_masters < 1 || scenario.workload.redlock_masters > kMaxRedLockMasters) {
    return fmt::format("{} RedLock masters: a RedLock deployment has 1..{}", scenario.workload.redlock_masters, kMaxRedLockMasters);
  }
  if (scenario.workload.zk_servers < 1 || scenario.workload.zk_servers > kMaxZkServers) {
    return fmt::format("{} ZooKeeper servers: an ensemble has 1..{}", scenario.workload.zk_servers, kMaxZkServers);
  }
  if (scenario.workload.redis_replicas < 0 || scenario.workload.redis_replicas > kMaxRedisReplicas) {
    return fmt::format("{} Redis replicas: a deployment here has 0..{}", scenario.workload.redis_replicas, kMaxRedisReplicas);
  }
  const Required required = apply_requirements(scenario.workload, design.requirements, scenario.typed, design.name);
  if (required.problem) return required.problem;
  // The sale that runs: with the design's requirements and defaults.
  for (const std::string& service : design.services) {
    const ServiceKind& kind = kind_of_service(design, service);
    if (kind.problem == nullptr) continue;
    if (auto problem = kind.problem(required.workload)) return problem;
  }
  return std::nullopt;
}

std::optional<std::string> scenario_problem(const Scenario& scenario, const Design& design) {
  if (auto problem = scenario.faults.problem()) return problem;
  if (auto problem = workload_problem(scenario, design)) return problem;
  try {
    parse_schedule(scenario.schedule);
  } catch (const std::invalid_argument& e) {
    return std::string(e.what());
  }
  Scenario s = scenario;
  s.workload = apply_requirements(scenario.workload, design.requirements, scenario.typed, design.name).workload;
  try {
    s.faults = scenario.faults.resolved(quantities(s.workload));
  } catch (const sim::FaultPlanError& e) {
    return std::string(e.what());
  }
  const Instant horizon = Instant::zero() + s.horizon;
  for (const sim::Fault& f : s.faults.faults) {
    if (Instant::zero() + f.at >= horizon) {
      return fmt::format("fault '{}' comes at or after the run's horizon of {}: it would never happen", sim::to_string(f),
                         sim::format_duration(s.horizon));
    }
  }
  const Duration needed = s.faults.settled_at() + s.settle;
  if (needed >= s.horizon) {
    return fmt::format("the plan settles at {}; with the {} quiet time before the 'eventually' checks, the horizon must be above {} (it is {})",
                       sim::format_duration(s.faults.settled_at()), sim::format_duration(s.settle), sim::format_duration(needed),
                       sim::format_duration(s.horizon));
  }
  if (auto unknown = s.faults.unknown_node(Simulation::node_names(s, design))) return unknown;
  return plan_point_problem(s.faults, design, s.workload);
}

int64_t Simulation::initial_stock(const std::string&) const { return scenario_.workload.stock; }

void Simulation::note_commit() {
  const int64_t orders = db_->state().committed_order_count();
  if (orders > orders_seen_) {
    if (history_.first_sale_at == Instant::max()) history_.first_sale_at = world_->now();
    history_.last_sale_at = world_->now();
    orders_seen_ = orders;
  }
  // The Redis-database gap over time, sampled at every commit (the service's stock read as a
  // client would, without touching it).
  if (design_.steps.service_stock && !services_.empty()) {
    int64_t gap = 0;
    for (const std::string& sku : skus_) {
      const auto row = db_->committed_stock(sku);
      gap += std::llabs(service_stock(sku).value_or(0) - (row ? row->available : 0));
    }
    history_.stock_gap_max = std::max(history_.stock_gap_max, gap);
  }
  // Without an order lifecycle nothing gives units back: once every SKU is out, it stays out.
  if (!lifecycle() && out_count_ == skus_.size()) return;
  for (const std::string& sku : skus_) {
    const bool out = history_.out_now(sku);
    if (out && !lifecycle()) continue;
    const auto row = db_->committed_stock(sku);
    const bool at_zero = row && row->available <= 0;
    if (at_zero && !out) {
      history_.sold_out[sku].emplace_back(world_->now(), Instant::max());
      ++out_count_;
    } else if (!at_zero && out) {
      history_.sold_out[sku].back().second = world_->now();
      --out_count_;
    }
  }
}

void Simulation::track_window() {
  tracking_window_ = true;
  world_->add_point_observer([this](std::string_view point, sim::Node*) {
    // The point was counted before the observers hear it: this is its nth occurrence.
    const uint64_t nth = world_->point_counts().find(point)->second;
    bool in = false;
    const sim::FiberRecord* fiber = world_->current_fiber();
    auto attempt = fiber == nullptr ? attempt_sku_.end() : attempt_sku_.find(fiber->id);
    // A unit an unpaid order holds may come back (the order lifecycle): the sale goes on.
    auto remains = [this](const std::string& sku) {
      return history_.stock_remained(sku, world_->now()) || (lifecycle() && db_->state().committed_pending_orders(sku) > 0);
    };
    if (attempt != attempt_sku_.end()) {
      in = remains(skus_[static_cast<size_t>(attempt->second)]);
    } else {
      for (const std::string& sku : skus_) in = in || remains(sku);
    }
    if (!in) return;
    auto& spans = window_[std::string(point)];
    if (!spans.empty() && spans.back().second + 1 == nth) {
      spans.back().second = nth;
    } else {
      spans.emplace_back(nth, nth);
    }
  });
}

void Simulation::buyer(int index, Instant arrival, bool second_click) {
  const Workload& w = scenario_.workload;
  const size_t preferred_app = static_cast<size_t>(index) % apps_.size();
  const std::string user = fmt::format("u{}", index + 1);
  const std::string& sku = skus_[static_cast<size_t>(sku_of_[static_cast<size_t>(index)])];
  const std::string request = fmt::format("r{}", index + 1);
  // The gateway (its own process, outside the app nodes): it sends an attempt to the buyer's app
  // node, or the next one that is up (a load balancer's health check), and when the answer takes
  // longer than gateway_timeout or comes back unknown, it sends the same request again while the
  // first may still be running.
  struct Gateway {
    std::optional<BuyResult> answer;
    std::string order;  // the order of a "sold" answer
    sim::Event answered;
    bool listening = true;  // the buyer's request is still open
  };
  const std::string name = fmt::format("buyer-{}{}", index + 1, second_click ? "-click2" : "");
  // For the explorer's reduction: a buyer's gateway and its attempts share memory (a group of
  // their own), and the gateway spawns onto its app node, or onto another when that one is
  // down: only a crash can make it so, so when the run may crash a node it may spawn onto any.
  const auto group = static_cast<uint32_t>(2 * index + (second_click ? 2 : 1));
  uint64_t app_nodes = sim::Footprint::node(apps_[preferred_app]->id()).nodes;
  if (may_crash_) {
    for (const sim::Node* a : apps_) app_nodes |= sim::Footprint::node(a->id()).nodes;
  }
  world_->spawn_in_group(nullptr, name, [=, this, running = std::make_shared<Running>(*this)] {
    // Every buyer's gateway spends tokens of the one bucket: with a limit, its steps depend on
    // every other buyer's gateway (for the explorer's reduction), as deliveries into one mailbox do.
    if (gateway_bucket_.limited()) world_->current_fiber()->footprint.shared = kGatewayBucket;
    sim::sleep_until(arrival);
    // One click: the gateway's attempt series for it, and the answer the buyer heard (nothing
    // when every attempt ended unknown or outlasted the gateway). `no_app`: the gateway answered
    // failed itself, with no app node up.
    bool no_app = false;
    std::string sold_order;  // the order the buyer was told it bought
    auto click = [&](int first_attempt, const std::string& req) -> std::optional<BuyResult> {
      no_app = false;
      // The token bucket answers a request over the rate busy at once (429): no app node sees
      // it, and its gateway sends no retry.
      if (!gateway_bucket_.admit(world_->now())) {
        history_.count("shed.rate-limit");
        return BuyResult::busy;
      }
      auto gateway = std::make_shared<Gateway>();
      struct StopsListening {
        Gateway& g;
        ~StopsListening() { g.listening = false; }
      } stops{*gateway};
      for (int attempt = first_attempt; attempt <= first_attempt + w.max_retries; ++attempt) {
        if (attempt > first_attempt) history_.count("retry.gateway");
        gateway->answered.reset();
        size_t app_index = preferred_app;
        for (size_t k = 0; k < apps_.size() && !apps_[app_index]->up(); ++k) app_index = (app_index + 1) % apps_.size();
        if (!apps_[app_index]->up()) {
          history_.count("gateway.no-app");
          ++history_.results[BuyResult::failed];
          no_app = true;
          return BuyResult::failed;
        }
        sim::Node& app = *apps_[app_index];
        db::DbPool& pool = *pools_[app_index];
        world_->spawn_in_group(&app, fmt::format("{}{}#{}", name, req == request ? "" : req.substr(request.size()), attempt),
                               [=, this, &app, &pool, attempt_running = std::make_shared<Running>(*this)] {
          // An attempt whose node dies with it ends without a result: counted here, so the
          // attempts line adds up.
          struct Ends {
            History& h;
            sim::Node& node;
            const std::string& request_id;
            sim::World& world;
            bool ended = false;
            ~Ends() {
              // Unwound with its node down: it died with it (not a run stopped at its horizon).
              if (!ended && !node.up()) {
                h.count("attempt.died-with-node");
                h.attempt_ends.push_back(AttemptEnd{request_id, std::nullopt, world.now()});
              }
            }
          } ends{history_, app, req, *world_};
          // Which SKU this fiber buys, while a probe tracks the selling window (track_window).
          struct Tagged {
            Simulation& s;
            uint64_t fiber = 0;
            Tagged(Simulation& sim, int sku_index) : s(sim) {
              if (!s.tracking_window_) return;
              fiber = s.world_->current_fiber()->id;
              s.attempt_sku_[fiber] = sku_index;
            }
            ~Tagged() {
              if (s.tracking_window_) s.attempt_sku_.erase(fiber);
            }
          } tagged{*this, sku_of_[static_cast<size_t>(index)]};
          BuyContext ctx(*this, app, pool, user, sku, req, attempt, arrival);
          const BuyResult r = design_.buy(ctx);
          ends.ended = true;
          ++history_.results[r];
          history_.attempt_ends.push_back(AttemptEnd{req, r, world_->now()});
          // The answer travels back through the gateway; the buyer hears only the first
          // definite one, and only while the request is still open.
          const bool heard = r != BuyResult::unknown && !gateway->answer && gateway->listening;
          if (heard) gateway->answer = r;
          if (heard && r == BuyResult::sold) gateway->order = ctx.sold_order();
          if (r == BuyResult::sold) {
            if (heard) ctx.acknowledge();
            else ctx.unheard();
          }
          gateway->answered.set();
        }, group);
        const bool in_time = gateway->answered.wait_until(world_->now() + w.gateway_timeout, "gateway waits for the attempt");
        if (gateway->answer) {
          sold_order = gateway->order;
          return gateway->answer;
        }
        if (in_time && w.max_retries == 0) return std::nullopt;
      }
      return std::nullopt;
    };
    // A double click is one more copy of the same request, sent once; the buyer is the first
    // series, who clicks again after busy or an error, with a backoff, until the patience runs
    // out. A click after an answer is a new request ("r3-c2", its own request id, as a page
    // makes a new one for a new click); the same user, so UNIQUE (user, sku, activity) still
    // applies.
    const Instant gives_up = arrival + w.patience;
    for (int n = 0;; ++n) {
      const std::string req = n == 0 ? request : fmt::format("{}-c{}", request, n + 1);
      const std::optional<BuyResult> heard = click(second_click ? 101 : 1, req);
      if (second_click) return;
      auto ends = [&] { history_.answers.push_back(BuyerAnswer{user, sku, heard, arrival, world_->now(), req, no_app}); };
      if (heard == BuyResult::sold || heard == BuyResult::sold_out) {
        history_.count(heard == BuyResult::sold ? "buyer.bought" : "buyer.told-sold-out");
        ends();
        if (heard == BuyResult::sold && lifecycle()) after_sale(preferred_app, name, db::OrderRow{sold_order, user, sku, w.activity, req, "pending"}, group);
        return;
      }
      // Told nothing (every attempt outlasted the gateway or ended unknown): the buyer does not
      // know whether it bought, and stops (a click after silence is --double-click's story).
      if (!heard || w.patience == Duration::zero()) {
        history_.count(heard ? "buyer.turned-away" : "buyer.no-answer");
        ends();
        return;
      }
      // Jittered uniformly in [base/2, 3 base/2) around a doubling base of at most 8 backoffs.
      const Duration base = std::min(w.backoff * 8, w.backoff * (int64_t{1} << std::min(n, 3)));
      const int64_t half = base.count_ns() / 2;
      const Duration wait = Duration::ns(half + world_->random_between(0, std::max<int64_t>(0, 2 * half - 1)));
      if (world_->now() + wait >= gives_up) {
        history_.count("buyer.turned-away");
        ends();
        return;
      }
      history_.count("buyer.click-again");
      sim::sleep_for(wait);
    }
  }, group, app_nodes);
}

void Simulation::after_sale(size_t app_index, const std::string& page, const db::OrderRow& order, uint32_t group) {
  const Workload& w = scenario_.workload;
  const bool pays = !world_->chance(w.unpaid);
  history_.count(pays ? "order.pays" : "order.unpaid");
  sim::sleep_for(pays ? w.pay_window / 2 : w.pay_window);
  // The page's request goes to the buyer's app node, or the next one up, as the gateway sends it.
  for (size_t k = 0; k < apps_.size() && !apps_[app_index]->up(); ++k) app_index = (app_index + 1) % apps_.size();
  if (!apps_[app_index]->up()) {
    history_.count(pays ? "pay.no-app" : "cancel.no-app");
    return;
  }
  sim::Node& app = *apps_[app_index];
  db::DbPool& pool = *pools_[app_index];
  world_->spawn_in_group(&app, fmt::format("{}/{}", page, pays ? "pay" : "cancel"), [this, &app, &pool, order, pays, running = std::make_shared<Running>(*this)] {
    (void)running;
    JobContext ctx(*this, app, pool);
    if (pays) {
      pay_order(ctx, order.order_id);
    } else {
      ctx.count("cancel.by-page");
      design_.cancel(ctx, order);
    }
  }, group);
}

constexpr Duration kDrainLimit = Duration::s(30);

void Simulation::conductor() {
  buyers_done_.wait("all buyers finished");
  history_.sale_ended_at = world_->now();
  // Under the explorer the conductor acts on the world as a whole; it starts a nanosecond after
  // the last buyer, as a timer, so no same-instant step of another fiber races with it unseen
  // (sim::Footprint). A choice-list replay does the same, so it replays the explorer's run.
  if (explorer_run_) {
    world_->current_fiber()->footprint = sim::Footprint::everything();
    sim::sleep_for(Duration::ns(1));
  }
  // The design's jobs may still be working on what the buyers left (a queue's records no
  // consumer group has committed, orders awaiting payment): the sale is not over until they are
  // done, at most kDrainLimit after the last buyer, so faults can still strike them. Designs
  // without such a service or a lifecycle never wait here.
  auto pending = [this] {
    for (const auto& s : services_) {
      if (s->pending_work()) return true;
    }
    // An order awaiting payment: its page or the design's timeout job will settle it.
    if (lifecycle()) {
      for (const std::string& sku : skus_) {
        if (db_->state().committed_pending_orders(sku) > 0) return true;
      }
    }
    return false;
  };
  const Instant drain_until = world_->now() + kDrainLimit;
  for (;;) {
    // Every fault applied or armed so far plays out (a triggered fault's delay and length count
    // from when it fired).
    while (world_->now() < world_->faults_settle_at()) sim::sleep_until(world_->faults_settle_at());
    if (world_->now() >= drain_until || !pending()) break;
    sim::sleep_for(Duration::ms(100));
  }
  // Then no point triggers anything more.
  world_->close_points();
  world_->trace("heal", {});
  sim::heal_everything(*world_);
  if (end_at_heal_) return;
  sim::sleep_for(scenario_.settle);
  // Work a healed fault left behind (a consumer that stalled) gets the same limit again; past
  // it, what is left undone is judged as it is.
  const Instant settled_drain_until = world_->now() + kDrainLimit;
  while (world_->now() < settled_drain_until && pending()) sim::sleep_for(Duration::ms(100));
  history_.quiesced_at = world_->now();
  world_->trace("quiesced", {});
}

sim::RunOutcome Simulation::run() {
  const Workload& w = scenario_.workload;
  // Arrivals and double clicks are drawn before the run starts, from the run's own choices.
  Instant t = Instant::zero();
  std::vector<uint64_t> zipf;  // cumulative weights of sku1..skuN, scaled to 2^32
  if (w.sku_skew_centi > 0 && w.skus > 1) {
    const double s = static_cast<double>(w.sku_skew_centi) / 100;
    std::vector<double> weight;
    double total = 0;
    for (int k = 1; k <= w.skus; ++k) {
      weight.push_back(sim::exact_exp(-s * sim::exact_log(static_cast<double>(k))));
      total += weight.back();
    }
    double running = 0;
    for (double x : weight) {
      running += x;
      zipf.push_back(static_cast<uint64_t>(running / total * 4294967296.0));
    }
    zipf.back() = uint64_t{1} << 32;
  }
  // Every buyer's SKU first (a Zipf draw with --sku-skew, round robin otherwise), so a buyer's
  // arrival and double click below are drawn the same with or without skew.
  for (int b = 0; b < w.buyers; ++b) {
    if (zipf.empty()) {
      sku_of_.push_back(b % w.skus);
      continue;
    }
    const uint64_t u = world_->random(uint64_t{1} << 32);
    sku_of_.push_back(static_cast<int>(std::upper_bound(zipf.begin(), zipf.end(), u) - zipf.begin()));
  }
  for (int b = 0; b < w.buyers; ++b) {
    Instant arrival;
    if (w.arrival == Arrival::burst) {
      arrival = Instant::zero() + Duration::ns(world_->random_between(0, std::max<int64_t>(0, w.burst_window.count_ns() - 1)));
    } else if (w.arrival == Arrival::slots) {
      const auto slot = static_cast<int64_t>(world_->random(static_cast<uint64_t>(w.buyers)));
      arrival = Instant::zero() + Duration::ns(w.burst_window.count_ns() / w.buyers * slot);
    } else if (w.arrival == Arrival::ramp) {
      // Density rising linearly to the window's end: t = window * sqrt(u) (sqrt is exact in IEEE 754).
      const double u = (static_cast<double>(world_->random(1u << 20)) + 0.5) / static_cast<double>(1u << 20);
      arrival = Instant::zero() + Duration::ns(static_cast<int64_t>(static_cast<double>(w.burst_window.count_ns()) * std::sqrt(u)));
    } else {
      t += exponential_gap(*world_, w.poisson_mean);
      arrival = t;
    }
    buyer(b, arrival, false);
    if (world_->chance(w.double_click)) {
      history_.count("click.double");
      buyer(b, arrival + Duration::ms(world_->random_between(1, 50)), true);
    }
  }
  if (w.buyers == 0) buyers_done_.set();
  scenario_.faults.resolved(quantities(w)).apply(*world_);
  if (scenario_.fault_choices) {
    // Count each point's occurrences per node as an armed trigger "in node" would, so a chosen
    // fault's trigger names exactly this occurrence.
    auto seen = std::make_shared<std::map<std::pair<std::string, std::string>, uint64_t>>();
    world_->add_point_observer([this, seen](std::string_view point, sim::Node* at) {
      const FaultChoices& fc = *scenario_.fault_choices;
      if (at == nullptr) return;
      const uint64_t nth = ++(*seen)[{std::string(point), at->name()}];
      if (static_cast<int>(chosen_faults_.size()) >= fc.max_faults || fc.faults.empty() || nth > UINT32_MAX) return;
      if (!fc.points.empty() && std::find(fc.points.begin(), fc.points.end(), point) == fc.points.end()) return;
      const uint64_t pick = world_->choose(sim::ChoiceKind::fault, fc.faults.size() + 1);
      if (pick == 0) return;
      sim::Fault f = fc.faults[pick - 1];
      f.trigger = sim::Trigger{std::string(point), at->name(), static_cast<uint32_t>(nth)};
      const std::string text = sim::to_string(f);
      if (sim::fire_triggered(*world_, f, text, at)) chosen_faults_.push_back(std::move(f));
    });
  }
  // Until the buyers are done the conductor only waits (a group of its own: it touches nothing
  // else); then it acts on everything (see conductor()).
  world_->spawn_in_group(nullptr, "conductor", [this] { conductor(); }, UINT32_MAX);
  return world_->run();
}

}  // namespace oversim::protocols
