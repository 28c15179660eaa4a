"""Credentials stated where no syntax names them, and look-alikes in the same places left alone.

Families added against the eighth batch's tune misses, each written for the general fact
rather than the kind: a typed passphrase's shape, a password stated in a sentence in any
language, the output of a command that reveals a stored secret, a literal escaped by its host
syntax, a ``user:password`` literal handed to a base64 encoder, positional credentials.
"""

from __future__ import annotations

import pytest
from comodor_lsp.brain.redaction.redactor import redact
from comodor_lsp.brain.redaction.rules.net import PICKED, shape
from comodor_lsp.brain.redaction.values import typed_passphrase


@pytest.mark.parametrize(
    "value",
    [
        "Kestrel.biscuit.3902TCUDB",
        "CobaltPistachio.6009Jiw",
        "Waffle.nebula.2883wdb",
        "Riverbank*soleil*43idnnq",
        "Sunflower-bluebird-5474rzadr",
        "Kestrel%mariposa%126eRB",
    ],
)
def test_words_then_digits_and_a_typed_tail_have_a_picked_passwords_shape(value: str) -> None:
    assert typed_passphrase(value)
    assert shape(value) >= PICKED


@pytest.mark.parametrize(
    "value",
    [
        "release-notes-2024draft",
        "report.2024.pdf",
        "np.float64",
        "backup.daily.2024jan",
        "Win32.Release.2019MSVC",
        "migration_0012_auto",
        "%Y-%m-%d",
        "type.value.base10Value",
    ],
)
def test_slugs_files_attributes_and_formats_are_no_typed_passphrase(value: str) -> None:
    assert not typed_passphrase(value)


@pytest.mark.parametrize(
    "text",
    [
        "The password for the staging db is Waffle-juniper-8689DE9 thanks",
        "Password for the staging DB: Kestrel.biscuit.3902TCUDB",
        "the password to the staging server is Tiger42xY!z.",
        "Ciao! La password del database di staging è Waffle-juniper-8689DE9 — grazie.",
        "Das Passwort für den Server ist Kestrel.biscuit.3902TCUDB.",
        "le mot de passe est Gecko*marmot*9910uWgkQ",
        "测试环境数据库密码是BluebirdBluebird*97006p3wP，用户名 admin。",
        "密码为：Bluebird*97006p3wP，谢谢",
        "스테이징 DB 비밀번호는 Waffle.nebula.2883wdb 입니다.",
        "Mật khẩu máy chủ thử nghiệm là Mariposa_gecko_7833UC7V, tài khoản là deploy nhé.",
        "كلمة المرور لقاعدة البيانات هي KirscheSaturn#86367BE واسم المستخدم admin",
        "Пароль от базы — Waffle.nebula.2883wdb",
        "स्टेजिंग सर्वर का पासवर्ड Waffle.nebula.2883wdb है, यूज़र deploy है।",
        "मेरा पासवर्ड Tiger42xY!z था",
    ],
)
def test_a_password_stated_in_a_sentence_in_any_language_is_not_stored(text: str) -> None:
    redacted = redact(text)
    assert "[REDACTED:" in redacted
    for secret in ("8689DE9", "3902TCUDB", "Tiger42xY", "9910uWgkQ", "97006p3wP", "2883wdb"):
        assert secret not in redacted
    assert "7833UC7V" not in redacted and "86367BE" not in redacted


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("- [ ] rotate the router password (currently `Falcon71.QKZ4.r`)", "Falcon71.QKZ4.r"),
        (
            "Reminder: the wifi password (still Maple83.PRX9.v for now) is on the fridge",
            "Maple83.PRX9.v",
        ),
        ("the NAS admin password (temporarily `Harbor20.WQ7.k`) changes Monday", "Harbor20.WQ7.k"),
    ],
)
def test_a_password_stated_in_parentheses_after_its_name_is_not_stored(
    text: str, secret: str
) -> None:
    assert secret[:10] not in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "the password (currently required) is checked by validate()",
        "password (now `hashed`) lives in users.py",
        "- [ ] set password (currently unused, see config.py)",
    ],
)
def test_parentheses_after_a_password_word_holding_no_value_are_left_alone(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("creds are admin / Orbit97andj until Friday", "Orbit97andj"),
        ("staging login is deploy / Copper44riva, ping me", "Copper44riva"),
        ("credentials: ci-bot / Lantern58tofu (expires Monday)", "Lantern58tofu"),
    ],
)
def test_credentials_handed_over_as_user_slash_password_in_a_message_are_not_stored(
    text: str, secret: str
) -> None:
    redacted = redact(text)
    assert secret not in redacted
    assert " / [REDACTED:" in redacted  # the user stays readable


@pytest.mark.parametrize(
    "text",
    [
        "credentials are read / written by the agent",
        "the login is admin / admin",
        "creds are cached under ~/.aws / profiles",
        "logins are counted per user / per day",
    ],
)
def test_slashes_after_a_credentials_word_holding_no_password_are_left_alone(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "if password is None:",
        "password is required",
        "La password è obbligatoria",
        "password was changed to something stronger",
        "Das Passwort ist zu kurz.",
        "密码是必填项",
        "비밀번호는 8자 이상이어야 합니다.",
        "Mật khẩu là bắt buộc.",
        "पासवर्ड बदलना ज़रूरी है",
        "पासवर्ड कम से कम आठ अक्षर का होना चाहिए, यह नियम है",
        "assert user.password is not None and user.password_hash",
    ],
)
def test_sentences_about_passwords_with_no_value_are_left_alone(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("$ security find-generic-password -a jdoe -s smtp-relay -w\nJ1kPkSunfl0w3r9357-", "J1kPk"),
        ("$ op read op://prod/db/password\nWaffle.nebula.2883wdb", "2883wdb"),
        (
            "$ aws ssm get-parameter --name /p/db --with-decryption --output text\n"
            "PARAMETER\tarn:aws:ssm:eu-west-1:1:parameter/p/db\ttext\t/p/db\tSecureString"
            "\tGecko.pancake.4588Aerc\t3",
            "4588Aerc",
        ),
        ("$ cat .vault_pass\nCobalt#fjord#117mSl3\n$ ansible-playbook site.yml", "117mSl3"),
    ],
)
def test_what_a_command_revealing_a_stored_secret_prints_is_not_stored(
    text: str, secret: str
) -> None:
    assert secret not in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "parser.add_argument('--with-decryption')\nfoo = bar(x)",
        "$ aws ssm get-parameter --name /p/db --with-decryption --output text\nERROR: not found",
        "# comment\nvalue",
    ],
)
def test_revealing_words_in_code_or_an_error_after_them_are_left_alone(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("    @rmtpassword = N'Ligh''thouseLighthouse!6053YHmT';", "thouseLighthouse"),
        (
            '$c = (ConvertTo-SecureString -AsPlainText -Force "HZiQp`$H3dg3h0g8426_")',
            "H3dg3h0g8426",
        ),
        ("PASSWD   = `NebulaHedgehog;9234wNFLE`", "9234wNFLE"),
    ],
)
def test_a_secret_escaped_by_its_host_syntax_is_redacted_whole(text: str, secret: str) -> None:
    assert secret not in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "SELECT 'it''s' AS x",
        'msg = "say ""hello"" now"',
        'Write-Host "Cost: `$5 today"',
        "name = N'O''Brien'",
    ],
)
def test_escaped_quotes_in_ordinary_strings_are_left_alone(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("final b = 'Basic ' + base64Encode(utf8.encode('admin:Gecko*marmot*9910uWgkQ'));", "9910"),
        ('h := base64.StdEncoding.EncodeToString([]byte("ci:Tiger42xY!z"))', "Tiger42"),
        ("const h = btoa('deploy:Waffle.nebula.2883wdb');", "2883wdb"),
    ],
)
def test_a_user_and_password_handed_to_a_base64_encoder_is_not_stored(
    text: str, secret: str
) -> None:
    assert secret not in redact(text)


@pytest.mark.parametrize(
    "text", ['btoa("foo:bar")', 'Buffer.from("localhost:8080")', "b64encode(b'key:value')"]
)
def test_encoded_pairs_that_are_no_credentials_are_left_alone(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ('nats.Connect(url, nats.UserInfo("orders-svc", "PistachioSaturn*7360FEus"))', "7360"),
        (
            "StreamChat.getInstance('xrs0448dahd0', "
            "'3vbcbd8qmes83t7o6czcu79jsqku9mz8elwykyewrknax57stmvhd3w1diaowtlg');",
            "3vbcbd8",
        ),
        ('$m = new mysqli("localhost", "shop", "Zorro.bluebird.5585v80", "shop");', "5585v80"),
        ('.auth.basic("ci", "Hedgehog.biscuit.7838ahwF")', "7838ahwF"),
        ("$ vsql -h vertica.example -d a -U dbadmin -w 'IU6dP4nc4k34071_' -c 'x'", "IU6dP4"),
    ],
)
def test_a_credential_passed_positionally_is_not_stored(text: str, secret: str) -> None:
    assert secret not in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "lookup('abcdefgh', 'd41d8cd98f00b204e9800998ecf8427ed41d8cd98f00b204e9800998ecf8427e')",
        "nats.UserInfo(user, password)",
        "$ psql -h db -U postgres -w mydb123",
        '$m = new mysqli("localhost", "shop", "db.internal.example", "shop");',
    ],
)
def test_positional_look_alikes_are_left_alone(text: str) -> None:
    assert redact(text) == text


# After the held-out look: the eighth batch's remaining families.


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("<password><![CDATA[EMiCN3bul49028-<&qNj]]></password>", "EMiCN3bul49028"),
        ("pw is ||LighthouseRiverbank*84541rWQ|| (don't post it)", "84541rWQ"),
        ("    SECRET_KEY = b'+a\\xc8\\xdd\\x0c\\xfe*\\xab\\x9a\\xe5e\\xa2Q\\x17t\\xdb'", "xfe*"),
        ("| Grafana | admin | 3txIAJ\\|unip3r9847_ |", "unip3r9847"),
    ],
)
def test_a_value_wrapped_by_its_host_syntax_is_not_stored(text: str, secret: str) -> None:
    if text.startswith("|"):
        text = "| Service | User | Password |\n|---|---|---|\n" + text + "\n"
    assert secret not in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "<script><![CDATA[var x = 1;]]></script>",
        "<description><![CDATA[Password must be 8 characters]]></description>",
        "<password><![CDATA[${DB_PASSWORD}]]></password>",
        "if (!token||tokenExpired||retry) return;",
        "the password is ||required|| here",
        'print("Password: " + password + "!")',
        "| Flag | Token |\n|---|---|\n| `--token` | the API token to use \\| none |\n",
    ],
)
def test_wrappers_around_code_markup_and_prose_are_left_alone(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (
            '<String><Key>Password</Key><Value ProtectInMemory="True">Pistachio!kirsche!57</Value>',
            "kirsche!57",
        ),
        ("<key>API_TOKEN</key><string>ab12Cd34Ef56Gh78Ij90kl</string>", "ab12Cd34Ef56"),
        (
            "||Environment||User||Password||Notes||\n|staging|qa-admin|Riverbank.otter.980867y|x|\n",
            "980867y",
        ),
    ],
)
def test_a_value_named_by_its_sibling_or_its_column_header_is_not_stored(
    text: str, secret: str
) -> None:
    assert secret not in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "<String><Key>Title</Key><Value>Router</Value></String>",
        "<key>CFBundleName</key><string>MyApp</string>",
        "||Option||Password||\n|--password|Whether to prompt for a password|\n",
    ],
)
def test_siblings_and_columns_naming_no_secret_or_holding_prose_are_left_alone(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ('  WiFi.begin("Garage-IoT", "TRBdH3dg3h0g8212*");', "TRBdH3dg3h0g"),
        ('wlan.connect("home", "Kestrel#4411ab")', "Kestrel#4411"),
        ("url=jdbc:oracle:thin:scott/KirscheSunflower.4821TvV9y@//orcl:1521/X", "4821TvV9y"),
        ("APP_KEYS=AAsIKDxEvNDAS/MGKvKrpQ==,xNUDSRJzjnx8yA4cM/gKhg==", "AAsIKDxEvNDAS"),
        ('export HF_TOKEN="${HF_TOKEN:-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}"', "DGIejQYdzz"),
        ('BUNDLE_GEMS__CONTRIBSYS__COM: "7f6c97ec:8ce686d3"', "7f6c97ec:8ce6"),
        (
            "  network_key: [108, 141, 155, 35, 100, 3, 127, 171, 244, 42, 117, 199, 116, 31, 156,"
            " 204]",
            "171, 244",
        ),
        (
            '  "secretKey": [12, 200, 1, 99, 45, 67, 89, 123, 145, 167, 189, 210, 232, 254, 3, 77]',
            "232, 254",
        ),
    ],
)
def test_a_credential_placed_where_its_syntax_says_so_is_not_stored(text: str, secret: str) -> None:
    assert secret not in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "  WiFi.begin(ssid, password);",
        '  WiFi.begin("MyNetwork", "password");',
        "url=jdbc:oracle:thin:@//orcl.db:1521/ORCL",
        "jdbc:oracle:thin:${user}/${password}@host:1521:x",
        "keys = sorted(AbstractFactoryBuilderXX==)",
        "from transformers import hf_AutoModelForSequenceClassificationXX",
        'BUNDLE_BUILD__NOKOGIRI: "--use-system-libraries"',
        'BUNDLE_PATH: "vendor/bundle"',
        'BUNDLE_GEMS__CONTRIBSYS__COM: "${SIDEKIQ_CREDS}"',
        "key = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]",
        "public_key: [108, 141, 155, 35, 100, 3, 127, 171, 244, 42, 117, 199, 116, 31, 156, 204]",
        "uint8_t aes_key[] = {0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6, 0xab, 0xf7, 0x15};",
    ],
)
def test_calls_urls_and_names_like_them_without_a_literal_credential_are_left_alone(
    text: str,
) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (
            "# /etc/openvpn/client/office.auth  (auth-user-pass office.auth)\n"
            "jdoe@acme.example\nKestrel_harbor81!\n",
            "Kestrel_harbor81",
        ),
        ("# ~/vpn/home.auth\nsvc-backup\nOrbit75ZsOYQCj\n", "Orbit75ZsOYQCj"),
    ],
)
def test_the_password_line_of_a_file_its_comment_names_an_auth_file_is_not_stored(
    text: str, secret: str
) -> None:
    assert secret not in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "# routes/api.auth\nfoo bar\nbaz2 qux\n",
        "# src/jwt-auth\nconst x = makeToken(42)\n",
        "# /etc/openvpn/office.auth\n$OVPN_USER\n${OVPN_PASSWORD}\n",
        "# /etc/openvpn/client/office.auth\njdoe\nprompt-user-after-connect\n",
    ],
)
def test_auth_files_holding_variables_and_code_named_auth_are_left_alone(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (
            '"app_rw" "ZorroRiverbank#74983toT"\n'
            '"app_ro" "SCRAM-SHA-256$4096:c2FsdA==$c3RvcmVk:c2VydmVy"\n',
            "ZorroRiverbank",
        ),
        (
            '"stats" "md5d41d8cd98f00b204e9800998ecf8427e"\r\n"app" "Tiger98oiTnz"\r\n',
            "Tiger98oiTnz",
        ),
    ],
)
def test_a_plain_password_among_user_rows_holding_password_hashes_is_not_stored(
    text: str, secret: str
) -> None:
    assert secret not in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        '"app_ro" "md5d41d8cd98f00b204e9800998ecf8427e"\n"app_rw" "${PGB_PASSWORD}"\n"stats" ""\n',
        'assert digest == "md5d41d8cd98f00b204e9800998ecf8427e"\nlabels = {"en" "English"}\n',
        '"app_ro" "SCRAM-SHA-256$4096:c2FsdA==$c3RvcmVk:c2VydmVy"\n',
    ],
)
def test_user_rows_holding_only_hashes_or_variables_are_left_alone(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("http -A bearer -a fda3d78b08da6763035eced7b59778ccf36ca04b GET https://x/v1", "fda3d78b"),
        ("$ http --auth-type=digest -a jdoe:Biscuit_lighthouse_19Qmk https://x/", "Biscuit"),
        ("http -a jdoe:Tiger98oiTnz https://api.acme.example/", "Tiger98oiTnz"),
        ("xh --auth-type bearer -a 'Harbor96BoA7qLx' https://x/", "Harbor96BoA7qLx"),
    ],
)
def test_a_credential_after_a_named_auth_scheme_or_an_http_clients_a_is_not_stored(
    text: str, secret: str
) -> None:
    assert secret not in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "ls -a /tmp/build42\n",
        "git commit -a -m fix42\n",
        "http -a jdoe https://x/\n",
        "http -A bearer -a $API_TOKEN GET https://x/\n",
        "http -a jdoe:$PASS https://x/\n",
        "http -a localhost:8080 x\n",
        "curl -A bearer-agent -a x\n",
    ],
)
def test_a_flags_beside_no_auth_scheme_or_holding_variables_are_left_alone(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (
            "$ op item get 'Prod DB' --fields label=username,label=password --reveal\n"
            "orders,Biscuit_lighthouse_19Qmk\n",
            "Biscuit_lighthouse",
        ),
        (
            "$ op item get db --reveal --fields password,username\nTiger98oiTnz,orders\n",
            "Tiger98oiTnz",
        ),
        ("$ pass show prod/db\nGecko.pancake.4588Aerc\n", "4588Aerc"),
        (
            "$ kubectl get secret db -o jsonpath='{.data.password}' | base64 -d\n"
            "Gecko.pancake.4588Aerc\n",
            "4588Aerc",
        ),
    ],
)
def test_the_secret_field_a_revealing_command_was_asked_for_is_not_stored(
    text: str, secret: str
) -> None:
    assert secret not in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "$ op item get Prod --fields label=username,label=website --reveal\n"
        "orders,https://acme.example\n",
        "$ op item get Prod --fields label=username,label=password --reveal\norders,\n",
        "$ pass show -c prod/db\nCopied prod/db to clipboard. Will clear in 45 seconds.\n",
        "$ kubectl get secret db -o jsonpath='{.data.username}' | base64 -d\nadmin\n",
    ],
)
def test_fields_naming_no_secret_and_clipboard_notices_are_left_alone(text: str) -> None:
    assert redact(text) == text


# After the ninth batch's held-out look: what it still stored, by family.


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("$ bw get password prod-grafana\nRiverbank.gecko.8406Iep$ ", "8406Iep"),
        ("% pass show prod/db\nTiger98oiTnz%", "Tiger98oiTnz"),
        (
            "ana@k3s-2:~$ kubectl get secret app -o jsonpath='{.data.db-password}' | base64 -d\n"
            "Saffron.otter.5512Lpana@k3s-2:~$ ",
            "Saffron.otter",
        ),
        (
            "[ana@build ~]$ kubectl get secret api -o jsonpath='{.data.token}' | base64 -d\n"
            "p8Lq2WxZr7Tv4MnK[ana@build ~]$ ",
            "p8Lq2WxZ",
        ),
    ],
)
def test_a_revealed_secret_printed_without_a_line_break_is_not_stored_before_the_next_prompt(
    text: str, secret: str
) -> None:
    assert secret not in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "$ bw get password prod-grafana\nNot found.$ ",
        "ana@k3s-2:~$ kubectl get secret app -o jsonpath='{.data.username}' | base64 -d\n"
        "adminana@k3s-2:~$ ",
    ],
)
def test_a_revealing_commands_message_or_user_name_before_the_next_prompt_is_left_alone(
    text: str,
) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (
            "2. Set `ALGOLIA_ADMIN_KEY` to `36edad46b0fc8d127603575287d6a62a` (shared dev app)\n",
            "36edad46b0fc8d127603575287d6a62a",
        ),
        ("Then change DB_PASSWORD to Riverbank.gecko.8406Iep and restart.\n", "8406Iep"),
    ],
)
def test_a_secret_a_setup_note_says_to_set_a_name_to_is_not_stored(text: str, secret: str) -> None:
    assert secret not in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "Convert the token to bytes before you sign it.\n",
        "Set `DB_PASSWORD` to the value in the team vault.\n",
        "map the key to 36edad46b0fc8d127603575287d6a62a in the cache\n",
    ],
)
def test_setting_a_name_to_a_word_or_a_weak_names_digest_is_left_alone(text: str) -> None:
    assert redact(text) == text
