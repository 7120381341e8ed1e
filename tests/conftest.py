import atexit
import os
import shutil
import signal
import tempfile

from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=60, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# The tests (and the commands they start, which inherit the environment) keep
# their load cache in a directory of their own, not in the user's: a run
# starts cold and leaves nothing behind.
_CACHE = tempfile.mkdtemp(prefix="vitou-test-cache-")
os.environ["VITOU_CACHE_DIR"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, True)

# The tests of what ^C does need it as a terminal's foreground job has it. A suite started in the
# background by a script inherits SIGINT ignored, and vitou, like Python, keeps an ignored signal
# ignored, in the commands the tests start too: put it back, so that no test depends on how the
# suite was started.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
