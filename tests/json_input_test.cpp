// The one reader of JSON given by a person (core/json_input.h): every entry point (scenario files,
// pasted config.json, share links, CLI flags) gets the same answer for the same bad input.
#include <catch2/catch.hpp>
#include <string>

#include "json_input.h"
#include "model/hf_config.h"
#include "scenario_json.h"

namespace {

// The single error the reader gives for text ("field: message"), or "" when it parses.
std::string error_of(const std::string& text) {
    std::vector<vl::FieldError> errs;
    std::optional<nlohmann::json> j = vl::parse_json_input(text, "input", errs);
    if (j) return "";
    REQUIRE(errs.size() == 1);
    return to_string(errs[0]);
}

}  // namespace

TEST_CASE("json input: a document that breaks no rule parses unchanged") {
    std::vector<vl::FieldError> errs;
    auto j = vl::parse_ordered_json_input(R"({"b": [1, {"c": "x"}], "a": null})", "input", errs);
    REQUIRE(j);
    CHECK(errs.empty());
    CHECK(j->dump() == R"({"b":[1,{"c":"x"}],"a":null})");  // key order kept
}

TEST_CASE("json input: a key written twice is an error naming the key's path") {
    CHECK(error_of(R"({"model": {"layers": 32, "layers": 16}})") ==
          "model.layers: is written twice in the same object; keep one (which one is meant cannot be guessed)");
    CHECK(error_of(R"({"a": [{"x": 1}, {"x": 1, "x": 2}]})") ==
          "a[1].x: is written twice in the same object; keep one (which one is meant cannot be guessed)");
    // The same key in two different objects is fine.
    CHECK(error_of(R"({"a": {"x": 1}, "b": {"x": 1}})").empty());
}

TEST_CASE("json input: a NUL inside a string or key is an error, never a silent cut") {
    CHECK(error_of(R"({"name": "Llama\u0000-evil"})") ==
          "name: contains a NUL character (\\u0000), which would cut the text short; remove it");
    CHECK(error_of(R"({"list": ["ok", "b\u0000"]})") ==
          "list[1]: contains a NUL character (\\u0000), which would cut the text short; remove it");
    CHECK_THAT(error_of(R"({"na\u0000me": 1})"), Catch::Contains("is a key with a NUL character"));
}

TEST_CASE("json input: nesting stops at the limit while parsing, whatever the depth") {
    // 80,000 levels used to overflow the stack of every dump/destroy that followed the parse.
    const std::string deep = std::string(80'000, '[') + std::string(80'000, ']');
    CHECK(error_of(deep) == "input: is nested deeper than 32 levels; a scenario or config.json is a few levels deep");
    CHECK(error_of(std::string(32, '[') + std::string(32, ']')).empty());  // exactly at the limit
    CHECK_FALSE(error_of(std::string(33, '[') + std::string(33, ']')).empty());
}

TEST_CASE("json input: size is checked before parsing") {
    const std::string huge = "\"" + std::string(vl::kMaxJsonInputBytes, 'x') + "\"";  // 4 MiB + 2 bytes
    CHECK(error_of(huge) ==
          "input: is 4,194,306 bytes; at most 4194 KB is read (a config.json or scenario is a few KB: was something else pasted?)");
    CHECK(vl::describe_input_size(999) == "999 bytes");
    CHECK(vl::describe_input_size(1'250'000) == "1250 KB");
    CHECK(vl::describe_input_size(100'000'000) == "100 MB");
    // Just over the limit: the same rounding would say "is 4194 KB; at most 4194 KB".
    CHECK(vl::describe_input_size(4'194'354, 4'194'304) == "4,194,354 bytes");
    CHECK(vl::describe_input_size(5'000'000, 4'194'304) == "5000 KB");
}

TEST_CASE("json input: syntax errors say line and column, what is wrong in words and how to fix it") {
    // A comma after the last entry (line 3 is the lone `}`).
    CHECK(error_of("{\n  \"a\": 1,\n}") ==
          "input: is not valid JSON: line 3, column 1: a comma before } : JSON allows no comma after the last entry; remove it (at: })");
    CHECK_THAT(error_of("[1, 2,]"), Catch::Contains("a comma before ] : JSON allows no comma after the last entry"));
    // A comma missing between two entries: the parser stops at the next key, on line 2.
    CHECK(error_of("{\"a\": 1\n \"b\": 2}") ==
          "input: is not valid JSON: line 2, column 4: a comma is missing before this entry: entries are separated by commas (at: \"b\")");
    CHECK_THAT(error_of("[1 2]"), Catch::Contains("a comma is missing before this entry"));
    // Quotes.
    CHECK_THAT(error_of("{'a': 1}"), Catch::Contains("line 1, column 2: single quotes: JSON writes keys and text in double quotes"));
    CHECK_THAT(error_of("{a: 1}"), Catch::Contains("a key without quotes"));
    CHECK_THAT(error_of("{\"a\" 1}"), Catch::Contains("a colon is missing between the key and its value"));
    // Python's literals, as print(dict) or json.dump(allow_nan=True) write them.
    CHECK(error_of("{\"tie_word_embeddings\": True}") ==
          "input: is not valid JSON: line 1, column 25: True is Python: JSON writes true, false and null in lower case "
          "(at: {\"tie_word_embeddings\": T)");
    CHECK_THAT(error_of("{\"a\": None}"), Catch::Contains("None is Python"));
    CHECK_THAT(error_of("{\"rope_scaling\": NaN}"), Catch::Contains("NaN is not a JSON number"));
    CHECK_THAT(error_of("{\"a\": -Infinity}"), Catch::Contains("-Infinity is not a JSON number"));
    CHECK_THAT(error_of("{\"a\": yes}"), Catch::Contains("\"yes\" is not JSON: text is written in double quotes"));
    // A key named like a Python literal is not one.
    CHECK_THAT(error_of("{\"a\": 1\n \"None\": 2}"), Catch::Contains("a comma is missing"));
    // Comments, a line break inside quotes, a backslash, a number cut short.
    CHECK_THAT(error_of("// my config\n{}"), Catch::Contains("line 1, column 1: JSON has no comments"));
    CHECK_THAT(error_of("{\"a\": 1 /* x */}"), Catch::Contains("JSON has no comments"));
    CHECK_THAT(error_of("{\"a\": \"x\ny\"}"), Catch::Contains("a line break or tab inside quotes"));
    CHECK_THAT(error_of(R"({"path": "C:\models"})"), Catch::Contains("write \\\\ for a backslash"));
    CHECK_THAT(error_of("{\"a\": 1.}"), Catch::Contains("a number is cut short"));
    // Brackets: cut short, closed by the wrong one, or more after the end.
    CHECK_THAT(error_of("{\"a\": [1, 2"), Catch::Contains("the text ends before the JSON is complete"));
    CHECK(error_of(" \n ") == "input: is empty: there is no JSON to read");
    CHECK_THAT(error_of("{\"a\": [1, 2}"), Catch::Contains("a list opened with [ is closed with }"));
    CHECK_THAT(error_of("{\"a\": 1}}"), Catch::Contains("line 1, column 9: there is more text after the JSON ends"));
    // Where on a long line: the 40 characters up to the stop (column 63, after "x"; 23 characters cut).
    const std::string long_line = "{\"architectures\": [\"LlamaForCausalLM\"], \"hidden_size\": 4096 \"x\": 1}";
    CHECK_THAT(error_of(long_line), Catch::EndsWith("(at: ...maForCausalLM\"], \"hidden_size\": 4096 \"x\")"));
}

TEST_CASE("json input: scenario files and config.json go through the same reader") {
    vl::Result<vl::Scenario> s = vl::scenario_from_json(R"({"version": 1, "mode": "infer", "mode": "train"})");
    REQUIRE_FALSE(s.ok());
    CHECK(to_string(s.errors[0]) ==
          "mode: is written twice in the same object; keep one (which one is meant cannot be guessed)");
    vl::Result<vl::ModelSpec> m = vl::import_hf_config(R"({"model_type": "llama", "hidden_size": 4096, "hidden_size": 2048})");
    REQUIRE_FALSE(m.ok());
    CHECK(to_string(m.errors[0]) ==
          "hidden_size: is written twice in the same object; keep one (which one is meant cannot be guessed)");
    vl::Result<vl::ModelSpec> n = vl::import_hf_config("{\"model_type\": \"llama\", \"_name_or_path\": \"a\\u0000b\"}");
    REQUIRE_FALSE(n.ok());
    CHECK(n.errors[0].field == "_name_or_path");
}
