// Share panel: the link (the scenario lives in the URL fragment), the embed snippet, and exports
// (core/export.h: the same text the CLI prints) to the clipboard or as a download.
#include <algorithm>

#include "export.h"
#include "ui/panels.h"
#include "ui/widgets.h"

namespace vl::ui {


void share_panel(AppState& app) {
    const Lang L = app.ui.lang;
    if (ImGui::Button(tr(L, S::CopyLink), ImVec2(app.ui.env.touch ? -1.0f : 0.0f, 0))) copy_text(app, "link", share_url(app, false, false));
    mark(app, "share.copy_link");
    copied_badge(app, "link");

    ImGui::Spacing();
    ImGui::TextUnformatted(tr(L, S::EmbedSnippet));
    ImGui::Checkbox(tr(L, S::EmbedEditable), &app.ui.snippet_editable);
    mark(app, "share.editable");
    const bool edit = app.ui.snippet_editable;
    const std::string snippet = embed_snippet(app, edit);
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", snippet.c_str());
    ImGui::PopTextWrapPos();
    mark(app, "share.snippet");
    if (ImGui::Button(tr(L, S::CopySnippet))) copy_text(app, "snippet", snippet);
    mark(app, "share.copy_snippet");
    copied_badge(app, "snippet");

    ImGui::Spacing();
    ImGui::TextUnformatted(tr(L, S::Export));
    struct Fmt { ExportFormat f; const char* key; const char* file; const char* mime; };
    const Fmt fmts[] = {{ExportFormat::Json, "json", "vramlens.json", "application/json"},
                        {ExportFormat::Markdown, "markdown", "vramlens.md", "text/markdown"},
                        {ExportFormat::Csv, "csv", "vramlens.csv", "text/csv"}};
    ExportOptions opt;
    opt.unit = app.ui.unit;
    if (app.derived.solved) {  // the "what fits" line and the single changes that fit, as the page shows them
        opt.answers = &app.derived.answers;
        opt.levers = &app.derived.levers;
    }
    float name_w = 0;  // the buttons line up after the longest format name
    for (const Fmt& f : fmts) name_w = std::max(name_w, ImGui::CalcTextSize(f.key).x);
    for (const Fmt& f : fmts) {
        ImGui::PushID(f.key);
        ImGui::AlignTextToFramePadding();
        ImGui::TextUnformatted(f.key);
        ImGui::SameLine(ImGui::GetCursorPosX() + name_w + ImGui::GetStyle().ItemSpacing.x * 2);
        if (ImGui::Button(tr(L, S::Copy))) copy_text(app, f.key, export_estimate(app.scenario, app.estimate, f.f, opt));
        mark(app, std::string("export.copy.") + f.key);
        ImGui::SameLine();
        if (ImGui::Button(tr(L, S::Download)))
            app.outbox.push_back({"download", f.file, f.mime, export_estimate(app.scenario, app.estimate, f.f, opt), 0, 0, 0, 0});
        mark(app, std::string("export.download.") + f.key);
        copied_badge(app, f.key);
        ImGui::PopID();
    }
}

}  // namespace vl::ui
