// Sweeps past one machine: `--shard i/n` runs one contiguous block of a sweep's seeds
// (properties::shard_block), or of an exploration's subtrees (properties::ExploreOptions), and
// writes its result as a shard file; `oversim merge` reads the
// shards back and renders what one run over all their seeds gives (counts, first failing seed,
// the shrunk counterexample), through the same code as the command itself. Any engine that runs
// n copies of a command with an index runs the shards: a Slurm array, a Kubernetes Indexed Job,
// a GitHub Actions matrix (docs/ci.md).
//
// A shard file is JSON: {"schema": "oversim-shard/1", "command": "shard", "of": "check" | "compare" | "hash" | "explore",
// "shard": {"index", "count", "seeds"}, "version", "flags": the command's flags as typed (output
// files left out), "identity": the sweep it ran, "result": the shard's part}. Merging refuses
// shards of different sweeps, of another oversim version, missing or doubled shards.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.h"

namespace oversim::cli {

// The schema a shard file names: not a result (oversim-result/1) but a part of one.
inline constexpr const char* kShardSchema = "oversim-shard/1";

struct ShardSpec {
  uint64_t index = 0;  // 1-based
  uint64_t count = 0;
  bool given() const { return count > 0; }
};
// `--shard i/n`: 1 <= i <= n <= 100000 ("" : not sharded). Throws UsageError.
ShardSpec shard_flag(const std::string& text);
// With --shard: the shard file goes to --json, which must be given; reports and counterexample
// files are drawn from the merge, and --first-seed random would draw a different range per shard.
// `outputs` are the other output flags the command has, with their values.
void check_shard_flags(const ShardSpec& shard, const SweepFlags& sweep, const std::string& json,
                       const std::vector<std::pair<const char*, const std::string*>>& outputs);

nlohmann::json flags_json(const CheckFlags& f);
nlohmann::json flags_json(const CompareFlags& f);
nlohmann::json flags_json(const HashFlags& f);
nlohmann::json flags_json(const ExploreFlags& f);
// Throws std::invalid_argument naming what is missing.
CheckFlags check_flags_from(const nlohmann::json& j);
CompareFlags compare_flags_from(const nlohmann::json& j);
HashFlags hash_flags_from(const nlohmann::json& j);
ExploreFlags explore_flags_from(const nlohmann::json& j);

// The header of a shard file (the "result" is the command's).
nlohmann::json shard_file(const char* of, const ShardSpec& shard, uint64_t first, uint64_t count, nlohmann::json flags, nlohmann::json identity);

// What a command receives from `oversim merge` in place of running its own sweep.
struct Merged {
  size_t shards = 0;
  nlohmann::json identity;             // the sweep the shards ran: the command checks it builds the same
  std::vector<nlohmann::json> results;  // each shard's "result", in index order
};

struct MergeFlags {
  std::vector<std::string> files;
  std::string json;
  std::string html;
  std::string junit;
  std::string emit_scenario;
};
// `oversim merge SHARD.json...`: the shards of one check, compare or hash, merged and rendered as
// that command renders one run over all their seeds; the exit status is that command's.
int merge_command(const MergeFlags& flags);

}  // namespace oversim::cli
