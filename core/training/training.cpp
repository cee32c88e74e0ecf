#include "training/training.h"

namespace vl {

void estimate_training(const Scenario& s, Detail d, Estimate& e) { (void)s; (void)d; (void)e; }
void validate_training(const Scenario& s, std::vector<FieldError>& errs) { (void)s; (void)errs; }
void validate_parallel(const Scenario& s, std::vector<FieldError>& errs) { (void)s; (void)errs; }

}  // namespace vl
