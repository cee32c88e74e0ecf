// Framework profiles (issue 14): each profile sets what its source says, a scenario file applies the profile first and
// its explicit fields over it, errors name `profile`, links round-trip (old links open as before), and the peak summed
// by mechanism adds up, by hand on a small case.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "estimate.h"
#include "export.h"
#include "framework_profiles.h"
#include "mechanisms.h"
#include "model/hf_config.h"
#include "random_scenarios.h"
#include "scenario_json.h"
#include "share_link.h"

using namespace vl;

namespace {

// A scenario of `mode` whose fields are all unlike what any profile sets, so applying one must set each field.
Scenario scrambled(Mode mode) {
    Scenario s;
    s.mode = mode;
    s.train.precision = Precision::FP32;
    s.train.optimizer = Optimizer::Lion;
    s.train.recompute = Recompute::Selective;
    s.train.flash_attention = false;
    s.train.loss = LossImpl::Fused;
    s.train.fp32_grad_accum = false;
    s.finetune.method = FineTuneMethod::Full;
    s.finetune.lora_rank = 3;
    s.finetune.lora_targets = kLoraO;
    s.finetune.lora_dropout = 0.3;
    s.finetune.adapters_fp32 = false;
    s.finetune.double_quant = false;
    s.finetune.paged_optimizer = false;
    s.parallel.zero = 2;
    s.parallel.dp = 8;
    s.gpu_count = 8;
    s.infer.engine = Engine::Transformers;
    s.infer.logits_to_keep = 0;
    s.infer.flash_attention = false;
    s.infer.sliding_window_cache = !s.infer.sliding_window_cache;
    s.infer.mla_cache = MlaCache::Decompressed;
    s.infer.gpu_memory_utilization = 0.5;
    s.infer.cuda_graphs = false;
    s.infer.block_size = 32;
    s.infer.max_num_seqs = 7;
    s.infer.llamacpp_backend = LlamaCppBackend::CANN;
    s.infer.ubatch = 64;
    s.infer.kv_dtype = KvDtype::FP8;
    return s;
}

Scenario applied(const char* id, Mode mode) {
    Scenario s = scrambled(mode);
    const std::vector<FieldError> errs = apply_profile(s, id);
    INFO(id);
    REQUIRE(errs.empty());
    CHECK(s.profile == id);
    return s;
}

std::string first_error(const std::string& json) {
    Result<Scenario> r = scenario_from_json(json);
    REQUIRE_FALSE(r.ok());
    return to_string(r.errors.front());
}

}  // namespace

// Expected values are the sources' defaults, written here from them (docs/sources.md keys in each comment).
TEST_CASE("framework profiles: each profile sets the fields its source says") {
    std::set<std::string> tested;
    auto t = [&](const char* id, Mode m) { tested.insert(id); return applied(id, m); };
    {  // [transformers-pr42805] v4 loads fp32; [transformers-training-args] bf16=True autocast, no checkpointing, AdamW
        const Scenario s = t("transformers-trainer-v4", Mode::Train);
        CHECK(s.train.precision == Precision::AutocastBF16);
        CHECK(s.train.recompute == Recompute::None);
        CHECK(s.train.optimizer == Optimizer::AdamW);
        CHECK(s.train.optimizer_impl == OptimizerImpl::Foreach);  // [transformers-pr37358] adamw_torch before 4.54 / torch 2.8
        CHECK(s.train.flash_attention);
        CHECK(s.train.loss == LossImpl::Upcast);
    }
    {  // [transformers-pr42805] v5 loads the checkpoint's bf16: autocast over bf16 weights is pure bf16
        const Scenario s = t("transformers-trainer-v5", Mode::Train);
        CHECK(s.train.precision == Precision::PureBF16);
        CHECK(s.train.recompute == Recompute::None);
        CHECK(s.train.optimizer == Optimizer::AdamW);
        CHECK(s.train.optimizer_impl == OptimizerImpl::Fused);  // [transformers-pr37358] adamw_torch_fused with torch >= 2.8
    }
    {  // [peft-lora-config] r=8, lora_dropout=0.0, llama targets q_proj and v_proj; [peft-code] fp32 adapters
        const Scenario s = t("peft-lora", Mode::FineTune);
        CHECK(s.finetune.method == FineTuneMethod::LoRA);
        CHECK(s.finetune.lora_rank == 8);
        CHECK(s.finetune.lora_targets == (kLoraQ | kLoraV));
        CHECK(s.finetune.lora_dropout == 0.0);
        CHECK(s.finetune.adapters_fp32);
        CHECK(s.train.recompute == Recompute::None);
    }
    {  // [qlora-code] nf4 + double quant, paged_adamw_32bit, r=64 on every linear, gradient checkpointing
        const Scenario s = t("peft-qlora", Mode::FineTune);
        CHECK(s.finetune.method == FineTuneMethod::QLoRA);
        CHECK(s.finetune.double_quant);
        CHECK(s.finetune.paged_optimizer);
        CHECK(s.finetune.lora_rank == 64);
        CHECK(s.finetune.lora_targets == kLoraAllLinear);
        CHECK(s.finetune.lora_dropout == 0.0);
        CHECK(s.train.recompute == Recompute::Full);
        CHECK(s.finetune.bnb_saves_inputs);  // its requirements.txt pins bitsandbytes 0.39.0, before PR #1270
    }
    for (int stage = 1; stage <= 3; ++stage) {  // [deepspeed-bf16-config] [deepspeed-memory]
        const std::string id = "deepspeed-zero" + std::to_string(stage);
        const Scenario s = t(id.c_str(), Mode::Train);
        CHECK(s.train.precision == Precision::MixedBF16);
        CHECK(s.parallel.zero == stage);
    }
    {  // [megatron-arguments] --bf16 forces fp32 gradient accumulation; no distributed optimizer, no recompute
        const Scenario s = t("megatron-lm", Mode::Train);
        CHECK(s.train.precision == Precision::MixedBF16);
        CHECK(s.train.fp32_grad_accum);
        CHECK(s.parallel.zero == 0);
        CHECK(s.train.recompute == Recompute::None);
    }
    {  // [pytorch-fsdp2] fully_shard shards everything; bf16 compute copies of fp32 parameters
        const Scenario s = t("fsdp2", Mode::Train);
        CHECK(s.train.precision == Precision::MixedBF16);
        CHECK(s.parallel.zero == 3);
        CHECK(s.train.optimizer_impl == OptimizerImpl::Foreach);  // [pytorch-adam-code] torch.optim.AdamW's default
    }
    {  // [transformers-code] generate(): logits_to_keep=1, sdpa, DynamicCache(config) (>= 4.56), latent MLA cache (v5)
        const Scenario s = t("transformers-generate-v5", Mode::Infer);
        CHECK(s.infer.engine == Engine::Transformers);
        CHECK(s.infer.logits_to_keep == 1);
        CHECK(s.infer.flash_attention);
        CHECK(s.infer.sliding_window_cache);
        CHECK(s.infer.mla_cache == MlaCache::Latent);
    }
    {  // [transformers-code] before 4.56 DynamicCache() keeps every token; v4 DeepSeek code caches per-head K and V
        const Scenario s = t("transformers-generate-v4", Mode::Infer);
        CHECK(s.infer.engine == Engine::Transformers);
        CHECK(s.infer.logits_to_keep == 1);
        CHECK_FALSE(s.infer.sliding_window_cache);
        CHECK(s.infer.mla_cache == MlaCache::Decompressed);
    }
    {  // [vllm-serve-flags] --gpu-memory-utilization 0.9, CUDA graphs, --block-size 16, --max-num-seqs unset
        const Scenario s = t("vllm", Mode::Infer);
        CHECK(s.infer.engine == Engine::VLLM);
        CHECK(s.infer.gpu_memory_utilization == 0.9);
        CHECK(s.infer.cuda_graphs);
        CHECK(s.infer.block_size == 16);
        CHECK(s.infer.max_num_seqs == 0);  // vLLM's default (runtime.h vllm_max_num_seqs)
    }
    {  // [llama-cpp-server-flags] -ub 512, f16 KV; [llama-cpp-fa-auto] -fa auto is on with CUDA
        const Scenario s = t("llama-cpp-cuda", Mode::Infer);
        CHECK(s.infer.engine == Engine::LlamaCpp);
        CHECK(s.infer.llamacpp_backend == LlamaCppBackend::CUDA);
        CHECK(s.infer.ubatch == 512);
        CHECK(s.infer.flash_attention);
        CHECK(s.infer.kv_dtype == KvDtype::FP16);
    }
    std::set<std::string> all;
    for (const FrameworkProfile& p : framework_profiles()) all.insert(p.id);
    CHECK(tested == all);  // a new profile needs its expectations here
}

TEST_CASE("framework profiles: every setting is a real field and value, and every profile applies to a mode") {
    for (const FrameworkProfile& p : framework_profiles()) {
        INFO(p.id);
        CHECK(p.modes != 0);
        CHECK((p.modes & mode_bit(Mode::Local)) == 0);
        for (const ProfileSetting& st : p.settings) {
            Scenario s;
            INFO(st.field << " = " << st.value);
            CHECK(set_scenario_field(s, st.field, st.value).empty());
            CHECK(std::string(st.source).rfind("[", 0) == 0);  // a source key first
        }
    }
    Scenario s;
    const std::vector<FieldError> typo = set_scenario_field(s, "train.precison", "\"fp32\"");
    REQUIRE(typo.size() == 1);
    CHECK(to_string(typo[0]) == "train.precison: unknown field");
}

TEST_CASE("framework profiles: a scenario file applies the profile first, then its explicit fields") {
    // The profile stands last in the text: the order is the rule's, not the file's.
    Result<Scenario> r = scenario_from_json(
        R"({"version": 1, "mode": "finetune", "finetune": {"lora_rank": 16}, "train": {"recompute": "none"}, "profile": "peft-qlora"})");
    REQUIRE(r.ok());
    CHECK(r->profile == "peft-qlora");
    CHECK(r->finetune.method == FineTuneMethod::QLoRA);       // from the profile
    CHECK(r->finetune.lora_targets == kLoraAllLinear);        // from the profile
    CHECK(r->finetune.lora_rank == 16);                       // the file's, over the profile's 64
    CHECK(r->train.recompute == Recompute::None);             // the file's, over the profile's full
    CHECK(profile_text(*r) == "custom (from PEFT + bitsandbytes QLoRA (the QLoRA reference script))");
}

TEST_CASE("framework profiles: an unknown id or a profile of another mode is an error naming profile") {
    const std::string unknown = first_error(R"({"version": 1, "profile": "pytorch-lightning"})");
    CHECK(unknown.rfind("profile: unknown profile \"pytorch-lightning\": give one of ", 0) == 0);
    for (const FrameworkProfile& p : framework_profiles()) CHECK(unknown.find(p.id) != std::string::npos);
    const std::string mode = first_error(R"({"version": 1, "mode": "train", "profile": "vllm"})");
    CHECK(mode.rfind("profile: \"vllm\" (vLLM (vllm serve defaults)) applies to mode infer, not to mode train", 0) == 0);
    CHECK(first_error(R"({"version": 1, "profile": 3})") == "profile: must be a string; got 3");
    // A scenario edited after its profile was applied (the mode changed): estimate() refuses it by name.
    Scenario s;
    REQUIRE(apply_profile(s, "megatron-lm").empty());
    s.mode = Mode::Infer;
    const Estimate e = estimate(s);
    REQUIRE_FALSE(e.ok());
    CHECK(e.errors.front().field == "profile");
}

TEST_CASE("framework profiles: the writer and share links round-trip a profile and fields changed after it") {
    Scenario s;
    s.mode = Mode::FineTune;
    REQUIRE(apply_profile(s, "peft-qlora").empty());
    s.train.recompute = Recompute::None;  // back to Scenario's default after the profile set full: must be written
    s.finetune.lora_rank = 32;
    const std::string compact = scenario_to_json(s, JsonStyle::Compact);
    CHECK(compact == R"({"version":1,"profile":"peft-qlora","mode":"finetune","model":"llama-3.1-8b","train":{"recompute":"none"},"finetune":{"lora_rank":32}})");
    for (const std::string& text : {compact, scenario_to_json(s, JsonStyle::Pretty)}) {
        Result<Scenario> r = scenario_from_json(text);
        REQUIRE(r.ok());
        CHECK(scenario_to_json(*r, JsonStyle::Pretty) == scenario_to_json(s, JsonStyle::Pretty));
        CHECK(r->train.recompute == Recompute::None);
        CHECK(r->finetune.lora_rank == 32);
        CHECK(r->finetune.method == FineTuneMethod::QLoRA);
    }
    Result<Scenario> back = decode_share_link(encode_share_link(s));
    REQUIRE(back.ok());
    CHECK(back->profile == "peft-qlora");
    CHECK(scenario_to_json(*back, JsonStyle::Pretty) == scenario_to_json(s, JsonStyle::Pretty));
}

TEST_CASE("framework profiles: a link made before profiles opens as it did, with no profile") {
    // The compact text of a vLLM scenario as links carried it before the field existed.
    const std::string old = R"({"version":1,"model":"llama-3.1-8b","mode":"infer","infer":{"engine":"vllm","gpu_memory_utilization":0.85}})";
    Result<Scenario> r = scenario_from_json(old);
    REQUIRE(r.ok());
    CHECK(r->profile.empty());
    CHECK(scenario_to_json(*r, JsonStyle::Compact) == old);  // written back byte for byte: no "profile" appears
    Scenario by_hand;
    by_hand.model = r->model;
    by_hand.mode = Mode::Infer;
    by_hand.infer.engine = Engine::VLLM;
    by_hand.infer.gpu_memory_utilization = 0.85;
    CHECK(estimate(*r, Detail::NumbersOnly).total_bytes == estimate(by_hand, Detail::NumbersOnly).total_bytes);
    CHECK(profile_text(*r).empty());
}

TEST_CASE("framework profiles: the default inference profile is what a scenario without one already estimates") {
    Scenario plain;
    plain.mode = Mode::Infer;
    Scenario with = plain;
    REQUIRE(apply_profile(with, default_profile(Mode::Infer)).empty());
    CHECK(estimate(with, Detail::NumbersOnly).total_bytes == estimate(plain, Detail::NumbersOnly).total_bytes);
    CHECK(std::string(default_profile(Mode::Local)).empty());
    for (Mode m : {Mode::Train, Mode::FineTune, Mode::Infer}) {
        const FrameworkProfile* p = find_profile(default_profile(m));
        REQUIRE(p);
        CHECK((p->modes & mode_bit(m)) != 0);
    }
}

TEST_CASE("framework profiles: the profile line names what the profile sets, and custom once a set field changes") {
    Scenario s;
    s.mode = Mode::Infer;
    REQUIRE(apply_profile(s, "vllm").empty());
    const std::string text = profile_text(s);
    CHECK(text.rfind("profile: vLLM (vllm serve defaults) (vLLM >= 0.6; sets: infer.engine = vllm, ", 0) == 0);
    CHECK(text.find("infer.gpu_memory_utilization = 0.9") != std::string::npos);
    CHECK(profile_intact(s));
    s.infer.batch = 64;  // a field the profile does not set
    CHECK(profile_intact(s));
    s.infer.gpu_memory_utilization = 0.95;  // one it sets
    CHECK_FALSE(profile_intact(s));
    CHECK(profile_text(s) == "custom (from vLLM (vllm serve defaults))");
    const std::string table = export_estimate(s, estimate(s), ExportFormat::Table);
    CHECK(table.find("\ncustom (from vLLM (vllm serve defaults))\n") != std::string::npos);
}

TEST_CASE("mechanisms: component ids map to their mechanism by the one prefix table") {
    CHECK(std::string(mechanism_of("weights").id) == "model_states");
    CHECK(std::string(mechanism_of("weights.autocast_copies").id) == "weight_copies");
    CHECK(std::string(mechanism_of("weights.autocast_copies_backward").id) == "weight_copies");
    CHECK(std::string(mechanism_of("optimizer.states").id) == "model_states");
    CHECK(std::string(mechanism_of("lora.grads").id) == "model_states");
    CHECK(std::string(mechanism_of("logits.fp32").id) == "logits_loss");
    CHECK(std::string(mechanism_of("act.attention").id) == "activations");
    CHECK(std::string(mechanism_of("kv_cache").id) == "kv_cache");
    CHECK(std::string(mechanism_of("buffers.kv_growth").id) == "kv_cache");
    CHECK(std::string(mechanism_of("buffers.comm_bucket").id) == "comm_buffers");
    CHECK(std::string(mechanism_of("engine.non_torch").id) == "engine_reserve");
    CHECK(std::string(mechanism_of("cuda_context").id) == "cuda_context");
    CHECK(std::string(mechanism_of("overhead.fragmentation").id) == "allocator_reserve");
    CHECK(std::string(mechanism_of("grads.frozen_flat").id) == "fsdp_flat_grads");
    CHECK(std::string(mechanism_of("grads").id) == "model_states");
    CHECK(std::string(mechanism_of("buffers.ds_gathered_params").id) == "deepspeed_buffers");
    CHECK(std::string(mechanism_of("weights.ds_persistent").id) == "deepspeed_buffers");
    CHECK(std::string(mechanism_of("spec.draft_kv").id) == "speculative");
    CHECK(std::string(mechanism_of("weightsx").id) == "other");  // a whole head, not any prefix
}

TEST_CASE("mechanisms: by hand, an fp32 AdamW model of 1e9 parameters is 20 B/param of model states at the step plus the context") {
    Scenario s;
    s.model = model_from_param_count(1'000'000'000);
    // weights 4 + gradients 4 + Adam m and v 8 = 16 B/param [zero2020 §3.1], and at the step foreach AdamW's sqrt(v),
    // one more fp32 state-sized tensor: 4 B/param [pytorch-adam-code] (the optimizer's mechanism, model states).
    s.train.precision = Precision::FP32;
    s.overheads.cuda_context_bytes = 536870912;  // 512 MiB, given
    s.overheads.fragmentation = 0;
    s.overheads.temp_buffers = false;
    const Estimate e = estimate(s);
    REQUIRE(e.ok());
    // The default GPU is an H100 (Hopper): PyTorch's cuBLAS workspace is 4096 KiB x 8 = 33,554,432 B per handle, and
    // training holds two handles (the forward's thread, the autograd device thread) [pytorch-cublas-handle-pool]
    // [pytorch-autograd-engine]: 67,108,864 B, the engine-buffers mechanism.
    REQUIRE(e.mechanisms.size() == 3);
    CHECK(std::string(e.mechanisms[0].id) == "model_states");
    CHECK(e.mechanisms[0].bytes == 20e9);
    CHECK(std::string(e.mechanisms[1].id) == "cuda_context");
    CHECK(e.mechanisms[1].bytes == 536870912);
    CHECK(std::string(e.mechanisms[2].id) == "engine_reserve");
    CHECK(e.mechanisms[2].bytes == 67108864);
    CHECK(e.total_bytes == 20e9 + 536870912 + 67108864);
    CHECK(e.mechanisms[0].share == Approx(20e9 / (20e9 + 536870912 + 67108864)));
    // 20e9 B = 18.626 GiB, 97.07 % of 20,603,979,776 B; 512 MiB = 0.50 GiB, 2.61 %
    CHECK(mechanisms_text(e, SizeUnit::GiB).rfind("By mechanism at the peak: model states (weights, gradients, optimizer) 18.63 GiB (97.1 %), CUDA context 0.50 GiB (2.6 %)", 0) == 0);
}

TEST_CASE("mechanisms: over random scenarios and every profile, the rows sum to the peak and no id is unmapped") {
    test::Rng r(20261126);
    int checked = 0;
    auto check = [&](const Scenario& s) {
        const Estimate e = estimate(s, Detail::NumbersOnly);
        if (!e.ok()) return;
        ++checked;
        double sum = 0, shares = 0;
        for (const MechanismBytes& m : e.mechanisms) { sum += m.bytes; shares += m.share; }
        CHECK(sum == Approx(e.total_bytes).epsilon(1e-12));
        if (e.total_bytes > 0) CHECK(shares == Approx(1.0));
        for (const Component& c : e.components) {
            INFO(c.id);
            CHECK(std::string(mechanism_of(c.id).id) != "other");
        }
    };
    for (int i = 0; i < 3000; ++i) check(test::random_scenario(r));
    for (const FrameworkProfile& p : framework_profiles())
        for (Mode m : {Mode::Train, Mode::FineTune, Mode::Infer}) {
            if (!(p.modes & mode_bit(m))) continue;
            Scenario s;
            s.mode = m;
            if (p.id == std::string("deepspeed-zero1") || p.id == std::string("deepspeed-zero2") || p.id == std::string("deepspeed-zero3") ||
                p.id == std::string("fsdp2")) {
                s.parallel.dp = 8;
                s.gpu_count = 8;
            }
            REQUIRE(apply_profile(s, p.id).empty());
            check(s);
        }
    CHECK(checked > 1000);
}
