// Input panels: each maps widgets onto the Scenario (and nothing else). The choices offered for the
// parallel layout are those the core's validate() accepts; no rule is restated here.
#include "ui/panels.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "cuda_context.h"
#include "cold.h"
#include "framework_profiles.h"
#include "model/hf_config.h"
#include "model/presets.h"
#include "training/finetune.h"
#include "training/moe_experts.h"
#include "ui/hub.h"
#include "ui/widgets.h"

namespace vl::ui {

namespace {

// A custom edit of a preset's architecture: the model is no longer that preset.
void mark_custom(AppState& app) {
    if (app.ui.source == ModelSource::Preset) {
        app.ui.source = ModelSource::Custom;
        app.ui.preset_id.clear();
        app.scenario.model.name += " (custom)";
    }
}

// An edit of the architecture: an imported GGUF file's tensor bytes no longer describe the model.
void edit_architecture(AppState& app) {
    app.scenario.model.gguf_bytes = {};
    mark_custom(app);
}

// The whole model list on its way, or not coming (ModelList, issue 16).
void model_list_state(AppState& app) {
    const Lang L = app.ui.lang;
    if (app.ui.model_list == ModelList::Wanted || app.ui.model_list == ModelList::Loading) {
        ImGui::TextDisabled("%s", tr(L, S::ModelListLoading));
        mark(app, "models.loading");
    } else if (app.ui.model_list == ModelList::Failed) {
        ImGui::PushStyleColor(ImGuiCol_Text, col_bad(app));
        std::string text = tr(L, S::ModelListFailed);
        text.replace(text.find("%s"), 2, app.ui.model_list_error);
        ImGui::TextWrapped("%s", text.c_str());
        ImGui::PopStyleColor();
        if (ImGui::SmallButton(tr(L, S::Retry))) app.ui.model_list = ModelList::Wanted;
        mark(app, "models.retry");
    }
}

void preset_picker(AppState& app) {
    text_field(app, nullptr, "model.search", app.ui.model_filter, tr(app.ui.lang, S::Search), false);
    // Families in preset order.
    std::vector<std::string> families;
    for (const ModelPreset& p : model_presets())
        if (std::find(families.begin(), families.end(), p.family) == families.end()) families.push_back(p.family);
    ImGui::SetNextItemWidth(-1);
    const char* fam_preview = app.ui.family_filter.empty() ? tr(app.ui.lang, S::AllFamilies) : app.ui.family_filter.c_str();
    if (begin_dropdown(app, "##family", fam_preview)) {
        if (dropdown_item(app, tr(app.ui.lang, S::AllFamilies), app.ui.family_filter.empty())) app.ui.family_filter.clear();
        for (const std::string& f : families)
            if (dropdown_item(app, f.c_str(), f == app.ui.family_filter)) app.ui.family_filter = f;
        ImGui::EndCombo();
    }
    mark(app, "model.family");
    // On a phone or a touch screen the rows are a finger tall (dropdown_item): five and a half of them show.
    const float list_h = finger_rows(app) ? 5.5f * kFingerRowPx : 8.5f * ImGui::GetTextLineHeightWithSpacing();
    ImGui::BeginChild("##presets", ImVec2(-1, list_h), true);
    int shown = 0;
    std::string last_family;
    for (const ModelPreset& p : model_presets()) {
        if (!app.ui.family_filter.empty() && p.family != app.ui.family_filter) continue;
        if (!preset_matches(p, app.ui.model_filter)) continue;
        if (p.family != last_family) {
            ImGui::TextDisabled("%s", p.family.c_str());
            last_family = p.family;
        }
        const bool sel = app.ui.source == ModelSource::Preset && app.ui.preset_id == p.id;
        const std::string label = p.name + (p.published_params ? "  ·  " + params_label(p.published_params) : "");
        ImGui::PushID(p.id.c_str());
        if (dropdown_item(app, label.c_str(), sel)) select_model_preset(app, p.id);
        ImGui::PopID();
        // Recorded even when scrolled out of view: the tests scroll through the filter instead.
        mark(app, "preset." + p.id);
        if (sel && (ImGui::IsWindowAppearing() || app.ui.scroll_to_preset)) ImGui::SetScrollHereY();
        ++shown;
    }
    if (shown == 0 && app.ui.model_list == ModelList::Whole) ImGui::TextDisabled("%s", tr(app.ui.lang, S::NoMatch));
    ImGui::EndChild();
    app.ui.scroll_to_preset = false;
    model_list_state(app);
    if (const ModelPreset* p = find_model(app.ui.preset_id); p && app.ui.source == ModelSource::Preset) {
        ImGui::TextDisabled("%s", p->hf_id.c_str());
    }
}

void custom_fields(AppState& app) {
    ModelSpec& m = app.scenario.model;
    const Lang L = app.ui.lang;
    if (text_field(app, tr(L, S::Name), "model.name", m.name, "", false)) app.dirty = true;
    // Keys are the fields the core's errors name (validate_model: config.json names), so that an
    // error shows under its field.
    struct F { S label; const char* key; int64_t* v; };
    const F fields[] = {
        {S::Layers, "model.num_hidden_layers", &m.layers},   {S::Hidden, "model.hidden_size", &m.hidden},
        {S::Heads, "model.num_attention_heads", &m.heads},   {S::KvHeads, "model.num_key_value_heads", &m.kv_heads},
        {S::HeadDim, "model.head_dim", &m.head_dim},         {S::Ffn, "model.intermediate_size", &m.ffn},
        {S::Vocab, "model.vocab_size", &m.vocab},
    };
    const bool two = ImGui::GetContentRegionAvail().x > 300;
    if (two) ImGui::Columns(2, "##arch", false);
    for (const F& f : fields) {
        if (int_field(app, tr(L, f.label), f.key, *f.v, 1, 1 << 30, false)) edit_architecture(app);
        if (two) ImGui::NextColumn();
    }
    int64_t experts = m.moe.num_experts, topk = m.moe.top_k;
    if (int_field(app, tr(L, S::Experts), "model.num_experts", experts, 0, 4096, false)) {
        m.moe.num_experts = static_cast<int>(experts);
        edit_architecture(app);
    }
    if (two) ImGui::NextColumn();
    if (m.moe.num_experts > 0) {
        if (int_field(app, tr(L, S::TopK), "model.num_experts_per_tok", topk, 0, 4096, false)) {
            m.moe.top_k = static_cast<int>(topk);
            edit_architecture(app);
        }
        if (two) ImGui::NextColumn();
        if (int_field(app, tr(L, S::ExpertFfn), "model.moe_intermediate_size", m.moe.expert_ffn, 1, 1 << 30, false)) edit_architecture(app);
        if (two) ImGui::NextColumn();
    }
    if (two) ImGui::Columns(1);
    if (check(app, tr(L, S::GatedMlp), "model.gated_mlp", m.gated_mlp)) edit_architecture(app);
    if (check(app, tr(L, S::TiedEmb), "model.tied_embeddings", m.tied_embeddings)) edit_architecture(app);
    section_errors(app, "model");
}

void params_only_fields(AppState& app) {
    ModelSpec& m = app.scenario.model;
    if (m.architecture_known()) {
        m = model_from_param_count(7'000'000'000);
        m.name = "7B";
        app.dirty = true;
    }
    double billions = static_cast<double>(m.params_only) / 1e9;
    // Any count but 0 goes to the core, whose rules say what is wrong with it (validate: model.params).
    // 0 is not a count (a ModelSpec with params_only 0 is one given by its architecture); counts are
    // kept within int64 like the scenario reader's (1e15).
    if (float_field(app, (std::string(tr(app.ui.lang, S::Params)) + " (B)").c_str(), "model.params", billions, 0.1, 1e4, 1.0,
                    "%.2f")) {
        const int64_t n = std::llround(std::clamp(billions, -1e6, 1e6) * 1e9);
        if (n != 0) {
            m = model_from_param_count(n);
            char name[32];
            std::snprintf(name, sizeof name, "%.3gB", billions);
            m.name = name;
        }
    }
    section_errors(app, "model");
}

// Import by repo id: the field, an optional token, the button; what will be sent, said before the
// first request; the progress or the error; the imported checkpoint's facts.
void hub_fields(AppState& app) {
    const Lang L = app.ui.lang;
    text_field(app, tr(L, S::HubModel), "model.hub", app.ui.hub_ref, tr(L, S::HubHint), false);
    password_field(app, tr(L, S::HubToken), "model.hub_token", app.ui.hub_token, "hf_...");
    if (!app.ui.hub_asked) ImGui::TextWrapped("%s %s", tr(L, S::HubWillSend), app.ui.env.hub_endpoint.c_str());
    ImGui::BeginDisabled(app.ui.hub_state == HubState::Fetching);
    if (ImGui::Button(tr(L, S::HubImport), ImVec2(-1, 0))) request_hub_import(app);
    ImGui::EndDisabled();
    mark(app, "model.hub_import");
    if (!app.ui.hub_message.empty()) {
        const bool bad = app.ui.hub_state == HubState::Failed;
        if (bad) ImGui::PushStyleColor(ImGuiCol_Text, col_bad(app));
        else if (app.ui.hub_state == HubState::Done) ImGui::PushStyleColor(ImGuiCol_Text, col_ok(app));
        ImGui::TextWrapped("%s%s%s", bad ? tr(L, S::HubFailed) : "", bad ? ": " : "", say(app, app.ui.hub_message).c_str());
        if (app.ui.hub_state == HubState::Failed || app.ui.hub_state == HubState::Done) ImGui::PopStyleColor();
        mark(app, "model.hub_message");
    }
    for (const std::string& f : app.ui.hub_facts) ImGui::TextWrapped("%s", say(app, f).c_str());
    for (size_t i = 0; i < app.ui.hub_warnings.size(); ++i) note_line(app, "model.hub_warning." + std::to_string(i), say(app, app.ui.hub_warnings[i]));
    ImGui::Separator();
}

void config_fields(AppState& app) {
    const Lang L = app.ui.lang;
    hub_fields(app);
    ImGui::TextWrapped("%s %s", tr(L, S::OrPaste), tr(L, S::ConfigHint));
    text_field(app, nullptr, "model.config", app.ui.config_text, "", true, ImGui::GetTextLineHeight() * 8);
    if (ImGui::Button(tr(L, S::Import), ImVec2(-1, 0))) open_text(app, app.ui.config_text, TextSource::ConfigBox);
    mark(app, "model.import");
    for (const FieldError& e : app.ui.config_errors) {
        ImGui::PushStyleColor(ImGuiCol_Text, col_bad(app));
        ImGui::TextWrapped("%s", say(app, e).c_str());
        ImGui::PopStyleColor();
    }
    if (app.ui.config_errors.empty() && app.ui.source == ModelSource::Config)
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(col_ok(app)), "%s: %s", tr(L, S::Imported),
                           app.scenario.model.name.c_str());
    for (size_t i = 0; i < app.ui.config_warnings.size(); ++i)
        note_line(app, "model.config_warning." + std::to_string(i), say(app, app.ui.config_warnings[i]));
}

}  // namespace

void model_panel(AppState& app) {
    const Lang L = app.ui.lang;
    const char* tabs[] = {tr(L, S::Preset), tr(L, S::CustomModel), tr(L, S::ParamsOnly), tr(L, S::ConfigJson)};
    int sel = static_cast<int>(app.ui.source);
    if (segmented(app, "model.source", tabs, 4, sel)) {
        const ModelSource next = static_cast<ModelSource>(sel);
        if (app.ui.source == ModelSource::ParamsOnly && next != ModelSource::ParamsOnly) select_model_preset(app, "llama-3.1-8b");
        app.ui.source = next;
        if (next == ModelSource::Custom) mark_custom(app);
        if (next == ModelSource::Preset && app.ui.preset_id.empty()) select_model_preset(app, "llama-3.1-8b");
    }
    switch (app.ui.source) {
        case ModelSource::Preset: preset_picker(app); break;
        case ModelSource::Custom: custom_fields(app); break;
        case ModelSource::ParamsOnly: params_only_fields(app); break;
        case ModelSource::Config: config_fields(app); break;
    }
}

// The framework profile (core/framework_profiles.h): picking one sets the fields it names; once one of them is changed
// the preview says "custom (from <label>)". "custom (no profile)" keeps the fields as they are.
void profile_picker(AppState& app) {
    const Lang L = app.ui.lang;
    Scenario& s = app.scenario;
    field_label(tr(L, S::FrameworkProfile));
    const FrameworkProfile* current = find_profile(s.profile);
    const std::string preview = current ? (profile_intact(s) ? std::string(current->label) : profile_text(s)) : tr(L, S::CustomNoProfile);
    ImGui::SetNextItemWidth(-1);
    if (begin_dropdown(app, "##profile", preview.c_str())) {
        if (dropdown_item(app, tr(L, S::CustomNoProfile), !current)) {
            s.profile.clear();
            app.dirty = true;
        }
        mark(app, "profile.none");
        for (const FrameworkProfile& p : framework_profiles()) {
            if (!(p.modes & mode_bit(s.mode))) continue;
            const bool dflt = std::string_view(default_profile(s.mode)) == p.id;
            const std::string item = std::string(p.label) + " · " + p.versions + (dflt ? std::string(" · ") + tr(L, S::DefaultMark) : "");
            if (dropdown_item(app, item.c_str(), current == &p)) {
                apply_profile(s, p.id);
                app.dirty = true;
            }
            mark(app, std::string("profile.") + p.id);
        }
        ImGui::EndCombo();
    }
    mark(app, "profile");
    field_error(app, "profile");
}

void workload_panel(AppState& app) {
    const Lang L = app.ui.lang;
    Scenario& s = app.scenario;
    const char* modes[] = {tr(L, S::Training), tr(L, S::FineTune), tr(L, S::Inference), tr(L, S::RunLocally)};
    int mode = static_cast<int>(s.mode);
    if (segmented(app, "mode", modes, 4, mode)) {
        s.mode = static_cast<Mode>(mode);
        if (s.mode == Mode::Infer) s.parallel.zero = 0;
        if (profile_error(s.profile, s.mode)) s.profile.clear();  // the profile of another mode: its fields stay, as custom
        app.dirty = true;
    }
    if (s.mode == Mode::Local) {
        local_setup_panel(app);
        return;
    }
    profile_picker(app);
    if (s.mode == Mode::FineTune) {
        const char* methods[] = {"Full", "LoRA", "QLoRA"};
        int m = static_cast<int>(s.finetune.method);
        field_label(tr(L, S::Method));
        if (segmented(app, "finetune.method", methods, 3, m)) {
            s.finetune.method = static_cast<FineTuneMethod>(m);
            app.dirty = true;
        }
        if (s.finetune.method != FineTuneMethod::Full) {
            int_field(app, tr(L, S::LoraRank), "finetune.lora_rank", s.finetune.lora_rank, 1, 4096, true);
            field_label(tr(L, S::LoraTargets));
            // The checkboxes flow like words: one goes on the same line only when all of it fits there.
            const ImGuiStyle& style = ImGui::GetStyle();
            const float right = ImGui::GetCursorScreenPos().x + ImGui::GetContentRegionAvail().x;
            bool first = true;
            // The targets this model's layers have (a Mamba mixer's in_proj ... out_proj only on a state-space model), and any set.
            const unsigned present = lora_targets_present(s.model);
            for (const auto& t : lora_target_names()) {
                const bool has = present != 0 ? (present & t.value) != 0 : (t.value & (kLoraSsm | kLoraGdnIn)) == 0;
                if (!has && (s.finetune.lora_targets & t.value) == 0) continue;
                const float w = ImGui::GetFrameHeight() + style.ItemInnerSpacing.x + ImGui::CalcTextSize(t.name).x;
                if (!first && ImGui::GetItemRectMax().x + style.ItemSpacing.x + w <= right) ImGui::SameLine();
                first = false;
                bool on = (s.finetune.lora_targets & t.value) != 0;
                ImGui::PushID(t.name);
                if (ImGui::Checkbox(t.name, &on)) {
                    // a list of names is no longer "all-linear": the routers it adapted (kLoraRouter, no box of their own) go too
                    s.finetune.lora_targets = on ? (s.finetune.lora_targets | t.value) : (s.finetune.lora_targets & ~static_cast<unsigned>(t.value | kLoraRouter));
                    app.dirty = true;
                }
                ImGui::PopID();
                mark(app, std::string("finetune.lora_targets.") + t.name);
            }
            // PEFT target_parameters on experts stored as 3-D parameters (gpt-oss); another model has none (the core's rule)
            if (s.model.moe.num_experts > 0 && fused_expert_parameters(s.model))
                cold([&] { int_field(app, tr(L, S::LoraExpertLayers), "finetune.lora_expert_layers", s.finetune.lora_expert_layers, 0, 1 << 16, false); });
            else s.finetune.lora_expert_layers = 0;
            section_errors(app, "finetune");
        }
    }
    if (s.mode != Mode::Infer) {
        TrainingOptions& t = s.train;
        // eight recipes, a refused one with its rule under it: more than the regular 8 rows
        enum_combo(app, tr(L, S::Precision), "train.precision", t.precision, ImGuiComboFlags_HeightLarge);
        enum_combo(app, tr(L, S::Optimizer), "train.optimizer", t.optimizer);
        int_field(app, tr(L, S::MicroBatch), "train.micro_batch", t.micro_batch, 1, 1 << 20, true);
        int_field(app, tr(L, S::SeqLen), "train.seq_len", t.seq_len, 1, 1 << 24, true);
        // An encoder-decoder: seq_len is the encoder's source, target_len the decoder's labels (0: as the source). A
        // one-stack model has no target (the core's rule): the field goes, and its value with it.
        if (s.model.seq2seq.active()) int_field(app, tr(L, S::TrainTargetLen), "train.target_len", t.target_len, 0, 1 << 24, false);
        else t.target_len = 0;
        int_field(app, tr(L, S::GradAccum), "train.grad_accum_steps", t.grad_accum_steps, 1, 1 << 20, false);
        enum_combo(app, tr(L, S::Recompute), "train.recompute", t.recompute);
        if (t.recompute == Recompute::EveryK) {
            int64_t k = t.recompute_every_k;
            if (int_field(app, tr(L, S::RecomputeEveryK), "train.recompute_every_k", k, 1, 1 << 16, false)) t.recompute_every_k = static_cast<int>(k);
        }
        // Offloaded checkpoints need checkpoints (the core's rule): the box shows only with them, and goes off without.
        if (t.recompute == Recompute::Full || t.recompute == Recompute::EveryK)
            check(app, tr(L, S::OffloadCheckpoints), "train.offload_checkpoints", t.offload_checkpoints);
        else t.offload_checkpoints = false;
        if (s.model.moe.num_experts > 0) {  // Megatron's token dropping; 0: dropless
            float_field(app, tr(L, S::CapacityFactor), "train.moe_expert_capacity_factor", t.moe_expert_capacity_factor, 0, 1000, 0.25, "%.2f");
            if (t.moe_expert_capacity_factor > 0) check(app, tr(L, S::PadToCapacity), "train.moe_pad_expert_input_to_capacity", t.moe_pad_expert_input_to_capacity);
            else t.moe_pad_expert_input_to_capacity = false;
            // experts stored as 3-D parameters (gpt-oss): transformers' per-expert loop or a grouped kernel
            if (fused_expert_parameters(s.model)) cold([&] { enum_combo(app, tr(L, S::MoeExperts), "train.moe_experts", t.moe_experts); });
        }
        check(app, tr(L, S::FlashAttn), "train.flash_attention", t.flash_attention);
        // a Mamba mixer in transformers: its torch path (no mamba-ssm / causal-conv1d installed) or the fused kernels; Gated DeltaNet
        // keeps the kernels' walk (the core's rule: activations.cpp mamba_torch_path)
        if (s.model.ssm.active() && s.model.ssm.kind != SsmKind::GatedDeltaNet)
            cold([&] { enum_combo(app, tr(L, S::TrainSsmKernels), "train.ssm_kernels", t.ssm_kernels); });
        if (s.model.vision.active()) {  // a vision-language model: images join each sample; what of the tower trains
            int_field(app, tr(L, S::SampleImages), "train.images", t.images, 0, 64, false);
            if (t.images > 0 && s.model.vision.qwen()) {  // fixed-resolution towers ignore the size
                int_field(app, tr(L, S::ImageWidth), "train.image_width", t.image_width, 1, 100000, false);
                int_field(app, tr(L, S::ImageHeight), "train.image_height", t.image_height, 1, 100000, false);
            }
            enum_combo(app, tr(L, S::VisionTrains), "train.vision", t.vision);
            // QLoRA's 4-bit load: which of the tower's and projector's linears it converts (the core refuses it otherwise)
            if (s.mode == Mode::FineTune && s.finetune.method == FineTuneMethod::QLoRA)
                enum_combo(app, tr(L, S::VisionQuant), "finetune.vision_quant", s.finetune.vision_quant);
            else s.finetune.vision_quant = VisionQuant::All;
        } else {
            s.finetune.vision_quant = VisionQuant::All;
        }
        section_errors(app, "train");
    } else {
        InferenceOptions& in = s.infer;
        // Another weight format is another file: an imported GGUF's tensor bytes size only their own type (gguf_bytes.type).
        enum_combo(app, tr(L, S::WeightFormat), "infer.weights", in.weights);
        enum_combo(app, tr(L, S::KvDtype), "infer.kv_dtype", in.kv_dtype);
        int_field(app, tr(L, S::Batch), "infer.batch", in.batch, 1, 1 << 20, true);
        int_field(app, tr(L, S::Context), "infer.context", in.context, 1, 1 << 24, true);
        int_field(app, tr(L, S::Prompt), "infer.prompt", in.prompt, 0, 1 << 24, true);
        // An encoder-decoder: context is the encoder's source, target_len the tokens generate() writes (0: as the source).
        if (s.model.seq2seq.active()) int_field(app, tr(L, S::InferTargetLen), "infer.target_len", in.target_len, 0, 1 << 24, false);
        else in.target_len = 0;
        if (s.model.vision.active()) {  // a vision-language model: images join each sequence (their tokens by the model's rule)
            int_field(app, tr(L, S::Images), "infer.images", in.images, 0, 64, false);
            if (in.images > 0 && s.model.vision.qwen()) {  // fixed-resolution towers ignore the size
                int_field(app, tr(L, S::ImageWidth), "infer.image_width", in.image_width, 1, 100000, false);
                int_field(app, tr(L, S::ImageHeight), "infer.image_height", in.image_height, 1, 100000, false);
            }
        }
        enum_combo(app, tr(L, S::Engine), "infer.engine", in.engine);
        if (in.engine == Engine::VLLM)
            float_field(app, tr(L, S::GpuMemUtil), "infer.gpu_memory_utilization", in.gpu_memory_utilization, 0.05, 1.0, 0.05,
                        "%.2f");
        check(app, tr(L, S::FlashAttn), "infer.flash_attention", in.flash_attention);
        section_errors(app, "infer");
    }
}

// Tried through validate() (the one owner of the rules), with dp following the GPU count as
// fit_layout_to_gpus sets it.
std::vector<int64_t> valid_degrees(const Scenario& s, int64_t Parallelism::*field, const char* name) {
    std::vector<int64_t> out;
    for (int64_t c = 1; c <= 512; c *= 2) {
        Scenario t = s;
        t.parallel.*field = c;
        apply_knob(t, Knob::GpuCount, t.gpu_count);
        const std::vector<FieldError> errs = validate(t);
        const bool bad = std::any_of(errs.begin(), errs.end(), [&](const FieldError& e) {
            return e.field == name || e.field == "gpu_count" || e.field == "parallel";
        });
        if (!bad) out.push_back(c);
    }
    if (std::find(out.begin(), out.end(), s.parallel.*field) == out.end()) out.insert(out.begin(), s.parallel.*field);
    std::sort(out.begin(), out.end());
    return out;
}

namespace {

// The data-parallel size follows the GPU count and the model split (as the solver's GPU-count knob
// sets it). A split, expert-parallel size or pipeline setting the core's rules then reject goes back
// to 1 / off; the split only when that makes the GPU count valid, so a bad count is shown, not hidden.
void fit_layout_to_gpus(Scenario& s) {
    apply_knob(s, Knob::GpuCount, s.gpu_count);
    if (!rule_error(s, "gpu_count").empty()) {
        Scenario flat = s;
        flat.parallel.tp = flat.parallel.pp = flat.parallel.cp = 1;
        apply_knob(flat, Knob::GpuCount, flat.gpu_count);
        if (rule_error(flat, "gpu_count").empty()) s = flat;
    }
    Parallelism& p = s.parallel;
    if (!rule_error(s, "parallel.ep").empty()) p.ep = 1;
    if (!rule_error(s, "parallel.sp").empty()) p.sp = false;
    if (!rule_error(s, "parallel.virtual_stages").empty()) p.virtual_stages = 1;
    // an uneven split names the stages of one pp: another pp (or a rule it breaks there) goes back to the even split
    if (!rule_error(s, "parallel.first_stage_layers").empty() || !rule_error(s, "parallel.last_stage_layers").empty())
        p.first_stage_layers = p.last_stage_layers = 0;
}

// Whether a switch of the layout is worth showing: it is on, or the core's rules accept turning it on.
bool offered(const Scenario& s, bool Parallelism::*flag, const char* field) {
    if (s.parallel.*flag) return true;
    Scenario t = s;
    t.parallel.*flag = true;
    return rule_error(t, field).empty();
}

// Model chunks per pipeline stage that validate() accepts (1..16), the current one always listed.
std::vector<int64_t> valid_virtual_stages(const Scenario& s) {
    std::vector<int64_t> out;
    for (int64_t v = 1; v <= 16; ++v) {
        Scenario t = s;
        t.parallel.virtual_stages = v;
        if (rule_error(t, "parallel.virtual_stages").empty()) out.push_back(v);
    }
    if (std::find(out.begin(), out.end(), s.parallel.virtual_stages) == out.end()) out.push_back(s.parallel.virtual_stages);
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

void gpu_panel(AppState& app) {
    const Lang L = app.ui.lang;
    Scenario& s = app.scenario;
    if (s.mode == Mode::Local) {
        local_machine_panel(app);
        return;
    }
    field_label(tr(L, S::Gpu));
    ImGui::SetNextItemWidth(-1);
    const std::string preview = s.gpu.name + "  ·  " + amount_with_unit(s.gpu.memory_bytes, SizeUnit::GiB, 1);
    if (begin_dropdown(app, "##gpu", preview.c_str())) {
        TypeAhead typed = typeahead_begin(app);
        for (const GpuPreset& g : gpu_presets()) {
            char label[160];
            std::snprintf(label, sizeof label, "%s  ·  %s", g.name.c_str(), g.marketed.c_str());
            if (dropdown_item(app, label, g.id == app.ui.gpu_preset_id)) {
                s.gpu = g.gpu();
                app.ui.gpu_preset_id = g.id;
                app.dirty = true;
            }
            typeahead_item(typed, label);
            mark(app, "gpu." + g.id);
        }
        if (dropdown_item(app, tr(L, S::CustomGpu), app.ui.gpu_preset_id.empty())) {
            app.ui.gpu_preset_id.clear();
            s.gpu.name = "Custom GPU";
            s.gpu.cuda_total_bytes = 0;  // a custom GPU's memory is the figure CUDA reports
            app.dirty = true;
        }
        ImGui::EndCombo();
    }
    mark(app, "gpu");
    if (app.ui.gpu_preset_id.empty()) {
        double gib = to_gib(s.gpu.memory_bytes);
        if (float_field(app, tr(L, S::GpuMemory), "gpu.memory_bytes", gib, 1, 4096, 8, "%.1f")) s.gpu.memory_bytes = gib * kGiB;
        section_errors(app, "gpu");
    }
    // In inference the count is every GPU of every replica: tensor and pipeline parallel split one
    // replica, the rest are replicas (the parallel section shows each).
    const S count_label = s.mode == Mode::Infer ? S::GpuCountInfer : S::GpuCount;
    if (int_field(app, tr(L, count_label), "gpu_count", s.gpu_count, 1, 65536, false)) fit_layout_to_gpus(s);
}

void parallel_panel(AppState& app) {
    const Lang L = app.ui.lang;
    Scenario& s = app.scenario;
    Parallelism& p = s.parallel;
    const bool train = s.mode != Mode::Infer;
    ImGui::Text("%s: %lld", tr(L, train ? S::DataParallel : S::Replicas), static_cast<long long>(p.dp));
    mark(app, "parallel.dp");
    field_error(app, "parallel.dp");  // gpu_count's own error is under the GPU count
    if (int_choice(app, tr(L, S::TensorParallel), "parallel.tp", p.tp, valid_degrees(s, &Parallelism::tp, "parallel.tp")))
        fit_layout_to_gpus(s);
    if (train && offered(s, &Parallelism::sp, "parallel.sp")) check(app, tr(L, S::SeqParallel), "parallel.sp", p.sp);
    if (int_choice(app, tr(L, S::PipelineParallel), "parallel.pp", p.pp, valid_degrees(s, &Parallelism::pp, "parallel.pp")))
        fit_layout_to_gpus(s);
    if (train && p.pp > 1) {
        if (enum_combo(app, tr(L, S::Schedule), "parallel.schedule", p.schedule)) {
            // interleaving needs more than one model chunk per stage to differ from 1F1B
            const std::vector<int64_t> v = valid_virtual_stages(s);
            p.virtual_stages = p.schedule == PipelineSchedule::Interleaved && v.size() > 1 ? v[1] : 1;
        }
        if (p.schedule == PipelineSchedule::Interleaved)
            int_choice(app, tr(L, S::VirtualStages), "parallel.virtual_stages", p.virtual_stages, valid_virtual_stages(s));
        if (s.model.architecture_known()) cold([&] {  // Megatron's uneven split (--decoder-first/last-pipeline-num-layers)
            int_field(app, tr(L, S::FirstStageLayers), "parallel.first_stage_layers", p.first_stage_layers, 0, s.model.layers, false);
            int_field(app, tr(L, S::LastStageLayers), "parallel.last_stage_layers", p.last_stage_layers, 0, s.model.layers, false);
        });
    }
    if (train &&
        int_choice(app, tr(L, S::ContextParallel), "parallel.cp", p.cp, valid_degrees(s, &Parallelism::cp, "parallel.cp")))
        fit_layout_to_gpus(s);
    if (const std::vector<int64_t> ep = valid_degrees(s, &Parallelism::ep, "parallel.ep"); ep.size() > 1)
        int_choice(app, tr(L, S::ExpertParallel), "parallel.ep", p.ep, ep);
    if (train) {
        const char* stages[] = {"0", "1", "2", "3 / FSDP"};
        field_label(tr(L, S::Zero));
        int z = p.zero;
        if (segmented(app, "parallel.zero", stages, 4, z)) {
            p.zero = z;
            // An offload the new stage does not support goes off (the core's rules say which).
            if (!rule_error(s, "parallel.offload_params").empty()) p.offload_params = false;
            if (!rule_error(s, "parallel.offload_optimizer").empty()) p.offload_optimizer = false;
            app.dirty = true;
        }
        if (offered(s, &Parallelism::offload_optimizer, "parallel.offload_optimizer"))
            check(app, tr(L, S::OffloadOptimizer), "parallel.offload_optimizer", p.offload_optimizer);
        if (offered(s, &Parallelism::offload_params, "parallel.offload_params"))
            check(app, tr(L, S::OffloadParams), "parallel.offload_params", p.offload_params);
        if (p.zero >= 2 && !s.deepspeed.enabled) {  // which FSDP shards without DeepSpeed
            const char* versions[] = {"FSDP1", "FSDP2"};
            field_label(tr(L, S::FsdpVersion));
            int v = p.fsdp_version == 2 ? 1 : 0;
            if (segmented(app, "parallel.fsdp_version", versions, 2, v)) {
                p.fsdp_version = v + 1;
                if (p.fsdp_version == 2) p.fsdp_flat_params = false;  // flat parameters are FSDP1's
                app.dirty = true;
            }
        }
        if (p.dp * p.tp * p.pp * p.cp > 1) cold([&] {  // the PyTorch whose NCCL sizes the communicators (multi-GPU only)
            if (text_field(app, tr(L, S::TorchVersion), "train.torch_version", s.train.torch_version, "2.8", false)) app.dirty = true;
        });
    }
    section_errors(app, "parallel");  // the layout's errors with no field on screen (shard_group, a hidden switch)
}

namespace {

// Rarely changed training inputs: the published accounting to follow, dtype regimes, dropout.
void training_advanced(AppState& app) {
    const Lang L = app.ui.lang;
    Scenario& s = app.scenario;
    TrainingOptions& t = s.train;
    Parallelism& p = s.parallel;
    subheading(tr(L, S::Training));
    enum_combo(app, tr(L, S::Compat), "train.compat", t.compat);
    if (t.compat == Compat::DeepSpeedEstimator) {
        int_field(app, tr(L, S::GpusPerNode), "parallel.gpus_per_node", p.gpus_per_node, 1, 1024, false);
        if (p.zero == 3) check(app, tr(L, S::ZeroInit), "parallel.zero_init", p.zero_init);
    }
    if (t.compat == Compat::None && s.mode == Mode::Train) {  // fine-tunes always walk the tensors
        enum_combo(app, tr(L, S::ActFormula), "train.activation_formula", t.activation_formula);
        if (t.activation_formula == ActivationFormula::Coefficient)
            float_field(app, tr(L, S::ActCoef), "train.activation_coefficient", t.activation_coefficient, 0, 1000, 1, "%.2f");
    }
    if (t.precision != Precision::FP32)
        check(app, tr(L, S::Fp32GradAccum), "train.fp32_grad_accum", t.fp32_grad_accum);
    else
        check(app, tr(L, S::Fp32WeightCopy), "train.extra_fp32_weight_copy", t.extra_fp32_weight_copy);
    check(app, tr(L, S::Fp32GradCopy), "train.fp32_grad_copy", t.fp32_grad_copy);
    enum_combo(app, tr(L, S::StateDtype), "train.optimizer_state_dtype", t.optimizer_state_dtype);
    float_field(app, tr(L, S::Dropout), "train.dropout", t.dropout, 0, 0.95, 0.05, "%.2f");
    if (s.mode == Mode::FineTune && s.finetune.method != FineTuneMethod::Full) {
        float_field(app, tr(L, S::LoraDropout), "finetune.lora_dropout", s.finetune.lora_dropout, 0, 0.95, 0.05, "%.2f");
        check(app, tr(L, S::SaveEmbedding), "finetune.save_embedding", s.finetune.save_embedding);
        check(app, tr(L, S::SaveLmHead), "finetune.save_lm_head", s.finetune.save_lm_head);
    }
    check(app, tr(L, S::Fp32Logits), "train.fp32_logits", t.fp32_logits);
    enum_combo(app, tr(L, S::LossImpl), "train.loss", t.loss);
    section_errors(app, "train");
}

// vLLM engine settings (gpu_memory_utilization is with the engine, in the workload panel).
void vllm_advanced(AppState& app) {
    const Lang L = app.ui.lang;
    InferenceOptions& in = app.scenario.infer;
    subheading("vLLM");
    // The release decides what gpu_memory_utilization's budget holds (core/inference/vllm_budget.h).
    if (text_field(app, tr(L, S::VllmVersion), "infer.vllm_version", in.vllm_version, "0.21", false)) app.dirty = true;
    int_field(app, tr(L, S::MaxNumSeqs), "infer.max_num_seqs", in.max_num_seqs, 0, 1 << 20, true);
    // vLLM's --block-size choices (vllm/config.py BlockSize: 1, 8, 16, 32, 64, 128)
    int_choice(app, tr(L, S::BlockSize), "infer.block_size", in.block_size, {1, 8, 16, 32, 64, 128});
    check(app, tr(L, S::CudaGraphs), "infer.cuda_graphs", in.cuda_graphs);
    // --speculative-config: the drafter's weights, KV layers and buffers (core/inference/speculative.h).
    Speculative& sp = in.speculative;
    enum_combo(app, tr(L, S::Speculative), "infer.speculative.method", sp.method);
    if (sp.method == SpecMethod::Draft)
        if (text_field(app, tr(L, S::SpecDraftModel), "infer.speculative.model", sp.model, "llama-3.2-1b", false)) app.dirty = true;
    if (sp.method != SpecMethod::None)
        int_field(app, tr(L, S::NumSpecTokens), "infer.speculative.num_speculative_tokens", sp.num_speculative_tokens, 1, 64, false);
    section_errors(app, "infer");
}

}  // namespace

void advanced_panel(AppState& app) {
    const Lang L = app.ui.lang;
    Scenario& s = app.scenario;
    Overheads& o = s.overheads;
    double ctx = to_gib(cuda_context_bytes(s));  // the table's row until a number is typed
    if (float_field(app, tr(L, S::CudaContext), "overheads.cuda_context_bytes", ctx, 0, 64, 0.25, "%.2f"))
        o.cuda_context_bytes = ctx * kGiB;
    float_field(app, tr(L, S::Fragmentation), "overheads.fragmentation", o.fragmentation, 0, 1, 0.01, "%.2f");
    // PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: the allocator reserve without split-segment holes
    // (core/allocator_reserve.h); PyTorch runs only (training, transformers inference).
    if (s.mode != Mode::Infer || s.infer.engine == Engine::Transformers)
        check(app, tr(L, S::ExpandableSegments), "overheads.expandable_segments", o.expandable_segments);
    check(app, tr(L, S::TempBuffers), "overheads.temp_buffers", o.temp_buffers);
    double mb = o.bucket_bytes / 1e6;
    if (float_field(app, tr(L, S::BucketMB), "overheads.bucket_bytes", mb, 0, 1e5, 25, "%.0f")) o.bucket_bytes = mb * 1e6;
    if (s.mode != Mode::Infer) {
        check(app, tr(L, S::BackwardWorking), "overheads.backward_working_set", o.backward_working_set);
        training_advanced(app);
    } else if (s.infer.engine == Engine::VLLM) {
        vllm_advanced(app);
    }
    section_errors(app, "overheads");
}

}  // namespace vl::ui
