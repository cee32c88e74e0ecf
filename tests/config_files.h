// The real config.json files of tests/data/configs (SOURCES.md) as the importer reads them, for the tests of one
// model family: the file's text, and the imported ModelSpec (the test stops, with the importer's errors, if it fails).
#pragma once
#include <catch2/catch.hpp>
#include <string>

#include "model/hf_config.h"
#include "repo_files.h"

namespace vl::test {

inline std::string config_text(const std::string& name) {
    const std::string text = read_text(kRepoRoot / "tests/data/configs" / name);
    REQUIRE_FALSE(text.empty());
    return text;
}

inline ModelSpec imported(const std::string& text) {
    Result<ModelSpec> r = import_hf_config(text);
    for (const auto& e : r.errors) INFO(to_string(e));
    REQUIRE(r.ok());
    return *r.value;
}

inline ModelSpec imported_config(const std::string& name) { return imported(config_text(name)); }

}  // namespace vl::test
