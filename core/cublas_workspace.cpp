// PyTorch's cuBLAS workspaces (cublas_workspace.h): the size per (handle, stream) and the handles a run holds.
#include "cublas_workspace.h"

#include "cuda_context.h"
#include "formula.h"

namespace vl {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The digits at `i` as a number (i moves past them); nullopt without a digit or above 1e15.
std::optional<double> read_number(std::string_view t, size_t& i) {
    const size_t start = i;
    double v = 0;
    while (i < t.size() && is_digit(t[i])) {
        v = v * 10 + (t[i] - '0');
        if (v > 1e15) return std::nullopt;
        ++i;
    }
    if (i == start) return std::nullopt;
    return v;
}

}  // namespace

// parseChosenWorkspaceSize [pytorch-cublas-handle-pool]: the regex ":([0-9]+):([0-9]+)" over the whole text, every
// match adding SIZE * 1024 * COUNT; a text without a match keeps the default.
std::optional<double> parse_cublas_workspace_config(std::string_view t) {
    double total = 0;
    bool matched = false;
    size_t i = 0;
    while (i < t.size()) {
        if (t[i] != ':') { ++i; continue; }
        size_t j = i + 1;
        const std::optional<double> size = read_number(t, j);
        if (!size || j >= t.size() || t[j] != ':') { ++i; continue; }
        ++j;
        const std::optional<double> count = read_number(t, j);
        if (!count) { ++i; continue; }
        total += *size * 1024 * *count;
        if (total > 1e15) return std::nullopt;
        matched = true;
        i = j;
    }
    if (!matched) return std::nullopt;
    return total;
}

double cublas_workspace_default(std::string_view gpu_name) {
    switch (gpu_arch(gpu_name)) {
        case GpuArch::Hopper:
        case GpuArch::Blackwell: return kCublasWorkspace32MiB;
        case GpuArch::AMD:
            for (std::string_view gfx94x : {"mi300", "mi325", "mi350", "mi355"})
                if (gpu_name_has(gpu_name, gfx94x)) return kCublasWorkspaceGfx94x;
            return kCublasWorkspace32MiB;
        default: return kCublasWorkspaceDefault;
    }
}

double cublas_workspace_bytes(const Scenario& s) {
    return s.overheads.cublas_workspace_bytes >= 0 ? s.overheads.cublas_workspace_bytes : cublas_workspace_default(s.gpu.name);
}

int cublas_handles(const Scenario& s) { return s.mode == Mode::Infer ? 1 : 2; }

void add_cublas_workspace(const Scenario& s, Detail d, Estimate& e, unsigned phases) {
    const double w = cublas_workspace_bytes(s);
    if (w <= 0) return;
    const bool given = s.overheads.cublas_workspace_bytes >= 0;
    add(e, d, comp("buffers.cublas_workspace", "cuBLAS workspaces (one per handle and stream)", Category::Buffers, phases,
                   given ? "overheads.cublas_workspace_bytes as given, per cuBLAS handle and stream (CUBLAS_WORKSPACE_CONFIG :SIZE:COUNT "
                           "is SIZE KiB x COUNT); one handle per thread that runs matmuls: the caller's and in training the autograd "
                           "engine's device thread [pytorch-cublas-handle-pool] [pytorch-autograd-engine]"
                         : "PyTorch allocates one cuBLAS workspace per handle and stream from the caching allocator at its first matmul "
                           "and keeps it: 32 MiB on Hopper and Blackwell, :4096:2:16:8 = 8,519,680 B on older GPUs, 32 MiB or 128 MiB "
                           "(MI300X) on ROCm; one handle per thread that runs matmuls: the caller's and in training the autograd "
                           "engine's device thread [pytorch-cublas-handle-pool] [pytorch-issue-95668] [pytorch-autograd-engine]"),
        [&](auto& q) { return q("handles", static_cast<double>(cublas_handles(s))) * q("cublas_workspace_bytes", w); });
}

}  // namespace vl
