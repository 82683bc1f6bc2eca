#include "models/zookeeper/zk_state.h"

#include <fmt/format.h>

#include <stdexcept>

namespace oversim::zookeeper {

std::string format_zxid(uint64_t zxid) { return fmt::format("0x{:x}", zxid); }

const char* to_string(Code c) {
  switch (c) {
    case Code::ok: return "OK";
    case Code::no_node: return "NONODE";
    case Code::node_exists: return "NODEEXISTS";
    case Code::bad_version: return "BADVERSION";
    case Code::not_empty: return "NOTEMPTY";
    case Code::no_children_for_ephemerals: return "NOCHILDRENFOREPHEMERALS";
    case Code::session_expired: return "SESSIONEXPIRED";
    case Code::connection_loss: return "CONNECTIONLOSS";
    case Code::not_serving: return "NOTSERVING";
  }
  return "?";
}

const char* to_string(OpType t) {
  switch (t) {
    case OpType::create: return "create";
    case OpType::remove: return "delete";
    case OpType::set_data: return "setData";
    case OpType::get_data: return "getData";
    case OpType::exists: return "exists";
    case OpType::get_children: return "getChildren";
    case OpType::sync: return "sync";
    case OpType::create_session: return "createSession";
    case OpType::close_session: return "closeSession";
  }
  return "?";
}

const char* to_string(EventType e) {
  switch (e) {
    case EventType::created: return "NodeCreated";
    case EventType::deleted: return "NodeDeleted";
    case EventType::data_changed: return "NodeDataChanged";
    case EventType::children_changed: return "NodeChildrenChanged";
  }
  return "?";
}

Op Op::create(std::string path, std::string data, bool ephemeral, bool sequential) {
  Op o;
  o.type = OpType::create;
  o.path = std::move(path);
  o.data = std::move(data);
  o.ephemeral = ephemeral;
  o.sequential = sequential;
  return o;
}
Op Op::remove(std::string path, int32_t version) {
  Op o;
  o.type = OpType::remove;
  o.path = std::move(path);
  o.version = version;
  return o;
}
Op Op::set_data(std::string path, std::string data, int32_t version) {
  Op o;
  o.type = OpType::set_data;
  o.path = std::move(path);
  o.data = std::move(data);
  o.version = version;
  return o;
}
Op Op::get_data(std::string path, bool watch) {
  Op o;
  o.type = OpType::get_data;
  o.path = std::move(path);
  o.watch = watch;
  return o;
}
Op Op::exists(std::string path, bool watch) {
  Op o;
  o.type = OpType::exists;
  o.path = std::move(path);
  o.watch = watch;
  return o;
}
Op Op::get_children(std::string path, bool watch) {
  Op o;
  o.type = OpType::get_children;
  o.path = std::move(path);
  o.watch = watch;
  return o;
}
Op Op::sync(std::string path) {
  Op o;
  o.type = OpType::sync;
  o.path = std::move(path);
  return o;
}

bool Op::is_write() const {
  switch (type) {
    case OpType::create:
    case OpType::remove:
    case OpType::set_data:
    case OpType::sync:  // goes through the leader's pipeline, changes nothing
    case OpType::create_session:
    case OpType::close_session: return true;
    default: return false;
  }
}

std::string to_string(const Op& op) {
  switch (op.type) {
    case OpType::create:
      return fmt::format("create {}{}", op.path,
                         op.ephemeral && op.sequential ? " EPHEMERAL_SEQUENTIAL" : op.ephemeral ? " EPHEMERAL" : op.sequential ? " PERSISTENT_SEQUENTIAL" : "");
    case OpType::remove: return op.version < 0 ? fmt::format("delete {}", op.path) : fmt::format("delete {} v{}", op.path, op.version);
    case OpType::set_data: return fmt::format("setData {} '{}'", op.path, op.data);
    case OpType::get_data:
    case OpType::exists:
    case OpType::get_children: return fmt::format("{} {}{}", to_string(op.type), op.path, op.watch ? " watch" : "");
    case OpType::sync: return fmt::format("sync {}", op.path);
    case OpType::create_session: return fmt::format("createSession timeout={}ms", op.timeout_ms);
    case OpType::close_session: return "closeSession";
  }
  return "?";
}

std::string to_string(const Result& r) {
  if (!r.ok()) return to_string(r.code);
  if (!r.path.empty()) return fmt::format("OK {} czxid={}", r.path, format_zxid(r.stat.czxid));
  if (r.session != 0) return fmt::format("OK session 0x{:x}", r.session);
  if (!r.children.empty()) {
    std::string out = "OK [";
    size_t shown = 0;
    r.children.for_each([&](const std::string& name) {
      if (shown == 4) {
        out += fmt::format(", ... {} in all", r.children.size());
        return false;
      }
      out += (shown == 0 ? "" : ", ") + name;
      ++shown;
      return true;
    });
    return out + "]";
  }
  return "OK";
}

std::string parent_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == 0 || slash == std::string::npos) return "/";
  return path.substr(0, slash);
}

std::string name_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool operator==(const Stat& a, const Stat& b) {
  return a.czxid == b.czxid && a.mzxid == b.mzxid && a.pzxid == b.pzxid && a.version == b.version && a.cversion == b.cversion &&
         a.ephemeral_owner == b.ephemeral_owner && a.num_children == b.num_children;
}
bool operator==(const Znode& a, const Znode& b) {
  return a.data == b.data && a.stat == b.stat && a.children == b.children;
}
bool operator==(const ZkState& a, const ZkState& b) {
  return a.nodes_ == b.nodes_ && a.sessions_ == b.sessions_ && a.ephemerals_ == b.ephemerals_ && a.last_zxid_ == b.last_zxid_;
}

ZkState::ZkState() { nodes_.emplace("/", Znode{}); }

const Znode* ZkState::find(const std::string& path) const {
  auto it = nodes_.find(path);
  return it == nodes_.end() ? nullptr : &it->second;
}

Result ZkState::create(const Txn& txn, std::vector<Trigger>& triggers) {
  const Op& op = txn.op;
  Result r;
  const std::string parent = parent_of(op.path);
  auto p = nodes_.find(parent);
  if (p == nodes_.end()) return Result{Code::no_node};
  if (p->second.stat.ephemeral_owner != 0) return Result{Code::no_children_for_ephemerals};
  std::string path = op.path;
  // The sequence number is the parent's cversion, 10 digits (PrepRequestProcessor): deletes
  // count too, so the numbers have gaps, but they only grow under one parent.
  if (op.sequential) path += fmt::format("{:010d}", p->second.stat.cversion);
  if (nodes_.count(path) != 0) return Result{Code::node_exists};
  if (op.ephemeral && !has_session(txn.session)) return Result{Code::session_expired};
  Znode n;
  n.data = op.data;
  n.stat.czxid = n.stat.mzxid = n.stat.pzxid = txn.zxid;
  n.stat.ephemeral_owner = op.ephemeral ? txn.session : 0;
  Znode& parent_node = p->second;
  parent_node.children.insert(name_of(path));
  ++parent_node.stat.cversion;
  parent_node.stat.pzxid = txn.zxid;
  parent_node.stat.num_children = static_cast<int32_t>(parent_node.children.size());
  if (op.ephemeral) ephemerals_[txn.session].insert(path);
  r.stat = n.stat;
  nodes_.emplace(path, std::move(n));
  r.path = path;
  triggers.push_back({path, WatchKind::data, EventType::created});
  triggers.push_back({parent, WatchKind::child, EventType::children_changed});
  return r;
}

Result ZkState::remove(const std::string& path, int32_t version, uint64_t zxid, std::vector<Trigger>& triggers) {
  auto it = nodes_.find(path);
  if (it == nodes_.end() || path == "/") return Result{Code::no_node};
  if (version >= 0 && it->second.stat.version != version) return Result{Code::bad_version};
  if (!it->second.children.empty()) return Result{Code::not_empty};
  const uint64_t owner = it->second.stat.ephemeral_owner;
  if (owner != 0) {
    auto e = ephemerals_.find(owner);
    if (e != ephemerals_.end()) {
      e->second.erase(path);
      if (e->second.empty()) ephemerals_.erase(e);
    }
  }
  nodes_.erase(it);
  const std::string parent = parent_of(path);
  Znode& p = nodes_.at(parent);
  p.children.erase(name_of(path));
  ++p.stat.cversion;
  p.stat.pzxid = zxid;
  p.stat.num_children = static_cast<int32_t>(p.children.size());
  triggers.push_back({path, WatchKind::data, EventType::deleted});
  triggers.push_back({path, WatchKind::child, EventType::deleted});
  triggers.push_back({parent, WatchKind::child, EventType::children_changed});
  return Result{};
}

Applied ZkState::apply(const Txn& txn) {
  if (txn.zxid <= last_zxid_) throw std::logic_error(fmt::format("zxid {} applied after {}", format_zxid(txn.zxid), format_zxid(last_zxid_)));
  last_zxid_ = txn.zxid;
  Applied a;
  const Op& op = txn.op;
  switch (op.type) {
    case OpType::create: a.result = create(txn, a.triggers); break;
    case OpType::remove: a.result = remove(op.path, op.version, txn.zxid, a.triggers); break;
    case OpType::set_data: {
      auto it = nodes_.find(op.path);
      if (it == nodes_.end()) {
        a.result = Result{Code::no_node};
      } else if (op.version >= 0 && it->second.stat.version != op.version) {
        a.result = Result{Code::bad_version};
      } else {
        it->second.data = op.data;
        ++it->second.stat.version;
        it->second.stat.mzxid = txn.zxid;
        a.result.stat = it->second.stat;
        a.triggers.push_back({op.path, WatchKind::data, EventType::data_changed});
      }
      break;
    }
    case OpType::sync: break;
    case OpType::create_session:
      // The session's id is the zxid of the transaction that made it: unique, and the same on
      // every replica.
      sessions_[txn.zxid] = op.timeout_ms;
      a.result.session = txn.zxid;
      break;
    case OpType::close_session: {
      auto e = ephemerals_.find(txn.session);
      if (e != ephemerals_.end()) {
        const std::set<std::string> paths = e->second;
        for (const std::string& path : paths) {
          remove(path, -1, txn.zxid, a.triggers);
          a.deleted_ephemerals.push_back(path);
        }
      }
      sessions_.erase(txn.session);
      break;
    }
    default: throw std::logic_error(fmt::format("{} is not a transaction", to_string(op.type)));
  }
  return a;
}

Result ZkState::read(const Op& op) const {
  Result r;
  const Znode* n = find(op.path);
  switch (op.type) {
    case OpType::get_data:
      if (n == nullptr) return Result{Code::no_node};
      r.data = n->data;
      r.stat = n->stat;
      return r;
    case OpType::exists:
      if (n == nullptr) return Result{Code::no_node};
      r.stat = n->stat;
      return r;
    case OpType::get_children:
      if (n == nullptr) return Result{Code::no_node};
      r.children = n->children;  // a snapshot: O(1), later changes leave it alone
      r.stat = n->stat;
      return r;
    default: throw std::logic_error(fmt::format("{} is not a read", to_string(op.type)));
  }
}

}  // namespace oversim::zookeeper
