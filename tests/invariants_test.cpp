// Invariants over random scenarios (issue 8). Every run draws at least 100,000 VALID scenarios
// (real presets, synthetic architectures, parameter-count-only models; every mode, engine,
// precision, optimizer, recomputation policy and parallel layout) and checks properties that must
// hold for any input, not particular numbers:
//
//   sound       no NaN, inf or negative component; every phase total is the sum of the GPU
//               components live in it; total = the largest phase; host bytes = the host components;
//               Detail::Full gives the same numbers as Detail::NumbersOnly.
//   micro-batch training/fine-tuning: total never falls when train.micro_batch doubles.
//   sequence    training/fine-tuning: total never falls when train.seq_len doubles.
//   batch       inference, every engine: total never falls when infer.batch doubles (vLLM: the pool is
//               fixed by the profile run, so only the requested KV can grow).
//   context     transformers and llama.cpp: total never falls when infer.context doubles. vLLM is
//               different by design: it fills gpu_memory_utilization x memory with KV blocks, and a
//               longer context can raise the profiled activation peak (max_num_batched_tokens
//               defaults to max(context, 2048)), shrinking the pool by whole blocks, so its total can
//               fall by up to one block. What holds there: the pool (kv.tokens) never grows, and a
//               scenario that does not fit never starts fitting (the property the solvers rely on).
//   fits        every mode: fits() at the doubled value implies fits() at the smaller one.
//   data-par.   training/fine-tuning with ZeRO >= 1: per-GPU total never rises when parallel.dp
//               doubles, except from dp = 1, where the gradient all-reduce bucket appears
//               (overheads.bucket_bytes, plus its fragmentation share) and may exceed the saving on
//               a tiny model. ZeRO 0: the total does not change for dp >= 2. Inference: dp changes
//               nothing (each replica holds the whole request).
//   tensor-par. training/fine-tuning and transformers inference: per-GPU total never rises when
//               parallel.tp doubles. (batch, context and tensor-par.: transformers' totals without the
//               allocator's decode holes, which follow the allocator's rules: total_without_replay.)
//               vLLM: its total is the capacity and tp > 1 adds the NCCL buffers (runtime.h), so what must not rise is the weights, the KV bytes per token and the
//               activation peak per GPU (pp = 1: with stages, the stage shown is the one with the
//               fewest KV blocks, and tp can change which one that is).
//   invalid     a valid scenario with one field broken (each rule of validate()) is rejected: no
//               components, and an error naming exactly that field.
//
// Reproduce a failure with VRAMLENS_INVARIANT_SEED=<seed printed>; run longer with
// VRAMLENS_INVARIANT_SCENARIOS=<count> (default 100000).
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "estimate.h"
#include "component_lookup.h"
#include "estimate_checks.h"
#include "random_scenarios.h"
#include "model/hf_config.h"
#include "model/presets.h"
#include "scenario_json.h"
#include "solvers.h"
#include "units.h"

using namespace vl;
using vl::test::not_more;
using vl::test::same;
using vl::test::same_numbers;
using vl::test::soundness;
using vl::test::Rng;
using vl::test::env_u64;
using vl::test::random_scenario;

namespace {

// ---- checks -------------------------------------------------------------------------------------
std::string describe(const Scenario& s) { return scenario_to_json(s, JsonStyle::Compact); }

double sum_ids(const Estimate& e, std::initializer_list<const char*> prefixes) {
    double t = 0;
    for (const Component& c : e.components)
        for (const char* p : prefixes)
            if (std::string_view(c.id).substr(0, std::char_traits<char>::length(p)) == p) t += c.bytes;
    return t;
}

struct Failures {
    int count = 0;
    std::vector<std::string> first;
    void add(const std::string& property, const std::string& what, const Scenario& s) {
        ++count;
        if (first.size() < 8) first.push_back(property + ": " + what + "\n  scenario: " + describe(s));
    }
};

struct Stats {
    int64_t valid = 0, drawn = 0, monotone_checks = 0, invalid_checks = 0;
};

Estimate run(const Scenario& s) { return estimate(s, Detail::NumbersOnly); }

// The scenario with a change applied, or nothing if the change makes it invalid.
template <class F>
bool variant(const Scenario& s, F change, Scenario& out) {
    out = s;
    change(out);
    return validate(out).empty();
}

// The per-GPU total without the caching allocator's decode holes (overhead.fragmentation.decode: generate()
// replayed through PyTorch's allocator, core/inference/generate_replay.h). The allocator is not monotone:
// a K tensor of 6 MiB at twice the tp takes a 20 MiB segment where the 12 MiB one had a segment of its own,
// and a batch twice as large can land in holes the smaller one left; the total rules hold without them.
double total_without_replay(const Estimate& e) { return test::peak_without(e, {"overhead.fragmentation.decode"}); }

void check_monotone(const Scenario& s, const Estimate& e, Failures& f, Stats& st) {
    Scenario v;
    const bool training = s.mode != Mode::Infer;
    auto bigger = [&](const char* property, auto change, bool total_rule) {
        if (!variant(s, change, v)) return;
        const Estimate e2 = run(v);
        ++st.monotone_checks;
        if (const std::string w = soundness(v, e2); !w.empty()) { f.add("sound", w, v); return; }
        if (total_rule && !not_more(total_without_replay(e), total_without_replay(e2)))
            f.add(property, "total fell from " + std::to_string(e.total_bytes) + " to " + std::to_string(e2.total_bytes), s);
        if (e2.fits() && !e.fits()) f.add(property, "the larger value fits but the smaller does not", s);
        if (s.mode == Mode::Infer && s.infer.engine == Engine::VLLM && e2.kv.tokens > e.kv.tokens)
            f.add(property, "the vLLM KV pool grew", s);
    };
    if (training) {
        bigger("micro-batch", [](Scenario& x) { x.train.micro_batch *= 2; }, true);
        bigger("sequence", [](Scenario& x) { x.train.seq_len *= 2; }, true);
    } else {
        bigger("batch", [](Scenario& x) { x.infer.batch *= 2; }, true);
        bigger("context", [](Scenario& x) { x.infer.context *= 2; }, s.infer.engine != Engine::VLLM);
    }

    // More data-parallel ranks.
    if (variant(s, [](Scenario& x) { x.parallel.dp *= 2; x.gpu_count *= 2; }, v)) {
        const Estimate e2 = run(v);
        ++st.monotone_checks;
        if (!training) {
            if (!same(e.total_bytes, e2.total_bytes)) f.add("data-parallel", "inference total changed with dp", s);
        } else if (s.parallel.zero >= 1) {
            // From dp = 1 the all-reduce bucket appears (with its share of fragmentation).
            const double allowance = s.parallel.dp == 1 && s.overheads.temp_buffers
                                         ? s.overheads.bucket_bytes * (1 + s.overheads.fragmentation) : 0;
            if (!not_more(e2.total_bytes, e.total_bytes + allowance))
                f.add("data-parallel", "ZeRO " + std::to_string(s.parallel.zero) + ": total rose from " +
                                           std::to_string(e.total_bytes) + " to " + std::to_string(e2.total_bytes), s);
        } else if (s.parallel.dp >= 2 && !same(e.total_bytes, e2.total_bytes)) {
            f.add("data-parallel", "ZeRO 0: total changed with dp", s);
        }
    }

    // The properties the fewest-GPUs solver prunes with (core/solvers.cpp solve_gpus), beyond doubling:
    // from dp >= 2, any step to the next valid dp (a multiple of ep and the shard group) never raises
    // the total under ZeRO >= 1 and leaves it unchanged under ZeRO 0; at dp = 1, ZeRO 0 needs no more
    // than dp = 2, ZeRO 1 and 2 give ZeRO 0's total and ZeRO 3 no less.
    if (training && s.parallel.dp >= 2) {
        const int64_t step = std::lcm(std::max<int64_t>(1, s.parallel.ep), std::max<int64_t>(1, s.parallel.shard_group));
        if (variant(s, [&](Scenario& x) { x.parallel.dp += step; x.gpu_count = x.parallel.dp * x.parallel.tp * x.parallel.pp * x.parallel.cp; }, v)) {
            const Estimate e2 = run(v);
            ++st.monotone_checks;
            if (s.parallel.zero >= 1 && !not_more(e2.total_bytes, e.total_bytes))
                f.add("data-parallel step", "ZeRO >= 1: total rose with dp + " + std::to_string(step), s);
            if (s.parallel.zero == 0 && !same(e2.total_bytes, e.total_bytes))
                f.add("data-parallel step", "ZeRO 0: total changed with dp + " + std::to_string(step), s);
        }
    }
    if (training && s.parallel.dp == 1 && s.parallel.cp == 1 && s.parallel.zero == 0) {  // ZeRO shards over dp x cp
        if (variant(s, [](Scenario& x) { x.parallel.dp = 2; x.gpu_count *= 2; }, v)) {
            ++st.monotone_checks;
            if (!not_more(e.total_bytes, run(v).total_bytes)) f.add("data-parallel", "ZeRO 0: dp = 1 needs more than dp = 2", s);
        }
        for (int zero = 1; zero <= 3; ++zero) {
            if (!variant(s, [&](Scenario& x) { x.parallel.zero = zero; }, v)) continue;
            const double t = run(v).total_bytes;
            ++st.monotone_checks;
            if (zero < 3 ? !same(t, e.total_bytes) : !not_more(e.total_bytes, t))
                f.add("ZeRO at dp = 1", "ZeRO " + std::to_string(zero) + " total " + std::to_string(t) + " vs ZeRO 0 " + std::to_string(e.total_bytes), s);
        }
    }

    // Activations and logits do not depend on dp or the ZeRO stage: their peak-phase sum bounds the
    // total from below at any dp and stage of the same layout (the solver skips layouts with it).
    if (training) {
        std::array<double, kPhaseCount> ph{};
        for (const Component& c : e.components)
            if (!c.host && (c.category == Category::Activations || c.category == Category::Logits))
                for (int p = 0; p < kPhaseCount; ++p)
                    if (c.phases & (1u << p)) ph[static_cast<size_t>(p)] += c.bytes;
        const double floor = *std::max_element(ph.begin(), ph.end());
        const int zero = static_cast<int>((s.parallel.zero + 1 + (s.parallel.dp % 3)) % 4);
        for (int k = 0; k < 2; ++k) {
            const bool changed = k == 0 ? variant(s, [&](Scenario& x) { x.parallel.zero = zero; }, v)
                                        : variant(s, [&](Scenario& x) { x.parallel.dp *= 2; x.gpu_count *= 2; x.parallel.zero = zero; }, v);
            if (!changed) continue;
            ++st.monotone_checks;
            if (!not_more(floor, run(v).total_bytes)) f.add("activation floor", "total below the activations of another dp/ZeRO", s);
        }
    }

    // More tensor-parallel ranks.
    if (variant(s, [](Scenario& x) { x.parallel.tp *= 2; x.gpu_count *= 2; }, v)) {
        const Estimate e2 = run(v);
        ++st.monotone_checks;
        if (s.mode == Mode::Infer && s.infer.engine == Engine::VLLM) {
            // With pp > 1 the stage shown is the one with the fewest blocks, which tp can change.
            if (s.parallel.pp > 1) return;
            if (!not_more(sum_ids(e2, {"weights"}), sum_ids(e, {"weights"}))) f.add("tensor-parallel", "vLLM weights per GPU rose", s);
            if (!not_more(e2.kv.bytes_per_token, e.kv.bytes_per_token)) f.add("tensor-parallel", "vLLM KV bytes per token rose", s);
            if (!not_more(sum_ids(e2, {"act."}), sum_ids(e, {"act."}))) f.add("tensor-parallel", "vLLM activation peak rose", s);
        } else if (!not_more(total_without_replay(e2), total_without_replay(e))) {
            f.add("tensor-parallel", "total rose from " + std::to_string(e.total_bytes) + " to " + std::to_string(e2.total_bytes), s);
        }
    }
}

// One broken field per rule, each with the field its error must name.
struct Breaker {
    const char* field;
    bool (*applies)(const Scenario&);
    void (*brk)(Scenario&, Rng&);
};

bool any(const Scenario&) { return true; }
bool known(const Scenario& s) { return s.model.architecture_known(); }
// A model with attention heads: a pure state-space model (Mamba) has none, so 0 heads is valid there.
bool attention(const Scenario& s) { return known(s) && s.model.heads > 0; }
bool training(const Scenario& s) { return s.mode != Mode::Infer; }
bool inference(const Scenario& s) { return s.mode == Mode::Infer; }
bool lora(const Scenario& s) { return s.mode == Mode::FineTune && s.finetune.method != FineTuneMethod::Full; }
bool qlora(const Scenario& s) { return s.mode == Mode::FineTune && s.finetune.method == FineTuneMethod::QLoRA; }
bool gptq(const Scenario& s) { return inference(s) && (s.infer.weights == WeightFormat::GPTQ4 || s.infer.weights == WeightFormat::AWQ4); }

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
int64_t bad_count(Rng& r) { return r.pick(std::array<int64_t, 4>{0, -1, -1000, std::numeric_limits<int64_t>::min()}); }
int64_t huge_count(Rng& r) { return r.pick(std::array<int64_t, 3>{int64_t{1} << 40, int64_t{1} << 62, std::numeric_limits<int64_t>::max()}); }
double bad_real(Rng& r) { return r.pick(std::array<double, 4>{kNaN, -kInf, kInf, -1.0}); }

const Breaker kBreakers[] = {
    {"gpu.memory_bytes", any, [](Scenario& s, Rng& r) { s.gpu.memory_bytes = r.chance(0.5) ? bad_real(r) : 0.0; }},
    {"gpu_count", any, [](Scenario& s, Rng& r) { s.gpu_count += r.chance(0.5) ? 1 : -1; }},
    {"parallel.dp", any, [](Scenario& s, Rng& r) { s.parallel.dp = bad_count(r); }},
    {"parallel.tp", any, [](Scenario& s, Rng& r) { s.parallel.tp = bad_count(r); }},
    {"parallel.pp", any, [](Scenario& s, Rng& r) { s.parallel.pp = bad_count(r); }},
    {"parallel.cp", any, [](Scenario& s, Rng& r) { s.parallel.cp = bad_count(r); }},
    {"parallel.ep", any, [](Scenario& s, Rng& r) { s.parallel.ep = bad_count(r); }},
    {"parallel", any, [](Scenario& s, Rng& r) { s.parallel.dp = huge_count(r); }},
    {"parallel", any, [](Scenario& s, Rng& r) { s.parallel.tp = huge_count(r); }},
    {"parallel.zero", training, [](Scenario& s, Rng& r) { s.parallel.zero = r.chance(0.5) ? 4 : -1; }},
    {"parallel.virtual_stages", any, [](Scenario& s, Rng& r) { s.parallel.virtual_stages = bad_count(r); }},
    {"parallel.first_stage_layers", training, [](Scenario& s, Rng& r) { s.parallel.first_stage_layers = r.chance(0.5) ? -1 : std::numeric_limits<int64_t>::min(); }},
    {"parallel.last_stage_layers", training, [](Scenario& s, Rng& r) { s.parallel.last_stage_layers = huge_count(r); }},
    {"parallel.gpus_per_node", any, [](Scenario& s, Rng& r) { s.parallel.gpus_per_node = bad_count(r); }},
    {"parallel.shard_group", any, [](Scenario& s, Rng&) { s.parallel.shard_group = -1; }},
    {"parallel.pp", known, [](Scenario& s, Rng&) { s.parallel.pp = s.model.layers + 1; s.gpu_count = s.parallel.dp * s.parallel.tp * s.parallel.pp * s.parallel.cp; }},
    {"parallel.tp", attention, [](Scenario& s, Rng&) { s.parallel.tp = s.model.heads * 3 + 1 > 1024 ? 1023 : s.model.heads * 3 + 1; s.gpu_count = s.parallel.dp * s.parallel.tp * s.parallel.pp * s.parallel.cp; }},
    {"hidden_size", known, [](Scenario& s, Rng& r) { s.model.hidden = r.chance(0.5) ? bad_count(r) : huge_count(r); }},
    {"num_hidden_layers", known, [](Scenario& s, Rng& r) { s.model.layers = r.chance(0.5) ? bad_count(r) : huge_count(r); }},
    {"vocab_size", known, [](Scenario& s, Rng& r) { s.model.vocab = r.chance(0.5) ? bad_count(r) : huge_count(r); }},
    {"num_attention_heads", attention, [](Scenario& s, Rng& r) { s.model.heads = bad_count(r); }},
    {"num_key_value_heads", attention, [](Scenario& s, Rng& r) { s.model.kv_heads = bad_count(r); }},
    {"intermediate_size", [](const Scenario& s) { return attention(s) && s.model.moe.num_experts == 0; },  // a pure Mamba model has no MLP (0)
     [](Scenario& s, Rng& r) { s.model.ffn = r.chance(0.5) ? bad_count(r) : huge_count(r); }},
    {"model.params", [](const Scenario& s) { return !known(s); }, [](Scenario& s, Rng& r) { s.model.params_only = r.chance(0.5) ? -5 : std::max<int64_t>(huge_count(r), int64_t{1} << 44); }},
    {"train.micro_batch", training, [](Scenario& s, Rng& r) { s.train.micro_batch = r.chance(0.5) ? bad_count(r) : huge_count(r); }},
    {"train.seq_len", training, [](Scenario& s, Rng& r) { s.train.seq_len = r.chance(0.5) ? bad_count(r) : huge_count(r); }},
    {"train.grad_accum_steps", training, [](Scenario& s, Rng& r) { s.train.grad_accum_steps = r.chance(0.5) ? bad_count(r) : huge_count(r); }},
    {"train.dropout", training, [](Scenario& s, Rng& r) { s.train.dropout = r.chance(0.5) ? bad_real(r) : 1.0; }},
    {"overheads.fragmentation", any, [](Scenario& s, Rng& r) { s.overheads.fragmentation = bad_real(r); }},
    {"overheads.cuda_context_bytes", any, [](Scenario& s, Rng& r) { s.overheads.cuda_context_bytes = r.pick(std::array<double, 4>{kNaN, -kInf, kInf, 2e12}); }},
    {"overheads.bucket_bytes", any, [](Scenario& s, Rng& r) { s.overheads.bucket_bytes = bad_real(r); }},
    {"finetune.lora_rank", lora, [](Scenario& s, Rng& r) { s.finetune.lora_rank = r.chance(0.5) ? bad_count(r) : huge_count(r); }},
    {"finetune.lora_targets", lora, [](Scenario& s, Rng& r) { s.finetune.lora_targets = r.chance(0.5) ? 0u : 1u << 20; }},
    {"finetune.lora_dropout", lora, [](Scenario& s, Rng& r) { s.finetune.lora_dropout = bad_real(r); }},
    {"finetune.quant_block", qlora, [](Scenario& s, Rng& r) { s.finetune.quant_block = bad_count(r); }},
    {"infer.batch", inference, [](Scenario& s, Rng& r) { s.infer.batch = r.chance(0.5) ? bad_count(r) : huge_count(r); }},
    {"infer.context", inference, [](Scenario& s, Rng& r) { s.infer.context = r.chance(0.5) ? bad_count(r) : huge_count(r); }},
    {"infer.block_size", inference, [](Scenario& s, Rng& r) { s.infer.block_size = r.chance(0.5) ? bad_count(r) : huge_count(r); }},
    {"infer.ubatch", inference, [](Scenario& s, Rng& r) { s.infer.ubatch = bad_count(r); }},
    {"infer.max_num_seqs", inference, [](Scenario& s, Rng& r) {  // 0 is vLLM's default: only a negative count is bad
         s.infer.max_num_seqs = r.pick(std::array<int64_t, 3>{-1, -1000, std::numeric_limits<int64_t>::min()});
     }},
    {"infer.gpu_memory_utilization", inference, [](Scenario& s, Rng& r) { s.infer.gpu_memory_utilization = r.chance(0.5) ? bad_real(r) : 1.5; }},
    {"infer.engine_overhead_bytes", inference, [](Scenario& s, Rng&) { s.infer.engine_overhead_bytes = kNaN; }},
    {"infer.group_size", gptq, [](Scenario& s, Rng& r) { s.infer.group_size = bad_count(r); }},
};

void check_invalid(const Scenario& s, Rng& r, Failures& f, Stats& st) {
    const Breaker& b = kBreakers[static_cast<size_t>(r.range(0, static_cast<int64_t>(std::size(kBreakers)) - 1))];
    if (!b.applies(s)) return;
    Scenario bad = s;
    b.brk(bad, r);
    ++st.invalid_checks;
    const Estimate e = estimate(bad, Detail::Full);
    if (e.ok()) { f.add("invalid", std::string("accepted a broken ") + b.field, bad); return; }
    if (!e.components.empty() || e.total_bytes != 0) f.add("invalid", std::string("produced numbers for a broken ") + b.field, bad);
    bool named = false;
    for (const FieldError& err : e.errors) {
        if (err.field.empty() || err.message.empty()) f.add("invalid", "an error without field or message", bad);
        // Model fields may carry a prefix ("model."); the rest must match exactly.
        const std::string& fl = err.field;
        if (fl == b.field || (fl.size() > std::strlen(b.field) && fl.ends_with(std::string(".") + b.field))) named = true;
    }
    if (!named) f.add("invalid", std::string("no error names ") + b.field + " (first: " + to_string(e.errors.front()) + ")", bad);
    // One problem, one error (issue 13): breaking one field of a valid scenario gives exactly one error.
    if (e.errors.size() != 1) {
        std::string all;
        for (const FieldError& err : e.errors) all += " | " + to_string(err);
        f.add("invalid", std::string("one broken ") + b.field + " gave " + std::to_string(e.errors.size()) + " errors:" + all, bad);
    }
}

}  // namespace

TEST_CASE("invariants hold over 100,000 random valid scenarios") {
    const uint64_t seed = env_u64("VRAMLENS_INVARIANT_SEED", 20261108);
    const int64_t want = static_cast<int64_t>(env_u64("VRAMLENS_INVARIANT_SCENARIOS", 100000));
    Rng r(seed);
    Failures f;
    Stats st;
    std::array<int64_t, 3> per_mode{};
    std::array<int64_t, 3> per_engine{};
    while (st.valid < want && st.drawn < 20 * want) {
        ++st.drawn;
        const Scenario s = random_scenario(r);
        if (!validate(s).empty()) continue;
        ++st.valid;
        ++per_mode[static_cast<size_t>(s.mode)];
        if (s.mode == Mode::Infer) ++per_engine[static_cast<size_t>(s.infer.engine)];
        const Estimate e = run(s);
        if (const std::string w = soundness(s, e); !w.empty()) { f.add("sound", w, s); continue; }
        if (st.valid % 16 == 0)
            if (const std::string w = same_numbers(estimate(s, Detail::Full), e); !w.empty()) f.add("detail", w, s);
        check_monotone(s, e, f, st);
        check_invalid(s, r, f, st);
    }
    INFO("seed " << seed << ": " << st.valid << " valid of " << st.drawn << " drawn; " << st.monotone_checks
                 << " monotonicity checks, " << st.invalid_checks << " invalid scenarios; " << f.count << " failures");
    CHECK(st.valid >= want);
    // Every mode and engine is exercised, not only the most common ones.
    for (int64_t n : per_mode) CHECK(n > want / 10);
    for (int64_t n : per_engine) CHECK(n > want / 50);
    CHECK(st.monotone_checks > want / 2);
    CHECK(st.invalid_checks > want / 3);
    std::string first;
    for (const std::string& w : f.first) first += w + "\n";
    INFO("first failures:\n" << first);
    CHECK(f.count == 0);
}

// The fewest-GPUs solver prunes with the properties checked above; here it must agree with the
// exhaustive enumeration it replaced (every GPU count, then tp*pp, then tp, then ZeRO stage, no
// monotonicity assumed) on random scenarios whose GPU is sized so the answer is rarely trivial.
namespace {
struct GpuAnswer { bool found = false; int64_t n = 0, tp = 0, pp = 0, dp = 0; int zero = 0; };
// only_zero >= 0: that ZeRO stage only (SolveOptions::keep_zero).
GpuAnswer fewest_gpus_exhaustive(const Scenario& s, int64_t max_gpus, int only_zero = -1) {
    const int max_zero = s.mode == Mode::Infer ? 0 : 3;
    for (int64_t n = 1; n <= max_gpus; ++n)
        for (int64_t mp = 1; mp <= n; ++mp) {
            if (n % mp != 0 || (s.mode == Mode::Infer && n != mp)) continue;
            for (int64_t tp = 1; tp <= mp; ++tp) {
                if (mp % tp != 0) continue;
                for (int zero = 0; zero <= max_zero; ++zero) {
                    if (only_zero >= 0 && zero != only_zero) continue;
                    Scenario c = s;
                    c.parallel.tp = tp; c.parallel.pp = mp / tp; c.parallel.cp = 1; c.parallel.dp = n / mp;
                    c.parallel.zero = zero; c.parallel.sp = s.parallel.sp && tp > 1; c.gpu_count = n;
                    // Megatron's uneven split names the stages of the scenario's pp: another pp splits evenly
                    if (c.parallel.pp != s.parallel.pp) c.parallel.first_stage_layers = c.parallel.last_stage_layers = 0;
                    const Estimate e = estimate(c, Detail::NumbersOnly);
                    if (e.ok() && e.fits()) return {true, n, tp, mp / tp, n / mp, zero};
                }
            }
        }
    return {};
}
}  // namespace

TEST_CASE("fewest GPUs equals the exhaustive enumeration over random scenarios") {
    Rng r(env_u64("VRAMLENS_INVARIANT_SEED", 20261108) + 1);
    int compared = 0, found = 0, beyond_dp1 = 0;
    while (compared < 1000) {
        Scenario s = random_scenario(r);
        if (!validate(s).empty()) continue;
        // A GPU between a twentieth and all of this layout's peak: answers from 1 to dozens of GPUs.
        const double total = run(s).total_bytes;
        s.gpu.memory_bytes = std::max(1e9, total * r.real(0.05, 1.0));
        if (!validate(s).empty()) continue;
        ++compared;
        const int64_t max_gpus = r.pick(std::array<int64_t, 3>{8, 24, 48});
        const GpuAnswer want = fewest_gpus_exhaustive(s, max_gpus);
        const SolveResult got = solve(s, Knob::GpuCount, SolveOptions{1, 0, max_gpus});
        INFO(describe(s) << "\nmax_gpus " << max_gpus << "; exhaustive: n " << want.n << " tp " << want.tp << " pp " << want.pp
                         << " dp " << want.dp << " zero " << want.zero << "; solver: " << got.why);
        REQUIRE(got.found == want.found);
        if (!want.found) continue;
        ++found;
        beyond_dp1 += want.dp > 1;
        CHECK(got.value == want.n);
        CHECK(got.scenario.parallel.tp == want.tp);
        CHECK(got.scenario.parallel.pp == want.pp);
        CHECK(got.scenario.parallel.dp == want.dp);
        CHECK(got.scenario.parallel.zero == want.zero);
        CHECK(got.estimate.fits());
        // Keeping the scenario's own ZeRO stage (the page's answer; another stage is a lever): the same search
        // over that stage only. Every third case, to keep the suite's time.
        if (compared % 3 == 0) {
            const GpuAnswer kept = fewest_gpus_exhaustive(s, max_gpus, s.parallel.zero);
            SolveOptions keep{1, 0, max_gpus};
            keep.keep_zero = true;
            const SolveResult k = solve(s, Knob::GpuCount, keep);
            INFO("keeping ZeRO " << s.parallel.zero << ": exhaustive n " << kept.n << "; solver: " << k.why);
            REQUIRE(k.found == kept.found);
            if (kept.found) {
                CHECK(k.value == kept.n);
                CHECK(k.scenario.parallel.tp == kept.tp);
                CHECK(k.scenario.parallel.pp == kept.pp);
                CHECK(k.scenario.parallel.zero == s.parallel.zero);
            }
        }
    }
    // The spread reaches the cases that matter: answers found, and answers that need data parallelism. (LoRA / QLoRA on
    // state-space models, valid since they are modelled, took places in the first 1000: 56 need dp > 1 at the default seed.)
    CHECK(found > 300);
    CHECK(beyond_dp1 > 50);
}
