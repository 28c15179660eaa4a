"""The fourth batch of credential kinds, written without reading the redactor's rules.

``tests/support/fourth_batch_secrets.py`` is split once, before any run, into a tune part and a
held-out part; these tests keep that split honest (fixed, disjoint, a third held out, no kind
repeated from the earlier corpora), keep every sample well formed, keep the tune part out of
stored text, and keep records, directives, commands and files that hold no literal secret
readable. The held-out part has had its one look (14 of 88 kinds stored); the fixes that
followed are tested here too, so that part is no longer unseen.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from comodor_lsp.brain.redaction.redactor import redact

from tests.support.fourth_batch_secrets import (
    HELD_OUT,
    TUNE,
    _split,
    build_fourth_batch,
    older_names,
)
from tests.support.unlisted_secrets import (
    UnlistedSample,
    check_samples_well_formed,
    check_secrets_drawn_from_seed,
    stored_kinds,
)


def test_the_fourth_batch_has_120_kinds_or_more_none_of_them_named_before() -> None:
    names = {sample.name for sample in build_fourth_batch(0)}
    assert len(names) >= 120
    assert not names & older_names()


def test_the_fourth_batch_is_split_by_its_fixed_seed_into_a_third_held_out() -> None:
    names = [sample.name for sample in build_fourth_batch(3)]
    assert _split(names) == (set(TUNE), set(HELD_OUT))
    assert not TUNE & HELD_OUT
    assert set(names) == TUNE | HELD_OUT
    assert len(HELD_OUT) == len(names) // 3


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_every_sample_of_the_fourth_batch_builds_with_its_secret_in_its_context(seed: int) -> None:
    check_samples_well_formed(build_fourth_batch, seed)


def test_the_fourth_batch_draws_every_secret_from_its_seed() -> None:
    check_secrets_drawn_from_seed(build_fourth_batch)


# Samples whose recorded secret holds more than the secret. cloudinary-url-env records the
# whole CLOUDINARY_URL (cloudinary://<api key>:<api secret>@<cloud name>); the scheme and the
# cloud name are no secret (the cloud name is in every image URL the account serves), and
# redaction keeps them like any URL's scheme and host. Only the user-info must go.
_SECRET_PART: dict[str, Callable[[str], str]] = {
    "cloudinary-url-env": lambda secret: secret.split("://", 1)[1].rsplit("@", 1)[0],
}


def _pieces(sample: UnlistedSample) -> set[str]:
    """The sample's 8-character pieces (:attr:`UnlistedSample.shingles`) of its secret part."""
    part_of = _SECRET_PART.get(sample.name)
    if part_of is None:
        return sample.shingles
    part = part_of(sample.secret)
    rest = sample.context.replace(sample.secret, "\0")
    pieces = {part[i : i + 8] for i in range(len(part) - 7)}
    return {piece for piece in pieces if piece not in rest}


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_credentials_of_the_tune_part_are_not_stored(seed: int) -> None:
    stored = []
    for sample in build_fourth_batch(seed):
        if sample.name not in TUNE:
            continue
        redacted = redact(sample.context)
        if any(piece in redacted for piece in _pieces(sample)):
            stored.append((sample.name, redacted))
    assert stored == []


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_credentials_of_the_held_out_part_are_not_stored_after_fixing(seed: int) -> None:
    """The held-out part's first look stored 14 of 88 kinds (over 20 seeds); the fixes that
    followed are general rules (a secret known by where it stands: a variable's default, a
    credential flag, a K/V record, a parameter's Default:, a proxy line, a key file's body),
    but from here on this part is not unseen."""
    assert stored_kinds(build_fourth_batch(seed), HELD_OUT) == []


@pytest.mark.parametrize(
    "text",
    [
        # Look-alikes of the held-out part's fixes that hold no literal secret.
        "ssh-keygen --key-file ~/.ssh/id_ed25519 --comment ci",
        "aws kms decrypt --key alias/my-key",
        "openssl rsautl --key server.key -in a",
        "npx cypress run --record --key $CYPRESS_RECORD_KEY",
        "curl -P 8080 http://example.com",
        'gpg-preset-passphrase --preset -P "$PASSPHRASE" 572A2F177CF735CA733DEB01B23F41A8391E86DE',
        "plink -ssh -pw %PW% host",
        'skopeo copy --dest-creds "$USER:$PASS" docker://a docker://b',
        "cache_peer parent.example parent 3128 0 no-query login=PASSTHRU\n",
        'port = ENV.fetch("PORT") { "3000" }',
        'debug = os.getenv("DEBUG", "false")',
        'const level = process.env.LOG_LEVEL || "info"',
        "echo ${DB_PASSWORD:-$FALLBACK_PASSWORD}",
        "Parameters:\n  InstanceType:\n    Type: String\n    Default: t3.micro\n",
        "Parameters:\n  KeyName:\n    Type: AWS::EC2::KeyPair::KeyName\n    Default: my-keypair\n",
        "K 8\nusername\nV 4\njdoe\nEND\n",
        "[ProxyList]\nsocks5 127.0.0.1 9050\nhttp 10.0.0.1 8080\n",
        "$ cat ~/.ssh/id_rsa.pub\nssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC me@host\n",
        "snmp-server community public RO",
        "node.session.auth.password = config.Password",
        'ansible-playbook site.yml -e "db_password={{ vault_pw }} app_version=2.4.1"',
        # Records, maps and tuples whose value is a reference, a placeholder or no secret.
        '{"name": "password", "value": "${DB_PASSWORD}"}',
        '{"name": "token", "value": "<your-token>"}',
        '{"name": "Accept", "value": "application/json"}',
        '{"key": "theme", "value": "dark"}',
        'options = [{"name": "password", "value": password}]',
        '<input type="password" name="password" value="">',
        '<input name="csrf_token" value="{{ csrf_token() }}">',
        '- name: API_TOKEN\n  value: "{{ .Values.token }}"\n',
        '"tokens": {"max": 4096, "used": 12}',
        '{password, os:getenv("DB_PW")}',
        "resp = sm.get_secret_value(SecretId='MyTestSecret')",
        "<PasswordPolicy>strict</PasswordPolicy>",
        "<token>${TOKEN}</token>",
        "password: ${DB_PASSWORD}",
        'token = os.environ["X"]',
        # Commands whose password comes from elsewhere, and switches that are no password.
        'echo "$REGISTRY_PASSWORD" | docker login -u ci --password-stdin',
        "msbuild App.sln /p:Configuration=Release /p:Platform=x64",
        "xfreerdp /v:host /u:jdoe /p:$env:RDP_PW",
        "net use Z: \\\\fs01\\finance * /user:ACME\\jdoe",
        "schtasks /create /tn x /ru svc /rp * /tr x.exe",
        "erl -name a@h -setcookie $COOKIE",
        "foo -token token.txt",
        'echo "$KEYSTORE_B64" | base64 --decode > release.jks',
        "$pw = ConvertTo-SecureString $env:PW -AsPlainText -Force",
        "zk> addauth digest admin:${ZK_PW}",
        'dsn := fmt.Sprintf("%s:%s@tcp(%s)/%s", user, pass, host, db)',
        "git remote add origin git@github.com:acme/widgets.git",
        # Directives, sections and files that name secrets but hold none here.
        "sentinel auth-pass mymaster ${REDIS_PW}\n",
        "    if pwd and tarinfo.uname:\n",
        "HTTP_Passwd ${ES_PASSWORD}\n",
        "rocommunity public\n",
        "[auth]\nmethod = token\nenabled = true\n",
        "$USER1$=/usr/local/nagios/libexec\n$USER2$=monitor\n",
        "# /etc/passwd\nroot:x:0:0:root:/root:/bin/bash\n",
        "# ~/.ssh/authorized_keys\n"
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"
        " me@host\n",
        'user = "www-data:www-data"',
        # Shapes of keys that are data: ranges, addresses, hex of plain text, slugs in URLs.
        "[" + ",".join(str(i) for i in range(32)) + "]",
        "account: 0x" + "ab12" * 16,
        'x = "' + b"hello world, this is just text ok".hex() + '"',
        "https://discourse.example.com/t/how-to-configure-the-proxy/12345",
        "AWS::IAM::AccessKey is a resource type",
        # Code in client-vscode/node_modules the widened rules first took (bench --arm kinds).
        "this.cred = new clientAssertionCredential_js_1.ClientAssertionCredential(tenantId, id)",
        "const token = await options.credential.getOAuth2Token(scheme.flows, {",
        " * [overview](https://aka.ms/azsdk/js/identity/credential-chains#use-chained-for-x).\n"
        ' */\nreturn tracing_js_1.tracingClient.withSpan("ChainedTokenCredential.getToken", o);\n',
        "t.equal(URI.equal('mailto:addr1@an.example', 'mailto:?to=addr1@an.example'), true)",
        "components = fastURI.parse('mailto:gorby%25kremvax@example.com')",
        "userinfo: 'us\\xA0er:pa\\uD7FFss',",
    ],
)
def test_records_directives_commands_and_files_without_a_literal_secret_are_left_untouched(
    text: str,
) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        # The tune part's families in syntaxes the tune part does not use.
        ('<param name="password" value="Harbor96BoA7"/>', "Harbor96BoA7"),
        ("<keyMaterial>Harbor96BoA7xx</keyMaterial>", "Harbor96BoA7xx"),
        (
            '"db_password": {\n  "sensitive": true,\n  "value": "Tiger46IeDuht4"\n}',
            "Tiger46IeDuht4",
        ),
        ('set {\n  name  = "adminPassword"\n  value = "Tiger46IeDuht4"\n}', "Tiger46IeDuht4"),
        ('{:password, "Harbor964fUK"}', "Harbor964fUK"),
        ('{:db/password "Harbor964fUK" :db/user "app"}', "Harbor964fUK"),
        ('password <- "Harbor96BoA7"', "Harbor96BoA7"),
        ("    user admin insecure-password Harbor96BoA7\n", "Harbor96BoA7"),
        ("ntp authentication-key 1 md5 Harbor96BoA7\n", "Harbor96BoA7"),
        ("tacacs-server key 7 0822455D0A16\n", "0822455D0A16"),
        ("rocommunity Harbor96BoA7 10.0.0.0/8", "Harbor96BoA7"),
        ("userPassword: {SSHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=", "W6ph5Mm5Pz8GgiULbPgzG37mj9g="),
        ("127.0.0.1:6379> AUTH Harbor96BoA7", "Harbor96BoA7"),
        ("net user jdoe Harbor96BoA7! /add", "Harbor96BoA7!"),
        ("schtasks /create /tn x /ru svc /rp Harbor96BoA7 /tr x.exe", "Harbor96BoA7"),
        ("DATABASE=app:Harbor96BoA7^@db.internal:5432/app", "Harbor96BoA7^"),
        ("user: root:Secret9Pass", "Secret9Pass"),
        ("https://example.com/api/token/4z-285498a8-840b-47bf-aac4-0e853b631754/x", "285498a8"),
        (
            ".example.com\tTRUE\t/\tTRUE\t1767225600\tsessionid\thhs443njgvbcietvl4kibs31ykhlolof",
            "hhs443njgvbcietvl4kibs31ykhlolof",
        ),
        (
            "send: b'GET / HTTP/1.1\\r\\nX-Token: q8Zr2LmT5vB2nR8wZ1yA4cD6\\r\\n\\r\\n'",
            "q8Zr2LmT5vB2nR8wZ1yA4cD6",
        ),
        ("hex: " + b'{"password": "Harbor96BoA7"}'.hex(), b"Harbor96".hex()),
        # The held-out part's families in syntaxes it does not use.
        ('const s = process.env.SESSION_SECRET ?? "Harbor96BoA7"', "Harbor96BoA7"),
        ('DATABASE_URL="postgres://app:${DB_PASSWORD:-Harbor96BoA7}@db/app"', "Harbor96BoA7"),
        (
            "Parameters:\n  AdminSecret:\n    Type: String\n    Default: 'Harbor96BoA7'\n",
            "Harbor96",
        ),
        ("pscp -pw Harbor96BoA7 file.txt deploy@host:/tmp/", "Harbor96BoA7"),
        ("buildah push --creds ci:Harbor96BoA7 img docker://r/img", "Harbor96BoA7"),
        ("percy exec --key qWeRtYuIoPaSdFgHjKlZ -- cmd", "qWeRtYuIoPaSdFgHjKlZ"),
        ("http 10.0.0.5 3128 proxyuser Harbor96BoA7\n", "Harbor96BoA7"),
        ("K 10\npassphrase\nV 12\nHarbor96BoA7\n", "Harbor96BoA7"),
        ("$ cat config/master.key\n4f7c2e9a1b3d5f608a7c9e1b2d4f6a8c\n", "4f7c2e9a1b3d5f60"),
        ('ansible-playbook x.yml -e "admin_token=Harbor96_BoA7 env=prod"', "Harbor96_BoA7"),
        ("node.session.auth.password = Tiger98oiTnz.H", "Tiger98oiTnz"),
    ],
)
def test_secrets_of_the_tune_parts_families_in_other_syntaxes_are_removed(
    text: str, secret: str
) -> None:
    assert secret not in redact(text)


def test_every_child_of_a_credentials_map_is_removed_not_only_the_first() -> None:
    text = (
        '{\n  "credentials": {\n    "staging": {"id": "stg-01", "value": "bb3SSvMymi7DmUNFjVMz"},\n'
        '    "production": {\n      "id": "prd-01",\n      "value": "MCH6NgrIeFf3DoF1pz0p"\n'
        '    }\n  },\n  "retry": {"max": 5}\n}\n'
    )
    redacted = redact(text)
    assert "bb3SSvMymi7DmUNFjVMz" not in redacted
    assert "MCH6NgrIeFf3DoF1pz0p" not in redacted
    assert '"retry": {"max": 5}' in redacted


def test_an_api_key_map_of_network_names_in_a_js_config_is_removed() -> None:
    text = (
        "etherscan: {\n  apiKey: {\n    mainnet: 'QNBQ3IC44E42FG9FZB6CUB8APIUW9IKRW5',\n"
        '    polygon: "2GOJP0XUGHUB7S3KYYF1SDXN3U6JKN5GSF",\n  },\n},\n'
    )
    redacted = redact(text)
    assert "QNBQ3IC44E42FG9F" not in redacted
    assert "2GOJP0XUGHUB7S3K" not in redacted


@pytest.mark.parametrize(
    "text",
    [
        "apiKey: { type: String, required: true, select: false },",
        'const apiKey = {en: "API key", de: "API-Schlüssel"}',
        "apiKey: {\n  mainnet: process.env.ETHERSCAN_KEY,\n  polygon: '${POLYGON_KEY}',\n}",
        '"credentials": {"staging": {"id": "stg-01"}, "production": {"region": "eu-west-1"}}',
    ],
)
def test_a_credentials_or_api_key_map_holding_no_literal_is_left_alone(text: str) -> None:
    assert redact(text) == text
