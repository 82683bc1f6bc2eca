// The pure message-queue state machine: one topic split into partitions by key, an append-only
// log per partition, and consumer groups with Kafka's delivery contract. No fibers, no network:
// the broker node (mq_broker.h) wraps it and passes the time with every call.
//
// What it keeps of Kafka (the consumer documentation: "Consumer groups", "Offsets and consumer
// position", max.poll.interval.ms):
// - A record goes to partition hash(key) % partitions, so one SKU's records stay in order in
//   one partition. A producer whose acknowledgement was lost and who sends again appends the
//   record a second time (a producer without idempotence).
// - A group's members share the partitions: each partition has at most one owner in a
//   generation. A member reads from its position, which starts at the group's committed offset
//   when the partition is assigned; it commits `offset + 1` after processing (at-least-once).
// - A member that has not polled for max_poll_interval leaves the group: its partitions go to
//   the others in a new generation, starting again from the committed offsets. The member does
//   not know: it may still be processing a record the new owner is given again. Its next commit
//   carries the old generation and is refused (CommitFailedException); its next poll tells it to
//   join again.
// - A rebalance stops the world (Kafka's eager protocol): every member that was in the group must
//   learn the new generation (its next poll) before anyone reads again, so a member still
//   working on a record finishes it before its partition moves; one that does not poll within
//   max_poll_interval is dropped, and the others go on without it.
// - Assignment is round robin over the members in name order (a deterministic stand-in for the
//   range and cooperative assignors), on every join and every departure.
// Left out: replication of the log and leader election among brokers (the log and the committed
// offsets survive a broker crash; group membership does not), transactions and exactly-once,
// retention, fetch sizes in bytes, the heartbeat thread's session.timeout.ms (a stalled poll
// loop is what max.poll.interval.ms catches, and what the designs can get wrong).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/time.h"

namespace oversim::mq {

using sim::Duration;
using sim::Instant;

struct Record {
  uint32_t partition = 0;
  uint64_t offset = 0;
  std::string key;
  std::string value;
  friend bool operator==(const Record&, const Record&) = default;
};

struct Assignment {
  uint64_t generation = 0;
  std::vector<uint32_t> partitions;  // ascending
  friend bool operator==(const Assignment&, const Assignment&) = default;
};

struct PollResult {
  bool member = false;  // false: not (or no longer) in the group: join again
  Assignment assignment;
  std::vector<Record> records;  // in partition order, then offset order
};

enum class CommitStatus : uint8_t { ok, stale_generation, not_owner, unknown_member };
const char* to_string(CommitStatus s);

class MqState {
 public:
  explicit MqState(uint32_t partitions);

  uint32_t partitions() const { return static_cast<uint32_t>(logs_.size()); }
  // FNV-1a of the key, modulo the partitions: the same on every platform.
  uint32_t partition_of(const std::string& key) const;

  // Appends to the key's partition; returns the record as stored.
  Record append(const std::string& key, std::string value);
  const std::vector<Record>& log(uint32_t partition) const { return logs_.at(partition); }

  // `member` joins `group` (or rejoins: a member already in it keeps nothing): a new
  // generation, every partition assigned again.
  Assignment join(const std::string& group, const std::string& member, Instant now);
  // Leaves on purpose (a clean shutdown): a new generation without it.
  void leave(const std::string& group, const std::string& member);
  // Up to `max_records` records from the member's partitions at their positions, which move past
  // them. Counts as the member's poll for max_poll_interval.
  PollResult poll(const std::string& group, const std::string& member, uint64_t generation, Instant now, uint32_t max_records);
  // The member processed everything before `next_offset` in `partition`.
  CommitStatus commit(const std::string& group, const std::string& member, uint64_t generation, uint32_t partition, uint64_t next_offset);
  // Every member whose last poll (or join) is older than `max_poll_interval` leaves; returns
  // them in name order (empty: nothing changed).
  std::vector<std::string> expire(Instant now, Duration max_poll_interval);
  // A broker restart: groups lose their members (they join again); logs and commits stay.
  void forget_members();

  uint64_t committed(const std::string& group, uint32_t partition) const;
  uint64_t generation(const std::string& group) const;
  // The member that owns `partition` in `group`, "" when none.
  std::string owner(const std::string& group, uint32_t partition) const;
  std::vector<std::string> members(const std::string& group) const;
  // Records appended and not yet committed by `group`, over every partition (its lag).
  uint64_t lag(const std::string& group) const;
  // The names of the groups that ever joined.
  std::vector<std::string> groups() const;
  // The partitions `member` owns in `group` now (empty for a non-member).
  std::vector<uint32_t> assigned(const std::string& group, const std::string& member) const;

 private:
  struct Member {
    Instant last_poll;
    std::vector<uint32_t> partitions;
  };
  struct Group {
    uint64_t generation = 0;
    std::map<std::string, Member> members;
    // Members of the group before the last rebalance that have not polled since: nobody reads
    // until it is empty.
    std::set<std::string> awaiting;
    std::map<uint32_t, uint64_t> committed;  // next offset to process, per partition
    std::map<uint32_t, uint64_t> position;   // the owner's next offset to read, per partition
  };
  void rebalance(Group& g, const std::string& joined = "");

  std::vector<std::vector<Record>> logs_;
  std::map<std::string, Group> groups_;
};

}  // namespace oversim::mq
