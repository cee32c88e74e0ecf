// Speculative decoding in vLLM's estimate (infer.speculative, core/inference/speculative.h): the drafter's weights
// hand-summed from the heads' config.json values, its KV layers in the one block pool (the blocks shown drop by
// them), its buffers and share of the profile peak, the lookahead slots, and every bad value named.
#include <catch2/catch.hpp>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli.h"
#include "estimate.h"
#include "inference/speculative.h"
#include "inference_models.h"
#include "model/presets.h"
#include "param_count.h"
#include "scenario_json.h"
#include "share_link.h"
#include "units.h"

using namespace vl;

namespace {

double bytes_of(const Estimate& e, const char* id) {
    for (const Component& c : e.components)
        if (std::string(c.id) == id) return c.bytes;
    return -1;  // absent
}

// Case 25's scenario (tests/inference_models.h): Meta-Llama-3-8B in bf16 on an H100, max_model_len 8192, so
// max_num_batched_tokens T = 8192 and the profile run samples 256 sequences.
Scenario llama3_8b_vllm() { return test::vllm_llama3_8b(1); }

Scenario with(SpecMethod method, int64_t k, std::string model = "") {
    Scenario s = llama3_8b_vllm();
    s.infer.speculative.method = method;
    s.infer.speculative.num_speculative_tokens = k;
    s.infer.speculative.model = std::move(model);
    return s;
}

// What vLLM has left for KV blocks before any drafter: capacity less the target's weights, its rotary table, non-torch
// memory and activation peak (each checked against the case 25 log in inference_engines_test.cpp).
double available_without_drafter(const Estimate& e0) {
    return e0.gpu_capacity_bytes - bytes_of(e0, "weights.linear") - bytes_of(e0, "weights.embedding") - bytes_of(e0, "weights.lm_head") -
           bytes_of(e0, "weights.norms") - bytes_of(e0, "buffers.rope_cache") - bytes_of(e0, "engine.non_torch") -
           bytes_of(e0, "act.profile_peak");
}

std::string error_field(const Scenario& s) {
    const Estimate e = estimate(s);
    return e.errors.empty() ? std::string("(none)") : e.errors.front().field;
}

std::string error_text(const Scenario& s) {
    const Estimate e = estimate(s);
    return e.errors.empty() ? std::string() : e.errors.front().message;
}

}  // namespace

TEST_CASE("speculative: an EAGLE-3 head over Llama-3.1-8B has 424,689,664 parameters, hand-summed") {
    // yuhuili/EAGLE3-LLaMA3.1-Instruct-8B config.json: hidden_size 4096, 32 heads, 8 KV heads (head_dim 128),
    // intermediate_size 14336, draft_vocab_size 32000, one layer. vLLM's llama_eagle3.py: fc 3 * 4096 * 4096
    // = 50,331,648; q/k/v over 2 * 4096 inputs: 8192 * (4096 + 2 * 1024) = 50,331,648; o 4096 * 4096 = 16,777,216;
    // gated MLP 3 * 4096 * 14336 = 176,160,768; input, hidden, post-attention and final norms 4 * 4096 = 16,384;
    // lm_head 32000 * 4096 = 131,072,000.
    const ModelSpec m = test::llama3_8b();  // Llama-3.1-8B has Llama-3-8B's shape
    CHECK(eagle_head_params(m, SpecMethod::Eagle3, 1) == 424689664.0);
    // tp 2: fc and norms replicated, the rest split: 50,331,648 + 16,384 + 374,341,632 / 2 = 237,518,848.
    CHECK(eagle_head_params(m, SpecMethod::Eagle3, 2) == 237518848.0);
}

TEST_CASE("speculative: an EAGLE head over Llama-3-8B has 251,662,336 parameters, hand-summed") {
    // yuhuili/EAGLE-LLaMA3-Instruct-8B: one layer of Llama-3-8B's shape. vLLM's llama_eagle.py: fc 2 * 4096 * 4096
    // = 33,554,432 (no bias); layer 0 without its input norm: q/k/v 4096 * 6144 = 25,165,824, o 16,777,216, MLP
    // 176,160,768, post-attention norm 4096; embedding and lm_head are the target's.
    CHECK(eagle_head_params(test::llama3_8b(), SpecMethod::Eagle, 1) == 251662336.0);
    // The published checkpoint is "1.55GB" [vllm-issue-9565]: the head, the fc bias vLLM skips (4096) and the copy of
    // the embedding (128256 * 4096) vLLM replaces by the target's, in bf16: 1,554,006,016 B, which prints as 1.55 GB.
    const double checkpoint = (251662336.0 + 4096 + 128256.0 * 4096) * 2;
    CHECK(checkpoint == 1554006016.0);
    CHECK(std::round(checkpoint / 1e7) / 100 == 1.55);
}

TEST_CASE("speculative: EAGLE-3 on vLLM adds its weights, buffers and KV layer, and the pool loses those blocks") {
    const Estimate e0 = estimate(llama3_8b_vllm());
    const Estimate e = estimate(with(SpecMethod::Eagle3, 3));
    REQUIRE(e0.ok());
    REQUIRE(e.ok());
    CHECK(bytes_of(e0, "spec.draft_weights") < 0);
    CHECK(bytes_of(e, "spec.draft_weights") == 424689664.0 * 2);
    // hidden_states and inputs_embeds: 8192 tokens * 2 * 4096 * 2 B = 134,217,728 B.
    CHECK(bytes_of(e, "spec.drafter_buffers") == 134217728.0);
    // Profile peak: sampler 256 * 128256 * 40 = 1,313,341,440, the rejection sampler's dummy logits
    // 2 * 256 * 128256 * 2 = 131,334,144, hidden states 8192 * 4096 * 2 = 67,108,864: 1,511,784,448
    // (the MLP, 8192 * (3 * 14336 + 3 * 4096) * 2 = 905,969,664, and the head's, the same plus the hidden
    // states, are smaller). Without speculation: 1,380,450,304.
    CHECK(bytes_of(e0, "act.profile_peak") == 1380450304.0);
    CHECK(bytes_of(e0, "buffers.rope_cache") == 8192.0 * 128 * 2);  // vLLM's cos/sin table: max_position 8192 x head_dim 128
    CHECK(bytes_of(e, "act.profile_peak") == 1511784448.0);
    // KV per token: 32 target layers * 2 * 8 * 128 * 2 B = 131,072 and the head's one layer 4,096.
    CHECK(e0.kv.bytes_per_token == 131072.0);
    CHECK(e.kv.bytes_per_token == 135168.0);
    const double available = available_without_drafter(e0) - 424689664.0 * 2 - 134217728.0 - (1511784448.0 - 1380450304.0);
    CHECK(e.kv.blocks == static_cast<int64_t>(std::floor(available / (16 * 135168.0))));
    CHECK(e.kv.blocks < e0.kv.blocks);
    CHECK(e.kv.tokens == e.kv.blocks * 16);
    // A sequence of 8192 tokens holds 3 lookahead slots: ceil(8195 / 16) = 513 blocks.
    CHECK(e.kv.sequences == e.kv.blocks / 513);
    // The pool shown splits into the target's layers and the head's.
    CHECK(bytes_of(e, "kv_cache") == static_cast<double>(e.kv.blocks) * 16 * 131072);
    CHECK(bytes_of(e, "spec.draft_kv") == static_cast<double>(e.kv.blocks) * 16 * 4096);
    CHECK(e.total_bytes <= e.gpu_capacity_bytes);
}

TEST_CASE("speculative: the derivation shows the drafter's formulas with the numbers") {
    const Estimate e = estimate(with(SpecMethod::Eagle3, 3), Detail::Full);
    REQUIRE(e.ok());
    for (const Component& c : e.components) {
        if (std::string(c.id) == "spec.draft_weights") {
            CHECK(std::string(c.formula()).find("draft_vocab") != std::string::npos);
            CHECK(std::string(c.substituted()).find("32,000") != std::string::npos);
        }
        if (std::string(c.id) == "spec.draft_kv") CHECK(std::string(c.formula()).find("L_draft") != std::string::npos);
        if (std::string(c.id) == "act.profile_peak") CHECK(std::string(c.formula()).find("A_draft") != std::string::npos);
    }
}

TEST_CASE("speculative: a draft model is loaded whole, its KV layers join the pool") {
    // Llama-3.2-1B as the draft of Llama-3-8B (both 128,256 tokens): 1,235,814,400 parameters (Hub safetensors
    // metadata, models.json) in bf16; 16 layers * 2 * 8 KV heads * 64 * 2 B = 32,768 B per token.
    const Estimate e = estimate(with(SpecMethod::Draft, 4, "llama-3.2-1b"));
    REQUIRE(e.ok());
    CHECK(bytes_of(e, "spec.draft_weights") == 1235814400.0 * 2);
    CHECK(e.kv.bytes_per_token == 131072.0 + 32768.0);
    // Buffers at the draft's hidden size: 8192 * 2 * 2048 * 2 B.
    CHECK(bytes_of(e, "spec.drafter_buffers") == 8192.0 * 2 * 2048 * 2);
    // draft_tensor_parallel_size 1 under tp 2: the whole draft on the GPU that runs it.
    Scenario s = with(SpecMethod::Draft, 4, "llama-3.2-1b");
    s.parallel.tp = 2;
    s.gpu_count = 2;
    s.infer.speculative.draft_tensor_parallel_size = 1;
    const Estimate e1 = estimate(s);
    REQUIRE(e1.ok());
    CHECK(bytes_of(e1, "spec.draft_weights") == 1235814400.0 * 2);
    CHECK(e1.kv.bytes_per_token == 65536.0 + 32768.0);
    s.infer.speculative.draft_tensor_parallel_size = 0;  // the target's: 2
    const Estimate e2 = estimate(s);
    REQUIRE(e2.ok());
    CHECK(bytes_of(e2, "spec.draft_weights") == 1235814400.0);
    CHECK(e2.kv.bytes_per_token == 65536.0 + 16384.0);
}

TEST_CASE("speculative: mtp drafts with Qwen3.5-9B's own MTP layer") {
    // The MTP layer counted in ssm_test.cpp: fc 4096 * 8192, two pre-fc norms, one gated-attention layer with its
    // MLP and norms, a final norm: 243,290,624 parameters, bf16 like the target; its KV: one full-attention layer,
    // 2 * 4 KV heads * 256 * 2 B = 4,096 B per token.
    const ModelPreset* p = find_model("qwen3.5-9b");
    REQUIRE(p);
    Scenario s = llama3_8b_vllm();
    s.model = p->spec;
    s.infer.context = 4096;
    const Estimate e0 = estimate(s);
    s.infer.speculative.method = SpecMethod::Mtp;
    s.infer.speculative.num_speculative_tokens = 2;
    const Estimate e = estimate(s);
    REQUIRE(e0.ok());
    REQUIRE(e.ok());
    CHECK(count_params(p->spec).mtp == 243290624);
    CHECK(bytes_of(e, "spec.draft_weights") == 243290624.0 * 2);
    CHECK(e.kv.bytes_per_token == e0.kv.bytes_per_token + 4096.0);
}

TEST_CASE("speculative: ngram loads nothing but keeps lookahead slots and the rejection sampler's logits") {
    const Estimate e0 = estimate(llama3_8b_vllm());
    const Estimate e = estimate(with(SpecMethod::Ngram, 5));
    REQUIRE(e.ok());
    CHECK(bytes_of(e, "spec.draft_weights") < 0);
    CHECK(bytes_of(e, "spec.draft_kv") < 0);
    CHECK(e.kv.bytes_per_token == 131072.0);
    CHECK(bytes_of(e, "act.profile_peak") == 1380450304.0 + 131334144.0);
    CHECK(e.kv.sequences == e.kv.blocks / 513);  // ceil((8192 + 5) / 16)
    CHECK(e.kv.blocks <= e0.kv.blocks);
}

TEST_CASE("speculative: every bad value is refused with its field and the fix") {
    CHECK(error_field(with(SpecMethod::Draft, 3)) == "infer.speculative.model");  // no draft model
    CHECK(error_field(with(SpecMethod::Draft, 3, "no-such-model")) == "infer.speculative.model");
    // Qwen2.5-0.5B's 151,936 tokens are not Llama-3's 128,256.
    CHECK(error_field(with(SpecMethod::Draft, 3, "qwen2.5-0.5b")) == "infer.speculative.model");
    CHECK(error_text(with(SpecMethod::Draft, 3, "qwen2.5-0.5b")).find("151936") != std::string::npos);
    CHECK(error_field(with(SpecMethod::Eagle, 3, "llama-3.2-1b")) == "infer.speculative.model");  // a head loads no model
    CHECK(error_field(with(SpecMethod::Eagle3, 0)) == "infer.speculative.num_speculative_tokens");
    CHECK(error_field(with(SpecMethod::Eagle3, 65)) == "infer.speculative.num_speculative_tokens");
    CHECK(error_field(with(SpecMethod::Mtp, 1)) == "infer.speculative.method");  // Llama-3 has no MTP layers
    CHECK(error_text(with(SpecMethod::Mtp, 1)).find("mtp_layers") != std::string::npos);
    Scenario tp = with(SpecMethod::Eagle3, 3);
    tp.infer.speculative.draft_tensor_parallel_size = 2;  // target tp 1
    CHECK(error_field(tp) == "infer.speculative.draft_tensor_parallel_size");
    Scenario hf = with(SpecMethod::Eagle3, 3);
    hf.infer.engine = Engine::Transformers;
    CHECK(error_field(hf) == "infer.speculative.method");
    CHECK(error_text(hf).find("assistant_model") != std::string::npos);
    Scenario lcpp = with(SpecMethod::Draft, 3, "llama-3.2-1b");
    lcpp.infer.engine = Engine::LlamaCpp;
    lcpp.infer.weights = WeightFormat::GGUF_Q8_0;
    CHECK(error_field(lcpp) == "infer.speculative.method");
    Scenario mamba = with(SpecMethod::Eagle, 2);
    mamba.model = find_model("mamba-2.8b")->spec;
    CHECK(error_field(mamba) == "infer.speculative.method");
    Scenario pp = with(SpecMethod::Eagle3, 3);
    pp.parallel.pp = 2;
    pp.gpu_count = 2;
    CHECK(error_field(pp) == "infer.speculative.method");
}

TEST_CASE("speculative: the scenario file and the share link carry infer.speculative") {
    Scenario s = with(SpecMethod::Draft, 4, "llama-3.2-1b");
    s.infer.speculative.draft_tensor_parallel_size = 1;
    const std::string json = scenario_to_json(s);
    CHECK(json.find("\"speculative\"") != std::string::npos);
    Result<Scenario> back = scenario_from_json(json);
    REQUIRE(back.ok());
    CHECK(back->infer.speculative == s.infer.speculative);
    Result<Scenario> linked = decode_share_link(encode_share_link(s));
    REQUIRE(linked.ok());
    CHECK(linked->infer.speculative == s.infer.speculative);
    // A method that is not one is named with the choices.
    Result<Scenario> bad = scenario_from_json(R"({"version": 1, "infer": {"speculative": {"method": "medusa"}}})");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.errors.front().field == "infer.speculative.method");
    CHECK(bad.errors.front().message.find("eagle3") != std::string::npos);
}

TEST_CASE("speculative: vramlens estimate takes --speculative, --draft-model, --num-speculative-tokens and --draft-tp") {
    std::string out, err;
    const std::vector<std::string> base{"estimate", "--model", "llama-3.1-8b", "--mode", "infer", "--engine", "vllm", "--weights", "bf16",
                                        "--context", "8192", "--format", "json"};
    std::vector<std::string> args = base;
    args.insert(args.end(), {"--speculative", "eagle3", "--num-speculative-tokens", "3"});
    REQUIRE(cli::run(args, out, err) == 0);
    const nlohmann::json j = nlohmann::json::parse(out);
    double head = -1;
    for (const auto& c : j["components"])
        if (c["id"] == "spec.draft_weights") head = c["bytes"].get<double>();
    CHECK(head == 424689664.0 * 2);  // the EAGLE-3 head over Llama-3.1-8B's shape, hand-summed above
    args = base;
    args.insert(args.end(), {"--speculative", "draft", "--draft-model", "llama-3.2-1b", "--tp", "2", "--draft-tp", "1"});
    out.clear();
    err.clear();
    REQUIRE(cli::run(args, out, err) == 0);
    args = base;
    args.insert(args.end(), {"--speculative", "draft", "--draft-model", "qwen2.5-0.5b"});
    out.clear();
    err.clear();
    CHECK(cli::run(args, out, err) != 0);
    CHECK(err.find("infer.speculative.model") != std::string::npos);
}

TEST_CASE("speculative: DeepSeek-V3's MTP module is counted apart and drafts with method mtp") {
    // By hand (param_count_test.cpp's DeepSeek-V3 derivation): eh_proj 7168 * 14336 = 102,760,448; enorm and hnorm
    // 2 * 7168; one MoE layer: MLA 187,107,328 + 256 experts * 44,040,192 + the shared expert 44,040,192 + router
    // 256 * 7168 + its bias 256 + two norms 2 * 7168 = 11,507,286,272; shared_head.norm 7168: 11,610,068,224. With the
    // copies of the embedding and head the checkpoint also stores (2 * 129280 * 7168) that is 13.46B, the "14B MTP
    // module" DeepSeek publishes beside the 671B (the rest is its FP8 block scales).
    const ModelPreset* p = find_model("deepseek-v3");
    REQUIRE(p);
    CHECK(p->spec.mtp_layers == 1);
    const ParamCounts pc = count_params(p->spec);
    CHECK(pc.mtp == 11610068224);
    CHECK(pc.total == 671026419200);  // unchanged: the MTP module is not in the model's count
    Scenario s = llama3_8b_vllm();
    s.model = p->spec;
    s.infer.context = 4096;
    s.infer.speculative.method = SpecMethod::Mtp;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    CHECK(bytes_of(e, "spec.draft_weights") == 11610068224.0 * 2);
    // Its one MLA layer caches the latent c_KV and the RoPE key: (512 + 64) * 2 B = 1,152 B per token. 671B in bf16 leave
    // one GPU no pool, so the component is the request's: ceil((4096 + 1 lookahead) / 16) = 257 blocks of 16 tokens.
    CHECK(e.kv.blocks == 0);
    CHECK(bytes_of(e, "spec.draft_kv") == 257.0 * 16 * 1152);
}
