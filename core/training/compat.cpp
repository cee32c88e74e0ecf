// "Compatible with <tool>" modes: each reproduces another tool's published accounting exactly,
// its assumptions included, so its outputs can be checked and compared with ours
// (core/training/DERIVATION.md says how each differs from the default model).
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "model/layer_tensors.h"
#include "training/training_internal.h"

namespace vl {

// ---- Megatron-LM megatron/training/theoretical_memory_usage.py ----------------------------------
// Its own parameter formula (no linear biases, no learned position table) and 18 B/param
// (bf16 params + fp32 main grads + fp32 Adam + fp32 master), or 6 + 12/dp with the distributed optimizer.

// Parameters of the transformer blocks and the final norm, summed layer by layer as Megatron does.
static double megatron_block_params(const ModelSpec& m) {
    const double h = static_cast<double>(m.hidden), a = static_cast<double>(m.heads);
    const double g = static_cast<double>(m.kv_heads), glu = m.gated_mlp ? 1.5 : 1.0;
    const double norm = m.norm == NormKind::RMSNorm ? 1 : 2;
    const double qproj = a * static_cast<double>(m.head_dim) / h;
    const double attn = 2 * h * h * ((1 + g / a) * qproj);
    const double dense = 2 * h * (static_cast<double>(m.ffn) * glu + norm) + attn;
    double block = 0;
    for (int64_t i = 0; i < m.layers; ++i) {
        if (layer_is_moe(m, i)) {
            const double sf = static_cast<double>(shared_expert_ffn(m));
            block += 2 * h * (static_cast<double>(m.moe.expert_ffn) * m.moe.num_experts * glu + sf * glu + norm) + attn;
        } else {
            block += dense;
        }
    }
    return block + norm * h;  // final layernorm
}

// The most loaded shard: the blocks split over pp and tp, the embedding on the first stage (split by
// tp), and with pp = 1 an untied output layer too.
template <class Q>
auto megatron_shard_params(Q& q, const Scenario& s) {
    const ModelSpec& m = s.model;
    const auto emb = q("h", static_cast<double>(m.hidden)) * q("V", static_cast<double>(m.vocab));
    const auto t = q("t", static_cast<double>(s.parallel.tp));
    auto shard = (q("block_params", megatron_block_params(m)) / q("pp", static_cast<double>(s.parallel.pp)) + emb) / t;
    if (!m.tied_embeddings && s.parallel.pp == 1) shard += emb / t;
    return shard;
}

// compute_activation_memory (sequence parallel + selective recomputation) or
// compute_activation_memory_without_sp (everything else), first pipeline stage.
template <class Q>
auto megatron_activations(Q& q, const Scenario& s) {
    using N = std::decay_t<decltype(q("", 0.0))>;
    const ModelSpec& m = s.model;
    const Parallelism& p = s.parallel;
    const N sq = q("s", static_cast<double>(s.train.seq_len)), b = q("b", static_cast<double>(s.train.micro_batch));
    const N h = q("h", static_cast<double>(m.hidden)), L = q("L", static_cast<double>(m.layers));
    const N t = q("t", static_cast<double>(p.tp)), pp = q("pp", static_cast<double>(p.pp));
    const bool with_sp = p.sp && s.train.recompute == Recompute::Selective;
    N act = with_sp ? sq * b * h * (18 + 4 * (q("f", static_cast<double>(m.ffn)) / h)) * L : sq * b * h * (10 + 24 / t) * L;
    act += 8 * sq * b * pp + sq * b * h * pp;  // input to embedding + embedding dropout, pp micro-batches in flight
    if (p.schedule == PipelineSchedule::Interleaved && p.pp > 1)
        act *= 1 + (pp - 1) / (pp * q("v", static_cast<double>(p.virtual_stages)));
    else if (p.pp > 1)
        act *= min_of(1.0, q("m", static_cast<double>(s.train.grad_accum_steps)) / pp);
    if (with_sp) {
        if (p.pp == 1) act += sq * b * h * 4 * (1 + q("V", static_cast<double>(m.vocab)) / h);  // inputs to output layer and CE loss
        return act / t;
    }
    if (p.pp == 1) act += (sq * b * q("V", static_cast<double>(m.vocab)) / t + sq * b * h) * 2;  // logits + final layernorm output, 2 bytes
    return act * 1.05;  // "buffer for optimizer and miscellaneous temporaries"
}

void add_megatron_compat(TrainCtx& c) {
    const Scenario& s = c.s;
    const bool dist = s.parallel.zero >= 1;  // --use-distributed-optimizer
    add(c.e, c.d, comp("megatron.weights_and_optimizer", "Megatron: weights and optimizer (most loaded shard)", Category::Weights, kAllPhases,
                       "Megatron-LM theoretical_memory_usage.py compute_weight_and_optimizer_memory [megatron-theoretical-memory]"),
        [&](auto& q) {
            const auto P = q.let("P_shard", megatron_shard_params(q, s));
            return dist ? P * (6 + 12 / q("dp", static_cast<double>(s.parallel.dp))) : P * 18;
        });
    if (!s.model.architecture_known()) return;
    add(c.e, c.d, comp("megatron.activations", "Megatron: activations (first pipeline stage)", Category::Activations, kFwdBwd,
                       "Megatron-LM theoretical_memory_usage.py compute_activation_memory[_without_sp] [megatron-theoretical-memory] (Korthikanti Table 2 [korthikanti2022])"),
        [&](auto& q) { return megatron_activations(q, s); });
}

// ---- DeepSpeed estimate_zero2/zero3_model_states_mem_needs (model states only) -------------------
// ZeRO-2 GPU: 4P + 16P/N (fp16 params and full fp16 grads, fp32 grads + Adam partitioned); offload: 2P.
// ZeRO-3 GPU: 4*LL + 18P/N; optimizer offload: 4*LL + 2P/N; params too: 4*LL.
// Host (per node), additional_buffer_factor 1.5, gpus_factor = 1 / nodes, n = GPUs per node:
//   ZeRO-2: P * max(4 * N, 16) (offload) or P * 4 * n;
//   ZeRO-3 with zero_init: P * 18 * gf (offload all), P * 16 * gf (offload optimizer), LL * 4 * n (none);
//   ZeRO-3 without zero_init (each process first builds the fp32 model, 4 B/param, on the host):
//   P * max(4 * n, 18 * gf), P * max(4 * n, 16 * gf), P * 4 * n.
// (deepspeed/runtime/zero/stage_1_and_2.py estimate_zero2_model_states_mem_needs,
//  deepspeed/runtime/zero/stage3.py estimate_zero3_model_states_mem_needs; docs memory.rst "General RAM")
void add_deepspeed_compat(TrainCtx& c) {
    const Scenario& s = c.s;
    const Parallelism& p = s.parallel;
    const double params = static_cast<double>(c.pc.total), largest = c.largest_layer;
    const double gpus = static_cast<double>(s.gpu_count), per_node = static_cast<double>(std::min<int64_t>(p.gpus_per_node, s.gpu_count));
    const bool all = p.offload_optimizer && p.offload_params, zi = p.zero_init;
    const double opt_bpp = all ? 18 : 16;  // host: fp32 params, grads, momentum, variance (+ fp16 params when offloaded too)
    add(c.e, c.d, comp("deepspeed.gpu_model_states", "DeepSpeed estimator: model states per GPU", Category::Optimizer, kAllPhases,
                       "DeepSpeed memory.rst / estimate_zero2|zero3_model_states_mem_needs [deepspeed-memory]"),
        [&](auto& q) {
            const auto P = q("P", params), N = q("N", gpus);
            if (p.zero == 2) return p.offload_optimizer ? 2 * P : 4 * P + floor_of(16 * P / N);
            const auto llm = 4 * q("LL", largest);  // the largest layer, gathered
            if (p.offload_optimizer) return all ? llm : llm + floor_of(2 * P / N);
            return llm + floor_of(18 * P / N);
        });
    // host memory of the node (additional_buffer_factor 1.5), per GPU of the node
    add(c.e, c.d, comp("deepspeed.cpu_model_states", "DeepSpeed estimator: host memory (per GPU's share of the node)", Category::Optimizer,
                       kAllPhases,
                       "DeepSpeed estimate_zero2|zero3_model_states_mem_needs cpu_mem (additional_buffer_factor 1.5, zero_init), per GPU of the node [deepspeed-memory]",
                       true),
        [&](auto& q) {
            const auto P = q("P", params), n = q("gpus_per_node", per_node);
            if (p.zero == 2) return (p.offload_optimizer ? P * max_of(4 * q("N", gpus), 16.0) : P * 4 * n) * 1.5 / n;
            if (!p.offload_optimizer) return (zi ? q("LL", largest) : P) * 4 * n * 1.5 / n;
            const auto nodes = q.let("nodes", ceil_of(q("N", gpus) / n));
            const auto gf = 1 / nodes;  // DeepSpeed's gpus_factor (not named: a fraction would print rounded)
            return P * (zi ? opt_bpp * gf : max_of(4 * n, opt_bpp * gf)) * 1.5 / n;
        });
}

// ---- accelerate estimate-memory: "Training using Adam (Peak vRAM)" -----------------------------
// estimate_training_usage keeps four separate maxima, not a sum: model (fp32 size), gradients
// (fp32: 1x; mixed: 1.5x fp32 size), optimizer (2x fp32 size), step (fp32: 4x; mixed: = optimizer).
// Each becomes one component live in one phase, so the peak is their maximum as in accelerate.
void add_accelerate_compat(TrainCtx& c) {
    const double params = static_cast<double>(c.pc.total);
    const bool fp32 = c.s.train.precision == Precision::FP32;
    const auto fp32_size = [&](auto& q) { return 4 * q("P", params); };
    add(c.e, c.d, comp("accelerate.model", "accelerate: model (fp32 size)", Category::Weights, phase_bit(Phase::Load),
                       "accelerate commands/estimate.py estimate_training_usage [accelerate-estimate]"),
        fp32_size);
    add(c.e, c.d, comp("accelerate.gradients", "accelerate: gradient calculation", Category::Gradients, phase_bit(Phase::Forward),
                       "accelerate commands/estimate.py estimate_training_usage [accelerate-estimate]"),
        [&](auto& q) { return fp32 ? fp32_size(q) : 1.5 * fp32_size(q); });
    add(c.e, c.d, comp("accelerate.optimizer", "accelerate: backward pass (optimizer states)", Category::Optimizer, phase_bit(Phase::Backward),
                       "accelerate commands/estimate.py estimate_training_usage [accelerate-estimate]"),
        [&](auto& q) { return 2 * fp32_size(q); });
    add(c.e, c.d, comp("accelerate.step", "accelerate: optimizer step", Category::Optimizer, phase_bit(Phase::Step),
                       "accelerate commands/estimate.py estimate_training_usage [accelerate-estimate]"),
        [&](auto& q) { return (fp32 ? 4 : 2) * fp32_size(q); });
}

}  // namespace vl
