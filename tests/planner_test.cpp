// The llama.cpp placement planner (core/planner): device assignment by -ngl and --tensor-split,
// per-device bytes against a published load log, the -ngl and context searches, Apple's wired limit.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "inference_models.h"
#include "planner/planner.h"

using namespace vl;
using Catch::Matchers::WithinAbs;

namespace {
constexpr double kMiB = 1024.0 * 1024;
constexpr double kGiB = 1024.0 * kMiB;

// 4 layers, d 256, 4 heads of 64 (MHA), gated MLP 512, vocab 1024, untied, Q8_0 (34 B per 32 weights).
// Per layer: q, k, v, o 4 * 256 * 256 + gate, up, down 3 * 256 * 512 = 655360 weights -> 696320 B,
// + 2 RMSNorm weights of 256 in F32 (2048 B) = 698368 B. Output: 1024 * 256 Q8_0 (278528 B) + the
// final norm (1024 B) = 279552 B. token_embd: 278528 B. KV f16: 2 * 4 * 64 * 2 = 1024 B per token
// and layer.
constexpr double kLayer = 698368, kOutput = 279552, kEmbd = 278528, kKvToken = 1024;

PlanInput tiny(int64_t ctx) {
    PlanInput in;
    in.model = test::llama("tiny", 1024, 256, 4, 4, 4, 512, 65536);
    in.weights = WeightFormat::GGUF_Q8_0;
    in.kv = KvDtype::FP16;
    in.context = ctx;
    in.ram_bytes = 64 * kGiB;
    return in;
}
// CUDA compute buffer of the tiny model at n_ctx 1024, n_ub 512, no flash attention: the attention
// peak, KQ 1024 * 512 * 4 heads * 4 B + mask 1024 * 512 * 4 B + 4 * 256 * 512 * 4 B = 12582912 B
// (above the MLP's (2 * 512 + 2 * 256) * 512 * 4 and the output's (1024 + 512 + 256) * 512 * 4).
constexpr double kCompute1024 = 12582912;
}  // namespace

TEST_CASE("planner: Llama-3-8B Q4_K_M, 33/33 layers on one GPU, matches llama.cpp's load log") {
    // [lcpp-bllossom-log]: "offloaded 33/33 layers to GPU", "CPU buffer size = 281.81 MiB",
    // "CUDA0 buffer size = 4403.49 MiB", n_ctx 512: KV 32 layers * 512 * 2 * 8 * 128 * 2 B = 64 MiB.
    PlanInput in;
    in.model = test::llama3_8b();
    in.weights = WeightFormat::GGUF_Q4_K_M;
    in.context = 512;
    in.ram_bytes = 32 * kGiB;
    in.gpus.push_back({"RTX 3070", 8 * kGiB, 0});
    const Plan p = place_llamacpp(in, 33, 512);
    REQUIRE(p.ok());
    REQUIRE(p.gpus.size() == 1);
    CHECK(p.gpus[0].layer_begin == 0);
    CHECK(p.gpus[0].layer_end == 32);
    CHECK(p.gpus[0].output);
    CHECK_THAT(p.gpus[0].weights / kMiB, WithinAbs(4403.49, 0.01));
    CHECK_THAT(p.cpu.weights / kMiB, WithinAbs(281.81, 0.01));
    CHECK(p.gpus[0].kv == 64 * kMiB);
    CHECK(p.cpu.kv == 0);
    // runtime.h's compute bound at n_ctx 512: (128256 + 14336 + 4096) * 512 * 4 B = 286.5 MiB.
    CHECK(p.gpus[0].compute == 286.5 * kMiB);
    CHECK(p.fits);
}

TEST_CASE("planner: -ngl counts the output as layer n_layer, --tensor-split assigns by cumulative fractions") {
    PlanInput in = tiny(1024);
    in.gpus = {{"RTX 4090", 24 * kGiB, 0}, {"RTX 3060 12GB", 12 * kGiB, 0}};
    in.tensor_split = {1, 1};
    SECTION("-ngl 5 = n_layer + 1: every layer and the output; fractions 0, .2, .4 | .6, .8 over split points .5, 1") {
        const Plan p = place_llamacpp(in, 5, 1024);
        REQUIRE(p.ok());
        CHECK(p.gpus[0].layer_begin == 0);
        CHECK(p.gpus[0].layer_end == 3);
        CHECK(p.gpus[1].layer_begin == 3);
        CHECK(p.gpus[1].layer_end == 4);
        CHECK_FALSE(p.gpus[0].output);
        CHECK(p.gpus[1].output);
        CHECK(p.gpus[0].weights == 3 * kLayer);
        CHECK(p.gpus[1].weights == kLayer + kOutput);
        CHECK(p.gpus[0].kv == 3 * 1024 * kKvToken);
        CHECK(p.gpus[1].kv == 1 * 1024 * kKvToken);
        CHECK(p.gpus[0].compute == kCompute1024);
        CHECK(p.gpus[1].compute == kCompute1024);
        CHECK(p.cpu.weights == kEmbd);
        CHECK(p.cpu.kv == 0);
        CHECK(p.split == std::vector<double>{0.5, 0.5});
    }
    SECTION("-ngl 4: layer 0 stays on the CPU, the output is offloaded; fraction .5 goes past split point .5") {
        const Plan p = place_llamacpp(in, 4, 1024);
        CHECK(p.cpu.layer_begin == 0);
        CHECK(p.cpu.layer_end == 1);
        CHECK(p.cpu.weights == kLayer + kEmbd);
        CHECK(p.cpu.kv == 1024 * kKvToken);
        CHECK(p.gpus[0].layer_begin == 1);
        CHECK(p.gpus[0].layer_end == 3);
        CHECK(p.gpus[1].layer_begin == 3);
        CHECK(p.gpus[1].output);
    }
    SECTION("-ngl 1: only the output on a GPU") {
        const Plan p = place_llamacpp(in, 1, 1024);
        CHECK(p.gpus[0].output);
        CHECK(p.gpus[0].weights == kOutput);
        CHECK(p.gpus[0].kv == 0);
        CHECK(p.gpus[1].weights == 0);
        CHECK(p.gpus[1].compute == 0);
        CHECK(p.cpu.weights == 4 * kLayer + kEmbd);
        CHECK(p.cpu.kv == 4 * 1024 * kKvToken);
    }
}

TEST_CASE("planner: the largest -ngl that fits one GPU") {
    // -ngl 3 (output + layers 2, 3): 279552 + 2 * 698368 + 2 * 1048576 + 12582912 = 16356352 B;
    // -ngl 4 adds a layer and its KV: 18103296 B. A 17000000 B GPU takes -ngl 3.
    PlanInput in = tiny(1024);
    in.gpus = {{"small", 17000000, 0}};
    const Plan p = plan_llamacpp(in);
    REQUIRE(p.ok());
    CHECK(p.ngl == 3);
    CHECK(p.fits);
    CHECK(p.gpus[0].total() == 16356352);
    CHECK(p.gpus[0].capacity == 17000000);
}

TEST_CASE("planner: the largest context that fits, and what to change when nothing fits") {
    // CPU only: 4 * 698368 + 279552 + 278528 = 3351552 B of weights + 4 layers * 1024 B per token.
    PlanInput in = tiny(4096);
    in.ram_bytes = 3351552 + 4096.0 * 5000;  // room for 5000 tokens -> 19 steps of 256 = 4864
    const Plan p = plan_llamacpp(in);
    REQUIRE(p.ok());
    CHECK(p.ngl == 0);
    CHECK(p.fits);
    CHECK(p.max_context == 4864);
    in.ram_bytes = 3351552 + 4096.0 * 1000;  // 1000 tokens -> 768
    in.context = 4096;
    const Plan q = plan_llamacpp(in);
    CHECK_FALSE(q.fits);
    CHECK(q.max_context == 768);
    CHECK(q.advice.find("--ctx 768") != std::string::npos);
}

TEST_CASE("planner: bad input names the field") {
    PlanInput in = tiny(1024);
    in.gpus = {{"RTX 4090", 24 * kGiB, 0}};
    PlanInput nf4 = in;
    nf4.weights = WeightFormat::NF4;
    CHECK(plan_llamacpp(nf4).error.rfind("weights:", 0) == 0);
    PlanInput split = in;
    split.tensor_split = {1, 1};
    CHECK(plan_llamacpp(split).error.rfind("tensor-split:", 0) == 0);
    PlanInput ram = in;
    ram.ram_bytes = 0;
    CHECK(plan_llamacpp(ram).error.rfind("ram:", 0) == 0);
    PlanInput kv = in;
    kv.kv = KvDtype::FP8;
    CHECK(plan_llamacpp(kv).error.rfind("kv-type:", 0) == 0);
    PlanInput q8 = in;
    q8.kv = KvDtype::INT8;
    CHECK(plan_llamacpp(q8).error.rfind("kv-type:", 0) == 0);
    q8.flash_attention = true;
    CHECK(plan_llamacpp(q8).ok());
    PlanInput gpu = in;
    gpu.gpus[0].memory_bytes = 0;
    CHECK(plan_llamacpp(gpu).error.rfind("gpu 1:", 0) == 0);
}

TEST_CASE("planner: Apple Silicon GPU wired limit, default and iogpu.wired_limit_mb") {
    // Metal's recommendedMaxWorkingSetSize in published logs [lcpp-metal-working-set]: 10922.67 MB on
    // a 16 GB Mac, 21845.34 MB on 32 GB (2/3 of RAM); 3/4 above 32 GB (48 GiB of 64).
    CHECK_THAT(apple_gpu_wired_limit_bytes(16 * kGiB) / kMiB, WithinAbs(10922.67, 0.02));
    CHECK_THAT(apple_gpu_wired_limit_bytes(32 * kGiB) / kMiB, WithinAbs(21845.34, 0.02));
    CHECK(apple_gpu_wired_limit_bytes(64 * kGiB) == 48 * kGiB);
    CHECK(apple_gpu_wired_limit_bytes(64 * kGiB, 57344) == 57344 * kMiB);
    PlanInput in = tiny(1024);
    in.apple_unified = true;
    in.ram_bytes = 16 * kGiB;
    const Plan p = plan_llamacpp(in);
    REQUIRE(p.ok());
    REQUIRE(p.gpus.size() == 1);
    CHECK(p.gpus[0].capacity == 16 * kGiB * 2 / 3);
    CHECK(p.ngl == 5);
}

TEST_CASE("planner: --n-cpu-moe keeps the routed experts of the first N layers on the CPU") {
    // The tiny model with 4 routed experts of width 128 (top 2) per layer instead of the dense MLP:
    // experts gate, up, down 4 * 3 * 256 * 128 = 393216 weights in Q8_0 = 417792 B per layer.
    PlanInput in = tiny(1024);
    in.model.moe.num_experts = 4;
    in.model.moe.top_k = 2;
    in.model.moe.expert_ffn = 128;
    in.gpus = {{"RTX 4090", 24 * kGiB, 0}};
    CHECK(llamacpp_layer_expert_bytes(in, 0) == 417792);
    const Plan all = place_llamacpp(in, 5, 1024);
    in.n_cpu_moe = 2;
    const Plan two = place_llamacpp(in, 5, 1024);
    REQUIRE(two.ok());
    CHECK(two.gpus[0].weights == all.gpus[0].weights - 2 * 417792);
    CHECK(two.cpu.weights == all.cpu.weights + 2 * 417792);
    CHECK(two.gpus[0].layer_begin == 0);
    CHECK(two.gpus[0].layer_end == 4);
    PlanInput dense = tiny(1024);
    dense.n_cpu_moe = 1;
    CHECK(plan_llamacpp(dense).error.rfind("n-cpu-moe:", 0) == 0);
}

TEST_CASE("planner: a model imported from a GGUF file places the file's bytes, block by block") {
    // tests/checkpoint_files.h's two-block GGUF: blk.0 376064 B, blk.1 342272 B, token_embd 4608,
    // output 6720, output_norm 1024 (hand sums of the GGML blocks there).
    PlanInput in;
    in.model = test::llama("two-block", 32, 256, 2, 4, 2, 512, 4096);
    in.model.gguf_bytes = {{376064, 342272}, 4608, 6720, 1024, {}};
    in.weights = WeightFormat::GGUF_Q4_K_M;
    in.context = 256;
    in.ram_bytes = 64 * kGiB;
    in.gpus = {{"A", 24 * kGiB, 0}, {"B", 24 * kGiB, 0}};
    in.tensor_split = {1, 1};
    CHECK(llamacpp_layer_weight_bytes(in, 0) == 376064);
    CHECK(llamacpp_layer_weight_bytes(in, 1) == 342272);
    CHECK(llamacpp_output_weight_bytes(in) == 6720 + 1024);
    CHECK(llamacpp_embedding_weight_bytes(in) == 4608);
    // -ngl 2: i_gpu_start = 2 + 1 - 2 = 1, so blk.0 stays on the CPU with token_embd; blk.1 is at
    // (1 - 1) / 2 = 0 -> GPU 0 (split points 0.5, 1); the output layer at (2 - 1) / 2 = 0.5 -> GPU 1
    // (the first split point above 0.5).
    const Plan p = place_llamacpp(in, 2, 256);
    REQUIRE(p.ok());
    CHECK(p.cpu.weights == 376064 + 4608);
    CHECK(p.gpus[0].weights == 342272);
    CHECK(p.gpus[1].weights == 6720 + 1024);
    // Every layer on GPU 0 (-ngl 3: blk.0 at 0, blk.1 at 1/3, output at 2/3 -> GPU 1).
    const Plan all = place_llamacpp(in, 3, 256);
    CHECK(all.gpus[0].weights == 376064 + 342272);
    CHECK(all.gpus[1].weights == 7744);
    CHECK(all.cpu.weights == 4608);
    // Bytes of another layer count (the model edited): the format's rules, as without them.
    PlanInput edited = in;
    edited.model.layers = 3;
    PlanInput rules = edited;
    rules.model.gguf_bytes = {};
    CHECK(llamacpp_layer_weight_bytes(edited, 0) == llamacpp_layer_weight_bytes(rules, 0));
    CHECK(llamacpp_layer_weight_bytes(edited, 0) != 376064);
}

TEST_CASE("planner: --n-cpu-moe with an imported GGUF keeps the file's own expert tensors on the CPU") {
    // Two MoE layers whose file gives blk.0 1000 B (600 of them ffn_{gate,up,down}_exps) and blk.1
    // 2000 B (1500 experts); token_embd 100, output 200, output_norm 10.
    PlanInput in;
    in.model = test::llama("moe", 32, 256, 2, 4, 2, 512, 4096);
    in.model.moe.num_experts = 4;
    in.model.moe.top_k = 2;
    in.model.moe.expert_ffn = 128;
    in.model.gguf_bytes = {{1000, 2000}, 100, 200, 10, {600, 1500}};
    in.weights = WeightFormat::GGUF_Q4_K_M;
    in.context = 256;
    in.ram_bytes = 64 * kGiB;
    in.gpus = {{"A", 24 * kGiB, 0}};
    in.n_cpu_moe = 1;
    CHECK(llamacpp_layer_expert_bytes(in, 0) == 600);
    CHECK(llamacpp_layer_expert_bytes(in, 1) == 1500);
    // -ngl 3 (every layer and the output): blk.0's experts stay in RAM with token_embd.
    // GPU: (1000 - 600) + 2000 + 200 + 10 = 2610 B; CPU: 600 + 100 = 700 B.
    const Plan p = place_llamacpp(in, 3, 256);
    REQUIRE(p.ok());
    CHECK(p.gpus[0].weights == 2610);
    CHECK(p.cpu.weights == 700);
}
