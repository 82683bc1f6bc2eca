#include "models/zookeeper/zk_lock.h"

#include <algorithm>

namespace oversim::zookeeper {

ZkLock::ZkLock(ZkClient& client, std::string lock_path, std::string guid, bool herd)
    : client_(client), lock_path_(std::move(lock_path)), prefix_("_c_" + guid + "-lock-"), herd_(herd) {}

Result ZkLock::call(const Op& op, Instant deadline, std::shared_ptr<Watch>* watch) {
  ++stats_.requests;
  if (op.type == OpType::get_children) ++stats_.get_children;
  return client_.call(op, deadline, watch);
}

std::optional<LockNode> ZkLock::find_ours(Instant deadline, bool& looked) {
  // Protection: the create's answer was lost; the node it may have made carries our guid.
  looked = false;
  Result r = call(Op::get_children(lock_path_), deadline);
  // No parent, no node of ours: Curator's findProtectedNodeInForeground ignores NoNode and
  // creates again (the create then makes the parent). Taken for a failed look, it listed the
  // missing parent until the lock's wait ran out, and never created again.
  if (r.code == Code::no_node) {
    looked = true;
    return std::nullopt;
  }
  if (!r.ok()) return std::nullopt;
  looked = true;
  for (const std::string& child : r.children.names()) {
    if (child.rfind(prefix_, 0) != 0) continue;
    const std::string path = lock_path_ + "/" + child;
    Result e = call(Op::exists(path), deadline);
    if (e.ok()) return LockNode{path, e.stat.czxid, e.stat.ephemeral_owner};
  }
  return std::nullopt;
}

std::optional<LockNode> ZkLock::acquire(Instant deadline) {
  // Curator's attemptLock: create the node, then wait in internalLockLoop; when the node turns
  // out to be gone (NoNode), create a new one and wait again, as its retry policy allows (here:
  // until the lock's wait has run out).
  bool tried = false;
  bool made_parent = false;
  for (;;) {
    std::optional<LockNode> ours = create_node(deadline, tried, made_parent);
    if (!ours) return std::nullopt;
    bool gone = false;
    std::optional<LockNode> held = wait_lowest(*ours, deadline, gone);
    if (held || !gone) return held;
    // Nothing of ours is left to delete: the node went with its session, or the server lost it.
    ++stats_.nodes_lost;
    if (client_.app().world().now() >= deadline) return std::nullopt;
  }
}

std::optional<LockNode> ZkLock::create_node(Instant deadline, bool& tried, bool& made_parent) {
  sim::World& world = client_.app().world();
  // Curator bounds each request by the client's own timeouts, not by the lock's wait: the wait
  // is looked at only once a watch is set (LockInternals.internalLockLoop), so acquire(0) still
  // creates its node and takes the lock when it is the lowest.
  auto by = [&] { return world.now() + Duration::ms(client_.session_timeout_ms()); };
  std::optional<LockNode> ours;
  bool maybe_made = false;  // a create's answer was lost: it may yet commit
  uint64_t created_in = 0;  // the session of a create whose answer was lost
  while (!ours) {
    // Curator's retry policy bounds the retries of the create; here the lock's wait does.
    if (tried && world.now() >= deadline) {
      // A create whose answer was lost may have made our node, or make it yet: left there it
      // would sit below every later waiter for as long as the session lives. Curator's protected
      // mode finds and deletes it in the background (FindAndDeleteProtectedNodeInBackground).
      if (maybe_made && created_in != 0) delete_protected_in_background(created_in);
      return std::nullopt;
    }
    tried = true;
    if (maybe_made) {
      // Curator's protected mode looks before every retry of the create, not only after the
      // first loss: a create logged before a leader change commits when the new leader does.
      bool looked = false;
      ours = find_ours(by(), looked);
      if (ours) break;
      if (!looked) continue;  // could not list the children: look again
    }
    Result r = call(Op::create(lock_path_ + "/" + prefix_, "", true, true), by());
    if (r.ok()) {
      ours = LockNode{r.path, r.stat.czxid, r.stat.ephemeral_owner};
    } else if (r.code == Code::no_node) {
      call(Op::create(lock_path_, "", false, false), by());  // NODEEXISTS from a racing client is fine
      // Curator makes the parent and then the node within the one attempt
      // (creatingParentContainersIfNeeded): the first parent does not use up the first try.
      if (!made_parent) tried = false;
      made_parent = true;
    } else if (r.code == Code::connection_loss) {
      ++stats_.lost_creates;
      created_in = client_.session();  // 0 while the client has no session: nothing it made can live
      maybe_made = true;
    }
    // not_serving, session_expired: the next call waits for a connection (a new session).
  }
  return ours;
}

std::optional<LockNode> ZkLock::wait_lowest(const LockNode& ours, Instant deadline, bool& gone) {
  sim::World& world = client_.app().world();
  auto by = [&] { return world.now() + Duration::ms(client_.session_timeout_ms()); };
  gone = false;
  const std::string name = name_of(ours.path);
  for (;;) {
    // Our node lives only as long as the session that made it: with the session gone, Curator's
    // next look (on the new session) misses it, NoNode.
    if (client_.session() != ours.session) {
      gone = true;
      return std::nullopt;
    }
    std::shared_ptr<Watch> watch;
    Result r = call(Op::get_children(lock_path_, herd_), by(), herd_ ? &watch : nullptr);
    if (r.code == Code::session_expired) {
      gone = true;
      return std::nullopt;
    }
    // getSortedChildren answers NoNode with no children, and then our node is not among them.
    if (r.code == Code::no_node) {
      gone = true;
      return std::nullopt;
    }
    if (!r.ok()) {
      if (world.now() >= deadline) {
        release(ours);
        return std::nullopt;
      }
      continue;
    }
    // Curator sorts the children by sequence and finds its node's index: the answer is in that
    // order already, so look our node and the one just below it up. Not among them: NoNode
    // (StandardLockInternalsDriver.validateOurIndex), and attemptLock creates a new node.
    if (!r.children.contains(name)) {
      gone = true;
      return std::nullopt;
    }
    const std::optional<std::string> below = r.children.below(name);
    if (!below) return ours;
    if (!herd_) {
      Result d = call(Op::get_data(lock_path_ + "/" + *below, true), by(), &watch);
      if (d.code == Code::no_node) continue;  // the predecessor went meanwhile: look again
      if (!d.ok()) watch = nullptr;
    }
    // The watch is set (or could not be): only now does the recipe ask whether it may wait.
    if (world.now() >= deadline) {
      release(ours);
      return std::nullopt;
    }
    if (watch == nullptr) continue;
    // A wait that runs out goes back to look once more (Curator's loop), and gives up above
    // unless the node has become the lowest meanwhile.
    if (watch->fired.wait_until(deadline, "zk lock waits for its watch")) ++stats_.wakeups;
  }
}

void ZkLock::release(const LockNode& node) {
  if (client_.session() != node.session) return;  // the node is gone, or goes, with its session
  sim::World& world = client_.app().world();
  ++stats_.requests;
  Result r = client_.call(Op::remove(node.path), world.now() + Duration::ms(client_.session_timeout_ms()));
  if (r.ok() || r.code == Code::no_node || r.code == Code::session_expired) return;
  // Curator's guaranteed delete: keep trying in the background while the session lives.
  ZkClient& client = client_;
  world.spawn(&client.app(), client.app().name() + "/zk-guaranteed-delete", [&client, &world, node] {
    while (client.session() == node.session) {
      Result again = client.call(Op::remove(node.path), world.now() + Duration::ms(client.session_timeout_ms()));
      if (again.ok() || again.code == Code::no_node || again.code == Code::session_expired) return;
    }
  }, true);
}

void ZkLock::delete_protected_in_background(uint64_t session) {
  ++stats_.lost_creates_cleaned;
  ZkClient& client = client_;
  sim::World& world = client.app().world();
  const std::string lock_path = lock_path_, prefix = prefix_;
  world.spawn(&client.app(), client.app().name() + "/zk-delete-protected", [&client, &world, session, lock_path, prefix] {
    // Like Curator, it looks once the children can be listed and deletes what it finds. On the
    // same connection the look comes after the create (FIFO client order); after a reconnect to
    // another server, a create still on its way from the old one can commit after the look, and
    // Curator has the same race.
    while (client.session() == session) {
      Result r = client.call(Op::get_children(lock_path), world.now() + Duration::ms(client.session_timeout_ms()));
      if (r.code == Code::session_expired || r.code == Code::no_node) return;  // no parent: nothing of ours
      if (!r.ok()) continue;
      bool all_gone = true;
      for (const std::string& child : r.children.names()) {
        if (child.rfind(prefix, 0) != 0) continue;
        Result d = client.call(Op::remove(lock_path + "/" + child), world.now() + Duration::ms(client.session_timeout_ms()));
        all_gone &= d.ok() || d.code == Code::no_node || d.code == Code::session_expired;
      }
      if (all_gone) return;
    }
  }, true);
}

}  // namespace oversim::zookeeper
