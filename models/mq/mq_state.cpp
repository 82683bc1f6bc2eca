#include "models/mq/mq_state.h"

#include <stdexcept>

namespace oversim::mq {

const char* to_string(CommitStatus s) {
  switch (s) {
    case CommitStatus::ok: return "ok";
    case CommitStatus::stale_generation: return "stale-generation";
    case CommitStatus::not_owner: return "not-owner";
    case CommitStatus::unknown_member: return "unknown-member";
  }
  return "?";
}

MqState::MqState(uint32_t partitions) : logs_(partitions) {
  if (partitions == 0) throw std::invalid_argument("a topic needs at least one partition");
}

uint32_t MqState::partition_of(const std::string& key) const {
  uint64_t h = 1469598103934665603ULL;
  for (const char c : key) {
    h ^= static_cast<uint8_t>(c);
    h *= 1099511628211ULL;
  }
  return static_cast<uint32_t>(h % logs_.size());
}

Record MqState::append(const std::string& key, std::string value) {
  const uint32_t p = partition_of(key);
  std::vector<Record>& log = logs_[p];
  log.push_back(Record{p, log.size(), key, std::move(value)});
  return log.back();
}

void MqState::rebalance(Group& g, const std::string& joined) {
  ++g.generation;
  g.awaiting.clear();
  for (const auto& [name, m] : g.members) {
    if (name != joined) g.awaiting.insert(name);
  }
  for (auto& [name, m] : g.members) m.partitions.clear();
  g.position.clear();
  if (g.members.empty()) return;
  auto it = g.members.begin();
  for (uint32_t p = 0; p < partitions(); ++p) {
    it->second.partitions.push_back(p);
    auto c = g.committed.find(p);
    g.position[p] = c == g.committed.end() ? 0 : c->second;
    if (++it == g.members.end()) it = g.members.begin();
  }
}

Assignment MqState::join(const std::string& group, const std::string& member, Instant now) {
  Group& g = groups_[group];
  g.members[member] = Member{now, {}};
  rebalance(g, member);
  return Assignment{g.generation, g.members.at(member).partitions};
}

void MqState::leave(const std::string& group, const std::string& member) {
  auto git = groups_.find(group);
  if (git == groups_.end() || git->second.members.erase(member) == 0) return;
  rebalance(git->second);
}

PollResult MqState::poll(const std::string& group, const std::string& member, uint64_t generation, Instant now, uint32_t max_records) {
  PollResult out;
  auto git = groups_.find(group);
  if (git == groups_.end()) return out;
  Group& g = git->second;
  auto mit = g.members.find(member);
  if (mit == g.members.end()) return out;
  out.member = true;
  mit->second.last_poll = now;
  out.assignment = Assignment{g.generation, mit->second.partitions};
  // A member that has not seen the new generation yet gets its new assignment first, no records:
  // what it read under the old one it may not commit. Nobody reads until every member of the
  // old generation has heard of the new one.
  if (generation != g.generation) {
    g.awaiting.erase(member);
    return out;
  }
  g.awaiting.erase(member);
  if (!g.awaiting.empty()) return out;
  for (uint32_t p : mit->second.partitions) {
    uint64_t& pos = g.position[p];
    const std::vector<Record>& log = logs_[p];
    while (pos < log.size() && out.records.size() < max_records) out.records.push_back(log[pos++]);
  }
  return out;
}

CommitStatus MqState::commit(const std::string& group, const std::string& member, uint64_t generation, uint32_t partition, uint64_t next_offset) {
  auto git = groups_.find(group);
  if (git == groups_.end()) return CommitStatus::unknown_member;
  Group& g = git->second;
  auto mit = g.members.find(member);
  if (mit == g.members.end()) return CommitStatus::unknown_member;
  if (generation != g.generation) return CommitStatus::stale_generation;
  const std::vector<uint32_t>& owned = mit->second.partitions;
  bool owns = false;
  for (uint32_t p : owned) owns = owns || p == partition;
  if (!owns) return CommitStatus::not_owner;
  g.committed[partition] = next_offset;
  return CommitStatus::ok;
}

std::vector<std::string> MqState::expire(Instant now, Duration max_poll_interval) {
  std::vector<std::string> gone;
  for (auto& [name, g] : groups_) {
    bool changed = false;
    for (auto it = g.members.begin(); it != g.members.end();) {
      if (now - it->second.last_poll > max_poll_interval) {
        gone.push_back(it->first);
        g.awaiting.erase(it->first);
        it = g.members.erase(it);
        changed = true;
      } else {
        ++it;
      }
    }
    if (changed) rebalance(g);
  }
  return gone;
}

void MqState::forget_members() {
  for (auto& [name, g] : groups_) {
    if (g.members.empty()) continue;
    g.members.clear();
    rebalance(g);
  }
}

uint64_t MqState::committed(const std::string& group, uint32_t partition) const {
  auto git = groups_.find(group);
  if (git == groups_.end()) return 0;
  auto c = git->second.committed.find(partition);
  return c == git->second.committed.end() ? 0 : c->second;
}

uint64_t MqState::generation(const std::string& group) const {
  auto git = groups_.find(group);
  return git == groups_.end() ? 0 : git->second.generation;
}

std::string MqState::owner(const std::string& group, uint32_t partition) const {
  auto git = groups_.find(group);
  if (git == groups_.end()) return "";
  for (const auto& [name, m] : git->second.members) {
    for (uint32_t p : m.partitions) {
      if (p == partition) return name;
    }
  }
  return "";
}

std::vector<uint32_t> MqState::assigned(const std::string& group, const std::string& member) const {
  auto git = groups_.find(group);
  if (git == groups_.end()) return {};
  auto mit = git->second.members.find(member);
  return mit == git->second.members.end() ? std::vector<uint32_t>{} : mit->second.partitions;
}

uint64_t MqState::lag(const std::string& group) const {
  uint64_t n = 0;
  for (uint32_t p = 0; p < partitions(); ++p) {
    const uint64_t c = committed(group, p);
    if (logs_[p].size() > c) n += logs_[p].size() - c;
  }
  return n;
}

std::vector<std::string> MqState::groups() const {
  std::vector<std::string> out;
  for (const auto& [name, g] : groups_) out.push_back(name);
  return out;
}

std::vector<std::string> MqState::members(const std::string& group) const {
  std::vector<std::string> out;
  auto git = groups_.find(group);
  if (git == groups_.end()) return out;
  for (const auto& [name, m] : git->second.members) out.push_back(name);
  return out;
}

}  // namespace oversim::mq
