// estimate(): validate, count parameters, dispatch to the training or inference model, then
// total each phase and pick the peak (phase_totals, the one per-phase sum). Pure; no I/O.
#include "estimate.h"

#include <string>

#include "allocator_reserve.h"
#include "cold.h"
#include "formula.h"
#include "inference/inference.h"
#include "mechanisms.h"
#include "training/training.h"

namespace vl {

Component& append_component(Estimate& e, Component&& c) {
    e.components.push_back(std::move(c));
    return e.components.back();
}

PhaseTotals phase_totals(std::span<const Component> components, unsigned categories) {
    PhaseTotals t;
    for (const Component& c : components) {
        if (!(categories & category_bit(c.category))) continue;
        if (c.host) { t.host += c.bytes; continue; }
        for (size_t p = 0; p < t.gpu.size(); ++p)
            if (c.phases & (1u << p)) t.gpu[p] += c.bytes;
    }
    size_t peak = 0;
    for (size_t p = 1; p < t.gpu.size(); ++p)
        if (t.gpu[p] > t.gpu[peak]) peak = p;
    t.peak = static_cast<Phase>(peak);
    return t;
}

// A sequence longer than the model's position range: the memory is still as estimated, but the
// model was not trained for it (learned position tables cannot index it at all).
static void warn_beyond_positions(const Scenario& s, Estimate& e) {
    const ModelSpec& m = s.model;
    if (!m.architecture_known() || m.max_position <= 0) return;
    const bool infer = s.mode == Mode::Infer;
    const int64_t len = infer ? s.infer.context : s.train.seq_len;
    if (len <= m.max_position) return;
    cold([&] {
        std::string why;
        if (m.position == PositionKind::Learned)
            why = "its learned position table ends there, so the model cannot run this length (transformers fails with an index error)";
        else if (m.position == PositionKind::Rotary)
            why = infer ? "the model was not trained for positions beyond it: expect degraded output unless RoPE scaling extends "
                          "it (vLLM refuses a longer max_model_len)"
                        : "the model was not trained for positions beyond it; training at this length extends its context "
                          "(usually together with RoPE scaling)";
        else
            why = "the model was not trained for positions beyond it: expect degraded output";
        e.warnings.push_back(std::string(infer ? "infer.context " : "train.seq_len ") + std::to_string(len) +
                             " exceeds the model's max_position_embeddings (" + std::to_string(m.max_position) + "): " + why);
    });
}

Estimate estimate(const Scenario& s, Detail detail) {
    Estimate e;
    e.gpu_reported_bytes = s.gpu.memory_bytes;
    e.gpu_usable_bytes = s.gpu.usable_bytes();
    e.gpu_capacity_bytes = e.gpu_usable_bytes;  // fits and headroom compare against what CUDA can allocate [cuda-mem-get-info]
    e.errors = validate(s);
    if (!e.errors.empty()) return e;
    count_params(s.model, e.params);
    e.components.reserve(32);
    if (s.mode == Mode::Infer)
        estimate_inference(s, detail, e);
    else
        estimate_training(s, detail, e);
    warn_beyond_positions(s, e);
    const PhaseTotals t = phase_totals(e.components);
    e.phase_bytes = t.gpu;
    e.peak_phase = t.peak;
    e.total_bytes = t.peak_bytes();
    e.host_bytes = t.host;
    e.shown_bytes = shown_peak_bytes(e);  // the second figure where there is one, else total_bytes
    mechanism_summary(e);
    return e;
}

// The first characters are compared before the rest: most heads differ there, and mechanism_of runs this for every
// component against every head in each estimate of a sweep (it was half of the native sweep's time, in strlen and memcmp
// calls, before the heads became string_views and this test came first).
bool id_under(std::string_view id, std::string_view head) {
    return !id.empty() && !head.empty() && id[0] == head[0] && id.starts_with(head) && (id.size() == head.size() || id[head.size()] == '.');
}

double component_bytes(const Estimate& e, std::string_view id) {
    for (const Component& c : e.components)
        if (!c.host && id == c.id) return c.bytes;
    return 0;
}

double group_bytes(const Estimate& e, std::string_view head) {
    double b = 0;
    for (const Component& c : e.components)
        if (!c.host && id_under(c.id, head)) b += c.bytes;
    return b;
}

}  // namespace vl
