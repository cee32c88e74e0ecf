// quantization_config, adapter_config.json and the quantized/kept split (checkpoint_config.h).
// Field names: transformers' quantizer configs (AwqConfig, GPTQConfig, BitsAndBytesConfig,
// FineGrainedFP8Config, CompressedTensorsConfig, Mxfp4Config) [transformers-code]; PEFT LoraConfig
// [peft-code].
#include "model/checkpoint_config.h"

#include "text_format.h"

#include "enum_names.h"
#include "json_input.h"

namespace vl {

namespace {

using Json = nlohmann::json;

std::optional<int64_t> whole(const Json& j) {
    if (j.is_number_integer()) return j.get<int64_t>();
    if (j.is_number_unsigned() && j.get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX)) return static_cast<int64_t>(j.get<uint64_t>());
    return std::nullopt;
}

// An integer field within [lo, hi], or an error naming it. Absent: `fallback`.
std::optional<int64_t> int_field(const Json& obj, const char* key, int64_t lo, int64_t hi, std::optional<int64_t> fallback, const std::string& at,
                                 std::vector<FieldError>& errs) {
    if (!obj.contains(key) || obj[key].is_null()) return fallback;
    const std::optional<int64_t> v = whole(obj[key]);
    if (!v || *v < lo || *v > hi) {
        errs.push_back({at + key, vl::format("must be a whole number from {} to {}; got {}", lo, hi, obj[key].dump())});
        return std::nullopt;
    }
    return v;
}

bool flag(const Json& obj, const char* key) { return obj.contains(key) && obj[key].is_boolean() && obj[key].get<bool>(); }

void string_list(const Json& obj, const char* key, std::vector<std::string>& out, const std::string& at, std::vector<FieldError>& errs) {
    if (!obj.contains(key) || obj[key].is_null()) return;
    const Json& a = obj[key];
    if (!a.is_array()) {
        errs.push_back({at + key, "must be an array of module names"});
        return;
    }
    for (const Json& s : a) {
        if (!s.is_string()) {
            errs.push_back({at + key, "must hold module names (strings); got " + s.dump()});
            return;
        }
        out.push_back(s.get<std::string>());
    }
}

std::string group_text(int64_t g) {
    return g > 0 ? vl::format(", group size {}", g) : g < 0 ? std::string(", one scale per output channel") : std::string();
}

bool ends_with(std::string_view s, std::string_view tail) { return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail; }

// Tensors that hold a quantized weight's constants, not its weights.
bool is_quant_aux(std::string_view name) {
    static constexpr std::string_view kTails[] = {
        ".qzeros", ".scales", ".g_idx", ".absmax", ".quant_map", ".nested_absmax", ".nested_quant_map", ".SCB", ".weight_format",
        ".weight_scale", ".weight_scale_inv", ".input_scale", ".weight_zero_point", ".weight_g_idx", ".weight_shape",
        ".weight_global_scale", ".input_global_scale", ".k_scale", ".v_scale", "_scales",
    };
    for (std::string_view t : kTails)
        if (ends_with(name, t)) return true;
    return name.find(".quant_state.") != std::string_view::npos;
}

}  // namespace

Result<std::optional<QuantConfig>> read_quantization_config(std::string_view config_json) {
    using R = Result<std::optional<QuantConfig>>;
    std::vector<FieldError> errs;
    std::optional<Json> doc = parse_json_input(config_json, "config", errs);
    if (!doc) return R::failure(std::move(errs));
    if (!doc->is_object()) return R::failure({{"config", "must be a JSON object; got " + std::string(doc->type_name())}});
    const Json* qp = nullptr;
    if (doc->contains("quantization_config")) qp = &(*doc)["quantization_config"];
    else if (doc->contains("compression_config")) qp = &(*doc)["compression_config"];  // older compressed-tensors name
    if (!qp || qp->is_null()) return R::success(std::nullopt);
    const std::string at = "quantization_config.";
    const Json& q = *qp;
    if (!q.is_object()) return R::failure({{"quantization_config", "must be an object; got " + std::string(q.type_name())}});
    QuantConfig c;
    if (q.contains("quant_method") && q["quant_method"].is_string()) c.method = q["quant_method"].get<std::string>();
    else if (flag(q, "load_in_4bit") || flag(q, "load_in_8bit")) c.method = "bitsandbytes";
    else return R::failure({{at + "quant_method", "is missing: say which method quantized the checkpoint (awq, gptq, bitsandbytes, fp8, "
                                                  "compressed-tensors, mxfp4)"}});
    std::vector<std::string> warnings;
    if (c.method == "awq" || c.method == "gptq") {
        const char* bits_key = q.contains("w_bit") && !q.contains("bits") ? "w_bit" : "bits";
        const char* group_key = q.contains("q_group_size") && !q.contains("group_size") ? "q_group_size" : "group_size";
        const std::optional<int64_t> bits = int_field(q, bits_key, 1, 16, std::nullopt, at, errs);
        const std::optional<int64_t> group = int_field(q, group_key, -1, int64_t{1} << 20, -1, at, errs);
        if (!errs.empty()) return R::failure(std::move(errs));
        if (!bits) return R::failure({{at + "bits", "is missing: the bits of a quantized weight (e.g. 4)"}});
        c.bits = static_cast<int>(*bits);
        c.group_size = *group == 0 ? -1 : *group;
        const char* name = c.method == "awq" ? "AWQ" : "GPTQ";
        c.description = vl::format("{} {}-bit{}", name, c.bits, group_text(c.group_size));
        if (c.bits == 4) c.format = c.method == "awq" ? WeightFormat::AWQ4 : WeightFormat::GPTQ4;
        else if (c.method == "gptq" && c.bits == 8) c.format = WeightFormat::GPTQ8;
        else if (c.method == "gptq" && c.bits == 3) c.format = WeightFormat::GPTQ3;
        else if (c.method == "gptq" && c.bits == 2) c.format = WeightFormat::GPTQ2;
        string_list(q, "modules_to_not_convert", c.not_quantized, at, errs);
    } else if (c.method == "bitsandbytes") {
        const bool b4 = flag(q, "load_in_4bit"), b8 = flag(q, "load_in_8bit");
        if (b4 == b8) return R::failure({{at + "load_in_4bit", "exactly one of load_in_4bit and load_in_8bit must be true"}});
        if (b4) {
            std::string type = q.contains("bnb_4bit_quant_type") && q["bnb_4bit_quant_type"].is_string() ? q["bnb_4bit_quant_type"].get<std::string>() : "fp4";
            if (type != "nf4" && type != "fp4")
                return R::failure({{at + "bnb_4bit_quant_type", "must be \"nf4\" or \"fp4\"; got " + q["bnb_4bit_quant_type"].dump()}});
            c.bits = 4;
            c.group_size = 64;
            c.format = type == "nf4" ? WeightFormat::NF4 : WeightFormat::FP4;
            c.description = vl::format("bitsandbytes 4-bit {}{}", type, flag(q, "bnb_4bit_use_double_quant") ? ", double quantization" : "");
        } else {
            c.bits = 8;
            c.group_size = -1;
            c.format = WeightFormat::INT8;
            c.description = "bitsandbytes 8-bit (LLM.int8)";
        }
        string_list(q, "llm_int8_skip_modules", c.not_quantized, at, errs);
    } else if (c.method == "fp8") {
        c.bits = 8;
        c.format = WeightFormat::FP8;
        c.description = "FP8 (e4m3)";
        if (q.contains("weight_block_size") && q["weight_block_size"].is_array()) {
            int64_t block = 1;
            for (const Json& d : q["weight_block_size"]) {
                const std::optional<int64_t> v = whole(d);
                if (!v || *v < 1 || *v > 65536) return R::failure({{at + "weight_block_size", "must be sizes >= 1, e.g. [128, 128]; got " + q["weight_block_size"].dump()}});
                block *= *v;
            }
            c.group_size = block;
            c.description += ", one scale per " + q["weight_block_size"].dump() + " block";
        }
        string_list(q, "modules_to_not_convert", c.not_quantized, at, errs);
    } else if (c.method == "compressed-tensors") {
        const Json* weights = nullptr;
        if (q.contains("config_groups") && q["config_groups"].is_object())
            for (const auto& [name, g] : q["config_groups"].items())
                if (g.is_object() && g.contains("weights") && g["weights"].is_object()) { weights = &g["weights"]; break; }
        if (!weights) return R::failure({{at + "config_groups", "names no group with \"weights\": which bits the weights have is not said"}});
        const std::optional<int64_t> bits = int_field(*weights, "num_bits", 1, 16, std::nullopt, at + "config_groups.weights.", errs);
        const std::optional<int64_t> group = int_field(*weights, "group_size", -1, int64_t{1} << 20, -1, at + "config_groups.weights.", errs);
        if (!errs.empty()) return R::failure(std::move(errs));
        if (!bits) return R::failure({{at + "config_groups.weights.num_bits", "is missing: the bits of a quantized weight"}});
        c.bits = static_cast<int>(*bits);
        c.group_size = *group == 0 ? -1 : *group;
        const std::string type = weights->contains("type") && (*weights)["type"].is_string() ? (*weights)["type"].get<std::string>() : "int";
        c.description = vl::format("compressed-tensors {} {}-bit{}", type, c.bits, group_text(c.group_size));
        if (type == "float" && c.bits == 8) c.format = WeightFormat::FP8;
        else if (type == "int" && c.bits == 4 && c.group_size > 0) c.format = WeightFormat::GPTQ4;  // int4 + a scale per group
        else if (type == "int" && c.bits == 8 && c.group_size < 0) c.format = WeightFormat::INT8;    // int8 + a scale per row
        string_list(q, "ignore", c.not_quantized, at, errs);
    } else if (c.method == "mxfp4") {
        c.bits = 4;
        c.group_size = 32;
        c.description = "MXFP4 (fp4 e2m1, one e8m0 scale per 32 weights)";
        c.format = WeightFormat::MXFP4;
        string_list(q, "modules_to_not_convert", c.not_quantized, at, errs);
    } else {
        c.description = "quantized by \"" + c.method + "\"";
        warnings.push_back("quantization_config.quant_method \"" + c.method +
                           "\" is not one vramlens reads (awq, gptq, bitsandbytes, fp8, compressed-tensors, mxfp4): the weight format is not set");
    }
    if (!errs.empty()) return R::failure(std::move(errs));
    if (!c.format && warnings.empty())
        warnings.push_back(c.description + " has no vramlens weight format yet: the checkpoint's sizes are exact, estimates need --weights");
    return R::success(std::move(c), std::move(warnings));
}

Result<AdapterConfig> read_adapter_config(std::string_view json_text) {
    using R = Result<AdapterConfig>;
    std::vector<FieldError> errs;
    std::optional<Json> doc = parse_json_input(json_text, "adapter_config", errs);
    if (!doc) return R::failure(std::move(errs));
    if (!doc->is_object()) return R::failure({{"adapter_config", "must be a JSON object; got " + std::string(doc->type_name())}});
    const Json& j = *doc;
    AdapterConfig a;
    a.peft_type = j.contains("peft_type") && j["peft_type"].is_string() ? j["peft_type"].get<std::string>() : "";
    if (a.peft_type != "LORA")
        return R::failure({{"peft_type", (a.peft_type.empty() ? std::string("is missing") : "is \"" + a.peft_type + "\"") +
                                             "; only LoRA adapters (\"LORA\") are read"}});
    if (j.contains("base_model_name_or_path") && j["base_model_name_or_path"].is_string()) a.base_model = j["base_model_name_or_path"].get<std::string>();
    const std::optional<int64_t> r = int_field(j, "r", 1, 1 << 20, 8, "", errs);  // PEFT LoraConfig default r = 8
    if (r) a.rank = *r;
    if (j.contains("lora_alpha")) {
        if (!j["lora_alpha"].is_number()) errs.push_back({"lora_alpha", "must be a number; got " + j["lora_alpha"].dump()});
        else a.alpha = j["lora_alpha"].get<double>();
    } else {
        a.alpha = 8;  // PEFT default
    }
    std::vector<std::string> warnings;
    if (!j.contains("target_modules") || j["target_modules"].is_null()) {
        warnings.push_back("target_modules is not given: PEFT then picks the base model's default modules; q_proj and v_proj assumed");
        a.lora_targets = kLoraQ | kLoraV;
    } else if (j["target_modules"].is_string()) {
        const std::string t = j["target_modules"].get<std::string>();
        a.target_modules.push_back(t);
        if (t == "all-linear") a.lora_targets = kLoraAllLinear;
        else errs.push_back({"target_modules", "is the pattern \"" + t + "\"; a list of module names or \"all-linear\" is read"});
    } else {
        string_list(j, "target_modules", a.target_modules, "", errs);
        std::string unknown;
        for (const std::string& m : a.target_modules) {
            bool known = false;
            for (const auto& n : lora_target_names())
                if (m == n.name || ends_with(m, std::string(".") + n.name)) {
                    a.lora_targets |= n.value;
                    known = true;
                }
            if (!known) unknown += (unknown.empty() ? "" : ", ") + m;
        }
        if (!unknown.empty()) warnings.push_back("target_modules " + unknown + " are not modules vramlens sizes (" + lora_target_list() + "): not counted");
        if (!errs.empty()) return R::failure(std::move(errs));
        if (a.lora_targets == 0) errs.push_back({"target_modules", "names no module vramlens sizes (" + lora_target_list() + ")"});
    }
    if (!errs.empty()) return R::failure(std::move(errs));
    return R::success(std::move(a), std::move(warnings));
}

QuantizedSplit split_quantized(const std::vector<SafetensorsHeader>& headers, const QuantConfig& q) {
    QuantizedSplit s;
    for (const SafetensorsHeader& h : headers)
        for (const SafetensorsTensor& t : h.tensors) {
            const SafetensorsDtype* dt = find_safetensors_dtype(t.dtype);
            const uint64_t bytes = t.end - t.begin;
            if (is_quant_aux(t.name)) {
                s.aux_tensors += 1;
                s.quantized_bytes += bytes;
            } else if (dt && !dt->is_float && q.bits > 0) {
                s.quantized_tensors += 1;
                s.quantized_params += t.elements / static_cast<uint64_t>(q.bits) * dt->bits +
                                      t.elements % static_cast<uint64_t>(q.bits) * dt->bits / static_cast<uint64_t>(q.bits);
                s.quantized_bytes += bytes;
            } else {
                s.kept_tensors += 1;
                s.kept_params += t.elements;
                s.kept_bytes += bytes;
            }
        }
    return s;
}

}  // namespace vl
