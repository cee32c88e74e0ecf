// Run locally (Mode::Local, issue 19): the scenario's local options in the JSON format and share
// links (round trip, every bad field named), the estimate of a Local scenario (an error naming
// "mode"), and plan_local's input checks, each naming its local.* field.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "checkpoint_files.h"
#include "cli.h"
#include "estimate.h"
#include "model/checkpoint_import.h"
#include "model/gguf.h"
#include "model/presets.h"
#include "plan_cli.h"
#include "planner/local.h"
#include "scenario_json.h"
#include "share_link.h"

using namespace vl;
using vl::test::cli_plan;
using vl::test::cli_text_line;

namespace {

Scenario local_scenario() {
    Scenario s;
    s.model = find_model("llama-3.1-8b")->spec;
    s.mode = Mode::Local;
    s.local.gpus = {"rtx-4090", "rtx-3060-12gb"};
    s.local.context = 8192;
    return s;
}

// local_scenario() for vLLM: bf16 weights, the auto (bf16) KV cache.
Scenario vllm_scenario() {
    Scenario s = local_scenario();
    s.local.engine = LocalEngine::VLLM;
    s.local.weights = WeightFormat::BF16;
    s.local.kv = KvDtype::BF16;
    return s;
}

std::string link_around(const std::string& json) {
    std::string payload = json;
    const uint32_t c = crc32(json);
    for (int shift = 24; shift >= 0; shift -= 8) payload += static_cast<char>((c >> shift) & 0xFF);
    return "v1." + base64url_encode(payload);
}

bool has_error(const std::vector<FieldError>& errs, const std::string& field, const std::string& words) {
    for (const FieldError& e : errs)
        if (e.field == field && e.message.find(words) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST_CASE("local: a Local scenario survives JSON and a share link, every field") {
    Scenario s = local_scenario();
    s.local.engine = LocalEngine::Ollama;
    s.local.weights = WeightFormat::GGUF_Q8_0;
    s.local.kv = KvDtype::INT8;
    s.local.flash_attention = true;
    s.local.ram_bytes = 32.0 * 1024 * 1024 * 1024;
    s.local.gpu_memory_utilization = 0.85;
    s.local.max_num_seqs = 64;
    const std::string compact = scenario_to_json(s, JsonStyle::Compact);
    CHECK(compact.find(R"("mode":"local")") != std::string::npos);
    CHECK(compact.find(R"("gpus":["rtx-4090","rtx-3060-12gb"])") != std::string::npos);
    CHECK(compact.find(R"("engine":"ollama")") != std::string::npos);
    Result<Scenario> back = decode_share_link(encode_share_link(s));
    REQUIRE(back.ok());
    CHECK(scenario_to_json(*back) == scenario_to_json(s));
    CHECK(back->local.gpus == s.local.gpus);
    CHECK(back->local.kv == KvDtype::INT8);

    Scenario mac = local_scenario();
    mac.local.gpus.clear();
    mac.local.apple_chip = "m2-max";
    mac.local.wired_limit_mb = 28000;
    Result<Scenario> mb = scenario_from_json(scenario_to_json(mac, JsonStyle::Compact));
    REQUIRE(mb.ok());
    CHECK(mb->local.gpus.empty());  // an empty list is kept, not the default's RTX 4090
    CHECK(mb->local.apple_chip == "m2-max");
    CHECK(mb->local.wired_limit_mb == 28000);
}

TEST_CASE("local: a bad local field in a link is named, never read as a default") {
    auto errors_of = [](const std::string& local) {
        const Result<Scenario> r = decode_share_link(link_around(R"({"version":1,"mode":"local","local":)" + local + "}"));
        REQUIRE_FALSE(r.ok());
        return r.errors;
    };
    CHECK(has_error(errors_of(R"({"gpus":["rtx-4090","rtx-9999"]})"), "local.gpus[1]", "GPU preset id"));
    CHECK(has_error(errors_of(R"({"gpus":"rtx-4090"})"), "local.gpus", "array"));
    CHECK(has_error(errors_of(R"({"engine":"tgi"})"), "local.engine", "llama.cpp"));
    CHECK(has_error(errors_of(R"({"apple_chip":"m9-ultra"})"), "local.apple_chip", "Apple chip id"));
    CHECK(has_error(errors_of(R"({"ram_bytes":"64GB"})"), "local.ram_bytes", "number"));
    CHECK(has_error(errors_of(R"({"context":1.5})"), "local.context", "integer"));
    CHECK(has_error(errors_of(R"({"speed":1})"), "local.speed", "unknown field"));
    CHECK(has_error(errors_of(R"({"weights":"q9_k"})"), "local.weights", "must be one of"));
}

TEST_CASE("local: the estimate of a Local scenario is an error naming mode, not training numbers") {
    const Estimate e = estimate(local_scenario());
    REQUIRE(e.errors.size() == 1);
    CHECK(e.errors.front().field == "mode");
    CHECK(e.errors.front().message.find("plan_local") != std::string::npos);
    CHECK(e.components.empty());
}

TEST_CASE("local: bad machine inputs are named with how to fix them") {
    Scenario s = local_scenario();
    s.local.gpus.clear();
    CHECK(has_error(plan_local(s).errors, "local.gpus", "add at least one GPU"));
    s = local_scenario();
    s.local.ram_bytes = 0;
    CHECK(has_error(plan_local(s).errors, "local.ram_bytes", "64 GiB"));
    s = local_scenario();
    s.local.kv = KvDtype::INT8;  // q8_0 without flash attention
    CHECK(has_error(plan_local(s).errors, "local.kv", "flash attention"));
    s = vllm_scenario();
    CHECK(has_error(plan_local(s).errors, "local.gpus", "equal GPUs"));  // a 4090 and a 3060
    s.local.gpus = {"rtx-4090"};
    s.local.context = 131073;  // Llama 3.1's max_position_embeddings is 131072
    CHECK(has_error(plan_local(s).errors, "local.context", "131072 or less"));
    s.local.context = 4096;
    s.local.weights = WeightFormat::GGUF_Q4_K_M;
    CHECK(has_error(plan_local(s).errors, "local.weights", "pick bf16"));
    s.local.weights = WeightFormat::BF16;
    s.local.gpus.clear();
    s.local.apple_chip = "m2-max";
    CHECK(has_error(plan_local(s).errors, "local.engine", "not on a Mac"));
    s = local_scenario();
    s.model.heads = 0;  // a broken custom model: the model's own rule, not a planner crash
    const LocalPlan bad = plan_local(s);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.errors.front().field.rfind("model.", 0) == 0);
}

TEST_CASE("local: a plan that fits has a row per device, the RAM as sold, and a launch line") {
    const LocalPlan p = plan_local(local_scenario());
    REQUIRE(p.ok());
    CHECK(p.fits);
    REQUIRE(p.devices.size() == 3);  // two GPUs, then the host
    CHECK(p.devices[0].name == find_gpu("rtx-4090")->name);
    CHECK(p.devices[1].name == find_gpu("rtx-3060-12gb")->name);
    CHECK(p.devices[2].capacity == 64.0 * 1024 * 1024 * 1024);  // --ram 64GB: 64 GiB
    // Llama 3.1 8B: 32 layers + output, all offloaded: -ngl 33
    CHECK(p.summary.rfind("-ngl 33 of 33 (32 layers + output)", 0) == 0);
    REQUIRE(p.launch.size() == 1);
    CHECK(p.launch[0].text.rfind("llama-server -m Llama-3.1-8B-q4_k_m.gguf -ngl 33 -c 8192 -ub 512 --split-mode layer --tensor-split ", 0) == 0);
    CHECK(p.speed.find("holdout error median") != std::string::npos);
}

TEST_CASE("local: a GGUF file imported in Run locally is planned from its own tensor bytes, as `vramlens plan --model file.gguf`") {
    const std::string bytes = test::two_block_gguf().file();
    Result<GgufHeader> header = read_gguf_header(bytes, bytes.size());
    REQUIRE(header.ok());
    CheckpointFiles files;
    files.gguf = *header.value;
    files.gguf_file_bytes = bytes.size();
    Result<CheckpointImport> imported = import_checkpoint(files);
    REQUIRE(imported.ok());
    Scenario s;
    s.mode = Mode::Local;
    s.local.engine = LocalEngine::VLLM;  // a GGUF file goes to llama.cpp, in its own type
    s.local.weights = WeightFormat::BF16;
    apply_checkpoint_import(*imported.value, s);
    CHECK(s.local.engine == LocalEngine::LlamaCpp);
    CHECK(s.local.weights == WeightFormat::GGUF_Q4_K_M);  // general.file_type 15
    REQUIRE(s.model.gguf_bytes.layers.size() == 2);
    s.local.context = 256;
    s.local.kv = KvDtype::FP16;
    const LocalPlan p = plan_local(s);
    REQUIRE(p.ok());
    REQUIRE(p.devices.size() == 2);
    // tests/checkpoint_files.h: blk.0 376064 + blk.1 342272 + output 6720 + output_norm 1024 on the GPU; token_embd 4608 in RAM.
    CHECK(p.devices[0].weights == 376064.0 + 342272 + 6720 + 1024);
    CHECK(p.devices[1].weights == 4608.0);

    const std::filesystem::path file = std::filesystem::temp_directory_path() / "vramlens-local-plan-two-block.gguf";
    std::ofstream(file, std::ios::binary) << bytes;
    std::string out, err;
    const int status = cli::run({"plan", "--model", file.string(), "--ctx", "256", "--gpu", "rtx-4090", "--ram", "64GB", "--format", "json"}, out, err);
    std::filesystem::remove(file);
    INFO(err);
    REQUIRE(status == 0);
    const nlohmann::json cli = nlohmann::json::parse(out);
    for (size_t i = 0; i < 2; ++i) {
        CHECK(p.devices[i].weights == cli["devices"][i]["weights_bytes"].get<double>());
        CHECK(p.devices[i].kv == cli["devices"][i]["kv_bytes"].get<double>());
        CHECK(p.devices[i].compute == cli["devices"][i]["compute_bytes"].get<double>());
    }
}

// ---- manual placement (the page's "Advanced placement") and GPUs not in the presets -------------

namespace {

// The page's plan against `vramlens plan --format json` device by device, and the launch line.
void check_same_as_cli(const LocalPlan& p, const nlohmann::json& cli) {
    REQUIRE(p.ok());
    CHECK(p.fits == cli["fits"].get<bool>());
    CHECK(p.largest_context == cli["max_context"].get<int64_t>());
    REQUIRE(p.devices.size() == cli["devices"].size());
    for (size_t i = 0; i < p.devices.size(); ++i) {
        INFO("device " << i);
        CHECK(p.devices[i].name == cli["devices"][i]["name"].get<std::string>());
        CHECK(p.devices[i].weights == cli["devices"][i]["weights_bytes"].get<double>());
        CHECK(p.devices[i].kv == cli["devices"][i]["kv_bytes"].get<double>());
        CHECK(p.devices[i].compute == cli["devices"][i]["compute_bytes"].get<double>());
        CHECK(p.devices[i].capacity == cli["devices"][i]["capacity_bytes"].get<double>());
    }
    if (cli.contains("launch")) {
        REQUIRE(p.launch.size() == 1);
        CHECK(p.launch[0].text == cli["launch"].get<std::string>());
    }
}

Scenario every_override() {
    Scenario s = local_scenario();
    LocalOptions& lo = s.local;
    lo.custom_gpus = {{"My GPU", 15.5, 640, 0}, {"Other", 48, 960, 181.5}};
    lo.ngl = 30;
    lo.n_cpu_moe = 20;
    lo.tensor_split = {3, 1, 0.5, 0.25};
    lo.split_mode = SplitMode::Row;
    lo.main_gpu = 2;
    lo.ubatch = 1024;
    lo.kv_offload = false;
    lo.mmproj_bytes = 851443712;
    lo.mmproj_offload = false;
    lo.tp = 2;
    lo.pp = 2;
    return s;
}

}  // namespace

TEST_CASE("local: every placement override and a custom GPU survive JSON and a share link") {
    const Scenario s = every_override();
    const std::string compact = scenario_to_json(s, JsonStyle::Compact);
    CHECK(compact.find(R"("custom_gpus":[{"name":"My GPU","memory_gib":15.5,"bandwidth_gbs":640.0,"fp16_tflops":0.0})") != std::string::npos);
    CHECK(compact.find(R"("ngl":30,"n_cpu_moe":20,"tensor_split":[3.0,1.0,0.5,0.25],"split_mode":"row","main_gpu":2,"ubatch":1024,)"
                       R"("kv_offload":false,"mmproj_bytes":851443712.0,"mmproj_offload":false,"tp":2,"pp":2)") != std::string::npos);
    for (const Result<Scenario>& back : {scenario_from_json(compact), decode_share_link(encode_share_link(s))}) {
        REQUIRE(back.ok());
        const LocalOptions& lo = back->local;
        REQUIRE(lo.custom_gpus.size() == 2);
        CHECK(lo.custom_gpus[1].name == "Other");
        CHECK(lo.custom_gpus[1].memory_gib == 48);
        CHECK(lo.custom_gpus[1].bandwidth_gbs == 960);
        CHECK(lo.custom_gpus[1].fp16_tflops == 181.5);
        CHECK(lo.ngl == 30);
        CHECK(lo.n_cpu_moe == 20);
        CHECK(lo.tensor_split == std::vector<double>{3, 1, 0.5, 0.25});
        CHECK(lo.split_mode == SplitMode::Row);
        CHECK(lo.main_gpu == 2);
        CHECK(lo.ubatch == 1024);
        CHECK_FALSE(lo.kv_offload);
        CHECK(lo.mmproj_bytes == 851443712);
        CHECK_FALSE(lo.mmproj_offload);
        CHECK(lo.tp == 2);
        CHECK(lo.pp == 2);
    }
    // A link written before these fields opens with every placement automatic.
    const Result<Scenario> old = decode_share_link(link_around(R"({"version":1,"mode":"local","local":{"gpus":["rtx-4090"],"context":8192}})"));
    REQUIRE(old.ok());
    CHECK(old->local.custom_gpus.empty());
    CHECK(old->local.ngl == -1);
    CHECK(old->local.n_cpu_moe == 0);
    CHECK(old->local.tensor_split.empty());
    CHECK(old->local.split_mode == SplitMode::Layer);
    CHECK(old->local.ubatch == 512);  // llama.cpp's default -ub
    CHECK(old->local.kv_offload);
    CHECK(old->local.tp == 0);
    CHECK(old->local.pp == 0);
    // The defaults are not written: a plain Local scenario's link does not grow.
    CHECK(scenario_to_json(local_scenario(), JsonStyle::Compact).find("ngl") == std::string::npos);
}

TEST_CASE("local: a badly formed placement field or custom GPU in a link is named") {
    auto errors_of = [](const std::string& local) {
        const Result<Scenario> r = decode_share_link(link_around(R"({"version":1,"mode":"local","local":)" + local + "}"));
        REQUIRE_FALSE(r.ok());
        return r.errors;
    };
    CHECK(has_error(errors_of(R"({"ngl":"auto"})"), "local.ngl", "integer"));
    CHECK(has_error(errors_of(R"({"n_cpu_moe":2.5})"), "local.n_cpu_moe", "integer"));
    CHECK(has_error(errors_of(R"({"tensor_split":[3,"1"]})"), "local.tensor_split[1]", "number"));
    CHECK(has_error(errors_of(R"({"tensor_split":"3,1"})"), "local.tensor_split", "array"));
    CHECK(has_error(errors_of(R"({"split_mode":"rows"})"), "local.split_mode", "\"layer\""));
    CHECK(has_error(errors_of(R"({"kv_offload":0})"), "local.kv_offload", "true or false"));
    CHECK(has_error(errors_of(R"({"custom_gpus":{"name":"X"}})"), "local.custom_gpus", "array"));
    CHECK(has_error(errors_of(R"({"custom_gpus":[{"name":"X","memory_gib":"16"}]})"), "local.custom_gpus[0].memory_gib", "number"));
    CHECK(has_error(errors_of(R"({"custom_gpus":[{"name":"X"},{"memory":16}]})"), "local.custom_gpus[1].memory", "unknown field"));
    CHECK(has_error(errors_of(R"({"custom_gpus":["rtx-4090"]})"), "local.custom_gpus[0]", "object"));
}

TEST_CASE("local: a bad placement value or custom GPU is named by plan_local with how to fix it") {
    Scenario s = local_scenario();  // Llama 3.1 8B: 32 layers, on an RTX 4090 and an RTX 3060
    s.local.custom_gpus = {{"", 0, -1, -5}};
    LocalPlan p = plan_local(s);
    CHECK(has_error(p.errors, "local.custom_gpus[0].name", "name"));
    CHECK(has_error(p.errors, "local.custom_gpus[0].memory_gib", "above 0"));
    CHECK(has_error(p.errors, "local.custom_gpus[0].bandwidth_gbs", "GB/s"));
    CHECK(has_error(p.errors, "local.custom_gpus[0].fp16_tflops", "TFLOP/s"));
    s.local.custom_gpus = {{"Huge", 1e6, 100, 0}};  // a million GiB is no GPU
    CHECK(has_error(plan_local(s).errors, "local.custom_gpus[0].memory_gib", "at most 4096"));

    s = local_scenario();
    s.local.ngl = 34;  // 32 layers + output = 33
    CHECK(has_error(plan_local(s).errors, "local.ngl", "0 to 33"));
    s.local.ngl = -2;
    CHECK(has_error(plan_local(s).errors, "local.ngl", "-1 (the most that fit)"));
    s = local_scenario();
    s.local.n_cpu_moe = 4;  // a dense model
    CHECK(has_error(plan_local(s).errors, "local.n_cpu_moe", "no routed experts"));
    s = local_scenario();
    s.local.tensor_split = {3, 1, 1};  // two GPUs
    CHECK(has_error(plan_local(s).errors, "local.tensor_split", "one proportion per GPU (2)"));
    s.local.tensor_split = {0, 0};
    CHECK(has_error(plan_local(s).errors, "local.tensor_split", "above 0"));
    s = local_scenario();
    s.local.main_gpu = 1;  // read only with split mode none
    CHECK(has_error(plan_local(s).errors, "local.main_gpu", "--split-mode none"));
    s.local.split_mode = SplitMode::None;
    s.local.main_gpu = 2;  // two GPUs: 0 and 1
    CHECK(has_error(plan_local(s).errors, "local.main_gpu", "from 0 to 1"));
    s = local_scenario();
    s.local.ubatch = 0;
    CHECK(has_error(plan_local(s).errors, "local.ubatch", "at least 1"));
    s = local_scenario();
    s.local.mmproj_offload = false;  // no projector
    CHECK(has_error(plan_local(s).errors, "local.mmproj_offload", "no projector"));
    s = local_scenario();
    s.local.engine = LocalEngine::Ollama;
    s.local.kv = KvDtype::BF16;  // OLLAMA_KV_CACHE_TYPE has no bf16
    CHECK(has_error(plan_local(s).errors, "local.kv", "Ollama"));

    s = vllm_scenario();
    s.local.gpus = {"a100-80gb", "a100-80gb"};
    s.local.tp = 3;  // does not divide 2 GPUs
    CHECK(has_error(plan_local(s).errors, "local.tp", "does not divide"));
    s.local.tp = 0;
    s.local.pp = -1;
    CHECK(has_error(plan_local(s).errors, "local.pp", ">= 1"));
    s.local.pp = 0;
    s.local.gpus = {"a100-80gb"};
    s.local.custom_gpus = {{"My A100", 80, 2039, 312}};  // not the same GPU
    CHECK(has_error(plan_local(s).errors, "local.gpus", "equal GPUs"));
}

TEST_CASE("local: -ngl 30 and --tensor-split 3,1 place the layers as llama.cpp does, as `vramlens plan` prints") {
    Scenario s = local_scenario();
    s.local.gpus = {"rtx-4090", "rtx-4090"};
    s.local.ngl = 30;
    LocalPlan p = plan_local(s);
    REQUIRE(p.ok());
    // -ngl 30 of 33: i_gpu_start = 33 - 30 = 3, so layers 0-2 stay on the CPU; layers 3-31 and the output
    // go to the GPUs, split by the two equal GPUs' memory: 30 * 1/2 = 15 each (layers 3-17, 18-31 + output).
    REQUIRE(p.devices.size() == 3);
    CHECK(p.devices[0].layers == "layers 3-17");
    CHECK(p.devices[1].layers == "layers 18-31 + output");
    CHECK(p.devices[2].layers == "layers 0-2");
    check_same_as_cli(p, cli_plan({"--model", "llama-3.1-8b", "--ctx", "8192", "--gpu", "rtx-4090", "--gpu", "rtx-4090", "--ram", "64GB",
                                   "--ngl", "30"}));
    CHECK(p.launch[0].text.find(" -ngl 30 ") != std::string::npos);

    s.local.ngl = -1;
    s.local.tensor_split = {3, 1};
    p = plan_local(s);
    REQUIRE(p.ok());
    // 33 offloaded layers (0-31 and the output), cumulative split 0.75, 1: layer il goes to GPU 0 while
    // il / 33 < 0.75, i.e. il <= 24.
    CHECK(p.devices[0].layers == "layers 0-24");
    CHECK(p.devices[1].layers == "layers 25-31 + output");
    check_same_as_cli(p, cli_plan({"--model", "llama-3.1-8b", "--ctx", "8192", "--gpu", "rtx-4090", "--gpu", "rtx-4090", "--ram", "64GB",
                                   "--tensor-split", "3,1"}));
    CHECK(p.launch[0].text.find(" --split-mode layer --tensor-split 0.75,0.25 ") != std::string::npos);  // 3/4, 1/4: the CLI writes the split normalised

    s.local.tensor_split.clear();
    s.local.split_mode = SplitMode::None;
    s.local.main_gpu = 1;
    s.local.ubatch = 256;
    p = plan_local(s);
    check_same_as_cli(p, cli_plan({"--model", "llama-3.1-8b", "--ctx", "8192", "--gpu", "rtx-4090", "--gpu", "rtx-4090", "--ram", "64GB",
                                   "--split-mode", "none", "--main-gpu", "1", "--ubatch", "256"}));
    CHECK(p.devices[0].layers == "no layers");  // every layer on GPU 1
    CHECK(p.launch[0].text.find(" -ub 256 --split-mode none --main-gpu 1 ") != std::string::npos);
}

TEST_CASE("local: --n-cpu-moe keeps an MoE model's experts in RAM, -nkvo its KV, --mmproj a projector, as `vramlens plan`") {
    Scenario s = local_scenario();
    s.model = find_model("qwen3-30b-a3b")->spec;  // 48 layers, 128 experts
    s.local.gpus = {"rtx-4090"};
    s.local.context = 8192;
    const LocalPlan automatic = plan_local(s);
    s.local.n_cpu_moe = 20;
    LocalPlan p = plan_local(s);
    REQUIRE(p.ok());
    REQUIRE(automatic.ok());
    CHECK(p.devices.back().layers.find("experts of layers 0-19") != std::string::npos);
    CHECK(p.devices.back().weights > automatic.devices.back().weights);  // the experts moved to RAM
    check_same_as_cli(p, cli_plan({"--model", "qwen3-30b-a3b", "--ctx", "8192", "--gpu", "rtx-4090", "--ram", "64GB", "--n-cpu-moe", "20"}));
    CHECK(p.launch[0].text.find(" --n-cpu-moe 20 ") != std::string::npos);

    s.local.kv_offload = false;
    s.local.mmproj_bytes = 812.0 * 1024 * 1024;
    s.local.mmproj_offload = false;
    p = plan_local(s);
    check_same_as_cli(p, cli_plan({"--model", "qwen3-30b-a3b", "--ctx", "8192", "--gpu", "rtx-4090", "--ram", "64GB", "--n-cpu-moe", "20",
                                   "--no-kv-offload", "--mmproj-bytes", "812MB", "--no-mmproj-offload"}));
    CHECK(p.devices[0].kv == 0);  // -nkvo: every layer's KV in RAM
    CHECK(p.launch[0].text.find(" -nkvo --mmproj mmproj.gguf --no-mmproj-offload") != std::string::npos);

    // Ollama cannot keep the KV cache in RAM: the page says so as `vramlens plan --engine ollama` does.
    s.local.engine = LocalEngine::Ollama;
    s.local.mmproj_bytes = 0;
    s.local.mmproj_offload = true;
    p = plan_local(s);
    REQUIRE(p.ok());
    const std::string cli = cli_text_line({"--engine", "ollama", "--model", "qwen3-30b-a3b", "--ctx", "8192", "--gpu", "rtx-4090", "--ram", "64GB",
                                      "--n-cpu-moe", "20", "--no-kv-offload"},
                                     "Ollama cannot set: ");
    REQUIRE_FALSE(cli.empty());
    CHECK(std::find(p.notes.begin(), p.notes.end(), cli) != p.notes.end());
}

TEST_CASE("local: vLLM's --tensor-parallel-size and --pipeline-parallel-size given are `vramlens plan --tp --pp`'s") {
    Scenario s = vllm_scenario();
    s.local.context = 4096;
    s.local.gpus = {"a100-80gb", "a100-80gb"};
    s.local.tp = 1;
    s.local.pp = 2;
    const LocalPlan p = plan_local(s);
    REQUIRE(p.ok());
    const nlohmann::json cli = cli_plan({"--engine", "vllm", "--model", "llama-3.1-8b", "--weights", "bf16", "--max-model-len", "4096",
                                         "--gpu", "a100-80gb", "--gpu", "a100-80gb", "--tp", "1", "--pp", "2"});
    CHECK(p.serving_plan.tp == 1);
    CHECK(p.serving_plan.pp == 2);
    CHECK(cli["tensor_parallel_size"] == 1);
    CHECK(p.devices[0].weights == cli["per_gpu"]["weights_bytes"].get<double>());
    CHECK(p.devices[0].kv == cli["per_gpu"]["kv_pool_bytes"].get<double>());
    REQUIRE(p.launch.size() == 1);
    CHECK(p.launch[0].text == cli["launch"].get<std::string>());
    CHECK(p.launch[0].text.find("--tensor-parallel-size 1 --pipeline-parallel-size 2") != std::string::npos);
}

TEST_CASE("local: a custom GPU with an RTX 4090's figures is planned as the RTX 4090 preset, speed included") {
    const GpuPreset* rtx = find_gpu("rtx-4090");
    REQUIRE(rtx);
    Scenario preset = local_scenario();
    preset.local.gpus = {"rtx-4090"};
    Scenario custom = preset;
    custom.local.gpus.clear();
    // A custom GPU's memory is what CUDA reports: the preset's 24207 MiB (PyTorch's "total capacity of 23.64 GiB"
    // [cuda-total-readings]) = 23.6396484375 GiB; 1008 GB/s; 330.3 TFLOP/s dense FP16 (the preset's sheet figures)
    custom.local.custom_gpus = {{rtx->name, 23.6396484375, 1008, 330.3}};
    const LocalPlan a = plan_local(preset), b = plan_local(custom);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    REQUIRE(a.devices.size() == b.devices.size());
    for (size_t i = 0; i < a.devices.size(); ++i) {
        CHECK(a.devices[i].capacity == b.devices[i].capacity);
        CHECK(a.devices[i].total == b.devices[i].total);
        CHECK(a.devices[i].layers == b.devices[i].layers);
    }
    CHECK(b.launch[0].text == a.launch[0].text);
    CHECK(b.speed == a.speed);
    CHECK_FALSE(b.speed.empty());
    check_same_as_cli(b, cli_plan({"--model", "llama-3.1-8b", "--ctx", "8192", "--gpu", "rtx-4090", "--ram", "64GB"}));

    // A custom GPU's memory is 2^30 bytes a GiB: 16 GiB less the CUDA context the planner reserves on the preset
    // of the same memory is the same capacity (the name decides the context's row, here an unknown architecture).
    Scenario sixteen = local_scenario();
    sixteen.local.gpus = {};
    sixteen.local.custom_gpus = {{"Some GPU", 16, 500, 0}};
    const LocalPlan c = plan_local(sixteen);
    REQUIRE(c.ok());
    CHECK(c.devices[0].name == "Some GPU");
    CHECK(c.devices[0].capacity < 16.0 * 1024 * 1024 * 1024);
    CHECK(c.devices[0].capacity > 15.0 * 1024 * 1024 * 1024);
    CHECK(c.speed.find("Some GPU has no published FP16 throughput: no prefill estimate") != std::string::npos);  // no FLOP/s figure
}
