// Exact parameter counts against published numbers. Every expected value below comes from a cited
// source (tests/data/reference_models.json copies ../shared/reference/models.json with its sources;
// model cards; papers), never from the code under test. Specs are written out by hand from each
// model's config.json so this file does not depend on the importer.
#include <catch2/catch.hpp>

#include "param_count.h"

using vl::ModelSpec;

namespace {

// A Llama-style decoder (RMSNorm, SwiGLU, rotary, no biases, 2 norms per layer).
ModelSpec llama(int64_t vocab, int64_t hidden, int64_t layers, int64_t heads, int64_t kv, int64_t ffn,
                bool tied = false, int64_t head_dim = 0) {
    ModelSpec m;
    m.vocab = vocab;
    m.hidden = hidden;
    m.layers = layers;
    m.heads = heads;
    m.kv_heads = kv;
    m.head_dim = head_dim ? head_dim : hidden / heads;
    m.ffn = ffn;
    m.tied_embeddings = tied;
    return m;
}

// GPT-2 (modeling_gpt2): LayerNorm with bias, plain GELU MLP 4d, biases everywhere, learned
// positions n_positions = 1024, tied lm_head.
ModelSpec gpt2(int64_t hidden, int64_t layers, int64_t heads) {
    ModelSpec m = llama(50257, hidden, layers, heads, heads, 4 * hidden, true);
    m.gated_mlp = false;
    m.qkv_bias = m.attn_out_bias = m.mlp_bias = true;
    m.norm = vl::NormKind::LayerNorm;
    m.position = vl::PositionKind::Learned;
    m.max_position = 1024;
    return m;
}

// GPT-NeoX / Pythia (modeling_gpt_neox): like GPT-2 but rotary, untied embed_out, parallel residual
// with 2 LayerNorms per layer, vocab 50304 (Pythia configs).
ModelSpec pythia(int64_t hidden, int64_t layers, int64_t heads) {
    ModelSpec m = gpt2(hidden, layers, heads);
    m.vocab = 50304;
    m.position = vl::PositionKind::Rotary;
    m.tied_embeddings = false;
    m.parallel_attn_mlp = true;
    return m;
}

}  // namespace

TEST_CASE("dense Llama-family counts equal the reference counts to the parameter") {
    // ../shared/reference/models.json "params" (Llama-3-8B: llama.cpp prints 8.03 B; Llama-2-7B: llama.cpp 6.74 B).
    CHECK(vl::count_params(llama(32000, 4096, 32, 32, 32, 11008)).total == 6738415616);     // Llama-2-7B
    CHECK(vl::count_params(llama(32000, 5120, 40, 40, 40, 13824)).total == 13015864320);    // Llama-2-13B
    CHECK(vl::count_params(llama(32000, 8192, 80, 64, 8, 28672)).total == 68976648192);     // Llama-2-70B (GQA 8)
    CHECK(vl::count_params(llama(128256, 4096, 32, 32, 8, 14336)).total == 8030261248);     // Llama-3(.1)-8B
    CHECK(vl::count_params(llama(128256, 8192, 80, 64, 8, 28672)).total == 70553706496);    // Llama-3-70B
    CHECK(vl::count_params(llama(32000, 4096, 32, 32, 8, 14336)).total == 7241732096);      // Mistral-7B-v0.1
}

TEST_CASE("a default ModelSpec is Llama-3.1-8B") {
    // models.json llama-3.1-8b same_as llama-3-8b: 8,030,261,248.
    CHECK(vl::count_params(ModelSpec{}).total == 8030261248);
}

TEST_CASE("Llama-3-8B breakdown: embedding, lm_head, per layer, largest layer") {
    const vl::ParamCounts p = vl::count_params(llama(128256, 4096, 32, 32, 8, 14336));
    CHECK(p.embedding == 128256LL * 4096);         // 525,336,576
    CHECK(p.lm_head == 128256LL * 4096);           // untied
    CHECK(p.final_norm == 4096);
    CHECK(p.non_embedding == 8030261248 - 2 * 525336576LL);
    CHECK(p.active_per_token == p.total);          // dense
    CHECK(p.trainable == p.total);
    REQUIRE(p.per_layer.size() == 32);
    // attention q 4096*4096 + k,v 4096*1024 each + o 4096*4096 = 41,943,040
    CHECK(p.per_layer[0].attention == 41943040);
    // SwiGLU 3 * 4096 * 14336 = 176,160,768
    CHECK(p.per_layer[0].mlp == 176160768);
    CHECK(p.per_layer[0].norms == 2 * 4096);
    // the embedding (525M) is larger than a layer (218M)
    CHECK(p.largest_layer == 525336576);
}

TEST_CASE("Qwen: qkv bias (Qwen2.5) and qk-norm with explicit head_dim and tied (Qwen3)") {
    ModelSpec q25 = llama(152064, 3584, 28, 28, 4, 18944);
    q25.qkv_bias = true;
    CHECK(vl::count_params(q25).total == 7615616512);  // models.json qwen2.5-7b (7.62B)

    ModelSpec q3 = llama(151936, 1024, 28, 16, 8, 3072, true, 128);  // 16 * 128 != 1024
    q3.qk_norm = true;
    CHECK(vl::count_params(q3).total == 596049920);    // models.json qwen3-0.6b; llama.cpp prints 596.05 M

    ModelSpec q34 = llama(151936, 2560, 36, 32, 8, 9728, true, 128);
    q34.qk_norm = true;
    CHECK(vl::count_params(q34).total == 4022468096);  // models.json qwen3-4b
}

TEST_CASE("GPT-2 family: learned positions, biases, LayerNorm, tied") {
    // models.json gpt2*: 124M / 355M / 774M / 1.5B as published on the model cards.
    CHECK(vl::count_params(gpt2(768, 12, 12)).total == 124439808);
    CHECK(vl::count_params(gpt2(1024, 24, 16)).total == 354823168);
    CHECK(vl::count_params(gpt2(1280, 36, 20)).total == 774030080);
    CHECK(vl::count_params(gpt2(1600, 48, 25)).total == 1557611200);
    const vl::ParamCounts p = vl::count_params(gpt2(768, 12, 12));
    CHECK(p.embedding == 50257LL * 768 + 1024LL * 768);  // wte + wpe
    CHECK(p.lm_head == 0);                                 // tied
}

TEST_CASE("Pythia (GPT-NeoX): parallel residual, untied, biases") {
    // Pythia README (EleutherAI/pythia, "Models" table, total params):
    CHECK(vl::count_params(pythia(512, 6, 8)).total == 70426624);        // pythia-70m
    CHECK(vl::count_params(pythia(768, 12, 12)).total == 162322944);     // pythia-160m
    CHECK(vl::count_params(pythia(1024, 24, 16)).total == 405334016);    // pythia-410m
    CHECK(vl::count_params(pythia(2048, 16, 8)).total == 1011781632);    // pythia-1b
    CHECK(vl::count_params(pythia(2048, 24, 16)).total == 1414647808);   // pythia-1.4b
    ModelSpec p69 = pythia(4096, 32, 32);
    p69.vocab = 50432;  // pythia-6.9b config.json vocab_size
    CHECK(vl::count_params(p69).total == 6857302016);                    // pythia-6.9b
}

TEST_CASE("OPT: learned positions with offset 2, biases, ReLU MLP, tied") {
    ModelSpec m = gpt2(5120, 40, 40);
    m.vocab = 50272;
    m.max_position = 2048;
    m.position_offset = 2;  // OPTLearnedPositionalEmbedding(num_embeddings + 2)
    CHECK(vl::count_params(m).total == 12853473280);  // models.json opt-13b (learned pos emb 2050 rows)
}

TEST_CASE("BLOOM: ALiBi, embedding LayerNorm, biases, tied") {
    ModelSpec m = gpt2(14336, 70, 112);
    m.vocab = 250880;
    m.position = vl::PositionKind::Alibi;
    m.embedding_norm = true;
    const vl::ParamCounts p = vl::count_params(m);
    CHECK(p.total == 176247271424);        // models.json bloom-176b
    CHECK(p.embedding_norm == 2 * 14336);  // word_embeddings_layernorm weight + bias
}

TEST_CASE("Falcon-7B: multi-query, one LayerNorm per parallel block, no biases, tied") {
    ModelSpec m = gpt2(4544, 32, 71);
    m.vocab = 65024;
    m.kv_heads = 1;  // multi_query
    m.head_dim = 64;
    m.qkv_bias = m.attn_out_bias = m.mlp_bias = false;
    m.position = vl::PositionKind::Rotary;
    m.parallel_attn_mlp = true;
    m.norms_per_layer = 1;
    // tiiuae/falcon-7b: 6,921,720,704 parameters (safetensors total shown on the model page, "6.92B").
    CHECK(vl::count_params(m).total == 6921720704);
}

TEST_CASE("Gemma: head_dim 256 independent of hidden, GeGLU, tied, and Phi-3 untied") {
    // google/gemma-7b: 8,537,680,896 ("8.54B" on the model page); gemma-2b: 2,506,172,416 ("2.51B").
    CHECK(vl::count_params(llama(256000, 3072, 28, 16, 16, 24576, true, 256)).total == 8537680896);
    CHECK(vl::count_params(llama(256000, 2048, 18, 8, 1, 16384, true, 256)).total == 2506172416);
    // microsoft/Phi-3-mini-4k-instruct: 3,821,079,552 ("3.82B" on the model page).
    CHECK(vl::count_params(llama(32064, 3072, 32, 32, 32, 8192)).total == 3821079552);
}

TEST_CASE("Mixtral-8x7B: total and active parameters") {
    ModelSpec m = llama(32000, 4096, 32, 32, 8, 14336);
    m.ffn = 0;
    m.moe.num_experts = 8;
    m.moe.top_k = 2;
    m.moe.expert_ffn = 14336;
    const vl::ParamCounts p = vl::count_params(m);
    CHECK(p.total == 46702792704);             // models.json mixtral-8x7b params
    CHECK(p.active_per_token == 12879925248);  // models.json mixtral-8x7b active_params
    CHECK(p.per_layer[0].kind.moe);
    // router 8 * 4096 + 8 experts * 3 * 4096 * 14336
    CHECK(p.per_layer[0].mlp == 8 * 4096 + 8 * 176160768LL);
}

TEST_CASE("DeepSeek-V3: MLA, 3 dense layers, 256 routed + 1 shared experts, MTP excluded") {
    ModelSpec m = llama(129280, 7168, 61, 128, 128, 18432);
    m.attention = vl::AttentionKind::MLA;
    m.head_dim = 0;
    m.mla = {1536, 512, 64, 128, 128};
    m.moe.num_experts = 256;
    m.moe.top_k = 8;
    m.moe.expert_ffn = 2048;
    m.moe.shared_experts = 1;
    m.moe.first_dense_layers = 3;
    m.moe.router_bias = true;  // e_score_correction_bias
    const vl::ParamCounts p = vl::count_params(m);
    // Hand derivation (modeling_deepseek_v3 module list):
    //  MLA = 7168*1536 + 1536 + 1536*128*192 + 7168*576 + 512 + 512*128*256 + 128*128*7168 = 187,107,328
    //  dense MLP 3*7168*18432 = 396,361,728; expert 3*7168*2048 = 44,040,192
    //  MoE = 256*44,040,192 + 44,040,192 (shared) + 256*7168 + 256 (router + bias)
    //  total = 2*129280*7168 + 7168 + 3*(MLA + dense + 2*7168) + 58*(MLA + MoE + 2*7168) = 671,026,419,200
    //  DeepSeek-V3 report (arXiv 2412.19437 §1): "671B total parameters, 37B activated for each token";
    //  the HF checkpoint's 685B adds the 14B MTP module (models.json params_total), which is not counted.
    CHECK(p.total == 671026419200);
    CHECK(p.per_layer[0].attention == 187107328);
    CHECK_FALSE(p.per_layer[2].kind.moe);
    CHECK(p.per_layer[3].kind.moe);
    // active: top-8 + shared; 37.55B, "37B" in the report
    CHECK(p.active_per_token == 37552297472);
}

TEST_CASE("a model given only by its parameter count has no breakdown") {
    ModelSpec m;
    m.params_only = 7000000000;
    const vl::ParamCounts p = vl::count_params(m);
    CHECK(p.total == 7000000000);
    CHECK(p.per_layer.empty());
}
