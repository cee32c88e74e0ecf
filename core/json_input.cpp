// The one reader of JSON given by a person (json_input.h): a SAX pass that builds the document
// through nlohmann's own DOM builder and checks size, depth, duplicate keys and NULs on the way.
#include "json_input.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>
#include <string>

#include "units.h"

namespace vl {

namespace {

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// What a syntax error is, in words, and how to fix it, from nlohmann's own diagnosis ("syntax error
// while parsing object - unexpected '}'; expected string literal") and the word the parser stopped at.
// The mistakes people make by hand or by pasting: a comma missing or left over, single or no quotes,
// Python's True/False/None/NaN, comments, a line break inside quotes, a file cut short, text after it.
std::string syntax_problem(std::string_view diagnosis, std::string_view word) {
    const bool in_object = contains(diagnosis, "parsing object -"), in_array = contains(diagnosis, "parsing array -");
    if (contains(diagnosis, "unexpected end of input"))
        return "the text ends before the JSON is complete (a closing } or ] or a quote is missing): was only part of the file copied?";
    if (contains(diagnosis, "expected end of input"))
        return "there is more text after the JSON ends (an extra } or ], or a second document): remove it";
    const bool literal = contains(diagnosis, "invalid literal") || contains(diagnosis, "invalid number");
    if (literal && (word == "True" || word == "False" || word == "None"))
        return std::string(word) + " is Python: JSON writes true, false and null in lower case";
    if (literal && (word == "NaN" || word == "Infinity" || word == "-Infinity"))
        return std::string(word) + " is not a JSON number (Python's json.dump writes it): use a number or null";
    if (literal && word.substr(0, 1) == "/") return "JSON has no comments (// or /* */): remove them";
    if (contains(diagnosis, "invalid string: control character"))
        return "a line break or tab inside quotes: close the quote before the line ends (or write \\n)";
    if (contains(diagnosis, "forbidden character after backslash"))
        return "a backslash inside quotes starts an escape: write \\\\ for a backslash";
    if (contains(diagnosis, "number overflow"))  // nlohmann: "number overflow parsing '1e400'"
        return "a number too large to hold (above 1.8e308): " + std::string(diagnosis.substr(diagnosis.find("parsing") + 8));
    if (contains(diagnosis, "invalid number")) return "a number is cut short (such as 1. or -): write its digits";
    if (contains(diagnosis, "parsing object key -") && contains(diagnosis, "unexpected '}'"))
        return "a comma before } : JSON allows no comma after the last entry; remove it";
    if (contains(diagnosis, "unexpected ']'; expected '[', '{', or a literal"))
        return "a comma before ] : JSON allows no comma after the last entry; remove it";
    if (contains(diagnosis, "parsing object key -"))
        return word.substr(0, 1) == "'" ? "single quotes: JSON writes keys and text in double quotes (\"name\")"
                                         : "a key without quotes: JSON writes keys in double quotes (\"name\": 1)";
    if (contains(diagnosis, "expected ':'")) return "a colon is missing between the key and its value (\"name\": 1)";
    if (contains(diagnosis, "unexpected ':'")) return "a colon too many, or a value missing before it";
    if (in_array && contains(diagnosis, "unexpected '}'")) return "a list opened with [ is closed with }: close it with ]";
    if (in_object && contains(diagnosis, "unexpected ']'")) return "an object opened with { is closed with ]: close it with }";
    if ((in_object && contains(diagnosis, "expected '}'")) || (in_array && contains(diagnosis, "expected ']'")))
        return "a comma is missing before this entry: entries are separated by commas";
    if (contains(diagnosis, "invalid literal"))
        return word.empty() ? "a word that is not JSON: text is written in double quotes (\"text\")"
                            : "\"" + std::string(word) + "\" is not JSON: text is written in double quotes, the only bare words are true, false and null";
    const size_t dash = diagnosis.find(" - ");
    return std::string(dash == std::string_view::npos ? diagnosis : diagnosis.substr(dash + 3));  // nlohmann's own words
}

}  // namespace

std::string json_syntax_message(std::string_view text, std::string_view parser_message) {
    // nlohmann: "[json.exception.parse_error.101] parse error at line L, column C: syntax error while ..."
    size_t line = 0, column = 0;
    const size_t at = parser_message.find("at line ");
    if (at != std::string_view::npos) std::sscanf(std::string(parser_message.substr(at)).c_str(), "at line %zu, column %zu", &line, &column);
    std::string_view diagnosis = parser_message.substr(parser_message.find("] ") == std::string_view::npos ? 0 : parser_message.find("] ") + 2);
    if (const size_t colon = parser_message.find(": ", at); at != std::string_view::npos && colon != std::string_view::npos)
        diagnosis = parser_message.substr(colon + 2);
    // The line it stopped on, and the word there (the parser reports the column after the character
    // it stopped at; a word is letters, digits and - / . or a single quote).
    std::string_view row = text;
    for (size_t i = 1; i < line && !row.empty(); ++i) {
        const size_t nl = row.find('\n');
        row = nl == std::string_view::npos ? std::string_view() : row.substr(nl + 1);
    }
    row = row.substr(0, row.find('\n'));
    auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '/' || c == '\'' || c == '.'; };
    size_t b = std::min(column > 0 ? column - 1 : 0, row.size());
    while (b > 0 && word_char(row[b - 1])) --b;
    size_t e = b;
    while (e < row.size() && word_char(row[e])) ++e;
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return "is empty: there is no JSON to read";
    std::string out = "is not valid JSON: ";
    if (line > 0) out += "line " + std::to_string(line) + ", column " + std::to_string(column) + ": ";
    out += syntax_problem(diagnosis, row.substr(b, e - b));
    // Where, as the person sees it: up to 40 characters of that line ending at the stop.
    const size_t end = std::min(row.size(), std::max(column, size_t{1}));
    const size_t start = end > 40 ? end - 40 : 0;
    std::string near(row.substr(start, end - start));
    while (!near.empty() && std::isspace(static_cast<unsigned char>(near.front()))) near.erase(0, 1);
    if (!near.empty()) out += " (at: " + std::string(start > 0 ? "..." : "") + near + ")";
    return out;
}

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
        error = json_syntax_message(text, ex.what());  // about the whole input: no path
        return false;
    }
    std::string_view text;
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
    sax.text = text;
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
