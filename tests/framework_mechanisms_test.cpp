// Two framework mechanisms that keep more than the textbook formula says, each a scenario switch:
// - FSDP1 flat parameters (parallel.fsdp_flat_params): a wrapped block holding LoRA adapters is one flat
//   parameter that requires grad, so its frozen weights get gradients too; no_sync() accumulation
//   (parallel.no_sync_accumulation) keeps those gradients unsharded until the step [pytorch-fsdp].
// - bitsandbytes before 0.43.2 (finetune.bnb_saves_inputs): MatMul4Bit saved each 4-bit layer's input
//   for backward although the frozen weight needs no gradient [bnb-pr1270].
// - A training loop that keeps `logits` in scope (train.loop_holds_logits, LitGPT's finetune scripts
//   [litgpt-code]) holds them through backward.
// Values derived by hand from meta-llama/Llama-2-7b-hf's config.json (tests/training_fixtures.h):
// hidden 4096, ffn 11008, 32 layers, vocab 32000, no biases. One layer: attention 4 * 4096^2 =
// 67,108,864, MLP 3 * 4096 * 11008 = 135,266,304, two RMSNorm weights 8,192: 202,383,360 parameters;
// 32 layers 6,476,267,520; with the embedding and head (2 * 32000 * 4096) and the final norm 6,738,415,616.
#include <catch2/catch.hpp>

#include <cstring>

#include "estimate.h"
#include "training_fixtures.h"
#include "component_lookup.h"

using namespace vl;
using test::bytes_of;
using test::find;
using test::has_error;

namespace {



constexpr double kLayerParams = 32 * 202383360.0;  // 6,476,267,520
constexpr double kAllParams = 6738415616.0;

// Llama-2-7B over dp ranks at ZeRO stage `zero`, micro-batch 1 x 1024 tokens.
Scenario llama2_7b_run(Mode mode, Precision precision, int64_t dp, int zero) {
    Scenario s;
    s.mode = mode;
    s.model = testing::llama2_7b();
    s.train.precision = precision;
    s.train.micro_batch = 1;
    s.train.seq_len = 1024;
    s.parallel.dp = dp;
    s.parallel.zero = zero;
    s.gpu_count = dp;
    return s;
}

// Adapters of rank 8 on q and v, kept in the base's bf16 (LitGPT's and PEFT's autocast_adapter_dtype=False).
Scenario lora_on_qv(Scenario s, FineTuneMethod method) {
    s.finetune.method = method;
    s.finetune.lora_rank = 8;
    s.finetune.lora_targets = kLoraQ | kLoraV;
    s.finetune.adapters_fp32 = false;
    return s;
}

// LitGPT finetune/lora.py on dp GPUs: bf16-true, LoRA on q and v, FSDP full shard and checkpointing per Block.
Scenario lora_fsdp(int64_t dp) {
    Scenario s = lora_on_qv(llama2_7b_run(Mode::FineTune, Precision::PureBF16, dp, 3), FineTuneMethod::LoRA);
    s.train.recompute = Recompute::Full;
    return s;
}

}  // namespace

TEST_CASE("FSDP flat parameters: frozen block weights sharing a flat parameter with LoRA get gradients") {
    Scenario s = lora_fsdp(2);
    CHECK(find(estimate(s), "grads.frozen_flat") == nullptr);  // off: frozen weights have no gradient

    s.parallel.fsdp_flat_params = true;
    const Estimate synced = estimate(s);
    REQUIRE(synced.ok());
    // Every step reduce-scatters: each rank keeps its half of the blocks' bf16 gradients, 6,476,267,520 * 2 B / 2.
    CHECK(bytes_of(synced, "grads.frozen_flat") == Approx(6476267520.0));
    CHECK(find(synced, "grads.frozen_flat")->phases == phase_bit(Phase::Step));  // one micro-batch: made in backward, freed at zero_grad

    // 128 micro-batches under no_sync(): the whole blocks' gradients, unsharded, from the first backward to the step.
    s.train.grad_accum_steps = 128;
    s.parallel.no_sync_accumulation = true;
    const Estimate accum = estimate(s);
    REQUIRE(accum.ok());
    CHECK(bytes_of(accum, "grads.frozen_flat") == Approx(kLayerParams * 2));
    CHECK((find(accum, "grads.frozen_flat")->phases & phase_bit(Phase::Forward)) != 0);  // alive while the next micro-batch runs forward

    // Accumulating with a reduce-scatter per micro-batch (no no_sync): the shard again.
    s.parallel.no_sync_accumulation = false;
    CHECK(bytes_of(estimate(s), "grads.frozen_flat") == Approx(kLayerParams * 2 / 2));
}

TEST_CASE("FSDP no_sync accumulation keeps a full fine-tune's gradients unsharded") {
    Scenario s = llama2_7b_run(Mode::Train, Precision::MixedBF16, 4, 2);
    s.train.grad_accum_steps = 4;
    const Estimate sharded = estimate(s);
    REQUIRE(sharded.ok());
    CHECK(bytes_of(sharded, "grads") == Approx(kAllParams * 2 / 4));  // ZeRO-2: 2P / N

    s.parallel.no_sync_accumulation = true;
    const Estimate whole = estimate(s);
    REQUIRE(whole.ok());
    CHECK(bytes_of(whole, "grads") == Approx(kAllParams * 2));  // "the full model gradients (instead of gradient shards)"

    s.train.grad_accum_steps = 1;  // nothing to accumulate: every micro-batch syncs
    CHECK(bytes_of(estimate(s), "grads") == Approx(kAllParams * 2 / 4));
}

TEST_CASE("bitsandbytes before 0.43.2 saves each 4-bit layer's input in QLoRA") {
    Scenario s = lora_on_qv(llama2_7b_run(Mode::FineTune, Precision::PureBF16, 1, 0), FineTuneMethod::QLoRA);
    const Estimate now = estimate(s);
    REQUIRE(now.ok());

    s.finetune.bnb_saves_inputs = true;
    const Estimate old = estimate(s);
    REQUIRE(old.ok());
    // q and v's adapters already keep the attention input, and FlashAttention keeps o_proj's; what is new
    // per layer is the MLP input (gate and up share it), 1024 * 4096 * 2 B = 8,388,608, and down_proj's
    // input, 1024 * 11008 * 2 B = 22,544,384: 30,932,992 B, over 32 layers 989,855,744 B.
    CHECK(bytes_of(old, "act.attention") == Approx(bytes_of(now, "act.attention")));
    CHECK(bytes_of(old, "act.mlp") - bytes_of(now, "act.mlp") == Approx(989855744.0));

    // Adapters on o_proj only: the q, k, v layers keep the attention input themselves, 1024 * 4096 * 2 B a layer.
    s.finetune.lora_targets = kLoraO;
    s.finetune.bnb_saves_inputs = false;
    const Estimate o_now = estimate(s);
    s.finetune.bnb_saves_inputs = true;
    const Estimate o_old = estimate(s);
    REQUIRE(o_old.ok());
    CHECK(bytes_of(o_old, "act.attention") - bytes_of(o_now, "act.attention") == Approx(32 * 8388608.0));
    CHECK(bytes_of(o_old, "act.mlp") - bytes_of(o_now, "act.mlp") == Approx(989855744.0));
}

TEST_CASE("the framework switches name their field when they do not apply") {
    Scenario s = lora_fsdp(2);
    s.parallel.zero = 1;
    s.parallel.fsdp_flat_params = true;
    CHECK(has_error(estimate(s), "parallel.fsdp_flat_params"));

    Scenario l = lora_fsdp(1);
    l.parallel.zero = 0;
    l.finetune.bnb_saves_inputs = true;  // plain LoRA: no 4-bit layers
    CHECK(has_error(estimate(l), "finetune.bnb_saves_inputs"));
}

TEST_CASE("a training loop that keeps the logits holds them through backward") {
    Scenario s = lora_on_qv(llama2_7b_run(Mode::FineTune, Precision::PureBF16, 1, 0), FineTuneMethod::LoRA);
    s.train.fp32_logits = false;  // LitGPT: the loss on the bf16 logits
    // What the backward phase holds, less the allocator's reserve (a share of it).
    const auto backward_bytes = [](const Estimate& e) {
        double b = 0;
        for (const Component& c : e.components)
            if ((c.phases & phase_bit(Phase::Backward)) && !c.host && std::strcmp(c.id, "overhead.fragmentation") != 0) b += c.bytes;
        return b;
    };
    const Estimate dropped = estimate(s);
    s.train.loop_holds_logits = true;
    const Estimate held = estimate(s);
    REQUIRE(held.ok());
    // b x s x V x 2 B = 1 * 1024 * 32000 * 2 = 65,536,000 B, now live in backward too.
    CHECK(bytes_of(held, "logits") == Approx(65536000.0));
    CHECK((find(dropped, "logits")->phases & phase_bit(Phase::Backward)) == 0);
    CHECK(backward_bytes(held) - backward_bytes(dropped) == Approx(65536000.0));
}

TEST_CASE("ZeRO-3 parameter offload moves a LoRA or QLoRA run's frozen base to the host") {
    // DeepSpeed partitions every parameter, frozen ones too, and FSDP's CPUOffload keeps each shard on the CPU.
    Scenario s = lora_on_qv(llama2_7b_run(Mode::FineTune, Precision::PureBF16, 2, 3), FineTuneMethod::LoRA);
    const Estimate gpu = estimate(s);
    REQUIRE(gpu.ok());
    CHECK_FALSE(find(gpu, "weights.frozen")->host);
    CHECK(bytes_of(gpu, "weights.frozen") == Approx(kAllParams * 2 / 2));  // each rank's half of the bf16 base

    s.parallel.offload_params = true;
    const Estimate off = estimate(s);
    REQUIRE(off.ok());
    CHECK(find(off, "weights.frozen")->host);
    CHECK(bytes_of(off, "weights.frozen") == Approx(kAllParams * 2 / 2));  // the same shard, in host memory
    // The GPU keeps the running layer gathered: 202,383,360 params * 2 B.
    CHECK(bytes_of(off, "buffers.zero3_gather") == Approx(202383360.0 * 2));
    CHECK(off.host_bytes - gpu.host_bytes == Approx(kAllParams));  // 6,738,415,616 * 2 B / 2 ranks

    // QLoRA: the NF4 blocks and the 16-bit rest go to the host alike; the block constants are a QuantState
    // attribute, no parameter, so they stay on the GPU, whole [bitsandbytes-043-code].
    s.finetune.method = FineTuneMethod::QLoRA;
    const Estimate q = estimate(s);
    REQUIRE(q.ok());
    for (const char* id : {"weights.nf4", "weights.frozen"}) CHECK(find(q, id)->host);
    CHECK_FALSE(find(q, "weights.quant_constants")->host);
}

// QLoRA under FSDP (ZeRO-3 without DeepSpeed), Llama-2-7B over 2 ranks. Linear weights: 32 layers x
// (67,108,864 + 135,266,304) = 6,476,005,376. Double-quantized constants: 8 bits per 64-block + 32 bits per
// 256 x 64 = 0.126953125 bits/param -> 6,476,005,376 x 0.126953125 / 8 = 102,768,054.75 B on each rank, not
// halved (a module attribute, not a flat parameter) [bitsandbytes-043-code]. The gathered unit is the packed 4-bit
// data: 202,383,360 params x 0.5 B = 101,191,680 B; BACKWARD_PRE holds the next unit too [pytorch-fsdp].
TEST_CASE("FSDP QLoRA: packed 4-bit units, the next unit prefetched in backward, constants whole on each rank") {
    Scenario s = lora_on_qv(llama2_7b_run(Mode::FineTune, Precision::PureBF16, 2, 3), FineTuneMethod::QLoRA);
    s.finetune.double_quant = true;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    CHECK(bytes_of(e, "weights.quant_constants") == Approx(102768054.75));
    CHECK(bytes_of(e, "buffers.zero3_gather") == Approx(101191680.0));
    const Component* next = find(e, "buffers.fsdp_backward_prefetch");
    REQUIRE(next);
    CHECK(next->bytes == Approx(101191680.0));
    CHECK(next->phases == phase_bit(Phase::Backward));

    // LoRA on the bf16 base: the unit is gathered in bf16, 202,383,360 x 2 B, the next one alike.
    s.finetune.method = FineTuneMethod::LoRA;
    const Estimate l = estimate(s);
    REQUIRE(l.ok());
    CHECK(bytes_of(l, "buffers.fsdp_backward_prefetch") == Approx(202383360.0 * 2));

    // DeepSpeed has its own prefetch (buffers.ds_gathered_params): no FSDP prefetch there.
    s.deepspeed.enabled = true;
    CHECK(find(estimate(s), "buffers.fsdp_backward_prefetch") == nullptr);
}

TEST_CASE("component ids are dotted groups: component_bytes takes one id, group_bytes a group, id_under says which is in which") {
    CHECK(id_under("engine.nccl", "engine"));
    CHECK(id_under("engine", "engine"));
    CHECK_FALSE(id_under("engine_x", "engine"));
    CHECK_FALSE(id_under("engine", "engine.nccl"));
    CHECK_FALSE(id_under("", "engine"));
    Scenario s;
    s.mode = Mode::Train;
    s.model = testing::llama2_7b();
    s.train.seq_len = 1024;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    double under = 0;
    for (const Component& c : e.components)
        if (!c.host && std::string_view(c.id).starts_with("logits")) under += c.bytes;
    CHECK(group_bytes(e, "logits") == under);
    CHECK(component_bytes(e, "logits") == bytes_of(e, "logits"));
    CHECK(component_bytes(e, "logits") < group_bytes(e, "logits"));  // logits.loss is in the group, not the id
    CHECK(component_bytes(e, "no.such.id") == 0);
}

TEST_CASE("Megatron-Core's loss: the fp32 copy of the logits becomes the softmax in place and is kept for backward") {
    Scenario s = llama2_7b_run(Mode::Train, Precision::MixedBF16, 1, 0);
    s.train.loss = LossImpl::Megatron;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    // b x s x V = 1 x 1024 x 32000 logits: the output layer's bf16 ones (2 B) for the forward only, their .float() (4 B)
    // kept into backward as the softmax [megatron-cross-entropy-code]; no log-softmax output of its own.
    const Component* logits = vl::test::find(e, "logits");
    const Component* fp32 = vl::test::find(e, "logits.fp32");
    REQUIRE(logits != nullptr);
    REQUIRE(fp32 != nullptr);
    CHECK(logits->bytes == 2.0 * 1024 * 32000);
    CHECK(fp32->bytes == 4.0 * 1024 * 32000);
    CHECK_FALSE(vl::test::live_in(e, "logits", Phase::Backward));
    CHECK(vl::test::live_in(e, "logits.fp32", Phase::Backward));
    CHECK(vl::test::find(e, "logits.loss") == nullptr);
    // Its backward working set cites Megatron's loss, not the log-softmax output it does not make.
    const Component* working = vl::test::find(e, "act.backward_working");
    REQUIRE(working != nullptr);
    CHECK(std::string_view(working->source).find("[megatron-cross-entropy-code]") != std::string_view::npos);
    CHECK(std::string_view(working->source).find("log-softmax output") == std::string_view::npos);
    // Transformers' loss on the same run keeps a log-softmax output (4 B) and drops the fp32 copy before backward.
    s.train.loss = LossImpl::Upcast;
    const Estimate hf = estimate(s);
    CHECK(bytes_of(hf, "logits.loss") == 4.0 * 1024 * 32000);
    CHECK(std::string_view(vl::test::find(hf, "act.backward_working")->source).find("log-softmax output") != std::string_view::npos);
    CHECK_FALSE(vl::test::live_in(hf, "logits.fp32", Phase::Backward));
    // fp32 training: .float() is the logits themselves, kept.
    s = llama2_7b_run(Mode::Train, Precision::FP32, 1, 0);
    s.train.loss = LossImpl::Megatron;
    const Estimate f = estimate(s);
    CHECK(vl::test::find(f, "logits.fp32") == nullptr);
    CHECK(bytes_of(f, "logits") == 4.0 * 1024 * 32000);
    CHECK(vl::test::live_in(f, "logits", Phase::Backward));
}
