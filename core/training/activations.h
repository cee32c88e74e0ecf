// Activations one transformer layer keeps for the backward pass, tensor by tensor, on one GPU.
// Public so tests (and the UI's per-layer view) can check a single layer against the papers.
#pragma once
#include <cstdint>
#include <vector>

#include "allocator_reserve.h"
#include "model_spec.h"

namespace vl {

// The shapes that decide what a layer saves (from ModelSpec via layer_dims, or overridden, e.g. the
// GPT assumptions of [korthikanti2022]: 4h GeLU MLP, multi-head attention, LayerNorm).
struct LayerDims {
    double h = 0, heads = 0, kv_heads = 0, head_dim = 0, ffn = 0;
    bool gated = false;
    bool gelu_new = false;       // transformers' NewGELUActivation: three more saved tensors of the MLP width
    bool quick_gelu = false;     // transformers' QuickGELUActivation (CLIP's and Qwen2-VL's towers): its sigmoid's output saved too
    double norms = 2;            // norms per layer, each saves its input
    bool qk_norm = false;
    bool output_gate = false;    // gated attention (Qwen3-Next attn_output_gate): o = O * sigmoid(gate)
    bool parallel_attn_mlp = false;
    bool mla = false;            // DeepSeek multi-head latent attention
    double q_rank = 0, kv_rank = 0, rope_dim = 0, nope_dim = 0, v_dim = 0;
    double experts = 0, top_k = 0, expert_ffn = 0, shared_ffn = 0;  // MoE layer when experts > 0
    // The Mamba mixer of a state-space model's Mamba layers (SsmSpec); kind None: no Mamba layer.
    SsmKind ssm = SsmKind::None;
    double d_inner = 0, d_state = 0, dt_rank = 0, ssm_heads = 0, ssm_groups = 0;
    bool ssm_unfused = false;  // Jamba: dt/B/C norms between separate conv, projections and scan
    bool ssm_gated_norm = true;  // Mamba2: the gated RMSNorm runs in the kernel (SsmSpec::gated_norm)
    double ssm_chunk = 0;        // Mamba2: the SSD's chunk_size
    bool ssm_mup = false;        // Falcon-H1: in_proj's output times the mup_vector buffer before the split
};
LayerDims layer_dims(const ModelSpec& m, bool moe_layer);
LayerDims gpt_dims(double h, double heads);  // Korthikanti's GPT layer: ffn 4h, GeLU, MHA, LayerNorm

// What is being run: micro-batch b and sequence s (whole, before cp), dtypes and parallel splits.
struct ActShape {
    double b = 1, s = 1;
    const char* s_name = "s";    // the symbol s is shown as: an encoder-decoder's decoder runs over "s_tgt"
    const char* T_name = "T";    // the symbol of its b * s tokens (the decoder's "T_tgt")
    double tp = 1, cp = 1;
    bool sp = false;             // sequence parallel: norms, dropouts and block inputs split by tp
    bool flash = true;           // FlashAttention/SDPA: no s x s tensors, fp32 softmax statistics instead
    double dropout = 0;          // hidden dropout (after attention and MLP): 1-byte masks when > 0
    double attn_dropout = 0;     // attention-probability dropout: s x s mask and dropped copy when > 0
    // transformers' eager attention: softmax(dtype=float32).to(query.dtype): the fp32 softmax output
    // (saved by its backward) and its cast to the activation dtype (saved by the PV matmul).
    bool softmax_fp32 = false;
    bool softmax_saves_input = false;  // PyTorch before 1.11: the softmax's input saved beside its output
    double act_bytes = 2;        // activation dtype
    double linear_in_bytes = 2;  // saved inputs of linear layers (FP8 / Transformer Engine: 1)
    // Autocast over fp32 weights: the residual stream (layer inputs, norm inputs) in fp32, each norm's
    // normalized fp32 output saved by its weight multiply, and one 16-bit cast of the normed input per
    // projection that reads it (q, k, v; gate, up). 0: as act_bytes, no extra tensors.
    double residual_bytes = 0;
    double norm_out_bytes = 0;
    // A 16-bit residual stream in plain PyTorch: the bytes of the copy each norm saves as its input when
    // it computes in fp32 (HF RMSNorm's .to(float32); layer_norm under autocast). 0: the residual's bytes.
    double norm_in_bytes = 0;
    double qkv_in_copies = 1, fc1_in_copies = 1;
    // transformers with a fused qkv Linear and rotary positions (GPT-NeoX, Phi-3, Falcon, Qwen v1): q and k
    // are new rotated tensors while the saved v is a view of the fused output, which it keeps whole.
    bool qkv_view_keeps_fused = false;
    // transformers training without gradient checkpointing builds a DynamicCache, whose update concatenates
    // K and V onto an empty tensor: attention saves those new copies. With GPT-2's fused c_attn and learned
    // positions q reaches SDPA as a view of the fused output, which it keeps whole, so the copies come on top.
    bool kv_cache_copies = false;
    // A linear layer saves its input only when its weight gets a gradient (full training, or a LoRA target).
    bool save_qkv_in = true, save_o_in = true, save_fc1_in = true, save_fc2_in = true;
    // The Mamba mixer's linears likewise (in_proj, x_proj, dt_proj, out_proj), and whether its other parameters (conv1d,
    // A_log, D, dt_bias, the gated norm's weight) are frozen too (LoRA/QLoRA): then the torch path's products keep only the
    // operands the input gradient reads (layer_mamba_torch).
    bool save_in_proj_in = true, save_x_proj_in = true, save_dt_proj_in = true, save_out_proj_in = true;
    bool ssm_frozen = false;
    // A Gated DeltaNet mixer's input projections (Qwen3-Next's two, Qwen3.5's four): whether their input is saved (trained, or
    // one adapted) and, where each adapter casts its input, how many casts (one per adapted projection).
    bool save_gdn_in = true;
    double gdn_in_copies = 1;
    // Autocast over a 16-bit base (LoRA / QLoRA under the Trainer's bf16 / fp16): ops on autocast's fp32 list (softplus)
    // output fp32 although the weights are 16-bit.
    bool autocast_16bit_base = false;
    // PEFT: an adapted module whose adapter computes in another dtype than its input (autocast, or fp32
    // adapters on a 16-bit base) saves its own cast of the input, of this many bytes; 0: the shared input.
    double adapter_in_bytes = 0;
    // QLoRA with bitsandbytes before 0.43.2: each frozen 4-bit linear layer saves its own input too
    // (MatMul4Bit kept A whenever A needed a gradient) [bnb-pr1270].
    bool base_saves_in = false;
    // MoE token dropping: the experts' capacity factor (0: dropless) and whether inputs are padded to it.
    double expert_capacity = 0;
    bool pad_to_capacity = false;
    // transformers runs Mamba / Mamba2 mixers through their plain PyTorch paths (train.ssm_kernels torch):
    // autograd keeps the scan's fp32 tensors (activations.cpp layer_mamba_torch).
    bool ssm_torch = false;
    // An encoder-decoder's cross-attention (add_seq2seq_layers): the copies of the encoder output its k and v projections
    // save in each decoder layer, each its own cast (LoRA adapters that cast, autocast over fp32 weights); 0: they save the
    // encoder output itself, one tensor for every layer (act.encoder_output).
    double cross_kv_in_copies = 0;
};
// An encoder-decoder's decoder over target_len tokens (train.target_len; 0: seq_len), "s_tgt" in the formulas.
ActShape decoder_shape(const ActShape& encoder, int64_t target_len);

// Bytes one layer keeps for one micro-batch, by group [korthikanti2022 §4.1, Table 2];
// [transformer-series5 §2] walks through the same tensors.
struct LayerActivations {
    double norms = 0;      // inputs of the layer's norms
    double attention = 0;  // QKV input, Q, K, V, attention output, dropout mask, softmax statistics
    double scores = 0;     // s x s terms: softmax output, its dropout mask and dropped copy (no FlashAttention)
    double mlp = 0;        // MLP (or routed experts + router + shared expert) tensors
    double input = 0;      // the layer's input: what full recomputation keeps
    double kept_without_scores() const { return norms + attention + mlp; }
    double total() const { return norms + attention + scores + mlp; }
};
LayerActivations layer_activations(const LayerDims& L, const ActShape& x);
// One tensor a layer keeps for backward, in the group of LayerActivations it counts in.
enum class SavedGroup { Norms, Attention, Scores, Mlp };
struct SavedTensor {
    const char* name;  // its term in the group's formula (several tensors may share one: casts, Q and K)
    double bytes;
    SavedGroup group;
};
// One layer's saved tensors one by one, from the expressions that give layer_activations()'s group sums (each group's
// tensors add up to its sum): the norms' (each norm's input, then its fp32 output where it keeps one, norm by norm),
// then attention's, the scores', the MLP's, each group's in the order its forward makes them. The layer's input is
// the first norm's input (LayerActivations::input is what recomputation keeps instead).
std::vector<SavedTensor> layer_saved_tensors(const LayerDims& L, const ActShape& x);
// Bytes one Mamba layer's mixer keeps for one micro-batch (the fused kernels' saved tensors; L.ssm set).
double mamba_layer_activation_bytes(const LayerDims& L, const ActShape& x);
// transformers' torch path through a Mamba mixer in training: the largest single tensor its backward allocates
// and frees (one full-size fp32 gradient of its largest broadcast product), for the allocator's split holes; a
// zero-sized tensor off that path (train.ssm_kernels fused, or a mixer that keeps the kernels' walk).
TransientTensor mamba_torch_grad(const LayerDims& L, const ActShape& x);

// Rows of one chunk of Liger-Kernel's fused linear cross-entropy [liger-kernel-code]: the tokens are
// split so that a chunk's logits hold about tokens x hidden elements: inc_factor = ceil(vocab / hidden),
// chunk = next_power_of_2(ceil(tokens / inc_factor)), at most tokens.
double fused_loss_chunk_rows(double tokens, double vocab, double hidden);

}  // namespace vl
