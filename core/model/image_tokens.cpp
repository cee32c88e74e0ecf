// Image tokens per image by each family's rule (image_tokens.h).
#include "model/image_tokens.h"

#include <algorithm>
#include <cmath>

#include "cold.h"

namespace vl {

namespace {

// smart_resize of transformers' Qwen2VLImageProcessor, step for step in double as Python computes it: round()
// to the nearest multiple of factor (ties to even, as Python's round), then floor or ceil of the rescaled
// sides when the area leaves [min_pixels, max_pixels] [transformers-code].
ImageGrid qwen_grid(const VisionSpec& v, double w, double h, double min_pixels, double max_pixels) {
    const double factor = static_cast<double>(v.patch * v.merge);
    double h_bar = std::max(factor, std::nearbyint(h / factor) * factor);
    double w_bar = std::max(factor, std::nearbyint(w / factor) * factor);
    if (h_bar * w_bar > max_pixels) {
        const double beta = std::sqrt(h * w / max_pixels);
        h_bar = std::max(factor, std::floor(h / beta / factor) * factor);
        w_bar = std::max(factor, std::floor(w / beta / factor) * factor);
    } else if (h_bar * w_bar < min_pixels) {
        const double beta = std::sqrt(min_pixels / (h * w));
        h_bar = std::ceil(h * beta / factor) * factor;
        w_bar = std::ceil(w * beta / factor) * factor;
    }
    ImageGrid g;
    g.width = static_cast<int64_t>(w_bar);
    g.height = static_cast<int64_t>(h_bar);
    g.patches = (g.height / v.patch) * (g.width / v.patch);
    g.tokens = g.patches / (v.merge * v.merge);
    return g;
}

// LLaVA-NeXT's anyres rule (image_tokens.h). The pinpoint choice repeats select_best_resolution's double arithmetic (int()
// truncates the scaled sides); the unpadding compares the aspect ratios by cross-multiplication and floors
// side x ratio in integers, which is what the float forms give for sides below 2^26 [transformers-code].
ImageGrid anyres_grid(const VisionSpec& v, int64_t width, int64_t height) {
    if (v.image_size <= 0) return {};
    GridPinpoint best;
    int64_t best_effective = 0, least_wasted = 0;
    for (const GridPinpoint& p : v.grid_pinpoints) {
        const double scale = std::min(static_cast<double>(p.width) / static_cast<double>(width),
                                      static_cast<double>(p.height) / static_cast<double>(height));
        const auto down_w = static_cast<int64_t>(static_cast<double>(width) * scale);
        const auto down_h = static_cast<int64_t>(static_cast<double>(height) * scale);
        const int64_t effective = std::min(down_w * down_h, width * height), wasted = p.width * p.height - effective;
        if (effective > best_effective || (effective == best_effective && wasted < least_wasted)) {
            best = p;
            best_effective = effective;
            least_wasted = wasted;
        }
    }
    const int64_t side = v.image_size / v.patch, tiles_h = best.height / v.image_size, tiles_w = best.width / v.image_size;
    int64_t rows = side * tiles_h, cols = side * tiles_w;
    if (width * rows > cols * height) rows -= (rows - height * cols / width) / 2 * 2;  // wider than the grid: rows of padding
    else cols -= (cols - width * rows / height) / 2 * 2;                              // taller (or the same): columns
    ImageGrid g;
    g.width = best.width;
    g.height = best.height;
    g.crops = 1 + tiles_h * tiles_w;
    g.patches = g.crops * (side * side + (v.kind == VisionKind::Clip ? 1 : 0));
    g.tokens = side * side + rows * cols + rows;
    return g;
}

}  // namespace

ImageGrid image_grid(const VisionSpec& v, int64_t width, int64_t height, int64_t min_pixels, int64_t max_pixels) {
    if (!v.active() || v.patch <= 0 || width <= 0 || height <= 0) return {};
    if (v.qwen())
        return qwen_grid(v, static_cast<double>(width), static_cast<double>(height), static_cast<double>(min_pixels),
                         static_cast<double>(max_pixels));
    if (v.anyres()) return anyres_grid(v, width, height);
    const int64_t side = v.image_size / v.patch;
    if (v.mllama()) {
        const int64_t per_tile = side * side + 1;
        return {v.image_size, v.image_size, v.max_tiles * ((per_tile + 7) / 8 * 8), 1, v.max_tiles * per_tile};
    }
    ImageGrid g{v.image_size, v.image_size, side * side, side * side};
    if (v.kind == VisionKind::Clip) g.patches += 1;  // the class token runs through the tower, then is dropped
    if (v.projector == ProjectorKind::Gemma3) g.tokens = v.tokens_per_image;
    return g;
}

ModelSpec tower_view(const VisionSpec& v) {
    ModelSpec t;
    t.hidden = v.hidden;
    t.ffn = v.ffn;
    t.heads = t.kv_heads = v.heads;
    t.head_dim = v.heads > 0 ? v.hidden / v.heads : 0;
    t.gated_mlp = v.kind == VisionKind::QwenVit;  // Qwen2_5_VLMLP: gate, up, down; CLIP/SigLIP/Qwen2-VL/Mllama: fc1, fc2
    t.norm = v.kind == VisionKind::QwenVit ? NormKind::RMSNorm : NormKind::LayerNorm;
    t.norms_per_layer = 2;
    t.fused_qkv = v.qwen();
    t.position = v.qwen() ? PositionKind::Rotary : PositionKind::Learned;
    t.layers = v.layers + v.global_layers;
    return t;
}

int64_t sequence_image_tokens(const ModelSpec& m, const InferenceOptions& o) {
    return m.vision.active() && o.images > 0 ? o.images * image_grid(m.vision, o.image_width, o.image_height).tokens : 0;
}

// "images: I image(s) of T tokens each (W x H px ...) join every <unit>: <counted> B + n = total tokens".
static std::string join_note(const ModelSpec& m, int64_t images, int64_t width, int64_t height, int64_t base, int64_t n,
                             const char* unit, const char* counted) {
    const ImageGrid g = image_grid(m.vision, width, height);
    const std::string tiles = m.vision.anyres() ? "; the base image and " + std::to_string(g.crops - 1) + " tile(s) of the " +
                                                      std::to_string(g.width) + " x " + std::to_string(g.height) +
                                                      " pinpoint, unpadded, one image_newline per row"
                                                : "";
    return "images: " + std::to_string(images) + " image(s) of " + std::to_string(g.tokens) + " tokens each (" + std::to_string(width) +
           " x " + std::to_string(height) + " px" + tiles + ") join every " + unit + ": " + counted + " " + std::to_string(base) + " + " +
           std::to_string(n) + " = " + std::to_string(base + n) + " tokens";
}

std::string training_image_tokens_note(const ModelSpec& m, const TrainingOptions& t) {
    return join_note(m, t.images, t.image_width, t.image_height, t.seq_len, training_image_tokens(m, t), "sample",
                     "the language model's activations and logits count");
}

std::string mllama_training_note(const ModelSpec& m, const TrainingOptions& t) {
    const ImageGrid g = image_grid(m.vision, t.image_width, t.image_height);
    return "images: " + std::to_string(t.images) + " image(s) per sample, each padded to " + std::to_string(m.vision.max_tiles) +
           " tiles: the vision tower runs over " + std::to_string(g.patches) + " positions per image, the cross-attention layers attend to " +
           std::to_string(g.cross_tokens) + " image states per image (whatever the image's size); the <|image|> token is one of seq_len's";
}

std::string image_tokens_note(const ModelSpec& m, const InferenceOptions& o) {
    const int64_t n = sequence_image_tokens(m, o);
    if (m.vision.mllama()) {
        const ImageGrid g = image_grid(m.vision, o.image_width, o.image_height);
        return "images: " + std::to_string(o.images) + " image(s) join every sequence as one <|image|> token each (the KV cache and prefill count " +
               std::to_string(o.context) + " + " + std::to_string(n) + " = " + std::to_string(o.context + n) +
               " tokens); the cross-attention layers keep K and V of " + std::to_string(g.cross_tokens) +
               " image states per image (max_num_tiles x (patches + 1), whatever the image's size)";
    }
    return join_note(m, o.images, o.image_width, o.image_height, o.context, n, "sequence", "the KV cache and prefill count");
}

// The count and size of images, by section ("infer" or "train"): ranges, a model with a vision tower, Qwen's aspect-ratio
// limit. Returns whether images are asked for and the model can take them.
static bool validate_image_fields(const ModelSpec& m, const std::string& section, int64_t images, int64_t width, int64_t height,
                                  std::vector<FieldError>& errs) {
    auto range = [&](const std::string& field, int64_t v, int64_t lo, int64_t hi) {
        if (v < lo || v > hi)
            cold([&] { errs.push_back({section + "." + field, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]; got " + std::to_string(v)}); });
    };
    range("images", images, 0, 10000);
    range("image_width", width, 1, 100000);
    range("image_height", height, 1, 100000);
    // Qwen2VLImageProcessor's smart_resize refuses an aspect ratio above 200 [transformers-code].
    if (images > 0 && m.vision.qwen() && width > 0 && height > 0 && std::max(width, height) > 200 * std::min(width, height))
        cold([&] { errs.push_back({section + ".image_width", "and " + section + ".image_height: the Qwen2-VL processor refuses an aspect ratio above 200; got " +
                                   std::to_string(width) + " x " + std::to_string(height)}); });
    if (images <= 0) return false;
    if (!m.vision.active()) {
        cold([&] { errs.push_back({section + ".images", "the model has no vision tower (model.vision): import a vision-language config.json (LLaVA, Gemma 3, "
                                                        "Qwen2.5-VL) or set 0; got " + std::to_string(images)}); });
        return false;
    }
    return true;
}

void validate_images(const ModelSpec& m, const InferenceOptions& o, std::vector<FieldError>& errs) {
    if (!validate_image_fields(m, "infer", o.images, o.image_width, o.image_height, errs)) return;
    if (m.vision.mllama() && o.engine != Engine::Transformers)
        cold([&] { errs.push_back({"infer.engine", "Llama 3.2 Vision (mllama) keeps each image's keys and values in its cross-attention layers; "
                                                   "that cache is modelled for engine transformers only: choose transformers, or set infer.images to 0"}); });
    else if (o.engine == Engine::LlamaCpp)
        cold([&] { errs.push_back({"infer.images", "llama.cpp encodes images with a separate projector file (--mmproj): plan it in Run locally; use "
                                                   "engine transformers or vllm, or set 0"}); });
}

int64_t training_image_tokens(const ModelSpec& m, const TrainingOptions& t) {
    return m.vision.active() && t.images > 0 && !m.vision.mllama() ? t.images * image_grid(m.vision, t.image_width, t.image_height).tokens : 0;
}

int64_t training_tower_patches(const ModelSpec& m, const TrainingOptions& t) {
    return m.vision.active() && t.images > 0 ? t.images * image_grid(m.vision, t.image_width, t.image_height).patches : 0;
}

void validate_training_images(const ModelSpec& m, const TrainingOptions& t, std::vector<FieldError>& errs) {
    if (t.vision != VisionTraining::Frozen && !m.vision.active())
        cold([&] { errs.push_back({"train.vision", "the model has no vision tower (model.vision) to train: set frozen, or import a vision-language config.json"}); });
    validate_image_fields(m, "train", t.images, t.image_width, t.image_height, errs);
}

}  // namespace vl
