// One simulated flash sale: a World with app nodes whose buyer fibers run a design's purchase
// function, the services the design declares it needs (protocols/services.h), and a database.
// This is where the article's moving parts meet; designs see it only through BuyContext.
//
// Topology (fault plans name these nodes): app-1..app-N, then each declared service's nodes in
// the order the design names them ("redis": redis-1 primary, redis-2 replica, sentinel;
// "redlock": redlock-1..redlock-N), then db.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <stdexcept>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/db/db_client.h"
#include "models/db/db_server.h"
#include "models/mq/mq_client.h"
#include "models/redis/redis_client.h"
#include "protocols/history.h"
#include "protocols/services.h"
#include "protocols/settings.h"
#include "protocols/traffic.h"
#include "protocols/workload.h"
#include "sim/fault_plan.h"
#include "sim/sync.h"
#include "sim/world.h"

#include <fmt/format.h>

namespace oversim::protocols {

// What a design needs from the database schema.
struct SchemaNeeds {
  bool unique_user_sku_activity = false;  // UNIQUE (user_id, sku_id, activity_id)
  bool unique_request_id = false;         // UNIQUE (request_id)
};

class BuyContext;
using BuyFunction = BuyResult (*)(BuyContext&);

// The service clients of one app node's context (a purchase, a job run), made on first use:
// what BuyContext and JobContext share.
class ServiceClients {
 public:
  redis::RedisClient& redis(class Simulation& sim, sim::Node& app);  // throws std::logic_error without "redis"
  mq::MqClient& mq(class Simulation& sim, sim::Node& app);            // throws std::logic_error without "mq"

 private:
  std::optional<redis::RedisClient> redis_;
  std::optional<mq::MqClient> mq_;
};

// A background job a design runs besides its purchases (a queue consumer, a reconciliation):
// on every app node from the start, and again on a node that restarts (a crash ends the run
// that was going on). `run` returns when the job is done; a consumer loops until the node dies.
class JobContext;
struct Job {
  std::string name;  // "order-writer": its fibers are "job/order-writer"
  void (*run)(JobContext&) = nullptr;
};

// What a design's purchase does, declared in its file: what `oversim lint` answers the article's
// checklist from, before any run. tests/lint_test.cpp checks every declaration against the
// statements and commands a run of the design sends.
struct Steps {
  // The stock write: a literal computed in the application (`SET available = <n>`), a relative
  // decrement with no stock condition (only CHECK stops it at 0), a decrement after SELECT ...
  // FOR UPDATE checked the row it locked, `WHERE available >= 1`, a compare-and-set on the
  // version, or a fencing-token claim (`WHERE fence < t`) before the stock is read.
  enum class Decrement : uint8_t { literal, relative, row_locked, conditional, versioned, fenced };
  Decrement decrement = Decrement::conditional;
  // How the lock is let go (designs with a lock service): DEL only if the value is still ours,
  // a plain DEL, or the holder deleting its own ZooKeeper node.
  enum class Release : uint8_t { token_compare, plain_del, own_node };
  Release release = Release::token_compare;
  bool renews_lease = false;        // a watchdog extends the lease while the work runs
  bool idempotency_key = false;     // a request id checked before the lock
  bool ledger = false;              // a ledger row per decrement, in the same transaction
  // What a purchase does when the lock service is unreachable (behind the app node's circuit
  // breaker, protocols/traffic.h): nothing declared (every purchase waits out its tryLock and
  // is busy); reject at once while the breaker is open (shed: the sale pauses, the database is
  // not hit unguarded); queue the purchase for a consumer that takes the unit with the
  // conditional decrement (the design also declares "mq"); or let the purchase through without
  // the lock (fail open).
  enum class Degrade : uint8_t { none, reject, queue, let_through };
  Degrade degrade = Degrade::none;
  // The design takes a lock on its lock service. False for a design that keeps only data there
  // (dedup keys, stock): profiles aimed at the lock then do not ask that a fault hit a held lock.
  bool takes_lock = true;
  // The stock lives in the lock service too (Redis: `stock:{sku}`, loaded with the initial stock
  // before the sale, as a warm-up job would): the design decrements it there first.
  bool service_stock = false;
  // The purchase sends its order on (to a queue) and a job writes the database later: a purchase
  // holds no database connection.
  bool writes_later = false;
  // How a cancelled order's unit comes back (designs with an order lifecycle, Design::cancel):
  // not at all (no lifecycle); the cancel reads the order, then updates it with no status
  // condition and gives the unit back (two cancellers that both read 'pending' both give it
  // back); or a guarded state step (`... WHERE status = 'pending'`) and a give-back applied
  // once per order whoever sends it.
  enum class Compensation : uint8_t { none, check_then_act, guarded };
  Compensation compensation = Compensation::none;
  // A unit goes back to the service's stock once per order however often the give-back is sent
  // (`incr_once`: a marker and the increment in one script); false: a plain INCRBY, which a
  // repeat after a lost reply applies twice.
  bool give_back_once = false;
  // A job gives back the units taken from the service's stock for orders never written (a
  // reconciler), so a process that dies between the two does not take the unit with it.
  bool reconciles = false;
};
const char* to_string(Steps::Decrement d);

struct Design {
  std::string name;
  std::string summary;   // one line
  std::string expected;  // the verdict the design's file states, one line
  BuyFunction buy = nullptr;
  SchemaNeeds schema;
  // The services the sale builds for it (service_kinds()), besides the app nodes and the database:
  // {"redis"}, {"redlock"}; none for a design that needs only the database.
  std::vector<std::string> services;
  // Settings the design needs to mean what it says (protocols/settings.h): applied to every sale
  // of it; a flag the user typed with another value is refused (workload_problem).
  std::vector<Requirement> requirements = {};
  Steps steps = {};
  std::vector<Job> jobs = {};
  // The order lifecycle; nullptr: none (an order is paid as it is written). With one, the design
  // writes its orders 'pending' and answers "sold" only once the order is written. Of the buyers
  // told "sold", Workload::unpaid never pay: when the payment window closes their page sends
  // this cancel (run as a JobContext on the buyer's app node), which gives the unit back as the
  // design does; the others pay halfway through the window (pay_order, the same for every
  // design). The design's own jobs cancel what is left pending (cancel_expired_orders).
  void (*cancel)(JobContext&, const db::OrderRow& order) = nullptr;
};

// How a run is searched for a bug (the --strategy flag). Profiles place their faults by it:
//   random  each fault on a uniformly chosen occurrence of a uniformly chosen point; uniform
//           scheduling;
//   pct     the same placement, and PCT scheduling of depth `depth` (sim::PctStrategy);
//   swarm   each seed enables a random subset of the profile's points (and, for chaos, of its
//           fault kinds) and places 1..3 faults among them (Groce et al., ISSTA 2012; VOPR).
struct Search {
  enum class Kind : uint8_t { random, pct, swarm };
  Kind kind = Kind::random;
  uint32_t depth = 3;
  friend bool operator==(const Search&, const Search&) = default;
};
const char* to_string(Search::Kind k);
std::string to_string(const Search& s);  // "random", "pct:3", "swarm"

// The exhaustive explorer's faults (properties/explore.h). At every occurrence of one of
// `points` (empty: any point) while fewer than `max_faults` have struck, the run asks the
// strategy a fault choice: 0 is no fault, k is faults[k-1], a triggered fault naming `here`
// whose trigger the run fills in ("on 2nd after_acquire in app-1"). Every fault so chosen is a
// plain triggered fault: put in a plan, with the fault choices taken out of the choice list, the
// same run replays without the explorer.
struct FaultChoices {
  std::vector<std::string> points;
  std::vector<sim::Fault> faults;  // lengths resolved
  int max_faults = 1;
  friend bool operator==(const FaultChoices&, const FaultChoices&) = default;
};

struct Scenario {
  std::string design;
  Workload workload;
  sim::FaultPlan faults;
  uint64_t seed = 1;
  Duration settle = Duration::s(5);  // quiet time after faults heal, before "eventually" checks
  Duration horizon = Duration::s(600);
  bool keep_trace = true;
  // Keep every strategy choice (sim::World::choices) for a replay by choice list: the explorer
  // and the shrinker need it; a sweep or a plain run does not (a long polling sale draws
  // millions, and the choice hash is computed either way).
  bool record_choices = true;
  bool inline_timers = true;  // the kernel's fast path (sim::WorldConfig); off only to compare paths
  // The scheduler: "random", "pct:<depth>:<decisions>" (sim::PctStrategy with that estimate), or
  // "choices:<values>", an exact choice list replayed leniently (sim::ChoicesStrategy): what
  // the exhaustive explorer and the shrinker hand back.
  std::string schedule = "random";
  std::optional<FaultChoices> fault_choices;
  // Read by fault profiles: how they search, and the workload flags the user typed ("--stock"),
  // which a profile never changes.
  Search search;
  std::vector<std::string> typed;
  // Written by profiles: what they changed in the workload and why, one line each (the same for
  // every seed), and why no fault was placed for this seed ("" when one was; the reason alone,
  // without the profile's name).
  std::vector<std::string> notes;
  std::string unplaced;
};

// The handle a design's purchase function works through. One per buyer attempt.
class BuyContext {
 public:
  BuyContext(class Simulation& sim, sim::Node& app, db::DbPool& db, std::string user, std::string sku, std::string request_id, int attempt,
             Instant arrived);
  ~BuyContext();  // closes lock beliefs still open (the fiber was unwound)
  BuyContext(const BuyContext&) = delete;
  BuyContext& operator=(const BuyContext&) = delete;

  const std::string user;
  const std::string sku;
  const std::string request_id;
  const int attempt;
  const std::string& activity() const;
  const Workload& workload() const;
  sim::World& world();
  sim::Node& app() { return app_; }
  // A client of the "redis" service for this attempt (it caches the primary Sentinel named).
  // Throws std::logic_error when the design did not declare "redis".
  redis::RedisClient& redis();
  // A client of the "mq" service's broker for this attempt. Throws std::logic_error when the
  // design did not declare "mq".
  mq::MqClient& mq();
  Simulation& simulation() { return sim_; }
  db::DbPool& db() { return db_; }
  // The app node's circuit breaker in front of its lock service (Steps::degrade): in-process
  // state, closed again when the node restarts.
  CircuitBreaker& breaker();

  std::string lock_key() const { return "lock:stock:" + sku; }
  std::string idempotency_key() const { return "idem:" + request_id; }
  std::string stock_key() const { return "stock:" + sku; }  // Steps::service_stock
  std::string holder() const;         // "r3#1"
  std::string new_order_id();         // unique per attempt: "o-r3-1"
  std::string new_token();            // a random lock value, unique in the run
  db::OrderRow order_row(const std::string& order_id) const;
  void remote_call();                 // the slow call inside the critical section

  // Beliefs, for lock_mutual_exclusion: from a successful acquire until release (or until the
  // client learns it lost the lock).
  size_t lock_acquired(const std::string& key, const std::string& token, Duration ttl);
  // The same, with the lease the client computed itself (RedLock's validity): it ends at
  // `lease_ends`, which may be now or earlier.
  size_t lock_acquired(const std::string& key, const std::string& token, Duration ttl, Instant lease_ends);
  void lock_released(size_t belief);
  // A renewal of the lease, sent at `sent`, succeeded while the client still held the lock.
  void lease_renewed(size_t belief, Instant sent);
  void count(const std::string& counter, int64_t n = 1);
  void note(const std::string& kind, std::vector<sim::TraceField> fields = {});

  // The purchase ends: `sold` with the order the buyer will be told about. The buyer hears it
  // only if the answer gets back through the gateway while it still listens (Simulation records
  // the acknowledgement there, not here).
  BuyResult sold(const std::string& order_id);
  BuyResult outcome(BuyResult r);
  const std::string& sold_order() const { return sold_order_; }
  // Called by the gateway: the buyer heard `sold` (an acknowledgement), or nobody listened.
  void acknowledge();
  void unheard();

 private:
  Simulation& sim_;
  sim::Node& app_;
  db::DbPool& db_;
  ServiceClients clients_;
  Instant arrived_;
  std::vector<size_t> open_beliefs_;
  int orders_made_ = 0;
  std::string sold_order_;
};

// The handle a design's background job works through: one per run of a job on an app node.
class JobContext {
 public:
  JobContext(class Simulation& sim, sim::Node& app, db::DbPool& db) : sim_(sim), app_(app), db_(db) {}
  JobContext(const JobContext&) = delete;
  JobContext& operator=(const JobContext&) = delete;

  sim::World& world();
  sim::Node& app() { return app_; }
  db::DbPool& db() { return db_; }
  redis::RedisClient& redis();  // as BuyContext::redis()
  mq::MqClient& mq();           // as BuyContext::mq()
  Simulation& simulation() { return sim_; }
  const Workload& workload() const;
  // Unique to this run of the job: the app node's name and how many times it crashed before
  // ("app-1#0"), so a restarted consumer joins its group as a new member, as Kafka's does.
  std::string member() const;
  void count(const std::string& counter, int64_t n = 1);
  void note(const std::string& kind, std::vector<sim::TraceField> fields = {});
  void remote_call();  // the slow call a consumer makes per record (as BuyContext::remote_call)
  // This consumer takes up a record of `sku` (History::processing) until the returned guard goes
  // out of scope, however that happens (a crash unwinds the fiber).
  class Processing {
   public:
    Processing(JobContext& ctx, size_t index) : ctx_(&ctx), index_(index) {}
    Processing(const Processing&) = delete;
    Processing& operator=(const Processing&) = delete;
    ~Processing();

   private:
    JobContext* ctx_;
    size_t index_;
  };
  Processing processing(const std::string& sku, uint64_t offset);

 private:
  Simulation& sim_;
  sim::Node& app_;
  db::DbPool& db_;
  ServiceClients clients_;
};

class Simulation {
 public:
  Simulation(const Scenario& scenario, const Design& design);
  // With a strategy of the caller's instead of the one `scenario.schedule` names (the explorer).
  Simulation(const Scenario& scenario, const Design& design, std::unique_ptr<sim::Strategy> strategy);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  sim::World& world() { return *world_; }
  const sim::World& world() const { return *world_; }
  const Scenario& scenario() const { return scenario_; }
  const Design& design() const { return design_; }
  History& history() { return history_; }
  const History& history() const { return history_; }
  // The circuit breaker of app node `app` (Steps::degrade).
  CircuitBreaker& breaker(const sim::Node& app);
  // The stock the design keeps in its service (Steps::service_stock) for `sku` now, as a client
  // would read it, without touching it; nullopt for a design that keeps it in the database only.
  // A key the service lost (a restart without persistence) holds nothing: 0.
  std::optional<int64_t> service_stock(const std::string& sku) const;
  // The product keeping that stock (Redis, etcd), for findings that name it; empty without one.
  std::string stock_store() const;
  const db::DbServer& db() const { return *db_; }
  // The services the design declared, in its order.
  const std::vector<std::unique_ptr<Service>>& services() const { return services_; }
  // The declared service of type T; throws std::logic_error when the design did not declare it.
  template <class T>
  T& service() const {
    for (const auto& s : services_) {
      if (auto* t = dynamic_cast<T*>(s.get())) return *t;
    }
    throw std::logic_error(fmt::format("design '{}' uses a service it does not declare in Design::services", design_.name));
  }
  const std::vector<std::string>& skus() const { return skus_; }
  // Buyers who want skus()[i] (known once run() has drawn them).
  int64_t demand(size_t i) const { return static_cast<int64_t>(std::count(sku_of_.begin(), sku_of_.end(), static_cast<int>(i))); }
  int64_t initial_stock(const std::string& sku) const;
  uint64_t next_token() { return ++tokens_; }

  // The nodes a sale of `scenario` has, in the order it adds them (what fault plans may name).
  static std::vector<std::string> node_names(const Scenario& scenario, const Design& design);
  // What fault profiles aim at in that sale: the roles of its lock service (the first declared
  // service), empty when the design has none.
  static Roles roles(const Scenario& scenario, const Design& design);

  // Runs the sale to completion (or the horizon). Call once.
  sim::RunOutcome run();
  // Before run(): record which occurrences of each fault point came while stock remained (the
  // selling window; the buyer's own SKU at a buyer's step, any SKU at a service's), as spans
  // of occurrence numbers [first, last]. Profiles place their faults among them (probe()).
  void track_window();
  const std::map<std::string, std::vector<std::pair<uint64_t, uint64_t>>, std::less<>>& window() const { return window_; }
  // Before run(): end the run at the heal (every buyer done, every fault played out, fault
  // points closed), skipping the settle time. For a probe: no fault can strike after the heal,
  // so nothing a plan is placed by happens there. Its properties are not judged.
  void end_at_heal() { end_at_heal_ = true; }
  // The design has an order lifecycle (Design::cancel): units can come back to stock.
  bool lifecycle() const { return design_.cancel != nullptr; }
  // The faults the scenario's fault choices struck, in the order they struck, as triggered
  // faults with their trigger filled in.
  const std::vector<sim::Fault>& chosen_faults() const { return chosen_faults_; }

 private:
  // Held by every fiber of a buyer (its gateway, attempts and page requests): the sale's buyers
  // are done when the last one lets go.
  struct Running {
    Simulation& s;
    explicit Running(Simulation& sim) : s(sim) { ++s.buyers_running_; }
    ~Running() {
      if (--s.buyers_running_ == 0) s.buyers_done_.set();
    }
    Running(const Running&) = delete;
    Running& operator=(const Running&) = delete;
  };
  void buyer(int index, Instant arrival, bool second_click);
  void conductor();
  void note_commit();  // the database committed: a unit sold, a SKU ran out (or came back)
  // A buyer told "sold" for `order` pays it, or lets the payment window close and cancels it.
  void after_sale(size_t app_index, const std::string& page, const db::OrderRow& order, uint32_t group);

  Scenario scenario_;
  Design design_;
  std::unique_ptr<sim::World> world_;
  std::vector<std::unique_ptr<Service>> services_;
  std::unique_ptr<db::DbServer> db_;
  std::vector<sim::Node*> apps_;
  std::vector<std::unique_ptr<db::DbPool>> pools_;
  std::vector<CircuitBreaker> breakers_;  // one per app node, as apps_
  TokenBucket gateway_bucket_;
  std::vector<std::string> skus_;
  std::vector<int> sku_of_;  // buyer index -> index into skus_ (drawn in run())
  History history_;
  int buyers_running_ = 0;
  sim::Event buyers_done_;
  uint64_t tokens_ = 0;
  std::vector<sim::Fault> chosen_faults_;
  bool may_crash_ = true;  // some fault of the run is not a pause (see buyer())
  bool end_at_heal_ = false;
  bool explorer_run_ = false;  // fault choices or a choice-list schedule (see conductor())
  int64_t orders_seen_ = 0;
  size_t out_count_ = 0;  // SKUs whose committed stock stands at 0 now (History::sold_out)
  bool tracking_window_ = false;
  std::map<uint64_t, int> attempt_sku_;  // attempt fiber id -> index into skus_ (track_window)
  std::map<std::string, std::vector<std::pair<uint64_t, uint64_t>>, std::less<>> window_;
};

// Why `scenario` cannot run as asked, or nullopt: an invalid plan, a scaled length naming an
// unknown quantity, a fault naming a node this sale does not have, a fault at or
// after the horizon (it would never fire, and the run would claim what it never tested), or a
// plan that settles too late to leave the quiet time the "eventually" checks need.
// Cheap: it builds nothing (Simulation::node_names gives the topology).
std::optional<std::string> scenario_problem(const Scenario& scenario, const Design& design);
// The part of it about the workload alone: a setting the design's services cannot take (a
// RedLock or ZooKeeper size out of range, a session timeout the ensemble would not negotiate),
// or a typed flag that contradicts what the design requires.
std::optional<std::string> workload_problem(const Scenario& scenario, const Design& design);

// The "pct:<depth>:<decisions>" schedule's numbers, or nullopt for "random"; throws
// std::invalid_argument for anything else.
struct PctSchedule {
  uint32_t depth = 3;
  uint64_t decisions = 1;
};
std::optional<PctSchedule> parse_schedule(const std::string& schedule);
// The values of a "choices:<values>" schedule, or nullopt for any other; throws
// std::invalid_argument for a malformed list.
std::optional<std::vector<uint64_t>> choice_schedule(const std::string& schedule);
inline constexpr const char* kChoicesPrefix = "choices:";
// The "choices:<values>" schedule of a choice list, without its trailing 0s (past the list
// every choice takes 0 anyway).
std::string choices_schedule(std::vector<uint64_t> values);

// The workload quantities a fault plan's lengths may scale ("2x lock-ttl"): lock-ttl, lock-wait,
// lock-retry, remote-call, gateway-timeout, replication-lag, burst-window.
sim::Quantities quantities(const Workload& w);

// Exponential inter-arrival gaps from integer draws (a 64-bucket table of -ln(u)).
Duration exponential_gap(sim::World& world, Duration mean);

}  // namespace oversim::protocols
