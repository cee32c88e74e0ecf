// String tables (strings.h). The components' Chinese labels are in the catalogue of the core's
// messages (zh_messages.txt, ui/messages.h), fetched with the Chinese font.
#include "ui/strings.h"


namespace vl::ui {

namespace {

#define VL_UI_STRING_EN(id, en, zh) en,
#ifdef __EMSCRIPTEN__
#define VL_UI_STRING_ZH(id, en, zh) nullptr,  // the page's Chinese comes with the font (set_zh_strings)
#else
#define VL_UI_STRING_ZH(id, en, zh) zh,
#endif
const char* const kEn[] = {VL_UI_STRINGS(VL_UI_STRING_EN)};
const char* const kZh[] = {VL_UI_STRINGS(VL_UI_STRING_ZH)};
#undef VL_UI_STRING_EN
#undef VL_UI_STRING_ZH

// The Chinese column read from the catalogue: the UI's one piece of state outside AppState, as tr()
// is called with a language only.
std::vector<std::string>& zh_strings() {
    static std::vector<std::string> zh;
    return zh;
}

}  // namespace

const char* tr(Lang lang, S id) {
    const auto i = static_cast<std::size_t>(id);
    if (i >= static_cast<std::size_t>(S::Count_)) return "";
    if (lang == Lang::Zh) {
        if (i < zh_strings().size() && !zh_strings()[i].empty()) return zh_strings()[i].c_str();
        if (kZh[i]) return kZh[i];
    }
    return kEn[i];
}

void set_zh_strings(std::vector<std::string> zh) { zh_strings() = std::move(zh); }

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

const char* enum_label(Lang lang, VisionQuant v) {
    switch (v) {
        case VisionQuant::All: return tr(lang, S::VisionQuantAll);
        case VisionQuant::Tower: return tr(lang, S::VisionQuantTower);
        case VisionQuant::None: return tr(lang, S::VisionQuantNone);
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
