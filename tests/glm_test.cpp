// GLM-4.5 and GLM-4.5-Air (model_type glm4_moe, issue 18): config.json import, the exact parameter counts of the
// checkpoints with their multi-token-prediction layer (num_nextn_predict_layers) counted apart, and vLLM's method mtp
// drafting with that layer. The counts are derived by hand below and equal the Hub's safetensors totals
// (tests/data/configs/SOURCES.md).
#include <catch2/catch.hpp>

#include <string>

#include "component_lookup.h"
#include "config_files.h"
#include "estimate.h"
#include "inference_models.h"
#include "model/presets.h"
#include "param_count.h"

using namespace vl;
using test::bytes_of;
using test::imported_config;

TEST_CASE("GLM-4.5-Air: the exact count of the checkpoint, its MTP layer apart") {
    const ModelSpec m = imported_config("glm-4.5-air.json");
    CHECK(m.model_type == "glm4_moe");
    CHECK(m.qkv_bias);
    CHECK_FALSE(m.attn_out_bias);  // Glm4MoeAttention's o_proj has no bias
    CHECK_FALSE(m.qk_norm);
    CHECK(m.moe.router_bias);
    CHECK(m.mtp_layers == 1);
    const ParamCounts p = count_params(m);
    // By hand. Attention: q 12288 x 4096 + 12288, k and v 2 x (1024 x 4096 + 1024), o 4096 x 12288 = 109,066,240; two
    // RMSNorms 8192. The dense layer's MLP 3 x 4096 x 10944; a MoE layer's 128 experts and the shared one, 129 x 3 x 4096 x 1408,
    // the router 128 x 4096 and its e_score_correction_bias 128.
    const int64_t attention = 12288LL * 4096 + 12288 + 2 * (1024LL * 4096 + 1024) + 4096LL * 12288;
    CHECK(attention == 109066240);
    const int64_t dense = attention + 8192 + 3LL * 4096 * 10944;
    const int64_t moe = attention + 8192 + 129LL * 3 * 4096 * 1408 + 128 * 4096 + 128;
    CHECK(moe == 2341492864);
    // 1 dense + 45 MoE layers, embedding and lm_head 2 x 151552 x 4096, final norm: 106,852,251,264, the model without its MTP
    // layer (the count public model tables give INTELLECT-3, GLM-4.5-Air's architecture without it); "106B" on the card.
    CHECK(p.total == dense + 45 * moe + 2LL * 151552 * 4096 + 4096);
    CHECK(p.total == 106852251264);
    // The MTP layer (model.layers.46): eh_proj 4096 x 8192, enorm and hnorm, one MoE decoder layer, shared_head.norm.
    CHECK(p.mtp == 4096LL * 8192 + 2 * 4096 + moe + 4096);
    // The checkpoint also stores that layer's copies of embed_tokens and shared_head.head: 110,468,824,832 in all, the Hub's
    // safetensors total.
    CHECK(p.total + p.mtp + 2LL * 151552 * 4096 == 110468824832);
    // Active per token: everything but the 120 routed experts each MoE layer leaves idle (top 8 of 128): 13,424,129,664,
    // the card's "12B active" without the 1.24B of embedding and head.
    CHECK(p.active_per_token == p.total - 45LL * 120 * 3 * 4096 * 1408);
    CHECK(p.active_per_token - 2LL * 151552 * 4096 == 12182615680);
}

TEST_CASE("GLM-4.5: the exact count of the checkpoint, q/k norms and three dense layers") {
    const ModelSpec m = imported_config("glm-4.5.json");
    CHECK(m.qk_norm);
    CHECK(m.moe.first_dense_layers == 3);
    const ParamCounts p = count_params(m);
    // Attention: q 12288 x 5120 + 12288, k and v 2 x (1024 x 5120 + 1024), o 5120 x 12288, q_norm and k_norm 2 x 128;
    // two norms 2 x 5120; dense MLP 3 x 5120 x 12288; a MoE layer 161 x 3 x 5120 x 1536 + router 160 x 5120 + 160.
    const int64_t attention = 12288LL * 5120 + 12288 + 2 * (1024LL * 5120 + 1024) + 5120LL * 12288 + 2 * 128;
    const int64_t dense = attention + 2 * 5120 + 3LL * 5120 * 12288;
    const int64_t moe = attention + 2 * 5120 + 161LL * 3 * 5120 * 1536 + 160 * 5120 + 160;
    CHECK(p.total == 3 * dense + 89 * moe + 2LL * 151552 * 5120 + 5120);
    CHECK(p.mtp == 5120LL * 10240 + 2 * 5120 + moe + 5120);
    // With the MTP layer's embedding and head copies: 358,337,791,296, the Hub's safetensors total ("355B" on the card).
    CHECK(p.total + p.mtp + 2LL * 151552 * 5120 == 358337791296);
}

TEST_CASE("GLM-4.5 presets: the fixtures' configs, their MTP layer kept for vLLM's method mtp") {
    for (const char* id : {"glm-4.5-air", "glm-4.5"}) {
        INFO(id);
        const ModelPreset* preset = find_model(id);
        REQUIRE(preset != nullptr);
        const ModelSpec fixture = imported_config(std::string(id) + ".json");
        const ParamCounts a = count_params(preset->spec), b = count_params(fixture);
        CHECK(a.total == b.total);
        CHECK(a.mtp == b.mtp);
        CHECK(preset->spec.mtp_layers == 1);
    }
    // The totals the tests above derive by hand, without the MTP layer (the presets' published counts). GLM-4.5's MTP
    // layer by the formula above: 5120 x 10240 + 2 x 5120 + moe (136,329,472 + 10,240 + 3,798,466,560 + 819,200 + 160
    // = 3,935,625,632) + 5120 = 3,988,069,792.
    CHECK(count_params(find_model("glm-4.5-air")->spec).total == 106852251264);
    CHECK(count_params(find_model("glm-4.5")->spec).total == 358337791296 - 3988069792 - 2LL * 151552 * 5120);
}

TEST_CASE("GLM-4.5-Air: vLLM's method mtp loads the MTP layer as the drafter, one attention layer of KV more") {
    Scenario s = test::vllm_llama3_8b(1);
    s.model = imported_config("glm-4.5-air.json");
    s.infer.context = 4096;
    s.infer.speculative.method = SpecMethod::Mtp;
    s.infer.speculative.num_speculative_tokens = 1;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    // The same one definition as Qwen3-Next's and DeepSeek-V3's MTP (ParamCounts::mtp), bf16 like the target.
    CHECK(bytes_of(e, "spec.draft_weights") == 2375059584.0 * 2);
    // 106B in bf16 leave one GPU no pool: the drafter's KV is the request's, one layer of 2 x 8 KV heads x 128 x 2 B = 4096 B
    // per token over ceil((4096 + 1) / 16) = 257 blocks of 16 tokens.
    CHECK(e.kv.blocks == 0);
    CHECK(bytes_of(e, "spec.draft_kv") == 257.0 * 16 * 4096);
    // Without num_nextn_predict_layers there is nothing to draft with.
    s.model.mtp_layers = 0;
    const Estimate none = estimate(s);
    REQUIRE_FALSE(none.ok());
    CHECK(none.errors[0].field == "infer.speculative.method");
}
