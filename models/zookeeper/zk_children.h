// The children of a znode as an immutable, shared sorted set: a persistent treap (each insert or
// erase copies O(log N) nodes and leaves every earlier copy intact), so a getChildren answer is
// a snapshot that costs O(1) to take and to send, however many children there are.
//
// Why: the lock recipe lists the children on every look (Curator's getSortedChildren), so N
// waiters under one lock ask for N names each, and each release sends the next waiter back to
// look again. Copying the list into every answer made a sale of 10,000 buyers quadratic in
// time and in memory (4,000 buyers: 300 s and 2.3 GB per run) for no difference in behaviour:
// the recipe only needs to know whether its node is the lowest and which node is just below it.
//
// Order: by the recipe's sequence number (the "-lock-0000000042" suffix, sequence_of), then by
// name. That is exactly the order Curator's sort gives (a stable sort by sequence of the
// name-ordered list); names without a sequence come first, by name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace oversim::zookeeper {

// The sequence number of a recipe node's name ("..-lock-0000000003" -> 3); -1 if it has none.
int64_t sequence_of(const std::string& name);

class ChildSet {
 public:
  bool empty() const { return root_ == nullptr; }
  size_t size() const;
  bool contains(const std::string& name) const;
  // False when `name` was there already (the set is unchanged).
  bool insert(const std::string& name);
  // False when `name` was not there.
  bool erase(const std::string& name);
  // The child just below `name` in the order above; nullopt when `name` is the lowest. `name`
  // need not be a child.
  std::optional<std::string> below(const std::string& name) const;
  // In order; `visit` returns false to stop.
  void for_each(const std::function<bool(const std::string&)>& visit) const;
  std::vector<std::string> names() const;

  friend bool operator==(const ChildSet& a, const ChildSet& b) { return a.names() == b.names(); }

 // The order's key of a name (public for the helpers in the source file).
  struct Key {
    int64_t seq;
    const std::string* name;
  };

 private:
  struct Node;
  using Ptr = std::shared_ptr<const Node>;
  static Ptr make(const Node& like, Ptr left, Ptr right);
  static Ptr insert(const Ptr& t, const Ptr& n);
  static std::pair<Ptr, Ptr> split(const Ptr& t, const Node& key);
  static Ptr merge(const Ptr& a, const Ptr& b);
  static Ptr erase(const Ptr& t, const Key& key);
  Ptr root_;
};

}  // namespace oversim::zookeeper
