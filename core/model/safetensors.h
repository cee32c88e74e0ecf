// Reading a checkpoint's safetensors headers, never its weights (issue 17): what tensors a file holds,
// in which dtype and shape, and where their bytes are, so that parameter counts per dtype and the
// true checkpoint size come from the files themselves.
//
// A .safetensors file is an 8-byte little-endian header length N, N bytes of JSON
// {"tensor": {"dtype": "BF16", "shape": [..], "data_offsets": [begin, end]}, ..., "__metadata__": {..}},
// then the data; offsets count from the end of the header [safetensors-spec]. A sharded checkpoint
// adds model.safetensors.index.json: {"metadata": {"total_size": ..}, "weight_map": {tensor: shard}}.
//
// Pure readers: bytes in, a result or errors out (naming the tensor and the field). Every length is
// checked before it is used: the header length against kMaxSafetensorsHeaderBytes and the file size,
// the JSON through parse_json_input (json_input.h), every shape against overflow, every byte range
// against its dtype and shape and against the data the file holds.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diagnostics.h"
#include "json_input.h"

namespace vl {

// The JSON header is read whole: real headers are tens to hundreds of KB (a few hundred bytes a tensor).
inline constexpr uint64_t kMaxSafetensorsHeaderBytes = kMaxJsonInputBytes;
inline constexpr size_t kMaxTensorDims = 16;

// The dtypes a safetensors header names, with their bits per element [safetensors-spec].
struct SafetensorsDtype {
    const char* name;  // as written in the header: "BF16"
    unsigned bits;     // bits per element (F4: 4, F6_*: 6)
    bool is_float;     // a floating-point type of 16 bits or more (the dtypes unquantized weights are kept in)
};
inline constexpr SafetensorsDtype kSafetensorsDtypes[] = {
    {"BOOL", 8, false},    {"U8", 8, false},        {"I8", 8, false},        {"F8_E4M3", 8, false},
    {"F8_E5M2", 8, false}, {"F8_E8M0", 8, false},   {"F4", 4, false},        {"F6_E2M3", 6, false},
    {"F6_E3M2", 6, false}, {"I16", 16, false},      {"U16", 16, false},      {"F16", 16, true},
    {"BF16", 16, true},    {"I32", 32, false},      {"U32", 32, false},      {"F32", 32, true},
    {"I64", 64, false},    {"U64", 64, false},      {"F64", 64, true},       {"C64", 64, false},
};
const SafetensorsDtype* find_safetensors_dtype(std::string_view name);

struct SafetensorsTensor {
    std::string name;
    std::string dtype;
    std::vector<uint64_t> shape;
    uint64_t begin = 0, end = 0;  // byte range in the data section (after the header)
    uint64_t elements = 0;        // product of the shape (1 for a scalar, shape [])
};

struct SafetensorsHeader {
    uint64_t header_bytes = 0;  // N, the JSON header's length
    uint64_t data_bytes = 0;    // the end of the last tensor's bytes
    std::vector<SafetensorsTensor> tensors;  // in data order
    std::vector<std::pair<std::string, std::string>> metadata;  // "__metadata__" (e.g. "format": "pt")
    uint64_t file_bytes() const { return 8 + header_bytes + data_bytes; }
};

// The header length from the file's first 8 bytes (or more). With file_size, a length past the end
// of the file is an error too. Field "header_length".
Result<uint64_t> safetensors_header_length(std::string_view first_bytes, std::optional<uint64_t> file_size = std::nullopt);

// The header from the file's first 8 + N bytes (more are ignored). With file_size, the tensors'
// bytes must lie within the file; a file longer than its tensors is a warning.
Result<SafetensorsHeader> read_safetensors_header(std::string_view bytes, std::optional<uint64_t> file_size = std::nullopt);

// model.safetensors.index.json: the shard files in the order first named, and which tensor is where.
struct SafetensorsIndex {
    std::optional<uint64_t> total_size;  // metadata.total_size: bytes of tensor data over all shards
    std::vector<std::string> shards;
    std::vector<std::pair<std::string, std::string>> weight_map;  // tensor -> shard, sorted by tensor
};
// Shard names must be plain file names (no directory, no "..": they are opened next to the index).
Result<SafetensorsIndex> read_safetensors_index(std::string_view json_text);

// Counts by dtype over one or more headers.
struct DtypeCount {
    std::string dtype;
    uint64_t tensors = 0, elements = 0, bytes = 0;
};
std::vector<DtypeCount> count_by_dtype(const std::vector<SafetensorsHeader>& headers);  // sorted by dtype name

}  // namespace vl
