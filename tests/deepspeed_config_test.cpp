// A DeepSpeed ds_config.json read as scenario edits (core/deepspeed_config.h): key names and meanings from
// DeepSpeed's zero/config.py and offload_config.py [deepspeed-zero-code], "auto" as the transformers Trainer
// leaves it to its own arguments [transformers-deepspeed-code].
#include <catch2/catch.hpp>

#include "deepspeed_config.h"

using namespace vl;

TEST_CASE("DeepSpeed config import: a transformers-style ZeRO-3 config with \"auto\" becomes scenario edits") {
    // The shape of the ZeRO-3 example in the transformers DeepSpeed docs [hf-deepspeed-docs].
    const std::string ds = R"({
        "fp16": {"enabled": "auto"}, "bf16": {"enabled": "auto"},
        "zero_optimization": {
            "stage": 3,
            "offload_optimizer": {"device": "cpu", "pin_memory": true},
            "offload_param": {"device": "cpu", "pin_memory": true},
            "overlap_comm": true, "contiguous_gradients": true, "sub_group_size": 1e9,
            "reduce_bucket_size": "auto", "stage3_prefetch_bucket_size": "auto", "stage3_param_persistence_threshold": "auto",
            "stage3_max_live_parameters": 1e9, "stage3_max_reuse_distance": 1e9,
            "stage3_gather_16bit_weights_on_model_save": true},
        "gradient_accumulation_steps": "auto", "train_micro_batch_size_per_gpu": "auto"})";
    Result<std::vector<ScenarioEdit>> r = deepspeed_config_edits(ds);
    REQUIRE(r.ok());
    const auto value = [&](const std::string& path) {
        for (const ScenarioEdit& e : *r)
            if (e.path == path) return e.json;
        return std::string("(not set)");
    };
    CHECK(value("parallel.zero") == "3");
    CHECK(value("deepspeed.enabled") == "true");
    CHECK(value("deepspeed.reduce_bucket_size") == "\"auto\"");
    CHECK(value("deepspeed.stage3_prefetch_bucket_size") == "\"auto\"");
    CHECK(value("deepspeed.stage3_param_persistence_threshold") == "\"auto\"");
    CHECK(value("deepspeed.overlap_comm") == "\"on\"");
    CHECK(value("deepspeed.contiguous_gradients") == "true");
    CHECK(value("deepspeed.sub_group_size") == "1000000000.0");
    CHECK(value("parallel.offload_optimizer") == "true");
    CHECK(value("parallel.offload_params") == "true");
    CHECK(value("deepspeed.pin_memory") == "true");
    CHECK(value("train.precision") == "(not set)");  // "auto": the Trainer's flags decide
    CHECK(value("train.micro_batch") == "(not set)");
    REQUIRE(r.warnings.size() == 2);  // bf16 and fp16 "auto"; the save-time key has no memory effect, no warning
    CHECK(r.warnings[0].find("bf16.enabled \"auto\"") == 0);

    Result<std::vector<ScenarioEdit>> other = deepspeed_config_edits(
        R"({"bf16": {"enabled": true}, "train_micro_batch_size_per_gpu": 4, "zero_optimization": {"stage": 2, "zero_hpz_partition_size": 8}})");
    REQUIRE(other.ok());
    CHECK(other->front() == ScenarioEdit{"parallel.zero", "2"});
    REQUIRE(other.warnings.size() == 1);
    CHECK(other.warnings[0] == "zero_optimization.zero_hpz_partition_size: not read (its memory effect is not modelled)");
}

TEST_CASE("DeepSpeed config import: bad values name the ds_config path") {
    const auto error = [](const std::string& text, const std::string& field) {
        Result<std::vector<ScenarioEdit>> r = deepspeed_config_edits(text);
        for (const FieldError& e : r.errors)
            if (e.field == field) return e.message;
        return std::string("(no error)");
    };
    CHECK(error(R"({"zero_optimization": {"stage": 5}})", "zero_optimization.stage") == "must be 0, 1, 2 or 3; got 5");
    CHECK(error(R"({"train_batch_size": 8})", "zero_optimization").find("missing") == 0);
    CHECK(error(R"({"zero_optimization": {"stage": 3, "sub_group_size": "auto"}})", "zero_optimization.sub_group_size")
              .find("\"auto\" has no rule for this key") == 0);
    CHECK(error(R"({"zero_optimization": {"stage": 3, "reduce_bucket_size": -1}})", "zero_optimization.reduce_bucket_size") ==
          "must be a number of elements >= 0 or \"auto\"; got -1");
    CHECK(error(R"({"zero_optimization": {"stage": 3, "offload_param": {"device": "gpu"}}})", "zero_optimization.offload_param.device") ==
          "must be \"cpu\", \"nvme\" or \"none\"; got \"gpu\"");
    CHECK(error(R"({"zero_optimization": {"stage": 3, "overlap_comm": "yes"}})", "zero_optimization.overlap_comm") ==
          "must be true or false; got \"yes\"");
}
