// Launch lines for a local llama.cpp plan (issue 19, item 4): the `llama-server` command and the
// Ollama settings that make llama.cpp load the plan's placement. Shared by `vramlens plan` and the
// page's "Run locally" mode, so both print the same line. Flag names are llama.cpp's
// (common/arg.cpp, tools/server/README.md [llama-cpp-server-flags]).
#pragma once
#include <string>
#include <vector>

#include "planner/planner.h"
#include "planner/speed.h"

namespace vl {

struct GpuPreset;

// llama.cpp's -ctk/-ctv name of a KV type: f16, bf16, q8_0, q4_0.
const char* llamacpp_cache_type(KvDtype t);

// A tensor split as llama.cpp's --tensor-split reads it: "0.6,0.4" (3 significant digits each).
std::string tensor_split_text(const std::vector<double>& split);

// The GGUF file name a launch line names for a model that is not a file: "<name>-<type key>.gguf",
// the name being the model's (or `unnamed` when it has none), '/' and ' ' made '-'.
std::string plan_model_file(const PlanInput& in, const std::string& unnamed = "model");

// `llama-server -m FILE -ngl N -c CTX -ub UB [--split-mode layer|row --tensor-split a,b | --split-mode none
// --main-gpu G] [--n-cpu-moe K]
// -fa on|off [-ctk T -ctv T] [-nkvo] [--mmproj FILE [--no-mmproj-offload]] [--image-max-tokens N]
// [-md DRAFT -ngld N [-cd N] --draft-max K [-ctkd T -ctvd T]]` for plan `p` of `in`.
std::string llama_server_line(const PlanInput& in, const Plan& p, const std::string& model_file);

// An MoE model that the automatic -ngl split by layers (Plan::moe_cpu_layers > 0): the --n-cpu-moe plan beside it,
// every layer on the GPUs and the routed experts of the first N layers in RAM, with one line that gives both decode
// speeds when the machine's bandwidths are known: "MoE: -ngl 49 --n-cpu-moe 12 also fits (...): decode ~31.2 tok/s,
// against ~12.4 tok/s at -ngl 30". text "" when there is none (llama.cpp only: Ollama has no such setting).
struct MoeAlternative {
    PlanInput input;   // `in` with -ngl n_layer + 1 and --n-cpu-moe N
    Plan plan;
    Speed speed;       // its speed (plan_speed_on); an error when the machine's bandwidths are not known
    std::string text;
    bool exists() const { return !text.empty(); }
};
// `speed` is plan `p`'s own (plan_speed_on with the same machine), for the comparison.
MoeAlternative moe_alternative(const PlanInput& in, const Plan& p, const Speed& speed, const std::vector<const GpuPreset*>& gpus,
                               const AppleChip* chip, SpeedInput si = {});

// One line on the vision projector's image encoder: the image it is planned for (side, patches) and its
// compute buffers on the projector's device and in RAM; or, its shape unknown, why (`unknown_why`).
std::string image_encoder_text(const PlanInput& in, const std::string& unknown_why);

// One line on the draft model (-md): its -ngld, and its weights, KV cache and compute buffer over every device.
std::string draft_text(const PlanInput& in, const Plan& p);

// Ollama runs llama.cpp with num_gpu (= -ngl) and num_ctx (= -c) from the Modelfile or /set
// parameter; flash attention and the KV type are server-wide environment variables, the KV type one
// of f16, q8_0, q4_0 [ollama-docs].
struct OllamaSettings {
    std::string error;  // a setting Ollama does not offer (a bf16 KV cache): names the field and the choices
    // Every runner option the plan sets, as `PARAMETER name value` takes them: num_gpu, num_ctx, and where the
    // plan needs them num_batch (Ollama passes it as both -b and -ub) and main_gpu (Ollama runs --split-mode none
    // --main-gpu N for it) (api/types.go Runner, llm/llama_server.go appendBatchArgs / appendMainGPUArgs) [ollama-docs]
    std::vector<std::pair<std::string, int64_t>> parameters;
    std::string env;  // "OLLAMA_FLASH_ATTENTION=0|1[ OLLAMA_KV_CACHE_TYPE=q8_0]"
    std::string unsupported;  // the plan's llama.cpp settings Ollama cannot express ("" when none), e.g. -nkvo:
                              // no Ollama setting keeps the KV cache in RAM (ollama/ollama#9751 is unmerged) [ollama-nkvo-pr];
                              // Ollama splits by layers only (ollama/ollama#5527 is unmerged) [ollama-row-split-pr]
    bool ok() const { return error.empty(); }
};
OllamaSettings ollama_settings(const PlanInput& in, const Plan& p);
// The parameters as lines ("PARAMETER num_gpu 30"), joined by `sep`.
std::string ollama_parameter_lines(const OllamaSettings& o, const std::string& sep);

// The plan's speed with each GPU preset's bandwidth and FLOP/s (in the plan's GPU order), or an Apple
// chip's unified bandwidth (in.apple_unified; an error naming the chips when `chip` is null).
Speed plan_speed_on(const PlanInput& in, const Plan& p, const std::vector<const GpuPreset*>& gpus, const AppleChip* chip,
                    SpeedInput si = {});

}  // namespace vl
