// The one reader of JSON given by a person (json_input.h): a SAX pass that builds the document
// through nlohmann's own DOM builder and checks size, depth, duplicate keys and NULs on the way.
#include "json_input.h"

#include <set>
#include <string>

#include "units.h"

namespace vl {

namespace {

template <class BasicJson>
struct CheckedBuilder {
    using number_integer_t = typename BasicJson::number_integer_t;
    using number_unsigned_t = typename BasicJson::number_unsigned_t;
    using number_float_t = typename BasicJson::number_float_t;
    using string_t = typename BasicJson::string_t;
    using binary_t = typename BasicJson::binary_t;

    // Where the parser is: one frame per open object (its keys so far) or array (its next index).
    struct Frame {
        bool is_object = false;
        std::set<std::string> keys;
        std::string key;   // the object's current key
        size_t index = 0;  // the array's current element
    };

    nlohmann::detail::json_sax_dom_parser<BasicJson> dom;
    std::vector<Frame> frames;
    std::string error_field;  // where inside the document; empty: the whole input (field = `what`)
    std::string error;

    explicit CheckedBuilder(BasicJson& root) : dom(root, /*allow_exceptions=*/false) {}

    // The dotted path of the value being read ("train.seq_len", "layers[3]").
    std::string path() const {
        std::string p;
        for (const Frame& f : frames) {
            if (!f.is_object) {
                p.append(1, '[').append(std::to_string(f.index)).append(1, ']');
            } else if (!f.key.empty()) {
                if (!p.empty()) p.append(1, '.');
                p.append(f.key);
            }
        }
        return p;
    }
    bool fail(std::string message) {
        error_field = path();
        error = std::move(message);
        return false;
    }
    // A value is complete: the array holding it moves to its next element.
    bool advance(bool ok) {
        if (!frames.empty() && !frames.back().is_object) ++frames.back().index;
        return ok;
    }
    bool open(bool is_object) {
        if (frames.size() >= static_cast<size_t>(kMaxJsonDepth)) {  // about the whole input: no path
            error = "is nested deeper than " + std::to_string(kMaxJsonDepth) +
                    " levels; a scenario or config.json is a few levels deep";
            return false;
        }
        frames.push_back(Frame{is_object, {}, {}, 0});
        return true;
    }
    static bool has_nul(const string_t& s) { return s.find('\0') != string_t::npos; }

    bool null() { return advance(dom.null()); }
    bool boolean(bool v) { return advance(dom.boolean(v)); }
    bool number_integer(number_integer_t v) { return advance(dom.number_integer(v)); }
    bool number_unsigned(number_unsigned_t v) { return advance(dom.number_unsigned(v)); }
    bool number_float(number_float_t v, const string_t& s) { return advance(dom.number_float(v, s)); }
    bool string(string_t& v) {
        if (has_nul(v)) return fail("contains a NUL character (\\u0000), which would cut the text short; remove it");
        return advance(dom.string(v));
    }
    bool binary(binary_t& v) { return advance(dom.binary(v)); }
    bool start_object(std::size_t n) { return open(true) && dom.start_object(n); }
    bool key(string_t& k) {
        Frame& f = frames.back();
        f.key = k;
        if (has_nul(k)) return fail("is a key with a NUL character (\\u0000); remove it");
        if (!f.keys.insert(k).second)
            return fail("is written twice in the same object; keep one (which one is meant cannot be guessed)");
        return dom.key(k);
    }
    bool end_object() { frames.pop_back(); return advance(dom.end_object()); }
    bool start_array(std::size_t n) { return open(false) && dom.start_array(n); }
    bool end_array() { frames.pop_back(); return advance(dom.end_array()); }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& ex) {
        std::string m = ex.what();
        if (auto p = m.find("] "); p != std::string::npos) m = m.substr(p + 2);  // drop "[json.exception...]"
        error = "is not valid JSON: " + m;  // "parse error at line L, column C: ..."; no path
        return false;
    }
};

template <class BasicJson>
std::optional<BasicJson> parse_checked(std::string_view text, std::string_view what, std::vector<FieldError>& errs) {
    if (text.size() > kMaxJsonInputBytes) {
        errs.push_back({std::string(what), "is " + describe_input_size(text.size(), kMaxJsonInputBytes) + "; at most " +
                                               describe_input_size(kMaxJsonInputBytes) +
                                               " is read (a config.json or scenario is a few KB: was something else pasted?)"});
        return std::nullopt;
    }
    BasicJson root;
    CheckedBuilder<BasicJson> sax(root);
    const bool ok = BasicJson::sax_parse(text.begin(), text.end(), &sax, nlohmann::detail::input_format_t::json, true);
    if (!ok || !sax.error.empty()) {
        errs.push_back({sax.error_field.empty() ? std::string(what) : sax.error_field,
                        sax.error.empty() ? "is not valid JSON" : sax.error});
        return std::nullopt;
    }
    return root;
}

}  // namespace

std::string describe_input_size(size_t bytes, size_t apart_from) {
    if (apart_from != 0 && bytes != apart_from && describe_input_size(bytes) == describe_input_size(apart_from)) {
        return group_thousands(static_cast<int64_t>(bytes)) + " bytes";
    }
    return size_text(static_cast<double>(bytes));
}

std::optional<nlohmann::json> parse_json_input(std::string_view text, std::string_view what, std::vector<FieldError>& errs) {
    return parse_checked<nlohmann::json>(text, what, errs);
}
std::optional<nlohmann::ordered_json> parse_ordered_json_input(std::string_view text, std::string_view what,
                                                               std::vector<FieldError>& errs) {
    return parse_checked<nlohmann::ordered_json>(text, what, errs);
}

}  // namespace vl
