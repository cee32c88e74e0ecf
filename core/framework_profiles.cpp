// The framework profile table (framework_profiles.h). Each setting is what the framework does when the user does
// not say otherwise, read in the source named beside it; where that depends on the version, the version is part of
// the profile (transformers v4 vs v5, generate() before and after 4.56) rather than a guess.
#include "framework_profiles.h"

#include <iterator>

#include "enum_names.h"
#include "scenario_json.h"
#include "text_format.h"

namespace vl {

namespace {

constexpr unsigned kTrain = mode_bit(Mode::Train), kFineTune = mode_bit(Mode::FineTune), kInfer = mode_bit(Mode::Infer);

// Trainer settings both transformers versions share.
#define VL_TRAINER_COMMON                                                                                                 \
    {"train.optimizer", "\"adamw\"", "[transformers-training-args] optim=\"adamw_torch\" (fused or not: Adam m and v)"}, \
    {"train.recompute", "\"none\"", "[transformers-training-args] gradient_checkpointing=False"},                          \
    {"train.flash_attention", "true", "[transformers-code] attn_implementation defaults to sdpa: no s x s scores kept"}, \
    {"train.loss", "\"hf-upcast\"", "[transformers-pr35646] ForCausalLMLoss without the shifted copy (4.49 and later)"}

constexpr ProfileSetting kTrainerV4[] = {
    {"train.precision", "\"bf16-autocast\"",
     "[transformers-pr42805] from_pretrained loads fp32 unless told (v4); [transformers-training-args] bf16=True runs autocast"},
    {"train.optimizer_impl", "\"foreach\"",
     "[transformers-pr37358] optim=\"adamw_torch\" (torch.optim.AdamW without fused=: foreach [pytorch-adam-code]) before 4.54 "
     "or with torch < 2.8"},
    VL_TRAINER_COMMON,
};

constexpr ProfileSetting kTrainerV5[] = {
    {"train.precision", "\"bf16-pure\"",
     "[transformers-pr42805] dtype=\"auto\" loads a bf16 checkpoint in bf16; autocast over bf16 weights, AdamW states in the "
     "parameters' dtype [pytorch-autocast-code]"},
    {"train.optimizer_impl", "\"fused\"", "[transformers-pr37358] optim defaults to \"adamw_torch_fused\" with torch >= 2.8"},
    VL_TRAINER_COMMON,
};
#undef VL_TRAINER_COMMON

constexpr ProfileSetting kPeftLora[] = {
    {"finetune.method", "\"lora\"", "[peft-lora-config] get_peft_model(model, LoraConfig())"},
    {"finetune.lora_rank", "8", "[peft-lora-config] r=8"},
    {"finetune.lora_targets", "[\"q_proj\", \"v_proj\"]", "[peft-lora-config] target_modules=None: the model type's defaults (llama: q_proj, v_proj)"},
    {"finetune.lora_dropout", "0", "[peft-lora-config] lora_dropout=0.0"},
    {"finetune.adapters_fp32", "true", "[peft-code] autocast_adapter_dtype=True keeps the adapters in fp32"},
    {"train.recompute", "\"none\"", "[transformers-training-args] gradient_checkpointing=False"},
};

constexpr ProfileSetting kQlora[] = {
    {"finetune.method", "\"qlora\"", "[qlora-code] bits=4, quant_type=\"nf4\""},
    {"finetune.double_quant", "true", "[qlora-code] double_quant=True"},
    {"finetune.paged_optimizer", "true", "[qlora-code] optim=\"paged_adamw_32bit\""},
    {"finetune.lora_rank", "64", "[qlora-code] lora_r=64"},
    {"finetune.lora_targets", "\"all-linear\"", "[qlora-code] find_all_linear_names: every Linear4bit but lm_head"},
    {"finetune.lora_dropout", "0", "[qlora-code] lora_dropout=0.0"},
    {"train.recompute", "\"full\"", "[qlora-code] gradient_checkpointing=True"},
    {"finetune.bnb_saves_inputs", "true", "[qlora-code] requirements.txt bitsandbytes==0.39.0: MatMul4Bit keeps each layer's input [bnb-pr1270]"},
};

// DeepSpeed's bf16 section, the same under every ZeRO stage.
#define VL_DEEPSPEED_BF16 \
    {"train.precision", "\"bf16-mixed\"", "[deepspeed-bf16-config] \"bf16\": {\"enabled\": true}: bf16 model, fp32 master weights and Adam states"}

constexpr ProfileSetting kDeepSpeed1[] = {VL_DEEPSPEED_BF16, {"parallel.zero", "1", "[deepspeed-memory] \"zero_optimization\": {\"stage\": 1}"}};
constexpr ProfileSetting kDeepSpeed2[] = {VL_DEEPSPEED_BF16, {"parallel.zero", "2", "[deepspeed-memory] \"zero_optimization\": {\"stage\": 2}"}};
constexpr ProfileSetting kDeepSpeed3[] = {VL_DEEPSPEED_BF16, {"parallel.zero", "3", "[deepspeed-memory] \"zero_optimization\": {\"stage\": 3}"}};
#undef VL_DEEPSPEED_BF16

constexpr ProfileSetting kMegatron[] = {
    {"train.precision", "\"bf16-mixed\"", "[megatron-arguments] --bf16: params_dtype bfloat16, fp32 main params in the optimizer"},
    {"train.fp32_grad_accum", "true", "[megatron-arguments] --bf16 sets accumulate_allreduce_grads_in_fp32 (fp32 main grads)"},
    {"parallel.zero", "0", "[megatron-arguments] --use-distributed-optimizer is off unless given"},
    {"train.recompute", "\"none\"", "[megatron-arguments] --recompute-granularity defaults to None"},
    {"train.loss", "\"megatron\"", "[megatron-cross-entropy-code] compute_language_model_loss: vocab_parallel_cross_entropy, fused or not"},
};

// FSDP2 over an fp32 model: sharded fp32 parameters (the master copy) and gradients, bf16 copies gathered per layer.
// Per parameter that is the 16 B of bf16-mixed, all of it sharded, and its gathers are 16-bit as bf16-mixed's are.
constexpr ProfileSetting kFsdp2[] = {
    {"train.precision", "\"bf16-mixed\"", "[pytorch-fsdp2] MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)"},
    {"parallel.zero", "3", "[pytorch-fsdp2] fully_shard: parameters, gradients and optimizer states sharded over the mesh"},
    {"parallel.fsdp_version", "2", "[pytorch-fsdp2] fully_shard is FSDP2: each parameter sharded on its own, each unit's gradients reduce-scattered from a buffer of their own"},
    {"train.optimizer_impl", "\"foreach\"", "[pytorch-adam-code] torch.optim.AdamW over the sharded parameters: foreach unless fused=True"},
};

#define VL_GENERATE_COMMON                                                                                  \
    {"infer.engine", "\"transformers\"", "[transformers-code] model.generate()"},                             \
    {"infer.logits_to_keep", "1", "[transformers-pr31292] generate() asks the prefill for the last position's logits only"}, \
    {"infer.flash_attention", "true", "[transformers-code] attn_implementation defaults to sdpa"}

constexpr ProfileSetting kGenerateV5[] = {
    VL_GENERATE_COMMON,
    {"infer.sliding_window_cache", "true", "[transformers-code] DynamicCache(config=...): sliding layers keep the window (4.56 and later)"},
    {"infer.mla_cache", "\"latent\"", "[transformers-code] native deepseek_v2/deepseek_v3 cache the compressed latent (v5)"},
};

constexpr ProfileSetting kGenerateV4[] = {
    VL_GENERATE_COMMON,
    {"infer.sliding_window_cache", "false", "[transformers-code] DynamicCache() without config: every layer keeps every token (before 4.56)"},
    {"infer.mla_cache", "\"decompressed\"", "[transformers-code] DeepSeek modelling files of v4 cache per-head K and V"},
};
#undef VL_GENERATE_COMMON

constexpr ProfileSetting kVllm[] = {
    {"infer.engine", "\"vllm\"", "[vllm-code] vllm serve"},
    {"infer.gpu_memory_utilization", "0.9", "[vllm-serve-flags] --gpu-memory-utilization 0.9"},
    {"infer.cuda_graphs", "true", "[vllm-serve-flags] --enforce-eager off: CUDA graphs captured"},
    {"infer.block_size", "16", "[vllm-serve-flags] --block-size 16"},
    {"infer.max_num_seqs", "0", "[vllm-budget] --max-num-seqs unset: vLLM's default (from 0.9: 1024 on a GPU of 70 GiB or more that is not an A100, else 256)"},
};

constexpr ProfileSetting kLlamaCppCuda[] = {
    {"infer.engine", "\"llama.cpp\"", "[llama-cpp-code] llama-server"},
    {"infer.llamacpp_backend", "\"cuda\"", "[llama-cpp-code] the CUDA backend (GGML_CUDA build)"},
    {"infer.ubatch", "512", "[llama-cpp-server-flags] -ub 512"},
    {"infer.flash_attention", "true", "[llama-cpp-fa-auto] -fa auto, on where the CUDA backend supports it"},
    {"infer.kv_dtype", "\"fp16\"", "[llama-cpp-server-flags] -ctk f16 -ctv f16"},
};

constexpr FrameworkProfile kProfiles[] = {
    {"transformers-trainer-v5", "Transformers Trainer, bf16=True", "transformers >= 5.0 (dtype=\"auto\"), torch >= 2.8", kTrain, kTrainerV5},
    {"transformers-trainer-v4", "Transformers Trainer, bf16=True, model loaded in fp32", "transformers 4.49 to 4.57", kTrain, kTrainerV4},
    {"peft-lora", "PEFT LoRA (LoraConfig defaults) with the Trainer", "peft 0.x, transformers >= 4.49", kFineTune, kPeftLora},
    {"peft-qlora", "PEFT + bitsandbytes QLoRA (the QLoRA reference script)", "artidoro/qlora qlora.py", kFineTune, kQlora},
    {"deepspeed-zero1", "DeepSpeed ZeRO-1, bf16", "DeepSpeed 0.x", kTrain | kFineTune, kDeepSpeed1},
    {"deepspeed-zero2", "DeepSpeed ZeRO-2, bf16", "DeepSpeed 0.x", kTrain | kFineTune, kDeepSpeed2},
    {"deepspeed-zero3", "DeepSpeed ZeRO-3, bf16", "DeepSpeed 0.x", kTrain | kFineTune, kDeepSpeed3},
    {"megatron-lm", "Megatron-LM, --bf16", "Megatron-LM core_r0.x", kTrain, kMegatron},
    {"fsdp2", "PyTorch FSDP2 fully_shard, bf16 MixedPrecisionPolicy", "PyTorch >= 2.4", kTrain | kFineTune, kFsdp2},
    {"transformers-generate-v5", "Transformers generate()", "transformers >= 5.0", kInfer, kGenerateV5},
    {"transformers-generate-v4", "Transformers generate(), before the sliding cache", "transformers < 4.56, since generate()'s logits_to_keep (PR #31292)", kInfer, kGenerateV4},
    {"vllm", "vLLM (vllm serve defaults)", "vLLM >= 0.6", kInfer, kVllm},
    {"llama-cpp-cuda", "llama.cpp (CUDA), -fa auto", "llama.cpp b6327 and later", kInfer, kLlamaCppCuda},
};

// A JSON value as the "sets" text shows it: strings without their quotes.
std::string value_text(const char* json) {
    std::string v = json;
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') return v.substr(1, v.size() - 2);
    return v;
}

}  // namespace

std::span<const FrameworkProfile> framework_profiles() { return kProfiles; }

const FrameworkProfile* find_profile(std::string_view id) {
    for (const FrameworkProfile& p : kProfiles)
        if (id == p.id) return &p;
    return nullptr;
}

const char* default_profile(Mode m) {
    switch (m) {
        case Mode::Train: return "transformers-trainer-v5";
        case Mode::FineTune: return "peft-lora";
        case Mode::Infer: return "transformers-generate-v5";
        case Mode::Local: break;
    }
    return "";
}

std::string profile_ids_text() {
    std::string out;
    const size_t n = std::size(kProfiles);
    for (size_t i = 0; i < n; ++i) out += (i == 0 ? "" : i + 1 == n ? " or " : ", ") + std::string(kProfiles[i].id);
    return out;
}

std::optional<FieldError> profile_error(std::string_view id, Mode mode) {
    if (id.empty()) return std::nullopt;
    const FrameworkProfile* p = find_profile(id);
    std::string quoted = "\"";
    quoted += id;
    quoted += '"';
    if (!p) return FieldError{"profile", vl::format("unknown profile {}: give one of {} (`vramlens profiles` lists them)", quoted, profile_ids_text())};
    if (p->modes & mode_bit(mode)) return std::nullopt;
    std::string modes;
    for (Mode m : {Mode::Train, Mode::FineTune, Mode::Infer})
        if (p->modes & mode_bit(m)) modes += (modes.empty() ? "" : " or ") + std::string(enum_name(m));
    return FieldError{"profile", vl::format("{} ({}) applies to mode {}, not to mode {}: change mode, or pick a profile of this mode "
                                            "(`vramlens profiles`)", quoted, p->label, modes, enum_name(mode))};
}

std::vector<FieldError> apply_profile(Scenario& s, std::string_view id) {
    if (auto e = profile_error(id, s.mode)) return {*e};
    std::vector<FieldError> errs;
    const FrameworkProfile* p = find_profile(id);
    if (p)
        for (const ProfileSetting& st : p->settings)
            for (FieldError& e : set_scenario_field(s, st.field, st.value)) errs.push_back(std::move(e));
    s.profile = p ? p->id : "";
    return errs;
}

std::string profile_sets_text(const FrameworkProfile& p) {
    std::string out;
    for (const ProfileSetting& st : p.settings) out += (out.empty() ? "" : ", ") + std::string(st.field) + " = " + value_text(st.value);
    return out;
}

bool profile_intact(const Scenario& s) {
    const FrameworkProfile* p = find_profile(s.profile);
    if (!p) return false;
    Scenario t = s;
    for (const ProfileSetting& st : p->settings) set_scenario_field(t, st.field, st.value);
    return scenario_to_json(t, JsonStyle::Compact) == scenario_to_json(s, JsonStyle::Compact);
}

std::string profile_text(const Scenario& s) {
    const FrameworkProfile* p = find_profile(s.profile);
    if (!p) return "";
    if (!profile_intact(s)) return std::string("custom (from ") + p->label + ")";
    return std::string("profile: ") + p->label + " (" + p->versions + "; sets: " + profile_sets_text(*p) + ")";
}

}  // namespace vl
