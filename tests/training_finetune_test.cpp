// LoRA / QLoRA: PEFT trainable counts (case 30), QLoRA storage constants (case 28), LoRA paper GPT-3
// (case 27), and what a frozen base changes in the estimate.
#include <catch2/catch.hpp>

#include "training/finetune.h"
#include "training_fixtures.h"
#include "units.h"

using namespace vl;
using namespace vl::testing;
using Catch::Detail::Approx;

TEST_CASE("PEFT print_trainable_parameters: Llama-2-7b, r = 8 on q_proj, v_proj (case peft-trainable-params)") {
    // 32 layers x 2 modules x 8 x (4096 + 4096) = 4,194,304; all params 6,738,415,616 + 4,194,304
    const ModelSpec m = llama2_7b();
    REQUIRE(lora_trainable_params(m, 8, kLoraQ | kLoraV) == 4194304);
    REQUIRE(count_params(m).total + lora_trainable_params(m, 8, kLoraQ | kLoraV) == 6742609920);
}

TEST_CASE("LoRA on all linear layers counts gate/up/down and GQA-sized k/v") {
    // Llama-2-7b r = 16 all linear: q,k,v,o 4 x 16 x 8192 + gate, up, down 3 x 16 x (4096 + 11008) = 1,249,280 per layer
    REQUIRE(lora_params_per_layer(llama2_7b(), 16, kLoraAllLinear, false) == 4 * 16 * 8192 + 3 * 16 * (4096 + 11008));
    ModelSpec m = llama2_7b();
    m.kv_heads = 8;  // k, v: 16 x (4096 + 1024)
    REQUIRE(lora_params_per_layer(m, 16, kLoraK | kLoraV, false) == 2 * 16 * (4096 + 1024));
}

TEST_CASE("LoRA paper: GPT-3 175B r = 4 on W_q, W_v: 18.9M trainable (37.7 MB in fp16), 350 GB frozen (case 27)") {
    const ModelSpec m = gpt_model("GPT-3 175B", 12288, 96, 96, 50257, 2048);
    // 96 layers x 2 x 4 x (12288 + 12288) = 18,874,368 -> x 2 B = 37.7 MB ("35 MB" checkpoint)
    REQUIRE(lora_trainable_params(m, 4, kLoraQ | kLoraV) == 18874368);
    Scenario s = train_scenario(m);
    s.mode = Mode::FineTune;
    s.finetune.method = FineTuneMethod::LoRA;
    s.finetune.lora_rank = 4;
    s.train.precision = Precision::MixedFP16;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    // 350 GB = 175e9 x 2 B in the paper; our exact count is 174.6e9 -> 349.2 GB (0.2% below)
    REQUIRE(to_gb(bytes_of(e, "weights.frozen")) == Approx(350).epsilon(0.005));
    REQUIRE(find(e, "grads") == nullptr);  // no gradients or optimizer states for the frozen base
    REQUIRE(bytes_of(e, "lora.optimizer") == Approx(18874368.0 * 8));  // fp32 Adam on the adapters
}

TEST_CASE("QLoRA constants: 0.5 bits/param without, 0.127 with double quantization (case qlora-65b)") {
    REQUIRE(nf4_constant_bits_per_param(64, 256, false) == Approx(0.5));          // 32 / 64
    REQUIRE(nf4_constant_bits_per_param(64, 256, true) == Approx(0.127).margin(0.0005));  // 8/64 + 32/(64*256) = 0.12695
}

TEST_CASE("QLoRA LLaMA-65B fits one 48 GB GPU (case qlora-65b: '<48 GB')") {
    // LLaMA-65B: h 8192, 80 layers, 64 heads, ffn 22016, vocab 32000; Guanaco: r 64 on all linear layers,
    // bf16 adapters, paged 32-bit AdamW, gradient checkpointing; batch 1, 512 tokens.
    ModelSpec m = llama2_7b();
    m.name = "LLaMA-65B"; m.hidden = 8192; m.layers = 80; m.heads = 64; m.kv_heads = 64; m.ffn = 22016; m.max_position = 2048;
    Scenario s = train_scenario(m);
    s.mode = Mode::FineTune;
    s.finetune.method = FineTuneMethod::QLoRA;
    s.finetune.lora_rank = 64;
    s.finetune.lora_targets = kLoraAllLinear;
    s.finetune.adapters_fp32 = false;
    s.train.seq_len = 512;
    s.train.recompute = Recompute::Full;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    // NF4 codes: the linear weights (64.7e9 of 65.3e9 params) x 0.5 B = 32.4 GB
    REQUIRE(to_gb(bytes_of(e, "weights.nf4")) == Approx(32.38).margin(0.01));
    REQUIRE(to_gib(e.total_bytes) < 48.0);  // the paper's 48 GB card (48 GiB)
    // full 16-bit fine-tuning of the same model: > 780 GB (16 B/param Adam mixed precision alone: 1045 GB)
    s.mode = Mode::Train;
    REQUIRE(to_gb(estimate(s).total_bytes) > 780);
}

TEST_CASE("a frozen base saves no inputs of untargeted linear layers") {
    Scenario s = train_scenario(llama2_7b());
    s.overheads = no_overheads();
    const double full = bytes_of(estimate(s), "act.mlp");
    s.mode = Mode::FineTune;
    s.finetune.method = FineTuneMethod::LoRA;
    s.finetune.lora_targets = kLoraQ | kLoraV;
    // MLP keeps only the SiLU input, SiLU output and up output (3 x 2 T f), not gate/up or down inputs
    const double T = 2048, f = 11008;
    REQUIRE(bytes_of(estimate(s), "act.mlp") == Approx(32 * 3 * 2 * T * f));
    REQUIRE(bytes_of(estimate(s), "act.mlp") < full);
}

TEST_CASE("fine-tuning options are validated with their field names") {
    Scenario s = train_scenario(llama2_7b());
    s.mode = Mode::FineTune;
    s.finetune.lora_rank = 0;
    Estimate e = estimate(s);
    REQUIRE_FALSE(e.ok());
    REQUIRE(e.errors.front().field == "finetune.lora_rank");
    s.finetune.lora_rank = 8;
    s.finetune.lora_targets = 0;
    REQUIRE(estimate(s).errors.front().field == "finetune.lora_targets");
    s = train_scenario(params_only(7000000000));
    s.mode = Mode::FineTune;
    REQUIRE(estimate(s).errors.front().field == "finetune.method");
}

TEST_CASE("Adafactor on LoRA adapters keeps rows + columns of A and B") {
    // Llama-2-7b r = 8 on q, v: per module A 8 x 4096 -> 8 + 4096, B 4096 x 8 -> 4096 + 8: 8208 per module
    // x 2 modules x 32 layers = 525,312 fp32 values
    Scenario s = train_scenario(llama2_7b());
    s.mode = Mode::FineTune;
    s.finetune.lora_rank = 8;
    s.train.optimizer = Optimizer::Adafactor;
    REQUIRE(bytes_of(estimate(s), "lora.optimizer") == Approx(525312.0 * 4));
}
