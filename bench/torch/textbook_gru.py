#!/usr/bin/env python3
"""An INDEPENDENT textbook attentional GRU (Bahdanau et al. 2015 style) in PyTorch: the
quality floor of issue 12, deliberately not a copy of lib/models/rnn_model.cpp.

  encoder: Embedding 256 (PyTorch default init, N(0,1)), bidirectional nn.GRU 2 x 256 over
           packed sequences; decoder start h0 = tanh(W [last fwd; last bwd]).
  decoder: additive attention on the PREVIOUS state, e = v tanh(W s_{j-1} + U h_i),
           padded source positions masked; s_j = GRU([y_{j-1}; c_j], s_{j-1}) (512);
           o_j = W_o [s_j; c_j; y_{j-1}] (256, linear), dropout, logits = o_j E^T + b
           with E the target embedding (tied).
  training: Adam (0.9, 0.999, 1e-8) lr 1e-3 constant, clip 1.0, dropout 0.1, no label
           smoothing, mean token CE; PyTorch's default initialisation everywhere.
Prints one JSON line per dev evaluation (first 300 dev sentences, greedy, sacreBLEU).

    bench/.venv-torch/bin/python bench/torch/textbook_gru.py [STEPS] [EVERY] [OUT.jsonl]
"""
import sys, torch, torch.nn as nn, torch.nn.functional as F
sys.path.insert(0, __import__("os").path.dirname(__file__))
import nmt_data as D

V, E, H, DEC, P = 8000, 256, 256, 512, 0.1


class TextbookGru(nn.Module):
    def __init__(self):
        super().__init__()
        self.src_emb, self.tgt_emb = nn.Embedding(V, E, padding_idx=D.PAD), nn.Embedding(V, E, padding_idx=D.PAD)
        self.enc = nn.GRU(E, H, batch_first=True, bidirectional=True)
        self.h0 = nn.Linear(2 * H, DEC)
        self.att_s, self.att_h = nn.Linear(DEC, DEC, bias=False), nn.Linear(2 * H, DEC)
        self.att_v = nn.Linear(DEC, 1, bias=False)
        self.cell = nn.GRUCell(E + 2 * H, DEC)
        self.out = nn.Linear(DEC + 2 * H + E, E)
        self.out_b = nn.Parameter(torch.zeros(V))

    def encode(self, src, lens):
        x = F.dropout(self.src_emb(src), P, self.training)
        packed = nn.utils.rnn.pack_padded_sequence(x, lens, batch_first=True, enforce_sorted=False)
        out, last = self.enc(packed)
        out, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=src.shape[1])
        h = torch.tanh(self.h0(torch.cat([last[0], last[1]], 1)))
        return out, self.att_h(out), src == D.PAD, h

    def step(self, y_emb, h, mem):
        states, keys, pad, _ = mem
        e = self.att_v(torch.tanh(keys + self.att_s(h)[:, None])).squeeze(2).masked_fill(pad, -1e9)
        c = torch.bmm(torch.softmax(e, 1)[:, None], states).squeeze(1)
        h = self.cell(torch.cat([y_emb, c], 1), h)
        o = F.dropout(self.out(torch.cat([h, c, y_emb], 1)), P, self.training)
        return o @ self.tgt_emb.weight.t() + self.out_b, h

    def forward(self, src, lens, tin):
        mem = self.encode(src, lens); h = mem[3]
        y = F.dropout(self.tgt_emb(tin), P, self.training)
        logits = []
        for t in range(tin.shape[1]):
            l, h = self.step(y[:, t], h, mem); logits.append(l)
        return torch.stack(logits, 1)

    def greedy(self, src, lens, max_len):
        mem = self.encode(src, lens); h = mem[3]
        y = torch.full((src.shape[0],), D.BOS, dtype=torch.long); out = []
        for _ in range(max_len):
            l, h = self.step(self.tgt_emb(y), h, mem); y = l.argmax(1); out.append(y)
        return torch.stack(out, 1).tolist()


if __name__ == "__main__":
    torch.set_num_threads(int(__import__("os").environ.get("TORCH_THREADS", 1)))
    seed = int(__import__("os").environ.get("SEED", 1)); torch.manual_seed(seed)
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 1500
    every = int(sys.argv[2]) if len(sys.argv) > 2 else 250
    model = TextbookGru()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    D.train(model, opt, lambda s: 1e-3, steps, every, smoothing=0.0, seed=seed, out=sys.argv[3] if len(sys.argv) > 3 else None)
