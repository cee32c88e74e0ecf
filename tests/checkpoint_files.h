// Checkpoint files written by the tests (issue 17), never downloaded: a safetensors file from a
// hand-written JSON header, and a GGUF file from a list of metadata and tensor infos, each laid out
// as its spec says (safetensors: 8-byte little-endian length + JSON + data; GGUF: docs/gguf.md).
// The data bytes are zeros: only the headers are read.
#pragma once
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace vl::test {

inline void put_le(std::string& out, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

// 8-byte length, the header as given, `data_bytes` zero bytes.
inline std::string safetensors_file(const std::string& header_json, uint64_t data_bytes) {
    std::string f;
    put_le(f, header_json.size(), 8);
    f += header_json;
    f.append(static_cast<size_t>(data_bytes), '\0');
    return f;
}

struct GgufWriter {
    std::string kv;  // the metadata pairs, serialized
    uint64_t n_kv = 0;
    std::string infos;
    uint64_t n_tensors = 0;
    uint64_t data_bytes = 0;  // the data section's size (each tensor padded to `alignment`)
    uint64_t alignment = 32;

    static void str(std::string& out, const std::string& s) {
        put_le(out, s.size(), 8);
        out += s;
    }
    void key(const std::string& k, uint32_t type) {
        str(kv, k);
        put_le(kv, type, 4);
        ++n_kv;
    }
    void u32(const std::string& k, uint32_t v) { key(k, 4); put_le(kv, v, 4); }
    void u64(const std::string& k, uint64_t v) { key(k, 10); put_le(kv, v, 8); }
    void f32(const std::string& k, float v) {
        key(k, 6);
        uint32_t bits;
        std::memcpy(&bits, &v, 4);
        put_le(kv, bits, 4);
    }
    void string(const std::string& k, const std::string& v) { key(k, 8); str(kv, v); }
    void strings(const std::string& k, const std::vector<std::string>& v) {
        key(k, 9);
        put_le(kv, 8, 4);
        put_le(kv, v.size(), 8);
        for (const std::string& s : v) str(kv, s);
    }
    void i32s(const std::string& k, const std::vector<int32_t>& v) {
        key(k, 9);
        put_le(kv, 5, 4);
        put_le(kv, v.size(), 8);
        for (int32_t x : v) put_le(kv, static_cast<uint32_t>(x), 4);
    }
    // A tensor info; `bytes` is the size the test derived by hand from its type's block.
    void tensor(const std::string& name, const std::vector<uint64_t>& dims, uint32_t ggml_type, uint64_t bytes) {
        str(infos, name);
        put_le(infos, dims.size(), 4);
        for (uint64_t d : dims) put_le(infos, d, 8);
        put_le(infos, ggml_type, 4);
        put_le(infos, data_bytes, 8);
        data_bytes += bytes + (alignment - bytes % alignment) % alignment;
        ++n_tensors;
    }
    std::string header(uint32_t version = 3) const {
        std::string f = "GGUF";
        put_le(f, version, 4);
        put_le(f, n_tensors, 8);
        put_le(f, n_kv, 8);
        return f + kv + infos;
    }
    // The whole file: header, padding to the alignment, zero data.
    std::string file() const {
        std::string f = header();
        f.append(static_cast<size_t>((alignment - f.size() % alignment) % alignment), '\0');
        f.append(static_cast<size_t>(data_bytes), '\0');
        return f;
    }
};

// A Qwen-VL-style vision projector (an mmproj .gguf): encoder n_embd 64, n_ff 256, 4 heads, 1 block, image_size 768,
// patch 16, merge 2, and one F16 tensor [64, 64] = 8192 B. Load-time image 46 * 2 * 16 = 1472 px, 92 * 92 = 8464 patches;
// flash attention off: 8464 * 4 * (256 + 3 * 64) = 15167488 B at the MLP + scores 4 * 8464^2 * 4 = 1146228736 B +
// attention output 8464 * 4 * 64 = 2166784 B = 1163563008 B of encoder compute beside the projector; in RAM the image
// 3 * 1472^2 * 4 = 26001408 B + 8464 * 16 = 135424 B of positions = 26136832 B.
inline constexpr double kQwenProjectorBytes = 8192, kQwenEncoderDevice = 1163563008, kQwenEncoderHost = 26136832;
inline GgufWriter qwen_projector_gguf() {
    GgufWriter w;
    w.string("general.architecture", "clip");
    w.string("clip.vision.projector_type", "qwen3vl_merger");
    w.u32("clip.vision.embedding_length", 64);
    w.u32("clip.vision.feed_forward_length", 256);
    w.u32("clip.vision.attention.head_count", 4);
    w.u32("clip.vision.block_count", 1);
    w.u32("clip.vision.image_size", 768);
    w.u32("clip.vision.patch_size", 16);
    w.u32("clip.vision.spatial_merge_size", 2);
    w.tensor("v.blk.0.attn_q.weight", {64, 64}, 1, 8192);
    return w;
}

// `bytes` written to a file of this process's own in the temp folder (the test removes it).
inline std::filesystem::path write_temp_file(const std::string& name, const std::string& bytes) {
    const std::filesystem::path file = std::filesystem::temp_directory_path() / ("vramlens_test_" + std::to_string(::getpid()) + "_" + name);
    std::ofstream(file, std::ios::binary) << bytes;
    return file;
}

// A two-block llama GGUF (Q4_K_M, general.file_type 15) whose blocks differ: hidden 256, 4 heads
// of 64, 2 KV heads, FFN 512, vocabulary 32, untied. Bytes by the GGML blocks of ggml-common.h
// (Q4_K 144 bytes per 256 weights, Q6_K 210 per 256, F32 4 per weight):
//   blk.i.attn_norm, ffn_norm F32 [256]: 1024 each
//   blk.i.attn_q, attn_output Q4_K [256, 256]: 65536 / 256 = 256 blocks x 144 = 36864 each
//   blk.i.attn_k Q4_K [256, 128]: 128 blocks x 144 = 18432
//   blk.i.attn_v Q6_K [256, 128]: 128 blocks x 210 = 26880
//   blk.i.ffn_gate, ffn_up Q4_K [256, 512]: 512 blocks x 144 = 73728 each
//   blk.0.ffn_down Q6_K [512, 256]: 512 blocks x 210 = 107520; blk.1.ffn_down Q4_K: 512 x 144 = 73728
//   blk.0: 2 x 1024 + 2 x 36864 + 18432 + 26880 + 2 x 73728 + 107520 = 376064
//   blk.1: 376064 - 107520 + 73728 = 342272
//   token_embd Q4_K [256, 32]: 32 blocks x 144 = 4608; output Q6_K [256, 32]: 32 x 210 = 6720;
//   output_norm F32 [256]: 1024
inline constexpr uint64_t kTwoBlockGguf[2] = {376064, 342272};
inline constexpr uint64_t kTwoBlockTokenEmbd = 4608, kTwoBlockOutput = 6720, kTwoBlockOther = 1024;

inline GgufWriter two_block_gguf(uint32_t file_type = 15) {
    constexpr uint32_t F32 = 0, Q4_K = 12, Q6_K = 14;
    GgufWriter w;
    w.string("general.architecture", "llama");
    w.string("general.name", "two-block");
    w.u32("general.file_type", file_type);  // 15: Q4_K_M, what the tensors below are
    w.u32("llama.context_length", 4096);
    w.u32("llama.block_count", 2);
    w.u32("llama.attention.head_count", 4);
    w.u32("llama.attention.head_count_kv", 2);
    w.u32("llama.embedding_length", 256);
    w.u32("llama.feed_forward_length", 512);
    w.strings("tokenizer.ggml.tokens", std::vector<std::string>(32, "t"));
    w.tensor("token_embd.weight", {256, 32}, Q4_K, 4608);
    for (int i = 0; i < 2; ++i) {
        const std::string b = "blk." + std::to_string(i) + ".";
        w.tensor(b + "attn_norm.weight", {256}, F32, 1024);
        w.tensor(b + "attn_q.weight", {256, 256}, Q4_K, 36864);
        w.tensor(b + "attn_k.weight", {256, 128}, Q4_K, 18432);
        w.tensor(b + "attn_v.weight", {256, 128}, Q6_K, 26880);
        w.tensor(b + "attn_output.weight", {256, 256}, Q4_K, 36864);
        w.tensor(b + "ffn_norm.weight", {256}, F32, 1024);
        w.tensor(b + "ffn_gate.weight", {256, 512}, Q4_K, 73728);
        w.tensor(b + "ffn_up.weight", {256, 512}, Q4_K, 73728);
        if (i == 0) w.tensor(b + "ffn_down.weight", {512, 256}, Q6_K, 107520);
        else w.tensor(b + "ffn_down.weight", {512, 256}, Q4_K, 73728);
    }
    w.tensor("output_norm.weight", {256}, F32, 1024);
    w.tensor("output.weight", {256, 32}, Q6_K, 6720);
    return w;
}

}  // namespace vl::test
