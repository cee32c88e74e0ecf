// The tensor inventory (core/model/layer_tensors.h): every matrix and vector of a layer and around
// the layers, with its shape and split. Expected values are published parameter counts (cited) or
// hand derivations from each model's config.json, written out in the comments; never values read
// back from the code under test.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "model/layer_tensors.h"
#include "model/model_validate.h"
#include "param_count.h"
#include "parallel.h"

using namespace vl;

namespace {

ModelSpec llama(int64_t vocab, int64_t hidden, int64_t layers, int64_t heads, int64_t kv, int64_t ffn) {
    ModelSpec m;
    m.vocab = vocab; m.hidden = hidden; m.layers = layers; m.heads = heads; m.kv_heads = kv;
    m.head_dim = hidden / heads; m.ffn = ffn; m.tied_embeddings = false;
    return m;
}

// meta-llama/Meta-Llama-3-8B config.json: GQA 32 heads / 8 KV heads, SwiGLU 14336, untied.
ModelSpec llama3_8b() { return llama(128256, 4096, 32, 32, 8, 14336); }

// mistralai/Mixtral-8x7B-v0.1 config.json: 8 experts of 14336, top 2, every layer MoE.
ModelSpec mixtral() {
    ModelSpec m = llama(32000, 4096, 32, 32, 8, 14336);
    m.moe.num_experts = 8; m.moe.top_k = 2; m.moe.expert_ffn = 14336;
    return m;
}

// Qwen/Qwen1.5-MoE-A2.7B config.json: 60 experts of 1408, top 4, a shared expert of 5632 with its
// sigmoid gate, qkv bias, untied, vocab 151936, 24 layers of hidden 2048 and 16 heads.
ModelSpec qwen15_moe() {
    ModelSpec m = llama(151936, 2048, 24, 16, 16, 5632);
    m.qkv_bias = true;
    m.moe.num_experts = 60; m.moe.top_k = 4; m.moe.expert_ffn = 1408;
    m.moe.shared_expert_ffn = 5632; m.moe.shared_expert_gate = true;
    return m;
}

// deepseek-ai/DeepSeek-V3 config.json: MLA (q_lora_rank 1536, kv_lora_rank 512, rope 64, nope 128,
// v 128), 3 dense layers of 18432, then 256 routed experts of 2048 (top 8) + 1 shared, router bias.
ModelSpec deepseek_v3() {
    ModelSpec m = llama(129280, 7168, 61, 128, 128, 18432);
    m.attention = AttentionKind::MLA;
    m.head_dim = 192;
    m.mla = {1536, 512, 64, 128, 128};
    m.moe.num_experts = 256; m.moe.top_k = 8; m.moe.expert_ffn = 2048; m.moe.shared_experts = 1;
    m.moe.first_dense_layers = 3; m.moe.router_bias = true;
    return m;
}

// Sums straight over the inventory: the tensors outside the layers once, each layer's by its kind;
// `active` counts top_k of the routed experts.
int64_t inventory_total(const ModelSpec& m, bool active = false) {
    int64_t total = 0;
    for (const Tensor& t : model_tensors(m)) total += t.params();
    for (int64_t i = 0; i < m.layers; ++i)
        for (const Tensor& t : layer_tensors(m, LayerKind{layer_is_moe(m, i), false}))
            total += active && t.routed() ? m.moe.top_k * t.elements() : t.params();
    return total;
}

// Name -> the tensor, for one layer kind.
std::map<std::string, Tensor> by_name(const ModelSpec& m, bool moe_layer) {
    std::map<std::string, Tensor> out;
    for (const Tensor& t : layer_tensors(m, LayerKind{moe_layer, false})) out[t.name] = t;
    return out;
}

Parallelism layout(int64_t tp, int64_t ep = 1) {
    Parallelism p;
    p.tp = tp; p.ep = ep; p.dp = ep;
    return p;
}

std::vector<FieldError> tp_errors(const ModelSpec& m, int64_t tp, Mode mode = Mode::Train, int64_t ep = 1) {
    Scenario s;
    s.model = m;
    s.mode = mode;
    s.parallel = layout(tp, ep);
    std::vector<FieldError> errs;
    validate_tensor_parallel(s, errs);
    return errs;
}

}  // namespace

TEST_CASE("inventory totals equal published parameter counts: dense GQA, MoE with shared experts, MLA") {
    // Llama-3-8B: 8,030,261,248 (tests/data/reference_models.json llama-3-8b; llama.cpp prints 8.03 B).
    CHECK(inventory_total(llama3_8b()) == 8030261248);
    // Mixtral-8x7B: 46,702,792,704 total, 12,879,925,248 active (reference_models.json mixtral-8x7b).
    CHECK(inventory_total(mixtral()) == 46702792704);
    CHECK(inventory_total(mixtral(), true) == 12879925248);
    // Qwen1.5-MoE-A2.7B, model card "14.3B parameters in total and 2.7B activated". By hand, per layer:
    // q,k,v,o 4 * 2048^2 + qkv bias 3 * 2048 = 16,783,360; experts 60 * 3 * 2048 * 1408 = 519,045,120;
    // router 60 * 2048 = 122,880; shared expert 3 * 2048 * 5632 = 34,603,008; shared gate 2048; norms 4096
    // -> 570,560,512, x 24 = 13,693,452,288; + embedding and lm_head 2 * 151936 * 2048 + final norm 2048.
    CHECK(inventory_total(qwen15_moe()) == 14315784192);
    // active: 4 experts (34,603,008) instead of 60 -> 86,118,400 per layer -> 2,689,173,504 ("2.7B")
    CHECK(inventory_total(qwen15_moe(), true) == 2689173504);
    // DeepSeek-V3: 671,026,419,200 (hand derivation in tests/param_count_test.cpp; report: "671B total, 37B activated").
    CHECK(inventory_total(deepseek_v3()) == 671026419200);
    CHECK(inventory_total(deepseek_v3(), true) == 37552297472);
    // count_params is the same sum.
    for (const ModelSpec& m : {llama3_8b(), mixtral(), qwen15_moe(), deepseek_v3()}) CHECK(count_params(m).total == inventory_total(m));
}

TEST_CASE("each shape is written once: Hugging Face names and [out, in] shapes") {
    const auto l = by_name(llama3_8b(), false);
    REQUIRE(l.size() == 9);  // q, k, v, o, gate, up, down, input_layernorm, post_attention_layernorm
    CHECK(l.at("k_proj").rows == 1024);  // 8 KV heads * 128
    CHECK(l.at("k_proj").cols == 4096);
    CHECK(l.at("o_proj").rows == 4096);
    CHECK(l.at("down_proj").cols == 14336);
    CHECK(l.at("down_proj").kind == TensorKind::Mlp);
    CHECK(l.at("input_layernorm").kind == TensorKind::Norm);
    CHECK_FALSE(l.at("input_layernorm").matrix());

    const auto q = by_name(qwen15_moe(), true);
    CHECK(q.at("experts.gate_proj").count == 60);
    CHECK(q.at("experts.gate_proj").kind == TensorKind::Expert);
    CHECK(q.at("shared_experts.down_proj").cols == 5632);
    CHECK(q.at("shared_experts.down_proj").kind == TensorKind::SharedExpert);
    CHECK(q.at("shared_expert_gate").kind == TensorKind::Router);
    CHECK(q.at("gate").rows == 60);
    CHECK(q.at("q_proj.bias").rows == 2048);
    CHECK(shared_expert_ffn(qwen15_moe()) == 5632);
    CHECK(shared_expert_ffn(deepseek_v3()) == 2048);  // 1 shared expert of moe_intermediate_size
    CHECK(shared_expert_ffn(llama3_8b()) == 0);

    const auto d = by_name(deepseek_v3(), true);
    CHECK(d.at("q_b_proj").rows == 128 * 192);
    CHECK(d.at("kv_a_proj_with_mqa").rows == 512 + 64);
    CHECK(d.at("kv_b_proj").rows == 128 * (128 + 128));
    CHECK(d.at("o_proj").cols == 128 * 128);
    CHECK(d.at("q_a_layernorm").rows == 1536);
    CHECK(d.at("gate.e_score_correction_bias").rows == 256);

    // Outside the layers: GPT-2 learned positions and tied head; OPT-350m projections.
    ModelSpec g = llama(50257, 768, 12, 12, 12, 3072);
    g.position = PositionKind::Learned; g.max_position = 1024; g.tied_embeddings = true; g.norm = NormKind::LayerNorm;
    std::map<std::string, Tensor> outside;
    for (const Tensor& t : model_tensors(g)) outside[t.name] = t;
    CHECK(outside.size() == 4);  // embed_tokens, embed_positions, norm, norm.bias: no lm_head of its own
    CHECK(outside.at("embed_positions").rows == 1024);
    g.embed_dim = 512;  // OPT-350m word_embed_proj_dim
    for (const Tensor& t : model_tensors(g)) outside[t.name] = t;
    CHECK(outside.at("project_in").rows == 768);
    CHECK(outside.at("project_in").cols == 512);
    CHECK(outside.at("embed_tokens").cols == 512);
}

TEST_CASE("the lists hold the worst case: every option on") {
    ModelSpec m = qwen15_moe();
    m.norm = NormKind::LayerNorm;
    m.attn_out_bias = m.mlp_bias = m.qk_norm = m.attention_sinks = true;
    m.norms_per_layer = 4;
    m.moe.router_bias = true;
    m.moe.shared_experts = 2;
    const LayerTensors moe = layer_tensors(m, LayerKind{true, false});
    // attention 4 + 4 biases + gpt-oss's sinks + q_norm, k_norm with biases = 13; experts 3 + 3 biases,
    // router + bias, shared 3 + 3 biases, shared gate = 15; 4 LayerNorms with biases = 8.
    CHECK(moe.size() == 36);
    CHECK(moe.size() < LayerTensors::capacity());
    m.embedding_norm = true; m.embed_dim = 1024; m.position = PositionKind::Learned; m.lm_head_bias = true;
    CHECK(model_tensors(m).size() == 10);  // tokens, positions, norm + bias, project in/out, final norm + bias, head + bias
    CHECK(model_tensors(m).size() < ModelTensors::capacity());
    // Attention beside a Mamba1 mixer with every option (SsmSpec::parallel_attention, only Falcon-H1's Mamba2
    // in practice): the 13 attention tensors, in_proj, conv1d, x_proj, dt_proj with their biases, A_log, D,
    // the dt/B/C norms, out_proj and its bias = 14, the 15 MoE and 8 norm tensors.
    m.ssm.kind = SsmKind::Mamba1;
    m.ssm.parallel_attention = m.ssm.proj_bias = m.ssm.out_proj_bias = m.ssm.conv_bias = m.ssm.bcdt_norms = true;
    const LayerTensors both = layer_tensors(m, LayerKind{true, true});
    CHECK(both.size() == 13 + 14 + 15 + 8);
    CHECK(both.size() < LayerTensors::capacity());
    ModelSpec mla = deepseek_v3();
    mla.norm = NormKind::LayerNorm; mla.attn_out_bias = true;
    CHECK(layer_tensors(mla, LayerKind{}).size() == 10 + 3 + 4);  // q_a, q_a norm + bias, q_b, kv_a, kv_a norm + bias, kv_b, o, o bias; MLP; norms
}

TEST_CASE("each matrix's shard under tp 2 and 4, by its split") {
    // Llama-3-8B, tp 4: column-parallel q [4096, 4096], k, v [1024, 4096], gate, up [14336, 4096] and
    // row-parallel o [4096, 4096], down [4096, 14336] each / 4; RMSNorm weights whole.
    const std::map<std::string, double> llama_tp4 = {
        {"q_proj", 4194304},   {"k_proj", 1048576},  {"v_proj", 1048576},       {"o_proj", 4194304},
        {"gate_proj", 14680064}, {"up_proj", 14680064}, {"down_proj", 14680064},
        {"input_layernorm", 4096}, {"post_attention_layernorm", 4096}};
    for (const Tensor& t : layer_tensors(llama3_8b(), LayerKind{})) CHECK(tensor_shard(t, 4, 1, 1) == llama_tp4.at(t.name));
    const LayerShard s = layer_shard(llama3_8b(), count_params(llama3_8b()).per_layer.dense(), layout(4), ExpertSplit::EpTimesTp);
    CHECK(s.attn_v == 1048576.0);
    CHECK(s.attn_output == 4194304.0);
    CHECK(s.attn_rest == 4194304.0 + 1048576.0);
    CHECK(s.mlp_down == 14680064.0);
    CHECK(s.mlp_rest == 2 * 14680064.0);
    CHECK(s.norms == 8192.0);

    // GPT-2 small, tp 2: the qkv biases split with their columns (3 * 768 / 2), the biases of the
    // row-parallel o and down projections are whole on each rank (added after the all-reduce): 768 each;
    // the MLP's up bias 3072 / 2.
    ModelSpec g = llama(50257, 768, 12, 12, 12, 3072);
    g.gated_mlp = false; g.qkv_bias = g.attn_out_bias = g.mlp_bias = true; g.norm = NormKind::LayerNorm;
    const LayerShard gs = layer_shard(g, count_params(g).per_layer.dense(), layout(2), ExpertSplit::EpTimesTp);
    CHECK(gs.attn_extra == 3 * 768 / 2 + 768);
    CHECK(gs.mlp_extra == 3072 / 2 + 768);
    CHECK(gs.norms == 2 * 2 * 768);  // two LayerNorms, weight + bias

    // DeepSeek-V3, tp 4: q_a [1536, 7168] and kv_a [576, 7168] replicated (vLLM ReplicatedLinear); q_b
    // [24576, 1536], kv_b [32768, 512] column-parallel / 4; o [7168, 16384] row-parallel / 4; the MLA norms whole.
    const std::map<std::string, double> mla_tp4 = {
        {"q_a_proj", 11010048},  {"q_a_layernorm", 1536}, {"q_b_proj", 9437184}, {"kv_a_proj_with_mqa", 4128768},
        {"kv_a_layernorm", 512}, {"kv_b_proj", 4194304},  {"o_proj", 29360128}};
    const ModelSpec ds = deepseek_v3();
    for (const Tensor& t : layer_tensors(ds, LayerKind{true, false}))
        if (t.kind == TensorKind::Attention) CHECK(tensor_shard(t, 4, 8, 4) == mla_tp4.at(t.name));
    // MoE layer, training at tp 4, ep 8: 256 experts [2048, 7168] / (8 * 4); router [256, 7168] and its
    // bias whole; the shared expert [2048, 7168] / 4 like a dense MLP.
    const LayerShard d = layer_shard(ds, count_params(ds).per_layer.moe(), layout(4, 8), ExpertSplit::EpTimesTp);
    CHECK(d.attn_rest == 11010048.0 + 9437184.0 + 4128768.0 + 4194304.0);
    CHECK(d.attn_output == 29360128.0);
    CHECK(d.attn_extra == 1536.0 + 512.0);
    CHECK(d.experts_down == 256.0 * 7168 * 2048 / 32);  // 117,440,512
    CHECK(d.experts_rest == 2 * 256.0 * 7168 * 2048 / 32);
    CHECK(d.router == 256.0 * 7168);
    CHECK(d.mlp_extra == 256.0);
    CHECK(d.mlp_down == 7168.0 * 2048 / 4);
    CHECK(d.mlp_rest == 2 * 7168.0 * 2048 / 4);
    // Inference with ep 8: experts whole on their rank (/ 8 only).
    const LayerShard v = layer_shard(ds, count_params(ds).per_layer.moe(), layout(4, 8), ExpertSplit::EpOrTp);
    CHECK(v.experts_down == 256.0 * 7168 * 2048 / 8);
}

TEST_CASE("tensor parallelism must divide each dimension a matrix is split along, named with its tensors") {
    // Llama-3-8B: tp 3 divides neither the 32 heads, the 8 KV heads nor 14336 = 2^11 * 7.
    const std::vector<FieldError> e = tp_errors(llama3_8b(), 3);
    REQUIRE(e.size() == 3);
    CHECK(to_string(e[0]) == "parallel.tp: must divide num_attention_heads (32); got 3 (q_proj, o_proj split along it)");
    CHECK(to_string(e[1]) == "parallel.tp: must divide num_key_value_heads (8) for training; got 3 (k_proj, v_proj split along it)");
    CHECK(to_string(e[2]) == "parallel.tp: must divide intermediate_size (14336); got 3 (gate_proj, up_proj, down_proj split along it)");
    CHECK(tp_errors(llama3_8b(), 4).empty());
    // Inference replicates KV heads when tp is a multiple of them (16 = 2 * 8); 12 is neither.
    CHECK(tp_errors(llama3_8b(), 16, Mode::Infer).empty());
    REQUIRE(tp_errors(llama3_8b(), 16).size() == 1);
    ModelSpec m = llama3_8b();
    m.heads = 48; m.kv_heads = 8; m.head_dim = 128; m.ffn = 12288;
    const std::vector<FieldError> i = tp_errors(m, 12, Mode::Infer);
    REQUIRE(i.size() == 1);
    CHECK(to_string(i[0]) == "parallel.tp: must divide num_key_value_heads (8) or be a multiple of it; got 12 (k_proj, v_proj split along it)");

    // An MoE model whose every layer routes: the dense intermediate_size is never split, so not checked;
    // the shared expert's width is (1000 = 2^3 * 125 is not a multiple of 16).
    ModelSpec q = qwen15_moe();
    q.heads = q.kv_heads = 32; q.head_dim = 64;
    q.ffn = 1000;
    q.moe.shared_expert_ffn = 1000;
    const std::vector<FieldError> s = tp_errors(q, 16);
    REQUIRE(s.size() == 1);
    CHECK(to_string(s[0]) == "parallel.tp: must divide shared_expert_intermediate_size (1000); got 16 "
                             "(shared_experts.gate_proj, shared_experts.up_proj, shared_experts.down_proj split along it)");
    // Routed experts: split by tp in training (1408 = 2^7 * 11, tp 256 does not divide it) ...
    q = qwen15_moe();
    q.heads = q.kv_heads = 256; q.head_dim = 8; q.moe.shared_expert_ffn = 4096;
    REQUIRE(tp_errors(q, 256).size() == 1);
    CHECK(tp_errors(q, 256)[0].message.find("moe_intermediate_size (1408)") != std::string::npos);
    // ... while inference with expert parallelism keeps each expert whole on its rank.
    CHECK(tp_errors(q, 256, Mode::Infer, 4).empty());
}
