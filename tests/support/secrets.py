"""A corpus of FAKE credentials, shaped exactly like real ones, for the whole test suite.

Every value here is generated deterministically from a fixed seed and carries an obvious
``FAKE``/``fake`` marker where the format allows it, so none of them is, or was ever, a working
credential. They still have the right prefixes, lengths and alphabets, which is what a redactor
(or a leak) cares about.

Use :data:`SECRET_SAMPLES` to feed realistic lines of code, config and logs through the product,
and :func:`all_secret_strings` to assert that none of those bytes appear in anything the product
writes::

    for secret in all_secret_strings():
        assert secret not in brain_file.read_text()
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import random
import string

import attrs

__all__ = ["SECRET_SAMPLES", "SecretSample", "all_secret_strings", "samples_of_kind"]

ALNUM = string.ascii_letters + string.digits
UPPER_ALNUM = string.ascii_uppercase + string.digits
BASE32 = string.ascii_uppercase + "234567"
BASE64 = ALNUM + "+/"
BASE64URL = ALNUM + "-_"
HEX = "0123456789abcdef"


@attrs.frozen
class SecretSample:
    """One fake credential and a realistic line (or block) of text that embeds it."""

    kind: str  # the kind the redactor is expected to report: [REDACTED:<kind>]
    secret: str  # the raw secret exactly as it appears in ``context``
    context: str

    def __attrs_post_init__(self) -> None:
        assert self.secret in self.context, f"{self.kind}: secret not embedded in its context"

    @property
    def fragments(self) -> list[str]:
        """The secret plus each substantial line of it (a key leaks line by line in a diff)."""
        lines = [
            line.strip()
            for chunk in self.secret.split("\n")
            for line in chunk.split("\\n")
            if len(line.strip()) >= 16 and "-----" not in line
        ]
        return [self.secret, *(line for line in lines if line != self.secret)]


def _rng(label: str) -> random.Random:
    # A stable per-sample seed (str hashing is randomized per process, sha256 is not).
    return random.Random(hashlib.sha256(f"comodor-fake-secrets/{label}".encode()).digest())


def _fake(label: str, length: int, alphabet: str = ALNUM, marker: str = "FAKE") -> str:
    """``length`` characters from ``alphabet``, starting with ``marker``, seeded by ``label``.

    Generated strings always mix upper case, lower case and digits when the alphabet has them,
    like real random tokens do.
    """
    rng = _rng(label)
    while True:
        body = marker + "".join(rng.choice(alphabet) for _ in range(length - len(marker)))
        wanted = [
            cls
            for cls in (string.ascii_uppercase, string.ascii_lowercase, string.digits)
            if any(c in alphabet for c in cls)
        ]
        if all(any(c in cls for c in body) for cls in wanted):
            return body


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _fake_jwt() -> str:
    header = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    claims = {"sub": "fake-user-0001", "name": "Fake Person", "iat": 1700000000, "fake": True}
    payload = _b64url(json.dumps(claims, separators=(",", ":")).encode())
    signing_input = f"{header}.{payload}".encode()
    signature = hmac.new(b"not-a-real-signing-key", signing_input, hashlib.sha256).digest()
    return f"{header}.{payload}.{_b64url(signature)}"


def _pem(label: str, der_prefix: bytes, size: int, *, line_break: str = "\n") -> str:
    """A PEM block whose body is ``der_prefix`` followed by seeded random bytes."""
    body = base64.b64encode(der_prefix + _rng(label).randbytes(size)).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return line_break.join([f"-----BEGIN {label}-----", *lines, f"-----END {label}-----"])


def _build() -> list[SecretSample]:
    samples: list[SecretSample] = []

    def add(kind: str, secret: str, context: str) -> None:
        samples.append(SecretSample(kind, secret, context))

    aws_id = "AKIA" + _fake("aws-id", 16, BASE32)
    add("aws-access-key", aws_id, f"export AWS_ACCESS_KEY_ID={aws_id}")
    aws_session_id = "ASIA" + _fake("aws-session-id", 16, BASE32)
    add("aws-access-key", aws_session_id, f"aws_access_key_id = {aws_session_id}")
    aws_secret = _fake("aws-secret", 40, BASE64, marker="fakeFAKE/")
    add("aws-secret-key", aws_secret, f"export AWS_SECRET_ACCESS_KEY={aws_secret}")
    aws_secret2 = _fake("aws-secret-2", 40, BASE64, marker="FAKEfake+")
    add("aws-secret-key", aws_secret2, f"aws_secret_access_key = {aws_secret2}")

    ghp = "ghp_" + _fake("github-classic", 36)
    add(
        "github-token",
        ghp,
        f"git remote add origin https://{ghp}@github.com/acme/widgets.git",
    )
    ghs = "ghs_" + _fake("github-app", 36)
    add(
        "github-token",
        ghs,
        f"remote: https://x-access-token:{ghs}@github.com/acme/widgets.git (fetch)",
    )
    github_pat = "github_pat_" + _fake("github-pat-a", 22) + "_" + _fake("github-pat-b", 59)
    add("github-token", github_pat, f"GITHUB_TOKEN={github_pat}")

    glpat = "glpat-" + _fake("gitlab", 20, ALNUM + "-_")
    add(
        "gitlab-token",
        glpat,
        f"git clone https://oauth2:{glpat}@gitlab.example.com/acme/widgets.git",
    )

    digits = string.digits
    xoxb = "-".join(
        [
            "xoxb",
            _fake("slack-a", 12, digits, "0"),
            _fake("slack-b", 13, digits, "0"),
            _fake("slack-c", 24),
        ]
    )
    add("slack-token", xoxb, f'SLACK_BOT_TOKEN="{xoxb}"')
    xoxp = "-".join(
        [
            "xoxp",
            _fake("slack-p-a", 12, digits, "0"),
            _fake("slack-p-b", 12, digits, "0"),
            _fake("slack-p-c", 13, digits, "0"),
            _fake("slack-p-d", 32, HEX, "fa4e"),
        ]
    )
    add("slack-token", xoxp, f"slack_client = WebClient(token='{xoxp}')")
    webhook = (
        "https://hooks.slack.com/services/"
        f"T{_fake('slack-team', 10, UPPER_ALNUM)}/B{_fake('slack-bot', 10, UPPER_ALNUM)}/"
        f"{_fake('slack-hook', 24)}"
    )
    add(
        "slack-webhook",
        webhook,
        f"curl -X POST -H 'Content-type: application/json' --data '{{\"text\":\"deployed\"}}' "
        f"{webhook}",
    )

    openai_legacy = "sk-" + _fake("openai-legacy", 48)
    add("openai-key", openai_legacy, f"OPENAI_API_KEY={openai_legacy}")
    openai_project = "sk-proj-" + _fake("openai-project", 156, ALNUM + "-_")
    add("openai-key", openai_project, f'client = OpenAI(api_key="{openai_project}")')

    anthropic = "sk-ant-api03-" + _fake("anthropic", 93, ALNUM + "-_") + "AA"
    add("anthropic-key", anthropic, f"export ANTHROPIC_API_KEY='{anthropic}'")

    google = "AIza" + _fake("google", 35, ALNUM + "-_")
    add(
        "google-api-key",
        google,
        f"GET https://maps.googleapis.com/maps/api/geocode/json?address=Main+St&key={google}",
    )

    stripe_live = "sk_live_" + _fake("stripe-live", 99)
    add("stripe-key", stripe_live, f'stripe.api_key = "{stripe_live}"')
    stripe_test = "sk_test_" + _fake("stripe-test", 24)
    add("stripe-key", stripe_test, f"STRIPE_SECRET_KEY: {stripe_test}")
    stripe_restricted = "rk_live_" + _fake("stripe-restricted", 24)
    add("stripe-key", stripe_restricted, f'{{"stripe": {{"key": "{stripe_restricted}"}}}}')

    npm = "npm_" + _fake("npm", 36)
    add("npm-token", npm, f"//registry.npmjs.org/:_authToken={npm}")

    sendgrid = f"SG.{_fake('sendgrid-a', 22, BASE64URL)}.{_fake('sendgrid-b', 43, BASE64URL)}"
    add("sendgrid-key", sendgrid, f'sg = SendGridAPIClient("{sendgrid}")')
    huggingface = "hf_" + _fake("huggingface", 34, marker="fake")
    add("huggingface-token", huggingface, f"huggingface-cli login --token {huggingface}")
    pypi = "pypi-AgEIcHlwaS5vcmc" + _fake("pypi", 160, BASE64URL)
    add("pypi-token", pypi, f"  password = {pypi}")
    digitalocean = "dop_v1_" + _fake("digitalocean", 64, HEX, marker="fa4e")
    add("digitalocean-token", digitalocean, f'DIGITALOCEAN_TOKEN="{digitalocean}" terraform apply')

    jwt = _fake_jwt()
    add(
        "jwt",
        jwt,
        f'curl -H "Authorization: Bearer {jwt}" https://api.example.com/v1/me',
    )
    opaque = _fake("bearer-opaque", 40, ALNUM + "._-")
    add("bearer", opaque, f"> Authorization: Bearer {opaque}")
    basic = base64.b64encode(b"fakeuser:" + _fake("basic", 20).encode()).decode()
    add(
        "basic-auth",
        basic,
        f'requests.get(url, headers={{"Authorization": "Basic {basic}"}})',
    )

    rsa = _pem("RSA PRIVATE KEY", bytes.fromhex("308204a40201000282010100"), 1180)
    add("private-key", rsa, f'TEST_KEY = """{rsa}"""\n')
    openssh = _pem("OPENSSH PRIVATE KEY", b"openssh-key-v1\x00", 380)
    add("private-key", openssh, f"$ cat ~/.ssh/id_ed25519\n{openssh}\n$ ")
    ec_json = _pem("EC PRIVATE KEY", bytes.fromhex("30770201010420"), 112, line_break="\\n")
    add("private-key", ec_json, f'{{"type": "service_account", "private_key": "{ec_json}\\n"}}')
    pkcs8 = _pem("PRIVATE KEY", bytes.fromhex("308204bd020100300d06092a864886f70d"), 1200)
    pkcs8_escaped = pkcs8.replace("\n", "\\n")  # as repr() or a log line would print it
    add("private-key", pkcs8_escaped, f"Loaded signing key from settings: '{pkcs8_escaped}'")
    pgp = _pem("PGP PRIVATE KEY BLOCK", b"\x95\x03\xc6\x04fake", 900)
    add("private-key", pgp, f"$ gpg --import <<'EOF'\n{pgp}\nEOF")

    db_password = _fake("db-password", 24, ALNUM + "!#%^*-_", marker="Fake-")
    add(
        "url-credentials",
        db_password,
        f"DATABASE_URL=postgres://app_user:{db_password}@db.internal:5432/app",
    )
    redis_password = _fake("redis-password", 32, marker="fake")
    add(
        "url-credentials",
        redis_password,
        f"cache = redis.from_url('rediss://:{redis_password}@cache.example.com:6380/0')",
    )

    env_password = _fake("env-password", 20, ALNUM + "@$!%", marker="FakePass1")
    add("password", env_password, f"DB_PASSWORD={env_password}")
    py_password = _fake("py-password", 16, marker="fakePw9")
    add("password", py_password, f'    password = "{py_password}"  # TODO: move to vault')
    yaml_password = _fake("yaml-password", 18, ALNUM + "-_.", marker="fake")
    add("password", yaml_password, f'  password: "{yaml_password}"')
    json_password = _fake("json-password", 22, marker="FAKE")
    add("password", json_password, f'{{"username": "admin", "password": "{json_password}"}}')
    client_secret = _fake("client-secret", 40, ALNUM + "~._-", marker="fake~")
    add("client-secret", client_secret, f"  client_secret: {client_secret}")
    generic_token = _fake("generic-token", 32, HEX, marker="fa4e")
    add("token", generic_token, f'const config = {{ token: "{generic_token}", retries: 3 }};')
    api_key = _fake("api-key", 32, marker="FAKE")
    add(
        "api-key",
        api_key,
        f"curl -H 'X-Api-Key: {api_key}' https://api.example.com/v2/items",
    )
    secret_key = _fake("django-secret", 50, ALNUM + "!@#%^&*(-_=+)", marker="fake-")
    add("secret-key", secret_key, f"SECRET_KEY = '{secret_key}'")
    cli_password = _fake("cli-password", 20, marker="Fake")
    add("password", cli_password, f"docker login --username ci --password {cli_password}")
    return samples


SECRET_SAMPLES: list[SecretSample] = _build()


def samples_of_kind(kind: str) -> list[SecretSample]:
    """The samples whose expected kind is ``kind``."""
    return [sample for sample in SECRET_SAMPLES if sample.kind == kind]


def all_secret_strings() -> list[str]:
    """Every raw secret value in the corpus, plus each substantial line of multi-line ones.

    None of these strings may appear in any file the product writes.
    """
    seen: dict[str, None] = {}
    for sample in SECRET_SAMPLES:
        for fragment in sample.fragments:
            seen.setdefault(fragment)
    return list(seen)
