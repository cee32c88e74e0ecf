// Checkpoint headers from disk (checkpoint_source.h).
#include "checkpoint_source.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "json_input.h"

namespace vl::cli {

namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

void print_errors(const std::string& what, const std::vector<FieldError>& errs, std::string& err) {
    err += "vramlens: " + what + ":\n";
    for (const FieldError& e : errs) err += "  " + e.field + ": " + e.message + "\n";
}

// The first min(n, size) bytes of a file, and its size.
bool read_prefix(const std::string& path, uint64_t n, std::string& out, uint64_t& size, std::string& err) {
    std::error_code ec;
    size = fs::file_size(path, ec);
    if (ec) {
        err += "vramlens: cannot read " + path + ": " + ec.message() + "\n";
        return false;
    }
    std::ifstream f(path, std::ios::binary);
    if (!f) {
        err += "vramlens: cannot read " + path + "\n";
        return false;
    }
    out.assign(static_cast<size_t>(std::min(n, size)), '\0');
    f.read(out.data(), static_cast<std::streamsize>(out.size()));
    if (static_cast<uint64_t>(f.gcount()) != out.size()) {
        err += "vramlens: cannot read " + path + ": read error\n";
        return false;
    }
    return true;
}

// A small JSON file, whole (up to one byte past the limit of parse_json_input, which then says so).
bool read_json_file(const std::string& path, std::string& text, std::string& err) {
    uint64_t size = 0;
    return read_prefix(path, kMaxJsonInputBytes + 1, text, size, err);
}

bool read_safetensors(const std::string& path, CheckpointSource& out, std::string& err) {
    std::string bytes;
    uint64_t size = 0;
    if (!read_prefix(path, 8, bytes, size, err)) return false;
    Result<uint64_t> n = safetensors_header_length(bytes, size);
    if (!n) {
        print_errors(path + " is not a valid safetensors file", n.errors, err);
        return false;
    }
    if (!read_prefix(path, 8 + *n, bytes, size, err)) return false;
    Result<SafetensorsHeader> h = read_safetensors_header(bytes, size);
    if (!h) {
        print_errors(path + " is not a valid safetensors file", h.errors, err);
        return false;
    }
    for (const std::string& w : h.warnings) out.warnings.push_back(path + ": " + w);
    out.shards.push_back({path, size, std::move(*h.value)});
    return true;
}

bool read_gguf(const std::string& path, CheckpointSource& out, std::string& err) {
    std::string bytes;
    uint64_t size = 0;
    for (uint64_t want = kGgufFirstRead;; want *= 2) {
        if (!read_prefix(path, want, bytes, size, err)) return false;
        bool truncated = false;
        Result<GgufHeader> h = read_gguf_header(bytes, size, &truncated);
        if (h.ok()) {
            for (const std::string& w : h.warnings) out.warnings.push_back(path + ": " + w);
            out.gguf_path = path;
            out.gguf_file_bytes = size;
            out.gguf = std::move(*h.value);
            return true;
        }
        if (!truncated || bytes.size() >= size || want >= kMaxGgufHeaderRead) {
            if (truncated && want >= kMaxGgufHeaderRead)
                h.errors.push_back({"gguf", "the header is longer than " + describe_input_size(kMaxGgufHeaderRead) + ", more than any model's"});
            print_errors(path + " is not a valid GGUF file", h.errors, err);
            return false;
        }
    }
}

bool read_index(const std::string& path, CheckpointSource& out, std::string& err) {
    std::string text;
    if (!read_json_file(path, text, err)) return false;
    Result<SafetensorsIndex> idx = read_safetensors_index(text);
    if (!idx) {
        print_errors(path + " is not a valid safetensors index", idx.errors, err);
        return false;
    }
    out.index_path = path;
    out.index = std::move(*idx.value);
    const fs::path dir = fs::path(path).parent_path();
    for (const std::string& shard : out.index->shards) {
        const fs::path p = dir / shard;
        std::error_code ec;
        if (!fs::is_regular_file(p, ec)) {
            out.missing_shards.push_back(shard);
            continue;
        }
        if (!read_safetensors(p.string(), out, err)) return false;
    }
    if (!out.missing_shards.empty())
        out.warnings.push_back(std::to_string(out.missing_shards.size()) + " of the " + std::to_string(out.index->shards.size()) +
                               " shards the index names are not here (" + out.missing_shards.front() +
                               (out.missing_shards.size() > 1 ? ", ..." : "") + "): counts by dtype cover the shards present" +
                               (out.index->total_size ? "; the checkpoint size is the index's total_size" : ""));
    return true;
}

// Sorted names of the regular files in dir that end with `ext`.
std::vector<std::string> files_ending(const std::string& dir, const std::string& ext) {
    std::vector<std::string> names;
    std::error_code ec;
    for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
        std::error_code ec2;
        const std::string name = e.path().filename().string();
        if (e.is_regular_file(ec2) && ends_with(name, ext)) names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
}

bool read_directory(const std::string& dir, CheckpointSource& out, std::string& err) {
    out.dir = dir;
    const fs::path d(dir);
    std::error_code ec;
    if (fs::is_regular_file(d / "config.json", ec)) {
        out.config_path = (d / "config.json").string();
        if (!read_json_file(out.config_path, out.config_text, err)) return false;
    }
    if (fs::is_regular_file(d / "adapter_config.json", ec)) {
        out.adapter_path = (d / "adapter_config.json").string();
        if (!read_json_file(out.adapter_path, out.adapter_text, err)) return false;
    }
    const std::vector<std::string> indexes = files_ending(dir, ".safetensors.index.json");
    const std::vector<std::string> shards = files_ending(dir, ".safetensors");
    const std::vector<std::string> ggufs = files_ending(dir, ".gguf");
    if (indexes.size() > 1) {
        err += "vramlens: " + dir + " holds " + std::to_string(indexes.size()) + " safetensors index files (" + indexes[0] + ", " + indexes[1] +
               "): name the one to import\n";
        return false;
    }
    if (!indexes.empty()) {
        if (!read_index((d / indexes[0]).string(), out, err)) return false;
    } else {
        for (const std::string& s : shards)
            if (!read_safetensors((d / s).string(), out, err)) return false;
    }
    if (indexes.empty() && shards.empty() && !ggufs.empty()) {
        if (ggufs.size() > 1) {
            err += "vramlens: " + dir + " holds " + std::to_string(ggufs.size()) + " .gguf files (" + ggufs[0] + ", " + ggufs[1] +
                   ", ...): name the one to import\n";
            return false;
        }
        if (!read_gguf((d / ggufs[0]).string(), out, err)) return false;
    }
    if (out.config_path.empty() && out.adapter_path.empty() && !out.index && out.shards.empty() && !out.gguf) {
        err += "vramlens: " + dir + " has no config.json, adapter_config.json, *.safetensors or *.gguf: is it a model checkpoint?\n";
        return false;
    }
    return true;
}

bool repo_id_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'; }

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? std::string(v) : std::string();
}

}  // namespace

bool load_json_source(const std::string& path, const std::string& text, CheckpointSource& out, std::string& err) {
    out.given = path;
    if (path != "-") out.dir = fs::path(path).parent_path().string();
    std::vector<FieldError> errs;
    std::optional<nlohmann::json> doc = parse_json_input(text, "json", errs);
    if (doc && doc->is_object() && doc->contains("weight_map")) {
        if (path == "-") {
            err += "vramlens: a safetensors index is read from its file, next to its shards, not from standard input\n";
            return false;
        }
        return read_index(path, out, err);
    }
    if (doc && doc->is_object() && doc->contains("peft_type")) {
        out.adapter_path = path;
        out.adapter_text = text;
        return true;
    }
    out.config_path = path;  // a config.json: its reader says what is wrong with it
    out.config_text = text;
    return true;
}

std::optional<HubCacheLookup> find_in_hub_cache(const std::string& given) {
    std::string id = given;
    std::string revision = "main";
    for (const std::string prefix : {"https://huggingface.co/", "http://huggingface.co/", "huggingface.co/"})
        if (id.rfind(prefix, 0) == 0) {
            id = id.substr(prefix.size());
            // org/name/tree/<rev>[/...] or org/name/resolve/<rev>/...
            size_t first = id.find('/');
            size_t second = first == std::string::npos ? std::string::npos : id.find('/', first + 1);
            if (second != std::string::npos) {
                std::string rest = id.substr(second + 1);
                id = id.substr(0, second);
                for (const std::string kind : {"tree/", "resolve/", "blob/"})
                    if (rest.rfind(kind, 0) == 0) revision = rest.substr(kind.size(), rest.find('/', kind.size()) - kind.size());
            }
        }
    if (const size_t at = id.find('@'); at != std::string::npos) {
        revision = id.substr(at + 1);
        id = id.substr(0, at);
    }
    const size_t slash = id.find('/');
    if (id.empty() || revision.empty() || slash == 0 || slash == id.size() - 1 || id.find('/', slash + 1) != std::string::npos) return std::nullopt;
    for (char c : id)
        if (c != '/' && !repo_id_char(c)) return std::nullopt;
    for (char c : revision)
        if (c != '/' && !repo_id_char(c)) return std::nullopt;
    if (id.find("..") != std::string::npos || revision.find("..") != std::string::npos) return std::nullopt;
    HubCacheLookup r;
    r.repo_id = id;
    r.revision = revision;
    if (std::string c = env("HF_HUB_CACHE"); !c.empty()) r.cache_dir = c;
    else if (std::string h = env("HF_HOME"); !h.empty()) r.cache_dir = (fs::path(h) / "hub").string();
    else if (std::string x = env("XDG_CACHE_HOME"); !x.empty()) r.cache_dir = (fs::path(x) / "huggingface" / "hub").string();
    else if (std::string home = env("HOME"); !home.empty()) r.cache_dir = (fs::path(home) / ".cache" / "huggingface" / "hub").string();
    else return r;
    const std::string folder = "models--" + id.substr(0, slash) + "--" + id.substr(slash + 1);
    const fs::path repo = fs::path(r.cache_dir) / folder;
    std::string commit = revision;
    const bool is_commit = revision.size() == 40 && std::all_of(revision.begin(), revision.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
    if (!is_commit) {
        std::ifstream ref(repo / "refs" / revision);
        if (!ref || !std::getline(ref, commit) || commit.empty()) return r;
    }
    std::error_code ec;
    const fs::path snap = repo / "snapshots" / commit;
    if (commit.find('/') == std::string::npos && fs::is_directory(snap, ec)) r.snapshot = snap.string();
    return r;
}

bool load_checkpoint_source(const std::string& given, CheckpointSource& out, std::string& err) {
    out.given = given;
    std::error_code ec;
    const fs::file_status st = fs::status(given, ec);
    if (!ec && fs::is_directory(st)) return read_directory(given, out, err);
    if (!ec && fs::is_regular_file(st)) {
        out.dir = fs::path(given).parent_path().string();
        if (ends_with(given, ".gguf")) return read_gguf(given, out, err);
        if (ends_with(given, ".safetensors")) return read_safetensors(given, out, err);
        std::string text;
        if (!read_json_file(given, text, err)) return false;
        return load_json_source(given, text, out, err);
    }
    if (std::optional<HubCacheLookup> hub = find_in_hub_cache(given)) {
        if (!hub->snapshot.empty()) {
            out.warnings.push_back(given + ": read from the Hugging Face cache, " + hub->snapshot);
            return read_directory(hub->snapshot, out, err);
        }
        err += "vramlens: \"" + given + "\" is not a file or folder here, and the Hugging Face cache (" +
               (hub->cache_dir.empty() ? std::string("HF_HOME is not set") : hub->cache_dir) + ") has no " + hub->repo_id +
               (hub->revision == "main" ? std::string() : " at revision " + hub->revision) +
               ".\n  Downloading from the Hub is not supported yet: download the checkpoint's config.json and "
               "*.safetensors headers (or the whole folder) and import the folder, or set HF_HOME to the cache that holds it.\n";
        return false;
    }
    err += "vramlens: cannot read " + given + ": " + (ec ? ec.message() : std::string("not a file or folder")) + "\n";
    return false;
}

}  // namespace vl::cli
