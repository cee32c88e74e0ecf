#include "model/checkpoint_import.h"

#include <utility>

#include "enum_names.h"
#include "model/hf_config.h"

namespace vl {

namespace {

template <class T>
void take_warnings(const Result<T>& r, std::vector<std::string>& warnings) {
    warnings.insert(warnings.end(), r.warnings.begin(), r.warnings.end());
}

Result<CheckpointImport> fail(std::vector<FieldError> errors, std::vector<std::string> warnings, CheckpointPart part, CheckpointPart* failed) {
    if (failed) *failed = part;
    return Result<CheckpointImport>::failure(std::move(errors), std::move(warnings));
}

SafetensorsSummary summarize_safetensors(const CheckpointFiles& f, const std::optional<QuantConfig>& quant) {
    SafetensorsSummary s;
    std::vector<SafetensorsHeader> headers;
    for (const CheckpointShard& shard : f.shards) {
        headers.push_back(shard.header);
        s.file_bytes += shard.file_bytes;
        s.tensor_bytes += shard.header.data_bytes;
    }
    s.files = f.shards.size();
    s.dtypes = count_by_dtype(headers);
    for (const DtypeCount& c : s.dtypes) {
        s.tensors += c.tensors;
        s.elements += c.elements;
    }
    s.complete = f.missing_shards.empty();
    for (const SafetensorsHeader& h : headers)
        for (const SafetensorsTensor& t : h.tensors) s.head_tensor = s.head_tensor || t.name == "lm_head.weight";
    if (f.index)
        for (const auto& [tensor, shard] : f.index->weight_map) s.head_tensor = s.head_tensor || tensor == "lm_head.weight";
    if (quant && !headers.empty()) s.quantized = split_quantized(headers, *quant);
    return s;
}

GgufSummary summarize_gguf(const GgufHeader& h, uint64_t file_bytes) {
    GgufSummary g;
    g.types = count_by_ggml_type(h);
    for (const GgmlTypeCount& c : g.types) {
        g.tensors += c.tensors;
        g.elements += c.elements;
    }
    g.layer_bytes = gguf_bytes_by_layer(h);
    g.file_bytes = file_bytes;
    if (const GgufKv* t = h.find("general.file_type"); t && t->unsigned_value) g.file_type = *t->unsigned_value;
    return g;
}

}  // namespace

Result<CheckpointImport> import_checkpoint(const CheckpointFiles& f, CheckpointPart* failed) {
    CheckpointImport c;
    std::vector<std::string> warnings;

    if (f.config_text) {
        Result<ModelSpec> m = import_hf_config(*f.config_text);
        take_warnings(m, warnings);
        if (!m.ok()) return fail(m.errors, warnings, CheckpointPart::Config, failed);
        Result<std::optional<QuantConfig>> q = read_quantization_config(*f.config_text);
        take_warnings(q, warnings);
        if (!q.ok()) return fail(q.errors, warnings, CheckpointPart::Quantization, failed);
        c.model = *m.value;
        c.params = count_params(*c.model);
        c.quantization = *q.value;
    }

    if (f.adapter_text) {
        Result<AdapterConfig> a = read_adapter_config(*f.adapter_text);
        take_warnings(a, warnings);
        if (!a.ok()) return fail(a.errors, warnings, CheckpointPart::Adapter, failed);
        c.adapter = *a.value;
    }

    if (!f.shards.empty() || f.index) c.safetensors = summarize_safetensors(f, c.quantization);
    // A decoder saved as its base model (Qwen3-Embedding: config.json names Qwen3ForCausalLM, the safetensors hold no
    // lm_head.weight [qwen3-embedding]): every shard read, unquantized, and exactly the count less the untied lm_head.
    if (c.model && c.params && c.safetensors && c.safetensors->complete && !c.quantization && !c.model->encoder && !c.model->embedder &&
        c.params->lm_head > 0 && c.safetensors->elements + static_cast<uint64_t>(c.params->lm_head) == static_cast<uint64_t>(c.params->total)) {
        c.model->embedder = true;
        c.params = count_params(*c.model);
        warnings.push_back("the safetensors hold every parameter but the lm_head (the base model, as Qwen3-Embedding ships it): read as an "
                           "embedder (model.embedder), served for its hidden states");
    }

    if (f.gguf) {
        Result<std::string> config = gguf_hf_config(*f.gguf);
        std::vector<FieldError> no_model = config.errors;
        if (config.ok()) {
            Result<ModelSpec> m = import_hf_config(*config);
            take_warnings(m, warnings);
            if (m.ok() && !c.model) {
                c.model = *m.value;
                c.params = count_params(*c.model);
            }
            no_model = m.errors;
        }
        for (const FieldError& e : no_model) warnings.push_back("the GGUF metadata gives no model: " + to_string(e));
        c.gguf = summarize_gguf(*f.gguf, f.gguf_file_bytes);
    }
    return Result<CheckpointImport>::success(std::move(c), std::move(warnings));
}

std::vector<std::string> apply_checkpoint_import(const CheckpointImport& c, Scenario& s) {
    std::vector<std::string> changes;
    if (c.model) {
        s.model = *c.model;
        changes.push_back("model: " + c.model->name);
        // The file's own tensor bytes: llama.cpp's weights layer by layer, whatever mix made them.
        if (c.gguf && !c.gguf->layer_bytes.empty()) {
            s.model.gguf_bytes = c.gguf->layer_bytes;  // its type: the file's, set with the weight format below
            changes.push_back("weights: the GGUF file's tensor bytes (" + std::to_string(c.gguf->layer_bytes.layers.size()) + " blocks)");
        }
    }
    // A tied head the checkpoint stores as a tensor of its own (AutoAWQ <= 0.2.6 save_quantized [autoawq-code]):
    // transformers 4.x loads it on the GPU before tie_weights() frees it (infer.untied_head_on_load) [transformers-code].
    if (c.model && c.model->tied_embeddings && c.safetensors && c.safetensors->head_tensor && s.infer.engine == Engine::Transformers) {
        s.infer.untied_head_on_load = true;
        changes.push_back("infer.untied_head_on_load: the checkpoint stores lm_head.weight beside the embedding config.json ties it to; "
                          "transformers 4.x loads it before tie_weights()");
    }
    if (!c.quantization && c.safetensors && !c.gguf) {
        // Not quantized: the weights are kept in the float dtype that holds most of the parameters.
        uint64_t most = 0;
        for (const DtypeCount& d : c.safetensors->dtypes) {
            const std::optional<WeightFormat> f = d.dtype == "BF16" ? std::optional(WeightFormat::BF16)
                                                : d.dtype == "F16"  ? std::optional(WeightFormat::FP16)
                                                : d.dtype == "F32"  ? std::optional(WeightFormat::FP32)
                                                                    : std::nullopt;
            if (f && d.elements > most) {
                most = d.elements;
                s.infer.weights = *f;
            }
        }
        if (most > 0) changes.push_back(std::string("weight format: ") + enum_name(s.infer.weights));
    }
    if (c.gguf && c.gguf->file_type) {
        // llama.cpp's enum llama_ftype (llama.h) [llama-cpp-code]: the mixes vramlens has a format for.
        static constexpr std::pair<uint64_t, WeightFormat> kFtypes[] = {
            {0, WeightFormat::FP32},         {1, WeightFormat::FP16},         {2, WeightFormat::GGUF_Q4_0},
            {3, WeightFormat::GGUF_Q4_1},    {7, WeightFormat::GGUF_Q8_0},    {8, WeightFormat::GGUF_Q5_0},
            {9, WeightFormat::GGUF_Q5_1},    {10, WeightFormat::GGUF_Q2_K},   {12, WeightFormat::GGUF_Q3_K_M},
            {14, WeightFormat::GGUF_Q4_K_S}, {15, WeightFormat::GGUF_Q4_K_M}, {16, WeightFormat::GGUF_Q5_K_S},
            {17, WeightFormat::GGUF_Q5_K_M}, {18, WeightFormat::GGUF_Q6_K},   {32, WeightFormat::BF16},
        };
        for (const auto& [ftype, format] : kFtypes)
            if (*c.gguf->file_type == ftype) {
                s.infer.weights = format;
                s.infer.engine = Engine::LlamaCpp;
                if (s.mode == Mode::Local) {  // Run locally: the file's type, on an engine that reads GGUF files
                    s.local.weights = format;
                    if (s.local.engine != LocalEngine::Ollama) s.local.engine = LocalEngine::LlamaCpp;
                }
                changes.push_back(std::string("weight format: ") + enum_name(format) + ", engine: llama.cpp");
            }
    }
    // The bytes are the file's own type: its general.file_type's format, or (a mix vramlens has no format for)
    // the format in use at import, so that choosing another one sizes another file.
    if (!s.model.gguf_bytes.empty()) s.model.gguf_bytes.type = s.mode == Mode::Local ? s.local.weights : s.infer.weights;
    if (c.quantization && c.quantization->format) {
        s.infer.weights = *c.quantization->format;
        if (s.mode == Mode::Local) s.local.weights = s.infer.weights;  // Run locally: a GPTQ/AWQ/fp8 checkpoint is served as it is
        changes.push_back(std::string("weight format: ") + enum_name(s.infer.weights));
        const bool grouped = s.infer.weights == WeightFormat::AWQ4 || s.infer.weights == WeightFormat::GPTQ4 ||
                             s.infer.weights == WeightFormat::GPTQ8 || s.infer.weights == WeightFormat::GPTQ3 ||
                             s.infer.weights == WeightFormat::GPTQ2;
        if (grouped && c.quantization->group_size > 0) {
            s.infer.group_size = c.quantization->group_size;
            changes.push_back("group size: " + std::to_string(s.infer.group_size));
        }
    }
    if (c.adapter && s.mode != Mode::Local) {  // Run locally plans the base model (an adapter is not placed)
        s.mode = Mode::FineTune;
        s.finetune.method = FineTuneMethod::LoRA;
        s.finetune.lora_rank = c.adapter->rank;
        if (c.adapter->lora_targets != 0) s.finetune.lora_targets = c.adapter->lora_targets;
        changes.push_back("LoRA rank " + std::to_string(c.adapter->rank));
    }
    return changes;
}

}  // namespace vl
