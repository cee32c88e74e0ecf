// The Run locally plan of a Scenario (local.h): input checks naming local.* fields, then the planners.
#include "planner/local.h"

#include <algorithm>
#include <cmath>
#include "text_format.h"

#include "inference/kv_cache.h"
#include "inference/weight_formats.h"
#include "model/model_validate.h"
#include "model/presets.h"
#include "planner/launch.h"
#include "planner/rank.h"
#include "scenario_json.h"
#include "units.h"

namespace vl {

bool is_serving(LocalEngine e) { return e == LocalEngine::VLLM || e == LocalEngine::SGLang; }

std::vector<WeightFormat> local_weight_choices(LocalEngine e) {
    std::vector<WeightFormat> out;
    for (const WeightFormatInfo& f : kWeightFormats)
        if (is_serving(e) ? served_weights(f.format)
                          : f.family == FormatFamily::Gguf || f.format == WeightFormat::FP16 || f.format == WeightFormat::BF16)
            out.push_back(f.format);
    return out;
}

std::vector<KvDtype> local_kv_choices(LocalEngine e) {
    if (is_serving(e)) return {KvDtype::BF16, KvDtype::FP16, KvDtype::FP8};
    return {KvDtype::FP16, KvDtype::BF16, KvDtype::INT8, KvDtype::INT4};
}

std::string local_kv_name(LocalEngine e, KvDtype kv) {
    if (!is_serving(e)) return llamacpp_cache_type(kv);
    return kv == KvDtype::BF16 ? "auto (bf16)" : kv == KvDtype::FP8 ? "fp8" : "fp16";
}

namespace {

template <class T>
bool listed(const std::vector<T>& v, T x) {
    return std::find(v.begin(), v.end(), x) != v.end();
}

std::string engine_label(LocalEngine e) {
    switch (e) {
        case LocalEngine::LlamaCpp: return "llama.cpp";
        case LocalEngine::Ollama: return "Ollama";
        case LocalEngine::VLLM: return "vLLM";
        case LocalEngine::SGLang: return "SGLang";
    }
    return "?";
}

// A planner error ("ctx: ...") under the scenario field it is about; the planners name their CLI flags.
// The serving planner's tp/pp errors are local.tp / local.pp's when those were given, else the GPUs'.
FieldError planner_error(const std::string& e, bool parallel_given = false) {
    const char* tp = parallel_given ? "local.tp" : "local.gpus";
    const char* pp = parallel_given ? "local.pp" : "local.gpus";
    const std::pair<const char*, const char*> kFields[] = {
        {"model", "model"}, {"weights", "local.weights"}, {"kv-type", "local.kv"}, {"kv-cache-dtype", "local.kv"},
        {"ctx", "local.context"}, {"max-model-len", "local.context"}, {"context-length", "local.context"}, {"ram", "local.ram_bytes"},
        {"gpu-memory-utilization", "local.gpu_memory_utilization"}, {"mem-fraction-static", "local.gpu_memory_utilization"},
        {"max-num-seqs", "local.max_num_seqs"}, {"max-running-requests", "local.max_num_seqs"}, {"gpu", "local.gpus"},
        {"n-cpu-moe", "local.n_cpu_moe"}, {"tensor-split", "local.tensor_split"}, {"split-mode", "local.split_mode"},
        {"main-gpu", "local.main_gpu"}, {"ubatch", "local.ubatch"}, {"mmproj-bytes", "local.mmproj_bytes"},
        {"no-mmproj-offload", "local.mmproj_offload"}, {"image-max-tokens", "local.image_max_tokens"}, {"tp/pp", tp}, {"tp", tp}, {"pp", pp},
        {"draft-model", "local.draft.model"}, {"draft-weights", "local.draft.weights"}, {"draft-kv-type", "local.draft.kv"},
        {"draft-ngl", "local.draft.ngl"}, {"draft-ctx", "local.draft.context"}, {"draft-max", "local.draft.draft_max"}};
    const size_t colon = e.find(':');
    const std::string key = e.substr(0, colon);
    for (const auto& [flag, field] : kFields)
        if (key == flag && colon != std::string::npos) return {field, e.substr(colon + 2 <= e.size() ? colon + 2 : colon + 1)};
    return {"local", e};
}

// local.mmproj_encoder, as the page reads it from a projector's .gguf header (vision_encoder_from_gguf): every size of a
// real encoder, and a projector's bytes beside it. Bounds keep the compute buffer's arithmetic real: images to 65536 px.
void check_mmproj_encoder(const LocalOptions& lo, std::vector<FieldError>& errs) {
    const VisionEncoder& e = lo.mmproj_encoder;
    const std::string again = "; pick the projector's .gguf again";
    auto within = [&](const char* field, int64_t v, int64_t lo_bound, int64_t hi) {
        if (v < lo_bound || v > hi)
            errs.push_back({std::string("local.mmproj_encoder.") + field,
                            "must be from " + std::to_string(lo_bound) + " to " + std::to_string(hi) + "; got " + std::to_string(v) + again});
    };
    within("n_embd", e.n_embd, 1, 1 << 20);
    within("n_ff", e.n_ff, 1, 1 << 22);
    within("n_head", e.n_head, 1, 4096);
    within("n_layer", e.n_layer, 0, 4096);
    within("image_size", e.image_size, 1, 65536);
    within("patch_size", e.patch_size, 1, 65536);
    within("n_merge", e.n_merge, 1, 64);
    if (!(lo.mmproj_bytes > 0))
        errs.push_back({"local.mmproj_encoder", "describes a projector, but local.mmproj_bytes is 0 (no projector)" + again});
}

// Bounds that keep a typed custom GPU real: the largest GPUs have under 300 GB and 10 TB/s.
constexpr double kMaxCustomGpuGib = 4096;
constexpr double kMaxCustomGpuGbs = 100'000;
constexpr double kMaxCustomGpuTflops = 100'000;

}  // namespace

GpuPreset custom_gpu_preset(const LocalCustomGpu& g) {
    GpuPreset p;
    p.id = g.name;
    p.name = g.name;
    p.memory_bytes = g.memory_gib * kGiB;
    p.cuda_total_bytes = p.memory_bytes;  // the figure typed is what CUDA reports (torch.cuda.mem_get_info()[1])
    p.memory_bandwidth = g.bandwidth_gbs * kGB;
    p.fp16_tensor_flops = g.fp16_tflops * 1e12;  // TFLOP/s
    return p;
}

std::vector<GpuPreset> local_gpu_specs(const LocalOptions& lo) {
    std::vector<GpuPreset> out;
    for (const std::string& id : lo.gpus)
        if (const GpuPreset* g = find_gpu(id)) out.push_back(*g);
    for (const LocalCustomGpu& g : lo.custom_gpus) out.push_back(custom_gpu_preset(g));
    return out;
}

std::vector<FieldError> local_inputs(const Scenario& s, PlanInput& in, ServingPlanInput& sin) {
    const LocalOptions& lo = s.local;
    const std::string engine = engine_label(lo.engine);
    const bool serving = is_serving(lo.engine);
    const bool mac = !lo.apple_chip.empty();
    std::vector<FieldError> errs;
    validate_model(s.model, errs);  // the model's own rules first: the planners assume a valid architecture
    // Zamba / Zamba2 (model.ssm.shared_blocks): llama.cpp has no Zamba architecture (Ollama runs llama.cpp's); the serving
    // planners refuse every state-space model below. The estimate sizes transformers, and vLLM for Zamba2 (inference.cpp
    // validate_inference) [llamacpp-zamba2-pr] [vllm-code].
    if (s.model.ssm.shared_blocks > 0 && !serving)
        errs.push_back({"local.engine", engine + " does not run this Zamba model (" + s.model.model_type +
                                            ": model.ssm.shared_blocks, shared transformer blocks over a Mamba backbone): llama.cpp has no "
                                            "Zamba architecture; size it with `vramlens estimate` for transformers" +
                                            (s.model.ssm.kind == SsmKind::Mamba2 ? " or vLLM" : "")});
    if (mac && serving)
        errs.push_back({"local.engine", engine + " runs on NVIDIA or AMD GPUs, not on a Mac: choose llama.cpp or Ollama, or a PC with GPUs"});
    if (mac && !find_apple_chip(lo.apple_chip))
        errs.push_back({"local.apple_chip", "\"" + lo.apple_chip + "\" is not an Apple chip vramlens knows (e.g. m2-max, m4-pro)"});
    if (mac && (!lo.gpus.empty() || !lo.custom_gpus.empty()))
        errs.push_back({"local.gpus", "a Mac has one GPU sharing its RAM: remove the GPUs, or choose a PC"});
    if (!mac && lo.gpus.empty() && lo.custom_gpus.empty())
        errs.push_back({"local.gpus", "add at least one GPU (or choose an Apple Silicon Mac)"});
    for (size_t i = 0; i < lo.gpus.size(); ++i)
        if (!find_gpu(lo.gpus[i]))
            errs.push_back({"local.gpus[" + std::to_string(i) + "]", "\"" + lo.gpus[i] + "\" is not a GPU preset; pick one from the list"});
    for (size_t i = 0; i < lo.custom_gpus.size(); ++i) {
        const LocalCustomGpu& g = lo.custom_gpus[i];
        const std::string f = "local.custom_gpus[" + std::to_string(i) + "].";
        if (g.name.find_first_not_of(' ') == std::string::npos) errs.push_back({f + "name", "give the GPU a name, e.g. \"RTX 5070 Ti\""});
        if (!(g.memory_gib > 0 && g.memory_gib <= kMaxCustomGpuGib))
            errs.push_back({f + "memory_gib", "must be the GPU's memory in GiB, above 0 and at most 4096 (e.g. 16 for a 16 GB card)"});
        if (!(g.bandwidth_gbs > 0 && g.bandwidth_gbs <= kMaxCustomGpuGbs))
            errs.push_back({f + "bandwidth_gbs", "must be the memory bandwidth in GB/s from the GPU's sheet, above 0 and at most 100000 (e.g. 896)"});
        if (!(g.fp16_tflops >= 0 && g.fp16_tflops <= kMaxCustomGpuTflops))
            errs.push_back({f + "fp16_tflops", "must be the dense FP16 tensor TFLOP/s, 0 (not known: no prefill speed) to 100000"});
    }
    std::vector<PlanGpu> gpus;
    for (const GpuPreset& g : local_gpu_specs(lo)) gpus.push_back({g.name, g.cuda_total_bytes, -1});
    if (serving)
        for (const PlanGpu& g : gpus)
            if (g.name != gpus.front().name || g.memory_bytes != gpus.front().memory_bytes) {
                errs.push_back({"local.gpus", engine + " needs equal GPUs (tensor parallelism splits every layer evenly); got " +
                                                  gpus.front().name + " and " + g.name + ": give one kind, or choose llama.cpp, which splits layers unevenly"});
                break;
            }
    if (!(lo.ram_bytes > 0) || !std::isfinite(lo.ram_bytes) || lo.ram_bytes > 1e15)
        errs.push_back({"local.ram_bytes", "give the system RAM, e.g. 64 GiB: layers not on a GPU live there"});
    if (!listed(local_weight_choices(lo.engine), lo.weights))
        errs.push_back({"local.weights", std::string(weight_format_name(lo.weights)) + " is not a format " + engine + " runs here; " +
                                             (serving ? "pick bf16, fp16, fp8, gptq or awq" : "pick a GGUF type (q4_k_m, q8_0, ...), fp16 or bf16")});
    if (!listed(local_kv_choices(lo.engine), lo.kv))
        errs.push_back({"local.kv", std::string(kv_dtype_name(lo.kv)) + " is not a KV type " + engine + " caches; " +
                                        (serving ? "pick auto (bf16), fp16 or fp8" : "pick f16, bf16, q8_0 or q4_0")});
    else if (!serving && (lo.kv == KvDtype::INT8 || lo.kv == KvDtype::INT4) && !lo.flash_attention)
        errs.push_back({"local.kv", "llama.cpp quantizes the V cache only with flash attention: turn flash attention on, or use f16"});
    const int64_t limit = s.model.architecture_known() ? s.model.max_position : 0;
    if (lo.context < (serving ? 0 : 1))
        errs.push_back({"local.context", serving ? "must be 0 (the model's max_position_embeddings) or more tokens" : "must be at least 1 token"});
    else if (serving && limit > 0 && lo.context > limit)
        errs.push_back({"local.context", std::to_string(lo.context) + " is above the model's max_position_embeddings (" + std::to_string(limit) +
                                             "), which " + engine + " refuses: give " + std::to_string(limit) + " or less"});
    if (lo.wired_limit_mb < 0) errs.push_back({"local.wired_limit_mb", "must be 0 (macOS's default) or a size in MiB"});
    if (serving && !(lo.gpu_memory_utilization > 0 && lo.gpu_memory_utilization <= 1))
        errs.push_back({"local.gpu_memory_utilization", "must be a fraction in (0, 1], e.g. 0.9"});
    if (serving && lo.max_num_seqs < 0) errs.push_back({"local.max_num_seqs", "must be 0 (the engine's default) or at least 1"});
    if (serving && lo.tp < 0) errs.push_back({"local.tp", "must be 0 (chosen by the heads rules) or a tensor-parallel size >= 1"});
    if (serving && lo.pp < 0) errs.push_back({"local.pp", "must be 0 (chosen: GPUs / tp) or a pipeline-parallel size >= 1"});
    const int64_t layers_and_output = s.model.layers + 1;
    if (!serving && (lo.ngl < -1 || (s.model.layers > 0 && lo.ngl > layers_and_output)))
        errs.push_back({"local.ngl", "must be -1 (the most that fit) or 0 to " + std::to_string(layers_and_output) + " (the model's " +
                                         std::to_string(s.model.layers) + " layers + output)"});
    if (!serving && !(lo.mmproj_bytes >= 0 && lo.mmproj_bytes <= 1e13))
        errs.push_back({"local.mmproj_bytes", "must be the projector's size in bytes, 0 (none) or more"});
    if (!serving && lo.mmproj_encoder != VisionEncoder{}) check_mmproj_encoder(lo, errs);

    in.model = sin.model = s.model;
    in.weights = sin.weights = lo.weights;
    in.kv = sin.kv = lo.kv;
    in.context = lo.context;
    in.flash_attention = lo.flash_attention;
    in.ram_bytes = lo.ram_bytes;
    in.apple_unified = mac;
    in.wired_limit_mb = lo.wired_limit_mb;
    in.gpus = sin.gpus = gpus;
    in.ngl = lo.ngl;
    in.n_cpu_moe = lo.n_cpu_moe;
    in.tensor_split = lo.tensor_split;
    in.split_mode = lo.split_mode;
    in.main_gpu = lo.main_gpu;
    in.ubatch = lo.ubatch;
    in.kv_offload = lo.kv_offload;
    in.mmproj_bytes = lo.mmproj_bytes;
    in.mmproj_offload = lo.mmproj_offload;
    in.mmproj_encoder = lo.mmproj_encoder;
    in.mmproj_file = lo.mmproj_file;
    in.image_max_tokens = lo.image_max_tokens;
    if (!lo.draft.model.empty()) {  // speculative decoding's draft model (llama-server -md); the planner checks the rest
        const ModelPreset* draft = find_model(lo.draft.model);
        if (serving)
            errs.push_back({"local.draft.model", "a draft model is planned for llama.cpp (llama-server -md); " + engine +
                                                     "'s speculative decoding is not planned here: leave local.draft.model empty or choose llama.cpp"});
        else if (!draft)
            errs.push_back({"local.draft.model", "\"" + lo.draft.model + "\" is not a model preset; give a preset id (e.g. qwen2.5-0.5b) or leave it empty"});
        else {
            in.draft.model = draft->spec;
            in.draft.weights = lo.draft.weights;
            in.draft.kv = lo.draft.kv;
            in.draft.ngl = lo.draft.ngl;
            in.draft.context = lo.draft.context;
            in.draft.draft_max = lo.draft.draft_max;
        }
    }
    sin.tp = lo.tp;
    sin.pp = lo.pp;
    sin.engine = lo.engine == LocalEngine::SGLang ? ServingEngine::SGLang : ServingEngine::VLLM;
    sin.max_model_len = lo.context;
    sin.gpu_memory_utilization = lo.gpu_memory_utilization;
    sin.max_num_seqs = lo.max_num_seqs;
    return errs;
}

std::string device_layers_text(const PlanInput& in, const Plan& p, const DevicePlan& d) {
    std::string layers = d.layer_end > d.layer_begin ? "layers " + std::to_string(d.layer_begin) + "-" + std::to_string(d.layer_end - 1)
                                                     : std::string("no layers");
    if (d.output) layers += " + output";
    if (&d == &p.cpu && in.n_cpu_moe > 0) layers += ", experts of layers 0-" + std::to_string(std::min(in.n_cpu_moe, p.n_layer) - 1);
    if (&d == &p.cpu && !in.kv_offload) layers += ", KV of every layer and the attention (-nkvo)";
    if (d.draft() > 0) layers += ", draft model " + amount_with_unit(d.draft(), SizeUnit::GiB);
    if (d.split_buffer > 0) layers += ", split buffer " + amount_with_unit(d.split_buffer, SizeUnit::GiB) + " (rows on every GPU)";
    return layers;
}

std::string speed_text(const Speed& sp, int64_t ctx) {
    if (!sp.ok()) return "speed: " + sp.error;
    auto band = [](const Regime& r) {
        return vl::format("holdout error median {:.0f} %, worst {:.0f} %", r.holdout_median_error * 100, r.holdout_worst_error * 100);
    };
    auto approx = [](double x) { return x >= 100 ? vl::format("{:.0f}", x) : vl::format("{:.3g}", x); };  // 3 digits, no exponent
    std::string line = "decode ~" + approx(sp.decode_tokens_per_s) + " tok/s (" + band(sp.decode_band) + ")";
    if (sp.prefill_tokens_per_s > 0)
        line += ", prefill ~" + approx(sp.prefill_tokens_per_s) + " tok/s (" + band(sp.prefill_band) + "), time to first token " +
                approx(sp.time_to_first_token_s) + " s";
    else
        line += ", " + sp.prefill_note;
    return line + " at ctx " + std::to_string(ctx) + " (docs/speed.md)";
}

namespace {

void plan_llama(const Scenario& s, const PlanInput& in, LocalPlan& out) {
    const Plan& p = out.plan = plan_llamacpp(in);
    if (!p.ok()) {
        out.errors.push_back(planner_error(p.error));
        return;
    }
    out.fits = p.fits;
    out.context = p.context;
    out.largest_context = p.max_context;
    out.advice = p.advice;
    out.summary = "-ngl " + std::to_string(p.ngl) + " of " + std::to_string(p.n_layer + 1) + " (" + std::to_string(p.n_layer) +
                  " layers + output)" + (p.gpus.size() > 1 ? ", tensor split " + tensor_split_text(p.split) : "");
    auto device = [&](const DevicePlan& d) {
        out.devices.push_back({d.name, device_layers_text(in, p, d), d.weights, d.kv, d.compute, d.mmproj + d.mmproj_compute, d.total(), d.capacity,
                               d.draft()});
    };
    for (const DevicePlan& d : p.gpus) device(d);
    device(p.cpu);
    if (in.mmproj_bytes > 0) out.notes.push_back(image_encoder_text(in, "the projector's size alone gives no encoder shape; pick its .gguf"));
    if (p.fits) {
        const std::vector<GpuPreset> specs = local_gpu_specs(s.local);
        std::vector<const GpuPreset*> presets;
        for (const GpuPreset& g : specs) presets.push_back(&g);
        const AppleChip* chip = in.apple_unified ? find_apple_chip(s.local.apple_chip) : nullptr;
        const Speed speed = plan_speed_on(in, p, presets, chip);
        out.speed = speed_text(speed, p.context);
        if (s.local.engine == LocalEngine::LlamaCpp)  // Ollama has no setting for it
            if (const MoeAlternative alt = moe_alternative(in, p, speed, presets, chip); alt.exists()) {
                out.moe_alternative = alt;
                out.notes.push_back(alt.text);
            }
    }
    if (s.local.engine == LocalEngine::Ollama) {
        const OllamaSettings o = ollama_settings(in, p);
        if (!o.ok()) {  // as `vramlens plan --engine ollama` refuses it
            out.errors.push_back(planner_error(o.error));
            return;
        }
        if (!o.unsupported.empty()) out.notes.push_back("Ollama cannot set: " + o.unsupported);
        out.launch.push_back({"Modelfile", ollama_parameter_lines(o, "\n")});
        out.launch.push_back({"ollama serve", o.env + " ollama serve"});
    } else {
        out.launch.push_back({"llama-server", llama_server_line(in, p, plan_model_file(in))});
        if (out.moe_alternative.exists())
            out.launch.push_back({"llama-server (--n-cpu-moe)", llama_server_line(out.moe_alternative.input, out.moe_alternative.plan, plan_model_file(in))});
    }
    if (in.draft.active()) out.notes.push_back(draft_text(in, p));
    if (in.model.max_position > 0 && in.context > in.model.max_position)
        out.notes.push_back("local.context " + std::to_string(in.context) + " exceeds the model's max_position_embeddings (" +
                            std::to_string(in.model.max_position) + "): llama.cpp runs it, but the model was not trained for it");
}

void plan_serve(const Scenario& s, const ServingPlanInput& in, LocalPlan& out) {
    const ServingPlan& p = out.serving_plan = plan_serving(in);
    if (!p.ok()) {
        out.errors.push_back(planner_error(p.error, in.tp > 0 || in.pp > 0));
        return;
    }
    out.fits = p.fits;
    out.context = p.max_model_len;
    out.largest_context = p.largest_max_model_len;
    out.advice = p.advice;
    out.summary = "tp " + std::to_string(p.tp) + ", pp " + std::to_string(p.pp) + " (" + p.parallel_reason + "); KV " +
                  std::to_string(p.tokens) + " tokens, " + std::to_string(p.sequences) + " sequences of " + std::to_string(p.max_model_len) +
                  ", " + std::to_string(p.concurrent) + " at once";
    const std::string share = p.tp > 1 ? "1/" + std::to_string(p.tp) + " of " : "";
    for (size_t i = 0; i < in.gpus.size(); ++i)
        out.devices.push_back({"GPU " + std::to_string(i) + ": " + in.gpus[i].name, share + (p.pp > 1 ? "one stage's layers" : "every layer"),
                               p.weights, p.kv_pool, p.non_torch + p.activation, 0, p.weights + p.kv_pool + p.non_torch + p.activation, p.capacity});
    const ModelPreset* preset = nullptr;
    if (std::optional<std::string> id = model_preset_id(s.model)) preset = find_model(*id);
    const std::string model_id = preset && !preset->hf_id.empty() ? preset->hf_id
                                 : !s.model.source.hub.empty()     ? s.model.source.hub
                                                                   : s.model.name;
    out.launch.push_back({s.local.engine == LocalEngine::SGLang ? "sglang" : "vllm serve", serving_launch_line(in, p, model_id)});
}

}  // namespace

Ranking rank_local(const Scenario& s) {
    Ranking out;
    if (is_serving(s.local.engine)) {
        out.error = "local.engine: the ranking plans llama.cpp placements; choose llama.cpp or Ollama";
        return out;
    }
    RankInput r;
    ServingPlanInput sin;
    for (const FieldError& e : local_inputs(s, r.machine, sin))
        if (e.field.rfind("local.", 0) == 0 && e.field != "local.weights") {  // the machine's fields; the model and type do not count
            out.error = e.field + ": " + e.message;
            return out;
        }
    // The model's own overrides do not carry over to other models: each candidate gets the most layers that fit.
    r.machine.ngl = -1;
    r.machine.n_cpu_moe = 0;
    r.machine.mmproj_bytes = 0;
    r.machine.draft = PlanDraft{};  // a draft model shares its model's vocabulary: not the other candidates'
    r.machine.mmproj_offload = true;
    r.cpu_moe = s.local.engine == LocalEngine::LlamaCpp;
    const std::vector<GpuPreset> specs = local_gpu_specs(s.local);
    for (const GpuPreset& g : specs) r.gpu_presets.push_back(&g);
    r.chip = r.machine.apple_unified ? find_apple_chip(s.local.apple_chip) : nullptr;
    return rank_models(r);
}

LocalPlan plan_local(const Scenario& s) {
    LocalPlan out;
    PlanInput in;
    ServingPlanInput sin;
    out.errors = local_inputs(s, in, sin);
    out.serving = is_serving(s.local.engine);
    if (!out.errors.empty()) return out;
    if (out.serving) plan_serve(s, sin, out);
    else plan_llama(s, in, out);
    return out;
}

}  // namespace vl
