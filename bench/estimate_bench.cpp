// Speed figures (issue 8): printed by Google Benchmark, never asserted in tests (scripts/bench.sh
// runs this). Budgets: one estimate <= 1 us (median), the 10,000-point chart sweep <= 10 ms, each
// solver <= 50 us, each local plan (issue 19) <= 10 ms. After the usual table a summary prints each figure against its budget and as a
// multiple of Reference/work (bench::reference_work, plain code timed in the same run: the ratio
// moves much less with the machine and its load than the figure). `--check` makes the exit status
// non-zero when a figure is over budget (for a quiet machine you trust; never in the test command).
//
//   build/native/bench/vramlens_bench                       all figures (5 repetitions, medians)
//   build/native/bench/vramlens_bench --benchmark_filter=Solve
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>

#include <filesystem>
#include <fstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "alloc_count.h"
#include "cli.h"
#include "model/presets.h"
#include "planner/compare.h"
#include "planner/planner.h"
#include "planner/rank.h"
#include "planner/serving.h"
#include "workloads.h"

using namespace vl;

namespace {

// A Llama-3-70B checkpoint folder as the Hub serves it (config.json, model.safetensors.index.json and
// 30 bf16 shards with real safetensors headers: 723 tensors, 70,553,706,496 parameters), the shards
// sparse files of their true sizes (141 GB that take no disk), for `vramlens import DIR` (issue 17:
// "a 70B checkpoint is imported in well under a second without reading weights").
std::string make_70b_checkpoint() {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / "vramlens_bench_llama3_70b";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const int64_t h = 8192, kv = 1024, f = 28672, V = 128256, L = 80;
    std::ofstream(dir / "config.json") << R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 8192,
        "intermediate_size": 28672, "num_hidden_layers": 80, "num_attention_heads": 64, "num_key_value_heads": 8,
        "vocab_size": 128256, "max_position_embeddings": 8192, "rms_norm_eps": 1e-05, "rope_theta": 500000.0,
        "tie_word_embeddings": false, "torch_dtype": "bfloat16"})";
    struct T { std::string name; std::vector<int64_t> shape; };
    std::vector<std::vector<T>> shards(30);
    shards.front().push_back({"model.embed_tokens.weight", {V, h}});
    for (int64_t l = 0; l < L; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        std::vector<T>& s = shards[static_cast<size_t>(l * 30 / L)];
        for (const T& t : std::vector<T>{{"self_attn.q_proj.weight", {h, h}}, {"self_attn.k_proj.weight", {kv, h}},
                                         {"self_attn.v_proj.weight", {kv, h}}, {"self_attn.o_proj.weight", {h, h}},
                                         {"mlp.gate_proj.weight", {f, h}}, {"mlp.up_proj.weight", {f, h}},
                                         {"mlp.down_proj.weight", {h, f}}, {"input_layernorm.weight", {h}},
                                         {"post_attention_layernorm.weight", {h}}})
            s.push_back({p + t.name, t.shape});
    }
    shards.back().push_back({"model.norm.weight", {h}});
    shards.back().push_back({"lm_head.weight", {V, h}});
    nlohmann::json index = {{"metadata", {{"total_size", 0}}}, {"weight_map", nlohmann::json::object()}};
    int64_t total = 0;
    for (size_t i = 0; i < shards.size(); ++i) {
        char name[64];
        std::snprintf(name, sizeof name, "model-%05zu-of-00030.safetensors", i + 1);
        nlohmann::json header = {{"__metadata__", {{"format", "pt"}}}};
        int64_t offset = 0;
        for (const T& t : shards[i]) {
            int64_t n = 2;
            for (int64_t d : t.shape) n *= d;
            header[t.name] = {{"dtype", "BF16"}, {"shape", t.shape}, {"data_offsets", {offset, offset + n}}};
            index["weight_map"][t.name] = name;
            offset += n;
        }
        const std::string text = header.dump();
        const uint64_t len = text.size();
        std::ofstream out(dir / name, std::ios::binary);
        for (int b = 0; b < 8; ++b) out.put(static_cast<char>((len >> (8 * b)) & 0xff));
        out << text;
        out.close();
        fs::resize_file(dir / name, 8 + len + static_cast<uint64_t>(offset));  // sparse: the weights are never written
        total += offset;
    }
    index["metadata"]["total_size"] = total;
    std::ofstream(dir / "model.safetensors.index.json") << index.dump();
    return dir.string();
}

void BM_Import70B(benchmark::State& state) {
    const std::string dir = make_70b_checkpoint();
    std::string out, err;
    for (auto _ : state) {
        out.clear();
        err.clear();
        if (cli::run({"import", dir}, out, err) != 0) state.SkipWithError(err.c_str());
        benchmark::DoNotOptimize(out.data());
    }
    std::filesystem::remove_all(dir);
}

// Heap allocations (bench/alloc_count.cpp) per iteration since `since`, divided by `per`: a counter
// printed beside the time ("allocs"), never a budget.
void count_allocations(benchmark::State& state, const bench::AllocCount& since, double per = 1) {
    const double n = static_cast<double>(state.iterations()) * per;
    state.counters["allocs"] = n > 0 ? static_cast<double>(bench::allocations().calls - since.calls) / n : 0;
}

void run_estimate(benchmark::State& state, const Scenario& s, Detail d) {
    const bench::AllocCount a0 = bench::allocations();
    for (auto _ : state) benchmark::DoNotOptimize(estimate(s, d));
    count_allocations(state, a0);
}
void BM_EstimateTrain(benchmark::State& st) { run_estimate(st, bench::train_llama8b(), Detail::NumbersOnly); }
void BM_EstimateMoE(benchmark::State& st) { run_estimate(st, bench::train_deepseek_v3(), Detail::NumbersOnly); }
void BM_EstimateQlora(benchmark::State& st) { run_estimate(st, bench::qlora_llama8b(), Detail::NumbersOnly); }
void BM_EstimateVllm(benchmark::State& st) { run_estimate(st, bench::infer_vllm_llama8b(), Detail::NumbersOnly); }
// One of each other kind, for their allocations per estimate beside the times (not budgeted).
void BM_EstimateLora(benchmark::State& st) { run_estimate(st, bench::lora_llama8b(), Detail::NumbersOnly); }
void BM_EstimateTransformers(benchmark::State& st) { run_estimate(st, bench::infer_transformers_llama8b(), Detail::NumbersOnly); }
void BM_EstimateLlamaCpp(benchmark::State& st) { run_estimate(st, bench::infer_llamacpp_llama8b(), Detail::NumbersOnly); }
void BM_EstimateTrainFull(benchmark::State& st) { run_estimate(st, bench::train_llama8b(), Detail::Full); }

void BM_Reference(benchmark::State& state) {
    for (auto _ : state) benchmark::DoNotOptimize(bench::reference_work());
}

void BM_Sweep10k(benchmark::State& state) {
    const Scenario s = bench::train_llama8b();
    const bench::AllocCount a0 = bench::allocations();
    for (auto _ : state) benchmark::DoNotOptimize(bench::sweep_10k(s));
    count_allocations(state, a0, bench::kSweepPoints);  // per estimate
    state.counters["points"] = bench::kSweepPoints;
}

// Each solver on a scenario where it has to search (answer well inside its range).
template <Knob K>
void BM_Solve(benchmark::State& state) {
    Scenario s = (K == Knob::MicroBatch || K == Knob::SeqLen || K == Knob::GpuCount) ? bench::train_llama8b()
                                                                                     : bench::infer_transformers_llama8b();
    if (K == Knob::GpuCount) { s.parallel.dp = 1; s.gpu_count = 1; s.parallel.zero = 3; s.gpu.memory_bytes = 24e9; }
    if (K == Knob::WeightFormat) s.gpu.memory_bytes = 12e9;
    int evaluations = 0;
    const bench::AllocCount a0 = bench::allocations();
    for (auto _ : state) {
        const SolveResult r = solve(s, K);
        evaluations = r.evaluations;
        benchmark::DoNotOptimize(r.value);
    }
    count_allocations(state, a0);  // per solve
    state.counters["estimates"] = evaluations;
}

// The local planners (issue 19: "the search over placements for one model runs in milliseconds").
// GPU sizes are the driver's totals of the RTX 4090 and RTX 3060 12GB presets (assets/presets/gpus.json).
constexpr double kGiB = 1024.0 * 1024 * 1024;
PlanInput plan_70b_two_gpus() {
    PlanInput in;
    in.model = bench::llama3_70b();
    in.weights = WeightFormat::GGUF_Q4_K_M;
    in.context = 8192;
    in.gpus = {{"RTX 4090", 25757220864.0, -1}, {"RTX 3060 12GB", 12884901888.0, -1}};
    in.ram_bytes = 64 * kGiB;
    return in;  // ngl < 0: searched, then the largest context at it
}
PlanInput plan_qwen3_moe_cpu_experts() {
    PlanInput in;
    in.model = bench::qwen3_30b_a3b();
    in.weights = WeightFormat::GGUF_Q4_K_M;
    in.context = 32768;
    in.flash_attention = true;
    in.gpus = {{"RTX 3060 12GB", 12884901888.0, -1}};
    in.ram_bytes = 32 * kGiB;
    in.n_cpu_moe = 24;
    return in;
}
// Times make_plan() and reports two of the plan's numbers (fields a and b) as counters.
template <class P, class F>
void run_planner(benchmark::State& state, F make_plan, const char* name_a, int64_t P::*a, const char* name_b, int64_t P::*b) {
    P last;
    for (auto _ : state) {
        last = make_plan();
        if (!last.ok()) state.SkipWithError(last.error.c_str());
        benchmark::DoNotOptimize(last.*a);
    }
    state.counters[name_a] = static_cast<double>(last.*a);
    state.counters[name_b] = static_cast<double>(last.*b);
}
void run_plan(benchmark::State& state, const PlanInput& in) {
    run_planner(state, [&] { return plan_llamacpp(in); }, "ngl", &Plan::ngl, "max_context", &Plan::max_context);
}
void BM_PlanLlamaCpp70B(benchmark::State& st) { run_plan(st, plan_70b_two_gpus()); }
void BM_PlanLlamaCppMoE(benchmark::State& st) { run_plan(st, plan_qwen3_moe_cpu_experts()); }
void BM_PlanServing(benchmark::State& state) {
    ServingPlanInput in;
    in.model = bench::llama3_70b();
    in.model.max_position = 131072;  // Llama-3.1-70B: the longest --max-model-len that fits is searched, not the cap
    in.gpus.assign(8, PlanGpu{"RTX 4090", 25757220864.0, -1});  // tp and pp chosen
    run_planner(state, [&] { return plan_serving(in); }, "tp", &ServingPlan::tp, "largest_max_model_len", &ServingPlan::largest_max_model_len);
}

// The levers the page computes on each change of a scenario that does not fit (fit_levers): a full
// fine-tune of Llama-3-8B on one 24 GB GPU, each candidate change an estimate, two fewest-GPU searches.
void BM_Levers(benchmark::State& state) {
    Scenario s = bench::train_llama8b();
    s.mode = Mode::FineTune;
    s.finetune.method = FineTuneMethod::Full;
    s.parallel = Parallelism{};
    s.gpu_count = 1;
    s.gpu.memory_bytes = 24e9;
    const Estimate e = estimate(s, Detail::NumbersOnly);
    size_t n = 0;
    for (auto _ : state) {  // as the page computes them on a change: the answers, then the levers
        const std::vector<Lever> ls = fit_levers(s, e, fit_answers(s, e));
        n = ls.size();
        benchmark::DoNotOptimize(n);
    }
    state.counters["levers"] = static_cast<double>(n);
}

// Which model fits best (`plan --rank` with no --model): the current presets x every GGUF type on one
// RTX 4090 + 64 GiB, each a plan and a speed. Not budgeted (a request in the page, not per change).
void BM_RankPresets(benchmark::State& state) {
    RankInput in;
    const GpuPreset* g = find_gpu("rtx-4090");
    in.machine.gpus = {{g->name, g->memory_bytes, -1}};
    in.gpu_presets = {g};
    in.machine.ram_bytes = 64 * kGiB;
    Ranking last;
    for (auto _ : state) {
        last = rank_models(in);
        if (!last.ok()) state.SkipWithError(last.error.c_str());
        benchmark::DoNotOptimize(last.rows.data());
    }
    state.counters["rows"] = static_cast<double>(last.rows.size());
    state.counters["ranked"] = static_cast<double>(last.ranked);
}
// The compare grid (`plan --compare`): 4 models x 3 GGUF types x 3 machines (a PC, two unlike GPUs, a Mac).
void BM_CompareGrid(benchmark::State& state) {
    CompareInput in;
    for (const char* id : {"qwen3-8b", "llama-3.1-8b", "qwen3-30b-a3b", "llama-3.1-70b"})
        if (const ModelPreset* p = find_model(id)) in.models.push_back({id, p->spec});
    in.weights = {WeightFormat::GGUF_Q4_K_M, WeightFormat::GGUF_Q6_K, WeightFormat::GGUF_Q8_0};
    in.machines = {LocalMachine{{"rtx-4090"}, 64 * kGiB, ""}, LocalMachine{{"rtx-4090", "rtx-3060-12gb"}, 32 * kGiB, ""},
                   LocalMachine{{}, 96 * kGiB, "m2-max"}};
    in.context = 8192;
    CompareGrid last;
    for (auto _ : state) {
        last = compare_grid(in);
        if (!last.ok()) state.SkipWithError(last.error.c_str());
        benchmark::DoNotOptimize(last.cells.data());
    }
    state.counters["cells"] = static_cast<double>(last.cells.size());
}

// name -> budget in ns (the median of the repetitions must stay under it)
const std::map<std::string, double> kBudgetNs = {
    {"Estimate/train_llama8b", 1e3}, {"Estimate/train_deepseek_v3_pp8", 1e3}, {"Estimate/qlora_llama8b", 1e3},
    {"Estimate/infer_vllm_llama8b", 1e3}, {"Sweep10k", 10e6},
    {"Solve/micro_batch", 50e3}, {"Solve/seq_len", 50e3}, {"Solve/batch", 50e3}, {"Solve/context", 50e3},
    {"Solve/gpu_count", 50e3}, {"Solve/weight_format", 50e3},
    {"Import/local_llama3_70b_30_shards", 1e9},  // issue 17: "well under a second"
    // issue 19: "runs in milliseconds"
    {"Plan/llamacpp_llama3_70b_24g_12g_64g", 10e6}, {"Plan/llamacpp_qwen3_30b_a3b_n_cpu_moe", 10e6},
    {"Plan/serving_vllm_llama31_70b_8x4090", 10e6},
};

// Keeps the console table and remembers each median (wall and CPU) for the summary.
class BudgetReporter : public benchmark::ConsoleReporter {
public:
    struct Figure { double real_ns = 0, cpu_ns = 0; };
    std::map<std::string, Figure> median;
    void ReportRuns(const std::vector<Run>& runs) override {
        ConsoleReporter::ReportRuns(runs);
        for (const Run& r : runs) {
            if (r.run_type != Run::RT_Aggregate || r.aggregate_name != "median") continue;
            const double to_ns = r.time_unit == benchmark::kMicrosecond ? 1e3 : r.time_unit == benchmark::kMillisecond ? 1e6 : 1.0;
            median[r.run_name.function_name] = {r.GetAdjustedRealTime() * to_ns, r.GetAdjustedCPUTime() * to_ns};
        }
    }
};

}  // namespace

BENCHMARK(BM_Reference)->Name("Reference/work")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_EstimateTrain)->Name("Estimate/train_llama8b");
BENCHMARK(BM_EstimateMoE)->Name("Estimate/train_deepseek_v3_pp8");
BENCHMARK(BM_EstimateQlora)->Name("Estimate/qlora_llama8b");
BENCHMARK(BM_EstimateVllm)->Name("Estimate/infer_vllm_llama8b");
BENCHMARK(BM_EstimateLora)->Name("Estimate/lora_llama8b");
BENCHMARK(BM_EstimateTransformers)->Name("Estimate/infer_transformers_llama8b");
BENCHMARK(BM_EstimateLlamaCpp)->Name("Estimate/infer_llamacpp_llama8b");
BENCHMARK(BM_EstimateTrainFull)->Name("Estimate/train_llama8b_full_detail");  // with formula text: not budgeted
BENCHMARK(BM_Sweep10k)->Name("Sweep10k")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Solve<Knob::MicroBatch>)->Name("Solve/micro_batch")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Solve<Knob::SeqLen>)->Name("Solve/seq_len")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Solve<Knob::Batch>)->Name("Solve/batch")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Solve<Knob::Context>)->Name("Solve/context")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Solve<Knob::GpuCount>)->Name("Solve/gpu_count")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Solve<Knob::WeightFormat>)->Name("Solve/weight_format")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PlanLlamaCpp70B)->Name("Plan/llamacpp_llama3_70b_24g_12g_64g")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PlanLlamaCppMoE)->Name("Plan/llamacpp_qwen3_30b_a3b_n_cpu_moe")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PlanServing)->Name("Plan/serving_vllm_llama31_70b_8x4090")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RankPresets)->Name("Plan/rank_presets_4090_64g")->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_CompareGrid)->Name("Plan/compare_4x3x3")->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_Levers)->Name("Solve/levers_full_finetune_8b_24g")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Import70B)->Name("Import/local_llama3_70b_30_shards")->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
    bool check = false;
    std::vector<char*> args;
    bool has_reps = false;
    for (int i = 0; i < argc; ++i) {
        if (std::strcmp(argv[i], "--check") == 0) { check = true; continue; }
        if (std::strncmp(argv[i], "--benchmark_repetitions", 23) == 0) has_reps = true;
        args.push_back(argv[i]);
    }
    // Medians of 5 repetitions by default (the budgets are on the median).
    static char reps[] = "--benchmark_repetitions=5";
    static char aggr[] = "--benchmark_report_aggregates_only=true";
    if (!has_reps) { args.push_back(reps); args.push_back(aggr); }
    int n = static_cast<int>(args.size());
    benchmark::Initialize(&n, args.data());
    if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 2;
    BudgetReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();

    // The verdict uses CPU time: on a shared machine wall time also counts other processes' turns.
    int over = 0;
    const auto ref = reporter.median.find("Reference/work");
    const double ref_ns = ref != reporter.median.end() ? ref->second.cpu_ns : 0;
    std::printf("\nvramlens speed budgets (median of the repetitions; verdict on CPU time; printed, not a test):\n");
    std::printf("  %-36s %12s %12s %12s %12s\n", "", "cpu us", "wall us", "budget us", "x reference");
    for (const auto& [name, f] : reporter.median) {
        const auto b = kBudgetNs.find(name);
        const bool has_budget = b != kBudgetNs.end();
        const bool ok = !has_budget || f.cpu_ns <= b->second;
        over += ok ? 0 : 1;
        std::printf("  %-36s %12.3f %12.3f %12s %12.4g   %s\n", name.c_str(), f.cpu_ns / 1e3, f.real_ns / 1e3,
                    has_budget ? std::to_string(b->second / 1e3).substr(0, 7).c_str() : "-", ref_ns > 0 ? f.cpu_ns / ref_ns : 0.0,
                    !has_budget ? "(not budgeted)" : ok ? "within budget" : "over budget");
    }
    return check && over > 0 ? 1 : 0;
}
