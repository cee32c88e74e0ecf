// Presets: the embedded models.json / gpus.json parse without errors, every model's parameter count
// equals its published count (exact, or to the precision it was published with; the number and its
// citation live in models.json beside the config), and the GPU table is complete and cited.
#include <catch2/catch.hpp>

#include <cmath>
#include <set>
#include <string>

#include "embedded_assets.h"
#include "model/presets.h"
#include "param_count.h"

namespace {

// Half a unit of the last published digit: 14.3e9 -> 0.05e9, 141e9 -> 0.5e9, 0.49e9 -> 0.005e9.
double published_tolerance(double v) {
    double unit = 1;
    while (unit * 10 <= v && std::fmod(v, unit * 10) == 0) unit *= 10;
    return unit / 2;
}

}  // namespace

TEST_CASE("published_tolerance reads the precision of a rounded count") {
    CHECK(published_tolerance(14.3e9) == 0.05e9);
    CHECK(published_tolerance(141e9) == 0.5e9);
    CHECK(published_tolerance(0.49e9) == 0.005e9);
}

TEST_CASE("embedded presets parse without errors") {
    for (const auto& e : vl::preset_errors()) INFO(vl::to_string(e));
    CHECK(vl::preset_errors().empty());
    CHECK(vl::model_presets().size() >= 30);
    CHECK(vl::gpu_presets().size() >= 15);
}

TEST_CASE("every model preset matches its published parameter count") {
    int checked_exact = 0, checked_rounded = 0;
    for (const vl::ModelPreset& m : vl::model_presets()) {
        INFO(m.id << " (" << m.params_source << ")");
        CHECK(!m.source.empty());
        if (m.published_params == 0) {
            CHECK(!m.note.empty());  // says why no count is checked
            continue;
        }
        const vl::ParamCounts p = vl::count_params(m.spec);
        // A published count is the checkpoint's: a vision-language model's tower and projector included.
        const int64_t total = p.total + p.vision + p.projector;
        if (m.published_exact) {
            CHECK(total == m.published_params);
            ++checked_exact;
        } else {
            const double pub = static_cast<double>(m.published_params);
            CHECK(static_cast<double>(total) == Approx(pub).margin(published_tolerance(pub)));
            ++checked_rounded;
        }
        if (m.published_active > 0) {
            const double pub = static_cast<double>(m.published_active);
            const double margin = m.published_exact ? 0 : published_tolerance(pub);
            CHECK(static_cast<double>(p.active_per_token) == Approx(pub).margin(margin));
        }
    }
    CHECK(checked_exact >= 30);
    CHECK(checked_rounded >= 10);
}

TEST_CASE("preset ids are unique lowercase slugs, and find_model / find_gpu look them up") {
    std::set<std::string> ids;
    for (const auto& m : vl::model_presets()) {
        CHECK(ids.insert(m.id).second);
        CHECK(m.id.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789.-") == std::string::npos);
    }
    for (const auto& g : vl::gpu_presets()) {
        CHECK(ids.insert(g.id).second);
        CHECK(g.id.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789.-") == std::string::npos);
    }
    const vl::ModelPreset* m = vl::find_model("llama-3.1-8b");
    REQUIRE(m != nullptr);
    CHECK(m->spec.name == "Llama-3.1-8B");
    CHECK(vl::count_params(m->spec).total == 8030261248);  // reference_models.json llama-3-8b
    CHECK(vl::find_model("Qwen/Qwen3-30B-A3B") != nullptr);  // by Hugging Face id
    CHECK(vl::find_model("no-such-model") == nullptr);
    CHECK(vl::find_gpu("H100-80GB") != nullptr);
    CHECK(vl::find_gpu("no-such-gpu") == nullptr);
}

TEST_CASE("GPU presets: driver-reported memory with a source") {
    for (const vl::GpuPreset& g : vl::gpu_presets()) {
        INFO(g.id);
        CHECK(g.memory_bytes > 8e9);
        CHECK(g.memory_bytes < 300e9);
        CHECK(!g.source.empty());
    }
    // nvidia-smi prints 81559 MiB total on an H100 80GB HBM3 (public nvidia-smi logs).
    CHECK(vl::find_gpu("h100-80gb")->memory_bytes == 81559.0 * 1024 * 1024);
    // rocm-smi: VRAM Total Memory (B): 205822885888 on an MI300X.
    CHECK(vl::find_gpu("mi300x")->memory_bytes == 205822885888.0);
    CHECK_FALSE(vl::find_gpu("t4")->bf16);  // Turing: no bf16
    for (const char* id : {"h100-80gb", "h200", "b200", "a100-40gb", "a100-80gb", "l40s", "a10", "l4", "t4",
                           "v100-16gb", "v100-32gb", "rtx-3090", "rtx-4090", "rtx-5090", "mi300x"})
        CHECK(vl::find_gpu(id) != nullptr);
    // Consumer cards for the local planner (issue 19), nvidia-smi memory.total in public logs:
    // RTX 3060 12288 MiB, RTX 4060 Ti 16GB 16380 MiB, RTX 4070 Ti 12282 MiB.
    CHECK(vl::find_gpu("rtx-3060-12gb")->memory_bytes == 12288.0 * 1024 * 1024);
    CHECK(vl::find_gpu("rtx-4060-ti-16gb")->memory_bytes == 16380.0 * 1024 * 1024);
    CHECK(vl::find_gpu("rtx-4070-ti")->memory_bytes == 12282.0 * 1024 * 1024);
    // Tesla P40 with ECC on (the default): 22919 MiB in public nvidia-smi logs.
    CHECK(vl::find_gpu("tesla-p40")->memory_bytes == 22919.0 * 1024 * 1024);
}

// The page embeds only its default model and replaces the list with the whole models.json once fetched
// (issue 16, web/ui/app.h ModelList). The embedded list is put back at the end (the other cases use it).
TEST_CASE("replace_model_presets: a good list replaces the models, a bad one changes nothing") {
    const size_t embedded = vl::model_presets().size();
    REQUIRE(vl::find_model("gpt2"));

    auto errs = vl::replace_model_presets(R"({"models": 3})");
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].field == "models.json");
    CHECK(vl::model_presets().size() == embedded);
    errs = vl::replace_model_presets(R"({"models": []})");
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].message == "lists no model");
    CHECK(vl::model_presets().size() == embedded);
    errs = vl::replace_model_presets(R"({"models": [{"id": "tiny", "released": "2024-1", "config": {}}]})");
    CHECK(errs.size() >= 2);  // the month, and the empty config
    CHECK(vl::model_presets().size() == embedded);

    errs = vl::replace_model_presets(R"({"models": [{"id": "tiny", "name": "Tiny", "family": "T", "released": "2024-01",
        "config": {"model_type": "llama", "hidden_size": 64, "intermediate_size": 128, "num_attention_heads": 4,
                   "num_hidden_layers": 2, "num_key_value_heads": 4, "vocab_size": 100, "max_position_embeddings": 128}}]})");
    for (const auto& e : errs) INFO(vl::to_string(e));
    CHECK(errs.empty());
    REQUIRE(vl::model_presets().size() == 1);
    const vl::ModelPreset* tiny = vl::find_model("TINY");
    REQUIRE(tiny);
    CHECK(tiny->spec.layers == 2);
    CHECK(tiny->spec.hidden == 64);
    CHECK(tiny->spec.name == "Tiny");
    CHECK(vl::find_model("gpt2") == nullptr);
    CHECK(vl::gpu_presets().size() >= 15);  // the GPUs are not touched

    CHECK(vl::replace_model_presets(vl::assets::find("models.json")).empty());
    CHECK(vl::model_presets().size() == embedded);
}
