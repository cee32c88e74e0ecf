// Embedding and reranker serving (issue 18 item 5): encoders (bge-m3, bge-reranker-v2-m3) and embedders
// (Qwen3-Embedding: a decoder without its LM head) on transformers (sentence-transformers' encode), vLLM's
// pooling runner and Hugging Face text-embeddings-inference (TEI). Every expected number is derived by hand
// from the published configs (docs/sources.md qwen3-embedding) and the engines' rules (vllm-pooling, tei-code).
#include <catch2/catch.hpp>

#include <string>

#include "estimate.h"
#include "model/hf_config.h"
#include "model/presets.h"
#include "component_lookup.h"
#include "param_count.h"

using namespace vl;
using vl::test::bytes_of;
using vl::test::find;
using vl::test::has_error;

namespace {
ModelSpec preset(const char* id) {
    const ModelPreset* p = find_model(id);
    REQUIRE(p != nullptr);
    return p->spec;
}

Scenario serving(const char* id, Engine engine, int64_t batch, int64_t context) {
    Scenario s;
    s.mode = Mode::Infer;
    s.model = preset(id);
    s.infer.engine = engine;
    s.infer.batch = batch;
    s.infer.context = context;
    return s;
}

double category_bytes(const Estimate& e, Category k) {
    double b = 0;
    for (const Component& c : e.components)
        if (c.category == k) b += c.bytes;
    return b;
}

Estimate ok_estimate(const Scenario& s) {
    const Estimate e = estimate(s);
    for (const auto& err : e.errors) INFO(err.field + ": " + err.message);
    REQUIRE(e.ok());
    return e;
}
}  // namespace

TEST_CASE("embedders: Qwen3-Embedding has no lm_head, counted by hand") {
    // Qwen3-Embedding-0.6B (vocab 151669, tied, h 1024, 28 layers, 16 heads / 8 KV heads of 128, ffn 3072): embed_tokens
    // 151669*1024 = 155,309,056; a layer: q 1024*2048 + k, v 2*1024*1024 + o 2048*1024 = 6,291,456, q_norm and k_norm
    // 2*128, the gated MLP 3*1024*3072 = 9,437,184, 2 RMSNorms 2*1024: 15,730,944; 28 layers 440,466,432; norm 1024.
    CHECK(155309056 + 28 * 15730944 + 1024 == 595776512);
    const ModelSpec small = preset("qwen3-embedding-0.6b");
    CHECK(small.embedder);
    CHECK(count_params(small).total == 595776512);
    CHECK(count_params(small).lm_head == 0);
    // Qwen3-Embedding-8B (vocab 151665, untied, h 4096, 36 layers, 32 heads / 8 KV heads of 128, ffn 12288): embed_tokens
    // 151665*4096 = 621,219,840; a layer: attention 2*4096*4096 + 2*4096*1024 = 41,943,040, q/k norms 256, MLP
    // 3*4096*12288 = 150,994,944, norms 8192: 192,946,432; 36 layers 6,946,071,552; norm 4096. With an lm_head
    // (another 621,219,840) it would be 8.19B, not the Hub's 7.57B.
    CHECK(621219840 + 36LL * 192946432 + 4096 == 7567295488LL);
    CHECK(count_params(preset("qwen3-embedding-8b")).total == 7567295488LL);
    // bge-reranker-v2-m3: bge-m3's 567,754,752 (BertPooler counted) with the sequence-classification head of one
    // label (XLMRobertaClassificationHead: dense [1024, 1024] + bias in the pooler's place, out_proj [1, 1024] + bias).
    const ModelSpec reranker = preset("bge-reranker-v2-m3");
    CHECK(reranker.encoder);
    CHECK(reranker.num_labels == 1);
    CHECK(count_params(reranker).total == 567754752 + 1024 + 1);
}

TEST_CASE("embedders: the config's architectures names the base model or the classifier") {
    const auto spec = [](const std::string& arch) {
        const Result<ModelSpec> r = import_hf_config(R"({"model_type": "qwen3", "architectures": [")" + arch + R"("]})");
        REQUIRE(r.ok());
        return *r.value;
    };
    CHECK(spec("Qwen3Model").embedder);
    CHECK_FALSE(spec("Qwen3ForCausalLM").embedder);
    const Result<ModelSpec> gpt2 = import_hf_config(R"({"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"]})");
    REQUIRE(gpt2.ok());
    CHECK_FALSE(gpt2.value->embedder);
    // An encoder's classifier: num_labels, else id2label's entries, else PretrainedConfig's 2.
    const auto labels = [](const std::string& extra) {
        const Result<ModelSpec> r =
            import_hf_config(R"({"model_type": "xlm-roberta", "architectures": ["XLMRobertaForSequenceClassification"])" + extra + "}");
        REQUIRE(r.ok());
        return r.value->num_labels;
    };
    CHECK(labels("") == 2);
    CHECK(labels(R"(, "id2label": {"0": "LABEL_0"})") == 1);
    CHECK(labels(R"(, "num_labels": 3)") == 3);
}

TEST_CASE("TEI: weights and one batch of max_batch_tokens, no KV cache") {
    Scenario s = serving("bge-m3", Engine::TEI, 1, 8192);
    const Estimate e = ok_estimate(s);
    // bge-m3 (h 1024, ffn 4096, plain GELU MLP) at TEI's default 16384 batch tokens: at one layer's MLP the dense
    // output and the GELU output (2 * 4096) beside the residual, normed input and output (3 * 1024), 2 B each:
    // 16384 * 11264 * 2 = 369,098,752 B, more than the last hidden states the pooler reads, 16384 * 1024 * 2 = 33,554,432 B.
    CHECK(bytes_of(e, "act.tei_batch") == 369098752.0);
    CHECK(category_bytes(e, Category::Activations) == 369098752.0);
    CHECK(category_bytes(e, Category::KVCache) == 0);
    CHECK(category_bytes(e, Category::Logits) == 0);
    CHECK(category_bytes(e, Category::Weights) == 2.0 * 567754752);
    // The router never batches more than max_batch_tokens: 64 sequences of 8192 tokens take the same memory.
    s.infer.batch = 64;
    const Estimate queued = ok_estimate(s);
    CHECK(queued.total_bytes == e.total_bytes);
    CHECK_FALSE(queued.warnings.empty());
    s.infer.max_batched_tokens = 32768;  // --max-batch-tokens 32768
    CHECK(bytes_of(ok_estimate(s), "act.tei_batch") == 2 * 369098752.0);
}

TEST_CASE("TEI: serves embedding and reranker models only, on one GPU, in 16 or 32 bits") {
    CHECK(has_error(estimate(serving("llama-3.1-8b", Engine::TEI, 1, 512)), "infer.engine", "embedding and reranker"));
    Scenario s = serving("bge-m3", Engine::TEI, 1, 512);
    s.infer.weights = WeightFormat::GPTQ4;
    CHECK(has_error(estimate(s), "infer.weights", "float16"));
    s = serving("qwen3-embedding-8b", Engine::TEI, 1, 512);
    s.parallel.tp = 2;
    s.gpu_count = 2;
    CHECK(has_error(estimate(s), "parallel.tp", "one GPU"));
    CHECK(has_error(estimate(serving("bge-m3", Engine::LlamaCpp, 1, 512)), "infer.engine", "llama.cpp's embedding server"));
}

TEST_CASE("vLLM pooling runner: an encoder has no KV pool and no sampler") {
    // vLLM 0.21 (V1) on the default H100: no --max-num-batched-tokens, an encoder turns chunked prefill off, so the
    // default is max(max_model_len 8192, 2048) = 8192, raised to the pooling runner's 32768, capped at
    // max_num_seqs * max_model_len = 1024 * 8192 (vLLM's default on a GPU of 70 GiB or more that is not an A100).
    // The profile peak: 32768 tokens at one layer's MLP,
    // 32768 * (2 * 4096 + 3 * 1024) * 2 = 738,197,504 B (the pooler's per-token output beside the hidden states,
    // 2 * 32768 * 1024 * 2 = 134,217,728 B, is smaller).
    Scenario s = serving("bge-m3", Engine::VLLM, 64, 8192);
    const Estimate e = ok_estimate(s);
    CHECK(bytes_of(e, "act.profile_peak") == 738197504.0);
    CHECK(find(e, "kv_cache") == nullptr);
    CHECK(e.kv.pool_bytes == 0);
    CHECK(e.kv.sequences == 1024);
    // The V1 cap: 2 sequences of 512 tokens: min(32768, 2 * 512) = 1024 tokens.
    s.infer.context = 512;
    s.infer.max_num_seqs = 2;
    CHECK(bytes_of(ok_estimate(s), "act.profile_peak") == 1024.0 * 11264 * 2);
    // vLLM 0.6.5 (V0) has no cap: max(max(512, 2048), 32768) = 32768 tokens again.
    s.infer.vllm_version = "0.6.5";
    CHECK(bytes_of(ok_estimate(s), "act.profile_peak") == 738197504.0);
}

TEST_CASE("vLLM pooling runner: an embedder keeps its KV pool, pools instead of sampling") {
    // Qwen3-Embedding-0.6B, causal: the V1 default of a GPU >= 70 GiB, 8192, raised to 32768 (256 * 4096 caps nothing).
    // At one layer's gated MLP: 32768 * (3 * 3072 + 3 * 1024) * 2 = 805,306,368 B. A sampler of 256 sequences over
    // 151669 logits (40 B each, 1,553,090,560 B) would exceed it: the pooling runner has none.
    const Estimate e = ok_estimate(serving("qwen3-embedding-0.6b", Engine::VLLM, 64, 4096));
    CHECK(bytes_of(e, "act.profile_peak") == 805306368.0);
    CHECK(bytes_of(e, "kv_cache") > 0);
    CHECK(e.kv.bytes_per_token == 28.0 * 2 * 8 * 128 * 2);  // 28 layers, K and V, 8 KV heads of 128, bf16
    Scenario spec = serving("qwen3-embedding-0.6b", Engine::VLLM, 64, 4096);
    spec.infer.speculative.method = SpecMethod::Ngram;
    CHECK(has_error(estimate(spec), "infer.speculative.method", "generates none"));
}

TEST_CASE("transformers: sentence-transformers' encode of an embedder returns the forward's K/V, no logits") {
    // encode(batch_size=32) over 512-token sequences: the base model's forward with use_cache builds a DynamicCache of
    // 28 layers * 2 (K, V) * 8 KV heads * 128 * 2 B = 114,688 B per token: 32 * 512 * 114,688 = 1,879,048,192 B.
    const Estimate e = ok_estimate(serving("qwen3-embedding-0.6b", Engine::Transformers, 32, 512));
    CHECK(bytes_of(e, "kv_cache") == 1879048192.0);
    CHECK(bytes_of(e, "act.hidden_out") == 32.0 * 512 * 1024 * 2);
    CHECK(category_bytes(e, Category::Logits) == 0);
}

TEST_CASE("embedders: not trained here, and not an encoder") {
    Scenario s = serving("qwen3-embedding-0.6b", Engine::Transformers, 1, 512);
    s.mode = Mode::Train;
    CHECK(has_error(estimate(s), "model.embedder", "not modelled"));
    s = serving("bge-m3", Engine::Transformers, 1, 512);
    s.model.embedder = true;
    CHECK(has_error(estimate(s), "model.embedder", "encoder"));
}
