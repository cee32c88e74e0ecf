// Exact parameter counts (issue 3). Placeholder until the model core lands.
#include "param_count.h"

namespace vl {

ParamCounts count_params(const ModelSpec& m) {
    ParamCounts p;
    p.total = m.params_only;
    return p;
}

}  // namespace vl
