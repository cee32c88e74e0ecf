// Name tables for enum_names.h. Names are lower-case, hyphenated, and stable: they are part of the
// versioned scenario JSON format (docs/scenario-format.md); renaming one is a format change.
#include "enum_names.h"

#include <array>
#include <cstddef>
#include <iterator>

#include "inference/kv_cache.h"
#include "inference/weight_formats.h"
#include "training/optimizers.h"

namespace vl {

#define VL_ENUM_TABLE(E, ...)                                         \
    std::span<const EnumName<E>> enum_names(E) {                      \
        static constexpr EnumName<E> kNames[] = {__VA_ARGS__};        \
        return kNames;                                                \
    }

VL_ENUM_TABLE(Mode, {Mode::Train, "train"}, {Mode::FineTune, "finetune"}, {Mode::Infer, "infer"}, {Mode::Local, "local"})

VL_ENUM_TABLE(LocalEngine, {LocalEngine::LlamaCpp, "llama.cpp"}, {LocalEngine::Ollama, "ollama"}, {LocalEngine::VLLM, "vllm"},
              {LocalEngine::SGLang, "sglang"})

VL_ENUM_TABLE(SplitMode, {SplitMode::Layer, "layer"}, {SplitMode::Row, "row"}, {SplitMode::None, "none"})

VL_ENUM_TABLE(Precision,
              {Precision::FP32, "fp32"},
              {Precision::MixedFP16, "fp16-mixed"},
              {Precision::MixedBF16, "bf16-mixed"},
              {Precision::PureBF16, "bf16-pure"},
              {Precision::FP8, "fp8"},
              {Precision::AutocastFP16, "fp16-autocast"},
              {Precision::AutocastBF16, "bf16-autocast"},
              {Precision::FsdpBF16, "bf16-fsdp-mixed"})

// Optimizer names come from the optimizer table (training/optimizers.h), one row per optimizer.
std::span<const EnumName<Optimizer>> enum_names(Optimizer) {
    static constexpr auto kNames = [] {
        std::array<EnumName<Optimizer>, std::size(kOptimizers)> n{};
        for (size_t i = 0; i < n.size(); ++i) n[i] = {kOptimizers[i].id, kOptimizers[i].name};
        return n;
    }();
    return kNames;
}

VL_ENUM_TABLE(LossImpl, {LossImpl::Upcast, "hf-upcast"}, {LossImpl::UpcastShift, "hf-upcast-shift"}, {LossImpl::Fused, "fused"}, {LossImpl::Megatron, "megatron"})
VL_ENUM_TABLE(DsOverlap, {DsOverlap::Default, "default"}, {DsOverlap::On, "on"}, {DsOverlap::Off, "off"})

VL_ENUM_TABLE(Recompute,
              {Recompute::None, "none"},
              {Recompute::Selective, "selective"},
              {Recompute::Full, "full"},
              {Recompute::EveryK, "every-k"})

VL_ENUM_TABLE(Compat,
              {Compat::None, "none"},
              {Compat::Megatron, "megatron"},
              {Compat::DeepSpeedEstimator, "deepspeed-estimator"},
              {Compat::Accelerate, "accelerate"})

VL_ENUM_TABLE(ActivationFormula,
              {ActivationFormula::TensorWalk, "tensor-walk"},
              {ActivationFormula::Korthikanti, "korthikanti"},
              {ActivationFormula::PerLayerBytes, "per-layer-bytes"},
              {ActivationFormula::PerLayerElements, "per-layer-elements"},
              {ActivationFormula::Coefficient, "coefficient"})

VL_ENUM_TABLE(StateDtype, {StateDtype::Auto, "auto"}, {StateDtype::FP32, "fp32"}, {StateDtype::BF16, "bf16"})

VL_ENUM_TABLE(OptimizerImpl, {OptimizerImpl::Auto, "auto"}, {OptimizerImpl::Foreach, "foreach"}, {OptimizerImpl::Fused, "fused"}, {OptimizerImpl::ForLoop, "for-loop"})

VL_ENUM_TABLE(PipelineSchedule,
              {PipelineSchedule::OneFOneB, "1f1b"},
              {PipelineSchedule::Interleaved, "interleaved"},
              {PipelineSchedule::GPipe, "gpipe"})

VL_ENUM_TABLE(FineTuneMethod,
              {FineTuneMethod::Full, "full"},
              {FineTuneMethod::LoRA, "lora"},
              {FineTuneMethod::QLoRA, "qlora"})

// Weight formats and KV cache dtypes: the names their tables give them (inference/weight_formats.h,
// inference/kv_cache.h), so the UI and CLI lists are those tables.
template <class E, class Row, size_t N, class Field>
constexpr std::array<EnumName<E>, N> names_of(const Row (&rows)[N], Field field) {
    std::array<EnumName<E>, N> out{};
    for (size_t i = 0; i < N; ++i) out[i] = {rows[i].*field, rows[i].key};
    return out;
}

std::span<const EnumName<WeightFormat>> enum_names(WeightFormat) {
    static constexpr auto kNames = names_of<WeightFormat>(kWeightFormats, &WeightFormatInfo::format);
    return kNames;
}

std::span<const EnumName<KvDtype>> enum_names(KvDtype) {
    static constexpr auto kNames = names_of<KvDtype>(kKvDtypes, &KvDtypeInfo::dtype);
    return kNames;
}

VL_ENUM_TABLE(Engine, {Engine::Transformers, "transformers"}, {Engine::VLLM, "vllm"}, {Engine::LlamaCpp, "llama.cpp"}, {Engine::TEI, "tei"})

VL_ENUM_TABLE(LlamaCppBackend, {LlamaCppBackend::CUDA, "cuda"}, {LlamaCppBackend::CANN, "cann"})

VL_ENUM_TABLE(MlaCache, {MlaCache::Latent, "latent"}, {MlaCache::Decompressed, "decompressed"})
VL_ENUM_TABLE(VllmMoeBackend, {VllmMoeBackend::Auto, "auto"}, {VllmMoeBackend::Marlin, "marlin"}, {VllmMoeBackend::Triton, "triton"},
              {VllmMoeBackend::FlashInferTrtllm, "flashinfer_trtllm"}, {VllmMoeBackend::FlashInferCutlass, "flashinfer_cutlass"})
VL_ENUM_TABLE(InferAutocast, {InferAutocast::Off, "off"}, {InferAutocast::Cached, "cached"}, {InferAutocast::PerOp, "per-op"})
VL_ENUM_TABLE(SsmKernels, {SsmKernels::Torch, "torch"}, {SsmKernels::Fused, "fused"})
VL_ENUM_TABLE(MoeExperts, {MoeExperts::Loop, "loop"}, {MoeExperts::Grouped, "grouped"})
VL_ENUM_TABLE(VisionTraining, {VisionTraining::Frozen, "frozen"}, {VisionTraining::Projector, "projector"}, {VisionTraining::All, "all"},
              {VisionTraining::Lora, "lora"})
VL_ENUM_TABLE(VisionQuant, {VisionQuant::All, "all"}, {VisionQuant::Tower, "tower"}, {VisionQuant::None, "none"})
VL_ENUM_TABLE(SpecMethod, {SpecMethod::None, "none"}, {SpecMethod::Draft, "draft"}, {SpecMethod::Eagle, "eagle"},
              {SpecMethod::Eagle3, "eagle3"}, {SpecMethod::Mtp, "mtp"}, {SpecMethod::Ngram, "ngram"})

VL_ENUM_TABLE(NormKind, {NormKind::RMSNorm, "rmsnorm"}, {NormKind::LayerNorm, "layernorm"})
VL_ENUM_TABLE(MlpActivation, {MlpActivation::Fused, "fused"}, {MlpActivation::GeluNew, "gelu_new"})

VL_ENUM_TABLE(PositionKind,
              {PositionKind::Rotary, "rotary"},
              {PositionKind::Learned, "learned"},
              {PositionKind::Alibi, "alibi"},
              {PositionKind::None, "none"})
VL_ENUM_TABLE(RopeScaling,
              {RopeScaling::None, "none"},
              {RopeScaling::Linear, "linear"},
              {RopeScaling::Dynamic, "dynamic"},
              {RopeScaling::Yarn, "yarn"},
              {RopeScaling::LongRope, "longrope"})

VL_ENUM_TABLE(AttentionKind, {AttentionKind::Standard, "standard"}, {AttentionKind::MLA, "mla"})
VL_ENUM_TABLE(SsmKind, {SsmKind::None, "none"}, {SsmKind::Mamba1, "mamba1"}, {SsmKind::Mamba2, "mamba2"},
              {SsmKind::GatedDeltaNet, "gated_deltanet"})
VL_ENUM_TABLE(VisionKind, {VisionKind::None, "none"}, {VisionKind::Clip, "clip"}, {VisionKind::Siglip, "siglip"},
              {VisionKind::QwenVit, "qwen_vit"}, {VisionKind::Qwen2Vit, "qwen2_vit"}, {VisionKind::Qwen3Vit, "qwen3_vit"}, {VisionKind::Mllama, "mllama"})
VL_ENUM_TABLE(ProjectorKind, {ProjectorKind::LlavaMlp, "llava_mlp"}, {ProjectorKind::QwenMerger, "qwen_merger"},
              {ProjectorKind::Gemma3, "gemma3"}, {ProjectorKind::MllamaLinear, "mllama_linear"})

VL_ENUM_TABLE(Category,
              {Category::Weights, "weights"},
              {Category::Gradients, "gradients"},
              {Category::Optimizer, "optimizer"},
              {Category::Activations, "activations"},
              {Category::Logits, "logits"},
              {Category::KVCache, "kv_cache"},
              {Category::Buffers, "buffers"},
              {Category::Overhead, "overhead"})

VL_ENUM_TABLE(Phase,
              {Phase::Load, "load"},
              {Phase::Forward, "forward"},
              {Phase::Backward, "backward"},
              {Phase::Step, "step"})

#undef VL_ENUM_TABLE

// Names these formulas had before they were named by what they compute (scenario format version 1
// files and share links still carry them).
std::span<const EnumName<ActivationFormula>> enum_aliases(ActivationFormula) {
    static constexpr EnumName<ActivationFormula> kAliases[] = {
        {ActivationFormula::PerLayerBytes, "seed-003"},
        {ActivationFormula::PerLayerElements, "seed-001"},
    };
    return kAliases;
}

std::span<const EnumName<LoraTarget>> lora_target_names() {
    static constexpr EnumName<LoraTarget> kNames[] = {
        {kLoraQ, "q_proj"},       {kLoraK, "k_proj"},   {kLoraV, "v_proj"},     {kLoraO, "o_proj"},
        {kLoraGate, "gate_proj"}, {kLoraUp, "up_proj"}, {kLoraDown, "down_proj"},
        {kLoraInProj, "in_proj"}, {kLoraXProj, "x_proj"}, {kLoraDtProj, "dt_proj"}, {kLoraOutProj, "out_proj"},
        {kLoraInProjQkvz, "in_proj_qkvz"}, {kLoraInProjBa, "in_proj_ba"}, {kLoraInProjQkv, "in_proj_qkv"}, {kLoraInProjZ, "in_proj_z"},
        {kLoraInProjB, "in_proj_b"}, {kLoraInProjA, "in_proj_a"},
    };
    return kNames;
}

std::string lora_target_list(unsigned bits) {
    std::string r;
    for (const auto& n : lora_target_names())
        if ((bits & n.value) != 0) r += (r.empty() ? "" : ", ") + std::string(n.name);
    return r;
}

}  // namespace vl
