"""FLOPs of one training step on one node, counted from the model's shapes.

Multiply-accumulates (MACs) of the matrix products of one forward pass over one node's batch;
FLOPs of a training step = 2 (flop per MAC) * 3 (forward + backward's two products per forward
product) * MACs = 6 * MACs. Element-wise work (biases, layer norm, softmax, GRU gates, dropout,
Adam) and embedding look-ups are not counted; they are memory-bound and small next to the
products at these shapes, and a measured profile absorbs them anyway."""
from .config import model_vocab

DEFAULT_SRC_PER_TGT = 1.2  # debmsg de/en: 50.7 vs 41.1 characters per line (train), ~1.23
DEFAULT_TGT_LEN = 14.0     # mean target pieces per sentence (6.6 words, 2000-piece vocab), assumed
TRAIN_FACTOR = 6.0


def transformer_macs(m, V, src_tok, tgt_tok, src_len, tgt_len):
    """lib/models/transformer_model.cpp: q/k/v/o [D, D], ffn [D, F] + [F, D], output [D, V]."""
    D, F = m["d_model"], m["ff"]
    Le, Ld = m["encoder_layers"], m["decoder_layers"]
    t = {}
    t["encoder projections+ffn"] = src_tok * Le * (4 * D * D + 2 * D * F)
    t["encoder attention (QK^T, AV)"] = src_tok * Le * 2 * src_len * D
    t["decoder self q/k/v/o + cross q/o + ffn"] = tgt_tok * Ld * (6 * D * D + 2 * D * F)
    t["decoder cross k/v (over source)"] = src_tok * Ld * 2 * D * D
    t["decoder attention (self + cross)"] = tgt_tok * Ld * 2 * (tgt_len + src_len) * D
    t["output projection"] = tgt_tok * D * V
    return t


def rnn_macs(m, V, src_tok, tgt_tok, src_len, tgt_len):
    """lib/models/rnn_model.cpp: bi-GRU encoder (input [E, 3H], hidden [H, 3H] per direction),
    extra encoder layers [C, 3C] x 2, attention keys [C, D], query [D, D], score [D, 1];
    cGRU decoder gru1 ([E, 3D], [D, 3D]) and gru2 ([C, 3D], [D, 3D]); deep output
    [D + C + E, E]; output [E, V] (tied to the target embedding). C = 2H."""
    E, H, Dd, L = m["emb_dim"], m["enc_dim"], m["dec_dim"], m.get("enc_layers", 1)
    C = 2 * H
    t = {}
    t["encoder bi-GRU"] = src_tok * 2 * (3 * E * H + 3 * H * H)
    t["encoder extra layers"] = src_tok * (L - 1) * 2 * 3 * C * C
    t["attention keys"] = src_tok * C * Dd
    t["decoder GRUs"] = tgt_tok * (3 * E * Dd + 3 * Dd * Dd + 3 * C * Dd + 3 * Dd * Dd)
    t["attention query + scores + context"] = tgt_tok * (Dd * Dd + src_len * (Dd + C))
    t["deep output"] = tgt_tok * (Dd + C + E) * E
    t["output projection"] = tgt_tok * E * V
    return t


def parameter_count(config):
    """Parameters of the model from the same shapes the FLOP counter uses (weights, biases,
    layer norms, embeddings once per table): a check that the counter reads the shapes of
    lib/models/*.cpp right -- it must equal summary.json's `parameters`."""
    m = config["model"]
    V = model_vocab(config)
    tied = m.get("tied_embeddings", "all")
    lin = lambda i, o, bias=True: i * o + (o if bias else 0)  # noqa: E731
    if m.get("type") == "transformer":
        D, F = m["d_model"], m["ff"]
        att = 4 * lin(D, D)
        ffn = lin(D, F) + lin(F, D)
        enc = m["encoder_layers"] * (att + ffn + 2 * 2 * D)
        dec = m["decoder_layers"] * (2 * att + ffn + 3 * 2 * D)
        final = 2 * 2 * D if m.get("norm") == "pre" else 0
        tables = {"all": 1, "output": 2, "none": 3}[tied] * V * D
        return tables + V + enc + dec + final
    E, H, Dd, L = m["emb_dim"], m["enc_dim"], m["dec_dim"], m.get("enc_layers", 1)
    C = 2 * H
    gru = lambda i, d: lin(i, 3 * d) + lin(d, 3 * d)  # noqa: E731
    tables = {"all": 1, "output": 2, "none": 3}[tied] * V * E
    return (tables + V + 2 * gru(E, H) + (L - 1) * gru(C, C) + lin(C, Dd) + gru(E, Dd) +
            lin(Dd, Dd, False) + lin(C, Dd) + lin(Dd, 1, False) + gru(C, Dd) + lin(Dd + C + E, E))


def flops_per_step(config, tgt_tokens=None, src_per_tgt=DEFAULT_SRC_PER_TGT,
                   tgt_len=DEFAULT_TGT_LEN):
    """(FLOPs of one training step on one node, {term: FLOPs}) for a resolved config.json.
    tgt_tokens: target tokens in the node's batch (default data.batch_tokens)."""
    m = config["model"]
    V = model_vocab(config)
    if tgt_tokens is None:
        tgt_tokens = float(config["data"]["batch_tokens"])
    src_tok = tgt_tokens * src_per_tgt
    src_len = tgt_len * src_per_tgt
    kind = m.get("type")
    if kind == "transformer":
        macs = transformer_macs(m, V, src_tok, tgt_tokens, src_len, tgt_len)
    elif kind == "rnn":
        macs = rnn_macs(m, V, src_tok, tgt_tokens, src_len, tgt_len)
    else:
        raise ValueError(f"no FLOP counter for model type {kind!r}")
    terms = {k: TRAIN_FACTOR * v for k, v in macs.items()}
    return sum(terms.values()), terms
