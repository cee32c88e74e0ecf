// validate_model: each rule gives one error naming the config.json field, the rule and the value.
#include <catch2/catch.hpp>

#include "model/model_validate.h"

namespace {

std::vector<vl::FieldError> check(const vl::ModelSpec& m) {
    std::vector<vl::FieldError> errs;
    vl::validate_model(m, errs);
    return errs;
}

}  // namespace

TEST_CASE("validate_model accepts the default model (Llama-3.1-8B)") {
    CHECK(check(vl::ModelSpec{}).empty());
}

TEST_CASE("validate_model: kv heads must divide heads") {
    vl::ModelSpec m;
    m.kv_heads = 6;  // 32 % 6 != 0
    const auto errs = check(m);
    REQUIRE(errs.size() == 1);
    CHECK(vl::to_string(errs[0]) == "model.num_key_value_heads: must divide num_attention_heads (32); got 6");
}

TEST_CASE("validate_model: zero and negative sizes name their field") {
    vl::ModelSpec m;
    m.hidden = 0;
    m.layers = -3;
    m.vocab = 0;
    m.head_dim = 0;
    m.ffn = -1;
    const auto errs = check(m);
    REQUIRE(errs.size() == 5);
    CHECK(vl::to_string(errs[0]) == "model.vocab_size: must be > 0; got 0");
    CHECK(vl::to_string(errs[1]) == "model.hidden_size: must be > 0; got 0");
    CHECK(vl::to_string(errs[2]) == "model.num_hidden_layers: must be > 0; got -3");
    CHECK(errs[3].field == "model.head_dim");
    CHECK(errs[4].field == "model.intermediate_size");
}

TEST_CASE("validate_model: zero heads does not also report a division") {
    vl::ModelSpec m;
    m.heads = 0;
    const auto errs = check(m);
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].field == "model.num_attention_heads");
}

TEST_CASE("validate_model: absurd sizes are rejected") {
    vl::ModelSpec m;
    m.hidden = 2'000'000;  // hidden > 1e6
    auto errs = check(m);
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].field == "model.hidden_size");
    CHECK(errs[0].message.find("absurd") != std::string::npos);

    // Each dimension plausible, the whole model not: 100k layers of a 65k-wide model ~ 5e15 params.
    vl::ModelSpec big;
    big.layers = 100'000;
    big.hidden = 65536;
    big.heads = 512;
    big.kv_heads = 512;
    big.ffn = 262144;
    errs = check(big);
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].field == "model.num_parameters");
}

TEST_CASE("validate_model: MoE rules") {
    vl::ModelSpec m;
    m.moe.num_experts = 8;
    m.moe.top_k = 9;  // more than there are experts
    m.moe.expert_ffn = 0;
    const auto errs = check(m);
    REQUIRE(errs.size() == 2);
    CHECK(vl::to_string(errs[0]) == "model.num_experts_per_tok: must be at most num_experts (8); got 9");
    CHECK(errs[1].field == "model.moe_intermediate_size");
}

TEST_CASE("validate_model: MLA needs kv_lora_rank and rope dims") {
    vl::ModelSpec m;
    m.attention = vl::AttentionKind::MLA;
    m.mla = {0, 0, 64, 128, 128};
    const auto errs = check(m);
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].field == "model.kv_lora_rank");
}

TEST_CASE("validate_model: learned positions need max_position_embeddings") {
    vl::ModelSpec m;
    m.position = vl::PositionKind::Learned;
    m.max_position = 0;
    const auto errs = check(m);
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].field == "model.max_position_embeddings");
}

TEST_CASE("validate_model: parameter-count-only models") {
    vl::ModelSpec m;
    m.params_only = 7'000'000'000;
    CHECK(check(m).empty());
    m.params_only = -5;
    auto errs = check(m);
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].field == "model.params");  // the scenario's name for the count
    m.params_only = 20'000'000'000'000;  // 2e13 > 1e13
    errs = check(m);
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].message.find("absurd") != std::string::npos);
}

TEST_CASE("validate_model uses the caller's prefix") {
    vl::ModelSpec m;
    m.vocab = 0;
    std::vector<vl::FieldError> errs;
    vl::validate_model(m, errs, "");
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].field == "vocab_size");
}
