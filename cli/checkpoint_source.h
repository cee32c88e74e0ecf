// Finding and reading a checkpoint's headers for `vramlens import` (issue 17): a local checkpoint
// directory, a .safetensors or .gguf file, an index file, or a Hugging Face repo id / URL, read from
// the local HF cache when it is there, else from the Hub (HF_ENDPOINT, default huggingface.co).
// Only headers are read: the first 8 + N bytes of each safetensors shard, the GGUF header (read in
// growing prefixes until it is whole), and the small JSON files; never the weights. Local files and
// the Hub share one loading code through CheckpointFiles (a prefix of a file on disk, or a Range
// request); the headers are parsed by the core's pure readers (core/model/safetensors.h, gguf.h).
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
inline constexpr uint64_t kGgufFirstRange = uint64_t{64} << 10;     // over HTTP: each further range fetches only the bytes not yet held

// The files of a checkpoint: a folder on disk or a Hub repo at a commit. Names are paths from its
// root ("config.json", "model-00001-of-00002.safetensors").
class CheckpointFiles {
public:
    virtual ~CheckpointFiles() = default;
    virtual std::vector<std::string> list() = 0;          // the files at the root, sorted
    virtual bool has(const std::string& name) = 0;
    virtual std::string where(const std::string& name) const = 0;  // its path or URL, for messages and the report
    // The first min(n, size) bytes of the file, and its size. On failure appends "vramlens: ..." to err.
    virtual bool read_prefix(const std::string& name, uint64_t n, std::string& out, uint64_t& size, std::string& err) = 0;
    virtual uint64_t first_gguf_read() const { return kGgufFirstRead; }
};

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

// The Hub the CLI asks: HF_ENDPOINT (trailing "/" dropped), else https://huggingface.co.
std::string hub_endpoint();
// The token sent to it: HF_TOKEN, else the file HF_TOKEN_PATH, else HF_HOME/token (HF_HOME defaulting
// to XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface), as huggingface_hub reads it [hf-hub-client];
// "" when there is none. `from` says which one was used.
std::string hub_token(std::string* from = nullptr);

// The HF cache directory (HF_HUB_CACHE, else HF_HOME/hub, else XDG_CACHE_HOME/huggingface/hub, else
// ~/.cache/huggingface/hub) and, for a repo id "org/name[@revision]" or a Hub URL (parse_hub_reference),
// the snapshot folder models--org--name/snapshots/<commit>/ (refs/<revision> names the commit; "main"
// by default). nullopt when `given` is not a repo id; an empty path when it is not in the cache.
struct HubCacheLookup {
    std::string repo_id, revision, file, cache_dir, snapshot;
};
std::optional<HubCacheLookup> find_in_hub_cache(const std::string& given);

}  // namespace vl::cli
