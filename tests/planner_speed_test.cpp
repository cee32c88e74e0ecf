// The speed of a local plan (core/planner/speed.h): the decode roofline and prefill FLOPs worked by
// hand on planner_test.cpp's tiny model, the MoE active share, the split over devices adding times,
// and the committed calibration against its recomputation from the benchmark table (docs/speed.md).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "accuracy_report.h"
#include "inference_models.h"
#include "planner_fixtures.h"
#include "model/presets.h"
#include "param_count.h"
#include "planner/planner.h"
#include "planner/speed.h"
#include "speed_report.h"

using namespace vl;
using Catch::Matchers::WithinRel;

namespace {
constexpr double kGiB = 1024.0 * 1024 * 1024;

// planner_test.cpp's tiny model: 4 layers, d 256, 4 heads of 64, MLP 512, vocab 1024, Q8_0: a layer is
// 698368 B, the output 279552 B, token_embd 278528 B (CPU), KV f16 1024 B per token and layer.
PlanInput tiny(int64_t ctx) {
    PlanInput in;
    in.model = test::llama("tiny", 1024, 256, 4, 4, 4, 512, 65536);
    in.weights = WeightFormat::GGUF_Q8_0;
    in.context = ctx;
    in.ram_bytes = 64 * kGiB;
    return in;
}

SpeedInput half_efficiency() {
    SpeedInput s;
    s.calibration.decode_gpu = s.calibration.decode_cpu_apple = s.calibration.prefill = Regime{0.5, 0, 0};
    s.link_bandwidth = 1.024e9;  // a hop: 256 * 4 B / 1.024e9 B/s = 1e-6 s
    return s;
}
// One GPU of 1e12 B/s and 1e12 FLOP/s at half efficiency.
Speed one_gpu_speed(const PlanInput& in, const Plan& p) {
    SpeedInput s = half_efficiency();
    s.gpu_bandwidth = {1e12};
    s.gpu_flops = {1e12};
    return plan_speed(in, p, s);
}
}  // namespace

TEST_CASE("speed: roofline, MoE share, prefill FLOPs and a hop, by hand") {
    CHECK(roofline_seconds(4e9, 1e12, 0.5) == 0.008);              // 4e9 / (0.5 * 1e12)
    CHECK(active_weight_bytes(10e9, 8e9, 2, 8) == 4e9);            // 10e9 - 8e9 * (1 - 2/8)
    CHECK(active_weight_bytes(10e9, 0, 0, 0) == 10e9);             // dense: every byte
    CHECK(prefill_flops_per_token(7e9, 32, 512, 4096) == 14268435456.0);  // 2 * 7e9 + 4 * 32 * 512 * 4096
    CHECK(hop_seconds(4096, 32e9) == 4096.0 * 4 / 32e9);
    CHECK(kDefaultRamBandwidth == 89.6e9);                         // 2 * 8 B * 5600e6
    // Row split: 450 round trips of 40 us shared by a 128-token chunk, + 6.4 MB per token at 32 GB/s: 1.40625e-4 + 2e-4 s.
    CHECK_THAT(row_round_trip_seconds(450, 4e-5, 128, 6.4e6, 32e9), WithinRel(3.40625e-4, 1e-12));
    CHECK_THAT(row_round_trip_seconds(450, 4e-5, 1, 6.4e6, 32e9), WithinRel(0.018 + 2e-4, 1e-12));  // decode: one token a trip
}

TEST_CASE("speed: one GPU, the tiny model at ctx 1024, decode and prefill by hand") {
    PlanInput in = tiny(1024);
    in.gpus = {{"g", 24 * kGiB, 0}};
    const Plan p = place_llamacpp(in, 5, 1024);
    REQUIRE(p.fits);
    const Speed sp = one_gpu_speed(in, p);
    REQUIRE(sp.ok());
    // GPU: 4 * 698368 + 279552 + KV 4 * 1024 * 1024 = 7267328 B per token; CPU: token_embd only, not streamed.
    CHECK(sp.devices[0].bytes_per_token == 7267328);
    CHECK(sp.devices[1].bytes_per_token == 0);
    // 7267328 / (0.5 * 1e12) = 1.4534656e-5 s, + one hop (CPU -> GPU) 1e-6 s.
    CHECK(sp.hops == 1);
    CHECK_THAT(1 / sp.decode_tokens_per_s, WithinRel(1.5534656e-5, 1e-12));
    // Prefill per token: active params 4 * (4 * 256^2 + 3 * 256 * 512 + 2 * 256) + 1024 * 256 = 2885632;
    // 2 * 2885632 + 4 * 4 layers * 1024 ctx * 256 d_attn = 9965568 FLOPs; / (0.5 * 1e12) = 1.9931136e-5 s.
    CHECK(sp.devices[0].flops_per_token == 9965568);
    CHECK_THAT(1 / sp.prefill_tokens_per_s, WithinRel(1.9931136e-5, 1e-12));
    // Time to first token: 1024 prompt tokens of prefill, then one decoded token.
    CHECK_THAT(sp.time_to_first_token_s, WithinRel(1024 * 1.9931136e-5 + 1.5534656e-5, 1e-12));
}

TEST_CASE("speed: an Apple GPU's FLOP/s are cores x 128 ALUs x 2 x clock, and a Mac's prefill takes the Apple efficiency") {
    // M2 Max (38-core GPU) at 1398 MHz: 38 * 128 * 2 * 1.398e9 = 13.599744e12 FLOP/s; the 30-core one 30/38 of it.
    const AppleChip* m2max = find_apple_chip("m2-max");
    REQUIRE(m2max);
    CHECK(m2max->gpu_cores == 38);
    CHECK_THAT(apple_gpu_flops(*m2max), WithinRel(13.599744e12, 1e-12));
    CHECK(find_apple_chip("m2-max-30c")->gpu_cores == 30);
    CHECK(find_apple_chip("m2-max-30c")->memory_bandwidth == 400e9);  // the same chip, fewer GPU cores
    for (const AppleChip& c : apple_chips()) {
        INFO(c.id);
        CHECK(c.gpu_cores > 0);
        CHECK(c.gpu_clock_hz > 0);
    }
    // M1 (8-core GPU) at 1278 MHz: 8 * 256 * 1.278e9 = 2.617344e12, Apple's "2.6 teraflops".
    CHECK_THAT(apple_gpu_flops(*find_apple_chip("m1")), WithinRel(2.617344e12, 1e-12));
    // The tiny model on a 16 GB Mac, every layer on the GPU: 9965568 FLOPs per token (the one-GPU case above) at the
    // Apple efficiency 0.25 of 1e12 FLOP/s = 3.9862272e-5 s; the discrete-GPU prefill efficiency (0.5) is not used.
    PlanInput in = tiny(1024);
    in.apple_unified = true;
    in.ram_bytes = 16 * kGiB;
    const Plan p = plan_llamacpp(in);
    REQUIRE(p.ok());
    SpeedInput s = half_efficiency();
    s.calibration.prefill_apple = Regime{0.25, 0.07, 0.2};
    s.gpu_bandwidth = {1e11};
    s.gpu_flops = {1e12};
    s.ram_bandwidth = 1e11;
    const Speed sp = plan_speed(in, p, s);
    REQUIRE(sp.ok());
    CHECK(sp.devices[0].flops_per_token == 9965568);
    CHECK_THAT(1 / sp.prefill_tokens_per_s, WithinRel(3.9862272e-5, 1e-12));
    CHECK(sp.prefill_band.holdout_median_error == 0.07);  // the Apple prefill band
    CHECK(sp.prefill_band.holdout_worst_error == 0.2);
}

TEST_CASE("speed: layers split over two GPUs add their times and a hop each") {
    PlanInput in = tiny(1024);
    in.gpus = {{"fast", 24 * kGiB, 0}, {"slow", 24 * kGiB, 0}};
    in.tensor_split = {1, 1};
    const Plan p = place_llamacpp(in, 5, 1024);  // layers 0-2 on "fast", layer 3 + output on "slow"
    REQUIRE(p.gpus[0].layer_end == 3);
    SpeedInput s = half_efficiency();
    s.gpu_bandwidth = {1e12, 0.5e12};
    s.gpu_flops = {1e12, 1e12};
    const Speed sp = plan_speed(in, p, s);
    REQUIRE(sp.ok());
    // fast: 3 * 698368 + 3 * 1048576 = 5240832 B / 5e11 = 1.0481664e-5 s;
    // slow: 698368 + 279552 + 1048576 = 2026496 B / 2.5e11 = 8.105984e-6 s; hops CPU -> fast -> slow: 2e-6 s.
    CHECK(sp.devices[0].bytes_per_token == 5240832);
    CHECK(sp.devices[1].bytes_per_token == 2026496);
    CHECK(sp.hops == 2);
    CHECK_THAT(1 / sp.decode_tokens_per_s, WithinRel(1.0481664e-5 + 8.105984e-6 + 2e-6, 1e-12));
}

TEST_CASE("speed: an MoE token reads top_k of the routed experts, wherever --n-cpu-moe puts them") {
    PlanInput in;
    in.model = find_model("qwen3-30b-a3b")->spec;  // 128 experts, top 8
    REQUIRE(in.model.moe.num_experts == 128);
    REQUIRE(in.model.moe.top_k == 8);
    in.context = 4096;
    in.ram_bytes = 64 * kGiB;
    in.n_cpu_moe = 10;
    in.gpus = {{"g", 80 * kGiB, 0}};
    const Plan p = place_llamacpp(in, in.model.layers + 1, 4096);
    double gpu_experts = 0, cpu_experts = 0;
    for (int64_t il = 0; il < in.model.layers; ++il) (il < 10 ? cpu_experts : gpu_experts) += llamacpp_layer_expert_bytes(in, il);
    REQUIRE(gpu_experts > 0);
    SpeedInput s;
    s.gpu_bandwidth = {1e12};
    s.gpu_flops = {1e14};
    const Speed sp = plan_speed(in, p, s);
    REQUIRE(sp.ok());
    // 1 - 8/128 = 0.9375 of the routed experts' bytes are not read.
    CHECK_THAT(sp.devices[0].bytes_per_token, WithinRel(p.gpus[0].weights - 0.9375 * gpu_experts + p.gpus[0].kv, 1e-12));
    CHECK_THAT(sp.devices[1].bytes_per_token,
               WithinRel(p.cpu.weights - llamacpp_embedding_weight_bytes(in) - 0.9375 * cpu_experts, 1e-12));
    CHECK(sp.hops == 1 + 2 * 10);  // CPU -> GPU, and out to the CPU and back for each of the 10 layers
}

TEST_CASE("speed: a GPU without a published bandwidth, or an Apple plan without its chip, says what to give") {
    PlanInput in = tiny(1024);
    in.gpus = {{"g", 24 * kGiB, 0}};
    const Plan p = place_llamacpp(in, 5, 1024);
    SpeedInput s;
    s.gpu_bandwidth = {0};
    s.gpu_flops = {0};
    CHECK_THAT(plan_speed(in, p, s).error, Catch::Contains("gpu 1 (g): no published memory bandwidth"));
    s.gpu_bandwidth = {1e12};
    s.ram_bandwidth = std::nan("");
    CHECK_THAT(plan_speed(in, p, s).error, Catch::StartsWith("ram-bandwidth:"));
    s.ram_bandwidth = 1e11;
    const Speed no_flops = plan_speed(in, p, s);
    REQUIRE(no_flops.ok());
    CHECK(no_flops.prefill_tokens_per_s == 0);
    CHECK_THAT(no_flops.prefill_note, Catch::Contains("g has no published FP16 throughput"));
}

TEST_CASE("speed: every GPU preset but the A10G has a bandwidth and FP16 throughput, and each Apple chip a bandwidth") {
    for (const GpuPreset& g : gpu_presets()) {
        INFO(g.id);
        if (g.id == "a10g") continue;
        CHECK(g.memory_bandwidth > 0);
        CHECK(g.fp16_tensor_flops > 0);
        CHECK_FALSE(g.speed_source.empty());
    }
    CHECK(find_gpu("rtx-4090")->memory_bandwidth == 1008e9);  // Ada whitepaper: 1008 GB/s
    CHECK(find_gpu("tesla-p40")->memory_bandwidth == 346e9);  // P40 datasheet: 346 GB/s
    CHECK(find_gpu("tesla-p40")->fp16_tensor_flops == 12e12); // no FP16 tensor cores: the datasheet's 12 TFLOPS FP32
    CHECK(find_apple_chip("m2-ultra")->memory_bandwidth == 800e9);
    CHECK(find_apple_chip("m5") == nullptr);
}

TEST_CASE("speed: the committed calibration is the benchmark table's, and the holdout error its arithmetic") {
    const std::string text = report::read_text_file(std::string(VRAMLENS_TEST_DATA) + "/planner/speed_benchmarks.json");
    REQUIRE_FALSE(text.empty());
    const report::SpeedReport rep = report::render_speed_report(text);
    const SpeedCalibration committed = speed_calibration();
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
    };
    for (const auto& [name, regime] : {std::pair{"decode GPU", committed.decode_gpu}, std::pair{"decode CPU/Apple", committed.decode_cpu_apple},
                                       std::pair{"prefill", committed.prefill}, std::pair{"prefill Apple", committed.prefill_apple},
                                       std::pair{"decode row split", committed.decode_row}}) {
        INFO(name);
        std::vector<double> ratios, holdout;
        for (const report::SpeedRow& r : rep.rows) {
            if (r.regime != name) continue;
            CHECK(r.split == report::measured_split(r.id));
            if (r.split == "calibrate") ratios.push_back(r.measured / r.roofline);
            else holdout.push_back(std::fabs(r.predicted - r.measured) / r.measured);
        }
        REQUIRE_FALSE(ratios.empty());
        REQUIRE_FALSE(holdout.empty());
        // The efficiency is the calibrate rows' median ratio, to 3 significant digits (row split: the round trip
        // instead, below); the band the holdout rows' median and worst |error| at it, to the percent.
        if (std::string(name) != "decode row split") CHECK_THAT(regime.efficiency, WithinRel(median(ratios), 0.005));
        CHECK(std::fabs(regime.holdout_median_error - median(holdout)) <= 0.005 + 1e-12);
        CHECK(std::fabs(regime.holdout_worst_error - *std::max_element(holdout.begin(), holdout.end())) <= 0.005 + 1e-12);
    }
    // The row-split round trip: the calibrate rows' median unexplained time per round trip, to 3 significant digits.
    CHECK_THAT(committed.row_sync_seconds, WithinRel(rep.calibration.row_sync_seconds, 1e-9));
    CHECK(committed.row_sync_seconds > 0);
    // Row-split prefill calibrates nothing (prefill's efficiency, the decode round trip per chunk): its band is every row's.
    std::vector<double> row_prefill;
    for (const report::SpeedRow& r : rep.rows)
        if (r.regime == "prefill row split") row_prefill.push_back(std::fabs(r.predicted - r.measured) / r.measured);
    REQUIRE_FALSE(row_prefill.empty());
    CHECK(std::fabs(committed.prefill_row.holdout_median_error - median(row_prefill)) <= 0.005 + 1e-12);
    CHECK(std::fabs(committed.prefill_row.holdout_worst_error - *std::max_element(row_prefill.begin(), row_prefill.end())) <= 0.005 + 1e-12);
}

TEST_CASE("speed: -ngl 0 runs every layer from system RAM, with no hop") {
    PlanInput in = tiny(1024);
    in.gpus = {{"g", 24 * kGiB, 0}};
    const Plan p = place_llamacpp(in, 0, 1024);
    SpeedInput s = half_efficiency();
    s.gpu_bandwidth = {1e12};
    s.gpu_flops = {1e12};
    s.ram_bandwidth = 1e11;
    s.cpu_flops = 2e11;
    s.calibration.decode_cpu_apple.holdout_median_error = 0.3;  // tells the two regimes' bands apart
    const Speed sp = plan_speed(in, p, s);
    REQUIRE(sp.ok());
    // CPU: 4 * 698368 + 279552 + KV 4 * 1024 * 1024 = 7267328 B / (0.5 * 1e11) = 1.4534656e-4 s; the GPU holds nothing.
    CHECK(sp.devices[0].bytes_per_token == 0);
    CHECK(sp.devices[1].bytes_per_token == 7267328);
    CHECK(sp.hops == 0);
    CHECK_THAT(1 / sp.decode_tokens_per_s, WithinRel(1.4534656e-4, 1e-12));
    // Prefill: the same 9965568 FLOPs per token as on the GPU, / (0.5 * 2e11) = 9.965568e-5 s.
    CHECK_THAT(1 / sp.prefill_tokens_per_s, WithinRel(9.965568e-5, 1e-12));
    CHECK(sp.decode_band.holdout_median_error == 0.3);  // the CPU/Apple regime's band: the slowest device is the CPU
}

TEST_CASE("speed: -nkvo streams the KV from system RAM and crosses to the CPU twice per offloaded layer") {
    PlanInput in = tiny(1024);
    in.gpus = {{"g", 24 * kGiB, 0}};
    in.kv_offload = false;
    const Plan p = place_llamacpp(in, 5, 1024);
    REQUIRE(p.fits);
    SpeedInput s = half_efficiency();
    s.gpu_bandwidth = {1e12};
    s.gpu_flops = {1e12};
    s.ram_bandwidth = 1e11;
    s.cpu_flops = 1e11;
    const Speed sp = plan_speed(in, p, s);
    REQUIRE(sp.ok());
    // GPU: 4 * 698368 + 279552 = 3073024 B (no KV); CPU: the KV, 4 * 1024 * 1024 = 4194304 B.
    CHECK(sp.devices[0].bytes_per_token == 3073024);
    CHECK(sp.devices[1].bytes_per_token == 4194304);
    // Hops: CPU -> GPU once, and to the CPU and back for each of the 4 layers' attention.
    CHECK(sp.hops == 1 + 2 * 4);
    // 3073024 / 0.5e12 + 4194304 / 0.5e11 + 9 * 1e-6 = 6.146048e-6 + 8.388608e-5 + 9e-6 s.
    CHECK_THAT(1 / sp.decode_tokens_per_s, WithinRel(9.9032128e-5, 1e-12));
    // Prefill: GPU 2 * 2885632 = 5771264 FLOPs (no attention); CPU 4 * 4 * 1024 * 256 = 4194304.
    CHECK(sp.devices[0].flops_per_token == 5771264);
    CHECK(sp.devices[1].flops_per_token == 4194304);
    CHECK_THAT(1 / sp.prefill_tokens_per_s, WithinRel(5771264 / 0.5e12 + 4194304 / 0.5e11, 1e-12));
}

TEST_CASE("speed: --split-mode row streams the split rows on both GPUs at once and pays a round trip per split matrix and other GPU") {
    // planner_test.cpp's row split of the tiny model over two GPUs (split 1,1, -ngl 5): each GPU holds 4 * 349792 + 139536
    // = 1538704 B of rows; GPU 0 runs layers 0-2 (norms 3 * 2048 B, KV 3 * 1024 * 1024 B), GPU 1 layer 3 and the output
    // (norms 2048 + 1024 B, KV 1024 * 1024 B). 4 layers * 7 matrices + output.weight = 29 split matrices, each with one
    // other GPU: 29 round trips. Activations over the link per round trip: the input, Q8_0 -> q8_1 of the row padded to
    // 512 = 16 blocks * 36 B = 576 B, and the other GPU's rows of the result in f32: q, k, v, o 128 * 4 B, gate, up 256 * 4,
    // down 128 * 4 -> per layer 7 * 576 + 4 * 512 + 2 * 1024 + 512 = 8640 B; output 576 + 512 * 4 = 2624 B; 4 * 8640 + 2624
    // = 37184 B in all.
    PlanInput in = tiny(1024);
    in.gpus = {{"RTX 4090", 24 * kGiB, 0}, {"RTX 3060 12GB", 12 * kGiB, 0}};
    in.tensor_split = {1, 1};
    in.split_mode = SplitMode::Row;
    const Plan p = place_llamacpp(in, 5, 1024);
    REQUIRE(p.ok());
    CHECK(p.gpus[0].split_rows == 1538704);
    CHECK(p.gpus[1].split_rows == 1538704);
    CHECK(p.row_syncs == 29);
    CHECK(p.row_link_bytes == 37184);
    SpeedInput s = half_efficiency();
    s.gpu_bandwidth = {1e12, 1e12};
    s.gpu_flops = {1e12, 1e12};
    s.calibration.row_sync_seconds = 1e-5;
    s.calibration.decode_row.holdout_median_error = 0.4;  // tells the row-split band apart
    s.calibration.prefill_row.holdout_median_error = 0.6;  // and the row-split prefill band
    const Speed sp = plan_speed(in, p, s);
    REQUIRE(sp.ok());
    // The split rows once (both GPUs at once): 1538704 / 0.5e12; in turn GPU 0's (3 * 2048 + 3 * 1048576 = 3151872 B) and
    // GPU 1's (3072 + 1048576 = 1051648 B) own bytes; 2 hops of 1e-6 s (CPU -> GPU 0 -> GPU 1); 29 * 1e-5 s + 37184 B / 1.024e9.
    CHECK_THAT(sp.devices[0].split_seconds, WithinRel(1538704 / 0.5e12, 1e-12));
    CHECK(sp.hops == 2);
    CHECK_THAT(sp.row_sync_seconds, WithinRel(29 * 1e-5 + 37184 / 1.024e9, 1e-12));
    CHECK_THAT(1 / sp.decode_tokens_per_s, WithinRel(1538704 / 0.5e12 + 3151872 / 0.5e12 + 1051648 / 0.5e12 + 2e-6 + 29e-5 + 37184 / 1.024e9, 1e-12));
    CHECK(sp.decode_band.holdout_median_error == 0.4);
    // Prefill. Each GPU's rows: per layer q, k, v, o 128 x 256, gate, up 256 x 256, down 128 x 512 = 327680 elements, 4 layers
    // + output 512 x 256 = 1441792. Owned (the whole split matrices of its layers): GPU 0 3 * 655360 = 1966080, GPU 1 655360 +
    // 1024 * 256 = 917504, leaving each layer its norms, 512 params. GPU 0: 2 * 3 * 512 + 4 * 3 layers * 1024 * 256 = 3148800
    // FLOPs in turn and 2 * 1441792 = 2883584 on its rows; GPU 1: 2 * 512 + 4 * 1024 * 256 = 1049600 and the same 2883584.
    CHECK(p.gpus[0].split_params == 1441792);
    CHECK(p.gpus[1].split_params == 1441792);
    CHECK(p.gpus[0].split_owned_params == 1966080);
    CHECK(p.gpus[1].split_owned_params == 917504);
    CHECK(sp.devices[0].flops_per_token == 3148800 + 2883584);
    CHECK(sp.devices[1].flops_per_token == 1049600 + 2883584);
    CHECK_THAT(sp.devices[1].split_prefill_seconds, WithinRel(2883584 / 0.5e12, 1e-12));
    // The round trips per chunk of 128 tokens (the ubatch 512 and the 1024-token prompt are longer): 29 * 1e-5 / 128, and
    // the same 37184 B per token as a decode token.
    CHECK_THAT(sp.prefill_row_sync_seconds, WithinRel(29e-5 / 128 + 37184 / 1.024e9, 1e-12));
    CHECK_THAT(1 / sp.prefill_tokens_per_s, WithinRel((3148800 + 1049600) / 0.5e12 + 2883584 / 0.5e12 + 29e-5 / 128 + 37184 / 1.024e9, 1e-12));
    CHECK(sp.prefill_band.holdout_median_error == 0.6);
    // The same GPUs with --split-mode layer: every byte in turn, no round trip, the GPU band.
    in.split_mode = SplitMode::Layer;
    const Plan layer = place_llamacpp(in, 5, 1024);
    CHECK(layer.row_syncs == 0);
    const Speed ls = plan_speed(in, layer, s);
    REQUIRE(ls.ok());
    CHECK(ls.row_sync_seconds == 0);
    CHECK(ls.decode_band.holdout_median_error == 0);
    // Layer split prefill: every layer's FLOPs on its GPU in turn, no round trip: GPU 0 2 * 3 * 655872 + 3145728 = 7080960,
    // GPU 1 2 * (655872 + 262144) + 1048576 = 2884608.
    CHECK(ls.prefill_row_sync_seconds == 0);
    CHECK(ls.prefill_band.holdout_median_error == 0);  // the prefill band (half_efficiency's)
    CHECK_THAT(1 / ls.prefill_tokens_per_s, WithinRel((7080960.0 + 2884608.0) / 0.5e12, 1e-12));
}

TEST_CASE("speed: an F16 matrix split by rows sends its input in f32") {
    // The tiny model in F16: the input vector goes out as 256 (or 512, down) f32 values, not q8_1. Per layer 6 * 256 * 4 +
    // 512 * 4 = 8192 B out and the same 4608 B of result rows back as in Q8_0 (128 or 256 rows of 4 B); output 1024 + 2048 B.
    PlanInput in = tiny(1024);
    in.weights = WeightFormat::FP16;
    in.gpus = {{"RTX 4090", 24 * kGiB, 0}, {"RTX 3060 12GB", 12 * kGiB, 0}};
    in.tensor_split = {1, 1};
    in.split_mode = SplitMode::Row;
    const Plan p = place_llamacpp(in, 5, 1024);
    REQUIRE(p.ok());
    CHECK(p.row_syncs == 29);
    CHECK(p.row_link_bytes == 4 * (8192 + 4608) + 1024 + 2048);
}

TEST_CASE("speed: prefill's attention FLOPs come from the attention layers alone, not a hybrid's Mamba or MLP-only layers") {
    // NVIDIA-Nemotron-Nano-9B-v2: 56 layers, hybrid_override_pattern with 4 '*' (attention), 27 'M' (Mamba2)
    // and 25 '-' (MLP alone); 40 heads of 128. On one GPU the layers' FLOPs are 2 per active parameter (the
    // output matrix included) plus 4 * ctx * 40 * 128 per attention layer: 4 of them, not the 29 non-Mamba layers.
    const ModelPreset* nano = find_model("nemotron-nano-9b-v2");
    REQUIRE(nano != nullptr);
    PlanInput in;
    in.model = nano->spec;
    in.weights = WeightFormat::GGUF_Q8_0;
    in.context = 4096;
    in.ram_bytes = 64 * kGiB;
    in.gpus = {{"g", 80 * kGiB, 0}};
    const Plan p = place_llamacpp(in, 57, 4096);
    REQUIRE(p.fits);
    const Speed sp = one_gpu_speed(in, p);
    REQUIRE(sp.ok());
    const ParamCounts pc = count_params(in.model);
    double active = static_cast<double>(in.model.vocab) * static_cast<double>(in.model.hidden);  // the output matrix
    for (int64_t il = 0; il < in.model.layers; ++il) active += static_cast<double>(pc.per_layer[static_cast<size_t>(il)].active());
    CHECK(sp.devices[0].flops_per_token - 2 * active == 4.0 * 4 * 4096 * 40 * 128);
}
