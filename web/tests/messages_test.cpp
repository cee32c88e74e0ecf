// The core's messages on the 中文 page (web/ui/messages.h, web/ui/zh_messages.txt): the catalogue
// translates every message the core produces over the model presets in every mode, the framework
// profiles, the random scenarios of the property tests, the tests' config.json files as imported and
// the validators' error cases (each number field of a scenario set to values the rules refuse) and the
// config box's answers to malformed JSON. A message the core gains without a
// translation fails "every message of the core has a Chinese translation" with the message itself.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "export.h"
#include "framework_profiles.h"
#include "json_input.h"
#include "model/hf_config.h"
#include "model/gguf.h"
#include "model/safetensors.h"
#include "model/hub_reference.h"
#include "planner/compare.h"
#include "planner/local.h"
#include "model/presets.h"
#include "random_scenarios.h"
#include "scenario_json.h"
#include "checkpoint_files.h"
#include "ui/app.h"
#include "ui/hub.h"
#include "ui/run_local.h"
#include "ui/messages.h"

namespace {

using namespace vl;
using vl::ui::MessageCatalogue;

std::string catalogue_text() {
    std::ifstream f(VRAMLENS_SOURCE_DIR "/web/ui/zh_messages.txt", std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

bool has_cjk(const std::string& s) {
    for (size_t i = 0; i + 2 < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0xE3 && c <= 0xE9) return true;  // U+3000..U+9FFF: CJK punctuation and ideographs
    }
    return false;
}

// Each component id the estimates had, with one of them (its English label).
std::map<std::string, Component> g_components;
// Each source line the components had (the show-the-math row's "Source").
std::set<std::string> g_sources;

// What the page shows of one scenario's estimate (results.cpp, app.cpp results_text_json).
void collect(const Scenario& s, std::set<std::string>& out) {
    const Estimate e = estimate(s, Detail::NumbersOnly);
    for (const Component& c : e.components) {
        g_components.emplace(c.id, c);
        g_sources.insert(c.source);
    }
    if (*e.shown_reserve.id != '\0') {  // the CLI's and exports' derivation of what nvidia-smi shows
        g_components.emplace(e.shown_reserve.id, e.shown_reserve);
        g_sources.insert(e.shown_reserve.source);
    }
    for (const FieldError& err : e.errors) out.insert(err.message);
    for (const std::string& w : e.warnings) out.insert(w);
    for (const std::string& n : {kv_capacity_text(s, e, SizeUnit::GiB), profile_text(s), mechanisms_text(e, SizeUnit::GiB), shown_reserve_text(e, SizeUnit::GiB)})
        if (!n.empty()) out.insert(n);
}

// Every number in a scenario's JSON set to values its rules refuse, one at a time (the validators' error cases):
// the numbers of `local` (Run locally's, then collected by collect_plan) or every other one (collected by collect).
using Collector = void (*)(const Scenario&, std::set<std::string>&);
void collect_refused(const Scenario& base, std::set<std::string>& out, bool local = false, Collector collect_valid = collect) {
    const nlohmann::json j = nlohmann::json::parse(scenario_to_json(base));
    const nlohmann::json flat = j.flatten();
    for (const auto& [path, v] : flat.items()) {
        if (!v.is_number() || (path.rfind("/local", 0) == 0) != local) continue;
        std::string dotted = path.substr(1);
        for (char& c : dotted)
            if (c == '/') c = '.';
        for (const char* bad : {"0", "-1", "3", "0.5", "1e15"}) {
            Scenario s = base;
            const std::vector<FieldError> errs = set_scenario_field(s, dotted, bad);
            for (const FieldError& err : errs) out.insert(err.message);
            if (errs.empty()) collect_valid(s, out);
        }
    }
}

std::set<std::string> core_messages() {
    std::set<std::string> out;
    Scenario base = ui::default_scenario();
    // Every model preset in every mode and engine, and every framework profile of the mode.
    for (const ModelPreset& p : model_presets()) {
        Scenario s = base;
        s.model = p.spec;
        for (Mode m : {Mode::Train, Mode::FineTune, Mode::Infer}) {
            s.mode = m;
            for (FineTuneMethod f : {FineTuneMethod::LoRA, FineTuneMethod::QLoRA}) {
                s.finetune.method = f;
                for (Engine en : {Engine::Transformers, Engine::VLLM, Engine::LlamaCpp}) {
                    s.infer.engine = en;
                    collect(s, out);
                }
            }
        }
    }
    for (const FrameworkProfile& p : framework_profiles())
        for (Mode m : {Mode::Train, Mode::FineTune, Mode::Infer}) {
            Scenario s = base;
            s.mode = m;
            if (apply_profile(s, p.id).empty()) collect(s, out);
        }
    // vLLM's budget rule of each release (core/inference/vllm_budget.h), and releases it refuses.
    for (const char* v : {"0.6.4", "0.7.3", "0.11", "0.21", "latest", "0.2.4"}) {
        Scenario s = base;
        s.mode = Mode::Infer;
        s.infer.engine = Engine::VLLM;
        s.infer.vllm_version = v;
        collect(s, out);
    }
    // transformers' decode whose cached allocator blocks fill the GPU (the headroom warning): Llama-3.1-8B, a 128K context.
    {
        Scenario s = base;
        s.mode = Mode::Infer;
        s.infer.engine = Engine::Transformers;
        s.infer.batch = 1;
        s.infer.prompt = 4096;
        s.infer.context = 131072;
        collect(s, out);
    }
    // The property tests' random scenarios, valid or not.
    test::Rng r(15);
    for (int i = 0; i < 3000; ++i) collect(test::random_scenario(r), out);
    // The config.json files of the tests, imported as the config box does (its warnings are shown there).
    for (const auto& f : std::filesystem::directory_iterator(VRAMLENS_TEST_DATA "/configs")) {
        if (f.path().extension() != ".json") continue;
        std::ifstream in(f.path(), std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        const Result<ModelSpec> r = import_hf_config(text.str());
        for (const FieldError& err : r.errors) out.insert(err.message);
        for (const std::string& w : r.warnings) out.insert(w);
    }
    // The encoder-decoders among them (t5, bart) estimated in every mode, generate() with transformers (their only engine).
    for (const char* name : {"t5-small.json", "bart-large.json"}) {
        std::ifstream in(std::string(VRAMLENS_TEST_DATA "/configs/") + name, std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        const Result<ModelSpec> r = import_hf_config(text.str());
        if (!r.ok()) continue;
        Scenario s = base;
        s.model = *r.value;
        s.infer.engine = Engine::Transformers;
        s.train.seq_len = s.infer.context = 512;
        s.train.target_len = s.infer.target_len = 64;
        for (Mode m : {Mode::Train, Mode::FineTune, Mode::Infer}) {
            s.mode = m;
            collect(s, out);
        }
    }
    // The config box's answers to malformed JSON (core/json_input.cpp): one text for each syntax problem it
    // names, and the size, depth, duplicate-key and NUL checks.
    const std::string deep = std::string(40, '[') + std::string(40, ']');
    for (const std::string& bad :
         {std::string(""), std::string("{\"a\": [1, 2"), std::string("{\"a\": 1}}"), std::string("{\"a\": True}"),
          std::string("{\"a\": NaN}"), std::string("{\"a\": 1 /* x */}"), std::string("{\"a\": \"x\ny\"}"),
          std::string(R"({"path": "C:\models"})"), std::string("{\"a\": 1e400}"), std::string("{\"a\": 1.}"),
          std::string("{\n  \"a\": 1,\n}"), std::string("[1, 2,]"), std::string("{'a': 1}"), std::string("{a: 1}"),
          std::string("{\"a\" 1}"), std::string("{\"a\": : 1}"), std::string("{\"a\": [1, 2}"), std::string("{\"a\": 1]"),
          std::string("{\"a\": 1\n \"b\": 2}"), std::string("[1 2]"), std::string("{\"a\": yes}"), std::string("{\"a\": @}"),
          std::string("{\"a\": 1, \"a\": 2}"), std::string(R"({"name": "a\u0000b"})"), std::string(R"({"n\u0000": 1})"), deep,
          std::string(kMaxJsonInputBytes + 1, ' ')}) {
        std::vector<FieldError> errs;
        parse_json_input(bad, "config", errs);
        for (const FieldError& err : errs) out.insert(err.message);
    }
    // The validators' error cases, from the default scenario in each mode.
    for (Mode m : {Mode::Train, Mode::FineTune, Mode::Infer}) {
        Scenario s = base;
        s.mode = m;
        collect_refused(s, out);
    }
    return out;
}

// What the Run locally page shows of one plan (web/ui/run_local*.cpp): its errors, verdict line, advice, device
// rows' layers, speed, the launch lines' titles and notes.
void collect_plan(const Scenario& s, std::set<std::string>& out) {
    const LocalPlan p = plan_local(s);
    for (const FieldError& e : p.errors) out.insert(e.message);
    for (const std::string& n : p.notes) out.insert(n);
    if (!p.ok()) return;
    out.insert(p.summary);
    if (!p.advice.empty()) out.insert(p.advice);
    if (!p.speed.empty()) out.insert(p.speed);
    for (const LocalDevice& d : p.devices) out.insert(d.layers);
    if (!p.serving) out.insert(p.plan.cpu.name);  // the host row (the GPUs' rows are named by their presets); the launch
                                                  // lines' titles are the commands' names
}

// The machines a plan is tried on: the default PC, one small GPU (plans that do not fit, with advice), two GPUs
// (a split), RAM only, a Mac.
std::vector<LocalOptions> local_machines(const LocalOptions& base) {
    std::vector<LocalOptions> m(5, base);
    m[1].gpus = {"rtx-3060-12gb"};
    m[1].ram_bytes = 17179869184.0;
    m[2].gpus = {"rtx-4090", "rtx-3090"};
    m[3].gpus.clear();
    m[4].gpus.clear();
    m[4].apple_chip = apple_chips().front().id;
    return m;
}

// What the safetensors, index and GGUF readers say of damaged files (the Hub import and the projector picker show
// it): one input per fault of tests/checkpoint_import_test.cpp's malformed-header cases.
void collect_damaged_files(std::set<std::string>& out) {
    auto said = [&](const auto& r) {
        for (const FieldError& e : r.errors) out.insert(e.message);
        for (const std::string& w : r.warnings) out.insert(w);
    };
    auto tensor = [](const std::string& t) { return "{\"t\": " + t + "}"; };
    const std::string ok = R"({"a": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]}})";
    for (const auto& [header, data] : std::vector<std::pair<std::string, uint64_t>>{
             {"[1, 2]", 0}, {tensor(R"({"dtype": "Q4", "shape": [2], "data_offsets": [0, 1]})"), 1},
             {tensor(R"({"dtype": 5, "shape": [2], "data_offsets": [0, 1]})"), 1},
             {tensor(R"({"dtype": "F16", "shape": [4294967296, 4294967296, 16], "data_offsets": [0, 2]})"), 2},
             {tensor(R"({"dtype": "F16", "shape": [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], "data_offsets": [0, 2]})"), 2},
             {tensor(R"({"dtype": "F16", "shape": 5, "data_offsets": [0, 2]})"), 2},
             {tensor(R"({"dtype": "F16", "shape": [2, -1], "data_offsets": [0, 2]})"), 2},
             {tensor(R"({"dtype": "BF16", "shape": [8, 8], "data_offsets": [0, 100]})"), 100},
             {tensor(R"({"dtype": "BF16", "shape": [8, 8], "data_offsets": [128, 0]})"), 128},
             {tensor(R"({"dtype": "F4", "shape": [3], "data_offsets": [0, 1]})"), 1}, {R"({"": 5})", 0},
             {tensor(R"({"shape": [8], "data_offsets": [0, 16]})"), 16},
             {R"({"a": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]}, "b": {"dtype": "U8", "shape": [4], "data_offsets": [2, 6]}})", 6},
             {R"({"__metadata__": 5, "a": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]}})", 4},
             {R"({"__metadata__": {"k": 5}, "a": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]}})", 4}})
        said(read_safetensors_header(test::safetensors_file(header, data), std::nullopt));
    const std::string good = test::safetensors_file(ok, 4);
    said(read_safetensors_header("abc", std::nullopt));
    said(read_safetensors_header(std::string(8, '\xff'), 1000));
    said(read_safetensors_header(std::string(8, '\xff'), std::nullopt));
    said(read_safetensors_header(std::string("\x01\0\0\0\0\0\0\0{", 9), std::nullopt));
    said(read_safetensors_header(good.substr(0, 20), std::nullopt));
    said(read_safetensors_header(good, good.size() - 1));
    said(read_safetensors_header(good, good.size() + 10));
    for (const char* index : {R"({"weight_map": {"a": "../../etc/passwd"}})", R"({"weight_map": {}})", R"({"weight_map": {"a": 5}})",
                              R"({"metadata": {"total_size": -5}, "weight_map": {"a": "x"}})", R"({"metadata": 5, "weight_map": {"a": "x"}})",
                              R"({"metadata": {}})", "[1]"})
        said(read_safetensors_index(index));
    // GGUF: the magic, the version, a header cut short, huge counts and lengths, bad tensors and metadata.
    const std::string gguf = test::two_block_gguf().file();
    std::string v = gguf;
    said(read_gguf_header("GGML" + gguf.substr(4), std::nullopt));
    for (char version : {'\x01', '\x04'}) {
        v[4] = version;
        said(read_gguf_header(v, std::nullopt));
    }
    said(read_gguf_header(gguf.substr(0, 100), std::nullopt));
    said(read_gguf_header(gguf.substr(0, 100), 100));
    said(read_gguf_header(gguf, gguf.size() - 1));
    {
        std::string f = "GGUF";
        test::put_le(f, 3, 4);
        test::put_le(f, 0, 8);
        test::put_le(f, uint64_t{1} << 62, 8);
        f += std::string(64, '\0');
        said(read_gguf_header(f, f.size()));
        test::GgufWriter w;
        w.string("general.architecture", "llama");
        std::string g = w.header();
        g[24] = '\xff';
        g[31] = '\x7f';
        said(read_gguf_header(g, std::nullopt));
    }
    auto with_tensor = [](const std::vector<uint64_t>& dims, uint32_t type, const std::string& name = "t") {
        test::GgufWriter w;
        w.tensor(name, dims, type, 0);
        return w.header();
    };
    for (const std::string& h : {with_tensor({32}, 4), with_tensor({100, 2}, 12), with_tensor({1, 1, 1, 1, 1}, 0),
                                 with_tensor({uint64_t{1} << 32, uint64_t{1} << 32}, 0), with_tensor({32}, 0, std::string(64, 'n'))})
        said(read_gguf_header(h, std::nullopt));
    test::GgufWriter twice, offset, align, dup, arr, type;
    twice.tensor("a", {8}, 0, 32);
    twice.tensor("a", {8}, 0, 32);
    offset.tensor("a", {8}, 0, 32);
    offset.data_bytes = 64;
    offset.tensor("b", {8}, 0, 32);
    align.u32("general.alignment", 48);
    dup.u32("x", 1);
    dup.u32("x", 2);
    arr.key("arr", 9);
    test::put_le(arr.kv, 9, 4);
    test::put_le(arr.kv, 1, 8);
    type.key("k", 13);
    for (const test::GgufWriter* w : {&twice, &offset, &align, &dup, &arr, &type}) said(read_gguf_header(w->header(), std::nullopt));
}

// Every message the Run locally mode (plans over the presets, engines and machines, with the advanced placement's
// options and each number of local refused), the ranking, the compare grid and the Hub import can show.
std::set<std::string> local_and_hub_messages() {
    std::set<std::string> out;
    Scenario base = ui::default_scenario();
    base.mode = Mode::Local;
    for (const ModelPreset& p : model_presets())
        for (const LocalOptions& machine : local_machines(base.local))
            for (LocalEngine en : {LocalEngine::LlamaCpp, LocalEngine::Ollama, LocalEngine::VLLM, LocalEngine::SGLang}) {
                Scenario s = base;
                s.model = p.spec;
                s.local = machine;
                s.local.engine = en;
                if (is_serving(en)) s.local.weights = WeightFormat::BF16;
                collect_plan(s, out);
            }
    // The advanced placement's options, one at a time.
    std::vector<Scenario> options(12, base);
    options[0].local.ngl = 5;
    options[1].local.context = 1 << 20;
    options[2].local.split_mode = SplitMode::Row;
    options[2].local.gpus = {"rtx-4090", "rtx-3090"};
    options[3].local.kv_offload = false;
    options[4].local.mmproj_bytes = 600e6;
    options[5].local.draft.model = "qwen2.5-0.5b";
    options[6].local.tensor_split = {3, 1};
    options[6].local.gpus = {"rtx-4090", "rtx-3090"};
    options[7].local.flash_attention = true;
    options[7].local.kv = KvDtype::INT8;
    options[8].local.split_mode = SplitMode::None;
    options[9].local.engine = LocalEngine::Ollama;
    options[9].local.kv = KvDtype::BF16;
    options[10].local.engine = LocalEngine::Ollama;
    options[10].local.draft.model = "qwen2.5-0.5b";
    options[11].local.mmproj_bytes = 600e6;
    options[11].local.mmproj_encoder = vision_encoder_from_gguf(*read_gguf_header(test::qwen_projector_gguf().file(), std::nullopt)).encoder;
    for (Scenario& s : options) collect_plan(s, out);
    Scenario moe = base;
    for (const ModelPreset& p : model_presets())
        if (p.spec.moe.num_experts > 0) {
            moe.model = p.spec;
            break;
        }
    moe.local.n_cpu_moe = 4;
    collect_plan(moe, out);
    // Each number of local set to values the rules refuse.
    collect_refused(base, out, true, collect_plan);
    // The ranking and the compare grid.
    for (const LocalOptions& machine : {base.local, local_machines(base.local)[1]}) {
        Scenario s = base;
        s.local = machine;
        const Ranking r = rank_local(s);
        if (!r.ok()) out.insert(r.error);
        for (const RankRow& row : r.rows) out.insert(rank_row_text(row));
        s.local.compare.models = {"current", "no-such-model"};
        out.insert(compare_local(s).error);
        s.local.compare.models = {"current"};
        s.local.compare.weights = {WeightFormat::GGUF_Q4_K_M, WeightFormat::GGUF_Q8_0};
        s.local.compare.machines = {LocalMachine{{"rtx-4090"}, 68719476736.0, ""}, LocalMachine{{"rtx-3060-12gb"}, 17179869184.0, ""},
                                    LocalMachine{{}, 68719476736.0, apple_chips().front().id}};
        const CompareGrid g = compare_local(s);
        if (!g.ok()) out.insert(g.error);
        for (const std::string& n : g.machine_names) out.insert(n);
        for (const CompareCell& c : g.cells) out.insert(compare_cell_text(c));
    }
    Scenario serving = base;
    serving.local.engine = LocalEngine::VLLM;
    out.insert(rank_local(serving).error);
    // The Hub import: what people mistype, and each answer of the Hub.
    for (const char* bad : {"", "llama-3.1-8b", "a/b/c", "org/na me", "org/-name", "org/na--me", "org/name@", "org/name@a..b",
                            "https://example.com/org/name", "https://huggingface.co/datasets/org/name", "https://huggingface.co/spaces/org/name",
                            "https://huggingface.co/org/name/commits/main", "https://huggingface.co/org/name/resolve/main",
                            "https://huggingface.co/org/name/resolve/main/../x", "https://huggingface.co/org/name/tree/%zz"})
        for (const FieldError& e : parse_hub_reference(bad).errors) out.insert(e.message);
    for (const auto& [status, code] : std::vector<std::pair<int, const char*>>{{0, ""}, {401, "GatedRepo"}, {404, "RevisionNotFound"}, {404, "EntryNotFound"},
                                                                             {401, ""}, {404, "RepoNotFound"}, {403, ""}, {429, ""}, {503, ""}, {418, ""}})
        for (const char* file : {"", "config.json"}) out.insert(hub_error_message(status, code, status == 429 ? "7" : "", "org/name", file, status == 0 ? "Failed to fetch" : ""));
    out.insert(hub_error_message(429, "", "", "org/name", "", ""));
    out.insert(std::string(hub_offline_alternative()));
    // The page's side of the Hub import (web/ui/hub.cpp) and of the projector picker (run_local.cpp): what each
    // answer leaves in the notices, facts and warnings.
    ui::AppState app = ui::make_app_state();
    auto notices = [&] {
        for (const ui::Notice* n : {&app.ui.hub_message, &app.ui.mmproj_message})
            for (const ui::Notice::Part& p : n->parts) out.insert(p.message.message);
        for (const std::string& f : app.ui.hub_facts) out.insert(f);
        for (const FieldError& w : app.ui.hub_warnings) out.insert(w.message);
    };
    const std::string config = R"({"model_type": "llama", "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
        "num_key_value_heads": 2, "intermediate_size": 16, "vocab_size": 32, "max_position_embeddings": 128)";
    const std::string header = R"({"model.layers.0.mlp.down_proj.qweight": {"dtype": "I32", "shape": [64, 16], "data_offsets": [0, 4096]},
        "model.embed_tokens.weight": {"dtype": "F16", "shape": [32, 8], "data_offsets": [4096, 4608]}})";
    const std::string file = test::safetensors_file(header, 4608);
    const nlohmann::json awq = {{"repo", "org/awq"}, {"revision", "x"},
                                {"config", config + R"(, "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 64}})"},
                                {"shards", {{{"name", "model.safetensors"}, {"size", file.size() + 10}}}}};
    const nlohmann::json lora = {{"repo", "org/lora"}, {"revision", "x"}, {"config", config + "}"},
                                 {"adapter", R"({"peft_type": "LORA", "base_model_name_or_path": "org/base", "r": 8, "target_modules": ["q_proj"]})"}};
    const std::string gguf = test::two_block_gguf().file();
    app.ui.hub_ref = "org/name";
    ui::request_hub_import(app);
    notices();
    for (const std::string& payload :
         {std::string("[1]"), std::string("{"), std::string(R"({"repo": "a/b", "config": 5})"), std::string(R"({"repo": "a/b", "shards": [5]})"),
          std::string(R"({"repo": "a/b", "shards": [{"name": "m.safetensors", "size": 10}]})"), std::string(R"({"repo": "a/b"})"),
          std::string(R"({"repo": "a/b", "config": "{\"model_type\": \"llama\", \"hidden_size\": -8}"})"),
          std::string(R"({"repo": "a/b", "adapter": "{\"peft_type\": \"LORA\", \"r\": 8}"})"), awq.dump(), lora.dump(),
          nlohmann::json({{"repo", "org/gguf"}, {"revision", "x"}, {"gguf", {{"name", "m.gguf"}, {"size", gguf.size()}}}}).dump()}) {
        ui::hub_import_done(app, payload, {{"model.safetensors", file.substr(0, 8 + header.size())}, {"m.gguf", gguf}});
        notices();
    }
    ui::import_mmproj(app, "notes.txt", "not a gguf", 0);
    notices();
    const std::string projector = test::qwen_projector_gguf().file();
    ui::import_mmproj(app, "mmproj.gguf", projector, static_cast<double>(projector.size()));
    notices();
    out.insert("could not read the file (NotFoundError); the projector is unchanged");  // app.cpp's "mmproj_error" event
    collect_damaged_files(out);
    out.erase(std::string());
    return out;
}

}  // namespace

TEST_CASE("the message catalogue reads whole, and a match takes the variable parts into the Chinese") {
    const MessageCatalogue c = ui::parse_message_catalogue(catalogue_text());
    CHECK(c.problems.empty());
    for (const std::string& p : c.problems) UNSCOPED_INFO(p);
    CHECK(c.entries.size() > 50);

    // Hand-written entries: the parts go in by order ({}) or by place ({2}); the longest English wins.
    const MessageCatalogue t = ui::parse_message_catalogue(
        "# test\n"
        "must be at least {}; got {}\n必须至少为 {}；现为 {}\n\n"
        "{} of {} tokens\n{2} 个 token 中的 {1}\n"
        "must be at least 1; got {}\n必须至少为 1；现为 {}（至少要有一个）\n"
        "= model states\n模型状态\n"
        "By mechanism at the peak: {}\n峰值按机制：{}\n");
    CHECK(t.problems.empty());
    CHECK(ui::translate_message(t, "must be at least 8; got 0") == "必须至少为 8；现为 0");
    CHECK(ui::translate_message(t, "must be at least 1; got -3") == "必须至少为 1；现为 -3（至少要有一个）");
    CHECK(ui::translate_message(t, "12 of 4,096 tokens") == "4,096 个 token 中的 12");
    CHECK(ui::translate_message(t, "By mechanism at the peak: model states 12 GiB") == "峰值按机制：模型状态 12 GiB");
    CHECK_FALSE(ui::translate_message(t, "must be at least 8"));
    // Clauses joined by "; " that no entry matches whole: each clause, joined by the Chinese semicolon.
    CHECK(ui::translate_message(t, "12 of 4,096 tokens; must be at least 2; got 1") == "4,096 个 token 中的 12；必须至少为 2；现为 1");
    CHECK(ui::translate_message(t, "12 of 4,096 tokens; 3 of 8 tokens") == "4,096 个 token 中的 12；8 个 token 中的 3");
    CHECK_FALSE(ui::translate_message(t, "12 of 4,096 tokens; no such clause"));
    CHECK(ui::shown_message(t, false, "must be at least 8; got 0") == "must be at least 8; got 0");
    CHECK(ui::shown_message(t, true, "no such message") == "no such message");

    // The UI's own strings by index ("$<index>", appended by cmake/zh_ui_strings.py): tr() takes them.
    const MessageCatalogue ui_part = ui::parse_message_catalogue("$2\n设置（目录）\n");
    REQUIRE(ui_part.ui_strings.size() == 3);
    ui::set_zh_strings(ui_part.ui_strings);
    CHECK(std::string(ui::tr(ui::Lang::Zh, static_cast<ui::S>(2))) == "设置（目录）");
    CHECK(std::string(ui::tr(ui::Lang::En, static_cast<ui::S>(2))) == "Setup");
    ui::set_zh_strings({});
    CHECK(std::string(ui::tr(ui::Lang::Zh, static_cast<ui::S>(2))) == "设置");  // native builds keep the table's column

    const MessageCatalogue bad = ui::parse_message_catalogue("English only\n\n{}\n只有部分\nx {}\n{} {}\n");
    CHECK(bad.problems.size() == 3);
}

// The messages the catalogue does not turn into Chinese, each printed on a line of its own (Catch wraps its own).
static size_t untranslated(const std::set<std::string>& messages) {
    const MessageCatalogue c = ui::parse_message_catalogue(catalogue_text());
    size_t missing = 0;
    for (const std::string& m : messages) {
        const std::optional<std::string> zh = ui::translate_message(c, m);
        if (zh && has_cjk(*zh)) continue;
        ++missing;
        std::cout << "no Chinese for: " << m << "\n";
    }
    return missing;
}

TEST_CASE("every message of the core has a Chinese translation") {
    const std::set<std::string> messages = core_messages();
    CHECK(messages.size() > 100);
    CHECK(untranslated(messages) == 0);
}

TEST_CASE("every message of Run locally (plan and ranking and compare grid) and of the Hub import has a Chinese translation") {
    const std::set<std::string> messages = local_and_hub_messages();
    CHECK(messages.size() > 100);
    CHECK(untranslated(messages) == 0);
}

TEST_CASE("on the 中文 page Run locally's plan and the Hub import's answers are in Chinese, and back in English when switched") {
    ui::AppState app = ui::make_app_state();
    app.scenario.mode = Mode::Local;  // Llama-3.1-8B at Q4_K_M on one RTX 4090 (24 GB), -c 4096: every layer fits
    app.dirty = true;
    ui::refresh(app);
    REQUIRE(app.local.ok());
    app.ui.lang = ui::Lang::Zh;
    app.ui.zh_messages = ui::parse_message_catalogue(catalogue_text());
    nlohmann::json j = ui::local_results_text(app);
    // 32 repeating layers and the output layer: -ngl 33 of 33; the GPU holds layers 0-31 and the output, the CPU none.
    CHECK_THAT(j["verdict"].get<std::string>(), Catch::EndsWith("-ngl 33 / 33（32 层 + 输出层）"));
    REQUIRE(j["rows"].size() == 2);
    CHECK(j["rows"][0][1] == "第 0-31 层 + 输出层");
    CHECK(j["rows"][1][0] == "CPU（系统内存）");
    CHECK(j["rows"][1][1] == "无层");
    CHECK_THAT(j["notes"][1].get<std::string>(), Catch::Contains("解码约 "));

    app.ui.hub_ref = "org/missing";
    ui::hub_import_failed(app, 404, "RepoNotFound", "", "", "");  // the Hub's answer for a repo id that does not exist
    const std::string zh = ui::say(app, app.ui.hub_message);
    CHECK_THAT(zh, Catch::StartsWith("Hub 上没有找到 org/missing（或所给令牌无权访问）：请检查仓库 id。不联网时："));
    CHECK_THAT(zh, Catch::EndsWith("或运行 `vramlens import <本地文件夹>`。"));
    app.ui.lang = ui::Lang::En;  // the notice is kept in English: switching back shows it whole
    CHECK(ui::say(app, app.ui.hub_message) == ui::notice_english(app.ui.hub_message));
    CHECK_THAT(ui::say(app, app.ui.hub_message), Catch::EndsWith("or run `vramlens import <local folder>`."));
}

TEST_CASE("on the 中文 page the core's errors and notes are in Chinese, fields and numbers kept") {
    ui::AppState app = ui::make_app_state();
    app.scenario.parallel.tp = 3;  // Llama-3.1-8B: 32 heads
    app.scenario.gpu_count = 3;
    app.dirty = true;
    ui::refresh(app);
    REQUIRE_FALSE(app.estimate.ok());
    const std::string english = "parallel.tp: must divide num_attention_heads (32); got 3 (q_proj, o_proj split along it)";
    auto errors = [&] { return nlohmann::json::parse(ui::results_text_json(app))["errors"]; };
    CHECK(errors().front() == english);

    app.ui.lang = ui::Lang::Zh;  // before the catalogue arrives: the core's English
    CHECK(errors().front() == english);
    app.ui.zh_messages = ui::parse_message_catalogue(catalogue_text());
    CHECK(errors().front() == "parallel.tp: 必须整除 num_attention_heads（32）；现为 3（q_proj, o_proj 沿它切分）");
    CHECK(ui::say(app, app.estimate.errors.front()) == errors().front());

    // A valid scenario's notes: the peak by mechanism in Chinese, its mechanism names too.
    app.scenario.parallel.tp = 1;
    app.scenario.gpu_count = 1;
    app.dirty = true;
    ui::refresh(app);
    REQUIRE(app.estimate.ok());
    const nlohmann::json notes = nlohmann::json::parse(ui::results_text_json(app))["notes"];
    REQUIRE_FALSE(notes.empty());
    const std::string first = notes.front();
    CHECK(first.rfind("峰值时按机制：", 0) == 0);
    CHECK(first.find("CUDA 上下文") != std::string::npos);
    CHECK(first.find("CUDA context") == std::string::npos);
    // The components by id: the default (inference) scenario's KV cache row.
    const nlohmann::json rows = nlohmann::json::parse(ui::results_text_json(app))["rows"];
    bool kv_row = false;
    for (const auto& row : rows) kv_row = kv_row || row[0] == "KV 缓存";
    INFO(rows.dump());
    CHECK(kv_row);
}

TEST_CASE("the results mirror's notes have the peak by mechanism and the profile line as the CLI prints them") {
    ui::AppState app = ui::make_app_state();
    app.scenario.mode = Mode::Train;
    const FrameworkProfile* profile = nullptr;
    for (const FrameworkProfile& p : framework_profiles())
        if (p.modes & mode_bit(Mode::Train)) {
            profile = &p;
            break;
        }
    REQUIRE(profile != nullptr);
    REQUIRE(apply_profile(app.scenario, profile->id).empty());
    app.dirty = true;
    ui::refresh(app);
    REQUIRE(app.estimate.ok());
    const nlohmann::json notes = nlohmann::json::parse(ui::results_text_json(app))["notes"];
    // The CLI's table (core/export.cpp): its lines for the peak by mechanism and the profile.
    const std::string table = export_estimate(app.scenario, app.estimate, ExportFormat::Table);
    std::vector<std::string> cli;
    std::istringstream lines(table);
    for (std::string l; std::getline(lines, l);)
        if (l.rfind("By mechanism at the peak: ", 0) == 0 || l.rfind("profile: ", 0) == 0) cli.push_back(l);
    REQUIRE(cli.size() == 2);
    REQUIRE(notes.size() >= 2);
    CHECK(notes[0] == cli[0]);
    CHECK(notes[1] == cli[1]);
    CHECK(cli[1].find(profile->label) != std::string::npos);
}

TEST_CASE("every component of the core has a Chinese label") {
    if (g_components.empty()) core_messages();
    const MessageCatalogue cat = ui::parse_message_catalogue(catalogue_text());
    CHECK(g_components.size() > 40);
    size_t missing = 0;
    for (const auto& [id, c] : g_components) {
        if (ui::component_label_zh(cat, id)) continue;
        ++missing;
        std::cout << "no Chinese label for component: " << id << " (" << c.label << ")\n";
    }
    CHECK(missing == 0);
    // The ones the issue named.
    for (const char* id : {"act.prefill_inputs", "logits.fp32", "cuda_context"}) {
        INFO(id);
        REQUIRE(g_components.count(id) == 1);
        CHECK(ui::component_label_zh(cat, id) != nullptr);
    }
}

TEST_CASE("every component's source line has a Chinese translation, its citation keys kept") {
    if (g_components.empty()) core_messages();
    const MessageCatalogue cat = ui::parse_message_catalogue(catalogue_text());
    CHECK(g_sources.size() > 60);
    size_t missing = 0;
    for (const std::string& src : g_sources) {
        if (src.empty()) continue;
        const std::optional<std::string> zh = ui::translate_message(cat, src);
        if (!zh) {
            ++missing;
            std::cout << "no Chinese for the source: " << src << "\n";
            continue;
        }
        INFO(src << " -> " << *zh);
        CHECK(has_cjk(*zh));
        // Every citation key of the English ("[transformers-code]", "[zero2020 §3.1]") is in the Chinese too;
        // a bracket with a comma is a tensor's shape ("[b, s, h]"), whose words may be translated.
        for (size_t at = src.find('['); at != std::string::npos; at = src.find('[', at + 1)) {
            const size_t end = src.find(']', at);
            if (end == std::string::npos) break;
            const std::string bracket = src.substr(at, end - at + 1);
            if (bracket.find(',') == std::string::npos) CHECK(zh->find(bracket) != std::string::npos);
        }
    }
    CHECK(missing == 0);
}

TEST_CASE("a syntax error in a pasted config.json reads in Chinese, with its line, column and place") {
    const MessageCatalogue c = ui::parse_message_catalogue(catalogue_text());
    std::vector<FieldError> errs;
    parse_json_input("{\n  \"a\": 1,\n}", "config", errs);
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].message == "is not valid JSON: line 3, column 1: a comma before } : JSON allows no comma after the last entry; remove it (at: })");
    CHECK(ui::translate_message(c, errs[0].message) ==
          "不是有效的 JSON：第 3 行第 1 列：} 之前有逗号：JSON 不允许最后一项后面有逗号；请删除（位置：}）");
    errs.clear();
    parse_json_input("{\"tie_word_embeddings\": True}", "config", errs);
    REQUIRE(errs.size() == 1);
    CHECK(ui::translate_message(c, errs[0].message).value_or("").find("True 是 Python 的写法") != std::string::npos);
}
