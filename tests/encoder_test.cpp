// Encoders (issue 18 item 5, issue 14 item 12): BERT, RoBERTa and XLM-RoBERTa as AutoModel loads them
// (the base model with its pooler, no LM head, no cache). Parameter counts are the published ones
// (tests/data/configs/SOURCES.md); memory is derived by hand from the shapes.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "estimate.h"
#include "model/hf_config.h"
#include "component_lookup.h"
#include "param_count.h"

using namespace vl;
using vl::test::has_error;

namespace {
ModelSpec config(const std::string& name) {
    std::ifstream f(std::string(VRAMLENS_TEST_DATA) + "/configs/" + name);
    REQUIRE(f.good());
    std::stringstream ss;
    ss << f.rdbuf();
    Result<ModelSpec> r = import_hf_config(ss.str());
    for (const auto& e : r.errors) INFO(to_string(e));
    REQUIRE(r.ok());
    return *r.value;
}

// The model of `file` in `mode`, batch sequences of `tokens` tokens.
Scenario scenario(const std::string& file, Mode mode, int64_t batch, int64_t tokens) {
    Scenario s;
    s.mode = mode;
    s.model = config(file);
    s.infer.batch = s.train.micro_batch = batch;
    s.infer.context = s.train.seq_len = tokens;
    return s;
}

// Training BertForSequenceClassification (2 labels) in fp32 as transformers' Trainer ran it in 2022: BERT's
// dropout 0.1 (hidden and attention probabilities), eager attention.
Scenario classifier_fp32(const std::string& file, int64_t batch, int64_t tokens) {
    Scenario s = scenario(file, Mode::Train, batch, tokens);
    s.model.num_labels = 2;
    s.train.precision = Precision::FP32;
    s.train.dropout = 0.1;
    s.train.flash_attention = false;
    return s;
}

double bytes_of(const Estimate& e, const std::string& id) {
    for (const Component& c : e.components)
        if (c.id == id) return c.bytes;
    return -1;
}
}  // namespace

TEST_CASE("encoders: exact parameter counts of real checkpoints (base model with pooler)") {
    CHECK(count_params(config("bert-base-uncased.json")).total == 109482240);
    CHECK(count_params(config("all-minilm-l6-v2.json")).total == 22713216);
    CHECK(count_params(config("roberta-base.json")).total == 124645632);
    CHECK(count_params(config("bge-m3.json")).total == 567754752);
    // bert-base-uncased by hand: embeddings 30522*768 + 512*768 + 2*768 (token types) + LayerNorm 2*768
    // = 23,837,184; 12 layers of q, k, v, o with biases (4*768*768 + 4*768), the MLP with biases
    // (2*768*3072 + 3072 + 768) and 2 LayerNorms (4*768) = 7,087,872 each; pooler 768*768 + 768.
    CHECK(23837184 + 12 * 7087872 + 590592 == 109482240);
    // roberta-large by hand (FacebookAI/roberta-large: hidden 1024, 24 layers, 16 heads, intermediate 4096, 514 positions,
    // 1 token type, vocabulary 50265): embeddings 50265*1024 + 514*1024 + 1024 + LayerNorm 2*1024 = 52,000,768; a layer
    // 4*(1024*1024 + 1024) + 1024*4096 + 4096 + 4096*1024 + 1024 + 2 LayerNorms 4*1024 = 12,596,224; pooler 1024*1024 + 1024.
    CHECK(count_params(config("roberta-large.json")).total == 52000768 + 24 * 12596224LL + 1049600);
    CHECK(52000768 + 24 * 12596224LL + 1049600 == 355359744);
    // The embedding presets (BertModel / XLMRobertaModel with the pooler, as sentence-transformers loads them):
    // embeddings vocab*h + positions*h + types*h + LayerNorm 2h; a layer 4(h^2 + h) + 2*h*f + f + h + 4h; pooler h^2 + h.
    // BAAI/bge-small-en-v1.5 (h 384, 12 layers, f 1536, BERT's vocabulary): 11,918,592 + 12 x 1,774,464 + 147,840 (Hub "33.4M").
    CHECK(count_params(config("bge-small-en-v1.5.json")).total == 11918592 + 12 * 1774464 + 147840);
    CHECK(11918592 + 12 * 1774464 + 147840 == 33360000);
    // bge-base-en-v1.5 and thenlper/gte-base have bert-base's shapes (Hub "109M"); bge-large-en-v1.5 and intfloat/e5-large-v2
    // bert-large's (Hub "335M"): embeddings 30522*1024 + 512*1024 + 2*1024 + 2*1024 = 31,782,912, 24 x 12,596,224, pooler 1,049,600.
    CHECK(count_params(config("bge-base-en-v1.5.json")).total == 109482240);
    CHECK(count_params(config("gte-base.json")).total == 109482240);
    CHECK(count_params(config("bge-large-en-v1.5.json")).total == 31782912 + 24 * 12596224LL + 1049600);
    CHECK(count_params(config("e5-large-v2.json")).total == 335141888);
    CHECK(31782912 + 24 * 12596224LL + 1049600 == 335141888);
    // intfloat/multilingual-e5-large (XLM-RoBERTa-large: vocabulary 250002, 514 positions, 1 token type): embeddings
    // 250002*1024 + 514*1024 + 1024 + 2048 = 256,531,456 (Hub "560M").
    CHECK(count_params(config("multilingual-e5-large.json")).total == 256531456 + 24 * 12596224LL + 1049600);
    const ModelSpec m = config("roberta-base.json");
    CHECK(m.encoder);
    CHECK(m.type_vocab == 1);
    CHECK(m.max_position == 514);
}

TEST_CASE("encoders: inference is a forward with no KV cache and no logits") {
    Scenario s = scenario("bert-base-uncased.json", Mode::Infer, 64, 512);
    s.overheads.fragmentation = 0;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    CHECK(bytes_of(e, "kv_cache") < 0);
    CHECK(bytes_of(e, "logits") < 0);
    // last_hidden_state: 64 * 512 * 768 * 2 B.
    CHECK(bytes_of(e, "act.hidden_out") == 64.0 * 512 * 768 * 2);
    CHECK(e.kv.tokens == 0);
    // Weights in bf16: 2 B per parameter.
    double weights = 0;
    for (const Component& c : e.components)
        if (c.category == Category::Weights) weights += c.bytes;
    CHECK(weights == 2.0 * 109482240);

    s.infer.engine = Engine::LlamaCpp;  // llama.cpp's embedding server is not modelled (vLLM and TEI: embedding_serving_test)
    const Estimate v = estimate(s);
    REQUIRE_FALSE(v.ok());
    CHECK(v.errors[0].field == "infer.engine");
}

TEST_CASE("encoders: training has no vocabulary logits, and relative positions are refused") {
    const Estimate e = estimate(scenario("roberta-base.json", Mode::Train, 8, 512));
    REQUIRE(e.ok());
    for (const Component& c : e.components) CHECK(c.category != Category::Logits);

    const Result<ModelSpec> rel = import_hf_config(R"({"model_type": "bert", "position_embedding_type": "relative_key"})");
    REQUIRE_FALSE(rel.ok());
    CHECK(rel.errors[0].field == "position_embedding_type");
}

// ---- training an encoder with its task head (issue 14 item 12) ----------------------------------

TEST_CASE("encoders: parameter counts with each task head, by hand") {
    // bert-large-uncased, BertModel with its pooler: embeddings 30522*1024 + 512*1024 + 2*1024 (token types)
    // + LayerNorm 2*1024 = 31,782,912; 24 layers of q, k, v, o with biases (4*1024*1024 + 4*1024 = 4,198,400),
    // the MLP with biases (2*1024*4096 + 4096 + 1024 = 8,393,728) and 2 LayerNorms (4*1024): 12,596,224 each;
    // pooler 1024*1024 + 1024 = 1,049,600.
    CHECK(31782912 + 24 * 12596224 + 1049600 == 335141888);
    ModelSpec m = config("bert-large-uncased.json");
    CHECK(count_params(m).total == 335141888);
    // BertForSequenceClassification: + classifier [2, 1024] + bias.
    m.num_labels = 2;
    CHECK(count_params(m).total == 335141888 + 2 * 1024 + 2);
    // BertForMaskedLM: no pooler; transform dense 1024*1024 + 1024, its LayerNorm 2*1024, the decoder's bias
    // 30522 (its weight is the word embedding).
    ModelSpec base = config("bert-base-uncased.json");
    base.mlm_head = true;
    CHECK(count_params(base).total == 109482240 - (768 * 768 + 768) + (768 * 768 + 768) + 2 * 768 + 30522);
    CHECK(count_params(base).total == 109514298);
}

TEST_CASE("encoders: one training step's activations, tensor by tensor, on a tiny BERT") {
    // h 8, 2 heads of 4, ffn 32, 2 layers, b 2, s 4 (T = 8 tokens), fp32, dropout 0.1, eager attention.
    Scenario s = classifier_fp32("bert-base-uncased.json", 2, 4);
    s.model.hidden = 8; s.model.heads = s.model.kv_heads = 2; s.model.head_dim = 4; s.model.ffn = 32; s.model.layers = 2;
    const Estimate e = estimate(s);
    for (const auto& err : e.errors) INFO(err.field + ": " + err.message);
    REQUIRE(e.ok());
    // Per layer (transformers BertLayer, fp32, 4 B; masks 1 B): the two LayerNorm inputs 2*4*8*8 = 512;
    // query/key/value input 256, Q and K 512, V 256, context (attention dense input) 256, its dropout mask 64:
    // 1344; scores b*heads*s*s = 64 elements: softmax 256, dropout mask 64, dropped probabilities 256: 576;
    // intermediate dense input 256, GELU input 4*8*32 = 1024, output dense input 1024, dropout mask 64: 2368.
    CHECK(bytes_of(e, "act.norms") == 2 * 512);
    CHECK(bytes_of(e, "act.attention") == 2 * 1344);
    CHECK(bytes_of(e, "act.scores") == 2 * 576);
    CHECK(bytes_of(e, "act.mlp") == 2 * 2368);
    // BertEmbeddings: int64 ids 8*8 = 64, its LayerNorm input 256, dropout mask 64.
    CHECK(bytes_of(e, "act.embedding") == 64 + 256 + 64);
    // The pooler's dense reads hidden_states[:, 0], a view that keeps the last hidden state (256); tanh output
    // 4*2*8 = 64; the classifier's dropout mask 16 and input 64.
    CHECK(bytes_of(e, "act.encoder_head") == 256 + 64 + 16 + 64);
    CHECK(vl::test::find(e, "act.final") == nullptr);
    CHECK(vl::test::find(e, "logits") == nullptr);
    // 10,384 B stored from forward to backward.
    CHECK(bytes_of(e, "act.norms") + bytes_of(e, "act.attention") + bytes_of(e, "act.scores") + bytes_of(e, "act.mlp") +
              bytes_of(e, "act.embedding") + bytes_of(e, "act.encoder_head") ==
          10384);
}

TEST_CASE("encoders: bert-large training as the Transformers single-GPU page ran it") {
    Scenario s = classifier_fp32("bert-large-uncased.json", 4, 512);
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    // Eager attention keeps b*heads*s^2 = 4*16*512^2 elements per layer: the fp32 softmax (4 B), the dropout
    // mask (1 B) and the dropped probabilities (4 B), on 24 layers.
    CHECK(bytes_of(e, "act.scores") == 24.0 * 4 * 16 * 512 * 512 * (4 + 1 + 4));
    // fp32 AdamW: weights, gradients and m, v: 16 B per parameter.
    CHECK(bytes_of(e, "weights") + bytes_of(e, "grads") + bytes_of(e, "optimizer.states") == 16.0 * (335141888 + 2050));

    // Under autocast (Trainer fp16=True) the softmax is fp32 and the matmul saves a 16-bit cast of the
    // dropped probabilities: 4 + 1 + 2 B per element.
    s.train.precision = Precision::AutocastFP16;
    CHECK(bytes_of(estimate(s), "act.scores") == 24.0 * 4 * 16 * 512 * 512 * (4 + 1 + 2));

    // Gradient checkpointing (torch.utils.checkpoint around each BertLayer): each layer's fp32 input.
    s.train.precision = Precision::FP32;
    s.train.recompute = Recompute::Full;
    const Estimate g = estimate(s);
    CHECK(bytes_of(g, "act.checkpoints") == 24.0 * 4 * 4 * 512 * 1024);
    CHECK(vl::test::find(g, "act.scores") == nullptr);
}

// BertForMaskedLM (bert-base-uncased) trained in fp32, micro-batch 2 x 128 tokens.
static Scenario bert_base_mlm_fp32() {
    Scenario s;
    s.mode = Mode::Train;
    s.model = config("bert-base-uncased.json");
    s.model.mlm_head = true;
    s.train.precision = Precision::FP32;
    s.train.micro_batch = 2;
    s.train.seq_len = 128;
    return s;
}

TEST_CASE("PyTorch before 1.11: softmax and log_softmax saved their input too (train.softmax_saves_input)") {
    // The Transformers single-GPU page's bert-large runs (January 2022, PyTorch 1.10): softmax's backward then kept
    // scores + mask beside the probabilities [pytorch-pr65242]. BERT's mask is fp32 (the parameters' dtype), so the sum
    // is fp32 under autocast too: 4 B more per element of b*heads*s^2 = 4*16*512^2 on each of the 24 layers.
    Scenario s = classifier_fp32("bert-large-uncased.json", 4, 512);
    s.train.softmax_saves_input = true;
    CHECK(bytes_of(estimate(s), "act.scores") == 24.0 * 4 * 16 * 512 * 512 * (4 + 4 + 1 + 4));
    s.train.precision = Precision::AutocastFP16;
    CHECK(bytes_of(estimate(s), "act.scores") == 24.0 * 4 * 16 * 512 * 512 * (4 + 4 + 1 + 2));

    // The masked-LM loss: log_softmax's input is the fp32 logits (4 B * 2 * 128 * 30522), kept from forward into
    // backward instead of dropped with the model outputs.
    Scenario m = bert_base_mlm_fp32();
    const auto backward = [](const Estimate& e, const char* id) { return vl::test::live_in(e, id, Phase::Backward); };
    CHECK_FALSE(backward(estimate(m), "logits"));
    m.train.softmax_saves_input = true;
    const Estimate held = estimate(m);
    CHECK(bytes_of(held, "logits") == 4.0 * 256 * 30522);
    CHECK(backward(held, "logits"));
    // Under autocast the fp32 cast log_softmax reads is the saved input instead; the 16-bit logits go as before.
    m.train.precision = Precision::AutocastFP16;
    const Estimate cast = estimate(m);
    CHECK(bytes_of(cast, "logits.fp32") == 4.0 * 256 * 30522);
    CHECK(backward(cast, "logits.fp32"));
    CHECK_FALSE(backward(cast, "logits"));
}

TEST_CASE("encoders: the masked-LM head keeps its transform's inputs and the vocabulary logits") {
    Scenario s = bert_base_mlm_fp32();
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    // transform dense input, GELU input, LayerNorm input, decoder input: 4 x (4 B * 256 tokens * 768).
    CHECK(bytes_of(e, "act.encoder_head") == 4.0 * 4 * 256 * 768);
    // fp32 logits over the vocabulary (4 B * 256 * 30522) and cross_entropy's fp32 log-softmax; no fp32 copy
    // (they are fp32 already) and no shifted copy (a masked-LM loss reads every position).
    CHECK(bytes_of(e, "logits") == 4.0 * 256 * 30522);
    CHECK(bytes_of(e, "logits.loss") == 4.0 * 256 * 30522);
    CHECK(vl::test::find(e, "logits.fp32") == nullptr);
    s.train.loss = LossImpl::UpcastShift;
    const Estimate shifted = estimate(s);
    CHECK(vl::test::find(shifted, "logits.shift_copy") == nullptr);
}

TEST_CASE("encoders: what training does not model is refused by name") {
    Scenario s = scenario("bert-base-uncased.json", Mode::FineTune, 8, 128);
    s.finetune.method = FineTuneMethod::LoRA;
    CHECK(has_error(estimate(s), "finetune.method", "for an encoder (bert)"));
    s.finetune.method = FineTuneMethod::Full;
    s.train.compat = Compat::Megatron;
    CHECK(has_error(estimate(s), "train.compat", "for an encoder (bert)"));

    Scenario both = scenario("bert-base-uncased.json", Mode::Train, 8, 128);
    both.model.num_labels = 3;
    both.model.mlm_head = true;
    CHECK(has_error(estimate(both), "model.num_labels", "two model classes"));
    both.model.num_labels = -1;
    both.model.mlm_head = false;
    CHECK(has_error(estimate(both), "model.num_labels", ">= 0"));

    Scenario decoder = scenario("gpt2.json", Mode::Train, 1, 128);
    decoder.model.mlm_head = true;
    CHECK(has_error(estimate(decoder), "model.mlm_head", "not one"));
}

TEST_CASE("training: zero_grad(set_to_none=False) holds the gradients in every phase") {
    // PyTorch before 2.0 zeroed .grad in place: the gradients made by the first step stay allocated, so
    // forward and backward hold them too [pytorch-zero-grad]; set_to_none=True frees them after the step.
    Scenario s = scenario("bert-base-uncased.json", Mode::Train, 2, 128);
    s.train.precision = Precision::FP32;
    const Estimate before = estimate(s);
    const Component* now = vl::test::find(before, "grads");
    REQUIRE(now != nullptr);
    CHECK(now->phases == phase_bit(Phase::Step));
    s.train.zero_grad_set_to_none = false;
    const Estimate e = estimate(s);
    const Component* held = vl::test::find(e, "grads");
    REQUIRE(held != nullptr);
    CHECK(held->phases == (phase_bit(Phase::Forward) | phase_bit(Phase::Backward) | phase_bit(Phase::Step)));
    CHECK(held->bytes == 4.0 * 109482240);
}

TEST_CASE("encoders: RoBERTa's classification head drops out the first tokens, so the last hidden state is freed") {
    // RobertaClassificationHead: dropout(features[:, 0]) -> dense -> tanh -> dropout -> out_proj, the pooler's
    // parameters under other names. b 2, s 4, h 768, fp32, dropout 0.1: masks 2*768 (1 B) twice, the dense's and
    // out_proj's inputs and tanh's output 2*768*4 B each: 14 * 2 * 768 B, and no b*s*h tensor.
    Scenario s = classifier_fp32("roberta-base.json", 2, 4);
    CHECK(count_params(s.model).total == 124645632 + 2 * 768 + 2);
    CHECK(bytes_of(estimate(s), "act.encoder_head") == 14.0 * 2 * 768);
    // BERT's pooler reads a view of the last hidden state: 4 * 8 * 768 B more than its own b x h tensors.
    Scenario bert = classifier_fp32("bert-base-uncased.json", 2, 4);
    CHECK(bytes_of(estimate(bert), "act.encoder_head") == 4.0 * 8 * 768 + 9.0 * 2 * 768);
}
