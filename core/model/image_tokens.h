// Image tokens of a vision-language model (issue 18 item 3): how many positions one image takes in the
// language model's sequence, and how many patches its vision tower runs over, by each family's rule.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "diagnostics.h"
#include "scenario.h"

namespace vl {

// Qwen2.5-VL's preprocessor_config.json: min_pixels 56 x 56, max_pixels 16384 x 28 x 28 [qwen25-vl].
inline constexpr int64_t kQwenMinPixels = 3136;
inline constexpr int64_t kQwenMaxPixels = 12845056;

struct ImageGrid {
    int64_t width = 0, height = 0;  // the image as the processor resizes it (pixels)
    int64_t patches = 0;            // positions the vision tower attends over (CLIP: with its class token)
    int64_t tokens = 0;             // positions in the language model's sequence
    int64_t cross_tokens = 0;       // Mllama: the image states each cross-attention layer keeps K and V of; 0 for the others
    int64_t crops = 1;              // images of image_size the tower runs apart, patches / crops positions each (LLaVA-NeXT: 1 + tiles)
};

// One image of width x height pixels (both > 0). Fixed-resolution towers resize every image to image_size:
// CLIP (LLaVA-1.5, vision_feature_select_strategy "default": the class token dropped) (S/p)^2 tokens, 576 at
// 336 px / 14 [llava15-hf]; SigLIP with Gemma 3's projector: the (S/p)^2 patches pooled to tokens_per_image,
// 256 [gemma3-report]. Qwen2.5-VL (dynamic resolution): each side rounded to a multiple of patch x merge (28 px),
// scaled down into max_pixels or up into min_pixels keeping the aspect ratio (Qwen2VLImageProcessor smart_resize
// [transformers-code]); (h/14)(w/14) patches, merge^2 = 4 of them per token [qwen25-vl]. Mllama: the processor pads every
// image to max_num_tiles tiles of image_size (whatever its size); each tile's (S/p)^2 patches + 1 class token, padded to a
// multiple of 8 inside the tower, which attends over all tiles at once; one <|image|> token in the text, and
// max_num_tiles x ((S/p)^2 + 1) states (6404 at 560 px / 14, 4 tiles) for the cross-attention layers [transformers-mllama].
// LLaVA-NeXT (anyres): the pinpoint that keeps the most of the image (select_best_resolution: the largest effective
// resolution min(int(w x s) x int(h x s), w x h), s = min(W/w, H/h), ties to the least wasted W x H - effective), cut into
// (H/S) x (W/S) tiles; the tower runs the image resized to S plus each tile, (S/p)^2 tokens each; the tiles' (S/p)(H/S) x
// (S/p)(W/S) feature grid is unpadded to the image's aspect ratio (the longer side kept, the other floor(side x ratio),
// the padding's rows or columns dropped in even pairs), then each remaining row ends in one image_newline token:
// tokens = (S/p)^2 + rows x cols + rows; 672 x 672 at 336 px / 14 -> 576 + 48 x 48 + 48 = 2928 (LlavaNextProcessor
// _get_number_of_features, unpad_image [transformers-code]; get_llava_next_image_feature_size [vllm-code]) [llava-next].
ImageGrid image_grid(const VisionSpec& v, int64_t width, int64_t height, int64_t min_pixels = kQwenMinPixels,
                     int64_t max_pixels = kQwenMaxPixels);

// The vision tower as a model of its own sizes, so that the language model's layer formulas serve its layers (inference's
// live tensors and scores, runtime.h; training's saved activations, activations.cpp): a ViT layer is a pre-norm attention +
// MLP block like a decoder layer's (CLIPEncoderLayer, SiglipEncoderLayer, Qwen2VLVisionBlock, Qwen2_5_VLVisionBlock,
// MllamaVisionEncoderLayer) [transformers-code]: multi-head attention (heads = kv heads), LayerNorm and fc1 / fc2, but
// Qwen2.5-VL's RMSNorm and gated MLP (gate, up, down); Qwen's one fused qkv Linear and its 2-D rotary positions (q and k
// rotated into new tensors, v a view of the fused output), learned positions otherwise.
ModelSpec tower_view(const VisionSpec& v);

// The image tokens of one sequence: infer.images images of image_width x image_height, by the model's rule; 0 for a
// text-only model. The inference estimate adds them to each sequence's context (and prompt).
int64_t sequence_image_tokens(const ModelSpec& m, const InferenceOptions& o);

// The estimate's note of how many tokens the images add ("images: 2 image(s) of 1196 tokens each ...").
std::string image_tokens_note(const ModelSpec& m, const InferenceOptions& o);

// infer.images, image_width, image_height: ranges, a model with a vision tower, an engine that runs it (not llama.cpp,
// whose projector is planned in Run locally), Qwen's aspect-ratio limit. Called by validate_inference.
void validate_images(const ModelSpec& m, const InferenceOptions& o, std::vector<FieldError>& errs);

// The image tokens of one training sample: train.images images of image_width x image_height by the model's rule (0 for a
// text-only model, and for Llama 3.2 Vision, whose images are no positions of its sequence: its one <|image|> token per image is
// one of train.seq_len's, its cross-attention layers attend to the images' states, add_mllama_cross_attention). The training
// estimate adds them to each sample's train.seq_len text tokens.
int64_t training_image_tokens(const ModelSpec& m, const TrainingOptions& t);

// The positions the vision tower runs over for one training sample: train.images x the patches of one image (the crops'
// and CLIP's class token included; Llama 3.2 Vision's max_num_tiles padded tiles, each tile's patches + 1 padded to a multiple of
// 8, attended over together); 0 without images.
int64_t training_tower_patches(const ModelSpec& m, const TrainingOptions& t);

// The training estimate's note of the tokens the images add to each sample.
std::string training_image_tokens_note(const ModelSpec& m, const TrainingOptions& t);
// Llama 3.2 Vision's: the padded tiles the tower runs over and the image states its cross-attention layers attend to.
std::string mllama_training_note(const ModelSpec& m, const TrainingOptions& t);

// train.images, image_width, image_height and train.vision: ranges, a model with a vision tower, Qwen's aspect-ratio limit.
// Called by validate_training.
void validate_training_images(const ModelSpec& m, const TrainingOptions& t, std::vector<FieldError>& errs);

}  // namespace vl
