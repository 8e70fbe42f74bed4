from __future__ import annotations

import re
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import create_tone_scorer
from scoring.similarity.explain import word_diff
from scoring.tone.explain import sentence_frame
from ui.markdown import DISAGREE_MARK, SHIFT_MARK, WORD_JOINER, diff_markdown, escape_markdown, highlight_markdown

_OPEN = re.compile(r":(green|red|gray)(-background)?\[")


def _read_back(markdown: str) -> str:
    """Undo highlight_markdown: drop directive syntax and marks, unescape; fail on any unescaped punctuation."""
    out, i, depth = [], 0, 0
    while i < len(markdown):
        if m := _OPEN.match(markdown, i):
            depth, i = depth + 1, m.end()
        elif markdown[i] == "\\":
            out.append(markdown[i + 1])
            i += 2
        elif markdown[i] == "]" and depth:
            depth, i = depth - 1, i + 1
        elif markdown[i] in (SHIFT_MARK, DISAGREE_MARK):
            i += 1
        else:
            assert markdown[i] not in string.punctuation, (markdown, i)
            out.append(markdown[i])
            i += 1
    assert depth == 0
    return "".join(out)


@settings(max_examples=60, deadline=None)
@given(
    text=st.text(alphabet=st.sampled_from([*"ab Z.!?\n:$*_[]()<>#`~|\\-&'\"", "😀", "é"]), max_size=80),
    splitter=st.sampled_from(["smart", "mastra"]),
)
def test_highlight_markdown_escapes_everything_and_loses_nothing(text: str, splitter: str) -> None:
    text = text.replace(SHIFT_MARK, "").replace(DISAGREE_MARK, "")
    pre = create_tone_scorer(splitter=splitter).run(output=text).preprocess_step_result
    markdown = highlight_markdown(text, sentence_frame(pre["sentences"]))
    assert re.sub(r"\s", "", _read_back(markdown)) == re.sub(r"\s", "", text)


def test_highlight_markdown_colours_sentences_and_keeps_paragraphs() -> None:
    text = "I love it.\n\nThis is awful [click](javascript:alert(1)) <b>x</b>."
    pre = create_tone_scorer().run(output=text).preprocess_step_result
    markdown = highlight_markdown(text, sentence_frame(pre["sentences"]))
    assert markdown.startswith(":green-background[:green[I love it\\.]]")
    assert (
        "\n\n:red-background[⚡ :red[This is awful \\[click\\]\\(javascript\\:alert\\(1\\)\\) \\<b\\>x\\<\\/b\\>\\.]]"
        in markdown
    )


def test_highlight_markdown_puts_each_mark_inside_its_own_sentence() -> None:
    # The mark starts the sentence's own highlight: it cannot be read as belonging to the next sentence.
    text = (
        "Thanks so much, we love helping you! Your card is on its way. Sadly it was stolen, which is awful. "
        "Have a great day! You clearly didn't read the terrible instructions."
    )
    frame = sentence_frame(create_tone_scorer().run(output=text).preprocess_step_result["sentences"])
    # the tone turns negative at sentence 3 and positive again at 4 (each marked where it turns)
    assert frame["tone_shift"].tolist() == [False, False, True, True, False]
    assert frame["engines_disagree"].tolist() == [False, False, False, False, True]
    markdown = highlight_markdown(text, frame)
    assert f":red-background[{SHIFT_MARK} :red[Sadly it was stolen\\, which is awful\\.]]" in markdown
    assert f":green-background[{SHIFT_MARK} :green[Have a great day\\!]]" in markdown
    assert f":green-background[{DISAGREE_MARK} :green[You clearly didn\\'t read" in markdown
    assert markdown.count(SHIFT_MARK) == 2 and markdown.count(DISAGREE_MARK) == 1


def test_escape_markdown_escapes_every_ascii_punctuation_character() -> None:
    escaped = escape_markdown(string.punctuation).replace(WORD_JOINER, "")
    assert escaped == "".join("\\" + c for c in string.punctuation)
    assert escape_markdown("plain words 123 é") == "plain words 123 é"


def test_diff_markdown_escapes_user_words() -> None:
    md = diff_markdown(word_diff("pay $5 now", "pay **$50** now"))
    assert md == "pay :red-background[~~\\$5~~] :green-background[\\*\\*\\$50\\*\\*] now"
