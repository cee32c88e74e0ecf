// fit_levers (solvers.h): the single changes that make a scenario fit its GPUs, each checked by a full estimate.
#include <algorithm>
#include "text_format.h"

#include "inference/weight_formats.h"
#include "parallel.h"
#include "solvers.h"
#include "training/finetune.h"

namespace vl {

namespace {

struct LeverList {
    std::vector<Lever> out;
    // Keeps the change when it validates and fits (the base does not fit, so a change that fits is one).
    void offer(const char* id, std::string label, Scenario v) {
        if (!validate(v).empty()) return;
        const Estimate e = estimate(v, Detail::NumbersOnly);
        if (!e.ok() || !e.fits()) return;
        out.push_back({id, std::move(label), std::move(v), e.total_bytes, e.gpu_capacity_bytes});
    }
};

void training_levers(LeverList& l, const Scenario& s, const FitAnswers& a) {
    Scenario v = s;
    v.train.recompute = Recompute::Full;
    l.offer("recompute_full", "full recomputation", v);
    v = s;
    v.train.flash_attention = true;
    l.offer("flash_attention", "FlashAttention", v);
    // A smaller micro-batch with more accumulation: the same tokens per optimizer step.
    if (s.train.micro_batch > 1) {
        const SolveResult& mb = a.max_batch;  // Knob::MicroBatch
        if (mb.found && mb.value < s.train.micro_batch && s.train.micro_batch % mb.value == 0) {
            v = s;
            v.train.micro_batch = mb.value;
            v.train.grad_accum_steps = s.train.grad_accum_steps * (s.train.micro_batch / mb.value);
            l.offer("micro_batch", vl::format("micro-batch {} x {} accumulation steps", mb.value, v.train.grad_accum_steps), v);
        }
    }
    if (zero_shard_size(s.parallel) > 1) {  // ZeRO shards over the data-parallel (and context-parallel) ranks
        v = s;
        v.parallel.zero = 3;
        l.offer("zero3", "ZeRO-3", v);
    }
    v = s;
    v.parallel.zero = std::max(1, s.parallel.zero);
    v.parallel.offload_optimizer = true;
    l.offer("zero_offload", "ZeRO-Offload (optimizer states in host RAM)", v);
    if (s.train.optimizer == Optimizer::AdamW) {
        v = s;
        v.train.optimizer = Optimizer::Adam8bit;
        l.offer("adam8bit", "8-bit Adam", v);
    }
    // Adapters on the scenario's targets; where they name no layer of the model (PEFT's llama default q_proj, v_proj on a
    // Mamba model), on its q_proj, v_proj and a Mamba mixer's in_proj, the ones it has (every mixer takes an adapter there).
    const unsigned present = lora_targets_present(s.model);
    const unsigned targets = (s.finetune.lora_targets & present) != 0 ? s.finetune.lora_targets : present & (kLoraQ | kLoraV | kLoraInProj);
    if (s.mode == Mode::FineTune && s.finetune.method == FineTuneMethod::Full) {
        v = s;
        v.finetune.method = FineTuneMethod::LoRA;
        v.finetune.lora_targets = targets;
        l.offer("lora", "LoRA", v);
    }
    if (s.mode == Mode::FineTune && s.finetune.method != FineTuneMethod::QLoRA) {
        v = s;
        v.finetune.method = FineTuneMethod::QLoRA;
        if (s.finetune.method == FineTuneMethod::Full) v.finetune.lora_targets = targets;
        l.offer("qlora", "QLoRA", v);
    }
}

void inference_levers(LeverList& l, const Scenario& s, const FitAnswers& a) {
    const SolveResult f = solve(s, Knob::WeightFormat);
    if (f.found) l.offer("weights", std::string("weights ") + weight_format_name(static_cast<WeightFormat>(f.value)), f.scenario);
    // An 8-bit KV cache in the form the engine takes: vLLM caches fp8 (not int8); llama.cpp quantizes the V cache
    // only with flash attention, so its lever turns that on too.
    // No KV cache to shrink: TEI keeps none, an encoder has none.
    const bool kv_shrinks = s.infer.engine != Engine::TEI && !s.model.encoder;
    Scenario v = s;
    if (kv_shrinks && s.infer.engine == Engine::VLLM) {
        v.infer.kv_dtype = KvDtype::FP8;
        l.offer("kv_fp8", "fp8 KV cache", v);
    } else if (kv_shrinks) {
        v.infer.kv_dtype = KvDtype::INT8;
        v.infer.flash_attention = v.infer.flash_attention || s.infer.engine == Engine::LlamaCpp;
        l.offer("kv_int8", v.infer.flash_attention != s.infer.flash_attention ? "8-bit KV cache with flash attention" : "8-bit KV cache", v);
    }
    if (s.infer.batch > 1 && a.max_batch.found)  // Knob::Batch
        l.offer("batch", vl::format("{} concurrent sequences", a.max_batch.value), a.max_batch.scenario);
    if (const SolveResult c = solve(s, Knob::Context); c.found && c.value < s.infer.context)
        l.offer("context", vl::format("context {}", c.value), c.scenario);
}

}  // namespace

std::vector<Lever> fit_levers(const Scenario& s, const Estimate& e, const FitAnswers& a) {
    LeverList l;
    if (!e.ok() || e.fits() || s.mode == Mode::Local || !a.solved) return {};
    if (s.mode == Mode::Infer) inference_levers(l, s, a);
    else training_levers(l, s, a);
    const SolveResult& kept = a.min_gpus;  // keeping the ZeRO stage, up to 512 GPUs
    if (kept.found)
        l.offer("gpus", vl::format("{} GPUs ({})", kept.value, gpu_layout_text(kept.scenario.parallel)), kept.scenario);
    if (s.mode != Mode::Infer) {
        SolveOptions go;
        go.max_gpus = 512;
        const SolveResult any = solve(s, Knob::GpuCount, go);
        if (any.found && (!kept.found || any.value < kept.value))
            l.offer("gpus_any_zero", vl::format("ZeRO-{} + {} GPUs ({})", any.scenario.parallel.zero, any.value, gpu_layout_text(any.scenario.parallel)),
                    any.scenario);
    }
    return std::move(l.out);
}

}  // namespace vl
