// Speculative decoding in vLLM: the drafter of infer.speculative and its refusals (speculative.h).
#include "inference/speculative.h"

#include "cold.h"
#include "enum_names.h"
#include "inference/weight_formats.h"
#include "model/presets.h"
#include "param_count.h"

namespace vl {

namespace {

// A copy of target m with `layers` full-attention decoder layers: an EAGLE head's layer (dense, the
// target's shape) or the MTP layers (full attention, the target's MLP or experts).
ModelSpec attention_layers_of(const ModelSpec& m, int64_t layers, bool dense) {
    ModelSpec d = m;
    d.layers = layers;
    d.ssm = SsmSpec{};
    d.sliding_window = 0;
    d.sliding_window_pattern = 0;
    d.mtp_layers = 0;
    d.gguf_bytes = GgufTensorBytes{};
    if (dense) d.moe = MoESpec{};
    return d;
}

int64_t draft_tp(const Scenario& s) {
    const int64_t t = s.infer.speculative.draft_tensor_parallel_size;
    return t > 0 ? t : s.parallel.tp;
}

}  // namespace

std::optional<Drafter> speculative_drafter(const Scenario& s) {
    const Speculative& sp = s.infer.speculative;
    if (sp.method == SpecMethod::None || sp.method == SpecMethod::Ngram) return std::nullopt;
    Drafter d;
    d.method = sp.method;
    d.tp = draft_tp(s);
    // The drafter's weights are kept in the model dtype (vLLM builds the draft's ModelConfig with the
    // target's dtype and no quantization unless speculative_config.quantization says so) [vllm-spec-decode].
    d.param_bytes = model_dtype_bytes(s.infer);
    switch (sp.method) {
        case SpecMethod::Draft: {
            const ModelPreset* p = find_model(sp.model);
            if (!p) return std::nullopt;
            d.model = p->spec;
            d.params = static_cast<double>(count_params(d.model).total);
            break;
        }
        case SpecMethod::Eagle:
        case SpecMethod::Eagle3:
            d.model = attention_layers_of(s.model, 1, true);
            d.params = eagle_head_params(d.model, sp.method, 1);
            break;
        case SpecMethod::Mtp:
            // The MTP layers load with the target's quantization (SpeculativeConfig aligns it) [vllm-spec-decode].
            d.model = attention_layers_of(s.model, s.model.mtp_layers, false);
            d.params = static_cast<double>(count_params(s.model).mtp);
            d.param_bytes = linear_bits_per_weight(s.infer, s.model.hidden) / 8;
            break;
        default: return std::nullopt;
    }
    return d;
}

void add_drafter(const Drafter& d, int64_t batched_tokens, double act_bytes, Detail detail, Estimate& e) {
    constexpr unsigned kLoadOn = phase_bit(Phase::Load) | phase_bit(Phase::Forward) | phase_bit(Phase::Step);
    add(e, detail, comp("spec.draft_weights", "Speculative: draft weights", Category::Weights, kLoadOn,
                        d.method == SpecMethod::Draft ? "vLLM DraftModelProposer.load_model: the draft model whole (its embedding and head too), "
                                                        "model dtype, split over draft_tensor_parallel_size [vllm-spec-decode]"
                        : d.method == SpecMethod::Mtp ? "vLLM MTP proposer: the checkpoint's MTP layers with the target's quantization; "
                                                        "embedding and lm_head shared with the target [vllm-spec-decode]"
                                                      : "vLLM llama_eagle.py / llama_eagle3.py: fc, one decoder layer, norms (EAGLE-3: its own "
                                                        "draft-vocabulary lm_head); embedding (and EAGLE's lm_head) shared with the target [vllm-spec-decode] [eagle3-2025]"),
        [&](auto& q) { return draft_weight_bytes(q, d); });
    add(e, detail, comp("spec.drafter_buffers", "Speculative: drafter input buffers", Category::Activations, kLoadOn,
                        "vLLM SpecDecodeBaseProposer.__init__: hidden_states and inputs_embeds [max_num_batched_tokens, h] kept for the drafter [vllm-spec-decode]"),
        [&](auto& q) { return drafter_buffer_bytes(q, d, batched_tokens, act_bytes); });
}

void add_drafter_kv(const Drafter& d, const InferenceOptions& o, int64_t blocks, Detail detail, Estimate& e) {
    constexpr unsigned kServing = phase_bit(Phase::Forward) | phase_bit(Phase::Step);
    add(e, detail, comp("spec.draft_kv", "Speculative: drafter's KV layers (in the pool)", Category::KVCache, kServing,
                        "vLLM V1: the drafter's attention layers get KV specs in the same groups, so each block holds their pages too "
                        "and the pool's bytes per token grow by them [vllm-spec-decode]"),
        [&](auto& q) {
            return max_of(q("num_gpu_blocks", static_cast<double>(blocks)), vllm_sequence_blocks(q, o)) * q("B", static_cast<double>(o.block_size)) *
                   draft_kv_bytes_per_token(q, d, o.kv_dtype);
        });
}

double eagle_head_params(const ModelSpec& m, SpecMethod method, int64_t tp) {
    Numbers n;
    return eagle_head_params(n, m, method, tp);
}

double draft_kv_bytes_per_token(const Drafter& d, KvDtype t) {
    Numbers n;
    return draft_kv_bytes_per_token(n, d, t);
}

int64_t speculative_lookahead(const InferenceOptions& o) {
    return o.speculative.method == SpecMethod::None ? 0 : o.speculative.num_speculative_tokens;
}

std::string drafter_text(const Speculative& sp) {
    switch (sp.method) {
        case SpecMethod::Draft: return "draft model " + sp.model;
        case SpecMethod::Eagle: return "EAGLE head";
        case SpecMethod::Eagle3: return "EAGLE-3 head";
        case SpecMethod::Mtp: return "MTP layers";
        case SpecMethod::Ngram: return "n-gram prompt lookup";
        case SpecMethod::None: break;
    }
    return "none";
}

void validate_speculative(const Scenario& s, std::vector<FieldError>& errs) {
    const Speculative& sp = s.infer.speculative;
    const ModelSpec& m = s.model;
    if (sp.method == SpecMethod::None) {
        if (!sp.model.empty())
            cold([&] { errs.push_back({"infer.speculative.model", "a draft model is used only with infer.speculative.method draft; set the method or leave the model empty"}); });
        return;
    }
    const std::string method = enum_name(sp.method);
    if (s.infer.engine == Engine::Transformers) {
        cold([&] { errs.push_back({"infer.speculative.method",
                                   "speculative decoding is sized for vLLM (--speculative-config); transformers' assisted generation "
                                   "(generate(assistant_model=...)) keeps the assistant's weights and its own DynamicCache beside the "
                                   "model's, which is not modelled: use engine vllm, or method none"}); });
        return;
    }
    if (s.infer.engine == Engine::LlamaCpp) {
        cold([&] { errs.push_back({"infer.speculative.method", "llama.cpp's draft model (llama-server -md) is planned in Run locally "
                                                               "(local.draft); here speculative decoding is vLLM's: use engine vllm, or method none"}); });
        return;
    }
    if (s.parallel.pp > 1)
        cold([&] { errs.push_back({"infer.speculative.method", "speculative decoding with pipeline parallelism is not modelled (vLLM V1 runs "
                                                               "the drafter on one pipeline stage); use parallel.pp 1, or method none"}); });
    if (sp.num_speculative_tokens < 1 || sp.num_speculative_tokens > 64)
        cold([&] { errs.push_back({"infer.speculative.num_speculative_tokens",
                                   "must be in [1, 64] (tokens drafted per step; vLLM requires > 0); got " + std::to_string(sp.num_speculative_tokens)}); });
    const int64_t dtp = sp.draft_tensor_parallel_size;
    if (dtp < 0 || (dtp > 0 && dtp != 1 && dtp != s.parallel.tp))
        cold([&] { errs.push_back({"infer.speculative.draft_tensor_parallel_size",
                                   "vLLM runs the drafter at tensor parallel 1 or the target's (" + std::to_string(s.parallel.tp) +
                                       "); give 1, " + std::to_string(s.parallel.tp) + " or 0 for the target's; got " + std::to_string(dtp)}); });
    if (sp.method != SpecMethod::Draft && !sp.model.empty())
        cold([&] { errs.push_back({"infer.speculative.model", "method " + method + " loads no other model (" +
                                                                  (sp.method == SpecMethod::Ngram ? std::string("n-gram lookup has no weights")
                                                                   : sp.method == SpecMethod::Mtp ? std::string("the MTP layers are the checkpoint's own")
                                                                                                  : std::string("the head is sized from the target's layer shape")) +
                                                                  "); leave infer.speculative.model empty, or use method draft"}); });
    if (!m.architecture_known()) {
        if (sp.method != SpecMethod::Ngram)
            cold([&] { errs.push_back({"infer.speculative.method", "the drafter is sized from the model's architecture, and this model is known only "
                                                                   "by its parameter count: import its config.json, or use method ngram"}); });
        return;
    }
    switch (sp.method) {
        case SpecMethod::Draft: {
            if (sp.model.empty()) {
                cold([&] { errs.push_back({"infer.speculative.model", "method draft needs the draft model: give a model preset id (e.g. llama-3.2-1b)"}); });
                break;
            }
            const ModelPreset* p = find_model(sp.model);
            if (!p) {
                cold([&] { errs.push_back({"infer.speculative.model", "\"" + sp.model + "\" is not a model preset; give a preset id (e.g. llama-3.2-1b)"}); });
                break;
            }
            if (p->spec.vocab != m.vocab)
                cold([&] { errs.push_back({"infer.speculative.model", "the draft model " + sp.model + " has a vocabulary of " + std::to_string(p->spec.vocab) +
                                                                          " tokens and the target " + std::to_string(m.vocab) +
                                                                          ": a draft model proposes the target's token ids, so it needs the same "
                                                                          "vocabulary; choose a draft of the target's family"}); });
            if (!p->spec.architecture_known() || p->spec.ssm.active() || p->spec.encoder)
                cold([&] { errs.push_back({"infer.speculative.model", "the draft model " + sp.model + " is not a decoder whose KV cache is modelled here; "
                                                                          "choose a transformer decoder preset"}); });
            else if (p->spec.heads % draft_tp(s) != 0 || p->spec.kv_heads % draft_tp(s) != 0)
                cold([&] { errs.push_back({"infer.speculative.draft_tensor_parallel_size",
                                           "the draft model's " + std::to_string(p->spec.heads) + " heads / " + std::to_string(p->spec.kv_heads) +
                                               " KV heads do not split over " + std::to_string(draft_tp(s)) + " ranks; give 1"}); });
            break;
        }
        case SpecMethod::Eagle:
        case SpecMethod::Eagle3:
            if (m.ssm.active() || m.attention == AttentionKind::MLA || m.ffn <= 0 || m.encoder)
                cold([&] { errs.push_back({"infer.speculative.method", "an " + method + " head is sized as one Llama-style decoder layer of the "
                                                                       "target's shape (dense MLP of its ffn, grouped-query attention); " +
                                                                       (m.model_type.empty() ? std::string("this model") : m.model_type) +
                                                                       " is not such a model: use method draft or ngram"}); });
            break;
        case SpecMethod::Mtp:
            if (m.mtp_layers <= 0)
                cold([&] { errs.push_back({"infer.speculative.method",
                                           "mtp drafts with the checkpoint's multi-token-prediction layers, and this model has none counted "
                                           "(model.mtp_layers 0; Qwen3-Next and Qwen3.5 configs give mtp_num_hidden_layers, DeepSeek-V3 and GLM-4.5 "
                                           "num_nextn_predict_layers): use method eagle, draft or ngram"}); });
            break;
        default: break;
    }
}

}  // namespace vl
