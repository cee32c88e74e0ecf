// The CUDA context a framework process holds on each GPU (issue 14, mechanism 1): the driver's
// context plus the kernels loaded into it, as nvidia-smi counts it and torch.cuda.memory_allocated
// does not. A small table by GPU architecture, CUDA module loading and what the process runs (with lazy
// loading the context grows by the kernels a workload uses: a PyTorch training step loads more than a
// generate call), each row a measurement (keys in docs/sources.md); overheads.cuda_context_bytes >= 0
// replaces it.
//
// Before CUDA 11.7 every kernel of every loaded library went into the context when the library
// loaded (over 1 GiB with PyTorch); from CUDA 11.7 with lazy module loading (PyTorch >= 1.13 sets
// CUDA_MODULE_LOADING=LAZY by default [pytorch-pr86509]) only the kernels a run uses are loaded.
#pragma once
#include <span>
#include <string_view>

#include "scenario.h"

namespace vl {

enum class GpuArch { Unknown, Pascal, Volta, Turing, Ampere, Ada, Hopper, Blackwell, AMD };

// What the process has run when its context is read: with lazy module loading a kernel enters the
// context on its first launch, so the context after a PyTorch training step holds more than after
// a generate call. Any: a row measured without a workload, for every use.
enum class ContextUse { Any, PyTorchInference, PyTorchTraining };

struct CudaContextRow {
    GpuArch arch;       // Unknown: every architecture without a row of its own
    bool lazy_loading;  // CUDA >= 11.7 with CUDA_MODULE_LOADING=LAZY (PyTorch >= 1.13's default)
    ContextUse use;     // the workload the row was measured after; Any: every workload
    double bytes;       // nvidia-smi bytes of a process after its first CUDA tensor, no model
    const char* what;   // the row and its measurement with citations, shown as the component's source
    const char* keys;   // its docs/sources.md keys, space-separated
};

// The rows, most specific first; cuda_context_row() takes the first that matches.
std::span<const CudaContextRow> cuda_context_rows();

// The architecture of a GPU from its name (the presets' names and nvidia-smi's): "V100" -> Volta,
// "A100" / "RTX 3090" / "A10" -> Ampere, "H100" / "H200" / "H20" -> Hopper, ...; Unknown otherwise.
GpuArch gpu_arch(std::string_view gpu_name);
const char* gpu_arch_name(GpuArch a);

// Whether a GPU's name holds the lower-case ASCII `token`, ignoring the name's case (no copy of the name).
bool gpu_name_has(std::string_view name, std::string_view token);

// The table's row for this GPU, module loading and workload: the first row of this architecture
// whose use is `use` or Any, else the first Unknown-architecture row likewise.
const CudaContextRow& cuda_context_row(GpuArch arch, bool lazy_loading, ContextUse use = ContextUse::Any);

// The workload a scenario's process runs: PyTorch training (train, fine-tune), PyTorch inference
// (Transformers generate, vLLM); Any for llama.cpp (not PyTorch) and the rest.
ContextUse context_use(const Scenario& s);

// The bytes the estimate uses: overheads.cuda_context_bytes when it is >= 0, else the table's row
// for the scenario's GPU, overheads.cuda_lazy_loading and context_use.
double cuda_context_bytes(const Scenario& s);

// Where those bytes come from, for the derivation: the row's text, or that the number was given.
const char* cuda_context_source(const Scenario& s);

}  // namespace vl
