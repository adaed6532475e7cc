#!/usr/bin/env python3
"""A synthetic parallel corpus in the layout of scripts/prepare-wmt16-roen.sh
({train,dev,test}.{ro,en}.gz) for smoke runs of configs/paper without WMT16: random words
from a 60k-word lexicon (so a 32k SentencePiece vocabulary can be trained), target = a fixed
word-by-word mapping of the source with some reordering (learnable, so the loss must fall).
  make_synthetic_corpus.py OUT_DIR [--train N] [--seed S]"""
import gzip, itertools, os, random, sys


def main(argv):
    out = argv[0]
    n_train = int(argv[argv.index("--train") + 1]) if "--train" in argv else 20000
    seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else 1
    rng = random.Random(seed)
    letters = "abcdefghijklmnoprstuvz"
    lex = sorted({"".join(rng.choice(letters) for _ in range(rng.randint(3, 9))) for _ in range(70000)})[:60000]
    tgt = {w: w[::-1] + "e" for w in lex}
    # Cumulative weights once: choices(weights=...) would sum all 60k per sentence (minutes);
    # choices(cum_weights=...) draws the same words.
    cum = list(itertools.accumulate(1.0 / (i + 1) for i in range(len(lex))))
    os.makedirs(out, exist_ok=True)
    for split, n in (("train", n_train), ("dev", 200), ("test", 200)):
        ro, en = [], []
        for _ in range(n):
            words = rng.choices(lex, cum_weights=cum, k=rng.randint(4, 30))
            t = [tgt[w] for w in words]
            for i in range(0, len(t) - 1, 3):
                t[i], t[i + 1] = t[i + 1], t[i]
            ro.append(" ".join(words))
            en.append(" ".join(t))
        for lang, lines in (("ro", ro), ("en", en)):
            with gzip.GzipFile(os.path.join(out, f"{split}.{lang}.gz"), "wb", mtime=0) as g:
                g.write("".join(l + "\n" for l in lines).encode())
    print(f"wrote {out}: {n_train} training pairs")


if __name__ == "__main__":
    main(sys.argv[1:])
