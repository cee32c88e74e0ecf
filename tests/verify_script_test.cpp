// The verify script (cli/verify_script.cpp, issue 12 item 16): every scenario setting the estimate
// uses is reproduced by the generated script or refused naming the field; the script checks the
// local GPU before building the model and reports running out of memory as a measured outcome.
// The Python parts run with python3 (no torch: a small stand-in torch/transformers pair is written
// beside the script, so the control flow is exercised without a GPU).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "estimate.h"
#include "model/presets.h"
#include "shell_command.h"
#include "verify_script.h"

namespace {

// A preset in `mode` with a sequence its position range holds (GPT-2: 1024, openai-community/gpt2).
vl::Scenario preset(const char* id, vl::Mode mode) {
    const vl::ModelPreset* p = vl::find_model(id);
    REQUIRE(p != nullptr);
    vl::Scenario s;
    s.model = p->spec;
    s.mode = mode;
    s.train.seq_len = 1024;
    s.infer.context = 1024;
    return s;
}

std::string script_of(const vl::Scenario& s) {
    const vl::Result<std::string> r = vl::cli::verify_script(s, vl::estimate(s));
    std::string errors;
    for (const auto& e : r.errors) errors += vl::to_string(e) + "\n";
    INFO(errors);
    REQUIRE(r.ok());
    return *r;
}

// The refusals, as "field: message" lines.
std::vector<std::string> refusals_of(const vl::Scenario& s) {
    const vl::Result<std::string> r = vl::cli::verify_script(s, vl::estimate(s));
    REQUIRE_FALSE(r.ok());
    std::vector<std::string> out;
    for (const auto& e : r.errors) out.push_back(vl::to_string(e));
    return out;
}

std::string refusal_for(const vl::Scenario& s, const std::string& field) {
    const std::vector<std::string> all = refusals_of(s);
    for (const std::string& e : all)
        if (e.rfind(field + ": ", 0) == 0) return e.substr(field.size() + 2);
    std::string list;
    for (const std::string& e : all) list += e + "\n";
    FAIL("no refusal for " << field << "; got:\n" << list);
    return {};
}

// The line of the script that starts with `prefix` (e.g. "PLAN = ").
std::string line_of(const std::string& script, const std::string& prefix) {
    std::istringstream in(script);
    for (std::string line; std::getline(in, line);)
        if (line.rfind(prefix, 0) == 0) return line;
    FAIL("no line starting with " << prefix);
    return {};
}

bool have_python() { return std::system("python3 -c pass >/dev/null 2>&1") == 0; }

struct Py {
    int status = -1;
    std::string out, err;
};

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A temporary folder holding verify.py and, with `fakes`, stand-in torch and transformers modules.
class Sandbox {
public:
    explicit Sandbox(const std::string& script, bool fakes = false) {
        dir_ = std::filesystem::temp_directory_path() /
               ("vramlens_verify_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++));
        std::filesystem::create_directories(dir_);
        std::ofstream(dir_ / "verify.py") << script;
        if (!fakes) return;
        std::filesystem::create_directories(dir_ / "torch");
        std::filesystem::create_directories(dir_ / "transformers");
        std::ofstream(dir_ / "torch" / "__init__.py") << kFakeTorch;
        std::ofstream(dir_ / "transformers" / "__init__.py") << kFakeTransformers;
    }
    ~Sandbox() { std::filesystem::remove_all(dir_); }

    // Runs `env python3 verify.py args` in the folder (the stand-ins come first on the path).
    Py run(const std::string& args, const std::string& env = "") const {
        const std::string d = dir_.string();
        const std::string cmd = "cd '" + d + "' && env PYTHONPATH='" + d + "' " + env + " python3 verify.py " + args +
                                " 2>'" + d + "/stderr'";
        const ShellResult sh = shell_command(cmd);
        Py r;
        r.status = sh.status;
        r.out = sh.out;
        r.err = slurp(d + "/stderr");
        return r;
    }

private:
    std::filesystem::path dir_;
    static inline int counter_ = 0;

    // The torch calls the script makes, with a GPU of 80 GiB: 79 GiB free before the run and 70 GiB
    // after it, a peak of 3 GiB allocated and 4 GiB reserved. FAKE_OOM=1 makes generate run out of memory.
    static constexpr const char* kFakeTorch = R"PY(
import contextlib
import os
import sys
if os.environ.get("FAKE_SHOW_ALLOC_CONF"):
    print("ALLOC_CONF at import: " + os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "(unset)"), file=sys.stderr)
GIB = 1024 ** 3
bfloat16, float16, float32 = "bf16", "fp16", "fp32"


class _Cuda:
    class OutOfMemoryError(RuntimeError):
        pass

    queries = 0

    def is_available(self):
        return True

    def device_count(self):
        return 1

    def get_device_name(self, index=None):
        return "Fake GPU"

    def mem_get_info(self, index=None):
        _Cuda.queries += 1
        return ((79 if _Cuda.queries == 1 else 70) * GIB, 80 * GIB)

    def synchronize(self):
        pass

    def reset_peak_memory_stats(self):
        pass

    def max_memory_allocated(self):
        return 3 * GIB

    def max_memory_reserved(self):
        return 4 * GIB

    def memory_stats(self):
        return {"num_alloc_retries": 2, "num_ooms": 0, "inactive_split_bytes.all.peak": GIB // 2, "segment.all.peak": 7}


cuda = _Cuda()


def manual_seed(n):
    pass


@contextlib.contextmanager
def device(name):
    yield


@contextlib.contextmanager
def no_grad():
    yield


def randint(low, high, shape, device=None):
    return shape


def ones_like(t):
    return t


class _T(list):
    def expand(self, *shape):
        return ["expanded", len(self)] + list(shape)


def tensor(x, device=None):
    return _T(x)


def randn(*shape, device=None, dtype=None):
    return ["randn"] + list(shape)


def cat(ts, dim=0):
    return ["cat"] + list(ts)
)PY";

    static constexpr const char* kFakeTransformers = R"PY(
import json
import os
import torch

__version__ = os.environ.get("FAKE_TF_VERSION", "stand-in")


class GenerationConfig:
    prefill_chunk_size = None


class AutoConfig:
    @staticmethod
    def for_model(**kw):
        return kw


class _Param:
    def numel(self):
        return int(os.environ.get("FAKE_PARAMS", "0"))


class _Model:
    def parameters(self):
        return [_Param()]

    def eval(self):
        pass

    def __call__(self, **kw):
        print("FORWARD " + json.dumps(sorted(kw)))

    def generate(self, ids, **kw):
        print("GENERATE " + json.dumps(kw, sort_keys=True))
        print("IDS " + json.dumps(ids))
        if os.environ.get("FAKE_OOM"):
            raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 20.00 MiB")


class AutoModelForCausalLM:
    @staticmethod
    def from_config(config, **kw):
        if os.environ.get("FAKE_NO_SDPA") and kw.get("attn_implementation") == "sdpa":  # as transformers 5 for Mamba
            raise ValueError("MambaForCausalLM does not support an attention implementation through "
                             "torch.nn.functional.scaled_dot_product_attention yet.")
        print("BUILT %s %s" % (config["model_type"], json.dumps(kw, sort_keys=True)))
        return _Model()


def _auto(name):
    class Auto:
        @staticmethod
        def from_config(config, **kw):
            print("BUILT %s %s %s" % (name, config["model_type"], json.dumps(kw, sort_keys=True)))
            return _Model()
    return Auto


AutoModel = _auto("AutoModel")
AutoModelForMaskedLM = _auto("AutoModelForMaskedLM")
AutoModelForSequenceClassification = _auto("AutoModelForSequenceClassification")
AutoModelForSeq2SeqLM = _auto("AutoModelForSeq2SeqLM")
AutoModelForImageTextToText = _auto("AutoModelForImageTextToText")
)PY";
};

// The script run with the stand-in torch and transformers (--force); nothing, with a warning, without python3.
std::optional<Py> run_faked(const std::string& script, const std::string& env = "") {
    if (!have_python()) {
        WARN("python3 not found: the generated script is not run");
        return std::nullopt;
    }
    const Sandbox box(script, /*fakes=*/true);
    return box.run("--force", env);
}

// transformers' generate() of preset `id` in fp16 (weights and cache) over `context` tokens.
vl::Scenario generate_fp16(const char* id, int64_t context) {
    vl::Scenario s = preset(id, vl::Mode::Infer);
    s.infer.engine = vl::Engine::Transformers;
    s.infer.weights = vl::WeightFormat::FP16;
    s.infer.kv_dtype = vl::KvDtype::FP16;
    s.infer.context = context;
    return s;
}

}  // namespace

TEST_CASE("verify script: training dropout and attention dropout go into the config") {
    // GPT-2: resid_pdrop and embd_pdrop carry train.dropout, attn_pdrop train.attention_dropout.
    vl::Scenario g = preset("gpt2", vl::Mode::Train);
    g.train.dropout = 0.1;
    g.train.attention_dropout = 0.05;
    CHECK_THAT(line_of(script_of(g), "HF_CONFIG = "), Catch::Contains(R"("resid_pdrop":0.1,"embd_pdrop":0.1,"attn_pdrop":0.05)"));
    // No dropout in the scenario: all three 0, not GPT2Config's default 0.1 (which added masks the
    // estimate did not count).
    CHECK_THAT(line_of(script_of(preset("gpt2", vl::Mode::Train)), "HF_CONFIG = "),
               Catch::Contains(R"("resid_pdrop":0.0,"embd_pdrop":0.0,"attn_pdrop":0.0)"));
    // attention_dropout < 0 means "as train.dropout".
    g.train.attention_dropout = -1;
    CHECK_THAT(line_of(script_of(g), "HF_CONFIG = "), Catch::Contains(R"("attn_pdrop":0.1)"));

    // Llama family: attention_dropout only (LlamaConfig has no hidden-state dropout).
    vl::Scenario l = preset("llama-3.2-1b", vl::Mode::Train);
    l.train.attention_dropout = 0.1;
    CHECK_THAT(line_of(script_of(l), "HF_CONFIG = "), Catch::Contains(R"("attention_dropout":0.1)"));
    l.train.dropout = 0.1;
    CHECK_THAT(refusal_for(l, "train.dropout"), Catch::StartsWith("transformers' Llama-family models have no dropout on hidden states"));
}

TEST_CASE("verify script: fp32 logits, gradient accumulation and checkpointing are in the plan and the program") {
    vl::Scenario s = preset("llama-3.2-1b", vl::Mode::Train);
    s.train.fp32_logits = false;
    s.train.grad_accum_steps = 4;
    s.train.recompute = vl::Recompute::Full;
    const std::string script = script_of(s);
    const std::string plan = line_of(script, "PLAN = ");
    CHECK_THAT(plan, Catch::Contains(R"("grad_accum_steps":4)"));
    CHECK_THAT(plan, Catch::Contains(R"("gradient_checkpointing":true)"));
    CHECK_THAT(plan, Catch::Contains(R"("fp32_logits":false)"));
    // fp32 logits: transformers' loss (which upcasts); 16-bit logits: the loss outside autocast.
    CHECK_THAT(script, Catch::Contains("loss = model(input_ids=ids, labels=labels).loss"));
    CHECK_THAT(script, Catch::Contains("loss = f.cross_entropy(logits.view(-1, logits.size(-1)), labels.reshape(-1), ignore_index=-100)"));
    CHECK_THAT(script, Catch::Contains("for _ in range(PLAN[\"grad_accum_steps\"]):"));
    CHECK_THAT(line_of(script_of(preset("llama-3.2-1b", vl::Mode::Train)), "PLAN = "), Catch::Contains(R"("fp32_logits":true)"));
}

TEST_CASE("verify script: AdamW is built with the implementation the estimate counts") {
    // torch.optim.AdamW picks foreach on CUDA when neither foreach= nor fused= is given; the estimate resolves
    // train.optimizer_impl auto to foreach for autocast over fp32 weights and to fused for the 16-bit-weights +
    // fp32-master regimes (DeepSpeed's and Megatron's fused optimizers) [pytorch-adam-code].
    vl::Scenario s = preset("llama-3.2-1b", vl::Mode::Train);
    s.train.precision = vl::Precision::AutocastBF16;
    const std::string script = script_of(s);
    CHECK_THAT(line_of(script, "PLAN = "), Catch::Contains(R"("optimizer":"adamw","optimizer_impl":"foreach")"));
    CHECK_THAT(script, Catch::Contains(R"(opt = torch.optim.AdamW(trainable, lr=1e-5, **({"fused": True} if impl == "fused" else {"foreach": impl == "foreach"})))"));
    s.train.precision = vl::Precision::MixedBF16;
    CHECK_THAT(line_of(script_of(s), "PLAN = "), Catch::Contains(R"("optimizer_impl":"fused")"));
    s.train.optimizer_impl = vl::OptimizerImpl::ForLoop;
    CHECK_THAT(line_of(script_of(s), "PLAN = "), Catch::Contains(R"("optimizer_impl":"for-loop")"));
    s.train.optimizer = vl::Optimizer::SGD;
    CHECK(line_of(script_of(s), "PLAN = ").find("optimizer_impl") == std::string::npos);
}

TEST_CASE("verify script: the KV dtype must be the weights' and prefill chunking is passed to generate") {
    vl::Scenario s = preset("llama-3.2-1b", vl::Mode::Infer);
    s.infer.weights = vl::WeightFormat::FP16;
    s.infer.kv_dtype = vl::KvDtype::FP16;
    s.infer.prefill_chunk = 256;
    const std::string script = script_of(s);
    const std::string plan = line_of(script, "PLAN = ");
    CHECK_THAT(plan, Catch::Contains(R"("dtype":"fp16","kv_dtype":"fp16")"));
    CHECK_THAT(plan, Catch::Contains(R"("prefill_chunk":256)"));
    CHECK_THAT(script, Catch::Contains(R"(kwargs["prefill_chunk_size"] = PLAN["prefill_chunk"])"));

    // transformers' DynamicCache holds K and V in the weights' dtype.
    s.infer.kv_dtype = vl::KvDtype::BF16;
    CHECK(refusal_for(s, "infer.kv_dtype") == "transformers keeps the KV cache in the weights' dtype (fp16), not bf16; "
                                              "set infer.kv_dtype to fp16");
    s.infer.weights = vl::WeightFormat::FP32;
    CHECK(refusal_for(s, "infer.kv_dtype") == "transformers keeps the KV cache in the weights' dtype (fp32), not bf16; "
                                              "set infer.kv_dtype to a 16-bit type with 16-bit weights");
    // fp32 weights under torch.autocast (Lightning bf16-mixed): the script runs no autocast
    s.infer.autocast = vl::InferAutocast::Cached;
    CHECK(refusal_for(s, "infer.autocast") == "the script runs generate in the weights' own dtype, without torch.autocast; "
                                              "set infer.autocast to off");
    s.infer.autocast = vl::InferAutocast::Off;
    for (vl::KvDtype q : {vl::KvDtype::FP8, vl::KvDtype::INT8, vl::KvDtype::INT4}) {
        s.infer.kv_dtype = q;
        CHECK_THAT(refusal_for(s, "infer.kv_dtype"), Catch::EndsWith("KV cache needs a quantized cache backend (quanto, HQQ); not generated"));
    }
}

TEST_CASE("verify script: LoRA is run with PEFT on a base in the regime's weight dtype") {
    vl::Scenario s = preset("llama-3.2-1b", vl::Mode::FineTune);
    s.finetune.method = vl::FineTuneMethod::LoRA;
    s.finetune.lora_rank = 16;
    s.finetune.lora_targets = vl::kLoraAllLinear;
    s.finetune.save_lm_head = true;
    s.train.precision = vl::Precision::MixedBF16;
    const std::string script = script_of(s);
    const std::string plan = line_of(script, "PLAN = ");
    // bf16-mixed: the frozen base in bf16 (2 bytes, as the estimate counts it), the step under bf16
    // autocast; PEFT keeps the adapters in fp32 (autocast_adapter_dtype, finetune.adapters_fp32).
    CHECK_THAT(plan, Catch::Contains(R"("autocast":"bf16","dtype":"bf16")"));
    CHECK_THAT(plan, Catch::Contains(R"("lora":{"r":16,"targets":["q_proj","k_proj","v_proj","o_proj","gate_proj","up_proj","down_proj"],)"
                                     R"("dropout":0.0,"modules_to_save":["lm_head"],"fp32_adapters":true})"));
    CHECK_THAT(script, Catch::Contains("model = peft.get_peft_model(model, cfg, autocast_adapter_dtype=lora[\"fp32_adapters\"])"));
    CHECK_THAT(script, Catch::Contains("trainable = [p for p in model.parameters() if p.requires_grad]"));

    // bf16-pure: a bf16 base without autocast; fp32 (autocast) keeps an fp32 base.
    s.train.precision = vl::Precision::PureBF16;
    CHECK_THAT(line_of(script_of(s), "PLAN = "), Catch::Contains(R"("autocast":"","dtype":"bf16")"));
    s.train.precision = vl::Precision::AutocastBF16;
    CHECK_THAT(line_of(script_of(s), "PLAN = "), Catch::Contains(R"("autocast":"bf16","dtype":"fp32")"));
    // Full training keeps fp32 weights under autocast whatever the regime (no "lora" in the plan).
    vl::Scenario full = preset("llama-3.2-1b", vl::Mode::Train);
    CHECK_THAT(line_of(script_of(full), "PLAN = "), Catch::Contains(R"("dtype":"fp32")"));
    CHECK(line_of(script_of(full), "PLAN = ").find("lora") == std::string::npos);

    // What PEFT would adapt differently from what vramlens counts is refused.
    vl::Scenario q = s;
    q.finetune.method = vl::FineTuneMethod::QLoRA;
    CHECK_THAT(refusal_for(q, "finetune.method"), Catch::StartsWith("QLoRA needs bitsandbytes"));
    vl::Scenario g = preset("gpt2", vl::Mode::FineTune);
    g.finetune.method = vl::FineTuneMethod::LoRA;
    CHECK_THAT(refusal_for(g, "finetune.method"), Catch::Contains("fuse q, k and v into one module"));
    vl::Scenario moe = preset("mixtral-8x7b", vl::Mode::FineTune);
    moe.finetune.method = vl::FineTuneMethod::LoRA;
    moe.finetune.lora_targets = vl::kLoraQ | vl::kLoraUp;
    CHECK_THAT(refusal_for(moe, "finetune.lora_targets"), Catch::Contains("fused 3-D parameters"));
}

TEST_CASE("verify script: GPT-NeoX, MLA and the MoE families are written as transformers' own configs") {
    // Pythia-410m: GPT-NeoX with parallel residual (EleutherAI/pythia-410m config.json).
    const std::string neox = line_of(script_of(preset("pythia-410m", vl::Mode::Infer)), "HF_CONFIG = ");
    CHECK_THAT(neox, Catch::Contains(R"("model_type":"gpt_neox","intermediate_size":4096,"hidden_size":1024,"num_hidden_layers":24,)"
                                     R"("num_attention_heads":16,)"));
    CHECK_THAT(neox, Catch::Contains(R"("use_parallel_residual":true)"));

    // DeepSeek-V2-Lite (deepseek-ai/DeepSeek-V2-Lite config.json): q_lora_rank null, kv_lora_rank 512,
    // rope 64 + nope 128, v 128, 64 routed + 2 shared experts of 1408, top 6, first layer dense.
    // No head_dim: transformers derives it from qk_rope_head_dim.
    const std::string mla = line_of(script_of(preset("deepseek-v2-lite", vl::Mode::Infer)), "HF_CONFIG = ");
    CHECK_THAT(mla, Catch::Contains(R"("model_type":"deepseek_v2","intermediate_size":10944,"q_lora_rank":null,"kv_lora_rank":512,)"
                                    R"("qk_rope_head_dim":64,"qk_nope_head_dim":128,"v_head_dim":128,"n_routed_experts":64,)"
                                    R"("n_shared_experts":2,"num_experts_per_tok":6,"moe_intermediate_size":1408,"first_k_dense_replace":1,)"));
    CHECK(mla.find(R"("head_dim":)") == std::string::npos);
    CHECK_THAT(line_of(script_of(preset("deepseek-v3", vl::Mode::Infer)), "HF_CONFIG = "), Catch::Contains(R"("model_type":"deepseek_v3")"));

    // Qwen1.5-MoE-A2.7B: one gated shared expert of 5632 (Qwen/Qwen1.5-MoE-A2.7B config.json); Qwen3
    // MoE has q/k norms and no shared expert.
    const std::string qmoe = line_of(script_of(preset("qwen1.5-moe-a2.7b", vl::Mode::Infer)), "HF_CONFIG = ");
    CHECK_THAT(qmoe, Catch::Contains(R"("model_type":"qwen2_moe","shared_expert_intermediate_size":5632,"num_local_experts":60,"num_experts":60,)"
                                     R"("num_experts_per_tok":4,"moe_intermediate_size":1408,)"));
    CHECK_THAT(line_of(script_of(preset("qwen3-30b-a3b", vl::Mode::Infer)), "HF_CONFIG = "), Catch::Contains(R"("model_type":"qwen3_moe")"));
    CHECK_THAT(line_of(script_of(preset("mixtral-8x7b", vl::Mode::Infer)), "HF_CONFIG = "),
               Catch::Contains(R"("model_type":"mixtral","num_local_experts":8,"num_experts":8,"num_experts_per_tok":2,)"));
}

TEST_CASE("verify script: a preset that a written-back config cannot express is built from its own config.json") {
    // google/gemma-3-1b-pt config.json: gemma3_text, a 512-token window on five of every six layers.
    const std::string gemma = line_of(script_of(preset("gemma-3-1b", vl::Mode::Infer)), "HF_CONFIG = ");
    CHECK_THAT(gemma, Catch::Contains(R"("model_type":"gemma3_text")"));
    CHECK_THAT(gemma, Catch::Contains(R"("sliding_window":512,"sliding_window_pattern":6)"));
    // A renamed preset is still that checkpoint.
    vl::Scenario renamed = preset("gemma-3-1b", vl::Mode::Infer);
    renamed.model.name = "my Gemma";
    CHECK_THAT(line_of(script_of(renamed), "HF_CONFIG = "), Catch::Contains(R"("model_type":"gemma3_text")"));

    // Qwen/Qwen3.5-9B ships a vision-language config; the preset is its language model: text_config, Gated
    // DeltaNet on three of every four layers.
    const std::string qwen = line_of(script_of(preset("qwen3.5-9b", vl::Mode::Infer)), "HF_CONFIG = ");
    CHECK_THAT(qwen, Catch::Contains(R"("model_type":"qwen3_5_text")"));
    CHECK_THAT(qwen, Catch::Contains(R"("layer_types":["linear_attention","linear_attention","linear_attention","full_attention",)"));
    CHECK(qwen.find("vision_config") == std::string::npos);

    // facebook/opt-350m has dropout 0.1: the script's runs have none (the scenario's train.dropout is 0).
    const std::string opt = line_of(script_of(preset("opt-350m", vl::Mode::Train)), "HF_CONFIG = ");
    CHECK_THAT(opt, Catch::Contains(R"("model_type":"opt")"));
    CHECK_THAT(opt, Catch::Contains(R"("dropout":0.0,)"));
    vl::Scenario dropout = preset("opt-350m", vl::Mode::Train);
    dropout.train.dropout = 0.1;
    CHECK_THAT(refusal_for(dropout, "train.dropout"), Catch::StartsWith("the checkpoint's own config is built with every dropout at 0"));

    // openai/gpt-oss-20b's MXFP4 quantization_config is dropped: the weights are the scenario's bf16.
    CHECK(line_of(script_of(preset("gpt-oss-20b", vl::Mode::Infer)), "HF_CONFIG = ").find("quantization_config") == std::string::npos);

    // Vision-language models are built only for generate() with images, of the families whose inputs the script makes.
    CHECK_THAT(refusal_for(preset("gemma-3-4b", vl::Mode::Infer), "model.vision"),
               Catch::Contains("generated for inference with images (infer.images > 0) on LLaVA-1.5, Qwen2-VL and Qwen2.5-VL"));
    for (const std::string& e : refusals_of(preset("gemma-3-4b", vl::Mode::Infer)))  // it is a preset: not "this model is not one"
        CHECK(e.find("this model is not one") == std::string::npos);
    CHECK_THAT(refusal_for(preset("qwen2-vl-2b", vl::Mode::Infer), "model.vision"), Catch::Contains("not for training or text alone"));

    // Mamba has no attention: transformers 5 refuses attn_implementation="sdpa" for it, so the script builds
    // it with eager and says so; state-space models note which optional kernels are missing.
    const std::string mamba = script_of(preset("mamba-2.8b", vl::Mode::Infer));
    CHECK_THAT(line_of(mamba, "PLAN = "), Catch::Contains(R"("ssm":true)"));
    if (!have_python()) {
        WARN("python3 not found: the generated script is not run");
        return;
    }
    const Sandbox box(mamba, /*fakes=*/true);
    const Py r = box.run("--force", "FAKE_NO_SDPA=1 FAKE_PARAMS=2768345600");
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains(R"(BUILT mamba {"attn_implementation": "eager", "torch_dtype": "bf16"})"));
    CHECK_THAT(r.out, Catch::Contains("note: transformers refused attn_implementation=sdpa (MambaForCausalLM does not support"));
}

TEST_CASE("verify script: settings it cannot measure like for like are refused, all at once, naming each field") {
    vl::Scenario s = preset("llama-3.2-1b", vl::Mode::Train);
    s.train.compat = vl::Compat::Megatron;
    s.train.activation_formula = vl::ActivationFormula::Korthikanti;
    s.train.optimizer_state_dtype = vl::StateDtype::BF16;
    s.train.fp32_grad_accum = true;
    s.train.fp32_grad_copy = true;
    s.train.extra_fp32_weight_copy = true;
    const std::vector<std::string> all = refusals_of(s);
    CHECK(all.size() == 6);
    CHECK_THAT(refusal_for(s, "train.compat"), Catch::StartsWith("\"megatron\" reproduces that tool's published accounting"));
    CHECK_THAT(refusal_for(s, "train.activation_formula"), Catch::StartsWith("\"korthikanti\" is a published closed form"));
    CHECK_THAT(refusal_for(s, "train.optimizer_state_dtype"), Catch::Contains("fp32 states"));
    refusal_for(s, "train.fp32_grad_accum");
    refusal_for(s, "train.fp32_grad_copy");
    refusal_for(s, "train.extra_fp32_weight_copy");

    // Architectures neither a GPT-2 nor a Llama-family config builds, in a model that is no preset (one layer
    // fewer than the checkpoint; a preset left unchanged is built from its own config.json): Gemma 2's four norms
    // per layer; OPT-350m's narrower embedding, two extra position rows and missing final norm.
    vl::Scenario gemma = preset("gemma-2-2b", vl::Mode::Train);
    gemma.model.layers -= 1;
    CHECK_THAT(refusal_for(gemma, "model.norms_per_layer"), Catch::EndsWith("got 4"));
    CHECK_THAT(refusal_for(gemma, "model"), Catch::Contains("built from a preset's own config.json when the scenario's model is that preset unchanged"));
    vl::Scenario opt = preset("opt-350m", vl::Mode::Train);
    opt.model.layers -= 1;
    refusal_for(opt, "model.embed_dim");
    refusal_for(opt, "model.position_offset");
    refusal_for(opt, "model.final_norm");

    // GPT-2's learned position table has 1024 rows (openai-community/gpt2 n_positions).
    vl::Scenario g = preset("gpt2", vl::Mode::Infer);
    g.infer.context = 2048;
    CHECK(refusal_for(g, "infer.context") == "a learned position table of 1024 rows cannot index 2048 positions; transformers would fail");
}

TEST_CASE("verify script: queries the GPU torch uses, not nvidia-smi's index") {
    const std::string script = script_of(preset("gpt2", vl::Mode::Train));
    // `nvidia-smi -i <torch's index>` names another GPU under CUDA_VISIBLE_DEVICES: no command is run.
    CHECK(script.find("subprocess") == std::string::npos);
    CHECK(script.find("\"-i\"") == std::string::npos);
    CHECK_THAT(script, Catch::Contains("free, total = torch.cuda.mem_get_info()"));
}

TEST_CASE("verify script: the dry run states what the scenario needs, without torch") {
    if (!have_python()) {
        WARN("python3 not found: the generated script is not run");
        return;
    }
    vl::Scenario s = preset("gpt2", vl::Mode::Infer);
    s.infer.context = 1024;
    const Sandbox box(script_of(s));
    const Py r = box.run("--dry-run");
    CHECK(r.status == 0);
    // Weights: 124,439,808 parameters (reference_models.json gpt2) x 2 bytes (bf16) = 0.23 GiB.
    CHECK_THAT(r.out, Catch::Contains("needs: 1 GPU with "));
    CHECK_THAT(r.out, Catch::Contains(" GiB each (weights 0.23 GiB)\n"));
    CHECK_THAT(r.out, Catch::Contains(R"("prefill_chunk": 0)"));
    const Py usage = box.run("--dry-runn");
    CHECK(usage.status == 2);
    CHECK_THAT(usage.err, Catch::StartsWith("usage: python3 verify.py [--dry-run] [--force]"));
}

TEST_CASE("verify script: a scenario too large for the local GPU stops before building the model") {
    if (!have_python()) {
        WARN("python3 not found: the generated script is not run");
        return;
    }
    // Llama-3.1-405B in bf16: about 406e9 parameters x 2 bytes = 756 GiB of weights, on an 80 GiB GPU.
    vl::Scenario s = preset("llama-3.1-405b", vl::Mode::Infer);
    const Sandbox box(script_of(s), /*fakes=*/true);
    const Py r = box.run("");
    CHECK(r.status == 3);
    CHECK_THAT(r.err, Catch::StartsWith("this scenario needs 1 GPU with "));
    CHECK_THAT(r.err, Catch::Contains("; this machine has 1 visible GPU (Fake GPU: 80.00 GiB, 79.00 GiB free): "
                                      "the weights alone do not fit in its memory. Not run; --force runs it anyway"));
    CHECK(r.out.find("BUILT") == std::string::npos);  // the model was not built
    CHECK(r.err.find("Traceback") == std::string::npos);

    // --force runs it; running out of memory is a measured outcome, not a traceback.
    const Py forced = box.run("--force", "FAKE_OOM=1");
    CHECK(forced.status == 4);
    CHECK_THAT(forced.out, Catch::StartsWith("warning: this scenario needs 1 GPU with "));
    CHECK_THAT(forced.out, Catch::Contains("BUILT llama"));
    CHECK_THAT(forced.out, Catch::Contains("outcome: did not fit (CUDA out of memory while generating)\n"));
    CHECK_THAT(forced.out, Catch::Contains(R"({"outcome": "did not fit", "where": "generating", "measured": {"allocated": 3221225472, "reserved": 4294967296, )"));
    // The allocator's counters come with the report, and an OOM names the request that failed.
    CHECK_THAT(forced.out, Catch::Contains(R"("oom_message": "CUDA out of memory. Tried to allocate 20.00 MiB")"));
    CHECK(forced.err.find("Traceback") == std::string::npos);
}

TEST_CASE("verify script: a measured run reports the GPU's used memory from cudaMemGetInfo") {
    if (!have_python()) {
        WARN("python3 not found: the generated script is not run");
        return;
    }
    vl::Scenario s = preset("gpt2", vl::Mode::Infer);
    s.infer.context = 1024;
    s.infer.prompt = 512;
    s.infer.prefill_chunk = 128;
    const Sandbox box(script_of(s), /*fakes=*/true);
    // The stand-in GPU: 79 GiB free before, 70 GiB after, of 80 GiB: 1 GiB used before, 10 GiB after.
    const Py r = box.run("", "FAKE_PARAMS=124439808");
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains(R"(BUILT gpt2 {"attn_implementation": "sdpa", "torch_dtype": "bf16"})"));
    CHECK_THAT(r.out, Catch::Contains(R"("max_new_tokens": 512, "min_new_tokens": 512, "pad_token_id": 0, "prefill_chunk_size": 128})"));
    CHECK_THAT(r.out, Catch::Contains("GPU memory used, GiB (cudaMemGetInfo, whole GPU)          10.00"));
    CHECK_THAT(r.out, Catch::Contains("used before the run (CUDA context, other processes): 1.00 GiB\n"));
    // The fit is judged against the memory CUDA reports (the H100 80GB's 85,017,493,504 B = 79.18 GiB), as the run sees it.
    CHECK_THAT(r.out, Catch::Contains("on the scenario's H100 80GB (79.18 GiB usable)"));
    CHECK_THAT(r.out, Catch::Contains(R"({"outcome": "measured", "where": "generating", )"));
    // memory_stats()' counters, a missing one as 0, and the memory the process can use (80 GiB).
    CHECK_THAT(r.out, Catch::Contains(R"("allocator": {"num_alloc_retries": 2, "num_ooms": 0, "inactive_split_bytes.all.peak": 536870912, "active_bytes.all.peak": 0, "segment.all.peak": 7, "reserved_bytes.all.peak": 0, "process_total_bytes": 85899345920})"));
    CHECK(r.out.find("oom_message") == std::string::npos);
    CHECK(r.out.find("note:") == std::string::npos);  // 124,439,808 parameters, as vramlens counts GPT-2

    CHECK_THAT(box.run("", "FAKE_PARAMS=124439808 FAKE_SHOW_ALLOC_CONF=1").err, Catch::Contains("ALLOC_CONF at import: (unset)\n"));

    // overheads.expandable_segments: the allocator setting is in place before torch is imported.
    vl::Scenario ex = s;
    ex.overheads.expandable_segments = true;
    const Sandbox exbox(script_of(ex), /*fakes=*/true);
    CHECK_THAT(exbox.run("", "FAKE_PARAMS=124439808 FAKE_SHOW_ALLOC_CONF=1").err, Catch::Contains("ALLOC_CONF at import: expandable_segments:True\n"));

    // transformers 5 takes dtype= (torch_dtype= is deprecated there).
    const Py v5 = box.run("", "FAKE_PARAMS=124439808 FAKE_TF_VERSION=5.17.0");
    CHECK_THAT(v5.out, Catch::Contains(R"(BUILT gpt2 {"attn_implementation": "sdpa", "dtype": "bf16"})"));

    // A model transformers builds differently from what vramlens counted is flagged.
    const Py other = box.run("", "FAKE_PARAMS=1");
    CHECK(other.status == 0);
    CHECK_THAT(other.out, Catch::Contains("note: transformers built 1 parameters, vramlens counted 124439808: not like for like"));
}

TEST_CASE("verify script: BERT with its task head, written back as BertConfig (the hf-perf BERT rows' models)") {
    // bert-large-uncased as AutoModelForSequenceClassification with 2 labels, trained in fp32 at batch 4 x 512.
    vl::Scenario s = preset("bert-large-uncased", vl::Mode::Train);
    s.model.num_labels = 2;
    s.model.pooler = true;
    s.train.precision = vl::Precision::FP32;
    s.train.micro_batch = 4;
    s.train.seq_len = 512;
    const std::string script = script_of(s);
    const std::string cfg = line_of(script, "HF_CONFIG = ");
    // bert-large-uncased config.json: hidden 1024, 24 layers, 16 heads, intermediate 4096, 512 positions, 2 token types.
    CHECK_THAT(cfg, Catch::Contains(R"("model_type":"bert","vocab_size":30522,"intermediate_size":4096,"hidden_size":1024,)"
                                    R"("num_hidden_layers":24,"num_attention_heads":16,"max_position_embeddings":512,)"));
    CHECK_THAT(cfg, Catch::Contains(R"("type_vocab_size":2,"hidden_act":"gelu","hidden_dropout_prob":0.0,"attention_probs_dropout_prob":0.0,"num_labels":2)"));
    CHECK_THAT(line_of(script, "PLAN = "), Catch::Contains(R"("task":"seq-cls")"));
    // Masked LM: the MLM head instead of the pooler and classifier.
    vl::Scenario mlm = preset("bert-base-uncased", vl::Mode::Train);
    mlm.model.pooler = false;
    mlm.model.mlm_head = true;
    mlm.train.seq_len = 512;
    CHECK_THAT(line_of(script_of(mlm), "PLAN = "), Catch::Contains(R"("task":"masked-lm")"));
    // The loss comes from transformers' head: 16-bit logits without its loss are not reproduced.
    mlm.train.fp32_logits = false;
    CHECK_THAT(refusal_for(mlm, "train.fp32_logits"), Catch::StartsWith("the script takes the loss of the masked-lm model from transformers' own head"));
    // RoBERTa is built from its preset (its positions start after the padding index).
    vl::Scenario roberta = preset("bge-m3", vl::Mode::Infer);
    roberta.infer.context = 512;
    CHECK_THAT(line_of(script_of(roberta), "HF_CONFIG = "), Catch::Contains(R"("model_type":"xlm-roberta")"));
    vl::Scenario changed = roberta;
    changed.model.layers = 12;
    CHECK_THAT(refusal_for(changed, "model.model_type"), Catch::Contains("encoders other than bert (xlm-roberta) are built from a preset's own config.json"));
    // An encoder's inference is one forward over the batch: no generate(), no cache.
    const std::optional<Py> r = run_faked(script_of(generate_fp16("bert-base-uncased", 512)), "FAKE_PARAMS=109482240");
    if (!r) return;
    CHECK(r->status == 0);
    CHECK_THAT(r->out, Catch::Contains("BUILT AutoModel bert"));
    CHECK_THAT(r->out, Catch::Contains(R"(FORWARD ["attention_mask", "input_ids"])"));
    CHECK(r->out.find("GENERATE") == std::string::npos);
}

TEST_CASE("verify script: encoder-decoders from their preset, the decoder's labels and generate()'s tokens by target_len") {
    vl::Scenario s = preset("flan-t5-small", vl::Mode::Train);
    s.train.seq_len = 512;
    s.train.target_len = 64;
    const std::string script = script_of(s);
    const std::string cfg = line_of(script, "HF_CONFIG = ");
    CHECK_THAT(cfg, Catch::Contains(R"("model_type":"t5")"));
    CHECK_THAT(cfg, Catch::Contains(R"("feed_forward_proj":"gated-gelu")"));
    const std::string plan = line_of(script, "PLAN = ");
    CHECK_THAT(plan, Catch::Contains(R"("task":"seq2seq")"));
    CHECK_THAT(plan, Catch::Contains(R"("seq_len":512)"));
    CHECK_THAT(plan, Catch::Contains(R"("target_len":64)"));
    CHECK_THAT(script, Catch::Contains(R"(labels = torch.randint(0, vocab, (PLAN["micro_batch"], PLAN["target_len"]), device="cuda"))"));
    s.train.target_len = 0;  // as many as the source
    CHECK_THAT(line_of(script_of(s), "PLAN = "), Catch::Contains(R"("target_len":512)"));
    // A changed encoder-decoder has no config to write back.
    vl::Scenario changed = s;
    changed.model.layers = 4;
    changed.model.seq2seq.decoder_layers = 2;
    CHECK_THAT(refusal_for(changed, "model.model_type"), Catch::Contains("use a t5, flan-t5, mt0 or bart preset unchanged"));
    // generate(): the source is the context, target_len the new tokens.
    vl::Scenario g = generate_fp16("bart-base", 1024);
    g.infer.target_len = 128;
    const std::string gen = script_of(g);
    CHECK_THAT(line_of(gen, "HF_CONFIG = "), Catch::Contains(R"("model_type":"bart")"));
    CHECK_THAT(line_of(gen, "PLAN = "), Catch::Contains(R"("prompt_tokens":1024,"new_tokens":128)"));
    const std::optional<Py> r = run_faked(gen);
    if (!r) return;
    CHECK(r->status == 0);
    CHECK_THAT(r->out, Catch::Contains(R"(BUILT AutoModelForSeq2SeqLM bart {"attn_implementation": "sdpa", "torch_dtype": "fp16"})"));
    CHECK_THAT(r->out, Catch::Contains(R"("max_new_tokens": 128, "min_new_tokens": 128)"));
}

TEST_CASE("verify script: a vision-language model's generate() gets its images as the processor makes them") {
    // LLaVA-1.5 at 336 px / 14: 576 tokens per image, image_token_index 32000 (LlavaConfig) [llava15-hf].
    vl::Scenario l = generate_fp16("llava-1.5-7b", 1024);
    l.infer.prompt = 128;
    l.infer.images = 1;
    const std::string llava = script_of(l);
    CHECK_THAT(line_of(llava, "HF_CONFIG = "), Catch::Contains(R"("vision_config")"));  // the whole model, tower included
    CHECK_THAT(line_of(llava, "PLAN = "), Catch::Contains(R"("task":"image-text")"));
    CHECK_THAT(line_of(llava, "PLAN = "), Catch::Contains(R"("vlm":{"images":1,"tokens":576,"kind":"llava","size":336,"image_token_id":32000,)"));
    // Qwen2-VL at 448 x 448: 32 x 32 patches of 14 px, 2 x 2 merged: 256 tokens; a patch is 3 x 2 x 14 x 14 = 1176 values.
    vl::Scenario q = preset("qwen2-vl-2b", vl::Mode::Infer);
    q.infer.engine = vl::Engine::Transformers;
    q.infer.context = 1024;
    q.infer.prompt = 512;
    q.infer.images = 2;
    q.infer.image_width = 448;
    q.infer.image_height = 448;
    const std::string qwen = script_of(q);
    CHECK_THAT(line_of(qwen, "PLAN = "),
               Catch::Contains(R"("vlm":{"images":2,"tokens":256,"kind":"qwen","grid_h":32,"grid_w":32,"patch_dim":1176,"image_token_id":151655,)"));
    // Qwen2-VL's M-RoPE sections: the preset's config carries the file's rope_scaling (transformers needs it).
    CHECK_THAT(line_of(qwen, "HF_CONFIG = "), Catch::Contains(R"("mrope_section":[16,24,24])"));
    const std::optional<Py> r = run_faked(qwen);
    if (!r) return;
    CHECK(r->status == 0);
    CHECK_THAT(r->out, Catch::Contains("BUILT AutoModelForImageTextToText qwen2_vl"));
    // Two images of 256 tokens, each between vision_start and vision_end, before 512 - 2 x 2 text tokens.
    CHECK_THAT(r->out, Catch::Contains(R"("image_grid_thw": [[1, 32, 32], [1, 32, 32]])"));
    CHECK_THAT(r->out, Catch::Contains(R"("pixel_values": ["randn", 2048, 1176])"));
    CHECK_THAT(r->out, Catch::Contains(R"(IDS ["cat", ["expanded", 516, 1, -1], [1, 508]])"));
}
