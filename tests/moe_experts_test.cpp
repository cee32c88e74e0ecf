// MoE layers whose routed experts are 3-D parameters (gpt-oss's GptOssExperts, core/training/moe_experts.h):
// transformers' per-expert training loop (train.moe_experts) and PEFT's LoRA on those parameters
// (finetune.lora_expert_layers). Expected bytes are hand derivations from gpt-oss-20b's config (d 2880, 24 layers,
// 32 experts of I = 2880, top-4) [gpt-oss-card]:
//   gate_up_proj [32, 2880, 5760] = 530,841,600 elements, down_proj [32, 2880, 2880] = 265,420,800 elements.
#include <catch2/catch.hpp>

#include <string>

#include "allocator_reserve.h"
#include "component_lookup.h"
#include "estimate.h"
#include "scenario_json.h"
#include "share_link.h"

using namespace vl;

namespace {

constexpr double kGateUp = 32.0 * 2880 * 5760;  // 530,841,600
constexpr double kDown = 32.0 * 2880 * 2880;    // 265,420,800

Scenario parse(const std::string& json) {
    Result<Scenario> r = scenario_from_json(json);
    INFO((r.errors.empty() ? std::string() : to_string(r.errors[0])));
    REQUIRE(r.ok());
    return *r;
}

// Axolotl's gpt-oss-20b full fine-tune on FSDP2 (tests/data/accuracy/measured.json axolotl-gpt-oss-20b-fft-fsdp2-8x48gb).
Scenario fsdp2_full(const char* experts) {
    return parse(std::string(R"({"version": 1, "model": "gpt-oss-20b", "mode": "train",
        "train": {"precision": "bf16-pure", "optimizer": "adamw-8bit", "micro_batch": 1, "seq_len": 4096, "grad_accum_steps": 2,
                  "recompute": "full", "offload_checkpoints": true, "flash_attention": true, "loss": "fused", "moe_experts": ")") +
                 experts + R"("},
        "parallel": {"dp": 8, "zero": 3, "fsdp_version": 2}, "gpu": "l40s", "gpu_count": 8})");
}

Scenario lora(int expert_layers, const char* experts = "grouped", double dropout = 0) {
    return parse(R"({"version": 1, "model": "gpt-oss-20b", "mode": "finetune",
        "train": {"precision": "bf16-pure", "optimizer": "adamw-8bit", "micro_batch": 1, "seq_len": 4096, "grad_accum_steps": 8,
                  "recompute": "full", "offload_checkpoints": true, "flash_attention": true, "loss": "fused", "moe_experts": ")" +
                 std::string(experts) + R"("},
        "finetune": {"method": "lora", "lora_rank": 8, "lora_targets": ["q_proj", "k_proj", "v_proj", "o_proj"], "lora_dropout": )" +
                 std::to_string(dropout) + R"(, "adapters_fp32": true, "lora_expert_layers": )" + std::to_string(expert_layers) + R"(},
        "gpu": "l40s"})");
}

}  // namespace

TEST_CASE("moe experts: transformers' per-expert loop saves a copy of each visited expert's weights and makes full-size gradients") {
    const Estimate e = estimate(fsdp2_full("loop"), Detail::Full);
    // 4096 tokens x top-4 reach every one of the 32 experts; full recomputation: one layer's copies, in backward only.
    CHECK(test::bytes_of(e, "act.expert_slices") == Approx((kGateUp + kDown) * 2));  // 1,592,524,800 B
    CHECK(test::live_in(e, "act.expert_slices", Phase::Backward));
    CHECK_FALSE(test::live_in(e, "act.expert_slices", Phase::Forward));
    // FSDP2 frees each layer's unsharded gradients after its reduce-scatter: one zeros-and-index_put gradient of
    // gate_up_proj beside the buffer it is added into (that buffer is buffers.zero3_layer_grads).
    CHECK(test::bytes_of(e, "act.expert_index_grad") == Approx(kGateUp * 2));  // 1,061,683,200 B
    CHECK(test::live_in(e, "act.expert_index_grad", Phase::Backward));
    CHECK_FALSE(test::live_in(e, "act.expert_index_grad", Phase::Step));
}

TEST_CASE("moe experts: a grouped kernel (use_kernels MegaBlocks) has neither the loop's copies nor its extra gradients") {
    const Estimate loop = estimate(fsdp2_full("loop"), Detail::NumbersOnly);
    const Estimate grouped = estimate(fsdp2_full("grouped"), Detail::NumbersOnly);
    CHECK(test::find(grouped, "act.expert_slices") == nullptr);
    CHECK(test::find(grouped, "act.expert_index_grad") == nullptr);
    // Nothing else allocated differs: beside the allocator's reserve the peak (backward) moves by the two components
    // exactly; the reserve's split holes are now counted in units of the full-size gradient, the step's largest
    // transient (allocator_reserve.h), where the grouped kernel's largest is far smaller.
    const auto allocated = [](const Estimate& e) { return e.total_bytes - test::bytes_of(e, "overhead.fragmentation"); };
    CHECK(allocated(loop) - allocated(grouped) == Approx((kGateUp + kDown) * 2 + kGateUp * 2));
    CHECK(test::bytes_of(loop, "overhead.fragmentation") == Approx(kSplitHoles * kGateUp * 2));
    CHECK(test::bytes_of(grouped, "overhead.fragmentation") < test::bytes_of(loop, "overhead.fragmentation"));
}

TEST_CASE("moe experts: with accumulation into an existing .grad the loop's gradient buffers are held apart") {
    // One GPU, no sharding, 2 micro-batches: from the second one .grad holds the first's gradient, and the engine sums
    // the experts' slice gradients in buffers of their own (gate_up_proj's and down_proj's) before AccumulateGrad adds them.
    Scenario s = fsdp2_full("loop");
    s.parallel = Parallelism{};
    s.gpu_count = 1;
    const Estimate e = estimate(s, Detail::NumbersOnly);
    CHECK(test::bytes_of(e, "act.expert_index_grad") == Approx((kGateUp + kGateUp + kDown) * 2));  // 2,654,208,000 B
    s.train.grad_accum_steps = 1;  // set_to_none: the buffer becomes .grad, nothing held apart
    CHECK(test::bytes_of(estimate(s, Detail::NumbersOnly), "act.expert_index_grad") == Approx(kGateUp * 2));
}

TEST_CASE("moe experts: without recomputation every MoE layer keeps its copies from forward to backward") {
    Scenario s = fsdp2_full("loop");
    s.train.recompute = Recompute::None;
    s.train.offload_checkpoints = false;
    const Estimate e = estimate(s, Detail::NumbersOnly);
    CHECK(test::bytes_of(e, "act.expert_slices") == Approx(24 * (kGateUp + kDown) * 2));
    CHECK(test::live_in(e, "act.expert_slices", Phase::Forward));
}

TEST_CASE("moe experts: LoRA through PEFT target_parameters on the last MoE layers' experts") {
    const Estimate none = estimate(lora(0), Detail::NumbersOnly);
    const Estimate two = estimate(lora(2), Detail::Full);
    CHECK(test::find(none, "act.expert_lora_delta") == nullptr);
    // ParamWrapper's delta weights of one layer: both in bf16, and gate_up_proj's fp32 einsum product while it is cast.
    CHECK(test::bytes_of(two, "act.expert_lora_delta") == Approx((kGateUp + kDown) * 2 + kGateUp * 4));  // 3,715,891,200 B
    CHECK(test::live_in(two, "act.expert_lora_delta", Phase::Forward));
    CHECK(test::live_in(two, "act.expert_lora_delta", Phase::Backward));
    // The adapters: lora_A [r E, in] and lora_B [out, r E] on [E, in, out] = r E (in + out) each:
    // 8 x 32 x ((2880 + 5760) + (2880 + 2880)) = 3,686,400 a layer, two layers, in fp32 (adapters_fp32).
    const double adapters = 2 * 8 * 32 * ((2880 + 5760) + (2880 + 2880));
    CHECK(test::bytes_of(two, "lora.weights") - test::bytes_of(none, "lora.weights") == Approx(adapters * 4));
    // The experts themselves stay frozen: no loop gradients.
    CHECK(test::find(two, "act.expert_index_grad") == nullptr);
}

TEST_CASE("moe experts: lora_expert_layers is refused where it does not apply, each error naming its field") {
    const auto error_field = [](const Scenario& s) {
        const Estimate e = estimate(s, Detail::NumbersOnly);
        return e.errors.empty() ? std::string() : e.errors.front().field;
    };
    CHECK(error_field(lora(2)).empty());
    CHECK(error_field(lora(25)) == "finetune.lora_expert_layers");  // gpt-oss-20b has 24 MoE layers
    CHECK(error_field(lora(-1)) == "finetune.lora_expert_layers");
    CHECK(error_field(lora(2, "grouped", 0.05)) == "finetune.lora_dropout");  // PEFT's ParamWrapper refuses dropout
    Scenario full = lora(2);
    full.finetune.method = FineTuneMethod::Full;
    CHECK(error_field(full) == "finetune.lora_expert_layers");
    Scenario llama = parse(R"({"version": 1, "model": "llama-3.1-8b", "mode": "finetune", "finetune": {"method": "lora", "lora_expert_layers": 1}})");
    CHECK(error_field(llama) == "finetune.lora_expert_layers");
    // the loop with adapted experts says what it leaves out
    const Estimate warned = estimate(lora(2, "loop"), Detail::NumbersOnly);
    bool said = false;
    for (const std::string& w : warned.warnings) said = said || w.find("train.moe_experts loop") != std::string::npos;
    CHECK(said);
}

TEST_CASE("moe experts: both fields read and write by name") {
    Scenario s = lora(2, "loop");
    CHECK(s.train.moe_experts == MoeExperts::Loop);
    CHECK(s.finetune.lora_expert_layers == 2);
    s.train.moe_experts = MoeExperts::Grouped;
    const Scenario back = parse(scenario_to_json(s));
    CHECK(back.train.moe_experts == MoeExperts::Grouped);
    CHECK(back.finetune.lora_expert_layers == 2);
    const Result<Scenario> linked = decode_share_link(encode_share_link(s));
    REQUIRE(linked.ok());
    CHECK(linked->train.moe_experts == MoeExperts::Grouped);
    CHECK(linked->finetune.lora_expert_layers == 2);
    const Result<Scenario> bad = scenario_from_json(R"({"version": 1, "train": {"moe_experts": "fused"}})");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.errors.front().field == "train.moe_experts");
}
