// Weights by format: bits per weight from each format's block layout, which tensors stay in higher
// precision, and the GGUF mixes against llama.cpp's own size table.
#include <catch2/catch.hpp>

#include <iterator>
#include <utility>
#include <string>

#include "enum_names.h"
#include "estimate.h"
#include "inference/kv_cache.h"
#include "inference/weight_formats.h"
#include "component_lookup.h"
#include "inference_models.h"
#include "model/checkpoint_config.h"
#include "model/hf_config.h"
#include "model/presets.h"
#include "units.h"

using namespace vl;
using Catch::Matchers::WithinAbs;

static double bits(WeightFormat f, int64_t group = 128, bool dq = false, int64_t in = 4096) {
    InferenceOptions o;
    o.weights = f; o.group_size = group; o.double_quant = dq;
    return linear_bits_per_weight(o, in);
}

static double weight_bytes(const Estimate& e) {
    double w = 0;
    for (const Component& c : e.components) if (c.category == Category::Weights) w += c.bytes;
    return w;
}

static Scenario infer(const ModelSpec& m, WeightFormat f, Engine engine = Engine::Transformers) {
    Scenario s;
    s.mode = Mode::Infer;
    s.model = m;
    s.infer.weights = f;
    s.infer.engine = engine;
    s.infer.context = 128;
    return s;
}

TEST_CASE("bits per weight of each format, scales and zeros included (hand-derived)") {
    CHECK(bits(WeightFormat::FP32) == 32);
    CHECK(bits(WeightFormat::BF16) == 16);
    CHECK(bits(WeightFormat::FP8) == 8);
    CHECK(bits(WeightFormat::INT8, 128, false, 4096) == 8 + 32.0 / 4096);  // fp32 row scale per 4096 inputs
    CHECK(bits(WeightFormat::GPTQ4, 128) == 4.15625);                      // 4 + (16 scale + 4 zero) / 128
    CHECK(bits(WeightFormat::AWQ4, 64) == 4.3125);                         // 4 + 20 / 64
    // QLoRA Sec 3 (case 28): absmax costs 32/64 = 0.5 bit; double quant 8/64 + 32/(64*256) = 0.127 bit.
    CHECK(bits(WeightFormat::NF4) == 4.5);
    CHECK_THAT(bits(WeightFormat::NF4, 128, true) - 4, WithinAbs(0.127, 0.0005));
    CHECK(bits(WeightFormat::FP4) == 4.5);
    // GGUF block layouts (ggml-common.h): Q8_0 34 B / 32, Q6_K 210 B / 256, Q4_0 18 B / 32.
    CHECK(bits(WeightFormat::GGUF_Q8_0) == 8.5);
    CHECK(bits(WeightFormat::GGUF_Q6_K) == 6.5625);
    CHECK(bits(WeightFormat::GGUF_Q4_0) == 4.5);
    CHECK(ggml_bits_per_weight(GgmlType::Q5_K) == 5.5);
    CHECK(ggml_bits_per_weight(GgmlType::Q4_K) == 4.5);
    CHECK(ggml_bits_per_weight(GgmlType::Q3_K) == 3.4375);
    CHECK(ggml_bits_per_weight(GgmlType::Q2_K) == 2.625);
}

TEST_CASE("the weight format table: bits per weight of every row from its cited layout (hand-derived)") {
    // Bits per weight with infer.group_size 128 and in_features 4096, without / with double quant.
    struct Hand { WeightFormat f; double bits, bits_dq; };
    const Hand hand[] = {
        {WeightFormat::FP32, 32, 32},
        {WeightFormat::FP16, 16, 16},
        {WeightFormat::BF16, 16, 16},
        {WeightFormat::FP8, 8, 8},                                  // e4m3, one scale per tensor [vllm-code]
        {WeightFormat::INT8, 8 + 32.0 / 4096, 8 + 32.0 / 4096},     // + fp32 scale per row of 4096 [llm-int8-2022]
        {WeightFormat::GPTQ4, 4 + 20.0 / 128, 4 + 20.0 / 128},      // + fp16 scale + 4-bit zero per 128 [gptq2022]
        // AutoGPTQ QuantLinear [autogptq-code]: qweight int32 [in / 32 * b, out] = b bits a weight; per group
        // of 128 inputs an fp16 scale (scales [in / g, out]) and a b-bit zero (qzeros int32 [in / g, out / 32 * b])
        {WeightFormat::GPTQ8, 8 + 24.0 / 128, 8 + 24.0 / 128},      // 8.1875
        {WeightFormat::GPTQ3, 3 + 19.0 / 128, 3 + 19.0 / 128},      // 3.1484375
        {WeightFormat::GPTQ2, 2 + 18.0 / 128, 2 + 18.0 / 128},      // 2.140625
        {WeightFormat::AWQ4, 4 + 20.0 / 128, 4 + 20.0 / 128},       // the same layout [awq2023]
        // [qlora2023 §3]: fp32 absmax per 64 = 0.5 bit; double quant 8/64 + 32/(64 * 256) = 0.127 bit
        {WeightFormat::NF4, 4.5, 4 + 8.0 / 64 + 32.0 / (64 * 256)},
        {WeightFormat::FP4, 4.5, 4 + 8.0 / 64 + 32.0 / (64 * 256)},
        // GGUF: the base type's block (ggml-common.h) [llama-cpp-code]: bytes * 8 / weights per block
        {WeightFormat::GGUF_Q8_0, 34 * 8 / 32.0, 34 * 8 / 32.0},    // 8.5
        {WeightFormat::GGUF_Q6_K, 210 * 8 / 256.0, 210 * 8 / 256.0},  // 6.5625
        {WeightFormat::GGUF_Q5_K_M, 176 * 8 / 256.0, 176 * 8 / 256.0},  // Q5_K 5.5
        {WeightFormat::GGUF_Q4_K_M, 144 * 8 / 256.0, 144 * 8 / 256.0},  // Q4_K 4.5
        {WeightFormat::GGUF_Q4_0, 18 * 8 / 32.0, 18 * 8 / 32.0},    // 4.5
        {WeightFormat::GGUF_Q3_K_M, 110 * 8 / 256.0, 110 * 8 / 256.0},  // Q3_K 3.4375
        {WeightFormat::GGUF_Q2_K, 84 * 8 / 256.0, 84 * 8 / 256.0},  // Q2_K 2.625
        // legacy 32-weight blocks (ggml-common.h): block_q4_1 = fp16 d + fp16 m + 16 B of nibbles = 20 B; block_q5_0 =
        // fp16 d + qh[4] + qs[16] = 22 B; block_q5_1 = fp16 d + fp16 m + qh[4] + qs[16] = 24 B
        {WeightFormat::GGUF_Q4_1, 20 * 8 / 32.0, 20 * 8 / 32.0},    // 5.0
        {WeightFormat::GGUF_Q5_0, 22 * 8 / 32.0, 22 * 8 / 32.0},    // 5.5
        {WeightFormat::GGUF_Q5_1, 24 * 8 / 32.0, 24 * 8 / 32.0},    // 6.0
        {WeightFormat::GGUF_Q4_K_S, 144 * 8 / 256.0, 144 * 8 / 256.0},  // Q4_K 4.5
        {WeightFormat::GGUF_Q5_K_S, 176 * 8 / 256.0, 176 * 8 / 256.0},  // Q5_K 5.5
        {WeightFormat::MXFP4, 4 + 8.0 / 32, 4 + 8.0 / 32},          // fp4 e2m1 + an e8m0 scale per 32 [ocp-mx-spec]: 4.25
    };
    CHECK(std::size(hand) == std::size(kWeightFormats));
    for (const WeightFormatInfo& row : kWeightFormats) {
        INFO(row.name);
        const Hand* h = nullptr;
        for (const Hand& x : hand) if (x.f == row.format) h = &x;
        REQUIRE(h != nullptr);  // a new row needs its hand-derived value here
        CHECK(bits(row.format, 128, false, 4096) == h->bits);
        CHECK(bits(row.format, 128, true, 4096) == h->bits_dq);
        CHECK(std::string(row.source).find('[') != std::string::npos);  // cites a docs/sources.md key
        CHECK(parse_enum<WeightFormat>(row.key) == row.format);           // the JSON/CLI name is the table's
        // quantized formats keep the embedding, lm_head and norms as they are: 16 bits (fp32: 32);
        // GGUF keeps the norms in f32
        CHECK(row.keep_bits == (row.format == WeightFormat::FP32 || is_gguf(row.format) ? 32 : 16));
    }
    // The GGML block structs of ggml-common.h: bytes per block of 32 or 256 weights.
    struct GgmlBlock { GgmlType t; double weights, bytes; };
    const GgmlBlock blocks[] = {{GgmlType::Q8_0, 32, 34}, {GgmlType::Q6_K, 256, 210}, {GgmlType::Q5_K, 256, 176},
                            {GgmlType::Q4_K, 256, 144}, {GgmlType::Q3_K, 256, 110}, {GgmlType::Q2_K, 256, 84},
                            {GgmlType::Q4_0, 32, 18}, {GgmlType::Q4_1, 32, 20}, {GgmlType::Q5_0, 32, 22},
                            {GgmlType::Q5_1, 32, 24}};
    for (const GgmlBlock& b : blocks) {
        INFO(ggml_type(b.t).name);
        const QuantLayout& l = ggml_type(b.t).layout;
        CHECK(l.block_size == b.weights);
        CHECK(l.data_bits * l.block_size + l.scale_bits + l.zero_bits == b.bytes * 8);
        CHECK(ggml_bits_per_weight(b.t) == b.bytes * 8 / b.weights);
    }
    CHECK(ggml_bits_per_weight(GgmlType::F32) == 32);
    CHECK(ggml_bits_per_weight(GgmlType::F16) == 16);
    // KV cache dtypes: q8_0 / q4_0 blocks of 32 with an fp16 scale (34 and 18 bytes) [llama-cpp-code]
    CHECK(kv_bytes_per_element(KvDtype::BF16) == 2);
    CHECK(kv_bytes_per_element(KvDtype::FP8) == 1);
    CHECK(kv_bytes_per_element(KvDtype::INT8) == 34.0 / 32);
    CHECK(kv_bytes_per_element(KvDtype::INT4) == 18.0 / 32);
    for (const KvDtypeInfo& k : kKvDtypes) CHECK(parse_enum<KvDtype>(k.key) == k.dtype);
}

TEST_CASE("[transformer-series5 §3.2]: inference weights are 2P bytes in fp16 and 4P in fp32") {
    const ModelSpec m = test::llama3_8b();  // P = 8,030,261,248 (cases.md model table)
    CHECK(weight_bytes(estimate(infer(m, WeightFormat::BF16))) == 2.0 * 8030261248);
    CHECK(weight_bytes(estimate(infer(m, WeightFormat::FP32))) == 4.0 * 8030261248);
}

TEST_CASE("quantized formats keep embeddings, lm_head and norms in 16-bit (hand-derived)") {
    const ModelSpec m = test::llama3_8b();
    // Linear params: 32 * (2*4096^2 + 2*4096*1024 + 3*4096*14336) = 6,979,321,856;
    // embedding and head 128256*4096 each = 525,336,576; norms 2*32*4096 + 4096 = 266,240.
    const double linear = 6979321856.0, embed = 525336576.0, norms = 266240.0;
    const double sixteen = (2 * embed + norms) * 2;
    CHECK_THAT(weight_bytes(estimate(infer(m, WeightFormat::GPTQ4))), WithinAbs(linear * 4.15625 / 8 + sixteen, 1));
    CHECK_THAT(weight_bytes(estimate(infer(m, WeightFormat::NF4))), WithinAbs(linear * 4.5 / 8 + sixteen, 1));
    CHECK_THAT(weight_bytes(estimate(infer(m, WeightFormat::FP8))), WithinAbs(linear + sixteen, 1));
    // LLM.int8: 8 bits + fp32 scale per output row; rows of q,k,v,o,gate,up read 4096 inputs, down 14336.
    const double down = 32.0 * 4096 * 14336, rest = linear - down;
    CHECK_THAT(weight_bytes(estimate(infer(m, WeightFormat::INT8))),
               WithinAbs(rest * (8 + 32.0 / 4096) / 8 + down * (8 + 32.0 / 14336) / 8 + sixteen, 1));
}

// The row scales of LLM.int8 follow each matrix's own input width: o_proj reads heads * head_dim inputs
// (2048 in Qwen3-0.6B, not d = 1024) and a routed expert's down_proj expert_ffn (not ffn, 0 in Mixtral).
// The old count used d for every non-down matrix and ffn for every down projection.
TEST_CASE("LLM.int8: one fp32 scale per output row of every matrix, rows from the tensor inventory (hand-derived)") {
    // bitsandbytes Int8Params: int8 CB [out, in] + fp32 SCB [out] [bitsandbytes-code]; lm_head, embedding
    // and norms stay 16-bit [transformers-code].
    // Qwen3-0.6B (d 1024, 16 heads of 128, 8 kv heads, ffn 3072, 28 layers, tied, qk-norm):
    //   matrices per layer: q 2048x1024, k 1024x1024, v 1024x1024, o 1024x2048, gate/up 3072x1024, down 1024x3072
    //   = 2,097,152 + 2 * 1,048,576 + 2,097,152 + 3 * 3,145,728 = 15,728,640 weights, + q/k norms 2 * 128
    //   (stored with the layer's linear parameters) = 15,728,896; rows 2048 + 1024 + 1024 + 1024 + 3072 + 3072 + 1024 = 12,288.
    //   28 layers: 440,409,088 bytes of int8 + 344,064 rows * 4 B = 441,785,344.
    //   Tied embedding 151,936 * 1024 at 2 B = 311,164,928; norms (2 * 28 + 1) * 1024 at 2 B = 116,736.
    CHECK(weight_bytes(estimate(infer(test::qwen3_06b(), WeightFormat::INT8))) == 441785344.0 + 311164928.0 + 116736.0);

    // A Mixtral-style MoE (d 64, 4 heads of 16, 2 kv heads, 4 experts of 128, top 2, 2 layers, untied, no dense MLP):
    //   per layer q 64x64, k/v 32x64, o 64x64, 4 experts x (gate/up 128x64 + down 64x128), router 4x64
    //   = 4096 + 2 * 2048 + 4096 + 4 * 3 * 8192 + 256 = 110,848 weights; rows 64 + 2 * 32 + 64 + 4 * (128 + 128 + 64) + 4 = 1,476.
    //   2 layers: 2 * (110,848 + 1,476 * 4) = 233,504; embedding and lm_head 2 * 1000 * 64 at 2 B = 256,000;
    //   norms (2 * 2 + 1) * 64 at 2 B = 640.
    ModelSpec moe = test::llama("tiny-mixtral", 1000, 64, 2, 4, 2, 0, 256);
    moe.model_type = "mixtral";
    moe.moe.num_experts = 4; moe.moe.top_k = 2; moe.moe.expert_ffn = 128;
    CHECK(weight_bytes(estimate(infer(moe, WeightFormat::INT8))) == 233504.0 + 256000.0 + 640.0);
}

// A model known by its parameter count has no rows to count: the int8 data only. The old code read
// the row width from the spec's hidden size, 0 for such a model, and charged 8 + 32 / 1 = 40 bits a weight.
TEST_CASE("LLM.int8 on a parameter-count model: one byte a weight, not 40 bits") {
    Scenario s = infer(model_from_param_count(7'000'000'000), WeightFormat::INT8);
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    CHECK(weight_bytes(e) == 7e9);  // int8: 1 B per weight [llm-int8-2022]
}

TEST_CASE("GPTQ 8, 3 and 2 bits: b-bit packed weights, an fp16 scale and a b-bit zero per group (hand-derived)") {
    // Llama-3-8B as in the test above: linear 6,979,321,856; 16-bit embedding, head and norms.
    const ModelSpec m = test::llama3_8b();
    const double linear = 6979321856.0, sixteen = (2 * 525336576.0 + 266240.0) * 2;
    for (const auto& [f, bits] : {std::pair{WeightFormat::GPTQ8, 8 + 24.0 / 128}, std::pair{WeightFormat::GPTQ3, 3 + 19.0 / 128},
                                  std::pair{WeightFormat::GPTQ2, 2 + 18.0 / 128}}) {
        INFO(enum_name(f));
        CHECK_THAT(weight_bytes(estimate(infer(m, f))), WithinAbs(linear * bits / 8 + sixteen, 1));
    }
    // group size 32: 8 + (16 + 8) / 32 = 8.75 bits
    Scenario s = infer(m, WeightFormat::GPTQ8);
    s.infer.group_size = 32;
    CHECK_THAT(weight_bytes(estimate(s)), WithinAbs(linear * 8.75 / 8 + sixteen, 1));
}

TEST_CASE("GGUF mixes reproduce llama.cpp's quantize table for Llama-3-8B") {
    // tools/quantize/quantize.cpp QUANT_OPTIONS: "Q2_K 2.96G, Q3_K_M 3.74G, Q4_0 4.34G, Q4_K_M 4.58G,
    // Q5_K_M 5.33G, Q6_K 6.14G, Q8_0 7.96G, Q4_1 4.78G, Q5_0 5.21G, Q5_1 5.65G, Q4_K_S 4.37G, Q5_K_S 5.21G
    // @ Llama-3-8B" (G = GiB, rounded to 0.01; the file also holds the tokenizer and metadata, a few MiB).
    // Tolerance 0.02 GiB.
    const ModelSpec m = test::llama3_8b();
    struct Row { WeightFormat f; double gib; };
    const Row rows[] = {{WeightFormat::GGUF_Q2_K, 2.96},   {WeightFormat::GGUF_Q3_K_M, 3.74},
                        {WeightFormat::GGUF_Q4_0, 4.34},   {WeightFormat::GGUF_Q4_K_M, 4.58},
                        {WeightFormat::GGUF_Q5_K_M, 5.33}, {WeightFormat::GGUF_Q6_K, 6.14},
                        {WeightFormat::GGUF_Q8_0, 7.96},   {WeightFormat::GGUF_Q4_1, 4.78},
                        {WeightFormat::GGUF_Q5_0, 5.21},   {WeightFormat::GGUF_Q5_1, 5.65},
                        {WeightFormat::GGUF_Q4_K_S, 4.37}, {WeightFormat::GGUF_Q5_K_S, 5.21}};
    for (const Row& r : rows) {
        INFO(weight_format_name(r.f));
        CHECK_THAT(to_gib(weight_bytes(estimate(infer(m, r.f, Engine::LlamaCpp)))), WithinAbs(r.gib, 0.02));
    }
}

TEST_CASE("GGUF Q4_K_S: the first four attn_v and the first eighth of ffn_down are Q5_K, by hand for Llama-3-8B") {
    // llama_tensor_get_type (src/llama-quant.cpp) [llama-cpp-code]: Q4_K_S takes Q5_K for attn_v while
    // i_attention_wv < 4 and for ffn_down while i_layer < n_layer / 8 (32 / 8 = 4): 4 layers each. Llama-3-8B:
    // attn_v 4096 x 1024, ffn_down 14336 x 4096; Q5_K 5.5 bits vs Q4_K 4.5: 1 bit more on 4 * (4,194,304 +
    // 58,720,256) = 251,658,240 weights = 31,457,280 B. The rest: linear 6,979,321,856 and token_embd
    // 525,336,576 at 4.5 bits, output 525,336,576 at Q6_K 6.5625, norms 266,240 at 4 B.
    const double base = (6979321856.0 + 525336576.0) * 4.5 / 8 + 525336576.0 * 6.5625 / 8 + 266240.0 * 4;
    CHECK(weight_bytes(estimate(infer(test::llama3_8b(), WeightFormat::GGUF_Q4_K_S, Engine::LlamaCpp))) == base + 31457280.0);
    // Q5_K_S has no rule: every layer matrix Q5_K (5.5 bits), the output Q6_K
    CHECK(weight_bytes(estimate(infer(test::llama3_8b(), WeightFormat::GGUF_Q5_K_S, Engine::LlamaCpp))) ==
          (6979321856.0 + 525336576.0) * 5.5 / 8 + 525336576.0 * 6.5625 / 8 + 266240.0 * 4);
}

TEST_CASE("case 26: llama.cpp F16 model buffer 15317.02 MiB, 14.96 GiB") {
    // F16 matrices + f32 norms: (8,030,261,248 - 266,240) * 2 + 266,240 * 4 = 16,061,054,976 B
    // = 15317.013 MiB; the log's 15317.02 MiB includes the backend's tensor alignment padding.
    const Estimate e = estimate(infer(test::llama3_8b(), WeightFormat::FP16, Engine::LlamaCpp));
    REQUIRE(e.ok());
    CHECK(weight_bytes(e) == 16061054976.0);
    CHECK_THAT(weight_bytes(e) / kMiB, WithinAbs(15317.02, 0.02));
    CHECK_THAT(to_gib(weight_bytes(e)), WithinAbs(14.96, 0.005));
}

TEST_CASE("tensor and pipeline parallel split the weights, norms are replicated (hand-derived)") {
    Scenario s = infer(test::llama3_8b(), WeightFormat::BF16, Engine::VLLM);
    s.parallel.tp = 2; s.gpu_count = 2;
    // (8,030,261,248 - 266,240) * 2 / 2 + 266,240 * 2 = 8,030,527,488 B per GPU.
    CHECK(weight_bytes(estimate(s)) == 8030527488.0);
    s.parallel.tp = 1; s.parallel.pp = 2;
    // Stage 0: embedding + 16 layers + their norms; stage 1: 16 layers + final norm + lm_head: equal
    // except the final norm, so the last stage is the most loaded:
    // 16 * 218,103,808 (layer matrices) * 2 + 16 * 8192 * 2 + 525,336,576 * 2 + 4096 * 2
    CHECK(weight_bytes(estimate(s)) == 16.0 * 218103808 * 2 + 16.0 * 8192 * 2 + 525336576.0 * 2 + 4096.0 * 2);
}

namespace {
const Component* component(const Estimate& e, const std::string& id) {
    for (const Component& c : e.components)
        if (c.id == id) return &c;
    return nullptr;
}

// A two-layer model (d 256, 4 heads, 2 KV heads, FFN 512, vocabulary 32) with the tensor bytes of
// tests/checkpoint_files.h's two-block GGUF: blk.0 376064, blk.1 342272 (its ffn_down is Q4_K, not
// Q6_K), token_embd 4608, output 6720, output_norm 1024.
std::string gguf_warning(const Estimate& e) {
    for (const std::string& w : e.warnings)
        if (w.rfind("model.gguf_bytes", 0) == 0) return w;
    return {};
}

ModelSpec two_block_model() {
    ModelSpec m = test::llama("two-block", 32, 256, 2, 4, 2, 512, 4096);
    m.gguf_bytes = {{376064, 342272}, 4608, 6720, 1024, {}};
    return m;
}
}  // namespace

TEST_CASE("llama.cpp with an imported GGUF's tensor bytes: each pipeline stage holds its own layers' blocks") {
    Scenario s = infer(two_block_model(), WeightFormat::GGUF_Q4_K_M, Engine::LlamaCpp);
    s.parallel.pp = 2;
    s.gpu_count = 2;
    // Stage 0: blk.0 = 376064 B on its GPU (token_embd 4608 on the host); stage 1: blk.1 342272 +
    // output 6720 + output_norm 1024 = 350016 B. One layer's KV each: stage 0 is the most loaded.
    Estimate e = estimate(s, Detail::Full);
    REQUIRE(e.ok());
    CHECK(e.warnings.empty());
    REQUIRE(component(e, "weights.linear"));
    CHECK(component(e, "weights.linear")->bytes == 376064);
    CHECK(component(e, "weights.linear")->substituted() == "376,064 = 376,064 B");
    REQUIRE(component(e, "weights.embedding"));
    CHECK(component(e, "weights.embedding")->bytes == 4608);
    CHECK(component(e, "weights.embedding")->host);
    CHECK_FALSE(component(e, "weights.lm_head"));
    CHECK_FALSE(component(e, "weights.norms"));
    // One GPU: both blocks, the output and output_norm on it: 718336 + 6720 + 1024 = 726080 B of GPU weights.
    s.parallel.pp = 1;
    s.gpu_count = 1;
    e = estimate(s);
    REQUIRE(e.ok());
    double gpu = 0;
    for (const Component& c : e.components)
        if (c.category == Category::Weights && !c.host) gpu += c.bytes;
    CHECK(gpu == 726080);
    // A tied model whose file has no output.weight: llama.cpp loads token_embd again as the output.
    s.model.tied_embeddings = true;
    s.model.gguf_bytes.output = 0;
    e = estimate(s, Detail::Full);
    REQUIRE(component(e, "weights.lm_head"));
    CHECK(component(e, "weights.lm_head")->bytes == 4608);
    CHECK(component(e, "weights.lm_head")->formula() == "token_embd");
}

TEST_CASE("llama.cpp with an imported GGUF's tensor bytes: many blocks are summed under one name") {
    ModelSpec m = test::llama("ten", 32, 256, 10, 4, 2, 512, 4096);
    m.gguf_bytes = {{1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009}, 10, 20, 30, {}, WeightFormat::GGUF_Q8_0};
    const Estimate e = estimate(infer(m, WeightFormat::GGUF_Q8_0, Engine::LlamaCpp), Detail::Full);
    REQUIRE(component(e, "weights.linear"));
    // 10 * 1000 + (0 + 1 + ... + 9) = 10045
    CHECK(component(e, "weights.linear")->bytes == 10045);
    CHECK(component(e, "weights.linear")->formula() == "blk.0-9");
    CHECK(component(e, "weights.linear")->substituted() == "10,045 = 10,045 B");
}

TEST_CASE("GGUF tensor bytes that no longer describe the model: a warning, and the format's rules") {
    // The model edited to 3 layers after the 2-block file was imported.
    Scenario s = infer(two_block_model(), WeightFormat::GGUF_Q4_K_M, Engine::LlamaCpp);
    s.model.layers = 3;
    Scenario rules = s;
    rules.model.gguf_bytes = {};
    const Estimate e = estimate(s), r = estimate(rules);
    REQUIRE(e.ok());
    REQUIRE(e.warnings.size() == r.warnings.size() + 1);
    CHECK_THAT(gguf_warning(e), Catch::StartsWith("model.gguf_bytes: the GGUF file's tensor bytes have 2 blocks but the model has 3 layers") &&
                                       Catch::Contains("sized by the rules of GGUF Q4_K_M instead"));
    CHECK(component(e, "weights.linear")->bytes == component(r, "weights.linear")->bytes);
    CHECK(weight_bytes(e) == weight_bytes(r));
    // Another engine does not load GGUF tensors as stored: it says so and uses the rules too.
    s = infer(two_block_model(), WeightFormat::BF16, Engine::VLLM);
    const Estimate v = estimate(s);
    REQUIRE(v.ok());
    CHECK_THAT(gguf_warning(v), Catch::StartsWith("model.gguf_bytes: the GGUF file's tensor bytes are what llama.cpp loads; with engine vllm"));
}

TEST_CASE("GGUF tensor bytes size only their own type: another format is another file, and back again") {
    // The two-block file is Q4_K_M (its general.file_type). Q8_0 is another file: the format's rules (as with no
    // bytes at all) and a warning naming both; choosing Q4_K_M again uses the file's 718336 B of blocks again.
    Scenario s = infer(two_block_model(), WeightFormat::GGUF_Q8_0, Engine::LlamaCpp);
    Scenario rules = s;
    rules.model.gguf_bytes = {};
    const Estimate q8 = estimate(s), r = estimate(rules);
    REQUIRE(q8.ok());
    CHECK(weight_bytes(q8) == weight_bytes(r));
    CHECK_THAT(gguf_warning(q8), Catch::StartsWith("model.gguf_bytes: the imported GGUF file is GGUF Q4_K_M; GGUF Q8_0 is another file"));
    s.infer.weights = WeightFormat::GGUF_Q4_K_M;
    const Estimate back = estimate(s);
    REQUIRE(component(back, "weights.linear"));
    CHECK(component(back, "weights.linear")->bytes == 376064 + 342272);
    CHECK(gguf_warning(back).empty());
}

TEST_CASE("bad inference input names the field and the rule") {
    Scenario s = infer(test::llama3_8b(), WeightFormat::GPTQ4);
    s.infer.group_size = 0;
    Estimate e = estimate(s);
    REQUIRE_FALSE(e.ok());
    CHECK(e.errors.front().field == "infer.group_size");

    s = infer(test::llama3_8b(), WeightFormat::NF4, Engine::LlamaCpp);
    e = estimate(s);
    REQUIRE_FALSE(e.ok());
    CHECK(e.errors.front().field == "infer.weights");

    s = infer(test::llama3_8b(), WeightFormat::BF16, Engine::VLLM);
    s.infer.gpu_memory_utilization = 1.5;
    e = estimate(s);
    REQUIRE_FALSE(e.ok());
    CHECK(e.errors.front().field == "infer.gpu_memory_utilization");

    s = infer(test::llama3_8b(), WeightFormat::BF16, Engine::VLLM);
    s.infer.kv_dtype = KvDtype::INT4;
    e = estimate(s);
    REQUIRE_FALSE(e.ok());
    CHECK(e.errors.front().field == "infer.kv_dtype");
}

TEST_CASE("MXFP4 (gpt-oss): the routed experts at 4.25 bits, attention and the router kept at 16 (hand-derived)") {
    // Mixtral-8x7B's tensors (mistralai/Mixtral-8x7B-v0.1 config.json): per layer 8 experts x 3 x 4096 x 14336
    // = 1,409,286,144 routed weights; q, o 4096^2, k, v 1024 x 4096 and the router 8 x 4096 = 41,975,808
    // others. 32 layers: 45,097,156,608 x 4.25 / 8 + 1,343,225,856 x 2 = 26,644,316,160 B [ocp-mx-spec]
    // [gpt-oss-config].
    const ModelSpec m = find_model("mixtral-8x7b")->spec;
    const Estimate e = estimate(infer(m, WeightFormat::MXFP4));
    REQUIRE(e.ok());
    double linear = 0;
    for (const Component& c : e.components)
        if (std::string(c.id) == "weights.linear") linear = c.bytes;
    CHECK(linear == 26644316160.0);
    // A dense model has no routed experts: every matrix stays at 16 bits.
    const Estimate dense = estimate(infer(test::llama2_7b(), WeightFormat::MXFP4));
    const Estimate bf16 = estimate(infer(test::llama2_7b(), WeightFormat::BF16));
    CHECK(weight_bytes(dense) == weight_bytes(bf16));
    // A model known only by its parameter count has no experts to tell apart: 16 bits a parameter, not
    // 4.25 for all (which would be low for every tensor MXFP4 leaves as it is).
    ModelSpec count;
    count.params_only = 20000000000;
    CHECK(weight_bytes(estimate(infer(count, WeightFormat::MXFP4))) == 2.0 * 20000000000);
    // gpt-oss's quantization_config sets the format on import.
    Result<std::optional<QuantConfig>> q = read_quantization_config(R"({"quantization_config": {"quant_method": "mxfp4",
        "modules_to_not_convert": ["model.layers.*.self_attn", "model.layers.*.mlp.router", "model.embed_tokens", "lm_head"]}})");
    REQUIRE(q.ok());
    REQUIRE(q->has_value());
    CHECK((*q)->format == WeightFormat::MXFP4);
}

// Lightning Fabric's BitsandbytesPrecision and Lit-GPT's quantization() (infer.bnb_*): the head quantized
// too, an fp16 quant state dequantized then cast, and each weight quantized again as the checkpoint loads
// [lightning-bnb-plugin] [bitsandbytes-041-code]. Llama-2-7b: V = 32000, d = 4096, so the head holds
// 131,072,000 weights; its largest layer matrix is the MLP's 4096 x 11008 = 45,088,768.
TEST_CASE("bitsandbytes through Lightning Fabric: quantized head, fp16 quant state, re-quantizing on load (hand-derived)") {
    const double head = 32000.0 * 4096, mlp = 4096.0 * 11008;
    Scenario s = infer(test::llama2_7b(), WeightFormat::NF4);  // context 128 prefilled at once
    const Estimate plain = estimate(s);
    CHECK(test::bytes_of(plain, "weights.lm_head") == head * 2);  // transformers keeps lm_head 16-bit
    CHECK(test::bytes_of(plain, "weights.dequant") == mlp * 2);   // the largest layer matrix, bf16
    CHECK(test::find(plain, "weights.requantize") == nullptr);

    s.infer.bnb_quantize_head = true;
    s.infer.logits_to_keep = 0;  // Lit-GPT's GPT.forward runs lm_head over every prompt position
    const Estimate fabric = estimate(s);
    CHECK(test::bytes_of(fabric, "weights.lm_head") == head * (4 + 32.0 / 64) / 8);  // 4 bits + an fp32 absmax per 64
    CHECK(test::bytes_of(fabric, "weights.dequant") == head * 2);  // the head is now the largest quantized matrix
    s.infer.logits_to_keep = 1;  // one position takes gemv_4bit: no dequantized head
    CHECK(test::bytes_of(estimate(s), "weights.dequant") == mlp * 2);
    s.infer.logits_to_keep = 0;

    s.infer.bnb_fp16_quant_state = true;  // fp16 from dequantize_4bit, then .to(bf16): 2 + 2 bytes a weight
    CHECK(test::bytes_of(estimate(s), "weights.dequant") == head * 4);
    s.infer.fp32_compute = true;          // fp16, then .to(fp32): 2 + 4
    CHECK(test::bytes_of(estimate(s), "weights.dequant") == head * 6);
    s.infer.fp32_compute = false;

    s.infer.bnb_requantize_on_load = true;  // fp16 copy (2) + packed 4-bit (0.5) + fp32 absmax per 64 (4 / 64), at load only
    const Estimate loading = estimate(s);
    const Component* r = test::find(loading, "weights.requantize");
    REQUIRE(r != nullptr);
    CHECK(r->bytes == head * (2 + 0.5 + 4.0 / 64));
    CHECK(r->phases == phase_bit(Phase::Load));

    s.infer.weights = WeightFormat::INT8;  // LLM.int8: 1 byte a weight + an fp32 scale per output row (V rows)
    const Estimate int8 = estimate(s);
    CHECK(test::bytes_of(int8, "weights.lm_head") == head + 32000.0 * 4);
    CHECK(test::bytes_of(int8, "weights.requantize") == head * (2 + 1 + 1));  // fp16 copy, double_quant's CB and CBt
    CHECK(test::find(int8, "weights.dequant") == nullptr);  // int8 matmuls do not dequantize the weight
}

TEST_CASE("the bitsandbytes integration settings need bitsandbytes weights in a PyTorch run") {
    for (bool InferenceOptions::* flag : {&InferenceOptions::bnb_quantize_head, &InferenceOptions::bnb_fp16_quant_state,
                                          &InferenceOptions::bnb_requantize_on_load}) {
        Scenario s = infer(test::llama2_7b(), WeightFormat::BF16);
        s.infer.*flag = true;
        const std::vector<FieldError> errs = validate(s);
        REQUIRE(errs.size() == 1);
        CHECK(errs.front().field.starts_with("infer.bnb_"));
        CHECK(errs.front().message.find("nf4, fp4 or int8") != std::string::npos);
        s.infer.weights = WeightFormat::NF4;
        CHECK(validate(s).empty());
    }
}

TEST_CASE("a tied head the checkpoint stores is loaded a second time until tie_weights (infer.untied_head_on_load)") {
    // Qwen2.5-0.5B ties its head to the 151,936 x 896 embedding; AutoAWQ <= 0.2.6 writes lm_head.weight too, which
    // transformers 4.x puts on the GPU before tie_weights(): 151,936 * 896 * 2 B = 272,269,312 B, at load only.
    const ModelPreset* qwen = find_model("qwen2.5-0.5b");
    REQUIRE(qwen != nullptr);
    REQUIRE(qwen->spec.tied_embeddings);
    Scenario s = infer(qwen->spec, WeightFormat::AWQ4);
    CHECK(test::find(estimate(s), "weights.head_load_copy") == nullptr);  // off by default
    s.infer.untied_head_on_load = true;
    const Estimate e = estimate(s);
    const Component* c = test::find(e, "weights.head_load_copy");
    REQUIRE(c != nullptr);
    CHECK(c->bytes == 151936.0 * 896 * 2);
    CHECK(c->phases == phase_bit(Phase::Load));

    // An untied head is a weight of its own already: nothing is loaded twice.
    Scenario untied = infer(test::llama2_7b(), WeightFormat::AWQ4);
    untied.infer.untied_head_on_load = true;
    CHECK(test::find(estimate(untied), "weights.head_load_copy") == nullptr);

    // vLLM's and llama.cpp's loaders skip a tied head's tensor: the switch is refused there, naming it.
    s.infer.engine = Engine::VLLM;
    const std::vector<FieldError> errs = validate(s);
    REQUIRE(errs.size() == 1);
    CHECK(errs.front().field == "infer.untied_head_on_load");
}
