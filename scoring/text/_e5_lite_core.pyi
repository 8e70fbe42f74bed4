"""e5-lite's compiled core (``_e5_lite_core.c``): e5's SentencePiece-unigram tokenizer, as ``scoring.text.e5_lite``'s
Python code tokenizes."""

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

class Segmenter:
    """e5's tokenizer with its vocabulary, scores and normalisation map passed in once."""

    def __init__(
        self, pieces: list[str], scores: list[float], unk: int, unk_score: float, normalisation: dict[int, str]
    ) -> None: ...
    def ids(self, text: str, /) -> list[int]:
        """The content token ids of ``text``."""
    def rows(self, texts: Sequence[str], row_of: npt.NDArray[np.int64], /) -> tuple[bytes, bytes]:
        """(flat, lengths): every text's tokens' table rows (int64 bytes, -1 rows left out) and each text's count."""
