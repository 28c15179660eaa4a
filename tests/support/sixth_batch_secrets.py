# ruff: noqa: E501  (realistic config, log and shell lines are long; they are data here)
"""A sixth batch of credential kinds, written without reading the redactor's rules.

This batch was written by a helper session started for the purpose, as a fresh author. It read
only :mod:`tests.support.unlisted_secrets` (the ``UnlistedSample`` class, the ``_Draw`` helpers,
the alphabets, ``draw_batch``, ``Add`` and the two corpus checks),
:mod:`tests.support.fifth_batch_secrets` for its structure and its kind *names*,
:mod:`tests.support.fourth_batch_secrets` for its checksum helpers and ``older_names``, and
``tests/brain/test_redact_fifth_batch.py`` as a model for the shape tests. It read nothing under
``server/``, no bench, no README, ARCHITECTURE or CHANGELOG, no commit message or log, and it
never ran ``redact`` or any redaction test. The kind names of the five earlier corpora
(:func:`older_names`) were read only to avoid repeating a kind or renaming one. Seen in passing
and not used to steer the choice of kinds: the docstring of :mod:`tests.support.unlisted_secrets`
(which names some general rules added after earlier looks), the fifth batch's ``STILL_STORED``
set, and the look-alike texts further down the fifth batch's test file (printed whole by mistake).

Most of the kinds (174) are the ordinary places a developer's workspace holds a credential:
``.env`` files and shell exports in every naming style (vendor prefixes, ``_PAT``, ``_PW``,
``_PWD``, ``_PASSPHRASE``, ``_CRED``, ``_SIG``, ``_PRIVATE``, ``_SK``, ``_HMAC``, ``_SALT``,
``_PEPPER``, ``_SEED``, ``_MNEMONIC``, lower-case names, names in German, Spanish, French,
Portuguese, Turkish, Polish, Dutch and Swedish), framework configuration in JSON, YAML, TOML, INI,
XML, HCL and properties (the secret word on a parent key, lists and arrays of credentials,
inline tables), code in Python, JS/TS, Go, Java, C#, Ruby, PHP, Rust, Kotlin, Swift, Dart, C and
SQL (constructors, builders, options objects, keyword arguments, struct literals, fixtures and
mocks), docker-compose, Kubernetes, Helm, Terraform, CI files, cloud and secret-store CLIs,
curl/httpie/wget/aria2 flags, database URLs and connection strings in many drivers' syntax, log
lines, terminal output and stack traces that print a config, chat messages that paste a token,
commit messages and TODO comments.

The rest (101) are places and formats the earlier names do not cover: newer providers'
documented token formats (with their prefixes, lengths, alphabets and, where documented,
signatures or checksums), key and seed formats (Algorand and Electrum wallets, an Ethereum v3
keystore, Cosmos armour, RFC 4716 SSH2 keys, paperkey output, symmetric JWKs, Kerberos keytab
listings, TSIG and DNSSEC keys, a NIP-49 ``ncryptsec``, BitLocker and FileVault recovery keys),
reversible encodings (base64 of ``user:pass``, hex, ROT13, URL and XML escaping, JSON inside
JSON), secrets wrapped across lines, in tables, CSV and spreadsheet exports, unified diffs, Jupyter notebooks and protocol transcripts, and
secrets behind a prefix on the same line (bullets, line-number gutters, prompts, log stamps,
quote markers, grep and docker-compose log prefixes).

Every value is FAKE, drawn from the seeded :class:`_Batch6Draw` stream (``batch6/``); human
passwords come from the human-like password draw. There are 275 kinds, and every kind is held
out: there is no tune part.

First look, once, by the lead (``python -m bench.redaction --arm sixth``, 20 seeds, a kind
"stored" when an 8-character piece of its secret survives ``redact`` in any run), on
``82d0409`` -- the redactor after this stop's widened last-line net and its gutter view:
**35 of 275 stored (13 %)**. The redactor as this stop found it (``06e8f3b``) stores 45 of 275
(16 %); the widened net took 10 kinds, the gutter view none that the net had not. The last
line alone (every named rule off, caught in every seed of 0-4) catches 227 of 275 (83 %; 206 at
``06e8f3b``), as the leave-family-out figure on the five earlier corpora predicted (82 %).
Caveat: the lead's brief to this batch's author and to the engineer who widened the net named
some of the same places (names in other languages, name endings, prefixes on a line); kinds in
those places leaked all the same (``php-define-french-mot-de-passe``,
``properties-portuguese-senha``, ``shell-export-callback-sig``, ``dotenv-devise-pepper``,
``markdown-checkbox-list-item``). The 35: ``android-strings-xml-client-token``,
``aws-ssm-put-parameter-securestring``, ``bitlocker-recovery-password-manage-bde``,
``browser-passwords-csv-export``, ``c-libcurl-setopt-userpwd``,
``cosmos-keys-export-unarmored-hex``, ``docker-compose-healthcheck-test-array``,
``dotenv-devise-pepper``, ``dotenv-sftp-cred-user-colon-password``,
``email-nested-quote-marker-password``, ``ethereum-keystore-v3-json-ciphertext``,
``gcp-service-account-json-base64-env``, ``gpg-paperkey-text-output``,
``hardhat-verify-etherscan-api-key``, ``headscale-preauthkey-create-output``,
``himalaya-config-toml-raw-password``, ``js-hdwalletprovider-mnemonic-literal``,
``json-credentials-parent-environment-children``, ``kerberos-klist-keytab-keys``,
``keybase-paperkey-phrase``, ``macos-fdesetup-personal-recovery-key``,
``markdown-checkbox-list-item``, ``php-define-french-mot-de-passe``,
``properties-portuguese-senha``, ``psql-expanded-record-output``,
``python-bytes-fromhex-password``, ``ruby-rspec-let-token``, ``semicolon-csv-spreadsheet-export``,
``shell-backslash-newline-inside-quoted-token``, ``shell-base64-decode-subshell``,
``shell-export-callback-sig``, ``ssh2-rfc4716-encrypted-private-key``,
``strace-write-auth-command``, ``wordpress-application-password-spaced``,
``yubikey-ykpersonalize-aes-key-flag``. From here on this batch is not unseen either.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import zlib
from urllib.parse import quote

from tests.support.fifth_batch_secrets import NAMES as FIFTH_NAMES
from tests.support.fifth_batch_secrets import older_names as names_before_fifth
from tests.support.fourth_batch_secrets import _bech32, _github_token
from tests.support.unlisted_secrets import (
    ALNUM,
    BASE32,
    BASE58,
    BASE64,
    BASE64URL,
    HEX,
    LOWER_ALNUM,
    UPPER_ALNUM,
    Add,
    UnlistedSample,
    _Draw,
    draw_batch,
)

DIGITS = string.digits
UPPER_HEX = HEX.upper()
LOWER = string.ascii_lowercase

# A slice of the BIP-39 English list, enough for fake phrases that read like real ones.
_BIP39_WORDS = (  # noqa: SIM905  (one list, easier to read as text)
    "abandon ability able about above absent absorb abstract absurd abuse access accident "
    "account accuse achieve acid acoustic acquire across act action actor actress actual adapt "
    "add addict address adjust admit adult advance advice aerobic affair afford afraid again "
    "age agent agree ahead aim air airport aisle alarm album alcohol alert alien all alley "
    "allow almost alone alpha already also alter always amateur amazing among amount amused "
    "analyst anchor ancient anger angle angry animal ankle announce annual another answer "
    "antenna antique anxiety any apart apology appear apple approve april arch arctic area "
    "arena argue arm armed armor army around arrange arrest arrive arrow art artefact artist "
    "artwork ask aspect assault asset assist assume asthma athlete atom attack attend attitude "
    "attract auction audit august aunt author auto autumn average avocado avoid awake aware "
    "away awesome awful awkward axis baby bachelor bacon badge bag balance balcony ball bamboo "
    "banana banner bar barely bargain barrel base basic basket battle beach bean beauty "
    "because become beef before begin behave behind believe below belt bench benefit best "
    "betray better between beyond bicycle bid bike bind biology bird birth bitter black blade "
    "blame blanket blast bleak bless blind blood blossom blouse blue blur blush board boat"
).split()


class _Batch6Draw(_Draw):
    """The same draws as the earlier corpora, from a stream of their own."""

    def rng(self, label: str) -> random.Random:
        return super().rng(f"batch6/{label}")

    def raw(self, label: str, size: int) -> bytes:
        return self.rng(label).randbytes(size)

    def words(self, label: str, count: int) -> str:
        rng = self.rng(label)
        return " ".join(rng.choice(_BIP39_WORDS) for _ in range(count))


# --- formats with structure (stdlib only) -------------------------------------------------


def _b64(value: str | bytes) -> str:
    raw = value.encode() if isinstance(value, str) else value
    return base64.b64encode(raw).decode()


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _base58(data: bytes) -> str:
    n = int.from_bytes(data, "big")
    out = ""
    while n:
        n, r = divmod(n, 58)
        out = BASE58[r] + out
    return "1" * (len(data) - len(data.lstrip(b"\0"))) + out


def _base58check(payload: bytes) -> str:
    check = hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4]
    return _base58(payload + check)


def _base62(n: int, width: int) -> str:
    out = ""
    while n:
        n, r = divmod(n, 62)
        out = (DIGITS + string.ascii_uppercase + LOWER)[r] + out
    return out.rjust(width, "0")


def _azure_devops_pat(d: _Batch6Draw, label: str) -> str:
    """The 84-character Azure DevOps PAT: ``JQQJ99`` at 53-58 and ``AZDO`` at 77-80."""
    return (
        d.s(label + "-a", 52, ALNUM)
        + "JQQJ99"
        + d.s(label + "-b", 18, ALNUM)
        + "AZDO"
        + d.s(label + "-c", 4, ALNUM)
    )


def _bitlocker_key(d: _Batch6Draw, label: str) -> str:
    """Eight groups of six digits, each a multiple of 11 below 720896, as BitLocker prints."""
    rng = d.rng(label)
    return "-".join(f"{11 * rng.randrange(1, 65536):06d}" for _ in range(8))


def _rot13(text: str) -> str:
    return text.translate(
        str.maketrans(
            LOWER + string.ascii_uppercase,
            LOWER[13:] + LOWER[:13] + string.ascii_uppercase[13:] + string.ascii_uppercase[:13],
        )
    )


def _wrap(text: str, width: int) -> list[str]:
    return [text[i : i + width] for i in range(0, len(text), width)]


def _crc24(data: bytes) -> str:
    """The OpenPGP armour checksum (RFC 4880 6.1) of *data*, base64 with its ``=``."""
    crc = 0xB704CE
    for byte in data:
        crc ^= byte << 16
        for _ in range(8):
            crc <<= 1
            if crc & 0x1000000:
                crc ^= 0x1864CFB
    return "=" + _b64((crc & 0xFFFFFF).to_bytes(3, "big"))


def _env_files_and_shell(d: _Batch6Draw, add: Add) -> None:
    # --- .env files and exports, one naming style each ---------------------------------------
    t = _b64(f"{d.s('jira-pat-id', 12, DIGITS)}:".encode() + d.raw("jira-pat", 20))
    add(
        "dotenv-jira-datacenter-pat-suffix",
        t,
        f"# .env -- local tooling for the release scripts (do not commit)\nJIRA_BASE_URL=https://jira.acme.internal\nJIRA_USER=release-bot\nJIRA_PAT={t}\nCONFLUENCE_SPACE=REL\n",
    )
    p = d.password("smtp-pw")
    add(
        "dotenv-mail-pw-suffix",
        p,
        f'MAIL_HOST=smtp.office365.com\nMAIL_PORT=587\nMAIL_USER=noreply@acme-logistik.de\nMAIL_PW={p}\nMAIL_FROM_NAME="Acme Logistik"\n',
    )
    p = d.password("ldap-bind-pwd")
    add(
        "shell-export-ldap-bind-pwd",
        p,
        f"# ~/.bashrc.d/ldap.sh\nexport LDAP_URI=ldaps://ldap.corp.example.com\nexport LDAP_BIND_DN=\"uid=svc-jenkins,ou=services,dc=corp,dc=example,dc=com\"\nexport LDAP_BIND_PWD='{p}'\n",
    )
    p = d.password("signing-passphrase")
    add(
        "dotenv-signing-key-passphrase",
        p,
        f'# fastlane/.env.release\nKEYSTORE_PATH=./keys/release.jks\nKEY_ALIAS=upload\nSIGNING_KEY_PASSPHRASE="{p}"\nPLAY_TRACK=internal\n',
    )
    p = d.password("sftp-cred")
    add(
        "dotenv-sftp-cred-user-colon-password",
        p,
        f"PARTNER_SFTP_HOST=sftp.partner-bank.example\nPARTNER_SFTP_PORT=2222\nPARTNER_SFTP_CRED=acme_upload:{p}\nPARTNER_SFTP_DIR=/inbound/settlements\n",
    )
    t = d.hex("callback-sig", 64)
    add(
        "shell-export-callback-sig",
        t,
        f"$ export PAYMENTS_CALLBACK_URL=https://hooks.acme.dev/payments\n$ export PAYMENTS_CALLBACK_SIG={t}\n$ npm run replay -- --since 2h\n",
    )
    pub = "B" + d.s("vapid-pub", 86, BASE64URL)
    t = d.s("vapid-private", 43, BASE64URL)
    add(
        "dotenv-vapid-private-suffix",
        t,
        f"# web push (generated with `npx web-push generate-vapid-keys`)\nVAPID_PUBLIC={pub}\nVAPID_PRIVATE={t}\nVAPID_SUBJECT=mailto:ops@acme.dev\n",
    )
    t = d.s("qiniu-sk", 40, BASE64URL)
    add(
        "dotenv-qiniu-ak-sk-pair",
        t,
        f"QINIU_AK={d.s('qiniu-ak', 40, BASE64URL)}\nQINIU_SK={t}\nQINIU_BUCKET=acme-static\nQINIU_DOMAIN=https://cdn.acme.cn\n",
    )
    t = _b64(d.raw("session-hmac", 48))
    add(
        "dotenv-session-hmac-suffix",
        t,
        f"SESSION_COOKIE_NAME=__Host-sid\nSESSION_TTL=86400\nSESSION_HMAC={t}\n",
    )
    t = d.s("password-salt", 32, ALNUM)
    add(
        "dotenv-password-salt-suffix",
        t,
        f"# legacy PHP login, sha256(salt . password) -- keep until migration 0042 runs\nAUTH_PASSWORD_SALT={t}\nAUTH_LEGACY_ENABLED=true\n",
    )
    t = d.hex("devise-pepper", 128)
    add(
        "dotenv-devise-pepper",
        t,
        f"RAILS_ENV=production\nRAILS_LOG_TO_STDOUT=1\nDEVISE_PEPPER={t}\nDEVISE_STRETCHES=12\n",
    )
    t = d.s("totp-seed", 32, BASE32)
    add(
        "dotenv-test-totp-seed",
        t,
        f"# .env.e2e -- Playwright logs in as the seeded admin and computes its one-time code\nE2E_ADMIN_EMAIL=admin@acme.test\nE2E_ADMIN_PASSWORD_FILE=/run/secrets/e2e_admin\nE2E_ADMIN_TOTP_SEED={t}\n",
    )
    t = d.words("algorand-mnemonic", 25)
    add(
        "dotenv-algorand-account-mnemonic",
        t,
        f'ALGOD_SERVER=https://testnet-api.algonode.cloud\nALGOD_PORT=443\nDEPLOYER_ADDRESS={d.s("algo-addr", 58, BASE32)}\nDEPLOYER_MNEMONIC="{t}"\n',
    )
    p = d.password("lower-db-pass")
    add(
        "dotenv-lowercase-db-pass",
        p,
        f"# read by python-dotenv in scrape.py\nbase_url=https://portal.example.org\ndb_host=localhost\ndb_user=scraper\ndb_pass={p}\n",
    )
    t = d.hex("owm", 32)
    add(
        "zshrc-lowercase-export-api-key",
        t,
        f"# ~/.zshrc\nexport owm_api_key={t}\nalias wx='curl -s \"https://api.openweathermap.org/data/2.5/weather?q=Lyon&appid=$owm_api_key\" | jq .main'\n",
    )
    p = d.password("passwort")
    add(
        "dotenv-german-datenbank-passwort",
        p,
        f"# Zugangsdaten fuer die lokale Entwicklung\nDATENBANK_HOST=localhost\nDATENBANK_BENUTZER=shop\nDATENBANK_PASSWORT={p}\n",
    )
    p = d.password("contrasena")
    add(
        "yaml-spanish-contrasena-key",
        p,
        f'# config/produccion.yml\nbase_de_datos:\n  servidor: db.interno.ejemplo.es\n  usuario: facturacion\n  contrasena: "{p}"\n  puerto: 5432\n',
    )
    p = d.password("mot-de-passe")
    add(
        "php-define-french-mot-de-passe",
        p,
        f"<?php\n// config.inc.php -- parametres de la base\ndefine('BDD_SERVEUR', 'localhost');\ndefine('BDD_UTILISATEUR', 'compta');\ndefine('BDD_MOT_DE_PASSE', '{p}');\n",
    )
    p = d.password("senha")
    add(
        "properties-portuguese-senha",
        p,
        f"# application-prod.properties\nbanco.url=jdbc:postgresql://10.1.2.3:5432/financeiro\nbanco.usuario=financeiro\nbanco.senha={p}\n",
    )
    p = d.password("parola")
    add(
        "python-settings-turkish-parola",
        p,
        f'# ayarlar.py\nVERITABANI = {{\n    "sunucu": "127.0.0.1",\n    "kullanici_adi": "muhasebe",\n    "parola": "{p}",\n}}\n',
    )
    p = d.password("haslo")
    add(
        "shell-export-polish-haslo",
        p,
        f"# dane dostepowe do bazy testowej\nexport BAZA_UZYTKOWNIK=ksiegowosc\nexport BAZA_HASLO='{p}'\npsql -h localhost -U \"$BAZA_UZYTKOWNIK\" ksiegowosc\n",
    )
    p = d.password("wachtwoord")
    add(
        "ini-dutch-wachtwoord",
        p,
        f"; instellingen.ini\n[database]\nserver = db01.intern.voorbeeld.nl\ngebruiker = boekhouding\nwachtwoord = {p}\n",
    )
    p = d.password("losenord")
    add(
        "toml-swedish-losenord",
        p,
        f'# installningar.toml\n[databas]\nvard = "db.exempel.se"\nanvandare = "ekonomi"\nlosenord = "{p}"\n',
    )
    t = d.s("mistral-setx", 32, ALNUM)
    add(
        "windows-setx-user-variable",
        t,
        f'C:\\Users\\jdoe>setx MISTRAL_API_KEY "{t}"\n\nSUCCESS: Specified value was saved.\n',
    )
    t = "sk-" + d.hex("deepseek-env", 32)
    add(
        "powershell-setenvironmentvariable-user-scope",
        t,
        f'PS C:\\dev\\chatbot> [Environment]::SetEnvironmentVariable("DEEPSEEK_API_KEY", "{t}", "User")\nPS C:\\dev\\chatbot> refreshenv\n',
    )
    t = d.s("buildbuddy", 20, ALNUM)
    add(
        "direnv-envrc-export",
        t,
        f"# .envrc -- `direnv allow` after editing\nuse flake\ndotenv_if_exists .env.local\nexport AWS_PROFILE=sandbox\nexport BUILDBUDDY_API_KEY={t}\nPATH_add bin\n",
    )
    t = _b64(d.raw("nextauth", 32))
    add(
        "nextauth-dotenv-local-secret",
        t,
        f"# .env.local\nNEXTAUTH_URL=http://localhost:3000\nNEXTAUTH_SECRET={t}\nGITHUB_ID=Iv1.{d.hex('nextauth-gh-id', 16)}\n",
    )
    t = d.s("camel-api-secret", 48, ALNUM)
    add(
        "dotenv-camelcase-api-secret",
        t,
        f"appId=1458823\napiKey={d.s('camel-api-key', 24, LOWER_ALNUM)}\napiSecret={t}\ncluster=eu\n",
    )
    t = d.hex("env-command", 64)
    add(
        "env-command-prefixed-run",
        t,
        f"# replay yesterday's failed deliveries against staging\n$ env -u HTTP_PROXY WEBHOOK_SIGNING_SECRET={t} node scripts/replay-webhooks.js --from 2024-05-01\n",
    )
    t = d.s("here-maps", 43, BASE64URL)
    add(
        "dotenv-inline-comment-after-quoted-value",
        t,
        f'MAPS_PROVIDER=here\nMAPS_SERVER_KEY="{t}"  # rotated 2024-03-02, old one revoked\nMAPS_TIMEOUT_MS=4000\n',
    )
    body = _wrap(_b64(d.raw("dotenv-pem", 162)), 64)
    t = body[1]
    pem = "\\n".join(["-----BEGIN PRIVATE KEY-----", *body, "-----END PRIVATE KEY-----"])
    add(
        "dotenv-pem-private-key-escaped-newlines",
        t,
        f'FIREBASE_PROJECT_ID=acme-prod\nFIREBASE_CLIENT_EMAIL=firebase-adminsdk-x2k@acme-prod.iam.gserviceaccount.com\nFIREBASE_PRIVATE_KEY="{pem}\\n"\n',
    )
    p = d.password("doubled-dollar")
    add(
        "docker-compose-env-file-doubled-dollar",
        p,
        f"# stack.env (used with `docker compose --env-file stack.env`)\nCOMPOSE_PROJECT_NAME=wiki\nWIKI_DB_USER=wikijs\nWIKI_DB_PASS={p}$$\n",
    )


def _application_config(d: _Batch6Draw, add: Add) -> None:
    # --- framework configuration, the secret word on a parent key ----------------------------
    t = d.s("json-grandparent", 40, ALNUM)
    add(
        "json-credentials-parent-environment-children",
        t,
        json.dumps(
            {
                "service": "billing-sync",
                "credentials": {
                    "staging": {"id": "stg-01", "value": d.s("json-grandparent-stg", 40, ALNUM)},
                    "production": {"id": "prd-01", "value": t},
                },
                "retry": {"max": 5},
            },
            indent=2,
        ),
    )
    t = d.s("json-key-list", 32, ALNUM)
    add(
        "json-api-keys-array",
        t,
        json.dumps(
            {
                "server": {"port": 8080},
                "auth": {"mode": "static", "apiKeys": [t, d.s("json-key-list-2", 32, ALNUM)]},
            },
            indent=2,
        ),
    )
    t = d.s("yaml-token-list", 40, BASE64URL)
    add(
        "yaml-tokens-sequence-under-parent",
        t,
        f"# gateway.yaml\nlisten: 0.0.0.0:9000\nauthentication:\n  type: bearer\n  tokens:\n    - {t}\n    - {d.s('yaml-token-list-2', 40, BASE64URL)}\n",
    )
    p = d.password("yaml-smtp-auth")
    add(
        "yaml-smtp-auth-user-pass-nested",
        p,
        f"mailer:\n  transport: smtp\n  smtp:\n    host: smtp.mailgun.org\n    port: 587\n    auth:\n      user: postmaster@mg.acme.dev\n      pass: {p}\n",
    )
    p = d.password("toml-inline-auth")
    add(
        "toml-inline-table-auth",
        p,
        f'[upstream.registry]\nurl = "https://registry.acme.dev"\nauth = {{ user = "ci-bot", pass = "{p}" }}\ntimeout = "30s"\n',
    )
    p = d.password("toml-users-array")
    add(
        "toml-array-of-tables-users",
        p,
        f'[[users]]\nname = "viewer"\nrole = "read"\npassword = "{d.password("toml-users-array-2")}"\n\n[[users]]\nname = "admin"\nrole = "write"\npassword = "{p}"\n',
    )
    t = d.s("ini-credentials-section", 36, ALNUM)
    add(
        "ini-credentials-section-named-entries",
        t,
        f"[general]\nregion = eu-central\n\n[credentials]\nprimary = {t}\nfallback = {d.s('ini-credentials-fallback', 36, ALNUM)}\n",
    )
    p = d.password("xml-conn-attr")
    add(
        "xml-connection-element-password-attribute",
        p,
        f'<?xml version="1.0" encoding="UTF-8"?>\n<datasources>\n  <connection name="reports" driver="org.postgresql.Driver"\n              url="jdbc:postgresql://db:5432/reports"\n              user="reporter" password="{p}"/>\n</datasources>',
    )
    t = d.hex("android-strings", 32)
    add(
        "android-strings-xml-client-token",
        t,
        f'<resources>\n    <string name="app_name">Acme Rides</string>\n    <string name="facebook_app_id">{d.s("fb-app-id", 15, DIGITS)}</string>\n    <string name="facebook_client_token">{t}</string>\n</resources>',
    )
    t = "hvs." + d.s("vault-transit-seal", 24, ALNUM)
    add(
        "vault-hcl-transit-seal-token",
        t,
        f'storage "raft" {{\n  path = "/opt/vault/data"\n}}\n\nseal "transit" {{\n  address    = "https://vault-root.acme.internal:8200"\n  token      = "{t}"\n  key_name   = "autounseal"\n  mount_path = "transit/"\n}}\n',
    )
    p = d.password("tf-backend-pg")
    add(
        "terraform-backend-pg-conn-str",
        p,
        f'terraform {{\n  backend "pg" {{\n    conn_str = "postgres://terraform:{p}@tfstate.acme.internal/terraform_backend?sslmode=require"\n  }}\n}}\n',
    )
    t = d.s("micronaut-jwt", 48, ALNUM)
    add(
        "micronaut-yaml-jwt-generator-secret",
        t,
        f"micronaut:\n  security:\n    authentication: bearer\n    token:\n      jwt:\n        signatures:\n          secret:\n            generator:\n              secret: {t}\n",
    )
    p = d.password("appsettings-smtp")
    add(
        "appsettings-json-smtp-credentials-object",
        p,
        json.dumps(
            {
                "Logging": {"LogLevel": {"Default": "Information"}},
                "Smtp": {
                    "Host": "smtp.sendgrid.net",
                    "Port": 587,
                    "Credentials": {"UserName": "apikey", "Password": p},
                },
            },
            indent=2,
        ),
    )
    t = "key-" + d.hex("laravel-services", 32)
    add(
        "laravel-config-services-php-literal",
        t,
        f"<?php\n\nreturn [\n    'mailgun' => [\n        'domain' => 'mg.acme.dev',\n        'secret' => '{t}',\n        'endpoint' => 'api.eu.mailgun.net',\n    ],\n];\n",
    )
    t = d.s("next-config-env", 48, ALNUM)
    add(
        "nextjs-config-env-block",
        t,
        f"/** @type {{import('next').NextConfig}} */\nconst nextConfig = {{\n  reactStrictMode: true,\n  env: {{\n    PAYMENTS_SECRET: '{t}',\n  }},\n}};\n\nmodule.exports = nextConfig;\n",
    )
    t = d.s("vite-define", 40, ALNUM)
    add(
        "vite-config-define-json-stringify",
        t,
        f"export default defineConfig({{\n  plugins: [react()],\n  define: {{\n    'import.meta.env.VITE_SEARCH_ADMIN_KEY': JSON.stringify('{t}'),\n  }},\n}});\n",
    )
    t = d.s("caddy-header-up", 40, ALNUM)
    add(
        "caddyfile-reverse-proxy-header-up",
        t,
        f'api.acme.dev {{\n\treverse_proxy /v1/* 10.0.0.12:8080 {{\n\t\theader_up Authorization "Bearer {t}"\n\t\theader_up -X-Forwarded-For\n\t}}\n}}\n',
    )
    t = d.s("envoy-inline", 44, BASE64)
    add(
        "envoy-generic-secret-inline-string",
        t,
        f'secrets:\n- name: oauth-hmac\n  generic_secret:\n    secret:\n      inline_string: "{t}"\n- name: oauth-client\n  generic_secret:\n    secret:\n      filename: /etc/envoy/client-secret\n',
    )
    t = d.s("prom-scrape", 44, BASE64URL)
    add(
        "prometheus-scrape-authorization-credentials",
        t,
        f"scrape_configs:\n  - job_name: federate-eu\n    scheme: https\n    metrics_path: /federate\n    authorization:\n      type: Bearer\n      credentials: {t}\n    static_configs:\n      - targets: ['prom-eu.acme.dev']\n",
    )
    t = _github_token(d, "renovate-host", "ghp_")
    add(
        "renovate-json-host-rules-token",
        t,
        json.dumps(
            {
                "$schema": "https://docs.renovatebot.com/renovate-schema.json",
                "extends": ["config:recommended"],
                "hostRules": [{"matchHost": "github.com", "token": t}],
            },
            indent=2,
        ),
    )
    t = _github_token(d, "composer-gh-oauth", "ghp_")
    add(
        "composer-json-config-github-oauth",
        t,
        json.dumps(
            {
                "name": "acme/shop",
                "require": {"php": "^8.2"},
                "config": {"github-oauth": {"github.com": t}, "sort-packages": True},
            },
            indent=4,
        ),
    )
    t = d.s("pytest-env", 40, ALNUM)
    add(
        "pyproject-pytest-env-list",
        t,
        f'[tool.pytest.ini_options]\naddopts = "-ra"\nenv = [\n    "APP_ENV=test",\n    "SEARCH_API_KEY={t}",\n]\n',
    )
    t = d.s("package-json-script", 32, HEX)
    add(
        "package-json-script-inline-env",
        t,
        json.dumps(
            {
                "name": "acme-cli",
                "scripts": {
                    "build": "tsc -p .",
                    "deploy": f"DEPLOY_KEY={t} node scripts/deploy.js",
                },
            },
            indent=2,
        ),
    )
    p = d.password("gemfile-source")
    add(
        "gemfile-source-url-credentials",
        p,
        f'# Gemfile\nsource "https://rubygems.org"\n\nsource "https://deploy:{p}@gems.acme.dev/private" do\n  gem "acme-auth", "~> 2.1"\nend\n',
    )
    t = "glpat-" + d.s("requirements-vcs", 20, BASE64URL)
    add(
        "requirements-txt-vcs-url-token",
        t,
        f"django==5.0.6\ncelery[redis]==5.4.0\ngit+https://oauth2:{t}@gitlab.acme.dev/platform/acme-sdk.git@v3.2.1#egg=acme-sdk\n",
    )
    t = d.s("goproxy", 40, ALNUM)
    add(
        "go-env-goproxy-credentials",
        t,
        f"$ go env -w GOPRIVATE=go.acme.dev\n$ go env -w GOPROXY=https://ci:{t}@athens.acme.dev,https://proxy.golang.org,direct\n$ go mod download\n",
    )
    p = d.password("vscode-sqltools")
    add(
        "vscode-settings-sqltools-connection",
        p,
        json.dumps(
            {
                "editor.formatOnSave": True,
                "sqltools.connections": [
                    {
                        "name": "local pg",
                        "driver": "PostgreSQL",
                        "server": "localhost",
                        "port": 5432,
                        "database": "app",
                        "username": "app",
                        "password": p,
                    }
                ],
            },
            indent=4,
        ),
    )
    t = d.s("jetbrains-env", 40, ALNUM)
    add(
        "jetbrains-run-configuration-env-xml",
        t,
        f'<component name="ProjectRunConfigurationManager">\n  <configuration name="api (dev)" type="PythonConfigurationType">\n    <envs>\n      <env name="PYTHONUNBUFFERED" value="1" />\n      <env name="PAYMENTS_API_TOKEN" value="{t}" />\n    </envs>\n  </configuration>\n</component>',
    )
    t = d.s("vim-openai", 48, ALNUM)
    add(
        "vimrc-global-api-key-let",
        "sk-" + t,
        f'" ~/.vimrc -- vim-ai\nlet g:vim_ai_chat = {{"options": {{"model": "gpt-4o"}}}}\nlet g:openai_api_key = \'sk-{t}\'\n',
    )
    t = d.s("emacs-gptel", 40, ALNUM)
    add(
        "emacs-init-setq-api-key",
        t,
        f';; init.el\n(use-package gptel\n  :config\n  (setq gptel-model \'claude-3-5-sonnet-20241022\n        gptel-api-key "{t}"))\n',
    )
    p = d.password("senpai")
    add(
        "senpai-scfg-password",
        p,
        f'# ~/.config/senpai/senpai.scfg\naddress irc.libera.chat\nnickname jdoe\npassword "{p}"\nhighlight jdoe jd\n',
    )
    p = d.password("himalaya")
    add(
        "himalaya-config-toml-raw-password",
        p,
        f'[accounts.work]\ndefault = true\nemail = "jdoe@acme.dev"\nbackend.type = "imap"\nbackend.host = "imap.acme.dev"\nbackend.port = 993\nbackend.login = "jdoe@acme.dev"\nbackend.auth.type = "password"\nbackend.auth.raw = "{p}"\n',
    )
    p = d.password("pg-service")
    add(
        "pg-service-conf-password",
        p,
        f"# ~/.pg_service.conf\n[reporting]\nhost=replica.db.acme.internal\nport=5432\ndbname=warehouse\nuser=analyst\npassword={p}\n",
    )
    t = d.s("s3fs-secret", 40, BASE64)
    add(
        "s3fs-passwd-file-line",
        t,
        f"$ echo AKIA{d.s('s3fs-id', 16, BASE32)}:{t} > ~/.passwd-s3fs\n$ chmod 600 ~/.passwd-s3fs\n$ s3fs acme-backups /mnt/backups -o passwd_file=~/.passwd-s3fs\n",
    )
    p = d.password("wgetrc")
    add(
        "wgetrc-user-password",
        p,
        f"# ~/.wgetrc\ntimeout = 30\ntries = 3\nuser = mirror\npassword = {p}\n",
    )


def _code(d: _Batch6Draw, add: Add) -> None:
    # --- credentials passed in code, one idiom per language ----------------------------------
    t = d.s("boto3-kwargs", 40, BASE64)
    add(
        "python-boto3-client-keyword-arguments",
        t,
        f'import boto3\n\ns3 = boto3.client(\n    "s3",\n    region_name="eu-west-1",\n    aws_access_key_id="AKIA{d.s("boto3-kwargs-id", 16, BASE32)}",\n    aws_secret_access_key="{t}",\n)\n',
    )
    t = d.hex("mock-patch-dict", 32)
    add(
        "python-mock-patch-dict-environ",
        t,
        f'@mock.patch.dict(os.environ, {{"LOOPS_API_KEY": "{t}", "APP_ENV": "test"}})\ndef test_signup_adds_contact(client, loops_mock):\n    client.post("/signup", data={{"email": "a@b.test"}})\n    assert loops_mock.called\n',
    )
    p = d.password("pytest-fixture-creds")
    add(
        "python-pytest-fixture-returns-credentials",
        p,
        f'@pytest.fixture\ndef admin_credentials():\n    # the staging admin; tests run against the shared staging stack\n    return {{"username": "qa-admin", "password": "{p}"}}\n',
    )
    t = d.s("setdefault", 40, ALNUM)
    add(
        "python-os-environ-setdefault",
        t,
        f'import os\n\nos.environ.setdefault("DJANGO_SETTINGS_MODULE", "shop.settings")\nos.environ.setdefault("ALGOLIA_ADMIN_KEY", "{t}")\n',
    )
    t = d.s("httpx-headers", 32, ALNUM)
    add(
        "python-httpx-client-headers-dict",
        t,
        f'client = httpx.AsyncClient(\n    base_url="https://search.acme.dev:8108",\n    headers={{"X-TYPESENSE-API-KEY": "{t}"}},\n    timeout=10.0,\n)\n',
    )
    t = d.s("axios-create", 40, ALNUM)
    add(
        "ts-axios-create-default-headers",
        t,
        f"export const api = axios.create({{\n  baseURL: 'https://api.shipstation.com/v2',\n  headers: {{\n    'API-Key': '{t}',\n    'Content-Type': 'application/json',\n  }},\n}});\n",
    )
    t = d.s("ts-config-object", 48, ALNUM)
    add(
        "ts-typed-config-object-literal",
        t,
        f"import type {{ ClientConfig }} from './types';\n\nexport const config: ClientConfig = {{\n  endpoint: 'https://eu.api.acme.dev',\n  tenant: 'acme-eu',\n  apiSecret: '{t}',\n  retries: 3,\n}};\n",
    )
    t = d.s("vitest-stubenv", 40, ALNUM)
    add(
        "ts-vitest-stub-env",
        t,
        f"beforeEach(() => {{\n  vi.stubEnv('RESEND_API_KEY', 're_{t}');\n  vi.stubEnv('NODE_ENV', 'test');\n}});\n",
    )
    t = d.s("nock-header", 40, ALNUM)
    add(
        "js-nock-match-header-bearer",
        t,
        f"nock('https://api.acme.dev')\n  .matchHeader('authorization', 'Bearer {t}')\n  .get('/v1/invoices')\n  .reply(200, {{ data: [] }});\n",
    )
    t = d.s("go-oauth2-config", 35, BASE64URL)
    add(
        "go-oauth2-config-struct-literal",
        "GOCSPX-" + t,
        f'var conf = &oauth2.Config{{\n\tClientID:     "{d.s("go-oauth2-id", 12, DIGITS)}-{d.s("go-oauth2-id-b", 32, LOWER_ALNUM)}.apps.googleusercontent.com",\n\tClientSecret: "GOCSPX-{t}",\n\tRedirectURL:  "http://localhost:8080/callback",\n\tScopes:       []string{{"openid", "email"}},\n\tEndpoint:     google.Endpoint,\n}}\n',
    )
    t = d.s("go-t-setenv", 40, ALNUM)
    add(
        "go-test-t-setenv",
        t,
        f'func TestUploadSignsRequest(t *testing.T) {{\n\tt.Setenv("BUNNY_STORAGE_PASSWORD", "{t}")\n\tt.Setenv("BUNNY_STORAGE_ZONE", "acme-assets")\n\tsrv := httptest.NewServer(handler(t))\n\tdefer srv.Close()\n}}\n',
    )
    t = d.s("go-option-apikey", 39, BASE64URL)
    add(
        "go-option-with-api-key",
        "AIza" + t,
        f'ctx := context.Background()\nsvc, err := youtube.NewService(ctx, option.WithAPIKey("AIza{t}"))\nif err != nil {{\n\tlog.Fatal(err)\n}}\n',
    )
    t = d.s("java-builder", 40, ALNUM)
    add(
        "java-client-builder-api-key",
        t,
        f'PaymentsClient client = PaymentsClient.builder()\n        .environment(Environment.PRODUCTION)\n        .merchantId("acme-eu")\n        .apiKey("{t}")\n        .build();\n',
    )
    p = d.password("junit-test-property")
    add(
        "java-junit-test-property-source",
        p,
        f'@SpringBootTest\n@TestPropertySource(properties = {{\n    "spring.datasource.username=sa",\n    "spring.datasource.password={p}"\n}})\nclass OrderRepositoryIT {{ }}\n',
    )
    t = _b64(d.raw("csharp-shared-key", 64))
    add(
        "csharp-storage-shared-key-credential",
        t,
        f'var credential = new StorageSharedKeyCredential("acmeassets", "{t}");\nvar service = new BlobServiceClient(new Uri("https://acmeassets.blob.core.windows.net"), credential);\n',
    )
    t = d.s("csharp-oidc", 40, BASE64URL)
    add(
        "csharp-openidconnect-options-client-secret",
        t,
        f'builder.Services.AddAuthentication()\n    .AddOpenIdConnect("keycloak", options =>\n    {{\n        options.Authority = "https://sso.acme.dev/realms/acme";\n        options.ClientId = "portal";\n        options.ClientSecret = "{t}";\n        options.ResponseType = "code";\n    }});\n',
    )
    t = d.s("ruby-aws-creds", 40, BASE64)
    add(
        "ruby-aws-credentials-new",
        t,
        f"Aws.config.update(\n  region: 'eu-central-1',\n  credentials: Aws::Credentials.new('AKIA{d.s('ruby-aws-id', 16, BASE32)}', '{t}')\n)\n",
    )
    t = d.s("rspec-let", 32, HEX)
    add(
        "ruby-rspec-let-token",
        t,
        f"RSpec.describe Billing::Client do\n  let(:api_token) {{ '{t}' }}\n  subject(:client) {{ described_class.new(token: api_token) }}\n\n  it 'lists invoices' do\n    expect(client.invoices).to be_empty\n  end\nend\n",
    )
    p = d.password("guzzle-auth")
    add(
        "php-guzzle-client-auth-option",
        p,
        f"$client = new \\GuzzleHttp\\Client([\n    'base_uri' => 'https://erp.acme.internal/api/',\n    'auth'     => ['integration', '{p}'],\n    'timeout'  => 5.0,\n]);\n",
    )
    t = d.s("rust-struct", 40, ALNUM)
    add(
        "rust-struct-literal-string-from",
        t,
        f'let settings = Settings {{\n    endpoint: "https://api.acme.dev".parse()?,\n    api_key: String::from("{t}"),\n    timeout: Duration::from_secs(10),\n}};\n',
    )
    t = d.s("kotlin-buildconfig", 40, ALNUM)
    add(
        "kotlin-gradle-buildconfigfield-escaped",
        t,
        f'android {{\n    defaultConfig {{\n        applicationId = "dev.acme.rides"\n        buildConfigField("String", "MAPS_API_KEY", "\\"{t}\\"")\n    }}\n}}\n',
    )
    t = d.s("kotlin-interceptor", 40, ALNUM)
    add(
        "kotlin-okhttp-interceptor-add-header",
        t,
        f'val client = OkHttpClient.Builder()\n    .addInterceptor {{ chain ->\n        chain.proceed(\n            chain.request().newBuilder().addHeader("X-Api-Key", "{t}").build()\n        )\n    }}\n    .build()\n',
    )
    t = d.s("swift-enum", 40, ALNUM)
    add(
        "swift-enum-static-let-secret",
        t,
        f'enum Secrets {{\n    static let revenueCatKey = "appl_{d.s("swift-rc", 27, ALNUM)}"\n    static let backendSigningSecret = "{t}"\n}}\n',
    )
    t = d.s("dart-dio", 40, ALNUM)
    add(
        "dart-dio-base-options-headers",
        t,
        f"final dio = Dio(\n  BaseOptions(\n    baseUrl: 'https://api.acme.dev',\n    headers: {{'Authorization': 'Token {t}'}},\n  ),\n);\n",
    )
    p = d.password("c-curl-userpwd")
    add(
        "c-libcurl-setopt-userpwd",
        p,
        f'curl_easy_setopt(curl, CURLOPT_URL, "ftp://ftp.acme.internal/upload/report.csv");\ncurl_easy_setopt(curl, CURLOPT_USERPWD, "uploader:{p}");\ncurl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);\n',
    )
    p = d.password("c-mysql-real-connect")
    add(
        "c-mysql-real-connect-literal",
        p,
        f'MYSQL *conn = mysql_init(NULL);\nif (!mysql_real_connect(conn, "127.0.0.1", "sensor", "{p}", "telemetry", 3306, NULL, 0)) {{\n    fprintf(stderr, "%s\\n", mysql_error(conn));\n}}\n',
    )
    t = "sv=2022-11-02&ss=b&srt=co&sp=rl&se=2025-01-01T00:00:00Z&sig=" + quote(
        _b64(d.raw("sql-scoped", 32)), safe=""
    )
    add(
        "tsql-database-scoped-credential-secret",
        t,
        f"CREATE DATABASE SCOPED CREDENTIAL BlobSas\nWITH IDENTITY = 'SHARED ACCESS SIGNATURE',\n     SECRET = '{t}';\nGO\n",
    )
    p = d.password("pg-subscription")
    add(
        "postgres-create-subscription-connection",
        p,
        f"CREATE SUBSCRIPTION orders_sub\n    CONNECTION 'host=primary.db.acme.internal port=5432 dbname=orders user=replicator password={p}'\n    PUBLICATION orders_pub;\n",
    )
    t = d.words("truffle-mnemonic", 12)
    add(
        "js-hdwalletprovider-mnemonic-literal",
        t,
        f"const HDWalletProvider = require('@truffle/hdwallet-provider');\n\nmodule.exports = {{\n  networks: {{\n    sepolia: {{\n      provider: () => new HDWalletProvider('{t}', 'https://sepolia.infura.io/v3/{d.hex('truffle-infura', 32)}'),\n      network_id: 11155111,\n    }},\n  }},\n}};\n",
    )
    t = d.s("ccxt-secret", 64, ALNUM)
    add(
        "python-ccxt-exchange-options",
        t,
        f"exchange = ccxt.binance({{\n    'apiKey': '{d.s('ccxt-key', 64, ALNUM)}',\n    'secret': '{t}',\n    'enableRateLimit': True,\n}})\n",
    )


def _ops_ci_and_commands(d: _Batch6Draw, add: Add) -> None:
    # --- compose, Kubernetes, Helm, Terraform ------------------------------------------------
    p = d.password("compose-healthcheck")
    add(
        "docker-compose-healthcheck-test-array",
        p,
        f'services:\n  db:\n    image: mariadb:11\n    healthcheck:\n      test: ["CMD", "mysqladmin", "ping", "-h", "localhost", "-uroot", "-p{p}"]\n      interval: 10s\n      retries: 5\n',
    )
    t = d.s("k8s-args", 40, ALNUM)
    add(
        "k8s-deployment-container-args-flag",
        t,
        f"    spec:\n      containers:\n        - name: exporter\n          image: ghcr.io/acme/billing-exporter:1.8.2\n          args:\n            - --listen=:9100\n            - --api-token={t}\n            - --interval=60s\n",
    )
    p = d.password("k8s-cronjob-env")
    add(
        "k8s-cronjob-env-value-literal",
        p,
        f'apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: nightly-dump\nspec:\n  schedule: "0 3 * * *"\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          containers:\n            - name: dump\n              image: postgres:16\n              env:\n                - name: PGPASSWORD\n                  value: "{p}"\n',
    )
    t = d.s("helm-extra-env", 40, ALNUM)
    add(
        "helm-values-extra-env-vars-list",
        t,
        f"# values-prod.yaml\nreplicaCount: 3\nextraEnvVars:\n  - name: LOG_LEVEL\n    value: info\n  - name: TYPESENSE_API_KEY\n    value: {t}\n",
    )
    p = d.password("tfvars")
    add(
        "terraform-tfvars-file-assignment",
        p,
        f'# prod.auto.tfvars\nregion           = "eu-west-1"\ninstance_class   = "db.r6g.large"\ndb_username      = "app"\ndb_password      = "{p}"\n',
    )
    p = d.password("tf-var-env")
    add(
        "terraform-tf-var-environment-variable",
        p,
        f"$ export TF_VAR_grafana_admin_password='{p}'\n$ terraform plan -out plan.bin\n",
    )
    p = d.password("tf-db-instance")
    add(
        "terraform-aws-db-instance-password-literal",
        p,
        f'resource "aws_db_instance" "main" {{\n  identifier        = "acme-main"\n  engine            = "postgres"\n  instance_class    = "db.t4g.medium"\n  username          = "acme"\n  password          = "{p}"\n  allocated_storage = 50\n}}\n',
    )
    # --- CI files ---------------------------------------------------------------------------
    p = d.password("gha-services")
    add(
        "github-actions-services-postgres-env",
        p,
        f"jobs:\n  test:\n    runs-on: ubuntu-latest\n    services:\n      postgres:\n        image: postgres:16\n        env:\n          POSTGRES_USER: ci\n          POSTGRES_PASSWORD: {p}\n        ports: ['5432:5432']\n",
    )
    t = d.s("gitlab-variables", 40, ALNUM)
    add(
        "gitlab-ci-variables-block-literal",
        t,
        f'variables:\n  DOCKER_DRIVER: overlay2\n  CHROMATIC_APP_CODE: chpt_{d.hex("gitlab-variables-b", 14)}\n  TRANSIFEX_API_TOKEN: "1/{t}"\n\nstages: [test, deploy]\n',
    )
    t = d.s("jenkins-withenv", 40, ALNUM)
    add(
        "jenkinsfile-withenv-list",
        t,
        f"stage('Publish') {{\n    steps {{\n        withEnv([\"ARTIFACT_REPO=https://nexus.acme.dev\", \"NEXUS_TOKEN={t}\"]) {{\n            sh './gradlew publish'\n        }}\n    }}\n}}\n",
    )
    p = d.password("azure-pipelines-vars")
    add(
        "azure-pipelines-variables-name-value",
        p,
        f"variables:\n  - name: buildConfiguration\n    value: Release\n  - name: sqlAdminPassword\n    value: '{p}'\n\nsteps:\n  - script: dotnet build --configuration $(buildConfiguration)\n",
    )
    t = d.s("travis-global", 40, ALNUM)
    add(
        "travis-yml-env-global-list",
        t,
        f"language: node_js\nnode_js: [20]\nenv:\n  global:\n    - CC_TEST_REPORTER_ID={d.hex('travis-cc', 64)}\n    - SAUCE_ACCESS_KEY={t}\n",
    )
    t = d.s("taskfile-env", 40, ALNUM)
    add(
        "taskfile-yml-env-map",
        t,
        f"version: '3'\n\nenv:\n  REGISTRY: ghcr.io/acme\n  DEPOT_TOKEN: {t}\n\ntasks:\n  build:\n    cmds:\n      - depot build -t $REGISTRY/api:latest .\n",
    )
    # --- cloud and secret-store CLIs --------------------------------------------------------
    p = d.password("ssm-put")
    add(
        "aws-ssm-put-parameter-securestring",
        p,
        f"aws ssm put-parameter \\\n  --name /prod/orders/db-password \\\n  --type SecureString \\\n  --value '{p}' \\\n  --overwrite\n",
    )
    p = d.password("secretsmanager")
    add(
        "aws-secretsmanager-create-secret-string",
        p,
        f'aws secretsmanager create-secret --name prod/reporting/redshift \\\n    --secret-string \'{{"username":"reporter","password":"{p}"}}\'\n',
    )
    t = _b64(d.raw("az-keyvault", 32))
    add(
        "az-keyvault-secret-set-value",
        t,
        f"# rotate the signing key (old one stays enabled until tokens expire)\naz keyvault secret set --vault-name kv-acme-prod --name jwt-signing-key --value '{t}'\n",
    )
    p = d.password("gcloud-secrets")
    add(
        "gcloud-secrets-create-from-echo",
        p,
        f'echo -n "{p}" | gcloud secrets create smtp-password \\\n    --replication-policy=automatic --data-file=-\n',
    )
    t = "whsec_" + d.s("fly-secrets", 32, ALNUM)
    add(
        "fly-secrets-set-command",
        t,
        f"$ fly secrets set STRIPE_WEBHOOK_SECRET={t} -a acme-api\nRelease v42 created\n",
    )
    p = d.password("heroku-config-set")
    add(
        "heroku-config-set-command",
        p,
        f"$ heroku config:set SMTP_PASSWORD='{p}' --app acme-staging\nSetting SMTP_PASSWORD and restarting acme-staging... done, v87\n",
    )
    t = d.s("netlify-env-set", 40, ALNUM)
    add(
        "netlify-env-set-command",
        t,
        f"$ netlify link --name acme-docs\n$ netlify env:set CONTENTSTACK_DELIVERY_TOKEN cs{t} --context production\n",
    )
    t = d.hex("firebase-config", 32)
    add(
        "firebase-functions-config-set",
        t,
        f'firebase functions:config:set slack.signing_secret="{t}" slack.channel="#orders"\nfirebase deploy --only functions\n',
    )
    p = d.password("op-item-create")
    add(
        "onepassword-cli-item-create-assignment",
        p,
        f"op item create --category=login --title='Staging Postgres' --vault=Engineering \\\n    --url=postgres://db.staging.acme.internal \\\n    username=app 'password={p}'\n",
    )
    t = _b64(d.raw("kubectl-set-env", 24))
    add(
        "kubectl-set-env-deployment",
        t,
        f'$ kubectl config use-context prod-eu\nSwitched to context "prod-eu".\n$ kubectl -n payments set env deployment/api ENCRYPTION_KEY={t} LOG_LEVEL=info\n',
    )
    # --- HTTP clients and their flags -------------------------------------------------------
    t = d.s("curl-sigv4", 40, BASE64)
    add(
        "curl-aws-sigv4-user-flag",
        t,
        f'curl --aws-sigv4 "aws:amz:eu-west-1:execute-api" \\\n     --user "AKIA{d.s("curl-sigv4-id", 16, BASE32)}:{t}" \\\n     https://abc123.execute-api.eu-west-1.amazonaws.com/prod/orders\n',
    )
    p = d.password("curl-urlencode")
    add(
        "curl-data-urlencode-password",
        p,
        f"curl -X POST https://sso.acme.dev/realms/acme/protocol/openid-connect/token \\\n  -d grant_type=password -d client_id=cli -d username=jdoe \\\n  --data-urlencode 'password={p}'\n",
    )
    t = d.s("curl-json-body", 40, ALNUM)
    add(
        "curl-json-body-api-key-field",
        t,
        f'curl -s https://api.acme-geo.io/v2/geocode \\\n  -H "Content-Type: application/json" \\\n  -d \'{{"api_key": "{t}", "query": "10 Downing St, London"}}\'\n',
    )
    p = d.password("httpie-auth")
    add(
        "httpie-auth-flag-user-colon-pass",
        p,
        f"# list what is in the private registry\nhttp -a admin:{p} GET https://registry.acme.dev/v2/_catalog\n",
    )
    t = d.s("httpie-query", 32, HEX)
    add(
        "httpie-query-param-double-equals",
        t,
        f"$ http GET https://api.themoviedb.org/3/movie/550 api_key=={t} language==en-US\nHTTP/1.1 200 OK\nContent-Type: application/json;charset=utf-8\n",
    )
    t = d.s("httpie-bearer", 48, ALNUM)
    add(
        "httpie-auth-type-bearer",
        t,
        f"# trigger a deploy from the laptop while CI is down\nhttps --auth-type=bearer --auth={t} POST api.acme.dev/v1/deploys ref=main\n",
    )
    p = d.password("wget-ftp")
    add(
        "wget-ftp-password-flag",
        p,
        f"#!/bin/sh\n# nightly mirror of the release archive\ncd /srv/mirror || exit 1\nwget --ftp-user=mirror --ftp-password='{p}' -r -np ftp://ftp.acme.internal/pub/releases/\n",
    )
    t = d.s("wget-header", 40, ALNUM)
    add(
        "wget-header-authorization-token",
        t,
        f'# restore drill, step 1: fetch the latest dump\nwget --header="Authorization: Token {t}" -O dump.sql.gz https://backups.acme.dev/latest\n',
    )
    p = d.password("aria2")
    add(
        "aria2c-http-passwd-flag",
        p,
        f"$ cd ~/Downloads\n$ aria2c -x8 --http-user=media --http-passwd='{p}' https://media.acme.dev/exports/2024-05.tar\n",
    )
    # --- database clients and URLs ----------------------------------------------------------
    p = d.password("cqlsh")
    add(
        "cqlsh-user-password-flags",
        p,
        f"$ kubectl -n db exec -it cassandra-0 -- bash\nroot@cassandra-0:/# cqlsh cassandra-0.cassandra.db.svc 9042 -u cassandra -p '{p}' -e 'DESCRIBE KEYSPACES'\n",
    )
    p = d.password("clickhouse-client")
    add(
        "clickhouse-client-password-flag",
        p,
        f"$ clickhouse-client --host ch.acme.internal --secure --user analyst --password '{p}' --query 'SELECT count() FROM events'\n48210337\n",
    )
    p = d.password("bcp")
    add(
        "sqlserver-bcp-user-password-flags",
        p,
        f'REM export for the finance team, runs from Task Scheduler\nbcp dbo.Orders out orders.dat -S sql01.acme.internal -d Shop -U etl -P "{p}" -c -t,\n',
    )
    p = d.password("sqlpackage")
    add(
        "sqlpackage-source-password-argument",
        p,
        f'# pipeline step: export a bacpac before the schema migration\nSqlPackage /Action:Export /SourceServerName:tcp:acme.database.windows.net /SourceDatabaseName:Shop /SourceUser:dbadmin /SourcePassword:"{p}" /TargetFile:shop.bacpac\n',
    )
    p = d.password("kcat")
    add(
        "kcat-sasl-password-property",
        p,
        f"# peek at the last 5 messages on orders\nkcat -b pkc-4r087.europe-west3.gcp.confluent.cloud:9092 -X security.protocol=SASL_SSL -X sasl.mechanisms=PLAIN -X sasl.username={d.s('kcat-user', 16, UPPER_ALNUM)} -X sasl.password='{p}' -t orders -C -c 5\n",
    )
    p = d.password("twine")
    add(
        "twine-upload-password-flag",
        p,
        f"$ python -m build\nSuccessfully built acme_sdk-3.2.1.tar.gz and acme_sdk-3.2.1-py3-none-any.whl\n$ twine upload --repository-url https://nexus.acme.dev/repository/pypi-internal/ -u release -p '{p}' dist/*\n",
    )
    t = "cio" + d.s("cargo-login", 32, ALNUM)
    add(
        "cargo-login-positional-token",
        t,
        f"$ cargo login --registry acme {t}\n       Login token for `acme` saved\n",
    )
    p = d.password("az-login-sp")
    add(
        "az-login-service-principal-password",
        p,
        f"#!/usr/bin/env bash\nset -euo pipefail\naz login --service-principal -u {d.uuid('az-login-app')} -p '{p}' --tenant {d.uuid('az-login-tenant')}\n",
    )
    t = d.s("aws-configure-set", 40, BASE64)
    add(
        "aws-configure-set-secret-key",
        t,
        f"aws configure set aws_access_key_id AKIA{d.s('aws-configure-id', 16, BASE32)} --profile ci\naws configure set aws_secret_access_key {t} --profile ci\n",
    )
    p = d.password("npgsql")
    add(
        "npgsql-connection-string",
        p,
        f'"ConnectionStrings": {{\n  "Orders": "Host=pg.acme.internal;Port=5432;Database=orders;Username=orders_app;Password={p};SSL Mode=Require"\n}}',
    )
    p = d.password("ecto-url")
    add(
        "elixir-ecto-url",
        p,
        f'config :acme, Acme.Repo,\n  url: "ecto://acme:{p}@db.acme.internal/acme_prod",\n  pool_size: 10\n',
    )
    p = d.password("prisma-sqlserver")
    add(
        "prisma-sqlserver-semicolon-url",
        p,
        f'# .env (prisma)\nDATABASE_URL="sqlserver://sql01.acme.internal:1433;database=shop;user=shop_app;password={p};encrypt=true;trustServerCertificate=true"\n',
    )
    p = d.password("clickhouse-dsn")
    add(
        "clickhouse-go-dsn-query-password",
        p,
        f'// events/store.go\nconn, err := sql.Open("clickhouse", "clickhouse://ch.acme.internal:9000/events?username=writer&password={p}&dial_timeout=5s")\n',
    )
    p = d.password("mongo-multihost")
    add(
        "mongodb-multi-host-replica-set-uri",
        p,
        f"# k8s/overlays/prod/app.env\nNODE_ENV=production\nMONGO_URL=mongodb://app:{p}@mongo-0.mongo:27017,mongo-1.mongo:27017,mongo-2.mongo:27017/shop?replicaSet=rs0&authSource=admin\n",
    )
    p = d.password("snowflake-url")
    add(
        "snowflake-sqlalchemy-url",
        p,
        f"from sqlalchemy import create_engine\n\nengine = create_engine('snowflake://LOADER:{p}@acme-eu.west-europe.azure/ANALYTICS/RAW?warehouse=LOAD_WH&role=LOADER')\n",
    )
    t = "dapi" + d.hex("databricks-url", 32)
    add(
        "databricks-sqlalchemy-token-url",
        t,
        f'# notebooks/settings.py\nDATABRICKS_URL = "databricks://token:{t}@adb-{d.s("dbx-ws", 16, DIGITS)}.3.azuredatabricks.net?http_path=/sql/1.0/warehouses/{d.hex("dbx-wh", 16)}&catalog=main"\n',
    )
    p = d.password("trino-url")
    add(
        "trino-url-user-password",
        p,
        f"$ docker compose exec superset bash\n$ superset set-database-uri -d lake -u 'trino://analyst:{p}@trino.acme.internal:443/hive'\n",
    )
    p = d.password("mqtt-url")
    add(
        "mqtt-url-user-password",
        p,
        f"# Zigbee2MQTT configuration.yaml\nmqtt:\n  base_topic: zigbee2mqtt\n  server: mqtts://z2m:{p}@mqtt.home.arpa:8883\n",
    )
    p = d.password("nats-url")
    add(
        "nats-url-user-password",
        p,
        f'// connect to the orders bus\nnc, err := nats.Connect("nats://orders:{p}@nats.acme.internal:4222")\n',
    )
    p = d.password("smb-url")
    add(
        "smb-url-in-file-manager",
        p,
        f"Finder > Go > Connect to Server (Cmd+K)\nConnect to server: smb://ACME;jdoe:{p}@fs01.acme.local/projects\n",
    )


def _logs_chat_and_notes(d: _Batch6Draw, add: Add) -> None:
    # --- logs, terminal output and stack traces that print a config -------------------------
    p = d.password("log-dict-repr")
    add(
        "python-log-line-dict-repr",
        p,
        f"2024-05-14 09:12:44,299 INFO [app] starting worker pid=3131\n2024-05-14 09:12:44,301 DEBUG [db.pool] connecting with {{'host': 'pg.acme.internal', 'port': 5432, 'user': 'orders', 'password': '{p}', 'sslmode': 'require'}}\n",
    )
    p = d.password("java-tostring")
    add(
        "java-config-tostring-in-log",
        p,
        f"2024-05-14T09:13:01.904Z  INFO 1 --- [main] o.s.b.StartupInfoLogger : Starting OrderService v2.4.1 using Java 21\n2024-05-14T09:13:02.118Z  INFO 1 --- [main] c.a.o.config.DataSourceConfig : Using DataSourceSettings{{url='jdbc:postgresql://pg:5432/orders', username='orders', password='{p}', maxPoolSize=20}}\n",
    )
    p = d.password("actuator-env")
    add(
        "spring-actuator-env-json-property",
        p,
        json.dumps(
            {
                "activeProfiles": ["prod"],
                "propertySources": [
                    {
                        "name": "Config resource 'class path resource [application-prod.yml]'",
                        "properties": {
                            "spring.mail.password": {
                                "value": p,
                                "origin": "class path resource [application-prod.yml] - 14:17",
                            }
                        },
                    }
                ],
            },
            indent=2,
        ),
    )
    p = d.password("pytest-locals")
    add(
        "pytest-failure-showlocals-password",
        p,
        f"    def test_login(client):\n        resp = client.post('/login', data={{'user': user, 'password': password}})\n>       assert resp.status_code == 302\nE       assert 401 == 302\n\nclient     = <FlaskClient <Flask 'acme'>>\npassword   = '{p}'\nuser       = 'qa-admin'\n\ntests/test_auth.py:41: AssertionError\n",
    )
    t = "pypi-AgEIcHlwaS5vcmc" + d.s("buildkit-log", 60, BASE64URL)
    add(
        "docker-buildkit-log-run-line",
        t,
        f"#7 [builder 3/6] RUN pip install --index-url https://__token__:{t}@pypi.acme.dev/simple -r requirements.txt\n#7 0.612 Looking in indexes: https://__token__:****@pypi.acme.dev/simple\n",
    )
    t = d.s("gha-run-log", 40, ALNUM)
    add(
        "github-actions-run-log-header-echo",
        t,
        f'2024-05-14T10:01:12.5523401Z ##[group]Run curl -fsS -H "X-Api-Key: {t}" https://status.acme.dev/api/deploys\n2024-05-14T10:01:12.5524012Z shell: /usr/bin/bash -e {{0}}\n2024-05-14T10:01:12.5524188Z ##[endgroup]\n',
    )
    p = d.password("tf-plan")
    add(
        "terraform-plan-output-attribute",
        p,
        f'  # azurerm_mssql_server.main will be created\n  + resource "azurerm_mssql_server" "main" {{\n      + administrator_login          = "sqladmin"\n      + administrator_login_password = "{p}"\n      + location                     = "westeurope"\n    }}\n',
    )
    p = d.password("ansible-vvv")
    add(
        "ansible-verbose-task-result-json",
        p,
        f'ok: [db01] => {{\n    "changed": false,\n    "invocation": {{\n        "module_args": {{\n            "login_host": "localhost",\n            "login_password": "{p}",\n            "login_user": "root"\n        }}\n    }}\n}}\n',
    )
    t = d.s("printenv", 40, ALNUM)
    add(
        "printenv-output-listing",
        t,
        f"$ printenv | sort\nHOME=/home/app\nHOSTNAME=api-7d9c6b5f8-x2kqp\nLANG=C.UTF-8\nPATH=/usr/local/bin:/usr/bin:/bin\nPOSTMARK_TOKEN={t}\nPWD=/srv/app\n",
    )
    p = d.password("ps-aux")
    add(
        "ps-aux-command-line-password",
        p,
        f"$ ps aux | grep backup\nroot      48211  2.1  0.3 112344 25612 ?  S    03:00   0:04 /usr/bin/mysqldump --single-transaction -u backup --password={p} shop\nroot      48302  0.0  0.0   6432   720 pts/0    S+   03:01   0:00 grep backup\n",
    )
    p = d.password("bash-history")
    add(
        "bash-history-numbered-line",
        p,
        f"$ history | tail -4\n 1041  cd /srv/app\n 1042  mongosh 'mongodb://admin:{p}@localhost:27017/admin'\n 1043  exit\n 1044  history | tail -4\n",
    )
    p = d.password("strace")
    n = 19 + len(str(len(p))) + len(p)
    add(
        "strace-write-auth-command",
        p,
        f'connect(3, {{sa_family=AF_INET, sin_port=htons(6379), sin_addr=inet_addr("10.0.3.7")}}, 16) = 0\nwrite(3, "*2\\r\\n$4\\r\\nAUTH\\r\\n${len(p)}\\r\\n{p}\\r\\n", {n}) = {n}\nread(3, "+OK\\r\\n", 16384)             = 5\n',
    )
    p = d.password("redis-monitor")
    add(
        "redis-monitor-auth-line",
        p,
        f'1715680000.123456 [0 10.0.3.12:51234] "AUTH" "cache-writer" "{p}"\n1715680000.124001 [0 10.0.3.12:51234] "GET" "session:9f3a"\n',
    )
    p = d.password("postgres-log")
    add(
        "postgres-server-log-statement",
        p,
        f"2024-05-14 11:02:33.401 UTC [5531] postgres@orders LOG:  connection authorized: user=postgres database=orders\n2024-05-14 11:02:33.412 UTC [5531] postgres@orders LOG:  statement: CREATE ROLE reporting LOGIN PASSWORD '{p}';\n",
    )
    # --- chat with an assistant --------------------------------------------------------------
    t = "sk-ant-api03-" + d.s("chat-backticks", 93, BASE64URL) + "AA"
    add(
        "chat-message-token-in-backticks",
        t,
        f"ok the script still says 401. I'm calling it with `{t}` -- is the header name wrong or is it the model id?\n\nthe request is the one from the quickstart, I only changed the prompt.\n",
    )
    t = d.s("chat-alone", 40, ALNUM)
    add(
        "chat-message-token-alone-on-line",
        t,
        f"here you go, the new one from the dashboard:\n\n{t}\n\ncan you put it in the config and rerun the sync?\n",
    )
    t = d.s("chat-code-block", 36, LOWER_ALNUM)
    add(
        "chat-message-fenced-code-block-token",
        t,
        f"This is what I have in the cron job, it keeps failing:\n\n```\ncurl -s https://api.uptimerobot.example/v2/getMonitors -d api_key=u{t}\n```\n\nAny idea why?\n",
    )
    p = d.password("chat-use-this")
    add(
        "chat-message-use-this-password",
        p,
        f"the staging box is 10.20.0.14, user deploy. password is {p} (I'll rotate it after). Can you write me an ansible inventory for it?\n\nit's Ubuntu 22.04, python3 is there.\n",
    )
    p = d.password("chat-german")
    add(
        "chat-message-german-passwort-ist",
        p,
        f"Kannst du mir helfen, den SFTP-Upload zu automatisieren? Server ist sftp.kunde.de, Benutzer upload_acme, das Passwort ist {p}\n\n\nDie Dateien liegen lokal unter ./export/*.csv und sollen nachts um 2 Uhr hoch.\n",
    )
    t = (
        "xoxb-"
        + d.s("chat-err-a", 12, DIGITS)
        + "-"
        + d.s("chat-err-b", 13, DIGITS)
        + "-"
        + d.s("chat-err-c", 24, ALNUM)
    )
    add(
        "chat-message-pasted-error-with-token",
        t,
        f"getting this when the bot starts, what does it mean?\n\n    slack_sdk.errors.SlackApiError: The request to the Slack API failed. (url: https://slack.com/api/auth.test)\n    token used: {t}\n    The server responded with: {{'ok': False, 'error': 'invalid_auth'}}\n",
    )
    # --- commits, TODOs and notes -----------------------------------------------------------
    t = d.s("commit-msg", 40, ALNUM)
    add(
        "commit-message-body-new-key",
        t,
        f"commit 3f1c2a9 (HEAD -> fix/geo)\nAuthor: J. Doe <jdoe@acme.dev>\n\n    fix(geo): switch to the new geocoder key\n\n    The old one hit its quota. New key is {t}, also set in\n    the staging env. Remove this note before merging.\n",
    )
    p = d.password("fixme-js")
    add(
        "js-fixme-comment-remove-before-merge",
        p,
        f"// FIXME remove before merge -- temp creds for the demo tenant: demo@acme.dev / {p}\nexport async function seedDemo() {{\n  await login(process.env.DEMO_USER, process.env.DEMO_PASS);\n}}\n",
    )
    t = d.s("html-todo", 40, ALNUM)
    add(
        "html-comment-todo-with-key",
        t,
        f'<!-- TODO(jdoe): move this to the server, key is {t} -->\n<script src="https://maps.acme-geo.io/js?v=3&callback=initMap" async></script>\n',
    )
    p = d.password("markdown-runbook")
    add(
        "markdown-runbook-bullet-credentials",
        p,
        f"## Break-glass access (prod)\n\n- Console: https://console.acme.dev\n- User: `breakglass`\n- Password: `{p}`\n- Rotate after every use and post in #sec-ops.\n",
    )
    t = d.s("obsidian-note", 40, ALNUM)
    add(
        "notes-app-plain-line-after-heading",
        t,
        f"# Home lab\n\nunifi controller 192.168.1.2\nsynology api\n{t}\nplex claim expires in 4 min, don't bother\n",
    )


def _provider_tokens(d: _Batch6Draw, add: Add) -> None:
    # --- newer providers' documented formats ------------------------------------------------
    t = _azure_devops_pat(d, "azdo-84")
    add(
        "azure-devops-84-char-pat-basic-git",
        t,
        f"# clone with a PAT when the credential manager is not installed\ngit -c http.extraHeader=\"Authorization: Basic $(printf ':%s' '{t}' | base64 -w0)\" clone https://dev.azure.com/acme/platform/_git/infra\n",
    )
    t = "ABSK" + _b64(
        b"BedrockAPIKey-"
        + d.s("bedrock-id", 4, LOWER_ALNUM).encode()
        + b"-at-"
        + d.s("bedrock-acct", 12, DIGITS).encode()
        + b":"
        + d.raw("bedrock", 30)
    )
    add(
        "aws-bedrock-api-key-absk",
        t,
        f"export AWS_BEARER_TOKEN_BEDROCK={t}\naws bedrock-runtime converse --model-id anthropic.claude-3-haiku-20240307-v1:0 --messages file://msg.json\n",
    )
    t = "napi_" + d.s("neon", 64, LOWER_ALNUM)
    add(
        "neon-api-key-bearer",
        t,
        f"curl 'https://console.neon.tech/api/v2/projects' \\\n  -H 'Accept: application/json' \\\n  -H 'Authorization: Bearer {t}'\n",
    )
    t = "xau_" + d.s("xata", 40, ALNUM)
    add(
        "xata-api-key-xatarc",
        t,
        f"# .env\nXATA_API_KEY={t}\nXATA_BRANCH=main\n# workspace: acme-{d.s('xata-ws', 6, LOWER_ALNUM)}\n",
    )
    t = "standard_" + d.hex("appwrite", 256)
    add(
        "appwrite-server-sdk-set-key",
        t,
        f"const client = new sdk.Client()\n    .setEndpoint('https://cloud.appwrite.io/v1')\n    .setProject('{d.hex('appwrite-project', 20)}')\n    .setKey('{t}');\n",
    )
    t = "e2b_" + d.hex("e2b", 40)
    add(
        "e2b-api-key-sandbox",
        t,
        f'from e2b_code_interpreter import Sandbox\n\nsbx = Sandbox(api_key="{t}")\nexecution = sbx.run_code("print(1 + 1)")\n',
    )
    t = "bb_live_" + d.s("browserbase", 27, BASE64URL)
    add(
        "browserbase-api-key-connect-url",
        t,
        f"const browser = await chromium.connectOverCDP(\n  `wss://connect.browserbase.com?apiKey={t}`\n);\n",
    )
    t = "llx-" + d.s("llamacloud", 48, ALNUM)
    add(
        "llamacloud-parse-api-key",
        t,
        f'parser = LlamaParse(\n    api_key="{t}",\n    result_type="markdown",\n)\n',
    )
    t = "fc-" + d.hex("firecrawl", 32)
    add(
        "firecrawl-app-api-key",
        t,
        f"from firecrawl import FirecrawlApp\n\napp = FirecrawlApp(api_key='{t}')\npage = app.scrape_url('https://acme.dev/pricing')\n",
    )
    t = "pa-" + d.s("voyage", 43, BASE64URL)
    add(
        "voyage-ai-client-api-key",
        t,
        f'vo = voyageai.Client(api_key="{t}")\nresult = vo.embed(texts, model="voyage-3", input_type="document")\n',
    )
    t = d.uuid("fal-id") + ":" + d.hex("fal", 32)
    add(
        "fal-key-id-colon-secret",
        t,
        f"FAL_KEY={t}\npython generate_thumbnails.py --model fal-ai/flux/schnell\n",
    )
    t = (
        "prod:acme-"
        + d.s("convex-name", 6, LOWER)
        + "-"
        + d.s("convex-name-b", 6, LOWER)
        + "-"
        + d.s("convex-n", 3, DIGITS)
        + "|"
        + d.s("convex", 80, BASE64URL)
    )
    add(
        "convex-deploy-key-build-command",
        t,
        f"# Vercel > Settings > Environment Variables (Production)\nCONVEX_DEPLOY_KEY='{t}'\n# build command: npx convex deploy --cmd 'npm run build'\n",
    )
    t = "polar_oat_" + d.s("polar", 43, ALNUM)
    add(
        "polar-organization-access-token",
        t,
        f'polar = Polar(access_token="{t}", server="production")\ncheckout = polar.checkouts.create(products=[product_id])\n',
    )
    claims = json.dumps(
        {
            "o": d.s("glc-o", 7, DIGITS),
            "n": "stack-acme-write",
            "k": d.s("glc-k", 24, ALNUM),
            "m": {"r": "prod-eu-west-2"},
        },
        separators=(",", ":"),
    )
    t = "glc_" + _b64(claims).rstrip("=")
    add(
        "grafana-cloud-access-policy-token",
        t,
        f'# alloy config.alloy\nprometheus.remote_write "cloud" {{\n  endpoint {{\n    url = "https://prometheus-prod-24-prod-eu-west-2.grafana.net/api/prom/push"\n    basic_auth {{\n      username = "{d.s("glc-user", 7, DIGITS)}"\n      password = "{t}"\n    }}\n  }}\n}}\n',
    )
    t = "glft-" + d.s("gitlab-feed", 20, BASE64URL)
    add(
        "gitlab-feed-token-calendar-url",
        t,
        f"Subscribe to your issues in Thunderbird: https://gitlab.acme.dev/dashboard/issues.ics?assignee_username=jdoe&feed_token={t}&state=opened\n\n(Reset the feed token in Preferences > Access tokens if it leaks.)\n",
    )
    t = "glcbt-64_" + d.s("gitlab-job", 20, BASE64URL)
    add(
        "gitlab-ci-job-token-clone-url",
        t,
        f"$ git clone https://gitlab-ci-token:{t}@gitlab.acme.dev/platform/shared-ci.git\nCloning into 'shared-ci'...\n",
    )
    t = d.s("webex-a", 64, ALNUM) + "_" + d.s("webex-b", 4, UPPER_ALNUM) + "_" + d.uuid("webex-c")
    add(
        "webex-bot-access-token",
        t,
        f"const webex = require('webex-node-bot-framework');\nconst framework = new Framework({{ token: '{t}', webhookUrl: 'https://bot.acme.dev/webex' }});\n",
    )
    t = "fio-u-" + d.s("frameio", 64, BASE64URL)
    add(
        "frameio-developer-token",
        t,
        f'# check that the token works before wiring up the upload script\ncurl -H "Authorization: Bearer {t}" https://api.frame.io/v2/me\n',
    )
    t = "eyJ" + d.s("prisma-accel", 180, BASE64URL)
    add(
        "prisma-accelerate-api-key-url",
        t,
        f'datasource db {{\n  provider  = "postgresql"\n  url       = "prisma://accelerate.prisma-data.net/?api_key={t}"\n  directUrl = env("DIRECT_DATABASE_URL")\n}}\n',
    )
    t = d.s("hasura-admin", 64, ALNUM)
    add(
        "hasura-admin-secret-header-cli",
        t,
        f"$ cd hasura/\n$ hasura metadata apply --endpoint https://graphql.acme.dev --admin-secret {t}\nINFO Metadata applied\n",
    )
    t = "sk_prod_" + d.s("liveblocks", 64, BASE64URL)
    add(
        "liveblocks-node-secret-key",
        t,
        f"// app/api/liveblocks-auth/route.ts\nconst liveblocks = new Liveblocks({{\n  secret: '{t}',\n}});\n",
    )
    t = "sig_" + d.s("qstash-sig", 28, ALNUM)
    add(
        "upstash-qstash-signing-keys",
        t,
        f'QSTASH_URL="https://qstash.upstash.io"\nQSTASH_TOKEN="ey{d.s("qstash-token", 70, BASE64URL)}"\nQSTASH_CURRENT_SIGNING_KEY="{t}"\nQSTASH_NEXT_SIGNING_KEY="sig_{d.s("qstash-next", 28, ALNUM)}"\n',
    )
    t = "pscale_pw_" + d.s("pscale-pw", 43, BASE64URL)
    add(
        "planetscale-password-mysql-url",
        t,
        f"# .env generated by `pscale password create shop main app-prod`\nDATABASE_URL='mysql://{d.s('pscale-user', 12, LOWER_ALNUM)}:{t}@aws.connect.psdb.cloud/shop?sslaccept=strict'\n",
    )
    rng = d.rng("wp-app-password")
    t = " ".join("".join(rng.choice(ALNUM) for _ in range(4)) for _ in range(6))
    add(
        "wordpress-application-password-spaced",
        t,
        f'# Users > Profile > Application Passwords > "n8n"\ncurl --user "editor:{t}" https://blog.acme.dev/wp-json/wp/v2/posts?status=draft\n',
    )
    t = d.s("azure-func-code", 54, BASE64URL) + "=="
    add(
        "azure-functions-code-query-key",
        t,
        f'POST https://acme-orders.azurewebsites.net/api/ProcessOrder?code={t}\nContent-Type: application/json\n\n{{"orderId": 1842}}\n',
    )
    t = _b64(d.raw("cosmos", 64))
    add(
        "azure-cosmosdb-account-key-connection-string",
        t,
        f'"CosmosDb": {{\n  "ConnectionString": "AccountEndpoint=https://acme-orders.documents.azure.com:443/;AccountKey={t};",\n  "Database": "orders"\n}}',
    )
    t = d.s("alpaca-secret", 40, ALNUM)
    add(
        "alpaca-key-id-secret-headers",
        t,
        f'curl -H "APCA-API-KEY-ID: PK{d.s("alpaca-id", 18, UPPER_ALNUM)}" \\\n     -H "APCA-API-SECRET-KEY: {t}" \\\n     https://paper-api.alpaca.markets/v2/account\n',
    )
    t = (
        "ATCTT3xFfGN0"
        + d.s("bb-repo-token", 180, BASE64URL)
        + "="
        + d.hex("bb-repo-tail", 8).upper()
    )
    add(
        "bitbucket-repository-access-token-bearer",
        t,
        f'pipelines:\n  default:\n    - step:\n        script:\n          - curl -X POST -H "Authorization: Bearer {t}" https://api.bitbucket.org/2.0/repositories/acme/api/pullrequests\n',
    )
    t = "v1.0-" + d.hex("cf-origin-ca-a", 24) + "-" + d.hex("cf-origin-ca-b", 146)
    add(
        "cloudflare-origin-ca-key-header",
        t,
        f'curl https://api.cloudflare.com/client/v4/certificates \\\n  -H "X-Auth-User-Service-Key: {t}" \\\n  --data \'{{"hostnames":["acme.dev"],"requested_validity":5475,"request_type":"origin-rsa","csr":"..."}}\'\n',
    )
    t = d.hex("cf-global", 37)
    add(
        "cloudflare-global-api-key-x-auth-key",
        t,
        f'curl -X GET "https://api.cloudflare.com/client/v4/zones" \\\n     -H "X-Auth-Email: jdoe@acme.dev" \\\n     -H "X-Auth-Key: {t}"\n',
    )
    t = "rootly_" + d.hex("rootly", 64)
    add(
        "rootly-api-token-terraform-provider",
        t,
        f'provider "rootly" {{\n  api_host  = "https://api.rootly.com"\n  api_token = "{t}"\n}}\n',
    )
    t = "user:" + d.hex("dagster", 32)
    add(
        "dagster-cloud-user-token-yaml",
        t,
        f"# ~/.dagster_cloud_cli/config\norganization: acme\ndefault_deployment: prod\nuser_token: {t}\n",
    )
    t = "rpa_" + d.s("runpod", 40, UPPER_ALNUM)
    add(
        "runpod-api-key-graphql-query",
        t,
        f"curl --request POST --header 'content-type: application/json' \\\n  --url 'https://api.runpod.io/graphql?api_key={t}' \\\n  --data '{{\"query\": \"query {{ myself {{ pods {{ id }} }} }}\"}}'\n",
    )
    t = "pts_" + d.s("pangea", 32, LOWER_ALNUM)
    add(
        "pangea-service-token-config",
        t,
        f'config = PangeaConfig(domain="aws.us.pangea.cloud")\nredact = Redact("{t}", config=config)\n',
    )
    body = d.hex("zuplo", 32)
    t = "zpka_" + body + "_" + f"{zlib.crc32(body.encode()):08x}"
    add(
        "zuplo-api-key-checksummed",
        t,
        f"curl https://acme-main-4f2a.zuplo.app/v1/orders \\\n  --header 'Authorization: Bearer {t}'\n",
    )
    t = d.s("livekit-secret", 43, ALNUM)
    add(
        "livekit-api-key-secret-yaml",
        t,
        f"# livekit.yaml\nport: 7880\nrtc:\n  tcp_port: 7881\nkeys:\n  API{d.s('livekit-key', 12, ALNUM)}: {t}\n",
    )
    t = "xoxe.xoxp-1-" + d.s("slack-config", 146, ALNUM)
    add(
        "slack-config-refresh-token-cli",
        t,
        f"$ slack auth token --refresh-token {t}\nYour new config token is ready (expires in 12 hours).\n",
    )
    t = d.s("etherscan", 34, UPPER_ALNUM)
    add(
        "hardhat-verify-etherscan-api-key",
        t,
        f"etherscan: {{\n  apiKey: {{\n    mainnet: '{t}',\n    sepolia: '{d.s('etherscan-sep', 34, UPPER_ALNUM)}',\n  }},\n}},\n",
    )
    t = _b64(d.raw("kraken-private", 64))
    add(
        "dotenv-kraken-private-key",
        t,
        f"KRAKEN_API_KEY={_b64(d.raw('kraken-public', 42))}\nKRAKEN_PRIVATE_KEY={t}\n",
    )


def _keys_and_seeds(d: _Batch6Draw, add: Add) -> None:
    # --- wallets, key files and recovery keys -------------------------------------------------
    t = d.hex("eth-keystore", 64)
    add(
        "ethereum-keystore-v3-json-ciphertext",
        t,
        "$ cat ~/.ethereum/keystore/UTC--2024-05-14T10-41-07.118Z--wallet.json\n"
        + json.dumps(
            {
                "address": d.hex("eth-keystore-addr", 40),
                "crypto": {
                    "cipher": "aes-128-ctr",
                    "ciphertext": t,
                    "cipherparams": {"iv": d.hex("eth-keystore-iv", 32)},
                    "kdf": "scrypt",
                    "kdfparams": {
                        "dklen": 32,
                        "n": 262144,
                        "p": 1,
                        "r": 8,
                        "salt": d.hex("eth-keystore-salt", 64),
                    },
                    "mac": d.hex("eth-keystore-mac", 64),
                },
                "id": d.uuid("eth-keystore-id"),
                "version": 3,
            }
        ),
    )
    payload = (
        bytes.fromhex("04b2430c")
        + b"\x00" * 9
        + d.raw("electrum-chain", 32)
        + b"\x00"
        + d.raw("electrum-key", 32)
    )
    t = _base58check(payload)
    add(
        "electrum-wallet-file-keystore-zprv",
        t,
        json.dumps(
            {
                "keystore": {
                    "derivation": "m/0h",
                    "root_fingerprint": d.hex("electrum-fp", 8),
                    "type": "bip32",
                    "xprv": t,
                    "xpub": "zpub6" + d.s("electrum-pub", 106, BASE58),
                },
                "seed_type": "segwit",
                "wallet_type": "standard",
            },
            indent=4,
        ),
    )
    raw = d.raw("tendermint-armor", 72)
    body = _b64(raw)
    add(
        "cosmos-tendermint-armored-private-key",
        body,
        f"$ gaiad keys export validator\nEnter passphrase to encrypt the exported key:\n-----BEGIN TENDERMINT PRIVATE KEY-----\nkdf: bcrypt\nsalt: {d.hex('tendermint-salt', 32).upper()}\ntype: secp256k1\n\n{body}\n{_crc24(raw)}\n-----END TENDERMINT PRIVATE KEY-----\n",
    )
    t = d.hex("cosmos-unarmored", 64)
    add(
        "cosmos-keys-export-unarmored-hex",
        t,
        f"$ osmosisd keys export relayer --unarmored-hex --unsafe\nWARNING: The private key will be exported as an unarmored hexadecimal string. USE AT YOUR OWN RISK. Continue? [y/N]: y\n{t}\n",
    )
    lines = _wrap("P2/56wAAA" + d.s("ssh2-key", 271, BASE64), 70)
    t = lines[1]
    add(
        "ssh2-rfc4716-encrypted-private-key",
        t,
        '---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: "rsa-key-20240514 jdoe@build01"\n'
        + "\n".join(lines)
        + "\n---- END SSH2 ENCRYPTED PRIVATE KEY ----\n",
    )
    rows = [" ".join(f"{b:02X}" for b in d.raw(f"paperkey-{i}", 20)) for i in range(3)]
    t = rows[1]
    add(
        "gpg-paperkey-text-output",
        t,
        f"# Secret portions of key {d.hex('paperkey-fpr', 40).upper()}\n# Base16 data extracted Tue May 14 10:31:07 2024\n# Created with paperkey 1.6 by David Shaw\n#\n  1: 00 04 {rows[0]} 4C1A2B\n  2: {rows[1]} 8E03F1\n  3: {rows[2]} 11D9C0\n",
    )
    t = _b64url(d.raw("jwk-oct", 32))
    add(
        "jwks-symmetric-oct-key-k",
        t,
        json.dumps(
            {
                "keys": [
                    {"kty": "oct", "kid": "session-2024-05", "use": "sig", "alg": "HS256", "k": t}
                ]
            },
            indent=2,
        ),
    )
    t = d.hex("keytab", 64)
    add(
        "kerberos-klist-keytab-keys",
        t,
        f"$ sudo klist -k -K -e /etc/krb5.keytab\nKeytab name: FILE:/etc/krb5.keytab\nKVNO Principal\n---- --------------------------------------------------------------------------\n   3 host/web01.acme.internal@ACME.INTERNAL (aes256-cts-hmac-sha1-96)  (0x{t})\n   3 host/web01.acme.internal@ACME.INTERNAL (aes128-cts-hmac-sha1-96)  (0x{d.hex('keytab-128', 32)})\n",
    )
    t = _bitlocker_key(d, "bitlocker")
    add(
        "bitlocker-recovery-password-manage-bde",
        t,
        f"PS C:\\> manage-bde -protectors -get C:\nVolume C: [OS]\nAll Key Protectors\n\n    Numerical Password:\n      ID: {{{d.uuid('bitlocker-id').upper()}}}\n      Password:\n        {t}\n",
    )
    rng = d.rng("filevault")
    t = "-".join("".join(rng.choice(UPPER_ALNUM) for _ in range(4)) for _ in range(6))
    add(
        "macos-fdesetup-personal-recovery-key",
        t,
        f"$ sudo fdesetup enable -user jdoe\nEnter the password for user 'jdoe':\nRecovery key = '{t}'\n",
    )
    t = d.hex("ykpersonalize", 32)
    add(
        "yubikey-ykpersonalize-aes-key-flag",
        t,
        f"# program slot 1 for the offline OTP validator; keep the AES key in the vault\nykpersonalize -1 -ofixed=vvccccbtdikr -ouid={d.hex('yk-uid', 12)} -a{t} -y\n",
    )
    p = d.password("wpa-derived")
    t = hashlib.pbkdf2_hmac("sha1", p.encode(), b"office-5g", 4096, 32).hex()
    add(
        "wpa-passphrase-derived-psk-hex",
        t,
        f'$ wpa_passphrase office-5g >> /etc/wpa_supplicant/wpa_supplicant.conf\nnetwork={{\n\tssid="office-5g"\n\tpsk={t}\n}}\n',
    )
    t = d.hex("tron", 64)
    add(
        "tronweb-constructor-private-key",
        t,
        f"const tronWeb = new TronWeb({{\n  fullHost: 'https://api.shasta.trongrid.io',\n  privateKey: '{t}',\n}});\n",
    )
    t = _base58check(b"\x80" + d.raw("dumpwallet", 32) + b"\x01")
    add(
        "bitcoin-core-dumpwallet-file-line",
        t,
        f"# Wallet dump created by Bitcoin Core v26.0.0\n# * Created on 2024-05-14T10:40:12Z\n\n{t} 2024-01-02T09:14:55Z reserve=1 # addr=bc1q{d.s('dumpwallet-addr', 38, 'qpzry9x8gf2tvdw0s3jn54khce6mua7l')} hdkeypath=m/84h/0h/0h/0/12\n",
    )
    t = d.words("keybase-paper", 13)
    add(
        "keybase-paperkey-phrase",
        t,
        f"$ keybase paperkey\nHere is your secret paper key phrase:\n\n    {t}\n\nWrite it down and keep it somewhere safe.\n",
    )
    key_lines = _wrap(_b64(d.raw("asc-p8", 138)), 64)
    t = _b64(
        "\n".join(["-----BEGIN PRIVATE KEY-----", *key_lines, "-----END PRIVATE KEY-----", ""])
    )
    add(
        "fastlane-api-key-content-base64",
        t,
        f'lane :beta do\n  api_key = app_store_connect_api_key(\n    key_id: "{d.s("asc-key-id", 10, UPPER_ALNUM)}",\n    issuer_id: "{d.uuid("asc-issuer")}",\n    key_content: "{t}",\n    is_key_content_base64: true\n  )\n  pilot(api_key: api_key)\nend\n',
    )
    t = d.s("duo-skey", 40, ALNUM)
    add(
        "duo-login-conf-skey",
        t,
        f"; /etc/duo/login_duo.conf\n[duo]\nikey = DI{d.s('duo-ikey', 18, UPPER_ALNUM)}\nskey = {t}\nhost = api-{d.hex('duo-host', 8)}.duosecurity.com\npushinfo = yes\n",
    )
    t = _b64(d.raw("bind-tsig", 32))
    add(
        "bind-named-conf-tsig-key-secret",
        t,
        f'key "xfr-secondary" {{\n    algorithm hmac-sha256;\n    secret "{t}";\n}};\n\nzone "acme.internal" {{\n    type primary;\n    allow-transfer {{ key "xfr-secondary"; }};\n}};\n',
    )
    t = _b64(d.raw("dnssec-private", 32))
    add(
        "dnssec-private-key-file",
        t,
        f"$ cat Kacme.dev.+013+{d.s('dnssec-tag', 5, DIGITS)}.private\nPrivate-key-format: v1.3\nAlgorithm: 13 (ECDSAP256SHA256)\nPrivateKey: {t}\nCreated: 20240514104455\nPublish: 20240514104455\nActivate: 20240514104455\n",
    )
    t = _bech32(
        "ncryptsec",
        b"\x02\x10"
        + d.raw("ncryptsec-salt", 16)
        + d.raw("ncryptsec-nonce", 24)
        + b"\x01"
        + d.raw("ncryptsec", 48),
    )
    add(
        "nostr-ncryptsec-key-backup",
        t,
        f"Amber > Settings > Backup keys\n\nYour encrypted private key (NIP-49, needs your password to use):\n{t}\n\nStore it somewhere other than this phone.\n",
    )
    t = d.hex("headscale", 48)
    add(
        "headscale-preauthkey-create-output",
        t,
        f"$ headscale preauthkeys create --user homelab --reusable --expiration 24h\n{t}\n$ tailscale up --login-server https://hs.home.arpa --authkey {t}\n",
    )


def _encoded_split_and_framed(d: _Batch6Draw, add: Add) -> None:
    # --- reversible encodings -----------------------------------------------------------------
    t = _b64("x-access-token:" + _github_token(d, "checkout-ghs", "ghs_"))
    add(
        "git-config-extraheader-basic-base64-token",
        t,
        f'/usr/bin/git config --local http.https://github.com/.extraheader "AUTHORIZATION: basic {t}"\n/usr/bin/git -c protocol.version=2 fetch --no-tags --prune --depth=1 origin\n',
    )
    p = d.password("fromhex")
    t = p.encode().hex()
    add(
        "python-bytes-fromhex-password",
        t,
        f'# not in plain text so it does not show up in grep\nSMTP_PASSWORD = bytes.fromhex("{t}").decode()\nserver.login("alerts@acme.dev", SMTP_PASSWORD)\n',
    )
    t = _rot13(d.password("rot13"))
    add(
        "python-codecs-rot13-obfuscated-password",
        t,
        f'import codecs\n\nDB_PASS = codecs.decode("{t}", "rot13")  # "obfuscated"\nconn = pymssql.connect("sql01", "etl", DB_PASS, "staging")\n',
    )
    t = _b64(d.password("base64-subshell"))
    add(
        "shell-base64-decode-subshell",
        t,
        f'#!/bin/sh\nVPN_USER=jdoe\nVPN_PASS=$(echo \'{t}\' | base64 -d)\nprintf \'%s\\n%s\\n\' "$VPN_USER" "$VPN_PASS" | sudo openconnect --user="$VPN_USER" --passwd-on-stdin vpn.acme.dev\n',
    )
    p = d.password("ropc-form")
    t = quote(p + "&=+", safe="")
    add(
        "oauth-password-grant-urlencoded-body",
        t,
        f"POST /oauth2/v2.0/token HTTP/1.1\nHost: login.microsoftonline.com\nContent-Type: application/x-www-form-urlencoded\n\nclient_id={d.uuid('ropc-client')}&scope=openid&grant_type=password&username=svc-sync%40acme.dev&password={t}\n",
    )
    p = d.password("json-in-json")
    inner = json.dumps({"db": {"user": "app", "password": p}})
    middle = json.dumps({"name": "app-config", "value": inner})
    add(
        "json-string-inside-json-string-double-escaped",
        p,
        "$ terraform state pull | jq -c .\n"
        + json.dumps(
            {
                "version": 4,
                "resources": [
                    {"type": "aws_ssm_parameter", "instances": [{"attributes": {"json": middle}}]}
                ],
            }
        ),
    )
    p = d.password("xml-escaped")
    t = p[:5] + "&amp;" + p[5:] + "&lt;3"
    add(
        "xml-attribute-entity-escaped-password",
        t,
        f'<appSettings>\n  <add key="Erp.User" value="integration" />\n  <add key="Erp.Password" value="{t}" />\n</appSettings>',
    )
    p = d.password("html-form")
    add(
        "saved-html-form-input-value",
        p,
        f'<form action="/login" method="post">\n  <input type="text" name="user" value="kiosk01">\n  <input type="password" name="pwd" value="{p}" autocomplete="off">\n  <button>Sign in</button>\n</form>',
    )
    sa = json.dumps(
        {
            "type": "service_account",
            "project_id": "acme-prod",
            "private_key_id": d.hex("sa-b64-kid", 40),
            "private_key": "-----BEGIN PRIVATE KEY-----\n"
            + _b64(d.raw("sa-b64-key", 96))
            + "\n-----END PRIVATE KEY-----\n",
            "client_email": "ci-deployer@acme-prod.iam.gserviceaccount.com",
        }
    )
    t = _b64(sa)
    add(
        "gcp-service-account-json-base64-env",
        t,
        f"# GitHub > Settings > Secrets, pasted here while debugging the workflow\nGOOGLE_CREDENTIALS_B64={t}\n",
    )
    t = d.s("yaml-in-json", 40, ALNUM)
    add(
        "yaml-double-quoted-json-config-value",
        t,
        f'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: worker-config\ndata:\n  config.json: "{{\\"queue\\":\\"orders\\",\\"broker\\":{{\\"apiKey\\":\\"{t}\\"}}}}"\n',
    )
    t = d.s("urlenc-json-query", 40, ALNUM)
    state = quote(json.dumps({"token": t, "next": "/billing"}), safe="")
    add(
        "url-encoded-json-in-query-parameter",
        t,
        f"GET /callback?code=4%2F0Ad{d.s('urlenc-code', 20, ALNUM)}&state={state} HTTP/2\nHost: app.acme.dev\n",
    )
    # --- split and wrapped --------------------------------------------------------------------
    lines = _wrap(_b64(d.raw("p12-wrapped", 300)), 76)
    t = lines[2]
    block = "\n".join("    " + line for line in lines)
    add(
        "yaml-block-scalar-wrapped-base64-keystore",
        t,
        f"signing:\n  keystorePassword: ${{KEYSTORE_PASSWORD}}\n  keystoreBase64: |\n{block}\n",
    )
    head = d.s("py-concat-a", 24, ALNUM)
    t = d.s("py-concat-b", 24, ALNUM)
    add(
        "python-implicit-concatenation-split-token",
        t,
        f'DIRECTUS_TOKEN = (\n    "{head}"\n    "{t}"\n)\n',
    )
    head = d.s("sh-continuation-a", 20, ALNUM)
    t = d.s("sh-continuation-b", 20, ALNUM)
    add(
        "shell-backslash-newline-inside-quoted-token",
        t,
        f'curl -fsS https://api.acme.dev/v1/reports \\\n  -H "Authorization: Bearer {head}\\\n{t}" \\\n  -o report.json\n',
    )
    head = d.s("qp-a", 40, ALNUM)
    t = d.s("qp-b", 24, ALNUM)
    add(
        "quoted-printable-email-soft-wrapped-token",
        t,
        f"Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\nHi team, the integration token for the new partner portal is {head}=\n{t} =E2=80=93 please keep it out of tickets.\n",
    )
    # --- tables, CSV and spreadsheets -----------------------------------------------------------
    p = d.password("psql-expanded")
    add(
        "psql-expanded-record-output",
        p,
        f"acme=> \\x\nExpanded display is on.\nacme=> SELECT name, smtp_user, smtp_password FROM mail_settings;\n-[ RECORD 1 ]-+---------------------\nname          | default\nsmtp_user     | noreply@acme.dev\nsmtp_password | {p}\n",
    )
    t = d.s("mysql-box", 32, ALNUM)
    add(
        "mysql-client-box-table-output",
        t,
        f"mysql> SELECT id, provider, api_key FROM integrations;\n+----+----------+----------------------------------+\n| id | provider | api_key                          |\n+----+----------+----------------------------------+\n|  1 | shipbob  | {t} |\n+----+----------+----------------------------------+\n1 row in set (0.00 sec)\n",
    )
    p = d.password("chrome-csv")
    add(
        "browser-passwords-csv-export",
        p,
        f"name,url,username,password,note\ngrafana.acme.dev,https://grafana.acme.dev/login,admin,{p},\nrouter,http://192.168.1.1/,admin,{d.password('chrome-csv-2')},\n",
    )
    p = d.password("semicolon-csv")
    add(
        "semicolon-csv-spreadsheet-export",
        p,
        f"Dienst;Benutzer;Kennwort;Notiz\nDATEV;buchhaltung@acme.de;{p};Zugang fuer Steuerberater\nWLAN Gaeste;;{d.password('semicolon-csv-2')};Aushang im Empfang\n",
    )
    t = d.s("tsv-sheet", 40, ALNUM)
    add(
        "tsv-copied-from-spreadsheet",
        t,
        f"Service\tEnvironment\tKey\tOwner\nMaps\tprod\t{t}\tmobile team\nSearch\tstaging\t{d.s('tsv-sheet-2', 40, ALNUM)}\tweb team\n",
    )
    # --- diffs ------------------------------------------------------------------------------
    t = d.s("diff-added", 64, BASE64URL)
    add(
        "unified-diff-added-dotenv-line",
        t,
        f"diff --git a/.env.production b/.env.production\nindex 3b18e51..a9c4f2d 100644\n--- a/.env.production\n+++ b/.env.production\n@@ -3,4 +3,5 @@ NODE_ENV=production\n LOG_LEVEL=info\n-PAYMENTS_KEY=\n+PAYMENTS_KEY={t}\n SENTRY_ENVIRONMENT=production\n",
    )
    p = d.password("diff-removed")
    add(
        "unified-diff-removed-yaml-password",
        p,
        f"@@ -12,7 +12,7 @@ spring:\n   datasource:\n     url: jdbc:mysql://db:3306/shop\n     username: shop\n-    password: {p}\n+    password: ${{DB_PASSWORD}}\n",
    )
    t = d.s("diff-json", 40, ALNUM)
    add(
        "git-stash-show-json-hunk",
        t,
        f'$ git stash show -p stash@{{0}}\ndiff --git a/config/local.json b/config/local.json\n--- a/config/local.json\n+++ b/config/local.json\n@@ -1,5 +1,6 @@\n {{\n   "port": 3000,\n+  "sendbirdApiToken": "{t}",\n   "debug": true\n }}\n',
    )
    # --- notebooks ----------------------------------------------------------------------------
    t = d.s("ipynb-output", 40, ALNUM)
    add(
        "jupyter-ipynb-stream-output-token",
        t,
        json.dumps(
            {
                "cell_type": "code",
                "execution_count": 4,
                "outputs": [
                    {
                        "name": "stdout",
                        "output_type": "stream",
                        "text": ["connected as analytics-bot\n", f"session token: {t}\n"],
                    }
                ],
                "source": ["client = connect()\n", "print(client.describe())"],
            },
            indent=1,
        ),
    )
    t = "sk-proj-" + d.s("ipynb-source", 48, BASE64URL)
    add(
        "jupyter-ipynb-source-escaped-client",
        t,
        json.dumps(
            {
                "cell_type": "code",
                "execution_count": None,
                "outputs": [],
                "source": [
                    "from openai import OpenAI\n",
                    f'client = OpenAI(api_key="{t}")\n',
                    "client.models.list()",
                ],
            },
            indent=1,
        ),
    )
    # --- a prefix on the same line ---------------------------------------------------------
    t = d.s("rustc-gutter", 40, ALNUM)
    add(
        "rustc-warning-line-number-gutter",
        t,
        f'warning: unused variable: `key`\n  --> src/main.rs:12:9\n   |\n12 |     let key = "{t}";\n   |         ^^^ help: if this is intentional, prefix it with an underscore: `_key`\n',
    )
    p = d.password("cat-n")
    add(
        "cat-n-numbered-config-lines",
        p,
        f"$ cat -n /etc/openldap/ldap.conf.local\n     1\tBASE dc=acme,dc=internal\n     2\tURI ldaps://ldap.acme.internal\n     3\tBINDDN cn=reader,dc=acme,dc=internal\n     4\tBINDPW {p}\n",
    )
    t = d.s("python-repl", 40, ALNUM)
    add(
        "python-repl-prompt-assignment",
        t,
        f">>> import mailchimp_transactional as mt\n>>> client = mt.Client('md-{t}')\n>>> client.users.ping()\n'PONG!'\n",
    )
    t = d.s("ipython-in", 40, ALNUM)
    add(
        "ipython-in-prompt-call",
        t,
        f"In [3]: from pyairtable import Api\n\nIn [4]: api = Api('pat{d.s('ipython-pat-a', 14, ALNUM)}.{t}')\n\nIn [5]: api.table('appX', 'Orders').all()[:1]\n",
    )
    t = "live_" + d.hex("irb", 32)
    add(
        "ruby-irb-prompt-assignment",
        t,
        f'irb(main):001> require "lob"\n=> true\nirb(main):002> lob = Lob::Client.new(api_key: "{t}")\n=> #<Lob::Client>\n',
    )
    p = d.password("redis-prompt")
    add(
        "redis-cli-prompt-config-set-requirepass",
        p,
        f'127.0.0.1:6379> CONFIG SET requirepass "{p}"\nOK\n127.0.0.1:6379> CONFIG REWRITE\nOK\n',
    )
    t = d.s("laravel-log", 40, ALNUM)
    add(
        "laravel-log-stamp-context-array",
        t,
        f'[2024-05-14 10:21:59] production.INFO: Creating shipment {{"order":1842}}\n[2024-05-14 10:22:01] production.ERROR: Shipping label request failed {{"carrier":"dhl","headers":{{"DHL-API-Key":"{t}"}},"status":401}}\n',
    )
    p = d.password("quote-marker")
    add(
        "email-nested-quote-marker-password",
        p,
        f"On Tue, 14 May 2024 at 09:10, Ops <ops@acme.dev> wrote:\n> > The temporary password for the vendor portal is {p}\n> > Please change it on first login.\n> Thanks, that worked.\n\nCan someone reset it again? It expired.\n",
    )
    t = d.s("grep-prefix", 40, ALNUM)
    add(
        "grep-output-file-line-prefix",
        t,
        f"$ grep -rn 'TOKEN' src/\nsrc/settings/base.py:18:LOKALISE_TOKEN = env('LOKALISE_TOKEN', default='')\nsrc/settings/local.py:7:LOKALISE_TOKEN = '{t}'\n",
    )
    p = d.password("compose-logs")
    add(
        "docker-compose-logs-service-prefix",
        p,
        f"worker-1  | [2024-05-14 10:30:02,114: INFO/MainProcess] Connected to redis://:{p}@redis:6379/0\nworker-1  | [2024-05-14 10:30:02,120: INFO/MainProcess] mingle: searching for neighbors\n",
    )
    t = d.s("kubectl-logs-prefix", 40, ALNUM)
    add(
        "kubectl-logs-prefix-startup-config",
        t,
        f"[pod/notifier-6c8d9b7b9-q2m4x/notifier] 2024/05/14 10:31:44 starting with config: onesignal_app={d.uuid('onesignal-app')} onesignal_rest_key=os_v2_app_{t}\n[pod/notifier-6c8d9b7b9-q2m4x/notifier] 2024/05/14 10:31:44 listening on :8080\n",
    )
    p = d.password("checkbox-list")
    add(
        "markdown-checkbox-list-item",
        p,
        f"### Handover checklist\n\n- [x] DNS moved to Cloudflare\n- [ ] Change the NAS admin password (currently `{p}`)\n- [ ] Renew the wildcard certificate\n",
    )
    p = d.password("numbered-list")
    add(
        "numbered-list-setup-steps",
        p,
        f'Setup for the new laptop:\n1. Install Tailscale and log in with the IT account\n2. Connect to the printer share \\\\print01\\floor2\n3. Wi-Fi "ACME-Staff", passphrase {p}\n4. Enroll in Intune\n',
    )
    # --- protocol transcripts -----------------------------------------------------------------
    p = d.password("smtp-auth-plain")
    t = _b64(f"\0alerts@acme.dev\0{p}")
    add(
        "smtp-auth-plain-session-transcript",
        t,
        f"$ openssl s_client -starttls smtp -connect smtp.acme.dev:587 -quiet\n250 SMTPUTF8\nEHLO laptop\n250-AUTH PLAIN LOGIN\nAUTH PLAIN {t}\n235 2.7.0 Authentication successful\n",
    )
    p = d.password("imap-login-transcript")
    add(
        "imap-login-command-transcript",
        p,
        f'$ openssl s_client -connect imap.acme.dev:993 -crlf -quiet\n* OK [CAPABILITY IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE IDLE AUTH=PLAIN] Dovecot ready.\na1 LOGIN reports@acme.dev "{p}"\na1 OK Logged in\n',
    )
    p = d.password("ftp-pass-transcript")
    add(
        "ftp-session-pass-command",
        p,
        f"$ nc ftp.acme.internal 21\n220 (vsFTPd 3.0.5)\nUSER uploader\n331 Please specify the password.\nPASS {p}\n230 Login successful.\n",
    )


_PARTS = (
    _env_files_and_shell,
    _application_config,
    _code,
    _ops_ci_and_commands,
    _logs_chat_and_notes,
    _provider_tokens,
    _keys_and_seeds,
    _encoded_split_and_framed,
)


# Every kind of this batch, written out literally; all of them are held out.
NAMES: frozenset[str] = frozenset(
    {
        "alpaca-key-id-secret-headers",
        "android-strings-xml-client-token",
        "ansible-verbose-task-result-json",
        "appsettings-json-smtp-credentials-object",
        "appwrite-server-sdk-set-key",
        "aria2c-http-passwd-flag",
        "aws-bedrock-api-key-absk",
        "aws-configure-set-secret-key",
        "aws-secretsmanager-create-secret-string",
        "aws-ssm-put-parameter-securestring",
        "az-keyvault-secret-set-value",
        "az-login-service-principal-password",
        "azure-cosmosdb-account-key-connection-string",
        "azure-devops-84-char-pat-basic-git",
        "azure-functions-code-query-key",
        "azure-pipelines-variables-name-value",
        "bash-history-numbered-line",
        "bind-named-conf-tsig-key-secret",
        "bitbucket-repository-access-token-bearer",
        "bitcoin-core-dumpwallet-file-line",
        "bitlocker-recovery-password-manage-bde",
        "browser-passwords-csv-export",
        "browserbase-api-key-connect-url",
        "c-libcurl-setopt-userpwd",
        "c-mysql-real-connect-literal",
        "caddyfile-reverse-proxy-header-up",
        "cargo-login-positional-token",
        "cat-n-numbered-config-lines",
        "chat-message-fenced-code-block-token",
        "chat-message-german-passwort-ist",
        "chat-message-pasted-error-with-token",
        "chat-message-token-alone-on-line",
        "chat-message-token-in-backticks",
        "chat-message-use-this-password",
        "clickhouse-client-password-flag",
        "clickhouse-go-dsn-query-password",
        "cloudflare-global-api-key-x-auth-key",
        "cloudflare-origin-ca-key-header",
        "commit-message-body-new-key",
        "composer-json-config-github-oauth",
        "convex-deploy-key-build-command",
        "cosmos-keys-export-unarmored-hex",
        "cosmos-tendermint-armored-private-key",
        "cqlsh-user-password-flags",
        "csharp-openidconnect-options-client-secret",
        "csharp-storage-shared-key-credential",
        "curl-aws-sigv4-user-flag",
        "curl-data-urlencode-password",
        "curl-json-body-api-key-field",
        "dagster-cloud-user-token-yaml",
        "dart-dio-base-options-headers",
        "databricks-sqlalchemy-token-url",
        "direnv-envrc-export",
        "dnssec-private-key-file",
        "docker-buildkit-log-run-line",
        "docker-compose-env-file-doubled-dollar",
        "docker-compose-healthcheck-test-array",
        "docker-compose-logs-service-prefix",
        "dotenv-algorand-account-mnemonic",
        "dotenv-camelcase-api-secret",
        "dotenv-devise-pepper",
        "dotenv-german-datenbank-passwort",
        "dotenv-inline-comment-after-quoted-value",
        "dotenv-jira-datacenter-pat-suffix",
        "dotenv-kraken-private-key",
        "dotenv-lowercase-db-pass",
        "dotenv-mail-pw-suffix",
        "dotenv-password-salt-suffix",
        "dotenv-pem-private-key-escaped-newlines",
        "dotenv-qiniu-ak-sk-pair",
        "dotenv-session-hmac-suffix",
        "dotenv-sftp-cred-user-colon-password",
        "dotenv-signing-key-passphrase",
        "dotenv-test-totp-seed",
        "dotenv-vapid-private-suffix",
        "duo-login-conf-skey",
        "e2b-api-key-sandbox",
        "electrum-wallet-file-keystore-zprv",
        "elixir-ecto-url",
        "emacs-init-setq-api-key",
        "email-nested-quote-marker-password",
        "env-command-prefixed-run",
        "envoy-generic-secret-inline-string",
        "ethereum-keystore-v3-json-ciphertext",
        "fal-key-id-colon-secret",
        "fastlane-api-key-content-base64",
        "firebase-functions-config-set",
        "firecrawl-app-api-key",
        "fly-secrets-set-command",
        "frameio-developer-token",
        "ftp-session-pass-command",
        "gcloud-secrets-create-from-echo",
        "gcp-service-account-json-base64-env",
        "gemfile-source-url-credentials",
        "git-config-extraheader-basic-base64-token",
        "git-stash-show-json-hunk",
        "github-actions-run-log-header-echo",
        "github-actions-services-postgres-env",
        "gitlab-ci-job-token-clone-url",
        "gitlab-ci-variables-block-literal",
        "gitlab-feed-token-calendar-url",
        "go-env-goproxy-credentials",
        "go-oauth2-config-struct-literal",
        "go-option-with-api-key",
        "go-test-t-setenv",
        "gpg-paperkey-text-output",
        "grafana-cloud-access-policy-token",
        "grep-output-file-line-prefix",
        "hardhat-verify-etherscan-api-key",
        "hasura-admin-secret-header-cli",
        "headscale-preauthkey-create-output",
        "helm-values-extra-env-vars-list",
        "heroku-config-set-command",
        "himalaya-config-toml-raw-password",
        "html-comment-todo-with-key",
        "httpie-auth-flag-user-colon-pass",
        "httpie-auth-type-bearer",
        "httpie-query-param-double-equals",
        "imap-login-command-transcript",
        "ini-credentials-section-named-entries",
        "ini-dutch-wachtwoord",
        "ipython-in-prompt-call",
        "java-client-builder-api-key",
        "java-config-tostring-in-log",
        "java-junit-test-property-source",
        "jenkinsfile-withenv-list",
        "jetbrains-run-configuration-env-xml",
        "js-fixme-comment-remove-before-merge",
        "js-hdwalletprovider-mnemonic-literal",
        "js-nock-match-header-bearer",
        "json-api-keys-array",
        "json-credentials-parent-environment-children",
        "json-string-inside-json-string-double-escaped",
        "jupyter-ipynb-source-escaped-client",
        "jupyter-ipynb-stream-output-token",
        "jwks-symmetric-oct-key-k",
        "k8s-cronjob-env-value-literal",
        "k8s-deployment-container-args-flag",
        "kcat-sasl-password-property",
        "kerberos-klist-keytab-keys",
        "keybase-paperkey-phrase",
        "kotlin-gradle-buildconfigfield-escaped",
        "kotlin-okhttp-interceptor-add-header",
        "kubectl-logs-prefix-startup-config",
        "kubectl-set-env-deployment",
        "laravel-config-services-php-literal",
        "laravel-log-stamp-context-array",
        "liveblocks-node-secret-key",
        "livekit-api-key-secret-yaml",
        "llamacloud-parse-api-key",
        "macos-fdesetup-personal-recovery-key",
        "markdown-checkbox-list-item",
        "markdown-runbook-bullet-credentials",
        "micronaut-yaml-jwt-generator-secret",
        "mongodb-multi-host-replica-set-uri",
        "mqtt-url-user-password",
        "mysql-client-box-table-output",
        "nats-url-user-password",
        "neon-api-key-bearer",
        "netlify-env-set-command",
        "nextauth-dotenv-local-secret",
        "nextjs-config-env-block",
        "nostr-ncryptsec-key-backup",
        "notes-app-plain-line-after-heading",
        "npgsql-connection-string",
        "numbered-list-setup-steps",
        "oauth-password-grant-urlencoded-body",
        "onepassword-cli-item-create-assignment",
        "package-json-script-inline-env",
        "pangea-service-token-config",
        "pg-service-conf-password",
        "php-define-french-mot-de-passe",
        "php-guzzle-client-auth-option",
        "planetscale-password-mysql-url",
        "polar-organization-access-token",
        "postgres-create-subscription-connection",
        "postgres-server-log-statement",
        "powershell-setenvironmentvariable-user-scope",
        "printenv-output-listing",
        "prisma-accelerate-api-key-url",
        "prisma-sqlserver-semicolon-url",
        "prometheus-scrape-authorization-credentials",
        "properties-portuguese-senha",
        "ps-aux-command-line-password",
        "psql-expanded-record-output",
        "pyproject-pytest-env-list",
        "pytest-failure-showlocals-password",
        "python-boto3-client-keyword-arguments",
        "python-bytes-fromhex-password",
        "python-ccxt-exchange-options",
        "python-codecs-rot13-obfuscated-password",
        "python-httpx-client-headers-dict",
        "python-implicit-concatenation-split-token",
        "python-log-line-dict-repr",
        "python-mock-patch-dict-environ",
        "python-os-environ-setdefault",
        "python-pytest-fixture-returns-credentials",
        "python-repl-prompt-assignment",
        "python-settings-turkish-parola",
        "quoted-printable-email-soft-wrapped-token",
        "redis-cli-prompt-config-set-requirepass",
        "redis-monitor-auth-line",
        "renovate-json-host-rules-token",
        "requirements-txt-vcs-url-token",
        "rootly-api-token-terraform-provider",
        "ruby-aws-credentials-new",
        "ruby-irb-prompt-assignment",
        "ruby-rspec-let-token",
        "runpod-api-key-graphql-query",
        "rust-struct-literal-string-from",
        "rustc-warning-line-number-gutter",
        "s3fs-passwd-file-line",
        "saved-html-form-input-value",
        "semicolon-csv-spreadsheet-export",
        "senpai-scfg-password",
        "shell-backslash-newline-inside-quoted-token",
        "shell-base64-decode-subshell",
        "shell-export-callback-sig",
        "shell-export-ldap-bind-pwd",
        "shell-export-polish-haslo",
        "slack-config-refresh-token-cli",
        "smb-url-in-file-manager",
        "smtp-auth-plain-session-transcript",
        "snowflake-sqlalchemy-url",
        "spring-actuator-env-json-property",
        "sqlpackage-source-password-argument",
        "sqlserver-bcp-user-password-flags",
        "ssh2-rfc4716-encrypted-private-key",
        "strace-write-auth-command",
        "swift-enum-static-let-secret",
        "taskfile-yml-env-map",
        "terraform-aws-db-instance-password-literal",
        "terraform-backend-pg-conn-str",
        "terraform-plan-output-attribute",
        "terraform-tf-var-environment-variable",
        "terraform-tfvars-file-assignment",
        "toml-array-of-tables-users",
        "toml-inline-table-auth",
        "toml-swedish-losenord",
        "travis-yml-env-global-list",
        "trino-url-user-password",
        "tronweb-constructor-private-key",
        "ts-axios-create-default-headers",
        "ts-typed-config-object-literal",
        "ts-vitest-stub-env",
        "tsql-database-scoped-credential-secret",
        "tsv-copied-from-spreadsheet",
        "twine-upload-password-flag",
        "unified-diff-added-dotenv-line",
        "unified-diff-removed-yaml-password",
        "upstash-qstash-signing-keys",
        "url-encoded-json-in-query-parameter",
        "vault-hcl-transit-seal-token",
        "vimrc-global-api-key-let",
        "vite-config-define-json-stringify",
        "voyage-ai-client-api-key",
        "vscode-settings-sqltools-connection",
        "webex-bot-access-token",
        "wget-ftp-password-flag",
        "wget-header-authorization-token",
        "wgetrc-user-password",
        "windows-setx-user-variable",
        "wordpress-application-password-spaced",
        "wpa-passphrase-derived-psk-hex",
        "xata-api-key-xatarc",
        "xml-attribute-entity-escaped-password",
        "xml-connection-element-password-attribute",
        "yaml-block-scalar-wrapped-base64-keystore",
        "yaml-double-quoted-json-config-value",
        "yaml-smtp-auth-user-pass-nested",
        "yaml-spanish-contrasena-key",
        "yaml-tokens-sequence-under-parent",
        "yubikey-ykpersonalize-aes-key-flag",
        "zshrc-lowercase-export-api-key",
        "zuplo-api-key-checksummed",
    }
)


# Kinds a piece of whose secret still survives ``redact`` in some seed of 20 after the fixes that
# followed the first look, and why (the redaction tests and the every-door scan skip them).
STILL_STORED: frozenset[str] = frozenset()


def build_sixth_batch(seed: int) -> list[UnlistedSample]:
    """Every sample of this batch, drawn from *seed* (same seed, same corpus)."""
    return draw_batch(_Batch6Draw(seed), _PARTS, frozenset(), NAMES)


def older_names() -> set[str]:
    """The kind names of the five earlier corpora, which this batch must not repeat."""
    return names_before_fifth() | set(FIFTH_NAMES)
