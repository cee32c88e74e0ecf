// Web UI tests without a window: an ImGui context with a built font atlas, fake mouse input,
// ImGui::Render() without a backend. They click the same widgets a user would (found by the keys
// the UI records for the browser tests) and check the Scenario and the numbers shown.
#include <catch2/catch.hpp>
#include <imgui.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "inference/weight_formats.h"
#include "embedded_assets.h"
#include "model/presets.h"
#include "scenario_json.h"
#include "share_link.h"
#include "../../tests/checkpoint_files.h"
#include "ui/app.h"
#include "ui/hub.h"
#include "ui/keyboard.h"
#include "ui/panels.h"
#include "ui/widgets.h"
#include "ui_harness.h"

using namespace vl;
using namespace vl::ui;
using vl::ui::harness::Harness;
using vl::ui::harness::drawn_text;

namespace {

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

TEST_CASE("share links restore the scenario, a tampered link loads the defaults with a notice") {
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

TEST_CASE("pasting or dropping a config.json imports it as the model, bad files say why") {
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

    // An unsupported model_type is an error on that field, not a Llama-style import (issue 14 item 12; t5, mt5 and bart are
    // supported, umt5 is not).
    h.app.inbox.push_back({"paste", "", R"({"model_type": "umt5", "d_model": 1024, "num_layers": 24,
        "num_heads": 16, "vocab_size": 32128})"});
    h.frames(2);
    REQUIRE(h.app.ui.config_errors.size() == 1);
    CHECK(h.app.ui.config_errors.front().field == "model_type");
    CHECK(h.app.scenario.model.hidden == 768);
    h.app.inbox.push_back({"paste", "", R"({"model_type": "mistrall", "hidden_size": 1024})"});
    h.frames(2);
    REQUIRE(h.app.ui.config_errors.size() == 1);
    CHECK(h.app.ui.config_errors.front().field == "model_type");
    CHECK_THAT(h.app.ui.config_errors.front().message, Catch::Contains("(the closest supported: \"mistral\", \"mixtral\")"));
    CHECK(h.app.scenario.model.hidden == 768);
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

namespace {

// The errors drawn at a field or section this frame for `field`.
std::vector<FieldError> shown_for(const Harness& h, const std::string& field) {
    std::vector<FieldError> out;
    for (const FieldError& e : h.app.ui.shown_errors)
        if (e.field == field) out.push_back(e);
    return out;
}

// The error text drawn for `field` lies directly under the widget `key`, in its column.
// Training on n GPUs, all of them data parallel (the layout tests start here).
void training_on_gpus(Harness& h, int64_t n) {
    h.frames(2);
    h.click("mode.0");
    h.app.scenario.gpu_count = n;
    h.app.scenario.parallel.dp = n;
    h.app.dirty = true;
    h.frames(2);
}

void check_under(const Harness& h, const std::string& key, const std::string& field) {
    INFO("widget " << key << ", error of " << field);
    REQUIRE(h.has(key));
    REQUIRE(h.has("error." + field));
    const std::vector<float>& w = h.app.ui.items.at(key);
    const std::vector<float>& e = h.app.ui.items.at("error." + field);
    CHECK(e[1] >= w[1] + w[3] - 1);                          // below the widget
    CHECK(e[1] <= w[1] + w[3] + 2 * ImGui::GetFrameHeight());  // and right under it
    CHECK(e[0] < w[0] + w[2]);                               // in the same column
    CHECK(e[0] + e[2] > w[0]);
}

}  // namespace

TEST_CASE("a core error shows once, under its field, in the core's words") {
    Harness h(1280, 4000);
    h.frames(2);
    h.click("mode.0");
    // A custom model typed into the page: 5 KV heads do not divide Llama-3.1-8B's 32 heads.
    h.click("model.source.1");
    REQUIRE(h.app.ui.source == ModelSource::Custom);
    h.app.inbox.push_back({"text", "model.num_key_value_heads", "5"});
    h.frames(3);
    REQUIRE(h.app.scenario.model.kv_heads == 5);
    const std::vector<FieldError> core = validate(h.app.scenario);
    REQUIRE(core.size() == 1);
    CHECK(to_string(core[0]) == "model.num_key_value_heads: must divide num_attention_heads (32); got 5");
    CHECK(h.app.estimate.errors.size() == 1);
    const std::vector<FieldError> shown = shown_for(h, "model.num_key_value_heads");
    REQUIRE(shown.size() == 1);
    CHECK(shown[0].message == core[0].message);
    check_under(h, "model.num_key_value_heads", "model.num_key_value_heads");
    CHECK(h.app.ui.shown_errors.size() == 1);  // nowhere else in the inputs

    // A bad pp from a shared scenario: one error, under the pipeline field.
    Harness p(1280, 4000);
    p.frames(2);
    p.click("mode.0");
    p.app.scenario.parallel.pp = 64;
    p.app.scenario.gpu_count = 64;
    p.app.dirty = true;
    p.frames(3);
    REQUIRE(p.app.estimate.errors.size() == 1);
    CHECK(to_string(p.app.estimate.errors[0]) == "parallel.pp: must be at most num_hidden_layers (32); got 64");
    const std::vector<FieldError> pp = shown_for(p, "parallel.pp");
    REQUIRE(pp.size() == 1);
    CHECK(pp[0].message == "must be at most num_hidden_layers (32); got 64");
    check_under(p, "parallel.pp", "parallel.pp");
    CHECK(p.app.ui.shown_errors.size() == 1);
    // A GPU count that is not the layout's: under the GPU count, not again under the parallel sizes.
    p.app.scenario.parallel.pp = 1;
    p.app.scenario.gpu_count = 3;
    p.app.dirty = true;
    p.frames(3);
    REQUIRE(p.app.estimate.errors.size() == 1);
    REQUIRE(shown_for(p, "gpu_count").size() == 1);
    CHECK(shown_for(p, "gpu_count")[0].message == "must equal dp * tp * pp * cp (1); got 3");
    check_under(p, "gpu_count", "gpu_count");
    CHECK(p.app.ui.shown_errors.size() == 1);
    // A rule of a field the page has no widget for is still shown with the inputs, once, with its name.
    p.app.scenario.gpu_count = 1;
    p.app.scenario.parallel.shard_group = 3;
    p.app.dirty = true;
    p.frames(3);
    REQUIRE(p.app.estimate.errors.size() == 1);
    REQUIRE(shown_for(p, "parallel.shard_group").size() == 1);
    CHECK(p.app.ui.shown_errors.size() == 1);

    // A parameter count below 0 typed in: the core's rule speaks, the page does not drop the value.
    Harness c(1280, 4000);
    c.frames(2);
    c.click("model.source.2");
    REQUIRE(c.app.ui.source == ModelSource::ParamsOnly);
    c.app.inbox.push_back({"text", "model.params", "-3"});
    c.frames(3);
    CHECK(c.app.scenario.model.params_only == -3'000'000'000);
    const std::vector<FieldError> params = shown_for(c, "model.params");
    REQUIRE(params.size() == 1);
    CHECK(params[0].message == "must be > 0 (the parameter count of a model known only by it); got -3000000000");
    check_under(c, "model.params", "model.params");
}

TEST_CASE("layout switches follow the core's rules: offloads with the ZeRO stage, sp with tp") {
    Harness h(1280, 4000);
    training_on_gpus(h, 8);
    // ZeRO 0: no offload is accepted (ZeRO-Offload needs stage >= 1, parameter offload stage 3).
    CHECK_FALSE(h.has("parallel.offload_optimizer"));
    CHECK_FALSE(h.has("parallel.offload_params"));
    CHECK_FALSE(h.has("parallel.sp"));  // tp = 1
    h.click("parallel.zero.3");
    REQUIRE(h.app.scenario.parallel.zero == 3);
    h.click("parallel.offload_optimizer");
    h.click("parallel.offload_params");
    CHECK(h.app.scenario.parallel.offload_optimizer);
    CHECK(h.app.scenario.parallel.offload_params);
    // Back to ZeRO 1: parameter offload goes off with it, optimizer offload stays.
    h.click("parallel.zero.1");
    CHECK(h.app.scenario.parallel.zero == 1);
    CHECK_FALSE(h.app.scenario.parallel.offload_params);
    CHECK(h.app.scenario.parallel.offload_optimizer);
    CHECK_FALSE(h.has("parallel.offload_params"));
    CHECK(h.app.estimate.ok());
    // Inference ignores the optimizer offload (and the page sets ZeRO to 0): no error, and the
    // setting is still there on the way back to training.
    h.click("mode.2");
    REQUIRE(h.app.scenario.mode == Mode::Infer);
    CHECK(h.app.estimate.ok());
    h.click("mode.0");
    h.click("parallel.zero.1");
    CHECK(h.app.scenario.parallel.offload_optimizer);
    CHECK(h.app.estimate.ok());
    // tp 2: sequence parallelism is offered; back to tp 1 it goes off.
    h.click("parallel.tp");
    h.click("parallel.tp.2");
    REQUIRE(h.app.scenario.parallel.tp == 2);
    CHECK(h.app.scenario.parallel.dp == 4);  // 8 GPUs / tp 2
    h.click("parallel.sp");
    CHECK(h.app.scenario.parallel.sp);
    // 6 GPUs: tp 2 still divides, dp 3; 7 GPUs: tp 2 does not, the split goes back to 1 and dp takes all 7.
    h.app.inbox.push_back({"text", "gpu_count", "6"});
    h.frames(3);
    CHECK(h.app.scenario.parallel.tp == 2);
    CHECK(h.app.scenario.parallel.dp == 3);
    h.app.inbox.push_back({"text", "gpu_count", "7"});
    h.frames(3);
    CHECK(h.app.scenario.parallel.tp == 1);
    CHECK(h.app.scenario.parallel.dp == 7);
    CHECK_FALSE(h.app.scenario.parallel.sp);
    CHECK(h.app.estimate.ok());
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

TEST_CASE("phone: a number typed key by key in the page's text box never leaves a prefix (\"3\" on the way to \"3.5\")") {
    Harness h(390, 844, /*touch=*/true);
    h.frames(3);
    h.click("tab.1");  // Setup
    REQUIRE(h.app.scenario.mode == Mode::Infer);
    REQUIRE(h.app.scenario.infer.batch == 1);
    // The page's text box sends the whole text after every key (shell/bridge.js "text"), from the tap that opened it
    // (vl_text_field_at names the field: ui.editing_key) to text_done.
    h.app.ui.editing_key = "infer.batch";
    for (const char* typed : {"3", "3.", "3.5"}) {
        h.app.inbox.push_back({"text", "infer.batch", typed});
        h.frames(2);
    }
    h.app.inbox.push_back({"text_done", "infer.batch", ""});
    h.frames(2);
    CHECK(h.app.scenario.infer.batch == 1);  // the value from before the edit, not the "3" typed on the way
    CHECK(h.has("error.infer.batch"));
    // A whole number typed the same way is taken, and the error goes.
    h.app.ui.editing_key = "infer.batch";
    for (const char* typed : {"1", "12"}) {
        h.app.inbox.push_back({"text", "infer.batch", typed});
        h.frames(2);
    }
    h.app.inbox.push_back({"text_done", "infer.batch", ""});
    h.frames(2);
    CHECK(h.app.scenario.infer.batch == 12);
    CHECK_FALSE(h.has("error.infer.batch"));
}

TEST_CASE("language, theme and unit toggles") {
    Harness h;
    h.frames(2);
    h.click("toggle.lang");
    CHECK(h.app.ui.lang == Lang::Zh);
    CHECK(ImGui::GetStyle().Colors[ImGuiCol_PopupBg].w == 1.0f);  // lists open opaque over the inputs (issue 15)
    h.click("toggle.theme");
    CHECK(h.app.ui.theme == Theme::Light);
    CHECK(ImGui::GetStyle().Colors[ImGuiCol_PopupBg].w == 1.0f);
    h.click("toggle.unit");
    CHECK(h.app.ui.unit == SizeUnit::GB);
    char want[64];
    std::snprintf(want, sizeof want, "%.2f GB", h.core_total() / kGB);
    CHECK(shown_total(h.app) == want);
    // Every UI string has a Chinese text.
    for (int i = 0; i < static_cast<int>(S::Count_); ++i) CHECK(std::string(tr(Lang::Zh, static_cast<S>(i))).size() > 0);
}

TEST_CASE("embed mode reports its content height, exports go to the clipboard") {
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
    // The what-fits answers the page shows are in the export too, with the solver's own values (issue 15).
    REQUIRE(w.app.derived.answers.max_batch.found);
    const bool infer = w.app.scenario.mode == Mode::Infer;
    CHECK(w.app.outbox.back().a.find(std::string(infer ? "\nanswer.max_batch,max batch: " : "\nanswer.max_micro_batch,max micro-batch: ") +
                                     std::to_string(w.app.derived.answers.max_batch.value)) != std::string::npos);
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
    CHECK(std::string(h.app.estimate.components.front().formula()).size() > 0);
    CHECK(std::string(h.app.estimate.components.front().source).size() > 0);
}

TEST_CASE("show the math on the 中文 page: the source line in Chinese, its citation keys as written") {
    Harness h(1280, 3000);
    std::ifstream f(VRAMLENS_SOURCE_DIR "/web/ui/zh_messages.txt", std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    h.app.ui.zh_messages = vl::ui::parse_message_catalogue(ss.str());
    h.frames(3);
    h.app.ui.lang = vl::ui::Lang::Zh;  // after the first frame, which takes the browser's language
    h.frames(2);
    REQUIRE(h.has("row.kv_cache"));  // the default scenario: Transformers inference
    h.click("row.kv_cache");
    REQUIRE(h.has("math.kv_cache"));
    const std::string t = drawn_text(h);
    CHECK(t.find("DynamicCache 保存所有 token [transformers-code]") != std::string::npos);
    CHECK(t.find("DynamicCache holds every token") == std::string::npos);
    // Back in English: the core's own line.
    h.app.ui.lang = vl::ui::Lang::En;
    CHECK(drawn_text(h).find("DynamicCache holds every token [transformers-code]") != std::string::npos);
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

TEST_CASE("phone: a quick swipe that starts just below the tabs scrolls the tab, though the next frame finds the finger above it") {
    Harness h(390, 844, /*touch=*/true);
    h.app.scenario.mode = Mode::Train;  // the results are taller than the screen
    h.app.dirty = true;
    h.frames(3);
    REQUIRE(h.has("tab.0"));
    REQUIRE(h.has("phases"));
    const std::vector<float> tab = h.app.ui.items.at("tab.0");
    const float y0 = h.app.ui.items.at("phases")[1];
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = ImVec2(200, tab[1] + tab[3] + 20);  // inside the scrolling tab, 20 px below its top
    h.frame();
    io.MouseDown[0] = true;  // the press's frame
    h.frame();
    io.MousePos.y -= 150;  // a slow frame: the finger is over the verdict when the drag is first drawn
    h.frame();
    io.MouseDown[0] = false;
    h.frames(2);
    CHECK(h.app.ui.items.at("phases")[1] == Approx(y0 - 150).margin(1));
}

TEST_CASE("keyboard: a Tab held across a slow frame moves the focus one control, not two") {
    Harness h(1280, 800);
    ImGuiIO& io = ImGui::GetIO();
    constexpr int kTab = 9;  // any key index the backend maps Tab to
    io.KeyMap[ImGuiKey_Tab] = kTab;
    h.frames(3);
    // As web/main.cpp draws a frame: the backend sets DeltaTime, then keyboard_before_frame, then the frame.
    auto frame = [&](bool tab_down, float seconds) {
        io.KeysDown[kTab] = tab_down;
        io.DeltaTime = seconds;
        vl::ui::keyboard_before_frame();
        h.frame();
    };
    frame(true, 1.0f / 60);  // the first Tab gives the first control the focus
    frame(false, 1.0f / 60);
    frame(false, 1.0f / 60);
    REQUIRE(h.app.ui.focus_key == "toggle.lang");
    frame(true, 1.0f / 60);  // pressed ...
    frame(true, 0.5f);       // ... and still down when a late frame comes, half a second on
    frame(false, 1.0f / 60);
    frame(false, 1.0f / 60);
    CHECK(h.app.ui.focus_key == "toggle.theme");  // the top bar: language, theme, unit (a11y.mjs)
}

TEST_CASE("touch: a drag that starts on a button scrolls and presses nothing, a tap presses it") {
    Harness h(390, 844, /*touch=*/true);
    h.frames(3);
    h.click("tab.1");  // Setup: taller than the screen
    h.reach("mode.0");
    REQUIRE(h.app.scenario.mode == Mode::Infer);
    const std::vector<float> r = h.app.ui.items.at("mode.0");
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = ImVec2(r[0] + r[2] / 2, r[1] + r[3] / 2);  // the Training button
    h.frame();
    io.MouseDown[0] = true;
    h.frame();
    for (int i = 0; i < 5; ++i) {  // up 150 px: the content follows the finger, the button stays under it
        io.MousePos.y -= 30;
        h.frame();
    }
    io.MouseDown[0] = false;
    h.frames(2);
    CHECK(h.app.scenario.mode == Mode::Infer);
    CHECK(h.app.ui.items.at("mode.0")[1] == Approx(r[1] - 150).margin(1));
    h.click("mode.0");
    CHECK(h.app.scenario.mode == Mode::Train);
}

TEST_CASE("advanced: the accounting modes offered are the ones the core accepts, DeepSpeed's own inputs follow") {
    Harness h(1280, 4000);  // tall: every section on screen
    h.frames(2);
    h.click("mode.0");  // Training
    h.click("section.advanced");
    REQUIRE(h.has("train.compat"));
    // ZeRO 0: the DeepSpeed estimator covers ZeRO-2 and ZeRO-3 only (core/training/training.cpp), so
    // it is listed but cannot be chosen.
    h.click("train.compat");
    REQUIRE(h.has("train.compat.deepspeed-estimator"));
    h.click("train.compat.deepspeed-estimator");
    CHECK(h.app.scenario.train.compat == Compat::None);
    h.click("total");  // closes the list (a disabled entry leaves it open)
    h.frames(2);
    CHECK_FALSE(h.has("parallel.gpus_per_node"));
    // ZeRO 3 (the "3 / FSDP" button): now it can, and its per-node host memory inputs appear.
    h.click("parallel.zero.3");
    h.click("train.compat");
    h.click("train.compat.deepspeed-estimator");
    CHECK(h.app.scenario.train.compat == Compat::DeepSpeedEstimator);
    CHECK(h.has("parallel.gpus_per_node"));
    REQUIRE(h.has("parallel.zero_init"));
    h.click("parallel.zero_init");
    CHECK_FALSE(h.app.scenario.parallel.zero_init);
    CHECK(h.app.estimate.ok());
    CHECK(h.app.estimate.total_bytes == h.core_total());
    // Back to ZeRO 1: the rule is broken, and its message shows at the accounting field (once).
    h.click("parallel.zero.1");
    CHECK_FALSE(h.app.estimate.ok());
    REQUIRE(h.app.estimate.errors.size() == 1);
    CHECK(h.app.estimate.errors[0].field == "train.compat");
}

TEST_CASE("advanced: fp32 gradient regimes, activation formula and dropout reach the scenario") {
    Harness h(1280, 4000);
    h.frames(2);
    h.click("mode.0");
    h.click("section.advanced");
    h.click("train.fp32_grad_accum");
    CHECK(h.app.scenario.train.fp32_grad_accum);
    h.click("train.fp32_grad_copy");
    CHECK(h.app.scenario.train.fp32_grad_copy);
    h.click("train.activation_formula");
    h.click("train.activation_formula.coefficient");
    CHECK(h.app.scenario.train.activation_formula == ActivationFormula::Coefficient);
    CHECK(h.has("train.activation_coefficient"));
    CHECK(h.app.estimate.total_bytes == h.core_total());
    // LoRA dropout only for LoRA/QLoRA fine-tunes.
    CHECK_FALSE(h.has("finetune.lora_dropout"));
    h.click("mode.1");
    CHECK(h.has("finetune.lora_dropout"));
    CHECK_FALSE(h.has("train.activation_formula"));  // fine-tunes always walk the tensors
}

TEST_CASE("advanced: expandable segments, for PyTorch runs only, drop the allocator's split holes") {
    Harness h(1280, 4000);
    h.frames(2);
    h.click("mode.0");  // training runs on PyTorch's caching allocator
    h.click("section.advanced");
    const double before = h.app.estimate.total_bytes;
    h.click("overheads.expandable_segments");
    CHECK(h.app.scenario.overheads.expandable_segments);
    CHECK(h.app.estimate.total_bytes == h.core_total());
    CHECK(h.app.estimate.total_bytes <= before);
    // vLLM sizes its own pool: no PyTorch allocator setting to offer.
    h.click("mode.2");
    h.app.scenario.infer.engine = Engine::VLLM;
    h.frames(2);
    CHECK_FALSE(h.has("overheads.expandable_segments"));
}

TEST_CASE("pipeline schedule and virtual stages: only what the core's rules accept") {
    Harness h(1280, 4000);
    training_on_gpus(h, 4);
    CHECK_FALSE(h.has("parallel.schedule"));  // pp = 1: no pipeline
    h.click("parallel.pp");
    h.click("parallel.pp.4");
    REQUIRE(h.app.scenario.parallel.pp == 4);
    h.click("parallel.schedule");
    h.click("parallel.schedule.interleaved");
    CHECK(h.app.scenario.parallel.schedule == PipelineSchedule::Interleaved);
    // Interleaving starts at 2 chunks per stage; Llama-3.1-8B's 32 layers over pp 4 allow at most
    // 32 / 4 = 8 (validate_parallel: pp * virtual_stages <= layers).
    CHECK(h.app.scenario.parallel.virtual_stages == 2);
    h.click("parallel.virtual_stages");
    CHECK(h.has("parallel.virtual_stages.8"));
    CHECK_FALSE(h.has("parallel.virtual_stages.9"));
    h.click("parallel.virtual_stages.8");
    CHECK(h.app.scenario.parallel.virtual_stages == 8);
    CHECK(h.app.estimate.ok());
    CHECK(h.app.estimate.total_bytes == h.core_total());
    // Back to 1F1B: one chunk per stage again (virtual stages > 1 need the interleaved schedule).
    h.click("parallel.schedule");
    h.click("parallel.schedule.1f1b");
    CHECK(h.app.scenario.parallel.virtual_stages == 1);
    CHECK(h.app.estimate.ok());
}

TEST_CASE("Megatron's uneven pipeline split: typed per stage, its rule shown under the field, dropped with the pp it names") {
    Harness h(1280, 4000);
    training_on_gpus(h, 2);
    CHECK_FALSE(h.has("parallel.last_stage_layers"));  // pp = 1: no stages to split
    h.click("parallel.pp");
    h.click("parallel.pp.2");
    REQUIRE(h.app.scenario.parallel.pp == 2);
    REQUIRE(h.has("parallel.last_stage_layers"));
    // Llama-3.1-8B's 32 layers: 20 on the last stage leaves 12 on the first
    h.app.inbox.push_back({"text", "parallel.last_stage_layers", "20"});
    h.frames(3);
    CHECK(h.app.scenario.parallel.last_stage_layers == 20);
    CHECK(h.app.estimate.ok());
    CHECK(h.app.estimate.total_bytes == h.core_total());
    // 40 of 32 layers: the core's rule, under the field
    h.app.inbox.push_back({"text", "parallel.last_stage_layers", "32"});
    h.app.inbox.push_back({"text", "parallel.first_stage_layers", "8"});
    h.frames(3);
    const std::vector<FieldError> shown = shown_for(h, "parallel.last_stage_layers");
    REQUIRE(shown.size() == 1);
    CHECK(shown[0].message == "first_stage_layers + last_stage_layers must be at most num_hidden_layers (32); got 40");
    check_under(h, "parallel.last_stage_layers", "parallel.last_stage_layers");
    // back to one stage: the split names stages that no longer exist and goes back to the even split
    h.click("parallel.pp");
    h.click("parallel.pp.1");
    CHECK(h.app.scenario.parallel.first_stage_layers == 0);
    CHECK(h.app.scenario.parallel.last_stage_layers == 0);
    CHECK(h.app.estimate.ok());
}

TEST_CASE("inference: prompt for every engine, vLLM's own settings under Advanced, invalid KV dtypes not offered") {
    Harness h(1280, 4000);
    h.frames(2);
    REQUIRE(h.app.scenario.mode == Mode::Infer);
    CHECK(h.has("infer.prompt"));
    h.click("infer.engine");
    h.click("infer.engine.vllm");
    REQUIRE(h.app.scenario.infer.engine == Engine::VLLM);
    h.click("section.advanced");
    CHECK(h.has("infer.max_num_seqs"));
    h.click("infer.block_size");
    h.click("infer.block_size.32");
    CHECK(h.app.scenario.infer.block_size == 32);
    // vLLM caches KV in fp16/bf16/fp8 (core/inference/inference.cpp): int8 is listed, not choosable.
    h.click("infer.kv_dtype");
    h.click("infer.kv_dtype.int8");
    CHECK(h.app.scenario.infer.kv_dtype == KvDtype::BF16);
    h.click("total");
    h.click("infer.kv_dtype");
    h.click("infer.kv_dtype.fp8");
    CHECK(h.app.scenario.infer.kv_dtype == KvDtype::FP8);
    CHECK(h.app.estimate.total_bytes == h.core_total());
}

TEST_CASE("long component names are cut with an ellipsis to the column") {
    Harness h;
    h.frames(1);
    ImGui::NewFrame();
    const std::string name = "CUDA context and framework";
    const float full = ImGui::CalcTextSize(name.c_str()).x;
    CHECK(fit_text(name, full + 1) == name);
    const std::string cut = fit_text(name, full * 0.5f);
    CHECK(cut.size() < name.size());
    CHECK(cut.substr(cut.size() - 3) == "\xE2\x80\xA6");
    CHECK(ImGui::CalcTextSize(cut.c_str()).x <= full * 0.5f);
    CHECK(name.compare(0, cut.size() - 3, cut, 0, cut.size() - 3) == 0);  // a prefix of the name
    ImGui::EndFrame();
}

// ---- issue 12: no crash, no lost work, no silent wrong answer -------------------------------

namespace {

// Every "fragment" the app asked the page to put in the address bar, in order.
std::vector<std::string> fragments(const AppState& app) {
    std::vector<std::string> out;
    for (const OutEvent& o : app.outbox)
        if (o.kind == "fragment") out.push_back(o.a);
    return out;
}

// A scenario that is not the page's default: training, micro-batch 2 (two clicks of work).
void make_work(Harness& h) {
    h.frames(2);
    h.click("mode.0");
    h.click("train.micro_batch.plus");
    REQUIRE(h.app.scenario.mode == Mode::Train);
    REQUIRE(scenario_to_json(h.app.scenario) != scenario_to_json(default_scenario()));
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("opening a share link leaves the link in the address bar, not the default scenario's") {
    Harness h;
    make_work(h);
    const std::string link = h.app.ui.last_fragment;
    REQUIRE(link == encode_share_link(h.app.scenario));

    Harness other;
    other.app.ui.env.hash = "#" + link;
    other.frames(3);
    CHECK(scenario_to_json(other.app.scenario) == scenario_to_json(h.app.scenario));
    // The address bar already holds this link: nothing is written over it, least of all the defaults'.
    for (const std::string& f : fragments(other.app)) CHECK(f == link);
    CHECK(fragments(other.app).empty());

    // A link that decodes to the same scenario but is not written the canonical way (pretty JSON
    // inside) is replaced by the canonical one, once, and never by the defaults'.
    std::string payload = scenario_to_json(h.app.scenario, JsonStyle::Pretty);
    const uint32_t crc = crc32(payload);
    for (int shift = 24; shift >= 0; shift -= 8) payload.push_back(static_cast<char>((crc >> shift) & 0xFF));
    const std::string pretty_link = "v1." + base64url_encode(payload);
    REQUIRE(pretty_link != link);
    Harness third;
    third.app.ui.env.hash = "#" + pretty_link;
    third.frames(3);
    CHECK(third.app.ui.notice.empty());
    CHECK(fragments(third.app) == std::vector<std::string>{link});
}

TEST_CASE("a damaged link opened in a tab that holds work keeps the work and says what is wrong") {
    Harness h;
    make_work(h);
    const std::string work = scenario_to_json(h.app.scenario);
    const std::string link = h.app.ui.last_fragment;
    std::string garbled = link;
    garbled[link.size() / 2] = garbled[link.size() / 2] == 'A' ? 'B' : 'A';
    const std::vector<std::string> damaged = {
        link.substr(0, link.size() - 6),             // truncated (a cut-off copy)
        garbled,                                     // one character mistyped: the CRC-32 catches it
        "v1.",                                       // nothing after the prefix
        "v9." + link.substr(3),                      // a version this build does not read
        "not-a-link",
        std::string(1'500'000, 'A'),                 // 1.5 MB in the address bar
        std::string("v1.\0\xff\xfe", 6),             // NUL and bytes that are not UTF-8
    };
    for (const std::string& bad : damaged) {
        INFO("link " << bad.substr(0, 40) << " (" << bad.size() << " bytes)");
        h.app.outbox.clear();
        h.app.ui.notice.clear();
        h.app.inbox.push_back({"hash", "", "#" + bad});
        h.frames(2);
        CHECK(scenario_to_json(h.app.scenario) == work);
        CHECK(contains(h.app.ui.notice, "could not be read, so your scenario was kept"));
        CHECK(h.has("notice"));
        // The address bar gets the work's own link back, so a reload or a copy keeps the work too.
        CHECK(fragments(h.app) == std::vector<std::string>{link});
    }
    // A good link in the same tab still opens.
    Harness other;
    other.frames(2);
    const std::string default_link = other.app.ui.last_fragment;
    h.app.outbox.clear();
    h.app.inbox.push_back({"hash", "", "#" + default_link});
    h.frames(2);
    CHECK(scenario_to_json(h.app.scenario) == scenario_to_json(default_scenario()));
    CHECK(fragments(h.app).empty());  // the bar already holds it
    CHECK(h.app.ui.notice.empty());   // the last damaged link's message is gone
}

TEST_CASE("open_hash takes any text without changing the scenario unless it is a good link") {
    AppState app = make_app_state();
    app.ui.started = true;
    app.scenario.mode = Mode::FineTune;
    app.dirty = true;
    refresh(app);
    const std::string work = scenario_to_json(app.scenario);
    for (const std::string& text : {std::string(), std::string("#"), std::string("#v1"), std::string("\n\t #v1. \n"),
                                    std::string(5'000'000, '#'), std::string("#v1.") + std::string(100'000, '_')}) {
        open_hash(app, text);
        refresh(app);
        CHECK(scenario_to_json(app.scenario) == work);
    }
}

TEST_CASE("a scenario, a config.json and a link go to their own reader wherever they are pasted") {
    const std::string scenario_file = read_file(std::string(VRAMLENS_TEST_DATA) + "/../../docs/examples/llama-3-8b-lora-4090.json");
    const std::string gpt2 = read_file(std::string(VRAMLENS_TEST_DATA) + "/configs/gpt2.json");
    REQUIRE(contains(scenario_file, "\"rtx-4090\""));
    REQUIRE_FALSE(gpt2.empty());

    SECTION("pasted on the page") {
        Harness h;
        make_work(h);
        h.app.inbox.push_back({"paste", "", scenario_file});
        h.frames(2);
        CHECK(h.app.scenario.mode == Mode::FineTune);          // the file's "mode": "finetune"
        CHECK(h.app.scenario.finetune.method == FineTuneMethod::LoRA);
        CHECK(h.app.ui.gpu_preset_id == "rtx-4090");
        CHECK(status_text(h.app) == "This is a vramlens scenario: opened it.");
        CHECK(h.has("status"));
        CHECK(h.app.ui.notice.empty());

        h.app.inbox.push_back({"drop", "", gpt2});
        h.frames(2);
        CHECK(h.app.scenario.model.hidden == 768);  // gpt2 config.json: n_embd 768
        CHECK(h.app.scenario.mode == Mode::FineTune);  // the rest of the scenario stays
        CHECK(status_text(h.app) == "This is a config.json: imported the model: gpt2");
        h.click("toggle.lang");  // the message follows the language
        CHECK(status_text(h.app) == "这是 config.json：已导入模型: gpt2");
    }
    SECTION("typed into the config.json box and imported") {
        Harness h(1280, 2000);
        h.frames(2);
        h.click("model.source.3");  // config.json
        REQUIRE(h.has("model.import"));
        h.app.ui.config_text = scenario_file;  // a scenario where a config.json goes
        h.click("model.import");
        CHECK(h.app.scenario.mode == Mode::FineTune);
        CHECK(h.app.ui.gpu_preset_id == "rtx-4090");
        CHECK(h.app.ui.config_errors.empty());
        CHECK(status_text(h.app) == "This is a vramlens scenario: opened it.");

        h.click("model.source.3");
        h.app.ui.config_text = gpt2;
        h.click("model.import");
        CHECK(h.app.scenario.model.layers == 12);  // n_layer 12
        CHECK(h.app.ui.source == ModelSource::Config);
        CHECK(status_text(h.app) == "This is a config.json: imported the model: gpt2");

        // A share link copied from the address bar, pasted into the box.
        Scenario s = default_scenario();
        s.infer.batch = 8;
        const std::string link = encode_share_link(s);
        h.click("model.source.3");
        h.app.ui.config_text = "https://example.org/vramlens/#" + link;
        h.click("model.import");
        CHECK(scenario_to_json(h.app.scenario) == scenario_to_json(s));
        CHECK(status_text(h.app) == "This is a vramlens link: opened it.");
    }
    SECTION("something else: says what it is and changes nothing") {
        Harness h;
        make_work(h);
        const std::string work = scenario_to_json(h.app.scenario);
        const std::string tokenizer = R"({"version": "1.0", "truncation": null, "added_tokens": [],
                                          "model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}})";
        h.app.inbox.push_back({"paste", "", tokenizer});
        h.frames(2);
        CHECK(scenario_to_json(h.app.scenario) == work);
        CHECK(contains(h.app.ui.notice, "neither a vramlens link, a scenario nor a config.json"));
        CHECK(contains(h.app.ui.notice, "tokenizer.json"));
        CHECK(status_text(h.app).empty());
        // A scenario that its reader rejects: named as a scenario, with the field at fault.
        h.app.inbox.push_back({"paste", "", R"({"version": 1, "model": "llama-3.1-8b", "mode": "sing"})"});
        h.frames(2);
        CHECK(scenario_to_json(h.app.scenario) == work);
        CHECK(contains(h.app.ui.notice, "This is a vramlens scenario, but it could not be opened"));
        CHECK(contains(h.app.ui.notice, "mode"));
    }
}

TEST_CASE("large input: refused above the limit with its size, read below it, never shown whole in a field") {
    Harness h;
    make_work(h);
    const std::string work = scenario_to_json(h.app.scenario);
    // The page refuses text over kMaxJsonInputBytes (4 MiB = 4,194,304 bytes) and tells the app its size.
    h.app.inbox.push_back({"refused", "paste", "5000000"});
    h.frames(2);
    CHECK(h.app.ui.notice ==
          "The pasted text is 5000 KB; at most 4194 KB is read (a config.json or a scenario is a few KB: was "
          "something else given?). Nothing was changed.");
    CHECK(h.has("notice"));
    CHECK(scenario_to_json(h.app.scenario) == work);
    h.app.inbox.push_back({"refused", "drop", "12000000"});
    h.frames(2);
    CHECK(contains(h.app.ui.notice, "The dropped file is 12 MB; at most 4194 KB is read"));

    // A real config.json with a 1.5 MB "description": read and imported; too long to show in the box.
    std::string cfg = read_file(std::string(VRAMLENS_TEST_DATA) + "/configs/gpt2.json");
    const size_t brace = cfg.find('{');
    REQUIRE(brace != std::string::npos);
    cfg.insert(brace + 1, "\"description\": \"" + std::string(1'500'000, 'd') + "\",");
    h.app.inbox.push_back({"paste", "", cfg});
    h.frames(3);
    CHECK(h.app.scenario.model.hidden == 768);
    CHECK(h.app.ui.source == ModelSource::Config);
    CHECK(h.app.ui.config_text.empty());
    CHECK(status_text(h.app) == "This is a config.json: imported the model: gpt2");
    CHECK(h.has("status"));
}

TEST_CASE("a paste while a text field has the keyboard goes into the field, not to an importer") {
    Harness h;
    h.frames(2);
    h.click("model.search");  // the preset search box takes the keyboard
    h.frames(2);
    REQUIRE(h.app.ui.text_active);
    const std::string gpt2 = read_file(std::string(VRAMLENS_TEST_DATA) + "/configs/gpt2.json");
    h.app.inbox.push_back({"paste", "", gpt2});
    h.frames(2);
    CHECK(h.app.ui.source == ModelSource::Preset);
    CHECK(h.app.ui.preset_id == "llama-3.1-8b");
    CHECK(status_text(h.app).empty());
}

TEST_CASE("the embed snippet sizes its iframe only on the app's own message") {
    Harness h;
    h.app.ui.env.origin = "https://example.org";
    h.frames(2);
    const std::string link = h.app.ui.last_fragment;
    const std::string snippet = embed_snippet(h.app, false);
    CHECK(contains(snippet, "<iframe src=\"https://example.org/vramlens/?embed#" + link + "\""));
    // Another origin's message, or one from a window that is not one of the page's iframes, is ignored.
    CHECK(contains(snippet, "e.origin!=='https://example.org'"));
    CHECK(contains(snippet, "f.contentWindow===e.source"));
    CHECK(contains(embed_snippet(h.app, true), "?embed=edit#"));
    // The Share panel shows and copies exactly this text.
    Harness w(1280, 3000);
    w.app.ui.env.origin = "https://example.org";
    w.frames(3);
    w.app.outbox.clear();
    w.click("share.copy_snippet");
    REQUIRE_FALSE(w.app.outbox.empty());
    CHECK(w.app.outbox.back().kind == "copy");
    CHECK(w.app.outbox.back().a == embed_snippet(w.app, false));
    // Without location.origin (never in a browser) the origin comes from the page's address; a quote
    // cannot end the script's string.
    h.app.ui.env.origin.clear();
    CHECK(contains(embed_snippet(h.app, false), "e.origin!=='https://example.org'"));
    h.app.ui.env.origin = "https://a'b";
    CHECK(contains(embed_snippet(h.app, false), "e.origin!=='https://a\\'b'"));
}

TEST_CASE("inference says what its GPU count is: every GPU, replicas times tensor and pipeline parallel") {
    for (const bool phone : {false, true}) {
        INFO((phone ? "phone" : "desktop"));
        Harness h(phone ? 390 : 1280, 4000, /*touch=*/phone);  // tall: every section drawn
        h.frames(3);
        if (phone) h.click("tab.1");  // the phone's Setup tab
        REQUIRE(h.app.scenario.mode == Mode::Infer);
        std::string t = drawn_text(h);
        CHECK(t.find("GPUs in all (replicas \xC3\x97 TP \xC3\x97 PP)") != std::string::npos);
        CHECK(t.find("Replicas, each a whole copy of the model (DP): 1") != std::string::npos);
        CHECK(t.find("Tensor parallel (TP)") != std::string::npos);  // offered directly
        h.click("mode.0");  // training: data parallel, as the training papers name it
        t = drawn_text(h);
        CHECK(t.find("Data parallel (DP): 1") != std::string::npos);
        CHECK(t.find("replicas") == std::string::npos);
    }
}

TEST_CASE("what a paste did is said until the scenario changes after it, then it goes") {
    Harness h;
    h.frames(2);
    h.app.inbox.push_back({"paste", "", read_file(std::string(VRAMLENS_TEST_DATA) + "/configs/gpt2.json")});
    h.frames(3);
    REQUIRE(h.app.ui.status == S::ImportedConfig);
    CHECK(h.has("status"));  // stays while nothing else changes
    h.click("mode.0");       // the user goes on: training
    REQUIRE(h.app.scenario.mode == Mode::Train);
    h.frames(1);
    CHECK(h.app.ui.status == S::Count_);
    CHECK_FALSE(h.has("status"));
    // A link pasted next says so, again until the next change.
    h.app.ui.lang = Lang::En;
    const std::string link = encode_share_link(h.app.scenario);
    h.click("mode.2");
    h.app.inbox.push_back({"paste", "", "#" + link});
    h.frames(3);
    CHECK(h.app.ui.status == S::OpenedLink);
    CHECK(h.app.scenario.mode == Mode::Train);
}

// ---- import by repo id (issue 17): the app side; shell/hub.js does the requests ----------------

namespace {

// A llama of hidden 8, one layer, 2 heads of 4, MLP 16, vocabulary 32, untied: 1176 parameters
// (embedding 256, q k v o 256, gate up down 384, norms 16 + 8, lm_head 256).
const std::string kTinyConfig = R"({"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 8,
  "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 2, "intermediate_size": 16,
  "vocab_size": 32, "max_position_embeddings": 128, "tie_word_embeddings": false)";
const std::string kSha = "0123456789abcdef0123456789abcdef01234567";

size_t hub_requests(const Harness& h) {
    size_t n = 0;
    for (const OutEvent& e : h.app.outbox) n += e.kind == "hub";
    return n;
}

}  // namespace

TEST_CASE("hub import: nothing is requested before the click, the notice says what is sent, the token goes only to the fetcher") {
    Harness h;
    h.frames(3);
    h.click("model.source.3");  // config.json: the Hub field is above the paste box
    REQUIRE(h.has("model.hub"));
    REQUIRE(h.has("model.hub_token"));
    CHECK_THAT(drawn_text(h), Catch::Contains("Pressing the button sends the repo id to https://huggingface.co"));
    h.app.ui.hub_ref = "https://huggingface.co/test-org/dense-tiny/tree/main";
    h.app.ui.hub_token = "hf_secret_token";
    h.frames(5);
    CHECK(hub_requests(h) == 0);  // typing requests nothing
    h.click("model.hub_import");
    REQUIRE(hub_requests(h) == 1);
    for (const OutEvent& e : h.app.outbox) {
        if (e.kind == "hub") {
            const nlohmann::json r = nlohmann::json::parse(e.a);
            CHECK(r["repo"] == "test-org/dense-tiny");
            CHECK(r["revision"] == "main");
            CHECK(r["endpoint"] == "https://huggingface.co");
            CHECK(e.a.find("hf_secret") == std::string::npos);
            CHECK(e.b == "hf_secret_token");
        } else {
            CHECK(e.a.find("hf_secret") == std::string::npos);  // no link, download or title carries it
        }
    }
    CHECK(h.app.ui.hub_state == HubState::Fetching);
    const std::string shown = drawn_text(h);
    CHECK_THAT(shown, Catch::Contains("Reading test-org/dense-tiny (https://huggingface.co)"));
    CHECK_THAT(shown, !Catch::Contains("Pressing the button sends"));  // said once, before the first request
    CHECK(h.app.ui.last_fragment.find(base64url_encode("hf_secret")) == std::string::npos);
    // Not a repo id: the field's error, and nothing requested.
    h.app.outbox.clear();
    h.app.ui.hub_state = HubState::Idle;
    h.app.ui.hub_ref = "not a repo";
    h.click("model.hub_import");
    CHECK(hub_requests(h) == 0);
    CHECK(h.app.ui.hub_state == HubState::Failed);
    CHECK_THAT(notice_english(h.app.ui.hub_message), Catch::StartsWith("model: "));
}

TEST_CASE("hub import: the checkpoint becomes the model, its facts are shown, and its link opens offline with the source") {
    Harness h;
    h.frames(3);
    h.click("model.source.3");
    h.app.ui.hub_ref = "test-org/awq-tiny";
    h.click("model.hub_import");
    // AWQ 4-bit, group 64: one packed down_proj (qweight I32 [64, 16] = 8192 weights), its qzeros and
    // scales, and an F16 embedding kept (256). Tensor bytes 4928; the file is 8 + header + 4928.
    const std::string header = R"({
      "model.layers.0.mlp.down_proj.qweight": {"dtype": "I32", "shape": [64, 16], "data_offsets": [0, 4096]},
      "model.layers.0.mlp.down_proj.qzeros": {"dtype": "I32", "shape": [1, 16], "data_offsets": [4096, 4160]},
      "model.layers.0.mlp.down_proj.scales": {"dtype": "F16", "shape": [1, 128], "data_offsets": [4160, 4416]},
      "model.embed_tokens.weight": {"dtype": "F16", "shape": [32, 8], "data_offsets": [4416, 4928]}})";
    const std::string file = test::safetensors_file(header, 4928);
    const uint64_t size = file.size();
    nlohmann::json payload = {{"repo", "test-org/awq-tiny"}, {"revision", kSha},
                              {"config", kTinyConfig + R"(, "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 64}})"},
                              {"shards", {{{"name", "model.safetensors"}, {"size", size}}}}};
    h.app.scenario.mode = Mode::Infer;
    REQUIRE(hub_import_done(h.app, payload.dump(), {{"model.safetensors", file.substr(0, 8 + header.size())}}));
    h.frames(3);
    CHECK(h.app.scenario.model.hidden == 8);
    CHECK(h.app.scenario.model.name == "awq-tiny");
    CHECK(h.app.scenario.infer.weights == WeightFormat::AWQ4);
    CHECK(h.app.scenario.infer.group_size == 64);
    CHECK(h.app.scenario.model.source.hub == "test-org/awq-tiny");
    CHECK(h.app.scenario.model.source.revision == kSha);
    const std::string shown = drawn_text(h);
    // Elements per dtype: F16 128 + 256 = 384, I32 1024 + 16 = 1040; 1424 in all.
    CHECK_THAT(shown, Catch::Contains("Checkpoint parameters: 1,424 (F16 384, I32 1,040)"));
    CHECK_THAT(shown, Catch::Contains("quantized: 8,192 parameters in 1 weights; not quantized: 256 in 1 tensors"));
    CHECK_THAT(shown, Catch::Contains("True checkpoint size: ") && Catch::Contains("(" + group_thousands(static_cast<int64_t>(size)) + " bytes, 1 safetensors files)"));
    CHECK_THAT(shown, Catch::Contains("quantization: AWQ 4-bit, group size 64 -> awq-4bit"));
    // The link carries the spec and the source: opened with no network, it is the same model.
    Result<Scenario> back = decode_share_link(h.app.ui.last_fragment);
    REQUIRE(back.ok());
    CHECK(back->model.hidden == 8);
    CHECK(back->model.source.hub == "test-org/awq-tiny");
    CHECK(back->model.source.revision == kSha);
    CHECK(back->infer.weights == WeightFormat::AWQ4);
    // Editing the model makes it another model: the link no longer names the checkpoint.
    h.app.scenario.model.layers = 2;
    h.app.dirty = true;
    h.frames(2);
    CHECK(h.app.scenario.model.source.hub.empty());
    CHECK(decode_share_link(h.app.ui.last_fragment)->model.source.hub.empty());
}

TEST_CASE("hub import: a LoRA adapter is fine-tuning of its base model with the adapter's rank and targets") {
    Harness h;
    h.frames(3);
    h.click("model.source.3");
    h.app.ui.hub_ref = "test-org/lora-tiny";
    h.click("model.hub_import");
    nlohmann::json payload = {{"repo", "test-org/lora-tiny"}, {"revision", kSha}, {"config", kTinyConfig + "}"},
                              {"adapter", R"({"peft_type": "LORA", "base_model_name_or_path": "test-org/dense-tiny", "r": 8,
                                             "lora_alpha": 16, "target_modules": ["q_proj", "v_proj", "down_proj"]})"}};
    REQUIRE(hub_import_done(h.app, payload.dump(), {}));
    h.frames(2);
    CHECK(h.app.scenario.mode == Mode::FineTune);
    CHECK(h.app.scenario.finetune.method == FineTuneMethod::LoRA);
    CHECK(h.app.scenario.finetune.lora_rank == 8);
    CHECK(h.app.scenario.finetune.lora_targets == (kLoraQ | kLoraV | kLoraDown));
    CHECK_THAT(drawn_text(h), Catch::Contains("LoRA adapter on test-org/dense-tiny: rank 8"));
}

TEST_CASE("hub import: every failure is said in words with the offline alternative, and the model is kept") {
    Harness h;
    h.frames(3);
    h.click("model.source.3");
    const ModelSpec before = h.app.scenario.model;
    h.app.ui.hub_ref = "test-org/gated-tiny";
    h.click("model.hub_import");
    hub_import_failed(h.app, 401, "GatedRepo", "", "config.json", "");
    h.frames(2);
    std::string shown = drawn_text(h);
    CHECK_THAT(shown, Catch::Contains("Import failed: test-org/gated-tiny is a gated model: it needs a Hugging Face access token"));
    CHECK_THAT(shown, Catch::Contains("paste or drop config.json into the page"));
    hub_import_failed(h.app, 429, "", "7", "", "");
    CHECK_THAT(notice_english(h.app.ui.hub_message), Catch::Contains("rate-limiting requests (429): wait 7 s"));
    hub_import_failed(h.app, 0, "", "", "", "Failed to fetch");
    CHECK_THAT(notice_english(h.app.ui.hub_message), Catch::StartsWith("could not reach the Hugging Face Hub to read test-org/gated-tiny (Failed to fetch)"));
    hub_import_failed(h.app, 404, "RepoNotFound", "", "", "");
    CHECK_THAT(notice_english(h.app.ui.hub_message), Catch::StartsWith("test-org/gated-tiny was not found on the Hub"));
    // An answer the core cannot read: the file and field named, nothing applied.
    CHECK_FALSE(hub_import_done(h.app, R"({"repo": "a/b", "revision": "x", "config": "{\"model_type\": \"llama\", \"hidden_size\": -8}"})", {}));
    CHECK_THAT(notice_english(h.app.ui.hub_message), Catch::StartsWith("config.json of a/b cannot be imported: "));
    CHECK_FALSE(hub_import_done(h.app, R"({"repo": "a/b", "revision": "x", "shards": [{"name": "m.safetensors", "size": 10}]})", {}));
    CHECK_THAT(notice_english(h.app.ui.hub_message), Catch::StartsWith("hub.shards: m.safetensors: its header was not read"));
    CHECK_FALSE(hub_import_done(h.app, "[1]", {}));
    CHECK(h.app.ui.hub_state == HubState::Failed);
    CHECK(model_to_json(h.app.scenario.model) == model_to_json(before));
}

TEST_CASE("an architecture edit drops an imported GGUF's tensor bytes, a look at the custom fields does not (issue 17)") {
    Harness h(1280, 4000);
    h.frames(2);
    // As a GGUF import leaves it: the model with its file's bytes, one entry per layer (32).
    h.app.scenario.model.gguf_bytes = {std::vector<uint64_t>(32, 1000), 10, 20, 30, {}};
    h.app.ui.source = ModelSource::Config;
    h.frames(2);
    h.click("model.source.1");
    REQUIRE(h.app.ui.source == ModelSource::Custom);
    CHECK(h.app.scenario.model.gguf_bytes.layers.size() == 32);
    // Another hidden size keeps the layer count, so only the page can tell the bytes are stale.
    h.app.inbox.push_back({"text", "model.hidden_size", "2048"});
    h.frames(3);
    REQUIRE(h.app.scenario.model.hidden == 2048);
    CHECK(h.app.scenario.model.gguf_bytes.empty());
}

TEST_CASE("another weight format is another file: an imported GGUF's bytes stay for its own type only (issue 17)") {
    Harness h(1280, 4000);
    h.app.scenario.mode = Mode::Infer;
    h.app.scenario.infer.engine = Engine::LlamaCpp;
    h.app.scenario.infer.weights = WeightFormat::GGUF_Q4_K_M;
    h.app.scenario.model.gguf_bytes = {std::vector<uint64_t>(32, 1000), 10, 20, 30, {}};
    h.frames(3);
    CHECK(h.app.scenario.model.gguf_bytes.layers.size() == 32);  // drawing the combo changes nothing
    h.click("infer.weights");
    h.click("infer.weights.q4_0");  // next below the selected Q4_K_M, which the opened list puts at its top
    REQUIRE(h.app.scenario.infer.weights == WeightFormat::GGUF_Q4_0);
    CHECK(h.app.scenario.model.gguf_bytes.layers.size() == 32);
    CHECK_FALSE(gguf_bytes_describe(h.app.scenario.model, h.app.scenario.infer.weights));  // Q4_0: its format's rules
    h.click("infer.weights");
    {  // Q4_K_M is above the list's top now: one notch of the mouse wheel over the list scrolls it into view
        const std::vector<float> r = h.app.ui.items.at("infer.weights.q4_0");
        ImGui::SetCurrentContext(h.ctx);
        ImGuiIO& io = ImGui::GetIO();
        io.MousePos = ImVec2(r[0] + r[2] / 2, r[1] + r[3] / 2);
        h.frame();
        io.MouseWheel = 1;
        h.frame();
        io.MouseWheel = 0;
        h.frames(2);
    }
    h.click("infer.weights.q4_k_m");
    REQUIRE(h.app.scenario.infer.weights == WeightFormat::GGUF_Q4_K_M);
    CHECK(gguf_bytes_describe(h.app.scenario.model, h.app.scenario.infer.weights));  // the file's type again: its bytes
}

TEST_CASE("training inputs: every-k, offloaded checkpoints with recomputation only, and an MoE's capacity factor (issue 14)") {
    Harness h(1280, 4000);
    h.frames(2);
    h.click("mode.0");
    REQUIRE(h.app.scenario.mode == Mode::Train);
    // No recomputation: nothing is checkpointed, so there is nothing to offload.
    REQUIRE(h.app.scenario.train.recompute == Recompute::None);
    CHECK_FALSE(h.has("train.offload_checkpoints"));
    h.click("train.recompute");
    h.click("train.recompute.every-k");
    REQUIRE(h.app.scenario.train.recompute == Recompute::EveryK);
    h.app.inbox.push_back({"text", "train.recompute_every_k", "4"});
    h.frames(3);
    CHECK(h.app.scenario.train.recompute_every_k == 4);
    h.click("train.offload_checkpoints");
    CHECK(h.app.scenario.train.offload_checkpoints);
    CHECK(h.app.estimate.ok());
    bool host_checkpoints = false;
    for (const Component& c : h.app.estimate.components)
        if (std::string(c.id) == "act.checkpoints") host_checkpoints = c.host;
    CHECK(host_checkpoints);
    // Recomputation off again: the offload goes off with it (it would be an error) and the box goes.
    h.click("train.recompute");
    h.click("train.recompute.none");
    CHECK_FALSE(h.app.scenario.train.offload_checkpoints);
    CHECK_FALSE(h.has("train.offload_checkpoints"));
    CHECK(h.app.estimate.ok());
    // A dense model has no capacity factor; an MoE preset does.
    CHECK_FALSE(h.has("train.moe_expert_capacity_factor"));
    h.app.ui.model_filter = "mixtral";
    h.frames(2);
    std::string id;
    for (const ModelPreset& p : model_presets())
        if (h.has("preset." + p.id)) id = p.id;
    REQUIRE(!id.empty());
    h.click("preset." + id);
    REQUIRE(h.app.scenario.model.moe.num_experts > 0);
    CHECK_FALSE(h.has("train.moe_pad_expert_input_to_capacity"));  // dropless: nothing to pad to
    h.app.inbox.push_back({"text", "train.moe_expert_capacity_factor", "1.25"});
    h.frames(3);
    CHECK(h.app.scenario.train.moe_expert_capacity_factor == 1.25);
    h.click("train.moe_pad_expert_input_to_capacity");
    CHECK(h.app.scenario.train.moe_pad_expert_input_to_capacity);
    CHECK(h.app.estimate.ok());
    h.app.inbox.push_back({"text", "train.moe_expert_capacity_factor", "0"});
    h.frames(3);
    CHECK_FALSE(h.app.scenario.train.moe_pad_expert_input_to_capacity);
    CHECK(h.app.estimate.ok());
}

TEST_CASE("a scenario that does not fit offers single changes that fit, and Apply makes one the scenario (issue 15)") {
    Harness h(1280, 4000);
    h.frames(2);
    h.click("mode.1");  // fine-tune
    REQUIRE(h.app.scenario.mode == Mode::FineTune);
    h.app.scenario.finetune.method = FineTuneMethod::Full;  // a full fine-tune of the default 8B model
    h.app.scenario.gpu = {"24 GiB", 24.0 * kGiB};
    h.app.scenario.gpu_count = 1;
    h.app.scenario.parallel = Parallelism{};
    h.app.dirty = true;
    h.frames(3);
    REQUIRE(h.app.estimate.ok());
    REQUIRE_FALSE(h.app.estimate.fits());  // 16 B per parameter of model states
    REQUIRE(h.has("lever.qlora"));
    CHECK_FALSE(h.has("lever.recompute_full"));  // recomputation does not shrink model states
    // The exports carry the changes the page lists, with the peak each one gives.
    h.app.outbox.clear();
    h.click("export.copy.csv");
    REQUIRE_FALSE(h.app.outbox.empty());
    CHECK(h.app.outbox.back().a.find("\nlever.qlora,QLoRA,,,false,") != std::string::npos);
    h.click("lever.qlora");
    CHECK(h.app.scenario.finetune.method == FineTuneMethod::QLoRA);
    CHECK(h.app.estimate.fits());
    CHECK_FALSE(h.has("lever.qlora"));  // it fits: no levers
}

TEST_CASE("a state-space model's recurrent state is its own row, with its formula (issue 18)") {
    Harness h(1280, 4000);
    h.frames(2);
    h.app.ui.model_filter = "jamba";
    h.frames(2);
    REQUIRE(h.has("preset.jamba-1.5-mini"));
    h.click("preset.jamba-1.5-mini");
    REQUIRE(h.app.scenario.model.ssm.active());
    h.click("infer.engine");
    h.click("infer.engine.transformers");
    REQUIRE(h.app.scenario.mode == Mode::Infer);
    REQUIRE(h.app.scenario.infer.engine == Engine::Transformers);
    REQUIRE(h.app.estimate.errors.empty());
    CHECK(h.has("row.ssm_state"));
    CHECK(h.has("row.kv_cache"));  // the 4 attention layers' KV beside the 28 Mamba layers' state
    h.click("row.ssm_state");
    CHECK(h.has("math.ssm_state"));
    const std::string text = drawn_text(h);
    CHECK(text.find("Recurrent state (Mamba conv + SSM)") != std::string::npos);
    CHECK(text.find("d_state") != std::string::npos);
    CHECK(h.app.estimate.total_bytes == h.core_total());
}

TEST_CASE("an encoder-decoder's target length: a field in training and inference, for encoder-decoders only (issue 18)") {
    Harness h(1280, 4000);
    h.frames(2);
    h.click("mode.0");
    REQUIRE(h.app.scenario.mode == Mode::Train);
    CHECK_FALSE(h.has("train.target_len"));  // the default Llama: one stack, no target
    h.app.ui.model_filter = "flan-t5-small";
    h.frames(2);
    REQUIRE(h.has("preset.flan-t5-small"));
    h.click("preset.flan-t5-small");
    REQUIRE(h.app.scenario.model.seq2seq.active());
    REQUIRE(h.has("train.target_len"));
    REQUIRE(h.app.estimate.ok());
    const double decoder_as_source = h.app.estimate.total_bytes;
    h.app.inbox.push_back({"text", "train.target_len", "16"});
    h.frames(3);
    CHECK(h.app.scenario.train.target_len == 16);
    REQUIRE(h.app.estimate.ok());
    if (h.app.scenario.train.seq_len > 16) CHECK(h.app.estimate.total_bytes < decoder_as_source);  // fewer decoder tokens
    CHECK(h.app.estimate.total_bytes == h.core_total());
    // Inference: generate()'s tokens, with the engine that models encoder-decoders.
    h.click("mode.2");
    REQUIRE(h.app.scenario.mode == Mode::Infer);
    CHECK_FALSE(h.has("train.target_len"));
    REQUIRE(h.has("infer.target_len"));
    h.click("infer.engine");
    h.click("infer.engine.transformers");
    h.app.inbox.push_back({"text", "infer.target_len", "32"});
    h.frames(3);
    CHECK(h.app.scenario.infer.target_len == 32);
    REQUIRE(h.app.estimate.ok());
    CHECK(h.has("row.kv_cache.cross"));  // the source's cross-attention cache beside the decoder's own
    CHECK(h.app.estimate.total_bytes == h.core_total());
    // Back to a one-stack model: the field goes.
    h.app.ui.model_filter = "gpt2";
    h.frames(2);
    REQUIRE(h.has("preset.gpt2"));
    h.click("preset.gpt2");
    h.frames(2);
    CHECK_FALSE(h.has("infer.target_len"));
    CHECK(h.app.scenario.infer.target_len == 0);  // a one-stack model's target would be an error
    CHECK(h.app.estimate.ok());
}

TEST_CASE("the sweep chart's byte axis has gridlines at round amounts, at most five (issue 15)") {
    // 1, 2 or 5 x 10^k of the unit: an H100's 85.5 GiB axis steps by 20 GiB (4.3 steps; 10 would be 8.6),
    // an RTX 4090's 24 GiB by 5 GiB, 140 GiB by 50 GiB; in GB the same rule on GB.
    CHECK(axis_step_bytes(85.5 * kGiB, SizeUnit::GiB) == 20 * kGiB);
    CHECK(axis_step_bytes(24 * kGiB, SizeUnit::GiB) == 5 * kGiB);
    CHECK(axis_step_bytes(140 * kGiB, SizeUnit::GiB) == 50 * kGiB);
    CHECK(axis_step_bytes(0.9 * kGiB, SizeUnit::GiB) == Approx(0.2 * kGiB));
    CHECK(axis_step_bytes(80e9, SizeUnit::GB) == 20e9);
    CHECK(axis_step_bytes(0, SizeUnit::GiB) == 0);
    CHECK(axis_step_bytes(std::nan(""), SizeUnit::GiB) == 0);
}

TEST_CASE("on a laptop screen and a phone the GPU picker is in view, right after the model (issue 15)") {
    Harness h(1280, 800);
    h.frames(3);
    REQUIRE(h.has("gpu"));
    REQUIRE(h.has("section.mode"));
    const std::vector<float> gpu = h.app.ui.items.at("gpu"), mode = h.app.ui.items.at("section.mode");
    CHECK(gpu[1] + gpu[3] <= 800);  // its bottom edge inside the 800 px window
    CHECK(gpu[1] < mode[1]);        // above the mode's settings
    // The phone's Setup tab too: model, GPU, then the mode, the GPU picker in view without scrolling.
    Harness p(390, 844, true);
    p.frames(3);
    p.click("tab.1");
    REQUIRE(p.has("gpu"));
    REQUIRE(p.has("section.mode"));
    const std::vector<float> pgpu = p.app.ui.items.at("gpu");
    CHECK(pgpu[1] >= 0);
    CHECK(pgpu[1] + pgpu[3] <= 844);
    CHECK(pgpu[1] < p.app.ui.items.at("section.mode")[1]);
}

TEST_CASE("a pasted config.json's warnings are whole: wrapped inside the inputs column on a phone, not cut at its edge") {
    Harness h(390, 844, true);
    h.frames(2);
    // Three keys a llama config.json needs are missing: each is a warning naming its transformers default.
    h.app.inbox.push_back({"paste", "", R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32})"});
    h.frames(3);
    REQUIRE(h.app.ui.config_warnings.size() >= 2);
    for (size_t i = 0; i < h.app.ui.config_warnings.size(); ++i) {
        const std::string key = "model.config_warning." + std::to_string(i);
        INFO(key << ": " << h.app.ui.config_warnings[i]);
        REQUIRE(h.has(key));
        const std::vector<float>& r = h.app.ui.items.at(key);
        CHECK(r[0] + r[2] <= 390.0f);         // inside the viewport's width
        CHECK(r[3] > ImGui::GetFontSize() * 1.5f);  // more than one line: the long text wraps
    }
}

// The page's wasm holds only the default model (cmake/embed_assets.cmake KEEP_MODEL) and fetches the
// whole models.json after its first view (web/ui/app.h ModelList). Here the embedded list is cut to
// that model, as the page's is, and put back at the end.
TEST_CASE("the model list: a link naming a preset not here yet waits for it and then opens, a failed fetch is said") {
    const std::string whole(vl::assets::find("models.json"));
    nlohmann::json first = nlohmann::json::parse(whole);
    auto& list = first["models"];
    for (size_t i = list.size(); i-- > 0;)
        if (list[i]["id"] != "llama-3.1-8b") list.erase(i);
    REQUIRE(list.size() == 1);
    Scenario s = default_scenario();
    REQUIRE(find_model("qwen2.5-7b"));
    s.model = find_model("qwen2.5-7b")->spec;
    const std::string link = encode_share_link(s);
    REQUIRE(replace_model_presets(first.dump()).empty());
    // The page as it starts on a link: the model list asked for, not here yet.
    const auto start_on = [](Harness& page, const std::string& fragment) {
        page.app.ui.model_list = ModelList::Wanted;
        page.app.ui.env.hash = "#" + fragment;
        page.frames(2);
    };

    Harness h;
    start_on(h, link);
    REQUIRE(h.app.ui.waiting_input);
    CHECK(h.app.ui.waiting_input->kind == "hash");
    CHECK(h.app.ui.notice.empty());  // not "unknown preset id": it may be in the list on its way
    CHECK(h.has("models.waiting"));
    CHECK(h.has("models.loading"));
    CHECK(h.app.ui.shown_fragment == link);  // the address bar keeps the link
    CHECK(h.app.scenario.model.name == "Llama-3.1-8B");
    model_list_arrived(h.app, whole);
    h.frames(2);
    CHECK(h.app.ui.model_list == ModelList::Whole);
    CHECK_FALSE(h.app.ui.waiting_input);
    CHECK(h.app.ui.notice.empty());
    CHECK(h.app.ui.preset_id == "qwen2.5-7b");
    CHECK(scenario_to_json(h.app.scenario) == scenario_to_json(s));
    CHECK_FALSE(h.has("models.waiting"));
    CHECK_FALSE(h.has("models.loading"));

    // A damaged link (its envelope: the checksum) cannot be mended by the list: said at once.
    std::string bad = link;
    bad[bad.size() / 2] = bad[bad.size() / 2] == 'A' ? 'B' : 'A';
    REQUIRE(replace_model_presets(first.dump()).empty());
    Harness damaged;
    start_on(damaged, bad);
    CHECK_FALSE(damaged.app.ui.waiting_input);
    CHECK(damaged.app.ui.notice.find("link") != std::string::npos);

    Harness failed;
    start_on(failed, link);
    model_list_failed(failed.app, "vramlens.models.json: HTTP 404");
    failed.frames(2);
    CHECK(failed.app.ui.model_list == ModelList::Failed);
    CHECK_FALSE(failed.app.ui.waiting_input);
    CHECK(failed.app.ui.notice.find("unknown preset id \"qwen2.5-7b\"") != std::string::npos);
    CHECK(failed.has("models.retry"));
    CHECK(scenario_to_json(failed.app.scenario) == scenario_to_json(default_scenario()));

    REQUIRE(replace_model_presets(whole).empty());
}

TEST_CASE("a Mamba model's fine-tune offers its mixer's LoRA targets, a Llama's its attention and MLP ones") {
    Harness h;
    h.frames(2);
    h.click("mode.1");  // Fine-tune: LoRA on PEFT's llama default q_proj, v_proj
    CHECK(h.has("finetune.lora_targets.k_proj"));
    CHECK_FALSE(h.has("finetune.lora_targets.in_proj"));
    REQUIRE(find_model("mamba-2.8b"));
    h.app.scenario.model = find_model("mamba-2.8b")->spec;
    h.app.dirty = true;
    h.frames(2);
    // q_proj and v_proj name no layer of a Mamba model: still shown (set), with the error at the field
    CHECK(h.has("finetune.lora_targets.in_proj"));
    CHECK(h.has("finetune.lora_targets.dt_proj"));
    CHECK(h.has("finetune.lora_targets.q_proj"));
    CHECK_FALSE(h.has("finetune.lora_targets.k_proj"));
    REQUIRE_FALSE(h.app.estimate.ok());
    h.click("finetune.lora_targets.in_proj");
    h.click("finetune.lora_targets.q_proj");
    h.click("finetune.lora_targets.v_proj");
    CHECK(h.app.scenario.finetune.lora_targets == kLoraInProj);
    CHECK(h.app.estimate.ok());
    CHECK_FALSE(h.has("finetune.lora_targets.q_proj"));  // unset and absent: no longer offered
}

TEST_CASE("a Mamba model's training offers train.ssm_kernels as the CLI does, a Llama's does not") {
    Harness h(1280, 4000);
    h.frames(2);
    h.click("mode.0");  // Train
    CHECK_FALSE(h.has("train.ssm_kernels"));
    REQUIRE(find_model("mamba-2.8b"));
    h.app.scenario.model = find_model("mamba-2.8b")->spec;
    h.app.dirty = true;
    h.frames(2);
    REQUIRE(h.has("train.ssm_kernels"));
    REQUIRE(h.app.scenario.train.ssm_kernels == SsmKernels::Torch);  // the default: transformers without mamba-ssm
    h.click("train.ssm_kernels");
    h.click("train.ssm_kernels.fused");
    CHECK(h.app.scenario.train.ssm_kernels == SsmKernels::Fused);
    CHECK(h.app.estimate.total_bytes == h.core_total());
}
