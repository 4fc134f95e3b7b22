"""The PyTorch peer of bench/speed/rollouts.ts's decoding figure: the `tiny` policy decoding a batch with a KV cache.

The same model as the lab's decoder (bench/speed/train_torch.py's blocks: learned positions, smeared keys, GELU MLP, tied
head, plus ALiBi-style distance penalties when --distance-bias, as the bundled base model has): B prompts of P
tokens prefilled as one batch, then N tokens per row decoded one step at a time, greedy, every row its own cache
position. Prints one JSON object: {"torch": version, "threads": n, "tokensPerS": generated tokens per second}.

    python3 bench/speed/sample_torch.py [--batch 64] [--prompt 128] [--new 64] [--vocab 1024] [--threads 1] [--distance-bias]
"""
import argparse
import json
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

import train_torch  # bench/ is on the path when this script runs


class Block(train_torch.Block):
    """train_torch's block (the same parameters), read with a KV cache."""

    def forward(self, x, cache, bias):
        """x [B, T, C] after `cache` (k, v, raw last key) or None; bias [1 or B, H, T, Tk] additive."""
        B, T, C = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, self.H, C // self.H).transpose(1, 2) for t in (q, k, v))
        before = cache[2] if cache is not None else torch.zeros_like(k[:, :, :1])
        s = torch.sigmoid(self.smear).view(1, self.H, 1, 1)
        last = k[:, :, -1:]
        k = s * k + (1 - s) * torch.cat([before, k[:, :, :-1]], dim=2)
        if cache is not None:
            k = torch.cat([cache[0], k], dim=2)
            v = torch.cat([cache[1], v], dim=2)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
        x = x + self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh")), (k, v, last)


class GPT(nn.Module):
    def __init__(self, V, T, L, H, C, distance_bias):
        super().__init__()
        self.H = H
        self.wte = nn.Embedding(V, C)
        self.wpe = nn.Embedding(T, C)
        self.blocks = nn.ModuleList(Block(C, H) for _ in range(L))
        self.ln_f = nn.LayerNorm(C)
        self.slopes = torch.tensor([2 ** (-8 * (h + 1) / H) for h in range(H)]) if distance_bias else None

    def bias(self, past, T):
        """Causal mask (plus distance penalties) for T queries after `past` cached positions."""
        i = torch.arange(past, past + T).view(T, 1)
        j = torch.arange(past + T).view(1, past + T)
        b = torch.where(j <= i, 0.0, float("-inf")).view(1, 1, T, past + T)
        if self.slopes is not None:
            b = b - self.slopes.view(1, self.H, 1, 1) * (i - j).abs().float()
        return b

    def forward(self, idx, caches, past):
        T = idx.shape[1]
        x = self.wte(idx) + self.wpe(torch.arange(past, past + T))
        bias = self.bias(past, T)
        out = []
        for b, c in zip(self.blocks, caches or [None] * len(self.blocks)):
            x, c = b(x, c, bias)
            out.append(c)
        return self.ln_f(x[:, -1]) @ self.wte.weight.t(), out


@torch.no_grad()
def decode(model, prompts, new):
    logits, caches = model(prompts, None, 0)
    out = []
    for n in range(new):
        nxt = logits.argmax(-1, keepdim=True)
        out.append(nxt)
        if n + 1 < new:
            logits, caches = model(nxt, caches, prompts.shape[1] + n)
    return torch.cat(out, 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--prompt", type=int, default=128)
    ap.add_argument("--new", type=int, default=64)
    ap.add_argument("--vocab", type=int, default=1024)
    ap.add_argument("--block", type=int, default=256)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--width", type=int, default=64)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--distance-bias", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(1)
    model = GPT(args.vocab, args.block, args.layers, args.heads, args.width, args.distance_bias).eval()
    prompts = torch.randint(args.vocab, (args.batch, args.prompt))
    decode(model, prompts, 4)  # warm-up
    times = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        decode(model, prompts, args.new)
        times.append(time.perf_counter() - t0)
    best = min(times)
    print(json.dumps({"torch": torch.__version__, "threads": args.threads, "tokensPerS": args.batch * args.new / best, "seconds": times}))


if __name__ == "__main__":
    main()
