// Telling a share link, a scenario file and a config.json apart (input_kind.h).
#include "input_kind.h"

#include <array>

#include "json_input.h"

namespace vl {

namespace {

std::string_view trim(std::string_view t) {
    const size_t b = t.find_first_not_of(" \t\r\n");
    if (b == std::string_view::npos) return {};
    const size_t e = t.find_last_not_of(" \t\r\n");
    return t.substr(b, e - b + 1);
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// "v1.…": a version prefix (as share_link.h writes it).
bool looks_like_link(std::string_view f) {
    if (f.size() < 3 || f[0] != 'v' || !is_digit(f[1])) return false;
    size_t i = 1;
    while (i < f.size() && is_digit(f[i])) ++i;
    return i < f.size() && f[i] == '.';
}

// The fragment of a link as a person copies it: "v1.…", "#v1.…", "https://host/path/?embed#v1.…";
// an embed fragment may start with "embed&" or "embed,".
bool find_link(std::string_view t, std::string& out) {
    if (t.find_first_of(" \t\r\n") != std::string_view::npos) return false;
    std::string_view f = t;
    if (const size_t hash = t.find('#'); hash != std::string_view::npos) f = t.substr(hash + 1);
    for (std::string_view prefix : {std::string_view("embed&"), std::string_view("embed,")})
        if (f.substr(0, prefix.size()) == prefix) f.remove_prefix(prefix.size());
    if (!looks_like_link(f)) return false;
    out = std::string(f);
    return true;
}

constexpr std::array<std::string_view, 8> kScenarioOnlyKeys = {"mode", "train", "finetune", "infer",
                                                               "parallel", "gpu", "gpu_count", "overheads"};
constexpr std::array<std::string_view, 2> kConfigNameKeys = {"model_type", "architectures"};
constexpr std::array<std::string_view, 14> kConfigSizeKeys = {
    "hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "intermediate_size",
    "vocab_size", "max_position_embeddings", "n_embd", "n_layer", "n_head", "d_model", "text_config",
    "torch_dtype", "transformers_version"};

template <size_t N>
bool has_any(const nlohmann::json& j, const std::array<std::string_view, N>& keys) {
    for (std::string_view k : keys)
        if (j.contains(std::string(k))) return true;
    return false;
}

InputClass unknown(std::string message) {
    InputClass c;
    c.errors.push_back({"input", std::move(message)});
    return c;
}

}  // namespace

const char* input_kind_name(InputKind k) {
    switch (k) {
        case InputKind::Empty: return "empty";
        case InputKind::ShareLink: return "share link";
        case InputKind::Scenario: return "vramlens scenario";
        case InputKind::HfConfig: return "config.json";
        case InputKind::Unknown: break;
    }
    return "unknown";
}

InputClass classify_json_input(std::string_view text) {
    InputClass c;
    const std::string_view t = trim(text);
    if (t.empty()) {
        c.kind = InputKind::Empty;
        return c;
    }
    if (t.front() != '{' && t.front() != '[') {
        if (find_link(t, c.link)) {
            c.kind = InputKind::ShareLink;
            return c;
        }
        return unknown("is neither JSON (a scenario or config.json starts with '{') nor a vramlens link (…#v1.…)");
    }
    std::optional<nlohmann::json> j = parse_json_input(t, "input", c.errors);
    if (!j) return c;  // Unknown, with the reader's error (too large, not valid JSON at line:column, ...)
    if (!j->is_object())
        return unknown("is a JSON " + std::string(j->type_name()) + "; a scenario or a config.json is a JSON object {…}");

    const auto version = j->find("version");
    const bool int_version = version != j->end() && version->is_number_integer();
    const bool model_or_mode = j->contains("model") || j->contains("mode");
    if (int_version && model_or_mode) {
        c.kind = InputKind::Scenario;
        return c;
    }
    if (has_any(*j, kConfigNameKeys)) {
        c.kind = InputKind::HfConfig;
        return c;
    }
    if (has_any(*j, kScenarioOnlyKeys)) {
        c.kind = InputKind::Scenario;
        return c;
    }
    if (has_any(*j, kConfigSizeKeys)) {
        c.kind = InputKind::HfConfig;
        return c;
    }
    // A tokenizer.json sits next to config.json on the Hub and is an easy one to grab by mistake.
    const auto model = j->find("model");
    if (j->contains("added_tokens") || (model != j->end() && model->is_object() && model->contains("vocab")))
        return unknown("looks like a tokenizer.json (it has \"added_tokens\" / \"model\".\"vocab\"); the model's "
                       "shape is in config.json, the file next to it");
    // {"model": "llama-3.1-8b", ...} without a usable version: the scenario reader says what is missing.
    if (model != j->end()) {
        c.kind = InputKind::Scenario;
        return c;
    }
    if (j->empty()) return unknown("is an empty JSON object {}; paste a scenario or a config.json");
    return unknown("is a JSON object with none of a scenario's keys (\"version\" with \"model\" or \"mode\") or a "
                   "config.json's (\"model_type\", \"architectures\", \"hidden_size\")");
}

}  // namespace vl
