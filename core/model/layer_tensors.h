// The tensor inventory: every weight of a transformer layer, and of the model around the layers,
// with its Hugging Face name, shape, the module it belongs to and how tensor/expert parallelism splits
// it. Parameter counts (param_count.cpp), TP/EP shards (parallel.cpp), Adafactor states
// (model_states.cpp), LoRA adapters (finetune.cpp) and the tensor-parallel rules (model_validate.cpp)
// all read it; each shape is written once, below (for_each_layer_tensor, for_each_model_tensor).
// The hot paths visit the tensors (inlined, no list); layer_tensors() / model_tensors() return them
// as a fixed-capacity list for everything else.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "cold.h"
#include "model_spec.h"
#include "param_count.h"
#include "scenario.h"

namespace vl {

// The module a tensor belongs to (its place in the Hugging Face module tree).
enum class TensorKind : uint8_t {
    Attention,     // self_attn.*: projections, their biases, q_norm/k_norm, MLA's q_a/kv_a norms
    Ssm,           // the Mamba mixer of a state-space layer (mixer.* / mamba.*)
    Mlp,           // the dense MLP
    Expert,        // one routed expert (count = num_experts)
    SharedExpert,  // the always-on shared expert block (DeepSeek shared_experts, Qwen2-MoE shared_expert)
    Router,        // the MoE gate: router matrix, its bias, Qwen2-MoE's shared_expert_gate
    Norm,          // the layer's own norms (input_layernorm, ...); outside the layers, BLOOM's embedding norm
    Embedding,     // outside the layers: token and learned position embeddings
    EmbeddingProjection,  // outside the layers: OPT-350m project_in / project_out
    Head,          // outside the layers: lm_head (and its bias)
    FinalNorm,     // outside the layers: the final norm
    VisionTower,   // a vision-language model's image encoder (ModelSpec::vision; vision_tensors)
    VisionProjector,  // the projector from the tower's features to the language model's embeddings
};

// How tensor parallelism splits a tensor (Megatron-LM [shoeybi2019]; vLLM's linear layers [vllm-code]).
// Shapes are Hugging Face's nn.Linear weight shape [out_features, in_features] = rows x cols.
enum class TensorSplit : uint8_t {
    Column,      // ColumnParallelLinear: rows (output features) / tp, and its bias
    Row,         // RowParallelLinear: cols (input features) / tp (its bias is Replicated: added after the all-reduce)
    Replicated,  // every rank holds all of it (norms, router, row-parallel biases, MLA's q_a/kv_a down-projections)
    Vocab,       // VocabParallelEmbedding / ParallelLMHead: rows (vocabulary) / tp
};

// The config dimension a column- or row-parallel matrix is split along (tp must divide it).
enum class SplitDim : uint8_t { None, Heads, KvHeads, Ffn, ExpertFfn, SharedFfn, SsmInner };  // 7 values (model_validate.cpp)

// Its Hugging Face config field, for messages ("num_attention_heads").
const char* split_dim_field(SplitDim dim, const ModelSpec& m);

// What a tensor is inside its module: the projections that LoRA targets by name and that the GGUF
// mixes and LLM.int8 treat apart, or a 1-D tensor (bias, norm weight).
enum class TensorRole : uint8_t { Q, K, V, O, Gate, Up, Down, OtherMatrix, Vector };

// Plain aggregate without member defaults, so a TensorList's storage is not initialized up front.
struct Tensor {
    const char* name;      // Hugging Face module name: "q_proj", "experts.down_proj", "q_proj.bias", "input_layernorm"
    int64_t rows;          // out_features (a vector: its length)
    int64_t cols;          // in_features (a vector: 1)
    int64_t count;         // copies: num_experts for routed experts, a vision tower's layers for its layer tensors, else 1
    TensorKind kind;
    TensorSplit split;
    TensorRole role;
    unsigned lora;         // LoRA target bits (scenario.h kLora*) that select this matrix; 0: never a target
    SplitDim split_dim;    // Column/Row: the dimension tp splits (attention heads, an MLP width); None otherwise
    int64_t split_units;   // its size: tp must divide it
    bool matrix() const { return role != TensorRole::Vector; }
    int64_t elements() const { return rows * cols; }       // one copy
    int64_t params() const { return count * rows * cols; }  // all copies
    bool routed() const { return kind == TensorKind::Expert; }
};

// A fixed-capacity list (no heap).
template <size_t Capacity>
class TensorList {
public:
    void add(const Tensor& t) {
        if (size_ < Capacity) items_[size_++] = t;
    }
    const Tensor* begin() const { return items_.data(); }
    const Tensor* end() const { return items_.data() + size_; }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    const Tensor& operator[](size_t i) const { return items_[i]; }
    static constexpr size_t capacity() { return Capacity; }

private:
    std::array<Tensor, Capacity> items_;  // [0, size_) are set
    size_t size_ = 0;
};

// ---- the shapes ------------------------------------------------------------------------------
// Each shape follows the module list of the Hugging Face transformers modeling file named beside it
// [transformers-code]; the splits follow Megatron-LM [shoeybi2019] and vLLM [vllm-code]. Tests check
// the totals against published parameter counts (tests/layer_tensors_test.cpp, param_count_test.cpp).

// Width of the shared-expert block of an MoE layer: Qwen2-MoE shared_expert_intermediate_size, or
// DeepSeek's n_shared_experts experts of moe_intermediate_size side by side; 0 when there is none.
inline int64_t shared_expert_ffn(const ModelSpec& m) {
    const MoESpec& e = m.moe;
    if (e.num_experts <= 0) return 0;
    return e.shared_expert_ffn > 0 ? e.shared_expert_ffn : e.shared_experts * e.expert_ffn;
}

// Whether the MoE router is an nn.Linear module, which PEFT's "all-linear" wraps with an adapter
// (_maybe_include_all_linear_layers: every torch.nn.Linear but the output embedding) [peft-all-linear-code]. In
// transformers 4.x, whose experts vramlens counts as nn.Linear modules (gpt-oss's apart: fused_expert_parameters),
// Mixtral's block_sparse_moe.gate, Qwen2-MoE's, Qwen3-MoE's and Qwen3-Next's mlp.gate and shared_expert_gate, Jamba's
// router and Granite-4.0-H's router.layer are nn.Linear; DeepSeek-V2/V3's and GLM-4.5's gates, Nemotron-H's router and
// gpt-oss's GptOssTopKRouter hold their weight as an nn.Parameter, as every router of transformers 5 does
// (MixtralTopKRouter), so no adapter goes there [transformers-moe-routers].
inline bool router_is_linear(const ModelSpec& m) {
    const std::string& t = m.model_type;
    return t == "mixtral" || t == "qwen2_moe" || t == "qwen3_moe" || t == "qwen3_next" || t == "jamba" || t == "granitemoehybrid";
}

// Whether the routed experts are 3-D nn.Parameters, not nn.Linear modules: gpt-oss's GptOssExperts holds gate_up_proj
// [E, d, 2 I] and down_proj [E, I, d] as parameters [transformers-moe-routers], so no PEFT target_modules name (gate_proj,
// up_proj, down_proj, nor "all-linear") reaches them; only target_parameters does (finetune.lora_expert_layers,
// moe_experts.h) [peft-paramwrapper-code]. Their elements are those of E gated MLPs, so the inventory keeps that shape.
inline bool experts_are_parameters(const ModelSpec& m) { return m.model_type == "gpt_oss" && m.moe.num_experts > 0; }

// Whether a Gated DeltaNet mixer has Qwen3.5's four input projections (in_proj_qkv, in_proj_z, in_proj_b, in_proj_a) rather than
// Qwen3-Next's two (in_proj_qkvz, in_proj_ba) [transformers-code].
inline bool gdn_split_projections(const ModelSpec& m) { return m.model_type.rfind("qwen3_5", 0) == 0; }

// Rows MllamaTextModel's token embedding has beyond text_config.vocab_size (nn.Embedding(vocab_size + 8, ...)) [transformers-mllama].
inline constexpr int64_t kMllamaExtraTokens = 8;

namespace tensors {

using K = TensorKind;
using S = TensorSplit;
using R = TensorRole;

// The dimension (and its size) that a column/row split divides.
struct SplitBy {
    SplitDim dim;
    int64_t units;
};
inline constexpr SplitBy kWhole{SplitDim::None, 0};

// The helpers are forced inline so that a visitor's unused fields (names, split dims) cost nothing.
#define VL_TENSOR_INLINE [[gnu::always_inline]] inline

VL_TENSOR_INLINE Tensor mat(const char* name, int64_t rows, int64_t cols, K kind, S split, R role, unsigned lora, SplitBy by, int64_t count = 1) {
    return Tensor{name, rows, cols, count, kind, split, role, lora, by.dim, by.units};
}
VL_TENSOR_INLINE Tensor vec(const char* name, int64_t len, K kind) { return mat(name, len, 1, kind, S::Replicated, R::Vector, 0, kWhole); }

// The bias of matrix w: one value per output feature, split with w's rows (column-parallel) or whole
// on every rank (row-parallel: added after the all-reduce).
VL_TENSOR_INLINE Tensor bias_of(const Tensor& w, const char* name) {
    const bool row = w.split == S::Row;
    return Tensor{name, w.rows, 1, w.count, w.kind, row ? S::Replicated : w.split, R::Vector, 0, row ? SplitDim::None : w.split_dim,
                  row ? 0 : w.split_units};
}

template <class F>
VL_TENSOR_INLINE void with_bias(F& f, const Tensor& w, bool has_bias, const char* bias_name) {
    f(w);
    if (has_bias) f(bias_of(w, bias_name));
}

// A norm of `width`: RMSNorm has a weight (LlamaRMSNorm), LayerNorm a weight and a bias (torch.nn.LayerNorm).
// `count` copies: an encoder-decoder's per-stack norms (Seq2SeqSpec).
template <class F>
VL_TENSOR_INLINE void norm(F& f, const ModelSpec& m, const char* weight, const char* bias, int64_t width, K kind, int64_t count = 1) {
    f(mat(weight, width, 1, kind, S::Replicated, R::Vector, 0, kWhole, count));
    if (m.norm == NormKind::LayerNorm) f(mat(bias, width, 1, kind, S::Replicated, R::Vector, 0, kWhole, count));
}

// Standard attention (LlamaAttention; fused qkv checkpoints hold the same elements): q [a*h_d, d], k and
// v [kv*h_d, d] column-parallel by head, o [d, a*h_d] row-parallel; Qwen3/Gemma3 q_norm, k_norm over h_d.
template <class F>
VL_TENSOR_INLINE void standard_attention(F& f, const ModelSpec& m) {
    const int64_t d = m.hidden, q = m.heads * m.head_dim, kv = m.kv_heads * m.head_dim;
    const SplitBy heads{SplitDim::Heads, m.heads}, kv_heads{SplitDim::KvHeads, m.kv_heads};
    // Gated attention (Qwen3NextAttention, attn_output_gate): q_proj yields each head's query and its
    // output gate, 2 * a * h_d rows [transformers-code] [qwen3-next].
    const int64_t q_rows = m.attn_output_gate ? 2 * q : q;
    with_bias(f, mat("q_proj", q_rows, d, K::Attention, S::Column, R::Q, kLoraQ, heads), m.qkv_bias, "q_proj.bias");
    with_bias(f, mat("k_proj", kv, d, K::Attention, S::Column, R::K, kLoraK, kv_heads), m.qkv_bias, "k_proj.bias");
    with_bias(f, mat("v_proj", kv, d, K::Attention, S::Column, R::V, kLoraV, kv_heads), m.qkv_bias, "v_proj.bias");
    with_bias(f, mat("o_proj", d, q, K::Attention, S::Row, R::O, kLoraO, heads), m.attn_out_bias, "o_proj.bias");
    // gpt-oss attention sinks (GptOssAttention.sinks [a]): one learned logit per head joined to each row of
    // scores before the softmax [transformers-code] [gpt-oss-card]; split by head like q (vLLM shards them per rank).
    if (m.attention_sinks) f(mat("sinks", m.heads, 1, K::Attention, S::Column, R::Vector, 0, heads));
    if (m.qk_norm) {
        norm(f, m, "q_norm", "q_norm.bias", m.head_dim, K::Attention);
        norm(f, m, "k_norm", "k_norm.bias", m.head_dim, K::Attention);
    }
}

// Multi-head Latent Attention (DeepSeek-V2 paper §2.1 [deepseek-v2]; modeling_deepseek_v3.DeepseekV3Attention):
// q_a_proj [r_q, d] + q_a_layernorm r_q + q_b_proj [a*(nope+rope), r_q] (or q_proj [a*(nope+rope), d] when
// r_q = 0), kv_a_proj_with_mqa [r_kv+rope, d] + kv_a_layernorm r_kv, kv_b_proj [a*(nope+v), r_kv],
// o_proj [d, a*v]. The down-projections q_a/kv_a are replicated (vLLM ReplicatedLinear [vllm-code]),
// the up-projections column-parallel by head, o row-parallel. LoRA's q targets q_a/q_b, k and v kv_a/kv_b.
template <class F>
VL_TENSOR_INLINE void mla_attention(F& f, const ModelSpec& m) {
    const MLASpec& x = m.mla;
    const int64_t d = m.hidden, a = m.heads;
    const int64_t qk_head = x.qk_nope_head_dim + x.qk_rope_head_dim;
    const SplitBy heads{SplitDim::Heads, a};
    if (x.q_lora_rank > 0) {
        f(mat("q_a_proj", x.q_lora_rank, d, K::Attention, S::Replicated, R::OtherMatrix, kLoraQ, kWhole));
        norm(f, m, "q_a_layernorm", "q_a_layernorm.bias", x.q_lora_rank, K::Attention);
        f(mat("q_b_proj", a * qk_head, x.q_lora_rank, K::Attention, S::Column, R::Q, kLoraQ, heads));
    } else {
        f(mat("q_proj", a * qk_head, d, K::Attention, S::Column, R::Q, kLoraQ, heads));
    }
    f(mat("kv_a_proj_with_mqa", x.kv_lora_rank + x.qk_rope_head_dim, d, K::Attention, S::Replicated, R::OtherMatrix, kLoraK | kLoraV, kWhole));
    norm(f, m, "kv_a_layernorm", "kv_a_layernorm.bias", x.kv_lora_rank, K::Attention);
    f(mat("kv_b_proj", a * (x.qk_nope_head_dim + x.v_head_dim), x.kv_lora_rank, K::Attention, S::Column, R::OtherMatrix, kLoraK | kLoraV, heads));
    with_bias(f, mat("o_proj", d, a * x.v_head_dim, K::Attention, S::Row, R::O, kLoraO, heads), m.attn_out_bias, "o_proj.bias");
}

// The Mamba mixer, by the module list of transformers' MambaMixer / JambaMambaMixer / Mamba2Mixer
// [transformers-code] ([gu2023-mamba] §3.4, [dao2024-mamba2] §7). Mamba1: in_proj [2*d_in, d] (x and the
// gate z), conv1d [d_in, 1, d_conv] + bias, x_proj [dt_rank + 2*d_state, d_in] (dt, B, C), dt_proj
// [d_in, dt_rank] + bias, A_log [d_in, d_state], D [d_in], out_proj [d, d_in]; Jamba adds RMSNorms on
// dt (dt_rank), B and C (d_state). Mamba2: in_proj [2*d_in + 2*groups*d_state + heads, d] (z, x, B, C,
// dt), conv1d over x, B and C [d_in + 2*groups*d_state, 1, d_conv] + bias, dt_bias, A_log and D per
// head, the gated RMSNorm [d_in] (Falcon-H1: only with mamba_rms_norm), out_proj [d, d_in]. in_proj has a
// bias with use_bias (proj_bias), out_proj with out_proj_bias (use_bias; Falcon-H1's projectors_bias).
// conv1d, A_log and the vectors are not Linear layers (role Vector: no quantization, no LoRA). The four nn.Linear layers
// are LoRA targets by their names (in_proj, x_proj, dt_proj, out_proj; PEFT "all-linear" catches them all) [peft-code].
// Tensor parallelism, Mamba1 as vLLM's MambaMixer splits it [vllm-code]: in_proj (MergedColumnParallel),
// conv1d and dt_proj column-parallel along d_inner, A and D by d_inner rows, x_proj and out_proj
// row-parallel, the dt/B/C norms replicated. Mamba2's head and group sharding is not modelled
// (validate_tensor_parallel refuses tp > 1 for it), so its tensors are Replicated here.
template <class F>
VL_TENSOR_INLINE void mamba_mixer(F& f, const ModelSpec& m) {
    const SsmSpec& x = m.ssm;
    const int64_t d = m.hidden, in = x.inner, n = x.state;
    const bool v2 = x.kind == SsmKind::Mamba2;
    const int64_t conv_dim = v2 ? in + 2 * x.groups * n : in;
    const int64_t in_rows = v2 ? 2 * in + 2 * x.groups * n + x.heads : 2 * in;
    const SplitBy inner = v2 ? kWhole : SplitBy{SplitDim::SsmInner, in};
    const S column = v2 ? S::Replicated : S::Column, row = v2 ? S::Replicated : S::Row;
    auto matrix = [&](const char* name, int64_t rows, int64_t cols, S split, unsigned lora) {
        return mat(name, rows, cols, K::Ssm, split, R::OtherMatrix, lora, split == S::Replicated ? kWhole : inner);
    };
    auto other = [&](const char* name, int64_t rows, int64_t cols, S split) {
        return mat(name, rows, cols, K::Ssm, split, R::Vector, 0, split == S::Replicated ? kWhole : inner);
    };
    with_bias(f, matrix("in_proj", in_rows, d, column, kLoraInProj), x.proj_bias, "in_proj.bias");
    f(other("conv1d.weight", conv_dim, x.conv_kernel, column));
    if (x.conv_bias) f(other("conv1d.bias", conv_dim, 1, column));
    if (v2) {
        f(other("dt_bias", x.heads, 1, S::Replicated));
        f(other("A_log", x.heads, 1, S::Replicated));
        f(other("D", x.heads, 1, S::Replicated));
        if (x.gated_norm) f(other("norm", in, 1, S::Replicated));
    } else {
        f(matrix("x_proj", x.dt_rank + 2 * n, in, row, kLoraXProj));
        with_bias(f, matrix("dt_proj", in, x.dt_rank, column, kLoraDtProj), true, "dt_proj.bias");
        f(other("A_log", in, n, column));
        f(other("D", in, 1, column));
        if (x.bcdt_norms) {
            f(other("dt_layernorm", x.dt_rank, 1, S::Replicated));
            f(other("b_layernorm", n, 1, S::Replicated));
            f(other("c_layernorm", n, 1, S::Replicated));
        }
    }
    with_bias(f, matrix("out_proj", d, in, row, kLoraOutProj), x.out_proj_bias, "out_proj.bias");
}

// A Zamba hybrid layer's own tensors and, on the first invocation of each shared block (kind.shared_owner), the block's
// (ZambaHybridLayer / Zamba2HybridLayer, ZambaAttentionDecoderLayer / Zamba2AttentionDecoderLayer [transformers-zamba2]
// [zamba2-report]): per invocation `linear` [d, d] after the block, with adapter_rank r the gate_up adapter [r, d] + [2 ffn, r]
// and, with attn_adapters, q, k and v adapters [r, 2d] + [2d, r] each; per block q, k, v [heads * head_dim, 2d] (the input is
// concat(hidden, embeddings)), o [d, heads * head_dim], gate_up [2 ffn, d] (gate and up in one Linear: no gate_proj / up_proj
// LoRA target matches it), down [d, ffn], input_layernorm [2d], pre_ff_layernorm [d]. Their tensor-parallel split is
// not modelled (validate_tensor_parallel refuses tp > 1 for these models): Replicated.
// Out of line (layer_tensors.cpp): only a Zamba model's layers visit them, so the visitors inline a loop, not the shapes.
using SharedBlockTensors = TensorList<24>;  // at most 18: linear, 6 q/k/v adapter halves, 2 gate_up adapter halves, 8 block tensors
SharedBlockTensors zamba_shared_tensors(const ModelSpec& m, LayerKind kind);
template <class F>
VL_TENSOR_INLINE void zamba_shared(F& f, const ModelSpec& m, LayerKind kind) {
    for (const Tensor& t : zamba_shared_tensors(m, kind)) f(t);
}

// The Gated DeltaNet mixer of a linear-attention layer (Qwen3NextGatedDeltaNet [transformers-code];
// [yang2024-gated-deltanet]), with key_dim = groups * state (linear_num_key_heads * linear_key_head_dim)
// and value_dim = inner (linear_num_value_heads * linear_value_head_dim): in_proj_qkvz [2 * key_dim +
// 2 * value_dim, d] (q, k, v and the gate z), in_proj_ba [2 * heads, d] (beta and the decay a per value
// head), conv1d over q, k and v [2 * key_dim + value_dim, 1, d_conv] without bias, dt_bias and A_log
// per value head, the gated RMSNorm over one head's value_dim / heads, out_proj [d, value_dim].
// Qwen3.5 splits the input projections (Qwen3_5GatedDeltaNet: in_proj_qkv [2 * key_dim + value_dim, d], in_proj_z
// [value_dim, d], in_proj_b and in_proj_a [heads, d]): the same elements in four nn.Linear modules, each a LoRA target of its
// own name, as in_proj_qkvz, in_proj_ba and out_proj are (the forward calls every one as a module; fla's causal_conv1d_fn and
// chunk_gated_delta_rule take the projected tensors, so no kernel bypasses an adapter; conv1d, A_log and dt_bias are no
// Linear) [transformers-code]. Its head sharding (vLLM) is not modelled: Replicated, and tp > 1 is refused as for Mamba2.
template <class F>
VL_TENSOR_INLINE void gated_deltanet_mixer(F& f, const ModelSpec& m) {
    const SsmSpec& x = m.ssm;
    const int64_t d = m.hidden, key_dim = x.groups * x.state, value_dim = x.inner;
    auto matrix = [&](const char* name, int64_t rows, int64_t cols, unsigned lora) {
        return mat(name, rows, cols, K::Ssm, S::Replicated, R::OtherMatrix, lora, kWhole);
    };
    auto other = [&](const char* name, int64_t rows, int64_t cols) { return mat(name, rows, cols, K::Ssm, S::Replicated, R::Vector, 0, kWhole); };
    // (few call sites of f: the visitor is inlined at each) Qwen3.5's in_proj_qkv, in_proj_z, in_proj_b, in_proj_a, or Qwen3-Next's two
    const bool split = gdn_split_projections(m);
    f(split ? matrix("in_proj_qkv", 2 * key_dim + value_dim, d, kLoraInProjQkv) : matrix("in_proj_qkvz", 2 * key_dim + 2 * value_dim, d, kLoraInProjQkvz));
    f(split ? matrix("in_proj_z", value_dim, d, kLoraInProjZ) : matrix("in_proj_ba", 2 * x.heads, d, kLoraInProjBa));
    for (int i = 0; i < (split ? 2 : 0); ++i) f(matrix(i == 0 ? "in_proj_b" : "in_proj_a", x.heads, d, i == 0 ? kLoraInProjB : kLoraInProjA));
    f(other("conv1d.weight", 2 * key_dim + value_dim, x.conv_kernel));
    if (x.conv_bias) f(other("conv1d.bias", 2 * key_dim + value_dim, 1));
    f(other("dt_bias", x.heads, 1));
    f(other("A_log", x.heads, 1));
    f(other("norm", x.heads > 0 ? value_dim / x.heads : 0, 1));
    f(matrix("out_proj", d, value_dim, kLoraOutProj));
}

struct MlpNames {
    const char *gate, *up, *down, *gate_bias, *up_bias, *down_bias;
};
inline constexpr MlpNames kDense{"gate_proj", "up_proj", "down_proj", "gate_proj.bias", "up_proj.bias", "down_proj.bias"};
inline constexpr MlpNames kExperts{"experts.gate_proj", "experts.up_proj", "experts.down_proj",
                                   "experts.gate_proj.bias", "experts.up_proj.bias", "experts.down_proj.bias"};
inline constexpr MlpNames kShared{"shared_experts.gate_proj", "shared_experts.up_proj", "shared_experts.down_proj",
                                  "shared_experts.gate_proj.bias", "shared_experts.up_proj.bias", "shared_experts.down_proj.bias"};

// One MLP of width f_w, `count` times: gated (LlamaMLP) gate_proj and up_proj [f_w, d] column-parallel,
// down_proj [d, f_w] row-parallel; plain (GPT-2 c_fc/c_proj, OPT fc1/fc2) only up and down. Biases on
// every projection with mlp_bias. LoRA's gate/up/down select them by name, unless `named` is false (no module of
// these names exists: experts_are_parameters).
template <class F>
VL_TENSOR_INLINE void mlp(F& f, const ModelSpec& m, int64_t f_w, K kind, int64_t count, SplitBy width, const MlpNames& n, bool named = true) {
    const int64_t d = m.hidden;
    const auto lora = [named](LoraTarget t) { return named ? static_cast<unsigned>(t) : 0u; };
    if (m.gated_mlp) with_bias(f, mat(n.gate, f_w, d, kind, S::Column, R::Gate, lora(kLoraGate), width, count), m.mlp_bias, n.gate_bias);
    with_bias(f, mat(n.up, f_w, d, kind, S::Column, R::Up, lora(kLoraUp), width, count), m.mlp_bias, n.up_bias);
    with_bias(f, mat(n.down, d, f_w, kind, S::Row, R::Down, lora(kLoraDown), width, count), m.mlp_bias, n.down_bias);
}

// An MoE block (MixtralSparseMoeBlock, Qwen2MoeSparseMoeBlock, DeepseekV3MoE): E routed experts, the
// router gate [E, d] (+ DeepSeek-V3 e_score_correction_bias E) replicated (Megatron TopKRouter, vLLM
// ReplicatedLinear gate), the shared-expert block split like a dense MLP, Qwen2-MoE's shared_expert_gate [1, d].
template <class F>
VL_TENSOR_INLINE void moe_mlp(F& f, const ModelSpec& m) {
    const MoESpec& e = m.moe;
    mlp(f, m, e.expert_ffn, K::Expert, e.num_experts, {SplitDim::ExpertFfn, e.expert_ffn}, kExperts, !experts_are_parameters(m));
    const unsigned router = router_is_linear(m) ? static_cast<unsigned>(kLoraRouter) : 0u;  // an adapter under all-linear
    with_bias(f, mat("gate", e.num_experts, m.hidden, K::Router, S::Replicated, R::OtherMatrix, router, kWhole), e.router_bias,
              "gate.e_score_correction_bias");
    if (const int64_t sf = shared_expert_ffn(m); sf > 0)
        mlp(f, m, sf, K::SharedExpert, 1, {SplitDim::SharedFfn, sf}, kShared);
    if (e.shared_expert_gate) f(mat("shared_expert_gate", 1, m.hidden, K::Router, S::Replicated, R::OtherMatrix, router, kWhole));
}

// The layer's own norms, in Hugging Face order: pre-norm attention and MLP (2), one shared by a
// parallel block (1), Gemma2/3's sandwich (4).
inline constexpr const char* kNormNames[4] = {"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
                                              "post_feedforward_layernorm"};
inline constexpr const char* kNormBiasNames[4] = {"input_layernorm.bias", "post_attention_layernorm.bias",
                                                  "pre_feedforward_layernorm.bias", "post_feedforward_layernorm.bias"};

}  // namespace tensors

// Calls f(const Tensor&) for each tensor of one layer of the given kind: attention (standard or MLA)
// or, on a state-space model, the Mamba mixer (kind.ssm; with SsmSpec::parallel_attention attention
// beside it); a dense MLP (none when ffn is 0, as in
// Mamba) or (kind.moe, on a model with experts) routed experts + router + shared experts; the layer
// norms. A listed layer may hold its mixer alone (kind.no_mlp) or its MLP alone (kind.no_mixer).
// Nothing for a params-only model.
template <class F>
VL_TENSOR_INLINE void for_each_layer_tensor(const ModelSpec& m, LayerKind kind, F&& f) {
    using namespace tensors;
    if (!m.architecture_known()) return;
    if (kind.no_mixer) {
        // an MLP alone (Nemotron-H '-' / 'E')
    } else if (kind.ssm && m.ssm.kind == SsmKind::GatedDeltaNet) {
        cold([&] { gated_deltanet_mixer(f, m); });  // a function of its own: out of the first view's visitors (core/cold.h)
    } else {
        // Attention: a transformer's layer, a hybrid's attention layer, or beside the mixer (Falcon-H1).
        // One call site, so that the inlined attention shapes are not repeated in every visitor.
        if (!kind.ssm || m.ssm.parallel_attention) {
            if (m.attention == AttentionKind::MLA) mla_attention(f, m);
            else standard_attention(f, m);
        }
        // MllamaCrossAttentionDecoderLayer: cross_attn's q/k/v/o have self-attention's shapes (k and v project the projected
        // image states, already of width d), then q_norm and k_norm (RMSNorm over h_d) and the two tanh gates
        // cross_attn_attn_gate and cross_attn_mlp_gate, one value each [transformers-mllama].
        // An encoder-decoder's decoder layer (T5LayerCrossAttention EncDecAttention, BartDecoderLayer encoder_attn): beside its
        // self-attention, a cross-attention with self-attention's shapes (q from the decoder's d, k and v from the encoder's
        // output, also of width d) and its own norm (T5 layer[1].layer_norm, BART encoder_attn_layer_norm) [transformers-t5]
        // [transformers-bart]. LoRA's q and v select its q and v too (PEFT targets q, v of every attention block).
        if (kind.cross && m.seq2seq.active()) {
            standard_attention(f, m);
            norm(f, m, "cross_attention_layernorm", "cross_attention_layernorm.bias", m.hidden, K::Norm);
        } else if (kind.cross) {
            if (!m.qk_norm) {
                f(vec("cross_attn.q_norm", m.head_dim, K::Attention));
                f(vec("cross_attn.k_norm", m.head_dim, K::Attention));
            }
            f(vec("cross_attn_attn_gate", 1, K::Attention));
            f(vec("cross_attn_mlp_gate", 1, K::Attention));
        }
        if (kind.ssm && m.ssm.active()) mamba_mixer(f, m);
        if (kind.shared && m.ssm.shared_blocks > 0) cold([&] { zamba_shared(f, m, kind); });  // a Zamba model's layers only
    }
    if (kind.no_mlp) {
        // a mixer alone (Nemotron-H 'M' / '*')
    } else if (kind.moe && m.moe.num_experts > 0) moe_mlp(f, m);
    else if (m.ffn > 0) mlp(f, m, m.ffn, K::Mlp, 1, {SplitDim::Ffn, m.ffn}, kDense);
    const int norms = m.norms_per_layer < 0 ? 0 : m.norms_per_layer > 4 ? 4 : m.norms_per_layer;
    for (int i = 0; i < norms; ++i) norm(f, m, kNormNames[i], kNormBiasNames[i], m.hidden, K::Norm);
}

// Calls f(const Tensor&) for each tensor outside the layers: embeddings, embedding norm and
// projections, final norm, lm_head.
template <class F>
VL_TENSOR_INLINE void for_each_model_tensor(const ModelSpec& m, F&& f) {
    using namespace tensors;
    if (!m.architecture_known()) return;
    const int64_t d = m.hidden, e_dim = m.embed_dim > 0 ? m.embed_dim : d;
    // Token embedding [V, e] vocab-parallel; learned positions [max_pos + offset, d] (GPT-2 wpe, OPT offset 2).
    // MllamaTextModel's embed_tokens has vocab_size + 8 rows (the image token and 7 spare) [transformers-mllama].
    // An encoder-decoder shares the token embedding between its stacks; the position table, the embedding norm, the
    // final norm and T5's relative_attention_bias [buckets, heads] (block 0 of each stack) are once per stack.
    const int64_t stacks = m.seq2seq.active() ? 2 : 1;
    f(mat("embed_tokens", m.vocab + (m.vision.mllama() ? kMllamaExtraTokens : 0), e_dim, K::Embedding, S::Vocab, R::OtherMatrix, 0, kWhole));
    if (m.position == PositionKind::Learned)
        f(mat("embed_positions", m.max_position + m.position_offset, d, K::Embedding, S::Replicated, R::OtherMatrix, 0, kWhole, stacks));
    if (m.seq2seq.relative_buckets > 0)
        f(mat("relative_attention_bias", m.seq2seq.relative_buckets, m.heads, K::Embedding, S::Replicated, R::OtherMatrix, 0, kWhole, stacks));
    // BLOOM word_embeddings_layernorm (BART layernorm_embedding); OPT-350m project_in [d, e] and project_out [e, d] (no bias).
    if (m.embedding_norm) norm(f, m, "word_embeddings_layernorm", "word_embeddings_layernorm.bias", d, K::Norm, stacks);
    if (e_dim != d) {
        f(mat("project_in", d, e_dim, K::EmbeddingProjection, S::Replicated, R::OtherMatrix, 0, kWhole));
        f(mat("project_out", e_dim, d, K::EmbeddingProjection, S::Replicated, R::OtherMatrix, 0, kWhole));
    }
    // BERT token_type_embeddings [type_vocab_size, d] [transformers-code].
    if (m.type_vocab > 0) f(mat("token_type_embeddings", m.type_vocab, d, K::Embedding, S::Replicated, R::OtherMatrix, 0, kWhole));
    if (m.final_norm) norm(f, m, "norm", "norm.bias", d, K::FinalNorm, stacks);
    if (m.encoder) {  // an encoder's output is its hidden states, and BertPooler's dense [d, d] + bias is its head
        if (m.pooler && !m.mlm_head) {  // BertForMaskedLM builds its BertModel with add_pooling_layer=False
            const Tensor pool = mat("pooler.dense", d, d, K::Head, S::Replicated, R::OtherMatrix, 0, kWhole);
            f(pool);
            f(bias_of(pool, "pooler.dense.bias"));
        }
        // BertForSequenceClassification: classifier [num_labels, d] + bias over the pooled output [transformers-code].
        if (m.num_labels > 0) {
            const Tensor cls = mat("classifier", m.num_labels, d, K::Head, S::Replicated, R::OtherMatrix, 0, kWhole);
            f(cls);
            f(bias_of(cls, "classifier.bias"));
        }
        // BertForMaskedLM's BertLMPredictionHead: transform dense [d, d] + bias and LayerNorm, the decoder tied
        // to the word embeddings (no matrix of its own) and its bias [V] [transformers-code].
        if (m.mlm_head) {
            const Tensor dense = mat("cls.predictions.transform.dense", d, d, K::Head, S::Replicated, R::OtherMatrix, 0, kWhole);
            f(dense);
            f(bias_of(dense, "cls.predictions.transform.dense.bias"));
            norm(f, m, "cls.predictions.transform.LayerNorm", "cls.predictions.transform.LayerNorm.bias", d, K::Head);
            f(vec("cls.predictions.bias", m.vocab, K::Head));
        }
        return;
    }
    if (m.embedder) return;  // the base model (Qwen3Model): its checkpoint has no lm_head [transformers-code]
    // lm_head [V, e] vocab-parallel (ParallelLMHead); tied: the embedding matrix itself. Phi-1/2 have a bias.
    const Tensor head = mat("lm_head", m.vocab, e_dim, K::Head, S::Vocab, R::OtherMatrix, 0, kWhole);
    if (!m.tied_embeddings) f(head);
    if (m.lm_head_bias) f(bias_of(head, "lm_head.bias"));
}

// Calls f(const Tensor&) for each tensor of the multi-token-prediction module a Qwen3-Next / Qwen3.5
// checkpoint holds beside the model (mtp.*; vLLM Qwen3NextMultiTokenPredictor [vllm-code]): fc [d, 2d]
// over the concatenated embedding and hidden state, pre_fc_norm_embedding and pre_fc_norm_hidden [d],
// mtp_layers full-attention decoder layers (MoE when the model has experts), the final norm [d]; the
// embedding and lm_head are the model's. Nothing when mtp_layers is 0. DeepSeek-V3's MTP module has the
// same shapes under other names (eh_proj, enorm, hnorm, one layer, shared_head.norm).
template <class F>
VL_TENSOR_INLINE void for_each_mtp_tensor(const ModelSpec& m, F&& f) {
    using namespace tensors;
    if (!m.architecture_known() || m.mtp_layers <= 0) return;
    const int64_t d = m.hidden;
    f(mat("mtp.fc", d, 2 * d, K::Head, S::Replicated, R::OtherMatrix, 0, kWhole));
    f(vec("mtp.pre_fc_norm_embedding", d, K::Norm));
    f(vec("mtp.pre_fc_norm_hidden", d, K::Norm));
    for (int64_t i = 0; i < m.mtp_layers; ++i) for_each_layer_tensor(m, LayerKind{m.moe.num_experts > 0, false}, f);
    f(vec("mtp.norm", d, K::Norm));
}

// ---- the inventory as a list ------------------------------------------------------------------


// Worst cases (every option on; tests/layer_tensors_test.cpp builds them): a layer has at most 13
// attention and 14 Mamba (both with SsmSpec::parallel_attention) + 15 MoE MLP + 8 norm tensors, the model 10
// outside the layers (an encoder with a masked-LM head and every embedding option: 14). add() past the
// capacity would drop a tensor, so the capacities stay above those counts.
using LayerTensors = TensorList<52>;
using ModelTensors = TensorList<16>;
using VisionTensors = TensorList<32>;  // at most 30: Mllama (12 outside the layers, 16 layer tensors, 2 projector)

LayerTensors layer_tensors(const ModelSpec& m, LayerKind kind);
ModelTensors model_tensors(const ModelSpec& m);
// The tensors of a vision-language model's vision tower (kind VisionTower; a layer tensor once, with one copy per
// layer in `count`) and projector (kind VisionProjector), by the module lists of transformers' modeling files [transformers-code]:
// CLIPVisionTransformer / SiglipVisionTransformer (modeling_clip, modeling_siglip): patch_embedding
// [h, c*p*p] (SigLIP with a bias), CLIP's class_embedding [h], position_embedding [(S/p)^2 (+1 class), h],
// CLIP's pre_layrnorm; per layer q, k, v, out_proj [h, h] + biases, layer_norm1/2 (LayerNorm), fc1 [f, h] and
// fc2 [h, f] + biases; post_layernorm. Qwen2_5_VisionTransformerPretrainedModel (modeling_qwen2_5_vl): patch_embed
// Conv3d [h, c*t*p*p] without bias; per block norm1/norm2 (RMSNorm), attn.qkv [3h, h] + bias, attn.proj [h, h] +
// bias, mlp gate/up [f, h] and down [h, f] + biases; its rotary positions have no weights. Projectors, into the
// language model's width d: LlavaMultiModalProjector linear_1 [d, h] + bias, linear_2 [d, d] + bias (LLaVA-NeXT: and image_newline [d]);
// Qwen2_5_VLPatchMerger ln_q (RMSNorm h), mlp.0 [h*m^2, h*m^2] + bias, mlp.2 [d, h*m^2] + bias;
// Gemma3MultiModalProjector mm_soft_emb_norm (RMSNorm h), mm_input_projection_weight [h, d]. Nothing for a
// text-only model. Each tensor's split is the one vLLM gives it: its towers build attention and MLP from parallel linear
// layers (q/k/v or qkv and fc1 / gate / up column-parallel, out_proj / proj / fc2 / down row-parallel; LLaVA's linear_1 and the
// Qwen merger's mlp.0 column-, linear_2 and mlp.2 row-parallel), and keeps embeddings, norms and Gemma 3's projector whole
// (vllm/model_executor/models clip.py, siglip.py, llava.py, qwen2_5_vl.py, qwen2_vl.py, gemma3_mm.py) [vllm-code]; transformers
// keeps the whole tower on every rank (vision_rank_params in inference.cpp picks by engine). Counts (param_count.cpp) and
// validation read it; it runs once per estimate, off the per-tensor hot paths, so it is a list, not an inlined visitor.
VisionTensors vision_tensors(const ModelSpec& m);

// A tower or projector tensor that is an nn.Linear weight, what bitsandbytes' load swaps for Linear4bit / Linear8bitLt
// (replace_with_bnb_linear: every nn.Linear not skipped [transformers-bnb-skip]). In vision_tensors the tower's linears are
// exactly the matrices a LoRA target selects (attention projections, fc1 / fc2, gate / up / down), the projector's exactly
// its tensor-parallel-split matrices (LLaVA's linear_1 / linear_2, the Qwen merger's mlp.0 / mlp.2, Mllama's projector): the
// convolutions, embeddings and Gemma 3's plain projection parameter are no nn.Linear.
inline bool vision_linear(const Tensor& t) {
    if (!t.matrix()) return false;
    if (t.kind == TensorKind::VisionTower) return t.lora != 0;
    return t.kind == TensorKind::VisionProjector && t.split != TensorSplit::Replicated;
}

// The part of a tensor (all `count` copies) one rank holds: / tp when Column, Row or Vocab split,
// whole when Replicated; routed experts are spread over ep ranks and each expert split over
// expert_tp ranks by its own split (parallel.h expert_tp).
inline double tensor_shard(const Tensor& t, double tp, double ep, double expert_tp) {
    const double n = static_cast<double>(t.count) * static_cast<double>(t.rows) * static_cast<double>(t.cols);
    if (t.routed()) return n / ep / (t.split == TensorSplit::Replicated ? 1.0 : expert_tp);
    return t.split == TensorSplit::Replicated ? n : n / tp;
}

#undef VL_TENSOR_INLINE

}  // namespace vl
