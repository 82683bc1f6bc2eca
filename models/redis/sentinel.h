// A Sentinel-like failover detector on its own node; a deployment runs one or several.
//
// Every `period` it sends INFO to each server. When the primary has not answered for
// `down_after` it is subjectively down (SDOWN). With one sentinel that is enough: it promotes at
// once. With several (Sentinel's documented algorithm, scaled like `period`):
//   - it asks every other sentinel whether the primary is down (SENTINEL is-master-down-by-addr);
//     when `quorum` sentinels, itself included, say so, the primary is objectively down (ODOWN);
//   - it then starts a failover in a new epoch and asks the others for their vote; each sentinel
//     gives one vote per epoch, to the first that asks. Only a sentinel with the votes of a
//     majority of all sentinels (and at least `quorum`) may fail over: a minority side of a
//     partition never does. A failover that wins no majority within the election timeout is
//     aborted, and no new one starts before twice `failover_timeout` after it started;
//   - the others learn the new primary from its hello messages, published on every server (the
//     servers' __sentinel__:hello channel) and read with INFO, keeping the configuration with the
//     highest epoch.
// The leader promotes the replica that answered recently with the highest replication offset
// (ties: the lower name, standing in for Redis's run id), then tells every other server it
// reaches, including an old primary that comes back, to replicate from the new one. Until an old
// primary hears that, it is still a primary to whoever reaches it: that is split brain.
//
// Clients ask port "sentinel" for the primary (SENTINEL get-master-addr-by-name): request
// GetPrimary, reply PrimaryAddress. Sentinels ask each other on port "sentinel-peers". Traced kinds:
// "sdown", "odown", "try-failover", "vote-for-leader", "elected-leader", "failover-abort",
// "failover", "sentinel-config-update", "sentinel-reconfigure".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/redis/redis_server.h"
#include "sim/node.h"
#include "sim/sync.h"
#include "sim/time.h"
#include "sim/world.h"

namespace oversim::redis {

struct SentinelOptions {
  Duration period = Duration::ms(100);     // INFO/PING period (real Sentinel: 1s)
  Duration down_after = Duration::s(1);    // down-after-milliseconds (real default: 30s)
  uint32_t quorum = 1;                     // sentinels that must see the primary down (ODOWN)
  uint32_t sentinels = 1;                  // the whole group: a leader needs a majority of it
  Duration failover_timeout = Duration::s(3);    // failover-timeout (real default: 180s)
  Duration election_timeout = Duration::s(1);    // SENTINEL_ELECTION_TIMEOUT (real: 10s)
  Duration max_desync = Duration::ms(100);       // SENTINEL_MAX_DESYNC (real: 1s)
};

struct GetPrimary {};
struct PrimaryAddress {
  std::string primary;
  uint64_t epoch = 0;  // the configuration epoch of that answer, bumped by every failover
  bool down = false;   // the sentinel sees that primary as subjectively down (is_sdown)
};

// Between sentinels, port "sentinel-peers".
struct IsPrimaryDown {
  std::string primary;
  uint64_t epoch = 0;      // the asker's current epoch
  std::string candidate;   // "": only asking ("*"); else the asker asks for its vote
};
struct PrimaryDownReply {
  bool down = false;       // the answerer sees that primary as subjectively down
  std::string leader;      // whom it voted for last, and in which epoch
  uint64_t leader_epoch = 0;
};

class Sentinel {
 public:
  // `peers`: the other sentinels' node names (empty for a lone sentinel).
  Sentinel(sim::World& world, sim::Node& node, std::vector<std::string> servers, std::string primary,
           std::vector<std::string> peers = {}, SentinelOptions options = {});
  Sentinel(const Sentinel&) = delete;
  Sentinel& operator=(const Sentinel&) = delete;

  sim::Node& node() const { return node_; }
  const std::string& current_primary() const { return primary_; }
  uint64_t epoch() const { return config_epoch_; }  // of the primary it names
  uint64_t current_epoch() const { return current_epoch_; }
  uint64_t promotions() const { return promotions_; }  // failovers this sentinel carried out
  const SentinelOptions& options() const { return options_; }
  // Votes a leader needs: a majority of the group, and never fewer than the quorum.
  uint32_t votes_needed() const;

 private:
  struct Observation {
    Instant last_reply_local;  // sentinel's clock at the last INFO reply
    ServerInfo info;
    bool answered = false;     // at least one reply since the sentinel booted
  };
  struct PeerView {
    Instant last_reply_local;
    PrimaryDownReply reply;
    bool answered = false;
  };

  void boot();
  void monitor(const std::string& server);
  void ask_peer(const std::string& peer);
  void hello_loop();
  void adopt(const std::string& primary, uint64_t config_epoch, const std::string& from);
  void decide_loop();
  void serve_clients();
  void serve_peers();
  bool fresh(const Observation& o) const;
  bool objectively_down() const;
  void start_failover();
  void election_step();
  bool promote(uint64_t epoch);
  void vote(uint64_t epoch, const std::string& candidate);
  void reconfigure();

  sim::World& world_;
  sim::Node& node_;
  std::vector<std::string> servers_;
  std::vector<std::string> peers_;
  SentinelOptions options_;
  // Persistent, like sentinel.conf: the sentinel rewrites it at every change.
  std::string primary_;
  uint64_t config_epoch_ = 0;
  uint64_t current_epoch_ = 0;
  std::string voted_for_;
  uint64_t voted_epoch_ = 0;
  uint64_t promotions_ = 0;
  // Volatile.
  std::map<std::string, Observation> seen_;
  std::map<std::string, PeerView> peer_views_;
  std::map<std::string, Instant> mismatch_since_local_;  // servers whose role disagrees with primary_
  std::optional<Instant> primary_replica_since_local_;   // our primary has reported itself a replica since
  bool primary_down_ = false;
  bool odown_ = false;
  bool failover_in_progress_ = false;
  uint64_t failover_epoch_ = 0;
  Instant failover_start_local_;
  Instant no_failover_before_local_;
  sim::WaitQueue asks_;  // the askers wait here: a failover that starts wakes them
};

}  // namespace oversim::redis
