// estimate(): validate, count parameters, dispatch to the training or inference model, then
// total each phase and pick the peak. Pure; no I/O.
#include "estimate.h"

#include <string>

#include "inference/inference.h"
#include "training/training.h"

namespace vl {

// Phase totals: a component counts in every phase its mask names; host bytes never count.
static void total_phases(Estimate& e) {
    e.phase_bytes = {};
    e.host_bytes = 0;
    for (const Component& c : e.components) {
        if (c.host) { e.host_bytes += c.bytes; continue; }
        for (int p = 0; p < kPhaseCount; ++p)
            if (c.phases & (1u << p)) e.phase_bytes[p] += c.bytes;
    }
    int peak = 0;
    for (int p = 1; p < kPhaseCount; ++p)
        if (e.phase_bytes[p] > e.phase_bytes[peak]) peak = p;
    e.peak_phase = static_cast<Phase>(peak);
    e.total_bytes = e.phase_bytes[peak];
}

// A sequence longer than the model's position range: the memory is still as estimated, but the
// model was not trained for it (learned position tables cannot index it at all).
static void warn_beyond_positions(const Scenario& s, Estimate& e) {
    const ModelSpec& m = s.model;
    if (!m.architecture_known() || m.max_position <= 0) return;
    const bool infer = s.mode == Mode::Infer;
    const int64_t len = infer ? s.infer.context : s.train.seq_len;
    if (len <= m.max_position) return;
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
}

Estimate estimate(const Scenario& s, Detail detail) {
    Estimate e;
    e.gpu_capacity_bytes = s.gpu.memory_bytes;
    e.errors = validate(s);
    if (!e.errors.empty()) return e;
    e.params = count_params(s.model);
    e.components.reserve(32);
    if (s.mode == Mode::Infer)
        estimate_inference(s, detail, e);
    else
        estimate_training(s, detail, e);
    warn_beyond_positions(s, e);
    total_phases(e);
    return e;
}

}  // namespace vl
