// validate() is the one owner of every scenario rule: each rule is checked in one place, and one
// problem gives one error naming the field and the rule (issue 13). Each case below breaks exactly
// one rule of an otherwise valid scenario and expects exactly that error, once.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "estimate.h"
#include "model/hf_config.h"
#include "model/presets.h"

using namespace vl;

namespace {

Scenario base(Mode mode, const char* preset = "llama-3.1-8b") {
    Scenario s;
    s.mode = mode;
    s.model = find_model(preset)->spec;
    return s;
}

// dp * tp * pp * cp GPUs, as the layout asks.
void layout(Scenario& s, int64_t dp, int64_t tp, int64_t pp = 1, int64_t cp = 1) {
    s.parallel.dp = dp;
    s.parallel.tp = tp;
    s.parallel.pp = pp;
    s.parallel.cp = cp;
    s.gpu_count = dp * tp * pp * cp;
}

struct Case {
    const char* what;
    Scenario s;
    const char* field;
    const char* message;  // a part of the message: the rule and the offending value
};

Case make(const char* what, Scenario s, const std::function<void(Scenario&)>& brk, const char* field, const char* message) {
    brk(s);
    return {what, std::move(s), field, message};
}

std::string listed(const std::vector<FieldError>& errs) {
    std::string out;
    for (const FieldError& e : errs) out += "\n  " + to_string(e);
    return out;
}

void check_one_error(const Case& c) {
    INFO(c.what);
    const std::vector<FieldError> errs = validate(c.s);
    INFO("errors:" << listed(errs));
    CHECK(errs.size() == 1);
    if (errs.empty()) return;
    CHECK(errs[0].field == c.field);
    CHECK_THAT(errs[0].message, Catch::Contains(c.message));
    const Estimate e = estimate(c.s);  // the same errors, and no numbers
    CHECK(e.errors.size() == 1);
    CHECK(e.components.empty());
}

}  // namespace

TEST_CASE("validate: a bad pp gives exactly one error, naming parallel.pp") {
    // Llama-3.1-8B has 32 layers (config.json num_hidden_layers): 33 stages cannot each hold one.
    for (Mode mode : {Mode::Train, Mode::FineTune, Mode::Infer}) {
        INFO("mode " << static_cast<int>(mode));
        Scenario s = base(mode);
        layout(s, 1, 1, 33);
        std::vector<FieldError> errs = validate(s);
        INFO(listed(errs));
        REQUIRE(errs.size() == 1);
        CHECK(to_string(errs[0]) == "parallel.pp: must be at most num_hidden_layers (32); got 33");
        s.parallel.pp = 0;
        errs = validate(s);
        REQUIRE(errs.size() == 1);
        CHECK(to_string(errs[0]) == "parallel.pp: must be >= 1; got 0");
    }
    // With interleaving, too many stages is still one problem: the chunk count is not judged on top.
    Scenario s = base(Mode::Train);
    layout(s, 1, 1, 33);
    s.parallel.schedule = PipelineSchedule::Interleaved;
    s.parallel.virtual_stages = 2;
    const std::vector<FieldError> errs = validate(s);
    INFO(listed(errs));
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].field == "parallel.pp");
}

TEST_CASE("validate: a broken model is reported alone, not again by the layout rules that compare with it") {
    Scenario s = base(Mode::Train);
    layout(s, 1, 1, 2);
    s.model.layers = 0;  // pp = 2 > 0 layers follows from this one mistake
    std::vector<FieldError> errs = validate(s);
    INFO(listed(errs));
    REQUIRE(errs.size() == 1);
    CHECK(to_string(errs[0]) == "model.num_hidden_layers: must be > 0; got 0");
    s = base(Mode::Train);
    layout(s, 1, 2);
    s.model.heads = 100'001;  // absurd, and odd: tp = 2 "must divide" it would be a second error
    errs = validate(s);
    INFO(listed(errs));
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].field == "model.num_attention_heads");
}

TEST_CASE("validate: a value that breaks several rules, or one a relation depends on, gives one error") {
    // tp = 3 divides none of Llama-3.1-8B's 32 heads, 8 KV heads and 14336 FFN: the first rule speaks, naming the matrices split along the heads (core/model/layer_tensors.h).
    Scenario s = base(Mode::Train);
    layout(s, 1, 3);
    std::vector<FieldError> errs = validate(s);
    INFO(listed(errs));
    REQUIRE(errs.size() == 1);
    CHECK(to_string(errs[0]) == "parallel.tp: must divide num_attention_heads (32); got 3 (q_proj, o_proj split along it)");
    // ZeRO 4 does not exist: the offloads and the DeepSpeed estimator that need a stage are not judged against it.
    s = base(Mode::Train);
    s.parallel.zero = 4;
    s.parallel.offload_optimizer = true;
    s.parallel.offload_params = true;
    s.train.compat = Compat::DeepSpeedEstimator;
    errs = validate(s);
    INFO(listed(errs));
    REQUIRE(errs.size() == 1);
    CHECK(to_string(errs[0]) == "parallel.zero: must be 0, 1, 2 or 3; got 4");
    // A context of 0 is the error; the prompt is not judged against it.
    s = base(Mode::Infer);
    s.infer.context = 0;
    s.infer.prompt = 100;
    errs = validate(s);
    INFO(listed(errs));
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].field == "infer.context");
    // An absurd tp on llama.cpp: the degree is wrong, which the engine's "tp must be 1" would only repeat.
    s = base(Mode::Infer);
    s.infer.engine = Engine::LlamaCpp;
    s.infer.weights = WeightFormat::GGUF_Q4_K_M;
    layout(s, 1, 2048);
    errs = validate(s);
    INFO(listed(errs));
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].field == "parallel");
    // 0 layers: the MoE pattern's first dense layers are not judged against it.
    s = base(Mode::Train, "deepseek-v2-lite");
    s.model.layers = 0;
    errs = validate(s);
    INFO(listed(errs));
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].field == "model.num_hidden_layers");
}

TEST_CASE("validate: the training-only layout fields are not judged in inference, which ignores them") {
    // What a training setup leaves behind when the page switches to inference (it sets ZeRO to 0).
    Scenario s = base(Mode::Infer);
    s.parallel.zero = 0;
    s.parallel.offload_optimizer = true;
    s.parallel.offload_params = true;
    s.parallel.sp = true;
    CHECK(validate(s).empty());
    s.parallel.zero = 7;
    CHECK(validate(s).empty());
    s.mode = Mode::Train;
    const std::vector<FieldError> errs = validate(s);
    INFO(listed(errs));
    REQUIRE(errs.size() == 2);  // the stage, and sp at tp 1 (the offloads wait for a real stage)
    CHECK(errs[0].field == "parallel.zero");
    CHECK(errs[1].field == "parallel.sp");
}

TEST_CASE("validate: every rule, broken alone, gives its one error") {
    const Scenario train = base(Mode::Train), infer = base(Mode::Infer), moe = base(Mode::Train, "mixtral-8x7b");
    const Scenario mla_infer = base(Mode::Infer, "deepseek-v2-lite");
    Scenario lora = base(Mode::FineTune);
    lora.finetune.method = FineTuneMethod::LoRA;
    Scenario qlora = lora;
    qlora.finetune.method = FineTuneMethod::QLoRA;
    Scenario params_only = train;
    params_only.model = model_from_param_count(7'000'000'000);
    Scenario vllm = infer, llamacpp = infer;
    vllm.infer.engine = Engine::VLLM;
    llamacpp.infer.engine = Engine::LlamaCpp;
    llamacpp.infer.weights = WeightFormat::GGUF_Q4_K_M;

    const std::vector<Case> cases = {
        // The model (validate_model; field names are config.json's).
        make("vocab 0", train, [](Scenario& s) { s.model.vocab = 0; }, "model.vocab_size", "must be > 0; got 0"),
        make("hidden 0", train, [](Scenario& s) { s.model.hidden = 0; }, "model.hidden_size", "must be > 0; got 0"),
        make("hidden absurd", train, [](Scenario& s) { s.model.hidden = 2'000'000; }, "model.hidden_size", "must be at most 1000000 (absurd size); got 2000000"),
        make("layers 0", train, [](Scenario& s) { s.model.layers = 0; }, "model.num_hidden_layers", "must be > 0; got 0"),
        make("heads 0", train, [](Scenario& s) { s.model.heads = 0; }, "model.num_attention_heads", "must be > 0; got 0"),
        make("kv heads 0", train, [](Scenario& s) { s.model.kv_heads = 0; }, "model.num_key_value_heads", "must be > 0; got 0"),
        make("kv heads 5 of 32", train, [](Scenario& s) { s.model.kv_heads = 5; }, "model.num_key_value_heads", "must divide num_attention_heads (32); got 5"),
        make("head_dim 0", train, [](Scenario& s) { s.model.head_dim = 0; }, "model.head_dim", "must be > 0; got 0"),
        make("embed_dim -1", train, [](Scenario& s) { s.model.embed_dim = -1; }, "model.word_embed_proj_dim", "must be > 0; got -1"),
        make("ffn 0", train, [](Scenario& s) { s.model.ffn = 0; }, "model.intermediate_size", "must be > 0; got 0"),
        make("norms 5", train, [](Scenario& s) { s.model.norms_per_layer = 5; }, "model.norms_per_layer", "must be at most 4 (absurd size); got 5"),
        make("learned positions 0", train, [](Scenario& s) { s.model.position = PositionKind::Learned; s.model.max_position = 0; },
             "model.max_position_embeddings", "must be > 0; got 0"),
        make("position offset -1", train, [](Scenario& s) { s.model.position_offset = -1; }, "model.position_offset", "must be >= 0; got -1"),
        make("sliding window -1", train, [](Scenario& s) { s.model.sliding_window = -1; }, "model.sliding_window", "must be >= 0; got -1"),
        make("window pattern -1", train, [](Scenario& s) { s.model.sliding_window_pattern = -1; }, "model.sliding_window_pattern", "must be >= 0; got -1"),
        make("experts -1", train, [](Scenario& s) { s.model.moe.num_experts = -1; }, "model.num_experts", "must be >= 0; got -1"),
        make("top-k 9 of 8", moe, [](Scenario& s) { s.model.moe.top_k = 9; }, "model.num_experts_per_tok", "must be at most num_experts (8); got 9"),
        make("expert ffn 0", moe, [](Scenario& s) { s.model.moe.expert_ffn = 0; }, "model.moe_intermediate_size", "must be > 0; got 0"),
        make("shared experts -1", moe, [](Scenario& s) { s.model.moe.shared_experts = -1; }, "model.n_shared_experts", "must be >= 0; got -1"),
        make("shared expert ffn -1", moe, [](Scenario& s) { s.model.moe.shared_expert_ffn = -1; }, "model.shared_expert_intermediate_size", "must be >= 0; got -1"),
        make("dense layers 33 of 32", moe, [](Scenario& s) { s.model.moe.first_dense_layers = 33; }, "model.first_k_dense_replace", "must be at most 32 (absurd size); got 33"),
        make("moe step 0", moe, [](Scenario& s) { s.model.moe.moe_layer_freq = 0; }, "model.decoder_sparse_step", "must be > 0; got 0"),
        make("q_lora_rank -1", mla_infer, [](Scenario& s) { s.model.mla.q_lora_rank = -1; }, "model.q_lora_rank", "must be >= 0; got -1"),
        make("kv_lora_rank 0 (inference)", mla_infer, [](Scenario& s) { s.model.mla.kv_lora_rank = 0; }, "model.kv_lora_rank", "must be > 0; got 0"),
        make("rope dim 0", mla_infer, [](Scenario& s) { s.model.mla.qk_rope_head_dim = 0; }, "model.qk_rope_head_dim", "must be > 0; got 0"),
        make("nope dim -1", mla_infer, [](Scenario& s) { s.model.mla.qk_nope_head_dim = -1; }, "model.qk_nope_head_dim", "must be >= 0; got -1"),
        make("v dim 0", mla_infer, [](Scenario& s) { s.model.mla.v_head_dim = 0; }, "model.v_head_dim", "must be > 0; got 0"),
        // 100k layers of a 65536-wide model: ~5e15 parameters (each size alone is plausible).
        make("model too large", train, [](Scenario& s) { s.model.layers = 100'000; s.model.hidden = 65536; s.model.heads = 512; s.model.kv_heads = 512; s.model.ffn = 262144; },
             "model.num_parameters", "at most 10 trillion is accepted"),
        make("count -5", params_only, [](Scenario& s) { s.model.params_only = -5; }, "model.params", "must be > 0 (the parameter count of a model known only by it); got -5"),
        make("count 2e13", params_only, [](Scenario& s) { s.model.params_only = 20'000'000'000'000; }, "model.params", "must be at most 1e13 (absurd size)"),
        // Every mode.
        make("gpu memory 0", train, [](Scenario& s) { s.gpu.memory_bytes = 0; }, "gpu.memory_bytes", "must be > 0 and at most 1 PB"),
        make("context NaN (training)", train, [](Scenario& s) { s.overheads.cuda_context_bytes = std::nan(""); }, "overheads.cuda_context_bytes", "below 0: the CUDA context table by GPU architecture"),
        make("context 2e12 B (inference)", infer, [](Scenario& s) { s.overheads.cuda_context_bytes = 2e12; }, "overheads.cuda_context_bytes", "must be a byte count up to 1e12"),
        make("fragmentation 2", infer, [](Scenario& s) { s.overheads.fragmentation = 2; }, "overheads.fragmentation", "must be in [0, 1]; got 2"),
        make("fragmentation NaN", train, [](Scenario& s) { s.overheads.fragmentation = std::nan(""); }, "overheads.fragmentation", "must be in [0, 1]"),
        make("bucket -1", train, [](Scenario& s) { s.overheads.bucket_bytes = -1; }, "overheads.bucket_bytes", "must be in [0, 1e+12]; got -1"),
        // The parallel layout (validate_parallel).
        make("dp 0", train, [](Scenario& s) { s.parallel.dp = 0; }, "parallel.dp", "must be >= 1; got 0"),
        make("tp 0", train, [](Scenario& s) { s.parallel.tp = 0; }, "parallel.tp", "must be >= 1; got 0"),
        make("cp 0", train, [](Scenario& s) { s.parallel.cp = 0; }, "parallel.cp", "must be >= 1; got 0"),
        make("ep 0", train, [](Scenario& s) { s.parallel.ep = 0; }, "parallel.ep", "must be >= 1; got 0"),
        make("virtual stages 0", train, [](Scenario& s) { s.parallel.virtual_stages = 0; }, "parallel.virtual_stages", "must be >= 1; got 0"),
        make("gpus per node 0", train, [](Scenario& s) { s.parallel.gpus_per_node = 0; }, "parallel.gpus_per_node", "must be >= 1; got 0"),
        make("dp 2e6", train, [](Scenario& s) { layout(s, 2'000'000, 1); }, "parallel", "degrees too large"),
        make("2 GPUs for 1 rank", train, [](Scenario& s) { s.gpu_count = 2; }, "gpu_count", "must equal dp * tp * pp * cp (1); got 2"),
        make("zero 4", train, [](Scenario& s) { s.parallel.zero = 4; }, "parallel.zero", "must be 0, 1, 2 or 3; got 4"),
        make("shard group 3 of dp 2", train, [](Scenario& s) { layout(s, 2, 1); s.parallel.shard_group = 3; }, "parallel.shard_group", "divide parallel.dp (2); got 3"),
        make("offload params at zero 2", train, [](Scenario& s) { s.parallel.zero = 2; s.parallel.offload_params = true; }, "parallel.offload_params", "needs parallel.zero = 3"),
        make("offload optimizer at zero 0", train, [](Scenario& s) { s.parallel.offload_optimizer = true; }, "parallel.offload_optimizer", "needs parallel.zero >= 1"),
        make("sp at tp 1", train, [](Scenario& s) { s.parallel.sp = true; }, "parallel.sp", "needs parallel.tp > 1; got tp 1"),
        make("virtual stages without interleaving", train, [](Scenario& s) { layout(s, 1, 1, 2); s.parallel.virtual_stages = 2; },
             "parallel.virtual_stages", "needs the interleaved schedule"),
        make("ep 2 at dp 1", moe, [](Scenario& s) { s.parallel.ep = 2; }, "parallel.ep", "must divide parallel.dp (1"),
        // 12 heads, 4 KV heads: tp 8 divides neither 12 nor 4, but inference replicates KV heads when tp is a multiple.
        make("tp 8 of 12 heads", infer, [](Scenario& s) { s.model.heads = 12; s.model.kv_heads = 4; layout(s, 1, 8); },
             "parallel.tp", "must divide num_attention_heads (12); got 8"),
        make("tp 16 of 8 kv heads (training)", train, [](Scenario& s) { layout(s, 1, 16); }, "parallel.tp", "must divide num_key_value_heads (8) for training; got 16"),
        make("tp 8 of 12 kv heads (inference)", infer, [](Scenario& s) { s.model.heads = 48; s.model.kv_heads = 12; layout(s, 1, 8); },
             "parallel.tp", "must divide num_key_value_heads (12) or be a multiple of it; got 8"),
        make("tp 8 of ffn 11004", train, [](Scenario& s) { s.model.ffn = 11004; layout(s, 1, 8); }, "parallel.tp", "must divide intermediate_size (11004); got 8"),
        make("tp 8 of expert ffn 11004", moe, [](Scenario& s) { s.model.moe.expert_ffn = 11004; layout(s, 1, 8); }, "parallel.tp", "must divide moe_intermediate_size (11004); got 8"),
        make("pp 33 of 32 layers (training)", train, [](Scenario& s) { layout(s, 1, 1, 33); }, "parallel.pp", "must be at most num_hidden_layers (32); got 33"),
        make("pp 33 of 32 layers (inference)", infer, [](Scenario& s) { layout(s, 1, 1, 33); }, "parallel.pp", "must be at most num_hidden_layers (32); got 33"),
        make("16 stages x 4 chunks of 32 layers", train, [](Scenario& s) {
                 layout(s, 1, 1, 16); s.parallel.schedule = PipelineSchedule::Interleaved; s.parallel.virtual_stages = 4; },
             "parallel.virtual_stages", "pp * virtual_stages must be at most num_hidden_layers (32)"),
        make("ep 2 of a dense model", train, [](Scenario& s) { layout(s, 2, 1); s.parallel.ep = 2; }, "parallel.ep", "needs a mixture-of-experts model"),
        make("ep 3 of 8 experts", moe, [](Scenario& s) { layout(s, 3, 1); s.parallel.ep = 3; }, "parallel.ep", "must divide num_experts (8); got 3"),
        // Training (validate_training).
        make("micro-batch 0", train, [](Scenario& s) { s.train.micro_batch = 0; }, "train.micro_batch", "must be in [1, 1e+06]; got 0"),
        make("seq 0", train, [](Scenario& s) { s.train.seq_len = 0; }, "train.seq_len", "must be in [1, 1e+08]; got 0"),
        make("accumulation 0", train, [](Scenario& s) { s.train.grad_accum_steps = 0; }, "train.grad_accum_steps", "got 0"),
        make("every-k 0", train, [](Scenario& s) { s.train.recompute_every_k = 0; }, "train.recompute_every_k", "got 0"),
        make("dropout 1", train, [](Scenario& s) { s.train.dropout = 1; }, "train.dropout", "must be in [0, 1); got 1"),
        make("attention dropout 1", train, [](Scenario& s) { s.train.attention_dropout = 1; }, "train.attention_dropout", "must be < 1"),
        make("custom optimizer -1 B", train, [](Scenario& s) { s.train.optimizer = Optimizer::Custom; s.train.custom_optimizer_bytes_per_param = -1; },
             "train.custom_optimizer_bytes_per_param", "got -1"),
        make("coefficient -1", train, [](Scenario& s) { s.train.activation_formula = ActivationFormula::Coefficient; s.train.activation_coefficient = -1; },
             "train.activation_coefficient", "got -1"),
        make("largest layer -1", params_only, [](Scenario& s) { s.train.params_only_largest_layer = -1; }, "train.params_only_largest_layer", "got -1"),
        make("seq beyond learned positions", base(Mode::Train, "gpt2"), [](Scenario& s) { s.train.seq_len = 2048; },
             "train.seq_len", "must be at most max_position_embeddings (1024) with learned positions; got 2048"),
        make("seq 2048 over cp 3", train, [](Scenario& s) { layout(s, 1, 1, 1, 3); }, "train.seq_len", "must be divisible by parallel.cp (3)"),
        make("DeepSpeed estimator at zero 0", train, [](Scenario& s) { s.train.compat = Compat::DeepSpeedEstimator; }, "train.compat", "covers ZeRO-2 and ZeRO-3"),
        make("Megatron of a count", params_only, [](Scenario& s) { s.train.compat = Compat::Megatron; }, "train.compat", "needs the architecture"),
        make("accelerate in pure bf16", train, [](Scenario& s) { s.train.compat = Compat::Accelerate; s.train.precision = Precision::PureBF16; },
             "train.compat", "no pure-bf16 regime"),
        make("compat with LoRA", lora, [](Scenario& s) { s.train.compat = Compat::Accelerate; }, "train.compat", "full training only"),
        make("LoRA of a count", lora, [](Scenario& s) { s.model = model_from_param_count(7'000'000'000); }, "finetune.method", "need the architecture"),
        make("rank 0", lora, [](Scenario& s) { s.finetune.lora_rank = 0; }, "finetune.lora_rank", "got 0"),
        make("no targets", lora, [](Scenario& s) { s.finetune.lora_targets = 0; }, "finetune.lora_targets", "must name at least one of q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj, in_proj, x_proj, dt_proj, out_proj"),
        make("LoRA dropout 1", lora, [](Scenario& s) { s.finetune.lora_dropout = 1; }, "finetune.lora_dropout", "must be in [0, 1); got 1"),
        make("NF4 block 0", qlora, [](Scenario& s) { s.finetune.quant_block = 0; }, "finetune.quant_block", "got 0"),
        make("absmax block 0", qlora, [](Scenario& s) { s.finetune.quant_block2 = 0; }, "finetune.quant_block2", "got 0"),
        // Inference (validate_inference).
        make("batch 0", infer, [](Scenario& s) { s.infer.batch = 0; }, "infer.batch", "must be in [1, 1000000]; got 0"),
        make("context 0", infer, [](Scenario& s) { s.infer.context = 0; }, "infer.context", "must be in [1, 100000000]; got 0"),
        make("prompt beyond context", infer, [](Scenario& s) { s.infer.prompt = 5000; }, "infer.prompt", "must be in [0, 4096]; got 5000"),
        make("prefill chunk -1", infer, [](Scenario& s) { s.infer.prefill_chunk = -1; }, "infer.prefill_chunk", "got -1"),
        make("block 0", vllm, [](Scenario& s) { s.infer.block_size = 0; }, "infer.block_size", "got 0"),
        make("max seqs -1", vllm, [](Scenario& s) { s.infer.max_num_seqs = -1; }, "infer.max_num_seqs", "got -1"),
        make("batched tokens -1", vllm, [](Scenario& s) { s.infer.max_batched_tokens = -1; }, "infer.max_batched_tokens", "got -1"),
        make("ubatch 0", llamacpp, [](Scenario& s) { s.infer.ubatch = 0; }, "infer.ubatch", "got 0"),
        make("GPTQ group 0", infer, [](Scenario& s) { s.infer.weights = WeightFormat::GPTQ4; s.infer.group_size = 0; }, "infer.group_size", "got 0"),
        make("utilization 0", vllm, [](Scenario& s) { s.infer.gpu_memory_utilization = 0; }, "infer.gpu_memory_utilization", "must be in (0, 1]"),
        make("engine overhead NaN", vllm, [](Scenario& s) { s.infer.engine_overhead_bytes = std::nan(""); }, "infer.engine_overhead_bytes", "must be a byte count"),
        make("llama.cpp with NF4", llamacpp, [](Scenario& s) { s.infer.weights = WeightFormat::NF4; }, "infer.weights", "llama.cpp loads GGUF files"),
        make("llama.cpp with tp 2", llamacpp, [](Scenario& s) { layout(s, 1, 2); }, "parallel.tp", "tensor parallel must be 1; got 2"),
        make("transformers with GGUF", infer, [](Scenario& s) { s.infer.weights = WeightFormat::GGUF_Q4_K_M; }, "infer.weights", "transformers dequantizes GGUF"),
        make("vLLM with int8 KV", vllm, [](Scenario& s) { s.infer.kv_dtype = KvDtype::INT8; }, "infer.kv_dtype", "vLLM caches KV in fp16/bf16/fp8"),
    };
    // The bases themselves are valid, so each case's error is the broken rule's.
    for (const Scenario* s : std::vector<const Scenario*>{&train, &infer, &moe, &mla_infer, &lora, &qlora, &params_only, &vllm, &llamacpp}) {
        INFO(listed(validate(*s)));
        REQUIRE(validate(*s).empty());
    }
    for (const Case& c : cases) check_one_error(c);
}
