// The accuracy report (issues 7, 14): every reference case of tests/data/accuracy/cases.json and every
// expressible case of the public measured set (measured.json) estimated from its scenario and set
// next to the published number; the measured set per calibrate/holdout group. Rendered here, in one place, for two
// users: tests/accuracy_report_test.cpp asserts the errors and that the committed docs/accuracy.md
// equals a fresh rendering; tests/gen_docs.cpp (run by scripts/gen-docs.sh) writes it. Nothing here
// writes into the repository by itself.
#pragma once
#include <optional>
#include <utility>
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

// ---- the public measured set (tests/data/accuracy/measured.json, docs/measured-set.md) ----------

// SHA-256 (FIPS 180-4) of `data`, as 64 lowercase hex digits.
std::string sha256_hex(const std::string& data);

// The split rule of docs/measured-set.md, implemented once: "holdout" when the first 8 hex digits of
// SHA-256(id) read as a number are divisible by 3, else "calibrate".
std::string measured_split(const std::string& id);

// One expressible measured case: the published figure, ours for the case's `measure`, and where
// ours comes from (the estimate's components inside the measure, largest first).
struct MeasuredRow {
    std::string id, split, framework, measure, unit, outcome, confidence;
    double published = 0;  // in `unit`; for an OOM case the GPU's memory (the true peak is above it)
    double ours = 0;       // in `unit`
    double error = 0;      // (ours - published) / published
    bool predicted_fit = false;  // the estimate fits the scenario's GPU (solve:seq: a value was found)
    // The estimate is low (it would let a run OOM): a memory figure more than 5 % below the published one, or
    // a figure a run is sized by (solve:seq's longest sequence, vLLM's KV pool) more than 5 % above it.
    bool low = false;
    std::vector<std::pair<std::string, double>> components;  // component id, bytes (GPU, inside the measure)
};

// The statistics of one group (calibrate or holdout) over its expressible cases.
struct MeasuredGroup {
    std::string name;
    size_t cases = 0;        // expressible cases in the group
    size_t with_error = 0;   // of them, runs that fitted (an error is defined)
    double median_abs_error = 0, worst_abs_error = 0;
    std::string worst_case;
    std::vector<size_t> low;  // indices into MeasuredReport::rows: fitted runs the estimate is low for (MeasuredRow::low)
    std::vector<size_t> oom;  // indices into MeasuredReport::rows: published out-of-memory outcomes
    size_t oom_predicted = 0;             // of them, predicted as not fitting
};

struct MeasuredReport {
    std::vector<MeasuredRow> rows;  // every expressible case, in file order
    MeasuredGroup calibrate, holdout;
    size_t cases = 0, not_expressible = 0;
    std::string section;  // the markdown section of docs/accuracy.md
};

// measured_json: the text of tests/data/accuracy/measured.json. Throws ReportError (a case whose
// recorded split disagrees with the rule, a scenario the core rejects, an unknown measure or unit).
MeasuredReport render_measured_report(const std::string& measured_json);

struct AccuracyReport {
    std::vector<AccuracyRow> rows;
    size_t measured = 0;
    double median_abs_error = 0, worst_abs_error = 0;
    std::string worst_case;
    MeasuredReport measured_set;
    std::string document;  // docs/accuracy.md
};

// A case that cannot be rendered (bad unit or measure, a scenario the core rejects): the message
// says which case and why.
struct ReportError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// cases_json, measured_json: the texts of tests/data/accuracy/cases.json and measured.json. Throws ReportError.
AccuracyReport render_accuracy_report(const std::string& cases_json, const std::string& measured_json);

// The files the generator owns, relative to the repository root.
inline const std::vector<std::string> kGeneratedFiles = {"docs/accuracy.md", "docs/speed.md"};

// Renders every generated file from the sources under source_root (cases.json, measured.json) into out_root (same
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
