"""Provider-shaped tokens: a key whose own prefix says what it is is removed wherever it stands."""

from __future__ import annotations

from comodor_lsp.brain.redaction.redactor import redact


def test_openai_compatible_key_of_lowercase_hex_is_removed_from_a_yaml_list() -> None:
    key = "sk-3e0d9a71b2c4f58e6a0d1c9b7e2f4a35"
    text = f"keys:\n  - moonshot={key}\n  - other=none\n"

    out = redact(text)

    assert key[3:11] not in out
    assert "[REDACTED:openai-key]" in out
    assert "other=none" in out


def test_sk_prefixed_slug_or_letters_only_run_is_left_alone() -> None:
    text = (
        "pip install sk-learn-compatible-wrapper-2024-abcdef\n"
        "name = 'sk-abcdefabcdefabcdefabcdefabcdefab'\n"
    )

    assert redact(text) == text


def test_live_mode_key_of_any_provider_is_removed_from_a_constructor() -> None:
    key = "acme_live_apikey_7fk2m9qx04rtz81wbh63nv5c_QmZr8TkPw2LxVb9Hd3Ys4n_K7e"
    text = f"const client = new Acme('{key}', {{ retries: 2 }})\n"

    out = redact(text)

    assert "apikey_7fk2m9" not in out and "acme_live" not in out
    assert "[REDACTED:live-key]" in out
    assert "retries: 2" in out


def test_live_named_identifier_or_publishable_key_is_left_alone() -> None:
    text = (
        "def _live_reload_handler_for_tests2():\n"
        "    enable_live_preview_when_ready_again = True\n"
        "PUBLIC = 'pk_live_Hq7Zr2TkPw9LxVb4Md3Ys8nE'\n"
    )

    assert redact(text) == text


def test_rubygems_marker_does_not_repeat_the_start_of_the_key() -> None:
    key = "rubygems_" + "0f1e2d3c4b5a6978" * 3
    text = f"GEM_HOST_API_KEY={key} gem push pkg/tiny-1.0.gem\n"

    out = redact(text)

    assert "rubygems" not in out
    assert "[REDACTED:gem-host-api-key]" in out
