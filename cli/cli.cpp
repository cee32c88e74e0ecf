// vramlens command-line tool (cli.h). CLI11 splits the arguments (one subcommand per command, each
// with its own --help); scenario flags are edits of the scenario JSON document (--micro-batch 4
// sets "train.micro_batch": 4), so flags, files and share links go through the one reader in
// core/scenario_json and report errors by the same JSON path.
#include "cli.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <exception>
#include <filesystem>
#include "text_format.h"
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "cublas_workspace.h"
#include "deepspeed_config.h"
#include "enum_names.h"
#include "estimate.h"
#include "export.h"
#include "formula.h"
#include "json_input.h"
#include "checkpoint_source.h"
#include "model/checkpoint_config.h"
#include "model/checkpoint_import.h"
#include "model/hf_config.h"
#include "model/presets.h"
#include "number_input.h"
#include "param_count.h"
#include "planner/launch.h"
#include "planner/local.h"
#include "planner/compare.h"
#include "planner/planner.h"
#include "planner/rank.h"
#include "planner/speed.h"
#include "planner/serving.h"
#include "scenario_json.h"
#include "share_link.h"
#include "training/optimizers.h"
#include "framework_profiles.h"
#include "units.h"
#include "verify_script.h"

#if __has_include("solvers.h")
#include "solvers.h"
#define VRAMLENS_HAVE_SOLVERS 1
#endif

namespace vl::cli {

namespace {

using Json = nlohmann::ordered_json;

// ---- scenario flags -----------------------------------------------------------------------------
enum class FlagKind {
    Value,        // --flag VALUE sets path to VALUE (a JSON number/bool when it reads as one, else a string)
    Switch,       // --flag sets path to true (--flag=false to clear)
    Params,       // --params N: model = {"params": N}
    ModelConfig,  // --model-config FILE: model = {"hf_config": <FILE>}
    DeepSpeedConfig,  // --deepspeed-config FILE: a ds_config.json's ZeRO stage, offload and buffer keys (deepspeed_config.h)
    LoraTargets,  // --lora-targets q_proj,v_proj (or all-linear)
    GpuMemGiB,    // --gpu-memory-gib X: gpu.memory_bytes = X GiB
    CublasConfig, // --cublas-workspace-config :SIZE:COUNT: overheads.cublas_workspace_bytes as PyTorch reads the variable
    Set,          // --set PATH=VALUE, any field
};

struct FlagSpec {
    const char* flag;
    const char* path;
    FlagKind kind;
    const char* help;
    std::string (*choices)() = nullptr;  // the help lists these instead: the names an enum's table gives
};

// "a | b | c": every name of an enum, from its table (enum_names.h).
template <class E>
std::string names_bar() {
    std::string out;
    for (const auto& n : enum_names(E{})) out += (out.empty() ? "" : " | ") + std::string(n.name);
    return out;
}

// The optimizer table's names (training/optimizers.h), then where to read their state sizes.
std::string optimizer_names() {
    std::string names;
    for (const OptimizerInfo& o : kOptimizers) names += (names.empty() ? "" : " | ") + std::string(o.name);
    return names + "; state sizes: `vramlens optimizers`";
}

std::string flag_help(const FlagSpec& f) { return f.choices ? f.choices() : f.help; }

constexpr FlagSpec kScenarioFlags[] = {
    {"--model", "model", FlagKind::Value, "preset id (see `vramlens models`), a checkpoint folder, a .gguf file, or org/name[@revision] or a Hub URL (HF cache, else HF_ENDPOINT)"},
    {"--params", "model", FlagKind::Params, "a model known only by its parameter count, e.g. 7e9"},
    {"--model-config", "model", FlagKind::ModelConfig, "a Hugging Face config.json file"},
    {"--mode", "mode", FlagKind::Value, "train | finetune | infer"},
    {"--num-labels", "model.num_labels", FlagKind::Value, "encoders: train with a sequence-classification head of this many labels (BertForSequenceClassification)"},
    {"--mlm-head", "model.mlm_head", FlagKind::Switch, "encoders: train with the masked-LM head (BertForMaskedLM: no pooler, logits over the vocabulary)"},
    {"--embedder", "model.embedder", FlagKind::Switch, "a decoder served for its hidden states without its LM head (Qwen3-Embedding: no lm_head, no logits)"},
    {"--profile", "profile", FlagKind::Value, "a framework profile (`vramlens profiles`), applied first; the other flags and the file's fields override it"},
    {"--precision", "train.precision", FlagKind::Value, "", names_bar<Precision>},
    {"--optimizer", "train.optimizer", FlagKind::Value, "", optimizer_names},
    {"--optimizer-impl", "train.optimizer_impl", FlagKind::Value, "", names_bar<OptimizerImpl>},
    {"--torch-version", "train.torch_version", FlagKind::Value, "multi-GPU training: the PyTorch release (torch.__version__, e.g. 2.6), whose NCCL sizes the communicators (default 2.8)"},
    {"--micro-batch", "train.micro_batch", FlagKind::Value, "sequences per GPU per step"},
    {"--seq", "train.seq_len", FlagKind::Value, "training sequence length, tokens (encoder-decoders: the source)"},
    {"--target-len", "train.target_len", FlagKind::Value, "encoder-decoders (t5, mt5, bart): the decoder's tokens; 0 = as --seq"},
    {"--grad-accum", "train.grad_accum_steps", FlagKind::Value, "gradient accumulation steps"},
    {"--recompute", "train.recompute", FlagKind::Value, "none | selective | full | every-k"},
    {"--offload-checkpoints", "train.offload_checkpoints", FlagKind::Switch, "checkpointed layer inputs in host RAM (Unsloth's offloaded checkpointing)"},
    {"--moe-expert-capacity-factor", "train.moe_expert_capacity_factor", FlagKind::Value, "MoE: tokens per expert at most factor x the balanced share (Megatron); 0: dropless"},
    {"--moe-pad-expert-input-to-capacity", "train.moe_pad_expert_input_to_capacity", FlagKind::Switch, "MoE: pad every expert's input to its capacity"},
    {"--loss", "train.loss", FlagKind::Value, "", names_bar<LossImpl>},
    {"--train-images", "train.images", FlagKind::Value, "vision-language models: images in each training sample (their tokens join its sequence)"},
    {"--train-image-width", "train.image_width", FlagKind::Value, "pixels of each training image (default 1024)"},
    {"--train-image-height", "train.image_height", FlagKind::Value, "pixels of each training image (default 1024)"},
    {"--train-vision", "train.vision", FlagKind::Value, "", names_bar<VisionTraining>},
    {"--method", "finetune.method", FlagKind::Value, "full | lora | qlora"},
    {"--lora-rank", "finetune.lora_rank", FlagKind::Value, "LoRA rank r"},
    {"--lora-targets", "finetune.lora_targets", FlagKind::LoraTargets, "q_proj,k_proj,... (a Mamba mixer: in_proj,x_proj,dt_proj,out_proj; Gated DeltaNet: in_proj_qkvz,in_proj_ba or Qwen3.5's in_proj_qkv,in_proj_z,in_proj_b,in_proj_a, and out_proj) or all-linear"},
    {"--vision-quant", "finetune.vision_quant", FlagKind::Value, "", names_bar<VisionQuant>},
    {"--lora-expert-layers", "finetune.lora_expert_layers", FlagKind::Value, "PEFT target_parameters: LoRA on the 3-D expert parameters (gate_up_proj, down_proj) of the last N MoE layers (gpt-oss)"},
    {"--lora-fused-qkv", "finetune.lora_fused_qkv", FlagKind::Switch, "Lit-GPT's LoRAQKVLinear: q/k/v adapters as one module over the fused qkv Linear (needs model.fused_qkv)"},
    {"--weights", "infer.weights", FlagKind::Value, "", names_bar<WeightFormat>},
    {"--kv-dtype", "infer.kv_dtype", FlagKind::Value, "", names_bar<KvDtype>},
    {"--autocast", "infer.autocast", FlagKind::Value, "", names_bar<InferAutocast>},
    {"--ssm-kernels", "infer.ssm_kernels", FlagKind::Value, "transformers: torch (no mamba-ssm / causal-conv1d / fla installed) | fused (their kernels)"},
    {"--train-ssm-kernels", "train.ssm_kernels", FlagKind::Value, "transformers training: torch (no mamba-ssm / causal-conv1d installed) | fused (their kernels)"},
    {"--moe-experts", "train.moe_experts", FlagKind::Value, "training, experts stored as 3-D parameters (gpt-oss): loop (transformers' per-expert loop) | grouped (a grouped kernel, e.g. use_kernels MegaBlocks)"},
    {"--batch", "infer.batch", FlagKind::Value, "concurrent sequences"},
    {"--context", "infer.context", FlagKind::Value, "tokens per sequence (prompt + generated; encoder-decoders: the source)"},
    {"--generate", "infer.target_len", FlagKind::Value, "encoder-decoders (t5, mt5, bart): tokens the decoder generates; 0 = as --context"},
    {"--engine", "infer.engine", FlagKind::Value, "transformers | vllm | llama.cpp | tei (text-embeddings-inference: embedding and reranker models)"},
    {"--max-batch-tokens", "infer.max_batched_tokens", FlagKind::Value, "tokens of one batch: vLLM --max-num-batched-tokens, TEI --max-batch-tokens (0: the engine's default; TEI 16384)"},
    {"--vllm-version", "infer.vllm_version", FlagKind::Value, "vLLM: its release (vllm --version, e.g. 0.6.5): which memory its budget holds (default 0.21)"},
    {"--vllm-moe-backend", "infer.vllm_moe_backend", FlagKind::Value, "", names_bar<VllmMoeBackend>},
    {"--images", "infer.images", FlagKind::Value, "vision-language models: images in each sequence's prompt (their tokens join it)"},
    {"--image-width", "infer.image_width", FlagKind::Value, "pixels of each image (default 1024; Qwen2.5-VL's tokens follow it)"},
    {"--image-height", "infer.image_height", FlagKind::Value, "pixels of each image (default 1024)"},
    {"--speculative", "infer.speculative.method", FlagKind::Value, "", names_bar<SpecMethod>},
    {"--draft-model", "infer.speculative.model", FlagKind::Value, "--speculative draft: the draft model's preset id (same vocabulary)"},
    {"--num-speculative-tokens", "infer.speculative.num_speculative_tokens", FlagKind::Value, "vLLM: tokens drafted per step (default 1)"},
    {"--draft-tp", "infer.speculative.draft_tensor_parallel_size", FlagKind::Value, "vLLM draft_tensor_parallel_size: 1 or --tp (default --tp)"},
    {"--dp", "parallel.dp", FlagKind::Value, "data-parallel ranks"},
    {"--tp", "parallel.tp", FlagKind::Value, "tensor-parallel ranks"},
    {"--pp", "parallel.pp", FlagKind::Value, "pipeline stages"},
    {"--first-stage-layers", "parallel.first_stage_layers", FlagKind::Value, "training: layers of the first pipeline stage (Megatron decoder_first_pipeline_num_layers; 0 = even split)"},
    {"--last-stage-layers", "parallel.last_stage_layers", FlagKind::Value, "training: layers of the last pipeline stage (Megatron decoder_last_pipeline_num_layers; 0 = even split)"},
    {"--cp", "parallel.cp", FlagKind::Value, "context-parallel ranks"},
    {"--ep", "parallel.ep", FlagKind::Value, "expert-parallel ranks"},
    {"--sp", "parallel.sp", FlagKind::Switch, "sequence parallelism (with tp > 1)"},
    {"--zero", "parallel.zero", FlagKind::Value, "ZeRO stage 0..3 (FSDP full shard = 3)"},
    {"--offload-optimizer", "parallel.offload_optimizer", FlagKind::Switch, "optimizer states on the host (ZeRO-Offload)"},
    {"--offload-params", "parallel.offload_params", FlagKind::Switch, "parameters on the host (ZeRO-Infinity, zero 3)"},
    {"--fsdp-version", "parallel.fsdp_version", FlagKind::Value, "FSDP of zero 2/3 without DeepSpeed: 1 (FullyShardedDataParallel) | 2 (fully_shard), Accelerate's fsdp_version"},
    {"--deepspeed-config", "deepspeed", FlagKind::DeepSpeedConfig, "a DeepSpeed ds_config.json: its zero_optimization stage, offload and bucket keys, bf16/fp16, batch"},
    {"--gpu", "gpu", FlagKind::Value, "GPU preset id (see `vramlens gpus`)"},
    {"--gpu-memory-gib", "gpu.memory_bytes", FlagKind::GpuMemGiB, "usable memory of a custom GPU, GiB: what CUDA reports (torch.cuda.mem_get_info()[1]), below nvidia-smi's total"},
    {"--gpus", "gpu_count", FlagKind::Value, "total GPUs (default dp * tp * pp * cp)"},
    {"--cublas-workspace-config", "overheads.cublas_workspace_bytes", FlagKind::CublasConfig, "the run's CUBLAS_WORKSPACE_CONFIG, e.g. :4096:8 or :16:8: PyTorch's cuBLAS workspace per handle and stream (SIZE KiB x COUNT, summed)"},
    {"--set", "", FlagKind::Set, "PATH=VALUE: any scenario field, e.g. overheads.fragmentation=0.1"},
};

const FlagSpec* find_flag(const std::string& name) {
    for (const FlagSpec& f : kScenarioFlags)
        if (name == f.flag) return &f;
    return nullptr;
}

// The modes that read a scenario field; the other modes ignore it. nullopt: every mode reads it.
struct FieldModes {
    const char* text;  // for messages: "--mode finetune"
    bool train, finetune, infer;
    bool reads(Mode m) const { return m == Mode::Train ? train : m == Mode::FineTune ? finetune : infer; }
};

std::optional<FieldModes> modes_of_field(const std::string& path) {
    auto under = [&](const std::string& section) {
        return path.compare(0, section.size(), section) == 0 && (path.size() == section.size() || path[section.size()] == '.');
    };
    if (under("train") || under("deepspeed") || path == "parallel.zero" || path == "parallel.sp" || path == "parallel.offload_optimizer" ||
        path == "parallel.first_stage_layers" || path == "parallel.last_stage_layers" || path == "parallel.offload_params" || path == "parallel.fsdp_flat_params" ||
        path == "parallel.fsdp_version" || path == "parallel.no_sync_accumulation")
        return FieldModes{"--mode train or --mode finetune", true, true, false};
    if (under("finetune")) return FieldModes{"--mode finetune", false, true, false};
    if (under("infer")) return FieldModes{"--mode infer", false, false, true};
    return std::nullopt;
}

// ---- command line -----------------------------------------------------------------------------
struct Edit {
    const FlagSpec* spec;
    std::string value;
};

// What a command line asks for, once CLI11 has split it.
struct Options {
    std::string command;
    std::vector<std::string> positional;  // solve: WHAT first; then the file
    std::vector<Edit> edits;              // scenario flags, in the order given
    ExportFormat format = ExportFormat::Table;
    SizeUnit unit = SizeUnit::GiB;
    bool formulas = false;
    bool fail_if_no_fit = false;
    bool fits = false;  // estimate --fits: what fits (largest batch and sequence, fewest GPUs)
    std::optional<std::string> decode;  // link --decode LINK
    std::vector<std::pair<std::string, std::string>> plan;  // plan's flags, in the order given
};

// Which flags besides --help a command takes.
enum Takes : unsigned {
    kTakesScenario = 1u << 0,
    kTakesFormat = 1u << 1,
    kTakesUnit = 1u << 2,
    kTakesEstimate = 1u << 3,  // --formulas, --fail-if-no-fit, --fits
    kTakesDecode = 1u << 4,
    kTakesPlan = 1u << 5,
};

struct CommandSpec {
    const char* name;
    const char* positional;  // "SCENARIO.json", "SOURCE" or nullptr
    unsigned takes;
    const char* description;
};

constexpr CommandSpec kCommands[] = {
    {"estimate", "SCENARIO.json", kTakesScenario | kTakesFormat | kTakesUnit | kTakesEstimate,
     "How much GPU memory the scenario needs: per component and phase, and whether it fits."},
    {"solve", "SCENARIO.json", kTakesScenario | kTakesFormat | kTakesUnit,
     "The value of one knob that just fits. WHAT: micro-batch | seq | batch | context | gpus | weights."},
    {"scenario", "SCENARIO.json", kTakesScenario | kTakesFormat, "Print the scenario as JSON (a file to edit)."},
    {"link", "SCENARIO.json", kTakesScenario | kTakesDecode,
     "Print the scenario's share link; with --decode, the scenario a share link holds."},
    {"verify-script", "SCENARIO.json", kTakesScenario,
     "Print a Python script that measures the scenario on a CUDA GPU (python3 verify.py --dry-run checks it without one)."},
    {"models", nullptr, kTakesFormat, "List the model presets."},
    {"gpus", nullptr, kTakesFormat, "List the GPU presets."},
    {"optimizers", nullptr, kTakesFormat, "List the optimizers and the state each keeps per parameter."},
    {"profiles", nullptr, kTakesFormat,
     "List the framework profiles: the modes each applies to, the versions it describes, the settings it makes with their sources."},
    {"plan", nullptr, kTakesFormat | kTakesPlan,
     "Run a model locally with llama.cpp or Ollama: layers per GPU (-ngl, --tensor-split), each device's weights, KV "
     "cache and compute buffer, the largest context that fits, and the launch line. With --engine vllm: the tensor- and "
     "pipeline-parallel sizes, the KV blocks per GPU, the concurrent sequences at --max-model-len, the longest "
     "--max-model-len that starts, and the vllm serve line; --engine sglang: SGLang's pool and launch line."},
    {"import", "SOURCE", kTakesFormat,
     "A checkpoint's headers, never its weights: a folder (config.json, safetensors shards, adapter_config.json), a .safetensors, "
     ".gguf or config.json file, or a Hugging Face model (org/name[@revision] or a huggingface.co URL; read from the local cache, "
     "HF_HOME, else from the Hub, HF_ENDPOINT, with HF_TOKEN): the model, its tensors by dtype and the checkpoint's size."},
};

constexpr const char* kScenarioFooter =
    "SCENARIO.json is the scenario JSON format (docs/scenario-format.md); `-` reads stdin, `--` ends the\n"
    "options. Flags are applied on top of the file, in order. Switches take =true or =false.\n"
    "Exit status: 0 ok, 1 invalid input (the message names the field), 2 usage error, 3 does not fit\n"
    "(estimate --fail-if-no-fit).";

// A switch given as --flag, --flag=true or --flag=false (CLI11 hands over the text after "=").
std::optional<bool> switch_value(const std::string& text) {
    if (text == "true") return true;
    if (text == "false") return false;
    return std::nullopt;
}

std::string bad_switch(const std::string& flag, const std::string& text) {
    return flag + " is a switch: give it alone, or as " + flag + "=true or " + flag + "=false; got \"" + text + "\"";
}

struct UsageError {
    std::string message;
};

// `vramlens plan` flags: name, value name (nullptr: a switch), help.
struct PlanFlag {
    const char* flag;
    const char* value;
    const char* help;
};
constexpr PlanFlag kPlanFlags[] = {
    {"--engine", "ENGINE", "llama.cpp (default) | ollama | vllm | sglang"},
    {"--model", "ID", "model preset id, config.json, checkpoint folder or Hugging Face org/name (as for estimate)"},
    {"--weights", "TYPE", "GGUF type: q8_0 | q6_k | q5_k_m | q5_k_s | q5_1 | q5_0 | q4_k_m (default) | q4_k_s | q4_1 | q4_0 | q3_k_m | q2_k | fp16 | bf16; "
                          "vLLM: bf16 (default) | fp16 | fp8 | gptq-4bit | gptq-8bit | awq-4bit"},
    {"--ctx", "N", "context tokens, -c (default 4096); vLLM: --max-model-len"},
    {"--gpu", "ID", "a GPU preset id (`vramlens gpus`); repeat for each GPU, in device order"},
    {"--ram", "SIZE", "system RAM as sold, e.g. 64GB (= 64 GiB) or 48GiB; on a Mac the unified memory"},
    {"--kv-type", "TYPE", "KV cache type, -ctk/-ctv: f16 (default) | bf16 | q8_0 | q4_0 (quantized needs --flash-attn)"},
    {"--max-model-len", "N", "vLLM/SGLang: the longest sequence (default: the model's max_position_embeddings)"},
    {"--context-length", "N", "SGLang's name of --max-model-len"},
    {"--gpu-memory-utilization", "U", "vLLM: the fraction of each GPU vLLM may use (default 0.9); SGLang: --mem-fraction-static"},
    {"--mem-fraction-static", "U", "SGLang: the fraction of free memory for weights and KV (default 0.9)"},
    {"--kv-cache-dtype", "TYPE", "vLLM/SGLang: auto (default, the model's dtype) | fp8; --kv-type is the same flag"},
    {"--max-num-seqs", "N", "vLLM: --max-num-seqs (default: vLLM's for the release and GPU, 256 or 1024)"},
    {"--vllm-version", "V", "vLLM: its release (vllm --version, e.g. 0.6.5): which memory gpu_memory_utilization holds (default 0.21)"},
    {"--max-running-requests", "N", "SGLang's name of --max-num-seqs"},
    {"--tp", "N", "vLLM/SGLang: the tensor-parallel size (default: the largest vLLM accepts; SGLang: every GPU)"},
    {"--pp", "N", "vLLM: --pipeline-parallel-size (default: GPUs / tp)"},
    {"--flash-attn", nullptr, "flash attention on (-fa on)"},
    {"--no-kv-offload", nullptr, "keep every layer's KV cache in system RAM, attention on the CPU (-nkvo)"},
    {"--mmproj", "FILE", "a vision model's projector GGUF (its tensor bytes are read from the header), on the first GPU"},
    {"--mmproj-bytes", "SIZE", "the projector's size instead of its file, e.g. 1.2GB (GiB, as --ram)"},
    {"--no-mmproj-offload", nullptr, "keep the projector in system RAM (--no-mmproj-offload)"},
    {"--image-max-tokens", "N", "Qwen-VL projectors: plan the image encoder for images of up to N tokens (--image-max-tokens; "
                                "default: the image llama.cpp reserves at load)"},
    {"--ubatch", "N", "n_ubatch, -ub (default 512)"},
    {"--ngl", "N", "layers on the GPUs, -ngl (default: the most that fit)"},
    {"--n-cpu-moe", "N", "MoE: keep the routed experts of the first N layers on the CPU (--n-cpu-moe)"},
    {"--tensor-split", "A,B,...", "proportions per GPU (default: by each GPU's usable memory)"},
    {"--split-mode", "MODE", "layer (default): whole layers per GPU | row: each layer's matrices split by rows over the GPUs | none: one GPU"},
    {"--main-gpu", "N", "the GPU of --split-mode none, by its --gpu position from 0 (default 0)"},
    {"--apple", nullptr, "an Apple Silicon Mac: the GPU shares --ram (give no --gpu)"},
    {"--wired-limit-mb", "N", "Apple: iogpu.wired_limit_mb (default 0: macOS's default limit)"},
    {"--apple-chip", "ID", "Apple: the chip, for its memory bandwidth and GPU FLOP/s (m1 ... m4-max-40c; -Nc: N GPU cores)"},
    {"--ram-bandwidth", "GB/s", "system RAM bandwidth for the speed estimate (default 89.6: dual-channel DDR5-5600)"},
    {"--cpu-flops", "TFLOP/s", "CPU FP32 throughput for the prefill estimate (default 1.024: 8 cores, AVX2 FMA, 4 GHz)"},
    {"--rank", nullptr, "which model fits best on this machine: every --model (default: every preset) x every --weights "
                        "(default: every GGUF type), ranked by parameters, quantization loss and speed"},
    {"--min-speed", "TOK/S", "--rank: decode at least this many tokens/s (default 10)"},
    {"--max-loss", "CLASS", "--rank: the most quantization loss allowed: near-lossless | small | noticeable (default) | large"},
    {"--top", "N", "--rank: models shown (default 10)"},
    {"--since", "YYYY-MM", "--rank without --model: presets first published in this month or later (default: the 12 months up to the newest preset); all: every preset"},
    {"--all", nullptr, "--rank: every model x type, ranked or not, with why"},
    {"--draft-model", "ID", "speculative decoding: a draft model (preset id or .gguf, as --model) loaded beside the model on the same GPUs "
                            "and tensor split (llama-server -md)"},
    {"--draft-weights", "TYPE", "the draft model's GGUF type (default q8_0; a .gguf: its own type)"},
    {"--draft-ngl", "N", "the draft model's layers on the GPUs, -ngld (default: all of them and its output)"},
    {"--draft-ctx", "N", "the draft model's context, -cd (default: the main context)"},
    {"--draft-kv-type", "TYPE", "the draft model's KV cache type, -ctkd/-ctvd: f16 (default) | bf16 | q8_0 | q4_0"},
    {"--draft-max", "N", "tokens drafted per step, --draft-max (default 16)"},
    {"--compare", nullptr, "a grid of every --model x every --weights (GGUF types) x every --machine: fits, largest context, decode tok/s"},
    {"--machine", "SPEC", "--compare: a machine, GPU[+GPU...],ram=SIZE (e.g. rtx-4090+rtx-3060-12gb,ram=64GB) or mac=CHIP,mem=SIZE "
                          "(e.g. mac=m2-max,mem=96GB); repeat for each; --gpu/--ram/--apple give one more, first"},
};

const PlanFlag* find_plan_flag(const std::string& name) {
    for (const PlanFlag& f : kPlanFlags)
        if (name == f.flag) return &f;
    return nullptr;
}

// The parser of one command line: the global options and one subcommand per command.
class Parser {
public:
    Parser() : app_("how much GPU memory will this LLM need?", "vramlens") {
        app_.set_help_flag("-h,--help", "print this help and exit");
        app_.allow_extras();  // unknown options and arguments are collected and reported by run()
        app_.require_subcommand(0, 1);
        version_ = app_.add_flag("--version")->description("print the version and exit");
        auto fmt = std::make_shared<CLI::Formatter>();
        fmt->column_width(28);
        app_.formatter(fmt);
        for (const CommandSpec& c : kCommands) add_command(c);
    }

    CLI::App& app() { return app_; }
    bool version() const { return version_->count() > 0; }
    CLI::App* selected() const {
        auto subs = app_.get_subcommands();
        return subs.empty() ? nullptr : subs.front();
    }

    // After parse(): the options of the selected command, checked. nullopt when all is well.
    std::optional<UsageError> collect(CLI::App& sub, Options& o) {
        o.command = sub.get_name();
        for (const CLI::Option* opt : sub.get_options())
            if (opt->get_positional() && opt->count() > 0) o.positional.push_back(opt->results().front());
        // Scenario flags in the order they were given (parse_order lists each occurrence).
        std::map<const CLI::Option*, size_t> next;
        for (const CLI::Option* opt : sub.parse_order()) {
            const size_t i = next[opt]++;
            const std::vector<std::string>& results = opt->results();
            if (i >= results.size()) continue;
            const std::string& value = results[i];
            const std::string name = opt->get_name();
            if (const PlanFlag* pf = o.command == "plan" ? find_plan_flag(name) : nullptr) {
                if (!pf->value) {  // a switch
                    std::optional<bool> on = switch_value(value);
                    if (!on) return UsageError{bad_switch(name, value)};
                    o.plan.push_back({name, *on ? "true" : "false"});
                } else {
                    o.plan.push_back({name, value});
                }
            } else if (const FlagSpec* spec = find_flag(name)) {
                if (spec->kind == FlagKind::Switch && !switch_value(value)) return UsageError{bad_switch(name, value)};
                o.edits.push_back({spec, value});
            } else if (name == "--format") {
                auto f = parse_enum<ExportFormat>(value);
                if (!f) return UsageError{"--format must be one of " + enum_choices<ExportFormat>() + "; got \"" + value + "\""};
                if (o.command == "scenario" && *f != ExportFormat::Json)
                    return UsageError{"scenario prints JSON only; --format must be json; got \"" + value + "\""};
                o.format = *f;
            } else if (name == "--unit") {
                if (value == "gib" || value == "GiB") o.unit = SizeUnit::GiB;
                else if (value == "gb" || value == "GB") o.unit = SizeUnit::GB;
                else return UsageError{"--unit must be \"gib\" (2^30 bytes) or \"gb\" (10^9 bytes); got \"" + value + "\""};
            } else if (name == "--formulas" || name == "--fail-if-no-fit" || name == "--fits") {
                std::optional<bool> on = switch_value(value);
                if (!on) return UsageError{bad_switch(name, value)};
                (name == "--formulas" ? o.formulas : name == "--fits" ? o.fits : o.fail_if_no_fit) = *on;
            } else if (name == "--decode") {
                o.decode = value;
            }
        }
        return std::nullopt;
    }

private:
    void add_command(const CommandSpec& c) {
        CLI::App* sub = app_.add_subcommand(c.name, c.description);
        // One argument per positional: a second one is left over and reported by run().
        if (std::string(c.name) == "solve")
            sub->add_option("WHAT", positional_[sub][0], "micro-batch | seq | batch | context | gpus | weights")->type_name("");
        if (c.positional) {
            const bool scenario = std::string(c.positional) == "SCENARIO.json";
            sub->add_option(c.positional, positional_[sub][1],
                            scenario ? "scenario file (docs/scenario-format.md); - reads stdin"
                                     : "a checkpoint folder, a .safetensors, .gguf or config.json file (- reads a config.json from stdin), or org/name[@revision] or a Hub URL (HF cache, else the Hub)")
                ->type_name("");
        }
        if (c.takes & kTakesScenario) {
            for (const FlagSpec& f : kScenarioFlags) {
                CLI::Option* opt = f.kind == FlagKind::Switch ? sub->add_flag(f.flag) : sub->add_option(f.flag)->type_name("X");
                opt->description(flag_help(f));
                opt->group("Scenario flags")->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
            }
            sub->footer(kScenarioFooter);
        }
        // Given twice, the last one counts (collect() walks them in order).
        auto output = [](CLI::Option* opt, const char* help) {
            opt->description(help)->group("Output")->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
        };
        if (c.takes & kTakesFormat)
            output(sub->add_option("--format")->type_name("FORMAT"),
                   std::string(c.name) == "scenario" ? "json (the only format of a scenario)" : "table (default) | json | markdown | csv");
        if (c.takes & kTakesUnit) output(sub->add_option("--unit")->type_name("UNIT"), "gib (2^30 bytes, default) | gb (10^9 bytes)");
        if (c.takes & kTakesEstimate) {
            output(sub->add_flag("--formulas"), "each component's formula, with your numbers, and its source");
            output(sub->add_flag("--fail-if-no-fit"), "exit with status 3 when the scenario does not fit");
            output(sub->add_flag("--fits"), "also what fits: the largest batch and sequence, the fewest GPUs");
        }
        if (c.takes & kTakesPlan) {
            for (const PlanFlag& f : kPlanFlags) {
                CLI::Option* opt = f.value ? sub->add_option(f.flag)->type_name(f.value) : sub->add_flag(f.flag);
                opt->description(f.help)->group("Plan")->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
            }
        }
        if (c.takes & kTakesDecode)
            sub->add_option("--decode")->type_name("LINK")->description("print the scenario a share link (or a whole URL) holds");
    }

    CLI::App app_;
    CLI::Option* version_ = nullptr;
    std::map<const CLI::App*, std::array<std::string, 2>> positional_;  // CLI11 stores into these
};

// Reads a file named on the command line ("-": standard input), refusing more than
// kMaxJsonInputBytes: a regular file's size is checked before it is read, anything else (stdin, a
// pipe) is read up to one byte past the limit.
bool read_file(const std::string& path, std::string& text, std::string& err) {
    const std::string name = path == "-" ? std::string("standard input") : path;
    auto too_big = [&](const std::string& size) {
        err += "vramlens: " + name + ": is " + size + "; at most " + describe_input_size(kMaxJsonInputBytes) +
               " is read (a scenario or config.json is a few KB: is this the right file?)\n";
        return false;
    };
    std::ifstream file;
    std::istream* in = &std::cin;
    if (path != "-") {
        std::error_code ec;
        const std::filesystem::file_status st = std::filesystem::status(path, ec);
        if (ec) {
            err += "vramlens: cannot read " + path + ": " + ec.message() + "\n";
            return false;
        }
        if (std::filesystem::is_directory(st)) {
            err += "vramlens: cannot read " + path + ": is a directory\n";
            return false;
        }
        if (std::filesystem::is_regular_file(st)) {
            const std::uintmax_t size = std::filesystem::file_size(path, ec);
            if (!ec && size > kMaxJsonInputBytes) return too_big(describe_input_size(static_cast<size_t>(size), kMaxJsonInputBytes));
        }
        file.open(path, std::ios::binary);
        if (!file) {
            err += "vramlens: cannot read " + path + ": " + std::strerror(errno) + "\n";
            return false;
        }
        in = &file;
    }
    text.clear();
    std::string chunk(size_t{1} << 16, '\0');
    while (text.size() <= kMaxJsonInputBytes) {
        const size_t want = std::min(chunk.size(), kMaxJsonInputBytes + 1 - text.size());
        in->read(chunk.data(), static_cast<std::streamsize>(want));
        if (in->gcount() <= 0) break;
        text.append(chunk.data(), static_cast<size_t>(in->gcount()));
    }
    if (text.size() > kMaxJsonInputBytes) return too_big("more than " + describe_input_size(kMaxJsonInputBytes));
    if (in->bad()) {
        err += "vramlens: cannot read " + name + ": read error\n";
        return false;
    }
    return true;
}

// A flag's text as a JSON value: numbers and true/false as such, anything else as a string.
Json flag_value(const std::string& text) {
    std::vector<FieldError> ignored;
    std::optional<Json> j = parse_ordered_json_input(text, "flag", ignored);
    if (j && (j->is_number() || j->is_boolean())) return *j;
    return text;
}

bool is_under(const std::string& path, const std::string& parent) {
    return path.size() > parent.size() && path.compare(0, parent.size(), parent) == 0 && path[parent.size()] == '.';
}

// Errors name the flag that set the field: the flag whose field holds the error (the most specific
// one), else every flag that set part of the object in error ("model" from --set model.name).
// Errors quote what was given (field names, values): control characters in it are escaped so that
// they cannot move the cursor or clear the terminal.
void print_errors(const std::vector<FieldError>& errs, const std::map<std::string, std::string>& flag_of, std::string& err) {
    for (const FieldError& e : errs) {
        std::string holder, parts;
        for (const auto& [path, flag] : flag_of) {
            if ((e.field == path || is_under(e.field, path)) && path.size() >= holder.size()) holder = path;
            if (is_under(path, e.field)) parts += (parts.empty() ? "" : ", ") + flag;
        }
        const std::string from = !holder.empty() ? " (from " + flag_of.at(holder) + ")" : !parts.empty() ? " (from " + parts + ")" : "";
        err += "  " + escape_control_chars(e.field) + escape_control_chars(from) + ": " + escape_control_chars(e.message) + "\n";
    }
}

void print_warnings(const std::vector<std::string>& warnings, std::string& err) {
    for (const std::string& w : warnings) err += "warning: " + escape_control_chars(w) + "\n";
}

// Sets doc[path] (dotted), creating objects on the way. A preset id met on the way ("model":
// "llama-3.1-8b" then --set model.layers=16) is first replaced by that preset's fields.
std::optional<std::string> set_path(Json& doc, const std::string& path, Json value) {
    Json* at = &doc;
    std::string walked;
    size_t start = 0;
    while (true) {
        size_t dot = path.find('.', start);
        std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (key.empty()) return "\"" + path + "\" is not a field path";
        walked += (walked.empty() ? "" : ".") + key;
        if (dot == std::string::npos) {
            (*at)[key] = std::move(value);
            return std::nullopt;
        }
        Json& next = (*at)[key];
        if (next.is_string() && walked == "model") {
            if (const ModelPreset* m = find_model(next.get<std::string>())) next = Json::parse(model_to_json(m->spec, JsonStyle::Compact), nullptr, false);
        } else if (next.is_string() && walked == "gpu") {
            if (const GpuPreset* g = find_gpu(next.get<std::string>())) next = Json{{"name", g->name}, {"memory_bytes", g->memory_bytes}};
        }
        if (next.is_null()) next = Json::object();
        if (!next.is_object()) return "\"" + walked + "\" is not an object here, so \"" + path + "\" cannot be set";
        at = &next;
        start = dot + 1;
    }
}

// Whether doc has a value at the dotted path.
bool has_path(const Json& doc, const std::string& path) {
    const Json* at = &doc;
    size_t start = 0;
    while (true) {
        const size_t dot = path.find('.', start);
        const std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (!at->is_object() || !at->contains(key)) return false;
        at = &(*at)[key];
        if (dot == std::string::npos) return true;
        start = dot + 1;
    }
}

// Scenario paths a --model source implies (a GGUF's engine and weight format), set only where
// neither the scenario file nor a flag sets them.
using Implied = std::vector<std::pair<std::string, Json>>;

// --model SOURCE where SOURCE is a checkpoint folder, a .gguf file or an org/name repo id in the HF
// cache (not a preset id): the model as {"hf_config": ...} from its config.json, or for a GGUF file
// the model import_checkpoint and apply_checkpoint_import make of it (`vramlens import` reads it so):
// its metadata's architecture with the file's tensor bytes (model.gguf_bytes), and in `implied` the
// llama.cpp engine and weight format its general.file_type names. nullopt with `handled` false when
// the value is a preset id (or anything else for the reader).
std::optional<Json> model_from_source(const std::string& value, bool& handled, std::string& err, Implied& implied) {
    handled = false;
    if (find_model(value)) return std::nullopt;
    std::error_code ec;
    const bool dir = std::filesystem::is_directory(value, ec);
    const bool gguf = value.size() > 5 && value.compare(value.size() - 5, 5, ".gguf") == 0;
    if (!dir && !gguf && value.find('/') == std::string::npos) return std::nullopt;
    handled = true;
    CheckpointSource src;
    if (!load_checkpoint_source(value, src, err)) return std::nullopt;
    std::string config = src.config_text;
    if (config.empty() && src.gguf) {
        Result<std::string> c = gguf_hf_config(*src.gguf);
        if (!c) {
            err += "vramlens: --model " + value + ": the GGUF metadata does not describe a model vramlens can size:\n";
            print_errors(c.errors, {}, err);
            return std::nullopt;
        }
        vl::CheckpointFiles files;
        files.gguf = src.gguf;
        files.gguf_file_bytes = src.gguf_file_bytes;
        const Result<CheckpointImport> imported = import_checkpoint(files);
        if (imported.ok() && imported->model) {
            Scenario s;
            apply_checkpoint_import(*imported, s);
            if (s.infer.engine == Engine::LlamaCpp) {
                implied.emplace_back("infer.engine", enum_name(s.infer.engine));
                implied.emplace_back("infer.weights", enum_name(s.infer.weights));
            }
            std::vector<FieldError> errs;
            if (std::optional<Json> m = parse_ordered_json_input(model_to_json(s.model, JsonStyle::Pretty), "model", errs)) return m;
        }
        config = *c;
    }
    if (config.empty()) {
        err += "vramlens: --model " + value + ": has no config.json (or .gguf) to read the model from\n";
        return std::nullopt;
    }
    std::vector<FieldError> errs;
    std::optional<Json> c = parse_ordered_json_input(config, "config", errs);
    if (!c) {
        err += "vramlens: --model " + value + ": its config.json is not valid JSON:\n";
        print_errors(errs, {}, err);
        return std::nullopt;
    }
    return Json{{"hf_config", std::move(*c)}};
}

// Which flag set each scenario path, for naming the flag in an error (print_errors).
using FlagMap = std::map<std::string, std::string>;

// The scenario from an optional file plus the flags. Prints the reader's errors itself; nullopt on
// failure. The rules between fields are checked later, by the core (validate(), through estimate or
// solve): `flags`, when given, receives which flag set which path so those errors can name it.
std::optional<Scenario> load_scenario(const Options& o, const std::string* file, std::string& err, int& status,
                                      FlagMap* flags = nullptr) {
    Json doc = Json{{"version", kScenarioJsonVersion}};
    std::string source = "flags";
    if (file) {
        std::string text;
        if (!read_file(*file, text, err)) { status = kBadInput; return std::nullopt; }
        source = *file == "-" ? std::string("standard input") : *file;
        std::vector<FieldError> errs;
        std::optional<Json> parsed = parse_ordered_json_input(text, "json", errs);
        if (parsed && !parsed->is_object()) errs = scenario_from_json(text).errors;  // the reader says what is wrong
        if (!errs.empty()) {
            err += "vramlens: " + source + " is not a valid scenario:\n";
            print_errors(errs, {}, err);
            status = kBadInput;
            return std::nullopt;
        }
        doc = std::move(*parsed);
    }
    std::map<std::string, std::string> flag_of;
    std::vector<std::string> given;  // the paths set by flags, in order
    Implied implied;
    for (const Edit& e : o.edits) {
        std::string path = e.spec->path;
        Json value;
        switch (e.spec->kind) {
            case FlagKind::Value:
                if (path == "model") {
                    bool handled = false;
                    std::optional<Json> m = model_from_source(e.value, handled, err, implied);
                    if (handled && !m) { status = kBadInput; return std::nullopt; }
                    if (m) { value = std::move(*m); break; }
                }
                // A release number is text ("0.10" is not 0.1).
                value = path == "infer.vllm_version" || path == "train.torch_version" ? Json(e.value) : flag_value(e.value);
                break;
            case FlagKind::Switch: value = flag_value(e.value); break;
            case FlagKind::Params: value = Json{{"params", flag_value(e.value)}}; break;
            case FlagKind::ModelConfig: {
                std::string cfg;
                if (!read_file(e.value, cfg, err)) { status = kBadInput; return std::nullopt; }
                std::vector<FieldError> errs;
                std::optional<Json> c = parse_ordered_json_input(cfg, "config", errs);
                if (!c) {
                    err += "vramlens: --model-config " + e.value + " is not a valid config.json:\n";
                    print_errors(errs, {}, err);
                    status = kBadInput;
                    return std::nullopt;
                }
                value = Json{{"hf_config", std::move(*c)}};
                break;
            }
            case FlagKind::DeepSpeedConfig: {
                std::string cfg;
                if (!read_file(e.value, cfg, err)) { status = kBadInput; return std::nullopt; }
                Result<std::vector<ScenarioEdit>> ds = deepspeed_config_edits(cfg);
                for (const std::string& w : ds.warnings) err += "note: --deepspeed-config " + e.value + ": " + escape_control_chars(w) + "\n";
                if (!ds.ok()) {
                    err += "vramlens: --deepspeed-config " + e.value + " is not a DeepSpeed config vramlens can read:\n";
                    print_errors(ds.errors, {}, err);
                    status = kBadInput;
                    return std::nullopt;
                }
                for (const ScenarioEdit& edit : *ds) {
                    set_path(doc, edit.path, Json::parse(edit.json, nullptr, false));
                    flag_of[edit.path] = e.spec->flag;
                    if (std::find(given.begin(), given.end(), edit.path) == given.end()) given.push_back(edit.path);
                }
                continue;  // every edit is set: nothing left for the one-path step below
            }
            case FlagKind::LoraTargets: {
                if (e.value == "all-linear") { value = e.value; break; }
                value = Json::array();
                size_t start = 0;
                while (start <= e.value.size()) {
                    size_t comma = e.value.find(',', start);
                    value.push_back(e.value.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
                    if (comma == std::string::npos) break;
                    start = comma + 1;
                }
                break;
            }
            case FlagKind::GpuMemGiB: {
                Json gib = flag_value(e.value);
                if (!gib.is_number()) {
                    err += "vramlens: --gpu-memory-gib must be a number of GiB; got \"" + escape_control_chars(e.value) + "\"\n";
                    status = kUsage;
                    return std::nullopt;
                }
                // A custom GPU: keep the name if one was given as an object, else call it so.
                Json& gpu = doc["gpu"];
                if (!gpu.is_object()) gpu = Json{{"name", "Custom GPU"}};
                value = gib.get<double>() * kGiB;
                break;
            }
            case FlagKind::CublasConfig: {
                const std::optional<double> bytes = parse_cublas_workspace_config(e.value);
                if (!bytes) {
                    err += "vramlens: --cublas-workspace-config takes CUBLAS_WORKSPACE_CONFIG's form :SIZE:COUNT (KiB, count), repeated, "
                           "e.g. :4096:8 or :4096:2:16:8; got \"" + escape_control_chars(e.value) + "\"\n";
                    status = kUsage;
                    return std::nullopt;
                }
                value = *bytes;
                break;
            }
            case FlagKind::Set: {
                size_t eq = e.value.find('=');
                if (eq == std::string::npos || eq == 0) {
                    err += "vramlens: --set needs PATH=VALUE, e.g. --set overheads.fragmentation=0.1; got \"" + escape_control_chars(e.value) + "\"\n";
                    status = kUsage;
                    return std::nullopt;
                }
                path = e.value.substr(0, eq);
                value = flag_value(e.value.substr(eq + 1));
                break;
            }
        }
        if (auto problem = set_path(doc, path, std::move(value))) {
            err += "vramlens: " + std::string(e.spec->flag) + ": " + escape_control_chars(*problem) + "\n";
            status = kUsage;
            return std::nullopt;
        }
        flag_of[path] = e.spec->kind == FlagKind::Set ? "--set " + path : e.spec->flag;
        if (std::find(given.begin(), given.end(), path) == given.end()) given.push_back(path);
    }
    std::string implied_text;
    for (auto& [path, value] : implied) {
        // Another weight format than the GGUF file's own is another file: its tensor bytes (typed) do not apply.
        const bool llamacpp = !has_path(doc, "infer.engine") || doc["infer"]["engine"] == enum_name(Engine::LlamaCpp);
        if (path == "infer.weights" && has_path(doc, path) && doc["infer"]["weights"] != value && has_path(doc, "model.gguf_bytes") && llamacpp)
            err += "note: --model: infer.weights " + doc["infer"]["weights"].dump() + " is not the GGUF file's type (" +
                   value.get<std::string>() + "): its tensor bytes are not used; that format's rules size the weights\n";
        if (has_path(doc, path)) continue;
        implied_text += (implied_text.empty() ? "" : ", ") + path + " " + value.get<std::string>();
        set_path(doc, path, std::move(value));
    }
    if (!implied_text.empty()) err += "note: --model: " + implied_text + " (the GGUF file's general.file_type)\n";
    Result<Scenario> r = scenario_from_json(doc.dump(-1, ' ', false, Json::error_handler_t::replace));
    print_warnings(r.warnings, err);
    if (!r.ok()) {
        err += "vramlens: invalid scenario (" + source + "):\n";
        print_errors(r.errors, flag_of, err);
        status = kBadInput;
        return std::nullopt;
    }
    // A flag for another mode changes nothing in this one: say so rather than ignore it silently.
    for (const std::string& path : given) {
        std::optional<FieldModes> modes = modes_of_field(path);
        if (modes && !modes->reads(r->mode))
            err += "warning: " + escape_control_chars(flag_of[path]) + " is read with " + modes->text + "; ignored in " + enum_name(r->mode) + " mode\n";
    }
    if (flags) *flags = std::move(flag_of);
    return *r.value;
}

// ---- help -------------------------------------------------------------------------------------
std::string usage() {
    std::string h =
        "vramlens " VRAMLENS_VERSION " - how much GPU memory will this LLM need?\n"
        "\n"
        "usage:\n"
        "  vramlens estimate [SCENARIO.json] [scenario flags] [--format F] [--unit gib|gb] [--formulas] [--fail-if-no-fit] [--fits]\n"
        "  vramlens solve WHAT [SCENARIO.json] [scenario flags] [--format F]\n"
        "        WHAT: micro-batch | seq | batch | context | gpus | weights\n"
        "  vramlens scenario [SCENARIO.json] [scenario flags]     print the scenario as JSON (a file to edit)\n"
        "  vramlens link [SCENARIO.json] [scenario flags]         print its share link\n"
        "  vramlens link --decode LINK                            print the scenario a share link holds\n"
        "  vramlens models [--format F]                           model presets\n"
        "  vramlens gpus [--format F]                             GPU presets\n"
        "  vramlens optimizers [--format F]                       optimizers and the state they keep per parameter\n"
        "  vramlens profiles [--format F]                         framework profiles (--profile ID) and what each sets\n"
        "  vramlens import SOURCE [--format F]                    a checkpoint's headers: model, tensors by dtype, true size\n"
        "  vramlens plan --model ID --gpu ID [--gpu ID ...] --ram SIZE [--weights Q4_K_M] [--ctx N] [--engine llama.cpp|ollama]\n"
        "        [--kv-type f16|q8_0|q4_0] [--flash-attn] [--no-kv-offload] [--ngl N] [--n-cpu-moe N] [--tensor-split A,B] [--apple]\n"
        "        [--split-mode layer|row|none] [--main-gpu N] [--mmproj FILE] [--no-mmproj-offload] [--format json]\n"
        "                                                         run it locally: layers per GPU, memory per device, launch line\n"
        "  vramlens plan --compare --model ID [--model ID ...] --weights TYPE [--weights TYPE ...] --machine SPEC [--machine SPEC ...]\n"
        "        [--ctx N] [--kv-type T] [--flash-attn] [--format json]\n"
        "                                                         models x GGUF types x machines side by side (SPEC: rtx-4090+rtx-3060-12gb,ram=64GB\n"
        "                                                         or mac=m2-max,mem=96GB)\n"
        "  vramlens plan --engine vllm|sglang --model ID --gpu ID [--gpu ID ...] [--weights bf16|fp8|awq-4bit] [--max-model-len N]\n"
        "        [--gpu-memory-utilization U] [--kv-cache-dtype auto|fp8] [--max-num-seqs N] [--tp N] [--pp N] [--format json]\n"
        "                                                         serve it with vLLM or SGLang: tp/pp, KV blocks, sequences, launch line\n"
        "        SOURCE: a folder, a .safetensors, .gguf or config.json file, or org/name[@rev] / a Hub URL (HF cache, else the Hub)\n"
        "  vramlens verify-script [SCENARIO.json] [flags]         a Python script that measures the scenario on a CUDA GPU\n"
        "  vramlens COMMAND --help                                that command's arguments and flags\n"
        "  vramlens --help | --version\n"
        "\n"
        "SCENARIO.json is the scenario JSON format (docs/scenario-format.md); `-` reads stdin, `--` ends\n"
        "the options. Flags are applied on top of the file, in order. F: table (default) | json | markdown | csv.\n"
        "Switches (--sp, --formulas, ...) also take =true or =false.\n"
        "\n"
        "scenario flags:\n";
    for (const FlagSpec& f : kScenarioFlags) {
        std::string left = std::string("  ") + f.flag + (f.kind == FlagKind::Switch ? "" : " X");
        h += left + std::string(left.size() < 24 ? 24 - left.size() : 1, ' ') + flag_help(f) + "\n";
    }
    h +=
        "\n"
        "example:\n"
        "  vramlens estimate --model llama-3.1-8b --mode train --precision bf16-mixed --optimizer adamw \\\n"
        "      --micro-batch 4 --seq 4096 --zero 2 --dp 8 --gpu h100-80gb\n"
        "\n"
        "exit status: 0 ok, 1 invalid input (the message names the field), 2 usage error,\n"
        "             3 does not fit (with --fail-if-no-fit)\n";
    return h;
}

// ---- commands ---------------------------------------------------------------------------------
const std::string* scenario_file(const Options& o, size_t index, std::string& err, int& status) {
    if (o.positional.size() > index + 1) {
        err += "vramlens: unexpected argument \"" + o.positional[index + 1] + "\"\n";
        status = kUsage;
        return nullptr;
    }
    return o.positional.size() == index + 1 ? &o.positional[index] : nullptr;
}

int cmd_estimate(const Options& o, std::string& out, std::string& err) {
    int status = kOk;
    const std::string* file = scenario_file(o, 0, err, status);
    if (status != kOk) return status;
    FlagMap flags;
    std::optional<Scenario> s = load_scenario(o, file, err, status, &flags);
    if (!s) return status;
    Estimate e = estimate(*s, Detail::Full);
    if (!e.ok()) {
        err += "vramlens: invalid scenario:\n";
        print_errors(e.errors, flags, err);
        return kBadInput;
    }
    ExportOptions eo;
    eo.unit = o.unit;
    eo.formulas = o.formulas;
    // As the page: what fits on request; when it does not fit, always each single change that does.
    FitAnswers answers;
    std::vector<Lever> levers;
    if (o.fits || !e.fits()) answers = fit_answers(*s, e);
    if (o.fits) eo.answers = &answers;
    if (!e.fits()) {
        levers = fit_levers(*s, e, answers);
        eo.levers = &levers;
    }
    out += export_estimate(*s, e, o.format, eo);
    if (!o.fail_if_no_fit || e.fits()) return kOk;
    // stdout may be JSON or CSV for a script; the reason for status 3 goes to stderr for people.
    err += "vramlens: does not fit: the peak is " + amount_with_unit(e.total_bytes, o.unit) + " of " +
           amount_with_unit(e.gpu_capacity_bytes, o.unit) + " per GPU, " +
           amount_with_unit(e.total_bytes - e.gpu_capacity_bytes, o.unit) + " over\n";
    return kNoFit;
}

int cmd_verify_script(const Options& o, std::string& out, std::string& err) {
    int status = kOk;
    const std::string* file = scenario_file(o, 0, err, status);
    if (status != kOk) return status;
    FlagMap flags;
    std::optional<Scenario> s = load_scenario(o, file, err, status, &flags);
    if (!s) return status;
    Result<std::string> script = verify_script(*s, estimate(*s, Detail::Full));  // Full: its shown_bytes (estimate.h)
    if (!script.ok()) {
        err += "vramlens: no verify script for this scenario:\n";
        print_errors(script.errors, flags, err);
        return kBadInput;
    }
    out += *script;
    return kOk;
}

int cmd_scenario(const Options& o, std::string& out, std::string& err) {
    int status = kOk;
    const std::string* file = scenario_file(o, 0, err, status);
    if (status != kOk) return status;
    std::optional<Scenario> s = load_scenario(o, file, err, status);
    if (!s) return status;
    out += scenario_to_json(*s, JsonStyle::Pretty) + "\n";
    return kOk;
}

int cmd_link(const Options& o, std::string& out, std::string& err) {
    if (o.decode) {
        std::string link = *o.decode;
        if (link.empty() || !o.positional.empty() || !o.edits.empty()) {
            err += "vramlens: link --decode needs exactly one LINK (and no scenario file or flags)\n";
            return kUsage;
        }
        if (size_t hash = link.find('#'); hash != std::string::npos) link = link.substr(hash);  // a whole URL
        Result<Scenario> r = decode_share_link(link);
        if (!r.ok()) {
            err += "vramlens: cannot read this link:\n";
            print_errors(r.errors, {}, err);
            return kBadInput;
        }
        out += scenario_to_json(*r, JsonStyle::Pretty) + "\n";
        return kOk;
    }
    int status = kOk;
    const std::string* file = scenario_file(o, 0, err, status);
    if (status != kOk) return status;
    std::optional<Scenario> s = load_scenario(o, file, err, status);
    if (!s) return status;
    out += encode_share_link(*s) + "\n";
    return kOk;
}

int cmd_models(const Options& o, std::string& out) {
    std::vector<std::vector<std::string>> rows;
    for (const ModelPreset& p : model_presets()) {
        ParamCounts c = count_params(p.spec);
        rows.push_back({p.id, p.name, p.family, group_thousands(c.total), p.spec.moe.num_experts > 0 ? group_thousands(c.active_per_token) : "", p.hf_id});
    }
    out += format_rows({"id", "name", "family", "parameters", "active", "hugging face"}, rows, o.format);
    return kOk;
}

int cmd_gpus(const Options& o, std::string& out) {
    std::vector<std::vector<std::string>> rows;
    for (const GpuPreset& g : gpu_presets())
        rows.push_back({g.id, g.name, amount(g.memory_bytes, SizeUnit::GiB), amount(g.memory_bytes, SizeUnit::GB), whole_text(g.memory_bytes), g.source,
                        amount(g.cuda_total_bytes, SizeUnit::GiB), whole_text(g.cuda_total_bytes), g.cuda_total_source});
    out += format_rows({"id", "name", "GiB", "GB", "bytes", "source", "usable GiB", "usable bytes", "usable source"}, rows, o.format);
    return kOk;
}

// The optimizer table: state per parameter in words and, for fp32 states, in bytes.
int cmd_optimizers(const Options& o, std::string& out) {
    std::vector<std::vector<std::string>> rows;
    for (const OptimizerInfo& i : kOptimizers) {
        std::string fp32;  // bytes per parameter with 4-byte states, where the row alone fixes it
        if (i.size == StateSize::None) fp32 = "0";
        if (i.size == StateSize::PerParam) fp32 = number_text(i.states * 4.0);
        if (i.size == StateSize::Blockwise) fp32 = number_text(i.states * (i.element_bytes + i.scale_bytes / i.block));
        rows.push_back({i.name, optimizer_state_text(i), fp32, i.master_weights ? "fp32 in mixed precision" : "none", i.source});
    }
    out += format_rows({"optimizer", "state per parameter", "bytes/param (fp32 states)", "master weights", "source"}, rows, o.format);
    return kOk;
}

// The framework profile table: one row per setting a profile makes, the profile's id, label, modes and versions on
// each (framework_profiles.h); "default" names the modes a front end starts with it.
int cmd_profiles(const Options& o, std::string& out) {
    std::vector<std::vector<std::string>> rows;
    for (const FrameworkProfile& p : framework_profiles()) {
        std::string modes, defaults;
        for (Mode m : {Mode::Train, Mode::FineTune, Mode::Infer}) {
            if (p.modes & mode_bit(m)) modes += (modes.empty() ? "" : " ") + std::string(enum_name(m));
            if (std::string_view(default_profile(m)) == p.id) defaults += (defaults.empty() ? "" : " ") + std::string(enum_name(m));
        }
        for (const ProfileSetting& st : p.settings) rows.push_back({p.id, p.label, modes, p.versions, defaults, st.field, st.value, st.source});
    }
    out += format_rows({"profile", "label", "modes", "versions", "default for", "field", "value", "source"}, rows, o.format);
    return kOk;
}

// A count for people: grouped in threes (units.h).
std::string grouped_u64(uint64_t v) { return v <= INT64_MAX ? group_thousands(static_cast<int64_t>(v)) : std::to_string(v); }

bool has_suffix(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The GGUF metadata as JSON: scalars as their values, arrays as their element type and length.
Json gguf_metadata_json(const GgufHeader& h) {
    Json m = Json::object();
    for (const GgufKv& kv : h.metadata) {
        if (kv.type == GgufValueType::Array)
            m[kv.key] = {{"array", gguf_value_type_name(kv.element_type)}, {"count", kv.count}};
        else if (kv.type == GgufValueType::String) m[kv.key] = kv.text;
        else if (kv.type == GgufValueType::Bool) m[kv.key] = kv.unsigned_value.value_or(0) != 0;
        else if (kv.unsigned_value) m[kv.key] = *kv.unsigned_value;
        else m[kv.key] = kv.number.value_or(0.0);
    }
    return m;
}

int cmd_import(const Options& o, std::string& out, std::string& err) {
    if (o.positional.size() != 1) {
        err += "vramlens: import needs exactly one SOURCE: a checkpoint folder, a .safetensors, .gguf or config.json file, or a "
               "Hugging Face model (org/name[@revision] or a Hub URL)\n";
        return kUsage;
    }
    const std::string& given = o.positional[0];
    CheckpointSource src;
    std::error_code ec;
    const bool json_file = given == "-" || (std::filesystem::is_regular_file(given, ec) && !has_suffix(given, ".gguf") &&
                                            !has_suffix(given, ".safetensors") && !has_suffix(given, ".safetensors.index.json"));
    if (json_file) {
        std::string text;
        if (!read_file(given, text, err)) return kBadInput;
        if (!load_json_source(given, text, src, err)) return kBadInput;
    } else if (!load_checkpoint_source(given, src, err)) {
        return kBadInput;
    }
    print_warnings(src.warnings, err);
    vl::CheckpointFiles files;
    if (!src.config_path.empty()) files.config_text = src.config_text;
    if (!src.adapter_path.empty()) files.adapter_text = src.adapter_text;
    files.index = src.index;
    for (const ShardHeader& s : src.shards) files.shards.push_back({s.path, s.file_bytes, s.header});
    files.missing_shards = src.missing_shards;
    files.gguf = src.gguf;
    files.gguf_file_bytes = src.gguf_file_bytes;
    CheckpointPart failed = CheckpointPart::Config;
    const Result<CheckpointImport> imported = import_checkpoint(files, &failed);
    print_warnings(imported.warnings, err);
    if (!imported.ok()) {
        if (failed == CheckpointPart::Config) err += "vramlens: " + src.config_path + " cannot be imported:\n";
        if (failed == CheckpointPart::Quantization) err += "vramlens: " + src.config_path + ": its quantization_config cannot be read:\n";
        if (failed == CheckpointPart::Adapter) err += "vramlens: " + src.adapter_path + " cannot be imported:\n";
        print_errors(imported.errors, {}, err);
        return kBadInput;
    }
    const CheckpointImport& c = *imported;
    Json j = Json::object();
    std::vector<std::string> warnings = src.warnings;
    warnings.insert(warnings.end(), imported.warnings.begin(), imported.warnings.end());
    std::string text;  // the table form
    std::vector<std::vector<std::string>> rows;  // csv / markdown: the checkpoint's table
    std::vector<std::string> row_header;

    // ---- config.json: the model, its parameter counts, its quantization ----
    const std::optional<QuantConfig>& quant = c.quantization;
    if (files.config_text) {
        const ModelSpec& m = *c.model;
        const ParamCounts& p = *c.params;
        std::vector<std::vector<std::string>> counts = {
            {"total", group_thousands(p.total)},
            {"embedding", group_thousands(p.embedding)},
            {"lm_head", group_thousands(p.lm_head)},
            {"non_embedding", group_thousands(p.non_embedding)},
            {"active_per_token", group_thousands(p.active_per_token)},
            {"largest_layer", group_thousands(p.largest_layer)},
        };
        if (p.mtp > 0) counts.push_back({"mtp (not in total)", group_thousands(p.mtp)});
        // An encoder-decoder's two stacks: the encoder's layers, then the decoder's (each with its cross-attention).
        int64_t encoder_params = 0, decoder_params = 0;
        if (m.seq2seq.active()) {
            const int64_t decoder = m.seq2seq.decoder_layers, encoder = m.layers - decoder;
            encoder_params = encoder * p.per_layer.kind(0).total();
            decoder_params = decoder * p.per_layer.kind(static_cast<size_t>(m.layers - 1)).total();
            counts.push_back({"encoder layers (" + std::to_string(encoder) + ")", group_thousands(encoder_params)});
            counts.push_back({"decoder layers (" + std::to_string(decoder) + ", with cross-attention)", group_thousands(decoder_params)});
        }
        j["model"] = Json::parse(model_to_json(m, JsonStyle::Pretty), nullptr, false);
        j["params"] = {{"total", p.total},
                       {"embedding", p.embedding},
                       {"lm_head", p.lm_head},
                       {"non_embedding", p.non_embedding},
                       {"active_per_token", p.active_per_token},
                       {"largest_layer", p.largest_layer}};
        if (p.mtp > 0) j["params"]["mtp"] = p.mtp;
        if (m.seq2seq.active()) {
            j["params"]["encoder_layers"] = encoder_params;
            j["params"]["decoder_layers"] = decoder_params;
        }
        text += escape_control_chars(m.name) + " (" + escape_control_chars(m.model_type) + ")\n\nparameters:\n";
        std::string table = format_rows({"count", "parameters"}, counts, ExportFormat::Table);
        text += table.substr(table.find('\n') + 1);  // rows only
        text += "\nas the \"model\" of a scenario file:\n" + model_to_json(m, JsonStyle::Pretty) + "\n";
        rows = counts;
        row_header = {"count", "parameters"};
        if (quant) {
            j["quantization"] = {{"method", quant->method}, {"bits", quant->bits}, {"group_size", quant->group_size},
                                 {"description", quant->description}, {"not_quantized", quant->not_quantized}};
            j["quantization"]["weights"] = quant->format ? Json(enum_name(*quant->format)) : Json(nullptr);
            text += "\nquantization: " + quant->description +
                    (quant->format ? std::string(" (--weights ") + enum_name(*quant->format) + ")" : std::string(" (no vramlens weight format)")) + "\n";
        }
    }

    // ---- adapter_config.json ----
    if (c.adapter) {
        const AdapterConfig* a = &*c.adapter;
        std::string targets;
        for (const auto& n : lora_target_names())
            if (a->lora_targets & n.value) targets += (targets.empty() ? "" : ",") + std::string(n.name);
        j["adapter"] = {{"peft_type", a->peft_type}, {"base_model", a->base_model}, {"rank", a->rank}, {"alpha", a->alpha},
                        {"target_modules", a->target_modules}, {"lora_targets", a->lora_targets == kLoraAllLinear ? std::string("all-linear") : targets}};
        text += (text.empty() ? "" : "\n") + std::string("LoRA adapter on ") + escape_control_chars(a->base_model.empty() ? "(base model not named)" : a->base_model) +
                ": rank " + std::to_string(a->rank) + ", alpha " + number_text(a->alpha) + ", targets " + targets + "\n" +
                "  as scenario flags: --mode finetune --method lora --lora-rank " + std::to_string(a->rank) + " --lora-targets " +
                (a->lora_targets == kLoraAllLinear ? std::string("all-linear") : targets) + "\n";
    }

    // ---- safetensors: tensors by dtype, the true checkpoint size ----
    if (c.safetensors) {
        const SafetensorsSummary& st = *c.safetensors;
        Json files_json = Json::array();
        for (const ShardHeader& s : src.shards)
            files_json.push_back({{"path", s.path}, {"bytes", s.file_bytes}, {"header_bytes", s.header.header_bytes}, {"tensors", s.header.tensors.size()}});
        Json dtypes = Json::array();
        std::vector<std::vector<std::string>> dtype_rows;
        for (const DtypeCount& d : st.dtypes) {
            dtypes.push_back({{"dtype", d.dtype}, {"tensors", d.tensors}, {"elements", d.elements}, {"bytes", d.bytes}});
            dtype_rows.push_back({d.dtype, grouped_u64(d.tensors), grouped_u64(d.elements), grouped_u64(d.bytes)});
        }
        dtype_rows.push_back({"total", grouped_u64(st.tensors), grouped_u64(st.elements), grouped_u64(st.tensor_bytes)});
        j["checkpoint"] = {{"format", "safetensors"}, {"files", files_json}, {"dtypes", dtypes}, {"tensors", st.tensors}, {"elements", st.elements},
                           {"tensor_bytes", st.tensor_bytes}, {"complete", st.complete}};
        j["checkpoint"]["file_bytes"] = st.complete ? Json(st.file_bytes) : Json(nullptr);
        if (src.index) {
            j["checkpoint"]["index"] = src.index_path;
            j["checkpoint"]["index_total_size"] = src.index->total_size ? Json(*src.index->total_size) : Json(nullptr);
            j["checkpoint"]["missing_shards"] = src.missing_shards;
        }
        text += (text.empty() ? "" : "\n") + std::string("checkpoint: ") + std::to_string(src.shards.size()) + " safetensors file" +
                (src.shards.size() == 1 ? "" : "s");
        if (st.complete) text += ", " + grouped_u64(st.file_bytes) + " bytes (" + amount_with_unit(static_cast<double>(st.file_bytes), SizeUnit::GiB) + ")\n";
        else
            text += " of " + std::to_string(src.index->shards.size()) + " named by the index" +
                    (src.index->total_size ? ", whose total_size is " + grouped_u64(*src.index->total_size) + " bytes of tensors (" +
                                                 amount_with_unit(static_cast<double>(*src.index->total_size), SizeUnit::GiB) + ")"
                                           : std::string()) + "\n";
        if (!src.shards.empty()) {
            text += "\ntensors by dtype (elements: parameters, or packed values of quantized weights):\n";
            text += format_rows({"dtype", "tensors", "elements", "bytes"}, dtype_rows, ExportFormat::Table);
        }
        rows = dtype_rows;
        row_header = {"dtype", "tensors", "elements", "bytes"};
        if (st.quantized) {
            const QuantizedSplit& q = *st.quantized;
            j["checkpoint"]["quantized"] = {{"tensors", q.quantized_tensors}, {"params", q.quantized_params}, {"bytes", q.quantized_bytes},
                                            {"constant_tensors", q.aux_tensors}};
            j["checkpoint"]["not_quantized"] = {{"tensors", q.kept_tensors}, {"params", q.kept_params}, {"bytes", q.kept_bytes}};
            text += "\nquantized: " + grouped_u64(q.quantized_tensors) + " weights holding " + grouped_u64(q.quantized_params) +
                    " parameters, " + grouped_u64(q.quantized_bytes) + " bytes with their " + grouped_u64(q.aux_tensors) +
                    " scale/zero tensors\nnot quantized: " + grouped_u64(q.kept_tensors) + " tensors, " + grouped_u64(q.kept_params) +
                    " parameters, " + grouped_u64(q.kept_bytes) + " bytes\n";
        }
    }

    // ---- GGUF ----
    if (src.gguf) {
        const GgufHeader& h = *src.gguf;
        const GgufSummary& g = *c.gguf;
        if (!files.config_text && c.model) {
            j["model"] = Json::parse(model_to_json(*c.model, JsonStyle::Pretty), nullptr, false);
            j["params"] = {{"total", c.params->total}};
        }
        Json types = Json::array(), tensors = Json::array();
        std::vector<std::vector<std::string>> type_rows;
        for (const GgmlTypeCount& t : g.types) {
            const char* type_name = ggml_type(t.type).name;
            types.push_back({{"type", type_name}, {"tensors", t.tensors}, {"elements", t.elements}, {"bytes", t.bytes}});
            type_rows.push_back({type_name, grouped_u64(t.tensors), grouped_u64(t.elements), grouped_u64(t.bytes)});
        }
        type_rows.push_back({"total", grouped_u64(g.tensors), grouped_u64(g.elements), grouped_u64(h.data_bytes)});
        for (const GgufTensor& t : h.tensors)
            tensors.push_back({{"name", t.name}, {"type", ggml_type(t.type).name}, {"dims", t.dims}, {"elements", t.elements}, {"bytes", t.bytes}, {"offset", t.offset}});
        auto arch = [&](const char* key) { std::optional<uint64_t> v = h.arch_value(key); return v ? Json(*v) : Json(nullptr); };
        const GgufKv* name = h.find("general.name");
        j["gguf"] = {{"path", src.gguf_path},
                     {"version", h.version},
                     {"architecture", h.architecture()},
                     {"name", name && name->type == GgufValueType::String ? name->text : std::string()},
                     {"context_length", arch("context_length")},
                     {"block_count", arch("block_count")},
                     {"head_count", arch("attention.head_count")},
                     {"head_count_kv", arch("attention.head_count_kv")},
                     {"embedding_length", arch("embedding_length")},
                     {"feed_forward_length", arch("feed_forward_length")},
                     {"expert_count", arch("expert_count")},
                     {"alignment", h.alignment},
                     {"data_offset", h.data_offset},
                     {"tensor_bytes", h.data_bytes},
                     {"file_bytes", src.gguf_file_bytes},
                     {"types", types},
                     {"layer_bytes", g.layer_bytes.layers},
                     {"token_embd_bytes", g.layer_bytes.token_embd},
                     {"output_bytes", g.layer_bytes.output},
                     // every tensor outside the blocks, token_embd and output included
                     {"other_bytes", g.layer_bytes.token_embd + g.layer_bytes.output + g.layer_bytes.other},
                     {"tensors", tensors},
                     {"metadata", gguf_metadata_json(h)}};
        auto shown = [&](const char* key) { std::optional<uint64_t> v = h.arch_value(key); return v ? grouped_u64(*v) : std::string("?"); };
        text += (text.empty() ? "" : "\n") + escape_control_chars(name && !name->text.empty() ? name->text : src.gguf_path) + " (" +
                escape_control_chars(h.architecture().empty() ? std::string("architecture not named") : h.architecture()) + "), GGUF v" +
                std::to_string(h.version) + "\n  context length " + shown("context_length") + ", " + shown("block_count") + " layers, " +
                shown("attention.head_count") + " heads (" + shown("attention.head_count_kv") + " KV heads), embedding " + shown("embedding_length") +
                "\n  file: " + grouped_u64(src.gguf_file_bytes) + " bytes (" + amount_with_unit(static_cast<double>(src.gguf_file_bytes), SizeUnit::GiB) +
                "): header " + grouped_u64(h.data_offset) + ", tensors " + grouped_u64(h.data_bytes) + "\n\ntensors by GGML type:\n" +
                format_rows({"type", "tensors", "elements", "bytes"}, type_rows, ExportFormat::Table);
        rows = type_rows;
        row_header = {"type", "tensors", "elements", "bytes"};
    }

    if (o.format == ExportFormat::Json) {
        j["warnings"] = warnings;
        out += j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
    } else if (o.format == ExportFormat::Table) {
        out += text;
    } else {
        out += format_rows(row_header, rows, o.format);
    }
    return kOk;
}

#ifdef VRAMLENS_HAVE_SOLVERS
struct KnobName {
    const char* name;
    Knob knob;
    const char* question;
};
constexpr KnobName kKnobs[] = {
    {"micro-batch", Knob::MicroBatch, "largest micro-batch that fits"},
    {"seq", Knob::SeqLen, "longest training sequence that fits"},
    {"batch", Knob::Batch, "most concurrent sequences that fit"},
    {"context", Knob::Context, "longest context that fits"},
    {"gpus", Knob::GpuCount, "fewest GPUs that fit"},
    {"weights", Knob::WeightFormat, "least compressed weight format that fits"},
};

int cmd_solve(const Options& o, std::string& out, std::string& err) {
    if (o.positional.empty()) {
        err += "vramlens: solve needs WHAT: micro-batch | seq | batch | context | gpus | weights\n";
        return kUsage;
    }
    const KnobName* k = nullptr;
    for (const KnobName& n : kKnobs)
        if (o.positional[0] == n.name) k = &n;
    if (!k) {
        err += "vramlens: cannot solve for \"" + o.positional[0] + "\"; WHAT is micro-batch | seq | batch | context | gpus | weights\n";
        return kUsage;
    }
    int status = kOk;
    const std::string* file = scenario_file(o, 1, err, status);
    if (status != kOk) return status;
    FlagMap flags;
    std::optional<Scenario> s = load_scenario(o, file, err, status, &flags);
    if (!s) return status;
    SolveResult r = solve(*s, k->knob);
    if (!r.errors.empty()) {
        err += "vramlens: invalid scenario:\n";
        print_errors(r.errors, flags, err);
        return kBadInput;
    }
    std::string value = !r.found ? "" : k->knob == Knob::WeightFormat ? enum_name(static_cast<WeightFormat>(r.value)) : std::to_string(r.value);
    if (o.format == ExportFormat::Json) {
        Json j = Json::object();
        j["solve"] = k->name;
        j["field"] = knob_name(k->knob);
        j["found"] = r.found;
        if (r.found) j["value"] = k->knob == Knob::WeightFormat ? Json(value) : Json(r.value);
        j["at_search_bound"] = r.at_search_bound;
        j["limiting"] = r.limiting_id;
        j["why"] = r.why;
        j["total_bytes"] = r.estimate.total_bytes;
        j["capacity_bytes"] = r.estimate.gpu_capacity_bytes;
        j["scenario"] = Json::parse(scenario_to_json(r.scenario, JsonStyle::Pretty), nullptr, false);
        out += j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
        return kOk;
    }
    if (!r.found) {
        out += std::string(k->question) + ": none. " + escape_control_chars(r.why) + "\n";
        return kOk;
    }
    out += std::string(k->question) + ": " + value + (r.at_search_bound ? " (or more: the search stopped at its bound)" : "") + "\n";
    if (k->knob == Knob::GpuCount)
        out += vl::format("layout: dp {}, tp {}, pp {}, cp {}, zero {}\n", r.scenario.parallel.dp, r.scenario.parallel.tp,
                           r.scenario.parallel.pp, r.scenario.parallel.cp, r.scenario.parallel.zero);
    out += "peak " + amount_with_unit(r.estimate.total_bytes, o.unit) + " of " + amount_with_unit(r.estimate.gpu_capacity_bytes, o.unit);
    out += r.limiting_id.empty() ? "\n" : "; limited by " + r.limiting_id + "\n";
    if (!r.why.empty()) out += escape_control_chars(r.why) + "\n";
    return kOk;
}
#else
int cmd_solve(const Options&, std::string&, std::string& err) {
    err += "vramlens: solve is not available in this build (core/solvers.h missing)\n";
    return kUsage;
}
#endif


// ---- plan: local placement (core/planner) ----------------------------------------------------

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// "64GB", "64 GiB", "48gib", "65536MB": RAM as sold; GB and GiB both mean 2^30 bytes (a "64GB"
// module holds 64 GiB), MB/MiB 2^20, TB/TiB 2^40; a bare number is GiB.
std::optional<double> parse_ram_size(std::string text) {
    size_t cut = text.size();
    while (cut > 0 && std::isalpha(static_cast<unsigned char>(text[cut - 1]))) --cut;
    const std::string unit = lower(text.substr(cut));
    text.resize(cut);
    while (!text.empty() && text.back() == ' ') text.pop_back();
    Result<double> n = parse_decimal_number(text, "ram");
    if (!n.ok() || !(*n.value > 0)) return std::nullopt;
    double scale = 0;
    if (unit.empty() || unit == "gb" || unit == "gib" || unit == "g") scale = 1024.0 * 1024 * 1024;
    else if (unit == "mb" || unit == "mib" || unit == "m") scale = 1024.0 * 1024;
    else if (unit == "tb" || unit == "tib" || unit == "t") scale = 1024.0 * 1024 * 1024 * 1024;
    else return std::nullopt;
    return *n.value * scale;
}

Json speed_json(const Speed& sp) {
    if (!sp.ok()) return Json{{"error", sp.error}};
    Json j{{"decode_tokens_per_s", sp.decode_tokens_per_s},
           {"decode_holdout_error", {{"median", sp.decode_band.holdout_median_error}, {"worst", sp.decode_band.holdout_worst_error}}},
           {"hops", sp.hops}, {"hop_seconds", sp.hop_seconds}, {"devices", Json::array()}};
    if (sp.prefill_tokens_per_s > 0) {
        j["prefill_tokens_per_s"] = sp.prefill_tokens_per_s;
        j["prefill_holdout_error"] = {{"median", sp.prefill_band.holdout_median_error}, {"worst", sp.prefill_band.holdout_worst_error}};
        j["time_to_first_token_s"] = sp.time_to_first_token_s;
    } else {
        j["prefill_note"] = sp.prefill_note;
    }
    for (const DeviceSpeed& d : sp.devices)
        j["devices"].push_back({{"name", d.name}, {"bytes_per_token", d.bytes_per_token}, {"decode_seconds", d.decode_seconds},
                                {"flops_per_token", d.flops_per_token}, {"prefill_seconds", d.prefill_seconds}});
    return j;
}

// The GPUs of `plan`, by preset id; an error naming the closest ids for an unknown one.
std::optional<std::string> plan_gpus(const std::vector<std::string>& ids, std::vector<PlanGpu>& gpus) {
    std::vector<std::string> preset_ids;
    for (const GpuPreset& g : gpu_presets()) preset_ids.push_back(g.id);
    for (const std::string& id : ids) {
        const GpuPreset* g = find_gpu(lower(id));
        if (!g) {
            const std::string close = close_names(lower(id), preset_ids);
            return "--gpu: \"" + escape_control_chars(id) + "\" is not a GPU preset" +
                   (close.empty() ? "" : " (closest: " + close + ")") + "; `vramlens gpus` lists them";
        }
        gpus.push_back({g->name, g->cuda_total_bytes, -1});
    }
    return std::nullopt;
}

// The model of `plan`, read as estimate reads --model (presets, config.json, folders, the Hub).
std::optional<Scenario> plan_model(const std::string& model_arg, std::string& err, int& status) {
    Options mo;
    mo.command = "estimate";
    mo.edits.push_back({find_flag("--model"), model_arg});
    return load_scenario(mo, nullptr, err, status);
}

// `plan --engine vllm|sglang`: tp / pp, the KV pool and the longest length (core/planner/serving.h).
int cmd_plan_serving(const Options& o, std::string& out, std::string& err, ServingEngine engine) {
    ServingPlanInput in;
    in.engine = engine;
    const bool sglang = engine == ServingEngine::SGLang;
    std::string model_arg;
    std::vector<std::string> gpu_ids;
    auto bad = [&](const std::string& msg) {
        err += "vramlens: " + msg + "\n";
        return kBadInput;
    };
    for (const auto& [flag, value] : o.plan) {
        if (flag == "--engine") continue;
        if (flag == "--model") model_arg = value;
        else if (flag == "--gpu") gpu_ids.push_back(value);
        else if (flag == "--weights") {
            const std::optional<WeightFormat> wf = parse_enum<WeightFormat>(lower(value));
            if (!wf) {
                const std::string close = close_names(lower(value), {"bf16", "fp16", "fp8", "gptq-4bit", "gptq-8bit", "awq-4bit"});
                return bad("--weights: \"" + escape_control_chars(value) + "\" is not a weight format" + (close.empty() ? "" : " (closest: " + close + ")") +
                           "; " + serving_engine_name(engine) + ": bf16, fp16, fp8, gptq-4bit, gptq-8bit or awq-4bit");
            }
            in.weights = *wf;
        } else if (flag == "--kv-type" || flag == "--kv-cache-dtype") {
            const std::string v = lower(value);
            if (v == "auto" || v == "bf16") in.kv = KvDtype::BF16;
            else if (v == "fp16" || v == "f16") in.kv = KvDtype::FP16;
            else if (v == "fp8" || v == "fp8_e4m3" || v == "fp8_e5m2") in.kv = KvDtype::FP8;
            else return bad(flag + ": \"" + escape_control_chars(value) + "\" is not a " + serving_engine_name(engine) +
                            " KV cache dtype; use auto or fp8 (fp8_e4m3, fp8_e5m2)");
        } else if (flag == "--gpu-memory-utilization" || flag == "--mem-fraction-static") {
            Result<double> u = parse_decimal_number(value, flag);
            if (!u.ok() || !(*u.value > 0 && *u.value <= 1))
                return bad(flag + ": \"" + escape_control_chars(value) + "\" is not a fraction in (0, 1], e.g. 0.9");
            in.gpu_memory_utilization = *u.value;
        } else if (flag == "--vllm-version") {
            if (sglang) return bad("--vllm-version is a vLLM flag (--engine vllm)");
            in.vllm_version = value;  // the estimate's validation names infer.vllm_version when it is not a release
        } else if (flag == "--ctx" || flag == "--max-model-len" || flag == "--context-length" || flag == "--max-num-seqs" ||
                   flag == "--max-running-requests" || flag == "--tp" || flag == "--pp") {
            Result<int64_t> n = parse_whole_number(value, flag);
            if (!n.ok() || *n.value < 1) return bad(flag + ": \"" + escape_control_chars(value) + "\" is not a whole number >= 1");
            (flag == "--max-num-seqs" || flag == "--max-running-requests" ? in.max_num_seqs
             : flag == "--tp"                                              ? in.tp
             : flag == "--pp"                                              ? in.pp
                                                                           : in.max_model_len) = *n.value;
        } else {
            return bad(flag + " is a llama.cpp flag; " + serving_engine_name(engine) + " places whole layers by --tp" + (sglang ? "" : " and --pp") +
                       " on equal GPUs (drop " + flag + ")");
        }
    }
    if (model_arg.empty()) return bad("--model: give the model, e.g. --model llama-3-8b (`vramlens models` lists the presets)");
    if (gpu_ids.empty()) return bad("--gpu: give each GPU's preset id (`vramlens gpus`), repeated once per GPU, e.g. --gpu h100-80gb --gpu h100-80gb");
    if (std::optional<std::string> why = plan_gpus(gpu_ids, in.gpus)) return bad(*why);
    int status = kOk;
    std::optional<Scenario> s = plan_model(model_arg, err, status);
    if (!s) return status;
    in.model = s->model;
    const ServingPlan p = plan_serving(in);
    if (!p.ok()) return bad(p.error);
    // The Hub id vLLM downloads: the preset's, or --model as given when it is one (org/name).
    const ModelPreset* preset = find_model(lower(model_arg));
    const std::string model_id = preset && !preset->hf_id.empty() ? preset->hf_id : model_arg;
    const std::string launch = serving_launch_line(in, p, model_id);
    const std::string len_flag = sglang ? "--context-length" : "--max-model-len";
    const auto gib = [](double b) { return amount_with_unit(b, SizeUnit::GiB); };
    if (o.format == ExportFormat::Json) {
        Json j;
        j["engine"] = sglang ? "sglang" : "vllm";
        j["model"] = in.model.name;
        j["weights"] = weight_format(in.weights).key;
        j["gpus"] = static_cast<int64_t>(in.gpus.size());
        j["tensor_parallel_size"] = p.tp;
        j["pipeline_parallel_size"] = p.pp;
        j["parallel_reason"] = p.parallel_reason;
        j["max_model_len"] = p.max_model_len;
        j["largest_max_model_len"] = p.largest_max_model_len;
        j["fits"] = p.fits;
        if (!p.advice.empty()) j["advice"] = p.advice;
        j["per_gpu"] = Json{{"capacity_bytes", p.capacity}, {"weights_bytes", p.weights}, {"non_torch_bytes", p.non_torch},
                            {"activation_bytes", p.activation}, {"kv_pool_bytes", p.kv_pool}, {"kv_bytes_per_token", p.kv_bytes_per_token}};
        j["kv"] = Json{{"block_size", p.block_size}, {"blocks_per_gpu", p.blocks}, {"tokens", p.tokens},
                       {"sequences_at_max_model_len", p.sequences}, {"concurrent_sequences", p.concurrent}, {"pool_bytes_total", p.kv_pool_total}};
        j["launch"] = launch;
        out += j.dump(1) + "\n";
    } else {
        const std::string util_name = sglang ? "mem_fraction_static" : "gpu_memory_utilization";
        out += in.model.name + ", " + weight_format(in.weights).name + ", " + serving_engine_name(engine) + " on " + std::to_string(in.gpus.size()) + " x " +
               in.gpus.front().name + "\n";
        out += "tp " + std::to_string(p.tp) + ", pp " + std::to_string(p.pp) + " (" + p.parallel_reason + ")\n";
        out += "per GPU: " + gib(p.capacity) + " for weights and KV (" + util_name + " " + vl::format("{}", in.gpu_memory_utilization) + "): weights " +
               gib(p.weights) + ", KV pool " + gib(p.kv_pool) + (sglang ? "; CUDA context " : "; non-torch ") + gib(p.non_torch) +
               (sglang ? ", left for activations and CUDA graphs " : ", activation peak ") + gib(p.activation) + "\n";
        out += "KV: " + std::to_string(p.blocks) + (p.block_size == 1 ? " tokens" : " blocks of " + std::to_string(p.block_size) + " tokens") +
               " per GPU" + (p.block_size == 1 ? "" : " = " + std::to_string(p.tokens) + " tokens") + " (" + gib(p.kv_pool_total) + " over " +
               std::to_string(p.tp * p.pp) + (p.tp * p.pp == 1 ? " GPU); " : " GPUs); ") + std::to_string(p.sequences) + " sequences of " +
               std::to_string(p.max_model_len) + " tokens, " + std::to_string(p.concurrent) + " at once (" + (sglang ? "--max-running-requests " : "--max-num-seqs ") +
               (p.max_num_seqs > 0 ? std::to_string(p.max_num_seqs) : std::string("default: none besides the pool")) +
               (in.max_num_seqs > 0 ? ")\n" : p.max_num_seqs > 0 ? ", vLLM's default)\n" : ")\n");
        out += len_flag + " " + std::to_string(p.max_model_len) + (p.fits ? " fits" : " DOES NOT FIT") + "; the longest that fits: " +
               std::to_string(p.largest_max_model_len) + "\n";
        if (!p.advice.empty()) out += p.advice + "\n";
        out += "launch: " + launch + "\n";
    }
    if (!p.fits) {
        err += "vramlens: does not fit: " + p.advice + "\n";
        return kNoFit;
    }
    return kOk;
}

// The weights of `plan`: a GGUF type (or fp16 / bf16) by its key, case-insensitively ("Q4_K_M").
std::optional<WeightFormat> plan_weights(const std::string& text, std::string& why) {
    std::optional<WeightFormat> wf = parse_enum<WeightFormat>(lower(text));
    if (wf && (is_gguf(*wf) || *wf == WeightFormat::FP16 || *wf == WeightFormat::BF16)) return wf;
    std::vector<std::string> names;
    for (const WeightFormatInfo& f : kWeightFormats)
        if (f.family == FormatFamily::Gguf || f.format == WeightFormat::FP16 || f.format == WeightFormat::BF16) names.push_back(f.key);
    const std::string close = close_names(lower(text), names);
    std::string all;
    for (const std::string& n : names) all += (all.empty() ? "" : ", ") + n;
    why = "--weights: \"" + escape_control_chars(text) + "\" is not a GGUF type vramlens knows" + (close.empty() ? "" : " (closest: " + close + ")") +
          "; use one of " + all;
    return std::nullopt;
}

// The --model and --weights of --rank and --compare: each model read as estimate reads --model, each type checked.
int plan_candidates(const std::vector<std::string>& model_args, const std::vector<std::string>& weight_args,
                    std::vector<RankCandidate>& models, std::vector<WeightFormat>& weights, std::string& err) {
    for (const std::string& w : weight_args) {
        std::string why;
        std::optional<WeightFormat> wf = plan_weights(w, why);
        if (!wf) {
            err += "vramlens: " + why + "\n";
            return kBadInput;
        }
        weights.push_back(*wf);
    }
    for (const std::string& m : model_args) {
        int status = kOk;
        std::optional<Scenario> s = plan_model(m, err, status);
        if (!s) return status;
        models.push_back({m, s->model});
    }
    return kOk;
}

// `plan --rank`'s own flags (< 0 / empty: not given).
struct RankFlags {
    bool on = false, all = false;
    std::vector<std::string> models, weights;
    double min_speed = -1;
    std::string max_loss, since;
    int64_t top = 0;
};

Json rank_row_json(const RankRow& r) {
    Json j{{"id", r.id}, {"name", r.name}, {"weights", weight_format(r.weights).key}, {"params", r.params},
           {"active_params", r.active_params}, {"kld", r.kld}, {"loss", quant_loss_name(r.loss)},
           {"verdict", rank_verdict_name(r.verdict)}};
    if (!r.why.empty()) j["why"] = r.why;
    if (r.verdict != RankVerdict::Unsupported) {
        j["ngl"] = r.ngl;
        if (r.n_cpu_moe > 0) j["n_cpu_moe"] = r.n_cpu_moe;
        j["n_layer"] = r.n_layer;
        j["max_context"] = r.max_context;
        j["gpu_bytes"] = r.gpu_bytes;
        j["cpu_bytes"] = r.cpu_bytes;
    }
    if (r.decode_tokens_per_s > 0) {
        j["decode_tokens_per_s"] = r.decode_tokens_per_s;
        j["decode_holdout_error"] = {{"median", r.decode_band.holdout_median_error}, {"worst", r.decode_band.holdout_worst_error}};
    }
    return j;
}

// `plan --rank`: every candidate model x type on the machine `machine` describes (core/planner/rank.h).
int cmd_rank(const Options& o, const RankFlags& f, const PlanInput& machine, const std::vector<const GpuPreset*>& gpus,
             const AppleChip* chip, const SpeedInput& speed, bool ollama, std::string& out, std::string& err) {
    auto bad = [&](const std::string& msg) {
        err += "vramlens: " + msg + "\n";
        return kBadInput;
    };
    RankInput in;
    in.machine = machine;
    in.gpu_presets = gpus;
    in.chip = chip;
    in.speed = speed;
    in.cpu_moe = !ollama;  // Ollama has no --n-cpu-moe
    if (in.machine.apple_unified && !chip)
        return bad("--apple-chip: --rank needs the chip for its memory bandwidth (" + apple_chip_ids() + ")");
    if (f.min_speed >= 0) in.min_tokens_per_s = f.min_speed;
    if (f.since == "all") in.since = "0000-00";
    else if (!f.since.empty()) {
        if (!is_year_month(f.since)) return bad("--since: \"" + escape_control_chars(f.since) + "\" is not a month; give YYYY-MM (e.g. 2024-06) or all");
        in.since = f.since;
    }
    if (!f.models.empty() && !f.since.empty()) return bad("--since picks among the presets; it does not apply to the models given with --model");
    if (!f.max_loss.empty()) {
        bool found = false;
        for (QuantLoss c : {QuantLoss::NearLossless, QuantLoss::Small, QuantLoss::Noticeable, QuantLoss::Large})
            if (f.max_loss == quant_loss_name(c)) {
                in.max_loss = c;
                found = true;
            }
        if (!found) return bad("--max-loss: \"" + escape_control_chars(f.max_loss) + "\" is not a loss class; use near-lossless, small, noticeable or large");
    }
    if (int status = plan_candidates(f.models, f.weights, in.models, in.weights, err); status != kOk) return status;
    const Ranking r = rank_models(in);
    if (!r.ok()) return bad(r.error);
    const std::vector<RankRow> rows = f.all ? r.rows : best_per_model(r);
    const size_t top = f.top > 0 ? static_cast<size_t>(f.top) : 10;
    size_t ranked_models = 0;
    for (const RankRow& row : rows) ranked_models += row.verdict == RankVerdict::Ranked;

    if (o.format == ExportFormat::Json) {
        Json j{{"context", machine.context}, {"min_tokens_per_s", in.min_tokens_per_s}, {"max_loss", quant_loss_name(in.max_loss)},
               {"rows", Json::array()}};
        for (const RankRow& row : rows)
            if (f.all || row.verdict == RankVerdict::Ranked) j["rows"].push_back(rank_row_json(row));
        out += j.dump(1) + "\n";
        return kOk;
    }
    std::string machine_text;
    for (const PlanGpu& g : machine.gpus) machine_text += g.name + " + ";
    if (machine.apple_unified) machine_text += std::string(chip->name) + ", ";
    machine_text += amount_with_unit(machine.ram_bytes, SizeUnit::GiB) + (machine.apple_unified ? " unified memory" : " RAM");
    out += "Which model fits best on " + machine_text + " at context " + std::to_string(machine.context) + vl::format(" (decode at least {:g} tok/s, loss at most {}):\n", in.min_tokens_per_s, quant_loss_name(in.max_loss));
    size_t shown = 0;
    for (const RankRow& row : rows) {
        if (!f.all && (row.verdict != RankVerdict::Ranked || shown >= top)) continue;
        ++shown;
        out += vl::format("{:>3}. ", shown) + rank_row_text(row) + "\n";
    }
    if (ranked_models == 0 && !f.all) out += "  none: no candidate runs at this context and speed (--all says why for each)\n";
    if (!f.all) {
        std::map<RankVerdict, size_t> by;
        for (const RankRow& row : rows) ++by[row.verdict];
        std::string counts;
        for (const auto& [v, n] : by)
            if (v != RankVerdict::Ranked) counts += (counts.empty() ? "" : ", ") + std::string(rank_verdict_name(v)) + " " + std::to_string(n);
        if (!counts.empty()) out += "Not ranked: " + counts + " (each model's best type; --all lists every model x type and why).\n";
    }
    out += "Order: more parameters first, then less quantization loss (llama.cpp's KL divergence on Llama 3 8B), then faster decode; "
           "a proxy, not a benchmark score.\n";
    return kOk;
}

// --machine SPEC: "GPU[+GPU...],ram=SIZE" (a PC) or "mac=CHIP,mem=SIZE" (a Mac), read into a LocalMachine; the
// preset ids are checked (with the closest ids) by compare_grid. An error names the part that is wrong.
std::optional<std::string> parse_machine_spec(const std::string& spec, LocalMachine& m) {
    const std::string form = "give GPU[+GPU...],ram=SIZE (e.g. rtx-4090+rtx-3060-12gb,ram=64GB) or mac=CHIP,mem=SIZE (e.g. mac=m2-max,mem=96GB)";
    std::vector<std::string> parts;
    for (size_t at = 0;;) {
        const size_t comma = spec.find(',', at);
        parts.push_back(lower(spec.substr(at, comma == std::string::npos ? std::string::npos : comma - at)));
        if (comma == std::string::npos) break;
        at = comma + 1;
    }
    const bool mac = parts[0].rfind("mac=", 0) == 0;
    if (mac) m.apple_chip = parts[0].substr(4);
    else
        for (size_t at = 0;;) {
            const size_t plus = parts[0].find('+', at);
            m.gpus.push_back(parts[0].substr(at, plus == std::string::npos ? std::string::npos : plus - at));
            if (plus == std::string::npos) break;
            at = plus + 1;
        }
    bool have_memory = false;
    for (size_t i = 1; i < parts.size(); ++i) {
        const std::string& part = parts[i];
        const std::string key = part.substr(0, part.find('='));
        if (part.find('=') == std::string::npos || (key != (mac ? "mem" : "ram"))) {
            const std::string want = mac ? "mem=SIZE (the unified memory)" : "ram=SIZE (the system RAM)";
            return "\"" + escape_control_chars(part) + "\" is not a part of a " + (mac ? "Mac" : "PC") + "; give " + want + "; " + form;
        }
        std::optional<double> r = parse_ram_size(part.substr(key.size() + 1));
        if (!r) return "\"" + escape_control_chars(part) + "\": not a size; give e.g. " + key + "=64GB (GiB, as --ram)";
        m.ram_bytes = *r;
        have_memory = true;
    }
    if (!have_memory) return std::string("no ") + (mac ? "mem=SIZE" : "ram=SIZE") + "; " + form;
    return std::nullopt;
}

Json compare_cell_json(const CompareCell& c) {
    Json j = rank_row_json(c.row);
    j["model_index"] = c.model;
    j["weights_index"] = c.weights;
    j["machine_index"] = c.machine;
    j["fits"] = c.fits();
    return j;
}

// `plan --compare`: every --model x --weights x machine (core/planner/compare.h).
int cmd_compare(const Options& o, const RankFlags& f, const std::vector<LocalMachine>& machines, const std::vector<std::string>& typed,
                const PlanInput& settings, bool ollama, const SpeedInput& speed, std::string& out, std::string& err) {
    auto bad = [&](const std::string& msg) {
        err += "vramlens: " + msg + "\n";
        return kBadInput;
    };
    CompareInput in;
    in.engine = ollama ? LocalEngine::Ollama : LocalEngine::LlamaCpp;
    in.context = settings.context;
    in.kv = settings.kv;
    in.flash_attention = settings.flash_attention;
    in.speed = speed;
    in.machines = machines;
    if (f.models.empty()) return bad("--model: give the models to compare, e.g. --model qwen3-8b --model llama-3.1-8b");
    if (machines.empty()) return bad("--machine: give the machines to compare, e.g. --machine rtx-4090,ram=64GB --machine mac=m2-max,mem=96GB");
    if (int status = plan_candidates(f.models, f.weights.empty() ? std::vector<std::string>{"q4_k_m"} : f.weights, in.models, in.weights, err);
        status != kOk)
        return status;
    const CompareGrid g = compare_grid(in);
    if (!g.ok()) {
        // "machines[1].gpus[0]: ..." said as the machine typed: machine 2 ("rtx-409,ram=64GB"): gpus[0]: ...
        const std::string& e = g.error;
        if (e.rfind("machines[", 0) == 0) {
            const size_t k = std::stoul(e.substr(9));
            return bad("machine " + std::to_string(k + 1) + " (" + typed[k] + "): " + e.substr(e.find("].") + 2));
        }
        return bad("--" + e);
    }
    if (o.format == ExportFormat::Json) {
        Json j{{"engine", ollama ? "ollama" : "llama.cpp"}, {"context", in.context}, {"kv_type", llamacpp_cache_type(in.kv)},
               {"flash_attention", in.flash_attention}, {"models", Json::array()}, {"weights", Json::array()}, {"machines", Json::array()},
               {"cells", Json::array()}};
        for (const RankCandidate& m : in.models) j["models"].push_back(m.id);
        for (WeightFormat w : in.weights) j["weights"].push_back(weight_format(w).key);
        for (size_t k = 0; k < machines.size(); ++k)
            j["machines"].push_back({{"name", g.machine_names[k]}, {"gpus", machines[k].gpus}, {"ram_bytes", machines[k].ram_bytes},
                                     {"apple_chip", machines[k].apple_chip}});
        for (const CompareCell& c : g.cells) j["cells"].push_back(compare_cell_json(c));
        out += j.dump(1) + "\n";
        return kOk;
    }
    out += "Compare at context " + std::to_string(in.context) + " (KV " + llamacpp_cache_type(in.kv) + ", flash attention " +
           (in.flash_attention ? "on" : "off") + ", " + (ollama ? "Ollama" : "llama.cpp") + "):\n";
    for (size_t k = 0; k < machines.size(); ++k) out += "  [" + std::to_string(k + 1) + "] " + g.machine_names[k] + "\n";
    std::vector<std::vector<std::string>> table{{"model, weights"}};
    for (size_t k = 0; k < machines.size(); ++k) table[0].push_back("[" + std::to_string(k + 1) + "]");
    for (size_t m = 0; m < in.models.size(); ++m)
        for (size_t w = 0; w < in.weights.size(); ++w) {
            const RankRow& first = g.at(m, w, 0).row;
            table.push_back({first.name + ", " + weight_format(first.weights).name});
            for (size_t k = 0; k < machines.size(); ++k) table.back().push_back(compare_cell_text(g.at(m, w, k)));
        }
    auto columns = [](const std::string& t) {  // UTF-8: one column per code point (the cells' "·", "≤", "±")
        return static_cast<size_t>(std::count_if(t.begin(), t.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
    };
    std::vector<size_t> width(table[0].size(), 0);
    for (const auto& row : table)
        for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], columns(row[c]));
    for (const auto& row : table) {
        std::string line;
        for (size_t c = 0; c < row.size(); ++c)
            line += row[c] + (c + 1 < row.size() ? std::string(width[c] - columns(row[c]) + 3, ' ') : "");
        out += line + "\n";
    }
    out += "Each cell: -ngl as llama.cpp places the model (layers on the GPUs / layers + output), the largest context at it, and the decode "
           "speed with the calibration's held-back error (docs/speed.md); `vramlens plan` with the same flags shows a cell's devices and launch line.\n";
    return kOk;
}

int cmd_plan(const Options& o, std::string& out, std::string& err) {
    for (auto it = o.plan.rbegin(); it != o.plan.rend(); ++it)
        if (it->first == "--engine") {
            if (lower(it->second) == "vllm") return cmd_plan_serving(o, out, err, ServingEngine::VLLM);
            if (lower(it->second) == "sglang") return cmd_plan_serving(o, out, err, ServingEngine::SGLang);
            break;
        }
    PlanInput in;
    RankFlags rank;
    bool compare = false;
    std::vector<std::string> machine_specs;
    std::string engine = "llama.cpp", model_arg, weights_arg = "q4_k_m";
    std::string draft_arg, draft_weights_arg;  // --draft-model, --draft-weights
    bool weights_given = false;
    std::vector<std::string> gpu_ids;
    std::vector<const GpuPreset*> gpu_presets_used;
    const AppleChip* chip = nullptr;
    SpeedInput speed_in;
    bool have_ram = false;
    std::string mmproj_note;  // why the projector's encoder shape is unknown (its compute buffer then not planned)
    auto bad = [&](const std::string& msg) {
        err += "vramlens: " + msg + "\n";
        return kBadInput;
    };
    auto whole = [&](const std::string& flag, const std::string& v, int64_t& dst) {
        Result<int64_t> n = parse_whole_number(v, flag);
        if (!n.ok()) return false;
        dst = *n.value;
        return true;
    };
    for (const auto& [flag, value] : o.plan) {
        if (flag == "--engine") engine = lower(value);
        else if (flag == "--model") {
            model_arg = value;
            rank.models.push_back(value);
        } else if (flag == "--weights") {
            weights_arg = value;
            weights_given = true;
            rank.weights.push_back(value);
        } else if (flag == "--rank") rank.on = value == "true";
        else if (flag == "--compare") compare = value == "true";
        else if (flag == "--machine") machine_specs.push_back(value);
        else if (flag == "--all") rank.all = value == "true";
        else if (flag == "--max-loss") rank.max_loss = lower(value);
        else if (flag == "--since") rank.since = lower(value);
        else if (flag == "--min-speed") {
            Result<double> x = parse_decimal_number(value, flag);
            if (!x.ok() || !(*x.value >= 0)) return bad("--min-speed: \"" + escape_control_chars(value) + "\" is not a number of tokens/s >= 0 (e.g. 10)");
            rank.min_speed = *x.value;
        } else if (flag == "--top") {
            if (!whole(flag, value, rank.top) || rank.top < 1) return bad("--top: \"" + escape_control_chars(value) + "\" is not a whole number >= 1");
        }
        else if (flag == "--gpu") gpu_ids.push_back(value);
        else if (flag == "--max-model-len" || flag == "--gpu-memory-utilization" || flag == "--kv-cache-dtype" || flag == "--max-num-seqs" ||
                 flag == "--vllm-version" || flag == "--tp" || flag == "--pp" || flag == "--context-length" || flag == "--mem-fraction-static" || flag == "--max-running-requests")
            return bad(flag + " is a vLLM/SGLang flag (--engine vllm|sglang); llama.cpp takes --ctx, --kv-type and --ngl");
        else if (flag == "--flash-attn") in.flash_attention = value == "true";
        else if (flag == "--no-kv-offload") in.kv_offload = value != "true";
        else if (flag == "--apple") in.apple_unified = value == "true";
        else if (flag == "--apple-chip" && !(chip = find_apple_chip(lower(value))))
            return bad("--apple-chip: \"" + escape_control_chars(value) + "\" is not an Apple chip vramlens knows (e.g. m2-max, m4-pro)");
        else if (flag == "--ram-bandwidth" || flag == "--cpu-flops") {
            Result<double> x = parse_decimal_number(value, flag);
            if (!x.ok() || !(*x.value > 0)) return bad(flag + ": \"" + escape_control_chars(value) + "\" is not a positive number (e.g. 89.6)");
            (flag == "--ram-bandwidth" ? speed_in.ram_bandwidth : speed_in.cpu_flops) = *x.value * (flag == "--ram-bandwidth" ? 1e9 : 1e12);
        }
        else if (flag == "--mmproj") {
            // A vision projector's GGUF: its tensors' bytes from the header (read as --model reads a GGUF).
            CheckpointSource src;
            if (!load_checkpoint_source(value, src, err)) return kBadInput;
            if (!src.gguf) return bad("--mmproj: \"" + escape_control_chars(value) + "\" is not a GGUF file; give the projector's .gguf (mmproj-*.gguf)");
            in.mmproj_bytes = 0;
            for (const GgufTensor& t : src.gguf->tensors) in.mmproj_bytes += static_cast<double>(t.bytes);
            in.mmproj_file = value;
            const VisionEncoderRead enc = vision_encoder_from_gguf(*src.gguf);
            in.mmproj_encoder = enc.encoder;
            mmproj_note = enc.error;
        } else if (flag == "--mmproj-bytes") {
            std::optional<double> r = parse_ram_size(value);
            if (!r) return bad("--mmproj-bytes: \"" + escape_control_chars(value) + "\" is not a size; give e.g. 1.2GB (GiB, as --ram)");
            in.mmproj_bytes = *r;
            in.mmproj_encoder = VisionEncoder{};
            mmproj_note = "--mmproj-bytes gives no encoder shape; give --mmproj FILE.gguf";
        } else if (flag == "--no-mmproj-offload") {
            in.mmproj_offload = value != "true";
        } else if (flag == "--ram") {
            std::optional<double> r = parse_ram_size(value);
            if (!r) return bad("--ram: \"" + escape_control_chars(value) + "\" is not a size; give e.g. 64GB or 48GiB");
            in.ram_bytes = *r;
            have_ram = true;
        } else if (flag == "--kv-type" || flag == "--draft-kv-type") {
            KvDtype& kv = flag == "--kv-type" ? in.kv : in.draft.kv;
            const std::string v = lower(value);
            if (v == "f16" || v == "fp16") kv = KvDtype::FP16;
            else if (v == "bf16") kv = KvDtype::BF16;
            else if (v == "q8_0") kv = KvDtype::INT8;
            else if (v == "q4_0") kv = KvDtype::INT4;
            else return bad(flag + ": \"" + escape_control_chars(value) + "\" is not a llama.cpp cache type; use f16, bf16, q8_0 or q4_0");
        } else if (flag == "--draft-model") {
            draft_arg = value;
        } else if (flag == "--draft-weights") {
            draft_weights_arg = value;
        } else if (flag == "--draft-ngl" || flag == "--draft-ctx" || flag == "--draft-max") {
            int64_t n = 0;
            if (!whole(flag, value, n) || n < (flag == "--draft-ngl" ? 0 : 1))
                return bad(flag + ": \"" + escape_control_chars(value) + "\" is not a whole number >= " + (flag == "--draft-ngl" ? "0" : "1"));
            (flag == "--draft-ngl" ? in.draft.ngl : flag == "--draft-ctx" ? in.draft.context : in.draft.draft_max) = n;
        } else if (flag == "--split-mode") {
            const std::string v = lower(value);
            if (v == "layer") in.split_mode = SplitMode::Layer;
            else if (v == "row") in.split_mode = SplitMode::Row;
            else if (v == "none") in.split_mode = SplitMode::None;
            else return bad("--split-mode: \"" + escape_control_chars(value) + "\" is not a llama.cpp split mode; use layer, row or none");
        } else if (flag == "--ctx" || flag == "--ubatch" || flag == "--ngl" || flag == "--wired-limit-mb" || flag == "--n-cpu-moe" ||
                   flag == "--main-gpu" || flag == "--image-max-tokens") {
            int64_t n = 0;
            if (!whole(flag, value, n) || n < 0)
                return bad(flag + ": \"" + escape_control_chars(value) + "\" is not a whole number >= 0");
            (flag == "--ctx" ? in.context : flag == "--ubatch" ? in.ubatch : flag == "--ngl" ? in.ngl
                                                                   : flag == "--n-cpu-moe" ? in.n_cpu_moe
                                                                   : flag == "--main-gpu"  ? in.main_gpu
                                                                   : flag == "--image-max-tokens" ? in.image_max_tokens : in.wired_limit_mb) = n;
        } else if (flag == "--tensor-split") {
            Result<std::vector<double>> x = parse_number_list(value, "tensor-split");
            if (!x.ok() || x.value->empty()) return bad("--tensor-split: \"" + escape_control_chars(value) + "\" is not a list of numbers like 3,1");
            in.tensor_split = *x.value;
        }
    }
    if (engine != "llama.cpp" && engine != "llamacpp" && engine != "ollama")
        return bad("--engine: \"" + escape_control_chars(engine) + "\" is not planned yet; use llama.cpp or ollama (vLLM is planned later)");
    const bool ollama = engine == "ollama";
    if (!rank.on && (rank.all || rank.min_speed >= 0 || !rank.max_loss.empty() || !rank.since.empty() || rank.top > 0))
        return bad("--min-speed, --max-loss, --since, --top and --all go with --rank");
    if (!machine_specs.empty() && !compare) return bad("--machine goes with --compare (one machine: --gpu ID --ram SIZE, or --apple)");
    if (compare) {
        if (rank.on) return bad("--compare and --rank are two views: give one");
        if (in.ngl >= 0 || in.n_cpu_moe > 0 || !in.tensor_split.empty() || in.split_mode != SplitMode::Layer || in.main_gpu != 0 ||
            in.ubatch != PlanInput{}.ubatch || in.wired_limit_mb != 0 || in.mmproj_bytes > 0 || !in.kv_offload)
            return bad("--ngl, --n-cpu-moe, --tensor-split, --split-mode, --main-gpu, --ubatch, --wired-limit-mb, --mmproj and --no-kv-offload "
                       "do not go with --compare: each cell is llama.cpp's default placement (`vramlens plan` plans one with them)");
        std::vector<LocalMachine> machines;
        std::vector<std::string> typed;  // each machine as given, for messages
        if (!gpu_ids.empty() || in.apple_unified) {  // --gpu/--ram/--apple: the first machine
            if (!have_ram) return bad("--ram: give the system RAM of the --gpu machine, e.g. --ram 64GB");
            if (in.apple_unified && !chip) return bad("--apple-chip: --compare needs the Mac's chip (" + apple_chip_ids() + ")");
            LocalMachine m;
            for (const std::string& id : gpu_ids) m.gpus.push_back(lower(id));
            m.ram_bytes = in.ram_bytes;
            if (chip) m.apple_chip = chip->id;
            machines.push_back(m);
            typed.push_back(in.apple_unified ? "--apple" : "--gpu");
        }
        for (size_t k = 0; k < machine_specs.size(); ++k) {
            LocalMachine m;
            if (std::optional<std::string> why = parse_machine_spec(machine_specs[k], m))
                return bad("machine " + std::to_string(machines.size() + 1) + " (--machine \"" + escape_control_chars(machine_specs[k]) + "\"): " + *why);
            machines.push_back(m);
            typed.push_back("--machine \"" + escape_control_chars(machine_specs[k]) + "\"");
        }
        return cmd_compare(o, rank, machines, typed, in, ollama, speed_in, out, err);
    }
    if (model_arg.empty() && !rank.on) return bad("--model: give the model, e.g. --model llama-3-8b (`vramlens models` lists the presets)");
    if (!have_ram) return bad("--ram: give the system RAM, e.g. --ram 64GB");
    if (gpu_ids.empty() && !in.apple_unified)
        return bad("--gpu: give each GPU's preset id (`vramlens gpus`), e.g. --gpu rtx-4090, or --apple for a Mac");
    std::string why;
    std::optional<WeightFormat> wf = plan_weights(weights_arg, why);
    if (!wf) return bad(why);
    in.weights = *wf;
    if (std::optional<std::string> why = plan_gpus(gpu_ids, in.gpus)) return bad(*why);
    for (const std::string& id : gpu_ids) gpu_presets_used.push_back(find_gpu(lower(id)));  // valid: plan_gpus checked them
    if (chip && !in.apple_unified) return bad("--apple-chip: goes with --apple (an Apple Silicon Mac)");
    if (rank.on) return cmd_rank(o, rank, in, gpu_presets_used, chip, speed_in, ollama, out, err);
    int status = kOk;
    std::optional<Scenario> s = plan_model(model_arg, err, status);
    if (!s) return status;
    in.model = s->model;
    // A GGUF file's own type (general.file_type), unless --weights says otherwise; its tensor bytes
    // (model.gguf_bytes) are what the planner places, unless --weights names another type.
    const bool from_gguf = model_arg.size() > 5 && model_arg.compare(model_arg.size() - 5, 5, ".gguf") == 0;
    if (from_gguf && !weights_given && s->infer.engine == Engine::LlamaCpp) in.weights = s->infer.weights;
    if (from_gguf && weights_given && s->infer.engine == Engine::LlamaCpp && in.weights != s->infer.weights && !in.model.gguf_bytes.empty()) {
        err += std::string("note: --weights ") + enum_name(in.weights) + " is not the GGUF file's type (" + enum_name(s->infer.weights) +
               "): its tensor bytes are not used; that format's rules size the weights\n";
    }

    const bool draft_flags = !draft_weights_arg.empty() || in.draft.ngl >= 0 || in.draft.context > 0 || in.draft.kv != KvDtype::FP16 ||
                             in.draft.draft_max != PlanDraft{}.draft_max;
    if (draft_arg.empty() && draft_flags) return bad("--draft-weights, --draft-ngl, --draft-ctx, --draft-kv-type and --draft-max go with --draft-model");
    if (!draft_arg.empty()) {  // speculative decoding's draft model, read as --model is
        std::optional<Scenario> d = plan_model(draft_arg, err, status);
        if (!d) return status;
        in.draft.model = d->model;
        const bool draft_gguf = draft_arg.size() > 5 && draft_arg.compare(draft_arg.size() - 5, 5, ".gguf") == 0;
        if (!draft_weights_arg.empty()) {
            std::optional<WeightFormat> dw = plan_weights(draft_weights_arg, why);
            if (!dw) return bad("--draft-weights: \"" + escape_control_chars(draft_weights_arg) + "\" is not a GGUF type vramlens knows; " +
                                why.substr(why.find("use one of")));
            in.draft.weights = *dw;
        } else if (draft_gguf && d->infer.engine == Engine::LlamaCpp) {
            in.draft.weights = d->infer.weights;
        }
        if (draft_gguf) in.draft.file = draft_arg;
    }

    const Plan p = plan_llamacpp(in);
    if (!p.ok()) return bad(p.error);
    const Speed speed = plan_speed_on(in, p, gpu_presets_used, chip, speed_in);

    const std::string model_file = from_gguf ? model_arg : plan_model_file(in, model_arg);  // a GGUF: the file itself
    const std::string launch = llama_server_line(in, p, model_file);
    const MoeAlternative moe = ollama ? MoeAlternative{} : moe_alternative(in, p, speed, gpu_presets_used, chip, speed_in);  // Ollama cannot set it

    const OllamaSettings ollama_set = ollama_settings(in, p);
    if (ollama && !ollama_set.ok()) return bad("--" + ollama_set.error);
    const std::string& ollama_env = ollama_set.env;

    if (o.format == ExportFormat::Json) {
        Json j;
        j["engine"] = ollama ? "ollama" : "llama.cpp";
        j["model"] = in.model.name;
        j["weights"] = weight_format(in.weights).key;
        j["n_layer"] = p.n_layer;
        j["ngl"] = p.ngl;
        j["context"] = p.context;
        j["max_context"] = p.max_context;
        j["fits"] = p.fits;
        if (!p.advice.empty()) j["advice"] = p.advice;
        j["tensor_split"] = p.split;
        j["kv_offload"] = in.kv_offload;
        j["split_mode"] = split_mode_name(in.split_mode);
        if (moe.exists())
            j["moe_alternative"] = Json{{"ngl", moe.plan.ngl}, {"n_cpu_moe", moe.input.n_cpu_moe}, {"text", moe.text},
                                        {"launch", llama_server_line(moe.input, moe.plan, model_file)}};
        j["mmproj_bytes"] = in.mmproj_bytes;
        j["mmproj_offload"] = in.mmproj_offload;
        j["main_gpu"] = in.main_gpu;
        auto dev = [](const DevicePlan& d) {
            return Json{{"name", d.name}, {"capacity_bytes", d.capacity}, {"reserve_bytes", d.reserve},
                        {"layers", Json::array({d.layer_begin, d.layer_end})}, {"output", d.output},
                        {"weights_bytes", d.weights}, {"split_buffer_bytes", d.split_buffer}, {"kv_bytes", d.kv}, {"compute_bytes", d.compute},
                        {"mmproj_bytes", d.mmproj}, {"mmproj_compute_bytes", d.mmproj_compute},
                        {"draft_weights_bytes", d.draft_weights}, {"draft_kv_bytes", d.draft_kv}, {"draft_compute_bytes", d.draft_compute},
                        {"total_bytes", d.total()}, {"fits", d.fits()}};
        };
        if (in.draft.active())
            j["draft"] = Json{{"model", in.draft.model->name}, {"weights", weight_format(in.draft.weights).key}, {"n_layer", p.draft_n_layer},
                              {"ngl", p.draft_ngl}, {"context", p.draft_context}, {"kv_type", llamacpp_cache_type(in.draft.kv)},
                              {"draft_max", in.draft.draft_max}};
        j["devices"] = Json::array();
        for (const DevicePlan& d : p.gpus) j["devices"].push_back(dev(d));
        j["devices"].push_back(dev(p.cpu));
        if (p.fits) j["speed"] = speed_json(speed);
        if (ollama) {
            j["ollama"] = Json{{"env", ollama_env}};
            for (const auto& [name, value] : ollama_set.parameters) j["ollama"][name] = value;
            if (!ollama_set.unsupported.empty()) j["ollama"]["unsupported"] = ollama_set.unsupported;
        }
        else j["launch"] = launch;
        out += j.dump(1) + "\n";
    } else {
        out += in.model.name + ", " + weight_format(in.weights).name + ", context " + std::to_string(p.context) + ", " +
               (ollama ? "Ollama" : "llama.cpp") + "\n";
        out += "-ngl " + std::to_string(p.ngl) + " of " + std::to_string(p.n_layer + 1) + " (" + std::to_string(p.n_layer) +
               " layers + output)" + (p.fits ? ", fits" : ", DOES NOT FIT") + "\n";
        auto row = [&](const DevicePlan& d) {
            const std::string layers = device_layers_text(in, p, d);
            out += "  " + d.name + ": " + layers + "; weights " + amount_with_unit(d.weights, SizeUnit::GiB) + ", KV " + amount_with_unit(d.kv, SizeUnit::GiB) + ", compute " +
                   amount_with_unit(d.compute, SizeUnit::GiB) +
                   (d.mmproj > 0 ? ", vision projector " + amount_with_unit(d.mmproj, SizeUnit::GiB) : "") +
                   (d.mmproj_compute > 0 ? ", image encoder compute " + amount_with_unit(d.mmproj_compute, SizeUnit::GiB) : "") +
                   " = " + amount_with_unit(d.total(), SizeUnit::GiB) + " of " + amount_with_unit(d.capacity, SizeUnit::GiB) + (d.fits() ? "" : " (over)") + "\n";
        };
        for (const DevicePlan& d : p.gpus) row(d);
        row(p.cpu);
        if (p.gpus.size() > 1)
            out += "tensor split: " + tensor_split_text(p.split) + ", --split-mode " + split_mode_name(in.split_mode) +
                   (in.split_mode == SplitMode::Row ? " (weights: each GPU's own tensors and its rows of every split matrix)" : "") + "\n";
        if (in.mmproj_bytes > 0) out += image_encoder_text(in, mmproj_note) + "\n";
        if (in.draft.active()) out += draft_text(in, p) + "\n";
        out += "largest context at -ngl " + std::to_string(p.ngl) + ": " + std::to_string(p.max_context) + "\n";
        if (!p.advice.empty()) out += p.advice + "\n";
        if (p.fits) out += speed_text(speed, p.context) + "\n";
        if (ollama) {
            out += "Ollama: " + ollama_parameter_lines(ollama_set, ", ") +
                   " (Modelfile or /set parameter); server env: " + ollama_env + "\n";
            if (!ollama_set.unsupported.empty()) out += "Ollama cannot set: " + ollama_set.unsupported + "\n";
        } else {
            out += "launch: " + launch + "\n";
            if (moe.exists()) out += moe.text + "\n" + "launch (--n-cpu-moe): " + llama_server_line(moe.input, moe.plan, model_file) + "\n";
        }
    }
    if (!p.fits) {
        err += "vramlens: does not fit: " + p.advice + "\n";
        return kNoFit;
    }
    return kOk;
}

int run_command(const Options& o, std::string& out, std::string& err) {
    const std::string& cmd = o.command;
    if (cmd == "estimate") return cmd_estimate(o, out, err);
    if (cmd == "solve") return cmd_solve(o, out, err);
    if (cmd == "scenario") return cmd_scenario(o, out, err);
    if (cmd == "verify-script") return cmd_verify_script(o, out, err);
    if (cmd == "link") return cmd_link(o, out, err);
    if (cmd == "import") return cmd_import(o, out, err);
    if (cmd == "models") return cmd_models(o, out);
    if (cmd == "gpus") return cmd_gpus(o, out);
    if (cmd == "optimizers") return cmd_optimizers(o, out);
    if (cmd == "profiles") return cmd_profiles(o, out);
    if (cmd == "plan") return cmd_plan(o, out, err);
    err += "vramlens: unknown command \"" + cmd + "\" (see `vramlens --help`)\n";
    return kUsage;
}

// CLI11's message for a parse error; a flag without its value reads as before ("--seq needs a value").
std::string parse_error_message(const CLI::ParseError& e) {
    const std::string m = e.what();
    const size_t colon = m.find(": ");
    if (e.get_name() == "ArgumentMismatch" && m.rfind("-", 0) == 0 && colon != std::string::npos &&
        m.find(" required ", colon) != std::string::npos && m.find("missing", colon) != std::string::npos)
        return m.substr(0, colon) + " needs a value";
    return m;
}

// What CLI11 could not place: unknown options, and arguments no command takes. CLI11 also lists the
// `--` that ends the options; what follows it is an argument even when it starts with "-".
std::optional<std::string> leftover(const std::vector<std::string>& remaining, bool command_given) {
    bool options_ended = false;
    for (const std::string& a : remaining) {
        if (a == "--" && !options_ended) {
            options_ended = true;
            continue;
        }
        if (!options_ended && a.size() > 1 && a[0] == '-')
            return "unknown option " + escape_control_chars(a.substr(0, a.find('='))) + " (see `vramlens --help`)";
        if (!command_given) return "unknown command \"" + escape_control_chars(a) + "\" (see `vramlens --help`)";
        return "unexpected argument \"" + escape_control_chars(a) + "\"";
    }
    return std::nullopt;
}

int run_unguarded(std::vector<std::string> args, std::string& out, std::string& err) {
    if (args.empty()) {
        err += usage();
        return kUsage;
    }
    // `vramlens help [COMMAND]` and `vramlens version` read as --help and --version.
    if (args[0] == "help") {
        args.erase(args.begin());
        args.push_back("--help");
    } else if (args[0] == "version") {
        args[0] = "--version";
    }
    // CLI11 reads "++" as "back to the parent command" and drops it; here it can only be a file name.
    for (const std::string& a : args) {
        if (a == "--") break;
        if (a == "++") {
            err += "vramlens: unexpected argument \"++\" (a file of that name goes after --)\n";
            return kUsage;
        }
    }
    Parser p;
    bool help = false;
    try {
        p.app().parse(std::vector<std::string>(args.rbegin(), args.rend()));  // CLI11 takes them last first
    } catch (const CLI::CallForHelp&) {
        help = true;
    } catch (const CLI::CallForAllHelp&) {
        help = true;
    } catch (const CLI::ParseError& e) {
        err += "vramlens: " + parse_error_message(e) + "\n";
        return kUsage;
    }
    CLI::App* sub = p.selected();
    if (help && sub) {
        out += sub->help("vramlens");
        return kOk;
    }
    std::optional<std::string> problem = leftover(p.app().remaining(), false);
    if (!problem && sub) problem = leftover(sub->remaining(), true);
    if (problem) {
        err += "vramlens: " + *problem + "\n";
        return kUsage;
    }
    if (help) {
        out += usage();
        return kOk;
    }
    if (p.version()) {
        out += "vramlens " VRAMLENS_VERSION " (scenario format " + std::to_string(kScenarioJsonVersion) + ", share links v" +
               std::to_string(kShareLinkVersion) + ")\n";
        return kOk;
    }
    if (!sub) {
        err += usage();
        return kUsage;
    }
    Options o;
    if (auto problem = p.collect(*sub, o)) {
        err += "vramlens: " + problem->message + "\n";
        return kUsage;
    }
    return run_command(o, out, err);
}

}  // namespace

// Messages quote what the user typed (flag values, file names, fields of a file): none may reach
// the terminal as a control character, so every line of stderr is escaped here, once.
std::string terminal_safe(std::string_view text) {
    std::string out;
    for (size_t start = 0; start < text.size();) {
        const size_t nl = std::min(text.find('\n', start), text.size());
        out += escape_control_chars(text.substr(start, nl - start));
        if (nl < text.size()) out += '\n';
        start = nl + 1;
    }
    return out;
}

int run(const std::vector<std::string>& args, std::string& out, std::string& err) {
    std::string messages;
    int status = kBadInput;
    try {
        status = run_unguarded(args, out, messages);
    } catch (const std::exception& e) {
        messages += std::string("vramlens: internal error: ") + e.what() + "\n";
    } catch (...) {
        messages += "vramlens: internal error\n";
    }
    err += terminal_safe(messages);
    return status;
}

}  // namespace vl::cli
