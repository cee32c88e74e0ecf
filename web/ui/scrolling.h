// Scrolling as on a web page. Dear ImGui 1.86 scrolls only by mouse wheel. The page (shell/bridge.js)
// asks, before the browser acts on a wheel or a touch, whether the app scrolls anything there: when
// it does not, the browser keeps the event (it scrolls the page around an embed). On touch screens a
// drag is a scroll, never a press or a change: web/main.cpp holds a touch's press back until the
// finger lifts (a tap) or moves beyond kTouchSlop (a drag, ui.touch_pan), and from then on the drag
// owns the pointer (begin_touch_drag) and scrolls what is under it (end_touch_drag).
// The window queries read the windows of the last frame drawn.
#pragma once
#include <imgui.h>

#include "ui/app.h"

namespace vl::ui {

// How far (CSS pixels) a finger may move before a touch is a drag; shell/bridge.js uses the same.
inline constexpr float kTouchSlop = 8.0f;

// Whether one wheel event at `p` (CSS pixels; dx, dy as the DOM's deltaX / deltaY, > 0 towards the
// end) scrolls a window, as Dear ImGui picks it (ImGui::UpdateMouseWheel): the hovered window or the
// parent it hands the wheel to, when that one is not already at its end in that direction.
bool wheel_scrolls_at(ImVec2 p, float dx, float dy, bool shift);

// Whether a drag starting at `p` could scroll a window there (a window under it, or a parent, has
// more content than it shows).
bool drag_scrolls_at(ImVec2 p);

// Inside the root window, before any widget: while a touch drag lasts, it owns the pointer, so no
// widget under the finger is hovered, pressed when it lifts, or changed.
void begin_touch_drag(AppState& app);
// At the end of the root window: the touch drag scrolls the window under the finger when it first
// moves (the first one, from there outwards, that can move that way; kept for the whole drag).
void end_touch_drag(AppState& app);

}  // namespace vl::ui
