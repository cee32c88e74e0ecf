// Parallelism rules shared by training and inference (see parallel.h for the citations).
#include "parallel.h"

#include <utility>

#include <algorithm>
#include <cmath>
#include <string>

namespace vl {

StageInfo pipeline_stage(int64_t num_layers, int64_t pp, int64_t index) {
    StageInfo st;
    pp = std::max<int64_t>(1, pp);
    const int64_t base = num_layers / pp, extra = num_layers % pp;
    st.index = index;
    st.layer_begin = index * base + std::min(index, extra);
    st.layer_end = st.layer_begin + base + (index < extra ? 1 : 0);
    st.first = index == 0;
    st.last = index == pp - 1;
    return st;
}

int64_t kv_heads_per_rank(const ModelSpec& m, int64_t tp) {
    tp = std::max<int64_t>(1, tp);
    return m.kv_heads >= tp ? m.kv_heads / tp : 1;
}

// Parameters of the routed experts of one MoE layer (they split by ep, then by tp).
static int64_t routed_expert_params(const ModelSpec& m) {
    return static_cast<int64_t>(m.moe.num_experts) * mlp_params(m, m.moe.expert_ffn);
}

// Weights of the linear projections of one layer (matrices only: no biases, norms).
static int64_t layer_linear_params(const ModelSpec& m, const LayerParams& l) {
    const int64_t d = m.hidden;
    int64_t attn = 0;
    if (m.attention == AttentionKind::MLA) {
        attn = l.attention - (m.mla.q_lora_rank > 0 ? norm_params(m, m.mla.q_lora_rank) : 0) -
               norm_params(m, m.mla.kv_lora_rank) - (m.attn_out_bias ? d : 0);
    } else {
        const int64_t q = m.heads * m.head_dim, kv = m.kv_heads * m.head_dim;
        attn = d * (q + 2 * kv) + q * d;
    }
    const int64_t mats = m.gated_mlp ? 3 : 2;
    int64_t mlp = 0;
    if (l.moe) {
        mlp = m.moe.num_experts * mats * d * m.moe.expert_ffn + d * m.moe.num_experts;  // experts + router
        const int64_t sf = m.moe.shared_expert_ffn > 0 ? m.moe.shared_expert_ffn : m.moe.shared_experts * m.moe.expert_ffn;
        mlp += mats * d * sf;
    } else {
        mlp = mats * d * m.ffn;
    }
    return attn + mlp;
}

RankWeights rank_weights(const ModelSpec& m, const ParamCounts& pc, const Parallelism& par, const StageInfo& st) {
    RankWeights w;
    const double tp = static_cast<double>(std::max<int64_t>(1, par.tp));
    const double pp = static_cast<double>(std::max<int64_t>(1, par.pp));
    const double ep = static_cast<double>(std::max<int64_t>(1, par.ep));
    if (!m.architecture_known()) {
        w.layers = static_cast<double>(pc.total) / (tp * pp);
        w.linear = w.layers;
        return w;
    }
    const double word = static_cast<double>(m.vocab) * static_cast<double>(m.embed_dim > 0 ? m.embed_dim : m.hidden);
    // Layers repeat (dense / MoE): a layer equal to the previous one reuses its split (same arithmetic).
    bool have_prev = false;
    LayerParams prev;
    double layer = 0, lin = 0;
    for (int64_t i = st.layer_begin; i < st.layer_end && i < static_cast<int64_t>(pc.per_layer.size()); ++i) {
        const LayerParams& l = pc.per_layer.kind(static_cast<size_t>(i));
        if (have_prev && l.attention == prev.attention && l.mlp == prev.mlp && l.norms == prev.norms && l.moe == prev.moe) {
            w.layers += layer;
            w.linear += lin;
            continue;
        }
        have_prev = true;
        prev = l;
        double mlp = static_cast<double>(l.mlp) / tp;
        if (l.moe) {
            const double routed = static_cast<double>(routed_expert_params(m));
            const double router = static_cast<double>(m.hidden * m.moe.num_experts);
            mlp = routed / (ep * tp) + (static_cast<double>(l.mlp) - routed - router) / tp + router;
        }
        layer = static_cast<double>(l.attention) / tp + mlp + static_cast<double>(l.norms);
        w.layers += layer;
        lin = static_cast<double>(layer_linear_params(m, l));
        if (l.moe) {
            const double mats = m.gated_mlp ? 3.0 : 2.0;
            const double experts = static_cast<double>(m.moe.num_experts) * mats * static_cast<double>(m.hidden * m.moe.expert_ffn);
            lin = (lin - experts) / tp + experts / (ep * tp);
        } else {
            lin /= tp;
        }
        w.linear += lin;
        w.largest_layer = std::max(w.largest_layer, layer);
    }
    if (st.first) {
        // vocab-parallel word embedding; learned positions / embedding norm replicated
        w.embedding = word / tp + static_cast<double>(pc.embedding) - word + static_cast<double>(pc.embedding_norm);
        w.largest_layer = std::max(w.largest_layer, w.embedding);
    }
    if (st.last) {
        w.final_norm = static_cast<double>(pc.final_norm);
        if (pc.lm_head > 0)
            w.lm_head = static_cast<double>(pc.lm_head) / tp;
        else if (!st.first)
            w.lm_head = word / tp;  // tied, pp > 1: Megatron keeps the word embedding on the last stage too
        w.largest_layer = std::max(w.largest_layer, w.lm_head);
    }
    return w;
}

double microbatches_in_flight(const Parallelism& par, int64_t num_microbatches, int64_t stage_index) {
    const double m = static_cast<double>(std::max<int64_t>(1, num_microbatches));
    const double pp = static_cast<double>(std::max<int64_t>(1, par.pp));
    if (par.schedule == PipelineSchedule::GPipe) return m;
    const double one_f_one_b = std::min(pp - static_cast<double>(stage_index), m);
    if (par.schedule == PipelineSchedule::Interleaved && par.pp > 1) {
        const double v = static_cast<double>(std::max<int64_t>(1, par.virtual_stages));
        return one_f_one_b * (1.0 + (pp - 1.0) / (pp * v));
    }
    return one_f_one_b;
}

int64_t zero_shard_size(const Parallelism& par) {
    return par.shard_group > 0 ? par.shard_group : std::max<int64_t>(1, par.dp);
}

static std::string num(int64_t v) { return std::to_string(v); }

void validate_parallel(const Scenario& s, std::vector<FieldError>& errs) {
    const Parallelism& p = s.parallel;
    const ModelSpec& m = s.model;
    auto positive = [&](int64_t v, const char* field) {
        if (v < 1) errs.push_back({field, "must be >= 1; got " + num(v)});
        return v >= 1;
    };
    // Every field is checked (no short-circuit), so each bad one gets its own error.
    bool ok = true;
    for (auto [v, field] : {std::pair<int64_t, const char*>{p.dp, "parallel.dp"}, {p.tp, "parallel.tp"}, {p.pp, "parallel.pp"},
                            {p.cp, "parallel.cp"}, {p.ep, "parallel.ep"}, {p.virtual_stages, "parallel.virtual_stages"},
                            {p.gpus_per_node, "parallel.gpus_per_node"}})
        ok = positive(v, field) && ok;
    if (!ok) return;
    if (p.dp > 1000000 || p.tp > 1024 || p.pp > 1024 || p.cp > 1024 || p.ep > 65536) {
        errs.push_back({"parallel", "degrees too large (dp <= 1e6, tp/pp/cp <= 1024, ep <= 65536)"});
        return;  // dp * tp * pp * cp below could overflow int64
    }
    const int64_t product = p.dp * p.tp * p.pp * p.cp;
    if (s.gpu_count != product)
        errs.push_back({"gpu_count", "must equal dp * tp * pp * cp (" + num(product) + "); got " + num(s.gpu_count)});
    if (p.zero < 0 || p.zero > 3) errs.push_back({"parallel.zero", "must be 0, 1, 2 or 3; got " + num(p.zero)});
    if (p.shard_group < 0 || (p.shard_group > 0 && p.dp % p.shard_group != 0))
        errs.push_back({"parallel.shard_group", "must be 0 (all dp ranks) or divide parallel.dp (" + num(p.dp) + "); got " + num(p.shard_group)});
    if (p.offload_params && p.zero != 3)
        errs.push_back({"parallel.offload_params", "needs parallel.zero = 3 (ZeRO-Infinity / FSDP CPU offload); got zero " + num(p.zero)});
    if (p.offload_optimizer && p.zero < 1)
        errs.push_back({"parallel.offload_optimizer", "needs parallel.zero >= 1 (ZeRO-Offload); got 0"});
    if (p.sp && p.tp < 2) errs.push_back({"parallel.sp", "sequence parallelism needs parallel.tp > 1; got tp " + num(p.tp)});
    if (p.virtual_stages > 1 && (p.schedule != PipelineSchedule::Interleaved || p.pp < 2))
        errs.push_back({"parallel.virtual_stages", "> 1 needs the interleaved schedule and parallel.pp > 1"});
    if (p.ep > 1 && p.dp % p.ep != 0)
        errs.push_back({"parallel.ep", "must divide parallel.dp (" + num(p.dp) + ": experts are spread over data-parallel ranks); got " + num(p.ep)});

    if (!m.architecture_known()) return;  // nothing else is known about a params-only model
    if (m.heads > 0 && m.heads % p.tp != 0)
        errs.push_back({"parallel.tp", "must divide num_attention_heads (" + num(m.heads) + "); got " + num(p.tp)});
    if (s.mode != Mode::Infer && m.attention == AttentionKind::Standard && m.kv_heads > 0 && m.kv_heads % p.tp != 0)
        errs.push_back({"parallel.tp", "must divide num_key_value_heads (" + num(m.kv_heads) + ") for training; got " + num(p.tp)});
    if (s.mode == Mode::Infer && m.kv_heads > 0 && m.kv_heads % p.tp != 0 && p.tp % m.kv_heads != 0)
        errs.push_back({"parallel.tp", "must divide num_key_value_heads (" + num(m.kv_heads) + ") or be a multiple of it; got " + num(p.tp)});
    if (m.ffn > 0 && m.ffn % p.tp != 0)
        errs.push_back({"parallel.tp", "must divide intermediate_size (" + num(m.ffn) + "); got " + num(p.tp)});
    if (m.moe.num_experts > 0 && m.moe.expert_ffn > 0 && m.moe.expert_ffn % p.tp != 0)
        errs.push_back({"parallel.tp", "must divide moe_intermediate_size (" + num(m.moe.expert_ffn) + "); got " + num(p.tp)});
    if (p.pp > m.layers)
        errs.push_back({"parallel.pp", "must be at most num_hidden_layers (" + num(m.layers) + "); got " + num(p.pp)});
    if (p.virtual_stages > 1 && p.pp * p.virtual_stages > m.layers)
        errs.push_back({"parallel.virtual_stages", "pp * virtual_stages must be at most num_hidden_layers (" + num(m.layers) + ")"});
    if (p.ep > 1 && m.moe.num_experts == 0)
        errs.push_back({"parallel.ep", "expert parallelism needs a mixture-of-experts model; got ep " + num(p.ep)});
    if (p.ep > 1 && m.moe.num_experts > 0 && m.moe.num_experts % p.ep != 0)
        errs.push_back({"parallel.ep", "must divide num_experts (" + num(m.moe.num_experts) + "); got " + num(p.ep)});
}

}  // namespace vl
