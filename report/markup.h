// Text made safe inside HTML and XML (attributes and elements alike): the five markup characters
// escaped, and the control characters XML 1.0 forbids (all but tab, newline, carriage return)
// dropped. One function for the HTML report and the JUnit file.
#pragma once

#include <string>

namespace oversim::report {

std::string escape_markup(const std::string& text);

}  // namespace oversim::report
