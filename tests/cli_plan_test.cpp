// `vramlens plan` (issue 19): the per-device placement, the launch lines and their flags checked
// against llama.cpp's documented flag list, and bad input naming the flag with close matches.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "checkpoint_files.h"
#include "plan_cli.h"
#include "cli.h"
#include "flag_list.h"
#include "planner/speed.h"

#include "text_format.h"
#include <nlohmann/json.hpp>

namespace {

using Out = vl::test::PlanOut;
Out plan(std::vector<std::string> args) { return vl::test::run_plan(std::move(args)); }

std::set<std::string> llama_server_flags() { return vl::test::documented_flags("llama_server_flags.txt"); }

bool refused_with(const std::vector<std::string>& args, const std::string& message) { return vl::test::plan_refused_with(args, message); }

using vl::test::write_temp_file;

using vl::test::line_starting;

}  // namespace

TEST_CASE("cli plan: two GPUs, every emitted llama-server flag is one llama.cpp documents") {
    const std::set<std::string> known = llama_server_flags();
    REQUIRE(known.size() > 20);
    for (const std::vector<std::string>& extra : std::vector<std::vector<std::string>>{
             {}, {"--flash-attn", "--kv-type", "q8_0"}, {"--kv-type", "q4_0", "--flash-attn"}, {"--no-kv-offload"}, {"--split-mode", "row"},
             {"--split-mode", "none", "--main-gpu", "1"}}) {
        std::vector<std::string> args = {"--model", "llama-3-8b", "--weights", "Q4_K_M", "--ctx", "8192", "--gpu", "rtx-4090",
                                         "--gpu", "rtx-3060-12gb", "--ram", "64GB"};
        args.insert(args.end(), extra.begin(), extra.end());
        const Out r = plan(args);
        INFO(r.err);
        REQUIRE(r.status == 0);
        const std::string launch = line_starting(r.out, "launch: llama-server ");
        REQUIRE_FALSE(launch.empty());
        CHECK(launch.find("-ngl 33 ") != std::string::npos);
        CHECK(launch.find(extra.size() > 2 && extra[1] == "none" ? "--main-gpu 1" : "--tensor-split ") != std::string::npos);
        const std::vector<std::string> flags = vl::test::command_flags(launch.substr(std::string("launch: llama-server ").size()));
        for (const std::string& w : flags) {
            INFO(w);
            CHECK(known.count(w) == 1);
        }
        CHECK(flags.size() >= 6);
    }
}

TEST_CASE("cli plan --format json: Llama-3-8B Q4_K_M on one GPU matches llama.cpp's load log") {
    // [lcpp-bllossom-log]: 33/33 layers, "CUDA0 buffer size = 4403.49 MiB", "CPU buffer size = 281.81 MiB";
    // KV at n_ctx 512: 32 * 512 * 2 * 8 * 128 * 2 B = 64 MiB.
    const Out r = plan({"--model", "llama-3-8b", "--weights", "q4_k_m", "--ctx", "512", "--gpu", "rtx-3090", "--ram", "32GB",
                        "--format", "json"});
    INFO(r.err);
    REQUIRE(r.status == 0);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["ngl"] == 33);
    CHECK(j["fits"] == true);
    const auto& gpu = j["devices"][0];
    const auto& cpu = j["devices"][1];
    CHECK(std::abs(gpu["weights_bytes"].get<double>() / 1048576 - 4403.49) < 0.01);
    CHECK(gpu["kv_bytes"].get<double>() == 64.0 * 1048576);
    CHECK(std::abs(cpu["weights_bytes"].get<double>() / 1048576 - 281.81) < 0.01);
    CHECK(j["launch"].get<std::string>().find("-ngl 33 -c 512 ") != std::string::npos);
}

TEST_CASE("cli plan --engine ollama prints num_gpu, num_ctx and the server's env") {
    const Out r = plan({"--engine", "ollama", "--model", "llama-3-8b", "--ctx", "4096", "--gpu", "rtx-4090", "--ram", "64GB",
                        "--flash-attn", "--kv-type", "q8_0"});
    REQUIRE(r.status == 0);
    CHECK(r.out.find("PARAMETER num_gpu 33") != std::string::npos);
    CHECK(r.out.find("PARAMETER num_ctx 4096") != std::string::npos);
    CHECK(r.out.find("OLLAMA_FLASH_ATTENTION=1 OLLAMA_KV_CACHE_TYPE=q8_0") != std::string::npos);
}

TEST_CASE("cli plan --engine ollama: every setting printed is one Ollama documents and a bf16 KV cache is refused") {
    const std::set<std::string> documented = vl::test::documented_flags("ollama_settings.txt");
    REQUIRE(documented.size() == 9);
    for (const char* kv : {"f16", "q8_0", "q4_0"})
        for (bool fa : {false, true}) {
            if (std::string(kv) != "f16" && !fa) continue;  // a quantized V cache needs flash attention
            std::vector<std::string> args = {"--engine", "ollama", "--model", "llama-3-8b", "--gpu", "rtx-4090", "--ram", "64GB", "--kv-type", kv};
            if (fa) args.push_back("--flash-attn");
            const Out r = plan(args);
            REQUIRE(r.status == 0);
            const std::string line = line_starting(r.out, "Ollama: ");
            REQUIRE(!line.empty());
            for (const char* param : {"PARAMETER num_gpu", "PARAMETER num_ctx"}) {
                CHECK(line.find(param) != std::string::npos);
                CHECK(documented.count(param) == 1);
            }
            std::istringstream env(line.substr(line.find("server env: ") + 12));
            int n = 0;
            for (std::string setting; env >> setting; ++n) CHECK(documented.count(setting) == 1);
            CHECK(n == (std::string(kv) == "f16" ? 1 : 2));
        }
    // -ub 256 is Ollama's num_batch (it passes -b 256 -ub 256); --split-mode none --main-gpu 1 its main_gpu; neither
    // --n-cpu-moe nor --tensor-split has an Ollama setting.
    const Out ub = plan({"--engine", "ollama", "--model", "qwen3-30b-a3b", "--gpu", "rtx-4090", "--gpu", "rtx-4090", "--ram", "64GB",
                         "--ubatch", "256", "--split-mode", "none", "--main-gpu", "1", "--n-cpu-moe", "4"});
    INFO(ub.err);
    REQUIRE(ub.status == 0);
    const std::string ub_line = line_starting(ub.out, "Ollama: ");
    for (const char* param : {"PARAMETER num_batch 256", "PARAMETER main_gpu 1"}) {
        CHECK(ub_line.find(param) != std::string::npos);
        CHECK(documented.count(std::string(param).substr(0, std::string(param).rfind(' '))) == 1);
    }
    CHECK(line_starting(ub.out, "Ollama cannot set: ").find("--n-cpu-moe") != std::string::npos);
    const Out bf16 = plan({"--engine", "ollama", "--model", "llama-3-8b", "--gpu", "rtx-4090", "--ram", "64GB", "--kv-type", "bf16"});
    CHECK(bf16.status == 1);
    CHECK(bf16.err.find("--kv-type: Ollama's OLLAMA_KV_CACHE_TYPE takes f16, q8_0 or q4_0, not bf16") != std::string::npos);
}

TEST_CASE("cli plan: bad input names the flag and the closest names") {
    const Out gpu = plan({"--model", "llama-3-8b", "--gpu", "rtx-4900", "--ram", "64GB"});
    CHECK(gpu.status == 1);
    CHECK(gpu.err.find("--gpu: \"rtx-4900\" is not a GPU preset (closest: \"rtx-4090\")") != std::string::npos);
    const Out w = plan({"--model", "llama-3-8b", "--weights", "q4_k_mm", "--gpu", "rtx-4090", "--ram", "64GB"});
    CHECK(w.status == 1);
    CHECK(w.err.find("--weights: \"q4_k_mm\"") != std::string::npos);
    CHECK(w.err.find("\"q4_k_m\"") != std::string::npos);
    const Out ram = plan({"--model", "llama-3-8b", "--gpu", "rtx-4090", "--ram", "lots"});
    CHECK(ram.status == 1);
    CHECK(ram.err.find("--ram:") != std::string::npos);
    const Out noram = plan({"--model", "llama-3-8b", "--gpu", "rtx-4090"});
    CHECK(noram.status == 1);
    CHECK(noram.err.find("--ram:") != std::string::npos);
    const Out kv = plan({"--model", "llama-3-8b", "--gpu", "rtx-4090", "--ram", "64GB", "--kv-type", "q8_0"});
    CHECK(kv.status == 1);
    CHECK(kv.err.find("kv-type:") != std::string::npos);
    const Out engine = plan({"--engine", "tgi", "--model", "llama-3-8b", "--gpu", "rtx-4090", "--ram", "64GB"});
    CHECK(engine.status == 1);
    CHECK(engine.err.find("--engine: \"tgi\" is not planned yet") != std::string::npos);
    const Out vllm_flag = plan({"--model", "llama-3-8b", "--gpu", "rtx-4090", "--ram", "64GB", "--max-model-len", "8192"});
    CHECK(vllm_flag.status == 1);
    CHECK(vllm_flag.err.find("--max-model-len is a vLLM/SGLang flag") != std::string::npos);
}

TEST_CASE("cli plan: a model that fits nowhere exits 3 and names a change that fits") {
    // Llama-3-70B Q4_K_M (about 40 GiB) on a 12 GB card with 16 GB of RAM.
    const Out r = plan({"--model", "llama-3-70b", "--weights", "q4_k_m", "--ctx", "8192", "--gpu", "rtx-3060-12gb", "--ram", "16GB"});
    CHECK(r.status == 3);
    CHECK(r.out.find("DOES NOT FIT") != std::string::npos);
    CHECK(r.err.find("does not fit") != std::string::npos);
    CHECK((r.err.find("weights q") != std::string::npos || r.err.find("more system RAM") != std::string::npos));
}

TEST_CASE("cli plan --n-cpu-moe: experts of the first N layers move to RAM and the flag is in the launch line") {
    const std::set<std::string> known = llama_server_flags();
    const std::vector<std::string> base = {"--model", "qwen3-30b-a3b", "--weights", "q4_k_m", "--ctx", "8192", "--gpu", "rtx-4090",
                                           "--ram", "64GB", "--ngl", "49", "--format", "json"};
    std::vector<std::string> moe = base;
    moe.insert(moe.end(), {"--n-cpu-moe", "20"});
    const Out all = plan(base), some = plan(moe);
    INFO(all.err << some.err);
    REQUIRE(all.status != 2);
    REQUIRE(some.status == 0);
    const nlohmann::json a = nlohmann::json::parse(all.out), b = nlohmann::json::parse(some.out);
    const double moved = a["devices"][0]["weights_bytes"].get<double>() - b["devices"][0]["weights_bytes"].get<double>();
    CHECK(moved > 0);
    CHECK(b["devices"][1]["weights_bytes"].get<double>() - a["devices"][1]["weights_bytes"].get<double>() == moved);
    const std::string launch = b["launch"];
    CHECK(launch.find(" --n-cpu-moe 20 ") != std::string::npos);
    CHECK(known.count("--n-cpu-moe") == 1);
}

TEST_CASE("cli plan: the speed line and its JSON, the band from the committed calibration, and what an Apple plan needs") {
    const Out r = plan({"--model", "llama-3-8b", "--ctx", "8192", "--gpu", "rtx-4090", "--ram", "64GB"});
    REQUIRE(r.status == 0);
    const std::string line = line_starting(r.out, "decode ~");
    REQUIRE_FALSE(line.empty());
    const vl::SpeedCalibration cal = vl::speed_calibration();
    CHECK_THAT(line, Catch::Contains(vl::format("holdout error median {:.0f} %", cal.decode_gpu.holdout_median_error * 100)));
    CHECK_THAT(line, Catch::Contains("time to first token") && Catch::EndsWith("at ctx 8192 (docs/speed.md)"));

    const Out j = plan({"--model", "llama-3-8b", "--ctx", "8192", "--gpu", "rtx-4090", "--ram", "64GB", "--format", "json"});
    REQUIRE(j.status == 0);
    const nlohmann::json doc = nlohmann::json::parse(j.out);
    const nlohmann::json& sp = doc.at("speed");
    // The JSON's decode speed is one over the sum of its devices' seconds and the hops'.
    double seconds = sp.at("hops").get<double>() * sp.at("hop_seconds").get<double>();
    for (const auto& d : sp.at("devices")) seconds += d.at("decode_seconds").get<double>();
    CHECK_THAT(sp.at("decode_tokens_per_s").get<double>(), Catch::Matchers::WithinRel(1 / seconds, 1e-12));
    CHECK(sp.at("prefill_tokens_per_s").get<double>() > 0);

    const Out mac = plan({"--model", "llama-3-8b", "--apple", "--ram", "32GB"});
    REQUIRE(mac.status == 0);
    CHECK_THAT(line_starting(mac.out, "speed: "), Catch::StartsWith("speed: apple-chip: name the chip"));
    const Out m2 = plan({"--model", "llama-3-8b", "--apple", "--apple-chip", "m2-max", "--ram", "32GB"});
    REQUIRE(m2.status == 0);
    // A Mac plan has a prefill estimate: the chip's GPU FLOP/s at the Apple prefill efficiency, with its band.
    CHECK_THAT(line_starting(m2.out, "decode ~"), Catch::Contains("prefill ~") && Catch::Contains("(holdout error median 3 %, worst 18 %), time to first"));
    const Out m2j = plan({"--model", "llama-3-8b", "--apple", "--apple-chip", "m2-max", "--ram", "32GB", "--format", "json"});
    REQUIRE(m2j.status == 0);
    const nlohmann::json m2doc = nlohmann::json::parse(m2j.out);
    const nlohmann::json& gpu = m2doc.at("speed").at("devices").at(0);
    // M2 Max (38-core GPU): 38 * 128 ALUs * 2 * 1.398e9 = 13.599744e12 FLOP/s, at the committed Apple prefill efficiency.
    CHECK_THAT(gpu.at("prefill_seconds").get<double>(),
               Catch::Matchers::WithinRel(gpu.at("flops_per_token").get<double>() / (vl::speed_calibration().prefill_apple.efficiency * 13.599744e12), 1e-12));
    const Out bad = plan({"--model", "llama-3-8b", "--apple", "--apple-chip", "m9", "--ram", "32GB"});
    CHECK(bad.status != 0);
    CHECK_THAT(bad.err, Catch::Contains("--apple-chip: \"m9\" is not an Apple chip"));
    const Out bw = plan({"--model", "llama-3-8b", "--gpu", "rtx-4090", "--ram", "64GB", "--ram-bandwidth", "-3"});
    CHECK(bw.status != 0);
    CHECK_THAT(bw.err, Catch::Contains("--ram-bandwidth:"));
}

// ---- --engine vllm (core/planner/serving.h) ---------------------------------------------------

TEST_CASE("cli plan --engine vllm: two H100s, tp 2, the KV pool and a launch line of documented flags") {
    const Out r = plan({"--engine", "vllm", "--model", "llama-3-8b", "--gpu", "h100-80gb", "--gpu", "h100-80gb", "--max-model-len", "8192",
                        "--kv-cache-dtype", "fp8", "--max-num-seqs", "128", "--format", "json"});
    INFO(r.err);
    REQUIRE(r.status == 0);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["tensor_parallel_size"] == 2);
    CHECK(j["pipeline_parallel_size"] == 1);
    CHECK(j["fits"] == true);
    // fp8 KV at tp 2: 2 * 32 layers * 4 KV heads * 128 * 1 B = 32768 B per token on each GPU.
    CHECK(j["per_gpu"]["kv_bytes_per_token"] == 32768.0);
    const int64_t blocks = j["kv"]["blocks_per_gpu"];
    CHECK(j["kv"]["tokens"] == blocks * 16);
    CHECK(j["kv"]["sequences_at_max_model_len"] == blocks / 512);  // 8192 / 16 = 512 blocks a sequence
    const std::string launch = j["launch"];
    CHECK(launch.rfind("vllm serve meta-llama/Meta-Llama-3-8B --tensor-parallel-size 2 --max-model-len 8192 ", 0) == 0);
    const std::set<std::string> known = vl::test::documented_flags("vllm_serve_flags.txt");
    const std::vector<std::string> flags = vl::test::command_flags(launch);
    for (const std::string& w : flags) {
        INFO(w);
        CHECK(known.count(w) == 1);
    }
    CHECK(flags.size() == 5);  // tp, max-model-len, utilization, kv-cache-dtype, max-num-seqs
}

TEST_CASE("cli plan --engine vllm: text output and a --max-model-len too long for the card") {
    // Llama-3.1-8B's own length (131072) in bf16 on one RTX 4090: the profile run alone outgrows it.
    const Out r = plan({"--engine", "vllm", "--model", "llama-3.1-8b", "--gpu", "rtx-4090"});
    CHECK(r.status == 3);
    CHECK(r.out.find("--max-model-len 131072 DOES NOT FIT") != std::string::npos);
    CHECK(r.err.find("(the longest that fits)") != std::string::npos);
    CHECK(line_starting(r.out, "launch: vllm serve meta-llama/") != "");
}

TEST_CASE("cli plan --engine vllm: bad input names the flag") {
    const Out mixed = plan({"--engine", "vllm", "--model", "llama-3-8b", "--gpu", "rtx-4090", "--gpu", "rtx-3060-12gb"});
    CHECK(mixed.status == 1);
    CHECK(mixed.err.find("gpu: vLLM needs equal GPUs; got NVIDIA GeForce RTX 4090 24GB and NVIDIA GeForce RTX 3060 12GB") != std::string::npos);
    const Out ngl = plan({"--engine", "vllm", "--model", "llama-3-8b", "--gpu", "rtx-4090", "--ngl", "10"});
    CHECK(ngl.status == 1);
    CHECK(ngl.err.find("--ngl is a llama.cpp flag") != std::string::npos);
    const Out tp = plan({"--engine", "vllm", "--model", "llama-3-8b", "--gpu", "a10", "--gpu", "a10", "--gpu", "a10", "--tp", "3"});
    CHECK(tp.status == 1);
    CHECK(tp.err.find("tp: vLLM needs num_attention_heads (32) divisible by the tensor-parallel size (3)") != std::string::npos);
    const Out util = plan({"--engine", "vllm", "--model", "llama-3-8b", "--gpu", "rtx-4090", "--gpu-memory-utilization", "1.5"});
    CHECK(util.status == 1);
    CHECK(util.err.find("--gpu-memory-utilization:") != std::string::npos);
    const Out kv = plan({"--engine", "vllm", "--model", "llama-3-8b", "--gpu", "rtx-4090", "--kv-cache-dtype", "q8_0"});
    CHECK(kv.status == 1);
    CHECK(kv.err.find("--kv-cache-dtype: \"q8_0\" is not a vLLM KV cache dtype") != std::string::npos);
    const Out w = plan({"--engine", "vllm", "--model", "llama-3-8b", "--gpu", "rtx-4090", "--weights", "q4_k_m"});
    CHECK(w.status == 1);
    CHECK(w.err.find("weights: vLLM serves") != std::string::npos);
    const Out awq = plan({"--engine", "vllm", "--model", "llama-3-8b", "--gpu", "rtx-4090", "--weights", "awq4bit"});
    CHECK(awq.status == 1);
    CHECK(awq.err.find("--weights: \"awq4bit\" is not a weight format (closest: \"awq-4bit\")") != std::string::npos);
}

TEST_CASE("cli plan --help lists the vLLM and SGLang flags") {
    const Out r = plan({"--help"});
    REQUIRE(r.status == 0);
    for (const char* flag : {"--max-model-len", "--gpu-memory-utilization", "--kv-cache-dtype", "--max-num-seqs", "--tp", "--pp",
                             "--context-length", "--mem-fraction-static", "--max-running-requests"}) {
        INFO(flag);
        CHECK(r.out.find(flag) != std::string::npos);
    }
    CHECK(r.out.find("vllm") != std::string::npos);
    CHECK(r.out.find("sglang") != std::string::npos);
}

TEST_CASE("cli plan --engine sglang: the token pool, SGLang's flag names and a launch line of documented flags") {
    const Out r = plan({"--engine", "sglang", "--model", "llama-3-8b", "--gpu", "h100-80gb", "--gpu", "h100-80gb", "--context-length", "8192",
                        "--mem-fraction-static", "0.85", "--max-running-requests", "64", "--format", "json"});
    INFO(r.err);
    REQUIRE(r.status == 0);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["engine"] == "sglang");
    CHECK(j["tensor_parallel_size"] == 2);
    CHECK(j["kv"]["block_size"] == 1);
    CHECK(j["per_gpu"]["kv_bytes_per_token"] == 65536.0);  // 2 * 32 * 4 * 128 * 2
    const std::string launch = j["launch"];
    CHECK(launch == "python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B --tp 2 --context-length 8192 "
                    "--mem-fraction-static 0.85 --max-running-requests 64");
    const std::set<std::string> known = vl::test::documented_flags("sglang_server_flags.txt");
    for (const std::string& w : vl::test::command_flags(launch.substr(std::string("python -m sglang.launch_server").size()))) {
        INFO(w);
        CHECK(known.count(w) == 1);
    }
    const Out pp = plan({"--engine", "sglang", "--model", "llama-3-8b", "--gpu", "h100-80gb", "--ngl", "3"});
    CHECK(pp.status == 1);
    CHECK(pp.err.find("--ngl is a llama.cpp flag; SGLang places whole layers by --tp on equal GPUs") != std::string::npos);
}

TEST_CASE("cli plan --rank: which model fits best, one line per model, JSON rows, and its flags' errors") {
    const Out r = plan({"--rank", "--gpu", "rtx-4090", "--ram", "64GB", "--model", "llama-3.1-8b", "--model", "llama-3.1-70b",
                        "--model", "qwen3-4b", "--weights", "q8_0", "--weights", "q4_k_m"});
    REQUIRE(r.status == 0);
    CHECK(line_starting(r.out, "  1. ").rfind("  1. Llama-3.1-8B, GGUF Q8_0: 8.0B parameters", 0) == 0);
    CHECK(line_starting(r.out, "  2. ").rfind("  2. Qwen3-4B, GGUF Q8_0", 0) == 0);
    CHECK(line_starting(r.out, "  3. ").empty());
    CHECK(line_starting(r.out, "Not ranked: ") == "Not ranked: too slow 1 (each model's best type; --all lists every model x type and why).");

    const Out j = plan({"--rank", "--gpu", "rtx-4090", "--ram", "64GB", "--model", "qwen3-4b", "--weights", "q4_k_m", "--all", "--format", "json"});
    REQUIRE(j.status == 0);
    const nlohmann::json doc = nlohmann::json::parse(j.out);
    REQUIRE(doc["rows"].size() == 1);
    CHECK(doc["rows"][0]["id"] == "qwen3-4b");
    CHECK(doc["rows"][0]["loss"] == "small");
    CHECK(doc["rows"][0]["verdict"] == "ranked");
    CHECK(doc["rows"][0]["ngl"] == 37);

    CHECK(plan({"--gpu", "rtx-4090", "--ram", "64GB", "--model", "qwen3-4b", "--min-speed", "5"}).err.find("go with --rank") != std::string::npos);
    CHECK(plan({"--rank", "--gpu", "rtx-4090", "--ram", "64GB", "--since", "2024-13"}).err.find("--since: \"2024-13\" is not a month") != std::string::npos);
    CHECK(plan({"--rank", "--gpu", "rtx-4090", "--ram", "64GB", "--max-loss", "tiny"}).err.find("--max-loss: \"tiny\" is not a loss class") != std::string::npos);
    CHECK(plan({"--rank", "--gpu", "rtx-4090", "--ram", "64GB", "--weights", "nf4"}).err.find("--weights: \"nf4\" is not a GGUF type") != std::string::npos);
    CHECK(plan({"--rank", "--apple", "--ram", "64GB"}).err.find("--apple-chip: --rank needs the chip") != std::string::npos);
}

TEST_CASE("cli plan --no-kv-offload: the KV moves to the CPU row, the JSON says so, Ollama says it cannot") {
    // Llama-3-8B at n_ctx 512: KV 32 layers * 512 * 2 * 8 * 128 * 2 B = 64 MiB, now in system RAM.
    const Out r = plan({"--model", "llama-3-8b", "--ctx", "512", "--gpu", "rtx-3090", "--ram", "32GB", "--no-kv-offload", "--format", "json"});
    INFO(r.err);
    REQUIRE(r.status == 0);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["kv_offload"] == false);
    CHECK(j["devices"][0]["kv_bytes"].get<double>() == 0);
    CHECK(j["devices"][1]["kv_bytes"].get<double>() == 64.0 * 1048576);
    CHECK(j["launch"].get<std::string>().find(" -nkvo") != std::string::npos);
    const Out o = plan({"--engine", "ollama", "--model", "llama-3-8b", "--ctx", "512", "--gpu", "rtx-3090", "--ram", "32GB", "--no-kv-offload"});
    REQUIRE(o.status == 0);
    CHECK(line_starting(o.out, "Ollama cannot set: -nkvo").size() > 0);
    CHECK(o.out.find("KV of every layer") != std::string::npos);
}

TEST_CASE("cli plan --split-mode row: JSON split buffers, the mode in text and JSON, and bad values name the flag") {
    const Out r = plan({"--model", "llama-3-8b", "--gpu", "rtx-4090", "--gpu", "rtx-3060-12gb", "--ram", "64GB", "--split-mode", "row",
                        "--tensor-split", "1,1", "--format", "json"});
    INFO(r.err);
    REQUIRE(r.status == 0);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["split_mode"] == "row");
    CHECK(j["main_gpu"] == 0);
    // Llama-3-8B's 32 layers split 1,1: 17 on the RTX 4090 (il / 33 < .5), 15 and the output on the 3060;
    // each GPU holds rows of all of them, so both split buffers are set and the CPU's is not.
    CHECK(j["devices"][0]["layers"] == nlohmann::json::array({0, 17}));
    CHECK(j["devices"][0]["split_buffer_bytes"].get<double>() > 0);
    CHECK(j["devices"][1]["split_buffer_bytes"].get<double>() > 0);
    CHECK(j["devices"][2]["split_buffer_bytes"].get<double>() == 0);
    CHECK(j["launch"].get<std::string>().find("--split-mode row --tensor-split 0.5,0.5") != std::string::npos);
    const Out text = plan({"--model", "llama-3-8b", "--gpu", "rtx-4090", "--gpu", "rtx-3060-12gb", "--ram", "64GB", "--split-mode", "row"});
    CHECK(line_starting(text.out, "tensor split: ").find("--split-mode row") != std::string::npos);
    // A decode speed with the row-split band (docs/speed.md), and a prefill speed with the row-split prefill band.
    const vl::Regime row = vl::speed_calibration().decode_row;
    const vl::Regime row_prefill = vl::speed_calibration().prefill_row;
    const std::string speed = line_starting(text.out, "decode ~");
    CHECK(speed.find(vl::format("(holdout error median {:.0f} %, worst {:.0f} %)", row.holdout_median_error * 100, row.holdout_worst_error * 100)) !=
          std::string::npos);
    CHECK(speed.find(vl::format("tok/s (holdout error median {:.0f} %, worst {:.0f} %), time to first token", row_prefill.holdout_median_error * 100,
                                 row_prefill.holdout_worst_error * 100)) != std::string::npos);
    CHECK(refused_with({"--model", "llama-3-8b", "--gpu", "rtx-4090", "--ram", "64GB", "--split-mode", "rows"}, "--split-mode: \"rows\""));
    CHECK(refused_with({"--model", "llama-3-8b", "--gpu", "rtx-4090", "--gpu", "rtx-3060-12gb", "--ram", "64GB", "--main-gpu", "1"},
                       "main-gpu: llama.cpp reads --main-gpu only with --split-mode none"));
}

TEST_CASE("cli plan --mmproj: the projector GGUF's tensor bytes on the first GPU, or in RAM with --no-mmproj-offload") {
    // A tiny CLIP projector written here (tests/checkpoint_files.h): v.patch_embd F16 [14, 14, 3, 64]
    // 37632 weights * 2 = 75264 B; v.blk.0.attn_q F16 [64, 64] 8192 B; v.blk.0.ln1 F32 [64] 256 B;
    // mm.0 Q8_0 [64, 256] 16384 / 32 * 34 = 17408 B; in all 101120 B.
    constexpr uint32_t F32 = 0, F16 = 1, Q8_0 = 8;
    vl::test::GgufWriter w;
    w.string("general.architecture", "clip");
    w.u32("clip.vision.image_size", 224);
    w.u32("clip.vision.patch_size", 14);
    w.u32("clip.vision.embedding_length", 64);
    w.u32("clip.vision.block_count", 1);
    w.tensor("v.patch_embd.weight", {14, 14, 3, 64}, F16, 75264);
    w.tensor("v.blk.0.attn_q.weight", {64, 64}, F16, 8192);
    w.tensor("v.blk.0.ln1.weight", {64}, F32, 256);
    w.tensor("mm.0.weight", {64, 256}, Q8_0, 17408);
    const std::filesystem::path file = write_temp_file("mmproj-tiny.gguf", w.file());
    const std::vector<std::string> base = {"--model", "llama-3-8b", "--ctx", "512", "--gpu", "rtx-4090", "--gpu", "rtx-3060-12gb",
                                           "--ram", "32GB", "--mmproj", file.string()};
    std::vector<std::string> args = base;
    args.insert(args.end(), {"--format", "json"});
    const Out r = plan(args);
    INFO(r.err);
    REQUIRE(r.status == 0);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["mmproj_bytes"].get<double>() == 101120);
    CHECK(j["devices"][0]["mmproj_bytes"].get<double>() == 101120);
    CHECK(j["devices"][1]["mmproj_bytes"].get<double>() == 0);
    CHECK(j["devices"][2]["mmproj_bytes"].get<double>() == 0);
    const std::string launch = j["launch"];
    CHECK(launch.find(" --mmproj " + file.string()) != std::string::npos);
    const std::set<std::string> known = llama_server_flags();
    for (const std::string& f : vl::test::command_flags(launch.substr(std::string("llama-server ").size()))) {
        INFO(f);
        CHECK(known.count(f) == 1);
    }
    args.push_back("--no-mmproj-offload");
    const Out cpu = plan(args);
    REQUIRE(cpu.status == 0);
    const nlohmann::json c = nlohmann::json::parse(cpu.out);
    CHECK(c["mmproj_offload"] == false);
    CHECK(c["devices"][0]["mmproj_bytes"].get<double>() == 0);
    CHECK(c["devices"][2]["mmproj_bytes"].get<double>() == 101120);
    CHECK(c["launch"].get<std::string>().find("--no-mmproj-offload") != std::string::npos);
    std::filesystem::remove(file);
    const Out text = plan({"--model", "llama-3-8b", "--gpu", "rtx-4090", "--ram", "32GB", "--mmproj-bytes", "1GB"});
    REQUIRE(text.status == 0);
    CHECK(text.out.find("vision projector 1.00 GiB") != std::string::npos);
    CHECK(refused_with({"--model", "llama-3-8b", "--gpu", "rtx-4090", "--ram", "32GB", "--mmproj-bytes", "big"}, "--mmproj-bytes: \"big\" is not a size"));
    CHECK(refused_with({"--model", "llama-3-8b", "--gpu", "rtx-4090", "--ram", "32GB", "--no-mmproj-offload"}, "no-mmproj-offload: there is no projector"));
    CHECK(plan({"--model", "llama-3-8b", "--gpu", "rtx-4090", "--ram", "32GB", "--mmproj", "/nonexistent/mmproj.gguf"}).status != 0);
}

TEST_CASE("cli plan --mmproj: the image encoder's compute buffers from the projector's clip.vision keys, --image-max-tokens") {
    // tests/checkpoint_files.h's Qwen-VL-style projector: 1163563008 B of encoder compute on the first GPU, 26136832 B in RAM.
    const std::filesystem::path file = write_temp_file("mmproj-qwen.gguf", vl::test::qwen_projector_gguf().file());
    const std::vector<std::string> base = {"--model", "llama-3-8b", "--ctx", "512", "--gpu", "rtx-4090", "--ram", "32GB", "--mmproj", file.string()};
    std::vector<std::string> args = base;
    args.insert(args.end(), {"--format", "json"});
    const Out r = plan(args);
    INFO(r.err);
    REQUIRE(r.status == 0);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["devices"][0]["mmproj_compute_bytes"].get<double>() == vl::test::kQwenEncoderDevice);
    CHECK(j["devices"][1]["mmproj_compute_bytes"].get<double>() == vl::test::kQwenEncoderHost);
    const Out text = plan(base);
    REQUIRE(text.status == 0);
    CHECK(text.out.find("image encoder (qwen3vl_merger): a 1472 x 1472 px image, 8464 patches") != std::string::npos);
    // --image-max-tokens 4096: 64 * 2 * 16 = 2048 px, 16384 patches; with --flash-attn no scores:
    // 16384 * 4 * (256 + 192) = 29360128 B; the flag is in the launch line.
    args.insert(args.end(), {"--image-max-tokens", "4096", "--flash-attn"});
    const Out big = plan(args);
    REQUIRE(big.status == 0);
    const nlohmann::json b = nlohmann::json::parse(big.out);
    CHECK(b["devices"][0]["mmproj_compute_bytes"].get<double>() == 29360128);
    CHECK(b["launch"].get<std::string>().find(" --image-max-tokens 4096") != std::string::npos);
    std::filesystem::remove(file);
    // Only the size: the encoder is unknown and the output says so.
    const Out bytes = plan({"--model", "llama-3-8b", "--gpu", "rtx-4090", "--ram", "32GB", "--mmproj-bytes", "1GB"});
    CHECK(bytes.out.find("image encoder: its compute buffer is not planned (--mmproj-bytes gives no encoder shape") != std::string::npos);
    CHECK(refused_with({"--model", "llama-3-8b", "--gpu", "rtx-4090", "--ram", "32GB", "--mmproj-bytes", "1GB", "--image-max-tokens", "1024"},
                       "image-max-tokens: needs the projector's encoder"));
}

TEST_CASE("cli plan: an MoE model split by -ngl also prints the --n-cpu-moe plan and its launch line, with documented flags") {
    // Qwen3-30B-A3B Q4_K_M (about 17 GiB of weights) cannot sit whole on a 12 GB card: -ngl keeps some layers in RAM,
    // and keeping only the routed experts of the first layers there is the other plan llama.cpp offers.
    const Out r = plan({"--model", "qwen3-30b-a3b", "--gpu", "rtx-3060-12gb", "--ram", "64GB", "--ctx", "8192", "--format", "json"});
    INFO(r.err);
    REQUIRE(r.status == 0);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    REQUIRE(j["ngl"].get<int64_t>() < 49);  // 48 layers + output
    REQUIRE(j.contains("moe_alternative"));
    CHECK(j["moe_alternative"]["ngl"] == 49);
    const int64_t n = j["moe_alternative"]["n_cpu_moe"].get<int64_t>();
    CHECK(n >= 1);
    CHECK(n <= 48);
    const std::string launch = j["moe_alternative"]["launch"];
    CHECK(launch.find(" --n-cpu-moe " + std::to_string(n) + " ") != std::string::npos);
    const std::set<std::string> known = llama_server_flags();
    for (const std::string& f : vl::test::command_flags(launch.substr(std::string("llama-server ").size()))) {
        INFO(f);
        CHECK(known.count(f) == 1);
    }
    // Ollama has no setting for it: no alternative there.
    const Out o = plan({"--engine", "ollama", "--model", "qwen3-30b-a3b", "--gpu", "rtx-3060-12gb", "--ram", "64GB", "--ctx", "8192", "--format", "json"});
    REQUIRE(o.status == 0);
    CHECK_FALSE(nlohmann::json::parse(o.out).contains("moe_alternative"));
}

TEST_CASE("cli plan --rank: an MoE row is the --n-cpu-moe plan with llama.cpp when faster, never with Ollama") {
    // Qwen3-30B-A3B Q4_K_M on a 12 GB card: the layer split leaves layers in RAM (the test above), and keeping only
    // experts in RAM decodes faster; Ollama has no such setting, so its row stays the -ngl split.
    const std::vector<std::string> base = {"--rank", "--model", "qwen3-30b-a3b", "--weights", "q4_k_m", "--gpu", "rtx-3060-12gb",
                                           "--ram", "64GB", "--ctx", "8192", "--format", "json"};
    const Out l = plan(base);
    INFO(l.err);
    REQUIRE(l.status == 0);
    const nlohmann::json lr = nlohmann::json::parse(l.out)["rows"];
    REQUIRE(lr.size() == 1);
    CHECK(lr[0]["n_cpu_moe"].get<int64_t>() > 0);
    CHECK(lr[0]["ngl"] == 49);
    std::vector<std::string> args = base;
    args.insert(args.begin(), {"--engine", "ollama"});
    const Out o = plan(args);
    INFO(o.err);
    REQUIRE(o.status == 0);
    const nlohmann::json orows = nlohmann::json::parse(o.out)["rows"];
    REQUIRE(orows.size() == 1);
    CHECK_FALSE(orows[0].contains("n_cpu_moe"));
    CHECK(orows[0]["ngl"].get<int64_t>() < 49);
}
