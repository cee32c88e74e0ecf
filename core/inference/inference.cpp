#include "inference/inference.h"

namespace vl {

void estimate_inference(const Scenario& s, Detail d, Estimate& e) { (void)s; (void)d; (void)e; }
void validate_inference(const Scenario& s, std::vector<FieldError>& errs) { (void)s; (void)errs; }

}  // namespace vl
