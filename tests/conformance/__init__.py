"""Comparisons with other libraries."""
