// verify-script generation (verify_script.h). The ModelSpec is written back as a Hugging Face
// config.json of a type transformers builds from the config alone (llama, mistral, qwen2, qwen3,
// mixtral, qwen2_moe, qwen3_moe, deepseek_v2/v3 with MLA, gpt_neox, gpt2); another architecture is
// built from its preset's own config.json when the model is that preset unchanged; BERT encoders are written back
// as BertConfig with their task head (masked LM, sequence classification, or none); encoder-decoders (T5, mT5, BART)
// and vision-language models with images (LLaVA-1.5, Qwen2-VL / Qwen2.5-VL) are built from their preset. The step
// mirrors the scenario on one GPU with plain PyTorch (and PEFT for LoRA). Every scenario setting
// the estimate uses is either reproduced (dropout, fp32 logits, prefill chunking, gradient
// accumulation, the KV dtype) or refused with the field and the reason.
#include "verify_script.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "embedded_assets.h"
#include "enum_names.h"
#include "export.h"
#include "model/image_tokens.h"
#include "model/presets.h"
#include "inference/runtime.h"
#include "scenario_json.h"
#include "training/training.h"

namespace vl::cli {

namespace {

using Json = nlohmann::ordered_json;

// Scenario fields the script cannot reproduce, each with the reason (all reported at once).
struct Refusals {
    std::vector<FieldError> errs;
    void operator()(std::string field, std::string why) { errs.push_back({std::move(field), std::move(why)}); }
};

bool training(const Scenario& s) { return s.mode != Mode::Infer; }

// Attention-probability dropout as the estimate takes it (< 0: same as train.dropout).
double attention_dropout(const TrainingOptions& t) { return t.attention_dropout < 0 ? t.dropout : t.attention_dropout; }

// The sizes every transformers config names the same way (GPT-NeoX and the Llama family).
void sizes(Json& c, const ModelSpec& m) {
    c["hidden_size"] = m.hidden;
    c["num_hidden_layers"] = m.layers;
    c["num_attention_heads"] = m.heads;
    c["max_position_embeddings"] = m.max_position;
    c["tie_word_embeddings"] = m.tied_embeddings;
}

// A BERT encoder written back as BertConfig, with the head the scenario trains: num_labels > 0 is
// BertForSequenceClassification, mlm_head BertForMaskedLM, neither the base BertModel (its pooled output) [transformers-code].
// Other encoders (RoBERTa's offset positions, XLM-RoBERTa) are built from their preset's own config.json.
Json encoder_config(const Scenario& s, Refusals& no) {
    const ModelSpec& m = s.model;
    Json c = Json::object();
    if (m.model_type != "bert") {
        no("model.model_type", "encoders other than bert (" + m.model_type + ") are built from a preset's own config.json: "
                               "use the preset unchanged");
        return c;
    }
    if (m.kv_heads != m.heads) no("model.kv_heads", "BERT has kv_heads == heads");
    if (m.position != PositionKind::Learned || m.position_offset != 0) no("model.position", "BERT has learned positions without an offset");
    if (m.num_labels > 0 && m.mlm_head) no("model.mlm_head", "one task head: num_labels (sequence classification) or mlm_head");
    const double drop = training(s) ? s.train.dropout : 0.0;
    c["model_type"] = "bert";
    c["vocab_size"] = m.vocab;
    c["intermediate_size"] = m.ffn;
    sizes(c, m);
    c["type_vocab_size"] = m.type_vocab;
    c["hidden_act"] = "gelu";
    // BertConfig: hidden_dropout_prob after the embeddings, attention output and MLP (and before the classifier),
    // attention_probs_dropout_prob on the attention probabilities.
    c["hidden_dropout_prob"] = drop;
    c["attention_probs_dropout_prob"] = training(s) ? attention_dropout(s.train) : 0.0;
    if (m.num_labels > 0) c["num_labels"] = m.num_labels;
    return c;
}

// config.json for the model (transformers builds it with random weights). Dropout is the scenario's
// in training (transformers' own defaults, e.g. GPT-2's 0.1, would add masks the estimate has not).
Json hf_config(const Scenario& s, Refusals& no) {
    const ModelSpec& m = s.model;
    Json c = Json::object();
    if (!m.architecture_known()) {
        no("model.params", "a model known only by its parameter count cannot be built; give its config");
        return c;
    }
    if (m.encoder) return encoder_config(s, no);
    if (m.seq2seq.active()) {
        no("model.model_type", "encoder-decoders (" + m.model_type + ") are built from a preset's own config.json: use a t5, "
                               "flan-t5, mt0 or bart preset unchanged");
        return c;
    }
    if (m.vision.active()) {  // the tower and projector too: only the checkpoint's own config builds them
        no("model.vision", "vision-language models (" + m.model_type + ") are built from a preset's own config.json: use the "
                           "preset unchanged");
        return c;
    }
    if (m.ssm.active()) {
        no("model.ssm", "the script builds GPT-2/Llama-family transformers; state-space models (" + m.model_type + ": Mamba layers) are not measured by it yet");
        return c;
    }
    // What neither a GPT-2 nor a Llama-family config can express (transformers would build another model).
    if (m.norms_per_layer != 2) no("model.norms_per_layer", "the generated GPT-2/Llama-family models have 2 norms per layer; got " + std::to_string(m.norms_per_layer));
    if (!m.final_norm) no("model.final_norm", "the generated models always have a final norm");
    if (m.embed_dim != 0) no("model.embed_dim", "an embedding narrower than hidden (OPT-350m) is not generated");
    if (m.lm_head_bias) no("model.lm_head_bias", "an output layer with a bias is not generated");
    if (m.embedding_norm) no("model.embedding_norm", "a norm after the embedding (BLOOM) is not generated");
    if (m.position_offset != 0) no("model.position_offset", "extra position rows (OPT) are not generated");
    if (m.sliding_window_pattern != 0) no("model.sliding_window_pattern", "interleaved sliding-window layers (Gemma 2/3) are not generated");
    const double drop = training(s) ? s.train.dropout : 0.0;
    const double attn_drop = training(s) ? attention_dropout(s.train) : 0.0;
    c["vocab_size"] = m.vocab;
    if (!m.gated_mlp && m.norm == NormKind::LayerNorm && m.position == PositionKind::Learned && m.moe.num_experts == 0) {
        if (m.kv_heads != m.heads) no("model.kv_heads", "GPT-2 style models have kv_heads == heads");
        if (!m.qkv_bias || !m.attn_out_bias || !m.mlp_bias)
            no(!m.qkv_bias ? "model.qkv_bias" : !m.attn_out_bias ? "model.attn_out_bias" : "model.mlp_bias",
               "GPT-2 style models have a bias on every linear layer");
        if (m.parallel_attn_mlp) no("model.parallel_attn_mlp", "GPT-2 style models run attention and MLP in sequence");
        c["model_type"] = "gpt2";
        c["n_embd"] = m.hidden;
        c["n_layer"] = m.layers;
        c["n_head"] = m.heads;
        c["n_inner"] = m.ffn;
        c["activation_function"] = m.activation == MlpActivation::GeluNew ? "gelu_new" : "gelu";
        c["n_positions"] = m.max_position;
        c["tie_word_embeddings"] = m.tied_embeddings;
        // GPT2Config: resid_pdrop after attention and MLP, embd_pdrop after the embedding, attn_pdrop
        // on the attention probabilities: the masks the estimate counts for train.dropout and
        // train.attention_dropout.
        c["resid_pdrop"] = drop;
        c["embd_pdrop"] = drop;
        c["attn_pdrop"] = attn_drop;
        return c;
    }
    if (!m.gated_mlp && m.norm == NormKind::LayerNorm && m.position == PositionKind::Rotary && m.parallel_attn_mlp &&
        m.moe.num_experts == 0) {
        // GPT-NeoX / Pythia: attention and MLP read the same input through their own LayerNorms
        // (use_parallel_residual), biases on every linear layer, rotary on part of each head.
        if (m.kv_heads != m.heads) no("model.kv_heads", "GPT-NeoX models have kv_heads == heads");
        if (!m.qkv_bias || !m.attn_out_bias || !m.mlp_bias) no("model.qkv_bias", "GPT-NeoX models have a bias on every linear layer");
        c["model_type"] = "gpt_neox";
        c["intermediate_size"] = m.ffn;
        sizes(c, m);
        c["use_parallel_residual"] = true;
        c["hidden_act"] = m.activation == MlpActivation::GeluNew ? "gelu_new" : "gelu";
        c["hidden_dropout"] = drop;
        c["attention_dropout"] = attn_drop;
        return c;
    }
    if (!m.gated_mlp || m.norm != NormKind::RMSNorm || m.position != PositionKind::Rotary || m.parallel_attn_mlp) {
        no("model", "only Llama-style (gated MLP, RMSNorm, rotary), GPT-NeoX-style and GPT-2-style models are generated");
        return c;
    }
    if (m.activation != MlpActivation::Fused) no("model.activation", "the generated Llama-family models use SiLU");
    if (drop > 0)
        no("train.dropout", "transformers' Llama-family models have no dropout on hidden states (only attention_dropout), "
                            "so the masks the estimate counts would not exist; set train.dropout to 0 (train.attention_dropout "
                            "is reproduced)");
    if (m.attention == AttentionKind::MLA) {
        // DeepSeek-V2/V3 multi-head latent attention, native in transformers >= 5 (no remote code):
        // deepseek_v3 when the router has the e_score_correction bias, else deepseek_v2.
        c["model_type"] = m.moe.router_bias ? "deepseek_v3" : "deepseek_v2";
        c["intermediate_size"] = m.ffn;
        c["q_lora_rank"] = m.mla.q_lora_rank > 0 ? Json(m.mla.q_lora_rank) : Json(nullptr);
        c["kv_lora_rank"] = m.mla.kv_lora_rank;
        c["qk_rope_head_dim"] = m.mla.qk_rope_head_dim;
        c["qk_nope_head_dim"] = m.mla.qk_nope_head_dim;
        c["v_head_dim"] = m.mla.v_head_dim;
        c["n_routed_experts"] = m.moe.num_experts;
        c["n_shared_experts"] = m.moe.shared_experts;
        c["num_experts_per_tok"] = m.moe.top_k;
        c["moe_intermediate_size"] = m.moe.expert_ffn;
        c["first_k_dense_replace"] = m.moe.first_dense_layers;
        c["moe_layer_freq"] = m.moe.moe_layer_freq;
        c["n_group"] = 1;
        c["topk_group"] = 1;
        if (m.moe.shared_expert_ffn > 0 || m.moe.shared_expert_gate)
            no("model.moe", "DeepSeek models size the shared experts as n_shared_experts * expert_ffn, without a gate");
    } else if (m.moe.num_experts > 0) {
        if (m.moe.first_dense_layers > 0 || m.moe.moe_layer_freq != 1)
            no("model.moe", "only MoE models with every layer MoE are generated (Mixtral, Qwen-MoE)");
        if (m.moe.shared_experts > 0 || m.moe.shared_expert_ffn > 0) {
            if (!m.moe.shared_expert_gate || !m.qkv_bias)
                no("model.moe", "shared experts are generated as Qwen2-MoE's (one gated shared expert, q/k/v biases)");
            c["model_type"] = "qwen2_moe";
            c["shared_expert_intermediate_size"] =
                m.moe.shared_expert_ffn > 0 ? m.moe.shared_expert_ffn : m.moe.shared_experts * m.moe.expert_ffn;
        } else {
            c["model_type"] = m.qk_norm ? "qwen3_moe" : "mixtral";
        }
        c["num_local_experts"] = m.moe.num_experts;  // mixtral
        c["num_experts"] = m.moe.num_experts;        // qwen2_moe, qwen3_moe
        c["num_experts_per_tok"] = m.moe.top_k;
        c["moe_intermediate_size"] = m.moe.expert_ffn;
        c["intermediate_size"] = m.moe.expert_ffn;   // mixtral's expert width (the Qwen MoE models have no dense layer)
        c["decoder_sparse_step"] = 1;
        c["mlp_only_layers"] = Json::array();
    } else if (m.qk_norm) {
        c["model_type"] = "qwen3";
        c["intermediate_size"] = m.ffn;
        c["attention_bias"] = m.qkv_bias;
    } else if (m.qkv_bias && !m.attn_out_bias) {
        c["model_type"] = "qwen2";
        c["intermediate_size"] = m.ffn;
    } else if (m.sliding_window > 0) {
        c["model_type"] = "mistral";
        c["intermediate_size"] = m.ffn;
    } else {
        c["model_type"] = "llama";
        c["intermediate_size"] = m.ffn;
        c["attention_bias"] = m.qkv_bias;
        c["mlp_bias"] = m.mlp_bias;
    }
    sizes(c, m);
    c["num_key_value_heads"] = m.kv_heads;
    // MLA configs derive head_dim from qk_rope_head_dim (the rotary width): not written for them.
    if (m.attention != AttentionKind::MLA) c["head_dim"] = m.head_dim;
    if (m.sliding_window > 0) c["sliding_window"] = m.sliding_window;
    c["attention_dropout"] = attn_drop;  // dropout on the attention probabilities (eager and SDPA)
    return c;
}

// The checkpoint's own config.json, when the scenario's model is a preset left unchanged: transformers then
// builds exactly the checkpoint's architecture (Gemma 2/3 sandwich norms and window patterns, Phi-3's fused
// projections, Mamba, Mamba2 and hybrid layers, Gated DeltaNet), which a config written back from the ModelSpec
// cannot express. A vision-language config is built from its text_config when the preset is the language model
// alone. Dropout is set to 0 (the script's runs have none; a scenario with dropout is refused), the quantization
// config is dropped (the weights' dtype is the scenario's), and remote code is refused.
Json preset_config(const Scenario& s, Refusals& no) {
    const ModelPreset* preset = nullptr;
    for (const ModelPreset& p : model_presets()) {
        ModelSpec named = s.model;  // the architecture decides; a renamed preset is still that checkpoint
        named.name = p.spec.name;
        named.family = p.spec.family;
        named.source = p.spec.source;
        if (named == p.spec) { preset = &p; break; }
    }
    if (!preset) return nullptr;
    const Json all = Json::parse(assets::find("models.json"), nullptr, false);
    Json cfg = nullptr;
    if (all.is_object() && all.contains("models"))
        for (const Json& m : all["models"])
            if (m.value("id", "") == preset->id && m.contains("config")) cfg = m["config"];
    if (!cfg.is_object()) return nullptr;
    if (s.model.vision.active()) {
        // generate() with images: the whole model (tower, projector, language model) from the preset's config.
        const bool built = s.model.vision.qwen() || (s.model.vision.kind == VisionKind::Clip && !s.model.vision.anyres());
        if (!built || s.mode != Mode::Infer || s.infer.images == 0) {
            no("model.vision", "vision-language models (" + preset->id + ") are generated for inference with images "
                               "(infer.images > 0) on LLaVA-1.5, Qwen2-VL and Qwen2.5-VL; not for training or text alone");
            return nullptr;
        }
    } else if (cfg.contains("text_config")) {
        cfg = Json(cfg["text_config"]);  // the preset is the language model alone
    }
    if (cfg.contains("auto_map")) {
        no("model", preset->id + "'s config needs remote code (auto_map); not generated");
        return nullptr;
    }
    if (!cfg.contains("model_type")) return nullptr;
    if (training(s) && (s.train.dropout > 0 || attention_dropout(s.train) > 0))
        no("train.dropout", "the checkpoint's own config is built with every dropout at 0; set train.dropout and "
                            "train.attention_dropout to 0");
    cfg.erase("quantization_config");
    for (auto& [key, value] : cfg.items())
        if (value.is_number_float() && (key.find("dropout") != std::string::npos || key.find("pdrop") != std::string::npos))
            value = 0.0;
    return cfg;
}

// PEFT LoraConfig for a LoRA scenario: target modules by their transformers names, rank, dropout,
// modules_to_save, and whether PEFT upcasts the adapters to fp32 (autocast_adapter_dtype) [peft-code].
Json lora_plan(const Scenario& s, Refusals& no) {
    const ModelSpec& m = s.model;
    const FineTuneOptions& ft = s.finetune;
    Json l = Json::object();
    const bool llama_family = m.gated_mlp && m.norm == NormKind::RMSNorm && m.attention == AttentionKind::Standard;
    if (!llama_family) {
        no("finetune.method", "LoRA is generated for Llama-family models only (GPT-2 and GPT-NeoX fuse q, k and v into one "
                              "module, MLA splits them differently: the adapters would not be the ones vramlens counts)");
        return l;
    }
    if (m.moe.num_experts > 0 && (ft.lora_targets & kLoraMlp))
        no("finetune.lora_targets", "transformers keeps an MoE's experts as fused 3-D parameters, not nn.Linear modules: "
                                    "target the attention projections only");
    static constexpr std::pair<unsigned, const char*> kNames[] = {
        {kLoraQ, "q_proj"}, {kLoraK, "k_proj"}, {kLoraV, "v_proj"}, {kLoraO, "o_proj"},
        {kLoraGate, "gate_proj"}, {kLoraUp, "up_proj"}, {kLoraDown, "down_proj"}};
    Json targets = Json::array();
    for (const auto& [bit, name] : kNames)
        if (ft.lora_targets & bit) targets.push_back(name);
    Json saved = Json::array();
    if (ft.save_embedding) saved.push_back("embed_tokens");
    if (ft.save_lm_head) saved.push_back("lm_head");
    l["r"] = ft.lora_rank;
    l["targets"] = targets;
    l["dropout"] = ft.lora_dropout;
    l["modules_to_save"] = saved;
    l["fp32_adapters"] = ft.adapters_fp32;
    return l;
}

const char* dtype_name(WeightFormat f) {
    return f == WeightFormat::BF16 ? "bf16" : f == WeightFormat::FP16 ? "fp16" : f == WeightFormat::FP32 ? "fp32" : nullptr;
}

// The images generate() is given, as the processor would make them: their pixel tensors and the token ids that mark their
// places in the prompt, infer.images per sequence of image_grid's tokens each (image_tokens.h). LLaVA-1.5: pixel_values
// [images, 3, S, S] and image_token_index (LlavaConfig default 32000) repeated per token; Qwen2-VL / 2.5-VL: pixel_values
// [patches, channels x temporal_patch x patch^2] with image_grid_thw [1, h/14, w/14] per image, each image's tokens
// between vision_start and vision_end (Qwen2VLConfig defaults 151652, 151655, 151653) [transformers-code].
Json vlm_plan(const Scenario& s) {
    const VisionSpec& v = s.model.vision;
    const ImageGrid g = image_grid(v, s.infer.image_width, s.infer.image_height);
    Json j = Json::object();
    j["images"] = s.infer.images;
    j["tokens"] = g.tokens;
    if (v.qwen()) {
        j["kind"] = "qwen";
        j["grid_h"] = g.height / v.patch;
        j["grid_w"] = g.width / v.patch;
        j["patch_dim"] = v.channels * v.temporal_patch * v.patch * v.patch;
        j["image_token_id"] = 151655;
        j["prefix"] = Json::array({151652});  // <|vision_start|>
        j["suffix"] = Json::array({151653});  // <|vision_end|>
        j["text_vocab"] = 151643;              // ids below Qwen2's special tokens
    } else {
        j["kind"] = "llava";
        j["size"] = v.image_size;
        j["image_token_id"] = 32000;
        j["prefix"] = Json::array();
        j["suffix"] = Json::array();
        j["text_vocab"] = 32000;  // Llama-2's vocabulary below the added <image> and <pad>
    }
    return j;
}

// What the script runs; what it cannot run like for like on one GPU is refused.
Json plan(const Scenario& s, Refusals& no) {
    const Parallelism& p = s.parallel;
    if (p.dp * p.tp * p.pp * p.cp * p.ep != 1 || s.gpu_count != 1)
        no("parallel", "the verify script runs on one GPU; set dp, tp, pp, cp, ep and gpu_count to 1");
    if (p.zero != 0 || p.offload_optimizer || p.offload_params) no("parallel.zero", "ZeRO/offload needs DeepSpeed; not generated");
    Json j = Json::object();
    j["mode"] = enum_name(s.mode);
    const ModelSpec& m = s.model;
    // The transformers class the script builds (its Auto* factory) and the step it runs.
    const char* task = m.seq2seq.active() ? "seq2seq"
                       : m.vision.active() ? "image-text"
                       : !m.encoder ? "causal-lm"
                       : m.mlm_head ? "masked-lm"
                       : m.num_labels > 0 ? "seq-cls"
                                          : "base";
    j["task"] = task;
    j["vocab"] = m.vocab;
    if (s.model.ssm.active()) j["ssm"] = true;  // state-space or linear-attention layers: the script notes their kernels
    if (s.mode == Mode::Infer) {
        const InferenceOptions& o = s.infer;
        const char* dtype = dtype_name(o.weights);
        if (!dtype) no("infer.weights", "quantized weights need bitsandbytes/GPTQ/GGUF runtimes; not generated");
        if (o.engine != Engine::Transformers) no("infer.engine", "only the transformers engine is generated");
        if (o.autocast != InferAutocast::Off)
            no("infer.autocast", "the script runs generate in the weights' own dtype, without torch.autocast; set infer.autocast to off");
        // transformers' DynamicCache stores K and V in the dtype the model computes in: its weights'.
        const char* kv = o.kv_dtype == KvDtype::BF16 ? "bf16" : o.kv_dtype == KvDtype::FP16 ? "fp16" : nullptr;
        if (!kv)
            no("infer.kv_dtype", std::string("an ") + enum_name(o.kv_dtype) +
                                     " KV cache needs a quantized cache backend (quanto, HQQ); not generated");
        else if (dtype && std::string(kv) != dtype)
            no("infer.kv_dtype", std::string("transformers keeps the KV cache in the weights' dtype (") + dtype +
                                     "), not " + kv + "; set infer.kv_dtype to " +
                                     (o.weights == WeightFormat::FP32 ? "a 16-bit type with 16-bit weights" : dtype));
        if (s.model.architecture_known() && s.model.position == PositionKind::Learned && o.context > s.model.max_position)
            no("infer.context", "a learned position table of " + std::to_string(s.model.max_position) +
                                    " rows cannot index " + std::to_string(o.context) + " positions; transformers would fail");
        if (m.encoder && o.engine == Engine::Transformers && o.prompt != 0 && o.prompt != o.context)
            no("infer.prompt", "an encoder runs one forward over the context: leave infer.prompt 0");
        const int64_t prompt = m.seq2seq.active() ? o.context : prompt_tokens(o);  // an encoder-decoder's source
        if (m.vision.active()) j["vlm"] = vlm_plan(s);
        j["dtype"] = dtype ? dtype : "";
        j["kv_dtype"] = dtype ? dtype : "";  // DynamicCache: the weights' dtype, checked equal to infer.kv_dtype
        j["batch"] = o.batch;
        j["prompt_tokens"] = prompt;
        // An encoder-decoder generates target_len tokens (0: as many as the source) [transformers-t5].
        j["new_tokens"] = m.seq2seq.active() ? (o.target_len > 0 ? o.target_len : o.context) : std::max<int64_t>(1, o.context - prompt);
        j["prefill_chunk"] = o.prefill_chunk;  // generate(prefill_chunk_size=...); 0: the whole prompt at once
        j["attn"] = o.flash_attention ? "sdpa" : "eager";
        return j;
    }
    const TrainingOptions& t = s.train;
    const bool lora = s.mode == Mode::FineTune && s.finetune.method == FineTuneMethod::LoRA;
    if (s.mode == Mode::FineTune && s.finetune.method == FineTuneMethod::QLoRA)
        no("finetune.method", "QLoRA needs bitsandbytes' 4-bit kernels; not generated (full fine-tuning and LoRA are)");
    if (t.compat != Compat::None)
        no("train.compat", std::string("\"") + enum_name(t.compat) + "\" reproduces that tool's published accounting, not the "
                           "tensors PyTorch allocates; set train.compat to none to compare with a measurement");
    if (t.activation_formula != ActivationFormula::TensorWalk)
        no("train.activation_formula", std::string("\"") + enum_name(t.activation_formula) + "\" is a published closed form, "
                                       "not the tensors transformers saves; set it to tensor-walk to compare with a measurement");
    const bool torch_optimizer = t.optimizer == Optimizer::AdamW || t.optimizer == Optimizer::SGD || t.optimizer == Optimizer::SGDMomentum;
    const char* optimizer = torch_optimizer ? enum_name(t.optimizer) : nullptr;  // the script's PLAN names them as the scenario does
    if (!optimizer) no("train.optimizer", "only adamw, sgd and sgd-momentum are generated");
    const bool bf16 = t.precision == Precision::MixedBF16 || t.precision == Precision::AutocastBF16;
    const bool fp16 = t.precision == Precision::MixedFP16 || t.precision == Precision::AutocastFP16;
    const bool pure_lora = lora && t.precision == Precision::PureBF16;  // a bf16 base without autocast
    const char* autocast = bf16 ? "bf16" : fp16 ? "fp16" : t.precision == Precision::FP32 || pure_lora ? "" : nullptr;
    if (!autocast)
        no("train.precision", lora ? "LoRA is generated for fp32, bf16-pure, fp16-mixed, bf16-mixed, fp16-autocast and bf16-autocast"
                                   : "only fp32, fp16-mixed, bf16-mixed, fp16-autocast and bf16-autocast are generated");
    if (t.optimizer_state_dtype == StateDtype::BF16) no("train.optimizer_state_dtype", "the script keeps torch.optim's fp32 states");
    if (t.fp32_grad_accum) no("train.fp32_grad_accum", "the script has no separate fp32 accumulation buffer (its gradients are fp32 already)");
    if (t.fp32_grad_copy) no("train.fp32_grad_copy", "the script makes no extra fp32 copy of the gradients");
    if (t.extra_fp32_weight_copy) no("train.extra_fp32_weight_copy", "the script keeps no second fp32 weight copy");
    if (t.recompute != Recompute::None && t.recompute != Recompute::Full)
        no("train.recompute", "only none and full (gradient checkpointing) are generated");
    if (t.offload_checkpoints)
        no("train.offload_checkpoints", "the script runs transformers' own gradient checkpointing, which keeps the checkpoints on the GPU");
    j["autocast"] = autocast ? autocast : "";  // fp32 weights, grads and states; compute in the 16-bit type (torch.autocast)
    // Full training keeps fp32 weights (autocast computes in 16 bits); LoRA's frozen base is loaded in
    // the regime's weight dtype (bf16/fp16 for the mixed and pure regimes), as the estimate counts it.
    const bool base16 = lora && (t.precision == Precision::MixedBF16 || t.precision == Precision::MixedFP16 || pure_lora);
    j["dtype"] = !base16 ? "fp32" : t.precision == Precision::MixedFP16 ? "fp16" : "bf16";
    if (lora) j["lora"] = lora_plan(s, no);
    j["optimizer"] = optimizer ? optimizer : "";
    // torch.optim.AdamW's implementation as the estimate resolves train.optimizer_impl (the foreach step's state-sized
    // temporary, or none when fused) [pytorch-adam-code].
    if (t.optimizer == Optimizer::AdamW) j["optimizer_impl"] = enum_name(optimizer_impl(s));
    j["micro_batch"] = t.micro_batch;
    j["seq_len"] = t.seq_len;
    j["grad_accum_steps"] = t.grad_accum_steps;
    j["gradient_checkpointing"] = t.recompute == Recompute::Full;
    j["fp32_logits"] = t.fp32_logits;  // true: transformers' loss upcasts the logits; false: loss on the 16-bit logits
    if (std::string(task) != "causal-lm" && !t.fp32_logits)
        no("train.fp32_logits", std::string("the script takes the loss of the ") + task + " model from transformers' own head; "
                                "set train.fp32_logits to true");
    if (m.seq2seq.active()) j["target_len"] = t.target_len > 0 ? t.target_len : t.seq_len;  // the decoder's labels
    j["attn"] = t.flash_attention ? "sdpa" : "eager";
    return j;
}

// The Python program; %-free, placeholders filled below. Its --dry-run path and its checks of the
// machine (machine_problem) and of the outcome (report) run without torch.
constexpr const char* kProgram = R"PY(
GIB = 1024 ** 3
EXIT_CANNOT_RUN = 2   # usage, or torch / transformers / a CUDA GPU missing: nothing was run
EXIT_TOO_SMALL = 3    # by the estimate this machine cannot hold the scenario: nothing was run
EXIT_DID_NOT_FIT = 4  # the run ran out of GPU memory: measured, "did not fit"


def needs():
    gpus = ESTIMATE["gpus"]
    return "%d GPU%s with %.2f GiB each (weights %.2f GiB)" % (
        gpus, "" if gpus == 1 else "s", ESTIMATE["total_bytes"] / GIB, ESTIMATE["weight_bytes"] / GIB)


def dry_run():
    cfg = HF_CONFIG
    print("vramlens verify script: dry run (no GPU used)")
    text = cfg.get("text_config", cfg)  # a vision-language model: its language model's sizes
    print("model: %s, %s layers, hidden %s" % (cfg["model_type"], text.get("num_hidden_layers", text.get("n_layer", text.get("num_layers"))),
                                               text.get("hidden_size", text.get("n_embd", text.get("d_model")))))
    print("plan: " + json.dumps(PLAN, sort_keys=True))
    print("vramlens estimate: peak %.2f GiB in %s; without overheads (comparable to max_memory_allocated) %.2f GiB"
          % (ESTIMATE["total_bytes"] / GIB, ESTIMATE["peak_phase"], ESTIMATE["allocated_bytes"] / GIB))
    print("needs: " + needs())
    return 0


def machine_problem(visible, name, total, free):
    """Why this machine cannot run the scenario, or None. visible: CUDA devices torch sees; name,
    total, free: the first one's name and memory in bytes."""
    have = "this machine has %d visible GPU%s" % (visible, "" if visible == 1 else "s")
    if visible:
        have += " (%s: %.2f GiB, %.2f GiB free)" % (name, total / GIB, free / GIB)
    if visible < ESTIMATE["gpus"]:
        why = "too few GPUs"
    elif ESTIMATE["weight_bytes"] > total:
        why = "the weights alone do not fit in its memory"
    elif ESTIMATE["total_bytes"] > total:
        why = "the estimated peak does not fit in its memory"
    else:
        return None
    return "this scenario needs %s; %s: %s" % (needs(), have, why)


def report(outcome, where, device, allocated, reserved, used, used_before, notes, allocator=None):
    """Prints the measurement beside the estimate; returns the exit status."""
    print("device: %s" % device)
    if outcome != "measured":
        print("outcome: did not fit (CUDA out of memory while %s)" % where)
    print("%-52s %10s %10s" % ("", "measured", "vramlens"))
    print("%-52s %10.2f %10.2f" % ("peak allocated, GiB (no context, no reserve)", allocated / GIB, ESTIMATE["allocated_bytes"] / GIB))
    print("%-52s %10.2f %10.2f" % ("peak reserved, GiB", reserved / GIB, ESTIMATE["reserved_bytes"] / GIB))
    print("%-52s %10.2f %10.2f" % ("GPU memory used, GiB (cudaMemGetInfo, whole GPU)", used / GIB, ESTIMATE["shown_bytes"] / GIB))
    print("used before the run (CUDA context, other processes): %.2f GiB" % (used_before / GIB))
    print("vramlens: %s on the scenario's %s (%.2f GiB usable)" % ("fits" if ESTIMATE["fits"] else "does not fit",
                                                          ESTIMATE["gpu"], ESTIMATE["gpu_bytes"] / GIB))
    for n in notes:
        print("note: " + n)
    print(json.dumps({"outcome": outcome, "where": where,
                      "measured": {"allocated": allocated, "reserved": reserved, "gpu_used": used, "gpu_used_before": used_before},
                      "allocator": allocator or {}, "notes": notes, "estimate": ESTIMATE, "scenario": SCENARIO}))
    return 0 if outcome == "measured" else EXIT_DID_NOT_FIT


def is_oom(torch, e):
    oom = getattr(torch.cuda, "OutOfMemoryError", None)
    text = str(e)  # older torch raises RuntimeError; cuBLAS reports a failed workspace allocation
    return (oom is not None and isinstance(e, oom)) or "out of memory" in text or "CUBLAS_STATUS_ALLOC_FAILED" in text


TASKS = {"causal-lm": "AutoModelForCausalLM", "masked-lm": "AutoModelForMaskedLM", "seq-cls": "AutoModelForSequenceClassification",
         "base": "AutoModel", "seq2seq": "AutoModelForSeq2SeqLM", "image-text": "AutoModelForImageTextToText"}


def vlm_inputs(torch, v, batch, text_tokens, dtype):
    """What a processor gives generate() for v["images"] images per sequence: the images' token ids (between the
    model's markers) before the text, and their pixels (random)."""
    n = v["images"]
    marks = len(v["prefix"]) + len(v["suffix"])  # Qwen's vision_start / vision_end: not counted as image tokens
    row = []
    for _ in range(n):
        row += v["prefix"] + [v["image_token_id"]] * v["tokens"] + v["suffix"]
    text = torch.randint(0, v["text_vocab"], (batch, max(1, text_tokens - n * marks)), device="cuda")
    ids = torch.cat([torch.tensor(row, device="cuda").expand(batch, -1), text], dim=1)
    if v["kind"] == "qwen":
        patches = v["grid_h"] * v["grid_w"]
        return {"input_ids": ids, "pixel_values": torch.randn(batch * n * patches, v["patch_dim"], device="cuda", dtype=dtype),
                "image_grid_thw": torch.tensor([[1, v["grid_h"], v["grid_w"]]] * (batch * n), device="cuda")}
    return {"input_ids": ids, "pixel_values": torch.randn(batch * n, 3, v["size"], v["size"], device="cuda", dtype=dtype)}


def step(torch, transformers, where, notes):
    """Builds the model on the GPU and runs the scenario's step; where[0] says what is running."""
    dtypes = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32, "": torch.float32}
    config = transformers.AutoConfig.for_model(**HF_CONFIG)
    infer = PLAN["mode"] == "infer"
    task = PLAN.get("task", "causal-lm")
    auto = getattr(transformers, TASKS[task])
    weight_dtype = dtypes[PLAN.get("dtype", "fp32")]
    # transformers 5 names the argument dtype (torch_dtype is deprecated there)
    major = transformers.__version__.split(".")[0]
    dtype_arg = "dtype" if major.isdigit() and int(major) >= 5 else "torch_dtype"
    try:
        with torch.device("cuda"):  # built on the GPU: no host copy of the whole model
            model = auto.from_config(config, attn_implementation=PLAN["attn"], **{dtype_arg: weight_dtype})
    except ValueError as e:  # a model without attention layers (Mamba) may refuse an attention implementation
        if "attn" not in str(e) and "attention" not in str(e):
            raise
        notes.append("transformers refused attn_implementation=%s (%s): built with eager" % (PLAN["attn"], str(e)[:200]))
        with torch.device("cuda"):  # eager: the implementation every model has (the refused one is left set in config)
            model = auto.from_config(config, attn_implementation="eager", **{dtype_arg: weight_dtype})
    # State-space and linear-attention layers run fused kernels only when these packages are installed;
    # without them transformers runs its naive torch code, whose working memory differs.
    import importlib.util
    missing = [k for k in ("mamba_ssm", "causal_conv1d", "fla") if importlib.util.find_spec(k) is None]
    if PLAN.get("ssm") and missing:
        notes.append("not installed (optional kernels of state-space and linear-attention layers): " + ", ".join(missing))
    built = sum(p.numel() for p in model.parameters())
    if built != ESTIMATE["params"]:
        notes.append("transformers built %d parameters, vramlens counted %d: not like for like" % (built, ESTIMATE["params"]))
    lora = PLAN.get("lora")
    if lora:
        import peft
        if PLAN["gradient_checkpointing"]:
            model.gradient_checkpointing_enable()
            model.enable_input_require_grads()  # as peft's prepare_model_for_kbit_training and Trainer do
        cfg = peft.LoraConfig(r=lora["r"], lora_alpha=2 * lora["r"], target_modules=lora["targets"], lora_dropout=lora["dropout"],
                              modules_to_save=lora["modules_to_save"] or None, bias="none", task_type="CAUSAL_LM")
        model = peft.get_peft_model(model, cfg, autocast_adapter_dtype=lora["fp32_adapters"])
    vocab = PLAN.get("vocab") or HF_CONFIG["vocab_size"]
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    if infer:
        where[0] = "generating"
        model.eval()
        ids = torch.randint(0, vocab, (PLAN["batch"], PLAN["prompt_tokens"]), device="cuda")
        if task in ("base", "masked-lm", "seq-cls"):  # an encoder: one forward over the batch, no cache
            where[0] = "encoding"
            with torch.no_grad():
                model(input_ids=ids, attention_mask=torch.ones_like(ids))
            return
        extra = vlm_inputs(torch, PLAN["vlm"], PLAN["batch"], PLAN["prompt_tokens"], weight_dtype) if task == "image-text" else {}
        if extra:
            ids = extra.pop("input_ids")
        kwargs = {"attention_mask": torch.ones_like(ids), "max_new_tokens": PLAN["new_tokens"],
                  "min_new_tokens": PLAN["new_tokens"], "do_sample": False, "pad_token_id": 0}
        kwargs.update(extra)
        if PLAN["prefill_chunk"] > 0:
            kwargs["prefill_chunk_size"] = PLAN["prefill_chunk"]
        with torch.no_grad():  # the KV cache (DynamicCache) takes the weights' dtype: PLAN["kv_dtype"]
            model.generate(ids, **kwargs)
        return
    where[0] = "training"
    model.train()
    if PLAN["gradient_checkpointing"] and not lora:
        model.gradient_checkpointing_enable()
    trainable = [p for p in model.parameters() if p.requires_grad]  # LoRA: the adapters (and modules_to_save)
    if PLAN["optimizer"] == "adamw":  # the implementation the estimate counts: foreach, fused or for-loop
        impl = PLAN.get("optimizer_impl", "foreach")
        opt = torch.optim.AdamW(trainable, lr=1e-5, **({"fused": True} if impl == "fused" else {"foreach": impl == "foreach"}))
    else:
        opt = torch.optim.SGD(trainable, lr=1e-5, momentum=0.9 if PLAN["optimizer"] == "sgd-momentum" else 0.0)
    ids = torch.randint(0, vocab, (PLAN["micro_batch"], PLAN["seq_len"]), device="cuda")
    if task == "seq2seq":  # the decoder's labels: target_len tokens (transformers shifts them right for its inputs)
        labels = torch.randint(0, vocab, (PLAN["micro_batch"], PLAN["target_len"]), device="cuda")
    elif task == "seq-cls":
        labels = torch.randint(0, model.config.num_labels, (PLAN["micro_batch"],), device="cuda")
    else:
        labels = ids  # causal LM: shifted inside the loss; masked LM: every position a target
    f = torch.nn.functional
    for _ in range(2):  # the second step runs with the optimizer states allocated
        for _ in range(PLAN["grad_accum_steps"]):
            with torch.autocast("cuda", dtype=dtypes[PLAN["autocast"]], enabled=PLAN["autocast"] != ""):
                if PLAN["fp32_logits"]:
                    loss = model(input_ids=ids, labels=labels).loss  # transformers' heads' loss (causal LM: logits upcast to fp32)
                else:
                    logits = model(input_ids=ids).logits
            if not PLAN["fp32_logits"]:
                upcast = "this transformers version returns fp32 logits: train.fp32_logits false is not reproduced"
                if PLAN["autocast"] and logits.dtype == torch.float32 and upcast not in notes:
                    notes.append(upcast)
                # the loss on the logits as they are, outside autocast (which would compute it in fp32)
                labels = f.pad(ids, (0, 1), value=-100)[:, 1:]
                loss = f.cross_entropy(logits.view(-1, logits.size(-1)), labels.reshape(-1), ignore_index=-100)
                del logits
            (loss / PLAN["grad_accum_steps"]).backward()
            del loss
        opt.step()
        opt.zero_grad(set_to_none=True)


def run(force):
    if SCENARIO.get("overheads", {}).get("expandable_segments"):
        # overheads.expandable_segments: PyTorch reads the setting when it first allocates on the GPU.
        os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"
    try:
        import torch
        import transformers
    except ImportError as e:
        print("needs torch and transformers (%s); `--dry-run` works without them" % e, file=sys.stderr)
        return EXIT_CANNOT_RUN
    if not torch.cuda.is_available():
        print("no CUDA GPU visible; `--dry-run` works without one", file=sys.stderr)
        return EXIT_CANNOT_RUN
    # cudaMemGetInfo of the device torch uses: the right GPU under CUDA_VISIBLE_DEVICES, where
    # torch's index and nvidia-smi's differ.
    free, total = torch.cuda.mem_get_info()
    device = torch.cuda.get_device_name()
    problem = machine_problem(torch.cuda.device_count(), device, total, free)
    if problem and not force:
        print(problem + ". Not run; --force runs it anyway (running out of memory is then reported as \"did not fit\").",
              file=sys.stderr)
        return EXIT_TOO_SMALL
    if problem:
        print("warning: " + problem)
    elif ESTIMATE["total_bytes"] > free + ESTIMATE["context_bytes"]:
        print("warning: other processes use this GPU (%.2f GiB free): the run may run out of memory" % (free / GIB))
    if PLAN.get("lora"):
        try:
            import peft  # noqa: F401
        except ImportError as e:
            print("a LoRA scenario needs peft (%s)" % e, file=sys.stderr)
            return EXIT_CANNOT_RUN
    if PLAN["mode"] == "infer" and PLAN["prefill_chunk"] > 0 and not hasattr(transformers.GenerationConfig(), "prefill_chunk_size"):
        print("infer.prefill_chunk needs a transformers with generate(prefill_chunk_size=...); this is %s"
              % transformers.__version__, file=sys.stderr)
        return EXIT_CANNOT_RUN
    torch.manual_seed(0)
    where = ["building the model"]
    notes = []
    try:
        step(torch, transformers, where, notes)
        torch.cuda.synchronize()
        outcome = "measured"
    except Exception as e:
        if not is_oom(torch, e):
            raise
        outcome = "did not fit"
        oom_message = str(e).splitlines()[0][:400]  # names the request that failed ("Tried to allocate ...")
    allocated = torch.cuda.max_memory_allocated()
    reserved = torch.cuda.max_memory_reserved()
    free_after, total = torch.cuda.mem_get_info()
    # The caching allocator's own counters: retries after a failed cudaMalloc (cache flushed), the peak
    # of freed-but-split block bytes it could not hand out (fragmentation), and the memory a process can use.
    stats = torch.cuda.memory_stats()
    allocator = {k: stats.get(k, 0) for k in ("num_alloc_retries", "num_ooms", "inactive_split_bytes.all.peak",
                                              "active_bytes.all.peak", "segment.all.peak", "reserved_bytes.all.peak")}
    allocator["process_total_bytes"] = total
    if outcome != "measured":
        allocator["oom_message"] = oom_message
    return report(outcome, where[0], device, allocated, reserved, total - free_after, total - free, notes, allocator)


if __name__ == "__main__":
    args = sys.argv[1:]
    if any(a not in ("--dry-run", "--force") for a in args):
        print("usage: python3 %s [--dry-run] [--force]" % sys.argv[0], file=sys.stderr)
        sys.exit(EXIT_CANNOT_RUN)
    sys.exit(dry_run() if "--dry-run" in args else run("--force" in args))
)PY";

// A JSON value as a Python literal: json.loads of a raw string (the JSON text never holds """).
std::string py_json(const Json& j) {
    std::string text = j.dump(-1, ' ', true, Json::error_handler_t::replace);  // ASCII only
    return "json.loads(r\"\"\"" + text + "\"\"\")";
}

}  // namespace

Result<std::string> verify_script(const Scenario& s, const Estimate& e) {
    Refusals no;
    Refusals spec_no;  // what a config written back from the ModelSpec cannot express
    Json cfg = hf_config(s, spec_no);
    const bool architecture = std::any_of(spec_no.errs.begin(), spec_no.errs.end(),
                                          [](const FieldError& e) { return e.field.rfind("model", 0) == 0; });
    if (!architecture) {
        no.errs.insert(no.errs.end(), spec_no.errs.begin(), spec_no.errs.end());
    } else {
        const size_t refused = no.errs.size();
        cfg = preset_config(s, no);
        if (cfg.is_null()) {
            no.errs.insert(no.errs.end(), spec_no.errs.begin(), spec_no.errs.end());
            if (no.errs.size() == refused + spec_no.errs.size())  // no preset matched (a matched one says why it is refused)
                no("model", "other architectures are built from a preset's own config.json when the scenario's model is that "
                            "preset unchanged; this model is not one");
        }
    }
    const Json run = plan(s, no);
    if (!no.errs.empty()) return Result<std::string>::failure(std::move(no.errs));
    if (!e.ok()) return Result<std::string>::failure(e.errors);
    // What torch counts: max_memory_allocated excludes the CUDA context and the allocator reserve
    // (the Overhead category); max_memory_reserved includes the reserve but not the context.
    const double overhead = phase_totals(e.components, category_bit(Category::Overhead)).gpu[static_cast<size_t>(e.peak_phase)];
    double context = 0, weights = 0;
    for (const Component& c : e.components) {
        if (c.host) continue;
        if (c.category == Category::Weights) weights += c.bytes;
        if (c.category == Category::Overhead && (c.phases & phase_bit(e.peak_phase)) &&
            std::string(c.id).find("cuda_context") != std::string::npos)
            context += c.bytes;
    }
    Json est = Json::object();
    est["total_bytes"] = e.total_bytes;
    est["shown_bytes"] = e.shown_bytes;  // what a run with room shows (allocator_reserve.h): the used memory's figure
    est["allocated_bytes"] = e.total_bytes - overhead;
    est["reserved_bytes"] = e.total_bytes - context;
    est["context_bytes"] = context;
    est["weight_bytes"] = weights;
    est["peak_phase"] = phase_label(s.mode, e.peak_phase);
    est["params"] = e.params.total + e.params.vision + e.params.projector;  // what transformers builds: the tower too
    est["gpus"] = s.gpu_count;
    est["gpu"] = s.gpu.name;
    est["gpu_bytes"] = s.gpu.usable_bytes();  // what "fits" compares against: the memory CUDA reports, as the run's own total
    est["fits"] = e.fits();
    std::string out =
        "#!/usr/bin/env python3\n"
        "# vramlens verify script, generated by vramlens " VRAMLENS_VERSION ".\n"
        "# Builds the scenario's model from its config with random weights (no download), runs it on one\n"
        "# CUDA GPU, and prints the measured peak next to vramlens' estimate.\n"
        "#   python3 verify.py            run on the GPU (needs torch >= 2.1 and transformers)\n"
        "#   python3 verify.py --dry-run  check the plan without torch or a GPU\n"
        "#   python3 verify.py --force    run even when the estimate says this machine is too small\n"
        "# Exit status: 0 measured; 2 cannot run here (no torch, transformers or GPU); 3 this machine is\n"
        "# too small by the estimate (not run); 4 ran out of GPU memory (measured: did not fit).\n"
        "# Training runs fp32 weights, gradients and optimizer states with torch.autocast for the 16-bit\n"
        "# types: the same 16 bytes per parameter as mixed precision with AdamW, split differently.\n"
        "# LoRA loads the frozen base in the regime's weight dtype and wraps it with PEFT (needs peft).\n"
        "import json\n"
        "import os\n"
        "import sys\n"
        "\n"
        "SCENARIO = " + py_json(Json::parse(scenario_to_json(s, JsonStyle::Compact), nullptr, false)) + "\n"
        "HF_CONFIG = " + py_json(cfg) + "\n"
        "PLAN = " + py_json(run) + "\n"
        "ESTIMATE = " + py_json(est) + "\n" + kProgram;
    return Result<std::string>::success(std::move(out));
}

}  // namespace vl::cli
