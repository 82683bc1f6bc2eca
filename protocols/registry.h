// The designs under test, one file each in protocols/variants/. Adding a design is one new file
// defining `const Design <name>_design` and one line in OVERSIM_DESIGNS (registry.cpp).
#pragma once

#include <string>
#include <vector>

#include "protocols/simulation.h"

namespace oversim::protocols {

const std::vector<const Design*>& designs();
const Design* find_design(const std::string& name);

}  // namespace oversim::protocols
