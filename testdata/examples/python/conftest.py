import os
import subprocess
import tempfile
import time

import pytest
import requests


@pytest.fixture(scope="session")
def airlite():
    """Start one airlite for the whole session, on a free port."""
    binary = os.environ.get("AIRLITE_BIN", "airlite")
    with tempfile.TemporaryDirectory() as tmp:
        ready = os.path.join(tmp, "ready")
        proc = subprocess.Popen(
            [binary, "--addr", "127.0.0.1:0", "--ready-file", ready,
             "--snapshot", "off", "--clock", "fake"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while not os.path.exists(ready):
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError("airlite did not start")
            time.sleep(0.01)
        with open(ready) as f:
            base_url = f.read().strip()
        yield base_url
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(autouse=True)
def clean_airlite(airlite):
    """Every test starts from the fixture DAGs, with no runs."""
    requests.post(f"{airlite}/_airlite/reset").raise_for_status()
    yield
