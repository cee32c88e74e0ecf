// A fingerprint of estimate() for changes that must not change behaviour (issue 16's size steps): every
// number and every Detail::Full text (formula, substituted, warnings, errors) over a fixed set of
// scenarios, hashed; and the solvers' answers beside the preset scenarios. Run it before and after a
// change, built the same way (natively with g++, or as WebAssembly under node: clang and libc++ draw
// other random scenarios, so compare a build only with a build of the same kind):
//   build/native/bench/vramlens_fingerprint            one line: scenarios, components, hash
//   build/native/bench/vramlens_fingerprint --dump     every hashed line too, to diff two runs
//   node --no-experimental-fetch build/web/bench/vramlens_fingerprint.js
// Scenarios: every model preset in seven settings (training with two layouts, LoRA, QLoRA, the three
// inference engines), every framework profile on each preset, and 4,000 random scenarios
// (tests/random_scenarios.h) with the options that generator leaves alone drawn on top. Invalid
// scenarios count too: their error text is behaviour.
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "estimate.h"
#include "framework_profiles.h"
#include "model/presets.h"
#include "random_scenarios.h"
#include "solvers.h"

namespace {

struct Fingerprint {
    uint64_t h = 1469598103934665603ull;  // FNV-1a, 64 bits
    bool dump = false;
    void line(std::string_view s) {
        for (const unsigned char ch : s) h = (h ^ ch) * 1099511628211ull;
        h = (h ^ '\n') * 1099511628211ull;
        if (dump) std::printf("%.*s\n", static_cast<int>(s.size()), s.data());
    }
    void number(const char* what, double v) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "%s %.17g", what, v);
        line(buf);
    }
};

void add_estimate(Fingerprint& f, const vl::Scenario& s) {
    const vl::Estimate e = vl::estimate(s, vl::Detail::Full);
    for (const vl::FieldError& err : e.errors) f.line("error " + vl::to_string(err));
    for (const std::string& w : e.warnings) f.line("warning " + w);
    for (const vl::Component& c : e.components) {
        f.line(std::string("component ") + c.id + " | " + c.label + " | " + c.source + " | " + std::to_string(static_cast<int>(c.category)) +
               " | " + std::to_string(c.phases) + (c.host ? " host" : ""));
        f.number(" bytes", c.bytes);
        f.line(c.text);
    }
    for (const double b : e.phase_bytes) f.number("phase", b);
    f.number("total", e.total_bytes);
    f.number("host", e.host_bytes);
    f.number("capacity", e.gpu_capacity_bytes);
    f.number("params", e.params.total);
    f.number("kv.bytes_per_token", e.kv.bytes_per_token);
    f.number("kv.tokens", static_cast<double>(e.kv.tokens));
    f.number("kv.sequences", static_cast<double>(e.kv.sequences));
    f.number("kv.pool", e.kv.pool_bytes);
    for (const vl::MechanismBytes& m : e.mechanisms) f.number((std::string("mechanism ") + m.id).c_str(), m.bytes);
    // The fast path must give the same numbers.
    const vl::Estimate n = vl::estimate(s, vl::Detail::NumbersOnly);
    for (const vl::Component& c : n.components) f.number((std::string("numbers ") + c.id).c_str(), c.bytes);
    f.number("numbers total", n.total_bytes);
}

void add_answers(Fingerprint& f, const vl::Scenario& s) {
    const vl::Estimate e = vl::estimate(s, vl::Detail::NumbersOnly);
    const vl::FitAnswers a = vl::fit_answers(s, e);
    for (const vl::FitAnswerRow& r : vl::fit_answer_rows(s, e, a)) f.line("answer " + r.id + " = " + r.text);
    f.line("why " + a.max_batch.why + " | " + a.max_seq.why + " | " + a.min_gpus.why);
}

// The preset settings: training (8 GPUs ZeRO-1; tp 2 x pp 2 ZeRO-3 with recomputation and DeepSpeed's buffers),
// LoRA, QLoRA, transformers, vLLM, llama.cpp.
std::vector<vl::Scenario> preset_scenarios(const vl::ModelSpec& m) {
    const auto of = [&](vl::Mode mode) {
        vl::Scenario s;
        s.model = m;
        s.mode = mode;
        return s;
    };
    std::vector<vl::Scenario> out;
    vl::Scenario t = of(vl::Mode::Train);
    t.train.micro_batch = 2; t.train.seq_len = 4096;
    t.parallel.dp = 8; t.parallel.zero = 1; t.gpu_count = 8;
    out.push_back(t);
    vl::Scenario z = t;
    z.parallel.tp = 2; z.parallel.pp = 2; z.parallel.dp = 4; z.parallel.zero = 3; z.parallel.sp = true; z.gpu_count = 16;
    z.train.recompute = vl::Recompute::Full; z.train.offload_checkpoints = true; z.deepspeed.enabled = true;
    out.push_back(z);
    vl::Scenario l = of(vl::Mode::FineTune);
    l.finetune.method = vl::FineTuneMethod::LoRA; l.finetune.lora_targets = vl::kLoraAllLinear;
    out.push_back(l);
    vl::Scenario q = l;
    q.finetune.method = vl::FineTuneMethod::QLoRA; q.finetune.bnb_saves_inputs = true; q.train.loop_holds_logits = true;
    out.push_back(q);
    vl::Scenario i = of(vl::Mode::Infer);
    i.infer.batch = 4; i.infer.flash_attention = false;
    out.push_back(i);
    vl::Scenario v = i;
    v.infer.engine = vl::Engine::VLLM; v.infer.flash_attention = true; v.infer.batch = 32;
    v.infer.speculative.method = vl::SpecMethod::Ngram; v.infer.speculative.num_speculative_tokens = 3;
    out.push_back(v);
    vl::Scenario g = i;
    g.infer.engine = vl::Engine::LlamaCpp; g.infer.weights = vl::WeightFormat::GGUF_Q4_K_M; g.infer.flash_attention = true;
    out.push_back(g);
    return out;
}

// What random_scenario() leaves at its defaults, drawn here (after it, so its scenarios are the tests' own).
void draw_more(vl::test::Rng& r, vl::Scenario& s) {
    vl::TrainingOptions& t = s.train;
    t.offload_checkpoints = r.chance(0.1);
    if (r.chance(0.1)) t.moe_expert_capacity_factor = r.real(0.5, 2.0);
    t.moe_pad_expert_input_to_capacity = r.chance(0.05);
    t.loop_holds_logits = r.chance(0.1);
    t.softmax_saves_input = r.chance(0.1);
    s.finetune.bnb_saves_inputs = r.chance(0.1);
    s.parallel.fsdp_flat_params = r.chance(0.1);
    s.parallel.no_sync_accumulation = r.chance(0.1);
    s.parallel.zero_init = r.chance(0.8);
    s.overheads.expandable_segments = r.chance(0.2);
    s.overheads.cuda_lazy_loading = r.chance(0.8);
    s.infer.sliding_window_cache = r.chance(0.8);
    s.infer.logits_to_keep = r.chance(0.8) ? 1 : 0;
    s.infer.sdpa_repeats_kv = r.chance(0.2);
    const bool head_copy = r.chance(0.1);
    s.infer.untied_head_on_load = head_copy && s.infer.engine == vl::Engine::Transformers;  // validated: transformers only
    if (r.chance(0.2)) {
        vl::DeepSpeedZero& d = s.deepspeed;
        d.enabled = true;
        d.reduce_bucket_size = r.chance(0.3) ? vl::kDsAuto : r.real(0, 1e9);
        d.stage3_prefetch_bucket_size = r.chance(0.3) ? vl::kDsAuto : r.real(0, 1e8);
        d.stage3_param_persistence_threshold = r.chance(0.3) ? vl::kDsAuto : r.real(0, 1e6);
        d.overlap_comm = r.enum_upto(vl::DsOverlap::Off);
        d.contiguous_gradients = r.chance(0.7);
        d.sub_group_size = r.real(1e6, 2e9);
        d.pin_memory = r.chance(0.7);
    }
    if (s.infer.engine == vl::Engine::VLLM && r.chance(0.3)) {
        vl::Speculative& sp = s.infer.speculative;
        sp.method = static_cast<vl::SpecMethod>(r.range(1, static_cast<int64_t>(vl::SpecMethod::Ngram)));
        sp.num_speculative_tokens = r.range(1, 5);
        if (sp.method == vl::SpecMethod::Draft) {
            const auto& presets = vl::model_presets();
            sp.model = presets[static_cast<size_t>(r.range(0, static_cast<int64_t>(presets.size()) - 1))].id;
        }
        sp.draft_tensor_parallel_size = r.chance(0.5) ? 0 : 1;
    }
}

}  // namespace

int main(int argc, char** argv) {
    Fingerprint f;
    f.dump = argc > 1 && std::strcmp(argv[1], "--dump") == 0;
    int64_t scenarios = 0, components = 0, valid = 0;
    auto one = [&](const vl::Scenario& s, bool answers) {
        f.line("scenario " + std::to_string(scenarios++));
        add_estimate(f, s);
        const vl::Estimate n = vl::estimate(s, vl::Detail::NumbersOnly);
        components += static_cast<int64_t>(n.components.size());
        valid += n.ok() ? 1 : 0;
        if (answers && n.ok()) add_answers(f, s);
    };
    for (const vl::ModelPreset& p : vl::model_presets()) {
        for (const vl::Scenario& s : preset_scenarios(p.spec)) one(s, true);
        for (const vl::FrameworkProfile& prof : vl::framework_profiles()) {
            for (const vl::Mode mode : {vl::Mode::Train, vl::Mode::FineTune, vl::Mode::Infer}) {
                if (!(prof.modes & vl::mode_bit(mode))) continue;
                vl::Scenario s;
                s.model = p.spec;
                s.mode = mode;
                if (mode == vl::Mode::FineTune) s.finetune.method = vl::FineTuneMethod::LoRA;
                for (const vl::FieldError& err : vl::apply_profile(s, prof.id)) f.line("profile error " + vl::to_string(err));
                one(s, false);
            }
        }
    }
    vl::test::Rng r(20261126);
    for (int i = 0; i < 4000; ++i) {
        vl::Scenario s = vl::test::random_scenario(r);
        draw_more(r, s);
        one(s, false);
    }
    std::printf("fingerprint scenarios=%" PRId64 " valid=%" PRId64 " components=%" PRId64 " hash=%016" PRIx64 "\n", scenarios, valid,
                components, f.h);
    return 0;
}
