// gpt-oss (issue 18 items 2 and 6): OpenAI's open-weight MoE with attention sinks, a biased router, biased
// experts stored in MXFP4 and alternating 128-token sliding-window / full attention. Counts are hand sums
// from the config (tests/data/configs/gpt-oss-*.json) checked against the model card's table
// [gpt-oss-card]; the module list is transformers' modeling_gpt_oss.py [transformers-code].
#include <catch2/catch.hpp>

#include <string>

#include "checkpoint_files.h"
#include "component_lookup.h"
#include "estimate.h"
#include "inference/kv_cache.h"
#include "model/gguf.h"
#include "model/hf_config.h"
#include "model/layer_tensors.h"
#include "model/presets.h"
#include "param_count.h"
#include "repo_files.h"

using namespace vl;

namespace {

std::string config_text(const std::string& name) { return test::read_text(std::string(VRAMLENS_TEST_DATA) + "/configs/" + name); }

ModelSpec import_config(const std::string& name) {
    Result<ModelSpec> r = import_hf_config(config_text(name));
    INFO((r.errors.empty() ? std::string() : to_string(r.errors[0])));
    REQUIRE(r.ok());
    return *r;
}

// One gpt-oss layer by hand (d 2880, 64 q heads and 8 KV heads of 64, experts of I = 2880):
// attention q [4096, 2880] + 4096, k and v [512, 2880] + 512, o [2880, 4096] + 2880, sinks 64 = 26,550,144;
// one expert gate + up + down 3 x 2880 x 2880 = 24,883,200 matrix weights + biases 2 x 2880 + 2880 = 24,891,840;
// the router E x 2880 + E; two RMSNorms 5,760. Embedding and unembedding 201,088 x 2880 = 579,133,440 each.
constexpr int64_t kAttention = 26550144, kExpert = 24891840, kExpertMatrices = 24883200, kNorms = 5760, kVocabMatrix = 579133440;
constexpr int64_t router(int64_t e) { return e * 2880 + e; }
constexpr int64_t total(int64_t layers, int64_t e) {
    return layers * (kAttention + e * kExpert + router(e) + kNorms) + 2 * kVocabMatrix + 2880;
}

Scenario infer(const std::string& preset, WeightFormat f, Engine engine) {
    Scenario s;
    s.mode = Mode::Infer;
    s.model = find_model(preset)->spec;
    s.infer.weights = f;
    s.infer.engine = engine;
    return s;
}

double weights(const Estimate& e) {
    double w = 0;
    for (const Component& c : e.components)
        if (c.category == Category::Weights) w += c.bytes;
    return w;
}

}  // namespace

TEST_CASE("gpt-oss config.json: sinks, the biased router and experts, the alternating window (modeling_gpt_oss)") {
    const ModelSpec m = import_config("gpt-oss-20b.json");
    CHECK(m.model_type == "gpt_oss");
    CHECK(m.moe.num_experts == 32);
    CHECK(m.moe.top_k == 4);
    CHECK(m.moe.expert_ffn == 2880);  // intermediate_size is each expert's (GptOssExperts)
    CHECK(m.ffn == 0);
    CHECK(m.moe.router_bias);         // GptOssTopKRouter.bias [E]
    CHECK(m.attention_sinks);         // GptOssAttention.sinks [heads]
    CHECK((m.qkv_bias && m.attn_out_bias && m.mlp_bias));
    CHECK_FALSE(m.tied_embeddings);
    CHECK(m.head_dim == 64);
    CHECK(m.sliding_window == 128);
    // layer_types: sliding_attention at even layers, full_attention at odd ones.
    CHECK(layer_is_sliding(m, 0));
    CHECK_FALSE(layer_is_sliding(m, 1));
    CHECK(layer_is_sliding(m, 22));
    CHECK_FALSE(layer_is_sliding(m, 23));
    CHECK(import_config("gpt-oss-120b.json").moe.num_experts == 128);
    // One sink logit per head, split by head under tensor parallelism like q.
    int sinks = 0;
    for (const Tensor& t : layer_tensors(m, LayerKind{true, false}))
        if (std::string(t.name) == "sinks") {
            ++sinks;
            CHECK(t.params() == 64);
            CHECK(tensor_shard(t, 8, 1, 1) == 8);
        }
    CHECK(sinks == 1);
}

TEST_CASE("gpt-oss config.json: a layer_types list the window rule does not place is an error naming the layer") {
    std::string text = config_text("gpt-oss-20b.json");
    const std::string first = "\"sliding_attention\",\n    \"full_attention\"";
    const size_t at = text.find(first);
    REQUIRE(at != std::string::npos);
    text.replace(at, first.size(), "\"full_attention\",\n    \"full_attention\"");
    Result<ModelSpec> r = import_hf_config(text);
    REQUIRE_FALSE(r.ok());
    CHECK(to_string(r.errors[0]).find("layer_types: [0] must be \"sliding_attention\"") == 0);
}

TEST_CASE("gpt-oss parameter counts: hand sums from the config equal the model card's table") {
    // 20b: 24 layers x (26,550,144 + 32 x 24,891,840 + 92,192 + 5,760) + 2 x 579,133,440 + 2880 = 20,914,757,184
    // (card: 20.91B total); 120b: 36 x (... 128 experts, router 368,768 ...) = 116,829,156,672 (card: 116.83B).
    STATIC_REQUIRE(total(24, 32) == 20914757184);
    STATIC_REQUIRE(total(36, 128) == 116829156672);
    const ParamCounts small = count_params(import_config("gpt-oss-20b.json"));
    const ParamCounts large = count_params(import_config("gpt-oss-120b.json"));
    CHECK(small.total == 20914757184);
    CHECK(large.total == 116829156672);
    CHECK(static_cast<double>(small.total) == Approx(20.91e9).margin(0.005e9));
    CHECK(static_cast<double>(large.total) == Approx(116.83e9).margin(0.005e9));
    // The card's "active" counts the unembedding but not the embedding table (a lookup): 3.61B and 5.13B.
    // vramlens's active_per_token holds both: minus the embedding, 24 x (26,550,144 + 4 x 24,891,840 +
    // 92,192 + 5,760) + 579,133,440 + 2880 = 3,608,307,264, and for 120b 5,132,849,472.
    CHECK(small.active_per_token - small.embedding == 3608307264);
    CHECK(large.active_per_token - large.embedding == 5132849472);
    CHECK(static_cast<double>(small.active_per_token - small.embedding) == Approx(3.61e9).margin(0.005e9));
    CHECK(static_cast<double>(large.active_per_token - large.embedding) == Approx(5.13e9).margin(0.005e9));
    // The presets are these configs.
    CHECK(count_params(find_model("gpt-oss-20b")->spec).total == 20914757184);
    CHECK(count_params(find_model("gpt-oss-120b")->spec).total == 116829156672);
}

TEST_CASE("gpt-oss MXFP4: only the routed experts' matrices at 4.25 bits, and the card's checkpoint sizes") {
    // 120b: 36 x 128 x 24,883,200 = 114,661,785,600 expert matrix weights x 4.25 / 8 = 60,914,073,600 B
    // [ocp-mx-spec]; the other 2,167,371,072 parameters (attention and its sinks, router, expert biases,
    // norms, embedding, unembedding) in bf16: 4,334,742,144 B. 65,248,815,744 B = 60.77 GiB (card: 60.8 GiB).
    // 20b: 24 x 32 x 24,883,200 x 4.25 / 8 = 10,152,345,600 + 1,804,459,584 x 2 = 13,761,264,768 B = 12.82 GiB
    // (card: 12.8 GiB).
    STATIC_REQUIRE(36 * 128 * kExpertMatrices == 114661785600);
    const Estimate large = estimate(infer("gpt-oss-120b", WeightFormat::MXFP4, Engine::VLLM));
    const Estimate small = estimate(infer("gpt-oss-20b", WeightFormat::MXFP4, Engine::VLLM));
    REQUIRE(large.ok());
    REQUIRE(small.ok());
    // The checkpoint: the weights less what vLLM's MoE kernel adds at load (weights.moe_layout and, Triton on
    // Hopper, weights.moe_scale_copy: below).
    const auto at_load = [](const Estimate& e) { return test::bytes_of(e, "weights.moe_layout") + test::bytes_of(e, "weights.moe_scale_copy"); };
    const double checkpoint_large = weights(large) - at_load(large);
    const double checkpoint_small = weights(small) - at_load(small);
    CHECK(checkpoint_large == 65248815744.0);
    CHECK(checkpoint_small == 13761264768.0);
    CHECK(checkpoint_large / (1 << 30) == Approx(60.8).margin(0.05));
    CHECK(checkpoint_small / (1 << 30) == Approx(12.8).margin(0.05));
    // The derivation names the experts apart from the other matrices.
    const Component* linear = test::find(large, "weights.linear");
    REQUIRE(linear != nullptr);
    // The derivation names the experts, the attention (sinks included) and the router apart: 36 x 26,550,144
    // attention and 36 x 368,768 router parameters in bf16, the expert biases 36 x 128 x 8640 the other linear.
    CHECK(linear->formula() == "(P_experts * (4 + 8 / 32) + (P_attention + P_router + P_other_linear) * 16) / 8");
    CHECK(linear->substituted().find("114,661,785,600 * (4 + 8 / 32) + (955,805,184 + 13,275,648 + 39,813,120) * 16") !=
          std::string_view::npos);
}

TEST_CASE("gpt-oss in llama.cpp: the sliding-window and full KV buffers of ollama #16480") {
    // llama_kv_cache_iswa at n_ctx 262144 over 2 sequences (131072 cells each), -ub 1024, f16: the 18 full
    // layers 2 x 131072 x 18 x 8 x 64 x 2 (K, V) x 2 B = 9216 MiB; the 18 window layers
    // GGML_PAD(128 + 1024, 256) = 1280 cells per sequence: 2 x 1280 x 18 x 2048 B = 90 MiB [llama-cpp-swa].
    CHECK(llamacpp_swa_cells(128, 1024) == 1280);
    // The weights' format does not change the cache (vramlens has no llama.cpp MXFP4_MOE mix yet: F16 here).
    Scenario s = infer("gpt-oss-120b", WeightFormat::FP16, Engine::LlamaCpp);
    s.infer.batch = 2;
    s.infer.context = 131072;
    s.infer.ubatch = 1024;
    s.infer.kv_dtype = KvDtype::FP16;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    CHECK(test::bytes_of(e, "kv_cache") == (9216.0 + 90.0) * 1024 * 1024);
}

TEST_CASE("gpt-oss GGUF: llama.cpp's gpt-oss metadata gives the same model as config.json") {
    // The keys convert_hf_to_gguf writes for gpt-oss-20b (a llama.cpp load log lists them).
    test::GgufWriter w;
    w.string("general.architecture", "gpt-oss");
    w.u32("gpt-oss.block_count", 24);
    w.u32("gpt-oss.context_length", 131072);
    w.u32("gpt-oss.embedding_length", 2880);
    w.u32("gpt-oss.attention.head_count", 64);
    w.u32("gpt-oss.attention.head_count_kv", 8);
    w.u32("gpt-oss.attention.key_length", 64);
    w.u32("gpt-oss.attention.value_length", 64);
    w.u32("gpt-oss.attention.sliding_window", 128);
    w.u32("gpt-oss.expert_count", 32);
    w.u32("gpt-oss.expert_used_count", 4);
    w.u32("gpt-oss.expert_feed_forward_length", 2880);
    w.u32("gpt-oss.vocab_size", 201088);
    w.tensor("output.weight", {2880, 201088}, 1, 2880ull * 201088 * 2);
    Result<GgufHeader> h = read_gguf_header(w.header());
    REQUIRE(h.ok());
    Result<std::string> c = gguf_hf_config(*h);
    for (const auto& e : c.errors) INFO(to_string(e));
    REQUIRE(c.ok());
    Result<ModelSpec> m = import_hf_config(*c);
    for (const auto& e : m.errors) INFO(to_string(e));
    REQUIRE(m.ok());
    CHECK(count_params(*m).total == 20914757184);
    CHECK(m->sliding_window == 128);
    CHECK(m->attention_sinks);
}

TEST_CASE("gpt-oss training: counted in bf16 as transformers dequantizes the MXFP4 experts, with a warning") {
    Scenario s;
    s.mode = Mode::FineTune;
    s.model = find_model("gpt-oss-20b")->spec;
    s.train.seq_len = 2048;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    bool warned = false;
    for (const std::string& w : e.warnings) warned = warned || w.find("dequantized") != std::string::npos;
    CHECK(warned);
}

namespace {
Scenario on_vllm(const std::string& preset, const std::string& gpu, const std::string& release, VllmMoeBackend backend = VllmMoeBackend::Auto) {
    Scenario s = infer(preset, WeightFormat::MXFP4, Engine::VLLM);
    s.gpu.name = gpu;
    s.infer.vllm_version = release;
    s.infer.vllm_moe_backend = backend;
    s.infer.context = 4096;
    return s;
}
double layout_bytes(const Scenario& s) {
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    return test::bytes_of(e, "weights.moe_layout");
}
}  // namespace

TEST_CASE("gpt-oss on vLLM: the MoE backend's padding of the MXFP4 experts, by GPU and release [vllm-mxfp4]") {
    // By hand, per expert and layer (I = h = 2880, MXFP4 at 4.25 bits = 0.53125 B a weight, checkpoint biases
    // 2I + h = 8640 bf16 = 17,280 B); gpt-oss-120b has 36 x 128 = 4608 experts-by-layers, 20b 24 x 32 = 768.
    //   Marlin (I -> 2944, a multiple of 128; h -> 3072, of 256; bf16 biases):
    //     3 x (2944 x 3072 - 2880 x 2880) = 2,248,704 weights x 0.53125 = 1,194,624 B + (2 x 2944 + 3072) x 2 - 17,280 = 640 B
    //     = 1,195,264 B; 120b x 4608 = 5,507,776,512 B; 20b x 768 = 917,962,752 B.
    //     120b: 65,248,815,744 + 5,507,776,512 = 70,756,592,256 B = 65.90 GiB; vLLM 0.10.1 on an H100 logged
    //     "Model loading took 65.9651 GiB" (vLLM #23278, PyTorch 2.7.1: no Triton path, so Marlin).
    //     20b: 13,761,264,768 + 917,962,752 = 14,679,227,520 B = 13.67 GiB; vLLM 0.19.0 on an A100 logged 13.72 GiB
    //     (tests/data/accuracy/vllm-logs-candidates.json id 28; SM 8.0 has no Triton path: Marlin).
    //   Triton (I -> a multiple of 64: 2880 already; h kept; biases fp32): 8640 x (4 - 2) = 17,280 B; 120b 79,626,240 B.
    //   FlashInfer TRTLLM (both -> 3072; fp32 biases): 3 x (3072^2 - 2880^2) = 3,428,352 x 0.53125 = 1,821,312 B
    //     + 9216 x 4 - 17,280 = 19,584 B = 1,840,896 B; 120b x 4608 = 8,482,848,768 B.
    //   FlashInfer CUTLASS (both -> 2944; bf16): 3 x (2944^2 - 2880^2) = 1,118,208 x 0.53125 = 594,048 B
    //     + 8832 x 2 - 17,280 = 384 B = 594,432 B; 120b x 4608 = 2,739,142,656 B.
    const std::string h100 = "NVIDIA H100 80GB HBM3 (SXM5)";
    CHECK(layout_bytes(on_vllm("gpt-oss-120b", h100, "0.10.1")) == 5507776512.0);
    CHECK(layout_bytes(on_vllm("gpt-oss-20b", h100, "0.10.1")) == 917962752.0);
    CHECK(layout_bytes(on_vllm("gpt-oss-20b", "NVIDIA A100 80GB (SXM4)", "0.19.0")) == 917962752.0);
    CHECK(layout_bytes(on_vllm("gpt-oss-120b", h100, "0.14.1")) == 79626240.0);
    CHECK(layout_bytes(on_vllm("gpt-oss-120b", h100, "0.21")) == 79626240.0);
    CHECK(layout_bytes(on_vllm("gpt-oss-20b", h100, "0.14.1")) == 768.0 * 17280);
    CHECK(layout_bytes(on_vllm("gpt-oss-120b", "NVIDIA B200 180GB", "0.14.1")) == 8482848768.0);
    CHECK(layout_bytes(on_vllm("gpt-oss-120b", "NVIDIA GeForce RTX 5090 32GB", "0.14.1")) == 5507776512.0);  // SM 12.0: Marlin
    // Chosen by the user (vllm serve --moe-backend, VLLM_MXFP4_USE_MARLIN, VLLM_USE_FLASHINFER_MOE_MXFP4_BF16):
    CHECK(layout_bytes(on_vllm("gpt-oss-120b", h100, "0.14.1", VllmMoeBackend::Marlin)) == 5507776512.0);
    CHECK(layout_bytes(on_vllm("gpt-oss-120b", h100, "0.14.1", VllmMoeBackend::FlashInferCutlass)) == 2739142656.0);

    // Tensor parallel 2 splits each expert's intermediate size: I = 1440 per GPU.
    //   Marlin: 1440 -> 1536, h -> 3072: 3 x (1536 x 3072 - 1440 x 2880) = 1,714,176 x 0.53125 = 910,656 B
    //     + (2 x 1536 + 3072) x 2 - (2 x 1440 + 2880) x 2 = 768 B = 911,424 B; x 4608 = 4,199,841,792 B.
    //   Triton: 1440 -> 1472: 3 x 32 x 2880 = 276,480 x 0.53125 = 146,880 B + (2 x 1472 + 2880) x 4 - 5760 x 2 = 11,776 B
    //     = 158,656 B; x 4608 = 731,086,848 B.
    Scenario tp2 = on_vllm("gpt-oss-120b", h100, "0.10.1");
    tp2.parallel.tp = 2;
    tp2.gpu_count = 2;
    CHECK(layout_bytes(tp2) == 4199841792.0);
    tp2.infer.vllm_version = "0.14.1";
    CHECK(layout_bytes(tp2) == 731086848.0);

    // The derivation shows the padded sizes.
    const Estimate e = estimate(on_vllm("gpt-oss-120b", h100, "0.10.1"));
    const Component* c = test::find(e, "weights.moe_layout");
    REQUIRE(c != nullptr);
    CHECK(std::string(c->label).find("Marlin") != std::string::npos);
    CHECK(c->formula().find("I_pad * h_pad - I * h") != std::string_view::npos);
    CHECK(c->substituted().find("2,944 * 3,072 - 2,880 * 2,880") != std::string_view::npos);
}

TEST_CASE("gpt-oss on vLLM's Triton kernel on Hopper: the expert scales are held twice, the swizzled copy padded [vllm-mxfp4] [triton-kernels-layouts]") {
    // By hand, per expert and layer (I = h = 2880; Triton pads I to a multiple of 64: 2880 kept): the gate-and-up
    // scales [2I, h/32] = [5760, 90] get rows padded to 256 -> 5888 (23 x 256) and 90 columns (even); the down
    // scales [h, I/32] = [2880, 90] -> 3072 x 90. 5888 x 90 + 3072 x 90 = 529,920 + 276,480 = 806,400 B.
    //   120b: 36 x 128 = 4608 experts-by-layers -> 3,715,891,200 B; 20b: 24 x 32 = 768 -> 619,315,200 B.
    const std::string h100 = "NVIDIA H100 80GB HBM3 (SXM5)";
    const auto copy = [](const Scenario& s) {
        const Estimate e = estimate(s);
        REQUIRE(e.ok());
        return test::bytes_of(e, "weights.moe_scale_copy");
    };
    CHECK(copy(on_vllm("gpt-oss-120b", h100, "0.14.1")) == 3715891200.0);
    CHECK(copy(on_vllm("gpt-oss-20b", h100, "0.14.1")) == 619315200.0);
    // vLLM #33155 logged "Model loading took 64.38 GiB" for 120b on an H100 with the Triton backend: the checkpoint
    // (65,248,815,744 B, above) + fp32 biases (79,626,240 B) + this copy = 69,044,333,184 B = 64.30 GiB.
    const Estimate e = estimate(on_vllm("gpt-oss-120b", h100, "0.14.1"));
    double weights = 0;
    for (const Component& c : e.components)
        if (c.category == Category::Weights) weights += c.bytes;
    CHECK(weights / (1024.0 * 1024 * 1024) == Approx(64.38).epsilon(0.005));

    // Tensor parallel 2: I = 1440 -> 1472 (Triton's 64). Gate-and-up [2944, 90] -> 3072 x 90 = 276,480; down
    // [2880, 46] -> 3072 x 46 = 141,312 (46 is even): 417,792 B x 4608 = 1,925,185,536 B on each GPU.
    Scenario tp2 = on_vllm("gpt-oss-120b", h100, "0.14.1");
    tp2.parallel.tp = 2;
    tp2.gpu_count = 2;
    CHECK(copy(tp2) == 1925185536.0);

    // Marlin repacks the scales in place of the loaded ones (no copy); before vLLM 0.12 Hopper ran Marlin.
    CHECK(test::find(estimate(on_vllm("gpt-oss-120b", h100, "0.10.1")), "weights.moe_scale_copy") == nullptr);
    CHECK(test::find(estimate(on_vllm("gpt-oss-120b", h100, "0.14.1", VllmMoeBackend::Marlin)), "weights.moe_scale_copy") == nullptr);
    // Triton forced on a B200 uses another scale layout: not counted, and said.
    const Estimate b200 = estimate(on_vllm("gpt-oss-120b", "NVIDIA B200 180GB", "0.14.1", VllmMoeBackend::Triton));
    REQUIRE(b200.ok());
    CHECK(test::find(b200, "weights.moe_scale_copy") == nullptr);
    bool warned = false;
    for (const std::string& w : b200.warnings) warned = warned || w.find("Triton MoE kernel off Hopper") != std::string::npos;
    CHECK(warned);
    // The derivation names the padded rows.
    const Component* c = test::find(e, "weights.moe_scale_copy");
    REQUIRE(c != nullptr);
    CHECK(c->substituted().find("5,888") != std::string_view::npos);
}

TEST_CASE("gpt-oss on vLLM: the padded experts leave less for the KV pool, and ROCm's padding is not counted but warned of") {
    const std::string h100 = "NVIDIA H100 80GB HBM3 (SXM5)";
    Scenario marlin = on_vllm("gpt-oss-20b", h100, "0.14.1", VllmMoeBackend::Marlin);
    Scenario cutlass = on_vllm("gpt-oss-20b", h100, "0.14.1", VllmMoeBackend::FlashInferCutlass);
    const Estimate a = estimate(marlin), b = estimate(cutlass);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    // Marlin's 917,962,752 B against CUTLASS's 768 x 594,432 = 456,523,776 B: the pool is 461,438,976 B smaller.
    CHECK(b.kv.pool_bytes - a.kv.pool_bytes == Approx(917962752.0 - 456523776.0).margin(a.kv.bytes_per_token * marlin.infer.block_size));

    const Estimate amd = estimate(on_vllm("gpt-oss-20b", "AMD Instinct MI300X 192GB", "0.14.1"));
    REQUIRE(amd.ok());
    CHECK(test::find(amd, "weights.moe_layout") == nullptr);
    bool warned = false;
    for (const std::string& w : amd.warnings) warned = warned || w.find("vLLM on ROCm") == 0;
    CHECK(warned);
}
