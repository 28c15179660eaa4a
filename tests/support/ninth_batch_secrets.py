# ruff: noqa: E501  (realistic config and shell lines are long; they are data here)
"""A ninth batch of credential kinds, written without reading the redactor's rules.

How it was written: the author read the corpus format in :mod:`tests.support.unlisted_secrets`
(``UnlistedSample``, ``_Draw``, the alphabets, ``draw_batch``, ``split_a_third``, the shape
checks), the code layout and the kind *names* of the eighth batch and, through its
``older_names()``, the names of every earlier batch (to repeat none), the signatures and bodies
of the helpers imported below, and the corpus-shape tests at the top of
``tests/brain/test_redact_eighth_batch.py``. Nothing under ``server/`` or ``bench/``, no
README/ARCHITECTURE/CHANGELOG/docs, no git history; the redactor was never imported or run and
``stored_kinds`` was never called. In passing the author saw the whole docstring of
``unlisted_secrets.py`` (earlier stored counts and a one-line list of the areas later rules
covered), the start of the eighth module's second docstring paragraph, and one grep line of
the sixth batch's data; no redactor output was seen. Fourteen names first drafted here turned
out to be earlier kinds' names and were dropped rather than renamed.

Coverage (212 kinds), written as an outside reviewer auditing a typical product team would
find credentials, in roughly these proportions: config files of apps and tools 51 (24 %:
pgbouncer, Grafana/Prometheus/Alloy/OTel/Fluent Bit/Logstash/Kibana, nginx/HAProxy/Traefik/
Caddy, Kafka JAAS, Mosquitto, RabbitMQ, Metabase, n8n, GitLab Runner, Jenkins CasC, Sonar,
VPN and mail relays, Nextcloud/Laravel/Magento PHP arrays, pip/poetry/npm/Gradle/Helm/gh/JFrog/
mc CLI configs, DBeaver/DataGrip/Insomnia/Postman exports); code that builds clients 47 (22 %:
Go, Java, Kotlin, Swift, C#, PHP, Ruby, Rust, TypeScript/JavaScript, Python, R, Lua, Perl,
PowerShell, HOCON, a notebook cell, SQL); terminal commands and tool output 32 (15 %); ``.env``
and shell 24 (11 %: export prefixes, CRLF, single quotes, multi-line PEM, interpolation,
YAML-style mistakes, Makefile/justfile/mise, fish, PowerShell, cmd, heredocs); chats, issues,
PRs, notes and password managers 18 (8 %); CI/CD and deployment 17 (8 %: Kubernetes ``data:``
base64 and ``stringData``, a base64 ``.dockerconfigjson``, Helm ``--set``, Actions, GitLab CI,
Jenkinsfile, Argo, Nomad templates, Ansible host vars, fly.toml); connection strings 12 (6 %);
logs, traces and HTTP dumps 11 (5 %: JSON logs, HAR, git curl trace, OTel spans, raw HTTP,
CI logs, mitmproxy). Values are quoted, unquoted, backticked, percent-encoded, base64-wrapped,
JSON/YAML/TOML/XML/HCL-escaped, in tables, prose, prompts, URLs and templating defaults.
Every value is FAKE, drawn from the seed with the provider's prefix, length and alphabet
where known; passwords come from the human-like draw of the eighth batch.

The split: :data:`SPLIT_SEED` shuffles the sorted names and holds out a third, exactly as the
eighth batch does.

First look, by the lead (``python -m bench.redaction --arm ninth``, 20 seeds, a kind "stored" when
an 8-character piece of its secret survives ``redact`` in any run), once per part, after the
split was committed (``3db5d28``). On the redactor after this stop's fixes for the eighth batch
(``d3562f2``): **4 of 142 tune and 3 of 70 held-out kinds stored** (7 of 212, 3 %; the
held-out part counted, not named). The redactor as the stop found it (``db00f85``) stores 8 and
5 (13 of 212, 6 %). The last line alone (every named rule off, caught in every seed of 0-4)
caught 114 of 142 tune and 60 of 70 held-out kinds (82 %). A helper then changed rules looking at
the four tune misses only (a comment naming a ``.auth`` file, ``"user" "secret"`` rows beside a
password hash, ``-a`` after a named auth scheme, the fields a revealing command was asked for),
until tune stored 0 of 142. The held-out part, looked at once after that (``aa27c7d``'s parent
``68ecdc8``): **2 of 70 stored (3 %)** -- the held-out result (3 -> 2). Both then fixed by family
(a setup note's "set NAME to X", a revealed secret printed before the next prompt): 0 of 212.
"""

from __future__ import annotations

import base64
import json
import random
import string
from typing import Final
from urllib.parse import quote

from tests.support.eighth_batch_secrets import NAMES as EIGHTH_NAMES
from tests.support.eighth_batch_secrets import (
    _aws_session_token,
    _Batch8Draw,
    _google_refresh,
    _sendgrid,
    _vault_token,
)
from tests.support.eighth_batch_secrets import older_names as names_before_eighth
from tests.support.fourth_batch_secrets import _github_token
from tests.support.seventh_batch_secrets import (
    _anthropic_key,
    _aws_key_id,
    _aws_secret,
    _jwt,
    _openai_key,
    _slack_token,
    _stripe_key,
)
from tests.support.sixth_batch_secrets import DIGITS, LOWER, _b64
from tests.support.unlisted_secrets import (
    ALNUM,
    BASE64,
    BASE64URL,
    HEX,
    LOWER_ALNUM,
    UPPER_ALNUM,
    Add,
    UnlistedSample,
    _Draw,
    draw_batch,
    split_a_third,
)

UPPER_HEX = HEX.upper()


class _Batch9Draw(_Batch8Draw):
    """The same draws as the earlier corpora, from a stream of their own."""

    def rng(self, label: str) -> random.Random:
        return _Draw.rng(self, f"batch9/{label}")


def _gitlab_pat(d: _Batch9Draw, label: str) -> str:
    return "glpat-" + d.s(label, 20, BASE64URL)


def _npm_token(d: _Batch9Draw, label: str) -> str:
    return "npm_" + d.s(label, 36, ALNUM)


def _google_api_key(d: _Batch9Draw, label: str) -> str:
    return "AIza" + d.s(label, 35, BASE64URL)


def _hf_token(d: _Batch9Draw, label: str) -> str:
    return "hf_" + d.s(label, 34, string.ascii_letters)


def _k8s_b64(value: str) -> str:
    return base64.b64encode(value.encode()).decode()


def _app_configs(d: _Batch9Draw, add: Add) -> None:
    """Config files of apps and tools a product team keeps in its repositories."""
    p = d.human("pgbouncer-userlist")
    add(
        "pgbouncer-userlist-txt-plain-password",
        p,
        f'"app_rw" "{p}"\n"app_ro" "SCRAM-SHA-256$4096:c2FsdA==$c3RvcmVk:c2VydmVy"\n',
    )
    p = d.human("pgbouncer-ini")
    add(
        "pgbouncer-ini-databases-line-password",
        p,
        f"[databases]\norders = host=10.1.4.20 port=5432 dbname=orders user=orders_app password={p} pool_size=40\n\n[pgbouncer]\nlisten_port = 6432\n",
    )
    p = d.human("pgadmin-servers")
    add(
        "pgadmin-servers-json-passfile-inline-password",
        p,
        json.dumps(
            {
                "Servers": {
                    "1": {
                        "Name": "staging",
                        "Host": "db.staging.internal",
                        "Port": 5432,
                        "Username": "postgres",
                        "Password": p,
                        "SSLMode": "prefer",
                    }
                }
            },
            indent=2,
        ),
    )
    t = d.s("grafana-ini-secret", 32, ALNUM)
    add(
        "grafana-ini-security-secret-key",
        t,
        f"[security]\nadmin_user = admin\n;admin_password = admin\nsecret_key = {t}\ncookie_secure = true\n",
    )
    p = d.human("grafana-ds-prov")
    add(
        "grafana-datasource-provisioning-securejsondata-password",
        p,
        f"apiVersion: 1\ndatasources:\n  - name: Warehouse\n    type: postgres\n    url: pg.internal:5432\n    user: grafana_ro\n    jsonData:\n      database: metrics\n      sslmode: require\n    secureJsonData:\n      password: '{p}'\n",
    )
    p = d.human("prometheus-basic")
    add(
        "prometheus-scrape-config-basic-auth-password",
        p,
        f"scrape_configs:\n  - job_name: node-prod\n    scheme: https\n    basic_auth:\n      username: prom\n      password: {p}\n    static_configs:\n      - targets: ['node1.prod:9100']\n",
    )
    t = d.s("loki-promtail", 40, ALNUM)
    add(
        "promtail-clients-url-userinfo-grafana-cloud",
        t,
        f"clients:\n  - url: https://812345:{t}@logs-prod-012.grafana.net/loki/api/v1/push\n",
    )
    t = "glc_" + _b64(
        json.dumps(
            {
                "o": str(d.rng("glc-o").randrange(100000, 999999)),
                "n": "stack-alloy",
                "k": d.s("glc-k", 24, ALNUM),
                "m": {"r": "prod-eu-west-2"},
            },
            separators=(",", ":"),
        )
    )
    add(
        "grafana-alloy-config-river-basic-auth-password",
        t,
        f'prometheus.remote_write "cloud" {{\n  endpoint {{\n    url = "https://prometheus-prod-24-prod-eu-west-2.grafana.net/api/prom/push"\n    basic_auth {{\n      username = "1234567"\n      password = "{t}"\n    }}\n  }}\n}}\n',
    )
    t = d.s("otel-honeycomb", 22, ALNUM)
    add(
        "otel-collector-exporter-headers-honeycomb-team",
        t,
        f'exporters:\n  otlp/honeycomb:\n    endpoint: "api.honeycomb.io:443"\n    headers:\n      "x-honeycomb-team": "{t}"\n',
    )
    t = d.s("fluentbit-dd", 32, HEX)
    add(
        "fluent-bit-conf-datadog-output-apikey",
        t,
        f"[OUTPUT]\n    Name        datadog\n    Match       *\n    Host        http-intake.logs.datadoghq.eu\n    TLS         on\n    apikey      {t}\n    dd_service  checkout\n",
    )
    p = d.human("logstash-es")
    add(
        "logstash-pipeline-conf-elasticsearch-output-password",
        p,
        f'output {{\n  elasticsearch {{\n    hosts => ["https://es01:9200"]\n    user => "logstash_writer"\n    password => "{p}"\n    index => "app-%{{+YYYY.MM.dd}}"\n  }}\n}}\n',
    )
    p = d.human("kibana-yml")
    add(
        "kibana-yml-elasticsearch-password-quoted",
        p,
        f'server.host: "0.0.0.0"\nelasticsearch.hosts: ["https://es01:9200"]\nelasticsearch.username: "kibana_system"\nelasticsearch.password: "{p}"\n',
    )
    t = d.s("nginx-map-key", 40, ALNUM)
    add(
        "nginx-map-block-allowed-api-keys",
        t,
        f'map $http_x_api_key $api_client {{\n    default         "";\n    "{t}"  "mobile-app";\n}}\n',
    )
    p = d.human("haproxy-userlist")
    add(
        "haproxy-cfg-userlist-insecure-password",
        p,
        f"userlist stats_users\n    user admin insecure-password {p}\n\nlisten stats\n    bind *:8404\n    stats enable\n    stats auth admin:{p}\n",
    )
    p = d.human("traefik-yml-dash")
    t = (
        "admin:$apr1$"
        + d.s("traefik-salt", 8, ALNUM + "./")
        + "$"
        + d.s("traefik-hash", 22, ALNUM + "./")
    )
    add(
        "traefik-dynamic-yml-basicauth-users-list",
        t,
        f'http:\n  middlewares:\n    dashboard-auth:\n      basicAuth:\n        users:\n          - "{t}"\n',
    )
    t = d.s("caddy-cf", 40, BASE64URL)
    add(
        "caddy-json-dns-challenge-cloudflare-api-token",
        t,
        json.dumps(
            {
                "apps": {
                    "tls": {
                        "automation": {
                            "policies": [
                                {
                                    "issuers": [
                                        {
                                            "module": "acme",
                                            "challenges": {
                                                "dns": {
                                                    "provider": {
                                                        "name": "cloudflare",
                                                        "api_token": t,
                                                    }
                                                }
                                            },
                                        }
                                    ]
                                }
                            ]
                        }
                    }
                }
            },
            indent=2,
        ),
    )
    p = d.human("mosquitto-bridge")
    add(
        "mosquitto-conf-bridge-remote-password",
        p,
        f"connection cloud-bridge\naddress mqtt.example-iot.com:8883\nremote_username edge-gw-04\nremote_password {p}\ntopic sensors/# out 1\n",
    )
    p = d.human("rabbitmq-conf")
    add(
        "rabbitmq-conf-default-pass-sysctl-style",
        p,
        f"listeners.tcp.default = 5672\ndefault_user = orders\ndefault_pass = {p}\nloopback_users.guest = false\n",
    )
    p = d.human("kafka-jaas")
    add(
        "kafka-client-properties-sasl-jaas-config-scram",
        p,
        f'security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \\\n    username="orders-producer" \\\n    password="{p}";\n',
    )
    t = d.s("confluent-secret", 64, ALNUM + "+/")
    add(
        "confluent-cloud-client-properties-plain-jaas",
        t,
        f"bootstrap.servers=pkc-12576z.us-west2.gcp.confluent.cloud:9092\nsasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username='{d.s('confluent-key', 16, UPPER_ALNUM)}' password='{t}';\n",
    )
    p = d.human("mongod-conf")
    add(
        "mongosh-mongoshrc-js-connect-password",
        quote(p, safe=""),
        f"// ~/.mongoshrc.js\nconst db2 = connect('mongodb://admin:{quote(p, safe='')}@localhost:27017/admin');\n",
    )
    p = d.human("pgadmin-env-yaml")
    add(
        "pgadmin4-config-local-py-default-password",
        p,
        f"# config_local.py\nSERVER_MODE = True\nDEFAULT_SERVER = '0.0.0.0'\nSETUP_EMAIL = 'ops@acme.example'\nSETUP_PASSWORD = '{p}'\n",
    )
    t = d.s("metabase-key", 32, ALNUM)
    add(
        "metabase-encryption-secret-key-systemd-unit",
        t,
        f"[Service]\nUser=metabase\nEnvironment=MB_DB_TYPE=postgres\nEnvironment=MB_ENCRYPTION_SECRET_KEY={t}\nExecStart=/usr/bin/java -jar /opt/metabase/metabase.jar\n",
    )
    t = d.s("n8n-key", 32, ALNUM)
    add(
        "n8n-config-json-encryption-key",
        t,
        json.dumps({"encryptionKey": t}, indent="\t"),
    )
    p = d.human("gitea-app-ini")
    t = d.s("gitlab-rb-runner", 20, BASE64URL)
    t = "glrt-" + d.s("runner-config", 20, BASE64URL)
    add(
        "gitlab-runner-config-toml-runner-token",
        t,
        f'concurrent = 4\n\n[[runners]]\n  name = "build-01"\n  url = "https://gitlab.com/"\n  token = "{t}"\n  executor = "docker"\n  [runners.docker]\n    image = "alpine:3.20"\n',
    )
    p = d.human("jenkins-casc")
    add(
        "jenkins-casc-yaml-local-security-realm-users",
        p,
        f'jenkins:\n  securityRealm:\n    local:\n      allowsSignup: false\n      users:\n        - id: "admin"\n          password: "{p}"\n',
    )
    t = d.s("sonar-properties", 40, HEX)
    add(
        "sonar-project-properties-sonar-login",
        "squ_" + t,
        f"sonar.projectKey=acme_checkout\nsonar.sources=src\nsonar.host.url=https://sonarcloud.io\nsonar.login=squ_{t}\n",
    )
    t = d.s("sentry-client-keys", 32, HEX)
    add(
        "sentry-dsn-with-legacy-secret-key-settings-py",
        t,
        f'SENTRY_DSN = "https://{d.s("sentry-pub", 32, HEX)}:{t}@o412345.ingest.sentry.io/5512345"\n',
    )
    p = d.s("keepalived", 8, ALNUM)
    add(
        "keepalived-conf-vrrp-auth-pass",
        p,
        "vrrp_instance VI_1 {\n    state MASTER\n    interface eth0\n    virtual_router_id 51\n    authentication {\n        auth_type PASS\n        auth_pass "
        + p
        + "\n    }\n}\n",
    )
    p = d.human("openvpn-auth")
    add(
        "openvpn-auth-user-pass-file-two-lines",
        p,
        f"# /etc/openvpn/client/office.auth  (auth-user-pass office.auth)\njdoe@acme.example\n{p}\n",
    )
    t = d.s("ovpn-static", 32, HEX) + d.s("ovpn-static-b", 32, HEX)
    add(
        "openvpn-ovpn-inline-tls-crypt-static-key",
        t,
        f"client\nremote vpn.acme.example 1194\n<tls-crypt>\n-----BEGIN OpenVPN Static key V1-----\n{t}\n{d.s('ovpn-l2', 32, HEX)}\n-----END OpenVPN Static key V1-----\n</tls-crypt>\n",
    )
    p = d.human("postfix-sasl")
    add(
        "postfix-sasl-passwd-relayhost-line",
        p,
        f"# /etc/postfix/sasl_passwd  (postmap after editing)\n[smtp.sendgrid.net]:587 apikey:{p}\n",
    )
    t = _sendgrid(d, "msmtprc-sg")
    add(
        "msmtprc-password-sendgrid-key",
        t,
        f"account default\nhost smtp.sendgrid.net\nport 587\nauth on\nuser apikey\npassword {t}\nfrom noreply@acme.example\n",
    )
    p = d.human("sentry-onprem-config")
    add(
        "nextcloud-config-php-dbpassword-array",
        p,
        f"<?php\n$CONFIG = array (\n  'dbtype' => 'pgsql',\n  'dbhost' => 'localhost',\n  'dbuser' => 'nextcloud',\n  'dbpassword' => '{p}',\n  'installed' => true,\n);\n",
    )
    t = d.s("laravel-config-mail", 36, ALNUM)
    add(
        "laravel-config-services-php-mailgun-secret-env-default",
        t,
        f"'mailgun' => [\n    'domain' => env('MAILGUN_DOMAIN'),\n    'secret' => env('MAILGUN_SECRET', 'key-{t}'),\n],\n",
    )
    t = "base64:" + _b64(d.raw("laravel-app-key", 32))
    add(
        "laravel-config-app-php-key-fallback-literal",
        t,
        f"'key' => env('APP_KEY', '{t}'),\n'cipher' => 'AES-256-CBC',\n",
    )
    p = d.human("magento-env-php")
    add(
        "magento-app-etc-env-php-db-connection-password",
        p,
        f"'db' => [\n    'connection' => [\n        'default' => [\n            'host' => 'mysql',\n            'dbname' => 'magento',\n            'username' => 'magento',\n            'password' => '{p}',\n            'active' => '1',\n        ],\n    ],\n],\n",
    )
    t = (
        d.s("ghost-mail", 32, HEX)
        + "-"
        + d.s("ghost-mail-b", 8, HEX)
        + "-"
        + d.s("ghost-mail-c", 8, HEX)
    )
    t = d.s("minio-root", 40, ALNUM)
    add(
        "minio-config-env-root-password-quoted",
        t,
        f'# /etc/default/minio\nMINIO_VOLUMES="/mnt/data"\nMINIO_ROOT_USER="minioadmin"\nMINIO_ROOT_PASSWORD="{t}"\n',
    )
    p = d.s("harbor-robot-secret", 32, ALNUM)
    t = _github_token(d, "renovate-config-js", "ghp_")
    add(
        "renovate-config-js-module-exports-token",
        t,
        f"module.exports = {{\n  platform: 'github',\n  token: '{t}',\n  repositories: ['acme/web', 'acme/api'],\n  onboarding: false,\n}};\n",
    )
    t = _npm_token(d, "releaserc")
    add(
        "npmrc-env-fallback-literal-in-ci-checked-in",
        t,
        "registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=${NPM_TOKEN:-"
        + t
        + "}\nalways-auth=true\n",
    )
    t = "pypi-AgEIcHlwaS5vcmc" + d.s("pip-conf", 140, BASE64URL)
    add(
        "pip-conf-extra-index-url-token-userinfo",
        t,
        f"[global]\ntimeout = 60\nextra-index-url = https://__token__:{t}@upload.pypi.acme.example/simple/\n",
    )
    t = _gitlab_pat(d, "poetry-auth-toml")
    add(
        "poetry-auth-toml-http-basic-gitlab-token",
        t,
        f'[http-basic.gitlab]\nusername = "__token__"\npassword = "{t}"\n',
    )
    t = d.s("gradle-init", 64, ALNUM)
    add(
        "gradle-init-gradle-kts-maven-credentials-literal",
        t,
        f'// ~/.gradle/init.d/repos.init.gradle.kts\nallprojects {{\n    repositories {{\n        maven {{\n            url = uri("https://acme.jfrog.io/artifactory/libs-release")\n            credentials {{\n                username = "ci-reader"\n                password = "cmVmdGtuOjAxOj{t}"\n            }}\n        }}\n    }}\n}}\n',
    )
    p = d.human("helm-repos")
    add(
        "helm-repositories-yaml-password-entry",
        p,
        f"apiVersion: ''\ngenerated: '0001-01-01T00:00:00Z'\nrepositories:\n- caFile: ''\n  name: acme-charts\n  password: {p}\n  url: https://charts.acme.example\n  username: ci\n",
    )
    t = _github_token(d, "gh-hosts", "gho_")
    add(
        "gh-cli-hosts-yml-oauth-token",
        t,
        f"github.com:\n    users:\n        jdoe:\n            oauth_token: {t}\n    git_protocol: ssh\n    oauth_token: {t}\n    user: jdoe\n",
    )
    t = "AKCp8" + d.s("jfrog-cli", 68, ALNUM)
    add(
        "jfrog-cli-jfrog-cli-conf-v6-json-password",
        t,
        json.dumps(
            {
                "servers": [
                    {
                        "url": "https://acme.jfrog.io/",
                        "artifactoryUrl": "https://acme.jfrog.io/artifactory/",
                        "user": "ci",
                        "password": t,
                        "serverId": "acme",
                        "isDefault": True,
                    }
                ],
                "version": "6",
            },
            indent=2,
        ),
    )
    t = d.s("mc-config", 40, ALNUM)
    add(
        "minio-mc-config-json-alias-secret-key",
        t,
        json.dumps(
            {
                "version": "10",
                "aliases": {
                    "prod": {
                        "url": "https://s3.acme.example",
                        "accessKey": d.s("mc-ak", 20, UPPER_ALNUM),
                        "secretKey": t,
                        "api": "s3v4",
                        "path": "auto",
                    }
                },
            },
            indent="\t",
        ),
    )
    p = d.human("dbeaver-creds")
    add(
        "dbeaver-data-sources-json-auth-model-password",
        p,
        json.dumps(
            {
                "connections": {
                    "postgres-jdbc-18f0a": {
                        "provider": "postgresql",
                        "driver": "postgres-jdbc",
                        "name": "prod-replica",
                        "save-password": True,
                        "configuration": {
                            "host": "replica.prod",
                            "port": "5432",
                            "database": "orders",
                            "user": "analyst",
                            "password": p,
                            "auth-model": "native",
                        },
                    }
                }
            },
            indent="\t",
        ),
    )
    p = d.human("datagrip-xml")
    add(
        "jetbrains-datasources-local-xml-property-password",
        p,
        f'<component name="dataSourceStorageLocal">\n  <data-source name="orders@localhost" uuid="{d.uuid("dg-uuid")}">\n    <secret-storage>master_key</secret-storage>\n    <user-name>orders</user-name>\n    <property name="password" value="{p}" />\n  </data-source>\n</component>',
    )
    t = d.s("insomnia-env", 40, HEX)
    add(
        "insomnia-export-yaml-environment-api-key",
        t,
        f"_type: export\n__export_format: 4\nresources:\n  - _id: env_base\n    _type: environment\n    name: Base Environment\n    data:\n      base_url: https://api.acme.example\n      api_key: {t}\n",
    )
    t = "PMAK-" + d.s("postman-env", 24, HEX) + "-" + d.s("postman-env-b", 34, HEX)
    add(
        "postman-environment-json-values-array-secret-type",
        t,
        json.dumps(
            {
                "name": "prod",
                "values": [
                    {"key": "baseUrl", "value": "https://api.getpostman.com", "enabled": True},
                    {"key": "postmanApiKey", "value": t, "type": "secret", "enabled": True},
                ],
            },
            indent="\t",
        ),
    )


def _client_code(d: _Batch9Draw, add: Add) -> None:
    """Code that builds clients, in the languages product teams write."""
    t = _openai_key(d, "go-openai")
    add(
        "go-openai-newclient-literal",
        t,
        f'package main\n\nimport openai "github.com/sashabaranov/go-openai"\n\nfunc newClient() *openai.Client {{\n\treturn openai.NewClient("{t}")\n}}\n',
    )
    t = _stripe_key(d, "go-stripe", "sk_live_")
    t = _aws_secret(d, "go-aws-static")
    add(
        "go-aws-sdk-v2-static-credentials-provider",
        t,
        f'cfg, err := config.LoadDefaultConfig(ctx,\n\tconfig.WithRegion("eu-central-1"),\n\tconfig.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("{_aws_key_id(d, "go-aws-id")}", "{t}", "")),\n)\n',
    )
    p = d.human("go-redis-opts")
    add(
        "go-redis-options-struct-password-field",
        p,
        f'rdb := redis.NewClient(&redis.Options{{\n\tAddr:     "cache.internal:6379",\n\tPassword: "{p}",\n\tDB:       0,\n}})\n',
    )
    p = d.human("go-mysql-config")
    add(
        "go-mysql-driver-config-struct-passwd",
        p,
        f'cfg := mysql.Config{{\n\tUser:   "orders",\n\tPasswd: "{p}",\n\tNet:    "tcp",\n\tAddr:   "127.0.0.1:3306",\n\tDBName: "orders",\n}}\n',
    )
    t = _slack_token(d, "go-slack")
    add(
        "go-slack-go-new-literal",
        t,
        f'api := slack.New("{t}", slack.OptionDebug(false))\n',
    )
    t = _github_token(d, "go-oauth2-static", "ghp_")
    add(
        "go-oauth2-static-token-source-access-token",
        t,
        f'ts := oauth2.StaticTokenSource(&oauth2.Token{{AccessToken: "{t}"}})\nclient := github.NewClient(oauth2.NewClient(ctx, ts))\n',
    )
    t = _anthropic_key(d, "java-anthropic")
    add(
        "java-anthropic-okhttp-client-builder-api-key",
        t,
        f'AnthropicClient client = AnthropicOkHttpClient.builder()\n        .apiKey("{t}")\n        .build();\n',
    )
    t = _aws_secret(d, "java-basic-aws")
    add(
        "java-aws-basic-credentials-create",
        t,
        f'AwsBasicCredentials creds = AwsBasicCredentials.create(\n        "{_aws_key_id(d, "java-aws-id")}",\n        "{t}");\nS3Client s3 = S3Client.builder().credentialsProvider(StaticCredentialsProvider.create(creds)).build();\n',
    )
    p = d.human("java-hikari")
    add(
        "java-hikariconfig-setpassword",
        p,
        f'HikariConfig config = new HikariConfig();\nconfig.setJdbcUrl("jdbc:postgresql://db:5432/orders");\nconfig.setUsername("orders");\nconfig.setPassword("{p}");\n',
    )
    p = d.human("java-mail")
    add(
        "java-mail-passwordauthentication-anonymous-authenticator",
        p,
        f'Session session = Session.getInstance(props, new Authenticator() {{\n    @Override\n    protected PasswordAuthentication getPasswordAuthentication() {{\n        return new PasswordAuthentication("alerts@acme.example", "{p}");\n    }}\n}});\n',
    )
    t = d.s("kotlin-bc", 32, ALNUM)
    t = "sk-" + d.s("kotlin-deepseek", 32, HEX)
    add(
        "kotlin-buildconfigfield-string-escaped-quotes",
        t,
        f'android {{\n    defaultConfig {{\n        buildConfigField("String", "DEEPSEEK_KEY", "\\"{t}\\"")\n    }}\n}}\n',
    )
    t = _google_api_key(d, "kotlin-gemini")
    add(
        "kotlin-generativemodel-api-key-named-arg",
        t,
        f'val model = GenerativeModel(\n    modelName = "gemini-1.5-flash",\n    apiKey = "{t}"\n)\n',
    )
    t = "sk_" + d.s("swift-revenuecat", 32, ALNUM)
    t = "appl_" + d.s("swift-rc-public", 27, ALNUM)
    p = d.human("swift-urlcredential")
    add(
        "swift-urlcredential-user-password-persistence",
        p,
        f'let credential = URLCredential(user: "api-client", password: "{p}", persistence: .forSession)\ncompletionHandler(.useCredential, credential)\n',
    )
    t = d.s("csharp-cosmos", 86, BASE64) + "=="
    add(
        "csharp-cosmosclient-constructor-account-key",
        t,
        f'var client = new CosmosClient(\n    "https://acme-prod.documents.azure.com:443/",\n    "{t}");\n',
    )
    t = _sendgrid(d, "csharp-httpclient-bearer")
    add(
        "csharp-authenticationheadervalue-bearer-literal",
        t,
        f'http.DefaultRequestHeaders.Authorization =\n    new AuthenticationHeaderValue("Bearer", "{t}");\n',
    )
    p = d.human("csharp-npgsql-builder")
    add(
        "csharp-npgsqlconnectionstringbuilder-password-property",
        p,
        f'var csb = new NpgsqlConnectionStringBuilder\n{{\n    Host = "db.internal",\n    Database = "orders",\n    Username = "orders",\n    Password = @"{p}",\n}};\n',
    )
    t = _openai_key(d, "php-openai")
    add(
        "php-openai-client-factory-withapikey",
        t,
        f"$client = OpenAI::factory()\n    ->withApiKey('{t}')\n    ->withOrganization('org-acme')\n    ->make();\n",
    )
    t = _stripe_key(d, "php-stripe-client", "sk_live_")
    add(
        "php-new-stripeclient-literal",
        t,
        f"$stripe = new \\Stripe\\StripeClient('{t}');\n$stripe->customers->all(['limit' => 3]);\n",
    )
    p = d.human("php-mysqli")
    p = d.human("php-define-wp")
    add(
        "php-phpmailer-password-property",
        p,
        f"$mail = new PHPMailer(true);\n$mail->isSMTP();\n$mail->Host = 'smtp.office365.com';\n$mail->SMTPAuth = true;\n$mail->Username = 'noreply@acme.example';\n$mail->Password = '{p}';\n",
    )
    t = _aws_secret(d, "ruby-aws-s3-resource")
    add(
        "ruby-aws-config-update-hash-credentials",
        t,
        f"Aws.config.update(\n  region: 'us-east-1',\n  credentials: Aws::Credentials.new('{_aws_key_id(d, 'ruby-aws-id')}', '{t}')\n)\n",
    )
    t = _slack_token(d, "ruby-slack")
    add(
        "ruby-slack-ruby-client-configure-block",
        t,
        f"Slack.configure do |config|\n  config.token = '{t}'\nend\n",
    )
    p = d.human("ruby-pg-connect")
    add(
        "ruby-pg-connect-hash-password",
        p,
        f"conn = PG.connect(host: 'db.internal', dbname: 'orders', user: 'orders', password: '{p}')\n",
    )
    t = _anthropic_key(d, "rust-anthropic-header")
    add(
        "rust-headermap-insert-x-api-key-from-static",
        t,
        f'let mut headers = HeaderMap::new();\nheaders.insert("x-api-key", HeaderValue::from_static("{t}"));\nheaders.insert("anthropic-version", HeaderValue::from_static("2023-06-01"));\n',
    )
    p = d.human("rust-sqlx")
    add(
        "rust-sqlx-pgconnectoptions-password-builder",
        p,
        f'let opts = PgConnectOptions::new()\n    .host("db.internal")\n    .username("orders")\n    .password("{p}")\n    .database("orders");\n',
    )
    t = _openai_key(d, "ts-langchain")
    add(
        "ts-langchain-chatopenai-apikey-option",
        t,
        f'const llm = new ChatOpenAI({{\n  model: "gpt-4o-mini",\n  apiKey: "{t}",\n  temperature: 0,\n}});\n',
    )
    t = _jwt(
        d,
        "ts-supabase-service",
        {
            "iss": "supabase",
            "ref": d.s("sb-ref", 20, LOWER),
            "role": "service_role",
            "iat": 1714000000,
            "exp": 2029576000,
        },
    )
    add(
        "ts-supabase-createclient-service-role-second-arg-multiline",
        t,
        f"export const admin = createClient(\n  'https://{d.s('sb-ref2', 20, LOWER)}.supabase.co',\n  '{t}',\n  {{ auth: {{ persistSession: false }} }},\n);\n",
    )
    t = d.s("ts-pg-pool", 12, ALNUM)
    p = d.human("ts-pg-pool")
    add(
        "ts-node-postgres-pool-config-password",
        p,
        f"const pool = new Pool({{\n  host: 'db.internal',\n  user: 'orders',\n  password: '{p}',\n  database: 'orders',\n  max: 20,\n}});\n",
    )
    t = "re_" + d.s("ts-resend", 8, ALNUM) + "_" + d.s("ts-resend-b", 24, ALNUM)
    add(
        "ts-nodemailer-createtransport-resend-smtp-pass",
        t,
        f"const transporter = nodemailer.createTransport({{\n  host: 'smtp.resend.com',\n  port: 465,\n  secure: true,\n  auth: {{ user: 'resend', pass: '{t}' }},\n}});\n",
    )
    t = d.s("ts-firebase-admin", 64, BASE64)
    key = "\\n".join([d.s("fb-pk-" + str(i), 64, BASE64) for i in range(3)])
    t = d.s("fb-pk-1", 64, BASE64)
    add(
        "ts-firebase-admin-credential-cert-inline-private-key",
        t,
        f"admin.initializeApp({{\n  credential: admin.credential.cert({{\n    projectId: 'acme-prod',\n    clientEmail: 'firebase-adminsdk-x1@acme-prod.iam.gserviceaccount.com',\n    privateKey: '-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n{key}\\n-----END PRIVATE KEY-----\\n',\n  }}),\n}});\n",
    )
    t = d.s("js-jwt-sign", 48, ALNUM)
    add(
        "js-jsonwebtoken-sign-literal-secret-argument",
        t,
        f"const token = jwt.sign({{ sub: user.id, role: user.role }}, '{t}', {{ expiresIn: '1h' }});\n",
    )
    t = d.s("js-fetch-basic", 40, ALNUM)
    cred = f"api:{t}"
    t = _b64(cred)
    add(
        "js-fetch-headers-authorization-basic-precomputed",
        t,
        f"const res = await fetch(`${{BASE}}/v3/messages`, {{\n  method: 'POST',\n  headers: {{ Authorization: 'Basic {t}' }},\n  body: form,\n}});\n",
    )
    t = "xkeysib-" + d.s("js-btoa", 64, HEX) + "-" + d.s("js-btoa-b", 16, ALNUM)
    add(
        "js-axios-post-headers-api-key-brevo",
        t,
        f"await axios.post('https://api.brevo.com/v3/smtp/email', payload, {{\n  headers: {{ 'api-key': '{t}', 'content-type': 'application/json' }},\n}});\n",
    )
    t = "phx_" + d.s("py-posthog", 43, ALNUM)
    add(
        "python-posthog-personal-api-key-kwarg",
        t,
        f"posthog = Posthog(project_api_key='phc_{d.s('phc', 43, ALNUM)}', host='https://eu.posthog.com', personal_api_key='{t}')\n",
    )
    t = d.s("py-pinecone", 64, ALNUM)
    t = "pcsk_" + d.s("py-pinecone-a", 5, ALNUM) + "_" + d.s("py-pinecone-b", 64, ALNUM)
    add(
        "python-pinecone-constructor-api-key",
        t,
        f'from pinecone import Pinecone\n\npc = Pinecone(api_key="{t}")\nindex = pc.Index("docs")\n',
    )
    p = d.human("py-redis-from-url")
    add(
        "python-redis-from-url-rediss-password-only",
        quote(p, safe=""),
        f'r = redis.from_url("rediss://:{quote(p, safe="")}@cache.acme.example:6380/0", decode_responses=True)\n',
    )
    t = _aws_secret(d, "py-boto3-session")
    add(
        "python-boto3-session-positional-keys",
        t,
        f'session = boto3.Session("{_aws_key_id(d, "py-boto3-id")}", "{t}", region_name="eu-west-1")\n',
    )
    t = d.s("py-sqlalchemy-urlcreate", 12, ALNUM)
    p = d.human("py-url-create")
    add(
        "python-sqlalchemy-url-create-password-kwarg",
        p,
        f'url = URL.create(\n    "postgresql+psycopg",\n    username="orders",\n    password="{p}",\n    host="db.internal",\n    database="orders",\n)\n',
    )
    t = _google_api_key(d, "py-googlemaps")
    add(
        "python-googlemaps-client-key-kwarg",
        t,
        f"import googlemaps\n\ngmaps = googlemaps.Client(key='{t}')\n",
    )
    t = "lsv2_pt_" + d.s("py-os-environ-lsv2", 32, HEX) + "_" + d.s("py-os-environ-lsv2-b", 10, HEX)
    add(
        "python-os-environ-subscript-assignment-notebook-cell",
        t,
        f'# In[3]:\nimport os\nos.environ["LANGCHAIN_TRACING_V2"] = "true"\nos.environ["LANGCHAIN_API_KEY"] = "{t}"\n',
    )
    t = d.s("r-httr2", 40, HEX)
    add(
        "r-httr2-req-auth-bearer-token",
        t,
        f'resp <- request("https://api.acme.example/v2/reports") |>\n  req_auth_bearer_token("{t}") |>\n  req_perform()\n',
    )
    p = d.human("r-dbconnect")
    add(
        "r-dbi-dbconnect-rpostgres-password-arg",
        p,
        f'con <- DBI::dbConnect(RPostgres::Postgres(),\n  host = "db.internal", dbname = "analytics",\n  user = "analyst", password = "{p}")\n',
    )
    t = _github_token(d, "lua-nvim", "ghp_")
    t = _openai_key(d, "lua-nvim-ai")
    add(
        "lua-neovim-plugin-setup-api-key-field",
        t,
        f'require("codecompanion").setup({{\n  adapters = {{\n    openai = function()\n      return require("codecompanion.adapters").extend("openai", {{\n        env = {{ api_key = "{t}" }},\n      }})\n    end,\n  }},\n}})\n',
    )
    p = d.human("perl-dbi")
    add(
        "perl-dbi-connect-positional-password",
        p,
        f"my $dbh = DBI->connect('dbi:Pg:dbname=orders;host=db.internal', 'orders', '{p}', {{ RaiseError => 1 }});\n",
    )
    p = d.human("powershell-pscredential")
    add(
        "powershell-convertto-securestring-asplaintext",
        p,
        f"$secure = ConvertTo-SecureString '{p}' -AsPlainText -Force\n$cred = New-Object System.Management.Automation.PSCredential ('ACME\\svc-deploy', $secure)\n",
    )
    t = d.s("scala-akka", 32, ALNUM)
    p = d.human("scala-slick")
    add(
        "hocon-application-conf-slick-db-password",
        p,
        f'slick.dbs.default {{\n  profile = "slick.jdbc.PostgresProfile$"\n  db {{\n    url = "jdbc:postgresql://db:5432/orders"\n    user = "orders"\n    password = "{p}"\n    password = ${{?DB_PASSWORD}}\n  }}\n}}\n',
    )
    t = _hf_token(d, "jupyter-hf-login")
    add(
        "jupyter-ipynb-json-source-huggingface-login",
        t,
        json.dumps(
            {
                "cell_type": "code",
                "execution_count": 2,
                "metadata": {},
                "outputs": [],
                "source": ["from huggingface_hub import login\n", f'login("{t}")\n'],
            },
            indent=1,
        ),
    )
    t = _openai_key(d, "sql-pgai")
    add(
        "sql-pgai-set-config-openai-api-key",
        t,
        f"SELECT set_config('ai.openai_api_key', '{t}', false);\nSELECT ai.openai_embed('text-embedding-3-small', 'hello');\n",
    )


def _terminal(d: _Batch9Draw, add: Add) -> None:
    """Commands people type and what tools print back."""
    t = _github_token(d, "gh-auth-token-out", "gho_")
    t = _github_token(d, "gh-auth-status", "gho_")
    t = _gitlab_pat(d, "glab-login")
    add(
        "glab-auth-login-stdin-echo",
        t,
        f"echo {t} | glab auth login --hostname gitlab.acme.example --stdin\n",
    )
    t = _npm_token(d, "npm-token-create")
    add(
        "npm-token-create-table-output",
        t,
        f"$ npm token create --read-only\n\u250c\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2510\n\u2502 token          \u2502 {t} \u2502\n\u2502 readonly       \u2502 true                                     \u2502\n\u2502 created        \u2502 2025-03-02T10:11:12.000Z                 \u2502\n\u2514\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2518\n",
    )
    t = _npm_token(d, "npm-config-set")
    add(
        "npm-config-set-scoped-authtoken-command",
        t,
        f"npm config set //npm.pkg.github.com/:_authToken {t}\n",
    )
    t = "pypi-AgEIcHlwaS5vcmc" + d.s("poetry-config-pypi", 150, BASE64URL)
    p = d.human("mysql-p-attached")
    add(
        "mysql-client-p-attached-password",
        p,
        f"mysql -h db.internal -u orders -p'{p}' orders < dump.sql\n",
    )
    p = d.human("mysqldump-password")
    add(
        "mysqldump-password-long-flag-cron-line",
        p,
        f"0 3 * * * mysqldump --single-transaction --user=backup --password={p} --all-databases | gzip > /backups/all-$(date +\\%F).sql.gz\n",
    )
    p = d.human("psql-pgpassword-inline")
    add(
        "pgpassword-inline-pg-dump-command",
        p,
        f"PGPASSWORD='{p}' pg_dump -h db.prod -U orders -Fc orders > orders.dump\n",
    )
    p = d.human("mongodump-uri")
    add(
        "mongodump-uri-flag-password",
        quote(p, safe=""),
        f'mongodump --uri="mongodb://backup:{quote(p, safe="")}@mongo-0.prod:27017/?authSource=admin" --gzip --archive=/tmp/prod.gz\n',
    )
    p = d.human("redis-cli-a")
    add(
        "redis-cli-a-flag-no-auth-warning",
        p,
        f"$ redis-cli -h cache.prod -a '{p}' --no-auth-warning INFO memory\n# Memory\nused_memory:1283456\n",
    )
    t = d.s("docker-login-stdin", 40, ALNUM)
    t = "dckr_pat_" + d.s("docker-login-stdin", 27, BASE64URL)
    add(
        "docker-login-password-stdin-echo-pipe",
        t,
        f'echo "{t}" | docker login -u acmeci --password-stdin\nLogin Succeeded\n',
    )
    p = d.human("helm-repo-add")
    add(
        "helm-repo-add-password-flag",
        p,
        f"helm repo add acme https://charts.acme.example --username ci --password '{p}'\n",
    )
    t = _b64(d.human("kubectl-get-secret-b64"))
    add(
        "kubectl-get-secret-o-yaml-output-data",
        t,
        f"$ kubectl get secret orders-db -o yaml\napiVersion: v1\ndata:\n  password: {t}\n  username: b3JkZXJz\nkind: Secret\nmetadata:\n  name: orders-db\n  namespace: prod\ntype: Opaque\n",
    )
    p = d.human("kubectl-jsonpath-decode")
    t = d.s("kubectl-token", 64, BASE64URL)
    t = _jwt(
        d,
        "kubectl-create-token",
        {
            "aud": ["https://kubernetes.default.svc"],
            "exp": 1767225600,
            "iss": "https://kubernetes.default.svc",
            "kubernetes.io": {"namespace": "ci", "serviceaccount": {"name": "deployer"}},
            "sub": "system:serviceaccount:ci:deployer",
        },
        alg="RS256",
    )
    add(
        "kubectl-create-token-output",
        t,
        f"$ kubectl -n ci create token deployer --duration=8760h\n{t}\n",
    )
    t = d.s("gcloud-print", 180, BASE64URL)
    t = "ya29.a0" + d.s("gcloud-print", 200, BASE64URL)
    p = d.human("gcloud-sql-users")
    add(
        "gcloud-sql-users-set-password-flag",
        p,
        f"gcloud sql users set-password orders --instance=orders-prod --password='{p}'\n",
    )
    t = d.s("heroku-auth-token", 36, HEX)
    t = "HRKU-" + d.uuid("heroku-auth-token")
    add(
        "heroku-auth-token-command-output",
        t,
        f"$ heroku auth:token\n \u203a   Warning: token will expire 03/02/2026\n \u203a   Use heroku authorizations:create to generate a long-term token\n{t}\n",
    )
    t = "dop_v1_" + d.s("doctl-init", 64, HEX)
    add(
        "doctl-auth-init-access-token-flag",
        t,
        f"doctl auth init --context acme --access-token {t}\n",
    )
    t = d.s("fly-secrets-set", 48, ALNUM)
    t = _stripe_key(d, "fly-secrets-set", "sk_live_")
    add(
        "flyctl-secrets-set-multiple-pairs",
        t,
        f"fly secrets set STRIPE_SECRET_KEY={t} SENTRY_ENVIRONMENT=production -a checkout\n",
    )
    t = _openai_key(d, "wrangler-secret-put")
    add(
        "wrangler-secret-put-printf-pipe",
        t,
        f"printf '%s' '{t}' | npx wrangler secret put OPENAI_API_KEY --env production\n",
    )
    t = _anthropic_key(d, "gh-secret-set")
    add(
        "gh-secret-set-body-flag",
        t,
        f'gh secret set ANTHROPIC_API_KEY --repo acme/agents --body "{t}"\n',
    )
    t = _aws_secret(d, "aws-configure-interactive")
    add(
        "aws-configure-interactive-prompt-transcript",
        t,
        f"$ aws configure --profile prod\nAWS Access Key ID [None]: {_aws_key_id(d, 'aws-conf-prompt-id')}\nAWS Secret Access Key [None]: {t}\nDefault region name [None]: eu-west-1\nDefault output format [None]: json\n",
    )
    t = _aws_session_token(d, "aws-export-creds-env")
    add(
        "aws-configure-export-credentials-format-env-output",
        t,
        f"$ aws configure export-credentials --profile sso-dev --format env\nexport AWS_ACCESS_KEY_ID={_aws_key_id(d, 'aws-ecenv-id', 'ASIA')}\nexport AWS_SECRET_ACCESS_KEY={_aws_secret(d, 'aws-ecenv-secret')}\nexport AWS_SESSION_TOKEN={t}\nexport AWS_CREDENTIAL_EXPIRATION=2025-03-02T11:00:00+00:00\n",
    )
    t = _vault_token(d, "vault-read-approle")
    add(
        "vault-write-auth-approle-login-table-output",
        t,
        f'$ vault write auth/approle/login role_id=$ROLE_ID secret_id=$SECRET_ID\nKey                     Value\n---                     -----\ntoken                   {t}\ntoken_accessor          {d.s("vault-acc", 24, ALNUM)}\ntoken_duration          768h\ntoken_renewable         true\ntoken_policies          ["ci"]\n',
    )
    p = d.human("htpasswd-b")
    add(
        "htpasswd-b-flag-plain-password-command",
        p,
        f"htpasswd -bc /etc/nginx/.htpasswd admin '{p}'\n",
    )
    p = d.human("openssl-enc-pass")
    add(
        "openssl-enc-pass-env-literal",
        p,
        f"openssl enc -aes-256-cbc -pbkdf2 -salt -in backup.tar -out backup.tar.enc -pass 'pass:{p}'\n",
    )
    p = d.human("gpg-passphrase-batch")
    add(
        "gpg-batch-passphrase-flag",
        p,
        f"gpg --batch --yes --pinentry-mode loopback --passphrase '{p}' --output release.tar.gz.sig --detach-sign release.tar.gz\n",
    )
    p = d.human("curl-u-user-pass")
    add(
        "curl-u-user-colon-password-jenkins-api",
        p,
        f"curl -u admin:{p} -X POST https://jenkins.acme.example/job/deploy/buildWithParameters?ENV=prod\n",
    )
    t = d.s("httpie-bearer", 40, HEX)
    add(
        "httpie-auth-type-bearer-flag",
        t,
        f"http -A bearer -a {t} GET https://api.acme.example/v1/orders limit==5\n",
    )
    t = _openai_key(d, "llm-keys-set")
    add(
        "simonw-llm-keys-set-prompt-paste",
        t,
        f"$ llm keys set openai\nEnter key: {t}\n$ llm -m gpt-4o 'hi'\n",
    )
    t = "lin_api_" + d.s("env-grep-out", 40, ALNUM)
    add(
        "env-grep-output-listing-keys",
        t,
        f"$ env | grep -i key\nLINEAR_API_KEY={t}\nSSH_AUTH_SOCK=/tmp/ssh-XXXX/agent.1234\nGPG_KEY=3AA5C34371567BD2\n",
    )
    t = _hf_token(d, "hf-auth-whoami")
    add(
        "huggingface-cli-login-token-flag-add-to-git",
        t,
        f"huggingface-cli login --token {t} --add-to-git-credential\nToken is valid (permission: write).\n",
    )
    t = d.s("ngrok-yml", 49, ALNUM)
    p = d.human("sshpass-rsync")
    add(
        "rsync-e-sshpass-p-wrapper",
        p,
        f"rsync -avz -e \"sshpass -p '{p}' ssh -o StrictHostKeyChecking=no\" ./dist/ deploy@10.0.3.7:/var/www/app/\n",
    )
    p = d.human("psexec-p")
    p = d.human("mssql-cli-sqlcmd-env")
    add(
        "powershell-invoke-sqlcmd-password-param",
        p,
        f"Invoke-Sqlcmd -ServerInstance 'sql01.acme.local' -Database Shop -Username sa -Password '{p}' -Query 'SELECT @@VERSION'\n",
    )
    t = (
        d.s("terraform-login-paste", 14, ALNUM)
        + ".atlasv1."
        + d.s("terraform-login-paste-b", 67, ALNUM)
    )
    add(
        "terraform-login-token-paste-prompt",
        t,
        f"$ terraform login\n...\nToken for app.terraform.io:\n  Enter a value: {t}\n\nRetrieved token for user jdoe\n",
    )


def _env_and_shell(d: _Batch9Draw, add: Add) -> None:
    """.env files and shell startup files, written in the ways people write them."""
    t = _openai_key(d, "dotenv-export-prefix")
    add(
        "dotenv-export-prefixed-line-openai",
        t,
        f"# .env (also sourced by bash)\nexport NODE_ENV=development\nexport OPENAI_API_KEY={t}\n",
    )
    t = _stripe_key(d, "dotenv-single-quoted-stripe", "rk_live_")
    add(
        "dotenv-single-quoted-stripe-restricted-key",
        t,
        f"STRIPE_PUBLISHABLE_KEY='pk_live_{d.s('pk', 30, ALNUM)}'\nSTRIPE_RESTRICTED_KEY='{t}'\n",
    )
    t = "whsec_" + d.s("dotenv-whsec-crlf", 32, ALNUM)
    add(
        "dotenv-crlf-stripe-webhook-secret",
        t,
        f"STRIPE_WEBHOOK_SECRET={t}\r\nSTRIPE_API_VERSION=2024-06-20\r\n",
    )
    t = d.s("dotenv-multiline-pem", 64, BASE64)
    add(
        "dotenv-double-quoted-multiline-private-key",
        t,
        f'GITHUB_APP_ID=912345\nGITHUB_APP_PRIVATE_KEY="-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n{t}\n-----END RSA PRIVATE KEY-----"\n',
    )
    p = d.human("dotenv-interp")
    add(
        "dotenv-variable-interpolation-database-url",
        p,
        f"DB_USER=orders\nDB_PASS={p}\nDB_HOST=localhost\nDATABASE_URL=postgres://${{DB_USER}}:${{DB_PASS}}@${{DB_HOST}}:5432/orders\n",
    )
    t = "gsk_" + d.s("dotenv-groq-spaces", 52, ALNUM)
    add(
        "dotenv-colon-yaml-style-mistake", t, f"GROQ_API_KEY: {t}\nMODEL: llama-3.1-70b-versatile\n"
    )
    t = "r8_" + d.s("dotenv-replicate-prod", 37, ALNUM)
    add(
        "dotenv-production-local-replicate-token",
        t,
        f'# .env.production.local\nREPLICATE_API_TOKEN="{t}"\n',
    )
    t = "sk_" + d.s("dotenv-elevenlabs", 48, HEX)
    add(
        "dotenv-sample-committed-with-real-value",
        t,
        f"# .env.sample -- copy to .env and fill in\nELEVENLABS_API_KEY={t}\nVOICE_ID=21m00Tcm4TlvDq8ikWAM\n",
    )
    t = d.s("dotenv-mapbox", 80, BASE64URL)
    t = (
        "sk.eyJ1IjoiYWNtZSIsImEiOiJj"
        + d.s("dotenv-mapbox", 20, ALNUM)
        + "In0."
        + d.s("dotenv-mapbox-b", 22, BASE64URL)
    )
    add(
        "dotenv-expo-public-prefix-mapbox-secret",
        t,
        f"EXPO_PUBLIC_API_URL=https://api.acme.example\nRNMAPBOX_MAPS_DOWNLOAD_TOKEN={t}\n",
    )
    t = d.s("dotenv-nuxt", 64, HEX)
    add(
        "dotenv-nuxt-session-password",
        t,
        f"NUXT_SESSION_PASSWORD={t}\nNUXT_OAUTH_GITHUB_CLIENT_ID=Iv1.{d.s('iv1', 16, HEX)}\n",
    )
    t = d.s("dotenv-nextauth", 44, BASE64)
    add(
        "dotenv-auth-secret-openssl-rand-comment",
        t,
        f'# generated with: openssl rand -base64 32\nAUTH_SECRET="{t}"\nAUTH_URL=http://localhost:3000\n',
    )
    t = "GOCSPX-" + d.s("dotenv-google-oauth", 28, BASE64URL)
    add(
        "dotenv-google-oauth-client-secret-gocspx",
        t,
        f"GOOGLE_CLIENT_ID={d.s('gcid', 12, DIGITS)}-{d.s('gcid2', 32, LOWER_ALNUM)}.apps.googleusercontent.com\nGOOGLE_CLIENT_SECRET={t}\n",
    )
    t = d.s("bashrc-alias-curl", 40, HEX)
    add(
        "bashrc-function-with-inline-header-token",
        t,
        f'# ~/.bashrc\napi() {{\n  curl -sS -H "Authorization: Token {t}" "https://api.acme.example$1" | jq .\n}}\n',
    )
    t = _anthropic_key(d, "zshrc-conditional-export")
    add(
        "zshrc-conditional-export-if-unset",
        t,
        f'# ~/.zshrc\nif [[ -z "$ANTHROPIC_API_KEY" ]]; then\n  export ANTHROPIC_API_KEY="{t}"\nfi\n',
    )
    t = _github_token(d, "fish-config-set-gx", "ghp_")
    add(
        "fish-config-set-gx-github-token",
        t,
        f"# ~/.config/fish/config.fish\nset -gx GITHUB_TOKEN {t}\nset -gx EDITOR nvim\n",
    )
    t = _openai_key(d, "ps-env-colon-session")
    add(
        "powershell-env-drive-assignment-openai",
        t,
        f"PS C:\\src\\bot> $env:OPENAI_API_KEY='{t}'\nPS C:\\src\\bot> python bot.py\n",
    )
    t = _aws_secret(d, "cmd-set-aws")
    add(
        "windows-cmd-set-unquoted-aws-secret",
        t,
        f"C:\\> set AWS_ACCESS_KEY_ID={_aws_key_id(d, 'cmd-set-id')}\nC:\\> set AWS_SECRET_ACCESS_KEY={t}\nC:\\> aws s3 ls\n",
    )
    t = _hf_token(d, "bash-heredoc-env")
    add(
        "bash-heredoc-writing-dotenv-file",
        t,
        f"cat > .env <<'EOF'\nHF_TOKEN={t}\nWANDB_MODE=offline\nEOF\n",
    )
    p = d.human("sh-script-var")
    add(
        "shell-script-top-level-variable-password",
        p,
        f'#!/usr/bin/env bash\nset -euo pipefail\nDB_HOST=db.prod\nDB_PASS="{p}"\nmysql -h "$DB_HOST" -u root -p"$DB_PASS" -e \'SHOW PROCESSLIST\'\n',
    )
    t = d.s("makefile-export", 32, HEX)
    add(
        "makefile-export-api-key-variable",
        t,
        f"export MAILGUN_API_KEY ?= {t}-{d.s('mg-b', 8, HEX)}-{d.s('mg-c', 8, HEX)}\n\ndeploy:\n\t./scripts/deploy.sh\n",
    )
    t = _sendgrid(d, "justfile-set-dotenv")
    add(
        "justfile-env-variable-default-sendgrid",
        t,
        f"set dotenv-load\n\nexport SENDGRID_API_KEY := env_var_or_default('SENDGRID_API_KEY', '{t}')\n\nsend:\n    python send.py\n",
    )
    t = d.s("mise-toml-env", 40, ALNUM)
    t = "pul-" + d.s("mise-toml-env", 40, HEX)
    add(
        "mise-toml-env-table-pulumi-token",
        t,
        f'[tools]\nnode = "20"\n\n[env]\nPULUMI_ACCESS_TOKEN = "{t}"\n',
    )
    t = _openai_key(d, "docker-env-file")
    add(
        "docker-env-file-list-format",
        t,
        f"# app.env  (docker run --env-file app.env)\nOPENAI_API_KEY={t}\nLOG_LEVEL=info\n",
    )
    t = d.s("direnv-layout", 40, ALNUM)
    t = "xai-" + d.s("direnv-layout", 80, ALNUM)
    add(
        "envrc-source-up-then-export-xai",
        t,
        f'source_up\nlayout python3\nexport XAI_API_KEY="{t}"\n',
    )


def _chat_notes_and_managers(d: _Batch9Draw, add: Add) -> None:
    """Chats, issues, pull requests, notes and password-manager output."""
    p = d.human("chat-new-hire")
    add(
        "chat-onboarding-message-vpn-password",
        p,
        f"hey! welcome aboard \U0001f44b vpn is vpn.acme.example, user = your email, the shared bootstrap password is {p} -- change it on first login pls",
    )
    t = _openai_key(d, "chat-assistant-debug")
    add(
        "assistant-chat-user-pasted-code-with-key",
        t,
        f'User: why do I get 429?\n\n```python\nclient = OpenAI(api_key="{t}")\nclient.chat.completions.create(model="gpt-4o", messages=msgs)\n```\n',
    )
    t = _aws_secret(d, "issue-repro")
    add(
        "github-issue-body-repro-steps-with-credentials",
        t,
        f'### Steps to reproduce\n\n1. Configure the provider:\n   ```hcl\n   provider "aws" {{\n     access_key = "{_aws_key_id(d, "issue-id")}"\n     secret_key = "{t}"\n   }}\n   ```\n2. Run `terraform plan`\n',
    )
    t = _stripe_key(d, "pr-review-comment", "sk_live_")
    add(
        "pr-review-comment-quoting-diff-line",
        t,
        f'> ```diff\n> +STRIPE_KEY = "{t}"\n> ```\n\n\u26a0\ufe0f this is a live key, please move it to the secret store before merging\n',
    )
    p = d.human("jira-ticket")
    add(
        "jira-ticket-description-table-credentials",
        p,
        f"||Environment||URL||User||Password||\n|staging|https://staging.acme.example/admin|qa-admin|{p}|\n|prod|https://acme.example/admin|ask ops|-|\n",
    )
    p = d.human("notion-page")
    add(
        "notes-markdown-table-service-accounts",
        p,
        f"| service | user | password |\n|---|---|---|\n| grafana | admin | `{p}` |\n| pgadmin | ops@acme.example | see 1Password |\n",
    )
    t = d.s("obsidian-note", 40, HEX)
    t = "ntn_" + d.s("obsidian-note", 46, ALNUM)
    add(
        "obsidian-daily-note-bullet-token",
        t,
        f"## 2025-03-02\n- set up notion sync, integration secret: {t}\n- TODO rotate after demo\n",
    )
    t = _github_token(d, "teams-msg", "ghp_")
    add(
        "teams-chat-message-html-token",
        t,
        f"<div><p>try with my token for now: <code>{t}</code></p><p>I'll revoke it tonight</p></div>",
    )
    p = d.human("email-credentials")
    add(
        "email-plaintext-new-account-credentials",
        p,
        f"Subject: Your SFTP account\n\nHi Jana,\n\nHost: sftp.acme.example\nUsername: partner-logistics\nPassword: {p}\n\nRegards,\nOps\n",
    )
    p = d.human("op-item-get")
    add(
        "onepassword-op-item-get-fields-output",
        p,
        f"$ op item get 'Prod DB' --fields label=username,label=password --reveal\norders,{p}\n",
    )
    p = d.human("bw-get-password")
    add("bitwarden-bw-get-password-output", p, f"$ bw get password prod-grafana\n{p}$ ")
    p = d.human("pass-show")
    add(
        "pass-show-multiline-entry-output",
        p,
        f"$ pass show work/aws-console\n{p}\nuser: jdoe@acme.example\nurl: https://acme.signin.aws.amazon.com/console\n",
    )
    p = d.human("keepassxc-cli")
    add(
        "keepassxc-cli-show-s-output",
        p,
        f"$ keepassxc-cli show -s Passwords.kdbx 'Infra/Proxmox'\nEnter password to unlock Passwords.kdbx:\nTitle: Proxmox\nUserName: root@pam\nPassword: {p}\nURL: https://pve.lan:8006\nNotes: \n",
    )
    p = d.human("lastpass-csv")
    p = d.human("apple-passwords-csv")
    add(
        "apple-passwords-app-csv-export-row",
        p,
        f"Title,URL,Username,Password,Notes,OTPAuth\nstaging.acme.example (qa),https://staging.acme.example,qa,{p},,\n",
    )
    t = _anthropic_key(d, "pr-description")
    add(
        "pr-description-testing-section-env-line",
        t,
        f"## Testing\n\nRan locally with\n\n    ANTHROPIC_API_KEY={t} pytest -k summarize\n\nAll green.\n",
    )
    p = d.human("commit-review-suggestion")
    add(
        "github-suggestion-block-in-review",
        p,
        f'```suggestion\n    password: "{p}"\n```\nthe old one was rotated, this is the new one for staging',
    )
    t = "xoxe.xoxp-1-" + d.s("slack-thread-refresh", 140, ALNUM)
    add(
        "slack-thread-reply-rotating-token-xoxe",
        t,
        f"Rafael  10:42 AM\nhere's the rotated user token from the app config page: {t}\n",
    )
    t = d.s("readme-local-setup", 32, HEX)
    add(
        "readme-local-setup-numbered-step-token",
        t,
        f"## Local setup\n\n1. `cp .env.example .env`\n2. Set `ALGOLIA_ADMIN_KEY` to `{t}` (shared dev app)\n3. `pnpm dev`\n",
    )


def _ci_and_deploy(d: _Batch9Draw, add: Add) -> None:
    """CI/CD pipelines and deployment manifests."""
    t = _b64(d.human("k8s-secret-data"))
    add(
        "kubernetes-secret-data-base64-password",
        t,
        f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: orders-db\ntype: Opaque\ndata:\n  DB_USER: b3JkZXJz\n  DB_PASSWORD: {t}\n",
    )
    p = d.human("k8s-stringdata")
    add(
        "kubernetes-secret-stringdata-block-scalar-config",
        p,
        f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: app-config\nstringData:\n  config.yaml: |\n    database:\n      host: db.prod\n      password: {p}\n",
    )
    t = _b64(
        json.dumps(
            {
                "auths": {
                    "ghcr.io": {
                        "username": "acme-bot",
                        "password": _github_token(d, "k8s-dockerconfig", "ghp_"),
                    }
                }
            }
        )
    )
    add(
        "kubernetes-dockerconfigjson-secret-base64",
        t,
        f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: ghcr-pull\ntype: kubernetes.io/dockerconfigjson\ndata:\n  .dockerconfigjson: {t}\n",
    )
    t = _openai_key(d, "k8s-deploy-env-value")
    add(
        "kubernetes-deployment-container-env-value-literal",
        t,
        f'    spec:\n      containers:\n        - name: api\n          image: ghcr.io/acme/api:1.42.0\n          env:\n            - name: OPENAI_API_KEY\n              value: "{t}"\n            - name: LOG_LEVEL\n              value: info\n',
    )
    p = d.human("helm-set-cli")
    add(
        "helm-upgrade-install-set-flag-password",
        p,
        f"helm upgrade --install pg bitnami/postgresql -n data --set auth.postgresPassword='{p}' --set primary.persistence.size=50Gi\n",
    )
    t = _slack_token(d, "gha-env-literal")
    add(
        "github-actions-job-env-literal-slack-token",
        t,
        f"jobs:\n  notify:\n    runs-on: ubuntu-latest\n    env:\n      SLACK_BOT_TOKEN: {t}\n    steps:\n      - run: ./scripts/notify.sh\n",
    )
    p = d.human("gha-services-pg")
    add(
        "github-actions-services-postgres-env-password",
        p,
        f"    services:\n      postgres:\n        image: postgres:16\n        env:\n          POSTGRES_PASSWORD: {p}\n        ports: ['5432:5432']\n",
    )
    t = _npm_token(d, "gha-with-input")
    add(
        "github-actions-setup-node-step-env-node-auth-token",
        t,
        f"      - uses: actions/setup-node@v4\n        with:\n          registry-url: https://registry.npmjs.org\n      - run: npm publish --access public\n        env:\n          NODE_AUTH_TOKEN: {t}\n",
    )
    t = _gitlab_pat(d, "gitlab-ci-vars")
    add(
        "gitlab-ci-yml-variables-block-literal-token",
        t,
        f'variables:\n  DOCKER_DRIVER: overlay2\n  GITLAB_API_TOKEN: "{t}"\n\nrelease:\n  stage: deploy\n  script: ./release.sh\n',
    )
    p = d.human("jenkinsfile-environment")
    add(
        "jenkinsfile-declarative-environment-literal",
        p,
        f"pipeline {{\n  agent any\n  environment {{\n    DB_PASSWORD = '{p}'\n  }}\n  stages {{\n    stage('migrate') {{ steps {{ sh './gradlew flywayMigrate' }} }}\n  }}\n}}\n",
    )
    t = d.s("azure-pipelines-inline", 52, "abcdefghijklmnopqrstuvwxyz234567")
    t = _openai_key(d, "argo-workflow-param")
    add(
        "argo-workflows-parameter-value-api-key",
        t,
        f"spec:\n  entrypoint: embed\n  arguments:\n    parameters:\n      - name: openai-key\n        value: {t}\n",
    )
    p = d.human("docker-compose-override")
    add(
        "docker-compose-override-environment-list-entry",
        p,
        f"# docker-compose.override.yml\nservices:\n  db:\n    environment:\n      - MYSQL_ROOT_PASSWORD={p}\n      - MYSQL_DATABASE=shop\n",
    )
    t = _aws_secret(d, "nomad-job-template")
    add(
        "nomad-job-hcl-template-env-data",
        t,
        f'task "api" {{\n  template {{\n    destination = "secrets/app.env"\n    env         = true\n    data        = <<EOH\nAWS_ACCESS_KEY_ID={_aws_key_id(d, "nomad-id")}\nAWS_SECRET_ACCESS_KEY={t}\nEOH\n  }}\n}}\n',
    )
    p = d.human("ansible-vars-plain")
    add(
        "ansible-host-vars-yaml-plain-db-password",
        p,
        f'---\n# host_vars/db01.yml\npostgresql_users:\n  - name: orders\n    password: "{p}"\n    role_attr_flags: LOGIN\n',
    )
    t = _jwt(d, "fly-toml-env", {"sub": "svc-checkout", "scope": "internal", "iat": 1735689600})
    add(
        "fly-toml-env-section-literal-jwt",
        t,
        f'app = "checkout"\nprimary_region = "fra"\n\n[env]\n  PORT = "8080"\n  INTERNAL_JWT = "{t}"\n',
    )
    t = d.s("vercel-cli-env", 24, ALNUM)
    add(
        "vercel-deploy-token-and-build-env-flags",
        t,
        f"vercel deploy --prod --token={t} --build-env NEXT_PUBLIC_SITE=https://acme.example\n",
    )
    t = _anthropic_key(d, "tekton-script")
    add(
        "github-actions-run-script-inline-export",
        t,
        f"      - name: Eval\n        run: |\n          export ANTHROPIC_API_KEY={t}\n          python -m evals.run --suite smoke\n",
    )


def _connection_strings(d: _Batch9Draw, add: Add) -> None:
    """URLs and DSNs, in code and config."""
    p = d.human("prisma-url-schema")
    add(
        "prisma-schema-datasource-url-literal",
        quote(p, safe=""),
        f'datasource db {{\n  provider = "postgresql"\n  url      = "postgresql://orders:{quote(p, safe="")}@db.internal:5432/orders?schema=public"\n}}\n',
    )
    p = d.human("mongoose-connect")
    add(
        "mongoose-connect-uri-template-literal",
        quote(p, safe=""),
        f"await mongoose.connect(`mongodb+srv://api:{quote(p, safe='')}@cluster0.x1y2z.mongodb.net/shop?retryWrites=true&w=majority`);\n",
    )
    p = d.human("neon-psql-url")
    add(
        "neon-connection-string-sslmode-channel-binding",
        quote(p, safe=""),
        f"psql 'postgresql://neondb_owner:{quote(p, safe='')}@ep-cool-river-a5x1y2z3.eu-central-1.aws.neon.tech/neondb?sslmode=require&channel_binding=require'\n",
    )
    t = d.s("upstash-redis-url", 34, ALNUM)
    add(
        "upstash-rediss-url-default-user",
        t,
        f"REDIS_URL=rediss://default:{t}@eu2-lucky-cat-31234.upstash.io:6379\n",
    )
    p = d.human("mssql-jdbc-url")
    add(
        "jdbc-sqlserver-url-semicolon-password",
        p,
        f"spring.datasource.url=jdbc:sqlserver://sql01.acme.local:1433;databaseName=Shop;user=shop;password={p};encrypt=true;trustServerCertificate=true\n",
    )
    p = d.human("mysql-jdbc-query")
    add(
        "jdbc-mysql-url-query-password-param",
        quote(p, safe=""),
        f'String url = "jdbc:mysql://db.internal:3306/shop?user=shop&password={quote(p, safe="")}&useSSL=true";\n',
    )
    p = d.human("amqp-url-kombu")
    add(
        "celery-broker-url-settings-py-amqp",
        quote(p, safe=""),
        f"CELERY_BROKER_URL = 'amqp://worker:{quote(p, safe='')}@rabbitmq.internal:5672/prod'\n",
    )
    p = d.human("nats-url")
    add(
        "nats-url-userinfo-in-client-connect",
        quote(p, safe=""),
        f'nc, err := nats.Connect("nats://svc-orders:{quote(p, safe="")}@nats.internal:4222")\n',
    )
    p = d.human("ftp-url-in-config")
    add(
        "sftp-url-in-deploy-config-json",
        quote(p, safe=""),
        json.dumps(
            {
                "deploy": {
                    "target": f"sftp://deploy:{quote(p, safe='')}@web01.acme.example:22/var/www/html",
                    "exclude": [".git", "node_modules"],
                }
            },
            indent=2,
        ),
    )
    p = d.human("influx-url")
    t = d.s("clickhouse-https", 40, ALNUM)
    p = d.human("clickhouse-https-url")
    add(
        "clickhouse-http-url-query-password-param",
        quote(p, safe=""),
        f"curl 'https://ch.acme.example:8443/?user=reader&password={quote(p, safe='')}' --data-binary 'SELECT count() FROM events'\n",
    )
    p = d.human("elastic-cloud-url")
    add(
        "opensearch-url-userinfo-in-python-client",
        quote(p, safe=""),
        f"client = OpenSearch(hosts=['https://admin:{quote(p, safe='')}@search-acme-x1y2z3.eu-west-1.es.amazonaws.com:443'])\n",
    )
    p = d.human("smtp-url-django-env")
    add(
        "django-environ-email-url-smtp-tls",
        quote(p, safe=""),
        f"EMAIL_URL=smtp+tls://noreply%40acme.example:{quote(p, safe='')}@smtp.gmail.com:587\n",
    )


def _logs_and_http(d: _Batch9Draw, add: Add) -> None:
    """Logs, traces and HTTP dumps that keep a credential."""
    t = _openai_key(d, "log-json-headers")
    p = d.human("log-nginx-access-query")
    add(
        "nginx-access-log-query-string-password",
        quote(p, safe=""),
        f'203.0.113.7 - - [02/Mar/2025:10:11:12 +0000] "GET /login?user=qa&password={quote(p, safe="")} HTTP/1.1" 302 0 "-" "Mozilla/5.0"\n',
    )
    t = _github_token(d, "git-trace-curl", "ghp_")
    basic = _b64(f"x-access-token:{t}")
    add(
        "git-curl-verbose-trace-authorization-basic",
        basic,
        f"$ GIT_CURL_VERBOSE=1 git fetch\n10:11:12.345678 http.c:725 => Send header: GET /acme/api.git/info/refs?service=git-upload-pack HTTP/1.1\n10:11:12.345690 http.c:725 => Send header: Authorization: Basic {basic}\n",
    )
    t = _stripe_key(d, "har-entry", "sk_test_")
    add(
        "har-file-request-headers-array",
        t,
        json.dumps(
            {
                "request": {
                    "method": "GET",
                    "url": "https://api.stripe.com/v1/charges",
                    "headers": [
                        {"name": "authorization", "value": f"Bearer {t}"},
                        {"name": "user-agent", "value": "curl/8.5.0"},
                    ],
                }
            },
            indent=2,
        ),
    )
    p = d.human("java-stacktrace-jdbc")
    add(
        "java-exception-message-jdbc-url-password",
        p,
        f"org.postgresql.util.PSQLException: Connection to jdbc:postgresql://db.prod:5432/orders?user=orders&password={p} refused.\n\tat org.postgresql.core.v3.ConnectionFactoryImpl.openConnectionImpl(ConnectionFactoryImpl.java:342)\n",
    )
    t = _sendgrid(d, "python-log-env-dump")
    add(
        "python-logging-info-settings-dict-dump",
        t,
        f"2025-03-02 10:11:12,345 INFO app.config loaded settings: {{'DEBUG': False, 'EMAIL_BACKEND': 'sendgrid_backend.SendgridBackend', 'SENDGRID_API_KEY': '{t}', 'TIME_ZONE': 'UTC'}}\n",
    )
    t = _hf_token(d, "node-error-config")
    add(
        "node-unhandled-rejection-axios-config-headers",
        t,
        f"AxiosError: Request failed with status code 401\n    at settle (node_modules/axios/lib/core/settle.js:19:12) {{\n  config: {{\n    headers: Object [AxiosHeaders] {{\n      Accept: 'application/json',\n      Authorization: 'Bearer {t}'\n    }},\n    url: 'https://huggingface.co/api/whoami-v2'\n  }}\n}}\n",
    )
    t = _google_refresh(d, "otel-span-attributes")
    add(
        "otel-span-attributes-http-request-body",
        quote(t, safe=""),
        f"Span #3\n    Trace ID       : 4bf92f3577b34da6a3ce929d0e0e4736\n    Name           : POST /token\nAttributes:\n     -> http.request.body: Str(grant_type=refresh_token&refresh_token={quote(t, safe='')}&client_id=web)\n",
    )
    p = d.human("raw-http-form-post")
    add(
        "raw-http-request-dump-form-body-password",
        quote(p, safe=""),
        f"POST /api/login HTTP/1.1\r\nHost: staging.acme.example\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\nusername=qa-admin&password={quote(p, safe='')}&remember=1\r\n",
    )
    t = _vault_token(d, "k8s-events-log")
    add(
        "kubectl-logs-container-startup-env-echo",
        t,
        f"$ kubectl logs deploy/worker --tail=5\nstarting worker pid=1\nenv: VAULT_ADDR=https://vault.internal:8200 VAULT_TOKEN={t}\nconnected to redis\n",
    )
    t = _aws_secret(d, "ci-log-masked-miss")
    add(
        "ci-job-log-printed-env-aws-secret",
        t,
        f"2025-03-02T10:11:12.0000000Z ##[group]Run env | sort\n2025-03-02T10:11:12.1000000Z AWS_DEFAULT_REGION=eu-west-1\n2025-03-02T10:11:12.1000000Z AWS_SECRET_ACCESS_KEY={t}\n2025-03-02T10:11:12.1000000Z CI=true\n",
    )
    t = d.s("mitmproxy-flow", 32, HEX)
    add(
        "mitmproxy-flow-detail-request-header",
        t,
        f"GET https://api.acme.example/v2/me\n    Host:          api.acme.example\n    X-Api-Key:     {t}\n    Accept:        */*\n\n << 200 OK 512b\n",
    )


_PARTS = (
    _app_configs,
    _client_code,
    _terminal,
    _env_and_shell,
    _chat_notes_and_managers,
    _ci_and_deploy,
    _connection_strings,
    _logs_and_http,
)

# Every kind of this batch, written out literally; all of them are held out.
NAMES: frozenset[str] = frozenset(
    {
        "ansible-host-vars-yaml-plain-db-password",
        "apple-passwords-app-csv-export-row",
        "argo-workflows-parameter-value-api-key",
        "assistant-chat-user-pasted-code-with-key",
        "aws-configure-export-credentials-format-env-output",
        "aws-configure-interactive-prompt-transcript",
        "bash-heredoc-writing-dotenv-file",
        "bashrc-function-with-inline-header-token",
        "bitwarden-bw-get-password-output",
        "caddy-json-dns-challenge-cloudflare-api-token",
        "celery-broker-url-settings-py-amqp",
        "chat-onboarding-message-vpn-password",
        "ci-job-log-printed-env-aws-secret",
        "clickhouse-http-url-query-password-param",
        "confluent-cloud-client-properties-plain-jaas",
        "csharp-authenticationheadervalue-bearer-literal",
        "csharp-cosmosclient-constructor-account-key",
        "csharp-npgsqlconnectionstringbuilder-password-property",
        "curl-u-user-colon-password-jenkins-api",
        "dbeaver-data-sources-json-auth-model-password",
        "django-environ-email-url-smtp-tls",
        "docker-compose-override-environment-list-entry",
        "docker-env-file-list-format",
        "docker-login-password-stdin-echo-pipe",
        "doctl-auth-init-access-token-flag",
        "dotenv-auth-secret-openssl-rand-comment",
        "dotenv-colon-yaml-style-mistake",
        "dotenv-crlf-stripe-webhook-secret",
        "dotenv-double-quoted-multiline-private-key",
        "dotenv-expo-public-prefix-mapbox-secret",
        "dotenv-export-prefixed-line-openai",
        "dotenv-google-oauth-client-secret-gocspx",
        "dotenv-nuxt-session-password",
        "dotenv-production-local-replicate-token",
        "dotenv-sample-committed-with-real-value",
        "dotenv-single-quoted-stripe-restricted-key",
        "dotenv-variable-interpolation-database-url",
        "email-plaintext-new-account-credentials",
        "env-grep-output-listing-keys",
        "envrc-source-up-then-export-xai",
        "fish-config-set-gx-github-token",
        "fluent-bit-conf-datadog-output-apikey",
        "fly-toml-env-section-literal-jwt",
        "flyctl-secrets-set-multiple-pairs",
        "gcloud-sql-users-set-password-flag",
        "gh-cli-hosts-yml-oauth-token",
        "gh-secret-set-body-flag",
        "git-curl-verbose-trace-authorization-basic",
        "github-actions-job-env-literal-slack-token",
        "github-actions-run-script-inline-export",
        "github-actions-services-postgres-env-password",
        "github-actions-setup-node-step-env-node-auth-token",
        "github-issue-body-repro-steps-with-credentials",
        "github-suggestion-block-in-review",
        "gitlab-ci-yml-variables-block-literal-token",
        "gitlab-runner-config-toml-runner-token",
        "glab-auth-login-stdin-echo",
        "go-aws-sdk-v2-static-credentials-provider",
        "go-mysql-driver-config-struct-passwd",
        "go-oauth2-static-token-source-access-token",
        "go-openai-newclient-literal",
        "go-redis-options-struct-password-field",
        "go-slack-go-new-literal",
        "gpg-batch-passphrase-flag",
        "gradle-init-gradle-kts-maven-credentials-literal",
        "grafana-alloy-config-river-basic-auth-password",
        "grafana-datasource-provisioning-securejsondata-password",
        "grafana-ini-security-secret-key",
        "haproxy-cfg-userlist-insecure-password",
        "har-file-request-headers-array",
        "helm-repo-add-password-flag",
        "helm-repositories-yaml-password-entry",
        "helm-upgrade-install-set-flag-password",
        "heroku-auth-token-command-output",
        "hocon-application-conf-slick-db-password",
        "htpasswd-b-flag-plain-password-command",
        "httpie-auth-type-bearer-flag",
        "huggingface-cli-login-token-flag-add-to-git",
        "insomnia-export-yaml-environment-api-key",
        "java-anthropic-okhttp-client-builder-api-key",
        "java-aws-basic-credentials-create",
        "java-exception-message-jdbc-url-password",
        "java-hikariconfig-setpassword",
        "java-mail-passwordauthentication-anonymous-authenticator",
        "jdbc-mysql-url-query-password-param",
        "jdbc-sqlserver-url-semicolon-password",
        "jenkins-casc-yaml-local-security-realm-users",
        "jenkinsfile-declarative-environment-literal",
        "jetbrains-datasources-local-xml-property-password",
        "jfrog-cli-jfrog-cli-conf-v6-json-password",
        "jira-ticket-description-table-credentials",
        "js-axios-post-headers-api-key-brevo",
        "js-fetch-headers-authorization-basic-precomputed",
        "js-jsonwebtoken-sign-literal-secret-argument",
        "jupyter-ipynb-json-source-huggingface-login",
        "justfile-env-variable-default-sendgrid",
        "kafka-client-properties-sasl-jaas-config-scram",
        "keepalived-conf-vrrp-auth-pass",
        "keepassxc-cli-show-s-output",
        "kibana-yml-elasticsearch-password-quoted",
        "kotlin-buildconfigfield-string-escaped-quotes",
        "kotlin-generativemodel-api-key-named-arg",
        "kubectl-create-token-output",
        "kubectl-get-secret-o-yaml-output-data",
        "kubectl-logs-container-startup-env-echo",
        "kubernetes-deployment-container-env-value-literal",
        "kubernetes-dockerconfigjson-secret-base64",
        "kubernetes-secret-data-base64-password",
        "kubernetes-secret-stringdata-block-scalar-config",
        "laravel-config-app-php-key-fallback-literal",
        "laravel-config-services-php-mailgun-secret-env-default",
        "logstash-pipeline-conf-elasticsearch-output-password",
        "lua-neovim-plugin-setup-api-key-field",
        "magento-app-etc-env-php-db-connection-password",
        "makefile-export-api-key-variable",
        "metabase-encryption-secret-key-systemd-unit",
        "minio-config-env-root-password-quoted",
        "minio-mc-config-json-alias-secret-key",
        "mise-toml-env-table-pulumi-token",
        "mitmproxy-flow-detail-request-header",
        "mongodump-uri-flag-password",
        "mongoose-connect-uri-template-literal",
        "mongosh-mongoshrc-js-connect-password",
        "mosquitto-conf-bridge-remote-password",
        "msmtprc-password-sendgrid-key",
        "mysql-client-p-attached-password",
        "mysqldump-password-long-flag-cron-line",
        "n8n-config-json-encryption-key",
        "nats-url-userinfo-in-client-connect",
        "neon-connection-string-sslmode-channel-binding",
        "nextcloud-config-php-dbpassword-array",
        "nginx-access-log-query-string-password",
        "nginx-map-block-allowed-api-keys",
        "node-unhandled-rejection-axios-config-headers",
        "nomad-job-hcl-template-env-data",
        "notes-markdown-table-service-accounts",
        "npm-config-set-scoped-authtoken-command",
        "npm-token-create-table-output",
        "npmrc-env-fallback-literal-in-ci-checked-in",
        "obsidian-daily-note-bullet-token",
        "onepassword-op-item-get-fields-output",
        "opensearch-url-userinfo-in-python-client",
        "openssl-enc-pass-env-literal",
        "openvpn-auth-user-pass-file-two-lines",
        "openvpn-ovpn-inline-tls-crypt-static-key",
        "otel-collector-exporter-headers-honeycomb-team",
        "otel-span-attributes-http-request-body",
        "pass-show-multiline-entry-output",
        "perl-dbi-connect-positional-password",
        "pgadmin-servers-json-passfile-inline-password",
        "pgadmin4-config-local-py-default-password",
        "pgbouncer-ini-databases-line-password",
        "pgbouncer-userlist-txt-plain-password",
        "pgpassword-inline-pg-dump-command",
        "php-new-stripeclient-literal",
        "php-openai-client-factory-withapikey",
        "php-phpmailer-password-property",
        "pip-conf-extra-index-url-token-userinfo",
        "poetry-auth-toml-http-basic-gitlab-token",
        "postfix-sasl-passwd-relayhost-line",
        "postman-environment-json-values-array-secret-type",
        "powershell-convertto-securestring-asplaintext",
        "powershell-env-drive-assignment-openai",
        "powershell-invoke-sqlcmd-password-param",
        "pr-description-testing-section-env-line",
        "pr-review-comment-quoting-diff-line",
        "prisma-schema-datasource-url-literal",
        "prometheus-scrape-config-basic-auth-password",
        "promtail-clients-url-userinfo-grafana-cloud",
        "python-boto3-session-positional-keys",
        "python-googlemaps-client-key-kwarg",
        "python-logging-info-settings-dict-dump",
        "python-os-environ-subscript-assignment-notebook-cell",
        "python-pinecone-constructor-api-key",
        "python-posthog-personal-api-key-kwarg",
        "python-redis-from-url-rediss-password-only",
        "python-sqlalchemy-url-create-password-kwarg",
        "r-dbi-dbconnect-rpostgres-password-arg",
        "r-httr2-req-auth-bearer-token",
        "rabbitmq-conf-default-pass-sysctl-style",
        "raw-http-request-dump-form-body-password",
        "readme-local-setup-numbered-step-token",
        "redis-cli-a-flag-no-auth-warning",
        "renovate-config-js-module-exports-token",
        "rsync-e-sshpass-p-wrapper",
        "ruby-aws-config-update-hash-credentials",
        "ruby-pg-connect-hash-password",
        "ruby-slack-ruby-client-configure-block",
        "rust-headermap-insert-x-api-key-from-static",
        "rust-sqlx-pgconnectoptions-password-builder",
        "sentry-dsn-with-legacy-secret-key-settings-py",
        "sftp-url-in-deploy-config-json",
        "shell-script-top-level-variable-password",
        "simonw-llm-keys-set-prompt-paste",
        "slack-thread-reply-rotating-token-xoxe",
        "sonar-project-properties-sonar-login",
        "sql-pgai-set-config-openai-api-key",
        "swift-urlcredential-user-password-persistence",
        "teams-chat-message-html-token",
        "terraform-login-token-paste-prompt",
        "traefik-dynamic-yml-basicauth-users-list",
        "ts-firebase-admin-credential-cert-inline-private-key",
        "ts-langchain-chatopenai-apikey-option",
        "ts-node-postgres-pool-config-password",
        "ts-nodemailer-createtransport-resend-smtp-pass",
        "ts-supabase-createclient-service-role-second-arg-multiline",
        "upstash-rediss-url-default-user",
        "vault-write-auth-approle-login-table-output",
        "vercel-deploy-token-and-build-env-flags",
        "windows-cmd-set-unquoted-aws-secret",
        "wrangler-secret-put-printf-pipe",
        "zshrc-conditional-export-if-unset",
    }
)

SPLIT_SEED: Final = 20261206
"""Fixed before the redactor first saw this batch: the sorted names shuffled by it, a third held out."""

_TUNE, _HELD_OUT = split_a_third(sorted(NAMES), SPLIT_SEED)
TUNE: frozenset[str] = frozenset(_TUNE)
"""Two thirds: counted and named at the first look; rules may be changed looking at these."""
HELD_OUT: frozenset[str] = frozenset(_HELD_OUT)
"""A third: counted at the first look, never named; looked at once, after tuning on :data:`TUNE`."""

# Kinds still stored after the first look (filled by the lead after that look).
STILL_STORED: frozenset[str] = frozenset()


def build_ninth_batch(seed: int) -> list[UnlistedSample]:
    """Every sample of this batch, drawn from *seed* (same seed, same corpus)."""
    return draw_batch(_Batch9Draw(seed), _PARTS, frozenset(), NAMES)


def older_names() -> set[str]:
    """The kind names of the eight earlier corpora, which this batch must not repeat."""
    return names_before_eighth() | set(EIGHTH_NAMES)
