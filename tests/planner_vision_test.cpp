// The image encoder of a llama.cpp vision model (--mmproj; core/planner/vision_encoder.h): its shape from the
// projector GGUF, the image llama.cpp reserves for, and its compute buffers against published load logs.
#include <catch2/catch.hpp>

#include <string>

#include "checkpoint_files.h"
#include "flag_list.h"
#include "inference_models.h"
#include "planner_fixtures.h"
#include "model/gguf.h"
#include "planner/launch.h"
#include "planner/planner.h"
#include "planner/vision_encoder.h"

using namespace vl;

namespace {
// Vision towers as their llama.cpp load logs print them [lcpp-clip-logs].
VisionEncoder qwen35_4b() { return {"qwen3vl_merger", 1024, 4096, 16, 24, 768, 16, 2}; }
VisionEncoder qwen36_27b() { return {"qwen3vl_merger", 1152, 4304, 16, 27, 768, 16, 2}; }
VisionEncoder mistral3() { return {"pixtral", 1024, 4096, 16, 24, 1540, 14, 2}; }
// A tiny fixed-resolution tower: 224 px, patch 14 -> 16 x 16 = 256 patches; n_embd 64, n_ff 256, 4 heads.
VisionEncoder tiny_clip() { return {"mlp", 64, 256, 4, 1, 224, 14, 1}; }

// A tiny Q8_0 text model (4 layers, d 256) on one 24 GiB GPU with 64 GiB of RAM, for the projector to join.
PlanInput tiny_on_4090() {
    PlanInput in = test::tiny_plan_input(1024);
    in.gpus = {{"RTX 4090", 24 * kGiB, 0}};
    return in;
}
}  // namespace

TEST_CASE("vision encoder: the Qwen-VL mergers reserve a 46 x 46-token image at load, as the logs print") {
    // "warmup with image size = 1472 x 1472" for both Qwen3.5-4B and Qwen3.6-27B (patch 16, merge 2) [lcpp-clip-logs]
    CHECK(warmup_image_side(qwen35_4b()) == 1472);
    CHECK(warmup_image_side(qwen36_27b()) == 1472);
    CHECK(dynamic_resolution(qwen35_4b()));
    // A fixed-resolution encoder is planned at its own image size.
    CHECK(!dynamic_resolution(tiny_clip()));
    CHECK(warmup_image_side(tiny_clip()) == 224);
    // --image-max-tokens 4096: 64 x 64 tokens of 2 x 2 patches of 16 px = a 2048 px side; 1024 tokens (1024 px) is
    // below the load-time reservation, which llama.cpp makes anyway.
    CHECK(planned_image_side(qwen35_4b(), 4096) == 2048);
    CHECK(planned_image_side(qwen35_4b(), 1024) == 1472);
    CHECK(planned_image_side(tiny_clip(), 4096) == 224);
}

TEST_CASE("vision encoder: the compute buffer at the load-time image is at or a few percent above the published ones") {
    // Flash attention on, 1472 px: 92 x 92 = 8464 patches.
    const ClipComputeBytes small = clip_compute_bytes(qwen35_4b(), 1472, true);
    CHECK(small.patches == 8464);
    // Published: "CUDA0 compute buffer size = 223.30 MiB" [lcpp-clip-logs]; never below it, at most 5 % above.
    CHECK(small.device >= 223.30 * kMiB);
    CHECK(small.device <= 223.30 * kMiB * 1.05);
    const ClipComputeBytes large = clip_compute_bytes(qwen36_27b(), 1472, true);
    // Published: "CUDA0 compute buffer size = 248.10 MiB", "CPU compute buffer size = 24.93 MiB" [lcpp-clip-logs].
    CHECK(large.device >= 248.10 * kMiB);
    CHECK(large.device <= 248.10 * kMiB * 1.02);
    CHECK(large.host >= 24.925 * kMiB);  // the log's two decimals: 24.925 to 24.935 MiB
    CHECK(large.host <= 24.935 * kMiB);
}

TEST_CASE("vision encoder: without flash attention the scores of every head are stored, gigabytes at 12,100 patches") {
    // Mistral 3 at its 1540 px image size, patch 14: 110 x 110 = 12,100 patches; published: a 9.1 GiB vision compute
    // buffer without flash attention, "[12100 x 12100 x 16 heads]" [lcpp-clip-logs].
    const ClipComputeBytes c = clip_compute_bytes(mistral3(), warmup_image_side(mistral3()), false);
    CHECK(c.patches == 12100);
    CHECK(c.device >= 9.05 * kGiB);
    CHECK(c.device <= 9.15 * kGiB);
    // The same image with flash attention: no scores, a few hundred MiB.
    CHECK(clip_compute_bytes(mistral3(), 1540, true).device < 0.5 * kGiB);
}

TEST_CASE("vision encoder: by hand for a tiny tower, and placed with the projector") {
    // 256 patches. Flash attention off: MLP step 256 * 4 * (256 + 3 * 64) = 458752 B, scores 4 * 256 * 256 * 4 = 1048576 B,
    // attention output 256 * 4 * 64 = 65536 B: 1572864 B. Host: the image 3 * 224 * 224 * 4 = 602112 B + positions
    // 256 * 16 = 4096 B: 606208 B.
    CHECK(clip_compute_bytes(tiny_clip(), 224, false).device == 1572864);
    CHECK(clip_compute_bytes(tiny_clip(), 224, true).device == 458752);
    CHECK(clip_compute_bytes(tiny_clip(), 224, true).host == 606208);

    PlanInput in = tiny_on_4090();
    in.mmproj_bytes = 600 * kMiB;
    in.mmproj_encoder = tiny_clip();
    const Plan p = place_llamacpp(in, 5, 1024);
    REQUIRE(p.ok());
    CHECK(p.gpus[0].mmproj_compute == 1572864);
    CHECK(p.cpu.mmproj_compute == 606208);
    CHECK(p.gpus[0].total() - p.gpus[0].weights - p.gpus[0].kv - p.gpus[0].compute == 600 * kMiB + 1572864);
    // --no-mmproj-offload: the encoder runs on the CPU, both buffers in RAM.
    in.mmproj_offload = false;
    const Plan q = place_llamacpp(in, 5, 1024);
    CHECK(q.gpus[0].mmproj_compute == 0);
    CHECK(q.cpu.mmproj_compute == 1572864 + 606208);
    // Only the projector's bytes, no shape (--mmproj-bytes): nothing planned for its compute.
    in.mmproj_offload = true;
    in.mmproj_encoder = VisionEncoder{};
    CHECK(place_llamacpp(in, 5, 1024).gpus[0].mmproj_compute == 0);
}

TEST_CASE("vision encoder: --image-max-tokens is planned, printed, and refused where llama.cpp ignores it") {
    PlanInput in = tiny_on_4090();
    in.flash_attention = true;
    in.mmproj_bytes = 800 * kMiB;
    in.mmproj_encoder = qwen35_4b();
    in.image_max_tokens = 4096;
    const Plan p = plan_llamacpp(in);
    REQUIRE(p.ok());
    // 2048 px: 128 x 128 = 16384 patches * 4 B * (4096 + 3 * 1024) = 469762048 B.
    CHECK(p.gpus[0].mmproj_compute == 469762048);
    const std::string line = llama_server_line(in, p, "qwen.gguf");
    CHECK(line.find(" --image-max-tokens 4096") != std::string::npos);
    const auto documented = test::documented_flags("llama_server_flags.txt");
    for (const std::string& f : test::command_flags(line)) CHECK(documented.count(f) == 1);
    CHECK(!ollama_settings(in, p).unsupported.empty());
    CHECK(image_encoder_text(in, "").find("2048 x 2048 px image, 16384 patches") != std::string::npos);

    auto field = [](PlanInput x) { const std::string e = plan_llamacpp(x).error; return e.substr(0, e.find(':')); };
    PlanInput fixed = in;
    fixed.mmproj_encoder = tiny_clip();
    CHECK(field(fixed) == "image-max-tokens");
    PlanInput no_shape = in;
    no_shape.mmproj_encoder = VisionEncoder{};
    CHECK(field(no_shape) == "image-max-tokens");
    PlanInput negative = in;
    negative.image_max_tokens = -1;
    CHECK(field(negative) == "image-max-tokens");
}

TEST_CASE("vision encoder: read from the projector GGUF's clip.vision keys, a missing key named") {
    test::GgufWriter w;
    w.string("general.architecture", "clip");
    w.string("clip.projector_type", "qwen3vl_merger");
    w.u32("clip.vision.embedding_length", 1024);
    w.u32("clip.vision.feed_forward_length", 4096);
    w.u32("clip.vision.attention.head_count", 16);
    w.u32("clip.vision.block_count", 24);
    w.u32("clip.vision.image_size", 768);
    w.u32("clip.vision.patch_size", 16);
    w.u32("clip.vision.spatial_merge_size", 2);
    const Result<GgufHeader> h = read_gguf_header(w.file());
    REQUIRE(h.ok());
    const VisionEncoderRead r = vision_encoder_from_gguf(*h.value);
    CHECK(r.error.empty());
    CHECK(r.encoder.projector == "qwen3vl_merger");
    CHECK(r.encoder.n_embd == 1024);
    CHECK(r.encoder.n_ff == 4096);
    CHECK(r.encoder.n_head == 16);
    CHECK(r.encoder.patch_size == 16);
    CHECK(r.encoder.n_merge == 2);
    CHECK(warmup_image_side(r.encoder) == 1472);

    test::GgufWriter text;
    text.string("general.architecture", "llama");
    const Result<GgufHeader> t = read_gguf_header(text.file());
    REQUIRE(t.ok());
    CHECK(vision_encoder_from_gguf(*t.value).error.find("clip.vision.embedding_length") != std::string::npos);
}
