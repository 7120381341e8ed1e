"""The harness ends every process an implementation started, and only those: its own children live on."""

from __future__ import annotations

import subprocess
import sys

from vitou_ref.protocol.connection import Connection


def test_closing_a_connection_spares_the_harness_own_children() -> None:
    # Fails before the fix: a child the harness process started itself while a connection was open (as
    # another thread's subprocess does, e.g. tools/code_mutants.py's probe) was taken for an orphan of the
    # implementation, re-parented to the harness, and killed with it.
    conn = Connection([sys.executable, "-m", "vitou_ref.adapter"])
    conn.open()
    own = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        conn.close()
        assert own.poll() is None, "the harness's own child was killed with the implementation"
    finally:
        own.kill()
        own.wait()
