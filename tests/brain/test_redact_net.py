# ruff: noqa: E501  (lines of config and code are data here)
"""The last-line net: a secret-shaped value where a value stands is caught whatever its format.

Each fresh batch of credential kinds leaked at first look because the named rules know only
formats someone had seen. These tests run the net alone (every named rule off) over one
example of each place and shape it is meant for, run the whole catalogue over look-alikes a
user's code is full of, and keep the leave-family-out figure from falling.
"""

from __future__ import annotations

import pytest
from comodor_lsp.brain.redaction import LAST_LINE
from comodor_lsp.brain.redaction.redactor import redact
from comodor_lsp.brain.redaction.rules.entropy import ENTROPY_RULES
from comodor_lsp.brain.redaction.rules.net import NET_RULES

from tests.support.last_line import caught_alone

MARK = "[REDACTED:secret-shaped-value]"


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        # assignments and key/value pairs of many syntaxes
        ("admin_password = Copper69h5aYe\n", "Copper69h5aYe"),
        ("database:\n  password: Maple20maA7\n", "Maple20maA7"),
        (
            '{"apiToken": "Kbn9MKGkEzIeNMXynkKwSJejFA00n2mNjeMvRoVr"}',
            "Kbn9MKGkEzIeNMXynkKwSJejFA00n2mNjeMvRoVr",
        ),
        ('<user name="ops" password="Orbit26EQB87hBn" roles="admin"/>', "Orbit26EQB87hBn"),
        ("<Password>Orbit26EQB87hBn</Password>", "Orbit26EQB87hBn"),
        ("  'dbpassword' => 'Maple12.T9wMaf%',", "Maple12.T9wMaf%"),
        ('\tPassword: "Summer15Yr_z^",', "Summer15Yr_z^"),
        ('{db, [{user, "acme"}, {password, "Harbor964fUK"}]}', "Harbor964fUK"),
        ('  users.root.hashedPassword = "Tiger46IeDuht4";', "Tiger46IeDuht4"),
        ("root_password           => 'Tiger55xIIaw',", "Tiger55xIIaw"),
        # flags, prose, headers, a scheme before the value
        (
            "acme-cli deploy --api-token=Zkm0O9UJYvDfF6dk2Ohk6pCLXATHcHwF",
            "Zkm0O9UJYvDfF6dk2Ohk6pCLXATHcHwF",
        ),
        ("the temp password is Lantern68qHPhtop.", "Lantern68qHPhtop"),
        ("PASSWD Harbor92VvgyS%g", "Harbor92VvgyS%g"),
        ("pw=Tiger1234xQ", "Tiger1234xQ"),
        (
            "X-Acme-Token: twkg7bpc4uvo3ui2l5uwq2zjdgudvphaq3f6",
            "twkg7bpc4uvo3ui2l5uwq2zjdgudvphaq3f6",
        ),
        (
            "-H 'Authorization: GenieKey 6a089000-1704-47a3-a8f0-81008dd02f21'",
            "6a089000-1704-47a3-a8f0-81008dd02f21",
        ),
        # arguments of a call or a command the word names
        ('session.auth = HTTPBasicAuth("svc-reports", "Copper49Ad#3rHz")', "Copper49Ad#3rHz"),
        ("acme login deploy Maple106MadS", "Maple106MadS"),
        (
            'api = Sdk.builder().secret_key("sk_sbox_5napsjc2rvnrsxvegu2cdudtlc").build()',
            "sk_sbox_5napsjc2rvnrsxvegu2cdudtlc",
        ),
        # a user and a password joined by a colon or a comma, a URL's user-info
        ("lftp -u deploy,Lantern87v.7y sftp://files.acme.dev", "Lantern87v.7y"),
        ("etcdctl --user root:Harbor71ByERHyV get /registry", "Harbor71ByERHyV"),
        ('user = "jdoe:Tiger81_TmzD"', "Tiger81_TmzD"),
        (
            "CELERY_BROKER=amqps://worker:Lantern49g4bbbp@mq.example.com:5671/prod",
            "Lantern49g4bbbp",
        ),
        # an issuer's prefix before a draw, hex under a strong name
        (
            "access-token: dop_v1_293326c35be4da0e306c34f8f1386bc342beb31002229d395634e6a6a2172922\n",
            "dop_v1_293326c35be4da0e306c34f8f1386bc342beb31002229d395634e6a6a2172922",
        ),
        (
            "signing_secret: fa4eb53bac5a2dba3dfcaaf79e0d7fb402ea6fed54a1248db0c8d88bb04b03f9\n",
            "fa4eb53bac5a2dba3dfcaaf79e0d7fb402ea6fed54a1248db0c8d88bb04b03f9",
        ),
        ("POSTGRES_PASSWORD=postgres196\n", "postgres196"),
        ("DB_PASSWORD=FakePass1nW%TZ5z4kdg", "FakePass1nW%TZ5z4kdg"),
        (
            "PRIVATE_KEY=0xfa4eb95598187d1c4a0edc05f223fd987b9cef85be1647f7355d9b19cf68defb",
            "fa4eb95598187d1c4a0edc05f223fd987b9cef85be1647f7355d9b19cf68defb",
        ),
        (
            "vault login hvs.CAESIV6G8IuP0r0uDgdiZ5riWwVyZaca0Oo8Z2",
            "CAESIV6G8IuP0r0uDgdiZ5riWwVyZaca0Oo8Z2",
        ),
        # on the line after a name that ends its own line
        (
            "$ acme auth print-refresh-token\nrt1.Vq8WnZ3kLp5Xs2Yd7MfB4cHj9TgR6\n",
            "rt1.Vq8WnZ3kLp5Xs2Yd7MfB4cHj9TgR6",
        ),
        ("      - name: smtp-password\n        value: 'Harbor52Qx!vz'\n", "Harbor52Qx!vz"),
        ('{"Name": "DbAdminPassword",\n "Value": "Lantern17Kd#q"}', "Lantern17Kd#q"),
        ('expect "Passphrase:"\nsend "Copper38vT!ez\\r"\n', "Copper38vT!ez"),
        # secret words of other languages, more endings, a qualifier after the word
        ("DB_PASSWORT=Kx7#vQ2mLp9z", "Kx7#vQ2mLp9z"),
        ("  contraseña: 'Zr5%tW8nBq2j'", "Zr5%tW8nBq2j"),
        ('mot_de_passe = "Hw4!pL7sQz9c"', "Hw4!pL7sQz9c"),
        ("wachtwoord: Vb6^mN3xRt8k", "Vb6^mN3xRt8k"),
        ("GITLAB_PAT=Qm3vT8xLw2Zr6pNb9sKd", "Qm3vT8xLw2Zr6pNb9sKd"),
        ("webhook_hmac: 'Yt5#kP9wQz2mLx7v'", "Yt5#kP9wQz2mLx7v"),
        (
            "secret_key_base: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n",
            "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        ),
        (
            "ACME_APIKEY_PRIVATE=0c4f9e7a2b8d1f6e3a5c7b9d2e4f6a8c",
            "0c4f9e7a2b8d1f6e3a5c7b9d2e4f6a8c",
        ),
        # a person's password with no name near, by its shape alone
        ('ssh.connect("10.0.0.7", 22, "root", "Harbor47k!Vq2")', "Harbor47k!Vq2"),
        ("jdoe\t*\tMaple31xR^tQ\t*\n", "Maple31xR^tQ"),
        ("7z a -pCopper29wQ#xv backup.7z /srv", "Copper29wQ#xv"),
        ("sqlplus scott/Tiger94xvwUX@//db.example.com:1521/ORCL", "Tiger94xvwUX"),
        ("net use Z: \\\\fs01\\finance Harbor72H.ZnD /user:ACME\\jdoe", "Harbor72H.ZnD"),
    ],
)
def test_the_net_alone_catches_a_secret_shaped_value_wherever_a_value_stands(
    text: str, secret: str
) -> None:
    redacted = redact(text, rules=NET_RULES)
    assert secret not in redacted
    assert MARK in redacted


@pytest.mark.parametrize(
    "text",
    [
        # code: references, calls, attributes, indexes, type names, formats
        "token = tokens[0]",
        "password = getpass.getpass()",
        "api_key = settings.API_KEY",
        "private_key: Ed25519PrivateKey | Ed448PrivateKey",
        'password = "%s:%s" % (user, pw)',
        "buf = new Buffer(password, 'utf16le');",
        "createToken('GTE0PRE', '^\\\\s*>=\\\\s*0\\\\.0\\\\.0-0\\\\s*$')",
        "'Authorization': type1msg",
        "password = password2",
        'toolskey = "VS%0.f0COMNTOOLS" % version',
        "RegEnumKey = win32api.RegEnumKey",
        "def open(self, name, mode='r', pwd=None, *, force_zip64=False):",
        # ids, hashes, versions, paths, hosts, algorithm names
        "cache_key = 5d41402abc4b2a76b9719d911017c592",
        "session_key = 123e4567-e89b-12d3-a456-426614174000",
        "token_commit: 3f786850e387550fdab836ed7e6dc881de23001b",
        '"AWS::IAM::AccessKey": "62d91b17309e76c8",',
        "auth_version: v3.2.1",
        "password_file: /etc/app/pass.txt",
        "token_url: https://auth.example.com/oauth2/token",
        'keyAlg: "PBES2g-HS256"',
        "auth_host = gotham.b5local.com:4000",
        'sshpass -p "$PASS" ssh deploy@10.0.0.5 uptime',
        # lockfile integrity, test data, colours, i18n keys, names of other fields
        '"integrity": "sha512-Hc7FAYvPJJiUVpsmUQoHL1G7NHoNuYHDdHIpFhtbA8F8Ff7d9DVR1OvkuE1DtzQqVPDJ3mOmGwZ9Z4ixBRcZSQ=="',
        'key = "aGVsbG8gd29ybGQ="',
        'key: "#ff00aa"',
        '"auth.login.error2": "Invalid password"',
        '"ARN": "arn:aws:secretsmanager:us-west-2:123456789012:secret:MyTestSecret-a1b2c3",',
        "for key in sorted(keys):",
        'url = "http://localhost:8080/path"',
        "def login(user: str, pw: str) -> None:",
        "user:group 1000:1000",
        # found in site-packages while tuning: attribute paths, pairs, hex ranges, escapes, flags
        "MLKEM768X25519PrivateKey = rust_openssl.hpke.MLKEM768X25519PrivateKey",
        "key1=value1//key2=value2//...",
        "# RFC 7230 token chars minus DEL; visible ASCII 0x20-0x7E is the bound",
        "outmess('Will pass --lower to f2py\\nSee https://numpy.org/doc/')",
        "cookie-set remember_me token123 --expires=1893456000",
        "passes = 3",
        # a name that ends its line, and code on the next
        'if not password:\n    raise ValueError("missing_password_value")\n',
        "for key in keys:\n    print(key)\n",
        "token:\n  required: true\n  type: string\n",
        # a capitalised word and digits in names of types, ids and attributes
        "from pydantic import Base64Str, Base64Bytes",
        "__Complex128_co: TypeAlias = np.number[_64Bit]",
        '"Sid": "Stmt1480452973134",',
        "route53 = boto3.client('route53'); Route53.Client.list_hosted_zones",
        "Route53Actions0 = ['route53:Get*']",
        "python3 -m venv Python312env && Windows10Home Ubuntu2204LTS",
        "kernel = win32.Kernel32.INSTANCE",
        # the new words and endings where code uses them
        "PBKDF2HMAC = rust_openssl.kdf.PBKDF2HMAC",
        "random_seed = 1234",
        "salt = os.urandom(16)",
        "token_data = response.json()",
        "key_data: bytes = b''",
        "task_sk = tasks[0]",
        "GetStdHandle = ctypes.windll.Kernel32.GetStdHandle",
        "const Base64Url$ = Base64Url$1;",
    ],
)
def test_code_ids_hashes_and_test_data_next_to_a_secret_word_are_left_untouched(
    text: str,
) -> None:
    # The rules that need no format alone: what the named rules make of these is theirs.
    assert redact(text, rules=LAST_LINE) == text


def test_the_net_and_the_random_token_net_alone_catch_most_kinds_of_every_earlier_corpus() -> None:
    """Leave-family-out, seed 0, over the five earlier corpora (884 kinds, the fifth batch a
    part of its own). Measured (bench/redaction.py --arm last-line, seeds 0-4, a kind caught in
    every seed): the random-token net alone 31%, the net alone 76%, both 82% (the fifth batch,
    held out while the net was widened, 87%). Per seed 0-3: both 86-87%, held-out parts 89-90%,
    the net alone 79-80%, the net's lift over the random-token net 53-54 points. The bounds
    leave five points for other seeds. With the eighth batch (1,633 kinds), whose providers'
    prefixed tokens the random-token net takes alone more often, seed 0: both 88%, the lift 48
    points."""
    both = caught_alone(LAST_LINE, [0])
    kinds = sum(k for k, _ in both.values())
    caught = sum(c for _, c in both.values())
    assert caught >= 0.81 * kinds
    held_out = [both[part] for part in both if "held-out" in part or "fresh" in part]
    assert sum(c for _, c in held_out) >= 0.84 * sum(k for k, _ in held_out)
    net_alone = sum(c for _, c in caught_alone(NET_RULES, [0]).values())
    assert net_alone >= 0.75 * kinds
    # The net is what lifts it: the random-token net alone stays near a third.
    entropy_alone = sum(c for _, c in caught_alone(ENTROPY_RULES, [0]).values())
    assert caught >= entropy_alone + 0.46 * kinds


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("define('BDD_MOT_DE_PASSE', 'Summer79WyUKILSW');", "Summer79WyUKILSW"),
        ('SMTP_PASSWORD = bytes.fromhex("54696765723938464f5759504377").decode()', "5469676572"),
        ("VPN_PASS=$(echo 'TWFwbGUyOTVOeWxFZXc=' | base64 -d)", "TWFwbGUyOTVOeWxFZXc="),
        (
            "config wifi-iface\n\toption encryption 'sae-mixed'\n\toption key 'Tiger25YGUAdb'",
            "Tiger25YGUAdb",
        ),
        ("db_password: Maple295NylEew\n", "Maple295NylEew"),
    ],
)
def test_a_persons_password_whose_typed_tail_reads_as_short_words_is_removed(
    text: str, secret: str
) -> None:
    # Nyl, Eew, Wy, Adb: runs of two or three letters no name is made of.
    assert secret not in redact(text)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("aws ssm put-parameter --name /app/db --value 'Harbor41PqW.z'", "Harbor41PqW.z"),
        ("| wiki | admin | Falcon52t!9R.kq |", "Falcon52t!9R.kq"),
        ('curl_easy_setopt(h, CURLOPT_USERPWD, "ops:Willow17PYindbQ");', "Willow17PYindbQ"),
        ("- [ ] rotate the wiki admin (still `Pepper308GozaLt2`)", "Pepper308GozaLt2"),
        ("kiosk:Falcon23R4Kemp:5", "Falcon23R4Kemp"),
    ],
)
def test_a_persons_password_whose_tail_looks_like_a_file_suffix_or_a_word_is_removed(
    text: str, secret: str
) -> None:
    # PqW before ".z", t!9R before ".kq": typed before the dot; Goza among Lt, R before 4.
    assert secret not in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "from distutils.cygwinccompiler import Mingw32CCompiler",
        "load_library('Python39Ext.dll'); open('Office365Sync.json')",
        "bundle = 'Base64UrlSafe.js'; other = 'Route53Actions.py'",
        "class Vector64Builder(Route53Client): pass",
    ],
)
def test_file_names_and_type_names_after_a_word_and_digits_are_left_alone(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (
            "SECRET_KEY = '+n=vfg!3f8gr2%)9hw7d)z+@#7po!4z=i)yacd5%c=w+1hq6!('",
            "+n=vfg!3f8gr2%)9hw7d)z+@#",
        ),
        (
            "netbox.secret-key: ')qsf7uum)rx+_*4=))^7z68zqy=9-&tfr*gjix(dn@$9#*@d7b'\n",
            ")qsf7uum)rx+_*4=))^7z6",
        ),
        (
            '"secretKey": "+fec9_y6-el=4n8!)=uu4om5!1!y=&9mz(gn$^^t^&vv^1m66w",',
            "+fec9_y6-el=4n8!)=uu4om5",
        ),
        ("SECRET_KEY==h+&bk&3^v#w8%e=x4t8#&ey_#jisl9$j1q16jsuzpsreazk7+\n", "=h+&bk&3^v#w8%e=x4t8"),
        (
            "DJANGO_KEY=gf_q&#m!iyr#cf%tf9)z)^^z%#&fussqfl5xwyjs&7fwhhhxgy\n",
            "gf_q&#m!iyr#cf%tf9)z)^^z%",
        ),
        # An app built on Django asks for one of 50 characters or more; people draw both cases.
        (
            "NETBOX_SECRET_KEY=Qm7=vRt(K2x&pL9)wZ-sN4!bH8*eY+cJ6^uD@fG3#aT_kW5%nB\n",
            "Qm7=vRt(K2x&pL9)wZ-sN4",
        ),
        (
            "PAPERLESS_SECRET_KEY=Hx4&Lq)9Tz(Wm2!Rb7*Kc^Vn5@Jd8#Gf3+Ps6_Yt1=Za0-Ue4%\n",
            "Hx4&Lq)9Tz(Wm2!Rb7*Kc",
        ),
    ],
)
def test_a_django_secret_key_whose_symbols_look_like_code_is_removed(
    text: str, secret: str
) -> None:
    # get_random_secret_key() draws 50 of a-z, 0-9 and !@#$%^&*(-_=+): brackets included, and
    # a first "+" or ")" that read as the end of a string before the quote, a first "=" that
    # reads as an operator's, and as few as two digits.
    redacted = redact(text)
    assert not any(secret[i : i + 8] in redacted for i in range(len(secret) - 7))


@pytest.mark.parametrize(
    "text",
    [
        "sort_key: '((((((((((((((((((((((((()))))))))))))))))))))))))'",
        "lookup_key=(left_index+offset_12)*(width-22)^(mask&0xff_ff)\n",
        "secret_pattern = '^(a-z)+(0-9)*(a-z)+(0-9)*(a-z)+(0-9)*(a-z)+(0-9)*$'",
        "SECRET_KEY_FUNC=get_secret_key_from_environment_or_default(SECRET_KEY_NAME)\n",
    ],
)
def test_django_secret_key_alphabets_and_code_after_a_secret_name_are_left_alone(
    text: str,
) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (
            "vault login --client-secret KKSUMiroNLsMYTBXaKJQEVTm --profile ops",
            "KKSUMiroNLsMYTBXaKJQEVTm",
        ),
        (
            "flyctl secrets import --api-token ws-AQjdrGriMAbxzbmkstopeYeZ",
            "AQjdrGriMAbxzbmkstopeYeZ",
        ),
        ("pulumi config set --secret-key NvLZEGCCLMMCfeqwWAbeTnbU", "NvLZEGCCLMMCfeqwWAbeTnbU"),
    ],
)
def test_a_drawn_key_of_letters_whose_cases_rarely_flip_is_removed(text: str, secret: str) -> None:
    # KKSUM, NLs, TBXa: runs with a vowel now and then, but few that start as a word does.
    assert secret[4:12] not in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "token_secret = getElementsByTagNameNS",
        "client_secret: ReadableStreamDefaultController",
        "api_token = XMLHttpRequestEventTarget",
        "password = HTMLFormControlsCollection",
    ],
)
def test_long_camel_case_names_after_a_secret_name_are_left_alone(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "password_encoder = Base64Encoder()",
        "token: Base64UrlSafe = encode(raw)",
        "secret_hash = sha256Hash(secret)",
        "api_key: Win32ApiError | None = None",
        "key: Int32Array = new Int32Array(4)",
        "cache_key = Float64Array.of(1.5)",
        "signing_key = Ed25519PrivateKey.generate()",
        "SECRET_KEY_ALGORITHM = 'Sha256WithRSA'",
    ],
)
def test_type_names_with_digits_and_short_words_after_a_secret_name_are_left_alone(
    text: str,
) -> None:
    assert redact(text) == text


def test_short_dotted_app_token_in_a_url_query_is_removed() -> None:
    text = 'curl -s "https://notify.example.lan/message?token=BQmzr.kfwtXNE4" -F "title=disk"\n'

    out = redact(text)

    assert "kfwtXNE4" not in out and "BQmzr" not in out
    assert "https://notify.example.lan/message?token=[REDACTED:" in out
    assert '-F "title=disk"' in out


def test_dotted_class_name_in_a_url_query_is_left_alone() -> None:
    text = "see https://docs.example.org/ref?key=Widget.Render2x&lang=en\n"

    assert redact(text) == text


def test_password_in_backticks_after_a_login_in_markdown_notes_is_removed() -> None:
    text = (
        "## Preview env\n"
        "- operator login: `ops@preview.example` / `Heron.quartz.7731KMP`\n"
        "- run `make seed` first\n"
    )

    out = redact(text)

    assert "Heron.quartz" not in out and "7731KMP" not in out
    assert "`ops@preview.example`" in out
    assert "run `make seed` first" in out


def test_identifiers_in_backticks_after_login_are_left_alone() -> None:
    text = "The login form calls `handleSubmit` and then `validateCredentials` on blur.\n"

    assert redact(text) == text


def test_app_id_of_thirty_two_hex_digits_in_a_sentence_is_removed() -> None:
    key = "0b9e6d2c7a4f13e58d6c2b1a9f0e7d43"
    text = f"- Query the forecast API with appid {key} while developing.\nAPPID = '{key}'\n"

    out = redact(text)

    assert key[:8] not in out
    assert "with appid [REDACTED:" in out
    assert "while developing." in out


def test_numeric_or_firebase_style_app_id_is_left_alone() -> None:
    text = (
        'firebaseConfig = { appId: "1:493817262:web:9f1e2d3c4b5a6978" }\n'
        "FACEBOOK_APP_ID = '918273645546372'\n"
    )

    assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (
            '  "os.environ[\\"OPENROUTER_API_TOKEN\\"] = \\"c1d2e3f4a5b60718293a4b5c6d7e8f90\\"\\n",\n',
            "c1d2e3f4a5b6",
        ),
        (
            '  "os.environ[\\"HF_USERNAME\\"] = \\"ana\\"\\n",\n'
            '  "os.environ[\\"HF_KEY\\"] = \\"0a9b8c7d6e5f40312233445566778899\\"\\n",\n',
            "0a9b8c7d6e5f",
        ),
    ],
)
def test_a_key_set_in_a_notebook_cell_saved_as_json_is_not_stored(text: str, secret: str) -> None:
    assert secret not in redact(text)


def test_a_hex_key_beside_the_address_of_the_service_it_opens_is_not_stored() -> None:
    text = (
        "- Sonarr:\n"
        "    widget:\n"
        "      type: sonarr\n"
        "      url: http://sonarr.home.lan:8989\n"
        "      key: 5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b\n"
    )
    assert "5e6f7a8b9c0d" not in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        '  "os.environ[\\"CACHE_KEY\\"] = \\"5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b\\"\\n",\n',
        "cache:\n  key: 5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b\n  path: ~/.cache/pip\n",
        "mirror:\n  url: http://files.lan/pkgs\n  sha256: 5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b5e6f7a8b9c0d1e2f\n",
    ],
)
def test_a_cache_key_or_a_checksum_beside_an_address_is_kept(text: str) -> None:
    assert redact(text) == text
