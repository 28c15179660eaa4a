"""A password stated in a sentence, in any language: ``the password for staging is X``.

People hand credentials over in chat: a password word, a few words saying which one (``for
the staging database``, ``del database di staging``, ``máy chủ thử nghiệm``), the language's
``is`` (``is``, ``ist``, ``è``, ``est``, ``es``, ``là``, ``هي``, ``是``, the Korean topic
particle ``는``), then the value. No syntax names the value, so the net's name rules (which
read an operator or ``is`` right after the name) miss it once words stand between.

Two rules, by script: words in Latin letters are anchored where the engine's prefix index
holds them (ASCII, on the lowercased text); the others (Chinese, Korean, Arabic, Vietnamese,
Russian, Hebrew) are few enough for ``str.find``, which answers at once on an ASCII text.
The words between the name and the copula are prose only -- no bracket, quote, operator or
sentence end -- and the value must have a credential's shape (:func:`.net.shape`): ``the
password is required`` and ``la password è obbligatoria`` are left alone.
"""

from __future__ import annotations

import re
from typing import Final

from ..base import ASSIGNMENT, Rule, SpanFinder, line_end
from .net import PLAIN, shape

# What stands between the password word and its copula: words, blanks, hyphens, apostrophes.
_BETWEEN: Final = r"[^\n.!?;:=()\[\]{}<>\"`/\\|]{0,60}?"
# The value: one token, quoted or not; what closes a sentence is cut off after.
_VALUE: Final = r"[\"'«„“「『`]?(?P<secret>[^\s\"'«»„“”「」『』`<>，。、；（）()]{6,128})"

# A parenthesis saying what it is now counts as a copula: ``the NAS password (currently X)``.
_LATIN_COPULA: Final = (
    r"(?:[ \t]*:|[ \t](?:is|was|ist|lautet|est|es|era|è|e|é|er|är|on|je|jest|to|adalah|ialah|là)"
    r"|[ \t]\((?:currently|still|now|temporarily))"
    r"[ \t:]+(?:(?:now|jetzt|ora|agora|maintenant|ahora|nu|teď|teraz)[ \t:]+)?"
)
_OTHER_COPULA: Final = (
    r"(?:[ \t]?(?:是|为|為|는|은|هي|هو|là|это|—|היא|הוא|คือ)[ \t:：]*|[ \t]*[：:][ \t]*)"
)
# The password word (and the article or suffix some languages glue on), then -- checked by
# the regex engine, so that a name in code costs no Python -- a copula within a few words.
_LATIN_RE: Final = re.compile(
    r"(?P<word>(?:pass(?:word|wort|wd|ord)|kennwort|contrase(?=[ñn]a)[ñn]a|mot de passe|senha"
    r"|parola|haslo|wachtwoord|salasana|adgangskode|heslo|sifre|lozinka|geslo"
    r"|parool|kata sandi|jelsz(?=[óo])[óo]|(?<=l[öo])senord)(?:e[nt]|et|s|i|u|a|n|nya)?)"
    + _BETWEEN
    + _LATIN_COPULA
)
# Not ASCII, so the engine looks for each with ``str.find``: at most eight a rule, or its regex
# scans the whole text, and none in Latin-1 (``ö``, ``ó``), which ``str.find`` must look for
# in an ASCII text too (0.17 ms a correction): those are spelled from an ASCII prefix above.
_OTHER_RE: Final = re.compile(
    r"(?P<word>密码|密碼|비밀번호|كلمة ال(?:مرور|سر)|mật khẩu|пароль|סיסמ)"
    + _BETWEEN
    + _OTHER_COPULA
)
_ACCENTED_RE: Final = re.compile(
    r"(?P<word>(?:hasło|şifre|รหัสผ่าน|κωδικ|पासवर्ड)(?:e[nt]|et|s|i|u|a|n)?)"
    + _BETWEEN
    + r"(?:"
    + _LATIN_COPULA
    + r"|"
    + _OTHER_COPULA
    + r")"
)
_ACCENTED_CLAUSE: Final = re.compile(
    r"(?:" + _LATIN_COPULA + r"|" + _OTHER_COPULA + r")" + _VALUE, re.IGNORECASE
)
# Hindi, Marathi and Nepali put the verb last (``सर्वर का पासवर्ड X है``): the value stands
# between the password word and the clause's closing copula, not after it.
_VERB_LAST_RE: Final = re.compile(r"(?P<word>पासवर्ड|पास्वर्ड)")
_VERB_LAST_CLAUSE: Final = re.compile(
    r"[ \t:：]+" + _VALUE + r"(?=[ \t]+(?:है|हैं|था|थी|आहे|हो)(?![\u0900-\u097f]))"
)
_LATIN_CLAUSE: Final = re.compile(_LATIN_COPULA + _VALUE, re.IGNORECASE)
_OTHER_CLAUSE: Final = re.compile(_OTHER_COPULA + _VALUE, re.IGNORECASE)
_NOT_PROSE: Final = re.compile(r"[.!?;=()\[\]{}<>\"`/\\|]")
_MOST_BETWEEN: Final = 60
# Characters a sentence puts right after the value, not part of it.
_TRAILING: Final = ".,;:!?)—–-"


def _stated(clause: re.Pattern[str]) -> SpanFinder:
    """Spans for a password word's sentence: the first copula whose value has the shape.

    ``the password to the staging server is X``: ``to the`` is tried and left, ``is X`` taken.
    """

    def spans(m: re.Match[str], text: str) -> list[tuple[int, int]]:
        begin = m.end("word")
        stop = line_end(text, begin, 240)
        for c in clause.finditer(text, begin, stop):
            if c.start() - begin > _MOST_BETWEEN or _NOT_PROSE.search(text, begin, c.start()):
                break
            start, end = c.span("secret")
            value = text[start:end].rstrip(_TRAILING)
            if len(value) >= 6 and shape(value) >= PLAIN:
                return [(start, start + len(value))]
        return []

    return spans


# Credentials handed over as a pair: ``creds are admin / X``, ``the login is ops / X``.
_PAIR_WORD_RE: Final = re.compile(
    r"(?P<word>cred(?:s|entials?)|logins?)" + _BETWEEN + r"(?:[ \t]*:|[ \t](?:are|is|were|was))"
)
_PAIR_CLAUSE: Final = re.compile(
    r"(?:[ \t]*:|[ \t](?:are|is|were|was))[ \t]+[A-Za-z0-9_.@+-]{2,64}[ \t]*/[ \t]*" + _VALUE
)


PROSE_RULES: Final[tuple[Rule, ...]] = (
    Rule("password", ASSIGNMENT, _PAIR_WORD_RE, on_lowercase=True, spans=_stated(_PAIR_CLAUSE)),
    Rule("password", ASSIGNMENT, _LATIN_RE, on_lowercase=True, spans=_stated(_LATIN_CLAUSE)),
    Rule("password", ASSIGNMENT, _OTHER_RE, on_lowercase=True, spans=_stated(_OTHER_CLAUSE)),
    Rule("password", ASSIGNMENT, _ACCENTED_RE, on_lowercase=True, spans=_stated(_ACCENTED_CLAUSE)),
    Rule(
        "password", ASSIGNMENT, _VERB_LAST_RE, on_lowercase=True, spans=_stated(_VERB_LAST_CLAUSE)
    ),
)
"""Run with the nets (:data:`comodor.brain.redaction.LAST_LINE`): they know no format."""
