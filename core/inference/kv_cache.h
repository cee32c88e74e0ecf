// KV cache: bytes per token and per sequence for MHA/GQA/MQA, MLA's compressed cache, sliding-window
// layers, quantized KV dtypes and paged blocks. Each is one expression (core/formula.h) over a quantity
// maker, so the number, the formula and the substituted text come from the same code; the double
// functions are those expressions over plain numbers.
#pragma once
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <type_traits>

#include "formula.h"
#include "inference/weight_formats.h"
#include "model_spec.h"
#include "param_count.h"
#include "parallel.h"
#include "scenario.h"

namespace vl {

// The KV cache dtypes: the stored layout of one cached element (scale overhead included).
struct KvDtypeInfo {
    KvDtype dtype;
    const char* key;     // scenario JSON and CLI name (enum_names(KvDtype) lists these)
    const char* name;    // shown
    QuantLayout layout;
    const char* source;  // docs/sources.md keys
};

inline constexpr KvDtypeInfo kKvDtypes[] = {
    {KvDtype::FP16, "fp16", "fp16", {16}, "[vllm-paper §3]"},
    {KvDtype::BF16, "bf16", "bf16", {16}, "[vllm-paper §3]"},
    // e4m3/e5m2 with one fp32 scale per tensor (vLLM kv_cache_dtype fp8)
    {KvDtype::FP8, "fp8", "fp8", {8}, "[vllm-code]"},
    // ggml q8_0 / q4_0 caches: 32 values + an fp16 scale per block (llama.cpp -ctk q8_0 / q4_0)
    {KvDtype::INT8, "int8", "int8 (q8_0)", ggml_type(GgmlType::Q8_0).layout, "[llama-cpp-code]"},
    {KvDtype::INT4, "int4", "int4 (q4_0)", ggml_type(GgmlType::Q4_0).layout, "[llama-cpp-code]"},
};

namespace detail {
constexpr bool kv_table_in_enum_order() {
    for (size_t i = 0; i < std::size(kKvDtypes); ++i)
        if (static_cast<size_t>(kKvDtypes[i].dtype) != i) return false;
    return std::size(kKvDtypes) == static_cast<size_t>(KvDtype::INT4) + 1;
}
static_assert(kv_table_in_enum_order(), "kKvDtypes lists every KvDtype once, in enum order");
}  // namespace detail

constexpr const KvDtypeInfo& kv_dtype(KvDtype t) { return kKvDtypes[static_cast<size_t>(t)]; }
inline const char* kv_dtype_name(KvDtype t) { return kv_dtype(t).name; }

// Bytes of one cached element, scale overhead included.
double kv_bytes_per_element(KvDtype t);

// Elements one layer caches per token on one tensor-parallel rank: K and V, 2 * kv_heads_per_rank *
// head_dim ([vllm-paper §3], generalised to GQA/MQA); MLA caches the compressed latent c_KV and the
// decoupled RoPE key, shared by all heads and replicated on every TP rank: kv_lora_rank +
// qk_rope_head_dim, no factor 2 (DeepSeek-V2 Table 1). With infer.mla_cache = "decompressed" (the
// remote-code modeling_deepseek.py of DeepSeek-V2/V3 before Transformers' native port, vLLM < 0.7.1,
// llama.cpp before its MLA cache) the cache holds each head's decompressed key (nope + rope dims) and
// value: heads/tp * (qk_nope_head_dim + qk_rope_head_dim + v_head_dim) [deepseek-v2-remote-code].
template <class Q>
auto kv_elements(Q& q, const ModelSpec& m, int64_t tp) {
    using N = std::decay_t<decltype(q("", 0.0))>;
    if (m.attention == AttentionKind::MLA && m.mla.decompressed_cache)
        return q("heads", static_cast<double>(m.heads)) / q("tp", static_cast<double>(tp)) *
               (q("nope_dim", static_cast<double>(m.mla.qk_nope_head_dim)) + q("rope_dim", static_cast<double>(m.mla.qk_rope_head_dim)) +
                q("v_head_dim", static_cast<double>(m.mla.v_head_dim)));
    if (m.attention == AttentionKind::MLA)
        return q("kv_lora_rank", static_cast<double>(m.mla.kv_lora_rank)) + q("rope_dim", static_cast<double>(m.mla.qk_rope_head_dim));
    return N(2) * q("kv_heads", static_cast<double>(kv_heads_per_rank(m, tp))) * q("head_dim", static_cast<double>(m.head_dim));
}
int64_t kv_elements_per_token_layer(const ModelSpec& m, int64_t tp);

template <class Q>
auto kv_element_bytes(Q& q, KvDtype t) {
    Numbers n;
    return q("kv_bytes", layout_bits(n, kv_dtype(t).layout, InferenceOptions{}) / 8);
}

// Bytes of the KV cache of one sequence of `tokens` tokens for layers [begin, end) on one rank.
// Sliding-window layers hold at most the window when cap_window, but at least `window_floor` tokens
// (transformers' DynamicSlidingWindowLayer keeps a slice of the prefill's full K/V, a view that
// holds the whole prompt's storage until the first decode step [transformers-code]); each layer's
// length is rounded up to whole blocks of block_size tokens (1 = no paging; paged: whole blocks,
// [vllm-paper §4.1]).
// Only attention layers cache K and V: a state-space model's Mamba layers keep a recurrent state
// instead (ssm_sequence_bytes), so L counts the attention layers among [begin, end).
template <class Q>
auto kv_sequence_bytes(Q& q, const ModelSpec& m, KvDtype t, int64_t tp, int64_t begin, int64_t end, int64_t tokens,
                       int64_t block_size, bool cap_window, int64_t window_floor = 0, const char* floor_name = "s_prefill") {
    using N = std::decay_t<decltype(q("", 0.0))>;
    const LayerPattern pattern = layer_pattern(m);
    int64_t window_layers = 0;
    if (cap_window && m.sliding_window > 0)
        for (int64_t i = begin; i < end; ++i) window_layers += pattern.sliding(i) && pattern.attention(i) ? 1 : 0;
    const int64_t full_layers = pattern.attention_count(begin, end) - window_layers;
    auto whole_blocks = [&](const N& held) {
        if (block_size <= 1) return held;
        const N B = q("B", static_cast<double>(block_size));
        return ceil_of(held / B) * B;
    };
    const N s = q("s", static_cast<double>(tokens));
    N held{};  // token slots over the layers
    if (window_layers == 0) {
        held = whole_blocks(s) * q("L", static_cast<double>(full_layers));
    } else {
        if (full_layers > 0) held += q("L_full", static_cast<double>(full_layers)) * whole_blocks(s);
        const N window = q("window", static_cast<double>(m.sliding_window));
        const N kept = window_floor > m.sliding_window ? max_of(window, q(floor_name, static_cast<double>(window_floor))) : window;
        held += q("L_window", static_cast<double>(window_layers)) * whole_blocks(min_of(s, kept));
    }
    return held * kv_elements(q, m, tp) * kv_element_bytes(q, t);
}
double kv_sequence_bytes(const ModelSpec& m, KvDtype t, int64_t tp, int64_t begin, int64_t end,
                         int64_t tokens, int64_t block_size, bool cap_window, int64_t window_floor = 0);

// Bytes of the cross-attention cache of one sequence for layers [begin, end) on one rank (Llama 3.2 Vision): each
// cross-attention layer keeps K and V of its images' states, `image_states` of them (images x max_num_tiles x
// ((S/p)^2 + 1), image_tokens.h), not of the text: the same at any context length. MllamaTextCrossAttention projects
// cross_attention_states once and past_key_values keeps them at that layer [transformers-mllama].
// An encoder-decoder's decoder layers keep K and V of the encoder output the same way, `states` = the source's tokens
// (EncoderDecoderCache's cross_attention_cache, filled at the first step) [transformers-t5]: states_name "s_src".
template <class Q>
auto cross_kv_sequence_bytes(Q& q, const ModelSpec& m, KvDtype t, int64_t tp, int64_t begin, int64_t end, int64_t image_states,
                             const char* states_name = "s_image") {
    return q("L_cross", static_cast<double>(layer_pattern(m).cross_count(begin, end))) * q(states_name, static_cast<double>(image_states)) *
           kv_elements(q, m, tp) * kv_element_bytes(q, t);
}

// llama.cpp's sliding-window cache (llama_kv_cache_iswa, src/llama-kv-cache-iswa.cpp [llama-cpp-code]):
// for an architecture whose loader sets a sliding-window type (Gemma 2, Gemma 3, Cohere2, gpt-oss,
// Llama 4 chunked), the window layers hold GGML_PAD(min(n_ctx, n_swa + n_ubatch), 256) cells per
// sequence instead of n_ctx (the 256 pad: llama.cpp issue #17037); --swa-full keeps n_ctx. Mistral
// (LLM_ARCH_LLAMA) has no window in llama.cpp, and Phi-3's is disabled (PR #13676): every layer holds
// n_ctx cells although their configs name a sliding_window [llama-cpp-swa].
bool llamacpp_uses_swa(const ModelSpec& m);
inline int64_t llamacpp_swa_cells(int64_t n_swa, int64_t n_ubatch) { return (n_swa + n_ubatch + 255) / 256 * 256; }

// Bytes per token with every attention layer holding every token (vLLM's pool unit, the "KV per token" of [vllm-paper §3]).
template <class Q>
auto kv_bytes_per_token(Q& q, const ModelSpec& m, KvDtype t, int64_t tp, int64_t begin, int64_t end) {
    return q("L", static_cast<double>(layer_pattern(m).attention_count(begin, end))) * kv_elements(q, m, tp) * kv_element_bytes(q, t);
}
double kv_bytes_per_token(const ModelSpec& m, KvDtype t, int64_t tp, int64_t begin, int64_t end);

// ---- the recurrent state of state-space (Mamba) layers -----------------------------------------
// What a Mamba layer keeps between tokens of one sequence, whatever its length [gu2023-mamba §3.4]:
// the convolution state (the last inputs of each conv1d channel) and the SSM state h.
// How an engine stores it: the whole d_conv window or d_conv - 1 columns (the first is shifted out
// before it is read), and the element sizes.
struct SsmStateLayout {
    bool whole_window;   // conv state of d_conv columns (transformers) instead of d_conv - 1 (llama.cpp)
    double conv_bytes;   // bytes of one conv-state element
    double ssm_bytes;    // bytes of one SSM-state element
};

// How an engine stores it. transformers: MambaCache / Mamba2Cache / Jamba's
// HybridMambaAttentionDynamicCache allocate conv_states with the whole conv_kernel window and
// ssm_states, both in the model's dtype (self.dtype: 16-bit, fp32 for FP32 weights) [transformers-code].
// llama.cpp: llama_memory_recurrent's r and s tensors, (d_conv - 1) columns, GGML_TYPE_F32 both
// (llama_model::create_memory), on the layer's device unless --no-kv-offload [llama-cpp-code].
// vLLM v0.6: MambaCacheManager's conv state of d_conv - 1 columns and temporal state, in the
// lm_head's dtype (the model's) [vllm-code].
// Gated DeltaNet (Qwen3-Next, Qwen3.5): transformers' Qwen3NextDynamicCache keeps the recurrent state
// in fp32 (the delta-rule kernels return it so) and the conv state in the model's dtype
// [transformers-code]; vLLM keeps the recurrent state in the config's mamba_ssm_dtype (Qwen3.5:
// float32), else the model's dtype [vllm-code]; llama.cpp F32 both [llama-cpp-code].
SsmStateLayout ssm_state_layout(const InferenceOptions& o, const SsmSpec& x);

// Bytes of the model's own (unquantized) dtype: 4 for fp32 weights, else 2 (bf16/fp16, and the compute
// dtype of quantized weights): what engines keep states and unquantized extra weights in.
double model_dtype_bytes(const InferenceOptions& o);

// d_inner on one tensor-parallel rank (the text shows "/ tp" only when tp > 1).
template <class Q>
auto ssm_inner_per_rank(Q& q, const ModelSpec& m, int64_t tp) {
    const auto d_in = q("d_inner", static_cast<double>(m.ssm.inner));
    return tp > 1 ? d_in / q("tp", static_cast<double>(tp)) : d_in;
}

// Conv-state elements of one layer and sequence: (d_conv or d_conv - 1) x channels, the channels
// being d_inner (Mamba1) or d_inner + 2 * groups * d_state (Mamba2 convolves x, B and C; Gated DeltaNet
// v, q and k: value_dim + 2 * key_dim)
// (transformers MambaCache / Mamba2Cache conv_states [transformers-code]; llama.cpp
// llama_hparams::n_embd_r [llama-cpp-code]).
// With tensor parallelism (vLLM, Mamba1 only) each rank keeps d_inner / tp channels [vllm-code].
template <class Q>
auto ssm_conv_elements(Q& q, const ModelSpec& m, bool whole_window, int64_t tp = 1) {
    using N = std::decay_t<decltype(q("", 0.0))>;
    const SsmSpec& x = m.ssm;
    const N k = q("d_conv", static_cast<double>(x.conv_kernel));
    const N cols = whole_window ? k : k - N(1);
    N channels = ssm_inner_per_rank(q, m, tp);
    if (x.kind == SsmKind::Mamba2 || x.kind == SsmKind::GatedDeltaNet)
        channels = channels + N(2) * q("groups", static_cast<double>(x.groups)) * q("d_state", static_cast<double>(x.state));
    return cols * channels;
}

// SSM-state elements of one layer and sequence: d_inner x d_state (Mamba1 ssm_states [d_inner,
// d_state]; Mamba2 [heads, head_dim, d_state] with heads * head_dim = d_inner; Gated DeltaNet
// [value heads, head_k_dim, head_v_dim] = value_dim x head_k_dim [yang2024-gated-deltanet]) (transformers
// [transformers-code]; llama.cpp llama_hparams::n_embd_s = d_state * d_inner [llama-cpp-code]).
template <class Q>
auto ssm_state_elements(Q& q, const ModelSpec& m, int64_t tp = 1) {
    return ssm_inner_per_rank(q, m, tp) * q("d_state", static_cast<double>(m.ssm.state));
}

// Bytes of the recurrent state of one sequence over the Mamba layers among [begin, end), on one rank.
template <class Q>
auto ssm_sequence_bytes(Q& q, const ModelSpec& m, int64_t begin, int64_t end, const SsmStateLayout& l, int64_t tp = 1) {
    const int64_t layers = layer_pattern(m).ssm_count(begin, end);
    return q("L_ssm", static_cast<double>(layers)) * (ssm_conv_elements(q, m, l.whole_window, tp) * q("conv_bytes", l.conv_bytes) +
                                                      ssm_state_elements(q, m, tp) * q("ssm_bytes", l.ssm_bytes));
}
double ssm_sequence_bytes(const ModelSpec& m, int64_t begin, int64_t end, const SsmStateLayout& l, int64_t tp = 1);

}  // namespace vl
