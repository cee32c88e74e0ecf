// estimate_training: builds the components of the most loaded GPU (first or last pipeline stage,
// whichever peaks higher) from model states, activations, fine-tuning adapters and overheads; the
// phase masks say when each is live (load / end of forward / backward / optimizer step).
#include "training/training.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "allocator_reserve.h"
#include "cold.h"
#include "cublas_workspace.h"
#include "enum_names.h"
#include "release.h"
#include "training/finetune.h"
#include "model/image_tokens.h"
#include "model/layer_tensors.h"
#include "training/moe_experts.h"
#include "training/step_replay.h"
#include "training/training_internal.h"

namespace vl {

static bool adapters(const Scenario& s) {
    return s.mode == Mode::FineTune && s.finetune.method != FineTuneMethod::Full;
}

// One rank of one pipeline stage, default model.
static void emit_rank(const Scenario& s, const ParamCounts& pc, Detail d, Estimate& e, int64_t stage_index) {
    const int64_t L = s.model.architecture_known() ? s.model.layers : 1;
    TrainCtx c{s, pc, d, e, pipeline_stage(L, s.parallel, stage_index), {}, training_dtypes(s.train)};
    if (!s.model.architecture_known()) c.stage.first = c.stage.last = true;  // nothing to split
    c.w = rank_weights(s.model, pc, s.parallel, c.stage);
    c.shard = static_cast<double>(zero_shard_size(s.parallel));
    c.expert_shard = static_cast<double>(expert_shard_size(s.parallel));
    c.in_flight = microbatches_in_flight(s.parallel, s.train.grad_accum_steps, stage_index);
    c.largest_layer = s.model.architecture_known() ? c.w.largest_layer : static_cast<double>(s.train.params_only_largest_layer);
    c.finetune_adapters = adapters(s);

    add_context(c);
    // From the first step on: the forward thread's workspace and the autograd device thread's (cublas_workspace.h).
    add_cublas_workspace(s, d, e, phase_bit(Phase::Forward) | phase_bit(Phase::Backward) | phase_bit(Phase::Step));
    const VisionTrainingParams vision = vision_training_params(c);
    add_vision_frozen_weights(c, vision.frozen - vision.nf4);
    if (c.finetune_adapters) {
        add_finetune(c, vision.trained, vision.nf4);
    } else {
        TrainableSet t;
        t.params = c.w.total() + vision.trained;
        t.experts = c.w.experts;
        t.dt = c.dt;
        if (s.train.optimizer == Optimizer::Adafactor) t.factored_states = adafactor_state_elements(s.model, pc, s.parallel, c.stage);
        add_model_states(c, t);
    }
    if (s.model.architecture_known()) {
        add_activations(c);
        add_projector_activations(c);
        add_vision_tower_activations(c);
        add_mllama_cross_attention(c);
        add_vision_forward_working(c);  // last of the activation rows: it is compared with them
        if (s.model.moe.num_experts > 0) add_moe_expert_memory(c);  // MoE layers with 3-D expert parameters (no vision tower)
    }
    add_buffers(c);
}

// A model whose experts are 3-D parameters (gpt-oss) has no gate_proj / up_proj / down_proj module: what lora_targets naming
// them gets in PEFT, and how to adapt the experts (target_parameters: finetune.lora_expert_layers) [peft-paramwrapper-code].
static std::string expert_targets_hint(const ModelSpec& m, unsigned targets) {
    const unsigned mlp = targets & kLoraMlp & ~lora_targets_present(m);
    if (mlp == 0 || !experts_are_parameters(m)) return "";
    return lora_target_list(mlp) + ": " + m.model_type + "'s experts are 3-D parameters (gate_up_proj, down_proj), no nn.Linear " +
           "modules, so PEFT's target_modules adapt none of them: drop them from lora_targets and adapt the experts with " +
           "finetune.lora_expert_layers (PEFT target_parameters)";
}

static void add_warnings(const Scenario& s, Estimate& e) {
    const ModelSpec& m = s.model;
    // gate/up/down beside targets that exist: PEFT adapts those and matches nothing by these names on 3-D experts (validate_training
    // refuses the targets when nothing else is matched, as PEFT does)
    if (s.mode == Mode::FineTune && (s.finetune.lora_targets & kLoraMlp) != 0) cold([&] {  // a fine-tune's check, not the first view's
        if (s.finetune.method != FineTuneMethod::Full && (s.finetune.lora_targets & kLoraMlp & lora_targets_present(m)) == 0 && experts_are_parameters(m))
            e.warnings.push_back("finetune.lora_targets " + expert_targets_hint(m, s.finetune.lora_targets) + "; no adapters counted for them");
    });
    if (!m.architecture_known()) {
        if (s.train.compat == Compat::None)
            cold([&] { e.warnings.push_back("model is known only by its parameter count: activations, logits and per-layer buffers are not estimated"); });
        if (s.train.optimizer == Optimizer::Adafactor)
            cold([&] { e.warnings.push_back("Adafactor's factored states need the weight shapes: counted as 0 for a params-only model"); });
        if (s.parallel.zero == 3 && s.train.params_only_largest_layer == 0 && s.overheads.temp_buffers)
            cold([&] { e.warnings.push_back("ZeRO-3 gather buffer not counted: set train.params_only_largest_layer for a params-only model"); });
        if (s.parallel.tp > 1 || s.parallel.pp > 1)
            cold([&] { e.warnings.push_back("params-only model: weights are split evenly over tp * pp (embedding placement unknown)"); });
    }
    // With images the tower's part is counted: a trained or adapted tower's saved activations (act.vision_tower), a frozen
    // one's forward working memory (act.vision_forward).
    if (m.vision.active() && m.architecture_known() && s.train.images <= 0)
        cold([&] { e.warnings.push_back("vision-language model without images (train.images 0): the language model is walked over text tokens "
                                        "only; the vision tower and projector (" + std::to_string(e.params.vision + e.params.projector) +
                                        " parameters) are counted as weights"); });
    if (m.vision.mllama() && m.architecture_known() && s.train.images > 0)
        cold([&] { e.warnings.push_back(mllama_training_note(m, s.train)); });
    if (m.ssm.kind == SsmKind::Mamba1 && m.ssm.bcdt_norms && s.train.ssm_kernels == SsmKernels::Torch && plain_pytorch_training(s))
        cold([&] { e.warnings.push_back("Jamba's Mamba layers are walked as with the kernels; its torch path (slow_forward, train.ssm_kernels torch) keeps "
                                        "more (its fp32 discretised tensors), not modelled yet"); });
    if (m.ssm.kind == SsmKind::GatedDeltaNet)
        cold([&] { e.warnings.push_back("Gated DeltaNet layers: activations are a lower bound (the chunked delta rule's own intermediates, fla's "
                                        "chunk_gated_delta_rule g, beta, WY factors and chunk states, are not counted)"); });
    if (m.moe.num_experts > 0 && m.architecture_known() && !(s.train.moe_expert_capacity_factor > 0))
        cold([&] { e.warnings.push_back(s.parallel.ep > 1
                                            ? "MoE activations assume perfectly balanced routing (each rank processes b*s*top_k expert tokens); dropless routing over "
                                              "expert parallelism can send up to ep times that to one rank: a capacity factor bounds it"
                                            : "MoE activations assume perfectly balanced routing (each rank processes b*s*top_k expert tokens)"); });
    // gpt-oss ships its routed experts in MXFP4, a format nobody trains in: fine-tuning recipes upcast the
    // checkpoint to bf16 first (transformers Mxfp4Config(dequantize=True)) [gpt-oss-bf16-sft]; the weights here are that copy.
    if (m.model_type == "gpt_oss")
        cold([&] { e.warnings.push_back("gpt-oss: the weights are counted as the bf16 copy training runs on (the MXFP4 experts dequantized at load); "
                                        "the 4.25-bit experts are an inference format"); });
    if (s.mode == Mode::FineTune && s.finetune.method != FineTuneMethod::Full && s.finetune.lora_expert_layers > 0 &&
        s.train.moe_experts == MoeExperts::Loop)
        cold([&] { e.warnings.push_back("LoRA on expert parameters under the per-expert loop (train.moe_experts loop): the delta weights are counted, "
                                        "not the loop's backward through them (its saved slices of W + delta and full-size gradients)"); });
    if (s.mode == Mode::FineTune && s.finetune.method == FineTuneMethod::QLoRA && s.finetune.paged_optimizer)
        cold([&] { e.warnings.push_back("paged optimizer: the adapter optimizer states are counted on the GPU; under pressure they page to host memory"); });
    if (s.mode == Mode::FineTune && s.finetune.method == FineTuneMethod::Full && (s.finetune.save_embedding || s.finetune.save_lm_head))
        cold([&] { e.warnings.push_back("finetune.save_embedding / save_lm_head (PEFT modules_to_save) apply to LoRA and QLoRA; full fine-tuning trains the embedding and lm_head themselves, no copies are counted"); });
    if (s.train.activation_formula == ActivationFormula::Coefficient && s.train.recompute != Recompute::None)
        cold([&] { e.warnings.push_back("the coefficient formula C*L*b*s*h ignores train.recompute: choose C for your recomputation ([makinaruto2025]: 10-15 none, 2-4 checkpointing, ~1.5 FlashAttention)"); });
}

// The largest tensor one training step allocates and frees, for the allocator's split holes
// (allocator_reserve.h): the loss's logits where this rank computes a materialised loss (b x s x V / t in
// the loss dtype, the last of several of that shape [pytorch-docs] [transformers-code]), one MLP
// intermediate (a gate or up projection's output, or a routed expert's over every token), with eager
// attention one layer's softmax over s x s scores, or on transformers' torch path through a Mamba mixer one
// fp32 gradient of its largest broadcast product (activations.h mamba_torch_grad), or where transformers' per-expert loop
// trains 3-D expert parameters one full-size expert gradient (moe_experts.h).
static TransientTensor training_largest_transient(const Scenario& s, const Estimate& e) {
    const ModelSpec& m = s.model;
    if (!m.architecture_known()) return {};
    const ActShape x = activation_shape(s, training_dtypes(s.train));
    // an encoder-decoder (one stage, cp 1): logits over the target; the longer stack's MLP; the largest scores the encoder's
    // s x s or the decoder's s_tgt x max(s_tgt, s) (self- and cross-attention), max(s, s_tgt)^2
    const double tgt = m.seq2seq.active() ? decoder_shape(x, s.train.target_len).s : x.s;
    const double logit_rows = x.b * tgt / x.cp, rows = x.b * std::max(x.s, tgt) / x.cp;
    const double score_cols = m.seq2seq.active() ? std::max(x.s, tgt) : x.s / x.cp;
    const bool loss = std::any_of(e.components.begin(), e.components.end(),
                                  [](const Component& c) { return std::string_view(c.id) == "logits.loss"; });
    const double ffn = static_cast<double>(std::max(m.ffn, m.moe.expert_ffn));
    const TransientTensor ssm = m.ssm.active() ? mamba_torch_grad(layer_dims(m, false), x) : TransientTensor{};
    return largest_of({
        ssm,
        m.moe.num_experts > 0 ? expert_index_grad_transient(s) : TransientTensor{},
        {"T_logits", loss ? logit_rows : 0, static_cast<double>(m.vocab) / x.tp, s.train.fp32_logits ? 4.0 : x.act_bytes},
        {"T_mlp", rows, ffn / x.tp, x.act_bytes},
        {"T_softmax", x.flash ? 0 : rows * static_cast<double>(m.heads) / x.tp, score_cols,
         x.softmax_fp32 ? 4.0 : x.act_bytes},
    });
}

// The stages' layers under Megatron's uneven split, for the warnings.
static std::string uneven_split_note(const Scenario& s) {
    const int64_t L = s.model.layers, pp = s.parallel.pp;
    const auto n = [&](int64_t stage) { return std::to_string(pipeline_stage(L, s.parallel, stage).layers()); };
    std::string t = "uneven pipeline split (first_stage_layers / last_stage_layers): " + n(0) + " layers on the first stage, ";
    if (pp > 2) t += n(1) + " on each of the " + std::to_string(pp - 2) + " stages between, ";
    return t + n(pp - 1) + " on the last";
}

// The estimate over each sample's whole sequence (a vision-language model's image tokens already in train.seq_len).
static void estimate_training_sequence(const Scenario& s, Detail d, Estimate& e) {
    add_warnings(s, e);
    if (s.train.compat != Compat::None) {
        TrainCtx c{s, e.params, d, e, pipeline_stage(std::max<int64_t>(1, s.model.layers), s.parallel.pp, 0), {}, training_dtypes(s.train)};
        c.largest_layer = s.model.architecture_known() ? static_cast<double>(e.params.largest_layer)
                                                       : static_cast<double>(s.train.params_only_largest_layer);
        if (s.train.compat == Compat::Megatron) add_megatron_compat(c);
        if (s.train.compat == Compat::DeepSpeedEstimator) add_deepspeed_compat(c);
        if (s.train.compat == Compat::Accelerate) add_accelerate_compat(c);
        return;
    }
    emit_rank(s, e.params, d, e, 0);
    TransientTensor largest = training_largest_transient(s, e);  // of the stage shown
    add_fragmentation(s, d, e, largest);
    if (s.parallel.pp > 1 && s.model.architecture_known()) {
        // The other candidate stages, reserve included (the last stage's largest transient tensor is the logits),
        // each built in e while the most loaded so far waits aside: the most loaded stage is shown. Under Megatron's
        // uneven split the stages between may hold more layers than either end: the second stage, which of them
        // holds the most micro-batches in flight, is a candidate too.
        const int64_t last = s.parallel.pp - 1;
        int64_t shown = 0;
        const int64_t stages[2] = {1, last};  // no allocation on the sweeps' path
        const bool middle = last > 1 && uneven_pipeline_split(s.parallel);
        for (size_t i = middle ? 0 : 1; i < 2; ++i) {
            const int64_t stage = stages[i];
            std::vector<Component> best = std::exchange(e.components, {});
            e.components.reserve(best.capacity());  // room for this stage at once, as estimate() gave the first
            emit_rank(s, e.params, d, e, stage);
            const TransientTensor t = training_largest_transient(s, e);
            add_fragmentation(s, d, e, t);
            if (phase_totals(e.components).peak_bytes() > phase_totals(best).peak_bytes()) {
                largest = t;
                shown = stage;
            } else {
                e.components = std::move(best);
            }
        }
        if (shown == last)
            cold([&] { e.warnings.push_back("the last pipeline stage is the most loaded (output layer and logits); shown for it"); });
        else if (shown > 0)
            cold([&] { e.warnings.push_back("pipeline stage 2, between the uneven first and last stages, is the most loaded; shown for it"); });
        if (uneven_pipeline_split(s.parallel))
            cold([&] { e.warnings.push_back(uneven_split_note(s)); });
    }
    // nvidia-smi's figure for the rank shown: two steps replayed through the allocator model where they can be
    // (training/step_replay.h), else kCachedShown x the largest transient. The replay (some thousand requests; 5.3 M
    // instructions for Qwen2.5-1.5B at 2 x 4096, 2.2 M for Pythia-410m at 8 x 2048 by callgrind, 2.8 M and 1.6 M before
    // the recomputed layer's tensors were requested one by one, which took 45-150 us natively: some 100-200 x a
    // number-only estimate, several times the rest of a Full one) runs for Detail::Full only: sweeps and solvers read
    // total_bytes, not shown_bytes.
    const StepReplay r = d == Detail::Full && *step_replay_why_not(s) == '\0' ? replay_training_steps(s, e) : StepReplay{};
    const ReplayedReserve replayed{r.peak_reserved, r.peak_allocated};
    set_shown_reserve(s, d, e, largest, r.replayed ? &replayed : nullptr);
}

void estimate_training(const Scenario& s, Detail d, Estimate& e) {
    // A vision-language model's image tokens join each sample's sequence: the language model is walked over both
    // (its activations, logits and loss; the labels mask them, the logits are computed all the same) [transformers-code].
    const int64_t image_tokens = training_image_tokens(s.model, s.train);
    if (image_tokens > 0) {
        e.warnings.push_back(training_image_tokens_note(s.model, s.train));
        Scenario with_images = s;
        with_images.train.seq_len += image_tokens;
        estimate_training_sequence(with_images, d, e);
        return;
    }
    estimate_training_sequence(s, d, e);
}

// ---- validation ------------------------------------------------------------------------------
static std::string num(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

// The deepspeed section: element counts as DeepSpeed takes them (ge=0), "auto" only where the hidden size is known.
static void validate_deepspeed(const Scenario& s, std::vector<FieldError>& errs) {
    const DeepSpeedZero& z = s.deepspeed;
    const auto size = [&](double v, const char* field, bool may_be_auto) {
        if (may_be_auto && v == kDsAuto) {
            if (z.enabled && !s.model.architecture_known())
                cold([&] { errs.push_back({field, "\"auto\" is hidden_size-based (the transformers Trainer fills it) and this params-only model has no "
                                                  "hidden size; give a number of elements (DeepSpeed's default: see docs/scenario-format.md)"}); });
            return;
        }
        if (!(v >= 0 && v <= 1e15))
            cold([&] { errs.push_back({field, std::string("must be a number of elements in [0, 1e15]") + (may_be_auto ? " or \"auto\"" : "") + "; got " + num(v)}); });
    };
    size(z.reduce_bucket_size, "deepspeed.reduce_bucket_size", true);
    size(z.allgather_bucket_size, "deepspeed.allgather_bucket_size", false);
    size(z.stage3_prefetch_bucket_size, "deepspeed.stage3_prefetch_bucket_size", true);
    size(z.stage3_max_live_parameters, "deepspeed.stage3_max_live_parameters", false);
    size(z.stage3_max_reuse_distance, "deepspeed.stage3_max_reuse_distance", false);
    size(z.stage3_param_persistence_threshold, "deepspeed.stage3_param_persistence_threshold", true);
    size(z.sub_group_size, "deepspeed.sub_group_size", false);
    if (z.enabled && s.parallel.zero == 0 && !reported(errs, "parallel.zero"))
        cold([&] { errs.push_back({"deepspeed.enabled", "DeepSpeed's ZeRO buffers need parallel.zero 1, 2 or 3; got 0: set parallel.zero, or turn deepspeed.enabled off"}); });
}

// LoRA / QLoRA on a state-space or hybrid model: the adapters that would never run or that PEFT refuses. True when one is
// reported.
static bool ssm_adapter_errors(const Scenario& s, std::vector<FieldError>& errs) {
    const ModelSpec& m = s.model;
    const unsigned tg = s.finetune.lora_targets;
    // (Gated DeltaNet: its forward calls in_proj_qkvz / in_proj_ba (Qwen3.5: in_proj_qkv, _z, _b, _a) and out_proj as modules and
    // fla's kernels take the projected tensors, so every adapter runs and PEFT checks none of them: nothing to refuse [transformers-code])
    // PEFT raises ValueError for an out_proj (or conv1d) target on these model types, whose fused kernels read out_proj.weight
    // directly; "all-linear" names every mixer's out_proj, so it is refused too (_check_lora_target_modules_mamba) [peft-code].
    // Zamba's shared blocks: what the frozen block keeps per invocation under adapters is not walked, and its gate_up_proj (gate
    // and up in one Linear) and the built-in adapters are linears no vramlens target names.
    if (m.ssm.shared_blocks > 0) {
        cold([&] { errs.push_back({"finetune.method", "LoRA and QLoRA on a Zamba model (" + m.model_type + ": model.ssm.shared_blocks, shared "
                                                      "transformer blocks) are not modelled yet; use method full"}); });
        return true;
    }
    const std::string& t = m.model_type;
    if ((tg & kLoraOutProj) != 0 && (t == "falcon_h1" || t == "mamba" || t == "mamba2" || t == "nemotron_h")) {
        cold([&] { errs.push_back({"finetune.lora_targets", "out_proj: PEFT refuses an adapter on the Mamba mixer's out_proj for " + m.model_type +
                                                            " (the fused kernel reads out_proj.weight directly), and all-linear includes it; "
                                                            "name the modules without out_proj (e.g. in_proj and the attention and MLP projections)"}); });
        return true;
    }
    // Elsewhere an adapter on a linear the fused kernel reads directly is accepted by PEFT but never runs (no gradient).
    if (const unsigned bypassed = tg & ssm_kernel_read_targets(s); bypassed != 0) {
        cold([&] { errs.push_back({"finetune.lora_targets", lora_target_list(bypassed) + ": with train.ssm_kernels fused the Mamba kernel takes " +
                                                            "these weights directly, so their adapters never run; drop them, or set train.ssm_kernels torch"}); });
        return true;
    }
    return false;
}

// Whether a model field is already in error: its layers are then no basis for a rule about them (one problem, one error).
static bool model_in_error(const std::vector<FieldError>& errs) {
    return std::any_of(errs.begin(), errs.end(), [](const FieldError& e) { return e.field.rfind("model.", 0) == 0; });
}

void validate_training(const Scenario& s, std::vector<FieldError>& errs) {
    const TrainingOptions& o = s.train;
    const ModelSpec& m = s.model;
    auto range = [&](double v, double lo, double hi, const char* field) {
        if (!(v >= lo && v <= hi)) cold([&] { errs.push_back({field, "must be in [" + num(lo) + ", " + num(hi) + "]; got " + num(v)}); });
    };
    // A state-space model's Mamba layers are walked as transformers trains them, through its torch path or the
    // fused kernels (train.ssm_kernels; activations.cpp layer_mamba_torch, layer_mamba, Jamba's unfused mixer
    // too), in full training or with a frozen base under LoRA / QLoRA; what those walks do not cover is refused
    // rather than sized as a transformer: Falcon Mamba's own kernel, adapters that never run or that PEFT refuses
    // (ssm_adapter_errors), context parallelism, the closed-form formulas and other
    // tools' accounting.
    if (m.ssm.active()) cold([&] {  // only a state-space model's scenario runs it
        const std::string what = std::string(" for a state-space model (") + m.model_type + ": Mamba layers) is not modelled yet";
        if (m.model_type == "falcon_mamba")  // its fused kernel also normalizes B, C and dt: other saved tensors
            cold([&] { errs.push_back({"mode", "training" + what + " for Falcon Mamba's kernel (B, C and dt normalized inside it); use mode infer"}); });
        else if (adapters(s) && ssm_adapter_errors(s, errs)) {
            // reported
        } else if (o.activation_formula != ActivationFormula::TensorWalk)
            cold([&] { errs.push_back({"train.activation_formula", "a closed-form activation formula" + what + "; use tensor-walk"}); });
        else if (o.compat != Compat::None)
            cold([&] { errs.push_back({"train.compat", "another tool's accounting" + what + "; use none"}); });
        else if (s.parallel.cp > 1)
            cold([&] { errs.push_back({"parallel.cp", "context parallelism" + what + "; use cp 1"}); });
    });
    validate_training_images(m, o, errs);
    // The PyTorch whose wheel's NCCL sizes the communicators (overheads.cpp add_nccl; core/nccl.h pytorch_nccl).
    cold([&] {  // the check (parse_release inlined) in a function of its own: the page's first view is an inference (cold.h)
        if (const std::optional<Release> torch = parse_release(o.torch_version); !torch || !at_least(*torch, 2, 1))
            errs.push_back({"train.torch_version", "must be a PyTorch release of 2.1 or later such as \"2.6\" or \"2.7.1\" "
                                                   "(python -c 'import torch; print(torch.__version__)'): its NCCL sizes the "
                                                   "communicators; got \"" + o.torch_version.substr(0, 40) + "\""});
    });
    if (o.vision == VisionTraining::All && m.vision.active() && adapters(s))
        cold([&] { errs.push_back({"train.vision", "all: with LoRA or QLoRA the vision tower carries adapters of its own (LLaMA-Factory's "
                                                   "freeze_vision_tower false, Unsloth's finetune_vision_layers): use lora, or frozen or projector, or method full"}); });
    if (o.vision == VisionTraining::Lora && m.vision.active() && !adapters(s))
        cold([&] { errs.push_back({"train.vision", "lora: adapters on the vision tower need mode finetune with method lora or qlora; use all to train "
                                                   "the tower in full training, or frozen"}); });
    if (o.vision != VisionTraining::Frozen && m.vision.active() && o.optimizer == Optimizer::Adafactor)
        cold([&] { errs.push_back({"train.vision", "Adafactor's factored states are counted for the language model's matrices only; use frozen, or "
                                                   "another optimizer"}); });
    if (o.vision != VisionTraining::Frozen && m.vision.active() && o.compat != Compat::None)
        cold([&] { errs.push_back({"train.vision", "another tool's accounting counts the language model only; use frozen, or compat none"}); });
    // An encoder (BERT, RoBERTa) is walked as transformers trains it in full (activations.cpp: the layers,
    // BertEmbeddings, the pooler / classifier / masked-LM head); adapters on it and other tools' accounting
    // are refused rather than sized as a decoder.
    if (m.encoder) {
        const std::string what = std::string(" for an encoder (") + m.model_type + ") is not modelled yet";
        if (s.mode == Mode::FineTune && s.finetune.method != FineTuneMethod::Full)
            cold([&] { errs.push_back({"finetune.method", "LoRA and QLoRA" + what + "; use method full"}); });
        else if (o.compat != Compat::None)
            cold([&] { errs.push_back({"train.compat", "another tool's accounting" + what + "; use none"}); });
    }
    // An encoder-decoder (T5, BART) is walked stack by stack (activations.cpp add_seq2seq_layers): the encoder over seq_len, the
    // decoder over target_len with its cross-attention, on one pipeline stage.
    if (m.seq2seq.active()) {
        const std::string what = std::string(" for an encoder-decoder (") + m.model_type + ") is not modelled yet";
        if (s.mode == Mode::Train && o.activation_formula != ActivationFormula::TensorWalk)
            cold([&] { errs.push_back({"train.activation_formula", "a closed-form activation formula" + what + "; use tensor-walk"}); });
        else if (o.compat != Compat::None)
            cold([&] { errs.push_back({"train.compat", "another tool's accounting" + what + "; use none"}); });
        else if (s.parallel.pp > 1)
            cold([&] { errs.push_back({"parallel.pp", "pipeline parallelism" + what + "; use pp 1"}); });
        else if (s.parallel.cp > 1)
            cold([&] { errs.push_back({"parallel.cp", "context parallelism" + what + "; use cp 1"}); });
        else if (o.recompute == Recompute::EveryK)
            cold([&] { errs.push_back({"train.recompute", "checkpointing every k layers" + what + "; use none, selective or full"}); });
    } else if (o.target_len != 0 && m.architecture_known()) {
        cold([&] { errs.push_back({"train.target_len", "is the decoder's length of an encoder-decoder (t5, mt5, bart); this model has one stack: leave it 0"}); });
    }
    range(static_cast<double>(o.micro_batch), 1, 1e6, "train.micro_batch");
    range(static_cast<double>(o.seq_len), 1, 1e8, "train.seq_len");
    range(static_cast<double>(o.target_len), 0, 1e8, "train.target_len");
    range(static_cast<double>(o.grad_accum_steps), 1, 1e6, "train.grad_accum_steps");
    range(o.recompute_every_k, 1, 1e6, "train.recompute_every_k");
    range(o.moe_expert_capacity_factor, 0, 1000, "train.moe_expert_capacity_factor");
    if (o.moe_pad_expert_input_to_capacity && !(o.moe_expert_capacity_factor > 0))
        cold([&] { errs.push_back({"train.moe_pad_expert_input_to_capacity", "pads each expert's input to the capacity that train.moe_expert_capacity_factor sets; "
                                                                             "give a factor > 0 (e.g. 1.0) or turn padding off"}); });
    if (o.offload_checkpoints && o.recompute != Recompute::Full && o.recompute != Recompute::EveryK)
        cold([&] { errs.push_back({"train.offload_checkpoints", "offloads the checkpointed layer inputs, so it needs train.recompute \"full\" or \"every-k\"; "
                                                                "set one, or turn offload_checkpoints off"}); });
    if (!(o.dropout >= 0 && o.dropout < 1)) cold([&] { errs.push_back({"train.dropout", "must be in [0, 1); got " + num(o.dropout)}); });
    if (!(o.attention_dropout < 1)) cold([&] { errs.push_back({"train.attention_dropout", "must be < 1 (negative: same as dropout); got " + num(o.attention_dropout)}); });
    if (o.optimizer == Optimizer::Custom) range(o.custom_optimizer_bytes_per_param, 0, 1000, "train.custom_optimizer_bytes_per_param");
    if (o.activation_formula == ActivationFormula::Coefficient) range(o.activation_coefficient, 0, 1000, "train.activation_coefficient");
    range(static_cast<double>(o.params_only_largest_layer), 0, 1e15, "train.params_only_largest_layer");

    if (m.architecture_known()) {
        if (m.position == PositionKind::Learned && m.max_position > 0 && o.seq_len > m.max_position)
            cold([&] { errs.push_back({"train.seq_len", "must be at most max_position_embeddings (" + num(static_cast<double>(m.max_position)) +
                                                            ") with learned positions; got " + num(static_cast<double>(o.seq_len))}); });
        if (m.position == PositionKind::Learned && m.max_position > 0 && o.target_len > m.max_position)
            cold([&] { errs.push_back({"train.target_len", "must be at most max_position_embeddings (" + num(static_cast<double>(m.max_position)) +
                                                               ") with learned positions; got " + num(static_cast<double>(o.target_len))}); });
        if (s.parallel.cp > 1 && o.seq_len % s.parallel.cp != 0)
            cold([&] { errs.push_back({"train.seq_len", "must be divisible by parallel.cp (" + num(static_cast<double>(s.parallel.cp)) + ")"}); });
    }
    if (o.compat == Compat::DeepSpeedEstimator && s.parallel.zero != 2 && s.parallel.zero != 3 && !reported(errs, "parallel.zero"))
        cold([&] { errs.push_back({"train.compat", "the DeepSpeed estimator covers ZeRO-2 and ZeRO-3; got parallel.zero " + num(s.parallel.zero)}); });
    if (o.compat == Compat::Megatron && !m.architecture_known())
        cold([&] { errs.push_back({"train.compat", "Megatron's formula needs the architecture (hidden, layers, heads, vocab); got a params-only model"}); });
    if (o.compat == Compat::Accelerate && o.precision == Precision::PureBF16)
        cold([&] { errs.push_back({"train.compat", "accelerate's estimator has no pure-bf16 regime: use FP32 or a mixed regime"}); });
    if (o.compat != Compat::None && s.mode == Mode::FineTune && s.finetune.method != FineTuneMethod::Full)
        cold([&] { errs.push_back({"train.compat", "compatibility modes cover full training only; got a LoRA/QLoRA fine-tune"}); });

    validate_deepspeed(s, errs);

    if (s.mode == Mode::FineTune && s.finetune.method != FineTuneMethod::Full) {
        const FineTuneOptions& f = s.finetune;
        if (!m.architecture_known())
            cold([&] { errs.push_back({"finetune.method", "LoRA/QLoRA need the architecture (which layers are adapted); got a params-only model"}); });
        range(static_cast<double>(f.lora_rank), 1, 65536, "finetune.lora_rank");
        if (f.lora_targets == 0 || (f.lora_targets & ~static_cast<unsigned>(kLoraAllLinear)) != 0)
            cold([&] { errs.push_back({"finetune.lora_targets", "must name at least one of " + lora_target_list() + "; got " + num(f.lora_targets)}); });
        // PEFT raises "Target modules ... not found in the base model" when no module matches [peft-code]: zero adapters
        else if (m.architecture_known() && !m.encoder)
            cold([&] {  // a fine-tuning scenario's check, not the first view's
                if (!model_in_error(errs) && (f.lora_targets & lora_targets_present(m)) == 0 &&
                    !(o.vision == VisionTraining::Lora && tower_lora_params(m, 1, f.lora_targets) > 0))
                    errs.push_back({"finetune.lora_targets", lora_target_list(f.lora_targets) + " select no layer of this model (" + m.model_type +
                                                                 "); its linear layers are " + lora_target_list(lora_targets_present(m)) +
                                                                 (experts_are_parameters(m) ? "; " + expert_targets_hint(m, f.lora_targets) : "")});
            });
        if (!(f.lora_dropout >= 0 && f.lora_dropout < 1)) cold([&] { errs.push_back({"finetune.lora_dropout", "must be in [0, 1); got " + num(f.lora_dropout)}); });
        if (f.method == FineTuneMethod::QLoRA) {
            range(static_cast<double>(f.quant_block), 1, 1e6, "finetune.quant_block");
            range(static_cast<double>(f.quant_block2), 1, 1e6, "finetune.quant_block2");
        }
    }
    for (const auto& [field, on] : {std::pair{"finetune.bnb_saves_inputs", s.finetune.bnb_saves_inputs},
                                    std::pair{"finetune.bnb_quantize_head", s.finetune.bnb_quantize_head},
                                    std::pair{"finetune.bnb_fp16_quant_state", s.finetune.bnb_fp16_quant_state}})
        if (s.mode == Mode::FineTune && on && s.finetune.method != FineTuneMethod::QLoRA)
            cold([&, field = field] { errs.push_back({field, "describes bitsandbytes' 4-bit matmul (QLoRA); set finetune.method \"qlora\" or turn it off"}); });
    if (s.mode == Mode::FineTune && s.finetune.vision_quant != VisionQuant::All && s.finetune.method != FineTuneMethod::QLoRA)
        cold([&] { errs.push_back({"finetune.vision_quant", "says which vision-tower linears QLoRA's 4-bit load converts; nothing is quantized "
                                                            "without it: set finetune.method \"qlora\" or vision_quant \"all\" (the default)"}); });
    else if (s.mode == Mode::FineTune && s.finetune.vision_quant != VisionQuant::All && !m.vision.active())
        cold([&] { errs.push_back({"finetune.vision_quant", "describes a vision-language model's tower and projector, and this model has none "
                                                            "(model.vision): set \"all\" (the default)"}); });
    if (s.mode == Mode::FineTune && s.finetune.lora_fused_qkv && (s.finetune.method == FineTuneMethod::Full || !m.fused_qkv))
        cold([&] { errs.push_back({"finetune.lora_fused_qkv", "describes Lit-GPT's LoRA over one fused qkv Linear: needs finetune.method lora or qlora "
                                                              "and model.fused_qkv true, or set it to false"}); });
    // PEFT target_parameters on 3-D expert parameters (moe_experts.h)
    if (s.mode == Mode::FineTune && s.finetune.lora_expert_layers != 0) cold([&] {  // only gpt-oss runs set it
        const FineTuneOptions& f = s.finetune;
        const int64_t moe_layers = m.architecture_known() ? layer_pattern(m).moe_count(0, m.layers) : 0;
        if (f.lora_expert_layers < 0)
            cold([&] { errs.push_back({"finetune.lora_expert_layers", "must be >= 0 (the last MoE layers whose experts get LoRA; 0: none); got " +
                                                                          num(static_cast<double>(f.lora_expert_layers))}); });
        else if (f.method == FineTuneMethod::Full)
            cold([&] { errs.push_back({"finetune.lora_expert_layers", "puts LoRA adapters on expert parameters: needs finetune.method lora or qlora, or set it to 0"}); });
        else if (!fused_expert_parameters(m))
            cold([&] { errs.push_back({"finetune.lora_expert_layers", "describes PEFT target_parameters on routed experts stored as 3-D parameters "
                                                                          "(gpt-oss); this model's experts are not: adapt them with lora_targets, or set it to 0"}); });
        else if (f.lora_expert_layers > moe_layers)
            cold([&] { errs.push_back({"finetune.lora_expert_layers", "is at most the model's MoE layers, " + num(static_cast<double>(moe_layers)) +
                                                                          "; got " + num(static_cast<double>(f.lora_expert_layers))}); });
        else if (f.lora_dropout > 0)
            cold([&] { errs.push_back({"finetune.lora_dropout", "must be 0 with LoRA on expert parameters (PEFT's ParamWrapper refuses dropout): "
                                                                "set it to 0, or finetune.lora_expert_layers to 0"}); });
        else if (s.parallel.tp > 1 || s.parallel.ep > 1)
            cold([&] { errs.push_back({"finetune.lora_expert_layers", "LoRA on expert parameters is modelled without tensor or expert parallelism: "
                                                                          "set parallel.tp and parallel.ep to 1, or lora_expert_layers to 0"}); });
    });

    if (s.parallel.fsdp_flat_params && s.parallel.zero < 2 && !reported(errs, "parallel.zero"))
        cold([&] { errs.push_back({"parallel.fsdp_flat_params", "describes FSDP's sharded flat parameters: needs parallel.zero 2 (SHARD_GRAD_OP) or 3 (FULL_SHARD); got " +
                                                                    num(s.parallel.zero)}); });
    if (s.parallel.fsdp_version != 1 && s.parallel.fsdp_version != 2)
        cold([&] { errs.push_back({"parallel.fsdp_version", "is 1 (FullyShardedDataParallel) or 2 (fully_shard), as Accelerate's fsdp_version; got " +
                                                                num(s.parallel.fsdp_version)}); });
    else if (s.parallel.fsdp_version == 2 && s.parallel.fsdp_flat_params)
        cold([&] { errs.push_back({"parallel.fsdp_flat_params", "describes FSDP1's flat parameters; FSDP2 (parallel.fsdp_version 2) shards each "
                                                                    "parameter on its own: set fsdp_flat_params false or fsdp_version 1"}); });
    // FSDP MixedPrecision over fp32 shards: FSDP's own recipe, not DeepSpeed's (which keeps 16-bit parameters).
    if (o.precision == Precision::FsdpBF16 && !reported(errs, "parallel.zero")) {
        if (s.parallel.zero != 3)
            cold([&] { errs.push_back({"train.precision", "bf16-fsdp-mixed needs parallel.zero 3 (FSDP FULL_SHARD); got " + num(s.parallel.zero)}); });
        else if (s.deepspeed.enabled)
            cold([&] { errs.push_back({"train.precision", "bf16-fsdp-mixed is FSDP's recipe (DeepSpeed keeps 16-bit weights): turn deepspeed.enabled off"}); });
    }
}

}  // namespace vl
