// The compare grid (core/planner/compare.h, `vramlens plan --compare`): every cell equals the single
// `vramlens plan` run for the same model, type and machine (the CLI builds that run's planner input
// from its own flags: one definition, two paths), a fit / no-fit boundary derived by hand, and bad
// input named.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "plan_cli.h"
#include "planner/compare.h"

namespace {

using Out = vl::test::PlanOut;
Out plan(std::vector<std::string> args) { return vl::test::run_plan(std::move(args)); }

nlohmann::json plan_json(std::vector<std::string> args) {
    args.insert(args.end(), {"--format", "json"});
    const Out r = plan(args);
    INFO(r.err);
    REQUIRE((r.status == 0 || r.status == 3));  // 3: `plan` of a cell that does not fit (its JSON is still printed)
    return nlohmann::json::parse(r.out);
}

bool refused_with(const std::vector<std::string>& args, const std::string& message) { return vl::test::plan_refused_with(args, message); }

}  // namespace

TEST_CASE("compare: every cell of plan --compare is the single plan of its model, type and machine") {
    const std::vector<std::string> models{"qwen3-8b", "llama-3.1-70b"};
    const std::vector<std::string> types{"q4_k_m", "q8_0"};
    // A PC with one GPU, a PC with two unlike GPUs and little RAM, a Mac: the flags of a single `plan` for each.
    const std::vector<std::vector<std::string>> single{{"--gpu", "rtx-4090", "--ram", "64GB"},
                                                       {"--gpu", "rtx-4090", "--gpu", "rtx-3060-12gb", "--ram", "32GB"},
                                                       {"--apple", "--apple-chip", "m2-max", "--ram", "96GB"}};
    const nlohmann::json grid = plan_json({"--compare", "--model", "qwen3-8b", "--model", "llama-3.1-70b", "--weights", "q4_k_m", "--weights",
                                           "q8_0", "--machine", "rtx-4090,ram=64GB", "--machine", "rtx-4090+rtx-3060-12gb,ram=32GB",
                                           "--machine", "mac=m2-max,mem=96GB", "--ctx", "8192"});
    REQUIRE(grid["cells"].size() == 2 * 2 * 3);
    size_t fits = 0, not_fits = 0;
    for (const auto& cell : grid["cells"]) {
        const size_t m = cell["model_index"], w = cell["weights_index"], k = cell["machine_index"];
        std::vector<std::string> args{"--model", models[m], "--weights", types[w], "--ctx", "8192"};
        args.insert(args.end(), single[k].begin(), single[k].end());
        const nlohmann::json one = plan_json(args);
        INFO(models[m] << " " << types[w] << " on machine " << k);
        CHECK(cell["fits"] == one["fits"]);
        CHECK(cell["ngl"] == one["ngl"]);
        CHECK(cell["n_layer"] == one["n_layer"]);
        CHECK(cell["max_context"] == one["max_context"]);
        if (one["fits"]) {
            ++fits;
            CHECK(cell["decode_tokens_per_s"] == one["speed"]["decode_tokens_per_s"]);
            CHECK(cell["decode_holdout_error"] == one["speed"]["decode_holdout_error"]);
        } else {
            ++not_fits;
            CHECK(!cell.contains("decode_tokens_per_s"));
        }
    }
    CHECK(fits > 0);      // the grid holds both kinds of cell, so both branches above were compared
    CHECK(not_fits > 0);  // (Llama 3.1 70B Q8_0 is about 70 GiB: more than 24 + 12 GiB of GPUs and 32 GiB of RAM)
    CHECK(grid["machines"][1]["gpus"] == nlohmann::json::array({"rtx-4090", "rtx-3060-12gb"}));
    CHECK(grid["machines"][2]["apple_chip"] == "m2-max");
}

TEST_CASE("compare: Llama 3.1 70B on an RTX 4090 with 32 GiB of RAM fits at Q4_K_M, not at Q8_0 (derived by hand)") {
    // Q8_0 stores 32 weights in 34 bytes (an fp16 scale and 32 int8) and a Q8_0 file keeps every matrix so
    // [llama-cpp-code] (ggml-common.h block_q8_0): 70,553,706,496 params * 34 / 32 = 74.96e9 B = 69.8 GiB of
    // weights alone, more than the 24 GiB GPU (about 23.5 usable) plus 32 GiB of RAM = 56 GiB.
    // Q4_K_M: Q4_K is 4.5 bits per weight (144 bytes per 256), Q6_K 6.5625 (210 per 256); at most
    // ffn_down (80 * 28672 * 8192 = 18.8e9), attn_v and output are Q6_K: 18.8e9 * 6.5625 / 8 + the other
    // 51.8e9 * 4.5 / 8 + (0.67e9 + 1.05e9) * 2.0625 / 8 = 15.4e9 + 29.1e9 + 0.44e9 = 45.0e9 B = 41.9 GiB; the KV
    // cache at 4096 tokens is 80 layers * 2 * 8 heads * 128 * 2 B * 4096 = 1.34e9 B = 1.25 GiB, the compute
    // buffers a few hundred MiB: about 44 GiB, well under 56 GiB.
    const nlohmann::json grid = plan_json({"--compare", "--model", "llama-3.1-70b", "--weights", "q4_k_m", "--weights", "q8_0",
                                           "--machine", "rtx-4090,ram=32GB", "--ctx", "4096"});
    REQUIRE(grid["cells"].size() == 2);
    CHECK(grid["cells"][0]["weights"] == "q4_k_m");
    CHECK(grid["cells"][0]["fits"] == true);
    CHECK(grid["cells"][1]["weights"] == "q8_0");
    CHECK(grid["cells"][1]["fits"] == false);
    CHECK(grid["cells"][1]["verdict"] == "does not fit");
    // Q4_K_M's 41.9 GiB at most do not fit in 23.5 GiB: some layers stay in RAM (-ngl below 81).
    CHECK(grid["cells"][0]["ngl"] < 81);
    CHECK(grid["cells"][0]["ngl"] > 0);
}

TEST_CASE("compare: the text table has a column per machine and a row per model and type") {
    const Out r = plan({"--compare", "--model", "qwen3-8b", "--weights", "q4_k_m", "--weights", "q8_0", "--gpu", "rtx-4090", "--ram", "64GB",
                        "--machine", "mac=m2-max,mem=96GB"});
    INFO(r.err);
    REQUIRE(r.status == 0);
    CHECK(r.out.find("[1] NVIDIA GeForce RTX 4090 24GB, 64.00 GiB RAM") != std::string::npos);
    CHECK(r.out.find("[2] Apple M2 Max, 96.00 GiB unified memory") != std::string::npos);
    CHECK(r.out.find("Qwen3-8B, GGUF Q4_K_M") != std::string::npos);
    CHECK(r.out.find("Qwen3-8B, GGUF Q8_0") != std::string::npos);
    CHECK(r.out.find("fits · -ngl 37/37") != std::string::npos);  // Qwen3-8B: 36 layers + output, all on the GPU
}

TEST_CASE("compare: bad input names the machine, the part and the closest names") {
    const std::vector<std::string> base{"--compare", "--model", "qwen3-8b"};
    auto with = [&](std::vector<std::string> more) {
        std::vector<std::string> a = base;
        a.insert(a.end(), more.begin(), more.end());
        return a;
    };
    CHECK(refused_with(with({"--machine", "rtx-4090,ram=64GB", "--machine", "rtx-409+rtx-3060-12gb,ram=64GB"}),
                       "machine 2 (--machine \"rtx-409+rtx-3060-12gb,ram=64GB\"): gpus[0]: \"rtx-409\" is not a GPU preset (closest: "));
    CHECK(refused_with(with({"--machine", "rtx-409,ram=64GB"}), "\"rtx-4090\""));
    CHECK(refused_with(with({"--machine", "mac=m2-maxx,mem=96GB"}), "machine 1 (--machine \"mac=m2-maxx,mem=96GB\"): apple_chip: \"m2-maxx\" is not an Apple chip"));
    CHECK(refused_with(with({"--machine", "mac=m2-maxx,mem=96GB"}), "\"m2-max\""));
    CHECK(refused_with(with({"--machine", "rtx-4090"}), "machine 1 (--machine \"rtx-4090\"): no ram=SIZE"));
    CHECK(refused_with(with({"--machine", "rtx-4090,vram=24GB"}), "\"vram=24gb\" is not a part of a PC; give ram=SIZE"));
    CHECK(refused_with(with({"--machine", "mac=m2-max,ram=96GB"}), "\"ram=96gb\" is not a part of a Mac; give mem=SIZE"));
    CHECK(refused_with(with({"--machine", "rtx-4090,ram=lots"}), "\"ram=lots\": not a size"));
    CHECK(refused_with(with({"--machine", "rtx-4090,ram=64GB", "--weights", "q9_k"}), "--weights: \"q9_k\" is not a GGUF type"));
    CHECK(refused_with(with({"--machine", "rtx-4090,ram=64GB", "--ngl", "10"}), "--ngl, --n-cpu-moe"));
    CHECK(refused_with(with({"--machine", "rtx-4090,ram=64GB", "--engine", "vllm"}), "--compare is a llama.cpp flag"));
    CHECK(refused_with({"--compare", "--machine", "rtx-4090,ram=64GB"}, "--model: give the models to compare"));
    CHECK(refused_with(with({}), "--machine: give the machines to compare"));
    CHECK(refused_with({"--model", "qwen3-8b", "--gpu", "rtx-4090", "--ram", "64GB", "--machine", "rtx-4090,ram=64GB"}, "--machine goes with --compare"));
}

TEST_CASE("compare_grid: input errors name the field, and the cells are laid out by model, type, machine") {
    vl::CompareInput in;
    in.models = {{"a", {}}};
    in.weights = {vl::WeightFormat::GGUF_Q4_K_M};
    in.machines = {vl::LocalMachine{{"rtx-4090"}, 64.0 * (1 << 30), ""}, vl::LocalMachine{{"rtx-4090", "nope"}, 64.0 * (1 << 30), ""}};
    CHECK(vl::compare_grid(in).error.rfind("machines[1].gpus[1]: \"nope\" is not a GPU preset", 0) == 0);
    in.machines[1] = vl::LocalMachine{{}, 0, "m2-max"};
    CHECK(vl::compare_grid(in).error == "machines[1].ram_bytes: give the unified memory, e.g. 64 GiB");
    in.machines[1] = vl::LocalMachine{{"rtx-4090"}, 64.0 * (1 << 30), "m2-max"};
    CHECK(vl::compare_grid(in).error.rfind("machines[1].gpus: a Mac has one GPU", 0) == 0);
    in.machines[1] = vl::LocalMachine{{}, 64.0 * (1 << 30), ""};
    CHECK(vl::compare_grid(in).error.rfind("machines[1].gpus: give at least one GPU", 0) == 0);
    in.machines.pop_back();
    in.weights.push_back(vl::WeightFormat::GPTQ4);
    CHECK(vl::compare_grid(in).error.rfind("weights[1]: ", 0) == 0);
    in.weights.pop_back();
    in.engine = vl::LocalEngine::VLLM;
    CHECK(vl::compare_grid(in).error.rfind("engine: ", 0) == 0);
    in.engine = vl::LocalEngine::Ollama;
    in.models.clear();
    CHECK(vl::compare_grid(in).error.rfind("models: give 1 to 16", 0) == 0);
}
