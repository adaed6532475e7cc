#!/usr/bin/env python3
"""Learning-curve reference for the small-suite RNN: the same model in PyTorch (bi-GRU 2x64,
cGRU 128, additive attention, emb 64, output tied to the target embedding, dropout 0.1),
trained on one node on the same SentencePiece ids, batch budget (800 target tokens incl.
padding), Adam (0.9, 0.98, 1e-9), lr 0.002 with 200 warm-up steps then inverse square root,
clipping at 1.0. Prints "step dev_CE train_loss seconds" every 400 steps; compare with
results/small/rnn/rnn-1node-dense/valid.jsonl. Batching and initialisation differ in detail
(PyTorch's default GRU/Linear init), so curves should agree in shape, not bit for bit.

Usage (Debian python3-torch; the SentencePiece model comes from a small-suite run):
    /usr/bin/python3 bench/torch/rnn_learning_curve.py [STEPS]   (default 3200)
"""
import os, subprocess
import math, random, sys, time, torch, torch.nn as nn, torch.nn.functional as F
torch.set_num_threads(1); torch.manual_seed(1); random.seed(1)
V, E, H, D, P = 2000, 64, 64, 128, 0.1
PAD, BOS, EOS = 0, 2, 3
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SPM = os.path.join(ROOT, "cache/spm/small-suite/spm.2000.model")


def ids(split, lang):
    """Token ids of one corpus file through the spm_encode tool (Debian: sentencepiece)."""
    text = subprocess.run(["zcat", os.path.join(ROOT, f"data/debmsg-de-en/{split}.{lang}.gz")],
                          check=True, capture_output=True).stdout
    out = subprocess.run(["spm_encode", "--model", SPM, "--output_format=id"], input=text,
                         check=True, capture_output=True).stdout.decode()
    return [list(map(int, l.split())) + [EOS] for l in out.splitlines()]


def load(s):
    src, tgt = ids(s, "de"), ids(s, "en")
    return [(a, b) for a, b in zip(src, tgt) if len(a) <= 49 and len(b) <= 49]
train, dev = load("train"), load("dev")[:300]
class Rnn(nn.Module):
    def __init__(self):
        super().__init__(); C = 2 * H
        self.src_emb, self.tgt_emb = nn.Embedding(V, E), nn.Embedding(V, E)
        nn.init.xavier_uniform_(self.src_emb.weight); nn.init.xavier_uniform_(self.tgt_emb.weight)
        self.out_b = nn.Parameter(torch.zeros(V))
        self.enc = nn.GRU(E, H, batch_first=True, bidirectional=True)
        self.init = nn.Linear(C, D); self.gru1, self.gru2 = nn.GRUCell(E, D), nn.GRUCell(C, D)
        self.att_q = nn.Linear(D, D, bias=False); self.att_k = nn.Linear(C, D); self.att_v = nn.Linear(D, 1, bias=False)
        self.deep = nn.Linear(D + C + E, E)
    def forward(self, src, lens, tgt_in):
        x = F.dropout(self.src_emb(src), P, self.training)
        packed = nn.utils.rnn.pack_padded_sequence(x, lens, batch_first=True, enforce_sorted=False)
        states, _ = self.enc(packed)
        states, _ = nn.utils.rnn.pad_packed_sequence(states, batch_first=True, total_length=src.shape[1])
        pad = src == PAD
        keys = self.att_k(states)
        mean = states.sum(1) / lens[:, None].float()
        s = torch.tanh(self.init(mean))
        y = F.dropout(self.tgt_emb(tgt_in), P, self.training)
        outs, ctxs = [], []
        for t in range(tgt_in.shape[1]):
            s1 = self.gru1(y[:, t], s)
            e = self.att_v(torch.tanh(keys + self.att_q(s1)[:, None])).squeeze(2)
            w = torch.softmax(e.masked_fill(pad, -1e9), 1)
            c = torch.bmm(w[:, None], states).squeeze(1)
            s = self.gru2(c, s1); outs.append(s); ctxs.append(c)
        f = torch.cat([torch.stack(outs, 1), torch.stack(ctxs, 1), y], 2)
        h = F.dropout(torch.tanh(self.deep(f)), P, self.training)
        return h @ self.tgt_emb.weight.t() + self.out_b
def tensors(pairs):
    S = max(len(a) for a, _ in pairs); T = max(len(b) for _, b in pairs)
    src = torch.tensor([a + [PAD] * (S - len(a)) for a, _ in pairs])
    tin = torch.tensor([[BOS] + b[:-1] + [PAD] * (T - len(b)) for _, b in pairs])
    tout = torch.tensor([b + [PAD] * (T - len(b)) for _, b in pairs])
    return src, torch.tensor([len(a) for a, _ in pairs]), tin, tout
def batches(budget=800):
    while True:
        idx = list(range(len(train))); random.shuffle(idx)
        for i in range(0, len(idx), 10000):  # maxi-batches sorted by target length
            chunk = sorted(idx[i:i + 10000], key=lambda j: len(train[j][1]))
            out, cur, T = [], [], 0
            for j in chunk:
                T2 = max(T, len(train[j][1]))
                if cur and T2 * (len(cur) + 1) > budget: out.append(cur); cur, T2 = [], len(train[j][1])
                cur.append(train[j]); T = T2
            if cur: out.append(cur)
            random.shuffle(out)
            yield from out
m = Rnn(); opt = torch.optim.Adam(m.parameters(), lr=0.002, betas=(0.9, 0.98), eps=1e-9)
def dev_ce():
    m.eval(); tot = n = 0
    with torch.no_grad():
        for i in range(0, len(dev), 100):
            src, lens, tin, tout = tensors(dev[i:i + 100])
            l = F.cross_entropy(m(src, lens, tin).reshape(-1, V), tout.reshape(-1), ignore_index=PAD, reduction="sum")
            tot += l.item(); n += (tout != PAD).sum().item()
    m.train(); return tot / n
gen = batches(); t0 = time.time(); steps = int(sys.argv[1]) if len(sys.argv) > 1 else 3200
for step in range(1, steps + 1):
    lr = 0.002 * min(step / 200, math.sqrt(200 / step))
    for g in opt.param_groups: g["lr"] = lr
    src, lens, tin, tout = tensors(next(gen))
    loss = F.cross_entropy(m(src, lens, tin).reshape(-1, V), tout.reshape(-1), ignore_index=PAD)
    opt.zero_grad(); loss.backward(); nn.utils.clip_grad_norm_(m.parameters(), 1.0); opt.step()
    if step % 400 == 0: print(step, round(dev_ce(), 3), round(loss.item(), 3), round(time.time() - t0), flush=True)
