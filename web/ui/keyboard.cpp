// Keyboard navigation (keyboard.h), on Dear ImGui 1.86's own navigation requests.
#include "ui/keyboard.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>

namespace vl::ui {

void keyboard_before_frame() {
    if (!GImGui) return;
    ImGuiContext& g = *GImGui;
    ImGuiIO& io = g.IO;
    // A key held across a slow frame is one press. Dear ImGui repeats a held key once it has been down for
    // KeyRepeatDelay (0.275 s; 0.72 of it for the arrows' navigation), timed by adding DeltaTime, the wall clock
    // since the last frame: the page draws only when something happens, and a busy machine or a slow phone draws
    // a frame late, so a Tab pressed for 50 ms counted as held past the delay and moved the focus twice. A frame
    // counts for at most kKeyFrameSeconds of a key's time (the delay grows by the rest, for this frame only); a key
    // held down for real still repeats, as the browser's own repeats keep frames coming at the display's rate.
    constexpr float kKeyRepeatDelay = 0.275f, kKeyFrameSeconds = 1.0f / 30.0f, kNavDelayShare = 0.72f;  // imgui.cpp defaults
    io.KeyRepeatDelay = kKeyRepeatDelay + std::max(0.0f, io.DeltaTime - kKeyFrameSeconds) / kNavDelayShare;
    // Pressed in this frame: down now and up in the last one (KeysDownDuration still holds the last frame's, -1 when up).
    // Not while held: a field that Enter just released would be taken again by a frame drawn before the key comes up.
    auto pressed = [&](ImGuiKey k) { const int i = io.KeyMap[k]; return i >= 0 && io.KeysDown[i] && io.KeysDownDuration[i] < 0; };
    if (g.ActiveId == 0 && g.NavId != 0 && (pressed(ImGuiKey_Enter) || pressed(ImGuiKey_KeyPadEnter)))
        io.NavInputs[ImGuiNavInput_Activate] = 1.0f;
}

namespace {

// A Tab move request as ImGui makes one (imgui.cpp NavUpdateCreateTabbingRequest), scored over this
// frame's items; the caller sets its direction (g.NavTabbingDir).
void submit_tabbing(ImGuiDir clip_dir, ImGuiNavMoveFlags extra, ImGuiScrollFlags scroll) {
    ImGuiContext& g = *GImGui;
    ImGui::NavMoveRequestSubmit(ImGuiDir_None, clip_dir, ImGuiNavMoveFlags_Tabbing | extra, scroll);
    g.NavTabbingResultFirst.Clear();
    g.NavTabbingCounter = -1;
}

// Where Tab would go from the focused control, scored over this frame's items (keyboard_end_frame).
void start_tab_probe(AppState& app) {
    ImGuiContext& g = *GImGui;
    const ImGuiWindow* w = g.NavWindow;
    if (!app.ui.focus_chosen || g.NavId == 0 || !w || g.NavMoveScoringItems || g.NavInitRequest) return;
    if ((w->Flags & ImGuiWindowFlags_Popup) || ((w->Flags & ImGuiWindowFlags_ChildWindow) && !(w->Flags & ImGuiWindowFlags_NavFlattened))) {
        app.ui.tab_edge = 0;  // a popup, or inside a scrolling list: Tab goes on from the list (below)
        return;
    }
    submit_tabbing(ImGuiDir_Down, ImGuiNavMoveFlags_FocusApi | ImGuiNavMoveFlags_DontSetNavHighlight, ImGuiScrollFlags_None);
    g.NavTabbingDir = +1;
    app.ui.tab_probe_from = g.NavId;
}

// The keyboard came in from the page (keyboard_entered): a Tab request over the whole window from no
// item, which ImGui scores to the first item (NavTabbingDir 0) or, going back, to the last one it sees
// (NavTabbingDir -1 never meets the focused item, so each item replaces the last).
bool enter_from_page(AppState& app) {
    ImGuiContext& g = *GImGui;
    const int dir = app.ui.enter_dir;
    app.ui.enter_dir = 0;
    ImGuiWindow* root = ImGui::FindWindowByName(kRootWindow);
    if (dir == 0 || !root) return false;
    ImGui::FocusWindow(root);
    g.NavWindow = root;
    g.NavLayer = ImGuiNavLayer_Main;
    g.NavId = 0;
    submit_tabbing(dir < 0 ? ImGuiDir_Up : ImGuiDir_Down, ImGuiNavMoveFlags_FocusApi,
                   ImGuiScrollFlags_KeepVisibleEdgeX | ImGuiScrollFlags_KeepVisibleEdgeY);
    g.NavTabbingDir = dir < 0 ? -1 : 0;
    app.ui.tab_dir = dir;
    app.ui.focus_chosen = true;
    return true;
}

}  // namespace

void keyboard_begin_frame(AppState& app) {
    ImGuiContext& g = *GImGui;
    app.ui.focus_key.clear();
    if (enter_from_page(app)) {
        app.ui.tab_skip.clear();
        return;
    }
    // Until a click or a keyboard move, the focus ImGui gives a new window's first item is no one's:
    // the first Tab goes to the first control.
    if (g.IO.MouseClicked[0] || g.NavJustMovedToId != 0) app.ui.focus_chosen = true;
    std::vector<unsigned> skip;
    skip.swap(app.ui.tab_skip);
    // The last Tab landed on something that is no control: go on in the same direction.
    const bool landed_on_skip = g.NavJustMovedToId != 0 && app.ui.tab_dir != 0 &&
                                std::find(skip.begin(), skip.end(), g.NavJustMovedToId) != skip.end();
    const bool tabbing = g.NavMoveScoringItems && (g.NavMoveFlags & ImGuiNavMoveFlags_Tabbing) &&
                         !(g.NavMoveFlags & ImGuiNavMoveFlags_FocusApi);  // ImGui's own Tab request
    if (!tabbing && !landed_on_skip) {
        if (g.NavJustMovedToId != 0) app.ui.tab_dir = 0;
        start_tab_probe(app);
        return;
    }
    if (!g.NavWindow) return;
    // Tab in a list that scrolls by itself (a child window that is not part of its parent's order):
    // go on from the list, in its parent.
    ImGuiWindow* w = g.NavWindow;
    ImGuiID from = g.NavId;
    while ((w->Flags & ImGuiWindowFlags_ChildWindow) && !(w->Flags & (ImGuiWindowFlags_NavFlattened | ImGuiWindowFlags_Popup)) &&
           w->ParentWindow) {
        from = w->ChildId;
        w = w->ParentWindow;
    }
    int dir = landed_on_skip ? app.ui.tab_dir : (g.IO.KeyShift ? -1 : +1);
    if (landed_on_skip || w != g.NavWindow) {
        g.NavWindow = w;
        g.NavId = from;
        submit_tabbing(dir < 0 ? ImGuiDir_Up : ImGuiDir_Down, ImGuiNavMoveFlags_None,
                       ImGuiScrollFlags_KeepVisibleEdgeX | ImGuiScrollFlags_KeepVisibleEdgeY);
    }
    // Every item is a stop (not only text fields), and Tab goes on from the focused one even when no
    // text field is being edited (ImGui would go back to the first).
    g.NavMoveFlags |= ImGuiNavMoveFlags_FocusApi;
    g.NavTabbingDir = dir < 0 ? -1 : (g.NavId != 0 && app.ui.focus_chosen ? +1 : 0);
    app.ui.tab_dir = dir;
    app.ui.focus_chosen = true;
}

// The probe started in keyboard_begin_frame has scored this frame's items as a forward Tab
// (imgui.cpp NavProcessItemForTabbingRequest): its counter is still 1 when no item came after the
// focused one, and the first item it scored is the first control. Cancelled before EndFrame, so
// nothing moves.
void keyboard_end_frame(AppState& app) {
    ImGuiContext& g = *GImGui;
    if (!app.ui.focus_chosen || g.NavId == 0) app.ui.tab_edge = -1;  // the canvas is the stop before the first control
    const ImGuiID from = app.ui.tab_probe_from;
    if (from == 0) return;
    app.ui.tab_probe_from = 0;
    if (!g.NavMoveSubmitted || !(g.NavMoveFlags & ImGuiNavMoveFlags_Tabbing)) return;  // ImGui replaced it
    // A click this frame moved the focus: not known until the next frame (each input draws three).
    if (g.NavId != from) app.ui.tab_edge = 0;
    else app.ui.tab_edge = g.NavTabbingCounter == 1 ? +1 : g.NavTabbingResultFirst.ID == from ? -1 : 0;
    ImGui::NavMoveRequestCancel();
}

void keyboard_lost_focus(AppState& app) {
    // The keys still down (Shift of the Shift+Tab that left) come up on the page, which the app never
    // sees: without this, the next Tab after coming back would count as Shift+Tab.
    app.ui.release_keys = true;
    app.ui.focus_chosen = false;
    app.ui.tab_edge = -1;
    // The focus ring leaves with the keyboard: none is drawn while the focus is elsewhere on the page
    // or in the browser's toolbar (coming back by Tab or Shift+Tab shows it again, enter_from_page).
    if (GImGui) GImGui->NavDisableHighlight = true;
}

void keyboard_entered(AppState& app, int dir) {
    app.ui.enter_dir = dir < 0 ? -1 : +1;
    app.ui.tab_edge = 0;  // a key pressed before the next frame stays in the app
}

void not_a_tab_stop(AppState& app) {
    if (const ImGuiID id = ImGui::GetItemID()) app.ui.tab_skip.push_back(id);
}

void note_focus(AppState& app, const std::string& key) {
    const ImGuiContext& g = *GImGui;
    const ImGuiID id = ImGui::GetItemID();
    if (id == 0 || id != g.NavId || !app.ui.focus_key.empty()) return;
    app.ui.focus_key = key;
    app.ui.focus_ring = !g.NavDisableHighlight || g.ActiveId == id;
}

}  // namespace vl::ui
