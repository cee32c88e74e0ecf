// Run locally (Mode::Local, issue 19): the scenario's local options in the JSON format and share
// links (round trip, every bad field named), the estimate of a Local scenario (an error naming
// "mode"), and plan_local's input checks, each naming its local.* field.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "checkpoint_files.h"
#include "cli.h"
#include "estimate.h"
#include "model/checkpoint_import.h"
#include "model/gguf.h"
#include "model/presets.h"
#include "planner/local.h"
#include "scenario_json.h"
#include "share_link.h"

using namespace vl;

namespace {

Scenario local_scenario() {
    Scenario s;
    s.model = find_model("llama-3.1-8b")->spec;
    s.mode = Mode::Local;
    s.local.gpus = {"rtx-4090", "rtx-3060-12gb"};
    s.local.context = 8192;
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
    s = local_scenario();
    s.local.engine = LocalEngine::VLLM;
    s.local.weights = WeightFormat::BF16;
    s.local.kv = KvDtype::BF16;
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
