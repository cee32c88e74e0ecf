#include "model/model_validate.h"

namespace vl {

void validate_model(const ModelSpec& m, std::vector<FieldError>& errs, const std::string& prefix) {
    (void)m; (void)errs; (void)prefix;  // rules land with issue 3
}

}  // namespace vl
