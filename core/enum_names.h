// Readable names of every enum in Scenario and Estimate, as the scenario JSON, the CLI flags and
// the exports spell them (e.g. Precision::MixedBF16 <-> "bf16-mixed"). One table per enum, so the
// writer, the reader and the help text can never disagree.
#pragma once
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "estimate.h"
#include "scenario.h"

namespace vl {

template <class E>
struct EnumName {
    E value;
    const char* name;
};

// The table for an enum, selected by a value of that enum (the value itself is ignored).
std::span<const EnumName<Mode>> enum_names(Mode);
std::span<const EnumName<LocalEngine>> enum_names(LocalEngine);
std::span<const EnumName<SplitMode>> enum_names(SplitMode);
std::span<const EnumName<Precision>> enum_names(Precision);
std::span<const EnumName<Optimizer>> enum_names(Optimizer);
std::span<const EnumName<Recompute>> enum_names(Recompute);
std::span<const EnumName<Compat>> enum_names(Compat);
std::span<const EnumName<ActivationFormula>> enum_names(ActivationFormula);
std::span<const EnumName<StateDtype>> enum_names(StateDtype);
std::span<const EnumName<OptimizerImpl>> enum_names(OptimizerImpl);
std::span<const EnumName<PipelineSchedule>> enum_names(PipelineSchedule);
std::span<const EnumName<LossImpl>> enum_names(LossImpl);
std::span<const EnumName<DsOverlap>> enum_names(DsOverlap);
std::span<const EnumName<FineTuneMethod>> enum_names(FineTuneMethod);
std::span<const EnumName<WeightFormat>> enum_names(WeightFormat);
std::span<const EnumName<KvDtype>> enum_names(KvDtype);
std::span<const EnumName<Engine>> enum_names(Engine);
std::span<const EnumName<LlamaCppBackend>> enum_names(LlamaCppBackend);
std::span<const EnumName<MlaCache>> enum_names(MlaCache);
std::span<const EnumName<VllmMoeBackend>> enum_names(VllmMoeBackend);
std::span<const EnumName<InferAutocast>> enum_names(InferAutocast);
std::span<const EnumName<SsmKernels>> enum_names(SsmKernels);
std::span<const EnumName<MoeExperts>> enum_names(MoeExperts);
std::span<const EnumName<VisionTraining>> enum_names(VisionTraining);
std::span<const EnumName<VisionQuant>> enum_names(VisionQuant);
std::span<const EnumName<SpecMethod>> enum_names(SpecMethod);
std::span<const EnumName<NormKind>> enum_names(NormKind);
std::span<const EnumName<MlpActivation>> enum_names(MlpActivation);
std::span<const EnumName<PositionKind>> enum_names(PositionKind);
std::span<const EnumName<RopeScaling>> enum_names(RopeScaling);
std::span<const EnumName<AttentionKind>> enum_names(AttentionKind);
std::span<const EnumName<SsmKind>> enum_names(SsmKind);
std::span<const EnumName<VisionKind>> enum_names(VisionKind);
std::span<const EnumName<ProjectorKind>> enum_names(ProjectorKind);
std::span<const EnumName<Category>> enum_names(Category);
std::span<const EnumName<Phase>> enum_names(Phase);

// LoRA target bits (scenario.h LoraTarget) by their PEFT module names, e.g. kLoraQ <-> "q_proj".
std::span<const EnumName<LoraTarget>> lora_target_names();
// The names of the targets among `bits` joined for a message, in the table's order: "q_proj, k_proj, ..., out_proj" for all.
std::string lora_target_list(unsigned bits = ~0u);

// Old names still read (never written, never listed) so that saved files keep working, e.g.
// ActivationFormula "seed-003" -> PerLayerBytes. Enums without renamed values have none.
template <class E>
std::span<const EnumName<E>> enum_aliases(E) {
    return {};
}
std::span<const EnumName<ActivationFormula>> enum_aliases(ActivationFormula);

template <class E>
const char* enum_name(E v) {
    for (const auto& n : enum_names(E{}))
        if (n.value == v) return n.name;
    return "?";
}

// ASCII case-insensitive ("BF16-Mixed" reads as "bf16-mixed"); the current names, then the old
// ones (enum_aliases).
template <class E>
std::optional<E> parse_enum(std::string_view s) {
    auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; };
    for (const auto& table : {enum_names(E{}), enum_aliases(E{})})
        for (const auto& n : table) {
            std::string_view name = n.name;
            if (name.size() != s.size()) continue;
            bool same = true;
            for (size_t i = 0; i < s.size() && same; ++i) same = lower(s[i]) == name[i];
            if (same) return n.value;
        }
    return std::nullopt;
}

// "a", "b" or "c": the allowed names, for error messages and --help.
template <class E>
std::string enum_choices() {
    std::string out;
    auto names = enum_names(E{});
    for (size_t i = 0; i < names.size(); ++i) {
        if (i) out += (i + 1 == names.size()) ? " or " : ", ";
        out += '"';
        out += names[i].name;
        out += '"';
    }
    return out;
}

}  // namespace vl
