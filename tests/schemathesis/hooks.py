"""Schemathesis hooks for the lab's quick contract run (tests/tests/contract.rs).

They change a request just before it is sent, in every phase:

- Three Lab-Fault values make a server hang up without answering. That is
  the lab's demonstration of a lost response (the OpenAPI document says so),
  and no tool can check a response that never comes, so they are dropped.
  So is provider-timeout: its 502 is the lab's demonstration of a payment
  provider that charged and then timed out, tested by side_effects.rs; and
  so are error-before-create and error-after-create, whose 500 is asked
  for (the failure hook; tested by failure_hook.rs).
- Lab-Missing-Key: create is dropped: it makes a POST without its
  Idempotency-Key a plain order on purpose (the lesson's "no key" step),
  which the document's "required" cannot say; keyless.rs tests it.
- A webhook delivery run asked to sign with the wrong secret is signed
  with the lab's: every attempt of it is refused, so the provider spends
  its whole backoff (1.5 s) on each; webhooks.rs tests it.
- A delivery to a webhook receiver is signed with the default lab's
  webhook secret (read from /api/webhooks/endpoints), at the current time
  and with the event's own id, as the provider signs it, so the receivers
  are tested past their signature check; refusals of unsigned, forged and
  replayed deliveries are tested in webhooks.rs.
- Valid delays are cut to at most 20 ms, so that a bounded run spends its
  time on inputs rather than on waiting.
- A valid Idempotency-Key gets a unique suffix. Reusing a key for another
  body is refused with 422 on purpose (as the IETF Idempotency-Key draft
  asks), and the generator repeats small keys; the reuse is tested by the
  lab's own HTTP tests.

- The teacher's view (`/api/teacher/labs`) is asked with the test lab's
  teacher token (`LAB_TEACHER_TOKEN`), so it is tested past its 401; the
  refusals without it are tested in `workshop.rs`.
- A schedule's routes (`/schedules/{id}…`) get the id of a real schedule,
  opened just before with the case's own credentials and closed just
  after, so they are tested past "no such schedule": a generated id names
  none. A schedule `POST /schedules` opens is closed right after, so the
  lab's two places stay free. (`Lab-Schedule` on `POST /orders` keeps its generated id, which
  names no schedule: a copy of a real one would wait at its gates for a
  release no fuzzer sends; `schedules.rs` steps real copies.)

- An exploration's routes (`/explorations/{id}`) likewise get the id of a
  real exploration of two copies, started just before and stopped just
  after; one `POST /explorations` starts is stopped at once, so the
  server's two places stay free and no exploration runs on behind the
  cases. `Prefer: wait=N` is dropped: a read would wait up to 20 s for an
  exploration to end (`explorations.rs` tests the wait).

Invalid values are left as generated: the servers must refuse them with a
4xx problem, and the run checks that they do.
"""

import base64
import hashlib
import hmac
import json
import os
import time
import re
import urllib.error
import urllib.request
import uuid

import schemathesis

FAILS_ON_PURPOSE = {
    "drop-response",
    "crash-after-create",
    "crash-after-charge",
    "provider-timeout",
    "error-before-create",
    "error-after-create",
}
LONGEST_DELAY_MS = 20
VALID_KEY = re.compile(r'^(?!""$)(?:[!-~]{1,255}|"[!-~]{1,255}")$')


TEACHER_TOKEN = os.environ.get("LAB_TEACHER_TOKEN")
BASE_URL = os.environ.get("LAB_BASE_URL", "").rstrip("/")
# A route of one schedule or exploration, and the route that makes one.
OWN_ROUTE = re.compile(r"^(?P<server>/api/[a-z]+)/(?P<kind>schedules|explorations)/\{id\}")
MAKE = {"schedules": b"", "explorations": b'{"copies":2}'}
CREDENTIALS = ("lab-secret", "lab-id")
# The schedule or exploration each case in flight made, by the case's
# id(): its URL, closed (or stopped) after the case's call.
OPENED = {}


RECEIVER = re.compile(r"^/api/receivers/\{receiver\}/labs/\{lab\}/webhooks$")
WEBHOOK_SECRET = []


def _webhook_key():
    """The default lab's webhook key, read once from the lab."""
    if not WEBHOOK_SECRET:
        with urllib.request.urlopen(f"{BASE_URL}/api/webhooks/endpoints", timeout=10) as response:
            secret = json.load(response)["secret"]
        WEBHOOK_SECRET.append(base64.b64decode(secret.removeprefix("whsec_")))
    return WEBHOOK_SECRET[0]


def _sign_delivery(case):
    """Signs the case's body as the provider signs a delivery to the
    default lab: the bytes requests will send (json.dumps), now. A case
    that leaves out one of the three headers keeps it out."""
    present = {name.lower() for name in (case.headers or {})}
    if not {"webhook-id", "webhook-timestamp", "webhook-signature"} <= present:
        return
    case.path_parameters["lab"] = "default"
    body = case.body if isinstance(case.body, dict) else {}
    event_id = body.get("id") if isinstance(body.get("id"), str) else "evt_fuzz"
    if not event_id.isascii() or not event_id.isprintable() or not event_id.strip():
        event_id = "evt_fuzz"
    timestamp = str(int(time.time()))
    sent = json.dumps(case.body, allow_nan=False).encode()
    mac = hmac.new(_webhook_key(), f"{event_id}.{timestamp}.".encode() + sent, hashlib.sha256)
    case.headers = dict(case.headers or {})
    for name in list(case.headers):
        if name.lower().startswith("webhook-"):
            del case.headers[name]
    case.headers["webhook-id"] = event_id
    case.headers["webhook-timestamp"] = timestamp
    case.headers["webhook-signature"] = "v1," + base64.b64encode(mac.digest()).decode()


def _credentials(case):
    return {
        name: str(value)
        for name, value in (case.headers or {}).items()
        if name.lower() in CREDENTIALS
    }


def _open(case):
    """The URL of a new schedule or exploration in the case's lab, for the
    case's route of one, or None if it is not one or its credentials make none."""
    match = OWN_ROUTE.match(case.operation.path)
    if match is None or not BASE_URL:
        return None
    url = f"{BASE_URL}{match['server']}/{match['kind']}"
    headers = _credentials(case)
    body = MAKE[match["kind"]]
    if body:
        headers["content-type"] = "application/json"
    request = urllib.request.Request(url, data=body, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return f"{url}/{json.load(response)['id']}"
    except (urllib.error.URLError, ValueError, KeyError, UnicodeError):
        return None


def _close(case, url):
    request = urllib.request.Request(url, method="DELETE", headers=_credentials(case))
    try:
        urllib.request.urlopen(request, timeout=10).close()
    except (urllib.error.URLError, ValueError, UnicodeError):
        pass  # Closed by the case itself (DELETE), or its lab was never open.


if TEACHER_TOKEN:

    @schemathesis.auth().apply_to(path_regex="/teacher/labs$")
    class TeacherToken:
        """The teacher's token, for the one route that needs it."""

        def get(self, case, ctx):
            return TEACHER_TOKEN

        def set(self, case, data, ctx):
            case.headers = dict(case.headers or {})
            case.headers["Authorization"] = f"Bearer {data}"


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    if case.path_parameters and "id" in case.path_parameters:
        url = _open(case)
        if url is not None:
            case.path_parameters["id"] = url.rsplit("/", 1)[1]
            OPENED[id(case)] = url
    if RECEIVER.match(case.operation.path) and BASE_URL and case.body is not None:
        try:
            _sign_delivery(case)
        except (urllib.error.URLError, ValueError, KeyError, TypeError):
            pass  # Left unsigned: refused with 401, which the run accepts.
    if (
        case.operation.path.endswith("/webhooks/deliveries")
        and isinstance(case.body, dict)
        and case.body.get("signing") == "wrong-secret"
    ):
        case.body["signing"] = "lab-secret"
    headers = case.headers
    if not headers:
        return
    for name in list(headers):
        value = str(headers[name])
        lowered = name.lower()
        if lowered == "lab-fault" and value.strip() in FAILS_ON_PURPOSE:
            del headers[name]
        elif lowered == "lab-missing-key" and value.strip() == "create":
            del headers[name]
        elif lowered == "prefer":
            del headers[name]
        elif lowered == "lab-delay-ms" and value.isdigit() and int(value) <= 10_000:
            headers[name] = str(int(value) % (LONGEST_DELAY_MS + 1))
        elif lowered == "idempotency-key" and VALID_KEY.match(value):
            unquoted = value[1:-1] if len(value) > 1 and value[0] == value[-1] == '"' else value
            headers[name] = (unquoted[:200] + "-" + uuid.uuid4().hex)


@schemathesis.hook
def after_call(ctx, case, response):
    url = OPENED.pop(id(case), None)
    made = {"/schedules": 201, "/explorations": 202}
    for suffix, status in made.items():
        if url is None and case.operation.path.endswith(suffix) and response.status_code == status:
            # One Schemathesis made itself: closed at once, or two of them
            # fill the lab's (or the server's) places and every later case
            # meets 429 (or 503); an exploration would run on for minutes.
            url = f"{BASE_URL}{case.operation.path}/{response.json()['id']}"
    if url is not None:
        _close(case, url)
