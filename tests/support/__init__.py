"""Test helpers: fakes and fixtures shared across test packages."""
