// The browser platform loop: SDL2 window + WebGL2 context, Dear ImGui, fonts, and redraw-on-input.
// The UI itself is vl::ui::draw() (web/ui/). The page (shell/index.html) defines window.vramlens,
// which this file keeps current: ready, frames, version, and estimate() through vl_hook_json().
//
// Idle pages must not burn CPU: the main loop renders kFramesPerWake frames after each input event
// (ImGui needs a couple of frames to settle layout) and then pauses itself; an SDL event watch or a
// call to vl_wake() from JavaScript resumes it.
#include <SDL.h>
#include <GLES3/gl3.h>
#include <emscripten.h>
#include <emscripten/html5.h>
#include <imgui.h>
#include <imgui_impl_opengl3.h>
#include <imgui_impl_sdl.h>

#include <iterator>
#include <string>
#include <vector>

#include "embedded_binary.h"
#include "ui/app.h"
#include "ui/font_ranges.h"
#include "ui/keyboard.h"
#include "ui/scrolling.h"

namespace {

constexpr int kFramesPerWake = 3;
constexpr float kFontPixels = 16.0f;  // CSS pixels; the atlas is rasterised at devicePixelRatio

// One finger on a touch screen. Its press is held back until the finger lifts where it went down (a
// tap: pressed and released there, over two frames) or moves beyond vl::ui::kTouchSlop (a drag: the
// UI scrolls and no widget takes it, vl::ui::begin_touch_drag), so a swipe that starts on a button
// or a number field never presses or changes it. A drag is shown to ImGui frame by frame from where
// it started to where the finger is, and to its end after the finger lifted, so a quick swipe (or a
// slow frame) still scrolls by all of it. A touch the browser took (it scrolled the page around an
// embed: shell/bridge.js calls vl_touch_cancel as it ends) is neither.
struct Touch {
    SDL_FingerID finger = 0;
    bool down = false;       // the finger is on the screen
    bool drag = false;       // it moved beyond the slop (kept until ImGui has seen the whole drag)
    bool cancelled = false;  // the browser took it
    ImVec2 start, pos;       // where it went down, where it is (or lifted)
    int drag_frames = 0;     // frames that have shown the drag to ImGui
    ImVec2 shown;            // the position the last of them showed
    int tap_frames = 0;      // 2: press this frame, 1: release this frame
};

struct Runtime {
    SDL_Window* window = nullptr;
    SDL_GLContext gl = nullptr;
    vl::ui::AppState app;
    int frames_left = kFramesPerWake;
    bool paused = false;
    bool ready = false;
    long frames = 0;
    float font_scale = 0;   // devicePixelRatio the font atlas was built for (0: build it next frame)
    std::vector<unsigned char> zh_font;  // the Chinese font's bytes once fetched (vl_zh_file_loaded)
    int zh_pending = 0;     // files of the Chinese UI asked for and not yet here (the font, the catalogue)
    std::string hook;       // keeps vl_hook_json()'s string alive
    Touch touch;
};
Runtime* g_rt = nullptr;

EM_JS(void, js_fail, (const char* what), {
    var msg = "vramlens: " + UTF8ToString(what);
    console.error(msg);
    if (window.vramlens && window.vramlens._fail) window.vramlens._fail(msg);
});
EM_JS(void, js_frame, (int frames), {
    if (window.vramlens) window.vramlens.frames = frames;
});
// Fetches a site file the first view does not need (relative to the page, under its hashed name): the
// Chinese UI's font (kind 0) or its catalogue of the core's messages (kind 1, ui/messages.h), or the whole
// model list (kind 2, ui/app.h ModelList), and hands its bytes to vl_file_loaded, or why it failed to
// vl_file_failed. The model list, once here, is handed over only once the wasm's deferred half is
// instantiated (shell/index.html vramlens._deferredReady, fetched then if no input did before): its parse
// runs every model family's importer and validation, code the first view does not run (issue 16).
EM_JS(void, js_fetch_site_file, (const char* file, int kind), {
    var name = UTF8ToString(file);
    var url = Module["locateFile"] ? Module["locateFile"](name, "") : name;  // its content-hashed name
    var failed = function(why) {
        var n = lengthBytesUTF8(why) + 1, p = _malloc(n);
        stringToUTF8(why, p, n);
        _vl_file_failed(kind, p);
        _free(p);
    };
    var v = window.vramlens;
    fetch(url).then(function(r) {
        if (!r.ok) throw new Error("HTTP " + r.status + " for " + url);
        return r.arrayBuffer();
    }).then(function(buf) {
        if (kind != 2 || !v || !v._deferredReady) return buf;
        return v._deferredReady().then(function() { return buf; });
    }).then(function(buf) {
        var bytes = new Uint8Array(buf), p = _malloc(bytes.length);
        HEAPU8.set(bytes, p);
        _vl_file_loaded(kind, p, bytes.length);
        _free(p);
    }).catch(function(e) { failed(name + ": " + String(e && e.message || e)); });
});
// window.vramlens.models: the model list's state (ui/app.h model_list_name); the tests wait for it.
EM_JS(void, js_models, (const char* state), {
    if (window.vramlens) window.vramlens.models = UTF8ToString(state);
});
EM_JS(void, js_ready, (const char* version), {
    if (window.vramlens && window.vramlens._ready) window.vramlens._ready(UTF8ToString(version));
});

void wake() {
    g_rt->frames_left = kFramesPerWake;
    if (g_rt->paused) {
        g_rt->paused = false;
        emscripten_resume_main_loop();
    }
}

// Called by SDL for every event it queues (input, resize, focus): schedule frames. SDL 2.26 also
// queues a sentinel on every SDL_PollEvent; waking on it would redraw forever.
int on_sdl_event(void*, SDL_Event* e) {
    if (e->type != SDL_POLLSENTINEL) wake();
    return 1;
}

void track_touch(const SDL_Event& e) {
    Touch& t = g_rt->touch;
    if (e.type != SDL_FINGERDOWN && e.type != SDL_FINGERMOTION && e.type != SDL_FINGERUP) return;
    int w = 0, h = 0;
    SDL_GetWindowSize(g_rt->window, &w, &h);
    const ImVec2 p(e.tfinger.x * static_cast<float>(w), e.tfinger.y * static_cast<float>(h));
    if (e.type == SDL_FINGERDOWN) {
        if (t.down && SDL_GetNumTouchFingers(e.tfinger.touchId) > 1) return;  // a second finger: the first one leads
        t.finger = e.tfinger.fingerId;
        t.down = true;
        t.drag = false;
        t.drag_frames = 0;
        t.start = t.pos = p;
        return;
    }
    if (!t.down || e.tfinger.fingerId != t.finger) return;
    t.pos = p;
    const float dx = p.x - t.start.x, dy = p.y - t.start.y;
    if (dx * dx + dy * dy > vl::ui::kTouchSlop * vl::ui::kTouchSlop) t.drag = true;
    if (e.type == SDL_FINGERUP) {
        if (!t.drag && !t.cancelled) t.tap_frames = 2;
        if (t.cancelled) t.drag = false;
        t.down = t.cancelled = false;
    }
}

// After the backend has read the mouse (SDL moves it with the first finger): what ImGui sees of a touch.
void apply_touch() {
    Touch& t = g_rt->touch;
    ImGuiIO& io = ImGui::GetIO();
    g_rt->app.ui.touch_pan = false;
    if (t.tap_frames > 0) {
        io.MousePos = t.start;
        io.MouseDown[0] = t.tap_frames == 2;
        --t.tap_frames;
        wake();
    } else if (t.drag && !t.cancelled) {
        const bool seen_all = t.drag_frames > 0 && t.shown.x == t.pos.x && t.shown.y == t.pos.y;
        if (!t.down && seen_all) {  // lifted, and ImGui has seen it all: release
            t.drag = false;
            io.MouseDown[0] = false;
            return;
        }
        io.MousePos = t.shown = t.drag_frames == 0 ? t.start : t.pos;
        io.MouseDown[0] = true;
        ++t.drag_frames;
        g_rt->app.ui.touch_pan = true;
        if (!t.down) wake();
    } else if (t.down) {
        io.MouseDown[0] = false;
    }
}

// The glyphs assets/fonts/DejaVuSans-subset.ttf holds, as ImGui's ranges (web/ui/font_ranges.h).
const ImWchar* latin_ranges() {
    static ImWchar r[std::size(vl::ui::kLatinRanges)];
    for (std::size_t i = 0; i < std::size(r); ++i) r[i] = static_cast<ImWchar>(vl::ui::kLatinRanges[i]);
    return r;
}

// Rasterises the embedded fonts at the display's pixel ratio so text is crisp on HiDPI screens.
// The first font (sorted by name: DejaVuSans-subset.ttf) is the main one; every further embedded
// font is merged into it for the CJK ranges, and so is the Chinese font once fetched.
void load_fonts(float scale) {
    ImGuiIO& io = ImGui::GetIO();
    const bool rebuild = g_rt->font_scale != 0;  // the backend made a texture for the old atlas
    if (rebuild) ImGui_ImplOpenGL3_DestroyFontsTexture();
    io.Fonts->Clear();
    for (std::size_t i = 0; i < vl::fonts::kFileCount; ++i) {
        ImFontConfig cfg;
        cfg.FontDataOwnedByAtlas = false;  // static data in the wasm image
        cfg.MergeMode = i > 0;
        const ImWchar* ranges = i == 0 ? latin_ranges() : io.Fonts->GetGlyphRangesChineseFull();
        io.Fonts->AddFontFromMemoryTTF(const_cast<unsigned char*>(vl::fonts::kFiles[i].data),
                                       static_cast<int>(vl::fonts::kFiles[i].size), kFontPixels * scale,
                                       &cfg, ranges);
    }
    if (!g_rt->zh_font.empty()) {  // merged into the main font for the CJK ranges
        ImFontConfig cfg;
        cfg.FontDataOwnedByAtlas = false;  // kept in Runtime::zh_font
        cfg.MergeMode = true;
        io.Fonts->AddFontFromMemoryTTF(g_rt->zh_font.data(), static_cast<int>(g_rt->zh_font.size()), kFontPixels * scale,
                                       &cfg, io.Fonts->GetGlyphRangesChineseFull());
    }
    io.FontGlobalScale = 1.0f / scale;
    if (rebuild) ImGui_ImplOpenGL3_CreateFontsTexture();
    g_rt->font_scale = scale;
}

void frame() {
    Runtime& rt = *g_rt;
    SDL_Event event;
    if (rt.app.ui.release_keys) {  // the canvas lost the keyboard (keyboard.h): the keys held are up
        rt.app.ui.release_keys = false;
        SDL_ResetKeyboard();
    }
    while (SDL_PollEvent(&event)) {
        track_touch(event);
        ImGui_ImplSDL2_ProcessEvent(&event);
    }
    if (rt.frames_left <= 0) {
        rt.paused = true;
        emscripten_pause_main_loop();
        return;
    }
    --rt.frames_left;

    float scale = static_cast<float>(emscripten_get_device_pixel_ratio());
    if (scale != rt.font_scale) load_fonts(scale);

    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplSDL2_NewFrame();
    apply_touch();
    vl::ui::keyboard_before_frame();
    // Timestamps can repeat (headless virtual time, coarse timers): ImGui asserts DeltaTime > 0.
    ImGuiIO& io = ImGui::GetIO();
    if (io.DeltaTime <= 0.0f) io.DeltaTime = 1.0f / 1000.0f;
    ImGui::NewFrame();
    vl::ui::draw(rt.app);
    ImGui::Render();
    if (rt.app.ui.lang == vl::ui::Lang::Zh && rt.app.ui.zh_font == vl::ui::FontLoad::NotNeeded) {
        rt.app.ui.zh_font = vl::ui::FontLoad::Loading;
        rt.app.ui.zh_font_error.clear();
        rt.zh_pending = 2;
        js_fetch_site_file(vl::ui::kZhFontFile, 0);
        js_fetch_site_file(vl::ui::kZhMessagesFile, 1);
        wake();  // show "Loading the Chinese font"
    }

    int w = 0, h = 0;
    SDL_GL_GetDrawableSize(rt.window, &w, &h);
    glViewport(0, 0, w, h);
    glClearColor(0.11f, 0.12f, 0.14f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    SDL_GL_SwapWindow(rt.window);

    js_frame(static_cast<int>(++rt.frames));
    // After the first view (and on Retry): the whole model list.
    if (rt.frames >= kFramesPerWake && rt.app.ui.model_list == vl::ui::ModelList::Wanted) {
        rt.app.ui.model_list = vl::ui::ModelList::Loading;
        js_models(vl::ui::model_list_name(rt.app.ui.model_list));
        js_fetch_site_file(vl::ui::kModelListFile, 2);
    }
    if (!rt.ready && rt.frames >= kFramesPerWake) {  // the first burst has laid out every window
        rt.ready = true;
        js_ready(VRAMLENS_VERSION);
    }
}

}  // namespace

extern "C" {
// window.vramlens.estimate(): the current estimate as JSON (vl::ui::hook_json).
EMSCRIPTEN_KEEPALIVE const char* vl_hook_json() {
    g_rt->hook = vl::ui::hook_json(g_rt->app);
    return g_rt->hook.c_str();
}
// window.vramlens.wake(): JavaScript changed something the UI shows; draw a few frames.
EMSCRIPTEN_KEEPALIVE void vl_wake() { wake(); }
// The touch that is ending was the browser's (it scrolled the page, or cancelled the touch): it is no
// tap. Called as the touch ends, before SDL queues that end, which then consumes it.
EMSCRIPTEN_KEEPALIVE void vl_touch_cancel() { g_rt->touch.cancelled = true; }
// js_fetch_site_file's answers. The font's bytes are copied (the atlas is rebuilt next frame); the catalogue is
// read into the app. A failure of either shows the font notice (layout.cpp), whose Retry fetches both again.
// The model list replaces the presets; its failure is said by the model picker, whose Retry fetches it again.
EMSCRIPTEN_KEEPALIVE void vl_file_loaded(int kind, const unsigned char* data, int size) {
    if (kind == 2) {
        vl::ui::model_list_arrived(g_rt->app, std::string_view(reinterpret_cast<const char*>(data), static_cast<size_t>(size)));
        js_models(vl::ui::model_list_name(g_rt->app.ui.model_list));
        wake();
        return;
    }
    if (kind == 1) {
        g_rt->app.ui.zh_messages = vl::ui::parse_message_catalogue(
            std::string_view(reinterpret_cast<const char*>(data), static_cast<size_t>(size)));
        vl::ui::set_zh_strings(g_rt->app.ui.zh_messages.ui_strings);
    } else {
        g_rt->zh_font.assign(data, data + size);
        g_rt->font_scale = -1;  // rebuild the atlas with it
    }
    // Chinese is shown once both are here (until then the notice says the font is loading).
    if (--g_rt->zh_pending <= 0 && g_rt->app.ui.zh_font != vl::ui::FontLoad::Failed) g_rt->app.ui.zh_font = vl::ui::FontLoad::Ready;
    wake();
}
EMSCRIPTEN_KEEPALIVE void vl_file_failed(int kind, const char* why) {
    if (kind == 2) {
        vl::ui::model_list_failed(g_rt->app, why);
        js_models(vl::ui::model_list_name(g_rt->app.ui.model_list));
        wake();
        return;
    }
    g_rt->app.ui.zh_font = vl::ui::FontLoad::Failed;
    g_rt->app.ui.zh_font_error = why;
    wake();
}
}

int main() {
    // Video (with its events) and timers: all the SDL2 of the Debian web build is compiled with
    // (scripts/build-sdl2-wasm.sh: no audio, joystick, sensor, haptic or renderer subsystems).
    if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_TIMER) != 0) {
        js_fail(SDL_GetError());
        return 1;
    }
    // Keys go to the app only while the canvas has focus, so an embedding page keeps its keys.
    SDL_SetHint(SDL_HINT_EMSCRIPTEN_KEYBOARD_ELEMENT, "#canvas");
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_ES);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);  // WebGL2
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 0);
    SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
    SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 0);
    SDL_GL_SetAttribute(SDL_GL_STENCIL_SIZE, 0);

    static Runtime rt;
    g_rt = &rt;
    // Resizable + CSS-sized canvas: SDL follows the canvas' CSS size, at devicePixelRatio.
    rt.window = SDL_CreateWindow("vramlens", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED, 1280, 800,
                                 SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    if (!rt.window) {
        js_fail((std::string("cannot create the window: ") + SDL_GetError()).c_str());
        return 1;
    }
    rt.gl = SDL_GL_CreateContext(rt.window);
    if (!rt.gl) {
        js_fail((std::string("WebGL2 is not available: ") + SDL_GetError()).c_str());
        return 1;
    }
    SDL_GL_MakeCurrent(rt.window, rt.gl);

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // no file system; UI state will live in the URL
    ImGui::StyleColorsDark();
    ImGui_ImplSDL2_InitForOpenGL(rt.window, rt.gl);
    ImGui_ImplOpenGL3_Init("#version 300 es");

    rt.app = vl::ui::make_app_state();
    rt.app.ui.model_list = vl::ui::ModelList::Wanted;  // the wasm holds only the default model (issue 16)
    SDL_AddEventWatch(on_sdl_event, nullptr);
    emscripten_set_main_loop(frame, 0, true);
    return 0;
}
