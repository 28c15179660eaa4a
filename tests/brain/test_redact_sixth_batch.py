"""The sixth batch of credential kinds: what its leaks taught, and what must be left alone.

``tests/support/sixth_batch_secrets.py`` has no tune part: every kind was held out and looked at
once (35 of 275 stored; none now). Its shape and the verdict on every kind are tested with every
other batch's in ``test_redact_batches.py``; here are the families its leaks led to and the
look-alikes they must leave alone.
"""

from __future__ import annotations

import pytest


def test_a_key_a_tool_prints_is_removed_where_the_next_command_uses_it_too() -> None:
    from comodor_lsp.brain.redaction.redactor import redact

    key = "fa4e1adbc9840924acde33401bd72fe951a13bf725f8e94d"
    text = f"$ headscale preauthkeys create --user homelab\n{key}\n$ tailscale up --authkey {key}"
    assert key[:8] not in redact(text)


LOOK_ALIKES: list[str] = [
    # grouped numbers that are not drawn: versions, dates, placeholders, phone numbers
    "version: 1.2.3-4567-8901\nreleased: 2024-05-14",
    "Recovery key = '0000-0000-0000-0000-0000-0000'",
    "serial = 'AAAA-BBBB-CCCC-DDDD'",
    # a psql record and a pipe whose value is a word or a command
    "password      | (null)\nsmtp_user     | noreply",
    'echo "$PASSWORD" | base64',
    # an XML attribute naming a token, its element's text a reference or a word
    '<string name="facebook_client_token">@string/fb_token</string>',
    '<string name="token_hint">Paste your token</string>',
    # type names that put a word and digits before a word of a name
    "x = Int32Array.from(buf)\ny: Base64Url = 'Base64Url.'",
    "return Route53Client(config)",
    "sha = Sha256WithRSAEncryption",
    # CSV headers whose password column holds nothing, and code lists of names
    "name,url,username,password,note\n",
    "field,default,password\nretries,3,none",
    "user,password,otp = row\nlogin(user,password,otp)",
    # hex and base64 literals that spell no password, further along a secret's line
    'SECRET_KEY = bytes.fromhex("deadbeefdeadbeefdeadbeefdeadbeef")',
    "TOKEN_HEADER = base64.b64decode('SGVsbG8gd29ybGQ=')",
    # a sentence that names a seed and twelve words that are prose
    "The wallet seed phrase: you should never share the words with anyone at all ever",
    # a paperkey and a keytab described, not listed
    "# Secret portions of key are printed by paperkey --output-type base16",
    "klist -k -K prints (aes256-cts-hmac-sha1-96) and the key in hex",
    # names ending in _sig or pepper, holding code
    "PAYMENTS_CALLBACK_SIG = compute_sig(body)\nDEVISE_PEPPER = ENV['PEPPER']",
]


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_code_that_only_looks_like_the_sixth_batch_is_stored_unchanged(text: str) -> None:
    from comodor_lsp.brain.redaction.redactor import redact

    assert redact(text) == text


def test_the_encrypted_key_of_an_ethereum_keystore_is_removed() -> None:
    from comodor_lsp.brain.redaction.redactor import redact

    ciphertext = "9a65ff5d619311271262b0e238fed0aa5520e642bf210f3e875a2bb311a6c0de"
    text = (
        '{"version": 3, "crypto": {"cipher": "aes-128-ctr", "ciphertext": "' + ciphertext + '",\n'
        ' "cipherparams": {"iv": "55a7361e4dc3be925537ea0cf7d9"}, "kdf": "scrypt"}}'
    )
    assert ciphertext[:16] not in redact(text)


def test_a_private_key_a_wallet_cli_prints_in_hex_after_its_warning_is_removed() -> None:
    from comodor_lsp.brain.redaction.redactor import redact

    key = "06133dedcfb7ada827a7cb3dfbb7717797239918a6b5fecce5949ac4743fc0de"
    text = (
        "$ gaiad keys export validator --unarmored-hex --unsafe\n"
        "WARNING: The private key will be exported as an unarmored hexadecimal string. "
        "USE AT YOUR OWN RISK. Continue? [y/N]: y\n" + key + "\n"
    )
    assert key[:16] not in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        # a cipher's test vector, no keystore around it
        '{"key": "000102030405060708090a0b0c0d0e0f",'
        ' "ciphertext": "69c4e0d86a7b0430d8cdb78070b4c55a"}',
        # a private key mentioned, then a digest of something else two lines down
        "# derive the public key from the private key\n\n"
        "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 extra\n",
    ],
)
def test_a_test_vector_or_a_digest_near_key_words_is_left_alone(text: str) -> None:
    from comodor_lsp.brain.redaction.redactor import redact

    assert redact(text) == text
