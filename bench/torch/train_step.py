#!/usr/bin/env python3
"""PyTorch (CPU) reference for bench_train_step: the same models, shapes, threads and Adam.

Small Transformer (post-norm, tied embeddings, dropout 0.1, label smoothing 0.1) or the
attentional GRU (bi-GRU encoder 2x256, cGRU decoder 512, additive attention, emb 256, deep
output, output tied to the target embedding). Batch 64 x 24 source, 24 target tokens.
--size small-suite: configs/small/suite's shapes (Transformer d 64, ff 256, 2+2 layers; RNN
emb 64, enc 64, dec 128; vocab 2000, batch 32 x 24), as bench_train_step --size small-suite.
--compile: torch.compile(model) (inductor on CPU; PyTorch 2.x), compiled in the warm-up steps.
Prints one JSON line like bench_train_step. Runs with Debian's python3-torch (1.13,
/usr/bin/python3) or PyTorch 2.x from pip in a venv (bench/setup-torch-venv.sh).
  train_step.py --model transformer|rnn [--size bench|small-suite] [--compile] [--steps N]
                [--warmup N] [--threads N]
"""
import argparse, json, math, resource, statistics, time
import torch
import torch.nn as nn
import torch.nn.functional as F

B, S, T, V = 64, 24, 24, 8000


class Transformer(nn.Module):
    def __init__(self, d=256, heads=4, ff=1024, layers=3, p=0.1, **_):
        super().__init__()
        self.d, self.p = d, p
        self.emb = nn.Embedding(V, d)
        self.out_b = nn.Parameter(torch.zeros(V))
        self.enc = nn.ModuleList(nn.TransformerEncoderLayer(d, heads, ff, p, batch_first=True)
                                 for _ in range(layers))
        self.dec = nn.ModuleList(nn.TransformerDecoderLayer(d, heads, ff, p, batch_first=True)
                                 for _ in range(layers))
        pos = torch.arange(512.0)[:, None]
        i = torch.arange(d)
        ang = pos / torch.pow(10000.0, (i - i % 2).double() / d).float()
        self.register_buffer("pe", torch.where(i % 2 == 1, torch.cos(ang), torch.sin(ang)))

    def embed(self, ids):
        e = self.emb(ids) * math.sqrt(self.d) + self.pe[: ids.shape[1]]
        return F.dropout(e, self.p, self.training)

    def forward(self, src, src_pad, tgt_in):
        x = self.embed(src)
        for l in self.enc:
            x = l(x, src_key_padding_mask=src_pad)
        causal = torch.triu(torch.full((T, T), float("-inf")), 1)
        y = self.embed(tgt_in)
        for l in self.dec:
            y = l(y, x, tgt_mask=causal, memory_key_padding_mask=src_pad)
        return y @ self.emb.weight.t() + self.out_b


class Rnn(nn.Module):
    def __init__(self, E=256, H=256, D=512, p=0.1, **_):
        super().__init__()
        C = 2 * H
        self.p = p
        self.src_emb, self.tgt_emb = nn.Embedding(V, E), nn.Embedding(V, E)
        self.out_b = nn.Parameter(torch.zeros(V))
        self.enc = nn.GRU(E, H, batch_first=True, bidirectional=True)
        self.init = nn.Linear(C, D)
        self.gru1, self.gru2 = nn.GRUCell(E, D), nn.GRUCell(C, D)
        self.att_q = nn.Linear(D, D, bias=False)
        self.att_k = nn.Linear(C, D)
        self.att_v = nn.Linear(D, 1, bias=False)
        self.deep = nn.Linear(D + C + E, E)

    def forward(self, src, src_pad, tgt_in):
        states, _ = self.enc(F.dropout(self.src_emb(src), self.p, self.training))
        keys = self.att_k(states)
        s = torch.tanh(self.init(states.mean(1)))
        y = F.dropout(self.tgt_emb(tgt_in), self.p, self.training)
        outs, ctxs = [], []
        for t in range(T):
            s1 = self.gru1(y[:, t], s)
            e = self.att_v(torch.tanh(keys + self.att_q(s1)[:, None])).squeeze(2)
            w = torch.softmax(e.masked_fill(src_pad, -1e9), 1)
            c = torch.bmm(w[:, None], states).squeeze(1)
            s = self.gru2(c, s1)
            outs.append(s)
            ctxs.append(c)
        f = torch.cat([torch.stack(outs, 1), torch.stack(ctxs, 1), y], 2)
        h = F.dropout(torch.tanh(self.deep(f)), self.p, self.training)
        return h @ self.tgt_emb.weight.t() + self.out_b


def torch_blas():
    """What computes PyTorch's CPU products: its BLAS (the build line naming the library) and
    the CPU kernels it dispatches to."""
    lines = [l.strip(" -") for l in torch.__config__.show().splitlines()]
    blas = next((l for l in lines if "Math Kernel Library" in l or "OpenBLAS" in l),
                next((l.split("BLAS_INFO=")[1].split(",")[0] for l in lines if "BLAS_INFO=" in l), "?"))
    cap = next((l.split(":", 1)[1].strip() for l in lines if "CPU capability usage" in l), "?")
    return f"{blas}; CPU capability {cap}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", choices=["transformer", "rnn"], default="transformer")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--size", choices=["bench", "small-suite"], default="bench")
    ap.add_argument("--compile", action="store_true")
    a = ap.parse_args()
    global B, V
    dims = {}
    if a.size == "small-suite":
        B, V = 32, 2000
        dims = dict(d=64, ff=256, layers=2, E=64, H=64, D=128)
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    m = Transformer(**dims) if a.model == "transformer" else Rnn(**dims)
    for mod in m.modules():  # Glorot-uniform embeddings as sparselocal (N(0,1) saturates)
        if isinstance(mod, nn.Embedding):
            nn.init.xavier_uniform_(mod.weight)
    ls = 0.1 if a.model == "transformer" else 0.0
    m.train()
    fwd = torch.compile(m) if a.compile else m
    opt = torch.optim.Adam(m.parameters(), lr=1e-4, betas=(0.9, 0.98), eps=1e-9)
    g = torch.Generator().manual_seed(7)
    src = torch.randint(4, V, (B, S), generator=g)
    y = torch.randint(4, V, (B, T), generator=g)
    tgt_in = torch.cat([torch.ones(B, 1, dtype=torch.long), y[:, :-1]], 1)
    tgt_out = torch.cat([y[:, :-1], torch.full((B, 1), 2)], 1)
    src_pad = torch.zeros(B, S, dtype=torch.bool)
    secs, loss = [], 0.0
    for step in range(a.warmup + a.steps):
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=False)
        logits = fwd(src, src_pad, tgt_in)
        l = F.cross_entropy(logits.reshape(-1, V), tgt_out.reshape(-1), ignore_index=0,
                            label_smoothing=ls, reduction="sum")
        l.backward()
        opt.step()
        if step >= a.warmup:
            secs.append(time.perf_counter() - t0)
        loss = l.item() / (B * T)
    med = statistics.median(secs)
    side = "pytorch-compile" if a.compile else "pytorch"
    print(json.dumps({"side": side, "model": a.model, "size": a.size, "threads": a.threads,
                      "torch": torch.__version__,
                      "params": sum(p.numel() for p in m.parameters()), "steps": a.steps,
                      "median_s": round(med, 5), "best_s": round(min(secs), 5),
                      "tgt_tok_per_s": round(B * T / med, 1),
                      "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                      "last_loss": round(loss, 4), "blas": torch_blas()}))


if __name__ == "__main__":
    main()
