// Serving plans for vLLM and SGLang: tp / pp by the engines' rules, vLLM's KV pool from the core's
// vLLM estimate and SGLang's from its mem_fraction_static rule, the longest length that fits, and
// what to change when nothing does (serving.h says where each rule comes from).
#include "planner/serving.h"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "cuda_context.h"
#include "estimate.h"
#include "inference/kv_cache.h"
#include "inference/runtime.h"
#include "inference/vllm_budget.h"
#include "inference/weight_formats.h"

namespace vl {

bool served_weights(WeightFormat w) {
    return w == WeightFormat::BF16 || w == WeightFormat::FP16 || w == WeightFormat::FP8 || w == WeightFormat::GPTQ4 ||
           w == WeightFormat::GPTQ8 || w == WeightFormat::AWQ4;
}

namespace {

std::string num(int64_t v) { return std::to_string(v); }

// The engine's own names of the flags a message or a launch line mentions.
struct EngineFlags {
    const char* len;   // the maximum length of a sequence
    const char* util;  // the fraction of GPU memory it may take
    const char* seqs;  // the most sequences at once
};
EngineFlags flags_of(ServingEngine e) {
    if (e == ServingEngine::SGLang) return {"--context-length", "--mem-fraction-static", "--max-running-requests"};
    return {"--max-model-len", "--gpu-memory-utilization", "--max-num-seqs"};
}


std::string validate_serving(const ServingPlanInput& in) {
    const ModelSpec& m = in.model;
    const std::string engine = serving_engine_name(in.engine);
    const EngineFlags f = flags_of(in.engine);
    const std::string len = f.len + 2, util = f.util + 2, seqs = f.seqs + 2;  // field names: the flags less "--"
    if (!m.architecture_known() || m.layers < 1)
        return "model: the planner needs the model's architecture (layers, heads, KV heads); give a preset id or a config.json";
    if (m.ssm.active())  // tp/pp choice and the pool with the Mamba cache are not planned (the estimate sizes vLLM v0.6)
        return "model: " + m.model_type + " is a state-space model (Mamba layers): the serving planner does not place its Mamba state with " + engine +
               " yet; size it with `vramlens estimate --mode infer --engine vllm` (vLLM v0.6's Mamba cache) or --engine llama.cpp";
    if (!served_weights(in.weights))
        return "weights: " + engine + " serves bf16, fp16, fp8, gptq-4bit, gptq-8bit or awq-4bit weights here; " + weight_format_name(in.weights) +
               " is not one of them (GGUF types: use --engine llama.cpp)";
    if (in.kv != KvDtype::BF16 && in.kv != KvDtype::FP16 && in.kv != KvDtype::FP8)
        return "kv-cache-dtype: " + engine + " caches KV as auto (the model's 16-bit dtype) or fp8; got " + kv_dtype_name(in.kv);
    if (in.gpus.empty()) return "gpu: give the GPUs " + engine + " runs on (repeat --gpu, one per GPU)";
    for (size_t i = 0; i < in.gpus.size(); ++i)
        if (!(in.gpus[i].memory_bytes > 0) || !std::isfinite(in.gpus[i].memory_bytes))
            return "gpu " + num(static_cast<int64_t>(i) + 1) + ": its memory must be a positive size";
    for (const PlanGpu& g : in.gpus)
        if (g.name != in.gpus.front().name || g.memory_bytes != in.gpus.front().memory_bytes)
            return "gpu: " + engine + " needs equal GPUs; got " + in.gpus.front().name + " and " + g.name +
                   ". Tensor parallelism splits every layer evenly and " + engine + " sizes one KV pool for all ranks from the "
                   "smallest (vLLM: num_gpu_blocks = min over workers; SGLang: the free memory's min over ranks), so a mixed set runs "
                   "as copies of its smallest GPU; give one kind of GPU (repeat the same --gpu), or use --engine llama.cpp, which "
                   "splits layers unevenly";
    if (!(in.gpu_memory_utilization > 0 && in.gpu_memory_utilization <= 1))
        return util + ": must be in (0, 1], e.g. 0.9; got " + std::to_string(in.gpu_memory_utilization);
    if (in.max_num_seqs < 0) return seqs + ": must be 0 (the engine's default) or at least 1; got " + num(in.max_num_seqs);
    if (in.max_model_len == 0 && m.max_position < 1) return len + ": the model gives no max_position_embeddings; give " + f.len;
    if (in.max_model_len < 0) return len + ": must be at least 1 token; got " + num(in.max_model_len);
    if (in.max_model_len > m.max_position)
        return len + ": " + num(in.max_model_len) + " is above the model's max_position_embeddings (" + num(m.max_position) + "), which " +
               engine + " refuses; give " + f.len + " " + num(m.max_position) + " or less";
    if (in.tp < 0 || in.pp < 0) return "tp/pp: the parallel sizes must be >= 1 (or left out to be chosen)";
    if (in.engine == ServingEngine::SGLang && in.pp > 1)
        return "pp: SGLang is planned with tensor parallelism over every GPU only; leave out --pp";
    return {};
}

// tp and pp: as given (checked), or the largest tp the engine accepts with pp = GPUs / tp, tensor
// parallel first as vLLM's distributed-serving guide advises [vllm-distributed]; SGLang: tp = GPUs.
std::string choose_parallel(const ServingPlanInput& in, ServingPlan& p) {
    const int64_t g = static_cast<int64_t>(in.gpus.size());
    const int64_t layers = in.model.layers;
    auto check = [&](int64_t tp, int64_t pp) -> std::string {
        if (tp * pp != g)
            return "tp/pp: tensor_parallel_size * pipeline_parallel_size must equal the GPUs given (" + num(g) + "); got " + num(tp) + " * " + num(pp);
        if (std::string why = tp_rule(in.model, tp, in.engine); !why.empty()) return why;
        if (pp > layers) return "pp: " + num(pp) + " pipeline stages exceed num_hidden_layers (" + num(layers) + ")";
        if (in.engine == ServingEngine::SGLang && pp > 1)
            return "tp: SGLang is planned with tensor parallelism over every GPU: tp must be " + num(g) + "; got " + num(tp);
        return {};
    };
    if (in.tp > 0 || in.pp > 0) {
        p.tp = in.tp > 0 ? in.tp : (g % in.pp == 0 ? g / in.pp : 0);
        p.pp = in.pp > 0 ? in.pp : (g % in.tp == 0 ? g / in.tp : 0);
        if (p.tp == 0 || p.pp == 0)
            return "tp/pp: " + num(in.tp > 0 ? in.tp : in.pp) + " does not divide the " + num(g) + " GPUs given";
        p.parallel_reason = "as given";
        return check(p.tp, p.pp);
    }
    std::string first_refusal;  // tp_rule's message for tp = GPUs ("tp: ...")
    for (int64_t tp = g; tp >= 1; --tp) {
        if (g % tp != 0) continue;
        const std::string why = check(tp, g / tp);
        if (why.empty()) {
            p.tp = tp;
            p.pp = g / tp;
            p.parallel_reason = g == 1 ? "one GPU"
                                : tp == g ? "tensor parallel over every GPU"
                                          : "tp " + num(g) + " refused: " + first_refusal.substr(4) + "; the largest tp " + serving_engine_name(in.engine) +
                                                " accepts is " + num(tp) + ", with pp " + num(g / tp) + " so that tp * pp = " + num(g);
            return {};
        }
        if (first_refusal.empty()) first_refusal = why;
        if (in.engine == ServingEngine::SGLang)  // no pipeline stages to fall back on
            return first_refusal + "; give a number of GPUs that divides the heads";
    }
    return first_refusal;
}

// The core's vLLM estimate for one tp / pp and length (estimate_vllm). Its weights and KV bytes per
// token are also SGLang's: both load the same checkpoints into the same tensor-parallel layers.
Estimate vllm_estimate(const ServingPlanInput& in, const ServingPlan& p, int64_t len) {
    Scenario s;
    s.mode = Mode::Infer;
    s.model = in.model;
    s.infer.engine = Engine::VLLM;
    s.infer.weights = in.weights;
    s.infer.kv_dtype = in.kv;
    s.infer.context = len;
    s.infer.batch = 1;
    s.infer.gpu_memory_utilization = in.gpu_memory_utilization;
    s.infer.max_num_seqs = in.max_num_seqs;
    s.infer.vllm_version = in.vllm_version;
    s.infer.engine_overhead_bytes = in.engine_overhead_bytes;
    s.gpu.name = in.gpus.front().name;
    s.gpu.memory_bytes = in.gpus.front().memory_bytes;
    s.gpu.cuda_total_bytes = in.gpus.front().memory_bytes;  // PlanGpu holds the CUDA-visible total
    s.parallel.tp = p.tp;
    s.parallel.pp = p.pp;
    s.gpu_count = p.tp * p.pp;
    return estimate(s, Detail::NumbersOnly);
}

// SGLang's pool (serving.h): free_before_load = GPU memory - the CUDA context (core/cuda_context.h,
// the GPU's row) - at tp > 1 the NCCL and custom all-reduce buffers, which SGLang sets up in
// init_torch_distributed before it takes the snapshot: 1.79 GiB, the difference between the tp 2 and tp 1
// non-torch memory of PR #10511's draft log [vllm-pr10511], which reproduces SGLang's 367404 tokens on four
// H100s to 1 % [vllm-issue-21348] (vLLM's own logs give less per GPU: vllm_budget.h);
// max_total_num_tokens = floor((free_before_load * mem_fraction_static - weights) / cell_size) [sglang-code].
constexpr double kSglangCommBuffersBytes = 1.79 * 1024 * 1024 * 1024;

void sglang_pool(const ServingPlanInput& in, ServingPlan& p) {
    const PlanGpu& g = in.gpus.front();
    const double mfs = in.gpu_memory_utilization;
    p.non_torch = (g.reserve_bytes >= 0 ? g.reserve_bytes : cuda_context_row(gpu_arch(g.name), true).bytes) +
                  (p.tp > 1 ? kSglangCommBuffersBytes : 0.0);
    const double free_before = std::max(0.0, g.memory_bytes - p.non_torch);
    p.capacity = free_before * mfs;
    p.activation = free_before * (1 - mfs);
    const double rest = p.capacity - p.weights;
    p.block_size = 1;  // page_size 1: the pool is counted in tokens
    p.blocks = rest > 0 && p.kv_bytes_per_token > 0 ? static_cast<int64_t>(std::floor(rest / p.kv_bytes_per_token)) : 0;
    p.tokens = p.blocks;
    p.kv_pool = static_cast<double>(p.tokens) * p.kv_bytes_per_token;
    p.sequences = p.max_model_len > 0 ? p.tokens / p.max_model_len : 0;
}

// The plan for one tp / pp and length.
ServingPlan place(const ServingPlanInput& in, const ServingPlan& chosen, int64_t len) {
    ServingPlan p = chosen;
    p.max_model_len = len;
    const Estimate e = vllm_estimate(in, p, len);
    if (!e.ok()) {
        p.error = e.errors.front().field + ": " + e.errors.front().message;
        return p;
    }
    p.weights = group_bytes(e, "weights");
    p.kv_bytes_per_token = e.kv.bytes_per_token;
    if (in.engine == ServingEngine::SGLang) {
        sglang_pool(in, p);
    } else {
        p.capacity = in.gpu_memory_utilization * in.gpus.front().memory_bytes;  // the budget; the context lies beside it
        p.non_torch = group_bytes(e, "engine.non_torch");
        p.activation = group_bytes(e, "act.profile_peak");
        p.kv_pool = e.kv.pool_bytes;
        p.block_size = e.kv.block_size;
        p.blocks = e.kv.blocks;
        p.tokens = e.kv.tokens;
        p.sequences = e.kv.sequences;
    }
    p.max_num_seqs = in.max_num_seqs > 0 || in.engine == ServingEngine::SGLang
                         ? in.max_num_seqs
                         : vllm_max_num_seqs(InferenceOptions{}, parse_vllm_version(in.vllm_version).value_or(VllmRelease{}),
                                             in.gpus.front().memory_bytes, in.gpus.front().name);
    p.concurrent = p.max_num_seqs > 0 ? std::min(p.sequences, p.max_num_seqs) : p.sequences;
    p.kv_pool_total = p.kv_pool * static_cast<double>(p.tp * p.pp);
    // vLLM refuses to start when one sequence of max_model_len does not fit in the pool [vllm-code];
    // SGLang starts but cuts every request to the pool (max_req_len) [sglang-code].
    // SGLang also needs max_req_input_len = min(len, tokens) - 1 - 5 > 0 to start.
    // vLLM also refuses when the free memory at start-up (the GPU less the CUDA context and, from 0.11, the NCCL
    // buffers beside its budget) is below gpu_memory_utilization x the GPU [vllm-budget].
    const bool starts = in.engine == ServingEngine::SGLang ||
                        p.capacity + group_bytes(e, "cuda_context") + group_bytes(e, "engine.nccl") <= in.gpus.front().memory_bytes;
    p.fits = starts && p.tokens >= len && (in.engine != ServingEngine::SGLang || std::min(len, p.tokens) > 6);
    return p;
}

// The longest length whose own plan fits. vLLM's pool shrinks as the length grows (the profile run
// pushes max(len, 2048) tokens), so "tokens(len) >= len" is monotone; SGLang's pool does not depend
// on the length at all.
int64_t largest_len(const ServingPlanInput& in, const ServingPlan& chosen) {
    const int64_t cap = in.model.max_position;
    const ServingPlan at_cap = place(in, chosen, cap);
    if (at_cap.fits) return cap;
    if (in.engine == ServingEngine::SGLang) return at_cap.tokens > 6 ? at_cap.tokens : 0;  // the pool, whatever the length
    if (!place(in, chosen, 1).fits) return 0;
    int64_t lo = 1, hi = cap;  // lo fits, hi does not
    while (hi - lo > 1) {
        const int64_t mid = lo + (hi - lo) / 2;
        (place(in, chosen, mid).fits ? lo : hi) = mid;
    }
    return lo;
}

ServingPlan plan(const ServingPlanInput& in) {
    ServingPlan p;
    p.error = validate_serving(in);
    if (!p.ok()) return p;
    p.error = choose_parallel(in, p);
    if (!p.ok()) return p;
    const int64_t len = in.max_model_len > 0 ? in.max_model_len : in.model.max_position;
    p = place(in, p, len);
    if (!p.ok()) return p;
    p.largest_max_model_len = p.fits ? len : largest_len(in, p);
    return p;
}

std::string fmt_util(double u) {
    std::string s = std::to_string(u);
    while (s.size() > 1 && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
}

// What would make a plan fit, each change on its own: a shorter length, a higher memory fraction,
// an fp8 KV cache, a quantized format, more GPUs of the same kind.
std::string no_fit_advice(const ServingPlanInput& in, const ServingPlan& p) {
    const EngineFlags f = flags_of(in.engine);
    std::string out = in.engine == ServingEngine::SGLang
                          ? "SGLang would cut every request to " + num(std::max<int64_t>(p.tokens - 1, 0)) + " tokens: " + f.len + " " +
                                num(p.max_model_len) + " needs a pool of " + num(p.max_model_len) + " tokens, it holds " + num(p.tokens) +
                                (p.tokens < 7 ? " (too few to start: \"Memory pool size is too small\")" : "") + ". What would fit:"
                          : p.tokens >= p.max_model_len
                                ? "vLLM would not start: " + std::string(f.util) + " " + fmt_util(in.gpu_memory_utilization) +
                                      " leaves too little beside its budget for the CUDA context (\"Free memory on device ... is less than "
                                      "desired GPU memory utilization\"). What would fit:"
                                : "vLLM would not start: one sequence of " + std::string(f.len) + " " + num(p.max_model_len) + " needs " +
                                      num(p.max_model_len) + " tokens of KV pool, the pool holds " + num(p.tokens) + ". What would fit:";
    const size_t base = out.size();
    if (p.largest_max_model_len > 0) ((((out += ' ') += f.len) += ' ') += num(p.largest_max_model_len)) += " (the longest that fits);";
    if (in.engine != ServingEngine::SGLang && p.tokens >= p.max_model_len && in.gpu_memory_utilization > 0.9) {
        ServingPlanInput u = in;
        u.gpu_memory_utilization = 0.9;
        if (const ServingPlan q = plan(u); q.ok() && q.fits) ((out += ' ') += f.util) += " 0.9;";
    }
    if (in.gpu_memory_utilization < 0.95) {
        ServingPlanInput u = in;
        u.gpu_memory_utilization = 0.95;
        if (const ServingPlan q = plan(u); q.ok() && q.fits) ((out += ' ') += f.util) += " 0.95;";
    }
    if (in.kv != KvDtype::FP8) {
        ServingPlanInput k = in;
        k.kv = KvDtype::FP8;
        if (const ServingPlan q = plan(k); q.ok() && q.fits) out += " --kv-cache-dtype fp8;";
    }
    for (WeightFormat w : {WeightFormat::FP8, WeightFormat::AWQ4}) {
        if (linear_bits_per_weight(InferenceOptions{.weights = w}, in.model.hidden) >=
            linear_bits_per_weight(InferenceOptions{.weights = in.weights}, in.model.hidden))
            continue;
        ServingPlanInput q_in = in;
        q_in.weights = w;
        if (const ServingPlan q = plan(q_in); q.ok() && q.fits) {
            out += std::string(" weights ") + weight_format(w).key + ";";
            break;
        }
    }
    for (size_t n = in.gpus.size() * 2; n <= 64; n *= 2) {
        ServingPlanInput more = in;
        more.tp = more.pp = 0;
        more.gpus.assign(n, in.gpus.front());
        if (const ServingPlan q = plan(more); q.ok() && q.fits) {
            out += " " + num(static_cast<int64_t>(n)) + " x " + in.gpus.front().name + " (tp " + num(q.tp) + ", pp " + num(q.pp) + ");";
            break;
        }
    }
    if (out.size() == base) out += " none of the changes tried fits on its own (a shorter length, a 0.95 memory fraction, fp8 KV, fp8 or awq weights, up to 64 such GPUs);";
    out.back() = '.';
    return out;
}

}  // namespace

const char* serving_engine_name(ServingEngine e) { return e == ServingEngine::SGLang ? "SGLang" : "vLLM"; }

std::string tp_rule(const ModelSpec& m, int64_t tp, ServingEngine e) {
    const std::string engine = serving_engine_name(e);
    if (tp < 1) return "tp: the tensor-parallel size must be at least 1";
    if (m.heads % tp != 0)
        return "tp: " + engine + " needs num_attention_heads (" + num(m.heads) + ") divisible by the tensor-parallel size (" + num(tp) + ")";
    if (m.attention == AttentionKind::MLA || m.kv_heads < 1) return {};
    if (tp < m.kv_heads && m.kv_heads % tp != 0)
        return "tp: " + engine + " needs num_key_value_heads (" + num(m.kv_heads) + ") divisible by the tensor-parallel size (" + num(tp) + ")";
    if (tp >= m.kv_heads && tp % m.kv_heads != 0)
        return "tp: with more ranks than KV heads " + engine + " replicates each KV head, so the tensor-parallel size (" + num(tp) +
               ") must be a multiple of num_key_value_heads (" + num(m.kv_heads) + ")";
    return {};
}

ServingPlan plan_serving(const ServingPlanInput& in) {
    ServingPlan p = plan(in);
    if (p.ok() && !p.fits) p.advice = no_fit_advice(in, p);
    return p;
}

std::string serving_launch_line(const ServingPlanInput& in, const ServingPlan& p, const std::string& model_id) {
    const bool sglang = in.engine == ServingEngine::SGLang;
    const EngineFlags f = flags_of(in.engine);
    std::string s = sglang ? "python -m sglang.launch_server --model-path " + model_id + " --tp " + num(p.tp)
                           : "vllm serve " + model_id + " --tensor-parallel-size " + num(p.tp);
    if (p.pp > 1) s += " --pipeline-parallel-size " + num(p.pp);
    ((((s += ' ') += f.len) += ' ') += num(p.max_model_len));
    ((((s += ' ') += f.util) += ' ') += fmt_util(in.gpu_memory_utilization));
    if (in.weights == WeightFormat::FP16) s += " --dtype float16";
    if (in.weights == WeightFormat::FP8) s += " --quantization fp8";
    if (in.weights == WeightFormat::GPTQ4 || in.weights == WeightFormat::GPTQ8) s += " --quantization gptq";
    if (in.weights == WeightFormat::AWQ4) s += " --quantization awq";
    if (in.kv == KvDtype::FP8) s += sglang ? " --kv-cache-dtype fp8_e4m3" : " --kv-cache-dtype fp8";
    if (in.max_num_seqs > 0) ((((s += ' ') += f.seqs) += ' ') += num(in.max_num_seqs));
    return s;
}

}  // namespace vl
