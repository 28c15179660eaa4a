from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.fake_llm import FakeLLM


@pytest.fixture
def fake_llm() -> Iterator[FakeLLM]:
    with FakeLLM() as llm:
        yield llm
