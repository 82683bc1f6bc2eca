// The `oversim` command. Exit status: 0 everything asserted holds, 1 a property was violated
// (or a determinism check failed), 2 bad usage or bad input (one line on stderr naming the
// problem), 3 an internal error (a bug in oversim: please report it with the command line).
#include <fmt/format.h>

#include "cli/app.h"

int main(int argc, char** argv) {
  try {
    oversim::cli::CommandLine command_line;
    if (auto status = command_line.parse(argc, argv)) return *status;
    return command_line.execute();
  } catch (const std::exception& e) {
    fmt::print(stderr, "oversim: internal error: {}\n", e.what());
    return 3;
  }
}
