// Speculative decoding's draft model in the llama.cpp planner (llama-server -md, core/planner/planner.h PlanDraft):
// the draft's KV cache against a published llama-server log, its placement on the main model's tensor split, -ngld,
// -cd, the -ngl search counting it, the launch line's flags, and each bad input named (planner, Run locally, JSON, CLI).
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "flag_list.h"
#include "inference_models.h"
#include "planner_fixtures.h"
#include "model/presets.h"
#include "plan_cli.h"
#include "planner/launch.h"
#include "planner/local.h"
#include "planner/planner.h"
#include "scenario_json.h"

using namespace vl;
using Catch::Matchers::WithinAbs;

namespace {
constexpr double kMiB = 1024.0 * 1024;
constexpr double kGiB = 1024.0 * kMiB;

// The tiny model of tests/planner_test.cpp: 4 layers, d 256, 4 heads of 64 (MHA), gated MLP 512, vocab 1024, untied,
// Q8_0. Per layer 698368 B, output 279552 B, token_embd 278528 B, KV f16 1024 B per token and layer; its CUDA compute
// buffer at n_ctx 1024, n_ub 512, no flash attention 12582912 B (the attention peak).
constexpr double kLayer = 698368, kOutput = 279552, kEmbd = 278528, kKvToken = 1024, kCompute1024 = 12582912;

PlanInput tiny_with_draft(int64_t ctx) {
    PlanInput in = test::tiny_plan_input(ctx);
    in.draft.model = test::llama("tiny-draft", 1024, 256, 4, 4, 4, 512, 65536);  // the same shape: every byte above is known
    in.draft.weights = WeightFormat::GGUF_Q8_0;
    return in;
}

std::string error_field(PlanInput in) {
    const std::string e = plan_llamacpp(in).error;
    return e.substr(0, e.find(':'));
}

Scenario local_with_draft() {
    Scenario s;
    s.mode = Mode::Local;
    s.model = find_model("qwen2.5-7b")->spec;
    s.local.gpus = {"rtx-4090"};
    s.local.draft.model = "qwen2.5-0.5b";
    return s;
}

bool has_error(const LocalPlan& p, const std::string& field) {
    for (const FieldError& e : p.errors)
        if (e.field == field) return true;
    return false;
}
}  // namespace

TEST_CASE("planner draft: Qwen2.5-0.5B's draft KV cache matches llama-server's slot log, f16 whatever -ctk says") {
    // [lcpp-spec-rocm-log]: llama-server -c 512 -cd 512 -m qwen2.5-72b -md qwen2.5-0.5b -ngld 999 -ngl 999 -fa -ctk q8_0 -ctv q8_0;
    // the slot's draft context: "kv_size = 512, offload = 1, type_k = 'f16', type_v = 'f16', n_layer = 24", "ROCm0 KV buffer size = 6.00 MiB".
    // Hand: 24 layers * 512 cells * (K + V) 2 * 2 KV heads * 64 * 2 B = 6291456 B = 6.00 MiB.
    PlanInput in;
    in.model = find_model("qwen2.5-72b")->spec;
    in.weights = WeightFormat::GGUF_Q4_K_M;
    in.kv = KvDtype::INT8;
    in.flash_attention = true;
    in.context = 512;
    in.ram_bytes = 128 * kGiB;
    in.gpus = {{"GPU", 96 * kGiB, 0}};
    in.draft.model = find_model("qwen2.5-0.5b")->spec;
    in.draft.context = 512;
    const Plan p = place_llamacpp(in, in.model.layers + 1, 512);
    REQUIRE(p.ok());
    CHECK(p.draft_n_layer == 24);
    CHECK(p.draft_ngl == 25);  // every layer and the output, as -ngld 999
    CHECK(p.draft_context == 512);
    CHECK(p.gpus[0].draft_kv == 6 * kMiB);
    CHECK(p.cpu.draft_kv == 0);
    // The draft's own compute buffer (runtime.h's CUDA plan of the draft at n_ub 512): the output peak, the f32 logits and
    // the MLP and hidden widths of 512 positions, (151936 + 4864 + 896) * 512 * 4 B = 308.0 MiB. The log's "ROCm0 compute
    // buffer size = 298.50 MiB" is the logits and one hidden state, (151936 + 896) * 512 * 4 B: runtime.h's bound is 3.2 % above.
    CHECK(p.gpus[0].draft_compute == (151936.0 + 4864 + 896) * 512 * 4);
    CHECK_THAT(p.gpus[0].draft_compute / kMiB, WithinAbs(298.50, 0.04 * 298.50));
}

TEST_CASE("planner draft: the draft takes the main model's tensor split, layer by layer, with its own -ngld") {
    PlanInput in = tiny_with_draft(1024);
    in.gpus = {{"A", 24 * kGiB, 0}, {"B", 24 * kGiB, 0}};
    in.tensor_split = {1, 1};
    in.ngl = 5;
    const Plan p = plan_llamacpp(in);
    REQUIRE(p.ok());
    // -ngld 5 of 5: layer il goes to GPU upper_bound({0.5, 1}, il / 5): layers 0-2 on A, layer 3 and the output on B;
    // the draft's token embedding in RAM; each layer's KV (1024 cells) with its layer.
    CHECK(p.draft_ngl == 5);
    CHECK(p.gpus[0].draft_weights == 3 * kLayer);
    CHECK(p.gpus[1].draft_weights == kLayer + kOutput);
    CHECK(p.cpu.draft_weights == kEmbd);
    CHECK(p.gpus[0].draft_kv == 3 * 1024 * kKvToken);
    CHECK(p.gpus[1].draft_kv == 1 * 1024 * kKvToken);
    // Each GPU with draft layers plans the draft context's compute buffer: the same shape as the main model's.
    CHECK(p.gpus[0].draft_compute == kCompute1024);
    // The device totals hold the draft's share beside the main model's.
    CHECK(p.gpus[0].total() == p.gpus[0].weights + p.gpus[0].kv + p.gpus[0].compute + 3 * kLayer + 3 * 1024 * kKvToken + kCompute1024);
}

TEST_CASE("planner draft: -ngld 0 keeps the whole draft in RAM, -cd sizes its KV cache") {
    PlanInput in = tiny_with_draft(1024);
    in.gpus = {{"A", 24 * kGiB, 0}};
    in.draft.ngl = 0;
    in.draft.context = 256;
    const Plan p = plan_llamacpp(in);
    REQUIRE(p.ok());
    CHECK(p.draft_ngl == 0);
    CHECK(p.gpus[0].draft() == 0);
    CHECK(p.cpu.draft_weights == 4 * kLayer + kOutput + kEmbd);
    CHECK(p.cpu.draft_kv == 4 * 256 * kKvToken);
    CHECK(p.draft_context == 256);
}

TEST_CASE("planner draft: without -cd the draft's context follows the main context, also in the largest-context search") {
    PlanInput in = tiny_with_draft(2048);
    in.gpus = {{"A", 24 * kGiB, 0}};
    const Plan p = plan_llamacpp(in);
    REQUIRE(p.ok());
    CHECK(p.draft_context == 2048);
    CHECK(p.gpus[0].draft_kv == 4 * 2048 * kKvToken);
}

TEST_CASE("planner draft: the -ngl search counts the draft's bytes on the GPU") {
    // One GPU of the main model's full offload at n_ctx 1024 + 1 MiB: 4 layers + output + KV 4 * 1024 * 1024 B + compute.
    const double main_all = 4 * kLayer + kOutput + 4 * 1024 * kKvToken + kCompute1024;
    PlanInput in = tiny_with_draft(1024);
    in.gpus = {{"A", main_all + kMiB, 0}};
    PlanInput alone = in;
    alone.draft = PlanDraft{};
    CHECK(plan_llamacpp(alone).ngl == 5);
    // The draft (the same bytes, all on the GPU by default) leaves under 1 MiB + its own size: no main layer fits beside it,
    // as any offloaded layer brings a 12 MiB compute buffer.
    const Plan p = plan_llamacpp(in);
    REQUIRE(p.ok());
    CHECK(p.ngl == 0);
    CHECK(p.fits);
    CHECK(p.gpus[0].draft() == main_all);
}

TEST_CASE("planner draft: the launch line carries -md, -ngld, -cd, --draft-max and the draft's cache type, each a llama.cpp flag") {
    PlanInput in = tiny_with_draft(1024);
    in.gpus = {{"A", 24 * kGiB, 0}};
    in.flash_attention = true;
    in.draft.context = 512;
    in.draft.kv = KvDtype::INT8;
    in.draft.draft_max = 8;
    const Plan p = plan_llamacpp(in);
    REQUIRE(p.ok());
    const std::string line = llama_server_line(in, p, "main.gguf");
    CHECK(line.find(" -md tiny-draft-q8_0.gguf -ngld 5 -cd 512 --draft-max 8 -ctkd q8_0 -ctvd q8_0") != std::string::npos);
    const std::set<std::string> known = test::documented_flags("llama_server_flags.txt");
    for (const std::string& f : test::command_flags(line.substr(std::string("llama-server ").size()))) {
        INFO(f);
        CHECK(known.count(f) == 1);
    }
    in.draft.file = "drafts/small.gguf";
    CHECK(llama_server_line(in, p, "main.gguf").find(" -md drafts/small.gguf ") != std::string::npos);
}

TEST_CASE("planner draft: bad draft input names its draft-* field, Ollama refuses a separate draft model") {
    PlanInput in = tiny_with_draft(1024);
    in.gpus = {{"A", 24 * kGiB, 0}};
    PlanInput x = in;
    x.draft.ngl = 6;
    CHECK(error_field(x) == "draft-ngl");
    x = in;
    x.draft.weights = WeightFormat::FP8;
    CHECK(error_field(x) == "draft-weights");
    x = in;
    x.draft.kv = KvDtype::INT4;  // a quantized V cache needs flash attention, for the draft's context too
    CHECK(error_field(x) == "draft-kv-type");
    x = in;
    x.draft.draft_max = 0;
    CHECK(error_field(x) == "draft-max");
    x = in;
    x.mmproj_bytes = 1e9;  // llama-server: "speculative decode is not supported by multimodal" [llama-cpp-speculative]
    CHECK(error_field(x) == "draft-model");
    const Plan p = plan_llamacpp(in);
    REQUIRE(p.ok());
    const OllamaSettings o = ollama_settings(in, p);
    CHECK(o.error.rfind("draft-model: Ollama has no setting for a separate draft model", 0) == 0);
}

TEST_CASE("planner draft: Run locally plans local.draft and names each bad local.draft field") {
    Scenario s = local_with_draft();
    const LocalPlan p = plan_local(s);
    REQUIRE(p.ok());
    REQUIRE(p.plan.draft_n_layer == 24);
    CHECK(p.devices.front().draft == p.plan.gpus.front().draft());
    CHECK(p.devices.front().draft > 0);
    CHECK(p.launch.front().text.find(" -md Qwen2.5-0.5B-q8_0.gguf ") != std::string::npos);
    bool noted = false;
    for (const std::string& n : p.notes) noted = noted || n.rfind("draft model ", 0) == 0;
    CHECK(noted);

    Scenario x = s;
    x.local.draft.model = "no-such-model";
    CHECK(has_error(plan_local(x), "local.draft.model"));
    x = s;
    x.local.draft.kv = KvDtype::INT8;
    CHECK(has_error(plan_local(x), "local.draft.kv"));
    x = s;
    x.local.draft.ngl = 99;
    CHECK(has_error(plan_local(x), "local.draft.ngl"));
    x = s;
    x.local.engine = LocalEngine::Ollama;
    CHECK(has_error(plan_local(x), "local.draft.model"));
    x = s;
    x.local.engine = LocalEngine::VLLM;
    x.local.weights = WeightFormat::BF16;
    x.local.kv = KvDtype::BF16;
    CHECK(has_error(plan_local(x), "local.draft.model"));
}

TEST_CASE("planner draft: local.draft round-trips through the scenario JSON and a bad value names local.draft.<field>") {
    Scenario s = local_with_draft();
    s.local.draft.ngl = 10;
    s.local.draft.context = 2048;
    s.local.draft.kv = KvDtype::INT8;
    const Result<Scenario> back = scenario_from_json(scenario_to_json(s, JsonStyle::Pretty));
    REQUIRE(back.ok());
    CHECK(back.value->local.draft == s.local.draft);
    std::string text = scenario_to_json(s, JsonStyle::Pretty);
    const std::string key = "\"draft_max\": 16";
    REQUIRE(text.find(key) != std::string::npos);
    text.replace(text.find(key), key.size(), "\"draft_max\": \"many\"");
    const Result<Scenario> bad = scenario_from_json(text);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.errors.front().field == "local.draft.draft_max");
}

TEST_CASE("cli plan --draft-model: the draft in the JSON, on the device rows and in the launch line") {
    const nlohmann::json j = test::cli_plan({"--model", "qwen2.5-7b", "--draft-model", "qwen2.5-0.5b", "--draft-ctx", "512", "--ctx", "4096",
                                             "--gpu", "rtx-4090", "--ram", "64GB"});
    REQUIRE(j.contains("draft"));
    CHECK(j["draft"]["n_layer"] == 24);
    CHECK(j["draft"]["ngl"] == 25);
    CHECK(j["draft"]["context"] == 512);
    CHECK(j["draft"]["weights"] == "q8_0");
    // The draft's KV at -cd 512 in f16: 24 * 512 * 2 * 2 * 64 * 2 B = 6 MiB, on the GPU.
    CHECK(j["devices"][0]["draft_kv_bytes"] == 6 * kMiB);
    CHECK(j["launch"].get<std::string>().find(" -md Qwen2.5-0.5B-q8_0.gguf -ngld 25 -cd 512 --draft-max 16") != std::string::npos);
    CHECK(test::plan_refused_with({"--model", "qwen2.5-7b", "--draft-ngl", "3", "--gpu", "rtx-4090", "--ram", "64GB"},
                                  "--draft-ngl, --draft-ctx"));
    CHECK(test::plan_refused_with({"--model", "qwen2.5-7b", "--draft-model", "qwen2.5-0.5b", "--engine", "ollama", "--gpu", "rtx-4090", "--ram",
                                   "64GB"},
                                  "draft-model: Ollama has no setting for a separate draft model"));
}
