// The optimizer table (core/training/optimizers.h): one row per optimizer, the names the scenario
// JSON, the UI's list and the CLI read, and the state each keeps. Expected sizes are the papers'.
#include <catch2/catch.hpp>

#include <iterator>
#include <string>

#include "enum_names.h"
#include "training/optimizers.h"
#include "training_fixtures.h"

using namespace vl;
using namespace vl::testing;
using Catch::Detail::Approx;

TEST_CASE("the optimizer table has one row per optimizer, and the enum's names are its names") {
    const auto names = enum_names(Optimizer{});
    REQUIRE(names.size() == std::size(kOptimizers));
    REQUIRE(std::size(kOptimizers) == static_cast<size_t>(Optimizer::Custom) + 1);
    for (size_t i = 0; i < names.size(); ++i) {
        const Optimizer o = static_cast<Optimizer>(i);
        CHECK(optimizer_info(o).id == o);
        CHECK(names[i].value == kOptimizers[i].id);
        CHECK(std::string(names[i].name) == kOptimizers[i].name);
        CHECK(parse_enum<Optimizer>(kOptimizers[i].name) == o);
    }
    // The names are part of the scenario format (docs/scenario-format.md): unchanged.
    CHECK(std::string(enum_name(Optimizer::Adam8bit)) == "adamw-8bit");
    CHECK(std::string(enum_name(Optimizer::SGDMomentum)) == "sgd-momentum");
}

TEST_CASE("state per parameter from the table: Adam 2 x 4 B, momentum and Lion 1 x 4 B, 8-bit Adam 2 x (1 B + 4 B / 2048)") {
    CHECK(optimizer_state_text(optimizer_info(Optimizer::AdamW)) == "2 x state dtype");
    CHECK(optimizer_state_text(optimizer_info(Optimizer::Adam8bit)) == "2 x (1 B + 4 B / 2,048)");
    CHECK(optimizer_state_text(optimizer_info(Optimizer::SGD)) == "none");
    // fp32 states on 1e9 parameters (a params-only model, no master weights in fp32 training):
    Scenario s = train_scenario(params_only(1000000000));
    s.train.precision = Precision::FP32;
    const struct { Optimizer o; double bytes; } cases[] = {
        {Optimizer::AdamW, 8e9},                        // m and v [kingma2015]
        {Optimizer::SGDMomentum, 4e9},                  // one momentum buffer
        {Optimizer::Lion, 4e9},                         // one momentum [lion2023]
        {Optimizer::Adam8bit, 2e9 * (1 + 4.0 / 2048)},  // 1 B per element + fp32 absmax per 2048 [adam8bit2022]
    };
    for (const auto& c : cases) {
        s.train.optimizer = c.o;
        CHECK(bytes_of(estimate(s), "optimizer.states") == Approx(c.bytes));
    }
    s.train.optimizer = Optimizer::SGD;
    CHECK(find(estimate(s), "optimizer.states") == nullptr);
}

TEST_CASE("Adafactor keeps rows + cols of every inventory matrix: routed experts split by ep") {
    // Mixtral-8x7B: per layer q, o (4096 + 4096) each, k, v (1024 + 4096) each = 26,624; 8 experts x
    // gate, up, down (14336 + 4096) = 442,368; router (8 + 4096) = 4,104; 2 norms 8,192 -> 481,288,
    // x 32 = 15,401,216; embedding and lm_head (32000 + 4096) each, final norm 4096 -> 15,477,504.
    ModelSpec m = llama2_7b();
    m.kv_heads = 8; m.ffn = 14336;
    m.moe.num_experts = 8; m.moe.top_k = 2; m.moe.expert_ffn = 14336;
    Scenario s = train_scenario(m);
    s.overheads = no_overheads();
    s.train.optimizer = Optimizer::Adafactor;
    CHECK(bytes_of(estimate(s), "optimizer.states") == Approx(15477504.0 * 4));
    // ep 8: one expert per rank, 3 x 18,432 = 55,296 -> 94,216 per layer, x 32 = 3,014,912, + 76,288
    s.parallel.ep = 8; s.parallel.dp = 8; s.gpu_count = 8;
    CHECK(bytes_of(estimate(s), "optimizer.states") == Approx(3091200.0 * 4));
}
