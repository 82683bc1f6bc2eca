#include "models/mq/mq_broker.h"

#include <any>
#include <utility>

#include <fmt/format.h>

#include "sim/sync.h"

namespace oversim::mq {

MqBroker::MqBroker(sim::World& world, sim::Node& node, MqConfig config)
    : world_(world), node_(node), config_(std::move(config)), state_(config_.partitions) {
  node_.set_on_crash([this](sim::Node&) { state_.forget_members(); });
  node_.set_boot([this](sim::Node&) { boot(); });
}

sim::MailboxLoad MqBroker::load() const {
  const sim::Mailbox* box = node_.find_mailbox(kPort);
  return box == nullptr ? sim::MailboxLoad{} : box->load();
}

void MqBroker::boot() {
  world_.spawn(&node_, node_.name() + "/serve", [this] { serve(); }, true);
  world_.spawn(&node_, node_.name() + "/expiry", [this] { expiry_loop(); }, true);
}

void MqBroker::serve() {
  for (;;) {
    std::optional<sim::Message> m = node_.mailbox(kPort).receive(std::nullopt, "mq request");
    sim::sleep_for(config_.service_time);
    const Instant now = node_.local_now();
    const std::string from = world_.nodes().at(m->from)->name();
    if (const auto* p = std::any_cast<ProduceRequest>(&m->body)) {
      const Record r = state_.append(p->key, p->value);
      world_.trace_at(&node_, "mq-append", {{"key", r.key}, {"partition", std::to_string(r.partition)}, {"offset", std::to_string(r.offset)}, {"from", from}});
      world_.network().reply(node_, *m, r, fmt::format("appended {}@{}", r.partition, r.offset));
    } else if (const auto* j = std::any_cast<JoinRequest>(&m->body)) {
      const Assignment a = state_.join(j->group, j->member, now);
      world_.trace_at(&node_, "mq-rebalance", {{"group", j->group}, {"generation", std::to_string(a.generation)}, {"joined", j->member}});
      world_.network().reply(node_, *m, a, fmt::format("generation {}", a.generation));
    } else if (const auto* q = std::any_cast<PollRequest>(&m->body)) {
      PollResult r = state_.poll(q->group, q->member, q->generation, now, q->max_records);
      for (const Record& rec : r.records) {
        world_.trace_at(&node_, "mq-deliver",
                        {{"member", q->member}, {"key", rec.key}, {"partition", std::to_string(rec.partition)}, {"offset", std::to_string(rec.offset)}});
      }
      const std::string summary = r.member ? fmt::format("{} record(s)", r.records.size()) : std::string("not a member");
      world_.network().reply(node_, *m, std::move(r), summary);
    } else if (const auto* c = std::any_cast<CommitRequest>(&m->body)) {
      const CommitStatus s = state_.commit(c->group, c->member, c->generation, c->partition, c->next_offset);
      world_.trace_at(&node_, "mq-commit",
                      {{"member", c->member}, {"partition", std::to_string(c->partition)}, {"next", std::to_string(c->next_offset)}, {"status", to_string(s)}});
      world_.network().reply(node_, *m, s, to_string(s));
    }
  }
}

void MqBroker::expiry_loop() {
  for (;;) {
    sim::sleep_local(config_.expiry_period);
    for (const std::string& gone : state_.expire(node_.local_now(), config_.max_poll_interval)) {
      world_.trace_at(&node_, "mq-rebalance", {{"left", gone}, {"why", "no poll within max.poll.interval"}});
    }
  }
}

}  // namespace oversim::mq
