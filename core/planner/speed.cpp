// Speed of a local llama.cpp plan: the roofline for decode, FLOPs for prefill (speed.h says what each
// counts and where the efficiencies come from).
#include "planner/speed.h"

#include <algorithm>
#include <cmath>

#include "param_count.h"

namespace vl {

const std::vector<AppleChip>& apple_chips() {
    // Unified memory bandwidth per chip, Apple's technical specifications pages [apple-chip-specs];
    // a chip sold with two bandwidths (M3 Max, M4 Max) is listed once per GPU configuration, and so is a chip sold with
    // two GPU core counts (the plain id: the full GPU). GPU cores from the same pages; peak GPU clocks [apple-gpu-clocks].
    constexpr double m1 = 1.278e9, m1_pro = 1.296e9, m2 = 1.398e9, m3 = 1.398e9, m4 = 1.470e9, m4_max = 1.678e9;
    static const std::vector<AppleChip> chips = {
        {"m1", "Apple M1", 68.25e9, 8, m1},
        {"m1-7c", "Apple M1 (7-core GPU)", 68.25e9, 7, m1},
        {"m1-pro", "Apple M1 Pro", 200e9, 16, m1_pro},
        {"m1-pro-14c", "Apple M1 Pro (14-core GPU)", 200e9, 14, m1_pro},
        {"m1-max", "Apple M1 Max", 400e9, 32, m1_pro},
        {"m1-max-24c", "Apple M1 Max (24-core GPU)", 400e9, 24, m1_pro},
        {"m1-ultra", "Apple M1 Ultra", 800e9, 64, m1_pro},
        {"m1-ultra-48c", "Apple M1 Ultra (48-core GPU)", 800e9, 48, m1_pro},
        {"m2", "Apple M2", 100e9, 10, m2},
        {"m2-8c", "Apple M2 (8-core GPU)", 100e9, 8, m2},
        {"m2-pro", "Apple M2 Pro", 200e9, 19, m2},
        {"m2-pro-16c", "Apple M2 Pro (16-core GPU)", 200e9, 16, m2},
        {"m2-max", "Apple M2 Max", 400e9, 38, m2},
        {"m2-max-30c", "Apple M2 Max (30-core GPU)", 400e9, 30, m2},
        {"m2-ultra", "Apple M2 Ultra", 800e9, 76, m2},
        {"m2-ultra-60c", "Apple M2 Ultra (60-core GPU)", 800e9, 60, m2},
        {"m3", "Apple M3", 100e9, 10, m3},
        {"m3-8c", "Apple M3 (8-core GPU)", 100e9, 8, m3},
        {"m3-pro", "Apple M3 Pro", 150e9, 18, m3},
        {"m3-pro-14c", "Apple M3 Pro (14-core GPU)", 150e9, 14, m3},
        {"m3-max-30c", "Apple M3 Max (30-core GPU)", 300e9, 30, m3},
        {"m3-max-40c", "Apple M3 Max (40-core GPU)", 400e9, 40, m3},
        {"m3-ultra", "Apple M3 Ultra", 819e9, 80, m3},
        {"m3-ultra-60c", "Apple M3 Ultra (60-core GPU)", 819e9, 60, m3},
        {"m4", "Apple M4", 120e9, 10, m4},
        {"m4-8c", "Apple M4 (8-core GPU)", 120e9, 8, m4},
        {"m4-pro", "Apple M4 Pro", 273e9, 20, m4},
        {"m4-pro-16c", "Apple M4 Pro (16-core GPU)", 273e9, 16, m4},
        {"m4-max-32c", "Apple M4 Max (32-core GPU)", 410e9, 32, m4_max},
        {"m4-max-40c", "Apple M4 Max (40-core GPU)", 546e9, 40, m4_max},
    };
    return chips;
}

double apple_gpu_flops(const AppleChip& c) { return static_cast<double>(c.gpu_cores) * kAppleGpuAlusPerCore * 2 * c.gpu_clock_hz; }

std::string apple_chip_ids() {
    std::string ids;
    for (const AppleChip& c : apple_chips()) ids += (ids.empty() ? "" : ", ") + std::string(c.id);
    return ids;
}

const AppleChip* find_apple_chip(const std::string& id) {
    for (const AppleChip& c : apple_chips())
        if (id == c.id) return &c;
    return nullptr;
}

SpeedCalibration speed_calibration() {
    // Medians of measured / roofline over the calibrate rows of tests/data/planner/speed_benchmarks.json,
    // and the holdout rows' median and worst |error| (docs/speed.md renders both from the table;
    // tests/planner_speed_test.cpp checks these numbers against it).
    SpeedCalibration c;
    c.decode_gpu = {0.691, 0.12, 0.19};
    c.decode_cpu_apple = {0.448, 0.15, 0.15};
    c.prefill = {0.429, 0.34, 0.99};
    c.prefill_apple = {0.702, 0.03, 0.18};
    c.row_sync_seconds = 28.6e-6;
    c.decode_row = {1, 0.04, 0.05};
    c.prefill_row = {1, 0.14, 0.15};  // every row held out: nothing is calibrated on them
    return c;
}

double roofline_seconds(double bytes, double bandwidth, double efficiency) { return bytes / (efficiency * bandwidth); }

double active_weight_bytes(double weight_bytes, double routed_expert_bytes, int top_k, int num_experts) {
    if (num_experts <= 0) return weight_bytes;
    return weight_bytes - routed_expert_bytes * (1.0 - static_cast<double>(top_k) / num_experts);
}

double prefill_flops_per_token(double active_params, int64_t layers, int64_t ctx, int64_t d_attn) {
    return 2 * active_params + 4.0 * static_cast<double>(layers) * static_cast<double>(ctx) * static_cast<double>(d_attn);
}

double hop_seconds(int64_t hidden, double link_bandwidth) { return static_cast<double>(hidden) * 4 / link_bandwidth; }

double row_round_trip_seconds(int64_t row_syncs, double sync_seconds, int64_t tokens_per_trip, double link_bytes, double link_bandwidth) {
    return static_cast<double>(row_syncs) * sync_seconds / static_cast<double>(tokens_per_trip) + link_bytes / link_bandwidth;
}

namespace {

std::string check_speed_input(const PlanInput& in, const Plan& p, const SpeedInput& s) {
    if (s.gpu_bandwidth.size() != p.gpus.size())
        return "gpu: give one memory bandwidth per GPU (" + std::to_string(p.gpus.size()) + "), got " + std::to_string(s.gpu_bandwidth.size());
    for (size_t i = 0; i < p.gpus.size(); ++i)
        if (!(s.gpu_bandwidth[i] > 0) || !std::isfinite(s.gpu_bandwidth[i]))
            return "gpu " + std::to_string(i + 1) + " (" + p.gpus[i].name +
                   "): no published memory bandwidth, so no decode speed; " +
                   (in.apple_unified ? "name the chip (--apple-chip)" : "pick a GPU preset that has one (`vramlens gpus`)");
    if (!(s.ram_bandwidth > 0) || !std::isfinite(s.ram_bandwidth)) return "ram-bandwidth: must be a positive number of bytes/s (e.g. 89.6e9)";
    if (!(s.cpu_flops > 0) || !std::isfinite(s.cpu_flops)) return "cpu-flops: must be a positive number of FLOP/s (e.g. 1e12)";
    if (!(s.link_bandwidth > 0)) return "link bandwidth: must be positive";
    return {};
}

}  // namespace

Speed plan_speed(const PlanInput& in, const Plan& p, const SpeedInput& s) {
    Speed out;
    if (!p.ok()) {
        out.error = p.error;
        return out;
    }
    out.error = check_speed_input(in, p, s);
    if (!out.ok()) return out;
    const ModelSpec& m = in.model;
    const ParamCounts pc = count_params(m);
    const LayerPattern pattern = layer_pattern(m);
    const int64_t L = p.n_layer;
    const SpeedCalibration& cal = s.calibration;
    const size_t n_gpu = p.gpus.size();

    // Which device holds layer il (planner.h: [layer_begin, layer_end) per device); n_gpu: the CPU.
    auto device_of = [&](int64_t il) {
        for (size_t d = 0; d < n_gpu; ++d)
            if (il >= p.gpus[d].layer_begin && il < p.gpus[d].layer_end) return d;
        return n_gpu;
    };
    std::vector<double> experts(n_gpu + 1, 0), active_params(n_gpu + 1, 0), layers(n_gpu + 1, 0), attention_layers(n_gpu + 1, 0);
    int64_t moe_bounces = 0;  // layers on a GPU whose routed experts run on the CPU (--n-cpu-moe)
    int64_t kv_bounces = 0;   // layers on a GPU whose attention runs on the CPU (-nkvo: the KV is in RAM)
    for (int64_t il = 0; il < L; ++il) {
        const size_t d = device_of(il);
        const bool experts_on_cpu = d < n_gpu && il < in.n_cpu_moe;
        const double e = llamacpp_layer_expert_bytes(in, il);
        experts[experts_on_cpu ? n_gpu : d] += e;
        if (experts_on_cpu && e > 0) ++moe_bounces;
        const bool attention_on_cpu = d < n_gpu && !in.kv_offload;
        // Only attention layers read a KV cache: a Mamba or DeltaNet layer's state follows the KV placement and its scan is in
        // the layer's FLOPs; an MLP-only layer (Nemotron-H '-') has neither.
        if (pattern.attention(il)) {
            attention_layers[attention_on_cpu ? n_gpu : d] += 1;
            if (attention_on_cpu) ++kv_bounces;
        }
        // Prefill: the layer's FLOPs at its device (llama.cpp copies CPU-held expert weights to the GPU
        // for large batches, so --n-cpu-moe does not move their FLOPs).
        active_params[d] += static_cast<double>(pc.per_layer[static_cast<size_t>(il)].active());
        layers[d] += 1;
    }
    size_t out_dev = n_gpu;
    for (size_t d = 0; d < n_gpu; ++d)
        if (p.gpus[d].output) out_dev = d;
    active_params[out_dev] += static_cast<double>(m.vocab) * static_cast<double>(m.hidden);

    const int64_t d_attn = m.heads * m.head_dim;
    const int64_t ctx = p.context;
    double decode = 0, split = 0, prefill = 0, split_prefill = 0, slowest = -1;
    bool prefill_known = true, slowest_gpu = false;
    for (size_t d = 0; d <= n_gpu; ++d) {
        const bool cpu = d == n_gpu;
        const DevicePlan& dp = cpu ? p.cpu : p.gpus[d];
        DeviceSpeed ds;
        ds.name = dp.name;
        // The token embedding is looked up one row per token: its bytes are not streamed.
        const double weights = cpu ? dp.weights - llamacpp_embedding_weight_bytes(in) : dp.weights;
        ds.bytes_per_token = active_weight_bytes(weights, experts[d], m.moe.top_k, m.moe.num_experts) + dp.kv;
        const bool system_memory = cpu || in.apple_unified;
        const double bw = cpu ? s.ram_bandwidth : s.gpu_bandwidth[d];
        const double efficiency = system_memory ? cal.decode_cpu_apple.efficiency : cal.decode_gpu.efficiency;
        ds.decode_seconds = roofline_seconds(ds.bytes_per_token, bw, efficiency);
        ds.split_seconds = roofline_seconds(dp.split_rows, bw, efficiency);  // split rows hold no routed experts (3-D)
        const bool has_work = layers[d] > 0 || attention_layers[d] > 0 || d == out_dev || dp.split_params > 0;
        // --split-mode row: the split matrices of its layers leave its FLOPs (split_owned_params), its rows of every split
        // matrix join them (split_params); both 0 otherwise.
        const double split_flops = 2 * dp.split_params;
        ds.flops_per_token =
            has_work ? prefill_flops_per_token(active_params[d] - dp.split_owned_params, static_cast<int64_t>(attention_layers[d]), ctx, d_attn) +
                           split_flops
                     : 0;
        const double flops = cpu ? s.cpu_flops : (d < s.gpu_flops.size() ? s.gpu_flops[d] : 0);
        if (ds.flops_per_token > 0 && !(flops > 0)) {
            prefill_known = false;
            out.prefill_note = dp.name + " has no published FP16 throughput: no prefill estimate";
        } else if (ds.flops_per_token > 0) {
            // An Apple GPU (Metal) has its own prefill efficiency; a discrete GPU and the CPU share one.
            const double eff = in.apple_unified && !cpu ? cal.prefill_apple.efficiency : cal.prefill.efficiency;
            ds.prefill_seconds = ds.flops_per_token / (eff * flops);
            ds.split_prefill_seconds = split_flops / (eff * flops);
        }
        decode += ds.decode_seconds - ds.split_seconds;
        split = std::max(split, ds.split_seconds);
        prefill += ds.prefill_seconds - ds.split_prefill_seconds;
        split_prefill = std::max(split_prefill, ds.split_prefill_seconds);
        if (ds.decode_seconds > slowest) {
            slowest = ds.decode_seconds;
            slowest_gpu = !system_memory;
        }
        out.devices.push_back(ds);
    }
    // Device boundaries: the CPU (token embedding) to each GPU with work in turn, and two per layer
    // whose experts stay on the CPU or whose attention runs there (-nkvo); none on Apple Silicon (one memory).
    if (!in.apple_unified) {
        int64_t with_work = 1;
        for (size_t d = 0; d < n_gpu; ++d) with_work += (layers[d] > 0 || d == out_dev) ? 1 : 0;
        out.hops = with_work - 1 + 2 * moe_bounces + 2 * kv_bounces;
        out.hop_seconds = hop_seconds(m.hidden, s.link_bandwidth);
    }
    decode += static_cast<double>(out.hops) * out.hop_seconds;
    // --split-mode row: the split matrices take the slowest GPU's time, plus their round trips: one per token in decode, one per
    // chunk of prompt tokens in prefill (the chunk, the ubatch or the prompt, whichever is shortest).
    out.row_sync_seconds = row_round_trip_seconds(p.row_syncs, cal.row_sync_seconds, 1, p.row_link_bytes, s.link_bandwidth);
    decode += split + out.row_sync_seconds;
    out.decode_tokens_per_s = 1 / decode;
    out.decode_band = p.row_syncs > 0 ? cal.decode_row : slowest_gpu ? cal.decode_gpu : cal.decode_cpu_apple;
    const int64_t chunk = std::max<int64_t>(1, std::min({kRowSplitChunkTokens, in.ubatch, ctx}));
    out.prefill_row_sync_seconds = row_round_trip_seconds(p.row_syncs, cal.row_sync_seconds, chunk, p.row_link_bytes, s.link_bandwidth);
    prefill += split_prefill + out.prefill_row_sync_seconds;
    out.prefill_band = p.row_syncs > 0 ? cal.prefill_row : in.apple_unified ? cal.prefill_apple : cal.prefill;
    if (prefill_known) {
        out.prefill_tokens_per_s = 1 / prefill;
        out.time_to_first_token_s = static_cast<double>(ctx) * prefill + decode;
    }
    return out;
}

}  // namespace vl
