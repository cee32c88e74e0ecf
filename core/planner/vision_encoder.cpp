#include "planner/vision_encoder.h"

#include <algorithm>
#include <cmath>

#include "model/gguf.h"

namespace vl {

namespace {

// An integer key of the projector GGUF, 0 when absent.
int64_t clip_key(const GgufHeader& h, const char* key) {
    const GgufKv* kv = h.find(key);
    return kv && kv->unsigned_value ? static_cast<int64_t>(*kv->unsigned_value) : 0;
}

}  // namespace

VisionEncoderRead vision_encoder_from_gguf(const GgufHeader& h) {
    VisionEncoderRead r;
    VisionEncoder& e = r.encoder;
    // Key names from tools/mtmd/clip-impl.h [llama-cpp-code]; the projector type moved under clip.vision.
    // when audio encoders arrived, older files have clip.projector_type.
    for (const char* key : {"clip.vision.projector_type", "clip.projector_type"})
        if (const GgufKv* kv = h.find(key); kv && e.projector.empty()) e.projector = kv->text;
    e.n_embd = clip_key(h, "clip.vision.embedding_length");
    e.n_ff = clip_key(h, "clip.vision.feed_forward_length");
    e.n_head = clip_key(h, "clip.vision.attention.head_count");
    e.n_layer = clip_key(h, "clip.vision.block_count");
    e.image_size = clip_key(h, "clip.vision.image_size");
    e.patch_size = clip_key(h, "clip.vision.patch_size");
    e.n_merge = std::max<int64_t>(1, clip_key(h, "clip.vision.spatial_merge_size"));
    for (const auto& [key, value] : {std::pair{"clip.vision.embedding_length", e.n_embd}, {"clip.vision.feed_forward_length", e.n_ff},
                                     {"clip.vision.attention.head_count", e.n_head}, {"clip.vision.image_size", e.image_size},
                                     {"clip.vision.patch_size", e.patch_size}})
        if (value <= 0) {
            r.error = std::string("the projector GGUF has no ") + key +
                      " (a vision projector's mmproj-*.gguf has it; an audio projector or a text model's GGUF does not)";
            break;
        }
    return r;
}

bool dynamic_resolution(const VisionEncoder& e) {
    return e.projector == "qwen2vl_merger" || e.projector == "qwen2.5vl_merger" || e.projector == "qwen3vl_merger";
}

int64_t warmup_image_side(const VisionEncoder& e) {
    // clip.cpp load_hparams: the Qwen-VL mergers warm up with 46 x 46 image tokens (a 1472 px side at
    // patch 16, merge 2: "warmup with image size = 1472 x 1472" in published logs) [llama-cpp-code] [lcpp-clip-logs]
    if (dynamic_resolution(e)) return 46 * e.n_merge * e.patch_size;
    return e.image_size;
}

int64_t planned_image_side(const VisionEncoder& e, int64_t max_tokens) {
    const int64_t warmup = warmup_image_side(e);
    if (!dynamic_resolution(e) || max_tokens <= 0) return warmup;
    // --image-max-tokens N caps an image at N image tokens = N x n_merge^2 patches [llama-cpp-server-flags]
    const auto tokens_per_side = static_cast<int64_t>(std::floor(std::sqrt(static_cast<double>(max_tokens))));
    return std::max(warmup, tokens_per_side * e.n_merge * e.patch_size);
}

ClipComputeBytes clip_compute_bytes(const VisionEncoder& e, int64_t side, bool flash_attention) {
    ClipComputeBytes c;
    if (!e.known() || side <= 0) return c;
    const double per_side = static_cast<double>(side / e.patch_size);
    c.patches = static_cast<int64_t>(per_side * per_side);
    const double n = static_cast<double>(c.patches), f32 = 4.0;
    // F32 activations at the MLP: the n_ff intermediate beside three hidden-width tensors [llama-cpp-code]; checked
    // against published load logs (223.30 MiB for a 1024-wide, 4096-FFN tower at 1472 px with flash attention) [lcpp-clip-logs]
    c.device = n * f32 * static_cast<double>(e.n_ff + 3 * e.n_embd);
    // Without flash attention one layer's scores, n_head x n x n F32, and the attention output beside them [lcpp-clip-logs]
    if (!flash_attention) c.device += static_cast<double>(e.n_head) * n * n * f32 + n * f32 * static_cast<double>(e.n_embd);
    // The inputs on the host: the image, 3 x side^2 F32, and up to 4 int32 positions per patch (M-RoPE) [lcpp-clip-logs]
    const double s = static_cast<double>(side);
    c.host = 3.0 * s * s * f32 + 4.0 * n * 4.0;
    return c;
}

}  // namespace vl
