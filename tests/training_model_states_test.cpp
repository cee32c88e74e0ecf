// Model states (weights, gradients, master weights, optimizer states) by precision regime, optimizer,
// ZeRO stage and offload. Expected values are the seeds' and the ZeRO paper's own numbers.
#include <catch2/catch.hpp>

#include "training_fixtures.h"
#include "units.h"

using namespace vl;
using namespace vl::testing;
using Catch::Detail::Approx;

namespace {
// Sum of the GPU model-state components (weights + gradients + master + optimizer states).
double model_states(const Estimate& e) {
    return sum_category(e, Category::Weights) + sum_category(e, Category::Gradients) + sum_category(e, Category::Optimizer);
}
Scenario states_only(int64_t P) {
    Scenario s = train_scenario(params_only(P));
    s.overheads = no_overheads();
    return s;
}
}  // namespace

TEST_CASE("[llm-gpu-memory-2025]: fp32 Adam is 16 B/param, mixed fp16 16 B, 18 B with fp32 gradients") {
    Scenario s = states_only(1000000000);
    s.train.precision = Precision::FP32;  // 4 (params) + 4 (grads) + 4 + 4 (momentum, variance) = 16
    REQUIRE(model_states(estimate(s)) == Approx(16e9));
    s.train.precision = Precision::MixedFP16;  // 2 + 2 + 12 = 16
    REQUIRE(model_states(estimate(s)) == Approx(16e9));
    s.train.fp32_grad_accum = true;  // 2 + 4 + 12 = 18 (the post's "2Ψ, or 4Ψ" gradients)
    REQUIRE(model_states(estimate(s)) == Approx(18e9));
}

TEST_CASE("[transformer-series5 §3.1]: mixed precision with an fp32 gradient copy is 20 B/param, its fp32 accounting 24 B/param") {
    Scenario s = states_only(1000000000);
    s.train.precision = Precision::MixedFP16;
    s.train.fp32_grad_copy = true;  // (2 + 4) + (2 + 4) + 8 = 20
    REQUIRE(model_states(estimate(s)) == Approx(20e9));
    s.train.precision = Precision::FP32;
    s.train.extra_fp32_weight_copy = true;  // (4 + 4) + (4 + 4) + 8 = 24
    REQUIRE(model_states(estimate(s)) == Approx(24e9));
}

TEST_CASE("[estimate-gpu-memory-2024]: Llama-2-7b local estimate (2 + 4 + 8) x 7 = 98 GB") {
    Scenario s = states_only(7000000000);
    s.train.precision = Precision::PureBF16;      // fp16 weights, no master copy
    s.train.fp32_grad_accum = true;               // "梯度通常还是保留在 float32": 4 B
    s.train.optimizer_state_dtype = StateDtype::FP32;  // Adam m, v: 8 B
    REQUIRE(model_states(estimate(s)) == Approx(98e9));
    REQUIRE(bytes_of(estimate(s), "weights") == Approx(14e9));  // "mode size 2x7=14G"
}

TEST_CASE("[kaiyuan-memory]: 1B model in fp32 is 3.725 GiB, Llama 13B fp32 52 GB, 8-bit Adam keeps 4 -> 1 -> 1 bytes") {
    Scenario s = states_only(1000000000);
    s.train.precision = Precision::FP32;
    REQUIRE(to_gib(bytes_of(estimate(s), "weights")) == Approx(3.725).margin(0.0005));  // 4e9 / 2^30 = 3.7253
    s.model = params_only(13000000000);
    REQUIRE(to_gb(bytes_of(estimate(s), "weights")) == Approx(52.0));  // 13e9 * 4
    // 8-bit Adam in mixed precision: fp32 master 4 B + m 1 B + v 1 B (+ one fp32 absmax per 2048 values each)
    s = states_only(1000000000);
    s.train.precision = Precision::MixedBF16;
    s.train.optimizer = Optimizer::Adam8bit;
    const Estimate e = estimate(s);
    REQUIRE(bytes_of(e, "optimizer.master") == Approx(4e9));
    REQUIRE(bytes_of(e, "optimizer.states") == Approx(2e9 * (1 + 4.0 / 2048)));  // 2.00390625 B/param
}

TEST_CASE("optimizers: SGD none, momentum and Lion one state, custom bytes, pure bf16 Adam 8 B/param") {
    Scenario s = states_only(1000000000);
    s.train.precision = Precision::FP32;
    s.train.optimizer = Optimizer::SGD;
    REQUIRE(model_states(estimate(s)) == Approx(8e9));   // 4 + 4
    s.train.optimizer = Optimizer::SGDMomentum;
    REQUIRE(model_states(estimate(s)) == Approx(12e9));  // + 4 momentum ([transformer-series5 §1]: one state = model size)
    s.train.optimizer = Optimizer::Lion;
    REQUIRE(model_states(estimate(s)) == Approx(12e9));
    s.train.optimizer = Optimizer::Custom;
    s.train.custom_optimizer_bytes_per_param = 3;
    REQUIRE(model_states(estimate(s)) == Approx(11e9));
    s.train.precision = Precision::PureBF16;
    s.train.optimizer = Optimizer::AdamW;
    REQUIRE(model_states(estimate(s)) == Approx(8e9));   // 2 + 2 + 2 * 2
}

TEST_CASE("Adafactor keeps rows + columns per matrix, far less than Adam") {
    // Llama-2-7b, one layer's q_proj 4096 x 4096 keeps 8192 fp32 values instead of 2 * 16.8M.
    Scenario s = train_scenario(llama2_7b());
    s.overheads = no_overheads();
    s.train.optimizer = Optimizer::Adafactor;
    const Estimate e = estimate(s);
    // Per layer: q,k,v,o 4 * (4096 + 4096) = 32,768 + gate, up, down 3 * (4096 + 11008) = 45,312 + 2 norms
    // 8,192 = 86,272; x 32 = 2,760,704; embedding 32000 + 4096; lm_head 32000 + 4096; final norm 4096
    // -> 2,836,992 fp32 values (vs 2 * 6.74e9 for Adam).
    REQUIRE(bytes_of(e, "optimizer.states") == Approx(2836992.0 * 4));
}

TEST_CASE("ZeRO paper: 7.5B model, 64 GPUs: 120 / 31.4 / 16.6 / 1.9 GB (case zero-7.5B-nd64)") {
    Scenario s = states_only(7500000000);
    s.train.precision = Precision::MixedFP16;
    s.parallel.dp = 64;
    s.gpu_count = 64;
    const double expected[4] = {120e9,                        // (2 + 2 + 12) * 7.5e9
                                30e9 + 12 * 7.5e9 / 64,       // 4Ψ + 12Ψ/Nd = 31.40625e9
                                15e9 + 14 * 7.5e9 / 64,       // 2Ψ + 14Ψ/Nd = 16.640625e9
                                16 * 7.5e9 / 64};             // 16Ψ/Nd = 1.875e9
    const double paper[4] = {120, 31.4, 16.6, 1.9};
    for (int z = 0; z <= 3; ++z) {
        s.parallel.zero = z;
        const Estimate e = estimate(s);
        REQUIRE(e.ok());
        REQUIRE(e.total_bytes == Approx(expected[z]));
        REQUIRE(to_gb(e.total_bytes) == Approx(paper[z]).margin(0.05));
    }
}

TEST_CASE("ZeRO paper Table 1 cells (case zero-table1)") {
    struct Cell { double P; int64_t dp; int zero; double gb; };
    const Cell cells[] = {{7.5e9, 4, 3, 30},        {7.5e9, 16, 2, 21.6},     {7.5e9, 1024, 1, 30.1},
                          {128e9, 64, 3, 32},       {128e9, 1024, 3, 2},      {1e12, 1, 0, 16000},
                          {1e12, 64, 1, 4187.5},    {1e12, 1024, 3, 15.6}};
    for (const Cell& c : cells) {
        Scenario s = states_only(static_cast<int64_t>(c.P));
        s.train.precision = Precision::MixedFP16;
        s.parallel.dp = c.dp;
        s.gpu_count = c.dp;
        s.parallel.zero = c.zero;
        REQUIRE(to_gb(estimate(s).total_bytes) == Approx(c.gb).margin(0.05));
    }
}

TEST_CASE("ZeRO paper Sec 3.1 and 3.2: GPT-2 1.5B states 24 GB, fp16 params 3 GB, fused fp32 buffer 6 GB (12 GB at 3B)") {
    Scenario s = states_only(1500000000);
    s.train.precision = Precision::MixedFP16;
    Estimate e = estimate(s);
    REQUIRE(model_states(e) == Approx(24e9));
    REQUIRE(bytes_of(e, "weights") == Approx(3e9));
    s.train.fp32_grad_copy = true;  // the flattened fp32 gradient buffer: 4 B/param
    REQUIRE(bytes_of(estimate(s), "grads.fp32_copy") == Approx(6e9));
    s.model = params_only(3000000000);
    REQUIRE(bytes_of(estimate(s), "grads.fp32_copy") == Approx(12e9));
}

TEST_CASE("Megatron distributed optimizer: 6 + 12/dp bytes per parameter") {
    // theoretical_memory_usage.py: 18 B without, 6 + 12/dp with --use-distributed-optimizer
    // = bf16 params (2) + fp32 main grads (4) unsharded, fp32 master + Adam (12) sharded (ZeRO-1).
    Scenario s = states_only(1000000000);
    s.train.fp32_grad_accum = true;
    s.parallel.dp = 8;
    s.gpu_count = 8;
    REQUIRE(model_states(estimate(s)) == Approx(18e9));
    s.parallel.zero = 1;
    REQUIRE(model_states(estimate(s)) == Approx(6e9 + 12e9 / 8));
}

TEST_CASE("CPU offload moves optimizer states (and fp32 gradients) to host memory") {
    Scenario s = states_only(1000000000);
    s.train.precision = Precision::MixedBF16;
    s.parallel.dp = 4;
    s.gpu_count = 4;
    s.parallel.zero = 2;
    s.parallel.offload_optimizer = true;
    const Estimate e = estimate(s);
    REQUIRE(e.total_bytes == Approx(2e9));            // only the bf16 weights stay on the GPU
    REQUIRE(e.host_bytes == Approx((2 + 12) * 1e9 / 4));  // grads + master + Adam, this rank's partition
    s.parallel.zero = 3;
    s.parallel.offload_params = true;
    REQUIRE(estimate(s).total_bytes == Approx(0.0));
}

TEST_CASE("FSDP hybrid shard divides by the shard group, not all data-parallel ranks") {
    Scenario s = states_only(8000000000);
    s.parallel.dp = 64;
    s.gpu_count = 64;
    s.parallel.zero = 3;
    s.parallel.shard_group = 8;
    REQUIRE(model_states(estimate(s)) == Approx(16 * 8e9 / 8));
}

TEST_CASE("phases: optimizer states appear after load, gradients in backward and step, activations in forward and backward") {
    Scenario s = train_scenario(llama2_7b());
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    const Component* st = find(e, "optimizer.states");
    REQUIRE(st);
    REQUIRE((st->phases & phase_bit(Phase::Load)) == 0);
    REQUIRE((find(e, "grads")->phases & phase_bit(Phase::Forward)) == 0);  // grad_accum_steps = 1
    REQUIRE((find(e, "act.attention")->phases & phase_bit(Phase::Step)) == 0);
    REQUIRE(e.phase_bytes[0] < e.phase_bytes[1]);
    REQUIRE(e.peak_phase == Phase::Backward);
    s.train.grad_accum_steps = 4;  // accumulated gradients live through the next forward
    REQUIRE((find(estimate(s), "grads")->phases & phase_bit(Phase::Forward)) != 0);
}

// torch.optim.AdamW on CUDA with neither foreach= nor fused= runs `_multi_tensor_adam`, which makes
// `exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs)` for the whole (device, dtype) group: one more tensor the
// size of v, in the state dtype, while the weights, gradients and both states are live [pytorch-adam-code].
TEST_CASE("[pytorch-adam-code]: foreach AdamW holds sqrt(v) of the whole group at the step, fused nothing") {
    Scenario s = states_only(1000000000);
    s.train.precision = Precision::FP32;  // plain PyTorch: auto is foreach
    Estimate e = estimate(s);
    REQUIRE(find(e, "optimizer.foreach_temporaries") != nullptr);
    CHECK(bytes_of(e, "optimizer.foreach_temporaries") == Approx(4e9));  // 1e9 fp32 elements of sqrt(v)
    CHECK(find(e, "optimizer.foreach_temporaries")->phases == phase_bit(Phase::Step));
    CHECK(std::string(find(e, "optimizer.foreach_temporaries")->formula()) == "P * state_bytes / N_opt");
    // The step: weights 4 + gradients 4 + m 4 + v 4 + sqrt(v) 4 = 20 B per parameter; 16 B at the end of forward
    // would have held no gradients (set_to_none), so the step is the peak.
    CHECK(e.phase_bytes[static_cast<size_t>(Phase::Step)] == Approx(20e9));
    CHECK(e.peak_phase == Phase::Step);

    s.train.optimizer_impl = OptimizerImpl::Fused;  // torch._fused_adam_ updates in place
    e = estimate(s);
    CHECK(find(e, "optimizer.foreach_temporaries") == nullptr);
    CHECK(e.phase_bytes[static_cast<size_t>(Phase::Step)] == Approx(16e9));

    s.train.optimizer_impl = OptimizerImpl::Auto;  // pure bf16: states and their sqrt in bf16, 2 B
    s.train.precision = Precision::PureBF16;
    CHECK(bytes_of(estimate(s), "optimizer.foreach_temporaries") == Approx(2e9));

    // FSDP over 8 ranks: each rank's group is its shard of the parameters, 4 B x 1e9 / 8.
    s.train.precision = Precision::FsdpBF16;
    s.parallel.dp = 8;
    s.parallel.zero = 3;
    s.gpu_count = 8;
    CHECK(bytes_of(estimate(s), "optimizer.foreach_temporaries") == Approx(5e8));
}

TEST_CASE("[pytorch-adam-code] [fused-adam-code]: the foreach temporary only where torch.optim.AdamW steps on the GPU") {
    Scenario s = states_only(1000000000);
    s.train.precision = Precision::MixedBF16;  // Megatron / DeepSpeed recipe: their fused Adam, in place
    CHECK(find(estimate(s), "optimizer.foreach_temporaries") == nullptr);
    s.train.optimizer_impl = OptimizerImpl::Foreach;  // said outright: torch's foreach over the fp32 states
    CHECK(bytes_of(estimate(s), "optimizer.foreach_temporaries") == Approx(4e9));
    s.train.optimizer = Optimizer::Adam8bit;  // bitsandbytes' own kernels
    CHECK(find(estimate(s), "optimizer.foreach_temporaries") == nullptr);
    s.train.optimizer = Optimizer::AdamW;
    s.parallel.dp = 2;
    s.parallel.zero = 2;
    s.gpu_count = 2;
    s.parallel.offload_optimizer = true;  // the host steps the states
    CHECK(find(estimate(s), "optimizer.foreach_temporaries") == nullptr);
}

TEST_CASE("[pytorch-adam-code]: for-loop AdamW holds two tensors the size of the largest parameter at the step") {
    // GPT-2 small with Megatron's padded vocabulary: the largest parameter is the word embedding, 50304 x 768 =
    // 38,633,472 elements (an MLP matrix is 768 x 3072 = 2,359,296). _single_tensor_adam's sqrt(v) and its quotient:
    // 2 x 38,633,472 x 4 B = 309,067,776 B.
    Scenario s = train_scenario(gpt_model("GPT-2", 768, 12, 12, 50304, 1024));
    s.overheads = no_overheads();
    s.train.precision = Precision::FP32;
    s.train.seq_len = 1024;  // at most the learned positions
    s.train.optimizer_impl = OptimizerImpl::ForLoop;
    Estimate e = estimate(s);
    REQUIRE(e.ok());
    REQUIRE(find(e, "optimizer.foreach_temporaries") != nullptr);
    CHECK(bytes_of(e, "optimizer.foreach_temporaries") == Approx(309067776.0));
    CHECK(find(e, "optimizer.foreach_temporaries")->phases == phase_bit(Phase::Step));
    CHECK(std::string(find(e, "optimizer.foreach_temporaries")->formula()) == "tensors * min(P, E_max) * state_bytes / N_opt");
    // tp 2 splits the vocabulary: each rank's embedding shard is 25,152 x 768 elements, 2 x 19,316,736 x 4 = 154,533,888 B.
    s.parallel.tp = 2;
    s.gpu_count = 2;
    CHECK(bytes_of(estimate(s), "optimizer.foreach_temporaries") == Approx(154533888.0));
}
