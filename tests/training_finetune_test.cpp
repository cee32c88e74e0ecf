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

TEST_CASE("LoRA adapters come from the tensor inventory: every expert, MLA's projections, no gate on a plain MLP") {
    // Mixtral-8x7B (config.json: hidden 4096, 8 KV heads of 128, 8 experts of 14336), r = 8 on all linear
    // layers, per layer: q, o 8 x (4096 + 4096) = 65,536 each; k, v 8 x (4096 + 1024) = 40,960 each;
    // 8 experts x gate, up, down 8 x (4096 + 14336) = 147,456 -> 3,538,944; total 3,751,936; x 32 layers.
    ModelSpec mix = llama2_7b();
    mix.kv_heads = 8; mix.ffn = 14336;
    mix.moe.num_experts = 8; mix.moe.top_k = 2; mix.moe.expert_ffn = 14336;
    REQUIRE(lora_params_per_layer(mix, 8, kLoraAllLinear, true) == 3751936);
    REQUIRE(lora_trainable_params(mix, 8, kLoraAllLinear) == 32 * 3751936LL);

    // DeepSeek-V3 (MLA q_lora_rank 1536, 128 heads of 128 + 64), r = 16 on q: q_a_proj 16 x (7168 + 1536)
    // = 139,264 and q_b_proj 16 x (1536 + 128 * 192) = 417,792 -> 557,056 per layer, x 61 = 33,980,416.
    ModelSpec ds = llama2_7b();
    ds.vocab = 129280; ds.hidden = 7168; ds.layers = 61; ds.heads = ds.kv_heads = 128; ds.head_dim = 192; ds.ffn = 18432;
    ds.attention = AttentionKind::MLA;
    ds.mla = {1536, 512, 64, 128, 128};
    ds.moe.num_experts = 256; ds.moe.top_k = 8; ds.moe.expert_ffn = 2048; ds.moe.shared_experts = 1; ds.moe.first_dense_layers = 3;
    REQUIRE(lora_trainable_params(ds, 16, kLoraQ) == 33980416);

    // GPT-2 small (plain MLP: c_fc, c_proj), r = 4 on all linear: gate selects nothing. q, k, v, o
    // 4 x 4 x (768 + 768) = 24,576; up 4 x (768 + 3072) = 15,360; down the same -> 55,296; x 12 = 663,552.
    const ModelSpec g = gpt_model("GPT-2", 768, 12, 12, 50257, 1024);
    REQUIRE(lora_trainable_params(g, 4, kLoraAllLinear) == 663552);

    // Qwen1.5-MoE-A2.7B (60 experts of 1408, shared expert 5632 with its gate), r = 8 on gate/up/down:
    // experts 60 x 3 x 8 x (2048 + 1408) = 4,976,640; shared 3 x 8 x (2048 + 5632) = 184,320; the router
    // and shared_expert_gate are no targets -> 5,160,960 per layer, x 24 = 123,863,040.
    ModelSpec q = llama2_7b();
    q.vocab = 151936; q.hidden = 2048; q.layers = 24; q.heads = q.kv_heads = 16; q.ffn = 5632;
    q.moe.num_experts = 60; q.moe.top_k = 4; q.moe.expert_ffn = 1408; q.moe.shared_expert_ffn = 5632; q.moe.shared_expert_gate = true;
    REQUIRE(lora_trainable_params(q, 8, kLoraMlp) == 123863040);
}

// Regression: the dequantization buffer took the largest of intermediate_size and
// moe_intermediate_size, though a model whose every layer routes has no dense MLP (Qwen3-30B-A3B's
// config keeps an unused intermediate_size 6144). Its largest linear weight is q_proj / o_proj.
TEST_CASE("QLoRA's dequantization buffer is the largest linear weight the layers have") {
    // Qwen3-30B-A3B config.json: hidden 2048, 32 heads of 128, 4 KV heads, 128 experts of 768, 48 layers.
    ModelSpec m = llama2_7b();
    m.vocab = 151936; m.hidden = 2048; m.layers = 48; m.heads = 32; m.kv_heads = 4; m.head_dim = 128; m.ffn = 6144;
    m.qk_norm = true; m.tied_embeddings = false;
    m.moe.num_experts = 128; m.moe.top_k = 8; m.moe.expert_ffn = 768;
    Scenario s = train_scenario(m);
    s.mode = Mode::FineTune;
    s.finetune.method = FineTuneMethod::QLoRA;
    s.train.seq_len = 512;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    // q_proj [32 * 128, 2048] in bf16: 2 x 4096 x 2048 = 16,777,216 B (experts are [768, 2048])
    CHECK(bytes_of(e, "buffers.dequant") == 2.0 * 4096 * 2048);
}

// Issue 14 item 13: PEFT modules_to_save. ModulesToSaveWrapper.update makes copy.deepcopy(original_module)
// trainable and sets original_module.requires_grad_(False) (peft src/peft/utils/other.py [peft-code]):
// the frozen original stays, and the copy has weights, gradients and optimizer states of its own, in
// the base model's dtype (cast_adapter_dtype upcasts only the LoRA layers' adapters).
TEST_CASE("LoRA modules_to_save: trainable copies of embed_tokens and lm_head beside the frozen originals (hand-derived)") {
    Scenario s = train_scenario(llama2_7b());
    s.mode = Mode::FineTune;
    s.finetune.method = FineTuneMethod::LoRA;
    s.train.precision = Precision::MixedBF16;
    const Estimate plain = estimate(s);
    REQUIRE(plain.ok());
    CHECK(bytes_of(plain, "saved.weights") == 0);

    // Llama-2-7b: embed_tokens and lm_head are 32000 x 4096 = 131,072,000 each (untied).
    s.finetune.save_embedding = true;
    s.finetune.save_lm_head = true;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    const double P = 2 * 131072000.0;
    CHECK(bytes_of(e, "saved.weights") == P * 2);       // bf16 copies
    CHECK(bytes_of(e, "saved.grads") == P * 2);         // bf16 gradients
    CHECK(bytes_of(e, "saved.optimizer") == P * 2 * 2); // torch AdamW exp_avg, exp_avg_sq in the parameter's dtype
    CHECK(bytes_of(e, "weights.frozen") == bytes_of(plain, "weights.frozen"));  // the originals stay
    // torch AdamW's foreach step makes sqrt(exp_avg_sq) of this bf16 group at once [pytorch-adam-code]: P x 2 B
    CHECK(bytes_of(e, "saved.foreach_temporaries") == P * 2);
    CHECK(e.components.size() == plain.components.size() + 4);

    // Only the head: one 131,072,000 copy.
    s.finetune.save_embedding = false;
    CHECK(bytes_of(estimate(s), "saved.weights") == 131072000.0 * 2);

    // Tied embeddings: embed_tokens and lm_head are one matrix, shared by the copy (PEFT's tied_module).
    Scenario t = s;
    t.model.tied_embeddings = true;
    t.finetune.save_embedding = true;
    t.finetune.save_lm_head = true;
    CHECK(bytes_of(estimate(t), "saved.weights") == 131072000.0 * 2);

    // QLoRA: the copy of the (16-bit, not quantized) embedding; paged 32-bit AdamW keeps fp32 states.
    s.finetune.method = FineTuneMethod::QLoRA;
    s.finetune.save_embedding = true;
    s.finetune.save_lm_head = false;
    const Estimate q = estimate(s);
    REQUIRE(q.ok());
    CHECK(bytes_of(q, "saved.weights") == 131072000.0 * 2);
    CHECK(bytes_of(q, "saved.optimizer") == 131072000.0 * 2 * 4);

    // Full fine-tuning trains the modules themselves: no copies, and a warning says so.
    s.finetune.method = FineTuneMethod::Full;
    const Estimate full = estimate(s);
    CHECK(bytes_of(full, "saved.weights") == 0);
    bool warned = false;
    for (const std::string& w : full.warnings) warned = warned || w.find("modules_to_save") != std::string::npos;
    CHECK(warned);
}

// Lit-GPT finetune/lora.py --quantize bnb.nf4: Fabric's BitsandbytesPrecision swaps lm_head too, and the 4-bit weights
// were quantized from an fp16 copy, so MatMul4Bit holds the fp16 dequantization and its bf16 cast at once
// [lightning-bnb-plugin] [bitsandbytes-041-code]. Llama-2-7b: head 32000 x 4096 = 131,072,000 weights, the largest
// layer matrix 4096 x 11008 = 45,088,768.
TEST_CASE("QLoRA through Lightning Fabric: a 4-bit head and an fp16 quant state (hand-derived)") {
    const double head = 32000.0 * 4096, mlp = 4096.0 * 11008;
    Scenario s = train_scenario(llama2_7b());
    s.mode = Mode::FineTune;
    s.finetune.method = FineTuneMethod::QLoRA;
    s.finetune.double_quant = false;
    s.train.seq_len = 512;
    const Estimate peft = estimate(s);
    REQUIRE(peft.ok());
    s.finetune.bnb_quantize_head = true;
    const Estimate fabric = estimate(s);
    REQUIRE(fabric.ok());
    // The head moves from 2 bytes a weight to 4 bits + an fp32 absmax per 64 weights.
    CHECK(bytes_of(fabric, "weights.nf4") - bytes_of(peft, "weights.nf4") == head / 2);
    CHECK(bytes_of(fabric, "weights.quant_constants") - bytes_of(peft, "weights.quant_constants") == head * 4 / 64);
    CHECK(bytes_of(peft, "weights.frozen") - bytes_of(fabric, "weights.frozen") == head * 2);
    CHECK(bytes_of(peft, "buffers.dequant") == mlp * 2);
    CHECK(bytes_of(fabric, "buffers.dequant") == head * 2);  // the head is the largest 4-bit matrix now
    s.finetune.bnb_fp16_quant_state = true;
    CHECK(bytes_of(estimate(s), "buffers.dequant") == head * (2 + 2));
    s.finetune.bnb_quantize_head = false;
    CHECK(bytes_of(estimate(s), "buffers.dequant") == mlp * (2 + 2));
    s.finetune.method = FineTuneMethod::LoRA;  // a setting of bitsandbytes' matmul: refused without QLoRA
    const Estimate lora = estimate(s);
    REQUIRE_FALSE(lora.ok());
    CHECK(lora.errors.front().field == "finetune.bnb_fp16_quant_state");
}

TEST_CASE("QLoRA prepared by PEFT's prepare_model_for_kbit_training (bf16-autocast): fp32 non-quantized weights and residual (hand-derived)") {
    // [peft-kbit-prep]: every bf16 parameter that is not 4-bit goes to fp32, and the Trainer's bf16 runs the model under
    // autocast. Llama-2-7b: embedding + lm_head 2 x 32000 x 4096 = 262,144,000 and 65 RMSNorms x 4096 = 266,240.
    const double rest = 2 * 32000.0 * 4096 + 65 * 4096.0;
    Scenario s = train_scenario(llama2_7b());
    s.mode = Mode::FineTune;
    s.finetune.method = FineTuneMethod::QLoRA;
    s.train.micro_batch = 1;
    s.train.seq_len = 512;
    s.train.recompute = Recompute::Full;
    s.train.precision = Precision::MixedBF16;
    const Estimate bf16 = estimate(s);
    s.train.precision = Precision::AutocastBF16;
    const Estimate prepared = estimate(s);
    REQUIRE(bf16.ok());
    REQUIRE(prepared.ok());
    CHECK(bytes_of(bf16, "weights.frozen") == rest * 2);      // 524,820,480 B
    CHECK(bytes_of(prepared, "weights.frozen") == rest * 4);  // 1,049,640,960 B
    CHECK(find(prepared, "weights.frozen")->label == std::string("frozen base: fp32 non-quantized weights (embeddings, head, norms)"));
    // The fp32 embedding starts an fp32 residual stream: each of the 32 checkpointed layer inputs is 1 x 512 x 4096 x 4 B.
    CHECK(bytes_of(bf16, "act.checkpoints") == 32 * 512 * 4096 * 2.0);
    CHECK(bytes_of(prepared, "act.checkpoints") == 32 * 512 * 4096 * 4.0);
    // The frozen fp32 head is cast to bf16 on use, not cached: 32000 x 4096 x 2 B; the 4-bit layers are dequantized instead.
    CHECK(bytes_of(prepared, "weights.autocast_copies") == 32000 * 4096 * 2.0);
}

TEST_CASE("Lit-GPT LoRAQKVLinear: one dropout over the fused qkv input, zero_pad's index_copy keeps lora_B's output (hand-derived)") {
    // A tiny Llama with one fused qkv Linear (as Lit-GPT's CausalSelfAttention.attn): h = 64, 4 heads of 16, 2 kv heads
    // (GQA: k and v are 32 wide), 2 layers; LoRA r = 8 on q and v, dropout 0.05, bf16 base and adapters, b = 2, s = 16:
    // T = 32 tokens [litgpt-lora-code].
    ModelSpec m = llama2_7b();
    m.vocab = 256; m.hidden = 64; m.layers = 2; m.heads = 4; m.kv_heads = 2; m.head_dim = 16; m.ffn = 128;
    m.fused_qkv = true;
    Scenario s = train_scenario(m);
    s.overheads = no_overheads();
    s.mode = Mode::FineTune;
    s.finetune.method = FineTuneMethod::LoRA;
    s.finetune.lora_rank = 8;
    s.finetune.lora_targets = kLoraQ | kLoraV;
    s.finetune.lora_dropout = 0.05;
    s.finetune.adapters_fp32 = false;
    s.train.precision = Precision::PureBF16;
    s.train.micro_batch = 2;
    s.train.seq_len = 16;
    const double T = 32, L = 2;
    const Estimate peft = estimate(s);
    REQUIRE(peft.ok());
    // PEFT-style separate q and v modules: per layer the lora_A outputs 2 B x T x r x 2 modules = 1,024 B and each
    // module's dropped copy + mask (2 + 1) B x T x (64 + 64) = 12,288 B: 2 layers = 26,624 B; no zero_pad.
    CHECK(bytes_of(peft, "act.lora") == Approx(L * (2 * T * 8 * 2 + 3 * T * 128)));
    CHECK(bytes_of(peft, "act.lora") == Approx(26624.0));
    CHECK(find(peft, "act.lora_zero_pad") == nullptr);

    s.finetune.lora_fused_qkv = true;
    const Estimate lit = estimate(s);
    REQUIRE(lit.ok());
    // One module: the same lora_A outputs (r rows per adapted part) and one 1-byte mask over the 64-wide input; its
    // dropped copy is lora_A's saved input, the layer's QKV input in act.attention: 2 x (1,024 + 2,048) = 6,144 B.
    CHECK(bytes_of(lit, "act.lora") == Approx(L * (2 * T * 8 * 2 + 1 * T * 64)));
    CHECK(bytes_of(lit, "act.lora") == Approx(6144.0));
    // zero_pad: index_copy saves lora_B's output, T x (q 64 + v 32) bf16 a layer: 2 x 2 x 32 x 96 = 12,288 B.
    CHECK(bytes_of(lit, "act.lora_zero_pad") == Approx(L * 2 * T * (64 + 32)));
    CHECK(bytes_of(lit, "act.lora_zero_pad") == Approx(12288.0));
    CHECK(bytes_of(lit, "act.attention") == Approx(bytes_of(peft, "act.attention")));

    // All of q, k and v adapted: zero_pad returns its input unpadded, nothing is kept.
    s.finetune.lora_targets = kLoraQ | kLoraK | kLoraV;
    CHECK(find(estimate(s), "act.lora_zero_pad") == nullptr);

    // Separate q, k, v projections cannot share one adapter module: refused with the field's name.
    s.model.fused_qkv = false;
    const Estimate bad = estimate(s);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.errors.front().field == "finetune.lora_fused_qkv");
}
