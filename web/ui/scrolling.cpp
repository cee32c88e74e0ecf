// Scrolling as on a web page (scrolling.h).
#include "ui/scrolling.h"

#include <imgui_internal.h>

namespace vl::ui {

namespace {

// The window Dear ImGui takes as hovered at `p` (its FindHoveredWindow, without window moving), between
// frames (EndFrame has sorted g.Windows into display order). The implicit "Debug" window is never shown.
ImGuiWindow* window_at(ImVec2 p) {
    ImGuiContext& g = *GImGui;
    for (int i = g.Windows.Size - 1; i >= 0; --i) {
        ImGuiWindow* w = g.Windows[i];
        if (!w->Active || w->Hidden || w->IsFallbackWindow || (w->Flags & ImGuiWindowFlags_NoMouseInputs)) continue;
        ImRect bb(w->OuterRectClipped);
        bb.Expand(g.Style.TouchExtraPadding);
        if (bb.Contains(p)) return w;
    }
    return nullptr;
}

bool takes_mouse_scroll(const ImGuiWindow* w) {
    return !(w->Flags & (ImGuiWindowFlags_NoScrollWithMouse | ImGuiWindowFlags_NoMouseInputs));
}

// Whether `w` can scroll on `axis` (0: x, 1: y) in direction `dir` (> 0: towards the end).
bool can_move(const ImGuiWindow* w, int axis, float dir) {
    const float at = axis ? w->Scroll.y : w->Scroll.x, max = axis ? w->ScrollMax.y : w->ScrollMax.x;
    return dir > 0 ? at < max : at > 0;
}

// Dear ImGui's wheel target on `axis` from the hovered window: children with nothing to scroll (or
// that refuse the wheel) hand it to their parent.
ImGuiWindow* wheel_target(ImGuiWindow* w, int axis) {
    while ((w->Flags & ImGuiWindowFlags_ChildWindow) &&
           ((axis ? w->ScrollMax.y : w->ScrollMax.x) == 0.0f ||
            ((w->Flags & ImGuiWindowFlags_NoScrollWithMouse) && !(w->Flags & ImGuiWindowFlags_NoMouseInputs))))
        w = w->ParentWindow;
    return takes_mouse_scroll(w) ? w : nullptr;
}

ImGuiID drag_id() { return ImHashStr("vramlens/touch-drag"); }

}  // namespace

bool wheel_scrolls_at(ImVec2 p, float dx, float dy, bool shift) {
    ImGuiContext& g = *GImGui;
    // ImGui keeps a wheel on the window it last scrolled until the mouse moves away.
    ImGuiWindow* w = g.WheelingWindow;
    const float mx = p.x - g.WheelingWindowRefMousePos.x, my = p.y - g.WheelingWindowRefMousePos.y;
    if (!w || mx * mx + my * my > g.IO.MouseDragThreshold * g.IO.MouseDragThreshold) w = window_at(p);
    if (!w || w->Collapsed) return false;
    // SDL turns deltaY into a wheel step of the opposite sign and passes deltaX on as it is; ImGui
    // moves the scroll by minus the step, and with Shift (not on macOS) takes the vertical step as horizontal.
    const bool swap = shift && !g.IO.ConfigMacOSXBehaviors;
    const float step_y = swap ? 0.0f : -dy, step_x = swap ? -dy : dx;
    if (step_y != 0) {
        if (ImGuiWindow* t = wheel_target(w, 1); t && can_move(t, 1, -step_y)) return true;
    }
    if (step_x != 0) {
        if (ImGuiWindow* t = wheel_target(w, 0); t && can_move(t, 0, -step_x)) return true;
    }
    return false;
}

bool drag_scrolls_at(ImVec2 p) {
    for (ImGuiWindow* w = window_at(p); w; w = (w->Flags & ImGuiWindowFlags_ChildWindow) ? w->ParentWindow : nullptr)
        if (takes_mouse_scroll(w) && w->ScrollMax.y > 0) return true;
    return false;
}

void begin_touch_drag(AppState& app) {
    ImGuiContext& g = *GImGui;
    const ImGuiID id = drag_id();
    // web/main.cpp says when a touch is a drag; without it (native tests, a mouse on a touch
    // screen), a touch-screen press that moved beyond the slop is one.
    // The press's first frame shows ImGui where the finger went down: the drag scrolls from there, even
    // when the next frame (a slow one, a quick swipe) finds the finger already outside that window.
    if (ImGui::IsMouseClicked(0)) app.ui.touch_press_window = g.HoveredWindow ? g.HoveredWindow->ID : 0;
    const bool drag = ImGui::IsMouseDown(0) && (app.ui.touch_pan || (app.ui.env.touch && ImGui::IsMouseDragging(0, kTouchSlop)));
    if (!drag) {
        if (g.ActiveId == id) ImGui::ClearActiveID();
        app.ui.touch_scroll_window = 0;
        return;
    }
    if (g.ActiveId != id) ImGui::SetActiveID(id, ImGui::GetCurrentWindow());  // the widget under the finger lets go
    ImGui::KeepAliveID(id);
}

void end_touch_drag(AppState& app) {
    ImGuiContext& g = *GImGui;
    const float dy = g.IO.MouseDelta.y;
    if (g.ActiveId != drag_id() || dy == 0) return;
    ImGuiWindow* target = app.ui.touch_scroll_window ? ImGui::FindWindowByID(app.ui.touch_scroll_window) : nullptr;
    if (!target) {
        // From the window ImGui found under the finger where the press began, else (nothing there
        // scrolls: a swipe from the verdict down into the tab) the one under the finger now (while a
        // frame is drawn, g.Windows is not in display order, so window_at would not do): a finger moving
        // up (dy < 0) moves the content towards its end.
        auto scrolls_from = [&](ImGuiWindow* w) -> ImGuiWindow* {
            for (; w; w = (w->Flags & ImGuiWindowFlags_ChildWindow) ? w->ParentWindow : nullptr)
                if (takes_mouse_scroll(w) && w->ScrollMax.y > 0 && can_move(w, 1, -dy)) return w;
            return nullptr;
        };
        target = scrolls_from(app.ui.touch_press_window ? ImGui::FindWindowByID(app.ui.touch_press_window) : nullptr);
        if (!target) target = scrolls_from(g.HoveredWindow);
        if (!target) return;
        app.ui.touch_scroll_window = target->ID;
    }
    ImGui::SetScrollY(target, target->Scroll.y - dy);
}

}  // namespace vl::ui
