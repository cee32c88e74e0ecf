// KV cache: reference cases 5, 23, 26, 31, 32 (tests/data/inference/cases.md) and hand-derived
// cases for GQA, MQA, sliding windows, quantized KV, paged blocks and TP > kv_heads.
#include <catch2/catch.hpp>

#include <string>

#include "estimate.h"
#include "inference/kv_cache.h"
#include "inference_models.h"

using namespace vl;
using Catch::Matchers::WithinAbs;

static double per_token(const ModelSpec& m, KvDtype t = KvDtype::FP16, int64_t tp = 1) {
    return kv_bytes_per_token(m, t, tp, 0, m.layers);
}

TEST_CASE("case 32: KV bytes per token, fp16, 2 * L * kv_heads * head_dim * 2") {
    // Values from cases.md #32 (vLLM paper Sec 3 formula generalised to GQA/MQA).
    CHECK(per_token(test::llama2_7b()) == 524288);    // 2*32*32*128*2
    CHECK(per_token(test::llama2_13b()) == 819200);   // 2*40*40*128*2
    CHECK(per_token(test::llama2_70b()) == 327680);   // 2*80*8*128*2
    CHECK(per_token(test::llama3_8b()) == 131072);    // 2*32*8*128*2
    CHECK(per_token(test::llama3_70b()) == 327680);   // 2*80*8*128*2
    CHECK(per_token(test::mistral_7b()) == 131072);   // 2*32*8*128*2
    CHECK(per_token(test::qwen25_7b()) == 57344);     // 2*28*4*128*2
    CHECK(per_token(test::qwen3_06b()) == 114688);    // 2*28*8*128*2
    CHECK(per_token(test::opt_13b()) == 819200);      // 2*40*40*128*2
    CHECK(per_token(test::octocoder()) == 20480);     // MQA: 2*40*1*128*2
    CHECK(per_token(test::gpt3_175b()) == 4718592);   // 2*96*96*128*2
}

TEST_CASE("case 32 cross-checks: llama.cpp logs 1024 MiB / 1024 MiB / 448 MiB") {
    // llama-2-7b at 2048 ctx, llama-3-8b at 8192 ctx, qwen3-0.6b at 4096 ctx (cases.md #32 notes).
    CHECK(kv_sequence_bytes(test::llama2_7b(), KvDtype::FP16, 1, 0, 32, 2048, 1, true) == 1024.0 * 1024 * 1024);
    CHECK(kv_sequence_bytes(test::llama3_8b(), KvDtype::FP16, 1, 0, 32, 8192, 1, true) == 1024.0 * 1024 * 1024);
    CHECK(kv_sequence_bytes(test::qwen3_06b(), KvDtype::FP16, 1, 0, 28, 4096, 1, true) == 448.0 * 1024 * 1024);
}

TEST_CASE("case 23: vLLM paper OPT-13B, 800 KiB per token and 1.6 GB per 2048-token request") {
    const ModelSpec m = test::opt_13b();
    CHECK(per_token(m) == 800 * 1024);  // paper: "800 KB" = 2 * 5120 * 40 * 2 B
    const double request = kv_sequence_bytes(m, KvDtype::FP16, 1, 0, m.layers, 2048, 16, true);
    CHECK(request == 819200.0 * 2048);                  // 1,677,721,600 B = 1.5625 GiB
    CHECK_THAT(request / 1e9, WithinAbs(1.6, 0.1));     // the paper's rounded "1.6 GB"
}

TEST_CASE("case 31: DeepSeek-V3 MLA caches (kv_lora_rank + rope dim) per layer, no factor 2") {
    const ModelSpec m = test::deepseek_v3();
    CHECK(kv_elements_per_token_layer(m, 1) * m.layers == 35136);  // (512 + 64) * 61
    CHECK(per_token(m, KvDtype::BF16) == 70272);                    // * 2 bytes
    // The latent is shared by all heads, so TP does not split it (each rank keeps a replica).
    CHECK(per_token(m, KvDtype::BF16, 8) == 70272);
    // For comparison, decompressed K (128 x 192) and V (128 x 128): 4,997,120 B per token.
    CHECK(61 * 128 * (192 + 128) * 2 == 4997120);
}

TEST_CASE("case 5: octocoder KV at 16000 tokens, MHA vs MQA") {
    // HF doc: 2 * 16000 * n_layer * n_embd = 7,864,320,000 floats if every head were cached (MHA).
    ModelSpec mha = test::octocoder();
    mha.kv_heads = mha.heads;
    CHECK(kv_elements_per_token_layer(mha, 1) * mha.layers * 16000 == 7864320000LL);
    CHECK_THAT(kv_sequence_bytes(mha, KvDtype::FP16, 1, 0, 40, 16000, 1, true) / 1e9, WithinAbs(15.73, 0.01));  // "~15 GB"
    // MQA (one KV head of 128): 2 * 16000 * 40 * 128 * 2 B = 327.68 MB, the doc's "< 400 MB".
    const double mqa = kv_sequence_bytes(test::octocoder(), KvDtype::FP16, 1, 0, 40, 16000, 1, true);
    CHECK(mqa == 327680000.0);
}

TEST_CASE("case 26: llama.cpp KV for Llama-3-8B F16 at n_ctx 8192 is 512 MiB K + 512 MiB V") {
    const Scenario s = test::llamacpp_case26();
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    double kv = 0;
    for (const Component& c : e.components) if (std::string(c.id) == "kv_cache") kv = c.bytes;
    CHECK(kv == 1024.0 * 1024 * 1024);  // log: "KV self size = 1024.00 MiB, K (f16): 512.00 MiB, V (f16): 512.00 MiB"
}

TEST_CASE("GQA: KV scales with kv_heads, not heads (hand-derived)") {
    ModelSpec m = test::llama3_8b();  // 32 heads, 8 KV heads
    const double gqa = per_token(m);
    m.kv_heads = 32;
    CHECK(per_token(m) == 4 * gqa);  // 32/8 = 4x more with MHA
    m.kv_heads = 1;
    CHECK(per_token(m) == gqa / 8);  // MQA: 2*32*1*128*2 = 16384
    CHECK(per_token(m) == 16384);
}

TEST_CASE("sliding window: sliding layers hold at most the window (hand-derived)") {
    const ModelSpec m = test::mistral_7b();  // window 4096 on every layer
    // 32k context: 32 layers * 4096 tokens * 2*8*128*2 B = 512 MiB, not 4 GiB.
    CHECK(kv_sequence_bytes(m, KvDtype::FP16, 1, 0, 32, 32768, 1, true) == 32.0 * 4096 * 4096);
    CHECK(kv_sequence_bytes(m, KvDtype::FP16, 1, 0, 32, 32768, 1, false) == 32.0 * 32768 * 4096);
    // Shorter than the window: no cap applies.
    CHECK(kv_sequence_bytes(m, KvDtype::FP16, 1, 0, 32, 1000, 1, true) == 32.0 * 1000 * 4096);
    // Gemma-2 style pattern 2: layers 0,2,4.. slide, 1,3,5.. are global.
    ModelSpec g = m;
    g.sliding_window_pattern = 2;
    CHECK(layer_is_sliding(g, 0));
    CHECK_FALSE(layer_is_sliding(g, 1));
    // 16 sliding layers * 4096 + 16 global layers * 32768 tokens, 4096 B per layer-token.
    CHECK(kv_sequence_bytes(g, KvDtype::FP16, 1, 0, 32, 32768, 1, true) == (16.0 * 4096 + 16.0 * 32768) * 4096);
}

TEST_CASE("quantized KV: bytes per element with scale overhead (hand-derived)") {
    const ModelSpec m = test::llama3_8b();
    CHECK(per_token(m, KvDtype::FP8) == 65536);          // 1 byte: half of fp16
    CHECK(per_token(m, KvDtype::INT8) == 131072 * 34.0 / 64);  // q8_0: 34 bytes per 32 elements
    CHECK(per_token(m, KvDtype::INT8) == 69632);
    CHECK(per_token(m, KvDtype::INT4) == 36864);          // q4_0: 18 bytes per 32: 65536 elem * 18/32
}

TEST_CASE("TP > kv_heads: each rank keeps a replica of one KV head (hand-derived)") {
    const ModelSpec m = test::llama3_8b();  // 8 KV heads
    CHECK(per_token(m, KvDtype::FP16, 2) == 131072 / 2);  // 4 heads per rank
    CHECK(per_token(m, KvDtype::FP16, 8) == 131072 / 8);  // 1 head per rank: 2*32*1*128*2 = 16384
    CHECK(per_token(m, KvDtype::FP16, 16) == 16384);      // 16 ranks, still 1 (replicated) head each
    CHECK(per_token(test::octocoder(), KvDtype::FP16, 4) == 20480);  // MQA never splits
}

TEST_CASE("paged blocks: each sequence rounds up to whole blocks (hand-derived)") {
    const ModelSpec m = test::llama3_8b();
    // 17 tokens in blocks of 16 -> 2 blocks = 32 tokens * 128 KiB.
    CHECK(kv_sequence_bytes(m, KvDtype::BF16, 1, 0, 32, 17, 16, false) == 32.0 * 131072);
    CHECK(kv_sequence_bytes(m, KvDtype::BF16, 1, 0, 32, 16, 16, false) == 16.0 * 131072);
}

TEST_CASE("MLA by version: the latent cache (current engines) vs the decompressed per-head K and V of the older remote code") {
    // DeepSeek-V3, 61 layers, 128 heads, kv_lora_rank 512, rope 64, nope 128, v_head_dim 128.
    // Latent (DeepSeek-V2 paper Table 1; Transformers >= 5, vLLM, llama.cpp): (512 + 64) * 61 * 2 B.
    // Remote-code modeling_deepseek.py: key_states (b, 128, s, 128 + 64) and value_states
    // (b, 128, s, 128) go into past_key_value.update: 128 * (128 + 64 + 128) * 61 * 2 B = 4,997,120 B.
    Scenario s;
    s.mode = Mode::Infer;
    s.model = test::deepseek_v3();
    s.infer.engine = Engine::Transformers;
    s.infer.kv_dtype = KvDtype::BF16;
    s.infer.context = 1000;
    s.gpu.memory_bytes = 8e12;  // holds the 671B weights: only the KV figures are read here
    const Estimate latent = estimate(s);
    REQUIRE(latent.ok());
    CHECK(latent.kv.bytes_per_token == 70272.0);
    s.infer.mla_cache = MlaCache::Decompressed;
    const Estimate full = estimate(s);
    REQUIRE(full.ok());
    CHECK(full.kv.bytes_per_token == 4997120.0);
    const Component* kv = nullptr;
    for (const Component& c : full.components) if (std::string(c.id) == "kv_cache") kv = &c;
    REQUIRE(kv != nullptr);
    CHECK(kv->bytes == 1000.0 * 4997120);
    CHECK(std::string(kv->source).find("[deepseek-v2-remote-code]") != std::string::npos);  // the derivation names the version's source
    // Tensor parallel splits the decompressed heads (the latent is replicated on every rank).
    ModelSpec m = test::deepseek_v3();
    m.mla.decompressed_cache = true;
    CHECK(per_token(m, KvDtype::BF16, 8) == 4997120.0 / 8);
    m.mla.decompressed_cache = false;
    CHECK(per_token(m, KvDtype::BF16, 8) == 70272.0);
}
