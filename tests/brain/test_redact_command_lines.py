"""Command lines: a flag's value is a credential when the command says what the flag takes."""

from __future__ import annotations

from comodor_lsp.brain.redaction.redactor import redact


def test_publish_access_token_after_short_p_is_removed() -> None:
    token = "q3wz7kd2mhx5ra9ptn4cv6jyb8se2lfu3gix7okq5mnw4dzr6hta"
    uuid = "9c1d7e2a-5b3f-4e8d-a6c0-3f2b1e9d8a47"
    text = (
        f"$ npx @vscode/vsce publish -p {token} patch\n"
        f"npx ovsx publish my-ext-1.2.0.vsix -p {uuid}\n"
    )

    out = redact(text)

    assert token[:8] not in out and uuid[:8] not in out
    assert "publish -p [REDACTED:token] patch" in out
    assert "my-ext-1.2.0.vsix -p [REDACTED:token]" in out


def test_publish_short_p_naming_a_package_or_path_is_left_alone() -> None:
    text = "cargo publish -p tokio-util-0.7.10\nnpm publish -p ./dist\nhelm publish -p 8080\n"

    assert redact(text) == text
