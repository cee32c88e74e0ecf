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
//   after NCCL     0.11-0.20: the snapshot follows init_worker_distributed_environment, so the PyNccl and
//                  custom all-reduce buffers are outside the budget too (the torch process group's
//                  communicator, made in the profile run, stays inside).
//   CUDA graphs    0.21 and later: as after NCCL, and vLLM also subtracts its estimate of the CUDA graphs'
//                  memory (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS on by default; not modelled here).
//
// Outside the budget vLLM checks at start-up that the free memory holds the whole budget ("Free memory on
// device ... is less than desired GPU memory utilization"), so a run fits when
//   budget contents <= gpu_memory_utilization x total   and   that budget + what lies outside <= total.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>

#include "formula.h"
#include "nccl.h"
#include "release.h"
#include "scenario.h"

namespace vl {

enum class VllmBudget { WholeDevice, Instance, InstanceAfterNccl, InstanceGraphs };

using VllmRelease = Release;  // a vLLM release number (release.h)

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
// vLLM's NCCL communicators on one GPU (core/nccl.h gives each one's bytes). From vLLM's code
// (vllm/distributed/device_communicators: cuda_communicator.py, pynccl.py, custom_all_reduce.py,
// base_device_communicator.py; parallel_state.py; read at mid-2025 commits [vllm-comm-code]):
//   PyNccl      every group of more than one rank but the expert-parallel one ("ep does not use pynccl") builds a
//               PyNcclCommunicator in init_device and warms it up with an all-reduce: the tp group's and the pp
//               group's. With the custom all-reduce (tp 2, 4, 6, 8; above 2 GPUs only when all are NVLink-connected):
//               two 8 MiB IPC buffers (max_size 8192 x 1024, one with the meta header) and an 8 MiB rank_data tensor.
//   torch PG    the tp group's torch ProcessGroupNCCL (device_group), whose NCCL communicator PyTorch makes at the
//               group's first torch collective: the logits gather (V0 gather, V1 all_gather) of the profile run.
//               It exists only on the stage that computes logits; counted on every stage (vLLM's limiting stage
//               is not always the last).
// vLLM sets NCCL_CUMEM_ENABLE=0 [vllm-pr5091], so both connect ring, tree and NVLS at creation (nccl.h).
// Data-parallel and expert-parallel all-to-all communicators are not modelled.

// The NCCL a vLLM release runs: the one its pinned PyTorch wheel pins (nvidia-nccl-cu12) [vllm-torch-pins]
// [pytorch-nccl-pins]. Releases from `first` on, until the next row.
struct VllmNcclRow {
    VllmRelease first;
    const char* torch;
    Release nccl;
};
std::span<const VllmNcclRow> vllm_nccl_rows();
const VllmNcclRow& vllm_nccl_row(const VllmRelease& r);

// The inputs of vLLM's communicators on the scenario's GPU: the release's NCCL, the GPU preset's interconnect
// and the GPU's architecture; connected at creation (NCCL_CUMEM_ENABLE=0).
NcclSetup vllm_nccl_setup(const Scenario& s, const VllmRelease& r);

// Custom all-reduce buffers on one GPU: 2 x 8 MiB IPC buffers + 8 MiB rank_data [vllm-comm-code].
inline constexpr double kVllmCustomAllReduce = 24 * kMiB;
inline bool vllm_custom_allreduce(int64_t tp, GpuLink link) {
    return (tp == 2 || tp == 4 || tp == 6 || tp == 8) && (tp == 2 || link != GpuLink::PCIe);
}

// What init_device sets up: the tp and pp groups' PyNccl communicators and the custom all-reduce.
template <class Q>
auto vllm_pynccl_bytes(Q& q, const NcclSetup& c, int64_t tp, int64_t pp) {
    using N = std::decay_t<decltype(q("", 0.0))>;
    N b{};
    if (tp > 1) b += q.let("comm_tp", nccl_comm_bytes(q, c, "tp", tp, "nvls_tp"));
    if (pp > 1) b += q.let("comm_pp", nccl_comm_bytes(q, c, "pp", pp, "nvls_pp"));
    if (vllm_custom_allreduce(tp, c.link)) b += q("custom_allreduce", kVllmCustomAllReduce);
    return b;
}

// What the profile run adds: the tp group's torch ProcessGroupNCCL communicator.
template <class Q>
auto vllm_torch_pg_bytes(Q& q, const NcclSetup& c, int64_t tp) {
    return q.let("comm_tp", nccl_comm_bytes(q, c, "tp", tp, "nvls_tp"));
}

// Whether vLLM has communicators at all (a group of more than one rank).
inline bool vllm_has_comm(int64_t tp, int64_t pp) { return tp > 1 || pp > 1; }

// What the rule counts inside the budget besides the weights, the profile peak and the KV cache:
// infer.engine_overhead_bytes when given; else the non-torch increase, the torch process group's communicator
// (made in the profile run, so inside in every release), the PyNccl communicators while the snapshot precedes
// them, and the CUDA context under the whole-device rule.
template <class Q>
auto vllm_non_torch_bytes(Q& q, const InferenceOptions& o, const NcclSetup& c, int64_t tp, int64_t pp, VllmBudget b, double context) {
    using N = std::decay_t<decltype(q("", 0.0))>;
    if (o.engine_overhead_bytes >= 0) return q("engine_overhead_bytes", o.engine_overhead_bytes);
    N n = q("non_torch_increase", kVllmNonTorchIncrease);
    if (tp > 1) n += vllm_torch_pg_bytes(q, c, tp);
    if (vllm_has_comm(tp, pp) && (b == VllmBudget::WholeDevice || b == VllmBudget::Instance)) n += vllm_pynccl_bytes(q, c, tp, pp);
    if (b == VllmBudget::WholeDevice) n += q("cuda_context", context);
    return n;
}

// Whether the rule leaves the CUDA context / the NCCL buffers outside the budget.
inline bool vllm_context_outside(VllmBudget b) { return b != VllmBudget::WholeDevice; }
inline bool vllm_comm_outside(VllmBudget b, int64_t tp, int64_t pp) {
    return vllm_has_comm(tp, pp) && (b == VllmBudget::InstanceAfterNccl || b == VllmBudget::InstanceGraphs);
}

}  // namespace vl
