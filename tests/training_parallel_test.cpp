// Parallelism rules (core/parallel.h), shared with inference: validation, weight splits, stages.
#include <catch2/catch.hpp>

#include <algorithm>

#include "model/hf_config.h"
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

namespace {
// A tiny MoE by hand: vocab 1000, hidden 64, 2 layers, 4 heads of 16, 8 routed experts of ffn 32 (SwiGLU), RMSNorm,
// no biases, untied head. Per layer: attention 4 x 64^2 = 16,384, norms 2 x 64 = 128, router 64 x 8 = 512, experts
// 8 x 3 x 64 x 32 = 49,152. Model: 2 x 66,176 + embedding and head 2 x 64,000 + final norm 64 = 260,416, of which
// routed experts 98,304 and the rest (dense) 162,112.
ModelSpec tiny_moe() {
    ModelSpec m = llama2_7b();
    m.name = "tiny-moe";
    m.vocab = 1000; m.hidden = 64; m.layers = 2; m.heads = 4; m.kv_heads = 4; m.head_dim = 16; m.ffn = 32;
    m.moe.num_experts = 8; m.moe.top_k = 2; m.moe.expert_ffn = 32;
    return m;
}
Scenario tiny_moe_training(int64_t dp, int64_t ep, int zero) {
    Scenario s = train_scenario(tiny_moe());
    s.train.precision = Precision::MixedBF16;  // 2 B weights and gradients, 4 B master, 2 x 4 B Adam states
    s.train.optimizer = Optimizer::AdamW;
    s.overheads = no_overheads();
    s.parallel.dp = dp; s.parallel.ep = ep; s.parallel.zero = zero;
    s.gpu_count = dp;
    return s;
}
}  // namespace

TEST_CASE("expert data parallelism: the routed experts' states shard over dp / ep ranks, the dense part over dp") {
    Parallelism p;
    p.dp = 8; p.ep = 4;
    CHECK(expert_shard_size(p) == 2);  // Megatron: world 8 / (pp 1 x ep 4 x etp 1); DeepSpeed: dp 8 / ep 4
    p.shard_group = 4;
    CHECK(expert_shard_size(p) == 1);  // a hybrid-shard group of 4 holds one rank of each expert-data-parallel group
    p.dp = 16; p.shard_group = 8;
    CHECK(expert_shard_size(p) == 2);  // 8 consecutive ranks, experts repeating every ep = 4: two copies of each to shard over
    p.shard_group = 2;
    CHECK(expert_shard_size(p) == 1);  // a group smaller than ep: each expert whole
    p.dp = 8;
    p.shard_group = 0; p.ep = 1;
    CHECK(expert_shard_size(p) == 8);

    const Estimate e = estimate(tiny_moe_training(8, 4, 2));
    REQUIRE(e.errors.empty());
    REQUIRE(e.params.total == 260416);
    // A rank holds the dense 162,112 and its quarter of the experts, 98,304 / 4 = 24,576. ZeRO-2 over dp 8 for the dense
    // part, over dp / ep = 2 for the experts: 162,112 / 8 + 24,576 / 2 = 20,264 + 12,288 = 32,552 elements per rank.
    CHECK(bytes_of(e, "weights") == Approx((162112.0 + 24576.0) * 2));
    CHECK(bytes_of(e, "grads") == Approx(32552.0 * 2));
    CHECK(bytes_of(e, "optimizer.master") == Approx(32552.0 * 4));
    CHECK(bytes_of(e, "optimizer.states") == Approx(32552.0 * 8));
    // Sharding the rank's experts over all dp 8 ranks would give (162,112 + 24,576) / 8 = 23,336 per rank: 3 of every 4
    // expert elements counted away.
    CHECK(bytes_of(e, "optimizer.master") != Approx(23336.0 * 4));
    CHECK(std::string(find(e, "optimizer.master")->formula()) == "P_dense * master_bytes / N_opt + P_expert * master_bytes / N_edp");
    // Each expert element is on ep ranks' worth of one shard, so a rank's states equal those of the same model at ep 1:
    // 260,416 / 8 = 32,552.
    const Estimate ep1 = estimate(tiny_moe_training(8, 1, 2));
    CHECK(bytes_of(ep1, "optimizer.master") == Approx(260416.0 / 8 * 4));
    CHECK(std::string(find(ep1, "optimizer.master")->formula()) == "P * master_bytes / N_opt");
    // ZeRO-0: nothing sharded, the experts neither.
    CHECK(bytes_of(estimate(tiny_moe_training(8, 4, 0)), "optimizer.master") == Approx((162112.0 + 24576.0) * 4));
}

TEST_CASE("context parallelism: the cp ranks of a sequence hold the same parameters, so ZeRO shards over dp x cp") {
    Parallelism p;
    p.dp = 2; p.cp = 4;
    CHECK(zero_shard_size(p) == 8);  // Megatron-Core's distributed optimizer over intra_dp_cp_group [megatron-core-moe-code]
    p.ep = 4;
    CHECK(expert_shard_size(p) == 2);  // expert data parallel: world 8 / (pp 1 x ep 4 x etp 1)
    p.shard_group = 4;
    CHECK(zero_shard_size(p) == 4);  // a hybrid-shard group is what it says

    // The tiny MoE at dp 2, cp 4 (8 GPUs), ep 1, ZeRO-1: its 260,416 parameters' fp32 master over 8 ranks, as at dp 8.
    Scenario s = tiny_moe_training(2, 1, 1);
    s.parallel.cp = 4;
    s.gpu_count = 8;
    const Estimate e = estimate(s);
    REQUIRE(e.errors.empty());
    CHECK(bytes_of(e, "optimizer.master") == Approx(260416.0 / 8 * 4));
    CHECK(bytes_of(e, "optimizer.states") == Approx(260416.0 / 8 * 8));
}

TEST_CASE("DeepSpeed MoE: the stage 1/2 step makes the largest param group's fp32 gradient partition") {
    Scenario s = tiny_moe_training(8, 4, 2);
    s.overheads.temp_buffers = true;
    s.deepspeed.enabled = true;
    // Dense group 162,112 / 8 = 20,264 elements, the expert group min(24,576, 178,956,971) / 2 = 12,288: the dense one, in fp32.
    CHECK(bytes_of(estimate(s), "buffers.ds_fp32_grads") == Approx(20264.0 * 4));
    s.parallel.dp = 4; s.gpu_count = 4;  // dense 162,112 / 4 = 40,528; experts 24,576 / 1: 40,528 still
    CHECK(bytes_of(estimate(s), "buffers.ds_fp32_grads") == Approx(40528.0 * 4));
    s.parallel.offload_optimizer = true;  // every group's partition on the host: 40,528 + 24,576
    CHECK(bytes_of(estimate(s), "host.ds_fp32_grads") == Approx((40528.0 + 24576.0) * 4));
}

TEST_CASE("Megatron's uneven pipeline split: the given end stages, the layers left even over the stages between") {
    // get_num_layers_to_build [megatron-pipeline-split]: --decoder-last-pipeline-num-layers 11 of 24 on 2 stages leaves
    // 13 to the first; 5 first and 9 last of 32 on 4 stages leave 18 = 2 x 9 between; 2 first alone leaves 30 = 3 x 10.
    Parallelism p;
    p.pp = 2;
    p.last_stage_layers = 11;
    CHECK(pipeline_stage(24, p, 0).layer_begin == 0);
    CHECK(pipeline_stage(24, p, 0).layer_end == 13);
    CHECK(pipeline_stage(24, p, 1).layer_begin == 13);
    CHECK(pipeline_stage(24, p, 1).layer_end == 24);
    CHECK(pipeline_stage(24, p, 1).last);
    p.pp = 4;
    p.first_stage_layers = 5;
    p.last_stage_layers = 9;
    const int64_t begins[] = {0, 5, 14, 23}, ends[] = {5, 14, 23, 32};
    for (int64_t i = 0; i < 4; ++i) {
        CHECK(pipeline_stage(32, p, i).layer_begin == begins[i]);
        CHECK(pipeline_stage(32, p, i).layer_end == ends[i]);
    }
    p.last_stage_layers = 0;
    p.first_stage_layers = 2;
    CHECK(pipeline_stage(32, p, 1).layers() == 10);
    CHECK(pipeline_stage(32, p, 3).layer_begin == 22);
    CHECK(pipeline_stage(32, p, 3).layer_end == 32);
    // neither given: the even split, the remainder first
    p.first_stage_layers = 0;
    CHECK(pipeline_stage(30, p, 0).layers() == 8);
    CHECK(pipeline_stage(30, p, 3).layers() == 7);
}

TEST_CASE("the uneven pipeline split's rules name the field and what to change") {
    Scenario s = train_scenario(llama2_7b());  // 32 layers
    s.parallel.pp = 2; s.gpu_count = 2;
    s.parallel.last_stage_layers = 40;
    CHECK(has(errors_of(s), "parallel.last_stage_layers", "first_stage_layers + last_stage_layers must be at most num_hidden_layers (32); got 40"));
    s.parallel.first_stage_layers = 10; s.parallel.last_stage_layers = 10;
    CHECK(has(errors_of(s), "parallel.last_stage_layers", "with two stages both given, first_stage_layers + last_stage_layers must equal num_hidden_layers (32); got 20"));
    s.parallel.first_stage_layers = 20; s.parallel.last_stage_layers = 12;
    CHECK(errors_of(s).empty());
    s.parallel.pp = 4; s.gpu_count = 4;
    s.parallel.first_stage_layers = 5; s.parallel.last_stage_layers = 8;  // 19 left for 2 stages
    CHECK(has(errors_of(s), "parallel.last_stage_layers", "leaves 19 layers for the 2 stages between: they must split evenly, at least one each"));
    s.parallel.first_stage_layers = 16; s.parallel.last_stage_layers = 15;  // 1 left for 2 stages
    CHECK(has(errors_of(s), "parallel.last_stage_layers", "leaves 1 layers for the 2 stages between"));
    s.parallel.first_stage_layers = 5; s.parallel.last_stage_layers = 9;
    s.parallel.schedule = PipelineSchedule::Interleaved; s.parallel.virtual_stages = 3;  // 5, 9, 9, 9: 5 not of 3
    CHECK(has(errors_of(s), "parallel.first_stage_layers", "must be divisible by parallel.virtual_stages (3): each model chunk holds as many layers; got 5"));
    s.parallel.schedule = PipelineSchedule::OneFOneB; s.parallel.virtual_stages = 1;
    s.parallel.first_stage_layers = -1; s.parallel.last_stage_layers = 0;
    CHECK(has(errors_of(s), "parallel.first_stage_layers", "must be >= 0 (0: the even split); got -1"));
    s.parallel.pp = 1; s.gpu_count = 1;
    s.parallel.first_stage_layers = 3;
    CHECK(has(errors_of(s), "parallel.first_stage_layers", "needs parallel.pp > 1 (it gives a pipeline stage's layers); got pp 1"));
    // inference splits evenly: a training split left in the scenario is no error there
    s.mode = Mode::Infer;
    CHECK_FALSE(has(errors_of(s), "parallel.first_stage_layers", ""));
    // a model known only by its parameter count has no layers to place
    Scenario c = train_scenario(model_from_param_count(7e9));
    c.parallel.pp = 2; c.gpu_count = 2;
    c.parallel.last_stage_layers = 3;
    CHECK(has(errors_of(c), "parallel.last_stage_layers", "needs a model with known layers"));
}

TEST_CASE("an uneven pipeline split shows its most loaded stage: the first, the last or the second") {
    // Llama-2-7B by hand: a layer is 4 x 4096^2 + 3 x 4096 x 11008 + 2 x 4096 = 202,383,360 parameters, the embedding
    // and the head 32,000 x 4096 = 131,072,000 each, the final norm 4096; bf16-mixed weights 2 B each.
    Scenario s = train_scenario(llama2_7b());
    s.train.precision = Precision::MixedBF16;
    s.train.seq_len = 512;
    s.parallel.pp = 2; s.gpu_count = 2;
    s.parallel.first_stage_layers = 20;  // 20 + 12: the first stage, 20 layers + the embedding
    const Estimate first = estimate(s);
    REQUIRE(first.ok());
    CHECK(bytes_of(first, "weights") == Approx(2.0 * (20 * 202383360.0 + 131072000.0)));
    s.parallel.first_stage_layers = 0;
    s.parallel.last_stage_layers = 20;  // 12 + 20: the last stage, 20 layers + the final norm and the head
    const Estimate last = estimate(s);
    REQUIRE(last.ok());
    CHECK(bytes_of(last, "weights") == Approx(2.0 * (20 * 202383360.0 + 131072000.0 + 4096)));
    CHECK(std::find(last.warnings.begin(), last.warnings.end(),
                    "uneven pipeline split (first_stage_layers / last_stage_layers): 12 layers on the first stage, 20 on the last") != last.warnings.end());
    // 2 + 14 + 14 + 2 on 4 stages: a stage between holds 14 layers, the second of them the most micro-batches
    s.parallel.pp = 4; s.gpu_count = 4;
    s.parallel.first_stage_layers = 2; s.parallel.last_stage_layers = 2;
    const Estimate middle = estimate(s);
    REQUIRE(middle.ok());
    CHECK(bytes_of(middle, "weights") == Approx(2.0 * 14 * 202383360.0));
    CHECK(std::find(middle.warnings.begin(), middle.warnings.end(),
                    "pipeline stage 2, between the uneven first and last stages, is the most loaded; shown for it") != middle.warnings.end());
}
