// Solvers over estimate(). Binary search only where memory is monotone in the knob (batch and
// sequence/context lengths: every component is a non-decreasing function of them); weight formats
// are enumerated; GPU layouts are searched in enumeration order with the pruning of solve_gpus.
#include "solvers.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <string_view>

#include "text_format.h"

#include "inference/weight_formats.h"
#include "units.h"

namespace vl {

const char* knob_name(Knob k) {
    switch (k) {
        case Knob::MicroBatch: return "train.micro_batch";
        case Knob::SeqLen: return "train.seq_len";
        case Knob::Batch: return "infer.batch";
        case Knob::Context: return "infer.context";
        case Knob::GpuCount: return "gpu_count";
        case Knob::WeightFormat: return "infer.weights";
    }
    return "?";
}

void apply_knob(Scenario& s, Knob k, int64_t v) {
    switch (k) {
        case Knob::MicroBatch: s.train.micro_batch = v; break;
        case Knob::SeqLen: s.train.seq_len = v; break;
        case Knob::Batch: s.infer.batch = v; break;
        case Knob::Context:
            s.infer.context = v;
            if (s.infer.prompt > v) s.infer.prompt = v;
            break;
        case Knob::GpuCount:
            s.gpu_count = v;
            s.parallel.dp = std::max<int64_t>(1, v / (s.parallel.tp * s.parallel.pp * s.parallel.cp));
            break;
        case Knob::WeightFormat:
            s.infer.weights = static_cast<WeightFormat>(v);
            break;
    }
}

int64_t knob_value(const Scenario& s, Knob k) {
    switch (k) {
        case Knob::MicroBatch: return s.train.micro_batch;
        case Knob::SeqLen: return s.train.seq_len;
        case Knob::Batch: return s.infer.batch;
        case Knob::Context: return s.infer.context;
        case Knob::GpuCount: return s.gpu_count;
        case Knob::WeightFormat: return static_cast<int64_t>(s.infer.weights);
    }
    return 0;
}

namespace {

struct Probe {
    Scenario s;
    Estimate e;
    bool fits = false;
};

Probe probe(const Scenario& base, Knob k, int64_t v, int& evals) {
    Probe p{base, {}, false};
    apply_knob(p.s, k, v);
    p.e = estimate(p.s, Detail::NumbersOnly);
    p.fits = p.e.fits();
    ++evals;
    return p;
}

// GPU bytes of a component at the peak phase (0 when not live then).
double at_peak(const Estimate& e, const Component& c) {
    return (!c.host && (c.phases & phase_bit(e.peak_phase))) ? c.bytes : 0.0;
}

const Component* largest(const Estimate& e) {
    const Component* best = nullptr;
    for (const Component& c : e.components)
        if (!best || at_peak(e, c) > at_peak(e, *best)) best = &c;
    return best;
}

// The component that grew most from `fit` to `over` (the first value past the answer).
const Component* grew_most(const Estimate& fit, const Estimate& over) {
    const Component* best = nullptr;
    double best_growth = -1;
    for (const Component& c : over.components) {
        double before = 0;
        for (const Component& f : fit.components)
            if (std::string_view(f.id) == c.id) before += at_peak(fit, f);  // no string built per pair
        const double g = at_peak(over, c) - before;
        if (g > best_growth) { best_growth = g; best = &c; }
    }
    return best;
}

// The knob's value as a user reads it: weight formats by name, counts as integers.
static std::string knob_value_text(Knob k, int64_t v) {
    if (k == Knob::WeightFormat) return weight_format_name(static_cast<WeightFormat>(v));
    return std::to_string(v);
}

std::string describe_overflow(Knob k, int64_t v, const Estimate& e) {
    const std::string value = knob_value_text(k, v);
    if (!e.ok()) return vl::format("{} = {} is invalid: {}", knob_name(k), value, to_string(e.errors.front()));
    const Component* c = largest(e);
    return vl::format("at {} = {} it needs {} of {}; largest component {} ({})", knob_name(k), value,
                       amount_with_unit(e.total_bytes, SizeUnit::GiB), amount_with_unit(e.gpu_capacity_bytes, SizeUnit::GiB),
                       c ? c->id : "-", amount_with_unit(c ? at_peak(e, *c) : 0.0, SizeUnit::GiB));
}

// The knob's valid values are multiples of this: a training sequence must split evenly over the
// context-parallel ranks (validate_training: train.seq_len divisible by parallel.cp). Searching every
// integer would make "fits" non-monotone (s = 4095 invalid, 4096 fits at cp = 2).
int64_t knob_step(const Scenario& s, Knob k) {
    if (k == Knob::SeqLen && s.parallel.cp > 1) return s.parallel.cp;
    return 1;
}

// Exponential then binary search over the knob's valid values step * i, i in [i_lo, i_hi].
SolveResult solve_monotone(const Scenario& s, Knob k, const SolveOptions& opt) {
    SolveResult r;
    const bool tokens = k == Knob::Context || k == Knob::SeqLen;
    const int64_t step = knob_step(s, k);
    const int64_t hi = opt.hi > 0 ? opt.hi : (tokens ? (int64_t{1} << 24) : (int64_t{1} << 20));
    const int64_t lo = std::max<int64_t>(1, opt.lo);
    const int64_t i_lo = (lo + step - 1) / step, i_hi = hi / step;
    if (i_hi < i_lo) {
        r.errors.push_back({knob_name(k), vl::format("no multiple of {} in [{}, {}]", step, lo, hi)});
        r.why = "the search range holds no valid value: " + to_string(r.errors.front());
        return r;
    }
    Probe first = probe(s, k, i_lo * step, r.evaluations);
    if (!first.fits) {
        r.scenario = first.s;
        r.estimate = first.e;
        const Component* c = largest(first.e);
        r.limiting_id = c ? c->id : "";
        r.why = "nothing fits: " + describe_overflow(k, i_lo * step, first.e);
        return r;
    }
    // Exponential search for a failing index, then bisection on [good, bad).
    int64_t good = i_lo, bad = 0;
    Probe good_p = first, bad_p;
    while (bad == 0) {
        const int64_t next = good >= i_hi / 2 ? i_hi : good * 2;
        if (next == good) break;
        Probe p = probe(s, k, next * step, r.evaluations);
        if (p.fits) { good = next; good_p = std::move(p); }
        else { bad = next; bad_p = std::move(p); }
    }
    while (bad != 0 && bad - good > 1) {
        const int64_t mid = good + (bad - good) / 2;
        Probe p = probe(s, k, mid * step, r.evaluations);
        if (p.fits) { good = mid; good_p = std::move(p); }
        else { bad = mid; bad_p = std::move(p); }
    }
    r.found = true;
    r.value = good * step;
    r.scenario = good_p.s;
    r.estimate = good_p.e;
    if (bad == 0) {
        r.at_search_bound = true;
        r.why = vl::format("fits up to the search bound {} = {}", knob_name(k), i_hi * step);
        return r;
    }
    if (bad == good + 1) {
        const Component* c = bad_p.e.ok() ? grew_most(good_p.e, bad_p.e) : nullptr;
        r.limiting_id = c ? c->id : "";
        r.why = vl::format("{} = {} fits; {}", knob_name(k), good * step, describe_overflow(k, bad * step, bad_p.e));
        if (c) r.why += vl::format("; {} grows the most", c->id);
    }
    return r;
}

// Activations and logits at the phase where they peak: per micro-batch tensors that no data-parallel
// degree or ZeRO stage changes (ZeRO partitions model states only; [zero2020 §5]), so
// a lower bound on the total of the same (tp, pp) at any dp and stage.
double activation_floor(const Estimate& e) {
    return phase_totals(e.components, category_bit(Category::Activations) | category_bit(Category::Logits)).peak_bytes();
}

// Data-parallel degrees a layout accepts: multiples of ep (experts are spread over the dp ranks) and
// of the ZeRO/FSDP shard group (validate_parallel).
int64_t dp_step(const Parallelism& p) {
    return std::lcm(std::max<int64_t>(1, p.ep), std::max<int64_t>(1, p.shard_group));
}

// A parallel layout: n = dp * tp * pp GPUs (cp 1) at a ZeRO stage. dp == 0: none.
struct Layout {
    int64_t tp = 0, pp = 0, dp = 0;
    int zero = 0;
    int64_t gpus() const { return dp * tp * pp; }
};

// `s` laid out as `l` (sequence parallelism is part of TP: off at tp = 1).
void set_layout(Scenario& v, const Scenario& s, const Layout& l) {
    v.parallel.tp = l.tp;
    v.parallel.pp = l.pp;
    v.parallel.cp = 1;
    v.parallel.dp = l.dp;
    v.parallel.zero = l.zero;
    v.parallel.sp = s.parallel.sp && l.tp > 1;
    // Megatron's uneven split names the stages of the scenario's pp; a layout of another pp splits evenly.
    if (l.pp != s.parallel.pp) v.parallel.first_stage_layers = v.parallel.last_stage_layers = 0;
    v.gpu_count = l.gpus();
}

// What the search may try: the ZeRO stages the scenario's other settings allow (offload, compat
// rules), the data-parallel step and the GPU bound.
struct LayoutSpace {
    bool infer = false;
    int max_zero = 0;
    int64_t dp_min = 1;
    std::array<bool, 4> zero_ok{};
    int64_t max_gpus = 0;
    double gpu_bytes = 0;
};

LayoutSpace layout_space(const Scenario& s, const SolveOptions& opt) {
    LayoutSpace sp;
    sp.infer = s.mode == Mode::Infer;
    sp.max_zero = sp.infer ? 0 : 3;
    sp.dp_min = sp.infer ? 1 : dp_step(s.parallel);
    for (int z = 0; z <= sp.max_zero; ++z) {
        Scenario v = s;
        v.parallel.zero = z;
        sp.zero_ok[static_cast<size_t>(z)] = validate(v).empty() && (!opt.keep_zero || z == s.parallel.zero);
    }
    sp.max_gpus = opt.max_gpus;
    sp.gpu_bytes = s.gpu.usable_bytes();
    return sp;
}

// The probes: one estimate of one layout each, on a scenario changed in place (no copy per probe).
// Remembers every layout that did not fit, for the closest answer.
struct LayoutProbes {
    enum class Outcome { Invalid, Over, Fits };
    struct Failed { Layout l; double ratio; };  // total / capacity

    const Scenario& s;
    int& evaluations;
    Scenario c = s;
    Layout at;
    std::vector<Failed> failed;
    Estimate fit_e;          // the last probe that fit
    double floor_bytes = 0;  // activation_floor of the last valid probe

    LayoutProbes(const Scenario& base, int& evals) : s(base), evaluations(evals) {}

    void set(int64_t tp, int64_t pp, int zero) { at = {tp, pp, 0, zero}; }
    Outcome probe(int64_t dp) {
        at.dp = dp;
        set_layout(c, s, at);
        Estimate e = estimate(c, Detail::NumbersOnly);
        ++evaluations;
        if (!e.ok()) return Outcome::Invalid;
        floor_bytes = activation_floor(e);
        if (e.fits()) {
            fit_e = std::move(e);
            return Outcome::Fits;
        }
        failed.push_back({at, e.total_bytes / e.gpu_capacity_bytes});
        return Outcome::Over;
    }
};

struct Pair { int64_t tp, pp; };

// Pass 1: each (tp, pp) in key order at the smallest valid dp, every allowed ZeRO stage in order;
// stops at the first layout that fits (into `best`). Returns the valid pairs that more data-parallel
// ranks could still make fit (activations not already over the GPU), for pass 2.
std::vector<Pair> first_fit_at_smallest_dp(LayoutProbes& probes, const LayoutSpace& sp, Layout& best, Estimate& best_e) {
    using Outcome = LayoutProbes::Outcome;
    std::vector<Pair> pairs;
    // A tp that breaks a model split where pp is fine breaks it at every pp (tp_bad).
    std::vector<char> tp_bad(static_cast<size_t>(std::max<int64_t>(1, sp.max_gpus)) + 1, 0), pp_ok(tp_bad.size(), 0);
    for (int64_t mp = 1; mp * sp.dp_min <= sp.max_gpus && best.dp == 0; ++mp) {
        for (int64_t tp = 1; tp <= mp && best.dp == 0; ++tp) {
            const int64_t pp = mp / tp;
            if (mp % tp != 0 || tp_bad[static_cast<size_t>(tp)]) continue;
            bool valid = true, zero0_over = false;
            double floor_min = 1e300;
            for (int zero = 0; zero <= sp.max_zero && valid; ++zero) {
                // At dp = 1, ZeRO 1-3 never need less than ZeRO 0.
                if (!sp.zero_ok[static_cast<size_t>(zero)] || (sp.dp_min == 1 && zero0_over)) continue;
                probes.set(tp, pp, zero);
                const Outcome o = probes.probe(sp.dp_min);
                if (o != Outcome::Invalid) floor_min = std::min(floor_min, probes.floor_bytes);
                if (o == Outcome::Invalid) {
                    valid = false;
                    if (pp_ok[static_cast<size_t>(pp)]) tp_bad[static_cast<size_t>(tp)] = 1;
                } else if (o == Outcome::Fits) {
                    best = {tp, pp, sp.dp_min, zero};
                    best_e = std::move(probes.fit_e);
                    break;
                } else if (zero == 0) {
                    zero0_over = true;
                }
            }
            if (!valid) continue;
            if (tp == 1) pp_ok[static_cast<size_t>(pp)] = 1;
            if (!(floor_min > sp.gpu_bytes)) pairs.push_back({tp, pp});
        }
    }
    return pairs;
}

// Pass 2 (training): for each pair, more data-parallel ranks with ZeRO >= 1, for a key below the
// best so far: one probe at the largest dp that could still win, then bisection for the smallest
// dp that fits (per-GPU bytes never rise with dp at ZeRO >= 1).
void fewer_gpus_with_more_dp(LayoutProbes& probes, const LayoutSpace& sp, const std::vector<Pair>& pairs, Layout& best,
                             Estimate& best_e) {
    using Outcome = LayoutProbes::Outcome;
    for (const auto& [tp, pp] : pairs) {
        const int64_t mp = tp * pp;
        for (int zero = 1; zero <= sp.max_zero && !sp.infer; ++zero) {
            if (!sp.zero_ok[static_cast<size_t>(zero)]) continue;
            // With as many GPUs as the best, this layout wins only if its (tp*pp, tp, ZeRO) comes first.
            const int64_t best_mp = best.tp * best.pp;
            const bool earlier = best.dp == 0 || mp < best_mp || (mp == best_mp && (tp < best.tp || (tp == best.tp && zero < best.zero)));
            const int64_t limit = best.dp == 0 ? sp.max_gpus : earlier ? best.gpus() : best.gpus() - 1;
            const int64_t i_hi = limit / (mp * sp.dp_min);  // dp = dp_min * i; pass 1 covered i = 1
            if (i_hi < 2) continue;
            probes.set(tp, pp, zero);
            if (probes.probe(sp.dp_min * i_hi) != Outcome::Fits) continue;
            int64_t bad = 1, good = i_hi;  // fits at good (the last probe that fit), not at bad
            while (good - bad > 1) {
                const int64_t mid = bad + (good - bad) / 2;
                if (probes.probe(sp.dp_min * mid) == Outcome::Fits) good = mid;
                else bad = mid;
            }
            best = {tp, pp, sp.dp_min * good, zero};
            best_e = std::move(probes.fit_e);
        }
    }
}

// The failed probe that came closest (lowest total / capacity) with at most n_limit GPUs.
const LayoutProbes::Failed* closest_failure(const std::vector<LayoutProbes::Failed>& failed, int64_t n_limit) {
    const LayoutProbes::Failed* closest = nullptr;
    for (const LayoutProbes::Failed& f : failed)
        if (f.l.gpus() <= n_limit && (!closest || f.ratio < closest->ratio)) closest = &f;
    return closest;
}

// Fewest GPUs: the smallest key (n, tp*pp, tp, ZeRO) among the layouts that fit, n = dp*tp*pp: the
// layout an exhaustive enumeration in that order meets first (tests/invariants_test.cpp keeps it as the
// oracle). The search skips what properties of the estimator rule out (checked by the same suite):
//   - ZeRO >= 1, dp >= 2: per-GPU bytes never rise as dp grows (model states shard by dp; the
//     all-reduce bucket is the same at every dp >= 2). One probe at the largest useful dp rules a
//     layout out; otherwise bisection finds its smallest dp that fits.
//   - ZeRO 0: the same bytes at every dp >= 2, and dp = 1 (no all-reduce bucket) never needs more:
//     only the smallest valid dp can fit.
//   - dp = 1: ZeRO 1 and 2 give ZeRO 0's bytes and ZeRO 3 no fewer (one rank shards nothing).
//   - inference: replicas never lower one GPU's memory, so dp = 1 only.
//   - activations and logits do not depend on dp or the ZeRO stage (ZeRO shards model states only):
//     when they alone exceed the GPU at some dp and stage, no dp or stage of that (tp, pp) fits.
//   - validity: the tp/pp rules, the ZeRO rules and the dp rules (dp_step) are independent, so a
//     layout invalid at one dp is invalid at all, and a tp that breaks a model split (heads, kv heads,
//     ffn) where pp is fine breaks it at every pp.
// Pass 1 tries every layout at the smallest valid dp in key order and stops at the first that fits;
// pass 2 looks for a smaller key with more data-parallel ranks (ZeRO >= 1). The answer names the
// closest layout with fewer GPUs that did not fit.
SolveResult solve_gpus(const Scenario& s, const SolveOptions& opt) {
    SolveResult r;
    const LayoutSpace sp = layout_space(s, opt);
    LayoutProbes probes(s, r.evaluations);
    Layout best;
    Estimate best_e;
    const std::vector<Pair> pairs = first_fit_at_smallest_dp(probes, sp, best, best_e);
    fewer_gpus_with_more_dp(probes, sp, pairs, best, best_e);

    const LayoutProbes::Failed* closest = closest_failure(probes.failed, best.dp == 0 ? opt.max_gpus : best.gpus() - 1);
    Probe near;
    if (closest) {
        near.s = s;
        set_layout(near.s, s, closest->l);
        near.e = estimate(near.s, Detail::NumbersOnly);
    }
    auto name_closest = [&] {
        const Component* lc = largest(near.e);
        r.limiting_id = lc ? lc->id : "";
        return describe_overflow(Knob::GpuCount, near.s.gpu_count, near.e);
    };
    if (best.dp > 0) {
        r.found = true;
        r.value = best.gpus();
        r.scenario = s;
        set_layout(r.scenario, s, best);
        r.estimate = std::move(best_e);
        r.why = vl::format("{} GPUs: tp {}, pp {}, dp {}, ZeRO {}", best.gpus(), best.tp, best.pp, best.dp, best.zero);
        if (closest) r.why += "; with fewer GPUs the closest layout " + name_closest();
        return r;
    }
    if (closest) {
        r.scenario = near.s;
        r.estimate = near.e;
        r.why = vl::format("no layout of up to {} GPUs fits; closest: ", opt.max_gpus) + name_closest();
    } else {
        r.why = vl::format("no valid parallel layout of up to {} GPUs", opt.max_gpus);
    }
    return r;
}

double weight_bytes(const Estimate& e) {
    double w = 0;
    for (const Component& c : e.components)
        if (c.category == Category::Weights && !c.host) w += c.bytes;
    return w;
}

SolveResult solve_format(const Scenario& s) {
    SolveResult r;
    Probe best, smallest_fail, next_larger;
    bool have_best = false, have_fail = false, have_larger = false;
    for (const WeightFormatInfo& f : kWeightFormats) {  // every format of the table
        Probe p = probe(s, Knob::WeightFormat, static_cast<int64_t>(f.format), r.evaluations);
        if (!p.e.ok()) continue;  // the engine does not load this format
        const double w = weight_bytes(p.e);
        if (p.fits) {
            if (!have_best || w > weight_bytes(best.e)) { best = std::move(p); have_best = true; }
        } else if (!have_fail || w < weight_bytes(smallest_fail.e)) {
            smallest_fail = p;
            have_fail = true;
        }
    }
    if (!have_best) {
        if (!have_fail) { r.why = "no weight format is valid for this engine"; return r; }
        r.scenario = smallest_fail.s;
        r.estimate = smallest_fail.e;
        const Component* c = largest(smallest_fail.e);
        r.limiting_id = c ? c->id : "";
        r.why = vl::format("no format fits; even {}: ", weight_format_name(smallest_fail.s.infer.weights)) +
                describe_overflow(Knob::WeightFormat, static_cast<int64_t>(smallest_fail.s.infer.weights), smallest_fail.e);
        return r;
    }
    r.found = true;
    r.value = static_cast<int64_t>(best.s.infer.weights);
    r.scenario = best.s;
    r.estimate = best.e;
    r.why = vl::format("{} fits", weight_format_name(best.s.infer.weights));
    // The next less-compressed format that fails names the limit.
    for (const WeightFormatInfo& f : kWeightFormats) {
        Probe p = probe(s, Knob::WeightFormat, static_cast<int64_t>(f.format), r.evaluations);
        if (!p.e.ok() || p.fits) continue;
        const double w = weight_bytes(p.e);
        if (w > weight_bytes(best.e) && (!have_larger || w < weight_bytes(next_larger.e))) { next_larger = std::move(p); have_larger = true; }
    }
    if (have_larger) {
        const Component* c = grew_most(best.e, next_larger.e);
        r.limiting_id = c ? c->id : "";
        r.why += vl::format("; {} does not: needs {} of {}", weight_format_name(next_larger.s.infer.weights),
                             amount_with_unit(next_larger.e.total_bytes, SizeUnit::GiB),
                             amount_with_unit(next_larger.e.gpu_capacity_bytes, SizeUnit::GiB));
    }
    return r;
}

}  // namespace

SolveResult solve(const Scenario& s, Knob k, const SolveOptions& opt) {
    SolveResult r;
    r.errors = validate(s);
    if (!r.errors.empty()) {
        r.why = "the scenario is invalid: " + to_string(r.errors.front());
        return r;
    }
    const bool infer_knob = k == Knob::Batch || k == Knob::Context || k == Knob::WeightFormat;
    const bool train_knob = k == Knob::MicroBatch || k == Knob::SeqLen;
    if ((infer_knob && s.mode != Mode::Infer) || (train_knob && s.mode == Mode::Infer)) {
        r.errors.push_back({"mode", vl::format("{} does not apply in this mode", knob_name(k))});
        r.why = "the knob does not apply to this mode";
        return r;
    }
    if (k == Knob::GpuCount) return solve_gpus(s, opt);
    if (k == Knob::WeightFormat) return solve_format(s);
    return solve_monotone(s, k, opt);
}

Knob batch_knob(const Scenario& s) { return s.mode == Mode::Infer ? Knob::Batch : Knob::MicroBatch; }
Knob seq_knob(const Scenario& s) { return s.mode == Mode::Infer ? Knob::Context : Knob::SeqLen; }

FitAnswers fit_answers(const Scenario& s, const Estimate& e) {
    FitAnswers a;
    if (!e.ok()) return a;
    if (s.model.architecture_known()) {
        a.max_batch = solve(s, batch_knob(s));
        SolveOptions so;
        so.hi = std::min<int64_t>(std::max<int64_t>(s.model.max_position, 4096), 1 << 22);
        a.max_seq = solve(s, seq_knob(s), so);
    }
    if (!e.fits()) {
        SolveOptions go;
        go.max_gpus = 512;
        go.keep_zero = true;  // the user's ZeRO stage; another stage is a lever (fit_levers)
        a.min_gpus = solve(s, Knob::GpuCount, go);
    }
    a.solved = true;
    return a;
}

std::string gpu_layout_text(const Parallelism& p) { return vl::format("TP {}, PP {}, ZeRO {}", p.tp, p.pp, p.zero); }

std::vector<FitAnswerRow> fit_answer_rows(const Scenario& s, const Estimate& e, const FitAnswers& a) {
    std::vector<FitAnswerRow> rows;
    if (!a.solved) return rows;
    const bool infer = s.mode == Mode::Infer;
    auto searched = [&](const SolveResult& r, const char* id, const char* label) {
        if (r.found) rows.push_back({id, label, r.value, std::to_string(r.value) + (r.at_search_bound ? "+" : "")});
    };
    searched(a.max_batch, infer ? "max_batch" : "max_micro_batch", infer ? "max batch" : "max micro-batch");
    searched(a.max_seq, infer ? "max_context" : "max_seq_len", infer ? "max context" : "max sequence");
    if (!e.fits()) {
        if (a.min_gpus.found)
            rows.push_back({"min_gpus", "fewest GPUs", a.min_gpus.value,
                            std::to_string(a.min_gpus.value) + " (" + gpu_layout_text(a.min_gpus.scenario.parallel) + ")"});
        else rows.push_back({"min_gpus", "fewest GPUs", -1, "none up to 512 GPUs"});
    }
    return rows;
}

}  // namespace vl
