// Parallelism rules (core/parallel.h), shared with inference: validation, weight splits, stages.
#include <catch2/catch.hpp>

#include "parallel.h"
#include "training_fixtures.h"

using namespace vl;
using namespace vl::testing;
using Catch::Detail::Approx;

namespace {
std::vector<FieldError> errors_of(const Scenario& s) { return validate(s); }
bool has(const std::vector<FieldError>& errs, const std::string& field, const std::string& text) {
    for (const FieldError& e : errs)
        if (e.field == field && e.message.find(text) != std::string::npos) return true;
    return false;
}
}  // namespace

TEST_CASE("validate_parallel names the field and the rule") {
    Scenario s = train_scenario(llama2_7b());
    s.parallel.tp = 3;
    s.gpu_count = 3;
    REQUIRE(has(errors_of(s), "parallel.tp", "must divide num_attention_heads (32); got 3"));
    s.parallel.tp = 2;
    REQUIRE(has(errors_of(s), "gpu_count", "must equal dp * tp * pp * cp (2); got 3"));
    s = train_scenario(llama2_7b());
    s.parallel.sp = true;
    REQUIRE(has(errors_of(s), "parallel.sp", "needs parallel.tp > 1"));
    s = train_scenario(llama2_7b());
    s.parallel.offload_params = true;
    REQUIRE(has(errors_of(s), "parallel.offload_params", "needs parallel.zero = 3"));
    s = train_scenario(llama2_7b());
    s.parallel.ep = 2; s.parallel.dp = 2; s.gpu_count = 2;
    REQUIRE(has(errors_of(s), "parallel.ep", "needs a mixture-of-experts model"));
    s = train_scenario(llama2_7b());
    s.parallel.pp = 64; s.gpu_count = 64;
    REQUIRE(has(errors_of(s), "parallel.pp", "at most num_hidden_layers (32)"));
    s = train_scenario(llama2_7b());
    s.parallel.dp = 0;
    REQUIRE(has(errors_of(s), "parallel.dp", "must be >= 1; got 0"));
}

// Regression (UBSan via tests/invariants_test.cpp): a degree far above the limits went on to
// dp * tp * pp * cp, a signed int64 overflow (undefined behaviour; in practice a wrapped product and
// a bogus gpu_count error). Every bad degree is reported; nothing is computed from absurd ones.
TEST_CASE("absurd parallel degrees are rejected without computing their product") {
    Scenario s = train_scenario(llama2_7b());
    s.parallel.dp = int64_t{1} << 62;   // 4.6e18 ranks: dp * tp (4) overflows int64
    s.parallel.tp = 4;
    const std::vector<FieldError> errs = errors_of(s);
    REQUIRE(errs.size() == 1);
    CHECK(has(errs, "parallel", "degrees too large"));
    // All non-positive degrees are named at once, not only the first.
    s.parallel.dp = 0;
    s.parallel.tp = -1;
    s.parallel.ep = 0;
    const std::vector<FieldError> errs2 = errors_of(s);
    CHECK(has(errs2, "parallel.dp", "must be >= 1; got 0"));
    CHECK(has(errs2, "parallel.tp", "must be >= 1; got -1"));
    CHECK(has(errs2, "parallel.ep", "must be >= 1; got 0"));
}

TEST_CASE("kv heads: training needs tp | kv_heads, inference replicates them when tp > kv_heads") {
    ModelSpec m = llama2_7b();
    m.kv_heads = 8;
    Scenario s = train_scenario(m);
    s.parallel.tp = 16; s.gpu_count = 16;
    REQUIRE(has(errors_of(s), "parallel.tp", "num_key_value_heads (8)"));
    s.mode = Mode::Infer;
    s.parallel.tp = 16;
    REQUIRE_FALSE(has(errors_of(s), "parallel.tp", "num_key_value_heads"));
    REQUIRE(kv_heads_per_rank(m, 16) == 1);
    REQUIRE(kv_heads_per_rank(m, 4) == 2);
}

TEST_CASE("rank_weights: Megatron splits (tp divides layers and vocab, norms replicated, pp puts embedding first, head last)") {
    const ModelSpec m = llama2_7b();
    const ParamCounts pc = count_params(m);
    Parallelism p;
    p.tp = 2;
    const RankWeights w = rank_weights(m, pc, p, pipeline_stage(32, 1, 0));
    // per layer: attention 4 x 4096^2 / 2 + MLP 3 x 4096 x 11008 / 2 + norms 2 x 4096 (replicated)
    REQUIRE(w.layers == Approx(32.0 * (4.0 * 4096 * 4096 / 2 + 3.0 * 4096 * 11008 / 2 + 2 * 4096)));
    REQUIRE(w.embedding == Approx(32000.0 * 4096 / 2));
    REQUIRE(w.lm_head == Approx(32000.0 * 4096 / 2));
    p.tp = 1;
    p.pp = 4;
    const RankWeights first = rank_weights(m, pc, p, pipeline_stage(32, 4, 0));
    const RankWeights last = rank_weights(m, pc, p, pipeline_stage(32, 4, 3));
    REQUIRE(first.embedding > 0);
    REQUIRE(first.lm_head == 0);
    REQUIRE(last.embedding == 0);
    REQUIRE(last.lm_head == Approx(32000.0 * 4096));
    REQUIRE(last.final_norm == 4096);
    REQUIRE(first.layers == Approx(last.layers));
    // tied embeddings with pp > 1: the last stage keeps its own copy for the output layer (Megatron)
    const ModelSpec g = gpt_model("GPT", 1024, 16, 24, 50304, 1024);
    const RankWeights glast = rank_weights(g, count_params(g), p, pipeline_stage(24, 4, 3));
    REQUIRE(glast.lm_head == Approx(50304.0 * 1024));
}

TEST_CASE("pipeline stages split layers with the remainder first, micro-batches in flight per schedule") {
    const StageInfo a = pipeline_stage(30, 4, 0), d = pipeline_stage(30, 4, 3);
    REQUIRE(a.layers() == 8);
    REQUIRE(d.layers() == 7);
    REQUIRE(d.layer_end == 30);
    Parallelism p;
    p.pp = 4;
    REQUIRE(microbatches_in_flight(p, 8, 0) == 4);  // 1F1B: first stage holds pp
    REQUIRE(microbatches_in_flight(p, 8, 3) == 1);  // last stage: one
    REQUIRE(microbatches_in_flight(p, 2, 0) == 2);  // fewer micro-batches than stages
    p.schedule = PipelineSchedule::GPipe;
    REQUIRE(microbatches_in_flight(p, 8, 0) == 8);  // all forwards before any backward
}

TEST_CASE("expert parallelism divides routed experts only") {
    ModelSpec m = llama2_7b();
    m.moe.num_experts = 8; m.moe.top_k = 2; m.moe.expert_ffn = 14336;
    m.ffn = 14336;
    const ParamCounts pc = count_params(m);
    Parallelism p;
    const double all = rank_weights(m, pc, p, pipeline_stage(32, 1, 0)).layers;
    p.ep = 8; p.dp = 8;
    const double ep8 = rank_weights(m, pc, p, pipeline_stage(32, 1, 0)).layers;
    // 7 of 8 experts leave: 32 layers x 7 x 3 x 4096 x 14336
    REQUIRE(all - ep8 == Approx(32.0 * 7 * 3 * 4096 * 14336));
}

TEST_CASE("the last pipeline stage is chosen when its logits outweigh the first stage's in-flight activations") {
    // Llama-3-like 128k vocab, long sequence, pp 2 with a single micro-batch: the last stage's fp32 logits dominate
    ModelSpec m = llama2_7b();
    m.vocab = 128256;
    Scenario s = train_scenario(m);
    s.train.seq_len = 8192;
    s.parallel.pp = 2; s.gpu_count = 2;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    REQUIRE(find(e, "logits") != nullptr);
    REQUIRE(find(e, "act.embedding") == nullptr);
}

TEST_CASE("estimate with NumbersOnly fills no formula text") {
    const Estimate e = estimate(train_scenario(llama2_7b()), Detail::NumbersOnly);
    for (const Component& c : e.components) REQUIRE(c.substituted().empty());
    const Estimate f = estimate(train_scenario(llama2_7b()), Detail::Full);
    REQUIRE_FALSE(find(f, "weights")->substituted().empty());
}
