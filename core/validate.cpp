// validate(): every rule a Scenario must satisfy, each error naming its field. The rules live
// beside the code that needs them; this file only collects them.
#include "estimate.h"
#include "inference/inference.h"
#include "model/model_validate.h"
#include "training/training.h"

namespace vl {

std::vector<FieldError> validate(const Scenario& s) {
    std::vector<FieldError> errs;
    validate_model(s.model, errs);
    if (!(s.gpu.memory_bytes > 0) || s.gpu.memory_bytes > 1e15)
        errs.push_back({"gpu.memory_bytes", "must be > 0 and at most 1 PB; got " + std::to_string(s.gpu.memory_bytes)});
    validate_parallel(s, errs);
    if (s.mode == Mode::Infer)
        validate_inference(s, errs);
    else
        validate_training(s, errs);
    return errs;
}

}  // namespace vl
