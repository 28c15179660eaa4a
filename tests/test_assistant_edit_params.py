"""``comodor/assistantEdit`` params: a well-formed notice is read; a bad one names its field."""

from __future__ import annotations

from typing import Any

import pytest
from comodor_lsp.brain.errors import InvalidInput
from comodor_lsp.protocol import AssistantEditParams
from comodor_lsp.protocol.convert import structure


def notice(**changes: Any) -> dict[str, Any]:
    raw: dict[str, Any] = {
        "uri": "file:///w/a.py",
        "version": 3,
        "source": "chat-edit",
        "ranges": [{"start": {"line": 1, "character": 0}, "end": {"line": 4, "character": 2}}],
    }
    raw.update(changes)
    return raw


@pytest.mark.parametrize(
    "source", ["chat-edit", "inline-completion", "next-edit", "extension:a.b-c"]
)
def test_every_source_of_the_spec_is_read(source: str) -> None:
    params = structure(notice(source=source), AssistantEditParams)
    assert params.source == source
    assert params.ranges[0].end.line == 4


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"source": "user"}, "source"),
        ({"source": "chat-edit:" + "x" * 500}, "source"),
        ({"source": "chat-edit:<a href>"}, "source"),
        ({"version": -1}, "version"),
        ({"uri": "x" * 10_000}, "uri"),
        ({"ranges": [{}] * 5000}, "ranges"),
    ],
)
def test_a_bad_notice_is_refused_naming_the_field(changes: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        structure(notice(**changes), AssistantEditParams)
    assert field in str(caught.value)
