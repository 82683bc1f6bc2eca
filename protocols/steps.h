// The article's building blocks, shared by the designs so each design file stays a short,
// straight-line story. Every step is blocking RPCs that can time out; each says what it does on
// an ambiguous outcome.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "protocols/simulation.h"

namespace oversim::protocols {

struct ZkHold;    // steps.cpp: the recipe's state for one held ZooKeeper lock
struct EtcdHold;  // steps.cpp: the recipe's state for one held etcd lock

struct HeldLock {
  std::string key;
  std::string token;
  size_t belief = 0;
  uint64_t fence = 0;           // ZooKeeper: the lock node's czxid; etcd: the key's create revision (0: none)
  std::shared_ptr<ZkHold> zk;   // ZooKeeper only
  std::shared_ptr<EtcdHold> etcd;  // etcd only
};

// The article's "release in finally": runs `f` when the purchase ends, however it ends. If the
// process dies in the middle of `f` (a network call), the cancellation propagates out of the
// destructor (hence noexcept(false)) instead of terminating; while unwinding, the steps skip
// their network calls, since a dead process sends nothing.
template <class F>
class Finally {
 public:
  explicit Finally(F f) : f_(std::move(f)) {}
  Finally(const Finally&) = delete;
  Finally& operator=(const Finally&) = delete;
  ~Finally() noexcept(false) { f_(); }

 private:
  F f_;
};

// tryLock: `SET key token NX PX ttl`, polling every lock_retry until lock_wait has passed.
// nullopt means the lock stayed busy (fail fast). A timed-out SET may have taken the lock for
// us; the poll repeats the same token, and a GET that returns it counts as acquired.
std::optional<HeldLock> try_lock(BuyContext& ctx, const std::string& key, Duration ttl);

// tryLock behind the app node's circuit breaker (the degrade switch, Steps::degrade;
// protocols/traffic.h): while the breaker is open nothing is sent (breaker_open, counted
// `breaker.refused`); otherwise tryLock runs, every answer from Redis tells the breaker the
// service is reachable, and the acquisition stops at the first request Redis does not answer
// (unreachable: the breaker counts a failure). What the purchase does without the lock is the
// design's: reject (count `shed.degrade`), queue, or go on unguarded.
struct LockAttempt {
  enum class Outcome : uint8_t { held, busy, unreachable, breaker_open };
  std::optional<HeldLock> lock;
  Outcome outcome = Outcome::busy;
  bool lock_service_down() const { return outcome == Outcome::unreachable || outcome == Outcome::breaker_open; }
};
LockAttempt try_lock_with_breaker(BuyContext& ctx, const std::string& key, Duration ttl);

// Release with a token compare (`EVAL del_if_equals key token`): never deletes another's lock.
void unlock_compare(BuyContext& ctx, const HeldLock& lock);
// Release with a plain `DEL key`: deletes whoever holds it now (the mis-release bug).
void unlock_plain_del(BuyContext& ctx, const HeldLock& lock);

// RedLock (models/redlock/redlock_client.h) on the sale's masters, with the lock key as the
// resource and a fresh random value per try. redlock-rb's retry_count is set to
// lock_wait / retry_delay (200ms), so the tries' delays add up to about lock_wait; each try also
// costs its round trips, 100ms per master that does not answer (and as much again to unlock it),
// so with masters down a buyer waits longer than lock_wait before it gives up. `check_validity = false` is
// the hand-rolled client that takes a quorum of OKs as the lock however long they took.
// nullopt: no try got a (valid) quorum; the client has unlocked every master.
std::optional<HeldLock> redlock_acquire(BuyContext& ctx, const std::string& key, Duration ttl, bool check_validity = true);
// RedLock's release: the token-compare DEL on every master (best effort, as the library does).
void redlock_release(BuyContext& ctx, const HeldLock& lock);

// The ZooKeeper lock recipe (models/zookeeper/zk_lock.h, Curator's InterProcessMutex) on this
// app node's client, under /locks/<key>, waiting at most lock_wait. The token is the lock node's
// path and `fence` its czxid. The client's belief lasts until release, whatever the session
// does (InterProcessMutex never tells the holder), unless `stop_on_lost`: then a connection-state
// listener ends it when the client reports LOST, and zk_still_held() turns false. `herd`: every
// waiter watches the parent and lists the children at every change (the herd effect).
// nullopt: the wait ran out (the node is deleted) or the session went while waiting.
struct ZkLockOptions {
  bool herd = false;
  bool stop_on_lost = false;
};
std::optional<HeldLock> zk_acquire(BuyContext& ctx, const std::string& key, ZkLockOptions options = {});
// False once a `stop_on_lost` holder's client said LOST.
bool zk_still_held(const HeldLock& lock);
// Delete the lock node (Curator keeps retrying a lost delete in the background).
void zk_release(BuyContext& ctx, const HeldLock& lock);

// The etcd lock recipe (models/etcd/etcd_mutex.h, clientv3/concurrency's Mutex) on this app
// node's client, waiting at most lock_wait in all. The process's own buyers of the lock go one at
// a time first (a local mutex: two Mutexes of one session on one prefix share a key); then the
// process's session (the first buyer opens it, and the next one after it ended: a lease of
// --lock-ttl, whole seconds, kept alive by the client); then Lock on /locks/<key>. The token is
// the key with its create revision ("<key>@<rev>"), and `fence` that revision (myRev), which
// grows from one holder to the next. The belief lasts until release: nothing tells the holder
// that its lease expired (the session's Done is not looked at). nullopt: the wait ran out, a
// request failed or went unanswered, or the session was gone.
std::optional<HeldLock> etcd_acquire(BuyContext& ctx, const std::string& key);
// How a release deletes the key: `once` is Mutex.Unlock (a plain Delete; with its answer lost
// the key stays until the session ends, and the process's next buyer finds it its own); `retry`
// sends that Delete again in the background until one is answered, after the buyer has gone on
// (etcd #22082: the process's next buyer may have made the key again by then); `retry_guarded`
// retries `If CreateRevision(key) == myRev Then Delete` instead (PR #22115's IsOwner guard).
enum class EtcdUnlock : uint8_t { once, retry, retry_guarded };
void etcd_release(BuyContext& ctx, const HeldLock& lock, EtcdUnlock how = EtcdUnlock::once);

// Stock kept in etcd (Steps::service_stock, `stock:{sku}`, loaded before the sale). The read is a
// linearizable Get: nullopt when it failed. The write is a Txn guarded by the lock, If
// CreateRevision(lock key) == myRev (IsOwner) Then Put(stock, value): `not_owner` when the key is
// gone or is another's (a lease that expired under the holder), `unknown` when unanswered.
std::optional<int64_t> etcd_read_stock(BuyContext& ctx);
enum class GuardedWrite : uint8_t { written, not_owner, unknown };
GuardedWrite etcd_write_stock_if_owner(BuyContext& ctx, const HeldLock& lock, int64_t value);
// The etcd-stock design's requirement: --check-constraint off, since etcd is the arbiter.
Requirement etcd_is_the_arbiter();
// The etcd designs' default session lease: 2s (etcd's minimum TTL with its default election
// timeout), unless --lock-ttl is typed.
Requirement etcd_session_lease();
// The etcd designs' default lock wait: 5s (twice that lease and a second), unless --lock-wait is
// typed. concurrency.Mutex.Lock waits as long as its context allows; a waiter here outlasts a
// holder whose lease runs out (the lease, then the lessor's next 500ms check), so a lock that
// fails is seen failing at the defaults, not hidden behind waiters that gave up first.
Requirement etcd_lock_wait();

// How a design gives a unit back to its Redis stock: a plain `INCRBY stock:{sku} 1`, which a
// repeat applies again; or `EVAL incr_once stock:{sku} comp:{order} 1`, which applies once per
// order however often it is sent.
enum class GiveBack : uint8_t { plain, once };

// Stock kept in Redis (Steps::service_stock): the Lua check-and-decrement of `stock:{sku}`
// (`if GET - 1 >= 0 then DECRBY 1`), or with a `reservation` `decr_and_reserve`, which also
// leaves the numbered record `resv:{sku}:<n>` = reservation. `taken` marks after_stock_taken
// (the decrement answered OK: what a failover can lose); `unknown` means the call timed out
// and may have taken it.
enum class StockTake : uint8_t { taken, sold_out, unknown };
StockTake take_service_stock(BuyContext& ctx, const std::string& reservation = "");
// Gives one unit back, once, without retrying: a lost reply keeps the unit taken. GiveBack::once
// needs the order whose unit it is.
void give_service_stock_back(BuyContext& ctx, GiveBack how = GiveBack::plain, const std::string& order = "");

// The Redis-stock designs' requirement: --check-constraint off, since Redis is the arbiter.
Requirement redis_is_the_arbiter();

// A purchase that sends its order on (Steps::writes_later): take a unit of the Redis-held stock
// (Redis silent: busy; -1: sold out), make the remote call, send the order to the queue keyed by
// SKU, and tell the buyer "sold" once the broker acknowledged it. A send that failed gives the
// unit back (a timed-out send that was appended then sells it twice).
BuyResult take_stock_and_queue_order(BuyContext& ctx);

// An order writer's transaction for one queued order: mirror the decrement (`available =
// available - 1`), insert the order, commit. `already_there`: the insert hit the order id's
// primary key (a redelivery), rolled back; `failed`: try again.
enum class OrderWrite : uint8_t { written, already_there, failed };
OrderWrite write_queued_order(JobContext& ctx, const db::OrderRow& row);

// An order as a queue record's value ("order_id|user|sku|activity|request_id|status"), and back
// (nullopt for a value that is not one).
std::string encode_order(const db::OrderRow& row);
std::optional<db::OrderRow> decode_order(const std::string& value);

// A purchase a consumer job makes for the buyer (mq_serialized_per_sku, degrade_to_queue): the
// request (the order it would make, and the app node to answer) goes to the queue keyed by SKU,
// and the purchase waits at most --lock-wait for the answer on the order's own port. "sold" names
// the order the request made (a repeated request's answer names its first order); busy: not
// sent, or no answer in time (still queued: it may sell later).
BuyResult queue_and_wait(BuyContext& ctx, const std::string& order);
struct QueuedRequest {
  db::OrderRow row;
  std::string reply_to;  // the app node to answer
};
std::optional<QueuedRequest> decode_queued_request(const std::string& value);  // nullopt: not a request
void answer_sold(JobContext& ctx, const QueuedRequest& request, const std::string& order_id);
void answer_sold_out(JobContext& ctx, const QueuedRequest& request);
// The consumer's first step: an order the request already made (a redelivery, a repeated
// request) is answered with that order (answered); failed: ask again later.
enum class EarlierOrder : uint8_t { none, answered, failed };
EarlierOrder answer_earlier_order(JobContext& ctx, db::DbConnection& conn, const QueuedRequest& request);

// Kafka's poll loop for a background job: joins `group` as ctx.member(), polls one record at a
// time (every 20ms while there is none), hands it to `handle` until it returns true (50ms
// apart), then commits `offset + 1`. A member the broker dropped, because it did not poll for
// max.poll.interval while it worked, joins again: its commit is refused, and the record it was
// working on has been given to another member. Never returns (the job ends with its node).
void consume(JobContext& ctx, const std::string& group, bool (*handle)(JobContext&, const mq::Record&));

// ---- The order lifecycle (Design::cancel) ----

// The lifecycle designs' purchase: take a unit of the Redis stock (Redis silent: busy; -1: sold
// out), make the remote call, then one transaction: the mirror decrement, the order INSERT as
// 'pending' stamped with this node's clock as it is inserted, COMMIT; "sold" once it committed. A purchase that
// certainly failed after taking the unit gives it back (`give_back`); one whose outcome is
// unknown keeps it. GiveBack::once also records each unit it takes, so a reconciler can find one
// whose order was never written: `resv:{sku}:<n>` = "order|user|request|taken_at" (this node's
// clock, ns).
BuyResult take_stock_and_write_pending_order(BuyContext& ctx, GiveBack give_back);
// Gives the unit of `order` back to the Redis stock as `how` says, trying an unanswered call
// twice more (a repeat of a plain INCRBY that had applied gives the unit back twice). True once
// a call answered.
bool give_back_to_redis(JobContext& ctx, const std::string& sku, const std::string& order, GiveBack how);

// The order lifecycle's guarded state step, on `conn`: marks before_compensate, then one
// transaction `UPDATE orders SET status = 'cancelled' WHERE order_id = ... AND status =
// 'pending'` and `available = available + 1`, COMMIT. `cancelled` once it committed (counted
// compensation.db); `not_pending` when someone else cancelled the order or it was paid (rolled
// back, counted compensation.not-pending); `failed` when a call failed or went unanswered (the
// commit may have applied: whoever finishes the compensation finds the order cancelled).
enum class Cancel : uint8_t { cancelled, not_pending, failed };
Cancel cancel_pending_order(JobContext& ctx, db::DbConnection& conn, const std::string& order_id, const std::string& sku);

// A buyer's payment, halfway through the payment window: `UPDATE orders SET status = 'paid'
// WHERE order_id = ... AND status = 'pending'` (autocommit), tried again every 100ms while the
// call fails, until the window has passed. No row changed: the order was cancelled first
// ("pay.too-late": the buyer is refunded).
void pay_order(JobContext& ctx, const std::string& order_id);

// The order-timeout job: every 100ms, the orders still pending a payment window after they were
// created (by this node's clock), 10 at a time, each handed to the design's cancel. Every app
// node runs it, as a scheduled method does when nothing elects one instance.
void cancel_expired_orders(JobContext& ctx);

// A keyspace-notification listener (a Design::jobs entry): subscribes to the Redis primary's
// expired events on this node's port "expired-events", and again every second to the primary
// its client knows then (a failover moves the events to a server nobody has subscribed to yet),
// and hands each expired key that starts with `prefix` to `handle`. An event published while
// this process was down, or before it subscribed to the new primary, is lost: Pub/Sub is fire
// and forget. Never returns.
void listen_for_expired(JobContext& ctx, const std::string& prefix, void (*handle)(JobContext&, const std::string& key));

// The common ending of a purchase: `INSERT INTO orders ...`, `COMMIT`, and the buyer is told
// "sold" only once the commit answered.
BuyResult insert_order_and_commit(BuyContext& ctx, db::DbConnection& conn);

// What a failed database call means for the buyer: unknown when it timed out (it may have
// applied), failed otherwise.
inline BuyResult failure_of(const db::DbCall& call) { return call.ambiguous() ? BuyResult::unknown : BuyResult::failed; }

}  // namespace oversim::protocols
