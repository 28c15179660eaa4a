# ruff: noqa: E501  (realistic config and shell lines are long; they are data here)
"""Credential kinds the redactor was NOT written against: the held-out evaluation.

The catalogue in ``comodor.brain.redaction`` was tuned on :mod:`tests.support.secret_kinds`.
A redactor tuned on its own test corpus tells you little about the next provider's token, so
this file describes other kinds -- taken from providers' public documentation of their token
formats and from the documented syntax of credential files (netrc, pgpass, ``.my.cnf``,
``.npmrc``, ``.pypirc``, Docker ``config.json``, Maven ``settings.xml``, Redis configs,
connection strings, client constructors) -- each in a realistic line of text.

Every value is FAKE: drawn from a seeded generator (:func:`build_unlisted`), with the right
length and alphabet and, where the format leaves room, a ``fake``/``FAKE`` marker.

**The split is fixed and was made before the redactor was changed for issue 27**: the kinds
were numbered in the order they are written below, and every kind whose sha256 of its name
starts with an even hex digit went to :data:`TUNE`, every other to :data:`HELD_OUT`. The two
sets are written out literally so the split cannot drift when kinds are added. Only misses on
``TUNE`` may guide changes to the rules; ``HELD_OUT`` is the figure to report.

Measured before any change (seeds 0-9, a kind "stored" when an 8-character piece of its secret
survives ``redact`` in any run): tune 18 of 51 kinds stored, held-out 16 of 33 stored.
After tuning on ``TUNE`` alone (placement rules, 20 seeds): tune 0 of 51, held-out 4 of 33
(``launchdarkly-sdk-key``, ``maven-settings-xml-password``, ``oracle-easy-connect``,
``sqlserver-ado-connection-string``) -- the first look at the held-out half. Those four were
then fixed by general rules (XML config elements, Oracle ``user/password@`` connect
identifiers, a prefixed UUID passed to a client, literal fields of connection strings), so
from here on this half is no longer unseen: :data:`FRESH` is the batch written after that,
measured once: 13 of its 25 kinds stored (14 of 25 with the redactor before issue 27) -- the
honest figure for kinds nobody has looked at: the placement rules as first written
generalised to the held-out half of the same sources, not to new file formats and tools.
(Counted again without pieces the rest of the line holds anyway -- see
:attr:`UnlistedSample.shingles` -- that first look is 12 of 25, and 13 of 25 before.) The
misses then led to general rules (calls named for credentials, tool password syntax, crypt
hashes, expect scripts, a CLI's ``login <token>``, dotted passwords): all parts 0 stored,
but none of them unseen any more.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
from collections.abc import Callable, Sequence
from typing import Any

import attrs

ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
UPPER_ALNUM = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
BASE32_LOWER = "abcdefghijklmnopqrstuvwxyz234567"
BASE32 = BASE32_LOWER.upper()
BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
BASE64 = ALNUM + "+/"
BASE64URL = ALNUM + "-_"


@attrs.frozen
class UnlistedSample:
    """One fake credential of a kind the catalogue does not name, in a realistic line."""

    name: str
    secret: str
    context: str

    def __attrs_post_init__(self) -> None:
        assert self.secret in self.context, f"{self.name}: secret not embedded in its context"
        assert len(self.secret) >= 8, f"{self.name}: too short to check for fragments"

    @property
    def shingles(self) -> set[str]:
        """Every 8-character piece of the secret: none of them may survive redaction.

        Pieces the rest of the line holds anyway (``rubygems`` of ``rubygems_...`` in
        ``:rubygems_api_key:``) say nothing about the secret and are left out.
        """
        rest = self.context.replace(self.secret, "\0")
        pieces = {self.secret[i : i + 8] for i in range(len(self.secret) - 7)}
        return {piece for piece in pieces if piece not in rest}


class _Draw:
    def __init__(self, seed: int) -> None:
        self.seed = seed

    def rng(self, label: str) -> random.Random:
        digest = hashlib.sha256(f"comodor-unlisted/{self.seed}/{label}".encode()).digest()
        return random.Random(digest)

    def s(self, label: str, length: int, alphabet: str = ALNUM, marker: str = "") -> str:
        rng = self.rng(label)
        return marker + "".join(rng.choice(alphabet) for _ in range(length - len(marker)))

    def hex(self, label: str, length: int) -> str:
        return self.s(label, length, HEX, marker="fa4e")

    def uuid(self, label: str) -> str:
        h = self.s(label, 32, HEX)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"

    def password(self, label: str) -> str:
        """What people pick: a word, digits, a symbol and some more (no FAKE marker needed)."""
        rng = self.rng(label)
        word = rng.choice(["Harbor", "Maple", "Orbit", "Summer", "Tiger", "Lantern", "Copper"])
        tail = "".join(rng.choice(ALNUM + "!#%^*_.") for _ in range(rng.randrange(4, 9)))
        return f"{word}{rng.randrange(10, 99)}{tail}"

    def b64(self, label: str, size: int) -> str:
        return base64.b64encode(self.rng(label).randbytes(size)).decode()


Add = Callable[[str, str, str], None]


def stored_kinds(samples: Sequence[UnlistedSample], names: frozenset[str]) -> list[tuple[str, str]]:
    """(kind, redacted text) for each sample of *names* some piece of whose secret survives."""
    from comodor_lsp.brain.redaction.redactor import redact

    stored = []
    for sample in samples:
        if sample.name in names:
            redacted = redact(sample.context)
            if any(piece in redacted for piece in sample.shingles):
                stored.append((sample.name, redacted))
    return stored


def split_a_third(names: list[str], seed: int) -> tuple[set[str], set[str]]:
    """(tune, held-out) of a later batch: the sorted names shuffled by *seed*, a third held out."""
    order = sorted(names)
    random.Random(seed).shuffle(order)
    cut = len(order) // 3
    return set(order[cut:]), set(order[:cut])


def check_samples_well_formed(build: Callable[[int], list[UnlistedSample]], seed: int) -> None:
    """*build*(seed) has seed 0's kinds in its order; every secret long, in its context, told."""
    samples = build(seed)
    assert [s.name for s in samples] == [s.name for s in build(0)]
    for sample in samples:
        assert sample.secret in sample.context
        assert len(sample.secret) >= 8
        assert sample.shingles, f"{sample.name}: every piece of the secret is in its context"


def check_secrets_drawn_from_seed(build: Callable[[int], list[UnlistedSample]]) -> None:
    """The same seed draws the same secrets; another seed draws a different one for each kind."""
    first = {s.name: s.secret for s in build(0)}
    again = {s.name: s.secret for s in build(0)}
    other = {s.name: s.secret for s in build(1)}
    assert first == again
    assert not [name for name in first if first[name] == other[name]]


def draw_batch(
    draw: _Draw,
    parts: Sequence[Callable[[Any, Add], None]],
    tune: frozenset[str],
    held_out: frozenset[str],
) -> list[UnlistedSample]:
    """Every sample the *parts* of a later batch add from *draw*, checked against its split."""
    samples: list[UnlistedSample] = []

    def add(name: str, secret: str, context: str) -> None:
        samples.append(UnlistedSample(name, secret, context))

    for part in parts:
        part(draw, add)
    names = [s.name for s in samples]
    assert len(names) == len(set(names)), "kind names must be unique"
    assert set(names) == tune | held_out, "every kind in one part"
    assert not tune & held_out, "parts overlap"
    return samples


def _kinds(d: _Draw, add: Add) -> None:
    # --- credential files ------------------------------------------------------------------
    p = d.password("netrc")
    add(
        "netrc-multiline",
        p,
        f"machine api.fly.io\n    login deploy@example.com\n    password {p}\n",
    )
    p = d.password("netrc-default")
    add("netrc-default-entry", p, f"default login anonymous password {p}")
    p = d.password("pgpass")
    add(
        "pgpass-line",
        p,
        f"# ~/.pgpass (chmod 600)\ndb.internal.example.com:5432:orders:orders_app:{p}\n",
    )
    p = d.password("pgpass-wild")
    add("pgpass-wildcard-line", p, f"*:*:*:replicator:{p}")
    p = d.password("redis-requirepass")
    add("redis-requirepass", p, f"# redis.conf\nbind 127.0.0.1\nrequirepass {p}\nmaxmemory 2gb\n")
    p = d.password("redis-masterauth")
    add("redis-masterauth", p, f"replicaof 10.0.0.5 6379\nmasterauth {p}\n")
    p = d.password("mycnf")
    add(
        "my-cnf-client-section",
        p,
        f"[client]\nuser = reporting\npassword = {p}\nhost = 127.0.0.1\n",
    )
    t = d.s("npmrc-gh", 36, ALNUM)
    add(
        "npmrc-private-registry-authtoken",
        t,
        f"@acme:registry=https://npm.pkg.github.com\n//npm.pkg.github.com/:_authToken={t}\n",
    )
    t = d.b64("npmrc-pass", 12)
    add(
        "npmrc-legacy-password",
        t,
        f'//registry.example.com/:username=ci\n//registry.example.com/:_password="{t}"\n',
    )
    p = d.password("pypirc")
    add(
        "pypirc-private-index",
        p,
        f"[distutils]\nindex-servers = internal\n\n[internal]\nrepository = https://pypi.acme.dev/\nusername = release-bot\npassword = {p}\n",
    )
    t = d.s("docker-idtoken", 64, BASE64URL)
    add(
        "docker-config-identitytoken",
        t,
        json.dumps({"auths": {"acr.example.io": {"identitytoken": t}}}, indent=2),
    )
    p = d.password("maven")
    add(
        "maven-settings-xml-password",
        p,
        f"<server>\n  <id>nexus-releases</id>\n  <username>deployment</username>\n  <password>{p}</password>\n</server>",
    )
    p = d.password("gradle-props")
    add(
        "gradle-properties-password",
        p,
        f"signing.keyId=24875D73\nossrhUsername=acme\nossrhPassword={p}\n",
    )
    t = d.s("s3cfg", 40, BASE64)
    add(
        "s3cmd-s3cfg-secret",
        t,
        f"[default]\naccess_key = AKIA{d.s('s3cfg-id', 16, BASE32)}\nsecret_key = {t}\nhost_base = s3.amazonaws.com\n",
    )
    p = d.password("wpa")
    add("wpa-supplicant-psk", p, f'network={{\n    ssid="office-5g"\n    psk="{p}"\n}}')
    p = d.password("hostapd")
    add("hostapd-wpa-passphrase", p, f"interface=wlan0\nssid=guest\nwpa=2\nwpa_passphrase={p}\n")
    p = d.password("sssd")
    add(
        "sssd-ldap-authtok",
        p,
        f"[domain/example.com]\nldap_default_bind_dn = cn=sssd,dc=example,dc=com\nldap_default_authtok = {p}\n",
    )
    p = d.password("rclone")
    add(
        "rclone-config-pass",
        p,
        f"[nas]\ntype = sftp\nhost = nas.local\nuser = backup\npass = {p}\n",
    )
    p = d.password("git-credentials")
    add("git-credentials-store", p, f"https://jdoe:{p}@git.example.com\n")
    p = d.password("odbc")
    add(
        "odbc-ini-password",
        p,
        f"[warehouse]\nDriver = ODBC Driver 18 for SQL Server\nServer = tcp:sql.example.com,1433\nUID = etl\nPWD = {p}\n",
    )
    # --- connection strings ----------------------------------------------------------------
    p = d.password("mssql-ado")
    add(
        "sqlserver-ado-connection-string",
        p,
        f'"ConnectionStrings": {{ "Default": "Server=sql01;Database=Shop;User Id=shop;Password={p};TrustServerCertificate=True" }}',
    )
    p = d.password("oracle-thin")
    add("oracle-easy-connect", p, f"sqlplus scott/{p}@//db.example.com:1521/ORCLPDB1")
    p = d.password("mongo-srv")
    add(
        "mongodb-srv-uri",
        p,
        f'const uri = "mongodb+srv://app:{p}@cluster0.ab1cd.mongodb.net/?retryWrites=true";',
    )
    p = d.password("libpq-kv")
    add(
        "libpq-keyword-dsn",
        p,
        f'conn = psycopg.connect("host=db port=5432 dbname=app user=app password={p}")',
    )
    p = d.password("amqps")
    add("rabbitmq-amqps-url", p, f"CELERY_BROKER=amqps://worker:{p}@mq.example.com:5671/prod")
    # --- environment variables named by vendors ---------------------------------------------
    t = d.s("ado-pat", 52, BASE32_LOWER)
    add("azure-devops-ext-pat", t, f"export AZURE_DEVOPS_EXT_PAT={t}\naz devops project list")
    t = d.uuid("snyk")
    add("snyk-token-env", t, f"- run: snyk test\n  env:\n    SNYK_TOKEN: {t}")
    t = d.s("vercel", 24, ALNUM)
    add("vercel-token-env", t, f"VERCEL_TOKEN={t} vercel deploy --prod")
    t = d.s("netlify", 43, BASE64URL, marker="nfp_")
    add("netlify-auth-token", t, f"NETLIFY_AUTH_TOKEN={t}")
    t = "fo1_" + d.s("fly", 43, BASE64URL)
    add("fly-api-token", t, f"flyctl deploy --access-token {t}")
    t = d.uuid("codecov")
    add(
        "codecov-upload-token",
        t,
        f"      - uses: codecov/codecov-action@v4\n        with:\n          token: {t}",
    )
    t = "squ_" + d.hex("sonar", 40)
    add(
        "sonarqube-user-token",
        t,
        f"mvn sonar:sonar -Dsonar.host.url=https://sonar.acme.dev -Dsonar.token={t}",
    )
    t = "pul-" + d.hex("pulumi", 40)
    add("pulumi-access-token", t, f'$env:PULUMI_ACCESS_TOKEN = "{t}"')
    t = d.hex("algolia", 32)
    add("algolia-admin-key-constructor", t, f"const client = algoliasearch('LATENCY8Q', '{t}');")
    t = "CFPAT-" + d.s("contentful", 43, BASE64URL)
    add("contentful-management-token", t, f"CONTENTFUL_MANAGEMENT_TOKEN={t}")
    t = "pscale_tkn_" + d.s("planetscale", 43, BASE64URL)
    add("planetscale-service-token", t, f"PLANETSCALE_SERVICE_TOKEN={t}")
    t = d.s("ngrok", 49, BASE64URL, marker="2fake")
    add("ngrok-authtoken-cli", t, f"ngrok config add-authtoken {t}")
    t = "tskey-auth-" + d.s("tailscale-a", 17, ALNUM) + "-" + d.s("tailscale-b", 33, ALNUM)
    add("tailscale-auth-key", t, f"tailscale up --authkey={t}")
    t = "ops_eyJ" + d.s("1password", 120, BASE64URL)
    add(
        "onepassword-service-account-token",
        t,
        f"OP_SERVICE_ACCOUNT_TOKEN={t} op read op://vault/db/password",
    )
    t = "ATBB" + d.s("bitbucket", 28, ALNUM)
    add("bitbucket-app-password", t, f"git clone https://jdoe:{t}@bitbucket.org/acme/api.git")
    t = "figd_" + d.s("figma", 40, BASE64URL)
    add("figma-personal-token", t, f'curl -H "X-Figma-Token: {t}" https://api.figma.com/v1/me')
    t = (
        "2/"
        + d.s("asana-a", 16, string.digits)
        + "/"
        + d.s("asana-b", 16, string.digits)
        + ":"
        + d.hex("asana", 32)
    )
    add("asana-personal-access-token", t, f"ASANA_PAT='{t}'")
    t = "sl." + d.s("dropbox", 135, BASE64URL)
    add("dropbox-short-lived-token", t, f"dbx = dropbox.Dropbox('{t}')")
    t = d.s("pagerduty", 20, ALNUM + "+_-", marker="u+")
    add("pagerduty-rest-key-header", t, f"Authorization: Token token={t}")
    t = d.uuid("opsgenie")
    add(
        "opsgenie-genie-key",
        t,
        f"curl -X POST https://api.opsgenie.com/v2/alerts -H 'Authorization: GenieKey {t}'",
    )
    t = d.s("auth0", 64, BASE64URL)
    add(
        "auth0-client-secret-yaml",
        t,
        f"auth0:\n  domain: acme.eu.auth0.com\n  clientId: {d.s('auth0-id', 32)}\n  clientSecret: {t}",
    )
    t = d.s("keycloak", 32, ALNUM)
    add(
        "keycloak-client-secret-json",
        t,
        json.dumps({"realm": "acme", "resource": "api", "credentials": {"secret": t}}),
    )
    t = d.hex("linode", 64)
    add("linode-cli-token", t, f"[DEFAULT]\ndefault-user = jdoe\n\n[jdoe]\ntoken = {t}\n")
    t = d.s("vultr", 36, UPPER_ALNUM)
    add("vultr-api-key-env", t, f'VULTR_API_KEY="{t}" vultr-cli instance list')
    t = d.s("hcloud", 64, ALNUM)
    add(
        "hetzner-hcloud-token-toml",
        t,
        f'active_context = "prod"\n\n[[contexts]]\nname = "prod"\ntoken = "{t}"\n',
    )
    t = "K00" + d.s("b2", 28, ALNUM + "/+")
    add("backblaze-b2-application-key", t, f"b2 account authorize 0012a3b4c5d6e7f0000000001 {t}")
    t = d.hex("r2", 64)
    add(
        "cloudflare-r2-secret-hcl",
        t,
        f'provider "aws" {{\n  access_key = "{d.hex("r2-id", 32)}"\n  secret_key = "{t}"\n}}',
    )
    t = d.s("spaces", 43, BASE64)
    add("digitalocean-spaces-secret-env", t, f"SPACES_SECRET={t}")
    t = d.s("zendesk", 40, ALNUM)
    add(
        "zendesk-api-token-basic",
        t,
        f"curl https://acme.zendesk.com/api/v2/users.json -u jdoe@example.com/token:{t}",
    )
    t = d.s("mixpanel", 32, HEX)
    add("mixpanel-api-secret-python", t, f'mp = Mixpanel(token, secret="{t}")')
    t = d.s("launchdarkly", 36, HEX)
    t = f"sdk-{t[:8]}-{t[8:12]}-{t[12:16]}-{t[16:20]}-{t[20:32]}"
    add("launchdarkly-sdk-key", t, f'ld_client = ldclient.Client(Config("{t}"))')
    t = d.b64("intercom", 45).rstrip("=") + "="
    add(
        "intercom-access-token-header",
        t,
        f'headers = {{"Intercom-Version": "2.10", "X-Access-Token": "{t}"}}',
    )
    # --- positional arguments of clients and auth calls --------------------------------------
    t = d.hex("pygithub", 40)
    add("pygithub-positional-token", t, f"from github import Github\ng = Github('{t}')")
    t = (
        d.s("discord-run", 24, BASE64URL)
        + "."
        + d.s("discord-run-b", 6, BASE64URL)
        + "."
        + d.s("discord-run-c", 38, BASE64URL)
    )
    add("discordpy-client-run", t, f'client.run("{t}")')
    p = d.password("ftp-login")
    add("ftplib-login", p, f'ftp = ftplib.FTP("ftp.example.com")\nftp.login("uploader", "{p}")')
    p = d.password("imap-login")
    add(
        "imaplib-login",
        p,
        f'mail = imaplib.IMAP4_SSL("imap.example.com")\nmail.login("alerts@example.com", "{p}")',
    )
    p = d.password("ssh-positional")
    add("paramiko-connect-positional", p, f'client.connect("10.0.0.7", 22, "root", "{p}")')
    p = d.password("basic-auth-tuple")
    add("requests-auth-tuple", p, f'r = requests.get(url, auth=("admin", "{p}"))')
    p = d.password("httpbasicauth")
    add("httpbasicauth-constructor", p, f'session.auth = HTTPBasicAuth("svc-reports", "{p}")')
    p = d.password("ldap-bind")
    add("ldap-simple-bind", p, f'conn.simple_bind_s("cn=admin,dc=example,dc=org", "{p}")')
    p = d.password("pymysql")
    add(
        "pymysql-connect-positional",
        p,
        f'db = pymysql.connect("localhost", "root", "{p}", "inventory")',
    )
    t = d.hex("twilio-auth", 32)
    add(
        "twilio-client-positional",
        t,
        f"const client = twilio('AC{d.hex('twilio-sid', 32)}', '{t}');",
    )
    t = d.s("ably-a", 6, ALNUM) + "." + d.s("ably-b", 6, ALNUM) + ":" + d.s("ably-c", 43, BASE64URL)
    add("ably-realtime-key", t, f"const ably = new Ably.Realtime('{t}');")
    p = d.password("jdbc-get-connection")
    add(
        "jdbc-drivermanager-getconnection",
        p,
        f'Connection c = DriverManager.getConnection(url, "app", "{p}");',
    )
    # --- headers, checksummed and prefixed keys ---------------------------------------------
    t = "hvb." + d.s("vault-batch", 90, BASE64URL)
    add("vault-batch-token-header", t, f"X-Vault-Token: {t}")
    t = d.hex("apim", 32)
    add("azure-apim-subscription-key", t, f"Ocp-Apim-Subscription-Key: {t}")
    t = d.s("gitlab-header", 20, BASE64URL)
    add(
        "gitlab-private-token-header",
        t,
        f'curl --header "PRIVATE-TOKEN: {t}" "https://gitlab.example.com/api/v4/projects"',
    )
    t = d.hex("dd-app", 40)
    add("datadog-application-key-header", t, f'-H "DD-APPLICATION-KEY: {t}"')
    basic = base64.b64encode(f"ci:{d.password('nginx-basic')}".encode()).decode()
    add("nginx-proxy-basic-header", basic, f'proxy_set_header Authorization "Basic {basic}";')
    t = "nsec1" + d.s("nostr", 58, BECH32)
    add("nostr-nsec-key", t, f"my nostr key, keep safe: {t}")
    t = "S" + d.s("stellar", 55, BASE32)
    add("stellar-secret-seed", t, f"STELLAR_SEED={t}")
    t = "edsk" + d.s("tezos", 50, BASE58)
    add("tezos-secret-key", t, f'signer = InMemorySigner("{t}")')
    t = d.s("solana", 88, BASE58)
    add("solana-keypair-base58", t, f"const payer = Keypair.fromSecretKey(bs58.decode('{t}'));")
    t = "ed25519_sk1" + d.s("cardano", 58, BECH32)
    add(
        "cardano-signing-key-bech32",
        t,
        f"cardano-address key from-recovery-phrase Shelley > root.xsk\n# {t}",
    )
    t = "AGE-PLUGIN-YUBIKEY-1" + d.s("age-plugin", 44, BECH32.upper())
    add("age-plugin-identity", t, f"# age-plugin-yubikey identity\n{t}")
    t = "shpss_" + d.hex("shopify-ss", 32)
    add("shopify-shared-secret", t, f"SHOPIFY_API_SECRET={t}")
    t = "glsa_" + d.s("grafana-sa", 32, ALNUM) + "_" + d.hex("grafana-sa-b", 8)
    add("grafana-service-account-token", t, f"GF_TOKEN={t}")
    t = "sntrys_" + d.s("sentry-org", 120, BASE64URL)
    add("sentry-org-auth-token", t, f"[auth]\ntoken={t}\n")
    t = "lin_oauth_" + d.hex("linear-oauth", 64)
    add("linear-oauth-token", t, f"headers: {{ Authorization: '{t}' }}")


def _fresh_kinds(d: _Draw, add: Add) -> None:
    """Written after the redactor was tuned on TUNE and the first look at HELD_OUT."""
    t = d.s("boto", 40, BASE64)
    add(
        "boto-gs-secret",
        t,
        f"[Credentials]\ngs_access_key_id = GOOG{d.s('boto-id', 20, UPPER_ALNUM)}\ngs_secret_access_key = {t}\n",
    )
    t = d.s("kubeconfig", 64, BASE64URL)
    add("kubeconfig-user-token", t, f"users:\n- name: ci\n  user:\n    token: {t}\n")
    p = d.password("helm")
    add("helm-values-admin-password", p, f"grafana:\n  adminUser: admin\n  adminPassword: {p}\n")
    p = d.password("ansible")
    add(
        "ansible-become-pass",
        p,
        f"[web]\nweb1 ansible_host=10.0.0.3 ansible_user=deploy ansible_become_pass={p}\n",
    )
    t = "$apr1$" + d.s("htpasswd-salt", 8, ALNUM + "./") + "$" + d.s("htpasswd", 22, ALNUM + "./")
    add("htpasswd-entry", t, f"admin:{t}\n")
    t = d.s("git-extraheader", 40, ALNUM)
    add(
        "git-config-extraheader",
        t,
        f'[http "https://git.example.com/"]\n\textraheader = AUTHORIZATION: bearer {t}\n',
    )
    p = d.password("composer")
    add(
        "composer-auth-json",
        p,
        json.dumps(
            {"http-basic": {"repo.example.org": {"username": "ci", "password": p}}}, indent=4
        ),
    )
    t = "cio" + d.s("cargo", 32, ALNUM)
    add("cargo-credentials-toml", t, f'[registry]\ntoken = "{t}"\n')
    t = "rubygems_" + d.hex("rubygems", 48)
    add("gem-credentials-yaml", t, f"---\n:rubygems_api_key: {t}\n")
    t = d.s("yarnrc", 36, ALNUM)
    add(
        "yarnrc-npm-auth-token",
        t,
        f'npmScopes:\n  acme:\n    npmAlwaysAuth: true\n    npmAuthToken: "{t}"\n',
    )
    p = d.password("nuget")
    add(
        "nuget-cleartext-password",
        p,
        f'<packageSourceCredentials>\n  <acme>\n    <add key="Username" value="ci" />\n    <add key="ClearTextPassword" value="{p}" />\n  </acme>\n</packageSourceCredentials>',
    )
    p = d.password("expect")
    add(
        "expect-script-send",
        p,
        f'spawn ssh root@10.0.0.9\nexpect "password:"\nsend "{p}\\r"\ninteract',
    )
    t = d.s("oauth2-bearer", 40, ALNUM)
    add("curl-oauth2-bearer-flag", t, f"curl --oauth2-bearer {t} https://api.example.com/v1/me")
    p = d.password("wget")
    add(
        "wget-http-password",
        p,
        f"wget --http-user=ci --http-password={p} https://files.example.com/build.tar.gz",
    )
    p = d.password("kubectl-literal")
    add(
        "kubectl-from-literal",
        p,
        f"kubectl create secret generic db --from-literal=username=app --from-literal=password={p}",
    )
    p = d.password("keyring")
    add("keyring-set-password", p, f'keyring.set_password("smtp", "alerts@example.com", "{p}")')
    t = d.s("minio", 40, BASE64)
    add(
        "minio-static-credentials",
        t,
        f'creds := credentials.NewStaticV4("AKIA{d.s("minio-id", 16, BASE32)}", "{t}", "")',
    )
    p = d.password("pdo")
    add("php-pdo-constructor", p, f"$pdo = new PDO($dsn, 'root', '{p}');")
    p = d.password("java-creds")
    add(
        "java-username-password-credentials",
        p,
        f'Credentials c = new UsernamePasswordCredentials("svc", "{p}");',
    )
    p = d.password("csharp-netcred")
    add(
        "csharp-network-credential", p, f'client.Credentials = new NetworkCredential("svc", "{p}");'
    )
    p = d.password("ssh-keygen")
    add("ssh-keygen-passphrase-flag", p, f'ssh-keygen -t ed25519 -N "{p}" -f ~/.ssh/deploy')
    p = d.password("openssl-pass")
    add(
        "openssl-passout",
        p,
        f"openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:{p}",
    )
    p = d.password("zip")
    add("zip-password-flag", p, f"zip -P {p} backup.zip db.sql")
    t = d.s("vault-login", 26, ALNUM)
    add("vault-login-positional", t, f"vault login {t}")
    t = d.s("rust-client", 32, ALNUM)
    add("rust-client-new", t, f'let client = Client::new("{t}");')


# Fixed before the redactor was tuned for issue 27 (see the module docstring).
TUNE: frozenset[str] = frozenset(
    {
        "ably-realtime-key",
        "auth0-client-secret-yaml",
        "azure-devops-ext-pat",
        "backblaze-b2-application-key",
        "cardano-signing-key-bech32",
        "cloudflare-r2-secret-hcl",
        "codecov-upload-token",
        "contentful-management-token",
        "datadog-application-key-header",
        "docker-config-identitytoken",
        "figma-personal-token",
        "fly-api-token",
        "ftplib-login",
        "gradle-properties-password",
        "grafana-service-account-token",
        "hetzner-hcloud-token-toml",
        "httpbasicauth-constructor",
        "imaplib-login",
        "jdbc-drivermanager-getconnection",
        "keycloak-client-secret-json",
        "libpq-keyword-dsn",
        "linear-oauth-token",
        "linode-cli-token",
        "my-cnf-client-section",
        "netlify-auth-token",
        "netrc-default-entry",
        "netrc-multiline",
        "nginx-proxy-basic-header",
        "nostr-nsec-key",
        "npmrc-legacy-password",
        "npmrc-private-registry-authtoken",
        "odbc-ini-password",
        "onepassword-service-account-token",
        "opsgenie-genie-key",
        "pagerduty-rest-key-header",
        "pgpass-line",
        "pulumi-access-token",
        "pygithub-positional-token",
        "pymysql-connect-positional",
        "rabbitmq-amqps-url",
        "rclone-config-pass",
        "redis-masterauth",
        "s3cmd-s3cfg-secret",
        "sentry-org-auth-token",
        "stellar-secret-seed",
        "tezos-secret-key",
        "vault-batch-token-header",
        "vercel-token-env",
        "vultr-api-key-env",
        "wpa-supplicant-psk",
        "zendesk-api-token-basic",
    }
)
HELD_OUT: frozenset[str] = frozenset(
    {
        "age-plugin-identity",
        "algolia-admin-key-constructor",
        "asana-personal-access-token",
        "azure-apim-subscription-key",
        "bitbucket-app-password",
        "digitalocean-spaces-secret-env",
        "discordpy-client-run",
        "dropbox-short-lived-token",
        "git-credentials-store",
        "gitlab-private-token-header",
        "hostapd-wpa-passphrase",
        "intercom-access-token-header",
        "launchdarkly-sdk-key",
        "ldap-simple-bind",
        "maven-settings-xml-password",
        "mixpanel-api-secret-python",
        "mongodb-srv-uri",
        "ngrok-authtoken-cli",
        "oracle-easy-connect",
        "paramiko-connect-positional",
        "pgpass-wildcard-line",
        "planetscale-service-token",
        "pypirc-private-index",
        "redis-requirepass",
        "requests-auth-tuple",
        "shopify-shared-secret",
        "snyk-token-env",
        "solana-keypair-base58",
        "sonarqube-user-token",
        "sqlserver-ado-connection-string",
        "sssd-ldap-authtok",
        "tailscale-auth-key",
        "twilio-client-positional",
    }
)

# Written after the first look at HELD_OUT and measured once (see the module docstring).
FRESH: frozenset[str] = frozenset(
    {
        "ansible-become-pass",
        "boto-gs-secret",
        "cargo-credentials-toml",
        "composer-auth-json",
        "csharp-network-credential",
        "curl-oauth2-bearer-flag",
        "expect-script-send",
        "gem-credentials-yaml",
        "git-config-extraheader",
        "helm-values-admin-password",
        "htpasswd-entry",
        "java-username-password-credentials",
        "keyring-set-password",
        "kubeconfig-user-token",
        "kubectl-from-literal",
        "minio-static-credentials",
        "nuget-cleartext-password",
        "openssl-passout",
        "php-pdo-constructor",
        "rust-client-new",
        "ssh-keygen-passphrase-flag",
        "vault-login-positional",
        "wget-http-password",
        "yarnrc-npm-auth-token",
        "zip-password-flag",
    }
)


def _split(name: str) -> str:
    return "tune" if int(hashlib.sha256(name.encode()).hexdigest()[0], 16) % 2 == 0 else "held-out"


def build_unlisted(seed: int) -> list[UnlistedSample]:
    """Every held-out-evaluation sample, drawn from *seed* (same seed, same corpus)."""
    samples: list[UnlistedSample] = []

    def add(name: str, secret: str, context: str) -> None:
        samples.append(UnlistedSample(name, secret, context))

    draw = _Draw(seed)
    _kinds(draw, add)
    _fresh_kinds(draw, add)
    names = [s.name for s in samples]
    assert len(names) == len(set(names)), "kind names must be unique"
    assert set(names) == TUNE | HELD_OUT | FRESH, "every kind in one part"
    assert not (TUNE & HELD_OUT or TUNE & FRESH or HELD_OUT & FRESH), "parts overlap"
    return samples
