// Launch lines and the speed inputs of a local llama.cpp plan (launch.h).
#include "planner/launch.h"

#include "text_format.h"

#include "model/presets.h"
#include "planner/rank.h"
#include "inference/weight_formats.h"
#include "units.h"

namespace vl {

const char* llamacpp_cache_type(KvDtype t) {
    switch (t) {
        case KvDtype::INT8: return "q8_0";
        case KvDtype::INT4: return "q4_0";
        case KvDtype::BF16: return "bf16";
        default: return "f16";
    }
}

std::string tensor_split_text(const std::vector<double>& split) {
    std::string s;
    for (double x : split) {
        if (!s.empty()) s += ',';
        s += vl::format("{:.3g}", x);
    }
    return s;
}

std::string plan_model_file(const PlanInput& in, const std::string& unnamed) {
    std::string name = in.model.name.empty() ? unnamed : in.model.name;
    for (char& c : name)
        if (c == '/' || c == ' ') c = '-';
    return name + "-" + weight_format(in.weights).key + ".gguf";
}

std::string llama_server_line(const PlanInput& in, const Plan& p, const std::string& model_file) {
    std::string line = "llama-server -m " + model_file + " -ngl " + std::to_string(p.ngl) + " -c " + std::to_string(p.context) +
                       " -ub " + std::to_string(in.ubatch);
    if (in.split_mode == SplitMode::None && p.gpus.size() > 1) line += " --split-mode none --main-gpu " + std::to_string(in.main_gpu);
    else if (p.gpus.size() > 1 || in.split_mode == SplitMode::Row)
        line += std::string(" --split-mode ") + split_mode_name(in.split_mode) + " --tensor-split " + tensor_split_text(p.split);
    if (in.n_cpu_moe > 0) line += " --n-cpu-moe " + std::to_string(in.n_cpu_moe);
    line += in.flash_attention ? " -fa on" : " -fa off";
    if (in.kv != KvDtype::FP16) line += std::string(" -ctk ") + llamacpp_cache_type(in.kv) + " -ctv " + llamacpp_cache_type(in.kv);
    if (!in.kv_offload) line += " -nkvo";
    if (in.mmproj_bytes > 0) line += " --mmproj " + (in.mmproj_file.empty() ? std::string("mmproj.gguf") : in.mmproj_file);
    if (in.mmproj_bytes > 0 && !in.mmproj_offload) line += " --no-mmproj-offload";
    if (in.image_max_tokens > 0) line += " --image-max-tokens " + std::to_string(in.image_max_tokens);
    if (in.draft.active()) {  // speculative decoding's draft model, its layers and context as planned [llama-cpp-speculative]
        PlanInput draft = in;
        draft.model = *in.draft.model;
        draft.weights = in.draft.weights;
        line += " -md " + (in.draft.file.empty() ? plan_model_file(draft, "draft") : in.draft.file) + " -ngld " + std::to_string(p.draft_ngl);
        if (in.draft.context > 0) line += " -cd " + std::to_string(in.draft.context);
        line += " --draft-max " + std::to_string(in.draft.draft_max);
        if (in.draft.kv != KvDtype::FP16)
            line += std::string(" -ctkd ") + llamacpp_cache_type(in.draft.kv) + " -ctvd " + llamacpp_cache_type(in.draft.kv);
    }
    return line;
}

MoeAlternative moe_alternative(const PlanInput& in, const Plan& p, const Speed& here, const std::vector<const GpuPreset*>& gpus,
                               const AppleChip* chip, SpeedInput si) {
    MoeAlternative alt;
    if (p.moe_cpu_layers <= 0) return alt;
    alt.input = in;
    alt.input.ngl = in.model.layers + 1;
    alt.input.n_cpu_moe = p.moe_cpu_layers;
    alt.plan = plan_llamacpp(alt.input);
    if (!alt.plan.ok() || !alt.plan.fits) return alt;
    alt.text = "MoE: -ngl " + std::to_string(alt.plan.ngl) + " --n-cpu-moe " + std::to_string(p.moe_cpu_layers) + " also fits (the routed experts of layers 0-" +
               std::to_string(p.moe_cpu_layers - 1) + " in RAM, attention, KV cache and the other layers' experts on the GPUs)";
    alt.speed = plan_speed_on(alt.input, alt.plan, gpus, chip, si);
    if (here.ok() && alt.speed.ok() && here.decode_tokens_per_s > 0 && alt.speed.decode_tokens_per_s > 0)
        alt.text += ": decode ~" + tokens_per_s_text(alt.speed.decode_tokens_per_s) + " tok/s, against ~" + tokens_per_s_text(here.decode_tokens_per_s) +
                    " tok/s at -ngl " + std::to_string(p.ngl);
    return alt;
}

std::string image_encoder_text(const PlanInput& in, const std::string& unknown_why) {
    const VisionEncoder& e = in.mmproj_encoder;
    if (!e.known()) return "image encoder: its compute buffer is not planned (" + unknown_why + ")";
    const int64_t side = planned_image_side(e, in.image_max_tokens);
    const ClipComputeBytes c = clip_compute_bytes(e, side, in.flash_attention);
    const bool on_gpu = in.mmproj_offload && !in.gpus.empty();
    std::string text = "image encoder (" + (e.projector.empty() ? std::string("clip") : e.projector) + "): a " + std::to_string(side) + " x " +
                       std::to_string(side) + " px image, " + std::to_string(c.patches) + " patches; compute " +
                       amount_with_unit(c.device, SizeUnit::GiB) + (on_gpu ? " on the first GPU" : " in RAM") + " (flash attention " +
                       (in.flash_attention ? "on" : "off: every layer's scores stored") + "), " + amount_with_unit(c.host, SizeUnit::GiB) +
                       " of image inputs in RAM";
    if (dynamic_resolution(e))
        text += in.image_max_tokens > 0 ? "; images up to --image-max-tokens " + std::to_string(in.image_max_tokens)
                                        : "; the image llama.cpp reserves at load: a larger image grows the buffer when it arrives "
                                          "(cap it with --image-max-tokens)";
    return text;
}

std::string draft_text(const PlanInput& in, const Plan& p) {
    double weights = p.cpu.draft_weights, kv = p.cpu.draft_kv, compute = p.cpu.draft_compute;
    for (const DevicePlan& d : p.gpus) {
        weights += d.draft_weights;
        kv += d.draft_kv;
        compute += d.draft_compute;
    }
    return "draft model " + in.draft.model->name + " (" + weight_format(in.draft.weights).key + "): -ngld " + std::to_string(p.draft_ngl) + " of " +
           std::to_string(p.draft_n_layer + 1) + ", weights " + amount_with_unit(weights, SizeUnit::GiB) + ", KV cache " +
           amount_with_unit(kv, SizeUnit::GiB) + " (" + llamacpp_cache_type(in.draft.kv) + ", -cd " + std::to_string(p.draft_context) +
           "), compute " + amount_with_unit(compute, SizeUnit::GiB) + "; one draft context per slot (-np), planned for one. Recent "
           "llama-server builds draft only with --spec-type draft-simple (ggml-org/llama.cpp#25345)";
}

OllamaSettings ollama_settings(const PlanInput& in, const Plan& p) {
    OllamaSettings o;
    if (in.draft.active()) {
        o.error = "draft-model: Ollama has no setting for a separate draft model: it passes a draft to llama-server only as an MTP or "
                  "DFlash head packaged with the model (Modelfile DRAFT, llm/llama_server.go appendDraftArgs) [ollama-draft], with no "
                  "setting for its layers or context; choose llama.cpp (llama-server -md)";
        return o;
    }
    if (in.kv == KvDtype::BF16) {
        o.error = "kv-type: Ollama's OLLAMA_KV_CACHE_TYPE takes f16, q8_0 or q4_0, not bf16 [ollama-docs]; use f16 (the same bytes)";
        return o;
    }
    o.parameters = {{"num_gpu", p.ngl}, {"num_ctx", p.context}};
    if (in.ubatch != kLlamaCppUbatch) o.parameters.push_back({"num_batch", in.ubatch});  // Ollama's default num_batch is llama.cpp's 512
    if (in.split_mode == SplitMode::None && p.gpus.size() > 1) o.parameters.push_back({"main_gpu", in.main_gpu});
    o.env = std::string("OLLAMA_FLASH_ATTENTION=") + (in.flash_attention ? "1" : "0");
    if (in.kv != KvDtype::FP16) o.env += std::string(" OLLAMA_KV_CACHE_TYPE=") + llamacpp_cache_type(in.kv);
    auto unsupported = [&](const std::string& what) { o.unsupported += (o.unsupported.empty() ? "" : "; ") + what; };
    if (!in.kv_offload) unsupported("-nkvo (Ollama has no setting that keeps the KV cache in RAM)");
    if (in.mmproj_bytes > 0 && !in.mmproj_offload) unsupported("--no-mmproj-offload (no Ollama setting keeps the projector in RAM)");
    if (in.image_max_tokens > 0) unsupported("--image-max-tokens (Ollama has no setting for the largest image)");
    if (in.split_mode == SplitMode::Row && p.gpus.size() > 1)
        unsupported("--split-mode row (Ollama splits by layers, or one GPU with main_gpu; ollama/ollama#5527 is unmerged)");
    if (in.n_cpu_moe > 0) unsupported("--n-cpu-moe (no Ollama setting keeps the routed experts in RAM)");
    if (!in.tensor_split.empty() && p.gpus.size() > 1) unsupported("--tensor-split (Ollama splits by its own estimate of each GPU's free memory)");
    if (in.mmproj_bytes > 0 && in.mmproj_offload && p.ngl < p.n_layer + 1)
        unsupported("the projector on the GPU: with layers in RAM Ollama keeps it in RAM itself (llm/llama_server.go "
                    "shouldDisableMMProjOffload), so its GPU holds less than this plan");
    return o;
}

std::string ollama_parameter_lines(const OllamaSettings& o, const std::string& sep) {
    std::string text;
    for (const auto& [name, value] : o.parameters) text += (text.empty() ? "" : sep) + "PARAMETER " + name + " " + std::to_string(value);
    return text;
}

Speed plan_speed_on(const PlanInput& in, const Plan& p, const std::vector<const GpuPreset*>& gpus, const AppleChip* chip, SpeedInput si) {
    if (in.apple_unified && !chip) {
        Speed sp;
        sp.error = "apple-chip: name the chip for its memory bandwidth (--apple-chip " + apple_chip_ids() + ")";
        return sp;
    }
    if (chip) {
        si.gpu_bandwidth = {chip->memory_bandwidth};
        si.gpu_flops = {apple_gpu_flops(*chip)};
        si.ram_bandwidth = chip->memory_bandwidth;
    }
    for (const GpuPreset* g : gpus) {
        si.gpu_bandwidth.push_back(g->memory_bandwidth);
        si.gpu_flops.push_back(g->fp16_tensor_flops);
    }
    return plan_speed(in, p, si);
}

}  // namespace vl
