// vLLM serving plan: tp / pp by vLLM's rules, the KV pool from the core's vLLM estimate, the longest
// --max-model-len that starts, and what to change when nothing does (serving.h says where each rule
// comes from).
#include "planner/serving.h"

#include <cmath>
#include <string_view>

#include "estimate.h"
#include "inference/kv_cache.h"
#include "inference/weight_formats.h"

namespace vl {

namespace {

std::string num(int64_t v) { return std::to_string(v); }

bool vllm_weights(WeightFormat w) {
    return w == WeightFormat::BF16 || w == WeightFormat::FP16 || w == WeightFormat::FP8 || w == WeightFormat::GPTQ4 ||
           w == WeightFormat::GPTQ8 || w == WeightFormat::AWQ4;
}

std::string validate_serving(const ServingPlanInput& in) {
    const ModelSpec& m = in.model;
    if (!m.architecture_known() || m.layers < 1)
        return "model: the planner needs the model's architecture (layers, heads, KV heads); give a preset id or a config.json";
    if (!vllm_weights(in.weights))
        return std::string("weights: vLLM serves bf16, fp16, fp8, gptq-4bit, gptq-8bit or awq-4bit weights here; ") + weight_format_name(in.weights) +
               " is not one of them (GGUF types: use --engine llama.cpp)";
    if (in.kv != KvDtype::BF16 && in.kv != KvDtype::FP16 && in.kv != KvDtype::FP8)
        return std::string("kv-cache-dtype: vLLM caches KV as auto (the model's 16-bit dtype) or fp8; got ") + kv_dtype_name(in.kv);
    if (in.gpus.empty()) return "gpu: give the GPUs vLLM runs on (repeat --gpu, one per GPU)";
    for (size_t i = 0; i < in.gpus.size(); ++i)
        if (!(in.gpus[i].memory_bytes > 0) || !std::isfinite(in.gpus[i].memory_bytes))
            return "gpu " + num(static_cast<int64_t>(i) + 1) + ": its memory must be a positive size";
    for (const PlanGpu& g : in.gpus)
        if (g.name != in.gpus.front().name || g.memory_bytes != in.gpus.front().memory_bytes)
            return "gpu: vLLM needs equal GPUs; got " + in.gpus.front().name + " and " + g.name +
                   ". Tensor parallelism splits every layer evenly and vLLM sizes one KV pool for all workers from the "
                   "smallest (num_gpu_blocks = min over workers), so a mixed set runs as copies of its smallest GPU; "
                   "give one kind of GPU (repeat the same --gpu), or use --engine llama.cpp, which splits layers unevenly";
    if (!(in.gpu_memory_utilization > 0 && in.gpu_memory_utilization <= 1))
        return "gpu-memory-utilization: must be in (0, 1], e.g. 0.9; got " + std::to_string(in.gpu_memory_utilization);
    if (in.max_num_seqs < 1) return "max-num-seqs: must be at least 1; got " + num(in.max_num_seqs);
    if (in.max_model_len == 0 && m.max_position < 1)
        return "max-model-len: the model gives no max_position_embeddings; give --max-model-len";
    if (in.max_model_len < 0) return "max-model-len: must be at least 1 token; got " + num(in.max_model_len);
    if (in.max_model_len > m.max_position)
        return "max-model-len: " + num(in.max_model_len) + " is above the model's max_position_embeddings (" + num(m.max_position) +
               "), which vLLM refuses; give --max-model-len " + num(m.max_position) + " or less";
    if (in.tp < 0 || in.pp < 0) return "tp/pp: the parallel sizes must be >= 1 (or left out to be chosen)";
    return {};
}

// tp and pp: as given (checked), or the largest tp vLLM accepts with pp = GPUs / tp, tensor parallel
// first as vLLM's distributed-serving guide advises [vllm-distributed].
std::string choose_parallel(const ServingPlanInput& in, ServingPlan& p) {
    const int64_t g = static_cast<int64_t>(in.gpus.size());
    const int64_t layers = in.model.layers;
    auto check = [&](int64_t tp, int64_t pp) -> std::string {
        if (tp * pp != g)
            return "tp/pp: tensor_parallel_size * pipeline_parallel_size must equal the GPUs given (" + num(g) + "); got " + num(tp) + " * " + num(pp);
        if (std::string why = vllm_tp_rule(in.model, tp); !why.empty()) return why;
        if (pp > layers) return "pp: " + num(pp) + " pipeline stages exceed num_hidden_layers (" + num(layers) + ")";
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
    std::string first_refusal;  // vllm_tp_rule's message for tp = GPUs ("tp: ...")
    for (int64_t tp = g; tp >= 1; --tp) {
        if (g % tp != 0) continue;
        const std::string why = check(tp, g / tp);
        if (why.empty()) {
            p.tp = tp;
            p.pp = g / tp;
            p.parallel_reason = g == 1 ? "one GPU"
                                : tp == g ? "tensor parallel over every GPU"
                                          : "tp " + num(g) + " refused: " + first_refusal.substr(4) + "; the largest tp vLLM accepts is " + num(tp) +
                                                ", with pp " + num(g / tp) + " so that tp * pp = " + num(g);
            return {};
        }
        if (first_refusal.empty()) first_refusal = why;
    }
    return first_refusal;
}

double component_bytes(const Estimate& e, std::string_view prefix) {
    double b = 0;
    for (const Component& c : e.components)
        if (std::string_view(c.id).substr(0, prefix.size()) == prefix) b += c.bytes;
    return b;
}

// The estimate for one tp / pp and length: the core's vLLM model (estimate_vllm).
ServingPlan place(const ServingPlanInput& in, const ServingPlan& chosen, int64_t len) {
    ServingPlan p = chosen;
    p.max_model_len = len;
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
    s.gpu.name = in.gpus.front().name;
    s.gpu.memory_bytes = in.gpus.front().memory_bytes;
    s.parallel.tp = p.tp;
    s.parallel.pp = p.pp;
    s.gpu_count = p.tp * p.pp;
    const Estimate e = estimate(s, Detail::NumbersOnly);
    if (!e.ok()) {
        p.error = e.errors.front().field + ": " + e.errors.front().message;
        return p;
    }
    p.capacity = e.gpu_capacity_bytes;
    p.weights = component_bytes(e, "weights");
    p.non_torch = component_bytes(e, "engine.non_torch");
    p.activation = component_bytes(e, "act.profile_peak");
    p.kv_bytes_per_token = e.kv.bytes_per_token;
    p.kv_pool = e.kv.pool_bytes;
    p.block_size = e.kv.block_size;
    p.blocks = e.kv.blocks;
    p.tokens = e.kv.tokens;
    p.sequences = e.kv.sequences;
    p.kv_pool_total = e.kv.pool_bytes * static_cast<double>(p.tp * p.pp);
    // vLLM refuses to start when one sequence of max_model_len does not fit in the pool [vllm-code].
    p.fits = p.tokens >= len;
    return p;
}

// The longest length whose own plan starts: the pool shrinks as the length grows (the profile run
// pushes max(len, 2048) tokens), so the predicate "tokens(len) >= len" is monotone.
int64_t largest_len(const ServingPlanInput& in, const ServingPlan& chosen) {
    const int64_t cap = in.model.max_position;
    if (place(in, chosen, cap).fits) return cap;
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

// What would make a plan that does not start, each change on its own: a shorter --max-model-len,
// a higher utilization, an fp8 KV cache, a quantized format, more GPUs of the same kind.
std::string no_fit_advice(const ServingPlanInput& in, const ServingPlan& p) {
    std::string out = "vLLM would not start: one sequence of --max-model-len " + num(p.max_model_len) + " needs " + num(p.max_model_len) +
                      " tokens of KV pool, the pool holds " + num(p.tokens) + ". What would fit:";
    const size_t base = out.size();
    if (p.largest_max_model_len > 0) out += " --max-model-len " + num(p.largest_max_model_len) + " (the longest that fits);";
    ServingPlanInput free_tp = in;
    free_tp.tp = free_tp.pp = 0;
    if (in.gpu_memory_utilization < 0.95) {
        ServingPlanInput u = in;
        u.gpu_memory_utilization = 0.95;
        if (const ServingPlan q = plan(u); q.ok() && q.fits) out += " --gpu-memory-utilization 0.95;";
    }
    if (in.kv != KvDtype::FP8) {
        ServingPlanInput k = in;
        k.kv = KvDtype::FP8;
        if (const ServingPlan q = plan(k); q.ok() && q.fits) out += " --kv-cache-dtype fp8;";
    }
    for (WeightFormat f : {WeightFormat::FP8, WeightFormat::AWQ4}) {
        if (linear_bits_per_weight(InferenceOptions{.weights = f}, in.model.hidden) >=
            linear_bits_per_weight(InferenceOptions{.weights = in.weights}, in.model.hidden))
            continue;
        ServingPlanInput w = in;
        w.weights = f;
        if (const ServingPlan q = plan(w); q.ok() && q.fits) {
            out += std::string(" weights ") + weight_format(f).key + ";";
            break;
        }
    }
    for (size_t n = in.gpus.size() * 2; n <= 64; n *= 2) {
        ServingPlanInput more = free_tp;
        more.gpus.assign(n, in.gpus.front());
        if (const ServingPlan q = plan(more); q.ok() && q.fits) {
            out += " " + num(static_cast<int64_t>(n)) + " x " + in.gpus.front().name + " (tp " + num(q.tp) + ", pp " + num(q.pp) + ");";
            break;
        }
    }
    if (out.size() == base) out += " nothing tried here (shorter length, 0.95 utilization, fp8 KV, fp8/awq4 weights, up to 64 GPUs);";
    out.back() = '.';
    return out;
}

}  // namespace

std::string vllm_tp_rule(const ModelSpec& m, int64_t tp) {
    if (tp < 1) return "tp: the tensor-parallel size must be at least 1";
    if (m.heads % tp != 0)
        return "tp: vLLM needs num_attention_heads (" + num(m.heads) + ") divisible by the tensor-parallel size (" + num(tp) + ")";
    if (m.attention == AttentionKind::MLA || m.kv_heads < 1) return {};
    if (tp < m.kv_heads && m.kv_heads % tp != 0)
        return "tp: vLLM needs num_key_value_heads (" + num(m.kv_heads) + ") divisible by the tensor-parallel size (" + num(tp) + ")";
    if (tp >= m.kv_heads && tp % m.kv_heads != 0)
        return "tp: with more ranks than KV heads vLLM replicates each KV head, so the tensor-parallel size (" + num(tp) +
               ") must be a multiple of num_key_value_heads (" + num(m.kv_heads) + ")";
    return {};
}

ServingPlan plan_vllm(const ServingPlanInput& in) {
    ServingPlan p = plan(in);
    if (p.ok() && !p.fits) p.advice = no_fit_advice(in, p);
    return p;
}

std::string vllm_launch_line(const ServingPlanInput& in, const ServingPlan& p, const std::string& model_id) {
    std::string s = "vllm serve " + model_id + " --tensor-parallel-size " + num(p.tp);
    if (p.pp > 1) s += " --pipeline-parallel-size " + num(p.pp);
    s += " --max-model-len " + num(p.max_model_len) + " --gpu-memory-utilization " + fmt_util(in.gpu_memory_utilization);
    if (in.weights == WeightFormat::FP16) s += " --dtype float16";
    if (in.weights == WeightFormat::FP8) s += " --quantization fp8";
    if (in.weights == WeightFormat::GPTQ4 || in.weights == WeightFormat::GPTQ8) s += " --quantization gptq";
    if (in.weights == WeightFormat::AWQ4) s += " --quantization awq";
    if (in.kv == KvDtype::FP8) s += " --kv-cache-dtype fp8";
    if (in.max_num_seqs != 256) s += " --max-num-seqs " + num(in.max_num_seqs);
    return s;
}

}  // namespace vl
