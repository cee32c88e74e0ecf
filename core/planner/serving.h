// Serving planner (issue 19, item 3): how vLLM runs a model on a set of equal GPUs: the tensor- and
// pipeline-parallel sizes, the paged KV pool (blocks per GPU, tokens, concurrent sequences at
// --max-model-len) and whether --max-model-len fits at all; the launch line. Pure: a
// ServingPlanInput in, a ServingPlan out. The memory is the core's vLLM estimate
// (core/inference/inference.cpp estimate_vllm), not a second model of it.
//
// vLLM's rules enforced here [vllm-code]:
//   - tensor_parallel_size * pipeline_parallel_size = the GPUs used (the world size);
//   - ModelConfig.verify_with_parallel_config: num_attention_heads % tp == 0;
//   - QKVParallelLinear: num_key_value_heads % tp == 0 when tp < kv heads, else tp % kv heads == 0
//     (each KV head replicated on tp / kv_heads ranks); MLA models cache one latent, no KV heads rule;
//   - pipeline_parallel_size <= num_hidden_layers;
//   - max_model_len <= max_position_embeddings (the derived limit);
//   - the engine refuses to start when one sequence of max_model_len does not fit in the KV pool
//     (block_size * num_gpu_blocks < max_model_len: "The model's max seq len ... is larger than the
//     maximum number of tokens that can be stored in KV cache").
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model_spec.h"
#include "planner/planner.h"
#include "scenario.h"

namespace vl {

struct ServingPlanInput {
    ModelSpec model;
    WeightFormat weights = WeightFormat::BF16;  // bf16 | fp16 (--dtype), fp8 | gptq-4bit | gptq-8bit | awq-4bit (--quantization)
    KvDtype kv = KvDtype::BF16;                 // --kv-cache-dtype auto (the model's 16-bit dtype) or fp8
    std::vector<PlanGpu> gpus;                  // equal GPUs; memory_bytes as torch reports the total
    int64_t max_model_len = 0;                  // --max-model-len; 0: the model's max_position_embeddings
    double gpu_memory_utilization = 0.9;        // --gpu-memory-utilization
    int64_t max_num_seqs = 256;                 // --max-num-seqs
    int64_t tp = 0, pp = 0;                     // 0: chosen (the largest tp vLLM accepts, pp = GPUs / tp)
};

struct ServingPlan {
    std::string error;              // bad input: names the field and how to fix it
    int64_t tp = 0, pp = 0;
    std::string parallel_reason;    // why this tp / pp
    int64_t max_model_len = 0;
    // Per GPU (the limiting pipeline stage's GPU; estimate_vllm's numbers):
    double capacity = 0;            // gpu_memory_utilization * GPU memory
    double weights = 0, non_torch = 0, activation = 0;
    double kv_bytes_per_token = 0;  // this GPU's share of one token's KV (its layers, its KV heads)
    double kv_pool = 0;             // bytes of this GPU's KV pool
    int64_t block_size = 0;
    int64_t blocks = 0;             // num_gpu_blocks: every GPU holds this many blocks (of its share)
    int64_t tokens = 0;             // blocks * block_size: tokens the whole pool holds
    int64_t sequences = 0;          // concurrent sequences of max_model_len: blocks / ceil(len / block_size)
    double kv_pool_total = 0;       // kv_pool over all tp * pp GPUs
    bool fits = false;              // the engine starts: one sequence of max_model_len fits in the pool
    int64_t largest_max_model_len = 0;  // the longest --max-model-len that would start; 0: none
    std::string advice;             // when it does not fit: the changes that would
    bool ok() const { return error.empty(); }
};

// "" when vLLM accepts this tensor-parallel size for the model, else why not (naming the rule).
std::string vllm_tp_rule(const ModelSpec& m, int64_t tp);

ServingPlan plan_vllm(const ServingPlanInput& in);

// `vllm serve MODEL_ID --tensor-parallel-size N [--pipeline-parallel-size P] --max-model-len L
// --gpu-memory-utilization U [--dtype float16] [--quantization Q] [--kv-cache-dtype fp8]
// [--max-num-seqs S]` for a plan that is ok().
std::string vllm_launch_line(const ServingPlanInput& in, const ServingPlan& p, const std::string& model_id);

}  // namespace vl
