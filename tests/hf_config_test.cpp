// import_hf_config: one real config.json per model_type (tests/data/configs, sources in SOURCES.md),
// imported and counted; expected counts are the published ones cited there. Then every bad-input rule.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "model/hf_config.h"
#include "param_count.h"

namespace {

std::string read_config(const std::string& name) {
    std::ifstream f(std::string(VRAMLENS_TEST_DATA) + "/configs/" + name);
    REQUIRE(f.good());
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

vl::ModelSpec import_ok(const std::string& file) {
    vl::Result<vl::ModelSpec> r = vl::import_hf_config(read_config(file));
    for (const auto& e : r.errors) INFO(vl::to_string(e));
    REQUIRE(r.ok());
    return *r;
}

int64_t total(const std::string& file) { return vl::count_params(import_ok(file)).total; }

bool has_warning(const vl::Result<vl::ModelSpec>& r, const std::string& part) {
    for (const auto& w : r.warnings)
        if (w.find(part) != std::string::npos) return true;
    return false;
}

// The single error of importing `json`, as "field: message".
std::string only_error(const std::string& json) {
    vl::Result<vl::ModelSpec> r = vl::import_hf_config(json);
    REQUIRE_FALSE(r.ok());
    REQUIRE(r.errors.size() == 1);
    return vl::to_string(r.errors[0]);
}

}  // namespace

TEST_CASE("import llama, mistral, mixtral configs") {
    const vl::ModelSpec m = import_ok("llama-3.1-8b.json");
    CHECK(m.kv_heads == 8);
    CHECK(m.head_dim == 128);   // 4096 / 32, no head_dim field
    CHECK(m.max_position == 131072);
    CHECK_FALSE(m.tied_embeddings);
    CHECK(vl::count_params(m).total == 8030261248);        // reference_models.json llama-3-8b
    CHECK(total("mistral-7b-v0.1.json") == 7241732096);    // reference_models.json mistral-7b-v0.1
    CHECK(import_ok("mistral-7b-v0.1.json").sliding_window == 4096);
    const vl::ModelSpec x = import_ok("mixtral-8x7b-v0.1.json");
    CHECK(x.moe.num_experts == 8);
    CHECK(x.moe.top_k == 2);
    CHECK(x.sliding_window == 0);  // "sliding_window": null
    const vl::ParamCounts p = vl::count_params(x);
    CHECK(p.total == 46702792704);             // reference_models.json mixtral-8x7b
    CHECK(p.active_per_token == 12879925248);
}

TEST_CASE("import qwen2, qwen2_moe, qwen3, qwen3_moe configs") {
    const vl::ModelSpec q = import_ok("qwen2.5-7b.json");
    CHECK(q.qkv_bias);
    CHECK_FALSE(q.attn_out_bias);
    CHECK(q.sliding_window == 0);  // use_sliding_window false
    CHECK(vl::count_params(q).total == 7615616512);        // reference_models.json qwen2.5-7b
    CHECK(total("qwen3-4b.json") == 4022468096);           // reference_models.json qwen3-4b
    CHECK(import_ok("qwen3-4b.json").qk_norm);

    // Qwen1.5-MoE-A2.7B model card: 14.3B parameters, 2.7B activated.
    const vl::ParamCounts moe = vl::count_params(import_ok("qwen1.5-moe-a2.7b.json"));
    CHECK(moe.total == Approx(14.3e9).margin(0.05e9));
    CHECK(moe.active_per_token == Approx(2.7e9).margin(0.05e9));

    // Qwen3-30B-A3B model card: 30.5B total, 3.3B activated, 29.9B non-embedding.
    const vl::ParamCounts q3 = vl::count_params(import_ok("qwen3-30b-a3b.json"));
    CHECK(q3.total == Approx(30.5e9).margin(0.05e9));
    CHECK(q3.active_per_token == Approx(3.3e9).margin(0.06e9));
    CHECK(q3.non_embedding == Approx(29.9e9).margin(0.05e9));
}

TEST_CASE("import gemma, gemma2, gemma3 (top level and text_config) configs") {
    CHECK(total("gemma-7b.json") == 8537680896);           // google/gemma-7b, Hub "8.54B"
    const vl::ModelSpec g2 = import_ok("gemma-2-2b-it.json");
    CHECK(g2.norms_per_layer == 4);
    CHECK(g2.tied_embeddings);     // GemmaConfig default, absent from the file
    CHECK(g2.sliding_window_pattern == 2);
    CHECK(vl::count_params(g2).total == 2614341888);       // google/gemma-2-2b, Hub "2.61B"
    CHECK(total("gemma-3-1b-pt.json") == 999885952);       // google/gemma-3-1b-pt, Hub "1,000M"

    vl::Result<vl::ModelSpec> g3 = vl::import_hf_config(read_config("gemma-3-27b-it.json"));
    REQUIRE(g3.ok());
    CHECK_FALSE(has_warning(g3, "vision tower"));           // vision_config is read (tests/vlm_test.cpp)
    CHECK(g3->vision.active());
    CHECK(has_warning(g3, "text_config.vocab_size"));       // Gemma3TextConfig default 262208 used
    CHECK(g3->vocab == 262208);
    CHECK(g3->head_dim == 128);
    CHECK(g3->qk_norm);
    // gemma-3-27b-it is 27.4B on the Hub including the ~0.4B SigLIP vision tower: text alone ~27.0B.
    CHECK(vl::count_params(*g3).total == Approx(27.0e9).margin(0.05e9));
}

TEST_CASE("import phi3, gpt2, gpt_neox, falcon configs") {
    CHECK(total("phi-3-mini-4k-instruct.json") == 3821079552);  // Hub "3.82B"
    const vl::ModelSpec g = import_ok("gpt2.json");               // n_embd, n_layer, n_head, n_positions
    CHECK(g.hidden == 768);
    CHECK(g.ffn == 3072);  // n_inner absent: 4 * n_embd
    CHECK(g.position == vl::PositionKind::Learned);
    CHECK(vl::count_params(g).total == 124439808);         // reference_models.json gpt2
    CHECK(total("pythia-160m.json") == 162322944);          // Pythia README
    const vl::ModelSpec f = import_ok("falcon-7b.json");
    CHECK(f.kv_heads == 1);  // multi_query
    CHECK(f.norms_per_layer == 1);
    CHECK(vl::count_params(f).total == 6921720704);        // tiiuae/falcon-7b, Hub "6.92B"
}

TEST_CASE("import opt, bloom configs") {
    const vl::ModelSpec o = import_ok("opt-350m.json");
    CHECK(o.embed_dim == 512);       // word_embed_proj_dim
    CHECK_FALSE(o.final_norm);       // do_layer_norm_before false
    CHECK(vl::count_params(o).total == 331196416);         // facebook/opt-350m, Hub "331M"
    CHECK(total("opt-13b.json") == 12853473280);           // reference_models.json opt-13b
    const vl::ModelSpec b = import_ok("bloom-560m.json");
    CHECK(b.position == vl::PositionKind::Alibi);
    CHECK(b.embedding_norm);
    CHECK(vl::count_params(b).total == 559214592);         // bigscience/bloom-560m, Hub "559M"
}

TEST_CASE("import deepseek_v2, deepseek_v3 configs") {
    // DeepSeek-V2 paper (arXiv 2405.04434): 236B total, 21B activated per token.
    const vl::ParamCounts v2 = vl::count_params(import_ok("deepseek-v2.json"));
    CHECK(v2.total == Approx(236e9).margin(0.5e9));
    CHECK(v2.active_per_token == Approx(21e9).margin(0.5e9));

    vl::Result<vl::ModelSpec> v3 = vl::import_hf_config(read_config("deepseek-v3.json"));
    REQUIRE(v3.ok());
    CHECK(has_warning(v3, "quantization_config"));
    CHECK(v3->attention == vl::AttentionKind::MLA);
    CHECK(v3->moe.router_bias);      // topk_method noaux_tc
    CHECK(v3->moe.first_dense_layers == 3);
    // 671,026,419,200: hand derivation in param_count_test.cpp; report: 671B (MTP excluded), 37B active.
    CHECK(vl::count_params(*v3).total == 671026419200);
}

// Issue 12: an unsupported model_type was imported as a Llama-style model with a warning only.
TEST_CASE("an unsupported model_type is an error on model_type that lists the supported ones") {
    const std::string e = only_error(R"({"model_type": "my_llm", "vocab_size": 1000, "hidden_size": 64,
        "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128})");
    CHECK_THAT(e, Catch::StartsWith("model_type: \"my_llm\" is not supported; use one of llama, mistral, "));
    // Every model_type hf_config.h documents is offered.
    for (const char* t : {"llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "gemma", "gemma2",
                          "gemma3_text", "gemma3", "phi3", "gpt2", "gpt_neox", "falcon", "RefinedWebModel", "RefinedWeb",
                          "opt", "bloom", "deepseek_v2", "deepseek_v3", "qwen"})
        CHECK_THAT(e, Catch::Contains(std::string(" ") + t + ",") || Catch::Contains(std::string(" ") + t + " ("));
}

// Issue 14 item 12: a misspelt or versioned model_type names the supported type it is close to.
TEST_CASE("an unsupported model_type names the closest supported ones, never imports them") {
    // Same when case, '-', '_' and '.' are ignored.
    CHECK_THAT(only_error(R"({"model_type": "Llama", "hidden_size": 64})"),
               Catch::StartsWith("model_type: \"Llama\" is not supported (the closest supported: \"llama\"); use one of llama, "));
    CHECK_THAT(only_error(R"({"model_type": "deepseek-v3"})"),
               Catch::StartsWith("model_type: \"deepseek-v3\" is not supported (the closest supported: \"deepseek_v3\"); "));
    CHECK_THAT(only_error(R"({"model_type": "Qwen2-MoE"})"), Catch::Contains("(the closest supported: \"qwen2_moe\")"));
    // At most two edits away (after folding): a typo, a version suffix.
    CHECK_THAT(only_error(R"({"model_type": "mistrall"})"), Catch::Contains("(the closest supported: \"mistral\", \"mixtral\")"));
    CHECK_THAT(only_error(R"({"model_type": "qwen2.5"})"), Catch::Contains("(the closest supported: \"qwen2\", \"qwen3\", \"qwen\", \"qwen2_5_vl\", \"qwen2_vl\", \"qwen3_5\")"));
    CHECK_THAT(only_error(R"({"model_type": "gemma-3"})"), Catch::Contains("(the closest supported: \"gemma3\")"));
    // Nothing close: no hint. Short names are not matched by edits ("opt" is 2 edits from "gpt").
    CHECK_THAT(only_error(R"({"model_type": "my_llm"})"), !Catch::Contains("closest"));
    CHECK_THAT(only_error(R"({"model_type": "gpt"})"), !Catch::Contains("closest"));
    // Inside text_config the hint is the same, on the nested field.
    CHECK_THAT(only_error(R"({"model_type": "llava", "text_config": {"model_type": "LLaMA"}})"),
               Catch::StartsWith("text_config.model_type: \"LLaMA\" is not supported (the closest supported: \"llama\")"));
}

TEST_CASE("encoder models beyond BERT and RoBERTa are an error saying they are not supported yet") {
    for (const char* t : {"umt5", "whisper", "mbart"}) {  // t5, mt5 and bart are supported (encdec_test.cpp)
        INFO(t);
        const std::string e = only_error(std::string(R"({"model_type": ")") + t + R"(", "hidden_size": 768})");
        CHECK_THAT(e, Catch::StartsWith(std::string("model_type: \"") + t + "\" is an encoder-decoder model"));
        CHECK_THAT(e, Catch::Contains("does not support yet"));
        CHECK_THAT(e, Catch::Contains("llama"));
    }
    for (const char* t : {"deberta-v2", "distilbert"}) {
        INFO(t);
        const std::string e = only_error(std::string(R"({"model_type": ")") + t + R"(", "hidden_size": 768})");
        CHECK_THAT(e, Catch::StartsWith(std::string("model_type: \"") + t + "\" is an encoder vramlens does not support yet"));
        CHECK_THAT(e, Catch::Contains("supports: bert, roberta, xlm-roberta"));
    }
}

TEST_CASE("a config without model_type is read by the class in architectures, else it is an error") {
    // LlamaForCausalLM is transformers' llama class: the llama defaults apply (LlamaConfig
    // intermediate_size 11008, max_position_embeddings 2048), with a warning naming the class.
    vl::Result<vl::ModelSpec> r = vl::import_hf_config(R"({"architectures": ["LlamaForCausalLM"], "vocab_size": 1000,
        "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4})");
    for (const auto& err : r.errors) INFO(vl::to_string(err));
    REQUIRE(r.ok());
    CHECK(r->model_type == "llama");
    CHECK(r->ffn == 11008);
    CHECK(r->max_position == 2048);
    CHECK(has_warning(r, "model_type is missing; read as \"llama\" because architectures names LlamaForCausalLM"));

    CHECK_THAT(only_error(R"({"vocab_size": 1000, "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4})"),
               Catch::StartsWith("model_type: is missing; add the model's \"model_type\", one of llama, mistral, "));
    CHECK_THAT(only_error(R"({"architectures": ["BertForMaskedLM"], "hidden_size": 64})"),
               Catch::StartsWith("model_type: is missing and architectures [\"BertForMaskedLM\"] names no supported class; "));
    CHECK(only_error(R"({"model_type": 5})") == "model_type: must be a string; got 5");
}

TEST_CASE("text_config: the inner model_type, else the wrapper's, neither supported is an error on the inner one") {
    vl::Result<vl::ModelSpec> ok = vl::import_hf_config(R"({"model_type": "mistral3", "text_config": {"model_type": "mistral",
        "vocab_size": 1000, "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2}})");
    REQUIRE(ok.ok());
    CHECK(ok->model_type == "mistral");
    CHECK_THAT(only_error(R"({"model_type": "llava", "text_config": {"model_type": "vicuna"}})"),
               Catch::StartsWith("text_config.model_type: \"vicuna\" is not supported"));
}

TEST_CASE("bad config.json input: every rule names the field") {
    CHECK(only_error("{not json") ==
          "config: is not valid JSON: line 1, column 3: a key without quotes: JSON writes keys in double quotes (\"name\": 1) (at: {no)");
    CHECK(only_error("[1, 2]") == "config: must be a JSON object; got array");
    CHECK(only_error(R"({"model_type": "llama", "hidden_size": "4096"})") ==
          "hidden_size: must be an integer; got \"4096\"");
    CHECK(only_error(R"({"model_type": "llama", "hidden_size": 4096.5})") ==
          "hidden_size: must be an integer; got 4096.5");
    CHECK(only_error(R"({"model_type": "llama", "tie_word_embeddings": "yes"})") ==
          "tie_word_embeddings: must be true or false; got \"yes\"");
    CHECK(only_error(R"({"model_type": "llama", "num_hidden_layers": 0})") ==
          "num_hidden_layers: must be > 0; got 0");
    CHECK(only_error(R"({"model_type": "llama", "vocab_size": -5})") == "vocab_size: must be > 0; got -5");
    CHECK(only_error(R"({"model_type": "llama", "num_key_value_heads": 6})") ==
          "num_key_value_heads: must divide num_attention_heads (32); got 6");
    CHECK(only_error(R"({"model_type": "llama", "num_attention_heads": 30})") ==
          "num_attention_heads: must divide hidden_size (4096) when head_dim is not given; got 30");
    CHECK(only_error(R"({"model_type": "llama", "hidden_size": 2000000, "num_attention_heads": 1})")
              .rfind("hidden_size: must be at most 1000000 (absurd size)", 0) == 0);
    CHECK(only_error(R"({"model_type": "llama", "vocab_size": 99999999999999999999})")
              .rfind("vocab_size: must be at most", 0) == 0);
    CHECK(only_error(R"({"model_type": "gemma3", "text_config": 5})") == "text_config: must be an object; got number");
    CHECK(only_error(R"({"model_type": "mixtral", "num_local_experts": 8, "num_experts_per_tok": 9})") ==
          "num_experts_per_tok: must be at most num_experts (8); got 9");
}

TEST_CASE("errors name the alias the file used, with the text_config prefix") {
    CHECK(only_error(R"({"model_type": "gpt2", "n_embd": 768, "n_head": 7})") ==
          "n_head: must divide hidden_size (768) when head_dim is not given; got 7");
    CHECK(only_error(R"({"model_type": "bloom", "n_embed": 0})") == "n_embed: must be > 0; got 0");
    CHECK(only_error(R"({"model_type": "gemma3", "text_config": {"num_key_value_heads": 3}})") ==
          "text_config.num_key_value_heads: must divide num_attention_heads (8); got 3");
    CHECK(only_error(R"({"model_type": "mixtral", "intermediate_size": -1})") ==
          "intermediate_size: must be > 0; got -1");
}

// A learned position table needs rows: a 0 written under any alias of max_position_embeddings is an
// error on that key. It used to be replaced by the family default with a warning that the field was
// missing, though the file had it.
TEST_CASE("learned positions: a zero max_position_embeddings under any alias is an error naming that alias") {
    CHECK(only_error(R"({"model_type": "gpt2", "n_ctx": 0})") == "n_ctx: must be > 0; got 0");
    CHECK(only_error(R"({"model_type": "opt", "seq_length": 0})") == "seq_length: must be > 0; got 0");
    CHECK(only_error(R"({"model_type": "gpt2", "n_positions": 0})") == "n_positions: must be > 0; got 0");
}

TEST_CASE("aliases: n_inner, ffn_dim, multi_query, new_decoder_architecture") {
    vl::Result<vl::ModelSpec> g = vl::import_hf_config(
        R"({"model_type": "gpt2", "n_embd": 256, "n_layer": 2, "n_head": 4, "n_inner": 512, "vocab_size": 100})");
    REQUIRE(g.ok());
    CHECK(g->ffn == 512);
    vl::Result<vl::ModelSpec> o = vl::import_hf_config(R"({"model_type": "opt", "ffn_dim": 1000})");
    REQUIRE(o.ok());
    CHECK(o->ffn == 1000);
    // Falcon-40B style: new_decoder_architecture reads num_kv_heads and has 2 LayerNorms per layer.
    vl::Result<vl::ModelSpec> f = vl::import_hf_config(R"({"model_type": "falcon", "hidden_size": 8192,
        "num_attention_heads": 128, "num_kv_heads": 8, "num_hidden_layers": 60, "new_decoder_architecture": true})");
    REQUIRE(f.ok());
    CHECK(f->kv_heads == 8);
    CHECK(f->norms_per_layer == 2);
    // multi_query is Falcon's (FalconConfig); LlamaConfig has no such field and keeps kv heads = heads.
    vl::Result<vl::ModelSpec> mq = vl::import_hf_config(R"({"model_type": "llama", "vocab_size": 10, "hidden_size": 64,
        "num_hidden_layers": 1, "num_attention_heads": 4, "multi_query": true})");
    REQUIRE(mq.ok());
    CHECK(mq->kv_heads == 4);
}

TEST_CASE("model_from_param_count disables the architecture") {
    const vl::ModelSpec m = vl::model_from_param_count(7'000'000'000);
    CHECK_FALSE(m.architecture_known());
    CHECK(m.hidden == 0);
    CHECK(vl::count_params(m).total == 7'000'000'000);
}

// Issue 14 item 12: Qwen v1 (remote code, model_type "qwen") has its own config keys. The keys of
// Qwen/Qwen-7B's config.json that size the model; modeling_qwen.py builds per layer c_attn
// [3 * 128 * 32, 4096] + bias, c_proj [4096, 4096] (no_bias), QWenMLP w1, w2 [22016 // 2, 4096] and
// c_proj [4096, 11008], ln_1 and ln_2 (RMSNorm); wte, ln_f and an untied lm_head.
TEST_CASE("Qwen v1 (model_type qwen): kv_channels, no_bias and an MLP half of intermediate_size (hand-derived)") {
    vl::Result<vl::ModelSpec> r = vl::import_hf_config(R"({"architectures": ["QWenLMHeadModel"], "model_type": "qwen",
        "hidden_size": 4096, "intermediate_size": 22016, "kv_channels": 128, "max_position_embeddings": 32768,
        "no_bias": true, "num_attention_heads": 32, "num_hidden_layers": 32, "seq_length": 8192,
        "tie_word_embeddings": false, "vocab_size": 151936})");
    REQUIRE(r.ok());
    CHECK(r->model_type == "qwen");
    CHECK(r->ffn == 11008);
    CHECK(r->head_dim == 128);
    CHECK(r->kv_heads == 32);
    CHECK(r->qkv_bias);
    CHECK_FALSE(r->attn_out_bias);
    CHECK_FALSE(r->mlp_bias);
    CHECK(r->max_position == 32768);
    // per layer: c_attn 12288 * 4096 + 12288 = 50,343,936; c_proj 16,777,216; MLP 3 * 4096 * 11008 =
    // 135,266,304; norms 2 * 4096 = 8,192 -> 202,395,648; * 32 = 6,476,660,736.
    // wte + lm_head 2 * 151,936 * 4096 = 1,244,659,712; ln_f 4096. Total 7,721,324,544.
    CHECK(vl::count_params(*r).total == 7721324544);
    // no_bias false: c_proj and the MLP get biases too (4096 + 2 * 11008 + 4096 per layer).
    vl::Result<vl::ModelSpec> b = vl::import_hf_config(R"({"model_type": "qwen", "no_bias": false})");
    REQUIRE(b.ok());
    CHECK(vl::count_params(*b).total - vl::count_params(*r).total == 32 * (4096 + 2 * 11008 + 4096));
    // intermediate_size 1 would halve to an MLP of width 0: the error names what the file says.
    CHECK(only_error(R"({"model_type": "qwen", "intermediate_size": 1})") ==
          "intermediate_size: must be at least 2 (Qwen v1's MLP is intermediate_size // 2 wide); got 1");
    CHECK(only_error(R"({"model_type": "qwen", "intermediate_size": -8})") ==
          "intermediate_size: must be at least 2 (Qwen v1's MLP is intermediate_size // 2 wide); got -8");
}

TEST_CASE("import: the MLP activation: gelu_new from activation_function or GPT2Config's default, any other name fused") {
    // openai-community/gpt2 config.json: "activation_function": "gelu_new" (tests/data/configs/gpt2.json).
    CHECK(vl::import_hf_config(read_config("gpt2.json"))->activation == vl::MlpActivation::GeluNew);
    // Without the key, GPT2Config's default is gelu_new.
    CHECK(vl::import_hf_config(R"({"model_type": "gpt2", "n_embd": 768, "n_layer": 12, "n_head": 12, "vocab_size": 50257})")->activation ==
          vl::MlpActivation::GeluNew);
    // EleutherAI/pythia-160m: "hidden_act": "gelu" (one fused op); Llama's silu likewise.
    CHECK(vl::import_hf_config(read_config("pythia-160m.json"))->activation == vl::MlpActivation::Fused);
    CHECK(vl::import_hf_config(read_config("llama-3.1-8b.json"))->activation == vl::MlpActivation::Fused);
    // A GPT-2 config that names another activation is read as written.
    CHECK(vl::import_hf_config(R"({"model_type": "gpt2", "n_embd": 768, "n_layer": 12, "n_head": 12, "vocab_size": 50257,
        "activation_function": "relu"})")->activation == vl::MlpActivation::Fused);
}
