// Model specs and scenarios used by the training tests, with their sources.
#pragma once
#include "estimate.h"

namespace vl::testing {

// A GPT layer as Korthikanti et al. 2022 Table 3 describes it (ffn 4h, GeLU, LayerNorm, biases,
// learned positions, tied embeddings, vocab 51200, s = 2048).
inline ModelSpec gpt_model(const char* name, int64_t h, int64_t heads, int64_t layers, int64_t vocab, int64_t max_pos) {
    ModelSpec m;
    m.name = name; m.family = "GPT"; m.model_type = "gpt2";
    m.vocab = vocab; m.hidden = h; m.layers = layers; m.heads = heads; m.kv_heads = heads;
    m.head_dim = h / heads; m.ffn = 4 * h; m.gated_mlp = false;
    m.qkv_bias = m.attn_out_bias = m.mlp_bias = true;
    m.norm = NormKind::LayerNorm; m.tied_embeddings = true;
    m.position = PositionKind::Learned; m.max_position = max_pos;
    return m;
}
inline ModelSpec kort_22b() { return gpt_model("Korthikanti 22B", 6144, 64, 48, 51200, 2048); }
inline ModelSpec kort_175b() { return gpt_model("Korthikanti 175B", 12288, 96, 96, 51200, 2048); }
// GPT-2 XL as Megatron-LM runs it (case 21): vocab padded to 50304.
inline ModelSpec gpt2_xl_megatron() { return gpt_model("GPT-2 XL", 1600, 25, 48, 50304, 1024); }

// meta-llama/Llama-2-7b-hf config.json (shared/reference/models.json "llama-2-7b").
inline ModelSpec llama2_7b() {
    ModelSpec m;
    m.name = "Llama-2-7b"; m.family = "Llama 2"; m.model_type = "llama";
    m.vocab = 32000; m.hidden = 4096; m.layers = 32; m.heads = 32; m.kv_heads = 32; m.head_dim = 128;
    m.ffn = 11008; m.gated_mlp = true; m.norm = NormKind::RMSNorm; m.tied_embeddings = false;
    m.position = PositionKind::Rotary; m.max_position = 4096;
    return m;
}
// Its parameters, by hand: 32 layers of 4 x 4096^2 + 3 x 4096 x 11008 + 2 x 4096 = 202,383,360, the
// embedding and lm_head 32000 x 4096 = 131,072,000 each, the final norm 4096.
inline constexpr double kLlama2_7bParams = 6738415616.0;
inline constexpr double kLlama2_7bLayerParams = 202383360.0;

// A model known only by its parameter count.
inline ModelSpec params_only(int64_t p) {
    ModelSpec m;
    m.name = "params-only";
    m.params_only = p;
    return m;
}

// Overheads off: only the quantity under test is left.
inline Overheads no_overheads() {
    Overheads o;
    o.cuda_context_bytes = 0;
    o.cublas_workspace_bytes = 0;
    o.fragmentation = 0;
    o.temp_buffers = false;
    o.bucket_bytes = 0;
    o.backward_working_set = false;
    return o;
}

inline Scenario train_scenario(const ModelSpec& m) {
    Scenario s;
    s.model = m;
    s.mode = Mode::Train;
    s.gpu.memory_bytes = 1e15;
    return s;
}

inline const Component* find(const Estimate& e, const char* id) {
    for (const Component& c : e.components)
        if (std::string(c.id) == id) return &c;
    return nullptr;
}
inline double bytes_of(const Estimate& e, const char* id) {
    const Component* c = find(e, id);
    return c ? c->bytes : 0.0;
}
inline double sum_category(const Estimate& e, Category cat, bool host = false) {
    double b = 0;
    for (const Component& c : e.components)
        if (c.category == cat && c.host == host) b += c.bytes;
    return b;
}

}  // namespace vl::testing
