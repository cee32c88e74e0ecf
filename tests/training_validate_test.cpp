// Bad training input gets a FieldError naming the field; every valid combination gives finite,
// non-negative components that carry a formula and a source.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "training_fixtures.h"

using namespace vl;
using namespace vl::testing;

TEST_CASE("validate_training names the field and the rule") {
    struct Bad { void (*set)(Scenario&); const char* field; };
    const Bad bad[] = {
        {[](Scenario& s) { s.train.micro_batch = 0; }, "train.micro_batch"},
        {[](Scenario& s) { s.train.seq_len = -5; }, "train.seq_len"},
        {[](Scenario& s) { s.train.grad_accum_steps = 0; }, "train.grad_accum_steps"},
        {[](Scenario& s) { s.train.dropout = std::numeric_limits<double>::quiet_NaN(); }, "train.dropout"},
        {[](Scenario& s) { s.train.dropout = 1.0; }, "train.dropout"},
        {[](Scenario& s) { s.train.recompute_every_k = 0; }, "train.recompute_every_k"},
        {[](Scenario& s) { s.train.optimizer = Optimizer::Custom; s.train.custom_optimizer_bytes_per_param = -1; }, "train.custom_optimizer_bytes_per_param"},
        {[](Scenario& s) { s.overheads.fragmentation = std::numeric_limits<double>::infinity(); }, "overheads.fragmentation"},
        {[](Scenario& s) { s.overheads.cuda_context_bytes = std::numeric_limits<double>::quiet_NaN(); }, "overheads.cuda_context_bytes"},
        {[](Scenario& s) { s.parallel.cp = 3; s.gpu_count = 3; s.train.seq_len = 4096; }, "train.seq_len"},
    };
    for (const Bad& b : bad) {
        Scenario s = train_scenario(llama2_7b());
        b.set(s);
        const Estimate e = estimate(s);
        REQUIRE_FALSE(e.ok());
        REQUIRE(e.errors.front().field == b.field);
        REQUIRE(e.components.empty());
    }
    Scenario s = train_scenario(gpt_model("GPT-2", 768, 12, 12, 50257, 1024));
    s.train.seq_len = 2048;  // beyond the learned position table
    const Estimate e = estimate(s);
    REQUIRE_FALSE(e.ok());
    REQUIRE(e.errors.front().message.find("max_position_embeddings (1024)") != std::string::npos);
}

namespace {
ModelSpec small_moe_mla() {
    ModelSpec m;  // DeepSeek-V2-Lite-like: MLA + MoE with a shared expert and one leading dense layer
    m.name = "tiny-moe-mla"; m.model_type = "deepseek_v2";
    m.vocab = 102400; m.hidden = 2048; m.layers = 8; m.heads = 16; m.kv_heads = 16; m.head_dim = 128; m.ffn = 10944;
    m.attention = AttentionKind::MLA;
    m.mla.q_lora_rank = 0; m.mla.kv_lora_rank = 512; m.mla.qk_rope_head_dim = 64; m.mla.qk_nope_head_dim = 128; m.mla.v_head_dim = 128;
    m.moe.num_experts = 64; m.moe.top_k = 6; m.moe.expert_ffn = 1408; m.moe.shared_experts = 2; m.moe.first_dense_layers = 1;
    m.max_position = 4096;
    return m;
}
}  // namespace

TEST_CASE("a sweep of valid scenarios gives finite components, each with a formula and a source") {
    const ModelSpec models[] = {llama2_7b(), kort_22b(), small_moe_mla()};
    int checked = 0;
    for (const ModelSpec& m : models)
        for (int mode = 0; mode < 3; ++mode)
            for (int rc = 0; rc < 4; ++rc)
                for (int prec = 0; prec < 5; ++prec)
                    for (int par = 0; par < 4; ++par) {
                        Scenario s = train_scenario(m);
                        s.mode = mode == 0 ? Mode::Train : Mode::FineTune;
                        s.finetune.method = mode == 1 ? FineTuneMethod::LoRA : FineTuneMethod::QLoRA;
                        s.finetune.lora_targets = kLoraAllLinear;
                        s.finetune.lora_dropout = 0.05;
                        s.train.recompute = static_cast<Recompute>(rc);
                        s.train.recompute_every_k = 3;
                        s.train.precision = static_cast<Precision>(prec);
                        s.train.optimizer = static_cast<Optimizer>((prec + par) % 7);
                        s.train.flash_attention = (rc % 2) == 0;
                        s.train.dropout = 0.1;
                        s.train.grad_accum_steps = 4;
                        if (par == 1) { s.parallel.tp = 2; s.parallel.sp = true; s.parallel.dp = 2; s.parallel.zero = 3; }
                        if (par == 2) { s.parallel.pp = 2; s.parallel.schedule = PipelineSchedule::Interleaved; s.parallel.virtual_stages = 2; s.parallel.dp = 4; s.parallel.zero = 2; s.parallel.offload_optimizer = true; }
                        if (par == 3) { s.parallel.cp = 2; s.parallel.dp = 2; s.parallel.zero = 1; }
                        s.gpu_count = s.parallel.dp * s.parallel.tp * s.parallel.pp * s.parallel.cp;
                        const Estimate e = estimate(s);
                        INFO(m.name << " mode " << mode << " rc " << rc << " prec " << prec << " par " << par);
                        REQUIRE(e.ok());
                        REQUIRE(std::isfinite(e.total_bytes));
                        REQUIRE(e.total_bytes > 0);
                        for (const Component& c : e.components) {
                            INFO(c.id);
                            REQUIRE(std::isfinite(c.bytes));
                            REQUIRE(c.bytes >= 0);
                            REQUIRE(std::string(c.formula()).size() > 0);
                            REQUIRE(std::string(c.source).size() > 0);
                        }
                        ++checked;
                    }
    REQUIRE(checked == 3 * 3 * 4 * 5 * 4);
}
