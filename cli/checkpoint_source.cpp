// Checkpoint headers from disk (checkpoint_source.h).
#include "checkpoint_source.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <cstdio>
#include <map>

#include "hub_http.h"
#include "json_input.h"
#include "model/hub_reference.h"

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

// The first min(n, size) bytes of a file on disk, and its size.
bool read_file_prefix(const std::string& path, uint64_t n, std::string& out, uint64_t& size, std::string& err) {
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

// A folder on disk ("" is the current one).
class LocalFiles final : public CheckpointFiles {
public:
    explicit LocalFiles(std::string dir) : dir_(std::move(dir)) {}
    std::vector<std::string> list() override {
        std::vector<std::string> names;
        std::error_code ec;
        for (const fs::directory_entry& e : fs::directory_iterator(dir_.empty() ? "." : dir_, ec)) {
            std::error_code ec2;
            if (e.is_regular_file(ec2)) names.push_back(e.path().filename().string());
        }
        std::sort(names.begin(), names.end());
        return names;
    }
    bool has(const std::string& name) override {
        std::error_code ec;
        return fs::is_regular_file(where(name), ec);
    }
    std::string where(const std::string& name) const override { return (fs::path(dir_) / name).string(); }
    bool read_prefix(const std::string& name, uint64_t n, std::string& out, uint64_t& size, std::string& err) override {
        return read_file_prefix(where(name), n, out, size, err);
    }

private:
    std::string dir_;
};

std::string parent_of(const std::string& name) {
    const size_t slash = name.rfind('/');
    return slash == std::string::npos ? std::string() : name.substr(0, slash + 1);
}

// A small JSON file, whole (up to one byte past the limit of parse_json_input, which then says so).
bool read_json_file(CheckpointFiles& files, const std::string& name, std::string& text, std::string& err) {
    uint64_t size = 0;
    return files.read_prefix(name, kMaxJsonInputBytes + 1, text, size, err);
}

bool read_safetensors(CheckpointFiles& files, const std::string& name, CheckpointSource& out, std::string& err) {
    const std::string path = files.where(name);
    std::string bytes;
    uint64_t size = 0;
    if (!files.read_prefix(name, 8, bytes, size, err)) return false;
    Result<uint64_t> n = safetensors_header_length(bytes, size);
    if (!n) {
        print_errors(path + " is not a valid safetensors file", n.errors, err);
        return false;
    }
    if (!files.read_prefix(name, 8 + *n, bytes, size, err)) return false;
    Result<SafetensorsHeader> h = read_safetensors_header(bytes, size);
    if (!h) {
        print_errors(path + " is not a valid safetensors file", h.errors, err);
        return false;
    }
    for (const std::string& w : h.warnings) out.warnings.push_back(path + ": " + w);
    out.shards.push_back({path, size, std::move(*h.value)});
    return true;
}

bool read_gguf(CheckpointFiles& files, const std::string& name, CheckpointSource& out, std::string& err) {
    const std::string path = files.where(name);
    std::string bytes;
    uint64_t size = 0;
    for (uint64_t want = files.first_gguf_read();; want *= 2) {
        if (!files.read_prefix(name, want, bytes, size, err)) return false;
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

// llama.cpp's split GGUF files, "<name>-00001-of-00003.gguf" (gguf-split: "%s-%05d-of-%05d.gguf", and the
// split.no / split.count / split.tensors.count keys [llama-cpp-code]): the stem, the part (1-based), the count.
struct SplitName {
    std::string stem;
    int part = 0, count = 0;
};
std::optional<SplitName> split_name(const std::string& name) {
    // <stem>-NNNNN-of-NNNNN.gguf
    constexpr size_t kTail = std::char_traits<char>::length("-00001-of-00003.gguf");
    if (name.size() <= kTail || !ends_with(name, ".gguf")) return std::nullopt;
    const std::string tail = name.substr(name.size() - kTail);
    if (tail[0] != '-' || tail.compare(6, 4, "-of-") != 0) return std::nullopt;
    for (size_t i : {1u, 2u, 3u, 4u, 5u, 10u, 11u, 12u, 13u, 14u})
        if (!std::isdigit(static_cast<unsigned char>(tail[i]))) return std::nullopt;
    SplitName s{name.substr(0, name.size() - kTail), std::stoi(tail.substr(1, 5)), std::stoi(tail.substr(10, 5))};
    if (s.part < 1 || s.count < 2 || s.part > s.count) return std::nullopt;
    return s;
}
std::string split_part_name(const SplitName& s, int part) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "-%05d-of-%05d.gguf", part, s.count);
    return s.stem + buf;
}

// Every part of a split GGUF (any part named): each part's header is read; the tensors of all parts
// are counted together, the sizes summed; the model's metadata is the first part's.
bool read_gguf_split(CheckpointFiles& files, const SplitName& split, CheckpointSource& out, std::string& err) {
    std::optional<GgufHeader> merged;
    uint64_t file_bytes = 0;
    for (int part = 1; part <= split.count; ++part) {
        const std::string name = split_part_name(split, part);
        if (!files.has(name)) {
            err += "vramlens: " + files.where(name) + " is missing: a GGUF split in " + std::to_string(split.count) +
                   " parts is read whole (every part's header)\n";
            return false;
        }
        CheckpointSource one;
        if (!read_gguf(files, name, one, err)) return false;
        out.warnings.insert(out.warnings.end(), one.warnings.begin(), one.warnings.end());
        const GgufKv* count = one.gguf->find("split.count");
        if (count && count->unsigned_value && *count->unsigned_value != static_cast<uint64_t>(split.count)) {
            err += "vramlens: " + files.where(name) + ": its split.count is " + std::to_string(*count->unsigned_value) + " but its name says " +
                   std::to_string(split.count) + " parts\n";
            return false;
        }
        file_bytes += one.gguf_file_bytes;
        if (!merged) {
            merged = std::move(*one.gguf);
            continue;
        }
        for (GgufTensor& t : one.gguf->tensors) merged->tensors.push_back(std::move(t));
        merged->data_bytes += one.gguf->data_bytes;
    }
    out.gguf_path = files.where(split_part_name(split, 1));
    out.gguf_file_bytes = file_bytes;
    out.gguf = std::move(*merged);
    out.warnings.push_back(out.gguf_path + ": a GGUF split in " + std::to_string(split.count) + " parts: tensors and sizes are summed over the " +
                           std::to_string(split.count) + " files; the header figures and tensor offsets are each part's own");
    return true;
}

// A .gguf file, or all parts of the split GGUF it is one of.
bool read_gguf_or_split(CheckpointFiles& files, const std::string& name, CheckpointSource& out, std::string& err) {
    if (std::optional<SplitName> s = split_name(name)) return read_gguf_split(files, *s, out, err);
    return read_gguf(files, name, out, err);
}

bool read_index_text(CheckpointFiles& files, const std::string& name, const std::string& text, CheckpointSource& out, std::string& err) {
    const std::string path = files.where(name);
    Result<SafetensorsIndex> idx = read_safetensors_index(text);
    if (!idx) {
        print_errors(path + " is not a valid safetensors index", idx.errors, err);
        return false;
    }
    out.index_path = path;
    out.index = std::move(*idx.value);
    const std::string dir = parent_of(name);
    for (const std::string& shard : out.index->shards) {
        if (!files.has(dir + shard)) {
            out.missing_shards.push_back(shard);
            continue;
        }
        if (!read_safetensors(files, dir + shard, out, err)) return false;
    }
    if (!out.missing_shards.empty())
        out.warnings.push_back(std::to_string(out.missing_shards.size()) + " of the " + std::to_string(out.index->shards.size()) +
                               " shards the index names are not here (" + out.missing_shards.front() +
                               (out.missing_shards.size() > 1 ? ", ..." : "") + "): counts by dtype cover the shards present" +
                               (out.index->total_size ? "; the checkpoint size is the index's total_size" : ""));
    return true;
}

bool read_index(CheckpointFiles& files, const std::string& name, CheckpointSource& out, std::string& err) {
    std::string text;
    if (!read_json_file(files, name, text, err)) return false;
    return read_index_text(files, name, text, out, err);
}

// Sorted names of the files at the root of `files` that end with `ext`.
std::vector<std::string> files_ending(CheckpointFiles& files, const std::string& ext) {
    std::vector<std::string> names;
    for (const std::string& name : files.list())
        if (ends_with(name, ext)) names.push_back(name);
    return names;
}

// `hint`: how to name one file of several ("" on disk: its path).
bool read_directory(CheckpointFiles& files, const std::string& dir, const std::string& hint, CheckpointSource& out, std::string& err) {
    out.dir = dir;
    if (files.has("config.json")) {
        out.config_path = files.where("config.json");
        if (!read_json_file(files, "config.json", out.config_text, err)) return false;
    }
    if (files.has("adapter_config.json")) {
        out.adapter_path = files.where("adapter_config.json");
        if (!read_json_file(files, "adapter_config.json", out.adapter_text, err)) return false;
    }
    const std::vector<std::string> indexes = files_ending(files, ".safetensors.index.json");
    const std::vector<std::string> shards = files_ending(files, ".safetensors");
    const std::vector<std::string> ggufs = files_ending(files, ".gguf");
    if (indexes.size() > 1) {
        err += "vramlens: " + dir + " holds " + std::to_string(indexes.size()) + " safetensors index files (" + indexes[0] + ", " + indexes[1] +
               "): name the one to import" + hint + "\n";
        return false;
    }
    if (!indexes.empty()) {
        if (!read_index(files, indexes[0], out, err)) return false;
    } else {
        for (const std::string& s : shards)
            if (!read_safetensors(files, s, out, err)) return false;
    }
    if (indexes.empty() && shards.empty() && !ggufs.empty()) {
        // The parts of one split GGUF are one model.
        const std::optional<SplitName> first = split_name(ggufs[0]);
        bool one_split = first && ggufs.size() == static_cast<size_t>(first->count);
        for (const std::string& g : ggufs) {
            const std::optional<SplitName> s = split_name(g);
            one_split = one_split && s && s->stem == first->stem && s->count == first->count;
        }
        if (one_split) return read_gguf_split(files, *first, out, err);
        if (ggufs.size() > 1) {
            err += "vramlens: " + dir + " holds " + std::to_string(ggufs.size()) + " .gguf files (" + ggufs[0] + ", " + ggufs[1] +
                   ", ...): name the one to import" + hint + "\n";
            return false;
        }
        if (!read_gguf(files, ggufs[0], out, err)) return false;
    }
    if (out.config_path.empty() && out.adapter_path.empty() && !out.index && out.shards.empty() && !out.gguf) {
        err += "vramlens: " + dir + " has no config.json, adapter_config.json, *.safetensors or *.gguf: is it a model checkpoint?\n";
        return false;
    }
    return true;
}

// A JSON file already read: a safetensors index (its shards are read from its folder), a PEFT
// adapter_config.json ("peft_type"), or else a config.json.
bool load_json(CheckpointFiles& files, const std::string& name, const std::string& text, CheckpointSource& out, std::string& err) {
    std::vector<FieldError> errs;
    std::optional<nlohmann::json> doc = parse_json_input(text, "json", errs);
    if (doc && doc->is_object() && doc->contains("weight_map")) return read_index_text(files, name, text, out, err);
    if (doc && doc->is_object() && doc->contains("peft_type")) {
        out.adapter_path = files.where(name);
        out.adapter_text = text;
        return true;
    }
    out.config_path = files.where(name);  // a config.json: its reader says what is wrong with it
    out.config_text = text;
    return true;
}

// One named file: by its suffix, a GGUF, a safetensors file, or a JSON file.
bool read_one_file(CheckpointFiles& files, const std::string& name, CheckpointSource& out, std::string& err) {
    if (ends_with(name, ".gguf")) return read_gguf_or_split(files, name, out, err);
    if (ends_with(name, ".safetensors")) return read_safetensors(files, name, out, err);
    std::string text;
    if (!read_json_file(files, name, text, err)) return false;
    return load_json(files, name, text, out, err);
}

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? std::string(v) : std::string();
}

bool env_true(const char* name) {
    std::string v = env(name);
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return v == "1" || v == "ON" || v == "YES" || v == "TRUE";
}

std::string trimmed(std::string s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
    size_t i = 0;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    return s.substr(i);
}

// "bytes a-b/total" -> a and total.
bool parse_content_range(const std::string& v, uint64_t& first, uint64_t& total) {
    unsigned long long a = 0, b = 0, t = 0;
    if (std::sscanf(v.c_str(), "bytes %llu-%llu/%llu", &a, &b, &t) == 3) {
        first = a;
        total = t;
        return true;
    }
    if (std::sscanf(v.c_str(), "bytes */%llu", &t) == 1) {
        first = t;
        total = t;
        return true;
    }
    return false;
}

// A Hub repo at one commit. Each file's bytes already fetched are kept, so a longer prefix asks only
// for the bytes not yet held (one Range request each).
class HubFiles final : public CheckpointFiles {
public:
    HubFiles(std::string endpoint, HubReference at, std::string token, std::vector<std::string> siblings)
        : endpoint_(std::move(endpoint)), at_(std::move(at)), token_(std::move(token)), siblings_(std::move(siblings)) {}
    std::vector<std::string> list() override {
        std::vector<std::string> names;
        for (const std::string& s : siblings_)
            if (s.find('/') == std::string::npos) names.push_back(s);
        std::sort(names.begin(), names.end());
        return names;
    }
    bool has(const std::string& name) override { return std::find(siblings_.begin(), siblings_.end(), name) != siblings_.end(); }
    std::string where(const std::string& name) const override { return hub_file_url(endpoint_, at_, name); }
    uint64_t first_gguf_read() const override { return kGgufFirstRange; }

    bool read_prefix(const std::string& name, uint64_t n, std::string& out, uint64_t& size, std::string& err) override {
        Held& h = held_[name];
        while (!(h.size_known && h.data.size() >= std::min<uint64_t>(n, h.size))) {
            const uint64_t from = h.data.size();
            const uint64_t to = h.size_known ? std::min<uint64_t>(n, h.size) : n;  // exclusive
            // A server that ignores Range answers 200 with the file from its start: read up to `to` of it.
            HttpResponse r = http_get(where(name), std::to_string(from) + "-" + std::to_string(to - 1), token_, url_origin(endpoint_), to);
            if (r.status == 206) {
                uint64_t first = 0, total = 0;
                if (!parse_content_range(r.content_range, first, total) || first != from) {
                    err += "vramlens: " + where(name) + ": the server answered a range request with an unexpected Content-Range (\"" +
                           r.content_range + "\")\n";
                    return false;
                }
                h.data += r.body;
                h.size = total;
                h.size_known = true;
                if (r.body.empty() && h.data.size() < std::min<uint64_t>(n, total)) {
                    err += "vramlens: " + where(name) + ": the server sent no bytes for a range it accepted\n";
                    return false;
                }
            } else if (r.status == 200) {  // the whole file, from its start (the server ignored Range)
                h.data = r.body;
                char* end = nullptr;
                const unsigned long long len = std::strtoull(r.content_length.c_str(), &end, 10);
                h.size = !r.content_length.empty() && end && *end == '\0' ? len : r.body.size();
                h.size_known = true;
                if (h.data.size() < std::min<uint64_t>(n, h.size)) {
                    err += "vramlens: " + where(name) + ": the answer ended after " + std::to_string(h.data.size()) + " of " + std::to_string(h.size) + " bytes\n";
                    return false;
                }
            } else if (r.status == 416) {  // the range starts past the end: the file is what is held
                uint64_t first = 0, total = 0;
                if (!parse_content_range(r.content_range, first, total) || total > h.data.size()) {
                    err += "vramlens: " + where(name) + ": the server refused the range " + std::to_string(from) + "-" + std::to_string(to - 1) + " (416)\n";
                    return false;
                }
                h.size = total;
                h.size_known = true;
            } else {
                err += "vramlens: " + hub_error_message(r.status, r.x_error_code, r.retry_after, at_.repo_id, name, r.error) + "\n";
                return false;
            }
        }
        out = h.data.substr(0, static_cast<size_t>(std::min<uint64_t>(n, h.size)));
        size = h.size;
        return true;
    }

private:
    struct Held {
        std::string data;
        uint64_t size = 0;
        bool size_known = false;
    };
    std::string endpoint_;
    HubReference at_;
    std::string token_;
    std::vector<std::string> siblings_;
    std::map<std::string, Held> held_;
};

std::string offline_tail() { return std::string(hub_offline_alternative()); }

}  // namespace

bool load_json_source(const std::string& path, const std::string& text, CheckpointSource& out, std::string& err) {
    out.given = path;
    if (path != "-") out.dir = fs::path(path).parent_path().string();
    std::vector<FieldError> errs;
    std::optional<nlohmann::json> doc = parse_json_input(text, "json", errs);
    if (doc && doc->is_object() && doc->contains("weight_map") && path == "-") {
        err += "vramlens: a safetensors index is read from its file, next to its shards, not from standard input\n";
        return false;
    }
    if (path == "-") {
        out.config_path = path;
        if (doc && doc->is_object() && doc->contains("peft_type")) {
            out.config_path.clear();
            out.adapter_path = path;
            out.adapter_text = text;
            return true;
        }
        out.config_text = text;
        return true;
    }
    LocalFiles files(fs::path(path).parent_path().string());
    return load_json(files, fs::path(path).filename().string(), text, out, err);
}

std::string hub_endpoint() {
    std::string e = env("HF_ENDPOINT");
    if (e.empty()) e = std::string(kHubDefaultEndpoint);
    while (!e.empty() && e.back() == '/') e.pop_back();
    return e;
}

std::string hub_token(std::string* from) {
    for (const char* name : {"HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"})
        if (std::string t = trimmed(env(name)); !t.empty()) {
            if (from) *from = name;
            return t;
        }
    std::string path = env("HF_TOKEN_PATH");
    if (path.empty()) {
        fs::path home;
        if (std::string h = env("HF_HOME"); !h.empty()) home = h;
        else if (std::string x = env("XDG_CACHE_HOME"); !x.empty()) home = fs::path(x) / "huggingface";
        else if (std::string u = env("HOME"); !u.empty()) home = fs::path(u) / ".cache" / "huggingface";
        else return {};
        path = (home / "token").string();
    }
    std::ifstream f(path);
    std::string t;
    if (!f || !std::getline(f, t)) return {};
    t = trimmed(t);
    if (from && !t.empty()) *from = path;
    return t;
}

std::optional<HubCacheLookup> find_in_hub_cache(const std::string& given) {
    if (!looks_like_hub_reference(given, hub_endpoint())) return std::nullopt;
    Result<HubReference> ref = parse_hub_reference(given, hub_endpoint());
    if (!ref) return std::nullopt;
    const std::string& id = ref->repo_id;
    const std::string& revision = ref->revision;
    HubCacheLookup r;
    r.repo_id = id;
    r.revision = revision;
    r.file = ref->file;
    if (std::string c = env("HF_HUB_CACHE"); !c.empty()) r.cache_dir = c;
    else if (std::string h = env("HF_HOME"); !h.empty()) r.cache_dir = (fs::path(h) / "hub").string();
    else if (std::string x = env("XDG_CACHE_HOME"); !x.empty()) r.cache_dir = (fs::path(x) / "huggingface" / "hub").string();
    else if (std::string home = env("HOME"); !home.empty()) r.cache_dir = (fs::path(home) / ".cache" / "huggingface" / "hub").string();
    else return r;
    const size_t slash = id.find('/');
    const std::string folder = "models--" + id.substr(0, slash) + "--" + id.substr(slash + 1);
    const fs::path repo = fs::path(r.cache_dir) / folder;
    std::string commit = revision;
    const bool is_commit = revision.size() == 40 && std::all_of(revision.begin(), revision.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
    if (!is_commit) {
        std::ifstream ref_file(repo / "refs" / revision);
        if (!ref_file || !std::getline(ref_file, commit) || commit.empty()) return r;
    }
    std::error_code ec;
    const fs::path snap = repo / "snapshots" / commit;
    if (commit.find('/') == std::string::npos && commit.find("..") == std::string::npos && fs::is_directory(snap, ec)) r.snapshot = snap.string();
    return r;
}

namespace {

// The base model's config.json for an adapter read from the Hub: from the local cache, else the Hub.
void load_base_config(const std::string& endpoint, const std::string& token, CheckpointSource& out) {
    std::vector<FieldError> errs;
    std::optional<nlohmann::json> a = parse_json_input(out.adapter_text, "adapter_config", errs);
    if (!a || !a->is_object() || !a->contains("base_model_name_or_path") || !(*a)["base_model_name_or_path"].is_string()) return;
    const std::string base = (*a)["base_model_name_or_path"].get<std::string>();
    if (!looks_like_hub_reference(base, endpoint) || !parse_hub_reference(base, endpoint).ok()) return;
    std::string err;
    if (std::optional<HubCacheLookup> c = find_in_hub_cache(base); c && !c->snapshot.empty()) {
        LocalFiles files(c->snapshot);
        if (files.has("config.json") && read_json_file(files, "config.json", out.config_text, err)) {
            out.config_path = files.where("config.json");
            out.warnings.push_back("the model is the adapter's base model, " + base + ": its config.json from the Hugging Face cache");
            return;
        }
    }
    HubFiles files(endpoint, *parse_hub_reference(base, endpoint), token, {});
    if (read_json_file(files, "config.json", out.config_text, err)) {
        out.config_path = files.where("config.json");
        out.warnings.push_back("the model is the adapter's base model, " + base + ": its config.json from the Hub");
    } else {
        out.config_text.clear();
        out.warnings.push_back("the adapter's base model " + base + " could not be read, so the model is not known: " + trimmed(err));
    }
}

bool load_from_hub(const std::string& given, const HubReference& ref, const HubCacheLookup& cache, CheckpointSource& out, std::string& err) {
    const std::string endpoint = hub_endpoint();
    const std::string lead = "vramlens: \"" + given + "\" is not a file or folder here, and the Hugging Face cache (" +
                             (cache.cache_dir.empty() ? std::string("HF_HOME is not set") : cache.cache_dir) + ") has no " + ref.repo_id +
                             (ref.revision == kHubDefaultRevision ? std::string() : " at revision " + ref.revision);
    if (env_true("HF_HUB_OFFLINE")) {
        err += lead + "; HF_HUB_OFFLINE is set, so the Hub is not asked.\n  " + offline_tail() + "\n";
        return false;
    }
    if (!http_available()) {
        err += lead + ", and this vramlens was built without network support (libcurl), so it cannot read it from the Hub: rebuild it "
                      "with libcurl (Debian: apt-get install libcurl4-openssl-dev).\n  " + offline_tail() + "\n";
        return false;
    }
    const std::string token = hub_token();
    HttpResponse api = http_get(hub_api_url(endpoint, ref), "", token, url_origin(endpoint), kMaxJsonInputBytes + 1);
    if (api.status != 200) {
        err += "vramlens: " + hub_error_message(api.status, api.x_error_code, api.retry_after, ref.repo_id, {},
                                                api.status == 0 ? api.error + ", " + endpoint : std::string()) + "\n";
        return false;
    }
    std::vector<FieldError> errs;
    std::optional<nlohmann::json> info = parse_json_input(api.body, "api", errs);
    std::vector<std::string> siblings;
    std::string sha;
    if (info && info->is_object()) {
        if (auto s = info->find("sha"); s != info->end() && s->is_string()) sha = s->get<std::string>();
        if (auto list = info->find("siblings"); list != info->end() && list->is_array())
            for (const nlohmann::json& f : *list)
                if (f.is_object() && f.contains("rfilename") && f["rfilename"].is_string()) siblings.push_back(f["rfilename"].get<std::string>());
    }
    if (!info || !info->is_object() || !info->contains("siblings")) {
        err += "vramlens: " + hub_api_url(endpoint, ref) + " did not answer with a model's description (JSON with \"siblings\"): is " + endpoint +
               " a Hugging Face Hub?\n  " + offline_tail() + "\n";
        return false;
    }
    HubReference at = ref;
    const bool commit = sha.size() == 40 && std::all_of(sha.begin(), sha.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
    if (commit) at.revision = sha;  // every file from the same commit
    HubFiles files(endpoint, at, token, siblings);
    out.given = given;
    out.warnings.push_back(given + ": read from the Hugging Face Hub (" + endpoint + "), " + ref.repo_id + " at " + ref.revision +
                           (commit && sha != ref.revision ? " (commit " + sha + ")" : std::string()) +
                           (token.empty() ? std::string() : ", with a token"));
    bool ok = false;
    if (!ref.file.empty()) {
        if (!files.has(ref.file)) {
            err += "vramlens: " + hub_error_message(404, "EntryNotFound", {}, ref.repo_id, ref.file) + "\n";
            return false;
        }
        out.dir = endpoint + "/" + ref.repo_id;
        ok = read_one_file(files, ref.file, out, err);
    } else {
        const std::string example = endpoint + "/" + ref.repo_id + "/blob/" + hub_percent_encode(ref.revision, false) + "/<file>";
        ok = read_directory(files, endpoint + "/" + ref.repo_id, " (give its URL, " + example + ")", out, err);
    }
    if (ok && !out.adapter_text.empty() && out.config_text.empty()) load_base_config(endpoint, token, out);
    return ok;
}

}  // namespace

bool load_checkpoint_source(const std::string& given, CheckpointSource& out, std::string& err) {
    out.given = given;
    std::error_code ec;
    const fs::file_status st = fs::status(given, ec);
    if (!ec && fs::is_directory(st)) {
        LocalFiles files(given);
        return read_directory(files, given, "", out, err);
    }
    if (!ec && fs::is_regular_file(st)) {
        out.dir = fs::path(given).parent_path().string();
        LocalFiles files(out.dir);
        const std::string name = fs::path(given).filename().string();
        if (ends_with(given, ".gguf")) return read_gguf_or_split(files, name, out, err);
        if (ends_with(given, ".safetensors")) return read_safetensors(files, name, out, err);
        std::string text;
        if (!read_json_file(files, name, text, err)) return false;
        return load_json_source(given, text, out, err);
    }
    if (looks_like_hub_reference(given, hub_endpoint())) {
        Result<HubReference> ref = parse_hub_reference(given, hub_endpoint());
        if (!ref) {
            err += "vramlens: \"" + given + "\" is not a file or folder here, nor a Hugging Face model:\n";
            for (const FieldError& e : ref.errors) err += "  " + e.field + ": " + e.message + "\n";
            return false;
        }
        const HubCacheLookup cache = find_in_hub_cache(given).value_or(HubCacheLookup{});
        if (!cache.snapshot.empty()) {
            LocalFiles files(cache.snapshot);
            if (ref->file.empty()) {
                out.warnings.push_back(given + ": read from the Hugging Face cache, " + cache.snapshot);
                return read_directory(files, cache.snapshot, "", out, err);
            }
            if (files.has(ref->file)) {
                out.warnings.push_back(given + ": read from the Hugging Face cache, " + files.where(ref->file));
                out.dir = cache.snapshot;
                return read_one_file(files, ref->file, out, err);
            }
        }
        return load_from_hub(given, *ref, cache, out, err);
    }
    err += "vramlens: cannot read " + given + ": " + (ec ? ec.message() : std::string("not a file or folder")) + "\n";
    return false;
}

}  // namespace vl::cli
