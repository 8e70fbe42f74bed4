"""demo page."""

import streamlit as st

st.title("Demo")
