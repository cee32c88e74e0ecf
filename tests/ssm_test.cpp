// State-space and hybrid models (issue 18 item 1): Mamba, Mamba2 and Jamba, and the Gated DeltaNet
// hybrids Qwen3-Next, Qwen3.5 and Qwen3.6, imported from their real config.json files
// (tests/data/configs/SOURCES.md). Parameter counts are the published ones or hand sums written out from
// the transformers modules [transformers-code]; memory is derived by hand from the engines' cache shapes
// (core/inference/kv_cache.h cites them).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "estimate.h"
#include "checkpoint_files.h"
#include "component_lookup.h"
#include "model/gguf.h"
#include "model/hf_config.h"
#include "model/layer_tensors.h"
#include "model/presets.h"
#include "param_count.h"
#include "plan_cli.h"
#include "planner/planner.h"
#include "planner/serving.h"
#include "repo_files.h"
#include "scenario_json.h"
#include "share_link.h"
#include "solvers.h"
#include "training/finetune.h"
#include "units.h"
#include "verify_script.h"

using namespace vl;
using test::has_error;

namespace {
std::string text_of(const std::string& name) {
    const std::string text = vl::test::read_text(std::string(VRAMLENS_TEST_DATA) + "/configs/" + name);
    REQUIRE_FALSE(text.empty());
    return text;
}

ModelSpec config(const std::string& name) {
    Result<ModelSpec> r = import_hf_config(text_of(name));
    for (const auto& e : r.errors) INFO(to_string(e));
    REQUIRE(r.ok());
    return *r.value;
}

Scenario infer(const std::string& file, Engine engine, int64_t batch, int64_t context) {
    Scenario s;
    s.mode = Mode::Infer;
    s.model = config(file);
    s.infer.engine = engine;
    s.infer.weights = engine == Engine::LlamaCpp ? WeightFormat::FP16 : WeightFormat::BF16;
    s.infer.kv_dtype = KvDtype::BF16;
    if (engine == Engine::LlamaCpp) s.infer.kv_dtype = KvDtype::FP16;
    s.infer.batch = batch;
    s.infer.context = s.infer.prompt = context;
    return s;
}

// bf16 mixed-precision training of one sequence of 2048 tokens, no recomputation, no dropout.
Scenario train(const std::string& file) {
    Scenario t;
    t.mode = Mode::Train;
    t.model = config(file);
    t.train.precision = Precision::MixedBF16;
    t.train.micro_batch = 1;
    t.train.seq_len = 2048;
    t.train.recompute = Recompute::None;
    t.train.dropout = 0;
    return t;
}

Estimate estimate_ok(const Scenario& s) {
    Estimate e = estimate(s, Detail::Full);
    for (const auto& f : e.errors) INFO(to_string(f));
    REQUIRE(e.ok());
    return e;
}

const Component* find(const Estimate& e, const std::string& id) {
    for (const Component& c : e.components)
        if (c.id == id) return &c;
    return nullptr;
}

double bytes_of(const Estimate& e, const std::string& id) {
    const Component* c = find(e, id);
    return c ? c->bytes : -1;
}

bool warned(const std::vector<std::string>& warnings, const std::string& words) {
    for (const std::string& w : warnings)
        if (w.find(words) != std::string::npos) return true;
    return false;
}

// The model of an inference scenario written out and read back, pretty and compact.
std::vector<ModelSpec> round_trips(const ModelSpec& m) {
    Scenario s;
    s.mode = Mode::Infer;
    s.model = m;
    std::vector<ModelSpec> out;
    for (JsonStyle style : {JsonStyle::Pretty, JsonStyle::Compact}) {
        Result<Scenario> back = scenario_from_json(scenario_to_json(s, style));
        REQUIRE(back.ok());
        out.push_back(back.value->model);
    }
    return out;
}

}  // namespace

TEST_CASE("state-space models: exact parameter counts of real Mamba and Mamba2 checkpoints") {
    // state-spaces/mamba-130m-hf: 129,135,360 (its 242 tensors summed). By hand: 24 layers of in_proj
    // 768*3072, conv1d 1536*4 + 1536, x_proj (48 + 32)*1536, dt_proj 1536*48 + 1536, A_log 1536*16,
    // D 1536, out_proj 768*1536 and one norm 768 = 3,771,648; embedding 50280*768 (tied); norm_f 768.
    CHECK(24 * 3771648 + 50280 * 768 + 768 == 129135360);
    const ParamCounts small = count_params(config("mamba-130m-hf.json"));
    CHECK(small.total == 129135360);
    CHECK(small.per_layer[0].ssm == 3771648 - 768);
    CHECK(small.per_layer[0].attention == 0);
    CHECK(small.per_layer[0].mlp == 0);
    // state-spaces/mamba-2.8b-hf: 2,768,345,600.
    CHECK(count_params(config("mamba-2.8b-hf.json")).total == 2768345600);
    // mistralai/Mamba-Codestral-7B-v0.1: "7,285,403,648 parameters" [codestral-mamba]. By hand: 64 layers
    // of in_proj (2*8192 + 2*8*128 + 128)*4096, conv1d over 8192 + 2048 channels * 4 + bias, dt_bias,
    // A_log and D of 128 heads, the gated norm 8192, out_proj 4096*8192 and the block norm 4096 =
    // 109,640,064; untied embedding and lm_head 32768*4096 each; norm_f 4096.
    CHECK(64 * 109640064LL + 2 * 32768LL * 4096 + 4096 == 7285403648LL);
    const ModelSpec codestral = config("mamba-codestral-7b-v0.1.json");
    CHECK(codestral.ssm.kind == SsmKind::Mamba2);
    CHECK(count_params(codestral).total == 7285403648LL);
    // tiiuae/falcon-mamba-7b: Hub "7.27B". By hand: 64 layers of in_proj 16384*4096, conv1d 8192*4 + 8192,
    // x_proj 288*8192, dt_proj 8192*256 + 8192, A_log 8192*16, D 8192, out_proj 4096*8192 and the norm
    // 4096 = 105,312,256; untied 65024*4096 embedding and head; norm_f 4096: 7,272,665,088.
    const ModelSpec falcon = config("falcon-mamba-7b.json");
    CHECK(falcon.family == "Falcon Mamba");
    CHECK(count_params(falcon).total == 7272665088LL);
    CHECK(std::llround(static_cast<double>(count_params(falcon).total) / 1e7) == 727);
}

TEST_CASE("state-space models: Jamba's layers alternate attention, Mamba, dense and MoE as its config says") {
    const ModelSpec m = config("ai21-jamba-1.5-mini.json");
    const ParamCounts p = count_params(m);
    // ai21labs/AI21-Jamba-1.5-Mini: Hub "51.6B" parameters; the Jamba paper's 52B total, 12B active
    // [jamba-paper]. By hand from JambaModel's modules: attention layers 41,943,040 (q, o 4096^2, k, v
    // 1024*4096), Mamba layers 105,308,448, dense MLP 3*4096*14336, MoE 16 of them + router 16*4096, two
    // norms per layer; attention on layers 4, 12, 20, 28 (i % 8 == 4), experts on odd layers; untied
    // 65536*4096 embedding and head; final norm 4096. Total 51,570,323,328; active (2 of 16 experts)
    // 12,110,311,296.
    CHECK(p.total == 51570323328LL);
    CHECK(p.active_per_token == 12110311296LL);
    CHECK(std::llround(static_cast<double>(p.total) / 1e8) == 516);
    CHECK(std::llround(static_cast<double>(p.active_per_token) / 1e9) == 12);
    for (int64_t i = 0; i < m.layers; ++i) {
        INFO("layer " << i);
        CHECK(layer_pattern(m).ssm(i) == (i % 8 != 4));
        CHECK(layer_is_moe(m, i) == (i % 2 == 1));
    }
    CHECK(p.per_layer[4].attention == 41943040);
    CHECK(p.per_layer[4].ssm == 0);
    CHECK(p.per_layer[0].ssm == 105308448);
    CHECK(p.per_layer[0].attention == 0);
}

TEST_CASE("state-space models: the recurrent state per sequence is constant in the context, KV only on attention layers") {
    // Jamba under transformers: KV on the 4 attention layers, 2 * 8 kv heads * 128 * 2 bytes per token
    // = 4096 B per layer; 4096 tokens -> 4 * 4096 * 4096 = 67,108,864 B. The state of each of the 28
    // Mamba layers: conv_states [8192, 4] + ssm_states [8192, 16] in bf16 = (32768 + 131072) * 2 =
    // 327,680 B -> 9,175,040 B per sequence.
    const Estimate e = estimate(infer("ai21-jamba-1.5-mini.json", Engine::Transformers, 1, 4096), Detail::Full);
    REQUIRE(e.errors.empty());
    CHECK(bytes_of(e, "kv_cache") == 67108864.0);
    CHECK(bytes_of(e, "ssm_state") == 9175040.0);
    const Component* c = find(e, "ssm_state");
    REQUIRE(c != nullptr);
    CHECK(std::string(c->formula()).find("d_state") != std::string::npos);
    CHECK(std::string(find(e, "weights.norms")->label).find("Mamba") != std::string::npos);  // conv1d, A_log, D kept with the norms
    const Estimate longer = estimate(infer("ai21-jamba-1.5-mini.json", Engine::Transformers, 1, 65536), Detail::NumbersOnly);
    CHECK(bytes_of(longer, "ssm_state") == 9175040.0);
    CHECK(bytes_of(longer, "kv_cache") == 16.0 * 67108864.0);

    // llama.cpp keeps d_conv - 1 = 3 columns and F32 [llama-cpp-code]: (3 * 8192 + 8192 * 16) * 4 =
    // 622,592 B per Mamba layer, 17,432,576 B per sequence; two sequences (-np 2) twice that.
    const Estimate l = estimate(infer("ai21-jamba-1.5-mini.json", Engine::LlamaCpp, 2, 4096), Detail::NumbersOnly);
    REQUIRE(l.errors.empty());
    CHECK(bytes_of(l, "ssm_state") == 2 * 17432576.0);

    // A pure Mamba model caches no K/V at all (no KV component): mamba-130m-hf under llama.cpp keeps
    // (3 * 1536 + 1536 * 16) * 4 = 116,736 B per layer, 2,801,664 B per sequence.
    const Estimate pure = estimate(infer("mamba-130m-hf.json", Engine::LlamaCpp, 1, 8192), Detail::NumbersOnly);
    REQUIRE(pure.errors.empty());
    CHECK(find(pure, "kv_cache") == nullptr);
    CHECK(bytes_of(pure, "ssm_state") == 2801664.0);
    // Its capacity counts sequences by their state: the memory left over holds that many states.
    CHECK(pure.kv.sequences == static_cast<int64_t>(std::floor(pure.kv.pool_bytes / 2801664.0)));
    CHECK(pure.kv.sequences > 0);

    // Mamba2 (Mamba2Cache): conv_states over x, B and C, (8192 + 2 * 8 * 128) * 4, and ssm_states 128
    // heads * 64 * 128, in bf16: (40960 + 1048576) * 2 = 2,179,072 B per layer, 64 layers.
    Scenario codestral = infer("mamba-codestral-7b-v0.1.json", Engine::Transformers, 1, 4096);
    codestral.infer.prompt = 1024;  // a prompt shorter than the context: still no prefill cache, no growth copy
    const Estimate m2 = estimate(codestral, Detail::NumbersOnly);
    REQUIRE(m2.errors.empty());
    CHECK(bytes_of(m2, "ssm_state") == 64 * 2179072.0);
    CHECK(find(m2, "kv_cache") == nullptr);
    CHECK(find(m2, "prefill.kv_cache") == nullptr);
    CHECK(find(m2, "buffers.kv_growth") == nullptr);
    CHECK(find(m2, "act.attention_scores") == nullptr);
}

TEST_CASE("state-space models: a prefill's activation peak is at the Mamba mixer, the larger of mixer and MLP in Jamba") {
    // mamba-2.8b-hf (hidden 2560, d_inner 5120), transformers, one prompt of 8192 tokens in bf16. Live at
    // the scan: in_proj's output 2 x 5120, the conv output 5120, delta 5120, the scan's output and its
    // gated copy 2 x 5120 (6 x 5120 = 30,720), plus input, normed input and output 3 x 2560 = 7,680:
    // 8192 x 38,400 x 2 B = 629,145,600 B (the MLP rule, with no MLP, counted only 3 x 2560).
    const Estimate m1 = estimate_ok(infer("mamba-2.8b-hf.json", Engine::Transformers, 1, 8192));
    CHECK(bytes_of(m1, "act.prefill_mlp") == 629145600.0);
    CHECK(std::string(find(m1, "act.prefill_mlp")->label) == "Prefill activations (Mamba mixer)");
    CHECK(std::string(find(m1, "act.prefill_mlp")->formula()).find("d_inner") != std::string::npos);
    // Mamba-Codestral-7B (Mamba2: hidden 4096, d_inner 8192, 8 groups of d_state 128, 128 heads): in_proj's
    // output 2 x 8192 + 2 x 1024 + 128 = 18,560, the conv over x, B and C 8192 + 2048 = 10,240, the SSD
    // output 8192, 3 x 4096 = 12,288: 49,280 per token, 8192 x 49,280 x 2 B = 807,403,520 B.
    const Estimate m2 = estimate_ok(infer("mamba-codestral-7b-v0.1.json", Engine::Transformers, 1, 8192));
    CHECK(bytes_of(m2, "act.prefill_mlp") == 807403520.0);
    // Jamba 1.5 Mini: the MoE MLP's top-2 experts of 14,336 (3 x 28,672 + 3 x 4096 = 98,304 per token)
    // outweigh its Mamba mixer (6 x 8192 + 3 x 4096 = 61,440): 4096 tokens x 98,304 x 2 B = 805,306,368 B.
    const Estimate j = estimate_ok(infer("ai21-jamba-1.5-mini.json", Engine::Transformers, 1, 4096));
    CHECK(bytes_of(j, "act.prefill_mlp") == 805306368.0);
    CHECK(std::string(find(j, "act.prefill_mlp")->label) == "Prefill activations (MLP or Mamba mixer, the larger)");
}

TEST_CASE("state-space models: transformers' torch path keeps Mamba1's discretised tensors in fp32") {
    // mamba-2.8b-hf: d_inner 5120, d_state 16; one prompt of 2048 tokens. MambaMixer.slow_forward holds
    // discrete_A, discrete_B and deltaB_u, each (1, 5120, 2048, 16) fp32 = 5120 * 2048 * 16 * 4 = 671,088,640 B
    // (640 MiB), three of them, plus the fp32 copy of x at deltaB_u's line, 5120 * 2048 * 4 = 41,943,040 B:
    // 3 * 671,088,640 + 41,943,040 = 2,055,208,960 B (1960 MiB) [transformers-ssm-torch].
    Scenario s = infer("mamba-2.8b-hf.json", Engine::Transformers, 1, 2176);
    s.infer.prompt = 2048;
    CHECK(s.infer.ssm_kernels == SsmKernels::Torch);  // the default: no optional kernels installed
    const Estimate torch = estimate_ok(s);
    CHECK(bytes_of(torch, "act.ssm_scan") == 2055208960.0);
    CHECK(std::string(find(torch, "act.ssm_scan")->formula()).find("d_state") != std::string::npos);
    CHECK_FALSE(warned(torch.warnings, "not modelled yet"));
    // With mamba-ssm: selective_scan_fwd's fp32 chunk states, (1, 5120, ceil(2048 / 2048) = 1, 2 * 16) * 4 =
    // 655,360 B, kept by the last state's view [mamba-ssm-code]; two sequences of 4096 tokens: 2 chunks each,
    // 2 * 5120 * 2 * 32 * 4 = 2,621,440 B.
    s.infer.ssm_kernels = SsmKernels::Fused;
    CHECK(bytes_of(estimate_ok(s), "act.ssm_scan") == 655360.0);
    s.infer.batch = 2;
    s.infer.context = s.infer.prompt = 4096;
    CHECK(bytes_of(estimate_ok(s), "act.ssm_scan") == 2621440.0);

    // Jamba 1.5 Mini (d_inner 8192, d_state 16), 4096 tokens: W = 4096 * 8192 * (3 * 16 + 1) * 4 = 6,576,668,672 B.
    // Its layer peak (act.prefill_mlp) is the MoE MLP's 805,306,368 B; the mixer's own tensors are 4096 * 61,440 * 2
    // = 503,316,480 B, so the scan adds 503,316,480 + 6,576,668,672 - 805,306,368 = 6,274,678,784 B beyond it.
    const Estimate j = estimate_ok(infer("ai21-jamba-1.5-mini.json", Engine::Transformers, 1, 4096));
    CHECK(bytes_of(j, "act.prefill_mlp") == 805306368.0);
    CHECK(bytes_of(j, "act.ssm_scan") == 6274678784.0);
}

TEST_CASE("state-space models: transformers' torch path computes Mamba2's SSD in fp32 chunks") {
    // Mamba-Codestral-7B: d = 8192, H = 128 heads, n = 128, chunk_size l = 256; 2048 tokens: S = 2048, c = 8.
    // At G's contraction: W_G = 2 * 8192 + 2 * 128 * 128 + 256 * 128 * (128 + 2) = 4,308,992 per token
    //   (G_intermediate alone, (1, 8, 256, 256, 128, 128) fp32: 34,359,738,368 B).
    // The later steps: W_kept = 2 * 8192 + 2 * 128 * 128 + 4 * 256 * 128 = 180,224 per token, and the largest of
    // W_diag = 2048 * 257 * 8192 = 4,311,744,512, W_pass = 2048 * (8192 + 16384) + 10^2 * 8192 * 128 = 155,189,248,
    // W_out = 2048 * (3 * 8192 + 16384 + 8192 * 128) + 10 * 8192 * 128 + 3 * 2048 * 8192 = 2,292,187,136:
    // 2048 * 180,224 + 4,311,744,512 = 4,680,843,264 < 2048 * 4,308,992 = 8,824,815,616.
    // 8,824,815,616 * 4 = 35,299,262,464 B [transformers-ssm-torch].
    ModelSpec codestral = config("mamba-codestral-7b-v0.1.json");
    CHECK(codestral.ssm.chunk == 256);
    Scenario s = infer("mamba-codestral-7b-v0.1.json", Engine::Transformers, 1, 2048);
    const Estimate torch = estimate_ok(s);
    CHECK(bytes_of(torch, "act.ssm_scan") == 35299262464.0);
    CHECK(std::string(find(torch, "act.ssm_scan")->formula()).find("W_G") != std::string::npos);
    // A d_state below head_dim (16 < 64) makes a later step the larger: W_G = 16384 + 4096 + 256 * 128 * 18 =
    // 610,304 per token, 1,249,902,592; W_kept = 16384 + 4096 + 131,072 = 151,552 per token, 310,378,496, plus
    // W_diag 4,311,744,512 (W_pass = 2048 * 10,240 + 100 * 8192 * 16 = 34,078,720; W_out = 2048 * 157,696 +
    // 10 * 131,072 + 3 * 2048 * 8192 = 374,603,776): 4,622,123,008 * 4 = 18,488,492,032 B.
    Scenario small_state = s;
    small_state.model.ssm.state = 16;
    CHECK(bytes_of(estimate_ok(small_state), "act.ssm_scan") == 18488492032.0);
    // With mamba-ssm (mamba_chunk_scan_combined): dA_cumsum and dt 8 * 128 * 2048 = 2,097,152, the fp32 final
    // state 4 * 8192 * 128 = 4,194,304, then the larger of state passing, 6 * 8 * 8192 * 128 = 50,331,648, and
    // the chunk scan, 2 * 8 * 8192 * 128 + 4 * 2048 * 8 groups * 256 = 33,554,432: 56,623,104 B [mamba-ssm-code].
    s.infer.ssm_kernels = SsmKernels::Fused;
    CHECK(bytes_of(estimate_ok(s), "act.ssm_scan") == 56623104.0);

    // Falcon-H1-0.5B as tests/data/configs transcribes it (mamba_chunk_size 128): d = 1536 (mamba_d_ssm), 24 heads,
    // n = 128; a prompt of 1000 tokens is padded to S = 1024. W_G = 3072 + 6144 + 128 * 24 * 130 = 408,576 per
    // token: 1024 * 408,576 * 4 = 1,673,527,296 B (the later steps: 1024 * (9216 + 4 * 3072) + 215,764,992 =
    // 237,785,088, W_out the largest of them). Its mixer's tensors (9752 per token) outweigh its MLP's
    // (3 * 2048 + 3 * 1024 = 9216), so the row is the scan's bytes themselves.
    ModelSpec falcon = config("falcon-h1-0.5b.json");
    CHECK(falcon.ssm.chunk == 128);
    Scenario f = infer("falcon-h1-0.5b.json", Engine::Transformers, 1, 1000);
    CHECK(bytes_of(estimate_ok(f), "act.ssm_scan") == 1673527296.0);
    // The configs' chunk sizes: Nemotron-H's chunk_size (NemotronHConfig's default 128 where the config has none),
    // Granite 4.0-H's mamba_chunk_size.
    CHECK(config("nemotron-h-8b-base-8k.json").ssm.chunk == 256);
    CHECK(config("nvidia-nemotron-nano-9b-v2.json").ssm.chunk == 128);
    CHECK(config("granite-4.0-h-1b.json").ssm.chunk == 256);
    // The presets carry the checkpoints' mamba_chunk_size (128 in the 0.5B and 7B configs transcribed in
    // tests/data/configs), not FalconH1Config's default 256, which halves the torch path's chunk tensors.
    CHECK(find_model("falcon-h1-0.5b")->spec.ssm.chunk == 128);
    CHECK(find_model("falcon-h1-7b")->spec.ssm.chunk == 128);
    CHECK(config("falcon-h1-7b.json").ssm.chunk == 128);
}

TEST_CASE("gated deltanet: transformers' torch path runs the chunked delta rule in fp32") {
    // Qwen3.5-9B: 32 value heads and 16 key heads of 128 (key_dim 2048, value_dim 4096), hidden 4096, MLP 12288;
    // 2048 tokens (S = 2048). The mixer's 16-bit tensors: 2 * 2048 + 2 * 4096 + 5 * 32 + 3 * 4096 = 24,736 per
    // token, 2048 * 24,736 * 2 = 101,318,656 B. The rule, per head: 4 * 2048 * (6 * 128 + 4 * 128 + 3 * 64) =
    // 12,058,624 against 4 * 2048 * (5 * 128 + 4 * 128 + 3 * 64) + 2 * 2048 * 128 = 11,534,336; 32 heads:
    // 385,875,968 B. A_mixer = 487,194,624 B; the MLP's tensors 2048 * (3 * 12288 + 3 * 4096) * 2 =
    // 201,326,592 B (act.prefill_mlp); the row: 487,194,624 - 201,326,592 = 285,868,032 B [transformers-ssm-torch].
    Scenario s = infer("qwen3.5-9b.json", Engine::Transformers, 1, 2048);
    const Estimate torch = estimate_ok(s);
    CHECK(bytes_of(torch, "act.prefill_mlp") == 201326592.0);
    CHECK(bytes_of(torch, "act.ssm_scan") == 285868032.0);
    CHECK_FALSE(warned(torch.warnings, "not modelled yet"));
    // flash-linear-attention's kernels: not modelled, and the warning says so.
    s.infer.ssm_kernels = SsmKernels::Fused;
    const Estimate fused = estimate_ok(s);
    CHECK(find(fused, "act.ssm_scan") == nullptr);
    CHECK(warned(fused.warnings, "flash-linear-attention"));
}

TEST_CASE("state-space models: infer.ssm_kernels is transformers' only, other engines keep their warning") {
    for (Engine engine : {Engine::VLLM, Engine::LlamaCpp}) {
        Scenario s = infer("mamba-2.8b-hf.json", engine, 1, 2048);
        const Estimate torch = estimate(s, Detail::NumbersOnly);
        s.infer.ssm_kernels = SsmKernels::Fused;
        const Estimate fused = estimate(s, Detail::NumbersOnly);
        CHECK(find(torch, "act.ssm_scan") == nullptr);
        CHECK(phase_totals(torch.components).peak_bytes() == phase_totals(fused.components).peak_bytes());
        CHECK(warned(torch.warnings, "not modelled yet"));
    }
    // The scenario format names the field in its error.
    Scenario s = infer("mamba-2.8b-hf.json", Engine::Transformers, 1, 2048);
    std::string text = scenario_to_json(s, JsonStyle::Pretty);
    const size_t at = text.find("\"ssm_kernels\": \"torch\"", text.find("\"infer\": {"));
    REQUIRE(at != std::string::npos);
    text.replace(at, 22, "\"ssm_kernels\": \"fast\"");
    const Result<Scenario> bad = scenario_from_json(text);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.errors.front().field == "infer.ssm_kernels");
}

TEST_CASE("state-space models: what is not modelled yet is refused by name") {
    Scenario s = infer("mamba-130m-hf.json", Engine::Transformers, 1, 4096);
    s.parallel.tp = 2;
    CHECK(has_error(estimate(s, Detail::NumbersOnly), "parallel.tp", "state-space"));
    Scenario t;
    t.mode = Mode::Train;
    t.model = config("falcon-mamba-7b.json");  // B, C and dt normalized inside its fused kernel
    CHECK(has_error(estimate(t, Detail::NumbersOnly), "mode", "Falcon Mamba"));
    t.model = config("mamba-130m-hf.json");
    t.mode = Mode::FineTune;
    t.finetune.method = FineTuneMethod::LoRA;  // PEFT's llama default q_proj, v_proj: no such module in a Mamba model
    CHECK(has_error(estimate(t, Detail::NumbersOnly), "finetune.lora_targets", "select no layer"));
    t.finetune.method = FineTuneMethod::Full;
    t.train.activation_formula = ActivationFormula::Korthikanti;
    CHECK(has_error(estimate(t, Detail::NumbersOnly), "train.activation_formula", "state-space"));

    // The verify script builds GPT-2/Llama-family transformers only.
    Scenario v = infer("mamba-130m-hf.json", Engine::Transformers, 1, 1024);
    const Result<std::string> script = vl::cli::verify_script(v, estimate(v, Detail::NumbersOnly));
    REQUIRE_FALSE(script.ok());
    CHECK(script.errors.front().field == "model.ssm");
    ServingPlanInput sv;
    sv.model = config("ai21-jamba-1.5-mini.json");
    sv.gpus.push_back(PlanGpu{});
    sv.gpus.back().memory_bytes = 80e9;
    CHECK(plan_serving(sv).error.find("state-space") != std::string::npos);
}

TEST_CASE("state-space models: config errors name the field") {
    // Mamba2Mixer is expand * hidden_size wide; num_heads * head_dim must say the same.
    std::string bad = text_of("mamba-codestral-7b-v0.1.json");
    bad.replace(bad.find("\"head_dim\": 64"), 14, "\"head_dim\": 32");
    Result<ModelSpec> r = import_hf_config(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.errors.front().field == "head_dim");
    // Experts on layers other than i % period == period - 1 are refused rather than misplaced.
    std::string jamba = text_of("ai21-jamba-1.5-mini.json");
    jamba.replace(jamba.find("\"expert_layer_offset\": 1"), 24, "\"expert_layer_offset\": 0");
    r = import_hf_config(jamba);
    REQUIRE_FALSE(r.ok());
    CHECK(r.errors.front().field == "expert_layer_offset");
    // A layer list that contradicts the attention period is refused at the list.
    std::string listed = text_of("ai21-jamba-1.5-mini.json");
    listed.replace(listed.find("\"attn_layer_offset\": 4"), 22,
                   "\"attn_layer_offset\": 4, \"layers_block_type\": [\"mamba\", \"mamba\", \"mamba\", \"mamba\", \"mamba\"]");
    r = import_hf_config(listed);
    REQUIRE_FALSE(r.ok());
    CHECK(r.errors.front().field == "layers_block_type");
    CHECK(r.errors.front().message.find("[4] must be \"attention\"") == 0);
    std::string rank = text_of("mamba-130m-hf.json");
    rank.replace(rank.find("\"time_step_rank\": 48"), 20, "\"time_step_rank\": \"x\"");
    r = import_hf_config(rank);
    REQUIRE_FALSE(r.ok());
    CHECK(r.errors.front().field == "time_step_rank");
}

TEST_CASE("state-space models: the scenario format carries model.ssm and checks it field by field") {
    Scenario s;
    s.mode = Mode::Infer;
    s.model = config("ai21-jamba-1.5-mini.json");
    s.model.ssm.kind = SsmKind::Mamba2;
    s.model.ssm.heads = 128;
    s.model.ssm.groups = 8;
    s.model.ssm.chunk = 256;
    s.model.ssm.conv_bias = false;
    s.model.ssm.proj_bias = true;
    for (JsonStyle style : {JsonStyle::Pretty, JsonStyle::Compact}) {
        Result<Scenario> back = scenario_from_json(scenario_to_json(s, style));
        REQUIRE(back.ok());
        CHECK(back.value->model.ssm == s.model.ssm);
    }
    std::string json = scenario_to_json(s, JsonStyle::Compact);
    const std::string kind = "\"kind\":\"mamba2\"";
    REQUIRE(json.find(kind) != std::string::npos);
    std::string bad_kind = json;
    bad_kind.replace(bad_kind.find(kind), kind.size(), "\"kind\":\"mamba3\"");
    Result<Scenario> r = scenario_from_json(bad_kind);
    REQUIRE_FALSE(r.ok());
    CHECK(r.errors.front().field == "model.ssm.kind");
    // A well-formed link with an impossible state size is refused by validate, naming the field.
    s.model.ssm.state = 0;
    Result<Scenario> zero = scenario_from_json(scenario_to_json(s, JsonStyle::Compact));
    REQUIRE(zero.ok());
    const Estimate e = estimate(*zero.value, Detail::NumbersOnly);
    bool named = false;
    for (const FieldError& f : e.errors) named = named || f.field.find("ssm.state") != std::string::npos;
    CHECK(named);
}

TEST_CASE("state-space models: training keeps what the fused Mamba kernels save for backward") {
    // mamba-130m-hf, bf16 mixed precision, one sequence of 2048 tokens (T = 2048), no recomputation.
    // Per layer, by hand from mamba-ssm's MambaInnerFn (checkpoint_lvl 1) [mamba-ssm-code]: in_proj
    // input 2 * 2048 * 768 = 3,145,728; xz 2 * 2048 * 3072 = 12,582,912; x_dbl 2 * 2048 * (48 + 32) =
    // 327,680; B and C 2 * 2 * 2048 * 16 = 131,072; fp32 scan chunk states 4 * 1536 * 1 * 32 = 196,608;
    // the scan output 2 * 2048 * 1536 = 6,291,456: 22,675,456 B, 24 layers.
    Scenario t = train("mamba-130m-hf.json");
    const Estimate e = estimate_ok(t);
    CHECK(bytes_of(e, "act.mamba") == 24 * 22675456.0);
    CHECK(find(e, "act.attention") == nullptr);  // no attention layer, no MLP
    CHECK(find(e, "act.mlp") == nullptr);
    CHECK(bytes_of(e, "act.norms") == 24 * 2.0 * 2048 * 768);  // MambaBlock's one RMSNorm input per layer
    CHECK(std::string(find(e, "act.mamba")->formula()).find("scan_states") != std::string::npos);
    // Recomputation keeps the layer inputs instead (2 * 2048 * 768 per layer).
    t.train.recompute = Recompute::Full;
    const Estimate full = estimate(t, Detail::NumbersOnly);
    CHECK(find(full, "act.mamba") == nullptr);
    CHECK(bytes_of(full, "act.checkpoints") == 24 * 2.0 * 2048 * 768);

    // Mamba-Codestral-7B (Mamba2, MambaSplitConv1dScanCombinedFn): in_proj input 2 * 2048 * 4096 =
    // 16,777,216; zxbcdt 2 * 2048 * (16384 + 2048 + 128) = 76,021,760; out_x 2 * 2048 * 8192 =
    // 33,554,432; rstd 4 * 2048 * 8 = 65,536: 126,418,944 B per layer, 64 layers.
    t.model = config("mamba-codestral-7b-v0.1.json");
    t.train.recompute = Recompute::None;
    const Estimate m2 = estimate(t, Detail::NumbersOnly);
    REQUIRE(m2.ok());
    CHECK(bytes_of(m2, "act.mamba") == 64 * 126418944.0);
}

TEST_CASE("state-space models: transformers' torch path trains Mamba1 keeping the discretised fp32 tensors") {
    // mamba-130m-hf under bf16 autocast over fp32 weights, no kernels (train.ssm_kernels torch, the default),
    // T = 2048, d_inner 1536, d_state 16, dt_rank 48, hidden 768. By hand from MambaMixer.slow_forward, what
    // autograd saves [transformers-ssm-torch] [pytorch-autograd-code]: in_proj's bf16 input 2 * 2048 * 768 =
    // 3,145,728; in_proj's output (conv1d's input and the gate view it) 2 * 2 * 2048 * 1536 = 12,582,912; the
    // conv output and its silu 2 * 2 * 2048 * 1536 = 12,582,912; x_proj's output 2 * 2048 * 80 = 327,680;
    // softplus's fp32 input and output 2 * 4 * 2048 * 1536 = 25,165,824; x.float() 4 * 2048 * 1536 =
    // 12,582,912; B.float() 4 * 2048 * 16 = 131,072; discrete_A and discrete_B 2 * 4 * 2048 * 1536 * 16 =
    // 402,653,184; 2048 fp32 states and their bf16 casts for the matmul with C 6 * 2048 * 1536 * 16 =
    // 301,989,888; the fp32 scan_output + x * D and silu(gate) 6 * 2048 * 1536 = 18,874,368; out_proj's bf16
    // input 2 * 2048 * 1536 = 6,291,456. Sum 796,327,936 B on each of the 24 layers.
    Scenario t = train("mamba-130m-hf.json");
    t.train.precision = Precision::AutocastBF16;
    CHECK(t.train.ssm_kernels == SsmKernels::Torch);
    const Estimate e = estimate_ok(t);
    CHECK(find(e, "act.mamba") == nullptr);
    CHECK(bytes_of(e, "act.mamba_torch") == 24 * 796327936.0);
    CHECK(std::string(find(e, "act.mamba_torch")->formula()).find("discretised") != std::string::npos);
    // Full recomputation: backward recomputes one layer (its norm's fp32 input and normed output 8 * 2048 * 768
    // = 12,582,912 plus the mixer: 808,910,848), holds its gradients (as much again) and, at the scan loop,
    // discrete_A's and deltaB_u's gradient buffers with one step's whole-shape select_backward gradient:
    // 3 * 4 * 2048 * 1536 * 16 = 603,979,776. The loss backward (3 * 4 * 2048 * 50280 = 1,235,681,280) is smaller.
    t.train.recompute = Recompute::Full;
    const Estimate full = estimate_ok(t);
    CHECK(bytes_of(full, "act.backward_working") == 2 * 808910848.0 + 603979776.0);
    // With the kernels installed the fused walk applies, as it does for Megatron-style mixed precision.
    t.train.recompute = Recompute::None;
    t.train.ssm_kernels = SsmKernels::Fused;
    const Estimate fused = estimate_ok(t);
    CHECK(find(fused, "act.mamba_torch") == nullptr);
    CHECK(bytes_of(fused, "act.mamba") > 0);
    t.train.ssm_kernels = SsmKernels::Torch;
    t.train.precision = Precision::MixedBF16;
    CHECK(find(estimate_ok(t), "act.mamba_torch") == nullptr);
}

TEST_CASE("state-space models: Mamba2's torch path in training, its gated RMSNorm on a 16-bit gate") {
    // Mamba-Codestral-7B under bf16 autocast, one sequence of 2048 tokens: T = S = 2048 (l = 256, c = 8), d_inner
    // 8192, d_state 128, 8 groups, H = 128, hidden 4096. Mamba2Mixer.torch_forward by hand [transformers-ssm-torch]:
    // in_proj's input 2 * 2048 * 4096 = 16,777,216; its bf16 output (no mup_vector) 2 * 2048 * 18560 =
    // 76,021,760; the conv output 2 * 2048 * 10240 = 41,943,040; dt 3 * 4 * 2048 * 128 = 3,145,728; x.float()
    // 4 * 2048 * 8192 = 67,108,864; padded x and x * dt 134,217,728; B and C 2 * 4 * 2048 * 128 * 128 =
    // 268,435,456; L, G, M 3 * 4 * 2048 * 256 * 128 = 805,306,368; B_decay 134,217,728; states 2 * 4 * 9 * 8192 *
    // 128 = 75,497,472; C_times_states summed 67,108,864; the gated RMSNorm's y, the gate's fp32 cast, silu, the
    // product and the normalized product 5 * 4 * 2048 * 8192 = 335,544,320; out_proj's input 33,554,432.
    // 2,058,878,976 B on each of the 64 layers; backward's G_intermediate gradients 2 * 4 * 2048 * 256 * 128 * 128
    // = 68,719,476,736 B.
    Scenario t = train("mamba-codestral-7b-v0.1.json");
    t.train.precision = Precision::AutocastBF16;
    const Estimate e = estimate_ok(t);
    CHECK(bytes_of(e, "act.mamba_torch") == 64 * 2058878976.0);
    CHECK(bytes_of(e, "act.backward_working") > 68719476736.0 + 2058878976.0);
    CHECK(std::string(find(e, "act.mamba_torch")->formula()).find("norm_out") != std::string::npos);
}

TEST_CASE("falcon-h1: transformers' torch path trains the Mamba2 SSD keeping its fp32 chunk tensors") {
    // Falcon-H1-0.5B (its config's mamba_chunk_size 128) under bf16 autocast over fp32 weights, one sequence of
    // 1024 tokens: T = S = 1024 (chunks of l = 128, c = 8), d_inner 1536, d_state 128, 1 group, H = 24 heads, hidden 1024. By hand from
    // FalconH1Mixer.torch_forward [transformers-ssm-torch] [pytorch-autograd-code] [pytorch-autocast-code]:
    // in_proj's bf16 input 2 * 1024 * 1024 = 2,097,152; in_proj's output times the fp32 mup_vector (gate and dt
    // view it) 4 * 1024 * 3352 = 13,729,792; conv1d's bf16 cast of xBC and its output 2 * 2 * 1024 * 1792 =
    // 7,340,032; softplus's input and clamp's input and output 3 * 4 * 1024 * 24 = 294,912; x.float() 4 * 1024 * 1536 =
    // 6,291,456; the padded x and x * dt 2 * 4 * 1024 * 1536 = 12,582,912; B and C repeated to the 24 heads
    // 2 * 4 * 1024 * 24 * 128 = 25,165,824; L, G and M 3 * 4 * 1024 * 128 * 24 = 37,748,736; B_decay
    // 4 * 1024 * 24 * 128 = 12,582,912; the concatenated states and new_states 2 * 4 * 9 * 1536 * 128 =
    // 14,155,776; C_times_states summed 4 * 1024 * 1536 = 6,291,456; y and silu(gate), both fp32 (no
    // mamba_rms_norm) 8 * 1024 * 1536 = 12,582,912; out_proj's bf16 input 2 * 1024 * 1536 = 3,145,728.
    // Sum 154,009,600 B on each of the 36 layers.
    Scenario t = train("falcon-h1-0.5b.json");
    t.train.precision = Precision::AutocastBF16;
    t.train.seq_len = 1024;
    const Estimate e = estimate_ok(t);
    CHECK(bytes_of(e, "act.mamba_torch") == 36 * 154009600.0);
    // The backward of G_intermediate = C * B holds both gradients at (1, 8, 128, 128, 24, 128) fp32 before they
    // are summed back: 2 * 4 * 1024 * 128 * 24 * 128 = 3,221,225,472 B, in the backward working set (Y_diag's
    // product, 128 * 1536 per token, and the states', 1536 * 128, are smaller than 128 * 24 * 128).
    const Component* w = find(e, "act.backward_working");
    REQUIRE(w != nullptr);
    CHECK(std::string(w->formula()).find("SSD_grads") != std::string::npos);
    CHECK(bytes_of(e, "act.backward_working") > 3221225472.0 + 154009600.0);  // beside one layer's gradients
}

TEST_CASE("state-space models: the llama.cpp planner puts each Mamba layer's state beside its layer") {
    // mamba-130m-hf, every layer on one GPU: one sequence's state, (3 * 1536 + 1536 * 16) * 4 B per
    // layer, 24 layers = 2,801,664 B, and no KV cache.
    PlanInput in;
    in.model = config("mamba-130m-hf.json");
    in.gpus.push_back(PlanGpu{});
    in.gpus.back().memory_bytes = 24e9;
    in.ram_bytes = 64e9;
    in.context = 4096;
    const Plan p = plan_llamacpp(in);
    REQUIRE(p.ok());
    REQUIRE(p.gpus.size() == 1);
    CHECK(p.gpus[0].layer_end - p.gpus[0].layer_begin == 24);
    CHECK(p.gpus[0].kv == 2801664.0);
    // Jamba 1.5 Mini on an 80 GB GPU: f16 KV of its 4 attention layers, 2 * 8 * 128 * 2 B * 4096 tokens
    // = 16,777,216 B each, plus 28 Mamba states of (3 * 8192 + 8192 * 16) * 4 = 622,592 B.
    in.model = config("ai21-jamba-1.5-mini.json");
    in.gpus.back().memory_bytes = 80e9;
    in.ram_bytes = 128e9;
    const Plan j = plan_llamacpp(in);
    REQUIRE(j.ok());
    REQUIRE(j.gpus[0].layer_end - j.gpus[0].layer_begin == 32);
    CHECK(j.gpus[0].kv == 4 * 16777216.0 + 28 * 622592.0);
    // Qwen3-Next (Q4_K_M weights) on the same GPU: f16 KV of its 12 full-attention layers, 2 * 2 * 256 *
    // 2 B * 4096 = 8,388,608 B each, and 36 delta-net states of (3 * 8192 + 32 * 128 * 128) * 4 = 2,195,456 B.
    in.model = config("qwen3-next-80b-a3b-instruct.json");
    const Plan q = plan_llamacpp(in);
    REQUIRE(q.ok());
    REQUIRE(q.gpus[0].layer_end - q.gpus[0].layer_begin == 48);
    CHECK(q.gpus[0].kv == 12 * 8388608.0 + 36 * 2195456.0);
}

TEST_CASE("state-space models: Jamba trains its Mamba layers through separate kernels, attention only on its attention layers") {
    // AI21-Jamba-1.5-Mini, bf16 mixed, T = 2048. A Mamba layer (JambaMambaMixer, one kernel at a time)
    // by hand: in_proj input 2 * 2048 * 4096 = 16,777,216; xz 2 * 2048 * 16384 = 67,108,864; conv output,
    // delta, scan output and out_proj input 2 * 2048 * 8192 = 33,554,432 each; dt/B/C norm inputs
    // 2 * 2048 * (256 + 32) = 1,179,648; dt_proj input 2 * 2048 * 256 = 1,048,576; B and C
    // 2 * 2 * 2048 * 16 = 131,072; fp32 chunk states 4 * 8192 * 1 * 32 = 1,048,576: 221,511,680 B, on 28
    // of the 32 layers.
    Scenario t = train("ai21-jamba-1.5-mini.json");
    const Estimate e = estimate_ok(t);
    CHECK(bytes_of(e, "act.mamba") == 28 * 221511680.0);
    // Its torch path under transformers (autocast, no kernels: the default train.ssm_kernels) is not walked: said.
    CHECK_FALSE(warned(e.warnings, "Jamba's Mamba layers"));
    Scenario hf = t;
    hf.train.precision = Precision::AutocastBF16;
    CHECK(warned(estimate_ok(hf).warnings, "Jamba's Mamba layers are walked as with the kernels"));
    hf.train.ssm_kernels = SsmKernels::Fused;
    CHECK_FALSE(warned(estimate_ok(hf).warnings, "Jamba's Mamba layers"));
    const Component* attn = find(e, "act.attention");
    REQUIRE(attn != nullptr);
    CHECK(std::string(attn->formula()).find("L_attn") != std::string::npos);
    CHECK(std::string(attn->substituted()).find("4 *") != std::string::npos);
}

TEST_CASE("state-space models: vLLM keeps max_num_seqs Mamba states before it sizes the KV pool") {
    // vLLM v0.6's MambaCacheManager [vllm-code]: d_conv - 1 conv columns and the SSM state in bf16 for
    // Jamba's 28 Mamba layers: (3 * 8192 + 8192 * 16) * 2 = 311,296 B per layer, 8,716,288 B per sequence;
    // 256 sequences with CUDA graphs (256 is already a captured batch size).
    Scenario s = infer("ai21-jamba-1.5-mini.json", Engine::VLLM, 1, 4096);
    s.gpu.memory_bytes = 141e9;  // the weights (bf16, ~103 GB) fit
    s.infer.max_num_seqs = 256;
    s.infer.cuda_graphs = true;
    const Estimate e = estimate(s, Detail::Full);
    REQUIRE(e.errors.empty());
    CHECK(bytes_of(e, "ssm_state") == 256 * 8716288.0);
    // The pool is what the state leaves: the budget's components sum to gpu_memory_utilization x memory
    // (the KV pool rounds down to whole blocks, less than one block of 16 tokens x 16,384 B); the CUDA
    // context lies beside the budget.
    const double budget = e.total_bytes - bytes_of(e, "cuda_context");
    CHECK(budget <= s.infer.gpu_memory_utilization * s.gpu.memory_bytes);
    CHECK(budget > s.infer.gpu_memory_utilization * s.gpu.memory_bytes - 16 * 16384.0);
    // 5 sequences: 8 with CUDA graphs (a multiple of 8 above 4), 5 eager.
    s.infer.max_num_seqs = 5;
    CHECK(bytes_of(estimate(s, Detail::NumbersOnly), "ssm_state") == 8 * 8716288.0);
    s.infer.cuda_graphs = false;
    CHECK(bytes_of(estimate(s, Detail::NumbersOnly), "ssm_state") == 5 * 8716288.0);
    // A pure Mamba model has no KV pool: its sequences are the Mamba cache's slots.
    Scenario pure = infer("mamba-130m-hf.json", Engine::VLLM, 1, 4096);
    pure.infer.max_num_seqs = 64;
    const Estimate p = estimate(pure, Detail::NumbersOnly);
    REQUIRE(p.errors.empty());
    CHECK(find(p, "kv_cache") == nullptr);
    CHECK(p.kv.sequences == 64);
}

TEST_CASE("state-space models: vLLM splits a Mamba1 mixer and its state over tensor-parallel ranks") {
    // Jamba's Mamba layer split as vLLM's MambaMixer splits it [vllm-code]: everything but the dt/B/C
    // norms (256 + 16 + 16 = 288) is halved at tp 2: (105,308,448 - 288) / 2 + 288 = 52,654,368.
    const ModelSpec m = config("ai21-jamba-1.5-mini.json");
    double mixer = 0;
    for (const Tensor& t : layer_tensors(m, LayerKind{false, true}))
        if (t.kind == TensorKind::Ssm) mixer += tensor_shard(t, 2, 1, 1);
    CHECK(mixer == 52654368.0);
    // Each rank keeps half of every state: 256 * 8,716,288 / 2 B.
    Scenario s = infer("ai21-jamba-1.5-mini.json", Engine::VLLM, 1, 4096);
    s.gpu.memory_bytes = 80e9;
    s.parallel.tp = 2;
    s.gpu_count = 2;
    s.infer.max_num_seqs = 256;
    const Estimate e = estimate(s, Detail::Full);
    for (const auto& f : e.errors) INFO(to_string(f));
    REQUIRE(e.ok());
    CHECK(bytes_of(e, "ssm_state") == 256 * 8716288.0 / 2);
    // Not modelled, refused by field: transformers' tensor parallelism of Mamba, Mamba2's head sharding.
    s.infer.engine = Engine::Transformers;
    CHECK(has_error(estimate(s, Detail::NumbersOnly), "parallel.tp", "Mamba1"));
    Scenario m2 = infer("mamba-codestral-7b-v0.1.json", Engine::VLLM, 1, 4096);
    m2.parallel.tp = 2;
    m2.gpu_count = 2;
    CHECK(has_error(estimate(m2, Detail::NumbersOnly), "parallel.tp", "Mamba1"));
}

// A GGUF header of `arch` with these whole-number keys (each under the arch's prefix), read back as
// the config.json gguf_hf_config makes of it.
using GgufKeys = std::vector<std::pair<const char*, uint32_t>>;
Result<std::string> gguf_config(const std::string& arch, const GgufKeys& keys) {
    vl::test::GgufWriter w;
    w.string("general.architecture", arch);
    for (const auto& [key, value] : keys) w.u32(arch + "." + key, value);
    Result<GgufHeader> h = read_gguf_header(w.header());
    REQUIRE(h.ok());
    return gguf_hf_config(*h);
}

TEST_CASE("state-space models: a Mamba GGUF file's metadata is its model") {
    // llama.cpp's keys for state-spaces/mamba-130m-hf converted (LLM_KV_SSM_*): the count is the
    // checkpoint's 129,135,360 again (tied: no output.weight tensor).
    Result<std::string> c = gguf_config("mamba", {{"embedding_length", 768}, {"block_count", 24}, {"ssm.inner_size", 1536}, {"ssm.state_size", 16},
                                                  {"ssm.conv_kernel", 4}, {"ssm.time_step_rank", 48}, {"vocab_size", 50280}});
    for (const auto& e : c.errors) INFO(to_string(e));
    REQUIRE(c.ok());
    Result<ModelSpec> m = import_hf_config(*c.value);
    for (const auto& e : m.errors) INFO(to_string(e));
    REQUIRE(m.ok());
    CHECK(m.value->ssm.kind == SsmKind::Mamba1);
    CHECK(count_params(*m.value).total == 129135360);
    // Mamba2 (Mamba-Codestral's sizes): without its group count the key is named; with it, Codestral's
    // count less lm_head (no output.weight tensor here: tied).
    GgufKeys codestral = {
        {"embedding_length", 4096}, {"block_count", 64}, {"ssm.inner_size", 8192}, {"ssm.state_size", 128},
        {"ssm.conv_kernel", 4},     {"ssm.time_step_rank", 128}, {"vocab_size", 32768}};
    Result<std::string> c2 = gguf_config("mamba2", codestral);
    REQUIRE_FALSE(c2.ok());
    CHECK(c2.errors.front().field == "mamba2.ssm.group_count");
    codestral.push_back({"ssm.group_count", 8});
    Result<std::string> c3 = gguf_config("mamba2", codestral);
    REQUIRE(c3.ok());
    Result<ModelSpec> m3 = import_hf_config(*c3.value);
    REQUIRE(m3.ok());
    CHECK(count_params(*m3.value).total == 7285403648LL - 32768LL * 4096);
}

TEST_CASE("gated deltanet: Qwen3-Next-80B-A3B counts as its safetensors headers do") {
    const ModelSpec m = config("qwen3-next-80b-a3b-instruct.json");
    CHECK(m.ssm.kind == SsmKind::GatedDeltaNet);
    CHECK(m.attn_output_gate);
    CHECK(m.moe.shared_expert_gate);
    // By hand (hidden 2048; key_dim 16 * 128 = 2048, value_dim 32 * 128 = 4096):
    // linear-attention mixer: in_proj_qkvz (2 * 2048 + 2 * 4096) * 2048 = 25,165,824, in_proj_ba 64 * 2048
    // = 131,072, conv1d 8192 * 4 = 32,768, dt_bias 32, A_log 32, norm 128, out_proj 2048 * 4096 =
    // 8,388,608: 33,718,464. Gated attention: q_proj 2 * 16 * 256 * 2048 = 16,777,216, k and v 512 * 2048
    // each, o 2048 * 4096, q_norm and k_norm 256 each: 27,263,488. MoE: 512 experts of 3 * 512 * 2048,
    // router 512 * 2048, shared expert 3 * 512 * 2048, shared_expert_gate 2048: 1,614,809,088. Two norms
    // 2 * 2048. One layer of each kind: 36 linear, 12 attention (every 4th). Untied 151936 * 2048
    // embedding and lm_head; final norm 2048.
    CHECK(33718464LL + 1614809088LL + 4096 == 1648531648LL);  // the torchinfo of one linear-attention layer
    CHECK(36 * 33718464LL + 12 * 27263488LL + 48 * (1614809088LL + 4096) + 2 * 151936LL * 2048 + 2048 == 79674391296LL);
    const ParamCounts p = count_params(m);
    CHECK(p.total == 79674391296LL);           // safetensors headers (SOURCES.md qwen3-next-80b-a3b-instruct)
    CHECK(p.active_per_token == 3874929408LL);  // the same, less the 502 experts a token does not use
    CHECK(p.per_layer[0].ssm == 33718464);
    CHECK(p.per_layer[0].attention == 0);
    CHECK(p.per_layer[3].attention == 27263488);
    CHECK(p.per_layer[3].ssm == 0);
    CHECK(p.per_layer[0].total() == 1648531648LL);
    for (int64_t i = 0; i < m.layers; ++i) {
        INFO("layer " << i);
        CHECK(layer_pattern(m).ssm(i) == ((i + 1) % 4 != 0));
    }
    CHECK(p.mtp == 0);  // this config names no MTP layer
}

TEST_CASE("gated deltanet: Qwen3.5-27B counts by hand, and with its vision tower and the LoRA adapters as Unsloth printed it") {
    const ModelSpec m = config("qwen3.5-27b.json");
    CHECK(m.ssm.kind == SsmKind::GatedDeltaNet);
    CHECK(m.mtp_layers == 1);
    // By hand (hidden 5120; key_dim 16 * 128 = 2048, value_dim 48 * 128 = 6144): linear mixer in_proj (2 * 2048 +
    // 2 * 6144) * 5120 + 96 * 5120, conv1d 10240 * 4, dt_bias 48, A_log 48, norm 128, out_proj 5120 * 6144 =
    // 115,876,064; gated attention q 2 * 24 * 256 * 5120, k and v 1024 * 5120, o 5120 * 6144, q/k norms 512 =
    // 104,858,112; dense MLP 3 * 17408 * 5120 = 267,386,880; two norms 10240; 48 linear and 16 attention layers;
    // untied 248320 * 5120 twice; final norm.
    CHECK(16384LL * 5120 + 96 * 5120 + 10240 * 4 + 48 + 48 + 128 + 5120LL * 6144 == 115876064LL);
    CHECK(2LL * 24 * 256 * 5120 + 2 * 1024 * 5120 + 5120LL * 6144 + 512 == 104858112LL);
    const int64_t text = 48 * 115876064LL + 16 * 104858112LL + 64 * (3 * 17408LL * 5120 + 10240) + 2 * 248320LL * 5120 + 5120;
    CHECK(text == 26895998464LL);
    const ParamCounts p = count_params(m);
    CHECK(p.total == text);
    // Unsloth's Qwen3.5-27B notebook printed "Trainable parameters = 44,171,264 of 27,400,899,824" for LoRA r 8 on
    // q/k/v/o, gate/up/down and the linear mixers' out_proj (tests/data/accuracy/family-logs-candidates.json
    // unsloth-nb-qwen3.5-27b-lora16-a100): the adapters r * (in + out) per matrix, 16 attention layers * (5120 +
    // 12288 + 2 * (5120 + 1024) + 6144 + 5120), 64 MLPs * 3 * (5120 + 17408), 48 out_proj * (6144 + 5120).
    const int64_t adapters = 8 * (16 * (5120 + 12288 + 2 * (5120 + 1024) + 6144 + 5120LL) + 64 * 3 * (5120 + 17408LL) + 48 * (6144 + 5120LL));
    CHECK(adapters == 44171264LL);
    // The same targets as vramlens counts them (PEFT's r * (in + out), the Gated DeltaNet mixer's out_proj among them).
    CHECK(lora_trainable_params(m, 8, kLoraQ | kLoraK | kLoraV | kLoraO | kLoraGate | kLoraUp | kLoraDown | kLoraOutProj) == adapters);
    // The rest of the printed total is the vision tower Qwen3_5ForConditionalGeneration loads (the MTP layer is not
    // a module of it): 27 blocks of 1152 wide (qkv and proj with biases, an MLP of 4304 with biases, two norms),
    // the 16 x 16 x 2 patch embedding with bias, 2304 learned positions and the merger (a norm, 4608 -> 4608 ->
    // 5120 with biases). The 9B's checkpoint total gives the same tower with a 4096-wide output (SOURCES.md).
    const int64_t block = 1152LL * 3456 + 3456 + 1152LL * 1152 + 1152 + 2 * (1152LL * 4304) + 4304 + 1152 + 4 * 1152;
    const int64_t tower = 27 * block + (3 * 2 * 16 * 16 * 1152LL + 1152) + 2304LL * 1152 + (2 * 1152 + 4608LL * 4608 + 4608 + 4608LL * 5120 + 5120);
    CHECK(p.total + adapters + tower == 27400899824LL);
    CHECK(p.vision + p.projector == tower);  // the importer reads the same tower
}

TEST_CASE("gated deltanet: Qwen3.5-9B reads text_config, counts its vision tower and its MTP layer apart") {
    Result<ModelSpec> r = import_hf_config(text_of("qwen3.5-9b.json"));
    REQUIRE(r.ok());
    const ModelSpec& m = *r.value;
    CHECK(m.family == "Qwen3.5");
    CHECK(m.ssm.fp32_state);  // mamba_ssm_dtype "float32"
    CHECK(m.mtp_layers == 1);
    CHECK_FALSE(warned(r.warnings, "vision tower"));
    CHECK(warned(r.warnings, "text_config.mtp_num_hidden_layers"));
    // By hand (hidden 4096, the same mixer heads as Qwen3-Next): linear mixer in_proj 12288 * 4096 +
    // 64 * 4096, conv1d 8192 * 4, 32 + 32 + 128, out_proj 4096 * 4096 = 67,403,968; gated attention q
    // 8192 * 4096, k and v 1024 * 4096, o 4096 * 4096, norms 512 = 58,720,768; dense MLP 3 * 12288 * 4096
    // = 150,994,944; two norms 8192; 24 linear and 8 attention layers; untied 248320 * 4096 twice; norm.
    const int64_t text = 24 * 67403968LL + 8 * 58720768LL + 32 * (150994944LL + 8192) + 2 * 248320LL * 4096 + 4096;
    CHECK(text == 8953803264LL);
    const ParamCounts p = count_params(m);
    CHECK(p.total == text);
    // MTP: fc 4096 * 8192, two pre-fc norms, one attention layer with its MLP and norms, a final norm.
    const int64_t mtp = 4096LL * 8192 + 2 * 4096 + (58720768LL + 150994944LL + 8192) + 4096;
    CHECK(p.mtp == mtp);
    // The tower, by hand (27 blocks of 1152: qkv and proj with biases, an MLP of 4304 with biases, two LayerNorms; the
    // 16 x 16 x 2 patch embedding with bias; 2304 learned positions) and the merger (a LayerNorm, 4608 -> 4608 -> 4096
    // with biases). With the language model and the MTP layer it is the checkpoint's total_size / 2 (SOURCES.md) less
    // 3,840, the A_log (24 x 32) and gated-norm (24 x 128) elements, which the checkpoint would hold in fp32.
    const int64_t block = 1152LL * 3456 + 3456 + 1152LL * 1152 + 1152 + 2 * (1152LL * 4304) + 4304 + 1152 + 4 * 1152;
    CHECK(p.vision == 27 * block + (3 * 2 * 16 * 16 * 1152LL + 1152) + 2304LL * 1152);
    CHECK(p.projector == 2 * 1152 + 4608LL * 4608 + 4608 + 4608LL * 4096 + 4096);
    CHECK(p.total + p.vision + p.projector + p.mtp + 24 * (32 + 128) == 19306216416LL / 2);
    // vramlens import shows it beside the counts, not in them.
    std::string out, err;
    REQUIRE(cli::run({"import", std::string(VRAMLENS_TEST_DATA) + "/configs/qwen3.5-9b.json", "--format", "json"}, out, err) == 0);
    const nlohmann::json j = nlohmann::json::parse(out);
    CHECK(j["params"]["mtp"] == mtp);
    CHECK(j["params"]["total"] == text);
    // The checkpoint's total_size, 19,306,216,416 B of bf16, holds 9,653,108,208 parameters: the
    // language model and the MTP layer leave 456,014,320 for the vision tower, within the 0.40-0.50B
    // the public analysis bounds it by (SOURCES.md qwen3.5-9b).
    const int64_t vision = 19306216416LL / 2 - text - mtp;
    CHECK(vision > 400000000LL);
    CHECK(vision < 500000000LL);
}

TEST_CASE("gated deltanet: Qwen3.6-35B-A3B, 35B in total and 3B activated") {
    const ModelSpec m = config("qwen3.6-35b-a3b.json");
    CHECK(m.family == "Qwen3.5-MoE");
    // By hand: the Qwen3-Next mixer and attention at hidden 2048 (33,718,464 and 27,263,488), MoE of 256
    // experts 3 * 512 * 2048, router 256 * 2048, the shared expert and its gate: 808,978,432; two norms;
    // 30 linear and 10 attention layers; untied 248320 * 2048 twice; final norm. Active: 8 of the experts.
    const int64_t outside = 2 * 248320LL * 2048 + 2048;
    const int64_t total = 30 * 33718464LL + 10 * 27263488LL + 40 * (808978432LL + 4096) + outside;
    const int64_t active = 30 * 33718464LL + 10 * 27263488LL + 40 * (8 * 3145728LL + 524288 + 3145728 + 2048 + 4096) + outside;
    const ParamCounts p = count_params(m);
    CHECK(p.total == total);
    CHECK(p.active_per_token == active);
    CHECK(std::llround(static_cast<double>(p.total) / 1e9) == 35);  // the card: 35B in total
    CHECK(std::llround(static_cast<double>(p.active_per_token) / 1e9) == 3);  // 3B activated
}

TEST_CASE("gated deltanet: the recurrent state per engine, KV only on the full-attention layers") {
    // Qwen3-Next, 4096 tokens. KV on its 12 attention layers: 2 * 2 kv heads * 256 * 2 B = 2048 B per
    // token and layer -> 12 * 2048 * 4096 = 100,663,296 B.
    // transformers (Qwen3NextDynamicCache): conv_states [2 * 2048 + 4096 = 8192, 4] bf16 = 65,536 B and
    // recurrent_states [32, 128, 128] fp32 = 2,097,152 B per linear layer, 36 layers: 77,856,768 B.
    const Estimate t = estimate(infer("qwen3-next-80b-a3b-instruct.json", Engine::Transformers, 1, 4096), Detail::Full);
    for (const auto& f : t.errors) INFO(to_string(f));
    REQUIRE(t.errors.empty());
    CHECK(bytes_of(t, "kv_cache") == 100663296.0);
    CHECK(bytes_of(t, "ssm_state") == 36 * (65536.0 + 2097152.0));
    const Component* c = find(t, "ssm_state");
    REQUIRE(c != nullptr);
    CHECK(std::string(c->label).find("Gated DeltaNet") != std::string::npos);
    CHECK(std::string(c->formula()).find("d_state") != std::string::npos);
    CHECK(std::string(c->source).find("Qwen3NextDynamicCache") != std::string::npos);
    // Constant in the context: 16x the tokens, 16x the KV, the same state.
    const Estimate longer = estimate(infer("qwen3-next-80b-a3b-instruct.json", Engine::Transformers, 1, 65536), Detail::NumbersOnly);
    CHECK(bytes_of(longer, "ssm_state") == 36 * (65536.0 + 2097152.0));
    CHECK(bytes_of(longer, "kv_cache") == 16 * 100663296.0);
    // llama.cpp (llama_memory_recurrent, F32): (4 - 1) * 8192 * 4 + 32 * 128 * 128 * 4 = 2,195,456 B per layer.
    const Estimate l = estimate(infer("qwen3-next-80b-a3b-instruct.json", Engine::LlamaCpp, 1, 4096), Detail::NumbersOnly);
    REQUIRE(l.errors.empty());
    CHECK(bytes_of(l, "ssm_state") == 36 * 2195456.0);
    // vLLM: conv (d_conv - 1) columns and the temporal state in the model's dtype (bf16) for Qwen3-Next,
    // (3 * 8192 + 524288) * 2 = 1,097,728 B per layer; Qwen3.5 asks for an fp32 temporal state:
    // 3 * 8192 * 2 + 524288 * 4 = 2,146,304 B per layer (the same shapes as a public cache profiler's
    // Qwen3.5 test: conv (2 * 16 * 128 + 32 * 128) * 3 * 2, temporal 32 * 128 * 128 * 4).
    Scenario v = infer("qwen3-next-80b-a3b-instruct.json", Engine::VLLM, 1, 4096);
    v.gpu.memory_bytes = 200e9;  // the bf16 weights (~159 GB) fit
    v.infer.max_num_seqs = 8;
    v.infer.cuda_graphs = false;
    const Estimate ve = estimate(v, Detail::NumbersOnly);
    REQUIRE(ve.errors.empty());
    CHECK(bytes_of(ve, "ssm_state") == 8 * 36 * 1097728.0);
    Scenario v35 = infer("qwen3.5-9b.json", Engine::VLLM, 1, 4096);
    v35.infer.max_num_seqs = 8;
    v35.infer.cuda_graphs = false;
    const Estimate v35e = estimate(v35, Detail::NumbersOnly);
    REQUIRE(v35e.errors.empty());
    CHECK(bytes_of(v35e, "ssm_state") == 8 * 24 * 2146304.0);
    CHECK(warned(ve.warnings, "Gated DeltaNet"));
    CHECK(warned(ve.warnings, "hybrid KV-cache manager"));  // the v0.6 split is said to be v0.6's
}

TEST_CASE("gated deltanet: llama.cpp's CUDA compute buffer for Qwen3.5 at n_ctx 262144 (PR #22546's log) is the FA mask and its cast") {
    // llama.cpp of April 2026 (before PR #23764), flash attention, n_ubatch 512: the f32 mask input is copied
    // to the GPU and cast to f16 there, both live at the first attention layer (layer 3):
    // 262144 * 512 * (4 + 2) = 805,306,368 B (768 MiB), plus the four hidden-state rows of that layer
    // 4 * 4096 * 512 * 4 = 33,554,432 B (32 MiB): 800 MiB. The log: "CUDA0 compute buffer size = 808.02 MiB".
    Scenario s = infer("qwen3.5-9b.json", Engine::LlamaCpp, 1, 262144);
    s.infer.weights = WeightFormat::GGUF_Q4_K_M;
    s.infer.ubatch = 512;
    s.infer.flash_attention = true;
    s.infer.llamacpp_fa_mask_cast = true;
    const Estimate e = estimate(s, Detail::NumbersOnly);
    REQUIRE(e.errors.empty());
    CHECK(bytes_of(e, "engine.compute_buffer") == 262144.0 * 512 * 6 + 4.0 * 4096 * 512 * 4);
    CHECK_THAT(bytes_of(e, "engine.compute_buffer") / kMiB, Catch::Matchers::WithinRel(808.02, 0.02));
    // Today's llama.cpp reserves the mask in f16 (262144 * 512 * 2 = 256 MiB + 32 MiB = 288 MiB), so the
    // output bound leads: the f32 logits 248320 * 512 * 4 plus one MLP block and a hidden state
    // (12288 + 4096) * 512 * 4: 517 MiB.
    s.infer.llamacpp_fa_mask_cast = false;
    const Estimate now = estimate(s, Detail::NumbersOnly);
    CHECK(bytes_of(now, "engine.compute_buffer") == (248320.0 + 12288 + 4096) * 512 * 4);
    // Without flash attention the f32 mask is read as it is: the setting changes nothing there.
    s.infer.flash_attention = false;
    const double no_fa = bytes_of(estimate(s, Detail::NumbersOnly), "engine.compute_buffer");
    s.infer.llamacpp_fa_mask_cast = true;
    CHECK(bytes_of(estimate(s, Detail::NumbersOnly), "engine.compute_buffer") == no_fa);
}

TEST_CASE("gated deltanet: training walks a lower bound of the mixer's saved tensors and says so") {
    // Qwen3-Next, bf16 mixed precision, one sequence of 2048 tokens (T = 2048), no recomputation. Per
    // linear-attention layer: in_proj input 2 * 2048 * 2048 = 8,388,608; the conv input and the delta
    // rule's q, k, v 2 * 2048 * 8192 = 33,554,432 each; the gated norm's input and gate z 2 * 2 * 2048 *
    // 4096 = 33,554,432; out_proj input 2 * 2048 * 4096 = 16,777,216: 125,829,120 B, 36 layers.
    const Estimate e = estimate_ok(train("qwen3-next-80b-a3b-instruct.json"));
    CHECK(bytes_of(e, "act.mamba") == 36 * 125829120.0);
    CHECK(warned(e.warnings, "lower bound"));
    // The gated attention keeps sigmoid(gate) and the ungated output beside o_proj's input: 2 * 2 * 2048 *
    // (16 * 256) = 33,554,432 B more on each of the 12 attention layers than the same attention ungated.
    Scenario ungated = train("qwen3-next-80b-a3b-instruct.json");
    ungated.model.attn_output_gate = false;
    CHECK(bytes_of(e, "act.attention") - bytes_of(estimate_ok(ungated), "act.attention") == 12 * 33554432.0);
}

TEST_CASE("gated deltanet: config errors name the field") {
    // A layer list that contradicts full_attention_interval is refused at the list.
    std::string bad = text_of("qwen3.5-9b.json");
    const std::string first = "\"linear_attention\"";
    bad.replace(bad.find(first), first.size(), "\"full_attention\"");
    Result<ModelSpec> r = import_hf_config(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.errors.front().field == "text_config.layer_types");
    CHECK(r.errors.front().message.find("[0] must be \"linear_attention\"") == 0);
    // Key heads must divide the value heads.
    std::string heads = text_of("qwen3-next-80b-a3b-instruct.json");
    heads.replace(heads.find("\"linear_num_key_heads\": 16"), 26, "\"linear_num_key_heads\": 12");
    r = import_hf_config(heads);
    REQUIRE_FALSE(r.ok());
    CHECK(r.errors.front().field == "linear_num_key_heads");
    // Tensor parallelism of the delta-net mixer is not modelled: refused by name.
    Scenario s = infer("qwen3-next-80b-a3b-instruct.json", Engine::VLLM, 1, 4096);
    s.parallel.tp = 2;
    CHECK(has_error(estimate(s, Detail::NumbersOnly), "parallel.tp", "Gated DeltaNet"));
}

TEST_CASE("gated deltanet: the scenario format carries the new model fields") {
    Scenario s;
    s.mode = Mode::Infer;
    s.model = config("qwen3.5-9b.json");
    for (const ModelSpec& back : round_trips(s.model)) {
        CHECK(back.ssm == s.model.ssm);
        CHECK(back.attn_output_gate);
        CHECK(back.mtp_layers == 1);
    }
    CHECK(scenario_to_json(s, JsonStyle::Compact).find("\"kind\":\"gated_deltanet\"") != std::string::npos);
}

TEST_CASE("hybrids: vramlens plan runs the Qwen3-Next, Qwen3.5, Qwen3.6, Nemotron-H, Granite-4.0-H and Falcon-H1 presets") {
    for (const char* id : {"qwen3-next-80b-a3b", "qwen3.5-9b", "qwen3.6-35b-a3b", "nemotron-nano-9b-v2", "nemotron-h-8b", "granite-4.0-h-tiny",
                           "granite-4.0-h-1b", "falcon-h1-0.5b", "falcon-h1-1.5b", "falcon-h1-7b"}) {
        INFO(id);
        REQUIRE(find_model(id) != nullptr);
        const vl::test::PlanOut r = vl::test::run_plan({"--model", id, "--gpu", "h100-80gb", "--ram", "128GB"});
        INFO(r.err);
        CHECK(r.status == 0);
        CHECK(r.out.find("layers") != std::string::npos);
    }
}

TEST_CASE("gated deltanet: a qwen3next GGUF file's metadata is its model") {
    // The keys convert_hf_to_gguf writes for Qwen3-Next-80B-A3B [llama-cpp-code]; no output.weight
    // tensor here, so tied: the published 79,674,391,296 less lm_head's 151936 * 2048.
    GgufKeys keys = {
        {"embedding_length", 2048}, {"block_count", 48}, {"attention.head_count", 16}, {"attention.head_count_kv", 2},
        {"attention.key_length", 256}, {"feed_forward_length", 5120}, {"expert_count", 512}, {"expert_used_count", 10},
        {"expert_feed_forward_length", 512}, {"expert_shared_feed_forward_length", 512}, {"ssm.conv_kernel", 4},
        {"ssm.state_size", 128}, {"ssm.group_count", 16}, {"ssm.time_step_rank", 32}, {"full_attention_interval", 4},
        {"vocab_size", 151936}};
    Result<std::string> missing = gguf_config("qwen3next", keys);
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.errors.front().field == "qwen3next.ssm.inner_size");
    keys.push_back({"ssm.inner_size", 4096});
    Result<std::string> c = gguf_config("qwen3next", keys);
    for (const auto& e : c.errors) INFO(to_string(e));
    REQUIRE(c.ok());
    Result<ModelSpec> m = import_hf_config(*c.value);
    for (const auto& e : m.errors) INFO(to_string(e));
    REQUIRE(m.ok());
    CHECK(m.value->ssm.kind == SsmKind::GatedDeltaNet);
    CHECK(count_params(*m.value).total == 79674391296LL - 151936LL * 2048);
}

// ---- Nemotron-H: one block per layer, named by hybrid_override_pattern -----------------------------

TEST_CASE("nemotron-h: NVIDIA-Nemotron-Nano-9B-v2 counts as its safetensors do, one block per layer") {
    const ModelSpec m = config("nvidia-nemotron-nano-9b-v2.json");
    CHECK(m.family == "Nemotron-H");
    CHECK(m.ssm.kind == SsmKind::Mamba2);
    CHECK_FALSE(m.gated_mlp);  // NemotronHMLP: up_proj, relu2, down_proj
    CHECK(m.norms_per_layer == 1);
    // By hand from NemotronHMamba2Mixer, NemotronHAttention, NemotronHMLP [transformers-code] (hidden 4480):
    // Mamba2 block: d_inner 128 heads * 80 = 10,240; in_proj (2 * 10240 + 2 * 8 * 128 + 128) * 4480 =
    // 101,498,880; conv1d (10240 + 2048) * 4 = 49,152 + bias 12,288; dt_bias, A_log, D 3 * 128; norm
    // 10,240; out_proj 4480 * 10240 = 45,875,200: 147,446,144. Attention block: q 40 * 128 * 4480 and o the
    // same, 22,937,600 each; k and v 8 * 128 * 4480 = 4,587,520 each: 55,050,240. MLP block: up and down
    // 15680 * 4480 each: 140,492,800. One RMSNorm of 4480 per block. The pattern holds 27 'M', 4 '*' and
    // 25 '-'. Untied 131072 * 4480 embedding and lm_head, norm_f 4480.
    const int64_t mamba = 101498880LL + 49152 + 12288 + 3 * 128 + 10240 + 45875200LL;
    const int64_t attention = 2 * 22937600LL + 2 * 4587520LL;
    const int64_t mlp = 2 * 15680LL * 4480;
    CHECK(mamba == 147446144LL);
    const int64_t total = 27 * mamba + 4 * attention + 25 * mlp + 56 * 4480LL + 2 * 131072LL * 4480 + 4480;
    CHECK(total == 8888227328LL);  // the Hub's safetensors count (SOURCES.md nvidia-nemotron-nano-9b-v2)
    const ParamCounts p = count_params(m);
    CHECK(p.total == 8888227328LL);
    CHECK(p.active_per_token == p.total);
    // Layer 0 is 'M', layer 1 '-', layer 14 the first '*': each holds its block and its norm only.
    CHECK(p.per_layer[0].ssm == mamba);
    CHECK(p.per_layer[0].mlp == 0);
    CHECK(p.per_layer[0].attention == 0);
    CHECK(p.per_layer[1].mlp == mlp);
    CHECK(p.per_layer[1].ssm + p.per_layer[1].attention == 0);
    CHECK(p.per_layer[14].attention == attention);
    CHECK(p.per_layer[14].mlp + p.per_layer[14].ssm == 0);
    CHECK(p.per_layer[14].norms == 4480);
    const std::string pattern = "M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-";
    const LayerPattern lp = layer_pattern(m);
    for (int64_t i = 0; i < m.layers; ++i) {
        INFO("layer " << i);
        CHECK(layer_pattern(m).ssm(i) == (pattern[static_cast<size_t>(i)] == 'M'));
        CHECK(lp.attention(i) == (pattern[static_cast<size_t>(i)] == '*'));
    }
    CHECK(lp.attention_count(0, 56) == 4);
    CHECK(lp.ssm_count(0, 56) == 27);
    CHECK(lp.mlp_count(0, 56) == 25);
}

TEST_CASE("nemotron-h: Nemotron-H-8B-Base-8K, attention_head_dim and a hand sum") {
    const ModelSpec m = config("nemotron-h-8b-base-8k.json");
    CHECK(m.head_dim == 128);  // attention_head_dim
    CHECK(m.position == PositionKind::None);  // NemotronHAttention applies no rotary embedding
    // Hidden 4096: Mamba2 block (d_inner 128 * 64 = 8192) in_proj (16384 + 2048 + 128) * 4096 = 76,021,760,
    // conv1d 10240 * 4 + 10240, 384, norm 8192, out_proj 4096 * 8192: 109,635,968. Attention 4096^2 twice
    // and 1024 * 4096 twice: 41,943,040. MLP 2 * 21504 * 4096 = 176,160,768. 24 'M', 4 '*', 24 '-';
    // 52 norms; untied 131072 * 4096 twice; norm_f.
    const int64_t mamba = 76021760LL + 40960 + 10240 + 384 + 8192 + 33554432LL;
    CHECK(mamba == 109635968LL);
    const int64_t total = 24 * mamba + 4 * 41943040LL + 24 * 176160768LL + 52 * 4096LL + 2 * 131072LL * 4096 + 4096;
    CHECK(total == 8100852736LL);
    CHECK(count_params(m).total == total);
    CHECK(std::llround(static_cast<double>(total) / 1e9) == 8);  // the card's 8B
}

TEST_CASE("nemotron-h: KV on the 4 attention layers only, the Mamba2 state on the 27 Mamba layers") {
    // Nano-9B-v2, transformers, 4096 tokens: KV 2 * 8 kv heads * 128 * 2 B = 4096 B per token and
    // attention layer: 4 * 4096 * 4096 = 67,108,864 B. The state per Mamba layer: conv over x, B and C
    // (10240 + 2 * 8 * 128) * 4 = 49,152 and ssm 128 heads * 80 * 128 = 1,310,720, bf16: 2,719,744 B.
    const Estimate t = estimate_ok(infer("nvidia-nemotron-nano-9b-v2.json", Engine::Transformers, 1, 4096));
    CHECK(bytes_of(t, "kv_cache") == 67108864.0);
    CHECK(bytes_of(t, "ssm_state") == 27 * 2719744.0);
    // llama.cpp: d_conv - 1 = 3 columns, F32: (3 * 12288 + 1310720) * 4 = 5,390,336 B per Mamba layer.
    const Estimate l = estimate_ok(infer("nvidia-nemotron-nano-9b-v2.json", Engine::LlamaCpp, 1, 4096));
    CHECK(bytes_of(l, "ssm_state") == 27 * 5390336.0);
    CHECK(bytes_of(l, "kv_cache") == 67108864.0);  // f16, the same 2 bytes
}

TEST_CASE("nemotron-h: training counts each block's activations on its own layers") {
    // Nemotron-H-8B, bf16, one sequence of 2048 tokens, no recomputation (T = 2048, hidden 4096).
    // Mamba2 block (MambaSplitConv1dScanCombinedFn): in_proj input 2 * 2048 * 4096 = 16,777,216, zxbcdt
    // 2 * 2048 * 18560 = 76,021,760, out_x 2 * 2048 * 8192 = 33,554,432, rstd 4 * 2048 * 8 = 65,536:
    // 126,418,944 B on 24 layers. MLP block: up_proj's input 2 * 2048 * 4096 = 16,777,216, relu2's saved
    // input and down_proj's input 2 * 2048 * 21504 = 88,080,384 each: 192,937,984 B on 24 layers. One
    // norm input 2 * 2048 * 4096 on each of the 52 layers.
    const Estimate e = estimate_ok(train("nemotron-h-8b-base-8k.json"));
    CHECK(bytes_of(e, "act.mamba") == 24 * 126418944.0);
    CHECK(bytes_of(e, "act.mlp") == 24 * 192937984.0);
    CHECK(bytes_of(e, "act.norms") == 52 * 2.0 * 2048 * 4096);
    const Component* a = find(e, "act.attention");
    REQUIRE(a != nullptr);
    CHECK(std::string(a->formula()).find("L_attn") != std::string::npos);
    CHECK(std::string(find(e, "act.mlp")->formula()).find("L_mlp") != std::string::npos);
}

TEST_CASE("nemotron-h: config and scenario errors name the field") {
    std::string text = text_of("nvidia-nemotron-nano-9b-v2.json");
    const std::string pattern = "\"M-M-M-MM-";
    std::string short_list = text;
    short_list.replace(short_list.find(pattern), pattern.size(), "\"M-M-MM-");  // 54 blocks for 56 layers
    Result<ModelSpec> r = import_hf_config(short_list);
    REQUIRE_FALSE(r.ok());
    CHECK(r.errors.front().field == "hybrid_override_pattern");
    CHECK(r.errors.front().message.find("56") != std::string::npos);
    std::string odd = text;
    odd.replace(odd.find(pattern), pattern.size(), "\"M-M-X-MM-");
    r = import_hf_config(odd);
    REQUIRE_FALSE(r.ok());
    CHECK(r.errors.front().field == "hybrid_override_pattern");
    CHECK(r.errors.front().message.find("'X'") != std::string::npos);
    // The scenario carries the list; a list of the wrong length or with an unknown character is refused.
    Scenario s;
    s.mode = Mode::Infer;
    s.model = config("nvidia-nemotron-nano-9b-v2.json");
    for (const ModelSpec& back : round_trips(s.model)) {
        CHECK(back.ssm == s.model.ssm);
        CHECK(back.ssm.layer_list.size() == 56);
    }
    for (const char* bad : {"m-m", "m-x-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-m-"}) {
        INFO(bad);
        Scenario b = s;
        b.model.ssm.layer_list = bad;
        CHECK(has_error(estimate(b, Detail::NumbersOnly), "model.ssm.layer_list", "one character per layer"));
    }
}

TEST_CASE("nemotron-h: MoE blocks ('E') are routed experts alone, with the shared expert and router bias") {
    // A three-block config in the shape of Nemotron 3 Nano's (the sizes its public tests use): hidden 2688,
    // pattern "ME*", 128 experts of 1856, top 6, one shared expert of 3712.
    const std::string text = R"({"model_type": "nemotron_h", "hidden_size": 2688, "num_hidden_layers": 3,
        "num_attention_heads": 32, "num_key_value_heads": 2, "head_dim": 128, "vocab_size": 131072,
        "hybrid_override_pattern": "ME*", "mamba_num_heads": 64, "mamba_head_dim": 64, "ssm_state_size": 128,
        "n_groups": 8, "conv_kernel": 4, "n_routed_experts": 128, "num_experts_per_tok": 6,
        "moe_intermediate_size": 1856, "moe_shared_expert_intermediate_size": 3712, "intermediate_size": 1856})";
    Result<ModelSpec> r = import_hf_config(text);
    for (const auto& e : r.errors) INFO(to_string(e));
    REQUIRE(r.ok());
    const ParamCounts p = count_params(*r.value);
    // The E block (NemotronHMoE): 128 experts of up and down 1856 * 2688, the router 128 * 2688 and its
    // e_score_correction_bias 128, the shared NemotronHMLP up and down 3712 * 2688: 1,297,465,472.
    const int64_t experts = 128 * 2 * 1856LL * 2688, router = 128 * 2688LL + 128, shared = 2 * 3712LL * 2688;
    CHECK(p.per_layer[1].mlp == experts + router + shared);
    CHECK(p.per_layer[1].mlp == 1297465472LL);
    CHECK(p.per_layer[1].ssm + p.per_layer[1].attention == 0);
    CHECK(p.per_layer[1].active_mlp == 6 * 2 * 1856LL * 2688 + router + shared);
    CHECK(p.per_layer[0].mlp == 0);  // the Mamba block has no MLP of its own
    CHECK(p.per_layer[2].mlp == 0);
    // Mixing dense ('-') and MoE ('E') blocks is refused by name.
    std::string mixed = text;
    mixed.replace(mixed.find("\"ME*\""), 5, "\"ME-\"");
    r = import_hf_config(mixed);
    REQUIRE_FALSE(r.ok());
    CHECK(r.errors.front().field == "hybrid_override_pattern");
}

// ---- Granite-4.0-H: a Mamba2 or attention mixer, then the shared MLP and the experts, on every layer ----

TEST_CASE("granite-4.0-h: Granite-4.0-H-Tiny and -1B counted by hand from GraniteMoeHybrid's modules") {
    const ModelSpec tiny = config("granite-4.0-h-tiny.json");
    CHECK(tiny.family == "Granite-4.0-H");
    CHECK(tiny.position == PositionKind::None);  // position_embedding_type absent: no rotary embedding
    // Hidden 1536. Mamba2 mixer (d_inner 2 * 1536 = 3072, 48 heads, 1 group of d_state 128): in_proj
    // (2 * 3072 + 2 * 128 + 48) * 1536 = 9,904,128; conv1d (3072 + 256) * 4 + bias 3328; dt_bias, A_log,
    // D 3 * 48; norm 3072; out_proj 1536 * 3072: 14,642,576. Attention (12 heads of 128, 4 kv heads):
    // q and o 1536 * 1536 each, k and v 512 * 1536 each: 6,291,456. MoE: 64 experts input_linear
    // [2 * 512, 1536] + output_linear [1536, 512] = 3 * 512 * 1536 each, router 64 * 1536, shared MLP
    // 3 * 1024 * 1536: 155,811,840; a token uses 6 experts. Two norms per layer; 36 Mamba and 4 attention
    // layers (5, 15, 25, 35); tied 100352 * 1536 embedding; final norm.
    const int64_t mamba = 9904128LL + 3328 * 4 + 3328 + 3 * 48 + 3072 + 1536LL * 3072;
    CHECK(mamba == 14642576LL);
    const int64_t attention = 2 * 1536LL * 1536 + 2 * 512LL * 1536;
    const int64_t moe = 64 * 3 * 512LL * 1536 + 64 * 1536LL + 3 * 1024LL * 1536;
    const int64_t moe_active = 6 * 3 * 512LL * 1536 + 64 * 1536LL + 3 * 1024LL * 1536;
    const int64_t outside = 100352LL * 1536 + 1536;
    const ParamCounts p = count_params(tiny);
    CHECK(p.total == 36 * mamba + 4 * attention + 40 * (moe + 2 * 1536) + outside);
    CHECK(p.total == 6939037248LL);
    CHECK(p.active_per_token == 36 * mamba + 4 * attention + 40 * (moe_active + 2 * 1536) + outside);
    CHECK(std::llround(static_cast<double>(p.total) / 1e9) == 7);             // the card: 7B parameters
    CHECK(std::llround(static_cast<double>(p.active_per_token) / 1e9) == 1);  // 1B active
    CHECK(p.per_layer[5].attention == attention);
    CHECK(p.per_layer[5].mlp == moe);
    CHECK(p.per_layer[0].ssm == mamba);
    CHECK(p.per_layer[0].mlp == moe);
    for (int64_t i = 0; i < tiny.layers; ++i) {
        INFO("layer " << i);
        CHECK(layer_pattern(tiny).ssm(i) == (i % 10 != 5));
    }
    // Granite-4.0-H-1B: no experts, the shared MLP of 4096 alone (3 * 4096 * 1536 = 18,874,368).
    const ParamCounts d = count_params(config("granite-4.0-h-1b.json"));
    CHECK(d.total == 36 * mamba + 4 * attention + 40 * (3 * 4096LL * 1536 + 2 * 1536) + outside);
    CHECK(d.total == 1461538368LL);
    CHECK(d.active_per_token == d.total);
}

TEST_CASE("granite-4.0-h: the Small's published sizes give the Hub's count") {
    // Granite-4.0-H-Small's config (a public worked example quotes its size fields; the Mamba heads,
    // head width and groups are GraniteMoeHybridConfig's defaults 128, auto = 64, 1): hidden 4096, 40
    // layers of which 36 Mamba and 4 attention, 32 heads and 8 kv heads, 72 experts of 768 (top 10), a
    // shared MLP of 1536, tied 100352 vocabulary. Where the 4 attention layers sit does not change the
    // count, so the Tiny's list stands in for the Small's.
    nlohmann::json c = nlohmann::json::parse(text_of("granite-4.0-h-tiny.json"));
    c["hidden_size"] = 4096;
    c["num_attention_heads"] = 32;
    c["num_key_value_heads"] = 8;
    c["num_local_experts"] = 72;
    c["num_experts_per_tok"] = 10;
    c["intermediate_size"] = 768;
    c["shared_intermediate_size"] = 1536;
    c.erase("mamba_n_heads");
    c.erase("mamba_d_head");
    c.erase("mamba_n_groups");
    Result<ModelSpec> r = import_hf_config(c.dump());
    for (const auto& e : r.errors) INFO(to_string(e));
    REQUIRE(r.ok());
    CHECK(count_params(*r.value).total == 32207337984LL);  // the Hub's safetensors count (kvfit's registry)
}

TEST_CASE("granite-4.0-h: KV on its 4 attention layers, the state on the 36 Mamba layers, and errors named") {
    // Tiny under transformers, 4096 tokens: KV 2 * 4 kv heads * 128 * 2 B = 2048 B per token and attention
    // layer, 4 * 2048 * 4096 = 33,554,432 B. State per Mamba layer: conv (3072 + 256) * 4 = 13,312 and ssm
    // 48 * 64 * 128 = 393,216, bf16: 813,056 B.
    const Estimate t = estimate_ok(infer("granite-4.0-h-tiny.json", Engine::Transformers, 1, 4096));
    CHECK(bytes_of(t, "kv_cache") == 33554432.0);
    CHECK(bytes_of(t, "ssm_state") == 36 * 813056.0);
    std::string bad = text_of("granite-4.0-h-tiny.json");
    bad.replace(bad.find("\"attention\""), 11, "\"mlp\"");
    Result<ModelSpec> r = import_hf_config(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.errors.front().field == "layer_types");
    CHECK(r.errors.front().message.find("[5]") != std::string::npos);
}

TEST_CASE("nemotron-h and granite-4.0-h: their GGUF files' per-layer arrays name each layer") {
    // A GGUF header of `arch`: whole-number keys, the per-layer head_count_kv (and feed_forward_length)
    // arrays, an output.weight tensor when untied; read back through gguf_hf_config and the config import.
    const auto model_of = [](const std::string& arch, const GgufKeys& keys, const std::vector<std::pair<const char*, std::vector<int32_t>>>& arrays,
                             uint64_t output_bytes) {
        vl::test::GgufWriter w;
        w.string("general.architecture", arch);
        for (const auto& [key, value] : keys) w.u32(arch + "." + key, value);
        for (const auto& [key, values] : arrays) w.i32s(arch + "." + key, values);
        if (output_bytes > 0) w.tensor("output.weight", {1, 1}, 1, output_bytes);
        Result<GgufHeader> h = read_gguf_header(w.header());
        REQUIRE(h.ok());
        Result<std::string> c = gguf_hf_config(*h);
        for (const auto& e : c.errors) INFO(to_string(e));
        REQUIRE(c.ok());
        Result<ModelSpec> m = import_hf_config(*c.value);
        for (const auto& e : m.errors) INFO(to_string(e));
        REQUIRE(m.ok());
        return *m.value;
    };
    // The keys convert_hf_to_gguf writes for NVIDIA-Nemotron-Nano-9B-v2 [llama-cpp-code]: head_count_kv
    // 8 on the 4 attention blocks, feed_forward_length 15680 on the 25 MLP blocks, both 0 on a Mamba2
    // block. The model is the 8,888,227,328 of its safetensors again (an output.weight tensor: untied).
    const std::string pattern = "M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-";
    std::vector<int32_t> kv, ff;
    for (char c : pattern) {
        kv.push_back(c == '*' ? 8 : 0);
        ff.push_back(c == '-' ? 15680 : 0);
    }
    const ModelSpec nano = model_of("nemotron_h",
                                    {{"embedding_length", 4480}, {"block_count", 56}, {"attention.head_count", 40}, {"attention.key_length", 128},
                                     {"ssm.conv_kernel", 4}, {"ssm.state_size", 128}, {"ssm.group_count", 8}, {"ssm.time_step_rank", 128},
                                     {"ssm.inner_size", 10240}, {"vocab_size", 131072}},
                                    {{"attention.head_count_kv", kv}, {"feed_forward_length", ff}}, 4480ULL * 131072 * 2);
    CHECK(count_params(nano).total == 8888227328LL);
    CHECK(layer_pattern(nano).attention_count(0, 56) == 4);
    // Granite-4.0-H-Tiny converted: head_count_kv 4 on layers 5, 15, 25, 35; 64 experts of 512 (top 6), a
    // shared MLP of 1024; tied (no output.weight): the 6,939,037,248 of its config.
    std::vector<int32_t> gkv;
    for (int i = 0; i < 40; ++i) gkv.push_back(i % 10 == 5 ? 4 : 0);
    const ModelSpec tiny = model_of("granitehybrid",
                                    {{"embedding_length", 1536}, {"block_count", 40}, {"attention.head_count", 12}, {"feed_forward_length", 512},
                                     {"expert_count", 64}, {"expert_used_count", 6}, {"expert_shared_feed_forward_length", 1024},
                                     {"ssm.conv_kernel", 4}, {"ssm.state_size", 128}, {"ssm.group_count", 1}, {"ssm.time_step_rank", 48},
                                     {"ssm.inner_size", 3072}, {"vocab_size", 100352}},
                                    {{"attention.head_count_kv", gkv}}, 0);
    CHECK(count_params(tiny).total == 6939037248LL);
    CHECK(layer_pattern(tiny).ssm(4));
    CHECK_FALSE(layer_pattern(tiny).ssm(5));
}

// ---- Falcon-H1: attention and a Mamba2 mixer side by side on every layer, then an MLP --------------------

TEST_CASE("falcon-h1: 0.5B, 1.5B and 7B counted by hand from FalconH1DecoderLayer's modules") {
    // Every layer: LlamaAttention (q, k, v, o without biases), FalconH1Mixer (Mamba2Mixer's tensors, d_inner =
    // mamba_d_ssm), the gated LlamaMLP, input_layernorm and pre_ff_layernorm; untied embedding and lm_head,
    // final_layernorm [transformers-code].
    // 0.5B (hidden 1024): attention q and o 8 * 64 * 1024 = 524,288 each, k and v 2 * 64 * 1024 = 131,072
    // each: 1,310,720. Mixer (d_inner 1536, 24 heads, 1 group of d_state 128): in_proj (2 * 1536 + 2 * 128 +
    // 24) * 1024 = 3,432,448; conv1d (1536 + 256) * 4 + bias 1792 = 8,960; dt_bias, A_log, D 3 * 24; no
    // gated norm (mamba_rms_norm false); out_proj 1024 * 1536 = 1,572,864: 5,014,344. MLP 3 * 2048 * 1024 =
    // 6,291,456. Norms 2 * 1024. 36 layers; 32784 * 1024 twice; final norm 1024.
    const ModelSpec half = config("falcon-h1-0.5b.json");
    CHECK(half.family == "Falcon-H1");
    CHECK(half.ssm.kind == SsmKind::Mamba2);
    CHECK(half.ssm.parallel_attention);
    CHECK_FALSE(half.ssm.gated_norm);
    CHECK(half.position == PositionKind::Rotary);
    const int64_t attention = 2 * 524288LL + 2 * 131072LL;
    const int64_t mamba = 3432448LL + 8960 + 3 * 24 + 1572864LL;
    CHECK(mamba == 5014344LL);
    const int64_t total = 36 * (attention + mamba + 6291456LL + 2 * 1024) + 2 * 32784LL * 1024 + 1024;
    CHECK(total == 521411104LL);  // the published count (SOURCES.md falcon-h1-0.5b)
    const ParamCounts p = count_params(half);
    CHECK(p.total == 521411104LL);
    CHECK(p.active_per_token == p.total);
    for (size_t i : {size_t{0}, size_t{35}}) {
        INFO("layer " << i);
        CHECK(p.per_layer[i].attention == attention);
        CHECK(p.per_layer[i].ssm == mamba);
        CHECK(p.per_layer[i].mlp == 6291456LL);
        CHECK(p.per_layer[i].norms == 2048);
    }
    const LayerPattern lp = layer_pattern(half);
    CHECK(lp.attention_count(0, 36) == 36);
    CHECK(lp.ssm_count(0, 36) == 36);
    CHECK(lp.mlp_count(0, 36) == 36);

    // 1.5B (hidden 2048, head_dim 128): attention q and o 1024 * 2048 each, k and v 256 * 2048 each:
    // 5,242,880. Mixer (d_inner 3072 in 48 heads of 64, d_state 256): in_proj (6144 + 512 + 48) * 2048 =
    // 13,729,792; conv1d 3584 * 4 + 3584; 3 * 48; the gated norm 3072 (mamba_rms_norm true); out_proj 2048 *
    // 3072 = 6,291,456: 20,042,384. MLP 3 * 4608 * 2048 = 28,311,552. 24 layers; 65537 * 2048 twice.
    const int64_t mamba15 = 13729792LL + 3584 * 5 + 3 * 48 + 3072 + 6291456LL;
    CHECK(mamba15 == 20042384LL);
    const int64_t total15 = 24 * (5242880LL + mamba15 + 28311552LL + 2 * 2048) + 2 * 65537LL * 2048 + 2048;
    CHECK(total15 == 1554863488LL);  // the published count (SOURCES.md falcon-h1-1.5b)
    CHECK(count_params(config("falcon-h1-1.5b.json")).total == total15);

    // 7B (hidden 3072): attention q and o 1536 * 3072 each, k and v 256 * 3072 each: 11,010,048. Mixer
    // (d_inner 3072 in 24 heads of 128, d_state 256): in_proj (6144 + 512 + 24) * 3072 = 20,520,960; conv1d
    // 3584 * 5; 3 * 24; norm 3072; out_proj 3072 * 3072 = 9,437,184: 29,979,208. MLP 3 * 12288 * 3072 =
    // 113,246,208. 44 layers; 130048 * 3072 twice.
    const int64_t mamba7 = 20520960LL + 3584 * 5 + 3 * 24 + 3072 + 9437184LL;
    CHECK(mamba7 == 29979208LL);
    const int64_t total7 = 44 * (11010048LL + mamba7 + 113246208LL + 2 * 3072) + 2 * 130048LL * 3072 + 3072;
    CHECK(total7 == 7585648736LL);  // the published count (SOURCES.md falcon-h1-7b)
    CHECK(count_params(config("falcon-h1-7b.json")).total == total7);
}

TEST_CASE("falcon-h1: the mixer's own biases and its width follow their config keys") {
    // in_proj's bias is mamba_proj_bias (3352 rows on 0.5B), out_proj's projectors_bias (1024); without
    // mamba_d_ssm the width is mamba_expand * hidden_size (2 * 1024 = 2048, here in 32 heads of 64: in_proj
    // grows by 2 * 512 + 8 rows, conv1d by 512 channels, dt_bias, A_log and D by 8 heads, out_proj by 512
    // columns); the gated norm adds d_inner (1536).
    const std::string text = text_of("falcon-h1-0.5b.json");
    const int64_t base = count_params(config("falcon-h1-0.5b.json")).total;
    const auto total_with = [&](const std::string& key, const std::string& value) {
        nlohmann::json c = nlohmann::json::parse(text);
        if (value.empty()) c.erase(key);
        else c[key] = nlohmann::json::parse(value);
        Result<ModelSpec> r = import_hf_config(c.dump());
        for (const auto& e : r.errors) INFO(to_string(e));
        REQUIRE(r.ok());
        return count_params(*r.value).total;
    };
    CHECK(total_with("mamba_proj_bias", "true") - base == 36 * 3352LL);
    CHECK(total_with("projectors_bias", "true") - base == 36 * 1024LL);
    CHECK(total_with("mamba_rms_norm", "true") - base == 36 * 1536LL);
    nlohmann::json wide = nlohmann::json::parse(text);
    wide.erase("mamba_d_ssm");
    wide["mamba_d_head"] = "auto";
    wide["mamba_n_heads"] = 32;
    Result<ModelSpec> r = import_hf_config(wide.dump());
    for (const auto& e : r.errors) INFO(to_string(e));
    REQUIRE(r.ok());
    CHECK(r.value->ssm.inner == 2048);
    CHECK(count_params(*r.value).total - base == 36 * ((2 * 512 + 8) * 1024LL + 512 * 5 + 3 * 8 + 1024LL * 512));
}

TEST_CASE("falcon-h1: KV and the Mamba2 state on every layer") {
    // 0.5B under transformers, 4096 tokens: KV 2 * 2 kv heads * 64 * 2 B = 512 B per token and layer, on all
    // 36 layers: 36 * 512 * 4096 = 75,497,472 B. State per layer: conv over x, B and C (1536 + 2 * 128) * 4
    // = 7,168 and ssm 24 heads * 64 * 128 = 196,608, bf16: 407,552 B, on all 36 layers.
    const Estimate t = estimate_ok(infer("falcon-h1-0.5b.json", Engine::Transformers, 1, 4096));
    CHECK(bytes_of(t, "kv_cache") == 75497472.0);
    CHECK(bytes_of(t, "ssm_state") == 36 * 407552.0);
    // llama.cpp: d_conv - 1 = 3 columns, F32: (3 * 1792 + 196608) * 4 = 807,936 B per layer; KV f16.
    const Estimate l = estimate_ok(infer("falcon-h1-0.5b.json", Engine::LlamaCpp, 1, 4096));
    CHECK(bytes_of(l, "ssm_state") == 36 * 807936.0);
    CHECK(bytes_of(l, "kv_cache") == 75497472.0);
}

TEST_CASE("falcon-h1: training keeps attention's and the Mamba2 kernel's activations on every layer") {
    // 0.5B, bf16, one sequence of 2048 tokens (T = 2048, hidden 1024). The mixer (MambaSplitConv1dScanCombinedFn
    // without rmsnorm_weight: rstd is None): in_proj's input 2 * 2048 * 1024 = 4,194,304, zxbcdt 2 * 2048 *
    // 3352 = 13,729,792, out_x 2 * 2048 * 1536 = 6,291,456: 24,215,552 B on each of the 36 layers.
    const Estimate e = estimate_ok(train("falcon-h1-0.5b.json"));
    CHECK(bytes_of(e, "act.mamba") == 36 * 24215552.0);
    // 1.5B keeps the gated norm's fp32 rstd, 4 * 2048 * 1 group: 2 * 2048 * 2048 + 2 * 2048 * 6704 + 2 * 2048 *
    // 3072 + 8192 = 48,439,296 B on each of the 24 layers.
    CHECK(bytes_of(estimate_ok(train("falcon-h1-1.5b.json")), "act.mamba") == 24 * 48439296.0);
    // The attention beside the mixer keeps what a transformer layer's attention keeps: the same model
    // without its mixers stores the same attention activations, on the same 36 layers.
    Scenario plain = train("falcon-h1-0.5b.json");
    plain.model.ssm = SsmSpec{};
    const Estimate t = estimate_ok(plain);
    CHECK(bytes_of(e, "act.attention") == bytes_of(t, "act.attention"));
    CHECK(bytes_of(e, "act.attention") > 0);
    CHECK(std::string(find(e, "act.attention")->formula()).find("L_attn") != std::string::npos);
}

TEST_CASE("falcon-h1: config and scenario errors name the field") {
    std::string text = text_of("falcon-h1-0.5b.json");
    std::string bad = text;
    bad.replace(bad.find("\"mamba_d_head\": 64"), 18, "\"mamba_d_head\": 48");
    Result<ModelSpec> r = import_hf_config(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.errors.front().field == "mamba_d_head");
    CHECK(r.errors.front().message.find("mamba_d_ssm (1536") != std::string::npos);
    // The scenario carries the new flags; attention beside the mixer with attention-only layers too is refused.
    Scenario s;
    s.mode = Mode::Infer;
    s.model = config("falcon-h1-0.5b.json");
    for (const ModelSpec& back : round_trips(s.model)) {
        CHECK(back.ssm == s.model.ssm);
        CHECK(back.ssm.parallel_attention);
        CHECK_FALSE(back.ssm.gated_norm);
    }
    Scenario periodic = s;
    periodic.model.ssm.attn_period = 4;
    CHECK(has_error(estimate(periodic, Detail::NumbersOnly), "model.ssm.parallel_attention", "attn_period must be 0"));
    // Without heads the attention beside the mixer has no shape: refused by name.
    Scenario headless = s;
    headless.model.heads = headless.model.kv_heads = 0;
    CHECK(has_error(estimate(headless, Detail::NumbersOnly), "model.num_attention_heads", "must be > 0"));
}

TEST_CASE("falcon-h1: a falcon-h1 GGUF file's metadata and tensors are its model") {
    // The keys convert_hf_to_gguf writes for Falcon-H1-0.5B [llama-cpp-code], an output.weight tensor (untied):
    // the 521,411,104 of the checkpoint. A blk.0.ssm_norm.weight tensor is the gated norm (mamba_rms_norm):
    // 36 * 1536 more; blk.0.ssm_out.bias out_proj's bias (projectors_bias): 36 * 1024 more.
    const auto model_of = [](const std::vector<std::pair<const char*, uint64_t>>& tensors) {
        vl::test::GgufWriter w;
        w.string("general.architecture", "falcon-h1");
        const std::vector<std::pair<const char*, uint32_t>> keys = {
            {"embedding_length", 1024}, {"block_count", 36}, {"attention.head_count", 8}, {"attention.head_count_kv", 2},
            {"attention.key_length", 64}, {"feed_forward_length", 2048}, {"ssm.inner_size", 1536}, {"ssm.state_size", 128},
            {"ssm.conv_kernel", 4}, {"ssm.time_step_rank", 24}, {"ssm.group_count", 1}, {"vocab_size", 32784}};
        for (const auto& [key, value] : keys) w.u32(std::string("falcon-h1.") + key, value);
        w.tensor("output.weight", {1024, 32784}, 1, 1024ULL * 32784 * 2);  // F16
        for (const auto& [name, width] : tensors) w.tensor(name, {width}, 0, width * 4);  // F32 vectors
        Result<GgufHeader> h = read_gguf_header(w.header());
        REQUIRE(h.ok());
        Result<std::string> c = gguf_hf_config(*h);
        for (const auto& e : c.errors) INFO(to_string(e));
        REQUIRE(c.ok());
        Result<ModelSpec> m = import_hf_config(*c.value);
        for (const auto& e : m.errors) INFO(to_string(e));
        REQUIRE(m.ok());
        return *m.value;
    };
    const ModelSpec plain = model_of({});
    CHECK(plain.family == "Falcon-H1");
    CHECK(count_params(plain).total == 521411104LL);
    CHECK(count_params(model_of({{"blk.0.ssm_norm.weight", 1536}})).total == 521411104LL + 36 * 1536LL);
    CHECK(count_params(model_of({{"blk.0.ssm_out.bias", 1024}})).total == 521411104LL + 36 * 1024LL);
}

// ---- LoRA and QLoRA on state-space and hybrid models (issue 18 item 1) ---------------------------------------

namespace {
// LoRA (or QLoRA) of rank r on the named modules, bf16 mixed precision with fp32 adapters (PEFT's default), one
// sequence of 2048 tokens, no recomputation.
Scenario lora(const std::string& file, unsigned targets, int64_t r = 8, FineTuneMethod method = FineTuneMethod::LoRA) {
    Scenario t = train(file);
    t.mode = Mode::FineTune;
    t.finetune.method = method;
    t.finetune.lora_rank = r;
    t.finetune.lora_targets = targets;
    return t;
}
}  // namespace

TEST_CASE("ssm lora: adapter counts on the Mamba mixer's linears come from the tensor table") {
    // LoRA adds r * (in + out) per adapted nn.Linear [lora2021] [peft-code]. Falcon-H1-0.5B, r = 8, every linear PEFT
    // accepts on falcon_h1 (all-linear less out_proj): q [512, 1024] 8 * 1536 = 12,288, k and v [128, 1024] 8 * 1152 =
    // 9,216 each, o [1024, 512] 12,288; the mixer's in_proj [3352, 1024] 8 * 4376 = 35,008; gate, up [2048, 1024] and
    // down [1024, 2048] 8 * 3072 = 24,576 each. 151,744 per layer, 36 layers: 5,462,784.
    const ModelSpec falcon = config("falcon-h1-0.5b.json");
    const unsigned accepted = kLoraAllLinear & ~static_cast<unsigned>(kLoraOutProj);
    CHECK(lora_trainable_params(falcon, 8, accepted) == 36 * 151744LL);
    CHECK(lora_trainable_params(falcon, 8, kLoraInProj) == 36 * 35008LL);
    // Mamba2 has no x_proj or dt_proj: "all-linear" finds its in_proj and out_proj (out_proj [1024, 1536] 8 * 2560 = 20,480)
    CHECK(lora_trainable_params(falcon, 8, kLoraXProj | kLoraDtProj) == 0);
    CHECK(lora_trainable_params(falcon, 8, kLoraAllLinear) == 36 * (151744LL + 20480));
    CHECK(lora_targets_present(falcon) == (kLoraAttention | kLoraMlp | kLoraInProj | kLoraOutProj));  // no router, no Gated DeltaNet

    // state-spaces/mamba-2.8b-hf (hidden 2560, d_inner 5120, d_state 16, dt_rank 160), r = 8: in_proj [10240, 2560]
    // 8 * 12800 = 102,400; x_proj [192, 5120] 8 * 5312 = 42,496; dt_proj [5120, 160] 8 * 5280 = 42,240; 64 layers.
    const ModelSpec mamba = config("mamba-2.8b-hf.json");
    CHECK(lora_trainable_params(mamba, 8, kLoraInProj | kLoraXProj | kLoraDtProj) == 64 * 187136LL);
    CHECK(lora_targets_present(mamba) == kLoraSsm);

    // Jamba-1.5-Mini: the mixer's linears on its 28 Mamba layers only (attention on 4 of 32), d_inner 8192, dt_rank 256:
    // in_proj [16384, 4096] 8 * 20480 = 163,840; x_proj [288, 8192] 8 * 8480 = 67,840; dt_proj [8192, 256] 8 * 8448 =
    // 67,584; out_proj [4096, 8192] 8 * 12288 = 98,304. q and v only on the 4 attention layers: 8 * (4096 + 4096) +
    // 8 * (4096 + 1024) = 106,496.
    const ModelSpec jamba = config("ai21-jamba-1.5-mini.json");
    CHECK(lora_trainable_params(jamba, 8, kLoraOutProj) == 28 * 98304LL);
    CHECK(lora_trainable_params(jamba, 8, kLoraSsm) == 28 * 397568LL);
    CHECK(lora_trainable_params(jamba, 8, kLoraQ | kLoraV) == 4 * 106496LL);

    // The estimate trains exactly those: fp32 adapters of Falcon-H1-0.5B, 4 bytes each.
    const Estimate e = estimate_ok(lora("falcon-h1-0.5b.json", accepted));
    CHECK(bytes_of(e, "lora.weights") == 4.0 * 36 * 151744);
}

TEST_CASE("ssm lora: what is refused under adapters is refused by name, the rest is accepted") {
    // PEFT raises ValueError for an out_proj target on falcon_h1, mamba, mamba2, nemotron_h (the fused kernel reads
    // out_proj.weight), so all-linear is refused there [peft-issue-2274]
    Scenario f = lora("falcon-h1-0.5b.json", kLoraAllLinear);
    CHECK(has_error(estimate(f, Detail::NumbersOnly), "finetune.lora_targets", "out_proj"));
    f.finetune.lora_targets = kLoraAllLinear & ~static_cast<unsigned>(kLoraOutProj);
    CHECK(estimate(f, Detail::NumbersOnly).ok());
    // Mamba1's fused mamba_inner_fn takes x_proj and dt_proj weights directly: their adapters would never run
    Scenario m = lora("mamba-130m-hf.json", kLoraInProj | kLoraXProj | kLoraDtProj);
    m.train.ssm_kernels = SsmKernels::Fused;
    CHECK(has_error(estimate(m, Detail::NumbersOnly), "finetune.lora_targets", "never run"));
    m.train.ssm_kernels = SsmKernels::Torch;  // slow_forward calls each module
    CHECK(estimate(m, Detail::NumbersOnly).ok());
    // Jamba calls every projection itself: all-linear is fine with the kernels
    Scenario j = lora("ai21-jamba-1.5-mini.json", kLoraAllLinear);
    j.train.ssm_kernels = SsmKernels::Fused;
    j.train.seq_len = 512;
    CHECK(estimate(j, Detail::NumbersOnly).ok());
    // a target the model does not have
    Scenario none = lora("mamba-130m-hf.json", kLoraQ | kLoraV);
    CHECK(has_error(estimate(none, Detail::NumbersOnly), "finetune.lora_targets", "in_proj, x_proj, dt_proj, out_proj"));
    // Gated DeltaNet calls every projection as a module and fla's kernels take the projected tensors: all-linear is accepted
    Scenario g = lora("qwen3-next-80b-a3b-instruct.json", kLoraAllLinear);
    g.train.seq_len = 512;
    CHECK(estimate(g, Detail::NumbersOnly).ok());
    // what stays refused for any training of these models
    Scenario c = lora("falcon-h1-0.5b.json", kLoraInProj);
    c.parallel.cp = 2;
    c.parallel.dp = 2;
    CHECK(has_error(estimate(c, Detail::NumbersOnly), "parallel.cp", "state-space"));
}

TEST_CASE("ssm lora: QLoRA quantizes the mixer's linears, but not those the fused kernel reads directly") {
    // Falcon-H1-0.5B's nn.Linear weights per layer: attention 1,310,720, in_proj 3,432,448, out_proj 1,572,864, MLP
    // 6,291,456: 12,607,488, 36 layers 453,869,568 (conv1d, A_log, D, dt_bias and the norms are no Linear) [transformers-code].
    // Through the torch path every one is Linear4bit: NF4 0.5 B each 226,934,784 B; double-quantized constants
    // 1/64 + 1/4096 B each [qlora2023 §3]: 7,091,712 + 110,808; the other 67,541,536 parameters bf16.
    Scenario q = lora("falcon-h1-0.5b.json", kLoraInProj, 8, FineTuneMethod::QLoRA);
    const Estimate torch = estimate_ok(q);
    CHECK(bytes_of(torch, "weights.nf4") == 226934784.0);
    CHECK(bytes_of(torch, "weights.quant_constants") == 7091712.0 + 110808.0);
    CHECK(bytes_of(torch, "weights.frozen") == 2.0 * 67541536);
    // With the kernels out_proj stays bf16 (the recipes' llm_int8_skip_modules out_proj: the kernel's F.linear cannot read
    // a packed weight) [axolotl-issue-3951]: 36 * 11,034,624 = 397,246,464 quantized, 198,623,232 B; constants 6,206,976 +
    // 96,984; 124,164,640 parameters bf16.
    q.train.ssm_kernels = SsmKernels::Fused;
    const Estimate fused = estimate_ok(q);
    CHECK(bytes_of(fused, "weights.nf4") == 198623232.0);
    CHECK(bytes_of(fused, "weights.quant_constants") == 6206976.0 + 96984.0);
    CHECK(bytes_of(fused, "weights.frozen") == 2.0 * 124164640);
    CHECK(std::string(find(fused, "weights.nf4")->formula()).find("P_ssm_kernel_read") != std::string::npos);
}

TEST_CASE("ssm lora: a frozen Mamba mixer keeps what its input gradient needs, and the adapters' inputs") {
    // mamba-130m-hf with the kernels, LoRA r = 16 on in_proj (bf16 mixed precision, fp32 adapters: lora_A saves its
    // bf16 autocast copy of in_proj's input, 2 * 2048 * 768 B) [peft-code]. MambaInnerFn saves the same tensors
    // frozen or not (a custom Function) [mamba-ssm-code], so the mixer keeps what full training keeps: 22,675,456 B per
    // layer (the full-training test above). The adapter's own: lora_A's bf16 output 2 * 2048 * 16 per layer.
    Scenario k = lora("mamba-130m-hf.json", kLoraInProj, 16);
    k.train.ssm_kernels = SsmKernels::Fused;
    const Estimate fused = estimate_ok(k);
    CHECK(bytes_of(fused, "act.mamba") == 24 * 22675456.0);
    CHECK(bytes_of(fused, "act.lora") == 24 * 2.0 * 2048 * 16);

    // The torch path (slow_forward), adapters on in_proj, x_proj and dt_proj: a product with a frozen parameter (D,
    // conv1d's weight no, its input still) saves only the operand the input's gradient reads [pytorch-autograd-code].
    // Per layer (T = 2048, d_inner 1536, d_state 16, dt_rank 48, hidden 768; the Trainer's bf16 autocast over the bf16
    // base): in_proj's adapter input 2 * 2048 * 768 = 3,145,728; xz 12,582,912 (silu(gate) saves the gate's view); the
    // conv output silu saves 6,291,456; x_proj's adapter input (its bf16 cast of silu's output) 6,291,456; x_dbl 327,680
    // (C's matmul saves a view); dt_proj's adapter input 2 * 2048 * 48 = 196,608; softplus's fp32 input and output
    // (softplus is on autocast's fp32 list) 2 * 4 * 2048 * 1536 = 25,165,824; x.float() 12,582,912; B.float() 131,072;
    // discrete_A and discrete_B 402,653,184; the fp32 states and their bf16 casts 301,989,888; the bf16 gated sum and
    // silu(gate) 12,582,912; out_proj frozen saves nothing. 783,941,632 B.
    Scenario t = lora("mamba-130m-hf.json", kLoraInProj | kLoraXProj | kLoraDtProj, 16);
    const Estimate torch = estimate_ok(t);
    CHECK(bytes_of(torch, "act.mamba_torch") == 24 * 783941632.0);
    for (const char* part : {"x_proj_in", "dt_proj_in", "conv_out"})
        CHECK(std::string(find(torch, "act.mamba_torch")->formula()).find(part) != std::string::npos);
    // full training in pure bf16 (no autocast: softplus in bf16 12,582,912) keeps the conv output and its silu output
    // (x_proj's and D's operand) 12,582,912, out_proj's input 6,291,456, no dt_proj copy: 777,453,568 B
    t.mode = Mode::Train;
    t.train.precision = Precision::PureBF16;
    CHECK(bytes_of(estimate_ok(t), "act.mamba_torch") == 24 * 777453568.0);

    // Mamba2's torch_forward frozen (Mamba-Codestral-7B under bf16 autocast, in_proj adapted): the full-training sum
    // 2,058,878,976 B less the padded x (D's gradient) 67,108,864, the gated norm's normalized product (its weight's
    // gradient) 67,108,864 and out_proj's input 33,554,432: 1,891,106,816 B per layer.
    Scenario c = lora("mamba-codestral-7b-v0.1.json", kLoraInProj, 16);
    c.train.precision = Precision::AutocastBF16;
    CHECK(bytes_of(estimate_ok(c), "act.mamba_torch") == 64 * 1891106816.0);
}

TEST_CASE("ssm lora: the LoRA lever adapts a Mamba model's in_proj when the scenario's targets name no layer of it") {
    // mamba-2.8b-hf fully fine-tuned in bf16 with AdamW needs 16 B per parameter, 44 GB, beyond 24 GiB; PEFT's llama
    // default q_proj, v_proj names nothing in it, so the lever adapts the mixers' in_proj (what every mixer accepts).
    Scenario s = train("mamba-2.8b-hf.json");
    s.mode = Mode::FineTune;
    s.finetune.method = FineTuneMethod::Full;
    s.train.seq_len = 512;
    s.train.ssm_kernels = SsmKernels::Fused;
    s.gpu = {"24 GiB", 24.0 * 1024 * 1024 * 1024};
    const Estimate e = estimate(s, Detail::NumbersOnly);
    REQUIRE(e.ok());
    REQUIRE_FALSE(e.fits());
    const std::vector<Lever> ls = fit_levers(s, e, fit_answers(s, e));
    const auto it = std::find_if(ls.begin(), ls.end(), [](const Lever& l) { return l.id == "lora"; });
    REQUIRE(it != ls.end());
    CHECK(it->scenario.finetune.lora_targets == kLoraInProj);
}

TEST_CASE("ssm lora: a scenario file and a share link carry the Mamba targets by their PEFT names") {
    Scenario s = lora("falcon-h1-0.5b.json", kLoraInProj | kLoraQ);
    const std::string text = scenario_to_json(s);
    CHECK(text.find("\"in_proj\"") != std::string::npos);
    const Result<Scenario> back = scenario_from_json(text);
    REQUIRE(back.ok());
    CHECK(back.value->finetune.lora_targets == (kLoraInProj | kLoraQ));
    const Result<Scenario> link = decode_share_link(encode_share_link(s));
    REQUIRE(link.ok());
    CHECK(link.value->finetune.lora_targets == (kLoraInProj | kLoraQ));
    // "all-linear" is every target, the mixer's too; a name the format does not know is refused with the list
    s.finetune.lora_targets = kLoraAllLinear;
    CHECK(scenario_to_json(s).find("\"lora_targets\": \"all-linear\"") != std::string::npos);
    const Result<Scenario> bad = scenario_from_json(R"({"version": 1, "mode": "finetune", "finetune": {"lora_targets": ["mixer"]}})");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.errors.front().field == "finetune.lora_targets[0]");
    CHECK(bad.errors.front().message.find("in_proj, x_proj, dt_proj, out_proj") != std::string::npos);
}
