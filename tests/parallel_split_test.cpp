// The one tensor/expert-parallel split (core/parallel.h layer_shard, edge_shard) that training's
// rank_weights and inference's stage_weight_bytes both sum over. Expected values are hand-derived
// from the Mixtral-8x7B / Llama shapes in the comments, not from the code under test.
#include <catch2/catch.hpp>

#include "inference/weight_formats.h"
#include "parallel.h"

using namespace vl;

namespace {
// Mixtral-8x7B-v0.1 config.json: hidden 4096, 32 heads, 8 KV heads of 128, 8 experts of ffn 14336,
// gated (SwiGLU), RMSNorm, no biases, vocab 32000, untied head.
ModelSpec mixtral() {
    ModelSpec m;
    m.name = "Mixtral-8x7B";
    m.vocab = 32000; m.hidden = 4096; m.layers = 32; m.heads = 32; m.kv_heads = 8; m.head_dim = 128;
    m.ffn = 14336; m.gated_mlp = true; m.tied_embeddings = false;
    m.moe.num_experts = 8; m.moe.top_k = 2; m.moe.expert_ffn = 14336;
    return m;
}
Parallelism layout(int64_t tp, int64_t ep) {
    Parallelism p;
    p.tp = tp; p.ep = ep; p.dp = ep;
    return p;
}
}  // namespace

TEST_CASE("layer_shard: attention / tp, routed experts / (ep * expert tp), router and norms replicated") {
    const ModelSpec m = mixtral();
    const ParamCounts pc = count_params(m);
    REQUIRE(pc.per_layer.moe().kind.moe);
    const LayerShard s = layer_shard(m, pc.per_layer.moe(), layout(2, 4), ExpertSplit::EpTimesTp);
    // v: 4096 x (8 x 128) = 4,194,304 / tp 2; o: 4096 x 4096 = 16,777,216 / 2; q + k: 16,777,216 + 4,194,304 / 2
    CHECK(s.attn_v == 2097152.0);
    CHECK(s.attn_output == 8388608.0);
    CHECK(s.attn_rest == 10485760.0);
    CHECK(s.attn_extra == 0.0);
    // experts: 8 x 4096 x 14336 = 469,762,048 per matrix; down / (ep 4 * tp 2) = 58,720,256, gate + up twice that
    CHECK(s.experts_down == 58720256.0);
    CHECK(s.experts_rest == 117440512.0);
    CHECK(s.router == 4096.0 * 8);  // replicated: Megatron TopKRouter, vLLM ReplicatedLinear gate
    CHECK(s.mlp_down == 0.0);       // no shared experts
    CHECK(s.norms == 2.0 * 4096);   // two RMSNorms, replicated
    CHECK(s.total() == 2097152.0 + 8388608.0 + 10485760.0 + 3 * 58720256.0 + 32768 + 8192);

    // Inference (vLLM expert parallel): experts whole on each of ep ranks, so / 4 only ...
    const LayerShard v = layer_shard(m, pc.per_layer.moe(), layout(2, 4), ExpertSplit::EpOrTp);
    CHECK(v.experts_down == 469762048.0 / 4);
    CHECK(v.attn_v == s.attn_v);  // ... while attention stays / tp
    // ... and with ep 1 FusedMoE splits every expert over tp: / 2, as training does.
    CHECK(layer_shard(m, pc.per_layer.moe(), layout(2, 1), ExpertSplit::EpOrTp).experts_down == 469762048.0 / 2);
    CHECK(layer_shard(m, pc.per_layer.moe(), layout(2, 1), ExpertSplit::EpTimesTp).experts_down == 469762048.0 / 2);
}

TEST_CASE("edge_shard: word embedding and head / tp, learned positions replicated, tied copy on the last stage") {
    // GPT-2 small: vocab 50257, hidden 768, 1024 learned positions, tied head, LayerNorm (its biases
    // are left out: only the embedding and head matter here).
    ModelSpec m;
    m.name = "gpt2"; m.vocab = 50257; m.hidden = 768; m.layers = 12; m.heads = 12; m.kv_heads = 12; m.head_dim = 64;
    m.ffn = 3072; m.gated_mlp = false; m.norm = NormKind::LayerNorm; m.position = PositionKind::Learned;
    m.max_position = 1024; m.tied_embeddings = true;
    const ParamCounts pc = count_params(m);
    Parallelism p = layout(4, 1);
    p.pp = 2;
    const EdgeShard first = edge_shard(m, pc, p, pipeline_stage(12, 2, 0));
    CHECK(first.word_embedding == 50257.0 * 768 / 4);  // vocab-parallel
    CHECK(first.embedding_other == 1024.0 * 768);       // wpe: an nn.Embedding on every rank
    CHECK(first.lm_head == 0.0);
    const EdgeShard last = edge_shard(m, pc, p, pipeline_stage(12, 2, 1));
    CHECK(last.word_embedding == 0.0);
    CHECK(last.lm_head == 50257.0 * 768 / 4);  // tied, pp > 1: the last stage's own copy
    CHECK(last.final_norm == 2.0 * 768);       // ln_f weight + bias
}

TEST_CASE("inference weights use the shared split: GPT-2 positions are not divided by tp") {
    ModelSpec m;
    m.name = "gpt2"; m.vocab = 50257; m.hidden = 768; m.layers = 12; m.heads = 12; m.kv_heads = 12; m.head_dim = 64;
    m.ffn = 3072; m.gated_mlp = false; m.norm = NormKind::LayerNorm; m.position = PositionKind::Learned;
    m.max_position = 1024; m.tied_embeddings = true;
    InferenceOptions o;  // bf16
    o.engine = Engine::VLLM;
    // bf16: (50257 x 768 / 4 vocab-parallel rows + 1024 x 768 replicated positions) x 2 B = 20,871,552 B
    CHECK(stage_weight_bytes(m, count_params(m), o, layout(4, 1), 0).embedding == 20871552.0);
}
