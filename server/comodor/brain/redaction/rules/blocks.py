"""A secret's name and its value with a block or a call between them.

Test suites and small classes keep a credential where no operator joins it to its name: RSpec's
``let(:api_token) { '<hex>' }`` (``let!``, ``subject``, rspec-given's ``Given``), Ruby's
``def api_key; "X"; end``, a getter that returns a literal (``get apiKey() { return "X" }``,
``String getPassword() { return "X"; }``; the three-line
``def api_key`` / ``"X"`` / ``end`` is left to the net's next-line reading). Every named rule
reads ``name = value`` or ``name: value``; the net reads a value after the name on its line, up
to a bracket. Here the name is the block's or the method's, and the value is the one literal
the block returns.

The name must be a secret's (:func:`.net.strong_secret_name`; a weak one such as ``key`` takes
only a random draw) and the value a credential's shape (:func:`.net.shape`: a draw, hex, a
person's pick): ``let(:password) { 'secret' }`` and ``def token; SecureRandom.hex; end`` stay.
"""

from __future__ import annotations

import re
from typing import Final

from ..base import ASSIGNMENT, Rule, line_start
from ..values import secret_name
from .net import PICKED, RANDOM, shape, strong_secret_name

KIND: Final = "secret-shaped-value"

_LITERAL: Final = r"(?P<q>[\"'`])(?P<secret>[^\"'`\s\\]{8,200}+)(?P=q)"

# let(:api_token) { 'X' }, let!(:password) { "X" }, Given(:secret) { 'X' }, subject(:key) {...}
_BLOCK_RE: Final = re.compile(
    r"(?:let!?|[Gg]iven!?|subject)[ \t]*\([ \t]*:(?P<name>\w{2,64}+)[ \t]*\)[ \t]*"
    r"(?:\{[ \t]*|do[ \t]*\r?\n[ \t]*)" + _LITERAL + r"[ \t]*(?:\}|\r?\n[ \t]*end\b)"
)
# def api_key; "X"; end -- found from the literal after the ``; `` (:data:`_DEF_BEFORE` reads
# the method's name before it): ``def`` starts hundreds of lines of every Python file, and
# trying a pattern at each costs a correction 0.15 ms.
_RUBY_DEF_RE: Final = re.compile(
    r";[ ](?P<q>[\"'])(?P<secret>[^\"'`\s\\]{8,200}+)(?P=q)[ \t]*;[ \t]*end\b"
)
_DEF_BEFORE: Final = re.compile(r"def[ \t]+(?:self\.)?(?P<name>\w{2,64}+)(?:\(\))?[ \t]*\Z")
# get apiKey() { return "X" }, String getPassword() { return "X"; }: a method of no argument
# whose body returns a literal, found from its ``() {`` (rare in Python; every ``return`` of
# every file would cost a correction 0.15 ms), its name read before it (:data:`_NAME_BEFORE`).
_GETTER_RE: Final = re.compile(
    r"\(\)(?:[ ]\{|\{)[ \t]*(?:\r?\n[ \t]*)?return[ \t]+" + _LITERAL + r"[ \t]*;?[ \t]*(?:\}|\r?$)",
    re.M,
)
_NAME_BEFORE: Final = re.compile(r"(?P<name>\w{2,64}+)\Z")


def _value_span(m: re.Match[str], text: str, name: str) -> list[tuple[int, int]]:
    """The literal, when *name* is a secret's and the literal has a credential's shape."""
    value = text[m.start("secret") : m.end("secret")]
    found = shape(value)
    if strong_secret_name(name):
        return [m.span("secret")] if found >= PICKED else []
    said = secret_name(name)
    return [m.span("secret")] if said is not None and found == RANDOM else []


def _named_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    return _value_span(m, text, m.group("name"))


def _def_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    """The literal a one-line Ruby method returns, when the method's name is a secret's."""
    before = text[line_start(text, m.start(), 120) : m.start()]
    method = _DEF_BEFORE.search(before)
    return [] if method is None else _value_span(m, text, method.group("name"))


def _getter_spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
    """The literal a getter returns, when the getter's name is a secret's (``getApiKey``)."""
    method = _NAME_BEFORE.search(text, max(0, m.start() - 64), m.start())
    return [] if method is None else _value_span(m, text, method.group("name"))


BLOCK_RULES: Final[tuple[Rule, ...]] = (
    Rule(KIND, ASSIGNMENT, _BLOCK_RE, spans=_named_spans),
    Rule(KIND, ASSIGNMENT, _RUBY_DEF_RE, spans=_def_spans),
    Rule(KIND, ASSIGNMENT, _GETTER_RE, spans=_getter_spans),
)
