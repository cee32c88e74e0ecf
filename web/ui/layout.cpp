// draw(): the frame. Reads page events, recomputes when the scenario changed, and lays the panels
// out for the window: two columns when wide, tabs on a phone, results-first in an embed.
#include <imgui.h>

#include <algorithm>

#include "ui/keyboard.h"
#include "ui/page_bridge.h"
#include "ui/panels.h"
#include "ui/scrolling.h"
#include "ui/widgets.h"

namespace vl::ui {

namespace {

// Theme and sizes (touch targets are larger). Rebuilt only when one of them changes.
void apply_style(const AppState& app) {
    ImGuiStyle st;
    if (app.ui.theme == Theme::Light) ImGui::StyleColorsLight(&st);
    else ImGui::StyleColorsDark(&st);
    st.WindowRounding = 0;
    st.FrameRounding = 4;
    st.GrabRounding = 4;
    st.ChildRounding = 4;
    st.WindowPadding = ImVec2(12, 10);
    st.FramePadding = app.ui.env.touch ? ImVec2(10, 8) : ImVec2(8, 4);
    st.ItemSpacing = app.ui.env.touch ? ImVec2(8, 8) : ImVec2(8, 5);
    st.ScrollbarSize = app.ui.env.touch ? 6 : 12;
    st.TouchExtraPadding = app.ui.env.touch ? ImVec2(2, 2) : ImVec2(0, 0);
    // Lists that open over the page (combos) are opaque: the inputs under them do not show through.
    st.Colors[ImGuiCol_PopupBg].w = 1.0f;
    if (app.ui.theme == Theme::Light) {
        st.Colors[ImGuiCol_WindowBg] = ImVec4(0.97f, 0.97f, 0.98f, 1);
        st.Colors[ImGuiCol_ChildBg] = ImVec4(1, 1, 1, 1);
        st.Colors[ImGuiCol_FrameBg] = ImVec4(0.90f, 0.91f, 0.93f, 1);  // checkboxes and fields show on the white panels
        st.Colors[ImGuiCol_PlotLines] = ImVec4(0.15f, 0.35f, 0.8f, 1);
    } else {
        st.Colors[ImGuiCol_WindowBg] = ImVec4(0.11f, 0.12f, 0.14f, 1);
        st.Colors[ImGuiCol_ChildBg] = ImVec4(0.14f, 0.15f, 0.18f, 1);
        st.Colors[ImGuiCol_PlotLines] = ImVec4(0.55f, 0.75f, 1.0f, 1);
    }
    ImGui::GetStyle() = st;
}

void top_bar(AppState& app) {
    const Lang L = app.ui.lang;
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(tr(L, S::AppTitle));
    const float full = ImGui::GetContentRegionAvail().x;
    if (full > 640) {
        ImGui::SameLine();
        ImGui::TextDisabled("%s", tr(L, S::Tagline));
    }
    // Right-aligned toggles: language, theme, unit.
    const char* lang = tr(L, S::Language);
    // The button names the theme in use (pressing it switches to the other one).
    const char* theme = tr(L, app.ui.theme == Theme::Dark ? S::ThemeIsDark : S::ThemeIsLight);
    const char* unit = app.ui.unit == SizeUnit::GiB ? "GiB → GB" : "GB → GiB";
    const ImGuiStyle& st = ImGui::GetStyle();
    auto bw = [&](const char* t) { return ImGui::CalcTextSize(t).x + st.FramePadding.x * 2; };
    const float w = bw(lang) + bw(theme) + bw(unit) + st.ItemSpacing.x * 2;
    ImGui::SameLine(std::max(ImGui::GetCursorPosX(), ImGui::GetWindowContentRegionMax().x - w));
    if (ImGui::Button(lang)) app.ui.lang = L == Lang::En ? Lang::Zh : Lang::En;
    mark(app, "toggle.lang");
    ImGui::SameLine();
    if (ImGui::Button(theme)) app.ui.theme = app.ui.theme == Theme::Dark ? Theme::Light : Theme::Dark;
    mark(app, "toggle.theme");
    ImGui::SameLine();
    if (ImGui::Button(unit)) app.ui.unit = app.ui.unit == SizeUnit::GiB ? SizeUnit::GB : SizeUnit::GiB;
    mark(app, "toggle.unit");
}

// The Chinese font (and the catalogue of the core's messages) on its way, or not coming (FontLoad): said in English, which the built-in font draws.
void zh_font_notice(AppState& app) {
    if (app.ui.lang != Lang::Zh) return;
    if (app.ui.zh_font == FontLoad::Loading) {
        ImGui::TextDisabled("Loading the Chinese font (%s)...", kZhFontFile);
        mark(app, "zh_font.loading");
    } else if (app.ui.zh_font == FontLoad::Failed) {
        ImGui::PushStyleColor(ImGuiCol_Text, col_bad(app));
        ImGui::TextWrapped("A file of the Chinese UI could not be loaded (%s): Chinese text cannot be shown until it is. "
                           "Check the connection and retry, or switch to English.",
                           app.ui.zh_font_error.c_str());
        ImGui::PopStyleColor();
        if (ImGui::SmallButton("Retry")) app.ui.zh_font = FontLoad::NotNeeded;
        mark(app, "zh_font.retry");
        ImGui::SameLine();
        if (ImGui::SmallButton("English")) app.ui.lang = Lang::En;
        mark(app, "zh_font.english");
    }
}

// A link or scenario waits for the model list (ModelList, issue 16): said where any notice would be.
void waiting_notice(AppState& app) {
    if (!app.ui.waiting_input) return;
    ImGui::TextDisabled("%s", tr(app.ui.lang, S::WaitingForModels));
    mark(app, "models.waiting");
}

void notice(AppState& app) {
    if (app.ui.notice.empty()) return;
    ImGui::PushStyleColor(ImGuiCol_Text, col_bad(app));
    ImGui::TextWrapped("%s", app.ui.notice.c_str());
    ImGui::PopStyleColor();
    if (ImGui::SmallButton(tr(app.ui.lang, S::Dismiss))) app.ui.notice.clear();
    mark(app, "notice");
}

void status(AppState& app) {
    if (app.ui.status == S::Count_) return;
    ImGui::PushStyleColor(ImGuiCol_Text, col_ok(app));
    ImGui::TextWrapped("%s", status_text(app).c_str());
    ImGui::PopStyleColor();
    ImGui::PushID("status");
    if (ImGui::SmallButton(tr(app.ui.lang, S::Dismiss))) app.ui.status = S::Count_;
    ImGui::PopID();
    mark(app, "status");
}

// gpu_first: the desktop's column and the phone's Setup tab put the GPU right after the model, so that
// its picker is in view with the verdict (beside it on a laptop screen, under it on a phone) above the
// mode's longer settings (issue 15); an editable embed keeps model, mode, GPU (its verdict is above).
void inputs_column(AppState& app, bool gpu_first) {
    const Lang L = app.ui.lang;
    struct Section { S title; const char* key; void (*panel)(AppState&); ImGuiTreeNodeFlags flags; };
    const Section gpu = {S::Gpu, "section.gpu", gpu_panel, ImGuiTreeNodeFlags_DefaultOpen};
    const Section mode = {S::Mode, "section.mode", workload_panel, ImGuiTreeNodeFlags_DefaultOpen};
    const Section sections[] = {
        {S::Model, "section.model", model_panel, ImGuiTreeNodeFlags_DefaultOpen},
        gpu_first ? gpu : mode,
        gpu_first ? mode : gpu,
        {S::Parallelism, "section.parallel", parallel_panel, ImGuiTreeNodeFlags_DefaultOpen},
        {S::Advanced, "section.advanced", advanced_panel, 0},
        {S::AdvancedPlacement, "section.placement", local_advanced_panel, 0},  // Run locally only
    };
    for (const Section& sec : sections) {
        // Run locally: the planner chooses the layout, and the estimator's advanced settings do not apply.
        if (app.scenario.mode == Mode::Local && (sec.panel == parallel_panel || sec.panel == advanced_panel)) continue;
        if (app.scenario.mode != Mode::Local && sec.panel == local_advanced_panel) continue;
        const bool open = ImGui::CollapsingHeader(tr(L, sec.title), sec.flags);
        mark(app, sec.key);  // the header
        if (open) sec.panel(app);
    }
}

void results_column(AppState& app, bool compact) {
    summary_panel(app);
    ImGui::Spacing();
    breakdown_panel(app);
    ImGui::Spacing();
    if (!compact) {
        const float w = ImGui::GetContentRegionAvail().x;
        if (w > 700) {
            ImGui::BeginGroup();
            ImGui::PushItemWidth(w * 0.6f);
            ImGui::BeginChild("##sweepbox", ImVec2(w * 0.62f, 230), false, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NavFlattened);
            sweep_panel(app);
            ImGui::EndChild();
            ImGui::PopItemWidth();
            ImGui::SameLine();
            ImGui::BeginChild("##phasebox", ImVec2(0, 230), false, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NavFlattened);
            phases_panel(app);
            ImGui::EndChild();
            ImGui::EndGroup();
        } else {
            sweep_panel(app);
            ImGui::Spacing();
            phases_panel(app);
        }
        ImGui::Spacing();
    }
    table_panel(app);
    notes_panel(app);
}

}  // namespace

void draw(AppState& app) {
    ImGuiIO& io = ImGui::GetIO();
    io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
    keyboard_begin_frame(app);
    page_begin_frame(app);
    if (!app.ui.started) {
        app.ui.theme = app.ui.env.prefer_light ? Theme::Light : Theme::Dark;
        app.ui.lang = app.ui.env.lang_zh ? Lang::Zh : Lang::En;
        open_hash(app, app.ui.env.hash);
        if (app.ui.env.hash_refused_bytes > 0) refuse_input(app, "hash", app.ui.env.hash_refused_bytes);
        app.ui.started = true;
    }
    handle_inbox(app);
    const int style_key = static_cast<int>(app.ui.theme) * 2 + (app.ui.env.touch ? 1 : 0);
    if (style_key != app.ui.applied_style) {
        apply_style(app);
        app.ui.applied_style = style_key;
    }
    refresh(app);
    app.ui.last_items.swap(app.ui.items);
    app.ui.items.clear();
    app.ui.text_fields.clear();
    app.ui.shown_errors.clear();
    app.ui.tooltip.clear();

    const ImVec2 size = io.DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(size);
    const ImGuiWindowFlags root = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                                  ImGuiWindowFlags_NoBringToFrontOnFocus;
    const bool embed = app.ui.env.embed;
    ImGui::Begin(kRootWindow, nullptr, embed ? root | ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse : root);
    begin_touch_drag(app);
    top_bar(app);
    zh_font_notice(app);
    waiting_notice(app);
    notice(app);
    status(app);
    const Lang L = app.ui.lang;
    if (embed) {
        results_column(app, !app.ui.env.embed_editable);
        if (app.ui.env.embed_editable && ImGui::CollapsingHeader(tr(L, S::Setup))) inputs_column(app, false);
        if (ImGui::Button(tr(L, S::OpenFull))) app.outbox.push_back({"open", app.ui.env.base_url + "#" + app.ui.last_fragment, "", "", 0, 0, 0, 0});
        mark(app, "embed.open");
        // The parent page sizes the iframe to the content (shell: postMessage).
        const float h = ImGui::GetCursorPosY() + ImGui::GetStyle().WindowPadding.y;
        if (std::abs(h - app.ui.content_height) > 1) {
            app.ui.content_height = h;
            app.outbox.push_back({"height", "", "", "", 0, 0, 0, h});
        }
    } else if (size.x >= kTwoColumnsMinWidth) {
        const float left = std::clamp(size.x * 0.34f, 340.0f, 460.0f);
        ImGui::BeginChild("##inputs", ImVec2(left, 0), true, ImGuiWindowFlags_NavFlattened);  // one Tab order (keyboard.h)
        inputs_column(app, true);
        ImGui::EndChild();
        ImGui::SameLine();
        ImGui::BeginChild("##results", ImVec2(0, 0), true, ImGuiWindowFlags_NavFlattened);
        results_column(app, false);
        if (ImGui::CollapsingHeader(tr(L, S::Share), ImGuiTreeNodeFlags_DefaultOpen)) share_panel(app);
        mark(app, "section.share");
        ImGui::EndChild();
    } else {
        // Phone: the verdict stays on top; below it, tabs for results, setup and sharing.
        summary_panel(app);
        const char* tabs[] = {tr(L, S::Results), tr(L, S::Setup), tr(L, S::Share)};
        int tab = static_cast<int>(app.ui.phone_tab);
        if (segmented(app, "tab", tabs, 3, tab)) app.ui.phone_tab = static_cast<PhoneTab>(tab);
        ImGui::BeginChild("##phone", ImVec2(0, 0), false, ImGuiWindowFlags_NavFlattened);
        switch (app.ui.phone_tab) {
            case PhoneTab::Results:
                breakdown_panel(app);
                ImGui::Spacing();
                sweep_panel(app);
                ImGui::Spacing();
                phases_panel(app);
                ImGui::Spacing();
                table_panel(app);
                notes_panel(app);
                break;
            case PhoneTab::Setup: inputs_column(app, true); break;
            case PhoneTab::Share: share_panel(app); break;
        }
        ImGui::EndChild();
    }
    end_touch_drag(app);
    ImGui::End();
    refresh(app);  // a change made this frame shows its numbers (and updates the link) right away
    queue_fragment(app);
    app.ui.text_active = io.WantTextInput;
    keyboard_end_frame(app);
    page_end_frame(app);
}

}  // namespace vl::ui
