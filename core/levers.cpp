// fit_levers (solvers.h): the single changes that make a scenario fit its GPUs, each checked by a full estimate.
#include <algorithm>
#include <fmt/format.h>

#include "inference/weight_formats.h"
#include "solvers.h"
#include "scenario_json.h"

namespace vl {

namespace {

struct LeverList {
    const Scenario& base;
    std::vector<Lever> out;
    // Keeps the change when it is one (differs from the base), validates and fits.
    void offer(const char* id, std::string label, Scenario v) {
        if (scenario_to_json(v, JsonStyle::Compact) == scenario_to_json(base, JsonStyle::Compact) || !validate(v).empty()) return;
        const Estimate e = estimate(v, Detail::NumbersOnly);
        if (!e.ok() || !e.fits()) return;
        out.push_back({id, std::move(label), std::move(v), e.total_bytes, e.gpu_capacity_bytes});
    }
};

void training_levers(LeverList& l, const Scenario& s) {
    Scenario v = s;
    v.train.recompute = Recompute::Full;
    l.offer("recompute_full", "full recomputation", v);
    v = s;
    v.train.flash_attention = true;
    l.offer("flash_attention", "FlashAttention", v);
    // A smaller micro-batch with more accumulation: the same tokens per optimizer step.
    if (s.train.micro_batch > 1) {
        const SolveResult mb = solve(s, Knob::MicroBatch);
        if (mb.found && mb.value < s.train.micro_batch && s.train.micro_batch % mb.value == 0) {
            v = s;
            v.train.micro_batch = mb.value;
            v.train.grad_accum_steps = s.train.grad_accum_steps * (s.train.micro_batch / mb.value);
            l.offer("micro_batch", fmt::format("micro-batch {} x {} accumulation steps", mb.value, v.train.grad_accum_steps), v);
        }
    }
    if (s.parallel.dp > 1) {  // ZeRO shards over data-parallel ranks
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
    if (s.mode == Mode::FineTune && s.finetune.method == FineTuneMethod::Full) {
        v = s;
        v.finetune.method = FineTuneMethod::LoRA;
        l.offer("lora", "LoRA", v);
    }
    if (s.mode == Mode::FineTune && s.finetune.method != FineTuneMethod::QLoRA) {
        v = s;
        v.finetune.method = FineTuneMethod::QLoRA;
        l.offer("qlora", "QLoRA", v);
    }
}

void inference_levers(LeverList& l, const Scenario& s) {
    const SolveResult f = solve(s, Knob::WeightFormat);
    if (f.found) l.offer("weights", std::string("weights ") + weight_format_name(static_cast<WeightFormat>(f.value)), f.scenario);
    Scenario v = s;
    v.infer.kv_dtype = KvDtype::INT8;
    l.offer("kv_int8", "8-bit KV cache", v);
    if (s.infer.batch > 1)
        if (const SolveResult b = solve(s, Knob::Batch); b.found)
            l.offer("batch", fmt::format("{} concurrent sequences", b.value), b.scenario);
    if (const SolveResult c = solve(s, Knob::Context); c.found && c.value < s.infer.context)
        l.offer("context", fmt::format("context {}", c.value), c.scenario);
}

}  // namespace

std::vector<Lever> fit_levers(const Scenario& s, const Estimate& e) {
    LeverList l{s, {}};
    if (!e.ok() || e.fits()) return {};
    if (s.mode == Mode::Infer) inference_levers(l, s);
    else if (s.mode != Mode::Local) training_levers(l, s);
    if (s.mode == Mode::Local) return {};
    SolveOptions go;
    go.max_gpus = 512;
    go.keep_zero = true;
    const SolveResult kept = solve(s, Knob::GpuCount, go);
    if (kept.found)
        l.offer("gpus", fmt::format("{} GPUs ({})", kept.value, gpu_layout_text(kept.scenario.parallel)), kept.scenario);
    if (s.mode != Mode::Infer) {
        go.keep_zero = false;
        const SolveResult any = solve(s, Knob::GpuCount, go);
        if (any.found && (!kept.found || any.value < kept.value))
            l.offer("gpus_any_zero", fmt::format("ZeRO-{} + {} GPUs ({})", any.scenario.parallel.zero, any.value, gpu_layout_text(any.scenario.parallel)),
                    any.scenario);
    }
    return std::move(l.out);
}

}  // namespace vl
