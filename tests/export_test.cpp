// Exports (issue 7): a hand-built Estimate printed as table, Markdown, CSV and JSON, character for
// character. The numbers are chosen as whole GiB so each printed value is checkable by eye.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "export.h"

using namespace vl;

namespace {

constexpr double GiB = 1024.0 * 1024 * 1024;

Scenario heading_scenario() {
    Scenario s;
    s.model.name = "Test-8B";
    s.mode = Mode::Train;
    s.gpu = {"H100 80GB", 80 * GiB};
    s.gpu_count = 8;
    return s;
}

// weights 15 GiB in every phase, activations 10 GiB in forward+backward, optimizer 4 GiB on host.
Estimate hand_built() {
    Estimate e;
    Component w;
    w.id = "weights";
    w.label = "Weights";
    w.category = Category::Weights;
    w.bytes = 15 * GiB;  // 16106127360 bytes
    w.phases = kAllPhases;
    w.set_text("2 * P", "2 * 8.05e9");
    w.source = "[llm-gpu-memory-2025]";
    Component a;
    a.id = "act.total";
    a.label = "Activations";
    a.category = Category::Activations;
    a.bytes = 10 * GiB;  // 10737418240 bytes
    a.phases = phase_bit(Phase::Forward) | phase_bit(Phase::Backward);
    a.set_text("s*b*h*(34 + 5*a*s/h) | L", "");
    a.source = "Korthikanti et al., \"Reducing Activation Recomputation\"";
    Component o;
    o.id = "optimizer.adam_states";
    o.label = "Optimizer states";
    o.category = Category::Optimizer;
    o.bytes = 4 * GiB;  // 4294967296 bytes
    o.host = true;
    o.set_text("8 * P / N_d", "");
    o.source = "ZeRO-Offload";
    e.components = {w, a, o};
    // Phase totals by hand: load 15, forward 15+10 = 25, backward 25, step 15 GiB; the first
    // largest is forward. Capacity 80 GiB: headroom 80 - 25 = 55 GiB. Host: 4 GiB.
    e.phase_bytes = {15 * GiB, 25 * GiB, 25 * GiB, 15 * GiB};
    e.peak_phase = Phase::Forward;
    e.total_bytes = 25 * GiB;
    e.host_bytes = 4 * GiB;
    e.gpu_capacity_bytes = 80 * GiB;
    e.gpu_usable_bytes = 80 * GiB;    // a GPU given by its CUDA total: no driver reserve to show
    e.gpu_reported_bytes = 80 * GiB;
    e.params.total = 8030261248;
    e.warnings = {"dropout masks assumed absent"};
    return e;
}

}  // namespace

TEST_CASE("export: CSV of a hand-built estimate") {
    const std::string expected =
        "id,label,category,phases,host,bytes,GiB,formula,substituted,source\n"
        "weights,Weights,weights,load forward backward step,false,16106127360,15.00,2 * P,2 * 8.05e9,[llm-gpu-memory-2025]\n"
        "act.total,Activations,activations,forward backward,false,10737418240,10.00,s*b*h*(34 + 5*a*s/h) | L,,"
        "\"Korthikanti et al., \"\"Reducing Activation Recomputation\"\"\"\n"
        "optimizer.adam_states,Optimizer states,optimizer,,true,4294967296,4.00,8 * P / N_d,,ZeRO-Offload\n"
        "total.load,Total in load,,load,false,16106127360,15.00,,,\n"
        "total.forward,Total in forward,,forward,false,26843545600,25.00,,,\n"
        "total.backward,Total in backward,,backward,false,26843545600,25.00,,,\n"
        "total.step,Total in step,,step,false,16106127360,15.00,,,\n"
        "total.peak,Peak (forward),,forward,false,26843545600,25.00,,,\n"
        "gpu.capacity,GPU memory,,,false,85899345920,80.00,,,\n"
        "gpu.usable,GPU memory CUDA reports,,,false,85899345920,80.00,,,\n"
        "gpu.headroom,Headroom,,,false,59055800320,55.00,,,\n"
        "host.total,Host memory (offloaded),,,true,4294967296,4.00,,,\n";
    CHECK(export_estimate(heading_scenario(), hand_built(), ExportFormat::Csv) == expected);
}

TEST_CASE("export: CSV in decimal GB") {
    ExportOptions o;
    o.unit = SizeUnit::GB;
    std::string csv = export_estimate(heading_scenario(), hand_built(), ExportFormat::Csv, o);
    // 15 GiB = 16106127360 B = 16.106 GB -> "16.11"; header names the unit.
    CHECK_THAT(csv, Catch::StartsWith("id,label,category,phases,host,bytes,GB,"));
    CHECK_THAT(csv, Catch::Contains("weights,Weights,weights,load forward backward step,false,16106127360,16.11,"));
}

TEST_CASE("export: Markdown table of a hand-built estimate") {
    const std::string expected =
        "**Test-8B, train, 8 x H100 80GB, per GPU**\n"
        "\n"
        "| Component | Category | Phases | GiB | Formula | With your numbers | Source |\n"
        "|:--|:--|:--|--:|:--|:--|:--|\n"
        "| Weights | weights | load, forward, backward, step | 15.00 | `2 * P` | `2 * 8.05e9` | [llm-gpu-memory-2025] |\n"
        "| Activations | activations | forward, backward | 10.00 | `s*b*h*(34 + 5*a*s/h) \\| L` |  | "
        "Korthikanti et al., \"Reducing Activation Recomputation\" |\n"
        "| Optimizer states | optimizer | host | 4.00 | `8 * P / N_d` |  | ZeRO-Offload |\n"
        "| **Peak (forward)** | | | **25.00** | | | |\n"
        "\n"
        "GPU memory 80.00 GiB: fits, 55.00 GiB headroom.\n"
        "GPU memory 80.00 GiB usable (what CUDA reports).\n"
        "Host memory (offloaded): 4.00 GiB.\n"
        "\n"
        "> warning: dropout masks assumed absent\n";
    CHECK(export_estimate(heading_scenario(), hand_built(), ExportFormat::Markdown) == expected);
}

TEST_CASE("export: plain-text table, with and without formulas") {
    // Column widths: labels up to "Optimizer states" (16), categories up to "activations" (11),
    // numbers right-aligned in 6 (the minimum).
    const std::string rule(16 + 2 + 11 + 2 + 6, '-');  // under the label, category and number columns
    const std::string expected =
        "Test-8B, train, 8 x H100 80GB, per GPU\n"
        "Component         Category        GiB  Phases\n"
        "Weights           weights       15.00  load forward backward step\n"
        "Activations       activations   10.00  forward backward\n"
        "Optimizer states  optimizer      4.00  host (not on the GPU)\n" +
        rule + "\n" +
        "Peak (forward)                  25.00  of 80.00 GiB: fits, 55.00 GiB headroom\n"
        "GPU memory 80.00 GiB usable (what CUDA reports)\n"
        "Phases: load 15.00, forward 25.00, backward 25.00, step 15.00 GiB\n"
        "Host memory (offloaded): 4.00 GiB\n"
        "warning: dropout masks assumed absent\n";
    CHECK(export_estimate(heading_scenario(), hand_built(), ExportFormat::Table) == expected);

    ExportOptions o;
    o.formulas = true;
    const std::string with = export_estimate(heading_scenario(), hand_built(), ExportFormat::Table, o);
    CHECK_THAT(with, Catch::Contains("Weights           weights       15.00  load forward backward step\n"
                                     "    = 2 * P\n"
                                     "    = 2 * 8.05e9\n"
                                     "    source: [llm-gpu-memory-2025]\n"));
}

TEST_CASE("export: an estimate that does not fit says by how much") {
    Estimate e = hand_built();
    e.gpu_capacity_bytes = 24 * GiB;  // 25 - 24 = 1 GiB over
    CHECK_THAT(export_estimate(heading_scenario(), e, ExportFormat::Table),
               Catch::Contains("Peak (forward)                  25.00  of 24.00 GiB: does not fit, 1.00 GiB over\n"));
}

TEST_CASE("export: inference names its phases prefill and decode, never backward") {
    Scenario s = heading_scenario();
    s.mode = Mode::Infer;
    const std::string t = export_estimate(s, hand_built(), ExportFormat::Table);
    CHECK_THAT(t, Catch::Contains("Phases: load 15.00, prefill 25.00, decode 15.00 GiB\n"));
    CHECK_THAT(t, Catch::Contains("Weights           weights       15.00  load prefill decode\n"));
    CHECK_THAT(t, Catch::Contains("Peak (prefill)"));
}

TEST_CASE("export: JSON carries the scenario, bytes and every component") {
    const std::string text = export_estimate(heading_scenario(), hand_built(), ExportFormat::Json);
    nlohmann::json j = nlohmann::json::parse(text);
    CHECK(j["scenario"]["version"] == 1);
    CHECK(j["scenario"]["gpu_count"] == 8);
    CHECK(j["ok"] == true);
    CHECK(j["fits"] == true);
    CHECK(j["peak_phase"] == "forward");
    CHECK(j["total_bytes"] == 26843545600.0);
    CHECK(j["headroom_bytes"] == 59055800320.0);  // 55 GiB
    CHECK(j["host_bytes"] == 4294967296.0);
    CHECK(j["phase_bytes"]["backward"] == 26843545600.0);
    CHECK(j["params"]["total"] == 8030261248);
    REQUIRE(j["components"].size() == 3);
    CHECK(j["components"][1]["id"] == "act.total");
    CHECK(j["components"][1]["phases"] == nlohmann::json::array({"forward", "backward"}));
    CHECK(j["components"][2]["host"] == true);
    CHECK(j["warnings"][0] == "dropout masks assumed absent");
    CHECK(j["errors"].empty());
}

TEST_CASE("export: an invalid estimate lists its errors in every format") {
    Estimate e;
    e.errors = {{"parallel.tp", "must divide num_attention_heads (32); got 6"}};
    const Scenario s = heading_scenario();
    CHECK(export_estimate(s, e, ExportFormat::Table) ==
          "Test-8B, train, 8 x H100 80GB, per GPU\nerror: parallel.tp: must divide num_attention_heads (32); got 6\n");
    CHECK_THAT(export_estimate(s, e, ExportFormat::Markdown),
               Catch::EndsWith("- error: `parallel.tp`: must divide num_attention_heads (32); got 6\n"));
    CHECK(export_estimate(s, e, ExportFormat::Csv) ==
          "id,label,category,phases,host,bytes,GiB,formula,substituted,source\n"
          "error.parallel.tp,must divide num_attention_heads (32); got 6,,,,,,,,\n");
    nlohmann::json j = nlohmann::json::parse(export_estimate(s, e, ExportFormat::Json));
    CHECK(j["ok"] == false);
    CHECK(j["errors"][0]["field"] == "parallel.tp");
    CHECK_FALSE(j.contains("components"));
}

TEST_CASE("export: format names") {
    CHECK(parse_enum<ExportFormat>("markdown") == ExportFormat::Markdown);
    CHECK(parse_enum<ExportFormat>("CSV") == ExportFormat::Csv);
    CHECK_FALSE(parse_enum<ExportFormat>("xml").has_value());
    CHECK(enum_choices<ExportFormat>() == R"("table", "json", "markdown" or "csv")");
}

TEST_CASE("export: inference shows the KV pool as numbers in every format (blocks, tokens, sequences, bytes)") {
    Scenario s = heading_scenario();
    s.mode = Mode::Infer;
    s.infer.engine = Engine::VLLM;
    s.infer.context = 8192;
    Estimate e = hand_built();
    // vLLM-style pool by hand: 27284 blocks of 16 tokens at 128 KiB per token.
    e.kv.block_size = 16;
    e.kv.blocks = 27284;
    e.kv.tokens = 27284 * 16;        // 436,544
    e.kv.sequences = 27284 / 512;    // 53 sequences of 8192 tokens (512 blocks each)
    e.kv.bytes_per_token = 131072;
    e.kv.pool_bytes = 27284.0 * 16 * 131072;  // 53.2890625 GiB
    const std::string t = export_estimate(s, e, ExportFormat::Table);
    CHECK_THAT(t, Catch::Contains("KV cache pool: 27,284 blocks of 16 tokens = 436,544 tokens (53.29 GiB, 131,072 B per token), 53 sequences of 8,192 tokens\n"));
    const std::string md = export_estimate(s, e, ExportFormat::Markdown);
    CHECK_THAT(md, Catch::Contains("KV cache pool: 27,284 blocks of 16 tokens"));
    const std::string csv = export_estimate(s, e, ExportFormat::Csv);
    CHECK_THAT(csv, Catch::Contains("\nkv.blocks,KV blocks,count,,false,27284,,,,\n"));
    CHECK_THAT(csv, Catch::Contains("\nkv.block_size,Tokens per KV block,count,,false,16,,,,\n"));
    CHECK_THAT(csv, Catch::Contains("\nkv.tokens,KV tokens,count,,false,436544,,,,\n"));
    CHECK_THAT(csv, Catch::Contains("\nkv.pool_bytes,KV cache pool,,,false,57218695168,53.29,"));
    const nlohmann::json j = nlohmann::json::parse(export_estimate(s, e, ExportFormat::Json));
    CHECK(j["kv"]["blocks"] == 27284);
    CHECK(j["kv"]["block_size"] == 16);
    CHECK(j["kv"]["tokens"] == 436544);
    CHECK(j["kv"]["sequences"] == 53);
    CHECK(j["kv"]["pool_bytes"] == 57218695168.0);
    CHECK(j["kv"]["bytes_per_token"] == 131072.0);
    // Training has no KV pool: no line, no member.
    s.mode = Mode::Train;
    CHECK_THAT(export_estimate(s, e, ExportFormat::Table), !Catch::Contains("KV cache"));
    CHECK_FALSE(nlohmann::json::parse(export_estimate(s, e, ExportFormat::Json)).contains("kv"));
}

TEST_CASE("export: the what-fits answers the page shows are in every format") {
    const Scenario s = heading_scenario();
    Estimate e = hand_built();
    e.gpu_capacity_bytes = 20 * GiB;  // the 25 GiB peak does not fit: the fewest GPUs is an answer too
    FitAnswers a;
    a.solved = true;
    a.max_batch.found = true;
    a.max_batch.value = 6;
    a.max_seq.found = true;
    a.max_seq.value = 131072;
    a.max_seq.at_search_bound = true;
    a.min_gpus.found = true;
    a.min_gpus.value = 4;
    a.min_gpus.scenario.parallel.tp = 2;
    a.min_gpus.scenario.parallel.pp = 1;
    a.min_gpus.scenario.parallel.zero = 1;
    ExportOptions o;
    o.answers = &a;
    CHECK_THAT(export_estimate(s, e, ExportFormat::Table, o),
               Catch::Contains("What fits: max micro-batch 6, max sequence 131072+, fewest GPUs 4 (TP 2, PP 1, ZeRO 1)\n"));
    CHECK_THAT(export_estimate(s, e, ExportFormat::Markdown, o), Catch::Contains("What fits: max micro-batch 6, max sequence 131072+"));
    const std::string csv = export_estimate(s, e, ExportFormat::Csv, o);
    CHECK_THAT(csv, Catch::Contains("\nanswer.max_micro_batch,max micro-batch: 6,count,,false,6,,,,\n"));
    CHECK_THAT(csv, Catch::Contains("\nanswer.max_seq_len,max sequence: 131072+,count,,false,131072,,,,\n"));
    CHECK_THAT(csv, Catch::Contains("\nanswer.min_gpus,\"fewest GPUs: 4 (TP 2, PP 1, ZeRO 1)\",count,,false,4,,,,\n"));
    const nlohmann::json j = nlohmann::json::parse(export_estimate(s, e, ExportFormat::Json, o));
    REQUIRE(j["answers"].size() == 3);
    CHECK(j["answers"][0]["id"] == "max_micro_batch");
    CHECK(j["answers"][0]["value"] == 6);
    CHECK(j["answers"][2]["text"] == "4 (TP 2, PP 1, ZeRO 1)");
    // Nothing fits up to 512 GPUs: said, with -1 as the count.
    a.min_gpus.found = false;
    CHECK_THAT(export_estimate(s, e, ExportFormat::Csv, o), Catch::Contains("\nanswer.min_gpus,fewest GPUs: none up to 512 GPUs,count,,false,-1,,,,\n"));
    // A scenario that fits has no fewest-GPUs answer; without answers no line at all.
    e.gpu_capacity_bytes = 80 * GiB;
    CHECK_THAT(export_estimate(s, e, ExportFormat::Table, o), !Catch::Contains("fewest GPUs"));
    CHECK_THAT(export_estimate(s, e, ExportFormat::Table), !Catch::Contains("What fits"));
    CHECK_FALSE(nlohmann::json::parse(export_estimate(s, e, ExportFormat::Json)).contains("answers"));
}
