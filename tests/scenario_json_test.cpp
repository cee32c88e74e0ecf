// Scenario JSON (issue 7): every field survives a round trip, left-out fields take Scenario's
// defaults, and bad input gives errors naming the JSON path.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "estimate.h"
#include "model/hf_config.h"
#include "model/presets.h"
#include "scenario_json.h"

using namespace vl;

namespace {

// A scenario whose every field differs from scenario.h's defaults.
Scenario every_field_changed() {
    Scenario s;
    ModelSpec& m = s.model;
    m.name = "Test-MoE";
    m.family = "Test";
    m.model_type = "deepseek_v3";
    m.vocab = 129280;
    m.hidden = 7168;
    m.layers = 61;
    m.heads = 128;
    m.kv_heads = 128;
    m.head_dim = 192;
    m.ffn = 18432;
    m.gated_mlp = false;
    m.qkv_bias = true;
    m.attn_out_bias = true;
    m.mlp_bias = true;
    m.norm = NormKind::LayerNorm;
    m.norms_per_layer = 4;
    m.qk_norm = true;
    m.attention_sinks = true;
    m.final_norm = false;
    m.tied_embeddings = true;
    m.position = PositionKind::Alibi;
    m.max_position = 163840;
    m.rope = {RopeScaling::Yarn, 40, 4096, 0.5, true};
    m.position_offset = 2;
    m.embed_dim = 512;
    m.lm_head_bias = true;
    m.embedding_norm = true;
    m.parallel_attn_mlp = true;
    m.encoder = true;
    m.type_vocab = 2;
    m.pooler = true;
    m.num_labels = 3;
    m.mlm_head = true;
    m.embedder = true;
    m.sliding_window = 4096;
    m.sliding_window_pattern = 6;
    m.attention = AttentionKind::MLA;
    m.mla = {1536, 512, 64, 128, 128};
    m.moe.num_experts = 256;
    m.moe.top_k = 8;
    m.moe.expert_ffn = 2048;
    m.moe.shared_experts = 1;
    m.moe.shared_expert_ffn = 4096;
    m.moe.shared_expert_gate = true;
    m.moe.first_dense_layers = 3;
    m.moe.moe_layer_freq = 2;
    m.moe.router_bias = true;
    m.ssm = {SsmKind::Mamba2, 8, 4, 8192, 128, 4, 256, 128, 8, 128, false, true, true, false, true, true, true, "Mam-"};  // every SsmSpec field off its default
    m.vision = {VisionKind::Siglip, 2, 64, 4, 128, 14, 448, 4, 2, 3, ProjectorKind::Gemma3, 64, 576, 3, 2, 5, 1, {1, 2}, {{448, 896}}};  // every VisionSpec field off its default
    m.seq2seq = {24, 32};  // every Seq2SeqSpec field off its default
    m.source = {"acme/test-moe", "0123456789abcdef0123456789abcdef01234567"};
    for (int64_t i = 0; i < m.layers; ++i) m.gguf_bytes.layers.push_back(400'000'000 + static_cast<uint64_t>(i));  // one per layer
    m.gguf_bytes.token_embd = 1'234'567;
    m.gguf_bytes.output = 2'345'678;
    m.gguf_bytes.other = 3'456;
    for (int64_t i = 0; i < m.layers; ++i) m.gguf_bytes.experts.push_back(300'000'000 + static_cast<uint64_t>(i));
    m.gguf_bytes.type = WeightFormat::GGUF_Q6_K;  // not the default, and not the scenario's infer.weights
    s.mode = Mode::FineTune;
    TrainingOptions& t = s.train;
    t.precision = Precision::FP8;
    t.fp32_grad_accum = true;
    t.fp32_grad_copy = true;
    t.optimizer = Optimizer::Custom;
    t.custom_optimizer_bytes_per_param = 2.5;
    t.micro_batch = 3;
    t.seq_len = 8192;
    t.target_len = 128;
    t.grad_accum_steps = 16;
    t.recompute = Recompute::EveryK;
    t.recompute_every_k = 4;
    t.flash_attention = false;
    t.dropout = 0.1;
    t.fp32_logits = false;
    t.loss = LossImpl::UpcastShift;
    t.compat = Compat::DeepSpeedEstimator;
    t.activation_formula = ActivationFormula::PerLayerBytes;
    t.activation_coefficient = 10.5;
    t.optimizer_state_dtype = StateDtype::BF16;
    t.optimizer_impl = OptimizerImpl::Foreach;
    t.extra_fp32_weight_copy = true;
    t.attention_dropout = 0.05;
    t.params_only_largest_layer = 123456;
    t.loop_holds_logits = true;
    t.softmax_saves_input = true;
    t.zero_grad_set_to_none = false;
    t.ssm_kernels = SsmKernels::Fused;
    t.moe_experts = MoeExperts::Grouped;
    t.images = 3;
    t.image_width = 640;
    t.image_height = 480;
    t.vision = VisionTraining::Projector;
    t.torch_version = "2.6.0+cu124";
    s.finetune.method = FineTuneMethod::QLoRA;
    s.finetune.lora_rank = 64;
    s.finetune.lora_targets = kLoraQ | kLoraO | kLoraDown;
    s.finetune.double_quant = false;
    s.finetune.paged_optimizer = false;
    s.finetune.adapters_fp32 = false;
    s.finetune.lora_dropout = 0.05;
    s.finetune.quant_block = 128;
    s.finetune.quant_block2 = 512;
    s.finetune.save_embedding = true;
    s.finetune.save_lm_head = true;
    s.finetune.bnb_saves_inputs = true;
    s.finetune.bnb_quantize_head = true;
    s.finetune.vision_quant = VisionQuant::Tower;
    s.finetune.bnb_fp16_quant_state = true;
    s.finetune.lora_fused_qkv = true;
    s.finetune.lora_expert_layers = 3;
    InferenceOptions& i = s.infer;
    i.weights = WeightFormat::GGUF_Q4_K_M;
    i.group_size = 64;
    i.double_quant = true;
    i.kv_dtype = KvDtype::INT4;
    i.batch = 32;
    i.context = 32768;
    i.prefill_chunk = 512;
    i.engine = Engine::LlamaCpp;
    i.gpu_memory_utilization = 0.85;
    i.block_size = 32;
    i.cuda_graphs = false;
    i.flash_attention = false;
    i.prompt = 1000;
    i.target_len = 64;
    i.max_num_seqs = 64;
    i.max_batched_tokens = 8192;
    i.ubatch = 256;
    i.fp32_compute = true;
    i.bnb_quantize_head = true;
    i.bnb_fp16_quant_state = true;
    i.bnb_requantize_on_load = true;
    i.sdpa_repeats_kv = true;
    i.untied_head_on_load = true;
    i.engine_overhead_bytes = 1.5e9;
    i.vllm_version = "0.6.5";
    i.vllm_moe_backend = VllmMoeBackend::FlashInferCutlass;
    i.llamacpp_backend = LlamaCppBackend::CANN;
    i.llamacpp_fa_mask_cast = true;
    i.mla_cache = MlaCache::Decompressed;
    i.autocast = InferAutocast::PerOp;
    i.ssm_kernels = SsmKernels::Fused;
    i.speculative = {SpecMethod::Draft, "llama-3.2-1b", 4, 1};
    i.images = 3;
    i.image_width = 640;
    i.image_height = 480;
    LocalOptions& lo = s.local;
    lo.engine = LocalEngine::SGLang;
    lo.weights = WeightFormat::AWQ4;
    lo.kv = KvDtype::FP8;
    lo.context = 32768;
    lo.flash_attention = true;
    lo.gpus = {"h100-80gb", "h100-80gb"};
    lo.ram_bytes = 512.0 * 1024 * 1024 * 1024;
    lo.apple_chip = "m4-max-40c";
    lo.wired_limit_mb = 100000;
    lo.gpu_memory_utilization = 0.8;
    lo.max_num_seqs = 32;
    lo.compare.models = {"current", "qwen3-8b"};
    lo.compare.weights = {WeightFormat::GGUF_Q8_0, WeightFormat::GGUF_Q4_K_M};
    lo.compare.machines = {LocalMachine{{"rtx-4090", "rtx-3060-12gb"}, 32.0 * 1024 * 1024 * 1024, ""}, LocalMachine{{}, 96.0 * 1024 * 1024 * 1024, "m2-max"}};
    lo.rank = true;
    lo.custom_gpus = {{"My GPU", 20, 760, 100}};
    lo.ngl = 12;
    lo.n_cpu_moe = 3;
    lo.tensor_split = {2, 1, 1};
    lo.split_mode = SplitMode::Row;
    lo.main_gpu = 1;
    lo.ubatch = 128;
    lo.kv_offload = false;
    lo.mmproj_bytes = 1e9;
    lo.mmproj_offload = false;
    lo.mmproj_encoder = {"qwen3vl_merger", 1152, 4304, 16, 27, 768, 16, 2};
    lo.mmproj_file = "mmproj-F16.gguf";
    lo.image_max_tokens = 1024;
    lo.tp = 2;
    lo.pp = 1;
    Parallelism& p = s.parallel;
    p.dp = 4;
    p.tp = 8;
    p.pp = 2;
    p.cp = 2;
    p.ep = 4;
    p.sp = true;
    p.zero = 3;
    p.shard_group = 8;
    p.schedule = PipelineSchedule::Interleaved;
    p.virtual_stages = 2;
    p.first_stage_layers = 6;
    p.last_stage_layers = 4;
    p.offload_optimizer = true;
    p.offload_params = true;
    p.gpus_per_node = 4;
    p.zero_init = false;
    p.fsdp_flat_params = true;
    p.fsdp_version = 2;
    p.no_sync_accumulation = true;
    s.gpu = {"Custom 48GB", 51539607552.0};  // 48 GiB
    s.gpu_count = 256;                        // != dp*tp*pp*cp = 128: written out even in Compact
    s.overheads = {1.0e9, 131072, 0.1, false, 5e7, false, false, true};
    s.deepspeed = {true, kDsAuto, 2e8, DsOverlap::Off, false, 1e7, 3e8, 4e8, kDsAuto, 5e7, false};
    return s;
}

void require_same(const Scenario& a, const Scenario& b) {
    const ModelSpec &x = a.model, &y = b.model;
    CHECK(x.name == y.name);
    CHECK(x.family == y.family);
    CHECK(x.model_type == y.model_type);
    CHECK(x.vocab == y.vocab);
    CHECK(x.hidden == y.hidden);
    CHECK(x.layers == y.layers);
    CHECK(x.heads == y.heads);
    CHECK(x.kv_heads == y.kv_heads);
    CHECK(x.head_dim == y.head_dim);
    CHECK(x.ffn == y.ffn);
    CHECK(x.gated_mlp == y.gated_mlp);
    CHECK(x.qkv_bias == y.qkv_bias);
    CHECK(x.attn_out_bias == y.attn_out_bias);
    CHECK(x.mlp_bias == y.mlp_bias);
    CHECK(x.norm == y.norm);
    CHECK(x.norms_per_layer == y.norms_per_layer);
    CHECK(x.qk_norm == y.qk_norm);
    CHECK(x.attention_sinks == y.attention_sinks);
    CHECK(x.final_norm == y.final_norm);
    CHECK(x.tied_embeddings == y.tied_embeddings);
    CHECK(x.position == y.position);
    CHECK(x.max_position == y.max_position);
    CHECK(x.rope.scaling == y.rope.scaling);
    CHECK(x.rope.factor == y.rope.factor);
    CHECK(x.rope.original_max_position == y.rope.original_max_position);
    CHECK(x.rope.partial == y.rope.partial);
    CHECK(x.rope.local_table == y.rope.local_table);
    CHECK(x.position_offset == y.position_offset);
    CHECK(x.embed_dim == y.embed_dim);
    CHECK(x.lm_head_bias == y.lm_head_bias);
    CHECK(x.embedding_norm == y.embedding_norm);
    CHECK(x.parallel_attn_mlp == y.parallel_attn_mlp);
    CHECK(x.encoder == y.encoder);
    CHECK(x.type_vocab == y.type_vocab);
    CHECK(x.pooler == y.pooler);
    CHECK(x.num_labels == y.num_labels);
    CHECK(x.mlm_head == y.mlm_head);
    CHECK(x.embedder == y.embedder);
    CHECK(x.sliding_window == y.sliding_window);
    CHECK(x.sliding_window_pattern == y.sliding_window_pattern);
    CHECK(x.attention == y.attention);
    CHECK(x.seq2seq.decoder_layers == y.seq2seq.decoder_layers);
    CHECK(x.seq2seq.relative_buckets == y.seq2seq.relative_buckets);
    CHECK(x.source.hub == y.source.hub);
    CHECK(x.source.revision == y.source.revision);
    CHECK(x.gguf_bytes.layers == y.gguf_bytes.layers);
    CHECK(x.gguf_bytes.token_embd == y.gguf_bytes.token_embd);
    CHECK(x.gguf_bytes.output == y.gguf_bytes.output);
    CHECK(x.gguf_bytes.other == y.gguf_bytes.other);
    CHECK(x.gguf_bytes.experts == y.gguf_bytes.experts);
    CHECK(x.gguf_bytes.type == y.gguf_bytes.type);
    CHECK(x.mla.q_lora_rank == y.mla.q_lora_rank);
    CHECK(x.mla.kv_lora_rank == y.mla.kv_lora_rank);
    CHECK(x.mla.qk_rope_head_dim == y.mla.qk_rope_head_dim);
    CHECK(x.mla.qk_nope_head_dim == y.mla.qk_nope_head_dim);
    CHECK(x.mla.v_head_dim == y.mla.v_head_dim);
    CHECK(x.moe.num_experts == y.moe.num_experts);
    CHECK(x.moe.top_k == y.moe.top_k);
    CHECK(x.moe.expert_ffn == y.moe.expert_ffn);
    CHECK(x.moe.shared_experts == y.moe.shared_experts);
    CHECK(x.moe.shared_expert_ffn == y.moe.shared_expert_ffn);
    CHECK(x.moe.shared_expert_gate == y.moe.shared_expert_gate);
    CHECK(x.moe.first_dense_layers == y.moe.first_dense_layers);
    CHECK(x.moe.moe_layer_freq == y.moe.moe_layer_freq);
    CHECK(x.moe.router_bias == y.moe.router_bias);
    CHECK(x.ssm == y.ssm);
    CHECK(x.vision == y.vision);
    CHECK(x.params_only == y.params_only);
    CHECK(a.mode == b.mode);
    CHECK(a.train.precision == b.train.precision);
    CHECK(a.train.fp32_grad_accum == b.train.fp32_grad_accum);
    CHECK(a.train.fp32_grad_copy == b.train.fp32_grad_copy);
    CHECK(a.train.optimizer == b.train.optimizer);
    CHECK(a.train.custom_optimizer_bytes_per_param == b.train.custom_optimizer_bytes_per_param);
    CHECK(a.train.micro_batch == b.train.micro_batch);
    CHECK(a.train.seq_len == b.train.seq_len);
    CHECK(a.train.target_len == b.train.target_len);
    CHECK(a.train.grad_accum_steps == b.train.grad_accum_steps);
    CHECK(a.train.recompute == b.train.recompute);
    CHECK(a.train.recompute_every_k == b.train.recompute_every_k);
    CHECK(a.train.flash_attention == b.train.flash_attention);
    CHECK(a.train.dropout == b.train.dropout);
    CHECK(a.train.fp32_logits == b.train.fp32_logits);
    CHECK(a.train.loss == b.train.loss);
    CHECK(a.train.compat == b.train.compat);
    CHECK(a.train.activation_formula == b.train.activation_formula);
    CHECK(a.train.activation_coefficient == b.train.activation_coefficient);
    CHECK(a.train.optimizer_state_dtype == b.train.optimizer_state_dtype);
    CHECK(a.train.optimizer_impl == b.train.optimizer_impl);
    CHECK(a.train.extra_fp32_weight_copy == b.train.extra_fp32_weight_copy);
    CHECK(a.train.attention_dropout == b.train.attention_dropout);
    CHECK(a.train.params_only_largest_layer == b.train.params_only_largest_layer);
    CHECK(a.train.loop_holds_logits == b.train.loop_holds_logits);
    CHECK(a.train.softmax_saves_input == b.train.softmax_saves_input);
    CHECK(a.train.zero_grad_set_to_none == b.train.zero_grad_set_to_none);
    CHECK(a.train.ssm_kernels == b.train.ssm_kernels);
    CHECK(a.train.moe_experts == b.train.moe_experts);
    CHECK(a.train.images == b.train.images);
    CHECK(a.train.image_width == b.train.image_width);
    CHECK(a.train.image_height == b.train.image_height);
    CHECK(a.train.vision == b.train.vision);
    CHECK(a.train.torch_version == b.train.torch_version);
    CHECK(a.finetune.method == b.finetune.method);
    CHECK(a.finetune.lora_rank == b.finetune.lora_rank);
    CHECK(a.finetune.lora_targets == b.finetune.lora_targets);
    CHECK(a.finetune.double_quant == b.finetune.double_quant);
    CHECK(a.finetune.paged_optimizer == b.finetune.paged_optimizer);
    CHECK(a.finetune.adapters_fp32 == b.finetune.adapters_fp32);
    CHECK(a.finetune.lora_dropout == b.finetune.lora_dropout);
    CHECK(a.finetune.quant_block == b.finetune.quant_block);
    CHECK(a.finetune.quant_block2 == b.finetune.quant_block2);
    CHECK(a.finetune.save_embedding == b.finetune.save_embedding);
    CHECK(a.finetune.save_lm_head == b.finetune.save_lm_head);
    CHECK(a.finetune.bnb_saves_inputs == b.finetune.bnb_saves_inputs);
    CHECK(a.finetune.bnb_quantize_head == b.finetune.bnb_quantize_head);
    CHECK(a.finetune.vision_quant == b.finetune.vision_quant);
    CHECK(a.finetune.bnb_fp16_quant_state == b.finetune.bnb_fp16_quant_state);
    CHECK(a.finetune.lora_fused_qkv == b.finetune.lora_fused_qkv);
    CHECK(a.finetune.lora_expert_layers == b.finetune.lora_expert_layers);
    CHECK(a.infer.weights == b.infer.weights);
    CHECK(a.infer.group_size == b.infer.group_size);
    CHECK(a.infer.double_quant == b.infer.double_quant);
    CHECK(a.infer.kv_dtype == b.infer.kv_dtype);
    CHECK(a.infer.batch == b.infer.batch);
    CHECK(a.infer.context == b.infer.context);
    CHECK(a.infer.prefill_chunk == b.infer.prefill_chunk);
    CHECK(a.infer.engine == b.infer.engine);
    CHECK(a.infer.gpu_memory_utilization == b.infer.gpu_memory_utilization);
    CHECK(a.infer.block_size == b.infer.block_size);
    CHECK(a.infer.cuda_graphs == b.infer.cuda_graphs);
    CHECK(a.infer.flash_attention == b.infer.flash_attention);
    CHECK(a.infer.prompt == b.infer.prompt);
    CHECK(a.infer.target_len == b.infer.target_len);
    CHECK(a.infer.max_num_seqs == b.infer.max_num_seqs);
    CHECK(a.infer.max_batched_tokens == b.infer.max_batched_tokens);
    CHECK(a.infer.ubatch == b.infer.ubatch);
    CHECK(a.infer.fp32_compute == b.infer.fp32_compute);
    CHECK(a.infer.bnb_quantize_head == b.infer.bnb_quantize_head);
    CHECK(a.infer.bnb_fp16_quant_state == b.infer.bnb_fp16_quant_state);
    CHECK(a.infer.bnb_requantize_on_load == b.infer.bnb_requantize_on_load);
    CHECK(a.infer.sdpa_repeats_kv == b.infer.sdpa_repeats_kv);
    CHECK(a.infer.untied_head_on_load == b.infer.untied_head_on_load);
    CHECK(a.infer.engine_overhead_bytes == b.infer.engine_overhead_bytes);
    CHECK(a.infer.vllm_version == b.infer.vllm_version);
    CHECK(a.infer.vllm_moe_backend == b.infer.vllm_moe_backend);
    CHECK(a.infer.llamacpp_backend == b.infer.llamacpp_backend);
    CHECK(a.infer.llamacpp_fa_mask_cast == b.infer.llamacpp_fa_mask_cast);
    CHECK(a.infer.mla_cache == b.infer.mla_cache);
    CHECK(a.infer.autocast == b.infer.autocast);
    CHECK(a.infer.ssm_kernels == b.infer.ssm_kernels);
    CHECK(a.infer.speculative == b.infer.speculative);
    CHECK(a.infer.images == b.infer.images);
    CHECK(a.infer.image_width == b.infer.image_width);
    CHECK(a.infer.image_height == b.infer.image_height);
    CHECK(a.local.engine == b.local.engine);
    CHECK(a.local.weights == b.local.weights);
    CHECK(a.local.kv == b.local.kv);
    CHECK(a.local.context == b.local.context);
    CHECK(a.local.flash_attention == b.local.flash_attention);
    CHECK(a.local.gpus == b.local.gpus);
    CHECK(a.local.ram_bytes == b.local.ram_bytes);
    CHECK(a.local.apple_chip == b.local.apple_chip);
    CHECK(a.local.wired_limit_mb == b.local.wired_limit_mb);
    CHECK(a.local.gpu_memory_utilization == b.local.gpu_memory_utilization);
    CHECK(a.local.max_num_seqs == b.local.max_num_seqs);
    CHECK(a.local.compare.models == b.local.compare.models);
    CHECK(a.local.compare.weights == b.local.compare.weights);
    CHECK(a.local.compare.machines == b.local.compare.machines);
    CHECK(a.local.rank == b.local.rank);
    CHECK(a.local.custom_gpus == b.local.custom_gpus);
    CHECK(a.local.ngl == b.local.ngl);
    CHECK(a.local.n_cpu_moe == b.local.n_cpu_moe);
    CHECK(a.local.tensor_split == b.local.tensor_split);
    CHECK(a.local.split_mode == b.local.split_mode);
    CHECK(a.local.main_gpu == b.local.main_gpu);
    CHECK(a.local.ubatch == b.local.ubatch);
    CHECK(a.local.kv_offload == b.local.kv_offload);
    CHECK(a.local.mmproj_bytes == b.local.mmproj_bytes);
    CHECK(a.local.mmproj_offload == b.local.mmproj_offload);
    CHECK(a.local.mmproj_encoder == b.local.mmproj_encoder);
    CHECK(a.local.mmproj_file == b.local.mmproj_file);
    CHECK(a.local.image_max_tokens == b.local.image_max_tokens);
    CHECK(a.local.tp == b.local.tp);
    CHECK(a.local.pp == b.local.pp);
    CHECK(a.parallel.dp == b.parallel.dp);
    CHECK(a.parallel.tp == b.parallel.tp);
    CHECK(a.parallel.pp == b.parallel.pp);
    CHECK(a.parallel.cp == b.parallel.cp);
    CHECK(a.parallel.ep == b.parallel.ep);
    CHECK(a.parallel.sp == b.parallel.sp);
    CHECK(a.parallel.zero == b.parallel.zero);
    CHECK(a.parallel.shard_group == b.parallel.shard_group);
    CHECK(a.parallel.schedule == b.parallel.schedule);
    CHECK(a.parallel.virtual_stages == b.parallel.virtual_stages);
    CHECK(a.parallel.first_stage_layers == b.parallel.first_stage_layers);
    CHECK(a.parallel.last_stage_layers == b.parallel.last_stage_layers);
    CHECK(a.parallel.offload_optimizer == b.parallel.offload_optimizer);
    CHECK(a.parallel.offload_params == b.parallel.offload_params);
    CHECK(a.parallel.gpus_per_node == b.parallel.gpus_per_node);
    CHECK(a.parallel.zero_init == b.parallel.zero_init);
    CHECK(a.parallel.fsdp_flat_params == b.parallel.fsdp_flat_params);
    CHECK(a.parallel.fsdp_version == b.parallel.fsdp_version);
    CHECK(a.parallel.no_sync_accumulation == b.parallel.no_sync_accumulation);
    CHECK(a.gpu.name == b.gpu.name);
    CHECK(a.gpu.memory_bytes == b.gpu.memory_bytes);
    CHECK(a.gpu_count == b.gpu_count);
    CHECK(a.overheads.cuda_context_bytes == b.overheads.cuda_context_bytes);
    CHECK(a.overheads.cublas_workspace_bytes == b.overheads.cublas_workspace_bytes);
    CHECK(a.overheads.cuda_lazy_loading == b.overheads.cuda_lazy_loading);
    CHECK(a.overheads.expandable_segments == b.overheads.expandable_segments);
    CHECK(a.overheads.fragmentation == b.overheads.fragmentation);
    CHECK(a.overheads.temp_buffers == b.overheads.temp_buffers);
    CHECK(a.overheads.bucket_bytes == b.overheads.bucket_bytes);
    CHECK(a.overheads.backward_working_set == b.overheads.backward_working_set);
    CHECK(a.deepspeed == b.deepspeed);
}

// The one error for `field`, or a failed check listing what came back.
std::string error_for(const Result<Scenario>& r, const std::string& field) {
    REQUIRE_FALSE(r.ok());
    for (const FieldError& e : r.errors)
        if (e.field == field) return e.message;
    std::string all;
    for (const FieldError& e : r.errors) all += to_string(e) + "\n";
    FAIL("no error for " << field << "; got:\n" << all);
    return {};
}

}  // namespace

TEST_CASE("scenario JSON: every field survives a round trip, pretty and compact") {
    const Scenario s = every_field_changed();
    for (JsonStyle style : {JsonStyle::Pretty, JsonStyle::Compact}) {
        Result<Scenario> back = scenario_from_json(scenario_to_json(s, style));
        REQUIRE(back.ok());
        require_same(s, *back);
    }
}

TEST_CASE("scenario JSON: the default scenario survives a round trip") {
    Scenario s;  // default everything, including the empty model
    Result<Scenario> back = scenario_from_json(scenario_to_json(s, JsonStyle::Compact));
    REQUIRE(back.ok());
    require_same(s, *back);
}

TEST_CASE("scenario JSON: compact form writes only what differs from the defaults") {
    Scenario s;
    s.model = model_from_param_count(1000);
    s.model.name = "Tiny";
    CHECK(scenario_to_json(s, JsonStyle::Compact) == R"({"version":1,"model":{"name":"Tiny","params":1000}})");
    s.train.micro_batch = 4;
    s.parallel.dp = 8;
    s.gpu_count = 8;  // = dp*tp*pp*cp, which the reader derives: left out
    CHECK(scenario_to_json(s, JsonStyle::Compact) ==
          R"({"version":1,"model":{"name":"Tiny","params":1000},"train":{"micro_batch":4},"parallel":{"dp":8}})");
    s.finetune.lora_targets = kLoraAllLinear;  // PEFT's "all-linear" shorthand
    s.gpu_count = 16;
    CHECK(scenario_to_json(s, JsonStyle::Compact) ==
          R"({"version":1,"model":{"name":"Tiny","params":1000},"train":{"micro_batch":4},"finetune":{"lora_targets":"all-linear"},)"
          R"("parallel":{"dp":8},"gpu_count":16})");
}

TEST_CASE("scenario JSON: a hand-written file reads as written, left-out fields keep the defaults") {
    Result<Scenario> r = scenario_from_json(R"({
        "version": 1,
        "model": {"name": "My 7B", "params": 7e9},
        "mode": "train",
        "train": {"precision": "FP16-Mixed", "optimizer": "adamw-8bit", "micro_batch": 4, "seq_len": 4096,
                  "recompute": "selective"},
        "finetune": {"lora_targets": ["q_proj", "k_proj", "v_proj", "o_proj"]},
        "parallel": {"dp": 8, "tp": 2, "zero": 2},
        "gpu": {"name": "A100 40GB", "memory_bytes": 42298834944}
    })");
    REQUIRE(r.ok());
    const Scenario& s = *r;
    CHECK(s.model.name == "My 7B");
    CHECK(s.model.params_only == 7000000000);  // 7e9 has no fraction: an integer
    CHECK(s.model.hidden == 0);
    CHECK(s.mode == Mode::Train);
    CHECK(s.train.precision == Precision::MixedFP16);  // names are case-insensitive
    CHECK(s.train.optimizer == Optimizer::Adam8bit);
    CHECK(s.train.micro_batch == 4);
    CHECK(s.train.seq_len == 4096);
    CHECK(s.train.recompute == Recompute::Selective);
    CHECK(s.finetune.lora_targets == kLoraAttention);
    CHECK(s.parallel.dp == 8);
    CHECK(s.parallel.tp == 2);
    CHECK(s.parallel.zero == 2);
    CHECK(s.gpu.name == "A100 40GB");
    CHECK(s.gpu.memory_bytes == 42298834944.0);
    CHECK(s.gpu_count == 16);  // left out: dp 8 * tp 2 * pp 1 * cp 1
    // Left out, so scenario.h's defaults:
    CHECK(s.train.grad_accum_steps == 1);
    CHECK(s.train.flash_attention == true);
    CHECK(s.finetune.method == FineTuneMethod::LoRA);
    CHECK(s.finetune.lora_rank == 16);
    CHECK(s.infer.context == 4096);
    CHECK(s.parallel.pp == 1);
    CHECK(s.overheads.fragmentation == 0.05);
    CHECK(s.overheads.cuda_context_bytes == -1);  // the CUDA context table by GPU architecture
    CHECK(s.overheads.cublas_workspace_bytes == -1);  // PyTorch's default by GPU architecture
    CHECK(s.overheads.cuda_lazy_loading);
}

TEST_CASE("scenario JSON: syntax errors, a wrong root and the version are reported first") {
    CHECK_THAT(error_for(scenario_from_json("{\"version\": 1,"), "json"), Catch::Contains("line 1, column 15"));
    CHECK(error_for(scenario_from_json(""), "json") == "is empty: there is no JSON to read");
    CHECK_THAT(error_for(scenario_from_json(R"({"version": NaN})"), "json"), Catch::Contains("line 1, column 13: NaN is not a JSON number"));
    CHECK_THAT(error_for(scenario_from_json(R"({"version": 1, "train": {"dropout": 1e400}})"), "json"), Catch::Contains("a number too large to hold (above 1.8e308): '1e400'"));
    CHECK_THAT(error_for(scenario_from_json("[1, 2]"), "json"), Catch::Contains("must be an object"));
    CHECK_THAT(error_for(scenario_from_json(std::string(100, '[') + std::string(100, ']')), "json"),
               Catch::Contains("nested deeper than 32"));
    CHECK_THAT(error_for(scenario_from_json(R"({"model": {"params": 1}})"), "version"), Catch::Contains("missing"));
    CHECK_THAT(error_for(scenario_from_json(R"({"version": 2, "model": {"params": 1}})"), "version"),
               Catch::Contains("newer than this build reads (1)"));
    CHECK_THAT(error_for(scenario_from_json(R"({"version": "1", "model": {"params": 1}})"), "version"),
               Catch::Contains("positive integer"));
}

TEST_CASE("scenario JSON: each bad field is named by its path, all at once") {
    Result<Scenario> r = scenario_from_json(R"({
        "version": 1,
        "model": {"params": 1000, "hiden": 4096, "moe": {"top_k": 2.5}},
        "mode": "pretrain",
        "train": {"micro_batch": "4", "seq_len": 1e30, "dropout": true, "precision": 16},
        "finetune": {"lora_targets": ["q_proj", "qkv"]},
        "parallel": {"zero": 3000000000, "sp": 1},
        "gpu": {"name": "X", "memory_bytes": -1e300},
        "gpu_count": 8.5,
        "extra": {}
    })");
    CHECK(error_for(r, "model.hiden") == "unknown field");
    CHECK(error_for(r, "model.moe.top_k") == "must be an integer; got 2.5");
    CHECK(error_for(r, "mode") == R"(must be one of "train", "finetune", "infer" or "local"; got "pretrain")");
    CHECK(error_for(r, "train.micro_batch") == R"(must be an integer; got "4")");
    CHECK(error_for(r, "train.seq_len") == "must be an integer of magnitude at most 1e15; got 1e+30");
    CHECK(error_for(r, "train.dropout") == "must be a number; got true");
    CHECK_THAT(error_for(r, "train.precision"), Catch::StartsWith(R"(must be one of "fp32", "fp16-mixed", "bf16-mixed")"));
    CHECK_THAT(error_for(r, "finetune.lora_targets[1]"), Catch::EndsWith(R"(got "qkv")"));
    CHECK(error_for(r, "parallel.zero") == "must be an integer of magnitude at most 2147483647; got 3000000000");
    CHECK(error_for(r, "parallel.sp") == "must be true or false; got 1");
    CHECK(error_for(r, "gpu.memory_bytes") == "must be a number of magnitude at most 1e18; got -1e+300");
    CHECK(error_for(r, "gpu_count") == "must be an integer; got 8.5");
    CHECK(error_for(r, "extra") == "unknown field");
    CHECK(r.errors.size() == 13);
}

// Regression (fuzz/fuzz_scenario_json): an empty key gave an error with an empty field name.
TEST_CASE("scenario JSON: an empty key is an unknown field named \"\"") {
    const Result<Scenario> r = scenario_from_json(R"({"version": 1, "": 1, "train": {"": 2}})");
    REQUIRE_FALSE(r.ok());
    CHECK(error_for(r, R"("")") == "unknown field");
    CHECK(error_for(r, R"(train."")") == "unknown field");
    for (const FieldError& e : r.errors) CHECK_FALSE(e.field.empty());
}

TEST_CASE("scenario JSON: model and gpu forms") {
    CHECK_THAT(error_for(scenario_from_json(R"({"version": 1, "model": "no-such-model"})"), "model"),
               Catch::Contains(R"(unknown preset id "no-such-model")"));
    CHECK_THAT(error_for(scenario_from_json(R"({"version": 1, "model": 7})"), "model"), Catch::Contains("must be a preset id"));
    CHECK_THAT(error_for(scenario_from_json(R"({"version": 1, "model": {"hf_config": []}})"), "model.hf_config"),
               Catch::Contains("must be a config.json object"));
    CHECK_THAT(error_for(scenario_from_json(R"({"version": 1, "model": {"hf_config": {}, "name": "x"}})"), "model"),
               Catch::Contains("no other fields"));
    CHECK_THAT(error_for(scenario_from_json(R"({"version": 1, "model": {"params": 1}, "gpu": "no-such-gpu"})"), "gpu"),
               Catch::Contains(R"(unknown preset id "no-such-gpu")"));
    CHECK_THAT(error_for(scenario_from_json(R"({"version": 1, "model": {"params": 1}, "gpu": [80]})"), "gpu"),
               Catch::Contains("must be an object"));
    const std::string long_name(300, 'x');
    CHECK(error_for(scenario_from_json(R"({"version": 1, "model": {"params": 1, "name": ")" + long_name + "\"}}"), "model.name") ==
          "must be at most 256 bytes long; got 300");
}

TEST_CASE("scenario JSON: model_to_json writes a parameter-count model as its count and labels") {
    ModelSpec m = model_from_param_count(123456789);  // family "Custom", model_type ""
    m.name = "Mystery";
    CHECK(model_to_json(m, JsonStyle::Compact) == R"({"name":"Mystery","params":123456789})");
    CHECK(model_to_json(m, JsonStyle::Pretty) == "{\n  \"name\": \"Mystery\",\n  \"family\": \"Custom\",\n  \"model_type\": \"\",\n  \"params\": 123456789\n}");
}

// ---- presets, config.json, and the documentation --------------------------------------------
namespace {
std::string read_text(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    REQUIRE(f.good());
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}
}  // namespace

TEST_CASE("scenario JSON: a preset model is written as its id and read back field for field") {
    for (const char* id : {"llama-3.1-8b", "qwen3-30b-a3b", "gpt2", "deepseek-v3"}) {
        const ModelPreset* p = find_model(id);
        REQUIRE(p != nullptr);
        Scenario s;
        s.model = p->spec;
        s.gpu = find_gpu("a100-80gb")->gpu();
        const std::string compact = scenario_to_json(s, JsonStyle::Compact);
        CHECK(compact == std::string(R"({"version":1,"model":")") + id + R"(","gpu":"a100-80gb"})");
        Result<Scenario> back = scenario_from_json(compact);
        REQUIRE(back.ok());
        require_same(s, *back);
    }
    // The Hugging Face repo id names the same preset.
    Result<Scenario> hf = scenario_from_json(R"({"version": 1, "model": "meta-llama/Llama-3.1-8B"})");
    REQUIRE(hf.ok());
    CHECK(hf->model.name == find_model("llama-3.1-8b")->spec.name);
}

TEST_CASE("scenario JSON: an edited preset is written out field by field") {
    Scenario s;
    s.model = find_model("llama-3.1-8b")->spec;
    s.model.layers = 16;  // no longer the preset
    const std::string compact = scenario_to_json(s, JsonStyle::Compact);
    CHECK(compact.find(R"("model":{)") != std::string::npos);
    Result<Scenario> back = scenario_from_json(compact);
    REQUIRE(back.ok());
    require_same(s, *back);
}

TEST_CASE("scenario JSON: an inline Hugging Face config.json") {
    const std::string cfg = read_text(std::string(VRAMLENS_TEST_DATA) + "/configs/llama-3.1-8b.json");
    Result<Scenario> r = scenario_from_json(R"({"version": 1, "model": {"hf_config": )" + cfg + "}}");
    REQUIRE(r.ok());
    // The values of tests/data/configs/llama-3.1-8b.json (meta-llama/Llama-3.1-8B config.json).
    CHECK(r->model.vocab == 128256);
    CHECK(r->model.hidden == 4096);
    CHECK(r->model.layers == 32);
    CHECK(r->model.heads == 32);
    CHECK(r->model.kv_heads == 8);
    CHECK(r->model.ffn == 14336);
    CHECK(r->model.max_position == 131072);
    // Import errors are named under model.hf_config.
    Result<Scenario> bad = scenario_from_json(R"({"version": 1, "model": {"hf_config": {"model_type": "llama", "hidden_size": -4096}}})");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.errors.front().field.rfind("model.hf_config.", 0) == 0);
    // An unsupported model_type is an error naming the field, never a Llama import (issue 14 item 12).
    Result<Scenario> unknown = scenario_from_json(R"({"version": 1, "model": {"hf_config": {"model_type": "mistrall",
        "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32, "vocab_size": 32000}}})");
    REQUIRE_FALSE(unknown.ok());
    REQUIRE(unknown.errors.size() == 1);
    CHECK(unknown.errors.front().field == "model.hf_config.model_type");
    CHECK_THAT(unknown.errors.front().message,
               Catch::StartsWith("\"mistrall\" is not supported (the closest supported: \"mistral\", \"mixtral\"); use one of llama, "));
}

TEST_CASE("scenario JSON: a parameter-count model starts blank, not as the default model") {
    Result<Scenario> r = scenario_from_json(R"({"version": 1, "model": {"params": 7e9}})");
    REQUIRE(r.ok());
    CHECK(r->model.params_only == 7000000000);
    CHECK_FALSE(r->model.architecture_known());
    CHECK(r->model.hidden == 0);  // not Llama-3.1-8B's 4096
    CHECK(r->model.family == "Custom");
}

// Issue 12 item 7: these estimated the default model (Llama-3.1-8B) without a word.
TEST_CASE("scenario JSON: a model object must define an architecture or a parameter count > 0") {
    auto read = [](const std::string& model) { return scenario_from_json(R"({"version": 1, "model": )" + model + "}"); };
    const std::string ways = R"(give a preset id ("llama-3.1-8b"), a parameter count ("params": 7e9), {"hf_config": {...config.json...}}, )"
                             "or the architecture fields (vocab, hidden, layers, heads, kv_heads, head_dim, ffn, ...)";
    Result<Scenario> name_only = read(R"({"name": "My model"})");
    REQUIRE_FALSE(name_only.ok());
    REQUIRE(name_only.errors.size() == 1);
    CHECK(to_string(name_only.errors[0]) == "model: has only a name: " + ways);
    CHECK(error_for(read("{}"), "model") == "is an empty object: " + ways);
    CHECK(error_for(read(R"({"name": "x", "family": "y", "model_type": "llama"})"), "model") ==
          "has only labels (name, family, model_type) and no architecture: " + ways);
    // Only unknown fields: each is named, and so is what the model lacks.
    Result<Scenario> unknown = read(R"({"hidden_size": 4096})");
    CHECK(error_for(unknown, "model.hidden_size") == "unknown field");
    CHECK(error_for(unknown, "model") == "defines no architecture: " + ways);
    // A count of 0 or less is no parameter count.
    Result<Scenario> zero = read(R"({"params": 0})");
    REQUIRE(zero.errors.size() == 1);
    CHECK(error_for(zero, "model.params") ==
          "is 0, which means the architecture is given instead, but the model has no architecture fields: " + ways);
    CHECK(error_for(read(R"({"name": "x", "params": 0})"), "model.params").rfind("is 0, which means", 0) == 0);
    // A negative count is well formed: the reader takes it as the count, and validate() (the one owner
    // of the rule) names it once.
    for (const char* model : {R"({"params": -7e9})", R"({"params": -5, "hidden": 64})"}) {
        INFO(model);
        Result<Scenario> negative = read(model);
        REQUIRE(negative.ok());
        CHECK_FALSE(negative->model.architecture_known());
        const std::vector<FieldError> errs = validate(*negative);
        REQUIRE(errs.size() == 1);
        CHECK(errs[0].field == "model.params");
        CHECK(errs[0].message.rfind("must be > 0 (the parameter count of a model known only by it); got -", 0) == 0);
    }
    // A badly formed count is named once, by its form.
    Result<Scenario> huge = read(R"({"params": 1e300})");
    REQUIRE(huge.errors.size() == 1);
    CHECK(error_for(huge, "model.params") == "must be an integer of magnitude at most 1e15; got 1e+300");

    // Still read: one architecture field (the rest from the default model), and "params": 0 beside
    // architecture fields (the full form the writer produces).
    Result<Scenario> one = read(R"({"name": "Half", "layers": 16})");
    REQUIRE(one.ok());
    CHECK(one->model.layers == 16);
    CHECK(one->model.hidden == 4096);  // ModelSpec's default (Llama-3.1-8B)
    Result<Scenario> full = read(R"({"name": "Half", "params": 0, "layers": 16})");
    REQUIRE(full.ok());
    CHECK(full->model.architecture_known());
}

TEST_CASE("scenario JSON: the default architecture under another name is written with a field that reads back") {
    Scenario s;
    s.model.name = "Renamed";  // every architecture field equals ModelSpec's default: no longer the preset
    const std::string compact = scenario_to_json(s, JsonStyle::Compact);
    CHECK(compact == R"({"version":1,"model":{"name":"Renamed","hidden":4096}})");
    Result<Scenario> back = scenario_from_json(compact);
    REQUIRE(back.ok());
    require_same(s, *back);
    Result<Scenario> pretty = scenario_from_json(scenario_to_json(s, JsonStyle::Pretty));  // writes "params": 0
    REQUIRE(pretty.ok());
    require_same(s, *pretty);
}

TEST_CASE("scenario JSON: the examples in docs/scenario-format.md read, and the complete one is the writer's output") {
    const std::string doc = read_text(std::string(VRAMLENS_TEST_DATA) + "/../../docs/scenario-format.md");
    int blocks = 0;
    for (size_t at = doc.find("```json\n"); at != std::string::npos; at = doc.find("```json\n", at + 1)) {
        const size_t begin = at + 8, end = doc.find("```", begin);
        REQUIRE(end != std::string::npos);
        const std::string block = doc.substr(begin, end - begin);
        INFO(block);
        Result<Scenario> r = scenario_from_json(block);
        for (const FieldError& e : r.errors) UNSCOPED_INFO(to_string(e));
        CHECK(r.ok());
        ++blocks;
    }
    CHECK(blocks == 3);  // small example, complete example, compact example
    const size_t complete = doc.find("```json\n", doc.find("## The complete example")) + 8;
    Scenario s;
    s.gpu = find_gpu("h100-80gb")->gpu();
    CHECK(doc.substr(complete, doc.find("```", complete) - complete) == scenario_to_json(s, JsonStyle::Pretty) + "\n");
}

// ---- a field added to a Scenario struct must be added to the format ---------------------------
// Counts an aggregate's members (Boost.PFR's technique: the most initializers it accepts). When a
// count below changes, add the new field to fields() in core/scenario_json.cpp, to
// every_field_changed() and require_same() above, and to docs/scenario-format.md; then update it.
namespace {
struct AnyField {
    template <class T>
    operator T() const;  // never defined: only used in unevaluated requires-expressions
};
template <class T, class... A>
constexpr size_t field_count() {
    if constexpr (requires { T{A{}..., AnyField{}}; }) return field_count<T, A..., AnyField>();
    else return sizeof...(A);
}
}  // namespace

TEST_CASE("scenario JSON: the format covers every field of the Scenario structs") {
    CHECK(field_count<ModelSpec>() == 49);
    CHECK(field_count<RopeSpec>() == 5);
    CHECK(field_count<Seq2SeqSpec>() == 2);
    CHECK(field_count<VisionSpec>() == 19);
    CHECK(field_count<GridPinpoint>() == 2);
    CHECK(field_count<SsmSpec>() == 21);
    CHECK(field_count<ModelOrigin>() == 2);
    CHECK(field_count<GgufTensorBytes>() == 6);
    CHECK(field_count<MLASpec>() == 6);  // decompressed_cache is infer.mla_cache's copy, not a model field of the format
    CHECK(field_count<MoESpec>() == 9);
    CHECK(field_count<TrainingOptions>() == 36);
    CHECK(field_count<FineTuneOptions>() == 17);
    CHECK(field_count<InferenceOptions>() == 37);
    CHECK(field_count<Speculative>() == 4);
    CHECK(field_count<Parallelism>() == 19);
    CHECK(field_count<Gpu>() == 3);  // cuda_total_bytes is the preset's (read by name and memory_bytes), not a field of the format
    CHECK(field_count<Overheads>() == 8);
    CHECK(field_count<LocalCompare>() == 3);
    CHECK(field_count<LocalMachine>() == 3);
    CHECK(field_count<LocalOptions>() == 29);
    CHECK(field_count<LocalDraft>() == 6);
    CHECK(field_count<VisionEncoder>() == 8);
    CHECK(field_count<LocalCustomGpu>() == 4);
    CHECK(field_count<DeepSpeedZero>() == 11);
    CHECK(field_count<Scenario>() == 12);  // model, mode, profile, train, finetune, infer, local, parallel, gpu, gpu_count, overheads, deepspeed
}

TEST_CASE("scenario JSON: the activation formulas' old names \"seed-003\" and \"seed-001\" still read, the new names are written") {
    // Files and share links written before the rename carry the old names (docs/scenario-format.md).
    const struct {
        const char* old_name;
        const char* new_name;
        ActivationFormula value;
    } renamed[] = {{"seed-003", "per-layer-bytes", ActivationFormula::PerLayerBytes},
                   {"seed-001", "per-layer-elements", ActivationFormula::PerLayerElements}};
    for (const auto& n : renamed) {
        INFO(n.old_name << " -> " << n.new_name);
        const std::string model = R"("model": {"params": 7e9}, )";
        Result<Scenario> old_file = scenario_from_json(std::string(R"({"version": 1, )") + model + R"("train": {"activation_formula": ")" +
                                                       n.old_name + "\"}}");
        REQUIRE(old_file.ok());
        CHECK(old_file->train.activation_formula == n.value);
        Result<Scenario> upper = scenario_from_json(std::string(R"({"version": 1, )") + model + R"("train": {"activation_formula": "SEED-)" +
                                                    (n.old_name + 5) + "\"}}");
        REQUIRE(upper.ok());
        CHECK(upper->train.activation_formula == n.value);
        // written back under the new name only, and that name reads to the same value
        for (JsonStyle style : {JsonStyle::Pretty, JsonStyle::Compact}) {
            const std::string written = scenario_to_json(*old_file, style);
            CHECK_THAT(written, Catch::Contains(std::string("\"activation_formula\":") + (style == JsonStyle::Pretty ? " " : "") + "\"" + n.new_name + "\""));
            CHECK_THAT(written, !Catch::Contains(n.old_name));
            Result<Scenario> back = scenario_from_json(written);
            REQUIRE(back.ok());
            CHECK(back->train.activation_formula == n.value);
        }
    }
    // the old names are not offered: an unknown name's message lists the current ones
    const std::string msg = error_for(scenario_from_json(R"({"version": 1, "model": {"params": 7e9}, "train": {"activation_formula": "seed-002"}})"),
                                      "train.activation_formula");
    CHECK_THAT(msg, Catch::Contains("\"per-layer-bytes\"") && Catch::Contains("\"per-layer-elements\"") && !Catch::Contains("seed-003"));
}

TEST_CASE("scenario JSON: local.compare - each bad field named by its path, and a file without it still reads") {
    Result<Scenario> r = scenario_from_json(R"({"version": 1, "local": {"compare": {
        "models": ["current", "qwen3-8", 7],
        "weights": ["q4_k_m", "gptq-4bit", "q9"],
        "machines": [{"gpus": ["rtx-4090"], "ram_bytes": 68719476736},
                     {"gpus": ["rtx-4090", "rtx-409"], "ram_bytes": "64GB", "vram": 1},
                     {"apple_chip": "m9"}, 5]}}})");
    CHECK(error_for(r, "local.compare.models[1]") == R"(must be a model preset id (`vramlens models`) or "current"; got "qwen3-8")");
    CHECK(error_for(r, "local.compare.models[2]") == R"(must be a model preset id (`vramlens models`) or "current"; got 7)");
    CHECK_THAT(error_for(r, "local.compare.weights[1]"), Catch::StartsWith("must be a GGUF type: q8_0") && Catch::EndsWith(R"(got "gptq-4bit")"));
    CHECK_THAT(error_for(r, "local.compare.weights[2]"), Catch::EndsWith(R"(got "q9")"));
    CHECK(error_for(r, "local.compare.machines[1].gpus[1]") == R"(must be a GPU preset id (`vramlens gpus` lists them); got "rtx-409")");
    CHECK(error_for(r, "local.compare.machines[1].ram_bytes") == R"(must be a number; got "64GB")");
    CHECK(error_for(r, "local.compare.machines[1].vram") == "unknown field");
    CHECK_THAT(error_for(r, "local.compare.machines[2].apple_chip"), Catch::EndsWith(R"(got "m9")"));
    CHECK(error_for(r, "local.compare.machines[3]") == "must be an object; got 5");
    CHECK(error_for(scenario_from_json(R"({"version": 1, "local": {"compare": {"machines": [{}, {}, {}, {}, {}, {}, {}, {}, {}]}}})"),
                    "local.compare.machines").rfind("must be an array of at most 8 machines", 0) == 0);

    // A file written before local.compare existed reads with no grid; a compact file leaves an empty grid out.
    Result<Scenario> old = scenario_from_json(R"({"version": 1, "mode": "local", "local": {"gpus": ["rtx-4090"], "rank": true}})");
    REQUIRE(old.ok());
    CHECK(old->local.compare == LocalCompare{});
    CHECK(scenario_to_json(*old, JsonStyle::Compact).find("compare") == std::string::npos);
}

TEST_CASE("scenario JSON: a Mamba mixer's proj_bias written before out_proj_bias holds for out_proj too, and both are written") {
    // Before Falcon-H1 one ssm.proj_bias meant in_proj's and out_proj's biases alike (mamba use_bias).
    const ModelPreset* mamba = find_model("mamba-2.8b");
    REQUIRE(mamba != nullptr);
    Scenario s;
    s.mode = Mode::Infer;
    s.model = mamba->spec;
    s.model.name = "my mamba";  // not a preset: the model is written out
    s.model.ssm.proj_bias = true;
    s.model.ssm.out_proj_bias = false;  // Falcon-H1 style: in_proj's bias without out_proj's
    for (JsonStyle style : {JsonStyle::Pretty, JsonStyle::Compact}) {
        const std::string written = scenario_to_json(s, style);
        Result<Scenario> back = scenario_from_json(written);
        REQUIRE(back.ok());
        CHECK(back->model.ssm.proj_bias);
        CHECK_FALSE(back->model.ssm.out_proj_bias);
        nlohmann::json old = nlohmann::json::parse(written);
        old["model"]["ssm"].erase("out_proj_bias");  // as a file from before the field
        Result<Scenario> old_back = scenario_from_json(old.dump());
        REQUIRE(old_back.ok());
        CHECK(old_back->model.ssm.out_proj_bias);
    }
}
