"""home page."""

import streamlit as st

st.title("Home")
