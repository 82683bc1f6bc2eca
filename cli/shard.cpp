#include "cli/shard.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "cli/flags.h"
#include "cli/result_file.h"
#include "cli/scenario_file.h"
#include "properties/checker.h"
#include "report/json.h"
#include "report/sweep_state.h"

#ifndef OVERSIM_VERSION
#define OVERSIM_VERSION "unknown"
#endif

namespace oversim::cli {

using nlohmann::json;

ShardSpec shard_flag(const std::string& text) {
  if (text.empty()) return {};
  const size_t slash = text.find('/');
  if (slash == std::string::npos) throw UsageError(fmt::format("--shard: '{}' is not i/n (shard i of n, from 1, e.g. 2/4)", text));
  ShardSpec s;
  s.count = unsigned_flag("--shard", text.substr(slash + 1), 1, 100'000);
  s.index = unsigned_flag("--shard", text.substr(0, slash), 1, s.count);
  return s;
}

void check_shard_flags(const ShardSpec& shard, const SweepFlags& sweep, const std::string& json_path,
                       const std::vector<std::pair<const char*, const std::string*>>& outputs) {
  if (!shard.given()) return;
  if (json_path.empty()) throw UsageError("--shard: give --json FILE for the shard's result (oversim merge reads the shards' files)");
  for (const auto& [flag, value] : outputs) {
    if (!value->empty()) throw UsageError(fmt::format("--shard: {} is drawn from all the shards: give it to `oversim merge`", flag));
  }
  if (sweep.first_seed == "random" || sweep.first_seed_drawn) {
    throw UsageError("--shard: --first-seed random draws a range per shard; give every shard the same --first-seed (e.g. the CI run's number)");
  }
}

namespace {

json workload_json(const WorkloadFlags& w) {
  return {{"buyers", w.buyers},
          {"stock", w.stock},
          {"skus", w.skus},
          {"apps", w.apps},
          {"arrival", w.arrival},
          {"burst_window", w.burst_window},
          {"poisson_mean", w.poisson_mean},
          {"retries", w.retries},
          {"double_click", w.double_click},
          {"remote_call", w.remote_call},
          {"lock_ttl", w.lock_ttl},
          {"lock_wait", w.lock_wait},
          {"gateway_timeout", w.gateway_timeout},
          {"replication_lag", w.replication_lag},
          {"persistence", w.persistence},
          {"masters", w.masters},
          {"zk_servers", w.zk_servers},
          {"latency", w.latency},
          {"settings", w.settings},
          {"typed", w.typed}};
}

// --jobs is left out: it changes no result, and each shard may have its own machine.
json sweep_json(const SweepFlags& s) {
  return {{"seeds", s.seeds}, {"first_seed", s.first_seed}, {"first_seed_given", s.first_seed_given},
          {"horizon", s.horizon},     {"strategy", s.strategy},     {"strategy_typed", s.strategy_typed},     {"force", s.force},
          {"workload", workload_json(s.workload)}};
}

json source_json(const ScenarioSource& s) {
  return {{"path", s.path}, {"overridden", s.overridden}, {"expect", s.expect}, {"expect_violated", s.expect_violated}};
}

// Reads a flag file's field: every one required, of the type written.
struct Fields {
  const json& j;
  const json& at(const char* key) const {
    auto it = j.find(key);
    if (it == j.end()) throw std::invalid_argument(fmt::format("its flags have no '{}'", key));
    return *it;
  }
  template <class T>
  void get(const char* key, T& to) const {
    try {
      to = at(key).get<T>();
    } catch (const json::exception&) {
      throw std::invalid_argument(fmt::format("its flags' '{}' is not what oversim writes there", key));
    }
  }
};

WorkloadFlags workload_from(const json& j) {
  const Fields f{j};
  WorkloadFlags w;
  f.get("buyers", w.buyers);
  f.get("stock", w.stock);
  f.get("skus", w.skus);
  f.get("apps", w.apps);
  f.get("arrival", w.arrival);
  f.get("burst_window", w.burst_window);
  f.get("poisson_mean", w.poisson_mean);
  f.get("retries", w.retries);
  f.get("double_click", w.double_click);
  f.get("remote_call", w.remote_call);
  f.get("lock_ttl", w.lock_ttl);
  f.get("lock_wait", w.lock_wait);
  f.get("gateway_timeout", w.gateway_timeout);
  f.get("replication_lag", w.replication_lag);
  f.get("persistence", w.persistence);
  f.get("masters", w.masters);
  f.get("zk_servers", w.zk_servers);
  f.get("latency", w.latency);
  std::vector<std::string> settings;
  f.get("settings", settings);
  if (settings.size() != w.settings.size()) throw std::invalid_argument("its flags hold another oversim's settings");
  std::copy(settings.begin(), settings.end(), w.settings.begin());
  f.get("typed", w.typed);
  return w;
}

SweepFlags sweep_from(const json& j) {
  const Fields f{j};
  SweepFlags s;
  f.get("seeds", s.seeds);
  f.get("first_seed", s.first_seed);
  f.get("first_seed_given", s.first_seed_given);
  f.get("horizon", s.horizon);
  f.get("strategy", s.strategy);
  f.get("strategy_typed", s.strategy_typed);
  f.get("force", s.force);
  s.workload = workload_from(f.at("workload"));
  return s;
}

ScenarioSource source_from(const json& j) {
  const Fields f{j};
  ScenarioSource s;
  f.get("path", s.path);
  f.get("overridden", s.overridden);
  f.get("expect", s.expect);
  f.get("expect_violated", s.expect_violated);
  return s;
}

}  // namespace

json flags_json(const CheckFlags& f) {
  return {{"variant", f.variant},
          {"faults", f.faults},
          {"properties", f.properties},
          {"no_shrink", f.no_shrink},
          {"keep_faults", f.keep_faults},
          {"drop_faults", f.drop_faults},
          {"stop_at_first", f.stop_at_first},
          {"require", f.require},
          {"source", source_json(f.source)},
          {"sweep", sweep_json(f.sweep)}};
}

json flags_json(const CompareFlags& f) {
  return {{"variants", f.variants}, {"faults", f.faults}, {"properties", f.properties}, {"source", source_json(f.source)}, {"sweep", sweep_json(f.sweep)}};
}

json flags_json(const HashFlags& f) { return {{"variants", f.variants}, {"faults", f.faults}, {"sweep", sweep_json(f.sweep)}}; }

json flags_json(const ExploreFlags& f) {
  return {{"variant", f.variant},   {"faults", f.faults},     {"max_faults", f.max_faults},         {"points", f.points},
          {"properties", f.properties}, {"max_executions", f.max_executions}, {"max_deviations", f.max_deviations}, {"horizon", f.horizon},
          {"first", f.first},       {"workload", workload_json(f.workload)}};
}

ExploreFlags explore_flags_from(const json& j) {
  const Fields f{j};
  ExploreFlags e;
  f.get("variant", e.variant);
  f.get("faults", e.faults);
  f.get("max_faults", e.max_faults);
  f.get("points", e.points);
  f.get("properties", e.properties);
  f.get("max_executions", e.max_executions);
  f.get("max_deviations", e.max_deviations);
  f.get("horizon", e.horizon);
  f.get("first", e.first);
  e.workload = workload_from(f.at("workload"));
  return e;
}

CheckFlags check_flags_from(const json& j) {
  const Fields f{j};
  CheckFlags c;
  f.get("variant", c.variant);
  f.get("faults", c.faults);
  f.get("properties", c.properties);
  f.get("no_shrink", c.no_shrink);
  f.get("keep_faults", c.keep_faults);
  f.get("drop_faults", c.drop_faults);
  f.get("stop_at_first", c.stop_at_first);
  f.get("require", c.require);
  c.source = source_from(f.at("source"));
  c.sweep = sweep_from(f.at("sweep"));
  return c;
}

CompareFlags compare_flags_from(const json& j) {
  const Fields f{j};
  CompareFlags c;
  f.get("variants", c.variants);
  f.get("faults", c.faults);
  f.get("properties", c.properties);
  c.source = source_from(f.at("source"));
  c.sweep = sweep_from(f.at("sweep"));
  return c;
}

HashFlags hash_flags_from(const json& j) {
  const Fields f{j};
  HashFlags h;
  f.get("variants", h.variants);
  f.get("faults", h.faults);
  h.sweep = sweep_from(f.at("sweep"));
  return h;
}

json shard_file(const char* of, const ShardSpec& shard, uint64_t first, uint64_t count, json flags, json identity) {
  return {{"schema", kShardSchema},
          {"command", "shard"},
          {"of", of},
          {"shard", {{"index", shard.index}, {"count", shard.count}, {"seeds", count == 0 ? json(nullptr) : json{first, first + (count - 1)}}}},
          {"version", OVERSIM_VERSION},
          {"flags", std::move(flags)},
          {"identity", std::move(identity)}};
}

namespace {

json read_shard(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError(fmt::format("merge: cannot read '{}'", path));
  json j;
  try {
    j = json::parse(in);
  } catch (const json::parse_error&) {
    throw UsageError(fmt::format("merge: '{}' is not JSON (a shard file is what `--shard i/n --json FILE` writes)", path));
  }
  if (!j.is_object() || j.value("command", "") != "shard" || j.value("schema", "") != kShardSchema) {
    throw UsageError(fmt::format("merge: '{}' is not a shard file (run the command with --shard i/n --json FILE)", path));
  }
  for (const char* key : {"of", "shard", "version", "flags", "identity", "result"}) {
    if (!j.contains(key)) throw UsageError(fmt::format("merge: '{}' is not a complete shard file: it has no '{}'", path, key));
  }
  const json& s = j["shard"];
  if (!s.is_object() || !s.contains("index") || !s.contains("count") || !s["index"].is_number_unsigned() || !s["count"].is_number_unsigned()) {
    throw UsageError(fmt::format("merge: '{}': its 'shard' is not {{index, count}}", path));
  }
  return j;
}

}  // namespace

int merge_command(const MergeFlags& f) {
  if (f.files.empty()) throw UsageError("merge: name the shard files (what `--shard i/n --json FILE` wrote)");
  check_result_path("--json", f.json);
  check_result_path("--html", f.html);
  check_result_path("--junit", f.junit);
  check_result_path("--emit-scenario", f.emit_scenario);
  std::vector<json> shards;
  for (const std::string& path : f.files) shards.push_back(read_shard(path));
  const json& first = shards.front();
  const std::string of = first["of"].is_string() ? first["of"].get<std::string>() : "";
  const uint64_t count = first["shard"]["count"].get<uint64_t>();
  std::map<uint64_t, size_t> by_index;
  for (size_t i = 0; i < shards.size(); ++i) {
    const json& s = shards[i];
    const std::string& path = f.files[i];
    if (s["of"] != first["of"]) throw UsageError(fmt::format("merge: '{}' is a shard of {}, '{}' of {}", path, s["of"].dump(), f.files[0], first["of"].dump()));
    if (s["version"] != OVERSIM_VERSION) {
      throw UsageError(fmt::format("merge: '{}' was written by oversim {}, this is {}: merge with the oversim that ran the shards", path,
                                   s["version"].dump(), OVERSIM_VERSION));
    }
    if (s["shard"]["count"].get<uint64_t>() != count) {
      throw UsageError(fmt::format("merge: '{}' is a shard of {}, '{}' of {}", path, s["shard"]["count"].get<uint64_t>(), f.files[0], count));
    }
    if (s["flags"] != first["flags"] || s["identity"] != first["identity"]) {
      throw UsageError(fmt::format("merge: '{}' and '{}' are shards of different sweeps (their flags or sales differ)", f.files[0], path));
    }
    const uint64_t index = s["shard"]["index"].get<uint64_t>();
    if (index == 0 || index > count) throw UsageError(fmt::format("merge: '{}' says it is shard {}/{}", path, index, count));
    if (by_index.count(index) > 0) throw UsageError(fmt::format("merge: shard {}/{} given twice ('{}' and '{}')", index, count, f.files[by_index[index]], path));
    by_index[index] = i;
  }
  std::vector<std::string> missing;
  for (uint64_t i = 1; i <= count && missing.size() < 10; ++i) {
    if (by_index.count(i) == 0) missing.push_back(std::to_string(i));
  }
  if (!missing.empty()) throw UsageError(fmt::format("merge: shards missing: {} of {} (each of 1..{} once)", fmt::join(missing, ", "), count, count));
  // Every shard's result read before anything runs: a shard cut short is refused by name.
  for (const auto& [index, i] : by_index) {
    const json& r = shards[i]["result"];
    try {
      if (of == "check") report::sweep_state(r);
      if (of == "compare") {
        if (!r.is_array()) throw std::invalid_argument("its result is not a list of cells");
        for (const json& cell : r) report::sweep_state(cell);
      }
      if (of == "explore") report::explore_state(r);
      if (of == "hash" && (!r.is_array() || !std::all_of(r.begin(), r.end(), [](const json& line) { return line.is_string(); }))) {
        throw std::invalid_argument("its result is not a list of lines");
      }
    } catch (const std::invalid_argument& e) {
      throw UsageError(fmt::format("merge: '{}' is not a complete shard file: {}", f.files[i], e.what()));
    }
  }
  Merged merged;
  merged.shards = shards.size();
  merged.identity = first["identity"];
  for (const auto& [index, i] : by_index) merged.results.push_back(shards[i]["result"]);
  fmt::print(stderr, "oversim merge: {} shards of `{} {}`\n", count, properties::reproduce_program(), of);
  // The flags as the shards parsed them; a file that does not hold them is not this oversim's.
  auto flags_of = [&](auto read) {
    try {
      return read(first["flags"]);
    } catch (const std::invalid_argument& e) {
      throw UsageError(fmt::format("merge: '{}' is not a shard file of this oversim: {}", f.files[0], e.what()));
    }
  };
  if (of == "check") {
    CheckFlags c = flags_of(check_flags_from);
    c.json = f.json;
    c.html = f.html;
    c.junit = f.junit;
    c.emit_scenario = f.emit_scenario;
    return expectation(c.source, "check", check_command(c, &merged), false);
  }
  if (of == "explore") {
    if (!f.emit_scenario.empty()) throw UsageError("merge: --emit-scenario is for shards of check, not of explore");
    ExploreFlags e = flags_of(explore_flags_from);
    e.json = f.json;
    e.html = f.html;
    e.junit = f.junit;
    return explore_command(e, &merged);
  }
  if (of == "compare" || of == "hash") {
    if (!f.emit_scenario.empty() || !f.junit.empty()) throw UsageError(fmt::format("merge: --emit-scenario and --junit are for shards of check, not of {}", of));
  }
  if (of == "compare") {
    CompareFlags c = flags_of(compare_flags_from);
    c.json = f.json;
    c.html = f.html;
    return compare_command(c, &merged);
  }
  if (of == "hash") {
    if (!f.html.empty()) throw UsageError("merge: --html is for shards of check and compare, not of hash");
    HashFlags h = flags_of(hash_flags_from);
    h.json = f.json;
    return hash_command(h, &merged);
  }
  throw UsageError(fmt::format("merge: '{}' is a shard of '{}', which has no shards (check, compare, hash and explore do)", f.files[0], of));
}

}  // namespace oversim::cli
