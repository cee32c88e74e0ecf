// llama.cpp placement: per-device bytes for a given -ngl and context, and the search for the largest
// -ngl and context that fit (planner.h says where each rule comes from).
#include "planner/planner.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "cuda_context.h"
#include "enum_names.h"
#include "inference/kv_cache.h"
#include "inference/runtime.h"
#include "inference/weight_formats.h"
#include "model/layer_tensors.h"
#include "param_count.h"
#include "units.h"

namespace vl {

const char* split_mode_name(SplitMode m) { return enum_name(m); }

double apple_gpu_wired_limit_bytes(double ram_bytes, int64_t wired_limit_mb) {
    if (wired_limit_mb > 0) return static_cast<double>(wired_limit_mb) * 1024 * 1024;
    const double gib = 1024.0 * 1024 * 1024;
    return ram_bytes > 32 * gib ? ram_bytes * 3 / 4 : ram_bytes * 2 / 3;
}

namespace {

InferenceOptions llamacpp_options(const PlanInput& in) {
    InferenceOptions o;
    o.engine = Engine::LlamaCpp;
    o.weights = in.weights;
    o.kv_dtype = in.kv;
    o.context = in.context;
    o.ubatch = in.ubatch;
    o.flash_attention = in.flash_attention;
    return o;
}

// One pipeline stage per layer: stage il holds exactly layer il (parallel.h pipeline_stage), so the
// GGUF mix's per-layer types (llama_tensor_get_type's use_more_bits) come out layer by layer.
StageWeightParams layer_params(const PlanInput& in, const ParamCounts& pc, int64_t il) {
    Parallelism par;
    par.pp = in.model.layers;
    return stage_weight_params(in.model, pc, llamacpp_options(in), par, il);
}

// Bytes of repeating layer il: the GGUF file's blk.il tensors when the model has them
// (weight_formats.h gguf_bytes_describe), else the layer's tensors in the input's format.
double layer_weight_bytes(const PlanInput& in, const ParamCounts& pc, int64_t il) {
    Numbers n;
    if (gguf_bytes_describe(in.model, in.weights)) return gguf_blocks_bytes(n, in.model.gguf_bytes, il, il + 1);
    StageWeightParams w = layer_params(in, pc, il);
    w.norms -= w.edge.final_norm;
    w.edge = EdgeShard{};
    Parallelism par;
    par.pp = in.model.layers;
    return weight_bytes(w, in.model, llamacpp_options(in), par).total();
}

std::string validate_main(const PlanInput& in) {
    if (!in.model.architecture_known() || in.model.layers < 1)
        return "model: the planner needs the model's architecture (layers, hidden size, heads); give a preset id or a config.json";
    if (in.model.encoder)
        return "model: " + in.model.model_type + " is an encoder (embeddings, reranking): the planner places generation models; size it with "
               "`vramlens estimate --mode infer` (transformers)";
    if (in.model.seq2seq.active())
        return "model: " + in.model.model_type + " is an encoder-decoder: the planner places decoder-only models; size it with "
               "`vramlens estimate --mode infer` (transformers generate)";
    if (!is_gguf(in.weights) && in.weights != WeightFormat::FP16 && in.weights != WeightFormat::BF16 && in.weights != WeightFormat::FP32)
        return std::string("weights: llama.cpp runs GGUF files; ") + weight_format_name(in.weights) +
               " is not one; pick a GGUF type (q8_0, q6_k, q5_k_m, q5_k_s, q5_1, q5_0, q4_k_m, q4_k_s, q4_1, q4_0, q3_k_m, q2_k), fp16 or bf16";
    if (in.kv != KvDtype::FP16 && in.kv != KvDtype::BF16 && in.kv != KvDtype::INT8 && in.kv != KvDtype::INT4)
        return "kv-type: llama.cpp caches f16, bf16, q8_0 or q4_0 (-ctk/-ctv); fp8 is not one of them";
    if ((in.kv == KvDtype::INT8 || in.kv == KvDtype::INT4) && !in.flash_attention)
        return "kv-type: llama.cpp needs flash attention for a quantized V cache (\"V cache quantization requires flash_attn\"); add --flash-attn or use f16";
    if (in.n_cpu_moe < 0) return "n-cpu-moe: the number of layers whose experts stay on the CPU must be >= 0";
    if (in.n_cpu_moe > 0 && in.model.moe.num_experts <= 0)
        return "n-cpu-moe: " + in.model.name + " has no routed experts; leave --n-cpu-moe out (or use --ngl)";
    if (in.context < 1) return "ctx: the context must be at least 1 token";
    if (in.ubatch < 1) return "ubatch: n_ubatch must be at least 1 token";
    if (!(in.ram_bytes > 0)) return "ram: give the system RAM (e.g. --ram 64GB); layers not on a GPU live there";
    if (in.apple_unified && !in.gpus.empty()) return "gpu: an Apple Silicon machine has one GPU sharing its RAM; leave out --gpu";
    for (size_t i = 0; i < in.gpus.size(); ++i)
        if (!(in.gpus[i].memory_bytes > 0) || !std::isfinite(in.gpus[i].memory_bytes))
            return "gpu " + std::to_string(i + 1) + ": its memory must be a positive size (e.g. 24GB)";
    if (!(in.mmproj_bytes >= 0) || !std::isfinite(in.mmproj_bytes))
        return "mmproj-bytes: the projector's size must be a size >= 0 (e.g. 1.2GB), or give --mmproj FILE.gguf";
    if (in.image_max_tokens < 0 || in.image_max_tokens > (int64_t{1} << 24))
        return "image-max-tokens: give a number of image tokens from 1 to 16777216 (e.g. 1024), or leave it out for the image llama.cpp "
               "reserves at load";
    if (in.image_max_tokens > 0 && !in.mmproj_encoder.known())
        return "image-max-tokens: needs the projector's encoder; give --mmproj FILE.gguf (--mmproj-bytes has no encoder shape)";
    if (in.image_max_tokens > 0 && !dynamic_resolution(in.mmproj_encoder))
        return "image-max-tokens: this projector (" + in.mmproj_encoder.projector + ") resizes every image to " +
               std::to_string(in.mmproj_encoder.image_size) + " px; the limit applies to encoders that take images at their own size (Qwen-VL); leave it out";
    if (!in.mmproj_offload && !(in.mmproj_bytes > 0))
        return "no-mmproj-offload: there is no projector to keep in RAM; add --mmproj FILE.gguf (or --mmproj-bytes) or leave it out";
    const int64_t n_gpus = in.apple_unified ? 1 : static_cast<int64_t>(in.gpus.size());
    if (in.main_gpu < 0 || (n_gpus > 0 && in.main_gpu >= n_gpus))
        return "main-gpu: give a GPU index from 0 to " + std::to_string(std::max<int64_t>(n_gpus - 1, 0)) + " (the --gpu order)";
    if (in.main_gpu != 0 && in.split_mode != SplitMode::None)
        return std::string("main-gpu: llama.cpp reads --main-gpu only with --split-mode none; with --split-mode ") +
               split_mode_name(in.split_mode) + " the --tensor-split places everything; add --split-mode none or leave --main-gpu out";
    if (in.split_mode == SplitMode::None && !in.tensor_split.empty())
        return "tensor-split: --split-mode none puts the model on one GPU (--main-gpu); leave --tensor-split out";
    if (in.split_mode == SplitMode::Row && in.apple_unified)
        return "split-mode: row splitting is the CUDA backend's split buffer; an Apple GPU loads whole layers (leave --split-mode out)";
    if (!in.tensor_split.empty()) {
        const size_t n = in.apple_unified ? 1 : in.gpus.size();
        if (in.tensor_split.size() != n)
            return "tensor-split: give one proportion per GPU (" + std::to_string(n) + "), e.g. 3,1";
        double sum = 0;
        for (double x : in.tensor_split) {
            if (!(x >= 0) || !std::isfinite(x)) return "tensor-split: each proportion must be a number >= 0";
            sum += x;
        }
        if (!(sum > 0)) return "tensor-split: at least one proportion must be above 0";
    }
    return {};
}

// The draft model's parameters: the main model's, with its own model, GGUF type, KV type and -ngld (planner.h PlanDraft); no
// tensor override (--n-cpu-moe) and no projector carry over. `split`: the main plan's tensor split, which it shares. -devd
// (other devices for the draft) is not planned: the draft takes the main model's GPUs, llama-server's default.
PlanInput draft_input(const PlanInput& in, const std::vector<double>& split = {}) {
    PlanInput d = in;
    if (in.draft.model) d.model = *in.draft.model;
    d.weights = in.draft.weights;
    d.kv = in.draft.kv;
    d.ngl = in.draft.ngl;
    d.n_cpu_moe = 0;
    d.mmproj_bytes = 0;
    d.mmproj_encoder = VisionEncoder{};
    d.mmproj_offload = true;
    d.image_max_tokens = 0;
    d.draft = PlanDraft{};
    if (!split.empty() && in.split_mode != SplitMode::None) d.tensor_split = split;
    return d;
}

int64_t draft_context(const PlanInput& in, int64_t context) { return in.draft.context > 0 ? in.draft.context : context; }

std::string validate_plan(const PlanInput& in) {
    std::string e = validate_main(in);
    if (!e.empty() || !in.draft.active()) return e;
    if (in.mmproj_bytes > 0)
        return "draft-model: llama-server refuses a draft model beside a vision projector (\"speculative decode is not supported by "
               "multimodal\", tools/server load_model) [llama-cpp-speculative]; leave out --mmproj or the draft model";
    if (in.draft.ngl > in.draft.model->layers + 1)
        return "draft-ngl: the draft model has " + std::to_string(in.draft.model->layers) + " layers + output; give 0 to " +
               std::to_string(in.draft.model->layers + 1) + ", or leave it out for all";
    if (in.draft.context < 0) return "draft-ctx: give the draft context in tokens (>= 1), or leave it out for the main context";
    if (in.draft.draft_max < 1) return "draft-max: the tokens drafted per step must be at least 1 (llama.cpp's default is 16)";
    // The draft's own model, GGUF type and KV type by the main model's rules, its fields named draft-*.
    e = validate_main(draft_input(in));
    return e.empty() ? e : "draft-" + e;
}

struct GpuSlot {
    std::string name;
    double capacity, reserve;
};

std::vector<GpuSlot> gpu_slots(const PlanInput& in) {
    std::vector<GpuSlot> out;
    if (in.apple_unified) {
        out.push_back({"Apple GPU (unified memory)", apple_gpu_wired_limit_bytes(in.ram_bytes, in.wired_limit_mb), 0});
        return out;
    }
    for (const PlanGpu& g : in.gpus) {
        const double reserve = g.reserve_bytes >= 0 ? g.reserve_bytes : cuda_context_row(gpu_arch(g.name), true).bytes;
        out.push_back({g.name, std::max(0.0, g.memory_bytes - reserve), reserve});
    }
    return out;
}

// get_mmq_y_host (ggml-cuda mmq.cuh [llama-cpp-code]): the MMQ tile is 128 rows from Volta on, 64 before
// (Pascal by gpu_arch; Kepler and Maxwell Teslas by name).
int64_t mmq_tile_rows(const std::string& gpu_name) {
    if (gpu_arch(gpu_name) == GpuArch::Pascal) return 64;
    for (const char* old : {"K80", "K40", "K20", "M40", "M60", "M10", "Kepler", "Maxwell"})
        if (gpu_name.find(old) != std::string::npos) return 64;
    return 128;
}

// The CUDA split buffer's row bounds: each GPU's cumulative split (float, as llama.cpp keeps it) and the
// row rounding, the largest MMQ tile of the GPUs that get a non-empty share (get_row_rounding).
struct RowSplit {
    std::vector<float> low;  // cumulative normalised split at each GPU
    int64_t rounding = 128;
};
RowSplit row_split(const std::vector<GpuSlot>& slots, const std::vector<double>& proportions) {
    RowSplit r;
    float sum = 0;
    for (double x : proportions) {
        r.low.push_back(sum);
        sum += static_cast<float>(x);
    }
    for (float& x : r.low) x /= sum;
    r.rounding = 0;
    for (size_t i = 0; i < slots.size(); ++i)
        if (r.low[i] < (i + 1 < slots.size() ? r.low[i + 1] : 1.0f)) r.rounding = std::max(r.rounding, mmq_tile_rows(slots[i].name));
    return r;
}
// Rows [low, high) of an n-row matrix on GPU id (get_row_split): bounds rounded down to the rounding, the last GPU to n.
int64_t rows_from(int64_t n, const RowSplit& r, size_t id) {
    if (id == 0) return 0;
    if (id >= r.low.size()) return n;
    const auto row = static_cast<int64_t>(static_cast<float>(n) * r.low[id]);
    return row - row % r.rounding;
}
// MATRIX_ROW_PADDING (ggml-cuda common.cuh [llama-cpp-code]): split matrix rows and the q8_1 input are padded to 512 elements.
constexpr int64_t kRowPadding = 512;
// One GPU's slice of a split matrix: its rows, plus the padding of the last row to 512 elements
// (ggml_backend_cuda_split_buffer_type_get_alloc_size, MATRIX_ROW_PADDING).
double split_slice_bytes(GgmlType t, int64_t ne0, int64_t rows) {
    if (rows == 0) return 0;
    return static_cast<double>(rows) * ggml_row_bytes(t, ne0) + (ne0 % kRowPadding != 0 ? ggml_row_bytes(t, kRowPadding - ne0 % kRowPadding) : 0);
}

// The input vector one GPU sends another for a split matrix of ne0 columns at batch 1: quantized to q8_1 over the row padded
// to 512 (quantize_row_q8_1_cuda for mul_mat_vec_q) for a quantized matrix, f32 otherwise (ggml_cuda_mul_mat, ggml_cuda_op_mul_mat).
double split_matmul_input_bytes(GgmlType t, int64_t ne0) {
    if (ggml_type(t).block_weights <= 1) return static_cast<double>(ne0) * 4;
    return ggml_row_bytes(GgmlType::Q8_1, (ne0 + kRowPadding - 1) / kRowPadding * kRowPadding);
}

}  // namespace

double llamacpp_layer_weight_bytes(const PlanInput& in, int64_t il) { return layer_weight_bytes(in, count_params(in.model), il); }

double llamacpp_layer_expert_bytes(const PlanInput& in, int64_t il) {
    if (in.model.moe.num_experts <= 0) return 0;
    if (gguf_bytes_describe(in.model, in.weights)) {  // the file's own ffn_{gate,up,down}_exps bytes of block il
        const std::vector<uint64_t>& e = in.model.gguf_bytes.experts;
        return e.empty() ? 0.0 : static_cast<double>(e[static_cast<size_t>(il)]);
    }
    PlanInput no_experts = in;
    no_experts.model.moe.expert_ffn = 0;
    return llamacpp_layer_weight_bytes(in, il) - llamacpp_layer_weight_bytes(no_experts, il);
}

double llamacpp_output_weight_bytes(const PlanInput& in) {
    Numbers n;
    if (gguf_bytes_describe(in.model, in.weights)) return gguf_output_bytes(n, in.model) + gguf_other_bytes(n, in.model.gguf_bytes);
    const ParamCounts pc = count_params(in.model);
    Parallelism par;
    par.pp = in.model.layers;
    StageWeightParams w = layer_params(in, pc, in.model.layers - 1);
    // A single-layer model has no separate last stage: its tied head has no copy in the estimate's
    // stages, but llama.cpp still creates output.weight as a duplicate of token_embd.
    if (in.model.layers == 1 && in.model.tied_embeddings) w.edge.lm_head = 1;
    const InferenceOptions o = llamacpp_options(in);
    return lm_head_weight_bytes(n, w, in.model, o, par) + w.edge.final_norm * norm_bits(o) / 8;
}

double llamacpp_embedding_weight_bytes(const PlanInput& in) {
    Numbers n;
    if (gguf_bytes_describe(in.model, in.weights)) return gguf_token_embd_bytes(n, in.model.gguf_bytes);
    const ParamCounts pc = count_params(in.model);
    Parallelism par;
    par.pp = in.model.layers;
    const StageWeightParams w = layer_params(in, pc, 0);
    return embedding_weight_bytes(n, w, in.model, llamacpp_options(in), par);
}

namespace {

// What no -ngl or context changes, computed once per plan (plan_llamacpp places a model up to a
// hundred times): each repeating layer's weight bytes, the routed experts' share that --n-cpu-moe
// keeps on the CPU, and the output layer's and the token embedding's bytes.
struct FixedBytes {
    ParamCounts pc;
    std::vector<double> layer, experts;
    double output = 0, embedding = 0;
    std::vector<FixedBytes> draft;  // the draft model's (-md), when there is one
};

FixedBytes fixed_bytes(const PlanInput& in) {
    FixedBytes f;
    if (in.draft.active()) f.draft.push_back(fixed_bytes(draft_input(in)));
    f.pc = count_params(in.model);
    for (int64_t il = 0; il < in.model.layers; ++il) {
        f.layer.push_back(layer_weight_bytes(in, f.pc, il));
        f.experts.push_back(il < in.n_cpu_moe ? llamacpp_layer_expert_bytes(in, il) : 0);
    }
    f.output = llamacpp_output_weight_bytes(in);
    f.embedding = llamacpp_embedding_weight_bytes(in);
    return f;
}

// place_llamacpp of a valid input with its fixed bytes.
Plan place(const PlanInput& in, const FixedBytes& fb, int64_t ngl, int64_t context) {
    Plan p;
    const ModelSpec& m = in.model;
    const int64_t L = m.layers;
    p.n_layer = L;
    p.context = context;
    const std::vector<GpuSlot> slots = gpu_slots(in);
    const size_t n_gpu = slots.size();
    p.ngl = n_gpu == 0 ? 0 : std::clamp<int64_t>(ngl, 0, L + 1);

    // Split points: cumulative, normalised (load_tensors).
    std::vector<double> splits(n_gpu);
    for (size_t i = 0; i < n_gpu; ++i) splits[i] = in.tensor_split.empty() ? slots[i].capacity : in.tensor_split[i];
    if (in.split_mode == SplitMode::None)  // one device: the main GPU (src/llama.cpp drops the others)
        for (size_t i = 0; i < n_gpu; ++i) splits[i] = static_cast<int64_t>(i) == in.main_gpu ? 1 : 0;
    double sum = 0;
    for (double x : splits) sum += x;
    p.split = splits;
    for (size_t i = 0; i < n_gpu; ++i) {
        p.split[i] = sum > 0 ? splits[i] / sum : 0;
    }
    double acc = 0;
    for (size_t i = 0; i < n_gpu; ++i) {
        acc += splits[i];
        splits[i] = sum > 0 ? acc / sum : 1;
    }

    const int64_t i_gpu_start = std::max<int64_t>(L + 1 - p.ngl, 0);
    const int64_t act = std::min<int64_t>(p.ngl, L + 1);
    // -1: the CPU; otherwise the GPU index of layer il (il == L: the output layer).
    auto device_of = [&](int64_t il) -> int {
        if (act == 0 || il < i_gpu_start || il - i_gpu_start >= act) return -1;
        const double frac = static_cast<double>(il - i_gpu_start) / static_cast<double>(act);
        const auto it = std::upper_bound(splits.begin(), splits.end(), frac);
        return static_cast<int>(std::min<std::ptrdiff_t>(it - splits.begin(), static_cast<std::ptrdiff_t>(n_gpu) - 1));
    };

    p.gpus.resize(n_gpu);
    for (size_t i = 0; i < n_gpu; ++i) {
        p.gpus[i].name = slots[i].name;
        p.gpus[i].capacity = slots[i].capacity;
        p.gpus[i].reserve = slots[i].reserve;
        p.gpus[i].layer_begin = p.gpus[i].layer_end = -1;
    }
    p.cpu.name = "CPU (system RAM)";
    p.cpu.layer_begin = p.cpu.layer_end = -1;

    const ParamCounts& pc = fb.pc;
    auto at = [&](int d) -> DevicePlan& { return d < 0 ? p.cpu : p.gpus[static_cast<size_t>(d)]; };
    // The window layers of an architecture llama.cpp runs with a sliding window hold n_swa + n_ubatch cells [llama-cpp-swa].
    const bool swa = llamacpp_uses_swa(m);
    const int64_t swa_cells = swa ? llamacpp_swa_cells(m.sliding_window, std::min(in.ubatch, context)) : 0;
    const SsmStateLayout ssm_layout = ssm_state_layout(llamacpp_options(in), m.ssm);
    for (int64_t il = 0; il < L; ++il) {
        DevicePlan& d = at(device_of(il));
        const double layer = fb.layer[static_cast<size_t>(il)];
        const double experts_on_cpu = device_of(il) >= 0 ? fb.experts[static_cast<size_t>(il)] : 0;  // --n-cpu-moe
        d.weights += layer - experts_on_cpu;
        p.cpu.weights += experts_on_cpu;
        (in.kv_offload ? d : p.cpu).kv += kv_sequence_bytes(m, in.kv, 1, il, il + 1, context, 1, swa, swa_cells);
        // A Mamba layer's recurrent state (one sequence) is its cache, on the same device as a KV cache would be.
        if (m.ssm.active()) (in.kv_offload ? d : p.cpu).kv += ssm_sequence_bytes(m, il, il + 1, ssm_layout);
        if (d.layer_begin < 0) d.layer_begin = il;
        d.layer_end = il + 1;
    }
    for (DevicePlan* d : {&p.cpu}) if (d->layer_begin < 0) d->layer_begin = d->layer_end = 0;
    for (DevicePlan& d : p.gpus) if (d.layer_begin < 0) d.layer_begin = d.layer_end = 0;
    DevicePlan& out = at(device_of(L));
    out.output = true;
    out.weights += fb.output;
    p.cpu.weights += fb.embedding;

    // --split-mode row: each 2-D matrix of an offloaded layer, and output.weight, leaves its layer's GPU
    // for the split buffer, every GPU taking its rows (planner.h).
    if (in.split_mode == SplitMode::Row && n_gpu > 0) {
        const RowSplit rs = row_split(slots, p.split);
        auto split_matrix = [&](int owner, const Tensor& t, GgmlType type) {
            const auto o = static_cast<size_t>(owner);
            if (rows_from(t.rows, rs, o + 1) == rows_from(t.rows, rs, o)) return;  // no rows for its GPU: stays whole there
            p.gpus[o].weights -= static_cast<double>(t.rows) * ggml_row_bytes(type, t.cols);
            p.gpus[o].split_owned_params += static_cast<double>(t.rows) * static_cast<double>(t.cols);
            for (size_t i = 0; i < n_gpu; ++i) {
                const int64_t rows = rows_from(t.rows, rs, i + 1) - rows_from(t.rows, rs, i);
                const double slice = split_slice_bytes(type, t.cols, rows);
                p.gpus[i].weights += slice;
                p.gpus[i].split_rows += slice;
                p.gpus[i].split_params += static_cast<double>(rows) * static_cast<double>(t.cols);
                p.gpus[o].split_buffer += slice;
                if (i != o && rows > 0) {
                    p.row_syncs += 1;
                    p.row_link_bytes += split_matmul_input_bytes(type, t.cols) + static_cast<double>(rows) * 4;
                }
            }
        };
        for (int64_t il = 0; il < L; ++il) {
            if (device_of(il) < 0) continue;
            for (const Tensor& t : layer_tensors(m, pc.per_layer.pattern().kind(il)))
                if (t.matrix() && t.count == 1) split_matrix(device_of(il), t, gguf_matrix_type(m, in.weights, t, il));
        }
        if (device_of(L) >= 0)
            for (Tensor t : model_tensors(m))  // output.weight: lm_head, or the tied embedding's duplicate
                if (t.kind == TensorKind::Head ? t.matrix() : (m.tied_embeddings && t.kind == TensorKind::Embedding && t.split == TensorSplit::Vocab)) {
                    t.kind = TensorKind::Head;
                    split_matrix(device_of(L), t, gguf_matrix_type(m, in.weights, t, L));
                }
    }

    // Compute buffers (runtime.h llamacpp_compute_bytes): the GPU holding the output plans the
    // logits; a GPU with only repeating layers peaks at attention or the MLP (no logits: vocab 0).
    // -nkvo: the attention of the offloaded layers runs on the CPU, so its peak is the host's. The plan is
    // today's llama.cpp: with flash attention the mask is an f16 input, no f32 copy cast on the GPU (PR #23764).
    ModelSpec no_logits = m;
    no_logits.vocab = 0;
    bool attention_moved = false;
    for (DevicePlan& d : p.gpus) {
        if (d.layer_end == d.layer_begin && !d.output) continue;
        d.compute = llamacpp_compute_bytes(d.output ? m : no_logits, context, in.ubatch, in.flash_attention, false, LlamaCppBackend::CUDA,
                                           in.kv_offload);
        attention_moved = attention_moved || d.layer_end > d.layer_begin;
    }
    if (!in.kv_offload && attention_moved) p.cpu.compute = llamacpp_attention_bytes(m, context, in.ubatch, in.flash_attention, false);

    // The vision projector: whole on the first GPU backend, or in RAM with --no-mmproj-offload or no GPU; its
    // encoder's compute buffer on the same backend, the image inputs in RAM (vision_encoder.h).
    DevicePlan& projector_device = in.mmproj_offload && n_gpu > 0 ? p.gpus[0] : p.cpu;
    projector_device.mmproj = in.mmproj_bytes;
    if (in.mmproj_bytes > 0 && in.mmproj_encoder.known()) {
        const ClipComputeBytes clip = clip_compute_bytes(in.mmproj_encoder, planned_image_side(in.mmproj_encoder, in.image_max_tokens),
                                                         in.flash_attention);
        projector_device.mmproj_compute += clip.device;
        p.cpu.mmproj_compute += clip.host;
    }

    // The draft model (-md): placed like the main model with its own -ngld and context, on the same tensor split; each
    // device adds the draft's weights, KV cache and compute buffer (its own context: planner.h PlanDraft).
    if (!fb.draft.empty()) {
        const PlanInput dinput = draft_input(in, p.split);
        p.draft_n_layer = dinput.model.layers;
        p.draft_context = draft_context(in, context);
        const Plan dp = place(dinput, fb.draft.front(), in.draft.ngl < 0 ? dinput.model.layers + 1 : in.draft.ngl, p.draft_context);
        p.draft_ngl = dp.ngl;
        auto take = [](DevicePlan& to, const DevicePlan& from) {
            to.draft_weights = from.weights;
            to.draft_kv = from.kv;
            to.draft_compute = from.compute;
        };
        for (size_t i = 0; i < n_gpu; ++i) take(p.gpus[i], dp.gpus[i]);
        take(p.cpu, dp.cpu);
    }

    double gpu_used = 0;
    for (const DevicePlan& d : p.gpus) gpu_used += d.total();
    p.cpu.capacity = in.apple_unified ? std::max(0.0, in.ram_bytes - gpu_used) : in.ram_bytes;
    p.fits = p.cpu.fits();
    for (const DevicePlan& d : p.gpus) p.fits = p.fits && d.fits();
    return p;
}

}  // namespace

Plan place_llamacpp(const PlanInput& in, int64_t ngl, int64_t context) {
    Plan p;
    p.error = validate_plan(in);
    if (!p.ok()) return p;
    return place(in, fixed_bytes(in), ngl, context);
}

namespace {

int64_t largest_context(const PlanInput& in, const FixedBytes& fb, int64_t ngl) {
    const int64_t step = 256;
    const int64_t cap = std::max({in.model.max_position, in.context, step});
    if (!place(in, fb, ngl, step).fits) return 0;
    int64_t lo = 1, hi = cap / step;  // in steps; lo fits
    if (place(in, fb, ngl, hi * step).fits) return hi * step;
    while (hi - lo > 1) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (place(in, fb, ngl, mid * step).fits) lo = mid;
        else hi = mid;
    }
    return lo * step;
}

std::string no_fit_advice(const PlanInput& in, const FixedBytes& fb, const Plan& best) {
    std::string out = "does not fit at -c " + std::to_string(in.context) + " even with every layer placed:";
    const int64_t ctx = largest_context(in, fb, best.ngl);
    if (ctx > 0) out += " a context of " + std::to_string(ctx) + " (--ctx " + std::to_string(ctx) + ") fits at -ngl " + std::to_string(best.ngl) + ";";
    static constexpr WeightFormat kSmaller[] = {WeightFormat::GGUF_Q8_0, WeightFormat::GGUF_Q6_K, WeightFormat::GGUF_Q5_K_M,
                                                WeightFormat::GGUF_Q4_K_M, WeightFormat::GGUF_Q3_K_M, WeightFormat::GGUF_Q2_K};
    const double current_bpw = linear_bits_per_weight(llamacpp_options(in), in.model.hidden);
    for (WeightFormat f : kSmaller) {
        PlanInput smaller = in;
        smaller.weights = f;
        smaller.ngl = -1;
        if (linear_bits_per_weight(llamacpp_options(smaller), in.model.hidden) >= current_bpw) continue;
        const Plan q = plan_llamacpp(smaller);
        if (q.fits) {
            out += std::string(" weights ") + weight_format(f).key + " fit (-ngl " + std::to_string(q.ngl) + ");";
            break;
        }
    }
    // Memory the GPUs can hand to system RAM at this -ngl: the projector, then every layer's KV cache.
    PlanInput moved = in;
    moved.ngl = best.ngl;
    if (in.mmproj_bytes > 0 && in.mmproj_offload && !best.gpus.empty()) {
        moved.mmproj_offload = false;
        if (plan_llamacpp(moved).fits) out += " the vision projector in RAM (--no-mmproj-offload) fits at -ngl " + std::to_string(best.ngl) + ";";
    }
    if (in.kv_offload && !best.gpus.empty()) {
        moved.kv_offload = false;
        if (plan_llamacpp(moved).fits)
            out += std::string(" the KV cache in RAM (--no-kv-offload") + (moved.mmproj_offload ? "" : " --no-mmproj-offload") + ") fits at -ngl " +
                   std::to_string(best.ngl) + ";";
    }
    if (in.draft.active()) {
        PlanInput no_draft = in;
        no_draft.draft = PlanDraft{};
        no_draft.ngl = -1;
        if (const Plan q = plan_llamacpp(no_draft); q.fits) out += " without the draft model (-md) it fits at -ngl " + std::to_string(q.ngl) + ";";
    }
    const double short_ram = best.cpu.total() - best.cpu.capacity;
    if (short_ram > 0)
        out += (out.back() == ':' ? " it needs " : " or ") + size_text(short_ram) + " more system RAM at -ngl " + std::to_string(best.ngl) + ";";
    if (!out.empty() && out.back() == ';') out.back() = '.';
    return out;
}

}  // namespace

Plan plan_llamacpp(const PlanInput& in) {
    Plan p;
    p.error = validate_plan(in);
    if (!p.ok()) return p;
    const FixedBytes fb = fixed_bytes(in);
    p = place(in, fb, in.ngl < 0 ? in.model.layers + 1 : in.ngl, in.context);
    const bool has_gpu = !p.gpus.empty();
    if (in.ngl < 0 && has_gpu) {
        // More layers on a GPU never lower a GPU's bytes, so the largest -ngl that fits is found
        // from the top down (at most n_layer + 2 placements).
        for (int64_t ngl = in.model.layers + 1; ngl >= 0; --ngl) {
            p = place(in, fb, ngl, in.context);
            if (p.fits) break;
        }
        if (!p.fits) {
            // The CPU is what overflows when few layers are offloaded: report the fullest offload.
            p = place(in, fb, in.model.layers + 1, in.context);
            for (int64_t ngl = in.model.layers + 1; ngl >= 0; --ngl) {
                const Plan q = place(in, fb, ngl, in.context);
                bool gpus_fit = true;
                for (const DevicePlan& d : q.gpus) gpus_fit = gpus_fit && d.fits();
                if (gpus_fit) { p = q; break; }
            }
        }
    }
    p.max_context = largest_context(in, fb, p.ngl);
    if (!p.fits) p.advice = no_fit_advice(in, fb, p);
    // An MoE model split by layers: the other way llama.cpp offers, every layer on the GPUs and the routed
    // experts of the first N layers in RAM (--n-cpu-moe) [llama-cpp-server-flags]. More layers' experts in RAM
    // never raise a GPU's bytes, so the smallest N that fits is found by bisection.
    const int64_t all = in.model.layers + 1;
    if (in.ngl < 0 && in.n_cpu_moe == 0 && in.model.moe.num_experts > 0 && has_gpu && p.fits && p.ngl < all) {
        PlanInput moe = in;
        moe.n_cpu_moe = in.model.layers;
        const FixedBytes every_layer = fixed_bytes(moe);  // each layer's expert bytes; a probe keeps the first n
        auto fits_with = [&](int64_t n) {
            moe.n_cpu_moe = n;
            FixedBytes f = every_layer;
            std::fill(f.experts.begin() + n, f.experts.end(), 0.0);
            return place(moe, f, all, in.context).fits;
        };
        if (fits_with(in.model.layers)) {
            int64_t bad = 0, good = in.model.layers;
            while (good - bad > 1) {
                const int64_t mid = bad + (good - bad) / 2;
                (fits_with(mid) ? good : bad) = mid;
            }
            p.moe_cpu_layers = good;
        }
    }
    return p;
}

}  // namespace vl
