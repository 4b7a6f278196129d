"""Pytest fixtures shared by test packages (import them into a conftest to use)."""

from __future__ import annotations

import pytest

from tests.support.fake_openai import FakeOpenAI


@pytest.fixture
def fake_openai():
    """A fresh fake OpenAI server on 127.0.0.1 for one test."""
    fake = FakeOpenAI().start()
    try:
        yield fake
    finally:
        fake.stop()
