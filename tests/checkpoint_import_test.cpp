// Checkpoint headers (issue 17): safetensors headers and index, GGUF headers, quantization_config and
// adapter_config.json. The files are written by the tests (checkpoint_files.h); expected counts are
// summed by hand from the shapes written here, expected byte sizes from the dtypes' and GGML blocks'
// sizes ([safetensors-spec], ggml-common.h [llama-cpp-code]); every malformed case has its message.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "checkpoint_files.h"
#include "estimate.h"
#include "model/checkpoint_config.h"
#include "model/checkpoint_import.h"
#include "model/gguf.h"
#include "model/hf_config.h"
#include "model/safetensors.h"
#include "units.h"

using namespace vl;
using vl::test::GgufWriter;
using vl::test::safetensors_file;

namespace {

template <class T>
std::string errors_of(const Result<T>& r) {
    std::string s;
    for (const FieldError& e : r.errors) s += to_string(e) + "\n";
    return s;
}

// embed BF16 [32, 8] = 256 elements, 512 bytes; q_proj BF16 [8, 8] = 64, 128; norm F32 [8] = 8, 32;
// lm_head F16 [32, 8] = 256, 512. Data: 512 + 128 + 32 + 512 = 1184 bytes.
const std::string kHeader = R"({"__metadata__": {"format": "pt"},
 "model.embed_tokens.weight": {"dtype": "BF16", "shape": [32, 8], "data_offsets": [0, 512]},
 "model.layers.0.self_attn.q_proj.weight": {"dtype": "BF16", "shape": [8, 8], "data_offsets": [512, 640]},
 "model.norm.weight": {"dtype": "F32", "shape": [8], "data_offsets": [640, 672]},
 "lm_head.weight": {"dtype": "F16", "shape": [32, 8], "data_offsets": [672, 1184]}})";

std::string header_with(const std::string& tensor_json) { return "{\"t\": " + tensor_json + "}"; }

}  // namespace

TEST_CASE("safetensors: parameter counts per dtype are the header's shapes summed, the size is the file's", "[checkpoint]") {
    const std::string file = safetensors_file(kHeader, 1184);
    Result<SafetensorsHeader> r = read_safetensors_header(file, file.size());
    INFO(errors_of(r));
    REQUIRE(r.ok());
    CHECK(r.warnings.empty());
    CHECK(r->tensors.size() == 4);
    CHECK(r->header_bytes == kHeader.size());
    CHECK(r->data_bytes == 1184);
    CHECK(r->file_bytes() == file.size());
    REQUIRE(r->metadata.size() == 1);
    CHECK(r->metadata[0].second == "pt");
    const std::vector<DtypeCount> by = count_by_dtype({*r});
    REQUIRE(by.size() == 3);  // sorted by name
    CHECK(by[0].dtype == "BF16");
    CHECK(by[0].tensors == 2);
    CHECK(by[0].elements == 256 + 64);
    CHECK(by[0].bytes == 640);
    CHECK(by[1].dtype == "F16");
    CHECK(by[1].elements == 256);
    CHECK(by[2].dtype == "F32");
    CHECK(by[2].elements == 8);
    CHECK(by[2].bytes == 32);
    // Only the first 8 + N bytes are needed: the reader never looks at the data.
    const std::string prefix = file.substr(0, 8 + kHeader.size());
    Result<SafetensorsHeader> p = read_safetensors_header(prefix, file.size());
    REQUIRE(p.ok());
    CHECK(p->file_bytes() == file.size());
    // A scalar (shape []) is one element; an empty tensor none.
    Result<SafetensorsHeader> s = read_safetensors_header(safetensors_file(
        R"({"a": {"dtype": "F32", "shape": [], "data_offsets": [0, 4]}, "b": {"dtype": "F32", "shape": [0, 3], "data_offsets": [4, 4]}})", 4));
    REQUIRE(s.ok());
    CHECK(count_by_dtype({*s})[0].elements == 1);
}

TEST_CASE("safetensors: every malformed header is an error naming what is wrong", "[checkpoint]") {
    auto error_of = [](const std::string& bytes, std::optional<uint64_t> size = std::nullopt) {
        Result<SafetensorsHeader> r = read_safetensors_header(bytes, size);
        REQUIRE_FALSE(r.ok());
        REQUIRE(r.errors.size() >= 1);
        return to_string(r.errors.front());
    };
    CHECK(error_of("abc") == "header_length: the file is 3 bytes; a safetensors file starts with an 8-byte header length (is it truncated?)");
    const std::string huge(8, '\xff');
    CHECK(error_of(huge, 1000).find("header_length: is 18,446,744,073,709,551,615 bytes, past the end of the file (1,000 bytes)") == 0);
    CHECK(error_of(huge).find("of header is read (is this a safetensors file?)") != std::string::npos);
    std::string short_header = safetensors_file(kHeader, 0).substr(0, 50);
    CHECK(error_of(short_header) == "header: is truncated: the header length says " + std::to_string(kHeader.size()) + " bytes, 42 follow it");
    CHECK(error_of(safetensors_file("[1, 2]", 0)) == "header: must be a JSON object of tensors; got array");
    CHECK(error_of(safetensors_file(header_with(R"({"dtype": "Q4", "shape": [2], "data_offsets": [0, 1]})"), 1))
              .find("t.dtype: unknown dtype \"Q4\"; a safetensors dtype is one of BOOL, U8,") == 0);
    CHECK(error_of(safetensors_file(header_with(R"({"dtype": "F16", "shape": [4294967296, 4294967296, 16], "data_offsets": [0, 2]})"), 2))
              .find("t.shape: overflows") == 0);
    CHECK(error_of(safetensors_file(header_with(R"({"dtype": "F16", "shape": [2, -1], "data_offsets": [0, 2]})"), 2)) ==
          "t.shape[1]: must be a whole number >= 0; got -1");
    CHECK(error_of(safetensors_file(header_with(R"({"dtype": "BF16", "shape": [8, 8], "data_offsets": [0, 100]})"), 100)) ==
          "t.data_offsets: span 100 bytes; shape [8,8] of BF16 takes 128 bytes");
    CHECK(error_of(safetensors_file(header_with(R"({"dtype": "BF16", "shape": [8, 8], "data_offsets": [128, 0]})"), 128)) ==
          "t.data_offsets: must be [begin, end], whole numbers with begin <= end; got [128,0]");
    CHECK(error_of(safetensors_file(header_with(R"({"dtype": "F4", "shape": [3], "data_offsets": [0, 1]})"), 1)) ==
          "t.shape: 3 elements of F4 are not a whole number of bytes");
    CHECK(error_of(safetensors_file(R"({"": 5})", 0)) == "\"\": must be an object with dtype, shape and data_offsets");
    CHECK(error_of(safetensors_file(header_with(R"({"shape": [8], "data_offsets": [0, 16]})"), 16)) ==
          "t.dtype: is missing (every tensor has dtype, shape and data_offsets)");
    CHECK(error_of(safetensors_file(R"({"a": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]},
                                        "b": {"dtype": "U8", "shape": [4], "data_offsets": [2, 6]}})", 6)) ==
          "b.data_offsets: [2, 6] overlaps the tensor before it, which ends at 4");
    // The file ends before the tensors do.
    const std::string file = safetensors_file(kHeader, 1184);
    CHECK(error_of(file, file.size() - 1) ==
          "data_offsets: the tensors' bytes end at 1,184 but the file holds 1,183 bytes of data after its header: the file is truncated");
    // More bytes than the tensors: read, with a warning.
    Result<SafetensorsHeader> longer = read_safetensors_header(file, file.size() + 10);
    REQUIRE(longer.ok());
    REQUIRE(longer.warnings.size() == 1);
    CHECK(longer.warnings[0] == "the file has 10 bytes after its last tensor");
}

TEST_CASE("safetensors index: the shards in order, file names only", "[checkpoint]") {
    Result<SafetensorsIndex> r = read_safetensors_index(R"({"metadata": {"total_size": 1184},
      "weight_map": {"b": "model-00002-of-00002.safetensors", "a": "model-00001-of-00002.safetensors",
                     "c": "model-00001-of-00002.safetensors"}})");
    INFO(errors_of(r));
    REQUIRE(r.ok());
    CHECK(*r->total_size == 1184);
    REQUIRE(r->shards.size() == 2);
    CHECK(r->shards[0] == "model-00001-of-00002.safetensors");  // "a" comes first
    CHECK(r->weight_map.size() == 3);
    auto error_of = [](const std::string& text) {
        Result<SafetensorsIndex> e = read_safetensors_index(text);
        REQUIRE_FALSE(e.ok());
        return to_string(e.errors.front());
    };
    CHECK(error_of(R"({"weight_map": {"a": "../../etc/passwd"}})") ==
          "weight_map.a: must be a file name next to the index (no directory); got \"../../etc/passwd\"");
    CHECK(error_of(R"({"weight_map": {}})") == "weight_map: is empty: the index names no tensors");
    CHECK(error_of(R"({"metadata": {"total_size": -5}, "weight_map": {"a": "x"}})") == "metadata.total_size: must be a whole number of bytes; got -5");
    CHECK(error_of(R"({"metadata": {}})") == "weight_map: must be an object mapping each tensor to its shard file");
}

namespace {

// A tiny llama GGUF. Bytes by the GGML blocks of ggml-common.h:
//   token_embd  Q4_K [256, 32]: 8192 weights = 32 blocks of 256 x 144 bytes = 4608
//   blk.0.attn_q Q6_K [256, 256]: 65536 = 256 blocks x 210 = 53760
//   blk.0.attn_norm F32 [256]: 1024
//   blk.0.small F16 [3]: 6 bytes, padded to 32
//   output Q8_0 [256, 32]: 8192 = 256 blocks of 32 x 34 = 8704
//   blk.0.ffn_down IQ4_XS [256, 4]: 1024 = 4 blocks of 256 x 136 = 544
// data: 4608 + 53760 + 1024 + 32 + 8704 + 544 = 68672 bytes.
GgufWriter tiny_gguf() {
    GgufWriter w;
    w.string("general.architecture", "llama");
    w.string("general.name", "tiny");
    w.u32("llama.context_length", 4096);
    w.u32("llama.block_count", 1);
    w.u32("llama.attention.head_count", 4);
    w.u32("llama.attention.head_count_kv", 2);
    w.u64("llama.embedding_length", 256);
    w.f32("llama.rope.freq_base", 500000.0f);
    w.strings("tokenizer.ggml.tokens", {"a", "b", "<s>"});
    w.i32s("tokenizer.ggml.token_type", {1, 1, 3});
    w.tensor("token_embd.weight", {256, 32}, 12, 4608);
    w.tensor("blk.0.attn_q.weight", {256, 256}, 14, 53760);
    w.tensor("blk.0.attn_norm.weight", {256}, 0, 1024);
    w.tensor("blk.0.small", {3}, 1, 6);
    w.tensor("output.weight", {256, 32}, 8, 8704);
    w.tensor("blk.0.ffn_down.weight", {256, 4}, 23, 544);
    return w;
}

// A whole GGUF file as the importer gets it: its header read, and its size.
CheckpointFiles gguf_files(const std::string& file) {
    Result<GgufHeader> h = read_gguf_header(file, file.size());
    REQUIRE(h.ok());
    CheckpointFiles f;
    f.gguf = *h;
    f.gguf_file_bytes = file.size();
    return f;
}

}  // namespace

TEST_CASE("GGUF: metadata, every tensor's type and size, and the file size from the header", "[checkpoint]") {
    const GgufWriter w = tiny_gguf();
    const std::string file = w.file();
    Result<GgufHeader> r = read_gguf_header(file, file.size());
    INFO(errors_of(r));
    REQUIRE(r.ok());
    CHECK(r->version == 3);
    CHECK(r->architecture() == "llama");
    CHECK(*r->arch_value("context_length") == 4096);
    CHECK(*r->arch_value("block_count") == 1);
    CHECK(*r->arch_value("attention.head_count") == 4);
    CHECK(*r->arch_value("attention.head_count_kv") == 2);
    CHECK(*r->arch_value("embedding_length") == 256);
    CHECK_FALSE(r->arch_value("feed_forward_length"));
    CHECK(r->find("llama.rope.freq_base")->number == 500000.0);
    const GgufKv* tokens = r->find("tokenizer.ggml.tokens");
    REQUIRE(tokens);
    CHECK(tokens->type == GgufValueType::Array);
    CHECK(tokens->element_type == GgufValueType::String);
    CHECK(tokens->count == 3);
    REQUIRE(r->tensors.size() == 6);
    CHECK(r->tensors[0].type == GgmlType::Q4_K);
    CHECK(r->tensors[0].bytes == 4608);
    CHECK(r->tensors[1].bytes == 53760);
    CHECK(r->tensors[3].bytes == 6);
    CHECK(r->tensors[4].type == GgmlType::Q8_0);
    CHECK(r->tensors[4].bytes == 8704);
    CHECK(r->tensors[5].type == GgmlType::IQ4_XS);
    CHECK(r->tensors[5].bytes == 544);
    CHECK(r->data_bytes == 68672);
    CHECK(r->data_offset % 32 == 0);
    CHECK(r->file_bytes() == file.size());
    const std::vector<GgmlTypeCount> by = count_by_ggml_type(*r);
    REQUIRE(by.size() == 6);
    CHECK(by[0].type == GgmlType::F32);
    CHECK(by[0].elements == 256);
    uint64_t params = 0;
    for (const GgmlTypeCount& c : by) params += c.elements;
    CHECK(params == 8192 + 65536 + 256 + 3 + 8192 + 1024);
    // Per layer: blk.0 = attn_q 53760 + attn_norm 1024 + small 6 + ffn_down 544; token_embd and output apart.
    const GgufTensorBytes layers = gguf_bytes_by_layer(*r);
    REQUIRE(layers.layers.size() == 1);
    CHECK(layers.layers[0] == 53760 + 1024 + 6 + 544);
    CHECK(layers.token_embd == 4608);
    CHECK(layers.output == 8704);
    CHECK(layers.other == 0);
    // The header alone (no data) reads the same, without the file size.
    Result<GgufHeader> h = read_gguf_header(w.header());
    REQUIRE(h.ok());
    CHECK(h->file_bytes() == file.size());
    // Version 2 has the same layout.
    std::string v2 = file;
    v2[4] = 2;
    CHECK(read_gguf_header(v2, v2.size()).ok());
}

TEST_CASE("GGUF: the routed experts' tensors of each block are counted apart, as --n-cpu-moe moves them", "[checkpoint]") {
    // blk.0.ffn_gate_exps Q4_K [256, 512, 4]: 524288 weights = 2048 blocks x 144 = 294912 B;
    // blk.0.ffn_down_exps Q6_K [512, 256, 4]: 2048 blocks x 210 = 430080 B; attn_norm F32 [256] 1024 B
    // in both blocks; blk.1 has no experts.
    GgufWriter w;
    w.string("general.architecture", "llama");
    w.tensor("blk.0.attn_norm.weight", {256}, 0, 1024);
    w.tensor("blk.0.ffn_gate_exps.weight", {256, 512, 4}, 12, 294912);
    w.tensor("blk.0.ffn_down_exps.weight", {512, 256, 4}, 14, 430080);
    w.tensor("blk.1.attn_norm.weight", {256}, 0, 1024);
    Result<GgufHeader> h = read_gguf_header(w.header());
    REQUIRE(h.ok());
    const GgufTensorBytes b = gguf_bytes_by_layer(*h);
    CHECK(b.layers == std::vector<uint64_t>{1024 + 294912 + 430080, 1024});
    CHECK(b.experts == std::vector<uint64_t>{294912 + 430080, 0});
    // A dense file has none.
    CHECK(gguf_bytes_by_layer(*read_gguf_header(vl::test::two_block_gguf().header())).experts.empty());
}

TEST_CASE("GGUF: the GGML type table has every type's block as ggml-common.h declares it", "[checkpoint]") {
    // (id, weights per block, bytes per block), from the block structs' static_asserts [llama-cpp-code]
    struct Row { uint32_t id, weights, bytes; };
    const Row rows[] = {{0, 1, 4},      {1, 1, 2},      {2, 32, 18},    {3, 32, 20},    {6, 32, 22},   {7, 32, 24},  {8, 32, 34},
                        {9, 32, 36},    {10, 256, 84},  {11, 256, 110}, {12, 256, 144}, {13, 256, 176}, {14, 256, 210}, {15, 256, 292},
                        {16, 256, 66},  {17, 256, 74},  {18, 256, 98},  {19, 256, 50},  {20, 32, 18},  {21, 256, 110}, {22, 256, 82},
                        {23, 256, 136}, {24, 1, 1},     {25, 1, 2},     {26, 1, 4},     {27, 1, 8},    {28, 1, 8},   {29, 256, 56},
                        {30, 1, 2},     {34, 256, 54},  {35, 256, 66},  {39, 32, 17}};
    CHECK(std::size(rows) == kGgmlTypeCount);
    for (const Row& row : rows) {
        INFO(row.id);
        const GgmlTypeInfo* t = ggml_type_by_id(row.id);
        REQUIRE(t);
        CHECK(t->block_weights == row.weights);
        CHECK(t->block_bytes == row.bytes);
        CHECK(ggml_bits_per_weight(t->type) == row.bytes * 8.0 / row.weights);
    }
    for (uint32_t removed : {4u, 5u, 31u, 32u, 33u, 36u, 37u, 38u, 40u}) CHECK(ggml_type_by_id(removed) == nullptr);
}

TEST_CASE("GGUF: every malformed header is an error naming what is wrong", "[checkpoint]") {
    auto error_of = [](const std::string& bytes, std::optional<uint64_t> size = std::nullopt, bool* truncated = nullptr) {
        Result<GgufHeader> r = read_gguf_header(bytes, size, truncated);
        REQUIRE_FALSE(r.ok());
        REQUIRE(r.errors.size() == 1);
        return to_string(r.errors.front());
    };
    const std::string good = tiny_gguf().file();
    CHECK(error_of("GGML" + good.substr(4)) == "magic: the file does not start with \"GGUF\": it is not a GGUF file");
    std::string v1 = good;
    v1[4] = 1;
    CHECK(error_of(v1) == "version: is 1; GGUF versions 2 and 3 are read (version 1 is no longer supported by llama.cpp: convert the model again)");
    v1[4] = 4;
    CHECK(error_of(v1) == "version: is 4; GGUF versions 2 and 3 are read");
    // Truncated inside the header: the caller may read more of the file.
    bool truncated = false;
    CHECK(error_of(good.substr(0, 100), std::nullopt, &truncated).find("gguf: the header ends early:") == 0);
    CHECK(truncated);
    // ...but not past the end of the file it has.
    const std::string short_file = good.substr(0, 100);
    CHECK(error_of(short_file, short_file.size(), &truncated).find("past the end of the file (100 bytes)") != std::string::npos);
    CHECK_FALSE(truncated);
    // A huge metadata count, a huge string length.
    {
        std::string f = "GGUF";
        vl::test::put_le(f, 3, 4);
        vl::test::put_le(f, 0, 8);
        vl::test::put_le(f, uint64_t{1} << 62, 8);
        f += std::string(64, '\0');
        CHECK(error_of(f, f.size()).find("gguf: 4,611,686,018,427,387,904 metadata pairs needs") == 0);
        GgufWriter w;
        w.string("general.architecture", "llama");
        std::string g = w.header();
        g[24] = '\xff';  // the key's length: its low byte
        g[31] = '\x7f';
        CHECK(error_of(g).find("metadata[0]: metadata key 0 is ") == 0);
    }
    auto with_tensor = [](const std::vector<uint64_t>& dims, uint32_t type, const std::string& name = "t") {
        GgufWriter w;
        w.tensor(name, dims, type, 0);
        return w.header();
    };
    CHECK(error_of(with_tensor({32}, 4)) == "t.type: is GGML type 4, which is not a GGML type this reader knows (or one llama.cpp removed)");
    CHECK(error_of(with_tensor({100, 2}, 12)) == "t.dims: rows of 100 elements are not a whole number of Q4_K blocks of 256");
    CHECK(error_of(with_tensor({1, 1, 1, 1, 1}, 0)) == "t.n_dims: is 5; a GGML tensor has at most 4 dimensions");
    CHECK(error_of(with_tensor({uint64_t{1} << 32, uint64_t{1} << 32}, 0)) == "t.dims: overflow: the tensor would hold more than 2^63 elements");
    CHECK(error_of(with_tensor({32}, 0, std::string(64, 'n'))) == "tensors[0].name: is 64 bytes; a GGML tensor name is shorter than 64");
    {
        GgufWriter w;
        w.tensor("a", {8}, 0, 32);
        w.tensor("a", {8}, 0, 32);
        CHECK(error_of(w.header()) == "tensors[1].name: \"a\" is named twice: tensor names are unique");
    }
    {
        GgufWriter w;
        w.tensor("a", {8}, 0, 32);
        w.data_bytes = 64;  // the next tensor's offset is wrong: 64, not 32
        w.tensor("b", {8}, 0, 32);
        CHECK(error_of(w.header()) == "b.offset: is 64; expected 32: tensors follow each other in order, each padded to 32 bytes");
    }
    {
        GgufWriter w;
        w.u32("general.alignment", 48);
        CHECK(error_of(w.header()) == "general.alignment: is 48; it must be a power of 2");
        GgufWriter d;
        d.u32("x", 1);
        d.u32("x", 2);
        CHECK(error_of(d.header()) == "x: is written twice: metadata keys are unique");
        GgufWriter empty;  // found by fuzz_checkpoint: an empty key is named by its place
        empty.u32("", 1);
        empty.u32("", 2);
        CHECK(error_of(empty.header()) == "metadata[1]: is written twice: metadata keys are unique");
        GgufWriter a;
        a.key("arr", 9);
        vl::test::put_le(a.kv, 9, 4);
        vl::test::put_le(a.kv, 1, 8);
        CHECK(error_of(a.header()) == "arr: is an array of arrays, which GGUF does not allow");
        GgufWriter t;
        t.key("k", 13);
        CHECK(error_of(t.header()) == "k: has value type 13; GGUF value types are 0 to 12");
    }
    // The file ends before its tensors do.
    const int64_t size = static_cast<int64_t>(good.size());
    CHECK(error_of(good, good.size() - 1) == "gguf: the tensors end at byte " + group_thousands(size) + " but the file has " +
                                                 group_thousands(size - 1) + " bytes: the file is truncated");
}

TEST_CASE("quantization_config: the method, bits and group size, and the vramlens weight format", "[checkpoint]") {
    auto read = [](const std::string& q) {
        Result<std::optional<QuantConfig>> r = read_quantization_config("{\"model_type\": \"llama\", \"quantization_config\": " + q + "}");
        INFO(errors_of(r));
        REQUIRE(r.ok());
        REQUIRE(r->has_value());
        return **r;
    };
    QuantConfig awq = read(R"({"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": true, "version": "gemm"})");
    CHECK(awq.format == WeightFormat::AWQ4);
    CHECK(awq.group_size == 128);
    CHECK(awq.description == "AWQ 4-bit, group size 128");
    QuantConfig gptq = read(R"({"quant_method": "gptq", "bits": 4, "group_size": -1, "desc_act": true})");
    CHECK(gptq.format == WeightFormat::GPTQ4);
    CHECK(gptq.description == "GPTQ 4-bit, one scale per output channel");
    QuantConfig gptq8 = read(R"({"quant_method": "gptq", "bits": 8, "group_size": 128})");
    CHECK(gptq8.format == WeightFormat::GPTQ8);  // AutoGPTQ QuantLinear: bits 2, 3, 4 or 8 [autogptq-code]
    CHECK(gptq8.bits == 8);
    CHECK(read(R"({"quant_method": "gptq", "bits": 3, "group_size": 128})").format == WeightFormat::GPTQ3);
    CHECK(read(R"({"quant_method": "gptq", "bits": 2, "group_size": 64})").format == WeightFormat::GPTQ2);
    CHECK_FALSE(read(R"({"quant_method": "awq", "bits": 8, "group_size": 128})").format);  // AutoAWQ: 4 bits only
    CHECK(read(R"({"quant_method": "bitsandbytes", "load_in_4bit": true, "bnb_4bit_quant_type": "nf4"})").format == WeightFormat::NF4);
    CHECK(read(R"({"load_in_4bit": true})").format == WeightFormat::FP4);  // BitsAndBytesConfig's default quant type
    CHECK(read(R"({"quant_method": "bitsandbytes", "load_in_8bit": true, "llm_int8_skip_modules": ["lm_head"]})").format == WeightFormat::INT8);
    QuantConfig fp8 = read(R"({"quant_method": "fp8", "fmt": "e4m3", "weight_block_size": [128, 128]})");
    CHECK(fp8.format == WeightFormat::FP8);
    CHECK(fp8.group_size == 128 * 128);
    QuantConfig ct = read(R"({"quant_method": "compressed-tensors", "format": "float-quantized", "ignore": ["lm_head"],
        "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 8, "type": "float", "strategy": "channel"}}}})");
    CHECK(ct.format == WeightFormat::FP8);
    REQUIRE(ct.not_quantized.size() == 1);
    CHECK(ct.not_quantized[0] == "lm_head");
    QuantConfig mx = read(R"({"quant_method": "mxfp4", "modules_to_not_convert": ["model.layers.*.self_attn", "lm_head"]})");
    CHECK(mx.bits == 4);
    CHECK(mx.format == WeightFormat::MXFP4);
    // No quantization_config: nothing, no error.
    Result<std::optional<QuantConfig>> none = read_quantization_config(R"({"model_type": "llama"})");
    REQUIRE(none.ok());
    CHECK_FALSE(none->has_value());
    auto error_of = [](const std::string& q) {
        Result<std::optional<QuantConfig>> r = read_quantization_config("{\"quantization_config\": " + q + "}");
        REQUIRE_FALSE(r.ok());
        return to_string(r.errors.front());
    };
    CHECK(error_of(R"({"quant_method": "gptq", "bits": 40})") == "quantization_config.bits: must be a whole number from 1 to 16; got 40");
    CHECK(error_of(R"({"quant_method": "awq"})") == "quantization_config.bits: is missing: the bits of a quantized weight (e.g. 4)");
    CHECK(error_of(R"({"bits": 4})").find("quantization_config.quant_method: is missing") == 0);
    CHECK(error_of(R"({"quant_method": "bitsandbytes", "load_in_4bit": true, "load_in_8bit": true})") ==
          "quantization_config.load_in_4bit: exactly one of load_in_4bit and load_in_8bit must be true");
    CHECK(error_of(R"({"quant_method": "bitsandbytes", "load_in_4bit": true, "bnb_4bit_quant_type": "nf3"})") ==
          "quantization_config.bnb_4bit_quant_type: must be \"nf4\" or \"fp4\"; got \"nf3\"");
    CHECK(error_of("[1]") == "quantization_config: must be an object; got array");
}

TEST_CASE("quantized and kept tensors are counted apart: packed weights hold storage bits / weight bits parameters", "[checkpoint]") {
    // AWQ 4-bit down_proj, in 64, out 128, group 64: qweight I32 [64, 16] = 1024 elements (8 weights
    // each: 8192 = 64 x 128), qzeros I32 [1, 16], scales F16 [1, 128]; embedding F16 [32, 8] kept.
    const std::string header = R"({
      "model.layers.0.mlp.down_proj.qweight": {"dtype": "I32", "shape": [64, 16], "data_offsets": [0, 4096]},
      "model.layers.0.mlp.down_proj.qzeros": {"dtype": "I32", "shape": [1, 16], "data_offsets": [4096, 4160]},
      "model.layers.0.mlp.down_proj.scales": {"dtype": "F16", "shape": [1, 128], "data_offsets": [4160, 4416]},
      "model.embed_tokens.weight": {"dtype": "F16", "shape": [32, 8], "data_offsets": [4416, 4928]}})";
    Result<SafetensorsHeader> h = read_safetensors_header(safetensors_file(header, 4928));
    REQUIRE(h.ok());
    QuantConfig q;
    q.method = "awq";
    q.bits = 4;
    const QuantizedSplit s = split_quantized({*h}, q);
    CHECK(s.quantized_tensors == 1);
    CHECK(s.quantized_params == 64 * 128);
    CHECK(s.aux_tensors == 2);
    CHECK(s.quantized_bytes == 4096 + 64 + 256);
    CHECK(s.kept_tensors == 1);
    CHECK(s.kept_params == 32 * 8);
    CHECK(s.kept_bytes == 512);
}

TEST_CASE("adapter_config.json: LoRA rank and targets on the named base model", "[checkpoint]") {
    Result<AdapterConfig> a = read_adapter_config(R"({"peft_type": "LORA", "base_model_name_or_path": "meta-llama/Llama-3.1-8B",
        "r": 64, "lora_alpha": 16, "target_modules": ["q_proj", "v_proj", "model.layers.0.mlp.down_proj", "embed_tokens"]})");
    INFO(errors_of(a));
    REQUIRE(a.ok());
    CHECK(a->base_model == "meta-llama/Llama-3.1-8B");
    CHECK(a->rank == 64);
    CHECK(a->alpha == 16);
    CHECK(a->lora_targets == (kLoraQ | kLoraV | kLoraDown));
    REQUIRE(a.warnings.size() == 1);
    CHECK(a.warnings[0] == "target_modules embed_tokens are not modules vramlens sizes (q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj, in_proj, x_proj, dt_proj, out_proj, in_proj_qkvz, in_proj_ba, in_proj_qkv, in_proj_z, in_proj_b, in_proj_a): not counted");
    Result<AdapterConfig> all = read_adapter_config(R"({"peft_type": "LORA", "r": 8, "target_modules": "all-linear"})");
    REQUIRE(all.ok());
    CHECK(all->lora_targets == kLoraAllLinear);
    auto error_of = [](const std::string& text) {
        Result<AdapterConfig> r = read_adapter_config(text);
        REQUIRE_FALSE(r.ok());
        return to_string(r.errors.front());
    };
    CHECK(error_of(R"({"peft_type": "IA3"})") == "peft_type: is \"IA3\"; only LoRA adapters (\"LORA\") are read");
    CHECK(error_of(R"({"peft_type": "LORA", "r": 0})") == "r: must be a whole number from 1 to 1048576; got 0");
    CHECK(error_of(R"({"peft_type": "LORA", "r": 8, "target_modules": ".*proj"})") ==
          "target_modules: is the pattern \".*proj\"; a list of module names or \"all-linear\" is read");
    CHECK(error_of(R"({"peft_type": "LORA", "r": 8, "target_modules": ["wte"]})") ==
          "target_modules: names no module vramlens sizes (q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj, in_proj, x_proj, dt_proj, out_proj, in_proj_qkvz, in_proj_ba, in_proj_qkv, in_proj_z, in_proj_b, in_proj_a)");
}

TEST_CASE("GGUF: the model from its metadata, as a config.json the importer reads", "[checkpoint]") {
    GgufWriter w = tiny_gguf();
    w.u32("llama.feed_forward_length", 512);
    Result<GgufHeader> h = read_gguf_header(w.file());
    REQUIRE(h.ok());
    Result<std::string> c = gguf_hf_config(*h);
    INFO(errors_of(c));
    REQUIRE(c.ok());
    Result<ModelSpec> m = import_hf_config(*c);
    INFO(errors_of(m));
    REQUIRE(m.ok());
    CHECK(m->model_type == "llama");
    CHECK(m->hidden == 256);
    CHECK(m->layers == 1);
    CHECK(m->heads == 4);
    CHECK(m->kv_heads == 2);
    CHECK(m->ffn == 512);
    CHECK(m->vocab == 3);  // tokenizer.ggml.tokens holds 3
    CHECK_FALSE(m->tied_embeddings);  // output.weight is there
    GgufWriter other;
    other.string("general.architecture", "rwkv6");
    Result<GgufHeader> o = read_gguf_header(other.header());
    REQUIRE(o.ok());
    Result<std::string> e = gguf_hf_config(*o);
    REQUIRE_FALSE(e.ok());
    CHECK(to_string(e.errors[0]).find("general.architecture: is \"rwkv6\"; a model is built from the GGUF metadata of llama, qwen2,") == 0);
    GgufWriter partial;
    partial.string("general.architecture", "qwen2");
    Result<GgufHeader> p = read_gguf_header(partial.header());
    REQUIRE(p.ok());
    CHECK(to_string(gguf_hf_config(*p).errors[0]) == "qwen2.embedding_length: is missing (or not a whole number): the model's hidden_size is not known");
}

// ---- import_checkpoint: the files together, as the CLI and the web page hand them over --------

namespace {

// A llama of hidden 8, one layer, 2 heads of 4 (no GQA), MLP 16, vocabulary 32, untied.
// Parameters: embedding 32 x 8 = 256; q, k, v, o 4 x 8 x 8 = 256; gate, up, down 3 x 8 x 16 = 384;
// two layer norms 2 x 8 = 16 and the final norm 8; lm_head 32 x 8 = 256. Total 1176.
const std::string kTinyLlama = R"({"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 8,
  "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 2, "intermediate_size": 16,
  "vocab_size": 32, "max_position_embeddings": 128, "tie_word_embeddings": false)";

std::string tiny_config(const std::string& extra = "") { return kTinyLlama + extra + "}"; }

// The tiny Llama's config.json with one safetensors shard of this header and data size.
CheckpointFiles tiny_files(const std::string& header, uint64_t data_bytes) {
    const std::string file = safetensors_file(header, data_bytes);
    Result<SafetensorsHeader> h = read_safetensors_header(file, file.size());
    REQUIRE(h.ok());
    CheckpointFiles f;
    f.config_text = tiny_config();
    f.shards.push_back({"model.safetensors", file.size(), *h});
    return f;
}

}  // namespace

TEST_CASE("import_checkpoint: safetensors without the untied lm_head are an embedder's base model", "[checkpoint]") {
    // The tiny Llama counts 1176 parameters, 256 of them its untied lm_head [32, 8]; a checkpoint of the other 920
    // (the base model, as Qwen3-Embedding ships it) is read as an embedder.
    Result<CheckpointImport> r = import_checkpoint(tiny_files(R"({"weights": {"dtype": "BF16", "shape": [920], "data_offsets": [0, 1840]}})", 1840));
    REQUIRE(r.ok());
    CHECK(r->model->embedder);
    CHECK(r->params->total == 920);
    CHECK(r->params->lm_head == 0);
    // With the lm_head's 256 as well: the causal LM.
    r = import_checkpoint(tiny_files(R"({"weights": {"dtype": "BF16", "shape": [1176], "data_offsets": [0, 2352]}})", 2352));
    REQUIRE(r.ok());
    CHECK_FALSE(r->model->embedder);
}

TEST_CASE("import_checkpoint: a tied head the checkpoint stores too is loaded twice by transformers (infer.untied_head_on_load)", "[checkpoint]") {
    // The tiny Llama with tie_word_embeddings true, saved as AutoAWQ <= 0.2.6 saves: lm_head.weight beside the embedding.
    std::string tied = kTinyLlama;
    const std::string untied_key = R"("tie_word_embeddings": false)";
    tied.replace(tied.find(untied_key), untied_key.size(), R"("tie_word_embeddings": true)");
    CheckpointFiles f = tiny_files(kHeader, 1184);
    f.config_text = tied + "}";
    Result<CheckpointImport> r = import_checkpoint(f);
    INFO(errors_of(r));
    REQUIRE(r.ok());
    REQUIRE(r->model->tied_embeddings);
    CHECK(r->safetensors->head_tensor);
    Scenario s;
    s.mode = Mode::Infer;
    const std::vector<std::string> changes = apply_checkpoint_import(*r, s);
    CHECK(s.infer.untied_head_on_load);
    CHECK(std::any_of(changes.begin(), changes.end(), [](const std::string& c) { return c.starts_with("infer.untied_head_on_load"); }));
    // vLLM skips the tied head's tensor: nothing to set there.
    Scenario v;
    v.mode = Mode::Infer;
    v.infer.engine = Engine::VLLM;
    apply_checkpoint_import(*r, v);
    CHECK_FALSE(v.infer.untied_head_on_load);
    // Without lm_head.weight in the checkpoint (transformers' save_pretrained drops tied tensors): not set.
    CheckpointFiles g = tiny_files(R"({"model.embed_tokens.weight": {"dtype": "BF16", "shape": [32, 8], "data_offsets": [0, 512]}})", 512);
    g.config_text = tied + "}";
    Scenario t;
    t.mode = Mode::Infer;
    apply_checkpoint_import(*import_checkpoint(g), t);
    CHECK_FALSE(t.infer.untied_head_on_load);
}

TEST_CASE("import_checkpoint: config, quantization, headers and size together, applied to a scenario", "[checkpoint]") {
    // The AWQ header of the split test above: one 4-bit down_proj (8192 parameters) with its qzeros
    // and scales, and an F16 embedding kept (256 parameters); 4928 bytes of tensors.
    const std::string header = R"({
      "model.layers.0.mlp.down_proj.qweight": {"dtype": "I32", "shape": [64, 16], "data_offsets": [0, 4096]},
      "model.layers.0.mlp.down_proj.qzeros": {"dtype": "I32", "shape": [1, 16], "data_offsets": [4096, 4160]},
      "model.layers.0.mlp.down_proj.scales": {"dtype": "F16", "shape": [1, 128], "data_offsets": [4160, 4416]},
      "model.embed_tokens.weight": {"dtype": "F16", "shape": [32, 8], "data_offsets": [4416, 4928]}})";
    const std::string file = safetensors_file(header, 4928);
    Result<SafetensorsHeader> h = read_safetensors_header(file, file.size());
    REQUIRE(h.ok());
    CheckpointFiles f;
    f.config_text = tiny_config(R"(, "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 64, "version": "gemm"})");
    f.shards.push_back({"model.safetensors", file.size(), *h});
    Result<CheckpointImport> r = import_checkpoint(f);
    INFO(errors_of(r));
    REQUIRE(r.ok());
    REQUIRE(r->model);
    CHECK(r->model->hidden == 8);
    CHECK(r->params->total == 1176);
    CHECK(r->params->embedding == 256);
    REQUIRE(r->quantization);
    CHECK(r->quantization->format == WeightFormat::AWQ4);
    REQUIRE(r->safetensors);
    CHECK(r->safetensors->files == 1);
    CHECK(r->safetensors->tensors == 4);
    CHECK(r->safetensors->elements == 1024 + 16 + 128 + 256);
    CHECK(r->safetensors->tensor_bytes == 4928);
    CHECK(r->safetensors->file_bytes == 8 + header.size() + 4928);
    CHECK(r->safetensors->complete);
    REQUIRE(r->safetensors->quantized);
    CHECK(r->safetensors->quantized->quantized_params == 64 * 128);
    CHECK(r->safetensors->quantized->kept_params == 32 * 8);
    CHECK_FALSE(r->gguf);
    CHECK_FALSE(r->adapter);

    Scenario s;
    s.mode = Mode::Infer;
    const std::vector<std::string> changes = apply_checkpoint_import(*r, s);
    CHECK(s.model.hidden == 8);
    CHECK(s.infer.weights == WeightFormat::AWQ4);
    CHECK(s.infer.group_size == 64);
    CHECK(s.mode == Mode::Infer);
    CHECK(changes.size() == 3);

    // An index naming a shard that was not read: the size is not the checkpoint's.
    f.index = SafetensorsIndex{};
    f.missing_shards = {"model-00002-of-00002.safetensors"};
    CHECK_FALSE(import_checkpoint(f)->safetensors->complete);
}

TEST_CASE("import_checkpoint: a LoRA adapter sets fine-tuning with its rank and targets", "[checkpoint]") {
    CheckpointFiles f;
    f.config_text = tiny_config();
    f.adapter_text = R"({"peft_type": "LORA", "base_model_name_or_path": "acme/tiny", "r": 32, "lora_alpha": 64,
                         "target_modules": ["q_proj", "k_proj", "v_proj", "o_proj"]})";
    Result<CheckpointImport> r = import_checkpoint(f);
    INFO(errors_of(r));
    REQUIRE(r.ok());
    REQUIRE(r->adapter);
    CHECK(r->adapter->base_model == "acme/tiny");
    CHECK_FALSE(r->safetensors);
    Scenario s;
    s.mode = Mode::Infer;
    apply_checkpoint_import(*r, s);
    CHECK(s.mode == Mode::FineTune);
    CHECK(s.finetune.method == FineTuneMethod::LoRA);
    CHECK(s.finetune.lora_rank == 32);
    CHECK(s.finetune.lora_targets == kLoraAttention);
    CHECK(s.infer.weights == WeightFormat::BF16);  // no quantization_config and no tensors read: left as it was
}

TEST_CASE("import_checkpoint: a GGUF's general.file_type is its llama.cpp weight format", "[checkpoint]") {
    // llama.h: LLAMA_FTYPE_MOSTLY_Q4_K_M = 15, Q8_0 = 7, Q4_1 = 3, Q5_0 = 8, Q5_1 = 9, Q4_K_S = 14, Q5_K_S = 16;
    // 11 (Q3_K_S) has no vramlens format.
    for (const auto& [ftype, want] : {std::pair<uint32_t, std::optional<WeightFormat>>{15, WeightFormat::GGUF_Q4_K_M},
                                      {7, WeightFormat::GGUF_Q8_0}, {3, WeightFormat::GGUF_Q4_1}, {8, WeightFormat::GGUF_Q5_0},
                                      {9, WeightFormat::GGUF_Q5_1}, {14, WeightFormat::GGUF_Q4_K_S}, {16, WeightFormat::GGUF_Q5_K_S},
                                      {11, std::nullopt}}) {
        INFO("general.file_type " << ftype);
        GgufWriter w = tiny_gguf();
        w.u32("llama.feed_forward_length", 512);
        w.u32("general.file_type", ftype);
        Result<GgufHeader> h = read_gguf_header(w.file());
        REQUIRE(h.ok());
        CheckpointFiles f;
        f.gguf = *h;
        Result<CheckpointImport> r = import_checkpoint(f);
        REQUIRE(r.ok());
        Scenario s;
        apply_checkpoint_import(*r, s);
        CHECK(s.infer.weights == want.value_or(WeightFormat::BF16));
        CHECK(s.infer.engine == (want ? Engine::LlamaCpp : Engine::Transformers));
    }
}

TEST_CASE("import_checkpoint: a GGUF's tensor bytes by block become model.gguf_bytes, and llama.cpp's weights are the file's", "[checkpoint]") {
    Result<CheckpointImport> r = import_checkpoint(gguf_files(vl::test::two_block_gguf().file()));
    INFO(errors_of(r));
    REQUIRE(r.ok());
    Scenario s;
    s.mode = Mode::Infer;
    s.infer.context = 256;
    const std::vector<std::string> changes = apply_checkpoint_import(*r, s);
    CHECK(std::find(changes.begin(), changes.end(), "weights: the GGUF file's tensor bytes (2 blocks)") != changes.end());
    // Hand sums in tests/checkpoint_files.h: the blocks differ (blk.0's ffn_down is Q6_K, blk.1's Q4_K).
    const GgufTensorBytes& g = s.model.gguf_bytes;
    CHECK(g.layers == std::vector<uint64_t>{376064, 342272});
    CHECK(g.token_embd == 4608);
    CHECK(g.output == 6720);
    CHECK(g.other == 1024);  // output_norm
    CHECK(g.type == WeightFormat::GGUF_Q4_K_M);  // general.file_type 15
    // The bytes record the file's type: the same tensors labelled file_type 7 are a Q8_0 file's.
    Scenario s8;
    apply_checkpoint_import(*import_checkpoint(gguf_files(vl::test::two_block_gguf(7).file())), s8);
    CHECK(s8.model.gguf_bytes.type == WeightFormat::GGUF_Q8_0);
    CHECK(s8.infer.weights == WeightFormat::GGUF_Q8_0);
    REQUIRE(s.model.layers == 2);
    REQUIRE(s.infer.engine == Engine::LlamaCpp);
    REQUIRE(s.infer.weights == WeightFormat::GGUF_Q4_K_M);
    // The estimate's weights are the file's: the blocks 376064 + 342272 = 718336 B, token_embd on
    // the host, output and output_norm on the GPU; the formula names each block.
    const Estimate e = estimate(s, Detail::Full);
    REQUIRE(e.ok());
    auto find_in = [](const Estimate& est, const char* id) -> const Component* {
        for (const Component& c : est.components)
            if (std::string(c.id) == id) return &c;
        return nullptr;
    };
    auto find = [&](const char* id) { return find_in(e, id); };
    const Component* linear = find("weights.linear");
    REQUIRE(linear);
    CHECK(linear->bytes == 718336);
    CHECK(linear->formula() == "blk.0 + blk.1");
    CHECK(linear->substituted() == "376,064 + 342,272 = 718,336 B");
    CHECK_THAT(std::string(linear->source), Catch::Contains("GGUF file's tensor table") && Catch::Contains("[gguf-spec]"));
    const Component* embd = find("weights.embedding");
    REQUIRE(embd);
    CHECK(embd->bytes == 4608);
    CHECK(embd->host);
    REQUIRE(find("weights.lm_head"));
    CHECK(find("weights.lm_head")->bytes == 6720);
    CHECK(find("weights.lm_head")->formula() == "output");
    REQUIRE(find("weights.norms"));
    CHECK(find("weights.norms")->bytes == 1024);
    // The file's bytes, whatever the format's rules would say: the same scenario without them differs.
    Scenario rules = s;
    rules.model.gguf_bytes = {};
    const Estimate by_rules = estimate(rules);
    REQUIRE(find_in(by_rules, "weights.linear"));
    CHECK(find_in(by_rules, "weights.linear")->bytes != 718336);
}

TEST_CASE("import_checkpoint: a checkpoint without quantization_config is in the float dtype holding most of its parameters") {
    // F16 [32, 8] = 256 elements and F32 [8] = 8: the weights are F16, whatever the scenario had before.
    const std::string header = R"({"model.embed_tokens.weight": {"dtype": "F16", "shape": [32, 8], "data_offsets": [0, 512]},
      "model.norm.weight": {"dtype": "F32", "shape": [8], "data_offsets": [512, 544]}})";
    Result<CheckpointImport> r = import_checkpoint(tiny_files(header, 544));
    REQUIRE(r.ok());
    Scenario s;
    s.infer.weights = WeightFormat::FP8;  // from an earlier import
    apply_checkpoint_import(*r, s);
    CHECK(s.infer.weights == WeightFormat::FP16);
}

TEST_CASE("import_checkpoint: the failing file is named and its errors are its own", "[checkpoint]") {
    CheckpointPart failed = CheckpointPart::Adapter;
    CheckpointFiles f;
    f.config_text = R"({"model_type": "llama", "hidden_size": 8})";
    Result<CheckpointImport> r = import_checkpoint(f, &failed);
    REQUIRE_FALSE(r.ok());
    CHECK(failed == CheckpointPart::Config);
    f.config_text = tiny_config(R"(, "quantization_config": {"quant_method": "gptq", "bits": 0})");
    r = import_checkpoint(f, &failed);
    REQUIRE_FALSE(r.ok());
    CHECK(failed == CheckpointPart::Quantization);
    CHECK(r.errors.front().field.rfind("quantization_config.", 0) == 0);
    f.config_text = tiny_config();
    f.adapter_text = R"({"peft_type": "IA3"})";
    r = import_checkpoint(f, &failed);
    REQUIRE_FALSE(r.ok());
    CHECK(failed == CheckpointPart::Adapter);
    CHECK(to_string(r.errors.front()) == "peft_type: is \"IA3\"; only LoRA adapters (\"LORA\") are read");
}

TEST_CASE("import_checkpoint: a GGUF gives the model from its metadata, or a warning and its tensors still counted", "[checkpoint]") {
    GgufWriter w = tiny_gguf();
    w.u32("llama.feed_forward_length", 512);
    const std::string file = w.file();
    CheckpointFiles f = gguf_files(file);
    Result<CheckpointImport> r = import_checkpoint(f);
    INFO(errors_of(r));
    REQUIRE(r.ok());
    REQUIRE(r->model);
    CHECK(r->model->hidden == 256);
    REQUIRE(r->gguf);
    CHECK(r->gguf->file_bytes == file.size());
    CHECK(r->gguf->tensors == f.gguf->tensors.size());
    GgufWriter other;
    other.string("general.architecture", "rwkv6");
    Result<GgufHeader> o = read_gguf_header(other.header());
    REQUIRE(o.ok());
    f.gguf = *o;
    r = import_checkpoint(f);
    REQUIRE(r.ok());
    CHECK_FALSE(r->model);
    REQUIRE(r.warnings.size() == 1);
    CHECK(r.warnings[0].rfind("the GGUF metadata gives no model: general.architecture: is \"rwkv6\"", 0) == 0);
}

TEST_CASE("GGUF: per-layer head counts (integer arrays, one value per block) are read, and equal values are the model's", "[checkpoint]") {
    // llama.cpp may write <arch>.attention.head_count(_kv) as one value per block [llama-cpp-code].
    GgufWriter w;
    w.string("general.architecture", "llama");
    w.u32("llama.block_count", 3);
    w.u64("llama.embedding_length", 256);
    w.i32s("llama.attention.head_count", {4, 4, 4});
    w.i32s("llama.attention.head_count_kv", {2, 2, 2});
    w.strings("tokenizer.ggml.tokens", {"a", "b"});
    Result<GgufHeader> h = read_gguf_header(w.header());
    REQUIRE(h.ok());
    const GgufKv* kv = h->find("llama.attention.head_count_kv");
    REQUIRE(kv != nullptr);
    CHECK(kv->count == 3);
    CHECK(kv->integers == std::vector<int64_t>{2, 2, 2});
    CHECK(h->arch_value("attention.head_count") == 4u);
    CHECK(h->arch_value("attention.head_count_kv") == 2u);
    Result<std::string> c = gguf_hf_config(*h);
    INFO(errors_of(c));
    REQUIRE(c.ok());
    Result<ModelSpec> m = import_hf_config(*c);
    INFO(errors_of(m));
    REQUIRE(m.ok());
    CHECK(m->heads == 4);
    CHECK(m->kv_heads == 2);

    // Counts that differ between layers (variable GQA; 0 for a block without attention): named, not guessed.
    GgufWriter v;
    v.string("general.architecture", "llama");
    v.u32("llama.block_count", 3);
    v.u64("llama.embedding_length", 256);
    v.u32("llama.attention.head_count", 4);
    v.i32s("llama.attention.head_count_kv", {2, 0, 1});
    v.strings("tokenizer.ggml.tokens", {"a", "b"});
    Result<GgufHeader> vh = read_gguf_header(v.header());
    REQUIRE(vh.ok());
    CHECK_FALSE(vh->arch_value("attention.head_count_kv").has_value());
    Result<std::string> vc = gguf_hf_config(*vh);
    REQUIRE_FALSE(vc.ok());
    CHECK(to_string(vc.errors[0]) ==
          "llama.attention.head_count_kv: differs between layers ([2, 0, 1]): vramlens models one num_key_value_heads for every layer");
}
