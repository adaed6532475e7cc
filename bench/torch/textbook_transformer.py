#!/usr/bin/env python3
"""An independent Transformer reference built on torch.nn.Transformer (issue 12) with our
small Transformer's shapes and hyper-parameters, not a copy of lib/models/transformer_model.cpp:
d 256, 4 heads, ff 1024, 3+3 layers, post-norm, ReLU, dropout 0.1; one embedding table
shared by source, target and output, initialised N(0, d^-1/2) and scaled by sqrt(d) on input
(Vaswani et al. / fairseq), sinusoidal positions; nn.Transformer's own init for the rest
(xavier for attention projections, PyTorch default for the feed-forward Linear layers).
Adam (0.9, 0.98, 1e-9) lr 7e-4 with 800 linear warm-up steps then inverse square root,
clip 1.0, label smoothing 0.1, mean token CE.

    bench/.venv-torch/bin/python bench/torch/textbook_transformer.py [STEPS] [EVERY] [OUT.jsonl]
"""
import math, sys, torch, torch.nn as nn
sys.path.insert(0, __import__("os").path.dirname(__file__))
import nmt_data as D

V, DM = 8000, 256


def positions(n, d):
    pos = torch.arange(n, dtype=torch.float)[:, None]
    div = torch.exp(torch.arange(0, d, 2, dtype=torch.float) * (-math.log(10000.0) / d))
    pe = torch.zeros(n, d); pe[:, 0::2] = torch.sin(pos * div); pe[:, 1::2] = torch.cos(pos * div)
    return pe


class TextbookTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, DM, padding_idx=D.PAD)
        nn.init.normal_(self.emb.weight, 0.0, DM ** -0.5)
        self.tf = nn.Transformer(DM, 4, 3, 3, 1024, 0.1, batch_first=True, norm_first=False)
        self.out_b = nn.Parameter(torch.zeros(V))
        self.drop = nn.Dropout(0.1)
        self.register_buffer("pe", positions(256, DM))

    def embed(self, ids):
        return self.drop(self.emb(ids) * math.sqrt(DM) + self.pe[: ids.shape[1]])

    def forward(self, src, lens, tin):
        T = tin.shape[1]
        causal = torch.triu(torch.full((T, T), float("-inf")), 1)
        h = self.tf(self.embed(src), self.embed(tin), tgt_mask=causal,
                    src_key_padding_mask=src == D.PAD, memory_key_padding_mask=src == D.PAD)
        return h @ self.emb.weight.t() + self.out_b

    def greedy(self, src, lens, max_len):
        pad = src == D.PAD
        mem = self.tf.encoder(self.embed(src), src_key_padding_mask=pad)
        ys = torch.full((src.shape[0], 1), D.BOS, dtype=torch.long)
        for _ in range(max_len):
            T = ys.shape[1]
            h = self.tf.decoder(self.embed(ys), mem, tgt_mask=torch.triu(torch.full((T, T), float("-inf")), 1),
                                memory_key_padding_mask=pad)
            nxt = (h[:, -1] @ self.emb.weight.t() + self.out_b).argmax(1)
            ys = torch.cat([ys, nxt[:, None]], 1)
        return ys[:, 1:].tolist()


if __name__ == "__main__":
    torch.set_num_threads(int(__import__("os").environ.get("TORCH_THREADS", 1)))
    seed = int(__import__("os").environ.get("SEED", 1)); torch.manual_seed(seed)
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 1500
    every = int(sys.argv[2]) if len(sys.argv) > 2 else 250
    model = TextbookTransformer()
    opt = torch.optim.Adam(model.parameters(), lr=7e-4, betas=(0.9, 0.98), eps=1e-9)
    lr = lambda s: 7e-4 * min(s / 800, math.sqrt(800 / s))
    D.train(model, opt, lr, steps, every, smoothing=0.1, seed=seed, out=sys.argv[3] if len(sys.argv) > 3 else None)
