// vLLM's memory budget by release (issue 14 item 7): what gpu_memory_utilization x the CUDA total must
// hold before the KV cache gets the rest, and what a vLLM process holds on the GPU beside that budget.
// The rule changed between releases (vllm/worker/worker.py, vllm/v1/worker/gpu_worker.py
// determine_available_memory and vllm/utils memory_profiling, read at 0012cf6 and 35d5cda [vllm-budget]):
//
//   whole device   0.2.5-0.3.0, 0.6.4, V1 0.8.0-0.9.0: the budget holds everything on the GPU that is not
//                  the KV cache: weights, the profile run's peak, the CUDA context, NCCL buffers.
//   instance       0.3.1-0.6.3, 0.6.5-0.7.x (V0), V1 0.9.1-0.10.x: only what this instance added after its
//                  start-up snapshot (taken before the distributed set-up): weights, the peak, the non-torch
//                  increase with the NCCL / custom all-reduce buffers. The CUDA context is outside the budget.
//   after NCCL     0.11-0.20: the snapshot follows init_worker_distributed_environment, so the NCCL buffers
//                  are outside the budget too.
//   CUDA graphs    0.21 and later: as after NCCL, and vLLM also subtracts its estimate of the CUDA graphs'
//                  memory (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS on by default; not modelled here).
//
// Outside the budget vLLM checks at start-up that the free memory holds the whole budget ("Free memory on
// device ... is less than desired GPU memory utilization"), so a run fits when
//   budget contents <= gpu_memory_utilization x total   and   that budget + what lies outside <= total.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

#include "formula.h"
#include "scenario.h"

namespace vl {

enum class VllmBudget { WholeDevice, Instance, InstanceAfterNccl, InstanceGraphs };

struct VllmRelease {
    int major = 0, minor = 0, patch = 0;
};

// "0.6.5", "0.11", "v0.10.1.post1", "0.21.0rc1": major.minor[.patch], a leading v and any suffix after
// the numbers ignored. nullopt when the text does not start with a version.
std::optional<VllmRelease> parse_vllm_version(std::string_view text);

// The budget rule of a release; nullopt before 0.2.5 (the KV budget then subtracted PyTorch's allocated
// peak alone: not modelled).
std::optional<VllmBudget> vllm_budget(const VllmRelease& r);

// Whether the release runs the V1 engine by default (0.8 and later): chunked prefill always on, batch
// defaults by GPU (engine/arg_utils.py get_batch_defaults [vllm-budget]).
bool vllm_v1_engine(const VllmRelease& r);

// The rule's name and releases, for the derivation and the warnings.
const char* vllm_budget_text(VllmBudget b);

// What vLLM's profile adds outside PyTorch on one GPU besides the CUDA context, at tp = 1: the
// "non_torch_memory" of the releases that log the increase, 0.07-0.16 GiB; the largest, on an H100
// (Llama-3.2-11B-Vision, 0.16 GiB) [vllm-pr12126].
inline constexpr double kVllmNonTorchIncrease = 0.16 * 1024 * 1024 * 1024;
// NCCL and custom all-reduce buffers per peer rank of the tensor-parallel group: a tp 8 run logged a
// non-torch increase of 2.53 GiB [vllm-issue-13074], (2.53 - 0.16) / 7 peers; tp 2 runs logged 0.25-0.39 GiB
// in all (this rule: 0.50) [vllm-issue-11251].
inline constexpr double kVllmCommPerPeer = (2.53 - 0.16) / 7 * 1024 * 1024 * 1024;

// The NCCL and custom all-reduce buffers of one GPU in a tp group.
template <class Q>
auto vllm_comm_bytes(Q& q, int64_t tp) {
    return q("comm_per_peer", kVllmCommPerPeer) * q("peers", static_cast<double>(tp - 1));
}

// What the rule counts inside the budget besides the weights, the profile peak and the KV cache:
// infer.engine_overhead_bytes when given; else the non-torch increase, the NCCL buffers while the
// snapshot precedes them, and the CUDA context under the whole-device rule.
template <class Q>
auto vllm_non_torch_bytes(Q& q, const InferenceOptions& o, int64_t tp, VllmBudget b, double context) {
    using N = std::decay_t<decltype(q("", 0.0))>;
    if (o.engine_overhead_bytes >= 0) return q("engine_overhead_bytes", o.engine_overhead_bytes);
    N n = q("non_torch_increase", kVllmNonTorchIncrease);
    if (tp > 1 && (b == VllmBudget::WholeDevice || b == VllmBudget::Instance)) n += vllm_comm_bytes(q, tp);
    if (b == VllmBudget::WholeDevice) n += q("cuda_context", context);
    return n;
}

// Whether the rule leaves the CUDA context / the NCCL buffers outside the budget.
inline bool vllm_context_outside(VllmBudget b) { return b != VllmBudget::WholeDevice; }
inline bool vllm_comm_outside(VllmBudget b, int64_t tp) {
    return tp > 1 && (b == VllmBudget::InstanceAfterNccl || b == VllmBudget::InstanceGraphs);
}

}  // namespace vl
