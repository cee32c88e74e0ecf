// Image tokens of a vision-language model (issue 18 item 3): how many positions one image takes in the
// language model's sequence, and how many patches its vision tower runs over, by each family's rule.
#pragma once
#include <cstdint>

#include "model_spec.h"

namespace vl {

// Qwen2.5-VL's preprocessor_config.json: min_pixels 56 x 56, max_pixels 16384 x 28 x 28 [qwen25-vl].
inline constexpr int64_t kQwenMinPixels = 3136;
inline constexpr int64_t kQwenMaxPixels = 12845056;

struct ImageGrid {
    int64_t width = 0, height = 0;  // the image as the processor resizes it (pixels)
    int64_t patches = 0;            // positions the vision tower attends over (CLIP: with its class token)
    int64_t tokens = 0;             // positions in the language model's sequence
};

// One image of width x height pixels (both > 0). Fixed-resolution towers resize every image to image_size:
// CLIP (LLaVA-1.5, vision_feature_select_strategy "default": the class token dropped) (S/p)^2 tokens, 576 at
// 336 px / 14 [llava15-hf]; SigLIP with Gemma 3's projector: the (S/p)^2 patches pooled to tokens_per_image,
// 256 [gemma3-report]. Qwen2.5-VL (dynamic resolution): each side rounded to a multiple of patch x merge (28 px),
// scaled down into max_pixels or up into min_pixels keeping the aspect ratio (Qwen2VLImageProcessor smart_resize
// [transformers-code]); (h/14)(w/14) patches, merge^2 = 4 of them per token [qwen25-vl].
ImageGrid image_grid(const VisionSpec& v, int64_t width, int64_t height, int64_t min_pixels = kQwenMinPixels,
                     int64_t max_pixels = kQwenMaxPixels);

}  // namespace vl
