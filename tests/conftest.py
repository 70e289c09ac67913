"""Shared pytest configuration for the camelup test suite."""
