// Run locally (issue 19) in the page, natively: the mode, engine, GPUs and context chosen by
// clicking the widgets; the plan the page shows (its HTML mirror text and test hook) compared with
// what `vramlens plan` prints for the same flags (the CLI builds its planner inputs from its own
// flags: an independent path to the same core planners).
#include <catch2/catch.hpp>
#include <imgui.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "checkpoint_files.h"
#include "cli.h"
#include "inference/weight_formats.h"
#include "plan_cli.h"
#include "share_link.h"
#include "ui/app.h"
#include "ui/run_local.h"
#include "ui_harness.h"

using namespace vl;
using namespace vl::ui;
using vl::ui::harness::Harness;

using vl::test::cli_plan;
using vl::test::cli_text_line;

TEST_CASE("run locally, llama.cpp: a second GPU and a longer context clicked in - the plan is `vramlens plan`'s") {
    Harness h;
    h.frames(3);
    h.click("mode.3");
    REQUIRE(h.app.scenario.mode == Mode::Local);
    h.click("local.context.plus");  // 4096 -> 8192 (the step doubles)
    h.click("local.gpus.add");      // a second RTX 4090 ...
    h.click("local.gpus.1");        // ... made an RTX 3060 12GB in its list
    h.click("local.gpus.1.rtx-3060-12gb");
    REQUIRE(h.app.scenario.local.gpus == std::vector<std::string>{"rtx-4090", "rtx-3060-12gb"});
    REQUIRE(h.app.scenario.local.context == 8192);
    REQUIRE(h.app.local.ok());

    const std::vector<std::string> flags = {"--model", "llama-3.1-8b", "--weights", "q4_k_m", "--ctx", "8192",
                                            "--gpu", "rtx-4090", "--gpu", "rtx-3060-12gb", "--ram", "64GB"};
    const nlohmann::json cli = cli_plan(flags);
    const nlohmann::json page = nlohmann::json::parse(hook_json(h.app))["local"];
    CHECK(page["fits"] == cli["fits"]);
    CHECK(page["largest_context"] == cli["max_context"]);
    REQUIRE(page["devices"].size() == cli["devices"].size());
    for (size_t i = 0; i < cli["devices"].size(); ++i) {
        INFO("device " << i);
        CHECK(page["devices"][i]["name"] == cli["devices"][i]["name"]);
        CHECK(page["devices"][i]["weights"] == cli["devices"][i]["weights_bytes"]);
        CHECK(page["devices"][i]["kv"] == cli["devices"][i]["kv_bytes"]);
        CHECK(page["devices"][i]["compute"] == cli["devices"][i]["compute_bytes"]);
        CHECK(page["devices"][i]["total"] == cli["devices"][i]["total_bytes"]);
        CHECK(page["devices"][i]["capacity"] == cli["devices"][i]["capacity_bytes"]);
    }
    REQUIRE(page["launch"].size() == 1);
    CHECK(page["launch"][0]["text"] == cli["launch"]);
    CHECK(page["speed"] == cli_text_line(flags, "decode ~"));  // the text output's speed line

    // The HTML mirror says the same: the verdict, a row per device, the launch line.
    const nlohmann::json mirror = nlohmann::json::parse(results_text_json(h.app));
    CHECK(mirror["verdict"].get<std::string>().rfind("Fits · -ngl 33 of 33", 0) == 0);
    REQUIRE(mirror["rows"].size() == 3);
    CHECK(mirror["rows"][1][0] == cli["devices"][1]["name"]);
    const std::string launch_note = "Launch (llama-server): " + cli["launch"].get<std::string>();
    CHECK(std::find(mirror["notes"].begin(), mirror["notes"].end(), launch_note) != mirror["notes"].end());

    // Copy: the launch line goes to the page's clipboard through the outbox.
    h.app.outbox.clear();
    h.click("local.copy.0");
    bool copied = false;
    for (const OutEvent& ev : h.app.outbox) copied = copied || (ev.kind == "copy" && ev.a == cli["launch"]);
    CHECK(copied);
}

TEST_CASE("run locally, vLLM: two equal GPUs - the plan and launch line are `vramlens plan --engine vllm`'s") {
    Harness h;
    h.frames(3);
    h.click("mode.3");
    h.click("local.engine.2");  // vLLM: the weights become bf16, the KV type auto
    REQUIRE(h.app.scenario.local.weights == WeightFormat::BF16);
    REQUIRE(h.app.scenario.local.kv == KvDtype::BF16);
    h.click("local.gpus.0");
    h.click("local.gpus.0.a100-80gb");
    h.click("local.gpus.add");
    REQUIRE(h.app.scenario.local.gpus == std::vector<std::string>{"a100-80gb", "a100-80gb"});
    REQUIRE(h.app.local.ok());
    const nlohmann::json cli = cli_plan({"--engine", "vllm", "--model", "llama-3.1-8b", "--weights", "bf16", "--max-model-len", "4096",
                                         "--gpu", "a100-80gb", "--gpu", "a100-80gb"});
    const nlohmann::json page = nlohmann::json::parse(hook_json(h.app))["local"];
    CHECK(page["fits"] == cli["fits"]);
    CHECK(page["largest_context"] == cli["largest_max_model_len"]);
    REQUIRE(page["devices"].size() == 2);
    CHECK(page["devices"][0]["weights"] == cli["per_gpu"]["weights_bytes"]);
    CHECK(page["devices"][0]["kv"] == cli["per_gpu"]["kv_pool_bytes"]);
    CHECK(page["devices"][0]["capacity"] == cli["per_gpu"]["capacity_bytes"]);
    REQUIRE(page["launch"].size() == 1);
    CHECK(page["launch"][0]["text"] == cli["launch"]);
    CHECK(cli["launch"].get<std::string>().rfind("vllm serve meta-llama/Llama-3.1-8B --tensor-parallel-size 2", 0) == 0);
}

TEST_CASE("run locally: no GPU and no RAM are named at their fields - a link keeps the mode and the machine") {
    Harness h;
    h.frames(3);
    h.click("mode.3");
    h.click("local.gpus.0.remove");
    REQUIRE(h.app.scenario.local.gpus.empty());
    h.frames(2);
    CHECK(h.has("error.local.gpus"));
    const nlohmann::json mirror = nlohmann::json::parse(results_text_json(h.app));
    CHECK_FALSE(mirror["ok"].get<bool>());
    CHECK(mirror["verdict"].get<std::string>().find("local.gpus: add at least one GPU") != std::string::npos);
    h.click("local.gpus.add");
    REQUIRE(h.app.local.ok());
    h.app.scenario.local.ram_bytes = 0;  // as typed: 0 GiB
    h.app.dirty = true;
    h.frames(2);
    CHECK(h.has("error.local.ram_bytes"));

    // The link carries Mode::Local and the machine; opened in a fresh page it shows the same plan.
    h.app.scenario.local.ram_bytes = 32.0 * kGiB;
    h.click("local.machine.1");  // a Mac
    REQUIRE(!h.app.scenario.local.apple_chip.empty());
    h.frames(2);
    Harness other;
    other.app.ui.env.hash = "#" + encode_share_link(h.app.scenario);
    other.frames(3);
    CHECK(other.app.scenario.mode == Mode::Local);
    CHECK(other.app.scenario.local.apple_chip == h.app.scenario.local.apple_chip);
    CHECK(hook_json(other.app).find(h.app.local.launch.at(0).text) != std::string::npos);
}

TEST_CASE("run locally: a Mac's GPU gets its wired limit, and a plan that does not fit says the CLI's advice") {
    Harness h;
    h.frames(3);
    h.click("mode.3");
    h.click("local.machine.1");  // an Apple Silicon Mac
    const std::string chip = h.app.scenario.local.apple_chip;
    REQUIRE(!chip.empty());
    REQUIRE(h.app.scenario.local.gpus.empty());
    h.app.scenario.local.ram_bytes = 32 * kGiB;  // as typed in the unified memory field
    h.app.dirty = true;
    h.frames(2);
    REQUIRE(h.app.local.ok());
    // macOS lets the GPU wire 2/3 of 32 GiB by default (planner.h apple_gpu_wired_limit_bytes).
    CHECK(h.app.local.devices.at(0).capacity == Approx(32 * kGiB * 2 / 3).epsilon(1e-12));
    const std::vector<std::string> mac = {"--model", "llama-3.1-8b", "--apple", "--apple-chip", chip, "--ram", "32GB"};
    const nlohmann::json cli = cli_plan(mac);
    CHECK(h.app.local.devices.at(0).capacity == cli["devices"][0]["capacity_bytes"].get<double>());
    CHECK(h.app.local.launch.at(0).text == cli["launch"]);
    CHECK(h.app.local.speed == cli_text_line(mac, "decode ~"));

    // Back to the PC (its RTX 4090 again), Llama 3.1 70B at 8192 with 16 GiB of RAM: too big.
    h.click("local.machine.0");
    REQUIRE(h.app.scenario.local.gpus == std::vector<std::string>{"rtx-4090"});
    REQUIRE(select_model_preset(h.app, "llama-3.1-70b"));
    h.app.scenario.local.ram_bytes = 16 * kGiB;
    h.app.scenario.local.context = 8192;
    h.frames(2);
    REQUIRE(h.app.local.ok());
    std::string out, err;
    CHECK(cli::run({"plan", "--model", "llama-3.1-70b", "--weights", "q4_k_m", "--ctx", "8192", "--gpu", "rtx-4090", "--ram", "16GB",
                    "--format", "json"}, out, err) == 3);  // exit 3: does not fit
    const nlohmann::json nofit = nlohmann::json::parse(out);
    CHECK_FALSE(h.app.local.fits);
    CHECK(h.app.local.advice == nofit["advice"]);
    CHECK(h.app.local.largest_context == 0);
    const nlohmann::json mirror = nlohmann::json::parse(results_text_json(h.app));
    CHECK(mirror["verdict"] == "Does not fit · " + nofit["advice"].get<std::string>());
    CHECK(h.app.local.speed.empty());  // no speed for a plan that does not run
}

TEST_CASE("run locally: which model fits best - the rows are `vramlens plan --rank`'s, Use applies one, a machine change makes it stale") {
    Harness h(1280, 2400);  // tall enough that the ranking below the plan is on screen
    h.frames(3);
    h.click("mode.3");
    REQUIRE(h.app.scenario.mode == Mode::Local);
    REQUIRE(h.has("local.rank"));
    h.click("local.rank");
    h.frames(2);
    REQUIRE(h.app.scenario.local.rank);
    const nlohmann::json page = nlohmann::json::parse(hook_json(h.app))["local"];
    CHECK(page["rank_stale"] == false);

    // The CLI's ranking for the same machine (one RTX 4090, 64 GB, context 4096, f16 KV): its ranked rows, best type per model.
    const nlohmann::json cli = cli_plan({"--rank", "--gpu", "rtx-4090", "--ram", "64GB", "--ctx", "4096"});
    std::vector<std::pair<std::string, std::string>> expected;
    for (const auto& r : cli["rows"])
        if (expected.size() < 10) expected.emplace_back(r["id"], r["weights"]);
    REQUIRE(!expected.empty());
    REQUIRE(page["rank"].size() == expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
        INFO("row " << i);
        CHECK(page["rank"][i]["id"] == expected[i].first);
        CHECK(page["rank"][i]["weights"] == expected[i].second);
    }

    // Use the second row: its preset is the model, its type the weights.
    h.click("local.rank.use.1");
    h.frames(2);
    CHECK(h.app.ui.preset_id == expected[1].first);
    CHECK(std::string(weight_format(h.app.scenario.local.weights).key) == expected[1].second);

    // Another GPU: the table is stale until ranked again; a link keeps the table shown and recomputes it on open.
    h.click("local.gpus.add");
    h.frames(2);
    CHECK(nlohmann::json::parse(hook_json(h.app))["local"]["rank_stale"] == true);
    Harness opened(1280, 2400);
    opened.frames(1);
    REQUIRE(open_hash(opened.app, "#" + encode_share_link(h.app.scenario)));
    opened.frames(2);
    const nlohmann::json reopened = nlohmann::json::parse(hook_json(opened.app))["local"];
    CHECK(reopened["rank_stale"] == false);
    CHECK(!reopened["rank"].empty());
}

TEST_CASE("run locally: the compare grid built by clicks - its cells are `vramlens plan --compare`'s, stale after a change, carried by the link") {
    Harness h(1280, 4000);  // tall enough that the grid below the plan and the ranking is on screen
    h.frames(3);
    h.click("mode.3");
    REQUIRE(h.app.scenario.mode == Mode::Local);
    const std::string current = h.app.ui.preset_id;  // the page's model, a preset
    REQUIRE(!current.empty());
    h.click("local.compare");  // opens with this model, its type (Q4_K_M) and this machine (one RTX 4090, 64 GiB)
    h.frames(2);
    h.click("local.compare.model.add");
    h.click("local.compare.model.add.llama-2-13b");
    h.click("local.compare.weights.q8_0");
    h.click("local.gpus.add");             // the machine panel: a second RTX 4090 ...
    h.click("local.compare.machine.add");  // ... added as the grid's second machine
    h.frames(2);
    const LocalCompare& c = h.app.scenario.local.compare;
    CHECK(c.models == std::vector<std::string>{"current", "llama-2-13b"});
    CHECK(c.weights == std::vector<WeightFormat>{WeightFormat::GGUF_Q8_0, WeightFormat::GGUF_Q4_K_M});
    REQUIRE(c.machines.size() == 2);
    CHECK(c.machines[1].gpus == std::vector<std::string>{"rtx-4090", "rtx-4090"});
    CHECK(nlohmann::json::parse(hook_json(h.app))["local"]["compare"]["stale"] == true);  // changed since it was computed
    h.click("local.compare.run");
    h.frames(2);
    const nlohmann::json page = nlohmann::json::parse(hook_json(h.app))["local"]["compare"];
    CHECK(page["stale"] == false);

    // The CLI's grid for the same inputs (the page's context 4096, f16 KV, no flash attention), machine by machine.
    const nlohmann::json cli = cli_plan({"--compare", "--model", current, "--model", "llama-2-13b", "--weights", "q8_0", "--weights", "q4_k_m",
                                         "--machine", "rtx-4090,ram=64GB", "--machine", "rtx-4090+rtx-4090,ram=64GB", "--ctx", "4096"});
    REQUIRE(page["cells"].size() == 2 * 2 * 2);
    REQUIRE(cli["cells"].size() == page["cells"].size());
    for (size_t i = 0; i < cli["cells"].size(); ++i) {
        const auto& p = page["cells"][i];
        const auto& q = cli["cells"][i];
        INFO("cell " << i << ": " << p.dump());
        CHECK(p["weights"] == q["weights"]);
        CHECK(p["machine"] == q["machine_index"]);
        CHECK(p["fits"] == q["fits"]);
        CHECK(p["ngl"] == q["ngl"]);
        CHECK(p["max_context"] == q["max_context"]);
        CHECK(p["decode_tokens_per_s"] == q.value("decode_tokens_per_s", 0.0));
    }
    // The HTML mirror has a line per cell.
    size_t mirrored = 0;
    const nlohmann::json mirror = local_results_text(h.app);
    for (const auto& n : mirror["notes"])
        mirrored += n.get<std::string>().rfind("Compare models, formats and machines: ", 0) == 0;
    CHECK(mirrored == 8);

    // A link opens the same grid (computed on open), not stale.
    Harness opened(1280, 4000);
    opened.frames(1);
    REQUIRE(open_hash(opened.app, "#" + encode_share_link(h.app.scenario)));
    opened.frames(2);
    const nlohmann::json reopened = nlohmann::json::parse(hook_json(opened.app))["local"]["compare"];
    CHECK(reopened["stale"] == false);
    CHECK(reopened["cells"] == page["cells"]);
    CHECK(reopened["machines"] == page["machines"]);
}

namespace {

// Text typed into a field through the page's text box (the path a phone's keyboard takes: take_typed).
void type_into(Harness& h, const std::string& key, const std::string& text) {
    INFO("field " << key);
    REQUIRE(h.has(key));
    h.app.ui.text_buffers[key] = text;
    h.frames(3);
}

std::string launch_text(const Harness& h) { return h.app.local.launch.empty() ? std::string() : h.app.local.launch.front().text; }

}  // namespace

TEST_CASE("run locally: Advanced placement - --n-cpu-moe on an MoE model, -ngl, --tensor-split 3,1, each in the launch line as the CLI prints it") {
    Harness h(1280, 3000);
    h.frames(3);
    h.click("mode.3");
    REQUIRE(select_model_preset(h.app, "qwen3-30b-a3b"));  // 48 layers, 128 routed experts
    h.app.scenario.local.context = 8192;
    h.app.dirty = true;
    h.frames(3);
    REQUIRE(h.has("section.placement"));
    CHECK_FALSE(h.has("local.n_cpu_moe"));  // collapsed
    h.click("section.placement");
    REQUIRE(h.has("local.n_cpu_moe"));
    CHECK_FALSE(h.has("local.tensor_split"));  // one GPU: no split to give
    CHECK_FALSE(h.has("local.tp"));            // a vLLM option
    const std::vector<double> host_before = {h.app.local.devices.back().weights};

    type_into(h, "local.n_cpu_moe", "20");
    REQUIRE(h.app.scenario.local.n_cpu_moe == 20);
    REQUIRE(h.app.local.ok());
    std::vector<std::string> flags = {"--model", "qwen3-30b-a3b", "--ctx", "8192", "--gpu", "rtx-4090", "--ram", "64GB", "--n-cpu-moe", "20"};
    CHECK(launch_text(h).find(" --n-cpu-moe 20 ") != std::string::npos);
    CHECK(launch_text(h) == cli_plan(flags)["launch"]);
    CHECK(h.app.local.devices.back().weights > host_before[0]);  // experts of layers 0-19 in RAM
    CHECK(h.app.local.devices.back().layers.find("experts of layers 0-19") != std::string::npos);

    type_into(h, "local.ngl", "30");
    REQUIRE(h.app.scenario.local.ngl == 30);
    flags.insert(flags.end(), {"--ngl", "30"});
    CHECK(launch_text(h).find(" -ngl 30 ") != std::string::npos);
    CHECK(launch_text(h) == cli_plan(flags)["launch"]);

    // A second GPU: the tensor split and the split mode appear.
    h.click("local.gpus.add");
    REQUIRE(h.has("local.tensor_split"));
    REQUIRE(h.has("local.split_mode.1"));
    type_into(h, "local.tensor_split", "3,1");
    REQUIRE(h.app.scenario.local.tensor_split == std::vector<double>{3, 1});
    flags.insert(flags.end(), {"--gpu", "rtx-4090", "--tensor-split", "3,1"});
    CHECK(launch_text(h).find(" --tensor-split 0.75,0.25 ") != std::string::npos);  // 3,1 normalised, as `vramlens plan` writes it
    CHECK(launch_text(h) == cli_plan(flags)["launch"]);
    const nlohmann::json cli = cli_plan(flags);
    REQUIRE(h.app.local.devices.size() == cli["devices"].size());
    for (size_t i = 0; i < h.app.local.devices.size(); ++i) CHECK(h.app.local.devices[i].total == cli["devices"][i]["total_bytes"].get<double>());

    // Text that is no list stays in the field with why, and the split is unchanged.
    type_into(h, "local.tensor_split", "3;1");
    CHECK(h.app.scenario.local.tensor_split == std::vector<double>{3, 1});
    CHECK(drawn_text(h).find("is not a list of numbers") != std::string::npos);

    // -nkvo with Ollama: the note `vramlens plan --engine ollama` prints.
    h.click("local.kv_offload");
    REQUIRE_FALSE(h.app.scenario.local.kv_offload);
    CHECK(launch_text(h).find(" -nkvo") != std::string::npos);
    h.click("local.engine.1");
    REQUIRE(h.app.local.ok());
    const nlohmann::json notes = nlohmann::json::parse(hook_json(h.app))["local"]["notes"];
    bool said = false;
    for (const auto& n : notes) said = said || n.get<std::string>().rfind("Ollama cannot set: -nkvo", 0) == 0;
    CHECK(said);

    // A dense model: no --n-cpu-moe field.
    h.app.scenario.local.n_cpu_moe = 0;
    REQUIRE(select_model_preset(h.app, "llama-3.1-8b"));
    h.frames(3);
    CHECK_FALSE(h.has("local.n_cpu_moe"));
}

TEST_CASE("run locally: Advanced placement with vLLM - tp and pp given are in vllm serve's line as the CLI prints it") {
    Harness h(1280, 3000);
    h.frames(3);
    h.click("mode.3");
    h.click("local.engine.2");
    h.click("local.gpus.0");
    h.click("local.gpus.0.a100-80gb");
    h.click("local.gpus.add");
    h.click("section.placement");
    REQUIRE(h.has("local.tp"));
    CHECK_FALSE(h.has("local.ngl"));  // llama.cpp's
    type_into(h, "local.tp", "1");
    type_into(h, "local.pp", "2");
    REQUIRE(h.app.local.ok());
    const nlohmann::json cli = cli_plan({"--engine", "vllm", "--model", "llama-3.1-8b", "--weights", "bf16", "--max-model-len", "4096",
                                         "--gpu", "a100-80gb", "--gpu", "a100-80gb", "--tp", "1", "--pp", "2"});
    CHECK(launch_text(h) == cli["launch"]);
    CHECK(launch_text(h).find("--tensor-parallel-size 1 --pipeline-parallel-size 2") != std::string::npos);
    type_into(h, "local.tp", "3");  // 2 GPUs
    h.frames(2);
    CHECK_FALSE(h.app.local.ok());
    CHECK(h.has("error.local.tp"));
}

TEST_CASE("run locally: a GPU not in the presets - added, its memory typed, a bad one named at its field, carried by the link") {
    Harness h(1280, 3000);
    h.frames(3);
    h.click("mode.3");
    h.click("local.gpus.0.remove");
    h.click("local.custom_gpus.add");
    REQUIRE(h.app.scenario.local.custom_gpus.size() == 1);
    type_into(h, "local.custom_gpus[0].name", "My 16G card");
    type_into(h, "local.custom_gpus[0].memory_gib", "16");
    type_into(h, "local.custom_gpus[0].bandwidth_gbs", "500");
    REQUIRE(h.app.scenario.local.custom_gpus[0].name == "My 16G card");
    REQUIRE(h.app.scenario.local.custom_gpus[0].memory_gib == 16);
    REQUIRE(h.app.scenario.local.custom_gpus[0].bandwidth_gbs == 500);
    REQUIRE(h.app.local.ok());
    CHECK(h.app.local.devices.at(0).name == "My 16G card");
    CHECK(h.app.local.devices.at(0).capacity < 16 * kGiB);  // less the CUDA context
    CHECK(h.app.local.devices.at(0).capacity > 15 * kGiB);

    type_into(h, "local.custom_gpus[0].name", "");
    h.frames(2);
    CHECK(h.has("error.local.custom_gpus[0].name"));
    type_into(h, "local.custom_gpus[0].name", "My 16G card");

    // A Mac has no GPUs of its own to add: the custom GPU waits, and comes back with the PC.
    const LocalCustomGpu card = h.app.scenario.local.custom_gpus.at(0);
    h.click("local.machine.1");
    CHECK(h.app.scenario.local.custom_gpus.empty());
    CHECK(h.app.local.ok());
    h.click("local.machine.0");
    REQUIRE(h.app.scenario.local.custom_gpus.size() == 1);
    CHECK(h.app.scenario.local.custom_gpus[0] == card);
    CHECK(h.app.scenario.local.gpus.empty());  // not the default RTX 4090 beside it

    Harness other;
    other.app.ui.env.hash = "#" + encode_share_link(h.app.scenario);
    other.frames(3);
    REQUIRE(other.app.scenario.local.custom_gpus.size() == 1);
    CHECK(other.app.scenario.local.custom_gpus[0] == h.app.scenario.local.custom_gpus[0]);
    CHECK(other.app.local.devices.at(0).capacity == h.app.local.devices.at(0).capacity);
}

namespace {

// The launch line with the CLI's path to the projector written as the page writes it: the file's name.
std::string with_file_name(std::string line, const std::filesystem::path& file) {
    const size_t at = line.find(file.string());
    if (at != std::string::npos) line.replace(at, file.string().size(), file.filename().string());
    return line;
}

}  // namespace

TEST_CASE("run locally: the projector's .gguf picked - its bytes and image encoder planned as `vramlens plan --mmproj`, carried by the link") {
    Harness h(1280, 3000);
    h.frames(3);
    h.click("mode.3");
    h.click("section.placement");
    REQUIRE(h.has("local.mmproj_pick"));
    CHECK_FALSE(h.has("local.image_max_tokens"));  // no encoder yet
    h.app.outbox.clear();
    h.click("local.mmproj_pick");
    bool asked = false;  // the page opens its file picker on this request (shell/bridge.js)
    for (const OutEvent& o : h.app.outbox) asked = asked || o.kind == "mmproj";
    CHECK(asked);

    // The page reads the header of the file picked and hands it over (vl_event "mmproj", the file's name).
    const std::string bytes = vl::test::qwen_projector_gguf().file();  // tests/checkpoint_files.h: sizes by hand there
    const std::filesystem::path file = vl::test::write_temp_file("mmproj-qwen.gguf", bytes);
    h.app.inbox.push_back({"mmproj", file.filename().string(), bytes});
    h.frames(3);
    const LocalOptions& lo = h.app.scenario.local;
    CHECK(lo.mmproj_bytes == vl::test::kQwenProjectorBytes);
    CHECK(lo.mmproj_encoder.projector == "qwen3vl_merger");
    CHECK(lo.mmproj_encoder.n_merge == 2);
    CHECK(lo.mmproj_file == file.filename().string());
    REQUIRE(h.app.local.ok());
    REQUIRE(h.app.local.devices.size() == 2);
    CHECK(h.app.local.devices[0].vision == vl::test::kQwenProjectorBytes + vl::test::kQwenEncoderDevice);
    CHECK(h.app.local.devices[1].vision == vl::test::kQwenEncoderHost);

    const std::vector<std::string> flags = {"--model", "llama-3.1-8b", "--ctx", "4096", "--gpu", "rtx-4090", "--ram", "64GB", "--mmproj", file.string()};
    const nlohmann::json cli = cli_plan(flags);
    const nlohmann::json page = nlohmann::json::parse(hook_json(h.app))["local"];
    REQUIRE(page["devices"].size() == cli["devices"].size());
    for (size_t i = 0; i < cli["devices"].size(); ++i) {
        INFO("device " << i);
        CHECK(page["devices"][i]["vision"].get<double>() ==
              cli["devices"][i]["mmproj_bytes"].get<double>() + cli["devices"][i]["mmproj_compute_bytes"].get<double>());
        CHECK(page["devices"][i]["total"] == cli["devices"][i]["total_bytes"]);
    }
    CHECK(page["launch"][0]["text"] == with_file_name(cli["launch"], file));
    CHECK(page["launch"][0]["text"].get<std::string>().find(" --mmproj " + file.filename().string()) != std::string::npos);
    const std::string encoder_line = cli_text_line(flags, "image encoder (");
    REQUIRE_FALSE(encoder_line.empty());
    CHECK(std::find(h.app.local.notes.begin(), h.app.local.notes.end(), encoder_line) != h.app.local.notes.end());
    const nlohmann::json mirror = local_results_text(h.app);
    CHECK(mirror["headers"][5] == "Vision");
    CHECK(mirror["rows"][0].size() == 8);

    // A Qwen-VL encoder takes --image-max-tokens: typed, it is the CLI's plan and line.
    REQUIRE(h.has("local.image_max_tokens"));
    type_into(h, "local.image_max_tokens", "4096");
    REQUIRE(h.app.scenario.local.image_max_tokens == 4096);
    std::vector<std::string> big = flags;
    big.insert(big.end(), {"--image-max-tokens", "4096"});
    const nlohmann::json cli_big = cli_plan(big);
    CHECK(h.app.local.devices[0].total == cli_big["devices"][0]["total_bytes"].get<double>());
    CHECK(launch_text(h) == with_file_name(cli_big["launch"], file));
    CHECK(launch_text(h).find(" --image-max-tokens 4096") != std::string::npos);

    // The link carries the encoder, not the file: another page plans the same.
    Harness other;
    other.app.ui.env.hash = "#" + encode_share_link(h.app.scenario);
    other.frames(3);
    CHECK(other.app.scenario.local.mmproj_encoder == h.app.scenario.local.mmproj_encoder);
    REQUIRE(other.app.local.ok());
    CHECK(other.app.local.devices.at(0).vision == h.app.local.devices.at(0).vision);
    CHECK(other.app.local.launch.at(0).text == launch_text(h));

    // A bad value is named at its field; a file that is no GGUF leaves the projector as it was and says why.
    h.app.scenario.local.mmproj_encoder.n_ff = 0;
    h.app.dirty = true;
    h.frames(2);
    REQUIRE_FALSE(h.app.local.ok());
    CHECK(h.app.local.errors.front().field == "local.mmproj_encoder.n_ff");
    h.app.scenario.local.mmproj_encoder.n_ff = 256;
    h.app.inbox.push_back({"mmproj", "notes.txt", "not a GGUF file"});
    h.frames(2);
    CHECK(h.app.scenario.local.mmproj_bytes == vl::test::kQwenProjectorBytes);
    CHECK(notice_english(h.app.ui.mmproj_message).rfind("notes.txt: ", 0) == 0);
    // A file the browser cannot read any more (moved or deleted after it was picked): said, nothing changed.
    h.app.inbox.push_back({"mmproj_error", "gone.gguf", "NotFoundError"});
    h.frames(2);
    CHECK(h.app.scenario.local.mmproj_bytes == vl::test::kQwenProjectorBytes);
    CHECK(notice_english(h.app.ui.mmproj_message) == "gone.gguf: could not read the file (NotFoundError); the projector is unchanged");
    std::filesystem::remove(file);
}
