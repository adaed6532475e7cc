#!/usr/bin/env python3
"""PyTorch reference for bench_gpu_step: Transformer-base (6+6, d 512, 8 heads, ff 2048,
vocab 32k, post-norm, all embeddings tied, label smoothing 0.1, Adam) at 8192 target tokens
(256 x 32 source and target tokens), eager float32; TF32 only with --tf32
(torch.backends.{cuda.matmul,cudnn}.allow_tf32). On CUDA each step is timed with CUDA events.
Prints one JSON line with bench_gpu_step's fields.
Dropout as ours (configs/paper: dropout 0.1, attention_dropout 0, relu_dropout 0): 0.1 on the
embeddings and on each sub-layer's output before the residual add, none on the attention
weights or after the ReLU -- nn.Transformer*Layer(dropout=p) would drop those too, so
match_dropout() turns them off (tests/scripts/check_torch_step_dropout.py checks it).
  torch_step.py [--device cuda|cpu] [--steps N] [--warmup N] [--tf32] [--tiny]
"""
import argparse, json, math, statistics, time

import torch
import torch.nn as nn
import torch.nn.functional as F


def match_dropout(layer):
    """Leaves dropout on the sub-layer outputs (dropout1/2/3) and removes it from the attention
    weights (MultiheadAttention.dropout) and after the ReLU (the layer's own .dropout)."""
    for attn in ("self_attn", "multihead_attn"):
        if hasattr(layer, attn):
            getattr(layer, attn).dropout = 0.0
    layer.dropout = nn.Dropout(0.0)
    return layer


def dropout_sites(model):
    """{name: p} of every place the model can drop: embeddings, nn.Dropout modules, attention."""
    sites = {"embeddings": model.p}
    for name, mod in model.named_modules():
        if isinstance(mod, nn.Dropout):
            sites[name] = mod.p
        elif isinstance(mod, nn.MultiheadAttention):
            sites[name + ".weights"] = mod.dropout
    return sites


class Transformer(nn.Module):
    def __init__(self, V, d, heads, ff, layers, p=0.1, like_ours=True):
        super().__init__()
        self.d, self.p = d, p
        self.emb = nn.Embedding(V, d)
        self.out_b = nn.Parameter(torch.zeros(V))
        fix = match_dropout if like_ours else (lambda layer: layer)
        # layer_norm_eps: ours is 1e-6 (ops::layer_norm); PyTorch's default 1e-5
        self.enc = nn.ModuleList(fix(nn.TransformerEncoderLayer(d, heads, ff, p, batch_first=True,
                                                                layer_norm_eps=1e-6))
                                 for _ in range(layers))
        self.dec = nn.ModuleList(fix(nn.TransformerDecoderLayer(d, heads, ff, p, batch_first=True,
                                                                layer_norm_eps=1e-6))
                                 for _ in range(layers))
        pos = torch.arange(512.0)[:, None]
        i = torch.arange(d)
        ang = pos / torch.pow(10000.0, (i - i % 2).double() / d).float()
        self.register_buffer("pe", torch.where(i % 2 == 1, torch.cos(ang), torch.sin(ang)))

    def embed(self, ids):
        e = self.emb(ids) * math.sqrt(self.d) + self.pe[: ids.shape[1]]
        return F.dropout(e, self.p, self.training)

    def forward(self, src, tgt_in, causal):
        x = self.embed(src)
        for l in self.enc:
            x = l(x)
        y = self.embed(tgt_in)
        for l in self.dec:
            y = l(y, x, tgt_mask=causal)
        return y @ self.emb.weight.t() + self.out_b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--tf32", action="store_true")
    ap.add_argument("--tiny", action="store_true")
    a = ap.parse_args()
    B, S, T, V = (8, 8, 8, 500) if a.tiny else (256, 32, 32, 32000)
    d, h, ff, L = (64, 2, 128, 1) if a.tiny else (512, 8, 2048, 6)
    dev = torch.device(a.device)
    cuda = dev.type == "cuda"
    if cuda:
        torch.backends.cuda.matmul.allow_tf32 = a.tf32
        torch.backends.cudnn.allow_tf32 = a.tf32
    else:
        torch.set_num_threads(2)
    torch.manual_seed(1)
    m = Transformer(V, d, h, ff, L).to(dev)
    nn.init.xavier_uniform_(m.emb.weight)
    m.train()
    opt = torch.optim.Adam(m.parameters(), lr=1e-4, betas=(0.9, 0.98), eps=1e-9)
    g = torch.Generator().manual_seed(7)
    src = torch.randint(4, V, (B, S), generator=g).to(dev)
    y = torch.randint(4, V, (B, T), generator=g)
    tgt_in = torch.cat([torch.ones(B, 1, dtype=torch.long), y[:, :-1]], 1).to(dev)
    tgt_out = torch.cat([y[:, :-1], torch.full((B, 1), 2)], 1).to(dev)
    causal = torch.triu(torch.full((T, T), float("-inf")), 1).to(dev)
    wall, ev, loss = [], [], 0.0
    for step in range(a.warmup + a.steps):
        if cuda:
            torch.cuda.synchronize()
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            e0.record()
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=False)
        logits = m(src, tgt_in, causal)
        l = F.cross_entropy(logits.reshape(-1, V), tgt_out.reshape(-1), ignore_index=0,
                            label_smoothing=0.1, reduction="sum")
        l.backward()
        opt.step()
        if cuda:
            e1.record()
            torch.cuda.synchronize()
        w = time.perf_counter() - t0
        if step >= a.warmup:
            wall.append(w)
            if cuda:
                ev.append(e0.elapsed_time(e1) * 1e-3)
        loss = l.item() / (B * T)
    med = statistics.median(wall)
    emed = statistics.median(ev) if ev else med
    print(json.dumps({"side": "pytorch", "device": a.device, "tf32": a.tf32,
                      "torch": torch.__version__,
                      "params": sum(p.numel() for p in m.parameters()),
                      "target_tokens": B * T, "steps": a.steps, "median_s": round(med, 5),
                      "best_s": round(min(wall), 5), "event_median_s": round(emed, 5),
                      "clock": "cuda-events" if ev else "wall",
                      "tgt_tok_per_s": round(B * T / emed, 1), "last_loss": round(loss, 4)}))


if __name__ == "__main__":
    main()
