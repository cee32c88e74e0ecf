// NCCL's GPU memory per communicator, on one GPU of a single-node group (issue 14, mechanisms 1 and 7), from
// NCCL's source at release tags [nccl-p2p-code] [nccl-nvls-code]. Three terms, each per communicator:
//
//   ring  channels x 12 MiB: per channel one send and one receive connection, each buffer rounded up to
//         CUDA_IPC_MIN = 2 MiB (src/transport/p2p.cc, init.cc at v2.26.2-1): with P2P read (Ampere over NVLink
//         only, graph/paths.cc) send align(header + SIMPLE 4 MiB) = 6 MiB and receive align(header + LL 0.5 MiB
//         + LL128 4.69 MiB) = 6 MiB; otherwise send align(header) = 2 MiB and receive align(header + LL + LL128
//         + SIMPLE) = 10 MiB (the 2097152 and 10485760 B allocations NCCL logs on 8 H100s [nccl-issue-1685]).
//         The ring keeps two connections whatever the number of ranks, so memory is linear in channels, not in
//         peers [nccl-issue-964].
//   tree  channels x 12 MiB more at 3 ranks or more, when the tree is connected at init (below). In one node
//         the tree is a chain (graph/connect.cc: up = intra[i-1], down = intra[i+1]); a connection the ring
//         already made on that channel is reused (transport.cc: `...->send[connIndex].connected) continue`).
//         On a chain in ring order (8 H800s: ring "0 3 1 2 4 7 5 6", rank 4's tree "7/-1/-1->4->2"
//         [nccl-issue-892]) a middle rank sends to its parent and receives from its child, two new
//         buffers: 6 + 6 or 2 + 10 MiB = 12 MiB a channel. The chain's root adds only the receive (6 MiB with
//         P2P read: 4 A100s logged 544 MB per 2-rank and 688 MB per 3-4-rank communicator on rank 0, the 144 MB
//         between them 24 channels x 6 MiB [nccl-issue-964]), the leaf only the send. vLLM sizes every rank's
//         KV pool by the smallest rank's memory [vllm-kv-min-rank], so the middle rank counts. At 2 ranks the
//         ring's peer is the tree's: nothing.
//   nvls  NVLink SHARP buffers: only on Hopper and later behind NVSwitch, at more than 2 ranks
//         (transport/nvls.cc: `gpuCount <= 2` returns), by NCCL version [nccl-nvls-code] [nccl-release-notes]:
//           <= 2.20   channels x 2 x (SIMPLE 4 MiB + 2 MiB) x ranks      (8x H200 tp 8: "nvlsTotalSize 2415919104" [vllm-issue-9699])
//           2.21      channels x 2 x (8 steps x 128 KiB + 2 MiB) x ranks ("Reduce NVLS memory usage")
//           2.22-2.25 as 2.21 here: no vLLM release ships them (16 channels x 2 MiB x ranks aligned to the
//                     multicast granularity, undocumented; 2.21's figure is the larger at every tp)
//           >= 2.26   NVLS channels x 2 x 1 MiB x ranks + 2 MiB of credits (granularity counted apart: "save
//                     hundreds of MBs"); NVLS channels 16 on Hopper, 32 on Blackwell (2.27's 24 for one NVLink
//                     domain taken as 32)
//
// Channels come from NCCL's topology search: 24 on 8-GPU NVSwitch boards (H100/H200 logs "24 coll channels")
// and on NVLink-bridged pairs ([nccl-issue-1161]: 24 tree channels on 2 H100 PCIe with a bridge); PCIe cards
// get 2 ([nccl-tests-issue-307]: "Ring 00", "Ring 01" on 8 RTX 4090s), taken as 4 (NCCL may double them). An
// interconnect the GPU preset does not name is taken as NVSwitch, the most memory.
//
// When: NCCL <= 2.21 connects ring, tree and NVLS at ncclCommInitRank; from 2.22 the connection is lazy, at
// the first collective using each algorithm, but only with cuMem on (`comm->runtimeConn = comm->cuMemSupport &&
// ncclParamRuntimeConnect()`, init.cc at v2.22.3-1): with NCCL_CUMEM_ENABLE=0, which vLLM sets [vllm-pr5091],
// every communicator connects eagerly in every version [nccl-p2p-code].
//
// Which NCCL: the one a PyTorch pip wheel pins (nvidia-nccl-cu12) [pytorch-nccl-pins], pytorch_nccl() below; vLLM's
// through its PyTorch pin (inference/vllm_budget.h), training's through the newest PyTorch the table knows
// (training/overheads.cpp). Connected with a lazy NCCL: the ring at a communicator's first collective; NVLS only
// where large collectives run (`large`: NCCL's NVLS algorithm has only the Simple protocol, so a reduction of a
// few bytes, a barrier or a loss, runs ring or tree LL and connects no NVLS buffers: src/graph/tuning.cc skips NVLS
// with any other protocol [nccl-nvls-code]; the connection per algorithm at the first collective [nccl-p2p-code]).
//
// Not modelled: NCCL_BUFFSIZE / NCCL_*_NCHANNELS / NCCL_NVLS_ENABLE overrides, the multicast granularity
// alignment of <= 2.25, network (multi-node) transport buffers, and a few MiB of channel structs per communicator.
#pragma once
#include <cstdint>
#include <type_traits>

#include "cuda_context.h"
#include "formula.h"
#include "model/presets.h"
#include "release.h"
#include "units.h"

namespace vl {


// What a communicator's bytes depend on.
struct NcclSetup {
    Release version;  // the NCCL release
    GpuLink link = GpuLink::Unknown;
    GpuArch arch = GpuArch::Unknown;
    bool eager = true;  // ring, tree and NVLS connected at init: NCCL <= 2.21, or NCCL_CUMEM_ENABLE=0
    bool large = true;  // large collectives (gradients, activations) run on it: lazily connected NVLS (above)
};

// The NCCL of each PyTorch pip wheel [pytorch-nccl-pins]: releases from `torch` on, until the next row.
struct TorchNcclRow {
    Release torch;
    Release nccl;
};
inline constexpr TorchNcclRow kTorchNcclRows[] = {
    {{2, 1, 0}, {2, 18, 1}}, {{2, 2, 0}, {2, 19, 3}}, {{2, 3, 0}, {2, 20, 5}},
    {{2, 5, 0}, {2, 21, 5}}, {{2, 7, 0}, {2, 26, 2}}, {{2, 8, 0}, {2, 27, 3}},
};

// The NCCL a PyTorch release's pip wheel ships (the first row's before 2.1).
constexpr Release pytorch_nccl(const Release& torch) {
    Release nccl = kTorchNcclRows[0].nccl;
    for (const TorchNcclRow& r : kTorchNcclRows)
        if (at_least(torch, r.torch.major, r.torch.minor, r.torch.patch)) nccl = r.nccl;
    return nccl;
}

// Whether a release connects ring, tree and NVLS when the communicator is made: before 2.22, or with cuMem off
// (NCCL_CUMEM_ENABLE=0); from 2.22 with cuMem on, at the first collective of each algorithm [nccl-p2p-code].
constexpr bool nccl_connects_at_init(const Release& nccl, bool cumem) { return !at_least(nccl, 2, 22) || !cumem; }

inline constexpr double kNcclRingPerChannel = 12 * kMiB;  // align(hdr + 4 MiB) + align(hdr + 5.19 MiB) | align(hdr) + align(hdr + 9.19 MiB), 2 MiB [nccl-p2p-code]
inline constexpr double kNcclTreePerChannel = kNcclRingPerChannel;  // a middle rank's send to its parent + receive from its child, the same pair [nccl-p2p-code]

// Channels per communicator by interconnect (above).
double nccl_channels(GpuLink link);

// Whether the communicator has NVLink SHARP buffers: Hopper or Blackwell, NVSwitch (or not known), > 2 ranks.
bool nccl_nvls(const NcclSetup& c, int64_t ranks);

// The NVLS buffers of one communicator on one GPU, by NCCL version (table above).
// `ranks_name` names the rank count in the derivation ("tp").
template <class Q>
auto nccl_nvls_bytes(Q& q, const NcclSetup& c, const char* ranks_name, int64_t ranks) {
    const auto n = q(ranks_name, static_cast<double>(ranks));
    if (!at_least(c.version, 2, 26))
        return q("channels", nccl_channels(c.link)) * q("nvls_per_channel_rank", at_least(c.version, 2, 21) ? 6 * kMiB : 12 * kMiB) * n;
    return q("nvls_channels", c.arch == GpuArch::Blackwell ? 32.0 : 16.0) * q("nvls_per_channel_rank", 2 * kMiB) * n +
           q("nvls_credits", 2 * kMiB);
}

// One communicator of `ranks` ranks on one GPU: channels x (ring + tree) + NVLS, the NVLS term named `nvls_name`.
template <class Q>
auto nccl_comm_bytes(Q& q, const NcclSetup& c, const char* ranks_name, int64_t ranks, const char* nvls_name) {
    using N = std::decay_t<decltype(q("", 0.0))>;
    N per_channel = q("ring_per_channel", kNcclRingPerChannel);
    if (c.eager && ranks >= 3) per_channel += q("tree_per_channel", kNcclTreePerChannel);
    N b = q("channels", nccl_channels(c.link)) * per_channel;
    if (nccl_nvls(c, ranks)) b += q.let(nvls_name, nccl_nvls_bytes(q, c, ranks_name, ranks));
    return b;
}

}  // namespace vl
