// Web UI tests without a window: an ImGui context with a built font atlas, fake mouse input,
// ImGui::Render() without a backend. They click the same widgets a user would (found by the keys
// the UI records for the browser tests) and check the Scenario and the numbers shown.
#include <catch2/catch.hpp>
#include <imgui.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>

#include "model/presets.h"
#include "scenario_json.h"
#include "share_link.h"
#include "ui/app.h"
#include "ui/panels.h"

using namespace vl;
using namespace vl::ui;

namespace {

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
    // Press and release the left button at the centre of a recorded widget.
    void click(const std::string& key) {
        INFO("widget " << key);
        REQUIRE(has(key));
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

std::string read_file(const std::string& path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

}  // namespace

TEST_CASE("the page opens on a valid scenario and shows the core's total") {
    Harness h;
    h.frames(3);
    REQUIRE(h.app.estimate.ok());
    CHECK(h.has("total"));
    CHECK(h.has("fitbar"));
    CHECK(h.has("preset.llama-3.1-8b"));
    // The shown total is the core's number in the chosen unit, two decimals.
    char want[64];
    std::snprintf(want, sizeof want, "%.2f GiB", h.core_total() / kGiB);
    CHECK(shown_total(h.app) == want);
    // The URL fragment follows the scenario from the first frame.
    REQUIRE(!h.app.outbox.empty());
    CHECK(h.app.outbox.front().kind == "fragment");
    CHECK(h.app.outbox.front().a == encode_share_link(h.app.scenario));
}

TEST_CASE("mode buttons, a preset click and the batch step change the scenario") {
    Harness h;
    h.frames(3);
    h.click("mode.0");  // Training
    CHECK(h.app.scenario.mode == Mode::Train);
    h.app.ui.model_filter = "qwen2.5 7b";
    h.frames(2);
    CHECK_FALSE(h.has("preset.llama-3.1-8b"));  // filtered out
    const ModelPreset* q = nullptr;
    for (const ModelPreset& p : model_presets())
        if (h.has("preset." + p.id)) q = &p;
    REQUIRE(q != nullptr);
    h.click("preset." + q->id);
    CHECK(h.app.ui.preset_id == q->id);
    CHECK(h.app.scenario.model.name == q->spec.name);
    const int64_t b = h.app.scenario.train.micro_batch;
    h.click("train.micro_batch.plus");
    CHECK(h.app.scenario.train.micro_batch == b * 2);  // batch steps double
    CHECK(h.app.estimate.total_bytes == h.core_total());
}

TEST_CASE("tensor-parallel choices are the ones the core's rules accept") {
    // Llama-3.1-8B: 32 heads, 8 KV heads, FFN 14336 (config.json). Training needs kv_heads % tp == 0
    // and tp | heads; with 8 GPUs and pp = cp = 1, tp must also divide 8: {1, 2, 4, 8}.
    Scenario s = default_scenario();
    s.mode = Mode::Train;
    s.gpu_count = 8;
    s.parallel.dp = 8;
    CHECK(valid_degrees(s, &Parallelism::tp, "parallel.tp") == std::vector<int64_t>{1, 2, 4, 8});
    // 16 GPUs: tp = 16 divides the GPUs and the heads but not the 8 KV heads: still {1, 2, 4, 8}.
    s.gpu_count = 16;
    s.parallel.dp = 16;
    CHECK(valid_degrees(s, &Parallelism::tp, "parallel.tp") == std::vector<int64_t>{1, 2, 4, 8});
    // Pipeline stages: at most the 32 layers and a divisor of the 16 GPUs: {1, 2, 4, 8, 16}.
    CHECK(valid_degrees(s, &Parallelism::pp, "parallel.pp") == std::vector<int64_t>{1, 2, 4, 8, 16});
}

TEST_CASE("share links restore the scenario; a tampered link loads the defaults with a notice") {
    Harness h;
    h.frames(2);
    h.app.scenario.mode = Mode::FineTune;
    h.app.scenario.finetune.method = FineTuneMethod::QLoRA;
    h.app.scenario.train.micro_batch = 4;
    h.app.dirty = true;
    h.frames(2);
    const std::string link = h.app.ui.last_fragment;
    REQUIRE(link.rfind("v1.", 0) == 0);

    Harness other;
    other.app.ui.env.hash = "#" + link;
    other.frames(2);
    CHECK(scenario_to_json(other.app.scenario) == scenario_to_json(h.app.scenario));
    CHECK(other.app.ui.notice.empty());
    CHECK(other.app.ui.preset_id == "llama-3.1-8b");

    std::string bad = link;
    bad[bad.size() / 2] = bad[bad.size() / 2] == 'A' ? 'B' : 'A';
    Harness tampered;
    tampered.app.ui.env.hash = "#" + bad;
    tampered.frames(2);
    CHECK_FALSE(tampered.app.ui.notice.empty());
    CHECK(scenario_to_json(tampered.app.scenario) == scenario_to_json(default_scenario()));
    CHECK(tampered.has("notice"));
}

TEST_CASE("pasting or dropping a config.json imports it as the model; bad files say why") {
    Harness h;
    h.frames(2);
    const std::string cfg = read_file(std::string(VRAMLENS_TEST_DATA) + "/configs/gpt2.json");
    REQUIRE(!cfg.empty());
    h.app.inbox.push_back({"paste", "", cfg});
    h.frames(2);
    CHECK(h.app.ui.source == ModelSource::Config);
    CHECK(h.app.ui.config_errors.empty());
    CHECK(h.app.scenario.model.hidden == 768);   // gpt2 config.json: n_embd 768
    CHECK(h.app.scenario.model.layers == 12);    // n_layer 12
    CHECK(h.app.estimate.ok());

    h.app.inbox.push_back({"drop", "", "{\"model_type\": \"llama\", \"hidden_size\": -5}"});
    h.frames(2);
    REQUIRE_FALSE(h.app.ui.config_errors.empty());
    CHECK(h.app.ui.config_errors.front().field == "hidden_size");
    CHECK(h.app.scenario.model.hidden == 768);  // the model stays what it was
}

TEST_CASE("invalid input shows an error at the field and never a number") {
    Harness h;
    h.frames(2);
    h.click("mode.0");
    h.app.scenario.train.micro_batch = 0;
    h.app.dirty = true;
    h.frames(2);
    REQUIRE_FALSE(h.app.estimate.ok());
    CHECK(shown_total(h.app) == "—");
    CHECK(h.has("errors"));
    bool named = false;
    for (const FieldError& e : h.app.estimate.errors) named = named || e.field == "train.micro_batch";
    CHECK(named);
}

TEST_CASE("phone layout: tabs, and numbers typed in the page's text box") {
    Harness h(390, 844, /*touch=*/true);
    h.frames(3);
    CHECK(h.has("tab.0"));
    CHECK(h.has("total"));
    h.click("tab.1");  // Setup
    CHECK(h.app.ui.phone_tab == PhoneTab::Setup);
    h.click("mode.0");
    REQUIRE(h.app.scenario.mode == Mode::Train);
    h.frames(1);
    bool listed = false;
    for (const TextField& f : h.app.ui.text_fields) listed = listed || (f.key == "train.seq_len" && f.kind == "number");
    CHECK(listed);
    h.app.inbox.push_back({"text", "train.seq_len", "8192"});
    h.frames(2);
    CHECK(h.app.scenario.train.seq_len == 8192);
    CHECK(h.app.estimate.total_bytes == h.core_total());
}

TEST_CASE("language, theme and unit toggles") {
    Harness h;
    h.frames(2);
    h.click("toggle.lang");
    CHECK(h.app.ui.lang == Lang::Zh);
    h.click("toggle.theme");
    CHECK(h.app.ui.theme == Theme::Light);
    h.click("toggle.unit");
    CHECK(h.app.ui.unit == SizeUnit::GB);
    char want[64];
    std::snprintf(want, sizeof want, "%.2f GB", h.core_total() / kGB);
    CHECK(shown_total(h.app) == want);
    // Every UI string has a Chinese text.
    for (int i = 0; i < static_cast<int>(S::Count_); ++i) CHECK(std::string(tr(Lang::Zh, static_cast<S>(i))).size() > 0);
}

TEST_CASE("embed mode reports its content height; exports go to the clipboard") {
    Harness h;
    h.app.ui.env.embed = true;
    h.frames(3);
    bool height = false;
    for (const OutEvent& o : h.app.outbox) height = height || (o.kind == "height" && o.h > 100);
    CHECK(height);
    CHECK_FALSE(h.has("mode.0"));  // fixed embed: results only

    Harness w(1280, 3000);  // tall enough that the share section is on screen
    w.frames(3);
    w.app.outbox.clear();
    w.click("export.copy.csv");
    REQUIRE_FALSE(w.app.outbox.empty());
    CHECK(w.app.outbox.back().kind == "copy");
    CHECK(w.app.outbox.back().a.find("weights") != std::string::npos);
}

TEST_CASE("the test hook carries the scenario and the core's own total") {
    Harness h;
    h.frames(2);
    const std::string j = hook_json(h.app);
    CHECK(j.find("\"core_total_bytes\"") != std::string::npos);
    CHECK(j.find("\"shown_total\"") != std::string::npos);
    CHECK(j.find("\"items\"") != std::string::npos);
}

TEST_CASE("show the math: a component row opens to its formula, numbers and source") {
    Harness h(1280, 3000);
    h.frames(3);
    REQUIRE_FALSE(h.app.estimate.components.empty());
    const Component& c = h.app.estimate.components.front();
    const std::string id = c.id;
    CHECK_FALSE(h.has("math." + id));
    h.click("row." + id);
    CHECK(h.has("math." + id));
    // The core filled all three texts for this component (Detail::Full).
    CHECK(std::string(h.app.estimate.components.front().formula).size() > 0);
    CHECK(std::string(h.app.estimate.components.front().source).size() > 0);
}

TEST_CASE("every mode and fine-tune method draws, with numbers equal to the core's") {
    Harness h;
    h.frames(2);
    for (Mode m : {Mode::Train, Mode::FineTune, Mode::Infer})
        for (FineTuneMethod f : {FineTuneMethod::Full, FineTuneMethod::LoRA, FineTuneMethod::QLoRA}) {
            h.app.scenario.mode = m;
            h.app.scenario.finetune.method = f;
            h.app.dirty = true;
            h.frames(2);
            INFO("mode " << static_cast<int>(m) << " method " << static_cast<int>(f));
            CHECK(h.app.estimate.ok());
            CHECK(h.app.estimate.total_bytes == h.core_total());
            CHECK(std::isfinite(h.app.estimate.total_bytes));
        }
    // A change is recomputed (estimate, sweep, solver answers, link) fast enough for every keystroke.
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 5; ++i) {
        h.app.scenario.infer.batch = 1 + i;
        h.app.dirty = true;
        refresh(h.app);
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / 5;
    WARN("refresh after a change: " << ms << " ms");
    CHECK(ms < 100);
}

TEST_CASE("phone: dragging the results scrolls them (ImGui 1.86 only scrolls by wheel)") {
    Harness h(390, 844, /*touch=*/true);
    h.app.scenario.mode = Mode::Train;  // a long component table: the results are taller than the screen
    h.app.dirty = true;
    h.frames(3);
    REQUIRE(h.has("phases"));
    const float y0 = h.app.ui.items.at("phases")[1];
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = ImVec2(200, 700);
    h.frame();
    io.MouseDown[0] = true;
    h.frame();
    for (int i = 0; i < 10; ++i) {
        io.MousePos.y -= 30;
        h.frame();
    }
    io.MouseDown[0] = false;
    h.frames(2);
    CHECK(h.app.ui.items.at("phases")[1] < y0 - 100);
}
