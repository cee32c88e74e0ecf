// Speed of a local llama.cpp plan (issue 19 item 5): decode tokens/s from the memory-bandwidth
// roofline, prefill tokens/s and time to first token from FLOPs, each scaled by one efficiency per
// regime calibrated on published benchmark tables (tests/data/planner/speed_benchmarks.json; the
// calibration and its held-back error are rendered in docs/speed.md). Pure functions of a Plan.
//
// Decode: every generated token reads, on each device, the weights it holds that the token uses (MoE:
// the routed experts scaled by top_k / num_experts; shared experts, attention and norms in full; the
// token embedding is one row, not counted) and its KV cache at the plan's context. Devices run one
// after another (llama.cpp's layer split), so their times add, plus one hidden-state vector over the
// host link per device boundary. With -nkvo the KV cache is the CPU's (Plan.cpu.kv): decode streams it
// from system RAM, and each offloaded layer's attention crosses to the CPU and back (two boundaries).
// Prefill: 2 FLOPs per active parameter per token plus 2 * ctx * d_attn per layer for QK^T [kaplan2020 §2.1]
// and as many for the product with V, over the attended tokens (the prompt: llama.cpp without flash
// attention multiplies against every cell and masks), at each device's dense FP16 tensor throughput (an Apple GPU: its
// FP32 = FP16 peak, apple_gpu_flops, at its own efficiency prefill_apple);
// the attention FLOPs count on the device that runs the attention (-nkvo: the CPU).
// --split-mode row (ggml-cuda.cu ggml_cuda_op_mul_mat, read at f6d77a1 [llama-cpp-code]): every GPU holds rows of each
// split matrix and multiplies them at the same time as the others, so a token's split matrices take as long as the
// slowest GPU's rows (the same GPU for every matrix: all are split in the same proportions), not the sum; the rest of a
// layer (norms, KV, attention) runs on its layer's GPU in turn as above. Each split matrix costs one round trip per other
// GPU with rows of it: the input vector out, its rows of the result back (Plan.row_link_bytes over the link) and a
// fixed time for the launches, copies and event waits, calibrated on published row-split speeds (row_sync_seconds).
// Prefill with row split (the same ggml_cuda_op_mul_mat [llama-cpp-code]): a batch's split matrices are multiplied in
// chunks of MUL_MAT_SRC1_COL_STRIDE = 128 prompt tokens; in each chunk every GPU multiplies its rows at the same time as the
// others (2 FLOPs per element of its rows per token: the slowest GPU sets the time), the chunk's inputs go out to the other
// GPUs and their rows of the result come back (per token the bytes of a decode token, Plan.row_link_bytes: q8_1 or f32 in,
// f32 out) and it pays the round trips of a decode token (Plan.row_syncs at row_sync_seconds). The rest of each layer's
// FLOPs (attention, routed experts) run on its layer's GPU in turn. No constant is calibrated on row-split prefill rows:
// the prefill efficiency and row_sync_seconds are the other regimes', so every row-split prefill row checks the model.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "planner/planner.h"

namespace vl {

// Dual-channel DDR5-5600: 2 channels * 8 bytes * 5600e6 transfers/s = 89.6e9 B/s [jedec-ddr5].
inline constexpr double kDefaultRamBandwidth = 2 * 8 * 5600e6;
// A desktop CPU's FP32 peak: 8 cores * 2 FMA units * 8 lanes (AVX2) * 2 FLOPs * 4e9 Hz = 1.024e12
// FLOP/s [intel-optimization-manual].
inline constexpr double kDefaultCpuFlops = 8.0 * 2 * 8 * 2 * 4e9;
// PCIe 4.0 x16: 16 GT/s * 16 lanes * 128/130 encoding / 8 bits = 31.5e9 B/s [pcie-4-spec].
inline constexpr double kPcie4x16Bandwidth = 16e9 * 16 * 128.0 / 130.0 / 8;

// An Apple M-series chip's unified memory bandwidth, from Apple's spec pages [apple-chip-specs], and its GPU: cores and
// clock. A chip sold with several GPU core counts is listed once per count: the plain id is the full GPU, "-Nc" a smaller one.
struct AppleChip {
    const char* id;           // "m2-max"
    const char* name;         // "Apple M2 Max (38-core GPU)"
    double memory_bandwidth;  // bytes/s
    int gpu_cores = 0;
    double gpu_clock_hz = 0;  // the GPU's peak clock [apple-gpu-clocks]
};
// FP32 ALUs per Apple GPU core (Apple7 onward; FP16 runs at the same rate, so this is also its FP16 figure) [apple-gpu-alus].
inline constexpr int kAppleGpuAlusPerCore = 128;
// The GPU's peak FP32 (= FP16) FLOP/s: cores * 128 ALUs * 2 FLOPs per FMA * clock [apple-gpu-alus].
double apple_gpu_flops(const AppleChip& c);
const std::vector<AppleChip>& apple_chips();
const AppleChip* find_apple_chip(const std::string& id);
std::string apple_chip_ids();  // "m1, m1-pro, ..." for messages

// One regime's calibrated efficiency (measured / roofline) and its error band on the held-back
// third of the benchmark table: the median and the worst |predicted - measured| / measured.
struct Regime {
    double efficiency = 1;
    double holdout_median_error = 0, holdout_worst_error = 0;
};
struct SpeedCalibration {
    Regime decode_gpu;        // a discrete GPU's decode
    Regime decode_cpu_apple;  // the CPU's and an Apple GPU's decode (system / unified memory)
    Regime prefill;           // prefill on a discrete GPU or the CPU
    Regime prefill_apple;     // prefill on an Apple GPU (Metal), at apple_gpu_flops; calibrated on [llama-cpp-apple-bench]
    // --split-mode row over several GPUs: seconds per round trip of a split matrix (Plan.row_syncs), the median over
    // the calibrate rows of (1 / measured - the plan's time without it) / round trips; the GPUs stream at decode_gpu's
    // efficiency. decode_row holds its holdout band (its efficiency is not used).
    double row_sync_seconds = 0;
    Regime decode_row;
    Regime prefill_row;  // --split-mode row prefill: its band over every row (none calibrates; its efficiency is not used)
};
// The committed calibration (tests/speed_report.cpp recomputes it from the benchmark table and a test
// asserts the two agree).
SpeedCalibration speed_calibration();

struct SpeedInput {
    std::vector<double> gpu_bandwidth;  // bytes/s per GPU of the plan, in order (Apple: the chip's)
    std::vector<double> gpu_flops;      // dense FP16 FLOP/s per GPU (Apple: apple_gpu_flops); 0: not published (no prefill)
    double ram_bandwidth = kDefaultRamBandwidth;  // system RAM (Apple: the chip's unified bandwidth)
    double cpu_flops = kDefaultCpuFlops;
    double link_bandwidth = kPcie4x16Bandwidth;   // between devices (not used on Apple: one memory)
    SpeedCalibration calibration = speed_calibration();
};

struct DeviceSpeed {
    std::string name;
    double bytes_per_token = 0;    // weights the token uses + KV at the plan's context
    double decode_seconds = 0;     // bytes_per_token / (efficiency * bandwidth)
    double split_seconds = 0;      // the part of decode_seconds spent on its rows of the split matrices (--split-mode row),
                                   // at the same time as the other GPUs' rows
    double flops_per_token = 0;    // prefill FLOPs per prompt token on this device (--split-mode row: its rows of the split
                                   // matrices, not the whole matrices of its layers)
    double prefill_seconds = 0;    // per prompt token; 0 when the device has no FLOP/s figure
    double split_prefill_seconds = 0;  // the part of prefill_seconds spent on its rows of the split matrices (--split-mode
                                       // row), at the same time as the other GPUs' rows
};

struct Speed {
    std::string error;              // bad input: names the field and how to fix it
    std::vector<DeviceSpeed> devices;  // GPUs in order, then the CPU
    int64_t hops = 0;               // device boundaries a token crosses
    double hop_seconds = 0;         // per boundary
    double row_sync_seconds = 0;    // --split-mode row: the split matrices' round trips per token (fixed time + activations)
    double prefill_row_sync_seconds = 0;  // --split-mode row, per prompt token: a chunk's round trips over its tokens, and
                                          // the activations
    double decode_tokens_per_s = 0;
    double prefill_tokens_per_s = 0;  // 0: a device with layers has no FLOP/s figure (prefill_note says which)
    double time_to_first_token_s = 0; // the plan's context as the prompt, then one decoded token
    std::string prefill_note;
    Regime decode_band;             // the regime of the device that takes longest per token
    Regime prefill_band;            // prefill's regime (--split-mode row, Apple: their own)
    bool ok() const { return error.empty(); }
};

// Seconds to stream `bytes` at `efficiency` of `bandwidth` (bytes/s).
double roofline_seconds(double bytes, double bandwidth, double efficiency);
// Weight bytes a token reads: all but the routed experts' (1 - top_k / num_experts) share.
double active_weight_bytes(double weight_bytes, double routed_expert_bytes, int top_k, int num_experts);
// Prefill FLOPs per token: 2 * active params + 4 * layers * ctx * d_attn.
double prefill_flops_per_token(double active_params, int64_t layers, int64_t ctx, int64_t d_attn);
// One hidden-state vector (fp32) over the link.
double hop_seconds(int64_t hidden, double link_bandwidth);
// MUL_MAT_SRC1_COL_STRIDE (ggml-cuda [llama-cpp-code]): a split matrix multiplies a batch in chunks of this many tokens.
inline constexpr int64_t kRowSplitChunkTokens = 128;
// --split-mode row, per token: `row_syncs` round trips of `sync_seconds` shared by the `tokens_per_trip` tokens each carries
// (decode 1; prefill a chunk), and `link_bytes` of activations over the link.
double row_round_trip_seconds(int64_t row_syncs, double sync_seconds, int64_t tokens_per_trip, double link_bytes, double link_bandwidth);

// The speed of plan `p` (made by place_llamacpp / plan_llamacpp from `in`).
Speed plan_speed(const PlanInput& in, const Plan& p, const SpeedInput& s);

}  // namespace vl
