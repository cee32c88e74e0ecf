// Name tables for enum_names.h. Names are lower-case, hyphenated, and stable: they are part of the
// versioned scenario JSON format (docs/scenario-format.md); renaming one is a format change.
#include "enum_names.h"

#include <array>
#include <iterator>

#include "training/optimizers.h"

namespace vl {

#define VL_ENUM_TABLE(E, ...)                                         \
    std::span<const EnumName<E>> enum_names(E) {                      \
        static constexpr EnumName<E> kNames[] = {__VA_ARGS__};        \
        return kNames;                                                \
    }

VL_ENUM_TABLE(Mode, {Mode::Train, "train"}, {Mode::FineTune, "finetune"}, {Mode::Infer, "infer"})

VL_ENUM_TABLE(Precision,
              {Precision::FP32, "fp32"},
              {Precision::MixedFP16, "fp16-mixed"},
              {Precision::MixedBF16, "bf16-mixed"},
              {Precision::PureBF16, "bf16-pure"},
              {Precision::FP8, "fp8"})

// Optimizer names come from the optimizer table (training/optimizers.h), one row per optimizer.
std::span<const EnumName<Optimizer>> enum_names(Optimizer) {
    static constexpr auto kNames = [] {
        std::array<EnumName<Optimizer>, std::size(kOptimizers)> n{};
        for (size_t i = 0; i < n.size(); ++i) n[i] = {kOptimizers[i].id, kOptimizers[i].name};
        return n;
    }();
    return kNames;
}

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

VL_ENUM_TABLE(PipelineSchedule,
              {PipelineSchedule::OneFOneB, "1f1b"},
              {PipelineSchedule::Interleaved, "interleaved"},
              {PipelineSchedule::GPipe, "gpipe"})

VL_ENUM_TABLE(FineTuneMethod,
              {FineTuneMethod::Full, "full"},
              {FineTuneMethod::LoRA, "lora"},
              {FineTuneMethod::QLoRA, "qlora"})

VL_ENUM_TABLE(WeightFormat,
              {WeightFormat::FP32, "fp32"},
              {WeightFormat::FP16, "fp16"},
              {WeightFormat::BF16, "bf16"},
              {WeightFormat::FP8, "fp8"},
              {WeightFormat::INT8, "int8"},
              {WeightFormat::GPTQ4, "gptq-4bit"},
              {WeightFormat::AWQ4, "awq-4bit"},
              {WeightFormat::NF4, "nf4"},
              {WeightFormat::FP4, "fp4"},
              {WeightFormat::GGUF_Q8_0, "q8_0"},
              {WeightFormat::GGUF_Q6_K, "q6_k"},
              {WeightFormat::GGUF_Q5_K_M, "q5_k_m"},
              {WeightFormat::GGUF_Q4_K_M, "q4_k_m"},
              {WeightFormat::GGUF_Q4_0, "q4_0"},
              {WeightFormat::GGUF_Q3_K_M, "q3_k_m"},
              {WeightFormat::GGUF_Q2_K, "q2_k"})

VL_ENUM_TABLE(KvDtype,
              {KvDtype::FP16, "fp16"},
              {KvDtype::BF16, "bf16"},
              {KvDtype::FP8, "fp8"},
              {KvDtype::INT8, "int8"},
              {KvDtype::INT4, "int4"})

VL_ENUM_TABLE(Engine, {Engine::Transformers, "transformers"}, {Engine::VLLM, "vllm"}, {Engine::LlamaCpp, "llama.cpp"})

VL_ENUM_TABLE(NormKind, {NormKind::RMSNorm, "rmsnorm"}, {NormKind::LayerNorm, "layernorm"})

VL_ENUM_TABLE(PositionKind,
              {PositionKind::Rotary, "rotary"},
              {PositionKind::Learned, "learned"},
              {PositionKind::Alibi, "alibi"},
              {PositionKind::None, "none"})

VL_ENUM_TABLE(AttentionKind, {AttentionKind::Standard, "standard"}, {AttentionKind::MLA, "mla"})

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
    };
    return kNames;
}

}  // namespace vl
