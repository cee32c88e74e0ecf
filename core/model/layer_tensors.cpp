// The tensor inventory as lists (layer_tensors.h holds the shapes).
#include "model/layer_tensors.h"

namespace vl {

LayerTensors layer_tensors(const ModelSpec& m, LayerKind kind) {
    LayerTensors l;
    for_each_layer_tensor(m, kind, [&](const Tensor& t) { l.add(t); });
    return l;
}

const char* split_dim_field(SplitDim dim, const ModelSpec& m) {
    switch (dim) {
        case SplitDim::Heads: return "num_attention_heads";
        case SplitDim::KvHeads: return "num_key_value_heads";
        case SplitDim::Ffn: return "intermediate_size";
        case SplitDim::ExpertFfn: return "moe_intermediate_size";
        case SplitDim::SsmInner: return "d_inner (the Mamba mixer's intermediate_size, mamba_expand * hidden_size)";
        case SplitDim::SharedFfn:
            return m.moe.shared_expert_ffn > 0 ? "shared_expert_intermediate_size" : "n_shared_experts * moe_intermediate_size";
        case SplitDim::None: break;
    }
    return "";
}

ModelTensors model_tensors(const ModelSpec& m) {
    ModelTensors l;
    for_each_model_tensor(m, [&](const Tensor& t) { l.add(t); });
    return l;
}

}  // namespace vl
