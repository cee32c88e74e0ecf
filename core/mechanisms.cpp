// The one table from component ids to mechanisms (mechanisms.h) and the peak summed by it.
#include "mechanisms.h"

#include <array>

#include "estimate.h"

namespace vl {

namespace {

constexpr std::array<MechanismInfo, kMechanismCount> kMechanisms{{
    {"model_states", "model states (weights, gradients, optimizer)"},
    {"weight_copies", "autocast and fp8 weight copies"},
    {"fsdp_flat_grads", "FSDP flat parameters: gradients of frozen weights"},
    {"deepspeed_buffers", "DeepSpeed ZeRO buffers"},
    {"speculative", "speculative decoding drafter"},
    {"activations", "activations"},
    {"logits_loss", "logits and loss"},
    {"kv_cache", "KV cache and recurrent state"},
    {"comm_buffers", "communication buffers"},
    {"engine_reserve", "engine buffers and reserve"},
    {"cuda_context", "CUDA context"},
    {"allocator_reserve", "allocator reserve"},
    {"other", "other"},
}};

enum Index : size_t { kStates, kCopies, kFsdpFlat, kDeepSpeed, kSpec, kAct, kLogits, kKv, kComm, kEngine, kContext, kAllocator, kOther };

struct Prefix {
    std::string_view head;  // a whole dot-separated head of the component id (its length known at compile time)
    Index mechanism;
};

// First match wins: the specific heads stand before the general ones ("weights.autocast_copies" before "weights").
// The ids are those add() is given in core/training and core/inference (docs/architecture.md lists where).
constexpr Prefix kPrefixes[] = {
    {"weights.autocast_copies", kCopies},
    {"weights.autocast_copies_backward", kCopies},
    {"weights.autocast_casts", kCopies},
    {"weights.fp8_cache", kCopies},
    {"grads.frozen_flat", kFsdpFlat},
    {"buffers.ds_reduce_bucket", kDeepSpeed},
    {"buffers.ds_fp32_grads", kDeepSpeed},
    {"buffers.ds_gathered_params", kDeepSpeed},
    {"weights.ds_persistent", kDeepSpeed},
    {"spec", kSpec},
    {"weights.dequant", kEngine},
    {"weights.requantize", kEngine},
    {"buffers.dequant", kEngine},
    {"buffers.kv_growth", kKv},
    {"buffers.cublas_workspace", kEngine},  // the framework's library workspaces (cublas_workspace.h)
    {"weights", kStates},
    {"grads", kStates},
    {"optimizer", kStates},
    {"lora", kStates},
    {"saved", kStates},
    {"megatron.weights_and_optimizer", kStates},
    {"megatron.activations", kAct},
    {"deepspeed", kStates},
    {"accelerate", kStates},
    {"act", kAct},
    {"logits", kLogits},
    {"kv_cache", kKv},
    {"prefill.kv_cache", kKv},
    {"kv_cache.cross", kKv},
    {"ssm_state", kKv},
    {"buffers", kComm},
    {"engine.nccl", kComm},
    {"engine", kEngine},
    {"cuda_context", kContext},
    {"overhead.cuda_context", kContext},
    {"overhead.fragmentation", kAllocator},
};

}  // namespace

std::span<const MechanismInfo> mechanisms() { return kMechanisms; }

const MechanismInfo& mechanism_of(std::string_view component_id) {
    for (const Prefix& p : kPrefixes)
        if (id_under(component_id, p.head)) return kMechanisms[p.mechanism];
    return kMechanisms[kOther];
}

void mechanism_summary(Estimate& e) {
    std::array<double, kMechanisms.size()> bytes{};
    const unsigned peak = phase_bit(e.peak_phase);
    for (const Component& c : e.components)
        if (!c.host && (c.phases & peak)) bytes[static_cast<size_t>(&mechanism_of(c.id) - kMechanisms.data())] += c.bytes;
    // Largest first, equal bytes in the table's order: each row goes in after every row at least as large
    // (a stable insertion sort over at most 13 rows; std::stable_sort would ask the heap for a buffer).
    MechanismRows& out = e.mechanisms;
    out.count = 0;
    for (size_t i = 0; i < kMechanisms.size(); ++i) {
        if (bytes[i] == 0) continue;
        size_t at = out.count;
        while (at > 0 && out.rows[at - 1].bytes < bytes[i]) {
            out.rows[at] = out.rows[at - 1];
            --at;
        }
        out.rows[at] = {kMechanisms[i].id, kMechanisms[i].label, bytes[i], e.total_bytes > 0 ? bytes[i] / e.total_bytes : 0};
        ++out.count;
    }
}

}  // namespace vl
