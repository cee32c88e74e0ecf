// Looking up an estimate's components by id and its errors by field, for tests that read single ones.
#pragma once
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "estimate.h"

namespace vl::test {

// The component with this id, or nullptr.
inline const Component* find(const Estimate& e, const char* id) {
    for (const Component& c : e.components)
        if (std::strcmp(c.id, id) == 0) return &c;
    return nullptr;
}

// Its bytes; 0 when the estimate has no such component.
inline double bytes_of(const Estimate& e, const char* id) {
    const Component* c = find(e, id);
    return c ? c->bytes : 0.0;
}

// Whether the component is live in that phase (false when the estimate has none).
inline bool live_in(const Estimate& e, const char* id, Phase p) {
    const Component* c = find(e, id);
    return c != nullptr && (c->phases & phase_bit(p)) != 0;
}

// The components whose ids start with none of the prefixes.
template <class Prefixes>
std::vector<Component> components_without(std::span<const Component> components, const Prefixes& prefixes) {
    std::vector<Component> kept;
    for (const Component& c : components) {
        bool named = false;
        for (const auto& p : prefixes) named = named || std::string_view(c.id).starts_with(p);
        if (!named) kept.push_back(c);
    }
    return kept;
}

// The phase totals of the components whose ids start with none of the prefixes: what a measurement that
// leaves some out sees (max_memory_allocated leaves out the CUDA context and the allocator's reserve).
template <class Prefixes>
PhaseTotals totals_without(const Estimate& e, const Prefixes& prefixes) {
    return phase_totals(components_without(e.components, prefixes));
}
inline double peak_without(const Estimate& e, std::initializer_list<std::string_view> prefixes) {
    return totals_without(e, prefixes).peak_bytes();
}

// The components of what a run with room shows (Estimate::shown_bytes): the reserve it keeps
// (Estimate::shown_reserve) in place of overhead.fragmentation where the two differ, the components unchanged where not.
inline std::vector<Component> shown_components(const Estimate& e) {
    if (*e.shown_reserve.id == '\0') return e.components;
    std::vector<Component> shown;
    for (const Component& c : e.components)
        if (c.host || std::string_view(c.id) != "overhead.fragmentation") shown.push_back(c);
    shown.push_back(e.shown_reserve);
    return shown;
}

// Whether the estimate refused `field` with a message holding `words` ("" : any message).
inline bool has_error(const Estimate& e, const std::string& field, const std::string& words = "") {
    for (const FieldError& f : e.errors)
        if (f.field == field && f.message.find(words) != std::string::npos) return true;
    return false;
}

}  // namespace vl::test
