// Weights by storage format: the per-tensor mix of the GGUF formats (llama.cpp's llama_tensor_get_type,
// src/llama-quant.cpp [llama-cpp-code]) and the parameters of a stage grouped by how they are stored.
// Bits per weight come from the tables in weight_formats.h.
#include "inference/weight_formats.h"

#include "cold.h"

#include <algorithm>
#include <array>

#include "model/layer_tensors.h"

namespace vl {

double ggml_bits_per_weight(GgmlType t) {
    Numbers n;
    return layout_bits(n, ggml_type(t).layout, InferenceOptions{});
}

double linear_bits_per_weight(const InferenceOptions& o, int64_t in_features) {
    Numbers n;
    return layout_bits(n, weight_format(o.weights).layout, o, in_features);
}

// ---- per-tensor mix of the GGUF file types (llama_tensor_get_type, dense non-Falcon models) ----
static GgmlType gguf_base(WeightFormat f) { return weight_format(f).gguf_base; }
static bool use_more_bits(int64_t i, int64_t n) {  // llama-quant.cpp use_more_bits
    return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}
static GgmlType gguf_attn_v(WeightFormat f, int64_t i, int64_t n, int64_t n_gqa) {
    switch (f) {
        case WeightFormat::GGUF_Q2_K: return n_gqa >= 4 ? GgmlType::Q4_K : GgmlType::Q3_K;
        case WeightFormat::GGUF_Q3_K_M: return i < 2 ? GgmlType::Q5_K : GgmlType::Q4_K;
        case WeightFormat::GGUF_Q4_K_M: case WeightFormat::GGUF_Q5_K_M:
            return use_more_bits(i, n) ? GgmlType::Q6_K : gguf_base(f);
        case WeightFormat::GGUF_Q4_K_S: return i < 4 ? GgmlType::Q5_K : GgmlType::Q4_K;  // the first four attn_v
        default: return gguf_base(f);  // Q5_K_S and the legacy types: no rule
    }
}
static GgmlType gguf_ffn_down(WeightFormat f, int64_t i, int64_t n) {
    switch (f) {
        case WeightFormat::GGUF_Q2_K: return GgmlType::Q3_K;
        case WeightFormat::GGUF_Q3_K_M: return i < n / 16 ? GgmlType::Q5_K : GgmlType::Q4_K;
        case WeightFormat::GGUF_Q4_K_M: case WeightFormat::GGUF_Q5_K_M:
            return use_more_bits(i, n) ? GgmlType::Q6_K : gguf_base(f);
        case WeightFormat::GGUF_Q4_K_S: return i < n / 8 ? GgmlType::Q5_K : GgmlType::Q4_K;  // the first eighth
        default: return gguf_base(f);  // Q4_0/Q5_0's Q4_1/Q5_1 bump needs an importance matrix: not modelled
    }
}
static GgmlType gguf_attn_output(WeightFormat f) {
    if (f == WeightFormat::GGUF_Q2_K) return GgmlType::Q3_K;
    if (f == WeightFormat::GGUF_Q3_K_M) return GgmlType::Q4_K;
    return gguf_base(f);
}

GgmlType gguf_output_type(WeightFormat f) {  // output.weight: Q6_K unless the base is Q8_0
    return gguf_base(f) == GgmlType::Q8_0 ? GgmlType::Q8_0 : GgmlType::Q6_K;
}
GgmlType gguf_embedding_type(const ModelSpec& m, WeightFormat f) {  // token_embd: the base type, the output's when tied
    return m.tied_embeddings ? gguf_output_type(f) : gguf_base(f);
}

GgmlType gguf_matrix_type(const ModelSpec& m, WeightFormat f, const Tensor& t, int64_t il) {
    if (!is_gguf(f)) return f == WeightFormat::BF16 ? GgmlType::BF16 : f == WeightFormat::FP32 ? GgmlType::F32 : GgmlType::F16;
    if (t.kind == TensorKind::Router) return GgmlType::F32;
    if (t.kind == TensorKind::Head) return gguf_output_type(f);
    const int64_t n_gqa = m.kv_heads > 0 ? m.heads / m.kv_heads : 1;
    switch (t.role) {
        case TensorRole::V: return gguf_attn_v(f, il, m.layers, n_gqa);
        case TensorRole::O: return gguf_attn_output(f);
        case TensorRole::Down: return gguf_ffn_down(f, il, m.layers);
        default: return gguf_base(f);
    }
}

double ggml_row_bytes(GgmlType t, int64_t ne0) {
    const GgmlTypeInfo& info = ggml_type(t);
    return static_cast<double>(ne0 / info.block_weights) * info.block_bytes;
}

double norm_bits(const InferenceOptions& o) {
    return (is_gguf(o.weights) || o.engine == Engine::LlamaCpp) ? 32 : weight_format(o.weights).keep_bits;
}

// Everything of a layer shard the format stores at its linear rate (the matrices with their biases)
// but the v, o and down projections that the GGUF mixes single out.
static double rest_params(const LayerShard& s) {
    return s.attn_rest + s.attn_extra + s.mlp_rest + s.mlp_extra + s.experts_rest + s.experts_extra + s.router;
}
static double linear_params(const LayerShard& s) {
    return s.attn_v + s.attn_output + rest_params(s) + s.mlp_down + s.experts_down;
}

// Output rows of one layer's matrices on one rank, each row as wide as the matrix's local input:
// LLM.int8 stores one absmax scale per row (bitsandbytes Int8Params.SCB, shape [out_features]
// [bitsandbytes-code]). o_proj's rows read heads * head_dim inputs, a routed expert's down_proj
// expert_ffn, MLA's q_b/kv_b their ranks: the inventory's shapes say it, not d or ffn.
static double linear_rows(const ModelSpec& m, LayerKind kind, const Parallelism& par) {
    const double tp = static_cast<double>(std::max<int64_t>(1, par.tp));
    const double ep = static_cast<double>(std::max<int64_t>(1, par.ep));
    const double etp = static_cast<double>(expert_tp(par, ExpertSplit::EpOrTp));
    double rows = 0;
    for_each_layer_tensor(m, kind, [&](const Tensor& t) {
        if (!t.matrix()) return;
        const double in = static_cast<double>(t.cols) / (t.split == TensorSplit::Row ? (t.routed() ? etp : tp) : 1.0);
        rows += tensor_shard(t, tp, ep, etp) / in;
    });
    return rows;
}

StageWeightParams stage_weight_params(const ModelSpec& m, const ParamCounts& pc, const InferenceOptions& o,
                                      const Parallelism& par, int64_t stage) {
    StageWeightParams w;
    if (pc.per_layer.empty()) {  // known only by its parameter count
        w.by_count = true;
        if (stage == 0) w.params_only = static_cast<double>(pc.total);
        return w;
    }
    const int64_t L = static_cast<int64_t>(pc.per_layer.size());
    const StageInfo st = pipeline_stage(L, par.pp, stage);
    // Parameters per GPU by tensor class, split by the shared parallel rules (parallel.h layer_shard).
    // Each kind of layer (dense / MoE, attention / Mamba) is split once, then summed over its layers.
    const LayerPattern& pattern = pc.per_layer.pattern();
    std::array<LayerShard, kLayerKinds> shards{};
    const bool by_rows = weight_format(o.weights).layout.block == Block::InFeatures;
    const bool routed_only = weight_format(o.weights).routed_experts_only;
    pattern.for_each_kind(st.layer_begin, st.layer_end, [&](LayerKind k, int64_t count) {
        const LayerShard s = shards[k.index()] = layer_shard(m, pc.per_layer.of(k), par, ExpertSplit::EpOrTp);
        if (routed_only) {  // the parts the derivation names beside the experts (the tensor table's kinds)
            const double tp = static_cast<double>(std::max<int64_t>(1, par.tp)), ep = static_cast<double>(std::max<int64_t>(1, par.ep));
            const double etp = static_cast<double>(expert_tp(par, ExpertSplit::EpOrTp)), n = static_cast<double>(count);
            for_each_layer_tensor(m, k, [&](const Tensor& t) {
                if (t.kind == TensorKind::Attention) w.attention += n * tensor_shard(t, tp, ep, etp);
                else if (t.kind == TensorKind::Router) w.router += n * tensor_shard(t, tp, ep, etp);
            });
        }
        const LayerParams& l = pc.per_layer.of(k);
        const double n = static_cast<double>(count);
        w.linear += n * linear_params(s);
        // A Mamba mixer's conv1d, A_log, D, dt_bias and gated norm are 1-D (layer_shard puts them with the norms): not linear.
        double ssm_vectors = 0;
        if (m.ssm.active())
            cold([&] {
                for_each_layer_tensor(m, k, [&](const Tensor& t) {
                    if (t.kind == TensorKind::Ssm && !t.matrix()) ssm_vectors += static_cast<double>(t.params());
                });
            });
        w.linear_unsharded += n * (static_cast<double>(l.attention + l.ssm + l.mlp) - ssm_vectors);
        w.routed += n * (s.experts_down + s.experts_rest);
        if (by_rows) w.linear_rows += n * linear_rows(m, k, par);
        w.norms += n * s.norms;
    });
    w.split_by_tp = par.ep == 1 && (par.tp == 1 || m.moe.num_experts == 0);
    if (is_gguf(o.weights)) {
        // The tensors the mixes single out (attn_v, attn_output, ffn_down), layer by layer.
        const WeightFormat f = o.weights;
        const int64_t n_gqa = m.kv_heads > 0 ? m.heads / m.kv_heads : 1;
        const size_t base = static_cast<size_t>(gguf_base(f)), out = static_cast<size_t>(gguf_attn_output(f));
        for (int64_t i = st.layer_begin; i < st.layer_end; ++i) {
            const LayerShard& s = shards[pattern.kind(i).index()];
            w.gguf[static_cast<size_t>(gguf_attn_v(f, i, L, n_gqa))] += s.attn_v;
            w.gguf[out] += s.attn_output;
            w.gguf[base] += rest_params(s) - s.router;
            w.gguf[static_cast<size_t>(GgmlType::F32)] += s.router;  // ffn_gate_inp is never quantized (gguf_matrix_type)
            w.gguf[static_cast<size_t>(gguf_ffn_down(f, i, L))] += s.mlp_down + s.experts_down;
        }
    }
    // Embedding (first stage) and output head (last stage), split by the shared rules (edge_shard).
    w.edge = edge_shard(m, pc, par, st);
    w.norms += w.edge.final_norm;
    w.head_unsharded = pc.lm_head > 0 ? static_cast<double>(pc.lm_head)
                                      : static_cast<double>(m.vocab) * static_cast<double>(m.embed_dim > 0 ? m.embed_dim : m.hidden);
    return w;
}

WeightBytes weight_bytes(const StageWeightParams& w, const ModelSpec& m, const InferenceOptions& o, const Parallelism& par) {
    Numbers n;
    WeightBytes b;
    b.linear = linear_weight_bytes(n, w, m, o, par);
    b.embedding = embedding_weight_bytes(n, w, m, o, par);
    b.lm_head = lm_head_weight_bytes(n, w, m, o, par);
    b.other = norm_weight_bytes(n, w, o);
    return b;
}

WeightBytes stage_weight_bytes(const ModelSpec& m, const ParamCounts& pc, const InferenceOptions& o,
                               const Parallelism& par, int64_t stage) {
    return weight_bytes(stage_weight_params(m, pc, o, par, stage), m, o, par);
}

WeightBytes gguf_stage_weight_bytes(const ModelSpec& m, const Parallelism& par, int64_t stage) {
    const GgufTensorBytes& g = m.gguf_bytes;
    const StageInfo st = pipeline_stage(m.layers, par.pp, stage);
    Numbers n;
    WeightBytes b;
    b.linear = gguf_blocks_bytes(n, g, st.layer_begin, st.layer_end);
    if (stage == 0) b.embedding = gguf_token_embd_bytes(n, g);
    if (stage == par.pp - 1) {
        b.lm_head = gguf_output_bytes(n, m);
        b.other = gguf_other_bytes(n, g);
    }
    return b;
}

}  // namespace vl
