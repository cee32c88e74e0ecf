// generate() replayed through the caching allocator model (generate_replay.h).
#include "inference/generate_replay.h"

#include <algorithm>
#include <vector>

#include "caching_allocator.h"
#include "inference/runtime.h"
#include "parallel.h"

namespace vl {

namespace {

constexpr double kAct = 2;   // 16-bit activations
constexpr double kFp32 = 4;

// One forward of the decoder layers over T = batch x q tokens with S cached tokens after the update, in
// the order the modules allocate [transformers-code] (modeling_llama / qwen3 / gpt2 and their kin):
// the pre-norm (RMSNorm: hidden.to(float32), hidden * rsqrt(variance), then weight * hidden.to(dtype)),
// q/k/v projections (Qwen3, Gemma 3: an RMSNorm per head on q and k), RoPE's q * cos + rotate_half(q) * sin,
// DynamicLayer.update's torch.cat for K and V, attention (SDPA: its output; eager: scores, + mask, an
// fp32 softmax and its cast back), the transpose-reshape copy, o_proj, the residual, the MLP's
// intermediates, down_proj and the second residual.
struct Forward {
    CachingAllocatorModel& a;
    const ModelSpec& m;
    std::vector<int64_t>& cache;  // the K and V of each layer
    double b = 1, h = 0, hq = 0, hk = 0, f = 0, heads = 0;  // per token: bytes of hidden, q, k (one of K/V), MLP width
    bool eager = false;
    bool fp32_softmax = true;

    int64_t norm(double T) {
        if (m.norm != NormKind::RMSNorm) return a.allocate(T * h);
        const int64_t up = a.allocate(T * h / kAct * kFp32), scaled = a.allocate(T * h / kAct * kFp32);
        a.release(up);
        const int64_t out = a.allocate(T * h);
        a.release(scaled);
        return out;
    }
    int64_t replace(int64_t x, double bytes, double temp_bytes) {  // a temporary, then the result that replaces x
        const int64_t t = a.allocate(temp_bytes);
        const int64_t y = a.allocate(bytes);
        a.release(t);
        a.release(x);
        return y;
    }
    int64_t rope(int64_t x, double bytes) {
        const int64_t r1 = a.allocate(bytes), r2 = a.allocate(bytes), out = a.allocate(bytes);
        a.release(r1);
        a.release(r2);
        a.release(x);
        return out;
    }
    int64_t layer(int64_t hid, int layer_index, double q_tokens, double S) {
        const double T = b * q_tokens;
        const int64_t x = norm(T);
        int64_t q = a.allocate(T * hq), k = a.allocate(T * hk), v = a.allocate(T * hk);
        a.release(x);
        if (m.qk_norm) {
            q = replace(q, T * hq, T * hq / kAct * kFp32);
            k = replace(k, T * hk, T * hk / kAct * kFp32);
        }
        if (m.position == PositionKind::Rotary) {
            q = rope(q, T * hq);
            k = rope(k, T * hk);
        }
        for (int j = 0; j < 2; ++j) {
            int64_t& held = cache[2 * layer_index + j];
            const int64_t grown = a.allocate(b * S * hk);
            a.release(held);
            held = grown;
            a.release(j == 0 ? k : v);
        }
        int64_t o = 0;
        if (eager) {  // q k^T, its scaling, the mask (GPT-2: torch.where), the softmax
            const double scores = b * heads * q_tokens * S * kAct;
            int64_t w = a.allocate(scores);
            for (int op = 0; op < 2; ++op) w = replace(w, scores, 0);
            if (fp32_softmax) {  // softmax(dim=-1, dtype=torch.float32).to(query.dtype)
                const int64_t p32 = a.allocate(scores / kAct * kFp32);
                const int64_t p16 = a.allocate(scores);
                a.release(w);
                a.release(p32);
                w = p16;
            } else {
                w = replace(w, scores, 0);
            }
            o = a.allocate(T * hq);
            a.release(w);
        } else {
            o = a.allocate(T * hq);
        }
        a.release(q);
        const int64_t flat = a.allocate(T * hq);
        a.release(o);
        const int64_t proj = a.allocate(T * h);
        a.release(flat);
        int64_t r = a.allocate(T * h);
        a.release(hid);
        a.release(proj);
        hid = r;
        const int64_t x2 = norm(T);
        int64_t mid = 0;
        if (m.gated_mlp) {  // down(act(gate(x)) * up(x))
            const int64_t g = a.allocate(T * f), u = a.allocate(T * f), ag = a.allocate(T * f);
            a.release(g);
            mid = a.allocate(T * f);
            a.release(ag);
            a.release(u);
        } else {  // act(fc(x)), the activation's temporaries (gelu_new: a few f-wide ones)
            const int64_t u = a.allocate(T * f), t1 = a.allocate(T * f), t2 = a.allocate(T * f);
            a.release(t1);
            mid = a.allocate(T * f);
            a.release(t2);
            a.release(u);
        }
        a.release(x2);
        const int64_t down = a.allocate(T * h);
        a.release(mid);
        r = a.allocate(T * h);
        a.release(hid);
        a.release(down);
        return r;
    }
};

}  // namespace

const char* replay_generate_why_not(const Scenario& s) {
    const ModelSpec& m = s.model;
    const InferenceOptions& o = s.infer;
    if (!m.architecture_known() || m.encoder) return "no decoder layers";
    if (m.attention != AttentionKind::Standard || m.moe.num_experts > 0 || m.ssm.active() || m.parallel_attn_mlp)
        return "MLA, MoE, state-space and parallel-block layers are not replayed";
    if (m.sliding_window > 0 && o.sliding_window_cache) return "a sliding-window cache is not replayed";
    if (o.kv_dtype != KvDtype::FP16 && o.kv_dtype != KvDtype::BF16) return "a quantized cache is not replayed";
    if (o.images > 0) return "images are not replayed";
    const int64_t prompt = prompt_tokens(o);
    if (prefill_tokens(o) != prompt) return "a chunked prefill is not replayed";
    return "";
}

GenerateReplay replay_generate(const Scenario& s, int64_t layers, double capacity_bytes, int64_t stride_tokens) {
    GenerateReplay r;
    if (*replay_generate_why_not(s) != '\0' || layers <= 0) return r;
    const ModelSpec& m = s.model;
    const InferenceOptions& o = s.infer;
    const int64_t tp = s.parallel.tp;
    const int64_t prompt = prompt_tokens(o);
    CachingAllocatorModel a(capacity_bytes);
    std::vector<int64_t> cache(static_cast<size_t>(2 * layers), 0);
    const double heads = static_cast<double>(m.heads) / static_cast<double>(tp);
    Forward fw{.a = a,
               .m = m,
               .cache = cache,
               .b = static_cast<double>(o.batch),
               .h = static_cast<double>(m.hidden) * kAct,
               .hq = heads * static_cast<double>(m.head_dim) * kAct,
               .hk = static_cast<double>(kv_heads_per_rank(m, tp) * m.head_dim) * kAct,
               .f = mlp_width(m) / static_cast<double>(tp) * kAct,
               .heads = heads,
               .eager = !o.flash_attention,
               // GPT-2's eager attention takes the softmax in the scores' dtype; the Llama family's in fp32 [transformers-code].
               .fp32_softmax = m.model_type != "gpt2"};
    const double vocab = static_cast<double>(m.vocab);
    const int64_t steps = std::max<int64_t>(1, o.context - prompt);  // the prefill yields the first new token
    // Decode steps in strides of `stride` tokens (the last one always replayed): see kReplayGrowthPerStride.
    const int64_t stride = stride_tokens > 0 ? stride_tokens
                                             : std::max<int64_t>(1, static_cast<int64_t>(kReplayGrowthPerStride / (fw.b * fw.hk)));
    r.replayed = true;
    // The last new token's step rounds up to the stride's grid, so a longer generation replays a shorter
    // one's steps and more: the reserve never falls as the context grows.
    const int64_t last = (steps - 1 + stride - 1) / stride * stride;
    for (int64_t step = 0; step <= last && !a.out_of_memory(); step += stride) {
        if (r.steps * layers > kMaxReplayLayerSteps) {
            r.truncated = true;
            break;
        }
        const double q_tokens = step == 0 ? static_cast<double>(prompt) : 1;
        int64_t hid = a.allocate(fw.b * q_tokens * fw.h);
        for (int64_t l = 0; l < layers && !a.out_of_memory(); ++l)
            hid = fw.layer(hid, static_cast<int>(l), q_tokens, static_cast<double>(prompt + step));
        const int64_t logits = a.allocate(fw.b * vocab * kAct);  // the last position (logits_to_keep = 1) and its fp32 copy
        const int64_t logits32 = a.allocate(fw.b * vocab * kFp32);
        a.release(logits);
        a.release(logits32);
        a.release(hid);
        ++r.steps;
        r.tokens = step + 1;
    }
    r.peak_reserved = a.peak_reserved();
    r.peak_allocated = a.peak_allocated();
    r.out_of_memory = a.out_of_memory();
    r.failed_request = a.failed_request();
    r.capacity_reached = a.capacity_reached();
    return r;
}

}  // namespace vl
