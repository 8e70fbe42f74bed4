"""Batch page (placeholder until the batch evaluation page lands)."""

import streamlit as st

st.title("Batch evaluation")
st.info("Batch evaluation is coming: score a file of responses with every scorer at once.")
