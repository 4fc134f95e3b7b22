"""The PyTorch peer of bench/speed/train.ts: the `tiny` policy's shape trained nanoGPT-style on the CPU.

Same shape and step as the lab's trainer: token and learned position embeddings, pre-norm blocks with smeared
attention keys, GELU (tanh) MLP, tied head, masked next-token cross-entropy, global-norm clipping, AdamW.
Prints one JSON object: {"torch": version, "tokensPerS": {"1": ..., "2": ...}, "stepMs": {...}, "cpuStepMs": {...}}
(cpuStepMs: the process's CPU time a step, median; on one thread what a step costs when the cores are shared).

    python3 bench/speed/train_torch.py [--threads 1,2] [--steps 10] [--vocab 2048] [--block 256] [--batch 8]
"""
import argparse
import json
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, C, H):
        super().__init__()
        self.H = H
        self.ln_1 = nn.LayerNorm(C)
        self.c_attn = nn.Linear(C, 3 * C)
        self.smear = nn.Parameter(torch.zeros(H))
        self.c_proj = nn.Linear(C, C)
        self.ln_2 = nn.LayerNorm(C)
        self.c_fc = nn.Linear(C, 4 * C)
        self.mlp_proj = nn.Linear(4 * C, C)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, self.H, C // self.H).transpose(1, 2) for t in (q, k, v))
        s = torch.sigmoid(self.smear).view(1, self.H, 1, 1)
        k = s * k + (1 - s) * F.pad(k, (0, 0, 1, 0))[:, :, :T]
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


class GPT(nn.Module):
    def __init__(self, V, T, L, H, C):
        super().__init__()
        self.wte = nn.Embedding(V, C)
        self.wpe = nn.Embedding(T, C)
        self.blocks = nn.ModuleList(Block(C, H) for _ in range(L))
        self.ln_f = nn.LayerNorm(C)

    def forward(self, idx, targets, mask):
        T = idx.shape[1]
        x = self.wte(idx) + self.wpe(torch.arange(T))
        for b in self.blocks:
            x = b(x)
        logits = self.ln_f(x) @ self.wte.weight.t()
        nll = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.reshape(-1), reduction="none")
        return (nll * mask.view(-1)).sum() / mask.sum().clamp(min=1)


def tokens_per_s(args, threads):
    torch.set_num_threads(threads)
    torch.manual_seed(1)
    model = GPT(args.vocab, args.block, args.layers, args.heads, args.width)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.95), weight_decay=0.1)
    B, T = args.batch, args.block

    def step():
        idx = torch.randint(args.vocab, (B, T + 1))
        loss = model(idx[:, :-1], idx[:, 1:], torch.ones(B, T))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        return loss.item()

    for _ in range(3):
        step()
    times = []
    cpu = []
    for _ in range(args.steps):
        t0 = time.perf_counter()
        c0 = time.process_time()
        step()
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    med = sorted(times)[len(times) // 2]
    return B * T / med, med * 1000, sorted(cpu)[len(cpu) // 2] * 1000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--vocab", type=int, default=2048)
    ap.add_argument("--block", type=int, default=256)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--width", type=int, default=64)
    args = ap.parse_args()
    out = {"torch": torch.__version__, "tokensPerS": {}, "stepMs": {}, "cpuStepMs": {}}
    for n in (int(t) for t in args.threads.split(",")):
        tps, ms, cpu_ms = tokens_per_s(args, n)
        out["tokensPerS"][str(n)] = tps
        out["stepMs"][str(n)] = ms
        out["cpuStepMs"][str(n)] = cpu_ms
    print(json.dumps(out))


if __name__ == "__main__":
    main()
