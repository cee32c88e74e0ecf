// Keyboard navigation as in a web form. Dear ImGui 1.86 moves focus with the arrows (NavEnableKeyboard)
// but its Tab only goes through text fields, Enter does not press a button, and Tab stays inside a
// child window. Here Tab and Shift+Tab go to the next and previous control of any kind, in the order
// they are drawn, with ImGui's focus ring around it (a text field takes the keyboard, as on a web page);
// Enter presses a focused control as Space does; a scrolling list is one stop that Enter or Space
// enters (arrows inside, Escape leaves), and Tab goes on after it.
#pragma once
#include "ui/app.h"

namespace vl::ui {

// Before ImGui::NewFrame (web/main.cpp): Enter on a focused control presses it.
void keyboard_before_frame();
// Right after ImGui::NewFrame (draw()): makes this frame's Tab request go through every control.
void keyboard_begin_frame(AppState& app);
// After an item that is no control (a chart's hover area): Tab passes over it.
void not_a_tab_stop(AppState& app);
// In mark(): the widget just drawn under `key` has the keyboard (ui.focus_key, for the test hook).
void note_focus(AppState& app, const std::string& key);

}  // namespace vl::ui
