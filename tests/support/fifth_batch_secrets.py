# ruff: noqa: E501  (realistic config, log and shell lines are long; they are data here)
"""A fifth batch of credential kinds, written without reading the redactor's rules.

The fourth batch (:mod:`tests.support.fourth_batch_secrets`) was looked at and then fixed, so it
is no longer unseen. This batch was written afterwards by a helper session started for the
purpose, as a fresh author. It read only :mod:`tests.support.unlisted_secrets` (the
``UnlistedSample`` class, the ``_Draw`` helpers, alphabets, ``draw_batch`` and ``Add``),
:mod:`tests.support.fourth_batch_secrets` (for its structure, its checksum helpers and its kind
names), the kind *names* of :mod:`tests.support.unseen_secrets`, :mod:`tests.support.secrets`
and :mod:`tests.support.secret_kinds` (to avoid repeating them, through :func:`older_names`),
and the structure tests of ``tests/brain/test_redact_fourth_batch.py``. It read nothing under
``server/`` (the redactor's rules), no bench, no other redaction test, no README, ARCHITECTURE,
CHANGELOG or commit message. (The docstrings of the earlier corpora name kinds that leaked;
the kinds here were chosen neither towards nor away from them.)

The kinds come from providers' public documentation of token formats and from the documented
syntax of credential and config files, commands, code and logs, and aim at places the earlier
batches did not: languages and build tools not used before (Zig, Nim, OCaml, F#, Scala sbt,
Gradle Kotlin DSL signing, Crystal, Elm, Gleam, Racket, Tcl, Objective-C, PowerShell
SecretManagement and PSGallery, Fish, Nushell, csh, Makefiles, Justfiles, Bazel, Earthly, Dagger, ccache, mise, Tilt,
devcontainers, Dockerfiles, Packer, CDK), OS and desktop formats (launchd plists,
``.mobileconfig``, Windows ``.reg``, ``.udl``, ``unattend.xml``, ``.desktop`` entries, systemd
mount units, cloud-init, Kickstart, preseed, Remmina profiles), home-lab and device
configs (Home Assistant, ESPHome, Node-RED, Tasmota, OctoPrint, Plex, Sonarr, OpenWrt UCI,
MikroTik, Junos, Aruba, ddclient, DuckDNS, certbot and acme.sh DNS credentials, game-server
RCON), data tools (DuckDB secrets, Redshift ``COPY``, Spark, MySQL FEDERATED, dblink, SQLCipher,
DB2, Teradata, SAP HANA, Firebird, Oracle mkstore, MLflow, ClearML, Comet, JupyterHub),
documents and exports (Jupyter JSON, CSV key downloads, Markdown tables, YAML anchors, JSON5,
protobuf text, ``.properties`` unicode escapes, XML attributes, Slack exports, e-mail threads,
VCR cassettes, WireMock mappings, Playwright storage state), the ways a secret is passed
(heredocs and stdin, ``sudo -S``, ``chpasswd``, URL query parameters and fragments,
percent-encoding, escaped quotes, ANSI-C quoting, a value on the line after its key, comments
"temporary password: ...", error messages and panics that dump a config), and SaaS tokens by
documented prefix (AI and vector-database APIs, payments in Latin America and South-East Asia,
notification services, CMSs, registries, test clouds, dev-tool caches) and key formats with
their structure computed (Hedera DER keys, Zcash bech32 spending keys, ZeroMQ Z85 CURVE keys,
signify and Nebula keys, Tink keysets, Jetty ``OBF:`` and Liberty ``{xor}`` obfuscation).
No kind's name is in the earlier corpora (:func:`older_names`).

Every value is FAKE, drawn from a seeded generator with a stream of its own (``batch5/``), with
the right length and alphabet and, where a format defines one, the right prefix and checksum.
Passwords use the human-like :meth:`_Draw.password` draw.

**Every kind is held out** (:data:`NAMES`, 249 kinds, written out literally): this batch has
no tune part. Nothing in it was run against the redactor before the lead's first look, which is
the result to report.

First look, once, by the lead (``python -m bench.redaction --arm fifth``, 20 seeds, a kind
"stored" when an 8-character piece of its secret survives ``redact`` in any run), on
``95931bd`` -- the redactor with the new last-line net (:mod:`comodor.brain.redaction.rules.net`,
a format-free detector of secret-shaped values where values stand, tuned on the four
earlier corpora only): **55 of 249 stored (22 %)**. The redactor as it stood before the net
(``37412de``) stores 64 of 249 (26 %) of this batch: the net caught 9 more kinds, far fewer
than its leave-family-out figure on the earlier corpora (73 % of their kinds caught with
every named rule off) predicted -- the kinds that got through stand where the net does not
look (short flags without a name, lines without a secret word, hex under a bare ``key``,
positional arguments, records whose columns name the secret). The 55: ``activemq-jetty-realm-properties``, ``apple-app-specific-password-altool``, ``aruba-cx-user-plaintext-password``, ``bazelrc-remote-header-api-key``, ``cdk-secretvalue-unsafe-plaintext``, ``chpasswd-here-string``, ``cloudflare-warp-mdm-xml-client-secret``, ``couchdb-local-ini-admins``, ``db2-connect-using``, ``deluge-auth-file-line``, ``docker-secret-create-from-stdin``, ``dotnet-user-secrets-set``, ``escaped-json-string-body``, ``freshdesk-api-key-basic-user``, ``gemfury-push-url-token``, ``ghost-admin-api-key-constructor``, ``git-askpass-script-echo``, ``gotify-app-token-query``, ``gradle-kts-in-memory-pgp-password``, ``heredoc-password-stdin-login``, ``hexchat-servlist-conf-password``, ``htpasswd-b-batch-flag``, ``jmeter-jmx-argument-password``, ``junos-encrypted-password-9``, ``liberty-server-xml-xor-password``, ``loggly-http-input-url-token``, ``magento-env-php-crypt-key``, ``makefile-conditional-assignment-token``, ``markdown-table-test-accounts``, ``megacmd-login-email-password``, ``mobileconfig-wifi-payload-password``, ``modal-token-set-secret-flag``, ``netdata-stream-conf-api-key``, ``ocaml-cohttp-basic-auth-credential``, ``octoprint-config-yaml-api-key``, ``openwrt-uci-wireless-key``, ``oracle-mkstore-create-credential``, ``privatebin-url-fragment-key``, ``python-parenthesized-next-line-password``, ``python-requests-connectionerror-url-key``, ``quarkus-profile-oidc-credentials-secret``, ``remmina-profile-encrypted-password``, ``saucelabs-wdio-conf-access-key``, ``sendmail-authinfo-entry``, ``sequelize-constructor-positional``, ``slack-export-message-text``, ``sqlcipher-pragma-key``, ``tasmota-console-mqtt-password``, ``teradata-bteq-logon``, ``two-factor-recovery-codes-file``, ``wifi-qr-code-payload``, ``windows-unattend-xml-plaintext-password``, ``wiremock-mapping-header-equalto``, ``zabbix-agent-psk-file``, ``zeromq-curve-secret-key-z85``. From here
on this batch is not unseen either.
"""

from __future__ import annotations

import base64
import json
import random
import string
from urllib.parse import quote

from tests.support.fourth_batch_secrets import _bech32, _github_token
from tests.support.fourth_batch_secrets import older_names as names_before_fourth
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
Z85 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
JUNOS9 = "QzF3n6/9CAtpu0OB1IREhcSyrleKvMW8LXx7N-dVbwsY2g4oaJZGUDjiHkq.mPf5T"
BASE36 = string.digits + string.ascii_lowercase


class _Batch5Draw(_Draw):
    """The same draws as the earlier corpora, from a stream of their own."""

    def rng(self, label: str) -> random.Random:
        return super().rng(f"batch5/{label}")

    def raw(self, label: str, size: int) -> bytes:
        return self.rng(label).randbytes(size)


# --- formats with structure (stdlib only) -------------------------------------------------


def _b64(value: str | bytes) -> str:
    raw = value.encode() if isinstance(value, str) else value
    return base64.b64encode(raw).decode()


def _z85(data: bytes) -> str:
    """ZeroMQ's Z85 (RFC 32/Z85) of *data*, whose length is a multiple of four."""
    out = []
    for i in range(0, len(data), 4):
        n = int.from_bytes(data[i : i + 4], "big")
        chunk = ""
        for _ in range(5):
            n, r = divmod(n, 85)
            chunk = Z85[r] + chunk
        out.append(chunk)
    return "".join(out)


def _jetty_obf(password: str) -> str:
    """Jetty's reversible ``OBF:`` obfuscation of an ASCII *password*."""
    b = password.encode()
    groups = []
    for i in range(len(b)):
        b1, b2 = b[i], b[len(b) - (i + 1)]
        i0 = (127 + b1 + b2) * 256 + (127 + b1 - b2)
        n, digits = i0, ""
        while n:
            n, r = divmod(n, 36)
            digits = BASE36[r] + digits
        groups.append(digits.rjust(4, "0"))
    return "OBF:" + "".join(groups)


def _liberty_xor(password: str) -> str:
    """WebSphere Liberty's ``{xor}`` encoding: each byte XOR ``_``, then base64."""
    return "{xor}" + _b64(bytes(c ^ 0x5F for c in password.encode()))


def _properties_escaped(password: str) -> str:
    """*password* as ``native2ascii`` writes it: every non-alphanumeric as ``\\uXXXX``."""
    return "".join(c if c.isalnum() else f"\\u{ord(c):04x}" for c in password)


def _languages_and_builds(d: _Batch5Draw, add: Add) -> None:
    # --- languages not used before ---------------------------------------------------------
    t = "sgp_" + d.hex("zig-sourcegraph", 16) + "_" + d.s("zig-sourcegraph-b", 40, HEX)
    add(
        "zig-std-http-authorization-header",
        t,
        f'const headers = [_]std.http.Header{{\n    .{{ .name = "authorization", .value = "token {t}" }},\n}};\nvar req = try client.open(.GET, uri, .{{ .server_header_buffer = &buf, .extra_headers = &headers }});',
    )
    t = "tvly-" + d.s("nim-tavily", 32, ALNUM)
    add(
        "nim-httpclient-headers-tavily-key",
        t,
        f'let client = newHttpClient()\nclient.headers = newHttpHeaders({{"Content-Type": "application/json"}})\nlet body = %*{{"api_key": "{t}", "query": "nim async"}}\necho client.postContent("https://api.tavily.com/search", body = $body)',
    )
    p = d.password("ocaml-cohttp")
    add(
        "ocaml-cohttp-basic-auth-credential",
        p,
        f'let headers =\n  Cohttp.Header.add_authorization (Cohttp.Header.init ())\n    (`Basic ("deploy", "{p}"))\nin\nClient.get ~headers (Uri.of_string "https://artifacts.acme.dev/api")',
    )
    t = "fw_" + d.s("fsharp-fireworks", 24, ALNUM)
    add(
        "fsharp-httpclient-bearer-header",
        t,
        f'let client = new HttpClient()\nclient.DefaultRequestHeaders.Authorization <- AuthenticationHeaderValue("Bearer", "{t}")\nlet! resp = client.GetStringAsync("https://api.fireworks.ai/inference/v1/models") |> Async.AwaitTask',
    )
    p = d.password("sbt-inline")
    add(
        "sbt-build-inline-credentials",
        p,
        f'// build.sbt\nThisBuild / publishTo := Some("releases" at "https://nexus.acme.dev/repository/maven-releases/")\ncredentials += Credentials("Sonatype Nexus Repository Manager", "nexus.acme.dev", "release-bot", "{p}")\n',
    )
    p = d.password("gradle-signing")
    add(
        "gradle-kts-in-memory-pgp-password",
        p,
        f'signing {{\n    val signingKey: String? by project\n    useInMemoryPgpKeys(signingKey, "{p}")\n    sign(publishing.publications["maven"])\n}}',
    )
    p = d.password("crystal-basic")
    add(
        "crystal-http-client-basic-auth",
        p,
        f'client = HTTP::Client.new(URI.parse("https://registry.acme.dev"))\nclient.basic_auth("ci", "{p}")\nresponse = client.get("/v2/_catalog")',
    )
    t = "jina_" + d.s("elm-jina", 60, ALNUM)
    add(
        "elm-http-header-bearer",
        t,
        f'embed : String -> Cmd Msg\nembed text =\n    Http.request\n        {{ method = "POST"\n        , headers = [ Http.header "Authorization" "Bearer {t}" ]\n        , url = "https://api.jina.ai/v1/embeddings"\n        , body = Http.jsonBody (encode text)\n        , expect = Http.expectJson GotEmbedding decoder\n        , timeout = Nothing\n        , tracker = Nothing\n        }}',
    )
    t = "nvapi-" + d.s("gleam-nvidia", 64, BASE64URL)
    add(
        "gleam-request-set-header",
        t,
        f'request.new()\n|> request.set_host("integrate.api.nvidia.com")\n|> request.set_path("/v1/chat/completions")\n|> request.set_header("authorization", "Bearer {t}")\n|> httpc.send',
    )
    p = d.password("tcl-http")
    add(
        "tcl-http-geturl-basic-header",
        _b64(f"monitor:{p}"),
        f'package require http\npackage require tls\nset tok [http::geturl https://nagios.acme.dev/cgi-bin/status.cgi -headers [list Authorization "Basic {_b64(f"monitor:{p}")}"]]',
    )
    p = d.password("objc-credential")
    add(
        "objc-nsurlcredential-with-user",
        p,
        f'NSURLCredential *credential = [NSURLCredential credentialWithUser:@"svc-ios"\n                                                         password:@"{p}"\n                                                      persistence:NSURLCredentialPersistenceForSession];',
    )
    p = d.password("ktor-basic")
    add(
        "ktor-client-basic-auth-credentials",
        p,
        f'val client = HttpClient(CIO) {{\n    install(Auth) {{\n        basic {{\n            credentials {{ BasicAuthCredentials(username = "jenkins", password = "{p}") }}\n        }}\n    }}\n}}',
    )
    t = d.s("racket-mistral", 32, ALNUM)
    add(
        "racket-define-api-key",
        t,
        f'#lang racket\n(require net/http-easy)\n(define mistral-key "{t}")\n(post "https://api.mistral.ai/v1/chat/completions"\n      #:auth (bearer-auth mistral-key)\n      #:json (hasheq (quote model) "mistral-small-latest"))',
    )
    p = d.password("viper-default")
    add(
        "go-viper-setdefault-password",
        p,
        f'viper.SetDefault("database.host", "localhost")\nviper.SetDefault("database.user", "orders")\nviper.SetDefault("database.password", "{p}")',
    )
    p = d.password("pydantic-secretstr")
    add(
        "pydantic-settings-secretstr-default",
        p,
        f'class Settings(BaseSettings):\n    smtp_user: str = "alerts@acme.dev"\n    smtp_password: SecretStr = SecretStr("{p}")\n    model_config = SettingsConfigDict(env_prefix="APP_")',
    )
    p = d.password("sequelize")
    add(
        "sequelize-constructor-positional",
        p,
        f"const sequelize = new Sequelize('shop', 'shop_app', '{p}', {{\n  host: 'db.acme.internal',\n  dialect: 'postgres',\n}});",
    )
    p = d.password("ioredis")
    add(
        "ioredis-options-password",
        p,
        f"const redis = new Redis({{ host: 'cache.acme.internal', port: 6380, password: '{p}', tls: {{}} }});",
    )
    p = d.password("knexfile")
    add(
        "knexfile-connection-object",
        p,
        f"module.exports = {{\n  production: {{\n    client: 'mysql2',\n    connection: {{ host: '10.2.0.4', user: 'billing', password: '{p}', database: 'billing' }},\n    pool: {{ min: 2, max: 10 }},\n  }},\n}};",
    )
    p = d.password("typeorm")
    add(
        "typeorm-ormconfig-json",
        p,
        json.dumps(
            {
                "type": "postgres",
                "host": "localhost",
                "port": 5432,
                "username": "nest",
                "password": p,
                "database": "nest",
                "synchronize": False,
            },
            indent=2,
        ),
    )
    t = d.s("nuxt-runtime", 40, ALNUM)
    add(
        "nuxt-runtime-config-private-key",
        t,
        f"export default defineNuxtConfig({{\n  runtimeConfig: {{\n    strapiToken: '{t}',\n    public: {{ apiBase: '/api' }},\n  }},\n}})",
    )
    p = d.password("laravel-env-default")
    add(
        "laravel-config-env-default-password",
        p,
        f"'mysql' => [\n    'driver' => 'mysql',\n    'host' => env('DB_HOST', '127.0.0.1'),\n    'username' => env('DB_USERNAME', 'forge'),\n    'password' => env('DB_PASSWORD', '{p}'),\n],",
    )
    t = d.s("magento-crypt", 32, HEX)
    add(
        "magento-env-php-crypt-key",
        t,
        f"return [\n    'backend' => ['frontName' => 'admin_1qx9z'],\n    'crypt' => [\n        'key' => '{t}'\n    ],\n    'db' => ['table_prefix' => ''],",
    )
    p = d.password("joomla")
    add(
        "joomla-configuration-php-password",
        p,
        f"class JConfig {{\n\tpublic $dbtype = 'mysqli';\n\tpublic $host = 'localhost';\n\tpublic $user = 'joomla';\n\tpublic $password = '{p}';\n\tpublic $db = 'joomla';",
    )
    p = d.password("capistrano")
    add(
        "capistrano-ssh-options-password",
        p,
        f"server 'app1.acme.dev', user: 'deploy', roles: %w{{app web}}\nset :ssh_options, {{\n  forward_agent: false,\n  auth_methods: %w(password),\n  password: '{p}'\n}}",
    )
    p = d.password("javax-keystore")
    add(
        "java-system-setproperty-keystore-password",
        p,
        f'System.setProperty("javax.net.ssl.keyStore", "/opt/app/client.p12");\nSystem.setProperty("javax.net.ssl.keyStorePassword", "{p}");',
    )
    p = d.password("jetty-obf")
    t = _jetty_obf(p)
    add(
        "jetty-obf-keystore-password",
        t,
        f"## jetty-base/start.d/ssl.ini\njetty.sslContext.keyStorePath=etc/keystore.p12\njetty.sslContext.keyStorePassword={t}\n",
    )
    p = d.password("liberty-xor")
    t = _liberty_xor(p)
    add(
        "liberty-server-xml-xor-password",
        t,
        f'<server>\n    <keyStore id="defaultKeyStore" location="key.p12" type="PKCS12" password="{t}" />\n</server>',
    )
    p = d.password("quarkus-oidc")
    add(
        "quarkus-profile-oidc-credentials-secret",
        p,
        f"quarkus.oidc.auth-server-url=https://sso.acme.dev/realms/acme\nquarkus.oidc.client-id=orders\n%prod.quarkus.oidc.credentials.secret={p}\n",
    )
    p = d.password("dotnet-user-secrets")
    add(
        "dotnet-user-secrets-set",
        p,
        f'PS> dotnet user-secrets init\nPS> dotnet user-secrets set "Smtp:Password" "{p}"\nSuccessfully saved Smtp:Password = {p} to the secret store.',
    )
    t = d.s("launchsettings", 64, BASE64URL)
    add(
        "dotnet-launchsettings-environment-variable",
        t,
        json.dumps(
            {
                "profiles": {
                    "Api": {
                        "commandName": "Project",
                        "applicationUrl": "https://localhost:7043",
                        "environmentVariables": {
                            "ASPNETCORE_ENVIRONMENT": "Development",
                            "Auth0__Domain": "acme-dev.eu.auth0.com",
                            "Auth0__ClientSecret": t,
                        },
                    }
                }
            },
            indent=2,
        ),
    )
    t = "sb_secret_" + d.s("flutter-define", 31, BASE64URL)
    add(
        "flutter-dart-define-flag",
        t,
        f"flutter build apk --release --dart-define=SUPABASE_SERVICE_KEY={t} --dart-define=FLAVOR=prod",
    )
    # --- shells ------------------------------------------------------------------------------
    t = _github_token(d, "fish-gh", "ghp_")
    add(
        "fish-set-universal-export",
        t,
        f"# ~/.config/fish/fish_variables\n# This file contains fish universal variable definitions.\n# VERSION: 3.0\nSETUVAR --export GITHUB_TOKEN:{t}\nSETUVAR fish_greeting:\\x1d\n",
    )
    t = "sk-" + d.s("nushell-deepseek", 32, HEX)
    add(
        "nushell-env-assignment",
        t,
        f"# env.nu\n$env.EDITOR = 'hx'\n$env.DEEPSEEK_API_KEY = '{t}'\n$env.PATH = ($env.PATH | split row (char esep) | prepend '~/.cargo/bin')",
    )
    t = d.s("csh-setenv", 40, BASE64)
    add(
        "csh-setenv-line",
        t,
        f"# ~/.cshrc\nsetenv EDITOR vi\nsetenv AWS_SECRET_ACCESS_KEY {t}\nset prompt = '%n@%m:%~%# '",
    )
    p = d.password("ps-set-secret")
    add(
        "powershell-set-secret-vault",
        p,
        f"PS C:\\> Install-Module Microsoft.PowerShell.SecretManagement, Microsoft.PowerShell.SecretStore\nPS C:\\> Set-Secret -Name SqlAdmin -Secret '{p}' -Vault LocalStore",
    )
    t = "oy2" + d.s("psgallery", 43, LOWER_ALNUM)
    add(
        "powershell-publish-module-nugetapikey",
        t,
        f"Publish-Module -Path .\\out\\AcmeTools -NuGetApiKey {t} -Repository PSGallery -Verbose",
    )
    # --- build files, task runners, dev environments -------------------------------------
    t = "glft-" + d.s("makefile-feed", 20, ALNUM + "-_")
    add(
        "makefile-conditional-assignment-token",
        t,
        f'REGISTRY ?= registry.acme.dev\nFEED_TOKEN ?= {t}\n\nchangelog:\n\tcurl -s "https://gitlab.acme.dev/jdoe.atom?feed_token=$(FEED_TOKEN)" > feed.xml\n',
    )
    t = "fc-" + d.s("justfile-firecrawl", 32, HEX)
    add(
        "justfile-export-variable",
        t,
        f'set dotenv-load\n\nexport FIRECRAWL_API_KEY := "{t}"\n\ncrawl url:\n    firecrawl crawl {{{{url}}}} --limit 50\n',
    )
    t = d.s("buildbuddy", 20, ALNUM)
    add(
        "bazelrc-remote-header-api-key",
        t,
        f"build --bes_results_url=https://app.buildbuddy.io/invocation/\nbuild --bes_backend=grpcs://remote.buildbuddy.io\nbuild --remote_cache=grpcs://remote.buildbuddy.io\nbuild --remote_header=x-buildbuddy-api-key={t}\n",
    )
    p = d.password("earthly-secret")
    add(
        "earthly-secret-flag-value",
        p,
        f"earthly --ci --push --secret DOCKERHUB_PASSWORD={p} +release",
    )
    t = _github_token(d, "dagger-setsecret", "ghp_")
    add(
        "dagger-go-setsecret-literal",
        t,
        f'token := dag.SetSecret("gh-token", "{t}")\nreturn dag.Container().From("alpine:3.20").WithSecretVariable("GH_TOKEN", token)',
    )
    t = d.s("develocity", 52, LOWER_ALNUM)
    add(
        "develocity-access-key-env",
        t,
        f"env:\n  DEVELOCITY_ACCESS_KEY: ge.acme.dev={t}\nsteps:\n  - run: ./gradlew build --scan",
    )
    p = d.password("ccache-remote")
    add(
        "ccache-conf-remote-storage-redis-password",
        p,
        f"# ~/.config/ccache/ccache.conf\nmax_size = 20G\nremote_storage = redis://:{p}@cache.acme.internal:6379|connect-timeout=500\nremote_only = false\n",
    )
    t = d.s("turbo-token", 24, ALNUM)
    add(
        "turbo-config-json-token",
        t,
        f'$ cat .turbo/config.json\n{{"teamid":"team_acme","token":"{t}","apiurl":"https://cache.acme.dev"}}',
    )
    p = d.password("mise-env")
    add(
        "mise-toml-env-table",
        p,
        f'[tools]\nnode = "22"\npython = "3.12"\n\n[env]\nPGHOST = "localhost"\nPGPASSWORD = "{p}"\n',
    )
    t = d.s("tiltfile", 32, HEX)
    add(
        "tiltfile-local-resource-env",
        t,
        f"local_resource(\n    'seed-db',\n    cmd='python scripts/seed.py',\n    env={{'SEED_API_KEY': '{t}'}},\n    resource_deps=['postgres'],\n)",
    )
    p = d.password("devcontainer")
    add(
        "devcontainer-json-container-env",
        p,
        '{\n  // .devcontainer/devcontainer.json (JSONC)\n  "name": "api",\n  "image": "mcr.microsoft.com/devcontainers/python:3.12",\n  "containerEnv": {\n    "POSTGRES_PASSWORD": "'
        + p
        + '",\n  },\n}',
    )
    t = "npm_" + d.s("dockerfile-arg", 36, ALNUM)
    add(
        "dockerfile-arg-default-token",
        t,
        f'FROM node:22-alpine AS deps\nARG NPM_TOKEN={t}\nRUN echo "//registry.npmjs.org/:_authToken=${{NPM_TOKEN}}" > .npmrc && npm ci\n',
    )
    p = d.password("packer")
    add(
        "packer-hcl-ssh-password",
        p,
        f'source "qemu" "debian" {{\n  iso_url      = "debian-12.5.0-amd64-netinst.iso"\n  ssh_username = "packer"\n  ssh_password = "{p}"\n  ssh_timeout  = "30m"\n}}',
    )
    p = d.password("cdk-unsafe")
    add(
        "cdk-secretvalue-unsafe-plaintext",
        p,
        f"new rds.DatabaseInstance(this, 'Db', {{\n  engine: rds.DatabaseInstanceEngine.postgres({{ version: rds.PostgresEngineVersion.VER_16 }}),\n  credentials: rds.Credentials.fromPassword('app', SecretValue.unsafePlainText('{p}')),\n  vpc,\n}});",
    )
    p = d.password("vagrant")
    add(
        "vagrantfile-smb-password",
        p,
        f'Vagrant.configure("2") do |config|\n  config.vm.box = "gusztavvargadani/windows-server"\n  config.vm.synced_folder ".", "/vagrant", type: "smb",\n    smb_username: "builder", smb_password: "{p}"\nend',
    )


def _os_and_file_formats(d: _Batch5Draw, add: Add) -> None:
    # --- macOS, Windows, Linux desktop and provisioning -------------------------------------
    t = "rpa_" + d.s("launchd-runpod", 40, UPPER_ALNUM)
    add(
        "launchd-plist-environment-variables",
        t,
        f'<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n<plist version="1.0">\n<dict>\n    <key>Label</key>\n    <string>dev.acme.gpu-sync</string>\n    <key>EnvironmentVariables</key>\n    <dict>\n        <key>RUNPOD_API_KEY</key>\n        <string>{t}</string>\n    </dict>\n</dict>\n</plist>',
    )
    p = d.password("mobileconfig")
    add(
        "mobileconfig-wifi-payload-password",
        p,
        f"<dict>\n    <key>PayloadType</key>\n    <string>com.apple.wifi.managed</string>\n    <key>SSID_STR</key>\n    <string>Acme-Staff</string>\n    <key>EncryptionType</key>\n    <string>WPA2</string>\n    <key>Password</key>\n    <string>{p}</string>\n</dict>",
    )
    p = d.password("macos-security")
    add(
        "macos-security-add-generic-password",
        p,
        f'security add-generic-password -a "$USER" -s "acme-vpn" -w "{p}" -U',
    )
    p = d.password("putty-reg")
    add(
        "windows-reg-putty-proxy-password",
        p,
        f'Windows Registry Editor Version 5.00\n\n[HKEY_CURRENT_USER\\Software\\SimonTatham\\PuTTY\\Sessions\\bastion]\n"HostName"="bastion.acme.dev"\n"ProxyMethod"=dword:00000003\n"ProxyUsername"="jdoe"\n"ProxyPassword"="{p}"\n',
    )
    p = d.password("udl")
    add(
        "windows-udl-file-password",
        p,
        f"[oledb]\n; Everything after this line is an OLE DB initstring\nProvider=MSOLEDBSQL.1;Password={p};Persist Security Info=True;User ID=reports;Initial Catalog=Sales;Data Source=SQL02\n",
    )
    p = d.password("unattend")
    add(
        "windows-unattend-xml-plaintext-password",
        p,
        f"<UserAccounts>\n    <AdministratorPassword>\n        <Value>{p}</Value>\n        <PlainText>true</PlainText>\n    </AdministratorPassword>\n</UserAccounts>",
    )
    p = d.password("net-user-add")
    add("windows-net-user-add", p, f"C:\\> net user svc_backup {p} /add /passwordchg:no")
    p = d.password("psexec")
    add(
        "psexec-u-p-flags",
        p,
        f"PsExec64.exe \\\\fileserver01 -u ACME\\svc_deploy -p {p} -h cmd /c C:\\deploy\\install.bat",
    )
    t = "pa-" + d.s("desktop-voyage", 43, BASE64URL)
    add(
        "desktop-entry-exec-env-token",
        t,
        f"[Desktop Entry]\nType=Application\nName=Notes Search\nExec=env VOYAGE_API_KEY={t} /opt/notes-search/notes-search %U\nIcon=notes-search\nCategories=Office;\n",
    )
    p = d.password("systemd-mount")
    add(
        "systemd-mount-unit-cifs-options",
        p,
        f"# /etc/systemd/system/mnt-share.mount\n[Mount]\nWhat=//nas.local/share\nWhere=/mnt/share\nType=cifs\nOptions=username=media,password={p},uid=1000,vers=3.0\n",
    )
    p = d.password("cloud-init")
    add(
        "cloud-init-chpasswd-list",
        p,
        f"#cloud-config\nssh_pwauth: true\nchpasswd:\n  expire: false\n  users:\n    - name: ubuntu\n      password: {p}\n      type: text\n",
    )
    p = d.password("kickstart")
    add(
        "kickstart-rootpw-plaintext",
        p,
        f"lang en_US.UTF-8\nkeyboard us\ntimezone Europe/Berlin --utc\nrootpw --plaintext {p}\nuser --name=ops --groups=wheel\n",
    )
    p = d.password("preseed")
    add(
        "debian-preseed-user-password",
        p,
        f"d-i passwd/user-fullname string Ops\nd-i passwd/username string ops\nd-i passwd/user-password password {p}\nd-i passwd/user-password-again password {p}\n",
    )
    t = _b64(d.raw("remmina", 24))
    add(
        "remmina-profile-encrypted-password",
        t,
        f"[remmina]\nname=build-win\nprotocol=RDP\nserver=10.20.0.15\nusername=Administrator\npassword={t}\ndomain=ACME\n",
    )
    # --- documents, exports and data formats -------------------------------------------------
    t = "llx-" + d.s("notebook-llama", 48, ALNUM)
    add(
        "jupyter-notebook-cell-environ",
        t,
        json.dumps(
            {
                "cell_type": "code",
                "execution_count": 3,
                "metadata": {},
                "outputs": [],
                "source": [
                    "import os\n",
                    f'os.environ["LLAMA_CLOUD_API_KEY"] = "{t}"\n',
                    "from llama_parse import LlamaParse\n",
                ],
            },
            indent=1,
        ),
    )
    t = d.s("aws-csv", 40, BASE64)
    add(
        "aws-access-keys-csv-download",
        t,
        f"Access key ID,Secret access key\nAKIA{d.s('aws-csv-id', 16, BASE32)},{t}\n",
    )
    p = d.password("markdown-table")
    add(
        "markdown-table-test-accounts",
        p,
        f"| Environment | User | Password | Notes |\n|---|---|---|---|\n| staging | qa-admin@acme.dev | `{p}` | reset weekly |\n| staging | qa-viewer@acme.dev | (SSO) | |\n",
    )
    p = d.password("yaml-anchor")
    add(
        "yaml-anchor-merged-password",
        p,
        f"x-db: &db\n  host: db.acme.internal\n  user: app\n  password: {p}\n\nservices:\n  api:\n    <<: *db\n  worker:\n    <<: *db\n",
    )
    t = d.s("json5", 32, HEX)
    add(
        "json5-unquoted-key-comment",
        t,
        f"{{\n  // config.json5 -- local only, do not commit\n  apiBase: 'https://api.acme.dev',\n  apiSecret: '{t}',\n  retries: 3,\n}}",
    )
    t = d.s("pbtxt", 48, BASE64URL)
    add(
        "protobuf-text-format-credentials",
        t,
        f'# proto-message: acme.sync.v1.Config\nendpoint: "sync.acme.dev:443"\ncredentials {{\n  client_id: "sync-agent"\n  client_secret: "{t}"\n}}\n',
    )
    p = d.password("properties-unicode")
    t = _properties_escaped(p)
    add(
        "properties-unicode-escaped-password",
        t,
        f"# generated by native2ascii\nmail.smtp.host=smtp.acme.dev\nmail.smtp.user=noreply\nmail.smtp.password={t}\n",
    )
    p = d.password("log4j-smtp")
    add(
        "log4j2-xml-smtp-appender-password",
        p,
        f'<SMTP name="Mail" subject="[prod] error" to="oncall@acme.dev" from="log@acme.dev"\n      smtpHost="smtp.acme.dev" smtpPort="587" smtpUsername="log@acme.dev" smtpPassword="{p}" bufferSize="50">\n</SMTP>',
    )
    p = d.password("context-xml")
    add(
        "tomcat-context-xml-resource-password",
        p,
        f'<Context>\n  <Resource name="jdbc/Orders" auth="Container" type="javax.sql.DataSource"\n            driverClassName="org.postgresql.Driver" url="jdbc:postgresql://db:5432/orders"\n            username="orders" password="{p}" maxTotal="20"/>\n</Context>',
    )
    t = "ctx" + d.s("slack-export", 20, ALNUM)
    p = d.password("slack-export")
    add(
        "slack-export-message-text",
        p,
        json.dumps(
            [
                {
                    "type": "message",
                    "user": "U04ABCD12",
                    "text": f"staging db is back, creds are admin / {p} until Friday",
                    "ts": "1733300000.000200",
                    "client_msg_id": t,
                }
            ],
            indent=4,
        ),
    )
    p = d.password("email-thread")
    add(
        "email-thread-quoted-temporary-password",
        p,
        f"On Tue, 3 Dec 2026 at 09:12, IT Helpdesk <it@acme.dev> wrote:\n> Your account has been created.\n> Username: jdoe\n> Temporary password: {p}\n> You will be asked to change it at first login.\n",
    )
    p = d.password("issue-paste")
    add(
        "issue-comment-pasted-config",
        p,
        f'Still failing for me with 2.4.1, here\'s my config:\n\n```toml\n[server]\nlisten = "0.0.0.0:8080"\nadmin_password = "{p}"\n```\n\nAny idea?',
    )
    p = d.password("code-comment")
    add(
        "code-comment-temporary-password",
        p,
        f"def connect():\n    # TODO remove: temporary password for the staging box is {p}\n    return Client(host=STAGING_HOST, user='deploy')",
    )
    t = d.s("csv-users", 32, ALNUM)
    add(
        "csv-export-api-keys-column",
        t,
        f'id,name,email,api_key,created_at\n17,"Build bot",build@acme.dev,{t},2026-11-02T09:00:00Z\n',
    )


def _ways_of_passing(d: _Batch5Draw, add: Add) -> None:
    # --- stdin, heredocs and shell quoting -----------------------------------------------
    p = d.password("sudo-stdin")
    add("sudo-s-echo-stdin", p, f"echo '{p}' | sudo -S systemctl restart nginx")
    p = d.password("chpasswd")
    add("chpasswd-here-string", p, f'chpasswd <<< "deploy:{p}"')
    p = d.password("docker-secret-create")
    add(
        "docker-secret-create-from-stdin",
        p,
        f"printf '%s' '{p}' | docker secret create pg_password -",
    )
    p = d.password("heredoc-login")
    add(
        "heredoc-password-stdin-login",
        p,
        f"cat <<'EOF' | podman login --username ci --password-stdin quay.io\n{p}\nEOF",
    )
    p = d.password("ansi-c")
    t = p[:6] + "\\'" + p[6:]
    add(
        "bash-ansi-c-quoted-password",
        t,
        f"export SMB_PASS=$'{t}'\nsmbclient //nas/backup -U backup%\"$SMB_PASS\"",
    )
    p = d.password("vault-kv-put")
    add(
        "vault-kv-put-field-value",
        p,
        f"vault kv put -mount=secret apps/billing db_user=billing db_password={p}",
    )
    p = d.password("htpasswd-b")
    add("htpasswd-b-batch-flag", p, f"htpasswd -bB /etc/nginx/.htpasswd grafana {p}")
    p = d.password("ldappasswd")
    add(
        "ldappasswd-s-new-password",
        p,
        f'ldappasswd -H ldaps://ldap.acme.dev -D "cn=admin,dc=acme,dc=dev" -W -s {p} "uid=jdoe,ou=people,dc=acme,dc=dev"',
    )
    p = d.password("curl-proxy-user")
    add(
        "curl-proxy-user-flag",
        p,
        f"curl --proxy http://proxy.acme.dev:3128 --proxy-user jdoe:{p} https://pypi.org/simple/",
    )
    p = d.password("rsync-env")
    add(
        "rsync-password-env",
        p,
        f"RSYNC_PASSWORD={p} rsync -av rsync://backup@nas.local/photos/ /srv/photos/",
    )
    p = d.password("git-askpass")
    add(
        "git-askpass-script-echo",
        p,
        f"#!/bin/sh\n# ~/bin/git-askpass.sh, used with GIT_ASKPASS\ncase \"$1\" in\n  Username*) echo ci-bot ;;\n  Password*) echo '{p}' ;;\nesac\n",
    )
    p = d.password("git-credential-helper")
    add(
        "git-credential-helper-inline-function",
        p,
        f"git -c credential.helper='!f() {{ echo username=ci; echo password={p}; }}; f' clone https://git.acme.dev/platform/infra.git",
    )
    p = d.password("apt-proxy")
    add(
        "apt-conf-proxy-credentials",
        p,
        f'// /etc/apt/apt.conf.d/95proxy\nAcquire::http::Proxy "http://jdoe:{p}@proxy.acme.dev:3128/";\nAcquire::https::Proxy "DIRECT";\n',
    )
    # --- URLs: query parameters, fragments, percent-encoding --------------------------------
    t = d.uuid("duckdns")
    add(
        "duckdns-update-url-token",
        t,
        f'*/5 * * * * curl -s "https://www.duckdns.org/update?domains=acme-home&token={t}&ip=" >/dev/null',
    )
    t = d.s("jupyter-log", 48, HEX)
    add(
        "jupyter-startup-log-token-url",
        t,
        f"[I 2026-12-03 10:41:07.123 ServerApp] Jupyter Server 2.14.2 is running at:\n[I 2026-12-03 10:41:07.123 ServerApp] http://127.0.0.1:8888/lab?token={t}\n",
    )
    t = d.s("mega-key", 43, BASE64URL)
    add(
        "mega-link-fragment-key",
        t,
        f"backup from last night: https://mega.nz/file/{d.s('mega-id', 8, ALNUM)}#{t}",
    )
    t = d.s("privatebin", 44, BASE58)
    add(
        "privatebin-url-fragment-key",
        t,
        f"here are the prod env vars, expires in 1 day: https://paste.acme.dev/?{d.s('pb-id', 16, HEX)}#{t}",
    )
    p = d.password("percent-encoded")
    t = quote(p, safe="")
    add(
        "sqlalchemy-url-percent-encoded-password",
        t,
        f'engine = create_engine("mssql+pyodbc://sa:{t}@sql01.acme.internal/Sales?driver=ODBC+Driver+18+for+SQL+Server")',
    )
    t = d.s("ifttt", 22, BASE64URL)
    add(
        "ifttt-maker-webhook-key-path",
        t,
        f"curl -X POST https://maker.ifttt.com/trigger/door_open/with/key/{t}",
    )
    t = d.uuid("loggly")
    add(
        "loggly-http-input-url-token",
        t,
        f"curl -H 'content-type:text/plain' -d 'deploy finished' https://logs-01.loggly.com/inputs/{t}/tag/http/",
    )
    t = d.s("pipedrive", 40, HEX)
    add(
        "pipedrive-api-token-query",
        t,
        f"GET https://acme.pipedrive.com/api/v1/deals?status=open&api_token={t}",
    )
    t = (
        "eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCJ9."
        + d.s("turso-a", 60, BASE64URL)
        + "."
        + d.s("turso-b", 86, BASE64URL)
    )
    add(
        "libsql-url-authtoken-query",
        t,
        f"DATABASE_URL=libsql://acme-prod-jdoe.turso.io?authToken={t}",
    )
    # --- escapes and values on the next line ---------------------------------------------
    p = d.password("json-in-json")
    add(
        "escaped-json-string-body",
        p,
        json.dumps(
            {
                "method": "POST",
                "url": "https://auth.acme.dev/login",
                "body": json.dumps({"username": "qa-admin", "password": p}),
            }
        ),
    )
    t = d.s("yaml-folded", 64, BASE64URL)
    add(
        "yaml-folded-block-scalar-token",
        t,
        f"alerting:\n  webhook:\n    url: https://hooks.acme.dev/alerts\n    bearer_token: >-\n      {t}\n    timeout: 10s\n",
    )
    p = d.password("python-concat")
    add(
        "python-parenthesized-next-line-password",
        p,
        f'SMTP_PASSWORD = (\n    "{p}"\n)\nserver.login(SMTP_USER, SMTP_PASSWORD)',
    )
    # --- error messages, panics and dumps -----------------------------------------------------
    p = d.password("go-panic")
    add(
        "go-panic-struct-dump-password",
        p,
        f'panic: connect: dial tcp 10.0.0.12:5432: i/o timeout\n\ngoroutine 1 [running]:\nmain.mustConnect(...)\n\t/src/cmd/api/main.go:41\n// cfg = &config.DB{{Host:"10.0.0.12", Port:5432, User:"api", Password:"{p}", SSLMode:"require"}}',
    )
    p = d.password("rust-debug")
    add(
        "rust-debug-print-config-struct",
        p,
        f'[2026-12-03T10:41:07Z DEBUG api] loaded Settings {{ listen: 0.0.0.0:8080, smtp: SmtpSettings {{ host: "smtp.acme.dev", user: "noreply", password: "{p}" }} }}',
    )
    t = d.s("requests-error", 32, HEX)
    add(
        "python-requests-connectionerror-url-key",
        t,
        f"requests.exceptions.ConnectionError: HTTPSConnectionPool(host='api.openweathermap.org', port=443): Max retries exceeded with url: /data/2.5/weather?q=Berlin&appid={t} (Caused by NameResolutionError(...))",
    )
    p = d.password("node-fetch-error")
    add(
        "node-fetch-typeerror-url-credentials",
        p,
        f"TypeError: Request cannot be constructed from a URL that includes credentials: https://admin:{p}@couch.acme.internal:5984/_all_dbs\n    at new Request (node:internal/deps/undici/undici:9474:19)",
    )
    # --- test fixtures -------------------------------------------------------------------------
    t = "sk-" + d.s("vcr-stability", 48, ALNUM)
    add(
        "vcr-cassette-recorded-authorization",
        t,
        f"interactions:\n- request:\n    body: null\n    headers:\n      Accept:\n      - application/json\n      Authorization:\n      - Bearer {t}\n    method: GET\n    uri: https://api.stability.ai/v1/user/balance\n  response:\n    status: {{code: 200, message: OK}}\n",
    )
    t = d.s("wiremock", 40, HEX)
    add(
        "wiremock-mapping-header-equalto",
        t,
        json.dumps(
            {
                "request": {
                    "method": "GET",
                    "urlPath": "/v3/accounts",
                    "headers": {"X-Api-Key": {"equalTo": t}},
                },
                "response": {"status": 200, "bodyFileName": "accounts.json"},
            },
            indent=2,
        ),
    )
    t = d.s("monkeypatch", 32, ALNUM)
    add(
        "pytest-monkeypatch-setenv-key",
        t,
        f'@pytest.fixture(autouse=True)\ndef live_keys(monkeypatch):\n    monkeypatch.setenv("ASSEMBLYAI_API_KEY", "{t}")\n    monkeypatch.setenv("LOG_LEVEL", "debug")',
    )
    t = d.s("jest-setup", 40, HEX)
    add(
        "jest-setup-process-env-assignment",
        t,
        f"// jest.setup.ts\nprocess.env.DEEPGRAM_API_KEY = '{t}';\nprocess.env.TZ = 'UTC';",
    )
    t = d.s("playwright-state", 64, BASE64URL)
    add(
        "playwright-storage-state-cookie",
        t,
        json.dumps(
            {
                "cookies": [
                    {
                        "name": "__Secure-next-auth.session-token",
                        "value": t,
                        "domain": "app.acme.dev",
                        "path": "/",
                        "expires": 1767225600,
                        "httpOnly": True,
                        "secure": True,
                        "sameSite": "Lax",
                    }
                ],
                "origins": [],
            },
            indent=2,
        ),
    )
    p = d.password("cypress-env")
    add(
        "cypress-env-json-login-password",
        p,
        json.dumps(
            {"baseUrl": "https://staging.acme.dev", "adminUser": "qa-admin", "adminPassword": p},
            indent=2,
        ),
    )
    p = d.password("tox-setenv")
    add(
        "tox-ini-setenv-password",
        p,
        f"[testenv]\ndeps = -r requirements-test.txt\nsetenv =\n    DB_URL = postgresql://localhost/test\n    LDAP_BIND_PASSWORD = {p}\ncommands = pytest {{posargs}}\n",
    )
    p = d.password("jmeter")
    add(
        "jmeter-jmx-argument-password",
        p,
        f'<elementProp name="password" elementType="HTTPArgument">\n  <boolProp name="HTTPArgument.always_encode">false</boolProp>\n  <stringProp name="Argument.value">{p}</stringProp>\n  <stringProp name="Argument.name">password</stringProp>\n</elementProp>',
    )
    t = d.s("k6", 40, ALNUM)
    add(
        "k6-script-params-headers",
        t,
        f"export default function () {{\n  const params = {{ headers: {{ 'X-TYPESENSE-API-KEY': '{t}' }} }};\n  http.get('https://search.acme.dev/collections/products/documents/search?q=shoe', params);\n}}",
    )


def _servers_homelab_and_data(d: _Batch5Draw, add: Add) -> None:
    # --- home automation, media and home-lab -------------------------------------------------
    p = d.password("ha-secrets")
    add(
        "home-assistant-secrets-yaml",
        p,
        f"# secrets.yaml\nhttp_base_url: https://ha.acme.home\nmqtt_password: {p}\nlatitude: 52.52\n",
    )
    t = _b64(d.raw("esphome-api", 32))
    add(
        "esphome-api-encryption-key",
        t,
        f'esphome:\n  name: garage-door\n\napi:\n  encryption:\n    key: "{t}"\n\nota:\n  - platform: esphome\n',
    )
    p = d.password("esphome-ota")
    add(
        "esphome-ota-password",
        p,
        f'wifi:\n  ssid: !secret wifi_ssid\n  password: !secret wifi_password\n\nota:\n  - platform: esphome\n    password: "{p}"\n',
    )
    t = d.s("node-red", 32, ALNUM)
    add(
        "node-red-settings-credential-secret",
        t,
        f'module.exports = {{\n    flowFile: "flows.json",\n    credentialSecret: "{t}",\n    uiPort: process.env.PORT || 1880,\n}}',
    )
    p = d.password("tasmota")
    add(
        "tasmota-console-mqtt-password",
        p,
        f"Backlog MqttHost 192.168.1.10; MqttUser tasmota; MqttPassword {p}; Topic plug_office",
    )
    t = d.s("octoprint", 32, UPPER_HEX)
    add(
        "octoprint-config-yaml-api-key",
        t,
        f"# ~/.octoprint/config.yaml\napi:\n  key: {t}\nserver:\n  firstRun: false\n",
    )
    t = d.s("plex", 20, ALNUM + "-_")
    add(
        "plex-preferences-xml-online-token",
        t,
        f'<?xml version="1.0" encoding="utf-8"?>\n<Preferences MachineIdentifier="{d.uuid("plex-mid")}" ProcessedMachineIdentifier="{d.s("plex-pmid", 40, HEX)}" PlexOnlineUsername="jdoe" PlexOnlineToken="{t}" AcceptedEULA="1"/>',
    )
    t = d.s("sonarr", 32, HEX)
    add(
        "sonarr-config-xml-api-key",
        t,
        f"<Config>\n  <BindAddress>*</BindAddress>\n  <Port>8989</Port>\n  <ApiKey>{t}</ApiKey>\n  <AuthenticationMethod>Forms</AuthenticationMethod>\n</Config>",
    )
    p = d.password("deluge-auth")
    add("deluge-auth-file-line", p, f"localclient:{d.s('deluge-local', 40, HEX)}:10\njdoe:{p}:10\n")
    p = d.password("openwrt")
    add(
        "openwrt-uci-wireless-key",
        p,
        f"config wifi-iface 'default_radio0'\n\toption device 'radio0'\n\toption network 'lan'\n\toption mode 'ap'\n\toption ssid 'home'\n\toption encryption 'sae-mixed'\n\toption key '{p}'\n",
    )
    p = d.password("wifi-qr")
    add("wifi-qr-code-payload", p, f"qrencode -o guest-wifi.png 'WIFI:T:WPA;S:Guest;P:{p};;'")
    p = d.password("ddclient")
    add(
        "ddclient-conf-password",
        p,
        f"daemon=300\nuse=web\nprotocol=dyndns2\nserver=members.dyndns.org\nlogin=jdoe\npassword='{p}'\nhome.dyndns.org\n",
    )
    t = d.s("certbot-cf", 40, BASE64URL)
    add(
        "certbot-dns-cloudflare-credentials-ini",
        t,
        f"# /root/.secrets/certbot/cloudflare.ini\ndns_cloudflare_api_token = {t}\n",
    )
    t = d.s("acme-sh", 37, HEX)
    add(
        "acme-sh-account-conf-saved-key",
        t,
        f"# ~/.acme.sh/account.conf\nSAVED_CF_Key='{t}'\nSAVED_CF_Email='jdoe@acme.dev'\nUSER_PATH='/usr/local/bin:/usr/bin:/bin'\n",
    )
    t = d.s("eab-hmac", 86, BASE64URL)
    add(
        "certbot-eab-hmac-key-flag",
        t,
        f"certbot certonly --standalone --server https://acme.zerossl.com/v2/DV90 --eab-kid {d.s('eab-kid', 22, BASE64URL)} --eab-hmac-key {t} -d acme.dev",
    )
    p = d.password("rcon")
    add(
        "minecraft-server-properties-rcon-password",
        p,
        f"enable-rcon=true\nrcon.port=25575\nrcon.password={p}\nmotd=Acme SMP\n",
    )
    p = d.password("srcds")
    add(
        "source-server-cfg-rcon-password",
        p,
        f'hostname "Acme CS2"\nrcon_password "{p}"\nsv_cheats 0\n',
    )
    t = d.s("ts3-token", 40, ALNUM + "+")
    add(
        "teamspeak-first-start-privilege-key-log",
        t,
        f"2026-12-03 10:41:07.123456|WARNING |VirtualServer |1  |--------------------------------------------------------\n2026-12-03 10:41:07.123456|WARNING |VirtualServer |1  |ServerAdmin privilege key created, please use it to gain\n2026-12-03 10:41:07.123456|WARNING |VirtualServer |1  |serveradmin rights for your virtualserver. please\n2026-12-03 10:41:07.123456|WARNING |VirtualServer |1  |also check the doc/privilegekey_guide.txt for details.\n\n                      token={t}\n",
    )
    # --- network devices ---------------------------------------------------------------------
    p = d.password("mikrotik-user")
    add(
        "mikrotik-user-add-password",
        p,
        f'/user add name=backup group=read password="{p}" comment="nightly export"',
    )
    t = "$9$" + d.s("junos9", 30, JUNOS9)
    add(
        "junos-encrypted-password-9",
        t,
        f'set snmp v3 usm local-engine user snmpuser authentication-sha authentication-key "{t}"',
    )
    p = d.password("aruba")
    add(
        "aruba-cx-user-plaintext-password",
        p,
        f"user admin group administrators password plaintext {p}\nhostname core-sw-01",
    )
    # --- servers and services ------------------------------------------------------------------
    p = d.password("couchdb")
    add(
        "couchdb-local-ini-admins",
        p,
        f"[admins]\nadmin = {p}\n\n[chttpd]\nbind_address = 0.0.0.0\n",
    )
    p = d.password("exim-passwd")
    add(
        "exim4-passwd-client-line",
        p,
        f"# /etc/exim4/passwd.client\n# target.mail.server.example:login:password\n*.smtp.acme.dev:relay@acme.dev:{p}\n",
    )
    p = d.password("sendmail-authinfo")
    add(
        "sendmail-authinfo-entry",
        p,
        f'AuthInfo:smtp.acme.dev "U:relay@acme.dev" "P:{p}" "M:PLAIN"\n',
    )
    p = d.password("mailrc")
    add(
        "s-nail-mailrc-smtp-auth-password",
        p,
        f'set mta=smtps://relay%40acme.dev@smtp.acme.dev:465\nset smtp-auth=login\nset smtp-auth-password={p}\nset from="relay@acme.dev"\n',
    )
    p = d.password("aerc")
    t = quote(p, safe="")
    add(
        "aerc-accounts-conf-source-url",
        t,
        f"[Work]\nsource   = imaps://jdoe%40acme.dev:{t}@imap.acme.dev\noutgoing = smtps+plain://jdoe%40acme.dev@smtp.acme.dev\ndefault  = INBOX\nfrom     = Jane Doe <jdoe@acme.dev>\n",
    )
    p = d.password("irssi")
    add(
        "irssi-config-sasl-password",
        p,
        f'servers = (\n  {{\n    address = "irc.libera.chat";\n    chatnet = "liberachat";\n    port = "6697";\n    use_tls = "yes";\n    sasl_mechanism = "PLAIN";\n    sasl_username = "jdoe";\n    sasl_password = "{p}";\n  }}\n);',
    )
    p = d.password("hexchat")
    add(
        "hexchat-servlist-conf-password",
        p,
        f"N=Libera.Chat\nL=7\nI=jdoe\nP={p}\nS=irc.libera.chat/6697\nF=19\n",
    )
    t = "oauth:" + d.s("twitch-irc", 30, LOWER_ALNUM)
    add("twitch-irc-oauth-pass", t, f"PASS {t}\nNICK acmebot\nJOIN #acme_streams")
    t = d.s("zabbix-psk", 64, HEX)
    add(
        "zabbix-agent-psk-file",
        t,
        f"$ sudo cat /etc/zabbix/zabbix_agentd.psk\n{t}\n$ grep ^TLSPSK /etc/zabbix/zabbix_agentd.conf\nTLSPSKIdentity=PSK 001\nTLSPSKFile=/etc/zabbix/zabbix_agentd.psk\n",
    )
    t = d.uuid("netdata-stream")
    add(
        "netdata-stream-conf-api-key",
        t,
        f"[stream]\n    enabled = yes\n    destination = parent.acme.internal:19999\n    api key = {t}\n",
    )
    t = d.s("graylog", 96, ALNUM)
    add(
        "graylog-server-conf-password-secret",
        t,
        f"is_leader = true\nnode_id_file = /etc/graylog/server/node-id\npassword_secret = {t}\nroot_username = admin\n",
    )
    t = d.s("fluentd-shared", 32, ALNUM)
    add(
        "fluentd-forward-security-shared-key",
        t,
        f"<match app.**>\n  @type forward\n  transport tls\n  <security>\n    self_hostname client.acme.internal\n    shared_key {t}\n  </security>\n  <server>\n    host aggregator.acme.internal\n    port 24224\n  </server>\n</match>",
    )
    p = d.password("filebeat-cloud-auth")
    add(
        "filebeat-cloud-auth-setting",
        p,
        f'cloud.id: "acme-prod:{_b64("europe-west1.gcp.cloud.es.io$abc123$def456")}"\ncloud.auth: "filebeat_writer:{p}"\n',
    )
    p = d.password("activemq")
    add(
        "activemq-jetty-realm-properties",
        p,
        f"# username: password [,rolename ...]\nadmin: {p}, admin\nuser: user, user\n",
    )
    t = (
        "eyJhbGciOiJIUzI1NiJ9."
        + d.s("pulsar-jwt", 40, BASE64URL)
        + "."
        + d.s("pulsar-sig", 43, BASE64URL)
    )
    add(
        "pulsar-client-conf-auth-params-token",
        t,
        f"webServiceUrl=https://pulsar.acme.dev:8443/\nbrokerServiceUrl=pulsar+ssl://pulsar.acme.dev:6651/\nauthPlugin=org.apache.pulsar.client.impl.auth.AuthenticationToken\nauthParams=token:{t}\n",
    )
    t = _z85(d.raw("zmq-curve", 32))
    add(
        "zeromq-curve-secret-key-z85",
        t,
        f'server = ctx.socket(zmq.ROUTER)\nserver.curve_secretkey = b"{t}"\nserver.curve_publickey = b"{_z85(d.raw("zmq-curve-pub", 32))}"\nserver.curve_server = True',
    )
    # --- databases and data tools ------------------------------------------------------------
    t = d.s("duckdb-secret", 40, BASE64)
    add(
        "duckdb-create-secret-s3",
        t,
        f"CREATE SECRET lake (\n    TYPE s3,\n    KEY_ID 'AKIA{d.s('duckdb-id', 16, BASE32)}',\n    SECRET '{t}',\n    REGION 'eu-central-1'\n);",
    )
    t = d.s("redshift-copy", 40, BASE64)
    add(
        "redshift-copy-credentials-clause",
        t,
        f"COPY sales FROM 's3://acme-dw/sales/2026/12/'\nCREDENTIALS 'aws_access_key_id=AKIA{d.s('redshift-id', 16, BASE32)};aws_secret_access_key={t}'\nFORMAT AS PARQUET;",
    )
    t = _b64(d.raw("spark-azure", 64))
    add(
        "spark-conf-set-azure-account-key",
        t,
        f'spark.conf.set(\n    "fs.azure.account.key.acmelake.dfs.core.windows.net",\n    "{t}",\n)\ndf = spark.read.parquet("abfss://raw@acmelake.dfs.core.windows.net/events/")',
    )
    t = d.s("spark-s3a", 40, BASE64)
    add(
        "spark-defaults-conf-s3a-secret-key",
        t,
        f"spark.hadoop.fs.s3a.endpoint          https://minio.acme.internal:9000\nspark.hadoop.fs.s3a.access.key        spark\nspark.hadoop.fs.s3a.secret.key        {t}\nspark.hadoop.fs.s3a.path.style.access true\n",
    )
    p = d.password("federated")
    add(
        "mysql-federated-table-connection",
        p,
        f"CREATE TABLE remote_orders (id INT, total DECIMAL(10,2))\nENGINE=FEDERATED\nCONNECTION='mysql://fed_user:{p}@10.0.4.20:3306/shop/orders';",
    )
    p = d.password("dblink")
    add(
        "postgres-dblink-connection-string",
        p,
        f"SELECT * FROM dblink('host=10.0.4.21 dbname=legacy user=reader password={p}',\n                      'SELECT id, email FROM customers') AS t(id int, email text);",
    )
    p = d.password("sqlcipher")
    add(
        "sqlcipher-pragma-key",
        p,
        f"sqlite> PRAGMA key = '{p}';\nsqlite> SELECT count(*) FROM sqlite_master;",
    )
    p = d.password("db2-connect")
    add("db2-connect-using", p, f"db2 connect to SAMPLE user db2inst1 using {p}")
    p = d.password("teradata-bteq")
    add(
        "teradata-bteq-logon",
        p,
        f".LOGON tdprod.acme.internal/etl_user,{p};\nSELECT COUNT(*) FROM sales.orders;\n.LOGOFF;",
    )
    p = d.password("hdbsql")
    add(
        "sap-hana-hdbsql-p-flag",
        p,
        f'hdbsql -n hana01:30015 -u SYSTEM -p {p} "SELECT * FROM M_DATABASE"',
    )
    p = d.password("isql-fb")
    add(
        "firebird-isql-password-flag",
        p,
        f"isql-fb -user SYSDBA -password {p} /var/lib/firebird/data/employee.fdb",
    )
    p = d.password("mkstore")
    add(
        "oracle-mkstore-create-credential",
        p,
        f"mkstore -wrl /u01/app/oracle/wallet -createCredential ORCLPDB1 app_user {p}",
    )
    p = d.password("airflow-conn")
    add(
        "airflow-connections-add-conn-password",
        p,
        f"airflow connections add 'warehouse' --conn-type postgres --conn-host dw.acme.internal --conn-login airflow --conn-password '{p}' --conn-port 5432",
    )
    p = d.password("dbt-key-pass")
    add(
        "dbt-profiles-yml-private-key-passphrase",
        p,
        f"acme:\n  target: prod\n  outputs:\n    prod:\n      type: snowflake\n      account: acme-xy12345\n      user: DBT_PROD\n      private_key_path: /secrets/dbt_rsa_key.p8\n      private_key_passphrase: {p}\n",
    )
    p = d.password("mlflow")
    add(
        "mlflow-tracking-password-env",
        p,
        f"export MLFLOW_TRACKING_URI=https://mlflow.acme.dev\nexport MLFLOW_TRACKING_USERNAME=jdoe\nexport MLFLOW_TRACKING_PASSWORD='{p}'\n",
    )
    t = d.s("clearml", 50, ALNUM)
    add(
        "clearml-conf-api-credentials",
        t,
        f'api {{\n    web_server: https://app.clear.ml\n    api_server: https://api.clear.ml\n    credentials {{\n        "access_key" = "{d.s("clearml-ak", 30, UPPER_ALNUM)}"\n        "secret_key" = "{t}"\n    }}\n}}',
    )
    t = d.s("comet", 25, ALNUM)
    add(
        "comet-config-api-key",
        t,
        f"# ~/.comet.config\n[comet]\napi_key = {t}\nworkspace = acme-ml\n",
    )
    p = d.password("jupyterhub")
    add(
        "jupyterhub-config-dummy-authenticator-password",
        p,
        f'c.JupyterHub.authenticator_class = "dummy"\nc.DummyAuthenticator.password = "{p}"\nc.Spawner.default_url = "/lab"',
    )
    p = d.password("opensearch-initial")
    add(
        "opensearch-initial-admin-password-compose",
        p,
        f"  opensearch-node1:\n    image: opensearchproject/opensearch:2.18.0\n    environment:\n      - discovery.type=single-node\n      - OPENSEARCH_INITIAL_ADMIN_PASSWORD={p}\n",
    )
    t = d.s("meili", 32, BASE64URL)
    add(
        "meilisearch-master-key-flag",
        t,
        f"./meilisearch --env production --master-key='{t}' --db-path ./data.ms",
    )
    t = d.s("qdrant", 40, ALNUM)
    add(
        "qdrant-client-api-key-kwarg",
        t,
        f'client = QdrantClient(\n    url="https://{d.uuid("qdrant-cluster")}.eu-central-1-0.aws.cloud.qdrant.io:6333",\n    api_key="{t}",\n)',
    )
    t = d.s("weaviate", 40, ALNUM)
    add(
        "weaviate-auth-api-key-constructor",
        t,
        f'client = weaviate.connect_to_weaviate_cloud(\n    cluster_url="acme-search.c0.europe-west3.gcp.weaviate.cloud",\n    auth_credentials=Auth.api_key("{t}"),\n)',
    )
    t = d.uuid("atlas-private")
    add(
        "mongodb-atlas-cli-private-api-key",
        t,
        f"atlas config set public_api_key {d.s('atlas-pub', 8, LOWER_ALNUM)}\natlas config set private_api_key {t}\n",
    )


def _prefixed_tokens_and_keys(d: _Batch5Draw, add: Add) -> None:
    # --- SaaS tokens by documented prefix ----------------------------------------------------
    t = "ghr_" + d.s("gh-refresh", 76, ALNUM)
    add(
        "github-app-user-refresh-token-response",
        t,
        f"access_token={_github_token(d, 'ghu', 'ghu_')}&expires_in=28800&refresh_token={t}&refresh_token_expires_in=15811200&scope=&token_type=bearer",
    )
    t = "gloas-" + d.s("gloas", 64, HEX)
    add(
        "gitlab-oauth-application-secret",
        t,
        f'gitlab_rails["omniauth_providers"] = [\n  {{ name: "gitlab", app_id: "{d.s("gloas-id", 64, HEX)}", app_secret: "{t}" }}\n]',
    )
    t = "glimt-" + d.s("glimt", 25, LOWER_ALNUM)
    add(
        "gitlab-incoming-email-token-address",
        t,
        f"Email a new issue to this project (keep this address private):\nincoming+acme-platform-api-4217-{t}-issue@incoming.gitlab.acme.dev",
    )
    t = "sq0csp-" + d.s("square-csp", 43, BASE64URL)
    add(
        "square-oauth-application-secret",
        t,
        f"SQUARE_APPLICATION_ID=sq0idp-{d.s('square-idp', 22, BASE64URL)}\nSQUARE_APPLICATION_SECRET={t}\n",
    )
    t = (
        "APP_USR-"
        + d.s("mp-a", 16, DIGITS)
        + "-"
        + d.s("mp-b", 6, DIGITS)
        + "-"
        + d.s("mp-c", 32, HEX)
        + "-"
        + d.s("mp-d", 9, DIGITS)
    )
    add(
        "mercadopago-access-token-sdk",
        t,
        f'const client = new MercadoPagoConfig({{ accessToken: "{t}", options: {{ timeout: 5000 }} }});',
    )
    t = "xnd_production_" + d.s("xendit", 60, ALNUM)
    add(
        "xendit-secret-key-basic-user",
        t,
        f"curl https://api.xendit.co/balance -X GET -u {t}:",
    )
    t = "Mid-server-" + d.s("midtrans", 24, ALNUM + "_-")
    add(
        "midtrans-server-key-config",
        t,
        f"midtransclient.Snap(\n    is_production=True,\n    server_key='{t}',\n    client_key='Mid-client-{d.s('midtrans-client', 16, ALNUM)}'\n)",
    )
    t = d.s("plivo", 40, ALNUM)
    add(
        "plivo-rest-client-auth-token",
        t,
        f"client = plivo.RestClient(auth_id='MA{d.s('plivo-id', 18, UPPER_ALNUM)}', auth_token='{t}')",
    )
    t = "KEY" + d.s("telnyx", 32, UPPER_HEX) + "_" + d.s("telnyx-b", 22, ALNUM)
    add("telnyx-api-key-v2-env", t, f"TELNYX_API_KEY={t}\nTELNYX_PUBLIC_KEY=\n")
    t = d.s("infobip", 32, HEX) + "-" + d.uuid("infobip-b")
    add(
        "infobip-app-authorization-header",
        t,
        f'curl -L -X POST "https://xyz12.api.infobip.com/sms/2/text/advanced" -H "Authorization: App {t}" -H "Content-Type: application/json"',
    )
    t = d.s("pushover", 30, LOWER_ALNUM)
    add(
        "pushover-message-form-token",
        t,
        f'curl -s --form-string "token={t}" --form-string "user={d.s("pushover-user", 30, LOWER_ALNUM)}" --form-string "message=backup done" https://api.pushover.net/1/messages.json',
    )
    t = "o." + d.s("pushbullet", 32, ALNUM)
    add(
        "pushbullet-access-token-header",
        t,
        f"curl --header 'Access-Token: {t}' https://api.pushbullet.com/v2/users/me",
    )
    t = "tk_" + d.s("ntfy", 29, LOWER_ALNUM)
    add(
        "ntfy-access-token-publish",
        t,
        f'curl -H "Authorization: Bearer {t}" -d "Disk 92% full on nas" https://ntfy.acme.dev/alerts',
    )
    t = "A" + d.s("gotify", 14, ALNUM + ".-_")
    add(
        "gotify-app-token-query",
        t,
        f'curl "https://gotify.acme.dev/message?token={t}" -F "title=Backup" -F "message=ok"',
    )
    t = "md-" + d.s("mandrill", 22, BASE64URL)
    add(
        "mandrill-api-key-json-body",
        t,
        json.dumps(
            {"key": t, "message": {"subject": "Welcome", "to": [{"email": "user@example.com"}]}}
        ),
    )
    t = "api-" + d.s("smtp2go", 32, UPPER_HEX)
    add("smtp2go-api-key-header", t, f'-H "X-Smtp2go-Api-Key: {t}"')
    t = "pk_" + d.s("klaviyo", 34, HEX)
    add(
        "klaviyo-private-api-key-header",
        t,
        f"curl https://a.klaviyo.com/api/profiles/ -H 'Authorization: Klaviyo-API-Key {t}' -H 'revision: 2024-10-15'",
    )
    t = "tfp_" + d.s("typeform", 44, BASE64URL) + "_" + d.s("typeform-b", 14, BASE64URL)
    add("typeform-personal-token", t, f"TYPEFORM_TOKEN={t} node scripts/export-responses.js")
    t = d.s("ghost-id", 24, HEX) + ":" + d.s("ghost-secret", 64, HEX)
    add(
        "ghost-admin-api-key-constructor",
        t,
        f"const api = new GhostAdminAPI({{\n  url: 'https://blog.acme.dev',\n  key: '{t}',\n  version: 'v5.0',\n}});",
    )
    t = "sk" + d.s("sanity", 180, ALNUM)
    add(
        "sanity-client-write-token",
        t,
        f"export const client = createClient({{\n  projectId: '{d.s('sanity-pid', 8, LOWER_ALNUM)}',\n  dataset: 'production',\n  token: '{t}',\n  useCdn: false,\n}})",
    )
    t = d.s("freshdesk", 20, ALNUM)
    add(
        "freshdesk-api-key-basic-user",
        t,
        f"curl -v -u {t}:X -H 'Content-Type: application/json' https://acme.freshdesk.com/api/v2/tickets",
    )
    t = d.s("todoist", 40, HEX)
    add(
        "todoist-api-token-python",
        t,
        f'from todoist_api_python.api import TodoistAPI\napi = TodoistAPI("{t}")',
    )
    t = "ory_pat_" + d.s("ory", 32, ALNUM)
    add(
        "ory-cli-project-api-key-env",
        t,
        f"ORY_PROJECT_API_KEY={t} ory list identities --project acme",
    )
    t = "chpt_" + d.s("chromatic", 15, HEX)
    add(
        "chromatic-project-token-flag",
        t,
        f"npx chromatic --project-token={t} --exit-zero-on-changes",
    )
    t = "web_" + d.s("percy", 64, HEX)
    add("percy-token-env-exec", t, f"PERCY_TOKEN={t} npx percy exec -- cypress run")
    t = d.uuid("saucelabs")
    add(
        "saucelabs-wdio-conf-access-key",
        t,
        f"exports.config = {{\n  user: 'acme-ci',\n  key: '{t}',\n  region: 'eu',\n  services: ['sauce'],\n}}",
    )
    t = d.uuid("railway")
    add("railway-token-env-up", t, f"RAILWAY_TOKEN={t} railway up --service api --detach")
    t = d.s("fastly", 32, BASE64URL)
    add(
        "fastly-api-token-header",
        t,
        f'curl -X POST -H "Fastly-Key: {t}" https://api.fastly.com/service/{d.s("fastly-svc", 22, ALNUM)}/purge_all',
    )
    t = d.uuid("bunny-a") + d.uuid("bunny-b")
    add(
        "bunny-net-accesskey-header",
        t,
        f"curl --request POST --url https://api.bunny.net/pullzone/1234567/purgeCache --header 'AccessKey: {t}'",
    )
    t = "esecret_" + d.s("anyscale", 24, LOWER_ALNUM)
    add(
        "anyscale-endpoints-api-key-base-url",
        t,
        f'client = OpenAI(base_url="https://api.endpoints.anyscale.com/v1", api_key="{t}")',
    )
    t = "csk-" + d.s("cerebras", 48, LOWER_ALNUM)
    add(
        "cerebras-client-api-key",
        t,
        f'from cerebras.cloud.sdk import Cerebras\nclient = Cerebras(api_key="{t}")',
    )
    t = (
        "sk-helicone-"
        + d.s("helicone", 7, LOWER_ALNUM)
        + "-"
        + d.s("helicone-b", 7, LOWER_ALNUM)
        + "-"
        + d.s("helicone-c", 7, LOWER_ALNUM)
        + "-"
        + d.s("helicone-d", 7, LOWER_ALNUM)
    )
    add(
        "helicone-auth-default-header",
        t,
        f'client = OpenAI(\n    base_url="https://oai.helicone.ai/v1",\n    default_headers={{"Helicone-Auth": "Bearer {t}"}},\n)',
    )
    t = "as-" + d.s("modal-secret", 22, ALNUM)
    add(
        "modal-token-set-secret-flag",
        t,
        f"modal token set --token-id ak-{d.s('modal-id', 22, ALNUM)} --token-secret {t} --profile=acme",
    )
    t = "y0_" + d.s("yandex", 54, BASE64URL)
    add(
        "yandex-cloud-yc-config-oauth-token",
        t,
        f"yc config profile create prod\nyc config set token {t}\nyc config set cloud-id b1g{d.s('yc-cloud', 17, LOWER_ALNUM)}",
    )
    t = d.s("huawei-sk", 40, ALNUM)
    add(
        "huaweicloud-sdk-secret-key-env",
        t,
        f"export HUAWEICLOUD_SDK_AK={d.s('huawei-ak', 20, UPPER_ALNUM)}\nexport HUAWEICLOUD_SDK_SK={t}\nhcloud ECS ListServersDetails --cli-region=eu-west-101",
    )
    t = "amzn1.oa2-cs.v1." + d.s("lwa", 64, HEX)
    add(
        "amazon-lwa-client-secret",
        t,
        f"LWA_CLIENT_ID=amzn1.application-oa2-client.{d.s('lwa-id', 32, HEX)}\nLWA_CLIENT_SECRET={t}\n",
    )
    t = "IGQV" + d.s("instagram", 180, BASE64URL)
    add(
        "instagram-graph-access-token-query",
        t,
        f"GET https://graph.instagram.com/me/media?fields=id,caption&access_token={t}",
    )
    t = "lin_wh_" + d.s("linear-wh", 32, ALNUM)
    add("linear-webhook-signing-secret-env", t, f"LINEAR_WEBHOOK_SECRET={t}")
    t = d.s("slack-signing", 32, HEX)
    add(
        "slack-bolt-signing-secret-constructor",
        t,
        f"const app = new App({{\n  token: process.env.SLACK_BOT_TOKEN,\n  signingSecret: '{t}',\n}});",
    )
    t = _b64(
        "-----BEGIN RSA PRIVATE KEY-----\n"
        + d.b64("mux-pem", 180)
        + "\n-----END RSA PRIVATE KEY-----\n"
    )
    add(
        "mux-signing-key-private-key-env",
        t,
        f"MUX_SIGNING_KEY_ID={d.s('mux-kid', 44, ALNUM)}\nMUX_SIGNING_KEY_PRIVATE_KEY={t}\n",
    )
    t = d.uuid("netbird")
    add(
        "netbird-up-setup-key",
        t,
        f"sudo netbird up --management-url https://netbird.acme.dev --setup-key {t}",
    )
    t = d.s("warp-secret", 64, HEX)
    add(
        "cloudflare-warp-mdm-xml-client-secret",
        t,
        f"<dict>\n  <key>organization</key>\n  <string>acme</string>\n  <key>auth_client_id</key>\n  <string>{d.s('warp-id', 32, HEX)}.access</string>\n  <key>auth_client_secret</key>\n  <string>{t}</string>\n</dict>",
    )
    t = d.s("zerotier", 32, ALNUM)
    add(
        "zerotier-central-token-authorization",
        t,
        f'curl -H "Authorization: token {t}" https://api.zerotier.com/api/v1/network',
    )
    t = d.s("gitea-runner", 40, ALNUM)
    add(
        "gitea-act-runner-register-token",
        t,
        f"./act_runner register --no-interactive --instance https://git.acme.dev --token {t} --name runner-01 --labels ubuntu-latest:docker://node:20-bookworm",
    )
    t = d.s("tea", 40, HEX)
    add(
        "gitea-tea-config-yml-token",
        t,
        f"logins:\n- name: acme\n  url: https://git.acme.dev\n  token: {t}\n  default: true\n  user: jdoe\n",
    )
    t = d.s("hut", 120, BASE64URL)
    add(
        "sourcehut-hut-config-oauth-token",
        t,
        f'# ~/.config/hut/config\ninstance "sr.ht" {{\n    access-token "{t}"\n}}',
    )
    t = d.s("quay-robot", 64, UPPER_ALNUM)
    add(
        "quay-robot-token-podman-login-task",
        t,
        f'- name: Log in to quay.io\n  containers.podman.podman_login:\n    registry: quay.io\n    username: "acme+ci_pusher"\n    password: "{t}"\n',
    )
    t = d.s("gemfury", 20, ALNUM)
    add(
        "gemfury-push-url-token", t, f"git remote add fury https://{t}@git.fury.io/acme/widgets.git"
    )
    t = d.s("packagecloud", 48, HEX)
    add(
        "packagecloud-json-token",
        t,
        f'$ cat ~/.packagecloud\n{{"url":"https://packagecloud.io","token":"{t}"}}',
    )
    t = d.uuid("choco")
    add(
        "chocolatey-apikey-command",
        t,
        f"choco apikey --key {t} --source https://push.chocolatey.org/",
    )
    t = d.s("swift-registry", 40, ALNUM)
    add(
        "swift-package-registry-login-token",
        t,
        f"swift package-registry login https://packages.acme.dev --token {t}",
    )
    t = d.s("dart-pub", 64, BASE64URL)
    add(
        "dart-pub-tokens-json",
        t,
        json.dumps(
            {"version": 1, "hosted": [{"url": "https://dart.acme.dev", "token": t}]}, indent=2
        ),
    )
    p = d.password("pause")
    add("cpan-pause-file-password", p, f"# ~/.pause\nuser JDOE\npassword {p}\n")
    t = _github_token(d, "nimble", "ghp_")
    add(
        "nimble-github-api-token-file",
        t,
        f"$ echo '{t}' > ~/.nimble/github_api_token\n$ nimble publish",
    )
    t = d.s("bunfig", 36, ALNUM)
    add(
        "bunfig-toml-scoped-registry-token",
        t,
        f'[install.scopes]\n"@acme" = {{ token = "{t}", url = "https://npm.pkg.acme.dev/" }}\n',
    )
    t = "pypi-AgEIcHlwaS5vcmc" + d.s("uv-publish", 150, BASE64URL)
    add("uv-publish-token-flag", t, f"uv build && uv publish --token {t}")
    p = d.password("uv-index")
    add(
        "uv-index-password-env",
        p,
        f"UV_INDEX_INTERNAL_USERNAME=ci UV_INDEX_INTERNAL_PASSWORD={p} uv sync --frozen",
    )
    p = d.password("pdm")
    add("pdm-config-repository-password", p, f"pdm config repository.internal.password {p}")
    p = d.password("p4")
    add(
        "perforce-p4config-passwd",
        p,
        f"# .p4config\nP4PORT=ssl:perforce.acme.dev:1666\nP4USER=jdoe\nP4PASSWD={p}\nP4CLIENT=jdoe-ws\n",
    )
    p = d.password("nextcloudcmd")
    add(
        "nextcloudcmd-user-password-flags",
        p,
        f"nextcloudcmd --non-interactive -u jdoe -p '{p}' ~/Nextcloud https://cloud.acme.dev",
    )
    p = d.password("mega-login")
    add("megacmd-login-email-password", p, f"mega-login jdoe@acme.dev '{p}'")
    p = d.password("duplicity")
    add(
        "duplicity-passphrase-env",
        p,
        f"PASSPHRASE='{p}' duplicity --full-if-older-than 1M /home/jdoe b2://{d.s('dup-kid', 25, ALNUM)}@acme-backup/jdoe",
    )
    p = d.password("cosign")
    add(
        "cosign-password-env-sign",
        p,
        f"COSIGN_PASSWORD='{p}' cosign sign --key cosign.key ghcr.io/acme/api:1.4.2",
    )
    p = d.password("fastlane-match")
    add(
        "fastlane-match-password-env",
        p,
        f"- name: Match\n  run: bundle exec fastlane match appstore --readonly\n  env:\n    MATCH_PASSWORD: {p}\n    MATCH_GIT_URL: git@github.com:acme/certificates.git\n",
    )
    t = "-".join(d.s(f"apple-asp-{i}", 4, string.ascii_lowercase) for i in range(4))
    add(
        "apple-app-specific-password-altool",
        t,
        f'xcrun altool --upload-app -f build/Acme.ipa -t ios -u dev@acme.dev -p "{t}"',
    )
    t = "  ".join(
        f"{d.s(f'recovery-{i}', 5, HEX)}-{d.s(f'recovery-b-{i}', 5, HEX)}" for i in range(4)
    )
    add(
        "two-factor-recovery-codes-file",
        t,
        f"# github-recovery-codes.txt\n{t}\n\nPut these in a safe spot.\n",
    )
    # --- keys with a documented structure -------------------------------------------------------
    t = "302e020100300506032b657004220420" + d.s("hedera", 64, HEX)
    add(
        "hedera-der-private-key-env",
        t,
        f"OPERATOR_ID=0.0.{d.s('hedera-acct', 7, DIGITS)}\nOPERATOR_KEY={t}\n",
    )
    t = _bech32("secret-extended-key-main", d.raw("zcash", 169))
    add(
        "zcash-sapling-extended-spending-key",
        t,
        f'$ zcash-cli z_exportkey "{_bech32("zs", d.raw("zcash-addr", 43))}"\n{t}\n',
    )
    t = _b64(b"EdBK" + (42).to_bytes(4, "big") + d.raw("signify", 96))
    add(
        "openbsd-signify-secret-key-file",
        t,
        f"$ cat release-2026.sec\nuntrusted comment: signify secret key\n{t}\n",
    )
    t = _b64(d.raw("nebula", 64))
    add(
        "nebula-ca-key-ed25519",
        t,
        f"-----BEGIN NEBULA ED25519 PRIVATE KEY-----\n{t}\n-----END NEBULA ED25519 PRIVATE KEY-----\n",
    )
    t = _b64(b"\x1a\x20" + d.raw("tink", 32))
    key_id = int.from_bytes(d.raw("tink-id", 4), "big") >> 1
    add(
        "tink-cleartext-keyset-json",
        t,
        json.dumps(
            {
                "primaryKeyId": key_id,
                "key": [
                    {
                        "keyData": {
                            "typeUrl": "type.googleapis.com/google.crypto.tink.AesGcmKey",
                            "value": t,
                            "keyMaterialType": "SYMMETRIC",
                        },
                        "status": "ENABLED",
                        "keyId": key_id,
                        "outputPrefixType": "TINK",
                    }
                ],
            },
            indent=2,
        ),
    )
    t = d.s("rails-master", 32, HEX)
    add(
        "rails-master-key-env",
        t,
        f"docker run -e RAILS_MASTER_KEY={t} -e RAILS_ENV=production acme/web:2.3.0",
    )


_PARTS = (
    _languages_and_builds,
    _os_and_file_formats,
    _ways_of_passing,
    _servers_homelab_and_data,
    _prefixed_tokens_and_keys,
)


# Every kind of this batch, written out literally; all of them are held out.
NAMES: frozenset[str] = frozenset(
    {
        "acme-sh-account-conf-saved-key",
        "activemq-jetty-realm-properties",
        "aerc-accounts-conf-source-url",
        "airflow-connections-add-conn-password",
        "amazon-lwa-client-secret",
        "anyscale-endpoints-api-key-base-url",
        "apple-app-specific-password-altool",
        "apt-conf-proxy-credentials",
        "aruba-cx-user-plaintext-password",
        "aws-access-keys-csv-download",
        "bash-ansi-c-quoted-password",
        "bazelrc-remote-header-api-key",
        "bunfig-toml-scoped-registry-token",
        "bunny-net-accesskey-header",
        "ccache-conf-remote-storage-redis-password",
        "capistrano-ssh-options-password",
        "cdk-secretvalue-unsafe-plaintext",
        "cerebras-client-api-key",
        "certbot-dns-cloudflare-credentials-ini",
        "certbot-eab-hmac-key-flag",
        "chocolatey-apikey-command",
        "chpasswd-here-string",
        "chromatic-project-token-flag",
        "clearml-conf-api-credentials",
        "cloud-init-chpasswd-list",
        "cloudflare-warp-mdm-xml-client-secret",
        "code-comment-temporary-password",
        "comet-config-api-key",
        "cosign-password-env-sign",
        "couchdb-local-ini-admins",
        "cpan-pause-file-password",
        "crystal-http-client-basic-auth",
        "csh-setenv-line",
        "csv-export-api-keys-column",
        "curl-proxy-user-flag",
        "cypress-env-json-login-password",
        "dagger-go-setsecret-literal",
        "dart-pub-tokens-json",
        "db2-connect-using",
        "dbt-profiles-yml-private-key-passphrase",
        "ddclient-conf-password",
        "debian-preseed-user-password",
        "deluge-auth-file-line",
        "desktop-entry-exec-env-token",
        "devcontainer-json-container-env",
        "develocity-access-key-env",
        "docker-secret-create-from-stdin",
        "dockerfile-arg-default-token",
        "dotnet-launchsettings-environment-variable",
        "dotnet-user-secrets-set",
        "duckdb-create-secret-s3",
        "duckdns-update-url-token",
        "duplicity-passphrase-env",
        "earthly-secret-flag-value",
        "elm-http-header-bearer",
        "email-thread-quoted-temporary-password",
        "escaped-json-string-body",
        "esphome-api-encryption-key",
        "esphome-ota-password",
        "exim4-passwd-client-line",
        "fastlane-match-password-env",
        "fastly-api-token-header",
        "filebeat-cloud-auth-setting",
        "firebird-isql-password-flag",
        "fish-set-universal-export",
        "fluentd-forward-security-shared-key",
        "flutter-dart-define-flag",
        "freshdesk-api-key-basic-user",
        "fsharp-httpclient-bearer-header",
        "gemfury-push-url-token",
        "ghost-admin-api-key-constructor",
        "git-askpass-script-echo",
        "git-credential-helper-inline-function",
        "gitea-act-runner-register-token",
        "gitea-tea-config-yml-token",
        "github-app-user-refresh-token-response",
        "gitlab-incoming-email-token-address",
        "gitlab-oauth-application-secret",
        "gleam-request-set-header",
        "go-panic-struct-dump-password",
        "go-viper-setdefault-password",
        "gotify-app-token-query",
        "gradle-kts-in-memory-pgp-password",
        "graylog-server-conf-password-secret",
        "hedera-der-private-key-env",
        "helicone-auth-default-header",
        "heredoc-password-stdin-login",
        "hexchat-servlist-conf-password",
        "home-assistant-secrets-yaml",
        "htpasswd-b-batch-flag",
        "huaweicloud-sdk-secret-key-env",
        "ifttt-maker-webhook-key-path",
        "infobip-app-authorization-header",
        "instagram-graph-access-token-query",
        "ioredis-options-password",
        "irssi-config-sasl-password",
        "issue-comment-pasted-config",
        "java-system-setproperty-keystore-password",
        "jest-setup-process-env-assignment",
        "jetty-obf-keystore-password",
        "jmeter-jmx-argument-password",
        "joomla-configuration-php-password",
        "json5-unquoted-key-comment",
        "junos-encrypted-password-9",
        "jupyter-notebook-cell-environ",
        "jupyter-startup-log-token-url",
        "jupyterhub-config-dummy-authenticator-password",
        "justfile-export-variable",
        "k6-script-params-headers",
        "kickstart-rootpw-plaintext",
        "klaviyo-private-api-key-header",
        "knexfile-connection-object",
        "ktor-client-basic-auth-credentials",
        "laravel-config-env-default-password",
        "launchd-plist-environment-variables",
        "ldappasswd-s-new-password",
        "liberty-server-xml-xor-password",
        "libsql-url-authtoken-query",
        "linear-webhook-signing-secret-env",
        "log4j2-xml-smtp-appender-password",
        "loggly-http-input-url-token",
        "macos-security-add-generic-password",
        "magento-env-php-crypt-key",
        "makefile-conditional-assignment-token",
        "mandrill-api-key-json-body",
        "markdown-table-test-accounts",
        "mega-link-fragment-key",
        "megacmd-login-email-password",
        "meilisearch-master-key-flag",
        "mercadopago-access-token-sdk",
        "midtrans-server-key-config",
        "mikrotik-user-add-password",
        "minecraft-server-properties-rcon-password",
        "mise-toml-env-table",
        "mlflow-tracking-password-env",
        "mobileconfig-wifi-payload-password",
        "modal-token-set-secret-flag",
        "mongodb-atlas-cli-private-api-key",
        "mux-signing-key-private-key-env",
        "mysql-federated-table-connection",
        "nebula-ca-key-ed25519",
        "netbird-up-setup-key",
        "netdata-stream-conf-api-key",
        "nextcloudcmd-user-password-flags",
        "nim-httpclient-headers-tavily-key",
        "nimble-github-api-token-file",
        "node-fetch-typeerror-url-credentials",
        "node-red-settings-credential-secret",
        "ntfy-access-token-publish",
        "nushell-env-assignment",
        "nuxt-runtime-config-private-key",
        "objc-nsurlcredential-with-user",
        "ocaml-cohttp-basic-auth-credential",
        "octoprint-config-yaml-api-key",
        "openbsd-signify-secret-key-file",
        "opensearch-initial-admin-password-compose",
        "openwrt-uci-wireless-key",
        "oracle-mkstore-create-credential",
        "ory-cli-project-api-key-env",
        "packagecloud-json-token",
        "packer-hcl-ssh-password",
        "pdm-config-repository-password",
        "percy-token-env-exec",
        "perforce-p4config-passwd",
        "pipedrive-api-token-query",
        "playwright-storage-state-cookie",
        "plex-preferences-xml-online-token",
        "plivo-rest-client-auth-token",
        "postgres-dblink-connection-string",
        "powershell-publish-module-nugetapikey",
        "powershell-set-secret-vault",
        "privatebin-url-fragment-key",
        "properties-unicode-escaped-password",
        "protobuf-text-format-credentials",
        "psexec-u-p-flags",
        "pulsar-client-conf-auth-params-token",
        "pushbullet-access-token-header",
        "pushover-message-form-token",
        "pydantic-settings-secretstr-default",
        "pytest-monkeypatch-setenv-key",
        "python-parenthesized-next-line-password",
        "python-requests-connectionerror-url-key",
        "qdrant-client-api-key-kwarg",
        "quarkus-profile-oidc-credentials-secret",
        "quay-robot-token-podman-login-task",
        "racket-define-api-key",
        "rails-master-key-env",
        "railway-token-env-up",
        "redshift-copy-credentials-clause",
        "remmina-profile-encrypted-password",
        "rsync-password-env",
        "rust-debug-print-config-struct",
        "s-nail-mailrc-smtp-auth-password",
        "sanity-client-write-token",
        "sap-hana-hdbsql-p-flag",
        "saucelabs-wdio-conf-access-key",
        "sbt-build-inline-credentials",
        "sendmail-authinfo-entry",
        "sequelize-constructor-positional",
        "slack-bolt-signing-secret-constructor",
        "slack-export-message-text",
        "smtp2go-api-key-header",
        "sonarr-config-xml-api-key",
        "source-server-cfg-rcon-password",
        "sourcehut-hut-config-oauth-token",
        "spark-conf-set-azure-account-key",
        "spark-defaults-conf-s3a-secret-key",
        "sqlalchemy-url-percent-encoded-password",
        "sqlcipher-pragma-key",
        "square-oauth-application-secret",
        "sudo-s-echo-stdin",
        "swift-package-registry-login-token",
        "systemd-mount-unit-cifs-options",
        "tasmota-console-mqtt-password",
        "tcl-http-geturl-basic-header",
        "teamspeak-first-start-privilege-key-log",
        "telnyx-api-key-v2-env",
        "teradata-bteq-logon",
        "tiltfile-local-resource-env",
        "tink-cleartext-keyset-json",
        "todoist-api-token-python",
        "tomcat-context-xml-resource-password",
        "tox-ini-setenv-password",
        "turbo-config-json-token",
        "twitch-irc-oauth-pass",
        "two-factor-recovery-codes-file",
        "typeform-personal-token",
        "typeorm-ormconfig-json",
        "uv-index-password-env",
        "uv-publish-token-flag",
        "vagrantfile-smb-password",
        "vault-kv-put-field-value",
        "vcr-cassette-recorded-authorization",
        "weaviate-auth-api-key-constructor",
        "wifi-qr-code-payload",
        "windows-net-user-add",
        "windows-reg-putty-proxy-password",
        "windows-udl-file-password",
        "windows-unattend-xml-plaintext-password",
        "wiremock-mapping-header-equalto",
        "xendit-secret-key-basic-user",
        "yaml-anchor-merged-password",
        "yaml-folded-block-scalar-token",
        "yandex-cloud-yc-config-oauth-token",
        "zabbix-agent-psk-file",
        "zcash-sapling-extended-spending-key",
        "zeromq-curve-secret-key-z85",
        "zerotier-central-token-authorization",
        "zig-std-http-authorization-header",
    }
)


# Kinds a piece of whose secret still survives ``redact`` in some seed after the fixes that
# followed the first look, and why (the redaction tests and the every-door scan skip them).
STILL_STORED: frozenset[str] = frozenset()


def build_fifth_batch(seed: int) -> list[UnlistedSample]:
    """Every sample of this batch, drawn from *seed* (same seed, same corpus)."""
    return draw_batch(_Batch5Draw(seed), _PARTS, frozenset(), NAMES)


def older_names() -> set[str]:
    """The kind names of the four earlier corpora, which this batch must not repeat."""
    from tests.support.fourth_batch_secrets import build_fourth_batch

    return names_before_fourth() | {s.name for s in build_fourth_batch(0)}
