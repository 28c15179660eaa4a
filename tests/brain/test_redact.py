"""The redactor's promise: no secret reaches anything Comodor stores, ordinary code survives."""

from __future__ import annotations

import itertools
import random
import re
import sysconfig
import time
import uuid
from pathlib import Path

import attrs
import pytest
from comodor_lsp.brain.redaction.redactor import SecretMatch, contains_secret, find_secrets, redact
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.support.secrets import (
    SECRET_SAMPLES,
    SEED,
    SecretSample,
    all_secret_strings,
    build_corpus,
)

MARKER = re.compile(r"\[REDACTED:([a-z0-9-]+)\]")


def _sample_id(sample: SecretSample) -> str:
    return sample.name


# --- the corpus -------------------------------------------------------------------------------


def test_corpus_covers_at_least_sixty_kinds_of_credential() -> None:
    names = [sample.name for sample in SECRET_SAMPLES]
    assert len(set(names)) == len(names) >= 60
    assert len({sample.kind for sample in SECRET_SAMPLES}) >= 40


def test_corpus_is_drawn_afresh_per_seed_and_replays_from_its_seed() -> None:
    assert build_corpus(SEED) == SECRET_SAMPLES
    other = build_corpus(SEED + 1)
    assert [s.name for s in other] == [s.name for s in SECRET_SAMPLES]
    assert sum(a.secret != b.secret for a, b in zip(other, SECRET_SAMPLES, strict=True)) > 100


def test_all_secret_strings_lists_every_raw_secret() -> None:
    strings = all_secret_strings()
    assert all(sample.secret in strings for sample in SECRET_SAMPLES)
    # Multi-line keys are listed line by line too: a diff leaks them one line at a time.
    assert len(strings) > len(SECRET_SAMPLES)


@pytest.mark.parametrize("sample", SECRET_SAMPLES, ids=_sample_id)
def test_no_corpus_secret_survives_redaction_of_its_context(sample: SecretSample) -> None:
    redacted = redact(sample.context)
    for fragment in sample.fragments:
        assert fragment not in redacted


@pytest.mark.parametrize("sample", SECRET_SAMPLES, ids=_sample_id)
def test_no_eight_characters_of_a_corpus_secret_survive(sample: SecretSample) -> None:
    redacted = redact(sample.context)
    assert [piece for piece in sample.shingles if piece in redacted] == [], SEED


@pytest.mark.parametrize("sample", SECRET_SAMPLES, ids=_sample_id)
def test_redaction_says_what_kind_of_secret_was_removed(sample: SecretSample) -> None:
    assert f"[REDACTED:{sample.kind}]" in redact(sample.context)
    assert sample.kind in {match.kind for match in find_secrets(sample.context)}


@pytest.mark.parametrize("sample", SECRET_SAMPLES, ids=_sample_id)
def test_text_around_a_secret_is_kept(sample: SecretSample) -> None:
    # Everything before the whitespace-separated chunk holding the secret, and everything after
    # it, comes through unchanged (the chunk itself may lose a user name, quotes, ...).
    before, _, after = sample.context.partition(sample.secret)
    kept_before = before[: max(before.rfind(" "), before.rfind("\n")) + 1]
    first_break = min((i for i in (after.find(" "), after.find("\n")) if i >= 0), default=None)
    kept_after = "" if first_break is None else after[first_break:]
    redacted = redact(sample.context)
    assert redacted.startswith(kept_before)
    assert redacted.endswith(kept_after)


def test_all_corpus_contexts_in_one_document_are_all_removed() -> None:
    document = "\n".join(sample.context for sample in SECRET_SAMPLES)
    redacted = redact(document)
    for secret in all_secret_strings():
        assert secret not in redacted
    # One marker per sample at least (a cookie header or a Secret manifest may hold several).
    assert len(MARKER.findall(redacted)) >= len(SECRET_SAMPLES)


# --- what the user sees -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('password = "hunter2"', "password = [REDACTED:password]"),
        ("db_password = 'hunter2'", "db_password = [REDACTED:password]"),
        ('const apiKey = "k3y-abc123";', "const apiKey = [REDACTED:api-key];"),
        ("  secret: s3cr3t-value", "  secret: [REDACTED:secret]"),
        ("API_KEY=abcdef123456", "API_KEY=[REDACTED:api-key]"),
        ("export PASSWORD=correcthorse", "export PASSWORD=[REDACTED:password]"),
        ('{"token": "abc123xyz", "retries": 3}', '{"token": [REDACTED:token], "retries": 3}'),
        ('{"client_secret":"Zx9-q"}', '{"client_secret":[REDACTED:client-secret]}'),
        ("access_key: AbC123dEf", "access_key: [REDACTED:access-key]"),
        ("private_key = 'MC4CAQAwBQYDK2VwBCIEI'", "private_key = [REDACTED:private-key]"),
        ('os.environ["API_TOKEN"] = "abc123"', 'os.environ["API_TOKEN"] = [REDACTED:token]'),
        ('password: str = "hunter2"', "password: str = [REDACTED:password]"),
        ("$password = 'hunter2';", "$password = [REDACTED:password];"),
        ("'passwd' => 'hunter2',", "'passwd' => [REDACTED:password],"),
        ('pwd := "hunter2"', "pwd := [REDACTED:password]"),
        ("mysql --password hunter2x", "mysql --password [REDACTED:password]"),
        (
            "Server=db;User Id=sa;Password=Hunter2!;",
            "Server=db;User Id=sa;Password=[REDACTED:password];",
        ),
        (
            "https://api.example.com/v1?access_token=a1b2c3d4e5",
            "https://api.example.com/v1?access_token=[REDACTED:token]",
        ),
        ("Your password: hunter2", "Your password: [REDACTED:password]"),
        ("DB_PASS=correcthorse", "DB_PASS=[REDACTED:password]"),
        ('{"pass": "Tr0ub4dor&3"}', '{"pass": [REDACTED:password]}'),
        ("  password: changeme", "  password: [REDACTED:password]"),
        ("auth_token: 8f2kQz91LmPq", "auth_token: [REDACTED:token]"),
        ("AUTH=s3cr3t-Value", "AUTH=[REDACTED:auth]"),
        ('credentials = "Zm9vOmJhcjEyMw"', "credentials = [REDACTED:credentials]"),
        ("session_id = 'a8f5f167f44f4964e6c998dee827110c'", "session_id = [REDACTED:session]"),
        ("PGPASSWORD=postgres psql -h db", "PGPASSWORD=[REDACTED:password] psql -h db"),
        (
            "docker run -e MYSQL_ROOT_PASSWORD=example mysql",
            "docker run -e MYSQL_ROOT_PASSWORD=[REDACTED:password] mysql",
        ),
        ("  - POSTGRES_PASSWORD=example", "  - POSTGRES_PASSWORD=[REDACTED:password]"),
        ("mysql -uroot -pHunter2x app", "mysql -uroot -p[REDACTED:password] app"),
        ("mysqldump --password=Hunter2x app", "mysqldump --password=[REDACTED:password] app"),
        ("wget --http-password Hunter2x url", "wget --http-password [REDACTED:password] url"),
        ("sshpass -p 'Hunter2x' ssh host", "sshpass -p '[REDACTED:password]' ssh host"),
        ("redis-cli -h cache -a Hunter2x ping", "redis-cli -h cache -a [REDACTED:password] ping"),
        (
            "machine example.com login me password Hunter2x",
            "machine example.com login me password [REDACTED:password]",
        ),
        (
            'Authorization: Digest username="u", response="6629fae49393a05397450978507c4ef1"',
            "Authorization: Digest [REDACTED:authorization]",
        ),
        ("Authorization: SSWS 00QCjAl4MlV-WPXM", "Authorization: SSWS [REDACTED:authorization]"),
        ("authorization: token 9f8e7d6c5b4a3928", "authorization: token [REDACTED:authorization]"),
        (
            "Cookie: sessionid=k2j3h4g5f6d7s8a9; theme=dark",
            "Cookie: sessionid=[REDACTED:cookie]; theme=dark",
        ),
        (
            "Set-Cookie: sid=s%3AabcDEF123456.xyz; Path=/; HttpOnly",
            "Set-Cookie: sid=[REDACTED:cookie]; Path=/; HttpOnly",
        ),
        (
            "WEB3_PRIVATE_KEY=0x"
            + "4c0883a69102937d6231471b5dbb6204fe512961708279f8c5a6e0a9f1d2c3b4",
            "WEB3_PRIVATE_KEY=[REDACTED:wallet-key]",
        ),
        (
            'MNEMONIC="abandon ability able about above absent absorb abstract absurd abuse'
            ' access accident"',
            "MNEMONIC=[REDACTED:seed-phrase]",
        ),
        (
            "url?sv=2022&sig=Xk9%2Bq7LmT3vB2nR8wZ1yA4cD6eF0gH5jK%3D",
            "url?sv=2022&sig=[REDACTED:url-signature]",
        ),
    ],
)
def test_assignment_keeps_the_name_and_operator_and_hides_the_value(
    text: str, expected: str
) -> None:
    assert redact(text) == expected


def test_github_token_in_git_remote_url_never_survives() -> None:
    token = "ghp_" + "FAKE" + "0aB1cD2eF3gH4iJ5kL6mN7oP8qR9sT0u"
    for url in (
        f"https://{token}@github.com/acme/app.git",
        f"https://x-access-token:{token}@github.com/acme/app.git",
        f"https://{token}:x-oauth-basic@github.com/acme/app.git",
    ):
        redacted = redact(f"origin\t{url} (push)")
        assert token not in redacted
        assert redacted.endswith("@github.com/acme/app.git (push)")


def test_url_credentials_keep_the_scheme_and_host() -> None:
    assert redact("https://user:pass@github.com/x") == (
        "https://[REDACTED:url-credentials]@github.com/x"
    )
    assert redact("mongodb+srv://admin:S3cr3t@cluster0.example.net/db?retryWrites=true") == (
        "mongodb+srv://[REDACTED:url-credentials]@cluster0.example.net/db?retryWrites=true"
    )


def test_url_password_containing_at_sign_is_removed_entirely() -> None:
    redacted = redact("postgres://app:p@ss#word1@db.internal:5432/app")
    assert redacted == "postgres://[REDACTED:url-credentials]@db.internal:5432/app"


def test_authorization_header_keeps_its_name_and_scheme() -> None:
    assert redact("Authorization: Bearer abcdef0123456789abcdef") == (
        "Authorization: Bearer [REDACTED:bearer]"
    )
    assert redact("authorization: basic dXNlcjpodW50ZXIy") == (
        "authorization: basic [REDACTED:basic-auth]"
    )
    assert redact("Proxy-Authorization: Basic dXNlcjpodW50ZXIy") == (
        "Proxy-Authorization: Basic [REDACTED:basic-auth]"
    )


def test_bearer_token_without_a_header_name_is_removed() -> None:
    assert redact("sent Bearer 9f8e7d6c5b4a39281706f5e4 to the proxy") == (
        "sent Bearer [REDACTED:bearer] to the proxy"
    )


def test_curl_user_password_is_removed() -> None:
    assert redact("curl -u deploy:Hunter2x https://ci.example.com/api") == (
        "curl -u [REDACTED:basic-auth] https://ci.example.com/api"
    )


def test_private_key_block_is_removed_whole_including_its_end_line() -> None:
    sample = next(s for s in SECRET_SAMPLES if "RSA PRIVATE KEY" in s.secret)
    redacted = redact(f"before\n{sample.secret}\nafter")
    assert redacted == "before\n[REDACTED:private-key]\nafter"


def test_private_key_pasted_in_a_diff_is_removed() -> None:
    sample = next(s for s in SECRET_SAMPLES if "OPENSSH PRIVATE KEY" in s.secret)
    diff = "@@ -0,0 +1,9 @@\n" + "\n".join(f"+{line}" for line in sample.secret.split("\n"))
    redacted = redact(diff + "\n context line")
    for fragment in sample.fragments[1:]:
        assert fragment not in redacted
    assert redacted.endswith("\n context line")


def test_truncated_private_key_is_still_removed() -> None:
    sample = next(s for s in SECRET_SAMPLES if "RSA PRIVATE KEY" in s.secret)
    truncated = "\n".join(sample.secret.split("\n")[:6])
    redacted = redact(f'log: "{truncated}')
    for fragment in sample.fragments[1:6]:
        assert fragment not in redacted
    assert "[REDACTED:private-key]" in redacted


def test_two_secrets_on_one_line_are_both_removed() -> None:
    aws_id = "AKIAFAKE2345ABCDEFGH"
    line = f"aws_access_key_id={aws_id} password=Hunter2x user=bob"
    assert redact(line) == (
        "aws_access_key_id=[REDACTED:aws-access-key] password=[REDACTED:password] user=bob"
    )


def test_secret_inside_a_string_assigned_to_a_secret_name_is_named_by_its_provider() -> None:
    redacted = redact('token = "xoxb-1234567890-0987654321-FAKEfakeFAKEfake12345678"')
    assert redacted == "token = [REDACTED:slack-token]"


def test_secret_after_text_whose_lowercase_is_longer_is_removed_in_the_right_place() -> None:
    # "İ".lower() is two characters; positions must not drift because of it.
    text = 'İstanbul office: password = "hunter2", Straße 1'
    assert redact(text) == "İstanbul office: password = [REDACTED:password], Straße 1"


def test_env_file_with_windows_line_endings_keeps_its_line_endings() -> None:
    text = "DB_USER=app\r\nDB_PASSWORD=correcthorse\r\nDB_PORT=5432\r\n"
    assert redact(text) == "DB_USER=app\r\nDB_PASSWORD=[REDACTED:password]\r\nDB_PORT=5432\r\n"


def test_find_secrets_reports_kind_and_position() -> None:
    text = "key=AKIAFAKE2345ABCDEFGH;"
    assert find_secrets(text) == [SecretMatch("aws-access-key", 4, 24)]
    match = find_secrets(text)[0]
    assert text[match.start : match.end] == "AKIAFAKE2345ABCDEFGH"
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        match.kind = "other"  # type: ignore[misc]


def test_find_secrets_returns_matches_in_order_without_overlaps() -> None:
    text = "\n".join(sample.context for sample in SECRET_SAMPLES)
    matches = find_secrets(text)
    assert all(a.end <= b.start for a, b in itertools.pairwise(matches))


def test_contains_secret_answers_whether_redaction_would_change_the_text() -> None:
    assert contains_secret("export GITHUB_TOKEN=ghp_FAKEaaaaBBBBccccDDDD1111222233334444")
    assert not contains_secret("export GITHUB_TOKEN=$(gh auth token)")
    assert not contains_secret("")


# --- ordinary text is left alone --------------------------------------------------------------

ORDINARY_TEXT = [
    'password = os.environ["PASSWORD"]',
    "password = os.getenv('DB_PASSWORD')",
    "token = get_token()",
    "token = self._token",
    "api_key = settings.API_KEY",
    "password: str",
    "password: str = ''",
    "token: Optional[str] = None",
    "secret: SecretStr | None = None",
    "def set_password(self, password):",
    "user.set_password(password=password)",
    "connect(host, password=password, timeout=5)",
    "if password == confirm_password:",
    "password = None",
    'password = ""',
    "PASSWORD_MIN_LENGTH = 12",
    "max_tokens = 4096",
    "max_tokens: 4096",
    'token_type = "bearer"',
    "tokenizer = AutoTokenizer.from_pretrained(name)",
    'print("Password:", masked)',
    'print("Enter password: ", "(hidden)")',
    'url = "https://example.com/?token=" + token',
    'message = f"token: {token_id}"',
    'headers["Authorization"] = f"Bearer {token}"',
    'curl -H "Authorization: Bearer $GITHUB_TOKEN" https://api.github.com/user',
    "Authorization: Bearer ${TOKEN}",
    "password: ${{ secrets.DB_PASSWORD }}",
    "DB_PASSWORD=${DB_PASSWORD}",
    "password: '{{ vault_db_password }}'",
    'password = "<your-password-here>"',
    "password = '********'",
    "key: value",
    "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db\n      key: password",
    "secret_name: db-credentials",
    "Keep the secret safe; never commit a secret to git.",
    "The secret: required. The token: optional!",
    "Rotate the password regularly and store tokens in the keychain.",
    "PWD=/home/dev/project",
    "commit 3f2c1a9e8b7d6c5f4e3d2c1b0a9f8e7d6c5b4a39",
    "Merge: 9fceb02 d31f4e5",
    "request_id=7c9e6679-7425-40de-944b-e07fc1f90ae7",
    "uuid = '123e4567-e89b-12d3-a456-426614174000'",
    "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    '<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk'
    'YPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==">',
    "https://github.com/acme/widgets.git",
    "git@github.com:acme/widgets.git",
    "ssh://git@github.com/acme/widgets.git",
    "http://localhost:8080/path",
    "pip install scikit-learn  # sk-learn-compatible-estimator-wrappers",
    "task-runner-for-disk-cleanup-and-desk-booking",
    "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
    "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----",
    "pk_live_51FAKEpublishableKeyIsMeantToBePublic0000",
    "See https://docs.example.com/auth#bearer-tokens for how to get a token.",
    "AKIA is the prefix of AWS access key ids.",
    "x = a if password else b",
    "for token in tokens:",
    "passwords = load_passwords()",
    '"input_token": "nextToken",',
    '"output_token": "DistributionList.NextMarker",',
    "SECRET_KEY = 'AWS_SECRET_ACCESS_KEY'",
    '"password": "string?",',
    "def sign(private_key: PKCS7PrivateKeyTypes, data: bytes) -> bytes:",
    "private_key: Ed25519PrivateKey | Ed448PrivateKey",
    "X25519PrivateKey = rust_openssl.hpke.X25519PrivateKey",
    '"ARN": "arn:aws:secretsmanager:us-west-2:123456789012:secret:MyTestSecret-a1b2c3",',
    '"AWS::IAM::AccessKey": "62d91b17309e76c8",',
    '"lastModifiedSecret": 1556312220.133',
    '"encryptionKey": "arn:aws:kms:us-west-2:123456789012:alias/aws/s3",',
    "Token: '#d8dee9',",
    "file has '-----BEGIN RSA PRIVATE KEY-----' and '-----END RSA PRIVATE KEY-----' markers",
    "Colon-separated username:password string for 'authorization: basic ...'",
    "password_hash = bcrypt.hashpw(password, salt)",
    # Names that merely end like a secret word, and values that are code or words.
    "bypass = True",
    "compass: north",
    "author = 'Guido van Rossum'",
    "monkey = Monkey()",
    "SORT_KEY = 'name'",
    "CACHE_KEY = 'user:{id}'",
    'key = "value"',
    "session = requests.Session()",
    "session: aiohttp.ClientSession",
    "self.token = nextchar",
    "auth = ('user', password)",
    "SERVER_AUTH = '1.3.6.1.5.5.7.3.1'",
    "user_pass = '%s:%s' % (user, password)",
    "credentials = '{0}:{1}'.format(user, password)",
    'auth = "Basic " + b64encode(pair)',
    "'pass': 'The \"pass\" statement does nothing'",
    "Set-Cookie: fig=newton; Path=/",
    "Authorization: required for every endpoint",
    "--password-file /run/secrets/db",
    "mysql -u root -p",
    # Hashes, identifiers and encodings that are not secrets.
    '"integrity": "sha512-Zq3rWlVvI0ahY7RCy2MmRWV8Ii2UrkcCS6g3qTMOgiVn4XnwAuG6jjcLhYgE8EOcN+4Y'
    'mm8mRJvmsFQFjaXNzw==",',
    "h1:Xk9fQ2LmT3vB2nR8wZ1yA4cD6eF0gH5jK7pS9uV1xY=",
    'files = [{file = "x.whl", hash = "sha256:4f3c2e1d0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f'
    '9e8d7c6b5a4f3e"}]',
    'checksum = "9c5a1b3e7f2d4c6a8b0e1f3d5c7a9b2e4f6d8c0a1b3e5f7d9c2a4b6e8f0d1c3a"',
    "image: nginx@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31",
    "X-Request-Id: 6f1c2a7e-9b3d-4e5f-8a1b-2c3d4e5f6a7b",
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 (HEAD -> main, origin/main)",
    "Change-Id: I8473b95934b5732ac55d26311a706c9c2bde9940",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl me@host",
    "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7ZsjPU3bDo8IVd1pBLrFAx9t me@host",
    "greeting = 'SGVsbG8sIFdvcmxkISBIb3cgYXJlIHlvdT8='",
    "const isFirstByteOf4ByteChar = (b) => (b & 0xf8) === 0xf0;",
    "function uint8ArrayToBase64Url(bytes) { return encode(bytes); }",
    "class N12asn1_type_st4DOLLAR_11E(Union):",
    "ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'",
    "Traceback: /usr/lib/python3.11/site-packages/urllib3/connectionpool.py line 703",
    '{"$ref": "#/definitions/allOf/2/items/0/anyOf/1"}',
    "-----BEGIN CERTIFICATE-----\n"
    "MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n"
    "RTESMBAGA1UEChMJQmFsdGltb3JlMRMwEQYDVQQLEwpDeWJlclRydXN0MSIwIAYD\n"
    "-----END CERTIFICATE-----",
    "Write down the secret phrase and keep it somewhere safe, then confirm it on the next page.",
    "tx_hash = '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060'",
]


@pytest.mark.parametrize("text", ORDINARY_TEXT)
def test_ordinary_code_and_prose_are_left_untouched(text: str) -> None:
    assert find_secrets(text) == []
    assert redact(text) == text


# --- idempotence and robustness -------------------------------------------------------------

_pieces = st.one_of(
    st.text(max_size=40),
    st.sampled_from([sample.context for sample in SECRET_SAMPLES]),
    st.sampled_from(all_secret_strings()),
    st.sampled_from(ORDINARY_TEXT),
    st.sampled_from(["password", "token", "=", ": ", '"', "'", "://", "@", "[REDACTED:jwt]"]),
)
_separators = st.sampled_from(["", " ", "\n", "=", ":", '"', "'", "@", "/", "-"])


@st.composite
def _texts_with_secrets(draw: st.DrawFn) -> str:
    pieces = draw(st.lists(_pieces, max_size=8))
    return "".join(piece + draw(_separators) for piece in pieces)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_texts_with_secrets())
@example("password = [REDACTED:password]")
@example("https://[REDACTED:url-credentials]@github.com/x")
def test_redacting_twice_changes_nothing_more(text: str) -> None:
    once = redact(text)
    assert redact(once) == once
    assert find_secrets(once) == []


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.one_of(
            st.sampled_from(SECRET_SAMPLES),
            st.text(st.characters(blacklist_characters="\n\r"), max_size=60),
        ),
        max_size=6,
    )
)
def test_corpus_secrets_never_survive_among_arbitrary_lines(
    lines: list[SecretSample | str],
) -> None:
    text = "\n".join(line.context if isinstance(line, SecretSample) else line for line in lines)
    redacted = redact(text)
    for line in lines:
        if isinstance(line, SecretSample):
            for fragment in line.fragments:
                assert fragment not in redacted


@settings(max_examples=200, deadline=None)
@given(_texts_with_secrets())
def test_redact_only_replaces_what_find_secrets_reports(text: str) -> None:
    matches = find_secrets(text)
    rebuilt, position = [], 0
    for match in matches:
        rebuilt += [text[position : match.start], f"[REDACTED:{match.kind}]"]
        position = match.end
    assert "".join([*rebuilt, text[position:]]) == redact(text)


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_redact_never_fails_and_keeps_everything_it_does_not_replace(text: str) -> None:
    redacted = redact(text)
    outside = MARKER.split(redacted)[::2]
    # Whatever is not a marker comes from the original text, in order.
    position = 0
    for part in outside:
        found = text.find(part, position)
        assert found >= 0
        position = found + len(part)


MB = 1024 * 1024


def _two_megabytes(chunk: str) -> str:
    return (chunk * (2 * MB // len(chunk) + 1))[: 2 * MB]


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(
            _two_megabytes("\n".join(s.context for s in SECRET_SAMPLES) + "\nx = 1\n" * 200),
            id="code-and-config-with-secrets",
        ),
        pytest.param("a" * 2 * MB, id="one-long-word"),
        pytest.param('password = "' + "\\x" * MB, id="unterminated-string"),
        pytest.param(_two_megabytes("-----BEGIN RSA PRIVATE KEY-----\nMIIE"), id="pem-no-end"),
        pytest.param("https://" + "u" * 2 * MB, id="url-without-host"),
        pytest.param(_two_megabytes("eyJhbGciOiJIUzI1NiJ9."), id="jwt-prefixes"),
        pytest.param(_two_megabytes("ghp_sk-AIza"), id="token-prefixes"),
        pytest.param(_two_megabytes(": = :// @ -----"), id="punctuation"),
    ],
)
def test_two_megabytes_are_redacted_without_runaway_backtracking(text: str) -> None:
    # A guard against catastrophic backtracking, not a benchmark (bench/redaction.py measures
    # MB/s): quadratic behaviour on 2 MB (4 * 10^12 steps) would still take hours, linear takes
    # about a second even on a busy CI machine (10 MB proved no more and took a minute), so
    # the bound is loose.
    started = time.perf_counter()
    redact(text)
    assert time.perf_counter() - started < 30


@pytest.mark.slow  # a stress test (1.5 MB of secrets, ~8 s of CPU): the slow tier's
def test_a_megabyte_line_full_of_secrets_is_redacted_in_linear_time() -> None:
    # 75,000 real secrets on one line: each costs a little Python, so this is kept to 1 MB,
    # which is still plenty to expose a per-match scan to the end of the line (quadratic).
    # Linear means twice the line costs about twice the time (a quadratic scan: four
    # times). CPU time, not wall time, so a busy machine cannot fail it.
    def cpu_seconds(repeats: int) -> float:
        line = "PASSWORD=abc1 " * repeats
        started = time.process_time()
        redacted = redact(line)
        assert "abc1" not in redacted
        return time.process_time() - started

    half, whole = cpu_seconds(37_500), cpu_seconds(75_000)
    assert whole < 3 * half + 0.2, (half, whole)


@pytest.mark.parametrize("function", [redact, find_secrets, contains_secret])
@pytest.mark.parametrize("value", [b"password=hunter2", None, 42, ["token=abc"]])
def test_non_text_input_is_rejected_with_a_type_error(function: object, value: object) -> None:
    assert callable(function)
    with pytest.raises(TypeError, match="'text'"):
        function(value)


# --- false positives on real source ---------------------------------------------------------

STDLIB = Path(sysconfig.get_paths()["stdlib"])
# A fixed, varied sample of the standard library: parsers, network code, crypto-adjacent
# modules, data tables and docs-heavy modules (bench/redaction.py scans far more).
FALSE_POSITIVE_FILES = (
    "base64.py",
    "secrets.py",
    "hashlib.py",
    "hmac.py",
    "uuid.py",
    "ssl.py",
    "smtplib.py",
    "ftplib.py",
    "netrc.py",
    "getpass.py",
    "shlex.py",
    "tokenize.py",
    "http/cookies.py",
    "http/client.py",
    "urllib/request.py",
    "urllib/parse.py",
    "email/_header_value_parser.py",
)


def test_real_source_gets_at_most_one_redaction_per_thousand_lines() -> None:
    files = [STDLIB / name for name in FALSE_POSITIVE_FILES if (STDLIB / name).exists()]
    assert len(files) >= 12, STDLIB
    lines = 0
    found: list[tuple[str, str]] = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        lines += text.count("\n")
        found += [(path.name, text[m.start : m.end]) for m in find_secrets(text)]
    assert lines >= 3000
    assert len(found) <= lines / 1000, found


def test_commit_shas_and_uuids_are_never_secrets() -> None:
    rng = random.Random(SEED)
    lines = []
    for _ in range(500):
        sha = f"{rng.getrandbits(160):040x}"
        lines += [
            f"commit {sha}",
            f"Merge: {sha[:7]} {sha[-7:]}",
            f"    Reviewed-on: https://review.example.com/c/{sha}",
            f"request_id={uuid.UUID(int=rng.getrandbits(128), version=4)}",
            f'"id": "{uuid.UUID(int=rng.getrandbits(128), version=4)}",',
            f"sha256:{rng.getrandbits(256):064x}",
        ]
    text = "\n".join(lines)
    assert find_secrets(text) == []


def test_a_bearer_token_split_by_a_shell_backslash_newline_is_removed_whole() -> None:
    text = (
        "curl -fsS https://api.acme.dev/v1/reports \\\n"
        '  -H "Authorization: Bearer VXZkMKfVlOvv17UOuKkN\\\n'
        'UGquJibX3bskuFgtifMb" \\\n'
        "  -o report.json\n"
    )
    redacted = redact(text)
    assert "VXZkMKfVlOvv17UO" not in redacted
    assert "UGquJibX3bskuFgt" not in redacted
    assert "  -o report.json" in redacted


def test_the_next_argument_after_a_bearer_and_a_backslash_newline_is_left_alone() -> None:
    text = 'curl -H "Authorization: Bearer $ACME_TOKEN" \\\n  -o report.json\n'
    assert redact(text) == text
    text = 'curl -H "Authorization: Bearer VXZkMKfVlOvv17UOuKkN" \\\n  -o report.json\n'
    assert "  -o report.json" in redact(text)
