"""Minimal dashboard: the tone score of pasted text (the full dashboard replaces this)."""

import streamlit as st

from scoring import create_tone_scorer

st.set_page_config(page_title="Tone explorer", page_icon="🎛️")
st.title("Tone explorer")
text = st.text_area("Response text", "It was great. Thanks for the quick help!", key="home.text")
if text.strip():
    result = create_tone_scorer().run(output=text)
    st.metric("Tone stability score", f"{result.score:.3f}")
