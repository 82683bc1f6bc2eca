// No statement in oversim makes two random draws. C++ leaves the order in which a call's
// arguments (and most operands) are evaluated open, and g++ and clang++ pick differently:
// `fmt::format("at {} pause {}", draw(), draw())` gave one plan on g++ and another on clang++.
// This scans every source file (comments and string literals removed), splits it into
// statements and fails on any statement with two calls to a drawing function. The golden test
// and CI's g++/clang++ hash diff catch what a scan cannot (a draw hidden in a helper).
// The fix is always the same: draw into named locals, one statement each.
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#ifndef OVERSIM_SOURCE_DIR
#error "OVERSIM_SOURCE_DIR must be defined"
#endif

namespace oversim {
namespace {

// Calls that draw from a run's strategy or a seeded stream: World::choose/random/
// random_between/chance, Prng::next/bounded/between/fork/chance, and the helpers built on them.
// A call passing the profile stream `p` as an argument draws too (profiles.cpp).
const std::regex& draw_call() {
  static const std::regex re(
      R"(\b(choose|random|random_between|chance|bounded|between|fork|draw_latency|exponential_gap|new_token|ms_between)\s*\(|\bnext\s*\(\s*\)|\(\s*p\s*[,)])");
  return re;
}

// Comments and string/char literals blanked out, so that text about draws is not a draw.
std::string strip(const std::string& src) {
  std::string out;
  out.reserve(src.size());
  for (size_t i = 0; i < src.size(); ++i) {
    if (src.compare(i, 2, "//") == 0) {
      while (i < src.size() && src[i] != '\n') ++i;
      out += '\n';
    } else if (src.compare(i, 2, "/*") == 0) {
      i = src.find("*/", i + 2);
      if (i == std::string::npos) break;
      ++i;
      out += ' ';
    } else if (src.compare(i, 2, "R\"") == 0) {
      const size_t open = src.find('(', i);
      std::string close(1, ')');
      close.append(src, i + 2, open - i - 2);
      close.push_back('"');
      i = src.find(close, open);
      if (i == std::string::npos) break;
      i += close.size() - 1;
      out += "\"\"";
    } else if (src[i] == '"' || src[i] == '\'') {
      const char quote = src[i];
      for (++i; i < src.size() && src[i] != quote; ++i) {
        if (src[i] == '\\') ++i;
      }
      out += "\"\"";
    } else {
      out += src[i];
    }
  }
  return out;
}

struct Finding {
  std::string where;
  std::string statement;
};

std::vector<Finding> statements_with_two_draws(const std::string& name, const std::string& source) {
  const std::string code = strip(source);
  std::vector<Finding> out;
  size_t start = 0, line = 1, start_line = 1;
  for (size_t i = 0; i <= code.size(); ++i) {
    const bool end = i == code.size() || code[i] == ';' || code[i] == '{' || code[i] == '}';
    if (!end) {
      if (code[i] == '\n') ++line;
      continue;
    }
    const std::string statement = code.substr(start, i - start);
    const auto draws = std::distance(std::sregex_iterator(statement.begin(), statement.end(), draw_call()), std::sregex_iterator());
    if (draws >= 2) out.push_back(Finding{name + ":" + std::to_string(start_line), statement});
    start = i + 1;
    start_line = line;
  }
  return out;
}

TEST(DrawLint, ItFlagsTwoDrawsInOneCallAndPassesNamedLocals) {
  EXPECT_EQ(statements_with_two_draws("bad", "return fmt::format(\"{} {}\", ms_between(p, 0, 9), app(p, w));").size(), 1u);
  EXPECT_EQ(statements_with_two_draws("bad", "f(world.random(3),\n  world.chance(r));").size(), 1u);
  EXPECT_EQ(statements_with_two_draws("bad", "x = rng.next() ^ rng.next();").size(), 1u);
  EXPECT_TRUE(statements_with_two_draws("ok", "const int64_t at = ms_between(p, 0, 9);\nconst auto node = app(p, w);\nf(at, node);").empty());
  EXPECT_TRUE(statements_with_two_draws("ok", "// random(1) and chance(r) in a comment\nf(\"random(1) chance(2)\");").empty());
}

TEST(DrawLint, NoStatementInOversimMakesTwoDraws) {
  namespace fs = std::filesystem;
  const fs::path root(OVERSIM_SOURCE_DIR);
  size_t files = 0;
  std::vector<Finding> findings;
  for (const char* dir : {"sim", "models", "protocols", "properties", "cli", "tests", "bench"}) {
    if (!fs::exists(root / dir)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / dir)) {
      const fs::path& p = entry.path();
      if (!entry.is_regular_file() || (p.extension() != ".cpp" && p.extension() != ".h")) continue;
      if (p.filename() == "draw_lint_test.cpp") continue;
      std::ifstream in(p);
      std::stringstream ss;
      ss << in.rdbuf();
      ++files;
      for (Finding& f : statements_with_two_draws(fs::relative(p, root).string(), ss.str())) findings.push_back(std::move(f));
    }
  }
  EXPECT_GT(files, 50u);  // the scan saw the tree
  for (const Finding& f : findings) ADD_FAILURE() << f.where << ": two random draws in one statement (draw into named locals):\n" << f.statement;
}

}  // namespace
}  // namespace oversim
