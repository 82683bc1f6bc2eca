#include "cli/oversim_main.h"

#include <fmt/format.h>

#include "cli/app.h"
#include "properties/checker.h"
#include "protocols/registry.h"

namespace oversim::cli {

int oversim_main(int argc, char** argv, const MainOptions& options) {
  try {
    const std::vector<std::string>& problems = protocols::registration_problems();
    if (!problems.empty()) {
      fmt::print(stderr, "oversim: {}\n", problems.front());
      return 2;
    }
    if (!options.program.empty() || !options.rebuild.empty()) {
      properties::set_reproduce_program(options.program.empty() && argc > 0 ? std::string(argv[0]) : options.program, options.rebuild);
    }
    CommandLine command_line;
    if (auto status = command_line.parse(argc, argv)) return *status;
    return command_line.execute();
  } catch (const std::exception& e) {
    fmt::print(stderr, "oversim: internal error: {}\n", e.what());
    return 3;
  }
}

}  // namespace oversim::cli
