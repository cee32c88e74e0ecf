// "fp32 weights stored, 16-bit compute" recipes (issue 14 item 2), derived by hand on small configs:
// torch.autocast over fp32 weights in inference (infer.autocast: casts cached while the weights require
// grad, per op when frozen) [pytorch-autocast-code] [lightning-amp-code], a frozen fp32 LoRA base under
// autocast with recomputation, and FSDP MixedPrecision(param_dtype=bf16) over fp32 shards
// (train.precision bf16-fsdp-mixed) [pytorch-fsdp-code]; and what FSDP1 and FSDP2 (parallel.fsdp_version) hold beside
// the gathered units on the same tiny model: FSDP2's kept reduce-scatter input, FSDP1's shard made on the GPU.
#include <catch2/catch.hpp>

#include <string>

#include "estimate.h"
#include "training_fixtures.h"

using namespace vl;
using namespace vl::testing;
using Catch::Detail::Approx;

namespace {

// A tiny Llama: h = 64, 2 layers, 4 heads of 16, ffn 128, vocab 1000, untied, no biases.
// Per layer q, k, v, o: 4 * 64 * 64 = 16,384; gate, up, down: 3 * 64 * 128 = 24,576; 40,960 matmul
// weights, x 2 layers = 81,920. The head: 1000 * 64 = 64,000 (the embedding as large, not autocast).
constexpr double kTinyLinear = 81920;
constexpr double kTinyHead = 64000;

ModelSpec tiny_llama() {
    ModelSpec m;
    m.name = "tiny-llama";
    m.model_type = "llama";
    m.vocab = 1000; m.hidden = 64; m.layers = 2; m.heads = 4; m.kv_heads = 4; m.head_dim = 16; m.ffn = 128;
    m.max_position = 512;
    return m;
}

Scenario tiny_infer(InferAutocast a) {
    Scenario s;
    s.mode = Mode::Infer;
    s.model = tiny_llama();
    s.infer.weights = WeightFormat::FP32;
    s.infer.autocast = a;
    s.infer.context = 64;
    return s;
}

// The tiny Llama trained under ZeRO-3 / FSDP full shard on N ranks, with only the temporary buffers among the overheads.
Scenario tiny_fsdp(int64_t n) {
    Scenario s = train_scenario(tiny_llama());
    s.overheads = no_overheads();
    s.overheads.temp_buffers = true;
    s.train.seq_len = 64;
    s.parallel.dp = n;
    s.gpu_count = n;
    s.parallel.zero = 3;
    return s;
}

bool has_error(const Estimate& e, const std::string& field) {
    for (const FieldError& f : e.errors)
        if (f.field == field) return true;
    return false;
}

}  // namespace

TEST_CASE("infer.autocast cached: fp32 weights and a 16-bit cast of every matmul weight through each forward") {
    const Estimate e = estimate(tiny_infer(InferAutocast::Cached));
    REQUIRE(e.ok());
    CHECK(bytes_of(e, "weights.linear") == Approx(4 * kTinyLinear));  // stored fp32
    // 2 B x (81,920 layer matrices + 64,000 head) = 291,840 B, in prefill and decode (each forward's cache)
    CHECK(bytes_of(e, "weights.autocast_casts") == Approx(291840));
    CHECK(find(e, "weights.autocast_casts")->phases == (phase_bit(Phase::Forward) | phase_bit(Phase::Step)));
    // a tied head is the embedding matrix, cast by the head's matmul all the same
    Scenario tied = tiny_infer(InferAutocast::Cached);
    tied.model.tied_embeddings = true;
    CHECK(bytes_of(estimate(tied), "weights.autocast_casts") == Approx(2 * (kTinyLinear + kTinyHead)));
    // no autocast: nothing cast
    Scenario off = tiny_infer(InferAutocast::Off);
    CHECK(find(estimate(off), "weights.autocast_casts") == nullptr);
}

TEST_CASE("infer.autocast per-op: a frozen weight's cast is not cached, the largest lives alone") {
    // the largest matmul weight: the head's 64,000 (gate/up/down 64 x 128 = 8,192; q 64 x 64) -> 128,000 B
    const Estimate e = estimate(tiny_infer(InferAutocast::PerOp));
    REQUIRE(e.ok());
    CHECK(bytes_of(e, "weights.autocast_casts") == Approx(2 * kTinyHead));
    // with a small vocabulary the MLP's 64 x 128 matrix is the largest: 2 x 8,192
    Scenario small_vocab = tiny_infer(InferAutocast::PerOp);
    small_vocab.model.vocab = 100;  // head 6,400
    CHECK(bytes_of(estimate(small_vocab), "weights.autocast_casts") == Approx(2 * 8192));
}

TEST_CASE("infer.autocast needs fp32 weights in a PyTorch forward") {
    Scenario bf16 = tiny_infer(InferAutocast::Cached);
    bf16.infer.weights = WeightFormat::BF16;
    CHECK(has_error(estimate(bf16), "infer.autocast"));
    Scenario vllm = tiny_infer(InferAutocast::PerOp);
    vllm.infer.engine = Engine::VLLM;
    CHECK(has_error(estimate(vllm), "infer.autocast"));
}

TEST_CASE("autocast over a frozen fp32 LoRA base with full recomputation: only the head's and the running layer's casts") {
    // Not cached (requires_grad=False) and the checkpointed layers save none: forward and backward hold
    // the head's cast (saved by its matmul) and one layer's, 2 x (64,000 + 81,920 / 2) = 209,920 B.
    Scenario s = train_scenario(tiny_llama());
    s.mode = Mode::FineTune;
    s.overheads = no_overheads();
    s.finetune.method = FineTuneMethod::LoRA;
    s.train.precision = Precision::AutocastBF16;
    s.train.seq_len = 64;
    s.train.recompute = Recompute::Full;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    CHECK(bytes_of(e, "weights.autocast_copies") == Approx(209920));
    CHECK(find(e, "weights.autocast_copies")->phases == (phase_bit(Phase::Forward) | phase_bit(Phase::Backward)));
    CHECK(find(e, "weights.autocast_copies_backward") == nullptr);
    // without recomputation every cast is saved by its matmul: 2 x (81,920 + 64,000) = 291,840 B
    s.train.recompute = Recompute::None;
    CHECK(bytes_of(estimate(s), "weights.autocast_copies") == Approx(291840));
    // trained weights are cached: forward holds them all, backward the head's and the recomputed layer's
    s.mode = Mode::Train;
    s.train.recompute = Recompute::Full;
    const Estimate full = estimate(s);
    CHECK(bytes_of(full, "weights.autocast_copies") == Approx(291840));
    CHECK(bytes_of(full, "weights.autocast_copies_backward") == Approx(209920));
}

TEST_CASE("bf16-fsdp-mixed: fp32 shards of weights, grads and Adam over N, units gathered in bf16") {
    // The tiny Llama: P = 81,920 + 2 x 64,000 + norms (2 x 2 x 64 + 64 = 320) = 210,240; N = 4.
    // FSDP wraps each layer (40,960 + 2 x 64 = 41,088) in a unit; the root unit (the embedding, the head, the final
    // norm: 2 x 64,000 + 64 = 128,064) stays gathered through forward and backward. Gathered in bf16 and the unsharded
    // gradients in bf16: the running layer 2 x 41,088 = 82,176 B, its gradients as many, the root 256,128 B, and the
    // trained head's gradient, held until the root reduce-scatters at the end of backward, 2 x 64,000 = 128,000 B.
    Scenario s = tiny_fsdp(4);
    s.train.precision = Precision::FsdpBF16;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    const double P = 210240;
    CHECK(bytes_of(e, "weights") == Approx(4 * P / 4));
    CHECK(bytes_of(e, "optimizer.states") == Approx(8 * P / 4));
    CHECK(find(e, "optimizer.master") == nullptr);
    CHECK(find(e, "weights.autocast_copies") == nullptr);
    CHECK(bytes_of(e, "buffers.zero3_gather") == Approx(2 * 41088));
    CHECK(bytes_of(e, "buffers.zero3_layer_grads") == Approx(2 * 41088));
    CHECK(bytes_of(e, "buffers.fsdp_root") == Approx(2 * 128064));
    CHECK(bytes_of(e, "buffers.fsdp_head_grad") == Approx(2 * 64000));
    CHECK(find(e, "buffers.fsdp_root")->phases == (phase_bit(Phase::Forward) | phase_bit(Phase::Backward)));

    // LoRA: the frozen base is an fp32 shard too, 4 x 210,240 / 4 B
    s.mode = Mode::FineTune;
    s.finetune.method = FineTuneMethod::LoRA;
    const Estimate lora = estimate(s);
    REQUIRE(lora.ok());
    CHECK(bytes_of(lora, "weights.frozen") == Approx(4 * P / 4));
    CHECK(bytes_of(lora, "buffers.zero3_gather") == Approx(2 * 41088));
    CHECK(bytes_of(lora, "buffers.fsdp_root") == Approx(2 * 128064));
    CHECK(find(lora, "buffers.fsdp_head_grad") == nullptr);  // the frozen head has no gradient

    // FSDP's recipe needs FULL_SHARD and no DeepSpeed
    s.parallel.zero = 2;
    CHECK(has_error(estimate(s), "train.precision"));
    s.parallel.zero = 3;
    s.deepspeed.enabled = true;
    CHECK(has_error(estimate(s), "train.precision"));
}

TEST_CASE("FSDP2 keeps the previous layer's reduce-scatter input through backward and has no DDP bucket, FSDP1 has the bucket") {
    // The tiny Llama on N = 4, full shard, 16-bit weights (bf16-mixed): the largest unit is a layer of
    // 40,960 + 2 x 64 = 41,088 parameters. FSDP2's post_backward keeps foreach_reduce's reduce_scatter_input, the
    // layer's unsharded bf16 gradients copied in, until the next layer's post_backward [pytorch-fsdp-code]:
    // 2 x 41,088 = 82,176 B through backward. FSDP1 (the default, parallel.fsdp_version 1) is as before: a 100 MB bucket.
    Scenario s = tiny_fsdp(4);
    s.overheads.bucket_bytes = 100e6;
    const Estimate v1 = estimate(s);
    REQUIRE(v1.ok());
    CHECK(bytes_of(v1, "buffers.comm_bucket") == Approx(100e6));
    CHECK(find(v1, "buffers.fsdp2_reduce_scatter") == nullptr);

    s.parallel.fsdp_version = 2;
    const Estimate v2 = estimate(s);
    REQUIRE(v2.ok());
    CHECK(find(v2, "buffers.comm_bucket") == nullptr);
    CHECK(bytes_of(v2, "buffers.fsdp2_reduce_scatter") == Approx(82176));
    CHECK(find(v2, "buffers.fsdp2_reduce_scatter")->phases == phase_bit(Phase::Backward));
    // the running layer's own unsharded gradients are still there beside it
    CHECK(bytes_of(v2, "buffers.zero3_layer_grads") == Approx(82176));

    // LoRA: only the adapters' gradients are reduce-scattered; nothing layer-sized is kept
    s.mode = Mode::FineTune;
    s.finetune.method = FineTuneMethod::LoRA;
    const Estimate lora = estimate(s);
    REQUIRE(lora.ok());
    CHECK(find(lora, "buffers.fsdp2_reduce_scatter") == nullptr);
}

TEST_CASE("FSDP1 makes the largest unit's shard on the GPU before its all-gather under CPU offload or MixedPrecision") {
    // The tiny Llama on N = 4: the root unit (embedding + head + final norm = 128,064 parameters) is larger than a
    // layer (41,088). pre_unshard copies the unit's shard to the GPU (offload_params) or casts it to param_dtype
    // (MixedPrecision) in the pre-unshard stream [pytorch-fsdp-code]: the largest, 2 B x 128,064 / 4 = 64,032 B.
    Scenario s = tiny_fsdp(4);
    CHECK(find(estimate(s), "buffers.fsdp1_shard_copy") == nullptr);  // bf16 shards on the GPU: all-gathered as they are

    s.parallel.offload_params = true;
    const Estimate offload = estimate(s);
    REQUIRE(offload.ok());
    CHECK(bytes_of(offload, "buffers.fsdp1_shard_copy") == Approx(64032));
    CHECK(find(offload, "buffers.fsdp1_shard_copy")->phases == (phase_bit(Phase::Forward) | phase_bit(Phase::Backward)));

    s.parallel.offload_params = false;
    s.train.precision = Precision::FsdpBF16;  // fp32 shards cast to bf16: 2 B x 128,064 / 4 again
    CHECK(bytes_of(estimate(s), "buffers.fsdp1_shard_copy") == Approx(64032));

    s.parallel.fsdp_version = 2;  // FSDP2 copies into its all-gather buffer: no FSDP1 shard copy
    CHECK(find(estimate(s), "buffers.fsdp1_shard_copy") == nullptr);
}

TEST_CASE("parallel.fsdp_version: 1 or 2, and flat parameters are FSDP1's") {
    Scenario s = tiny_fsdp(2);
    s.parallel.fsdp_version = 3;
    CHECK(has_error(estimate(s), "parallel.fsdp_version"));
    s.parallel.fsdp_version = 2;
    CHECK(estimate(s).ok());
    s.parallel.fsdp_flat_params = true;
    CHECK(has_error(estimate(s), "parallel.fsdp_flat_params"));
    s.parallel.fsdp_version = 1;
    CHECK(estimate(s).ok());
}
