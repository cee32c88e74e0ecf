// A sequence longer than the model's max_position_embeddings is estimated, with a warning naming the
// field and both numbers (issue 12 item 12: gpt2 at 2,048 tokens "fitted" without a word).
// Position ranges are the presets' config.json values: openai-community/gpt2 n_positions 1024,
// meta-llama/Llama-2-7b-hf max_position_embeddings 4096; bigscience/bloom-560m (ALiBi) gives none.
#include <catch2/catch.hpp>

#include <string>

#include "estimate.h"
#include "model/hf_config.h"
#include "model/presets.h"

namespace {

vl::Scenario with_preset(const char* id, vl::Mode mode) {
    const vl::ModelPreset* p = vl::find_model(id);
    REQUIRE(p != nullptr);
    vl::Scenario s;
    s.model = p->spec;
    s.mode = mode;
    return s;
}

// The warnings of `s` that mention the model's position range.
std::vector<std::string> position_warnings(const vl::Scenario& s) {
    const vl::Estimate e = vl::estimate(s);
    for (const auto& err : e.errors) INFO(vl::to_string(err));
    REQUIRE(e.ok());
    std::vector<std::string> out;
    for (const std::string& w : e.warnings)
        if (w.find("max_position_embeddings") != std::string::npos) out.push_back(w);
    return out;
}

}  // namespace

TEST_CASE("inference beyond a learned position table warns that the model cannot run it") {
    vl::Scenario s = with_preset("gpt2", vl::Mode::Infer);
    s.infer.context = 2048;
    const std::vector<std::string> w = position_warnings(s);
    REQUIRE(w.size() == 1);
    CHECK_THAT(w[0], Catch::StartsWith("infer.context 2048 exceeds the model's max_position_embeddings (1024): "));
    CHECK_THAT(w[0], Catch::Contains("learned position table"));
    CHECK(vl::estimate(s).fits());  // the memory is small: the warning is what tells the user

    s.infer.context = 1024;  // exactly the table
    CHECK(position_warnings(s).empty());
}

TEST_CASE("every engine warns about a context beyond a rotary model's range") {
    for (vl::Engine engine : {vl::Engine::Transformers, vl::Engine::VLLM, vl::Engine::LlamaCpp}) {
        vl::Scenario s = with_preset("llama-2-7b", vl::Mode::Infer);
        s.infer.engine = engine;
        s.infer.context = 8192;
        if (engine == vl::Engine::LlamaCpp) s.infer.weights = vl::WeightFormat::GGUF_Q4_K_M;
        const std::vector<std::string> w = position_warnings(s);
        REQUIRE(w.size() == 1);
        CHECK_THAT(w[0], Catch::StartsWith("infer.context 8192 exceeds the model's max_position_embeddings (4096): "
                                           "the model was not trained for positions beyond it"));
    }
}

TEST_CASE("training and fine-tuning beyond a rotary model's range warn on train.seq_len") {
    for (vl::Mode mode : {vl::Mode::Train, vl::Mode::FineTune}) {
        vl::Scenario s = with_preset("llama-2-7b", mode);
        s.train.seq_len = 8192;
        const std::vector<std::string> w = position_warnings(s);
        REQUIRE(w.size() == 1);
        CHECK_THAT(w[0], Catch::StartsWith("train.seq_len 8192 exceeds the model's max_position_embeddings (4096): "));
        s.train.seq_len = 4096;
        CHECK(position_warnings(s).empty());
    }
}

TEST_CASE("no position warning without a known range") {
    vl::Scenario p;  // a model known only by its parameter count has no position range
    p.model = vl::model_from_param_count(7'000'000'000);
    p.mode = vl::Mode::Infer;
    p.infer.context = 1'000'000;
    CHECK(position_warnings(p).empty());

    vl::Scenario b = with_preset("bloom-560m", vl::Mode::Infer);  // ALiBi, no max_position_embeddings
    REQUIRE(b.model.max_position == 0);
    b.infer.context = 100'000;
    CHECK(position_warnings(b).empty());
}
