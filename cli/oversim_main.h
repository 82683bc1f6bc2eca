// The whole `oversim` command as a function, for a user's own binary: a program that defines
// designs of its own (OVERSIM_REGISTER_DESIGN, protocols/registry.h) and whose main() returns
// oversim_main(argc, argv, ...) is the full command with those designs added: run, check,
// compare, explore, lint, hash, list, shrinking, JSON, JUnit and HTML.
// docs/writing-your-design.md walks through it.
#pragma once

#include <string>

namespace oversim::cli {

struct MainOptions {
  // What reproduce lines call the program; empty: argv[0] as the user typed it.
  std::string program;
  // How to rebuild it, put first in every reproduce line (`<rebuild> && <program> run ...`) so a
  // line copied from a CI log runs the same code: e.g. "cmake --build build --target my_checks".
  std::string rebuild;
};

// Exit statuses as the oversim command's (docs/guide.md#exit-statuses); 2, with one line on
// stderr, when a design failed to register (a bad or duplicate name).
int oversim_main(int argc, char** argv, const MainOptions& options = {});

}  // namespace oversim::cli
