// Hugging Face config.json -> ModelSpec. Defaults are those of each transformers configuration class
// (transformers/models/<type>/configuration_<type>.py, __init__ keyword defaults); architecture flags
// follow the module lists of modeling_<type>.py. See hf_config.h for the contract.
#include "model/hf_config.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>

#include "json_input.h"
#include "model/hf_config_json.h"
#include "model/model_validate.h"

namespace vl {

namespace {

using json = nlohmann::json;

enum class Arch {
    Llama, Mistral, Mixtral, Qwen2, Qwen2Moe, Qwen3, Qwen3Moe, Gemma, Gemma2, Gemma3, Phi3,
    Gpt2, GptNeox, Falcon, Opt, Bloom, DeepseekV2, DeepseekV3,
};

// The supported model_types: the one table the importer reads, and the list its errors give.
// Defaults are the configuration class's (ffn 0: 4 * hidden; kv 0: = heads; head_dim 0: hidden / heads).
// architecture: the transformers class in config.json's "architectures", which names the type when
// model_type is absent ("" where another row already claims the class).
struct Family {
    const char* model_type;
    const char* architecture;
    Arch arch;
    const char* family;
    int64_t vocab, hidden, ffn, layers, heads, kv, head_dim, max_pos;
    bool tied;
};

// clang-format off
constexpr Family kFamilies[] = {
    // model_type        architectures                     arch              family         vocab   hidden  ffn    L   a    kv  h_d  max_pos  tied
    {"llama",           "LlamaForCausalLM",               Arch::Llama,      "Llama",       32000,  4096, 11008, 32,  32,   0,   0,   2048,  false},
    {"mistral",         "MistralForCausalLM",             Arch::Mistral,    "Mistral",     32000,  4096, 14336, 32,  32,   8,   0, 131072,  false},
    {"mixtral",         "MixtralForCausalLM",             Arch::Mixtral,    "Mixtral",     32000,  4096, 14336, 32,  32,   8,   0, 131072,  false},
    {"qwen2",           "Qwen2ForCausalLM",               Arch::Qwen2,      "Qwen2",      151936,  4096, 22016, 32,  32,  32,   0,  32768,  false},
    {"qwen2_moe",       "Qwen2MoeForCausalLM",            Arch::Qwen2Moe,   "Qwen2-MoE",  151936,  2048,  5632, 24,  16,  16,   0,  32768,  false},
    {"qwen3",           "Qwen3ForCausalLM",               Arch::Qwen3,      "Qwen3",      151936,  4096, 22016, 32,  32,  32, 128,  32768,  false},
    {"qwen3_moe",       "Qwen3MoeForCausalLM",            Arch::Qwen3Moe,   "Qwen3-MoE",  151936,  2048,  6144, 24,  32,   4,   0,  32768,  false},
    {"gemma",           "GemmaForCausalLM",               Arch::Gemma,      "Gemma",      256000,  3072, 24576, 28,  16,  16, 256,   8192,  true},
    {"gemma2",          "Gemma2ForCausalLM",              Arch::Gemma2,     "Gemma 2",    256000,  2304,  9216, 26,   8,   4, 256,   8192,  true},
    {"gemma3_text",     "Gemma3ForCausalLM",              Arch::Gemma3,     "Gemma 3",    262208,  2304,  9216, 26,   8,   4, 256, 131072,  true},
    {"gemma3",          "Gemma3ForConditionalGeneration", Arch::Gemma3,     "Gemma 3",    262208,  2304,  9216, 26,   8,   4, 256, 131072,  true},
    {"phi3",            "Phi3ForCausalLM",                Arch::Phi3,       "Phi-3",       32064,  3072,  8192, 32,  32,   0,   0,   4096,  false},
    {"gpt2",            "GPT2LMHeadModel",                Arch::Gpt2,       "GPT-2",       50257,   768,     0, 12,  12,   0,   0,   1024,  true},
    {"gpt_neox",        "GPTNeoXForCausalLM",             Arch::GptNeox,    "GPT-NeoX",    50432,  6144, 24576, 44,  64,   0,   0,   2048,  false},
    {"falcon",          "FalconForCausalLM",              Arch::Falcon,     "Falcon",      65024,  4544,     0, 32,  71,   0,   0,   2048,  true},
    {"RefinedWebModel", "RWForCausalLM",                  Arch::Falcon,     "Falcon",      65024,  4544,     0, 32,  71,   0,   0,   2048,  true},
    {"RefinedWeb",      "",                               Arch::Falcon,     "Falcon",      65024,  4544,     0, 32,  71,   0,   0,   2048,  true},
    {"opt",             "OPTForCausalLM",                 Arch::Opt,        "OPT",         50272,   768,  3072, 12,  12,   0,   0,   2048,  true},
    {"bloom",           "BloomForCausalLM",               Arch::Bloom,      "BLOOM",      250880,    64,     0,  2,   8,   0,   0,      0,  true},
    {"deepseek_v2",     "DeepseekV2ForCausalLM",          Arch::DeepseekV2, "DeepSeek-V2",102400,  4096, 11008, 30,  32,  32,   0,   2048,  false},
    {"deepseek_v3",     "DeepseekV3ForCausalLM",          Arch::DeepseekV3, "DeepSeek-V3",129280,  7168, 18432, 61, 128, 128,   0,   4096,  false},
};
// clang-format on

const Family* find_family(const std::string& type) {
    for (const Family& f : kFamilies)
        if (type == f.model_type) return &f;
    return nullptr;
}

const Family* find_family_by_class(const std::string& cls) {
    for (const Family& f : kFamilies)
        if (*f.architecture != '\0' && cls == f.architecture) return &f;
    return nullptr;
}

std::string supported_types() {
    std::string out;
    for (const Family& f : kFamilies) out += (out.empty() ? "" : ", ") + std::string(f.model_type);
    return out;
}

// Encoder and encoder-decoder families people paste: named as such instead of "unknown".
bool is_encoder_type(const std::string& type) {
    static constexpr const char* kEncoders[] = {
        "bert", "roberta", "xlm-roberta", "distilbert", "albert", "electra", "deberta", "deberta-v2",
        "modernbert", "t5", "mt5", "umt5", "longt5", "bart", "mbart", "pegasus", "marian", "whisper",
        "encoder-decoder",
    };
    for (const char* e : kEncoders)
        if (type == e) return true;
    return false;
}

std::string unsupported_type(const std::string& type) {
    const std::string quoted = "\"" + type + "\"";
    if (is_encoder_type(type))
        return quoted + " is an encoder (or encoder-decoder) model; vramlens does not support those yet. "
                        "Supported decoder model_types: " + supported_types();
    return quoted + " is not supported; use one of " + supported_types() +
           " (a model of another type can be given by its parameter count instead)";
}

std::string short_dump(const json& v) {
    std::string s = v.dump();
    return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

// Reads fields by their aliases; records which key was used so later errors name it as written.
class Reader {
public:
    Reader(const json& obj, std::string prefix, std::vector<FieldError>& errs)
        : obj_(obj), prefix_(std::move(prefix)), errs_(errs) {}

    // The first key among `names` present with a non-null value.
    const json* find(const char* canonical, std::initializer_list<const char*> names) {
        for (const char* n : names) {
            auto it = obj_.find(n);
            if (it != obj_.end() && !it->is_null()) {
                used_[canonical] = n;
                return &*it;
            }
        }
        return nullptr;
    }
    // Present with an explicit null (e.g. "sliding_window": null turns a default off).
    bool is_null(const char* name) const {
        auto it = obj_.find(name);
        return it != obj_.end() && it->is_null();
    }
    bool has(const char* name) const { return obj_.contains(name); }

    std::optional<int64_t> integer(const char* canonical, std::initializer_list<const char*> names) {
        const json* v = find(canonical, names);
        if (!v) return std::nullopt;
        if (v->is_number_unsigned()) {
            if (v->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
                fail(canonical, "must be at most " + std::to_string(std::numeric_limits<int64_t>::max()) +
                                    " (absurd size); got " + short_dump(*v));
                return std::nullopt;
            }
            return static_cast<int64_t>(v->get<uint64_t>());
        }
        if (v->is_number_integer()) return v->get<int64_t>();
        if (v->is_number_float()) {
            const double d = v->get<double>();
            if (std::isfinite(d) && d == std::floor(d)) {
                if (std::fabs(d) < 9e15) return static_cast<int64_t>(d);
                fail(canonical, "must be at most 9e15 (absurd size); got " + short_dump(*v));
                return std::nullopt;
            }
        }
        fail(canonical, "must be an integer; got " + short_dump(*v));
        return std::nullopt;
    }

    std::optional<bool> boolean(const char* name) {
        const json* v = find(name, {name});
        if (!v) return std::nullopt;
        if (v->is_boolean()) return v->get<bool>();
        fail(name, "must be true or false; got " + short_dump(*v));
        return std::nullopt;
    }
    bool boolean(const char* name, bool def) { return boolean(name).value_or(def); }

    std::optional<std::string> string(const char* name) {
        const json* v = find(name, {name});
        if (!v) return std::nullopt;
        if (v->is_string()) return v->get<std::string>();
        fail(name, "must be a string; got " + short_dump(*v));
        return std::nullopt;
    }

    // The field as the user wrote it (alias used), with the text_config prefix.
    std::string key(const std::string& canonical) const {
        auto it = used_.find(canonical);
        return prefix_ + (it == used_.end() ? canonical : it->second);
    }
    void alias(const char* canonical, const char* written) { used_[canonical] = written; }
    void fail(const std::string& canonical, std::string msg) {
        errs_.push_back({key(canonical), std::move(msg)});
        failed_[canonical] = true;
    }
    bool failed(const std::string& canonical) const { return failed_.count(canonical) != 0; }
    const std::string& prefix() const { return prefix_; }

private:
    const json& obj_;
    std::string prefix_;
    std::vector<FieldError>& errs_;
    std::map<std::string, std::string> used_;
    std::map<std::string, bool> failed_;
};

// A ModelSpec with every size zero (ModelSpec{} holds Llama-3.1-8B's sizes).
ModelSpec blank_spec() {
    ModelSpec m;
    m.vocab = m.hidden = m.layers = m.heads = m.kv_heads = m.head_dim = m.ffn = m.max_position = 0;
    m.name.clear();
    m.family.clear();
    m.model_type.clear();
    return m;
}

struct Importer {
    Reader& r;
    const Family& fam;
    std::vector<FieldError>& errs;
    std::vector<std::string>& warns;
    // Fields computed from others (head_dim = hidden / heads, ...): not reported when a source is bad.
    std::map<std::string, std::vector<std::string>> derived;

    // A core size: the file's value, else the family default (with a warning), else an error.
    int64_t size(const char* canonical, std::initializer_list<const char*> names, int64_t def) {
        if (auto v = r.integer(canonical, names)) return *v;
        if (r.failed(canonical)) return 0;
        warns.push_back(r.prefix() + canonical + " is missing; using the transformers " + fam.model_type +
                        " default " + std::to_string(def));
        return def;
    }
    // A count stored as int (experts, layer frequencies): out-of-range values are errors, not truncated.
    int small(const char* canonical, std::initializer_list<const char*> names, int64_t def) {
        const int64_t v = opt(canonical, names, def);
        if (v > 1'000'000'000 || v < -1'000'000'000) {
            r.fail(canonical, "must be at most 1000000000 (absurd size); got " + std::to_string(v));
            return 0;
        }
        return static_cast<int>(v);
    }
    // An optional size: the file's value or the default, silently (documented library default).
    int64_t opt(const char* canonical, std::initializer_list<const char*> names, int64_t def) {
        if (auto v = r.integer(canonical, names)) return *v;
        return def;
    }
};

void read_moe(Importer& im, ModelSpec& m, Arch arch) {
    Reader& r = im.r;
    MoESpec& e = m.moe;
    switch (arch) {
        case Arch::Mixtral:  // MixtralSparseMoeBlock: num_local_experts full SwiGLU experts of intermediate_size
            e.num_experts = im.small("num_experts", {"num_local_experts"}, 8);
            e.top_k = im.small("num_experts_per_tok", {"num_experts_per_tok"}, 2);
            e.expert_ffn = m.ffn;
            r.alias("moe_intermediate_size", "intermediate_size");
            m.ffn = 0;
            break;
        case Arch::Qwen2Moe:  // Qwen2MoeSparseMoeBlock: experts + shared_expert + shared_expert_gate (d -> 1)
        case Arch::Qwen3Moe:  // Qwen3MoeSparseMoeBlock: experts only
            e.num_experts = im.small("num_experts", {"num_experts"}, arch == Arch::Qwen2Moe ? 60 : 128);
            e.top_k = im.small("num_experts_per_tok", {"num_experts_per_tok"}, arch == Arch::Qwen2Moe ? 4 : 8);
            e.expert_ffn = im.opt("moe_intermediate_size", {"moe_intermediate_size"}, arch == Arch::Qwen2Moe ? 1408 : 768);
            e.moe_layer_freq = im.small("decoder_sparse_step", {"decoder_sparse_step"}, 1);
            if (arch == Arch::Qwen2Moe) {
                e.shared_expert_ffn = im.opt("shared_expert_intermediate_size", {"shared_expert_intermediate_size"}, 5632);
                e.shared_expert_gate = true;
            }
            if (const json* v = r.find("mlp_only_layers", {"mlp_only_layers"}); v && !(v->is_array() && v->empty()))
                im.warns.push_back(r.prefix() + "mlp_only_layers is not supported; those layers are counted as MoE");
            break;
        case Arch::DeepseekV2:
        case Arch::DeepseekV3: {  // DeepseekV3MoE: n_routed_experts + one shared MLP of n_shared*moe_ffn + gate
            const bool v3 = arch == Arch::DeepseekV3;
            if (r.is_null("n_routed_experts")) break;  // dense DeepSeek
            e.num_experts = im.small("num_experts", {"n_routed_experts"}, v3 ? 256 : 0);
            if (e.num_experts == 0) break;            // DeepseekV2Config default n_routed_experts=None: dense
            e.top_k = im.small("num_experts_per_tok", {"num_experts_per_tok"}, v3 ? 8 : 0);
            e.expert_ffn = im.opt("moe_intermediate_size", {"moe_intermediate_size"}, v3 ? 2048 : 1407);
            e.shared_experts = im.small("n_shared_experts", {"n_shared_experts"}, v3 ? 1 : 0);
            e.first_dense_layers = im.small("first_k_dense_replace", {"first_k_dense_replace"}, v3 ? 3 : 0);
            e.moe_layer_freq = im.small("decoder_sparse_step", {"moe_layer_freq"}, 1);
            if (e.moe_layer_freq != 1)
                im.warns.push_back(r.prefix() + "moe_layer_freq != 1: layers counted as MoE when (i+1) % freq == 0");
            // noaux_tc routing keeps e_score_correction_bias (n_routed_experts) in the gate.
            const std::string method = r.string("topk_method").value_or(v3 ? "noaux_tc" : "greedy");
            e.router_bias = method == "noaux_tc";
            break;
        }
        default:
            break;
    }
}

void read_mla(Importer& im, ModelSpec& m) {
    Reader& r = im.r;
    m.attention = AttentionKind::MLA;
    MLASpec& x = m.mla;
    // DeepseekV2Config / V3Config defaults; q_lora_rank null (V2-Lite) = uncompressed queries.
    x.q_lora_rank = r.is_null("q_lora_rank") ? 0 : im.opt("q_lora_rank", {"q_lora_rank"}, 1536);
    x.kv_lora_rank = im.opt("kv_lora_rank", {"kv_lora_rank"}, 512);
    x.qk_rope_head_dim = im.opt("qk_rope_head_dim", {"qk_rope_head_dim"}, 64);
    x.qk_nope_head_dim = im.opt("qk_nope_head_dim", {"qk_nope_head_dim"}, 128);
    x.v_head_dim = im.opt("v_head_dim", {"v_head_dim"}, 128);
    m.head_dim = x.qk_nope_head_dim + x.qk_rope_head_dim;  // query/key head width
}

// The config's family: its model_type (text_config's, else the wrapper's), or, when no model_type is
// given at all, the transformers class its "architectures" list names. nullptr after an error.
const Family* resolve_family(Reader& r, Reader& top_reader, const json& top, bool nested, std::vector<FieldError>& errs,
                             std::vector<std::string>& warns) {
    const size_t before = errs.size();
    const std::optional<std::string> inner = r.string("model_type");
    const std::optional<std::string> outer = nested ? top_reader.string("model_type") : std::nullopt;
    if (errs.size() != before) return nullptr;  // model_type is not a string
    for (const std::optional<std::string>* t : {&inner, &outer})
        if (*t && !(*t)->empty())
            if (const Family* f = find_family(**t)) return f;
    if (inner && !inner->empty()) {
        errs.push_back({r.key("model_type"), unsupported_type(*inner)});
        return nullptr;
    }
    if (outer && !outer->empty()) {
        errs.push_back({"model_type", unsupported_type(*outer)});
        return nullptr;
    }
    const auto classes = top.find("architectures");
    const bool listed = classes != top.end() && classes->is_array() && !classes->empty();
    if (listed)
        for (const json& c : *classes)
            if (c.is_string())
                if (const Family* f = find_family_by_class(c.get<std::string>())) {
                    warns.push_back(std::string("model_type is missing; read as \"") + f->model_type + "\" because architectures names " +
                                    f->architecture);
                    return f;
                }
    errs.push_back({"model_type", std::string("is missing") +
                                      (listed ? " and architectures " + short_dump(*classes) + " names no supported class" : "") +
                                      "; add the model's \"model_type\", one of " + supported_types()});
    return nullptr;
}

}  // namespace

Result<ModelSpec> import_hf_config_json(const json& top) {
    std::vector<FieldError> errs;
    std::vector<std::string> warns;
    if (!top.is_object())
        return Result<ModelSpec>::failure({{"config", std::string("must be a JSON object; got ") + top.type_name()}});

    // Multimodal wrappers (Gemma 3 4B+, Llama 4, Mistral 3): the language model is in text_config.
    const json* root = &top;
    std::string prefix;
    if (auto it = top.find("text_config"); it != top.end() && !it->is_null()) {
        if (!it->is_object())
            return Result<ModelSpec>::failure({{"text_config", std::string("must be an object; got ") + it->type_name()}});
        root = &*it;
        prefix = "text_config.";
        warns.push_back("only the language model (text_config) is counted; the vision tower and projector are not");
    }
    Reader r(*root, prefix, errs);
    Reader top_reader(top, "", errs);

    const Family* fam = resolve_family(r, top_reader, top, !prefix.empty(), errs, warns);
    if (!fam) return Result<ModelSpec>::failure(std::move(errs), std::move(warns));
    const std::string type = fam->model_type;
    const Arch arch = fam->arch;
    Importer im{r, *fam, errs, warns, {}};

    ModelSpec m = blank_spec();
    m.model_type = type;
    m.family = fam->family;
    if (auto n = top_reader.string("_name_or_path"); n && !n->empty()) m.name = *n;
    else m.name = type;

    const Family& d = *fam;
    m.vocab = im.size("vocab_size", {"vocab_size", "n_vocab", "padded_vocab_size"}, d.vocab);
    m.hidden = im.size("hidden_size", {"hidden_size", "n_embd", "n_embed", "d_model"}, d.hidden);
    m.layers = im.size("num_hidden_layers", {"num_hidden_layers", "n_layer", "n_layers", "num_layers"}, d.layers);
    m.heads = im.size("num_attention_heads", {"num_attention_heads", "n_head", "n_heads", "num_heads"}, d.heads);

    // Feed-forward width: intermediate_size / n_inner (GPT-2) / ffn_dim (OPT) / ffn_hidden_size (Falcon);
    // GPT-2, Falcon and BLOOM default to 4 * hidden.
    if (auto f = r.integer("intermediate_size", {"intermediate_size", "n_inner", "ffn_dim", "ffn_hidden_size"})) {
        m.ffn = *f;
    } else if (!r.failed("intermediate_size")) {
        if (d.ffn > 0) {
            m.ffn = d.ffn;
            warns.push_back(prefix + "intermediate_size is missing; using the transformers " + type + " default " +
                            std::to_string(d.ffn));
        } else {
            m.ffn = 4 * m.hidden;
            im.derived["intermediate_size"] = {"hidden_size"};
        }
    }
    m.max_position = im.opt("max_position_embeddings",
                            {"max_position_embeddings", "n_positions", "n_ctx", "seq_length", "max_seq_len"}, d.max_pos);
    // Multimodal wrappers may keep tie_word_embeddings at the top level, beside text_config.
    const bool tie_outside = !prefix.empty() && !r.has("tie_word_embeddings");
    m.tied_embeddings = tie_outside ? top_reader.boolean("tie_word_embeddings", d.tied)
                                    : r.boolean("tie_word_embeddings", d.tied);

    // Key/value heads: num_key_value_heads (GQA), Falcon num_kv_heads/n_head_kv or multi_query (MQA).
    const bool multi_query = arch == Arch::Falcon && r.boolean("multi_query", true);
    const bool new_decoder = r.boolean("new_decoder_architecture", type == "RefinedWeb");
    if (auto kv = r.integer("num_key_value_heads", {"num_key_value_heads", "num_kv_heads", "n_head_kv", "n_kv_heads"});
        kv && (arch != Arch::Falcon || new_decoder)) {
        m.kv_heads = *kv;
    } else if (multi_query && !(arch == Arch::Falcon && new_decoder)) {
        m.kv_heads = 1;
        r.alias("num_key_value_heads", "multi_query");
    } else {
        m.kv_heads = d.kv > 0 ? d.kv : m.heads;
        im.derived["num_key_value_heads"] = {"num_attention_heads"};
    }

    // Head width: explicit head_dim, the family default (Gemma 256, Qwen3 128), or hidden / heads.
    if (auto hd = r.integer("head_dim", {"head_dim"})) {
        m.head_dim = *hd;
    } else if (d.head_dim > 0) {
        m.head_dim = d.head_dim;
    } else if (!r.failed("head_dim")) {
        im.derived["head_dim"] = {"hidden_size", "num_attention_heads"};
        if (m.heads > 0 && m.hidden > 0) {
            if (m.hidden % m.heads != 0)
                r.fail("num_attention_heads", "must divide hidden_size (" + std::to_string(m.hidden) +
                                                  ") when head_dim is not given; got " + std::to_string(m.heads));
            m.head_dim = m.hidden / m.heads;
        }
    }

    switch (arch) {
        case Arch::Llama:    // LlamaAttention: attention_bias on q,k,v,o; LlamaMLP: mlp_bias
        case Arch::Qwen3:    // Qwen3Attention: attention_bias; q_norm/k_norm over head_dim
        case Arch::Qwen3Moe:
            m.qkv_bias = m.attn_out_bias = r.boolean("attention_bias", false);
            m.mlp_bias = r.boolean("mlp_bias", false);
            m.qk_norm = arch == Arch::Qwen3 || arch == Arch::Qwen3Moe;
            break;
        case Arch::Qwen2:    // Qwen2Attention: q,k,v with bias, o without
        case Arch::Qwen2Moe:
            m.qkv_bias = true;
            break;
        case Arch::Gemma:    // GemmaDecoderLayer: input + post_attention RMSNorm
            break;
        case Arch::Gemma2:   // Gemma2DecoderLayer: input, post_attention, pre_feedforward, post_feedforward
        case Arch::Gemma3:   // + q_norm/k_norm
            m.norms_per_layer = 4;
            m.qk_norm = arch == Arch::Gemma3;
            m.qkv_bias = m.attn_out_bias = r.boolean("attention_bias", false);
            break;
        case Arch::Gpt2:     // GPT2Block: ln_1, c_attn(+b), c_proj(+b), ln_2, mlp c_fc(+b) c_proj(+b); wpe
            m.norm = NormKind::LayerNorm;
            m.gated_mlp = false;
            m.qkv_bias = m.attn_out_bias = m.mlp_bias = true;
            m.position = PositionKind::Learned;
            break;
        case Arch::GptNeox:  // GPTNeoXLayer: 2 LayerNorms, parallel residual, biased linears, rotary
            m.norm = NormKind::LayerNorm;
            m.gated_mlp = false;
            m.qkv_bias = m.attn_out_bias = r.boolean("attention_bias", true);
            m.mlp_bias = true;
            m.parallel_attn_mlp = r.boolean("use_parallel_residual", true);
            break;
        case Arch::Falcon: { // FalconDecoderLayer; all linears use config.bias
            m.norm = NormKind::LayerNorm;
            m.gated_mlp = false;
            m.qkv_bias = m.attn_out_bias = m.mlp_bias = r.boolean("bias", false);
            m.parallel_attn_mlp = r.boolean("parallel_attn", true);
            if (r.boolean("alibi", false)) m.position = PositionKind::Alibi;
            if (new_decoder)  // ln_attn + ln_mlp (num_ln_in_parallel_attn, default 2)
                m.norms_per_layer = im.small("num_ln_in_parallel_attn", {"num_ln_in_parallel_attn"}, 2);
            else  // one input_layernorm when parallel, else input + post_attention
                m.norms_per_layer = m.parallel_attn_mlp ? 1 : 2;
            break;
        }
        case Arch::Opt: {    // OPTDecoderLayer: biased q,k,v,out_proj, fc1, fc2; 2 LayerNorms; positions + 2
            m.norm = NormKind::LayerNorm;
            m.gated_mlp = false;
            m.qkv_bias = m.attn_out_bias = m.mlp_bias = r.boolean("enable_bias", true);
            m.position = PositionKind::Learned;
            m.position_offset = 2;
            m.final_norm = r.boolean("do_layer_norm_before", true) && !r.boolean("_remove_final_layer_norm", false);
            const int64_t proj = im.opt("word_embed_proj_dim", {"word_embed_proj_dim"}, m.hidden);
            m.embed_dim = proj == m.hidden ? 0 : proj;
            break;
        }
        case Arch::Bloom:    // BloomModel: word_embeddings_layernorm; biased linears; ALiBi
            m.norm = NormKind::LayerNorm;
            m.gated_mlp = false;
            m.qkv_bias = m.attn_out_bias = m.mlp_bias = true;
            m.position = PositionKind::Alibi;
            m.embedding_norm = true;
            break;
        default:
            break;
    }
    if (m.position == PositionKind::Learned && m.max_position == 0)
        m.max_position = im.size("max_position_embeddings", {"max_position_embeddings", "n_positions"}, d.max_pos);

    // Sliding window: Mistral default 4096 (null turns it off), Qwen2 only with use_sliding_window,
    // Gemma 2 every other layer, Gemma 3 all but every sliding_window_pattern-th layer.
    const int64_t default_window =
        (arch == Arch::Mistral || arch == Arch::Gemma2 || arch == Arch::Gemma3 || arch == Arch::Qwen2 ||
         arch == Arch::Qwen2Moe || arch == Arch::Qwen3 || arch == Arch::Qwen3Moe) ? 4096 : 0;
    m.sliding_window = r.is_null("sliding_window") ? 0 : im.opt("sliding_window", {"sliding_window"}, default_window);
    const bool qwen = arch == Arch::Qwen2 || arch == Arch::Qwen2Moe || arch == Arch::Qwen3 || arch == Arch::Qwen3Moe;
    if (qwen && !r.boolean("use_sliding_window", false)) m.sliding_window = 0;
    if (arch == Arch::Gemma2) m.sliding_window_pattern = 2;
    if (arch == Arch::Gemma3) m.sliding_window_pattern = im.small("sliding_window_pattern", {"sliding_window_pattern"}, 6);

    read_moe(im, m, arch);
    if (arch == Arch::DeepseekV2 || arch == Arch::DeepseekV3) read_mla(im, m);

    if (top.contains("quantization_config"))
        warns.push_back("the checkpoint is quantized (quantization_config); counts are parameters, choose the weight format separately");

    // Size rules, with fields named as written. Skip rules on fields that already failed to parse.
    std::vector<FieldError> rule_errs;
    validate_model(m, rule_errs, "");
    auto bad = [&](const std::string& field) {
        if (r.failed(field)) return true;
        for (const FieldError& e : rule_errs)
            if (e.field == field) return true;
        return false;
    };
    for (FieldError& e : rule_errs) {
        if (r.failed(e.field)) continue;
        if (auto it = im.derived.find(e.field); it != im.derived.end()) {
            bool source_bad = false;
            for (const std::string& src : it->second) source_bad = source_bad || bad(src);
            if (source_bad) continue;
        }
        errs.push_back({r.key(e.field), std::move(e.message)});
    }
    if (!errs.empty()) return Result<ModelSpec>::failure(std::move(errs), std::move(warns));
    return Result<ModelSpec>::success(std::move(m), std::move(warns));
}

Result<ModelSpec> import_hf_config(std::string_view json_text) {
    std::vector<FieldError> errs;
    std::optional<json> j = parse_json_input(json_text, "config", errs);
    if (!j) return Result<ModelSpec>::failure(std::move(errs));
    return import_hf_config_json(*j);
}

ModelSpec model_from_param_count(int64_t params) {
    ModelSpec m = blank_spec();
    m.params_only = params;
    m.name = "Custom (" + std::to_string(params) + " parameters)";
    m.family = "Custom";
    return m;
}

}  // namespace vl
