// String tables (strings.h). The component table maps the core's stable component ids to Chinese;
// ids not listed keep the core's English label, so a new component is never shown blank.
#include "ui/strings.h"

#include <cstring>

namespace vl::ui {

namespace {

#define VL_UI_STRING_EN(id, en, zh) en,
#define VL_UI_STRING_ZH(id, en, zh) zh,
const char* const kEn[] = {VL_UI_STRINGS(VL_UI_STRING_EN)};
const char* const kZh[] = {VL_UI_STRINGS(VL_UI_STRING_ZH)};
#undef VL_UI_STRING_EN
#undef VL_UI_STRING_ZH

struct IdLabel {
    const char* id;
    const char* zh;
};
// Component ids of core/training and core/inference.
constexpr IdLabel kComponentZh[] = {
    {"weights", "权重"},
    {"weights.linear", "权重：各层矩阵"},
    {"weights.embedding", "权重：词嵌入"},
    {"weights.lm_head", "权重：输出层"},
    {"weights.norms", "权重：归一化层"},
    {"weights.vision", "权重：视觉编码器与投影层"},
    {"weights.frozen", "冻结的基座权重"},
    {"weights.nf4", "NF4 量化权重"},
    {"weights.quant_constants", "量化常数"},
    {"weights.dequant", "反量化缓冲"},
    {"weights.fp8_cache", "FP8 权重副本"},
    {"grads", "梯度"},
    {"grads.fp32_copy", "梯度 fp32 副本"},
    {"optimizer", "优化器状态"},
    {"optimizer.states", "优化器状态"},
    {"optimizer.adam_states", "Adam 动量与方差"},
    {"optimizer.master", "fp32 主权重"},
    {"lora.weights", "LoRA 适配器权重"},
    {"lora.grads", "LoRA 梯度"},
    {"lora.grads_fp32_copy", "LoRA 梯度 fp32 副本"},
    {"lora.master", "LoRA fp32 主权重"},
    {"lora.optimizer", "LoRA 优化器状态"},
    {"saved.weights", "modules_to_save：可训练副本"},
    {"saved.grads", "modules_to_save：梯度"},
    {"saved.optimizer", "modules_to_save：优化器状态"},
    {"grads.frozen_flat", "FSDP 扁平参数：冻结权重的梯度"},
    {"activations", "激活值"},
    {"act.layers", "激活值：各层"},
    {"act.attention", "激活值：注意力"},
    {"act.attention_scores", "激活值：注意力分数"},
    {"act.vision_encoder", "激活值：视觉编码器"},
    {"act.scores", "激活值：注意力分数"},
    {"act.mlp", "激活值：MLP"},
    {"act.mamba", "激活值：Mamba 混合器"},
    {"act.norms", "激活值：归一化"},
    {"act.embedding", "激活值：词嵌入"},
    {"act.final", "激活值：最后一层"},
    {"act.checkpoints", "激活检查点"},
    {"act.backward_working", "反向传播工作区"},
    {"act.lora", "激活值：LoRA"},
    {"act.prefill_mlp", "预填充 MLP 激活"},
    {"act.profile_peak", "预分析峰值激活"},
    {"logits", "logits"},
    {"logits.loss", "损失计算"},
    {"kv_cache", "KV 缓存"},
    {"ssm_state", "循环状态（Mamba 卷积 + SSM）"},
    {"buffers", "缓冲区"},
    {"buffers.comm_bucket", "通信桶"},
    {"buffers.dequant", "反量化缓冲"},
    {"buffers.zero3_gather", "ZeRO-3 参数收集缓冲"},
    {"buffers.zero3_layer_grads", "ZeRO-3 层梯度缓冲"},
    {"engine.compute_buffer", "引擎计算缓冲"},
    {"engine.non_torch", "引擎非 PyTorch 显存"},
    {"spec.draft_weights", "投机解码：草稿模型权重"},
    {"spec.draft_kv", "投机解码：草稿层 KV（同一缓存池）"},
    {"spec.drafter_buffers", "投机解码：草稿模型输入缓冲"},
    {"cuda_graphs", "CUDA Graphs"},
    {"overhead.cuda_context", "CUDA 上下文"},
    {"overhead.fragmentation", "显存碎片预留"},
};

}  // namespace

const char* tr(Lang lang, S id) {
    const auto i = static_cast<std::size_t>(id);
    if (i >= static_cast<std::size_t>(S::Count_)) return "";
    return lang == Lang::Zh ? kZh[i] : kEn[i];
}

const char* component_label(Lang lang, const Component& c) {
    if (lang == Lang::Zh)
        for (const IdLabel& l : kComponentZh)
            if (std::strcmp(l.id, c.id) == 0) return l.zh;
    return c.label;
}

const char* category_label(Lang lang, Category c) {
    const bool zh = lang == Lang::Zh;
    switch (c) {
        case Category::Weights: return zh ? "权重" : "Weights";
        case Category::Gradients: return zh ? "梯度" : "Gradients";
        case Category::Optimizer: return zh ? "优化器" : "Optimizer";
        case Category::Activations: return zh ? "激活值" : "Activations";
        case Category::Logits: return zh ? "logits" : "Logits";
        case Category::KVCache: return zh ? "KV 缓存" : "KV cache";
        case Category::Buffers: return zh ? "缓冲区" : "Buffers";
        case Category::Overhead: return zh ? "开销" : "Overhead";
    }
    return "";
}

const char* enum_label(Lang lang, Compat v) {
    switch (v) {
        case Compat::None: return tr(lang, S::CompatNone);
        case Compat::Megatron: return tr(lang, S::CompatMegatron);
        case Compat::DeepSpeedEstimator: return tr(lang, S::CompatDeepSpeed);
        case Compat::Accelerate: return tr(lang, S::CompatAccelerate);
    }
    return "?";
}

const char* enum_label(Lang lang, ActivationFormula v) {
    switch (v) {
        case ActivationFormula::TensorWalk: return tr(lang, S::ActTensorWalk);
        case ActivationFormula::Korthikanti: return tr(lang, S::ActKorthikanti);
        case ActivationFormula::PerLayerBytes: return tr(lang, S::ActPerLayerBytes);
        case ActivationFormula::PerLayerElements: return tr(lang, S::ActPerLayerElements);
        case ActivationFormula::Coefficient: return tr(lang, S::ActCoefficient);
    }
    return "?";
}

const char* enum_label(Lang, PipelineSchedule v) {
    switch (v) {
        case PipelineSchedule::OneFOneB: return "1F1B";
        case PipelineSchedule::Interleaved: return "interleaved 1F1B";
        case PipelineSchedule::GPipe: return "GPipe";
    }
    return "?";
}

const char* phase_name(Lang lang, Mode mode, Phase p) {
    if (mode == Mode::Infer && p == Phase::Forward) return tr(lang, S::Prefill);
    if (mode == Mode::Infer && p == Phase::Step) return tr(lang, S::Decode);
    switch (p) {
        case Phase::Load: return tr(lang, S::Load);
        case Phase::Forward: return tr(lang, S::Forward);
        case Phase::Backward: return tr(lang, S::Backward);
        case Phase::Step: return tr(lang, S::Step);
    }
    return "";
}

}  // namespace vl::ui
