// Llama 3.2 Vision (model_type mllama, issue 18 item 3): a Llama language model whose listed layers cross-attend to
// the image states of a two-encoder vision tower (docs/sources.md transformers-mllama). Counts are derived by hand
// below from the modules of modeling_mllama.py and checked against the published figures (tests/data/configs/SOURCES.md).
#include <catch2/catch.hpp>

#include <string>

#include "component_lookup.h"
#include "config_files.h"
#include "estimate.h"
#include "model/hf_config.h"
#include "model/image_tokens.h"
#include "model/presets.h"
#include "param_count.h"
#include "repo_files.h"

using namespace vl;

namespace {
ModelSpec mllama_config(const std::string& name) { return test::imported_config(name); }

// The tower, the same in 11B and 90B (h 1280, ffn 5120, 32 local + 8 global layers, 560 px tiles of 14 px patches, 4 tiles,
// 8 aspect ratios):
//   patch_embedding 1280 x 3 x 14 x 14 = 752,640; class_embedding 1,280
//   gated_positional_embedding: gate 1 + embedding 1601 x 1280 = 2,049,280 + tile_embedding 9 x (4 x 1601 x 1280) = 73,774,080
//   pre_ and post_tile_positional_embedding: 2 x (9 x 4 x 1280 + 1) = 92,162; layernorm_pre and layernorm_post 2 x 2,560
//   a layer: q, k, v, o 4 x 1280^2 = 6,553,600, fc1 5120 x 1280 + 5120, fc2 1280 x 5120 + 1280, two LayerNorms 2 x 2,560
//            = 19,672,320; 40 layers, the 8 global ones with gate_attn and gate_ffn (+2 each)
constexpr int64_t kTowerLayer = 4 * 1280 * 1280 + (5120 * 1280 + 5120) + (1280 * 5120 + 1280) + 2 * 2560;
constexpr int64_t kTower = 752640 + 1280 + (1 + 1601 * 1280 + 9 * 4 * 1601 * 1280) + 2 * (9 * 4 * 1280 + 1) + 2 * 2560 +
                           40 * kTowerLayer + 8 * 2;
}  // namespace

TEST_CASE("mllama: exact parameter counts of Llama-3.2-11B-Vision and 90B-Vision, hand-derived") {
    static_assert(kTowerLayer == 19672320);
    static_assert(kTower == 863567379);
    // 11B, the language model: embed_tokens (128256 + 8) x 4096 = 525,369,344, lm_head 128256 x 4096 = 525,336,576, norm 4096;
    // a self-attention layer: q, o 2 x 4096^2, k, v 2 x 1024 x 4096, gate/up/down 3 x 14336 x 4096, two RMSNorms 2 x 4096
    // = 218,112,000; a cross-attention layer adds q_norm and k_norm (2 x 128) and its two gates = 218,112,258; 32 + 8 of them.
    const ParamCounts p11 = count_params(mllama_config("llama-3.2-11b-vision-instruct.json"));
    constexpr int64_t self11 = 2 * 4096LL * 4096 + 2 * 1024LL * 4096 + 3 * 14336LL * 4096 + 2 * 4096;
    static_assert(self11 == 218112000);
    CHECK(p11.embedding == 128264LL * 4096);
    CHECK(p11.total == 525369344 + 525336576 + 4096 + 32 * self11 + 8 * (self11 + 258));
    CHECK(p11.total == 9775192080);
    CHECK(p11.vision == kTower);
    CHECK(p11.projector == 7680 * 4096 + 4096);  // Linear(vision_output_dim 7680 = 6 x 1280, 4096) + bias
    // The tower and projector alone: the Hub's "895M" for a checkpoint of them (QuietImpostor/Llama-3.2-11B-Vision-Only).
    CHECK(p11.vision + p11.projector == 895028755);
    // The checkpoint: the Hub's "10.7B" (the model card's table says 10.6B).
    CHECK(p11.total + p11.vision + p11.projector == 10670220835);
    CHECK(p11.per_layer.kind(3).attention == p11.per_layer.kind(0).attention + 258);

    // 90B: embed_tokens 128264 x 8192, lm_head 128256 x 8192, norm 8192; a self-attention layer q, o 2 x 8192^2, k, v
    // 2 x 1024 x 8192, MLP 3 x 28672 x 8192, norms 2 x 8192 = 855,654,400; 80 of them and 20 cross-attention layers (+258).
    const ParamCounts p90 = count_params(mllama_config("llama-3.2-90b-vision-instruct.json"));
    constexpr int64_t self90 = 2 * 8192LL * 8192 + 2 * 1024LL * 8192 + 3 * 28672LL * 8192 + 2 * 8192;
    static_assert(self90 == 855654400);
    CHECK(p90.total == 128264LL * 8192 + 128256LL * 8192 + 8192 + 80 * self90 + 20 * (self90 + 258));
    CHECK(p90.vision == kTower);
    CHECK(p90.projector == 7680 * 8192 + 8192);
    CHECK(p90.total + p90.vision + p90.projector == 88593355323);  // the model card's 88.6B

    // The presets are these checkpoints.
    const ModelPreset* preset = find_model("llama-3.2-11b-vision");
    REQUIRE(preset != nullptr);
    const ParamCounts pp = count_params(preset->spec);
    CHECK(pp.total + pp.vision + pp.projector == 10670220835);
    REQUIRE(find_model("llama-3.2-90b-vision") != nullptr);
}

TEST_CASE("mllama: the layer pattern names the cross-attention layers, which hold no context KV") {
    const ModelSpec m = mllama_config("llama-3.2-11b-vision-instruct.json");
    const LayerPattern p = layer_pattern(m);
    CHECK(p.cross(3));
    CHECK(p.cross(38));
    CHECK_FALSE(p.cross(4));
    CHECK_FALSE(p.attention(8));
    CHECK(p.attention(9));
    CHECK(p.cross_count(0, 40) == 8);
    CHECK(p.attention_count(0, 40) == 32);
    // Images: each padded to 4 tiles of (560 / 14)^2 + 1 = 1601 states; one <|image|> token in the text; the tower runs over
    // 4 x 1608 positions (1601 padded to a multiple of 8).
    const ImageGrid g = image_grid(m.vision, 1280, 720);
    CHECK(g.cross_tokens == 6404);
    CHECK(g.tokens == 1);
    CHECK(g.patches == 6432);
}

TEST_CASE("mllama: transformers inference counts the self-attention KV by context and the cross-attention KV by images") {
    Scenario s;
    s.mode = Mode::Infer;
    s.model = mllama_config("llama-3.2-11b-vision-instruct.json");
    s.infer.weights = WeightFormat::BF16;
    s.infer.context = 4096;
    s.infer.batch = 1;
    s.infer.images = 2;
    s.infer.flash_attention = true;  // SDPA: no eager scores, the aspect-ratio mask is built all the same
    const Estimate e = estimate(s);
    REQUIRE(e.errors.empty());
    // Self-attention KV: 32 layers x 2 (K, V) x 8 heads x 128 x 2 B = 131,072 B per token over 4096 + 2 (the <|image|> tokens).
    CHECK(test::bytes_of(e, "kv_cache") == 131072.0 * (4096 + 2));
    // Cross-attention KV: 8 layers x 2 images x 6404 states x 2 x 8 x 128 x 2 B = 209,846,272 B per image.
    CHECK(test::bytes_of(e, "kv_cache.cross") == 8.0 * 2 * 6404 * 2 * 8 * 128 * 2);
    // The sequences the free memory holds: each takes its tokens' KV and its images' cross-attention KV.
    CHECK(e.kv.sequences == static_cast<int64_t>(e.kv.pool_bytes / (131072.0 * (4096 + 2) + 8.0 * 2 * 6404 * 2 * 8 * 128 * 2)));
    // The weights: the language model's 9,775,192,080 and the tower's and projector's 895,028,755 parameters in bf16.
    CHECK(test::bytes_of(e, "weights.vision") == 895028755.0 * 2);
    // The vision encoder's forward: beyond the MLP's live tensors, the local encoder's 33 states of 2 x 6432 positions x 1280
    // and the aspect-ratio mask of 2 x 6432^2 (SDPA) in bf16 are alive at once; both exceed the text prefill's 4096 tokens.
    CHECK(test::bytes_of(e, "act.vision_encoder") > 33.0 * 2 * 6432 * 1280 * 2 + 2.0 * 6432 * 6432 * 2 -
                                                        (test::bytes_of(e, "act.prefill_mlp") + test::bytes_of(e, "act.prefill_inputs")));
    bool noted = false;
    for (const std::string& w : e.warnings)
        noted = noted || w == "images: 2 image(s) join every sequence as one <|image|> token each (the KV cache and prefill count 4096 + 2 = 4098 "
                             "tokens); the cross-attention layers keep K and V of 6404 image states per image (max_num_tiles x (patches + 1), "
                             "whatever the image's size)";
    CHECK(noted);
    // No images: no cross cache, no encoder.
    Scenario text = s;
    text.infer.images = 0;
    const Estimate t = estimate(text);
    CHECK(test::find(t, "kv_cache.cross") == nullptr);
    CHECK(test::bytes_of(t, "kv_cache") == 131072.0 * 4096);
}

TEST_CASE("mllama: vLLM and llama.cpp refuse images, naming the engine, and training with images notes the states its cross-attention reads") {
    Scenario s;
    s.mode = Mode::Infer;
    s.model = mllama_config("llama-3.2-11b-vision-instruct.json");
    s.infer.images = 1;
    s.infer.engine = Engine::VLLM;
    const Estimate v = estimate(s);
    REQUIRE_FALSE(v.errors.empty());
    CHECK(v.errors[0].field == "infer.engine");
    s.infer.engine = Engine::LlamaCpp;
    const Estimate l = estimate(s);
    REQUIRE_FALSE(l.errors.empty());
    CHECK(l.errors[0].field == "infer.engine");
    s.infer.engine = Engine::VLLM;
    s.infer.images = 0;
    CHECK(estimate(s).errors.empty());

    Scenario train = s;
    train.mode = Mode::FineTune;
    const auto noted = [](const Estimate& e) {
        bool said = false;
        for (const std::string& w : e.warnings) said = said || w.find("the cross-attention layers attend to 6404 image states per image") != std::string::npos;
        return said;
    };
    CHECK_FALSE(noted(estimate(train)));  // text only: the forward skips the cross-attention layers
    train.train.images = 2;
    const Estimate f = estimate(train);
    REQUIRE(f.ok());
    CHECK(noted(f));
}

TEST_CASE("mllama: bad cross_attention_layers and vision_output_dim are named") {
    const std::string text = test::read_text(test::kRepoRoot / "tests/data/configs/llama-3.2-11b-vision-instruct.json");
    std::string bad = text;
    bad.replace(bad.find("\"cross_attention_layers\": ["), 27, "\"cross_attention_layers\": [40, ");
    Result<ModelSpec> r = import_hf_config(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(to_string(r.errors[0]) == "text_config.cross_attention_layers: must be in [0, 39]; got 40");
    std::string dim = text;
    dim.replace(dim.find("\"vision_output_dim\": 7680"), 25, "\"vision_output_dim\": 7000");
    r = import_hf_config(dim);
    REQUIRE_FALSE(r.ok());
    CHECK(to_string(r.errors[0]) == "vision_config.vision_output_dim: must equal (1 + len(intermediate_layers_indices)) x hidden_size = "
                                    "7680, the projector's input; got 7000");
}
