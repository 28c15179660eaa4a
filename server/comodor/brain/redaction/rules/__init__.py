"""The catalogue of what secrets look like, one family of rules per module.

* :mod:`.providers` -- tokens whose prefix names their issuer (``ghp_``, ``xoxb-``, ``AKIA``);
* :mod:`.keys` -- PEM and base64 key material, wallet keys, seed phrases, Kubernetes secrets,
  the listings tools print keys in (``klist -k -K``, ``paperkey``);
* :mod:`.named_fields` -- values named like a secret: assignments, config and ``.env`` lines,
  command-line flags, URL user-info, ``Authorization``/``Cookie`` headers;
* :mod:`.placement` -- secrets found by where they stand, whoever issued them: credential
  files (netrc, pgpass, config directives), arguments of auth calls and clients, ``Basic``
  credentials anywhere, bech32 secret keys;
* :mod:`.command_lines` -- passwords and tokens by the shape of a command line, whatever
  the tool (``-P`` after ``-U user``, ``-storepass``, ``echo X | ... --password-stdin``,
  ``add_user u X``, ``config set <credential key> X``, ``secret set``);
* :mod:`.config_lines` -- the syntaxes config files share (``password X`` directives, SQL
  ``IDENTIFIED BY``, header lists, tables with a secret column, CSV and spreadsheet exports
  with a password column, armored secret blocks, random URL path segments);
* :mod:`.records` -- values named by a sibling field or a parent key (``{"name":
  "sessionid", "value": X}``, ``- name: DB_PASSWORD`` / ``value: X``, ``"adminPassword":
  {"value": X}``) and maps named for secrets (``"apikeys": {"acme": X}``);
* :mod:`.blocks` -- a secret's name and its value with a block or a call between them
  (``let(:api_token) { 'X' }``, ``def api_key; "X"; end``, ``get apiKey() { return "X" }``);
* :mod:`.escaped` -- a secret literal escaped by its host syntax (T-SQL ``N'Ligh''th0use!'``,
  PowerShell ``"a`$b"``);
* :mod:`.glued` -- a key or a password glued to a one-letter flag (``-a<hex>``, ``-p<pw>``);
* :mod:`.net` -- the last line, which knows no format: a secret-shaped value (a random draw,
  a person's pick) standing where a value stands near a secret word, in any syntax or on the
  line after it, and a person's password by its shape alone;
* :mod:`.prose` -- a password stated in a sentence, in any language (``the password for
  staging is X``, ``La password del database è X``, ``密码是X``, ``비밀번호는 X``);
* :mod:`.spaced` -- app passwords in four groups of four letters with blanks between
  (``abcd efgh ijkl mnop``), on a line that says password or login;
* :mod:`.printed` -- the net's neighbour: what a tool prints when it makes a credential
  (``A temporary password is generated for root@localhost: X``, ``$ openssl rand -base64
  32`` then ``X``) and password labels in other scripts (``パスワード：X``);
* :mod:`.entropy` -- random-looking tokens nothing else names.

Every family above :mod:`.net` was written from formats someone had seen, and each fresh batch
of kinds leaked one in six to three at first look; :data:`LAST_LINE` (the two format-free
nets and what tools print) is what catches a kind nobody wrote a rule for, and
``bench/redaction.py --arm last-line`` measures it alone against every earlier corpus.

The engine that runs these rules is one level up (:mod:`comodor.brain.redaction`).
"""

from __future__ import annotations

from typing import Final

from ..base import Rule
from .blocks import BLOCK_RULES
from .command_lines import COMMAND_RULES
from .config_lines import CONFIG_LINE_RULES
from .entropy import ENTROPY_RULES
from .escaped import ESCAPED_RULES
from .glued import GLUED_RULES
from .keys import KEY_RULES
from .named_fields import CONTEXT_RULES
from .net import NET_RULES
from .placement import PLACEMENT_RULES
from .printed import PRINTED_RULES
from .prose import PROSE_RULES
from .providers import PROVIDER_RULES
from .records import RECORD_RULES
from .spaced import SPACED_RULES

RULES: Final[tuple[Rule, ...]] = (
    *PROVIDER_RULES,
    *KEY_RULES,
    *CONTEXT_RULES,
    *PLACEMENT_RULES,
    *COMMAND_RULES,
    *CONFIG_LINE_RULES,
    *RECORD_RULES,
    *BLOCK_RULES,
    *ESCAPED_RULES,
    *GLUED_RULES,
    *NET_RULES,
    *PROSE_RULES,
    *SPACED_RULES,
    *PRINTED_RULES,
    *ENTROPY_RULES,
)

LAST_LINE: Final[tuple[Rule, ...]] = (
    *NET_RULES,
    *PROSE_RULES,
    *SPACED_RULES,
    *PRINTED_RULES,
    *ENTROPY_RULES,
)
"""The rules that need no format: the secret-shaped-value nets and the random-token net.

Run alone (``redact(text, rules=LAST_LINE)``) they say how much of a batch of kinds nobody
wrote a rule for would be caught anyway: the leave-family-out measure of ``bench/redaction.py``.
"""

__all__ = ["LAST_LINE", "RULES", "Rule"]
