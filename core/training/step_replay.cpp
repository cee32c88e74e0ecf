// Two training steps replayed through the caching allocator model (step_replay.h).
#include "training/step_replay.h"

#include <cstddef>
#include <string_view>
#include <vector>

#include "caching_allocator.h"
#include "model/layer_tensors.h"
#include "training/activations.h"
#include "training/optimizers.h"
#include "training/training.h"
#include "training/training_internal.h"

namespace vl {

namespace {

// One parameter of the model, in module order (the order autograd and torch.optim visit them).
struct Param {
    double elements = 0;
    bool cast = false;  // autocast casts it in forward (a layer's matrix, the output layer's weight)
};

// The bytes of every tensor the replay allocates, each from the formula that sizes it in the estimate.
struct Sizes {
    double weight = 0, grad = 0, state = 0, copy = 0;  // bytes per element (training_dtypes)
    int states = 0;                                    // optimizer_info(): tensors per parameter
    bool foreach = true;                               // optimizer_impl(): foreach sqrt over the group, else per parameter
    double attn = 0, mlp = 0, input = 0;               // one layer's tensors in groups, and its input (layer_activations)
    double logits = 0, logits32 = 0, lsm = 0;          // the loss's (the estimate's logits components)
    // A layer's saved tensors one by one in forward order (layer_saved_tensors): made again by the recomputation in its
    // backward, or without recomputation kept from its forward to its backward. That backward holds a gradient of each
    // where `grads` (backward_working_set, as act.backward_working counts them).
    std::vector<double> saved;
    bool recompute = true, grads = true;
};

// A handle list freed in one go.
void release_all(CachingAllocatorModel& a, std::vector<int64_t>& v) {
    for (const int64_t h : v) a.release(h);
    v.clear();
}

class Replay {
  public:
    Replay(const Sizes& z, std::vector<Param> before, std::vector<std::vector<Param>> layers, std::vector<Param> after, int64_t head)
        : z_(z), a_(1.9e19), before_(std::move(before)), layers_(std::move(layers)), after_(std::move(after)), head_(head) {
        n_ = before_.size();
        for (const auto& l : layers_) {
            first_.push_back(n_);
            n_ += l.size();
        }
        n_ += after_.size();
        grads_.assign(n_, 0);
    }

    StepReplay run() {
        for_each([&](size_t, const Param& p) { alloc(p.elements * z_.weight); });  // load: the weights, kept
        for (int step = 0; step < 2; ++step) this->step();
        StepReplay r;
        r.replayed = true;
        r.peak_reserved = a_.peak_reserved();
        r.peak_allocated = a_.peak_allocated();
        r.requests = requests_;
        return r;
    }

  private:
    int64_t alloc(double bytes) {
        ++requests_;
        return bytes > 0 ? a_.allocate(bytes) : 0;
    }
    template <class F>
    void for_each(F&& f) {
        size_t i = 0;
        for (const Param& p : before_) f(i++, p);
        for (const auto& l : layers_)
            for (const Param& p : l) f(i++, p);
        for (const Param& p : after_) f(i++, p);
    }
    void casts(size_t layer, std::vector<int64_t>& out) {
        for (const Param& p : layers_[layer])
            if (p.cast) out.push_back(alloc(p.elements * z_.copy));
    }
    // AccumulateGrad: the first gradient of a parameter becomes its .grad (set to None again after each step).
    void grad(size_t i, double elements) {
        if (grads_[i] == 0) grads_[i] = alloc(elements * z_.grad);
    }

    // A layer's parameters' gradients, in its backward.
    void layer_grads(size_t l) {
        size_t i = first_[l];
        for (const Param& p : layers_[l]) grad(i++, p.elements);
    }

    void step() {
        const size_t L = layers_.size();
        // forward: with full recomputation each layer runs under no_grad and keeps its input; its tensors come and go;
        // autocast's cache keeps the 16-bit casts of the weights until the forward leaves autocast. Without it each
        // layer keeps its saved tensors, and autograd its casts, to its own backward.
        std::vector<int64_t> cache, ck;
        std::vector<std::vector<int64_t>> kept(z_.recompute ? 0 : L);
        if (z_.recompute) ck.push_back(alloc(z_.input));
        for (size_t l = 0; l < L; ++l) {
            if (!z_.recompute) {
                casts(l, kept[l]);
                for (const double t : z_.saved) kept[l].push_back(alloc(t));
                continue;
            }
            casts(l, cache);
            a_.release(alloc(z_.attn));
            a_.release(alloc(z_.mlp));
            ck.push_back(alloc(z_.input));
        }
        const Param& head = head_param();
        if (head.cast) cache.push_back(alloc(head.elements * z_.copy));
        const int64_t normed = alloc(z_.input);
        const int64_t logits = alloc(z_.logits), logits32 = alloc(z_.logits32), lsm = alloc(z_.lsm);
        a_.release(logits32);  // freed when the loss returns
        release_all(a_, cache);
        a_.release(logits);    // dropped with the model outputs before backward
        // backward: the loss (nll_loss's and log_softmax's gradients in the loss dtype, then the logits' own), the
        // output layer (its 16-bit weight gradient accumulated into .grad), then each layer recomputed and differentiated
        const int64_t g1 = alloc(z_.lsm), g2 = alloc(z_.lsm);
        a_.release(g1);
        a_.release(lsm);
        const int64_t g3 = alloc(z_.logits);
        a_.release(g2);
        const int64_t gw = head.cast ? alloc(head.elements * z_.copy) : 0;
        grad(static_cast<size_t>(head_), head.elements);
        a_.release(gw);
        a_.release(g3);
        a_.release(normed);
        int64_t gx = alloc(z_.input);
        for (size_t l = L; l-- > 0;) {
            std::vector<int64_t> held;
            if (z_.recompute) {  // the layer's forward again, its casts and saved tensors
                casts(l, held);
                for (const double t : z_.saved) held.push_back(alloc(t));
            }
            if (z_.grads)  // the gradients of its saved tensors, last made first, held to the layer's end
                for (size_t t = z_.saved.size(); t-- > 0;) held.push_back(alloc(z_.saved[t]));
            layer_grads(l);
            release_all(a_, held);
            if (!z_.recompute) release_all(a_, kept[l]);
            const int64_t next = alloc(z_.input);
            a_.release(gx);
            gx = next;
            if (z_.recompute) {
                a_.release(ck.back());
                ck.pop_back();
            }
        }
        // the embedding's dense gradient: its .grad, or added to the tied output layer's
        if (head_ == 0) a_.release(alloc(before_[0].elements * z_.grad));
        else grad(0, before_[0].elements);
        a_.release(gx);
        release_all(a_, ck);
        for_each([&](size_t i, const Param& p) { grad(i, p.elements); });
        // optimizer.step(): the states made at the first step (lazy initialization), then the step's temporaries
        if (states_.empty())
            for_each([&](size_t, const Param& p) {
                for (int k = 0; k < z_.states; ++k) states_.push_back(alloc(p.elements * z_.state));
            });
        std::vector<int64_t> tmp;
        for_each([&](size_t, const Param& p) {
            tmp.push_back(alloc(p.elements * z_.state));
            if (z_.foreach) return;
            tmp.push_back(alloc(p.elements * z_.state));  // _single_tensor_adam: sqrt and quotient, one parameter at a time
            release_all(a_, tmp);
        });
        release_all(a_, tmp);
        release_all(a_, grads_);  // zero_grad(set_to_none=True)
        grads_.assign(n_, 0);
    }
    const Param& head_param() const {
        if (head_ == 0) return before_[0];
        return after_[static_cast<size_t>(head_) - (n_ - after_.size())];
    }

    Sizes z_;
    CachingAllocatorModel a_;
    std::vector<Param> before_;
    std::vector<std::vector<Param>> layers_;
    std::vector<Param> after_;
    int64_t head_ = 0;  // the output layer's parameter index (0: tied to the embedding)
    size_t n_ = 0;
    std::vector<size_t> first_;  // each layer's first parameter index
    std::vector<int64_t> grads_, states_;
    int64_t requests_ = 0;
};

// A layer's saved tensors in the order its forward makes them: the first norm's, attention's, the scores', then the
// second norm's and the MLP's (a layer with one norm: the norm's before attention).
std::vector<double> forward_order(const std::vector<SavedTensor>& saved) {
    std::vector<double> norms, out;
    for (const SavedTensor& t : saved)
        if (t.group == SavedGroup::Norms) norms.push_back(t.bytes);
    const size_t first = (norms.size() + 1) / 2;
    out.insert(out.end(), norms.begin(), norms.begin() + static_cast<std::ptrdiff_t>(first));
    for (const SavedGroup g : {SavedGroup::Attention, SavedGroup::Scores, SavedGroup::Mlp}) {
        if (g == SavedGroup::Mlp) out.insert(out.end(), norms.begin() + static_cast<std::ptrdiff_t>(first), norms.end());
        for (const SavedTensor& t : saved)
            if (t.group == g) out.push_back(t.bytes);
    }
    return out;
}

// What replay_training_steps() cannot replay ("" when it can): step_replay_why_not's rules, less the one on runs
// without recomputation.
const char* cannot_replay(const Scenario& s) {
    const ModelSpec& m = s.model;
    const TrainingOptions& o = s.train;
    const Parallelism& p = s.parallel;
    if (!m.architecture_known() || m.encoder || m.seq2seq.active() || m.embedder) return "no decoder layers";
    if (m.attention != AttentionKind::Standard || m.moe.num_experts > 0 || m.ssm.active() || m.vision.active() || m.mtp_layers > 0)
        return "MLA, MoE, state-space, vision-language and MTP models are not replayed";
    if (m.embed_dim > 0 && m.embed_dim != m.hidden) return "an embedding projection is not replayed";
    if (p.tp > 1 || p.pp > 1 || p.cp > 1 || p.ep > 1 || p.dp > 1 || p.zero > 0 || p.offload_optimizer)
        return "only one GPU is replayed (ZeRO/FSDP, DDP, tensor, pipeline and context parallelism keep k_cached)";
    if (s.mode == Mode::FineTune && s.finetune.method != FineTuneMethod::Full) return "LoRA / QLoRA adapters are not replayed";
    if (!plain_pytorch_training(s) || o.precision == Precision::FsdpBF16 || o.compat != Compat::None || s.deepspeed.enabled)
        return "only plain PyTorch regimes (fp32, autocast, pure bf16) are replayed";
    const Dtypes dt = training_dtypes(o);
    if (dt.master > 0 || dt.grad_copy > 0) return "an extra fp32 weight or gradient copy is not replayed";
    if ((o.recompute != Recompute::Full && o.recompute != Recompute::None) || o.offload_checkpoints)
        return "only full recomputation or none is replayed (selective, every-k and offloaded checkpoints keep k_cached)";
    if (o.activation_formula != ActivationFormula::TensorWalk) return "only the tensor walk is replayed";
    if (o.loss != LossImpl::Upcast || o.loop_holds_logits) return "only transformers' materialised loss is replayed";
    if (o.optimizer != Optimizer::AdamW || optimizer_impl(s) == OptimizerImpl::Fused) return "only torch.optim.AdamW (foreach, for-loop) is replayed";
    if (o.grad_accum_steps != 1 || !o.zero_grad_set_to_none) return "only one micro-batch per step with zero_grad(set_to_none) is replayed";
    if (o.images > 0) return "images are not replayed";
    if (s.overheads.expandable_segments) return "expandable segments are not this allocator model";
    return "";
}

}  // namespace

const char* step_replay_why_not(const Scenario& s) {
    if (const char* why = cannot_replay(s); *why != '\0') return why;
    if (s.train.recompute == Recompute::None)
        return "runs without recomputation are replayed tensor by tensor, but the replay does not set their shown reserve: on the held-out "
               "H100/H200 runs it came out further from nvidia-smi than k_cached (step_replay.h)";
    return "";
}

StepReplay replay_training_steps(const Scenario& s, const Estimate& e) {
    if (*cannot_replay(s) != '\0') return {};
    const ModelSpec& m = s.model;
    const Dtypes dt = training_dtypes(s.train);
    const LayerDims dims = layer_dims(m, false);
    const ActShape shape = activation_shape(s, dt);
    const LayerActivations la = layer_activations(dims, shape);
    Sizes z;
    z.weight = dt.weight;
    z.grad = dt.grad;
    z.state = dt.state;
    z.copy = dt.autocast_copy;
    z.states = optimizer_info(s.train.optimizer).states;
    z.foreach = optimizer_impl(s) == OptimizerImpl::Foreach;
    // the layer's tensors in two groups in the forward under no_grad (the attention block with its norm, the MLP block
    // with its norm), its input (the checkpoint), its saved tensors one by one, and their gradients in backward
    z.attn = la.norms / 2 + la.attention + la.scores;
    z.mlp = la.norms / 2 + la.mlp;
    z.input = la.input;
    z.saved = forward_order(layer_saved_tensors(dims, shape));
    z.recompute = s.train.recompute == Recompute::Full;
    z.grads = s.overheads.backward_working_set;
    z.logits = component_bytes(e, "logits");
    z.logits32 = component_bytes(e, "logits.fp32");
    z.lsm = component_bytes(e, "logits.loss");
    if (!(z.lsm > 0)) return {};
    const bool copy = z.copy > 0;
    std::vector<Param> before, after;
    int64_t head = 0;
    for (const Tensor& t : model_tensors(m)) {
        const bool head_side = t.kind == TensorKind::Head || t.kind == TensorKind::FinalNorm;
        if (head_side) continue;
        before.push_back({static_cast<double>(t.params()), copy && m.tied_embeddings && before.empty()});
    }
    std::vector<std::vector<Param>> layers(static_cast<size_t>(m.layers));
    for (auto& l : layers)
        for (const Tensor& t : layer_tensors(m, LayerKind{})) l.push_back({static_cast<double>(t.params()), copy && t.matrix()});
    size_t index = before.size() + layers.size() * (layers.empty() ? 0 : layers[0].size());
    for (const Tensor& t : model_tensors(m)) {
        if (t.kind != TensorKind::Head && t.kind != TensorKind::FinalNorm) continue;
        if (t.kind == TensorKind::Head && t.matrix()) head = static_cast<int64_t>(index);
        after.push_back({static_cast<double>(t.params()), copy && t.kind == TensorKind::Head && t.matrix()});
        ++index;
    }
    return Replay(z, std::move(before), std::move(layers), std::move(after), head).run();
}

}  // namespace vl
