// Parallelism rules shared by training and inference: how tensor, pipeline and expert parallelism
// split a model's weights over GPUs, which pipeline stage holds what, how many micro-batches are in
// flight, and what a valid layout is. Pure functions of plain data; no Estimate, no strings on the
// numeric path (except validate_parallel, which builds its error messages).
#pragma once
#include <cstdint>
#include <vector>

#include "diagnostics.h"
#include "param_count.h"
#include "scenario.h"

namespace vl {

// One pipeline stage: layers [layer_begin, layer_end). Stages get floor(L/pp) layers and the first
// L % pp stages one more (Megatron needs L % pp == 0; uneven splits put the extra layers first).
struct StageInfo {
    int64_t index = 0;
    int64_t layer_begin = 0;
    int64_t layer_end = 0;
    bool first = true;   // holds the embedding
    bool last = true;    // holds the final norm and the output layer (lm_head)
    int64_t layers() const { return layer_end - layer_begin; }
};
StageInfo pipeline_stage(int64_t num_layers, int64_t pp, int64_t index);
// The stage of a training layout: Megatron's uneven split where parallel.first_stage_layers / last_stage_layers give
// the first / last stage's layers and the rest go evenly to the stages between (transformer_block.py
// get_num_layers_to_build) [megatron-pipeline-split]; the even split above where neither is given.
StageInfo pipeline_stage(int64_t num_layers, const Parallelism& par, int64_t index);
// Whether par gives an uneven split (validate_parallel checks it).
bool uneven_pipeline_split(const Parallelism& par);

// How a layer's tensors split over tensor and expert parallelism (Megatron-LM [shoeybi2019]; each
// tensor's rule is in its inventory entry, model/layer_tensors.h): column- and row-parallel matrices
// and column-parallel biases / tp; norms, row-parallel biases, the MoE router (Megatron TopKRouter,
// vLLM ReplicatedLinear gate) and MLA's q_a/kv_a down-projections replicated; routed experts /
// (ep * expert_tp), where expert_tp is how many ranks split one expert:
//   ExpertSplit::EpTimesTp (training): Megatron-Core's expert_tensor_parallel_size defaults to tp;
//   ExpertSplit::EpOrTp (inference): vLLM --enable-expert-parallel keeps each expert whole on one of
//   ep ranks (expert_tp = 1), and with ep == 1 its FusedMoE splits every expert over tp.
// rank_weights and inference's stage_weight_bytes both sum over layer_shard.
enum class ExpertSplit { EpTimesTp, EpOrTp };
int64_t expert_tp(const Parallelism& par, ExpertSplit split);

// One layer's parameters on one GPU, by the tensor classes callers weigh differently (GGUF mixes give
// attn_v, attn_output and ffn_down their own types; LLM.int8's row scale depends on in_features,
// which is ffn for the down projections and hidden for the rest).
struct LayerShard {
    double attn_v = 0;        // v projection (0 for MLA, which has none)
    double attn_output = 0;   // o projection
    double attn_rest = 0;     // the other attention matrices (q, k; MLA's q_a, q_b, kv_a, kv_b)
    double attn_extra = 0;    // attention biases, qk-norms, MLA norms
    double mlp_down = 0;      // down projection of the dense MLP, or of the shared experts
    double mlp_rest = 0;      // its gate/up matrices
    double mlp_extra = 0;     // dense/shared MLP biases, the router's bias
    double experts_down = 0;  // routed experts' down projections
    double experts_rest = 0;  // routed experts' gate/up matrices
    double experts_extra = 0; // routed experts' biases
    double router = 0;        // MoE router and Qwen2-MoE's shared_expert_gate (replicated)
    double norms = 0;         // layer norms (replicated)
    double experts() const { return experts_down + experts_rest + experts_extra; }  // the routed experts (ep's share)
    double linear() const {   // the matrices (what weight quantization stores)
        return attn_v + attn_output + attn_rest + mlp_down + mlp_rest + experts_down + experts_rest + router;
    }
    double total() const { return linear() + attn_extra + mlp_extra + experts_extra + norms; }
};
// The layer of l's kind (dense or MoE, attention or Mamba: l.kind).
LayerShard layer_shard(const ModelSpec& m, const LayerParams& l, const Parallelism& par, ExpertSplit split);

// The embedding and head on one GPU of a stage (Megatron): the word embedding is vocab-parallel
// (/ tp) on the first stage; learned positions and the embedding norm/projections are replicated;
// the last stage holds the final norm and lm_head / tp, or, tied with pp > 1, its own copy of the
// word embedding / tp for the output layer.
struct EdgeShard {
    double word_embedding = 0;   // first stage
    double embedding_other = 0;  // first stage: learned positions + embedding norm (+ OPT project_in/out)
    double lm_head = 0;          // last stage
    double final_norm = 0;       // last stage
};
EdgeShard edge_shard(const ModelSpec& m, const ParamCounts& pc, const Parallelism& par, const StageInfo& st);

// Parameters one GPU holds before ZeRO/FSDP sharding, by part (Megatron-LM splits [shoeybi2019]):
// attention and MLP matrices are split by tp (column/row parallel); routed experts by ep and then tp;
// norms and the router are replicated; the word embedding and lm_head are vocab-parallel (/tp); the
// learned position table is replicated. With pp > 1 and tied embeddings the last stage keeps its own
// copy of the word embedding for the output layer (Megatron). Params-only models: total / (tp * pp)
// spread evenly (no embedding split is known).
struct RankWeights {
    double layers = 0;         // transformer layers of the stage
    double embedding = 0;      // first stage
    double lm_head = 0;        // last stage (output projection, or the tied copy when pp > 1)
    double final_norm = 0;     // last stage
    double largest_layer = 0;  // largest single gathered unit on this rank (a layer, the embedding or the head)
    double largest_block = 0;  // largest transformer layer alone (FSDP's running unit beside its root, overheads.cpp)
    double linear = 0;         // of `layers`: weights of the linear projections (what 4-bit quantization stores)
    double experts = 0;        // of `layers`: the routed experts' parameters (their ep / expert-tp share, LayerShard::experts)
    double total() const { return layers + embedding + lm_head + final_norm; }
};
RankWeights rank_weights(const ModelSpec& m, const ParamCounts& pc, const Parallelism& par, const StageInfo& st);

// Key/value heads one tensor-parallel rank holds: kv/tp, or 1 replicated head when tp > kv
// (vLLM/Megatron replicate KV heads when tp exceeds them; training requires kv % tp == 0).
int64_t kv_heads_per_rank(const ModelSpec& m, int64_t tp);

// Micro-batches whose activations a stage holds at once ([narayanan2021], Megatron
// theoretical_memory_usage.py): 1F1B: min(pp - stage, m); interleaved with v chunks: the 1F1B count
// times 1 + (pp-1)/(pp*v) (counted in layer-micro-batches, so it may be fractional); GPipe: all m.
double microbatches_in_flight(const Parallelism& par, int64_t num_microbatches, int64_t stage_index);

// Ranks over which ZeRO/FSDP shards model states: the hybrid-shard group, or all data-parallel ranks with the
// context-parallel ones: the cp ranks of a sequence hold the same parameters, so Megatron-Core's distributed optimizer
// shards over the data-parallel group with context parallelism (intra_dp_cp_group) [megatron-core-moe-code] and
// torchtitan's FSDP over its dp_shard_cp mesh [torchtitan-code].
int64_t zero_shard_size(const Parallelism& par);

// Ranks over which ZeRO/FSDP and Megatron's distributed optimizer shard the routed experts' states: the
// expert-data-parallel group, the shard group with the ep ranks that split the experts factored out,
// N_edp = zero_shard_size / ep. Megatron-Core: expert_data_parallel_size = world / (pp * ep * etp), expert
// parameters (allreduce = False) get buffers of their own over that group [megatron-core-moe-code];
// DeepSpeed MoE: expert parameters in param groups of their own, ZeRO-1/2 partitions each group over its
// real_dp_process_group, the expert-data-parallel group of dp / ep ranks [deepspeed-moe-code]; torchtitan's
// FSDP2: fully_shard(experts) over the edp mesh [torchtitan-code]. Dense parameters keep zero_shard_size.
// With ep 1 both are the same. With a hybrid-shard group (shard_group) the experts shard over the ranks of their
// expert-data-parallel group inside it: shard_group / ep, or 1 (each expert whole) where the group is smaller than ep.
int64_t expert_shard_size(const Parallelism& par);

// Every rule of a parallel layout, each error naming the field ("parallel.tp: must divide ...").
// mode matters: training requires kv_heads % tp == 0, inference allows replicated KV heads.
// model_valid: the model passed validate_model; otherwise the rules that compare the layout with the
// model's sizes are skipped (its own errors say what is wrong). Called by validate(), the one owner.
void validate_parallel(const Scenario& s, bool model_valid, std::vector<FieldError>& errs);

}  // namespace vl
