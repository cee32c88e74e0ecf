// Training a vision-language model (ModelSpec::vision): the vision tower and projector beside the language model, by what
// trains of them (train.vision), and the projector's saved activations when it trains. The images' tokens join each
// sample's sequence (training.cpp adds them to train.seq_len before the language model is walked).
#include "inference/runtime.h"
#include "model/image_tokens.h"
#include "model/layer_tensors.h"
#include "training/training_internal.h"

namespace vl {

// A tower or projector linear QLoRA's 4-bit load converts (vision_linear), by finetune.vision_quant.
bool vision_nf4_tensor(const Scenario& s, const Tensor& t) {
    const bool qlora = s.mode == Mode::FineTune && s.finetune.method == FineTuneMethod::QLoRA;
    if (!qlora || !vision_linear(t) || s.finetune.vision_quant == VisionQuant::None) return false;
    if (t.kind == TensorKind::VisionTower) return true;
    // the projector: converted only under All, and only while it stays frozen (a trained one cannot be a Linear4bit)
    return s.finetune.vision_quant == VisionQuant::All && s.train.vision != VisionTraining::Projector;
}

// Frozen parameters of the tower and the projector, and the trained ones, on the first pipeline stage (the tower runs before
// the language model's first layer). With adapters a trained projector is PEFT's modules_to_save copy: the original stays
// frozen beside it [peft-code]; LLaMA-Factory adds the projector so when freeze_multi_modal_projector is false
// [llamafactory-vlm].
VisionTrainingParams vision_training_params(const TrainCtx& c) {
    VisionTrainingParams v;
    if (!c.s.model.vision.active() || !c.stage.first) return v;
    const double tower = static_cast<double>(c.pc.vision), projector = static_cast<double>(c.pc.projector);
    switch (c.s.train.vision) {
        case VisionTraining::Frozen: v.frozen = tower + projector; break;
        case VisionTraining::Projector:
            v.trained = projector;
            v.frozen = c.finetune_adapters ? tower + projector : tower;
            break;
        case VisionTraining::All: v.trained = tower + projector; break;  // validate_training: full training only
        case VisionTraining::Lora: v.frozen = tower + projector; break;   // adapters on the tower: add_finetune counts them
    }
    // QLoRA: the frozen linears the 4-bit load converts join the language model's NF4 weights and constants (add_finetune)
    for (const Tensor& t : vision_tensors(c.s.model))
        if (vision_nf4_tensor(c.s, t)) v.nf4 += static_cast<double>(t.params());
    return v;
}

// The frozen part left in the weight dtype the language model's weights have in this regime (frozen parameters get no gradient,
// no optimizer state; under QLoRA the linears finetune.vision_quant converts are add_finetune's NF4 rows, the rest stays here);
// replicated on every tensor-parallel rank, sharded by ZeRO-3 / FSDP like every parameter.
void add_vision_frozen_weights(TrainCtx& c, double frozen) {
    if (!(frozen > 0)) return;
    const double n_w = c.s.parallel.zero >= 3 ? c.shard : 1;
    add(c.e, c.d, comp("weights.vision_frozen", "Weights: vision tower and projector (frozen)", Category::Weights, kAllPhases,
                       "a vision-language model's image encoder and projector, loaded beside the language model and not trained "
                       "(LLaMA-Factory's default: freeze_vision_tower, freeze_multi_modal_projector) [llamafactory-vlm] [transformers-code]",
                       c.s.parallel.offload_params),
        [&](auto& q) { return q("P_vision_frozen", frozen) * q("weight_bytes", c.dt.weight) / q("N_w", n_w); });
}

// A trained projector saves what its backward needs over the images' tokens of each sample [transformers-code]
// [pytorch-autograd-code]: LlavaMultiModalProjector linear_1's input (the tower's features, h_v wide), GELU's input and
// linear_2's input (d wide each); Qwen2.5-VL's PatchMerger ln_q's input (merge^2 patches of h_v per token), then mlp.0's
// input, GELU's input and mlp.2's input (merge^2 x h_v each); Gemma 3's projector the pooled features' norm input and the
// matmul's input (h_v each); Llama 3.2 Vision's MllamaMultiModalProjector (one Linear) its input over every image's tiles x
// (patches + 1) states, the last state and the intermediate layers' concatenated ((1 + intermediate_layers) x h_v) [transformers-mllama].
// The tower's own activations (train.vision all or lora) are add_vision_tower_activations'.
void add_projector_activations(TrainCtx& c) {
    const Scenario& s = c.s;
    const VisionSpec& v = s.model.vision;
    if (s.train.vision == VisionTraining::Frozen || s.train.vision == VisionTraining::Lora || !v.active() || !c.stage.first) return;
    const int64_t tokens = v.mllama() ? s.train.images * image_grid(v, s.train.image_width, s.train.image_height).cross_tokens
                                      : training_image_tokens(s.model, s.train);
    if (tokens <= 0) return;
    const ActShape x = activation_shape(s, c.dt);
    const double hv = static_cast<double>(v.hidden), d = static_cast<double>(s.model.hidden);
    const double merge2 = static_cast<double>(v.merge * v.merge);
    add(c.e, c.d, comp("act.projector", "activations: the trained projector's saved inputs", Category::Activations, kFwdBwd,
                       "LlavaMultiModalProjector (linear_1, GELU, linear_2), Qwen2_5_VLPatchMerger (ln_q, mlp.0, GELU, mlp.2), "
                       "Gemma3MultiModalProjector (mm_soft_emb_norm, the projection): each saves its input [transformers-code] "
                       "[pytorch-autograd-code]"),
        [&](auto& q) {
            const auto T = q.let("T_images", q("in_flight", c.in_flight) * q("b", x.b) * q("image_tokens", static_cast<double>(tokens)));
            const auto bytes = q("act_bytes", x.act_bytes);
            switch (v.projector) {
                case ProjectorKind::QwenMerger: return T * bytes * (4 * q("merge2", merge2) * q("h_v", hv));
                case ProjectorKind::Gemma3: return T * bytes * (2 * q("h_v", hv));
                case ProjectorKind::MllamaLinear:
                    return T * bytes * (q("concat_v", static_cast<double>(1 + v.intermediate_layers)) * q("h_v", hv));
                case ProjectorKind::LlavaMlp: break;
            }
            return T * bytes * (q("h_v", hv) + 2 * q("d", d));
        });
}

// A tower that saves nothing for backward (train.vision frozen or projector: no parameter of it requires grad, nor does
// pixel_values, so autograd records nothing) still runs its forward over the images at the start of each micro-batch's
// forward, before the language model's layers: its working memory is inference's encoder forward (vision_forward_bytes:
// one tower layer's live tensors at its MLP over every patch of the micro-batch, eager scores per image) [transformers-code].
// Nothing of the language model's activations or logits exists yet then, so the forward peaks at the larger of the two: the
// component is what the tower needs beyond the activations and logits live at the end of forward, max(A_tower - A_fwd, 0).
void add_vision_forward_working(TrainCtx& c) {
    const Scenario& s = c.s;
    const VisionSpec& v = s.model.vision;
    const bool saves_nothing = s.train.vision == VisionTraining::Frozen || s.train.vision == VisionTraining::Projector;
    const int64_t patches = training_tower_patches(s.model, s.train);
    if (!saves_nothing || !c.stage.first || patches <= 0) return;
    const ImageGrid g = image_grid(v, s.train.image_width, s.train.image_height);
    double fwd = 0;  // what is live at the end of forward beside the weights and states: the activation and logit rows
    for (const Component& k : c.e.components)
        if ((k.category == Category::Activations || k.category == Category::Logits) && (k.phases & phase_bit(Phase::Forward)) != 0 && !k.host)
            fwd += k.bytes;
    add(c.e, c.d, comp("act.vision_forward", "activations: the frozen vision tower's forward (beyond the forward's activations)",
                       Category::Activations, phase_bit(Phase::Forward),
                       "the tower runs before the language model's layers and keeps nothing for backward: live tensors at one tower "
                       "layer's MLP over every patch, eager attention scores per image [transformers-code]; peak max(A_tower, A_fwd), "
                       "A_fwd the activation and logit rows at the end of forward"),
        [&](auto& q) {
            using N = std::decay_t<decltype(q("", 0.0))>;
            const N T_v = q("b", static_cast<double>(s.train.micro_batch)) * q("patches_v", static_cast<double>(patches));
            const N tower = vision_forward_bytes(q, v, g, T_v, s.train.micro_batch * s.train.images, s.train.flash_attention, c.dt.act);
            return max_of(q.let("A_tower", tower) - q("A_fwd", fwd), N(0));
        });
}

}  // namespace vl
