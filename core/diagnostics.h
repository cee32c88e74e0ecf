// Diagnostics: errors that name the offending field and the rule it broke, and warnings.
// Every parser and validator returns these instead of throwing, crashing or clamping.
#pragma once
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vl {

struct FieldError {
    std::string field;   // dotted path as the user wrote it, e.g. "num_key_value_heads" or "parallel.tp"
    std::string message; // the rule, with the offending value, e.g. "must divide num_attention_heads (32); got 6"
};

inline std::string to_string(const FieldError& e) { return e.field + ": " + e.message; }

// Whether `errs` already holds an error for `field`. A rule that relates a field to another is
// skipped while the other is itself in error: one problem, one error.
inline bool reported(std::span<const FieldError> errs, std::string_view field) {
    for (const FieldError& e : errs)
        if (e.field == field) return true;
    return false;
}

// A value or the reasons there is none. Warnings can accompany a value (assumptions made).
template <class T>
struct Result {
    std::optional<T> value;
    std::vector<FieldError> errors;
    std::vector<std::string> warnings;

    bool ok() const { return value.has_value() && errors.empty(); }
    explicit operator bool() const { return ok(); }
    const T& operator*() const { return *value; }
    T& operator*() { return *value; }
    const T* operator->() const { return &*value; }
    T* operator->() { return &*value; }

    static Result success(T v, std::vector<std::string> warn = {}) {
        Result r; r.value = std::move(v); r.warnings = std::move(warn); return r;
    }
    static Result failure(std::vector<FieldError> errs, std::vector<std::string> warn = {}) {
        Result r; r.errors = std::move(errs); r.warnings = std::move(warn); return r;
    }
};

}  // namespace vl
