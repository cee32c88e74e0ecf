// The vramlens command-line tool, run as a process (issue 7): output, files, exit statuses, and
// bad input named by field. VRAMLENS_CLI_PATH is set by tests/CMakeLists.txt when the CLI is built.
#include <catch2/catch.hpp>

#ifdef VRAMLENS_CLI_PATH

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>

#include "checkpoint_files.h"
#include "cli.h"
#include "export.h"
#include "shell_command.h"
#include "units.h"

namespace {

struct Run {
    int status = -1;
    std::string out;
    std::string err;
};

std::string temp_path(const std::string& name) {
    return (std::filesystem::temp_directory_path() / ("vramlens_cli_test_" + std::to_string(::getpid()) + "_" + name)).string();
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Runs `vramlens ARGS` (ARGS is shell text; tests quote what needs it), in directory `cwd` if given.
Run vramlens(const std::string& args, const std::string& stdin_text = "", const std::string& cwd = "") {
    const std::string err_file = temp_path("stderr");
    const std::string in_file = temp_path("stdin");
    std::ofstream(in_file) << stdin_text;
    const std::string cmd = (cwd.empty() ? std::string() : "cd '" + cwd + "' && ") + "'" + VRAMLENS_CLI_PATH + "' " + args + " <'" +
                            in_file + "' 2>'" + err_file + "'";
    const ShellResult sh = shell_command(cmd);
    Run r;
    r.status = sh.status;
    r.out = sh.out;
    r.err = slurp(err_file);
    std::remove(err_file.c_str());
    std::remove(in_file.c_str());
    return r;
}

std::string write_temp(const std::string& name, const std::string& text) {
    const std::string path = temp_path(name);
    std::ofstream(path) << text;
    return path;
}

}  // namespace

TEST_CASE("cli: --version and --help") {
    Run v = vramlens("--version");
    CHECK(v.status == 0);
    CHECK(v.out == std::string("vramlens ") + VRAMLENS_VERSION + " (scenario format 1, share links v1)\n");
    Run h = vramlens("--help");
    CHECK(h.status == 0);
    CHECK_THAT(h.out, Catch::Contains("vramlens estimate [SCENARIO.json]"));
    CHECK_THAT(h.out, Catch::Contains("--micro-batch X"));
    // Every weight format, as docs/scenario-format.md names them (the list is the format table's).
    CHECK_THAT(h.out, Catch::Contains("  --weights X           fp32 | fp16 | bf16 | fp8 | int8 | gptq-4bit | gptq-8bit | gptq-3bit | gptq-2bit | awq-4bit | nf4 | fp4 | "
                                      "q8_0 | q6_k | q5_k_m | q4_k_m | q4_0 | q3_k_m | q2_k | q4_1 | q5_0 | q5_1 | q4_k_s | q5_k_s | mxfp4\n"));
    CHECK_THAT(vramlens("estimate --help").out, Catch::Contains("q8_0 | q6_k | q5_k_m | q4_k_m | q4_0 | q3_k_m | q2_k"));
    Run none = vramlens("");
    CHECK(none.status == 2);
    CHECK_THAT(none.err, Catch::Contains("usage:"));
}

TEST_CASE("cli: usage errors exit 2 and say what is wrong") {
    Run r = vramlens("frobnicate");
    CHECK(r.status == 2);
    CHECK(r.err == "vramlens: unknown command \"frobnicate\" (see `vramlens --help`)\n");
    r = vramlens("estimate --micro-batchh 4");
    CHECK(r.status == 2);
    CHECK(r.err == "vramlens: unknown option --micro-batchh (see `vramlens --help`)\n");
    r = vramlens("estimate --seq");
    CHECK(r.status == 2);
    CHECK(r.err == "vramlens: --seq needs a value\n");
    r = vramlens("estimate --format xml");
    CHECK(r.status == 2);
    CHECK(r.err == "vramlens: --format must be one of \"table\", \"json\", \"markdown\" or \"csv\"; got \"xml\"\n");
    r = vramlens("estimate --set fragmentation");
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains("--set needs PATH=VALUE"));
    r = vramlens("estimate a.json b.json");
    CHECK(r.status == 2);
    CHECK(r.err == "vramlens: unexpected argument \"b.json\"\n");
}

TEST_CASE("cli: bad scenario values exit 1 naming the field and the flag") {
    Run r = vramlens("estimate --params 7e9 --micro-batch abc --precision bf17 --zero 1e12");
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::Contains("  train.micro_batch (from --micro-batch): must be an integer; got \"abc\"\n"));
    CHECK_THAT(r.err, Catch::Contains("  train.precision (from --precision): must be one of \"fp32\""));
    CHECK_THAT(r.err, Catch::Contains("  parallel.zero (from --zero): must be an integer of magnitude at most 2147483647; got 1000000000000.0\n"));
    r = vramlens("estimate --params 7e9 --set parallel.tpp=2");
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::Contains("  parallel.tpp (from --set parallel.tpp): unknown field\n"));
    r = vramlens("estimate --model no-such-model");
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::Contains("  model (from --model): unknown preset id \"no-such-model\""));
}

TEST_CASE("cli: bad scenario files exit 1 naming the file and the field") {
    Run r = vramlens("estimate /nonexistent/s.json");
    CHECK(r.status == 1);
    CHECK(r.err == "vramlens: cannot read /nonexistent/s.json: No such file or directory\n");
    const std::string broken = write_temp("broken.json", "{\"version\": 1,\n \"train\": {\"micro_batch\": 4,}}");
    r = vramlens("estimate '" + broken + "'");
    CHECK(r.status == 1);
    // Line 2 is ` "train": {"micro_batch": 4,}}`: the stray `}` is its 29th character.
    CHECK_THAT(r.err, Catch::Contains("is not a valid scenario:\n  json: is not valid JSON: line 2, column 29: a comma before } : JSON allows no comma after the last entry"));
    const std::string old = write_temp("newer.json", R"({"version": 2, "model": "x"})");
    r = vramlens("estimate '" + old + "'");
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::Contains("  version: is 2, newer than this build reads (1); update vramlens\n"));
    std::remove(broken.c_str());
    std::remove(old.c_str());
}

TEST_CASE("cli: `scenario` prints the normalized file, flags apply on top of it, in order") {
    const std::string file = write_temp("s.json", R"({"version": 1, "model": {"name": "My 7B", "params": 7e9},
                                                      "train": {"micro_batch": 2}, "parallel": {"dp": 4}})");
    Run r = vramlens("scenario '" + file + "' --micro-batch 8 --tp 2 --sp --set overheads.fragmentation=0.25 --format json");
    REQUIRE(r.status == 0);
    nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["version"] == 1);
    CHECK(j["model"]["name"] == "My 7B");
    CHECK(j["model"]["params"] == 7000000000);
    CHECK(j["train"]["micro_batch"] == 8);     // the flag wins over the file's 2
    CHECK(j["parallel"]["dp"] == 4);           // from the file
    CHECK(j["parallel"]["tp"] == 2);
    CHECK(j["parallel"]["sp"] == true);
    CHECK(j["gpu_count"] == 8);                // not given: dp 4 * tp 2
    CHECK(j["overheads"]["fragmentation"] == 0.25);
    CHECK(j["train"]["seq_len"] == 2048);      // scenario.h default
    // Standard input as the file.
    Run s = vramlens("scenario - --gpus 16", R"({"version": 1, "model": {"params": 1000}})");
    REQUIRE(s.status == 0);
    CHECK(nlohmann::json::parse(s.out)["gpu_count"] == 16);
    std::remove(file.c_str());
}

TEST_CASE("cli: a custom GPU by its memory") {
    Run r = vramlens("scenario --params 1000 --gpu-memory-gib 24");
    REQUIRE(r.status == 0);
    nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["gpu"]["name"] == "Custom GPU");
    CHECK(j["gpu"]["memory_bytes"] == 25769803776.0);  // 24 * 2^30
}

TEST_CASE("cli: CUBLAS_WORKSPACE_CONFIG's form sets the cuBLAS workspace per handle") {
    // :4096:2:16:8 = 4096 KiB x 2 + 16 KiB x 8 = 8,519,680 B [pytorch-cublas-handle-pool].
    Run r = vramlens("scenario --params 1000 --cublas-workspace-config :4096:2:16:8");
    REQUIRE(r.status == 0);
    CHECK(nlohmann::json::parse(r.out)["overheads"]["cublas_workspace_bytes"] == 8519680.0);
    Run bad = vramlens("scenario --params 1000 --cublas-workspace-config 4096");
    CHECK(bad.status == 2);
    CHECK_THAT(bad.err, Catch::Contains("--cublas-workspace-config takes CUBLAS_WORKSPACE_CONFIG's form :SIZE:COUNT"));
}

TEST_CASE("cli: `link` encodes and `link --decode` reads back, also from a whole URL") {
    Run l = vramlens("link --params 1000 --set model.name=Tiny");
    REQUIRE(l.status == 0);
    // The same link as share_link_test's exact case (Python zlib + base64 derived).
    CHECK(l.out == "v1.eyJ2ZXJzaW9uIjoxLCJtb2RlbCI6eyJuYW1lIjoiVGlueSIsInBhcmFtcyI6MTAwMH19oid6yQ\n");
    Run d = vramlens("link --decode 'https://example.org/vramlens/#" + l.out.substr(0, l.out.size() - 1) + "'");
    REQUIRE(d.status == 0);
    nlohmann::json j = nlohmann::json::parse(d.out);
    CHECK(j["model"]["name"] == "Tiny");
    CHECK(j["model"]["params"] == 1000);
    Run bad = vramlens("link --decode v1.eyJ2ZXJzaW9uIjoxLCJtb2RlbCI6eyJuYW1lIjoiVGlueSIsInBhcmFtcyI6MTAwMH19oid6yR");
    CHECK(bad.status == 1);
    CHECK_THAT(bad.err, Catch::Contains("  link: damaged"));
}

TEST_CASE("cli: import of an unreadable or invalid config") {
    Run r = vramlens("import");
    CHECK(r.status == 2);
    r = vramlens("import /nonexistent/config.json");
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::Contains("cannot read /nonexistent/config.json"));
    // An unsupported model_type: the import fails on that field, naming the supported types (issue 14 item 12).
    const std::string cfg = write_temp("config.json", R"({"model_type": "Qwen2", "hidden_size": 896, "num_hidden_layers": 24,
        "num_attention_heads": 14, "vocab_size": 151936})");
    r = vramlens("import '" + cfg + "'");
    CHECK(r.status == 1);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, Catch::Contains("model_type: \"Qwen2\" is not supported (the closest supported: \"qwen2\"); use one of llama, "));
    // The same file given as the model of an estimate.
    r = vramlens("estimate --model-config '" + cfg + "'");
    CHECK(r.status != 0);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, Catch::Contains("model.hf_config.model_type (from --model-config): \"Qwen2\" is not supported (the closest supported: \"qwen2\")"));
}

namespace {
// Sum of the bytes of the components of one category in a `--format json` estimate.
double category_bytes(const nlohmann::json& j, const std::string& category) {
    double sum = 0;
    for (const auto& c : j["components"])
        if (c["category"] == category) sum += c["bytes"].get<double>();
    return sum;
}
}  // namespace

TEST_CASE("cli: estimate by flags, 7e9 parameters, bf16 mixed precision with AdamW") {
    Run r = vramlens("estimate --params 7e9 --mode train --precision bf16-mixed --optimizer adamw --format json");
    REQUIRE(r.status == 0);
    nlohmann::json j = nlohmann::json::parse(r.out);
    // Mixed precision with Adam: 2 B bf16 weights + 2 B bf16 gradients + 4 B fp32 master + 4 + 4 B
    // Adam m, v = 16 B per parameter ([llm-gpu-memory-2025] table; [zero2020 §3.1], K = 12).
    CHECK(category_bytes(j, "weights") == 14e9);
    CHECK(category_bytes(j, "gradients") == 14e9);
    CHECK(category_bytes(j, "optimizer") == 84e9);
    CHECK(j["scenario"]["model"]["params"] == 7000000000);
    CHECK(j["fits"] == false);  // 112e9 B of model states alone > the 85,520,809,984 B of the default H100 80GB
}

TEST_CASE("cli: ZeRO-2 over 8 data-parallel ranks shards gradients and optimizer states by 8") {
    const std::string file = write_temp("zero2.json", R"({"version": 1, "model": {"params": 7e9}, "parallel": {"zero": 2, "dp": 8}})");
    Run r = vramlens("estimate '" + file + "' --format json");
    REQUIRE(r.status == 0);
    nlohmann::json j = nlohmann::json::parse(r.out);
    // ZeRO paper Sec 5: stage 2 partitions P_os+g over N_d = 8; weights stay whole.
    CHECK(category_bytes(j, "weights") == 14e9);        // 2 B * 7e9
    CHECK(category_bytes(j, "gradients") == 1.75e9);    // 2 B * 7e9 / 8
    CHECK(category_bytes(j, "optimizer") == 10.5e9);    // 12 B * 7e9 / 8
    CHECK(j["scenario"]["gpu_count"] == 8);             // derived: dp 8
    std::remove(file.c_str());
}

TEST_CASE("cli: inference KV cache and weights of Llama-3.1-8B, as CSV") {
    Run r = vramlens("estimate --model llama-3.1-8b --mode infer --weights bf16 --kv-dtype bf16 --batch 4 --context 8192 --format csv");
    REQUIRE(r.status == 0);
    // KV cache: 2 (K and V) * 32 layers * 8 kv heads * 128 head_dim * 2 B = 131072 B per token
    // (vLLM paper Sec 3), times 4 sequences * 8192 tokens = 4294967296 B = 4.00 GiB.
    CHECK_THAT(r.out, Catch::Contains(",kv_cache,prefill decode,false,4294967296,4.00,"));
    // Weights: 8,030,261,248 parameters (Llama-3.1-8B: 2 * 128256 * 4096 embedding + head, 32 layers
    // of 218,112,000, final norm 4096) * 2 B = 16,060,522,496 B, in four components.
    nlohmann::json j = nlohmann::json::parse(vramlens("estimate --model llama-3.1-8b --mode infer --batch 4 --context 8192 --format json").out);
    CHECK(category_bytes(j, "weights") == 16060522496.0);
    CHECK(j["params"]["total"] == 8030261248);
    CHECK(j["peak_phase"] == "prefill");
}

TEST_CASE("cli: --autocast cached and per-op over fp32 weights (Lightning bf16-mixed generate)") {
    // Llama-2-7B: 32 layers x 202,375,168 matmul weights = 6,476,005,376, head 32000 x 4096 = 131,072,000.
    // Cached (weights that require grad): 2 B x 6,607,077,376 = 13,214,154,752 B beside the fp32 weights.
    Run cached = vramlens("estimate --model llama-2-7b --mode infer --weights fp32 --autocast cached --context 256 --format csv");
    REQUIRE(cached.status == 0);
    CHECK_THAT(cached.out, Catch::Contains("weights.autocast_casts,"));
    CHECK_THAT(cached.out, Catch::Contains(",prefill decode,false,13214154752,"));
    // Per op (frozen weights): the largest cast alone, the head's 2 B x 131,072,000 = 262,144,000 B.
    Run per_op = vramlens("estimate --model llama-2-7b --mode infer --weights fp32 --autocast per-op --context 256 --format csv");
    REQUIRE(per_op.status == 0);
    CHECK_THAT(per_op.out, Catch::Contains(",prefill decode,false,262144000,"));
    // autocast casts fp32 weights: bf16 weights are refused, naming the field
    Run bad = vramlens("estimate --model llama-2-7b --mode infer --weights bf16 --autocast cached");
    CHECK(bad.status != 0);
    CHECK_THAT(bad.out + bad.err, Catch::Contains("infer.autocast"));
}

TEST_CASE("cli: --ssm-kernels picks transformers' path through a Mamba mixer") {
    // mamba-2.8b, a prompt of 2048 tokens: the torch path's three fp32 (5120, 2048, 16) tensors and the fp32 x,
    // 2048 * 5120 * (3 * 16 + 1) * 4 = 2,055,208,960 B; mamba-ssm's fp32 chunk states 5120 * 1 * 32 * 4 = 655,360 B.
    const std::string base = "estimate --model mamba-2.8b --mode infer --context 2176 --set infer.prompt=2048 --format csv";
    for (const auto& [flag, row] : {std::pair{"", ",prefill,false,2055208960,"}, std::pair{" --ssm-kernels fused", ",prefill,false,655360,"}}) {
        const Run r = vramlens(base + flag);
        REQUIRE(r.status == 0);
        CHECK_THAT(r.out, Catch::Contains("act.ssm_scan,") && Catch::Contains(row));
    }
    const Run bad = vramlens("estimate --model mamba-2.8b --mode infer --ssm-kernels fast");
    CHECK(bad.status != 0);
    CHECK_THAT(bad.out + bad.err, Catch::Contains("infer.ssm_kernels"));
}

TEST_CASE("cli: --train-ssm-kernels picks transformers' path through a trained Mamba mixer") {
    // mamba-2.8b under bf16 autocast, 512 tokens (T = 512, d_inner 5120, d_state 16, dt_rank 160, hidden 2560),
    // what slow_forward's autograd keeps per layer: in_proj's input 2 * 512 * 2560 = 2,621,440; in_proj's output,
    // the conv output and its silu 8 * 512 * 5120 = 20,971,520; x_proj's output 2 * 512 * 192 = 196,608;
    // softplus's fp32 input and output, x.float(), the gated fp32 sum and silu(gate), out_proj's input
    // (8 + 4 + 6 + 2) * 512 * 5120 = 52,428,800; B.float() 4 * 512 * 16 = 32,768; discrete_A, discrete_B and the
    // 512 fp32 states with their bf16 casts 14 * 512 * 5120 * 16 = 587,202,560. 663,453,696 B, 64 layers.
    const std::string base = "estimate --model mamba-2.8b --mode train --precision bf16-autocast --seq 512 --format csv";
    const Run torch = vramlens(base);
    REQUIRE(torch.status == 0);
    CHECK_THAT(torch.out, Catch::Contains("act.mamba_torch,") && Catch::Contains(",42461036544,"));
    const Run fused = vramlens(base + " --train-ssm-kernels fused");
    REQUIRE(fused.status == 0);
    CHECK_THAT(fused.out, Catch::Contains("act.mamba,") && !Catch::Contains("act.mamba_torch,"));
    const Run bad = vramlens(base + " --train-ssm-kernels fast");
    CHECK(bad.status != 0);
    CHECK_THAT(bad.out + bad.err, Catch::Contains("train.ssm_kernels"));
}

TEST_CASE("cli: --lora-targets names a Mamba mixer's linears") {
    // Falcon-H1-0.5B, LoRA r = 16 on in_proj [3352, 1024]: 16 * (1024 + 3352) = 70,016 per layer, 36 layers,
    // fp32 adapters (PEFT's default): 4 * 2,520,576 = 10,082,304 B [peft-code].
    const std::string base = "estimate --model falcon-h1-0.5b --mode finetune --method lora --lora-rank 16 --seq 512 --format csv";
    const Run in_proj = vramlens(base + " --lora-targets in_proj");
    REQUIRE(in_proj.status == 0);
    CHECK_THAT(in_proj.out, Catch::Contains("lora.weights,") && Catch::Contains(",10082304,"));
    // all-linear names the mixer's out_proj, which PEFT refuses on falcon_h1
    const Run all = vramlens(base + " --lora-targets all-linear");
    CHECK(all.status != 0);
    CHECK_THAT(all.out + all.err, Catch::Contains("finetune.lora_targets") && Catch::Contains("out_proj"));
}

TEST_CASE("cli: --unit gb, markdown and table formats, --formulas") {
    Run gb = vramlens("estimate --params 7e9 --unit gb");
    REQUIRE(gb.status == 0);
    CHECK_THAT(gb.out, Catch::Contains("14.00"));  // 14e9 B of weights = 14.00 GB
    CHECK_THAT(gb.out, Catch::Contains("  GB  Phases\n"));
    Run md = vramlens("estimate --params 7e9 --format markdown");
    REQUIRE(md.status == 0);
    CHECK_THAT(md.out, Catch::StartsWith("**Custom (7000000000 parameters), train, 1 x H100 80GB, per GPU**\n"));
    CHECK_THAT(md.out, Catch::Contains("| 13.04 | `P * weight_bytes"));  // 14e9 B / 2^30 = 13.04 GiB
    // --formulas adds each component's formula, numbers and source under it (their text is the
    // training core's; only the layout is checked here).
    Run f = vramlens("estimate --params 7e9 --formulas --format json");
    nlohmann::json j = nlohmann::json::parse(f.out);
    Run t = vramlens("estimate --params 7e9 --formulas");
    for (const auto& c : j["components"]) {
        CHECK_THAT(t.out, Catch::Contains("\n    = " + c["formula"].get<std::string>() + "\n"));
        CHECK_THAT(t.out, Catch::Contains("\n    source: " + c["source"].get<std::string>() + "\n"));
    }
    CHECK_THAT(gb.out, !Catch::Contains("    source: "));
    CHECK_THAT(t.out, Catch::Contains("    = 7,000,000,000 * 2 / 1 = 14,000,000,000 B\n"));  // 7e9 params * 2 B (bf16) / 1 rank
}

TEST_CASE("cli: --fail-if-no-fit exits 3 when the scenario does not fit") {
    // 16 B/param * 7e9 = 112e9 B > 85,017,493,504 B (the default H100 80GB's CUDA total, 85.02 GB): does not fit.
    const Run over = vramlens("estimate --params 7e9 --fail-if-no-fit --format json --unit gb");
    CHECK(over.status == 3);
    // stdout stays JSON for scripts; the reason goes to stderr (the fuzzer requires a message with every failure).
    CHECK(nlohmann::json::accept(over.out));
    CHECK_THAT(over.err, Catch::StartsWith("vramlens: does not fit: the peak is ") && Catch::Contains(" of 85.02 GB per GPU, "));
    // Inference of 1e9 bf16 parameters: 2e9 B of weights, far below: fits.
    CHECK(vramlens("estimate --params 1e9 --mode infer --fail-if-no-fit").status == 0);
}

TEST_CASE("cli: a scenario that does not fit lists each single change that fits, in every format, and --fits adds what fits") {
    // A full fine-tune of Llama-3.1-8B on one 24 GB card: 16 B per parameter of model states alone is
    // 128.5 GB. QLoRA (4-bit base weights, ~4.5 GB) fits; recomputation changes no model state.
    const std::string flags = "estimate --model llama-3.1-8b --mode finetune --method full --gpu rtx-4090";
    const Run t = vramlens(flags);
    REQUIRE(t.status == 0);
    CHECK_THAT(t.out, Catch::Contains("\nFits with one change: ") && Catch::Contains("QLoRA (peak ") &&
                          !Catch::Contains("full recomputation (peak"));
    CHECK_THAT(t.out, !Catch::Contains("What fits: "));
    nlohmann::json j = nlohmann::json::parse(vramlens(flags + " --format json").out);
    REQUIRE(j["levers"].is_array());
    bool qlora = false;
    for (const auto& l : j["levers"]) {
        CHECK(l["total_bytes"].get<double>() <= l["capacity_bytes"].get<double>());
        if (l["id"] == "qlora") {
            qlora = true;
            CHECK(l["scenario"]["finetune"]["method"] == "qlora");  // the scenario to run instead, as a file
        }
    }
    CHECK(qlora);
    CHECK_THAT(vramlens(flags + " --format csv").out, Catch::Contains("\nlever.qlora,QLoRA,,,false,"));
    CHECK_THAT(vramlens(flags + " --format markdown").out, Catch::Contains("Fits with one change: "));
    // A scenario that fits has no levers; --fits prints what fits: Llama-3.1-8B in bf16 on a 24 GB card.
    const Run fits = vramlens("estimate --model llama-3.1-8b --mode infer --gpu rtx-4090 --fits");
    CHECK_THAT(fits.out, !Catch::Contains("Fits with one change") && Catch::Contains("\nWhat fits: max batch "));
    CHECK(!nlohmann::json::parse(vramlens("estimate --model llama-3.1-8b --mode infer --gpu rtx-4090 --format json").out).contains("levers"));
}

TEST_CASE("cli: models and gpus list the presets") {
    Run m = vramlens("models --format csv");
    REQUIRE(m.status == 0);
    CHECK_THAT(m.out, Catch::StartsWith("id,name,family,parameters,active,hugging face\n"));
    // 8,030,261,248: see the inference case above.
    CHECK_THAT(m.out, Catch::Contains("\nllama-3.1-8b,Llama-3.1-8B,Llama 3.1,\"8,030,261,248\",,meta-llama/Llama-3.1-8B\n"));
    Run g = vramlens("gpus --format json");
    REQUIRE(g.status == 0);
    nlohmann::json j = nlohmann::json::parse(g.out);
    bool found = false;
    for (const auto& row : j)
        if (row["id"] == "h100-80gb") {
            found = true;
            CHECK(row["bytes"] == "85520809984");  // nvidia-smi 81559 MiB * 2^20
            CHECK(row["GiB"] == "79.65");
            CHECK(row["usable bytes"] == "85017493504");  // torch's total measured on a lent H100: (81559 - 480) MiB
            CHECK(row["usable GiB"] == "79.18");
        }
    CHECK(found);
    CHECK(vramlens("models extra").status == 2);
}

TEST_CASE("cli: import a real config.json") {
    Run r = vramlens(std::string("import '") + VRAMLENS_TEST_DATA + "/configs/llama-3.1-8b.json' --format json");
    REQUIRE(r.status == 0);
    nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["model"]["hidden"] == 4096);
    CHECK(j["model"]["kv_heads"] == 8);
    CHECK(j["params"]["total"] == 8030261248);     // derivation in the inference case above
    CHECK(j["params"]["embedding"] == 525336576);  // 128256 * 4096
    Run t = vramlens(std::string("import '") + VRAMLENS_TEST_DATA + "/configs/llama-3.1-8b.json'");
    CHECK_THAT(t.out, Catch::Contains("total             8,030,261,248\n"));
    const std::string bad = write_temp("badcfg.json", R"({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 5})");
    Run b = vramlens("import '" + bad + "'");
    CHECK(b.status == 1);
    CHECK_THAT(b.err, Catch::Contains("  num_key_value_heads: "));
    std::remove(bad.c_str());
}

TEST_CASE("cli: import of an encoder-decoder shows its two stacks (t5-small)") {
    Run r = vramlens(std::string("import '") + VRAMLENS_TEST_DATA + "/configs/t5-small.json' --format json");
    REQUIRE(r.status == 0);
    nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["params"]["total"] == 60506624);
    // 6 x (4 x 512 x 512 + 2 x 512 x 2048 + 2 x 512) and 6 x that + cross-attention 4 x 512 x 512 + its norm 512
    CHECK(j["params"]["encoder_layers"] == 6 * 3146752);
    CHECK(j["params"]["decoder_layers"] == 6 * 4195840);
    CHECK(j["model"]["seq2seq"]["decoder_layers"] == 6);
}

TEST_CASE("cli: solve for the fewest GPUs, 70e9 parameters under ZeRO-3") {
    Run r = vramlens("solve gpus --params 70e9 --zero 3 --format json");
    REQUIRE(r.status == 0);
    nlohmann::json j = nlohmann::json::parse(r.out);
    // ZeRO-3 shards all 16 B/param over the GPUs: at 13 GPUs the model states alone are
    // 16 * 70e9 / 13 = 86.15e9 B > 85.02e9 B (the default H100 80GB's CUDA total, 79.18 GiB); at 14, 80e9 B =
    // 74.51 GiB, with the 5% allocator reserve 78.24 GiB, the H100 training context (767 MiB = 0.75 GiB) and the
    // data-parallel group's NCCL communicator (24 x 12 MiB ring + NVLS 16 x 2 MiB x 14 + 2 MiB = 738 MiB = 0.72 GiB,
    // core/nccl.h) 79.71 GiB > 79.18 GiB; at 15, 74.67e9 B = 69.54 GiB: 69.54 x 1.05 + 0.75 + 0.75 (770 MiB) =
    // 74.52 GiB (74.61 with the gathered layers) < 79.18 GiB.
    CHECK(j["found"] == true);
    CHECK(j["value"] == 15);
    CHECK(j["scenario"]["gpu_count"] == 15);
    CHECK(j["scenario"]["parallel"]["dp"] == 15);
    Run t = vramlens("solve gpus --params 70e9 --zero 3");
    CHECK_THAT(t.out, Catch::StartsWith("fewest GPUs that fit: 15\n"));
    CHECK(vramlens("solve").status == 2);
    CHECK(vramlens("solve everything --params 1e9").status == 2);
}

TEST_CASE("cli: --deepspeed-config reads a ds_config.json's ZeRO keys, later flags win, bad keys name the file and path") {
    const std::string file = write_temp("ds.json", R"({"bf16": {"enabled": true}, "zero_optimization": {"stage": 3,
        "reduce_bucket_size": "auto", "overlap_comm": false, "offload_optimizer": {"device": "cpu", "pin_memory": false},
        "zero_quantized_weights": false}})");
    Run r = vramlens("scenario --model llama-2-7b --dp 8 --deepspeed-config '" + file + "' --format json");
    REQUIRE(r.status == 0);
    nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["parallel"]["zero"] == 3);
    CHECK(j["parallel"]["offload_optimizer"] == true);
    CHECK(j["deepspeed"]["enabled"] == true);
    CHECK(j["deepspeed"]["reduce_bucket_size"] == "auto");
    CHECK(j["deepspeed"]["overlap_comm"] == "off");
    CHECK(j["deepspeed"]["pin_memory"] == false);
    CHECK(j["train"]["precision"] == "bf16-mixed");
    CHECK(r.err.find("zero_optimization.zero_quantized_weights: not read") != std::string::npos);
    Run later = vramlens("scenario --model llama-2-7b --dp 8 --deepspeed-config '" + file + "' --zero 2 --format json");
    REQUIRE(later.status == 0);
    CHECK(nlohmann::json::parse(later.out)["parallel"]["zero"] == 2);  // the flag after the file wins

    const std::string bad = write_temp("ds-bad.json", R"({"zero_optimization": {"stage": "three"}})");
    Run b = vramlens("estimate --model llama-2-7b --deepspeed-config '" + bad + "'");
    CHECK(b.status == 1);
    CHECK(b.err.find("zero_optimization.stage: must be 0, 1, 2 or 3; got \"three\"") != std::string::npos);
    std::remove(file.c_str());
    std::remove(bad.c_str());
}

TEST_CASE("cli: --set on a preset expands it to fields first") {
    Run r = vramlens("scenario --model llama-3.1-8b --set model.layers=16 --format json");
    REQUIRE(r.status == 0);
    nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["model"]["layers"] == 16);
    CHECK(j["model"]["hidden"] == 4096);  // the rest of the preset kept
}

TEST_CASE("cli: verify-script prints valid Python whose dry run works without torch or a GPU") {
    if (std::system("python3 -c pass >/dev/null 2>&1") != 0) {
        WARN("python3 not found: the generated script is not checked");
        return;
    }
    Run r = vramlens("verify-script --model gpt2 --micro-batch 4 --seq 1024");
    REQUIRE(r.status == 0);
    CHECK_THAT(r.out, Catch::StartsWith("#!/usr/bin/env python3\n"));
    const std::string script = write_temp("verify.py", r.out);
    CHECK(std::system(("python3 -m py_compile '" + script + "'").c_str()) == 0);
    const ShellResult dry = shell_command("python3 '" + script + "' --dry-run");
    CHECK(dry.status == 0);
    const std::string& out = dry.out;
    // GPT-2 (openai-community/gpt2 config): 12 layers, hidden 768; the plan mirrors the flags.
    CHECK_THAT(out, Catch::Contains("model: gpt2, 12 layers, hidden 768\n"));
    CHECK_THAT(out, Catch::Contains(R"("micro_batch": 4)"));
    CHECK_THAT(out, Catch::Contains(R"("seq_len": 1024)"));
    CHECK_THAT(out, Catch::Contains("in backward;"));
    std::remove(script.c_str());

    Run infer = vramlens("verify-script --model llama-3.2-1b --mode infer --batch 2 --context 512 --set infer.prompt=256");
    REQUIRE(infer.status == 0);
    CHECK_THAT(infer.out, Catch::Contains(R"("model_type":"llama")"));
    CHECK_THAT(infer.out, Catch::Contains(R"("new_tokens":256)"));  // context 512 - prompt 256

    // What one GPU and plain transformers cannot run is refused, naming the field.
    Run multi = vramlens("verify-script --model llama-3.1-8b --zero 2 --dp 8");
    CHECK(multi.status == 1);
    CHECK_THAT(multi.err, Catch::Contains("  parallel (from --dp, --zero): the verify script runs on one GPU"));
    Run quant = vramlens("verify-script --model llama-3.1-8b --mode infer --weights nf4");
    CHECK(quant.status == 1);
    CHECK_THAT(quant.err, Catch::Contains("  infer.weights (from --weights): quantized weights"));
    Run params = vramlens("verify-script --params 7e9");
    CHECK(params.status == 1);
    CHECK_THAT(params.err, Catch::Contains("  model.params (from --params): "));
}

// ---- issue 12 ------------------------------------------------------------------------------------
TEST_CASE("cli: JSON nested 80,000 levels deep is refused with a message, not a crash (issue 12 item 2)") {
    const std::string deep = std::string(80000, '[') + std::string(80000, ']');
    const std::string scenario = "{\"version\": 1, \"model\": " + deep + "}";
    const std::string file = write_temp("deep.json", scenario);
    Run r = vramlens("estimate '" + file + "'");
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::StartsWith("vramlens: " + file + " is not a valid scenario:\n  json: is nested deeper than 32 levels"));
    r = vramlens("scenario -", scenario);
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::StartsWith("vramlens: standard input is not a valid scenario:\n  json: is nested deeper than 32 levels"));
    const std::string config = write_temp("deep_config.json", deep);
    r = vramlens("estimate --model-config '" + config + "'");
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::StartsWith("vramlens: --model-config " + config + " is not a valid config.json:\n  config: is nested deeper than 32 levels"));
    r = vramlens("import '" + config + "'");
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::Contains("  config: is nested deeper than 32 levels"));
    std::remove(file.c_str());
    std::remove(config.c_str());
}

TEST_CASE("cli: files over 4 MiB are refused by their size, naming the file, for every command that reads one (issue 12 item 2)") {
    // The limit is 4 MiB = 4,194,304 bytes, written as 4194 KB (10^3 bytes). The files are sparse:
    // their size is set, nothing is written, so only a check of the size can tell what they hold.
    const std::string limit = "at most 4194 KB is read (a scenario or config.json is a few KB: is this the right file?)\n";
    const std::string big = temp_path("big.json");
    std::ofstream(big).close();
    std::filesystem::resize_file(big, 100'000'000);  // 100,000,000 bytes = 100 MB
    Run r = vramlens("estimate '" + big + "'");
    CHECK(r.status == 1);
    CHECK(r.err == "vramlens: " + big + ": is 100 MB; " + limit);
    r = vramlens("import '" + big + "'");
    CHECK(r.status == 1);
    CHECK(r.err == "vramlens: " + big + ": is 100 MB; " + limit);
    r = vramlens("scenario --model-config '" + big + "'");
    CHECK(r.status == 1);
    CHECK(r.err == "vramlens: " + big + ": is 100 MB; " + limit);
    std::filesystem::resize_file(big, 5'000'000);  // 5,000,000 bytes = 5000 KB
    r = vramlens("solve gpus '" + big + "'");
    CHECK(r.status == 1);
    CHECK(r.err == "vramlens: " + big + ": is 5000 KB; " + limit);
    std::remove(big.c_str());
    // Standard input has no size to check first: one byte past the limit is read.
    const std::string padded = "{\"version\": 1}" + std::string(5'000'000, ' ');
    r = vramlens("scenario -", padded);
    CHECK(r.status == 1);
    CHECK(r.err == "vramlens: standard input: is more than 4194 KB; " + limit);
    // Exactly at the limit is read (and here is a valid scenario).
    r = vramlens("scenario -", "{\"version\": 1, \"model\": {\"params\": 1000}}" + std::string(4'194'304 - 41, ' '));
    CHECK(r.status == 0);
    CHECK(r.err.empty());
}

TEST_CASE("cli: --params 0, negative or not a number is an error naming --params (issue 12 item 7)") {
    // The CLI states no rule of its own: the scenario reader (form) or validate() (value) gives the
    // one error, named by the field and the flag that set it.
    const std::pair<const char*, const char*> cases[] = {
        {"0", "is 0, which means the architecture is given instead"},
        {"-7e9", "must be > 0 (the parameter count of a model known only by it); got -7000000000"},
        {"abc", "must be an integer; got \"abc\""},
        {"1.5", "must be an integer; got 1.5"},
        {"''", "must be an integer; got \"\""},  // the shell passes an empty argument
    };
    for (const auto& [bad, message] : cases) {
        Run r = vramlens(std::string("estimate --params ") + bad);
        INFO("--params " << bad << "\n" << r.err);
        CHECK(r.status == 1);
        CHECK(r.out.empty());  // no estimate of the default model
        CHECK_THAT(r.err, Catch::Contains(std::string("\n  model.params (from --params): ") + message));
        size_t lines = 0;
        for (size_t at = r.err.find("\n  "); at != std::string::npos; at = r.err.find("\n  ", at + 1)) ++lines;
        CHECK(lines == 1);
    }
    Run ok = vramlens("scenario --params 7e9");
    REQUIRE(ok.status == 0);
    CHECK(nlohmann::json::parse(ok.out)["model"]["params"] == 7000000000);
    // An error about the whole model names the flags that set parts of it.
    Run parts = vramlens("estimate --set model.hf_config.model_type=llama --set model.name=x");
    CHECK(parts.status == 1);
    CHECK_THAT(parts.err, Catch::Contains("\n  model (from --set model.hf_config.model_type, --set model.name): "));
    // A model given only a name is not the default model under that name.
    Run named = vramlens("estimate --set model.name=x");
    CHECK(named.status == 1);
    CHECK(named.out.empty());
    CHECK_THAT(named.err, Catch::Contains("\n  model (from --set model.name): has only a name: give a preset id"));
}

TEST_CASE("cli: every switch takes =true or =false, anything else is refused by name (issue 12 item 10)") {
    // 7e9 parameters in training: 16 B/param = 112e9 B > the 85,520,809,984 B of an H100 80GB.
    CHECK(vramlens("estimate --params 7e9 --fail-if-no-fit=false").status == 0);
    CHECK(vramlens("estimate --params 7e9 --fail-if-no-fit=true").status == 3);
    CHECK(vramlens("estimate --params 7e9 --fail-if-no-fit=true --fail-if-no-fit=false").status == 0);  // the last one counts
    Run r = vramlens("estimate --params 7e9 --fail-if-no-fit=yes");
    CHECK(r.status == 2);
    CHECK(r.err == "vramlens: --fail-if-no-fit is a switch: give it alone, or as --fail-if-no-fit=true or --fail-if-no-fit=false; got \"yes\"\n");
    CHECK_THAT(vramlens("estimate --params 7e9 --formulas=true").out, Catch::Contains("\n    source: "));
    CHECK_THAT(vramlens("estimate --params 7e9 --formulas=false").out, !Catch::Contains("\n    source: "));
    // The scenario switches set the field to what is given.
    Run s = vramlens("scenario --params 7e9 --tp 2 --dp 4 --zero 3 --sp=true --offload-optimizer=false --offload-params --format json");
    REQUIRE(s.status == 0);
    nlohmann::json j = nlohmann::json::parse(s.out);
    CHECK(j["parallel"]["sp"] == true);
    CHECK(j["parallel"]["offload_optimizer"] == false);
    CHECK(j["parallel"]["offload_params"] == true);
    const std::string file = write_temp("sp.json", R"({"version": 1, "model": {"params": 7e9}, "parallel": {"tp": 2, "sp": true}})");
    s = vramlens("scenario '" + file + "' --sp=false");
    REQUIRE(s.status == 0);
    CHECK(nlohmann::json::parse(s.out)["parallel"]["sp"] == false);  // the flag clears the file's true
    for (const char* flag : {"--sp", "--offload-optimizer", "--offload-params", "--formulas"}) {
        Run bad = vramlens(std::string("estimate --params 7e9 ") + flag + "=on");
        INFO(flag);
        CHECK(bad.status == 2);
        CHECK(bad.err == std::string("vramlens: ") + flag + " is a switch: give it alone, or as " + flag + "=true or " + flag + "=false; got \"on\"\n");
    }
    std::remove(file.c_str());
}

TEST_CASE("cli: a flag of another mode is named in a warning, the exit status unchanged (issue 12 item 11)") {
    Run r = vramlens("estimate --params 1e9 --mode infer --lora-rank 8");
    CHECK(r.status == 0);
    CHECK(r.err == "warning: --lora-rank is read with --mode finetune; ignored in infer mode\n");
    r = vramlens("estimate --params 1e9 --context 8192 --batch 2");  // train is the default mode
    CHECK(r.status == 0);
    CHECK(r.err == "warning: --context is read with --mode infer; ignored in train mode\n"
                   "warning: --batch is read with --mode infer; ignored in train mode\n");
    r = vramlens("estimate --params 1e9 --precision fp32 --mode infer --zero 1 --set train.seq_len=512");
    CHECK(r.status == 0);
    CHECK(r.err == "warning: --precision is read with --mode train or --mode finetune; ignored in infer mode\n"
                   "warning: --zero is read with --mode train or --mode finetune; ignored in infer mode\n"
                   "warning: --set train.seq_len is read with --mode train or --mode finetune; ignored in infer mode\n");
    // The mode may come from the file; flags of that mode say nothing.
    const std::string file = write_temp("ft.json", R"({"version": 1, "model": "qwen2.5-0.5b", "mode": "finetune"})");
    r = vramlens("estimate '" + file + "' --lora-rank 8 --micro-batch 2 --precision bf16-mixed");
    CHECK(r.status == 0);
    CHECK(r.err.empty());
    r = vramlens("estimate '" + file + "' --weights nf4 --fail-if-no-fit");
    CHECK(r.status == 0);
    CHECK(r.err == "warning: --weights is read with --mode infer; ignored in finetune mode\n");
    std::remove(file.c_str());
}

TEST_CASE("cli: every command has its own --help, -h works anywhere, -- ends the options (issue 12 item 13)") {
    Run e = vramlens("estimate --help");
    CHECK(e.status == 0);
    CHECK_THAT(e.out, Catch::Contains("Usage: vramlens estimate [OPTIONS] [SCENARIO.json]\n"));
    CHECK_THAT(e.out, Catch::Contains("  --micro-batch X "));
    CHECK_THAT(e.out, Catch::Contains("  --fail-if-no-fit "));
    CHECK_THAT(e.out, !Catch::Contains("--decode"));
    CHECK_THAT(e.out, !Catch::Contains("vramlens solve"));  // not the global help
    CHECK(vramlens("estimate --params 7e9 -h").out == e.out);
    CHECK(vramlens("estimate -h --no-such-flag").out == e.out);
    CHECK(vramlens("help estimate").out == e.out);
    Run s = vramlens("solve -h");
    CHECK(s.status == 0);
    CHECK_THAT(s.out, Catch::Contains("Usage: vramlens solve [OPTIONS] [WHAT] [SCENARIO.json]\n"));
    CHECK_THAT(s.out, Catch::Contains("  --unit UNIT "));
    CHECK_THAT(s.out, !Catch::Contains("--formulas"));
    Run m = vramlens("models --help");
    CHECK(m.status == 0);
    CHECK_THAT(m.out, Catch::Contains("  --format FORMAT "));
    CHECK_THAT(m.out, !Catch::Contains("--micro-batch"));
    CHECK_THAT(m.out, !Catch::Contains("--unit"));
    Run l = vramlens("link -h");
    CHECK_THAT(l.out, Catch::Contains("  --decode LINK "));
    CHECK_THAT(l.out, !Catch::Contains("--format"));
    CHECK_THAT(vramlens("import -h").out, Catch::Contains("Usage: vramlens import [OPTIONS] [SOURCE]\n"));
    CHECK_THAT(vramlens("-h").out, Catch::Contains("vramlens estimate [SCENARIO.json]"));  // the global help
    // After --, an argument that looks like an option is a file name; -h is one too.
    const std::string dir = temp_path("dashdir");
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/--weird.json") << R"({"version": 1, "model": {"params": 1000}})";
    Run w = vramlens("scenario --gpus 2 -- --weird.json", "", dir);
    REQUIRE(w.status == 0);
    nlohmann::json j = nlohmann::json::parse(w.out);
    CHECK(j["model"]["params"] == 1000);
    CHECK(j["gpu_count"] == 2);
    Run h = vramlens("scenario -- -h", "", dir);
    CHECK(h.status == 1);
    CHECK(h.err == "vramlens: cannot read -h: No such file or directory\n");
    std::filesystem::remove_all(dir);
}

TEST_CASE("cli: control characters from a model or GPU name are escaped in table and Markdown output (issue 12 item 14)") {
    // ESC [2J would clear the screen, CR and BS overwrite what was printed, DEL and the C1 CSI (U+009B) too.
    const std::string file = write_temp("ctl.json", R"({"version": 1, "model": {"name": "Evil\u001b[2J\r\b\u007f\u009bX", "params": 1e9},
                                                        "gpu": {"name": "G\u0007PU", "memory_bytes": 8e10}})");
    const std::string escaped = "Evil\\x1b[2J\\x0d\\x08\\x7f\\u009bX";
    auto no_controls = [](const std::string& text) {
        for (size_t i = 0; i < text.size(); ++i) {
            const auto c = static_cast<unsigned char>(text[i]);
            if ((c < 0x20 && c != '\n') || c == 0x7f) return false;
            if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) < 0xa0) return false;
        }
        return true;
    };
    Run t = vramlens("estimate '" + file + "'");
    REQUIRE(t.status == 0);
    CHECK_THAT(t.out, Catch::StartsWith(escaped + ", train, 1 x G\\x07PU, per GPU\n"));
    CHECK(no_controls(t.out));
    Run md = vramlens("estimate '" + file + "' --format markdown");
    REQUIRE(md.status == 0);
    CHECK_THAT(md.out, Catch::StartsWith("**" + escaped + ", train, 1 x G\\x07PU, per GPU**\n"));
    CHECK(no_controls(md.out));
    // JSON keeps the name exactly (its readers unescape \u001b).
    Run js = vramlens("estimate '" + file + "' --format json");
    REQUIRE(js.status == 0);
    CHECK(nlohmann::json::parse(js.out)["scenario"]["model"]["name"] == "Evil\x1b[2J\r\b\x7f\xc2\x9bX");
    // A config.json's name, as `import` prints it.
    const std::string cfg = write_temp("ctl_config.json", R"({"_name_or_path": "org/m\u001b]0;title\u0007", "model_type": "gpt2", "n_embd": 64,
                                                              "n_layer": 2, "n_head": 4, "vocab_size": 100, "n_positions": 64})");
    Run im = vramlens("import '" + cfg + "'");
    REQUIRE(im.status == 0);
    CHECK_THAT(im.out, Catch::StartsWith("org/m\\x1b]0;title\\x07 (gpt2)\n"));
    CHECK(no_controls(im.out));
    // Errors quote what was given: an unknown field's name with ESC in it.
    Run bad = vramlens("estimate -", "{\"version\": 1, \"x\\u001by\": 1}");
    CHECK(bad.status == 1);
    CHECK_THAT(bad.err, Catch::Contains("  x\\x1by: unknown field\n"));
    CHECK(no_controls(bad.err));
    // Every message quotes its value escaped: a flag's value, an unknown command, a file name.
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"estimate", "--format", "\x1f[2J"}, {"\x1b[2Jx"}, {"estimate", "no\x1b[2Jsuch.json"}, {"estimate", "--model", "a\rb"}}) {
        std::string out, err;
        vl::cli::run(args, out, err);
        INFO(err);
        CHECK_FALSE(err.empty());
        CHECK(no_controls(err));
    }
    std::remove(file.c_str());
    std::remove(cfg.c_str());
}

TEST_CASE("cli: format_rows escapes control characters in table and Markdown cells, not in CSV or JSON (issue 12 item 14)") {
    const std::vector<std::string> header = {"id", "name"};
    const std::vector<std::vector<std::string>> rows = {{"a", "x\x1b[31my\tz"}};
    CHECK(vl::format_rows(header, rows, vl::ExportFormat::Table) == "id  name\na   x\\x1b[31my\\x09z\n");
    CHECK(vl::format_rows(header, rows, vl::ExportFormat::Markdown) == "| id | name |\n|:--|:--|\n| a | x\\x1b[31my\\x09z |\n");
    CHECK(vl::format_rows(header, rows, vl::ExportFormat::Csv) == "id,name\na,x\x1b[31my\tz\n");
    CHECK(vl::escape_control_chars("plain caf\xc3\xa9 \xe2\x82\xac") == "plain caf\xc3\xa9 \xe2\x82\xac");  // UTF-8 text passes
}

TEST_CASE("cli: run() answers odd command lines with a status and a message, never an exception or exit()") {
    const std::vector<std::vector<std::string>> lines = {
        {}, {""}, {"", ""}, {"--"}, {"-"}, {"="}, {"--="}, {"-h="}, {"--help=x"}, {"---"}, {"++"}, {"estimate", "++"},
        {"estimate", "--set"}, {"estimate", "--set="}, {"estimate", "--set", "="}, {"estimate", "--format="},
        {"estimate", "--sp=", "--params", "1e9"}, {"estimate", "--params"}, {"estimate", "--params", "--params"},
        {"estimate", "-x"}, {"estimate", "-hx"}, {"solve", "--", "--"}, {"link", "--decode", "--decode"},
        {"link", "--decode=", "x"}, {"models", "--format", "json", "--format"}, {"import", "--", "/nonexistent"},
        {"estimate", std::string(1, '\0')}, {"estimate", "--set", std::string("a\0b=1", 5)}, {"help", "help"},
        {"version", "x"}, {"estimate", "--model", "\x1b[2J"}, {"estimate", std::string(100000, '-')},
    };
    for (const auto& args : lines) {
        std::string out, err;
        int status = -1;
        std::string shown;
        for (const std::string& a : args) shown.append(1, '[').append(a, 0, 40).append("] ");
        INFO(shown);
        CHECK_NOTHROW(status = vl::cli::run(args, out, err));
        CHECK(status >= 0);
        CHECK(status <= 3);
        CHECK((status == 0 ? !out.empty() : !err.empty()));
        CHECK(err.find("internal error") == std::string::npos);
    }
}


namespace {

// A folder for one test's checkpoint files, removed at the end.
struct TempDir {
    std::filesystem::path path;
    explicit TempDir(const std::string& name) : path(temp_path(name)) {
        std::filesystem::remove_all(path);
        std::filesystem::create_directories(path);
    }
    ~TempDir() { std::filesystem::remove_all(path); }
    std::string file(const std::string& name, const std::string& bytes) const {
        const std::string p = (path / name).string();
        std::ofstream(p, std::ios::binary) << bytes;
        return p;
    }
    std::string str() const { return path.string(); }
};

}  // namespace

TEST_CASE("cli: import a checkpoint folder reads the safetensors headers: counts per dtype and the files' true size (issue 17)") {
    TempDir d("ckpt");
    std::filesystem::copy_file(std::string(VRAMLENS_TEST_DATA) + "/configs/llama-3.1-8b.json", d.path / "config.json");
    // shard 1: embed BF16 [32, 8] (256 elements, 512 bytes) + norm F32 [8] (8, 32);
    // shard 2: lm_head BF16 [32, 8] (256, 512). BF16: 2 tensors, 512 elements, 1024 bytes.
    const std::string h1 = R"({"model.embed_tokens.weight": {"dtype": "BF16", "shape": [32, 8], "data_offsets": [0, 512]},
                               "model.norm.weight": {"dtype": "F32", "shape": [8], "data_offsets": [512, 544]}})";
    const std::string h2 = R"({"lm_head.weight": {"dtype": "BF16", "shape": [32, 8], "data_offsets": [0, 512]}})";
    const std::string s1 = d.file("model-00001-of-00002.safetensors", vl::test::safetensors_file(h1, 544));
    const std::string s2 = d.file("model-00002-of-00002.safetensors", vl::test::safetensors_file(h2, 512));
    d.file("model.safetensors.index.json", R"({"metadata": {"total_size": 1056}, "weight_map": {
        "model.embed_tokens.weight": "model-00001-of-00002.safetensors", "model.norm.weight": "model-00001-of-00002.safetensors",
        "lm_head.weight": "model-00002-of-00002.safetensors"}})");
    const uint64_t on_disk = std::filesystem::file_size(s1) + std::filesystem::file_size(s2);
    Run r = vramlens("import '" + d.str() + "' --format json");
    INFO(r.err);
    REQUIRE(r.status == 0);
    nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["model"]["hidden"] == 4096);  // the folder's config.json
    CHECK(j["checkpoint"]["file_bytes"] == on_disk);
    CHECK(j["checkpoint"]["tensor_bytes"] == 1056);
    CHECK(j["checkpoint"]["index_total_size"] == 1056);
    CHECK(j["checkpoint"]["elements"] == 256 + 8 + 256);
    REQUIRE(j["checkpoint"]["dtypes"].size() == 2);
    CHECK(j["checkpoint"]["dtypes"][0]["dtype"] == "BF16");
    CHECK(j["checkpoint"]["dtypes"][0]["elements"] == 512);
    CHECK(j["checkpoint"]["dtypes"][0]["bytes"] == 1024);
    CHECK(j["checkpoint"]["dtypes"][1]["dtype"] == "F32");
    CHECK(j["checkpoint"]["dtypes"][1]["tensors"] == 1);
    Run t = vramlens("import '" + d.str() + "'");
    CHECK_THAT(t.out, Catch::Contains("checkpoint: 2 safetensors files, " + vl::group_thousands(static_cast<int64_t>(on_disk)) + " bytes"));
    CHECK_THAT(t.out, Catch::Contains("BF16   2        512       1,024\n"));
    // One shard named by the index is gone: the present ones are counted, the size is the index's.
    std::filesystem::remove(s2);
    Run m = vramlens("import '" + d.str() + "' --format json");
    REQUIRE(m.status == 0);
    CHECK_THAT(m.err, Catch::Contains("warning: 1 of the 2 shards the index names are not here (model-00002-of-00002.safetensors)"));
    CHECK(nlohmann::json::parse(m.out)["checkpoint"]["file_bytes"].is_null());
    // A truncated shard is an error naming the file.
    std::filesystem::resize_file(s1, 8 + h1.size() + 100);
    Run bad = vramlens("import '" + d.str() + "'");
    CHECK(bad.status == 1);
    CHECK_THAT(bad.err, Catch::Contains("vramlens: " + s1 + " is not a valid safetensors file:\n  data_offsets: the tensors' bytes end at 544 "
                                        "but the file holds 100 bytes of data after its header: the file is truncated\n"));
}

TEST_CASE("cli: import reads only the headers: a 20 GB checkpoint with a hand-written header") {
    TempDir d("sparse");
    // 5 tensors BF16 [32768, 65536] = 2,147,483,648 elements, 4,294,967,296 bytes each: 21,474,836,480 bytes of data.
    std::string header = "{";
    for (int i = 0; i < 5; ++i)
        header += std::string(i ? ", " : "") + "\"w" + std::to_string(i) + "\": {\"dtype\": \"BF16\", \"shape\": [32768, 65536], \"data_offsets\": [" +
                  std::to_string(4294967296ull * i) + ", " + std::to_string(4294967296ull * (i + 1)) + "]}";
    header += "}";
    const std::string f = d.file("big.safetensors", vl::test::safetensors_file(header, 0));
    std::filesystem::resize_file(f, 8 + header.size() + 21474836480ull);  // sparse: nothing is written
    Run r = vramlens("import '" + f + "' --format json");
    INFO(r.err);
    REQUIRE(r.status == 0);
    nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["checkpoint"]["elements"] == 5ull * 2147483648ull);
    CHECK(j["checkpoint"]["file_bytes"] == 8 + header.size() + 21474836480ull);
}

TEST_CASE("cli: import a GGUF file: architecture, sizes, every tensor's type and bytes") {
    TempDir d("gguf");
    vl::test::GgufWriter w;
    w.string("general.architecture", "llama");
    w.string("general.name", "Tiny");
    w.u32("llama.context_length", 4096);
    w.u32("llama.block_count", 1);
    w.u32("llama.attention.head_count", 4);
    w.u32("llama.attention.head_count_kv", 2);
    w.u32("llama.embedding_length", 256);
    w.u32("llama.feed_forward_length", 512);
    w.strings("tokenizer.ggml.tokens", {"a", "b"});
    w.tensor("token_embd.weight", {256, 32}, 12, 4608);  // Q4_K: 32 blocks of 256 weights x 144 bytes
    w.tensor("output.weight", {256, 32}, 8, 8704);       // Q8_0: 256 blocks of 32 x 34 bytes
    const std::string f = d.file("tiny-Q4_K_M.gguf", w.file());
    Run r = vramlens("import '" + f + "' --format json");
    INFO(r.err);
    REQUIRE(r.status == 0);
    nlohmann::json j = nlohmann::json::parse(r.out)["gguf"];
    CHECK(j["architecture"] == "llama");
    CHECK(j["context_length"] == 4096);
    CHECK(j["head_count_kv"] == 2);
    CHECK(j["file_bytes"] == std::filesystem::file_size(f));
    CHECK(j["tensor_bytes"] == 4608 + 8704);
    CHECK(j["tensors"][1]["type"] == "Q8_0");
    CHECK(j["tensors"][1]["bytes"] == 8704);
    CHECK(j["layer_bytes"].empty());  // no blk.* tensor in this file
    CHECK(j["other_bytes"] == 4608 + 8704);
    CHECK(j["metadata"]["tokenizer.ggml.tokens"]["count"] == 2);
    Run t = vramlens("import '" + f + "'");
    CHECK_THAT(t.out, Catch::StartsWith("Tiny (llama), GGUF v3\n  context length 4,096, 1 layers, 4 heads (2 KV heads), embedding 256\n"));
    // The model from the metadata; --model takes the file as it takes a preset.
    CHECK(nlohmann::json::parse(r.out)["model"]["kv_heads"] == 2);
    Run e = vramlens("estimate --model '" + f + "' --mode infer --engine llama.cpp --weights q4_k_m --context 1024 --format json");
    INFO(e.err);
    CHECK(e.status == 0);
    CHECK(nlohmann::json::parse(e.out)["scenario"]["model"]["hidden"] == 256);
    // A folder with one .gguf reads it; a file that is not one says so.
    CHECK(vramlens("import '" + d.str() + "'").status == 0);
    const std::string bad = d.file("bad.gguf", "GGML and more");
    Run b = vramlens("import '" + bad + "'");
    CHECK(b.status == 1);
    CHECK(b.err == "vramlens: " + bad + " is not a valid GGUF file:\n  magic: the file does not start with \"GGUF\": it is not a GGUF file\n");
}

TEST_CASE("cli: --model FILE.gguf estimates and plans the file's own tensor bytes, with its type and llama.cpp") {
    TempDir d("gguf-bytes");
    const std::string f = d.file("two-block.gguf", vl::test::two_block_gguf().file());
    // tests/checkpoint_files.h: blk.0 376064 B, blk.1 342272 B, token_embd 4608, output 6720, output_norm 1024;
    // general.file_type 15 is Q4_K_M, which llama.cpp runs.
    Run e = vramlens("estimate --model '" + f + "' --mode infer --context 256 --format json");
    INFO(e.err);
    REQUIRE(e.status == 0);
    CHECK(e.err.find("note: --model: infer.engine llama.cpp, infer.weights q4_k_m (the GGUF file's general.file_type)\n") != std::string::npos);
    const nlohmann::json j = nlohmann::json::parse(e.out);
    CHECK(j["scenario"]["model"]["gguf_bytes"]["layers"] == nlohmann::json::array({376064, 342272}));
    std::map<std::string, double> bytes;
    for (const auto& c : j["components"]) bytes[c["id"].get<std::string>()] = c["bytes"].get<double>();
    CHECK(bytes["weights.linear"] == 376064 + 342272);
    CHECK(bytes["weights.embedding"] == 4608);
    CHECK(bytes["weights.lm_head"] == 6720);
    CHECK(bytes["weights.norms"] == 1024);
    // A flag given says otherwise: the engine is the user's (and vLLM does not load the file's bytes).
    Run v = vramlens("estimate --model '" + f + "' --mode infer --engine vllm --weights bf16 --format json");
    INFO(v.err);
    REQUIRE(v.status == 0);
    CHECK(v.err.find("note: --model") == std::string::npos);
    // Another llama.cpp type than the file's is another file: its bytes (typed q4_k_m) are kept but not used.
    Run q8 = vramlens("estimate --model '" + f + "' --mode infer --context 256 --weights q8_0 --format json");
    INFO(q8.err);
    REQUIRE(q8.status == 0);
    CHECK(q8.err.find("note: --model: infer.weights \"q8_0\" is not the GGUF file's type (q4_k_m): its tensor bytes are not used") != std::string::npos);
    const nlohmann::json jq = nlohmann::json::parse(q8.out);
    CHECK(jq["scenario"]["model"]["gguf_bytes"]["type"] == "q4_k_m");
    std::map<std::string, double> q8_bytes;
    for (const auto& c : jq["components"]) q8_bytes[c["id"].get<std::string>()] = c["bytes"].get<double>();
    CHECK(q8_bytes["weights.linear"] != 376064 + 342272);
    Run pq = vramlens("plan --model '" + f + "' --weights q8_0 --gpu rtx-4090 --ram 64GB --ctx 256 --format json");
    INFO(pq.err);
    REQUIRE(pq.status == 0);
    CHECK(pq.err.find("note: --weights q8_0 is not the GGUF file's type (q4_k_m)") != std::string::npos);
    CHECK(nlohmann::json::parse(pq.out)["devices"][0]["weights_bytes"] != 726080);
    // plan: every layer and the output on the GPU: 718336 + 6720 + 1024 = 726080 B; token_embd in RAM.
    Run p = vramlens("plan --model '" + f + "' --gpu rtx-4090 --ram 64GB --ctx 256 --format json");
    INFO(p.err);
    REQUIRE(p.status == 0);
    const nlohmann::json pj = nlohmann::json::parse(p.out);
    CHECK(pj["devices"][0]["weights_bytes"] == 726080);
    CHECK(pj["devices"][1]["weights_bytes"] == 4608);
    CHECK(pj["launch"].get<std::string>().rfind("llama-server -m " + f + " -ngl 3 ", 0) == 0);
}

TEST_CASE("cli: import an AWQ checkpoint: the weight format, quantized and kept tensors apart") {
    TempDir d("awq");
    d.file("config.json", R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 1,
        "num_attention_heads": 4, "num_key_value_heads": 4, "vocab_size": 32,
        "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 64, "zero_point": true, "version": "gemm"}})");
    // down_proj in 128 -> out 64, 4-bit, group 64: qweight I32 [128, 8] (1024 x 8 = 8192 = 128 x 64 weights),
    // qzeros I32 [2, 8], scales F16 [2, 64]; embedding F16 [32, 64] kept.
    d.file("model.safetensors", vl::test::safetensors_file(R"({
        "model.layers.0.mlp.down_proj.qweight": {"dtype": "I32", "shape": [128, 8], "data_offsets": [0, 4096]},
        "model.layers.0.mlp.down_proj.qzeros": {"dtype": "I32", "shape": [2, 8], "data_offsets": [4096, 4160]},
        "model.layers.0.mlp.down_proj.scales": {"dtype": "F16", "shape": [2, 64], "data_offsets": [4160, 4416]},
        "model.embed_tokens.weight": {"dtype": "F16", "shape": [32, 64], "data_offsets": [4416, 8512]}})", 8512));
    Run r = vramlens("import '" + d.str() + "' --format json");
    INFO(r.err);
    REQUIRE(r.status == 0);
    nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["quantization"]["weights"] == "awq-4bit");
    CHECK(j["quantization"]["group_size"] == 64);
    CHECK(j["checkpoint"]["quantized"]["params"] == 128 * 64);
    CHECK(j["checkpoint"]["quantized"]["bytes"] == 4096 + 64 + 256);
    CHECK(j["checkpoint"]["not_quantized"]["params"] == 32 * 64);
    CHECK_THAT(vramlens("import '" + d.str() + "'").out, Catch::Contains("quantization: AWQ 4-bit, group size 64 (--weights awq-4bit)\n"));
    // --model FOLDER reads the folder's config.json
    Run e = vramlens("scenario --model '" + d.str() + "'");
    INFO(e.err);
    CHECK(e.status == 0);
    CHECK(nlohmann::json::parse(e.out)["model"]["hidden"] == 64);
}

TEST_CASE("cli: import a LoRA adapter folder: rank and targets on the named base model") {
    TempDir d("lora");
    d.file("adapter_config.json", R"({"peft_type": "LORA", "base_model_name_or_path": "meta-llama/Llama-3.1-8B", "r": 16,
        "lora_alpha": 32, "target_modules": ["q_proj", "v_proj"]})");
    // lora_A [16, 4096] and lora_B [4096, 16] of one q_proj: 2 x 65,536 = 131,072 F32 elements.
    d.file("adapter_model.safetensors", vl::test::safetensors_file(R"({
        "base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight": {"dtype": "F32", "shape": [16, 4096], "data_offsets": [0, 262144]},
        "base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight": {"dtype": "F32", "shape": [4096, 16], "data_offsets": [262144, 524288]}})", 524288));
    Run r = vramlens("import '" + d.str() + "'");
    INFO(r.err);
    REQUIRE(r.status == 0);
    CHECK_THAT(r.out, Catch::StartsWith("LoRA adapter on meta-llama/Llama-3.1-8B: rank 16, alpha 32, targets q_proj,v_proj\n"
                                        "  as scenario flags: --mode finetune --method lora --lora-rank 16 --lora-targets q_proj,v_proj\n"));
    nlohmann::json j = nlohmann::json::parse(vramlens("import '" + d.str() + "' --format json").out);
    CHECK(j["checkpoint"]["elements"] == 131072);
    CHECK(j["adapter"]["rank"] == 16);
}

TEST_CASE("cli: import a repo id from the local Hugging Face cache (HF_HOME), and with HF_HUB_OFFLINE one not there is not asked for") {
    TempDir home("hfhome");
    const std::string commit = "0123456789abcdef0123456789abcdef01234567";
    const std::filesystem::path repo = home.path / "hub" / "models--acme--tiny";
    std::filesystem::create_directories(repo / "refs");
    std::filesystem::create_directories(repo / "snapshots" / commit);
    std::ofstream(repo / "refs" / "main") << commit;
    std::filesystem::copy_file(std::string(VRAMLENS_TEST_DATA) + "/configs/gpt2.json", repo / "snapshots" / commit / "config.json");
    ::setenv("HF_HOME", home.str().c_str(), 1);
    ::unsetenv("HF_HUB_CACHE");
    Run r = vramlens("import acme/tiny --format json");
    Run at = vramlens("import acme/tiny@" + commit + " --format json");
    Run url = vramlens("import https://huggingface.co/acme/tiny --format json");
    ::setenv("HF_HUB_OFFLINE", "1", 1);  // huggingface_hub's switch: nothing is requested [hf-hub-client]
    Run missing = vramlens("import acme/other");
    Run missing_model = vramlens("estimate --model acme/other");
    ::unsetenv("HF_HUB_OFFLINE");
    ::unsetenv("HF_HOME");
    INFO(r.err);
    REQUIRE(r.status == 0);
    CHECK(nlohmann::json::parse(r.out)["model"]["model_type"] == "gpt2");
    CHECK(at.status == 0);
    CHECK(url.status == 0);
    CHECK(missing.status == 1);
    const std::string offline = "vramlens: \"acme/other\" is not a file or folder here, and the Hugging Face cache (" + home.str() +
                                "/hub) has no acme/other; HF_HUB_OFFLINE is set, so the Hub is not asked.\n  Without the network: download "
                                "the model's config.json (and, for exact sizes, its *.safetensors or .gguf files) from its page and paste or "
                                "drop config.json into the page, or run `vramlens import <local folder>`.\n";
    CHECK(missing.err == offline);
    CHECK(missing_model.status != 0);
    CHECK(missing_model.err.find(offline) != std::string::npos);
}

#endif  // VRAMLENS_CLI_PATH

TEST_CASE("cli: every command shown in the README's Command line section runs") {
    // The README block between "## Command line" and the next ``` fence lists one command per line.
    const std::string readme = slurp(std::string(VRAMLENS_TEST_DATA) + "/../../README.md");
    const size_t section = readme.find("## Command line");
    REQUIRE(section != std::string::npos);
    const size_t open = readme.find("```sh\n", section);
    REQUIRE(open != std::string::npos);
    const size_t close = readme.find("```", open + 6);
    std::istringstream block(readme.substr(open + 6, close - open - 6));
    int commands = 0;
    for (std::string line; std::getline(block, line);) {
        REQUIRE(line.rfind("vramlens ", 0) == 0);  // one plain command per line, nothing to strip
        // Paths in the README are relative to the repository root.
        const std::string root = std::string(VRAMLENS_TEST_DATA) + "/../../";
        std::string args = line.substr(9);
        for (const char* rel : {"docs/", "tests/"})
            for (size_t at = args.find(rel); at != std::string::npos; at = args.find(rel, at + root.size() + 1))
                if (at == 0 || args[at - 1] == ' ') args.insert(at, root);
        Run r = vramlens(args);
        INFO(line << "\nstderr: " << r.err);
        CHECK(r.status == 0);
        CHECK_FALSE(r.out.empty());
        ++commands;
    }
    CHECK(commands >= 8);
}

TEST_CASE("cli: optimizers lists the optimizer table, and --optimizer's help names its rows") {
    Run r = vramlens("optimizers --format csv");
    REQUIRE(r.status == 0);
    CHECK_THAT(r.out, Catch::StartsWith("optimizer,state per parameter,bytes/param (fp32 states),master weights,source\n"));
    // Adam: m and v, 2 x 4 B [kingma2015]; 8-bit Adam: 2 x (1 B + 4 B / 2048) = 2.0039 B [adam8bit2022]
    CHECK_THAT(r.out, Catch::Contains("\nadamw,2 x state dtype,8,fp32 in mixed precision,"));
    CHECK_THAT(r.out, Catch::Contains("\nadamw-8bit,\"2 x (1 B + 4 B / 2,048)\",2.0039,fp32 in mixed precision,"));
    CHECK_THAT(r.out, Catch::Contains("\nsgd,none,0,"));
    CHECK(vramlens("optimizers --help").status == 0);
    for (const char* help : {"--help", "estimate --help"})
        CHECK_THAT(vramlens(help).out, Catch::Contains("sgd | sgd-momentum | adamw | adamw-8bit | adafactor | lion | custom"));
}

TEST_CASE("cli: profiles lists each profile's settings, and --profile applies one before the other flags") {
    Run list = vramlens("profiles --format csv");
    REQUIRE(list.status == 0);
    CHECK_THAT(list.out, Catch::StartsWith("profile,label,modes,versions,default for,field,value,source\n"));
    // [qlora-code] lora_r=64; [vllm-serve-flags] --gpu-memory-utilization 0.9
    CHECK_THAT(list.out, Catch::Contains("\npeft-qlora,PEFT + bitsandbytes QLoRA (the QLoRA reference script),finetune,artidoro/qlora qlora.py,,finetune.lora_rank,64,"));
    CHECK_THAT(list.out, Catch::Contains("\nvllm,vLLM (vllm serve defaults),infer,vLLM >= 0.6,,infer.gpu_memory_utilization,0.9,"));

    // The flag after --profile wins over the profile (QLoRA's rank 64 becomes 16).
    Run e = vramlens("estimate --model llama-3.1-8b --mode finetune --profile peft-qlora --lora-rank 16 --format json");
    REQUIRE(e.status == 0);
    const nlohmann::json j = nlohmann::json::parse(e.out);
    CHECK(j["scenario"]["profile"] == "peft-qlora");
    CHECK(j["scenario"]["finetune"]["method"] == "qlora");
    CHECK(j["scenario"]["finetune"]["lora_rank"] == 16);
    CHECK(j["profile"]["id"] == "peft-qlora");
    CHECK(j["profile"]["intact"] == false);
    double sum = 0;
    for (const auto& m : j["mechanisms"]) sum += m["bytes"].get<double>();
    CHECK(sum == Approx(j["total_bytes"].get<double>()));

    Run table = vramlens("estimate --model llama-3.1-8b --mode infer --profile vllm");
    REQUIRE(table.status == 0);
    CHECK_THAT(table.out, Catch::Contains("\nprofile: vLLM (vllm serve defaults) (vLLM >= 0.6; sets: infer.engine = vllm, "));
    CHECK_THAT(table.out, Catch::Contains("\nBy mechanism at the peak: "));

    Run bad = vramlens("estimate --profile nope");
    CHECK(bad.status == 1);
    CHECK_THAT(bad.err, Catch::Contains("unknown profile \"nope\": give one of transformers-trainer-v5, "));
    Run other = vramlens("estimate --mode train --profile vllm");
    CHECK(other.status == 1);
    CHECK_THAT(other.err, Catch::Contains("applies to mode infer, not to mode train"));
}

TEST_CASE("cli: --torch-version sets train.torch_version as text, a bad release names the field and the flag") {
    // "2.10" must not read as the number 2.1; "latest" is no release.
    const Run text = vramlens("scenario --model llama-3.1-8b --dp 8 --torch-version 2.10");
    const Run bad = vramlens("estimate --model llama-3.1-8b --dp 8 --zero 3 --torch-version latest");
    CHECK((text.status == 0 && bad.status == 1));
    CHECK(nlohmann::json::parse(text.out)["train"]["torch_version"] == "2.10");
    CHECK_THAT(bad.err, Catch::Contains("train.torch_version (from --torch-version): must be a PyTorch release of 2.1 or later"));
}

TEST_CASE("cli: --vllm-version picks the release's budget rule, a release number stays text") {
    // 0.11 puts the CUDA context beside the budget; "0.10" must not read as the number 0.1.
    Run r = vramlens("estimate --model llama-3.1-8b --mode infer --engine vllm --gpu h100-80gb --vllm-version 0.11");
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("CUDA context (beside vLLM's budget)"));
    r = vramlens("scenario --model llama-3.1-8b --mode infer --engine vllm --vllm-version 0.10");
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("\"vllm_version\": \"0.10\""));
    r = vramlens("estimate --model llama-3.1-8b --mode infer --engine vllm --vllm-version 0.6.4");
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("Non-torch memory in vLLM's budget (CUDA context, NCCL)"));
    r = vramlens("estimate --model llama-3.1-8b --mode infer --engine vllm --vllm-version latest");
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::Contains("infer.vllm_version (from --vllm-version): must be a vLLM release such as \"0.6.5\""));
    r = vramlens("plan --engine vllm --model llama-3.1-8b --gpu h100-80gb --vllm-version latest");
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::Contains("infer.vllm_version: must be a vLLM release such as \"0.6.5\""));
    r = vramlens("plan --engine sglang --model llama-3.1-8b --gpu h100-80gb --vllm-version 0.11");
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::Contains("--vllm-version is a vLLM flag"));
}

TEST_CASE("cli: --vllm-moe-backend picks vLLM's MXFP4 MoE kernel, whose padding the estimate names") {
    // gpt-oss-20b on an H100 with vLLM 0.14.1: Triton by default, Marlin when asked (VLLM_MXFP4_USE_MARLIN=1).
    const std::string base = "estimate --model gpt-oss-20b --mode infer --engine vllm --weights mxfp4 --gpu h100-80gb --vllm-version 0.14.1 --context 4096";
    const std::pair<std::string, std::string> runs[] = {
        {base, "Weights: MXFP4 experts as vLLM's Triton MoE kernel pads them"},
        {base + " --vllm-moe-backend marlin", "Weights: MXFP4 experts as vLLM's Marlin MoE kernel pads them"},
        {"scenario --model gpt-oss-20b --mode infer --engine vllm --vllm-moe-backend flashinfer_cutlass", "\"vllm_moe_backend\": \"flashinfer_cutlass\""},
    };
    for (const auto& [args, shown] : runs) {
        const Run r = vramlens(args);
        INFO(args);
        CHECK(r.status == 0);
        CHECK_THAT(r.out, Catch::Contains(shown));
    }
    const Run bad = vramlens(base + " --vllm-moe-backend cutlass");
    CHECK(bad.status != 0);
    CHECK_THAT(bad.err, Catch::Contains("infer.vllm_moe_backend"));
}

TEST_CASE("cli: training an encoder with its classification head, and LoRA on it refused by field") {
    Run r = vramlens("estimate --model bert-large-uncased --mode train --num-labels 2 --precision fp32 --micro-batch 4 --seq 512 "
                     "--set train.dropout=0.1 --set train.flash_attention=false --format json");
    REQUIRE(r.status == 0);
    nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["scenario"]["model"]["num_labels"] == 2);
    double scores = -1, head = -1;
    for (const auto& c : j["components"]) {
        if (c["id"] == "act.scores") scores = c["bytes"].get<double>();
        if (c["id"] == "act.encoder_head") head = c["bytes"].get<double>();
    }
    // 24 layers x b*heads*s^2 (4*16*512^2) x (fp32 softmax 4 + dropout mask 1 + dropped probabilities 4 B).
    CHECK(scores == 24.0 * 4 * 16 * 512 * 512 * 9);
    // the pooler keeps the fp32 last hidden state (4*512*1024*4 B), tanh's output and the classifier's mask and
    // input (4*1024 elements: 4 + 1 + 4 B).
    CHECK(head == 4.0 * 512 * 1024 * 4 + 4.0 * 1024 * 9);
    r = vramlens("estimate --model bert-large-uncased --mode finetune --method lora --seq 512");
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Catch::Contains("finetune.method (from --method): LoRA and QLoRA for an encoder (bert) is not modelled yet; use method full"));
}
