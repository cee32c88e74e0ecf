// Hugging Face config.json -> ModelSpec. Defaults are those of each transformers configuration class
// (transformers/models/<type>/configuration_<type>.py, __init__ keyword defaults); architecture flags
// follow the module lists of modeling_<type>.py. See hf_config.h for the contract.
#include "model/hf_config.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <string_view>
#include <tuple>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "json_input.h"
#include "model/hf_config_json.h"
#include "model/model_validate.h"

namespace vl {

namespace {

using json = nlohmann::json;

enum class Arch {
    Llama, Mistral, Mixtral, Qwen2, Qwen2Moe, Qwen3, Qwen3Moe, Gemma, Gemma2, Gemma3, Phi3,
    Gpt2, GptNeox, Falcon, Opt, Bloom, DeepseekV2, DeepseekV3, QwenV1, Bert, Mamba, Mamba2, Jamba,
    Qwen3Next, Qwen35, NemotronH, GraniteHybrid, FalconH1, GptOss, Mllama, Glm4Moe, T5, Bart, Zamba2, Zamba,
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
    // GLM-4.5 / GLM-4.5-Air (Glm4MoeConfig's defaults: the Air's sizes; head_dim hidden / heads unless given)
    {"glm4_moe",        "Glm4MoeForCausalLM",             Arch::Glm4Moe,    "GLM-4.5",    151552,  4096, 10944, 46,  96,   8,   0, 131072,  false},
    // Qwen v1 (remote code: configuration_qwen.QWenConfig, modeling_qwen.py); intermediate_size is twice the MLP width
    {"qwen",            "QWenLMHeadModel",                Arch::QwenV1,     "Qwen (v1)",  151936,  4096, 22016, 32,  32,   0, 128,   8192,  false},
    // Vision-language (issue 18, item 3): Qwen2_5_VLConfig's defaults (the 72B sizes; Qwen2.5-VL-7B-Instruct keeps its text
    // fields at the top level, newer saves also in text_config as qwen2_5_vl_text); the tower in vision_config (read_vision)
    {"qwen2_5_vl",      "Qwen2_5_VLForConditionalGeneration", Arch::Qwen2, "Qwen2.5-VL",  152064,  8192, 29568, 80,  64,   8,   0,  32768,  false},
    {"qwen2_5_vl_text", "",                               Arch::Qwen2,      "Qwen2.5-VL", 152064,  8192, 29568, 80,  64,   8,   0,  32768,  false},
    // Qwen2-VL: Qwen2VLConfig's defaults (the 72B sizes), the same layout as Qwen2.5-VL's
    {"qwen2_vl",        "Qwen2VLForConditionalGeneration", Arch::Qwen2,     "Qwen2-VL",   152064,  8192, 29568, 80,  64,   8,   0,  32768,  false},
    {"qwen2_vl_text",   "",                               Arch::Qwen2,      "Qwen2-VL",   152064,  8192, 29568, 80,  64,   8,   0,  32768,  false},
    // Encoders (issue 18, item 5): the base model (BertModel, RobertaModel, XLMRobertaModel), as AutoModel loads it
    {"bert",            "BertModel",                      Arch::Bert,       "BERT",        30522,   768,  3072, 12,  12,   0,   0,    512,  false},
    {"roberta",         "RobertaModel",                   Arch::Bert,       "RoBERTa",     50265,   768,  3072, 12,  12,   0,   0,    512,  false},
    {"xlm-roberta",     "XLMRobertaModel",                Arch::Bert,       "XLM-RoBERTa", 30522,   768,  3072, 12,  12,   0,   0,    512,  false},
    // State-space models (issue 18): MambaConfig, Mamba2Config (no attention, no MLP: heads and
    // intermediate_size are the mixer's, read by mamba()/mamba2()), JambaConfig (Mamba + attention + MoE)
    {"mamba",           "MambaForCausalLM",               Arch::Mamba,      "Mamba",       50280,   768,     0, 32,   0,   0,   0,      0,  true},
    // FalconMambaConfig / FalconMambaMixer: Mamba's modules; its RMS normalization of B, C and dt has no weights
    {"falcon_mamba",    "FalconMambaForCausalLM",         Arch::Mamba,      "Falcon Mamba",50280,   768,     0, 32,   0,   0,   0,      0,  true},
    {"mamba2",          "Mamba2ForCausalLM",              Arch::Mamba2,     "Mamba2",      32768,  4096,     0, 64,   0,   0,   0,      0,  false},
    {"jamba",           "JambaForCausalLM",               Arch::Jamba,      "Jamba",       65536,  4096, 14336, 32,  32,   8,   0, 262144,  false},
    // Gated DeltaNet hybrids (issue 18): Qwen3NextConfig's defaults; Qwen3.5 / Qwen3.6 (the language model in
    // text_config of the *ForConditionalGeneration configs): Qwen3_5TextConfig's and Qwen3_5MoeTextConfig's defaults
    // (transformers configuration_qwen3_5.py / configuration_qwen3_5_moe.py: the Qwen3.5-9B and 35B-A3B sizes,
    // max_position_embeddings 32768) [transformers-code]
    {"qwen3_next",      "Qwen3NextForCausalLM",           Arch::Qwen3Next,  "Qwen3-Next", 151936,  2048,  5632, 48,  16,   2, 256,  32768,  false},
    {"qwen3_5_moe_text","Qwen3_5MoeForCausalLM",          Arch::Qwen3Next,  "Qwen3.5-MoE",248320,  2048,     0, 40,  16,   2, 256,  32768,  false},
    {"qwen3_5_moe",     "Qwen3_5MoeForConditionalGeneration", Arch::Qwen3Next, "Qwen3.5-MoE",248320, 2048,  0, 40,  16,   2, 256,  32768,  false},
    {"qwen3_5_text",    "Qwen3_5ForCausalLM",             Arch::Qwen35,     "Qwen3.5",    248320,  4096, 12288, 32,  16,   4, 256,  32768,  false},
    {"qwen3_5",         "Qwen3_5ForConditionalGeneration",Arch::Qwen35,     "Qwen3.5",    248320,  4096, 12288, 32,  16,   4, 256,  32768,  false},
    // Nemotron-H / Nemotron Nano 2 / Nemotron 3 Nano (issue 18): NemotronHConfig's defaults (Nemotron-H-8B) [transformers-code]
    {"nemotron_h",      "NemotronHForCausalLM",           Arch::NemotronH,  "Nemotron-H", 131072,  4096, 21504, 52,  32,   8, 128,   4096,  false},
    // Granite 4.0 H (issue 18): GraniteMoeHybridConfig's defaults [transformers-code]
    {"granitemoehybrid","GraniteMoeHybridForCausalLM",    Arch::GraniteHybrid,"Granite-4.0-H",32000, 4096, 11008, 32,  32,   0,   0,   2048,  false},
    // Falcon-H1 (issue 18): FalconH1Config's defaults [transformers-code]
    {"falcon_h1",       "FalconH1ForCausalLM",            Arch::FalconH1,   "Falcon-H1",  128000,  4096, 14336, 32,  32,   8,   0,   8192,  false},
    // Zamba2 (issue 18): Zamba2Config's defaults (the 2.7B's sizes; intermediate_size 4 * hidden_size) [transformers-zamba2]
    {"zamba2",          "Zamba2ForCausalLM",              Arch::Zamba2,     "Zamba2",      32000,  2560,     0, 54,  32,   0,   0,   4096,  true},
    // Zamba (v1): ZambaConfig's defaults, Zamba-7B-v1's sizes (its docstring's checkpoint) [transformers-code]
    {"zamba",           "ZambaForCausalLM",               Arch::Zamba,      "Zamba",       32000,  3712, 14848, 76,  16,  16,   0,   4096,  true},
    // gpt-oss (issue 18): GptOssConfig's defaults (the 120b sizes; intermediate_size is each routed expert's) [transformers-code]
    {"gpt_oss",         "GptOssForCausalLM",              Arch::GptOss,     "gpt-oss",    201088,  2880,  2880, 36,  64,   8,  64, 131072,  false},
    // Llama 3.2 Vision (issue 18 item 3): MllamaTextConfig's defaults (the 11B sizes), the language model in text_config; the
    // tower in vision_config (read_vision) [transformers-mllama]
    {"mllama",          "MllamaForConditionalGeneration", Arch::Mllama,     "Llama 3.2 Vision",128256,4096,14336,40, 32,   8,   0, 131072,  false},
    {"mllama_text_model","",                              Arch::Mllama,     "Llama 3.2 Vision",128256,4096,14336,40, 32,   8,   0, 131072,  false},
    // Encoder-decoders (issue 14 item 12, issue 18): T5Config's and MT5Config's defaults (num_layers is the encoder's; head_dim is
    // d_kv; no position table: relative_attention_bias), BartConfig's (encoder_layers, encoder_attention_heads, encoder_ffn_dim;
    // the decoder's read by t5() / bart()) [transformers-t5] [transformers-bart]
    {"t5",              "T5ForConditionalGeneration",     Arch::T5,         "T5",          32128,   512,  2048,  6,   8,   0,  64,      0,  true},
    {"mt5",             "MT5ForConditionalGeneration",    Arch::T5,         "mT5",        250112,   512,  1024,  8,   6,   0,  64,      0,  false},
    {"bart",            "BartForConditionalGeneration",   Arch::Bart,       "BART",        50265,  1024,  4096, 12,  16,   0,   0,   1024,  true},
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

// Encoder-only and encoder-decoder families people paste that are not supported: named as such instead of "unknown".
// (BERT, RoBERTa and XLM-RoBERTa encoders are supported: kFamilies.)
bool is_one_of(const std::string& type, std::initializer_list<std::string_view> types) {
    return std::find(types.begin(), types.end(), type) != types.end();
}
bool is_encoder_type(const std::string& type) {
    return is_one_of(type, {"distilbert", "albert", "electra", "deberta", "deberta-v2", "modernbert"});
}
// The encoder-decoders vramlens does not support (t5, mt5 and bart are in kFamilies).
bool is_encoder_decoder_type(const std::string& type) {
    return is_one_of(type, {"umt5", "longt5", "mbart", "pegasus", "marian", "whisper", "encoder-decoder"});
}

// A model_type folded for comparison: lower case, without '-', '_', '.' and spaces ("Qwen2.5" -> "qwen25").
std::string fold_type(const std::string& type) {
    std::string out;
    for (char c : type) {
        if (c == '-' || c == '_' || c == '.' || c == ' ') continue;
        out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    }
    return out;
}

// Levenshtein distance of two model_type strings (close_types limits their length).
size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diag = up;
        }
    }
    return row[b.size()];
}

// The supported model_types close to `type`, for typos and spellings: the same when folded ("Llama",
// "deepseek-v3"), else at most 2 edits away when folded ("mistrall", "qwen2.5" -> qwen2). Only a hint:
// a close name can be another architecture ("llama4"), so the message does not import it.
std::string close_types(const std::string& type) {
    const std::string t = fold_type(type.substr(0, 64));
    std::string same, near;
    for (const Family& f : kFamilies) {
        const std::string c = fold_type(f.model_type);
        std::string& list = t == c ? same : near;
        if (t != c && (t.size() < 4 || edit_distance(t, c) > 2)) continue;
        list += (list.empty() ? "" : ", ") + std::string("\"") + f.model_type + "\"";
    }
    return same.empty() ? near : same;
}

std::string unsupported_type(const std::string& type) {
    const std::string quoted = "\"" + type + "\"";
    if (is_encoder_decoder_type(type))
        return quoted + " is an encoder-decoder model vramlens does not support yet (the encoder-decoders it supports: t5, mt5, bart); "
                        "supported model_types: " + supported_types();
    if (is_encoder_type(type))
        return quoted + " is an encoder vramlens does not support yet (the encoders it supports: bert, roberta, xlm-roberta); "
                        "supported model_types: " + supported_types();
    const std::string close = close_types(type);
    return quoted + " is not supported" + (close.empty() ? "" : " (the closest supported: " + close + ")") + "; use one of " +
           supported_types() + " (a model of another type can be given by its parameter count instead)";
}

std::string short_dump(const json& v) {
    std::string s = v.dump();
    return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

// The keys of one lookup, in order: the first present with a non-null value wins.
using Keys = std::span<const char* const>;

// Reads fields by their aliases; records which key was used so later errors name it as written.
class Reader {
public:
    Reader(const json& obj, std::string prefix, std::vector<FieldError>& errs)
        : obj_(obj), prefix_(std::move(prefix)), errs_(errs) {}

    // The first key among `names` present with a non-null value.
    const json* find(const char* canonical, Keys names) {
        for (const char* n : names) {
            auto it = obj_.find(n);
            if (it != obj_.end() && !it->is_null()) {
                used_[canonical] = n;
                return &*it;
            }
        }
        return nullptr;
    }
    const json* find(const char* name) { return find(name, Keys(&name, 1)); }
    // Present with an explicit null (e.g. "sliding_window": null turns a default off).
    bool is_null(const char* name) const {
        auto it = obj_.find(name);
        return it != obj_.end() && it->is_null();
    }
    bool has(const char* name) const { return obj_.contains(name); }

    std::optional<int64_t> integer(const char* canonical, Keys names) {
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
    std::optional<int64_t> integer(const char* name) { return integer(name, Keys(&name, 1)); }

    std::optional<bool> boolean(const char* name) {
        const json* v = find(name);
        if (!v) return std::nullopt;
        if (v->is_boolean()) return v->get<bool>();
        fail(name, "must be true or false; got " + short_dump(*v));
        return std::nullopt;
    }
    bool boolean(const char* name, bool def) { return boolean(name).value_or(def); }

    std::optional<std::string> string(const char* name) {
        const json* v = find(name);
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
    bool new_decoder = false;  // Falcon's new_decoder_architecture (Falcon-40B/180B)

    void warn_default(const char* canonical, int64_t def) {
        warns.push_back(r.prefix() + canonical + " is missing; using the transformers " + fam.model_type + " default " +
                        std::to_string(def));
    }
    // A count stored as int (experts, layer frequencies): out-of-range values are errors, not truncated.
    int small(const char* canonical, Keys names, int64_t def) {
        const int64_t v = opt(canonical, names, def);
        if (v > 1'000'000'000 || v < -1'000'000'000) {
            r.fail(canonical, "must be at most 1000000000 (absurd size); got " + std::to_string(v));
            return 0;
        }
        return static_cast<int>(v);
    }
    int small(const char* name, int64_t def) { return small(name, Keys(&name, 1), def); }
    // An optional size: the file's value or the default, silently (documented library default).
    int64_t opt(const char* canonical, Keys names, int64_t def) { return r.integer(canonical, names).value_or(def); }
    int64_t opt(const char* name, int64_t def) { return opt(name, Keys(&name, 1), def); }
};

// ---- config keys -> ModelSpec, per family ------------------------------------------------------------
// Adding a family is adding rows: kFamilies (model_type, class, size defaults), kLayouts (its modules),
// and kFlagKeys / kCountKeys for the keys its configuration class adds. What rows cannot say is a
// `special` function of its kLayouts row.

// The sizes every family has, read in this order. A missing size takes the family's default
// (kFamilies) with a warning; max_position_embeddings takes it silently (it changes no count); an
// intermediate_size whose family default is 0 (GPT-2, Falcon, BLOOM) is 4 * hidden_size.
struct SizeKey {
    const char* field;                // the canonical name (validate_model's)
    std::array<const char*, 6> keys;  // as written in config.json, looked up in order; nullptr: no more
    int64_t ModelSpec::*member;
    int64_t Family::*family_default;
    bool warn_if_missing;
};
// clang-format off
constexpr SizeKey kSizeKeys[] = {
    {"vocab_size",              {"vocab_size", "n_vocab", "padded_vocab_size"},             &ModelSpec::vocab,        &Family::vocab,   true},
    {"hidden_size",             {"hidden_size", "n_embd", "n_embed", "d_model"},            &ModelSpec::hidden,       &Family::hidden,  true},
    {"num_hidden_layers",       {"num_hidden_layers", "n_layer", "n_layers", "num_layers", "encoder_layers"}, &ModelSpec::layers,       &Family::layers,  true},
    {"num_attention_heads",     {"num_attention_heads", "n_head", "n_heads", "num_heads", "encoder_attention_heads"},  &ModelSpec::heads,        &Family::heads,   true},
    {"intermediate_size",       {"intermediate_size", "n_inner", "ffn_dim", "ffn_hidden_size", "d_ff", "encoder_ffn_dim"}, &ModelSpec::ffn,      &Family::ffn,     true},
    {"max_position_embeddings", {"max_position_embeddings", "n_positions", "n_ctx", "seq_length", "max_seq_len"},
                                                                                            &ModelSpec::max_position, &Family::max_pos, false},
};
// clang-format on
// Key/value heads: num_key_value_heads (GQA) or Falcon's num_kv_heads / n_head_kv (read_kv_heads).
constexpr const char* kKvHeadKeys[] = {"num_key_value_heads", "num_kv_heads", "n_head_kv", "n_kv_heads"};

// Boolean keys of a family's configuration class and the ModelSpec flags each sets.
struct FlagKey {
    Arch arch;
    const char* key;
    bool def;  // the configuration class's default
    std::array<bool ModelSpec::*, 3> flags;
};
constexpr auto kQkv = &ModelSpec::qkv_bias, kOut = &ModelSpec::attn_out_bias, kMlp = &ModelSpec::mlp_bias;
// clang-format off
constexpr FlagKey kFlagKeys[] = {
    {Arch::Llama,    "attention_bias",        false, {kQkv, kOut}},  // LlamaAttention: q,k,v,o
    {Arch::Llama,    "mlp_bias",              false, {kMlp}},        // LlamaMLP
    {Arch::Qwen3,    "attention_bias",        false, {kQkv, kOut}},
    {Arch::Qwen3,    "mlp_bias",              false, {kMlp}},
    {Arch::Qwen3Moe, "attention_bias",        false, {kQkv, kOut}},
    {Arch::Qwen3Moe, "mlp_bias",              false, {kMlp}},
    {Arch::Qwen3Next,"attention_bias",        false, {kQkv, kOut}},
    {Arch::Qwen3Next,"attn_output_gate",      true,  {&ModelSpec::attn_output_gate}},
    {Arch::Qwen35,   "attention_bias",        false, {kQkv, kOut}},
    {Arch::Qwen35,   "attn_output_gate",      true,  {&ModelSpec::attn_output_gate}},
    {Arch::FalconH1, "attention_bias",        false, {kQkv, kOut}},  // FalconH1Attention is LlamaAttention
    {Arch::FalconH1, "mlp_bias",              false, {kMlp}},        // FalconH1MLP is LlamaMLP
    {Arch::Gemma2,   "attention_bias",        false, {kQkv, kOut}},
    {Arch::Gemma3,   "attention_bias",        false, {kQkv, kOut}},
    {Arch::GptNeox,  "attention_bias",        true,  {kQkv, kOut}},
    {Arch::GptNeox,  "use_parallel_residual", true,  {&ModelSpec::parallel_attn_mlp}},
    {Arch::Falcon,   "bias",                  false, {kQkv, kOut, kMlp}},  // all of FalconDecoderLayer's linears
    {Arch::Falcon,   "parallel_attn",         true,  {&ModelSpec::parallel_attn_mlp}},
    {Arch::Opt,      "enable_bias",           true,  {kQkv, kOut, kMlp}},
    {Arch::NemotronH,"attention_bias",        false, {kQkv, kOut}},
    {Arch::NemotronH,"mlp_bias",              false, {kMlp}},        // NemotronHMLP up_proj, down_proj
    {Arch::GraniteHybrid,"attention_bias",    false, {kQkv, kOut}},
    {Arch::GptOss,   "attention_bias",        true,  {kQkv, kOut}},  // GptOssAttention: q, k, v, o
    {Arch::Glm4Moe,  "attention_bias",        false, {kQkv}},        // Glm4MoeAttention: q, k, v (o_proj has none)
    {Arch::Glm4Moe,  "use_qk_norm",           false, {&ModelSpec::qk_norm}},  // q_norm, k_norm [head_dim]
};
// clang-format on

// Integer keys of a family's configuration class (experts, MLA ranks, window patterns).
enum class Count {
    Experts, TopK, ExpertFfn, SharedExperts, SharedExpertFfn, FirstDenseLayers, MoeLayerFreq,
    QLoraRank, KvLoraRank, QkRopeHeadDim, QkNopeHeadDim, VHeadDim, WindowPattern,
};
struct CountKey {
    Arch arch;
    Count count;
    const char* key;    // as written in config.json
    int64_t def;        // the configuration class's default
    bool null_is_zero;  // an explicit null turns it off ("n_routed_experts": null is a dense DeepSeek)
    bool with_experts;  // read only when the model has routed experts
};
// clang-format off
constexpr CountKey kCountKeys[] = {
    // MixtralSparseMoeBlock: num_local_experts full SwiGLU experts of intermediate_size (mixtral_experts)
    {Arch::Mixtral,    Count::Experts,          "num_local_experts",               8,    false, false},
    {Arch::Mixtral,    Count::TopK,             "num_experts_per_tok",             2,    false, false},
    // Qwen2MoeSparseMoeBlock: experts + shared_expert + shared_expert_gate (d -> 1)
    {Arch::Qwen2Moe,   Count::Experts,          "num_experts",                     60,   false, false},
    {Arch::Qwen2Moe,   Count::TopK,             "num_experts_per_tok",             4,    false, false},
    {Arch::Qwen2Moe,   Count::ExpertFfn,        "moe_intermediate_size",           1408, false, false},
    {Arch::Qwen2Moe,   Count::MoeLayerFreq,     "decoder_sparse_step",             1,    false, false},
    {Arch::Qwen2Moe,   Count::SharedExpertFfn,  "shared_expert_intermediate_size", 5632, false, false},
    // Qwen3MoeSparseMoeBlock: experts only
    {Arch::Qwen3Moe,   Count::Experts,          "num_experts",                     128,  false, false},
    {Arch::Qwen3Moe,   Count::TopK,             "num_experts_per_tok",             8,    false, false},
    {Arch::Qwen3Moe,   Count::ExpertFfn,        "moe_intermediate_size",           768,  false, false},
    {Arch::Qwen3Moe,   Count::MoeLayerFreq,     "decoder_sparse_step",             1,    false, false},
    // Qwen3NextSparseMoeBlock: experts + shared_expert + shared_expert_gate, on every layer (qwen3_next())
    {Arch::Qwen3Next,  Count::Experts,          "num_experts",                     512,  false, false},
    {Arch::Qwen3Next,  Count::TopK,             "num_experts_per_tok",             10,   false, false},
    {Arch::Qwen3Next,  Count::ExpertFfn,        "moe_intermediate_size",           512,  false, false},
    {Arch::Qwen3Next,  Count::MoeLayerFreq,     "decoder_sparse_step",             1,    false, false},
    {Arch::Qwen3Next,  Count::SharedExpertFfn,  "shared_expert_intermediate_size", 512,  false, false},
    // DeepseekV2MoE / DeepseekV3MoE: n_routed_experts + one shared MLP of n_shared * moe_ffn + gate;
    // DeepseekV2Config's n_routed_experts defaults to None (dense). MLA ranks: the same defaults in both.
    {Arch::DeepseekV2, Count::Experts,          "n_routed_experts",                0,    true,  false},
    {Arch::DeepseekV2, Count::TopK,             "num_experts_per_tok",             0,    false, true},
    {Arch::DeepseekV2, Count::ExpertFfn,        "moe_intermediate_size",           1407, false, true},
    {Arch::DeepseekV2, Count::SharedExperts,    "n_shared_experts",                0,    false, true},
    {Arch::DeepseekV2, Count::FirstDenseLayers, "first_k_dense_replace",           0,    false, true},
    {Arch::DeepseekV2, Count::MoeLayerFreq,     "moe_layer_freq",                  1,    false, true},
    {Arch::DeepseekV2, Count::QLoraRank,        "q_lora_rank",                     1536, true,  false},  // null (V2-Lite): uncompressed queries
    {Arch::DeepseekV2, Count::KvLoraRank,       "kv_lora_rank",                    512,  false, false},
    {Arch::DeepseekV2, Count::QkRopeHeadDim,    "qk_rope_head_dim",                64,   false, false},
    {Arch::DeepseekV2, Count::QkNopeHeadDim,    "qk_nope_head_dim",                128,  false, false},
    {Arch::DeepseekV2, Count::VHeadDim,         "v_head_dim",                      128,  false, false},
    {Arch::DeepseekV3, Count::Experts,          "n_routed_experts",                256,  true,  false},
    {Arch::DeepseekV3, Count::TopK,             "num_experts_per_tok",             8,    false, true},
    {Arch::DeepseekV3, Count::ExpertFfn,        "moe_intermediate_size",           2048, false, true},
    {Arch::DeepseekV3, Count::SharedExperts,    "n_shared_experts",                1,    false, true},
    {Arch::DeepseekV3, Count::FirstDenseLayers, "first_k_dense_replace",           3,    false, true},
    {Arch::DeepseekV3, Count::MoeLayerFreq,     "moe_layer_freq",                  1,    false, true},
    {Arch::DeepseekV3, Count::QLoraRank,        "q_lora_rank",                     1536, true,  false},
    {Arch::DeepseekV3, Count::KvLoraRank,       "kv_lora_rank",                    512,  false, false},
    {Arch::DeepseekV3, Count::QkRopeHeadDim,    "qk_rope_head_dim",                64,   false, false},
    {Arch::DeepseekV3, Count::QkNopeHeadDim,    "qk_nope_head_dim",                128,  false, false},
    {Arch::DeepseekV3, Count::VHeadDim,         "v_head_dim",                      128,  false, false},
    // Glm4MoeMoE: n_routed_experts + shared_experts (n_shared_experts x moe_intermediate_size) + Glm4MoeTopkRouter; the first
    // first_k_dense_replace layers dense (Glm4MoeMLP of intermediate_size)
    {Arch::Glm4Moe,    Count::Experts,          "n_routed_experts",                128,  false, false},
    {Arch::Glm4Moe,    Count::TopK,             "num_experts_per_tok",             8,    false, true},
    {Arch::Glm4Moe,    Count::ExpertFfn,        "moe_intermediate_size",           1408, false, true},
    {Arch::Glm4Moe,    Count::SharedExperts,    "n_shared_experts",                1,    false, true},
    {Arch::Glm4Moe,    Count::FirstDenseLayers, "first_k_dense_replace",           1,    false, true},
    // GptOssMLP: GptOssTopKRouter over num_local_experts GptOssExperts of intermediate_size (gpt_oss())
    {Arch::GptOss,     Count::Experts,          "num_local_experts",               128,  false, false},
    {Arch::GptOss,     Count::TopK,             "num_experts_per_tok",             4,    false, false},
    // Gemma3TextConfig: every sliding_window_pattern-th layer is global
    {Arch::Gemma3,     Count::WindowPattern,    "sliding_window_pattern",          6,    false, false},
};
// clang-format on

// The canonical name (validate_model's) of a count; errors name the key as written.
const char* count_field(Count c) {
    switch (c) {
        case Count::Experts: return "num_experts";
        case Count::TopK: return "num_experts_per_tok";
        case Count::ExpertFfn: return "moe_intermediate_size";
        case Count::SharedExperts: return "n_shared_experts";
        case Count::SharedExpertFfn: return "shared_expert_intermediate_size";
        case Count::FirstDenseLayers: return "first_k_dense_replace";
        case Count::MoeLayerFreq: return "decoder_sparse_step";
        case Count::QLoraRank: return "q_lora_rank";
        case Count::KvLoraRank: return "kv_lora_rank";
        case Count::QkRopeHeadDim: return "qk_rope_head_dim";
        case Count::QkNopeHeadDim: return "qk_nope_head_dim";
        case Count::VHeadDim: return "v_head_dim";
        case Count::WindowPattern: return "sliding_window_pattern";
    }
    return "";
}

// Reads one count key into its ModelSpec field (int fields through Importer::small).
void read_count(Importer& im, ModelSpec& m, const CountKey& k) {
    const char* field = count_field(k.count);
    const Keys keys(&k.key, 1);
    const bool off = k.null_is_zero && im.r.is_null(k.key);
    auto small = [&] { return off ? 0 : im.small(field, keys, k.def); };
    auto size = [&] { return off ? 0 : im.opt(field, keys, k.def); };
    switch (k.count) {
        case Count::Experts: m.moe.num_experts = small(); break;
        case Count::TopK: m.moe.top_k = small(); break;
        case Count::ExpertFfn: m.moe.expert_ffn = size(); break;
        case Count::SharedExperts: m.moe.shared_experts = small(); break;
        case Count::SharedExpertFfn: m.moe.shared_expert_ffn = size(); break;
        case Count::FirstDenseLayers: m.moe.first_dense_layers = small(); break;
        case Count::MoeLayerFreq: m.moe.moe_layer_freq = small(); break;
        case Count::QLoraRank: m.mla.q_lora_rank = size(); break;
        case Count::KvLoraRank: m.mla.kv_lora_rank = size(); break;
        case Count::QkRopeHeadDim: m.mla.qk_rope_head_dim = size(); break;
        case Count::QkNopeHeadDim: m.mla.qk_nope_head_dim = size(); break;
        case Count::VHeadDim: m.mla.v_head_dim = size(); break;
        case Count::WindowPattern: m.sliding_window_pattern = small(); break;
    }
}

// Rules rows cannot say, one function per family that needs one (run after every table).
void mlp_only_layers(Importer& im) {
    if (const json* v = im.r.find("mlp_only_layers"); v && !(v->is_array() && v->empty()))
        im.warns.push_back(im.r.prefix() + "mlp_only_layers is not supported; those layers are counted as MoE");
}
void mixtral_experts(Importer& im, ModelSpec& m) {  // the experts are the MLP: intermediate_size is theirs
    m.moe.expert_ffn = m.ffn;
    im.r.alias("moe_intermediate_size", "intermediate_size");
    m.ffn = 0;
}
void qwen2_moe(Importer& im, ModelSpec& m) {
    m.moe.shared_expert_gate = true;
    mlp_only_layers(im);
}
void qwen3_moe(Importer& im, ModelSpec&) { mlp_only_layers(im); }
void falcon(Importer& im, ModelSpec& m) {
    if (im.r.boolean("alibi", false)) m.position = PositionKind::Alibi;
    if (im.new_decoder)  // ln_attn + ln_mlp (num_ln_in_parallel_attn, default 2)
        m.norms_per_layer = im.small("num_ln_in_parallel_attn", 2);
    else  // one input_layernorm when parallel, else input + post_attention
        m.norms_per_layer = m.parallel_attn_mlp ? 1 : 2;
}
void opt(Importer& im, ModelSpec& m) {  // OPTDecoder: final_layer_norm; project_in/out when word_embed_proj_dim != hidden
    m.final_norm = im.r.boolean("do_layer_norm_before", true) && !im.r.boolean("_remove_final_layer_norm", false);
    const int64_t proj = im.opt("word_embed_proj_dim", m.hidden);
    m.embed_dim = proj == m.hidden ? 0 : proj;
}
// num_nextn_predict_layers: the multi-token-prediction modules DeepSeek-V3 and GLM-4.5 checkpoints hold after the last layer
// (model.layers.<L>: enorm, hnorm, eh_proj [d, 2d], one decoder layer, shared_head.norm, and copies of embed_tokens and
// shared_head.head), counted apart as Qwen3-Next's, whose tensors have the same shapes (for_each_mtp_tensor; the copies are
// the model's embedding and head); vLLM loads them for speculative decoding only (DeepSeekMTP, Glm4MoeMTP,
// SpeculativeConfig num_nextn_predict_layers) [vllm-spec-decode].
void read_nextn_layers(Importer& im, ModelSpec& m) {
    m.mtp_layers = im.opt("num_nextn_predict_layers", 0);
    if (m.mtp_layers > 1)
        im.warns.push_back(im.r.prefix() + "num_nextn_predict_layers: " + std::to_string(m.mtp_layers) +
                           " MTP modules are counted as one eh_proj and its norms before that many layers; each module has its own");
    else if (m.mtp_layers == 1)
        im.warns.push_back(im.r.prefix() + "num_nextn_predict_layers: the checkpoint also holds a multi-token-prediction module, counted "
                                           "apart (engines load it only for speculative decoding)");
}
void deepseek(Importer& im, ModelSpec& m, bool v3) {
    if (m.moe.num_experts != 0) {
        if (m.moe.moe_layer_freq != 1)
            im.warns.push_back(im.r.prefix() + "moe_layer_freq != 1: layers counted as MoE when (i+1) % freq == 0");
        // noaux_tc routing keeps e_score_correction_bias (n_routed_experts) in the gate.
        m.moe.router_bias = im.r.string("topk_method").value_or(v3 ? "noaux_tc" : "greedy") == "noaux_tc";
    }
    m.attention = AttentionKind::MLA;
    m.head_dim = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim;  // query/key head width
    if (v3) read_nextn_layers(im, m);  // DeepSeek-V3's MTP module (model.layers.61)
}
// GLM-4.5 (Glm4MoeForCausalLM): Llama-like attention with q, k, v biases (attention_bias) and optional per-head q/k norms,
// a partial rotary (partial_rotary_factor; no weights), DeepSeek-V3's routing (Glm4MoeTopkRouter: sigmoid scores with the
// e_score_correction_bias buffer [n_routed_experts], saved in the checkpoint) and its MTP module (model.layers.46 in
// GLM-4.5-Air, 92 in GLM-4.5, which transformers skips on load) [transformers-code] [glm45].
void glm4_moe(Importer& im, ModelSpec& m) {
    m.moe.router_bias = m.moe.num_experts > 0;
    read_nextn_layers(im, m);
}
// BertModel / RobertaModel / XLMRobertaModel (modeling_bert.py, modeling_roberta.py): embeddings
// (word, position, token_type) + LayerNorm, post-norm layers, BertPooler; no LM head, no final norm,
// no cache. RoBERTa's position table has max_position_embeddings rows (514: padding_idx + 1 offsets
// included in the count) [transformers-code].
void bert_encoder(Importer& im, ModelSpec& m) {
    if (auto kind = im.r.string("position_embedding_type"); kind && *kind != "absolute")
        im.r.fail("position_embedding_type", "\"" + *kind + "\" adds relative-position tables vramlens does not count; only \"absolute\" is supported");
    m.encoder = true;
    m.type_vocab = im.opt("type_vocab_size", 2);
    m.pooler = true;
    m.final_norm = false;
    m.tied_embeddings = false;
}
// The decoder stack of an encoder-decoder: num_layers / encoder_layers (read as num_hidden_layers) is the encoder's, and
// ModelSpec::layers counts both stacks (Seq2SeqSpec).
void add_decoder_stack(Importer& im, ModelSpec& m, const char* key) {
    const int64_t decoder = im.opt(key, m.layers);  // T5Config: num_decoder_layers defaults to num_layers
    if (decoder <= 0 || m.layers <= 0) {
        if (decoder <= 0) im.r.fail(key, "must be at least 1 (the decoder's layers); got " + std::to_string(decoder));
        return;
    }
    m.seq2seq.decoder_layers = decoder;
    m.layers += decoder;
}
// T5ForConditionalGeneration / MT5ForConditionalGeneration (modeling_t5.py, modeling_mt5.py): a shared embedding, two T5Stacks
// of T5Blocks (T5LayerNorm: RMSNorm without bias; q, k, v, o [heads * d_kv, d_model] without bias), relative_attention_bias
// [relative_attention_num_buckets, heads] in block 0 of each stack, final_layer_norm per stack; T5DenseActDense (wi, wo) or,
// with feed_forward_proj "gated-<act>" (T5 v1.1, T0, mT5), T5DenseGatedActDense (wi_0, wi_1, wo); lm_head tied to the
// embedding with tie_word_embeddings (T5 v1.0, whose forward then rescales by d_model**-0.5: no parameter) [transformers-t5].
void t5(Importer& im, ModelSpec& m) {
    const std::string proj = im.r.string("feed_forward_proj").value_or(std::string(im.fam.model_type) == "mt5" ? "gated-gelu" : "relu");
    m.gated_mlp = proj.rfind("gated-", 0) == 0;
    if (proj == "gated-gelu") m.activation = MlpActivation::GeluNew;  // T5Config maps it to dense_act_fn "gelu_new"
    if (proj.find('-') != std::string::npos && !m.gated_mlp)
        im.r.fail("feed_forward_proj", "must be an activation (\"relu\") or \"gated-<activation>\" (\"gated-gelu\"); got \"" + proj + "\"");
    m.seq2seq.relative_buckets = im.opt("relative_attention_num_buckets", 32);
    add_decoder_stack(im, m, "num_decoder_layers");
}
// BartForConditionalGeneration (modeling_bart.py): a shared embedding; per stack BartLearnedPositionalEmbedding of
// max_position_embeddings + 2 rows and layernorm_embedding, no final norm; post-norm layers with biases on every Linear
// (self_attn_layer_norm, final_layer_norm; the decoder's encoder_attn and encoder_attn_layer_norm); lm_head tied to the
// embedding; final_logits_bias [1, vocab] is a buffer, not a parameter [transformers-bart]. The decoder's heads and FFN
// width must be the encoder's: vramlens keeps one width per model.
void bart(Importer& im, ModelSpec& m) {
    m.final_norm = false;
    add_decoder_stack(im, m, "decoder_layers");
    for (auto [key, encoder_key, value] : {std::tuple{"decoder_attention_heads", "encoder_attention_heads", m.heads},
                                           std::tuple{"decoder_ffn_dim", "encoder_ffn_dim", m.ffn}}) {
        const int64_t decoder = im.opt(key, value);
        if (decoder != value)
            im.r.fail(key, "must equal " + std::string(encoder_key) + " (" + std::to_string(value) +
                               "): vramlens models one width for both stacks; got " + std::to_string(decoder));
    }
}
// Qwen v1 (modeling_qwen.py): c_attn [3 * kv_channels * heads, d] with a bias, c_proj without one
// (no_bias, default true), and QWenMLP's w1, w2 [intermediate_size // 2, d] and c_proj back: the MLP
// is half of intermediate_size wide. kv_channels is the head width.
void qwen_v1(Importer& im, ModelSpec& m) {
    if (auto kv = im.r.integer("kv_channels"); kv && !im.r.has("head_dim")) {
        m.head_dim = *kv;
        im.r.alias("head_dim", "kv_channels");
    }
    if (m.ffn < 2 && !im.r.failed("intermediate_size"))  // the rule on the halved width would name another number
        im.r.fail("intermediate_size", "must be at least 2 (Qwen v1's MLP is intermediate_size // 2 wide); got " + std::to_string(m.ffn));
    m.ffn /= 2;
    const bool no_bias = im.r.boolean("no_bias", true);
    m.attn_out_bias = m.mlp_bias = !no_bias;
}
// Mamba's dt projection rank: time_step_rank / mamba_dt_rank, "auto" (the configuration classes'
// default) being ceil(hidden_size / 16) (MambaConfig, JambaConfig [transformers-code]).
int64_t dt_rank(Importer& im, const ModelSpec& m, Keys keys) {
    for (const char* k : keys)
        if (const json* v = im.r.find("ssm.dt_rank", Keys(&k, 1)); v && v->is_string()) {
            if (v->get<std::string>() == "auto") return (m.hidden + 15) / 16;
            im.r.fail("ssm.dt_rank", "must be an integer or \"auto\"; got " + short_dump(*v));
            return 0;
        }
    if (auto v = im.r.integer("ssm.dt_rank", keys)) return *v;
    return (m.hidden + 15) / 16;
}
// A pure state-space model: every layer is a Mamba block (MambaBlock / Mamba2Block: one RMSNorm and
// the mixer, no attention and no MLP), embeddings, norm_f and lm_head [transformers-code].
void pure_ssm(ModelSpec& m) {
    m.heads = m.kv_heads = m.head_dim = m.ffn = 0;
    m.position = PositionKind::None;
    m.ssm.attn_period = m.ssm.attn_offset = 0;
}
constexpr const char* kConvKernel[] = {"conv_kernel", "d_conv"};
constexpr const char* kStateSize[] = {"state_size", "d_state"};
// MambaConfig / MambaMixer: d_inner = intermediate_size (expand * hidden_size), state_size 16,
// conv_kernel 4, time_step_rank "auto", use_conv_bias true, use_bias false.
void mamba(Importer& im, ModelSpec& m) {
    pure_ssm(m);
    SsmSpec& x = m.ssm;
    x.kind = SsmKind::Mamba1;
    const int64_t expand = im.opt("expand", 2);
    const char* inner_keys[] = {"intermediate_size", "d_inner"};
    x.inner = im.opt("ssm.inner", inner_keys, expand * m.hidden);
    x.state = im.opt("ssm.state", kStateSize, 16);
    x.conv_kernel = im.opt("ssm.conv_kernel", kConvKernel, 4);
    const char* dt_keys[] = {"time_step_rank"};
    x.dt_rank = dt_rank(im, m, dt_keys);
    x.conv_bias = im.r.boolean("use_conv_bias", true);
    x.proj_bias = x.out_proj_bias = im.r.boolean("use_bias", false);
}
// Mamba2Config / Mamba2Mixer: d_inner = expand * hidden_size, split into num_heads heads of head_dim
// (the two must agree), n_groups groups of B and C, state_size 128, chunk_size 256, conv_kernel 4.
void mamba2(Importer& im, ModelSpec& m) {
    pure_ssm(m);
    SsmSpec& x = m.ssm;
    x.kind = SsmKind::Mamba2;
    x.inner = im.opt("expand", 2) * m.hidden;
    const char* heads_keys[] = {"num_heads"};
    x.heads = im.opt("ssm.heads", heads_keys, 128);
    const char* groups_keys[] = {"n_groups"};
    x.groups = im.opt("ssm.groups", groups_keys, 8);
    x.state = im.opt("ssm.state", kStateSize, 128);
    const char* chunk_keys[] = {"chunk_size"};
    x.chunk = im.opt("ssm.chunk", chunk_keys, 256);
    x.conv_kernel = im.opt("ssm.conv_kernel", kConvKernel, 4);
    x.conv_bias = im.r.boolean("use_conv_bias", true);
    x.proj_bias = x.out_proj_bias = im.r.boolean("use_bias", false);
    const int64_t head_dim = im.opt("head_dim", 64);
    if (x.heads > 0 && head_dim * x.heads != x.inner)
        im.r.fail("head_dim", "num_heads * head_dim must equal expand * hidden_size (" + std::to_string(x.inner) + ", Mamba2Mixer's width); got " +
                                  std::to_string(x.heads) + " * " + std::to_string(head_dim));
}
// The Mamba1 mixer keys JambaConfig and ZambaConfig share, with their common defaults: d_inner = mamba_expand (2) *
// hidden_size, mamba_d_state 16, mamba_d_conv 4, mamba_dt_rank ("auto": ceil(hidden_size / 16)), mamba_conv_bias (conv1d's bias)
// and mamba_proj_bias (in_proj's and out_proj's) [transformers-code].
void mamba1_prefixed_keys(Importer& im, ModelSpec& m) {
    SsmSpec& x = m.ssm;
    x.inner = im.opt("mamba_expand", 2) * m.hidden;
    const char* state_keys[] = {"mamba_d_state"};
    x.state = im.opt("ssm.state", state_keys, 16);
    const char* conv_keys[] = {"mamba_d_conv"};
    x.conv_kernel = im.opt("ssm.conv_kernel", conv_keys, 4);
    const char* dt_keys[] = {"mamba_dt_rank"};
    x.dt_rank = dt_rank(im, m, dt_keys);
    x.conv_bias = im.r.boolean("mamba_conv_bias", true);
    x.proj_bias = x.out_proj_bias = im.r.boolean("mamba_proj_bias", false);
}
// JambaConfig / JambaModel: attention on layers i % attn_layer_period == attn_layer_offset, Mamba
// (JambaMambaMixer, with dt/B/C RMSNorms) elsewhere; routed experts (JambaSparseMoeBlock: num_experts
// MLPs of intermediate_size, a bias-free router) on layers i % expert_layer_period ==
// expert_layer_offset, a dense MLP elsewhere; input_layernorm and pre_ff_layernorm; no positions.
void jamba(Importer& im, ModelSpec& m) {
    m.position = PositionKind::None;
    SsmSpec& x = m.ssm;
    x.kind = SsmKind::Mamba1;
    const char* period_keys[] = {"attn_layer_period"};
    const char* offset_keys[] = {"attn_layer_offset"};
    x.attn_period = im.opt("ssm.attn_period", period_keys, 8);
    x.attn_offset = im.opt("ssm.attn_offset", offset_keys, 4);
    mamba1_prefixed_keys(im, m);
    x.bcdt_norms = true;
    // A config that lists its layers (layers_block_type) must say what the period and offset say:
    // vramlens places attention by the rule, not by the list.
    if (const json* types = im.r.find("layers_block_type"); types && types->is_array()) {
        for (size_t i = 0; i < types->size(); ++i) {
            const json& t = (*types)[i];
            const bool attention = x.attn_period > 0 && static_cast<int64_t>(i) % x.attn_period == x.attn_offset;
            if (!t.is_string() || t.get<std::string>() != (attention ? "attention" : "mamba")) {
                im.r.fail("layers_block_type", "[" + std::to_string(i) + "] must be \"" + (attention ? "attention" : "mamba") +
                                                   "\" as attn_layer_period and attn_layer_offset place it; got " + short_dump(t));
                break;
            }
        }
    }
    // Experts: one MLP of intermediate_size each; num_experts 1 is a dense MLP on every layer.
    MoESpec& e = m.moe;
    e.num_experts = im.small("num_experts", 16);
    e.top_k = im.small("num_experts_per_tok", 2);
    if (e.num_experts <= 1) {
        e = MoESpec{};
        return;
    }
    e.expert_ffn = m.ffn;
    const int period = im.small("expert_layer_period", 2), offset = im.small("expert_layer_offset", 1);
    if (period < 1 || offset != period - 1)
        im.r.fail("expert_layer_offset", "vramlens counts experts on layers i % expert_layer_period == expert_layer_period - 1 (" +
                                             std::to_string(period - 1) + "); got expert_layer_period " + std::to_string(period) +
                                             ", expert_layer_offset " + std::to_string(offset));
    e.moe_layer_freq = period;
}
// Qwen3NextConfig / Qwen3_5TextConfig: Gated DeltaNet (linear_attention) layers and gated full attention
// on every full_attention_interval-th layer, (i + 1) % interval == 0 (layer_types, when given, must say
// the same); linear_* sizes of the mixer; an fp32 recurrent state when mamba_ssm_dtype is "float32";
// mtp_num_hidden_layers multi-token-prediction layers kept apart [transformers-code] [qwen3-next].
void gated_deltanet(Importer& im, ModelSpec& m) {
    SsmSpec& x = m.ssm;
    x.kind = SsmKind::GatedDeltaNet;
    const char* interval_keys[] = {"full_attention_interval"};
    x.attn_period = im.opt("ssm.attn_period", interval_keys, 4);
    x.attn_offset = x.attn_period > 0 ? x.attn_period - 1 : 0;
    const char* v_heads[] = {"linear_num_value_heads"};
    const char* k_heads[] = {"linear_num_key_heads"};
    const char* k_dim[] = {"linear_key_head_dim"};
    const char* conv[] = {"linear_conv_kernel_dim"};
    x.heads = im.opt("ssm.heads", v_heads, 32);
    x.groups = im.opt("ssm.groups", k_heads, 16);
    x.state = im.opt("ssm.state", k_dim, 128);
    x.inner = x.heads * im.opt("linear_value_head_dim", 128);
    im.derived["ssm.inner"] = {"ssm.heads", "linear_value_head_dim"};
    x.conv_kernel = im.opt("ssm.conv_kernel", conv, 4);
    x.conv_bias = false;
    if (auto dtype = im.r.string("mamba_ssm_dtype")) x.fp32_state = *dtype == "float32";
    if (const json* types = im.r.find("layer_types"); types && types->is_array()) {
        if (static_cast<int64_t>(types->size()) != m.layers)
            im.r.fail("layer_types", "must list num_hidden_layers (" + std::to_string(m.layers) + ") layers; got " + std::to_string(types->size()));
        for (size_t i = 0; i < types->size() && static_cast<int64_t>(i) < m.layers; ++i) {
            const json& t = (*types)[i];
            const bool attention = x.attn_period > 0 && static_cast<int64_t>(i) % x.attn_period == x.attn_offset;
            if (!t.is_string() || t.get<std::string>() != (attention ? "full_attention" : "linear_attention")) {
                im.r.fail("layer_types", "[" + std::to_string(i) + "] must be \"" + (attention ? "full_attention" : "linear_attention") +
                                             "\" as full_attention_interval " + std::to_string(x.attn_period) +
                                             " places it (vramlens places attention by the interval); got " + short_dump(t));
                break;
            }
        }
    }
    m.mtp_layers = im.opt("mtp_num_hidden_layers", 0);
    if (m.mtp_layers > 0)
        im.warns.push_back(im.r.prefix() + "mtp_num_hidden_layers: the checkpoint also holds " + std::to_string(m.mtp_layers) +
                           " multi-token-prediction layer(s), counted apart (engines load them only for speculative decoding)");
}
void qwen3_next(Importer& im, ModelSpec& m) {
    gated_deltanet(im, m);
    mlp_only_layers(im);
    m.moe.shared_expert_gate = m.moe.num_experts > 0;
}
// NemotronHConfig / NemotronHModel: one block per layer, named by hybrid_override_pattern (or the
// layers_block_type list): 'M' a Mamba2 mixer (NemotronHMamba2Mixer: Mamba2Mixer's tensors, d_inner =
// mamba_num_heads * mamba_head_dim), '*' attention alone (no positions, bias-free q/k/v/o), '-' the
// non-gated squared-ReLU MLP alone (up_proj, down_proj), 'E' an MoE alone (NemotronHMoE: non-gated routed
// experts of moe_intermediate_size, the router with its e_score_correction_bias, one shared NemotronHMLP of
// moe_shared_expert_intermediate_size); each block one RMSNorm [transformers-code] [nemotron-h].
void nemotron_h(Importer& im, ModelSpec& m) {
    SsmSpec& x = m.ssm;
    x.kind = SsmKind::Mamba2;
    const char* heads_keys[] = {"mamba_num_heads"};
    x.heads = im.opt("ssm.heads", heads_keys, 128);
    x.inner = x.heads * im.opt("mamba_head_dim", 64);
    im.derived["ssm.inner"] = {"ssm.heads", "mamba_head_dim"};
    const char* groups_keys[] = {"n_groups", "mamba_n_groups"};  // NemotronHConfig reads both spellings
    x.groups = im.opt("ssm.groups", groups_keys, 8);
    const char* state_keys[] = {"ssm_state_size"};
    x.state = im.opt("ssm.state", state_keys, 128);
    const char* nemotron_chunk_keys[] = {"chunk_size", "mamba_chunk_size"};  // NemotronHConfig: chunk_size 128, either spelling
    x.chunk = im.opt("ssm.chunk", nemotron_chunk_keys, 128);
    const char* conv_keys[] = {"conv_kernel", "mamba_d_conv"};
    x.conv_kernel = im.opt("ssm.conv_kernel", conv_keys, 4);
    x.conv_bias = im.r.boolean(im.r.has("mamba_conv_bias") ? "mamba_conv_bias" : "use_conv_bias", true);
    x.proj_bias = x.out_proj_bias = im.r.boolean("use_bias", false);  // NemotronHMamba2Mixer's in_proj and out_proj
    if (!im.r.has("head_dim"))
        if (auto hd = im.r.integer("attention_head_dim")) {  // the Nemotron-H-8B/47B/56B configs' spelling
            m.head_dim = *hd;
            im.r.alias("head_dim", "attention_head_dim");
        }
    // The blocks: the pattern string, or the list of block names (newer configs).
    std::string list;
    const char* key = "hybrid_override_pattern";
    if (auto p = im.r.string(key)) {
        for (size_t i = 0; i < p->size(); ++i) {
            const char c = (*p)[i];
            if (c == 'M') list += kLayerMamba;
            else if (c == '*') list += kLayerAttention;
            else if (c == '-' || c == 'E') list += c == 'E' ? 'E' : kLayerMlp;
            else {
                im.r.fail(key, "[" + std::to_string(i) + "] is '" + std::string(1, c) + "'; Nemotron-H's blocks are 'M' (Mamba2), '*' (attention), '-' (MLP), 'E' (MoE)");
                return;
            }
        }
    } else if (const json* types = im.r.find(key = im.r.has("layer_types") ? "layer_types" : "layers_block_type"); types && types->is_array()) {
        for (size_t i = 0; i < types->size(); ++i) {
            const std::string t = (*types)[i].is_string() ? (*types)[i].get<std::string>() : "";
            if (t == "mamba" || t == "linear_attention") list += kLayerMamba;
            else if (t == "attention" || t == "full_attention") list += kLayerAttention;
            else if (t == "mlp") list += kLayerMlp;
            else if (t == "moe") list += 'E';
            else {
                im.r.fail(key, "[" + std::to_string(i) + "] must be \"mamba\" (\"linear_attention\"), \"attention\" (\"full_attention\"), \"mlp\" or \"moe\"; got " + short_dump((*types)[i]));
                return;
            }
        }
    } else {
        im.r.fail(key, "is missing: Nemotron-H names each layer's block there (e.g. \"M-M*-\")");
        return;
    }
    if (static_cast<int64_t>(list.size()) != m.layers) {
        im.r.fail(key, "must name num_hidden_layers (" + std::to_string(m.layers) + ") blocks; got " + std::to_string(list.size()));
        return;
    }
    const bool moe = list.find('E') != std::string::npos;
    if (moe && list.find(kLayerMlp) != std::string::npos) {
        im.r.fail(key, "mixes dense MLP ('-') and MoE ('E') blocks, which vramlens does not model in one model yet");
        return;
    }
    for (char& c : list)
        if (c == 'E') c = kLayerMlp;  // an MLP block; the model's experts make it MoE
    x.layer_list = list;
    if (!moe) return;
    if (const json* latent = im.r.find("moe_latent_size"); latent && !latent->is_null()) {
        im.r.fail("moe_latent_size", "is set: the latent MoE projections (Nemotron 3 Super) are not modelled yet");
        return;
    }
    MoESpec& e = m.moe;
    e.num_experts = im.small("n_routed_experts", 8);
    e.top_k = im.small("num_experts_per_tok", 2);
    e.expert_ffn = im.opt("moe_intermediate_size", 7688);
    e.shared_experts = im.small("n_shared_experts", 1);
    e.shared_expert_ffn = im.opt("moe_shared_expert_intermediate_size", 7688);
    e.router_bias = true;  // NemotronHTopkRouter's e_score_correction_bias buffer, saved with the weights
    m.ffn = 0;             // no dense MLP block: intermediate_size is unused
    if (auto mtp = im.r.integer("num_nextn_predict_layers"); mtp && *mtp > 0)
        im.warns.push_back(im.r.prefix() + "num_nextn_predict_layers: the checkpoint's multi-token-prediction layers are not counted");
}
// The Mamba2 mixer keys GraniteMoeHybridConfig and FalconH1Config share, with their common defaults:
// mamba_n_heads 128, mamba_n_groups 1, mamba_d_state 256, mamba_chunk_size 256, mamba_d_conv 4, mamba_conv_bias, and mamba_proj_bias
// (in_proj's and out_proj's bias). x.inner is read before; a mamba_d_head other than "auto" (inner / heads)
// must agree with it, `width` naming where the width comes from [transformers-code].
void mamba2_prefixed_keys(Importer& im, SsmSpec& x, const std::string& width) {
    x.kind = SsmKind::Mamba2;
    const char* heads_keys[] = {"mamba_n_heads"};
    x.heads = im.opt("ssm.heads", heads_keys, 128);
    const char* groups_keys[] = {"mamba_n_groups"};
    x.groups = im.opt("ssm.groups", groups_keys, 1);
    const char* state_keys[] = {"mamba_d_state"};
    x.state = im.opt("ssm.state", state_keys, 256);
    const char* chunk_keys[] = {"mamba_chunk_size"};
    x.chunk = im.opt("ssm.chunk", chunk_keys, 256);
    const char* conv_keys[] = {"mamba_d_conv"};
    x.conv_kernel = im.opt("ssm.conv_kernel", conv_keys, 4);
    x.conv_bias = im.r.boolean("mamba_conv_bias", true);
    x.proj_bias = x.out_proj_bias = im.r.boolean("mamba_proj_bias", false);
    if (const json* d_head = im.r.find("mamba_d_head"); d_head && !(d_head->is_string() && d_head->get<std::string>() == "auto")) {
        const int64_t hd = im.opt("mamba_d_head", 0);
        if (x.heads > 0 && hd * x.heads != x.inner)
            im.r.fail("mamba_d_head", "mamba_n_heads * mamba_d_head must equal " + width + " (" + std::to_string(x.inner) + "); got " +
                                          std::to_string(x.heads) + " * " + std::to_string(hd));
    }
}
// GraniteMoeHybridConfig / GraniteMoeHybridModel: every layer a mixer, Mamba2 (GraniteMoeHybridMambaLayer:
// Mamba2Mixer's tensors, d_inner = mamba_expand * hidden_size in mamba_n_heads heads) or attention as
// layer_types names it (all Mamba when it is absent), then the MLP: the shared GraniteMoeHybridMLP
// (input_linear [2 * shared_intermediate_size, d], output_linear back: a gated MLP) and, with
// num_local_experts > 0, the routed experts beside it (GraniteMoeHybridMoE: gated experts of
// intermediate_size, a bias-free router); input_layernorm and post_attention_layernorm; no positions
// unless position_embedding_type is "rope". The mup multipliers change no count [transformers-code].
void granite_hybrid(Importer& im, ModelSpec& m) {
    SsmSpec& x = m.ssm;
    x.inner = im.opt("mamba_expand", 2) * m.hidden;
    im.derived["ssm.inner"] = {"mamba_expand", "hidden_size"};
    mamba2_prefixed_keys(im, x, "mamba_expand * hidden_size");
    if (auto pos = im.r.string("position_embedding_type"); pos && *pos == "rope") m.position = PositionKind::Rotary;
    std::string list(static_cast<size_t>(std::max<int64_t>(m.layers, 0)), kLayerMambaMlp);  // layers_block_type's default
    const char* key = im.r.has("layer_types") ? "layer_types" : "layers_block_type";
    if (const json* types = im.r.find(key); types && types->is_array()) {
        if (static_cast<int64_t>(types->size()) != m.layers) {
            im.r.fail(key, "must list num_hidden_layers (" + std::to_string(m.layers) + ") layers; got " + std::to_string(types->size()));
            return;
        }
        for (size_t i = 0; i < types->size(); ++i) {
            const std::string t = (*types)[i].is_string() ? (*types)[i].get<std::string>() : "";
            if (t == "attention") list[i] = kLayerAttentionMlp;
            else if (t != "mamba") {
                im.r.fail(key, "[" + std::to_string(i) + "] must be \"mamba\" or \"attention\"; got " + short_dump((*types)[i]));
                return;
            }
        }
    }
    x.layer_list = list;
    const int64_t shared = im.opt("shared_intermediate_size", 1024);
    MoESpec& e = m.moe;
    e.num_experts = im.small("num_local_experts", 8);
    if (e.num_experts <= 0) {  // the shared MLP alone: a dense gated MLP
        e = MoESpec{};
        m.ffn = shared;
        im.r.alias("intermediate_size", "shared_intermediate_size");
        return;
    }
    e.top_k = im.small("num_experts_per_tok", 2);
    e.expert_ffn = m.ffn;
    e.shared_expert_ffn = shared;
    m.ffn = 0;
}
// FalconH1Config / FalconH1DecoderLayer: every layer runs attention (FalconH1Attention, LlamaAttention's
// q/k/v/o with rotary positions) and the Mamba2 mixer (FalconH1Mixer: Mamba2Mixer's tensors) side by side
// on input_layernorm's output and adds the two, then the gated FalconH1MLP after pre_ff_layernorm. The
// mixer is mamba_d_ssm wide (mamba_expand * hidden_size when null) in mamba_n_heads heads of mamba_d_head;
// in_proj's bias is mamba_proj_bias, out_proj's projectors_bias; the gated RMSNorm exists only with
// mamba_rms_norm. The mup multipliers (ssm_multipliers, key_multiplier, ...) and the mup_vector buffer
// change no count [transformers-code] [falcon-h1].
void falcon_h1(Importer& im, ModelSpec& m) {
    SsmSpec& x = m.ssm;
    x.parallel_attention = true;
    const char* inner_keys[] = {"mamba_d_ssm"};
    std::string width = "mamba_d_ssm";
    if (auto inner = im.r.integer("ssm.inner", inner_keys)) {
        x.inner = *inner;
    } else {
        x.inner = im.opt("mamba_expand", 2) * m.hidden;
        im.derived["ssm.inner"] = {"mamba_expand", "hidden_size"};
        width = "mamba_expand * hidden_size";
    }
    mamba2_prefixed_keys(im, x, width);
    x.out_proj_bias = im.r.boolean("projectors_bias", false);
    x.gated_norm = im.r.boolean("mamba_rms_norm", false);
}
// The shared attention's head width of Zamba and Zamba2: attention_head_dim, else 2 * hidden_size / num_attention_heads (its
// input is concat(hidden, embeddings), 2 * hidden_size wide) [transformers-zamba2].
void zamba_head_dim(Importer& im, ModelSpec& m) {
    if (auto hd = im.r.integer("attention_head_dim")) {
        m.head_dim = *hd;
        im.r.alias("head_dim", "attention_head_dim");
    } else if (m.heads > 0) {
        if ((2 * m.hidden) % m.heads != 0)
            im.r.fail("num_attention_heads", "must divide 2 * hidden_size (" + std::to_string(2 * m.hidden) +
                                                 ", the shared attention's width); got " + std::to_string(m.heads));
        m.head_dim = 2 * m.hidden / m.heads;
        im.derived["head_dim"] = {"hidden_size", "num_attention_heads"};
    }
}
// Zamba2Config / Zamba2Model: every layer a Zamba2MambaDecoderLayer (the Mamba2 mixer, mamba_expand * hidden_size wide in
// n_mamba_heads heads of mamba_headdim, mamba_ngroups groups, mamba_d_state; conv1d always with its bias; in_proj and out_proj
// with add_bias_linear; input_layernorm); the "hybrid" layers of layers_block_type also run one of num_mem_blocks shared
// transformer blocks in turn and their own linear (SsmSpec::shared_blocks, layer_list 'h'). The shared attention's head_dim
// is attention_head_dim = 2 * hidden_size / num_attention_heads (its input is concat(hidden, embeddings)); rotary positions
// only with use_mem_rope; adapters of adapter_rank on every invocation's gate_up and, with use_shared_attention_adapter, on
// its q, k, v [transformers-zamba2] [zamba2-report]. The key names are Zamba2Config's; Zyphra's earlier saves spelled some of
// them otherwise (state_size, conv_dimension, expansion_factor, lora_rank, use_shared_attention_lora), read as aliases.
void zamba2(Importer& im, ModelSpec& m) {
    SsmSpec& x = m.ssm;
    x.kind = SsmKind::Mamba2;
    const char* expand_keys[] = {"mamba_expand", "expansion_factor"};
    x.inner = im.opt("mamba_expand", expand_keys, 2) * m.hidden;
    im.derived["ssm.inner"] = {"mamba_expand", "hidden_size"};
    const char* state_keys[] = {"mamba_d_state", "state_size"};
    x.state = im.opt("ssm.state", state_keys, 64);
    const char* conv_keys[] = {"mamba_d_conv", "conv_dimension"};
    x.conv_kernel = im.opt("ssm.conv_kernel", conv_keys, 4);
    const char* groups_keys[] = {"mamba_ngroups"};
    x.groups = im.opt("ssm.groups", groups_keys, 1);
    const char* chunk_keys[] = {"chunk_size"};
    x.chunk = im.opt("ssm.chunk", chunk_keys, 256);
    x.conv_bias = true;  // Zamba2MambaMixer's conv1d: bias=True whatever use_conv_bias says
    const bool bias = im.r.boolean("add_bias_linear", false);
    x.proj_bias = x.out_proj_bias = bias;
    if (bias)
        im.r.fail("add_bias_linear", "true gives the shared MLP biases vramlens does not count; the Zamba2 checkpoints have false");
    // heads: n_mamba_heads, or d_inner / mamba_headdim (Zamba2Config: mamba_headdim = d_inner // n_mamba_heads)
    const char* heads_keys[] = {"n_mamba_heads"};
    const std::optional<int64_t> head_dim = im.r.integer("mamba_headdim");
    if (auto h = im.r.integer("ssm.heads", heads_keys)) {
        x.heads = *h;
        if (head_dim && *head_dim * x.heads != x.inner)
            im.r.fail("mamba_headdim", "n_mamba_heads * mamba_headdim must equal mamba_expand * hidden_size (" + std::to_string(x.inner) +
                                           "); got " + std::to_string(x.heads) + " * " + std::to_string(*head_dim));
    } else if (head_dim && *head_dim > 0 && x.inner % *head_dim == 0) {
        x.heads = x.inner / *head_dim;
        im.derived["ssm.heads"] = {"mamba_expand", "hidden_size", "mamba_headdim"};
    } else {
        x.heads = 8;
        im.warn_default("n_mamba_heads", 8);
    }
    zamba_head_dim(im, m);
    m.position = im.r.boolean("use_mem_rope", false) ? PositionKind::Rotary : PositionKind::None;
    const char* blocks_keys[] = {"num_mem_blocks"};
    x.shared_blocks = im.opt("ssm.shared_blocks", blocks_keys, 1);
    const char* rank_keys[] = {"adapter_rank", "lora_rank"};
    x.adapter_rank = im.opt("ssm.adapter_rank", rank_keys, 128);
    x.attn_adapters = im.r.boolean(im.r.has("use_shared_attention_lora") ? "use_shared_attention_lora" : "use_shared_attention_adapter", false);
    const char* key = "layers_block_type";
    const json* types = im.r.find(key);
    if (!types || !types->is_array()) {
        im.r.fail(key, types ? "must be an array of \"mamba\" and \"hybrid\"; got " + short_dump(*types)
                             : std::string("is missing: Zamba2 names each layer \"mamba\" or \"hybrid\" there"));
        return;
    }
    if (static_cast<int64_t>(types->size()) != m.layers) {
        im.r.fail(key, "must list num_hidden_layers (" + std::to_string(m.layers) + ") layers; got " + std::to_string(types->size()));
        return;
    }
    std::string list;
    for (size_t i = 0; i < types->size(); ++i) {
        const std::string t = (*types)[i].is_string() ? (*types)[i].get<std::string>() : "";
        if (t == "mamba") list += kLayerMamba;
        else if (t == "hybrid") list += kLayerMambaShared;
        else {
            im.r.fail(key, "[" + std::to_string(i) + "] must be \"mamba\" or \"hybrid\"; got " + short_dump((*types)[i]));
            return;
        }
    }
    x.layer_list = list;
}
// ZambaConfig / ZambaModel (v1, Zamba-7B-v1): Zamba2's layout over Mamba1 mixers (ZambaMambaMixer: in_proj [2 d_inner, d] and
// out_proj with mamba_proj_bias, conv1d with mamba_conv_bias, x_proj_weight, dt_proj_weight + bias, A_log and D split into
// n_mamba_heads heads: Mamba1's elements) and one shared block (ZambaAttentionDecoderLayer: attention over concat(hidden,
// embeddings) without rotary positions, ZambaMLP's gate_proj, up_proj, down_proj) run by the hybrid layers, each with its own
// linear; no adapters. The hybrid layers: layers_block_type when saved, else ZambaConfig._layers_block_type: layers 0 and 1
// Mamba, layer 2 hybrid, then layer 3 + i hybrid when i % attn_layer_period == attn_layer_offset [transformers-code]
// [zamba-report].
void zamba(Importer& im, ModelSpec& m) {
    SsmSpec& x = m.ssm;
    x.kind = SsmKind::Mamba1;
    mamba1_prefixed_keys(im, m);
    im.derived["ssm.inner"] = {"mamba_expand", "hidden_size"};
    const char* heads_keys[] = {"n_mamba_heads"};
    x.heads = im.opt("ssm.heads", heads_keys, 2);
    zamba_head_dim(im, m);
    m.position = PositionKind::None;
    x.shared_blocks = 1;
    x.adapter_rank = 0;
    std::string list;
    if (const json* types = im.r.find("layers_block_type"); types && types->is_array()) {
        for (size_t i = 0; i < types->size(); ++i) {
            const std::string t = (*types)[i].is_string() ? (*types)[i].get<std::string>() : "";
            if (t == "mamba") list += kLayerMamba;
            else if (t == "hybrid") list += kLayerMambaShared;
            else {
                im.r.fail("layers_block_type", "[" + std::to_string(i) + "] must be \"mamba\" or \"hybrid\"; got " + short_dump((*types)[i]));
                return;
            }
        }
    } else {
        const int64_t period = im.opt("attn_layer_period", 6), offset = im.opt("attn_layer_offset", 4);
        if (period < 1) {
            im.r.fail("attn_layer_period", "must be at least 1; got " + std::to_string(period));
            return;
        }
        for (int64_t i = 0; i < m.layers; ++i)
            list += i < 2 ? kLayerMamba : i == 2 || (i - 3) % period == offset ? kLayerMambaShared : kLayerMamba;
    }
    if (static_cast<int64_t>(list.size()) != m.layers) {
        im.r.fail("layers_block_type", "must list num_hidden_layers (" + std::to_string(m.layers) + ") layers; got " + std::to_string(list.size()));
        return;
    }
    x.layer_list = list;
}
// GptOssConfig / modeling_gpt_oss: GptOssAttention (q, k, v, o with biases: attention_bias) and its sinks, one
// learned logit per head; GptOssMLP: the router (GptOssTopKRouter, weight [E, d] and bias [E]) and the experts
// (GptOssExperts: gate_up_proj [E, d, 2I] + bias [E, 2I], down_proj [E, I, d] + bias [E, d], the gated
// MLP's elements with mlp biases); input_layernorm and post_attention_layernorm; untied embeddings; YaRN
// rotary positions (no weights). layer_types alternate sliding_attention (layer 0) and full_attention,
// the default GptOssConfig writes: every 2nd layer global, as Gemma 2 [transformers-code] [gpt-oss-card].
// MllamaTextConfig.cross_attention_layers: the layers built as MllamaCrossAttentionDecoderLayer (default [3, 8, ..., 38], the
// 11B's) [transformers-mllama]; read_vision keeps them in VisionSpec::cross_layers, validate_model checks their range.
void mllama_text(Importer& im, ModelSpec& m) {
    std::vector<int64_t>& cross = m.vision.cross_layers;
    cross = {3, 8, 13, 18, 23, 28, 33, 38};
    const json* list = im.r.find("cross_attention_layers");
    if (!list) return;
    const auto refuse = [&] {
        im.r.fail("cross_attention_layers", "must be an array of at most 256 layer indices, e.g. [3, 8, 13]; got " + short_dump(*list));
    };
    if (!list->is_array() || list->size() > static_cast<size_t>(kMaxListedLayers)) return refuse();
    cross.clear();
    for (const json& i : *list) {
        if (!i.is_number_integer()) return refuse();
        cross.push_back(i.get<int64_t>());
    }
}

void gpt_oss(Importer& im, ModelSpec& m) {
    mixtral_experts(im, m);
    m.moe.router_bias = true;
    m.attention_sinks = true;
    const json* types = im.r.find("layer_types");
    if (!types || !types->is_array()) return;
    if (static_cast<int64_t>(types->size()) != m.layers) {
        im.r.fail("layer_types", "must list num_hidden_layers (" + std::to_string(m.layers) + ") layers; got " + std::to_string(types->size()));
        return;
    }
    for (size_t i = 0; i < types->size(); ++i) {
        const char* want = m.sliding_window > 0 && i % 2 == 0 ? "sliding_attention" : "full_attention";
        const json& t = (*types)[i];
        if (!t.is_string() || t.get<std::string>() != want) {
            im.r.fail("layer_types", "[" + std::to_string(i) + "] must be \"" + want +
                                         "\": vramlens places gpt-oss's sliding-window layers at even indices (GptOssConfig's default); got " +
                                         short_dump(t));
            return;
        }
    }
}
void deepseek_v2(Importer& im, ModelSpec& m) { deepseek(im, m, false); }
void deepseek_v3(Importer& im, ModelSpec& m) { deepseek(im, m, true); }

// A family's modules (modeling_<type>.py), the same for every config of the family. The bias flags
// are the fixed ones; kFlagKeys rows read the others from the file.
struct Layout {
    Arch arch;
    NormKind norm;
    bool gated_mlp;
    PositionKind position;
    int64_t position_offset;  // extra learned position rows (OPT: 2)
    bool qkv_bias, attn_out_bias, mlp_bias;
    bool qk_norm, embedding_norm;
    int norms_per_layer;
    int64_t window;           // sliding_window default; "sliding_window": null turns it off
    bool window_flag;         // the window applies only with "use_sliding_window": true
    int window_pattern;       // every n-th layer is global (Gemma 2); Gemma 3 reads it (kCountKeys)
    void (*special)(Importer&, ModelSpec&);
    bool fused_qkv = false;   // q, k and v in one Linear (c_attn, query_key_value, qkv_proj)
};
constexpr NormKind kRms = NormKind::RMSNorm, kLn = NormKind::LayerNorm;
constexpr PositionKind kRope = PositionKind::Rotary, kLearned = PositionKind::Learned, kAlibi = PositionKind::Alibi,
                       kNoPos = PositionKind::None;
// clang-format off
constexpr Layout kLayouts[] = {
    //                 norm  gated  position  off  qkv_b  out_b  mlp_b  qk_n   emb_n  norms window flag   pattern special (fused_qkv)
    {Arch::Llama,      kRms, true,  kRope,    0,   false, false, false, false, false, 2,    0,     false, 0, nullptr},
    {Arch::Mistral,    kRms, true,  kRope,    0,   false, false, false, false, false, 2,    4096,  false, 0, nullptr},
    {Arch::Mixtral,    kRms, true,  kRope,    0,   false, false, false, false, false, 2,    0,     false, 0, mixtral_experts},
    {Arch::Qwen2,      kRms, true,  kRope,    0,   true,  false, false, false, false, 2,    4096,  true,  0, nullptr},
    {Arch::Qwen2Moe,   kRms, true,  kRope,    0,   true,  false, false, false, false, 2,    4096,  true,  0, qwen2_moe},
    {Arch::Qwen3,      kRms, true,  kRope,    0,   false, false, false, true,  false, 2,    4096,  true,  0, nullptr},
    {Arch::Qwen3Moe,   kRms, true,  kRope,    0,   false, false, false, true,  false, 2,    4096,  true,  0, qwen3_moe},
    {Arch::Gemma,      kRms, true,  kRope,    0,   false, false, false, false, false, 2,    0,     false, 0, nullptr},
    {Arch::Gemma2,     kRms, true,  kRope,    0,   false, false, false, false, false, 4,    4096,  false, 2, nullptr},  // pre/post attn + ffn norms
    {Arch::Gemma3,     kRms, true,  kRope,    0,   false, false, false, true,  false, 4,    4096,  false, 0, nullptr},
    {Arch::Phi3,       kRms, true,  kRope,    0,   false, false, false, false, false, 2,    0,     false, 0, nullptr, true},
    {Arch::Gpt2,       kLn,  false, kLearned, 0,   true,  true,  true,  false, false, 2,    0,     false, 0, nullptr, true},  // + wpe
    {Arch::GptNeox,    kLn,  false, kRope,    0,   false, false, true,  false, false, 2,    0,     false, 0, nullptr, true},
    {Arch::Falcon,     kLn,  false, kRope,    0,   false, false, false, false, false, 2,    0,     false, 0, falcon, true},
    {Arch::Opt,        kLn,  false, kLearned, 2,   false, false, false, false, false, 2,    0,     false, 0, opt},
    {Arch::Bloom,      kLn,  false, kAlibi,   0,   true,  true,  true,  false, true,  2,    0,     false, 0, nullptr, true},
    {Arch::DeepseekV2, kRms, true,  kRope,    0,   false, false, false, false, false, 2,    0,     false, 0, deepseek_v2},
    {Arch::DeepseekV3, kRms, true,  kRope,    0,   false, false, false, false, false, 2,    0,     false, 0, deepseek_v3},
    {Arch::Glm4Moe,    kRms, true,  kRope,    0,   false, false, false, false, false, 2,    0,     false, 0, glm4_moe},
    {Arch::QwenV1,     kRms, true,  kRope,    0,   true,  false, false, false, false, 2,    0,     false, 0, qwen_v1, true},  // ln_1, ln_2
    {Arch::Bert,       kLn,  false, kLearned, 0,   true,  true,  true,  false, true,  2,    0,     false, 0, bert_encoder},  // post-norm: 2 LayerNorms
    {Arch::Mamba,      kRms, true,  kNoPos,    0,   false, false, false, false, false, 1,    0,     false, 0, mamba},   // MambaBlock.norm
    {Arch::Mamba2,     kRms, true,  kNoPos,    0,   false, false, false, false, false, 1,    0,     false, 0, mamba2},
    {Arch::Jamba,      kRms, true,  kNoPos,    0,   false, false, false, false, false, 2,    0,     false, 0, jamba},   // input + pre_ff layernorms
    {Arch::Qwen3Next,  kRms, true,  kRope,    0,   false, false, false, true,  false, 2,    0,     false, 0, qwen3_next},
    {Arch::Qwen35,     kRms, true,  kRope,    0,   false, false, false, true,  false, 2,    0,     false, 0, gated_deltanet},
    {Arch::NemotronH,  kRms, false, kNoPos,    0,   false, false, false, false, false, 1,    0,     false, 0, nemotron_h},  // NemotronHBlock.norm
    {Arch::GraniteHybrid,kRms, true, kNoPos,    0,   false, false, false, false, false, 2,    0,     false, 0, granite_hybrid},
    {Arch::FalconH1,   kRms, true,  kRope,    0,   false, false, false, false, false, 2,    0,     false, 0, falcon_h1},  // input + pre_ff layernorms
    {Arch::Zamba2,     kRms, true,  kRope,    0,   false, false, false, false, false, 1,    0,     false, 0, zamba2},  // the Mamba layer's input_layernorm
    {Arch::Zamba,      kRms, true,  kNoPos,   0,   false, false, false, false, false, 1,    0,     false, 0, zamba},   // the Mamba layer's input_layernorm
    {Arch::GptOss,     kRms, true,  kRope,    0,   true,  true,  true,  false, false, 2,    128,   false, 2, gpt_oss},  // expert biases
    {Arch::Mllama,     kRms, true,  kRope,    0,   false, false, false, false, false, 2,    0,     false, 0, mllama_text},
    {Arch::T5,         kRms, false, kNoPos,   0,   false, false, false, false, false, 2,    0,     false, 0, t5},    // + the decoder's cross-attention norm
    {Arch::Bart,       kLn,  false, kLearned, 2,   true,  true,  true,  false, true,  2,    0,     false, 0, bart},  // layernorm_embedding per stack
};
// clang-format on

constexpr const Layout* find_layout(Arch a) {
    for (const Layout& l : kLayouts)
        if (l.arch == a) return &l;
    return nullptr;
}
constexpr bool every_family_has_a_layout() {
    for (const Family& f : kFamilies)
        if (!find_layout(f.arch)) return false;
    return true;
}
static_assert(every_family_has_a_layout(), "add a kLayouts row for the new family's arch");

// ---- the import, step by step ------------------------------------------------------------------------

bool pure_ssm_family(const Family& f) { return f.arch == Arch::Mamba || f.arch == Arch::Mamba2; }

void read_sizes(Importer& im, ModelSpec& m) {
    for (const SizeKey& k : kSizeKeys) {
        // A pure state-space model has no attention heads, and its intermediate_size is the mixer's (mamba()).
        if (pure_ssm_family(im.fam) && (k.member == &ModelSpec::heads || k.member == &ModelSpec::ffn)) continue;
        const Keys keys(k.keys.data(), static_cast<size_t>(std::find(k.keys.begin(), k.keys.end(), nullptr) - k.keys.begin()));
        const int64_t def = im.fam.*k.family_default;
        if (auto v = im.r.integer(k.field, keys)) {
            m.*k.member = *v;
        } else if (!k.warn_if_missing) {
            m.*k.member = def;
        } else if (im.r.failed(k.field)) {
            // reported; the size stays 0
        } else if (def > 0) {
            m.*k.member = def;
            im.warn_default(k.field, def);
        } else {  // intermediate_size of GPT-2, Falcon, BLOOM
            m.*k.member = 4 * m.hidden;
            im.derived[k.field] = {"hidden_size"};
        }
    }
}

// Key/value heads: num_key_value_heads (GQA) and aliases. Falcon: multi_query (one shared head, the
// default) unless new_decoder_architecture, which reads num_kv_heads. Otherwise the family default,
// else as many as query heads.
void read_kv_heads(Importer& im, ModelSpec& m) {
    Reader& r = im.r;
    const bool falcon = im.fam.arch == Arch::Falcon;
    const bool multi_query = falcon && r.boolean("multi_query", true);
    im.new_decoder = r.boolean("new_decoder_architecture", std::string(im.fam.model_type) == "RefinedWeb");
    if (auto kv = r.integer("num_key_value_heads", kKvHeadKeys); kv && (!falcon || im.new_decoder)) {
        m.kv_heads = *kv;
    } else if (multi_query && !im.new_decoder) {
        m.kv_heads = 1;
        r.alias("num_key_value_heads", "multi_query");
    } else {
        m.kv_heads = im.fam.kv > 0 ? im.fam.kv : m.heads;
        im.derived["num_key_value_heads"] = {"num_attention_heads"};
    }
}

// Head width: explicit head_dim, the family default (Gemma 256, Qwen3 128), or hidden / heads.
void read_head_dim(Importer& im, ModelSpec& m) {
    Reader& r = im.r;
    static constexpr const char* kHeadDimKeys[] = {"head_dim", "d_kv"};  // T5's d_kv: the width of one head
    if (auto hd = r.integer("head_dim", kHeadDimKeys)) {
        m.head_dim = *hd;
    } else if (im.fam.head_dim > 0) {
        m.head_dim = im.fam.head_dim;
    } else if (!r.failed("head_dim")) {
        im.derived["head_dim"] = {"hidden_size", "num_attention_heads"};
        if (m.heads > 0 && m.hidden > 0) {
            if (m.hidden % m.heads != 0)
                r.fail("num_attention_heads", "must divide hidden_size (" + std::to_string(m.hidden) +
                                                  ") when head_dim is not given; got " + std::to_string(m.heads));
            m.head_dim = m.hidden / m.heads;
        }
    }
}

void apply_layout(const Layout& l, ModelSpec& m) {
    m.norm = l.norm;
    m.gated_mlp = l.gated_mlp;
    m.position = l.position;
    m.position_offset = l.position_offset;
    m.qkv_bias = l.qkv_bias;
    m.attn_out_bias = l.attn_out_bias;
    m.mlp_bias = l.mlp_bias;
    m.qk_norm = l.qk_norm;
    m.embedding_norm = l.embedding_norm;
    m.norms_per_layer = l.norms_per_layer;
    m.sliding_window_pattern = l.window_pattern;
    m.fused_qkv = l.fused_qkv;
}

void read_flags(Importer& im, ModelSpec& m) {
    for (const FlagKey& k : kFlagKeys) {
        if (k.arch != im.fam.arch) continue;
        const bool v = im.r.boolean(k.key, k.def);
        for (bool ModelSpec::*flag : k.flags)
            if (flag) m.*flag = v;
    }
}

// The MLP activation: activation_function (GPT-2 style), hidden_act or hidden_activation (Gemma 2),
// else the configuration class's default (GPT2Config: gelu_new). Only gelu_new changes what autograd
// saves; every other name is one fused op [transformers-code].
void read_activation(Importer& im, ModelSpec& m) {
    std::optional<std::string> act;
    for (const char* key : {"activation_function", "hidden_act", "hidden_activation"})
        if (im.r.has(key) && (act = im.r.string(key))) break;
    const bool gelu_new = act ? *act == "gelu_new" : im.fam.arch == Arch::Gpt2;
    m.activation = gelu_new ? MlpActivation::GeluNew : MlpActivation::Fused;
}

void read_window(Importer& im, const Layout& l, ModelSpec& m) {
    m.sliding_window = im.r.is_null("sliding_window") ? 0 : im.opt("sliding_window", l.window);
    if (l.window_flag && !im.r.boolean("use_sliding_window", false)) m.sliding_window = 0;
}

// The rotary embedding beyond head_dim (RopeSpec): rope_scaling (transformers v5 configs: rope_parameters; a Gemma 3
// saved by v5 keeps one per attention kind, its full_attention entry is the scaled one), partial_rotary_factor (GPT-NeoX
// rotary_pct), and Gemma 3's window layers, which rotate with rope_local_base_freq (Gemma3TextConfig default 10000)
// where the global ones use rope_theta (default 1000000): two configurations, two vLLM tables [transformers-code]
// [vllm-code]. A rope_type whose table vramlens does not size is counted as unscaled, with a warning.
void read_rope(Importer& im, ModelSpec& m) {
    Reader& r = im.r;
    auto number = [&](const json& obj, const char* key, const std::string& name) -> std::optional<double> {
        auto it = obj.find(key);
        if (it == obj.end() || it->is_null()) return std::nullopt;
        if (it->is_number()) return it->get<double>();
        r.fail(name, "must be a number; got " + short_dump(*it));
        return std::nullopt;
    };
    std::string key = r.has("rope_scaling") ? "rope_scaling" : "rope_parameters";
    const json* rs = r.find(key.c_str());
    if (rs && rs->is_object() && rs->contains("full_attention")) {
        rs = &rs->at("full_attention");
        key += ".full_attention";
    }
    if (rs && !rs->is_object()) {
        r.fail(key, "must be an object (rope_type, factor, ...) or null; got " + short_dump(*rs));
        rs = nullptr;
    }
    if (rs) {
        const json* t = rs->contains("rope_type") ? &rs->at("rope_type") : rs->contains("type") ? &rs->at("type") : nullptr;
        const std::string type = t && t->is_string() ? t->get<std::string>() : "default";
        if (type == "linear") m.rope.scaling = RopeScaling::Linear;
        else if (type == "dynamic") m.rope.scaling = RopeScaling::Dynamic;
        else if (type == "yarn" || type == "deepseek_yarn") m.rope.scaling = RopeScaling::Yarn;
        else if (type == "longrope" || type == "su") m.rope.scaling = RopeScaling::LongRope;
        else if (type != "default" && type != "llama3" && type != "mrope")
            im.warns.push_back(r.prefix() + key + ".rope_type \"" + type.substr(0, 40) +
                               "\" is not one whose cos/sin table vramlens sizes (linear, dynamic, yarn, longrope): vLLM's rotary "
                               "table is counted unscaled, max_position_embeddings rows");
        if (m.rope.scaling != RopeScaling::None) {
            if (auto f = number(*rs, "factor", "rope_scaling.factor")) m.rope.factor = *f;
            // Phi-3's longrope configs keep it beside rope_scaling, where transformers reads it too.
            if (auto o = number(*rs, "original_max_position_embeddings", "rope_scaling.original_max_position_embeddings"))
                m.rope.original_max_position = static_cast<int64_t>(std::clamp(*o, -1.0, 9e15));
            else if (auto top = r.integer("original_max_position_embeddings"))
                m.rope.original_max_position = *top;
        }
        if (auto p = number(*rs, "partial_rotary_factor", "partial_rotary_factor")) m.rope.partial = *p;
    }
    if (const json* p = r.find("partial_rotary_factor", std::array<const char*, 2>{"partial_rotary_factor", "rotary_pct"})) {
        if (p->is_number()) m.rope.partial = p->get<double>();
        else r.fail("partial_rotary_factor", "must be a number; got " + short_dump(*p));
    }
    if (im.fam.arch == Arch::Gemma3) {
        const json* local = r.find("rope_local_base_freq");
        const json* theta = r.find("rope_theta");
        const double local_base = local && local->is_number() ? local->get<double>() : 10000.0;
        const double global_base = theta && theta->is_number() ? theta->get<double>() : 1000000.0;
        m.rope.local_table = local_base != global_base;
    }
}

void read_counts(Importer& im, ModelSpec& m) {
    for (const CountKey& k : kCountKeys)
        if (k.arch == im.fam.arch && !(k.with_experts && m.moe.num_experts == 0)) read_count(im, m, k);
}

// Size rules (validate_model), with fields named as written. Rules on fields that already failed to
// parse, or computed from such fields, are not repeated.
void check_rules(Importer& im, const ModelSpec& m) {
    Reader& r = im.r;
    std::vector<FieldError> rule_errs;
    validate_model(m, rule_errs, "");
    auto bad = [&](const std::string& field) {
        if (r.failed(field)) return true;
        for (const FieldError& e : rule_errs)
            if (e.field == field) return true;
        return false;
    };
    for (FieldError& e : rule_errs) {
        // The vision tower's rules name vision_config's keys (and the wrapper's mm_tokens_per_image, image_grid_pinpoints) as written.
        if (e.field.rfind("vision_config.", 0) == 0 || e.field == "mm_tokens_per_image" || e.field == "image_grid_pinpoints") {
            im.errs.push_back(std::move(e));
            continue;
        }
        if (r.failed(e.field)) continue;
        if (auto it = im.derived.find(e.field); it != im.derived.end()) {
            bool source_bad = false;
            for (const std::string& src : it->second) source_bad = source_bad || bad(src);
            if (source_bad) continue;
        }
        im.errs.push_back({r.key(e.field), std::move(e.message)});
    }
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

// The vision towers the importer reads, by the wrapper's model_type: the tower's and projector's modules
// (layer_tensors.h vision_tensors) and the vision configuration class's defaults, used for keys
// the file leaves out (CLIPVisionConfig, SiglipVisionConfig, Qwen2_5_VLVisionConfig, Qwen2VLVisionConfig __init__ defaults
// [transformers-code]).
struct VisionFamily {
    const char* model_type;  // the wrapper's model_type (config.json top level)
    VisionKind kind;
    ProjectorKind projector;
    int64_t layers, hidden, heads, ffn, patch, image_size;
};
// clang-format off
constexpr VisionFamily kVisionFamilies[] = {
    // wrapper        tower                 projector                    L   h     a   ffn   p   image
    {"llava",         VisionKind::Clip,     ProjectorKind::LlavaMlp,     12, 768,  12, 3072, 32, 224},
    // LLaVA-NeXT: LLaVA's tower and projector, image_newline and image_grid_pinpoints (read_grid_pinpoints)
    {"llava_next",    VisionKind::Clip,     ProjectorKind::LlavaMlp,     12, 768,  12, 3072, 32, 224},
    {"gemma3",        VisionKind::Siglip,   ProjectorKind::Gemma3,       12, 768,  12, 3072, 16, 224},
    {"qwen2_5_vl",    VisionKind::QwenVit,  ProjectorKind::QwenMerger,   32, 3584, 16, 3420, 14, 0},
    // Qwen2VLVisionConfig: embed_dim 1280, mlp_ratio 4 (ffn = embed_dim x mlp_ratio)
    {"qwen2_vl",      VisionKind::Qwen2Vit, ProjectorKind::QwenMerger,   32, 1280, 16, 5120, 14, 0},
    // Qwen3_5VisionConfig (Qwen3-VL's tower without deepstack mergers): LayerNorm blocks with a GELU MLP, a learned
    // position table beside the rotary one, patch 16 [transformers-code]; Qwen3.5's dense and MoE wrappers alike
    {"qwen3_5",       VisionKind::Qwen3Vit, ProjectorKind::QwenMerger,   27, 1152, 16, 4304, 16, 0},
    {"qwen3_5_moe",   VisionKind::Qwen3Vit, ProjectorKind::QwenMerger,   27, 1152, 16, 4304, 16, 0},
    // MllamaVisionConfig (its heads are attention_heads; the local encoder's layers; image_size 448, the checkpoints' 560)
    {"mllama",        VisionKind::Mllama,   ProjectorKind::MllamaLinear, 32, 1280, 16, 5120, 14, 448},
};
// clang-format on

// MllamaVisionConfig's tile and encoder fields, by its defaults (num_global_layers 8, max_num_tiles 4, the 8 supported aspect
// ratios of 4 tiles, intermediate_layers_indices [3, 7, 15, 23, 30]) [transformers-mllama]. The projector's input,
// vision_output_dim, is the concatenation's width (1 + len(intermediate_layers_indices)) x hidden_size.
void read_mllama_vision(const json& vc, Reader& r, VisionSpec& v, std::vector<FieldError>& errs) {
    v.global_layers = r.integer("num_global_layers").value_or(8);
    v.max_tiles = r.integer("max_num_tiles").value_or(4);
    auto list_size = [&](const char* key, int64_t def) {
        const auto it = vc.find(key);
        if (it == vc.end() || it->is_null()) return def;
        if (!it->is_array()) {
            errs.push_back({std::string("vision_config.") + key, "must be an array; got " + short_dump(*it)});
            return def;
        }
        return static_cast<int64_t>(it->size());
    };
    v.aspect_ratios = list_size("supported_aspect_ratios", 8);
    v.intermediate_layers = list_size("intermediate_layers_indices", 5);
    if (auto out = r.integer("vision_output_dim"); out && *out != (1 + v.intermediate_layers) * v.hidden)
        errs.push_back({"vision_config.vision_output_dim", "must equal (1 + len(intermediate_layers_indices)) x hidden_size = " +
                                                               std::to_string((1 + v.intermediate_layers) * v.hidden) +
                                                               ", the projector's input; got " + std::to_string(*out)});
}

// Qwen3.5's tower: its learned position table (num_position_embeddings rows, 2304 by Qwen3_5VisionConfig, a square
// interpolated to each image's grid) [transformers-code]; Qwen3-VL's deepstack mergers (one per
// deepstack_visual_indexes entry) are not modelled, and Qwen3.5's configs list none.
void read_qwen3_vision(const json& vc, Reader& r, VisionSpec& v, std::vector<FieldError>& errs) {
    v.position_embeddings = r.integer("num_position_embeddings").value_or(2304);
    if (v.position_embeddings < 1 || v.position_embeddings > 1 << 20)
        errs.push_back({"vision_config.num_position_embeddings", "must be in [1, 1048576] (rows of the learned position table); got " +
                                                                     std::to_string(v.position_embeddings)});
    const auto it = vc.find("deepstack_visual_indexes");
    if (it != vc.end() && !it->is_null() && !(it->is_array() && it->empty()))
        errs.push_back({"vision_config.deepstack_visual_indexes", "Qwen3-VL's deepstack mergers are not modelled (Qwen3.5's towers have none): "
                                                                  "give an empty list; got " + short_dump(*it)});
}

// LLaVA-NeXT's image_grid_pinpoints: [height, width] pairs of pixels; LlavaNextConfig's default when left out, the
// five resolutions of 1 x 2, 2 x 1, 2 x 2, 3 x 1 and 1 x 3 tiles of 336 px [transformers-code]. model_validate checks
// that each side is a multiple of vision_config.image_size.
void read_grid_pinpoints(const json& top, VisionSpec& v, std::vector<FieldError>& errs) {
    const auto it = top.find("image_grid_pinpoints");
    if (it == top.end() || it->is_null()) {
        v.grid_pinpoints = {{336, 672}, {672, 336}, {672, 672}, {1008, 336}, {336, 1008}};
        return;
    }
    const auto pair_ok = [](const json& p) {
        return p.is_array() && p.size() == 2 && p[0].is_number_integer() && p[1].is_number_integer() && p[0].get<int64_t>() > 0 &&
               p[1].get<int64_t>() > 0 && p[0].get<int64_t>() <= 100000 && p[1].get<int64_t>() <= 100000;
    };
    if (!it->is_array() || it->empty() || it->size() > 64 || !std::all_of(it->begin(), it->end(), pair_ok)) {
        errs.push_back({"image_grid_pinpoints", "must be a list of 1 to 64 [height, width] pairs of pixels (1 to 100000), e.g. "
                                                "[[336, 672], [672, 336], [672, 672]]; got " + short_dump(*it)});
        return;
    }
    for (const json& p : *it) v.grid_pinpoints.push_back({p[0].get<int64_t>(), p[1].get<int64_t>()});
}

// vision_config beside the language model -> ModelSpec::vision. A wrapper without a row here keeps the
// language model alone, with a warning.
void read_vision(const json& top, ModelSpec& m, bool nested, std::vector<FieldError>& errs, std::vector<std::string>& warns) {
    const auto vc = top.find("vision_config");
    const bool has_vision = vc != top.end() && !vc->is_null();
    const auto type = top.find("model_type");
    const VisionFamily* fam = nullptr;
    if (has_vision && type != top.end() && type->is_string())
        for (const VisionFamily& f : kVisionFamilies)
            if (type->get<std::string>() == f.model_type) fam = &f;
    if (!fam) {
        if (nested || has_vision)
            warns.push_back("only the language model is counted; the vision tower and projector are not (vision_config is read for "
                            "model_type llava, llava_next, gemma3, qwen2_vl, qwen2_5_vl, qwen3_5, qwen3_5_moe and mllama)");
        return;
    }
    if (!vc->is_object()) {
        errs.push_back({"vision_config", std::string("must be an object; got ") + vc->type_name()});
        return;
    }
    Reader r(*vc, "vision_config.", errs);
    Reader top_reader(top, "", errs);
    VisionSpec& v = m.vision;
    v.kind = fam->kind;
    v.projector = fam->projector;
    const bool qwen = fam->kind == VisionKind::QwenVit || fam->kind == VisionKind::Qwen2Vit || fam->kind == VisionKind::Qwen3Vit;
    const bool qwen2 = fam->kind == VisionKind::Qwen2Vit;  // the tower's width is embed_dim, hidden_size is the merger's output
    auto size = [&](const char* canonical, std::initializer_list<const char*> keys, int64_t def) {
        const Keys k(keys.begin(), keys.size());
        if (auto x = r.integer(canonical, k)) return *x;
        if (!r.failed(canonical))
            warns.push_back(std::string("vision_config.") + *keys.begin() + " is missing; using the transformers default " + std::to_string(def));
        return def;
    };
    v.layers = size("num_hidden_layers", {qwen ? "depth" : "num_hidden_layers"}, fam->layers);
    v.hidden = size("hidden_size", {qwen2 ? "embed_dim" : "hidden_size"}, fam->hidden);
    const bool mllama = fam->kind == VisionKind::Mllama;
    v.heads = size("num_attention_heads", {qwen ? "num_heads" : mllama ? "attention_heads" : "num_attention_heads"}, fam->heads);
    if (qwen2) {
        // Qwen2VisionTransformerPretrainedModel: each block's MLP is embed_dim x mlp_ratio wide [transformers-code]
        const int64_t ratio = size("mlp_ratio", {"mlp_ratio"}, 4);
        if (ratio <= 0 || ratio > 64) errs.push_back({"vision_config.mlp_ratio", "must be in [1, 64]; got " + std::to_string(ratio)});
        v.ffn = v.hidden * ratio;
    } else {
        v.ffn = size("intermediate_size", {"intermediate_size"}, fam->ffn);
    }
    v.patch = size("patch_size", {"patch_size"}, fam->patch);
    const char* const channel_keys[] = {"num_channels", "in_chans", "in_channels"};
    v.channels = r.integer("num_channels", Keys(channel_keys)).value_or(3);  // RGB in every configuration class
    if (qwen) {
        v.temporal_patch = r.integer("temporal_patch_size").value_or(2);
        v.merge = r.integer("spatial_merge_size").value_or(2);
        // The merger projects into the language model: out_hidden_size (Qwen2-VL: hidden_size) is its hidden_size.
        const char* out_key = qwen2 ? "hidden_size" : "out_hidden_size";
        if (auto out = r.integer(out_key); out && *out != m.hidden)
            errs.push_back({std::string("vision_config.") + out_key, "must equal the language model's hidden_size (" + std::to_string(m.hidden) +
                                                                  "), which the merger projects into; got " + std::to_string(*out)});
        if (fam->kind == VisionKind::Qwen3Vit) read_qwen3_vision(*vc, r, v, errs);
    } else {
        v.image_size = size("image_size", {"image_size"}, fam->image_size);
    }
    if (mllama) read_mllama_vision(*vc, r, v, errs);
    if (std::string_view(fam->model_type) == "llava_next") read_grid_pinpoints(top, v, errs);
    if (fam->projector == ProjectorKind::Gemma3) {
        v.tokens_per_image = top_reader.integer("mm_tokens_per_image").value_or(256);  // Gemma3Config default
        if (r.boolean("vision_use_head", false))
            warns.push_back("vision_config.vision_use_head is true; Gemma 3 loads the SigLIP tower without its head, which is not counted");
    }
}

// The model class config.json's "architectures" names, where it changes the tensors [transformers-code]: an
// encoder's *ForSequenceClassification adds the classifier over num_labels outputs (num_labels, else the
// id2label entries, else PretrainedConfig's 2); a decoder's base class (Qwen3Model, LlamaModel: "Model" and
// no "For" / "LMHead" in the name) has no lm_head, the embedder that Qwen3-Embedding and gte-Qwen2 ship.
// An encoder-decoder is read as its *ForConditionalGeneration whatever the class (facebook/bart-large lists BartModel): what
// AutoModelForSeq2SeqLM loads and PEFT fine-tunes; its lm_head is tied to the shared embedding.
void read_model_class(const json& top, ModelSpec& m) {
    const auto classes = top.find("architectures");
    if (classes == top.end() || !classes->is_array() || classes->empty() || !(*classes)[0].is_string()) return;
    const std::string c = (*classes)[0].get<std::string>();
    const auto ends_with = [&](std::string_view tail) { return c.size() >= tail.size() && c.compare(c.size() - tail.size(), tail.size(), tail) == 0; };
    if (m.encoder && ends_with("ForSequenceClassification")) {
        int64_t labels = 2;
        if (const auto n = top.find("num_labels"); n != top.end() && n->is_number_integer()) labels = n->get<int64_t>();
        else if (const auto ids = top.find("id2label"); ids != top.end() && ids->is_object() && !ids->empty()) labels = static_cast<int64_t>(ids->size());
        m.num_labels = labels;
    } else if (!m.encoder && !m.seq2seq.active() && ends_with("Model") && c.find("For") == std::string::npos && c.find("LMHead") == std::string::npos) {
        m.embedder = true;
    }
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
    }
    Reader r(*root, prefix, errs);
    Reader top_reader(top, "", errs);

    const Family* fam = resolve_family(r, top_reader, top, !prefix.empty(), errs, warns);
    if (!fam) return Result<ModelSpec>::failure(std::move(errs), std::move(warns));
    const Layout& layout = *find_layout(fam->arch);
    Importer im{r, *fam, errs, warns, {}};

    ModelSpec m = blank_spec();
    m.model_type = fam->model_type;
    m.family = fam->family;
    if (auto n = top_reader.string("_name_or_path"); n && !n->empty()) m.name = *n;
    else m.name = fam->model_type;

    read_sizes(im, m);
    // Multimodal wrappers may keep tie_word_embeddings at the top level, beside text_config.
    const bool tie_outside = !prefix.empty() && !r.has("tie_word_embeddings");
    m.tied_embeddings = (tie_outside ? top_reader : r).boolean("tie_word_embeddings", fam->tied);
    if (!pure_ssm_family(*fam)) {
        read_kv_heads(im, m);
        read_head_dim(im, m);
    }
    apply_layout(layout, m);
    read_flags(im, m);
    read_activation(im, m);
    read_window(im, layout, m);
    if (m.position == PositionKind::Rotary) read_rope(im, m);
    read_counts(im, m);
    if (layout.special) layout.special(im, m);
    read_vision(top, m, !prefix.empty(), errs, warns);
    read_model_class(top, m);

    if (top.contains("quantization_config"))
        warns.push_back("the checkpoint is quantized (quantization_config); counts are parameters, choose the weight format separately");
    check_rules(im, m);
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

// The candidates close to `value` (same when folded, else at most 2 edits away when folded), quoted
// and comma-separated, for "unknown X" messages; empty when none is close.
std::string close_names(const std::string& value, const std::vector<std::string>& candidates) {
    const std::string t = fold_type(value.substr(0, 64));
    std::string out;
    for (const std::string& c : candidates) {
        const std::string f = fold_type(c);
        if (t != f && (t.size() < 3 || edit_distance(t, f) > 2) && f.find(t) == std::string::npos) continue;
        out += (out.empty() ? "" : ", ") + std::string("\"") + c + "\"";
    }
    return out;
}

}  // namespace vl
