// Scenario: everything estimate() needs, as plain data. The web UI, the CLI, share links and tests
// all build one of these; nothing else flows into the core.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model_spec.h"
#include "planner/vision_encoder.h"

namespace vl {

// Local: "run it on my machine" (issue 19): a placement plan (core/planner/local.h plan_local()),
// not an estimate; estimate() of a Local scenario returns an error naming "mode".
enum class Mode { Train, FineTune, Infer, Local };

// ---- training -----------------------------------------------------------------------------
// Who holds which dtype [llm-gpu-memory-2025] [transformer-series5 §3.1] [zero2020 §3.1].
enum class Precision {
    FP32,        // fp32 weights, grads, states                                        (16 B/param with Adam)
    MixedFP16,   // fp16 weights+grads, fp32 master + states                           (16 B)
    MixedBF16,   // bf16 weights+grads, fp32 master + states                           (16 B)
    PureBF16,    // bf16 everywhere, no master copy
    FP8,         // Transformer-Engine style: fp8 compute copies on top of bf16 mixed
    // PyTorch autocast over fp32 weights, as transformers' Trainer runs fp16=True / bf16=True on a model
    // loaded in fp32: fp32 weights, grads and states (16 B/param with Adam), 16-bit copies of the matmul
    // weights made in forward and saved for backward, fp32 residual stream and norms [pytorch-autocast-code]
    AutocastFP16,
    AutocastBF16,
    // FSDP MixedPrecision(param_dtype=bf16) over fp32 parameters (Accelerate/Trainer bf16 with FSDP on a model
    // loaded in fp32): each rank stores its fp32 shard (weights, grads, states: no separate master copy) and
    // FSDP casts a unit's shard to bf16 before the all-gather, so the gathered unit, its unsharded gradients
    // and the compute are bf16 [pytorch-fsdp-code]. Needs parallel.zero 3 (FULL_SHARD).
    FsdpBF16,
};

enum class Optimizer { SGD, SGDMomentum, AdamW, Adam8bit, Adafactor, Lion, Custom };

enum class Recompute { None, Selective, Full, EveryK };

enum class PipelineSchedule { OneFOneB, Interleaved, GPipe };

// How the causal-LM loss is computed over the b x s x V logits (core/training/activations.cpp add_loss).
enum class LossImpl {
    Upcast,       // transformers ForCausalLMLoss: 16-bit logits, an fp32 copy, log_softmax in fp32 [transformers-code]
    UpcastShift,  // the same plus a contiguous copy of the shifted logits (transformers before PR #35646) [transformers-pr35646]
    Fused,        // fused linear cross-entropy (Liger-Kernel): logits one chunk of rows at a time [liger-kernel-code]
    Megatron,     // Megatron-Core vocab_parallel_cross_entropy: an fp32 copy made softmax in place, saved, the gradient written into it [megatron-cross-entropy-code]
};

// Which published accounting to follow. None: our tensor-by-tensor model (the default). The
// others reproduce a tool's own numbers, assumptions included (core/training/DERIVATION.md §5).
enum class Compat {
    None,
    Megatron,            // Megatron-LM megatron/training/theoretical_memory_usage.py [megatron-theoretical-memory]
    DeepSpeedEstimator,  // deepspeed estimate_zero2/zero3_model_states_mem_needs (model states only) [deepspeed-memory]
    Accelerate,          // accelerate estimate-memory "Training using Adam" (per-phase maxima) [accelerate-estimate]
};

// Named activation formulas; each reproduces its source's worked example (keys: docs/sources.md).
enum class ActivationFormula {
    TensorWalk,        // default: every tensor autograd saves, per layer (Korthikanti Table 2 generalised)
    Korthikanti,       // sbh(34 + 5as/h) and Table 2's TP/SP/recompute rows, GPT-style [korthikanti2022]
    PerLayerBytes,     // 11bsd + 5bhs^2 (attention) + 19bsd (MLP) bytes per layer, no norms [transformer-series5 §2]
    PerLayerElements,  // (16bsd + 2bhs^2) elements per layer x activation bytes [llm-gpu-memory-2025]
    Coefficient,       // C x L x b x s x h x bytes [makinaruto2025]; C = 12 [zero2020 §3.2]; C = 1 [estimate-gpu-memory-2024]
};

// Dtype of the optimizer states; Auto = fp32 for FP32/mixed/FP8, bf16 for PureBF16.
enum class StateDtype { Auto, FP32, BF16 };

// How torch.optim.AdamW runs its step (fused=, foreach= [pytorch-adam-code]). Foreach (`_multi_tensor_adam`, PyTorch's
// default on CUDA when neither flag is given) makes sqrt(v) as new tensors for a whole (device, dtype) group: one
// state-sized temporary at the step. ForLoop (`_single_tensor_adam`, foreach=False; transformers' own "adamw_hf" loops
// the same way) makes them one parameter at a time: two of the largest tensor. Fused (`torch._fused_adam_`,
// transformers' Trainer default with torch >= 2.8, and the fused Adams of DeepSpeed and Megatron) updates in place.
// Auto: Foreach where the step is plain PyTorch's torch.optim.AdamW on the GPU (the fp32, autocast, pure-bf16,
// FSDP-bf16 regimes and adapters), Fused otherwise.
enum class OptimizerImpl { Auto, Foreach, Fused, ForLoop };

// Which code runs a state-space mixer in transformers, prefill or training (each mixer's forward picks per layer): Torch, the
// plain PyTorch paths that run when the optional kernels are not installed (a plain `pip install transformers torch`):
// MambaMixer.slow_forward, Mamba2Mixer.torch_forward, torch_chunk_gated_delta_rule; Fused, cuda_kernels_forward with
// mamba-ssm + causal-conv1d (Mamba, Mamba2) or flash-linear-attention + causal-conv1d (Gated DeltaNet)
// [transformers-code]. Other engines run their own kernels whatever this says.
enum class SsmKernels { Torch, Fused };

// What trains of a vision-language model's vision tower and projector (ModelSpec::vision): Frozen, both frozen (LLaMA-Factory's
// default: freeze_vision_tower and freeze_multi_modal_projector true); Projector, the projector trained (with adapters, as a
// PEFT modules_to_save copy); All, tower and projector trained (full training only) [llamafactory-vlm]; Lora (LoRA / QLoRA
// only), LoRA adapters of the language model's rank and targets on the tower's attention and MLP linears too, the tower and
// projector frozen otherwise (Unsloth FastVisionModel.get_peft_model finetune_vision_layers=True [unsloth-notebooks]; ms-swift
// freeze_vit false with LoRA [ms-swift-examples]; LLaMA-Factory freeze_vision_tower false with LoRA [llamafactory-vlm]).
enum class VisionTraining { Frozen, Projector, All, Lora };

// QLoRA on a vision-language model: which of the frozen tower's and projector's nn.Linear weights bitsandbytes' 4-bit load
// converts to Linear4bit (NF4 with its block constants, as the language model's). All: transformers' BitsAndBytesConfig
// without llm_int8_skip_modules keeps only get_keys_to_not_convert's modules (the output head, tied weights) and
// _keep_in_fp32_modules, so the tower's and projector's linears are converted too [transformers-bnb-skip] (Unsloth's
// FastVisionModel before December 2024 [unsloth-vision-quant]); Tower: the tower's converted, the projector kept 16-bit
// (Unsloth's SKIP_QUANTIZATION_MODULES lm_head, multi_modal_projector, merger, modality_projection, from December 2024, and
// the plain -bnb-4bit checkpoints made with it [unsloth-vision-quant]); None: both kept 16-bit (a skip list naming the tower,
// e.g. "vision_tower", Unsloth's for Gemma 3 from February 2026). A trained projector is never converted (a Linear4bit's
// uint8 weight cannot train).
enum class VisionQuant { All, Tower, None };

// What runs a MoE layer whose routed experts are 3-D parameters (gpt-oss's GptOssExperts: gate_up_proj [E, d, 2I],
// down_proj [E, I, d]) in training (core/training/moe_experts.h). Loop: transformers' own training path, a loop over the
// experts that got tokens, each indexing gate_up_proj[e] and down_proj[e], whose backward (IndexBackward: zeros of the
// whole parameter, index_put) makes a full-size gradient per expert visited [transformers-code] [pytorch-index-backward];
// Grouped: one kernel over every expert (kernels-community MegaBlocks through transformers' use_kernels, a bmm over the
// binned tokens), whose backward makes each weight's gradient once [megablocks-kernels-code].
enum class MoeExperts { Loop, Grouped };

struct TrainingOptions {
    Precision precision = Precision::MixedBF16;
    bool fp32_grad_accum = false;    // mixed: fp32 gradient accumulation buffer (18 B/param) [llm-gpu-memory-2025]
    bool fp32_grad_copy = false;     // mixed: extra fp32 copy of the grads at the step (20 B/param) [transformer-series5 §3.1]
    Optimizer optimizer = Optimizer::AdamW;
    double custom_optimizer_bytes_per_param = 8.0;  // Optimizer::Custom
    int64_t micro_batch = 1;         // b
    int64_t seq_len = 2048;          // s (an encoder-decoder: the encoder's source tokens)
    int64_t target_len = 0;          // an encoder-decoder's decoder tokens (labels); 0: as many as seq_len
    int64_t grad_accum_steps = 1;
    Recompute recompute = Recompute::None;
    int recompute_every_k = 1;       // Recompute::EveryK: checkpoint 1 layer in k
    bool offload_checkpoints = false;  // the checkpointed layer inputs go to host RAM in forward and come back one at a
                                       // time in backward (Unsloth's offloaded gradient checkpointing) [unsloth-offload]
    // MoE token dropping (Megatron-LM --moe-expert-capacity-factor, --moe-pad-expert-input-to-capacity):
    // each expert takes at most ceil(tokens * top_k / experts * factor) tokens [megatron-moe]; 0: dropless.
    double moe_expert_capacity_factor = 0;
    bool moe_pad_expert_input_to_capacity = false;  // every expert's input padded to its capacity
    bool flash_attention = true;     // FlashAttention/SDPA: no s^2 scores kept
    double dropout = 0.0;            // > 0 keeps 1-byte masks
    bool fp32_logits = true;         // logits + loss kept in fp32 (b*s*V*4)
    LossImpl loss = LossImpl::Upcast;  // how the loss is computed over the logits
    // ---- published accounting to follow, activation formula variants, optimizer state dtype ----
    Compat compat = Compat::None;
    ActivationFormula activation_formula = ActivationFormula::TensorWalk;
    double activation_coefficient = 12.0;   // ActivationFormula::Coefficient: C ([zero2020 §3.2] footnote: 12; [makinaruto2025]: 10-15)
    StateDtype optimizer_state_dtype = StateDtype::Auto;
    OptimizerImpl optimizer_impl = OptimizerImpl::Auto;  // AdamW only: foreach adds a state-sized sqrt(v) at the step
    bool extra_fp32_weight_copy = false;    // FP32 regime: a separate fp32 weight copy for the step (24 B/param) [transformer-series5 §3.1]
    double attention_dropout = -1;          // < 0: same as dropout; attention-probability dropout keeps s^2 masks
    int64_t params_only_largest_layer = 0;  // params-only models: largest layer's params (ZeRO-3 gather; DeepSpeed's
                                            // largest_layer_params); 0 = unknown (no gather buffer, with a warning)
    // The training loop keeps the model's logits referenced through backward (`logits = model(x)` in the loop's
    // scope, as LitGPT's finetune scripts do [litgpt-code]); transformers' Trainer drops the outputs before backward.
    bool loop_holds_logits = false;
    // PyTorch before 1.11: softmax's and log_softmax's backward read their input as well as their output, so autograd saved
    // both (PR #65242 stopped saving the input) [pytorch-pr65242]: eager attention's s x s scores and the loss's logits.
    bool softmax_saves_input = false;
    // transformers: the state-space mixers' path in training, torch (the default, no kernels installed) or fused
    SsmKernels ssm_kernels = SsmKernels::Torch;
    // transformers: a MoE layer with 3-D expert parameters runs its per-expert loop (the default) or a grouped kernel
    MoeExperts moe_experts = MoeExperts::Loop;
    // ---- a vision-language model's images (model.vision; core/model/image_tokens.h) ----
    int64_t images = 0;             // images in each training sample; their tokens join its sequence (seq_len text tokens + these)
    int64_t image_width = 1024;     // pixels, every image (a dynamic-resolution tower's tokens follow its size)
    int64_t image_height = 1024;
    VisionTraining vision = VisionTraining::Frozen;  // what trains of the vision tower and projector
    // optimizer.zero_grad(set_to_none=True), PyTorch's default from 2.0: each step's gradients are allocated in
    // backward and freed after the step. false (PyTorch before 2.0; transformers' Trainer called model.zero_grad()):
    // the .grad tensors are zeroed in place and stay allocated from the first step on, through forward too
    // [pytorch-zero-grad].
    bool zero_grad_set_to_none = true;
    // The PyTorch release of a multi-GPU run (torch.__version__): its pip wheel's NCCL sizes and connects the process
    // groups' communicators (core/nccl.h pytorch_nccl: before 2.22 ring, tree and NVLS at creation, later lazily).
    std::string torch_version = "2.8";
};

// ---- fine-tuning ----------------------------------------------------------------------------
enum class FineTuneMethod { Full, LoRA, QLoRA };

// LoRA target modules as bits (PEFT names).
enum LoraTarget : unsigned {
    kLoraQ = 1u << 0, kLoraK = 1u << 1, kLoraV = 1u << 2, kLoraO = 1u << 3,
    kLoraGate = 1u << 4, kLoraUp = 1u << 5, kLoraDown = 1u << 6,
    // a Mamba mixer's nn.Linear layers (MambaMixer / Mamba2Mixer and their copies in Jamba, Falcon-H1, Nemotron-H,
    // Granite-4.0-H): Mamba2 has in_proj and out_proj only [transformers-code]
    kLoraInProj = 1u << 7, kLoraXProj = 1u << 8, kLoraDtProj = 1u << 9, kLoraOutProj = 1u << 10,
    // an MoE layer's router where it is an nn.Linear (Mixtral's block_sparse_moe.gate, Qwen2/3-MoE's and Qwen3-Next's
    // mlp.gate and shared_expert_gate, Jamba's router, Granite-4.0-H's router.layer; layer_tensors.h router_is_linear). No
    // name of its own (each family names it differently): only "all-linear" selects it [peft-all-linear-code].
    kLoraRouter = 1u << 11,
    // a Gated DeltaNet mixer's input projections (Qwen3NextGatedDeltaNet: in_proj_qkvz, in_proj_ba; Qwen3.5 splits them into
    // in_proj_qkv, in_proj_z, in_proj_b, in_proj_a); its out_proj is kLoraOutProj's name [transformers-code]
    kLoraInProjQkvz = 1u << 12, kLoraInProjBa = 1u << 13,
    kLoraInProjQkv = 1u << 14, kLoraInProjZ = 1u << 15, kLoraInProjB = 1u << 16, kLoraInProjA = 1u << 17,
    kLoraGdnIn = kLoraInProjQkvz | kLoraInProjBa | kLoraInProjQkv | kLoraInProjZ | kLoraInProjB | kLoraInProjA,
    kLoraAttention = kLoraQ | kLoraK | kLoraV | kLoraO,
    kLoraMlp = kLoraGate | kLoraUp | kLoraDown,
    kLoraSsm = kLoraInProj | kLoraXProj | kLoraDtProj | kLoraOutProj,
    // PEFT "all-linear": every nn.Linear but the output head, the routers' too [peft-all-linear-code]
    kLoraAllLinear = kLoraAttention | kLoraMlp | kLoraSsm | kLoraGdnIn | kLoraRouter,
};

struct FineTuneOptions {
    FineTuneMethod method = FineTuneMethod::LoRA;
    int64_t lora_rank = 16;
    unsigned lora_targets = kLoraQ | kLoraV;   // PEFT's default for llama
    bool double_quant = true;                  // QLoRA: quantize the NF4 absmax constants too
    bool paged_optimizer = true;               // QLoRA: paged AdamW (states may spill to host)
    // ---- adapter dtype and dropout, quantization block sizes ----
    bool adapters_fp32 = true;                 // PEFT autocast_adapter_dtype: adapters kept in fp32 (else base dtype)
    double lora_dropout = 0.0;                 // PEFT LoraConfig default 0.0; > 0 keeps a masked copy of each adapted input
    int64_t quant_block = 64;                  // QLoRA NF4 block size [qlora2023 §3]
    int64_t quant_block2 = 256;                // QLoRA double-quantization block of the absmax constants
    // PEFT modules_to_save: a trainable full copy of the module (its weights, gradients and optimizer
    // states) beside the frozen original (ModulesToSaveWrapper [peft-code]).
    bool save_embedding = false;               // modules_to_save "embed_tokens" (GPT-2 / Qwen v1: "wte")
    bool save_lm_head = false;                 // modules_to_save "lm_head"
    // QLoRA with bitsandbytes before 0.43.2: MatMul4Bit saved each 4-bit layer's input for backward
    // although the frozen weight needs no gradient (removed by bitsandbytes PR #1270) [bnb-pr1270].
    bool bnb_saves_inputs = false;
    // QLoRA through Lightning Fabric's BitsandbytesPrecision (Lit-GPT finetune/lora.py --quantize): every torch.nn.Linear
    // is swapped, the output head's too, where PEFT/transformers keep lm_head 16-bit [lightning-bnb-plugin].
    bool bnb_quantize_head = false;
    VisionQuant vision_quant = VisionQuant::All;  // QLoRA: the vision tower's and projector's linears converted to NF4
    // bitsandbytes before 0.43.0 and Fabric's plugin quantize an fp16 copy: MatMul4Bit's dequantized fp16 weight is cast
    // to the bf16 compute dtype, both copies alive at once [bitsandbytes-041-code].
    bool bnb_fp16_quant_state = false;
    // Lit-GPT's LoRAQKVLinear: the q/k/v adapters are one module over the fused qkv Linear, so one dropout covers the shared
    // input, and when not all of q, k and v are adapted zero_pad's index_copy saves the adapters' output [litgpt-lora-code].
    bool lora_fused_qkv = false;
    // PEFT target_parameters on a model whose routed experts are 3-D parameters (gpt-oss): LoRA on gate_up_proj and
    // down_proj of the experts of the last N MoE layers (ParamWrapper: lora_A [r x E, in], lora_B [out, r x E], the
    // whole delta weight materialised at every forward) [peft-paramwrapper-code]; 0: none (lora_targets name nn.Linear
    // modules only, which these experts are not).
    int64_t lora_expert_layers = 0;
};

// ---- inference ------------------------------------------------------------------------------

enum class KvDtype { FP16, BF16, FP8, INT8, INT4 };

// TEI: Hugging Face text-embeddings-inference, the embedding / reranker server (encoders and embedders only).
enum class Engine { Transformers, VLLM, LlamaCpp, TEI };

// llama.cpp's compute buffer is ggml-alloc's plan for one ubatch graph, and the plan depends on the
// backend: CUDA computes the softmax in place and keeps the f32 mask; the CANN plan keeps KQ and
// softmax(KQ) both (core/inference/runtime.h llamacpp_compute_bytes).
enum class LlamaCppBackend { CUDA, CANN };

// What an MLA model (DeepSeek-V2/V3) caches per token: the compressed latent c_KV + the RoPE key
// (vLLM, llama.cpp, Transformers >= 5 native deepseek_v2/deepseek_v3), or the decompressed per-head
// K and V that the older remote-code DeepSeek modelling files (trust_remote_code) put in the cache.
enum class MlaCache { Latent, Decompressed };

// vLLM's MoE kernel for MXFP4 experts (gpt-oss), as vllm serve --moe-backend names it; each pads the experts
// to its own alignment at load (core/inference/vllm_moe.h). Auto: the one vLLM picks for the GPU and release.
enum class VllmMoeBackend { Auto, Marlin, Triton, FlashInferTrtllm, FlashInferCutlass };

// torch.autocast over fp32 weights in inference (Lightning Fabric's bf16-mixed / 16-mixed precision around
// each forward [lightning-amp-code]): each matmul casts its fp32 weight to 16 bits. Off: no autocast (the weights'
// own dtype computes). Cached: the weights require grad (nn.Parameter's default; generate scripts that
// never call requires_grad_(False)), so autocast caches every cast until the forward's autocast exits.
// PerOp: frozen weights (requires_grad=False) are not cached, each cast lives for its op only
// (aten/src/ATen/autocast_mode.cpp cached_cast [pytorch-autocast-code]). Needs infer.weights fp32.
enum class InferAutocast { Off, Cached, PerOp };

// vLLM --speculative-config's method (vllm/config/speculative.py SpeculativeConfig.method [vllm-spec-decode]):
// None: no speculative decoding; Draft: another, smaller model of the same vocabulary ("draft_model");
// Eagle / Eagle3: an EAGLE / EAGLE-3 head of one decoder layer over the target's hidden states; Mtp: the
// checkpoint's own multi-token-prediction layers; Ngram: prompt lookup, no weights.
enum class SpecMethod { None, Draft, Eagle, Eagle3, Mtp, Ngram };

// infer.speculative: vLLM's --speculative-config (core/inference/speculative.h says what each part costs).
struct Speculative {
    SpecMethod method = SpecMethod::None;
    std::string model;                   // method draft: the draft model's preset id
    int64_t num_speculative_tokens = 1;  // tokens drafted per step (k)
    int64_t draft_tensor_parallel_size = 0;  // 1 or the target's tp; 0: the target's tp (vLLM's default)
    bool operator==(const Speculative&) const = default;
};

inline constexpr int64_t kLlamaCppUbatch = 512;  // llama.cpp's default n_ubatch (-ub) [llama-cpp-server-flags]

struct InferenceOptions {
    WeightFormat weights = WeightFormat::BF16;
    int64_t group_size = 128;       // GPTQ/AWQ: weights sharing one scale and zero
    bool double_quant = false;      // NF4/FP4
    KvDtype kv_dtype = KvDtype::BF16;
    int64_t batch = 1;              // concurrent sequences
    int64_t context = 4096;         // tokens per sequence (prompt + generated)
    int64_t prefill_chunk = 0;      // 0: whole prompt at once
    Engine engine = Engine::Transformers;
    double gpu_memory_utilization = 0.9;  // vLLM
    int64_t block_size = 16;        // vLLM paged KV block, tokens
    bool cuda_graphs = true;        // vLLM
    bool flash_attention = true;    // false: eager attention (transformers attn_implementation="eager"; llama.cpp -fa off)
    // Sliding-window layers keep only the window: transformers >= 4.56 DynamicCache(config=...)
    // (DynamicSlidingWindowLayer), llama.cpp's SWA cache. false: every layer keeps every token
    // (transformers < 4.56 DynamicCache(), cache_implementation="dynamic_full", llama.cpp --swa-full).
    bool sliding_window_cache = true;
    int64_t logits_to_keep = 1;     // transformers: prefill logits of the last k positions; 0 = every position (older transformers)
    // transformers' SDPA path copies each layer's K and V to every query head before the kernel (repeat_kv): always before
    // PR #39412 (July 2025), and later whenever an attention mask is passed or torch < 2.5. Eager attention always does.
    bool sdpa_repeats_kv = false;
    // ---- prefill, batching and kernel settings of the engines ----
    int64_t prompt = 0;             // prompt tokens prefilled at once per sequence; 0 = context (worst case)
    int64_t target_len = 0;         // an encoder-decoder's generated (decoder) tokens, context being its source; 0 = context
    int64_t max_num_seqs = 0;       // vLLM --max-num-seqs (profile run samples this many sequences); 0 = vLLM's default for
                                    // the release and the GPU (runtime.h vllm_max_num_seqs)
    int64_t max_batched_tokens = 0; // vLLM --max-num-batched-tokens, TEI --max-batch-tokens; 0 = engine default
    int64_t ubatch = kLlamaCppUbatch;  // llama.cpp n_ubatch (physical batch of the compute graph)
    bool fp32_compute = false;      // bitsandbytes 4-bit compute dtype float32 (transformers' old default)
    // bitsandbytes through Lightning Fabric's BitsandbytesPrecision (or Lit-GPT's July 2023 quantization()): every
    // torch.nn.Linear is swapped, the output head too, where transformers keeps lm_head 16-bit [lightning-bnb-plugin].
    bool bnb_quantize_head = false;
    // bitsandbytes before 0.43.0 (Params4bit.cuda) and Fabric's plugin cast each weight to fp16 before quantize_4bit, so
    // dequantize_4bit returns fp16 and MatMul4Bit casts that to the 16-bit compute dtype: two copies of the weight
    // [lightning-bnb-plugin] [bitsandbytes-041-code].
    bool bnb_fp16_quant_state = false;
    // The model is quantized on the GPU before the checkpoint loads and each loaded weight is quantized again in place
    // (Fabric's _quantize_on_load_hook; Lit-GPT's InferenceLinear8bitLt._load_from_state_dict): while one weight loads,
    // its fp16 copy and the new quantized tensors lie beside the whole quantized model [lightning-bnb-plugin].
    bool bnb_requantize_on_load = false;
    // The checkpoint stores a tied output head as a tensor of its own (AutoAWQ <= 0.2.6 save_quantized clones every
    // state_dict entry, the tied lm_head.weight too), and transformers 4.x's from_pretrained puts every checkpoint key
    // the model lists on the GPU before tie_weights() frees the second copy: an embedding-sized load spike
    // [autoawq-code] [transformers-code].
    bool untied_head_on_load = false;
    double engine_overhead_bytes = -1;  // vLLM non-torch memory inside its budget, per GPU; < 0 = the release's rule
    // The vLLM release ("0.6.5", "0.11.2", ...): which memory its gpu_memory_utilization budget holds and
    // which lies beside it (core/inference/vllm_budget.h). Default: the rule of 0.21 and later.
    std::string vllm_version = "0.21";
    VllmMoeBackend vllm_moe_backend = VllmMoeBackend::Auto;  // vLLM: the MXFP4 MoE kernel (--moe-backend, VLLM_MXFP4_USE_MARLIN, ...)
    LlamaCppBackend llamacpp_backend = LlamaCppBackend::CUDA;  // llama.cpp: the backend whose compute buffer is planned
    // llama.cpp before PR #23764 (merged 2026-05-27): with flash attention the KQ mask input is f32 and cast to f16
    // on the GPU, both in the compute buffer at the cast (runtime.h llamacpp_mask_bytes); false: today's f16 input.
    bool llamacpp_fa_mask_cast = false;
    MlaCache mla_cache = MlaCache::Latent;  // MLA models: latent (current engines) or decompressed K/V (old remote code)
    InferAutocast autocast = InferAutocast::Off;  // 16-bit compute by torch.autocast over fp32 weights
    SsmKernels ssm_kernels = SsmKernels::Torch;   // transformers: the state-space mixers' path (torch or fused kernels)
    Speculative speculative{};      // vLLM --speculative-config (method none: off)
    // ---- images of a vision-language model (model.vision; core/model/image_tokens.h) ----
    int64_t images = 0;             // images in each sequence's prompt; their tokens join the sequence (KV, prefill)
    int64_t image_width = 1024;     // pixels, every image (a dynamic-resolution tower's tokens follow its size)
    int64_t image_height = 1024;
};

// ---- hardware and parallelism ---------------------------------------------------------------
struct Parallelism {
    int64_t dp = 1;                 // data-parallel ranks
    int64_t tp = 1;                 // tensor-parallel
    int64_t pp = 1;                 // pipeline stages
    int64_t cp = 1;                 // context-parallel
    int64_t ep = 1;                 // expert-parallel
    bool sp = false;                // sequence parallel (needs tp > 1)
    int zero = 0;                   // ZeRO stage 0..3 (FSDP full shard == 3)
    int64_t shard_group = 0;        // FSDP hybrid shard / ZeRO++ hpZ: shard within this many ranks; 0 = all dp
    PipelineSchedule schedule = PipelineSchedule::OneFOneB;
    int64_t virtual_stages = 1;     // interleaved 1F1B: model chunks per stage
    // Megatron's uneven pipeline split (--decoder-first-pipeline-num-layers / --decoder-last-pipeline-num-layers):
    // transformer layers on the first / last stage, the rest split evenly over the stages between; 0 = not given
    // (the even split) [megatron-pipeline-split]. Training only.
    int64_t first_stage_layers = 0;
    int64_t last_stage_layers = 0;
    bool offload_optimizer = false; // ZeRO-Offload: optimizer states (and fp32 master) on host
    bool offload_params = false;    // ZeRO-Infinity: parameters on host (needs zero 3)
    int64_t gpus_per_node = 8;      // DeepSpeed estimator host memory is per node
    bool zero_init = true;          // ZeRO-3 deepspeed.zero.Init: params partitioned as they are built, so the host
                                    // never holds a full fp32 model per GPU (DeepSpeed estimator's zero_init)
    // FSDP1 (FullyShardedDataParallel, use_orig_params=True): each wrapped unit's parameters are one flat
    // parameter, so a unit mixing frozen and trainable parameters (LoRA inside a wrapped block) gets a
    // gradient for all of them, as if nothing were frozen [pytorch-fsdp]. Needs zero 2 or 3.
    bool fsdp_flat_params = false;
    // Which FSDP runs zero 2/3 without DeepSpeed: 1 = FullyShardedDataParallel (flat parameters; Accelerate's
    // fsdp_version 1, Lightning Fabric's FSDPStrategy), 2 = fully_shard (per-parameter DTensor shards; torchtitan,
    // torchtune, Accelerate/Axolotl fsdp_version 2). FSDP2 reduce-scatters each unit's gradients from a buffer
    // kept until the next unit's reduce-scatter and has no DDP bucket; FSDP1 with offload_params copies a unit's
    // shard to the GPU before its all-gather [pytorch-fsdp-code].
    int fsdp_version = 1;
    // Accumulation micro-batches run without gradient synchronisation (FSDP/DDP no_sync(), Lightning
    // Fabric no_backward_sync, Accelerate accumulate()): FSDP keeps unsharded gradients until the
    // micro-batch that syncs [pytorch-fsdp]. Matters with zero 2 or 3 and train.grad_accum_steps > 1.
    bool no_sync_accumulation = false;
};

struct Gpu {
    std::string name = "H100 80GB";
    // A preset: nvidia-smi's memory.total (H100 80GB: 81559 MiB, 79.65 GiB). A GPU given by name and
    // memory (cuda_total_bytes 0): what CUDA reports, torch.cuda.mem_get_info()[1]. Default: the
    // H100 80GB HBM3 measured by this project, 85017493504 B = 79.18 GiB with driver 580.159.04
    // (tests/data/accuracy/gpu-runs/2026-11-26-h100) [cuda-mem-get-info].
    double memory_bytes = 85017493504.0;
    // What a CUDA process can use: cudaMemGetInfo's total (nvidia-smi -q: FB Total - Reserved), from
    // the preset; 0: memory_bytes is that figure.
    double cuda_total_bytes = 0;
    // The capacity every fit compares against: the CUDA-visible total [cuda-mem-get-info].
    double usable_bytes() const { return cuda_total_bytes > 0 ? cuda_total_bytes : memory_bytes; }
};

// Overheads: separate, named, user-changeable; defaults documented where used.
struct Overheads {
    double cuda_context_bytes = -1; // CUDA context + framework kernels (+ NCCL when given); < 0: by GPU architecture (core/cuda_context.h)
    double cublas_workspace_bytes = -1; // PyTorch's cuBLAS workspace per (handle, stream); < 0: by GPU architecture (core/cublas_workspace.h); 0: none
    double fragmentation = 0.05;    // allocator reserve as a fraction of allocated bytes (the floor; core/allocator_reserve.h)
    bool temp_buffers = true;       // largest layer's gradient, all-reduce buckets, gathered params
    double bucket_bytes = 25e6 * 4; // DDP/ZeRO all-reduce bucket (25M elements fp32 by default)
    bool backward_working_set = true; // gradients of one layer's saved tensors while backward runs it
    bool cuda_lazy_loading = true;  // CUDA >= 11.7 loads kernels lazily (PyTorch >= 1.13's default); false: CUDA < 11.7
    bool expandable_segments = false; // PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: no split-block holes
};

// ---- DeepSpeed ZeRO: the ds_config.json "zero_optimization" keys ---------------------------------
// DeepSpeed's own buffers beside the model states (core/training/overheads.cpp add_deepspeed_buffers),
// each key with DeepSpeed's default (deepspeed/runtime/zero/config.py [deepspeed-zero-code]). Sizes are
// elements, as in DeepSpeed. kDsAuto is "auto", which the transformers Trainer integration fills from the
// model's hidden size (core/training/overheads.cpp ds_resolved) [transformers-deepspeed-code].
inline constexpr double kDsAuto = -1;

// overlap_comm: DeepSpeed's default turns it on at stage 3 only (config.py overlap_comm_valid).
enum class DsOverlap { Default, On, Off };

struct DeepSpeedZero {
    bool enabled = false;               // the run is DeepSpeed's ZeRO engine (parallel.zero 1..3): these buffers replace
                                        // overheads.bucket_bytes and the generic ZeRO-3 gather
    double reduce_bucket_size = 5e8;    // ipg gradient bucket (elements); kDsAuto: hidden^2
    double allgather_bucket_size = 5e8; // stage 1/2 parameter all-gather (elements; in place on current PyTorch)
    DsOverlap overlap_comm = DsOverlap::Default;  // stage 1/2: a second reduce bucket
    bool contiguous_gradients = true;   // gradients copied into the bucket and a flat partition buffer
    double stage3_prefetch_bucket_size = 5e7;   // parameters gathered ahead (elements); kDsAuto: 0.9 hidden^2
    double stage3_max_live_parameters = 1e9;    // bound on gathered parameters that the prefetch respects (elements)
    double stage3_max_reuse_distance = 1e9;     // a parameter reused within this many elements is not released
    double stage3_param_persistence_threshold = 1e5;  // parameters this small are never partitioned; kDsAuto: 10 hidden
    double sub_group_size = 1e9;        // stage 3: the optimizer steps this many elements (fp32 gradients) at a time
    bool pin_memory = true;             // offload_optimizer / offload_param pin_memory: page-locked host buffers
    bool operator==(const DeepSpeedZero&) const = default;
};

// ---- run locally (Mode::Local): the engine and the machine a plan is made for -----------------
enum class LocalEngine { LlamaCpp, Ollama, VLLM, SGLang };

// One machine of the compare grid (local.compare.machines): the Run locally machine fields.
struct LocalMachine {
    std::vector<std::string> gpus;  // GPU preset ids, in device order; empty on a Mac
    double ram_bytes = 68719476736.0;  // system RAM (64 GiB); a Mac's unified memory
    std::string apple_chip;         // "": a PC; else an apple_chips() id
    bool operator==(const LocalMachine&) const = default;
};

// The page's compare grid (local.compare; core/planner/compare.h): models x GGUF types x machines at
// local's context, KV type, flash attention and engine. Empty lists: no grid.
struct LocalCompare {
    std::vector<std::string> models;      // model preset ids; "current": the scenario's own model
    std::vector<WeightFormat> weights;    // GGUF types
    std::vector<LocalMachine> machines;
    bool operator==(const LocalCompare&) const = default;
};

// llama.cpp --split-mode (core/planner/planner.h says what each does).
enum class SplitMode { Layer, Row, None };

// A GPU that is not a preset (local.custom_gpus): what the planner and the speed model need of it.
struct LocalCustomGpu {
    std::string name;            // shown; its CUDA context is the architecture's that the name says (core/cuda_context.h gpu_arch)
    double memory_gib = 0;       // total memory as the driver reports it, GiB (nvidia-smi memory.total MiB / 1024)
    double bandwidth_gbs = 0;    // peak memory bandwidth, GB/s (1e9 bytes/s, the vendor's sheet): the decode speed
    double fp16_tflops = 0;      // dense FP16 tensor TFLOP/s; 0: not known (no prefill speed)
    bool operator==(const LocalCustomGpu&) const = default;
};

// A draft model for speculative decoding (llama-server -md, Run locally with llama.cpp): llama-server loads it with its own
// -ngld, -cd and -ctkd/-ctvd, on the main model's devices and tensor split (tools/server load_model) [llama-cpp-speculative].
struct LocalDraft {
    std::string model;              // a model preset id; "": no draft model
    WeightFormat weights = WeightFormat::GGUF_Q8_0;  // its GGUF type
    KvDtype kv = KvDtype::FP16;     // -ctkd/-ctvd (llama.cpp's default f16, whatever -ctk says)
    int64_t ngl = -1;               // -ngld; -1: every layer and the output
    int64_t context = 0;            // -cd; 0: the main context (llama-server's default)
    int64_t draft_max = 16;         // --draft-max: tokens drafted per step (llama.cpp's default 16)
    bool operator==(const LocalDraft&) const = default;
};

struct LocalOptions {
    LocalEngine engine = LocalEngine::LlamaCpp;
    WeightFormat weights = WeightFormat::GGUF_Q4_K_M;  // a GGUF type (llama.cpp, Ollama); bf16 fp16 fp8 gptq awq (vLLM, SGLang)
    KvDtype kv = KvDtype::FP16;     // llama.cpp -ctk/-ctv: fp16 bf16 int8 (q8_0) int4 (q4_0); vLLM: bf16 (auto) fp16 fp8
    int64_t context = 4096;         // -c / num_ctx; vLLM --max-model-len (0: the model's max_position_embeddings)
    bool flash_attention = false;   // llama.cpp -fa
    std::vector<std::string> gpus{"rtx-4090"};  // GPU preset ids (core/model/presets.h), in device order
    double ram_bytes = 68719476736.0;  // system RAM (64 GiB); a Mac's unified memory
    std::string apple_chip;         // "": a PC with `gpus`; else an apple_chips() id: a Mac (gpus must be empty)
    int64_t wired_limit_mb = 0;     // iogpu.wired_limit_mb (0: macOS's default)
    double gpu_memory_utilization = 0.9;  // vLLM --gpu-memory-utilization (SGLang --mem-fraction-static)
    int64_t max_num_seqs = 0;       // vLLM --max-num-seqs (SGLang --max-running-requests); 0: the engine's default
    bool rank = false;              // the page shows which model fits best on this machine (core/planner/rank.h)
    LocalCompare compare;           // the page's compare grid (core/planner/compare.h)
    std::vector<LocalCustomGpu> custom_gpus;  // GPUs not in the presets, after `gpus` in device order
    // Manual placement (the page's "Advanced placement", `vramlens plan`'s flags); each default is the automatic choice.
    int64_t ngl = -1;               // llama.cpp -ngl, Ollama num_gpu; -1: the most that fit
    int64_t n_cpu_moe = 0;          // --n-cpu-moe N: the routed experts of layers [0, N) on the CPU (MoE models)
    std::vector<double> tensor_split;  // --tensor-split, one proportion per GPU in device order; empty: by usable memory
    SplitMode split_mode = SplitMode::Layer;  // --split-mode
    int64_t main_gpu = 0;           // --main-gpu: the one GPU of split_mode none
    int64_t ubatch = kLlamaCppUbatch;  // -ub
    bool kv_offload = true;         // false: -nkvo, every layer's KV cache in system RAM
    double mmproj_bytes = 0;        // --mmproj: a vision projector's bytes (0: none)
    bool mmproj_offload = true;     // false: --no-mmproj-offload
    VisionEncoder mmproj_encoder;   // the projector's image encoder, from its .gguf header (the page's mmproj picker); unset: its
                                    // compute buffer is not planned
    std::string mmproj_file;        // the projector file's name for the launch line ("": mmproj.gguf)
    int64_t image_max_tokens = 0;   // --image-max-tokens (dynamic-resolution encoders); 0: the image llama.cpp reserves at load
    LocalDraft draft;               // llama.cpp speculative decoding's draft model (draft.model "": none)
    int64_t tp = 0, pp = 0;         // vLLM --tensor-parallel-size / --pipeline-parallel-size (SGLang --tp); 0: chosen
};

struct Scenario {
    ModelSpec model;
    Mode mode = Mode::Train;
    // The framework profile the settings came from (core/framework_profiles.h; "" = none, custom settings). A label of
    // where the settings started: the estimate reads the fields the profile set, never this id.
    std::string profile;
    TrainingOptions train;
    FineTuneOptions finetune;
    InferenceOptions infer;
    LocalOptions local;
    Parallelism parallel;
    Gpu gpu;
    int64_t gpu_count = 1;          // total GPUs; must equal dp * tp * pp * cp (ep folds into dp)
    Overheads overheads;
    DeepSpeedZero deepspeed;        // DeepSpeed ZeRO config keys (enabled: false = not a DeepSpeed run)
};

}  // namespace vl
