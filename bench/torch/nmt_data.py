"""Data, batching and evaluation shared by the textbook PyTorch references (issue 12).

Same corpus (data/debmsg-de-en), the same joint 8000-piece SentencePiece model our
run-experiment trains (cache/spm/debmsg-de-en/, pad 0, unk 1, bos 2, eos 3), pairs longer
than 64 pieces (with EOS) dropped, batches of at most 2048 target tokens INCLUDING padding
built like lib/data/batch_plan.h (shuffle, maxi-batches of 100 batches sorted by length,
cut, shuffle the batches). Dev: first 300 sentences, greedy, sacreBLEU (default 13a).
"""
import glob, gzip, os, random
import sacrebleu, sentencepiece as spm, torch

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
PAD, BOS, EOS = 0, 2, 3


def spm_model(path=None):
    path = path or os.environ.get("SPM_MODEL")
    if not path:
        found = sorted(glob.glob(os.path.join(ROOT, "cache/spm/debmsg-de-en/*.model")))
        if not found:
            raise SystemExit("no SentencePiece model: run run-experiment once or set SPM_MODEL")
        path = found[0]
    return spm.SentencePieceProcessor(model_file=path)


def lines(split, lang):
    with gzip.open(os.path.join(ROOT, f"data/debmsg-de-en/{split}.{lang}.gz"), "rt") as f:
        return [l.rstrip("\n") for l in f]


def load(sp, split, max_len=64):
    src = sp.encode(lines(split, "de")); tgt = sp.encode(lines(split, "en"))
    pairs = [(a + [EOS], b + [EOS]) for a, b in zip(src, tgt)]
    return [p for p in pairs if len(p[0]) <= max_len and len(p[1]) <= max_len]


def epoch_batches(pairs, rng, max_tokens=2048, maxi=100):
    """Lists of pair indices; rows * longest target (with EOS) <= max_tokens."""
    order = list(range(len(pairs))); rng.shuffle(order)
    avg = max(1, max_tokens // 24)  # ~ sentences per batch, only to size maxi-batches
    batches = []
    for i in range(0, len(order), maxi * avg):
        chunk = sorted(order[i:i + maxi * avg], key=lambda k: (len(pairs[k][1]), len(pairs[k][0]), k))
        cur, longest = [], 0
        for k in chunk:
            l = max(longest, len(pairs[k][1]))
            if cur and (len(cur) + 1) * l > max_tokens:
                batches.append(cur); cur, l = [], len(pairs[k][1])
            cur.append(k); longest = l
        if cur: batches.append(cur)
    rng.shuffle(batches)
    return batches


def tensors(pairs, idx):
    """src [B,S], src_len [B], tgt_in [B,T] (BOS y), tgt_out [B,T] (y EOS), padded with 0."""
    B = len(idx); S = max(len(pairs[k][0]) for k in idx); T = max(len(pairs[k][1]) for k in idx)
    src = torch.zeros(B, S, dtype=torch.long); tin = torch.zeros(B, T, dtype=torch.long)
    tout = torch.zeros(B, T, dtype=torch.long); lens = torch.zeros(B, dtype=torch.long)
    for b, k in enumerate(idx):
        s, t = pairs[k]
        src[b, :len(s)] = torch.tensor(s); lens[b] = len(s)
        tout[b, :len(t)] = torch.tensor(t); tin[b, 0] = BOS; tin[b, 1:len(t)] = torch.tensor(t[:-1])
    return src, lens, tin, tout


def dev_bleu(sp, model, step=0, n=int(os.environ.get("DEV_SENTENCES", 300)), bs=100):
    """Greedy decode of the first n dev sentences (max length 1.5 * src + 5), BLEU/chrF."""
    src_text = lines("dev", "de")[:n]; ref = lines("dev", "en")[:n]
    hyps = []
    model.eval()
    with torch.no_grad():
        for i in range(0, n, bs):
            ids = [x + [EOS] for x in sp.encode(src_text[i:i + bs])]
            S = max(map(len, ids)); src = torch.zeros(len(ids), S, dtype=torch.long)
            for b, x in enumerate(ids): src[b, :len(x)] = torch.tensor(x)
            lens = torch.tensor([len(x) for x in ids])
            for b, out in enumerate(model.greedy(src, lens, int(1.5 * S) + 5)):
                out = out[:out.index(EOS)] if EOS in out else out
                hyps.append(sp.decode(out))
    model.train()
    if os.environ.get("HYP_OUT"):  # the hypotheses, to compare outputs (not only scores) with ours
        with open(f"{os.environ['HYP_OUT']}.{step}", "w") as f: f.writelines(h + "\n" for h in hyps)
    bleu = sacrebleu.corpus_bleu(hyps, [ref])
    return bleu.score, sacrebleu.corpus_chrf(hyps, [ref]).score, bleu.sys_len / bleu.ref_len


def dev_ce(model, dev_pairs, dev_batches):
    model.eval(); tot = n = 0.0
    with torch.no_grad():
        for idx in dev_batches:
            src, lens, tin, tout = tensors(dev_pairs, idx)
            logits = model(src, lens, tin)
            tot += torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), tout.reshape(-1),
                                                     ignore_index=PAD, reduction="sum").item()
            n += (tout != PAD).sum().item()
    model.train()
    return tot / n


def train(model, opt, lr_at, steps, every, smoothing, clip=1.0, seed=1, out=None):
    """The common training loop: mean token CE (label-smoothed), clip, step; dev every `every`."""
    import json, time
    sp = spm_model(); train_pairs = load(sp, "train"); dev_pairs = load(sp, "dev")[:int(os.environ.get("DEV_SENTENCES", 300))]
    dev_batches = epoch_batches(dev_pairs, random.Random(0))
    rng = random.Random(seed); step = 0; t0 = time.time(); batches = []
    while step < steps:
        if not batches: batches = epoch_batches(train_pairs, rng)
        src, lens, tin, tout = tensors(train_pairs, batches.pop())
        step += 1
        for g in opt.param_groups: g["lr"] = lr_at(step)
        logits = model(src, lens, tin)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), tout.reshape(-1),
                                                 ignore_index=PAD, label_smoothing=smoothing)
        opt.zero_grad(); loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip); opt.step()
        if step % every == 0:
            bleu, chrf, ratio = dev_bleu(sp, model, step)
            row = {"step": step, "dev_ce": round(dev_ce(model, dev_pairs, dev_batches), 4),
                   "bleu": round(bleu, 2), "chrf": round(chrf, 2), "len_ratio": round(ratio, 3),
                   "train_loss": round(loss.item(), 4),
                   "wall_s": round(time.time() - t0, 1)}
            print(json.dumps(row), flush=True)
            if out:
                with open(out, "a") as f: f.write(json.dumps(row) + "\n")
