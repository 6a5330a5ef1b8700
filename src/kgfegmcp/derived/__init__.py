"""Derived data: what start-up computes from verified package bytes, kept so a restart is warm."""
