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
- Valid delays are cut to at most 20 ms, so that a bounded run spends its
  time on inputs rather than on waiting.
- A valid Idempotency-Key gets a unique suffix. Reusing a key for another
  body is refused with 422 on purpose (as the IETF Idempotency-Key draft
  asks), and the generator repeats small keys; the reuse is tested by the
  lab's own HTTP tests.

- The teacher's view (`/api/teacher/labs`) is asked with the test lab's
  teacher token (`LAB_TEACHER_TOKEN`), so it is tested past its 401; the
  refusals without it are tested in `workshop.rs`.

Invalid values are left as generated: the servers must refuse them with a
4xx problem, and the run checks that they do.
"""

import os
import re
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
        elif lowered == "lab-delay-ms" and value.isdigit() and int(value) <= 10_000:
            headers[name] = str(int(value) % (LONGEST_DELAY_MS + 1))
        elif lowered == "idempotency-key" and VALID_KEY.match(value):
            unquoted = value[1:-1] if len(value) > 1 and value[0] == value[-1] == '"' else value
            headers[name] = (unquoted[:200] + "-" + uuid.uuid4().hex)
