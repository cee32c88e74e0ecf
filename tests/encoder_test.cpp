// Encoders (issue 18 item 5, issue 14 item 12): BERT, RoBERTa and XLM-RoBERTa as AutoModel loads them
// (the base model with its pooler, no LM head, no cache). Parameter counts are the published ones
// (tests/data/configs/SOURCES.md); memory is derived by hand from the shapes.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "estimate.h"
#include "model/hf_config.h"
#include "param_count.h"

using namespace vl;

namespace {
ModelSpec config(const std::string& name) {
    std::ifstream f(std::string(VRAMLENS_TEST_DATA) + "/configs/" + name);
    REQUIRE(f.good());
    std::stringstream ss;
    ss << f.rdbuf();
    Result<ModelSpec> r = import_hf_config(ss.str());
    for (const auto& e : r.errors) INFO(to_string(e));
    REQUIRE(r.ok());
    return *r.value;
}

// The model of `file` in `mode`, batch sequences of `tokens` tokens.
Scenario scenario(const std::string& file, Mode mode, int64_t batch, int64_t tokens) {
    Scenario s;
    s.mode = mode;
    s.model = config(file);
    s.infer.batch = s.train.micro_batch = batch;
    s.infer.context = s.train.seq_len = tokens;
    return s;
}

double bytes_of(const Estimate& e, const std::string& id) {
    for (const Component& c : e.components)
        if (c.id == id) return c.bytes;
    return -1;
}
}  // namespace

TEST_CASE("encoders: exact parameter counts of real checkpoints (base model with pooler)") {
    CHECK(count_params(config("bert-base-uncased.json")).total == 109482240);
    CHECK(count_params(config("all-minilm-l6-v2.json")).total == 22713216);
    CHECK(count_params(config("roberta-base.json")).total == 124645632);
    CHECK(count_params(config("bge-m3.json")).total == 567754752);
    // bert-base-uncased by hand: embeddings 30522*768 + 512*768 + 2*768 (token types) + LayerNorm 2*768
    // = 23,837,184; 12 layers of q, k, v, o with biases (4*768*768 + 4*768), the MLP with biases
    // (2*768*3072 + 3072 + 768) and 2 LayerNorms (4*768) = 7,087,872 each; pooler 768*768 + 768.
    CHECK(23837184 + 12 * 7087872 + 590592 == 109482240);
    const ModelSpec m = config("roberta-base.json");
    CHECK(m.encoder);
    CHECK(m.type_vocab == 1);
    CHECK(m.max_position == 514);
}

TEST_CASE("encoders: inference is a forward with no KV cache and no logits") {
    Scenario s = scenario("bert-base-uncased.json", Mode::Infer, 64, 512);
    s.overheads.fragmentation = 0;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    CHECK(bytes_of(e, "kv_cache") < 0);
    CHECK(bytes_of(e, "logits") < 0);
    // last_hidden_state: 64 * 512 * 768 * 2 B.
    CHECK(bytes_of(e, "act.hidden_out") == 64.0 * 512 * 768 * 2);
    CHECK(e.kv.tokens == 0);
    // Weights in bf16: 2 B per parameter.
    double weights = 0;
    for (const Component& c : e.components)
        if (c.category == Category::Weights) weights += c.bytes;
    CHECK(weights == 2.0 * 109482240);

    s.infer.engine = Engine::VLLM;
    const Estimate v = estimate(s);
    REQUIRE_FALSE(v.ok());
    CHECK(v.errors[0].field == "infer.engine");
}

TEST_CASE("encoders: training has no vocabulary logits, and relative positions are refused") {
    const Estimate e = estimate(scenario("roberta-base.json", Mode::Train, 8, 512));
    REQUIRE(e.ok());
    for (const Component& c : e.components) CHECK(c.category != Category::Logits);

    const Result<ModelSpec> rel = import_hf_config(R"({"model_type": "bert", "position_embedding_type": "relative_key"})");
    REQUIRE_FALSE(rel.ok());
    CHECK(rel.errors[0].field == "position_embedding_type");
}
