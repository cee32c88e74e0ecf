// Renders the speed calibration (speed_report.h).
#include "speed_report.h"

#include <algorithm>
#include <cmath>
#include "text_format.h"
#include <nlohmann/json.hpp>

#include "accuracy_report.h"
#include "enum_names.h"
#include "model/presets.h"
#include "planner/planner.h"

namespace vl::report {
namespace {

using json = nlohmann::json;

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double round_sig3(double x) {
    if (x == 0) return 0;
    const double scale = std::pow(10.0, 2 - std::floor(std::log10(std::fabs(x))));
    return std::round(x * scale) / scale;
}

double round2(double x) { return std::round(x * 100) / 100; }

bool is_prefill(const std::string& test) { return test.rfind("pp", 0) == 0 || test == "server-prompt"; }

// The row's machine and its plan: every layer on the one device, at the row's context.
struct RowSetup {
    PlanInput in;
    SpeedInput s;
};

RowSetup setup(const json& r, const SpeedCalibration& cal) {
    RowSetup out;
    const std::string id = r.at("id").get<std::string>();
    const ModelPreset* mp = find_model(r.at("model").get<std::string>());
    if (!mp) throw ReportError(id + ": unknown model preset");
    out.in.model = mp->spec;
    const std::optional<WeightFormat> wf = parse_enum<WeightFormat>(r.at("weights").get<std::string>());
    if (!wf) throw ReportError(id + ": unknown weights");
    out.in.weights = *wf;
    out.in.context = r.at("context").get<int64_t>();
    out.in.ngl = mp->spec.layers + 1;
    out.s.calibration = cal;
    const std::string hw = r.at("hardware").get<std::string>();
    if (r.at("device").get<std::string>() == "apple") {
        const AppleChip* c = find_apple_chip(hw);
        if (!c) throw ReportError(id + ": unknown Apple chip " + hw);
        out.in.apple_unified = true;
        out.in.ram_bytes = r.at("ram_gib").get<double>() * 1024 * 1024 * 1024;
        out.s.gpu_bandwidth = {c->memory_bandwidth};
        out.s.gpu_flops = {apple_gpu_flops(*c)};
        out.s.ram_bandwidth = c->memory_bandwidth;
    } else {
        const GpuPreset* g = find_gpu(hw);
        if (!g) throw ReportError(id + ": unknown GPU preset " + hw);
        // gpu_count GPUs of the preset (default 1), split by split_mode (default layer) at the default tensor split.
        const int64_t count = r.value("gpu_count", int64_t{1});
        if (count < 1) throw ReportError(id + ": gpu_count must be at least 1");
        const std::optional<SplitMode> mode = parse_enum<SplitMode>(r.value("split_mode", std::string("layer")));
        if (!mode) throw ReportError(id + ": unknown split_mode");
        out.in.split_mode = *mode;
        for (int64_t i = 0; i < count; ++i) {
            out.in.gpus.push_back({g->name, g->memory_bytes, -1});
            out.s.gpu_bandwidth.push_back(g->memory_bandwidth);
            out.s.gpu_flops.push_back(g->fp16_tensor_flops);
        }
        out.in.ram_bytes = 64.0 * 1024 * 1024 * 1024;
    }
    return out;
}

struct RowSpeed {
    double tokens_per_s = 0;
    int64_t row_syncs = 0;  // the plan's split-matrix round trips per token (--split-mode row)
};

RowSpeed speed_of(const json& r, const SpeedCalibration& cal) {
    RowSetup rs = setup(r, cal);
    const Plan p = place_llamacpp(rs.in, rs.in.ngl, rs.in.context);
    const Speed sp = plan_speed(rs.in, p, rs.s);
    if (!sp.ok()) throw ReportError(r.at("id").get<std::string>() + ": " + sp.error);
    return {is_prefill(r.at("test").get<std::string>()) ? sp.prefill_tokens_per_s : sp.decode_tokens_per_s, p.row_syncs};
}

std::string regime_of(const json& r) {
    const bool row_split = r.value("split_mode", std::string("layer")) == "row" && r.value("gpu_count", int64_t{1}) > 1;
    if (is_prefill(r.at("test").get<std::string>()))
        return row_split ? "prefill row split" : r.at("device").get<std::string>() == "apple" ? "prefill Apple" : "prefill";
    if (row_split) return "decode row split";
    return r.at("device").get<std::string>() == "apple" ? "decode CPU/Apple" : "decode GPU";
}

Regime* regime_slot(SpeedCalibration& c, const std::string& name) {
    return name == "prefill"           ? &c.prefill
           : name == "prefill Apple"     ? &c.prefill_apple
           : name == "decode GPU"        ? &c.decode_gpu
           : name == "decode row split"  ? &c.decode_row
           : name == "prefill row split" ? &c.prefill_row
                                         : &c.decode_cpu_apple;
}

// A regime that calibrates nothing (row-split prefill: the prefill efficiency and the round trip are the other regimes')
// holds out every row, whatever the id rule says.
bool calibrates(const std::string& regime) { return regime != "prefill row split"; }

}  // namespace

SpeedReport render_speed_report(const std::string& benchmarks_json) {
    const json doc = json::parse(benchmarks_json);
    const json& rows = doc.at("rows");
    SpeedReport rep;
    SpeedCalibration unit;  // efficiency 1 everywhere and no row-split round trip time: the roofline
    unit.decode_gpu = unit.decode_cpu_apple = unit.prefill = unit.prefill_apple = Regime{1, 0, 0};
    const std::vector<std::string> efficiency_regimes = {"decode GPU", "decode CPU/Apple", "prefill", "prefill Apple"};
    std::vector<std::string> regimes = efficiency_regimes;
    regimes.push_back("decode row split");
    regimes.push_back("prefill row split");
    for (const json& r : rows) {
        SpeedRow row;
        row.id = r.at("id").get<std::string>();
        row.split = measured_split(row.id);
        row.regime = regime_of(r);
        row.source = r.at("source").get<std::string>();
        const int64_t count = r.value("gpu_count", int64_t{1});
        const std::string mode = r.value("split_mode", std::string("layer"));
        row.hardware = (count > 1 ? std::to_string(count) + "x " : "") + r.at("hardware").get<std::string>() + (mode != "layer" ? " -sm " + mode : "");
        row.model = r.at("model").get<std::string>();
        row.weights = r.at("weights").get<std::string>();
        row.test = r.at("test").get<std::string>();
        row.measured = r.at("tokens_per_s").get<double>();
        row.roofline = speed_of(r, unit).tokens_per_s;
        rep.rows.push_back(row);
    }
    // One efficiency per regime: the median of measured / roofline over its calibrate rows.
    for (const std::string& name : efficiency_regimes) {
        std::vector<double> ratios;
        for (const SpeedRow& row : rep.rows)
            if (row.regime == name && row.split == "calibrate") ratios.push_back(row.measured / row.roofline);
        if (ratios.empty()) throw ReportError("no calibrate rows for " + name);
        regime_slot(rep.calibration, name)->efficiency = round_sig3(median(ratios));
    }
    // The row-split round trip: over the calibrate row-split rows, the median of the time the plan leaves unexplained at
    // the calibrated efficiencies (1 / measured - 1 / predicted without it) per round trip.
    {
        std::vector<double> per_sync;
        for (size_t i = 0; i < rep.rows.size(); ++i) {
            if (rep.rows[i].regime != "decode row split" || rep.rows[i].split != "calibrate") continue;
            const RowSpeed without = speed_of(rows[i], rep.calibration);
            if (without.row_syncs == 0) throw ReportError(rep.rows[i].id + ": a row-split row whose plan splits no matrix");
            per_sync.push_back((1 / rep.rows[i].measured - 1 / without.tokens_per_s) / static_cast<double>(without.row_syncs));
        }
        if (per_sync.empty()) throw ReportError("no calibrate rows for decode row split");
        rep.calibration.row_sync_seconds = round_sig3(median(per_sync));
    }
    for (size_t i = 0; i < rep.rows.size(); ++i) {
        SpeedRow& row = rep.rows[i];
        row.predicted = speed_of(rows[i], rep.calibration).tokens_per_s;
        row.error = (row.predicted - row.measured) / row.measured;
    }
    for (const std::string& name : regimes) {
        std::vector<double> errs;
        for (const SpeedRow& row : rep.rows)
            if (row.regime == name && (row.split == "holdout" || !calibrates(name))) errs.push_back(std::fabs(row.error));
        Regime* g = regime_slot(rep.calibration, name);
        g->holdout_median_error = round2(median(errs));
        g->holdout_worst_error = errs.empty() ? 0 : round2(*std::max_element(errs.begin(), errs.end()));
    }

    std::string d;
    d += "# Speed calibration\n\n";
    d += "<!-- Generated by tests/speed_report.cpp from tests/data/planner/speed_benchmarks.json; do not edit.\n";
    d += "     Regenerate with scripts/gen-docs.sh text. -->\n\n";
    d += "`vramlens plan` estimates decode tokens/s from the memory-bandwidth roofline and prefill tokens/s from\n";
    d += "FLOPs (core/planner/speed.h), each scaled by one efficiency per regime: the median of measured / roofline\n";
    d += "over the calibrate rows below. The holdout rows (SHA-256 of the id, first 8 hex digits mod 3 == 0) are\n";
    d += "not used to calibrate; their error is the band `vramlens plan` prints with each speed.\n\n";
    d += "What is counted. Decode: per generated token each device streams the weights the token uses (an MoE's\n";
    d += "routed experts scaled by top_k / num_experts; the token embedding is one row and not counted) and its KV\n";
    d += "cache at the plan's context, at its memory bandwidth (a GPU preset's `memory_bandwidth`; system RAM at\n";
    d += "`--ram-bandwidth` GB/s, default 89.6 = dual-channel DDR5-5600; a Mac at its chip's, `--apple-chip`). Layers\n";
    d += "split over devices run in turn, so their times add, plus one hidden-state vector over PCIe 4.0 x16 per device\n";
    d += "boundary (two per layer whose experts `--n-cpu-moe` keeps on the CPU). With `--split-mode row` every GPU multiplies its\n";
    d += "rows of each split matrix at the same time, so those take the slowest GPU's time, not the sum, and each split matrix\n";
    d += "costs one round trip per other GPU with rows of it (the input vector out and its rows of the result back over the\n";
    d += "link, plus a fixed time per round trip: the one number the row-split rows calibrate, the median over the calibrate\n";
    d += "rows of the time the plan leaves unexplained per round trip). Prefill: 2 FLOPs per active parameter\n";
    d += "per token plus 4 * layers * ctx * d_attn, at each device's dense FP16 tensor FLOP/s (`fp16_tensor_flops`; the\n";
    d += "CPU at `--cpu-flops` TFLOP/s, default 1.024). A Mac's GPU: cores * 128 FP32 ALUs * 2 FLOPs * its peak clock (FP16\n";
    d += "runs at the FP32 rate on Apple's GPUs), at its own efficiency (the `prefill Apple` regime, calibrated on llama.cpp\n";
    d += "discussion #4167's Llama 2 7B pp512 rows; quantized weights are dequantized in the kernel and counted like F16).\n";
    d += "The clocks are third-party figures (Apple publishes TFLOPS for a few M1 and M2 chips only); for the M4 and M4 Pro\n";
    d += "the source gives 1470 MHz on most pages and 1578 MHz on one, and their rows run 11 to 18 % faster than predicted at\n";
    d += "1470, as the higher clock would explain.\n";
    d += "The same discussion's tg128 rows are not in the table: added to the decode CPU/Apple regime they move its\n";
    d += "efficiency from 0.448 to 0.758 and its holdout worst error from 15 % to 112 %. llama-bench's decode on a Mac runs far\n";
    d += "nearer the roofline than the Ollama eval rates in the rows below on the small chips and far below it on the Ultras (M2 Ultra\n";
    d += "Q4_0: 94 t/s against a roofline of 210), which one efficiency over bandwidth cannot describe: a fixed time per token\n";
    d += "(about 5 ms from the M2 Ultra's F16 and Q4_0 rows) might, but that is a new term, left for a later change.\n";
    d += "Prefill with `--split-mode row` (ggml-cuda's ggml_cuda_op_mul_mat with split buffers): the split matrices\n";
    d += "multiply the prompt in chunks of 128 tokens, every GPU its rows at once (the slowest GPU's rows set the time, at the\n";
    d += "prefill efficiency), each token's inputs out to the other GPUs and their rows of the result back (the bytes of a decode\n";
    d += "token) and each chunk the round trips of a decode token (the row split's round trip above); the rest of each layer\n";
    d += "(attention) on its layer's GPU in turn. No constant is calibrated on the row-split prefill rows, so all of them are\n";
    d += "holdout rows whatever their id gives. The efficiencies and the round trip are committed in core/planner/speed.cpp\n";
    d += "(`speed_calibration()`);\n";
    d += "tests/planner_speed_test.cpp fails when they differ from this table's.\n\n";
    d += "Known limit: GPUs without FP16 tensor cores. The plan takes a GPU's dense FP16 tensor FLOP/s for prefill and, for\n";
    d += "a GPU without FP16 tensor cores (the Tesla P40), its FP32 figure. llama.cpp's CUDA backend runs a quantized GGUF\n";
    d += "matrix product there as MMQ on int8 dp4a instead: llama.cpp #4766's single P40 runs Llama 2 7B Q4_0 pp512 at 912 t/s,\n";
    d += "about 2.4 times what the P40's 12 FP32 TFLOPS give at the prefill efficiency, while its 47 INT8 TOPS at that efficiency\n";
    d += "give about 1.6 times the measured speed. Neither figure is right at the one efficiency calibrated on tensor-core GPUs,\n";
    d += "so the plan keeps the FP32 figure and its prefill for a P40 on its own or split by layers is likely well under the real\n";
    d += "speed (the table's layer-split pp512 rows are left out: they would calibrate the prefill efficiency on it). Its\n";
    d += "row-split pp512 rows below are held out with that caveat: the FP32 figure overstates their compute time, so their\n";
    d += "small errors likely hide transfers and round trips the model understates.\n\n";
    d += "| regime | efficiency (row split: round trip) | calibrate rows | holdout rows | holdout median \\|error\\| | holdout worst \\|error\\| |\n";
    d += "|---|---:|---:|---:|---:|---:|\n";
    for (const std::string& name : regimes) {
        size_t nc = 0, nh = 0;
        for (const SpeedRow& row : rep.rows)
            if (row.regime == name) (row.split == "calibrate" && calibrates(name) ? nc : nh) += 1;
        const Regime& g = *regime_slot(rep.calibration, name);
        const std::string value = name == "decode row split"    ? vl::format("{:.3g} µs per round trip", rep.calibration.row_sync_seconds * 1e6)
                                  : name == "prefill row split" ? std::string("none (prefill's, and a round trip per 128-token chunk)")
                                                                : vl::format("{:.3g}", g.efficiency);
        d += vl::format("| {} | {} | {} | {} | {:.0f} % | {:.0f} % |\n", name, value, nc, nh, g.holdout_median_error * 100,
                         g.holdout_worst_error * 100);
    }
    d += "\n## Rows\n\n";
    d += "| id | split | regime | hardware | model | weights | test | measured t/s | roofline t/s | predicted t/s | error | source |\n";
    d += "|---|---|---|---|---|---|---|---:|---:|---:|---:|---|\n";
    for (const SpeedRow& row : rep.rows)
        d += vl::format("| {} | {} | {} | {} | {} | {} | {} | {:.2f} | {:.2f} | {:.2f} | {:+.0f} % | <{}> |\n", row.id,
                         calibrates(row.regime) ? row.split : "holdout", row.regime, row.hardware, row.model, row.weights, row.test, row.measured, row.roofline,
                         row.predicted, row.error * 100, row.source);
    rep.document = d;
    return rep;
}

}  // namespace vl::report
