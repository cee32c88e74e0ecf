// Reading a GGUF file's header, never its weights (issue 17): the metadata key-value pairs and the
// tensor infos, so that the architecture, context length, layer and head counts and every tensor's
// GGML type and byte size come from the file itself.
//
// GGUF v2/v3 [gguf-spec]: "GGUF", uint32 version, uint64 tensor count, uint64 metadata count; each
// metadata pair is a string key, a uint32 value type and the value (arrays: uint32 element type,
// uint64 count, the elements); each tensor info is a string name, uint32 n_dims, n_dims uint64 sizes,
// uint32 ggml type and a uint64 offset into the data section, which starts at the header's end
// rounded up to general.alignment (default 32). Strings are a uint64 length and bytes; everything is
// little-endian. The rules llama.cpp's reader (gguf.cpp) enforces are enforced here: version 2 or 3,
// no duplicate keys or tensor names, no arrays of arrays, names shorter than 64 bytes, at most 4
// dimensions, a power-of-two alignment, rows a whole number of blocks, tensors stored in order each
// padded to the alignment.
//
// Pure: bytes in, a result or errors out. Every count and length is checked against the bytes left
// before anything is allocated; array values are stepped over, not stored.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diagnostics.h"
#include "inference/weight_formats.h"
#include "model_spec.h"

namespace vl {

enum class GgufValueType : uint32_t {
    U8 = 0, I8 = 1, U16 = 2, I16 = 3, U32 = 4, I32 = 5, F32 = 6, Bool = 7, String = 8, Array = 9, U64 = 10, I64 = 11, F64 = 12,
};
const char* gguf_value_type_name(GgufValueType t);  // "uint32", "string", ...

struct GgufKv {
    std::string key;
    GgufValueType type = GgufValueType::U8;
    // scalars: the value (integers and bools also in `number`; strings in `text`)
    std::optional<double> number;
    std::optional<uint64_t> unsigned_value;  // an integer >= 0
    std::string text;
    // arrays: the element type and count; the elements are kept only for an integer array of at most
    // kMaxGgufKeptArray (per-layer values, e.g. <arch>.attention.head_count_kv, one per block)
    GgufValueType element_type = GgufValueType::U8;
    uint64_t count = 0;
    std::vector<int64_t> integers;
};
inline constexpr uint64_t kMaxGgufKeptArray = 4096;  // more blocks than any model has

struct GgufTensor {
    std::string name;
    std::vector<uint64_t> dims;  // ne[0] first (the row length)
    GgmlType type = GgmlType::F32;
    uint64_t offset = 0;  // in the data section
    uint64_t elements = 0;
    uint64_t bytes = 0;   // elements / block_weights * block_bytes
};

struct GgufHeader {
    uint32_t version = 0;
    std::vector<GgufKv> metadata;
    std::vector<GgufTensor> tensors;
    uint64_t alignment = 32;
    uint64_t header_bytes = 0;  // where the tensor infos end
    uint64_t data_offset = 0;   // header_bytes rounded up to the alignment
    uint64_t data_bytes = 0;    // every tensor, each padded to the alignment
    uint64_t file_bytes() const { return data_offset + data_bytes; }

    // Standard keys: general.architecture, general.name, and "<arch>.<key>" for the model's sizes.
    const GgufKv* find(std::string_view key) const;
    std::string architecture() const;
    // arch_value("context_length"); a per-layer integer array whose values are all equal gives that value
    std::optional<uint64_t> arch_value(std::string_view key) const;
};

// Tensors, elements and bytes by GGML type, in the order of kGgmlTypes; types with no tensor left out.
struct GgmlTypeCount {
    GgmlType type;
    uint64_t tensors = 0, elements = 0, bytes = 0;
};
std::vector<GgmlTypeCount> count_by_ggml_type(const GgufHeader& h);

// Tensor bytes per transformer block (tensors named "blk.<i>.*", as llama.cpp names them) and the
// routed experts' part of each (blk.<i>.ffn_{gate,up,down}_exps), of token_embd.weight, of
// output.weight and of the rest (output_norm, ...): the weight memory llama.cpp loads for each layer,
// the input layer and the output layer (model_spec.h GgufTensorBytes).
GgufTensorBytes gguf_bytes_by_layer(const GgufHeader& h);

// The model of a GGUF file as a Hugging Face config.json (the text import_hf_config reads), built
// from its metadata: <arch>.embedding_length -> hidden_size, block_count -> num_hidden_layers,
// attention.head_count(_kv) -> num_attention_heads (num_key_value_heads), feed_forward_length ->
// intermediate_size, context_length -> max_position_embeddings, attention.key_length -> head_dim,
// the expert counts, the vocabulary's length, and tied embeddings when there is no output.weight.
// Architectures: llama (mixtral when it has experts), qwen2, qwen2moe, qwen3, qwen3moe, gemma,
// gemma2, gemma3, phi3; others are an error on "general.architecture".
Result<std::string> gguf_hf_config(const GgufHeader& h);

inline constexpr size_t kMaxGgufKeyBytes = 65535;  // spec: keys are at most 2^16 - 1 bytes
inline constexpr size_t kGgmlMaxName = 64;         // GGML_MAX_NAME: a tensor name is shorter
inline constexpr size_t kGgmlMaxDims = 4;          // GGML_MAX_DIMS

// The header from the file's first bytes. The header's length is not known before it is read: when
// `bytes` ends inside it, the result is an error on field "gguf" and *truncated (if given) is set,
// so a caller holding more of the file can try again with more. With file_size, tensors past the
// end of the file are an error.
Result<GgufHeader> read_gguf_header(std::string_view bytes, std::optional<uint64_t> file_size = std::nullopt,
                                    bool* truncated = nullptr);

}  // namespace vl
