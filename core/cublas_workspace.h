// PyTorch's cuBLAS workspaces (issue 14, library workspaces): memory the caching allocator holds for cuBLAS,
// counted in torch.cuda.max_memory_allocated() and in reserved memory, that no tensor of the model owns.
//
// aten/src/ATen/cuda/CublasHandlePool.cpp [pytorch-cublas-handle-pool]: getCurrentCUDABlasHandle() takes a cuBLAS
// handle from a pool through a thread-local window (one handle per thread and device) and, at that handle's first
// matmul on a stream, allocates its workspace from the CUDA caching allocator (getNewWorkspace) and keeps it in a map
// keyed by (handle, stream) for the life of the process. Its size (parseChosenWorkspaceSize) is CUBLAS_WORKSPACE_CONFIG
// ":SIZE:COUNT..." summed as SIZE KiB x COUNT, else the default ":4096:2:16:8" = 4096 KiB x 2 + 16 KiB x 8 =
// 8,519,680 B [pytorch-pr91564] (PyTorch 2.0's Linear leaves exactly these bytes allocated [pytorch-issue-95668]),
// or 32 MiB (":4096:8") on Hopper and, from [pytorch-pr175344], Blackwell. ROCm builds use the same map with 32 MiB,
// 128 MiB on gfx942 / gfx950 (MI300X, MI325X, MI355X) [pytorch-cublas-handle-pool].
//
// Threads: the thread that runs the forward holds one handle; the autograd engine runs a CUDA tensor's backward on
// its own long-lived device thread (one per device) [pytorch-autograd-engine], whose window reserves a second handle,
// so training holds two workspaces on the same stream, inference one.
//
// Not counted here: cuBLASLt's workspace (CUBLASLT_WORKSPACE_SIZE, 1024 KiB by default [pytorch-pr73439]) is at most
// 1 MiB per handle on CUDA, and shares the cuBLAS workspace where the unified workspace is on [pytorch-pr168175];
// hipBLASLt's (76 MiB on ROCm) is not modelled; Transformer Engine's own GEMM workspaces are not PyTorch's.
// Engines that are not PyTorch (llama.cpp, TEI) and vLLM, whose profile run measures its own torch peak, are
// not given this component (docs/measured-set.md, "cuBLAS workspaces").
#pragma once
#include <optional>
#include <string_view>

#include "estimate.h"
#include "scenario.h"

namespace vl {

// CUBLAS_WORKSPACE_CONFIG's default below Hopper, ":4096:2:16:8": 4096 KiB x 2 + 16 KiB x 8 [pytorch-pr91564].
inline constexpr double kCublasWorkspaceDefault = 4096.0 * 1024 * 2 + 16.0 * 1024 * 8;  // 8,519,680 B
// Hopper (and Blackwell from [pytorch-pr175344]), and ROCm's default: ":4096:8" = 32 MiB [pytorch-cublas-handle-pool].
inline constexpr double kCublasWorkspace32MiB = 4096.0 * 1024 * 8;  // 33,554,432 B
// ROCm on gfx942 / gfx950 (MI300X, MI325X, MI355X): 128 MiB [pytorch-cublas-handle-pool].
inline constexpr double kCublasWorkspaceGfx94x = 128.0 * 1024 * 1024;

// The bytes CUBLAS_WORKSPACE_CONFIG asks for, as PyTorch's parseChosenWorkspaceSize reads it: every ":SIZE:COUNT"
// in the text adds SIZE KiB x COUNT (":4096:8" -> 33,554,432; ":4096:2:16:8" -> 8,519,680; ":16:8" -> 131,072).
// nullopt when the text holds no ":SIZE:COUNT" (PyTorch then warns and keeps its default) or a number too large.
std::optional<double> parse_cublas_workspace_config(std::string_view config);

// PyTorch's default workspace per (handle, stream) for a GPU by its name: 32 MiB on Hopper and Blackwell, 128 MiB on
// MI300X / MI325X / MI355X, 32 MiB on other AMD GPUs, 8,519,680 B on every other NVIDIA GPU.
double cublas_workspace_default(std::string_view gpu_name);

// The bytes the estimate uses per (handle, stream): overheads.cublas_workspace_bytes when it is >= 0, else the default.
double cublas_workspace_bytes(const Scenario& s);

// The cuBLAS handles a PyTorch process runs matmuls with on one GPU: 2 in training and fine-tuning (the forward's
// thread and the autograd engine's device thread), 1 in inference.
int cublas_handles(const Scenario& s);

// The component "buffers.cublas_workspace": handles x bytes per handle, live in `phases` (from the first matmul on).
void add_cublas_workspace(const Scenario& s, Detail d, Estimate& e, unsigned phases);

}  // namespace vl
