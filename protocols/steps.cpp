#include "protocols/steps.h"

#include "models/redis/redis_server.h"
#include "protocols/services/etcd_service.h"
#include "protocols/services/redlock_service.h"
#include "protocols/services/zookeeper_service.h"
#include "models/zookeeper/zk_lock.h"
#include "sim/detached.h"
#include "sim/sync.h"

#include <any>
#include <exception>
#include <string_view>

namespace oversim::protocols {

namespace {
// The start every release shares: the client stops believing it holds the lock. False when the
// process is dead (the fiber unwinds after a crash): it sends nothing.
bool begin_release(BuyContext& ctx, const HeldLock& lock) {
  if (ctx.world().current_fiber_cancelled()) {
    ctx.lock_released(lock.belief);
    return false;
  }
  ctx.world().reach("before_release");
  ctx.lock_released(lock.belief);
  ctx.count("lock.releases");
  return true;
}

// A RedLock client on the sale's masters for this buyer.
redlock::RedLockClient redlock_client(BuyContext& ctx, redlock::RedLockOptions options) {
  return redlock::RedLockClient(ctx.app(), ctx.simulation().service<RedLockService>().deployment().nodes(), options,
                                [&ctx] { return ctx.new_token(); });
}

HeldLock acquired(BuyContext& ctx, const std::string& key, const std::string& token, Duration ttl, std::optional<Instant> lease_ends = std::nullopt) {
  HeldLock lock;
  lock.key = key;
  lock.token = token;
  lock.belief = lease_ends ? ctx.lock_acquired(key, token, ttl, *lease_ends) : ctx.lock_acquired(key, token, ttl);
  ctx.world().reach("after_acquire");
  return lock;
}

// One acquisition, for the article's monitoring list: counted, and how long the buyer waited
// from asking for the lock to holding it or giving up (not recorded when the process died
// while it waited).
class AcquireRecord {
 public:
  explicit AcquireRecord(BuyContext& ctx) : ctx_(ctx), asked_(ctx.world().now()) { ctx.count("lock.acquires"); }
  AcquireRecord(const AcquireRecord&) = delete;
  AcquireRecord& operator=(const AcquireRecord&) = delete;
  ~AcquireRecord() {
    if (std::uncaught_exceptions() > 0) return;
    ctx_.simulation().history().lock_waits.push_back(ctx_.world().now() - asked_);
  }

 private:
  BuyContext& ctx_;
  Instant asked_;
};
}  // namespace

namespace {
// tryLock as the buyer's own loop would run it (SET; after a timeout also GET; give up or wait
// lock_retry and poll again), with every step a continuation of the parked buyer
// (sim::Detached): a waiter costs a timer entry and a message per poll, not two switches into its
// stack. The polls, their instants and their counts are the loop's. It lives on the heap, not
// on the buyer's stack, and works on its own copy of the buyer's Redis client and its own
// counters (handed back when it ends): at 10,000 pollers each poll touches this object alone,
// not lines scattered over the buyer's stack pages.
class TryLock {
 public:
  // With a `breaker` (a client behind a circuit breaker): every answer from Redis tells the
  // breaker the service is reachable, as it comes (a half-open probe that hears "taken" closes
  // it at once), and the acquisition stops at the first request Redis did not answer, without
  // the GET that would ask whether a timed-out SET took the lock (such a SET holds the key until
  // its TTL; the caller reports the failure instead of polling a service that is down).
  TryLock(BuyContext& ctx, const std::string& key, Duration ttl, CircuitBreaker* breaker = nullptr)
      : ctx_(ctx), history_(ctx.simulation().history()), world_(ctx.world()), client_(ctx.redis()), key_(key), ttl_(ttl),
        retry_(ctx.workload().lock_retry), token_(ctx.new_token()), give_up_(world_.now() + ctx.workload().lock_wait),
        set_(redis::Command::set_nx_px(key, token_, ttl.count_ms())), breaker_(breaker), detached_(world_) {}
  TryLock(const TryLock&) = delete;
  TryLock& operator=(const TryLock&) = delete;
  // Also when the buyer unwinds: what it learnt and counted is the buyer's.
  ~TryLock() {
    ctx_.redis() = client_;
    if (requests_ > 0) history_.count("lock.requests", requests_);
    if (unanswered_ > 0) history_.count("lock.unanswered", unanswered_);
    if (tries_ > 1) history_.count("lock.contended", tries_ - 1);
    if (tries_ > 1) history_.count("lock.wakeups", tries_ - 1);  // a waiter polls: every poll wakes it to look
  }

  std::optional<HeldLock> run() {
    send_set();
    detached_.wait("lock poll");
    if (!won_) return std::nullopt;
    return acquired(ctx_, key_, token_, ttl_);
  }
  // The acquisition ended at a request Redis did not answer (with a breaker, the first one).
  bool ended_unanswered() const { return !won_ && !last_answered_; }

 private:
  void send_set() {
    ++tries_;
    ++requests_;
    client_.call_detached(detached_, set_, [this](sim::RpcResult<redis::Reply> set) {
      heard(set.ok());
      if (set.ok() && set.value->kind() == redis::Reply::Kind::ok) return win();
      if (breaker_ != nullptr && !set.ok()) return detached_.finish();
      if (set.ambiguous()) maybe_ours_ = true;
      if (!maybe_ours_) return after_try(set.ok());
      // Our earlier SET may have landed and only the reply was lost.
      ++requests_;
      client_.call_detached(detached_, redis::Command::get(key_), [this](sim::RpcResult<redis::Reply> get) {
        heard(get.ok());
        if (get.ok() && get.value->kind() == redis::Reply::Kind::bulk && get.value->as_bulk() == token_) return win();
        after_try(get.ok());
      });
    });
  }
  void heard(bool answer) {
    last_answered_ = answer;
    if (!answer) ++unanswered_;
    if (answer && breaker_ != nullptr) breaker_->answered();
  }
  void after_try(bool answered) {
    if (breaker_ != nullptr && !answered) return detached_.finish();
    if (world_.now() + retry_ > give_up_) {
      history_.count("lock.gave-up");
      return detached_.finish();
    }
    detached_.after(retry_, [this] { send_set(); });
  }
  void win() {
    won_ = true;
    detached_.finish();
  }

  BuyContext& ctx_;
  History& history_;
  sim::World& world_;
  redis::RedisClient client_;
  const std::string key_;
  const Duration ttl_;
  const Duration retry_;
  const std::string token_;
  const Instant give_up_;
  const redis::Command set_;
  CircuitBreaker* const breaker_;
  sim::Detached detached_;  // last: destroyed first, so no continuation outlives what it uses
  int64_t tries_ = 0;
  int64_t requests_ = 0;
  int64_t unanswered_ = 0;  // requests that got no answer (timed out, or the server was unreachable)
  bool last_answered_ = false;
  bool maybe_ours_ = false;
  bool won_ = false;
};
}  // namespace

std::optional<HeldLock> try_lock(BuyContext& ctx, const std::string& key, Duration ttl) {
  const AcquireRecord record(ctx);
  return std::make_unique<TryLock>(ctx, key, ttl)->run();
}

LockAttempt try_lock_with_breaker(BuyContext& ctx, const std::string& key, Duration ttl) {
  CircuitBreaker& breaker = ctx.breaker();
  if (!breaker.allow(ctx.world().now())) {
    ctx.count("breaker.refused");
    return {std::nullopt, LockAttempt::Outcome::breaker_open};
  }
  const AcquireRecord record(ctx);
  auto attempt = std::make_unique<TryLock>(ctx, key, ttl, &breaker);
  std::optional<HeldLock> lock = attempt->run();
  if (lock) return {std::move(lock), LockAttempt::Outcome::held};
  if (!attempt->ended_unanswered()) return {std::nullopt, LockAttempt::Outcome::busy};
  const auto was = breaker.state();
  breaker.unanswered(ctx.world().now());
  if (breaker.state() == CircuitBreaker::State::open && was != CircuitBreaker::State::open) {
    ctx.count("breaker.opened");
    ctx.note("breaker-open", {{"for", sim::format_duration(breaker.options().open_for)}});
  }
  return {std::nullopt, LockAttempt::Outcome::unreachable};
}

void unlock_compare(BuyContext& ctx, const HeldLock& lock) {
  if (!begin_release(ctx, lock)) return;
  ctx.count("lock.requests");
  auto r = ctx.redis().call(redis::Command::del_if_equals(lock.key, lock.token));
  if (r.ok() && r.value->kind() == redis::Reply::Kind::integer && r.value->as_integer() == 0) ctx.count("lock.expired-before-release");
}

void unlock_plain_del(BuyContext& ctx, const HeldLock& lock) {
  if (!begin_release(ctx, lock)) return;
  ctx.count("lock.requests");
  ctx.redis().call(redis::Command::del(lock.key));
}

std::optional<HeldLock> redlock_acquire(BuyContext& ctx, const std::string& key, Duration ttl, bool check_validity) {
  const AcquireRecord record(ctx);
  redlock::RedLockOptions options;
  options.retry_count = static_cast<uint32_t>(ctx.workload().lock_wait.count_ns() / options.retry_delay.count_ns());
  options.check_validity = check_validity;
  options.node_timeout = ctx.workload().redlock_node_timeout;
  redlock::RedLockClient client = redlock_client(ctx, options);
  std::optional<redlock::RedLockHold> hold = client.lock(key, ttl);
  if (client.tries().size() > 1) ctx.count("lock.contended", static_cast<int64_t>(client.tries().size() - 1));
  if (client.tries().size() > 1) ctx.count("lock.wakeups", static_cast<int64_t>(client.tries().size() - 1));
  // A SET per master per try, and a failed try's unlock on every master.
  const auto masters = static_cast<int64_t>(ctx.simulation().service<RedLockService>().deployment().size());
  const auto tries = static_cast<int64_t>(client.tries().size());
  ctx.count("lock.requests", masters * (2 * tries - (hold ? 1 : 0)));
  for (const redlock::RedLockTry& t : client.tries()) {
    // A quorum that came too late: refused by the validity test, or taken without it.
    if (t.locked >= client.quorum() && t.validity_ms < 0) ctx.count(check_validity ? "redlock.refused-late-quorum" : "redlock.took-late-quorum");
  }
  if (!hold) {
    ctx.count("lock.gave-up");
    return std::nullopt;
  }
  // The client's own lease: its validity, counted from the end of the round (redlock-rb hands
  // the caller `validity` to use from then on).
  return acquired(ctx, key, hold->value, ttl, ctx.world().now() + Duration::ms(hold->validity_ms));
}

void redlock_release(BuyContext& ctx, const HeldLock& lock) {
  if (!begin_release(ctx, lock)) return;
  ctx.count("lock.requests", static_cast<int64_t>(ctx.simulation().service<RedLockService>().deployment().size()));
  redlock::RedLockOptions options;
  options.node_timeout = ctx.workload().redlock_node_timeout;
  redlock_client(ctx, options).unlock(lock.key, lock.token);
}

struct ZkHold {
  zookeeper::ZkClient* client = nullptr;
  std::unique_ptr<zookeeper::ZkLock> lock;
  zookeeper::LockNode node;
  uint64_t listener = 0;
  bool lost = false;
};

namespace {
void count_zk(BuyContext& ctx, const zookeeper::LockStats& before, const zookeeper::LockStats& after) {
  ctx.count("lock.requests", static_cast<int64_t>(after.requests - before.requests));
  ctx.count("lock.wakeups", static_cast<int64_t>(after.wakeups - before.wakeups));
  ctx.count("zk.getChildren", static_cast<int64_t>(after.get_children - before.get_children));
  ctx.count("zk.lost-create-cleaned", static_cast<int64_t>(after.lost_creates_cleaned - before.lost_creates_cleaned));
  ctx.count("zk.lost-create", static_cast<int64_t>(after.lost_creates - before.lost_creates));
  ctx.count("zk.lock-node-gone", static_cast<int64_t>(after.nodes_lost - before.nodes_lost));
}
}  // namespace

std::optional<HeldLock> zk_acquire(BuyContext& ctx, const std::string& key, ZkLockOptions options) {
  const AcquireRecord record(ctx);
  zookeeper::ZkClient* client = ctx.simulation().service<ZooKeeperService>().ensemble().client(ctx.app().name());
  if (client == nullptr) throw std::logic_error("no ZooKeeper client on " + ctx.app().name());
  auto hold = std::make_shared<ZkHold>();
  hold->client = client;
  // The guid of Curator's protection: unique per attempt.
  hold->lock = std::make_unique<zookeeper::ZkLock>(*client, zk_lock_path(key), ctx.new_token(), options.herd);
  const Instant give_up = ctx.world().now() + ctx.workload().lock_wait;
  std::optional<zookeeper::LockNode> node = hold->lock->acquire(give_up);
  count_zk(ctx, {}, hold->lock->stats());
  if (!node) {
    ctx.count("lock.gave-up");
    return std::nullopt;
  }
  if (hold->lock->stats().wakeups > 0) ctx.count("lock.contended");
  hold->node = *node;
  HeldLock held = acquired(ctx, key, node->path, Duration::zero());
  held.fence = node->czxid;
  held.zk = hold;
  if (options.stop_on_lost) {
    // Curator's advice for a holder: a connection-state listener. This one gives the lock up
    // on LOST only (not on SUSPENDED): the client stops believing it holds the lock.
    const size_t belief = held.belief;
    ZkHold* h = hold.get();
    hold->listener = client->add_listener([&ctx, h, belief](zookeeper::ConnState s) {
      if (s != zookeeper::ConnState::lost || h->lost) return;
      h->lost = true;
      ctx.count("zk.stopped-on-lost");
      ctx.lock_released(belief);
    });
  }
  return held;
}

bool zk_still_held(const HeldLock& lock) { return lock.zk == nullptr || !lock.zk->lost; }

void zk_release(BuyContext& ctx, const HeldLock& lock) {
  ZkHold& h = *lock.zk;
  if (h.listener != 0) h.client->remove_listener(h.listener);
  h.listener = 0;
  if (!begin_release(ctx, lock)) return;
  // An observation, not the client's knowledge: the ensemble closed the session that owns the
  // lock node while the holder held it (the most advanced server no longer has it).
  const zookeeper::ZkEnsemble& zk = ctx.simulation().service<ZooKeeperService>().ensemble();
  const zookeeper::ZkServer* newest = &zk.server(0);
  for (size_t i = 1; i < zk.size(); ++i) {
    if (zk.server(i).state().last_zxid() > newest->state().last_zxid()) newest = &zk.server(i);
  }
  if (!newest->state().has_session(h.node.session)) ctx.count("zk.session-expired-while-held");
  const zookeeper::LockStats before = h.lock->stats();
  h.lock->release(h.node);
  count_zk(ctx, before, h.lock->stats());
}

struct EtcdHold {
  std::shared_ptr<EtcdProcess> process;
  sim::Mutex* local = nullptr;  // held until release
  std::unique_ptr<etcd::Mutex> mutex;
  std::shared_ptr<const etcd::KeptLease> lease;  // the session's, when the lock was taken
  size_t renewals_seen = 0;  // its answered keepalives before the lock was held
};

namespace {
void count_etcd(BuyContext& ctx, const etcd::MutexStats& before, const etcd::MutexStats& after) {
  ctx.count("lock.requests", static_cast<int64_t>(after.requests - before.requests));
  ctx.count("lock.wakeups", static_cast<int64_t>(after.waits - before.waits));
  ctx.count("etcd.unknown", static_cast<int64_t>(after.unknown - before.unknown));
}

// The process's session, opened by the first buyer that needs it, and again once it ended (its
// lease expired or was revoked). nullptr when the grant failed by `deadline`.
etcd::Session* etcd_session(BuyContext& ctx, EtcdProcess& p, Instant deadline) {
  if (!p.opening.lock_until(deadline, "etcd session")) return nullptr;
  if (!p.session || p.session->done()) {
    if (p.session) ctx.count("etcd.session-ended");
    EtcdService& svc = ctx.simulation().service<EtcdService>();
    // clientv3's WithTTL takes whole seconds: the design asks for --lock-ttl rounded up.
    const int64_t s = (svc.session_ttl().count_ns() + 999'999'999) / 1'000'000'000;
    p.session = etcd::Session::open(*svc.cluster().client(ctx.app().name()), Duration::s(s), deadline);
    if (p.session) ctx.count("etcd.sessions");
  }
  p.opening.unlock();
  return p.session ? &*p.session : nullptr;
}
}  // namespace

std::optional<HeldLock> etcd_acquire(BuyContext& ctx, const std::string& key) {
  const AcquireRecord record(ctx);
  auto hold = std::make_shared<EtcdHold>();
  hold->process = ctx.simulation().service<EtcdService>().process(ctx.app().name());
  const Instant give_up = ctx.world().now() + ctx.workload().lock_wait;
  sim::Mutex& local = hold->process->local_lock(key);
  const Instant asked = ctx.world().now();
  if (!local.lock_until(give_up, "etcd local lock")) {
    ctx.count("lock.gave-up");
    return std::nullopt;
  }
  bool contended = ctx.world().now() > asked;  // waited for a buyer of this process
  hold->local = &local;
  etcd::Session* session = etcd_session(ctx, *hold->process, give_up);
  if (session == nullptr) {
    local.unlock();
    ctx.count("lock.gave-up");
    return std::nullopt;
  }
  hold->mutex = std::make_unique<etcd::Mutex>(*session, etcd_lock_prefix(key));
  const etcd::Mutex::LockResult r = hold->mutex->lock(give_up);
  count_etcd(ctx, {}, hold->mutex->stats());
  if (r != etcd::Mutex::LockResult::held) {
    local.unlock();
    ctx.count(r == etcd::Mutex::LockResult::session_expired ? "etcd.lock-session-expired" : "lock.gave-up");
    return std::nullopt;
  }
  if (contended || hold->mutex->stats().waits > 0) ctx.count("lock.contended");
  // The client's own reckoning of its lease: the last grant or keepalive that answered, plus the
  // TTL; the keepalives answered while it holds the lock renew it (etcd_release records them).
  hold->lease = session->kept();
  const std::vector<Instant>& sends = hold->lease->answered_sends;
  hold->renewals_seen = sends.size();
  HeldLock held = acquired(ctx, key, etcd_lock_token(hold->mutex->key(), hold->mutex->revision()), session->ttl(), sends.back() + session->ttl());
  held.fence = static_cast<uint64_t>(hold->mutex->revision());
  held.etcd = hold;
  return held;
}

void etcd_release(BuyContext& ctx, const HeldLock& lock, EtcdUnlock how) {
  EtcdHold& h = *lock.etcd;
  sim::Mutex* local = h.local;
  h.local = nullptr;
  const std::vector<Instant>& sends = h.lease->answered_sends;
  for (size_t i = h.renewals_seen; i < sends.size(); ++i) ctx.lease_renewed(lock.belief, sends[i]);
  if (!begin_release(ctx, lock)) {
    if (local != nullptr) local->unlock();
    return;
  }
  // An observation, not the client's knowledge: the key was gone (its lease expired and was
  // revoked) while the holder held it.
  const etcd::EtcdCluster& cluster = ctx.simulation().service<EtcdService>().cluster();
  const auto now_kv = cluster.most_applied().state().get(h.mutex->key());
  if (!now_kv || now_kv->create_revision != h.mutex->revision()) ctx.count("etcd.key-gone-while-held");
  const etcd::MutexStats before = h.mutex->stats();
  const Duration timeout = ctx.simulation().service<EtcdService>().cluster().config().client.request_timeout;
  const int64_t rev = h.mutex->revision();
  const std::string key = h.mutex->key();
  bool answered = false;
  if (how == EtcdUnlock::retry_guarded) {
    etcd::Txn t;
    t.compare = {h.mutex->is_owner()};
    t.success = {etcd::DeleteRange{key, false}};
    answered = h.mutex->session().client().txn(t, ctx.world().now() + timeout).status == etcd::CallResult::Status::answered;
  } else {
    answered = h.mutex->unlock(ctx.world().now() + timeout);
  }
  count_etcd(ctx, before, h.mutex->stats());
  if (local != nullptr) local->unlock();
  if (answered || how == EtcdUnlock::once) return;
  ctx.count("etcd.unlock-retried");
  // The retry goes on in the background; the buyer has gone on, and so has the process's next
  // buyer of the lock.
  std::shared_ptr<EtcdHold> keep = lock.etcd;
  etcd::EtcdClient* client = &h.mutex->session().client();
  sim::World& world = ctx.world();
  world.spawn(&ctx.app(), ctx.app().name() + "/etcd-unlock-retry", [keep, client, &world, how, key, rev, timeout] {
    for (;;) {
      sim::sleep_for(Duration::ms(100));
      if (how == EtcdUnlock::retry) {
        if (keep->mutex->unlock(world.now() + timeout)) return;
      } else {
        etcd::Txn t;
        t.compare = {etcd::Compare{key, etcd::Compare::Target::create_revision, etcd::Compare::Result::equal, rev, ""}};
        t.success = {etcd::DeleteRange{key, false}};
        if (client->txn(t, world.now() + timeout).status == etcd::CallResult::Status::answered) return;
      }
    }
  }, true);
}

std::optional<int64_t> etcd_read_stock(BuyContext& ctx) {
  etcd::EtcdClient* client = ctx.simulation().service<EtcdService>().cluster().client(ctx.app().name());
  const Duration timeout = client->options().request_timeout;
  etcd::CallResult r = client->txn(etcd::Txn{{}, {etcd::Range{ctx.stock_key(), false, etcd::Range::Sort::key, 0, 0}}, {}}, ctx.world().now() + timeout);
  if (!r.ok() || r.reply.txn.responses.at(0).kvs.empty()) return std::nullopt;
  return std::stoll(r.reply.txn.responses.at(0).kvs.front().value);
}

GuardedWrite etcd_write_stock_if_owner(BuyContext& ctx, const HeldLock& lock, int64_t value) {
  etcd::EtcdClient* client = ctx.simulation().service<EtcdService>().cluster().client(ctx.app().name());
  etcd::Txn t;
  t.compare = {lock.etcd->mutex->is_owner()};
  t.success = {etcd::Put{ctx.stock_key(), std::to_string(value), 0}};
  etcd::CallResult r = client->txn(t, ctx.world().now() + client->options().request_timeout);
  if (r.status != etcd::CallResult::Status::answered) return GuardedWrite::unknown;
  if (r.reply.code != etcd::Code::ok || !r.reply.txn.succeeded) return GuardedWrite::not_owner;
  ctx.count("stock.taken");
  ctx.world().reach("after_stock_taken");
  return GuardedWrite::written;
}

Requirement etcd_is_the_arbiter() {
  return {"--check-constraint", "off", "etcd is the only arbiter of the stock; a CHECK would make the database a second one"};
}

Requirement etcd_session_lease() {
  return {"--lock-ttl", "2s", "the session's lease: etcd grants whole seconds, at least 2s with its default election timeout; type --lock-ttl to size it", true};
}

Requirement etcd_lock_wait() {
  return {"--lock-wait", "5s", "a waiter outlasts a holder whose 2s lease runs out (twice the lease and a second); type --lock-wait to size it", true};
}

namespace {
std::string comp_marker(const std::string& order) { return "comp:" + order; }
redis::Command give_back_command(const std::string& stock_key, GiveBack how, const std::string& order) {
  return how == GiveBack::once ? redis::Command::incr_once(stock_key, comp_marker(order), 1) : redis::Command::incrby(stock_key, 1);
}
}  // namespace

StockTake take_service_stock(BuyContext& ctx, const std::string& reservation) {
  auto take = ctx.redis().call(reservation.empty() ? redis::Command::decr_if_at_least(ctx.stock_key(), 1, 0)
                                                   : redis::Command::decr_and_reserve(ctx.stock_key(), "resv:" + ctx.sku, reservation));
  if (!take.ok()) return StockTake::unknown;
  if (take.value->is_error() || take.value->as_integer() < 0) return StockTake::sold_out;
  ctx.count("stock.taken");
  ctx.world().reach("after_stock_taken");
  return StockTake::taken;
}

void give_service_stock_back(BuyContext& ctx, GiveBack how, const std::string& order) {
  if (ctx.world().current_fiber_cancelled()) return;  // a dead process sends nothing
  ctx.count("stock.given-back");
  ctx.redis().call(give_back_command(ctx.stock_key(), how, order));
}

Requirement redis_is_the_arbiter() {
  return {"--check-constraint", "off", "Redis is the only arbiter of the stock; a CHECK would make the database a second one, the backstop db_decrement_checked shows"};
}

BuyResult take_stock_and_queue_order(BuyContext& ctx) {
  const StockTake take = take_service_stock(ctx);
  if (take == StockTake::unknown) return ctx.outcome(BuyResult::busy);
  if (take == StockTake::sold_out) return ctx.outcome(BuyResult::sold_out);
  ctx.remote_call();  // the purchase's own slow call (pricing, risk), before the order is sent
  const std::string order = ctx.new_order_id();
  auto sent = ctx.mq().produce(ctx.sku, encode_order(ctx.order_row(order)));
  if (!sent.ok()) {
    give_service_stock_back(ctx);
    return ctx.outcome(BuyResult::busy);
  }
  return ctx.sold(order);
}

OrderWrite write_queued_order(JobContext& ctx, const db::OrderRow& row) {
  std::optional<db::DbConnection> conn = ctx.db().acquire();
  if (!conn) return OrderWrite::failed;
  conn->begin();
  db::DbCall mirror = conn->execute(db::UpdateStock::on(row.sku).decrement(1));
  if (!mirror.ok()) return OrderWrite::failed;
  db::DbCall insert = conn->execute(db::InsertOrder{row});
  if (insert.status == db::CallStatus::ok && insert.result.kind == db::Outcome::UniqueViolation) {
    conn->rollback();
    return OrderWrite::already_there;
  }
  if (!insert.ok()) return OrderWrite::failed;
  db::DbCall commit = conn->commit();
  return commit.ok() ? OrderWrite::written : OrderWrite::failed;
}

std::string encode_order(const db::OrderRow& row) {
  return fmt::format("{}|{}|{}|{}|{}|{}", row.order_id, row.user, row.sku, row.activity, row.request_id, row.status);
}

std::optional<db::OrderRow> decode_order(const std::string& value) {
  std::vector<std::string> f;
  size_t start = 0;
  for (;;) {
    const size_t bar = value.find('|', start);
    f.push_back(value.substr(start, bar == std::string::npos ? std::string::npos : bar - start));
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  if (f.size() != 6) return std::nullopt;
  return db::OrderRow{f[0], f[1], f[2], f[3], f[4], f[5]};
}

namespace {
std::string reply_port(const std::string& order_id) { return "reply:" + order_id; }
}  // namespace

// The answer's text on the wire: "sold:<order id>" or "sold-out".
constexpr std::string_view kSold = "sold:";

BuyResult queue_and_wait(BuyContext& ctx, const std::string& order) {
  auto sent = ctx.mq().produce(ctx.sku, encode_order(ctx.order_row(order)) + "|" + ctx.app().name());
  if (!sent.ok()) return ctx.outcome(BuyResult::busy);
  std::optional<sim::Message> answer = ctx.app().mailbox(reply_port(order)).receive(ctx.world().now() + ctx.workload().lock_wait, "queued purchase");
  if (!answer) return ctx.outcome(BuyResult::busy);
  const std::string said = std::any_cast<std::string>(answer->body);
  if (said.rfind(kSold, 0) == 0) return ctx.sold(said.substr(kSold.size()));
  return ctx.outcome(BuyResult::sold_out);
}

std::optional<QueuedRequest> decode_queued_request(const std::string& value) {
  const size_t bar = value.rfind('|');
  if (bar == std::string::npos) return std::nullopt;
  std::optional<db::OrderRow> row = decode_order(value.substr(0, bar));
  if (!row) return std::nullopt;
  return QueuedRequest{*row, value.substr(bar + 1)};
}

namespace {
void answer_queued(JobContext& ctx, const QueuedRequest& request, const std::string& result) {
  ctx.world().network().send(ctx.app(), ctx.world().node(request.reply_to), reply_port(request.row.order_id), result, result);
}
}  // namespace

void answer_sold(JobContext& ctx, const QueuedRequest& request, const std::string& order_id) { answer_queued(ctx, request, std::string(kSold) + order_id); }
void answer_sold_out(JobContext& ctx, const QueuedRequest& request) { answer_queued(ctx, request, "sold-out"); }

EarlierOrder answer_earlier_order(JobContext& ctx, db::DbConnection& conn, const QueuedRequest& request) {
  db::DbCall known = conn.autocommit(db::SelectOrderByRequestId{request.row.request_id});
  if (!known.ok()) return EarlierOrder::failed;
  if (known.result.order_rows.empty()) return EarlierOrder::none;
  answer_sold(ctx, request, known.result.order_rows.front().order_id);
  return EarlierOrder::answered;
}

void consume(JobContext& ctx, const std::string& group, bool (*handle)(JobContext&, const mq::Record&)) {
  const std::string me = ctx.member();
  for (;;) {
    auto joined = ctx.mq().join(group, me);
    if (!joined.ok()) {
      sim::sleep_for(Duration::ms(20));
      continue;
    }
    uint64_t generation = joined.value->generation;
    for (;;) {
      auto polled = ctx.mq().poll(group, me, generation, 1);
      if (!polled.ok()) {
        sim::sleep_for(Duration::ms(20));
        continue;
      }
      if (!polled.value->member) break;  // dropped: join again
      generation = polled.value->assignment.generation;
      if (polled.value->records.empty()) {
        sim::sleep_for(Duration::ms(20));
        continue;
      }
      const mq::Record& r = polled.value->records.front();
      while (!handle(ctx, r)) sim::sleep_for(Duration::ms(50));
      auto committed = ctx.mq().commit(group, me, generation, r.partition, r.offset + 1);
      if (committed.ok() && *committed.value != mq::CommitStatus::ok) ctx.count("mq.commit-refused");
    }
  }
}

BuyResult take_stock_and_write_pending_order(BuyContext& ctx, GiveBack give_back) {
  const std::string order = ctx.new_order_id();
  const StockTake take = take_service_stock(
      ctx, give_back == GiveBack::once ? fmt::format("{}|{}|{}|{}", order, ctx.user, ctx.request_id, ctx.app().local_now().ns()) : std::string());
  if (take == StockTake::unknown) return ctx.outcome(BuyResult::busy);  // it may have taken the unit: it stays taken
  if (take == StockTake::sold_out) return ctx.outcome(BuyResult::sold_out);
  auto back = [&] { give_service_stock_back(ctx, give_back, order); };
  std::optional<db::DbConnection> conn = ctx.db().acquire();
  if (!conn) {
    back();
    return ctx.outcome(BuyResult::busy);
  }
  ctx.remote_call();
  conn->begin();
  db::DbCall mirror = conn->execute(db::UpdateStock::on(ctx.sku).decrement(1));
  if (!mirror.ok()) {
    if (!mirror.ambiguous()) back();
    return ctx.outcome(failure_of(mirror));
  }
  db::OrderRow row = ctx.order_row(order);
  row.status = "pending";
  row.created_ns = ctx.app().local_now().ns();  // the payment window starts with the order
  db::DbCall insert = conn->execute(db::InsertOrder{row});
  if (!insert.ok()) {
    if (!insert.ambiguous()) back();
    return ctx.outcome(failure_of(insert));
  }
  db::DbCall commit = conn->commit();
  if (!commit.ok()) {
    if (!commit.ambiguous()) back();
    return ctx.outcome(failure_of(commit));
  }
  return ctx.sold(order);
}

Cancel cancel_pending_order(JobContext& ctx, db::DbConnection& conn, const std::string& order_id, const std::string& sku) {
  ctx.world().reach("before_compensate");
  conn.begin();
  db::DbCall flip = conn.execute(db::UpdateOrderStatus{order_id, "cancelled", "pending"});
  if (!flip.ok()) return Cancel::failed;
  if (flip.result.rows_affected == 0) {
    conn.rollback();
    ctx.count("compensation.not-pending");
    return Cancel::not_pending;
  }
  if (!conn.execute(db::IncrementStock{sku, 1}).ok()) return Cancel::failed;
  if (!conn.commit().ok()) return Cancel::failed;
  ctx.count("compensation.db");
  return Cancel::cancelled;
}

bool give_back_to_redis(JobContext& ctx, const std::string& sku, const std::string& order, GiveBack how) {
  const redis::Command cmd = give_back_command("stock:" + sku, how, order);
  for (int tries = 0; tries < 3; ++tries) {
    if (ctx.world().current_fiber_cancelled()) return false;
    auto r = ctx.redis().call(cmd);
    if (r.ok()) {
      ctx.count(r.value->kind() == redis::Reply::Kind::nil ? "compensation.already-applied" : "compensation.redis");
      return true;
    }
    ctx.count("compensation.redis-retried");
  }
  return false;
}

void pay_order(JobContext& ctx, const std::string& order_id) {
  const Instant until = ctx.world().now() + ctx.workload().pay_window / 2;
  for (;;) {
    std::optional<db::DbConnection> conn = ctx.db().acquire();
    if (conn) {
      db::DbCall paid = conn->autocommit(db::UpdateOrderStatus{order_id, "paid", "pending"});
      if (paid.ok()) {
        ctx.count(paid.result.rows_affected == 1 ? "order.paid" : "pay.too-late");
        return;
      }
    }
    if (ctx.world().now() >= until) {
      ctx.count("pay.failed");
      return;
    }
    sim::sleep_for(Duration::ms(100));
  }
}

void cancel_expired_orders(JobContext& ctx) {
  const Design& design = ctx.simulation().design();
  for (;;) {
    sim::sleep_for(Duration::ms(100));
    std::optional<db::DbConnection> conn = ctx.db().acquire();
    if (!conn) continue;
    const int64_t before = (ctx.app().local_now() - ctx.workload().pay_window).ns();
    db::DbCall expired = conn->autocommit(db::SelectOrdersByStatus{before, 10});
    conn.reset();  // back to the pool before the cancels take their own
    if (!expired.ok()) continue;
    for (const db::OrderRow& row : expired.result.order_rows) {
      ctx.count("cancel.by-timeout");
      design.cancel(ctx, row);
    }
  }
}

void listen_for_expired(JobContext& ctx, const std::string& prefix, void (*handle)(JobContext&, const std::string& key)) {
  const std::string port = "expired-events";
  sim::Mailbox& events = ctx.app().mailbox(port);
  for (;;) {
    // A read refreshes which server the client takes for the primary (a failed call asks
    // Sentinel again), then the subscription goes there.
    ctx.redis().call(redis::Command::pttl("listener:" + ctx.app().name()));
    const std::string& server = ctx.redis().server();
    if (!server.empty()) {
      ctx.world().network().send(ctx.app(), ctx.world().node(server), redis::kCommandPort, redis::SubscribeExpired{port},
                                 "SUBSCRIBE __keyevent@0__:expired");
    }
    const Instant until = ctx.world().now() + Duration::s(1);
    while (std::optional<sim::Message> m = events.receive(until, "expired events")) {
      const auto* e = std::any_cast<redis::ExpiredEvent>(&m->body);
      if (e == nullptr || e->key.rfind(prefix, 0) != 0) continue;
      ctx.count("expired.heard");
      handle(ctx, e->key);
    }
  }
}

BuyResult insert_order_and_commit(BuyContext& ctx, db::DbConnection& conn) {
  const std::string order = ctx.new_order_id();
  db::DbCall insert = conn.execute(db::InsertOrder{ctx.order_row(order)});
  if (!insert.ok()) return ctx.outcome(failure_of(insert));
  db::DbCall commit = conn.commit();
  if (!commit.ok()) return ctx.outcome(failure_of(commit));
  return ctx.sold(order);
}

}  // namespace oversim::protocols
