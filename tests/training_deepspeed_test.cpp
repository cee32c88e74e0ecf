// DeepSpeed ZeRO buffers from the ds_config.json "zero_optimization" keys (core/training/overheads.cpp
// add_deepspeed_buffers). Expected values are derived by hand from DeepSpeed's source [deepspeed-zero-code]
// and the transformers Trainer's "auto" rule [transformers-deepspeed-code] for Llama-2-7b (its parameters:
// training_fixtures.h); a layer (202,383,360) is larger than the embedding, so it is the largest gathered unit.
#include <catch2/catch.hpp>

#include "scenario_json.h"
#include "share_link.h"
#include "training_fixtures.h"

using namespace vl;
using namespace vl::testing;
using Catch::Detail::Approx;

namespace {
constexpr double kP = kLlama2_7bParams;
constexpr double kLayer = kLlama2_7bLayerParams;

Scenario ds_run(int zero, int64_t dp) {
    Scenario s = train_scenario(llama2_7b());
    s.parallel.zero = zero;
    s.parallel.dp = dp;
    s.gpu_count = dp;
    s.deepspeed.enabled = true;  // DeepSpeed's defaults for every key
    return s;
}

bool has_error(const Scenario& s, const std::string& field, const std::string& text) {
    for (const FieldError& e : validate(s))
        if (e.field == field && e.message.find(text) != std::string::npos) return true;
    return false;
}
}  // namespace

TEST_CASE("DeepSpeed stage 2: one reduce bucket of 5e8 16-bit elements, two with overlap_comm, and the fp32 partition at the step") {
    Scenario s = ds_run(2, 8);
    Estimate e = estimate(s, Detail::Full);
    REQUIRE(e.ok());
    const Component* bucket = find(e, "buffers.ds_reduce_bucket");
    REQUIRE(bucket);
    CHECK(bucket->bytes == Approx(5e8 * 2));                  // overlap_comm's default is off below stage 3
    CHECK(bucket->phases == phase_bit(Phase::Backward));     // setup_buckets at the first gradient, released after
    CHECK(bytes_of(e, "buffers.ds_fp32_grads") == Approx(kP / 8 * 4));  // 3,369,207,808 B
    CHECK(find(e, "buffers.ds_fp32_grads")->phases == phase_bit(Phase::Step));
    CHECK(find(e, "buffers.comm_bucket") == nullptr);        // DeepSpeed's bucket replaces the generic one
    CHECK(find(e, "buffers.ds_gathered_params") == nullptr);  // stage 3 only
    CHECK(bucket->formula() == "reduce_bucket_size * grad_bytes * buffers");

    s.deepspeed.overlap_comm = DsOverlap::On;
    CHECK(bytes_of(estimate(s), "buffers.ds_reduce_bucket") == Approx(2 * 5e8 * 2));
    s.deepspeed.contiguous_gradients = false;  // gradients reduced where they are: no bucket
    CHECK(find(estimate(s), "buffers.ds_reduce_bucket") == nullptr);
}

TEST_CASE("DeepSpeed's step flattens the 16-bit gradient partition before its fp32 cast: the larger of it and the optimizer's temporaries") {
    // stage_1_and_2.py step: single_grad_partition = self.flatten(averaged_gradients[i]).to(fp32). Llama-2-7b over 8 ranks:
    // the flat copy is P / 8 x 2 B = 1,684,603,904 B, alive with the fp32 partition (P / 8 x 4 B) while .to() runs.
    Scenario s = ds_run(2, 8);
    s.train.optimizer_impl = OptimizerImpl::Auto;  // DeepSpeed's own FusedAdam: in place, no step temporaries
    Estimate e = estimate(s, Detail::Full);
    REQUIRE(e.ok());
    const Component* flat = find(e, "buffers.ds_flat_grads");
    REQUIRE(flat);
    CHECK(flat->bytes == Approx(kP / 8 * 2));
    CHECK(flat->phases == phase_bit(Phase::Step));
    CHECK(find(e, "optimizer.foreach_temporaries") == nullptr);
    // torch's AdamW (foreach) stepped by DeepSpeed: sqrt(v) of the fp32 partition, P / 8 x 4 B, comes after the flat copy
    // is dropped and is larger, so the copy adds nothing.
    s.train.optimizer_impl = OptimizerImpl::Foreach;
    e = estimate(s, Detail::Full);
    CHECK(bytes_of(e, "optimizer.foreach_temporaries") == Approx(kP / 8 * 4));
    CHECK(bytes_of(e, "buffers.ds_flat_grads") == 0);
    // Stage 3 flattens one sub group at a time: 1e8 elements x 2 B.
    s = ds_run(3, 8);
    s.deepspeed.sub_group_size = 1e8;
    CHECK(bytes_of(estimate(s), "buffers.ds_flat_grads") == Approx(1e8 * 2));
    // With the optimizer on the host the gradients are flattened there.
    s.parallel.offload_optimizer = true;
    CHECK(find(estimate(s), "buffers.ds_flat_grads") == nullptr);
}

TEST_CASE("DeepSpeed stage 3 defaults: one bucket from init, one sub group of fp32 gradients, gathered parameters held for reuse") {
    Scenario s = ds_run(3, 8);
    Estimate e = estimate(s);
    REQUIRE(e.ok());
    CHECK(bytes_of(e, "buffers.ds_reduce_bucket") == Approx(5e8 * 2));  // overlap_comm on, but stage 3 keeps one buffer
    CHECK(find(e, "buffers.ds_reduce_bucket")->phases == (phase_bit(Phase::Forward) | phase_bit(Phase::Backward) | phase_bit(Phase::Step)));
    // P / 8 = 842,301,952 elements < sub_group_size 1e9: the whole partition is one sub group.
    CHECK(bytes_of(e, "buffers.ds_fp32_grads") == Approx(kP / 8 * 4));
    // held = max(layer, max_reuse_distance / 2) = 5e8; ahead = min(5e7, 1e9 - 5e8) = 5e7; (5e8 + 5e7) x 2 B.
    CHECK(bytes_of(e, "buffers.ds_gathered_params") == Approx(5.5e8 * 2));
    CHECK(find(e, "buffers.zero3_gather") == nullptr);
    CHECK(bytes_of(e, "buffers.zero3_layer_grads") == Approx(kLayer * 2));  // unchanged: one layer's 16-bit gradients
    // Persistent: the 65 RMSNorm weights of 4096 (<= 1e5); every matrix is larger. Whole on each rank, 1/8 counted already.
    CHECK(bytes_of(e, "weights.ds_persistent") == Approx(65 * 4096 * 2 * (1 - 1.0 / 8)));

    s.deepspeed.sub_group_size = 1e8;  // the optimizer steps 1e8 elements at a time
    CHECK(bytes_of(estimate(s), "buffers.ds_fp32_grads") == Approx(1e8 * 4));
    s.deepspeed.stage3_max_live_parameters = 5.2e8;  // the prefetch stops 2e7 above what is held
    CHECK(bytes_of(estimate(s), "buffers.ds_gathered_params") == Approx(5.2e8 * 2));
    s.deepspeed.stage3_max_reuse_distance = 0;  // nothing kept for reuse: the running layer and the prefetch
    CHECK(bytes_of(estimate(s), "buffers.ds_gathered_params") == Approx((kLayer + 5e7) * 2));
    s.deepspeed.stage3_max_reuse_distance = 1e12;  // everything kept: the gather is bounded by the rank's parameters
    CHECK(bytes_of(estimate(s), "buffers.ds_gathered_params") == Approx(kP * 2));
}

TEST_CASE("DeepSpeed \"auto\" sizes: hidden^2, 0.9 hidden^2 and 10 hidden as the transformers Trainer fills them") {
    Scenario s = ds_run(3, 8);
    s.deepspeed.reduce_bucket_size = kDsAuto;
    s.deepspeed.stage3_prefetch_bucket_size = kDsAuto;
    s.deepspeed.stage3_param_persistence_threshold = kDsAuto;
    Estimate e = estimate(s, Detail::Full);
    REQUIRE(e.ok());
    CHECK(bytes_of(e, "buffers.ds_reduce_bucket") == Approx(4096.0 * 4096 * 2));  // 33,554,432 B
    CHECK(bytes_of(e, "buffers.ds_gathered_params") == Approx((5e8 + 0.9 * 4096 * 4096) * 2));
    CHECK(bytes_of(e, "weights.ds_persistent") == Approx(65 * 4096 * 2 * (1 - 1.0 / 8)));  // 10 x 4096 still keeps the norms only
    CHECK(find(e, "buffers.ds_reduce_bucket")->substituted() == "16,777,216 * 2 * 1 = 33,554,432 B");
}

TEST_CASE("DeepSpeed offload_optimizer: the fp32 gradient partition is host memory, not GPU") {
    Scenario s = ds_run(3, 8);
    s.parallel.offload_optimizer = true;
    Estimate e = estimate(s);
    REQUIRE(e.ok());
    CHECK(find(e, "buffers.ds_fp32_grads") == nullptr);
    const Component* host = find(e, "host.ds_fp32_grads");
    REQUIRE(host);
    CHECK(host->host);
    CHECK(host->bytes == Approx(kP / 8 * 4));
    CHECK(std::string(host->label).find("pinned") != std::string::npos);
    s.deepspeed.pin_memory = false;
    CHECK(std::string(find(estimate(s), "host.ds_fp32_grads")->label).find("pinned") == std::string::npos);
}

TEST_CASE("DeepSpeed off: the generic bucket and ZeRO-3 gather stay as they were") {
    Scenario s = ds_run(3, 8);
    s.deepspeed.enabled = false;
    Estimate e = estimate(s);
    CHECK(bytes_of(e, "buffers.comm_bucket") == Approx(25e6 * 4));
    CHECK(bytes_of(e, "buffers.zero3_gather") == Approx(kLayer * 2));
    CHECK(find(e, "buffers.ds_reduce_bucket") == nullptr);
    CHECK(find(e, "buffers.ds_gathered_params") == nullptr);
}

// DeepSpeed partitions every parameter, frozen ones included (parameter_offload.py _convert_to_zero_parameters
// [deepspeed-zero-code]), so offload_param moves a LoRA run's frozen base to the host. PEFT's README log of
// T0_3B (2.85B parameters, fp32: 11.4 GB) under LoRA + ZeRO-3 + offload_param shows 1916 MiB on the GPU before
// training: the 5e8-element fp32 reduce bucket (1907 MiB), not the base [peft-code].
TEST_CASE("DeepSpeed with LoRA, ZeRO-3 and offload_param moves the frozen base to the host") {
    Scenario s = ds_run(3, 1);
    s.mode = Mode::FineTune;
    s.finetune.method = FineTuneMethod::LoRA;
    s.parallel.offload_params = true;
    s.parallel.offload_optimizer = true;
    Estimate e = estimate(s);
    REQUIRE(e.ok());
    const Component* frozen = find(e, "weights.frozen");
    REQUIRE(frozen);
    CHECK(frozen->host);
    CHECK(frozen->bytes == Approx(kP * 2));
}

TEST_CASE("DeepSpeed keys: bad values name the field") {
    Scenario s = ds_run(3, 8);
    s.deepspeed.reduce_bucket_size = -5;
    CHECK(has_error(s, "deepspeed.reduce_bucket_size", "must be a number of elements in [0, 1e15] or \"auto\"; got -5"));
    s = ds_run(3, 8);
    s.deepspeed.sub_group_size = -1;  // not "auto": sub_group_size has no auto rule
    CHECK(has_error(s, "deepspeed.sub_group_size", "must be a number of elements in [0, 1e15]; got -1"));
    s = ds_run(3, 8);
    s.parallel.zero = 0;
    CHECK(has_error(s, "deepspeed.enabled", "need parallel.zero 1, 2 or 3"));
    s = train_scenario(params_only(7000000000));
    s.parallel.zero = 3;
    s.deepspeed.enabled = true;
    s.deepspeed.reduce_bucket_size = kDsAuto;
    CHECK(has_error(s, "deepspeed.reduce_bucket_size", "\"auto\" is hidden_size-based"));
}

TEST_CASE("DeepSpeed keys in scenario JSON: real key names, \"auto\", share link round trip, errors by path") {
    const std::string text = R"({"version": 1, "model": "llama-2-7b", "parallel": {"dp": 8, "zero": 3},
        "deepspeed": {"enabled": true, "reduce_bucket_size": "auto", "stage3_prefetch_bucket_size": 2e7, "overlap_comm": "off",
                      "stage3_param_persistence_threshold": "auto", "sub_group_size": 1e8}})";
    Result<Scenario> r = scenario_from_json(text);
    REQUIRE(r.ok());
    CHECK(r->deepspeed.enabled);
    CHECK(r->deepspeed.reduce_bucket_size == kDsAuto);
    CHECK(r->deepspeed.stage3_prefetch_bucket_size == 2e7);
    CHECK(r->deepspeed.overlap_comm == DsOverlap::Off);
    CHECK(r->deepspeed.sub_group_size == 1e8);
    CHECK(r->deepspeed.stage3_max_live_parameters == 1e9);  // left out: DeepSpeed's default
    CHECK(scenario_to_json(*r, JsonStyle::Compact).find(R"("reduce_bucket_size":"auto")") != std::string::npos);
    Result<Scenario> back = decode_share_link(encode_share_link(*r));
    REQUIRE(back.ok());
    CHECK(back->deepspeed == r->deepspeed);

    Result<Scenario> bad = scenario_from_json(R"({"version": 1, "deepspeed": {"reduce_bucket_size": "big", "stage3_max_live_parameters": "auto", "buckets": 1}})");
    REQUIRE_FALSE(bad.ok());
    const auto message = [&](const std::string& field) {
        for (const FieldError& e : bad.errors)
            if (e.field == field) return e.message;
        return std::string("(none)");
    };
    CHECK(message("deepspeed.reduce_bucket_size") == "must be a number of elements or \"auto\"; got \"big\"");
    CHECK(message("deepspeed.stage3_max_live_parameters") == "must be a number; got \"auto\"");
    CHECK(message("deepspeed.buckets") == "unknown field");
}

// QLoRA with bnb_4bit_quant_storage = bf16: DeepSpeed's sizes count ds_numel, elements of the packed storage, two
// 4-bit values a byte, so a weight of n params is n * 0.5 / 2 = n / 4 bf16 elements [bitsandbytes-043-code].
TEST_CASE("DeepSpeed stage 3 with QLoRA: the gather counts elements of the packed 4-bit storage") {
    Scenario s = ds_run(3, 8);
    s.mode = Mode::FineTune;
    s.finetune.method = FineTuneMethod::QLoRA;
    s.deepspeed.stage3_max_reuse_distance = 0;  // the running layer and the prefetch
    Estimate e = estimate(s);
    REQUIRE(e.ok());
    // 202,383,360 / 4 = 50,595,840 elements; ahead = min(5e7, 1e9 - 50,595,840) = 5e7; x 2 B.
    CHECK(bytes_of(e, "buffers.ds_gathered_params") == Approx((50595840.0 + 5e7) * 2));
    // Everything kept: bounded by the rank's elements, 6,738,415,616 - 6,476,005,376 linear x (1 - 1/4) = 1,881,411,584.
    s.deepspeed.stage3_max_reuse_distance = 1e12;
    CHECK(bytes_of(estimate(s), "buffers.ds_gathered_params") == Approx(1881411584.0 * 2));
}
