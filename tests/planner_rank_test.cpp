// Which model fits best (core/planner/rank.h): verdicts and order for one machine, from bounds a
// reader can check by hand, the quantization loss classes from llama.cpp's perplexity scoreboard,
// the default candidates, and bad input.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "model/presets.h"
#include "planner/rank.h"

using namespace vl;

namespace {
constexpr double kGiB = 1024.0 * 1024 * 1024;

// One RTX 4090 (24 GiB, 1008 GB/s) and 64 GiB of RAM, context 4096.
RankInput rtx4090_64gb() {
    RankInput in;
    const GpuPreset* g = find_gpu("rtx-4090");
    REQUIRE(g);
    in.machine.gpus.push_back({g->name, g->memory_bytes, -1});
    in.gpu_presets.push_back(g);
    in.machine.ram_bytes = 64 * kGiB;
    in.machine.context = 4096;
    for (const char* id : {"llama-3.1-8b", "llama-3.1-70b", "qwen3-4b"}) {
        const ModelPreset* m = find_model(id);
        REQUIRE(m);
        in.models.push_back({id, m->spec});
    }
    in.weights = {WeightFormat::GGUF_Q8_0, WeightFormat::GGUF_Q4_K_M, WeightFormat::GGUF_Q2_K};
    return in;
}

const RankRow& row(const Ranking& r, const std::string& id, WeightFormat w) {
    for (const RankRow& x : r.rows)
        if (x.id == id && x.weights == w) return x;
    FAIL("no row " << id);
    return r.rows.front();
}
}  // namespace

TEST_CASE("rank: quantization loss classes follow llama.cpp's KL divergence scoreboard (Llama 3 8B, no imatrix)") {
    // tools/perplexity/README.md: Q8_0 0.001355, Q6_K 0.005452, Q5_K_M 0.010762, Q4_K_M 0.031273,
    // Q4_0 0.071940, Q3_K_M 0.101913, Q2_K 0.445132; cut at 0.01, 0.05, 0.15.
    CHECK(quant_loss_class(gguf_type_kld(WeightFormat::BF16)) == QuantLoss::NearLossless);
    CHECK(quant_loss_class(gguf_type_kld(WeightFormat::GGUF_Q8_0)) == QuantLoss::NearLossless);
    CHECK(quant_loss_class(gguf_type_kld(WeightFormat::GGUF_Q6_K)) == QuantLoss::NearLossless);
    CHECK(quant_loss_class(gguf_type_kld(WeightFormat::GGUF_Q5_K_M)) == QuantLoss::Small);
    CHECK(quant_loss_class(gguf_type_kld(WeightFormat::GGUF_Q4_K_M)) == QuantLoss::Small);
    CHECK(quant_loss_class(gguf_type_kld(WeightFormat::GGUF_Q4_0)) == QuantLoss::Noticeable);
    CHECK(quant_loss_class(gguf_type_kld(WeightFormat::GGUF_Q3_K_M)) == QuantLoss::Noticeable);
    CHECK(quant_loss_class(gguf_type_kld(WeightFormat::GGUF_Q2_K)) == QuantLoss::Large);
    CHECK(gguf_type_kld(WeightFormat::GGUF_Q4_K_M) > gguf_type_kld(WeightFormat::GGUF_Q5_K_M));
    CHECK(gguf_type_kld(WeightFormat::NF4) < 0);  // not a GGUF type: no published figure
    // Without --weights a ranking takes the seven types above, not Q4_1, Q5_0, Q5_1, Q4_K_S or Q5_K_S (no figure):
    // one model, seven rows.
    RankInput in = rtx4090_64gb();
    in.models.resize(1);
    in.weights.clear();
    const Ranking r = rank_models(in);
    REQUIRE(r.ok());
    CHECK(r.rows.size() == 7);
    for (const RankRow& x : r.rows) CHECK(x.kld >= 0);
}

TEST_CASE("rank: on one RTX 4090 + 64 GiB, 8B before 4B, 70B too slow, Q2_K too lossy") {
    const Ranking r = rank_models(rtx4090_64gb());
    REQUIRE(r.ok());
    REQUIRE(r.rows.size() == 9);
    // Ranked, by parameters (8.03B, 4.02B), then the smaller loss (Q8_0 before Q4_K_M).
    REQUIRE(r.ranked == 4);
    CHECK(r.rows[0].id == "llama-3.1-8b");
    CHECK(r.rows[0].weights == WeightFormat::GGUF_Q8_0);
    CHECK(r.rows[1].id == "llama-3.1-8b");
    CHECK(r.rows[1].weights == WeightFormat::GGUF_Q4_K_M);
    CHECK(r.rows[2].id == "qwen3-4b");
    CHECK(r.rows[3].id == "qwen3-4b");
    // 8B at Q8_0 is ~8.5 GB (8.5 bits per weight): every layer and the output on the GPU.
    CHECK(r.rows[0].ngl == 33);
    CHECK(r.rows[0].decode_tokens_per_s > 10);
    // 70B at Q8_0 (~75 GB) leaves at least 75 - 25.8 = 49 GB in RAM, read at <= 89.6 GB/s per token:
    // at most 1.83 tokens/s. At Q4_K_M (~42.8 GB): at least 17 GB in RAM, at most 5.3 tokens/s.
    const RankRow& q8 = row(r, "llama-3.1-70b", WeightFormat::GGUF_Q8_0);
    CHECK(q8.verdict == RankVerdict::TooSlow);
    CHECK(q8.decode_tokens_per_s < 1.83);
    CHECK(q8.ngl < q8.n_layer + 1);
    CHECK(q8.cpu_bytes > 49e9);
    const RankRow& q4 = row(r, "llama-3.1-70b", WeightFormat::GGUF_Q4_K_M);
    CHECK(q4.verdict == RankVerdict::TooSlow);
    CHECK(q4.decode_tokens_per_s < 5.3);
    for (const char* id : {"llama-3.1-8b", "llama-3.1-70b", "qwen3-4b"})
        CHECK(row(r, id, WeightFormat::GGUF_Q2_K).verdict == RankVerdict::TooLossy);
}

TEST_CASE("rank: with no speed floor the 70B ranks first, and one line per model keeps its best type") {
    RankInput in = rtx4090_64gb();
    in.min_tokens_per_s = 0;
    const Ranking r = rank_models(in);
    REQUIRE(r.ok());
    REQUIRE(r.ranked == 6);
    CHECK(r.rows[0].id == "llama-3.1-70b");  // 75 GB fits 24 GiB + 64 GiB
    CHECK(r.rows[0].weights == WeightFormat::GGUF_Q8_0);
    const std::vector<RankRow> best = best_per_model(r);
    REQUIRE(best.size() == 3);
    CHECK(best[0].id == "llama-3.1-70b");
    CHECK(best[1].id == "llama-3.1-8b");
    CHECK(best[1].weights == WeightFormat::GGUF_Q8_0);
    CHECK(best[2].id == "qwen3-4b");
    in.max_loss = QuantLoss::Large;  // Q2_K allowed: ranked after the better types of the same model
    CHECK(rank_models(in).ranked == 9);
}

TEST_CASE("rank: a context over the model's trained length is not ranked") {
    RankInput in = rtx4090_64gb();
    const ModelPreset* l3 = find_model("llama-3-8b");  // max_position_embeddings 8192
    REQUIRE(l3);
    in.models = {{"llama-3-8b", l3->spec}};
    in.machine.context = 16384;
    const Ranking r = rank_models(in);
    REQUIRE(r.ok());
    CHECK(r.ranked == 0);
    CHECK(r.rows[0].verdict == RankVerdict::ContextTooLong);
    CHECK(r.rows[0].why.find("8192") != std::string::npos);
}

TEST_CASE("rank: the default candidates are the presets of the 12 months up to the newest one") {
    // The newest preset is Qwen3.6-35B-A3B (2026-04): Qwen3 (2025-04) is in, Llama 3 (2024-04), Llama 2 (2023-07) and
    // Mixtral-8x7B (2023-12) are out.
    CHECK(current_generation_since() == "2025-04");
    RankInput in = rtx4090_64gb();
    in.models.clear();
    in.weights = {WeightFormat::GGUF_Q4_K_M};
    const Ranking r = rank_models(in);
    REQUIRE(r.ok());
    auto has = [&](const std::string& id) {
        for (const RankRow& x : r.rows)
            if (x.id == id) return true;
        return false;
    };
    CHECK(has("qwen3-8b"));
    CHECK(has("qwen3.6-35b-a3b"));
    CHECK_FALSE(has("llama-3-8b"));
    CHECK_FALSE(has("llama-2-7b"));
    CHECK_FALSE(has("mixtral-8x7b"));
    in.since = "0000-00";  // every preset
    const Ranking all = rank_models(in);
    CHECK(all.rows.size() == model_presets().size());
}

TEST_CASE("rank: bad input names the field") {
    RankInput in = rtx4090_64gb();
    in.machine.ram_bytes = 0;
    CHECK(rank_models(in).error.rfind("ram:", 0) == 0);
    in = rtx4090_64gb();
    in.machine.gpus.clear();
    in.gpu_presets.clear();
    CHECK(rank_models(in).error.rfind("gpu:", 0) == 0);
    in = rtx4090_64gb();
    in.weights = {WeightFormat::NF4};
    CHECK(rank_models(in).error.rfind("weights:", 0) == 0);
    in.weights = {WeightFormat::GGUF_Q4_K_S};  // a GGUF type the KLD scoreboard vramlens cites has no figure for
    CHECK(rank_models(in).error.rfind("weights: q4_k_s is not a GGUF type with a published quantization loss", 0) == 0);
    in = rtx4090_64gb();
    in.min_tokens_per_s = -1;
    CHECK(rank_models(in).error.rfind("min-speed:", 0) == 0);
}
