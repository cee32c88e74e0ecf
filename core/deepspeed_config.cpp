// ds_config.json -> scenario edits (deepspeed_config.h). Key names and meanings: DeepSpeed's
// deepspeed/runtime/zero/config.py and offload_config.py [deepspeed-zero-code]; "auto" as the
// transformers Trainer fills it [transformers-deepspeed-code].
#include "deepspeed_config.h"

#include <nlohmann/json.hpp>

#include "cold.h"
#include "json_input.h"

namespace vl {

namespace {

using Json = nlohmann::ordered_json;

std::string text_of(const Json& j) {
    std::string s = j.dump(-1, ' ', false, Json::error_handler_t::replace);
    return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

bool is_auto(const Json& j) { return j.is_string() && j.get_ref<const std::string&>() == "auto"; }

// zero_optimization keys DeepSpeed reads that change no memory vramlens counts (communication pattern,
// checkpoint saving); they are read without a warning.
constexpr const char* kNoMemoryEffect[] = {
    "reduce_scatter", "allgather_partitions", "round_robin_gradients", "elastic_checkpoint", "ignore_unused_parameters",
    "load_from_fp32_weights", "use_multi_rank_bucket_allreduce", "stage3_gather_16bit_weights_on_model_save",
    "stage3_gather_fp16_weights_on_model_save", "gather_16bit_weights_on_model_save", "memory_efficient_linear",
    "log_trace_cache_warnings", "enable_sanity_checks", "override_module_apply", "pipeline_loading_checkpoint",
};

struct Editor {
    std::vector<ScenarioEdit> edits;
    std::vector<FieldError> errs;
    std::vector<std::string> warnings;

    void set(const std::string& path, const Json& v) { edits.push_back({path, v.dump()}); }

    // A size in elements: a number >= 0, or "auto" where the Trainer fills it from hidden_size.
    void size(const Json& z, const char* key, bool may_be_auto) {
        auto it = z.find(key);
        if (it == z.end()) return;
        const std::string where = std::string("zero_optimization.") + key;
        if (is_auto(*it)) {
            if (may_be_auto) set(std::string("deepspeed.") + key, "auto");
            else cold([&] { errs.push_back({where, "\"auto\" has no rule for this key (the transformers Trainer fills only reduce_bucket_size, "
                                                   "stage3_prefetch_bucket_size and stage3_param_persistence_threshold); give a number of elements"}); });
            return;
        }
        if (!it->is_number() || it->get<double>() < 0) {
            cold([&] { errs.push_back({where, std::string("must be a number of elements >= 0") + (may_be_auto ? " or \"auto\"" : "") + "; got " + text_of(*it)}); });
            return;
        }
        set(std::string("deepspeed.") + key, *it);
    }

    void flag(const Json& z, const char* key, const std::string& path, bool on_off) {
        auto it = z.find(key);
        if (it == z.end()) return;
        if (!it->is_boolean()) {
            cold([&] { errs.push_back({std::string("zero_optimization.") + key, "must be true or false; got " + text_of(*it)}); });
            return;
        }
        set(path, on_off ? Json(it->get<bool>() ? "on" : "off") : *it);
    }

    // offload_optimizer / offload_param: {"device": "cpu" | "nvme" | "none", "pin_memory": bool}.
    void offload(const Json& z, const char* key, const char* path) {
        auto it = z.find(key);
        if (it == z.end() || it->is_null()) return;
        const std::string where = std::string("zero_optimization.") + key;
        if (!it->is_object()) { cold([&] { errs.push_back({where, "must be an object such as {\"device\": \"cpu\"}; got " + text_of(*it)}); }); return; }
        auto dev = it->find("device");
        const std::string device = dev != it->end() && dev->is_string() ? dev->get<std::string>() : "";
        if (device != "cpu" && device != "nvme" && device != "none") {
            cold([&] { errs.push_back({where + ".device", "must be \"cpu\", \"nvme\" or \"none\"; got " + (dev == it->end() ? std::string("nothing") : text_of(*dev))}); });
            return;
        }
        set(path, device != "none");
        if (device == "nvme") cold([&] { warnings.push_back(where + ".device \"nvme\": counted as host memory (NVMe swap buffers are not modelled)"); });
        if (auto pin = it->find("pin_memory"); pin != it->end() && device != "none") {
            if (pin->is_boolean()) set("deepspeed.pin_memory", *pin);
            else cold([&] { errs.push_back({where + ".pin_memory", "must be true or false; got " + text_of(*pin)}); });
        }
    }

    // bf16 / fp16: {"enabled": true | false | "auto"}.
    void precision(const Json& root, const char* key, const char* name) {
        auto it = root.find(key);
        if (it == root.end() || !it->is_object()) return;
        auto en = it->find("enabled");
        if (en == it->end()) return;
        if (is_auto(*en)) { cold([&] { warnings.push_back(std::string(key) + ".enabled \"auto\": the Trainer's --" + key + " decides; train.precision is kept"); }); return; }
        if (!en->is_boolean()) { cold([&] { errs.push_back({std::string(key) + ".enabled", "must be true, false or \"auto\"; got " + text_of(*en)}); }); return; }
        if (en->get<bool>()) set("train.precision", name);
    }

    // train_micro_batch_size_per_gpu, gradient_accumulation_steps: integers >= 1, or "auto" (the Trainer's own).
    void count(const Json& root, const char* key, const char* path) {
        auto it = root.find(key);
        if (it == root.end() || is_auto(*it)) return;
        if (!it->is_number_integer() || it->get<int64_t>() < 1) { cold([&] { errs.push_back({key, "must be an integer >= 1 or \"auto\"; got " + text_of(*it)}); }); return; }
        set(path, *it);
    }
};

}  // namespace

Result<std::vector<ScenarioEdit>> deepspeed_config_edits(std::string_view text) {
    std::vector<FieldError> parse_errs;
    std::optional<Json> parsed = parse_ordered_json_input(text, "deepspeed config", parse_errs);
    if (!parsed) return Result<std::vector<ScenarioEdit>>::failure(std::move(parse_errs));
    const Json& root = *parsed;
    if (!root.is_object()) return Result<std::vector<ScenarioEdit>>::failure({{"deepspeed config", "must be a JSON object; got " + text_of(root)}});
    auto zi = root.find("zero_optimization");
    if (zi == root.end() || !zi->is_object())
        return Result<std::vector<ScenarioEdit>>::failure(
            {{"zero_optimization", "missing: a DeepSpeed ZeRO config has a \"zero_optimization\" object with its \"stage\""}});
    const Json& z = *zi;
    Editor ed;
    auto stage = z.find("stage");
    if (stage == z.end() || !stage->is_number_integer() || stage->get<int64_t>() < 0 || stage->get<int64_t>() > 3) {
        cold([&] { ed.errs.push_back({"zero_optimization.stage", "must be 0, 1, 2 or 3; got " + (stage == z.end() ? std::string("nothing") : text_of(*stage))}); });
    } else {
        ed.set("parallel.zero", *stage);
        ed.set("deepspeed.enabled", stage->get<int64_t>() > 0);
        if (stage->get<int64_t>() == 0) cold([&] { ed.warnings.push_back("zero_optimization.stage 0: ZeRO is off, DeepSpeed's ZeRO buffers are not counted"); });
    }
    ed.size(z, "reduce_bucket_size", true);
    ed.size(z, "allgather_bucket_size", false);
    ed.flag(z, "overlap_comm", "deepspeed.overlap_comm", true);
    ed.flag(z, "contiguous_gradients", "deepspeed.contiguous_gradients", false);
    ed.size(z, "stage3_prefetch_bucket_size", true);
    ed.size(z, "stage3_max_live_parameters", false);
    ed.size(z, "stage3_max_reuse_distance", false);
    ed.size(z, "stage3_param_persistence_threshold", true);
    ed.size(z, "sub_group_size", false);
    ed.offload(z, "offload_optimizer", "parallel.offload_optimizer");
    ed.offload(z, "offload_param", "parallel.offload_params");
    for (auto it = z.begin(); it != z.end(); ++it) {
        const std::string& k = it.key();
        bool known = false;
        for (const char* n : {"stage", "reduce_bucket_size", "allgather_bucket_size", "overlap_comm", "contiguous_gradients",
                              "stage3_prefetch_bucket_size", "stage3_max_live_parameters", "stage3_max_reuse_distance",
                              "stage3_param_persistence_threshold", "sub_group_size", "offload_optimizer", "offload_param"})
            known = known || k == n;
        for (const char* n : kNoMemoryEffect) known = known || k == n;
        if (!known) cold([&] { ed.warnings.push_back("zero_optimization." + k + ": not read (its memory effect is not modelled)"); });
    }
    ed.precision(root, "bf16", "bf16-mixed");
    ed.precision(root, "fp16", "fp16-mixed");
    ed.count(root, "train_micro_batch_size_per_gpu", "train.micro_batch");
    ed.count(root, "gradient_accumulation_steps", "train.grad_accum_steps");
    if (!ed.errs.empty()) return Result<std::vector<ScenarioEdit>>::failure(std::move(ed.errs), std::move(ed.warnings));
    return Result<std::vector<ScenarioEdit>>::success(std::move(ed.edits), std::move(ed.warnings));
}

}  // namespace vl
