// A checkpoint's files, already read, turned into what vramlens needs to know about it (issue 17):
// the model (from config.json, or from a GGUF file's metadata), its parameter counts, how its
// weights are quantized (the vramlens weight format), a LoRA adapter's rank and targets on its
// base model, the tensors by dtype, the quantized and kept tensors apart, and the true size.
//
// Pure: the CLI reads the files from disk (cli/checkpoint_source.cpp) and the web page fetches them
// from the Hub; both hand the bytes here and only format the answer.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "diagnostics.h"
#include "model/checkpoint_config.h"
#include "model/gguf.h"
#include "model/safetensors.h"
#include "model_spec.h"
#include "param_count.h"
#include "scenario.h"

namespace vl {

struct CheckpointShard {
    std::string name;         // the file's name (or path), as shown
    uint64_t file_bytes = 0;  // the file's size
    SafetensorsHeader header;
};

struct CheckpointFiles {
    std::optional<std::string> config_text;   // config.json
    std::optional<std::string> adapter_text;  // adapter_config.json (PEFT)
    std::optional<SafetensorsIndex> index;    // model.safetensors.index.json
    std::vector<CheckpointShard> shards;      // the safetensors headers read
    std::vector<std::string> missing_shards;  // named by the index, not read
    std::optional<GgufHeader> gguf;
    uint64_t gguf_file_bytes = 0;
};

// The file whose content made the import fail.
enum class CheckpointPart { Config, Quantization, Adapter };

struct SafetensorsSummary {
    std::vector<DtypeCount> dtypes;  // sorted by dtype name
    uint64_t files = 0;              // shards read
    uint64_t tensors = 0, elements = 0, tensor_bytes = 0;
    uint64_t file_bytes = 0;                    // the shards' sizes summed: the true checkpoint size when complete
    bool complete = true;                       // every shard the index names was read
    bool head_tensor = false;                   // a tensor lm_head.weight, in a header read or the index's weight map
    std::optional<QuantizedSplit> quantized;    // with a quantization_config and at least one header
};

struct GgufSummary {
    std::vector<GgmlTypeCount> types;
    uint64_t tensors = 0, elements = 0;
    GgufTensorBytes layer_bytes;  // by block, token_embd, output and the rest
    uint64_t file_bytes = 0;
    std::optional<uint64_t> file_type;  // general.file_type: llama.cpp's llama_ftype (15: Q4_K_M) [llama-cpp-code]
};

struct CheckpointImport {
    std::optional<ModelSpec> model;      // from config.json, else from the GGUF metadata when it gives one
    std::optional<ParamCounts> params;   // count_params(model)
    std::optional<QuantConfig> quantization;
    std::optional<AdapterConfig> adapter;
    std::optional<SafetensorsSummary> safetensors;
    std::optional<GgufSummary> gguf;
};

// Errors are the failing file's own (its fields named); `failed` (if given) says which file.
// A GGUF whose metadata gives no model is a warning, not an error: its tensors are still counted.
Result<CheckpointImport> import_checkpoint(const CheckpointFiles& files, CheckpointPart* failed = nullptr);

// What the import means for a scenario: its model, the weight format (the quantization's; for
// safetensors without one, the float dtype holding most parameters: BF16, F16 or F32; for a GGUF,
// its general.file_type as a llama.cpp weight format and engine, where vramlens has that format, and
// its tensor bytes by block as model.gguf_bytes, with the model from its metadata) and a LoRA
// adapter's rank and targets (mode finetune, method LoRA). Returns the changes made, for people.
std::vector<std::string> apply_checkpoint_import(const CheckpointImport& c, Scenario& s);

}  // namespace vl
