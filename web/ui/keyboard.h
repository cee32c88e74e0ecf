// Keyboard navigation as in a web form. Dear ImGui 1.86 moves focus with the arrows (NavEnableKeyboard)
// but its Tab only goes through text fields, Enter does not press a button, and Tab stays inside a
// child window. Here Tab and Shift+Tab go to the next and previous control of any kind, in the order
// they are drawn, with ImGui's focus ring around it (a text field takes the keyboard, as on a web page);
// Enter presses a focused control as Space does; a scrolling list is one stop that Enter or Space
// enters (arrows inside, Escape leaves), and Tab goes on after it. Tab on the last control and
// Shift+Tab on the first (or before any) leave the app for the page, as from a form's last field
// (no keyboard trap, WCAG 2.1.2), and Tab coming back from the page lands on the first control, Shift+Tab
// on the last (keyboard_entered): each frame with a focused control asks ImGui's own Tab scoring
// whether a control comes after it, and the page lets the browser move focus when none does.
#pragma once
#include "ui/app.h"

namespace vl::ui {

// Before ImGui::NewFrame (web/main.cpp): Enter on a focused control presses it.
void keyboard_before_frame();
// Right after ImGui::NewFrame (draw()): makes this frame's Tab request go through every control.
void keyboard_begin_frame(AppState& app);
// At the end of draw(), before ImGui::Render: ui.tab_edge for the page (vl_tab_leaves).
void keyboard_end_frame(AppState& app);
// The canvas lost the keyboard: no control counts as chosen, so coming back other than by Tab (the
// results-as-text box closed), the canvas is the stop before the first control: Shift+Tab leaves again;
// and no focus ring is drawn until the keyboard is back.
void keyboard_lost_focus(AppState& app);
// Tab (dir +1) or Shift+Tab (dir -1) gave the canvas the keyboard (the page saw the key move the focus
// into it): the next frame focuses the first control, or the last, as a browser does with a form's fields.
void keyboard_entered(AppState& app, int dir);
// After an item that is no control (a chart's hover area): Tab passes over it.
void not_a_tab_stop(AppState& app);
// In mark(): the widget just drawn under `key` has the keyboard (ui.focus_key, for the test hook).
void note_focus(AppState& app, const std::string& key);

}  // namespace vl::ui
