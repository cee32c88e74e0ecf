// Accuracy report (issue 7): every reference case in tests/data/accuracy/cases.json (copied from the
// team reference set, with sources) is estimated from its scenario JSON and compared with the
// published number, unit-aware. Tool outputs and formulas must match to their rounding; measured
// cases report an honest error, held to a band so a regression shows. The report itself
// (docs/accuracy.md) is rendered by tests/accuracy_report.cpp and written by scripts/gen-docs.sh;
// here it is rendered into a temporary folder and compared with the committed file, which fails the
// test when stale.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "accuracy_report.h"

using namespace vl::report;
namespace fs = std::filesystem;

namespace {

const std::string kRepo = std::string(VRAMLENS_TEST_DATA) + "/../..";

// A fresh folder under the system temp directory, removed with everything in it at scope exit.
struct TempDir {
    fs::path path;
    explicit TempDir(const std::string& name)
        : path(fs::temp_directory_path() / ("vramlens_" + name + "_" + std::to_string(::getpid()))) {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    std::string str() const { return path.string(); }
};

std::string stale_message(const std::vector<std::string>& stale) {
    std::string m;
    for (const std::string& s : stale) m += s + "\n";
    return m + kRegenerateHint;
}

}  // namespace

TEST_CASE("accuracy report: reference cases, published vs ours") {
    const AccuracyReport rep = render_accuracy_report(read_text_file(std::string(VRAMLENS_TEST_DATA) + "/accuracy/cases.json"));
    REQUIRE(rep.rows.size() >= 89);  // every expressed case row; a lost row fails here
    for (const AccuracyRow& r : rep.rows) {
        INFO(r.id << ": published " << r.published << " " << r.unit << ", ours " << r.ours);
        if (r.kind == "measured") {
            REQUIRE(r.max_error.has_value());
            CHECK(std::fabs(r.error) <= *r.max_error);
        } else if (r.tolerance_rel) {
            CHECK(std::fabs(r.error) <= *r.tolerance_rel);
        } else {
            REQUIRE(r.tolerance.has_value());
            CHECK(std::fabs(r.ours - r.published) <= *r.tolerance + 1e-9);
        }
    }
    CHECK(rep.measured >= 5);
}

TEST_CASE("accuracy report: docs/accuracy.md is up to date") {
    TempDir fresh("accuracy_fresh");
    const std::vector<std::string> written = generate_docs(kRepo, fresh.str());
    CHECK(written == kGeneratedFiles);  // into an empty folder: every generated file is new
    const std::vector<std::string> stale = stale_generated_files(kRepo, fresh.str());
    INFO(stale_message(stale));
    CHECK(stale.empty());
}

TEST_CASE("accuracy report: the staleness check fails on an altered copy, and the generator repairs it") {
    // A copy of the committed sources and generated files in a temporary folder, one cell altered.
    TempDir copy("accuracy_copy"), fresh("accuracy_copy_fresh");
    // The generator reads cases.json only: the copy holds no README, and nothing else is written.
    for (const std::string rel : {"tests/data/accuracy/cases.json", "docs/accuracy.md"}) {
        fs::create_directories((copy.path / rel).parent_path());
        fs::copy_file(fs::path(kRepo) / rel, copy.path / rel);
    }
    generate_docs(copy.str(), fresh.str());
    REQUIRE(stale_generated_files(copy.str(), fresh.str()).empty());  // the copy starts up to date

    std::string doc = read_text_file((copy.path / "docs/accuracy.md").string());
    const size_t row = doc.find("| hf-octocoder-01-bf16 |");
    REQUIRE(row != std::string::npos);
    doc.insert(row + 2, 1, 'x');  // "| xhf-octocoder-01-bf16 |": a hand edit of a generated file
    std::ofstream((copy.path / "docs/accuracy.md").string(), std::ios::binary) << doc;
    const size_t line = static_cast<size_t>(std::count(doc.begin(), doc.begin() + static_cast<long>(row), '\n')) + 1;

    std::vector<std::string> stale = stale_generated_files(copy.str(), fresh.str());
    REQUIRE(stale.size() == 1);
    CHECK(stale[0] == "docs/accuracy.md differs from a fresh rendering (first difference at line " + std::to_string(line) + ")");
    CHECK_THAT(stale_message(stale), Catch::EndsWith("run scripts/gen-docs.sh and commit the result"));

    // What scripts/gen-docs.sh runs, pointed at the copy: it rewrites the file, which is fresh again.
    CHECK(generate_docs(copy.str(), copy.str()) == kGeneratedFiles);
    CHECK(stale_generated_files(copy.str(), fresh.str()).empty());
    CHECK(read_text_file((copy.path / "docs/accuracy.md").string()) == read_text_file((fresh.path / "docs/accuracy.md").string()));
    CHECK_FALSE(fs::exists(copy.path / "README.md"));
}
