// The designs under test, one file each in protocols/variants/. Adding a design is one new file
// defining `const Design <name>_design` and one line in OVERSIM_DESIGNS (registry.cpp).
#pragma once

#include <string>
#include <vector>

#include "protocols/simulation.h"

namespace oversim::protocols {

// Every design: the built-in ones in their order, then those registered from a user's tree.
const std::vector<const Design*>& designs();
const Design* find_design(const std::string& name);

// A design defined outside oversim's tree (docs/writing-your-design.md): from then on every
// command, sweep, shrink and reproduce line knows it by its name, as a built-in one. The design
// must outlive every use (a namespace-scope object). Register before anything runs (at static
// initialisation, OVERSIM_REGISTER_DESIGN, or first thing in main): designs() is read without a
// lock by a sweep's threads. A name that is empty, not [a-z0-9_], or already taken is not
// registered; registration_problems() lists it, and oversim_main() refuses to start (exit 2).
void register_design(const Design& design);
const std::vector<std::string>& registration_problems();

struct DesignRegistrar {
  explicit DesignRegistrar(const Design& design) { register_design(design); }
};

}  // namespace oversim::protocols

// Registers `design` (a namespace-scope `const oversim::protocols::Design`) when the program
// starts, from the file that defines it.
#define OVERSIM_REGISTER_DESIGN(design) \
  static const ::oversim::protocols::DesignRegistrar oversim_registrar_##design { design }

namespace oversim::protocols {

}  // namespace oversim::protocols
