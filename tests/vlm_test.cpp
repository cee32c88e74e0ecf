// Vision-language models (issue 18 item 3): the vision tower and projector from config.json's vision_config,
// counted tensor by tensor (layer_tensors.h vision_tensors), image tokens per image by each family's
// rule (model/image_tokens.h), and the tower's weights in the inference estimate. Counts are the published
// ones (tests/data/configs/SOURCES.md); the per-tensor sums and image tokens are derived by hand below.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cli.h"
#include "config_files.h"
#include "estimate.h"
#include "model/hf_config.h"
#include "model/image_tokens.h"
#include "model/presets.h"
#include "param_count.h"
#include "repo_files.h"
#include "scenario_json.h"
#include "share_link.h"
#include "training/finetune.h"

using namespace vl;

namespace {
std::string read_config(const std::string& name) { return test::config_text(name); }
ModelSpec config(const std::string& name) { return test::imported_config(name); }

bool has_warning(const Result<ModelSpec>& r, const std::string& part) {
    for (const auto& w : r.warnings)
        if (w.find(part) != std::string::npos) return true;
    return false;
}

// The single error of importing `json`, as "field: message".
std::string only_error(const std::string& json) {
    Result<ModelSpec> r = import_hf_config(json);
    REQUIRE_FALSE(r.ok());
    REQUIRE(r.errors.size() == 1);
    return to_string(r.errors[0]);
}

double bytes_of(const Estimate& e, const std::string& id) {
    for (const Component& c : e.components)
        if (c.id == id) return c.bytes;
    return -1;
}

// A 2-layer CLIP tower (h 8, 2 heads, ffn 16, 4 px patches of a 8 px image) under LLaVA's projector, on a tiny Llama.
const char* kTinyLlava = R"({"model_type": "llava",
  "text_config": {"model_type": "llama", "vocab_size": 10, "hidden_size": 4, "intermediate_size": 8, "num_hidden_layers": 1,
                  "num_attention_heads": 2, "num_key_value_heads": 2},
  "vision_config": {"model_type": "clip_vision_model", "hidden_size": 8, "intermediate_size": 16, "num_hidden_layers": 2,
                    "num_attention_heads": 2, "image_size": 8, "patch_size": 4, "num_channels": 3}})";
// Qwen2.5-VL-7B-Instruct, samples of `text` tokens and `images` images of width x height.
Scenario qwen_vl_sample(Mode mode, int64_t text, int64_t images, int64_t width, int64_t height) {
    Scenario s;
    s.mode = mode;
    s.model = config("qwen2.5-vl-7b-instruct.json");
    s.train.seq_len = text;
    s.train.images = images;
    s.train.image_width = width;
    s.train.image_height = height;
    return s;
}
// LoRA on Qwen2.5-VL-7B-Instruct over a bf16 base: one sample of 1000 text tokens and two 1280 x 720 images.
Scenario lora_sample_with_images() { return qwen_vl_sample(Mode::FineTune, 1000, 2, 1280, 720); }
}  // namespace

TEST_CASE("vision-language models: exact parameter counts of real checkpoints, tower and projector apart") {
    // Qwen/Qwen2.5-VL-7B-Instruct: the Hub's numParameters 8,292,166,656; of them the language model is Qwen2.5-7B's
    // 7,615,616,512 and model.visual (tower + merger) 676,550,144, as a public fine-tuning script printed them.
    const ParamCounts q = count_params(config("qwen2.5-vl-7b-instruct.json"));
    CHECK(q.total == 7615616512);
    CHECK(q.vision + q.projector == 676550144);
    CHECK(q.total + q.vision + q.projector == 8292166656);
    // By hand: patch_embed Conv3d 1280 x (3 * 2 * 14 * 14) = 1,505,280; a block: norm1 + norm2 2 * 1280, qkv 3840 * 1280 + 3840,
    // proj 1280 * 1280 + 1280, gate and up 2 * (3420 * 1280 + 3420), down 1280 * 3420 + 1280 = 19,702,200; 32 blocks.
    CHECK(q.vision == 1505280 + 32 * 19702200);
    // The merger: ln_q 1280, mlp.0 5120 x 5120 + 5120, mlp.2 3584 x 5120 + 3584.
    CHECK(q.projector == 1280 + 5120 * 5120 + 5120 + 3584 * 5120 + 3584);

    // llava-hf/llava-1.5-7b-hf: 7,063,427,072 (LlavaForConditionalGeneration's parameters, as a public test asserts them).
    const ParamCounts l = count_params(config("llava-1.5-7b-hf.json"));
    CHECK(l.total + l.vision + l.projector == 7063427072);
    // CLIP ViT-L/14-336 by hand: class_embedding 1024, patch_embedding 1024 x 3 x 14 x 14 = 602,112, position_embedding
    // (24^2 + 1) x 1024 = 590,848, pre_layrnorm and post_layernorm 2 x 2048; a layer: q, k, v, out 4 x (1024^2 + 1024),
    // fc1 4096 x 1024 + 4096, fc2 1024 x 4096 + 1024, 2 LayerNorms 4 x 1024 = 12,596,224; 24 layers.
    CHECK(l.vision == 1024 + 602112 + 590848 + 2 * 2048 + 24 * 12596224);
    CHECK(l.vision == 303507456);  // openai/clip-vit-large-patch14-336's vision model
    // The projector: linear_1 4096 x 1024 + 4096, linear_2 4096 x 4096 + 4096.
    CHECK(l.projector == 4096 * 1024 + 4096 + 4096 * 4096 + 4096);

    // google/gemma-3-4b-it 4,300,079,472 and google/gemma-3-27b-it 27,432,406,640 (Hub safetensors counts).
    const ParamCounts g4 = count_params(config("gemma-3-4b-it.json"));
    CHECK(g4.total + g4.vision + g4.projector == 4300079472);
    const ParamCounts g27 = count_params(config("gemma-3-27b-it.json"));
    CHECK(g27.total + g27.vision + g27.projector == 27432406640);
    // SigLIP so400m by hand: patch_embedding 1152 x 588 + 1152, positions 64^2 x 1152 = 4,718,592, post_layernorm 2 x 1152;
    // a layer: q, k, v, out 4 x (1152^2 + 1152), fc1 4304 x 1152 + 4304, fc2 1152 x 4304 + 1152, 2 LayerNorms 4 x 1152.
    const int64_t siglip_layer = 4 * (1152 * 1152 + 1152) + 4304 * 1152 + 4304 + 1152 * 4304 + 1152 + 4 * 1152;
    CHECK(g4.vision == 1152 * 588 + 1152 + 4718592 + 2 * 1152 + 27 * siglip_layer);
    CHECK(g27.vision == g4.vision);  // the same tower
    // Gemma3MultiModalProjector: mm_soft_emb_norm 1152 + mm_input_projection_weight 1152 x d (2560 and 5376).
    CHECK(g4.projector == 1152 + 1152 * 2560);
    CHECK(g27.projector == 1152 + 1152 * 5376);
}

TEST_CASE("vision-language models: Qwen2-VL and Qwen2.5-VL-72B, counted by hand against the published totals") {
    // Qwen2-VL's tower (embed_dim 1280, mlp_ratio 4): patch_embed 1280 x (3 * 2 * 14 * 14) = 1,505,280; a block: norm1 and norm2
    // LayerNorms 2 * 2 * 1280, qkv 3840 * 1280 + 3840, proj 1280 * 1280 + 1280, fc1 5120 * 1280 + 5120, fc2 1280 * 5120 + 1280
    // = 19,677,440; 32 blocks. The merger: ln_q LayerNorm 2 * 1280, mlp.0 5120 * 5120 + 5120, mlp.2 d * 5120 + d.
    const int64_t qwen2_block = 2 * 2 * 1280 + 3840 * 1280 + 3840 + 1280 * 1280 + 1280 + 5120 * 1280 + 5120 + 1280 * 5120 + 1280;
    CHECK(qwen2_block == 19677440);
    // Qwen/Qwen2-VL-2B-Instruct: 2,208,985,600 (Hub safetensors); the language model is Qwen2-1.5B's 1,543,714,304.
    const ModelSpec two = config("qwen2-vl-2b-instruct.json");
    CHECK(two.vision.kind == VisionKind::Qwen2Vit);
    CHECK(two.vision.hidden == 1280);  // embed_dim, not vision_config.hidden_size (the merger's output)
    CHECK(two.vision.ffn == 5120);     // embed_dim x mlp_ratio
    const ParamCounts q2 = count_params(two);
    CHECK(q2.total == 1543714304);
    CHECK(q2.vision == 1505280 + 32 * qwen2_block);
    CHECK(q2.projector == 2 * 1280 + 5120 * 5120 + 5120 + 1536 * 5120 + 1536);
    CHECK(q2.total + q2.vision + q2.projector == 2208985600);
    // Qwen/Qwen2-VL-7B-Instruct: 8,291,375,616 (Hub safetensors); the language model is Qwen2-7B's 7,615,616,512.
    const ParamCounts q7 = count_params(config("qwen2-vl-7b-instruct.json"));
    CHECK(q7.total == 7615616512);
    CHECK(q7.vision == q2.vision);  // the same tower
    CHECK(q7.projector == 2 * 1280 + 5120 * 5120 + 5120 + 3584 * 5120 + 3584);
    CHECK(q7.total + q7.vision + q7.projector == 8291375616);
    // The same dynamic-resolution image rule as Qwen2.5-VL: 1280 x 720 -> 1196 tokens.
    CHECK(image_grid(two.vision, 1280, 720).tokens == 1196);
    // The merger writes into the language model's width (vision_config.hidden_size in Qwen2-VL).
    std::string bad = read_config("qwen2-vl-2b-instruct.json");
    bad.replace(bad.find("\"hidden_size\": 1536,\n    \"patch_size\""), 19, "\"hidden_size\": 1024");
    CHECK(only_error(bad) == "vision_config.hidden_size: must equal the language model's hidden_size (1536), which the merger "
                             "projects into; got 1024");

    // Qwen/Qwen2.5-VL-72B-Instruct ("73.4B" on the Hub). The language model by hand: a layer has q 8192^2 + 8192, k and v
    // 2 * (1024 * 8192 + 1024), o 8192^2, MLP 3 * 8192 * 29568, 2 norms 2 * 8192 = 877,684,736; 80 layers, embedding and
    // head 2 * 152064 * 8192, final norm 8192. The tower: a block 2 * 1280 (RMSNorms) + 3840 * 1280 + 3840 + 1280 * 1280 + 1280
    // + 2 * (3456 * 1280 + 3456) + 1280 * 3456 + 1280 = 19,840,512; the merger into 8192.
    const ParamCounts q72 = count_params(config("qwen2.5-vl-72b-instruct.json"));
    CHECK(q72.total == 80LL * 877684736 + 2LL * 152064 * 8192 + 8192);
    CHECK(q72.vision == 1505280 + 32 * 19840512);
    CHECK(q72.projector == 1280 + 5120 * 5120 + 5120 + 8192 * 5120 + 8192);
    CHECK(q72.total + q72.vision + q72.projector == 73410777344);
}

TEST_CASE("vision-language models: vLLM splits the tower's parallel layers over tp and keeps a rotary table, transformers does neither") {
    Scenario s;
    s.mode = Mode::Infer;
    s.model = config("qwen2.5-vl-72b-instruct.json");
    s.parallel.tp = 4;
    s.gpu_count = 4;
    s.infer.engine = Engine::VLLM;
    s.infer.vllm_version = "0.8.3";
    s.infer.context = 4096;
    s.infer.max_num_seqs = 2;
    s.infer.gpu_memory_utilization = 0.95;
    const Estimate v = estimate(s);
    REQUIRE(v.ok());
    // One rank of four, by hand: per block the RMSNorms 2 * 1280 whole, qkv (3840 * 1280 + 3840) / 4, proj 1280 * 1280 / 4 + its
    // bias 1280 (row-parallel: whole), gate and up 2 * (3456 * 1280 + 3456) / 4, down 1280 * 3456 / 4 + 1280 = 4,963,968; the patch
    // embedding 1,505,280 whole. The merger: ln_q 1280, mlp.0 (5120^2 + 5120) / 4, mlp.2 8192 * 5120 / 4 + 8192 = 17,050,112.
    const double block = 2 * 1280 + (3840.0 * 1280 + 3840) / 4 + 1280.0 * 1280 / 4 + 1280 + 2 * (3456.0 * 1280 + 3456) / 4 +
                         1280.0 * 3456 / 4 + 1280;
    CHECK(block == 4963968);
    const double merger = 1280 + (5120.0 * 5120 + 5120) / 4 + 8192.0 * 5120 / 4 + 8192;
    CHECK(merger == 17050112);
    CHECK(bytes_of(v, "weights.vision") == (1505280 + 32 * block + merger) * 2);
    // vLLM's get_rope table: max_position_embeddings 128000 x head_dim 128 in bf16.
    CHECK(bytes_of(v, "buffers.rope_cache") == 128000.0 * 128 * 2);
    // transformers keeps the whole tower on each GPU and has no such table.
    s.infer.engine = Engine::Transformers;
    const Estimate t = estimate(s);
    REQUIRE(t.ok());
    CHECK(bytes_of(t, "weights.vision") == (1505280 + 32 * 19840512.0 + 1280 + 5120 * 5120 + 5120 + 8192 * 5120 + 8192) * 2);
    CHECK(bytes_of(t, "buffers.rope_cache") == -1);
}

TEST_CASE("vision-language models: vision_config is read by the wrapper's model_type, others keep the text model with a warning") {
    const ModelSpec q = config("qwen2.5-vl-7b-instruct.json");
    CHECK(q.vision.kind == VisionKind::QwenVit);
    CHECK(q.vision.projector == ProjectorKind::QwenMerger);
    CHECK(q.vision.merge == 2);
    CHECK(q.vision.temporal_patch == 2);
    CHECK(q.vision.channels == 3);  // "in_chans"
    const ModelSpec g = config("gemma-3-4b-it.json");
    CHECK(g.vision.kind == VisionKind::Siglip);
    CHECK(g.vision.tokens_per_image == 256);
    CHECK(g.vision.image_size == 896);
    // Qwen3.5's tower (Qwen3_5VisionConfig): LayerNorm blocks, a learned position table of 2304 rows by default.
    Result<ModelSpec> r = import_hf_config(read_config("qwen3.5-9b.json"));
    REQUIRE(r.ok());
    CHECK(r->vision.kind == VisionKind::Qwen3Vit);
    CHECK(r->vision.patch == 16);
    CHECK(r->vision.position_embeddings == 2304);
    CHECK_FALSE(has_warning(r, "vision tower and projector are not"));
    // Qwen3-VL's deepstack mergers are not modelled: a config that lists some is refused, naming the field.
    std::string deep = read_config("qwen3.5-9b.json");
    deep.replace(deep.find("\"depth\""), 7, "\"deepstack_visual_indexes\": [8, 16, 24], \"depth\"");
    const Result<ModelSpec> d = import_hf_config(deep);
    REQUIRE_FALSE(d.ok());
    CHECK(d.errors.front().field == "vision_config.deepstack_visual_indexes");
    // The MoE wrapper without a vision_config (this file leaves it out) keeps the language model, with the warning.
    Result<ModelSpec> moe = import_hf_config(read_config("qwen3.6-35b-a3b.json"));
    REQUIRE(moe.ok());
    CHECK_FALSE(moe->vision.active());
    // A text-only config has no vision part.
    CHECK_FALSE(config("llama-3.1-8b.json").vision.active());
    CHECK(count_params(config("llama-3.1-8b.json")).vision == 0);

    // A tiny LLaVA by hand: CLIP class 8, patches 8 x 3 x 4 x 4 = 384, positions (2^2 + 1) x 8 = 40, pre/post LayerNorms
    // 2 x 16; a layer 4 x (64 + 8) + (16 x 8 + 16) + (8 x 16 + 8) + 4 x 8 = 600; projector 4 x 8 + 4 + 4 x 4 + 4 = 56.
    const ParamCounts t = count_params(*import_hf_config(kTinyLlava));
    CHECK(t.vision == 8 + 384 + 40 + 32 + 2 * 600);
    CHECK(t.projector == 56);
}

TEST_CASE("vision-language models: bad vision_config fields are named as written") {
    std::string bad = kTinyLlava;
    bad.replace(bad.find("\"num_attention_heads\": 2, \"image_size\""), 26, "\"num_attention_heads\": 3, ");
    CHECK(only_error(bad) == "vision_config.num_attention_heads: must divide vision_config.hidden_size (8); got 3");
    std::string odd = kTinyLlava;
    odd.replace(odd.find("\"image_size\": 8"), 15, "\"image_size\": 9");
    CHECK(only_error(odd) == "vision_config.image_size: must be a multiple of vision_config.patch_size (4); got 9");
    std::string zero = kTinyLlava;
    zero.replace(zero.find("\"num_hidden_layers\": 2"), 22, "\"num_hidden_layers\": 0");
    CHECK(only_error(zero) == "vision_config.num_hidden_layers: must be > 0; got 0");
    // Qwen's merger projects into the language model's width.
    std::string q = read_config("qwen2.5-vl-7b-instruct.json");
    q.replace(q.find("\"out_hidden_size\": 3584"), 23, "\"out_hidden_size\": 2048");
    CHECK(only_error(q) == "vision_config.out_hidden_size: must equal the language model's hidden_size (3584), which the merger "
                           "projects into; got 2048");
    // Gemma 3 pools the 64 x 64 patch grid to a square of mm_tokens_per_image tokens.
    std::string g = read_config("gemma-3-4b-it.json");
    g.replace(g.find("\"mm_tokens_per_image\": 256"), 26, "\"mm_tokens_per_image\": 200");
    CHECK(only_error(g) == "mm_tokens_per_image: must be a square whose side divides the 64 x 64 patch grid (vision_config.image_size / "
                           "patch_size), e.g. 256; got 200");
}

TEST_CASE("vision-language models: image tokens per image by each family's rule") {
    // LLaVA-1.5: every image resized to 336 px, 24 x 24 = 576 tokens (the class token runs through the tower only).
    const ModelSpec l = config("llava-1.5-7b-hf.json");
    CHECK(image_grid(l.vision, 1920, 1080).tokens == 576);
    CHECK(image_grid(l.vision, 1920, 1080).patches == 577);
    // Gemma 3: 896 px, 64 x 64 = 4096 patches pooled to 256 tokens.
    const ModelSpec g = config("gemma-3-4b-it.json");
    CHECK(image_grid(g.vision, 640, 480).tokens == 256);
    CHECK(image_grid(g.vision, 640, 480).patches == 4096);
    // Qwen2.5-VL, by smart_resize: 1280 x 720 -> sides rounded to 28 px multiples, 1288 x 728 (937,664 px, inside
    // [3136, 12845056]) -> 92 x 52 = 4784 patches, 4784 / 4 = 1196 tokens.
    const ModelSpec q = config("qwen2.5-vl-7b-instruct.json");
    const ImageGrid hd = image_grid(q.vision, 1280, 720);
    CHECK(hd.width == 1288);
    CHECK(hd.height == 728);
    CHECK(hd.patches == 4784);
    CHECK(hd.tokens == 1196);
    // 4032 x 3024 (12.2 MP) fits under the checkpoint's max_pixels: 288 x 216 patches, 15,552 tokens; under transformers'
    // default max_pixels 1280 x 28 x 28 = 1,003,520 it is scaled by sqrt(12,192,768 / 1,003,520) = 3.486 and floored to
    // 28 px multiples: 1148 x 840 -> 82 x 60 patches, 1230 tokens.
    CHECK(image_grid(q.vision, 4032, 3024).tokens == 15552);
    CHECK(image_grid(q.vision, 4032, 3024, kQwenMinPixels, 1003520).tokens == 1230);
    // 8000 x 8000 is scaled to the largest square within max_pixels: sqrt(12,845,056) = 3584 px, 128 x 128 patches, 16,384 tokens.
    CHECK(image_grid(q.vision, 8000, 8000).tokens == 16384);
    // A 20 x 20 icon is scaled up into min_pixels 3136 = 56 x 56: 4 x 4 patches, 4 tokens.
    CHECK(image_grid(q.vision, 20, 20).tokens == 4);
    CHECK(image_grid(q.vision, 20, 20).width == 56);
}

TEST_CASE("vision-language models: the tower and projector weights in the inference estimate, once, on the first stage") {
    Scenario s;
    s.mode = Mode::Infer;
    s.model = config("qwen2.5-vl-7b-instruct.json");
    s.infer.weights = WeightFormat::BF16;
    Estimate e = estimate(s);
    REQUIRE(e.ok());
    CHECK(bytes_of(e, "weights.vision") == 676550144.0 * 2);
    double weights = 0;
    for (const Component& c : e.components)
        if (c.category == Category::Weights) weights += c.bytes;
    CHECK(weights == 8292166656.0 * 2);  // every parameter of the checkpoint, 2 B each
    // The derivation shown is the expression that computed it.
    const Estimate full = estimate(s, Detail::Full);
    for (const Component& c : full.components)
        if (std::string(c.id) == "weights.vision") {
            CHECK(c.formula() == "(P_vision_rank + P_projector_rank) * weight_bytes");
            CHECK(c.substituted().find("(631,975,680 + 44,574,464) * 2") == 0);
        }

    // vLLM's KV pool is what the weights, the tower included, leave.
    s.infer.engine = Engine::VLLM;
    Estimate v = estimate(s);
    REQUIRE(v.ok());
    CHECK(bytes_of(v, "weights.vision") == 676550144.0 * 2);
    Scenario text = s;
    text.model.vision = VisionSpec{};
    const Estimate t = estimate(text);
    REQUIRE(t.ok());
    CHECK(t.kv.pool_bytes - v.kv.pool_bytes == Approx(676550144.0 * 2).margin(t.kv.bytes_per_token * 16));
    // Two pipeline stages: the first holds the embedding and the tower, the last the (untied) head of the same size,
    // so the first stage holds fewer KV blocks: vLLM sizes every stage's pool by it.
    Scenario pp = s;
    pp.parallel.pp = 2;
    pp.gpu_count = 2;
    const Estimate two = estimate(pp);
    REQUIRE(two.ok());
    CHECK(bytes_of(two, "weights.vision") == 676550144.0 * 2);
    text = pp;
    text.model.vision = VisionSpec{};
    CHECK(estimate(text).kv.blocks > two.kv.blocks);
    bool profile_said = false;
    for (const std::string& w : v.warnings) profile_said = profile_said || w.find("encodes dummy images") != std::string::npos;
    CHECK(profile_said);

    // Training counts the language model only, and says so with the tower's size.
    Scenario train = s;
    train.mode = Mode::FineTune;
    const Estimate tr = estimate(train);
    REQUIRE(tr.ok());
    bool train_said = false;
    for (const std::string& w : tr.warnings) train_said = train_said || w.find("(676550144 parameters)") != std::string::npos;
    CHECK(train_said);

    // A quantized language model keeps its tower 16-bit.
    s.infer.engine = Engine::Transformers;
    s.infer.weights = WeightFormat::AWQ4;
    e = estimate(s);
    REQUIRE(e.ok());
    CHECK(bytes_of(e, "weights.vision") == 676550144.0 * 2);
}

TEST_CASE("vision-language models: images join every sequence, and the encoder's forward peaks beside the prefill's") {
    Scenario s;
    s.mode = Mode::Infer;
    s.model = config("qwen2.5-vl-7b-instruct.json");
    s.infer.batch = 1;
    s.infer.context = 2000;
    s.overheads.fragmentation = 0;
    const Estimate text = estimate(s);
    REQUIRE(text.ok());
    // Two 1280 x 720 images: 2 x 1196 = 2392 image tokens beside the 2000 context tokens: the KV cache counts 4392.
    s.infer.images = 2;
    s.infer.image_width = 1280;
    s.infer.image_height = 720;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    // Qwen2.5-7B's KV per token: 2 (K, V) x 28 layers x 4 kv heads x 128 x 2 B = 57,344 B.
    CHECK(bytes_of(text, "kv_cache") == 2000.0 * 57344);
    CHECK(bytes_of(e, "kv_cache") == 4392.0 * 57344);
    bool said = false;
    for (const std::string& w : e.warnings) said = said || w.find("2000 + 2392 = 4392 tokens") != std::string::npos;
    CHECK(said);
    // SDPA: the encoder's live tensors at one block's MLP over 2 x 4784 patches, (3 x 3420 + 3 x 1280) x 2 B each =
    // 269,817,600 B, are below the prefill's over 4392 tokens: the language model's MLP (3 x 18944 + 3 x 3584) x 2 B and
    // its embedding output with rotary cos/sin (3584 + 2 x 128) x 2 B each = 627,388,416 B. No excess.
    CHECK(bytes_of(e, "act.vision_encoder") == 0);
    // Eager attention: each image's scores (Qwen's eager path attends image by image) of 16 heads over 4784 x 4784
    // patches, 8 B each (16-bit scores, fp32 softmax, 16-bit cast; no mask) = 2,929,491,968 B beside the MLP's; the
    // prefill's scores of 28 heads over 4392 x 4392, 8 B each, + its 2 B mask = 4,359,464,064 B. Still no excess.
    s.infer.flash_attention = false;
    const Estimate eager = estimate(s);
    REQUIRE(eager.ok());
    CHECK(bytes_of(eager, "act.vision_encoder") == 0);
    // A short prompt with one 8000 x 8000 photo: 16,384 tokens, 65,536 patches. Eager: 16 x 65,536^2 x 8 B =
    // 549,755,813,888 B of scores + 65,536 x 14,100 x 2 B at the MLP = 551,603,929,088 B, against the prefill of 16,484
    // tokens: its MLP 16,484 x 67,584 x 2, inputs 16,484 x 3840 x 2 and scores 16,484^2 x (28 x 8 + 2) B =
    // 63,763,936,288 B. The encoder needs 487,839,992,800 B more.
    s.infer.images = 1;
    s.infer.image_width = s.infer.image_height = 8000;
    s.infer.context = 100;
    const Estimate big = estimate(s);
    REQUIRE(big.ok());
    const double vision = 16.0 * 65536 * 65536 * 8 + 65536.0 * 14100 * 2;
    const double prefill = 16484.0 * 67584 * 2 + 16484.0 * 3840 * 2 + 16484.0 * 16484 * (28 * 8 + 2);
    CHECK(bytes_of(big, "act.vision_encoder") == Approx(vision - prefill).epsilon(1e-12));
    CHECK(vision - prefill == 487839992800.0);
}

TEST_CASE("vision-language models: images need a vision tower, a supported engine and sizes in range") {
    Scenario s;
    s.mode = Mode::Infer;
    s.infer.images = 1;  // Llama-3.1-8B has no vision tower
    Estimate e = estimate(s);
    REQUIRE_FALSE(e.ok());
    CHECK(e.errors[0].field == "infer.images");
    CHECK(e.errors[0].message.find("no vision tower") != std::string::npos);
    s.model = config("qwen2.5-vl-7b-instruct.json");
    s.infer.image_width = 0;
    e = estimate(s);
    REQUIRE_FALSE(e.ok());
    CHECK(to_string(e.errors[0]) == "infer.image_width: must be in [1, 100000]; got 0");
    s.infer.image_width = 30000;
    s.infer.image_height = 100;
    e = estimate(s);
    REQUIRE_FALSE(e.ok());
    CHECK(e.errors[0].field == "infer.image_width");
    CHECK(e.errors[0].message.find("aspect ratio above 200") != std::string::npos);
    s.infer.image_width = 1024;
    s.infer.engine = Engine::LlamaCpp;
    s.infer.weights = WeightFormat::GGUF_Q4_K_M;
    e = estimate(s);
    REQUIRE_FALSE(e.ok());
    CHECK(e.errors[0].field == "infer.images");
    CHECK(e.errors[0].message.find("--mmproj") != std::string::npos);
}

TEST_CASE("vision-language models: the presets carry their towers, and vramlens estimate takes --images --image-width --image-height") {
    const ModelPreset* q = find_model("qwen2.5-vl-7b");
    REQUIRE(q);
    CHECK(q->spec.vision.kind == VisionKind::QwenVit);
    REQUIRE(find_model("llava-1.5-7b"));
    CHECK(find_model("llava-1.5-7b")->spec.vision.kind == VisionKind::Clip);
    CHECK(find_model("gemma-3-12b")->spec.vision.projector == ProjectorKind::Gemma3);
    std::string out, err;
    const std::vector<std::string> args{"estimate", "--model", "qwen2.5-vl-7b", "--mode", "infer", "--context", "2000", "--images", "2",
                                        "--image-width", "1280", "--image-height", "720", "--format", "json"};
    REQUIRE(cli::run(args, out, err) == 0);
    const nlohmann::json j = nlohmann::json::parse(out);
    double kv = -1, vision = -1;
    for (const auto& c : j["components"]) {
        if (c["id"] == "kv_cache") kv = c["bytes"].get<double>();
        if (c["id"] == "weights.vision") vision = c["bytes"].get<double>();
    }
    CHECK(kv == (2000.0 + 2 * 1196) * 57344);  // as in the test above: 2 images of 1196 tokens beside 2000
    CHECK(vision == 676550144.0 * 2);
}

TEST_CASE("vision-language models: LLaVA-NeXT, the exact count of llava-v1.6-mistral-7b-hf and its image_newline") {
    const ModelSpec n = config("llava-v1.6-mistral-7b-hf.json");
    CHECK(n.vision.kind == VisionKind::Clip);
    REQUIRE(n.vision.grid_pinpoints.size() == 5);
    CHECK(n.vision.grid_pinpoints[3] == GridPinpoint{1008, 336});  // [height, width] as config.json lists them
    const ParamCounts c = count_params(n);
    // Mistral-7B-Instruct-v0.2 with LLaVA's 32064-token vocabulary, by hand: a layer q 4096^2, k and v 2 x 1024 x 4096, o 4096^2,
    // MLP 3 x 4096 x 14336, 2 RMSNorms 2 x 4096 = 218,112,000; 32 layers, embedding and lm_head 2 x 32064 x 4096, final norm 4096.
    CHECK(c.total == 32LL * 218112000 + 2LL * 32064 * 4096 + 4096);
    CHECK(c.vision == 303507456);  // LLaVA-1.5's CLIP ViT-L/14-336 tower (counted by hand above)
    // LLaVA's projector, linear_1 4096 x 1024 + 4096 and linear_2 4096 x 4096 + 4096, and LlavaNextModel's image_newline [4096].
    CHECK(c.projector == 4096 * 1024 + 4096 + 4096 * 4096 + 4096 + 4096);
    CHECK(c.total + c.vision + c.projector == 7566747648);  // the Hub's safetensors count "7.57B"
    // The preset is the same checkpoint.
    const ModelPreset* p = find_model("llava-v1.6-mistral-7b");
    REQUIRE(p);
    CHECK(p->spec.vision == n.vision);
    // Left out, image_grid_pinpoints is LlavaNextConfig's default, the same five.
    std::string bare = read_config("llava-v1.6-mistral-7b-hf.json");
    const size_t at = bare.find("\"image_grid_pinpoints\"");
    bare.erase(at, bare.find("\"image_token_index\"") - at);
    CHECK(test::imported(bare).vision.grid_pinpoints == n.vision.grid_pinpoints);
}

TEST_CASE("vision-language models: LLaVA-NeXT image tokens by resolution (anyres), derived by hand from the processor's rule") {
    const VisionSpec v = config("llava-v1.6-mistral-7b-hf.json").vision;
    // 672 x 672: the 672 x 672 pinpoint keeps all 451,584 px; 2 x 2 tiles of 336 px, a 48 x 48 feature grid of the image's own
    // aspect ratio (nothing unpadded), 48 image_newline tokens, and the base image's 24 x 24: 576 + 2304 + 48 = 2928. The tower
    // runs the base image and 4 tiles, 577 positions each (the class token).
    const ImageGrid sq = image_grid(v, 672, 672);
    CHECK(sq.tokens == 2928);
    CHECK(sq.crops == 5);
    CHECK(sq.patches == 5 * 577);
    // 800 x 600 (w x h): scaled into 672 x 672 by 0.84, 672 x 504 = 338,688 px effective (the most of the five); 48 x 48 grid,
    // wider than it is tall: new height 600 x 48 / 800 = 36, padding (48 - 36) / 2 = 6 rows off each side: 36 x 48 + 36 + 576 = 2340.
    CHECK(image_grid(v, 800, 600).tokens == 2340);
    // 300 x 900: [1008, 336] scaled by 1.12 holds the whole 270,000 px; 3 x 1 tiles, a 72 x 24 grid of the image's aspect
    // ratio: 72 x 24 + 72 + 576 = 2376, 4 crops.
    const ImageGrid tall = image_grid(v, 300, 900);
    CHECK(tall.tokens == 2376);
    CHECK(tall.crops == 4);
    CHECK(tall.height == 1008);
    CHECK(tall.width == 336);
    // 1000 x 500: [336, 672] by 0.672 keeps 672 x 336 = 225,792 px and wastes none ([672, 672] and [336, 1008] keep as much
    // but waste more): 1 x 2 tiles, 24 x 48 + 24 + 576 = 1752.
    CHECK(image_grid(v, 1000, 500).tokens == 1752);
    // 200 x 100 fits whole (20,000 px) in every pinpoint; [336, 672] and [672, 336] waste the same 205,792 px and the first listed
    // wins: 1752 again ([672, 336] would unpad its 48 x 24 grid to 12 rows: 576 + 12 x 24 + 12 = 876).
    CHECK(image_grid(v, 200, 100).tokens == 1752);
}

TEST_CASE("vision-language models: LLaVA-NeXT's image tokens join the KV cache, and bad pinpoints are named") {
    Scenario s;
    s.mode = Mode::Infer;
    s.model = config("llava-v1.6-mistral-7b-hf.json");
    s.infer.batch = 1;
    s.infer.context = 2000;
    s.infer.images = 1;
    s.infer.image_width = s.infer.image_height = 672;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    // Mistral-7B's KV per token: 2 (K, V) x 32 layers x 8 kv heads x 128 x 2 B = 131,072 B, over 2000 + 2928 tokens.
    CHECK(bytes_of(e, "kv_cache") == 4928.0 * 131072);
    bool said = false;
    for (const std::string& w : e.warnings)
        said = said || w.find("2928 tokens each (672 x 672 px; the base image and 4 tile(s) of the 672 x 672 pinpoint") != std::string::npos;
    CHECK(said);

    std::string bad = read_config("llava-v1.6-mistral-7b-hf.json");
    bad.replace(bad.find("1008,\n      336"), 15, "1000,\n      336");
    CHECK(only_error(bad) == "image_grid_pinpoints: each [height, width] must be multiples of vision_config.image_size (336) up to "
                             "100000 px; got [1000, 336]");
    std::string flat = read_config("llava-v1.6-mistral-7b-hf.json");
    const size_t at = flat.find("\"image_grid_pinpoints\"");
    flat.replace(at, flat.find("\"image_token_index\"") - at, "\"image_grid_pinpoints\": [336, 672],\n  ");
    CHECK(only_error(flat) == "image_grid_pinpoints: must be a list of 1 to 64 [height, width] pairs of pixels (1 to 100000), e.g. "
                              "[[336, 672], [672, 336], [672, 672]]; got [336,672]");
}

TEST_CASE("vision-language models: with vLLM, tp must divide the vision tower's heads and MLP too, and the error names the field") {
    // Qwen2.5-VL-72B at tp 32: the language model's 64 heads, 8 KV heads (replicated 4 times) and 29,568-wide MLP split; the
    // tower's 16 heads do not (vLLM's divide() asserts, as vllm-project/vllm#49368 met for GLM-4.1V's 12 vision heads at tp 32).
    Scenario s;
    s.mode = Mode::Infer;
    s.model = config("qwen2.5-vl-72b-instruct.json");
    s.infer.engine = Engine::VLLM;
    s.parallel.tp = 32;
    s.gpu_count = 32;
    Estimate e = estimate(s);
    REQUIRE_FALSE(e.ok());
    REQUIRE(e.errors.size() == 1);
    CHECK(to_string(e.errors[0]) == "parallel.tp: must divide vision_config.num_attention_heads (16) with engine vllm, which splits the "
                                    "vision tower over tp ranks as the language model; choose a tp that divides it, or engine "
                                    "transformers (the whole tower on each GPU); got 32");
    // Its MLP (3456 wide) splits over 32; at tp 16 everything does.
    s.parallel.tp = s.gpu_count = 16;
    CHECK(estimate(s).ok());
    // transformers keeps the whole tower on every GPU: no such rule.
    s.parallel.tp = s.gpu_count = 32;
    s.infer.engine = Engine::Transformers;
    e = estimate(s);
    for (const FieldError& f : e.errors) CHECK(f.message.find("vision_config") == std::string::npos);
}

TEST_CASE("vision-language training: the frozen tower and projector are loaded, and the images' tokens join each sample") {
    // Qwen2.5-VL-7B-Instruct: 8,292,166,656 parameters, of which the tower and projector 676,550,144 (the test above):
    // the language model 7,615,616,512. LoRA over a bf16 base, one sample of 1000 text tokens and two 1280 x 720 images
    // (1196 tokens each, as inference counts them): the language model is walked over 1000 + 2392 = 3392 tokens.
    Scenario s = lora_sample_with_images();
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    CHECK(bytes_of(e, "weights.vision_frozen") == 676550144.0 * 2);
    CHECK(bytes_of(e, "weights.frozen") == 7615616512.0 * 2);
    CHECK(bytes_of(e, "act.projector") == -1);  // nothing of the frozen projector is saved
    bool said = false;
    for (const std::string& w : e.warnings) said = said || w.find("1000 + 2392 = 3392 tokens") != std::string::npos;
    CHECK(said);
    // The language model's part is a text sample of 3392 tokens: every activation row the same.
    Scenario text = s;
    text.train.images = 0;
    text.train.seq_len = 3392;
    const Estimate t = estimate(text);
    REQUIRE(t.ok());
    int compared = 0;
    for (const Component& c : t.components)
        if (std::string_view(c.id).starts_with("act.") || std::string_view(c.id).starts_with("logits")) {
            INFO(c.id);
            CHECK(bytes_of(e, c.id) == c.bytes);
            ++compared;
        }
    CHECK(compared >= 3);
}

TEST_CASE("vision-language training: a trained projector, as a modules_to_save copy with adapters and in the trained set in full training") {
    // Qwen2.5-VL's PatchMerger: ln_q 1280, mlp.0 5120 x 5120 + 5120, mlp.2 3584 x 5120 + 3584 = 44,575,744 parameters
    // (the count above: 1280 + 5120 * 5120 + 5120 + 3584 * 5120 + 3584 with the RMSNorm's weight alone).
    const double projector = 1280.0 + 5120.0 * 5120 + 5120 + 3584.0 * 5120 + 3584;
    CHECK(projector == 44574464.0);
    Scenario s = lora_sample_with_images();
    s.train.vision = VisionTraining::Projector;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    // PEFT keeps the original projector frozen beside its trainable bf16 copy, whose gradient is bf16 too.
    CHECK(bytes_of(e, "weights.vision_frozen") == 676550144.0 * 2);
    CHECK(bytes_of(e, "saved.weights") == projector * 2);
    CHECK(bytes_of(e, "saved.grads") == projector * 2);
    // Its saved inputs over the 2392 image tokens: ln_q's input (4 patches of 1280), mlp.0's, GELU's and mlp.2's
    // (5120 each): 4 x 5120 x 2 B = 40,960 B per token.
    CHECK(bytes_of(e, "act.projector") == 2392.0 * 40960);

    // Full training (bf16 weights, fp32 master and Adam states): the trained set is the language model and the projector,
    // the tower stays frozen; with train.vision all the tower trains too (8,292,166,656 parameters in all).
    Scenario full = s;
    full.mode = Mode::Train;
    Estimate f = estimate(full);
    REQUIRE(f.ok());
    CHECK(bytes_of(f, "weights") == (7615616512.0 + projector) * 2);
    CHECK(bytes_of(f, "weights.vision_frozen") == (676550144.0 - projector) * 2);
    full.train.vision = VisionTraining::All;
    f = estimate(full);
    REQUIRE(f.ok());
    CHECK(bytes_of(f, "weights") == 8292166656.0 * 2);
    CHECK(bytes_of(f, "weights.vision_frozen") == -1);
    // its activations over the images' patches are counted (the next test derives them), no lower-bound warning
    CHECK(bytes_of(f, "act.vision_tower") > 0);
    for (const std::string& w : f.warnings) CHECK(w.find("a lower bound") == std::string::npos);
}

TEST_CASE("vision-language training: images need a tower that takes image tokens, and the tower trains only in full training") {
    Scenario s;
    s.mode = Mode::FineTune;
    s.train.images = 1;  // Llama-3.1-8B has no vision tower
    Estimate e = estimate(s);
    REQUIRE_FALSE(e.ok());
    CHECK(e.errors[0].field == "train.images");
    CHECK(e.errors[0].message.find("no vision tower") != std::string::npos);
    s.train.images = 0;
    s.train.vision = VisionTraining::Projector;
    e = estimate(s);
    REQUIRE_FALSE(e.ok());
    CHECK(e.errors[0].field == "train.vision");
    s.model = config("qwen2.5-vl-7b-instruct.json");
    s.train.vision = VisionTraining::All;
    e = estimate(s);
    REQUIRE_FALSE(e.ok());
    CHECK(to_string(e.errors[0]).rfind("train.vision: all: with LoRA or QLoRA", 0) == 0);
    s.train.vision = VisionTraining::Frozen;
    s.train.images = 1;
    s.train.image_width = 0;
    e = estimate(s);
    REQUIRE_FALSE(e.ok());
    CHECK(to_string(e.errors[0]) == "train.image_width: must be in [1, 100000]; got 0");
    s.train.image_width = 1024;
    s.model = config("llama-3.2-11b-vision-instruct.json");  // Llama 3.2 Vision trains with images (its cross-attention: below)
    CHECK(estimate(s).ok());
}

namespace {
// One 448 x 448 image per sample on Qwen2.5-VL-7B: smart_resize keeps 448 x 448 (a multiple of 28), 32 x 32 = 1024 patches
// of 14 px, 256 tokens after the 2 x 2 merge.
Scenario qwen_one_image(Mode mode) { return qwen_vl_sample(mode, 256, 1, 448, 448); }
// The activation and logit rows live at the end of forward, on the GPU, but `skip`.
double forward_rows(const Estimate& e, const std::string& skip) {
    double sum = 0;
    for (const Component& c : e.components)
        if (c.id != skip && (c.category == Category::Activations || c.category == Category::Logits) && !c.host &&
            (c.phases & phase_bit(Phase::Forward)) != 0)
            sum += c.bytes;
    return sum;
}
}  // namespace

TEST_CASE("vision-language training: a trained tower keeps every tower layer's activations over each image's patches") {
    Scenario s = qwen_one_image(Mode::Train);
    Estimate e = estimate(s);
    REQUIRE(e.ok());
    CHECK(bytes_of(e, "act.vision_tower") == -1);  // frozen: nothing saved
    s.train.vision = VisionTraining::All;
    e = estimate(s);
    REQUIRE(e.ok());
    // Full training in bf16-mixed (16-bit weights, fp32 master: not transformers' plain path, so no fp32 norm copies), flash
    // attention, no dropout. A Qwen2.5-VL block over T = 1024 patches (h 1280, 16 heads of 80, gated MLP of 3420), 2 B each:
    //   norms: 2 RMSNorm inputs 2 x 2 x 1024 x 1280                                   =  5,242,880
    //   attention: qkv input, Q and K (2 x 1280), V, the proj input, each 2 x 1024 x width = 2,621,440 + 5,242,880 + 2,621,440
    //              + 2,621,440, and flash's fp32 log-sum-exp 4 x 16 x 1024 = 65,536   = 13,172,736
    //   MLP: gate/up input 2 x 1024 x 1280 = 2,621,440; SiLU input, SiLU output and up output 3 x 2 x 1024 x 3420 =
    //        21,012,480; down input 2 x 1024 x 3420 = 7,004,160                       = 30,638,080
    //   one block 49,053,696; 32 blocks                                                = 1,569,718,272
    CHECK(bytes_of(e, "act.vision_tower") == 1569718272.0);
    for (const std::string& w : e.warnings) CHECK(w.find("a lower bound") == std::string::npos);
    // Gradient checkpointing checkpoints the tower's blocks too (GradientCheckpointingLayer): each block's input, 32 x 2 x 1024 x 1280.
    s.train.recompute = Recompute::Full;
    e = estimate(s);
    REQUIRE(e.ok());
    CHECK(bytes_of(e, "act.vision_tower") == 32.0 * 2 * 1024 * 1280);
}

TEST_CASE("vision-language training: CLIP's tower (LLaVA-1.5) runs its class token with the patches and QuickGELU keeps its sigmoid") {
    Scenario s = qwen_vl_sample(Mode::Train, 64, 1, 1024, 1024);
    s.model = config("llava-1.5-7b-hf.json");  // every image resized to 336 px
    s.train.vision = VisionTraining::All;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    // CLIP ViT-L/14-336: T = 24^2 + 1 = 577 positions, h 1024, 16 heads, fc1 / fc2 of 4096, quick_gelu, 24 layers, 2 B each:
    //   norms 2 x 2 x 577 x 1024 = 2,363,392; attention: q/k/v input 1,181,696, Q and K 2,363,392, V 1,181,696, out_proj input
    //   1,181,696, log-sum-exp 4 x 16 x 577 = 36,928 -> 5,945,408; MLP: fc1 input 1,181,696, QuickGELU's input and its sigmoid's
    //   output 2 x 2 x 577 x 4096 = 9,453,568, fc2 input 4,726,784 -> 15,362,048; a layer 23,670,848; 24 layers 568,100,352.
    CHECK(bytes_of(e, "act.vision_tower") == 568100352.0);
}

TEST_CASE("vision-language training: LoRA on the tower (train.vision lora) counts its adapters and what they make the tower keep") {
    // Adapters of rank 16 on the tower's linears the targets select, r x (in + out) each, 32 blocks (Qwen2.5-VL-7B's tower):
    // q and v select the fused qkv Linear 1280 -> 3840: 16 x 5120 x 32 = 2,621,440; all-linear adds proj 1280 -> 1280 and the
    // gated MLP's gate, up (1280 -> 3420) and down (3420 -> 1280): 16 x (5120 + 2560 + 3 x 4700) x 32 = 11,151,360.
    const ModelSpec q = config("qwen2.5-vl-7b-instruct.json");
    CHECK(tower_lora_params(q, 16, kLoraQ | kLoraV) == 2621440);
    CHECK(tower_lora_params(q, 16, kLoraAllLinear) == 11151360);
    CHECK(tower_lora_params(config("gemma-3-1b-pt.json"), 16, kLoraAllLinear) == 0);  // a text-only model

    Scenario s = qwen_one_image(Mode::FineTune);  // LoRA r 16 on q, v; bf16 base, fp32 adapters under autocast
    const Estimate frozen = estimate(s);
    REQUIRE(frozen.ok());
    s.train.vision = VisionTraining::Lora;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    // fp32 adapters (4 B), their fp32 gradients; the tower and projector stay frozen in bf16.
    CHECK(bytes_of(e, "lora.weights") - bytes_of(frozen, "lora.weights") == 2621440.0 * 4);
    CHECK(bytes_of(e, "lora.grads") - bytes_of(frozen, "lora.grads") == 2621440.0 * 4);
    CHECK(bytes_of(e, "weights.vision_frozen") == bytes_of(frozen, "weights.vision_frozen"));
    // What the adapted tower keeps over T = 1024 patches, PEFT on transformers (plain PyTorch): per block
    //   norms: RMSNorm's fp32 copy of its input, 2 x 4 x 1024 x 1280                                   = 10,485,760
    //   attention: qkv's adapter saves its bf16 cast of the input (one module: one cast) 2,621,440; the rotated Q and K
    //   5,242,880; V 2,621,440, a view of the fused qkv output, which keeps its q and k parts too 5,242,880; flash keeps
    //   its output O 2,621,440 and the log-sum-exp 65,536 (proj is frozen: no adapter cast)             = 18,415,616
    //   MLP (frozen, no input saved): SiLU input, SiLU output and up output 3 x 2 x 1024 x 3420          = 21,012,480
    //   a block 49,913,856; 32 blocks                                                                   = 1,597,243,392
    CHECK(bytes_of(e, "act.vision_tower") == 1597243392.0);
    // The adapters' own tensors: lora_A's bf16 output, r wide, per adapted module (32 qkv), over the 1024 patches:
    // 2 x 1024 x 16 x 32 = 1,048,576 beside the language model's.
    CHECK(bytes_of(e, "act.lora") - bytes_of(frozen, "act.lora") == 1048576.0);

    // lora needs adapters; all refuses them.
    Scenario full = s;
    full.mode = Mode::Train;
    Estimate bad = estimate(full);
    REQUIRE_FALSE(bad.ok());
    CHECK(to_string(bad.errors[0]).rfind("train.vision: lora: adapters on the vision tower need mode finetune", 0) == 0);
    s.train.vision = VisionTraining::All;
    bad = estimate(s);
    REQUIRE_FALSE(bad.ok());
    CHECK(to_string(bad.errors[0]).find("use lora") != std::string::npos);
}

TEST_CASE("vision-language training: train.vision lora through JSON, the share link and the CLI") {
    Scenario s = qwen_one_image(Mode::FineTune);
    s.train.vision = VisionTraining::Lora;
    const Result<Scenario> back = scenario_from_json(scenario_to_json(s));
    REQUIRE(back.ok());
    CHECK(back.value->train.vision == VisionTraining::Lora);
    CHECK(scenario_to_json(s).find("\"vision\": \"lora\"") != std::string::npos);
    const Result<Scenario> link = decode_share_link(encode_share_link(s));
    REQUIRE(link.ok());
    CHECK(link.value->train.vision == VisionTraining::Lora);
    Scenario edited = qwen_one_image(Mode::FineTune);
    CHECK(set_scenario_field(edited, "train.vision", "\"lora\"").empty());
    CHECK(edited.train.vision == VisionTraining::Lora);
}

TEST_CASE("vision-language training: a frozen tower's forward working memory, beyond the activations live at the end of forward") {
    Scenario s = lora_sample_with_images();  // two 1280 x 720 images: 1196 tokens, 4 x 1196 = 4784 patches each
    s.train.recompute = Recompute::Full;
    s.train.loss = LossImpl::Fused;
    s.train.flash_attention = false;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    // The tower's forward over T_v = 2 x 4784 = 9568 patches: at a block's gated MLP 3 x 3420 + 3 x 1280 = 14,100 elements
    // per patch, 2 B: 269,817,600; eager attention image by image: 16 heads x 4784^2 x (2 + 4 + 2) B = 2,929,491,968.
    const double tower = 9568.0 * 14100 * 2 + 16.0 * 4784 * 4784 * 8;
    CHECK(tower == 3199309568.0);
    const double fwd = forward_rows(e, "act.vision_forward");
    REQUIRE(tower > fwd);  // the checkpointed language model and the fused loss keep less than the tower's forward needs
    CHECK(bytes_of(e, "act.vision_forward") == Approx(tower - fwd).epsilon(1e-12));
    // With flash attention the tower's 269,817,600 B stay below what the language model keeps: nothing beyond.
    s.train.flash_attention = true;
    const Estimate f = estimate(s);
    REQUIRE(f.ok());
    CHECK(forward_rows(f, "act.vision_forward") > 269817600.0);
    CHECK(bytes_of(f, "act.vision_forward") == 0);
    for (const std::string& w : f.warnings) CHECK(w.find("working memory") == std::string::npos);
}

TEST_CASE("vision-language training: QLoRA's 4-bit load converts the tower's and projector's linears too (finetune.vision_quant)") {
    // Qwen2.5-VL-7B-Instruct's tower and projector, 676,550,144 parameters, of which nn.Linear weights: per block qkv
    // 3840 x 1280, proj 1280 x 1280, gate and up 3420 x 1280, down 1280 x 3420 = 19,686,400, 32 blocks = 629,964,800; the
    // merger's mlp.0 5120 x 5120 and mlp.2 3584 x 5120 = 44,564,480. The rest stays 16-bit: the Conv3d patch embedding
    // 1280 x 1176 = 1,505,280, the norms 2 x 1280 x 32 = 81,920, the blocks' biases (3840 + 1280 + 2 x 3420 + 1280) x 32 =
    // 423,680, the merger's ln_q and biases 1280 + 5120 + 3584 = 9,984: 2,020,864.
    const double tower_linear = 629964800, projector_linear = 44564480, rest = 2020864;
    CHECK(tower_linear + projector_linear + rest == 676550144.0);
    // NF4: 4 bits a weight, and double-quantized constants of 8 / 64 + 32 / (64 x 256) bits a weight (block 64, block2 256).
    const double constant_bits = 8.0 / 64 + 32.0 / (64 * 256);

    Scenario s = lora_sample_with_images();
    s.finetune.method = FineTuneMethod::QLoRA;
    s.finetune.vision_quant = VisionQuant::None;  // both kept 16-bit: the language model's linears alone are NF4
    const Estimate none = estimate(s);
    REQUIRE(none.ok());
    CHECK(bytes_of(none, "weights.vision_frozen") == 676550144.0 * 2);

    s.finetune.vision_quant = VisionQuant::All;  // the default: transformers' BitsAndBytesConfig keeps lm_head alone
    CHECK(Scenario{}.finetune.vision_quant == VisionQuant::All);
    const Estimate all = estimate(s);
    REQUIRE(all.ok());
    CHECK(bytes_of(all, "weights.vision_frozen") == rest * 2);
    CHECK(bytes_of(all, "weights.nf4") - bytes_of(none, "weights.nf4") == (tower_linear + projector_linear) * 0.5);
    CHECK(bytes_of(all, "weights.quant_constants") - bytes_of(none, "weights.quant_constants") ==
          Approx((tower_linear + projector_linear) * constant_bits / 8).epsilon(1e-12));
    CHECK(bytes_of(all, "weights.frozen") == bytes_of(none, "weights.frozen"));  // the language model's 16-bit rest

    s.finetune.vision_quant = VisionQuant::Tower;  // Unsloth's skip list: the merger kept 16-bit
    const Estimate tower = estimate(s);
    REQUIRE(tower.ok());
    CHECK(bytes_of(tower, "weights.vision_frozen") == (rest + projector_linear) * 2);
    CHECK(bytes_of(tower, "weights.nf4") - bytes_of(none, "weights.nf4") == tower_linear * 0.5);

    // A trained projector (a modules_to_save copy) is never converted, not even its frozen original.
    s.finetune.vision_quant = VisionQuant::All;
    s.train.vision = VisionTraining::Projector;
    const Estimate projector = estimate(s);
    REQUIRE(projector.ok());
    CHECK(bytes_of(projector, "weights.vision_frozen") == (rest + projector_linear) * 2);

    // Gemma 3's projector, mm_input_projection_weight, is a plain parameter, never converted: all and tower agree, and differ
    // from none by the SigLIP tower's linears alone.
    Scenario g = s;
    g.model = config("gemma-3-4b-it.json");
    g.train.vision = VisionTraining::Frozen;
    const Estimate g_all = estimate(g);
    g.finetune.vision_quant = VisionQuant::Tower;
    const Estimate g_tower = estimate(g);
    g.finetune.vision_quant = VisionQuant::None;
    const Estimate g_none = estimate(g);
    REQUIRE((g_all.ok() && g_tower.ok() && g_none.ok()));
    CHECK(bytes_of(g_all, "weights.vision_frozen") == bytes_of(g_tower, "weights.vision_frozen"));
    CHECK(bytes_of(g_all, "weights.vision_frozen") < bytes_of(g_none, "weights.vision_frozen"));
}

TEST_CASE("vision-language training: finetune.vision_quant needs QLoRA and a tower, and travels through JSON, the share link and the CLI") {
    Scenario s = lora_sample_with_images();  // LoRA: nothing is quantized
    s.finetune.vision_quant = VisionQuant::Tower;
    Estimate bad = estimate(s);
    REQUIRE_FALSE(bad.ok());
    CHECK(to_string(bad.errors[0]).rfind("finetune.vision_quant: says which vision-tower linears QLoRA's 4-bit load converts", 0) == 0);
    Scenario text;
    text.mode = Mode::FineTune;
    text.finetune.method = FineTuneMethod::QLoRA;
    text.finetune.vision_quant = VisionQuant::None;
    bad = estimate(text);
    REQUIRE_FALSE(bad.ok());
    CHECK(to_string(bad.errors[0]).rfind("finetune.vision_quant: describes a vision-language model's tower", 0) == 0);

    s.finetune.method = FineTuneMethod::QLoRA;
    REQUIRE(estimate(s).ok());
    CHECK(scenario_to_json(s).find("\"vision_quant\": \"tower\"") != std::string::npos);
    const Result<Scenario> back = scenario_from_json(scenario_to_json(s));
    REQUIRE(back.ok());
    CHECK(back.value->finetune.vision_quant == VisionQuant::Tower);
    const Result<Scenario> link = decode_share_link(encode_share_link(s));
    REQUIRE(link.ok());
    CHECK(link.value->finetune.vision_quant == VisionQuant::Tower);
    Scenario edited = lora_sample_with_images();
    CHECK(set_scenario_field(edited, "finetune.vision_quant", "\"none\"").empty());
    CHECK(edited.finetune.vision_quant == VisionQuant::None);
    const std::vector<FieldError> wrong = set_scenario_field(edited, "finetune.vision_quant", "\"some\"");
    REQUIRE(wrong.size() == 1);
    CHECK(wrong[0].field == "finetune.vision_quant");
    // The CLI: --vision-quant none keeps the whole tower and projector 16-bit (676,550,144 x 2 B, as above).
    std::string out, err;
    const std::vector<std::string> args{"estimate", "--model", "qwen2.5-vl-7b", "--mode", "finetune", "--method", "qlora", "--train-images", "1",
                                        "--vision-quant", "none", "--format", "json"};
    REQUIRE(cli::run(args, out, err) == 0);
    double vision = -1;
    const nlohmann::json j = nlohmann::json::parse(out);
    for (const auto& c : j["components"])
        if (c["id"] == "weights.vision_frozen") vision = c["bytes"].get<double>();
    CHECK(vision == 676550144.0 * 2);
}

TEST_CASE("vision-language training: Llama 3.2 Vision's cross-attention layers attend to each image's 6404 states") {
    // Llama-3.2-11B-Vision: 40 text layers, 8 of them cross-attention (3, 8, ..., 38), h 4096, 32 heads and 8 kv heads of 128.
    // An image is padded to 4 tiles of 560 px / 14: 1600 patches + 1 per tile, 6404 states for the cross-attention layers; the
    // tower pads each tile's 1601 to 1608 (a multiple of 8) and attends over the 4 tiles at once: 6432 positions.
    Scenario s;
    s.mode = Mode::FineTune;
    s.model = config("llama-3.2-11b-vision-instruct.json");
    s.train.precision = Precision::PureBF16;  // bf16 everything: 2 B activations, no casts
    s.finetune.adapters_fp32 = false;         // LoRA r 16 on q and v in bf16: q's input is saved, no adapter casts
    s.train.micro_batch = 1;
    s.train.seq_len = 1000;
    s.train.recompute = Recompute::None;
    s.train.flash_attention = true;
    s.train.dropout = 0;
    const Estimate text = estimate(s);
    REQUIRE(text.ok());
    CHECK(bytes_of(text, "act.cross_attention") == -1);  // without images the forward skips the cross-attention layers
    s.train.images = 1;
    CHECK(training_tower_patches(s.model, s.train) == 6432);
    CHECK(training_image_tokens(s.model, s.train) == 0);  // its <|image|> token is one of seq_len's
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    // One cross layer, T = 1000 text tokens, T_img = 6404 states, 2 B each:
    //   q's saved input 2 x 1000 x 4096 = 8,192,000; Q over the text and K over the images 2 x (1000 x 4096 + 6404 x 1024) =
    //   21,307,392; q_norm / k_norm inputs the same 21,307,392; V 2 x 6404 x 1024 = 13,115,392; the flash output
    //   2 x 1000 x 4096 = 8,192,000 and its log-sum-exp 4 x 32 x 1000 = 128,000: 72,242,176; 8 cross layers.
    CHECK(bytes_of(e, "act.cross_attention") == 8 * 72242176.0);
    // Once: the image states [1, 6404, 4096] and the mask [1, 1, 1000, 6404], 2 B each: 2 x 6404 x (4096 + 1000).
    CHECK(bytes_of(e, "act.image_states") == 2.0 * 6404 * (4096 + 1000));
    // The text side is unchanged by the image: the 32 self-attention layers' attention, every layer's norms and MLP.
    for (const char* id : {"act.attention", "act.norms", "act.mlp"}) {
        INFO(id);
        CHECK(bytes_of(e, id) == bytes_of(text, id));
    }
    bool said = false;
    for (const std::string& w : e.warnings) said = said || w.find("attend to 6404 image states per image") != std::string::npos;
    CHECK(said);
    // The frozen tower runs over the 6432 positions and saves nothing: its forward working memory is counted instead.
    CHECK(bytes_of(e, "act.vision_forward") >= 0);
    CHECK(bytes_of(e, "act.vision_tower") == -1);

    // Full recomputation keeps the layers' inputs only: the cross layers' attention goes, the states and mask stay.
    Scenario full = s;
    full.train.recompute = Recompute::Full;
    const Estimate f = estimate(full);
    REQUIRE(f.ok());
    CHECK(bytes_of(f, "act.cross_attention") == -1);
    CHECK(bytes_of(f, "act.image_states") == bytes_of(e, "act.image_states"));

    // A trained projector saves its input over the 6404 states: the last state and 5 intermediate layers' concatenated,
    // 6 x 1280 = 7680 wide, 2 B: 2 x 6404 x 7680.
    s.train.vision = VisionTraining::Projector;
    const Estimate p = estimate(s);
    REQUIRE(p.ok());
    CHECK(bytes_of(p, "act.projector") == 2.0 * 6404 * 7680);
}

TEST_CASE("vision-language models: a transformers bitsandbytes load quantizes the tower's and projector's linears too") {
    Scenario s;
    s.mode = Mode::Infer;
    s.model = config("qwen2.5-vl-7b-instruct.json");
    s.infer.engine = Engine::Transformers;
    s.infer.weights = WeightFormat::NF4;
    s.infer.double_quant = false;
    // Qwen2.5-VL-7B's nn.Linear weights by hand (vision_config: hidden 1280, intermediate 3420, depth 32, out_hidden 3584):
    // a block's qkv 3840 x 1280, proj 1280 x 1280, gate / up / down 3 x 3420 x 1280 = 19,686,400; the merger's mlp.0
    // 5120 x 5120 and mlp.2 3584 x 5120 = 44,564,480. The rest of the 676,550,144 (patch embedding Conv3d 1,505,280, norms,
    // biases) stays in bf16. NF4 without double quantization: 4 bits + one fp32 absmax per 64 weights = 4.5 bits
    // [qlora2023 §3] [transformers-bnb-skip].
    const double linears = 32 * 19686400.0 + 44564480;
    CHECK(linears == 674529280);
    const double rest = 676550144.0 - linears;
    CHECK(rest == 1505280 + 32 * (2 * 1280 + 3840 + 1280 + 2 * 3420 + 1280) + 1280 + 5120 + 3584);
    Estimate e = estimate(s);
    REQUIRE(e.ok());
    CHECK(bytes_of(e, "weights.vision") == Approx(rest * 2 + linears * 4.5 / 8));
    // LLM.int8: 8 bits a weight and an fp32 scale per output row: tower rows per block 3840 + 1280 + 2 * 3420 + 1280,
    // merger rows 5120 + 3584 [llm-int8-2022].
    s.infer.weights = WeightFormat::INT8;
    e = estimate(s);
    REQUIRE(e.ok());
    const double rows = 32 * (3840.0 + 1280 + 2 * 3420 + 1280) + 5120 + 3584;
    CHECK(bytes_of(e, "weights.vision") == Approx(rest * 2 + linears + rows * 4));
    // GPTQ checkpoints and vLLM's quantization configs leave the visual modules in the model's dtype.
    s.infer.weights = WeightFormat::GPTQ4;
    e = estimate(s);
    REQUIRE(e.ok());
    CHECK(bytes_of(e, "weights.vision") == 676550144.0 * 2);
    s.infer.weights = WeightFormat::NF4;
    s.infer.engine = Engine::VLLM;
    e = estimate(s);
    REQUIRE(e.ok());
    CHECK(bytes_of(e, "weights.vision") == 676550144.0 * 2);
}
