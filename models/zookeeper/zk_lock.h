// The ZooKeeper lock recipe as Curator's InterProcessMutex codes it (LockInternals,
// StandardLockInternalsDriver), on one ZkClient:
//   1. create `<lock>/_c_<guid>-lock-` EPHEMERAL_SEQUENTIAL, creating the parent when it is
//      missing; the guid ("protection") lets a client whose create timed out find the node it may
//      have made, by listing the children before every retry (a create that reaches the log of
//      a follower commits when that follower leads; one that commits after the last look is an
//      orphan that blocks the queue until its session ends, as in Curator);
//   2. list the children (no watch) and sort them by sequence number; the lowest holds the lock
//      (the answer comes sorted, zk_children.h, so the recipe looks its node up in it);
//   3. otherwise getData with a watch on the next lower node; past the deadline, delete our node
//      and give up; else wait for the watch (or the deadline) and go back to 2. Only one waiter
//      wakes per release: no herd.
//   4. when our node is gone (the children's parent is missing, our node is not among the
//      children, or the session that made it is gone), Curator's driver throws NoNode and
//      attemptLock starts again at 1 with a new node, as its retry policy allows: here, until
//      the lock's wait has run out. Likewise a look for a lost create's node that finds no
//      parent has found nothing, and creates again (findProtectedNodeInForeground).
//   The deadline (the lock's wait) is looked at only there, as in internalLockLoop: each request
//   is bounded by the client's timeouts, so acquire(0) still takes a free lock, and a wait that
//   runs out looks once more before it gives up. Release deletes the node, and keeps trying in
//   the background while the answer is lost (Curator's guaranteed delete).
// `herd = true` is the naive recipe the ZooKeeper page warns about: every waiter lists the
// children with a watch on the parent, so every change wakes every waiter and each one lists the
// children again: O(N^2) requests for N waiters instead of O(N).
//
// InterProcessMutex registers no connection listener: the holder is never told that its session
// is gone. A design that cares listens itself (ZkClient::add_listener).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "models/zookeeper/zk_client.h"

namespace oversim::zookeeper {

struct LockNode {
  std::string path;    // our node, "/locks/<key>/_c_<guid>-lock-0000000003"
  uint64_t czxid = 0;  // its creation zxid: grows in the order the lock is granted
  uint64_t session = 0;
};

struct LockStats {
  uint64_t requests = 0;      // every request the recipe sent
  uint64_t get_children = 0;
  uint64_t wakeups = 0;       // watches that fired and sent the waiter back to look
  uint64_t lost_creates_cleaned = 0;  // gave up after a lost create: a background search-and-delete started
  uint64_t lost_creates = 0;          // creates whose answer was lost (connection loss)
  uint64_t nodes_lost = 0;            // our node was gone while we waited: created again, or gave up past the wait
};

class ZkLock {
 public:
  ZkLock(ZkClient& client, std::string lock_path, std::string guid, bool herd = false);

  // Curator's acquire(time): the node once it is the lowest, or nullopt past `deadline` (its node
  // deleted, or gone with its session).
  std::optional<LockNode> acquire(Instant deadline);
  // Delete our node; with the answer lost, retry in the background until the node or its session
  // is gone.
  void release(const LockNode& node);
  const LockStats& stats() const { return stats_; }

 private:
  Result call(const Op& op, Instant deadline, std::shared_ptr<Watch>* watch = nullptr);
  // Steps 1 (with protection) and 2..3 of one attempt. `tried` and `made_parent` carry over
  // from attempt to attempt; `gone` says the node vanished (NoNode), so a new attempt may follow.
  std::optional<LockNode> create_node(Instant deadline, bool& tried, bool& made_parent);
  std::optional<LockNode> wait_lowest(const LockNode& ours, Instant deadline, bool& gone);
  // Our node by its guid; `looked` is false when the children could not be listed.
  std::optional<LockNode> find_ours(Instant deadline, bool& looked);
  // Deletes, in the background while `session` lives, any node of ours a lost create made.
  void delete_protected_in_background(uint64_t session);
  ZkClient& client_;
  std::string lock_path_;
  std::string prefix_;  // "_c_<guid>-lock-"
  bool herd_;
  LockStats stats_;
};

}  // namespace oversim::zookeeper
