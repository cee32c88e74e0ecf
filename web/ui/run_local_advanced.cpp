// Run locally's manual placement (issue 19): the "Advanced placement" section (llama.cpp / Ollama
// -ngl, --n-cpu-moe, --tensor-split, --split-mode, --main-gpu, -ub, -nkvo, the vision projector;
// vLLM / SGLang tp and pp) and the GPUs not in the presets in the device list. Each writes its
// s.local field; plan_local checks it and names it (local.ngl, local.custom_gpus[0].memory_gib, ...).
// An option is drawn only where it applies: its engine, an MoE model, two or more GPUs.
#include <imgui.h>

#include "number_input.h"
#include "planner/launch.h"
#include "ui/panels.h"
#include "ui/run_local.h"
#include "ui/widgets.h"
#include "units.h"

namespace vl::ui {

namespace {

// The tensor split as typed ("3,1"): kept while it is edited or does not read, so "3," can become "3,1".
void tensor_split_field(AppState& app, const char* label) {
    const char* key = "local.tensor_split";
    LocalOptions& lo = app.scenario.local;
    const std::string shown = tensor_split_text(lo.tensor_split);
    auto edit = app.ui.number_text.find(key);
    std::string text = edit != app.ui.number_text.end() ? edit->second.text : shown;
    const bool changed = text_field(app, label, key, text, "3,1", false);
    const bool active = being_edited(app, key);
    const Result<std::vector<double>> parsed = parse_number_list(text, key);
    if (changed) {
        app.ui.number_text[key] = {text, shown};
        if (parsed.ok() && *parsed.value != lo.tensor_split) {
            lo.tensor_split = *parsed.value;
            app.dirty = true;
        }
    }
    if (!parsed.ok()) {
        ImGui::PushStyleColor(ImGuiCol_Text, col_bad(app));
        ImGui::TextWrapped("%s", parsed.errors.front().message.c_str());
        ImGui::PopStyleColor();
    } else if (!active) {
        app.ui.number_text.erase(key);
    }
    field_error(app, key);
}

}  // namespace

void local_advanced_panel(AppState& app) {
    const Lang L = app.ui.lang;
    LocalOptions& lo = app.scenario.local;
    const size_t gpus = local_gpu_count(lo);
    if (is_serving(lo.engine)) {
        int_field(app, tr(L, S::TpField), "local.tp", lo.tp, 0, 64, false);
        if (lo.engine == LocalEngine::VLLM || lo.pp != 0) int_field(app, tr(L, S::PpField), "local.pp", lo.pp, 0, 64, false);
        return;
    }
    int_field(app, tr(L, S::NglField), "local.ngl", lo.ngl, -1, app.scenario.model.layers + 1, false);
    if (app.scenario.model.moe.num_experts > 0 || lo.n_cpu_moe != 0)
        int_field(app, tr(L, S::NCpuMoe), "local.n_cpu_moe", lo.n_cpu_moe, 0, app.scenario.model.layers, false);
    if (gpus > 1 || lo.split_mode != SplitMode::Layer) {
        field_label(tr(L, S::SplitModeField));
        const char* modes[] = {"layer", "row", "none"};
        int m = static_cast<int>(lo.split_mode);
        if (segmented(app, "local.split_mode", modes, 3, m)) {
            lo.split_mode = static_cast<SplitMode>(m);
            if (lo.split_mode == SplitMode::None) lo.tensor_split.clear();  // none: one GPU, no split to give
            else lo.main_gpu = 0;  // llama.cpp reads --main-gpu only with none
            app.dirty = true;
        }
    }
    if (lo.split_mode == SplitMode::None || lo.main_gpu != 0)
        int_field(app, tr(L, S::MainGpu), "local.main_gpu", lo.main_gpu, 0, static_cast<int64_t>(gpus > 0 ? gpus - 1 : 0), false);
    if ((gpus > 1 && lo.split_mode != SplitMode::None) || !lo.tensor_split.empty()) tensor_split_field(app, tr(L, S::TensorSplitField));
    int_field(app, tr(L, S::UbatchField), "local.ubatch", lo.ubatch, 1, 1 << 16, true);
    bool nkvo = !lo.kv_offload;
    if (check(app, tr(L, S::KvInRam), "local.kv_offload", nkvo)) lo.kv_offload = !nkvo;
    double mib = lo.mmproj_bytes / kMiB;
    if (float_field(app, tr(L, S::MmprojMib), "local.mmproj_bytes", mib, 0, 1 << 20, 64, "%.0f")) {
        lo.mmproj_bytes = mib * kMiB;
        if (lo.mmproj_bytes == 0) lo.mmproj_encoder = {}, lo.mmproj_file.clear(), lo.image_max_tokens = 0;  // no projector, no encoder
    }
    // The projector's .gguf from disk: the page reads its header only (shell/bridge.js), import_mmproj takes its sizes.
    if (ImGui::Button(tr(L, S::MmprojPick))) app.outbox.push_back({"mmproj", "", "", ""});
    mark(app, "local.mmproj_pick");
    if (!app.ui.mmproj_message.empty()) ImGui::TextWrapped("%s", say(app, app.ui.mmproj_message).c_str());
    field_error(app, "local.mmproj_encoder");
    if (dynamic_resolution(lo.mmproj_encoder) || lo.image_max_tokens != 0)
        int_field(app, tr(L, S::ImageMaxTokens), "local.image_max_tokens", lo.image_max_tokens, 0, int64_t{1} << 24, false);
    if (lo.mmproj_bytes > 0 || !lo.mmproj_offload) {
        bool in_ram = !lo.mmproj_offload;
        if (check(app, tr(L, S::MmprojInRam), "local.mmproj_offload", in_ram)) lo.mmproj_offload = !in_ram;
    }
}


void local_custom_gpus_panel(AppState& app) {
    const Lang L = app.ui.lang;
    LocalOptions& lo = app.scenario.local;
    for (size_t i = 0; i < lo.custom_gpus.size(); ++i) {
        LocalCustomGpu& g = lo.custom_gpus[i];
        const std::string f = "local.custom_gpus[" + std::to_string(i) + "]";
        ImGui::PushID(f.c_str());
        subheading((std::string(tr(L, S::CustomGpuTitle)) + " " + std::to_string(lo.gpus.size() + i)).c_str());  // its device index
        std::string name = g.name;
        if (text_field(app, tr(L, S::Name), (f + ".name").c_str(), name, "RTX 5070 Ti", false) && name != g.name) {
            g.name = name;
            app.dirty = true;
        }
        field_error(app, (f + ".name").c_str());
        float_field(app, tr(L, S::MemoryGib), (f + ".memory_gib").c_str(), g.memory_gib, 1, 4096, 1, "%.6g");
        float_field(app, tr(L, S::BandwidthGbs), (f + ".bandwidth_gbs").c_str(), g.bandwidth_gbs, 1, 100000, 16, "%.6g");
        float_field(app, tr(L, S::Fp16Tflops), (f + ".fp16_tflops").c_str(), g.fp16_tflops, 0, 100000, 1, "%.6g");
        const bool removed = ImGui::Button(tr(L, S::Remove));
        mark(app, f + ".remove");
        ImGui::PopID();
        if (removed) {
            remove_custom_gpu(app, i);
            break;
        }
    }
    if (ImGui::Button(tr(L, S::AddCustomGpu))) add_custom_gpu(app);
    mark(app, "local.custom_gpus.add");
}

}  // namespace vl::ui
