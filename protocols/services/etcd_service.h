// The "etcd" service: a cluster etcd-1..etcd-N (--etcd-members, default 3) with etcd-1 leading
// term 1 before the sale, and one clientv3 client per app node. Each application process keeps
// one concurrency.Session (a lease of --lock-ttl, kept alive by its client), opened by its first
// buyer and again after it ends, and serialises its own buyers per lock before they ask etcd (two
// Mutexes of one session on one prefix share a key, so a process must). Designs reach it through
// the etcd recipe steps (protocols/steps.h); models/etcd/ has the model.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "models/etcd/etcd_cluster.h"
#include "models/etcd/etcd_mutex.h"
#include "protocols/services.h"
#include "sim/sync.h"

namespace oversim::protocols {

// One application process's etcd state: its session and its per-lock local mutexes. A restarted
// process gets a new one (the old one stays alive while a dead buyer's stack unwinds through it).
struct EtcdProcess {
  uint64_t generation = 0;  // the client's incarnation it belongs to
  std::optional<etcd::Session> session;
  sim::Mutex opening;  // one buyer opens the session, the others wait for it
  std::map<std::string, std::unique_ptr<sim::Mutex>> local;
  sim::Mutex& local_lock(const std::string& key);
};

class EtcdService : public Service {
 public:
  EtcdService(sim::World& world, const Workload& w);
  static etcd::ClusterConfig config(const Workload& w);
  static ServiceKind kind_entry();

  const std::string& kind() const override;
  void removals(std::vector<LockRemoval>& out) const override;
  std::optional<std::string> takeover() const override;
  void loads(std::vector<NodeLoad>& out) const override;
  bool preload(const std::string& key, const std::string& value) override;
  std::optional<std::string> read(const std::string& key) const override;

  etcd::EtcdCluster& cluster() { return cluster_; }
  const etcd::EtcdCluster& cluster() const { return cluster_; }
  // The process state of an app node now (a new one after a restart).
  std::shared_ptr<EtcdProcess> process(const std::string& app);
  Duration session_ttl() const { return session_ttl_; }

 private:
  etcd::EtcdCluster cluster_;
  Duration session_ttl_;
  std::map<std::string, std::shared_ptr<EtcdProcess>> processes_;
};

// The prefix a lock key's Mutex uses: "lock:stock:sku1" -> "/locks/lock:stock:sku1".
std::string etcd_lock_prefix(const std::string& key);
// The token a lock belief carries and a removal names: the key and its create revision.
std::string etcd_lock_token(const std::string& etcd_key, int64_t create_revision);

}  // namespace oversim::protocols
