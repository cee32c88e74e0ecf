// Model and GPU presets (issue 3): data in assets/presets/models.json and gpus.json, embedded at
// build time and parsed once on first use (function-local statics; estimate() stays pure).
// Each model preset holds a Hugging Face config.json, read by import_hf_config, and the published
// parameter count with its source. Ids are short lowercase slugs: "llama-3.1-8b", "h100-80gb".
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "diagnostics.h"
#include "model_spec.h"
#include "scenario.h"

namespace vl {

struct ModelPreset {
    std::string id;               // CLI slug, e.g. "llama-3.1-8b"
    std::string name;             // display name, e.g. "Llama-3.1-8B"
    std::string family;           // e.g. "Llama 3.1"
    std::string hf_id;            // Hugging Face repo, e.g. "meta-llama/Llama-3.1-8B"
    std::string released;         // "YYYY-MM": the month the checkpoint was first published
    std::string source;           // where the config comes from
    ModelSpec spec;               // imported config (name/family set from the preset)
    int64_t published_params = 0; // published total parameter count; 0 = none published for what is counted
    bool published_exact = false; // true: exact count; false: rounded as published (e.g. "14.3B")
    int64_t published_active = 0; // MoE: published parameters active per token (same rounding); 0 = none
    std::string params_source;    // citation of published_params
    std::string note;
    std::vector<std::string> import_warnings;  // assumptions import_hf_config made
};

// How the GPUs of one board talk (gpus.json "interconnect"; NCCL's channel count and NVLink SHARP depend on
// it, core/nccl.h): NVSwitch (HGX/DGX SXM boards: every GPU to every GPU through NVSwitch, multicast on
// Hopper and later), NVLink without a switch (bridged pairs or a mesh), PCIe; Unknown: a preset that names no
// interconnect (a product sold in both forms) or a GPU that is not a preset.
enum class GpuLink { Unknown, NVSwitch, NVLink, PCIe };
const char* gpu_link_name(GpuLink l);

struct GpuPreset {
    std::string id;               // CLI slug, e.g. "h100-80gb"
    std::string name;             // e.g. "NVIDIA H100 80GB HBM3 (SXM5)"
    std::string vendor;           // "NVIDIA", "AMD"
    double memory_bytes = 0;      // total the driver reports (nvidia-smi memory.total MiB * 2^20; rocm-smi bytes)
    std::string marketed;         // e.g. "80 GB HBM3"
    bool bf16 = true;             // native bf16 (false: T4, V100)
    bool fp8 = false;             // native fp8 tensor cores (Hopper, Ada, Blackwell, MI300)
    std::string source;           // citation of memory_bytes
    double cuda_total_bytes = 0;  // what a CUDA (or HIP) process sees: cudaMemGetInfo's total (Gpu::cuda_total_bytes)
    std::string cuda_total_source;// citation of cuda_total_bytes: a published reading, or the rule used where none is
    double memory_bandwidth = 0;  // peak memory bandwidth, bytes/s (vendor sheet); 0: not published
    double fp16_tensor_flops = 0; // dense FP16 tensor FLOP/s (vendor sheet; GeForce: FP16 accumulate); 0: not published
    std::string speed_source;     // docs/sources.md key of the two above
    GpuLink link = GpuLink::Unknown;  // the board's GPU interconnect ("interconnect")
    Gpu gpu() const { return Gpu{name, memory_bytes, cuda_total_bytes}; }
};

const std::vector<ModelPreset>& model_presets();
const std::vector<GpuPreset>& gpu_presets();

// By id (exact, case-insensitive) or, for models, by Hugging Face repo id. nullptr when unknown.
const ModelPreset* find_model(std::string_view id);

// The model search: whether every word of `query` is in the preset's name, family, id or Hugging Face
// id, loosely. Case, punctuation and spaces do not count ("llama3 8b" finds Llama-3.1-8B, "qwen 2.5"
// Qwen2.5-7B); an organisation prefix is dropped ("Qwen/Qwen2.5-32B-Instruct" is Qwen2.5-32B); and a
// checkpoint variant word (instruct, chat, base, hf, it, pt) the preset does not name is no reason to
// miss it (the variants of one model have the same shape). An empty query matches every preset.
bool preset_matches(const ModelPreset& p, std::string_view query);
const GpuPreset* find_gpu(std::string_view id);

// The interconnect of the GPU preset with this name (a scenario's gpu.name), Unknown for any other name.
GpuLink gpu_link(std::string_view gpu_name);

// "YYYY-MM" with a month 01-12 (a preset's `released`; `plan --rank --since`).
bool is_year_month(const std::string& s);

// Problems found while parsing the embedded presets (empty for a correct build; tested).
const std::vector<FieldError>& preset_errors();

// The page embeds only its default model and fetches the whole list after its first view (issue 16,
// web/main.cpp): the text of a models.json (same format) replaces the model presets. Returns its
// problems; with any, the list is left as it was. Pointers from find_model() do not outlive a call.
std::vector<FieldError> replace_model_presets(std::string_view models_json);

}  // namespace vl
