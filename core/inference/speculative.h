// Speculative decoding in vLLM (infer.speculative, vLLM's --speculative-config): what the drafter adds
// to one GPU. vLLM V1 loads the drafter beside the target (v1/spec_decode/llm_base_proposer.py load_model),
// registers the drafter's attention layers in the same KV cache spec, so the one block pool's bytes per
// token grow by the drafter's layers, runs the drafter in the profile run (dummy_run over
// max_num_batched_tokens), keeps persistent input buffers for it, and reserves num_speculative_tokens
// lookahead slots per running sequence [vllm-spec-decode]. Each quantity is one expression over a
// quantity maker q (core/formula.h).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "formula.h"
#include "inference/kv_cache.h"
#include "inference/runtime.h"
#include "diagnostics.h"
#include "estimate.h"
#include "model_spec.h"
#include "scenario.h"

namespace vl {

// EAGLE-3 heads predict over a reduced vocabulary (config.json draft_vocab_size: 32000 in the
// yuhuili/EAGLE3-* heads) and map it to the target's with a d2t table [eagle3-2025] [vllm-spec-decode].
inline constexpr int64_t kEagle3DraftVocab = 32000;

// The drafter of a speculative config, as the estimate needs it. `model` holds its attention layers
// (their KV) and the layer the profile run pushes tokens through: the draft model itself, or for an
// EAGLE head / the MTP layers a copy of the target of that many full-attention layers.
struct Drafter {
    SpecMethod method = SpecMethod::None;
    ModelSpec model;
    int64_t tp = 1;        // draft_tensor_parallel_size in effect
    double params = 0;     // draft model, MTP: the parameters vLLM loads for the drafter (embedding and head shared
                           // with the target where vLLM shares them)
    double param_bytes = 2;  // bytes per parameter of the drafter's weights
};

// The drafter of s.infer.speculative (nullopt: none, or ngram, which loads no weights). Call on a
// scenario that passed validate_speculative.
std::optional<Drafter> speculative_drafter(const Scenario& s);

// Refusals with the field and the fix (infer.speculative.*): appended to errs.
void validate_speculative(const Scenario& s, std::vector<FieldError>& errs);

// Parameters of an EAGLE head over target m as vLLM builds it (llama_eagle.py, llama_eagle3.py
// [vllm-spec-decode]); per tensor-parallel rank when tp > 1: replicated fc and norms, split matrices.
// EAGLE:   fc [h, 2h] (no bias), one decoder layer without its input norm (q, k, v, o, gated MLP,
//          post-attention norm); embedding and lm_head are the target's.
// EAGLE-3: fc [h, 3h] over three of the target's hidden states, one decoder layer whose q/k/v read 2h
//          (embedding and hidden state side by side), input, hidden and post-attention norms, the final
//          norm, its own lm_head [draft_vocab, h]; the embedding is the target's.
template <class Q>
auto eagle_head_params(Q& q, const ModelSpec& m, SpecMethod method, int64_t tp) {
    using N = std::decay_t<decltype(q("", 0.0))>;
    const bool e3 = method == SpecMethod::Eagle3;
    const N h = q("h", static_cast<double>(m.hidden));
    const N qkv_out = q("heads", static_cast<double>(m.heads)) * q("head_dim", static_cast<double>(m.head_dim)) +
                      N(2) * q("kv_heads", static_cast<double>(m.kv_heads)) * q("head_dim", static_cast<double>(m.head_dim));
    const N o_in = q("heads", static_cast<double>(m.heads)) * q("head_dim", static_cast<double>(m.head_dim));
    const N fc = N(e3 ? 3 : 2) * h * h;
    const N attention = N(e3 ? 2 : 1) * h * qkv_out + o_in * h;
    const N mlp = N(m.gated_mlp ? 3 : 2) * h * q("ffn", static_cast<double>(m.ffn));
    const N norms = N(e3 ? 4 : 1) * h;
    N split = attention + mlp;
    if (e3) split += q("draft_vocab", static_cast<double>(kEagle3DraftVocab)) * h;
    return fc + norms + split / q("tp_draft", static_cast<double>(tp));
}
double eagle_head_params(const ModelSpec& m, SpecMethod method, int64_t tp);

// The drafter's weights on one GPU: an EAGLE head by the tensors above; a draft model or the MTP layers
// as their parameters over draft_tensor_parallel_size (their norms, a few thousand parameters, counted
// split too).
template <class Q>
auto draft_weight_bytes(Q& q, const Drafter& d) {
    using N = std::decay_t<decltype(q("", 0.0))>;
    N p{};
    if (d.method == SpecMethod::Eagle || d.method == SpecMethod::Eagle3) p = eagle_head_params(q, d.model, d.method, d.tp);
    else p = q("P_draft", d.params) / q("tp_draft", static_cast<double>(d.tp));
    return p * q("draft_bytes", d.param_bytes);
}

// The drafter's attention layers in the KV pool: bytes per token on one GPU, every drafter layer
// holding every token (vLLM V1 gives them pages in the same blocks as the target's layers).
template <class Q>
auto draft_kv_bytes_per_token(Q& q, const Drafter& d, KvDtype t) {
    return q("L_draft", static_cast<double>(d.model.layers)) * kv_elements(q, d.model, d.tp) * kv_element_bytes(q, t);
}
double draft_kv_bytes_per_token(const Drafter& d, KvDtype t);

// Persistent drafter inputs allocated when vLLM builds the proposer, before the KV pool is sized: the
// target hidden states it reads ([max_num_batched_tokens, h_draft]) and its input embeddings
// ([max_num_batched_tokens, h_draft]) in the model dtype (SpecDecodeBaseProposer.__init__ [vllm-spec-decode]).
template <class Q>
auto drafter_buffer_bytes(Q& q, const Drafter& d, int64_t batched_tokens, double act_bytes) {
    using N = std::decay_t<decltype(q("", 0.0))>;
    return q("T", static_cast<double>(batched_tokens)) * N(2) * q("h_draft", static_cast<double>(d.model.hidden)) * q("act_bytes", act_bytes);
}

// The profile run's sampler check with speculative decoding: one draft token per sequence, so the
// rejection sampler gets dummy logits of 2 x max_num_seqs rows in the model dtype
// (gpu_model_runner._dummy_sampler_run [vllm-spec-decode]); counted on top of the sampler's own.
template <class Q>
auto rejection_logits_bytes(Q& q, const ModelSpec& m, int64_t seqs) {
    return q("rows_per_seq", 2.0) * q("max_num_seqs", static_cast<double>(seqs)) * q("V", static_cast<double>(m.vocab)) *
           q("logit_bytes", 2.0);
}


// Token slots a running sequence holds in the pool: its tokens plus num_speculative_tokens lookahead
// slots (KVCacheManager.allocate_slots num_lookahead_tokens [vllm-spec-decode]); 0 without speculation.
int64_t speculative_lookahead(const InferenceOptions& o);

// Blocks of block_size tokens vLLM's pool gives the requested sequences: each holds its tokens and its
// lookahead slots (speculative_lookahead) [vllm-spec-decode] [vllm-paper].
template <class Q>
auto vllm_sequence_blocks(Q& q, const InferenceOptions& o) {
    const auto B = q("B", static_cast<double>(o.block_size));
    auto held = q("s", static_cast<double>(o.context));
    if (const int64_t k = speculative_lookahead(o); k > 0) held = held + q("k", static_cast<double>(k));
    return q("b", static_cast<double>(o.batch)) * ceil_of(held / B);
}

// The drafter's components (ids spec.*), added here, away from the estimate's hot path: its weights and
// persistent input buffers (batched_tokens = max_num_batched_tokens), and its layers' share of a pool of
// `blocks` blocks (at least the requested sequences' blocks, as the target's KV component).
void add_drafter(const Drafter& d, int64_t batched_tokens, double act_bytes, Detail detail, Estimate& e);
void add_drafter_kv(const Drafter& d, const InferenceOptions& o, int64_t blocks, Detail detail, Estimate& e);

// "EAGLE-3 head", "draft model qwen2.5-0.5b", ...: what the drafter is, for labels and warnings.
std::string drafter_text(const Speculative& sp);

}  // namespace vl
