"""tone page."""

import streamlit as st

st.title("Tone")
