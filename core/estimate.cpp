// estimate(): validate, count parameters, dispatch to the training or inference model, then
// total each phase and pick the peak. Pure; no I/O.
#include "estimate.h"

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
    total_phases(e);
    return e;
}

}  // namespace vl
