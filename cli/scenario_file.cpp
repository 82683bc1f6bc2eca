#include "cli/scenario_file.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "cli/flags.h"
#include "properties/property.h"

namespace oversim::cli {
namespace {

const char* const kTables[] = {"workload", "run", "check", "compare"};
const char* const kVerdicts[] = {"holds", "violated", "incomplete", "vacuous", "unfired"};

bool known_table(const std::string& name) {
  return std::any_of(std::begin(kTables), std::end(kTables), [&](const char* t) { return name == t; });
}

long line_of(const toml::node& n) { return static_cast<long>(n.source().begin.line); }

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const std::string& i : items) {
    if (!out.empty()) out += sep;
    out += i;
  }
  return out;
}

// A TOML basic string: quotes, backslashes and control characters escaped.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  out += '"';
  return out;
}

// A value as TOML: whole numbers that fit TOML's 64-bit signed integers bare, the rest quoted.
std::string toml_value(const std::string& text) {
  const bool digits = !text.empty() && text.size() <= 18 && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  const bool leading_zero = text.size() > 1 && text[0] == '0';
  return digits && !leading_zero ? text : quoted(text);
}

std::string toml_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += quoted(items[i]);
  }
  out += ']';
  return out;
}

class Reader {
 public:
  explicit Reader(std::string path) : file_{std::move(path), {}, {}, {}} {}

  ScenarioFile read() {
    toml::table root;
    try {
      root = toml::parse_file(file_.path);
    } catch (const toml::parse_error& e) {
      const std::string what(e.description());
      if (e.source().begin.line == 0) throw UsageError(fmt::format("{}: cannot read the scenario file: {}", file_.path, what));
      throw UsageError(fmt::format("{}:{}:{}: {}", file_.path, e.source().begin.line, e.source().begin.column, what));
    }
    for (const auto& [k, node] : root) {
      const std::string key(k.str());
      if (const toml::table* t = node.as_table()) {
        if (key == "expect") {
          read_expect(*t);
        } else if (known_table(key)) {
          read_table(key, *t);
        } else {
          throw UsageError(fmt::format("{}:{}: unknown table [{}] (tables: workload, run, check, compare, expect)", file_.path, line_of(node), key));
        }
      } else {
        add("", key, node);
      }
    }
    std::sort(file_.entries.begin(), file_.entries.end(), [](const ScenarioEntry& a, const ScenarioEntry& b) { return a.line < b.line; });
    return std::move(file_);
  }

 private:
  void read_table(const std::string& table, const toml::table& t) {
    for (const auto& [k, node] : t) {
      const std::string key(k.str());
      if (node.is_table()) throw UsageError(fmt::format("{}:{}: [{}] holds values, not the table '{}'", file_.path, line_of(node), table, key));
      add(table, key, node);
    }
  }

  void add(const std::string& table, const std::string& key, const toml::node& node) {
    ScenarioEntry e;
    e.table = table;
    e.key = key;
    e.line = line_of(node);
    const std::string where = fmt::format("{}:{}", file_.path, e.line);
    const std::string name = table.empty() ? key : fmt::format("[{}] {}", table, key);
    if (const auto* s = node.as_string()) {
      e.value = s->get();
      if (e.value.empty()) throw UsageError(fmt::format("{}: {}: an empty value (leave the key out for its default)", where, name));
      // A plan file named in a scenario file is found beside it.
      if (key == "faults" && e.value.size() > 1 && e.value[0] == '@' && !std::filesystem::path(e.value.substr(1)).is_absolute()) {
        e.value = fmt::format("@{}", (std::filesystem::path(file_.path).parent_path() / e.value.substr(1)).string());
      }
    } else if (const auto* i = node.as_integer()) {
      if (i->get() < 0) throw UsageError(fmt::format("{}: {}: {} is negative", where, name, i->get()));
      e.value = std::to_string(i->get());
    } else if (const auto* b = node.as_boolean()) {
      e.is_bool = true;
      e.value = b->get() ? "true" : "false";
    } else if (const auto* a = node.as_array()) {
      std::vector<std::string> items;
      for (const toml::node& item : *a) {
        const auto* str = item.as_string();
        if (str == nullptr || str->get().empty()) throw UsageError(fmt::format("{}: {}: a list of non-empty strings, e.g. [\"a\", \"b\"]", where, name));
        items.push_back(str->get());
      }
      if (items.empty()) throw UsageError(fmt::format("{}: {}: an empty list (leave the key out for its default)", where, name));
      // A plan's faults, one per entry; any other list is a flag's comma-separated list.
      e.value = join(items, key == "faults" ? "; " : ",");
    } else if (node.is_floating_point()) {
      throw UsageError(fmt::format("{}: {}: write durations and ratios as strings (\"500ms\", \"1/4\"), not as a decimal number", where, name));
    } else {
      throw UsageError(fmt::format("{}: {}: a string, a whole number, true/false or a list of strings", where, name));
    }
    file_.entries.push_back(std::move(e));
  }

  void read_expect(const toml::table& t) {
    for (const auto& [k, node] : t) {
      const std::string key(k.str());
      const std::string where = fmt::format("{}:{}", file_.path, line_of(node));
      if (key == "violated") {
        const auto* a = node.as_array();
        if (a == nullptr) throw UsageError(fmt::format("{}: [expect] violated: a list of property names", where));
        for (const toml::node& item : *a) {
          const auto* s = item.as_string();
          if (s == nullptr || properties::find_property(s->get()) == nullptr) {
            throw UsageError(fmt::format("{}: [expect] violated: '{}' is not a property (see oversim list properties)", where, s ? s->get() : std::string("?")));
          }
          file_.expect_violated.push_back(s->get());
        }
      } else if (key == "run" || key == "check") {
        const auto* s = node.as_string();
        const bool known = s != nullptr && std::any_of(std::begin(kVerdicts), std::end(kVerdicts), [&](const char* v) { return s->get() == v; });
        if (!known) throw UsageError(fmt::format("{}: [expect] {}: one of holds, violated, incomplete, vacuous, unfired", where, key));
        file_.expect[key] = s->get();
      } else {
        throw UsageError(fmt::format("{}: [expect] '{}': unknown (run, check: a verdict; violated: the properties)", where, key));
      }
    }
  }

  ScenarioFile file_;
};

}  // namespace

std::string ScenarioFile::where(const ScenarioEntry& e) const { return fmt::format("{}:{}", path, e.line); }

ScenarioFile read_scenario_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw UsageError(fmt::format("{}: no such scenario file", path));
  const auto bytes = std::filesystem::file_size(path, ec);
  if (ec || bytes > (1u << 20)) throw UsageError(fmt::format("{}: a scenario file is at most 1 MiB", path));
  return Reader(path).read();
}

const char* verdict_word(int exit_status) {
  switch (exit_status) {
    case 0: return "holds";
    case 1: return "violated";
    case 4: return "incomplete";
    case 5: return "vacuous";
    case 6: return "unfired";
    default: return "error";
  }
}

std::string ScenarioSource::header_line() const {
  if (!given()) return "";
  if (overridden.empty()) return fmt::format("scenario: {}\n", path);
  return fmt::format("scenario: {}, with {} from the command line\n", path, join(overridden, ", "));
}

std::string scenario_toml(const protocols::Scenario& s, const std::vector<std::string>& asserted, const std::string& written_by, int exit_status,
                          const std::vector<std::string>& violated) {
  std::string out = fmt::format("# {}\n# Replays with: oversim run <this file>\n\n", written_by);
  out += fmt::format("design = {}\n", quoted(s.design));
  if (s.faults.empty()) {
    out += "faults = \"none\"\n";
  } else {
    out += "faults = [\n";
    for (const sim::Fault& f : s.faults.faults) out += fmt::format("  {},\n", quoted(sim::FaultPlan{{f}}.to_string()));
    out += "]\n";
  }
  if (asserted != properties::default_asserted()) out += fmt::format("properties = {}\n", toml_list(asserted));
  std::string run = fmt::format("seed = {}\n", toml_value(std::to_string(s.seed)));
  std::string workload;
  for (const properties::FlagValue& f : properties::scenario_settings(s)) {
    const std::string key = f.flag.substr(2);
    if (key == "horizon") {
      out += fmt::format("horizon = {}\n", quoted(f.value));
    } else if (key == "strategy") {
      run += fmt::format("strategy = {}\n", quoted(f.value));
    } else {
      workload += fmt::format("{} = {}\n", key, toml_value(f.value));
    }
  }
  if (!workload.empty()) {
    out += "\n[workload]\n";
    out += workload;
  }
  out += "\n[run]\n";
  out += run;
  out += fmt::format("\n[expect]\nrun = {}\n", quoted(verdict_word(exit_status)));
  if (!violated.empty()) out += fmt::format("violated = {}\n", toml_list(violated));
  return out;
}

// A scenario file's [expect] for this command, against how it ended: one line after the verdict
// (stderr when stdout carries JSON). The exit status stays the verdict's.
int expectation(const ScenarioSource& source, const char* command, int status, bool quiet_stdout) {
  const auto it = source.expect.find(command);
  if (it == source.expect.end() || status == 2 || status == 3) return status;
  const char* got = verdict_word(status);
  const std::string line = it->second == got ? fmt::format("expected: {} {}, as {} states\n", command, got, source.path)
                                             : fmt::format("expected: NOT as stated: {} expects {} to end {}; it ended {}\n", source.path, command, it->second, got);
  std::fputs(line.c_str(), quiet_stdout ? stderr : stdout);
  return status;
}

}  // namespace oversim::cli
