// "Compatible with <tool>" modes: each reproduces another tool's published accounting exactly,
// its assumptions included, so its outputs can be checked and compared with ours
// (core/training/DERIVATION.md says how each differs from the default model).
#include <algorithm>
#include <cmath>

#include "model/layer_tensors.h"
#include "training/training_internal.h"

namespace vl {

// ---- Megatron-LM megatron/training/theoretical_memory_usage.py ----------------------------------
// Its own parameter formula (no linear biases, no learned position table) and 18 B/param
// (bf16 params + fp32 main grads + fp32 Adam + fp32 master), or 6 + 12/dp with the distributed optimizer.
static double megatron_most_loaded_shard_params(const Scenario& s) {
    const ModelSpec& m = s.model;
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
    block += norm * h;  // final layernorm
    const double emb = h * static_cast<double>(m.vocab);
    const double tp = static_cast<double>(s.parallel.tp), pp = static_cast<double>(s.parallel.pp);
    double shard = (block / pp + emb) / tp;
    if (!m.tied_embeddings && s.parallel.pp == 1) shard += emb / tp;
    return shard;
}

// compute_activation_memory (sequence parallel + selective recomputation) or
// compute_activation_memory_without_sp (everything else), first pipeline stage.
static double megatron_activation_bytes(const Scenario& s) {
    const ModelSpec& m = s.model;
    const Parallelism& p = s.parallel;
    const double sq = static_cast<double>(s.train.seq_len), b = static_cast<double>(s.train.micro_batch);
    const double h = static_cast<double>(m.hidden), f = static_cast<double>(m.ffn), L = static_cast<double>(m.layers);
    const double t = static_cast<double>(p.tp), pp = static_cast<double>(p.pp), V = static_cast<double>(m.vocab);
    const double mb = static_cast<double>(s.train.grad_accum_steps);
    const bool with_sp = p.sp && s.train.recompute == Recompute::Selective;
    double act = with_sp ? sq * b * h * (18 + 4 * (f / h)) * L : sq * b * h * (10 + 24 / t) * L;
    act += 8 * sq * b * pp + sq * b * h * pp;  // input to embedding + embedding dropout, pp micro-batches in flight
    if (p.schedule == PipelineSchedule::Interleaved && p.pp > 1)
        act *= 1 + (pp - 1) / (pp * static_cast<double>(p.virtual_stages));
    else if (p.pp > 1)
        act *= std::min(1.0, mb / pp);
    if (with_sp) {
        if (p.pp == 1) act += sq * b * h * 4 * (1 + V / h);  // inputs to output layer and CE loss
        return act / t;
    }
    if (p.pp == 1) act += (sq * b * V / t + sq * b * h) * 2;  // logits + final layernorm output, 2 bytes
    return act * 1.05;                                        // "buffer for optimizer and miscellaneous temporaries"
}

// megatron_activation_bytes with the user's numbers, term for term.
static Derivation megatron_activation_derivation(const Scenario& s) {
    const ModelSpec& m = s.model;
    const Parallelism& p = s.parallel;
    const int64_t sq = s.train.seq_len, b = s.train.micro_batch, h = m.hidden, f = m.ffn, L = m.layers, V = m.vocab;
    const bool with_sp = p.sp && s.train.recompute == Recompute::Selective;
    const Derivation layers = with_sp ? derive("{} * {} * {} * (18 + 4 * ({} / {})) * {}", sq, b, h, f, h, L)
                                      : derive("{} * {} * {} * (10 + 24 / {}) * {}", sq, b, h, p.tp, L);
    Derivation act = derive("({} + 8 * {} * {} * {} + {} * {} * {} * {})", layers, sq, b, p.pp, sq, b, h, p.pp);
    if (p.schedule == PipelineSchedule::Interleaved && p.pp > 1)
        act = derive("{} * (1 + ({} - 1) / ({} * {}))", act, p.pp, p.pp, p.virtual_stages);
    else if (p.pp > 1)
        act = derive("{} * min(1, {} / {})", act, s.train.grad_accum_steps, p.pp);
    if (with_sp) {
        if (p.pp == 1) act = derive("{} + {} * {} * {} * 4 * (1 + {} / {})", act, sq, b, h, V, h);
        return derive("({}) / {}", act, p.tp);
    }
    if (p.pp == 1) act = derive("{} + ({} * {} * {} / {} + {} * {} * {}) * 2", act, sq, b, V, p.tp, sq, b, h);
    return derive("1.05 * ({})", act);
}

void add_megatron_compat(TrainCtx& c) {
    const Scenario& s = c.s;
    const double P = megatron_most_loaded_shard_params(s);
    const bool dist = s.parallel.zero >= 1;  // --use-distributed-optimizer
    const double per = dist ? 6 + 12 / static_cast<double>(s.parallel.dp) : 18;
    add(c.e, c.d, comp("megatron.weights_and_optimizer", "Megatron: weights and optimizer (most loaded shard)", Category::Weights, P * per,
                       kAllPhases, "P_shard * (18 or 6 + 12/dp)", "Megatron-LM theoretical_memory_usage.py compute_weight_and_optimizer_memory [megatron-theoretical-memory]"),
        [&] { return dist ? derive("{} * (6 + 12 / {})", P, s.parallel.dp) : derive("{} * 18", P); });
    if (!s.model.architecture_known()) return;
    const double act = megatron_activation_bytes(s);
    add(c.e, c.d, comp("megatron.activations", "Megatron: activations (first pipeline stage)", Category::Activations, act, kFwdBwd,
                       s.parallel.sp && s.train.recompute == Recompute::Selective
                           ? "((sbh(18 + 4f/h) L + 8sbp + sbhp) * pipeline_factor [+ 4sbh(1 + V/h) when pp = 1]) / t"
                           : "1.05 * ((sbh(10 + 24/t) L + 8sbp + sbhp) * pipeline_factor [+ 2(sbV/t + sbh) when pp = 1])",
                       "Megatron-LM theoretical_memory_usage.py compute_activation_memory[_without_sp] [megatron-theoretical-memory] (Korthikanti Table 2 [korthikanti2022])"),
        [&] { return megatron_activation_derivation(s); });
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
    const double P = static_cast<double>(c.pc.total), LL = c.largest_layer;
    const double N = static_cast<double>(s.gpu_count), gpn = static_cast<double>(std::min<int64_t>(p.gpus_per_node, s.gpu_count));
    const double nodes = std::ceil(N / gpn), gf = 1 / nodes, k = 1.5;
    const bool all = p.offload_optimizer && p.offload_params, zi = p.zero_init;
    const double opt_bpp = all ? 18 : 16;  // host: fp32 params, grads, momentum, variance (+ fp16 params when offloaded too)
    double gpu = 0, cpu = 0;
    const char* gf_text = "";  // GPU formula
    const char* cf = "";       // host formula (per GPU's share)
    if (p.zero == 2) {
        if (p.offload_optimizer) { gpu = 2 * P; cpu = P * std::max(4 * N, 16.0) * k; gf_text = "2 * P"; cf = "P * max(4 * N, 16) * 1.5 / gpus_per_node"; }
        else { gpu = 4 * P + std::floor(16 * P / N); cpu = P * 4 * gpn * k; gf_text = "4 * P + floor(16 * P / N)"; cf = "P * 4 * gpus_per_node * 1.5 / gpus_per_node"; }
    } else {
        const double llm = 4 * LL;
        if (p.offload_optimizer) {
            gpu = all ? llm : llm + std::floor(2 * P / N);
            gf_text = all ? "4 * LL" : "4 * LL + floor(2 * P / N)";
            cpu = P * (zi ? opt_bpp * gf : std::max(4 * gpn, opt_bpp * gf)) * k;
            if (all) cf = zi ? "P * 18 / nodes * 1.5 / gpus_per_node" : "P * max(4 * gpus_per_node, 18 / nodes) * 1.5 / gpus_per_node";
            else cf = zi ? "P * 16 / nodes * 1.5 / gpus_per_node" : "P * max(4 * gpus_per_node, 16 / nodes) * 1.5 / gpus_per_node";
        } else {
            gpu = llm + std::floor(18 * P / N);
            gf_text = "4 * LL + floor(18 * P / N)";
            cpu = (zi ? LL : P) * 4 * gpn * k;
            cf = zi ? "LL * 4 * gpus_per_node * 1.5 / gpus_per_node" : "P * 4 * gpus_per_node * 1.5 / gpus_per_node";
        }
    }
    add(c.e, c.d, comp("deepspeed.gpu_model_states", "DeepSpeed estimator: model states per GPU", Category::Optimizer, gpu, kAllPhases, gf_text,
                       "DeepSpeed memory.rst / estimate_zero2|zero3_model_states_mem_needs [deepspeed-memory]"),
        [&] {
            if (p.zero == 2) return p.offload_optimizer ? derive("2 * {}", P) : derive("4 * {} + floor(16 * {} / {})", P, P, N);
            if (all) return derive("4 * {}", LL);
            return p.offload_optimizer ? derive("4 * {} + floor(2 * {} / {})", LL, P, N) : derive("4 * {} + floor(18 * {} / {})", LL, P, N);
        });
    const double share = cpu / gpn;
    add(c.e, c.d, comp("deepspeed.cpu_model_states", "DeepSpeed estimator: host memory (per GPU's share of the node)", Category::Optimizer, share,
                       kAllPhases, cf,
                       "DeepSpeed estimate_zero2|zero3_model_states_mem_needs cpu_mem (additional_buffer_factor 1.5, zero_init), per GPU of the node [deepspeed-memory]",
                       true),
        [&] {
            if (p.zero == 2) return p.offload_optimizer ? derive("{} * max(4 * {}, 16) * 1.5 / {}", P, N, gpn) : derive("{} * 4 * {} * 1.5 / {}", P, gpn, gpn);
            if (p.offload_optimizer)
                return zi ? derive("{} * {} / {} * 1.5 / {}", P, opt_bpp, nodes, gpn)
                          : derive("{} * max(4 * {}, {} / {}) * 1.5 / {}", P, gpn, opt_bpp, nodes, gpn);
            return derive("{} * 4 * {} * 1.5 / {}", zi ? LL : P, gpn, gpn);
        });
}

// ---- accelerate estimate-memory: "Training using Adam (Peak vRAM)" -----------------------------
// estimate_training_usage keeps four separate maxima, not a sum: model (fp32 size), gradients
// (fp32: 1x; mixed: 1.5x fp32 size), optimizer (2x fp32 size), step (fp32: 4x; mixed: = optimizer).
// Each becomes one component live in one phase, so the peak is their maximum as in accelerate.
void add_accelerate_compat(TrainCtx& c) {
    const double P = static_cast<double>(c.pc.total);
    const bool fp32 = c.s.train.precision == Precision::FP32;
    const double f32 = 4 * P;
    const double grads = fp32 ? f32 : 1.5 * f32, opt = 2 * f32, step = fp32 ? 4 * f32 : opt;
    add(c.e, c.d, comp("accelerate.model", "accelerate: model (fp32 size)", Category::Weights, f32, phase_bit(Phase::Load), "4 * P",
                       "accelerate commands/estimate.py estimate_training_usage [accelerate-estimate]"),
        [&] { return derive("4 * {}", P); });
    add(c.e, c.d, comp("accelerate.gradients", "accelerate: gradient calculation", Category::Gradients, grads, phase_bit(Phase::Forward),
                       fp32 ? "4 * P" : "1.5 * 4 * P", "accelerate commands/estimate.py estimate_training_usage [accelerate-estimate]"),
        [&] { return fp32 ? derive("4 * {}", P) : derive("1.5 * 4 * {}", P); });
    add(c.e, c.d, comp("accelerate.optimizer", "accelerate: backward pass (optimizer states)", Category::Optimizer, opt, phase_bit(Phase::Backward),
                       "2 * 4 * P", "accelerate commands/estimate.py estimate_training_usage [accelerate-estimate]"),
        [&] { return derive("2 * 4 * {}", P); });
    add(c.e, c.d, comp("accelerate.step", "accelerate: optimizer step", Category::Optimizer, step, phase_bit(Phase::Step),
                       fp32 ? "4 * 4 * P" : "2 * 4 * P", "accelerate commands/estimate.py estimate_training_usage [accelerate-estimate]"),
        [&] { return fp32 ? derive("4 * 4 * {}", P) : derive("2 * 4 * {}", P); });
}

}  // namespace vl
