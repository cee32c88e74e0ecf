// Encoder-decoders (issue 14 item 12, issue 18): T5, mT5 and BART imported from their config.json. Parameter counts are
// the published ones (tests/data/configs/SOURCES.md) and hand sums of the modules transformers builds (modeling_t5.py,
// modeling_bart.py): two stacks, the decoder's layers with a cross-attention, one shared token embedding.
#include <catch2/catch.hpp>

#include <string>

#include "component_lookup.h"
#include "config_files.h"
#include "estimate.h"
#include "model/hf_config.h"
#include "model/layer_tensors.h"
#include "model/presets.h"
#include "param_count.h"
#include "training/finetune.h"

using namespace vl;
using vl::test::bytes_of;
using vl::test::has_error;

namespace {
ModelSpec config(const std::string& name) { return vl::test::imported_config(name); }

std::string first_error(const std::string& json) {
    Result<ModelSpec> r = import_hf_config(json);
    REQUIRE_FALSE(r.ok());
    REQUIRE_FALSE(r.errors.empty());
    return to_string(r.errors.front());
}
}  // namespace

TEST_CASE("encoder-decoders: exact parameter counts of real checkpoints") {
    // t5-small: d 512, heads 8 x d_kv 64, d_ff 2048 (relu: wi, wo), 6 + 6 layers, vocab 32128, lm_head tied.
    // encoder layer: q,k,v,o 4*512*512 + wi, wo 2*512*2048 + 2 norms 2*512 = 3,146,752;
    // decoder layer: + cross-attention 4*512*512 + its norm 512 = 4,195,840;
    // outside: shared 32128*512 = 16,449,536, relative_attention_bias 2 stacks x 32*8, final_layer_norm 2 x 512.
    const ModelSpec small = config("t5-small.json");
    const ParamCounts p = count_params(small);
    CHECK(p.total == 6 * 3146752 + 6 * 4195840 + 16449536 + 2 * 256 + 2 * 512);
    CHECK(p.total == 60506624);  // keras-hub t5_presets "t5_small"
    CHECK(p.per_layer.kind(0).total() == 3146752);
    CHECK(p.per_layer.kind(6).total() == 4195840);
    CHECK(p.per_layer.kind(11).total() == 4195840);
    CHECK(p.lm_head == 0);

    // T0_3B (T5 v1.1 LM-adapted XL): d 2048, 32 heads x 64, d_ff 5120 gated (wi_0, wi_1, wo), 24 + 24 layers, lm_head untied.
    // encoder layer 4*2048^2 + 3*2048*5120 + 2*2048 = 48,238,592; decoder layer + 4*2048^2 + 2048 = 65,017,856;
    // shared and lm_head 2 x 32128*2048; relative_attention_bias 2 x 32*32; final norms 2 x 2048.
    const ParamCounts t0 = count_params(config("t0-3b.json"));
    CHECK(t0.total == 24 * 48238592LL + 24 * 65017856LL + 2 * 65798144LL + 2 * 1024 + 2 * 2048);
    CHECK(t0.total == 2849757184LL);  // keras-hub t5_presets "t5_1.1_xl" (the same shapes)
    CHECK(t0.lm_head == 65798144);

    // mt0-xxl (mT5-XXL): d 4096, 64 heads x 64, d_ff 10240 gated, 24 + 24 layers, vocab 250112, lm_head untied.
    // encoder layer 4*4096^2 + 3*4096*10240 + 2*4096 = 192,946,176; decoder layer + 4*4096^2 + 4096 = 260,059,136.
    const ParamCounts mt0 = count_params(config("mt0-xxl.json"));
    CHECK(mt0.total == 24 * 192946176LL + 24 * 260059136LL + 2 * 250112LL * 4096 + 2 * 32 * 64 + 2 * 4096);
    CHECK(mt0.total == 12921057280LL);

    // facebook/bart-large: d 1024, 16 heads, ffn 4096 (fc1, fc2), 12 + 12 post-norm layers, biases on every Linear.
    // encoder layer: 4*(1024^2 + 1024) + 1024*4096 + 4096 + 4096*1024 + 1024 + 2 LayerNorms 2*2048 = 12,596,224;
    // decoder layer: + encoder_attn 4*(1024^2 + 1024) + its LayerNorm 2048 = 16,796,672;
    // shared 50265*1024; per stack embed_positions (1024 + 2) x 1024 and layernorm_embedding 2048; no final norm, lm_head tied.
    const ModelSpec bart = config("bart-large.json");
    const ParamCounts b = count_params(bart);
    CHECK(b.total == 12 * 12596224LL + 12 * 16796672LL + 50265LL * 1024 + 2 * 1026 * 1024 + 2 * 2048);
    CHECK(b.total == 406291456);  // AutoModel.from_pretrained("facebook/bart-large").num_parameters()
}

TEST_CASE("encoder-decoders: the presets' checkpoints, counted by hand (T5, FLAN-T5, mT0, BART)") {
    // A T5 layer (modeling_t5.py, no biases): q, k, v, o 4 x d x (heads x d_kv); the MLP wi, wo (relu) or wi_0, wi_1, wo
    // (gated-gelu) x d x d_ff; a T5LayerNorm (weight only) per sub-layer. The decoder adds a cross-attention and its norm.
    // Outside the layers: shared (vocab x d), an untied lm_head (vocab x d) in v1.1 / mT5, relative_attention_bias (32 buckets
    // x heads) in each stack's first layer, and a final_layer_norm per stack.
    struct T5 {
        const char* file;
        int64_t d, d_ff, inner, heads, layers, vocab, mlp_mats, embeddings;
    };
    const auto by_hand = [](const T5& m) {
        const int64_t attention = 4 * m.d * m.inner;
        const int64_t encoder_layer = attention + m.mlp_mats * m.d * m.d_ff + 2 * m.d;
        const int64_t decoder_layer = encoder_layer + attention + m.d;
        return m.layers * (encoder_layer + decoder_layer) + m.embeddings * m.vocab * m.d + 2 * 32 * m.heads + 2 * m.d;
    };
    // T5 v1.0 (relu, tied): keras_nlp's published counts [keras-nlp-t5-sizes].
    const T5 t5_base{"t5-base.json", 768, 3072, 768, 12, 12, 32128, 2, 1};
    CHECK(by_hand(t5_base) == 222903552);
    const T5 t5_large{"t5-large.json", 1024, 4096, 1024, 16, 24, 32128, 2, 1};
    CHECK(by_hand(t5_large) == 737668096);
    const T5 t5_3b{"t5-3b.json", 1024, 16384, 32 * 128, 32, 24, 32128, 2, 1};  // d_kv 128: the heads' width is 4096, not d
    CHECK(by_hand(t5_3b) == 2851598336LL);
    // FLAN-T5 (T5 v1.1 shapes: gated-gelu, untied lm_head) [keras-hub-t5]: "t5_1.1_base", "t5_1.1_xl", "t5_1.1_xxl" with the head;
    // "t5_1.1_small" 60,511,616 and "t5_1.1_large" 750,251,008 without it (32128 x d).
    const T5 flan_small{"flan-t5-small.json", 512, 1024, 6 * 64, 6, 8, 32128, 3, 2};
    CHECK(by_hand(flan_small) == 60511616 + 32128 * 512);
    const T5 flan_base{"flan-t5-base.json", 768, 2048, 768, 12, 12, 32128, 3, 2};
    CHECK(by_hand(flan_base) == 247577856);
    const T5 flan_large{"flan-t5-large.json", 1024, 2816, 1024, 16, 24, 32128, 3, 2};
    CHECK(by_hand(flan_large) == 750251008 + 32128 * 1024);
    const T5 flan_xl{"flan-t5-xl.json", 2048, 5120, 2048, 32, 24, 32128, 3, 2};
    CHECK(by_hand(flan_xl) == 2849757184LL);
    const T5 flan_xxl{"flan-t5-xxl.json", 4096, 10240, 4096, 64, 24, 32128, 3, 2};
    CHECK(by_hand(flan_xxl) == 11135332352LL);
    // mT0 (mT5 shapes, vocabulary 250,112): the mT5 paper's 300M, 580M, 3.7B [mt5-paper]; mt0-large from PEFT's README: all
    // params 1,231,940,608 with LoRA r=8's 2,359,296 [peft-readme-mt0].
    const T5 mt0_small{"mt0-small.json", 512, 1024, 6 * 64, 6, 8, 250112, 3, 2};
    CHECK(by_hand(mt0_small) == 300176768);
    const T5 mt0_base{"mt0-base.json", 768, 2048, 768, 12, 12, 250112, 3, 2};
    CHECK(by_hand(mt0_base) == 582401280);
    const T5 mt0_large{"mt0-large.json", 1024, 2816, 1024, 16, 24, 250112, 3, 2};
    CHECK(by_hand(mt0_large) == 1231940608 - 2359296);
    const T5 mt0_xl{"mt0-xl.json", 2048, 5120, 2048, 32, 24, 250112, 3, 2};
    CHECK(by_hand(mt0_xl) == 3742619648LL);
    for (const T5& m : {t5_base, t5_large, t5_3b, flan_small, flan_base, flan_large, flan_xl, flan_xxl, mt0_small, mt0_base, mt0_large,
                        mt0_xl}) {
        INFO(m.file);
        CHECK(count_params(config(m.file)).total == by_hand(m));
    }
    // facebook/bart-base: d 768, 12 heads, ffn 3072, 6 + 6 layers; a layer as bart-large's in the test above:
    // encoder 4*(768^2 + 768) + 768*3072 + 3072 + 3072*768 + 768 + 2 LayerNorms 2*1536 = 7,087,872; decoder + 4*(768^2 + 768) + 1536.
    // keras-hub's "bart_base_en" 139,417,344 keeps 1024 position rows per stack, transformers 1024 + 2 [keras-hub-bart].
    const int64_t bart_encoder_layer = 4 * (768 * 768 + 768) + 768 * 3072 + 3072 + 3072 * 768 + 768 + 2 * 1536;
    CHECK(bart_encoder_layer == 7087872);
    const int64_t bart_base = 6 * (2 * bart_encoder_layer + 4 * (768 * 768 + 768) + 1536) + 50265LL * 768 + 2 * 1026 * 768 + 2 * 1536;
    CHECK(bart_base == 139417344 + 2 * 2 * 768);
    CHECK(count_params(config("bart-base.json")).total == bart_base);
}

TEST_CASE("encoder-decoders: each preset is its config file's model") {
    // The presets keep the size fields of the Hub files (assets/presets/models.json); they import as the whole files do.
    for (const char* id : {"t5-small", "t5-base", "t5-large", "t5-3b", "flan-t5-small", "flan-t5-base", "flan-t5-large", "flan-t5-xl",
                           "flan-t5-xxl", "mt0-small", "mt0-base", "mt0-large", "mt0-xl", "mt0-xxl", "bart-base", "bart-large"}) {
        INFO(id);
        const ModelPreset* p = find_model(id);
        REQUIRE(p != nullptr);
        const ModelSpec file = config(std::string(id) + ".json");
        CHECK(count_params(p->spec).total == count_params(file).total);
        CHECK(p->spec.layers == file.layers);
        CHECK(p->spec.seq2seq.decoder_layers == file.seq2seq.decoder_layers);
        CHECK(p->spec.gated_mlp == file.gated_mlp);
        CHECK(p->spec.tied_embeddings == file.tied_embeddings);
        CHECK(p->spec.position == file.position);
    }
}

TEST_CASE("encoder-decoders: what the import reads from config.json") {
    const ModelSpec t5 = config("t5-small.json");
    CHECK(t5.model_type == "t5");
    CHECK(t5.layers == 12);  // both stacks: num_layers 6 (encoder) + num_decoder_layers (default: num_layers)
    CHECK(t5.seq2seq.decoder_layers == 6);
    CHECK(t5.seq2seq.relative_buckets == 32);
    CHECK(t5.head_dim == 64);  // d_kv
    CHECK_FALSE(t5.gated_mlp);  // feed_forward_proj default "relu" (T5Config)
    CHECK(t5.tied_embeddings);
    CHECK(t5.norm == NormKind::RMSNorm);
    CHECK(t5.position == PositionKind::None);
    CHECK_FALSE(t5.embedder);

    const ModelSpec t0 = config("t0-3b.json");
    CHECK(t0.gated_mlp);
    CHECK(t0.activation == MlpActivation::GeluNew);  // gated-gelu: dense_act_fn gelu_new
    CHECK_FALSE(t0.tied_embeddings);

    const ModelSpec mt0 = config("mt0-xxl.json");
    CHECK(mt0.model_type == "mt5");
    CHECK(mt0.vocab == 250112);
    CHECK(mt0.layers == 48);

    const ModelSpec bart = config("bart-large.json");
    CHECK(bart.layers == 24);
    CHECK(bart.seq2seq.decoder_layers == 12);
    CHECK(bart.seq2seq.relative_buckets == 0);
    CHECK(bart.position == PositionKind::Learned);
    CHECK(bart.position_offset == 2);  // BartLearnedPositionalEmbedding: max_position_embeddings + 2 rows
    CHECK(bart.embedding_norm);        // layernorm_embedding
    CHECK_FALSE(bart.final_norm);
    CHECK(bart.qkv_bias);
    CHECK(bart.mlp_bias);
    CHECK_FALSE(bart.embedder);  // its class is BartModel; read as BartForConditionalGeneration
    CHECK(bart.tied_embeddings);

    // mT5's defaults (MT5Config): gated-gelu and an untied head when the file does not say.
    Result<ModelSpec> bare = import_hf_config(R"({"model_type": "mt5", "d_model": 512, "num_layers": 2, "num_heads": 6, "d_ff": 1024,
                                                  "vocab_size": 1000})");
    REQUIRE(bare.ok());
    CHECK(bare.value->gated_mlp);
    CHECK_FALSE(bare.value->tied_embeddings);
    CHECK(bare.value->seq2seq.decoder_layers == 2);
}

TEST_CASE("encoder-decoders: the decoder's layers hold a cross-attention, the encoder's do not") {
    const ModelSpec t5 = config("t5-small.json");
    const LayerPattern pattern = layer_pattern(t5);
    CHECK(pattern.cross_count(0, 12) == 6);
    CHECK(pattern.cross_count(0, 6) == 0);
    CHECK_FALSE(pattern.cross(5));
    CHECK(pattern.cross(6));
    // The decoder layer's matrices: q, k, v, o twice (self- and cross-attention), wi, wo.
    int q = 0, v = 0;
    for (const Tensor& t : layer_tensors(t5, pattern.kind(6))) {
        q += t.role == TensorRole::Q ? 1 : 0;
        v += t.role == TensorRole::V ? 1 : 0;
    }
    CHECK(q == 2);
    CHECK(v == 2);
}

TEST_CASE("encoder-decoders: unsupported ones and bad fields are errors that name what is supported") {
    for (const char* t : {"umt5", "longt5", "mbart", "pegasus", "marian", "whisper"}) {
        INFO(t);
        const std::string e = first_error(std::string(R"({"model_type": ")") + t + R"(", "d_model": 512})");
        CHECK_THAT(e, Catch::Contains("is an encoder-decoder model vramlens does not support yet"));
        CHECK_THAT(e, Catch::Contains("t5, mt5, bart"));
    }
    CHECK_THAT(first_error(R"({"model_type": "bart", "encoder_attention_heads": 16, "decoder_attention_heads": 8})"),
               Catch::StartsWith("decoder_attention_heads: must equal encoder_attention_heads (16)"));
    CHECK_THAT(first_error(R"({"model_type": "bart", "encoder_ffn_dim": 4096, "decoder_ffn_dim": 2048})"),
               Catch::StartsWith("decoder_ffn_dim: must equal encoder_ffn_dim (4096)"));
    CHECK_THAT(first_error(R"({"model_type": "t5", "feed_forward_proj": "double-gelu"})"),
               Catch::StartsWith("feed_forward_proj: must be an activation"));
    CHECK_THAT(first_error(R"({"model_type": "t5", "num_decoder_layers": 0})"), Catch::StartsWith("num_decoder_layers: must be at least 1"));
}

TEST_CASE("encoder-decoders: LoRA on q and v adapts every attention block, as PEFT counts it (mt0-large)") {
    // bigscience/mt0-large (mT5-large): d 1024, 16 heads x 64, d_ff 2816 gated, 24 + 24 layers, vocab 250112. PEFT's README
    // (huggingface/peft @ 73d7224) prints for it with LoraConfig(r=8) on TaskType.SEQ_2_SEQ_LM (targets q, v):
    // "trainable params: 2359296 || all params: 1231940608".
    Result<ModelSpec> r = import_hf_config(R"({"model_type": "mt5", "d_model": 1024, "d_kv": 64, "d_ff": 2816, "num_layers": 24,
        "num_decoder_layers": 24, "num_heads": 16, "vocab_size": 250112, "feed_forward_proj": "gated-gelu", "tie_word_embeddings": false})");
    REQUIRE(r.ok());
    const int64_t lora = lora_trainable_params(*r.value, 8, kLoraQ | kLoraV);
    // encoder layers: q, v of the self-attention, 2 x 8 x (1024 + 1024); decoder layers: q, v of self- and cross-attention, 4 x.
    CHECK(lora == 24 * 2 * 8 * 2048 + 24 * 4 * 8 * 2048);
    CHECK(lora == 2359296);
    CHECK(count_params(*r.value).total + lora == 1231940608);
}

namespace {
// t5-small trained in full in fp32 with FlashAttention and no dropout: b = 2, a source of 8 tokens, a target of 4.
Scenario t5_small_training() {
    Scenario s;
    s.model = config("t5-small.json");
    s.mode = Mode::Train;
    s.train.precision = Precision::FP32;
    s.train.micro_batch = 2;
    s.train.seq_len = 8;
    s.train.target_len = 4;
    s.train.flash_attention = true;
    s.train.dropout = 0;
    return s;
}
}  // namespace

TEST_CASE("encoder-decoders: training activations, each stack over its own tokens (t5-small by hand)") {
    const Estimate e = estimate(t5_small_training());
    for (const auto& err : e.errors) INFO(to_string(err));
    REQUIRE(e.errors.empty());
    // Every saved tensor in fp32 (4 bytes); h 512, 8 heads x 64, ffn 2048 (relu: wi, wo).
    // Encoder layer, T = 2 x 8 = 16 tokens: 2 norm inputs 2*4*16*512 = 65,536; attention: q/k/v input 4*16*512, Q and K 4*16*1024,
    // V 4*16*512, the output (o's input) 4*16*512, FlashAttention's fp32 lse 4*2*8*8 = 164,352; MLP: wi input 4*16*512, relu input
    // 4*16*2048, wo input 4*16*2048 = 294,912. Six layers: 6 x 524,800.
    CHECK(bytes_of(e, "act.encoder") == 6 * (65536 + 164352 + 294912));
    // Decoder layer, T = 2 x 4 = 8 tokens: 3 norm inputs 3*4*8*512 = 49,152; self-attention 16,384 + 32,768 + 16,384 + 16,384 + lse
    // 4*2*8*4 = 82,176; cross-attention: q's input 4*8*512, Q 4*8*512 and K 4*16*512 over the 16 source tokens, V 4*16*512, the
    // output 4*8*512, lse 256 = 114,944; MLP 4*8*512 + 2 * 4*8*2048 = 147,456. Six layers: 6 x 393,728.
    CHECK(bytes_of(e, "act.decoder") == 6 * (49152 + 82176 + 114944 + 147456));
    // The encoder output, kept once for every decoder layer's k and v: 4*16*512, and the encoder's final_layer_norm input 4*16*512.
    CHECK(bytes_of(e, "act.encoder_output") == 2 * 4 * 16 * 512);
    // The target length sets the decoder's share only: a longer source changes the encoder's and the cross-attention's.
    Scenario longer = t5_small_training();
    longer.train.target_len = 8;
    const Estimate l = estimate(longer);
    CHECK(bytes_of(l, "act.encoder") == bytes_of(e, "act.encoder"));
    CHECK(bytes_of(l, "act.decoder") > bytes_of(e, "act.decoder"));
}

TEST_CASE("encoder-decoders: generate() keeps the decoder's self-attention cache and the source's cross-attention cache") {
    Scenario s;
    s.model = config("t5-small.json");
    s.mode = Mode::Infer;
    s.infer.engine = Engine::Transformers;
    s.infer.batch = 1;
    s.infer.context = 100;    // the source
    s.infer.target_len = 20;  // generated tokens
    s.infer.kv_dtype = KvDtype::FP16;
    const Estimate e = estimate(s);
    for (const auto& err : e.errors) INFO(to_string(err));
    REQUIRE(e.errors.empty());
    // 6 decoder layers x 2 (K, V) x 8 heads x 64 x 2 bytes per token; the encoder's layers keep no cache.
    CHECK(bytes_of(e, "kv_cache") == 6.0 * 20 * 2 * 8 * 64 * 2);
    CHECK(bytes_of(e, "kv_cache.cross") == 6.0 * 100 * 2 * 8 * 64 * 2);
    CHECK(bytes_of(e, "act.encoder_output") == 1.0 * 100 * 512 * 2);
    // Other engines are refused, naming the one that is modelled.
    s.infer.engine = Engine::VLLM;
    CHECK(has_error(estimate(s), "infer.engine", "use engine transformers"));
}

TEST_CASE("encoder-decoders: target lengths on a one-stack model, and what is not modelled, are errors") {
    Scenario s;  // Llama-3.1-8B
    s.mode = Mode::Train;
    s.train.target_len = 16;
    CHECK(has_error(estimate(s), "train.target_len", "leave it 0"));
    s.mode = Mode::Infer;
    s.train.target_len = 0;
    s.infer.target_len = 16;
    CHECK(has_error(estimate(s), "infer.target_len", "leave it 0"));
    Scenario p = t5_small_training();
    p.parallel.pp = 2;
    CHECK(has_error(estimate(p), "parallel.pp", "use pp 1"));
}
