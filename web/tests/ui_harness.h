// The window-less harness of the native UI tests (ui_test.cpp, run_local_test.cpp): an ImGui
// context with a built font atlas, fake mouse input, ImGui::Render() without a backend. Tests click
// the widgets a user would, found by the keys the UI records for the browser tests.
#pragma once
#include <catch2/catch.hpp>
#include <imgui.h>

#include <string>
#include <vector>

#include "ui/app.h"

namespace vl::ui::harness {

struct Harness {
    AppState app = make_app_state();
    ImGuiContext* ctx = nullptr;
    explicit Harness(float w = 1280, float h = 800, bool touch = false) {
        ctx = ImGui::CreateContext();
        ImGui::SetCurrentContext(ctx);
        ImGuiIO& io = ImGui::GetIO();
        io.IniFilename = nullptr;
        io.DisplaySize = ImVec2(w, h);
        io.DeltaTime = 1.0f / 60.0f;
        unsigned char* px = nullptr;
        int tw = 0, th = 0;
        io.Fonts->GetTexDataAsRGBA32(&px, &tw, &th);
        app.ui.env.touch = touch;
        app.ui.env.base_url = "https://example.org/vramlens/";
    }
    ~Harness() { ImGui::DestroyContext(ctx); }
    void frame() {
        ImGui::SetCurrentContext(ctx);
        ImGui::NewFrame();
        draw(app);
        ImGui::Render();
    }
    void frames(int n) {
        for (int i = 0; i < n; ++i) frame();
    }
    bool has(const std::string& key) const { return app.ui.items.count(key) > 0; }
    // Scroll with the mouse wheel, over the widget's column, until the whole widget is on screen, as a
    // user does before pressing something below the fold (the phone's Setup tab is taller than a phone).
    // The wheel goes where a notch moves the widget: near the screen's edge on its side first, as a
    // list nested in the column (the GPU picker) scrolls itself instead.
    void reach(const std::string& key) {
        INFO("widget " << key);
        REQUIRE(has(key));
        ImGui::SetCurrentContext(ctx);
        ImGuiIO& io = ImGui::GetIO();
        const float H = io.DisplaySize.y;
        for (int i = 0; i < 200; ++i) {
            const std::vector<float> r = app.ui.items.at(key);
            if (r[1] >= 0 && r[1] + r[3] <= H) return;
            const bool up = r[1] < 0;
            bool moved = false;
            for (const float y : {up ? 10.0f : H - 10.0f, H * 0.75f, H * 0.5f, H * 0.25f}) {
                io.MousePos = ImVec2(r[0] + r[2] / 2, y);
                frame();  // hover, then one notch
                io.MouseWheel = up ? 1.0f : -1.0f;
                frame();
                io.MouseWheel = 0;
                io.MousePos = ImVec2(-1, -1);
                frame();
                REQUIRE(has(key));
                moved = app.ui.items.at(key)[1] != r[1];
                if (moved) break;
            }
            if (!moved) break;
        }
        FAIL("the wheel did not bring " << key << " into view");
    }
    // Press and release the left button at the centre of a recorded widget (scrolled into view first).
    void click(const std::string& key) {
        INFO("widget " << key);
        reach(key);
        const std::vector<float> r = app.ui.items.at(key);
        ImGui::SetCurrentContext(ctx);
        ImGuiIO& io = ImGui::GetIO();
        io.MousePos = ImVec2(r[0] + r[2] / 2, r[1] + r[3] / 2);
        frame();  // hover
        io.MouseDown[0] = true;
        frame();
        io.MouseDown[0] = false;
        frame();
        io.MousePos = ImVec2(-1, -1);
        frames(2);
    }
    double core_total() const { return estimate(app.scenario, Detail::NumbersOnly).total_bytes; }
};

// The text one frame draws (Dear ImGui's log of rendered text: labels, texts, values). The log ends
// with the page's window and goes to ImGui's clipboard.
inline std::string drawn_text(Harness& h) {
    ImGui::SetCurrentContext(h.ctx);
    ImGui::NewFrame();
    ImGui::LogToClipboard();
    draw(h.app);
    ImGui::Render();
    const char* text = ImGui::GetClipboardText();
    return text ? text : "";
}

}  // namespace vl::ui::harness
