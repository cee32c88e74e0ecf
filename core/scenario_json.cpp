// Scenario JSON reader and writer (scenario_json.h). Each struct's fields are listed once, in a
// fields() function that both the Reader and the Writer walk, so the two cannot drift apart.
// nlohmann_json is used without exceptions (the wasm build cannot catch them): the one input reader
// (json_input.h) checks size, syntax, nesting, duplicate keys and NULs, then every value's type is
// checked before it is read.
#include "scenario_json.h"
#include "scenario_json_value.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <type_traits>
#include <vector>

#include "enum_names.h"
#include "framework_profiles.h"
#include "json_input.h"
#include "model/hf_config.h"
#include "model/presets.h"
#include "planner/compare.h"
#include "planner/speed.h"
#include "units.h"

namespace vl {

using Json = nlohmann::ordered_json;

namespace {

// Representability limits, not rules: the rules (tp divides heads, ...) are validate()'s. They keep
// a tampered file from reaching the core with numbers no real scenario has.
constexpr double kMaxInt64Field = 1e15;  // counts: params up to 10^15, tokens, ranks
constexpr double kMaxNumberField = 1e18; // bytes and fractions
constexpr size_t kMaxStringField = 256;  // names
constexpr uint64_t kMaxGgufBytes = uint64_t{1} << 50;  // a GGUF file's tensors: 1 PiB, far above any checkpoint
constexpr size_t kMaxGgufLayers = 100'000;             // model_validate.cpp's largest layer count
constexpr size_t kMaxLocalGpus = 64;                   // local.gpus: one machine's GPUs

// ---- field lists: one per struct, walked by the Reader and the Writer ------------------------
template <class V> void fields(V& v, TrainingOptions*) {
    v("precision", &TrainingOptions::precision);
    v("fp32_grad_accum", &TrainingOptions::fp32_grad_accum);
    v("fp32_grad_copy", &TrainingOptions::fp32_grad_copy);
    v("optimizer", &TrainingOptions::optimizer);
    v("custom_optimizer_bytes_per_param", &TrainingOptions::custom_optimizer_bytes_per_param);
    v("micro_batch", &TrainingOptions::micro_batch);
    v("seq_len", &TrainingOptions::seq_len);
    v("target_len", &TrainingOptions::target_len);
    v("grad_accum_steps", &TrainingOptions::grad_accum_steps);
    v("recompute", &TrainingOptions::recompute);
    v("recompute_every_k", &TrainingOptions::recompute_every_k);
    v("offload_checkpoints", &TrainingOptions::offload_checkpoints);
    v("moe_expert_capacity_factor", &TrainingOptions::moe_expert_capacity_factor);
    v("moe_pad_expert_input_to_capacity", &TrainingOptions::moe_pad_expert_input_to_capacity);
    v("flash_attention", &TrainingOptions::flash_attention);
    v("dropout", &TrainingOptions::dropout);
    v("fp32_logits", &TrainingOptions::fp32_logits);
    v("loss", &TrainingOptions::loss);
    v("compat", &TrainingOptions::compat);
    v("activation_formula", &TrainingOptions::activation_formula);
    v("activation_coefficient", &TrainingOptions::activation_coefficient);
    v("optimizer_state_dtype", &TrainingOptions::optimizer_state_dtype);
    v("optimizer_impl", &TrainingOptions::optimizer_impl);
    v("extra_fp32_weight_copy", &TrainingOptions::extra_fp32_weight_copy);
    v("attention_dropout", &TrainingOptions::attention_dropout);
    v("params_only_largest_layer", &TrainingOptions::params_only_largest_layer);
    v("loop_holds_logits", &TrainingOptions::loop_holds_logits);
    v("softmax_saves_input", &TrainingOptions::softmax_saves_input);
    v("zero_grad_set_to_none", &TrainingOptions::zero_grad_set_to_none);
    v("ssm_kernels", &TrainingOptions::ssm_kernels);
    v("moe_experts", &TrainingOptions::moe_experts);
    v("images", &TrainingOptions::images);
    v("image_width", &TrainingOptions::image_width);
    v("image_height", &TrainingOptions::image_height);
    v("vision", &TrainingOptions::vision);
    v("torch_version", &TrainingOptions::torch_version);
}

template <class V> void fields(V& v, FineTuneOptions*) {
    v("method", &FineTuneOptions::method);
    v("lora_rank", &FineTuneOptions::lora_rank);
    v.lora_targets("lora_targets", &FineTuneOptions::lora_targets);
    v("double_quant", &FineTuneOptions::double_quant);
    v("paged_optimizer", &FineTuneOptions::paged_optimizer);
    v("adapters_fp32", &FineTuneOptions::adapters_fp32);
    v("lora_dropout", &FineTuneOptions::lora_dropout);
    v("quant_block", &FineTuneOptions::quant_block);
    v("quant_block2", &FineTuneOptions::quant_block2);
    v("save_embedding", &FineTuneOptions::save_embedding);
    v("save_lm_head", &FineTuneOptions::save_lm_head);
    v("bnb_saves_inputs", &FineTuneOptions::bnb_saves_inputs);
    v("bnb_quantize_head", &FineTuneOptions::bnb_quantize_head);
    v("vision_quant", &FineTuneOptions::vision_quant);
    v("bnb_fp16_quant_state", &FineTuneOptions::bnb_fp16_quant_state);
    v("lora_fused_qkv", &FineTuneOptions::lora_fused_qkv);
    v("lora_expert_layers", &FineTuneOptions::lora_expert_layers);
}

template <class V> void fields(V& v, InferenceOptions*) {
    v("weights", &InferenceOptions::weights);
    v("group_size", &InferenceOptions::group_size);
    v("double_quant", &InferenceOptions::double_quant);
    v("kv_dtype", &InferenceOptions::kv_dtype);
    v("batch", &InferenceOptions::batch);
    v("context", &InferenceOptions::context);
    v("prefill_chunk", &InferenceOptions::prefill_chunk);
    v("engine", &InferenceOptions::engine);
    v("gpu_memory_utilization", &InferenceOptions::gpu_memory_utilization);
    v("block_size", &InferenceOptions::block_size);
    v("cuda_graphs", &InferenceOptions::cuda_graphs);
    v("flash_attention", &InferenceOptions::flash_attention);
    v("sliding_window_cache", &InferenceOptions::sliding_window_cache);
    v("logits_to_keep", &InferenceOptions::logits_to_keep);
    v("sdpa_repeats_kv", &InferenceOptions::sdpa_repeats_kv);
    v("prompt", &InferenceOptions::prompt);
    v("target_len", &InferenceOptions::target_len);
    v("max_num_seqs", &InferenceOptions::max_num_seqs);
    v("max_batched_tokens", &InferenceOptions::max_batched_tokens);
    v("ubatch", &InferenceOptions::ubatch);
    v("fp32_compute", &InferenceOptions::fp32_compute);
    v("bnb_quantize_head", &InferenceOptions::bnb_quantize_head);
    v("bnb_fp16_quant_state", &InferenceOptions::bnb_fp16_quant_state);
    v("bnb_requantize_on_load", &InferenceOptions::bnb_requantize_on_load);
    v("untied_head_on_load", &InferenceOptions::untied_head_on_load);
    v("engine_overhead_bytes", &InferenceOptions::engine_overhead_bytes);
    v("vllm_version", &InferenceOptions::vllm_version);
    v("vllm_moe_backend", &InferenceOptions::vllm_moe_backend);
    v("llamacpp_backend", &InferenceOptions::llamacpp_backend);
    v("llamacpp_fa_mask_cast", &InferenceOptions::llamacpp_fa_mask_cast);
    v("mla_cache", &InferenceOptions::mla_cache);
    v("autocast", &InferenceOptions::autocast);
    v("ssm_kernels", &InferenceOptions::ssm_kernels);
    v("speculative", &InferenceOptions::speculative);
    v("images", &InferenceOptions::images);
    v("image_width", &InferenceOptions::image_width);
    v("image_height", &InferenceOptions::image_height);
}

template <class V> void fields(V& v, Speculative*) {
    v("method", &Speculative::method);
    v("model", &Speculative::model);
    v("num_speculative_tokens", &Speculative::num_speculative_tokens);
    v("draft_tensor_parallel_size", &Speculative::draft_tensor_parallel_size);
}

template <class V> void fields(V& v, LocalCustomGpu*) {
    v("name", &LocalCustomGpu::name);
    v("memory_gib", &LocalCustomGpu::memory_gib);
    v("bandwidth_gbs", &LocalCustomGpu::bandwidth_gbs);
    v("fp16_tflops", &LocalCustomGpu::fp16_tflops);
}

template <class V> void fields(V& v, LocalOptions*) {
    v("engine", &LocalOptions::engine);
    v("weights", &LocalOptions::weights);
    v("kv", &LocalOptions::kv);
    v("context", &LocalOptions::context);
    v("flash_attention", &LocalOptions::flash_attention);
    v("gpus", &LocalOptions::gpus);
    v("ram_bytes", &LocalOptions::ram_bytes);
    v("apple_chip", &LocalOptions::apple_chip);
    v("wired_limit_mb", &LocalOptions::wired_limit_mb);
    v("gpu_memory_utilization", &LocalOptions::gpu_memory_utilization);
    v("max_num_seqs", &LocalOptions::max_num_seqs);
    v("rank", &LocalOptions::rank);
    v("compare", &LocalOptions::compare);
    v("custom_gpus", &LocalOptions::custom_gpus);
    v("ngl", &LocalOptions::ngl);
    v("n_cpu_moe", &LocalOptions::n_cpu_moe);
    v("tensor_split", &LocalOptions::tensor_split);
    v("split_mode", &LocalOptions::split_mode);
    v("main_gpu", &LocalOptions::main_gpu);
    v("ubatch", &LocalOptions::ubatch);
    v("kv_offload", &LocalOptions::kv_offload);
    v("mmproj_bytes", &LocalOptions::mmproj_bytes);
    v("mmproj_offload", &LocalOptions::mmproj_offload);
    v("mmproj_encoder", &LocalOptions::mmproj_encoder);
    v("mmproj_file", &LocalOptions::mmproj_file);
    v("image_max_tokens", &LocalOptions::image_max_tokens);
    v("draft", &LocalOptions::draft);
    v("tp", &LocalOptions::tp);
    v("pp", &LocalOptions::pp);
}

template <class V> void fields(V& v, LocalDraft*) {
    v("model", &LocalDraft::model);
    v("weights", &LocalDraft::weights);
    v("kv", &LocalDraft::kv);
    v("ngl", &LocalDraft::ngl);
    v("context", &LocalDraft::context);
    v("draft_max", &LocalDraft::draft_max);
}

template <class V> void fields(V& v, VisionEncoder*) {
    v("projector", &VisionEncoder::projector);
    v("n_embd", &VisionEncoder::n_embd);
    v("n_ff", &VisionEncoder::n_ff);
    v("n_head", &VisionEncoder::n_head);
    v("n_layer", &VisionEncoder::n_layer);
    v("image_size", &VisionEncoder::image_size);
    v("patch_size", &VisionEncoder::patch_size);
    v("n_merge", &VisionEncoder::n_merge);
}

template <class V> void fields(V& v, LocalCompare*) {
    v.model_ids("models", &LocalCompare::models);
    v("weights", &LocalCompare::weights);
    v("machines", &LocalCompare::machines);
}

template <class V> void fields(V& v, LocalMachine*) {
    v("gpus", &LocalMachine::gpus);
    v("ram_bytes", &LocalMachine::ram_bytes);
    v("apple_chip", &LocalMachine::apple_chip);
}

template <class V> void fields(V& v, Parallelism*) {
    v("dp", &Parallelism::dp);
    v("tp", &Parallelism::tp);
    v("pp", &Parallelism::pp);
    v("cp", &Parallelism::cp);
    v("ep", &Parallelism::ep);
    v("sp", &Parallelism::sp);
    v("zero", &Parallelism::zero);
    v("shard_group", &Parallelism::shard_group);
    v("schedule", &Parallelism::schedule);
    v("virtual_stages", &Parallelism::virtual_stages);
    v("first_stage_layers", &Parallelism::first_stage_layers);
    v("last_stage_layers", &Parallelism::last_stage_layers);
    v("offload_optimizer", &Parallelism::offload_optimizer);
    v("offload_params", &Parallelism::offload_params);
    v("gpus_per_node", &Parallelism::gpus_per_node);
    v("zero_init", &Parallelism::zero_init);
    v("fsdp_flat_params", &Parallelism::fsdp_flat_params);
    v("fsdp_version", &Parallelism::fsdp_version);
    v("no_sync_accumulation", &Parallelism::no_sync_accumulation);
}

template <class V> void fields(V& v, Gpu*) {
    v("name", &Gpu::name);
    v("memory_bytes", &Gpu::memory_bytes);
}

template <class V> void fields(V& v, Overheads*) {
    v("cuda_context_bytes", &Overheads::cuda_context_bytes);
    v("cublas_workspace_bytes", &Overheads::cublas_workspace_bytes);
    v("fragmentation", &Overheads::fragmentation);
    v("temp_buffers", &Overheads::temp_buffers);
    v("bucket_bytes", &Overheads::bucket_bytes);
    v("backward_working_set", &Overheads::backward_working_set);
    v("cuda_lazy_loading", &Overheads::cuda_lazy_loading);
    v("expandable_segments", &Overheads::expandable_segments);
}

// The ds_config.json "zero_optimization" key names; the three sizes the Trainer can fill take "auto".
template <class V> void fields(V& v, DeepSpeedZero*) {
    v("enabled", &DeepSpeedZero::enabled);
    v.ds_size("reduce_bucket_size", &DeepSpeedZero::reduce_bucket_size);
    v("allgather_bucket_size", &DeepSpeedZero::allgather_bucket_size);
    v("overlap_comm", &DeepSpeedZero::overlap_comm);
    v("contiguous_gradients", &DeepSpeedZero::contiguous_gradients);
    v.ds_size("stage3_prefetch_bucket_size", &DeepSpeedZero::stage3_prefetch_bucket_size);
    v("stage3_max_live_parameters", &DeepSpeedZero::stage3_max_live_parameters);
    v("stage3_max_reuse_distance", &DeepSpeedZero::stage3_max_reuse_distance);
    v.ds_size("stage3_param_persistence_threshold", &DeepSpeedZero::stage3_param_persistence_threshold);
    v("sub_group_size", &DeepSpeedZero::sub_group_size);
    v("pin_memory", &DeepSpeedZero::pin_memory);
}

template <class V> void fields(V& v, MLASpec*) {
    v("q_lora_rank", &MLASpec::q_lora_rank);
    v("kv_lora_rank", &MLASpec::kv_lora_rank);
    v("qk_rope_head_dim", &MLASpec::qk_rope_head_dim);
    v("qk_nope_head_dim", &MLASpec::qk_nope_head_dim);
    v("v_head_dim", &MLASpec::v_head_dim);
}

template <class V> void fields(V& v, MoESpec*) {
    v("num_experts", &MoESpec::num_experts);
    v("top_k", &MoESpec::top_k);
    v("expert_ffn", &MoESpec::expert_ffn);
    v("shared_experts", &MoESpec::shared_experts);
    v("shared_expert_ffn", &MoESpec::shared_expert_ffn);
    v("shared_expert_gate", &MoESpec::shared_expert_gate);
    v("first_dense_layers", &MoESpec::first_dense_layers);
    v("moe_layer_freq", &MoESpec::moe_layer_freq);
    v("router_bias", &MoESpec::router_bias);
}

template <class V> void fields(V& v, SsmSpec*) {
    v("kind", &SsmSpec::kind);
    v("attn_period", &SsmSpec::attn_period);
    v("attn_offset", &SsmSpec::attn_offset);
    v("inner", &SsmSpec::inner);
    v("state", &SsmSpec::state);
    v("conv_kernel", &SsmSpec::conv_kernel);
    v("dt_rank", &SsmSpec::dt_rank);
    v("heads", &SsmSpec::heads);
    v("groups", &SsmSpec::groups);
    v("chunk", &SsmSpec::chunk);
    v("conv_bias", &SsmSpec::conv_bias);
    v("proj_bias", &SsmSpec::proj_bias);
    v("out_proj_bias", &SsmSpec::out_proj_bias);
    v("gated_norm", &SsmSpec::gated_norm);
    v("parallel_attention", &SsmSpec::parallel_attention);
    v("bcdt_norms", &SsmSpec::bcdt_norms);
    v("fp32_state", &SsmSpec::fp32_state);
    v("layer_list", &SsmSpec::layer_list);
    v("shared_blocks", &SsmSpec::shared_blocks);
    v("adapter_rank", &SsmSpec::adapter_rank);
    v("attn_adapters", &SsmSpec::attn_adapters);
}

template <class V> void fields(V& v, RopeSpec*) {
    v("scaling", &RopeSpec::scaling);
    v("factor", &RopeSpec::factor);
    v("original_max_position", &RopeSpec::original_max_position);
    v("partial", &RopeSpec::partial);
    v("local_table", &RopeSpec::local_table);
}

template <class V> void fields(V& v, Seq2SeqSpec*) {
    v("decoder_layers", &Seq2SeqSpec::decoder_layers);
    v("relative_buckets", &Seq2SeqSpec::relative_buckets);
}

template <class V> void fields(V& v, VisionSpec*) {
    v("kind", &VisionSpec::kind);
    v("layers", &VisionSpec::layers);
    v("hidden", &VisionSpec::hidden);
    v("heads", &VisionSpec::heads);
    v("ffn", &VisionSpec::ffn);
    v("patch", &VisionSpec::patch);
    v("image_size", &VisionSpec::image_size);
    v("channels", &VisionSpec::channels);
    v("temporal_patch", &VisionSpec::temporal_patch);
    v("merge", &VisionSpec::merge);
    v("projector", &VisionSpec::projector);
    v("tokens_per_image", &VisionSpec::tokens_per_image);
    v("position_embeddings", &VisionSpec::position_embeddings);
    v("global_layers", &VisionSpec::global_layers);
    v("max_tiles", &VisionSpec::max_tiles);
    v("aspect_ratios", &VisionSpec::aspect_ratios);
    v("intermediate_layers", &VisionSpec::intermediate_layers);
    v("cross_layers", &VisionSpec::cross_layers);
    v("grid_pinpoints", &VisionSpec::grid_pinpoints);
}

template <class V> void fields(V& v, ModelOrigin*) {
    v("hub", &ModelOrigin::hub);
    v("revision", &ModelOrigin::revision);
}

template <class V> void fields(V& v, GgufTensorBytes*) {
    v("layers", &GgufTensorBytes::layers);
    v("token_embd", &GgufTensorBytes::token_embd);
    v("output", &GgufTensorBytes::output);
    v("other", &GgufTensorBytes::other);
    v("experts", &GgufTensorBytes::experts);
    v("type", &GgufTensorBytes::type);
}

template <class V> void fields(V& v, ModelSpec*) {
    v("name", &ModelSpec::name);
    v("family", &ModelSpec::family);
    v("model_type", &ModelSpec::model_type);
    v("params", &ModelSpec::params_only);
    v("vocab", &ModelSpec::vocab);
    v("hidden", &ModelSpec::hidden);
    v("layers", &ModelSpec::layers);
    v("heads", &ModelSpec::heads);
    v("kv_heads", &ModelSpec::kv_heads);
    v("head_dim", &ModelSpec::head_dim);
    v("ffn", &ModelSpec::ffn);
    v("gated_mlp", &ModelSpec::gated_mlp);
    v("activation", &ModelSpec::activation);
    v("fused_qkv", &ModelSpec::fused_qkv);
    v("qkv_bias", &ModelSpec::qkv_bias);
    v("attn_out_bias", &ModelSpec::attn_out_bias);
    v("mlp_bias", &ModelSpec::mlp_bias);
    v("norm", &ModelSpec::norm);
    v("norms_per_layer", &ModelSpec::norms_per_layer);
    v("qk_norm", &ModelSpec::qk_norm);
    v("attn_output_gate", &ModelSpec::attn_output_gate);
    v("attention_sinks", &ModelSpec::attention_sinks);
    v("final_norm", &ModelSpec::final_norm);
    v("tied_embeddings", &ModelSpec::tied_embeddings);
    v("position", &ModelSpec::position);
    v("max_position", &ModelSpec::max_position);
    v("rope", &ModelSpec::rope);
    v("position_offset", &ModelSpec::position_offset);
    v("embed_dim", &ModelSpec::embed_dim);
    v("lm_head_bias", &ModelSpec::lm_head_bias);
    v("embedding_norm", &ModelSpec::embedding_norm);
    v("parallel_attn_mlp", &ModelSpec::parallel_attn_mlp);
    v("encoder", &ModelSpec::encoder);
    v("type_vocab", &ModelSpec::type_vocab);
    v("pooler", &ModelSpec::pooler);
    v("num_labels", &ModelSpec::num_labels);
    v("mlm_head", &ModelSpec::mlm_head);
    v("embedder", &ModelSpec::embedder);
    v("sliding_window", &ModelSpec::sliding_window);
    v("sliding_window_pattern", &ModelSpec::sliding_window_pattern);
    v("attention", &ModelSpec::attention);
    v("mla", &ModelSpec::mla);
    v("moe", &ModelSpec::moe);
    v("ssm", &ModelSpec::ssm);
    v("mtp_layers", &ModelSpec::mtp_layers);
    v("vision", &ModelSpec::vision);
    v("seq2seq", &ModelSpec::seq2seq);
    v("source", &ModelSpec::source);
    v("gguf_bytes", &ModelSpec::gguf_bytes);
}

// Scenario members other than model, gpu and gpu_count, which have forms of their own.
template <class V> void fields(V& v, Scenario*) {
    v("mode", &Scenario::mode);
    v("train", &Scenario::train);
    v("finetune", &Scenario::finetune);
    v("infer", &Scenario::infer);
    v("local", &Scenario::local);
    v("parallel", &Scenario::parallel);
    v("overheads", &Scenario::overheads);
    v("deepspeed", &Scenario::deepspeed);
}

template <class F> struct IsVector : std::false_type {};
template <class E> struct IsVector<std::vector<E>> : std::true_type {};
template <class F>
constexpr bool kIsStruct = std::is_class_v<F> && !std::is_same_v<F, std::string> && !IsVector<F>::value;

// ---- reading ----------------------------------------------------------------------------------
std::string describe(const Json& j) {
    std::string s = j.dump(-1, ' ', false, Json::error_handler_t::replace);
    if (s.size() > 40) s = s.substr(0, 37) + "...";
    return s;
}

std::string join(const std::string& path, const char* key) { return path.empty() ? key : path + "." + key; }

void read_value(const Json& j, const std::string& path, std::vector<FieldError>& errs, bool& out) {
    if (!j.is_boolean()) { errs.push_back({path, "must be true or false; got " + describe(j)}); return; }
    out = j.get<bool>();
}

void read_value(const Json& j, const std::string& path, std::vector<FieldError>& errs, double& out) {
    // JSON has no NaN or infinity; the parser rejects 1e400. The bound keeps products finite.
    if (!j.is_number()) { errs.push_back({path, "must be a number; got " + describe(j)}); return; }
    double x = j.get<double>();
    if (!std::isfinite(x) || std::fabs(x) > kMaxNumberField) {
        errs.push_back({path, "must be a number of magnitude at most 1e18; got " + describe(j)});
        return;
    }
    out = x;
}

// Integers: JSON integers, or numbers with no fraction (7e9 reads as 7000000000).
std::optional<double> integral(const Json& j, const std::string& path, std::vector<FieldError>& errs, double limit,
                               const char* limit_text) {
    if (!j.is_number()) { errs.push_back({path, "must be an integer; got " + describe(j)}); return std::nullopt; }
    double x = j.is_number_float() ? j.get<double>() : j.is_number_unsigned() ? static_cast<double>(j.get<uint64_t>())
                                                                                : static_cast<double>(j.get<int64_t>());
    if (std::floor(x) != x) { errs.push_back({path, "must be an integer; got " + describe(j)}); return std::nullopt; }
    if (std::fabs(x) > limit) {
        errs.push_back({path, std::string("must be an integer of magnitude at most ") + limit_text + "; got " + describe(j)});
        return std::nullopt;
    }
    return x;
}

void read_value(const Json& j, const std::string& path, std::vector<FieldError>& errs, int64_t& out) {
    if (auto x = integral(j, path, errs, kMaxInt64Field, "1e15")) out = static_cast<int64_t>(*x);
}

void read_value(const Json& j, const std::string& path, std::vector<FieldError>& errs, int& out) {
    if (auto x = integral(j, path, errs, std::numeric_limits<int>::max(), "2147483647")) out = static_cast<int>(*x);
}

// Byte counts of a GGUF file's tensors (model.gguf_bytes): whole numbers from 0 to 2^50.
void read_value(const Json& j, const std::string& path, std::vector<FieldError>& errs, uint64_t& out) {
    const bool whole = j.is_number_unsigned() || (j.is_number_integer() && j.get<int64_t>() >= 0) ||
                       (j.is_number_float() && j.get<double>() >= 0 && std::floor(j.get<double>()) == j.get<double>());
    const double x = j.is_number() ? j.get<double>() : -1;
    if (!whole || x > static_cast<double>(kMaxGgufBytes)) {
        errs.push_back({path, "must be a whole number of bytes from 0 to 2^50 (1125899906842624); got " + describe(j)});
        return;
    }
    out = j.is_number_unsigned() ? j.get<uint64_t>() : static_cast<uint64_t>(x);
}

template <class T>
void read_object(const Json& j, const std::string& path, std::vector<FieldError>& errs, T& out);

// local.custom_gpus[i]: an object of its fields (plan_local checks their values, naming each).
void read_value(const Json& j, const std::string& path, std::vector<FieldError>& errs, LocalCustomGpu& out) { read_object(j, path, errs, out); }

// model.vision.grid_pinpoints: [height, width] pairs, as config.json's image_grid_pinpoints (validate_model checks the sides).
void read_value(const Json& j, const std::string& path, std::vector<FieldError>& errs, GridPinpoint& out) {
    if (!j.is_array() || j.size() != 2) { errs.push_back({path, "must be a [height, width] pair of pixels, e.g. [336, 672]; got " + describe(j)}); return; }
    read_value(j[0], path + "[0]", errs, out.height);
    read_value(j[1], path + "[1]", errs, out.width);
}

// An array of at most `most` values, each read as its type at path[i]; `form` says what the array must be.
template <class T>
void read_array(const Json& j, const std::string& path, std::vector<FieldError>& errs, std::vector<T>& out, size_t most, const char* form) {
    if (!j.is_array() || j.size() > most) {
        errs.push_back({path, std::string(form) + "; got " + describe(j)});
        return;
    }
    out.assign(j.size(), T{});
    for (size_t i = 0; i < j.size(); ++i) read_value(j[i], path + "[" + std::to_string(i) + "]", errs, out[i]);
}

void read_value(const Json& j, const std::string& path, std::vector<FieldError>& errs, std::vector<uint64_t>& out) {
    read_array(j, path, errs, out, kMaxGgufLayers, "must be an array of at most 100000 byte counts, one per layer");
}

// model.vision.cross_layers: the language model's cross-attention layer indices (validate_model checks their range).
void read_value(const Json& j, const std::string& path, std::vector<FieldError>& errs, std::vector<int64_t>& out) {
    read_array(j, path, errs, out, static_cast<size_t>(kMaxListedLayers), "must be an array of at most 256 layer indices, e.g. [3, 8, 13]");
}

void read_value(const Json& j, const std::string& path, std::vector<FieldError>& errs, std::vector<GridPinpoint>& out) {
    read_array(j, path, errs, out, 64, "must be an array of at most 64 [height, width] pairs, e.g. [[336, 672], [672, 336]]");
}

// local.tensor_split: one number per GPU; local.custom_gpus: one object per GPU.
void read_value(const Json& j, const std::string& path, std::vector<FieldError>& errs, std::vector<double>& out) {
    read_array(j, path, errs, out, kMaxLocalGpus, "must be an array of at most 64 numbers, one per GPU, e.g. [3, 1]");
}

void read_value(const Json& j, const std::string& path, std::vector<FieldError>& errs, std::vector<LocalCustomGpu>& out) {
    read_array(j, path, errs, out, kMaxLocalGpus,
               "must be an array of at most 64 GPUs, e.g. [{\"name\": \"My GPU\", \"memory_gib\": 16, \"bandwidth_gbs\": 448}]");
}

void read_value(const Json& j, const std::string& path, std::vector<FieldError>& errs, std::string& out) {
    if (!j.is_string()) { errs.push_back({path, "must be a string; got " + describe(j)}); return; }
    const std::string& s = j.get_ref<const std::string&>();
    if (s.size() > kMaxStringField) { errs.push_back({path, "must be at most 256 bytes long; got " + std::to_string(s.size())}); return; }
    out = s;
}

// local.gpus: GPU preset ids in device order; each must be a preset (a link cannot name a GPU whose
// memory and bandwidth the planner does not know).
void read_value(const Json& j, const std::string& path, std::vector<FieldError>& errs, std::vector<std::string>& out) {
    if (!j.is_array() || j.size() > kMaxLocalGpus) {
        errs.push_back({path, "must be an array of at most 64 GPU preset ids, e.g. [\"rtx-4090\", \"rtx-3060-12gb\"]; got " + describe(j)});
        return;
    }
    out.assign(j.size(), "");
    for (size_t i = 0; i < j.size(); ++i) {
        const std::string p = path + "[" + std::to_string(i) + "]";
        if (j[i].is_string() && find_gpu(j[i].get_ref<const std::string&>())) out[i] = j[i].get_ref<const std::string&>();
        else errs.push_back({p, "must be a GPU preset id (`vramlens gpus` lists them); got " + describe(j[i])});
    }
}

template <class E, std::enable_if_t<std::is_enum_v<E>, int> = 0>
void read_value(const Json& j, const std::string& path, std::vector<FieldError>& errs, E& out) {
    if (j.is_string()) {
        if (auto v = parse_enum<E>(j.get_ref<const std::string&>())) { out = *v; return; }
    }
    errs.push_back({path, "must be one of " + enum_choices<E>() + "; got " + describe(j)});
}

// local.compare.weights: GGUF types with a published quantization loss (compare_grid's rule), at most kMaxCompareWeights.
void read_value(const Json& j, const std::string& path, std::vector<FieldError>& errs, std::vector<WeightFormat>& out) {
    if (!j.is_array() || j.size() > kMaxCompareWeights) {
        errs.push_back({path, "must be an array of at most " + std::to_string(kMaxCompareWeights) + " GGUF types, e.g. [\"q4_k_m\", \"q8_0\"]; got " + describe(j)});
        return;
    }
    out.assign(j.size(), WeightFormat::GGUF_Q4_K_M);
    for (size_t i = 0; i < j.size(); ++i) {
        const std::string p = path + "[" + std::to_string(i) + "]";
        std::optional<WeightFormat> w = j[i].is_string() ? parse_enum<WeightFormat>(j[i].get_ref<const std::string&>()) : std::nullopt;
        if (w && gguf_type_kld(*w) >= 0) out[i] = *w;
        else errs.push_back({p, "must be a GGUF type: q8_0, q6_k, q5_k_m, q4_k_m, q4_0, q3_k_m, q2_k, fp16 or bf16; got " + describe(j[i])});
    }
}

template <class T>
void read_object(const Json& j, const std::string& path, std::vector<FieldError>& errs, T& out);

// local.compare.machines: at most kMaxCompareMachines objects, each read field by field.
void read_value(const Json& j, const std::string& path, std::vector<FieldError>& errs, std::vector<LocalMachine>& out) {
    if (!j.is_array() || j.size() > kMaxCompareMachines) {
        errs.push_back({path, "must be an array of at most " + std::to_string(kMaxCompareMachines) +
                                  " machines, e.g. [{\"gpus\": [\"rtx-4090\"], \"ram_bytes\": 68719476736}]; got " + describe(j)});
        return;
    }
    out.assign(j.size(), LocalMachine{});
    for (size_t i = 0; i < j.size(); ++i) {
        const std::string p = path + "[" + std::to_string(i) + "]";
        read_object(j[i], p, errs, out[i]);
        if (!out[i].apple_chip.empty() && !find_apple_chip(out[i].apple_chip))
            errs.push_back({p + ".apple_chip", "must be \"\" (a PC) or an Apple chip id such as m2-max or m4-pro; got " + describe(Json(out[i].apple_chip))});
    }
}

template <class T>
struct Reader {
    const Json& obj;
    std::string path;
    std::vector<FieldError>& errs;
    T& out;
    std::vector<const char*> known;

    const Json* find(const char* key) {
        known.push_back(key);
        auto it = obj.find(key);
        return it == obj.end() ? nullptr : &*it;
    }

    template <class F>
    void operator()(const char* key, F T::*member) {
        const Json* j = find(key);
        if (!j) return;
        if constexpr (kIsStruct<F>)
            read_object(*j, join(path, key), errs, out.*member);
        else
            read_value(*j, join(path, key), errs, out.*member);
    }

    // LoRA targets: an array of PEFT module names, or "all-linear" (PEFT's shorthand).
    void lora_targets(const char* key, unsigned T::*member) {
        const Json* j = find(key);
        if (!j) return;
        std::string p = join(path, key);
        if (j->is_string() && j->get_ref<const std::string&>() == "all-linear") { out.*member = kLoraAllLinear; return; }
        if (!j->is_array()) { errs.push_back({p, "must be an array of module names or \"all-linear\"; got " + describe(*j)}); return; }
        unsigned bits = 0;
        bool good = true;
        for (size_t i = 0; i < j->size(); ++i) {
            const Json& e = (*j)[i];
            bool found = false;
            if (e.is_string())
                for (const auto& n : lora_target_names())
                    if (e.get_ref<const std::string&>() == n.name) { bits |= n.value; found = true; }
            if (!found) {
                errs.push_back({p + "[" + std::to_string(i) + "]", "must be one of " + lora_target_list() + "; got " + describe(e)});
                good = false;
            }
        }
        if (good) out.*member = bits;
    }

    // A DeepSpeed size: a number of elements, or "auto" (kDsAuto: the Trainer fills it from hidden_size).
    void ds_size(const char* key, double T::*member) {
        const Json* j = find(key);
        if (!j) return;
        if (j->is_string() && j->get_ref<const std::string&>() == "auto") { out.*member = kDsAuto; return; }
        if (!j->is_number()) { errs.push_back({join(path, key), "must be a number of elements or \"auto\"; got " + describe(*j)}); return; }
        read_value(*j, join(path, key), errs, out.*member);
    }

    // local.compare.models: model preset ids, or "current" (the scenario's own model).
    void model_ids(const char* key, std::vector<std::string> T::*member) {
        const Json* j = find(key);
        if (!j) return;
        const std::string p = join(path, key);
        if (!j->is_array() || j->size() > kMaxCompareModels) {
            errs.push_back({p, "must be an array of at most " + std::to_string(kMaxCompareModels) + " model preset ids or \"current\"; got " + describe(*j)});
            return;
        }
        std::vector<std::string> ids(j->size());
        for (size_t i = 0; i < j->size(); ++i) {
            const Json& e = (*j)[i];
            if (e.is_string() && (e.get_ref<const std::string&>() == "current" || find_model(e.get_ref<const std::string&>())))
                ids[i] = e.get_ref<const std::string&>();
            else
                errs.push_back({p + "[" + std::to_string(i) + "]", "must be a model preset id (`vramlens models`) or \"current\"; got " + describe(e)});
        }
        out.*member = ids;
    }

    void finish() {
        for (auto it = obj.begin(); it != obj.end(); ++it) {
            bool ok = false;
            for (const char* k : known) ok = ok || it.key() == k;
            // An empty key is named "" so the error still points at something (found by fuzzing).
            const std::string key = it.key().empty() ? std::string("\"\"") : it.key();
            if (!ok) errs.push_back({path.empty() ? key : path + "." + key, "unknown field"});
        }
    }
};

template <class T>
void read_object(const Json& j, const std::string& path, std::vector<FieldError>& errs, T& out) {
    if (!j.is_object()) { errs.push_back({path, "must be an object; got " + describe(j)}); return; }
    Reader<T> r{j, path, errs, out, {}};
    fields(r, static_cast<T*>(nullptr));
    r.finish();
}

// The ModelSpec fields that describe the architecture: all but the labels and the parameter count.
struct ArchitectureKeys {
    std::vector<const char*> keys;
    template <class F>
    void operator()(const char* key, F ModelSpec::*) {
        const std::string k = key;
        if (k != "name" && k != "family" && k != "model_type" && k != "params" && k != "source" && k != "gguf_bytes") keys.push_back(key);
    }
};

template <class J>
bool defines_architecture(const J& model) {
    ArchitectureKeys a;
    fields(a, static_cast<ModelSpec*>(nullptr));
    for (auto it = model.begin(); it != model.end(); ++it)
        for (const char* k : a.keys)
            if (it.key() == k) return true;
    return false;
}

// model.gguf_bytes as read: one entry per layer of the model it was read with, and a sane total.
// (A scenario edited in memory may disagree with its model: the estimate then warns and falls back
// to the weight format's rules; a file or link that disagrees was not written by vramlens.)
void check_gguf_bytes(const ModelSpec& m, std::vector<FieldError>& errs) {
    const GgufTensorBytes& g = m.gguf_bytes;
    if (g.empty()) return;
    if (static_cast<int64_t>(g.layers.size()) != m.layers) {
        errs.push_back({"model.gguf_bytes.layers", "has " + std::to_string(g.layers.size()) + " entries but the model has " +
                                                       std::to_string(m.layers) + " layers: give one byte count per layer (blk.<i>.*), "
                                                       "or leave out gguf_bytes to size the weights by infer.weights"});
        return;
    }
    if (!g.experts.empty() && g.experts.size() != g.layers.size()) {
        errs.push_back({"model.gguf_bytes.experts", "has " + std::to_string(g.experts.size()) + " entries but layers has " +
                                                        std::to_string(g.layers.size()) + ": give one per layer, or none for a dense model"});
        return;
    }
    for (size_t i = 0; i < g.experts.size(); ++i)
        if (g.experts[i] > g.layers[i]) {
            errs.push_back({"model.gguf_bytes.experts[" + std::to_string(i) + "]",
                            "is " + std::to_string(g.experts[i]) + " bytes, more than its whole layer (layers[" + std::to_string(i) + "] = " +
                                std::to_string(g.layers[i]) + "): the experts are part of their layer's bytes"});
            return;
        }
    double total = static_cast<double>(g.token_embd) + static_cast<double>(g.output) + static_cast<double>(g.other);
    for (uint64_t b : g.layers) total += static_cast<double>(b);
    if (total > static_cast<double>(kMaxGgufBytes))
        errs.push_back({"model.gguf_bytes", "sums to " + grouped_whole(total) + " bytes, more than 2^50 (1 PiB): not a real GGUF file"});
}

// "model": a preset id, {"hf_config": {...config.json...}}, or the ModelSpec's own fields.
void read_model(const Json& j, std::vector<FieldError>& errs, std::vector<std::string>& warnings, ModelSpec& out) {
    if (j.is_string()) {  // a preset id, or its Hugging Face repo id
        if (const ModelPreset* p = find_model(j.get_ref<const std::string&>())) out = p->spec;
        else errs.push_back({"model", "unknown preset id " + describe(j) + " (`vramlens models` lists them)"});
        return;
    }
    if (j.is_object() && j.contains("hf_config")) {
        if (j.size() != 1) { errs.push_back({"model", "an object with \"hf_config\" must have no other fields"}); return; }
        const Json& cfg = j["hf_config"];
        if (!cfg.is_object()) { errs.push_back({"model.hf_config", "must be a config.json object; got " + describe(cfg)}); return; }
        Result<ModelSpec> r = import_hf_config(cfg.dump(-1, ' ', false, Json::error_handler_t::replace));
        for (const FieldError& e : r.errors) errs.push_back({"model.hf_config." + e.field, e.message});
        for (const std::string& w : r.warnings) warnings.push_back("model.hf_config: " + w);
        if (r.ok()) out = *r;
        return;
    }
    if (!j.is_object()) {
        errs.push_back({"model", "must be a preset id, an object of model fields, or {\"hf_config\": {...}}; got " + describe(j)});
        return;
    }
    // A parameter count alone: the other fields start blank (model_from_param_count), not as the
    // default model's architecture. read_object reports a badly formed count; a negative one is read
    // as given, and validate() says it must be > 0.
    const auto params = j.find("params");
    std::vector<FieldError> params_form;
    int64_t n = 0;
    if (params != j.end()) read_value(*params, "model.params", params_form, n);
    if (params != j.end() && params_form.empty() && n != 0) out = model_from_param_count(n);
    read_object(j, "model", errs, out);
    check_gguf_bytes(out, errs);
    if (!params_form.empty()) return;
    if (n != 0 || defines_architecture(j)) return;
    // Neither a count nor a single architecture field: the default model would be estimated silently.
    const std::string ways = "give a preset id (\"llama-3.1-8b\"), a parameter count (\"params\": 7e9), "
                             "{\"hf_config\": {...config.json...}}, or the architecture fields (vocab, hidden, layers, "
                             "heads, kv_heads, head_dim, ffn, ...)";
    if (params != j.end()) {
        errs.push_back({"model.params", "is 0, which means the architecture is given instead, but the model has no "
                                        "architecture fields: " + ways});
        return;
    }
    bool labels = false, name_only = j.size() == 1 && j.contains("name");
    for (auto it = j.begin(); it != j.end(); ++it) labels = labels || it.key() == "name" || it.key() == "family" || it.key() == "model_type";
    const std::string what = j.empty() ? "is an empty object"
                           : name_only ? "has only a name"
                           : labels    ? "has only labels (name, family, model_type) and no architecture"
                                       : "defines no architecture";
    errs.push_back({"model", what + ": " + ways});
}

// The GPU preset a name and nvidia-smi memory name, if any (the reader and the writer key presets so).
const GpuPreset* preset_with(const std::string& name, double memory_bytes) {
    for (const GpuPreset& p : gpu_presets())
        if (p.name == name && p.memory_bytes == memory_bytes) return &p;
    return nullptr;
}

void read_gpu(const Json& j, std::vector<FieldError>& errs, Gpu& out) {
    if (j.is_string()) {
        if (const GpuPreset* p = find_gpu(j.get_ref<const std::string&>())) out = p->gpu();
        else errs.push_back({"gpu", "unknown preset id " + describe(j) + " (`vramlens gpus` lists them)"});
        return;
    }
    read_object(j, "gpu", errs, out);
    // The CUDA-visible total is not a field: a GPU object with a preset's name and memory is that
    // preset; any other is a custom GPU, whose memory_bytes is the figure CUDA reports.
    const GpuPreset* p = preset_with(out.name, out.memory_bytes);
    out.cuda_total_bytes = p ? p->cuda_total_bytes : 0;
}

// gpu_count when left out: one GPU per rank of every parallel dimension (ep folds into dp).
std::optional<int64_t> ranks(const Parallelism& p) {
    double n = static_cast<double>(p.dp) * static_cast<double>(p.tp) * static_cast<double>(p.pp) * static_cast<double>(p.cp);
    if (p.dp < 1 || p.tp < 1 || p.pp < 1 || p.cp < 1 || n > kMaxInt64Field) return std::nullopt;
    return static_cast<int64_t>(n);
}

// ---- writing ----------------------------------------------------------------------------------
template <class T>
Json write_object(const T& v, const T& defaults, JsonStyle style);

template <class F>
Json to_json_value(const F& x, JsonStyle) {
    if constexpr (std::is_enum_v<F>) return enum_name(x);
    else return x;
}

Json to_json_value(const std::vector<WeightFormat>& x, JsonStyle) {
    Json a = Json::array();
    for (WeightFormat w : x) a.push_back(enum_name(w));
    return a;
}

Json to_json_value(const std::vector<LocalMachine>& x, JsonStyle style) {
    Json a = Json::array();
    for (const LocalMachine& m : x) a.push_back(write_object(m, LocalMachine{}, style));
    return a;
}

Json to_json_value(const std::vector<GridPinpoint>& x, JsonStyle) {
    Json a = Json::array();
    for (const GridPinpoint& p : x) a.push_back(Json::array({p.height, p.width}));
    return a;
}

Json to_json_value(const std::vector<LocalCustomGpu>& gpus, JsonStyle) {
    Json a = Json::array();
    for (const LocalCustomGpu& g : gpus) a.push_back(write_object(g, LocalCustomGpu{}, JsonStyle::Pretty));  // every field of each
    return a;
}

Json lora_targets_json(unsigned bits) {
    if (bits == kLoraAllLinear) return "all-linear";
    Json a = Json::array();
    for (const auto& n : lora_target_names())
        if (bits & n.value) a.push_back(n.name);
    return a;
}

template <class T>
struct Writer {
    const T& v;
    const T& d;
    JsonStyle style;
    Json& out;

    template <class F>
    void operator()(const char* key, F T::*member) {
        if constexpr (kIsStruct<F>) {
            Json sub = write_object(v.*member, d.*member, style);
            if (style == JsonStyle::Pretty || !sub.empty()) out[key] = std::move(sub);
        } else if (style == JsonStyle::Pretty || !(v.*member == d.*member)) {
            out[key] = to_json_value(v.*member, style);
        }
    }

    void lora_targets(const char* key, unsigned T::*member) {
        if (style == JsonStyle::Pretty || v.*member != d.*member) out[key] = lora_targets_json(v.*member);
    }
    void ds_size(const char* key, double T::*member) {
        if (style == JsonStyle::Pretty || v.*member != d.*member) out[key] = v.*member == kDsAuto ? Json("auto") : Json(v.*member);
    }
    void model_ids(const char* key, std::vector<std::string> T::*member) {
        if (style == JsonStyle::Pretty || v.*member != d.*member) out[key] = v.*member;
    }
};

template <class T>
Json write_object(const T& v, const T& defaults, JsonStyle style) {
    Json out = Json::object();
    Writer<T> w{v, defaults, style, out};
    fields(w, static_cast<T*>(nullptr));
    return out;
}

std::string dump(const Json& j, JsonStyle style) {
    return j.dump(style == JsonStyle::Pretty ? 2 : -1, ' ', false, Json::error_handler_t::replace);
}

Json model_json(const ModelSpec& m, JsonStyle style) {
    if (!m.architecture_known()) {  // a parameter count and its labels; the architecture is unknown
        const ModelSpec base = model_from_param_count(m.params_only);
        Json out = Json::object();
        if (style == JsonStyle::Pretty || m.name != base.name) out["name"] = m.name;
        if (style == JsonStyle::Pretty || m.family != base.family) out["family"] = m.family;
        if (style == JsonStyle::Pretty || m.model_type != base.model_type) out["model_type"] = m.model_type;
        out["params"] = m.params_only;
        if (!m.source.hub.empty() || !m.source.revision.empty()) out["source"] = write_object(m.source, ModelOrigin{}, JsonStyle::Pretty);
        return out;
    }
    Json out = write_object(m, ModelSpec{}, style);
    // proj_bias is written with out_proj_bias beside it: a file that has the one without the other is from before
    // out_proj_bias, where proj_bias held for both (scenario_from_json).
    if (auto sj = out.find("ssm"); sj != out.end() && sj->contains("proj_bias")) (*sj)["out_proj_bias"] = m.ssm.out_proj_bias;
    // The source is written only for an imported model (a preset's or a typed model's has none).
    if (m.source.hub.empty() && m.source.revision.empty()) out.erase("source");
    else out["source"] = write_object(m.source, ModelOrigin{}, JsonStyle::Pretty);
    // A GGUF file's tensor bytes only when the model has them and they still describe it (one entry
    // per layer: an edited model's no longer do, and the estimate ignores them).
    if (m.gguf_bytes.empty() || static_cast<int64_t>(m.gguf_bytes.layers.size()) != m.layers) out.erase("gguf_bytes");
    else {
        out["gguf_bytes"] = write_object(m.gguf_bytes, GgufTensorBytes{}, style);
        out["gguf_bytes"]["type"] = enum_name(m.gguf_bytes.type);  // always: a link without it reads the scenario's format
    }
    // The default model's architecture under other labels: one field still says it is an
    // architecture, since a model object with labels only is an error when read.
    if (!defines_architecture(out)) out["hidden"] = m.hidden;
    return out;
}

// Field-by-field equality over the same field lists.
template <class T>
bool same(const T& a, const T& b);

template <class T>
struct Comparer {
    const T& a;
    const T& b;
    bool equal = true;
    template <class F>
    void operator()(const char*, F T::*member) {
        if constexpr (kIsStruct<F>) equal = equal && same(a.*member, b.*member);
        else equal = equal && a.*member == b.*member;
    }
    void lora_targets(const char*, unsigned T::*member) { equal = equal && a.*member == b.*member; }
    void ds_size(const char*, double T::*member) { equal = equal && a.*member == b.*member; }
    void model_ids(const char*, std::vector<std::string> T::*member) { equal = equal && a.*member == b.*member; }
};

template <class T>
bool same(const T& a, const T& b) {
    Comparer<T> c{a, b};
    fields(c, static_cast<T*>(nullptr));
    return c.equal;
}

// The preset whose spec is exactly this one (every field), if any: share links stay short.
std::optional<std::string> preset_model_id(const ModelSpec& m) {
    if (!m.architecture_known()) return std::nullopt;
    for (const ModelPreset& p : model_presets())
        if (same(p.spec, m)) return p.id;
    return std::nullopt;
}

std::optional<std::string> preset_gpu_id(const Gpu& g) {
    const GpuPreset* p = preset_with(g.name, g.memory_bytes);
    if (p && p->cuda_total_bytes == g.usable_bytes()) return p->id;
    return std::nullopt;
}

}  // namespace

Result<Scenario> scenario_from_json(std::string_view text) {
    std::vector<FieldError> errs;
    std::vector<std::string> warnings;
    std::optional<Json> parsed = parse_ordered_json_input(text, "json", errs);
    if (!parsed) return Result<Scenario>::failure(std::move(errs));
    const Json& j = *parsed;
    if (!j.is_object()) return Result<Scenario>::failure({{"json", "must be an object; got " + describe(j)}});

    auto version = j.find("version");
    if (version == j.end()) {
        errs.push_back({"version", "missing; this build reads \"version\": " + std::to_string(kScenarioJsonVersion)});
    } else if (!version->is_number_integer() || version->get<int64_t>() < 1) {
        errs.push_back({"version", "must be a positive integer; got " + describe(*version)});
    } else if (version->get<int64_t>() > kScenarioJsonVersion) {
        errs.push_back({"version", "is " + describe(*version) + ", newer than this build reads (" +
                                       std::to_string(kScenarioJsonVersion) + "); update vramlens"});
    }
    if (!errs.empty()) return Result<Scenario>::failure(std::move(errs));  // an unknown version's fields mean nothing

    Scenario s;
    Reader<Scenario> r{j, std::string(), errs, s, {"version"}};
    // A profile first (its mode read before it, to check it applies), then every explicit field over it.
    if (const Json* p = r.find("profile")) {
        std::string id;
        read_value(*p, "profile", errs, id);
        if (auto m = j.find("mode"); m != j.end()) read_value(*m, "mode", errs, s.mode);
        if (errs.empty())
            for (FieldError& e : apply_profile(s, id)) errs.push_back(std::move(e));
    }
    if (const Json* m = r.find("model")) read_model(*m, errs, warnings, s.model);
    fields(r, static_cast<Scenario*>(nullptr));
    if (const Json* g = r.find("gpu")) read_gpu(*g, errs, s.gpu);
    if (const Json* n = r.find("gpu_count")) read_value(*n, "gpu_count", errs, s.gpu_count);
    else if (auto n2 = ranks(s.parallel)) s.gpu_count = *n2;
    r.finish();
    if (auto mj = j.find("model"); mj != j.end() && mj->is_object()) {
        // Files and links written before the bytes recorded their type held them only while the format in use
        // was the file's: that format is their type.
        if (auto g = mj->find("gguf_bytes"); g != mj->end() && g->is_object() && !g->contains("type"))
            s.model.gguf_bytes.type = s.mode == Mode::Local ? s.local.weights : s.infer.weights;
        // Files and links written before out_proj_bias had one proj_bias for in_proj and out_proj alike: it holds for both.
        if (auto sj = mj->find("ssm"); sj != mj->end() && sj->is_object() && sj->contains("proj_bias") && !sj->contains("out_proj_bias"))
            s.model.ssm.out_proj_bias = s.model.ssm.proj_bias;
    }
    if (!s.local.apple_chip.empty() && !find_apple_chip(s.local.apple_chip))
        errs.push_back({"local.apple_chip", "must be \"\" (a PC) or an Apple chip id such as m2-max or m4-pro; got " +
                                                describe(Json(s.local.apple_chip))});
    if (!errs.empty()) return Result<Scenario>::failure(std::move(errs), std::move(warnings));
    return Result<Scenario>::success(std::move(s), std::move(warnings));
}

Json scenario_json_value(const Scenario& s, JsonStyle style) {
    // Compact leaves out what reading gives anyway: Scenario's defaults with the scenario's profile applied.
    Scenario defaults;
    Json j = Json::object();
    j["version"] = kScenarioJsonVersion;
    if (!s.profile.empty()) j["profile"] = s.profile;
    if (!s.profile.empty()) {
        if (s.mode != defaults.mode) j["mode"] = enum_name(s.mode);
        defaults.mode = s.mode;
        apply_profile(defaults, s.profile);
    }
    if (auto id = preset_model_id(s.model)) j["model"] = *id;
    else j["model"] = model_json(s.model, style);
    Writer<Scenario> w{s, defaults, style, j};
    fields(w, static_cast<Scenario*>(nullptr));
    if (auto id = preset_gpu_id(s.gpu)) j["gpu"] = *id;
    else if (style == JsonStyle::Pretty || !(s.gpu.name == defaults.gpu.name && s.gpu.memory_bytes == defaults.gpu.memory_bytes &&
                                                 s.gpu.usable_bytes() == defaults.gpu.usable_bytes()))
        j["gpu"] = write_object(s.gpu, Gpu{}, JsonStyle::Pretty);
    if (style == JsonStyle::Pretty || ranks(s.parallel) != std::optional<int64_t>(s.gpu_count)) j["gpu_count"] = s.gpu_count;
    return j;
}

std::string scenario_to_json(const Scenario& s, JsonStyle style) { return dump(scenario_json_value(s, style), style); }

std::vector<FieldError> set_scenario_field(Scenario& s, std::string_view path, std::string_view json_value) {
    std::vector<FieldError> errs;
    std::optional<Json> parsed = parse_ordered_json_input(json_value, path, errs);  // the one JSON reader (json_input.h)
    if (!parsed) return {{std::string(path), "is not valid JSON: " + std::string(json_value)}};
    Json value = std::move(*parsed);
    // {"a": {"b": value}} for "a.b", read over s as a scenario file's fields are.
    std::string_view rest = path;
    std::vector<std::string> keys;
    for (size_t dot; (dot = rest.find('.')) != std::string_view::npos; rest.remove_prefix(dot + 1)) keys.emplace_back(rest.substr(0, dot));
    keys.emplace_back(rest);
    for (size_t i = keys.size(); i-- > 0;) {
        Json o = Json::object();
        o[keys[i]] = std::move(value);
        value = std::move(o);
    }
    read_object(value, std::string(), errs, s);
    return errs;
}

std::string model_to_json(const ModelSpec& m, JsonStyle style) { return dump(model_json(m, style), style); }

std::optional<std::string> model_preset_id(const ModelSpec& m) { return preset_model_id(m); }

}  // namespace vl
