// classify_json_input (core/input_kind.h): a pasted share link, scenario file or config.json goes
// to its own reader, whichever box or page it was given to.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "input_kind.h"
#include "json_input.h"
#include "scenario.h"
#include "scenario_json.h"
#include "share_link.h"

using namespace vl;

namespace {

std::string read_text(const std::filesystem::path& p) {
    std::ifstream f(p);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

InputKind kind(std::string_view text) { return classify_json_input(text).kind; }

}  // namespace

TEST_CASE("input kind: every config.json in tests/data/configs is a config.json") {
    int n = 0;
    for (const auto& e : std::filesystem::directory_iterator(std::string(VRAMLENS_TEST_DATA) + "/configs")) {
        if (e.path().extension() != ".json") continue;
        INFO(e.path().filename().string());
        CHECK(kind(read_text(e.path())) == InputKind::HfConfig);
        ++n;
    }
    CHECK(n >= 20);  // the folder's 20 Hub files (tests/data/configs/SOURCES.md)
}

TEST_CASE("input kind: scenario files, whatever model they name, are scenarios") {
    // The example from docs/examples, and what scenario_to_json writes (a preset id; an inline model
    // with its own "hidden"/"layers"; an hf_config model that carries a config.json's keys inside).
    CHECK(kind(read_text(std::string(VRAMLENS_TEST_DATA) + "/../../docs/examples/llama-3-8b-lora-4090.json")) ==
          InputKind::Scenario);
    Scenario s;
    s.mode = Mode::Infer;
    CHECK(kind(scenario_to_json(s, JsonStyle::Pretty)) == InputKind::Scenario);
    CHECK(kind(scenario_to_json(s, JsonStyle::Compact)) == InputKind::Scenario);
    CHECK(kind(R"({"version": 1, "model": {"hf_config": {"model_type": "llama", "hidden_size": 4096}}})") ==
          InputKind::Scenario);
    // A version this build does not read is still a scenario: its reader says "update vramlens".
    CHECK(kind(R"({"version": 7, "mode": "train"})") == InputKind::Scenario);
    // Hand-written without "version": keys only a scenario has; the scenario reader names what is missing.
    CHECK(kind(R"({"mode": "infer", "gpu": "h100-80gb"})") == InputKind::Scenario);
    CHECK(kind(R"({"model": "llama-3.1-8b"})") == InputKind::Scenario);
    Result<Scenario> r = scenario_from_json(R"({"mode": "infer", "gpu": "h100-80gb"})");
    REQUIRE_FALSE(r.ok());
    CHECK(r.errors.front().field == "version");
}

TEST_CASE("input kind: a config.json's own keys make it one, even with a \"version\" of its own") {
    CHECK(kind(R"({"model_type": "llama"})") == InputKind::HfConfig);
    CHECK(kind(R"({"architectures": ["GPT2LMHeadModel"]})") == InputKind::HfConfig);
    CHECK(kind(R"({"hidden_size": 4096, "num_hidden_layers": 32})") == InputKind::HfConfig);
    CHECK(kind(R"({"n_embd": 768, "n_layer": 12})") == InputKind::HfConfig);  // GPT-2's names
    // "version" alone (no "model"/"mode") does not make a scenario.
    CHECK(kind(R"({"version": 1, "model_type": "llama", "hidden_size": 4096})") == InputKind::HfConfig);
}

TEST_CASE("input kind: links, with or without the page address") {
    Scenario s;
    const std::string link = encode_share_link(s);
    REQUIRE(link.rfind("v1.", 0) == 0);
    for (const std::string& text : {link, "#" + link, "  " + link + "\n", "https://example.org/vramlens/#" + link,
                                    "https://example.org/vramlens/?embed#" + link,
                                    "https://example.org/vramlens/?embed#embed&" + link}) {
        INFO(text);
        const InputClass c = classify_json_input(text);
        CHECK(c.kind == InputKind::ShareLink);
        CHECK(c.link == link);
    }
    // A damaged link is still a link: decode_share_link says what is wrong with it.
    const std::string half = link.substr(0, link.size() / 2);
    const InputClass cut = classify_json_input("#" + half);
    CHECK(cut.kind == InputKind::ShareLink);
    CHECK_FALSE(decode_share_link(cut.link).ok());
    CHECK(kind("https://example.org/vramlens/") == InputKind::Unknown);  // no scenario in it
    CHECK(kind("hello world") == InputKind::Unknown);
    CHECK(kind("#v1.abc def") == InputKind::Unknown);  // two words
    CHECK(kind("#vx.abc") == InputKind::Unknown);
}

TEST_CASE("input kind: other text says what it is and what was expected") {
    CHECK(kind("") == InputKind::Empty);
    CHECK(kind(" \n\t") == InputKind::Empty);

    // A tokenizer.json (the shape of the Hub's, shortened): a string "version" and a "model" object
    // holding the vocabulary.
    const InputClass tok = classify_json_input(
        R"({"version": "1.0", "truncation": null, "padding": null,
            "added_tokens": [{"id": 0, "content": "<s>", "special": true}],
            "model": {"type": "BPE", "vocab": {"<s>": 0, "a": 1}, "merges": ["a b"]}})");
    CHECK(tok.kind == InputKind::Unknown);
    REQUIRE(tok.errors.size() == 1);
    CHECK(tok.errors[0].message.find("tokenizer.json") != std::string::npos);

    const InputClass arr = classify_json_input("[1, 2]");
    CHECK(arr.kind == InputKind::Unknown);
    REQUIRE(arr.errors.size() == 1);
    CHECK(arr.errors[0].message.find("JSON array") != std::string::npos);

    const InputClass bad = classify_json_input("{\"model_type\": \"llama\",");
    CHECK(bad.kind == InputKind::Unknown);
    REQUIRE(bad.errors.size() == 1);
    CHECK(bad.errors[0].field == "input");
    CHECK(bad.errors[0].message.find("not valid JSON") != std::string::npos);

    CHECK(kind("{}") == InputKind::Unknown);
    CHECK(kind(R"({"foo": 1})") == InputKind::Unknown);
}

TEST_CASE("input kind: text over the input limit is refused before it is parsed") {
    // A valid config.json of n bytes (a long "description", as a real config may carry).
    const std::string head = R"({"model_type": "llama", "description": ")", tail = "\"}";
    auto config_of = [&](size_t n) { return head + std::string(n - head.size() - tail.size(), 'x') + tail; };
    const std::string over = config_of(kMaxJsonInputBytes + 1);
    REQUIRE(over.size() == size_t{4} * 1024 * 1024 + 1);
    const InputClass c = classify_json_input(over);
    CHECK(c.kind == InputKind::Unknown);
    REQUIRE(c.errors.size() == 1);
    CHECK(c.errors[0].message.find("at most") != std::string::npos);
    // At the limit it is read, and is a config.json.
    CHECK(kind(config_of(kMaxJsonInputBytes)) == InputKind::HfConfig);
}
