// ZooKeeper's replicated state as a pure state machine: the data tree (znodes with versions,
// czxid/mzxid/pzxid, ephemeral owners, sequential names) and the session table, changed only by
// transactions applied in zxid order. Every server of an ensemble applies the same transactions
// in the same order and so holds the same tree; reads are served from a server's own copy, which
// may lag the leader's.
//
// A transaction is validated when it is applied, not when it is proposed (ZooKeeper's
// PrepRequestProcessor checks first, against the leader's outstanding changes): the outcome is
// the same, since every replica applies the same log in the same order, and a failed write is
// still a transaction that uses up its zxid, as ZooKeeper's error transactions do.
//
// Sequential names take the parent's cversion (creates and deletes of its children), 10 digits.
//
// Applying a transaction also says which watches it triggers (ZooKeeper's WatchManager): a
// create fires the path's data watches (NodeCreated) and the parent's child watches; a delete
// fires the path's data and child watches (NodeDeleted) and the parent's child watches; setData
// fires the path's data watches. The servers keep the watch tables; this state only names the
// events.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "models/zookeeper/zk_children.h"

namespace oversim::zookeeper {

// zxid = epoch << 32 | counter, as ZooKeeper lays it out.
inline uint64_t make_zxid(uint32_t epoch, uint32_t counter) { return (static_cast<uint64_t>(epoch) << 32) | counter; }
inline uint32_t epoch_of(uint64_t zxid) { return static_cast<uint32_t>(zxid >> 32); }
std::string format_zxid(uint64_t zxid);  // "0x200000003"

enum class Code : uint8_t {
  ok,
  no_node,
  node_exists,
  bad_version,
  not_empty,
  no_children_for_ephemerals,
  session_expired,
  connection_loss,  // the client's: no answer (ambiguous for a write)
  not_serving,      // the server is not part of a working quorum: the connection is refused
};
const char* to_string(Code c);

enum class OpType : uint8_t { create, remove, set_data, get_data, exists, get_children, sync, create_session, close_session };
const char* to_string(OpType t);

struct Op {
  OpType type = OpType::get_data;
  std::string path;
  std::string data;
  bool ephemeral = false;
  bool sequential = false;
  int32_t version = -1;  // remove/set_data: -1 matches any version
  bool watch = false;    // reads: leave a watch
  int64_t timeout_ms = 0;  // create_session: the negotiated timeout

  static Op create(std::string path, std::string data, bool ephemeral, bool sequential);
  static Op remove(std::string path, int32_t version = -1);
  static Op set_data(std::string path, std::string data, int32_t version = -1);
  static Op get_data(std::string path, bool watch = false);
  static Op exists(std::string path, bool watch = false);
  static Op get_children(std::string path, bool watch = false);
  static Op sync(std::string path);
  bool is_write() const;
};
std::string to_string(const Op& op);

struct Stat {
  uint64_t czxid = 0;
  uint64_t mzxid = 0;
  uint64_t pzxid = 0;
  int32_t version = 0;
  int32_t cversion = 0;
  uint64_t ephemeral_owner = 0;
  int32_t num_children = 0;
};

struct Result {
  Result() = default;
  explicit Result(Code c) : code(c) {}
  Code code = Code::ok;
  std::string path;   // create: the name made (with the sequence number)
  std::string data;   // get_data
  Stat stat;          // get_data, exists, create (the new node's)
  ChildSet children;  // get_children: a snapshot of the child names (see zk_children.h for the order)
  uint64_t session = 0;               // create_session: the new session's id
  bool ok() const { return code == Code::ok; }
};
std::string to_string(const Result& r);

struct Txn {
  uint64_t zxid = 0;
  uint64_t session = 0;  // the client session it is for (0: the ensemble's own)
  Op op;
};

enum class WatchKind : uint8_t { data, child };
enum class EventType : uint8_t { created, deleted, data_changed, children_changed };
const char* to_string(EventType e);

struct Trigger {
  std::string path;
  WatchKind kind;
  EventType event;
};

struct Applied {
  Result result;
  std::vector<Trigger> triggers;
  std::vector<std::string> deleted_ephemerals;  // close_session: the nodes it removed
};

struct Znode {
  std::string data;
  Stat stat;
  ChildSet children;  // names
};

class ZkState {
 public:
  ZkState();  // the root "/" only

  // Applies `txn` (zxid strictly above the last applied one).
  Applied apply(const Txn& txn);
  // A read, from this copy. Throws std::logic_error for a write.
  Result read(const Op& op) const;

  uint64_t last_zxid() const { return last_zxid_; }
  const std::map<std::string, Znode>& nodes() const { return nodes_; }
  const Znode* find(const std::string& path) const;
  // Sessions the tree knows: id -> negotiated timeout (ms).
  const std::map<uint64_t, int64_t>& sessions() const { return sessions_; }
  bool has_session(uint64_t id) const { return sessions_.count(id) != 0; }
  // A session that exists from the start (an app that connected before the sale).
  void add_session(uint64_t id, int64_t timeout_ms) { sessions_[id] = timeout_ms; }

  friend bool operator==(const ZkState&, const ZkState&);

 private:
  Result create(const Txn& txn, std::vector<Trigger>& triggers);
  Result remove(const std::string& path, int32_t version, uint64_t zxid, std::vector<Trigger>& triggers);
  std::map<std::string, Znode> nodes_;
  std::map<uint64_t, int64_t> sessions_;
  std::map<uint64_t, std::set<std::string>> ephemerals_;
  uint64_t last_zxid_ = 0;
};

bool operator==(const Stat& a, const Stat& b);
bool operator==(const Znode& a, const Znode& b);

// "/locks/a/b" -> "/locks/a"; "/x" -> "/".
std::string parent_of(const std::string& path);
// "/locks/a/b" -> "b".
std::string name_of(const std::string& path);

}  // namespace oversim::zookeeper
