"""The third batch of credential kinds, written without reading the redactor's rules.

``tests/support/unseen_secrets.py`` is split once, before any run, into a tune part and a
held-out part; these tests keep that split honest (fixed, disjoint, no kind repeated from the
earlier corpora), keep the tune part out of stored text, and keep commands and config lines
that hold no literal secret readable.
"""

from __future__ import annotations

import pytest
from comodor_lsp.brain.redaction.redactor import redact

from tests.support.unlisted_secrets import stored_kinds
from tests.support.unseen_secrets import HELD_OUT, TUNE, _split, build_unseen, older_names


def test_the_unseen_batch_has_sixty_kinds_or_more_none_of_them_named_before() -> None:
    names = {sample.name for sample in build_unseen(0)}
    assert len(names) >= 60
    assert not names & older_names()


def test_the_unseen_batch_is_split_by_its_fixed_seed_into_a_third_held_out() -> None:
    names = [sample.name for sample in build_unseen(3)]
    assert _split(names) == (set(TUNE), set(HELD_OUT))
    assert not TUNE & HELD_OUT
    assert len(HELD_OUT) == len(names) // 3


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_credentials_of_the_tune_part_are_not_stored(seed: int) -> None:
    assert stored_kinds(build_unseen(seed), TUNE) == []


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_credentials_of_the_held_out_part_are_not_stored_after_fixing(seed: int) -> None:
    """The held-out part's first look stored 13 of 45 kinds (see the corpus docstring); the
    fixes that followed are general rules, but from here on this part is not unseen."""
    assert stored_kinds(build_unseen(seed), HELD_OUT) == []


@pytest.mark.parametrize(
    "text",
    [
        "# load ~/.secrets\nsource ~/.secrets\n",
        'qs.stringify(obj, "a%5Bb%5D%5Bc%5D=false")',
        "see https://hooks.example.com/services/docs/getting-started-guide",
        '{"user": "jdoe", "key": "theme"}',
        "signingConfig signingConfigs.release\nkeyPassword System.getenv('KEY_PASSWORD')",
        "mkdir -p /tmp/build && cp -p a b",
        "ssh -l deploy -p 2222 host.example.com",
        "docker run -u 1000 -p 8080:80 nginx",
        'echo "$REGISTRY_PASSWORD" | docker login --username ci --password-stdin',
        '__all__ = ["getpass","getuser","GetPassWarning"]',
        'raise ValueError("password " + reason)',
        'git config user.name "Jane Doe"',
        "git config --global http.sslKey ~/.ssh/client.key",
        "see https://github.com/acme/api/commit/4b825dc642cb6eb9a060e54bf8d69288fbee4904",
        'pw = getpass.getpass("Password: ")',
        "useradd -m -s /bin/bash jdoe",
        'gh secret set DEPLOY_KEY --body "$KEY"',
        "keytool -list -keystore app.jks -storepass:env STOREPASS",
        "The password is stored in the vault, not here.",
        "password required\n",
        'OTEL_EXPORTER_OTLP_HEADERS="api-key=${NR_KEY}"',
        "https://docs.python.org/3/library/secrets.html#module-secrets",
        "x = os.environ.get('SECRET_KEY', '')",
        "-----BEGIN PGP PUBLIC KEY BLOCK-----\nmQINBGA1234567890abcdefghijklmnop\n"
        "-----END PGP PUBLIC KEY BLOCK-----",
        "private: true",
    ],
)
def test_commands_and_config_lines_without_a_literal_secret_are_left_untouched(
    text: str,
) -> None:
    assert redact(text) == text


@pytest.mark.parametrize("before", ["", "Keep ", "credentials: "])
def test_a_secrets_file_quoted_after_other_words_loses_its_passwords(before: str) -> None:
    """Taught as a rule ("Keep # /etc/rsyncd.secrets ...") the comment no longer starts its
    line; the every-door session scan found the password in AGENTS.md and the team database."""
    text = f"{before}# /etc/rsyncd.secrets (mode 600)\nbackup:Orbit75ZsOYQCj\n"
    assert "Orbit75ZsOYQCj" not in redact(text)
    assert redact(text).endswith("backup:[REDACTED:password]\n")
