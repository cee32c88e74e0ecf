// Transformers inference by attention implementation and cache (issue 14, mechanism 4): eager
// attention's scores, the sliding-window cache of DynamicCache(config) versus the full-length one,
// the cache growth copy of DynamicLayer.update, and prefill logits with logits_to_keep. Every
// expected value is derived by hand from the tensors transformers allocates [transformers-code]
// (docs/sources.md names the files and commits read).
#include <catch2/catch.hpp>

#include <string>

#include "estimate.h"
#include "inference/kv_cache.h"
#include "inference_models.h"
#include "scenario_json.h"

using namespace vl;

namespace {

const Component* find(const Estimate& e, const char* id) {
    for (const Component& c : e.components)
        if (std::string(c.id) == id) return &c;
    return nullptr;
}

double bytes(const Estimate& e, const char* id) {
    const Component* c = find(e, id);
    REQUIRE(c != nullptr);
    return c->bytes;
}

Scenario generate(const ModelSpec& m, int64_t context, int64_t prompt) {
    Scenario s;
    s.mode = Mode::Infer;
    s.model = m;
    s.infer.engine = Engine::Transformers;
    s.infer.weights = WeightFormat::BF16;
    s.infer.kv_dtype = KvDtype::BF16;
    s.infer.context = context;
    s.infer.prompt = prompt;
    return s;
}

bool has_error(const Scenario& s, const char* field) {
    for (const FieldError& e : validate(s))
        if (e.field == field) return true;
    return false;
}

}  // namespace

TEST_CASE("eager attention: scores, fp32 softmax and its 16-bit cast per head, plus the 4-D mask (hand-derived)") {
    // Llama-3-8B, 32 heads, one 4096-token prompt: 32 * 4096 * 4096 elements * (2 + 4 + 2) B
    // = 4 GiB, plus the (1, 1, 4096, 4096) bf16 mask = 32 MiB.
    Scenario s = generate(test::llama3_8b(), 4096 + 128, 4096);
    s.infer.flash_attention = false;
    const Estimate e = estimate(s);
    CHECK(bytes(e, "act.attention_scores") == 32.0 * 4096 * 4096 * 8 + 4096.0 * 4096 * 2);
    // Batch 2, tp 2: heads per rank 16, batch doubles every term.
    s.infer.batch = 2;
    s.parallel.tp = 2;
    s.gpu_count = 2;
    CHECK(bytes(estimate(s), "act.attention_scores") == 2.0 * 4096 * 4096 * (16 * 8 + 2));
    // SDPA / FlashAttention-2 keep no scores.
    s.infer.flash_attention = true;
    CHECK(find(estimate(s), "act.attention_scores") == nullptr);
}

TEST_CASE("sliding-window models: DynamicCache(config) keeps the window, the full cache every token (hand-derived)") {
    // Mistral-7B-v0.1: window 4096 on all 32 layers, 8 KV heads * 128 * 2 (K and V) * 2 B = 4096 B
    // per layer and token.
    const double per_layer_token = 2.0 * 8 * 128 * 2;
    Scenario s = generate(test::mistral_7b(), 32768, 1024);
    // A short prompt: after the first decode step each sliding layer holds window tokens.
    CHECK(bytes(estimate(s), "kv_cache") == 32.0 * 4096 * per_layer_token);
    // transformers < 4.56 (DynamicCache() without config): every token on every layer, 8x more.
    s.infer.sliding_window_cache = false;
    CHECK(bytes(estimate(s), "kv_cache") == 32.0 * 32768 * per_layer_token);
    // A 16k prompt prefilled at once: the window kept is a view of the prefill's 16k-token K/V, so
    // each sliding layer holds 16384 tokens until the first decode step.
    s.infer.sliding_window_cache = true;
    s.infer.prompt = 16384;
    CHECK(bytes(estimate(s), "kv_cache") == 32.0 * 16384 * per_layer_token);
    // The same prompt in 2048-token chunks: cat(window - 1 cached, 2048 new) = 6143 tokens at most.
    s.infer.prefill_chunk = 2048;
    CHECK(bytes(estimate(s), "kv_cache") == 32.0 * (2048 + 4095) * per_layer_token);
    // The derivation says which cache was assumed.
    const Estimate chunked = estimate(s);
    const Component* kv = find(chunked, "kv_cache");
    REQUIRE(kv != nullptr);
    CHECK_THAT(kv->source, Catch::Contains("DynamicSlidingWindowLayer"));
    s.infer.sliding_window_cache = false;
    CHECK_THAT(find(estimate(s), "kv_cache")->source, Catch::Contains("every layer keeps every token"));
}

TEST_CASE("DynamicLayer.update: one layer's old and new keys coexist while the cache grows (hand-derived)") {
    // Llama-3-8B at 8192 tokens: one layer's keys = 8192 * 8 KV heads * 128 * 2 B = 16 MiB, in decode only.
    Scenario s = generate(test::llama3_8b(), 8192, 1024);
    const Estimate e = estimate(s);
    const Component* g = find(e, "buffers.kv_growth");
    REQUIRE(g != nullptr);
    CHECK(g->bytes == 16.0 * 1024 * 1024);
    CHECK(g->phases == phase_bit(Phase::Step));
    // Every layer of Mistral slides: the longest layer holds the window (prompt 1024 < window).
    const Estimate w = estimate(generate(test::mistral_7b(), 32768, 1024));
    CHECK(bytes(w, "buffers.kv_growth") == 4096.0 * 8 * 128 * 2);
}

TEST_CASE("prefill logits: last position with logits_to_keep = 1, every prompt position with 0 (hand-derived)") {
    // Llama-3-8B, vocab 128256, 8192-token prompt.
    Scenario s = generate(test::llama3_8b(), 8192 + 256, 8192);
    // generate's default: the last position in bf16 + its fp32 copy = 128256 * 6 B.
    const Estimate last = estimate(s);
    CHECK(bytes(last, "logits") == 128256.0 * 6);
    CHECK(find(last, "logits.decode") == nullptr);
    // Every position (older transformers upcast them in forward): 8192 * 128256 * (2 + 4) B = 5.87 GiB
    // in prefill; decode steps still hold one position's.
    s.infer.logits_to_keep = 0;
    const Estimate all = estimate(s);
    CHECK(bytes(all, "logits") == 8192.0 * 128256 * 6);
    CHECK(find(all, "logits")->phases == phase_bit(Phase::Forward));
    CHECK(bytes(all, "logits.decode") == 128256.0 * 6);
    // The prefill peak grows by the kept positions' logits less the last one's.
    const unsigned allocated = kAllCategories & ~category_bit(Category::Overhead);  // without the allocator reserve, which scales with the peak
    CHECK(phase_totals(all.components, allocated).gpu[1] - phase_totals(last.components, allocated).gpu[1] == 8192.0 * 128256 * 6 - 128256.0 * 6);
    // logits_to_keep = 4: four positions.
    s.infer.logits_to_keep = 4;
    CHECK(bytes(estimate(s), "logits") == 4.0 * 128256 * 6);
}

TEST_CASE("infer.logits_to_keep and infer.sliding_window_cache: bad values name the field") {
    Scenario s = generate(test::llama3_8b(), 4096, 0);
    s.infer.logits_to_keep = -1;
    CHECK(has_error(s, "infer.logits_to_keep"));
    s.infer.logits_to_keep = 4097;
    CHECK(has_error(s, "infer.logits_to_keep"));
    s.infer.logits_to_keep = 4096;
    CHECK_FALSE(has_error(s, "infer.logits_to_keep"));
    const auto bad = scenario_from_json(R"({"version": 1, "model": "llama-3-8b", "mode": "infer", "infer": {"sliding_window_cache": "yes"}})");
    REQUIRE_FALSE(bad.ok());
    REQUIRE_FALSE(bad.errors.empty());
    CHECK(bad.errors.front().field == "infer.sliding_window_cache");
    const auto good = scenario_from_json(R"({"version": 1, "model": "llama-3-8b", "mode": "infer", "infer": {"sliding_window_cache": false, "logits_to_keep": 0}})");
    REQUIRE(good.ok());
    CHECK_FALSE(good->infer.sliding_window_cache);
    CHECK(good->infer.logits_to_keep == 0);
}

TEST_CASE("a prompt shorter than the context: the prefill peaks over the prompt's cache, decode over the whole (hand-derived)") {
    // Llama-3-8B: 32 layers * 2 * 8 * 128 * 2 B = 131072 B per token.
    Scenario s = generate(test::llama3_8b(), 8192, 1024);
    const Estimate e = estimate(s);
    const Component* decode = find(e, "kv_cache");
    const Component* prefill = find(e, "prefill.kv_cache");
    REQUIRE(decode != nullptr);
    REQUIRE(prefill != nullptr);
    CHECK(decode->bytes == 8192.0 * 131072);
    CHECK(decode->phases == phase_bit(Phase::Step));
    CHECK(prefill->bytes == 1024.0 * 131072);
    CHECK(prefill->phases == phase_bit(Phase::Forward));
    // The whole context as the prompt (the default): one cache, live in both phases.
    s.infer.prompt = 0;
    const Estimate whole = estimate(s);
    CHECK(find(whole, "prefill.kv_cache") == nullptr);
    CHECK(find(whole, "kv_cache")->phases == (phase_bit(Phase::Forward) | phase_bit(Phase::Step)));
}

TEST_CASE("prefill: the embedding output and the rotary cos and sin stay live beside the layer at its MLP (hand-derived)") {
    // LlamaModel.forward keeps inputs_embeds while its loop rebinds hidden_states, and rotary_emb's cos
    // and sin ([b, q, head_dim] each, bf16; generate passes position ids of shape [b, q]) serve every
    // layer [transformers-code]. Llama-3-8B dims, 12 sequences of a 16,384-token prompt:
    // 12 * 16,384 * (4,096 + 2 * 128) * 2 = 196,608 * 8,704 = 1,711,276,032 B (8.5 KiB a token).
    Scenario s = generate(test::llama3_8b(), 16448, 16384);
    s.infer.batch = 12;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    const Component* c = find(e, "act.prefill_inputs");
    REQUIRE(c != nullptr);
    CHECK(c->bytes == 1711276032.0);
    CHECK(c->phases == phase_bit(Phase::Forward));  // the prefill: decode's one token a sequence is not counted
    // The MLP's own live tensors beside them are unchanged: 196,608 * (3 * 14,336 + 3 * 4,096) * 2.
    CHECK(bytes(e, "act.prefill_mlp") == 196608.0 * (3 * 14336 + 3 * 4096) * 2);
    // MLA rotates qk_rope_head_dim of each head (DeepSeek-V3: 64): 4,096 * (7,168 + 2 * 64) * 2.
    CHECK(bytes(estimate(generate(test::deepseek_v3(), 4160, 4096)), "act.prefill_inputs") == 4096.0 * (7168 + 2 * 64) * 2);
    // Learned positions (OPT-13B): no rotary tables, the embedding output alone: 2 * 1,024 * 5,120 * 2.
    Scenario opt = generate(test::opt_13b(), 2048, 1024);
    opt.infer.batch = 2;
    CHECK(bytes(estimate(opt), "act.prefill_inputs") == 2.0 * 1024 * 5120 * 2);
}

TEST_CASE("repeat_kv: SDPA before transformers PR #39412 and eager attention copy K and V to every head in each decode step (hand-derived)") {
    // Llama-3-8B at 8192 tokens, 32 query heads over 8 KV heads, head_dim 128, bf16: the cache's growth copy is one layer's
    // keys, 8192 * 8 * 128 * 2 B = 16 MiB; repeat_kv's two copies are 2 * 8192 * 32 * 128 * 2 B = 128 MiB. The step holds the
    // larger [transformers-pr39412].
    Scenario s = generate(test::llama3_8b(), 8192, 1024);
    CHECK(bytes(estimate(s), "buffers.kv_growth") == 16.0 * 1024 * 1024);
    s.infer.sdpa_repeats_kv = true;
    const Estimate r = estimate(s);
    const Component* g = find(r, "buffers.kv_growth");
    REQUIRE(g != nullptr);
    CHECK(g->bytes == 128.0 * 1024 * 1024);
    CHECK(g->phases == phase_bit(Phase::Step));
    CHECK_THAT(g->source, Catch::Contains("[transformers-pr39412]"));
    // Eager attention repeats without the switch.
    s.infer.sdpa_repeats_kv = false;
    s.infer.flash_attention = false;
    CHECK(bytes(estimate(s), "buffers.kv_growth") == 128.0 * 1024 * 1024);
    // Without grouped-query attention repeat_kv returns its input: Llama-2-7B (32 heads, 32 KV heads) keeps the growth copy,
    // 8192 * 32 * 128 * 2 B = 64 MiB.
    Scenario mha = generate(test::llama2_7b(), 8192, 1024);
    mha.infer.sdpa_repeats_kv = true;
    CHECK(bytes(estimate(mha), "buffers.kv_growth") == 64.0 * 1024 * 1024);
}
