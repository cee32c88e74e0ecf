// safetensors headers and index files (safetensors.h) [safetensors-spec].
#include "model/safetensors.h"

#include <algorithm>
#include "text_format.h"
#include <map>

#include "units.h"

namespace vl {

namespace {

using Json = nlohmann::json;

std::string quote_text(std::string_view s) {
    std::string out = "\"";
    out += s.substr(0, 200);
    if (s.size() > 200) out += "...";
    return out + "\"";
}

// A byte or element count for a message (units.h groups it).
std::string grouped(uint64_t v) {
    if (v <= INT64_MAX) return group_thousands(static_cast<int64_t>(v));
    return group_thousands(static_cast<int64_t>(v / 1000)) + vl::format(",{:03}", v % 1000);
}

// a * b, or nullopt when it does not fit in 64 bits.
std::optional<uint64_t> times(uint64_t a, uint64_t b) {
    if (a != 0 && b > UINT64_MAX / a) return std::nullopt;
    return a * b;
}

// A JSON number that is a whole number >= 0 (nlohmann reads 1e3 and 2.0 as floats: refused).
std::optional<uint64_t> unsigned_of(const Json& j) {
    if (j.is_number_unsigned()) return j.get<uint64_t>();
    if (j.is_number_integer() && j.get<int64_t>() >= 0) return static_cast<uint64_t>(j.get<int64_t>());
    return std::nullopt;
}

void read_tensor(const std::string& name, const Json& t, std::vector<SafetensorsTensor>& out, std::vector<FieldError>& errs) {
    const std::string at = name.empty() ? std::string("\"\"") : name;  // errors name the tensor, even one named ""
    const std::string f = at + ".";
    if (!t.is_object()) {
        errs.push_back({at, "must be an object with dtype, shape and data_offsets"});
        return;
    }
    for (const char* key : {"dtype", "shape", "data_offsets"})
        if (!t.contains(key)) {
            errs.push_back({f + key, "is missing (every tensor has dtype, shape and data_offsets)"});
            return;
        }
    SafetensorsTensor r;
    r.name = name;
    const Json& dtype = t["dtype"];
    const SafetensorsDtype* dt = dtype.is_string() ? find_safetensors_dtype(dtype.get_ref<const std::string&>()) : nullptr;
    if (!dt) {
        std::string names;
        for (const SafetensorsDtype& d : kSafetensorsDtypes) names += (names.empty() ? "" : ", ") + std::string(d.name);
        errs.push_back({f + "dtype", (dtype.is_string() ? "unknown dtype " + quote_text(dtype.get_ref<const std::string&>()) : std::string("must be a string")) +
                                         "; a safetensors dtype is one of " + names});
        return;
    }
    r.dtype = dt->name;
    const Json& shape = t["shape"];
    if (!shape.is_array() || shape.size() > kMaxTensorDims) {
        errs.push_back({f + "shape", shape.is_array() ? vl::format("has {} dimensions; at most {} are read", shape.size(), kMaxTensorDims)
                                                      : std::string("must be an array of sizes, e.g. [4096, 4096]")});
        return;
    }
    uint64_t elements = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
        const std::optional<uint64_t> d = unsigned_of(shape[i]);
        if (!d) {
            errs.push_back({vl::format("{}shape[{}]", f, i), "must be a whole number >= 0; got " + shape[i].dump()});
            return;
        }
        const std::optional<uint64_t> n = times(elements, *d);
        if (!n || *n > (uint64_t{1} << 60)) {
            errs.push_back({f + "shape", "overflows: the product of " + shape.dump() + " is more elements than any tensor holds"});
            return;
        }
        elements = *n;
        r.shape.push_back(*d);
    }
    r.elements = elements;
    const Json& off = t["data_offsets"];
    std::optional<uint64_t> begin, end;
    if (off.is_array() && off.size() == 2) begin = unsigned_of(off[0]), end = unsigned_of(off[1]);
    if (!begin || !end || *end < *begin) {
        errs.push_back({f + "data_offsets", "must be [begin, end], whole numbers with begin <= end; got " + off.dump()});
        return;
    }
    if (elements > UINT64_MAX / dt->bits || elements * dt->bits % 8 != 0) {
        errs.push_back({f + "shape", vl::format("{} elements of {} are not a whole number of bytes", elements, dt->name)});
        return;
    }
    const uint64_t bits = elements * dt->bits;
    if (*end - *begin != bits / 8) {
        errs.push_back({f + "data_offsets", vl::format("span {} bytes; shape {} of {} takes {} bytes", *end - *begin, shape.dump(),
                                                        dt->name, bits / 8)});
        return;
    }
    r.begin = *begin;
    r.end = *end;
    out.push_back(std::move(r));
}

}  // namespace

const SafetensorsDtype* find_safetensors_dtype(std::string_view name) {
    for (const SafetensorsDtype& d : kSafetensorsDtypes)
        if (name == d.name) return &d;
    return nullptr;
}

Result<uint64_t> safetensors_header_length(std::string_view first_bytes, std::optional<uint64_t> file_size) {
    if (first_bytes.size() < 8)
        return Result<uint64_t>::failure({{"header_length", vl::format("the file is {} bytes; a safetensors file starts with an 8-byte header "
                                                                        "length (is it truncated?)", first_bytes.size())}});
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(first_bytes[static_cast<size_t>(i)]);
    if (n < 2)
        return Result<uint64_t>::failure({{"header_length", vl::format("is {}; the JSON header is at least \"{{}}\" (is this a safetensors file?)", n)}});
    if (file_size && n > *file_size - std::min<uint64_t>(*file_size, 8))
        return Result<uint64_t>::failure({{"header_length", vl::format("is {} bytes, past the end of the file ({} bytes): the file is "
                                                                        "truncated or not a safetensors file", grouped(static_cast<uint64_t>(n)),
                                                                        grouped(static_cast<uint64_t>(*file_size)))}});
    if (n > kMaxSafetensorsHeaderBytes)
        return Result<uint64_t>::failure({{"header_length", "is " + describe_input_size(static_cast<size_t>(std::min<uint64_t>(n, SIZE_MAX)), kMaxSafetensorsHeaderBytes) +
                                                                "; at most " + describe_input_size(kMaxSafetensorsHeaderBytes) +
                                                                " of header is read (is this a safetensors file?)"}});
    return Result<uint64_t>::success(n);
}

Result<SafetensorsHeader> read_safetensors_header(std::string_view bytes, std::optional<uint64_t> file_size) {
    using R = Result<SafetensorsHeader>;
    Result<uint64_t> len = safetensors_header_length(bytes, file_size);
    if (!len) return R::failure(len.errors);
    const uint64_t n = *len;
    if (bytes.size() - 8 < n)
        return R::failure({{"header", vl::format("is truncated: the header length says {} bytes, {} follow it", n, bytes.size() - 8)}});
    std::vector<FieldError> errs;
    std::optional<Json> doc = parse_json_input(bytes.substr(8, static_cast<size_t>(n)), "header", errs);
    if (!doc) return R::failure(std::move(errs));
    if (!doc->is_object()) return R::failure({{"header", "must be a JSON object of tensors; got " + std::string(doc->type_name())}});
    SafetensorsHeader h;
    h.header_bytes = n;
    std::vector<std::string> warnings;
    for (const auto& [name, value] : doc->items()) {
        if (name == "__metadata__") {
            if (!value.is_object()) {
                errs.push_back({"__metadata__", "must be an object of strings"});
                continue;
            }
            for (const auto& [k, v] : value.items()) {
                if (!v.is_string()) errs.push_back({"__metadata__." + k, "must be a string; got " + std::string(v.type_name())});
                else h.metadata.emplace_back(k, v.get<std::string>());
            }
            continue;
        }
        read_tensor(name, value, h.tensors, errs);
    }
    if (!errs.empty()) return R::failure(std::move(errs));
    std::sort(h.tensors.begin(), h.tensors.end(), [](const SafetensorsTensor& a, const SafetensorsTensor& b) {
        return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
    });
    uint64_t at = 0;
    for (const SafetensorsTensor& t : h.tensors) {
        if (t.begin < at && t.end > t.begin) {
            errs.push_back({t.name + ".data_offsets", vl::format("[{}, {}] overlaps the tensor before it, which ends at {}", t.begin, t.end, at)});
            return R::failure(std::move(errs));
        }
        at = std::max(at, t.end);
    }
    h.data_bytes = at;
    if (file_size) {
        const uint64_t holds = *file_size - 8 - n;  // safetensors_header_length checked n <= file_size - 8
        if (h.data_bytes > holds)
            return R::failure({{"data_offsets", vl::format("the tensors' bytes end at {} but the file holds {} bytes of data after its "
                                                            "header: the file is truncated", grouped(static_cast<uint64_t>(h.data_bytes)),
                                                            grouped(static_cast<uint64_t>(holds)))}});
        if (h.data_bytes < holds)
            warnings.push_back(vl::format("the file has {} bytes after its last tensor", grouped(static_cast<uint64_t>(holds - h.data_bytes))));
    }
    return R::success(std::move(h), std::move(warnings));
}

Result<SafetensorsIndex> read_safetensors_index(std::string_view json_text) {
    using R = Result<SafetensorsIndex>;
    std::vector<FieldError> errs;
    std::optional<Json> doc = parse_json_input(json_text, "index", errs);
    if (!doc) return R::failure(std::move(errs));
    if (!doc->is_object()) return R::failure({{"index", "must be a JSON object with \"weight_map\"; got " + std::string(doc->type_name())}});
    SafetensorsIndex idx;
    if (doc->contains("metadata")) {
        const Json& meta = (*doc)["metadata"];
        if (!meta.is_object()) errs.push_back({"metadata", "must be an object"});
        else if (meta.contains("total_size")) {
            const Json& ts = meta["total_size"];
            // Some writers store it as a float (2.0e10): accept a whole number either way.
            if (std::optional<uint64_t> v = unsigned_of(ts)) idx.total_size = v;
            else if (ts.is_number_float() && ts.get<double>() >= 0 && ts.get<double>() < 1.8e19 && ts.get<double>() == static_cast<double>(static_cast<uint64_t>(ts.get<double>())))
                idx.total_size = static_cast<uint64_t>(ts.get<double>());
            else errs.push_back({"metadata.total_size", "must be a whole number of bytes; got " + ts.dump()});
        }
    }
    if (!doc->contains("weight_map") || !(*doc)["weight_map"].is_object()) {
        errs.push_back({"weight_map", "must be an object mapping each tensor to its shard file"});
        return R::failure(std::move(errs));
    }
    std::map<std::string, bool> seen;
    for (const auto& [tensor, file] : (*doc)["weight_map"].items()) {
        if (!file.is_string()) {
            errs.push_back({"weight_map." + tensor, "must be a shard file name; got " + std::string(file.type_name())});
            continue;
        }
        const std::string& f = file.get_ref<const std::string&>();
        if (f.empty() || f == "." || f == ".." || f.find('/') != std::string::npos || f.find('\\') != std::string::npos) {
            errs.push_back({"weight_map." + tensor, "must be a file name next to the index (no directory); got " + quote_text(f)});
            continue;
        }
        idx.weight_map.emplace_back(tensor, f);
        if (!seen[f]) {
            seen[f] = true;
            idx.shards.push_back(f);
        }
    }
    if (!errs.empty()) return R::failure(std::move(errs));
    if (idx.weight_map.empty()) return R::failure({{"weight_map", "is empty: the index names no tensors"}});
    return R::success(std::move(idx));
}

std::vector<DtypeCount> count_by_dtype(const std::vector<SafetensorsHeader>& headers) {
    std::map<std::string, DtypeCount> by;
    for (const SafetensorsHeader& h : headers)
        for (const SafetensorsTensor& t : h.tensors) {
            DtypeCount& c = by[t.dtype];
            c.dtype = t.dtype;
            c.tensors += 1;
            c.elements += t.elements;
            c.bytes += t.end - t.begin;
        }
    std::vector<DtypeCount> out;
    for (auto& [k, c] : by) out.push_back(c);
    return out;
}

}  // namespace vl
