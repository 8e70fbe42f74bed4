"""Tone explorer: the router. Sets up the page, the session state, and the navigation."""

import streamlit as st

import ui

st.set_page_config(page_title="Tone explorer", page_icon="🎛️", layout="wide")
ui.init_state()


def _pages() -> dict[str, list[st.Page]]:
    return {
        "": [st.Page("pages/home.py", title="Home", icon=":material/home:", default=True)],
        "Score one text": [
            st.Page("pages/tone.py", title="Tone", icon=":material/graphic_eq:"),
            st.Page("pages/similarity.py", title="Similarity", icon=":material/compare_arrows:"),
            st.Page("pages/toxicity.py", title="Toxicity", icon=":material/shield:"),
        ],
        "Score many": [
            st.Page("pages/batch.py", title="Batch", icon=":material/table_view:"),
            st.Page("pages/runs.py", title="Runs", icon=":material/history:"),
        ],
        "Show": [st.Page("pages/demo.py", title="Demo", icon=":material/slideshow:")],
    }


# Built once per session (each st.Page resolves and checks its file, ~1 ms for the seven on every run). Not
# shared between sessions: st.navigation marks the page it returns as runnable, and Page.run unmarks it.
if "router.pages" not in st.session_state:
    st.session_state["router.pages"] = _pages()
st.navigation(st.session_state["router.pages"]).run()
