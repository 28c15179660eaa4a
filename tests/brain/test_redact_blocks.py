"""A secret's name and its value with a block or a call between them (RSpec's ``let``, a Ruby
one-line method, a getter returning a literal) are redacted like ``name = value``."""

from __future__ import annotations

import pytest
from comodor_lsp.brain.redaction.redactor import redact

HEX = "3f944b9539230babd1db0301a4317463"
DRAW = "Kbn9MKGkEzIeNMXynkKwSJejFA00n2mNjeMvRoVr"


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f"  let(:api_token) {{ '{HEX}' }}", HEX),
        ('  let!(:password) { "Copper80JkK.b" }', "Copper80JkK.b"),
        (f"  Given(:secret) {{ '{DRAW}' }}", DRAW),
        (f"  let(:client_secret) do\n    '{DRAW}'\n  end", DRAW),
        (f'  def api_key; "{HEX}"; end', HEX),
        ("  def self.password\n    'Tiger25YGUAdb'\n  end", "Tiger25YGUAdb"),
        (f'  get apiKey() {{\n    return "{HEX}";\n  }}', HEX),
        ('  public String getPassword() { return "Maple295NylEew"; }', "Maple295NylEew"),
        (f"  let(:key) {{ '{DRAW}' }}", DRAW),  # a weak name with a random draw
    ],
)
def test_a_secret_returned_by_a_block_or_a_getter_named_for_it_is_removed(
    text: str, secret: str
) -> None:
    assert secret not in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "  let(:password) { 'secret' }",  # a fixture's word, not a credential's shape
        "  let(:user) { create(:user, password: 'x') }",
        f"  let(:digest) {{ '{HEX}' }}",  # hex under a name that is not a secret's
        f"  let(:key) {{ '{HEX}' }}",  # hex under a weak name: a digest or an id
        '  def cache_key; "users/index"; end',
        '  get name() { return "Base64Encoder"; }',
        "  def token_type(self):\n        return 'bearer_token_v2'",
        '  def password_hint\n    "ask the admin"\n  end',
        '  String getTokenUrl() { return "https://auth.acme.dev/token"; }',
    ],
)
def test_blocks_and_getters_returning_code_words_or_non_secrets_are_left_alone(text: str) -> None:
    assert redact(text) == text
