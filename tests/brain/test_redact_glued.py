"""A key or a password glued to a one-letter flag (``ykpersonalize -a<hex>``, ``mysqladmin
-pX``) is redacted; compiler flags, paths and defines glued the same way are left alone."""

from __future__ import annotations

import pytest
from comodor_lsp.brain.redaction.redactor import redact


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (
            "ykpersonalize -1 -ofixed=vvccccbtdikr -afa4edb004be2e6bc7dcbf2959e97784e -y",
            "fa4edb004be2e6bc7dcbf2959e97784e",
        ),
        (
            'test: ["CMD", "mysqladmin", "ping", "-h", "localhost", "-uroot", "-pOrbit33PVKO"]',
            "Orbit33PVKO",
        ),
        ("mysqldump -h db -uroot -pHarbor53zSY.4e shop > shop.sql", "Harbor53zSY.4e"),
        ("tool -kKbn9MKGkEzIeNMXynkKwSJejFA00n2mNjeMvRoVr --upload", "Kbn9MKGkEzIe"),
    ],
)
def test_a_key_glued_to_a_one_letter_flag_is_removed(text: str, secret: str) -> None:
    assert secret not in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "gcc -I/usr/include/python3.12 -DNDEBUG=1 -Wno-unused-parameter -o build/out.o",
        "cc -lpthread32 -march=x86-64-v3 -fvisibility=hidden",
        "pip install -rrequirements312.txt",
        "x = offset -y2024_total_count",
        "git log -n20 --format=%H -Sregex42pattern",
    ],
)
def test_compiler_flags_and_paths_glued_to_a_flag_are_left_alone(text: str) -> None:
    assert redact(text) == text
