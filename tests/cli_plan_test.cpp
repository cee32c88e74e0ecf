// `vramlens plan` (issue 19): the per-device placement, the launch lines and their flags checked
// against llama.cpp's documented flag list, and bad input naming the flag with close matches.
#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli.h"
#include "planner/speed.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace {

struct Out {
    int status;
    std::string out, err;
};
Out plan(std::vector<std::string> args) {
    args.insert(args.begin(), "plan");
    Out r;
    r.status = vl::cli::run(args, r.out, r.err);
    return r;
}

std::set<std::string> llama_server_flags() {
    std::ifstream f(std::string(VRAMLENS_TEST_DATA) + "/planner/llama_server_flags.txt");
    std::set<std::string> flags;
    for (std::string line; std::getline(f, line);)
        if (!line.empty() && line[0] != '#') flags.insert(line);
    return flags;
}

std::string line_starting(const std::string& text, const std::string& prefix) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (line.rfind(prefix, 0) == 0) return line;
    return {};
}

}  // namespace

TEST_CASE("cli plan: two GPUs, every emitted llama-server flag is one llama.cpp documents") {
    const std::set<std::string> known = llama_server_flags();
    REQUIRE(known.size() > 20);
    for (const std::vector<std::string>& extra : std::vector<std::vector<std::string>>{
             {}, {"--flash-attn", "--kv-type", "q8_0"}, {"--kv-type", "q4_0", "--flash-attn"}}) {
        std::vector<std::string> args = {"--model", "llama-3-8b", "--weights", "Q4_K_M", "--ctx", "8192", "--gpu", "rtx-4090",
                                         "--gpu", "rtx-3060-12gb", "--ram", "64GB"};
        args.insert(args.end(), extra.begin(), extra.end());
        const Out r = plan(args);
        INFO(r.err);
        REQUIRE(r.status == 0);
        const std::string launch = line_starting(r.out, "launch: llama-server ");
        REQUIRE_FALSE(launch.empty());
        CHECK(launch.find("-ngl 33 ") != std::string::npos);
        CHECK(launch.find("--tensor-split ") != std::string::npos);
        std::istringstream words(launch.substr(std::string("launch: llama-server ").size()));
        int flags = 0;
        for (std::string w; words >> w;)
            if (w[0] == '-' && !(w.size() > 1 && std::isdigit(static_cast<unsigned char>(w[1])))) {
                INFO(w);
                CHECK(known.count(w) == 1);
                ++flags;
            }
        CHECK(flags >= 6);
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
    const Out vllm = plan({"--engine", "vllm", "--model", "llama-3-8b", "--gpu", "rtx-4090", "--ram", "64GB"});
    CHECK(vllm.status == 1);
    CHECK(vllm.err.find("--engine:") != std::string::npos);
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
    CHECK_THAT(line, Catch::Contains(fmt::format("holdout error median {:.0f} %", cal.decode_gpu.holdout_median_error * 100)));
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
    CHECK_THAT(line_starting(m2.out, "decode ~"), Catch::Contains("Apple GPU (unified memory) has no published FP16 throughput"));
    const Out bad = plan({"--model", "llama-3-8b", "--apple", "--apple-chip", "m9", "--ram", "32GB"});
    CHECK(bad.status != 0);
    CHECK_THAT(bad.err, Catch::Contains("--apple-chip: \"m9\" is not an Apple chip"));
    const Out bw = plan({"--model", "llama-3-8b", "--gpu", "rtx-4090", "--ram", "64GB", "--ram-bandwidth", "-3"});
    CHECK(bw.status != 0);
    CHECK_THAT(bw.err, Catch::Contains("--ram-bandwidth:"));
}
