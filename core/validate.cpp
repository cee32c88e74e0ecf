// validate(): every rule a Scenario must satisfy, each error naming its field. It is the one owner
// of the rules: the parsers check only the form of a value, and the CLI and the web UI show what
// this returns. Each rule is written once, beside the code that needs it (model, parallel layout,
// training, inference); the rules every mode shares are here. One problem gives one error: rules
// that compare a field with the model's sizes are skipped while the model itself is invalid, a rule
// relating two fields is skipped while the other is in error (reported()), and a field gets at most
// one error.
#include <cmath>
#include <cstdio>
#include <string>

#include "cold.h"
#include "estimate.h"
#include "framework_profiles.h"
#include "inference/inference.h"
#include "model/model_validate.h"
#include "parallel.h"
#include "training/training.h"

namespace vl {

namespace {

std::string num(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

void range(std::vector<FieldError>& errs, const char* field, double v, double lo, double hi) {
    if (!(v >= lo && v <= hi)) cold([&] { errs.push_back({field, "must be in [" + num(lo) + ", " + num(hi) + "]; got " + num(v)}); });
}

}  // namespace

std::vector<FieldError> validate(const Scenario& s) {
    std::vector<FieldError> errs;
    validate_model(s.model, errs);
    // A Local scenario is planned (core/planner/local.h plan_local: per device, llama.cpp / vLLM), not
    // estimated for one GPU kind: its estimate is this error, never the training path's numbers.
    if (s.mode == Mode::Local) {
        cold([&] { errs.push_back({"mode", "local is a placement plan for your own machine, not a per-GPU estimate: plan it with plan_local() "
                                           "(the page's Run locally results, `vramlens plan`), or choose train, finetune or infer"}); });
        return errs;
    }
    const bool model_valid = errs.empty();
    if (auto e = profile_error(s.profile, s.mode)) errs.push_back(*e);  // a mode changed after its profile was applied
    if (!(s.gpu.memory_bytes > 0) || s.gpu.memory_bytes > 1e15)
        cold([&] { errs.push_back({"gpu.memory_bytes", "must be > 0 and at most 1 PB; got " + std::to_string(s.gpu.memory_bytes)}); });
    const Overheads& ov = s.overheads;
    if (!std::isfinite(ov.cuda_context_bytes) || ov.cuda_context_bytes > 1e12)
        cold([&] { errs.push_back({"overheads.cuda_context_bytes",
                                   "must be a byte count up to 1e12 (below 0: the CUDA context table by GPU architecture); got " +
                                       std::to_string(ov.cuda_context_bytes)}); });
    if (!std::isfinite(ov.cublas_workspace_bytes) || ov.cublas_workspace_bytes > 1e12)
        cold([&] { errs.push_back({"overheads.cublas_workspace_bytes",
                                   "must be a byte count up to 1e12 (below 0: PyTorch's default by GPU architecture; 0: none); got " +
                                       std::to_string(ov.cublas_workspace_bytes)}); });
    range(errs, "overheads.fragmentation", ov.fragmentation, 0, 1);
    range(errs, "overheads.bucket_bytes", ov.bucket_bytes, 0, 1e12);
    validate_parallel(s, model_valid, errs);
    // Zamba's shared blocks serve layers on every pipeline stage; which stage holds their weights (and whether a stage
    // keeps a copy) is not modelled.
    if (s.model.ssm.shared_blocks > 0) cold([&] {
        if (s.parallel.pp > 1 && !reported(errs, "parallel.pp"))
            errs.push_back({"parallel.pp", "a Zamba model's shared transformer blocks (model.ssm.shared_blocks) run on layers of every "
                                           "pipeline stage, which vramlens does not split: use pp 1; got " + std::to_string(s.parallel.pp)});
    });
    if (s.mode == Mode::Infer) {
        validate_inference(s, errs);
    } else {
        // An embedder is trained with a contrastive loss over pooled outputs (sentence-transformers), not the causal LM's.
        if (s.model.embedder)
            cold([&] { errs.push_back({"model.embedder", "an embedder (no LM head) is sized for serving; its contrastive training over pooled outputs is "
                                                         "not modelled: use mode infer, or set embedder false to train the causal LM"}); });
        validate_training(s, errs);
    }
    // One error per field: the first rule it breaks (its own range before its relations to others);
    // fixing that one shows the next, if any (tp = 3 breaks "divides heads", "divides kv heads" and
    // "divides ffn" at once).
    for (size_t i = 1; i < errs.size();) {
        if (reported(std::span(errs).first(i), errs[i].field)) errs.erase(errs.begin() + static_cast<std::ptrdiff_t>(i));
        else ++i;
    }
    return errs;
}

}  // namespace vl
