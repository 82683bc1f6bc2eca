#include "protocols/registry.h"

#include <algorithm>

#include <fmt/format.h>

namespace oversim::protocols {

// One line per design, in the order `oversim list` and `oversim compare` show them.
#define OVERSIM_DESIGNS(X)      \
  X(read_modify_write)          \
  X(db_conditional_update)      \
  X(db_conditional_lookup)      \
  X(db_for_update)              \
  X(db_optimistic_version)      \
  X(db_decrement_checked)       \
  X(db_decrement_mysql57)       \
  X(redis_lock_read_modify_write) \
  X(redis_lock_plain_del)       \
  X(redis_lock_conditional)     \
  X(redis_lock_watchdog)        \
  X(redis_fenced)               \
  X(redis_fenced_stale_read)    \
  X(async_order_write)          \
  X(article_recipe)             \
  X(setnx_dedup_only)           \
  X(redis_prededuct_sync_db)    \
  X(redis_prededuct_async_db)   \
  X(mq_serialized_per_sku)      \
  X(marker_before_effect)       \
  X(prededuct_double_compensation) \
  X(prededuct_reconciled)       \
  X(prededuct_expiry_compensation) \
  X(token_bucket_degrade)       \
  X(degrade_to_queue)           \
  X(degrade_fail_open)          \
  X(redlock_read_modify_write)  \
  X(redlock_no_validity_check)  \
  X(redlock_conditional)        \
  X(zk_lock_read_modify_write)  \
  X(zk_lock_stops_on_lost)      \
  X(zk_lock_conditional)        \
  X(zk_lock_fenced)             \
  X(zk_herd_lock)               \
  X(etcd_lock_read_modify_write) \
  X(etcd_lock_txn_guard)        \
  X(etcd_lock_fenced)           \
  X(etcd_lock_conditional)      \
  X(etcd_unlock_retry)          \
  X(etcd_unlock_retry_guarded)

#define OVERSIM_DECLARE(name) extern const Design name##_design;
OVERSIM_DESIGNS(OVERSIM_DECLARE)
#undef OVERSIM_DECLARE

namespace {
std::vector<const Design*>& all_designs() {
#define OVERSIM_ENTRY(name) &name##_design,
  static std::vector<const Design*> all = {OVERSIM_DESIGNS(OVERSIM_ENTRY)};
#undef OVERSIM_ENTRY
  return all;
}
std::vector<std::string>& problems() {
  static std::vector<std::string> p;
  return p;
}
}  // namespace

const std::vector<const Design*>& designs() { return all_designs(); }

void register_design(const Design& design) {
  const bool well_formed = !design.name.empty() && std::all_of(design.name.begin(), design.name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
  if (!well_formed) {
    problems().push_back(fmt::format("a design registered as '{}': a design's name is lower-case letters, digits and '_'", design.name));
  } else if (find_design(design.name) != nullptr) {
    problems().push_back(fmt::format("a second design named '{}' was registered: design names are unique", design.name));
  } else if (design.buy == nullptr) {
    problems().push_back(fmt::format("design '{}' was registered without a purchase function (Design::buy)", design.name));
  } else {
    all_designs().push_back(&design);
  }
}

const std::vector<std::string>& registration_problems() { return problems(); }

const Design* find_design(const std::string& name) {
  for (const Design* d : designs()) {
    if (d->name == name) return d;
  }
  return nullptr;
}

}  // namespace oversim::protocols
