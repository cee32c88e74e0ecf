// Checkpoint files written by the tests (issue 17), never downloaded: a safetensors file from a
// hand-written JSON header, and a GGUF file from a list of metadata and tensor infos, each laid out
// as its spec says (safetensors: 8-byte little-endian length + JSON + data; GGUF: docs/gguf.md).
// The data bytes are zeros: only the headers are read.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

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

}  // namespace vl::test
