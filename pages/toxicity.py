"""toxicity page."""

import streamlit as st

st.title("Toxicity")
