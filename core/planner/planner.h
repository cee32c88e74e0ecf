// Local placement planner (issue 19, phase 1): where llama.cpp (and Ollama, which runs it) puts a
// model's layers, KV cache and compute buffers over a machine's GPUs and system RAM, the largest
// -ngl that fits and the largest context for it. Pure: a PlanInput in, a Plan out.
//
// llama.cpp's device assignment (src/llama-model.cpp load_tensors, b9993 and later [llama-cpp-code]):
// the output layer counts as layer n_layer; -ngl N puts layers [n_layer + 1 - N, n_layer] on the
// GPUs (so -ngl n_layer + 1 offloads every repeating layer and the output; -ngl 1 only the output);
// the token embedding (the input layer) always stays on the CPU. Offloaded layer il goes to GPU
// upper_bound(splits, (il - i_gpu_start) / act_gpu_layers), splits being the cumulative normalised
// --tensor-split (default: each GPU's free memory). A layer's KV cache lives on its layer's device.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model_spec.h"
#include "planner/vision_encoder.h"
#include "scenario.h"

namespace vl {

// llama.cpp --split-mode (src/llama.cpp, src/llama-model.cpp load_tensors, read at 5bc7a74 / a5410f0
// [llama-cpp-code]). layer: whole layers per GPU by the tensor split. row: the layers (their norms,
// routed experts, KV cache and compute) are assigned to GPUs exactly as for layer, but every 2-D matrix
// of an offloaded layer and output.weight lives in the CUDA split buffer: GPU i holds rows
// [n * s_i, n * s_{i+1}) of each (s: the cumulative normalised split, each bound rounded down to 128
// rows, 64 on GPUs before Volta; the last GPU up to n), each slice padded by ggml_row_size(512 - ne0 % 512)
// when ne0 is not a multiple of 512; a matrix stays whole on its layer's GPU when that GPU would get
// no rows of it (ggml-cuda.cu get_row_split, supports_op, read at f6d77a1). none: one GPU, --main-gpu.
// (SplitMode itself is in scenario.h: local.split_mode.)
const char* split_mode_name(SplitMode m);  // "layer", "row", "none"

struct PlanGpu {
    std::string name;
    double memory_bytes = 0;   // the CUDA-visible total (GpuPreset::cuda_total_bytes): llama.cpp sizes devices by cudaMemGetInfo
    double reserve_bytes = -1; // CUDA context / driver reserve; < 0: core/cuda_context.h's row for the name
};

// Apple Silicon unified memory: the GPU may wire at most recommendedMaxWorkingSetSize, by default
// 2/3 of RAM up to 32 GiB and 3/4 above (published Metal logs: 10922.67 MB on 16 GB, 21845.34 MB on
// 32 GB, about 49 GB on 64 GB [lcpp-metal-working-set]); `sudo sysctl iogpu.wired_limit_mb=N` sets
// it to N MiB (0: the default) [apple-wired-limit].
double apple_gpu_wired_limit_bytes(double ram_bytes, int64_t wired_limit_mb = 0);

// llama-server -md (tools/server/server-context.cpp load_model and init [llama-cpp-speculative]):
// the draft model is loaded with the main model's parameters except its devices (-devd), -ngld, its context (-cd, or the
// main context per sequence) and -ctkd/-ctvd; so it takes the same tensor split, split mode, -ub and flash attention. Each
// slot then creates its own draft context (its KV cache of the draft context and its compute buffer); the context made at
// load is freed first. The planner plans one slot.
struct PlanDraft {
    std::optional<ModelSpec> model; // none: no draft model
    WeightFormat weights = WeightFormat::GGUF_Q8_0;
    KvDtype kv = KvDtype::FP16;     // -ctkd/-ctvd
    int64_t ngl = -1;               // -ngld; < 0: every layer and the output
    int64_t context = 0;            // -cd; 0: the main context
    int64_t draft_max = 16;         // --draft-max (the launch line)
    std::string file;               // its file for the launch line ("": named after the model)
    bool active() const { return model.has_value(); }
};

struct PlanInput {
    ModelSpec model;
    WeightFormat weights = WeightFormat::GGUF_Q4_K_M;
    KvDtype kv = KvDtype::FP16;     // llama.cpp -ctk/-ctv: fp16 (f16), int8 (q8_0), int4 (q4_0)
    int64_t context = 4096;         // -c
    int64_t ubatch = kLlamaCppUbatch;  // -ub
    bool flash_attention = false;   // -fa
    std::vector<PlanGpu> gpus;
    std::vector<double> tensor_split;  // --tensor-split; empty: by each GPU's usable memory
    double ram_bytes = 0;           // system RAM (unified memory on a Mac)
    bool apple_unified = false;     // one Apple GPU sharing ram_bytes; gpus must be empty
    int64_t wired_limit_mb = 0;     // iogpu.wired_limit_mb (Apple), 0: the default
    int64_t ngl = -1;               // -ngl; < 0: the largest that fits
    int64_t n_cpu_moe = 0;          // --n-cpu-moe N: the routed experts (ffn_{gate,up,down}_exps) of layers
                                    // [0, N) stay on the CPU (common/arg.cpp's -ot pattern) [llama-cpp-server-flags]
    SplitMode split_mode = SplitMode::Layer;  // --split-mode
    int64_t main_gpu = 0;           // --main-gpu: the one GPU of --split-mode none (llama.cpp reads it for no other mode)
    double mmproj_bytes = 0;        // --mmproj: a vision model's projector, its GGUF tensors' bytes (0: none)
    std::string mmproj_file;        // its file for the launch line ("" : mmproj.gguf)
    bool mmproj_offload = true;     // false: --no-mmproj-offload, the projector in system RAM. Offloaded, tools/mtmd/clip.cpp
                                    // loads it whole on the first GPU backend (ggml_backend_init_by_type(GPU), not --main-gpu),
                                    // read at 3679b65 [llama-cpp-code]
    VisionEncoder mmproj_encoder;   // the projector file's encoder shape (--mmproj FILE); unknown with --mmproj-bytes:
                                    // then its compute buffers are not planned
    int64_t image_max_tokens = 0;   // --image-max-tokens: plan the encoder for images this large (dynamic-resolution
                                    // encoders); 0: the image clip.cpp reserves at load (vision_encoder.h)
    PlanDraft draft;                // speculative decoding's draft model (-md); inactive: none
    bool kv_offload = true;         // false: -nkvo (--no-kv-offload): every layer's KV cache in host memory and the
                                    // attention over it on the CPU (src/llama-kv-cache.cpp: the CPU buffer type when
                                    // !offload; src/llama-graph.cpp build_attn_mha pins KQ..KQV to the CPU backend;
                                    // read at 3514e9f) [llama-cpp-code]
};

struct DevicePlan {
    std::string name;
    double capacity = 0;            // usable bytes (memory - reserve, or the wired limit)
    double reserve = 0;
    int64_t layer_begin = 0, layer_end = 0;  // repeating layers [begin, end)
    bool output = false;            // holds output.weight (and the logits' compute)
    double weights = 0, kv = 0, compute = 0;  // weights: all this device holds (--split-mode row: its rows of every split matrix)
    double split_buffer = 0;        // --split-mode row: llama.cpp's "CUDA<i>_Split model buffer size", the split matrices of the
                                    // layers this GPU holds, every GPU's rows and padding together (not all on this GPU)
    double split_rows = 0;          // --split-mode row: this GPU's rows of every split matrix (part of weights), which it
                                    // multiplies while the other GPUs multiply theirs
    double split_params = 0;        // --split-mode row: the elements of those rows (prefill: 2 FLOPs each per prompt token)
    double split_owned_params = 0;  // --split-mode row: the elements of the split matrices of the layers (and output) this GPU
                                    // runs, every GPU's rows: the part of its layers' prefill FLOPs that the GPUs share
    double mmproj = 0;              // the vision projector's weights (--mmproj) on this device
    double mmproj_compute = 0;      // its encoder's compute buffer here (clip_compute_bytes: device part where the
                                    // projector is, the host part in RAM)
    double draft_weights = 0, draft_kv = 0, draft_compute = 0;  // the draft model's (-md) share here: its layers' weights, their
                                    // KV cache at the draft context, its compute buffer (its own llama_context)
    double draft() const { return draft_weights + draft_kv + draft_compute; }
    double total() const { return weights + kv + compute + mmproj + mmproj_compute + draft(); }
    bool fits() const { return total() <= capacity; }
};

struct Plan {
    std::string error;              // bad input: names the field and how to fix it
    int64_t n_layer = 0;
    int64_t ngl = 0;                // the -ngl used
    int64_t context = 0;
    std::vector<double> split;      // the tensor split used (one value per GPU)
    std::vector<DevicePlan> gpus;
    DevicePlan cpu;                 // host RAM: token embedding, CPU layers and their KV (-nkvo: every layer's KV,
                                    // and as compute the attention peak that the GPUs no longer hold)
    bool fits = false;              // every device within its capacity
    int64_t max_context = 0;        // largest context (multiple of 256, up to the larger of n_ctx_train and the
                                    // requested one) that fits at this -ngl; 0: none
    std::string advice;             // when nothing fits: the smallest change that would
    // --split-mode row, per generated token: each split matrix is multiplied on every GPU with rows of it at once; the GPU
    // running its layer sends each other such GPU the input vector (q8_1 for a quantized matrix, else f32), gathers its rows
    // of the result (f32) and waits for it (ggml-cuda.cu ggml_cuda_op_mul_mat, read at f6d77a1 [llama-cpp-code]).
    int64_t row_syncs = 0;          // those round trips: one per split matrix and GPU with rows of it other than its layer's
    double row_link_bytes = 0;      // the activations they carry
    int64_t moe_cpu_layers = 0;     // an MoE model that the automatic -ngl split (layers in RAM): the smallest --n-cpu-moe
                                    // with which every layer fits on the GPUs instead (0: none, or not applicable)
    int64_t draft_ngl = 0;          // the draft model's -ngld used (0 with no draft model)
    int64_t draft_n_layer = 0;
    int64_t draft_context = 0;      // its context (-cd, or the main context)
    bool ok() const { return error.empty(); }
};

// Per-device bytes for one -ngl and context (no search).
Plan place_llamacpp(const PlanInput& in, int64_t ngl, int64_t context);

// The plan: -ngl as given or the largest that fits, then the largest context at that -ngl.
Plan plan_llamacpp(const PlanInput& in);

// Bytes of repeating layer il's weights in the input's format (from the tensor inventory and the
// GGUF mix), and of the output layer (output.weight + final norm) and the token embedding.
double llamacpp_layer_weight_bytes(const PlanInput& in, int64_t il);
double llamacpp_output_weight_bytes(const PlanInput& in);
double llamacpp_embedding_weight_bytes(const PlanInput& in);
// The routed experts' share of layer il: the layer's bytes less those of the same layer with
// expert_ffn = 0 (every other tensor and its GGUF type are unchanged), or an imported GGUF's own
// blk.<il>.ffn_{gate,up,down}_exps bytes (model.gguf_bytes.experts); 0 on a dense layer.
double llamacpp_layer_expert_bytes(const PlanInput& in, int64_t il);

}  // namespace vl
