# ruff: noqa: E501  (lines of config and code are data here)
"""Secrets escaped into a URL: an ODBC connection string inside ``odbc_connect=``, a form post's
``password%3DX``, are redacted as well as the plain text would be.

No rule sees a name and a value where ``=`` and ``;`` are ``%3D`` and ``%3B``;
:func:`comodor.brain.redaction.views.percent_view` reads those lines again, decoded, and maps what it finds
back to the text.
"""

from __future__ import annotations

import pytest
from comodor_lsp.brain.redaction.redactor import redact
from comodor_lsp.brain.redaction.views import percent_view


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (
            'engine = create_engine("mssql+pyodbc:///?odbc_connect=DRIVER%3D%7BODBC+Driver+18+for+SQL+Server%7D%3BSERVER%3Dsql01%3BUID%3Detl%3BPWD%3DTiger799%25ob7P")',
            "Tiger799",
        ),
        ("POST /login body=user%3Djdoe%26password%3DOrbit82YEAMsYLM", "Orbit82YEAMsYLM"),
        (
            "params = urlencode(...)  # -> conn_str=Server%3Ddb%3BUser+Id%3Dsa%3BPassword%3DCopper33.MoscTSr%3B",
            "Copper33",
        ),
        (
            "x = 1\n\n\nredirect=https%3A%2F%2Fjdoe%3AHarbor53zSY.4e%40git.acme.dev%2Frepo",
            "Harbor53",
        ),
    ],
)
def test_a_password_escaped_into_a_url_is_removed(text: str, secret: str) -> None:
    redacted = redact(text)
    assert secret not in redacted
    assert "[REDACTED:" in redacted


@pytest.mark.parametrize(
    "text",
    [
        'print("%20s|%-8s" % (name, kind))',
        "url = 'https://example.com/search?q=hello%20world%21&page=2'",
        "SELECT * FROM t WHERE name LIKE '%3B%'",
        "width = '100%'; color: #3D3D3D",
        "path = quote('a b/c', safe='') == 'a%20b%2Fc'",
    ],
)
def test_escaped_urls_and_formats_without_a_secret_are_left_alone(text: str) -> None:
    assert redact(text) == text


def test_the_decoded_view_maps_every_character_back_to_where_it_stood() -> None:
    text = "a\nkey%3Dv%25x;y\nb\nc\nPWD%3DZ%40q\n"
    view = percent_view(text)
    assert view is not None
    assert view.text == "key=v%x;y\n\nPWD=Z@q"
    for i, char in enumerate(view.text):
        if char == "\n":
            continue  # the break that stands for the lines left out maps to where they start
        at = view.to_text(i)
        assert text[at] == char or text[at : at + 3].startswith("%")
    end = view.text.index("Z@q") + 3
    assert view.to_text(end) == text.index("q\n") + 1


def test_a_text_without_an_escape_has_no_decoded_view() -> None:
    assert percent_view("no escapes: %s %d 100%") is None
    assert percent_view("") is None
