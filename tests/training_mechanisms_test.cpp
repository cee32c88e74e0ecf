// Training mechanisms of issue 14, each from its framework's source and derived by hand:
// PyTorch autocast over fp32 weights (transformers' Trainer fp16/bf16 on an fp32 model) next to the
// Megatron/DeepSpeed recipe [pytorch-autocast-code], and the causal-LM loss over the logits:
// transformers' ForCausalLMLoss with and without the shifted copy, and Liger-Kernel's fused linear
// cross-entropy [transformers-code] [transformers-pr35646] [liger-kernel-code].
#include <catch2/catch.hpp>

#include "model/presets.h"
#include "scenario_json.h"
#include "training/activations.h"
#include "training/training_internal.h"
#include "training_fixtures.h"

using namespace vl;
using namespace vl::testing;
using Catch::Detail::Approx;

namespace {
// Llama-2-7B: P = 6,738,415,616; per layer 4 * 4096^2 (q, k, v, o) + 3 * 4096 * 11008 (gate, up, down)
// = 202,375,168 matmul weights, x 32 layers = 6,476,005,376; embedding and lm_head 32000 * 4096 =
// 131,072,000 each; norms 32 * 2 * 4096 + 4096.
constexpr double kP = 6738415616.0;
constexpr double kLinear = 6476005376.0;
constexpr double kHead = 131072000.0;

// LoRA (default rank and targets) on Llama-2-7B in precision regime p, without overheads.
Scenario lora_llama2_7b(Precision p) {
    Scenario s = train_scenario(llama2_7b());
    s.mode = Mode::FineTune;
    s.overheads = no_overheads();
    s.finetune.method = FineTuneMethod::LoRA;
    s.train.precision = p;
    return s;
}
}  // namespace

TEST_CASE("autocast (Trainer bf16 over an fp32 model): fp32 weights, grads and Adam, and a bf16 copy of every matmul weight") {
    Scenario s = train_scenario(llama2_7b());
    s.overheads = no_overheads();
    s.train.precision = Precision::AutocastBF16;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    CHECK(bytes_of(e, "weights") == Approx(4 * kP));
    CHECK(bytes_of(e, "grads") == Approx(4 * kP));
    CHECK(bytes_of(e, "optimizer.states") == Approx(8 * kP));
    CHECK(find(e, "optimizer.master") == nullptr);  // the weights are the fp32 copy
    // autocast casts each fp32 matmul weight (layers and lm_head, not the embedding lookup) to bf16 on
    // use; the cast is cached and saved for backward: 2 * (6,476,005,376 + 131,072,000) B
    const Component* copies = find(e, "weights.autocast_copies");
    REQUIRE(copies != nullptr);
    CHECK(copies->bytes == Approx(2 * (kLinear + kHead)));
    CHECK(copies->bytes == Approx(13214154752.0));
    CHECK(copies->phases == (phase_bit(Phase::Forward) | phase_bit(Phase::Backward)));  // freed by the optimizer step

    // The Megatron/DeepSpeed recipe keeps 16-bit weights and an fp32 master copy instead, and no casts.
    s.train.precision = Precision::MixedBF16;
    const Estimate m = estimate(s);
    CHECK(bytes_of(m, "weights") == Approx(2 * kP));
    CHECK(bytes_of(m, "optimizer.master") == Approx(4 * kP));
    CHECK(find(m, "weights.autocast_copies") == nullptr);
}

TEST_CASE("zero_grad(set_to_none=True): plain PyTorch allocates the gradients during backward, Megatron-style buffers keep them") {
    // torch.optim frees .grad at zero_grad (set_to_none, the default since PyTorch 2.0): the backward
    // starts with the activations and no gradients, and the step holds all 4 * P bytes of fp32
    // gradients and no activations [pytorch-zero-grad]. Accumulating over micro-batches keeps them.
    Scenario s = train_scenario(llama2_7b());
    s.overheads = no_overheads();
    s.train.precision = Precision::AutocastBF16;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    const Component* g = find(e, "grads");
    REQUIRE(g != nullptr);
    CHECK(g->bytes == Approx(4 * kP));
    CHECK(g->phases == phase_bit(Phase::Step));
    const PhaseTotals grads = phase_totals(e.components, category_bit(Category::Gradients));
    CHECK(grads.gpu[static_cast<size_t>(Phase::Backward)] == 0);
    CHECK(grads.gpu[static_cast<size_t>(Phase::Step)] == Approx(4 * kP));

    // Two micro-batches: the first backward's gradients are there when the second one runs, so the
    // backward holds activations and gradients, 4 * 6,738,415,616 B more than with one.
    Scenario acc = s;
    acc.train.grad_accum_steps = 2;
    const Estimate a = estimate(acc);
    CHECK(find(a, "grads")->phases == (phase_bit(Phase::Forward) | phase_bit(Phase::Backward) | phase_bit(Phase::Step)));
    // (Without the allocator reserve, which joins the peak phase only: one micro-batch peaks at the step, where foreach
    // AdamW's sqrt(v) [pytorch-adam-code] joins the gradients, two in backward.)
    const unsigned allocated = kAllCategories & ~category_bit(Category::Overhead);
    CHECK(phase_totals(a.components, allocated).gpu[static_cast<size_t>(Phase::Backward)] -
              phase_totals(e.components, allocated).gpu[static_cast<size_t>(Phase::Backward)] == Approx(4 * kP));

    // The 16-bit weights + fp32 master recipe (Megatron, DeepSpeed) keeps a persistent gradient buffer.
    s.train.precision = Precision::MixedBF16;
    CHECK(find(estimate(s), "grads")->phases == (phase_bit(Phase::Backward) | phase_bit(Phase::Step)));
}

TEST_CASE("eager attention in transformers: an fp32 softmax and its cast to the activation dtype, both saved") {
    // eager_attention_forward: softmax(scores, dim=-1, dtype=torch.float32).to(query.dtype), dropout,
    // then attn_weights @ V. The softmax saves its fp32 output, the matmul the 16-bit cast (or the
    // dropped copy with its 1-byte mask) [transformers-code]. Llama-2-7B, b = 1, s = 1024: S2 = 32 heads
    // * 1024^2 = 33,554,432 elements per layer.
    const double S2 = 32.0 * 1024 * 1024;
    LayerDims L = layer_dims(llama2_7b(), false);
    ActShape x;
    x.b = 1; x.s = 1024; x.flash = false;
    CHECK(layer_activations(L, x).scores == Approx(2 * S2));  // a 16-bit softmax output alone (Megatron's fused softmax)
    x.softmax_fp32 = true;
    CHECK(layer_activations(L, x).scores == Approx((4 + 2) * S2));  // 201,326,592 B
    x.attn_dropout = 0.1;
    CHECK(layer_activations(L, x).scores == Approx((4 + 1 + 2) * S2));
    x.attn_dropout = 0; x.act_bytes = 4;  // fp32 training: .to(float32) is the same tensor
    CHECK(layer_activations(L, x).scores == Approx(4 * S2));

    // Which regimes run transformers' eager code: the plain PyTorch ones (here autocast), not bf16-mixed.
    Scenario s = train_scenario(llama2_7b());
    s.train.flash_attention = false;
    s.train.precision = Precision::AutocastBF16;
    CHECK(activation_shape(s, training_dtypes(s.train)).softmax_fp32);
    s.train.precision = Precision::MixedBF16;
    CHECK_FALSE(activation_shape(s, training_dtypes(s.train)).softmax_fp32);
}

TEST_CASE("PEFT LoRA: each adapted module saves its own cast of its input when the adapter computes in another dtype") {
    // LoraLayer.forward: x = self._cast_input_dtype(x, lora_A.weight.dtype); lora_B(lora_A(dropout(x))).
    // fp32 adapters (autocast_adapter_dtype) on a bf16 base: under autocast lora_A's matmul casts x back
    // to bf16 and saves that cast (2 B per element); without autocast it saves the fp32 copy (4 B) and
    // its output is fp32. The frozen base linear saves no input, so q, k, v no longer share one saved x
    // [peft-code] [pytorch-autocast-code]. Llama-2-7B, b = 1, s = 1024, targets q and v, r = 16.
    Scenario s = train_scenario(llama2_7b());
    s.mode = Mode::FineTune;
    s.finetune.method = FineTuneMethod::LoRA;
    s.finetune.lora_targets = kLoraQ | kLoraV;
    s.finetune.lora_rank = 16;
    s.train.micro_batch = 1;
    s.train.seq_len = 1024;
    const double T = 1024, h = 4096;
    const LayerDims L = layer_dims(llama2_7b(), false);

    s.train.precision = Precision::MixedBF16;  // Trainer bf16=True on a bf16 model: autocast
    ActShape x = activation_shape(s, training_dtypes(s.train));
    CHECK(x.adapter_in_bytes == 2);
    CHECK(x.qkv_in_copies == 2);
    ActShape shared = x;
    shared.adapter_in_bytes = 0;
    shared.qkv_in_copies = 1;
    // two bf16 casts (q, v) instead of one shared bf16 x: + 2 * T * h = 8,388,608 B per layer
    CHECK(layer_activations(L, x).attention - layer_activations(L, shared).attention == Approx(2 * T * h));
    CHECK(layer_activations(L, x).attention - layer_activations(L, shared).attention == Approx(8388608.0));

    s.train.precision = Precision::PureBF16;  // no autocast: fp32 copies, 4 B each
    x = activation_shape(s, training_dtypes(s.train));
    CHECK(x.adapter_in_bytes == 4);
    CHECK(layer_activations(L, x).attention - layer_activations(L, shared).attention == Approx((2 * 4 - 2) * T * h));
    s.finetune.adapters_fp32 = false;  // bf16 adapters on a bf16 base: nothing is cast, x is shared
    CHECK(activation_shape(s, training_dtypes(s.train)).adapter_in_bytes == 0);
    s.train.precision = Precision::FP32;
    s.finetune.adapters_fp32 = true;
    CHECK(activation_shape(s, training_dtypes(s.train)).adapter_in_bytes == 0);

    // The lora_A outputs: fp32 without autocast (4 * T * r per module), 32 layers, 2 modules:
    // 4 * 1024 * 16 * 2 * 32 = 4,194,304 B; under autocast bf16: 2,097,152 B.
    s.overheads = no_overheads();
    s.train.precision = Precision::PureBF16;
    CHECK(bytes_of(estimate(s), "act.lora") == Approx(4194304.0));
    s.train.precision = Precision::MixedBF16;
    CHECK(bytes_of(estimate(s), "act.lora") == Approx(2097152.0));
}

TEST_CASE("GPT-2 gelu_new saves 0.5*x, tanh and 1 + tanh beside its input, a fused GELU only its input") {
    // NewGELUActivation: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))) as separate ops
    // [transformers-code]: the last product saves both factors, tanh its output. GPT-2 small (ffn 3072),
    // b = 1, s = 1024: each saved tensor of the MLP width is T * f = 3,145,728 elements.
    ModelSpec gpt2 = find_model("gpt2")->spec;
    REQUIRE(gpt2.activation == MlpActivation::GeluNew);
    const double Tf = 1024.0 * 3072;
    ActShape x;
    x.b = 1; x.s = 1024; x.act_bytes = 4; x.linear_in_bytes = 4;  // fp32 training
    const double with = layer_activations(layer_dims(gpt2, false), x).mlp;
    gpt2.activation = MlpActivation::Fused;
    const double fused = layer_activations(layer_dims(gpt2, false), x).mlp;
    CHECK(with - fused == Approx(3 * 4 * Tf));  // 37,748,736 B per layer
    // Autocast: x is the bf16 matmul output, pow runs in fp32, so tanh and 1 + tanh are fp32: 2 + 4 + 4 B.
    x.act_bytes = 2; x.linear_in_bytes = 2; x.residual_bytes = 4; x.norm_out_bytes = 4;
    gpt2.activation = MlpActivation::GeluNew;
    const double ac = layer_activations(layer_dims(gpt2, false), x).mlp;
    gpt2.activation = MlpActivation::Fused;
    CHECK(ac - layer_activations(layer_dims(gpt2, false), x).mlp == Approx(10 * Tf));
}

TEST_CASE("autocast with full recomputation: the layers' weight casts leave with forward's autocast cache, backward holds the head's and one layer's") {
    // Checkpointed layers save nothing in forward [pytorch-checkpoint-code], so their casts are held only by
    // autocast's cache, cleared when the forward's autocast exits [pytorch-autocast-code]. Backward keeps
    // the output layer's cast (saved by its matmul) and the recomputed layer's own casts. Llama-2-7B:
    // 2 * (131,072,000 + 6,476,005,376 / 32) = 2 * (131,072,000 + 202,375,168) = 666,894,336 B.
    Scenario s = train_scenario(llama2_7b());
    s.overheads = no_overheads();
    s.train.precision = Precision::AutocastBF16;
    s.train.recompute = Recompute::Full;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    const Component* fwd = find(e, "weights.autocast_copies");
    REQUIRE(fwd != nullptr);
    CHECK(fwd->bytes == Approx(2 * (kLinear + kHead)));
    CHECK(fwd->phases == phase_bit(Phase::Forward));
    const Component* bwd = find(e, "weights.autocast_copies_backward");
    REQUIRE(bwd != nullptr);
    CHECK(bwd->bytes == Approx(666894336.0));
    CHECK(bwd->phases == phase_bit(Phase::Backward));
    // Without recomputation every cast is saved by its matmul until backward: no second component.
    s.train.recompute = Recompute::None;
    CHECK(find(estimate(s), "weights.autocast_copies_backward") == nullptr);
}

TEST_CASE("autocast: the fp32 residual stream, fp32 norm outputs and one bf16 cast of the normed input per projection") {
    // HF LlamaDecoderLayer under autocast over fp32 weights: the embedding's fp32 output makes the
    // residual stream fp32; LlamaRMSNorm saves its fp32 input and the weight multiply its normalized fp32
    // input; q_proj, k_proj, v_proj (gate_proj, up_proj) each cast the normed input to bf16 and save the cast.
    LayerDims L = layer_dims(llama2_7b(), false);
    ActShape x;
    x.b = 1; x.s = 1024;
    const LayerActivations plain = layer_activations(L, x);
    x.residual_bytes = 4; x.norm_out_bytes = 4; x.qkv_in_copies = 3; x.fc1_in_copies = 2;
    const LayerActivations ac = layer_activations(L, x);
    const double Th = 1024.0 * 4096;
    CHECK(ac.norms == Approx(2 * (4 + 4) * Th));           // was 2 norms x 2 B
    CHECK(plain.norms == Approx(2 * 2 * Th));
    CHECK(ac.attention - plain.attention == Approx(2 * 2 * Th));  // qkv_in: 3 casts instead of 1
    CHECK(ac.mlp - plain.mlp == Approx(1 * 2 * Th));              // fc1_in: gate and up casts instead of 1
    CHECK(ac.input == Approx(4 * Th));                      // full recomputation keeps fp32 layer inputs

    Scenario s = train_scenario(llama2_7b());
    s.overheads = no_overheads();
    s.train.precision = Precision::AutocastFP16;
    s.train.seq_len = 1024;
    s.train.recompute = Recompute::Full;
    CHECK(bytes_of(estimate(s), "act.checkpoints") == Approx(32 * 4 * Th));
}

TEST_CASE("autocast: LayerNorm and frozen norms save no normalized output, a fused qkv Linear casts its input once") {
    // Under autocast layer_norm runs in fp32 and saves its input, mean and rstd, not its output
    // [pytorch-autocast-code] [pytorch-docs]; HF RMSNorm's weight multiply saves the normalized fp32
    // input only for the weight's gradient, so a frozen norm (LoRA) saves none [transformers-code].
    // GPT-NeoX's query_key_value is one Linear: one bf16 cast of its input, not one per projection.
    Scenario llama = train_scenario(llama2_7b());
    llama.train.precision = Precision::AutocastBF16;
    const Dtypes dt = training_dtypes(llama.train);
    const ActShape xl = activation_shape(llama, dt);
    CHECK(xl.norm_out_bytes == 4);   // trained RMSNorm
    CHECK(xl.qkv_in_copies == 3);    // q_proj, k_proj, v_proj
    CHECK(xl.fc1_in_copies == 2);    // gate_proj, up_proj

    Scenario neox = llama;
    neox.model = find_model("pythia-410m")->spec;
    REQUIRE(neox.model.fused_qkv);
    REQUIRE(neox.model.norm == NormKind::LayerNorm);
    const ActShape xn = activation_shape(neox, dt);
    CHECK(xn.norm_out_bytes == 0);
    CHECK(xn.qkv_in_copies == 1);
    CHECK(xn.fc1_in_copies == 1);    // dense_h_to_4h
    // Pythia-410m (h = 1024), b = 1, s = 2048, T * h = 2,097,152: 2 norms x 4 B (the fp32 residual) and
    // the fused projection's one 2-byte cast.
    const double Th = 2048.0 * 1024;
    const LayerActivations a = layer_activations(layer_dims(neox.model, false), [&] {
        ActShape x = xn;
        x.b = 1; x.s = 2048;
        return x;
    }());
    CHECK(a.norms == Approx(2 * 4 * Th));
    ActShape three = xn;
    three.b = 1; three.s = 2048; three.qkv_in_copies = 3;
    CHECK(layer_activations(layer_dims(neox.model, false), three).attention - a.attention == Approx(2 * 2 * Th));

    Scenario lora = llama;
    lora.mode = Mode::FineTune;
    lora.finetune.method = FineTuneMethod::LoRA;
    CHECK(activation_shape(lora, dt).norm_out_bytes == 0);  // frozen RMSNorm weights
}

TEST_CASE("config import: fused_qkv for the architectures whose q, k and v are one Linear") {
    // GPT-2 c_attn, GPT-NeoX query_key_value (modeling_gpt2.py, modeling_gpt_neox.py [transformers-code]);
    // Llama and Qwen2 have q_proj, k_proj, v_proj.
    CHECK(find_model("gpt2")->spec.fused_qkv);
    CHECK(find_model("pythia-410m")->spec.fused_qkv);
    CHECK_FALSE(find_model("llama-3.1-8b")->spec.fused_qkv);
    CHECK_FALSE(find_model("qwen2.5-1.5b")->spec.fused_qkv);
}

TEST_CASE("autocast over an fp32 base with LoRA: the frozen fp32 weights are cast on use and the casts saved") {
    const Estimate e = estimate(lora_llama2_7b(Precision::AutocastBF16));
    REQUIRE(e.ok());
    CHECK(bytes_of(e, "weights.frozen") == Approx(4 * kP));
    CHECK(bytes_of(e, "weights.autocast_copies") == Approx(2 * (kLinear + kHead)));
}

TEST_CASE("loss hf-upcast: bf16 logits, their fp32 copy and the fp32 log-softmax in forward, two fp32 gradients in the loss backward") {
    // transformers ForCausalLMLoss: logits.float(), then cross_entropy = log_softmax + nll_loss.
    Scenario s = train_scenario(llama2_7b());
    s.train.seq_len = 4096;
    const double N = 4096.0 * 32000;  // b * s * V logits
    const Estimate e = estimate(s);
    REQUIRE(find(e, "logits") != nullptr);
    CHECK(bytes_of(e, "logits") == Approx(2 * N));
    CHECK(find(e, "logits")->phases == phase_bit(Phase::Forward));
    CHECK(bytes_of(e, "logits.fp32") == Approx(4 * N));
    CHECK(find(e, "logits.fp32")->phases == phase_bit(Phase::Forward));
    CHECK(bytes_of(e, "logits.loss") == Approx(4 * N));
    CHECK(find(e, "logits.loss")->phases == phase_bit(Phase::Forward));
    CHECK(find(e, "logits.shift_copy") == nullptr);
    // per logit: 2 + 4 + 4 = 10 B at the end of forward; the loss backward holds the log-softmax output and
    // its two fp32 gradients, 4 + 8 = 12 B, in backward's working set (larger here than one layer's backward)
    const PhaseTotals lt = phase_totals(e.components, category_bit(Category::Logits));
    CHECK(lt.gpu[static_cast<size_t>(Phase::Forward)] == Approx(10 * N));
    CHECK(lt.gpu[static_cast<size_t>(Phase::Backward)] == 0);
    CHECK(bytes_of(e, "act.backward_working") == Approx(12 * N));

    // transformers before PR #35646: + a contiguous fp32 copy of the shifted logits, 14 B per logit in forward
    s.train.loss = LossImpl::UpcastShift;
    const Estimate old = estimate(s);
    CHECK(bytes_of(old, "logits.shift_copy") == Approx(4 * N));
    CHECK(phase_totals(old.components, category_bit(Category::Logits)).gpu[static_cast<size_t>(Phase::Forward)] == Approx(14 * N));

    // fp32 training: .float() returns the same tensor, no copy
    s.train.loss = LossImpl::Upcast;
    s.train.precision = Precision::FP32;
    const Estimate f32 = estimate(s);
    CHECK(find(f32, "logits.fp32") == nullptr);
    CHECK(bytes_of(f32, "logits") == Approx(4 * N));
}

TEST_CASE("loss fused: Liger-Kernel's chunk rule, and no b x s x V tensor") {
    // Liger-Kernel's own example: BT = 4096 * 4, V = 32000, H = 4096 -> inc_factor 8, chunk_size 2048.
    CHECK(fused_loss_chunk_rows(16384, 32000, 4096) == 2048);
    // next power of two: ceil(1000 / 8) = 125 -> 128 rows; never more than the tokens (V <= H: one
    // chunk of next_power_of_2(3) = 4 rows, cut to the 3 tokens)
    CHECK(fused_loss_chunk_rows(1000, 32000, 4096) == 128);
    CHECK(fused_loss_chunk_rows(3, 100, 4096) == 3);
    CHECK(fused_loss_chunk_rows(3, 32000, 4096) == 1);  // ceil(3 / 8) = 1 row per chunk

    Scenario s = train_scenario(llama2_7b());
    s.train.micro_batch = 4;
    s.train.seq_len = 4096;
    s.train.loss = LossImpl::Fused;
    const Estimate e = estimate(s);
    CHECK(find(e, "logits") == nullptr);
    CHECK(find(e, "logits.loss") == nullptr);
    CHECK(bytes_of(e, "logits.fused_chunk") == Approx(2048.0 * 32000 * 2));
    CHECK(bytes_of(e, "logits.fused_grad_input") == Approx(16384.0 * 4096 * 2));
}

TEST_CASE("scenario format: train.loss and the autocast precisions by name, and an unknown loss names the field") {
    auto r = scenario_from_json(R"({"version": 1, "train": {"precision": "bf16-autocast", "loss": "fused"}})");
    REQUIRE(r.ok());
    CHECK(r->train.precision == Precision::AutocastBF16);
    CHECK(r->train.loss == LossImpl::Fused);
    CHECK(scenario_from_json(R"({"version": 1, "train": {"precision": "fp16-autocast", "loss": "hf-upcast-shift"}})")->train.loss ==
          LossImpl::UpcastShift);
    auto bad = scenario_from_json(R"({"version": 1, "train": {"loss": "liger"}})");
    REQUIRE_FALSE(bad.ok());
    REQUIRE(bad.errors.size() == 1);
    CHECK(bad.errors[0].field == "train.loss");
}

TEST_CASE("offloaded checkpoints: full recomputation's layer inputs in host RAM, one back on the GPU in backward [unsloth-offload]") {
    // Llama-3.1-8B LoRA, b 1, s 32768, full recomputation: each checkpoint is b * s * h * 2 B = 32768 * 4096 * 2
    // = 268,435,456 B; 32 layers hold 8 GiB. Offloaded: that 8 GiB is host memory, the GPU holds one checkpoint in backward.
    Scenario s;
    s.mode = Mode::FineTune;
    s.finetune.method = FineTuneMethod::LoRA;
    s.train.micro_batch = 1;
    s.train.seq_len = 32768;
    s.train.recompute = Recompute::Full;
    s.overheads.fragmentation = 0;  // the allocator's reserve scales the peak; compare allocated bytes
    const Estimate kept = estimate(s);
    REQUIRE(kept.ok());
    s.train.offload_checkpoints = true;
    const Estimate off = estimate(s);
    REQUIRE(off.ok());
    auto find = [](const Estimate& e, const std::string& id) -> const Component* {
        for (const Component& c : e.components)
            if (c.id == id) return &c;
        return nullptr;
    };
    const Component* ck = find(kept, "act.checkpoints");
    const Component* ck_off = find(off, "act.checkpoints");
    const Component* back = find(off, "act.checkpoint_restored");
    REQUIRE(ck);
    REQUIRE(ck_off);
    REQUIRE(back);
    CHECK(ck->bytes == 32.0 * 268435456);
    CHECK_FALSE(ck->host);
    CHECK(ck_off->bytes == 32.0 * 268435456);
    CHECK(ck_off->host);
    CHECK(back->bytes == 268435456.0);
    CHECK(back->phases == phase_bit(Phase::Backward));
    // The GPU peak drops by 31 checkpoints (the backward peak held all 32; now one).
    CHECK(kept.total_bytes - off.total_bytes == 31.0 * 268435456);
    CHECK(off.host_bytes >= 32.0 * 268435456);

    s.train.recompute = Recompute::None;
    const Estimate bad = estimate(s);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.errors[0].field == "train.offload_checkpoints");
}

TEST_CASE("MoE capacity factor: experts take ceil(T * top_k / E * factor) tokens each, padded or dropped [megatron-moe]") {
    // Mixtral-8x7B, b 1, s 4096: T * top_k = 8192 routed copies over 8 experts (1024 each when balanced).
    // Padded at factor 1.25: ceil(1024 * 1.25) = 1280 per expert, 10240 in all; factor 0.5 without padding
    // drops to 4096; factor 1.5 without padding keeps the balanced 8192. Everything else in the layer's MLP
    // group is the same, and the routed part is linear in the routed tokens, so the differences compare as
    // (10240 - 8192) : (8192 - 4096) = 1 : 2.
    const ModelSpec m = find_model("mixtral-8x7b")->spec;
    const LayerDims L = layer_dims(m, true);
    ActShape x;
    x.b = 1;
    x.s = 4096;
    const double dropless = layer_activations(L, x).mlp;
    x.expert_capacity = 1.25;
    x.pad_to_capacity = true;
    const double padded = layer_activations(L, x).mlp;
    x.expert_capacity = 0.5;
    x.pad_to_capacity = false;
    const double dropped = layer_activations(L, x).mlp;
    x.expert_capacity = 1.5;
    CHECK(layer_activations(L, x).mlp == dropless);
    REQUIRE(dropless > dropped);
    CHECK((padded - dropless) / (dropless - dropped) == Approx(0.5).epsilon(1e-12));

    Scenario s;
    s.model = m;
    s.train.moe_pad_expert_input_to_capacity = true;
    const Estimate bad = estimate(s);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.errors[0].field == "train.moe_pad_expert_input_to_capacity");
}

TEST_CASE("a 16-bit residual in transformers: each RMSNorm saves the fp32 upcast of its input, not the 16-bit input") {
    // LlamaRMSNorm: hidden_states.to(torch.float32), then pow(2) and the rsqrt multiply save that fp32 copy
    // [transformers-code]; under autocast layer_norm computes in fp32 on a cast input it saves
    // [pytorch-autocast-code]. LoRA on a bf16 base (bf16-mixed), Llama-2-7B, b = 1, s = 1024, T * h =
    // 4,194,304: 32 layers x 2 norms x 4 B x T * h = 1,073,741,824 B; the final norm's 4 * T * h = 16,777,216 B.
    Scenario s = lora_llama2_7b(Precision::MixedBF16);
    s.train.micro_batch = 1;
    s.train.seq_len = 1024;
    CHECK(activation_shape(s, training_dtypes(s.train)).norm_in_bytes == 4);
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    CHECK(bytes_of(e, "act.norms") == Approx(1073741824.0));
    CHECK(bytes_of(e, "act.final") == Approx(16777216.0));  // the head is frozen: no saved head input

    s.train.precision = Precision::PureBF16;  // no autocast: RMSNorm still upcasts by itself
    CHECK(activation_shape(s, training_dtypes(s.train)).norm_in_bytes == 4);
    Scenario ln = s;  // a LayerNorm model in pure bf16 runs layer_norm in bf16 and saves the bf16 input
    ln.model = find_model("gpt2")->spec;
    CHECK(activation_shape(ln, training_dtypes(ln.train)).norm_in_bytes == 0);
    ln.train.precision = Precision::MixedBF16;  // under autocast it is cast to fp32
    CHECK(activation_shape(ln, training_dtypes(ln.train)).norm_in_bytes == 4);

    // Megatron/DeepSpeed's bf16-mixed full training (fused norms) keeps the 16-bit input: unchanged.
    Scenario full = train_scenario(llama2_7b());
    full.train.precision = Precision::MixedBF16;
    CHECK(activation_shape(full, training_dtypes(full.train)).norm_in_bytes == 0);
    // Autocast over fp32 weights: the residual is fp32 already (residual_bytes), no second copy.
    full.train.precision = Precision::AutocastBF16;
    CHECK(activation_shape(full, training_dtypes(full.train)).norm_in_bytes == 0);
}

TEST_CASE("a fused qkv Linear with rotary positions: the saved v keeps the whole fused output alive") {
    // GPTNeoXAttention: qkv = query_key_value(x).view(...).transpose(1, 2); q, k, v = qkv.chunk(3, dim=-1);
    // apply_rotary_pos_emb returns new q and k, and attention saves v, a view of qkv [transformers-code].
    // Pythia-410m (h = 1024, 16 heads), fp32 training, b = 1, s = 2048: the fused output's q and k parts,
    // 4 B x 2,048 x (1,024 + 1,024) = 16,777,216 B per layer beyond q, k and v themselves.
    Scenario s = train_scenario(find_model("pythia-410m")->spec);
    s.train.precision = Precision::FP32;
    s.train.micro_batch = 1;
    s.train.seq_len = 2048;
    const Dtypes dt = training_dtypes(s.train);
    const ActShape x = activation_shape(s, dt);
    CHECK(x.qkv_view_keeps_fused);
    ActShape apart = x;
    apart.qkv_view_keeps_fused = false;
    const LayerDims L = layer_dims(s.model, false);
    CHECK(layer_activations(L, x).attention - layer_activations(L, apart).attention == Approx(16777216.0));
    // GPT-2's c_attn has no rotary: q, k and v are all views of one output, counted once as q, k and v.
    s.model = find_model("gpt2")->spec;
    CHECK_FALSE(activation_shape(s, dt).qkv_view_keeps_fused);
    // Separate q_proj, k_proj, v_proj (Llama): nothing is shared.
    s.model = llama2_7b();
    CHECK_FALSE(activation_shape(s, dt).qkv_view_keeps_fused);
}

TEST_CASE("backward holds the larger of the loss backward and one layer's backward, never both") {
    // The loss backward (log-softmax output + nll_loss's and log_softmax's fp32 gradients) is freed once the
    // gradient has passed the output layer, before the last layer's backward [pytorch-docs].
    // Llama-2-7B, b = 1, s = 4096, bf16-mixed, FlashAttention: N = 4096 * 32,000 logits.
    Scenario s = train_scenario(llama2_7b());
    s.train.seq_len = 4096;
    const double N = 4096.0 * 32000;
    // one layer (T = 4096, h = 4096, bf16): norms 2 * 2Th = 67,108,864; attention 168,296,448
    // (tests/derivation_test.cpp); gated MLP: fc1 input 2Th = 33,554,432 + SiLU input, SiLU and up outputs,
    // down input 4 * 2 * T * 11,008 = 360,710,144; sum 629,669,888
    const double A = 629669888.0;
    REQUIRE(bytes_of(estimate(s), "act.mlp") / 32 == Approx(33554432.0 + 360710144.0));
    // full recomputation: one layer recomputed + its gradients, 2A = 1,259,339,776 < the loss's 12N = 1,572,864,000
    s.train.recompute = Recompute::Full;
    CHECK(bytes_of(estimate(s), "act.backward_working") == Approx(12 * N));
    // every 4 layers: 4 layers recomputed + one layer's gradients, 5A = 3,148,349,440 > 12N
    s.train.recompute = Recompute::EveryK;
    s.train.recompute_every_k = 4;
    const Estimate k4 = estimate(s);
    CHECK(bytes_of(k4, "act.backward_working") == Approx(5 * A));
    // neither side is added to the other: the backward phase's activations are the 8 checkpoints
    // (8 * 2Th), the token ids (8T), the final norm and head inputs (2 * 2Th) and 5A
    const double Th2 = 2.0 * 4096 * 4096;
    CHECK(phase_totals(k4.components, category_bit(Category::Activations) | category_bit(Category::Logits)).gpu[static_cast<size_t>(Phase::Backward)] ==
          Approx(8 * Th2 + 8 * 4096.0 + 2 * Th2 + 5 * A));
}

TEST_CASE("GPT-2 training without checkpointing: the DynamicCache copies of K and V come on top of the fused c_attn output") {
    // openai-community/gpt2: h = 768, 12 heads, 12 layers; fp32 (no autocast), b = 8, s = 1024, SDPA.
    // Saved per layer: c_attn input, the fused c_attn output (q, k, v views, kept whole by q), the
    // attention output (c_proj input), the fp32 log-sum-exp, and DynamicLayer.update's torch.cat copies
    // of K and V [transformers-code].
    Scenario s = train_scenario(find_model("gpt2")->spec);
    s.train.precision = Precision::FP32;
    s.train.micro_batch = 8;
    s.train.seq_len = 1024;
    const double Th4 = 4.0 * 8 * 1024 * 768;  // one b x s x h fp32 tensor: 25,165,824 B
    const double lse = 4.0 * 8 * 12 * 1024;  // 393,216 B
    const Estimate e = estimate(s, Detail::Full);
    CHECK(bytes_of(e, "act.attention") == Approx(12 * (7 * Th4 + lse)));
    CHECK_THAT(std::string(find(e, "act.attention")->formula()), Catch::Contains("kv_cache_copies = a_bytes * T * (kv_dim + kv_dim)"));
    // gradient checkpointing turns use_cache off: the recomputed layer has no copies
    s.train.recompute = Recompute::Full;
    const Estimate ckpt = estimate(s, Detail::Full);
    CHECK_THAT(std::string(find(ckpt, "act.backward_working")->formula()), !Catch::Contains("kv_cache_copies"));
    // separate q, k, v projections (Llama): the cache copies replace the K and V attention would save
    Scenario llama = train_scenario(llama2_7b());
    llama.train.precision = Precision::FP32;
    CHECK_THAT(std::string(find(estimate(llama, Detail::Full), "act.attention")->formula()), !Catch::Contains("kv_cache_copies"));
}
