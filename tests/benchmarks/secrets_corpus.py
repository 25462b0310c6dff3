# ruff: noqa: E501
# (the formats are data: one documented format per line)
"""A corpus of secrets built from the formats providers document (prefix, alphabet, length),
with random bodies from a seeded generator: never a real secret, never the redactor's own test
list. Each format is placed in running text, in a tool call's arguments and in a tool result,
the three places where text reaches a summarizer.

Placeholders in a template: ``{A:n}`` n letters and digits, ``{a:n}`` lower-case letters and
digits, ``{U:n}`` upper-case letters and digits, ``{h:n}`` lower-case hex, ``{H:n}`` upper-case
hex, ``{d:n}`` digits, ``{B:n}`` base64, ``{b:n}`` base64url, ``{Z:n}`` bech32 upper-case; ``{n:n}``, ``{i:n}`` and ``{x:n}`` a name, a numeric
and a hex id that travel with a secret but are not secret themselves (an account name, a user
id).
"""

from __future__ import annotations

import random
import re
import string
from dataclasses import dataclass

__all__ = ["FORMATS", "STRUCTURED", "Secret", "secrets"]

_ALPHABETS = {
    "A": string.ascii_letters + string.digits,
    "a": string.ascii_lowercase + string.digits,
    "U": string.ascii_uppercase + string.digits,
    "h": "0123456789abcdef",
    "H": "0123456789ABCDEF",
    "d": string.digits,
    "B": string.ascii_letters + string.digits + "+/",
    "b": string.ascii_letters + string.digits + "-_",
    "Z": "023456789ACDEFGHJKLMNPQRSTUVWXYZ",
    "n": string.ascii_lowercase + string.digits,
    "i": string.digits,
    "x": "0123456789abcdef",
}
_NOT_SECRET = frozenset("nix")
_PLACEHOLDER = re.compile(r"\{([AaUhHdBbZnix]):(\d+)\}")

#: (provider and kind, template) from the providers' documentation of their formats
FORMATS: tuple[tuple[str, str], ...] = (
    ("GitHub classic personal access token", "ghp_{A:36}"),
    ("GitHub OAuth access token", "gho_{A:36}"),
    ("GitHub user-to-server token", "ghu_{A:36}"),
    ("GitHub server-to-server token", "ghs_{A:36}"),
    ("GitHub refresh token", "ghr_{A:76}"),
    ("GitHub fine-grained personal access token", "github_pat_{A:22}_{A:59}"),
    ("GitLab personal access token", "glpat-{b:20}"),
    ("GitLab pipeline trigger token", "glptt-{h:40}"),
    ("GitLab deploy token", "gldt-{b:20}"),
    ("GitLab runner authentication token", "glrt-{b:20}"),
    ("GitLab runner registration token", "GR1348941{b:20}"),
    ("GitLab CI/CD job token", "glcbt-{h:2}_{b:20}"),
    ("GitLab feed token", "glft-{b:20}"),
    ("GitLab OAuth application secret", "gloas-{h:64}"),
    ("Stripe live secret key", "sk_live_{A:99}"),
    ("Stripe test secret key", "sk_test_{A:99}"),
    ("Stripe live restricted key", "rk_live_{A:99}"),
    ("Stripe test restricted key", "rk_test_{A:24}"),
    ("Stripe webhook signing secret", "whsec_{A:32}"),
    ("OpenAI project key", "sk-proj-{b:74}T3BlbkFJ{b:74}"),
    ("OpenAI service account key", "sk-svcacct-{b:74}T3BlbkFJ{b:74}"),
    ("OpenAI admin key", "sk-admin-{b:74}T3BlbkFJ{b:74}"),
    ("OpenAI legacy user key", "sk-{A:20}T3BlbkFJ{A:20}"),
    ("Anthropic API key", "sk-ant-api03-{b:93}AA"),
    ("Anthropic admin key", "sk-ant-admin01-{b:93}AA"),
    ("AWS access key id", "AKIA{U:16}"),
    ("AWS temporary access key id", "ASIA{U:16}"),
    ("AWS secret access key", "aws_secret_access_key = {B:40}"),
    ("AWS session token", "IQoJb3JpZ2luX2VjE{B:300}"),
    ("Google API key", "AIza{b:35}"),
    ("Google OAuth access token", "ya29.{b:150}"),
    ("Google OAuth client secret", "GOCSPX-{b:28}"),
    ("Google OAuth refresh token", "1//0{b:100}"),
    ("Azure AD client secret", "{A:3}8Q~{b:31}"),
    (
        "Azure Storage connection string",
        "DefaultEndpointsProtocol=https;AccountName=acct{n:8};AccountKey={B:86}==;"
        "EndpointSuffix=core.windows.net",
    ),
    (
        "Azure Service Bus connection string",
        "Endpoint=sb://ns{n:8}.servicebus.windows.net/;SharedAccessKeyName="
        "RootManageSharedAccessKey;SharedAccessKey={B:43}=",
    ),
    (
        "Azure SAS token",
        "sv=2022-11-02&ss=bfqt&srt=sco&sp=rwdlacupiytfx&se=2026-12-31T00:00:00Z&st=2026-01-01"
        "T00:00:00Z&spr=https&sig={B:43}%3D",
    ),
    (
        "Azure Cosmos DB key",
        "AccountEndpoint=https://db{n:8}.documents.azure.com:443/;AccountKey={B:86}==;",
    ),
    ("Azure OpenAI key", "api-key: {h:32}"),
    ("Slack bot token", "xoxb-{d:12}-{d:13}-{A:24}"),
    ("Slack user token", "xoxp-{d:12}-{d:12}-{d:13}-{h:32}"),
    ("Slack app-level token", "xapp-1-A{U:10}-{d:13}-{h:64}"),
    ("Slack configuration token", "xoxe.xoxp-1-{A:160}"),
    ("Slack incoming webhook", "https://hooks.slack.com/services/T{U:10}/B{U:10}/{A:24}"),
    ("Discord bot token", "M{b:25}.G{b:5}.{b:38}"),
    ("Discord webhook", "https://discord.com/api/webhooks/{d:19}/{b:68}"),
    ("Twilio API key secret", "twilio api secret: {A:32}"),
    ("Twilio API key sid", "SK{h:32}"),
    ("Twilio auth token", "TWILIO_AUTH_TOKEN={h:32}"),
    ("SendGrid API key", "SG.{b:22}.{b:43}"),
    ("Mailgun API key", "key-{h:32}"),
    ("Mailchimp API key", "{h:32}-us{d:2}"),
    ("npm access token", "npm_{A:36}"),
    ("PyPI API token", "pypi-AgEIcHlwaS5vcmc{b:120}"),
    ("RubyGems API key", "rubygems_{h:48}"),
    ("NuGet API key", "oy2{a:43}"),
    ("Docker Hub personal access token", "dckr_pat_{b:27}"),
    ("Hugging Face token", "hf_{A:34}"),
    ("Replicate API token", "r8_{A:37}"),
    ("Groq API key", "gsk_{A:52}"),
    ("Perplexity API key", "pplx-{A:48}"),
    ("xAI API key", "xai-{A:80}"),
    ("Mistral API key", "MISTRAL_API_KEY={A:32}"),
    ("Cohere API key", "CO_API_KEY={A:40}"),
    ("Shopify admin access token", "shpat_{h:32}"),
    ("Shopify custom app token", "shpca_{h:32}"),
    ("Shopify private app password", "shppa_{h:32}"),
    ("Shopify shared secret", "shpss_{h:32}"),
    ("Square access token", "EAAA{b:60}"),
    ("Square OAuth secret", "sq0csp-{b:43}"),
    ("PayPal Braintree access token", "access_token$production${a:16}${h:32}"),
    ("Atlassian API token", "ATATT3xFfGF0{b:180}={H:8}"),
    ("Linear API key", "lin_api_{A:40}"),
    ("Notion integration secret", "secret_{A:43}"),
    ("Notion API token", "ntn_{d:11}{A:35}"),
    ("Airtable personal access token", "pat{A:14}.{h:64}"),
    ("Asana personal access token", "2/{i:16}/{i:16}:{h:32}"),
    ("Dropbox access token", "sl.{b:135}"),
    ("Figma personal access token", "figd_{b:40}"),
    ("Postman API key", "PMAK-{h:24}-{h:34}"),
    ("Heroku API key", "HRKU-AA{b:58}"),
    ("DigitalOcean personal access token", "dop_v1_{h:64}"),
    ("DigitalOcean OAuth token", "doo_v1_{h:64}"),
    ("DigitalOcean refresh token", "dor_v1_{h:64}"),
    ("Doppler service token", "dp.st.prd.{A:40}"),
    ("HashiCorp Vault service token", "hvs.{b:90}"),
    ("HashiCorp Vault batch token", "hvb.{b:120}"),
    ("Terraform Cloud token", "{A:14}.atlasv1.{A:67}"),
    ("Pulumi access token", "pul-{h:40}"),
    ("Sentry organization token", "sntrys_eyJ{b:120}"),
    ("Sentry user token", "sntryu_{h:64}"),
    ("Datadog API key", "DD_API_KEY={h:32}"),
    ("Datadog application key", "DD_APP_KEY={h:40}"),
    ("New Relic user key", "NRAK-{U:27}"),
    ("New Relic insert key", "NRII-{b:32}"),
    ("Grafana service account token", "glsa_{A:32}_{h:8}"),
    ("Grafana Cloud token", "glc_eyJ{b:100}"),
    ("Supabase access token", "sbp_{h:40}"),
    ("Supabase secret key", "sb_secret_{b:31}"),
    ("PlanetScale service token", "pscale_tkn_{b:43}"),
    ("PlanetScale password", "pscale_pw_{b:43}"),
    ("Okta API token", "Authorization: SSWS 00{b:40}"),
    ("JFrog API key", "AKCp{A:69}"),
    ("Alibaba Cloud access key id", "LTAI{A:20}"),
    ("Tencent Cloud secret id", "AKID{A:32}"),
    ("Yandex Cloud IAM token", "t1.{b:160}"),
    ("Yandex Cloud API key", "AQVN{b:36}"),
    ("Telegram bot token", "{d:10}:AA{b:33}"),
    ("Facebook access token", "EAACEdEose0cBA{A:180}"),
    ("Twitter bearer token", "AAAAAAAAAAAAAAAAAAAAA{A:80}%3D{A:50}"),
    ("Mapbox secret token", "sk.eyJ1{b:60}.{b:22}"),
    ("Contentful delivery token", "CFPAT-{b:43}"),
    ("Databricks token", "dapi{h:32}"),
    ("Plaid access token", "access-production-{h:8}-{h:4}-{h:4}-{h:4}-{h:12}"),
    ("Adobe client secret", "p8e-{A:32}"),
    ("age secret key", "AGE-SECRET-KEY-1{Z:58}"),
    ("Firebase Cloud Messaging server key", "AAAA{b:7}:APA91b{b:134}"),
    ("Cloudflare API token", "CLOUDFLARE_API_TOKEN={b:40}"),
    ("Vercel token", "VERCEL_TOKEN={A:24}"),
    ("Netlify token", "nfp_{A:36}"),
    ("Intercom access token", "dG9rOj{B:54}="),
    ("Algolia admin key", "ALGOLIA_ADMIN_KEY={h:32}"),
    (
        "RSA private key (PEM)",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEow{B:58}\n{B:64}\n{B:40}==\n-----END RSA PRIVATE KEY-----",
    ),
    (
        "OpenSSH private key",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA{B:40}\n{B:70}\n"
        "-----END OPENSSH PRIVATE KEY-----",
    ),
    (
        "EC private key",
        "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEI{B:55}\n{B:60}==\n-----END EC PRIVATE KEY-----",
    ),
    (
        "PKCS#8 encrypted private key",
        "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHDBO{B:56}\n{B:64}\n"
        "-----END ENCRYPTED PRIVATE KEY-----",
    ),
    (
        "PGP private key block",
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF{B:58}\n{B:64}\n=a{B:3}\n"
        "-----END PGP PRIVATE KEY BLOCK-----",
    ),
    ("PuTTY private key", "PuTTY-User-Key-File-3: ssh-ed25519\nPrivate-Lines: 1\n{B:44}"),
    ("PostgreSQL URL with password", "postgresql://app_user:{A:16}@db.internal.example:5432/app"),
    ("MySQL URL with password", "mysql://root:{A:14}@10.0.3.7:3306/shop"),
    (
        "MongoDB SRV URL with password",
        "mongodb+srv://svc:{A:20}@cluster0.ab{n:4}.mongodb.net/?retryWrites=true",
    ),
    ("Redis URL with password", "redis://:{A:24}@cache.example.net:6380/0"),
    ("AMQP URL with password", "amqps://broker:{A:18}@mq.example.org/vhost"),
    ("SMTP URL with password", "smtp://mailer:{A:16}@smtp.example.com:587"),
    (
        "JDBC SQL Server URL",
        "jdbc:sqlserver://db.example.com:1433;databaseName=hr;user=sa;password={A:16};",
    ),
    (
        "ADO.NET connection string",
        "Server=tcp:sql.example.net,1433;Database=crm;User ID=crm;Password={A:16};Encrypt=True;",
    ),
    ("ODBC connection string", "Driver={{PostgreSQL Unicode}};Server=pg;Uid=etl;Pwd={A:14};"),
    ("HTTP Basic Authorization header", "Authorization: Basic {B:40}"),
    ("HTTP Bearer Authorization header", "Authorization: Bearer {b:64}"),
    ("HTTP token Authorization header", "Authorization: token {h:40}"),
    ("X-API-Key header", "X-API-Key: {A:40}"),
    ("Cookie header with session", "Cookie: sessionid={a:32}; csrftoken={A:32}"),
    ("Proxy-Authorization header", "Proxy-Authorization: Basic {B:32}"),
    ("curl basic credentials", "curl -u deploy:{A:18} https://ci.example.com/api"),
    ("URL query access token", "https://api.example.com/v2/me?access_token={b:48}&fields=id"),
    (
        "OAuth client secret in form",
        "client_id=app123&client_secret={b:40}&grant_type=client_credentials",
    ),
    ("OAuth refresh token in form", "grant_type=refresh_token&refresh_token={b:64}"),
    ("dotenv password", "DB_PASSWORD={A:20}"),
    ("Django secret key", "SECRET_KEY='django-insecure-{A:50}'"),
    ("npmrc auth token", "//registry.npmjs.org/:_authToken={b:40}"),
    ("Docker config auth", '"auths": {{"ghcr.io": {{"auth": "{B:60}="}}}}'),
    (
        "Kubernetes service account token",
        "token: eyJhbGciOiJSUzI1NiIsImtpZCI6I{b:40}.eyJ{b:120}.{b:86}",
    ),
    ("JWT", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ{b:60}.{b:43}"),
    ("Payment card (Visa)", "card 4{luhn:15}"),
    ("IBAN (Germany)", "IBAN {iban:DE}"),
    ("One-time password in text", "my one-time code is {d:6}"),
    ("Password in prose", "my password is {A:12}!"),
    ("Passphrase in prose", "the wifi passphrase: {A:16}"),
)

#: structured shapes: a value under a sensitive key, at some depth, in a tool call or result
STRUCTURED: tuple[tuple[str, object], ...] = (
    ("password argument", {"username": "ana.lopez", "password": "{A:12}"}),
    ("otp secret", {"account": {"otp_secret": "{Z:32}", "label": "work"}}),
    ("pin code", {"card_id": "c_1", "pinCode": "{d:4}"}),
    ("nested api key", {"config": {"providers": [{"name": "maps", "apiKey": "{A:32}"}]}}),
    ("authorization header", {"request": {"headers": {"Authorization": "Bearer {b:40}"}}}),
    ("cookie header", {"headers": {"set-cookie": "sid={a:32}; Path=/; HttpOnly"}}),
    ("client secret", {"oauth": {"Client-Secret": "{b:40}", "client_id": "web"}}),
    ("private key field", {"type": "service_account", "private_key_id": "{x:40}",
                           "private_key": "-----BEGIN PRIVATE KEY-----\n{B:64}\n-----END PRIVATE KEY-----\n"}),
    ("connection string field", {"ConnectionString": "Host=db;Username=u;Password={A:14}"}),
    ("cvv", {"payment": {"card_last4": "4242", "CVV": "{d:3}"}}),
    ("passcode list", {"steps": [{"action": "unlock", "passcode": "{d:6}"}]}),
    ("credentials object", {"credentials": {"user": "svc", "secret": "{A:24}"}}),
    ("access token in result", {"access_token": "{b:48}", "token_type": "Bearer", "expires_in": 3600}),
    ("refresh token", {"refreshToken": "{b:64}"}),
    ("json in a string", {"output": '{{"session": {{"auth_token": "{A:30}"}}}}'}),
    ("security answer", {"security_answer": "{a:10}"}),
)  # fmt: skip


@dataclass(frozen=True)
class Secret:
    """One generated secret: its format, where it sits, the carrier (text or JSON value) and
    the random pieces that must not survive redaction."""

    name: str
    where: str
    carrier: object
    pieces: tuple[str, ...]

    def survives_in(self, output: str) -> list[str]:
        """The pieces still present in ``output`` (whole words for short ones)."""
        return [
            piece
            for piece in self.pieces
            if (piece in output if len(piece) >= 6 else re.search(rf"\b{piece}\b", output))
        ]


class _Filler:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.pieces: list[str] = []

    def fill(self, template: str) -> str:
        luhn, iban = self._luhn, self._iban
        template = re.sub(r"\{luhn:(\d+)\}", lambda m: self._keep(luhn(int(m.group(1)))), template)
        template = re.sub(r"\{iban:([A-Z]{2})\}", lambda m: self._keep(iban(m.group(1))), template)
        filled = _PLACEHOLDER.sub(
            lambda m: self._piece(m.group(1), int(m.group(2))),
            template,
        )
        return filled.replace("{{", "{").replace("}}", "}")

    def _piece(self, alphabet: str, length: int) -> str:
        piece = "".join(self.rng.choice(_ALPHABETS[alphabet]) for _ in range(length))
        return piece if alphabet in _NOT_SECRET else self._keep(piece)

    def _keep(self, piece: str) -> str:
        self.pieces.append(piece)
        return piece

    def _luhn(self, count: int) -> str:
        body = [self.rng.choice(string.digits) for _ in range(count - 1)]
        total = 0
        for index, char in enumerate(reversed("4" + "".join(body))):
            value = int(char) * (2 if index % 2 == 0 else 1)
            total += value - 9 if value > 9 else value
        return "".join(body) + str((10 - total % 10) % 10)

    def _iban(self, country: str) -> str:
        bban = "".join(self.rng.choice(string.digits) for _ in range(18))
        numeric = "".join(str(int(c, 36)) for c in bban + country + "00")
        return f"{country}{98 - int(numeric) % 97:02d}{bban}"

    def shape(self, shape: object) -> object:
        if isinstance(shape, dict):
            return {key: self.shape(item) for key, item in shape.items()}
        if isinstance(shape, list):
            return [self.shape(item) for item in shape]
        if isinstance(shape, str) and _PLACEHOLDER.search(shape):
            return self.fill(shape)
        return shape


def secrets(seed: int = 26) -> list[Secret]:
    """Every format in running text, in tool-call arguments and in a tool result; every
    structured shape as arguments. The same seed gives the same corpus."""
    rng = random.Random(seed)
    found = []
    for name, template in FORMATS:
        filler = _Filler(rng)
        filled = filler.fill(template)
        pieces = tuple(filler.pieces)
        found.append(Secret(name, "text", f"Here you go: {filled} (use it for the sync).", pieces))
        found.append(Secret(name, "arguments", {"note": filled, "ticket": "T-1042"}, pieces))
        found.append(Secret(name, "result", f"Config loaded.\n{filled}\nDone.", pieces))
    for name, shape in STRUCTURED:
        filler = _Filler(rng)
        found.append(Secret(name, "structured", filler.shape(shape), tuple(filler.pieces)))
    return found
