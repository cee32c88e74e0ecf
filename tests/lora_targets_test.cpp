// Which modules PEFT's target_modules reach on MoE models (issue 18): "all-linear" wraps every nn.Linear but the output
// head, the routers that are nn.Linear too [peft-all-linear-code] [transformers-moe-routers]; gpt-oss's experts are 3-D
// parameters that no module name reaches (only target_parameters: finetune.lora_expert_layers) [peft-paramwrapper-code].
// Every count below is r * (in + out) per adapted nn.Linear [lora2021], summed by hand from the config.json files.
#include <catch2/catch.hpp>

#include <string>

#include "component_lookup.h"
#include "config_files.h"
#include "estimate.h"
#include "training/finetune.h"

using namespace vl;
using Catch::Detail::Approx;
using test::bytes_of;
using test::has_error;

namespace {

// LoRA of rank r on the given targets: bf16 mixed precision, fp32 adapters (PEFT's default), one sequence of 2048 tokens,
// no recomputation, no dropout.
Scenario lora(const std::string& file, unsigned targets, int64_t r = 8) {
    Scenario s;
    s.mode = Mode::FineTune;
    s.model = test::imported_config(file);
    s.train.precision = Precision::MixedBF16;
    s.train.micro_batch = 1;
    s.train.seq_len = 2048;
    s.train.recompute = Recompute::None;
    s.train.dropout = 0;
    s.finetune.method = FineTuneMethod::LoRA;
    s.finetune.lora_rank = r;
    s.finetune.lora_targets = targets;
    return s;
}

Estimate estimate_ok(const Scenario& s) {
    Estimate e = estimate(s, Detail::NumbersOnly);
    for (const auto& f : e.errors) INFO(to_string(f));
    REQUIRE(e.ok());
    return e;
}

bool has_warning(const Estimate& e, const std::string& words) {
    for (const std::string& w : e.warnings)
        if (w.find(words) != std::string::npos) return true;
    return false;
}

constexpr unsigned kNoRouter = kLoraAllLinear & ~static_cast<unsigned>(kLoraRouter);  // every named module, no router

}  // namespace

TEST_CASE("all-linear: the MoE routers that are nn.Linear get adapters too") {
    // Mixtral-8x7B (hidden 4096, 32 heads, 8 KV heads of 128, 8 experts of 14336), r = 8, per layer: q, o 8 x (4096 + 4096)
    // = 65,536 each; k, v 8 x (4096 + 1024) = 40,960 each; 8 experts x w1, w2, w3 8 x (4096 + 14336) = 147,456 ->
    // 3,538,944; block_sparse_moe.gate [8, 4096] 8 x (4096 + 8) = 32,832. 3,784,768 per layer, x 32 = 121,112,576.
    const ModelSpec mix = test::imported_config("mixtral-8x7b-v0.1.json");
    CHECK(lora_trainable_params(mix, 8, kLoraAllLinear) == 121112576);
    CHECK(lora_trainable_params(mix, 8, kNoRouter) == 32 * 3751936LL);  // a list of the projections' names: no router

    // Qwen3-30B-A3B (hidden 2048, 32 heads and 4 KV heads of 128, 128 experts of 768, 48 layers), r = 8: q 8 x (2048 +
    // 4096) = 49,152, k and v 8 x (2048 + 512) = 20,480 each, o 49,152 -> 139,264; 128 experts x 3 x 8 x (2048 + 768) =
    // 8,650,752; mlp.gate [128, 2048] 8 x (2048 + 128) = 17,408. 8,807,424 per layer, x 48 = 422,756,352 (without the
    // routers 421,920,768).
    const ModelSpec q3 = test::imported_config("qwen3-30b-a3b.json");
    CHECK(lora_trainable_params(q3, 8, kLoraAllLinear) == 422756352);
    CHECK(lora_trainable_params(q3, 8, kNoRouter) == 421920768);

    // Qwen1.5-MoE-A2.7B (qwen2_moe: hidden 2048, 16 heads of 128, 60 experts of 1408, shared expert 5632, 24 layers), r = 8:
    // q, k, v, o 8 x 4096 = 32,768 each -> 131,072; experts 60 x 3 x 8 x (2048 + 1408) = 4,976,640; shared expert 3 x 8 x
    // (2048 + 5632) = 184,320; mlp.gate [60, 2048] 8 x 2108 = 16,864; shared_expert_gate [1, 2048] 8 x 2049 = 16,392.
    // 5,325,288 per layer, x 24 = 127,806,912.
    const ModelSpec q15 = test::imported_config("qwen1.5-moe-a2.7b.json");
    CHECK(lora_trainable_params(q15, 8, kLoraAllLinear) == 127806912);
    CHECK(lora_trainable_params(q15, 8, kLoraAllLinear) - lora_trainable_params(q15, 8, kNoRouter) == 24 * (16864 + 16392));

    // DeepSeek's gate and gpt-oss's router hold their weight as an nn.Parameter: all-linear adds nothing there
    for (const char* file : {"deepseek-v2.json", "deepseek-v3.json", "glm-4.5-air.json", "gpt-oss-20b.json"}) {
        INFO(file);
        const ModelSpec m = test::imported_config(file);
        CHECK(lora_trainable_params(m, 8, kLoraAllLinear) == lora_trainable_params(m, 8, kNoRouter));
    }
}

TEST_CASE("all-linear: the router's adapters in the estimate, weights and activations") {
    const Scenario all = lora("mixtral-8x7b-v0.1.json", kLoraAllLinear);
    const Scenario named = lora("mixtral-8x7b-v0.1.json", kNoRouter);
    const Estimate a = estimate_ok(all), n = estimate_ok(named);
    // fp32 adapters: 4 B x 32 layers x 32,832
    CHECK(bytes_of(a, "lora.weights") - bytes_of(n, "lora.weights") == Approx(4.0 * 32 * 32832));
    // each token leaves one r-wide lora_A output per adapted module it passes through: the router is one more module on every
    // layer, as q_proj alone is one module on every layer, so the router's share of act.lora is q_proj's alone
    const Estimate q = estimate_ok(lora("mixtral-8x7b-v0.1.json", kLoraQ));
    CHECK(bytes_of(a, "act.lora") - bytes_of(n, "act.lora") == Approx(bytes_of(q, "act.lora")));
}

TEST_CASE("gpt-oss: gate/up/down in lora_targets adapt no expert, as in PEFT") {
    // gpt-oss-20b (hidden 2880, 64 heads and 8 KV heads of 64, 32 experts of 2880, 24 layers), r = 8: q 8 x (2880 + 4096) =
    // 55,808, k and v 8 x (2880 + 512) = 27,136 each, o 55,808 -> 165,888 per layer; the experts (3-D parameters) and the
    // router (an nn.Parameter) have no nn.Linear: all-linear is the attention's, x 24 = 3,981,312.
    const ModelSpec gpt = test::imported_config("gpt-oss-20b.json");
    CHECK(lora_trainable_params(gpt, 8, kLoraAllLinear) == 3981312);
    CHECK(lora_trainable_params(gpt, 8, kLoraMlp) == 0);  // before: 32 experts x 3 x 8 x (2880 + 2880) a layer
    CHECK(lora_targets_present(gpt) == kLoraAttention);

    // PEFT target_parameters on the last 3 MoE layers' experts: gate_up_proj [32, 2880, 5760] 8 x 32 x (2880 + 5760) and
    // down_proj [32, 2880, 2880] 8 x 32 x (2880 + 2880): 3,686,400 a layer; with all-linear 3,981,312 + 3 x 3,686,400 =
    // 15,040,512 trainable, 4 B each.
    Scenario s = lora("gpt-oss-20b.json", kLoraAllLinear);
    s.finetune.lora_expert_layers = 3;
    CHECK(bytes_of(estimate_ok(s), "lora.weights") == Approx(4.0 * 15040512));

    // only gate/up/down: PEFT finds no target module and raises; the message says how the experts are adapted
    Scenario experts_only = lora("gpt-oss-20b.json", kLoraMlp);
    CHECK(has_error(estimate(experts_only, Detail::NumbersOnly), "finetune.lora_targets", "finetune.lora_expert_layers"));
    // beside q and v: PEFT adapts q and v only; the estimate counts those (8 x (2880 + 4096) + 8 x (2880 + 512) = 82,944 a
    // layer, x 24) and warns that gate_proj names nothing
    Scenario mixed = lora("gpt-oss-20b.json", kLoraQ | kLoraV | kLoraGate);
    const Estimate e = estimate_ok(mixed);
    CHECK(bytes_of(e, "lora.weights") == Approx(4.0 * 24 * 82944));
    CHECK(has_warning(e, "gate_proj"));
    CHECK_FALSE(has_warning(estimate_ok(lora("gpt-oss-20b.json", kLoraQ | kLoraV)), "gate_proj"));
    // another MoE family's experts are nn.Linear modules: gate_proj adapts them, no warning
    CHECK_FALSE(has_warning(estimate_ok(lora("qwen1.5-moe-a2.7b.json", kLoraQ | kLoraV | kLoraGate)), "gate_proj"));
}

TEST_CASE("Gated DeltaNet: its linears are LoRA targets by name, Qwen3.5's four input projections apart") {
    // Qwen3-Next-80B-A3B (hidden 2048; 16 key heads of 128: key_dim 2048; 32 value heads of 128: value_dim 4096), r = 8, on the
    // 36 linear-attention layers of 48: in_proj_qkvz [2 x 2048 + 2 x 4096 = 12288, 2048] 8 x (2048 + 12288) = 114,688;
    // in_proj_ba [64, 2048] 8 x (2048 + 64) = 16,896; out_proj [2048, 4096] 8 x (4096 + 2048) = 49,152. 180,736 a layer.
    const ModelSpec next = test::imported_config("qwen3-next-80b-a3b-instruct.json");
    CHECK(lora_trainable_params(next, 8, kLoraInProjQkvz | kLoraInProjBa | kLoraOutProj) == 36 * 180736LL);
    CHECK(lora_trainable_params(next, 8, kLoraInProjQkv | kLoraInProjZ | kLoraInProjB | kLoraInProjA) == 0);  // Qwen3.5's names

    // Qwen3.5-9B (hidden 4096, the same heads), 24 linear-attention layers of 32: in_proj_qkv [2 x 2048 + 4096 = 8192, 4096]
    // 8 x 12288 = 98,304; in_proj_z [4096, 4096] 65,536; in_proj_b and in_proj_a [32, 4096] 8 x 4128 = 33,024 each; out_proj
    // [4096, 4096] 65,536. 295,424 a layer (the same elements as one in_proj_qkvz and in_proj_ba, two more adapters).
    const ModelSpec q35 = test::imported_config("qwen3.5-9b.json");
    CHECK(lora_trainable_params(q35, 8, kLoraInProjQkv | kLoraInProjZ | kLoraInProjB | kLoraInProjA | kLoraOutProj) == 24 * 295424LL);
    CHECK(lora_trainable_params(q35, 8, kLoraInProjQkvz | kLoraInProjBa) == 0);
}

TEST_CASE("Gated DeltaNet under LoRA: the frozen mixer keeps an adapted projection's input, its adapters their outputs") {
    // Qwen3-Next-80B-A3B, r = 8, T = 2048 tokens, bf16 autocast over fp32 adapters: each adapted module saves its own 2-byte
    // cast of its input (PEFT casts x to lora_A's dtype, autocast casts it back for the matmul), its lora_A output 2 B x T x r.
    const Estimate q = estimate_ok(lora("qwen3-next-80b-a3b-instruct.json", kLoraQ));
    // out_proj adapted on the 36 linear-attention layers: its input [T, value_dim 4096] x 2 B, 36 x 2 x 2048 x 4096 =
    // 603,979,776 B; its lora_A output 36 x 2 x 2048 x 8 = 1,179,648 B
    const Estimate out = estimate_ok(lora("qwen3-next-80b-a3b-instruct.json", kLoraQ | kLoraOutProj));
    CHECK(bytes_of(out, "act.mamba") - bytes_of(q, "act.mamba") == Approx(36.0 * 2 * 2048 * 4096));
    CHECK(bytes_of(out, "act.lora") - bytes_of(q, "act.lora") == Approx(36.0 * 2 * 2048 * 8));
    // in_proj_qkvz and in_proj_ba adapted: two casts of the layer input [T, 2048], 36 x 2 x 2 x 2048 x 2048; two lora_A outputs
    const Estimate in = estimate_ok(lora("qwen3-next-80b-a3b-instruct.json", kLoraQ | kLoraInProjQkvz | kLoraInProjBa));
    CHECK(bytes_of(in, "act.mamba") - bytes_of(q, "act.mamba") == Approx(36.0 * 2 * 2 * 2048 * 2048));
    CHECK(bytes_of(in, "act.lora") - bytes_of(q, "act.lora") == Approx(36.0 * 2 * 2 * 2048 * 8));
    // fp32 adapters: 4 B a parameter, the three mixer linears' 36 x 180,736 beside q's
    const Estimate all = estimate_ok(lora("qwen3-next-80b-a3b-instruct.json", kLoraQ | kLoraInProjQkvz | kLoraInProjBa | kLoraOutProj));
    CHECK(bytes_of(all, "lora.weights") - bytes_of(q, "lora.weights") == Approx(4.0 * 36 * 180736));
}
