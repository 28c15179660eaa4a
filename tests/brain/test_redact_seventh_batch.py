"""The seventh batch of credential kinds: what its leaks taught, and what must be left alone.

``tests/support/seventh_batch_secrets.py`` has no tune part: every kind was held out and looked at
once (16 of 208 stored; none now). Its shape and the verdict on every kind are tested with every
other batch's in ``test_redact_batches.py``; here are the families its leaks led to and the
look-alikes they must leave alone.
"""

from __future__ import annotations

import pytest
from comodor_lsp.brain.redaction.redactor import redact

# A placeholder's default: the literal a config falls back to.


def test_a_password_left_as_a_placeholders_default_is_removed() -> None:
    text = "    password: ${DB_PASSWORD:Lantern41dPW#I8.e}\n"
    assert redact(text) == "    password: ${DB_PASSWORD:[REDACTED:secret-shaped-value]}\n"


@pytest.mark.parametrize(
    "text",
    [
        "    password: ${DB_PASSWORD:postgres}\n",  # a word: the local default everyone knows
        "    password: ${DB_PASSWORD:${VAULT_DB_PASSWORD}}\n",  # another placeholder
        "    username: ${DB_USER:billing42}\n",  # not a secret's name
        "    url: jdbc:postgresql://${DB_HOST:localhost}:5432/billing\n",
    ],
)
def test_a_placeholders_default_that_is_a_word_or_a_reference_is_kept(text: str) -> None:
    assert redact(text) == text


# A comment after a value, and a value ending a clause of prose.


def test_a_password_before_an_ini_comment_is_removed_and_the_comment_kept() -> None:
    text = "mysqli.default_pw = Lantern11POIUA ; FIXME shared with the cron box\n"
    assert redact(text) == (
        "mysqli.default_pw = [REDACTED:secret-shaped-value] ; FIXME shared with the cron box\n"
    )


def test_a_password_in_parentheses_in_handover_notes_is_removed() -> None:
    text = "The Grafana (grafana.corp.local, login admin, pw Harbor16PKNYT) feeds the wall.\n"
    assert "Harbor16PKNYT" not in redact(text)
    assert redact(text).endswith(") feeds the wall.\n")


@pytest.mark.parametrize(
    "text",
    [
        "max_retries = 3 ; see the runbook\n",
        "password_file = secrets.txt # read at start\n",
        "if (ok) check(password, retries2);\n",
    ],
)
def test_settings_and_code_around_a_comment_or_a_parenthesis_are_kept(text: str) -> None:
    assert redact(text) == text


def test_a_triple_quoted_secret_on_the_next_line_is_removed() -> None:
    secret = "218caebe81e2c1b0b1121e72ef5ab7e621019b235588bf47a38e2bc1c087f5b9"
    text = f'[webhooks.github]\nsecret = """\n{secret}"""\n'
    assert secret not in redact(text)


def test_a_triple_quoted_docstring_after_a_password_word_is_kept() -> None:
    text = 'def check_password():\n    """\n    Compare it with the stored hash.\n    """\n'
    assert redact(text) == text


# Providers: Supabase's secret keys, and an AWS secret printed beside its key id.


def test_a_supabase_secret_key_is_removed_and_its_publishable_key_kept() -> None:
    secret = "sb_secret_dRiIafJUnfJiLUuOKuo5sDTe5Fg_IRG"
    text = f'create_client("https://wpbfxhmfemudguvquvan.supabase.co", "{secret}")\n'
    assert secret not in redact(text)
    public = 'createClient(url, "sb_publishable_xyz")\n'
    assert redact(public) == public


def test_the_secret_in_aws_create_access_key_text_output_is_removed() -> None:
    secret = "lSim/iSs/fpvBJLPWpNFZdGkQHIkssmtAZmJUCzN"
    text = f"ACCESSKEY\tAKIAQTGGNTLR72ZRWSH3\t2024-06-10T09:14:02+00:00\t{secret}\tActive\tci\n"
    assert secret not in redact(text)


def test_a_commit_id_on_the_line_of_an_aws_key_id_is_kept() -> None:
    commit = "0123456789abcdef0123456789abcdef01234567"
    text = f"AKIAQTGGNTLR72ZRWSH3 rotated in {commit}\n"
    assert commit in redact(text)


# What a tool prints when it makes a credential.


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (
            "[Server] A temporary password is generated for root@localhost: !80v7qqCj;mn\n",
            "!80v7qqCj;mn",
        ),
        (
            "Password for the [elastic] user reset.\nNew value: mdxIejQCCYKJmjMBvfqv\n",
            "mdxIejQCCYKJmjMBvfqv",
        ),
        ("$ argocd admin initial-password -n argocd\nL7jMG97hhZg8jlcg\n", "L7jMG97hhZg8jlcg"),
        (
            "$ openssl rand -base64 32\nMNGwDM0Kg0tf2Qk5cSVsA7GbGriEQDb5wB00fKxEiz0=\n",
            "MNGwDM0Kg0tf2Qk5cSVsA7GbGriEQDb5wB00fKxEiz0=",
        ),
    ],
)
def test_a_password_a_tool_prints_when_it_makes_one_is_removed(text: str, secret: str) -> None:
    assert secret[2:-2] not in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "print('Generated password: ' + password)\n",  # code that prints one, not one printed
        "log.info('token reset at: %s', when)\n",
        "    self.resetTokenState = initial.value\n",
        "Initial password hashing: /usr/lib/pam.d/common\n",  # a path
        "$ openssl rand -hex 2\nfa4e\n",  # too short to be a secret
    ],
)
def test_messages_and_code_that_talk_about_generated_passwords_are_kept(text: str) -> None:
    assert redact(text) == text


# Password labels in other scripts.


@pytest.mark.parametrize(
    "text",
    ["パスワード：Tiger77NFEN\n", "密码: Tiger77NFEN\n", "пароль = Tiger77NFEN\n"],
)
def test_a_password_after_a_label_in_japanese_chinese_or_russian_is_removed(text: str) -> None:
    assert "Tiger77NFEN" not in redact(text)


def test_a_japanese_sentence_about_passwords_is_kept() -> None:
    text = "パスワードは管理者に確認してください。\n"
    assert redact(text) == text


# A secret a terminal wrapped at its width.


def test_the_rest_of_a_key_a_terminal_wrapped_is_removed() -> None:
    first = "sk-proj-ASb7JAU4ibozoqgX9saQKupd9dx735Y7YE3zvQheGzjXXwtZiq68-Aq5R"
    middle = "DkMEDzYt3e6of0jt0T3BlbkFJ-4E1dm0DM9EvFBdTBHAKjZMgzrGFfOdmQIz5ULq3nC3vNHBiwJIsiw4"
    text = f"OPENAI_API_KEY={first}\n{middle}\nVCclZpBbpRAMJyZgQWZ\nPORT=8080\n"
    redacted = redact(text)
    assert "VCclZpBbpRAMJyZgQWZ" not in redacted
    assert redacted.endswith("\nPORT=8080\n")


@pytest.mark.parametrize("after", ["DEBUG=false", "fi", "done", "EOF", "make_build"])
def test_the_line_after_a_wide_secret_is_kept_when_it_is_no_continuation(after: str) -> None:
    key = "fa4e" + "0b87a46e3a034ffc" * 4
    text = f"SECRET_KEY=django-insecure-{key}\n{after}\n"
    assert redact(text).endswith(f"\n{after}\n")
