// The "Run locally" plan of a Scenario (Mode::Local, issue 19): its local options (scenario.h
// LocalOptions) made into the planners' inputs, planned by plan_llamacpp (llama.cpp, Ollama) or
// plan_serving (vLLM, SGLang), with the speed and the launch lines of core/planner/launch.h. The
// page's Run locally mode shows this; `vramlens plan` builds the same planner inputs from its flags
// and prints the same lines. Every input error names its scenario field (local.gpus, local.context, ...).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "diagnostics.h"
#include "model/presets.h"
#include "planner/launch.h"
#include "planner/planner.h"
#include "planner/rank.h"
#include "planner/serving.h"
#include "planner/speed.h"
#include "scenario.h"

namespace vl {

// One row of the per-device table: a GPU, the Mac's GPU or the host RAM (llama.cpp), or each GPU of a
// vLLM / SGLang plan (every GPU holds the limiting stage's share).
struct LocalDevice {
    std::string name;
    std::string layers;             // "layers 0-15 + output", "1/2 of every layer"
    double weights = 0, kv = 0, compute = 0;
    double vision = 0;              // the vision projector's weights and its image encoder's compute buffer here (--mmproj)
    double total = 0;               // the planner's total for the device (DevicePlan::total(): with a vision projector)
    double capacity = 0;
    double draft = 0;               // the draft model's weights, KV cache and compute buffer here (llama-server -md; in total)
    bool fits() const { return total <= capacity; }
};

// A command or setting to copy: what it is ("llama-server", "Modelfile", "environment", "vllm serve") and its text.
struct LaunchLine {
    std::string what, text;
};

struct LocalPlan {
    std::vector<FieldError> errors;  // bad input, each naming its field (no plan then)
    std::vector<std::string> notes;  // true but worth saying (a context beyond the model's positions)
    bool serving = false;            // vLLM / SGLang: serving_plan; else plan
    Plan plan;
    ServingPlan serving_plan;
    bool fits = false;
    int64_t context = 0;             // llama.cpp -c / vLLM max-model-len planned
    int64_t largest_context = 0;     // the longest that fits (0: none)
    std::string advice;              // when it does not fit: the change that would
    std::string summary;             // "-ngl 33 of 33 (32 layers + output)" / "tp 2, pp 1 (...)"
    std::vector<LocalDevice> devices;
    std::string speed;               // the speed line with its error band (llama.cpp plans that fit), else ""
    MoeAlternative moe_alternative;  // llama.cpp, an MoE model split by -ngl: the --n-cpu-moe plan and its line (launch.h)
    std::vector<LaunchLine> launch;
    bool ok() const { return errors.empty(); }
};

// The weight formats and KV types an engine is planned with, in the order a picker lists them
// (llama.cpp, Ollama: GGUF types, fp16, bf16; vLLM, SGLang: bf16, fp16, fp8, gptq, awq), and a KV
// type's name as the engine spells it (f16, q8_0; auto, fp8).
std::vector<WeightFormat> local_weight_choices(LocalEngine e);
std::vector<KvDtype> local_kv_choices(LocalEngine e);
std::string local_kv_name(LocalEngine e, KvDtype kv);
bool is_serving(LocalEngine e);  // vLLM or SGLang

// The plan of s.model on s.local (s.mode need not be Local).
LocalPlan plan_local(const Scenario& s);

// Which model fits best on s.local's machine (llama.cpp / Ollama; core/planner/rank.h): the current
// presets x every GGUF type with its GPUs, RAM or Mac, KV type, flash attention and context. Errors
// name the local.* field (a vLLM/SGLang engine: local.engine); the model and weights chosen do not count.
Ranking rank_local(const Scenario& s);

// The machine's GPUs in device order: local.gpus' presets, then local.custom_gpus, each as a preset
// (memory_gib GiB, bandwidth_gbs GB/s, fp16_tflops TFLOP/s) for the planner and the speed model.
GpuPreset custom_gpu_preset(const LocalCustomGpu& g);
std::vector<GpuPreset> local_gpu_specs(const LocalOptions& lo);

// The planner inputs plan_local uses (exposed for tests): errors name the local.* field.
std::vector<FieldError> local_inputs(const Scenario& s, PlanInput& in, ServingPlanInput& sin);

// "layers 0-15 + output", "no layers", with ", experts of layers 0-K" on the host row when --n-cpu-moe keeps them
// there, the host's KV with -nkvo and a GPU's split buffer with --split-mode row.
std::string device_layers_text(const PlanInput& in, const Plan& p, const DevicePlan& d);

// "decode ~41.3 tok/s (holdout error median 12 %, worst 30 %), prefill ~... at ctx 8192 (docs/speed.md)"
std::string speed_text(const Speed& sp, int64_t ctx);

}  // namespace vl
