"""Secrets found by where they stand, and the engine's shortcuts finding exactly what it did.

The unlisted corpus (``tests/support/unlisted_secrets.py``) holds credential kinds the
catalogue was not written against; these tests keep every one of them out of stored text, keep
ordinary code standing in the same places untouched, and check that searching only where a
rule can match (literal prefixes, character runs) finds the same spans as a plain regex scan.
"""

from __future__ import annotations

import bisect
import re
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pytest
from comodor_lsp.brain.redaction import RULES
from comodor_lsp.brain.redaction.base import MARKER_RE, Rule, blocked
from comodor_lsp.brain.redaction.matching import SHORTCUTS_FROM, _Finder, _lowercase, candidates
from comodor_lsp.brain.redaction.redactor import redact

from tests.support.fourth_batch_secrets import build_fourth_batch
from tests.support.secrets import build_corpus
from tests.support.unlisted_secrets import FRESH, HELD_OUT, TUNE, build_unlisted
from tests.support.unseen_secrets import build_unseen


def test_the_unlisted_corpus_is_split_once_into_disjoint_parts_of_sixty_kinds_or_more() -> None:
    names = {sample.name for sample in build_unlisted(0)}
    assert len(names) >= 60
    assert names == TUNE | HELD_OUT | FRESH
    assert not (TUNE & HELD_OUT or TUNE & FRESH or HELD_OUT & FRESH)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_credentials_of_kinds_nobody_listed_are_not_stored(seed: int) -> None:
    stored = []
    for sample in build_unlisted(seed):
        redacted = redact(sample.context)
        if any(piece in redacted for piece in sample.shingles):
            stored.append((sample.name, redacted))
    assert stored == []


@pytest.mark.parametrize(
    "text",
    [
        "handler = fn.bind(null, 'error')",
        "sock.connect((host, 8080))",
        "conn = psycopg.connect(host, port, user, password, dbname)",
        "self.login(user, password)",
        'ftp.login("anonymous", "")',
        "longopt_pat = r'[a-zA-Z](?:[a-zA-Z0-9-]*)'",
        "password = settings.DB_PASSWORD",
        "key_cls = win32api.RegEnumKey",
        "<password>${env.NEXUS_PASSWORD}</password>",
        'WWW-Authenticate: Basic realm="staff"',
        "send address bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq to the exchange",
        "The machine learning team will login and reset the password policy.",
        'digest = hashlib.sha256(b"x").hexdigest()\n'
        'assertEqual(digest, "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881")',
        "uuid.UUID('12345678-1234-4678-9234-567812345678')",
        'requirepass ""\n',
        "db:5432:app:user:${PGPASSWORD}",
        "echo $1$2$3 is not a hash",
        "alphabet = CharSet('0123456789abcdefghijklmnopqrstuvwxyz')",
    ],
)
def test_code_standing_where_credentials_stand_is_left_untouched(text: str) -> None:
    assert redact(text) == text


def _reference_candidates(text: str, rules: tuple[Rule, ...]) -> list[tuple[int, int, int, str]]:
    """What :func:`candidates` finds, by a plain ``finditer`` of every rule over the text."""
    lowered = _lowercase(text)
    markers = [m.span() for m in MARKER_RE.finditer(text)]
    starts = [start for start, _ in markers]
    found: list[tuple[int, int, int, str]] = []
    for rule in rules:
        subject = lowered if rule.on_lowercase else text
        for m in rule.pattern.finditer(subject):
            if blocked(subject, m.start(), rule.not_after):
                continue
            if rule.skip_covered:
                # Coverage depends only on earlier rules; the real engine checks it too.
                spans_so_far = sorted((s, e) for s, e, _, _ in found)
                if any(s <= m.start() and m.end() <= e for s, e in spans_so_far):
                    continue
            kind = rule.kind if rule.classify is None else rule.classify(m, text)
            if kind is None:
                continue
            spans = [m.span("secret")] if rule.spans is None else rule.spans(m, text)
            for start, stop in spans:
                end = stop
                while end > start and text[end - 1].isspace():
                    end -= 1
                if end <= start:
                    continue
                i = bisect.bisect_left(starts, end)
                if i > 0 and markers[i - 1][1] > start:
                    continue
                found.append((start, end, rule.priority, kind))
    return found


def _texts() -> list[str]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    code = "".join(path.read_text(encoding="utf-8") for path in sorted(stdlib.glob("*.py"))[:6])
    secrets = "\n".join(sample.context for sample in build_corpus(5))
    unlisted = "\n".join(sample.context for sample in build_unlisted(5))
    return [
        code[:60_000],
        secrets,
        unlisted,
        f"{code[:5000]}\n{secrets}\n{code[5000:9000]}\nnaïve ünïcode → {unlisted}",
        "password = 'x'" * 50 + "token" * 300 + "ghp_" * 100,
    ]


@pytest.mark.parametrize("index", range(5))
def test_searching_only_where_rules_can_match_finds_what_a_full_scan_finds(index: int) -> None:
    text = _texts()[index]
    assert sorted(candidates(text, RULES)) == sorted(_reference_candidates(text, RULES))


def test_the_redactor_imports_without_numpy_which_only_long_texts_need() -> None:
    """A server starts without numpy: the engine's arrays are made on a long text's first use."""
    code = "import sys, comodor_lsp.brain.redaction.redactor; print('numpy' in sys.modules)"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "False"


def test_each_rule_tried_only_where_it_can_start_matches_exactly_what_its_regex_does() -> None:
    """The engine's shortcuts (literal prefixes from the pattern, the vectorised prefix index,
    character runs) keep ``_Finder.matches`` equal to ``rule.pattern.finditer``, match for
    match, before any classifier has a say -- over every corpus, ordinary code, a mix, and
    hostile texts: prefixes so frequent the index leaves their length out, a run longer than
    the engine's blocks. A rule with a ``run_check`` skips runs that fail it: its matches are
    then some of the regex's, and the same ones its classifier keeps."""
    batches = (build_unseen(5), build_fourth_batch(5))
    texts = [*_texts(), *("\n".join(sample.context for sample in batch) for batch in batches)]
    texts += ["ghp_sk-AIza 0x1 " * 8000, "a" * 150_000 + " b" + "c" * 30]
    for text in texts:
        assert len(text) >= SHORTCUTS_FROM
        lowered = _lowercase(text)
        finder = _Finder(text, lowered, RULES)
        for rule in RULES:
            subject = lowered if rule.on_lowercase else text
            fast = [m.span() for m in finder.matches(rule, subject)]
            full = [m.span() for m in rule.pattern.finditer(subject)]
            if rule.run_check is None:
                assert fast == full, rule.pattern.pattern
                continue
            assert set(fast) <= set(full), rule.pattern.pattern
            kept = _kept(rule, text, finder.matches(rule, subject))
            assert kept == _kept(rule, text, rule.pattern.finditer(subject)), rule.pattern.pattern


def _kept(rule: Rule, text: str, matches: Iterator[re.Match[str]]) -> list[tuple[int, int]]:
    """The spans of *matches* that *rule*'s classifier keeps."""
    return [m.span() for m in matches if rule.classify is None or rule.classify(m, text)]


@pytest.mark.parametrize(
    "text",
    [
        "Keep *:*:*:replicator:Copper93VUo_",
        "copied from the wiki db.internal:5432:orders:orders_app:Harbor42xQ!",
        "run_shell: *:*:*:replicator:Copper93VUo_",
    ],
)
def test_a_pgpass_line_quoted_after_other_words_loses_its_password(text: str) -> None:
    """A rule taught as "Keep <pgpass line>" or a denied action quoting one kept the password:
    the line no longer starts with the host field, which the rule used to insist on
    (found by the every-door session scan, issue 27)."""
    password = text.rsplit(":", 1)[1]
    assert password not in redact(text)
    assert redact(text).endswith(":[REDACTED:password]")


@pytest.mark.parametrize(
    "text",
    [
        '    kSecValueData as String: "FjordBluebird!8196nBQb2".data(using: .utf8)!',
        'query[kSecValueData as String] = "PistachioNebula*4626M28W".data(using: .utf8)',
        '(__bridge id)kSecValueData: [@"Tiger46IeDuht4x" dataUsingEncoding:NSUTF8StringEncoding],',
    ],
)
def test_a_password_written_into_the_keychain_from_a_string_literal_is_removed(text: str) -> None:
    redacted = redact(text)
    assert "[REDACTED:" in redacted
    assert not any(word in redacted for word in ("Bluebird", "Nebula*4", "Tiger46I"))


@pytest.mark.parametrize(
    "text",
    [
        "kSecValueData as String: password.data(using: .utf8)!",
        'kSecValueData as String: "\\(token)".data(using: .utf8)!',
        'kSecValueData as String: "<your password>".data(using: .utf8)!',
        "kSecReturnData as String: kCFBooleanTrue!,",
    ],
)
def test_a_keychain_query_holding_no_literal_is_left_alone(text: str) -> None:
    assert redact(text) == text


def test_password_passed_positionally_after_host_port_and_user_is_removed() -> None:
    text = (
        "nas = storage.DiskStation('192.168.40.7', '5001', 'mira', 'Walrus.meadow.8814kq',\n"
        "                          secure=True)\n"
        "ftp = FTP('10.20.0.5', 'deploy', 'Cobalt7.river.ink')\n"
    )

    out = redact(text)

    assert "Walrus.meadow" not in out and "Cobalt7.river" not in out
    assert "DiskStation('192.168.40.7', '5001', 'mira', '[REDACTED:password]'" in out
    assert "FTP('10.20.0.5', 'deploy', '[REDACTED:password]')" in out


def test_address_first_call_with_names_or_references_is_left_alone() -> None:
    text = (
        "srv = Server('10.0.0.1', 8000, 'index', 'handler_v2')\n"
        "cli = Client('10.1.1.1', '22', 'root', '$NAS_PASSWORD')\n"
        "sock.connect(('127.0.0.1', 8080))\n"
    )

    assert redact(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "        env:\n          UNITY_SERIAL: QX-7K2M-P9WD-4HTR-B3NZ-62LV\n",
        'serial_key = "K7M2Q-9XWPT-R4HJD-3BVCN-Y8GLF"\n',
    ],
)
def test_a_licence_serial_in_product_key_groups_is_not_stored(text: str) -> None:
    redacted = redact(text)
    assert "[REDACTED:license-key]" in redacted
    assert "P9WD" not in redacted and "R4HJD" not in redacted


@pytest.mark.parametrize(
    "text",
    [
        "serial: C02XK0ZJJG5H\n",
        "SERIAL_PORT=/dev/ttyUSB0\n",
        'serial = "XXXX-XXXX-XXXX-XXXX"\n',
        "serial_number: 1234-5678-9012-3456\n",
    ],
)
def test_a_device_serial_a_port_or_a_template_is_left_alone(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (
            "# ~/.config/configstore/snyk.json\n"
            '{\n  "api": "3f0c2a91-7d4e-4b8a-9c21-6e5f8d0b7a34"\n}',
            "3f0c2a91-7d4e-4b8a-9c21-6e5f8d0b7a34",
        ),
        (
            "configstore/snyk.json: "
            '{"org": "platform", "api": "c81d4e2f-0a9b-4c3d-8e7f-1a2b3c4d5e6f"}',
            "c81d4e2f-0a9b-4c3d-8e7f-1a2b3c4d5e6f",
        ),
    ],
)
def test_a_cli_token_in_a_configstore_file_is_removed(text: str, secret: str) -> None:
    assert secret[:8] not in redact(text) and secret[-12:] not in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        '{\n  "api": "3f0c2a91-7d4e-4b8a-9c21-6e5f8d0b7a34",\n  "name": "orders"\n}',
        '// configstore defaults\nconst routes = {"api": "/v1/internal/orders/list"};',
    ],
)
def test_an_api_field_outside_a_configstore_file_or_holding_a_path_is_left_alone(
    text: str,
) -> None:
    assert redact(text) == text


def test_every_password_of_a_deluge_auth_file_is_removed() -> None:
    text = (
        "$ cat ~/.config/deluge/auth\n"
        "localclient:0d4f1e7a9b2c3d5e6f708192a3b4c5d6e7f80912:10\n"
        "alice:Sunset-rides:5\n"
        "seedbox:Kx7pQ2mw:10\n"
    )
    redacted = redact(text)
    for secret in ("0d4f1e7a9b2c3d5e6f708192a3b4c5d6e7f80912", "Sunset-rides", "Kx7pQ2mw"):
        assert secret not in redacted
    assert "alice:" in redacted and "seedbox:" in redacted


@pytest.mark.parametrize(
    "text",
    [
        "alice:Sunset-rides:5\nseedbox:Kx7pQ2mw:10\n",
        "localclient: true\nserver:listen:8\nworker:threads:4\n",
        "12:30:10 backup finished\nlocalhost:8080:10\n",
    ],
)
def test_colon_separated_lines_without_a_deluge_localclient_line_are_left_alone(
    text: str,
) -> None:
    assert redact(text) == text
