// Checks every estimate must pass, whatever the scenario: shared by tests/invariants_test.cpp and
// the fuzz targets (fuzz/), which abort on the first violation.
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "estimate.h"

namespace vl::test {

// Two totals are "the same" within the rounding of summing a few dozen doubles.
inline bool not_more(double a, double b) { return a <= b * (1 + 1e-12) + 1e-3; }
inline bool same(double a, double b) { return not_more(a, b) && not_more(b, a); }

// Empty when sound; otherwise what is wrong.
inline std::string soundness(const Scenario& s, const Estimate& e) {
    if (!e.ok()) return "rejected: " + to_string(e.errors.front());
    if (e.components.empty()) return "no components";
    std::array<double, kPhaseCount> ph{};
    double host = 0;
    for (const Component& c : e.components) {
        if (!std::isfinite(c.bytes)) return std::string("component ") + c.id + " is not finite";
        if (c.bytes < 0) return std::string("component ") + c.id + " is negative: " + std::to_string(c.bytes);
        if (!*c.id || !*c.source || (!c.substituted().empty() && c.formula().empty())) return std::string("component without id/formula/source: ") + c.id;
        if ((c.phases & ~kAllPhases) != 0) return std::string("component ") + c.id + " has an unknown phase bit";
        if (c.host) { host += c.bytes; continue; }
        for (int p = 0; p < kPhaseCount; ++p)
            if (c.phases & phase_bit(static_cast<Phase>(p))) ph[static_cast<size_t>(p)] += c.bytes;
    }
    double peak = 0;
    for (int p = 0; p < kPhaseCount; ++p) {
        if (!same(ph[static_cast<size_t>(p)], e.phase_bytes[static_cast<size_t>(p)]))
            return "phase " + std::to_string(p) + " total " + std::to_string(e.phase_bytes[static_cast<size_t>(p)]) +
                   " is not the sum of its components " + std::to_string(ph[static_cast<size_t>(p)]);
        peak = std::max(peak, ph[static_cast<size_t>(p)]);
    }
    // Zero only where a tool's own accounting says so: the DeepSpeed estimator counts model states,
    // and with parameters and optimizer offloaded and no largest layer given nothing stays on the GPU.
    const bool may_be_zero = s.mode != Mode::Infer && s.train.compat == Compat::DeepSpeedEstimator;
    if (!std::isfinite(e.total_bytes) || e.total_bytes < 0 || (e.total_bytes == 0 && !may_be_zero))
        return "total is not a positive finite number";
    if (!same(e.total_bytes, peak)) return "total " + std::to_string(e.total_bytes) + " is not the largest phase " + std::to_string(peak);
    if (!same(e.total_bytes, e.phase_bytes[static_cast<size_t>(e.peak_phase)])) return "peak_phase does not hold the total";
    if (!same(host, e.host_bytes)) return "host_bytes is not the sum of the host components";
    if (!(e.gpu_capacity_bytes > 0) || !std::isfinite(e.gpu_capacity_bytes)) return "capacity is not positive";
    if (!(e.params.total > 0)) return "parameter count is not positive";
    const KvCapacity& k = e.kv;
    if (!std::isfinite(k.bytes_per_token) || k.bytes_per_token < 0 || k.blocks < 0 || k.tokens < 0 || k.sequences < 0 ||
        !std::isfinite(k.pool_bytes) || k.pool_bytes < 0)
        return "KV capacity has a negative or non-finite field";
    if (k.block_size > 0 && k.tokens != k.blocks * k.block_size) return "kv.tokens != kv.blocks * kv.block_size";
    return {};
}

inline std::string same_numbers(const Estimate& a, const Estimate& b) {
    if (a.components.size() != b.components.size()) return "Full and NumbersOnly give different component lists";
    for (size_t i = 0; i < a.components.size(); ++i)
        if (std::string(a.components[i].id) != b.components[i].id || a.components[i].bytes != b.components[i].bytes)
            return std::string("Full and NumbersOnly differ at ") + a.components[i].id;
    if (a.total_bytes != b.total_bytes) return "Full and NumbersOnly give different totals";
    if (b.components.size() && !b.components.front().substituted().empty()) return "NumbersOnly filled the substituted text";
    return {};
}

}  // namespace vl::test
