// The model search (preset_matches, core/model/presets.h): what people type finds the model.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "model/presets.h"

namespace {

std::vector<std::string> found(std::string_view query) {
    std::vector<std::string> ids;
    for (const vl::ModelPreset& p : vl::model_presets())
        if (vl::preset_matches(p, query)) ids.push_back(p.id);
    return ids;
}

bool finds(std::string_view query, const std::string& id) {
    for (const std::string& f : found(query))
        if (f == id) return true;
    return false;
}

}  // namespace

TEST_CASE("the model search ignores case, punctuation and spaces between a name's parts") {
    CHECK(finds("llama3 8b", "llama-3-8b"));
    CHECK(finds("llama3 8b", "llama-3.1-8b"));
    CHECK(finds("LLAMA 3.1 8B", "llama-3.1-8b"));
    CHECK(finds("llama-3.1-8b", "llama-3.1-8b"));
    CHECK(finds("qwen 2.5 7b", "qwen2.5-7b"));
    CHECK_FALSE(finds("llama3 8b", "llama-3.1-70b"));
    CHECK_FALSE(finds("llama3 8b", "qwen3-8b"));
}

TEST_CASE("the model search takes a full Hugging Face id, with or without its organisation and variant") {
    CHECK(found("Qwen/Qwen2.5-32B-Instruct") == std::vector<std::string>{"qwen2.5-32b"});
    CHECK(found("Qwen2.5-32B-Instruct") == std::vector<std::string>{"qwen2.5-32b"});
    CHECK(found("meta-llama/Llama-3.1-8B") == std::vector<std::string>{"llama-3.1-8b"});
    CHECK(finds("meta-llama/Llama-3.3-70B-Instruct", "llama-3.3-70b"));
    CHECK(finds("google/gemma-2-9b-it", "gemma-2-9b"));
    // A word that is no variant still has to match.
    CHECK(found("Qwen2.5-32B-Coder").empty());
}

TEST_CASE("an empty model search lists every preset") {
    CHECK(found("").size() == vl::model_presets().size());
    CHECK(found("  ").size() == vl::model_presets().size());
}
