// Parallelism rules shared by training and inference (see parallel.h for the citations).
#include "parallel.h"

#include "cold.h"
#include "model/layer_tensors.h"
#include "model/model_validate.h"

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

bool uneven_pipeline_split(const Parallelism& par) {
    return par.pp > 1 && (par.first_stage_layers > 0 || par.last_stage_layers > 0);
}

// Megatron-Core get_num_layers_to_build: the given first / last stage counts come off the layers and the stages,
// the stages left share the layers left evenly [megatron-pipeline-split].
StageInfo pipeline_stage(int64_t num_layers, const Parallelism& par, int64_t index) {
    if (!uneven_pipeline_split(par)) return pipeline_stage(num_layers, par.pp, index);
    const int64_t pp = par.pp, f = par.first_stage_layers, l = par.last_stage_layers;
    const int64_t left = pp - (f > 0) - (l > 0);
    const int64_t middle = left > 0 ? std::max<int64_t>(0, num_layers - f - l) / left : 0;
    const int64_t first = f > 0 ? f : middle;
    StageInfo st;
    st.index = index;
    st.first = index == 0;
    st.last = index == pp - 1;
    st.layer_begin = index == 0 ? 0 : first + (index - 1) * middle;
    st.layer_end = st.last && l > 0 ? st.layer_begin + l : st.layer_begin + (index == 0 ? first : middle);
    st.layer_end = std::min(st.layer_end, num_layers);  // an invalid split (validate_parallel) stays in range
    st.layer_begin = std::min(st.layer_begin, st.layer_end);
    return st;
}

int64_t kv_heads_per_rank(const ModelSpec& m, int64_t tp) {
    tp = std::max<int64_t>(1, tp);
    return m.kv_heads >= tp ? m.kv_heads / tp : 1;
}

int64_t expert_tp(const Parallelism& par, ExpertSplit split) {
    const int64_t tp = std::max<int64_t>(1, par.tp);
    if (split == ExpertSplit::EpTimesTp) return tp;  // Megatron-Core expert_tensor_parallel_size = tp
    return par.ep > 1 ? 1 : tp;                      // vLLM: whole experts over ep, else FusedMoE over tp
}

namespace {

// LayerShard's buckets, in this order.
using Bucket = double LayerShard::*;
constexpr Bucket kBuckets[] = {&LayerShard::attn_v,        &LayerShard::attn_output,  &LayerShard::attn_rest,
                               &LayerShard::attn_extra,    &LayerShard::mlp_down,     &LayerShard::mlp_rest,
                               &LayerShard::mlp_extra,     &LayerShard::experts_down, &LayerShard::experts_rest,
                               &LayerShard::experts_extra, &LayerShard::router,       &LayerShard::norms};
enum BucketIndex : size_t { kAttnV, kAttnOutput, kAttnRest, kAttnExtra, kMlpDown, kMlpRest, kMlpExtra, kExpertsDown,
                            kExpertsRest, kExpertsExtra, kRouter, kNorms, kBucketCount };
static_assert(sizeof kBuckets / sizeof kBuckets[0] == kBucketCount);

// The bucket of a layer tensor: the attention's v and o projections and the down projections apart
// (GGUF mixes, LLM.int8), the other matrices, and the 1-D tensors of each module.
BucketIndex bucket(const Tensor& t) {
    const bool mat = t.matrix();
    switch (t.kind) {
        case TensorKind::Attention:
            if (!mat) return kAttnExtra;
            return t.role == TensorRole::V ? kAttnV : t.role == TensorRole::O ? kAttnOutput : kAttnRest;
        case TensorKind::Ssm:  // the Mamba projections as matrices; conv1d, A_log, D, dt_bias, norms kept like norms (llama.cpp keeps them F32)
            return mat ? kAttnRest : kNorms;
        case TensorKind::Expert:
            if (!mat) return kExpertsExtra;
            return t.role == TensorRole::Down ? kExpertsDown : kExpertsRest;
        case TensorKind::Router: return mat ? kRouter : kMlpExtra;
        case TensorKind::Norm: return kNorms;
        default:  // the dense MLP, the shared experts
            if (!mat) return kMlpExtra;
            return t.role == TensorRole::Down ? kMlpDown : kMlpRest;
    }
}

}  // namespace

LayerShard layer_shard(const ModelSpec& m, const LayerParams& l, const Parallelism& par, ExpertSplit split) {
    const double tp = static_cast<double>(std::max<int64_t>(1, par.tp));
    const double ep = static_cast<double>(std::max<int64_t>(1, par.ep));
    const double etp = static_cast<double>(expert_tp(par, split));
    LayerShard s;
    for_each_layer_tensor(m, l.kind, [&](const Tensor& t) { s.*kBuckets[bucket(t)] += tensor_shard(t, tp, ep, etp); });
    return s;
}

EdgeShard edge_shard(const ModelSpec& m, const ParamCounts&, const Parallelism& par, const StageInfo& st) {
    EdgeShard e;
    const double tp = static_cast<double>(std::max<int64_t>(1, par.tp));
    double word = 0;  // the word embedding on one rank
    for_each_model_tensor(m, [&](const Tensor& t) {
        const double n = tensor_shard(t, tp, 1, 1);
        switch (t.kind) {
            case TensorKind::Embedding:
                if (t.split == TensorSplit::Vocab) word = n;
                else if (st.first) e.embedding_other += n;
                break;
            case TensorKind::Norm:
            case TensorKind::EmbeddingProjection:
                if (st.first) e.embedding_other += n;
                break;
            case TensorKind::Head:
                if (st.last) e.lm_head += n;
                break;
            case TensorKind::FinalNorm:
                if (st.last) e.final_norm += n;
                break;
            default: break;
        }
    });
    if (st.first) e.word_embedding = word;
    if (st.last && m.tied_embeddings && !st.first) e.lm_head += word;  // tied, pp > 1: Megatron keeps the word embedding on the last stage too
    return e;
}

RankWeights rank_weights(const ModelSpec& m, const ParamCounts& pc, const Parallelism& par, const StageInfo& st) {
    RankWeights w;
    if (!m.architecture_known()) {
        const double tp = static_cast<double>(std::max<int64_t>(1, par.tp));
        const double pp = static_cast<double>(std::max<int64_t>(1, par.pp));
        w.layers = static_cast<double>(pc.total) / (tp * pp);
        w.linear = w.layers;
        return w;
    }
    // Layers are of a few kinds (dense / MoE, attention / Mamba): split each kind once (layer_shard),
    // sum over the stage.
    const int64_t end = std::min<int64_t>(st.layer_end, static_cast<int64_t>(pc.per_layer.size()));
    const int64_t begin = std::min(st.layer_begin, end);
    pc.per_layer.pattern().for_each_kind(begin, end, [&](LayerKind k, int64_t n) {
        const LayerShard s = layer_shard(m, pc.per_layer.of(k), par, ExpertSplit::EpTimesTp);
        w.layers += static_cast<double>(n) * s.total();
        w.linear += static_cast<double>(n) * s.linear();
        w.experts += static_cast<double>(n) * s.experts();
        w.largest_layer = std::max(w.largest_layer, s.total());
        w.largest_block = std::max(w.largest_block, s.total());
    });
    const EdgeShard e = edge_shard(m, pc, par, st);
    if (st.first) {
        w.embedding = e.word_embedding + e.embedding_other;
        w.largest_layer = std::max(w.largest_layer, w.embedding);
    }
    if (st.last) {
        w.final_norm = e.final_norm;
        w.lm_head = e.lm_head;
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
    return par.shard_group > 0 ? par.shard_group : std::max<int64_t>(1, par.dp) * std::max<int64_t>(1, par.cp);
}

int64_t expert_shard_size(const Parallelism& par) {
    return std::max<int64_t>(1, zero_shard_size(par) / std::max<int64_t>(1, par.ep));
}

static std::string num(int64_t v) { return std::to_string(v); }

// Megatron's uneven split (TransformerConfig.__post_init__, get_num_layers_to_build) [megatron-pipeline-split]: each
// given count > 0, both within the layers, the layers left even over the stages left (here at least one each), and
// with interleaving every stage's count divisible by the model chunks. Training only: inference splits evenly.
static void validate_uneven_split(const Scenario& s, std::vector<FieldError>& errs) {
    const Parallelism& p = s.parallel;
    const int64_t f = p.first_stage_layers, l = p.last_stage_layers;
    bool ok = true;
    for (const auto& given : {std::pair<int64_t, const char*>{f, "parallel.first_stage_layers"}, {l, "parallel.last_stage_layers"}}) {
        const int64_t v = given.first;  // plain variables: clang 14 (the web build) captures no structured binding
        const char* field = given.second;
        if (v < 0) {
            cold([&] { errs.push_back({field, "must be >= 0 (0: the even split); got " + num(v)}); });
            ok = false;
        } else if (v > 0 && p.pp < 2) {
            cold([&] { errs.push_back({field, "needs parallel.pp > 1 (it gives a pipeline stage's layers); got pp " + num(p.pp)}); });
            ok = false;
        } else if (v > 0 && !s.model.architecture_known()) {
            cold([&] { errs.push_back({field, "needs a model with known layers (a model known only by its parameter count is split evenly)"}); });
            ok = false;
        }
    }
    if (!ok || !uneven_pipeline_split(p) || p.pp > s.model.layers) return;
    const char* field = l > 0 ? "parallel.last_stage_layers" : "parallel.first_stage_layers";
    const int64_t L = s.model.layers, rest = L - f - l, left = p.pp - (f > 0) - (l > 0);
    if (rest < 0) {
        cold([&] { errs.push_back({field, "first_stage_layers + last_stage_layers must be at most num_hidden_layers (" + num(L) + "); got " + num(f + l)}); });
        return;
    }
    if (left == 0 && rest != 0) {
        cold([&] { errs.push_back({field, "with two stages both given, first_stage_layers + last_stage_layers must equal num_hidden_layers (" + num(L) + "); got " + num(f + l)}); });
        return;
    }
    if (left > 0 && (rest % left != 0 || rest < left)) {
        cold([&] { errs.push_back({field, "leaves " + num(rest) + " layers for the " + num(left) +
                                              " stages between: they must split evenly, at least one each (Megatron: the left over layers must be divisible by left over stages)"}); });
        return;
    }
    const int64_t v = std::max<int64_t>(1, p.virtual_stages);
    if (v < 2) return;
    for (const auto& given : {std::pair<int64_t, const char*>{f, "parallel.first_stage_layers"}, {l, "parallel.last_stage_layers"}}) {
        const int64_t n = given.first;
        const char* name = given.second;
        if (n > 0 && n % v != 0)
            cold([&] { errs.push_back({name, "must be divisible by parallel.virtual_stages (" + num(v) + "): each model chunk holds as many layers; got " + num(n)}); });
    }
    if (left > 0 && (rest / left) % v != 0)
        cold([&] { errs.push_back({field, "leaves " + num(rest / left) + " layers on each stage between, not divisible by parallel.virtual_stages (" + num(v) + ")"}); });
}

void validate_parallel(const Scenario& s, bool model_valid, std::vector<FieldError>& errs) {
    const Parallelism& p = s.parallel;
    const ModelSpec& m = s.model;
    auto positive = [&](int64_t v, const char* field) {
        if (v < 1) cold([&] { errs.push_back({field, "must be >= 1; got " + num(v)}); });
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
        cold([&] { errs.push_back({"parallel", "degrees too large (dp <= 1e6, tp/pp/cp <= 1024, ep <= 65536)"}); });
        return;  // dp * tp * pp * cp below could overflow int64
    }
    const int64_t product = p.dp * p.tp * p.pp * p.cp;
    if (s.gpu_count != product)
        cold([&] { errs.push_back({"gpu_count", "must equal dp * tp * pp * cp (" + num(product) + "); got " + num(s.gpu_count)}); });
    // ZeRO, its offloads and sequence parallelism are training's: inference reads none of them, so
    // leftovers of a training setup are no error there.
    if (s.mode != Mode::Infer) {
        if (p.zero < 0 || p.zero > 3) cold([&] { errs.push_back({"parallel.zero", "must be 0, 1, 2 or 3; got " + num(p.zero)}); });
        if (p.offload_params && p.zero != 3 && !reported(errs, "parallel.zero"))
            cold([&] { errs.push_back({"parallel.offload_params", "needs parallel.zero = 3 (ZeRO-Infinity / FSDP CPU offload); got zero " + num(p.zero)}); });
        if (p.offload_optimizer && p.zero < 1 && !reported(errs, "parallel.zero"))
            cold([&] { errs.push_back({"parallel.offload_optimizer", "needs parallel.zero >= 1 (ZeRO-Offload); got 0"}); });
        if (p.sp && p.tp < 2) cold([&] { errs.push_back({"parallel.sp", "sequence parallelism needs parallel.tp > 1; got tp " + num(p.tp)}); });
    }
    if (p.shard_group < 0 || (p.shard_group > 0 && p.dp % p.shard_group != 0))
        cold([&] { errs.push_back({"parallel.shard_group", "must be 0 (all dp ranks) or divide parallel.dp (" + num(p.dp) + "); got " + num(p.shard_group)}); });
    if (p.virtual_stages > 1 && (p.schedule != PipelineSchedule::Interleaved || p.pp < 2))
        cold([&] { errs.push_back({"parallel.virtual_stages", "> 1 needs the interleaved schedule and parallel.pp > 1"}); });
    if (p.ep > 1 && p.dp % p.ep != 0)
        cold([&] { errs.push_back({"parallel.ep", "must divide parallel.dp (" + num(p.dp) + ": experts are spread over data-parallel ranks); got " + num(p.ep)}); });

    if (s.mode != Mode::Infer && (p.first_stage_layers != 0 || p.last_stage_layers != 0) && (!m.architecture_known() || model_valid))
        cold([&] { validate_uneven_split(s, errs); });
    if (!m.architecture_known() || !model_valid) return;  // nothing else is known about a params-only model
    validate_tensor_parallel(s, errs);
    if (p.pp > m.layers)
        cold([&] { errs.push_back({"parallel.pp", "must be at most num_hidden_layers (" + num(m.layers) + "); got " + num(p.pp)}); });
    else if (p.virtual_stages > 1 && p.pp * p.virtual_stages > m.layers)
        cold([&] { errs.push_back({"parallel.virtual_stages", "pp * virtual_stages must be at most num_hidden_layers (" + num(m.layers) + ")"}); });
    if (p.ep > 1 && m.moe.num_experts == 0)
        cold([&] { errs.push_back({"parallel.ep", "expert parallelism needs a mixture-of-experts model; got ep " + num(p.ep)}); });
    if (p.ep > 1 && m.moe.num_experts > 0 && m.moe.num_experts % p.ep != 0)
        cold([&] { errs.push_back({"parallel.ep", "must divide num_experts (" + num(m.moe.num_experts) + "); got " + num(p.ep)}); });
}

}  // namespace vl
