// libFuzzer target: checkpoint headers (issue 17). The first byte picks the reader, the rest is its
// input: 0 safetensors header (core/model/safetensors.h), 1 GGUF header (core/model/gguf.h),
// 2 model.safetensors.index.json, 3 config.json's quantization_config, 4 adapter_config.json
// (core/model/checkpoint_config.h). Seeds: fuzz/seeds/checkpoint/ (small files of each kind, laid out
// as tests/checkpoint_files.h writes them, each after its reader's byte).
// Checked beyond "no crash": a rejection names a field; an accepted header is consistent (every
// tensor inside the data it counts, sizes from shapes and types, counts by type summing to the whole).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_checks.h"
#include "model/checkpoint_config.h"
#include "model/gguf.h"
#include "model/safetensors.h"

namespace {

template <class T>
void check_result(const vl::Result<T>& r, const char* where) {
    vl::fuzz::check_expected_error(r.errors, where);
    if (!r.ok()) vl::fuzz::check_errors_named(r.errors, where);
}

void safetensors(std::string_view in) {
    using namespace vl;
    // As the CLI reads it: the size of the file is what was given.
    const Result<SafetensorsHeader> r = read_safetensors_header(in, in.size());
    check_result(r, "read_safetensors_header");
    if (!r.ok()) return;
    uint64_t elements = 0, bytes = 0;
    for (const SafetensorsTensor& t : r->tensors) {
        if (t.end > r->data_bytes || t.begin > t.end) fuzz::fail("a tensor outside the data it counts: " + t.name);
        elements += t.elements;
        bytes += t.end - t.begin;
    }
    if (r->file_bytes() > in.size()) fuzz::fail("accepted a header whose tensors pass the end of the file");
    uint64_t by_e = 0, by_b = 0;
    for (const DtypeCount& c : count_by_dtype({*r})) by_e += c.elements, by_b += c.bytes;
    if (by_e != elements || by_b != bytes) fuzz::fail("count_by_dtype does not sum to the tensors");
}

void gguf(std::string_view in) {
    using namespace vl;
    bool truncated = false;
    const Result<GgufHeader> r = read_gguf_header(in, std::nullopt, &truncated);
    check_result(r, "read_gguf_header");
    if (r.ok() && truncated) fuzz::fail("read_gguf_header: accepted and truncated");
    if (!r.ok()) return;
    if (r->header_bytes > in.size() || r->data_offset < r->header_bytes || r->data_offset % r->alignment != 0)
        fuzz::fail("read_gguf_header: the data section is misplaced");
    uint64_t bytes = 0;
    for (const GgufTensor& t : r->tensors) {
        const GgmlTypeInfo& info = ggml_type(t.type);
        if (t.elements % info.block_weights != 0 || t.bytes != t.elements / info.block_weights * info.block_bytes)
            fuzz::fail("read_gguf_header: a tensor's bytes disagree with its type: " + t.name);
        if (t.offset + t.bytes > r->data_bytes) fuzz::fail("read_gguf_header: a tensor outside the data section: " + t.name);
        bytes += t.bytes;
    }
    uint64_t by = 0;
    for (const GgmlTypeCount& c : count_by_ggml_type(*r)) by += c.bytes;
    if (by != bytes) fuzz::fail("count_by_ggml_type does not sum to the tensors");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace vl;
    if (size == 0) return 0;
    const std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
    switch (data[0] % 5) {
        case 0: safetensors(in); break;
        case 1: gguf(in); break;
        case 2: {
            const Result<SafetensorsIndex> r = read_safetensors_index(in);
            check_result(r, "read_safetensors_index");
            if (r.ok())
                for (const std::string& s : r->shards)
                    if (s.empty() || s.find('/') != std::string::npos || s == "..") fuzz::fail("an index shard that is not a plain file name: " + s);
            break;
        }
        case 3: check_result(read_quantization_config(in), "read_quantization_config"); break;
        case 4: {
            const Result<AdapterConfig> r = read_adapter_config(in);
            check_result(r, "read_adapter_config");
            if (r.ok() && (r->rank < 1 || r->lora_targets == 0)) fuzz::fail("read_adapter_config: accepted without rank or targets");
            break;
        }
    }
    return 0;
}
