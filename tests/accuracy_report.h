// The accuracy report (issue 7): every reference case of tests/data/accuracy/cases.json estimated
// from its scenario and set next to the published number. Rendered here, in one place, for two
// users: tests/accuracy_report_test.cpp asserts the errors and that the committed docs/accuracy.md
// equals a fresh rendering; tests/gen_docs.cpp (run by scripts/gen-docs.sh) writes it. Nothing here
// writes into the repository by itself.
#pragma once
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace vl::report {

// One case row: what the case publishes, what vramlens gives for its scenario, and the band the
// case allows (max_error for measured cases; tolerance / tolerance_rel for tool outputs and formulas).
struct AccuracyRow {
    std::string id;    // "case / quantity"
    std::string kind;  // measured | tool-output | formula
    std::string unit;
    double published = 0;
    double ours = 0;
    double error = 0;  // (ours - published) / published; 0 when published is 0
    std::optional<double> max_error, tolerance_rel, tolerance;
};

struct AccuracyReport {
    std::vector<AccuracyRow> rows;
    size_t measured = 0;
    double median_abs_error = 0, worst_abs_error = 0;
    std::string worst_case;
    std::string document;  // docs/accuracy.md
};

// A case that cannot be rendered (bad unit or measure, a scenario the core rejects): the message
// says which case and why.
struct ReportError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// cases_json: the text of tests/data/accuracy/cases.json. Throws ReportError.
AccuracyReport render_accuracy_report(const std::string& cases_json);

// The files the generator owns, relative to the repository root.
inline const std::vector<std::string> kGeneratedFiles = {"docs/accuracy.md"};

// Renders every generated file from the sources under source_root (cases.json) into out_root (same
// relative paths; folders created). out_root may be source_root itself: that is what
// scripts/gen-docs.sh does. Returns the files whose text changed.
std::vector<std::string> generate_docs(const std::string& source_root, const std::string& out_root);

// The generated files under committed_root that differ from (or are missing next to) the fresh
// rendering under fresh_root, each with the reason, e.g. "docs/accuracy.md differs from a fresh
// rendering (first difference at line 12)". Empty: up to date.
std::vector<std::string> stale_generated_files(const std::string& committed_root, const std::string& fresh_root);

// The one line every staleness failure ends with.
inline constexpr const char* kRegenerateHint = "run scripts/gen-docs.sh and commit the result";

std::string read_text_file(const std::string& path);  // "" when missing

}  // namespace vl::report
