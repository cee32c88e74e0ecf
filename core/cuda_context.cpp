// The CUDA context table (cuda_context.h): rows, the architecture of a GPU name, the row chosen.
#include "cuda_context.h"

#include <initializer_list>
#include <string_view>

#include "units.h"

namespace vl {

namespace {

constexpr CudaContextRow kRows[] = {
    {GpuArch::Hopper, true, ContextUse::PyTorchTraining, 767 * kMiB,
     "CUDA context table, Hopper, lazy module loading, after PyTorch training steps: H100 80GB HBM3, CUDA 13.0, PyTorch "
     "2.11, nvidia-smi used - torch reserved after the run: 751-767 MiB over 20 training and LoRA runs (527 MiB right after "
     "context creation), the largest taken [vramlens-h100-runs]",
     "vramlens-h100-runs"},
    {GpuArch::Hopper, true, ContextUse::PyTorchInference, 745 * kMiB,
     "CUDA context table, Hopper, lazy module loading, after Transformers generate: H100 80GB HBM3, CUDA 13.0, PyTorch 2.11, "
     "nvidia-smi used - torch reserved after the run: 687-745 MiB over 17 inference runs (527 MiB right after context "
     "creation), the largest taken [vramlens-h100-runs]",
     "vramlens-h100-runs"},
    {GpuArch::Blackwell, true, ContextUse::Any, 0.70 * kGiB,
     "CUDA context table, Blackwell, lazy module loading: a B200 with vLLM (~0.10), 177.66 of 178.36 GiB free at its start-up "
     "snapshot, before the model: 0.70 GiB [vllm-pr21489]",
     "vllm-pr21489"},
    {GpuArch::Pascal, false, ContextUse::Any, 721 * kMiB,
     "CUDA context table, Pascal, eager module loading: GeForce GTX 1080, PyTorch 1.8.2+cu101, 721 MiB after "
     "torch.Tensor(1).cuda() [pytorch-issue-55277]",
     "pytorch-issue-55277"},
    {GpuArch::Volta, false, ContextUse::Any, 1343 * kMiB,
     "CUDA context table, Volta, eager module loading: Tesla V100-SXM2, CUDA 11.2, 1343 MiB after "
     "torch.ones((1, 1)).to('cuda') [hf-perf-train-gpu-one]",
     "hf-perf-train-gpu-one"},
    {GpuArch::Ampere, false, ContextUse::Any, 1687 * kMiB,
     "CUDA context table, Ampere, eager module loading: GeForce RTX 3090, PyTorch 1.8.2+cu111, 1687 MiB after "
     "torch.Tensor(1).cuda() [pytorch-issue-55277]",
     "pytorch-issue-55277"},
    {GpuArch::Unknown, false, ContextUse::Any, 1687 * kMiB,
     "CUDA context table, eager module loading, no row for this architecture: the largest eager-loading measurement "
     "(RTX 3090, CUDA 11.1, 1687 MiB) [pytorch-issue-55277]",
     "pytorch-issue-55277"},
    {GpuArch::Unknown, true, ContextUse::Any, 512 * kMiB,
     "CUDA context table, lazy module loading (CUDA >= 11.7): 273.75 MiB after a small tensor op with CUDA 11.7 "
     "[pytorch-pr86509], 426 MiB for the context alone with CUDA 13.0 on an RTX 6000 Ada [unsloth-zoo-pr1053]; "
     "512 MiB leaves room for the kernels a run loads",
     "pytorch-pr86509 unsloth-zoo-pr1053"},
};

// ASCII lower case: the tokens below are ASCII, and no byte outside A-Z lowers to one of theirs.
char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }


GpuArch classify(std::string_view n) {
    const auto any = [&](std::initializer_list<std::string_view> tokens) {
        for (std::string_view t : tokens)
            if (gpu_name_has(n, t)) return true;
        return false;
    };
    if (any({"amd", "instinct", "mi300", "mi250", "mi325"})) return GpuArch::AMD;
    if (any({"b200", "b100", "gb200", "rtx 50", "5090", "5080", "rtx pro 6000"})) return GpuArch::Blackwell;
    if (any({"h100", "h200", "h800", "h20", "gh200"})) return GpuArch::Hopper;
    if (any({"l40", "l4 ", "rtx 40", "4090", "4080", " ada"}) || (n.size() >= 3 && gpu_name_has(n.substr(n.size() - 3), " l4"))) return GpuArch::Ada;
    if (any({"a100", "a800", "a10", "a30", "a40", "a6000", "a5000", "rtx 30", "3090", "3080"})) return GpuArch::Ampere;
    if (any({"t4", "rtx 20", "2080", "titan rtx", "quadro rtx"})) return GpuArch::Turing;
    if (any({"v100", "titan v"})) return GpuArch::Volta;
    if (any({"p100", "p40", "1080", "titan x"})) return GpuArch::Pascal;
    return GpuArch::Unknown;
}

}  // namespace

bool gpu_name_has(std::string_view name, std::string_view token) {
    for (size_t i = 0; i + token.size() <= name.size(); ++i) {
        size_t k = 0;
        while (k < token.size() && lower(name[i + k]) == token[k]) ++k;
        if (k == token.size()) return true;
    }
    return false;
}

std::span<const CudaContextRow> cuda_context_rows() { return kRows; }

// A training estimate asks for its GPU's architecture on every call, and sweeps and solvers make
// thousands of calls with one GPU: the last name's answer is kept (per thread, names up to 64 bytes),
// so the token search runs once per GPU name instead of once per estimate.
GpuArch gpu_arch(std::string_view gpu_name) {
    thread_local char last_name[64];
    thread_local size_t last_size = sizeof last_name + 1;  // nothing kept yet
    thread_local GpuArch last_arch = GpuArch::Unknown;
    if (gpu_name.size() == last_size && gpu_name == std::string_view(last_name, last_size)) return last_arch;
    const GpuArch arch = classify(gpu_name);
    if (gpu_name.size() <= sizeof last_name) {
        gpu_name.copy(last_name, gpu_name.size());
        last_size = gpu_name.size();
        last_arch = arch;
    }
    return arch;
}

const char* gpu_arch_name(GpuArch a) {
    switch (a) {
        case GpuArch::Unknown: return "unknown architecture";
        case GpuArch::Pascal: return "Pascal";
        case GpuArch::Volta: return "Volta";
        case GpuArch::Turing: return "Turing";
        case GpuArch::Ampere: return "Ampere";
        case GpuArch::Ada: return "Ada";
        case GpuArch::Hopper: return "Hopper";
        case GpuArch::Blackwell: return "Blackwell";
        case GpuArch::AMD: return "AMD";
    }
    return "unknown architecture";
}

const CudaContextRow& cuda_context_row(GpuArch arch, bool lazy_loading, ContextUse use) {
    const auto match = [&](GpuArch a) -> const CudaContextRow* {
        for (const CudaContextRow& r : kRows)
            if (r.arch == a && r.lazy_loading == lazy_loading && (r.use == use || r.use == ContextUse::Any)) return &r;
        return nullptr;
    };
    if (const CudaContextRow* r = match(arch)) return *r;
    if (const CudaContextRow* r = match(GpuArch::Unknown)) return *r;
    return kRows[0];  // unreachable: both Unknown rows serve every use
}

ContextUse context_use(const Scenario& s) {
    if (s.mode == Mode::Train || s.mode == Mode::FineTune) return ContextUse::PyTorchTraining;
    const bool pytorch = s.infer.engine == Engine::Transformers || s.infer.engine == Engine::VLLM;  // vLLM runs on PyTorch
    return s.mode == Mode::Infer && pytorch ? ContextUse::PyTorchInference : ContextUse::Any;
}

double cuda_context_bytes(const Scenario& s) {
    if (s.overheads.cuda_context_bytes >= 0) return s.overheads.cuda_context_bytes;
    return cuda_context_row(gpu_arch(s.gpu.name), s.overheads.cuda_lazy_loading, context_use(s)).bytes;
}

const char* cuda_context_source(const Scenario& s) {
    if (s.overheads.cuda_context_bytes >= 0)
        return "overheads.cuda_context_bytes as given (CUDA context + kernels; not in torch.cuda.max_memory_allocated [pytorch-docs])";
    return cuda_context_row(gpu_arch(s.gpu.name), s.overheads.cuda_lazy_loading, context_use(s)).what;
}

}  // namespace vl
