// Weights by storage format (issue 5): bits per weight of each format, including its scales and
// zeros, and which tensors each format keeps in higher precision.
#pragma once
#include <cstdint>

#include "estimate.h"

namespace vl {

// GGML tensor types that the GGUF formats below are made of.
enum class GgmlType { F32, F16, Q8_0, Q6_K, Q5_K, Q4_K, Q3_K, Q2_K, Q4_0 };
double ggml_bits_per_weight(GgmlType t);

bool is_gguf(WeightFormat f);
bool is_bitsandbytes(WeightFormat f);   // INT8 (LLM.int8), NF4, FP4
const char* weight_format_name(WeightFormat f);

// Bits per weight of a quantized linear weight in format f (data + scales + zeros). GGUF mixes
// answer their base type (Q4_K_M -> Q4_K); the per-tensor mix lives in stage_weight_bytes.
// `in_features` matters only for LLM.int8 (one fp32 scale per output row).
double linear_bits_per_weight(const InferenceOptions& o, int64_t in_features);

// Weight bytes on one rank, by tensor class.
struct WeightBytes {
    double linear = 0;     // matrices of the transformer layers (attention, MLP, experts)
    double embedding = 0;  // token (+ position) embedding
    double lm_head = 0;    // output head (a copy of the embedding when tied and pp > 1)
    double other = 0;      // norms (and the final norm)
    double total() const { return linear + embedding + lm_head + other; }
};

// Weights held by pipeline stage `stage` on one tensor-/expert-parallel rank.
WeightBytes stage_weight_bytes(const ModelSpec& m, const ParamCounts& pc, const InferenceOptions& o,
                               const Parallelism& par, int64_t stage);

// The formula text and citation of format f (for Components).
const char* weight_format_formula(WeightFormat f);
const char* weight_format_source(WeightFormat f);

}  // namespace vl
