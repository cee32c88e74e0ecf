// A vision model's image encoder as llama.cpp runs it (tools/mtmd, the --mmproj file): its shape from the
// projector GGUF's clip.vision.* keys, the image it is reserved for, and its compute buffers. Pure.
//
// clip.cpp reserves the encoder's graph once at load ("warmup", alloc_compute_meta) for a square image
// of warmup_image_size pixels per side, and reserves again, larger, when a bigger image arrives: the
// buffer follows the largest image encoded so far, capped by --image-max-tokens. Activations are F32;
// with flash attention the scores are never stored, without it each layer's scores are one
// n_head x n_patches x n_patches F32 tensor (tools/mtmd/clip.cpp build_attn, read at 3679b65)
// [llama-cpp-code].
#pragma once
#include <cstdint>
#include <string>

namespace vl {

struct GgufHeader;

struct VisionEncoder {
    std::string projector;    // clip.projector_type / clip.vision.projector_type, e.g. "qwen3vl_merger", "gemma3", "mlp"
    int64_t n_embd = 0;       // clip.vision.embedding_length
    int64_t n_ff = 0;         // clip.vision.feed_forward_length
    int64_t n_head = 0;       // clip.vision.attention.head_count
    int64_t n_layer = 0;      // clip.vision.block_count
    int64_t image_size = 0;   // clip.vision.image_size: the side a fixed-resolution encoder resizes every image to
    int64_t patch_size = 0;   // clip.vision.patch_size
    int64_t n_merge = 1;      // clip.vision.spatial_merge_size (Qwen-VL: 2 x 2 patches per image token); 1: none
    bool known() const { return n_embd > 0 && n_ff > 0 && n_head > 0 && patch_size > 0 && image_size > 0; }
    bool operator==(const VisionEncoder&) const = default;
};

// The encoder's shape from a projector GGUF's header; `error` names the missing key (a file without
// clip.vision.* keys is not a vision projector: e.g. an audio-only or a text model's GGUF).
struct VisionEncoderRead {
    VisionEncoder encoder;
    std::string error;
};
VisionEncoderRead vision_encoder_from_gguf(const GgufHeader& header);

// Whether the encoder takes images at their own size (Qwen2-VL, Qwen2.5-VL, Qwen3-VL mergers): then
// llama.cpp's reservation and --image-max-tokens decide the buffer, not clip.vision.image_size.
bool dynamic_resolution(const VisionEncoder& e);

// The side, in pixels, of the square image clip.cpp reserves at load: 46 x 46 image tokens for the
// Qwen-VL mergers (set_warmup_n_tokens(46*46): 46 * n_merge * patch_size), image_size for the others.
int64_t warmup_image_side(const VisionEncoder& e);

// The side of the largest square image planned: the warm-up image, or the one of `max_tokens` image
// tokens (--image-max-tokens; dynamic-resolution encoders) when that is larger. 0 tokens: the warm-up.
int64_t planned_image_side(const VisionEncoder& e, int64_t max_tokens);

struct ClipComputeBytes {
    int64_t patches = 0;   // (side / patch_size)^2
    double device = 0;     // the encoder's backend: activations (and the scores without flash attention)
    double host = 0;       // the CPU buffer beside an offloaded encoder: the F32 image and the position inputs
};
// The compute buffers for a square image of `side` pixels: n_patches x 4 B x (n_ff + 3 n_embd) at the
// MLP (its intermediate beside the residual, the attention output and the normed input), plus without
// flash attention n_head x n_patches^2 x 4 B of scores and one more hidden-width tensor; the host
// buffer holds the image (3 x side^2 F32) and up to 4 int32 positions per patch (M-RoPE).
ClipComputeBytes clip_compute_bytes(const VisionEncoder& e, int64_t side, bool flash_attention);

}  // namespace vl
