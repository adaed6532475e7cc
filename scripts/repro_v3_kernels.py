"""Keeps a suite on the kernels its runs so far used (scripts/repro_v3.py --kernels).

Results are bit-identical across machines only with the same BLAS kernels: Debian's OpenBLAS
picks them from the CPU model (SkylakeX on a Xeon, Cooperlake on a Zen 4 EPYC, Haswell or Zen
on AVX2-only CPUs), and other kernels change the products' low-order bits, so a suite continued
on another machine would mix runs that differ in more than their settings. Every finished run
names its kernels in summary.json ("blas"); the driver sets OPENBLAS_CORETYPE to the core most
of them used, where this CPU can run it, before it starts or submits anything (Slurm jobs
inherit the environment). It changes nothing you set yourself (OPENBLAS_CORETYPE, SL_BLAS), and
says so when that differs from the suite's kernels."""
import collections
import os

from slanalysis.logfiles import read_json
from slanalysis.notes import silent

# The CPU flags (/proc/cpuinfo) each kernel ISA needs.
ISA_FLAGS = {"avx512": ("avx512f", "avx512bw", "avx512vl", "avx512dq"), "avx2": ("avx2", "fma"),
             "avx": ("avx",), "sse": ("pni",)}  # pni: SSE3


def suite_kernels(model_dir):
    """Counter of (library, core, core_isa) over the finished runs under model_dir."""
    c = collections.Counter()
    try:
        names = sorted(os.listdir(model_dir))
    except OSError:
        return c
    for name in names:
        s = read_json(os.path.join(model_dir, name, "summary.json"), silent) or {}
        b = s.get("blas") or {}
        if s.get("status") == "complete" and b.get("library") and b.get("core"):
            c[(b["library"], b["core"], b.get("core_isa", ""))] += 1
    return c


def cpu_flags(path="/proc/cpuinfo"):
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def choose(kernels, env, flags):
    """(environment updates, message or None) that put new runs on the suite's kernels."""
    if not kernels:
        return {}, None
    (library, core, isa), n = kernels.most_common(1)[0]
    total = sum(kernels.values())
    others = f"; {total - n} other run(s) on other kernels" if n < total else ""
    said = f"{n} of its {total} finished runs used {library} core {core}{others}"
    if library != "OpenBLAS":
        return {}, f"the suite's kernels are not pinned: {said} (set SL_BLAS to run that library)"
    if env.get("SL_BLAS", "openblas") != "openblas":
        return {}, (f"SL_BLAS={env['SL_BLAS']} is kept, but {said}: new runs' low-order bits "
                    f"differ from theirs")
    mine = env.get("OPENBLAS_CORETYPE")
    if mine:
        if mine.lower() == core.lower():
            return {}, f"OPENBLAS_CORETYPE={mine} is kept: {said}"
        return {}, (f"OPENBLAS_CORETYPE={mine} is kept, but {said}: new runs' low-order bits "
                    f"differ from theirs")
    need = ISA_FLAGS.get(isa)
    if need is None or not all(f in flags for f in need):
        return {}, (f"{said}, which this CPU cannot run ({isa or 'unknown ISA'}): new runs use "
                    f"the kernels OpenBLAS picks here and their low-order bits differ")
    return {"OPENBLAS_CORETYPE": core}, f"new runs use the suite's kernels: {said} (OPENBLAS_CORETYPE={core})"
