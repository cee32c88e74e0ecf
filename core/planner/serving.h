// Serving planner (issue 19, item 3): how vLLM or SGLang runs a model on a set of equal GPUs: the
// tensor- and pipeline-parallel sizes, the KV pool (blocks per GPU, tokens, concurrent sequences at
// the maximum length) and whether that length fits at all; the launch line. Pure: a
// ServingPlanInput in, a ServingPlan out. vLLM's memory is the core's vLLM estimate
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
//
// SGLang [sglang-code] takes the same tensor-parallel rules (its linear layers are vLLM's) and sizes
// its pool without a profile run (model_runner.profile_max_num_token):
//   max_total_num_tokens = floor((free_after_load - free_before_load * (1 - mem_fraction_static)) / cell_size)
// with free_after_load = free_before_load - weights, so the pool is mem_fraction_static of the free
// memory less the weights, and (1 - mem_fraction_static) of it is left for activations and CUDA
// graphs; cell_size is one token's KV on one rank, page size 1. It starts with any context_length
// but serves at most min(context_length, max_total_num_tokens) - 1 tokens a request (scheduler
// max_req_len), and refuses to start when that leaves no room ("Memory pool size is too small").
// Planned here with tp = the GPUs (pipeline parallelism is not). Checked against SGLang's log of
// Qwen3-235B-A22B-FP8 on 4 H100s (367404 tokens) [vllm-issue-21348].
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model_spec.h"
#include "planner/planner.h"
#include "scenario.h"

namespace vl {

enum class ServingEngine { VLLM, SGLang };

struct ServingPlanInput {
    ServingEngine engine = ServingEngine::VLLM;
    ModelSpec model;
    WeightFormat weights = WeightFormat::BF16;  // bf16 | fp16 (--dtype), fp8 | gptq-4bit | gptq-8bit | awq-4bit (--quantization)
    KvDtype kv = KvDtype::BF16;                 // --kv-cache-dtype auto (the model's 16-bit dtype) or fp8
    std::vector<PlanGpu> gpus;                  // equal GPUs; memory_bytes as torch reports the total; reserve_bytes is
                                                // SGLang's CUDA context (vLLM counts its measured non-torch memory)
    int64_t max_model_len = 0;                  // --max-model-len (SGLang --context-length); 0: max_position_embeddings
    double gpu_memory_utilization = 0.9;        // --gpu-memory-utilization (SGLang --mem-fraction-static)
    int64_t max_num_seqs = 0;                   // --max-num-seqs (SGLang --max-running-requests); 0: the engine's default
    std::string vllm_version = "0.21";          // vLLM: the release whose memory budget applies (infer.vllm_version)
    double engine_overhead_bytes = -1;          // vLLM: non-torch memory in the budget when known (infer.engine_overhead_bytes)
    int64_t tp = 0, pp = 0;                     // 0: chosen (the largest tp vLLM accepts, pp = GPUs / tp)
};

struct ServingPlan {
    std::string error;              // bad input: names the field and how to fix it
    int64_t tp = 0, pp = 0;
    std::string parallel_reason;    // why this tp / pp
    int64_t max_model_len = 0;
    // Per GPU (the limiting pipeline stage's GPU; estimate_vllm's numbers):
    double capacity = 0;            // vLLM: gpu_memory_utilization * GPU memory; SGLang: mem_fraction_static * free before load
    double weights = 0;
    double non_torch = 0;           // vLLM: non-torch memory; SGLang: the CUDA context taken before the free-memory snapshot
    double activation = 0;          // vLLM: the profile run's peak; SGLang: the (1 - mem_fraction_static) share left for it
    double kv_bytes_per_token = 0;  // this GPU's share of one token's KV (its layers, its KV heads)
    double kv_pool = 0;             // bytes of this GPU's KV pool
    int64_t block_size = 0;         // vLLM 16; SGLang's page of 1 token
    int64_t blocks = 0;             // num_gpu_blocks: every GPU holds this many blocks (of its share)
    int64_t tokens = 0;             // blocks * block_size: tokens the whole pool holds
    int64_t sequences = 0;          // sequences of max_model_len the pool holds: blocks / ceil(len / block_size)
    int64_t concurrent = 0;         // of them, how many run at once: at most max_num_seqs
    // The cap on sequences at once: as given, else the engine's default (vLLM's by release and GPU, runtime.h
    // vllm_max_num_seqs); 0: none besides the pool (SGLang's default max_running_requests follows its pool).
    int64_t max_num_seqs = 0;
    double kv_pool_total = 0;       // kv_pool over all tp * pp GPUs
    bool fits = false;              // one sequence of max_model_len fits in the pool (vLLM refuses to start otherwise)
    int64_t largest_max_model_len = 0;  // the longest --max-model-len that would start; 0: none
    std::string advice;             // when it does not fit: the changes that would
    bool ok() const { return error.empty(); }
};

const char* serving_engine_name(ServingEngine e);  // "vLLM", "SGLang"

// The weight formats planned here: bf16, fp16, fp8, gptq-4bit, gptq-8bit, awq-4bit.
bool served_weights(WeightFormat w);

// "" when the engine accepts this tensor-parallel size for the model, else why not (naming the rule).
std::string tp_rule(const ModelSpec& m, int64_t tp, ServingEngine e = ServingEngine::VLLM);

ServingPlan plan_serving(const ServingPlanInput& in);

// For a plan that is ok(): `vllm serve MODEL_ID --tensor-parallel-size N [--pipeline-parallel-size P]
// --max-model-len L --gpu-memory-utilization U [--dtype float16] [--quantization Q]
// [--kv-cache-dtype fp8] [--max-num-seqs S]`, or `python -m sglang.launch_server --model-path
// MODEL_ID --tp N --context-length L --mem-fraction-static U [...] [--kv-cache-dtype fp8_e4m3]
// [--max-running-requests S]`.
std::string serving_launch_line(const ServingPlanInput& in, const ServingPlan& p, const std::string& model_id);

}  // namespace vl
