// Image tokens per image by each family's rule (image_tokens.h).
#include "model/image_tokens.h"

#include <cmath>

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

}  // namespace

ImageGrid image_grid(const VisionSpec& v, int64_t width, int64_t height, int64_t min_pixels, int64_t max_pixels) {
    if (!v.active() || v.patch <= 0 || width <= 0 || height <= 0) return {};
    if (v.kind == VisionKind::QwenVit)
        return qwen_grid(v, static_cast<double>(width), static_cast<double>(height), static_cast<double>(min_pixels),
                         static_cast<double>(max_pixels));
    const int64_t side = v.image_size / v.patch;
    ImageGrid g{v.image_size, v.image_size, side * side, side * side};
    if (v.kind == VisionKind::Clip) g.patches += 1;  // the class token runs through the tower, then is dropped
    if (v.projector == ProjectorKind::Gemma3) g.tokens = v.tokens_per_image;
    return g;
}

}  // namespace vl
