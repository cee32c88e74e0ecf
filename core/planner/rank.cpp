// Which model fits best: every candidate model x GGUF type planned on one machine, ranked by the
// quality proxy rank.h states.
#include "planner/rank.h"

#include <algorithm>
#include <tuple>

#include "inference/weight_formats.h"
#include "model/presets.h"
#include "param_count.h"
#include "planner/launch.h"
#include "units.h"

#include "text_format.h"

namespace vl {

const char* quant_loss_name(QuantLoss c) {
    switch (c) {
        case QuantLoss::NearLossless: return "near-lossless";
        case QuantLoss::Small: return "small";
        case QuantLoss::Noticeable: return "noticeable";
        case QuantLoss::Large: return "large";
    }
    return "";
}

const char* rank_verdict_name(RankVerdict v) {
    switch (v) {
        case RankVerdict::Ranked: return "ranked";
        case RankVerdict::TooSlow: return "too slow";
        case RankVerdict::TooLossy: return "too lossy";
        case RankVerdict::ContextTooLong: return "context too long";
        case RankVerdict::DoesNotFit: return "does not fit";
        case RankVerdict::Unsupported: return "not plannable";
    }
    return "";
}

double gguf_type_kld(WeightFormat w) {
    // Mean KLD to fp16, no importance matrix, Llama 3 8B, llama.cpp tools/perplexity/README.md [llama-cpp-perplexity]
    switch (w) {
        case WeightFormat::FP16:
        case WeightFormat::BF16: return 0;
        case WeightFormat::GGUF_Q8_0: return 0.001355;
        case WeightFormat::GGUF_Q6_K: return 0.005452;
        case WeightFormat::GGUF_Q5_K_M: return 0.010762;
        case WeightFormat::GGUF_Q4_K_M: return 0.031273;
        case WeightFormat::GGUF_Q4_0: return 0.071940;
        case WeightFormat::GGUF_Q3_K_M: return 0.101913;
        case WeightFormat::GGUF_Q2_K: return 0.445132;
        default: return -1;
    }
}

QuantLoss quant_loss_class(double kld) {
    if (kld < 0.01) return QuantLoss::NearLossless;
    if (kld < 0.05) return QuantLoss::Small;
    if (kld < 0.15) return QuantLoss::Noticeable;
    return QuantLoss::Large;
}

namespace {

std::vector<RankCandidate> presets_since(const std::string& since) {
    std::vector<RankCandidate> c;
    for (const ModelPreset& p : model_presets())
        if (p.released >= since) c.push_back({p.id, p.spec});  // "YYYY-MM" strings order as dates
    return c;
}

std::vector<WeightFormat> every_gguf_type() {
    std::vector<WeightFormat> w;
    for (const WeightFormatInfo& f : kWeightFormats)
        if (f.family == FormatFamily::Gguf && gguf_type_kld(f.format) >= 0) w.push_back(f.format);  // those with a published loss
    return w;
}

double gpu_total(const Plan& p) {
    double t = 0;
    for (const DevicePlan& d : p.gpus) t += d.total();
    return t;
}

}  // namespace

RankRow plan_candidate(const RankInput& in, const RankCandidate& c, WeightFormat w) {
    RankRow r;
    r.id = c.id;
    r.name = c.model.name.empty() ? c.id : c.model.name;
    r.weights = w;
    r.kld = gguf_type_kld(w);
    r.loss = quant_loss_class(r.kld);
    const ParamCounts pc = count_params(c.model);
    r.params = pc.total;
    r.active_params = pc.active_per_token;

    PlanInput pin = in.machine;
    pin.model = c.model;
    pin.weights = w;
    pin.ngl = -1;
    const Plan p = plan_llamacpp(pin);
    if (!p.ok()) {
        r.verdict = RankVerdict::Unsupported;
        r.why = p.error;
        return r;
    }
    r.ngl = p.ngl;
    r.n_layer = p.n_layer;
    r.max_context = p.max_context;
    r.gpu_bytes = gpu_total(p);
    r.cpu_bytes = p.cpu.total();
    if (!p.fits) {
        r.verdict = RankVerdict::DoesNotFit;
        r.why = p.advice;
        return r;
    }
    const Speed sp = plan_speed_on(pin, p, in.gpu_presets, in.chip, in.speed);
    if (sp.ok()) {
        r.decode_tokens_per_s = sp.decode_tokens_per_s;
        r.decode_band = sp.decode_band;
    }
    // An MoE model split by layers: the --n-cpu-moe plan when it decodes faster (the row is what a user would run).
    if (const MoeAlternative alt = in.cpu_moe ? moe_alternative(pin, p, sp, in.gpu_presets, in.chip, in.speed) : MoeAlternative{};
        alt.exists() && alt.speed.ok() && alt.speed.decode_tokens_per_s > r.decode_tokens_per_s) {
        r.ngl = alt.plan.ngl;
        r.n_cpu_moe = alt.input.n_cpu_moe;
        r.max_context = alt.plan.max_context;
        r.gpu_bytes = gpu_total(alt.plan);
        r.cpu_bytes = alt.plan.cpu.total();
        r.decode_tokens_per_s = alt.speed.decode_tokens_per_s;
        r.decode_band = alt.speed.decode_band;
    }
    if (in.machine.context > c.model.max_position) {
        r.verdict = RankVerdict::ContextTooLong;
        r.why = "the model was trained for " + std::to_string(c.model.max_position) + " tokens (max_position_embeddings)";
    } else if (r.loss > in.max_loss) {
        r.verdict = RankVerdict::TooLossy;
        r.why = std::string("quantization loss ") + quant_loss_name(r.loss) + " (over the allowed " + quant_loss_name(in.max_loss) + ")";
    } else if (!sp.ok() || r.decode_tokens_per_s < in.min_tokens_per_s) {
        r.verdict = RankVerdict::TooSlow;
        r.why = sp.ok() ? "decode below the wanted tokens/s" : sp.error;
    }
    return r;
}

Ranking rank_models(const RankInput& in) {
    Ranking out;
    if (in.machine.gpus.empty() && !in.machine.apple_unified)
        out.error = "gpu: give at least one GPU (or an Apple Mac) to rank models for";
    else if (!(in.machine.ram_bytes > 0))
        out.error = "ram: give the system RAM, e.g. 64GB";
    else if (in.gpu_presets.size() != in.machine.gpus.size())
        out.error = "gpu: each GPU needs its preset (for its memory bandwidth)";
    else if (!(in.min_tokens_per_s >= 0))
        out.error = "min-speed: give a number of tokens per second >= 0, e.g. 10";
    for (WeightFormat w : in.weights)
        if (out.error.empty() && gguf_type_kld(w) < 0)
            out.error = std::string("weights: ") + weight_format(w).key + " is not a GGUF type with a published quantization loss; use q8_0, q6_k, q5_k_m, q4_k_m, q4_0, q3_k_m or q2_k";
    if (!out.ok()) return out;

    const std::vector<RankCandidate> models = in.models.empty() ? presets_since(in.since.empty() ? current_generation_since() : in.since) : in.models;
    const std::vector<WeightFormat> types = in.weights.empty() ? every_gguf_type() : in.weights;
    for (const RankCandidate& c : models)
        for (WeightFormat w : types) out.rows.push_back(plan_candidate(in, c, w));

    // Ranked rows by the proxy's order (rank.h); the others after them, by verdict, then size.
    auto key = [](const RankRow& r) {
        return std::make_tuple(r.verdict, -r.params, r.kld, -r.decode_tokens_per_s);
    };
    std::stable_sort(out.rows.begin(), out.rows.end(), [&](const RankRow& a, const RankRow& b) { return key(a) < key(b); });
    out.ranked = static_cast<size_t>(std::count_if(out.rows.begin(), out.rows.end(), [](const RankRow& r) { return r.verdict == RankVerdict::Ranked; }));
    return out;
}

std::string rank_row_text(const RankRow& r) {
    std::string t = r.name + ", " + weight_format(r.weights).name + ": " + params_label(r.params) + " parameters";
    if (r.active_params != r.params) t += " (" + params_label(r.active_params) + " active)";
    t += vl::format(", loss {} (KLD {:.4f})", quant_loss_name(r.loss), r.kld);
    if (r.verdict == RankVerdict::Unsupported) return t + "; " + r.why;
    t += "; -ngl " + std::to_string(r.ngl) + " of " + std::to_string(r.n_layer + 1) +
         (r.n_cpu_moe > 0 ? " --n-cpu-moe " + std::to_string(r.n_cpu_moe) : "") + ", context up to " + std::to_string(r.max_context);
    if (r.decode_tokens_per_s > 0) t += ", decode ~" + tokens_per_s_text(r.decode_tokens_per_s) + " tok/s";
    if (r.verdict != RankVerdict::Ranked) t += std::string("; ") + rank_verdict_name(r.verdict) + ": " + r.why;
    return t;
}

std::string tokens_per_s_text(double x) { return x >= 100 ? vl::format("{:.0f}", x) : vl::format("{:.3g}", x); }

std::string current_generation_since() {
    std::string newest;
    for (const ModelPreset& p : model_presets()) newest = std::max(newest, p.released);
    if (newest.size() != 7) return "";
    const int year = std::stoi(newest.substr(0, 4)) - 1;
    return std::to_string(year) + newest.substr(4);
}

std::vector<RankRow> best_per_model(const Ranking& r) {
    std::vector<RankRow> best;
    for (const RankRow& row : r.rows)
        if (std::none_of(best.begin(), best.end(), [&](const RankRow& b) { return b.id == row.id; })) best.push_back(row);
    return best;
}

}  // namespace vl
