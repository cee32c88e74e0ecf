// Weights by storage format. Every bits-per-weight value is the byte layout of the format's block,
// cited beside it; the GGUF mixes follow llama.cpp's llama_tensor_get_type (src/llama-quant.cpp).
#include "inference/weight_formats.h"

#include <algorithm>

#include "parallel.h"

namespace vl {

double ggml_bits_per_weight(GgmlType t) {
    switch (t) {
        case GgmlType::F32: return 32;
        case GgmlType::F16: return 16;
        case GgmlType::Q8_0: return 34.0 * 8 / 32;   // block_q8_0: fp16 d + 32 int8          = 8.5 bpw
        case GgmlType::Q6_K: return 210.0 * 8 / 256; // block_q6_K: 128 ql + 64 qh + 16 scales + fp16 d = 6.5625
        case GgmlType::Q5_K: return 176.0 * 8 / 256; // block_q5_K: 2 fp16 + 12 scales + 32 qh + 128 qs = 5.5
        case GgmlType::Q4_K: return 144.0 * 8 / 256; // block_q4_K: 2 fp16 + 12 scales + 128 qs   = 4.5
        case GgmlType::Q3_K: return 110.0 * 8 / 256; // block_q3_K: 32 hmask + 64 qs + 12 scales + fp16 = 3.4375
        case GgmlType::Q2_K: return 84.0 * 8 / 256;  // block_q2_K: 16 scales + 64 qs + 2 fp16    = 2.625
        case GgmlType::Q4_0: return 18.0 * 8 / 32;   // block_q4_0: fp16 d + 16 bytes of nibbles = 4.5
    }
    return 16;
}

bool is_gguf(WeightFormat f) {
    switch (f) {
        case WeightFormat::GGUF_Q8_0: case WeightFormat::GGUF_Q6_K: case WeightFormat::GGUF_Q5_K_M:
        case WeightFormat::GGUF_Q4_K_M: case WeightFormat::GGUF_Q4_0: case WeightFormat::GGUF_Q3_K_M:
        case WeightFormat::GGUF_Q2_K: return true;
        default: return false;
    }
}

bool is_bitsandbytes(WeightFormat f) {
    return f == WeightFormat::INT8 || f == WeightFormat::NF4 || f == WeightFormat::FP4;
}

const char* weight_format_name(WeightFormat f) {
    switch (f) {
        case WeightFormat::FP32: return "fp32";
        case WeightFormat::FP16: return "fp16";
        case WeightFormat::BF16: return "bf16";
        case WeightFormat::FP8: return "fp8";
        case WeightFormat::INT8: return "int8 (LLM.int8)";
        case WeightFormat::GPTQ4: return "GPTQ 4-bit";
        case WeightFormat::AWQ4: return "AWQ 4-bit";
        case WeightFormat::NF4: return "NF4";
        case WeightFormat::FP4: return "FP4";
        case WeightFormat::GGUF_Q8_0: return "GGUF Q8_0";
        case WeightFormat::GGUF_Q6_K: return "GGUF Q6_K";
        case WeightFormat::GGUF_Q5_K_M: return "GGUF Q5_K_M";
        case WeightFormat::GGUF_Q4_K_M: return "GGUF Q4_K_M";
        case WeightFormat::GGUF_Q4_0: return "GGUF Q4_0";
        case WeightFormat::GGUF_Q3_K_M: return "GGUF Q3_K_M";
        case WeightFormat::GGUF_Q2_K: return "GGUF Q2_K";
    }
    return "?";
}

// Base GGML type of a GGUF file type (llama.cpp llama_model_quantize_impl: default_type).
static GgmlType gguf_base(WeightFormat f) {
    switch (f) {
        case WeightFormat::GGUF_Q8_0: return GgmlType::Q8_0;
        case WeightFormat::GGUF_Q6_K: return GgmlType::Q6_K;
        case WeightFormat::GGUF_Q5_K_M: return GgmlType::Q5_K;
        case WeightFormat::GGUF_Q4_K_M: return GgmlType::Q4_K;
        case WeightFormat::GGUF_Q4_0: return GgmlType::Q4_0;
        case WeightFormat::GGUF_Q3_K_M: return GgmlType::Q3_K;
        case WeightFormat::GGUF_Q2_K: return GgmlType::Q2_K;
        default: return GgmlType::F16;
    }
}

double linear_bits_per_weight(const InferenceOptions& o, int64_t in_features) {
    const double g = static_cast<double>(o.group_size);
    switch (o.weights) {
        case WeightFormat::FP32: return 32;
        case WeightFormat::FP16: case WeightFormat::BF16: return 16;
        case WeightFormat::FP8: return 8;  // e4m3 + one fp32 scale per tensor (vLLM fp8), negligible
        // LLM.int8 (Dettmers 2022): int8 weight + one fp32 absmax scale per output row (bnb Int8Params.SCB)
        case WeightFormat::INT8: return 8 + 32.0 / static_cast<double>(std::max<int64_t>(in_features, 1));
        // GPTQ/AWQ: 4-bit weight + per group of g inputs an fp16 scale and a 4-bit zero (packed qzeros)
        case WeightFormat::GPTQ4: case WeightFormat::AWQ4: return 4 + (16 + 4) / g;
        // bitsandbytes 4-bit: fp32 absmax per 64-weight block = 0.5 bit; double quant: 8-bit absmax
        // + fp32 per 256 absmax = 8/64 + 32/(64*256) = 0.127 bit (QLoRA paper Sec 3)
        case WeightFormat::NF4: case WeightFormat::FP4:
            return o.double_quant ? 4 + 8.0 / 64 + 32.0 / (64 * 256) : 4 + 32.0 / 64;
        default: return ggml_bits_per_weight(gguf_base(o.weights));
    }
}

const char* weight_format_formula(WeightFormat f) {
    // The layer matrices of the most loaded GPU (embedding, head and norms are their own components).
    switch (f) {
        case WeightFormat::FP32: return "P_linear * bpw / 8 / tp, bpw = 32";
        case WeightFormat::FP16: case WeightFormat::BF16: return "P_linear * bpw / 8 / tp, bpw = 16";
        case WeightFormat::FP8: return "P_linear * bpw / 8 / tp, bpw = 8 (one fp32 scale per tensor, negligible)";
        case WeightFormat::INT8: return "P_linear * bpw / 8 / tp, bpw = 8 + 32/d_in (int8 + fp32 scale per output row)";
        case WeightFormat::GPTQ4: case WeightFormat::AWQ4: return "P_linear * bpw / 8 / tp, bpw = 4 + (16 + 4)/g (int4 + fp16 scale + 4-bit zero per group of g)";
        case WeightFormat::NF4: case WeightFormat::FP4: return "P_linear * bpw / 8 / tp, bpw = 4 + 32/64, or 4 + 8/64 + 32/(64*256) with double quant";
        default: return "P_linear * bpw / 8 / tp, bpw = mean bits per weight of the llama.cpp tensor-type mix (ggml block sizes)";
    }
}

const char* weight_format_source(WeightFormat f) {
    if (is_gguf(f)) return "llama.cpp ggml block layouts (ggml-common.h) and llama_tensor_get_type mix (src/llama-quant.cpp) [llama-cpp-code]";
    switch (f) {
        case WeightFormat::INT8: return "Dettmers et al. 2022 LLM.int8() [llm-int8-2022]; bitsandbytes Int8Params (int8 + fp32 row scale) [bitsandbytes-code]; lm_head kept 16-bit (transformers get_keys_to_not_convert) [transformers-code]";
        case WeightFormat::GPTQ4: return "Frantar et al. 2022 GPTQ [gptq2022]; AutoGPTQ QuantLinear (qweight int4, fp16 scales, packed 4-bit qzeros per group) [autogptq-code]";
        case WeightFormat::AWQ4: return "Lin et al. 2023 AWQ [awq2023]; AutoAWQ WQLinear (int4, fp16 scales, 4-bit zeros per group) [autoawq-code]";
        case WeightFormat::NF4: case WeightFormat::FP4: return "Dettmers et al. 2023 QLoRA Sec 3 (block 64 absmax; double quant 0.127 bit) [qlora2023 §3]; bitsandbytes Linear4bit [bitsandbytes-code]";
        case WeightFormat::FP8: return "vLLM fp8 W8 (per-tensor scale); embedding and lm_head stay 16-bit [vllm-code]";
        default: return "inference weights = 2P bytes (fp16) or 4P bytes (fp32) [transformer-series5 §3.2]";
    }
}

// ---- per-tensor mix of the GGUF file types (llama_tensor_get_type, dense non-Falcon models) ----
static bool use_more_bits(int64_t i, int64_t n) {  // llama-quant.cpp use_more_bits
    return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}
static GgmlType gguf_attn_v(WeightFormat f, int64_t i, int64_t n, int64_t n_gqa) {
    switch (f) {
        case WeightFormat::GGUF_Q2_K: return n_gqa >= 4 ? GgmlType::Q4_K : GgmlType::Q3_K;
        case WeightFormat::GGUF_Q3_K_M: return i < 2 ? GgmlType::Q5_K : GgmlType::Q4_K;
        case WeightFormat::GGUF_Q4_K_M: case WeightFormat::GGUF_Q5_K_M:
            return use_more_bits(i, n) ? GgmlType::Q6_K : gguf_base(f);
        default: return gguf_base(f);
    }
}
static GgmlType gguf_ffn_down(WeightFormat f, int64_t i, int64_t n) {
    switch (f) {
        case WeightFormat::GGUF_Q2_K: return GgmlType::Q3_K;
        case WeightFormat::GGUF_Q3_K_M: return i < n / 16 ? GgmlType::Q5_K : GgmlType::Q4_K;
        case WeightFormat::GGUF_Q4_K_M: case WeightFormat::GGUF_Q5_K_M:
            return use_more_bits(i, n) ? GgmlType::Q6_K : gguf_base(f);
        default: return gguf_base(f);
    }
}
static GgmlType gguf_attn_output(WeightFormat f) {
    if (f == WeightFormat::GGUF_Q2_K) return GgmlType::Q3_K;
    if (f == WeightFormat::GGUF_Q3_K_M) return GgmlType::Q4_K;
    return gguf_base(f);
}
static GgmlType gguf_output(WeightFormat f) {  // output.weight: Q6_K unless the base is Q8_0
    return gguf_base(f) == GgmlType::Q8_0 ? GgmlType::Q8_0 : GgmlType::Q6_K;
}

// Bits of the 16-bit-or-wider tensors that quantized formats do not touch.
static double dense_bits(const InferenceOptions& o) { return o.weights == WeightFormat::FP32 ? 32 : 16; }

WeightBytes stage_weight_bytes(const ModelSpec& m, const ParamCounts& pc, const InferenceOptions& o,
                               const Parallelism& par, int64_t stage) {
    WeightBytes w;
    const double tp = static_cast<double>(par.tp);
    const bool gguf = is_gguf(o.weights);
    const bool llamacpp = o.engine == Engine::LlamaCpp;
    // llama.cpp stores 1-D tensors (norms, biases) as F32 (convert_hf_to_gguf; quantize skips them).
    const double norm_bits = (gguf || llamacpp) ? 32 : dense_bits(o);
    if (pc.per_layer.empty()) {  // known only by its parameter count: everything at the linear rate
        if (stage == 0) w.linear = static_cast<double>(pc.total) * linear_bits_per_weight(o, m.hidden) / 8 / tp / static_cast<double>(par.pp);
        return w;
    }

    const int64_t L = static_cast<int64_t>(pc.per_layer.size());
    const StageInfo st = pipeline_stage(L, par.pp, stage);
    // Parameters per GPU by tensor class, split by the shared parallel rules (parallel.h layer_shard).
    const bool has_moe = pc.per_layer.pattern().moe_count(st.layer_begin, st.layer_end) > 0;
    const LayerShard dense = layer_shard(m, pc.per_layer.dense(), par, ExpertSplit::EpOrTp);
    const LayerShard moe = has_moe ? layer_shard(m, pc.per_layer.moe(), par, ExpertSplit::EpOrTp) : LayerShard{};
    const int64_t n_gqa = m.kv_heads > 0 ? m.heads / m.kv_heads : 1;
    const double base = gguf ? ggml_bits_per_weight(gguf_base(o.weights)) : linear_bits_per_weight(o, m.hidden);
    const double b_o = gguf ? ggml_bits_per_weight(gguf_attn_output(o.weights)) : base;
    for (int64_t i = st.layer_begin; i < st.layer_end; ++i) {
        const LayerShard& s = pc.per_layer.pattern().moe(i) ? moe : dense;
        // Bits of the tensors the GGUF mixes single out (attn_v, attn_output, ffn_down; llama_tensor_get_type);
        // LLM.int8's down projections read ffn inputs.
        const double b_v = gguf ? ggml_bits_per_weight(gguf_attn_v(o.weights, i, L, n_gqa)) : base;
        const double b_d = gguf ? ggml_bits_per_weight(gguf_ffn_down(o.weights, i, L))
                                : (o.weights == WeightFormat::INT8 ? linear_bits_per_weight(o, m.ffn) : base);
        const double rest = s.attn_rest + s.attn_extra + s.mlp_rest + s.mlp_extra + s.experts_rest + s.experts_extra + s.router;
        w.linear += (s.attn_v * b_v + s.attn_output * b_o + rest * base + (s.mlp_down + s.experts_down) * b_d) / 8;
        w.other += s.norms * norm_bits / 8;
    }

    // Embedding (first stage) and output head (last stage), split by the shared rules (edge_shard).
    const EdgeShard e = edge_shard(m, pc, par, st);
    const double embed_bits = gguf ? ggml_bits_per_weight(m.tied_embeddings ? gguf_output(o.weights) : gguf_base(o.weights))
                                   : dense_bits(o);
    const double head_bits = gguf ? ggml_bits_per_weight(gguf_output(o.weights)) : dense_bits(o);
    w.embedding = (e.word_embedding + e.embedding_other) * embed_bits / 8;
    w.lm_head = e.lm_head * head_bits / 8;
    w.other += e.final_norm * norm_bits / 8;
    return w;
}

}  // namespace vl
