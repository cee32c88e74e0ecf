// The compare grid (compare.h): every cell is plan_candidate's (rank.cpp); this file checks the input
// and builds each machine's planner input.
#include "planner/compare.h"

#include <cmath>
#include "text_format.h"

#include "inference/weight_formats.h"
#include "model/hf_config.h"
#include "model/presets.h"
#include "planner/local.h"
#include "units.h"

namespace vl {

namespace {

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

std::string closest(const std::string& value, const std::vector<std::string>& ids) {
    const std::string c = close_names(value, ids);
    return c.empty() ? "" : " (closest: " + c + ")";
}

}  // namespace

std::string compare_machine_input(const LocalMachine& m, RankInput& out) {
    const bool mac = !m.apple_chip.empty();
    if (mac) {
        out.chip = find_apple_chip(m.apple_chip);
        if (!out.chip) {
            std::vector<std::string> ids;
            for (const AppleChip& c : apple_chips()) ids.push_back(c.id);
            return "apple_chip: " + quoted(m.apple_chip) + " is not an Apple chip vramlens knows" + closest(m.apple_chip, ids) + "; use one of " +
                   apple_chip_ids();
        }
        if (!m.gpus.empty()) return "gpus: a Mac has one GPU sharing its memory: give no GPUs with an Apple chip";
        out.machine.apple_unified = true;
    } else if (m.gpus.empty()) {
        return "gpus: give at least one GPU preset id (`vramlens gpus`), or an Apple chip";
    }
    std::vector<std::string> ids;
    for (const GpuPreset& g : gpu_presets()) ids.push_back(g.id);
    for (size_t j = 0; j < m.gpus.size(); ++j) {
        const GpuPreset* g = find_gpu(m.gpus[j]);
        if (!g) return "gpus[" + std::to_string(j) + "]: " + quoted(m.gpus[j]) + " is not a GPU preset" + closest(m.gpus[j], ids) + "; `vramlens gpus` lists them";
        out.machine.gpus.push_back({g->name, g->cuda_total_bytes, -1});
        out.gpu_presets.push_back(g);
    }
    if (!(m.ram_bytes > 0) || !std::isfinite(m.ram_bytes) || m.ram_bytes > 1e15)
        return std::string("ram_bytes: give the ") + (mac ? "unified memory" : "system RAM") + ", e.g. 64 GiB";
    out.machine.ram_bytes = m.ram_bytes;
    return {};
}

std::string machine_name(const LocalMachine& m) {
    std::string t;
    if (const AppleChip* c = m.apple_chip.empty() ? nullptr : find_apple_chip(m.apple_chip)) t = std::string(c->name) + ", ";
    for (size_t j = 0; j < m.gpus.size(); ++j) {
        const GpuPreset* g = find_gpu(m.gpus[j]);
        t += (j ? " + " : "") + (g ? g->name : m.gpus[j]);
    }
    if (!m.gpus.empty()) t += ", ";
    return t + amount_with_unit(m.ram_bytes, SizeUnit::GiB) + (m.apple_chip.empty() ? " RAM" : " unified memory");
}

CompareGrid compare_grid(const CompareInput& in) {
    CompareGrid out;
    auto fail = [&](std::string e) {
        out.error = std::move(e);
        return out;
    };
    if (is_serving(in.engine)) return fail("engine: the compare grid plans llama.cpp placements; choose llama.cpp or Ollama");
    if (in.models.empty() || in.models.size() > kMaxCompareModels)
        return fail(vl::format("models: give 1 to {} models to compare; got {}", kMaxCompareModels, in.models.size()));
    if (in.weights.empty() || in.weights.size() > kMaxCompareWeights)
        return fail(vl::format("weights: give 1 to {} GGUF types to compare; got {}", kMaxCompareWeights, in.weights.size()));
    if (in.machines.empty() || in.machines.size() > kMaxCompareMachines)
        return fail(vl::format("machines: give 1 to {} machines to compare; got {}", kMaxCompareMachines, in.machines.size()));
    for (size_t i = 0; i < in.weights.size(); ++i)
        if (gguf_type_kld(in.weights[i]) < 0)
            return fail("weights[" + std::to_string(i) + "]: " + weight_format(in.weights[i]).key +
                        " is not a GGUF type with a published quantization loss; use q8_0, q6_k, q5_k_m, q4_k_m, q4_0, q3_k_m or q2_k");
    if (in.context < 1) return fail("context: must be at least 1 token");

    std::vector<RankInput> machines(in.machines.size());
    for (size_t k = 0; k < in.machines.size(); ++k) {
        RankInput& r = machines[k];
        if (std::string e = compare_machine_input(in.machines[k], r); !e.empty()) return fail("machines[" + std::to_string(k) + "]." + e);
        r.machine.context = in.context;
        r.machine.kv = in.kv;
        r.machine.flash_attention = in.flash_attention;
        r.speed = in.speed;
        r.min_tokens_per_s = 0;           // the grid shows the speed; it does not judge it
        r.max_loss = QuantLoss::Large;    // nor the quantization loss
        r.cpu_moe = in.engine == LocalEngine::LlamaCpp;
        out.machine_names.push_back(machine_name(in.machines[k]));
    }
    out.n_weights = in.weights.size();
    out.n_machines = in.machines.size();
    for (size_t m = 0; m < in.models.size(); ++m)
        for (size_t w = 0; w < in.weights.size(); ++w)
            for (size_t k = 0; k < machines.size(); ++k)
                out.cells.push_back({m, w, k, plan_candidate(machines[k], in.models[m], in.weights[w])});
    return out;
}

CompareGrid compare_local(const Scenario& s) {
    const LocalCompare& c = s.local.compare;
    CompareInput in;
    in.engine = s.local.engine;
    in.context = s.local.context;
    in.kv = s.local.kv;
    in.flash_attention = s.local.flash_attention;
    in.weights = c.weights;
    in.machines = c.machines;
    for (size_t i = 0; i < c.models.size(); ++i) {
        if (c.models[i] == "current") {
            in.models.push_back({"current", s.model});
        } else if (const ModelPreset* p = find_model(c.models[i])) {
            in.models.push_back({p->id, p->spec});
        } else {
            CompareGrid bad;
            bad.error = "local.compare.models[" + std::to_string(i) + "]: " + quoted(c.models[i]) + " is not a model preset; pick one from the list";
            return bad;
        }
    }
    CompareGrid g = compare_grid(in);
    if (!g.ok()) g.error = (g.error.rfind("engine", 0) == 0 || g.error.rfind("context", 0) == 0 ? "local." : "local.compare.") + g.error;
    return g;
}

std::string compare_cell_text(const CompareCell& c) {
    const RankRow& r = c.row;
    if (r.verdict == RankVerdict::Unsupported) return std::string(rank_verdict_name(r.verdict));
    if (!c.fits()) return rank_verdict_name(r.verdict);
    std::string t = vl::format("fits · -ngl {}/{}{} · ctx ≤ {}", r.ngl, r.n_layer + 1,
                                r.n_cpu_moe > 0 ? vl::format(" --n-cpu-moe {}", r.n_cpu_moe) : std::string(), r.max_context);
    if (r.decode_tokens_per_s > 0) {
        // the held-back error band: "±8-17 %" (median-worst), "±15 %" when the two are equal
        const std::string median = vl::format("{:.0f}", 100 * r.decode_band.holdout_median_error);
        const std::string worst = vl::format("{:.0f}", 100 * r.decode_band.holdout_worst_error);
        t += " · ~" + tokens_per_s_text(r.decode_tokens_per_s) + " tok/s (±" + (median == worst ? median : median + "-" + worst) + " %)";
    }
    if (r.verdict == RankVerdict::ContextTooLong) t += " · over the trained context";
    return t;
}

}  // namespace vl
