"""Ctrl-C as a user sends it: a real SIGINT from another process while a call runs.

A signal raised from a Python thread of the same process (``_thread.interrupt_main``) is only seen
when the interpreter gets control back, so it cannot show that a C++ loop holding or releasing the GIL
polls for signals. Here the call runs in a child interpreter and the test process sends the signal.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

_CHILD = """\
import signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)
{setup}
sys.stdout.write("started\\n")
sys.stdout.flush()
try:
{call}
except KeyboardInterrupt:
    sys.stdout.write(f"interrupted {{time.monotonic()!r}}\\n")
    sys.stdout.flush()
    sys.exit(0)
sys.stdout.write(f"finished {{time.monotonic()!r}}\\n")
sys.stdout.flush()
sys.exit(3)
"""


def assert_interrupts(
    setup: str, call: str, *, after: float = 0.5, within: float = 0.5, timeout: float = 300.0
) -> float:
    """Run ``setup`` then ``call`` (Python source) in a child interpreter, send it SIGINT ``after``
    seconds into ``call`` and assert that ``call`` raised KeyboardInterrupt within ``within`` seconds
    of the signal. ``call`` must run well past ``after`` uninterrupted. Returns the delay in seconds."""
    source = _CHILD.format(
        setup=textwrap.dedent(setup), call=textwrap.indent(textwrap.dedent(call).strip() or "pass", "    ")
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    child = subprocess.Popen(
        [sys.executable, "-c", source], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        first = child.stdout.readline().strip()
        if first != "started":
            _, err = child.communicate(timeout=timeout)
            raise AssertionError(f"the child did not start the call: {first!r}\n{err[-2000:]}")
        time.sleep(after)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=timeout)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    words = out.split()
    assert words and words[0] in ("interrupted", "finished"), (
        f"child ended with {child.returncode}: {out!r}\n{err[-2000:]}"
    )
    if words[0] == "finished":
        raise AssertionError(
            f"the call ended without KeyboardInterrupt (it returned {float(words[1]) - sent:+.2f} s after the signal)"
        )
    delay = float(words[1]) - sent
    assert delay <= within, f"KeyboardInterrupt came {delay:.2f} s after SIGINT (allowed {within} s)"
    return delay
