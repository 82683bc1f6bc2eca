#include "models/redis/sentinel.h"

#include <fmt/format.h>

#include <algorithm>
#include <any>
#include <optional>
#include <utility>

#include "sim/network.h"
#include "sim/sync.h"

namespace oversim::redis {

Sentinel::Sentinel(sim::World& world, sim::Node& node, std::vector<std::string> servers, std::string primary,
                   std::vector<std::string> peers, SentinelOptions options)
    : world_(world),
      node_(node),
      servers_(std::move(servers)),
      peers_(std::move(peers)),
      options_(options),
      primary_(std::move(primary)) {
  if (options_.sentinels != peers_.size() + 1) {
    throw sim::SimError(fmt::format("{}: a group of {} sentinels, but {} peers", node_.name(), options_.sentinels, peers_.size()));
  }
  if (options_.quorum < 1 || options_.quorum > options_.sentinels) {
    throw sim::SimError(fmt::format("{}: quorum {} of {} sentinels", node_.name(), options_.quorum, options_.sentinels));
  }
  node_.set_boot([this](sim::Node&) { boot(); });
}

uint32_t Sentinel::votes_needed() const { return std::max(options_.quorum, options_.sentinels / 2 + 1); }

void Sentinel::boot() {
  // Every server starts as "last heard now", so a fresh sentinel gives each down_after to answer.
  seen_.clear();
  for (const std::string& server : servers_) seen_[server] = Observation{node_.local_now(), {}, false};
  peer_views_.clear();
  mismatch_since_local_.clear();
  primary_down_ = false;
  odown_ = false;
  failover_in_progress_ = false;
  no_failover_before_local_ = node_.local_now();
  for (const std::string& server : servers_) {
    world_.spawn(&node_, "sentinel/monitor-" + server, [this, server] { monitor(server); }, true);
  }
  world_.spawn(&node_, "sentinel/decide", [this] { decide_loop(); }, true);
  world_.spawn(&node_, "sentinel/clients", [this] { serve_clients(); }, true);
  if (peers_.empty()) return;  // a lone sentinel is its own quorum and its own leader
  world_.spawn(&node_, "sentinel/peers", [this] { serve_peers(); }, true);
  for (const std::string& peer : peers_) {
    world_.spawn(&node_, "sentinel/ask-" + peer, [this, peer] { ask_peer(peer); }, true);
  }
  world_.spawn(&node_, "sentinel/hello", [this] { hello_loop(); }, true);
}

void Sentinel::monitor(const std::string& server) {
  // Each monitor writes only its own server's observation (decide reads them all).
  // In a group a monitor also reads the hellos published on its server, which may change the
  // sentinel's whole configuration: it is no actor of its own then.
  const auto index = static_cast<uint32_t>(std::find(servers_.begin(), servers_.end(), server) - servers_.begin());
  if (peers_.empty()) world_.declare_actor(index + 1);
  sim::Node& target = world_.node(server);
  for (;;) {
    sim::RpcResult<ServerInfo> r =
        world_.network().call_as<ServerInfo>(node_, target, "redis", InfoCommand{}, "INFO replication", options_.period);
    if (r.ok()) {
      seen_[server] = Observation{node_.local_now(), *r.value, true};
      const SentinelHelloPublish& hello = r.value->hello;
      if (!peers_.empty() && hello.sentinel != node_.name()) {
        current_epoch_ = std::max(current_epoch_, hello.current_epoch);
        if (hello.config_epoch > config_epoch_) adopt(hello.primary, hello.config_epoch, hello.sentinel);
      }
    }
    sim::sleep_local(options_.period);
  }
}

void Sentinel::ask_peer(const std::string& peer) {
  // SENTINEL is-master-down-by-addr, once an ask period while the primary is subjectively down;
  // while a failover of ours runs it also asks for the peer's vote: at once when the failover
  // starts (SENTINEL_ASK_FORCED), then once a period. The wait is in true time (the kernel's wait
  // queues take true deadlines); no profile skews a sentinel's clock.
  sim::Node& target = world_.node(peer);
  for (;;) {
    asks_.wait(world_.now() + options_.period, "sentinel ask");
    if (!primary_down_ && !failover_in_progress_) continue;
    IsPrimaryDown ask{primary_, current_epoch_, failover_in_progress_ ? node_.name() : std::string()};
    std::string summary = fmt::format("SENTINEL is-master-down-by-addr {} {} {}", ask.primary, ask.epoch,
                                      ask.candidate.empty() ? std::string("*") : ask.candidate);
    sim::RpcResult<PrimaryDownReply> r =
        world_.network().call_as<PrimaryDownReply>(node_, target, "sentinel-peers", std::move(ask), std::move(summary), options_.period);
    if (r.ok()) peer_views_[peer] = PeerView{node_.local_now(), *r.value, true};
  }
}

void Sentinel::hello_loop() {
  // Real Sentinel publishes a hello on every server's __sentinel__:hello channel every 2s (twice
  // its ping period); so does this one, and the other sentinels read it with their INFO.
  for (;;) {
    sim::sleep_local(options_.period * 2);
    for (const std::string& server : servers_) {
      world_.network().send(node_, world_.node(server), "redis", SentinelHelloPublish{node_.name(), primary_, config_epoch_, current_epoch_},
                            fmt::format("PUBLISH __sentinel__:hello primary={} epoch={}", primary_, config_epoch_));
    }
  }
}

void Sentinel::adopt(const std::string& primary, uint64_t config_epoch, const std::string& from) {
  // A newer configuration wins, whoever carries it (sentinelProcessHelloMessage). The timers of
  // the new primary start afresh (sentinelResetMaster), and what the peers said about the old one
  // no longer counts.
  world_.trace_at(&node_, "sentinel-config-update", {{"from", from}, {"primary", primary}, {"epoch", std::to_string(config_epoch)}});
  primary_ = primary;
  config_epoch_ = config_epoch;
  current_epoch_ = std::max(current_epoch_, config_epoch);
  mismatch_since_local_.clear();
  primary_replica_since_local_.reset();
  seen_[primary_].last_reply_local = node_.local_now();
  for (auto& [peer, view] : peer_views_) view.reply.down = false;
  primary_down_ = false;
  odown_ = false;
  failover_in_progress_ = false;
}

bool Sentinel::fresh(const Observation& o) const {
  // sentinelSelectSlave skips replicas whose last PING reply is older than 5 ping periods.
  return o.answered && node_.local_now() - o.last_reply_local <= options_.period * 5;
}

bool Sentinel::objectively_down() const {
  // A peer's "down" counts while its reply is at most 5 ask periods old (Sentinel clears it then).
  uint32_t down = 1;
  for (const auto& [peer, view] : peer_views_) {
    if (view.answered && view.reply.down && node_.local_now() - view.last_reply_local <= options_.period * 5) ++down;
  }
  return down >= options_.quorum;
}

void Sentinel::decide_loop() {
  for (;;) {
    if (peers_.empty()) {
      sim::sleep_local(options_.period);
    } else {
      // Sentinel changes its timer's frequency at every tick (hz 10..19) so that sentinels
      // started together do not keep asking for votes at the same instants and split them.
      const int64_t tick_ns = world_.random_between(options_.period.count_ns() / 2, options_.period.count_ns());
      sim::sleep_local(Duration::ns(tick_ns));
    }
    const Observation& primary = seen_.at(primary_);
    bool silent = node_.local_now() - primary.last_reply_local > options_.down_after;
    if (!peers_.empty()) {
      // A primary that reports itself a replica for down-after plus two INFO periods is down
      // too (sentinelCheckSubjectivelyDown): somebody turned it, and a failover must follow.
      if (primary.answered && primary.info.role == Role::replica) {
        if (!primary_replica_since_local_) primary_replica_since_local_ = node_.local_now();
        silent |= node_.local_now() - *primary_replica_since_local_ > options_.down_after + options_.period * 2;
      } else {
        primary_replica_since_local_.reset();
      }
    }
    if (silent) {
      if (!primary_down_) {
        primary_down_ = true;
        world_.trace_at(&node_, "sdown", {{"primary", primary_},
                                          {"silent_for", sim::format_duration(node_.local_now() - primary.last_reply_local)}});
      }
    } else {
      primary_down_ = false;
    }
    if (peers_.empty()) {
      // A lone sentinel: its own opinion is the quorum and it needs nobody's vote.
      if (primary_down_) {
        promote(current_epoch_ + 1);
      } else {
        reconfigure();
      }
      continue;
    }
    const bool odown = primary_down_ && objectively_down();
    if (odown && !odown_) world_.trace_at(&node_, "odown", {{"primary", primary_}, {"quorum", std::to_string(options_.quorum)}});
    odown_ = odown;
    if (failover_in_progress_) {
      election_step();
    } else if (odown_ && node_.local_now() >= no_failover_before_local_) {
      start_failover();
    }
    if (!primary_down_ && !failover_in_progress_) reconfigure();
  }
}

void Sentinel::start_failover() {
  ++current_epoch_;
  failover_epoch_ = current_epoch_;
  failover_in_progress_ = true;
  // sentinelStartFailover: the start is pushed back by a random desync, so that sentinels that
  // lost an election do not all try again at the same moment.
  const int64_t desync_ns = world_.random_between(0, options_.max_desync.count_ns() - 1);
  failover_start_local_ = node_.local_now() + Duration::ns(desync_ns);
  no_failover_before_local_ = failover_start_local_ + options_.failover_timeout * 2;
  world_.trace_at(&node_, "try-failover", {{"primary", primary_}, {"epoch", std::to_string(failover_epoch_)}});
  asks_.notify_all();
}

void Sentinel::election_step() {
  // sentinelGetLeader: count the votes the peers reported for this epoch; a sentinel that has not
  // voted in it yet votes for the candidate ahead (ties: the lower name), or else for itself.
  std::map<std::string, uint32_t> votes;
  for (const auto& [peer, view] : peer_views_) {
    if (view.answered && view.reply.leader_epoch == failover_epoch_ && !view.reply.leader.empty()) ++votes[view.reply.leader];
  }
  std::string ahead;
  for (const auto& [candidate, n] : votes) {
    if (ahead.empty() || n > votes[ahead]) ahead = candidate;
  }
  if (voted_epoch_ < failover_epoch_) vote(failover_epoch_, ahead.empty() ? node_.name() : ahead);
  if (voted_epoch_ == failover_epoch_) ++votes[voted_for_];
  const uint32_t mine = votes[node_.name()];
  const Duration running = node_.local_now() - failover_start_local_;
  if (mine >= votes_needed()) {
    world_.trace_at(&node_, "elected-leader", {{"epoch", std::to_string(failover_epoch_)},
                                               {"votes", fmt::format("{}/{}", mine, options_.sentinels)}});
    if (promote(failover_epoch_)) {
      failover_in_progress_ = false;
    } else if (running > options_.failover_timeout) {
      failover_in_progress_ = false;
      world_.trace_at(&node_, "failover-abort", {{"epoch", std::to_string(failover_epoch_)}, {"why", "no good replica"}});
    }
    return;
  }
  if (running > std::min(options_.election_timeout, options_.failover_timeout)) {
    failover_in_progress_ = false;
    world_.trace_at(&node_, "failover-abort", {{"epoch", std::to_string(failover_epoch_)},
                                               {"why", fmt::format("not elected ({} of {} votes needed)", mine, votes_needed())}});
  }
}

bool Sentinel::promote(uint64_t epoch) {
  std::string best;
  uint64_t best_offset = 0;
  for (const auto& [name, o] : seen_) {  // name order: ties go to the lower name
    // A replica still waiting for its first full resync holds nothing worth promoting.
    if (name == primary_ || !fresh(o) || o.info.role != Role::replica || !o.info.synced) continue;
    if (best.empty() || o.info.offset > best_offset) {
      best = name;
      best_offset = o.info.offset;
    }
  }
  if (best.empty()) return false;  // nobody to promote yet; try again next period
  sim::RpcResult<ServerInfo> r = world_.network().call_as<ServerInfo>(
      node_, world_.node(best), "redis", ReplicaOfCommand{""}, "REPLICAOF NO ONE", options_.period);
  if (!r.ok() || r.value->role != Role::primary) return false;
  const std::string old = primary_;
  primary_ = best;
  mismatch_since_local_.clear();
  primary_replica_since_local_.reset();
  for (auto& [peer, view] : peer_views_) view.reply.down = false;
  config_epoch_ = epoch;
  current_epoch_ = std::max(current_epoch_, epoch);
  ++promotions_;
  primary_down_ = false;
  odown_ = false;
  seen_[best] = Observation{node_.local_now(), *r.value, true};
  world_.trace_at(&node_, "failover", {{"old", old}, {"new", best}, {"offset", std::to_string(r.value->offset)},
                                       {"epoch", std::to_string(epoch)}});
  reconfigure();
  return true;
}

void Sentinel::vote(uint64_t epoch, const std::string& candidate) {
  // sentinelVoteLeader: one vote per epoch, to the first candidate that asks in it.
  current_epoch_ = std::max(current_epoch_, epoch);
  if (voted_epoch_ >= epoch || current_epoch_ > epoch) return;
  voted_for_ = candidate;
  voted_epoch_ = current_epoch_;
  world_.trace_at(&node_, "vote-for-leader", {{"leader", candidate}, {"epoch", std::to_string(epoch)}});
  if (candidate != node_.name()) {
    // Having voted for another, it does not start a failover of its own for a while.
    const int64_t desync_ns = world_.random_between(0, options_.max_desync.count_ns() - 1);
    no_failover_before_local_ = node_.local_now() + Duration::ns(desync_ns) + options_.failover_timeout * 2;
  }
}

void Sentinel::reconfigure() {
  if (!peers_.empty()) {
    // sentinelMasterLooksSane: force nothing unless our primary answers as a primary.
    const Observation& primary = seen_.at(primary_);
    if (!fresh(primary) || primary.info.role != Role::primary) return;
  }
  for (const auto& [name, o] : seen_) {
    if (name == primary_ || !fresh(o)) continue;
    if (o.info.role == Role::replica && o.info.primary == primary_) {
      mismatch_since_local_.erase(name);
      continue;
    }
    // In a group, a server that reports another role or primary may be right: another sentinel
    // may have failed over in a newer epoch whose hello has not arrived yet. Sentinel waits four
    // hello periods before forcing its own view (sentinelRefreshInstanceInfo); a lone sentinel
    // has nobody to hear from and converts at once.
    const Instant since = mismatch_since_local_.try_emplace(name, node_.local_now()).first->second;
    if (!peers_.empty() && node_.local_now() - since < options_.period * 8) continue;
    // An old primary that came back, or a replica still following it.
    world_.trace_at(&node_, "sentinel-reconfigure", {{"server", name}, {"primary", primary_}});
    sim::RpcResult<ServerInfo> r = world_.network().call_as<ServerInfo>(
        node_, world_.node(name), "redis", ReplicaOfCommand{primary_}, "REPLICAOF " + primary_, options_.period);
    if (r.ok()) seen_[name] = Observation{node_.local_now(), *r.value, true};
  }
}

void Sentinel::serve_clients() {
  for (;;) {
    std::optional<sim::Message> m = node_.mailbox("sentinel").receive(std::nullopt, "sentinel clients");
    world_.network().reply(node_, *m, PrimaryAddress{primary_, config_epoch_, primary_down_},
                           fmt::format("primary={} epoch={}{}", primary_, config_epoch_, primary_down_ && !peers_.empty() ? " s_down" : ""));
  }
}

void Sentinel::serve_peers() {
  for (;;) {
    std::optional<sim::Message> m = node_.mailbox("sentinel-peers").receive(std::nullopt, "sentinel peers");
    if (const auto* ask = std::any_cast<IsPrimaryDown>(&m->body)) {
      // It votes only about the primary it monitors (an asker with an old address gets no vote).
      const bool ours = ask->primary == primary_;
      if (ours && !ask->candidate.empty()) vote(ask->epoch, ask->candidate);
      PrimaryDownReply reply{ours && primary_down_, voted_for_, voted_epoch_};
      std::string summary = fmt::format("down={} leader={} epoch={}", reply.down ? 1 : 0, reply.leader.empty() ? "*" : reply.leader, reply.leader_epoch);
      world_.network().reply(node_, *m, std::move(reply), std::move(summary));
    }
  }
}

}  // namespace oversim::redis
