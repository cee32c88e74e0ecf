#!/usr/bin/env python3
"""Research reproduction, not part of the estimate (issue 14 item 9, "what the GPU really shows").

Replays the order in which transformers' generate() allocates and frees its large tensors through a model
of PyTorch's CUDA caching allocator [pytorch-cuda-alloc] and compares the reserved memory it ends with
with the H100 runs in tests/data/accuracy/gpu-runs/ (torch.cuda.max_memory_reserved).

Why: in the runs without expandable segments, the allocated peak is estimated within ~1 % but the reserved
memory is 2-3x larger after a few hundred decode steps (Qwen3-0.6B, batch 32, 1024-token prompts: 8.4 GB
reserved after 128 new tokens, 10.3 after 256, 23.0 after 512, for 5.9-7.0 GB allocated). DynamicCache
grows each layer's K and V by torch.cat every step [transformers-code]: every step re-allocates 2 x layers
tensors one token longer than the blocks the previous step freed, so a freed block fits the next request
only after it has merged with free neighbours, and the rest is new segments.

Allocator rules modelled (c10/cuda/CUDACachingAllocator.cpp): sizes round up to 512 B; requests <= 1 MiB
use the small pool (2 MiB segments, not modelled: they never share blocks with the large pool); a large
request takes the smallest cached free block that holds it (best fit by size, then address), and the rest
is split off when it exceeds 1 MiB; otherwise a new segment of 20 MiB (requests < 10 MiB) or the request
rounded up to 2 MiB; a freed block merges with free neighbours in its segment; nothing is released (no
empty_cache, no memory pressure below 80 GB).

The trace is a simplification of the modules' forward (norms with fp32 upcasts for RMSNorm, q/k/v, Qwen3's
q/k norms, RoPE temporaries, the cache's cat, SDPA or eager scores, o_proj, residuals, the MLP's
intermediates; logits of the last position in bf16 and fp32 per step). Weights are allocated first.

Usage: python3 scripts/allocator_sim.py   (pure Python, ~1-3 minutes)
"""
import bisect
import json
import os

MIB = 1 << 20
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class CachingAllocator:
    """The large pool of PyTorch's caching allocator (one stream)."""

    def __init__(self):
        self.segments = []  # per segment: {start: [size, is_free]}
        self.free = []      # sorted (size, segment, start) of free blocks
        self.reserved = self.allocated = self.peak_allocated = 0

    def malloc(self, nbytes):
        n = max(512, (nbytes + 511) // 512 * 512)
        if n <= MIB:
            return None  # small pool: not modelled
        i = bisect.bisect_left(self.free, (n, -1, -1))
        if i < len(self.free):
            size, seg, start = self.free.pop(i)
        else:
            size = 20 * MIB if n < 10 * MIB else (n + 2 * MIB - 1) // (2 * MIB) * (2 * MIB)
            seg, start = len(self.segments), 0
            self.segments.append({0: [size, True]})
            self.reserved += size
        blocks = self.segments[seg]
        if size - n > MIB:
            blocks[start] = [n, False]
            blocks[start + n] = [size - n, True]
            bisect.insort(self.free, (size - n, seg, start + n))
        else:
            blocks[start] = [size, False]
            n = size
        self.allocated += n
        self.peak_allocated = max(self.peak_allocated, self.allocated)
        return (seg, start)

    def release(self, handle):
        if handle is None:
            return
        seg, start = handle
        blocks = self.segments[seg]
        size = blocks[start][0]
        self.allocated -= size
        nxt = start + size
        if nxt in blocks and blocks[nxt][1]:
            nsize = blocks.pop(nxt)[0]
            self.free.remove((nsize, seg, nxt))
            size += nsize
        prev = next((b for b, (bs, _) in blocks.items() if b + bs == start), None)
        if prev is not None and blocks[prev][1]:
            psize = blocks[prev][0]
            self.free.remove((psize, seg, prev))
            del blocks[start]
            start, size = prev, size + psize
        blocks[start] = [size, True]
        bisect.insort(self.free, (size, seg, start))


def generate(m, b, prompt, new_tokens, eager):
    """Runs prefill and new_tokens - 1 decode steps; returns the allocator."""
    a = CachingAllocator()
    eb = 2
    h, heads, kv, d, f, V, L = m["h"], m["heads"], m["kv"], m["d"], m["f"], m["V"], m["L"]
    weights = [a.malloc(V * h * eb)]
    for _ in range(L):
        for rows, cols in ((h, heads * d), (h, kv * d), (h, kv * d), (heads * d, h), (h, f), (f, h)) + (((h, f),) if m["gated"] else ()):
            weights.append(a.malloc(rows * cols * eb))
    if not m["tied"]:
        weights.append(a.malloc(V * h * eb))
    cache = [None] * (2 * L)

    def norm(T):
        if m["rms"]:  # hidden.to(float32), hidden * rsqrt(...), weight * hidden.to(dtype)
            t1, t2 = a.malloc(T * h * 4), a.malloc(T * h * 4)
            a.release(t1)
            x = a.malloc(T * h * eb)
            a.release(t2)
            return x
        return a.malloc(T * h * eb)

    def rms_norm_of(x, width):  # Qwen3's q_norm / k_norm: an fp32 temporary, then the 16-bit result
        t = a.malloc(width * 2)
        y = a.malloc(width)
        a.release(t)
        a.release(x)
        return y

    def layer(T, l, S, hid):
        x = norm(T)
        q, k, v = a.malloc(T * heads * d * eb), a.malloc(T * kv * d * eb), a.malloc(T * kv * d * eb)
        a.release(x)
        if m["qk_norm"]:
            q = rms_norm_of(q, T * heads * d * eb)
            k = rms_norm_of(k, T * kv * d * eb)
        if m["rope"]:  # q * cos + rotate_half(q) * sin
            for width, which in ((T * heads * d * eb, "q"), (T * kv * d * eb, "k")):
                r1, r2, out = a.malloc(width), a.malloc(width), a.malloc(width)
                a.release(r1)
                a.release(r2)
                if which == "q":
                    a.release(q)
                    q = out
                else:
                    a.release(k)
                    k = out
        for j, new in ((2 * l, k), (2 * l + 1, v)):  # DynamicLayer.update: torch.cat([cached, new], dim=-2)
            grown = a.malloc(b * kv * S * d * eb)
            a.release(cache[j])
            cache[j] = grown
            a.release(new)
        qlen = T // b
        if eager:
            scores = a.malloc(b * heads * qlen * S * eb)
            probs = a.malloc(b * heads * qlen * S * eb)
            a.release(scores)
            o = a.malloc(T * heads * d * eb)
            a.release(probs)
        else:
            o = a.malloc(T * heads * d * eb)
        a.release(q)
        oc = a.malloc(T * heads * d * eb)  # transpose(1, 2).reshape: a contiguous copy
        a.release(o)
        op = a.malloc(T * h * eb)
        a.release(oc)
        r = a.malloc(T * h * eb)
        a.release(hid)
        a.release(op)
        hid = r
        x = norm(T)
        if m["gated"]:  # down(act(gate(x)) * up(x))
            g, u = a.malloc(T * f * eb), a.malloc(T * f * eb)
            ag = a.malloc(T * f * eb)
            a.release(g)
            mid = a.malloc(T * f * eb)
            a.release(ag)
            a.release(u)
        else:  # gelu_new over fc's output: a few f-wide temporaries
            u = a.malloc(T * f * eb)
            t1, t2 = a.malloc(T * f * eb), a.malloc(T * f * eb)
            a.release(t1)
            mid = a.malloc(T * f * eb)
            a.release(t2)
            a.release(u)
        a.release(x)
        dn = a.malloc(T * h * eb)
        a.release(mid)
        r = a.malloc(T * h * eb)
        a.release(hid)
        a.release(dn)
        return r

    for step in range(new_tokens):
        T = b * prompt if step == 0 else b
        hid = a.malloc(T * h * eb)
        for l in range(L):
            hid = layer(T, l, prompt + step, hid)
        logits = a.malloc(b * V * eb)  # the last position only (logits_to_keep=1)
        logits32 = a.malloc(b * V * 4)
        a.release(logits)
        a.release(logits32)
        a.release(hid)
    return a


MODELS = {  # config.json values of the presets
    "qwen3-0.6b": dict(L=28, h=1024, heads=16, kv=8, d=128, f=3072, V=151936, rms=True, qk_norm=True, rope=True, gated=True, tied=True),
    "gpt2-large": dict(L=36, h=1280, heads=20, kv=20, d=64, f=5120, V=50257, rms=False, qk_norm=False, rope=False, gated=False, tied=True),
    "llama-3.1-8b": dict(L=32, h=4096, heads=32, kv=8, d=128, f=14336, V=128256, rms=True, qk_norm=False, rope=True, gated=True, tied=False),
}


def runs():
    base = os.path.join(ROOT, "tests", "data", "accuracy", "gpu-runs")
    for day in sorted(os.listdir(base)):
        if not os.path.isdir(os.path.join(base, day)):
            continue
        with open(os.path.join(base, day, "results.jsonl")) as fh:
            for line in fh:
                r = json.loads(line)
                rep = r.get("report") or {}
                sc = rep.get("scenario") or {}
                if sc.get("mode") == "infer" and sc.get("model") in MODELS and rep.get("outcome") == "measured":
                    yield r["case"], sc, rep["measured"]


def main():
    print("%-48s %9s %9s %9s %9s" % ("case", "alloc", "sim", "reserved", "sim"))
    for case, sc, measured in runs():
        inf = sc["infer"]
        if "expandable" in case:
            continue  # expandable segments map pages instead of splitting blocks
        prompt = inf.get("prompt", 0)
        a = generate(MODELS[sc["model"]], inf.get("batch", 1), prompt, inf["context"] - prompt, not inf.get("flash_attention", True))
        print("%-48s %8.2fG %8.2fG %8.2fG %8.2fG" % (case, measured["allocated"] / 1e9, a.peak_allocated / 1e9,
                                                   measured["reserved"] / 1e9, a.reserved / 1e9))


if __name__ == "__main__":
    main()
