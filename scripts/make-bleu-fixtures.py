#!/usr/bin/env python3
"""Records sacreBLEU's BLEU, chrF and 13a tokenization on varied test sets as fixtures
for tests/eval (the C++ metrics must reproduce them). Needs `pip install sacrebleu`.

    python3 scripts/make-bleu-fixtures.py [--out tests/eval/fixtures]

Deterministic: the random sets come from random.Random with fixed seeds.
"""
import argparse
import json
import os
import random
import sys

import sacrebleu
from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

# Pieces that exercise every 13a rule: punctuation classes, '.'/',' next to digits or not,
# '-' after digits, apostrophes (never split), HTML entities, Unicode letters and spaces.
WORDS = [
    "the", "a", "house", "is", "small", "big", "we", "they", "said", "that", "of", "in",
    "Haus", "Größe", "über", "Straße", "Mädchen", "schön", "Öl", "Zürich", "naïve", "café",
    "well-known", "e-mail", "state-of-the-art", "don't", "it's", "O'Neill", "U.S.", "etc.",
    "1,000", "3.14", "2019", "10-15", "5-", "-7", "0.5%", "$20", "€30", "1.000,50", "v2.0",
    "(see", "above)", "[1]", "{x}", "\"quoted\"", "'single'", "„deutsch“", "«guillemets»",
    "&amp;", "&quot;", "&lt;b&gt;", "AT&amp;T", "&amp;quot;", "&apos;", "<skipped>",
    "a/b", "x@y.org", "#tag", "C++", "50:50", "a;b", "why?", "yes!", "wait...", "—", "–",
    "東京", "日本語", "😀", "ß", "İstanbul", "ǅ", "x_y", "~tilde", "back`tick", "c^2", "|pipe|",
]
PUNCT = [".", ",", "!", "?", ":", ";", "-", "'", "\"", "...", ")", "("]
SPACES = [" ", " ", " ", " ", "  ", "\t", "\u00a0", "\u3000", "\u2009"]


def random_sentence(rng, n_min, n_max):
    n = rng.randint(n_min, n_max)
    out = []
    for i in range(n):
        out.append(rng.choice(WORDS) if rng.random() < 0.85 else rng.choice(PUNCT))
        if i + 1 < n:
            out.append(rng.choice(SPACES) if rng.random() < 0.9 else "")
    if rng.random() < 0.5:
        out.append(rng.choice([".", "!", "?", " .", ""]))
    return "".join(out)


def perturb(rng, ref):
    """A hypothesis that shares some n-grams with `ref`."""
    r = rng.random()
    if r < 0.05:
        return ""
    if r < 0.10:
        return ref
    words = ref.split(" ")
    out = []
    for w in words:
        x = rng.random()
        if x < 0.12:
            continue
        if x < 0.22:
            out.append(rng.choice(WORDS))
        elif x < 0.27:
            out.extend([w, rng.choice(WORDS)])
        elif x < 0.30:
            out.append(w.upper())
        else:
            out.append(w)
    if len(out) > 3 and rng.random() < 0.3:
        i = rng.randrange(len(out) - 1)
        out[i], out[i + 1] = out[i + 1], out[i]
    return " ".join(out) + (rng.choice(["", " ", "  \t"]) if rng.random() < 0.2 else "")


def random_corpus(seed, size, n_min, n_max):
    rng = random.Random(seed)
    refs = [random_sentence(rng, n_min, n_max) for _ in range(size)]
    hyps = [perturb(rng, ref) for ref in refs]
    return hyps, refs


def hand_cases():
    c = []
    def add(name, hyps, refs):
        c.append((name, hyps, refs))
    add("identical", ["The cat sat on the mat .", "A dog barked loudly at night ."],
        ["The cat sat on the mat .", "A dog barked loudly at night ."])
    add("partial_match", ["the cat is on the mat", "there is a dog in the garden today"],
        ["the cat sat on the mat", "a dog is in the garden"])
    add("punctuation", ["Hello, world! How are you? (Fine.) [ok] {yes} a/b; c:d",
                        "Wait... what?! \"Really\"; 'yes'."],
        ["Hello , world ! How are you ? ( Fine . ) [ok] {yes} a / b ; c : d",
         "Wait ... what ? ! \"Really\" ; 'yes' ."])
    add("numbers", ["It costs 1,000.50 dollars, i.e. 3.14 per item, or 1.000,50 EUR.",
                    "In 2019, 5,5 and 7.7 and .5 and 5. were numbers 1,2,3."],
        ["It costs 1,000.50 dollars , i.e. 3.14 per item , or 1.000,50 EUR .",
         "In 2019 , 5,5 and 7.7 were numbers 1 , 2 , 3 ."])
    add("hyphens", ["a well-known state-of-the-art e-mail from 10-15 May, 5- or -7 or 9--9",
                    "pages 100-200 and A-B and x- y"],
        ["a well-known state-of-the-art email from 10 - 15 May , 5 - or -7",
         "pages 100 - 200 and A-B and x - y"])
    add("html_entities", ["AT&amp;T said &quot;hi&quot; &lt;b&gt;bold&lt;/b&gt; &amp;quot; &apos;",
                          "Tom &amp; Jerry &amp;amp; &#39; & ; &amp"],
        ["AT&T said \"hi\" <b>bold</b> &quot; &apos;", "Tom & Jerry &amp; ' & ; &amp"])
    add("quotes", ["He said \"no\" and 'yes' and „ja“ and «oui» and ‘single’ and “double”.",
                   "don't won't O'Neill's 'quoted'"],
        ["He said \" no \" and 'yes' and „ja“ and «oui» .", "don't won't O'Neill 's quoted"])
    add("german_umlauts", ["Die Größe des Hauses über der Straße ist schön.",
                           "Mädchen essen Äpfel und Öl in Zürich."],
        ["Die Größe des Hauses an der Straße ist sehr schön.",
         "Die Mädchen essen Äpfel und Öl in Zürich."])
    add("empty_hypothesis_among_others", ["", "a small house in the woods", ""],
        ["the big house", "a small house in the woods", "nothing here"])
    add("all_hypotheses_empty", ["", ""], ["a b c d", "e f g"])
    add("empty_references", ["something here", "more words"], ["", ""])
    add("both_empty", ["", ""], ["", ""])
    add("short_hyp_brevity", ["the cat", "a dog"],
        ["the cat sat on the mat today", "a dog barked at the mailman"])
    add("long_hyp_ratio_above_1", ["the cat sat on the mat and then it sat on the mat again"],
        ["the cat sat on the mat"])
    add("zero_4gram_matches", ["the cat sat down on mat", "a dog ran far off now"],
        ["the cat sat on the mat", "a dog ran off very far"])
    add("zero_3_and_4gram_matches", ["cat the mat on sat the", "dog a off ran far"],
        ["the cat sat on the mat", "a dog ran off far"])
    add("only_unigram_matches", ["mat the on sat cat"], ["the cat sat on the mat"])
    add("no_matches", ["completely different words here"], ["the cat sat on the mat"])
    add("hyps_shorter_than_4_tokens", ["the cat", "a dog ran"], ["the cat", "a dog ran"])
    add("case_sensitive", ["The Cat Sat On The Mat", "HELLO WORLD"],
        ["the cat sat on the mat", "hello world"])
    add("repeated_words_clipping", ["the the the the the the the", "of of of a"],
        ["the cat is on the mat", "a friend of mine"])
    add("whitespace_variants", ["  the\tcat  sat\u00a0on the\u3000mat  ", "a\u2009b c\u2028d \x1ce  "],
        ["the cat sat on the mat", "a b c d e"])
    add("skipped_and_newlines", ["the <skipped> cat sat", "a multi-\nline\nhypothesis text"],
        ["the cat sat", "a multiline hypothesis text"])
    add("cjk_and_emoji", ["東京は日本の首都です 😀", "日本語のテキスト"],
        ["東京は日本の首都 です 😀😀", "日本語 の テキスト"])
    add("chrf_short_segments", ["ab", "xyz", "a"], ["abc", "xy", "abcdefgh"])
    add("single_segment", ["Ein kleiner Test, bitte."], ["Ein kleiner Test, danke."])
    return c


def tokenizer_inputs():
    fixed = [
        "", " ", "  \t ", "Hello, world!", "3,000.50 dollars", "1.5-2.0", "e-mail",
        "well-known", "10-15", "a.b", "U.S.A.", "end.", ".start", ",5", "5,", "5.", ".5",
        "a,,b", "...", "1...2", "a..b", "x.,y", "1.,2", "9-", "-9", "9--9", "9-9-9", "a-9",
        "&amp; &quot;x&quot; &lt;tag&gt; &apos;", "&amp;quot;", "&amp;lt;", "&&amp;;",
        "<skipped>", "a<skipped>b", "<skip<skipped>ped>", "line-\nbreak", "multi\nline",
        "trail-\n", "tabs\tand  spaces", "nbsp\u00a0here", "ideo\u3000space", "thin\u2009sp",
        "zw\u200bsp", "sep\x1cchars\x1fhere", "nel\x85x", "ls\u2028ps\u2029",
        "Größe – „Anführungszeichen“", "don't", "$5", "50%", "(parens)", "[br]{ac}",
        "a/b", "x@y.com", "#hashtag", "C++", "~`^_|\\", "a!b?c", "emoji😀.end", "東京。",
        "€1,5", "٣.١٤", "１,２", "abc   ", " leading", "\rcr\r", "semi;colon:", "<b>x</b>",
        "He said: \"Yes.\"", "'quoted'", "x=y+z*2", "a&b", "50-50", "1,000,000.00",
    ]
    rng = random.Random(13)
    alphabet = list("ab0123456789.,-'&;:!?()\"/ \t") + ["&amp;", "&quot;", "&lt;", "ä", "ß",
                                                       "\u00a0", "-\n", "\n", "<skipped>", "😀"]
    fuzz = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 30))) for _ in range(300)]
    return fixed + fuzz


def bleu_record(hyps, refs):
    bleu = BLEU()
    s = bleu.corpus_score(hyps, [refs])
    return {
        "score": s.score, "precisions": list(s.precisions), "bp": s.bp, "ratio": s.ratio,
        "hyp_len": s.sys_len, "ref_len": s.ref_len, "counts": list(s.counts),
        "totals": list(s.totals), "text": str(s), "signature": str(bleu.get_signature()),
    }


def chrf_record(hyps, refs):
    chrf = CHRF()
    s = chrf.corpus_score(hyps, [refs])
    return {"score": s.score, "text": str(s), "signature": str(chrf.get_signature())}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out", default=os.path.normpath(os.path.join(here, "..", "tests", "eval", "fixtures")))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)

    cases = hand_cases()
    cases.append(("random_500", *random_corpus(seed=500, size=500, n_min=1, n_max=30)))
    cases.append(("random_short_200", *random_corpus(seed=200, size=200, n_min=1, n_max=4)))
    records = []
    for name, hyps, refs in cases:
        assert len(hyps) == len(refs), name
        records.append({"name": name, "hyps": hyps, "refs": refs,
                        "bleu": bleu_record(hyps, refs), "chrf": chrf_record(hyps, refs)})

    tok = Tokenizer13a()
    tokenized = [{"input": s, "tokenized": tok(s)} for s in tokenizer_inputs()]

    meta = {"generator": "scripts/make-bleu-fixtures.py", "sacrebleu_version": sacrebleu.__version__}
    outputs = {
        "corpus_scores.json": dict(meta, cases=records),
        "tokenizer_13a.json": dict(meta, cases=tokenized),
    }
    for fname, obj in outputs.items():
        path = os.path.join(args.out, fname)
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            json.dump(obj, f, ensure_ascii=False, indent=1)
            f.write("\n")
        os.replace(path + ".tmp", path)
        print(f"wrote {path}", file=sys.stderr)
    print(f"{len(records)} score cases, {len(tokenized)} tokenizer cases", file=sys.stderr)


if __name__ == "__main__":
    main()
