// Shared by the training files only: the per-rank context and the functions each file provides.
#pragma once
#include <functional>

#include "formula.h"
#include "parallel.h"
#include "training/activations.h"

namespace vl {

// Bytes per element of each training tensor, chosen by the precision regime ([llm-gpu-memory-2025]
// table, [transformer-series5 §3.1], [zero2020 §3.1], mixed precision [micikevicius2018]).
struct Dtypes {
    double weight = 2;      // trainable weights as the forward pass uses them
    double grad = 2;        // gradients (4 with fp32 accumulation or in FP32)
    double master = 4;      // fp32 master copy (mixed regimes; FP32 only with extra_fp32_weight_copy)
    double grad_copy = 0;   // extra fp32 gradient copy made for the step (the 20 B regime of [transformer-series5 §3.1])
    double state = 4;       // one optimizer state element
    double fp8_cache = 0;   // FP8: fp8 weight + transpose cache of the linear weights
    double act = 2;         // activations
    double linear_in = 2;   // saved inputs of linear layers (FP8: 1)
    // Autocast over fp32 weights [pytorch-autocast-code]: the 16-bit copy of each matmul weight (cached
    // for leaf weights that require grad, saved for backward by the matmul either way), and the fp32
    // residual stream that an fp32 embedding starts and the norms keep (0: the activation dtype).
    double autocast_copy = 0;
    double residual = 0;
    // FSDP MixedPrecision(param_dtype): a gathered unit's parameters and its unsharded gradients in this
    // dtype, not the stored one [pytorch-fsdp-code] (0: the weight dtype).
    double gathered = 0;
    double gathered_bytes() const { return gathered > 0 ? gathered : weight; }
};
Dtypes training_dtypes(const TrainingOptions& t);

// The regimes in which the model is transformers' own modelling code trained with plain PyTorch
// (torch.optim on .grad): fp32, autocast over fp32 weights, pure bf16, and PEFT adapters on any base.
// The 16-bit-weights + fp32-master regimes are Megatron's and DeepSpeed's recipe, with their own
// buffers and fused kernels.
bool plain_pytorch_training(const Scenario& s);

// Everything one rank's estimate needs; built once per evaluated pipeline stage.
struct TrainCtx {
    const Scenario& s;
    const ParamCounts& pc;
    Detail d;
    Estimate& e;
    StageInfo stage;
    RankWeights w;          // weights this rank holds before ZeRO sharding
    Dtypes dt;
    double shard = 1;       // ZeRO/FSDP shard group size
    double expert_shard = 1;  // the routed experts' shard group: the expert-data-parallel ranks (parallel.h expert_shard_size)
    double in_flight = 1;   // micro-batches whose activations this stage holds
    double largest_layer = 0;  // params of the largest gathered unit (ZeRO-3), 0 when unknown
    bool finetune_adapters = false;  // LoRA/QLoRA: the base is frozen
    double trainable = 0;   // trainable parameters on this rank before ZeRO sharding (add_model_states adds each set)
    double trainable_experts = 0;  // of them, the routed experts' (sharded over expert_shard)
};

// model_states.cpp: weights, gradients, master weights, optimizer states (trainable set given).
struct TrainableSet {
    double params = 0;          // trainable parameters on this rank (before ZeRO sharding)
    double experts = 0;         // of them, the routed experts' (their states shard over TrainCtx::expert_shard)
    double factored_states = 0; // Adafactor: state elements (rows + cols per matrix, full vectors)
    Dtypes dt;
    bool saved_modules = false; // PEFT modules_to_save copies (finetune.cpp), beside the adapters
};
void add_model_states(TrainCtx& c, const TrainableSet& t);

// A per-parameter quantity of a trainable set on this rank: f(P) / N over the n ranks that shard it, or, where the
// routed experts shard over another group (expert_shard_size: n is the dense group c.shard and ep > 1), the dense
// and expert parts apart, f(P_dense) / N + f(P_expert) / N_edp. n of 1 (not sharded) leaves the experts whole too.
// The one place the split is written (model states, DeepSpeed's buffers) [megatron-core-moe-code] [deepspeed-moe-code].
template <class Q, class F>
auto over_shards(Q& q, const TrainCtx& c, const char* p_sym, double P, double experts, const char* n_sym, double n, F f) {
    const double n_expert = n == c.shard ? c.expert_shard : n;
    if (!(experts > 0) || n_expert == n) return f(q(p_sym, P)) / q(n_sym, n);
    return f(q("P_dense", P - experts)) / q(n_sym, n) + f(q("P_expert", experts)) / q("N_edp", n_expert);
}
// The phases gradients live in, and the ranks a gradient is split over (1 while FSDP's no_sync keeps them whole).
unsigned gradient_phases(const Scenario& s);
double gradient_shards(const TrainCtx& c);
// Autocast over fp32 weights: the 16-bit copies of the layers' and the head's matmul weights (over N_w ZeRO-3 ranks);
// cached: the weights require grad (trained), so autocast caches their casts (frozen ones it does not).
void add_autocast_copies(TrainCtx& c, double layer_params, double head_params, double n_w, bool cached);
double autocast_head_params(const TrainCtx& c);
struct Tensor;
// The sum of per_tensor over every tensor of this stage (its layers', the embedding side on the first, the head side on the last).
double stage_tensor_sum(const ModelSpec& m, const ParamCounts& pc, const StageInfo& st, const std::function<double(const Tensor&)>& per_tensor);
double adafactor_state_elements(const ModelSpec& m, const ParamCounts& pc, const Parallelism& par, const StageInfo& st);

// activations.cpp: per-layer tensors on the stage, embedding inputs, logits and loss, working sets.
void add_activations(TrainCtx& c);
ActShape activation_shape(const Scenario& s, const Dtypes& dt);
// LoRA/QLoRA: bytes of each adapted module's own saved cast of its input (0: none, the input is shared).
double adapter_input_cast_bytes(const Scenario& s);

// finetune.cpp: LoRA / QLoRA frozen base, adapters and their states (a trained projector's modules_to_save copy:
// `vision_trained` parameters).
void add_finetune(TrainCtx& c, double vision_trained, double vision_nf4);

// vision_training.cpp: a vision-language model's tower and projector by train.vision, on the first pipeline stage.
struct VisionTrainingParams {
    double frozen = 0;   // loaded, not trained (nf4 included)
    double trained = 0;  // trained: full training adds them to the trainable set, adapters train a copy
    double nf4 = 0;      // of the frozen ones, the linear weights a QLoRA load stores in NF4 (finetune.vision_quant)
};
VisionTrainingParams vision_training_params(const TrainCtx& c);
// Whether a tensor of vision_tensors(s.model) is stored NF4 in this scenario: QLoRA, an nn.Linear weight that stays frozen,
// converted by finetune.vision_quant.
struct Tensor;
bool vision_nf4_tensor(const Scenario& s, const Tensor& t);
void add_vision_frozen_weights(TrainCtx& c, double frozen);
void add_projector_activations(TrainCtx& c);
// The tower's forward working memory where it saves nothing (frozen, or only the projector trained): one tower layer's live
// tensors over the images' patches, beyond the activations live at the end of forward (the tower runs before them).
void add_vision_forward_working(TrainCtx& c);
// activations.cpp: a trained or adapted tower's saved activations over the images' patches (train.vision all / lora).
void add_vision_tower_activations(TrainCtx& c);
// activations.cpp: Llama 3.2 Vision's cross-attention layers over the images' states, and the states and mask they read.
void add_mllama_cross_attention(TrainCtx& c);

// overheads.cpp: CUDA context, communication buckets, ZeRO-3 gather buffers, fragmentation.
void add_buffers(TrainCtx& c);

// A Megatron-Core run: its loss (vocab_parallel_cross_entropy, which only Megatron-Core runs; the megatron-lm profile
// sets it) [megatron-cross-entropy-code]. Its process groups (overheads.cpp) and its in-place gradient buffers follow.
inline bool megatron_core_run(const Scenario& s) { return s.train.loss == LossImpl::Megatron; }
void add_context(TrainCtx& c);

// compat.cpp: reproductions of other tools' accounting (Megatron, DeepSpeed estimator, accelerate).
void add_megatron_compat(TrainCtx& c);
void add_deepspeed_compat(TrainCtx& c);
void add_accelerate_compat(TrainCtx& c);



// Phase masks used throughout.
inline constexpr unsigned kFwdBwd = phase_bit(Phase::Forward) | phase_bit(Phase::Backward);
inline constexpr unsigned kAfterLoad = phase_bit(Phase::Forward) | phase_bit(Phase::Backward) | phase_bit(Phase::Step);
inline constexpr unsigned kBwdStep = phase_bit(Phase::Backward) | phase_bit(Phase::Step);
inline constexpr unsigned kBwd = phase_bit(Phase::Backward);
inline constexpr unsigned kStep = phase_bit(Phase::Step);

}  // namespace vl
