#include "models/zookeeper/zk_children.h"

#include <algorithm>

namespace oversim::zookeeper {

int64_t sequence_of(const std::string& name) {
  const size_t at = name.rfind("-lock-");
  if (at == std::string::npos) return -1;
  const size_t first = at + 6;
  const size_t digits = name.size() - first;
  if (digits == 0 || digits > 10) return -1;
  int64_t n = 0;
  for (size_t i = first; i < name.size(); ++i) {
    const char c = name[i];
    if (c < '0' || c > '9') return -1;
    n = n * 10 + (c - '0');  // at most 10 digits: no overflow
  }
  return n;
}

struct ChildSet::Node {
  int64_t seq = -1;
  std::shared_ptr<const std::string> name;
  uint64_t priority = 0;  // a hash of the name: the same tree for the same names, on every build
  size_t size = 1;
  Ptr left;
  Ptr right;
};

namespace {

uint64_t priority_of(const std::string& name) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a, then splitmix64's finalizer
  for (const char c : name) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  h ^= h >> 31;
  return h;
}

// The order, between nodes and keys alike (both have a seq and a name to dereference).
template <class A, class B>
bool before(const A& a, const B& b) {
  if (a.seq != b.seq) return a.seq < b.seq;
  return *a.name < *b.name;
}

ChildSet::Key key_of(const std::string& name) { return ChildSet::Key{sequence_of(name), &name}; }

}  // namespace

size_t ChildSet::size() const { return root_ ? root_->size : 0; }

ChildSet::Ptr ChildSet::make(const Node& like, Ptr left, Ptr right) {
  auto n = std::make_shared<Node>();
  n->seq = like.seq;
  n->name = like.name;
  n->priority = like.priority;
  n->size = 1 + (left ? left->size : 0) + (right ? right->size : 0);
  n->left = std::move(left);
  n->right = std::move(right);
  return n;
}

std::pair<ChildSet::Ptr, ChildSet::Ptr> ChildSet::split(const Ptr& t, const Node& key) {
  if (!t) return {nullptr, nullptr};
  if (before(*t, key)) {
    auto [l, r] = split(t->right, key);
    return {make(*t, t->left, std::move(l)), std::move(r)};
  }
  auto [l, r] = split(t->left, key);
  return {std::move(l), make(*t, std::move(r), t->right)};
}

ChildSet::Ptr ChildSet::insert(const Ptr& t, const Ptr& n) {
  if (!t) return n;
  if (n->priority > t->priority) {
    auto [l, r] = split(t, *n);
    return make(*n, std::move(l), std::move(r));
  }
  if (before(*n, *t)) return make(*t, insert(t->left, n), t->right);
  return make(*t, t->left, insert(t->right, n));
}

ChildSet::Ptr ChildSet::merge(const Ptr& a, const Ptr& b) {
  if (!a) return b;
  if (!b) return a;
  if (a->priority > b->priority) return make(*a, a->left, merge(a->right, b));
  return make(*b, merge(a, b->left), b->right);
}

ChildSet::Ptr ChildSet::erase(const Ptr& t, const Key& key) {
  // Called only for a key that is present.
  if (before(key, *t)) return make(*t, erase(t->left, key), t->right);
  if (before(*t, key)) return make(*t, t->left, erase(t->right, key));
  return merge(t->left, t->right);
}

bool ChildSet::contains(const std::string& name) const {
  const Key k = key_of(name);
  const Node* t = root_.get();
  while (t != nullptr) {
    if (before(k, *t)) {
      t = t->left.get();
    } else if (before(*t, k)) {
      t = t->right.get();
    } else {
      return true;
    }
  }
  return false;
}

bool ChildSet::insert(const std::string& name) {
  if (contains(name)) return false;
  auto n = std::make_shared<Node>();
  n->seq = sequence_of(name);
  n->name = std::make_shared<const std::string>(name);
  n->priority = priority_of(name);
  root_ = insert(root_, n);
  return true;
}

bool ChildSet::erase(const std::string& name) {
  if (!contains(name)) return false;
  root_ = erase(root_, key_of(name));
  return true;
}

std::optional<std::string> ChildSet::below(const std::string& name) const {
  const Key k = key_of(name);
  const Node* best = nullptr;
  const Node* t = root_.get();
  while (t != nullptr) {
    if (before(*t, k)) {
      best = t;
      t = t->right.get();
    } else {
      t = t->left.get();
    }
  }
  if (best == nullptr) return std::nullopt;
  return *best->name;
}

void ChildSet::for_each(const std::function<bool(const std::string&)>& visit) const {
  // In order, with an explicit stack: no recursion however the tree is shaped.
  std::vector<const Node*> stack;
  const Node* t = root_.get();
  while (t != nullptr || !stack.empty()) {
    while (t != nullptr) {
      stack.push_back(t);
      t = t->left.get();
    }
    t = stack.back();
    stack.pop_back();
    if (!visit(*t->name)) return;
    t = t->right.get();
  }
}

std::vector<std::string> ChildSet::names() const {
  std::vector<std::string> out;
  out.reserve(size());
  for_each([&out](const std::string& n) {
    out.push_back(n);
    return true;
  });
  return out;
}

}  // namespace oversim::zookeeper
