// The tensor inventory as lists (layer_tensors.h holds the shapes).
#include "model/layer_tensors.h"

namespace vl {

namespace tensors {

// A Zamba hybrid layer's own tensors and its block's (layer_tensors.h zamba_shared).
SharedBlockTensors zamba_shared_tensors(const ModelSpec& m, LayerKind kind) {
    SharedBlockTensors l;
    auto f = [&](const Tensor& t) { l.add(t); };
    const SsmSpec& x = m.ssm;
    const int64_t d = m.hidden, q = m.heads * m.head_dim, kv = m.kv_heads * m.head_dim, r = x.adapter_rank, ffn = m.ffn;
    auto matrix = [&](const char* name, int64_t rows, int64_t cols, K k, R role, unsigned lora) {
        return mat(name, rows, cols, k, S::Replicated, role, lora, kWhole);
    };
    f(matrix("linear", d, d, K::Attention, R::OtherMatrix, 0));
    if (r > 0) {
        if (x.attn_adapters) {
            f(matrix("linear_q_adapter.0", r, 2 * d, K::Attention, R::OtherMatrix, 0));
            f(matrix("linear_q_adapter.1", 2 * d, r, K::Attention, R::OtherMatrix, 0));
            f(matrix("linear_k_adapter.0", r, 2 * d, K::Attention, R::OtherMatrix, 0));
            f(matrix("linear_k_adapter.1", 2 * d, r, K::Attention, R::OtherMatrix, 0));
            f(matrix("linear_v_adapter.0", r, 2 * d, K::Attention, R::OtherMatrix, 0));
            f(matrix("linear_v_adapter.1", 2 * d, r, K::Attention, R::OtherMatrix, 0));
        }
        f(matrix("gate_up_proj_adapter.0", r, d, K::Mlp, R::OtherMatrix, 0));
        f(matrix("gate_up_proj_adapter.1", 2 * ffn, r, K::Mlp, R::OtherMatrix, 0));
    }
    if (!kind.shared_owner) return l;
    f(matrix("shared_transformer.self_attn.q_proj", q, 2 * d, K::Attention, R::Q, kLoraQ));
    f(matrix("shared_transformer.self_attn.k_proj", kv, 2 * d, K::Attention, R::K, kLoraK));
    f(matrix("shared_transformer.self_attn.v_proj", kv, 2 * d, K::Attention, R::V, kLoraV));
    f(matrix("shared_transformer.self_attn.o_proj", d, q, K::Attention, R::O, kLoraO));
    f(matrix("shared_transformer.feed_forward.gate_up_proj", 2 * ffn, d, K::Mlp, R::Up, 0));
    f(matrix("shared_transformer.feed_forward.down_proj", d, ffn, K::Mlp, R::Down, kLoraDown));
    f(vec("shared_transformer.input_layernorm", 2 * d, K::Norm));
    f(vec("shared_transformer.pre_ff_layernorm", d, K::Norm));
    return l;
}

}  // namespace tensors

LayerTensors layer_tensors(const ModelSpec& m, LayerKind kind) {
    LayerTensors l;
    for_each_layer_tensor(m, kind, [&](const Tensor& t) { l.add(t); });
    return l;
}

const char* split_dim_field(SplitDim dim, const ModelSpec& m) {
    switch (dim) {
        case SplitDim::Heads: return "num_attention_heads";
        case SplitDim::KvHeads: return "num_key_value_heads";
        case SplitDim::Ffn: return "intermediate_size";
        case SplitDim::ExpertFfn: return "moe_intermediate_size";
        case SplitDim::SsmInner: return "d_inner (the Mamba mixer's intermediate_size, mamba_expand * hidden_size)";
        case SplitDim::SharedFfn:
            return m.moe.shared_expert_ffn > 0 ? "shared_expert_intermediate_size" : "n_shared_experts * moe_intermediate_size";
        case SplitDim::None: break;
    }
    return "";
}

namespace {

// One tensor of the tower or the projector, `count` copies, split as vLLM's parallel linear layer of that module splits
// it (Replicated: a norm, an embedding, a plain nn.Parameter), and its bias when it has one (the call sites stay small). lora:
// the language model's LoRA targets that select this tower linear when adapters reach the tower (train.vision lora): q, k, v
// and o for the attention's projections (Qwen's fused qkv by any of q, k, v), up / down for fc1 / fc2, gate / up / down for
// Qwen2.5-VL's gated MLP: a tower linear is adapted when the language model's module of its role is (Unsloth's
// finetune_attention_modules / finetune_mlp_modules select both alike [unsloth-notebooks]; all-linear takes every one).
[[gnu::noinline]] void add_vision(VisionTensors& l, const char* name, int64_t rows, int64_t cols, int64_t count, bool projector,
                                  const char* bias, TensorSplit split = TensorSplit::Replicated, unsigned lora = 0) {
    const Tensor w = tensors::mat(name, rows, cols, projector ? TensorKind::VisionProjector : TensorKind::VisionTower, split,
                                  cols == 1 ? TensorRole::Vector : TensorRole::OtherMatrix, lora, tensors::kWhole, count);
    l.add(w);
    if (bias) l.add(tensors::bias_of(w, bias));
}

// MllamaVisionModel and MllamaMultiModalProjector [transformers-mllama]: patch_embedding [h, c*p*p] without bias, class_embedding
// [h]; gated_positional_embedding: gate [1], embedding [n, h] and tile_embedding [R+1, T*n*h] with n = (S/p)^2 + 1 positions,
// T = max_num_tiles, R = max_aspect_ratio_id; pre_ and post_tile_positional_embedding: embedding [R+1, T*h] and gate [1];
// layernorm_pre, layernorm_post; the local encoder's L and the global encoder's G layers alike (q, k, v, o_proj [h, h] without
// bias, fc1 / fc2 + biases, input_layernorm, post_attention_layernorm), the global layers' gate_attn and gate_ffn [1]; the
// projector Linear [d, (1 + len(intermediate_layers_indices)) * h] + bias over the concatenated states.
void mllama_tower(VisionTensors& l, const VisionSpec& v, int64_t d) {
    const int64_t h = v.hidden, n = v.patch > 0 ? (v.image_size / v.patch) * (v.image_size / v.patch) + 1 : 0, rows = v.aspect_ratios + 1;
    const int64_t layers = v.layers + v.global_layers;
    const char* no_bias = nullptr;
    constexpr TensorSplit col = TensorSplit::Column, row = TensorSplit::Row;
    add_vision(l, "patch_embedding", h, v.channels * v.patch * v.patch, 1, false, no_bias);
    add_vision(l, "class_embedding", h, 1, 1, false, no_bias);
    add_vision(l, "gated_positional_embedding.gate", 1, 1, 1, false, no_bias);
    add_vision(l, "gated_positional_embedding.embedding", n, h, 1, false, no_bias);
    add_vision(l, "gated_positional_embedding.tile_embedding", rows, v.max_tiles * n * h, 1, false, no_bias);
    add_vision(l, "pre_tile_positional_embedding.embedding", rows, v.max_tiles * h, 1, false, no_bias);
    add_vision(l, "pre_tile_positional_embedding.gate", 1, 1, 1, false, no_bias);
    add_vision(l, "post_tile_positional_embedding.embedding", rows, v.max_tiles * h, 1, false, no_bias);
    add_vision(l, "post_tile_positional_embedding.gate", 1, 1, 1, false, no_bias);
    add_vision(l, "layernorm_pre", h, 1, 1, false, "layernorm_pre.bias");
    add_vision(l, "layernorm_post", h, 1, 1, false, "layernorm_post.bias");
    add_vision(l, "self_attn.q_proj", h, h, layers, false, no_bias, col, kLoraQ);
    add_vision(l, "self_attn.k_proj", h, h, layers, false, no_bias, col, kLoraK);
    add_vision(l, "self_attn.v_proj", h, h, layers, false, no_bias, col, kLoraV);
    add_vision(l, "self_attn.o_proj", h, h, layers, false, no_bias, row, kLoraO);
    add_vision(l, "mlp.fc1", v.ffn, h, layers, false, "mlp.fc1.bias", col, kLoraUp);
    add_vision(l, "mlp.fc2", h, v.ffn, layers, false, "mlp.fc2.bias", row, kLoraDown);
    add_vision(l, "input_layernorm", h, 1, layers, false, "input_layernorm.bias");
    add_vision(l, "post_attention_layernorm", h, 1, layers, false, "post_attention_layernorm.bias");
    add_vision(l, "global_transformer.gate_attn", 1, 1, v.global_layers, false, no_bias);
    add_vision(l, "global_transformer.gate_ffn", 1, 1, v.global_layers, false, no_bias);
    add_vision(l, "multi_modal_projector", d, (1 + v.intermediate_layers) * h, 1, true, "multi_modal_projector.bias", col);
}

}  // namespace

VisionTensors vision_tensors(const ModelSpec& m) {
    VisionTensors l;
    const VisionSpec& v = m.vision;
    if (!m.architecture_known() || !v.active()) return l;
    if (v.mllama()) {
        mllama_tower(l, v, m.hidden);
        return l;
    }
    const int64_t h = v.hidden, d = m.hidden, L = v.layers;
    const bool qwen = v.qwen(), clip = v.kind == VisionKind::Clip, rms = v.kind == VisionKind::QwenVit;
    const char* no_bias = nullptr;
    constexpr TensorSplit col = TensorSplit::Column, row = TensorSplit::Row;
    // torch.nn.LayerNorm (weight and bias), or Qwen2.5-VL's RMSNorm (weight only).
    auto layer_norm = [&](const char* weight, const char* bias, int64_t count) { add_vision(l, weight, h, 1, count, false, rms ? no_bias : bias); };
    // Patch embedding: a convolution over channels x (temporal_patch x) patch x patch pixels.
    const bool qwen3 = v.kind == VisionKind::Qwen3Vit;
    add_vision(l, "patch_embedding", h, v.channels * v.temporal_patch * v.patch * v.patch, 1, false,
               v.kind == VisionKind::Siglip || qwen3 ? "patch_embedding.bias" : no_bias);
    // Qwen3.5: a learned position table (pos_embed) beside the rotary positions [transformers-code].
    if (qwen3) add_vision(l, "pos_embed", v.position_embeddings, h, 1, false, no_bias);
    if (!qwen) {
        const int64_t side = v.patch > 0 ? v.image_size / v.patch : 0;
        if (clip) add_vision(l, "class_embedding", h, 1, 1, false, no_bias);
        add_vision(l, "position_embedding", side * side + (clip ? 1 : 0), h, 1, false, no_bias);
        if (clip) layer_norm("pre_layrnorm", "pre_layrnorm.bias", 1);
        layer_norm("post_layernorm", "post_layernorm.bias", 1);
    }
    // The L layers: each tensor once, with L copies.
    layer_norm(qwen ? "norm1" : "layer_norm1", qwen ? "norm1.bias" : "layer_norm1.bias", L);
    layer_norm(qwen ? "norm2" : "layer_norm2", qwen ? "norm2.bias" : "layer_norm2.bias", L);
    if (qwen) {
        add_vision(l, "attn.qkv", 3 * h, h, L, false, "attn.qkv.bias", col, kLoraQ | kLoraK | kLoraV);
        add_vision(l, "attn.proj", h, h, L, false, "attn.proj.bias", row, kLoraO);
    }
    if (rms) {
        add_vision(l, "mlp.gate_proj", v.ffn, h, L, false, "mlp.gate_proj.bias", col, kLoraGate);
        add_vision(l, "mlp.up_proj", v.ffn, h, L, false, "mlp.up_proj.bias", col, kLoraUp);
        add_vision(l, "mlp.down_proj", h, v.ffn, L, false, "mlp.down_proj.bias", row, kLoraDown);
    } else {
        if (!qwen) {
            add_vision(l, "self_attn.q_proj", h, h, L, false, "self_attn.q_proj.bias", col, kLoraQ);
            add_vision(l, "self_attn.k_proj", h, h, L, false, "self_attn.k_proj.bias", col, kLoraK);
            add_vision(l, "self_attn.v_proj", h, h, L, false, "self_attn.v_proj.bias", col, kLoraV);
            add_vision(l, "self_attn.out_proj", h, h, L, false, "self_attn.out_proj.bias", row, kLoraO);
        }
        add_vision(l, "mlp.fc1", v.ffn, h, L, false, "mlp.fc1.bias", col, kLoraUp);
        add_vision(l, "mlp.fc2", h, v.ffn, L, false, "mlp.fc2.bias", row, kLoraDown);
    }
    switch (v.projector) {
        case ProjectorKind::LlavaMlp:
            add_vision(l, "linear_1", d, h, 1, true, "linear_1.bias", col);
            add_vision(l, "linear_2", d, d, 1, true, "linear_2.bias", row);
            // LlavaNextModel's image_newline [d], a plain parameter (vLLM's too: whole on every rank) [transformers-code] [vllm-code].
            if (v.anyres()) add_vision(l, "image_newline", d, 1, 1, true, no_bias);
            break;
        case ProjectorKind::QwenMerger: {
            const int64_t merged = h * v.merge * v.merge;
            add_vision(l, "merger.ln_q", h, 1, 1, true, rms ? no_bias : "merger.ln_q.bias");
            add_vision(l, "merger.mlp.0", merged, merged, 1, true, "merger.mlp.0.bias", col);
            add_vision(l, "merger.mlp.2", d, merged, 1, true, "merger.mlp.2.bias", row);
            break;
        }
        case ProjectorKind::Gemma3:
            add_vision(l, "mm_soft_emb_norm", h, 1, 1, true, no_bias);
            add_vision(l, "mm_input_projection_weight", h, d, 1, true, no_bias);
            break;
        case ProjectorKind::MllamaLinear: break;  // mllama_tower
    }
    return l;
}

ModelTensors model_tensors(const ModelSpec& m) {
    ModelTensors l;
    for_each_model_tensor(m, [&](const Tensor& t) { l.add(t); });
    return l;
}

}  // namespace vl
