// Looking up an estimate's components by id, for tests that read single components.
#pragma once
#include <cstring>

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

}  // namespace vl::test
