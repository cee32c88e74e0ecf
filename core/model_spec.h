// ModelSpec: a decoder-only transformer as it really is, enough to know every tensor.
// Plain data; no behaviour. Parameter counts live in param_count.h, import in hf_config.h.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "weight_format.h"

namespace vl {

enum class NormKind { RMSNorm, LayerNorm };          // RMSNorm: weight only; LayerNorm: weight + bias
enum class PositionKind { Rotary, Learned, Alibi, None };
enum class AttentionKind { Standard, MLA };          // MLA = DeepSeek-V2/V3 multi-head latent attention
// The MLP's activation as autograd sees it: one fused op that saves its input (SiLU, GELU, ReLU, ...),
// or transformers' gelu_new (NewGELUActivation: GPT-2, GPT-J, Phi-1/2, CodeGen), written as
// elementwise ops that save 0.5*x, tanh(...) and 1 + tanh(...) beside x [transformers-code].
enum class MlpActivation { Fused, GeluNew };

// Mixture-of-Experts (Mixtral, Qwen-MoE, DeepSeek). num_experts == 0 means dense.
struct MoESpec {
    int num_experts = 0;            // routed experts per MoE layer
    int top_k = 0;                  // experts each token is routed to
    int64_t expert_ffn = 0;         // intermediate size of one routed expert
    int shared_experts = 0;         // always-on experts (DeepSeek n_shared_experts)
    int64_t shared_expert_ffn = 0;  // intermediate size of the shared expert block (Qwen2-MoE); 0 = shared_experts * expert_ffn
    bool shared_expert_gate = false;// Qwen2-MoE: a hidden->1 sigmoid gate on the shared expert
    int first_dense_layers = 0;     // leading dense layers (DeepSeek first_k_dense_replace)
    int moe_layer_freq = 1;         // every n-th layer (after the dense ones) is MoE
    bool router_bias = false;       // e_score_correction_bias (DeepSeek-V3) or router bias
    bool operator==(const MoESpec&) const = default;
};

// Multi-head Latent Attention (DeepSeek-V2/V3). Used when attention == MLA.
struct MLASpec {
    int64_t q_lora_rank = 0;        // 0: queries are not compressed (V2-Lite)
    int64_t kv_lora_rank = 0;
    int64_t qk_rope_head_dim = 0;
    int64_t qk_nope_head_dim = 0;
    int64_t v_head_dim = 0;
    // Not a property of the checkpoint: what the engine caches, copied from infer.mla_cache by
    // estimate_inference (the scenario format has no model.mla field for it).
    bool decompressed_cache = false;
    bool operator==(const MLASpec&) const = default;
};

// The state-space mixer of a pure or hybrid state-space model (issue 18): the Mamba block that replaces
// attention on the layers that have no attention. kind None: every layer is attention (a transformer).
// Mamba1: MambaMixer [gu2023-mamba] (transformers modeling_mamba, Jamba's JambaMambaMixer); Mamba2:
// Mamba2Mixer, the SSD block [dao2024-mamba2] (modeling_mamba2) [transformers-code]. GatedDeltaNet: the
// linear-attention mixer of Qwen3-Next and Qwen3.5 (Qwen3NextGatedDeltaNet) [yang2024-gated-deltanet]
// [transformers-code]; its sizes fill the same fields: heads = linear_num_value_heads, groups =
// linear_num_key_heads, state = linear_key_head_dim, inner = linear_num_value_heads * linear_value_head_dim,
// so the conv channels (2 * key_dim + value_dim = inner + 2 * groups * state) and the recurrent state
// (value heads x key_dim x value_dim = inner * state) are Mamba2's expressions.
enum class SsmKind { None, Mamba1, Mamba2, GatedDeltaNet };
// SsmSpec::layer_list's characters: what one layer holds. A Jamba / Granite-4.0-H layer is a mixer then
// an MLP; a Nemotron-H block is one of them alone (NemotronHBlock: one norm and one mixer) [transformers-code].
// A Zamba / Zamba2 hybrid layer ('h', ZambaHybridLayer / Zamba2HybridLayer) is a Mamba layer that first runs one of the
// model's shared transformer blocks (SsmSpec::shared_blocks) and its own `linear` [zamba2-report] [transformers-code].
inline constexpr char kLayerMambaMlp = 'M', kLayerAttentionMlp = 'A', kLayerMamba = 'm', kLayerAttention = 'a', kLayerMlp = '-',
                      kLayerMambaShared = 'h';
inline constexpr int64_t kMaxListedLayers = 256;  // LayerPattern keeps a listed pattern in a fixed array
struct SsmSpec {
    SsmKind kind = SsmKind::None;
    // Which layers keep attention: 0, none (Mamba); n, layer i when i % n == attn_offset (Jamba
    // attn_layer_period / attn_layer_offset). Every other layer is a Mamba layer.
    int64_t attn_period = 0;
    int64_t attn_offset = 0;
    int64_t inner = 0;        // d_inner: Mamba intermediate_size, Jamba mamba_expand * hidden_size, Mamba2 num_heads * head_dim
    int64_t state = 0;        // d_state (state_size, mamba_d_state)
    int64_t conv_kernel = 0;  // d_conv (conv_kernel, mamba_d_conv)
    int64_t dt_rank = 0;      // Mamba1: time_step_rank (mamba_dt_rank)
    int64_t heads = 0;        // Mamba2: num_heads (head_dim = inner / heads)
    int64_t groups = 0;       // Mamba2: n_groups (B and C shared by the heads of a group)
    int64_t chunk = 0;        // Mamba2: the SSD's chunk_size (chunk_size, mamba_chunk_size); 0 elsewhere
    bool conv_bias = true;    // use_conv_bias (mamba_conv_bias)
    bool proj_bias = false;   // use_bias (mamba_proj_bias): in_proj's bias
    bool out_proj_bias = false;  // out_proj's bias: use_bias / mamba_proj_bias again, Falcon-H1's projectors_bias
    bool gated_norm = true;   // Mamba2: the gated RMSNorm before out_proj (Falcon-H1: only with mamba_rms_norm)
    // Falcon-H1: every layer runs attention beside the mixer on the same normed input and adds the two
    // outputs (FalconH1DecoderLayer [transformers-code] [falcon-h1]); then the MLP. Every layer is then a
    // Mamba layer and an attention layer at once (KV and the state on every layer).
    bool parallel_attention = false;
    bool bcdt_norms = false;  // Jamba: RMSNorms on dt (dt_rank), B and C (d_state) inside the mixer
    bool fp32_state = false;  // the config asks for an fp32 recurrent state (Qwen3.5 mamba_ssm_dtype "float32")
    // The layers one by one, when the config lists them (Nemotron-H hybrid_override_pattern): one character
    // per layer (kLayerMambaMlp ...), overriding attn_period/attn_offset; empty: the periodic rule above.
    // Whether an MLP is routed experts still follows MoESpec (first_dense_layers, moe_layer_freq).
    std::string layer_list;
    // Zamba / Zamba2 (num_mem_blocks): the shared transformer blocks the 'h' layers of layer_list take in turn (invocation i
    // runs block i % shared_blocks); 0: none. A block is attention over concat(hidden, the embeddings) (2 * hidden wide:
    // q, k, v [heads * head_dim, 2d], o [d, heads * head_dim], the input RMSNorm over 2d) and a gated MLP (gate_up [2 ffn, d],
    // down [d, ffn], pre_ff_layernorm [d]); its weights exist once, however many layers run it. Each invocation has its
    // own `linear` [d, d] after the block and, with adapter_rank > 0, its own low-rank adapters: on the MLP's gate_up
    // ([r, d] then [2 ffn, r]; Zamba2MLP builds them unconditionally) and, with attn_adapters
    // (use_shared_attention_adapter), on q, k and v ([r, 2d] then [2d, r] each) [transformers-code] [zamba2-report].
    int64_t shared_blocks = 0;
    int64_t adapter_rank = 0;
    bool attn_adapters = false;
    bool active() const { return kind != SsmKind::None; }
    bool operator==(const SsmSpec&) const = default;
};

// The image side of a vision-language model (issue 18 item 3): the vision tower that turns an image into
// patch features and the projector that maps them into the language model's embedding space. kind None: a
// text-only model. The tower's modules follow transformers' modeling files [transformers-code]:
// Clip: CLIPVisionModel (class token, learned positions, pre- and post-LayerNorm; LLaVA-1.5's tower);
// Siglip: SiglipVisionTransformer without its head (Gemma 3's tower); QwenVit: Qwen2_5_VisionTransformer
// (Conv3d patch embedding over temporal_patch frames, RMSNorms, fused qkv, a gated MLP, 2-D rotary
// positions without weights); Qwen2Vit: Qwen2-VL's Qwen2VisionTransformerPretrainedModel (the same patch
// embedding, fused qkv and rotary positions, but LayerNorms with biases and an fc1 / QuickGELU / fc2 MLP of
// embed_dim x mlp_ratio; its merger's ln_q is a LayerNorm too). The projector: LlavaMlp (LlavaMultiModalProjector: linear, GELU, linear),
// QwenMerger (Qwen2_5_VLPatchMerger: RMSNorm, then an MLP over merge x merge neighbouring patches),
// Gemma3 (Gemma3MultiModalProjector: average pooling to tokens_per_image, RMSNorm, one matrix).
// Mllama: Llama 3.2 Vision's MllamaVisionModel [transformers-mllama]: an image is up to max_tiles tiles of image_size px,
// each tile's patches plus a class token (padded to a multiple of 8 inside the tower); a local encoder of `layers` layers
// and a gated global encoder of `global_layers` layers; the last state and `intermediate_layers` of the local encoder's
// states concatenated; MllamaProjector: one Linear + bias into the language model. The language model does not take
// image tokens in its sequence: its `cross_layers` (text_config.cross_attention_layers) attend to the image's states.
enum class VisionKind { None, Clip, Siglip, QwenVit, Qwen2Vit, Qwen3Vit, Mllama };
enum class ProjectorKind { LlavaMlp, QwenMerger, Gemma3, MllamaLinear };
// One resolution of LLaVA-NeXT's image_grid_pinpoints, (height, width) in pixels, as LlavaNextConfig lists them.
struct GridPinpoint {
    int64_t height = 0, width = 0;
    bool operator==(const GridPinpoint&) const = default;
};
struct VisionSpec {
    VisionKind kind = VisionKind::None;
    int64_t layers = 0;          // num_hidden_layers (Qwen: depth)
    int64_t hidden = 0;          // hidden_size of the tower (Qwen: hidden_size of vision_config, not out_hidden_size)
    int64_t heads = 0;           // num_attention_heads (Qwen: num_heads)
    int64_t ffn = 0;             // intermediate_size
    int64_t patch = 0;           // patch_size: an image is cut into patch x patch pixel squares
    int64_t image_size = 0;      // fixed-resolution towers: the side images are resized to (the position table's
                                 // (image_size / patch)^2 rows); 0: dynamic resolution (QwenVit)
    int64_t channels = 3;        // num_channels (Qwen: in_chans)
    int64_t temporal_patch = 1;  // Qwen: temporal_patch_size (an image is repeated to this many frames)
    int64_t merge = 1;           // Qwen: spatial_merge_size (merge x merge patches become one token)
    ProjectorKind projector = ProjectorKind::LlavaMlp;
    int64_t tokens_per_image = 0;  // Gemma 3: mm_tokens_per_image (the projector's pooled grid); 0: by the tower's rule
    int64_t position_embeddings = 0;  // Qwen3.5's tower: num_position_embeddings, the learned table interpolated to each image
    // Mllama only (0 / empty otherwise):
    int64_t global_layers = 0;        // num_global_layers: the gated global encoder after the local one
    int64_t max_tiles = 0;            // max_num_tiles: tiles per image (the processor pads every image to this many)
    int64_t aspect_ratios = 0;        // len(supported_aspect_ratios) = max_aspect_ratio_id (tile embeddings have one more row)
    int64_t intermediate_layers = 0;  // len(intermediate_layers_indices): local states concatenated beside the last one
    std::vector<int64_t> cross_layers;  // text_config.cross_attention_layers: the language model's cross-attention layers
    // LLaVA-NeXT ("anyres", model_type llava_next) only; empty otherwise: image_grid_pinpoints, the resolutions an image is
    // resized and padded to before it is cut into image_size tiles (image_tokens.h); the projector then has image_newline [d].
    std::vector<GridPinpoint> grid_pinpoints;
    bool active() const { return kind != VisionKind::None; }
    bool anyres() const { return !grid_pinpoints.empty(); }
    // Qwen2-VL, Qwen2.5-VL or Qwen3.5: dynamic resolution, merge x merge patches per token.
    bool qwen() const { return kind == VisionKind::QwenVit || kind == VisionKind::Qwen2Vit || kind == VisionKind::Qwen3Vit; }
    bool mllama() const { return kind == VisionKind::Mllama; }
    bool operator==(const VisionSpec&) const = default;
};

// An encoder-decoder (T5, mT5, BART; issue 14 item 12, issue 18): ModelSpec::layers counts both stacks, the
// encoder's layers first (bidirectional self-attention + MLP, norms_per_layer norms), then decoder_layers decoder
// layers (causal self-attention, cross-attention whose q comes from the decoder and k, v from the encoder's output,
// MLP, one norm more: LayerKind::cross). The token embedding is shared by both stacks (T5 / BART `shared`); learned
// positions, the embedding norm and the final norm exist once per stack (BartEncoder / BartDecoder embed_positions
// and layernorm_embedding, T5Stack final_layer_norm) [transformers-t5] [transformers-bart].
struct Seq2SeqSpec {
    int64_t decoder_layers = 0;     // num_decoder_layers (T5) / decoder_layers (BART); 0: not an encoder-decoder
    // T5 relative_attention_num_buckets: the relative_attention_bias table [buckets, heads] that the first layer's
    // self-attention of each stack holds (has_relative_attention_bias, block 0 only); 0: none (BART).
    int64_t relative_buckets = 0;
    bool active() const { return decoder_layers > 0; }
    bool operator==(const Seq2SeqSpec&) const = default;
};

// The rotary embedding beyond its head dimension: config.json's rope_scaling (transformers v5: rope_parameters) and
// partial_rotary_factor / rotary_pct. It changes no parameter count and nothing transformers allocates (its rotary
// module keeps inv_freq only); it sizes the cos/sin tables that vLLM precomputes at load (inference.cpp
// vllm_rope_table_rows). Scaling kinds by the rows of that table [vllm-code]: None (no rope_scaling, or default,
// llama3, mrope: max_position rows); Linear and Dynamic (max_position x factor); Yarn (original_max_position x factor);
// LongRope (a short table of original_max_position rows and a long one of max_position rows).
enum class RopeScaling { None, Linear, Dynamic, Yarn, LongRope };
struct RopeSpec {
    RopeScaling scaling = RopeScaling::None;  // rope_scaling.rope_type (older configs: "type")
    double factor = 1;                        // rope_scaling.factor
    int64_t original_max_position = 0;        // rope_scaling.original_max_position_embeddings (Yarn, LongRope)
    double partial = 1;                       // partial_rotary_factor / rotary_pct: the share of head_dim rotated
    // The window layers rotate with a base of their own (Gemma 3 rope_local_base_freq, unscaled): a second table
    // of max_position rows (vLLM get_rope keeps one module per distinct configuration).
    bool local_table = false;
    bool operator==(const RopeSpec&) const = default;
};

// Where an imported model came from, so that a share link names it (issue 17): a Hugging Face repo
// id "org/name" and the revision (commit) that was read. Both empty for a preset or a typed model.
// Not part of the architecture: the spec itself is always written out, so a link opened offline works.
struct ModelOrigin {
    std::string hub;       // "org/name"
    std::string revision;  // the commit sha the Hub answered with (X-Repo-Commit), or the revision asked for
    bool operator==(const ModelOrigin&) const = default;
};

// The tensor bytes of an imported GGUF file (issue 17), from its tensor table: what llama.cpp loads
// for each block (blk.<i>.*), for token_embd.weight, for output.weight (0: none, a tied model whose
// output llama.cpp loads as a copy of token_embd) and for every other tensor outside the blocks
// (output_norm, rope factors, ...), and of each block's routed experts (blk.<i>.ffn_{gate,up,down}_exps,
// what llama.cpp's --n-cpu-moe keeps on the CPU). Empty (no layers) for a model not read from a GGUF file. Not
// part of the architecture: it describes one file of this model, so any edit of the model drops it. The bytes
// are that file's only: they size the weights while the chosen format is the file's `type` (another format is
// another file, sized by its rules; choosing the file's type again brings its bytes back).
struct GgufTensorBytes {
    std::vector<uint64_t> layers;  // index i: the bytes of blk.i.*
    uint64_t token_embd = 0;
    uint64_t output = 0;
    uint64_t other = 0;
    std::vector<uint64_t> experts;  // index i: the part of layers[i] in routed experts; empty for a dense model
    WeightFormat type = WeightFormat::GGUF_Q4_K_M;  // the format the file was read as (its general.file_type)
    bool empty() const { return layers.empty(); }
    bool operator==(const GgufTensorBytes&) const = default;
};

struct ModelSpec {
    // Defaults: Llama-3.1-8B (meta-llama/Llama-3.1-8B config.json), so a default Scenario is a
    // valid, common model. Set every field (or use a preset / import_hf_config) for another model.
    std::string name = "Llama-3.1-8B";  // display name
    std::string family = "Llama 3.1";
    std::string model_type = "llama";   // Hugging Face model_type

    int64_t vocab = 128256;         // vocab_size
    int64_t hidden = 4096;          // hidden_size (d)
    int64_t layers = 32;            // num_hidden_layers (L)
    int64_t heads = 32;             // num_attention_heads (a)
    int64_t kv_heads = 8;           // num_key_value_heads (== heads: MHA, 1: MQA)
    int64_t head_dim = 128;         // explicit; not always hidden / heads (Gemma, Qwen3); MLA: qk_nope + qk_rope
    int64_t ffn = 14336;            // intermediate_size of a dense MLP
    bool gated_mlp = true;          // SwiGLU/GeGLU: 3 matrices; plain: 2
    MlpActivation activation = MlpActivation::Fused;  // hidden_act / activation_function
    bool fused_qkv = false;         // q, k and v computed by one Linear (GPT-2 c_attn, GPT-NeoX/Falcon/BLOOM query_key_value, Phi-3 qkv_proj)
    bool qkv_bias = false;
    bool attn_out_bias = false;
    bool mlp_bias = false;
    NormKind norm = NormKind::RMSNorm;
    int norms_per_layer = 2;        // 1 (parallel attn+mlp sharing one), 2 (pre-norm), 4 (Gemma2/3 sandwich)
    bool qk_norm = false;           // per-head RMSNorm on q and k (Qwen3, Gemma3)
    bool attn_output_gate = false;  // Qwen3-Next / Qwen3.5 gated attention: q_proj also yields a sigmoid gate (2x rows)
    bool attention_sinks = false;   // gpt-oss: one learned sink logit per head and layer (self_attn.sinks [heads])
    bool final_norm = true;
    bool tied_embeddings = false;
    PositionKind position = PositionKind::Rotary;
    int64_t max_position = 131072;  // max_position_embeddings (learned positions need it)
    RopeSpec rope;                  // rotary scaling and share (PositionKind::Rotary only)
    int64_t position_offset = 0;    // extra rows in a learned position table (OPT: 2)
    int64_t embed_dim = 0;          // token-embedding width when it differs from hidden (OPT-350m word_embed_proj_dim,
                                    // adds project_in/project_out); 0 = hidden
    bool lm_head_bias = false;      // lm_head has a bias (Phi-1/2)
    bool embedding_norm = false;    // LayerNorm right after the embedding (BLOOM)
    bool parallel_attn_mlp = false; // GPT-J/NeoX/Falcon: attention and MLP read the same input
    // A bidirectional encoder (BERT, RoBERTa, XLM-RoBERTa): the base model AutoModel loads for embeddings,
    // rerankers and fine-tuning, so no causal LM head and no KV cache; token-type embeddings and a pooler.
    bool encoder = false;
    int64_t type_vocab = 0;         // type_vocab_size: token_type_embeddings rows (BERT 2, RoBERTa 1); 0: none
    bool pooler = false;            // BertPooler: dense [h, h] + bias over the first token
    // The task head an encoder is trained with (issue 14 item 12) [transformers-code]: num_labels > 0 is
    // BertForSequenceClassification (pooled output -> dropout -> classifier [num_labels, h] + bias); mlm_head
    // is BertForMaskedLM (no pooler: add_pooling_layer=False; transform dense [h, h] + bias, GELU, LayerNorm,
    // then the decoder tied to the word embeddings with its own bias [vocab]: logits over the vocabulary).
    // Neither: the base model (AutoModel), its pooled output the head.
    int64_t num_labels = 0;
    bool mlm_head = false;
    // A decoder checkpoint without its LM head, served for its hidden states (issue 18 item 5): the base model
    // (Qwen3Model, Qwen2Model) that Qwen3-Embedding and gte-Qwen2 ship, pooled over the last token by
    // sentence-transformers, vLLM's pooling runner and TEI. No lm_head, no logits and no decode; its attention
    // stays causal (vLLM keeps a KV pool for it, unlike an encoder's).
    bool embedder = false;
    int64_t sliding_window = 0;     // 0: none
    int sliding_window_pattern = 0; // 0: every layer uses the window; n: every n-th layer is global (Gemma2: 2, Gemma3: 6)
    AttentionKind attention = AttentionKind::Standard;
    MLASpec mla;
    MoESpec moe;
    SsmSpec ssm;                    // state-space layers (Mamba, Jamba); kind None for a transformer
    // Multi-token-prediction layers the checkpoint also holds (Qwen3-Next / Qwen3.5 mtp_num_hidden_layers):
    // not part of the model's counts (engines load them only for speculative decoding); ParamCounts::mtp.
    int64_t mtp_layers = 0;
    // The vision tower and projector of a vision-language model: counted apart (ParamCounts::vision), not in the
    // language model's total; kind None for a text-only model.
    VisionSpec vision;

    Seq2SeqSpec seq2seq;            // the decoder stack of an encoder-decoder (T5, BART); decoder_layers 0 otherwise

    // A model known only by its parameter count (HF's calculator style): architecture
    // fields above are 0 and features that need them (activations, KV cache) are disabled.
    int64_t params_only = 0;
    ModelOrigin source;
    GgufTensorBytes gguf_bytes;     // an imported GGUF file's tensor bytes; empty otherwise
    bool architecture_known() const { return params_only == 0; }
    bool has_mlp() const { return ffn > 0 || moe.num_experts > 0; }  // a dense or MoE MLP (a pure Mamba model has none)
    bool operator==(const ModelSpec&) const = default;
};

}  // namespace vl
