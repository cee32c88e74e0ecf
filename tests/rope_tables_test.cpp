// vLLM's rotary cos/sin tables (core/inference/inference.cpp vllm_rope_rows): one table per distinct rotary configuration,
// its rows set by config.json's rope_scaling, its width by partial_rotary_factor. Sizes by hand from vLLM's
// rotary_embedding.py (docs/sources.md vllm-code); the real configs are tests/data/configs (SOURCES.md).
#include <catch2/catch.hpp>

#include <string>

#include "component_lookup.h"
#include "config_files.h"
#include "estimate.h"
#include "model/hf_config.h"
#include "model/presets.h"
#include "scenario_json.h"

using namespace vl;
using test::bytes_of;

namespace {

Scenario on_vllm(const ModelSpec& m) {
    Scenario s;
    s.model = m;
    s.mode = Mode::Infer;
    s.infer.engine = Engine::VLLM;
    s.infer.context = 4096;
    s.gpu = find_gpu("b200")->gpu();
    return s;
}

double rope_table(const ModelSpec& m) {
    const Estimate e = estimate(on_vllm(m));
    REQUIRE(e.ok());
    return bytes_of(e, "buffers.rope_cache");
}

}  // namespace

TEST_CASE("rope tables: Gemma 3's linear x 8 global table and its window layers' own table") {
    // google/gemma-3-4b-it: text_config.rope_scaling {"rope_type": "linear", "factor": 8.0}, max_position_embeddings
    // 131072 (Gemma3TextConfig's default), head_dim 256; rope_local_base_freq 10000 (default) differs from rope_theta
    // 1000000, so the sliding layers' rope is a second get_rope configuration.
    const ModelSpec g = test::imported_config("gemma-3-4b-it.json");
    CHECK(g.rope.scaling == RopeScaling::Linear);
    CHECK(g.rope.factor == 8.0);
    CHECK(g.rope.local_table);
    // LinearScalingRotaryEmbedding: 131072 x 8 = 1,048,576 rows; the local table 131,072 rows; each row 256 bf16 values.
    CHECK(rope_table(g) == (1048576.0 + 131072.0) * 256 * 2);  // 603,979,776 B = 576 MiB
    CHECK(rope_table(g) == 603979776.0);
    // The preset reads the same.
    const ModelSpec preset = find_model("gemma-3-4b")->spec;
    CHECK(preset.rope == g.rope);
    // Gemma 3 1B: no rope_scaling, two unscaled tables of 32768 rows.
    const ModelSpec one = test::imported_config("gemma-3-1b-pt.json");
    CHECK(one.rope.scaling == RopeScaling::None);
    CHECK(rope_table(one) == 2 * 32768.0 * 256 * 2);
}

TEST_CASE("rope tables: yarn scales the original length, llama3 and mrope keep max_position rows") {
    // deepseek-ai/DeepSeek-V3: yarn, factor 40, original_max_position_embeddings 4096: 163,840 rows of qk_rope_head_dim 64.
    const ModelSpec d = test::imported_config("deepseek-v3.json");
    CHECK(d.rope.scaling == RopeScaling::Yarn);
    CHECK(d.rope.original_max_position == 4096);
    CHECK(rope_table(d) == 4096.0 * 40 * 64 * 2);
    // meta-llama/Llama-3.1-8B: rope_type llama3 (the table keeps max_position_embeddings 131072 rows) x head_dim 128.
    const ModelSpec l = test::imported_config("llama-3.1-8b.json");
    CHECK(l.rope.scaling == RopeScaling::None);
    CHECK(rope_table(l) == 131072.0 * 128 * 2);
}

TEST_CASE("rope tables: a partial rotary narrows the table") {
    // EleutherAI/pythia-160m: rotary_pct 0.25 of head_dim 64 = 16, max_position_embeddings 2048.
    const ModelSpec p = test::imported_config("pythia-160m.json");
    CHECK(p.rope.partial == 0.25);
    CHECK(rope_table(p) == 2048.0 * 16 * 2);
    // Qwen/Qwen3.5-9B (a transformers v5 config): rope_parameters.partial_rotary_factor 0.25 of head_dim 256.
    const ModelSpec q = test::imported_config("qwen3.5-9b.json");
    CHECK(q.rope.partial == 0.25);
    CHECK(q.rope.scaling == RopeScaling::None);
}

TEST_CASE("rope tables: longrope holds a short and a long table, v5 configs keep Gemma's per attention kind") {
    // microsoft/Phi-3-mini-128k-instruct's shape: longrope, original_max_position_embeddings 4096 beside rope_scaling (where
    // transformers reads it), max_position_embeddings 131072: Phi3LongRoPEScaledRotaryEmbedding's short and long tables,
    // 4096 + 131072 rows of head_dim 96.
    const std::string phi = R"({"model_type": "phi3", "hidden_size": 3072, "intermediate_size": 8192, "num_hidden_layers": 32,
        "num_attention_heads": 32, "num_key_value_heads": 32, "vocab_size": 32064, "max_position_embeddings": 131072,
        "original_max_position_embeddings": 4096,
        "rope_scaling": {"type": "longrope", "long_factor": [1.0], "short_factor": [1.0]}})";
    Result<ModelSpec> r = import_hf_config(phi);
    REQUIRE(r.ok());
    CHECK(r->rope.scaling == RopeScaling::LongRope);
    CHECK(r->rope.original_max_position == 4096);
    CHECK(rope_table(*r) == (4096.0 + 131072.0) * 96 * 2);
    // Without the original length anywhere the rule names the field to give.
    std::string missing = phi;
    missing.erase(missing.find("\"original_max_position_embeddings\": 4096,"), 41);
    r = import_hf_config(missing);
    REQUIRE(!r.ok());
    CHECK(r.errors.front().field == "rope_scaling.original_max_position_embeddings");
    // transformers v5 saves Gemma 3's rope per attention kind; the full-attention entry is the scaled one.
    const std::string v5 = R"({"model_type": "gemma3_text", "hidden_size": 640, "intermediate_size": 2048, "num_hidden_layers": 2,
        "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 256, "vocab_size": 262144, "max_position_embeddings": 32768,
        "rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 4.0, "rope_theta": 1000000.0},
                            "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}})";
    r = import_hf_config(v5);
    REQUIRE(r.ok());
    CHECK((*r).rope.scaling == RopeScaling::Linear);
    CHECK(rope_table((*r)) == (32768.0 * 4 + 32768.0) * 256 * 2);
}

TEST_CASE("rope tables: bad rope fields are named, an unknown rope_type is a warning") {
    const std::string base = R"({"model_type": "llama", "hidden_size": 512, "intermediate_size": 1024, "num_hidden_layers": 2,
        "num_attention_heads": 8, "num_key_value_heads": 8, "vocab_size": 1000, "max_position_embeddings": 4096, "rope_scaling": )";
    Result<ModelSpec> r = import_hf_config(base + R"({"rope_type": "linear", "factor": "eight"}})");
    REQUIRE(!r.ok());
    CHECK(r.errors.front().field == "rope_scaling.factor");
    CHECK(r.errors.front().message == "must be a number; got \"eight\"");
    r = import_hf_config(base + R"({"rope_type": "linear", "factor": 0.5}})");
    REQUIRE(!r.ok());
    CHECK(r.errors.front().field == "rope_scaling.factor");
    CHECK(r.errors.front().message == "must be in [1, 1024]; got 0.5");
    r = import_hf_config(base + R"([1, 2]})");
    REQUIRE(!r.ok());
    CHECK(r.errors.front().field == "rope_scaling");
    r = import_hf_config(base + R"({"rope_type": "ntk-by-parts", "factor": 2.0}})");
    REQUIRE(r.ok());
    CHECK((*r).rope.scaling == RopeScaling::None);
    REQUIRE(r.warnings.size() == 1);
    CHECK(r.warnings.front().find("rope_scaling.rope_type \"ntk-by-parts\" is not one") == 0);
    // A scenario file's model: the same rule, by the scenario's own field path.
    Scenario s = on_vllm(test::imported_config("llama-3.1-8b.json"));
    s.model.rope.partial = 0;
    CHECK(!estimate(s).ok());
}

TEST_CASE("rope tables: the rope object round-trips through a scenario file") {
    Scenario s = on_vllm(test::imported_config("gemma-3-4b-it.json"));
    const std::string text = scenario_to_json(s);
    CHECK(text.find("\"rope\"") != std::string::npos);
    const Result<Scenario> back = scenario_from_json(text);
    REQUIRE(back.ok());
    CHECK((*back).model.rope == s.model.rope);
    CHECK((*back).model.rope.scaling == RopeScaling::Linear);
}
