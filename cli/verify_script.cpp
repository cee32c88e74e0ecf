// verify-script generation (verify_script.h). The ModelSpec is written back as a Hugging Face
// config.json of a type transformers builds from the config alone (llama, mistral, qwen2, qwen3,
// mixtral, gpt2); the step mirrors the scenario on one GPU with plain PyTorch.
#include "verify_script.h"

#include <nlohmann/json.hpp>

#include "enum_names.h"
#include "export.h"
#include "scenario_json.h"

namespace vl::cli {

namespace {

using Json = nlohmann::ordered_json;

// config.json for the model, or the reason there is none.
Result<Json> hf_config(const ModelSpec& m) {
    auto fail = [](std::string field, std::string why) { return Result<Json>::failure({{std::move(field), std::move(why)}}); };
    if (!m.architecture_known()) return fail("model.params", "a model known only by its parameter count cannot be built; give its config");
    if (m.attention != AttentionKind::Standard) return fail("model.attention", "MLA models are not generated (DeepSeek needs trust_remote_code)");
    Json c = Json::object();
    c["vocab_size"] = m.vocab;
    if (!m.gated_mlp && m.norm == NormKind::LayerNorm && m.position == PositionKind::Learned && m.moe.num_experts == 0) {
        if (m.kv_heads != m.heads) return fail("model.kv_heads", "GPT-2 style models have kv_heads == heads");
        c["model_type"] = "gpt2";
        c["n_embd"] = m.hidden;
        c["n_layer"] = m.layers;
        c["n_head"] = m.heads;
        c["n_inner"] = m.ffn;
        c["n_positions"] = m.max_position;
        c["tie_word_embeddings"] = m.tied_embeddings;
        return Result<Json>::success(c);
    }
    if (!m.gated_mlp || m.norm != NormKind::RMSNorm || m.position != PositionKind::Rotary || m.parallel_attn_mlp)
        return fail("model", "only Llama-style (gated MLP, RMSNorm, rotary) and GPT-2-style models are generated");
    if (m.moe.num_experts > 0) {
        if (m.moe.shared_experts > 0 || m.moe.first_dense_layers > 0 || m.moe.moe_layer_freq != 1)
            return fail("model.moe", "only Mixtral-style MoE (no shared experts, every layer MoE) is generated");
        c["model_type"] = "mixtral";
        c["num_local_experts"] = m.moe.num_experts;
        c["num_experts_per_tok"] = m.moe.top_k;
        c["intermediate_size"] = m.moe.expert_ffn;
    } else if (m.qk_norm) {
        c["model_type"] = "qwen3";
        c["intermediate_size"] = m.ffn;
        c["attention_bias"] = m.qkv_bias;
    } else if (m.qkv_bias && !m.attn_out_bias) {
        c["model_type"] = "qwen2";
        c["intermediate_size"] = m.ffn;
    } else if (m.sliding_window > 0) {
        c["model_type"] = "mistral";
        c["intermediate_size"] = m.ffn;
    } else {
        c["model_type"] = "llama";
        c["intermediate_size"] = m.ffn;
        c["attention_bias"] = m.qkv_bias;
        c["mlp_bias"] = m.mlp_bias;
    }
    c["hidden_size"] = m.hidden;
    c["num_hidden_layers"] = m.layers;
    c["num_attention_heads"] = m.heads;
    c["num_key_value_heads"] = m.kv_heads;
    c["head_dim"] = m.head_dim;
    c["max_position_embeddings"] = m.max_position;
    c["tie_word_embeddings"] = m.tied_embeddings;
    if (m.sliding_window > 0) c["sliding_window"] = m.sliding_window;
    return Result<Json>::success(c);
}

// What the script runs, or why it cannot mirror the scenario on one GPU.
Result<Json> plan(const Scenario& s) {
    auto fail = [](std::string field, std::string why) { return Result<Json>::failure({{std::move(field), std::move(why)}}); };
    const Parallelism& p = s.parallel;
    if (p.dp * p.tp * p.pp * p.cp * p.ep != 1 || s.gpu_count != 1)
        return fail("parallel", "the verify script runs on one GPU; set dp, tp, pp, cp, ep and gpu_count to 1");
    if (p.zero != 0 || p.offload_optimizer || p.offload_params) return fail("parallel.zero", "ZeRO/offload needs DeepSpeed; not generated");
    Json j = Json::object();
    j["mode"] = enum_name(s.mode);
    if (s.mode == Mode::Infer) {
        const char* dtype = s.infer.weights == WeightFormat::BF16 ? "bf16" : s.infer.weights == WeightFormat::FP16 ? "fp16"
                          : s.infer.weights == WeightFormat::FP32 ? "fp32" : nullptr;
        if (!dtype) return fail("infer.weights", "quantized weights need bitsandbytes/GPTQ/GGUF runtimes; not generated");
        if (s.infer.engine != Engine::Transformers) return fail("infer.engine", "only the transformers engine is generated");
        const int64_t prompt = s.infer.prompt > 0 ? s.infer.prompt : s.infer.context;
        j["dtype"] = dtype;
        j["batch"] = s.infer.batch;
        j["prompt_tokens"] = prompt;
        j["new_tokens"] = std::max<int64_t>(1, s.infer.context - prompt);
        j["attn"] = s.infer.flash_attention ? "sdpa" : "eager";
        return Result<Json>::success(j);
    }
    if (s.mode == Mode::FineTune && s.finetune.method != FineTuneMethod::Full)
        return fail("finetune.method", "LoRA/QLoRA need peft/bitsandbytes; not generated (full fine-tuning is)");
    const char* optimizer = s.train.optimizer == Optimizer::AdamW ? "adamw" : s.train.optimizer == Optimizer::SGD ? "sgd"
                          : s.train.optimizer == Optimizer::SGDMomentum ? "sgd-momentum" : nullptr;
    if (!optimizer) return fail("train.optimizer", "only adamw, sgd and sgd-momentum are generated");
    const char* autocast = s.train.precision == Precision::MixedBF16 ? "bf16" : s.train.precision == Precision::MixedFP16 ? "fp16"
                         : s.train.precision == Precision::FP32 ? "" : nullptr;
    if (!autocast) return fail("train.precision", "only fp32, fp16-mixed and bf16-mixed are generated");
    if (s.train.recompute != Recompute::None && s.train.recompute != Recompute::Full)
        return fail("train.recompute", "only none and full (gradient checkpointing) are generated");
    j["autocast"] = autocast;  // fp32 weights, grads and states; compute in the 16-bit type (torch.autocast)
    j["optimizer"] = optimizer;
    j["micro_batch"] = s.train.micro_batch;
    j["seq_len"] = s.train.seq_len;
    j["gradient_checkpointing"] = s.train.recompute == Recompute::Full;
    j["attn"] = s.train.flash_attention ? "sdpa" : "eager";
    return Result<Json>::success(j);
}

// The Python program; %-free, placeholders filled below. Runs its --dry-run path without torch.
constexpr const char* kProgram = R"PY(
GIB = 1024 ** 3


def dry_run():
    cfg = HF_CONFIG
    print("vramlens verify script: dry run (no GPU used)")
    print("model: %s, %s layers, hidden %s" % (cfg["model_type"], cfg.get("num_hidden_layers", cfg.get("n_layer")),
                                               cfg.get("hidden_size", cfg.get("n_embd"))))
    print("plan: " + json.dumps(PLAN, sort_keys=True))
    print("vramlens estimate: peak %.2f GiB in %s; without overheads (comparable to max_memory_allocated) %.2f GiB"
          % (ESTIMATE["total_bytes"] / GIB, ESTIMATE["peak_phase"], ESTIMATE["allocated_bytes"] / GIB))
    return 0


def nvidia_smi_used_mib(index):
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits", "-i", str(index)],
                             capture_output=True, text=True, timeout=30).stdout.strip()
        return float(out.splitlines()[0])
    except Exception:
        return None


def run():
    try:
        import torch
        import transformers
    except ImportError as e:
        print("needs torch and transformers (%s); `--dry-run` works without them" % e, file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("no CUDA GPU visible; `--dry-run` works without one", file=sys.stderr)
        return 2
    torch.manual_seed(0)
    dtypes = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32, "": torch.float32}
    config = transformers.AutoConfig.for_model(**HF_CONFIG)
    infer = PLAN["mode"] == "infer"
    weight_dtype = dtypes[PLAN["dtype"]] if infer else torch.float32
    model = transformers.AutoModelForCausalLM.from_config(config, torch_dtype=weight_dtype, attn_implementation=PLAN["attn"])
    model.to("cuda")
    vocab = HF_CONFIG["vocab_size"]
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    if infer:
        model.eval()
        ids = torch.randint(0, vocab, (PLAN["batch"], PLAN["prompt_tokens"]), device="cuda")
        with torch.no_grad():
            model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=PLAN["new_tokens"],
                           min_new_tokens=PLAN["new_tokens"], do_sample=False, pad_token_id=0)
    else:
        model.train()
        if PLAN["gradient_checkpointing"]:
            model.gradient_checkpointing_enable()
        if PLAN["optimizer"] == "adamw":
            opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
        else:
            opt = torch.optim.SGD(model.parameters(), lr=1e-5, momentum=0.9 if PLAN["optimizer"] == "sgd-momentum" else 0.0)
        ids = torch.randint(0, vocab, (PLAN["micro_batch"], PLAN["seq_len"]), device="cuda")
        for _ in range(2):  # the second step runs with the optimizer states allocated
            with torch.autocast("cuda", dtype=dtypes[PLAN["autocast"]], enabled=PLAN["autocast"] != ""):
                loss = model(input_ids=ids, labels=ids).loss
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    allocated = torch.cuda.max_memory_allocated()
    reserved = torch.cuda.max_memory_reserved()
    smi = nvidia_smi_used_mib(torch.cuda.current_device())
    print("device: %s" % torch.cuda.get_device_name())
    print("%-44s %10s %10s" % ("", "measured", "vramlens"))
    print("%-44s %10.2f %10.2f" % ("peak allocated, GiB (no context, no reserve)", allocated / GIB, ESTIMATE["allocated_bytes"] / GIB))
    print("%-44s %10.2f %10.2f" % ("peak reserved, GiB", reserved / GIB, ESTIMATE["reserved_bytes"] / GIB))
    if smi is not None:
        print("%-44s %10.2f %10.2f" % ("nvidia-smi used, GiB (whole GPU)", smi / 1024, ESTIMATE["total_bytes"] / GIB))
    print(json.dumps({"measured": {"allocated": allocated, "reserved": reserved, "nvidia_smi_mib": smi},
                      "estimate": ESTIMATE, "scenario": SCENARIO}))
    return 0


if __name__ == "__main__":
    sys.exit(dry_run() if "--dry-run" in sys.argv[1:] else run())
)PY";

// A JSON value as a Python literal: json.loads of a raw string (the JSON text never holds """).
std::string py_json(const Json& j) {
    std::string text = j.dump(-1, ' ', true, Json::error_handler_t::replace);  // ASCII only
    return "json.loads(r\"\"\"" + text + "\"\"\")";
}

}  // namespace

Result<std::string> verify_script(const Scenario& s, const Estimate& e) {
    Result<Json> cfg = hf_config(s.model);
    Result<Json> run = plan(s);
    std::vector<FieldError> errs = cfg.errors;
    errs.insert(errs.end(), run.errors.begin(), run.errors.end());
    if (!errs.empty()) return Result<std::string>::failure(std::move(errs));
    if (!e.ok()) return Result<std::string>::failure(e.errors);
    // What torch counts: max_memory_allocated excludes the CUDA context and the allocator reserve
    // (the Overhead category); max_memory_reserved includes the reserve but not the context.
    double overhead = 0, context = 0;
    for (const Component& c : e.components) {
        if (c.host || !(c.phases & phase_bit(e.peak_phase)) || c.category != Category::Overhead) continue;
        overhead += c.bytes;
        if (std::string(c.id).find("cuda_context") != std::string::npos) context += c.bytes;
    }
    Json est = Json::object();
    est["total_bytes"] = e.total_bytes;
    est["allocated_bytes"] = e.total_bytes - overhead;
    est["reserved_bytes"] = e.total_bytes - context;
    est["peak_phase"] = phase_label(s.mode, e.peak_phase);
    std::string out =
        "#!/usr/bin/env python3\n"
        "# vramlens verify script, generated by vramlens " VRAMLENS_VERSION ".\n"
        "# Builds the scenario's model from its config with random weights (no download), runs it on one\n"
        "# CUDA GPU, and prints the measured peak next to vramlens' estimate.\n"
        "#   python3 verify.py            run on the GPU (needs torch and transformers)\n"
        "#   python3 verify.py --dry-run  check the plan without torch or a GPU\n"
        "# Training runs fp32 weights, gradients and optimizer states with torch.autocast for the 16-bit\n"
        "# types: the same 16 bytes per parameter as mixed precision with AdamW, split differently.\n"
        "import json\n"
        "import subprocess\n"
        "import sys\n"
        "\n"
        "SCENARIO = " + py_json(Json::parse(scenario_to_json(s, JsonStyle::Compact), nullptr, false)) + "\n"
        "HF_CONFIG = " + py_json(*cfg) + "\n"
        "PLAN = " + py_json(*run) + "\n"
        "ESTIMATE = " + py_json(est) + "\n" + kProgram;
    return Result<std::string>::success(std::move(out));
}

}  // namespace vl::cli
