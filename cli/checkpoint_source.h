// Finding and reading a checkpoint's headers on disk for `vramlens import` (issue 17): a local
// checkpoint directory, a .safetensors or .gguf file, an index file, or a Hugging Face repo id that
// is in the local HF cache. Only headers are read: the first 8 + N bytes of each safetensors shard,
// the GGUF header (read in growing prefixes until it is whole), and the small JSON files; never the
// weights. The headers are parsed by the core's pure readers (core/model/safetensors.h, gguf.h).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/gguf.h"
#include "model/safetensors.h"

namespace vl::cli {

inline constexpr uint64_t kGgufFirstRead = uint64_t{1} << 20;      // 1 MiB: most headers without the vocabulary
inline constexpr uint64_t kMaxGgufHeaderRead = uint64_t{256} << 20;  // a 256k-token vocabulary is ~20 MB

struct ShardHeader {
    std::string path;
    uint64_t file_bytes = 0;  // the file's size on disk
    SafetensorsHeader header;
};

struct CheckpointSource {
    std::string given;  // what the user typed
    std::string dir;    // the directory the files are in ("" for stdin)
    std::string config_path, config_text;    // config.json, when there is one
    std::string adapter_path, adapter_text;  // adapter_config.json (PEFT)
    std::string index_path;
    std::optional<SafetensorsIndex> index;
    std::vector<ShardHeader> shards;
    std::vector<std::string> missing_shards;  // named by the index, not on disk
    std::string gguf_path;
    uint64_t gguf_file_bytes = 0;
    std::optional<GgufHeader> gguf;
    std::vector<std::string> warnings;
};

// Reads what `given` names. On failure returns false and appends "vramlens: ..." lines to err.
bool load_checkpoint_source(const std::string& given, CheckpointSource& out, std::string& err);

// A JSON file already read (by its name or "-"): a safetensors index (its shards are read from its
// folder), a PEFT adapter_config.json ("peft_type"), or else a config.json.
bool load_json_source(const std::string& path, const std::string& text, CheckpointSource& out, std::string& err);

// The HF cache directory (HF_HUB_CACHE, else HF_HOME/hub, else XDG_CACHE_HOME/huggingface/hub, else
// ~/.cache/huggingface/hub) and, for a repo id "org/name[@revision]" or a huggingface.co URL, the
// snapshot folder models--org--name/snapshots/<commit>/ (refs/<revision> names the commit; "main"
// by default). nullopt when `given` is not a repo id; an empty path when it is not in the cache.
struct HubCacheLookup {
    std::string repo_id, revision, cache_dir, snapshot;
};
std::optional<HubCacheLookup> find_in_hub_cache(const std::string& given);

}  // namespace vl::cli
