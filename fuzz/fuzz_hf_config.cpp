// libFuzzer target: Hugging Face config.json import (core/model/hf_config.h). Seeds: the real
// configs in tests/data/configs/ and the preset configs in assets/presets/models.json.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_checks.h"
#include "model/hf_config.h"
#include "model/model_validate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace vl;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const Result<ModelSpec> r = import_hf_config(text);
    fuzz::check_expected_error(r.errors, "import_hf_config");
    if (!r.ok()) {
        fuzz::check_errors_named(r.errors, "import_hf_config");
        return 0;
    }
    // What import accepts, the model rules accept (import validates; estimate must not disagree).
    std::vector<FieldError> errs;
    validate_model(*r, errs, "");
    if (!errs.empty()) fuzz::fail("import accepted a model validate_model rejects: " + to_string(errs.front()));
    // The imported model in each mode with the default workload.
    Scenario s;
    s.model = *r;
    for (Mode mode : {Mode::Train, Mode::FineTune, Mode::Infer}) {
        s.mode = mode;
        fuzz::check_estimate(s);
    }
    return 0;
}
