// Properties are named data, of three kinds (Stateright / P):
//   always      safety, checked after every event that can change state; the first violation
//               is kept with its time, step and a witness;
//   eventually  checked once, after the fault plan has healed and the system has quiesced;
//   sometimes   a situation worth reaching (a lock lost while held, stock sold out): counted
//               across a sweep to prove the interesting case happened at all, so a pass is not
//               vacuous.
// Business properties are what `check` asserts by default; mechanism and liveness properties
// are reported alongside and asserted only when named with --properties.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "protocols/simulation.h"

namespace oversim::properties {

enum class Kind : uint8_t { always, eventually, sometimes };
enum class Category : uint8_t { business, mechanism, liveness, coverage };
const char* to_string(Kind k);
const char* to_string(Category c);

// The first offence against a history property: when (true time), the step, and the witness.
struct Offence {
  sim::Instant at;
  uint64_t step = 0;
  std::string witness;
};

struct Property {
  std::string name;
  Kind kind = Kind::always;
  Category category = Category::business;
  std::string description;
  // always/eventually: a witness when violated, nullopt when it holds. Unset (nullptr) for a
  // property judged over_history.
  // sometimes: a description of the situation when reached, nullopt otherwise.
  std::function<std::optional<std::string>(const protocols::Simulation&)> check;
  // Set for always-properties over a recorded history (lock beliefs, keys removed): judged once,
  // at the end, over the whole history, returning the first offence with its own time and step
  // (cheaper than re-reading the history after every event, and the time is the offence's).
  std::function<std::optional<Offence>(const protocols::Simulation&)> over_history = nullptr;
  // sometimes: the situation is part of how a failure happens (a lease lost while held, a retry,
  // a failover, an unknown outcome), so a shrunk counterexample must still reach it when the
  // failing run did. A design's guard acting (CHECK, a WHERE re-checked) is what the failure
  // ran into, not how it happened, and is not kept: a smaller sale may fail without it.
  bool shrink_keeps = false;
  bool asserted_by_default() const { return category == Category::business; }
};

// The earliest moment two clients believed they held the same lock; the step is that of the
// later acquisition. Backs lock_mutual_exclusion.
using LockOverlap = Offence;
std::optional<LockOverlap> first_lock_overlap(const protocols::Simulation& s);
// The earliest DEL that removed a lock key whose holder still believed it held it. Backs
// no_foreign_unlock.
std::optional<Offence> first_foreign_unlock(const protocols::Simulation& s);
// Two consumers working on one SKU's queue records at the same true time (per_sku_serialization).
std::optional<Offence> first_serialization_break(const protocols::Simulation& s);

const std::vector<Property>& catalogue();
const Property* find_property(const std::string& name);

}  // namespace oversim::properties
