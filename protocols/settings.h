// The model settings a user may change for their sale (`--pool-size 20 --isolation
// repeatable-read`): one row each, read by the command line (the flag and its help), the
// reproduce line and the workload line (the values that differ from the defaults), the probe key
// (every value), and a design's requirements (Design::requires). A new setting is one row here
// and the Workload field it sets (with its service when it configures one service only).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "protocols/workload.h"

namespace oversim::protocols {

struct Setting {
  const char* flag;      // "--pool-size"
  const char* help;      // one line: what it is, its range, the real system's name and default
  const char* describe;  // the workload line's words: "pool" in "pool 20"
  std::string (*get)(const Workload&);  // the value as it would be typed
  // Parses `text` into the workload; the error names the value and the range, without the flag.
  std::optional<std::string> (*set)(Workload&, const std::string& text);
  // The service it configures: "redis", "redlock", "lock" (any lock service), or "" when it
  // applies to every sale (the buyers, the database, the links to it; a flag that means nothing
  // for some designs is named by cli/notes.cpp's conditions).
  const char* service = "";
};

// The rows, in the order --help lists them; exactly kSettingCount of them.
inline constexpr size_t kSettingCount = 27;
const std::vector<Setting>& settings();
const Setting* find_setting(const std::string& flag);

// " --pool-size 20 --check-constraint off": every setting of `w` that differs from the defaults.
std::string setting_flags(const Workload& w);
// "pool 20, CHECK off": the same, for the workload line ("" when every setting is the default).
std::string describe_settings(const Workload& w);
// Every setting's value, '|' separated (the probe key).
std::string settings_key(const Workload& w);

// A design's requirement: a setting it needs to mean what it says ({"--check-constraint",
// "off"} for a design written for MySQL before 8.0.16, which parsed CHECK and ignored it).
struct Requirement {
  std::string flag;
  std::string value;
  std::string why;
  // The design's own default for a setting the user may set (its token bucket's rate, its
  // session's lease): it replaces the tool's default only, so a typed value, or one a fault
  // profile set for its fault, is the sale's.
  bool user_may_change = false;
};

// The workload with `requires` applied. A requirement whose flag the user typed with another
// value is an error (a typed flag is never overridden): the message names both; unless the
// requirement is only the design's default (user_may_change), when the typed value stands.
struct Required {
  Workload workload;
  std::optional<std::string> problem;
  std::optional<Requirement> contradicted;  // the requirement a typed flag contradicts, if that is the problem
};
Required apply_requirements(const Workload& w, const std::vector<Requirement>& requires_, const std::vector<std::string>& typed,
                            const std::string& design);

}  // namespace oversim::protocols
