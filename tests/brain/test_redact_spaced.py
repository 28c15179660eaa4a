"""App passwords pasted as providers print them, four groups of four letters with blanks
between (``abcd efgh ijkl mnop``), are redacted where a line says password or login."""

from __future__ import annotations

import pytest
from comodor_lsp.brain.redaction import LAST_LINE
from comodor_lsp.brain.redaction.redactor import redact


@pytest.mark.parametrize(
    "text",
    [
        'server.login("acme.alerts@gmail.com", "lxfw ovdx atxh dati")',
        "EMAIL_HOST_PASSWORD = 'lxfw ovdx atxh dati'",
        "EMAIL_HOST_PASSWORD=lxfw ovdx atxh dati",
        "smtp:\n  user: ops@acme.dev\n  password: lxfw ovdx atxh dati\n",
        'smtp.gmail.com: { user: "ops@acme.dev", appPassword: "lxfw ovdx atxh dati" }',
    ],
)
def test_a_gmail_app_password_with_its_blanks_is_removed(text: str) -> None:
    assert "lxfw" not in redact(text)
    assert "lxfw" not in redact(text, rules=LAST_LINE)  # no format needed


@pytest.mark.parametrize(
    "text",
    [
        "# Login: type your name here",
        'print("Password: enter your name here")',
        'raise LoginError("user must then wait")',
        'smtp_banner = "Mail Ready Here Okay"',
        'password_hint = "AAAA BBBB CCCC DDDD"',
        "pass  # then fail with this user name",
        'title = "this will then fail"',
    ],
)
def test_four_short_words_that_are_prose_or_a_title_are_left_alone(text: str) -> None:
    assert redact(text) == text
