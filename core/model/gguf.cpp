// GGUF headers (gguf.h): the layout of docs/gguf.md and the checks of gguf.cpp [gguf-spec].
#include "model/gguf.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include "text_format.h"
#include <set>

#include "units.h"

namespace vl {

namespace {

std::string grouped(uint64_t v) {
    if (v <= INT64_MAX) return group_thousands(static_cast<int64_t>(v));
    return group_thousands(static_cast<int64_t>(v / 1000)) + vl::format(",{:03}", v % 1000);
}

// Bytes of one element of a scalar type (0: string or array, which have their own lengths).
uint64_t scalar_bytes(GgufValueType t) {
    switch (t) {
        case GgufValueType::U8: case GgufValueType::I8: case GgufValueType::Bool: return 1;
        case GgufValueType::U16: case GgufValueType::I16: return 2;
        case GgufValueType::U32: case GgufValueType::I32: case GgufValueType::F32: return 4;
        case GgufValueType::U64: case GgufValueType::I64: case GgufValueType::F64: return 8;
        case GgufValueType::String: case GgufValueType::Array: return 0;
    }
    return 0;
}

bool valid_type(uint32_t t) { return t <= static_cast<uint32_t>(GgufValueType::F64); }

// A cursor over the bytes. Each read either succeeds or records why it could not: the bytes ran out
// (truncated: a longer prefix of the file may do) or the value is wrong (an error on `field`).
struct Reader {
    std::string_view bytes;
    std::optional<uint64_t> file_size;
    uint64_t at = 0;
    bool truncated = false;
    std::vector<FieldError> errs;

    uint64_t left() const { return bytes.size() - at; }
    bool fail(std::string field, std::string message) {
        if (errs.empty()) errs.push_back({std::move(field), std::move(message)});
        return false;
    }
    bool need(uint64_t n, const std::string& what) {
        if (n <= left()) return true;
        if (file_size && (n > *file_size || at > *file_size - n))
            return fail("gguf", vl::format("{} needs {} bytes from byte {}, past the end of the file ({} bytes): the length is wrong or the "
                                            "file is truncated", what, n == UINT64_MAX ? std::string("more than 2^64") : grouped(n), grouped(at), grouped(*file_size)));
        truncated = true;
        return fail("gguf", vl::format("the header ends early: {} needs {} more bytes, {} are left (the file is truncated, or only "
                                        "its first {} bytes were read)", what, grouped(n), grouped(left()), grouped(bytes.size())));
    }
    template <class T>
    bool le(T& v, const std::string& what) {
        if (!need(sizeof(T), what)) return false;
        uint64_t x = 0;
        for (size_t i = sizeof(T); i-- > 0;) x = (x << 8) | static_cast<unsigned char>(bytes[at + i]);
        at += sizeof(T);
        if constexpr (std::is_same_v<T, double>) {
            std::memcpy(&v, &x, sizeof v);
        } else if constexpr (std::is_same_v<T, float>) {
            const uint32_t y = static_cast<uint32_t>(x);
            std::memcpy(&v, &y, sizeof v);
        } else {
            v = static_cast<T>(x);
        }
        return true;
    }
    // A string: uint64 length, then that many bytes, at most `max` of them.
    bool str(std::string& s, size_t max, const std::string& what, const std::string& field) {
        uint64_t n = 0;
        if (!le(n, what + " length")) return false;
        if (n > max) return fail(field, vl::format("{} is {} bytes long; at most {} are allowed", what, grouped(n), grouped(max)));
        if (!need(n, what)) return false;
        s.assign(bytes.substr(static_cast<size_t>(at), static_cast<size_t>(n)));
        at += n;
        return true;
    }
    bool skip(uint64_t n, const std::string& what) {
        if (!need(n, what)) return false;
        at += n;
        return true;
    }
};

// One scalar value into kv (strings kept; numbers as number and, when whole and >= 0, unsigned).
bool read_scalar(Reader& r, GgufValueType t, GgufKv& kv, const std::string& field) {
    const std::string what = "the value of " + kv.key;
    auto whole = [&](uint64_t u) { kv.unsigned_value = u; kv.number = static_cast<double>(u); };
    auto signed_ = [&](int64_t i) { kv.number = static_cast<double>(i); if (i >= 0) kv.unsigned_value = static_cast<uint64_t>(i); };
    switch (t) {
        case GgufValueType::U8: { uint8_t v; if (!r.le(v, what)) return false; whole(v); return true; }
        case GgufValueType::I8: { int8_t v; if (!r.le(v, what)) return false; signed_(v); return true; }
        case GgufValueType::U16: { uint16_t v; if (!r.le(v, what)) return false; whole(v); return true; }
        case GgufValueType::I16: { int16_t v; if (!r.le(v, what)) return false; signed_(v); return true; }
        case GgufValueType::U32: { uint32_t v; if (!r.le(v, what)) return false; whole(v); return true; }
        case GgufValueType::I32: { int32_t v; if (!r.le(v, what)) return false; signed_(v); return true; }
        case GgufValueType::U64: { uint64_t v; if (!r.le(v, what)) return false; whole(v); return true; }
        case GgufValueType::I64: { int64_t v; if (!r.le(v, what)) return false; signed_(v); return true; }
        case GgufValueType::F32: { float v; if (!r.le(v, what)) return false; kv.number = v; return true; }
        case GgufValueType::F64: { double v; if (!r.le(v, what)) return false; kv.number = v; return true; }
        case GgufValueType::Bool: {
            uint8_t v;
            if (!r.le(v, what)) return false;
            if (v > 1) return r.fail(field, vl::format("is a bool stored as {}; a GGUF bool is 0 or 1", v));
            whole(v);
            return true;
        }
        case GgufValueType::String: return r.str(kv.text, r.bytes.size(), what, field);
        case GgufValueType::Array: return r.fail(field, "an array inside an array: GGUF arrays hold scalars or strings");
    }
    return false;
}

bool read_kv(Reader& r, GgufKv& kv, uint64_t index) {
    if (!r.str(kv.key, kMaxGgufKeyBytes, vl::format("metadata key {}", index), vl::format("metadata[{}]", index))) return false;
    // Errors name the key; an empty key by its place.
    const std::string field = kv.key.empty() ? vl::format("metadata[{}]", index) : kv.key;
    uint32_t type = 0;
    if (!r.le(type, "the type of " + kv.key)) return false;
    if (!valid_type(type)) return r.fail(field, vl::format("has value type {}; GGUF value types are 0 to 12", type));
    kv.type = static_cast<GgufValueType>(type);
    if (kv.type != GgufValueType::Array) return read_scalar(r, kv.type, kv, field);
    uint32_t et = 0;
    if (!r.le(et, "the element type of " + kv.key) || !r.le(kv.count, "the length of " + kv.key)) return false;
    if (!valid_type(et) || et == static_cast<uint32_t>(GgufValueType::Array))
        return r.fail(field, et == static_cast<uint32_t>(GgufValueType::Array) ? std::string("is an array of arrays, which GGUF does not allow")
                                                                               : vl::format("is an array of value type {}; GGUF value types are 0 to 12", et));
    kv.element_type = static_cast<GgufValueType>(et);
    const bool integer = kv.element_type != GgufValueType::F32 && kv.element_type != GgufValueType::F64 && kv.element_type != GgufValueType::String;
    if (integer && kv.count <= kMaxGgufKeptArray) {
        for (uint64_t i = 0; i < kv.count; ++i) {
            GgufKv element;
            element.key = vl::format("{}[{}]", kv.key, i);
            if (!read_scalar(r, kv.element_type, element, field)) return false;
            // A negative value is read into `number` only; layer counts are small, so it is exact there.
            if (element.unsigned_value) kv.integers.push_back(*element.unsigned_value > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(*element.unsigned_value));
            else kv.integers.push_back(static_cast<int64_t>(element.number.value_or(0)));
        }
        return true;
    }
    if (const uint64_t size = scalar_bytes(kv.element_type)) {
        if (kv.count > r.left() / size) return r.need(kv.count > UINT64_MAX / size ? UINT64_MAX : kv.count * size, "the elements of " + kv.key);
        return r.skip(kv.count * size, "the elements of " + kv.key);
    }
    if (kv.count > r.left() / 8) return r.need(kv.count > UINT64_MAX / 8 ? UINT64_MAX : kv.count * 8, "the strings of " + kv.key);
    for (uint64_t i = 0; i < kv.count; ++i) {  // strings: each at least its 8-byte length
        uint64_t n = 0;
        if (!r.le(n, vl::format("{}[{}] length", kv.key, i)) || !r.skip(n, vl::format("{}[{}]", kv.key, i))) return false;
    }
    return true;
}

bool read_tensor_info(Reader& r, GgufTensor& t, uint64_t index, const std::set<std::string>& names) {
    if (!r.str(t.name, r.bytes.size(), vl::format("tensor name {}", index), vl::format("tensors[{}].name", index))) return false;
    if (t.name.size() >= kGgmlMaxName)
        return r.fail(vl::format("tensors[{}].name", index), vl::format("is {} bytes; a GGML tensor name is shorter than {}", t.name.size(), kGgmlMaxName));
    if (names.count(t.name)) return r.fail(vl::format("tensors[{}].name", index), "\"" + t.name + "\" is named twice: tensor names are unique");
    uint32_t n_dims = 0;
    if (!r.le(n_dims, "the dimension count of " + t.name)) return false;
    if (n_dims > kGgmlMaxDims) return r.fail(t.name + ".n_dims", vl::format("is {}; a GGML tensor has at most {} dimensions", n_dims, kGgmlMaxDims));
    t.elements = 1;
    for (uint32_t j = 0; j < n_dims; ++j) {
        uint64_t d = 0;
        if (!r.le(d, vl::format("{} dimension {}", t.name, j))) return false;
        if (d > static_cast<uint64_t>(INT64_MAX) || (d != 0 && t.elements > static_cast<uint64_t>(INT64_MAX) / d))
            return r.fail(t.name + ".dims", "overflow: the tensor would hold more than 2^63 elements");
        t.dims.push_back(d);
        t.elements *= d;
    }
    uint32_t type = 0;
    if (!r.le(type, "the type of " + t.name)) return false;
    const GgmlTypeInfo* info = ggml_type_by_id(type);
    if (!info) return r.fail(t.name + ".type", vl::format("is GGML type {}, which is not a GGML type this reader knows (or one llama.cpp removed)", type));
    t.type = info->type;
    const uint64_t row = t.dims.empty() ? 1 : t.dims[0];
    if (row % info->block_weights != 0)
        return r.fail(t.name + ".dims", vl::format("rows of {} elements are not a whole number of {} blocks of {}", row, info->name, info->block_weights));
    const uint64_t blocks = t.elements / info->block_weights;
    if (blocks > UINT64_MAX / info->block_bytes) return r.fail(t.name + ".dims", "overflow: the tensor's bytes do not fit in 64 bits");
    t.bytes = blocks * info->block_bytes;
    return r.le(t.offset, "the offset of " + t.name);
}

}  // namespace

const char* gguf_value_type_name(GgufValueType t) {
    static constexpr const char* kNames[] = {"uint8", "int8", "uint16", "int16", "uint32", "int32", "float32",
                                             "bool", "string", "array", "uint64", "int64", "float64"};
    const auto i = static_cast<uint32_t>(t);
    return i < std::size(kNames) ? kNames[i] : "unknown";
}

const GgufKv* GgufHeader::find(std::string_view key) const {
    for (const GgufKv& kv : metadata)
        if (kv.key == key) return &kv;
    return nullptr;
}

std::string GgufHeader::architecture() const {
    const GgufKv* a = find("general.architecture");
    return a && a->type == GgufValueType::String ? a->text : std::string();
}

std::optional<uint64_t> GgufHeader::arch_value(std::string_view key) const {
    const std::string arch = architecture();
    if (arch.empty()) return std::nullopt;
    const GgufKv* kv = find(arch + "." + std::string(key));
    if (kv && kv->type == GgufValueType::Array && !kv->integers.empty()) {
        const int64_t first = kv->integers.front();
        for (int64_t v : kv->integers)
            if (v != first) return std::nullopt;
        return first >= 0 ? std::optional<uint64_t>(static_cast<uint64_t>(first)) : std::nullopt;
    }
    return kv ? kv->unsigned_value : std::nullopt;
}

std::vector<GgmlTypeCount> count_by_ggml_type(const GgufHeader& h) {
    std::vector<GgmlTypeCount> by(kGgmlTypeCount);
    for (size_t i = 0; i < kGgmlTypeCount; ++i) by[i].type = kGgmlTypes[i].type;
    for (const GgufTensor& t : h.tensors) {
        GgmlTypeCount& c = by[static_cast<size_t>(t.type)];
        c.tensors += 1;
        c.elements += t.elements;
        c.bytes += t.bytes;
    }
    std::vector<GgmlTypeCount> out;
    for (const GgmlTypeCount& c : by)
        if (c.tensors > 0) out.push_back(c);
    return out;
}

GgufTensorBytes gguf_bytes_by_layer(const GgufHeader& h) {
    GgufTensorBytes out;
    for (const GgufTensor& t : h.tensors) {
        // "blk." digits "." ; a layer number past the tensor count cannot be a real layer: counted as other
        size_t i = 4, layer = 0;
        bool is_layer = t.name.compare(0, 4, "blk.") == 0 && t.name.size() > 5;
        for (; is_layer && i < t.name.size() && t.name[i] != '.'; ++i) {
            if (t.name[i] < '0' || t.name[i] > '9' || i > 10) is_layer = false;
            else layer = layer * 10 + static_cast<size_t>(t.name[i] - '0');
        }
        is_layer = is_layer && i > 4 && i < t.name.size() && layer < h.tensors.size();
        if (!is_layer) {
            (t.name == "token_embd.weight" ? out.token_embd : t.name == "output.weight" ? out.output : out.other) += t.bytes;
            continue;
        }
        if (out.layers.size() <= layer) out.layers.resize(layer + 1, 0);
        out.layers[layer] += t.bytes;
        // The routed experts, as --n-cpu-moe's pattern blk.<i>.ffn_(up|down|gate)_exps names them [llama-cpp-server-flags]
        const std::string_view rest = std::string_view(t.name).substr(i + 1);
        if (rest.starts_with("ffn_up_exps") || rest.starts_with("ffn_down_exps") || rest.starts_with("ffn_gate_exps")) {
            if (out.experts.size() <= layer) out.experts.resize(layer + 1, 0);
            out.experts[layer] += t.bytes;
        }
    }
    if (!out.experts.empty()) out.experts.resize(out.layers.size(), 0);
    return out;
}

// The hybrids whose GGUF names each layer by its per-layer arrays (llama.cpp's nemotron_h,
// nemotron_h_moe and granitehybrid; convert_hf_to_gguf writes attention.head_count_kv per layer, 0 on a
// Mamba layer, and for Nemotron-H feed_forward_length per layer, 0 on a mixer block) [llama-cpp-code]:
// the config's layer list (hybrid_override_pattern / layer_types), its Mamba2 sizes under the model's
// own names, and the experts.
static void hybrid_layers(const GgufHeader& h, const std::string& arch, nlohmann::ordered_json& c, std::vector<FieldError>& errs) {
    const bool granite = arch == "granitehybrid";
    const std::optional<uint64_t> layers = h.arch_value("block_count");
    if (!layers || *layers == 0 || *layers > kMaxGgufKeptArray) return;  // block_count's own error
    // One value per layer: the array's element, or the scalar for every layer.
    auto per_layer = [&](const char* key, size_t i) -> std::optional<int64_t> {
        const GgufKv* kv = h.find(arch + "." + key);
        if (kv && kv->type == GgufValueType::Array && kv->integers.size() == *layers) return kv->integers[i];
        if (std::optional<uint64_t> v = h.arch_value(key)) return static_cast<int64_t>(*v);
        return std::nullopt;
    };
    if (!per_layer("attention.head_count_kv", 0)) {
        errs.push_back({arch + ".attention.head_count_kv", "is missing or not one value per block: which layers have attention is not known"});
        return;
    }
    const bool experts = h.arch_value("expert_count").value_or(0) > 0;
    std::string pattern;
    nlohmann::ordered_json types = nlohmann::ordered_json::array();
    int64_t kv_heads = 0, ffn = 0;
    for (size_t i = 0; i < *layers; ++i) {
        const int64_t kv = per_layer("attention.head_count_kv", i).value_or(0);
        const int64_t f = granite ? 0 : per_layer("feed_forward_length", i).value_or(0);
        kv_heads = std::max(kv_heads, kv);
        ffn = std::max(ffn, f);
        types.push_back(kv > 0 ? "attention" : "mamba");
        pattern += kv > 0 ? '*' : f > 0 ? (experts ? 'E' : '-') : 'M';
    }
    c["num_key_value_heads"] = kv_heads;
    const std::optional<uint64_t> inner = h.arch_value("ssm.inner_size"), heads = h.arch_value("ssm.time_step_rank"),
                                  hidden = h.arch_value("embedding_length");
    if (!inner || !heads || *heads == 0 || *inner % *heads != 0) {
        errs.push_back({arch + ".ssm.inner_size", "is missing or not a multiple of ssm.time_step_rank (the Mamba2 heads): the mixer's head width is not known"});
        return;
    }
    const auto ssm = [&](const char* key, const char* gguf_key) {
        if (std::optional<uint64_t> v = h.arch_value(gguf_key)) c[key] = *v;
        else errs.push_back({arch + "." + gguf_key, "is missing (or not a whole number): the Mamba2 mixer's size is not known"});
    };
    if (granite) {
        c["layer_types"] = types;
        ssm("mamba_d_conv", "ssm.conv_kernel");
        ssm("mamba_d_state", "ssm.state_size");
        ssm("mamba_n_groups", "ssm.group_count");
        c["mamba_n_heads"] = *heads;
        if (hidden && *hidden > 0 && *inner % *hidden == 0) c["mamba_expand"] = *inner / *hidden;
        else errs.push_back({arch + ".ssm.inner_size", "must be a multiple of embedding_length (Granite's mamba_expand)"});
        c["num_local_experts"] = h.arch_value("expert_count").value_or(0);
        // The shared MLP's width: expert_shared_feed_forward_length beside experts, the dense FFN's otherwise.
        const std::optional<int64_t> ff = per_layer("feed_forward_length", 0);  // the experts' width, or the dense MLP's
        if (ff) c["intermediate_size"] = *ff;
        const std::optional<uint64_t> shared = h.arch_value("expert_shared_feed_forward_length");
        if (experts && shared) c["shared_intermediate_size"] = *shared;
        else if (!experts && ff) c["shared_intermediate_size"] = *ff;
    } else {
        c["hybrid_override_pattern"] = pattern;
        ssm("conv_kernel", "ssm.conv_kernel");
        ssm("ssm_state_size", "ssm.state_size");
        ssm("n_groups", "ssm.group_count");
        c["mamba_num_heads"] = *heads;
        c["mamba_head_dim"] = *inner / *heads;
        if (ffn > 0) c[experts ? "moe_intermediate_size" : "intermediate_size"] = ffn;
        if (experts) {
            c["n_routed_experts"] = *h.arch_value("expert_count");
            if (std::optional<uint64_t> v = h.arch_value("expert_shared_feed_forward_length")) c["moe_shared_expert_intermediate_size"] = *v;
        }
    }
    if (experts)
        if (std::optional<uint64_t> v = h.arch_value("expert_used_count")) c["num_experts_per_tok"] = *v;
}

Result<std::string> gguf_hf_config(const GgufHeader& h) {
    using R = Result<std::string>;
    struct ArchRow { const char* arch; const char* model_type; const char* experts_key; };
    static constexpr ArchRow kArchs[] = {
        {"llama", "llama", "num_local_experts"}, {"qwen2", "qwen2", nullptr},      {"qwen2moe", "qwen2_moe", "num_experts"},
        {"qwen3", "qwen3", nullptr},             {"qwen3moe", "qwen3_moe", "num_experts"}, {"gemma", "gemma", nullptr},
        {"gemma2", "gemma2", nullptr},           {"gemma3", "gemma3_text", nullptr}, {"phi3", "phi3", nullptr},
        {"mamba", "mamba", nullptr},             {"mamba2", "mamba2", nullptr},     {"qwen3next", "qwen3_next", "num_experts"},
        {"nemotron_h", "nemotron_h", nullptr},   {"nemotron_h_moe", "nemotron_h", nullptr}, {"granitehybrid", "granitemoehybrid", nullptr},
        {"falcon-h1", "falcon_h1", nullptr},     {"gpt-oss", "gpt_oss", "num_local_experts"},
    };
    const std::string arch = h.architecture();
    const ArchRow* row = nullptr;
    for (const ArchRow& r : kArchs)
        if (arch == r.arch) row = &r;
    if (!row) {
        std::string names;
        for (const ArchRow& r : kArchs) names += (names.empty() ? "" : ", ") + std::string(r.arch);
        return R::failure({{"general.architecture", (arch.empty() ? std::string("is missing") : "is \"" + arch + "\"") +
                                                        "; a model is built from the GGUF metadata of " + names}});
    }
    nlohmann::ordered_json c = nlohmann::ordered_json::object();
    c["model_type"] = row->model_type;
    if (const GgufKv* name = h.find("general.name"); name && name->type == GgufValueType::String) c["_name_or_path"] = name->text;
    std::vector<FieldError> errs;
    auto put = [&](const char* key, const char* gguf_key, bool required) {
        const GgufKv* kv = h.find(arch + "." + gguf_key);
        if (std::optional<uint64_t> v = h.arch_value(gguf_key)) {
            c[key] = *v;
        } else if (kv && kv->type == GgufValueType::Array && !kv->integers.empty()) {
            std::string values;
            for (size_t i = 0; i < kv->integers.size() && i < 8; ++i) values += (i ? ", " : "") + std::to_string(kv->integers[i]);
            errs.push_back({arch + "." + gguf_key, "differs between layers ([" + values + (kv->integers.size() > 8 ? ", ..." : "") +
                                                       "]): vramlens models one " + std::string(key) + " for every layer"});
        } else if (required) {
            errs.push_back({arch + "." + gguf_key, "is missing (or not a whole number): the model's " + std::string(key) + " is not known"});
        }
    };
    put("hidden_size", "embedding_length", true);
    put("num_hidden_layers", "block_count", true);
    if (arch == "mamba" || arch == "mamba2") {
        // llama.cpp's Mamba keys (LLM_KV_SSM_*): no attention; d_inner, d_state, d_conv, and the dt rank
        // (Mamba) or the head count in its place with the group count (Mamba2) [llama-cpp-code].
        put("state_size", "ssm.state_size", true);
        put("conv_kernel", "ssm.conv_kernel", true);
        put(arch == "mamba" ? "time_step_rank" : "num_heads", "ssm.time_step_rank", true);
        const std::optional<uint64_t> inner = h.arch_value("ssm.inner_size"), hidden = h.arch_value("embedding_length");
        if (!inner) errs.push_back({arch + ".ssm.inner_size", "is missing (or not a whole number): the Mamba mixer's width is not known"});
        if (arch == "mamba") {
            if (inner) c["intermediate_size"] = *inner;
        } else {
            put("n_groups", "ssm.group_count", true);
            const std::optional<uint64_t> heads = h.arch_value("ssm.time_step_rank");
            if (inner && hidden && *hidden > 0 && *inner % *hidden == 0) c["expand"] = *inner / *hidden;  // Mamba2Config's d_inner
            else if (inner && hidden) errs.push_back({arch + ".ssm.inner_size", "must be a multiple of embedding_length (Mamba2's expand); got " +
                                                                                     std::to_string(*inner) + " and " + std::to_string(*hidden)});
            if (inner && heads && *heads > 0) c["head_dim"] = *inner / *heads;
        }
    } else if (arch == "nemotron_h" || arch == "nemotron_h_moe" || arch == "granitehybrid") {
        put("num_attention_heads", "attention.head_count", true);
        put("head_dim", "attention.key_length", false);
        hybrid_layers(h, arch, c, errs);
    } else {
        put("num_attention_heads", "attention.head_count", true);
        put("num_key_value_heads", "attention.head_count_kv", false);
        put("intermediate_size", "feed_forward_length", false);
        put("head_dim", "attention.key_length", false);
    }
    if (arch == "falcon-h1") {
        // convert_hf_to_gguf's FalconH1Model: Mamba2's ssm.* keys, ssm.inner_size being mamba_d_ssm and
        // ssm.time_step_rank mamba_n_heads; whether the mixer has its gated norm (mamba_rms_norm) or the
        // in_proj / out_proj biases shows in the tensors it wrote (blk.N.ssm_norm, ssm_in.bias, ssm_out.bias)
        // [llama-cpp-code].
        put("mamba_d_ssm", "ssm.inner_size", true);
        put("mamba_d_state", "ssm.state_size", true);
        put("mamba_d_conv", "ssm.conv_kernel", true);
        put("mamba_n_heads", "ssm.time_step_rank", true);
        put("mamba_n_groups", "ssm.group_count", true);
        const auto has_tensor = [&](const char* name) {
            for (const GgufTensor& t : h.tensors)
                if (t.name == name) return true;
            return false;
        };
        c["mamba_rms_norm"] = has_tensor("blk.0.ssm_norm.weight");
        c["mamba_proj_bias"] = has_tensor("blk.0.ssm_in.bias");
        c["projectors_bias"] = has_tensor("blk.0.ssm_out.bias");
    }
    if (arch == "qwen3next") {
        // convert_hf_to_gguf's Qwen3NextModel: the delta-net sizes under the ssm.* keys, d_inner being
        // linear_num_value_heads * linear_value_head_dim [llama-cpp-code].
        put("linear_conv_kernel_dim", "ssm.conv_kernel", true);
        put("linear_key_head_dim", "ssm.state_size", true);
        put("linear_num_key_heads", "ssm.group_count", true);
        put("linear_num_value_heads", "ssm.time_step_rank", true);
        put("full_attention_interval", "full_attention_interval", false);
        const std::optional<uint64_t> inner = h.arch_value("ssm.inner_size"), heads = h.arch_value("ssm.time_step_rank");
        if (inner && heads && *heads > 0 && *inner % *heads == 0) c["linear_value_head_dim"] = *inner / *heads;
        else errs.push_back({arch + ".ssm.inner_size", "is missing or not a multiple of ssm.time_step_rank (the value heads): the delta-net's value width is not known"});
    }
    put("max_position_embeddings", "context_length", false);
    if (std::optional<uint64_t> v = h.arch_value("vocab_size")) c["vocab_size"] = *v;
    else if (const GgufKv* t = h.find("tokenizer.ggml.tokens"); t && t->type == GgufValueType::Array) c["vocab_size"] = t->count;
    else errs.push_back({"tokenizer.ggml.tokens", "is missing, and so is " + arch + ".vocab_size: the vocabulary's size is not known"});
    const std::optional<uint64_t> experts = h.arch_value("expert_count");
    if (row->experts_key && experts && *experts > 0) {
        if (arch == "llama") c["model_type"] = "mixtral";
        c[row->experts_key] = *experts;
        put("num_experts_per_tok", "expert_used_count", true);
        if (arch == "gpt-oss") {
            // convert_hf_to_gguf's GptOssModel: intermediate_size (each expert's width) as expert_feed_forward_length,
            // sliding_window as attention.sliding_window; GptOssConfig's layer_types are its default [llama-cpp-code].
            put("intermediate_size", "expert_feed_forward_length", true);
            put("sliding_window", "attention.sliding_window", false);
        } else if (arch != "llama") {
            put("moe_intermediate_size", "expert_feed_forward_length", true);
            put("shared_expert_intermediate_size", "expert_shared_feed_forward_length", false);
        }
    }
    bool has_output = false;
    for (const GgufTensor& t : h.tensors) has_output = has_output || t.name == "output.weight";
    c["tie_word_embeddings"] = !has_output;
    if (!errs.empty()) return R::failure(std::move(errs));
    return R::success(c.dump(2));
}

Result<GgufHeader> read_gguf_header(std::string_view bytes, std::optional<uint64_t> file_size, bool* truncated) {
    using R = Result<GgufHeader>;
    Reader r;
    r.bytes = bytes;
    r.file_size = file_size;
    auto failed = [&]() {
        if (truncated) *truncated = r.truncated;
        return R::failure(std::move(r.errs));
    };
    if (truncated) *truncated = false;
    if (bytes.size() >= 4 && bytes.substr(0, 4) != "GGUF") {
        r.fail("magic", "the file does not start with \"GGUF\": it is not a GGUF file");
        return failed();
    }
    if (!r.skip(4, "the magic \"GGUF\"")) return failed();
    GgufHeader h;
    uint64_t n_tensors = 0, n_kv = 0;
    if (!r.le(h.version, "the version")) return failed();
    if (h.version != 2 && h.version != 3) {
        r.fail("version", vl::format("is {}; GGUF versions 2 and 3 are read{}", h.version,
                                      h.version == 1 ? " (version 1 is no longer supported by llama.cpp: convert the model again)" : ""));
        return failed();
    }
    if (!r.le(n_tensors, "the tensor count") || !r.le(n_kv, "the metadata count")) return failed();
    // Each metadata pair takes at least 8 (key length) + 4 (type) + 1 bytes, each tensor info 8 + 4 + 4 + 8.
    if (n_kv > r.left() / 13) {
        r.need(n_kv > UINT64_MAX / 13 ? UINT64_MAX : n_kv * 13, vl::format("{} metadata pairs", grouped(n_kv)));
        return failed();
    }
    std::set<std::string> keys;
    h.metadata.reserve(static_cast<size_t>(n_kv));
    for (uint64_t i = 0; i < n_kv; ++i) {
        GgufKv kv;
        if (!read_kv(r, kv, i)) return failed();
        if (!keys.insert(kv.key).second) {
            r.fail(kv.key.empty() ? vl::format("metadata[{}]", i) : kv.key, "is written twice: metadata keys are unique");
            return failed();
        }
        h.metadata.push_back(std::move(kv));
    }
    if (const GgufKv* a = h.find("general.alignment")) {
        if (a->type != GgufValueType::U32 || !a->unsigned_value || *a->unsigned_value == 0 || (*a->unsigned_value & (*a->unsigned_value - 1)) != 0) {
            r.fail("general.alignment", a->type != GgufValueType::U32 ? std::string("must be a uint32; got ") + gguf_value_type_name(a->type)
                                                                      : vl::format("is {}; it must be a power of 2", a->unsigned_value.value_or(0)));
            return failed();
        }
        h.alignment = *a->unsigned_value;
    }
    if (n_tensors > r.left() / 24) {
        r.need(n_tensors > UINT64_MAX / 24 ? UINT64_MAX : n_tensors * 24, vl::format("{} tensor infos", grouped(n_tensors)));
        return failed();
    }
    std::set<std::string> names;
    h.tensors.reserve(static_cast<size_t>(n_tensors));
    for (uint64_t i = 0; i < n_tensors; ++i) {
        GgufTensor t;
        if (!read_tensor_info(r, t, i, names)) return failed();
        names.insert(t.name);
        h.tensors.push_back(std::move(t));
    }
    h.header_bytes = r.at;
    auto pad = [&](uint64_t x) { return x + (h.alignment - x % h.alignment) % h.alignment; };
    h.data_offset = pad(h.header_bytes);
    uint64_t expect = 0;
    for (const GgufTensor& t : h.tensors) {
        if (t.offset != expect) {
            r.fail(t.name + ".offset", vl::format("is {}; expected {}: tensors follow each other in order, each padded to {} bytes", grouped(t.offset),
                                                   grouped(expect), h.alignment));
            return failed();
        }
        if (t.bytes > UINT64_MAX - expect - h.alignment) {
            r.fail(t.name + ".dims", "overflow: the data section would pass 2^64 bytes");
            return failed();
        }
        expect = pad(expect + t.bytes);
    }
    h.data_bytes = expect;
    std::vector<std::string> warnings;
    if (file_size) {
        if (h.data_offset > *file_size || h.data_bytes > *file_size - h.data_offset) {
            r.fail("gguf", vl::format("the tensors end at byte {} but the file has {} bytes: the file is truncated",
                                       h.data_bytes > UINT64_MAX - h.data_offset ? std::string("past 2^64") : grouped(h.data_offset + h.data_bytes), grouped(*file_size)));
            return failed();
        }
        if (h.file_bytes() < *file_size)
            warnings.push_back(vl::format("the file has {} bytes after its last tensor", grouped(*file_size - h.file_bytes())));
    }
    return R::success(std::move(h), std::move(warnings));
}

}  // namespace vl
