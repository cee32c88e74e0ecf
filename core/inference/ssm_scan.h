// The working memory of one state-space mixer's prefill forward in transformers: what the scan itself
// allocates beyond the tensors mamba_mixer_live_bytes (runtime.h) counts (the in_proj output, the conv
// output, the scan output and its gate, the block's input and output). transformers runs the layers one
// after the other, so one mixer's working memory is live at a time. Which code runs is
// infer.ssm_kernels: the plain PyTorch paths (no optional kernels installed) or the fused kernels.
// Every formula is over one layer, b sequences of q prefill tokens, in bytes.
#pragma once
#include <cstdint>

#include "formula.h"
#include "model_spec.h"

namespace vl {

// torch_chunk_gated_delta_rule's chunk_size: the Gated DeltaNet mixers call it without one, so its default
// 64 [transformers-ssm-torch].
inline constexpr int64_t kGdnTorchChunk = 64;
// mamba-ssm's selective_scan_fwd splits the sequence into chunks of 2048 tokens (n_chunks) [mamba-ssm-code].
inline constexpr int64_t kSelectiveScanChunk = 2048;

// Mamba1 without the kernels: MambaMixer.slow_forward (JambaMambaMixer's and FalconMambaMixer's are copies)
// discretises the whole sequence before its per-token loop: discrete_A = exp(A * delta), discrete_B =
// delta * B and deltaB_u = discrete_B * x, each (b, d_inner, q, d_state) in fp32 (A is A_log.float(), and
// B and x are upcast with .float()); the three are locals, live until the mixer returns. At deltaB_u's line
// the fp32 copy of x (hidden_states[..., None].float(), b * q * d_inner) is live beside them; later the
// per-token outputs and their stack hold as much in 16 bits beyond the scan output counted
// [transformers-ssm-torch]: b * q * d_inner * (3 * d_state + 1) * 4. d_inner splits over tp as in
// mamba_mixer_live_bytes.
template <class Q>
auto mamba1_torch_scan_bytes(Q& q, const ModelSpec& m, int64_t batch, int64_t tokens, int64_t tp) {
    const SsmSpec& x = m.ssm;
    const auto d_in = q("d_inner", static_cast<double>(x.inner)) / q("tp", static_cast<double>(tp));
    return q("b", static_cast<double>(batch)) * q("q", static_cast<double>(tokens)) * d_in *
           (3 * q("d_state", static_cast<double>(x.state)) + 1) * q("fp32_bytes", 4.0);
}

// Mamba2 without the kernels: Mamba2Mixer.torch_forward (the mixers of Falcon-H1, GraniteMoeHybrid, Nemotron-H
// and Bamba are copies) computes the SSD chunk by chunk in fp32 [transformers-ssm-torch]. The prompt is padded to
// S = ceil(q / l) * l tokens, c = S / l chunks of l = chunk_size; H heads, d = d_inner, n = d_state; per padded
// token. The peak is where G = G_intermediate.sum(-1) contracts C * B: x * dt and D_residual (2 d), B and C
// repeated to every head (2 H n), L = exp(segment_sum(A)) (l H), G_intermediate (b, c, l, l, H, n) (l H n) and
// G (l H): W_G = 2 d + 2 H n + l H (n + 2). transformers 5.17 releases G_intermediate once it is summed: on an
// H200 (torch 2.11, no kernels) Mamba-Codestral-7B, Nemotron-H-8B, Granite-4.0-H-1B and Falcon-H1-0.5B at 4096
// tokens peaked within 0.2% of W_G, where the text read at 020a37d, which names it, would keep it beside the
// later steps' products. Those later steps hold W_kept (x * dt, D_residual, B, C, L, G, M_intermediate and M:
// 2 d + 2 H n + 4 l H) and the largest of: W_diag, Y_diag's product M[..., None] * x (b, c, l, l, H, head_dim)
// with its sum (S (l + 1) d); W_pass, the inter-chunk recurrence, Y_diag and B_decay (S (d + H n)) with
// previous_states, the concatenated states, the (b, c+1, c+1, H, head_dim, n) product and new_states
// ((c + 2)^2 d n); W_out, the output, Y_diag, Y_off and y (3 S d), B_decay (S H n), C_times_states (S d n),
// new_states and previous_states ((c + 2) d n), and the gated RMSNorm's fp32 gate, its silu and the gated
// product (3 q d). They exceed W_G only when d_state is below head_dim. The per-head vectors (A, A_cumsum,
// decay_states, state_decay_out: S H floats each, 1/l of L) are left out. All fp32:
// b * max(S W_G, S W_kept + max(W_diag, W_pass, W_out)) * 4.
template <class Q>
auto mamba2_torch_scan_bytes(Q& q, const ModelSpec& m, int64_t batch, int64_t tokens) {
    const SsmSpec& x = m.ssm;
    const int64_t chunks = (tokens + x.chunk - 1) / x.chunk;
    const auto S = q("S", static_cast<double>(chunks * x.chunk));
    const auto l = q("chunk", static_cast<double>(x.chunk));
    const auto c = q("chunks", static_cast<double>(chunks));
    const auto d = q("d_inner", static_cast<double>(x.inner));
    const auto H = q("ssm_heads", static_cast<double>(x.heads));
    const auto n = q("d_state", static_cast<double>(x.state));
    const auto contraction = q.let("W_G", 2 * d + 2 * H * n + l * H * (n + 2));
    const auto kept = q.let("W_kept", 2 * d + 2 * H * n + 4 * l * H);
    const auto diag = q.let("W_diag", S * (l + 1) * d);
    const auto pass = q.let("W_pass", S * (d + H * n) + (c + 2) * (c + 2) * d * n);
    const auto out = q.let("W_out", S * (3 * d + H * n + d * n) + (c + 2) * d * n + 3 * q("q", static_cast<double>(tokens)) * d);
    return q("b", static_cast<double>(batch)) * max_of(S * contraction, S * kept + max_of(diag, max_of(pass, out))) * q("fp32_bytes", 4.0);
}

// Gated DeltaNet without the kernels (Qwen3_5GatedDeltaNet; Qwen3NextGatedDeltaNet taken to be its copy): the
// mixer's own 16-bit tensors while the delta rule runs, per token [transformers-ssm-torch]: the conv's silu output
// over q, k and v (2 key_dim + value_dim; q, k and v are views of it), z (value_dim), b and a (2 H), beta (H)
// and the fp32 g (2 H in 16-bit units), and the block's input, normed input and residual (3h):
// b * q * (2 key_dim + 2 value_dim + 5 H + 3 h) * 2.
template <class Q>
auto gdn_torch_mixer_bytes(Q& q, const ModelSpec& m, int64_t batch, int64_t tokens) {
    const SsmSpec& x = m.ssm;
    const auto key_dim = q("key_dim", static_cast<double>(x.groups * x.state));
    const auto value_dim = q("value_dim", static_cast<double>(x.inner));
    const auto per_token = 2 * key_dim + 2 * value_dim + 5 * q("v_heads", static_cast<double>(x.heads)) + 3 * q("h", static_cast<double>(m.hidden));
    return q("b", static_cast<double>(batch)) * q("q", static_cast<double>(tokens)) * per_token * q("act_bytes", 2.0);
}

// torch_chunk_gated_delta_rule's fp32 working set, over S = q padded to chunks of C = 64 and H value heads of d_k
// and d_v (q and k repeated to every value head) [transformers-ssm-torch]. Through the chunk loop it holds, per head
// and padded token, query, key, k_beta, decayed_k_beta and k_cumdecay (5 d_k), value, v_beta, new_values and
// core_attn_out (4 d_v), and pairwise_decay, ut_system and intra_chunk_attn (3 C); just before the loop query (then
// key) is rebuilt beside the old one (W_decay = 6 d_k + 4 d_v + 3 C); at the end core_attn_out is cast back to 16
// bits over q tokens (W_loop = 5 d_k + 4 d_v + 3 C, plus 2 q d_v):
// b * H * max(4 S W_decay, 4 S W_loop + 2 q d_v).
template <class Q>
auto gdn_torch_rule_bytes(Q& q, const ModelSpec& m, int64_t batch, int64_t tokens) {
    const SsmSpec& x = m.ssm;
    const int64_t chunks = (tokens + kGdnTorchChunk - 1) / kGdnTorchChunk;
    const auto S = q("S", static_cast<double>(chunks * kGdnTorchChunk));
    const auto C = q("chunk", static_cast<double>(kGdnTorchChunk));
    const auto dk = q("d_k", static_cast<double>(x.state));
    const auto dv = q("d_v", static_cast<double>(x.heads > 0 ? x.inner / x.heads : 0));
    const auto fp32 = q("fp32_bytes", 4.0);
    const auto decay = q.let("W_decay", 6 * dk + 4 * dv + 3 * C);
    const auto loop = q.let("W_loop", 5 * dk + 4 * dv + 3 * C);
    const auto out = q("q", static_cast<double>(tokens)) * dv * q("act_bytes", 2.0);
    return q("b", static_cast<double>(batch)) * q("v_heads", static_cast<double>(x.heads)) * max_of(fp32 * S * decay, fp32 * S * loop + out);
}

// Mamba1 with mamba-ssm: selective_scan_fn returns the last state as a view of the kernel's fp32 chunk states
// x (b, d_inner, ceil(q / 2048), 2 d_state), so they stay allocated until the mixer returns
// (SelectiveScanFn.forward: last_state = x[:, :, -1, 1::2]) [mamba-ssm-code].
template <class Q>
auto mamba1_fused_scan_bytes(Q& q, const ModelSpec& m, int64_t batch, int64_t tokens, int64_t tp) {
    const SsmSpec& x = m.ssm;
    const int64_t chunks = (tokens + kSelectiveScanChunk - 1) / kSelectiveScanChunk;
    return q("b", static_cast<double>(batch)) * (q("d_inner", static_cast<double>(x.inner)) / q("tp", static_cast<double>(tp))) *
           q("scan_chunks", static_cast<double>(chunks)) * 2 * q("d_state", static_cast<double>(x.state)) * q("fp32_bytes", 4.0);
}

// Mamba2 with mamba-ssm: mamba_chunk_scan_combined (_mamba_chunk_scan_combined_fwd) holds dA_cumsum and dt
// (b, H, c, l) in fp32 and the final state (b, d_inner, d_state, fp32) throughout; _state_passing_fwd reads the
// fp32 chunk states (b, c, H, head_dim, n) and writes them in the activations' 16 bits (6 c d n bytes at
// once), then _chunk_scan_fwd reads those with CB = C^T B (b, c, groups, l, l) in fp32 (2 c d n + 4 S G l).
// Its output is the SSD output y counted in mamba_mixer_live_bytes [mamba-ssm-code]:
// b * (8 H S + 4 d n + max(6 c d n, 2 c d n + 4 S G l)).
template <class Q>
auto mamba2_fused_scan_bytes(Q& q, const ModelSpec& m, int64_t batch, int64_t tokens) {
    const SsmSpec& x = m.ssm;
    const int64_t chunks = (tokens + x.chunk - 1) / x.chunk;
    const auto S = q("S", static_cast<double>(chunks * x.chunk));
    const auto c = q("chunks", static_cast<double>(chunks));
    const auto dn = q("d_inner", static_cast<double>(x.inner)) * q("d_state", static_cast<double>(x.state));
    const auto held = 8 * q("ssm_heads", static_cast<double>(x.heads)) * S + 4 * dn;
    const auto passing = 6 * c * dn;
    const auto scan = 2 * c * dn + 4 * S * q("groups", static_cast<double>(x.groups)) * q("chunk", static_cast<double>(x.chunk));
    return q("b", static_cast<double>(batch)) * (held + max_of(passing, scan));
}

}  // namespace vl
