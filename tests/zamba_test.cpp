// Zyphra's Zamba2 hybrids (issue 18 item 1): a Mamba2 backbone whose "hybrid" layers first run one of num_mem_blocks
// shared transformer blocks (attention over concat(hidden, embeddings), a gated MLP), each invocation with its own linear
// and adapters. Imported from real config.json files (tests/data/configs/SOURCES.md); parameter counts are hand sums
// of the transformers modules [transformers-zamba2], checked against the published count; memory is derived by hand
// from Zamba2HybridDynamicCache's shapes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "config_files.h"
#include "component_lookup.h"
#include "estimate.h"
#include "model/hf_config.h"
#include "model/layer_tensors.h"
#include "model/presets.h"
#include "param_count.h"
#include "repo_files.h"
#include "scenario_json.h"
#include "planner/local.h"
#include "share_link.h"

using namespace vl;
using test::bytes_of;
using test::find;
using test::has_error;

namespace {
std::string text_of(const std::string& name) { return test::config_text(name); }
ModelSpec config(const std::string& name) { return test::imported_config(name); }

Scenario infer(const std::string& file, Engine engine, int64_t batch, int64_t context) {
    Scenario s;
    s.mode = Mode::Infer;
    s.model = config(file);
    s.infer.engine = engine;
    s.infer.weights = WeightFormat::BF16;
    s.infer.kv_dtype = KvDtype::BF16;
    s.infer.batch = batch;
    s.infer.context = s.infer.prompt = context;
    return s;
}

Estimate estimate_ok(const Scenario& s) {
    Estimate e = estimate(s, Detail::Full);
    for (const auto& f : e.errors) INFO(to_string(f));
    REQUIRE(e.ok());
    return e;
}

}  // namespace

TEST_CASE("zamba2: Zamba2-1.2B's config imports with its shared block, and counts exactly") {
    const ModelSpec m = config("zamba2-1.2b.json");
    CHECK(m.family == "Zamba2");
    CHECK(m.ssm.kind == SsmKind::Mamba2);
    CHECK(m.ssm.layer_list == "mmmmmhmmmmmhmmmmmhmmmmmhmmmmmhmmmmmhmm");
    CHECK(m.ssm.shared_blocks == 1);
    CHECK(m.ssm.adapter_rank == 128);
    CHECK(m.ssm.attn_adapters);
    CHECK(m.head_dim == 128);  // attention_head_dim = 2 * 2048 / 32
    CHECK(m.ssm.heads == 64);
    CHECK(m.ssm.inner == 4096);
    CHECK(m.position == PositionKind::Rotary);  // use_mem_rope
    CHECK(m.tied_embeddings);
    // Hand sum (hidden d 2048, vocab 32000):
    // A Mamba layer: in_proj (2 * 4096 + 2 * 1 * 128 + 64) * 2048 = 17,432,576; conv1d (4096 + 256) * 4 = 17,408 and its bias
    // 4,352; dt_bias, A_log, D 3 * 64; the gated norm 4,096; out_proj 2048 * 4096 = 8,388,608: 25,847,232; input_layernorm 2048.
    const int64_t mixer = 17432576LL + 17408 + 4352 + 3 * 64 + 4096 + 8388608LL;
    CHECK(mixer == 25847232LL);
    // Every hybrid invocation: linear 2048^2 = 4,194,304; q, k, v adapters 3 * (128 * 4096 + 4096 * 128) = 3,145,728; the
    // gate_up adapter 128 * 2048 + 16384 * 128 = 2,359,296.
    const int64_t invocation_attn = 4194304LL + 3145728LL, invocation_mlp = 2359296LL;
    // The shared block, once: q, k, v 4096 * 4096 each, o 2048 * 4096, gate_up 16384 * 2048, down 2048 * 8192, norms 4096 + 2048.
    const int64_t block_attn = 3 * 16777216LL + 8388608LL, block_mlp = 33554432LL + 16777216LL, block_norms = 6144;
    const int64_t total = 38 * (mixer + 2048) + 6 * (invocation_attn + invocation_mlp) + block_attn + block_mlp + block_norms +
                          32000LL * 2048 /* tied embedding */ + 2048 /* final_layernorm */;
    CHECK(total == 1215064704LL);  // the published count (SOURCES.md zamba2-1.2b)
    const ParamCounts p = count_params(m);
    CHECK(p.total == 1215064704LL);
    CHECK(p.lm_head == 0);
    CHECK(p.per_layer[0].ssm == mixer);
    CHECK(p.per_layer[0].attention == 0);
    CHECK(p.per_layer[0].mlp == 0);
    CHECK(p.per_layer[0].norms == 2048);
    // layer 5, the first hybrid layer, holds the block's weights; layer 11 runs the same block: its own tensors only
    CHECK(p.per_layer[5].ssm == mixer);
    CHECK(p.per_layer[5].attention == invocation_attn + block_attn);
    CHECK(p.per_layer[5].mlp == invocation_mlp + block_mlp);
    CHECK(p.per_layer[5].norms == 2048 + block_norms);
    CHECK(p.per_layer[11].attention == invocation_attn);
    CHECK(p.per_layer[11].mlp == invocation_mlp);
    CHECK(p.per_layer[11].norms == 2048);
    const LayerPattern lp = layer_pattern(m);
    CHECK(lp.ssm_count(0, 38) == 38);       // every layer keeps a Mamba2 state
    CHECK(lp.attention_count(0, 38) == 6);  // each hybrid layer's attention keeps its own KV
    CHECK(lp.mlp_count(0, 38) == 0);
}

TEST_CASE("zamba2: Zamba2-7B's config (Zyphra's own key names) imports with two blocks, no attention adapters") {
    const ModelSpec m = config("zamba2-7b.json");
    CHECK(m.ssm.shared_blocks == 2);
    CHECK_FALSE(m.ssm.attn_adapters);
    CHECK(m.ssm.adapter_rank == 128);  // lora_rank
    CHECK(m.ssm.heads == 112);         // d_inner 7168 / mamba_headdim 64
    CHECK(m.ssm.groups == 2);
    CHECK(m.ssm.state == 64);          // state_size
    CHECK(m.ffn == 14336);             // ffn_hidden_size
    CHECK(m.head_dim == 224);          // 2 * 3584 / 32, whatever kv_channels says
    CHECK(std::count(m.ssm.layer_list.begin(), m.ssm.layer_list.end(), kLayerMambaShared) == 13);
    // Hand sum (d 3584): a Mamba layer: in_proj (2 * 7168 + 2 * 2 * 64 + 112) * 3584 = 52,699,136; conv1d (7168 + 256) * 4 =
    // 29,696 + bias 7,424; 3 * 112; norm 7,168; out_proj 3584 * 7168 = 25,690,112; input_layernorm 3,584: 78,437,456 on 81 layers.
    // 13 invocations: linear 3584^2 = 12,845,056 and the gate_up adapter 128 * 3584 + 28672 * 128 = 4,128,768. Two blocks:
    // q, k, v 7168 * 7168 each, o 3584 * 7168, gate_up 28672 * 3584, down 3584 * 14336, norms 7168 + 3584: 333,982,208 each.
    const int64_t layer = 52699136LL + 29696 + 7424 + 3 * 112 + 7168 + 25690112LL + 3584;
    CHECK(layer == 78437456LL);
    const int64_t block = 3 * 51380224LL + 25690112LL + 102760448LL + 51380224LL + 10752;
    CHECK(block == 333982208LL);
    const int64_t total = 81 * layer + 13 * (12845056LL + 4128768LL) + 2 * block + 32000LL * 3584 + 3584;
    CHECK(total == 7356749648LL);  // the technical report's "7.4B" [zamba2-report]
    CHECK(count_params(m).total == total);
}

TEST_CASE("zamba2: every hybrid invocation keeps its own KV, the Mamba2 state is on every layer") {
    // Zamba2-1.2B under transformers, one sequence of 4096 tokens, bf16. Zamba2HybridDynamicCache keeps key_cache[layer_idx]
    // per hybrid layer: 2 * 32 kv heads * 128 * 2 B = 16,384 B per token on each of the 6 invocations: 6 * 16384 * 4096 =
    // 402,653,184 B. conv_states [1, 4096 + 2 * 128, 4] and ssm_states [1, 64, 64, 128] on all 38 layers:
    // (17,408 + 524,288) * 2 B = 1,083,392 B each [transformers-zamba2].
    const Estimate t = estimate_ok(infer("zamba2-1.2b.json", Engine::Transformers, 1, 4096));
    CHECK(bytes_of(t, "kv_cache") == 402653184.0);
    CHECK(bytes_of(t, "ssm_state") == 38 * 1083392.0);
    // The weights: every parameter once, bf16.
    double weights = 0;
    for (const Component& c : t.components)
        if (std::string(c.id).rfind("weights", 0) == 0) weights += c.bytes;
    CHECK(weights == 2 * 1215064704.0);
    // vLLM runs Zamba2 (vllm/model_executor/models/zamba2.py); llama.cpp has no Zamba architecture.
    const Estimate v = estimate_ok(infer("zamba2-1.2b.json", Engine::VLLM, 1, 4096));
    CHECK(v.total_bytes > 0);
    const Estimate l = estimate(infer("zamba2-1.2b.json", Engine::LlamaCpp, 1, 4096), Detail::NumbersOnly);
    CHECK(has_error(l, "infer.engine", "llama.cpp has no Zamba architecture"));
    Scenario pp = infer("zamba2-1.2b.json", Engine::Transformers, 1, 4096);
    pp.parallel.pp = 2;
    CHECK(has_error(estimate(pp, Detail::NumbersOnly), "parallel.pp", "shared transformer blocks"));
}

TEST_CASE("zamba2: the shared-block fields survive the scenario file and the share link") {
    const ModelSpec m = config("zamba2-1.2b.json");
    Scenario s;
    s.mode = Mode::Infer;
    s.model = m;
    for (JsonStyle style : {JsonStyle::Pretty, JsonStyle::Compact}) {
        Result<Scenario> back = scenario_from_json(scenario_to_json(s, style));
        REQUIRE(back.ok());
        CHECK(back.value->model == m);
    }
    Result<Scenario> linked = decode_share_link(encode_share_link(s));
    REQUIRE(linked.ok());
    CHECK(linked.value->model == m);
}

TEST_CASE("zamba2: bad shared-block fields are refused by name") {
    Scenario s;
    s.mode = Mode::Infer;
    s.model = config("zamba2-1.2b.json");
    Scenario none = s;
    none.model.ssm.shared_blocks = 0;
    CHECK(has_error(estimate(none, Detail::NumbersOnly), "model.ssm.shared_blocks", "must be at least 1"));
    Scenario unused = s;
    for (char& c : unused.model.ssm.layer_list)
        if (c == kLayerMambaShared) c = kLayerMamba;
    CHECK(has_error(estimate(unused, Detail::NumbersOnly), "model.ssm.shared_blocks", "no layer runs a shared block"));
    Scenario rankless = s;
    rankless.model.ssm.adapter_rank = 0;
    CHECK(has_error(estimate(rankless, Detail::NumbersOnly), "model.ssm.attn_adapters", "adapter_rank"));
    // a config whose layers_block_type names another kind
    nlohmann::json c = nlohmann::json::parse(text_of("zamba2-1.2b.json"));
    c["layers_block_type"][3] = "attention";
    Result<ModelSpec> r = import_hf_config(c.dump());
    REQUIRE_FALSE(r.ok());
    CHECK(r.errors[0].field == "layers_block_type");
    c = nlohmann::json::parse(text_of("zamba2-1.2b.json"));
    c.erase("layers_block_type");
    r = import_hf_config(c.dump());
    REQUIRE_FALSE(r.ok());
    CHECK(r.errors[0].field == "layers_block_type");
}

TEST_CASE("zamba2: training keeps each invocation's shared block activations beside the Mamba2 layers'") {
    // Zamba2-1.2B, bf16 mixed precision, one sequence of 2048 tokens, no recomputation, no dropout.
    Scenario t;
    t.mode = Mode::Train;
    t.model = config("zamba2-1.2b.json");
    t.train.precision = Precision::MixedBF16;
    t.train.micro_batch = 1;
    t.train.seq_len = 2048;
    t.train.recompute = Recompute::None;
    t.train.dropout = 0;
    const Estimate e = estimate_ok(t);
    CHECK(bytes_of(e, "act.mamba") > 0);  // the mixer on all 38 layers
    CHECK(std::string(find(e, "act.mamba")->formula()).find("L_ssm") != std::string::npos);
    const double shared = bytes_of(e, "act.shared_block");
    REQUIRE(shared > 0);
    // The q, k and v adapters add their r-wide middles: 6 invocations x 3 adapters x 2048 tokens x 128 x 2 B = 9,437,184 B.
    Scenario no_attn_adapters = t;
    no_attn_adapters.model.ssm.attn_adapters = false;
    CHECK(shared - bytes_of(estimate_ok(no_attn_adapters), "act.shared_block") == 6.0 * 3 * 2048 * 128 * 2);
    // Without adapters, an invocation keeps a dense gated MLP of the same sizes (what a Llama-style layer's act.mlp keeps), three
    // norms' inputs of width d (the 2d-wide input norm and pre_ff_layernorm: a layer's two norms keep 2 of them) and two more
    // d-wide linear inputs (q, k and v read 2d; linear's input): 2 * 2048 * 2048 * 2 B.
    Scenario bare = t;
    bare.model.ssm.attn_adapters = false;
    bare.model.ssm.adapter_rank = 0;
    Scenario dense = t;
    dense.model.ssm = SsmSpec{};
    dense.model.layers = 1;
    dense.model.norms_per_layer = 2;
    dense.model.head_dim = 64;
    const Estimate d = estimate_ok(dense);
    const double expected = 6 * (bytes_of(d, "act.mlp") + 1.5 * bytes_of(d, "act.norms") + 2.0 * 2048 * 2048 * 2);
    CHECK(bytes_of(estimate_ok(bare), "act.shared_block") == expected);
    // Full recomputation keeps the layer inputs only.
    Scenario full = t;
    full.train.recompute = Recompute::Full;
    CHECK(find(estimate_ok(full), "act.shared_block") == nullptr);
    // LoRA on the shared blocks is refused by name.
    Scenario lora = t;
    lora.mode = Mode::FineTune;
    lora.finetune.method = FineTuneMethod::LoRA;
    CHECK(has_error(estimate(lora, Detail::NumbersOnly), "finetune.method", "Zamba"));
}

TEST_CASE("zamba: Zamba v1 (ZambaConfig's defaults, Zamba-7B-v1's sizes) over Mamba1 with one shared block") {
    // A config of model_type zamba and nothing else takes ZambaConfig's defaults, the Zamba-7B-v1 sizes its docstring names:
    // hidden 3712, 76 layers, 16 heads of 2 * 3712 / 16 = 464, intermediate 14848, mamba_d_state 16, d_conv 4, expand 2,
    // dt_rank ceil(3712 / 16) = 232; hybrid layers 2 and 3 + i for i % 6 == 4: 2, 7, 13, ..., 73 (13).
    Result<ModelSpec> r = import_hf_config(R"({"model_type": "zamba", "architectures": ["ZambaForCausalLM"]})");
    for (const auto& e : r.errors) INFO(to_string(e));
    REQUIRE(r.ok());
    const ModelSpec& m = *r.value;
    CHECK(m.ssm.kind == SsmKind::Mamba1);
    CHECK(m.ssm.shared_blocks == 1);
    CHECK(m.ssm.adapter_rank == 0);
    CHECK(m.head_dim == 464);
    CHECK(m.ssm.dt_rank == 232);
    CHECK(m.position == PositionKind::None);
    CHECK(m.ssm.layer_list.substr(0, 14) == "mmhmmmmhmmmmmh");
    CHECK(std::count(m.ssm.layer_list.begin(), m.ssm.layer_list.end(), kLayerMambaShared) == 13);
    // Hand sum: a Mamba layer: in_proj 2 * 7424 * 3712 = 55,115,776; conv1d 7424 * 4 + bias 7424; x_proj_weight (232 + 32) * 7424
    // = 1,959,936; dt_proj_weight 7424 * 232 + bias 7424 = 1,729,792; A_log 7424 * 16 = 118,784; D 7424; out_proj 3712 * 7424 =
    // 27,557,888; input_layernorm 3712: 86,530,432 on 76 layers. 13 linears 3712^2 = 13,778,944. The block: q, k, v 7424 * 7424
    // each, o 3712 * 7424, gate, up, down 14848 * 3712 each, norms 7424 + 3712: 358,263,680. Tied embedding 32000 * 3712.
    const int64_t layer = 55115776LL + 7424 * 5 + 1959936LL + 1729792LL + 118784LL + 7424 + 27557888LL + 3712;
    CHECK(layer == 86530432LL);
    const int64_t block = 3 * 55115776LL + 27557888LL + 3 * 14848LL * 3712 + 7424 + 3712;
    CHECK(block == 358263680LL);
    const int64_t total = 76 * layer + 13 * 13778944LL + block + 32000LL * 3712 + 3712;
    CHECK(total == 7232490496LL);  // the Zamba paper's "7B" [zamba-report]
    CHECK(count_params(m).total == total);
    // transformers' ZambaHybridDynamicCache: KV on the 13 invocations, the Mamba1 state on all 76 layers; vLLM has no Zamba v1.
    Scenario s;
    s.mode = Mode::Infer;
    s.model = m;
    s.infer.engine = Engine::Transformers;
    s.infer.weights = WeightFormat::BF16;
    s.infer.kv_dtype = KvDtype::BF16;
    s.infer.batch = 1;
    s.infer.context = s.infer.prompt = 4096;
    // 2 * 16 kv heads * 464 * 2 B = 29,696 B per token on each of 13 invocations
    CHECK(bytes_of(estimate_ok(s), "kv_cache") == 13 * 29696.0 * 4096);
    s.infer.engine = Engine::VLLM;
    CHECK(has_error(estimate(s, Detail::NumbersOnly), "infer.engine", "not Zamba v1"));
}

TEST_CASE("zamba2: Run locally refuses llama.cpp and Ollama by name") {
    Scenario s;
    s.model = test::imported_config("zamba2-1.2b.json");
    s.local.gpus = {"rtx-4090"};
    s.local.ram_bytes = 64.0 * (1ull << 30);
    for (LocalEngine engine : {LocalEngine::LlamaCpp, LocalEngine::Ollama}) {
        s.local.engine = engine;
        s.local.weights = WeightFormat::GGUF_Q4_K_M;
        const LocalPlan p = plan_local(s);
        REQUIRE_FALSE(p.errors.empty());
        CHECK(p.errors.front().field == "local.engine");
        CHECK(p.errors.front().message.find("llama.cpp has no Zamba architecture") != std::string::npos);
        CHECK(p.errors.front().message.find("or vLLM") != std::string::npos);
    }
}
